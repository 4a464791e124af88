/*
 * raceserver's HTTP side seen from the tick loop (docs/HTTP.md): it starts
 * rs_http (racesim/http.h) and feeds it. After every room update it reads
 * the race world (live standings at the timing lines, this tick's laps,
 * sectors, hits and finishes for the live feed); ten times a second it
 * publishes each room's live timing, the cars' positions and the metrics.
 * Everything it hands over is copied: the HTTP threads never see a room.
 *
 * Thread rules: the tick loop's thread only.
 */
#ifndef RS_APP_SERVER_HTTP_H
#define RS_APP_SERVER_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "racesim/net.h"
#include "racesim/room.h"
#include "racesim/services.h"

typedef struct srv_http srv_http;

/* Starts the HTTP side at cfg->http_bind:http_port for room_count rooms.
 * public_key_hex may be NULL. RS_ERR_IO when the address cannot be bound. */
rs_status srv_http_create(const rs_server_config *cfg, uint32_t room_count,
                          const char *public_key_hex, srv_http **out, char *err,
                          size_t err_len);

/* Stops serving (every connection closed) and frees. Accepts NULL. */
void srv_http_destroy(srv_http *h);

/* The TCP port it listens on. */
uint16_t srv_http_port(const srv_http *h);

/* /readyz: true once the server serves, false from the start of shutdown. */
void srv_http_set_ready(srv_http *h, bool ready);

/* A room's tick durations: stepped ticks took seconds_each on average. */
void srv_http_ticks(srv_http *h, uint32_t room, uint64_t stepped, double seconds_each);
/* How late one tick began (every room). */
void srv_http_late(srv_http *h, double seconds);

/* What the room of that index reports to its observer (racesim/room.h):
 * after every stepped tick the standings and the tick's feed events;
 * joins and leaves into the feed; refusals counted by reason. */
void srv_http_room_event(srv_http *h, uint32_t index, rs_room *room, const rs_room_event *ev);

/* A connection the server refused itself (before any room), by reason. */
void srv_http_refused(srv_http *h, uint8_t reason);

/* The database's figures for /metrics, read by the caller (outside the
 * watch lock: the services' lock comes first). */
typedef struct srv_db_figures {
    rs_services_stats services;
    rs_store_writer_stats writer;
} srv_db_figures;

/* Whether srv_http_publish would publish at now_us (then read db for it). */
bool srv_http_publish_due(const srv_http *h, int64_t now_us);

/* Ten times a second (it keeps its own schedule; call it every loop):
 * rooms (a NULL room is skipped: its last publication stands), positions and
 * metrics out; db: the database's figures when due, NULL without a
 * database (or when not due); shedding: the rooms refuse newcomers
 * (overload.h). */
void srv_http_publish(srv_http *h, int64_t now_us, rs_room *const *rooms, uint32_t room_count,
                      const rs_net_stats *net, const srv_db_figures *db, bool shedding);

#endif
