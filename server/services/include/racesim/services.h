/*
 * racesim services: what a room needs from the rest of the server, backed
 * by the store (server/store).
 *
 * A room (racesim/room.h) knows nothing of databases or secrets; it calls
 * hooks. rs_services implements them over one SQLite database:
 *  - every race is created in the store (track, each car's parameter block,
 *    the race row) and logged by an rs_racelog fed around every world step,
 *    through the store's writer thread, so the tick loop never waits on disk;
 *    the writer's acknowledgements set the LAP flags (recorded, personal
 *    best, track record) through rs_room_lap_flags;
 *  - HELLOs are admitted (the admit hook): bans by player and by address,
 *    registration (two-phase: forgotten unless the client confirms its
 *    token with TOKEN_ACK), authentication by name and token, guests;
 *  - leaderboard, tune, token and admin requests are answered. Admin
 *    commands are for players the operator made administrators (racectl).
 *
 * Nothing that touches the database runs on the room's thread but race
 * set-up at each countdown: admissions and requests are jobs for the
 * services' own database thread, on its own connection, and their answers
 * go out from rs_services_poll, which the server calls every loop. A full
 * queue is answered BUSY, never waited for. Every request is budgeted per
 * address (on top of the room's per-peer limit), registrations per address
 * and for the whole server.
 *
 * Guests' laps and results are recorded under a player row named "~" + the
 * guest's name (cut to 32 bytes), created on first use; registration refuses
 * names starting with "~", so these rows never belong to anyone.
 *
 * Thread rules: the services lock themselves, so the rooms using their
 * hooks may step on several threads (a server's room workers), one room on
 * one thread at a time. Everything else (poll, peers, stats, shutdown)
 * belongs to one thread, the network thread. The services call into a
 * room (answers, seating, LAP flags, kicks) only from that room's own
 * hooks, or from rs_services_poll while the room is home: when rooms step
 * elsewhere, tell the services which are home (rs_services_set_home), and
 * what is due to a room that is away waits for it, in order. Without
 * rs_services_set_home every room belongs to the polling thread. An
 * observer may ask rs_services_race_id from any thread. Destroy the rooms
 * before the services.
 */
#ifndef RACESIM_SERVICES_H
#define RACESIM_SERVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"
#include "racesim/room.h"
#include "racesim/championship.h"
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

/* What one address, and the whole server, may ask for. */
typedef struct rs_services_limits {
    uint32_t requests_per_s;     /* requests (leaderboards, tunes, tokens, admin) from one
                                    IPv4 address, all its connections together, per second;
                                    twice as many at once. Usually 20 */
    uint32_t registers_per_hour; /* registrations from one address per hour (at once, too).
                                    Usually 5 */
    uint32_t registers_per_minute; /* registrations from everyone per minute. Usually 30 */
} rs_services_limits;

/* Levels of the services' log lines (the server maps them to its own). */
enum { RS_SERVICES_LOG_ERROR = 0, RS_SERVICES_LOG_WARN = 1, RS_SERVICES_LOG_INFO = 2 };

/* Types of a log entry's extra fields. */
enum { RS_SERVICES_FIELD_STR = 0, RS_SERVICES_FIELD_INT = 1, RS_SERVICES_FIELD_BOOL = 2 };

/* One extra fact of a log entry: a lap's id, a time, a flag. */
typedef struct rs_services_log_field {
    const char *key;       /* snake_case, never one of the entry's own names */
    uint8_t type;          /* RS_SERVICES_FIELD_* */
    const char *str;       /* STR (borrowed for the call) */
    int64_t num;           /* INT; BOOL 0 or 1 */
} rs_services_log_field;

/* One line for the server's log: what happened, about whom, and the line in
 * words. Everything is borrowed for the call. */
typedef struct rs_services_log_entry {
    int level;             /* RS_SERVICES_LOG_* */
    const char *event;     /* stable snake_case name: "admin", "admin_denied",
                              "lap_recorded", "registered", ... (docs/RACESERVER.md) */
    const char *room;      /* the room's name; NULL when the line is about no room */
    const char *player;    /* the player's name; NULL when about no player */
    int64_t player_id;     /* with player: 0 guest */
    const char *address;   /* the connection's "a.b.c.d:port"; NULL when none */
    const rs_services_log_field *fields; /* extra facts, field_count of them */
    uint32_t field_count;
    const char *text;      /* the whole line in words, saying all of the above */
} rs_services_log_entry;

