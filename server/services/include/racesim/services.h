/*
 * racesim services: what a room needs from the rest of the server, backed
 * by the store (server/store).
 *
 * A room (racesim/room.h) knows nothing of databases or secrets; it calls
 * hooks. rs_services implements them over one SQLite store:
 *  - every race is created in the store (track, each car's parameter block,
 *    the race row) and logged by an rs_racelog fed around every world step,
 *    through the store's writer thread, so the tick loop never waits on disk;
 *    the writer's acknowledgements set the LAP flags (recorded, personal
 *    best, track record) through rs_room_lap_flags;
 *  - players register (HELLO with RS_HELLO_REGISTER) and authenticate with
 *    their name and token (rs_services_auth, the room's auth function);
 *    guests are allowed or not; banned names are refused with reason BANNED;
 *  - leaderboard, tune and admin requests are answered.
 *
 * Guests' laps and results are recorded under a player row named "~" + the
 * guest's name (cut to 32 bytes), created on first use; registration refuses
 * names starting with "~", so these rows never belong to anyone.
 *
 * Requests are answered synchronously on the room's thread with one or two
 * indexed queries (leaderboard page, tune row) on the services' own
 * connection: about 50 microseconds for a small leaderboard page, rate-limited by the room to
 * 10 per second per peer. Race set-up (storing the track, the cars and the
 * race row) is a small synchronous write at each countdown.
 *
 * Thread rules: one rs_services and every room using its hooks belong to one
 * thread (the store connection is single-threaded; an admin ban kicks the
 * name from every room). Destroy the rooms before the services.
 */
#ifndef RACESIM_SERVICES_H
#define RACESIM_SERVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"
#include "racesim/room.h"
#include "racesim/store.h"
#include "racesim/track.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A track the admin command CHANGE_TRACK may switch a room to. */
typedef struct rs_services_track {
    const char *name;      /* catalogue name (matched ignoring ASCII case); copied */
    const rs_track *track; /* borrowed; must outlive the services and the rooms */
    const char *json;      /* the JSON text it was built from; borrowed likewise */
    size_t json_len;
} rs_services_track;

typedef struct rs_services_def {
    /* Either a database path (the services open the store, creating and
     * migrating it, and a writer on it, and close both) ... */
    const char *db_path;
    /* ... or an open read-write store and a writer on the same file, both
     * borrowed (they must outlive the services). */
    rs_store *store;
    rs_store_writer *writer;
    const char *admin_secret;  /* 1..64 bytes; NULL or "" = admin commands refused. Copied */
    const char *const *bans;   /* banned player names (ASCII case ignored); copied */
    uint32_t ban_count;
    const char *ban_path;      /* NULL, or a text file of banned names, one per line, read at
                                  creation (a missing file is empty) and appended to on BAN */
    const rs_services_track *tracks; /* the CHANGE_TRACK catalogue; copied (see above) */
    uint32_t track_count;
    bool allow_guests;         /* HELLO without token accepted as a guest. Usually true */
    uint32_t max_lap_ticks;    /* longest lap that gets a proof. Usually 18000 (5 min at
                                  60 Hz); costs 8 bytes per car per tick per room */
} rs_services_def;

/* Guests allowed, 18000 proof ticks, everything else empty. */
rs_services_def rs_services_default(void);

typedef struct rs_services rs_services;

/* Opens (or borrows) the store and writer, loads the ban file. On error
 * returns a status (RS_ERR_ARG: neither db_path nor store+writer; store
 * statuses; RS_ERR_IO for an unreadable ban file; RS_ERR_RANGE for an
 * admin secret longer than 64 bytes) with a message in err. Caller frees
 * with rs_services_destroy. */
rs_status rs_services_create(const rs_services_def *def, rs_services **out, char *err,
                             size_t err_len);

/* Hooks for a room (every member set; ctx is svc): put them in
 * rs_room_config.hooks. Set cfg.defer_laps so LAPs carry their flags. Any
 * number of rooms may use them. Never fails. */
rs_room_hooks rs_services_hooks(rs_services *svc);

/* An rs_room_auth_fn: pass svc as cfg.auth_ctx. A name with a token must
 * match a registered player (rs_store_player_auth); a name without one is a
 * guest if guests are allowed and the name is not registered; a banned name
 * is refused with RS_REASON_BANNED. */
bool rs_services_auth(void *svc, const char *name, const char *token, int64_t *player_id,
                      char *text, size_t text_cap);

/* Bans a name (persisted to ban_path if set) and kicks it from every room
 * using these services with reason BANNED. RS_ERR_IO when the ban file
 * cannot be appended (the ban holds in memory anyway). */
rs_status rs_services_ban(rs_services *svc, const char *name);
bool rs_services_is_banned(const rs_services *svc, const char *name);

/* Drains the writer's acknowledgements, delivers LAP flags to live rooms,
 * re-offers records the writer could not take and frees finished races'
 * logs. Cheap; call it every server loop (the room hooks also do it on
 * every tick). Never blocks on disk. */
void rs_services_poll(rs_services *svc);

/* For shutdown (SIGINT, SIGTERM): ends every running race as stopped, with
 * its classification so far stored as results (docs/PERSISTENCE.md, "Race
 * status"), hands every pending record of every race (running or finished)
 * to the writer and waits until they are committed; rounds of
 * offering and waiting for the writer stop after timeout_ms (a round in
 * progress finishes its wait). Returns how many records are still not
 * handed over (0 = every lap, result and race finish is on disk). Rooms may
 * still exist. */
size_t rs_services_shutdown(rs_services *svc, uint32_t timeout_ms);

typedef struct rs_services_stats {
    uint64_t races;            /* races created in the store */
    uint64_t laps_recorded;    /* lap acknowledgements with RS_OK */
    uint64_t records_failed;   /* acknowledgements with an error */
    uint64_t laps_pending;     /* laps handed to racelogs, not yet acknowledged */
    uint64_t requests;         /* requests answered */
    uint64_t admin_denied;     /* ADMIN with a wrong secret */
    uint64_t auth_refused;
    uint64_t registered;
    uint64_t db_errors;        /* synchronous store calls that failed */
} rs_services_stats;

/* Fills *out. Never fails. */
void rs_services_get_stats(const rs_services *svc, rs_services_stats *out);

/* The services' store connection (for the server's own queries, e.g. the
 * demo's final leaderboard), borrowed until rs_services_destroy; the thread
 * rules above apply. */
rs_store *rs_services_store(rs_services *svc);

/* The last store error met (empty when none); copied into err. Never fails. */
void rs_services_last_error(const rs_services *svc, char *err, size_t err_len);

/* Writes every pending record it can without waiting (rs_services_shutdown
 * waits), then frees everything it opened. Rooms using the hooks must be
 * destroyed first. Accepts NULL. */
void rs_services_destroy(rs_services *svc);

#ifdef __cplusplus
}
#endif

#endif
