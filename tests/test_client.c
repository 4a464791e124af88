/*
 * The client SDK (racesim/client.h) against a real room (server/room)
 * through an in-memory link on a virtual clock: the handshake, the world
 * rebuilt from the room's PARAMS and SNAPSHOT with its hashes checked, a
 * 1-lap race on the oval driven by AI bots (examples/bot.h) with every
 * confirmed hash matching the room's, refusals whose text reaches the
 * caller as the server wrote it, a parameter mismatch, and garbage bytes
 * that are dropped and counted. Then the same over real UDP: a tiny ENet
 * server loop in this file (with the connect cookie of SPEC.md section 7)
 * serves a room to bots and to examples/minimal.c run as a child process.
 */
#define _POSIX_C_SOURCE 200112L
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include <cmocka.h>
#include <enet/enet.h>

#include "test_data.h"
#include "racesim/bot.h"
#include "racesim/client.h"
#include "racesim/protocol.h"
#include "racesim/room.h"
#include "racesim/track.h"
#include "racesim/base/clock.h"

#define MAX_EP 8

/* ------------------------------------------------------- the scene */

typedef test_scene scene;

static int scene_setup(void **state)
{
    scene *s = calloc(1, sizeof *s);
    if (!s || !test_scene_load("oval", "c5", false, s))
        return -1;
    *state = s;
    return 0;
}

static int scene_teardown(void **state)
{
    test_scene_free(*state);
    free(*state);
    return 0;
}

static rs_room_config room_config(const scene *s, uint32_t players)
{
    rs_room_config c = rs_room_config_default();
    c.track = s->track;
    c.track_json = s->json;
    c.track_json_len = s->json_len;
    c.car = s->car;
    c.laps = 1;
    c.max_players = 4;
    c.start_players = players;
    c.countdown_ticks = 120;
    c.results_ticks = 120;
    c.finish_timeout_ticks = 600;
    return c;
}

/* ------------------------------------------------- the in-memory link */

typedef struct link_t link_t;

typedef struct endpoint {
    link_t *link;
    uint32_t peer;
    rs_client *client; /* the client, or the bot's */
    rs_bot *bot;
    bool up;
    bool tamper_welcome; /* change WELCOME's first car hash on the way down */
    bool tamper_hash;      /* corrupt the server's hash of one tick (the first hashed one
                              from tick 300) in every FRAME that carries it */
    uint64_t tamper_tick;
    uint32_t tampered;
    double loss;           /* chance that an unreliable packet is lost, each way */
    uint64_t rng;
    uint32_t events[RS_CLIENT_EV_DISCONNECTED + 1];
    rs_client_event last[RS_CLIENT_EV_DISCONNECTED + 1];
} endpoint;

/* A packet in flight on an impaired link. */
typedef struct qpkt {
    int64_t at_us;
    uint64_t order;
    endpoint *ep;
    bool up; /* client to room */
    uint8_t ch;
    bool rel;
    uint16_t len;
    uint8_t data[RS_PROTO_MAX_PACKET];
} qpkt;

struct link_t {
    rs_room *room;
    int64_t now_us;
    endpoint ep[MAX_EP];
    uint32_t n;
    rs_room_packet out[128];
    /* impairment: one-way delay and +- jitter (reliable packets stay in
     * order per endpoint and direction), duplication of unreliable ones */
    int64_t delay_us, jitter_us;
    double dup;
    uint64_t rng;
    qpkt *q;
    size_t q_len, q_cap;
    uint64_t order;
    int64_t last_rel_at[MAX_EP][2];
};

/* Seeded: a lossy run is the same every time. */
static bool lost(endpoint *e, bool reliable)
{
    if (reliable || e->loss <= 0)
        return false;
    e->rng ^= e->rng << 13;
    e->rng ^= e->rng >> 7;
    e->rng ^= e->rng << 17;
    return (double)(e->rng >> 11) / 9007199254740992.0 < e->loss;
}

static uint64_t link_rnd(link_t *l)
{
    l->rng ^= l->rng << 13;
    l->rng ^= l->rng >> 7;
    l->rng ^= l->rng << 17;
    return l->rng;
}

/* Queues a packet on an impaired link. */
static void enqueue(link_t *l, endpoint *e, bool up, uint8_t ch, bool rel, const uint8_t *bytes,
                    size_t len)
{
    int copies = !rel && (double)(link_rnd(l) >> 11) / 9007199254740992.0 < l->dup ? 2 : 1;
    int64_t at = l->now_us + l->delay_us;
    if (l->jitter_us)
        at += (int64_t)(link_rnd(l) % (uint64_t)(2 * l->jitter_us + 1)) - l->jitter_us;
    if (rel) {
        int64_t *last = &l->last_rel_at[e - l->ep][up];
        if (at < *last)
            at = *last;
        *last = at;
    }
    for (int k = 0; k < copies; k++) {
        if (l->q_len == l->q_cap) {
            l->q_cap = l->q_cap ? l->q_cap * 2 : 1024;
            l->q = realloc(l->q, l->q_cap * sizeof *l->q);
            assert_non_null(l->q);
        }
        qpkt *p = &l->q[l->q_len++];
        p->at_us = at + k * 3000;
        p->order = l->order++;
        p->ep = e;
        p->up = up;
        p->ch = ch;
        p->rel = rel;
        p->len = (uint16_t)len;
        memcpy(p->data, bytes, len);
    }
}

