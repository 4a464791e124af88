/*
 * The client SDK (racesim/client.h) against a real room (server/room)
 * through the in-memory link on a virtual clock of
 * tests/support/room_harness.c: the handshake, the world rebuilt from the
 * room's PARAMS and SNAPSHOT with its hashes checked, a 1-lap race on the
 * oval driven by AI bots (racesim/bot.h) with every confirmed hash matching
 * the room's, refusals whose text reaches the caller as the server wrote
 * it, a parameter mismatch and a corrupted hash (the link rewrites what the
 * room sends), loss and delay, and garbage bytes that are dropped and
 * counted. The race weekend's messages (protocol version 6) through a fake
 * server on a custom transport, its requests checked before they leave, and
 * a timed session's time left against the predicted race clock (the room
 * does not run timed sessions yet: the clients are fed a RACE_STATE that
 * makes its race one).
 * Then the same over real UDP: a tiny ENet
 * server loop in this file (with the connect cookie of SPEC.md section 7)
 * serves a room to bots and to examples/minimal.c run as a child process.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <enet/enet.h>

#include "test_data.h"
#include "racesim/bot.h"
#include "racesim/client.h"
#include "racesim/net.h"
#include "racesim/protocol.h"
#include "racesim/room.h"
#include "racesim/secure.h"
#include "racesim/track.h"
#include "racesim/base/clock.h"
#include "room_harness.h"
#include "test_protocol_support.h"

/* ------------------------------------------------------- the scene */

typedef test_scene scene;

static rs_room_config room_config(const scene *s, uint32_t players)
{
    rs_room_config c = harness_room_config(s, players);
    c.laps = 1;
    c.max_players = 4;
    c.countdown_ticks = 120;
    c.results_ticks = 120;
    c.finish_timeout_ticks = 600;
    return c;
}

/* The scene's room for players behind a link with impairment imp (NULL:
 * perfect), with no clients yet. */
static harness *open_room(const scene *s, uint32_t players, const harness_impair *imp)
{
    rs_room_config rc = room_config(s, players);
    return harness_create(&rc, imp);
}

/* ------------------------------------------- the link's misbehaving server */

/* Rewrites a WELCOME so its first car hash is wrong (a server whose
 * parameters differ from what it sends). */
static void tamper_welcome(void *ctx, rs_room_packet *p)
{
    (void)ctx;
    rs_msg m;
    if (rs_proto_decode(p->data, p->len, &m, NULL) != RS_PROTO_OK || m.type != RS_MSG_WELCOME ||
        m.u.welcome.car_count == 0)
        return;
    m.u.welcome.car_hashes[0] ^= 1;
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, p->data, sizeof p->data, &len, NULL), RS_PROTO_OK);
    p->len = (uint16_t)len;
}

/* The state hash of one tick (the first hashed one from tick 300), as a
 * server whose world went elsewhere would send it in every FRAME. */
typedef struct frame_tamper {
    uint64_t tick;
    uint32_t tampered; /* FRAMEs corrupted */
} frame_tamper;

static void corrupt_frame_hash(void *ctx, rs_room_packet *p)
{
    frame_tamper *ft = ctx;
    rs_msg m;
    if (rs_proto_decode(p->data, p->len, &m, NULL) != RS_PROTO_OK || m.type != RS_MSG_FRAME)
        return;
    bool hit = false;
    for (uint32_t k = 0; k < m.u.frame.hash_count; k++) {
        uint64_t tick = m.u.frame.first_tick + m.u.frame.hashes[k].index;
        if (ft->tick == 0 && tick >= 300)
            ft->tick = tick;
        if (tick == ft->tick) {
            m.u.frame.hashes[k].hash ^= 0x8000;
            hit = true;
        }
    }
    if (!hit)
        return;
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, p->data, sizeof p->data, &len, NULL), RS_PROTO_OK);
    p->len = (uint16_t)len;
    ft->tampered++;
}

/* A transport that carries nothing, for clients whose link never comes up. */
static bool send_nothing(void *ctx, uint8_t channel, bool reliable, const uint8_t *bytes,
                         size_t len)
{
    (void)ctx, (void)channel, (void)reliable, (void)bytes, (void)len;
    return false;
}

static rs_client_config named(const char *name)
{
    rs_client_config c = rs_client_config_default();
    c.name = name;
    return c;
}

static uint32_t add(harness *h, const char *name, harness_driver driver)
{
    rs_client_config c = named(name);
    return harness_add_client(h, &c, driver);
}

static void steps(harness *h, int n, int64_t step_us)
{
    for (int i = 0; i < n; i++)
        harness_step(h, step_us);
}

static rs_client_stats client_stats(harness *h, uint32_t i)
{
    rs_client_stats st;
    rs_client_get_stats(harness_client(h, i), harness_now(h), &st);
    return st;
}

static rs_room_stats room_stats(harness *h)
{
    rs_room_stats st;
    rs_room_get_stats(harness_room(h), &st);
    return st;
}

/* ----------------------------------------------------------- the tests */

/* What one client of the clean race must show. */
static void check_race_client(harness *h, uint32_t i, const scene *s, bool ai)
{
    rs_client *c = harness_client(h, i);
    const harness_events *ev = harness_client_events(h, i);
    harness_client_stats cs;
    harness_client_stats_get(h, i, &cs);
    const rs_client_stats *st = &cs.sdk;
    printf("[race] client %u: hashes %llu desyncs %llu rollbacks %llu depth p50/p99/max "
           "%u/%u/%u rtt %.1f ms lead %d ms (target %.0f) late %u frames %llu "
           "unresolvable %llu in %llu B out %llu B malformed %llu loss %.3f\n",
           i, (unsigned long long)st->hashes_checked, (unsigned long long)st->desyncs,
           (unsigned long long)st->rollbacks, st->depth_p50, st->depth_p99, st->depth_max,
           st->rtt_ms, st->input_lead_ms, st->target_lead_ms, st->late_inputs,
           (unsigned long long)st->frames, (unsigned long long)st->frames_unresolvable,
           (unsigned long long)st->bytes_in, (unsigned long long)st->bytes_out,
           (unsigned long long)st->malformed, st->loss);
    printf("  events: world %u race_state %u laps %u sectors %u collisions %u finish %u\n",
           ev->count[RS_CLIENT_EV_WORLD_READY], ev->count[RS_CLIENT_EV_RACE_STATE],
           ev->count[RS_CLIENT_EV_LAP], ev->count[RS_CLIENT_EV_SECTOR],
           ev->count[RS_CLIENT_EV_COLLISION], ev->count[RS_CLIENT_EV_FINISH]);
    assert_int_equal(ev->count[RS_CLIENT_EV_CONNECTED], 1);
    /* CONNECTED came in the lobby: it says player or spectator, and names
     * no car (the car comes with the race's world). */
    assert_int_equal(ev->last[RS_CLIENT_EV_CONNECTED].u.connected.spectator, !ai);
    assert_int_equal(ev->last[RS_CLIENT_EV_CONNECTED].u.connected.tick_hz, 60);
    assert_true(ev->count[RS_CLIENT_EV_WORLD_READY] >= 1);
    assert_int_equal(ev->last[RS_CLIENT_EV_WORLD_READY].u.world.track_hash,
                     rs_track_hash(s->track));
    /* The first WELCOME came in the lobby (no cars); the race's WELCOME
     * named the stock car for every seat. */
    rs_msg_welcome wel;
    assert_true(rs_client_welcome(c, &wel));
    assert_int_equal(wel.car_count, 3);
    for (uint32_t k = 0; k < 3; k++)
        assert_int_equal(wel.car_hashes[k], rs_car_params_hash(s->car));
    assert_int_equal(ev->count[RS_CLIENT_EV_RESULTS], 1);
    assert_int_equal(ev->count[RS_CLIENT_EV_ERROR], 0);
    assert_int_equal(ev->count[RS_CLIENT_EV_DISCONNECTED], 0);
    assert_int_equal(st->desyncs, 0);
    assert_int_equal(st->malformed, 0);
    assert_true(st->loss < 0.01); /* a perfect link */
    assert_true(st->hashes_checked > 50);
    /* Every hashed tick the client confirmed matched the room's hash (the
     * predictor checks each one); the confirmed tick is close to the room's. */
    assert_true(st->confirmed_tick + 10 >= room_stats(h).tick);
    if (!ai) {
        assert_int_equal(rs_client_car(c), 0);
        assert_true(ev->count[RS_CLIENT_EV_LAP] >= 2);
        return;
    }
    assert_int_equal(cs.bot.laps, 1);
    assert_true(cs.bot.finished);
    assert_int_equal(ev->count[RS_CLIENT_EV_FINISH], 1);
    /* FINISH carries the server's finishing position, which is the car's
     * row in RESULTS (rows come in finishing order). */
    const rs_client_finish *fin = &ev->last[RS_CLIENT_EV_FINISH].u.finish;
    const rs_msg_results *res = &ev->last[RS_CLIENT_EV_RESULTS].u.results;
    assert_true(fin->position >= 1 && fin->position <= res->count);
    assert_int_equal(res->rows[fin->position - 1].car, rs_client_car(c));
    assert_int_equal(ev->last[RS_CLIENT_EV_LAP].u.lap.position >= 1, true);
    assert_true(ev->count[RS_CLIENT_EV_SECTOR] >= 1);
    assert_true(st->late_inputs < 5);
    assert_int_equal(cs.bot.line_builds, 1);
    /* A pose for rendering, near the car's predicted position. */
    rs_predict_pose pose;
    assert_int_equal(rs_client_pose(c, rs_client_car(c), harness_now(h), &pose), RS_CLIENT_OK);
}

