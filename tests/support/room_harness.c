/*
 * The virtual clock, the in-memory link and the scene of room_harness.h.
 * Nothing here speaks the protocol: the clients are the SDK's, the room is
 * the server's, and the link only carries their bytes (checking, as it
 * takes them, that the room sends only what decodes, on its channel).
 */
#include "room_harness.h"
#include "racesim/protocol.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A broken invariant of the harness or a set-up the SDK refused: say where,
 * then stop. */
#define FAIL() (fprintf(stderr, "room_harness.c:%d: invariant broken\n", __LINE__), abort())

#define MAX_CLIENTS 40u
#define ROOM_POLL 256u

/* ------------------------------------------------------------ the link */

/* A packet in flight, or the end of a connection. */
typedef struct link_pkt {
    int64_t at_us;
    uint64_t order;   /* send order: packets due at the same time arrive in it */
    uint32_t peer;    /* the connection */
    bool to_room;
    bool close;       /* the connection ends here, after everything sent before */
    uint8_t channel;
    bool reliable;
    uint16_t len;
    uint8_t data[RS_PROTO_MAX_PACKET];
} link_pkt;

/* One direction of one channel of a connection. */
typedef struct stream {
    int64_t last_reliable_at_us; /* reliable packets never overtake each other */
    int64_t stalled_until_us;    /* reliable packets sent before this arrive at it */
    uint32_t burst_left;         /* unreliable packets still to lose in a burst */
} stream;

typedef struct hclient {
    harness *h;
    harness_driver driver;
    rs_client_config cfg;        /* its strings point at the copies below */
    char name[RS_PROTO_NAME_MAX + 1];
    char token[RS_PROTO_TOKEN_LEN + 1];
    char room[RS_PROTO_NAME_MAX + 1];
    char password[RS_PROTO_SECRET_MAX + 1];
    rs_bot *bot;                 /* NULL for a plain client */
    rs_client *client;           /* the bot's, or its own */

    /* the current connection */
    uint32_t peer;
    bool client_open;            /* the client may send (it has not closed, nor lost the link) */
    bool room_open;              /* the room knows the peer */
    stream up[RS_CH_COUNT], down[RS_CH_COUNT];
    harness_tamper_fn tamper;
    void *tamper_ctx;

    /* what it was seen to do on this connection */
    harness_events events;
    rs_client_event *log;
    size_t log_len, log_cap;
    uint64_t present, confirmed;
    int64_t present_since_us, confirmed_since_us;
    int64_t max_present_gap_us, max_confirm_gap_us;
} hclient;

struct harness {
    rs_room *room;
    bool impaired;
    harness_impair imp;
    uint64_t rng;
    int64_t now_us;
    uint64_t order;
    uint32_t next_peer;
    int64_t room_paused_until_us; /* the room neither steps nor sends before this */
    link_pkt *q;                 /* in flight, in no particular order */
    size_t q_len, q_cap;
    link_pkt *due;               /* what one step delivers, out of the queue */
    size_t due_cap;
    hclient *c[MAX_CLIENTS];
    uint32_t n;
    rs_room_packet out[ROOM_POLL];
};

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t cap2 = *cap ? *cap : 64;
    while (cap2 < need)
        cap2 *= 2;
    p = realloc(p, cap2 * size);
    if (!p)
        FAIL();
    *cap = cap2;
    return p;
}

static uint64_t rnd(harness *h)
{
    /* xorshift64*: seeded, so an impaired run is reproducible. */
    h->rng ^= h->rng >> 12;
    h->rng ^= h->rng << 25;
    h->rng ^= h->rng >> 27;
    return h->rng * 0x2545F4914F6CDD1DULL;
}

static double rnd01(harness *h)
{
    return (double)(rnd(h) >> 11) / 9007199254740992.0;
}

/* When a packet sent now on stream s arrives (*at_us), and whether it
 * arrives twice; false when the link loses it. */