static int cmp_qpkt(const void *a, const void *b)
{
    const qpkt *x = a, *y = b;
    if (x->at_us != y->at_us)
        return x->at_us < y->at_us ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static bool ep_send(void *ctx, uint8_t channel, bool reliable, const uint8_t *bytes, size_t len)
{
    endpoint *e = ctx;
    if (!e->up)
        return false;
    if (lost(e, reliable))
        return true;
    if (e->link->delay_us) {
        enqueue(e->link, e, true, channel, reliable, bytes, len);
        return true;
    }
    rs_room_receive(e->link->room, e->peer, channel, bytes, len, e->link->now_us);
    return true;
}

static void ep_close(void *ctx)
{
    endpoint *e = ctx;
    if (!e->up)
        return;
    e->up = false;
    rs_room_disconnect(e->link->room, e->peer, e->link->now_us);
}

static void note_event(endpoint *e, const rs_client_event *ev)
{
    if (ev->type <= RS_CLIENT_EV_DISCONNECTED) {
        e->events[ev->type]++;
        e->last[ev->type] = *ev;
    }
}

static void bot_event(void *ctx, rs_bot *bot, const rs_client_event *ev)
{
    (void)bot;
    note_event(ctx, ev);
}

/* Adds a client (ai: an AI bot; else a plain client) and brings its link up. */
static endpoint *link_add(link_t *l, const rs_client_config *cfg, bool bot, bool ai)
{
    assert_true(l->n < MAX_EP);
    endpoint *e = &l->ep[l->n];
    memset(e, 0, sizeof *e);
    e->link = l;
    e->peer = 10 + l->n;
    l->n++;
    rs_client_transport t = {e, ep_send, ep_close};
    char err[256] = "";
    if (bot) {
        assert_int_equal(rs_bot_create_custom(cfg, &t, ai, l->now_us, &e->bot, err, sizeof err),
                         RS_CLIENT_OK);
        rs_bot_set_event_fn(e->bot, bot_event, e);
        e->client = rs_bot_client(e->bot);
    } else {
        assert_int_equal(rs_client_create_custom(cfg, &t, l->now_us, &e->client, err,
                                                 sizeof err),
                         RS_CLIENT_OK);
    }
    e->up = true;
    rs_room_connect(l->room, e->peer, l->now_us);
    rs_client_transport_up(e->client, l->now_us);
    return e;
}

static endpoint *ep_of_peer(link_t *l, uint32_t peer)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (l->ep[i].peer == peer)
            return &l->ep[i];
    return NULL;
}

/* Rewrites a WELCOME so its first car hash is wrong (a server whose
 * parameters differ from what it sends). */
static void tamper(rs_room_packet *p)
{
    rs_msg m;
    if (rs_proto_decode(p->data, p->len, &m, NULL) != RS_PROTO_OK || m.type != RS_MSG_WELCOME ||
        m.u.welcome.car_count == 0)
        return;
    m.u.welcome.car_hashes[0] ^= 1;
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, p->data, sizeof p->data, &len, NULL), RS_PROTO_OK);
    p->len = (uint16_t)len;
}

/* Corrupts the state hash of one tick in a FRAME (as a server whose world
 * went elsewhere would send it); true if it did. */
static bool corrupt_frame_hash(endpoint *e, rs_room_packet *p)
{
    rs_msg m;
    if (rs_proto_decode(p->data, p->len, &m, NULL) != RS_PROTO_OK || m.type != RS_MSG_FRAME)
        return false;
    bool hit = false;
    for (uint32_t k = 0; k < m.u.frame.hash_count; k++) {
        uint64_t tick = m.u.frame.first_tick + m.u.frame.hashes[k].index;
        if (e->tamper_tick == 0 && tick >= 300)
            e->tamper_tick = tick;
        if (tick == e->tamper_tick) {
            m.u.frame.hashes[k].hash ^= 0x8000;
            hit = true;
        }
    }
    if (!hit)
        return false;
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, p->data, sizeof p->data, &len, NULL), RS_PROTO_OK);
    p->len = (uint16_t)len;
    return true;
}

static void link_step(link_t *l, int64_t step_us)
{
    l->now_us += step_us;
    if (l->q_len) {
        qsort(l->q, l->q_len, sizeof *l->q, cmp_qpkt);
        size_t due = 0;
        while (due < l->q_len && l->q[due].at_us <= l->now_us)
            due++;
        for (size_t j = 0; j < due; j++) {
            qpkt *p = &l->q[j];
            if (!p->ep->up)
                continue;
            if (p->up)
                rs_room_receive(l->room, p->ep->peer, p->ch, p->data, p->len, l->now_us);
            else
                rs_client_receive(p->ep->client, p->ch, p->data, p->len, l->now_us);
        }
        memmove(l->q, l->q + due, (l->q_len - due) * sizeof *l->q);
        l->q_len -= due;
    }
    rs_room_update(l->room, l->now_us);
    size_t n;
    while ((n = rs_room_poll(l->room, l->out, 128)) > 0) {
        for (size_t j = 0; j < n; j++) {
            endpoint *e = ep_of_peer(l, l->out[j].peer);
            if (!e || !e->up || lost(e, l->out[j].reliable))
                continue;
            if (e->tamper_welcome)
                tamper(&l->out[j]);
            if (e->tamper_hash && corrupt_frame_hash(e, &l->out[j]))
                e->tampered++;
            if (l->delay_us)
                enqueue(l, e, false, l->out[j].channel, l->out[j].reliable, l->out[j].data,
                        l->out[j].len);
            else
                rs_client_receive(e->client, l->out[j].channel, l->out[j].data,
                                  l->out[j].len, l->now_us);
        }
    }
    uint32_t closing[16];
    while ((n = rs_room_poll_closing(l->room, closing, 16)) > 0) {
        for (size_t j = 0; j < n; j++) {
            endpoint *e = ep_of_peer(l, closing[j]);
            rs_room_disconnect(l->room, closing[j], l->now_us);
            if (e && e->up) {
                e->up = false;
                rs_client_transport_down(e->client, l->now_us);
            }
        }
    }
    for (uint32_t i = 0; i < l->n; i++) {
        endpoint *e = &l->ep[i];
        if (e->bot) {
            rs_bot_update(e->bot, l->now_us);
        } else {
            rs_client_update(e->client, l->now_us);
            rs_client_event ev;
            while (rs_client_poll_event(e->client, &ev))
                note_event(e, &ev);
        }
    }
}

static void link_init(link_t *l, const rs_room_config *cfg)
{
    memset(l, 0, sizeof *l);
    char err[256] = "";
    assert_int_equal(rs_room_create(cfg, &l->room, err, sizeof err), RS_OK);
    l->now_us = 5000000;
}

static void link_free(link_t *l)
{
    for (uint32_t i = 0; i < l->n; i++) {
        if (l->ep[i].bot)
            rs_bot_destroy(l->ep[i].bot);
        else
            rs_client_destroy(l->ep[i].client);
    }
    rs_room_destroy(l->room);
    free(l->q);
}

static rs_client_config named(const char *name)
{
    rs_client_config c = rs_client_config_default();
    c.name = name;
    return c;
}

/* ----------------------------------------------------------- the tests */