static void test_bots_race_one_lap_in_sync_with_the_room(void **state)
{
    scene *s = *state;
    harness *h = open_room(s, 3, NULL);
    rs_client_config w = named("wes"), d = named("dot");
    w.spectator = true;
    d.simulate = false; /* a light bot, as load tests use */
    add(h, "ann", HARNESS_AI);
    add(h, "bob", HARNESS_AI);
    uint32_t spec = harness_add_client(h, &w, HARNESS_PLAIN);
    uint32_t light = harness_add_client(h, &d, HARNESS_LIGHT);
    int64_t limit = harness_now(h) + 120 * 1000000LL;
    bool results = false;
    int64_t results_at = 0;
    while (harness_now(h) < limit) {
        harness_step(h, 2000);
        if (room_stats(h).phase == RS_PHASE_RESULTS && !results) {
            results = true;
            results_at = harness_now(h);
        }
        if (results && harness_now(h) - results_at > 500000)
            break;
    }
    assert_true(results);
    for (uint32_t i = 0; i <= spec; i++)
        check_race_client(h, i, s, i != spec);
    /* The light bot followed the lockstep without a world: its inputs
     * arrived in time and it confirmed every tick. */
    {
        rs_client_stats st = client_stats(h, light);
        rs_room_stats rst = room_stats(h);
        const harness_events *ev = harness_client_events(h, light);
        printf("[race] light bot: confirmed %llu present %llu lead %d ms late %u frames %llu "
               "in %llu B out %llu B\n",
               (unsigned long long)st.confirmed_tick, (unsigned long long)st.present_tick,
               st.input_lead_ms, st.late_inputs, (unsigned long long)st.frames,
               (unsigned long long)st.bytes_in, (unsigned long long)st.bytes_out);
        assert_null(rs_client_world(harness_client(h, light)));
        assert_int_equal(rs_client_car(harness_client(h, light)), 3);
        assert_true(ev->count[RS_CLIENT_EV_WORLD_READY] >= 1);
        assert_int_equal(ev->count[RS_CLIENT_EV_RESULTS], 1);
        assert_int_equal(ev->count[RS_CLIENT_EV_ERROR], 0);
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
    for (uint32_t i = 0; i <= light; i++) {
        rs_client_disconnect(harness_client(h, i), harness_now(h));
        harness_step(h, 2000);
        assert_int_equal(rs_client_get_state(harness_client(h, i)), RS_CLIENT_CLOSED);
        assert_int_equal(harness_client_events(h, i)->count[RS_CLIENT_EV_DISCONNECTED], 1);
    }
    steps(h, 2, 2000);
    assert_int_equal(room_stats(h).players + room_stats(h).spectators, 0);
    harness_destroy(h);
}

/* The race ends when its last car takes the flag, while that car's LAP
 * still waits for the database's flags (defer_laps; none come here, as from
 * a slow database): every client still gets every LAP, and the finisher its
 * FINISH, before RESULTS, whose rows come in finishing order. */
static void test_every_lap_and_finish_come_before_results(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 3);
    rc.defer_laps = true;
    harness *h = harness_create(&rc, NULL);
    rs_client_config w = named("wes");
    w.spectator = true;
    add(h, "ann", HARNESS_AI);
    add(h, "bob", HARNESS_AI);
    uint32_t spec = harness_add_client(h, &w, HARNESS_PLAIN);
    uint32_t laps_at_results[3] = {0}, finishes_at_results[3] = {0};
    bool seen[3] = {false};
    uint32_t with_results = 0;
    /* Each client's live standings 0.3 s into the results phase, when the
     * finishes are confirmed (the next race's world comes 2 s later). */
    rs_standing standings[3][4];
    uint32_t standing_rows[3] = {0};
    int64_t results_phase_at = 0;
    int64_t limit = harness_now(h) + 120 * 1000000LL;
    while (harness_now(h) < limit && with_results < 3) {
        harness_step(h, 2000);
        if (!results_phase_at && room_stats(h).phase == RS_PHASE_RESULTS)
            results_phase_at = harness_now(h);
        if (results_phase_at && !standing_rows[0] && harness_now(h) - results_phase_at >= 300000)
            for (uint32_t i = 0; i <= spec; i++)
                standing_rows[i] = rs_client_standings(harness_client(h, i), standings[i], 4);
        for (uint32_t i = 0; i <= spec; i++) {
            const harness_events *ev = harness_client_events(h, i);
            if (ev->count[RS_CLIENT_EV_RESULTS] == 1 && !seen[i]) {
                seen[i] = true;
                laps_at_results[i] = ev->count[RS_CLIENT_EV_LAP];
                finishes_at_results[i] = ev->count[RS_CLIENT_EV_FINISH];
                with_results++;
            }
        }
    }
    assert_int_equal(with_results, 3);
    for (uint32_t i = 0; i <= spec; i++) {
        const harness_events *ev = harness_client_events(h, i);
        const rs_msg_results *res = &ev->last[RS_CLIENT_EV_RESULTS].u.results;
        printf("[finish] client %u: %u LAPs and %u FINISH before RESULTS; rows:", i,
               laps_at_results[i], finishes_at_results[i]);
        for (uint32_t k = 0; k < res->count; k++)
            printf(" P%u car %u %.3f s", res->rows[k].position, res->rows[k].car,
                   (double)res->rows[k].finish_us / 1e6);
        printf("\n");
        assert_int_equal(laps_at_results[i], 2); /* both cars' only lap */
        assert_int_equal(finishes_at_results[i], i == spec ? 0 : 1);
        assert_int_equal(res->count, 2);
        assert_true(res->rows[0].finish_us >= 0 && res->rows[0].finish_us <= res->rows[1].finish_us);
        if (i != spec) {
            const rs_client_finish *fin = &ev->last[RS_CLIENT_EV_FINISH].u.finish;
            assert_int_equal(res->rows[fin->position - 1].car, rs_client_car(harness_client(h, i)));
        }
        /* The live standings of the predicted world said the same, with
         * the gap at the flag. */
        const rs_standing *st = standings[i];
        assert_int_equal(standing_rows[i], 2);
        for (uint32_t k = 0; k < 2; k++) {
            assert_int_equal(st[k].car, res->rows[k].car);
            assert_int_equal(st[k].position, k + 1);
            assert_true(st[k].finish_us == res->rows[k].finish_us);
        }
        assert_true(st[0].gap_us == 0);
        assert_true(st[1].gap_us == res->rows[1].finish_us - res->rows[0].finish_us);
        assert_int_equal(st[1].laps_behind, 0);
    }
    harness_destroy(h);
}

static void test_wrong_password_is_refused_with_the_servers_text(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 2);
    rc.password = "sesame";
    harness *h = harness_create(&rc, NULL);
    rs_client_config bad = named("eve");
    bad.password = "guess";
    uint32_t e = harness_add_client(h, &bad, HARNESS_PLAIN);
    steps(h, 10, 2000);
    const harness_events *ev = harness_client_events(h, e);
    assert_int_equal(ev->count[RS_CLIENT_EV_REFUSED], 1);
    assert_int_equal(ev->last[RS_CLIENT_EV_REFUSED].u.refused.reason, RS_REASON_PASSWORD);
    assert_true(strlen(ev->last[RS_CLIENT_EV_REFUSED].u.refused.text) > 0);
    assert_int_equal(ev->count[RS_CLIENT_EV_DISCONNECTED], 1);
    assert_int_equal(ev->last[RS_CLIENT_EV_DISCONNECTED].u.disconnected.reason,
                     RS_REASON_PASSWORD);
    assert_int_equal(rs_client_get_state(harness_client(h, e)), RS_CLIENT_CLOSED);
    assert_int_equal(ev->count[RS_CLIENT_EV_CONNECTED], 0);

    /* The right password is welcome. */
    rs_client_config good = named("ada");
    good.password = "sesame";
    uint32_t g = harness_add_client(h, &good, HARNESS_PLAIN);
    steps(h, 10, 2000);
    assert_int_equal(harness_client_events(h, g)->count[RS_CLIENT_EV_CONNECTED], 1);
    assert_int_equal(rs_client_get_state(harness_client(h, g)), RS_CLIENT_CONNECTED);
    harness_destroy(h);
}

/* A REFUSE for another protocol version, as a server of another version
 * sends it: its text reaches the caller as is. */