typedef struct rs_services_def {
    const char *db_path;       /* the database: the services open the store (creating and
                                  migrating it), a writer, and a connection for their
                                  database thread. Required */
    const rs_services_track *tracks; /* the CHANGE_TRACK catalogue; copied (see above) */
    uint32_t track_count;
    bool allow_guests;         /* HELLO without token accepted as a guest. Usually true */
    uint32_t max_lap_ticks;    /* longest lap that gets a proof. Usually 18000 (5 min at
                                  60 Hz); costs 8 bytes per car per tick per room */
    uint32_t max_peers;        /* connections known at once (rs_services_peer_connected);
                                  usually the transport's peer slots, 512 */
    rs_services_limits limits;
    /* Where admin actions, refused admin attempts, registrations, token
     * changes, bans enforced and recorded laps (with their flags and stored
     * id) are reported: one entry each, saying who and where. NULL:
     * nowhere. Called on the room's thread. (Refused admissions reach a
     * room observer as the room's REFUSED: the services do not repeat them.) */
    void (*log)(void *ctx, const rs_services_log_entry *entry);
    void *log_ctx;
    /* Results and championships (docs/RESULTS.md). */
    const char *results_dir;   /* after each session, <room>-<race id>-<session>.json here,
                                  written on the database thread; NULL or "" = none (copied) */
    const char *server_name;   /* "server" in those files (copied; NULL = "racesim") */
    const rs_championship_def *championships; /* STANDINGS_REQUEST answers these (borrowed:
                                  they must outlive the services) */
    uint32_t championship_count;
} rs_services_def;

/* Guests allowed, 18000 proof ticks, 512 peers, the usual limits, no log,
 * everything else empty. */
rs_services_def rs_services_default(void);

typedef struct rs_services rs_services;

/* Opens the store, the writer and the database thread's connection, and
 * forgets registrations a previous run left unconfirmed. On error returns
 * a status (RS_ERR_ARG: no db_path; store statuses; RS_ERR_NOMEM) with a
 * message in err. Caller frees with rs_services_destroy. */
rs_status rs_services_create(const rs_services_def *def, rs_services **out, char *err,
                             size_t err_len);

/* Hooks for a room (every member set; ctx is svc): put them in
 * rs_room_config.hooks. Set cfg.defer_laps so LAPs carry their flags. Any
 * number of rooms may use them. Never fails. */
rs_room_hooks rs_services_hooks(rs_services *svc);

/* Rooms that step on other threads: home(ctx, room) says whether room is
 * the polling thread's to call now (not being updated elsewhere). It is
 * asked only inside rs_services_poll, and a room must not leave home
 * during a poll. Set it before any room steps on another thread; NULL
 * (the default) means every room is the polling thread's. */
void rs_services_set_home(rs_services *svc, bool (*home)(void *ctx, const rs_room *room),
                          void *ctx);

/* The transport's connections: each one's address ("a.b.c.d:port") as it
 * connects, before its first message reaches a room, and its end, after the
 * room heard of it. The services need the address for bans by address
 * range, budgets per address and log lines; an unconfirmed registration is
 * forgotten when its connection ends. Unknown peers are ignored. */
void rs_services_peer_connected(rs_services *svc, uint32_t peer, const char *address);
void rs_services_peer_gone(rs_services *svc, uint32_t peer);

/* Sends the answers of finished admissions and requests, checks every few
 * seconds whether anyone connected is banned now (racectl's bans take
 * effect at once), drains the writer's acknowledgements, delivers LAP flags
 * to live rooms, re-offers records the writer could not take and frees
 * finished races' logs; what is due to a room that is away waits for a
 * poll that finds it home. Cheap; call it every server loop: the LAP flags
 * come only from here (a room's hooks hand its own race's records to the
 * writer every tick). Never blocks on disk. */
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
    uint64_t busy;             /* requests and admissions answered BUSY (queue full, or
                                  over an address's budget) */
    uint64_t admin_denied;     /* ADMIN from someone who is not an administrator */
    uint64_t auth_refused;     /* HELLOs refused: wrong token, banned, reserved names... */
    uint64_t registered;
    uint64_t bans_enforced;    /* connected players closed because a ban now covers them */
    uint64_t jobs_pending;     /* admissions and requests the database thread holds now
                                  (waiting, running, or answered but not yet sent) */
    uint64_t db_errors;        /* synchronous store calls that failed */
} rs_services_stats;

/* Fills *out. Never fails. */
void rs_services_get_stats(const rs_services *svc, rs_services_stats *out);

/* The store writer's counters: queue depth and commit latency (for metrics).
 * Never fails; zeros before the writer exists. */
rs_store_writer_stats rs_services_writer_stats(rs_services *svc);

/* The database id of the race running in room (from its countdown until
 * its world is gone), 0 when none or it could not be stored. Any thread,
 * even inside a room's observer. */
int64_t rs_services_race_id(const rs_services *svc, const rs_room *room);

/* The room thread's store connection (for the server's own queries, e.g.
 * the demo's final leaderboard), borrowed until rs_services_destroy; the
 * thread rules above apply. */
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