static void test_bots_race_one_lap_in_sync_with_the_room(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 3);
    link_t l;
    link_init(&l, &rc);
    rs_client_config a = named("ann"), b = named("bob"), w = named("wes"), d = named("dot");
    w.spectator = true;
    d.simulate = false; /* a light bot, as load tests use */
    endpoint *bots[2] = {link_add(&l, &a, true, true), link_add(&l, &b, true, true)};
    endpoint *spec = link_add(&l, &w, false, false);
    endpoint *light = link_add(&l, &d, true, false);
    int64_t limit = l.now_us + 120 * 1000000LL;
    bool results = false;
    int64_t results_at = 0;
    while (l.now_us < limit) {
        link_step(&l, 2000);
        rs_room_stats rst;
        rs_room_get_stats(l.room, &rst);
        if (rst.phase == RS_PHASE_RESULTS && !results) {
            results = true;
            results_at = l.now_us;
        }
        if (results && l.now_us - results_at > 500000)
            break;
    }
    assert_true(results);
    uint64_t track_hash = rs_track_hash(s->track);
    uint64_t car_hash = rs_car_params_hash(s->car);
    for (uint32_t i = 0; i < 3; i++) {
        endpoint *e = i < 2 ? bots[i] : spec;
        rs_client_stats st;
        rs_client_get_stats(e->client, l.now_us, &st);
        printf("[race] client %u: hashes %llu desyncs %llu rollbacks %llu depth p50/p99/max "
               "%u/%u/%u rtt %.1f ms lead %d ms (target %.0f) late %u frames %llu "
               "unresolvable %llu in %llu B out %llu B malformed %llu loss %.3f\n",
               i, (unsigned long long)st.hashes_checked, (unsigned long long)st.desyncs,
               (unsigned long long)st.rollbacks, st.depth_p50, st.depth_p99, st.depth_max,
               st.rtt_ms, st.input_lead_ms, st.target_lead_ms, st.late_inputs,
               (unsigned long long)st.frames, (unsigned long long)st.frames_unresolvable,
               (unsigned long long)st.bytes_in, (unsigned long long)st.bytes_out,
               (unsigned long long)st.malformed, st.loss);
        printf("  events: world %u race_state %u laps %u sectors %u collisions %u finish %u\n",
               e->events[RS_CLIENT_EV_WORLD_READY], e->events[RS_CLIENT_EV_RACE_STATE],
               e->events[RS_CLIENT_EV_LAP], e->events[RS_CLIENT_EV_SECTOR],
               e->events[RS_CLIENT_EV_COLLISION], e->events[RS_CLIENT_EV_FINISH]);
        assert_int_equal(e->events[RS_CLIENT_EV_CONNECTED], 1);
        assert_true(e->events[RS_CLIENT_EV_WORLD_READY] >= 1);
        assert_int_equal(e->last[RS_CLIENT_EV_WORLD_READY].u.world.track_hash, track_hash);
        /* The first WELCOME came in the lobby (no cars); the race's WELCOME
         * named the stock car for every seat. */
        rs_msg_welcome wel;
        assert_true(rs_client_welcome(e->client, &wel));
        assert_int_equal(wel.car_count, 3);
        for (uint32_t k = 0; k < 3; k++)
            assert_int_equal(wel.car_hashes[k], car_hash);
        assert_int_equal(e->events[RS_CLIENT_EV_RESULTS], 1);
        assert_int_equal(e->events[RS_CLIENT_EV_ERROR], 0);
        assert_int_equal(e->events[RS_CLIENT_EV_DISCONNECTED], 0);
        assert_int_equal(st.desyncs, 0);
        assert_int_equal(st.malformed, 0);
        assert_true(st.loss < 0.01); /* a perfect link */
        assert_true(st.hashes_checked > 50);
        /* Every hashed tick the client confirmed matched the room's hash
         * (the predictor checks each one); the confirmed tick is close to
         * the room's. */
        rs_room_stats rst;
        rs_room_get_stats(l.room, &rst);
        assert_true(st.confirmed_tick + 10 >= rst.tick);
        if (i < 2) {
            rs_bot_stats bs;
            rs_bot_get_stats(e->bot, &bs);
            assert_int_equal(bs.laps, 1);
            assert_true(bs.finished);
            assert_int_equal(e->events[RS_CLIENT_EV_FINISH], 1);
            assert_true(e->last[RS_CLIENT_EV_FINISH].u.finish.position >= 1);
            assert_true(e->events[RS_CLIENT_EV_SECTOR] >= 1);
            assert_true(st.late_inputs < 5);
            assert_int_equal(bs.line_builds, 1);
            /* A pose for rendering, near the car's predicted position. */
            rs_predict_pose pose;
            assert_int_equal(rs_client_pose(e->client, rs_client_car(e->client), l.now_us,
                                            &pose),
                             RS_CLIENT_OK);
        } else {
            assert_int_equal(rs_client_car(e->client), 0);
            assert_true(e->events[RS_CLIENT_EV_LAP] >= 2);
        }
    }
    /* The light bot followed the lockstep without a world: its inputs
     * arrived in time and it confirmed every tick. */
    {
        rs_client_stats st;
        rs_client_get_stats(light->client, l.now_us, &st);
        rs_room_stats rst;
        rs_room_get_stats(l.room, &rst);
        printf("[race] light bot: confirmed %llu present %llu lead %d ms late %u frames %llu "
               "in %llu B out %llu B\n",
               (unsigned long long)st.confirmed_tick, (unsigned long long)st.present_tick,
               st.input_lead_ms, st.late_inputs, (unsigned long long)st.frames,
               (unsigned long long)st.bytes_in, (unsigned long long)st.bytes_out);
        assert_null(rs_client_world(light->client));
        assert_int_equal(rs_client_car(light->client), 3);
        assert_true(light->events[RS_CLIENT_EV_WORLD_READY] >= 1);
        assert_int_equal(light->events[RS_CLIENT_EV_RESULTS], 1);
        assert_int_equal(light->events[RS_CLIENT_EV_ERROR], 0);
        assert_true(st.confirmed_tick + 10 >= rst.tick);
        assert_true(st.present_tick > st.confirmed_tick);
        assert_true(st.late_inputs < 5);
        assert_int_equal(st.frames_unresolvable, 0);
        /* Every car-tick the room stepped used an input that arrived in time
         * (the few before the clock was calibrated aside). */
        printf("[race] room: inputs used %llu missing %llu late %llu dropped %llu\n",
               (unsigned long long)rst.inputs_used, (unsigned long long)rst.inputs_missing,
               (unsigned long long)rst.inputs_late, (unsigned long long)rst.dropped_messages);
        assert_true(rst.inputs_missing * 1000 < rst.inputs_used);
        assert_int_equal(rst.dropped_messages, 0);
    }
    /* Everyone disconnects cleanly: the room sees BYEs. */
    for (uint32_t i = 0; i < 4; i++) {
        endpoint *e = i < 2 ? bots[i] : i == 2 ? spec : light;
        rs_client_disconnect(e->client, l.now_us);
        link_step(&l, 2000);
        assert_int_equal(rs_client_get_state(e->client), RS_CLIENT_CLOSED);
        assert_int_equal(e->events[RS_CLIENT_EV_DISCONNECTED], 1);
    }
    link_free(&l);
}