static bool impair(harness *h, stream *s, bool reliable, int64_t *at_us, int *copies)
{
    *at_us = h->now_us;
    *copies = 1;
    if (!h->impaired)
        return true;
    *at_us += h->imp.delay_us;
    if (h->imp.jitter_us)
        *at_us += (int64_t)(rnd(h) % (uint64_t)(2 * h->imp.jitter_us + 1)) - h->imp.jitter_us;
    if (reliable) {
        /* Complete and in order (ENet retransmits; its delay is folded into
         * the jitter). */
        if (*at_us < s->last_reliable_at_us)
            *at_us = s->last_reliable_at_us;
        s->last_reliable_at_us = *at_us;
        return true;
    }
    if (s->burst_left) {
        s->burst_left--;
        return false;
    }
    if (rnd01(h) < h->imp.burst_chance) {
        s->burst_left = h->imp.burst_len - 1;
        return false;
    }
    if (rnd01(h) < h->imp.loss)
        return false;
    if (rnd01(h) < h->imp.dup)
        *copies = 2;
    if (rnd01(h) < h->imp.reorder)
        *at_us += (int64_t)(rnd(h) % (uint64_t)(h->imp.reorder_us + 1));
    return true;
}

static link_pkt *link_push(harness *h, const hclient *c, bool to_room, int64_t at_us)
{
    h->q = grow(h->q, &h->q_cap, h->q_len + 1, sizeof *h->q);
    link_pkt *p = &h->q[h->q_len++];
    memset(p, 0, offsetof(link_pkt, data));
    p->at_us = at_us;
    p->order = h->order++;
    p->peer = c->peer;
    p->to_room = to_room;
    return p;
}

/* Carries one packet of client c's connection, towards the room or from it. */
static void link_send(harness *h, hclient *c, bool to_room, uint8_t channel, bool reliable,
                      const uint8_t *data, size_t len)
{
    if (channel >= RS_CH_COUNT || len > RS_PROTO_MAX_PACKET)
        FAIL();
    stream *s = to_room ? &c->up[channel] : &c->down[channel];
    int64_t at = 0;
    int copies = 1;
    if (!impair(h, s, reliable, &at, &copies))
        return;
    if (reliable && at < s->stalled_until_us) {
        at = s->stalled_until_us;
        s->last_reliable_at_us = at;
    }
    for (int k = 0; k < copies; k++) {
        link_pkt *p = link_push(h, c, to_room, at + k * 3000); /* a duplicate trails by 3 ms */
        p->channel = channel;
        p->reliable = reliable;
        p->len = (uint16_t)len;
        memcpy(p->data, data, len);
    }
}

/* Ends client c's connection in one direction once every reliable packet
 * sent that way before has arrived. */
static void link_close(harness *h, hclient *c, bool to_room)
{
    const stream *s = to_room ? c->up : c->down;
    int64_t at = h->now_us + (h->impaired ? h->imp.delay_us : 0);
    for (uint32_t ch = 0; ch < RS_CH_COUNT; ch++)
        if (s[ch].last_reliable_at_us > at)
            at = s[ch].last_reliable_at_us;
    link_push(h, c, to_room, at)->close = true;
}

/* Forgets every packet of a connection still in flight. */
static void link_forget(harness *h, uint32_t peer)
{
    size_t k = 0;
    for (size_t j = 0; j < h->q_len; j++)
        if (h->q[j].peer != peer)
            h->q[k++] = h->q[j];
    h->q_len = k;
}

