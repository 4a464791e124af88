/*
 * What reaches a room while a worker is stepping it: the network thread may
 * not call into a room it does not own, so a connection, a message or a
 * disconnection is kept here, with its time, and replayed into the room in
 * arrival order when the room is back (the same calls, in the same order,
 * that the single-threaded loop would have made).
 *
 * The inbox is bounded. A room is away for one update (well under a
 * millisecond, a few when every worker is busy), in which a full room's
 * clients send a few messages each; a peer that sends more than the inbox
 * holds is flooding. What happens over the cap follows the message's
 * channel (protocol/SPEC.md, "Channels and reliability"):
 *   - an unreliable message (channels 1 and 2) is dropped, as the network
 *     may drop it: the protocol tolerates that. Unreliable messages may only
 *     fill half of the inbox, so a flood of them never leaves a reliable
 *     message without room;
 *   - a reliable message (channels 0 and 3) cannot be dropped quietly: ENet
 *     has acknowledged it, and the client will never send it again. The
 *     peer that holds the most of the inbox (usually the sender) is named
 *     to the caller, which closes it as abusive; its messages in the inbox
 *     are dropped (its stream is broken anyway, and its DISCONNECT will come),
 *     which makes room for the reliable message when someone else sent it;
 *   - connections and disconnections carry the room's state, so they are
 *     always kept, outside the cap: there is at most one of each per peer,
 *     and the transport bounds the peers.
 *
 * Thread rules: one inbox belongs to the network thread.
 */
#ifndef RS_APP_ROOM_INBOX_H
#define RS_APP_ROOM_INBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/room.h"

/* The cap, on the messages kept (RECEIVE events) and their bytes. A full
 * room (16 players and 8 spectators) sends in its worst tick about 4
 * messages per peer (INPUTs and PINGs at twice the tick rate, requests at
 * their budget, a chat line): some 100 messages and, if every reliable one
 * were the largest a message can be (1200 bytes), some 60 KiB. The cap is
 * ten times those messages and four times those bytes, so a legitimate
 * burst (a client's queue flushed after a stall, a room kept away a few
 * milliseconds by busy workers) never reaches it, and the inbox of one
 * room never holds more than about 300 KiB. */
#define SRV_INBOX_MAX_MESSAGES 1024u
#define SRV_INBOX_MAX_BYTES (256u * 1024u)

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
    size_t messages;   /* RECEIVE items among count: what the cap counts */
    uint8_t *bytes;
    size_t used, bytes_cap;
} srv_inbox;

/* What srv_inbox_push did with an event. */
typedef enum srv_inbox_result {
    SRV_INBOX_KEPT = 0,   /* kept for the replay */
    SRV_INBOX_DROPPED,    /* lost like a datagram: an unreliable message over its half of
                             the cap or out of memory; a connection or disconnection
                             out of memory (nothing else drops those) */
    SRV_INBOX_OVERFLOW    /* a reliable message over the cap, or out of memory (its
                             sender is then named): see srv_inbox_overflow */
} srv_inbox_result;

/* SRV_INBOX_OVERFLOW: peer must be closed (it sent more than the inbox
 * holds); dropped of its messages were taken out of the inbox, the one
 * pushed among them if peer sent it (else that one was kept). */
typedef struct srv_inbox_overflow {
    uint32_t peer;
    size_t dropped;
} srv_inbox_overflow;

/* Hands one event to room now: rs_room_connect, rs_room_receive or
 * rs_room_disconnect. */
void srv_inbound_apply(rs_room *room, uint8_t op, uint32_t peer, uint8_t channel,
                       const uint8_t *data, size_t len, int64_t now_us);

/* Keeps one event (data copied) under the cap above; *ov is filled on
 * SRV_INBOX_OVERFLOW. The caller counts what was dropped and closes the
 * peer named. */
srv_inbox_result srv_inbox_push(srv_inbox *in, uint8_t op, uint32_t peer, uint8_t channel,
                                const uint8_t *data, size_t len, int64_t now_us,
                                srv_inbox_overflow *ov);

/* Replays every kept event into room, in order, and empties the inbox
 * (keeping its memory for the next time). */
void srv_inbox_replay(srv_inbox *in, rs_room *room);

void srv_inbox_free(srv_inbox *in);

#endif