static void test_wrong_password_is_refused_with_the_servers_text(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 2);
    rc.password = "sesame";
    link_t l;
    link_init(&l, &rc);
    rs_client_config bad = named("eve");
    bad.password = "guess";
    endpoint *e = link_add(&l, &bad, false, false);
    for (int i = 0; i < 10; i++)
        link_step(&l, 2000);
    assert_int_equal(e->events[RS_CLIENT_EV_REFUSED], 1);
    assert_int_equal(e->last[RS_CLIENT_EV_REFUSED].u.refused.reason, RS_REASON_PASSWORD);
    assert_true(strlen(e->last[RS_CLIENT_EV_REFUSED].u.refused.text) > 0);
    assert_int_equal(e->events[RS_CLIENT_EV_DISCONNECTED], 1);
    assert_int_equal(e->last[RS_CLIENT_EV_DISCONNECTED].u.disconnected.reason,
                     RS_REASON_PASSWORD);
    assert_int_equal(rs_client_get_state(e->client), RS_CLIENT_CLOSED);
    assert_int_equal(e->events[RS_CLIENT_EV_CONNECTED], 0);

    /* The right password is welcome. */
    rs_client_config good = named("ada");
    good.password = "sesame";
    endpoint *g = link_add(&l, &good, false, false);
    for (int i = 0; i < 10; i++)
        link_step(&l, 2000);
    assert_int_equal(g->events[RS_CLIENT_EV_CONNECTED], 1);
    assert_int_equal(rs_client_get_state(g->client), RS_CLIENT_CONNECTED);
    link_free(&l);
}

/* A REFUSE for another protocol version, as a server of another version
 * sends it: its text reaches the caller as is. */
static void test_version_refusal_text_is_shown_as_is(void **state)
{
    (void)state;
    rs_client_config cfg = named("old");
    int dummy = 0;
    rs_client_transport t = {&dummy, ep_send, NULL};
    rs_client *c = NULL;
    assert_int_equal(rs_client_create_custom(&cfg, &t, 0, &c, NULL, 0), RS_CLIENT_OK);
    /* Without a link nothing is sent; the REFUSE arrives anyway. */
    rs_msg m;
    memset(&m, 0, sizeof m);
    rs_proto_refuse_version(RS_PROTO_VERSION - 1u, &m);
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    rs_client_receive(c, RS_CH_CONTROL, buf, len, 1000);
    rs_client_event ev;
    assert_true(rs_client_poll_event(c, &ev));
    assert_int_equal(ev.type, RS_CLIENT_EV_REFUSED);
    assert_int_equal(ev.u.refused.reason, RS_REASON_VERSION);
    assert_string_equal(ev.u.refused.text, m.u.refuse.text);
    printf("[refused] \"%s\"\n", ev.u.refused.text);
    assert_true(rs_client_poll_event(c, &ev));
    assert_int_equal(ev.type, RS_CLIENT_EV_DISCONNECTED);
    assert_false(rs_client_poll_event(c, &ev));
    rs_client_destroy(c);
}

static void test_parameter_mismatch_says_bye_and_reports(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 1);
    link_t l;
    link_init(&l, &rc);
    rs_client_config cfg = named("mal");
    endpoint *e = link_add(&l, &cfg, false, false);
    e->tamper_welcome = true;
    /* The client waits up to 30 s for a matching WELCOME (client_world.c). */
    for (int i = 0; i < 20000 && rs_client_get_state(e->client) != RS_CLIENT_CLOSED; i++)
        link_step(&l, 2000);
    if (e->events[RS_CLIENT_EV_DISCONNECTED])
        printf("[params] disconnected: reason %u \"%s\"\n",
               (unsigned)e->last[RS_CLIENT_EV_DISCONNECTED].u.disconnected.reason,
               e->last[RS_CLIENT_EV_DISCONNECTED].u.disconnected.text);
    assert_int_equal(e->events[RS_CLIENT_EV_WORLD_READY], 0);
    assert_int_equal(e->events[RS_CLIENT_EV_ERROR], 1);
    assert_int_equal(e->last[RS_CLIENT_EV_ERROR].u.error.code, RS_CLIENT_ERROR_PARAMS);
    printf("[params] \"%s\"\n", e->last[RS_CLIENT_EV_ERROR].u.error.text);
    assert_int_equal(e->events[RS_CLIENT_EV_DISCONNECTED], 1);
    assert_int_equal(e->last[RS_CLIENT_EV_DISCONNECTED].u.disconnected.reason, RS_REASON_PARAMS);
    assert_false(e->up); /* the link was closed */
    link_free(&l);
}