static void test_version_refusal_text_is_shown_as_is(void **state)
{
    (void)state;
    rs_client_config cfg = named("old");
    rs_client_transport t = {NULL, send_nothing, NULL};
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

/* ----------------------------------------------- race weekends (version 6) */

/* A transport that keeps what the client sends, as a fake server sees it. */
typedef struct capture {
    uint32_t n;
    uint8_t channel[32];
    size_t len[32];
    uint8_t bytes[32][RS_PROTO_MAX_PACKET];
} capture;

static bool capture_send(void *ctx, uint8_t channel, bool reliable, const uint8_t *bytes,
                         size_t len)
{
    capture *cap = ctx;
    (void)reliable;
    assert_true(cap->n < 32 && len <= RS_PROTO_MAX_PACKET);
    cap->channel[cap->n] = channel;
    cap->len[cap->n] = len;
    memcpy(cap->bytes[cap->n], bytes, len);
    cap->n++;
    return true;
}

/* The last message the client sent, decoded; it must be of type. */
static void last_sent(const capture *cap, uint8_t type, rs_msg *out)
{
    assert_true(cap->n > 0);
    assert_int_equal(rs_proto_decode(cap->bytes[cap->n - 1], cap->len[cap->n - 1], out, NULL),
                     RS_PROTO_OK);
    assert_int_equal(out->type, type);
    uint8_t ch = 99;
    assert_true(rs_proto_msg_info(type, &ch, NULL, NULL));
    assert_int_equal(cap->channel[cap->n - 1], ch);
}

/* m as the server sends it: encoded, on its channel. The encoding is kept
 * in bytes (RS_PROTO_MAX_PACKET) when not NULL. */
static size_t feed(rs_client *c, const rs_msg *m, int64_t now_us, uint8_t *bytes)
{
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    assert_int_equal(rs_proto_encode(m, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    uint8_t ch = 0;
    assert_true(rs_proto_msg_info(m->type, &ch, NULL, NULL));
    rs_client_receive(c, ch, buf, len, now_us);
    if (bytes)
        memcpy(bytes, buf, len);
    return len;
}

/* An event's payload, as the message it came from, encodes to want's
 * bytes: every field arrived (strings compared up to their NUL). */
static void assert_payload(uint8_t type, const void *payload, size_t size, const uint8_t *want,
                           size_t want_len)
{
    static rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = type;
    memcpy(&m.u, payload, size);
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    assert_int_equal(len, want_len);
    assert_memory_equal(buf, want, len);
}

/* The race weekend's messages from a server (fed through a custom
 * transport) become events, copied whole, and none counts as malformed;
 * the newest WEEKEND and the session are kept; chat, commands and
 * standings requests go out only when the server would accept them. */
static void test_race_weekend_messages_and_requests(void **state)
{
    (void)state;
    static capture cap;
    memset(&cap, 0, sizeof cap);
    rs_client_config cfg = named("wkd");
    rs_client_transport t = {&cap, capture_send, NULL};
    rs_client *c = NULL;
    assert_int_equal(rs_client_create_custom(&cfg, &t, 0, &c, NULL, 0), RS_CLIENT_OK);
    uint32_t id = 77;
    /* Not connected: a request the wire can carry waits for a connection,
     * one it cannot is refused as such first. */
    assert_int_equal(rs_client_chat(c, NULL, "hello"), RS_CLIENT_ERR_STATE);
    assert_int_equal(rs_client_chat(c, NULL, "hello\n"), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_client_command(c, RS_CMD_VOTE_SKIP, NULL, &id), RS_CLIENT_ERR_STATE);
    assert_int_equal(id, 0);
    assert_int_equal(cap.n, 0);
    rs_client_session_info si;
    rs_msg_weekend wk;
    assert_false(rs_client_session(c, &si));
    assert_false(rs_client_weekend(c, &wk));

    rs_client_transport_up(c, 1000);
    static rs_msg m, sent;
    last_sent(&cap, RS_MSG_HELLO, &sent);
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_WELCOME;
    m.u.welcome = (rs_msg_welcome){.room_id = 1,
                                   .tick_hz = 60,
                                   .substeps = 4,
                                   .hash_interval = 30,
                                   .physics_version = RS_PHYSICS_VERSION,
                                   .tick = 500};
    feed(c, &m, 2000, NULL);
    rs_client_event ev;
    assert_true(rs_client_poll_event(c, &ev));
    assert_int_equal(ev.type, RS_CLIENT_EV_CONNECTED);

    /* Every message a server may send about the weekend, each an event. */
    static const struct {
        uint8_t msg, event;
    } kinds[] = {
        {RS_MSG_WEEKEND, RS_CLIENT_EV_WEEKEND},
        {RS_MSG_PENALTY, RS_CLIENT_EV_PENALTY},
        {RS_MSG_CHAT_MSG, RS_CLIENT_EV_CHAT},
        {RS_MSG_COMMAND_REPLY, RS_CLIENT_EV_COMMAND_REPLY},
        {RS_MSG_VOTE_STATE, RS_CLIENT_EV_VOTE},
        {RS_MSG_STANDINGS_REPLY, RS_CLIENT_EV_STANDINGS},
    };
    uint8_t bytes[RS_PROTO_MAX_PACKET];
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        proto_sample(kinds[k].msg, &m);
        size_t len = feed(c, &m, 3000, bytes);
        assert_true(rs_client_poll_event(c, &ev));
        assert_int_equal(ev.type, kinds[k].event);
        switch (ev.type) {
        case RS_CLIENT_EV_WEEKEND:
            assert_payload(m.type, &ev.u.weekend, sizeof ev.u.weekend, bytes, len);
            break;
        case RS_CLIENT_EV_PENALTY:
            assert_payload(m.type, &ev.u.penalty, sizeof ev.u.penalty, bytes, len);
            break;
        case RS_CLIENT_EV_CHAT:
            assert_payload(m.type, &ev.u.chat, sizeof ev.u.chat, bytes, len);
            break;
        case RS_CLIENT_EV_COMMAND_REPLY:
            assert_payload(m.type, &ev.u.command, sizeof ev.u.command, bytes, len);
            break;
        case RS_CLIENT_EV_VOTE:
            assert_payload(m.type, &ev.u.vote, sizeof ev.u.vote, bytes, len);
            break;
        default:
            assert_payload(m.type, &ev.u.standings, sizeof ev.u.standings, bytes, len);
        }
        assert_false(rs_client_poll_event(c, &ev));
    }
    rs_client_stats st;
    rs_client_get_stats(c, 3000, &st);
    assert_int_equal(st.malformed, 0);
    /* The newest weekend is kept. */
    proto_sample(RS_MSG_WEEKEND, &m);
    assert_true(rs_client_weekend(c, &wk));
    assert_int_equal(wk.weekend, m.u.weekend.weekend);
    m.u.weekend.weekend++;
    m.u.weekend.session_count = 1;
    strcpy(m.u.weekend.championship, "");
    size_t len = feed(c, &m, 4000, bytes);
    assert_true(rs_client_poll_event(c, &ev));
    assert_true(rs_client_weekend(c, &wk));
    assert_payload(RS_MSG_WEEKEND, &wk, sizeof wk, bytes, len);

    /* The session of the last RACE_STATE. The sample's timed race has the
     * flag out: no time left. */
    proto_sample(RS_MSG_RACE_STATE, &m);
    feed(c, &m, 5000, NULL);
    assert_true(rs_client_session(c, &si));
    assert_int_equal(si.index, RS_PROTO_MAX_SESSIONS - 1);
    assert_int_equal(si.type, RS_SESSION_RACE);
    assert_int_equal(si.laps, 0);
    assert_int_equal(si.time_limit_ms, 45u * 60u * 1000u);
    assert_true(si.chequered);
    assert_true(si.time_left_ms == 0);
    /* Without the session's world the clock has not started for the
     * client; a lap-limited session has no time to count down. */
    m.u.race_state.flags = 0;
    feed(c, &m, 6000, NULL);
    assert_true(rs_client_session(c, &si));
    assert_false(si.chequered);
    assert_true(si.time_left_ms == 45 * 60 * 1000);
    m.u.race_state.time_limit_ms = 0;
    m.u.race_state.laps = 12;
    m.u.race_state.session_type = RS_SESSION_QUALIFYING;
    feed(c, &m, 7000, NULL);
    assert_true(rs_client_session(c, &si));
    assert_int_equal(si.laps, 12);
    assert_int_equal(si.type, RS_SESSION_QUALIFYING);
    assert_true(si.time_left_ms == -1);
    while (rs_client_poll_event(c, &ev))
        assert_int_equal(ev.type, RS_CLIENT_EV_RACE_STATE);

    /* Chat: to the room or a player, with internal spaces and any script. */
    uint32_t before = cap.n;
    const char *line = "gg  wp \xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x8f\x81";
    assert_int_equal(rs_client_chat(c, NULL, line), RS_CLIENT_OK);
    last_sent(&cap, RS_MSG_CHAT, &sent);
    assert_string_equal(sent.u.chat.to, "");
    assert_string_equal(sent.u.chat.text, line);
    assert_int_equal(rs_client_chat(c, "Kimi R\xc3\xa4ikk\xc3\xb6nen", "hi"), RS_CLIENT_OK);
    last_sent(&cap, RS_MSG_CHAT, &sent);
    assert_string_equal(sent.u.chat.to, "Kimi R\xc3\xa4ikk\xc3\xb6nen");
    assert_int_equal(cap.n, before + 2);
    /* ...never what the server would refuse: nothing is sent. */
    char long_text[RS_PROTO_TEXT_MAX + 2];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    const char *bad_texts[] = {"", "two\nlines", "tab\there", "over\xe2\x80\xaeride",
                               "sep\xe2\x80\xa8", "cut\xe2\x82", long_text, NULL};
    for (size_t k = 0; k < sizeof bad_texts / sizeof bad_texts[0]; k++)
        assert_int_equal(rs_client_chat(c, NULL, bad_texts[k]), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_client_chat(c, " Kimi", "hi"), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_client_chat(c, "0123456789abcdef0123456789abcdefX", "hi"),
                     RS_CLIENT_ERR_ARG);
    long_text[RS_PROTO_TEXT_MAX] = '\0'; /* 200 bytes: the most */
    assert_int_equal(rs_client_chat(c, NULL, long_text), RS_CLIENT_OK);
    assert_int_equal(cap.n, before + 3);

    /* Commands: each its own request id, echoed by the reply. */
    uint32_t id2 = 0;
    assert_int_equal(rs_client_command(c, RS_CMD_VOTE_KICK, "griefer", &id), RS_CLIENT_OK);
    assert_true(id != 0);
    last_sent(&cap, RS_MSG_COMMAND, &sent);
    assert_int_equal(sent.u.command.request_id, id);
    assert_int_equal(sent.u.command.command, RS_CMD_VOTE_KICK);
    assert_string_equal(sent.u.command.arg, "griefer");
    assert_int_equal(rs_client_command(c, RS_CMD_VOTE_YES, NULL, &id2), RS_CLIENT_OK);
    assert_true(id2 != 0 && id2 != id);
    last_sent(&cap, RS_MSG_COMMAND, &sent);
    assert_int_equal(sent.u.command.request_id, id2);
    assert_string_equal(sent.u.command.arg, "");
    assert_int_equal(rs_client_command(c, RS_CMD_SELECT_CAR, "gt3 wet", NULL), RS_CLIENT_OK);
    before = cap.n;
    assert_int_equal(rs_client_command(c, RS_CMD_COUNT, NULL, &id), RS_CLIENT_ERR_ARG);
    assert_int_equal(id, 0);
    assert_int_equal(rs_client_command(c, RS_CMD_MUTE, "bad\tname", &id), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_client_command(c, RS_CMD_VOTE_TRACK, long_text, &id), RS_CLIENT_ERR_ARG);
    assert_int_equal(cap.n, before);

    /* Standings. */
    assert_int_equal(rs_client_standings_request(c, NULL, "GT3", 20, RS_PROTO_STANDINGS_ROWS, &id),
                     RS_CLIENT_OK);
    last_sent(&cap, RS_MSG_STANDINGS_REQUEST, &sent);
    assert_int_equal(sent.u.standings_request.request_id, id);
    assert_string_equal(sent.u.standings_request.championship, "");
    assert_string_equal(sent.u.standings_request.class_name, "GT3");
    assert_int_equal(sent.u.standings_request.offset, 20);
    assert_int_equal(sent.u.standings_request.count, RS_PROTO_STANDINGS_ROWS);
    before = cap.n;
    assert_int_equal(rs_client_standings_request(c, NULL, NULL, 0, 0, &id), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_client_standings_request(c, NULL, NULL, 0, RS_PROTO_STANDINGS_ROWS + 1,
                                                 &id),
                     RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_client_standings_request(c, NULL, NULL, RS_PROTO_LIST_OFFSET_MAX + 1, 1,
                                                 &id),
                     RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_client_standings_request(c, "Cup ", NULL, 0, 1, &id), RS_CLIENT_ERR_ARG);
    assert_int_equal(cap.n, before);

    rs_client_disconnect(c, 8000);
    assert_int_equal(rs_client_chat(c, NULL, "bye"), RS_CLIENT_ERR_STATE);
    assert_int_equal(rs_client_standings_request(c, NULL, NULL, 0, 1, &id), RS_CLIENT_ERR_STATE);
    assert_int_equal(id, 0);
    assert_int_equal(rs_client_chat(NULL, NULL, "x"), RS_CLIENT_ERR_ARG);
    rs_client_destroy(c);
}

/* A RACE_STATE for client i's running race that makes it a timed session
 * of limit_ms with flags (laps 0), as a server running timed sessions
 * would send it; the client's own copy is returned in *was. */
static void make_timed(harness *h, uint32_t i, uint32_t limit_ms, uint8_t flags,
                       rs_msg_race_state *was)
{
    rs_client *c = harness_client(h, i);
    assert_true(rs_client_race_state(c, was));
    rs_msg m = {.type = RS_MSG_RACE_STATE, .u.race_state = *was};
    m.u.race_state.laps = 0;
    m.u.race_state.time_limit_ms = limit_ms;
    m.u.race_state.flags = flags;
    feed(c, &m, harness_now(h), NULL);
}

static void restore_race_state(harness *h, uint32_t i, const rs_msg_race_state *was)
{
    rs_msg m = {.type = RS_MSG_RACE_STATE, .u.race_state = *was};
    feed(harness_client(h, i), &m, harness_now(h), NULL);
}

/* A timed session's time left counts down with the client's own race
 * clock: the predicted world's, or a light client's present tick, from
 * lights out; before it, the whole limit; once the flag is out, none. */
static void test_session_time_left_follows_the_predicted_race_clock(void **state)
{
    scene *s = *state;
    harness *h = open_room(s, 2, NULL);
    rs_client_config lc = named("lit");
    lc.simulate = false;
    uint32_t full = add(h, "sim", HARNESS_AI);
    uint32_t light = harness_add_client(h, &lc, HARNESS_LIGHT);
    const uint32_t limit_ms = 20 * 60 * 1000;
    rs_msg_race_state was;
    rs_client_session_info si;
    /* The countdown, both worlds built: the clock has not started. */
    for (int i = 0; i < 20000 && !(room_stats(h).phase == RS_PHASE_COUNTDOWN &&
                                   rs_client_world(harness_client(h, full)) &&
                                   rs_client_car(harness_client(h, light)));
         i++)
        harness_step(h, 2000);
    assert_int_equal(room_stats(h).phase, RS_PHASE_COUNTDOWN);
    for (uint32_t i = full; i <= light; i++) {
        make_timed(h, i, limit_ms, 0, &was);
        assert_true(rs_client_session(harness_client(h, i), &si));
        assert_true(si.time_left_ms == limit_ms);
        restore_race_state(h, i, &was);
    }
    /* Three seconds after lights out. */
    for (int i = 0; i < 20000 && room_stats(h).phase != RS_PHASE_RACE; i++)
        harness_step(h, 2000);
    steps(h, 1500, 2000);
    rs_client *c = harness_client(h, full);
    make_timed(h, full, limit_ms, 0, &was);
    int64_t clock_us = rs_world_race_time_us(rs_client_world(c));
    assert_true(rs_client_session(c, &si));
    printf("[session] race clock %.3f s, time left %.3f s\n", (double)clock_us / 1e6,
           (double)si.time_left_ms / 1e3);
    assert_true(clock_us > 2000000);
    assert_true(si.time_left_ms == (int64_t)limit_ms - clock_us / 1000);
    make_timed(h, full, limit_ms, RS_SESSION_CHEQUERED, &was);
    assert_true(rs_client_session(c, &si));
    assert_true(si.time_left_ms == 0);
    /* Shorter than the race so far: the time ran out, not below 0. */
    make_timed(h, full, 1000, 0, &was);
    assert_true(rs_client_session(c, &si));
    assert_true(si.time_left_ms == 0);
    restore_race_state(h, full, &was);
    /* The light client's clock is its present tick. */
    c = harness_client(h, light);
    make_timed(h, light, limit_ms, 0, &was);
    rs_client_stats st;
    rs_client_get_stats(c, harness_now(h), &st);
    int64_t ticks = (int64_t)st.present_tick - (int64_t)was.start_tick;
    assert_true(rs_client_session(c, &si));
    printf("[session] light client: %lld ticks since lights out, time left %.3f s\n",
           (long long)ticks, (double)si.time_left_ms / 1e3);
    assert_true(ticks > 120);
    assert_true(si.time_left_ms == (int64_t)limit_ms - ticks * 1000 / 60);
    restore_race_state(h, light, &was);
    /* The injected states changed nothing for the race. */
    steps(h, 100, 2000);
    for (uint32_t i = full; i <= light; i++) {
        rs_client_stats cs = client_stats(h, i);
        assert_int_equal(cs.desyncs, 0);
        assert_int_equal(cs.malformed, 0);
        assert_int_equal(rs_client_get_state(harness_client(h, i)), RS_CLIENT_CONNECTED);
    }
    harness_destroy(h);
}

static void test_parameter_mismatch_says_bye_and_reports(void **state)
{
    scene *s = *state;
    harness *h = open_room(s, 1, NULL);
    uint32_t e = add(h, "mal", HARNESS_PLAIN);
    harness_client_tamper(h, e, tamper_welcome, NULL);
    rs_client *c = harness_client(h, e);
    /* The client waits up to 30 s for a matching WELCOME (client_world.c). */
    for (int i = 0; i < 20000 && rs_client_get_state(c) != RS_CLIENT_CLOSED; i++)
        harness_step(h, 2000);
    steps(h, 1, 2000); /* the last events */
    const harness_events *ev = harness_client_events(h, e);
    if (ev->count[RS_CLIENT_EV_DISCONNECTED])
        printf("[params] disconnected: reason %u \"%s\"\n",
               (unsigned)ev->last[RS_CLIENT_EV_DISCONNECTED].u.disconnected.reason,
               ev->last[RS_CLIENT_EV_DISCONNECTED].u.disconnected.text);
    assert_int_equal(ev->count[RS_CLIENT_EV_WORLD_READY], 0);
    assert_int_equal(ev->count[RS_CLIENT_EV_ERROR], 1);
    assert_int_equal(ev->last[RS_CLIENT_EV_ERROR].u.error.code, RS_CLIENT_ERROR_PARAMS);
    printf("[params] \"%s\"\n", ev->last[RS_CLIENT_EV_ERROR].u.error.text);
    assert_int_equal(ev->count[RS_CLIENT_EV_DISCONNECTED], 1);
    assert_int_equal(ev->last[RS_CLIENT_EV_DISCONNECTED].u.disconnected.reason, RS_REASON_PARAMS);
    assert_false(harness_client_linked(h, e)); /* the link was closed */
    harness_destroy(h);
}

static void test_garbage_is_dropped_and_counted(void **state)
{
    scene *s = *state;
    harness *h = open_room(s, 1, NULL);
    uint32_t e = add(h, "gus", HARNESS_LIGHT);
    rs_client *c = harness_client(h, e);
    steps(h, 20, 2000);
    assert_int_equal(harness_client_events(h, e)->count[RS_CLIENT_EV_CONNECTED], 1);
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
        uint64_t before = client_stats(h, e).malformed;
        rs_client_receive(c, (uint8_t)(k % 4), buf, len, harness_now(h));
        injected += client_stats(h, e).malformed - before;
    }
    rs_client_receive(c, RS_CH_CONTROL, NULL, 0, harness_now(h));
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_HELLO;
    m.u.hello.protocol_version = RS_PROTO_VERSION;
    m.u.hello.physics_version = RS_PHYSICS_VERSION;
    strcpy(m.u.hello.name, "x");
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    rs_client_receive(c, RS_CH_CONTROL, buf, len, harness_now(h));
    rs_client_stats st = client_stats(h, e);
    printf("[garbage] %llu of 4000 random packets dropped as malformed, %llu total\n",
           (unsigned long long)injected, (unsigned long long)st.malformed);
    assert_true(injected > 3000);
    assert_int_equal(st.malformed, injected + 2);
    /* Still connected, and a world is still built and raced. */
    steps(h, 3000, 2000);
    assert_int_equal(rs_client_get_state(c), RS_CLIENT_CONNECTED);
    assert_true(harness_client_events(h, e)->count[RS_CLIENT_EV_WORLD_READY] >= 1);
    st = client_stats(h, e);
    assert_int_equal(st.desyncs, 0);
    assert_true(st.hashes_checked > 10);
    harness_destroy(h);
}

/* The stats say how long the server has been silent: a HUD can show a
 * stalled link long before the timeout, while the RTT keeps its last
 * measurement. */
static void test_stats_say_how_long_the_server_has_been_silent(void **state)
{
    scene *s = *state;
    harness *h = open_room(s, 1, NULL);
    uint32_t e = add(h, "sil", HARNESS_LIGHT);
    for (int i = 0; i < 5000 && room_stats(h).phase != RS_PHASE_COUNTDOWN; i++)
        harness_step(h, 2000);
    steps(h, 50, 2000);
    rs_client *c = harness_client(h, e);
    assert_int_equal(rs_client_get_state(c), RS_CLIENT_CONNECTED);
    rs_client_stats st;
    rs_client_get_stats(c, harness_now(h), &st);
    assert_true(st.silent_ms < 100.0); /* FRAMEs every tick or two */
    /* Nothing arrives for 1.5 s (the harness is not stepped). */
    double before = st.silent_ms;
    rs_client_get_stats(c, harness_now(h) + 1500000, &st);
    assert_float_equal(st.silent_ms, before + 1500.0, 1e-6);
    assert_true(st.rtt_ms > 0.0);
    harness_destroy(h);
}

static void test_config_is_checked(void **state)
{
    (void)state;
    rs_client_config cfg = rs_client_config_default();
    rs_client_transport t = {NULL, send_nothing, NULL};
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
    harness *h = open_room(s, 3, NULL);
    add(h, "ann", HARNESS_AI);
    uint32_t bob = add(h, "bob", HARNESS_AI);
    steps(h, 10, 2000);
    /* Bob drives the formula car from the next race on; the third player
     * starts it. */
    assert_int_equal(rs_room_set_seat_car(harness_room(h), "bob", formula, 0), RS_OK);
    add(h, "cyd", HARNESS_AI);
    steps(h, 4000, 2000);
    uint64_t stock = rs_car_params_hash(s->car), f = rs_car_params_hash(formula);
    assert_true(stock != f);
    for (uint32_t i = 0; i < 3; i++) {
        rs_client *c = harness_client(h, i);
        rs_client_stats st = client_stats(h, i);
        rs_msg_welcome w;
        assert_true(rs_client_welcome(c, &w));
        printf("[tuned] client %u: car %u, hashes %llu desyncs %llu\n", i, rs_client_car(c),
               (unsigned long long)st.hashes_checked, (unsigned long long)st.desyncs);
        assert_int_equal(w.car_count, 3);
        assert_int_equal(w.car_hashes[0], stock);
        assert_int_equal(w.car_hashes[1], f);
        assert_int_equal(w.car_hashes[2], stock);
        assert_int_equal(rs_car_params_hash(rs_client_car_params(c, 2)), f);
        assert_int_equal(harness_client_events(h, i)->count[RS_CLIENT_EV_ERROR], 0);
        assert_int_equal(st.desyncs, 0);
        assert_true(st.hashes_checked > 10);
    }
    harness_client_stats cs;
    harness_client_stats_get(h, bob, &cs);
    assert_int_equal(cs.bot.line_builds, 1);
    harness_destroy(h);
    rs_car_params_destroy(formula);
}

/* A confirmed state whose hash differs from the server's: the client
 * reports it (DESYNC_REPORT), raises an ERROR event, counts it, asks for a
 * snapshot and carries on in sync from the new world. */
static void test_desync_is_reported_and_repaired_by_a_snapshot(void **state)
{
    scene *s = *state;
    harness *h = open_room(s, 1, NULL);
    uint32_t e = add(h, "des", HARNESS_AI);
    frame_tamper ft = {0, 0};
    harness_client_tamper(h, e, corrupt_frame_hash, &ft);
    steps(h, 4000, 2000);
    const harness_events *ev = harness_client_events(h, e);
    rs_client_stats st = client_stats(h, e);
    rs_room_stats rst = room_stats(h);
    printf("[desync] errors %u (\"%s\"), desyncs %llu, worlds %u, hashes %llu; room: desync "
           "reports %llu, snapshots sent %llu\n",
           ev->count[RS_CLIENT_EV_ERROR], ev->last[RS_CLIENT_EV_ERROR].u.error.text,
           (unsigned long long)st.desyncs, ev->count[RS_CLIENT_EV_WORLD_READY],
           (unsigned long long)st.hashes_checked, (unsigned long long)rst.desync_reports,
           (unsigned long long)rst.snapshots_sent);
    assert_true(ft.tampered >= 1);
    /* Every FRAME that repeats the corrupted tick may hit a fresh world
     * again (the room's snapshot can predate it): each episode is reported
     * once, and each ends in a new world. */
    assert_true(st.desyncs >= 1 && st.desyncs <= 3);
    assert_int_equal(ev->count[RS_CLIENT_EV_ERROR], st.desyncs);
    assert_int_equal(ev->last[RS_CLIENT_EV_ERROR].u.error.code, RS_CLIENT_ERROR_DESYNC);
    assert_int_equal(rst.desync_reports, st.desyncs);
    assert_int_equal(ev->count[RS_CLIENT_EV_WORLD_READY], st.desyncs + 1);
    assert_int_equal(rs_client_get_state(harness_client(h, e)), RS_CLIENT_CONNECTED);
    /* In sync again: later hashes are checked and hold. */
    uint64_t hashes = st.hashes_checked, desyncs = st.desyncs;
    steps(h, 1000, 2000);
    st = client_stats(h, e);
    assert_int_equal(st.desyncs, desyncs);
    assert_true(st.hashes_checked >= hashes + 3);
    assert_true(st.confirmed_tick + 10 >= room_stats(h).tick);
    harness_destroy(h);
}

/* 10 % of unreliable packets lost each way: the loss estimate sees it, the
 * repeated inputs and overlapping FRAMEs cover it, and nothing desyncs. */
static void test_a_lossy_link_is_measured_and_survived(void **state)
{
    scene *s = *state;
    harness_impair imp = {.loss = 0.10, .seed = 12345};
    harness *h = open_room(s, 1, &imp);
    uint32_t e = add(h, "los", HARNESS_AI);
    steps(h, 8000, 2000);
    rs_client_stats st = client_stats(h, e);
    rs_room_stats rst = room_stats(h);
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
    harness_destroy(h);
}

/* The route the SDK is held to (docs/CLIENT_SDK.md): 150 ms round trip,
 * +-20 ms jitter, 10 % loss and 1 % duplication of unreliable packets. */
static harness_impair impaired_route(uint64_t seed)
{
    return (harness_impair){
        .loss = 0.10, .delay_us = 75000, .jitter_us = 20000, .dup = 0.01, .seed = seed};
}

/* The impaired network the SDK is held to (docs/CLIENT_SDK.md): 150 ms
 * round trip, +-20 ms jitter, 10 % loss and 1 % duplication of unreliable
 * packets; 2 AI bots race for about 35 s (lights out at 2 s). They stay in
 * sync and their inputs reach the room in time. (The whole race under
 * impairment is the integration test's job; this one keeps the SDK honest
 * at a cost sanitizers can afford.) */
static void test_an_impaired_race_stays_in_sync_with_inputs_in_time(void **state)
{
    scene *s = *state;
    harness_impair imp = impaired_route(99);
    harness *h = open_room(s, 2, &imp);
    add(h, "imp1", HARNESS_AI);
    add(h, "imp2", HARNESS_AI);
    int64_t end = harness_now(h) + 55 * 1000000LL;
    rs_room_stats rst;
    do {
        harness_step(h, 2000);
        rst = room_stats(h);
    } while (rst.tick < 2100 && harness_now(h) < end);
    double in_time = (double)rst.inputs_used / (double)(rst.inputs_used + rst.inputs_missing);
    printf("[impaired] room: ticks %llu, inputs in time %.4f%% (%llu missing), late %llu\n",
           (unsigned long long)rst.tick, 100.0 * in_time,
           (unsigned long long)rst.inputs_missing, (unsigned long long)rst.inputs_late);
    assert_int_equal(rst.phase, RS_PHASE_RACE);
    for (uint32_t i = 0; i < 2; i++) {
        rs_client_stats st = client_stats(h, i);
        printf("[impaired] bot %u: hashes %llu, desyncs %llu, rtt %.1f ms jitter %.1f ms, lead "
               "%d ms (target %.0f), loss %.3f, rollbacks %llu depth p50/p99/max %u/%u/%u, "
               "local error mean %.3f m max %.3f m, late %u, confirmed %llu present %llu\n",
               i, (unsigned long long)st.hashes_checked, (unsigned long long)st.desyncs,
               st.rtt_ms, st.jitter_ms, st.input_lead_ms, st.target_lead_ms, st.loss,
               (unsigned long long)st.rollbacks, st.depth_p50, st.depth_p99, st.depth_max,
               st.local_error_m_mean, st.local_error_m_max, st.late_inputs,
               (unsigned long long)st.confirmed_tick, (unsigned long long)st.present_tick);
        assert_int_equal(st.desyncs, 0);
        assert_int_equal(harness_client_events(h, i)->count[RS_CLIENT_EV_ERROR], 0);
        assert_true(st.hashes_checked > 60);
        assert_true(st.loss > 0.03 && st.loss < 0.25); /* 10 % lost, some reordered */
        assert_true(st.rtt_ms > 140 && st.rtt_ms < 170);
        /* The client runs ahead of the room, the confirmed tick a little behind. */
        assert_true(st.present_tick > rst.tick);
        assert_true(st.confirmed_tick + 30 > rst.tick);
    }
    assert_true(in_time >= 0.999);
    harness_destroy(h);
}

/* On a lossy route a retransmitted packet now and then holds up its reliable
 * channel for seconds, so a player may hear of the countdown only after
 * lights out (seen in the integration test: 4.2 s late). It builds the
 * world of tick 0 while the room is hundreds of ticks further on, and its
 * present cannot run more than max_lead_ticks ahead of what it has
 * confirmed: until it catches up its inputs are late however its clock
 * runs. That lateness must not push its clock ahead (the clock was right),
 * and a snapshot brings it up to date sooner than repairs do. Afterwards
 * it races like the others: a present just ahead of the room, its inputs
 * in time. */
static void test_a_countdown_heard_late_costs_a_moment_not_the_race(void **state)
{
    scene *s = *state;
    harness_impair imp = impaired_route(4242);
    harness *h = open_room(s, 2, &imp);
    add(h, "ontime", HARNESS_AI);
    uint32_t late = add(h, "late", HARNESS_AI);
    int64_t give_up = harness_now(h) + 10 * 1000000LL;
    while (rs_client_get_state(harness_client(h, late)) != RS_CLIENT_CONNECTED &&
           harness_now(h) < give_up)
        harness_step(h, 2000);
    assert_int_equal(rs_client_get_state(harness_client(h, late)), RS_CLIENT_CONNECTED);
    /* The countdown is 2 s: RACE_STATE reaches the late player 3 s after
     * lights out, when the room is at tick 300. */
    harness_client_stall(h, late, RS_CH_CONTROL, harness_now(h) + 5 * 1000000LL);
    rs_room_stats rst;
    uint32_t late_by_1000 = 0;
    int64_t end = harness_now(h) + 60 * 1000000LL;
    do {
        harness_step(h, 2000);
        rst = room_stats(h);
        if (rst.tick <= 1000)
            late_by_1000 = client_stats(h, late).late_inputs;
    } while (rst.tick < 2000 && harness_now(h) < end);
    assert_int_equal(rst.phase, RS_PHASE_RACE);
    for (uint32_t i = 0; i < 2; i++) {
        rs_client_stats st = client_stats(h, i);
        printf("[heard late] %s: hashes %llu, desyncs %llu, worlds %llu, lead %d ms (target "
               "%.0f), rollbacks %llu depth p50/p99/max %u/%u/%u, late %u (%u by tick 1000), "
               "confirmed %llu present %llu, room %llu\n",
               i == late ? "late" : "on time", (unsigned long long)st.hashes_checked,
               (unsigned long long)st.desyncs, (unsigned long long)st.snapshots,
               st.input_lead_ms, st.target_lead_ms, (unsigned long long)st.rollbacks,
               st.depth_p50, st.depth_p99, st.depth_max, st.late_inputs,
               i == late ? late_by_1000 : 0, (unsigned long long)st.confirmed_tick,
               (unsigned long long)st.present_tick, (unsigned long long)rst.tick);
        assert_int_equal(st.desyncs, 0);
        /* Racing normally by the end: a present a lead ahead of the room
         * (under 30 ticks: half a second), rollbacks as deep as the route. */
        assert_true(st.present_tick > rst.tick);
        assert_true(st.present_tick < rst.tick + 30);
        assert_true(st.depth_p50 < 40);
    }
    /* Late for at most a second after the world was built (it asked for a
     * snapshot of the room's present), and never again. */
    rs_client_stats st = client_stats(h, late);
    assert_true(st.snapshots >= 2);
    assert_true(late_by_1000 <= 60);
    assert_int_equal(st.late_inputs, late_by_1000);
    harness_destroy(h);
}

/* The other way a present is held back: the room itself stops for four
 * seconds (a server starved of CPU), catches up one and moves its schedule
 * by the rest, so every client's clock is three seconds ahead of it and its
 * present waits at the window. Nothing is missing then, and a snapshot would
 * not help; an overloaded server that every client asked for tens of
 * kilobytes at once fell over for good (docs/PERFORMANCE.md). So nobody
 * asks, nothing desyncs, and the clocks walk back to the room. */
static void test_a_stalled_room_costs_no_snapshots(void **state)
{
    scene *s = *state;
    harness_impair imp = {.delay_us = 20000, .jitter_us = 2000, .seed = 7};
    harness *h = open_room(s, 2, &imp);
    add(h, "one", HARNESS_AI);
    add(h, "two", HARNESS_AI);
    rs_room_stats rst;
    int64_t end = harness_now(h) + 60 * 1000000LL;
    do {
        harness_step(h, 2000);
        rst = room_stats(h);
    } while (rst.tick < 600 && harness_now(h) < end);
    harness_room_pause(h, harness_now(h) + 4 * 1000000LL);
    do {
        harness_step(h, 2000);
        rst = room_stats(h);
    } while (rst.tick < 2400 && harness_now(h) < end);
    assert_int_equal(rst.phase, RS_PHASE_RACE);
    assert_true(rst.ticks_skipped > 120); /* it did not make the stall up */
    for (uint32_t i = 0; i < 2; i++) {
        rs_client_stats st = client_stats(h, i);
        printf("[stalled room] bot %u: worlds %llu, desyncs %llu, lead %d ms (target %.0f), "
               "depth p50/p99/max %u/%u/%u, confirmed %llu present %llu, room %llu (skipped "
               "%llu)\n",
               i, (unsigned long long)st.snapshots, (unsigned long long)st.desyncs,
               st.input_lead_ms, st.target_lead_ms, st.depth_p50, st.depth_p99, st.depth_max,
               (unsigned long long)st.confirmed_tick, (unsigned long long)st.present_tick,
               (unsigned long long)rst.tick, (unsigned long long)rst.ticks_skipped);
        assert_int_equal(st.snapshots, 1);
        assert_int_equal(st.desyncs, 0);
        assert_int_equal(harness_client_events(h, i)->count[RS_CLIENT_EV_ERROR], 0);
        assert_true(st.present_tick > rst.tick);
        assert_true(st.present_tick < rst.tick + 30);
    }
    harness_destroy(h);
}

/* ------------------------------------------- a tiny ENet server for tests */

/* Serves one room over ENet on 127.0.0.1 through the server's own adapter
 * (racesim/net.h): the connect cookie, the key exchange and sealed packets,
 * as raceserver does. */
typedef struct enet_srv {
    rs_net *net;
    rs_room *room;
    uint16_t port;
    rs_secure_identity identity;
    char key_hex[65];
    rs_room_packet out[128];
} enet_srv;

static void srv_open(enet_srv *sv, const rs_room_config *cfg)
{
    memset(sv, 0, sizeof *sv);
    char err[256] = "";
    assert_int_equal(rs_room_create(cfg, &sv->room, err, sizeof err), RS_OK);
    uint8_t seed[RS_SECURE_KEY_LEN];
    assert_true(rs_secure_random(seed, sizeof seed));
    assert_int_equal(rs_secure_identity_from_seed(seed, &sv->identity), RS_SECURE_OK);
    rs_secure_key_to_hex(sv->identity.public_key, sv->key_hex);
    rs_net_config nc = rs_net_config_default();
    nc.bind_address = "127.0.0.1";
    nc.port = 0;
    nc.max_clients = 16;
    nc.identity = &sv->identity;
    assert_int_equal(rs_net_create(&nc, &sv->net, err, sizeof err), RS_OK);
    sv->port = rs_net_port(sv->net);
}

static void srv_step(enet_srv *sv, int64_t now)
{
    rs_net_event ev;
    while (rs_net_service(sv->net, 0, &ev) > 0) {
        if (ev.type == RS_NET_EVENT_CONNECT)
            rs_room_connect(sv->room, ev.peer, now);
        else if (ev.type == RS_NET_EVENT_RECEIVE)
            rs_room_receive(sv->room, ev.peer, ev.channel, ev.data, ev.len, now);
        else if (ev.type == RS_NET_EVENT_DISCONNECT)
            rs_room_disconnect(sv->room, ev.peer, now);
    }
    rs_room_update(sv->room, now);
    size_t n;
    while ((n = rs_room_poll(sv->room, sv->out, 128)) > 0)
        for (size_t j = 0; j < n; j++)
            rs_net_send(sv->net, sv->out[j].peer, sv->out[j].channel, sv->out[j].reliable,
                        sv->out[j].data, sv->out[j].len);
    uint32_t closing[16];
    while ((n = rs_room_poll_closing(sv->room, closing, 16)) > 0)
        for (size_t j = 0; j < n; j++)
            rs_net_disconnect_later(sv->net, closing[j]);
    rs_net_flush(sv->net);
}

static void srv_close(enet_srv *sv)
{
    rs_net_destroy(sv->net);
    rs_room_destroy(sv->room);
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
    rs_net_stats ns;
    rs_net_get_stats(sv.net, &ns);
    assert_true(ns.cookies_issued >= 2);
    assert_int_equal(ns.handshakes, 2);
    for (int r = 0; r < RS_NET_DROP_COUNT; r++)
        assert_true(ns.drops[r] == 0);
    for (int i = 0; i < 2; i++) {
        /* Unpinned, nothing remembered: encrypted, but trusted blindly. */
        char hex[65];
        assert_int_equal(rs_client_server_key(rs_bot_client(bots[i]), hex),
                         RS_CLIENT_KEY_UNVERIFIED);
        assert_string_equal(hex, sv.key_hex);
        assert_int_equal(st[i].sealed_rejected, 0);
    }
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

/* A racing client's PINGs, its own and ENet's keepalives, go in the
 * datagrams of its INPUTs: over three seconds of a race the client sends a
 * datagram for each INPUT and, at most, one more for each of the server's
 * keepalives (ENet acknowledges them while reading, about two a second)
 * and a few reliable messages. Its PINGs alone used to add four a second,
 * and ENet's own two more. */
static void test_a_racing_clients_pings_share_its_inputs_datagrams(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 1);
    enet_srv sv;
    srv_open(&sv, &rc);
    rs_bot *bot;
    char err[256] = "";
    rs_client_config cfg = named("rider");
    int64_t t0 = rs_clock_us();
    assert_int_equal(rs_bot_create(&cfg, "127.0.0.1", sv.port, true, t0, &bot, err, sizeof err),
                     RS_CLIENT_OK);
    rs_client *c = rs_bot_client(bot);
    rs_client_stats st[2];
    int64_t window_us = 3000000, from = 0;
    for (int k = 0; k < 2;) {
        int64_t now = rs_clock_us();
        assert_true(now - t0 < 20000000);
        srv_step(&sv, now);
        rs_bot_update(bot, now);
        rs_client_get_stats(c, now, &st[k]);
        /* The window opens a second into the INPUTs: the clock settled. */
        if ((k == 0 && st[0].inputs_sent >= 30) || (k == 1 && now - from >= window_us)) {
            from = now;
            k++;
        }
        rs_sleep_us(1000);
    }
    uint64_t datagrams = st[1].wire_packets_out - st[0].wire_packets_out;
    uint64_t inputs = st[1].inputs_sent - st[0].inputs_sent;
    uint64_t others = st[1].packets_out - st[0].packets_out - inputs;
    printf("[pings ride] 3 s: %llu datagrams out for %llu INPUTs and %llu other messages, "
           "rtt %.2f ms\n",
           (unsigned long long)datagrams, (unsigned long long)inputs,
           (unsigned long long)others, st[1].rtt_ms);
    assert_true(inputs >= 80);  /* 30 a second */
    assert_true(others >= 8);   /* the PINGs went on, about 4 a second */
    assert_true(datagrams <= inputs + 2 * 3 + 4);
    assert_true(st[1].rtt_ms > 0.0);
    rs_bot_destroy(bot);
    srv_close(&sv);
}

/* A loop may wait on the client's socket: there is one from the connect
 * on, it becomes readable when the server speaks, and an update takes
 * what came (a custom transport has none). */
static bool readable_within(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static void test_a_loop_can_wait_on_the_clients_socket(void **state)
{
    scene *s = *state;
    assert_int_equal(rs_client_fd(NULL), -1);
    rs_client_config cfg = named("waiter");
    rs_client_transport t = {NULL, send_nothing, NULL};
    rs_client *c = NULL;
    assert_int_equal(rs_client_create_custom(&cfg, &t, 0, &c, NULL, 0), RS_CLIENT_OK);
    assert_int_equal(rs_client_fd(c), -1);
    rs_client_destroy(c);

    rs_room_config rc = room_config(s, 1);
    enet_srv sv;
    srv_open(&sv, &rc);
    char err[256] = "";
    int64_t t0 = rs_clock_us();
    assert_int_equal(rs_client_connect(&cfg, "127.0.0.1", sv.port, t0, &c, err, sizeof err),
                     RS_CLIENT_OK);
    int fd = rs_client_fd(c);
    assert_true(fd >= 0);
    /* Connected by waiting on the socket alone: the client is updated only
     * when it is readable or due. */
    while (rs_client_get_state(c) != RS_CLIENT_CONNECTED && rs_clock_us() - t0 < 5000000) {
        int64_t now = rs_clock_us();
        srv_step(&sv, now);
        int64_t wait_us = rs_client_next_due_us(c, now) - now;
        readable_within(fd, wait_us > 0 ? (int)((wait_us + 999) / 1000) : 0);
        rs_client_update(c, rs_clock_us());
    }
    assert_int_equal(rs_client_get_state(c), RS_CLIENT_CONNECTED);
    assert_int_equal(rs_client_fd(c), fd);
    /* Nothing sent: nothing to read once an update has taken it all. */
    rs_client_update(c, rs_clock_us());
    assert_false(readable_within(fd, 0));
    /* The server's next tick (a FRAME) makes it readable. */
    int64_t t1 = rs_clock_us();
    bool heard = false;
    while (!heard && rs_clock_us() - t1 < 1000000) {
        srv_step(&sv, rs_clock_us());
        heard = readable_within(fd, 20);
    }
    assert_true(heard);
    rs_client_update(c, rs_clock_us());
    rs_client_destroy(c);
    srv_close(&sv);
}

/* Connects one client to sv and runs both until it is CONNECTED or
 * DISCONNECTED (the event is copied to *last). */
static void connect_once(enet_srv *sv, const rs_client_config *cfg, rs_client **out,
                         rs_client_event *last)
{
    char err[256] = "";
    int64_t t0 = rs_clock_us();
    assert_int_equal(rs_client_connect(cfg, "127.0.0.1", sv->port, t0, out, err, sizeof err),
                     RS_CLIENT_OK);
    memset(last, 0, sizeof *last);
    while (last->type == 0 && rs_clock_us() - t0 < 5000000) {
        int64_t now = rs_clock_us();
        srv_step(sv, now);
        rs_client_update(*out, now);
        rs_client_event ev;
        while (rs_client_poll_event(*out, &ev))
            if (ev.type == RS_CLIENT_EV_CONNECTED || ev.type == RS_CLIENT_EV_DISCONNECTED ||
                ev.type == RS_CLIENT_EV_REFUSED)
                *last = ev;
        rs_sleep_us(1000);
    }
}

/* The server's key: pinned, remembered on first use, and a changed one
 * refused with a clear event before the client says anything. */
static void test_the_server_key_is_pinned_or_remembered(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 4);
    enet_srv sv;
    srv_open(&sv, &rc);
    rs_client *c = NULL;
    rs_client_event ev;
    char hex[65], err[256] = "";

    rs_client_config cfg = named("pinned");
    cfg.server_key = sv.key_hex;
    connect_once(&sv, &cfg, &c, &ev);
    assert_int_equal(ev.type, RS_CLIENT_EV_CONNECTED);
    assert_int_equal(rs_client_server_key(c, hex), RS_CLIENT_KEY_PINNED);
    assert_string_equal(hex, sv.key_hex);
    rs_client_destroy(c);

    char wrong[65];
    snprintf(wrong, sizeof wrong, "%s", sv.key_hex);
    wrong[0] = wrong[0] == '0' ? '1' : '0';
    cfg = named("fooled");
    cfg.server_key = wrong;
    connect_once(&sv, &cfg, &c, &ev);
    assert_int_equal(ev.type, RS_CLIENT_EV_DISCONNECTED);
    assert_int_equal(ev.u.disconnected.reason, RS_REASON_SERVER_KEY);
    assert_non_null(strstr(ev.u.disconnected.text, "not the pinned one"));
    assert_int_equal(rs_client_server_key(c, hex), RS_CLIENT_KEY_NONE);
    rs_client_destroy(c);

    cfg.server_key = "not hex";
    assert_int_equal(rs_client_connect(&cfg, "127.0.0.1", sv.port, rs_clock_us(), &c, err,
                                       sizeof err),
                     RS_CLIENT_ERR_ARG);
    assert_non_null(strstr(err, "server_key"));

    /* Trust on first use: remembered, then known. */
    char path[] = "/tmp/racesim_known_hosts_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    cfg = named("tofu");
    cfg.known_hosts = path;
    connect_once(&sv, &cfg, &c, &ev);
    assert_int_equal(ev.type, RS_CLIENT_EV_CONNECTED);
    assert_int_equal(rs_client_server_key(c, hex), RS_CLIENT_KEY_NEW);
    rs_client_destroy(c);
    cfg.name = "tofu2"; /* the first may still be in the room */
    connect_once(&sv, &cfg, &c, &ev);
    assert_int_equal(ev.type, RS_CLIENT_EV_CONNECTED);
    assert_int_equal(rs_client_server_key(c, hex), RS_CLIENT_KEY_KNOWN);
    rs_client_destroy(c);

    /* The file now says another key for this server: an impostor, or a
     * re-keyed server the player has not acknowledged. */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "# racesim known hosts\n127.0.0.1:%u %s\n", (unsigned)sv.port, wrong);
    fclose(f);
    cfg.name = "tofu3";
    connect_once(&sv, &cfg, &c, &ev);
    assert_int_equal(ev.type, RS_CLIENT_EV_DISCONNECTED);
    assert_int_equal(ev.u.disconnected.reason, RS_REASON_SERVER_KEY);
    assert_non_null(strstr(ev.u.disconnected.text, path));
    rs_client_destroy(c);
    unlink(path);

    /* The refused clients never said HELLO: the room has only the three
     * that were accepted (destroyed without a goodbye, they linger). */
    for (int i = 0; i < 50; i++)
        srv_step(&sv, rs_clock_us());
    rs_room_stats rst;
    rs_room_get_stats(sv.room, &rst);
    assert_int_equal(rst.players, 3);
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
    /* Updated only when it says it is due (nothing will be readable): the
     * cookie requests every 250 ms and the timeout, a handful of updates,
     * not one a millisecond. */
    uint32_t updates = 0;
    while (!disconnected && rs_clock_us() - t0 < 3000000) {
        int64_t now = rs_clock_us();
        rs_client_update(c, now);
        updates++;
        while (rs_client_poll_event(c, &ev))
            if (ev.type == RS_CLIENT_EV_DISCONNECTED) {
                disconnected = true;
                assert_int_equal(ev.u.disconnected.reason, RS_REASON_TIMEOUT);
            }
        int64_t due = rs_client_next_due_us(c, now);
        assert_true(due >= now);
        assert_true(due <= t0 + 300000 + 2000 || disconnected); /* never past the timeout */
        rs_sleep_us(due - rs_clock_us());
    }
    assert_true(disconnected);
    assert_true(rs_clock_us() - t0 < 1500000);
    printf("[connect timeout] %u updates until the 300 ms timeout\n", updates);
    assert_true(updates <= 10);
    rs_client_destroy(c);
    enet_host_destroy(mute);

    /* A custom transport whose link never comes up has only the connect
     * timeout to keep. */
    rs_client_transport t = {NULL, send_nothing, NULL};
    assert_int_equal(rs_client_create_custom(&cfg, &t, 1000, &c, NULL, 0), RS_CLIENT_OK);
    rs_client_update(c, 2000);
    assert_int_equal(rs_client_next_due_us(c, 2000), 1000 + 300000);
    rs_client_destroy(c);
}