static int cmp_pkt(const void *a, const void *b)
{
    const link_pkt *x = a, *y = b;
    if (x->at_us != y->at_us)
        return x->at_us < y->at_us ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static hclient *client_of_peer(const harness *h, uint32_t peer)
{
    for (uint32_t i = 0; i < h->n; i++)
        if (h->c[i]->peer == peer)
            return h->c[i];
    return NULL;
}

/* The room's end of a connection is gone. */
static void room_forget(harness *h, hclient *c)
{
    if (!c->room_open)
        return;
    c->room_open = false;
    rs_room_disconnect(h->room, c->peer, h->now_us);
}

/* The client's end of a connection is gone without a goodbye of its own. */
static void client_link_down(harness *h, hclient *c)
{
    if (!c->client_open)
        return;
    c->client_open = false;
    rs_client_transport_down(c->client, h->now_us);
}

static void deliver(harness *h, const link_pkt *p)
{
    hclient *c = client_of_peer(h, p->peer);
    if (!c)
        return; /* the connection was dropped, or its client rejoined on another */
    if (p->close) {
        if (p->to_room)
            room_forget(h, c);
        else
            client_link_down(h, c);
    } else if (p->to_room) {
        if (c->room_open)
            rs_room_receive(h->room, c->peer, p->channel, p->data, p->len, h->now_us);
    } else {
        rs_client_receive(c->client, p->channel, p->data, p->len, h->now_us);
    }
}

/* Delivers what is due, in time order: unreliable channels are unsequenced,
 * so late and duplicated packets are delivered as they come. The due
 * packets leave the queue first: a delivery makes a client answer, which
 * queues more. */
static void link_deliver_due(harness *h)
{
    if (!h->q_len)
        return;
    qsort(h->q, h->q_len, sizeof *h->q, cmp_pkt);
    size_t due = 0;
    while (due < h->q_len && h->q[due].at_us <= h->now_us)
        due++;
    if (!due)
        return;
    h->due = grow(h->due, &h->due_cap, due, sizeof *h->due);
    memcpy(h->due, h->q, due * sizeof *h->q);
    memmove(h->q, h->q + due, (h->q_len - due) * sizeof *h->q);
    h->q_len -= due;
    for (size_t j = 0; j < due; j++)
        deliver(h, &h->due[j]);
}

/* The room must only send what decodes, as a message for clients, on that
 * message's channel: an SDK client would merely count and drop anything
 * else, so every test gets this invariant here, before any tampering. */
static void check_room_packet(const rs_room_packet *p)
{
    static rs_msg m; /* large; the harness runs on one thread */
    uint8_t ch = 0, dir = 0;
    bool rel = false;
    if (rs_proto_decode(p->data, p->len, &m, NULL) != RS_PROTO_OK ||
        !rs_proto_msg_info(m.type, &ch, &rel, &dir) || !(dir & RS_DIR_TO_CLIENT) ||
        ch != p->channel)
        FAIL();
}

/* What the room sends goes on the link; a peer it closes has its
 * connection ended after its last reliable packet (a REFUSE, a BYE). */
static void room_output(harness *h)
{
    size_t n;
    while ((n = rs_room_poll(h->room, h->out, ROOM_POLL)) > 0) {
        for (size_t j = 0; j < n; j++) {
            rs_room_packet *p = &h->out[j];
            check_room_packet(p);
            hclient *c = client_of_peer(h, p->peer);
            if (!c)
                continue;
            if (c->tamper)
                c->tamper(c->tamper_ctx, p);
            link_send(h, c, false, p->channel, p->reliable, p->data, p->len);
        }
    }
    uint32_t closing[16];
    while ((n = rs_room_poll_closing(h->room, closing, 16)) > 0) {
        for (size_t j = 0; j < n; j++) {
            hclient *c = client_of_peer(h, closing[j]);
            if (!c) {
                rs_room_disconnect(h->room, closing[j], h->now_us);
                continue;
            }
            room_forget(h, c);
            link_close(h, c, false);
        }
    }
}

/* -------------------------------------------------- the SDK's transport */

static bool transport_send(void *ctx, uint8_t channel, bool reliable, const uint8_t *bytes,
                           size_t len)
{
    hclient *c = ctx;
    if (!c->client_open)
        return false;
    link_send(c->h, c, true, channel, reliable, bytes, len);
    return true;
}

static void transport_close(void *ctx)
{
    hclient *c = ctx;
    if (!c->client_open)
        return;
    c->client_open = false;
    link_close(c->h, c, true);
}

/* ------------------------------------------------------------ observing */

static void record_event(hclient *c, const rs_client_event *ev)
{
    if (ev->type == 0 || ev->type >= HARNESS_EVENT_TYPES)
        FAIL();
    c->events.count[ev->type]++;
    c->events.last[ev->type] = *ev;
    /* Predicted events come every tick or so: counted, not kept. */
    if (ev->type == RS_CLIENT_EV_SECTOR || ev->type == RS_CLIENT_EV_COLLISION)
        return;
    c->log = grow(c->log, &c->log_cap, c->log_len + 1, sizeof *c->log);
    c->log[c->log_len++] = *ev;
}

static void on_bot_event(void *ctx, rs_bot *bot, const rs_client_event *ev)
{
    (void)bot;
    record_event(ctx, ev);
}

/* The longest time a tick counter stood still while it was expected to move. */
static void watch_tick(int64_t now_us, bool moving, uint64_t tick, uint64_t *last,
                       int64_t *since_us, int64_t *max_gap_us)
{
    if (tick == *last && moving)
        return;
    if (moving && now_us - *since_us > *max_gap_us)
        *max_gap_us = now_us - *since_us;
    *since_us = now_us;
    *last = tick;
}

/* While the room races, a connected client's present and confirmed ticks
 * should keep moving. */
static void watch_lockstep(harness *h, hclient *c, bool room_racing)
{
    rs_client_stats st;
    rs_client_get_stats(c->client, h->now_us, &st);
    bool racing = room_racing && rs_client_get_state(c->client) == RS_CLIENT_CONNECTED &&
                  st.present_tick > 0;
    watch_tick(h->now_us, racing, st.present_tick, &c->present, &c->present_since_us,
               &c->max_present_gap_us);
    watch_tick(h->now_us, racing, st.confirmed_tick, &c->confirmed, &c->confirmed_since_us,
               &c->max_confirm_gap_us);
}

static void client_update(harness *h, hclient *c, bool room_racing)
{
    if (c->bot) {
        rs_bot_update(c->bot, h->now_us);
    } else {
        rs_client_update(c->client, h->now_us);
        rs_client_event ev;
        while (rs_client_poll_event(c->client, &ev))
            record_event(c, &ev);
    }
    watch_lockstep(h, c, room_racing);
}

/* ---------------------------------------------------------- the scene */

int harness_scene_setup(void **state)
{
    test_scene *s = calloc(1, sizeof *s);
    if (!s || !test_scene_load("oval", "c5", false, s)) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

int harness_scene_teardown(void **state)
{
    test_scene_free(*state);
    free(*state);
    return 0;
}

rs_room_config harness_room_config(const test_scene *s, uint32_t start_players)
{
    rs_room_config c = rs_room_config_default();
    c.track = s->track;
    c.track_json = s->json;
    c.track_json_len = s->json_len;
    c.car = s->car;
    c.start_players = start_players;
    return c;
}

rs_client_config harness_player(const char *name, uint32_t lead_ms)
{
    rs_client_config c = rs_client_config_default();
    c.name = name;
    c.min_lead_ms = lead_ms;
    c.lead_margin_ticks = 0;
    return c;
}

static void keep_str(char *dst, size_t cap, const char *src)
{
    if (!src)
        src = "";
    if (strlen(src) >= cap)
        FAIL();
    strcpy(dst, src);
}

static void keep_config(hclient *c, const rs_client_config *cfg)
{
    c->cfg = *cfg;
    keep_str(c->name, sizeof c->name, cfg->name);
    keep_str(c->token, sizeof c->token, cfg->token);
    keep_str(c->room, sizeof c->room, cfg->room);
    keep_str(c->password, sizeof c->password, cfg->password);
    c->cfg.name = c->name;
    c->cfg.token = c->token;
    c->cfg.room = c->room;
    c->cfg.password = c->password;
}

static void client_free(hclient *c)
{
    if (c->bot)
        rs_bot_destroy(c->bot);
    else
        rs_client_destroy(c->client);
    c->bot = NULL;
    c->client = NULL;
}

/* A new SDK client on a new connection, with a fresh record. */
static void client_connect(harness *h, hclient *c)
{
    c->peer = h->next_peer++;
    memset(c->up, 0, sizeof c->up);
    memset(c->down, 0, sizeof c->down);
    memset(&c->events, 0, sizeof c->events);
    c->log_len = 0;
    c->present = c->confirmed = 0;
    c->present_since_us = c->confirmed_since_us = h->now_us;
    c->max_present_gap_us = c->max_confirm_gap_us = 0;
    rs_client_transport t = {c, transport_send, transport_close};
    char err[256] = "";
    rs_client_status st;
    if (c->driver == HARNESS_PLAIN) {
        st = rs_client_create_custom(&c->cfg, &t, h->now_us, &c->client, err, sizeof err);
    } else {
        st = rs_bot_create_custom(&c->cfg, &t, c->driver == HARNESS_AI, h->now_us, &c->bot, err,
                                  sizeof err);
        c->client = rs_bot_client(c->bot);
        rs_bot_set_event_fn(c->bot, on_bot_event, c);
    }
    if (st != RS_CLIENT_OK) {
        fprintf(stderr, "client %s: %s\n", c->name, err);
        FAIL();
    }
    c->client_open = c->room_open = true;
    rs_room_connect(h->room, c->peer, h->now_us);
    rs_client_transport_up(c->client, h->now_us);
}

harness *harness_create(const rs_room_config *cfg, const harness_impair *imp)
{
    harness *h = calloc(1, sizeof *h);
    if (!h)
        FAIL();
    char err[256];
    if (rs_room_create(cfg, &h->room, err, sizeof err) != RS_OK) {
        fprintf(stderr, "%s\n", err);
        FAIL();
    }
    if (imp) {
        h->impaired = true;
        h->imp = *imp;
        h->rng = imp->seed ? imp->seed : 1;
    }
    h->now_us = 1000000;
    h->next_peer = 100;
    return h;
}

void harness_destroy(harness *h)
{
    if (!h)
        return;
    for (uint32_t i = 0; i < h->n; i++) {
        client_free(h->c[i]);
        free(h->c[i]->log);
        free(h->c[i]);
    }
    rs_room_destroy(h->room);
    free(h->q);
    free(h->due);
    free(h);
}

uint32_t harness_add_client(harness *h, const rs_client_config *cfg, harness_driver driver)
{
    if (h->n >= MAX_CLIENTS)
        FAIL();
    hclient *c = calloc(1, sizeof *c);
    if (!c)
        FAIL();
    c->h = h;
    c->driver = driver;
    keep_config(c, cfg);
    h->c[h->n] = c;
    client_connect(h, c);
    return h->n++;
}

void harness_step(harness *h, int64_t step_us)
{
    h->now_us += step_us;
    link_deliver_due(h);
    if (h->now_us >= h->room_paused_until_us) {
        rs_room_update(h->room, h->now_us);
        room_output(h);
    }
    rs_room_stats rst;
    rs_room_get_stats(h->room, &rst);
    for (uint32_t i = 0; i < h->n; i++)
        client_update(h, h->c[i], rst.phase == RS_PHASE_RACE);
}

void harness_room_pause(harness *h, int64_t until_us)
{
    h->room_paused_until_us = until_us;
}

int64_t harness_now(const harness *h)
{
    return h->now_us;
}

rs_room *harness_room(harness *h)
{
    return h->room;
}

static hclient *client_at(const harness *h, uint32_t i)
{
    if (i >= h->n)
        FAIL();
    return h->c[i];
}

rs_client *harness_client(harness *h, uint32_t i)
{
    return client_at(h, i)->client;
}

rs_bot *harness_bot(harness *h, uint32_t i)
{
    return client_at(h, i)->bot;
}

void harness_client_stats_get(harness *h, uint32_t i, harness_client_stats *out)
{
    hclient *c = client_at(h, i);
    memset(out, 0, sizeof *out);
    rs_client_get_stats(c->client, h->now_us, &out->sdk);
    if (c->bot)
        rs_bot_get_stats(c->bot, &out->bot);
    out->max_present_gap_us = c->max_present_gap_us;
    out->max_confirm_gap_us = c->max_confirm_gap_us;
}

const harness_events *harness_client_events(const harness *h, uint32_t i)
{
    return &client_at(h, i)->events;
}

bool harness_client_take(harness *h, uint32_t i, uint8_t type, rs_client_event *out)
{
    hclient *c = client_at(h, i);
    for (size_t k = 0; k < c->log_len; k++) {
        if (c->log[k].type != type)
            continue;
        if (out)
            *out = c->log[k];
        memmove(c->log + k, c->log + k + 1, (c->log_len - k - 1) * sizeof *c->log);
        c->log_len--;
        return true;
    }
    return false;
}

void harness_client_drop(harness *h, uint32_t i)
{
    hclient *c = client_at(h, i);
    room_forget(h, c);
    link_forget(h, c->peer);
    client_link_down(h, c);
}

void harness_client_rejoin(harness *h, uint32_t i, const rs_client_config *cfg)
{
    hclient *c = client_at(h, i);
    harness_client_drop(h, i); /* whatever is left of the old connection goes at once */
    client_free(c);
    if (cfg)
        keep_config(c, cfg);
    client_connect(h, c);
}

bool harness_client_linked(const harness *h, uint32_t i)
{
    const hclient *c = client_at(h, i);
    return c->client_open && c->room_open;
}

void harness_client_stall(harness *h, uint32_t i, uint8_t channel, int64_t until_us)
{
    if (i >= h->n || channel >= RS_CH_COUNT || !rs_proto_channel_reliable(channel))
        FAIL();
    h->c[i]->down[channel].stalled_until_us = until_us;
}

void harness_client_tamper(harness *h, uint32_t i, harness_tamper_fn fn, void *ctx)
{
    hclient *c = client_at(h, i);
    c->tamper = fn;
    c->tamper_ctx = ctx;
}