static void test_garbage_is_dropped_and_counted(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 1);
    link_t l;
    link_init(&l, &rc);
    rs_client_config cfg = named("gus");
    endpoint *e = link_add(&l, &cfg, true, false);
    for (int i = 0; i < 20; i++)
        link_step(&l, 2000);
    assert_int_equal(e->events[RS_CLIENT_EV_CONNECTED], 1);
    /* Seeded garbage: random bytes, every type byte with random tails, a
     * HELLO (a message only clients send), a valid FRAME on the wrong channel. */
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    uint8_t buf[RS_PROTO_MAX_PACKET + 16];
    uint64_t injected = 0;
    for (int k = 0; k < 4000; k++) {
        size_t len = 1 + (size_t)(k % (int)sizeof buf);
        for (size_t j = 0; j < len; j++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[j] = (uint8_t)x;
        }
        if (k % 2)
            buf[0] = (uint8_t)(k % 30);
        size_t before;
        rs_client_stats st;
        rs_client_get_stats(e->client, l.now_us, &st);
        before = (size_t)st.malformed;
        rs_client_receive(e->client, (uint8_t)(k % 4), buf, len, l.now_us);
        rs_client_get_stats(e->client, l.now_us, &st);
        injected += st.malformed - before;
    }
    rs_client_receive(e->client, RS_CH_CONTROL, NULL, 0, l.now_us);
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_HELLO;
    m.u.hello.protocol_version = RS_PROTO_VERSION;
    m.u.hello.physics_version = RS_PHYSICS_VERSION;
    strcpy(m.u.hello.name, "x");
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    rs_client_receive(e->client, RS_CH_CONTROL, buf, len, l.now_us);
    rs_client_stats st;
    rs_client_get_stats(e->client, l.now_us, &st);
    printf("[garbage] %llu of 4000 random packets dropped as malformed, %llu total\n",
           (unsigned long long)injected, (unsigned long long)st.malformed);
    assert_true(injected > 3000);
    assert_int_equal(st.malformed, injected + 2);
    /* Still connected, and a world is still built and raced. */
    for (int i = 0; i < 3000; i++)
        link_step(&l, 2000);
    assert_int_equal(rs_client_get_state(e->client), RS_CLIENT_CONNECTED);
    assert_true(e->events[RS_CLIENT_EV_WORLD_READY] >= 1);
    rs_client_get_stats(e->client, l.now_us, &st);
    assert_int_equal(st.desyncs, 0);
    assert_true(st.hashes_checked > 10);
    link_free(&l);
}

static void test_config_is_checked(void **state)
{
    (void)state;
    rs_client_config cfg = rs_client_config_default();
    int dummy = 0;
    rs_client_transport t = {&dummy, ep_send, NULL};
    rs_client *c = NULL;
    char err[128] = "";
    cfg.name = "";
    assert_int_equal(rs_client_create_custom(&cfg, &t, 0, &c, err, sizeof err),
                     RS_CLIENT_ERR_ARG);
    assert_null(c);
    assert_non_null(strstr(err, "name"));
    cfg = rs_client_config_default();
    cfg.token = "abc";
    assert_int_equal(rs_client_create_custom(&cfg, &t, 0, &c, err, sizeof err),
                     RS_CLIENT_ERR_ARG);
    assert_non_null(strstr(err, "token"));
    cfg = rs_client_config_default();
    assert_int_equal(rs_client_connect(&cfg, "no.such.host.invalid", 1, 0, &c, err, sizeof err),
                     RS_CLIENT_ERR_NET);
    assert_null(c);
    /* Requests need a connection. */
    assert_int_equal(rs_client_create_custom(&cfg, &t, 0, &c, err, sizeof err), RS_CLIENT_OK);
    assert_int_equal(rs_client_request_leaderboard(c, 0, 0, 0, 0, 10), 0);
    assert_null(rs_client_world(c));
    rs_client_destroy(c);
    rs_client_destroy(NULL);
}


/* Cars may differ per seat (tunes, other cars): each PARAMS block builds its
 * own car, checked against WELCOME's hash for that car. */
static void test_cars_with_different_parameters_stay_in_sync(void **state)
{
    scene *s = *state;
    rs_car_params *formula = NULL;
    assert_true(test_car_load("formula", &formula));
    rs_room_config rc = room_config(s, 3);
    link_t l;
    link_init(&l, &rc);
    rs_client_config a = named("ann"), b = named("bob"), c = named("cyd");
    endpoint *ea = link_add(&l, &a, true, true);
    endpoint *eb = link_add(&l, &b, true, true);
    for (int i = 0; i < 10; i++)
        link_step(&l, 2000);
    /* Bob drives the formula car from the next race on; the third player
     * starts it. */
    assert_int_equal(rs_room_set_seat_car(l.room, "bob", formula, 0), RS_OK);
    endpoint *ec = link_add(&l, &c, true, true);
    for (int i = 0; i < 4000; i++)
        link_step(&l, 2000);
    uint64_t stock = rs_car_params_hash(s->car), f = rs_car_params_hash(formula);
    assert_true(stock != f);
    endpoint *eps[3] = {ea, eb, ec};
    for (int i = 0; i < 3; i++) {
        rs_client_stats st;
        rs_client_get_stats(eps[i]->client, l.now_us, &st);
        rs_msg_welcome w;
        assert_true(rs_client_welcome(eps[i]->client, &w));
        printf("[tuned] client %d: car %u, hashes %llu desyncs %llu\n", i,
               rs_client_car(eps[i]->client), (unsigned long long)st.hashes_checked,
               (unsigned long long)st.desyncs);
        assert_int_equal(w.car_count, 3);
        assert_int_equal(w.car_hashes[0], stock);
        assert_int_equal(w.car_hashes[1], f);
        assert_int_equal(w.car_hashes[2], stock);
        assert_int_equal(rs_car_params_hash(rs_client_car_params(eps[i]->client, 2)), f);
        assert_int_equal(eps[i]->events[RS_CLIENT_EV_ERROR], 0);
        assert_int_equal(st.desyncs, 0);
        assert_true(st.hashes_checked > 10);
    }
    rs_bot_stats bs;
    rs_bot_get_stats(eb->bot, &bs);
    assert_int_equal(bs.line_builds, 1);
    link_free(&l);
    rs_car_params_destroy(formula);
}

/* A confirmed state whose hash differs from the server's: the client
 * reports it (DESYNC_REPORT), raises an ERROR event, counts it, asks for a
 * snapshot and carries on in sync from the new world. */
