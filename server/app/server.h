/*
 * The raceserver loop: one ENet host (racesim/net.h) in front of several
 * rooms (racesim/room.h). It routes a new connection's HELLO to the room
 * named in it, then hands that connection's packets to its room; runs each
 * room's ticks when they are due and sends what the rooms queue; waits on
 * the socket until the next tick is due; and logs a stats line every
 * interval. Everything else (handshake rules, lockstep, races) is the
 * room's business.
 *
 * Thread rules: a server belongs to one thread (the network thread), which
 * calls every function here. With workers (rs_server_config.workers) the
 * rooms' updates run on the server's own worker threads; the server hands
 * rooms back and forth itself (docs/RACESERVER.md, "Threads").
 */
#ifndef RS_APP_SERVER_H
#define RS_APP_SERVER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "racesim/net.h"
#include "racesim/room.h"

typedef struct rs_server rs_server;

/* Loads every room's track and car, creates the rooms, opens the database
 * (unless cfg->no_db) and binds the socket. On error returns a status and
 * a message in err naming the file, field or address. cfg is copied.
 * Caller frees with rs_server_destroy. */
rs_status rs_server_create(const rs_server_config *cfg, rs_server **out, char *err,
                           size_t err_len);

/* Accepts NULL. Does not say goodbye to anybody: call rs_server_shutdown first. */
void rs_server_destroy(rs_server *srv);

/* The UDP port the server listens on. */
uint16_t rs_server_port(const rs_server *srv);

/* The TCP port of the HTTP side (docs/HTTP.md), 0 when it is off. */
uint16_t rs_server_http_port(const rs_server *srv);

/* The server's long-term public key as 64 hex digits (hex holds 65). */
void rs_server_public_key(const rs_server *srv, char hex[65]);

/* One turn of the loop: waits for network events at most max_wait_us (less
 * when a room's tick is due), handles them, runs due ticks, sends the
 * rooms' packets and logs stats when due. */
void rs_server_step(rs_server *srv, int64_t max_wait_us);

/* Steps until *stop is nonzero (set by a signal handler). */
void rs_server_run(rs_server *srv, volatile sig_atomic_t *stop);

/* The orderly end: every peer gets BYE reason SHUTDOWN, queued packets go
 * out (waiting up to about a second for peers to acknowledge), pending
 * database writes finish. Idempotent. */
void rs_server_shutdown(rs_server *srv);

/* Rooms in configuration order, for the demo, the console and tests.
 * Borrowed until the next rs_server_step: a room a worker is updating is
 * waited for first. */
uint32_t rs_server_room_count(const rs_server *srv);
rs_room *rs_server_room(rs_server *srv, uint32_t index);

/* Messages dropped by the server itself: anything before HELLO that is not
 * HELLO, and HELLOs naming no room. */
uint64_t rs_server_dropped(const rs_server *srv);

/* The transport's counters. */
void rs_server_net_stats(rs_server *srv, rs_net_stats *out);

#endif
