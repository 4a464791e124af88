/*
 * A room's inbox while it is away on a worker (room_inbox.h): growing
 * arrays, reused from one away period to the next, under a cap.
 */
#include "room_inbox.h"

#include <stdlib.h>
#include <string.h>

#include "racesim/protocol.h"

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

/* Memory for one more event and, while under the cap, its len bytes;
 * false when out of memory. Done before anything else so that, once it
 * succeeds, keeping the event can no longer fail (an overflow only takes
 * events out before putting this one in). */
static bool reserve(srv_inbox *in, size_t len)
{
    srv_inbound *items = grow(in->items, &in->cap, in->count + 1, sizeof *items);
    if (!items)
        return false;
    in->items = items;
    if (len && in->used + len <= SRV_INBOX_MAX_BYTES) {
        uint8_t *bytes = grow(in->bytes, &in->bytes_cap, in->used + len, 1);
        if (!bytes)
            return false;
        in->bytes = bytes;
    }
    return true;
}

/* Appends an event (memory reserved). */
static void store(srv_inbox *in, uint8_t op, uint32_t peer, uint8_t channel,
                  const uint8_t *data, size_t len, int64_t now_us)
{
    if (len)
        memcpy(in->bytes + in->used, data, len);
    in->items[in->count++] = (srv_inbound){
        .op = op, .channel = channel, .peer = peer, .off = in->used, .len = len, .now_us = now_us};
    in->used += len;
    in->messages += op == SRV_IN_RECEIVE;
}

/* Whether a message of len bytes fits: unreliable ones in half of the cap,
 * so that a flood of them leaves the other half to reliable ones. */
static bool fits(const srv_inbox *in, size_t len, bool reliable)
{
    size_t max_messages = reliable ? SRV_INBOX_MAX_MESSAGES : SRV_INBOX_MAX_MESSAGES / 2;
    size_t max_bytes = reliable ? SRV_INBOX_MAX_BYTES : SRV_INBOX_MAX_BYTES / 2;
    return in->messages < max_messages && in->used + len <= max_bytes;
}

typedef struct peer_share {
    uint32_t peer;
    uint32_t len;
} peer_share;

static int cmp_share(const void *a, const void *b)
{
    uint32_t x = ((const peer_share *)a)->peer, y = ((const peer_share *)b)->peer;
    return (x > y) - (x < y);
}

/* The peer holding the most of the inbox, with the message of len bytes
 * that peer is pushing counted as its own: by bytes when the bytes are
 * over the cap, else by messages. peer wins a tie (it overflowed). */
static uint32_t heaviest(const srv_inbox *in, uint32_t peer, size_t len, bool by_bytes)
{
    /* messages <= SRV_INBOX_MAX_MESSAGES always: 8 KiB of stack */
    peer_share s[SRV_INBOX_MAX_MESSAGES + 1];
    size_t n = 0;
    for (size_t i = 0; i < in->count; i++)
        if (in->items[i].op == SRV_IN_RECEIVE)
            s[n++] = (peer_share){in->items[i].peer, (uint32_t)in->items[i].len};
    s[n++] = (peer_share){peer, (uint32_t)len};
    qsort(s, n, sizeof *s, cmp_share);
    uint32_t best = peer;
    size_t best_score = 0, own_score = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i, score = 0;
        for (; j < n && s[j].peer == s[i].peer; j++)
            score += by_bytes ? s[j].len : 1;
        if (s[i].peer == peer)
            own_score = score;
        else if (score > best_score) {
            best_score = score;
            best = s[i].peer;
        }
        i = j;
    }
    return best_score > own_score ? best : peer;
}

/* Takes peer's messages out of the inbox, keeping every other event in its
 * order (and the bytes packed); returns how many were taken. */
static size_t purge(srv_inbox *in, uint32_t peer)
{
    size_t kept = 0, used = 0, taken = 0;
    for (size_t i = 0; i < in->count; i++) {
        srv_inbound e = in->items[i];
        if (e.op == SRV_IN_RECEIVE && e.peer == peer) {
            taken++;
            continue;
        }
        if (e.len) /* offsets only grow: moving bytes down never overwrites a kept one */
            memmove(in->bytes + used, in->bytes + e.off, e.len);
        e.off = used;
        used += e.len;
        in->items[kept++] = e;
    }
    in->count = kept;
    in->used = used;
    in->messages -= taken;
    return taken;
}

/* A reliable message that does not fit (or has no memory): the peer that
 * filled the inbox is named and its messages leave. When that is another
 * peer than the sender, the message fits after it: that peer held at least
 * as much of what is over the cap (bytes, else messages) as the sender
 * with this message, and the other measure was already under the cap. */
static srv_inbox_result overflow(srv_inbox *in, uint8_t channel, uint32_t peer,
                                 const uint8_t *data, size_t len, int64_t now_us,
                                 bool have_memory, srv_inbox_overflow *ov)
{
    uint32_t victim = peer;
    if (have_memory)
        victim = heaviest(in, peer, len, in->used + len > SRV_INBOX_MAX_BYTES);
    ov->peer = victim;
    ov->dropped = purge(in, victim);
    if (victim == peer)
        ov->dropped++; /* this message too */
    else
        store(in, SRV_IN_RECEIVE, peer, channel, data, len, now_us);
    return SRV_INBOX_OVERFLOW;
}

srv_inbox_result srv_inbox_push(srv_inbox *in, uint8_t op, uint32_t peer, uint8_t channel,
                                const uint8_t *data, size_t len, int64_t now_us,
                                srv_inbox_overflow *ov)
{
    bool memory = reserve(in, op == SRV_IN_RECEIVE ? len : 0);
    if (op != SRV_IN_RECEIVE) {
        if (!memory)
            return SRV_INBOX_DROPPED;
        store(in, op, peer, 0, NULL, 0, now_us); /* state: outside the cap */
        return SRV_INBOX_KEPT;
    }
    bool reliable = rs_proto_channel_reliable(channel);
    if (memory && fits(in, len, reliable)) {
        store(in, op, peer, channel, data, len, now_us);
        return SRV_INBOX_KEPT;
    }
    if (!reliable)
        return SRV_INBOX_DROPPED;
    return overflow(in, channel, peer, data, len, now_us, memory, ov);
}

void srv_inbox_replay(srv_inbox *in, rs_room *room)
{
    for (size_t i = 0; i < in->count; i++) {
        const srv_inbound *e = &in->items[i];
        srv_inbound_apply(room, e->op, e->peer, e->channel, in->bytes + e->off, e->len,
                          e->now_us);
    }
    in->count = 0;
    in->messages = 0;
    in->used = 0;
}

void srv_inbox_free(srv_inbox *in)
{
    free(in->items);
    free(in->bytes);
    memset(in, 0, sizeof *in);
}