static void test_desync_is_reported_and_repaired_by_a_snapshot(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 1);
    link_t l;
    link_init(&l, &rc);
    rs_client_config cfg = named("des");
    endpoint *e = link_add(&l, &cfg, true, true);
    e->tamper_hash = true;
    for (int i = 0; i < 4000; i++)
        link_step(&l, 2000);
    rs_client_stats st;
    rs_client_get_stats(e->client, l.now_us, &st);
    rs_room_stats rst;
    rs_room_get_stats(l.room, &rst);
    printf("[desync] errors %u (\"%s\"), desyncs %llu, worlds %u, hashes %llu; room: desync "
           "reports %llu, snapshots sent %llu\n",
           e->events[RS_CLIENT_EV_ERROR], e->last[RS_CLIENT_EV_ERROR].u.error.text,
           (unsigned long long)st.desyncs, e->events[RS_CLIENT_EV_WORLD_READY],
           (unsigned long long)st.hashes_checked, (unsigned long long)rst.desync_reports,
           (unsigned long long)rst.snapshots_sent);
    assert_true(e->tampered >= 1);
    /* Every FRAME that repeats the corrupted tick may hit a fresh world
     * again (the room's snapshot can predate it): each episode is reported
     * once, and each ends in a new world. */
    assert_true(st.desyncs >= 1 && st.desyncs <= 3);
    assert_int_equal(e->events[RS_CLIENT_EV_ERROR], st.desyncs);
    assert_int_equal(e->last[RS_CLIENT_EV_ERROR].u.error.code, RS_CLIENT_ERROR_DESYNC);
    assert_int_equal(rst.desync_reports, st.desyncs);
    assert_int_equal(e->events[RS_CLIENT_EV_WORLD_READY], st.desyncs + 1);
    assert_int_equal(rs_client_get_state(e->client), RS_CLIENT_CONNECTED);
    /* In sync again: later hashes are checked and hold. */
    uint64_t hashes = st.hashes_checked, desyncs = st.desyncs;
    for (int i = 0; i < 1000; i++)
        link_step(&l, 2000);
    rs_client_get_stats(e->client, l.now_us, &st);
    rs_room_get_stats(l.room, &rst);
    assert_int_equal(st.desyncs, desyncs);
    assert_true(st.hashes_checked >= hashes + 3);
    assert_true(st.confirmed_tick + 10 >= rst.tick);
    link_free(&l);
}

/* 10 % of unreliable packets lost each way: the loss estimate sees it, the
 * repeated inputs and overlapping FRAMEs cover it, and nothing desyncs. */
static void test_a_lossy_link_is_measured_and_survived(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 1);
    link_t l;
    link_init(&l, &rc);
    rs_client_config cfg = named("los");
    endpoint *e = link_add(&l, &cfg, true, true);
    e->loss = 0.10;
    e->rng = 12345;
    for (int i = 0; i < 8000; i++)
        link_step(&l, 2000);
    rs_client_stats st;
    rs_client_get_stats(e->client, l.now_us, &st);
    rs_room_stats rst;
    rs_room_get_stats(l.room, &rst);
    printf("[lossy] loss estimate %.3f, hashes %llu, desyncs %llu, rollbacks %llu depth max %u, "
           "late %u, unresolvable %llu; room: used %llu missing %llu\n",
           st.loss, (unsigned long long)st.hashes_checked, (unsigned long long)st.desyncs,
           (unsigned long long)st.rollbacks, st.depth_max, st.late_inputs,
           (unsigned long long)st.frames_unresolvable, (unsigned long long)rst.inputs_used,
           (unsigned long long)rst.inputs_missing);
    assert_true(st.loss > 0.04 && st.loss < 0.2);
    assert_int_equal(st.desyncs, 0);
    assert_true(st.hashes_checked > 20);
    assert_true(st.confirmed_tick + 20 >= rst.tick);
    assert_true(rst.inputs_missing * 100 < rst.inputs_used);
    link_free(&l);
}

/* The impaired network the SDK is held to (docs/CLIENT_SDK.md): 150 ms
 * round trip, +-20 ms jitter, 10 % loss and 1 % duplication of unreliable
 * packets; 2 AI bots race for about 35 s (lights out at 2 s). They stay in
 * sync and their inputs reach the room in time. (The whole race under impairment is the integration test's
 * job; this one keeps the SDK honest at a cost sanitizers can afford.) */
static void test_an_impaired_race_stays_in_sync_with_inputs_in_time(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 2);
    link_t l;
    link_init(&l, &rc);
    l.delay_us = 75000;
    l.jitter_us = 20000;
    l.dup = 0.01;
    l.rng = 99;
    const char *names[2] = {"imp1", "imp2"};
    endpoint *e[2];
    for (int i = 0; i < 2; i++) {
        rs_client_config cfg = named(names[i]);
        e[i] = link_add(&l, &cfg, true, true);
        e[i]->loss = 0.10;
        e[i]->rng = 1000u + (uint64_t)i;
    }
    rs_room_stats rst;
    do {
        link_step(&l, 2000);
        rs_room_get_stats(l.room, &rst);
    } while (rst.tick < 2100 && l.now_us < 60 * 1000000LL);
    double in_time = (double)rst.inputs_used / (double)(rst.inputs_used + rst.inputs_missing);
    printf("[impaired] room: ticks %llu, inputs in time %.4f%% (%llu missing), late %llu\n",
           (unsigned long long)rst.tick, 100.0 * in_time,
           (unsigned long long)rst.inputs_missing, (unsigned long long)rst.inputs_late);
    assert_int_equal(rst.phase, RS_PHASE_RACE);
    for (int i = 0; i < 2; i++) {
        rs_client_stats st;
        rs_client_get_stats(e[i]->client, l.now_us, &st);
        printf("[impaired] bot %d: hashes %llu, desyncs %llu, rtt %.1f ms jitter %.1f ms, lead "
               "%d ms (target %.0f), loss %.3f, rollbacks %llu depth p50/p99/max %u/%u/%u, "
               "local error mean %.3f m max %.3f m, late %u, confirmed %llu present %llu\n",
               i, (unsigned long long)st.hashes_checked, (unsigned long long)st.desyncs,
               st.rtt_ms, st.jitter_ms, st.input_lead_ms, st.target_lead_ms, st.loss,
               (unsigned long long)st.rollbacks, st.depth_p50, st.depth_p99, st.depth_max,
               st.local_error_m_mean, st.local_error_m_max, st.late_inputs,
               (unsigned long long)st.confirmed_tick, (unsigned long long)st.present_tick);
        assert_int_equal(st.desyncs, 0);
        assert_int_equal(e[i]->events[RS_CLIENT_EV_ERROR], 0);
        assert_true(st.hashes_checked > 60);
        assert_true(st.loss > 0.03 && st.loss < 0.25); /* 10 % lost, some reordered */
        assert_true(st.rtt_ms > 140 && st.rtt_ms < 170);
        /* The client runs ahead of the room, the confirmed tick a little behind. */
        assert_true(st.present_tick > rst.tick);
        assert_true(st.confirmed_tick + 30 > rst.tick);
    }
    assert_true(in_time >= 0.999);
    link_free(&l);
}

/* ------------------------------------------- a tiny ENet server for tests */

/* Serves one room over ENet on 127.0.0.1 with the connect cookie of
 * SPEC.md section 7 (a fixed cookie: the test checks the client's side of
 * the exchange, not the server's secret). */