/* examples/minimal.c, built as example_minimal, against a room served
 * over ENet: it connects, drives a lap of the oval with nothing but
 * throttle and steering (cars start in Drive), sees its FINISH and the
 * results, and exits 0. */
static void test_minimal_example_completes_a_lap(void **state)
{
    scene *s = *state;
    rs_room_config rc = room_config(s, 1);
    enet_srv sv;
    srv_open(&sv, &rc);
    char port[16];
    snprintf(port, sizeof port, "%u", sv.port);
    char out_path[] = "/tmp/rs_minimal_XXXXXX";
    int fd = mkstemp(out_path);
    assert_true(fd >= 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, STDOUT_FILENO);
    char *argv[] = {(char *)RS_EXAMPLE_MINIMAL, (char *)"127.0.0.1", port, (char *)"150", NULL};
    pid_t pid;
    extern char **environ;
    assert_int_equal(posix_spawn(&pid, RS_EXAMPLE_MINIMAL, &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    close(fd);
    int64_t t0 = rs_clock_us();
    int status = -1;
    uint32_t max_players = 0;
    rs_room_stats rst;
    while (rs_clock_us() - t0 < 160 * 1000000LL) {
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
        unlink(out_path);
        fail_msg("example_minimal did not exit in time");
    }
    char text[8192] = "";
    FILE *f = fopen(out_path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    unlink(out_path);
    printf("[minimal] exit status %d, room: players max %u, inputs used %llu; its output:\n%s",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1, max_players,
           (unsigned long long)rst.inputs_used, text);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(max_players, 1);
    assert_non_null(strstr(text, "lap 1 ")); /* "lap: car 1 lap 1 59.494 s (mine)" */
    assert_non_null(strstr(text, "(mine)"));
    assert_non_null(strstr(text, "finished: 1 laps, position 1"));
    assert_non_null(strstr(text, "results: 1 cars"));
    srv_close(&sv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_is_checked),
        cmocka_unit_test(test_version_refusal_text_is_shown_as_is),
        cmocka_unit_test(test_race_weekend_messages_and_requests),
        cmocka_unit_test(test_session_time_left_follows_the_predicted_race_clock),
        cmocka_unit_test(test_wrong_password_is_refused_with_the_servers_text),
        cmocka_unit_test(test_parameter_mismatch_says_bye_and_reports),
        cmocka_unit_test(test_garbage_is_dropped_and_counted),
        cmocka_unit_test(test_stats_say_how_long_the_server_has_been_silent),
        cmocka_unit_test(test_bots_race_one_lap_in_sync_with_the_room),
        cmocka_unit_test(test_every_lap_and_finish_come_before_results),
        cmocka_unit_test(test_cars_with_different_parameters_stay_in_sync),
        cmocka_unit_test(test_desync_is_reported_and_repaired_by_a_snapshot),
        cmocka_unit_test(test_a_lossy_link_is_measured_and_survived),
        cmocka_unit_test(test_an_impaired_race_stays_in_sync_with_inputs_in_time),
        cmocka_unit_test(test_a_countdown_heard_late_costs_a_moment_not_the_race),
        cmocka_unit_test(test_a_stalled_room_costs_no_snapshots),
        cmocka_unit_test(test_connect_times_out_without_a_server),
        cmocka_unit_test(test_bots_connect_over_enet_with_the_cookie),
        cmocka_unit_test(test_a_racing_clients_pings_share_its_inputs_datagrams),
        cmocka_unit_test(test_the_server_key_is_pinned_or_remembered),
        cmocka_unit_test(test_a_loop_can_wait_on_the_clients_socket),
        cmocka_unit_test(test_minimal_example_completes_a_lap),
    };
    return cmocka_run_group_tests(tests, harness_scene_setup, harness_scene_teardown);
}
