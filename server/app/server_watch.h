/*
 * What raceserver tells its operator about its rooms: the server's room
 * observer (racesim/room.h, rs_room_observer) turns joins, leaves,
 * refusals and the race's phases into log lines (log.h events join, leave,
 * refuse, race_start, lights_out, race_end), and the services' log entries
 * (racesim/services.h: admin actions, recorded laps, registrations...) into
 * the same kind of lines. docs/RACESERVER.md, "Logs", lists the events and
 * their fields.
 *
 * The watcher only reads: it calls no room function but queries. It keeps
 * each admitted connection's address, so a line about a connection that is
 * already gone still says where it was.
 *
 * Thread rules: the watcher belongs to the server's thread, like its rooms
 * and services.
 */
#ifndef RS_APP_SERVER_WATCH_H
#define RS_APP_SERVER_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "racesim/room.h"
#include "racesim/services.h"

typedef struct rs_server_watch rs_server_watch;

typedef struct rs_server_watch_def {
    uint32_t max_peers;   /* the transport's peer slots (its ids carry the slot in the
                             low 12 bits, racesim/net.h) */
    /* The "a.b.c.d:port" of a connected peer into out ("?" when unknown). */
    void (*address)(void *ctx, uint32_t peer, char *out, size_t cap);
    void *ctx;
} rs_server_watch_def;

/* NULL when out of memory. */
rs_server_watch *rs_server_watch_create(const rs_server_watch_def *def);

/* Accepts NULL. Destroy the rooms first. */
void rs_server_watch_destroy(rs_server_watch *w);

/* The services whose race ids the race lines name (NULL: none, --no-db). */
void rs_server_watch_set_services(rs_server_watch *w, rs_services *svc);

/* The observer to put in every room's rs_room_config. */
rs_room_observer rs_server_watch_observer(rs_server_watch *w);

/* The services' log callback (rs_services_def.log; log_ctx is the watcher). */
void rs_server_watch_services_log(void *ctx, const rs_services_log_entry *entry);

/* A refusal the server makes itself, before any room hears of the
 * connection (a HELLO naming no room): the same refuse line as a room's. */
void rs_server_watch_refused(rs_server_watch *w, uint32_t peer, const char *address,
                             const char *name, uint8_t reason, const char *text);

/* At shutdown, for a room whose race the services stop: race_end with
 * status stopped (racing) or abandoned (in the countdown). */
void rs_server_watch_race_stopped(rs_server_watch *w, rs_room *room);

#endif