typedef struct enet_srv {
    ENetHost *host;
    rs_room *room;
    uint16_t port;
    uint32_t cookie;
    uint64_t cookie_requests, connects_ok, connects_rejected;
    ENetPeer *peers[16];
    rs_room_packet out[128];
} enet_srv;

/* ENet's intercept hook has no context pointer; tests run one server at a time. */
static enet_srv *the_srv;

static int ENET_CALLBACK srv_intercept(ENetHost *host, ENetEvent *event)
{
    (void)event;
    enet_srv *sv = the_srv;
    const uint8_t *d = host->receivedData;
    size_t n = host->receivedDataLength;
    if (n == 48 && memcmp(d, "RSCKREQ1", 8) == 0) {
        uint8_t rep[16] = {'R', 'S', 'C', 'K', 'R', 'E', 'P', '1'};
        rep[8] = (uint8_t)sv->cookie;
        rep[9] = (uint8_t)(sv->cookie >> 8);
        rep[10] = (uint8_t)(sv->cookie >> 16);
        rep[11] = (uint8_t)(sv->cookie >> 24);
        ENetBuffer b = {.data = rep, .dataLength = sizeof rep};
        enet_socket_send(host->socket, &host->receivedAddress, &b, 1);
        sv->cookie_requests++;
        return 1;
    }
    if (n < 2)
        return 1;
    uint16_t peer_id = (uint16_t)(d[0] << 8 | d[1]);
    if ((peer_id & ENET_PROTOCOL_MAXIMUM_PEER_ID) != ENET_PROTOCOL_MAXIMUM_PEER_ID)
        return 0;
    if (peer_id & ENET_PROTOCOL_HEADER_FLAG_COMPRESSED)
        return 1;
    size_t off = (peer_id & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME) ? 4 : 2;
    if (n < off + sizeof(ENetProtocolConnect) ||
        (d[off] & ENET_PROTOCOL_COMMAND_MASK) != ENET_PROTOCOL_COMMAND_CONNECT) {
        sv->connects_rejected++;
        return 1;
    }
    const uint8_t *q = d + off + offsetof(ENetProtocolConnect, data);
    uint32_t cookie = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
    if (cookie != sv->cookie) {
        sv->connects_rejected++;
        return 1;
    }
    sv->connects_ok++;
    return 0;
}

static void srv_open(enet_srv *sv, const rs_room_config *cfg)
{
    memset(sv, 0, sizeof *sv);
    assert_int_equal(enet_initialize(), 0);
    char err[256] = "";
    assert_int_equal(rs_room_create(cfg, &sv->room, err, sizeof err), RS_OK);
    ENetAddress a;
    enet_address_set_host(&a, "127.0.0.1");
    a.port = 0;
    sv->host = enet_host_create(&a, 16, RS_CH_COUNT, 0, 0);
    assert_non_null(sv->host);
    ENetAddress bound;
    assert_int_equal(enet_socket_get_address(sv->host->socket, &bound), 0);
    sv->port = bound.port;
    sv->cookie = 0x5eed1234u;
    sv->host->intercept = srv_intercept;
    the_srv = sv;
}

static void srv_step(enet_srv *sv, int64_t now)
{
    ENetEvent ev;
    while (enet_host_service(sv->host, &ev, 0) > 0) {
        if (ev.type == ENET_EVENT_TYPE_CONNECT) {
            for (uint32_t i = 0; i < 16; i++) {
                if (!sv->peers[i]) {
                    sv->peers[i] = ev.peer;
                    ev.peer->data = (void *)(uintptr_t)(i + 1);
                    rs_room_connect(sv->room, i + 1, now);
                    break;
                }
            }
        } else if (ev.type == ENET_EVENT_TYPE_RECEIVE) {
            uint32_t id = (uint32_t)(uintptr_t)ev.peer->data;
            if (id)
                rs_room_receive(sv->room, id, ev.channelID, ev.packet->data,
                                ev.packet->dataLength, now);
            enet_packet_destroy(ev.packet);
        } else if (ev.type == ENET_EVENT_TYPE_DISCONNECT) {
            uint32_t id = (uint32_t)(uintptr_t)ev.peer->data;
            if (id) {
                rs_room_disconnect(sv->room, id, now);
                sv->peers[id - 1] = NULL;
            }
        }
    }
    rs_room_update(sv->room, now);
    size_t n;
    while ((n = rs_room_poll(sv->room, sv->out, 128)) > 0) {
        for (size_t j = 0; j < n; j++) {
            uint32_t id = sv->out[j].peer;
            if (id == 0 || id > 16 || !sv->peers[id - 1])
                continue;
            ENetPacket *p = enet_packet_create(sv->out[j].data, sv->out[j].len,
                                               sv->out[j].reliable ? ENET_PACKET_FLAG_RELIABLE
                                                                   : ENET_PACKET_FLAG_UNSEQUENCED);
            enet_peer_send(sv->peers[id - 1], sv->out[j].channel, p);
        }
    }
    uint32_t closing[16];
    while ((n = rs_room_poll_closing(sv->room, closing, 16)) > 0)
        for (size_t j = 0; j < n; j++)
            if (closing[j] >= 1 && closing[j] <= 16 && sv->peers[closing[j] - 1])
                enet_peer_disconnect_later(sv->peers[closing[j] - 1], 0);
    enet_host_flush(sv->host);
}

static void srv_close(enet_srv *sv)
{
    enet_host_destroy(sv->host);
    rs_room_destroy(sv->room);
    the_srv = NULL;
}

