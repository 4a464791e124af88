/*
 * The room's outgoing side: a queue of encoded packets the transport polls
 * after rs_room_update, and the chunking of snapshots and parameter blocks
 * (SPEC.md section 5) into packets below the MTU. Every message goes out on
 * the channel and with the reliability its definition gives it.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "room_internal.h"

static rs_room_packet *queue_slot(rs_room *room)
{
    if (room->out_len == room->out_cap) {
        if (room->out_head > 0) {
            /* Reclaim the polled front before growing. */
            memmove(room->out, room->out + room->out_head,
                    (room->out_len - room->out_head) * sizeof *room->out);
            room->out_len -= room->out_head;
            room->out_head = 0;
        }
        if (room->out_len == room->out_cap) {
            size_t cap = room->out_cap ? room->out_cap * 2 : 64;
            rs_room_packet *n = realloc(room->out, cap * sizeof *n);
            if (!n)
                return NULL;
            room->out = n;
            room->out_cap = cap;
        }
    }
    return &room->out[room->out_len++];
}

bool rs_room__send(rs_room *room, uint32_t peer_id, const rs_msg *msg)
{
    rs_room_packet *pk = queue_slot(room);
    if (!pk)
        return false; /* out of memory: the packet is lost like a dropped datagram */
    size_t len = 0;
    uint8_t ch = 0, dir = 0;
    bool rel = true;
    if (rs_proto_encode(msg, pk->data, sizeof pk->data, &len, NULL) != RS_PROTO_OK ||
        !rs_proto_msg_info(msg->type, &ch, &rel, &dir)) {
        /* A message that fails its range checks is never sent. */
        room->out_len--;
        return false;
    }
    pk->peer = peer_id;
    pk->channel = ch;
    pk->reliable = rel;
    pk->len = (uint16_t)len;
    room->stats.packets_out++;
    room->stats.bytes_out += len;
    return true;
}

void rs_room__send_watchers(rs_room *room, const rs_msg *msg)
{
    for (uint32_t i = 0; i < room->peer_cap; i++)
        if (rs_room__peer_watching(&room->peers[i]))
            rs_room__send(room, room->peers[i].id, msg);
}

size_t rs_room_poll(rs_room *room, rs_room_packet *out, size_t cap)
{
    size_t n = 0;
    while (n < cap && room->out_head < room->out_len)
        out[n++] = room->out[room->out_head++];
    if (room->out_head == room->out_len)
        room->out_head = room->out_len = 0;
    return n;
}

static void send_chunks(rs_room *room, uint32_t peer_id, rs_msg *msg, rs_proto_chunk *chunk,
                        const uint8_t *data, size_t len)
{
    uint32_t id = ++room->transfer_id;
    uint64_t h = rs_proto_hash64(data, len);
    uint32_t count = rs_proto_chunk_count(len);
    for (uint32_t i = 0; i < count; i++) {
        if (rs_proto_chunk_make(data, len, id, h, i, chunk) != RS_PROTO_OK)
            return;
        rs_room__send(room, peer_id, msg);
    }
}

void rs_room__send_blob_params(rs_room *room, uint32_t peer_id, uint8_t kind, uint8_t car,
                               uint64_t id_hash, const uint8_t *data, size_t len)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_PARAMS;
    m.u.params = (rs_msg_params){.kind = kind, .car = car, .id_hash = id_hash};
    send_chunks(room, peer_id, &m, &m.u.params.chunk, data, len);
}

void rs_room__send_blob_snapshot(rs_room *room, uint32_t peer_id, uint64_t tick, uint64_t hash,
                                 const uint8_t *data, size_t len)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_SNAPSHOT;
    m.u.snapshot.tick = tick;
    m.u.snapshot.state_hash = hash;
    send_chunks(room, peer_id, &m, &m.u.snapshot.chunk, data, len);
    room->stats.snapshots_sent++;
}

void rs_room__close_peer(rs_room *room, room_peer *p, uint8_t reason, const char *text,
                         bool by_peer)
{
    if (p->state == PEER_CLOSING)
        return;
    if (rs_room__peer_watching(p) && rs_room__observed(room))
        rs_room__observe_peer(room, RS_ROOM_EV_LEFT, p, reason, text, false, by_peer);
    if (p->seat >= 0)
        rs_room__leave_seat(room, p->seat);
    p->seat = -1;
    p->in_world = false;
    p->state = PEER_CLOSING;
    uint32_t *n = realloc(room->closing, (room->closing_len + 1) * sizeof *n);
    if (!n)
        return;
    room->closing = n;
    room->closing[room->closing_len++] = p->id;
}

void rs_room__bye(rs_room *room, room_peer *p, uint8_t reason, const char *text)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_BYE;
    m.u.bye.reason = reason < RS_REASON_COUNT ? reason : RS_REASON_OTHER;
    snprintf(m.u.bye.text, sizeof m.u.bye.text, "%s", text ? text : "");
    rs_room__send(room, p->id, &m);
}

void rs_room__refuse(rs_room *room, room_peer *p, uint8_t reason, const char *text)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_REFUSE;
    m.u.refuse.reason = reason;
    /* Cut at a character boundary: the encoder refuses broken UTF-8, and a
     * REFUSE that does not encode would leave the player guessing. */
    size_t n = strlen(text);
    if (n > RS_PROTO_TEXT_MAX) {
        n = RS_PROTO_TEXT_MAX;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(m.u.refuse.text, text, n);
    rs_room__send(room, p->id, &m);
    room->stats.refused++;
    if (rs_room__observed(room))
        rs_room__observe_peer(room, RS_ROOM_EV_REFUSED, p, reason, m.u.refuse.text, false,
                              false);
    rs_room__close_peer(room, p, reason, m.u.refuse.text, false);
}

void rs_room__send_free(rs_room *room)
{
    free(room->out);
    free(room->closing);
}

size_t rs_room_poll_closing(rs_room *room, uint32_t *peers, size_t cap)
{
    size_t n = room->closing_len < cap ? room->closing_len : cap;
    if (n == 0)
        return 0;
    memcpy(peers, room->closing, n * sizeof *peers);
    memmove(room->closing, room->closing + n, (room->closing_len - n) * sizeof *peers);
    room->closing_len -= n;
    return n;
}
