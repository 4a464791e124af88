/*
 * What reaches a room while a worker is stepping it: the network thread may
 * not call into a room it does not own, so a connection, a message or a
 * disconnection is kept here, with its time, and replayed into the room in
 * arrival order when the room is back (the same calls, in the same order,
 * that the single-threaded loop would have made).
 *
 * Thread rules: one inbox belongs to the network thread.
 */
#ifndef RS_APP_ROOM_INBOX_H
#define RS_APP_ROOM_INBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/room.h"

typedef enum srv_inbound_op {
    SRV_IN_CONNECT = 1,
    SRV_IN_RECEIVE = 2,
    SRV_IN_DISCONNECT = 3
} srv_inbound_op;

typedef struct srv_inbound {
    uint8_t op;        /* srv_inbound_op */
    uint8_t channel;   /* RECEIVE */
    uint32_t peer;
    size_t off, len;   /* RECEIVE: the message in the inbox's bytes */
    int64_t now_us;    /* when it arrived: the time the room is told */
} srv_inbound;

typedef struct srv_inbox {
    srv_inbound *items;
    size_t count, cap;
    uint8_t *bytes;
    size_t used, bytes_cap;
} srv_inbox;

/* Hands one event to room now: rs_room_connect, rs_room_receive or
 * rs_room_disconnect. */
void srv_inbound_apply(rs_room *room, uint8_t op, uint32_t peer, uint8_t channel,
                       const uint8_t *data, size_t len, int64_t now_us);

/* Keeps one event (data copied). False when out of memory (it is lost; the
 * caller counts it dropped). */
bool srv_inbox_push(srv_inbox *in, uint8_t op, uint32_t peer, uint8_t channel,
                    const uint8_t *data, size_t len, int64_t now_us);

/* Replays every kept event into room, in order, and empties the inbox
 * (keeping its memory for the next time). */
void srv_inbox_replay(srv_inbox *in, rs_room *room);

void srv_inbox_free(srv_inbox *in);

#endif