static void test_bots_connect_over_enet_with_the_cookie(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 2);
    enet_srv sv;
    srv_open(&sv, &rc);
    rs_bot *bots[2];
    char err[256] = "";
    rs_client_config a = named("udp1"), b = named("udp2");
    int64_t t0 = rs_clock_us();
    assert_int_equal(rs_bot_create(&a, "127.0.0.1", sv.port, true, t0, &bots[0], err, sizeof err),
                     RS_CLIENT_OK);
    assert_int_equal(rs_bot_create(&b, "127.0.0.1", sv.port, true, t0, &bots[1], err, sizeof err),
                     RS_CLIENT_OK);
    rs_client_stats st[2];
    bool done = false;
    while (!done && rs_clock_us() - t0 < 8000000) {
        int64_t now = rs_clock_us();
        srv_step(&sv, now);
        done = true;
        for (int i = 0; i < 2; i++) {
            rs_bot_update(bots[i], now);
            rs_client_get_stats(rs_bot_client(bots[i]), now, &st[i]);
            done &= st[i].hashes_checked >= 4 && rs_client_world(rs_bot_client(bots[i])) != NULL;
        }
        rs_sleep_us((int64_t)(1) * 1000);
    }
    for (int i = 0; i < 2; i++) {
        printf("[enet] bot %d: %.1f s, hashes %llu desyncs %llu rtt %.2f ms lead %d ms "
               "messages in %llu B out %llu B, wire in %llu B (%llu datagrams) out %llu B "
               "(%llu datagrams)\n",
               i, (double)(rs_clock_us() - t0) / 1e6, (unsigned long long)st[i].hashes_checked,
               (unsigned long long)st[i].desyncs, st[i].rtt_ms, st[i].input_lead_ms,
               (unsigned long long)st[i].bytes_in, (unsigned long long)st[i].bytes_out,
               (unsigned long long)st[i].wire_bytes_in,
               (unsigned long long)st[i].wire_packets_in,
               (unsigned long long)st[i].wire_bytes_out,
               (unsigned long long)st[i].wire_packets_out);
        assert_true(st[i].hashes_checked >= 4);
        assert_int_equal(st[i].desyncs, 0);
        assert_int_equal(st[i].malformed, 0);
        assert_true(st[i].wire_bytes_in > st[i].bytes_in);
        assert_true(st[i].wire_bytes_out > st[i].bytes_out);
        assert_true(st[i].wire_packets_in > 0);
        assert_int_equal(rs_client_car(rs_bot_client(bots[i])), i + 1);
    }
    assert_true(sv.cookie_requests >= 2);
    assert_int_equal(sv.connects_ok, 2);
    /* A goodbye reaches the room. */
    for (int i = 0; i < 2; i++)
        rs_bot_disconnect(bots[i], rs_clock_us());
    int64_t t1 = rs_clock_us();
    rs_room_stats rst;
    do {
        int64_t now = rs_clock_us();
        for (int i = 0; i < 2; i++)
            rs_bot_update(bots[i], now);
        srv_step(&sv, now);
        rs_room_get_stats(sv.room, &rst);
        rs_sleep_us((int64_t)(1) * 1000);
    } while (rst.players > 0 && rs_clock_us() - t1 < 2000000);
    assert_int_equal(rst.players, 0);
    for (int i = 0; i < 2; i++)
        rs_bot_destroy(bots[i]);
    srv_close(&sv);
}

/* A CONNECT without the cookie exchange never reaches the room: the client
 * times out with a DISCONNECTED event when the server never answers. */
static void test_connect_times_out_without_a_server(void **state)
{
    (void)state;
    rs_client_config cfg = named("lonely");
    cfg.connect_timeout_ms = 300;
    rs_client *c = NULL;
    char err[256] = "";
    int64_t t0 = rs_clock_us();
    /* A bound socket nobody reads from: requests vanish. */
    ENetAddress a;
    enet_address_set_host(&a, "127.0.0.1");
    a.port = 0;
    ENetHost *mute = enet_host_create(&a, 1, 1, 0, 0);
    assert_non_null(mute);
    ENetAddress bound;
    enet_socket_get_address(mute->socket, &bound);
    assert_int_equal(rs_client_connect(&cfg, "127.0.0.1", bound.port, t0, &c, err, sizeof err),
                     RS_CLIENT_OK);
    rs_client_event ev;
    bool disconnected = false;
    while (!disconnected && rs_clock_us() - t0 < 3000000) {
        rs_client_update(c, rs_clock_us());
        while (rs_client_poll_event(c, &ev))
            if (ev.type == RS_CLIENT_EV_DISCONNECTED) {
                disconnected = true;
                assert_int_equal(ev.u.disconnected.reason, RS_REASON_TIMEOUT);
            }
        rs_sleep_us((int64_t)(5) * 1000);
    }
    assert_true(disconnected);
    assert_true(rs_clock_us() - t0 < 1500000);
    rs_client_destroy(c);
    enet_host_destroy(mute);
}

/* examples/minimal.c, built as example_minimal, against a room served
 * over ENet: it connects, drives, and exits 0. */
static void test_minimal_example_runs_against_a_server(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 1);
    enet_srv sv;
    srv_open(&sv, &rc);
    char port[16];
    snprintf(port, sizeof port, "%u", sv.port);
    char *argv[] = {(char *)RS_EXAMPLE_MINIMAL, (char *)"127.0.0.1", port, (char *)"3", NULL};
    pid_t pid;
    extern char **environ;
    assert_int_equal(posix_spawn(&pid, RS_EXAMPLE_MINIMAL, NULL, NULL, argv, environ), 0);
    int64_t t0 = rs_clock_us();
    int status = -1;
    uint32_t max_players = 0;
    rs_room_stats rst;
    while (rs_clock_us() - t0 < 10000000) {
        srv_step(&sv, rs_clock_us());
        rs_room_get_stats(sv.room, &rst);
        if (rst.players > max_players)
            max_players = rst.players;
        if (waitpid(pid, &status, WNOHANG) == pid)
            break;
        rs_sleep_us((int64_t)(1) * 1000);
    }
    if (status == -1) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        fail_msg("example_minimal did not exit in time");
    }
    printf("[minimal] exit status %d, room: players max %u, inputs used %llu\n",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1, max_players,
           (unsigned long long)rst.inputs_used);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(max_players, 1);
    assert_true(rst.inputs_used > 60);
    srv_close(&sv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_is_checked),
        cmocka_unit_test(test_version_refusal_text_is_shown_as_is),
        cmocka_unit_test(test_wrong_password_is_refused_with_the_servers_text),
        cmocka_unit_test(test_parameter_mismatch_says_bye_and_reports),
        cmocka_unit_test(test_garbage_is_dropped_and_counted),
        cmocka_unit_test(test_bots_race_one_lap_in_sync_with_the_room),
        cmocka_unit_test(test_cars_with_different_parameters_stay_in_sync),
        cmocka_unit_test(test_desync_is_reported_and_repaired_by_a_snapshot),
        cmocka_unit_test(test_a_lossy_link_is_measured_and_survived),
        cmocka_unit_test(test_an_impaired_race_stays_in_sync_with_inputs_in_time),
        cmocka_unit_test(test_connect_times_out_without_a_server),
        cmocka_unit_test(test_bots_connect_over_enet_with_the_cookie),
        cmocka_unit_test(test_minimal_example_runs_against_a_server),
    };
    return cmocka_run_group_tests(tests, scene_setup, scene_teardown);
}
