/*
 * A room's inbox while it is away on a worker (room_inbox.h): growing
 * arrays, reused from one away period to the next.
 */
#include "room_inbox.h"

#include <stdlib.h>
#include <string.h>

void srv_inbound_apply(rs_room *room, uint8_t op, uint32_t peer, uint8_t channel,
                       const uint8_t *data, size_t len, int64_t now_us)
{
    switch (op) {
    case SRV_IN_CONNECT:
        rs_room_connect(room, peer, now_us);
        break;
    case SRV_IN_RECEIVE:
        rs_room_receive(room, peer, channel, data, len, now_us);
        break;
    case SRV_IN_DISCONNECT:
        rs_room_disconnect(room, peer, now_us);
        break;
    default:
        break;
    }
}

/* buf with room for need elements of size bytes (doubling *cap), or NULL
 * when out of memory (buf is then unchanged). */
static void *grow(void *buf, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return buf;
    size_t cap2 = *cap ? *cap : 64;
    while (cap2 < need)
        cap2 *= 2;
    void *b = realloc(buf, cap2 * size);
    if (b)
        *cap = cap2;
    return b;
}

bool srv_inbox_push(srv_inbox *in, uint8_t op, uint32_t peer, uint8_t channel,
                    const uint8_t *data, size_t len, int64_t now_us)
{
    srv_inbound *items = grow(in->items, &in->cap, in->count + 1, sizeof *items);
    if (!items)
        return false;
    in->items = items;
    if (len) {
        uint8_t *bytes = grow(in->bytes, &in->bytes_cap, in->used + len, 1);
        if (!bytes)
            return false;
        in->bytes = bytes;
        memcpy(in->bytes + in->used, data, len);
    }
    in->items[in->count++] = (srv_inbound){
        .op = op, .channel = channel, .peer = peer, .off = in->used, .len = len, .now_us = now_us};
    in->used += len;
    return true;
}

void srv_inbox_replay(srv_inbox *in, rs_room *room)
{
    for (size_t i = 0; i < in->count; i++) {
        const srv_inbound *e = &in->items[i];
        srv_inbound_apply(room, e->op, e->peer, e->channel, in->bytes + e->off, e->len,
                          e->now_us);
    }
    in->count = 0;
    in->used = 0;
}

void srv_inbox_free(srv_inbox *in)
{
    free(in->items);
    free(in->bytes);
    memset(in, 0, sizeof *in);
}
