/*
 * Parameter blocks (SPEC.md section 5, "Parameter blocks"): the track's
 * JSON and the cars' parameter blocks travel to each peer once per
 * connection, ahead of the race that needs them.
 *
 * Why: on a lossy route a reliable, ordered channel delivers a burst of
 * thirty packets seconds late now and then (each loss doubles that packet's
 * retransmission timeout and everything behind it waits), and a world sent
 * at the start of the countdown then arrives after lights out. So a player
 * gets the track and the stock car as soon as it joins, the room waits in
 * the lobby until every connected player has acknowledged every block of
 * the coming race (or cfg.load_wait_ticks passed), and the countdown's
 * world is then only a small snapshot. Once a race exists the tick loop
 * never waits for anyone.
 *
 * The room remembers the newest RS_PROTO_BLOCKS_KEEP blocks it sent to each
 * peer; the client keeps at least as many, in the same order.
 */
#include <string.h>

#include "room_internal.h"

static room_block_sent *find_sent(room_peer *p, uint8_t kind, uint64_t id_hash)
{
    for (uint32_t i = 0; i < RS_PROTO_BLOCKS_KEEP; i++) {
        room_block_sent *b = &p->blocks[i];
        if (b->order && b->kind == kind && b->id_hash == id_hash)
            return b;
    }
    return NULL;
}

const room_block_sent *rs_room__send_block(rs_room *room, room_peer *p, uint8_t kind,
                                           uint8_t car, uint64_t id_hash, const uint8_t *data,
                                           size_t len)
{
    const room_block_sent *sent = find_sent(p, kind, id_hash);
    if (sent)
        return sent;
    /* An empty entry, else the oldest sent: the client forgets that one
     * first too. */
    room_block_sent *b = &p->blocks[0];
    for (uint32_t i = 0; i < RS_PROTO_BLOCKS_KEEP && b->order; i++)
        if (p->blocks[i].order < b->order)
            b = &p->blocks[i];
    b->kind = kind;
    b->id_hash = id_hash;
    b->order = ++p->blocks_order;
    b->acked = false;
    rs_room__send_blob_params(room, p->id, kind, car, id_hash, data, len);
    return b;
}

void rs_room__on_params_ack(room_peer *p, const rs_msg_params_ack *ack)
{
    room_block_sent *b = find_sent(p, ack->kind, ack->id_hash);
    if (b)
        b->acked = true;
}

typedef struct needed_block {
    uint8_t kind;
    uint64_t id_hash;
    const uint8_t *data;
    size_t len;
} needed_block;

static uint32_t add_needed(needed_block *need, uint32_t n, uint8_t kind, uint64_t id_hash,
                           const uint8_t *data, size_t len)
{
    for (uint32_t i = 0; i < n; i++)
        if (need[i].kind == kind && need[i].id_hash == id_hash)
            return n;
    need[n] = (needed_block){kind, id_hash, data, len};
    return n + 1;
}

bool rs_room__blocks_offer(rs_room *room)
{
    /* The blocks of the race start_session would build now: the track, and
     * each seat's car (its tune, or the stock car). */
    needed_block need[RS_PROTO_MAX_CARS + 1];
    uint32_t n = add_needed(need, 0, RS_PARAMS_TRACK, room->track_hash,
                            (const uint8_t *)room->cfg.track_json, room->cfg.track_json_len);
    for (uint32_t i = 0; i < room->cfg.max_players; i++) {
        const room_seat *s = &room->seats[i];
        if (!s->used || s->peer < 0)
            continue;
        const room_seat_car *c = rs_room__seat_effective(room, &room->seats[i]);
        if (c)
            n = add_needed(need, n, RS_PARAMS_CAR, c->params_hash, c->block, c->block_len);
    }
    bool ready = true;
    for (uint32_t i = 0; i < room->peer_cap; i++) {
        room_peer *p = &room->peers[i];
        if (!rs_room__peer_watching(p))
            continue;
        for (uint32_t k = 0; k < n; k++) {
            const room_block_sent *b = rs_room__send_block(room, p, need[k].kind, 0,
                                                           need[k].id_hash, need[k].data,
                                                           need[k].len);
            /* Spectators get the blocks but are not waited for. */
            if (p->state == PEER_PLAYER && !b->acked)
                ready = false;
        }
    }
    return ready;
}
