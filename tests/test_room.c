/*
 * The room (server/room): the authoritative lockstep core. Its handshake,
 * requests, controls and parameter blocks are checked message by message
 * against the room alone; its races are run by real SDK clients (AI bots of
 * racesim/bot.h) through the in-memory, impairable link of
 * tests/support/room_harness.c.
 *
 * The key tests race AI-driven clients over 2 laps of the oval, once on a
 * perfect link and once through a seeded impairment layer, and check that
 * every client's confirmed state matches the room's hash at every hashed
 * tick it confirms (no desync), that the race finishes with every car on 2
 * laps, and that the inputs reach the room in time.
 */
#define _POSIX_C_SOURCE 199309L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_data.h"
#include "racesim/protocol.h"
#include "racesim/room.h"
#include "racesim/track.h"
#include "room_harness.h"
#include "racesim/base/clock.h"

typedef test_scene scene;

static rs_room_config room_config(const scene *s, uint32_t players)
{
    rs_room_config c = harness_room_config(s, players);
    c.laps = 2;
    c.max_players = 8;
    c.countdown_ticks = 180;
    c.results_ticks = 120;
    return c;
}

/* A room and n AI clients, "driver<k>", of which the first n_spectators
 * watch instead, as "watcher<k>", aiming their input lead at lead_ms. */
static harness *field(const rs_room_config *cfg, uint32_t n, uint32_t n_spectators,
                      const harness_impair *imp, uint32_t lead_ms)
{
    harness *h = harness_create(cfg, imp);
    for (uint32_t k = 0; k < n; k++) {
        char name[24];
        snprintf(name, sizeof name, "%s%u", k < n_spectators ? "watcher" : "driver", k);
        rs_client_config c = harness_player(name, lead_ms);
        c.spectator = k < n_spectators;
        harness_add_client(h, &c, HARNESS_AI);
    }
    return h;
}

typedef struct race_report {
    uint32_t cars;
    uint32_t laps_min;
    uint32_t finished;
    uint64_t race_ticks;
    uint64_t hashes_min;
    uint64_t desyncs;
    uint64_t errors;      /* ERROR events: a desync, parameters or a snapshot that failed */
    uint64_t unresolvable;
    int64_t present_gap_max_us, confirm_gap_max_us;
    uint32_t depth_max;
    rs_room_stats room;
    double wall_s;
    bool results_everywhere;
    uint32_t laps_heard_min;
} race_report;

/* Adds what client i saw of the race (through the SDK) to the report. */
static void note_client(race_report *r, harness *h, uint32_t i, bool spectator)
{
    harness_client_stats cs;
    harness_client_stats_get(h, i, &cs);
    const harness_events *ev = harness_client_events(h, i);
    const rs_client_stats *st = &cs.sdk;
    if (getenv("RS_ROOM_VERBOSE"))
        printf("  client %u: frames %llu unresolvable %llu hashes %llu desyncs %llu "
               "confirmed %llu present %llu lead %d ms (target %.0f) depth max %u\n",
               i, (unsigned long long)st->frames, (unsigned long long)st->frames_unresolvable,
               (unsigned long long)st->hashes_checked, (unsigned long long)st->desyncs,
               (unsigned long long)st->confirmed_tick, (unsigned long long)st->present_tick,
               st->input_lead_ms, st->target_lead_ms, st->depth_max);
    if (st->hashes_checked < r->hashes_min)
        r->hashes_min = st->hashes_checked;
    r->desyncs += st->desyncs;
    r->errors += ev->count[RS_CLIENT_EV_ERROR];
    r->unresolvable += st->frames_unresolvable;
    if (cs.max_present_gap_us > r->present_gap_max_us)
        r->present_gap_max_us = cs.max_present_gap_us;
    if (cs.max_confirm_gap_us > r->confirm_gap_max_us)
        r->confirm_gap_max_us = cs.max_confirm_gap_us;
    if (st->depth_max > r->depth_max)
        r->depth_max = st->depth_max;
    r->results_everywhere &= ev->count[RS_CLIENT_EV_RESULTS] >= 1;
    if (!spectator && cs.bot.laps < r->laps_heard_min)
        r->laps_heard_min = cs.bot.laps;
}

/* Runs the harness until the room shows results (or a time limit), then
 * gathers what the assertions need. */
static race_report run_race(harness *h, uint32_t n, uint32_t spectators, int64_t limit_us)
{
    race_report r;
    memset(&r, 0, sizeof r);
    double t0 = rs_clock_s();
    rs_room *room = harness_room(h);
    rs_room_stats st;
    int64_t end = harness_now(h) + limit_us;
    bool saw_results = false;
    int64_t results_at = 0;
    while (harness_now(h) < end) {
        harness_step(h, 1000);
        rs_room_get_stats(room, &st);
        if (st.phase == RS_PHASE_RESULTS && !saw_results) {
            saw_results = true;
            results_at = harness_now(h);
            const rs_world *w = rs_room_world(room);
            r.cars = rs_world_car_count(w);
            r.laps_min = UINT32_MAX;
            for (uint32_t c = 1; c <= r.cars; c++) {
                rs_race_car_state rc;
                rs_world_race_state(w, (rs_car_id){(uint16_t)c}, &rc);
                if (rc.laps_completed < r.laps_min)
                    r.laps_min = rc.laps_completed;
                r.finished += rc.status == RS_RACE_FINISHED;
            }
            r.race_ticks = st.tick;
        }
        /* Let the last messages (RESULTS, the last FRAMEs) arrive. */
        if (saw_results && harness_now(h) - results_at > 500000)
            break;
    }
    r.hashes_min = UINT64_MAX;
    r.laps_heard_min = UINT32_MAX;
    r.results_everywhere = true;
    for (uint32_t i = 0; i < n; i++)
        note_client(&r, h, i, i < spectators);
    rs_room_get_stats(room, &r.room);
    r.wall_s = rs_clock_s() - t0;
    return r;
}

static void print_report(const char *name, const race_report *r)
{
    double in_time = (double)r->room.inputs_used /
                     (double)(r->room.inputs_used + r->room.inputs_missing);
    printf("[%s] cars %u, race ticks %llu, laps min %u, finished %u, hashes checked min %llu, "
           "desyncs %llu, errors %llu, unresolvable frames %llu, inputs in time %.4f%% (%llu "
           "missing, %llu late packets), present gap max %.1f ms, confirm gap max %.1f ms, "
           "rollback depth max %u, bytes out %llu in %llu, dropped %llu, rate limited %llu, "
           "snapshots %llu, wall %.2f s\n",
           name, r->cars, (unsigned long long)r->race_ticks, r->laps_min, r->finished,
           (unsigned long long)r->hashes_min, (unsigned long long)r->desyncs,
           (unsigned long long)r->errors, (unsigned long long)r->unresolvable, 100.0 * in_time,
           (unsigned long long)r->room.inputs_missing, (unsigned long long)r->room.inputs_late,
           (double)r->present_gap_max_us / 1000.0, (double)r->confirm_gap_max_us / 1000.0,
           r->depth_max, (unsigned long long)r->room.bytes_out,
           (unsigned long long)r->room.bytes_in, (unsigned long long)r->room.dropped_messages,
           (unsigned long long)r->room.rate_limited, (unsigned long long)r->room.snapshots_sent,
           r->wall_s);
}

static void assert_race_ok(const race_report *r, uint32_t cars, double min_in_time)
{
    assert_int_equal(r->cars, cars);
    assert_true(r->laps_min >= 2);
    assert_int_equal(r->finished, cars);
    assert_true(r->results_everywhere);
    assert_true(r->laps_heard_min >= 2);
    assert_int_equal(r->desyncs, 0);
    assert_int_equal(r->errors, 0);
    assert_int_equal(r->room.desync_reports, 0);
    /* Every client checked (about) every hash of the race. */
    assert_true(r->hashes_min + 4 >= r->race_ticks / 30);
    double in_time = (double)r->room.inputs_used /
                     (double)(r->room.inputs_used + r->room.inputs_missing);
    assert_true(in_time >= min_in_time);
    assert_true(r->present_gap_max_us < 100000);
    assert_int_equal(r->room.dropped_messages, 0);
}

static void test_room_races_eight_clients_without_desync(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 8);
    /* 8 drivers and a spectator on a perfect link. */
    harness *h = field(&cfg, 9, 1, NULL, 20);
    race_report r = run_race(h, 9, 1, 400 * 1000000LL);
    print_report("clean", &r);
    assert_race_ok(&r, 8, 0.999);
    assert_int_equal(r.unresolvable, 0);
    harness_destroy(h);
}

static void test_room_races_through_an_impaired_network_without_desync(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 5);
    harness_impair imp = {
        .loss = 0.10,
        .burst_chance = 0.0005, /* a burst of 8 lost packets about every 33 s per stream */
        .burst_len = 8,
        .delay_us = 75000,     /* 150 ms round trip */
        .jitter_us = 20000,
        .dup = 0.01,
        .reorder = 0.02,
        .reorder_us = 30000,
        .seed = 0x5eed1234u,
    };
    const char *seed = getenv("RS_ROOM_SEED"); /* to explore other impairment draws */
    if (seed && *seed)
        imp.seed = strtoull(seed, NULL, 0);
    harness *h = field(&cfg, 5, 0, &imp, 160);
    race_report r = run_race(h, 5, 0, 400 * 1000000LL);
    print_report("impaired", &r);
    assert_race_ok(&r, 5, 0.999);
    harness_destroy(h);
}

/* ------------------------------------- the room alone, message by message */

/* These tests say what no SDK client would (another protocol version, a
 * wrong acknowledgement, nothing at all) and count what the room queues, so
 * they speak to the room in messages of the protocol library. */

/* A message of this type, every other field zero. */
static rs_msg msg_of(uint8_t type)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = type;
    return m;
}

/* The room of cfg (which must open). */
static rs_room *new_room(const rs_room_config *cfg)
{
    rs_room *room = NULL;
    char err[256];
    assert_int_equal(rs_room_create(cfg, &room, err, sizeof err), RS_OK);
    return room;
}

/* Peer says HELLO as name, to room_name ("" = any), with password and flags
 * (RS_HELLO_*), in protocol version `version`: another one than ours is
 * patched into the frozen version bytes. */
static void hello_as(rs_room *room, uint32_t peer, uint16_t version, const char *name,
                     const char *room_name, const char *password, const char *token,
                     uint8_t flags)
{
    rs_msg m = msg_of(RS_MSG_HELLO);
    strcpy(m.u.hello.token, token);
    m.u.hello.protocol_version = RS_PROTO_VERSION;
    m.u.hello.physics_version = RS_PHYSICS_VERSION;
    m.u.hello.flags = flags;
    strcpy(m.u.hello.name, name);
    strcpy(m.u.hello.room, room_name);
    strcpy(m.u.hello.password, password);
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    buf[1] = (uint8_t)(version & 0xff);
    buf[2] = (uint8_t)(version >> 8);
    rs_room_receive(room, peer, RS_CH_CONTROL, buf, len, 0);
}

static void hello(rs_room *room, uint32_t peer, uint16_t version, const char *name,
                  const char *password)
{
    hello_as(room, peer, version, name, "", password, "", 0);
}

static void hello_to(rs_room *room, uint32_t peer, const char *name, const char *room_name,
                     uint8_t flags)
{
    hello_as(room, peer, RS_PROTO_VERSION, name, room_name, "", "", flags);
}

/* Peer connects at now_us and says HELLO as name, to any room, with flags. */
static void join(rs_room *room, uint32_t peer, int64_t now_us, const char *name, uint8_t flags)
{
    rs_room_connect(room, peer, now_us);
    hello_to(room, peer, name, "", flags);
}

/* Peer connects at now_us and says HELLO as a registered player: name and a
 * token (the admit hook decides whose it is). */
static void join_with_token(rs_room *room, uint32_t peer, int64_t now_us, const char *name)
{
    rs_room_connect(room, peer, now_us);
    hello_as(room, peer, RS_PROTO_VERSION, name, "", "",
             "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", 0);
}

/* Asserts that the room closes peer and no other (the list is consumed). */
static void assert_closing_only(rs_room *room, uint32_t peer)
{
    uint32_t closing[8];
    assert_int_equal(rs_room_poll_closing(room, closing, 8), 1);
    assert_int_equal(closing[0], peer);
}

/* Peer sends m on the control channel. */
static void send_msg(rs_room *room, uint32_t peer, const rs_msg *m, int64_t now_us)
{
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    assert_int_equal(rs_proto_encode(m, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    rs_room_receive(room, peer, RS_CH_CONTROL, buf, len, now_us);
}

/* The first message the room queued for peer, decoded. */
static bool first_msg_for(rs_room *room, uint32_t peer, rs_msg *out)
{
    static rs_room_packet pk[256];
    size_t n = rs_room_poll(room, pk, 256);
    for (size_t i = 0; i < n; i++) {
        if (pk[i].peer == peer) {
            assert_int_equal(rs_proto_decode(pk[i].data, pk[i].len, out, NULL), RS_PROTO_OK);
            return true;
        }
    }
    return false;
}

static void test_room_refuses_in_words_and_drops_garbage(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 8);
    cfg.max_players = 1;
    cfg.start_players = 1;
    cfg.spectator_slots = 0;
    cfg.password = "sesame";
    rs_room *room = new_room(&cfg);
    rs_msg m;

    rs_room_connect(room, 1, 0);
    hello(room, 1, RS_PROTO_VERSION + 1, "old", "sesame");
    assert_true(first_msg_for(room, 1, &m));
    assert_int_equal(m.type, RS_MSG_REFUSE);
    assert_int_equal(m.u.refuse.reason, RS_REASON_VERSION);
    assert_non_null(strstr(m.u.refuse.text, "protocol version"));
    assert_closing_only(room, 1);
    rs_room_disconnect(room, 1, 0);

    rs_room_connect(room, 2, 0);
    hello(room, 2, RS_PROTO_VERSION, "nopass", "wrong");
    assert_true(first_msg_for(room, 2, &m));
    assert_int_equal(m.type, RS_MSG_REFUSE);
    assert_int_equal(m.u.refuse.reason, RS_REASON_PASSWORD);
    rs_room_disconnect(room, 2, 0);

    rs_room_connect(room, 3, 0);
    hello(room, 3, RS_PROTO_VERSION, "alice", "sesame");
    assert_true(first_msg_for(room, 3, &m));
    assert_int_equal(m.type, RS_MSG_WELCOME);

    rs_room_connect(room, 4, 0);
    hello(room, 4, RS_PROTO_VERSION, "bob", "sesame");
    assert_true(first_msg_for(room, 4, &m));
    assert_int_equal(m.type, RS_MSG_REFUSE);
    assert_int_equal(m.u.refuse.reason, RS_REASON_FULL);

    /* Garbage, a server-only message, the wrong channel, an unknown peer:
     * dropped and counted, never a crash. */
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    uint64_t dropped = st.dropped_messages;
    const uint8_t junk[] = {0xff, 1, 2, 3};
    rs_room_receive(room, 3, RS_CH_CONTROL, junk, sizeof junk, 0);
    rs_room_receive(room, 3, RS_CH_CONTROL, junk, 0, 0);
    rs_msg w = msg_of(RS_MSG_RESULTS);
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len;
    assert_int_equal(rs_proto_encode(&w, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    rs_room_receive(room, 3, RS_CH_CONTROL, buf, len, 0);
    w = msg_of(RS_MSG_PING);
    assert_int_equal(rs_proto_encode(&w, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    rs_room_receive(room, 3, RS_CH_CONTROL, buf, len, 0);
    rs_room_receive(room, 77, RS_CH_FRAME, buf, len, 0);
    /* Random bytes of every length. */
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) {
        uint8_t rnd[64];
        size_t n = (size_t)(i % 64);
        for (size_t k = 0; k < n; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            rnd[k] = (uint8_t)x;
        }
        rs_room_receive(room, 3, (uint8_t)(i % 4), rnd, n, 0);
    }
    rs_room_get_stats(room, &st);
    assert_true(st.dropped_messages >= dropped + 5);
    assert_int_equal(st.players, 1);

    /* In the lobby a leaving player frees the seat at once. */
    rs_room_disconnect(room, 3, 0);
    rs_room_connect(room, 5, 0);
    hello(room, 5, RS_PROTO_VERSION, "carol", "sesame");
    assert_true(first_msg_for(room, 5, &m));
    assert_int_equal(m.type, RS_MSG_WELCOME);
    rs_room_destroy(room);
}

/* A server shedding load closes its rooms to newcomers: a HELLO is
 * refused with FULL and the server's words, the players already in stay,
 * and once it opens again the next HELLO is welcome. */
static void test_room_closed_to_newcomers_keeps_its_players(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 8);
    cfg.start_players = 8;
    rs_room *room = new_room(&cfg);
    rs_msg m;
    rs_room_connect(room, 1, 0);
    hello(room, 1, RS_PROTO_VERSION, "alice", "");
    assert_true(first_msg_for(room, 1, &m));
    assert_int_equal(m.type, RS_MSG_WELCOME);

    rs_room_set_open(room, false, "the server is overloaded: try again in a minute");
    rs_room_connect(room, 2, 0);
    hello(room, 2, RS_PROTO_VERSION, "bob", "");
    assert_true(first_msg_for(room, 2, &m));
    assert_int_equal(m.type, RS_MSG_REFUSE);
    assert_int_equal(m.u.refuse.reason, RS_REASON_FULL);
    assert_string_equal(m.u.refuse.text, "the server is overloaded: try again in a minute");
    assert_closing_only(room, 2);
    rs_room_disconnect(room, 2, 0);
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 1);

    rs_room_set_open(room, true, NULL);
    rs_room_connect(room, 3, 0);
    hello(room, 3, RS_PROTO_VERSION, "bob", "");
    assert_true(first_msg_for(room, 3, &m));
    assert_int_equal(m.type, RS_MSG_WELCOME);
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 2);
    rs_room_destroy(room);
}

static void test_room_gives_a_rejoining_player_the_same_car(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 4);
    cfg.laps = 1;
    harness *h = field(&cfg, 4, 0, NULL, 20);
    rs_room *room = harness_room(h);
    rs_room_stats st;
    /* Into the race. */
    do {
        harness_step(h, 1000);
        rs_room_get_stats(room, &st);
    } while (st.phase != RS_PHASE_RACE || st.tick < 400);
    uint8_t car = rs_client_car(harness_client(h, 2));
    assert_true(car >= 1);
    harness_client_drop(h, 2);
    for (int i = 0; i < 500; i++)
        harness_step(h, 1000);
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 3);
    harness_client_rejoin(h, 2, NULL);
    for (int i = 0; i < 3000; i++)
        harness_step(h, 1000);
    /* A new client, late: its world came from a snapshot mid-race. */
    rs_client *c = harness_client(h, 2);
    const harness_events *ev = harness_client_events(h, 2);
    assert_int_equal(rs_client_car(c), car);
    assert_int_equal(ev->count[RS_CLIENT_EV_WORLD_READY], 1);
    assert_true(ev->last[RS_CLIENT_EV_WORLD_READY].u.world.tick > 400);
    assert_int_equal(ev->count[RS_CLIENT_EV_ERROR], 0);
    rs_client_stats cs;
    rs_client_get_stats(c, harness_now(h), &cs);
    printf("[rejoin] car %u, frames %llu, hashes checked %llu, desyncs %llu, confirmed %llu\n",
           rs_client_car(c), (unsigned long long)cs.frames,
           (unsigned long long)cs.hashes_checked, (unsigned long long)cs.desyncs,
           (unsigned long long)cs.confirmed_tick);
    assert_true(cs.hashes_checked >= 5); /* about 3 s of ticks, a hash every 30 */
    assert_int_equal(cs.desyncs, 0);
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 4);
    assert_true(st.snapshots_sent >= 5);
    harness_destroy(h);
}

static void test_room_starts_the_next_race_with_a_new_world(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 3);
    cfg.laps = 1;
    cfg.results_ticks = 60;
    harness *h = field(&cfg, 3, 0, NULL, 20);
    rs_room *room = harness_room(h);
    rs_room_stats st;
    int64_t end = harness_now(h) + 200 * 1000000LL;
    do {
        harness_step(h, 1000);
        rs_room_get_stats(room, &st);
    } while (st.race_number < 2 && harness_now(h) < end);
    /* The hashes checked from here on are the new world's. */
    uint64_t hashes_before[3];
    for (uint32_t i = 0; i < 3; i++) {
        rs_client_stats cs;
        rs_client_get_stats(harness_client(h, i), harness_now(h), &cs);
        hashes_before[i] = cs.hashes_checked;
    }
    do {
        harness_step(h, 1000);
        rs_room_get_stats(room, &st);
    } while ((st.race_number < 2 || st.tick < 400) && harness_now(h) < end);
    assert_int_equal(st.race_number, 2);
    assert_int_equal(st.phase, RS_PHASE_RACE);
    for (uint32_t i = 0; i < 3; i++) {
        rs_client *c = harness_client(h, i);
        const harness_events *ev = harness_client_events(h, i);
        rs_client_stats cs;
        rs_client_get_stats(c, harness_now(h), &cs);
        /* The client built the new race's world and follows it. */
        assert_int_equal(ev->last[RS_CLIENT_EV_WORLD_READY].u.world.race_number, 2);
        assert_true(cs.confirmed_tick >= 380 && cs.confirmed_tick <= st.tick);
        assert_true(cs.hashes_checked >= hashes_before[i] + 12);
        assert_int_equal(cs.desyncs, 0);
        assert_int_equal(ev->count[RS_CLIENT_EV_RESULTS], 1);
        assert_int_equal(ev->count[RS_CLIENT_EV_ERROR], 0);
        assert_true(rs_client_car(c) >= 1);
    }
    harness_destroy(h);
}

/* ------------------------------------------------ the server's controls */

/* The messages of one type the room queued for peer, decoded (the rest of
 * the queue is consumed). */
static uint32_t msgs_for(rs_room *room, uint32_t peer, uint8_t type, rs_msg *out, uint32_t cap)
{
    static rs_room_packet pk[512];
    uint32_t got = 0;
    size_t n;
    while ((n = rs_room_poll(room, pk, 512)) > 0) {
        for (size_t i = 0; i < n; i++) {
            rs_msg m;
            assert_int_equal(rs_proto_decode(pk[i].data, pk[i].len, &m, NULL), RS_PROTO_OK);
            if (pk[i].peer == peer && m.type == type) {
                if (got < cap)
                    out[got] = m;
                got++;
            }
        }
    }
    return got;
}

/* Asserts that the room queued one REFUSE for peer (the rest of the queue
 * is consumed), for reason and, unless text is NULL, in these words;
 * returns it. */
static const rs_msg *assert_refused(rs_room *room, uint32_t peer, uint8_t reason,
                                    const char *text)
{
    static rs_msg m;
    assert_int_equal(msgs_for(room, peer, RS_MSG_REFUSE, &m, 1), 1);
    assert_int_equal(m.u.refuse.reason, reason);
    if (text)
        assert_string_equal(m.u.refuse.text, text);
    return &m;
}

/* Asserts that the room queued one WELCOME for peer (the rest of the queue
 * is consumed), for player_id and, unless token is NULL, with this token. */
static void assert_welcomed(rs_room *room, uint32_t peer, int64_t player_id, const char *token)
{
    rs_msg m;
    assert_int_equal(msgs_for(room, peer, RS_MSG_WELCOME, &m, 1), 1);
    assert_int_equal(m.u.welcome.player_id, player_id);
    if (token)
        assert_string_equal(m.u.welcome.token, token);
}

/* Asserts that new_peer took old_peer's seat over (the queue is consumed):
 * old_peer got BYE REPLACED and is closed, new_peer a WELCOME for car. */
static void assert_took_over(rs_room *room, uint32_t old_peer, uint32_t new_peer, uint8_t car)
{
    static rs_room_packet pk[512];
    size_t n;
    int bye = -1, welcome_car = -1;
    while ((n = rs_room_poll(room, pk, 512)) > 0) {
        for (size_t i = 0; i < n; i++) {
            rs_msg m;
            assert_int_equal(rs_proto_decode(pk[i].data, pk[i].len, &m, NULL), RS_PROTO_OK);
            if (pk[i].peer == old_peer && m.type == RS_MSG_BYE)
                bye = m.u.bye.reason;
            if (pk[i].peer == new_peer && m.type == RS_MSG_WELCOME)
                welcome_car = m.u.welcome.car;
        }
    }
    assert_int_equal(bye, RS_REASON_REPLACED);
    assert_int_equal(welcome_car, car);
    assert_closing_only(room, old_peer);
}

static void test_room_serves_requests_and_controls_without_a_server(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 2);
    cfg.name = "alpha";
    cfg.max_players = 2;
    cfg.start_players = 2;
    cfg.spectator_slots = 2;
    rs_room *room = new_room(&cfg);
    assert_string_equal(rs_room_name(room), "alpha");
    static rs_msg m[16];
    m[0] = msg_of(RS_MSG_BYE);
    assert_false(rs_room_send(room, 0, &m[0])); /* peer 0 is nobody */

    /* Room names: another room's name is refused, "" and our own are fine. */
    rs_room_connect(room, 1, 0);
    hello_to(room, 1, "ann", "beta", 0);
    assert_refused(room, 1, RS_REASON_NO_ROOM, NULL);
    rs_room_disconnect(room, 1, 0);
    /* Registration needs the register hook. */
    join(room, 2, 0, "ann", RS_HELLO_REGISTER);
    assert_refused(room, 2, RS_REASON_AUTH, NULL);
    rs_room_disconnect(room, 2, 0);
    rs_room_connect(room, 3, 0);
    hello_to(room, 3, "ann", "alpha", 0);
    assert_int_equal(msgs_for(room, 3, RS_MSG_WELCOME, m, 8), 1);
    join(room, 4, 0, "viewer", RS_HELLO_SPECTATOR);
    assert_int_equal(msgs_for(room, 4, RS_MSG_WELCOME, m, 8), 1);

    /* Without a request hook every request is answered "unsupported"; more
     * than 10 a second are answered BUSY. */
    rs_msg q = msg_of(RS_MSG_LEADERBOARD_REQUEST);
    q.u.leaderboard_request.request_id = 5;
    q.u.leaderboard_request.count = 4;
    send_msg(room, 3, &q, 1000);
    assert_int_equal(msgs_for(room, 3, RS_MSG_LEADERBOARD_REPLY, m, 8), 1);
    assert_int_equal(m[0].u.leaderboard_reply.request_id, 5);
    assert_int_equal(m[0].u.leaderboard_reply.result, RS_RESULT_ERROR);
    q = msg_of(RS_MSG_SELECT_TUNE);
    q.u.select_tune.request_id = 6;
    send_msg(room, 4, &q, 1000);
    assert_int_equal(msgs_for(room, 4, RS_MSG_TUNE_REPLY, m, 8), 1);
    assert_int_equal(m[0].u.tune_reply.op, RS_TUNE_OP_SELECT);
    assert_string_equal(m[0].u.tune_reply.text, "unsupported");
    q = msg_of(RS_MSG_ADMIN);
    q.u.admin.request_id = 7;
    for (int i = 0; i < 10; i++)
        send_msg(room, 3, &q, 2000);
    assert_int_equal(msgs_for(room, 3, RS_MSG_ADMIN_REPLY, m, 16), 10);
    assert_int_equal(m[9].u.admin_reply.result, RS_RESULT_BUSY); /* the 11th of this second */
    assert_int_equal(m[8].u.admin_reply.result, RS_RESULT_ERROR);
    send_msg(room, 3, &q, 1200000);
    assert_int_equal(msgs_for(room, 3, RS_MSG_ADMIN_REPLY, m, 8), 1);
    assert_int_equal(m[0].u.admin_reply.result, RS_RESULT_ERROR); /* a new second */

    /* Seats and tracks. */
    assert_int_equal(rs_room_set_seat_car(room, "nobody", NULL, 0), RS_ERR_ARG);
    assert_int_equal(rs_room_set_seat_car(room, "viewer", NULL, 0), RS_ERR_ARG);
    assert_int_equal(rs_room_set_seat_car(room, "ann", s->car, 0), RS_OK);
    assert_false(rs_room_end_race(room)); /* the lobby */
    assert_int_equal(rs_room_set_track(room, s->track, s->json, s->json_len), RS_OK);
    assert_true(rs_room_track(room, NULL, NULL) == s->track);

    /* Kicks: a player's and a spectator's peer get BYE and close. */
    assert_false(rs_room_kick(room, "nobody", RS_REASON_KICKED, "x"));
    assert_true(rs_room_kick(room, "viewer", RS_REASON_KICKED, "go"));
    assert_int_equal(msgs_for(room, 4, RS_MSG_BYE, m, 8), 1);
    assert_int_equal(m[0].u.bye.reason, RS_REASON_KICKED);
    assert_string_equal(m[0].u.bye.text, "go");
    assert_closing_only(room, 4);
    rs_room_disconnect(room, 4, 0);

    /* Shutdown: BYE to everyone left. */
    rs_room_connect(room, 5, 0);
    rs_room_close_all(room, RS_REASON_SHUTDOWN, "bye");
    assert_int_equal(msgs_for(room, 3, RS_MSG_BYE, m, 8), 1);
    assert_int_equal(m[0].u.bye.reason, RS_REASON_SHUTDOWN);
    uint32_t closing[8];
    assert_int_equal(rs_room_poll_closing(room, closing, 8), 2);
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players + st.spectators, 0);
    rs_room_destroy(room);
}

/* ------------------------------------------------------------ admission */

/* The admit hook of these tests: a desk that notes every HELLO it is
 * asked about and answers as told. Names starting with "guest" are let in
 * at once; the others get `verdict`, after answering inside the call when
 * told to. */
typedef struct admit_desk {
    uint32_t calls;
    uint32_t peer;         /* the last peer asked about */
    rs_msg_hello hello;    /* its HELLO */
    uint8_t verdict;       /* RS_ROOM_ADMIT_* for the others */
    bool admit_inside;     /* rs_room_admit(inside_id, inside_token) inside the call */
    bool refuse_inside;    /* rs_room_refuse(BANNED, "banned here") inside the call */
    int64_t inside_id;
    const char *inside_token;
    bool inside_result;
    rs_room_stats inside_stats; /* the room as the hook saw it */
} admit_desk;

static uint8_t desk_admit(void *ctx, rs_room *room, uint32_t peer, const rs_msg_hello *h)
{
    admit_desk *d = ctx;
    d->calls++;
    d->peer = peer;
    d->hello = *h;
    rs_room_get_stats(room, &d->inside_stats);
    if (strncmp(h->name, "guest", 5) == 0)
        return RS_ROOM_ADMIT_GUEST;
    if (d->admit_inside)
        d->inside_result = rs_room_admit(room, peer, d->inside_id, d->inside_token);
    if (d->refuse_inside)
        d->inside_result = rs_room_refuse(room, peer, RS_REASON_BANNED, "banned here");
    return d->verdict;
}

static const char *const TOKEN = "0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789abcdef";

/* A room with the desk as its admit hook (and nothing else). */
static rs_room *desk_room(const scene *s, admit_desk *d, uint32_t players, uint32_t spectators)
{
    rs_room_config cfg = room_config(s, players);
    cfg.max_players = players;
    cfg.start_players = players;
    cfg.spectator_slots = spectators;
    cfg.load_wait_ticks = 120; /* 2 s: a race starts without PARAMS_ACKs */
    memset(d, 0, sizeof *d);
    d->verdict = RS_ROOM_ADMIT_PENDING;
    cfg.hooks.ctx = d;
    cfg.hooks.admit = desk_admit;
    return new_room(&cfg);
}

/* Peer sends m on the channel its definition gives it. */
static void send_on_its_channel(rs_room *room, uint32_t peer, const rs_msg *m, int64_t now_us)
{
    uint8_t buf[RS_PROTO_MAX_PACKET], ch = 0, dir = 0;
    bool rel = false;
    size_t len = 0;
    assert_true(rs_proto_msg_info(m->type, &ch, &rel, &dir));
    assert_int_equal(rs_proto_encode(m, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    rs_room_receive(room, peer, ch, buf, len, now_us);
}

static void ping(rs_room *room, uint32_t peer, int64_t now_us)
{
    rs_msg m = msg_of(RS_MSG_PING);
    m.u.ping.id = 9;
    send_on_its_channel(room, peer, &m, now_us);
}

/* How many packets the room queued for peer (the whole queue is consumed). */
static uint32_t packets_for(rs_room *room, uint32_t peer)
{
    static rs_room_packet pk[512];
    uint32_t got = 0;
    size_t n;
    while ((n = rs_room_poll(room, pk, 512)) > 0)
        for (size_t i = 0; i < n; i++)
            got += pk[i].peer == peer;
    return got;
}

static uint64_t dropped(const rs_room *room)
{
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    return st.dropped_messages;
}

static void test_room_admits_a_pending_player_later_with_its_token(void **state)
{
    admit_desk d;
    rs_room *room = desk_room(*state, &d, 2, 1);
    static rs_msg m[16];

    join(room, 1, 0, "ann", RS_HELLO_REGISTER);
    assert_int_equal(d.calls, 1);
    assert_int_equal(d.peer, 1);
    assert_string_equal(d.hello.name, "ann");
    assert_true(d.hello.flags & RS_HELLO_REGISTER);
    /* Waiting: no answer, no seat; whatever it sends meanwhile, a second
     * HELLO and a request too, is dropped and counted, and the hook is not
     * asked again. */
    assert_int_equal(packets_for(room, 1), 0);
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 0);
    uint64_t before = dropped(room);
    ping(room, 1, 1000);
    hello_to(room, 1, "ann", "", 0);
    rs_msg q = msg_of(RS_MSG_LEADERBOARD_REQUEST);
    q.u.leaderboard_request.request_id = 3;
    q.u.leaderboard_request.count = 4;
    send_msg(room, 1, &q, 1000);
    assert_int_equal(dropped(room), before + 3);
    assert_int_equal(d.calls, 1);
    assert_int_equal(packets_for(room, 1), 0);
    rs_room_update(room, 5000);
    assert_int_equal(packets_for(room, 1), 0);

    /* The answer: WELCOME with the player id and the token, then the race
     * state and the blocks; from then on the peer is served. */
    assert_true(rs_room_admit(room, 1, 42, TOKEN));
    assert_welcomed(room, 1, 42, TOKEN);
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 1);
    assert_false(rs_room_admit(room, 1, 42, TOKEN)); /* not waiting any more */
    assert_false(rs_room_refuse(room, 1, RS_REASON_AUTH, "late"));
    ping(room, 1, 2000);
    assert_int_equal(msgs_for(room, 1, RS_MSG_PONG, m, 8), 1);

    /* A guest of the desk, at once; and a pending spectator admitted
     * without a token gets an empty one. */
    join(room, 2, 0, "guest1", 0);
    assert_welcomed(room, 2, 0, "");
    join(room, 3, 0, "viewer", RS_HELLO_SPECTATOR);
    assert_int_equal(packets_for(room, 3), 0);
    assert_true(rs_room_admit(room, 3, 5, NULL));
    assert_welcomed(room, 3, 5, "");
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 2);
    assert_int_equal(st.spectators, 1);
    assert_false(rs_room_admit(room, 99, 1, NULL)); /* nobody */
    assert_false(rs_room_admit(NULL, 1, 1, NULL));
    rs_room_destroy(room);
}

static void test_room_refuses_a_pending_player_later_in_the_hooks_words(void **state)
{
    admit_desk d;
    rs_room *room = desk_room(*state, &d, 2, 1);
    join(room, 1, 0, "mallory", 0);
    assert_int_equal(packets_for(room, 1), 0);
    assert_true(rs_room_refuse(room, 1, RS_REASON_BANNED, "banned until Tuesday"));
    assert_refused(room, 1, RS_REASON_BANNED, "banned until Tuesday");
    assert_closing_only(room, 1);
    assert_false(rs_room_admit(room, 1, 7, NULL)); /* refused: not waiting */
    assert_false(rs_room_refuse(room, 1, RS_REASON_AUTH, "again"));
    assert_int_equal(packets_for(room, 1), 0);
    rs_room_disconnect(room, 1, 0);

    /* A reason beyond the protocol's goes out as OTHER, a long text is cut
     * to what a REFUSE holds, at a character boundary. */
    join(room, 2, 0, "trudy", 0);
    char text[400];
    size_t n = 0;
    text[n++] = 'x';
    while (n + 2 < sizeof text) {
        text[n++] = (char)0xc3; /* é, two bytes, from an odd offset: byte 200 is its second */
        text[n++] = (char)0xa9;
    }
    text[n] = '\0';
    assert_true(rs_room_refuse(room, 2, 200, text));
    const rs_msg *r = assert_refused(room, 2, RS_REASON_OTHER, NULL);
    assert_int_equal(strlen(r->u.refuse.text), RS_PROTO_TEXT_MAX - 1);
    assert_memory_equal(r->u.refuse.text, text, strlen(r->u.refuse.text));
    rs_room_destroy(room);
}

static void test_room_forgets_a_pending_player_who_leaves(void **state)
{
    admit_desk d;
    rs_room *room = desk_room(*state, &d, 1, 0);
    static rs_msg m[16];
    join(room, 1, 0, "ann", 0);
    rs_room_disconnect(room, 1, 0);
    assert_false(rs_room_admit(room, 1, 42, TOKEN));
    assert_false(rs_room_refuse(room, 1, RS_REASON_AUTH, "gone"));
    assert_int_equal(packets_for(room, 1), 0);
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 0);
    assert_int_equal(st.refused, 0);
    /* Its seat (the room's only one) was never taken. */
    join(room, 2, 0, "guest2", 0);
    assert_int_equal(msgs_for(room, 2, RS_MSG_WELCOME, m, 8), 1);

    /* BYE while waiting closes it like before a HELLO: the answer then
     * finds nobody waiting. */
    rs_room_connect(room, 3, 0);
    rs_room_disconnect(room, 2, 0);
    hello_to(room, 3, "bob", "", 0);
    rs_msg bye = msg_of(RS_MSG_BYE);
    send_msg(room, 3, &bye, 0);
    assert_closing_only(room, 3);
    assert_false(rs_room_admit(room, 3, 1, NULL));
    assert_int_equal(packets_for(room, 3), 0);
    rs_room_destroy(room);
}

static void test_room_refuses_a_pending_player_when_it_filled_up_meanwhile(void **state)
{
    admit_desk d;
    rs_room *room = desk_room(*state, &d, 1, 1);
    static rs_msg m[16];
    /* Both pass the place check while the seat is free; waiting holds no
     * seat, so the guest who is let in at once takes it. */
    join(room, 1, 0, "ann", RS_HELLO_REGISTER);
    join(room, 2, 0, "guest2", 0);
    assert_int_equal(msgs_for(room, 2, RS_MSG_WELCOME, m, 8), 1);
    assert_true(rs_room_admit(room, 1, 42, TOKEN));
    assert_refused(room, 1, RS_REASON_FULL, "no car free");
    /* Now the room is full: a new HELLO is refused before the hook is
     * asked, a registration with words of its own. */
    uint32_t calls = d.calls;
    join(room, 3, 0, "cat", RS_HELLO_REGISTER);
    assert_refused(room, 3, RS_REASON_FULL, "the room is full: register later");
    assert_int_equal(d.calls, calls);

    /* The same for the spectator slot. */
    join(room, 4, 0, "viewer", RS_HELLO_SPECTATOR);
    join(room, 5, 0, "guest5", RS_HELLO_SPECTATOR);
    assert_int_equal(msgs_for(room, 5, RS_MSG_WELCOME, m, 8), 1);
    assert_true(rs_room_admit(room, 4, 0, NULL));
    assert_refused(room, 4, RS_REASON_FULL, "no spectator slot free");
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 1);
    assert_int_equal(st.spectators, 1);
    rs_room_destroy(room);
}

static void test_room_lets_the_hook_answer_inside_its_call(void **state)
{
    admit_desk d;
    rs_room *room = desk_room(*state, &d, 2, 0);
    d.admit_inside = true;
    d.inside_id = 7;
    d.inside_token = TOKEN;
    join(room, 1, 0, "ann", RS_HELLO_REGISTER);
    assert_true(d.inside_result);
    assert_int_equal(d.inside_stats.players, 0); /* asked before any seat was taken */
    assert_welcomed(room, 1, 7, TOKEN); /* once */
    assert_false(rs_room_admit(room, 1, 7, NULL));

    /* Answered inside and then said GUEST anyway: the first answer stands. */
    d.verdict = RS_ROOM_ADMIT_GUEST;
    d.inside_id = 8;
    d.inside_token = NULL;
    join(room, 2, 0, "bob", 0);
    assert_true(d.inside_result);
    assert_welcomed(room, 2, 8, NULL);
    uint32_t closing[4];
    assert_int_equal(rs_room_poll_closing(room, closing, 4), 0);
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 2);
    assert_int_equal(st.refused, 0);
    rs_room_disconnect(room, 2, 0);

    /* Refused inside the call. */
    d.admit_inside = false;
    d.refuse_inside = true;
    d.verdict = RS_ROOM_ADMIT_PENDING;
    join(room, 3, 0, "mallory", 0);
    assert_true(d.inside_result);
    assert_refused(room, 3, RS_REASON_BANNED, "banned here");
    rs_room_disconnect(room, 3, 0);

    /* A hook breaking its contract: a verdict the room does not know, a
     * token that is not one: refused in words, never left waiting. */
    d.refuse_inside = false;
    d.verdict = 9;
    join(room, 4, 0, "odd", 0);
    assert_refused(room, 4, RS_REASON_AUTH, NULL);
    rs_room_disconnect(room, 4, 0);
    d.verdict = RS_ROOM_ADMIT_PENDING;
    join(room, 5, 0, "odd", 0);
    assert_true(rs_room_admit(room, 5, 3, "abc"));
    assert_refused(room, 5, RS_REASON_AUTH, NULL);
    rs_room_disconnect(room, 5, 0);
    join(room, 6, 0, "odd", 0);
    assert_true(rs_room_admit(room, 6, -8, NULL));
    assert_refused(room, 6, RS_REASON_AUTH, NULL);
    rs_room_destroy(room);
}

/* The seat rules apply when the answer comes: a seat kept for a rejoin is
 * its player's, by name and player id. */
static void test_room_keeps_a_seat_for_its_own_player_through_admission(void **state)
{
    admit_desk d;
    rs_room *room = desk_room(*state, &d, 2, 0);
    join(room, 1, 0, "ann", 0);
    assert_true(rs_room_admit(room, 1, 7, NULL));
    join(room, 2, 0, "guest2", 0);
    /* Into the countdown (the load wait runs out), then ann drops: her
     * seat and car wait for her. */
    rs_room_update(room, 0);
    rs_room_update(room, 2000000);
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    assert_int_equal(st.phase, RS_PHASE_COUNTDOWN);
    rs_room_disconnect(room, 1, 2000000);
    packets_for(room, 2);

    uint32_t calls = d.calls;
    /* Someone else of that name: its registration is refused before the
     * hook (it could never own the seat, so no token is issued)... */
    join(room, 3, 2000000, "ANN", RS_HELLO_REGISTER);
    assert_refused(room, 3, RS_REASON_NAME_TAKEN, NULL);
    assert_int_equal(d.calls, calls);
    rs_room_disconnect(room, 3, 2000000);
    /* ...and another player id is refused when the answer comes. */
    join(room, 4, 2000000, "ann", 0);
    assert_int_equal(d.calls, calls + 1);
    assert_true(rs_room_admit(room, 4, 8, NULL));
    assert_refused(room, 4, RS_REASON_NAME_TAKEN, "that name belongs to another player");
    rs_room_disconnect(room, 4, 2000000);
    /* Two of her at once: the first answer takes the seat, the second (the
     * same player: a game restarted after a crash, its old connection not
     * yet timed out) takes it over at once; the first gets BYE REPLACED. */
    join(room, 5, 2000000, "ann", 0);
    join(room, 6, 2000000, "ann", 0);
    assert_true(rs_room_admit(room, 5, 7, NULL));
    assert_true(rs_room_admit(room, 6, 7, NULL));
    assert_took_over(room, 5, 6, 1); /* her car of this race again */
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 2);
    /* While she is connected: a guest of her name is refused before the
     * hook (it proves nothing); a HELLO with a token is asked about, and
     * another player's id is refused when the answer comes... */
    calls = d.calls;
    join(room, 7, 2000000, "ann", 0);
    assert_refused(room, 7, RS_REASON_NAME_TAKEN, "a player of that name is connected");
    assert_int_equal(d.calls, calls);
    rs_room_disconnect(room, 7, 2000000);
    join_with_token(room, 8, 2000000, "ann");
    assert_int_equal(d.calls, calls + 1);
    assert_true(rs_room_admit(room, 8, 9, NULL));
    assert_refused(room, 8, RS_REASON_NAME_TAKEN, "a player of that name is connected");
    rs_room_disconnect(room, 8, 2000000);
    /* ...while hers takes the seat back at once. */
    join_with_token(room, 9, 2000000, "ann");
    assert_true(rs_room_admit(room, 9, 7, NULL));
    assert_took_over(room, 6, 9, 1);
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 2);
    rs_room_destroy(room);
}

static void test_room_without_an_admit_hook_refuses_registration(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 2);
    rs_room *room = new_room(&cfg);
    join(room, 1, 0, "ann", RS_HELLO_REGISTER);
    assert_refused(room, 1, RS_REASON_AUTH, "this room cannot register players");
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    assert_int_equal(st.players, 0);
    /* The same name as a guest is welcome at once. */
    join(room, 2, 0, "ann", 0);
    assert_welcomed(room, 2, 0, "");
    rs_room_destroy(room);
}

static void test_room_answers_token_requests_without_a_request_hook(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 2);
    rs_room *room = new_room(&cfg);
    static rs_msg m[16];
    join(room, 1, 0, "ann", 0);
    packets_for(room, 1);
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    uint64_t requests = st.requests, drops = st.dropped_messages;

    rs_msg q = msg_of(RS_MSG_TOKEN_ROTATE);
    q.u.token_rotate.request_id = 77;
    send_msg(room, 1, &q, 1000);
    assert_int_equal(msgs_for(room, 1, RS_MSG_TOKEN_REPLY, m, 8), 1);
    assert_int_equal(m[0].u.token_reply.request_id, 77);
    assert_int_equal(m[0].u.token_reply.result, RS_RESULT_ERROR);
    assert_string_equal(m[0].u.token_reply.token, "");
    assert_string_equal(m[0].u.token_reply.text, "unsupported");
    /* TOKEN_ACK: nothing to confirm, nothing to answer, nothing wrong. */
    q = msg_of(RS_MSG_TOKEN_ACK);
    q.u.token_ack.kind = RS_TOKEN_ACK_REGISTERED;
    send_msg(room, 1, &q, 1000);
    assert_int_equal(packets_for(room, 1), 0);
    rs_room_get_stats(room, &st);
    assert_int_equal(st.requests, requests + 1);
    assert_int_equal(st.dropped_messages, drops);
    /* The request rate limit covers rotations: the 11th of a second is BUSY. */
    q = msg_of(RS_MSG_TOKEN_ROTATE);
    for (int i = 0; i < 10; i++)
        send_msg(room, 1, &q, 1000);
    assert_int_equal(msgs_for(room, 1, RS_MSG_TOKEN_REPLY, m, 16), 10); /* 12 this second */
    assert_int_equal(m[7].u.token_reply.result, RS_RESULT_ERROR);
    assert_int_equal(m[8].u.token_reply.result, RS_RESULT_BUSY);
    assert_int_equal(m[9].u.token_reply.result, RS_RESULT_BUSY);
    assert_string_equal(m[9].u.token_reply.token, "");
    rs_room_destroy(room);
}

/* The request hook of these tests: counts what reaches it. */
typedef struct request_log {
    uint32_t acks, rotates;
    int64_t player_id;
    char name[RS_PROTO_NAME_MAX + 1];
} request_log;

static void log_request(void *ctx, rs_room *room, uint32_t peer, int64_t player_id,
                        const char *name, const rs_msg *msg)
{
    request_log *l = ctx;
    l->player_id = player_id;
    snprintf(l->name, sizeof l->name, "%s", name);
    if (msg->type == RS_MSG_TOKEN_ACK)
        l->acks++;
    if (msg->type == RS_MSG_TOKEN_ROTATE) {
        l->rotates++;
        rs_msg r = msg_of(RS_MSG_TOKEN_REPLY);
        r.u.token_reply.request_id = msg->u.token_rotate.request_id;
        r.u.token_reply.result = RS_RESULT_OK;
        strcpy(r.u.token_reply.token, TOKEN);
        assert_true(rs_room_send(room, peer, &r));
    }
}

static uint8_t admit_as_9(void *ctx, rs_room *room, uint32_t peer, const rs_msg_hello *h)
{
    (void)ctx, (void)h;
    assert_true(rs_room_admit(room, peer, 9, TOKEN));
    return RS_ROOM_ADMIT_PENDING;
}

static void test_room_hands_token_requests_to_the_request_hook(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 2);
    request_log log;
    memset(&log, 0, sizeof log);
    cfg.hooks.ctx = &log;
    cfg.hooks.request = log_request;
    cfg.hooks.admit = admit_as_9;
    rs_room *room = new_room(&cfg);
    static rs_msg m[16];
    rs_room_connect(room, 1, 0);
    /* Before admission a token message is nobody's business. */
    rs_msg q = msg_of(RS_MSG_TOKEN_ACK);
    uint64_t drops = dropped(room);
    send_msg(room, 1, &q, 0);
    assert_int_equal(dropped(room), drops + 1);
    hello_to(room, 1, "ann", "", RS_HELLO_REGISTER);
    assert_int_equal(msgs_for(room, 1, RS_MSG_WELCOME, m, 8), 1);
    send_msg(room, 1, &q, 1000);
    assert_int_equal(log.acks, 1);
    assert_int_equal(log.player_id, 9);
    assert_string_equal(log.name, "ann");
    q = msg_of(RS_MSG_TOKEN_ROTATE);
    q.u.token_rotate.request_id = 4;
    send_msg(room, 1, &q, 1000);
    assert_int_equal(log.rotates, 1);
    assert_int_equal(msgs_for(room, 1, RS_MSG_TOKEN_REPLY, m, 8), 1);
    assert_int_equal(m[0].u.token_reply.request_id, 4);
    assert_string_equal(m[0].u.token_reply.token, TOKEN);
    /* One budget for every request: 8 more ACKs fill this second, the
     * rest are dropped without a word. */
    q = msg_of(RS_MSG_TOKEN_ACK);
    q.u.token_ack.kind = RS_TOKEN_ACK_ROTATED;
    for (int i = 0; i < 12; i++)
        send_msg(room, 1, &q, 1000);
    assert_int_equal(log.acks, 9);
    assert_int_equal(packets_for(room, 1), 0);
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    assert_int_equal(st.rate_limited, 4);
    send_msg(room, 1, &q, 1100000);
    assert_int_equal(log.acks, 10);
    rs_room_destroy(room);
}

/* Blocks travel once per connection and ahead of the race (SPEC.md,
 * "Parameter blocks"): a joining player gets the track and the stock car
 * in the lobby, the countdown waits for its PARAMS_ACKs (or the load wait),
 * the countdown's world is then a snapshot alone, and a world the client
 * has not acknowledged yet is never restarted under it. */
static uint32_t params_msgs(rs_room *room, uint32_t peer, uint32_t *track, uint32_t *car)
{
    static rs_msg m[256];
    uint32_t n = msgs_for(room, peer, RS_MSG_PARAMS, m, 256);
    assert_true(n <= 256);
    *track = *car = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (m[i].u.params.kind == RS_PARAMS_TRACK)
            (*track)++;
        else
            (*car)++;
    }
    return n;
}

static void ack_block(rs_room *room, uint32_t peer, uint8_t kind, uint64_t hash, int64_t now_us)
{
    rs_msg m = msg_of(RS_MSG_PARAMS_ACK);
    m.u.params_ack.kind = kind;
    m.u.params_ack.id_hash = hash;
    send_msg(room, peer, &m, now_us);
}

static void test_room_sends_blocks_once_and_waits_for_them(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 2);
    cfg.start_players = 1;
    cfg.load_wait_ticks = 120; /* 2 s */
    rs_room *room = new_room(&cfg);
    uint64_t track_hash = rs_track_hash(cfg.track);
    uint64_t car_hash = rs_car_params_hash(cfg.car);
    uint32_t track_chunks = rs_proto_chunk_count(cfg.track_json_len);
    const int64_t S = 1000000;

    join(room, 1, 0, "ann", 0);
    rs_room_update(room, 0);
    uint32_t tr = 0, ca = 0;
    params_msgs(room, 1, &tr, &ca);
    assert_int_equal(tr, track_chunks);
    assert_true(ca >= 1);
    /* Due (one player is enough) but waiting for ann's blocks; nothing is
     * sent twice. */
    rs_room_stats st;
    for (int64_t t = S / 10; t < S; t += S / 10) {
        rs_room_update(room, t);
        assert_int_equal(params_msgs(room, 1, &tr, &ca), 0);
    }
    rs_room_get_stats(room, &st);
    assert_int_equal(st.phase, RS_PHASE_LOBBY);
    ack_block(room, 1, RS_PARAMS_TRACK, track_hash, S);
    ack_block(room, 1, RS_PARAMS_CAR, track_hash, S); /* the wrong hash counts for nothing */
    rs_room_update(room, S + S / 2);
    rs_room_get_stats(room, &st);
    assert_int_equal(st.phase, RS_PHASE_LOBBY);
    ack_block(room, 1, RS_PARAMS_CAR, car_hash, S + S / 2);
    rs_room_update(room, S + S / 2 + 1000);
    rs_room_get_stats(room, &st);
    assert_int_equal(st.phase, RS_PHASE_COUNTDOWN);
    assert_int_equal(st.load_timeouts, 0);
    assert_int_equal(st.snapshots_sent, 1);
    /* The countdown's world: no blocks, since ann holds them. */
    assert_int_equal(params_msgs(room, 1, &tr, &ca), 0);

    /* ann acknowledges nothing of the world (its snapshot is still on the
     * way): 12 s later the room has not restarted the transfer. */
    int64_t t0 = S + S / 2 + 1000;
    for (int64_t t = t0; t < t0 + 12 * S; t += S / 60) {
        rs_room_update(room, t);
        msgs_for(room, 1, RS_MSG_SNAPSHOT, NULL, 0);
    }
    rs_room_get_stats(room, &st);
    assert_true(st.tick > 600);
    assert_int_equal(st.snapshots_sent, 1);

    /* A late joiner on a new connection gets every block with its world. */
    join(room, 2, t0 + 12 * S, "ben", 0);
    uint32_t n = params_msgs(room, 2, &tr, &ca);
    assert_int_equal(tr, track_chunks);
    assert_true(ca >= 1);
    assert_int_equal(n, tr + ca);
    rs_room_destroy(room);

    /* Nobody acknowledges: the race starts when the load wait runs out. */
    room = new_room(&cfg);
    join(room, 1, 0, "ann", 0);
    rs_room_update(room, 0);
    rs_room_update(room, 2 * S - 1000);
    rs_room_get_stats(room, &st);
    assert_int_equal(st.phase, RS_PHASE_LOBBY);
    rs_room_update(room, 2 * S);
    rs_room_get_stats(room, &st);
    assert_int_equal(st.phase, RS_PHASE_COUNTDOWN);
    assert_int_equal(st.load_timeouts, 1);
    rs_room_destroy(room);
}

/* Hooks that count what the room tells them; LAP flags come from here. */
typedef struct hook_log {
    uint32_t begins, ends, results, befores, afters, closed;
    uint32_t entrants;
    uint64_t tuned_hash, entrant_hash;
    bool flag_laps;
} hook_log;

static void h_begin(void *ctx, rs_room *room, const rs_world *world,
                    const rs_room_entrant *e, uint32_t n)
{
    (void)room;
    hook_log *l = ctx;
    l->begins++;
    l->entrants = n;
    assert_int_equal(rs_world_car_count(world), n);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(e[i].car, i + 1);
        assert_int_equal(rs_car_params_hash(e[i].params), e[i].params_hash);
        if (e[i].tune_hash)
            l->entrant_hash = e[i].params_hash;
    }
}
static void h_before(void *ctx, rs_room *room, const rs_world *world)
{
    (void)room, (void)world;
    ((hook_log *)ctx)->befores++;
}
static void h_after(void *ctx, rs_room *room, const rs_world *world)
{
    hook_log *l = ctx;
    l->afters++;
    size_t n = 0;
    const rs_event *ev = rs_world_events(world, &n);
    for (size_t i = 0; i < n; i++)
        if (ev[i].type == RS_EVENT_LAP && l->flag_laps && ev[i].car == 1)
            rs_room_lap_flags(room, (uint8_t)ev[i].car, ev[i].lap, RS_LAP_RECORDED);
}
static void h_results(void *ctx, rs_room *room, const rs_world *world)
{
    (void)room, (void)world;
    ((hook_log *)ctx)->results++;
}
static void h_end(void *ctx, rs_room *room, const rs_world *world)
{
    (void)room, (void)world;
    ((hook_log *)ctx)->ends++;
}
static void h_closed(void *ctx, rs_room *room)
{
    (void)room;
    ((hook_log *)ctx)->closed++;
}

static void test_room_calls_its_hooks_and_defers_laps(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 2);
    cfg.laps = 1;
    cfg.results_ticks = 60;
    cfg.defer_laps = true;
    hook_log log;
    memset(&log, 0, sizeof log);
    log.flag_laps = true;
    cfg.hooks.ctx = &log;
    cfg.hooks.race_begin = h_begin;
    cfg.hooks.before_step = h_before;
    cfg.hooks.after_step = h_after;
    cfg.hooks.race_results = h_results;
    cfg.hooks.race_end = h_end;
    cfg.hooks.closed = h_closed;
    harness *h = harness_create(&cfg, NULL);
    rs_client_config ann = harness_player("ann", 20), ben = harness_player("ben", 20);
    uint32_t a = harness_add_client(h, &ann, HARNESS_AI);
    uint32_t b = harness_add_client(h, &ben, HARNESS_AI);
    rs_room *room = harness_room(h);
    /* A tuned-looking car for ben: any other parameter block will do. */
    rs_car_params *other = NULL;
    assert_true(test_car_load("formula", &other));
    /* The countdown starts once both players hold the track and the car. */
    rs_room_stats st;
    int64_t load_end = harness_now(h) + 5 * 1000000LL;
    do {
        harness_step(h, 1000);
        rs_room_get_stats(room, &st);
    } while (st.phase == RS_PHASE_LOBBY && harness_now(h) < load_end);
    assert_int_equal(st.phase, RS_PHASE_COUNTDOWN);
    assert_int_equal(st.load_timeouts, 0);
    assert_int_equal(rs_room_set_seat_car(room, "ben", other, 42), RS_OK);
    int64_t end = harness_now(h) + 200 * 1000000LL;
    do {
        harness_step(h, 1000);
        rs_room_get_stats(room, &st);
    } while ((st.race_number < 2 || st.tick < 200) && harness_now(h) < end);
    assert_int_equal(st.race_number, 2);
    assert_int_equal(log.begins, 2);
    assert_int_equal(log.results, 1);
    assert_int_equal(log.ends, 1);
    assert_int_equal(log.befores, log.afters);
    assert_true(log.afters >= st.tick);
    assert_int_equal(log.entrant_hash, rs_car_params_hash(other));
    /* Car 1's laps were flagged at once; car 2's waited 5 s (or the end of
     * their world) and went out with flags 0. */
    rs_client_event ev;
    uint32_t flagged = 0, plain = 0;
    while (harness_client_take(h, a, RS_CLIENT_EV_LAP, &ev)) {
        /* The chequered flag is the room's own bit, whatever the store says. */
        uint8_t stored = ev.u.lap.flags & (uint8_t)~RS_LAP_CHEQUERED;
        if (ev.u.lap.car == 1)
            assert_int_equal(stored, RS_LAP_RECORDED), flagged++;
        else
            assert_int_equal(stored, 0), plain++;
    }
    assert_true(flagged >= 1 && plain >= 1);
    /* The second race runs ben's own car: CAR_INFO says so, and the clients
     * built it from its block, whose hash they checked against WELCOME's. */
    bool seen = false;
    while (harness_client_take(h, b, RS_CLIENT_EV_CAR_INFO, &ev))
        if (ev.u.car_info.params_hash == rs_car_params_hash(other) &&
            ev.u.car_info.tune_hash == 42)
            seen = true;
    assert_true(seen);
    uint8_t ben_car = rs_client_car(harness_client(h, b));
    for (uint32_t i = 0; i < 2; i++) {
        const rs_car_params *built = rs_client_car_params(harness_client(h, i), ben_car);
        assert_non_null(built);
        assert_int_equal(rs_car_params_hash(built), rs_car_params_hash(other));
        assert_int_equal(harness_client_events(h, i)->count[RS_CLIENT_EV_ERROR], 0);
    }
    /* An admin ends the race; then nothing is running to end. */
    while (st.phase != RS_PHASE_RACE) {
        harness_step(h, 1000);
        rs_room_get_stats(room, &st);
    }
    assert_true(rs_room_end_race(room));
    assert_false(rs_room_end_race(room));
    assert_int_equal(log.results, 2);
    rs_client_stats cs;
    rs_client_get_stats(harness_client(h, b), harness_now(h), &cs);
    assert_int_equal(cs.desyncs, 0);
    harness_destroy(h);
    assert_int_equal(log.ends, 2);
    assert_int_equal(log.closed, 1);
    rs_car_params_destroy(other);
}


/* ------------------------------------------------------------ observer */

/* What an observer heard, in order: each event's type and facts, copied
 * (names and texts are borrowed for the call only). */
typedef struct seen_event {
    uint8_t type, reason, car, phase;
    bool spectator, lost, by_peer;
    uint32_t peer, race_number;
    int64_t player_id;
    char name[RS_PROTO_NAME_MAX + 1];
    char text[RS_PROTO_TEXT_MAX + 1];
    uint64_t tick;     /* STEPPED, PHASE with a world: the world's tick */
} seen_event;

typedef struct watch_log {
    seen_event ev[4096];
    uint32_t n;
    uint32_t stepped;          /* STEPPED events (not kept in ev) */
    uint64_t last_step_tick;   /* the world tick after the last STEPPED */
    uint32_t steps_out_of_order;
    uint32_t laps;             /* LAP world events seen through STEPPED */
    bool no_world_on_step;     /* a STEPPED without a world */
} watch_log;

static void watch(void *ctx, rs_room *room, const rs_room_event *ev)
{
    watch_log *w = ctx;
    assert_non_null(room);
    if (ev->type == RS_ROOM_EV_STEPPED) {
        if (!ev->world) {
            w->no_world_on_step = true;
            return;
        }
        uint64_t t = rs_world_tick(ev->world);
        /* One event per tick, each one tick on (a new world starts at 1). */
        if (!(t == w->last_step_tick + 1 || t == 1))
            w->steps_out_of_order++;
        w->last_step_tick = t;
        w->stepped++;
        size_t n = 0;
        const rs_event *we = rs_world_events(ev->world, &n);
        for (size_t i = 0; i < n; i++)
            w->laps += we[i].type == RS_EVENT_LAP;
        return;
    }
    assert_true(w->n < sizeof w->ev / sizeof w->ev[0]);
    seen_event *e = &w->ev[w->n++];
    memset(e, 0, sizeof *e);
    e->type = ev->type;
    e->reason = ev->reason;
    e->car = ev->car;
    e->phase = ev->phase;
    e->spectator = ev->spectator;
    e->lost = ev->lost;
    e->by_peer = ev->by_peer;
    e->peer = ev->peer;
    e->race_number = ev->race_number;
    e->player_id = ev->player_id;
    assert_non_null(ev->name);
    assert_non_null(ev->text);
    snprintf(e->name, sizeof e->name, "%s", ev->name);
    snprintf(e->text, sizeof e->text, "%s", ev->text);
    e->tick = ev->world ? rs_world_tick(ev->world) : 0;
}

/* Asserts that event i was of type about peer (name "" = any). */
static const seen_event *seen(const watch_log *w, uint32_t i, uint8_t type, uint32_t peer,
                              const char *name)
{
    assert_true(i < w->n);
    const seen_event *e = &w->ev[i];
    assert_int_equal(e->type, type);
    if (type != RS_ROOM_EV_PHASE)
        assert_int_equal(e->peer, peer);
    if (name)
        assert_string_equal(e->name, name);
    return e;
}

static void test_room_observer_sees_joins_leaves_and_refusals_once(void **state)
{
    admit_desk d;
    rs_room_config cfg = room_config(*state, 2);
    cfg.max_players = 2;
    cfg.start_players = 2;
    cfg.spectator_slots = 1;
    cfg.password = "sesame";
    memset(&d, 0, sizeof d);
    d.verdict = RS_ROOM_ADMIT_PENDING;
    cfg.hooks.ctx = &d;
    cfg.hooks.admit = desk_admit;
    static watch_log w;
    memset(&w, 0, sizeof w);
    cfg.observer.ctx = &w;
    cfg.observer.event = watch;
    rs_room *room = new_room(&cfg);

    /* Refused by the room itself: another protocol version (no name known),
     * a wrong password. */
    rs_room_connect(room, 1, 0);
    hello(room, 1, RS_PROTO_VERSION + 1, "old", "sesame");
    rs_room_connect(room, 2, 0);
    hello(room, 2, RS_PROTO_VERSION, "nopass", "wrong");
    /* Admitted later by the hook: a registered player and a spectator. */
    rs_room_connect(room, 3, 0);
    hello_as(room, 3, RS_PROTO_VERSION, "alice", "", "sesame", TOKEN, 0);
    assert_true(rs_room_admit(room, 3, 7, NULL));
    rs_room_connect(room, 4, 0);
    hello_as(room, 4, RS_PROTO_VERSION, "watch", "", "sesame", "", RS_HELLO_SPECTATOR);
    assert_true(rs_room_admit(room, 4, 0, NULL));
    /* alice again from elsewhere, proven by the hook: the old connection
     * is replaced. */
    rs_room_connect(room, 5, 0);
    hello_as(room, 5, RS_PROTO_VERSION, "alice", "", "sesame", TOKEN, 0);
    assert_true(rs_room_admit(room, 5, 7, NULL));
    /* The hook's own refusal for eve; then no seat is left for carol. */
    rs_room_connect(room, 8, 0);
    hello(room, 8, RS_PROTO_VERSION, "eve", "sesame");
    assert_true(rs_room_refuse(room, 8, RS_REASON_BANNED, "banned until Tuesday"));
    rs_room_connect(room, 6, 0);
    hello(room, 6, RS_PROTO_VERSION, "bob", "sesame");
    assert_true(rs_room_admit(room, 6, 0, NULL));
    rs_room_connect(room, 7, 0);
    hello(room, 7, RS_PROTO_VERSION, "carol", "sesame");
    /* bob says goodbye, alice's connection is lost, the spectator is kicked. */
    rs_msg bye = msg_of(RS_MSG_BYE);
    snprintf(bye.u.bye.text, sizeof bye.u.bye.text, "see you");
    send_msg(room, 6, &bye, 0);
    rs_room_disconnect(room, 5, 0);
    assert_true(rs_room_kick(room, "watch", RS_REASON_KICKED, "go away"));
    /* The transport lets the closed ones go: nothing more to report. */
    for (uint32_t peer = 1; peer <= 8; peer++)
        rs_room_disconnect(room, peer, 0);
    rs_room_update(room, 1000);

    uint32_t i = 0;
    const seen_event *e = seen(&w, i++, RS_ROOM_EV_REFUSED, 1, "");
    assert_int_equal(e->reason, RS_REASON_VERSION);
    assert_non_null(strstr(e->text, "protocol version"));
    e = seen(&w, i++, RS_ROOM_EV_REFUSED, 2, "nopass");
    assert_int_equal(e->reason, RS_REASON_PASSWORD);
    assert_string_equal(e->text, "wrong room password");
    e = seen(&w, i++, RS_ROOM_EV_JOINED, 3, "alice");
    assert_int_equal(e->player_id, 7);
    assert_false(e->spectator);
    assert_int_equal(e->car, 0); /* the lobby: no world, no car yet */
    e = seen(&w, i++, RS_ROOM_EV_JOINED, 4, "watch");
    assert_true(e->spectator);
    e = seen(&w, i++, RS_ROOM_EV_LEFT, 3, "alice");
    assert_int_equal(e->reason, RS_REASON_REPLACED);
    assert_false(e->lost);
    assert_false(e->by_peer);
    assert_int_equal(e->player_id, 7);
    e = seen(&w, i++, RS_ROOM_EV_JOINED, 5, "alice");
    assert_int_equal(e->player_id, 7);
    e = seen(&w, i++, RS_ROOM_EV_REFUSED, 8, "eve");
    assert_int_equal(e->reason, RS_REASON_BANNED);
    assert_string_equal(e->text, "banned until Tuesday");
    seen(&w, i++, RS_ROOM_EV_JOINED, 6, "bob");
    e = seen(&w, i++, RS_ROOM_EV_REFUSED, 7, "carol");
    assert_int_equal(e->reason, RS_REASON_FULL);
    e = seen(&w, i++, RS_ROOM_EV_LEFT, 6, "bob");
    assert_true(e->by_peer);
    assert_int_equal(e->reason, RS_REASON_NONE);
    assert_string_equal(e->text, "see you");
    e = seen(&w, i++, RS_ROOM_EV_LEFT, 5, "alice");
    assert_true(e->lost);
    assert_int_equal(e->reason, RS_REASON_NONE);
    e = seen(&w, i++, RS_ROOM_EV_LEFT, 4, "watch");
    assert_true(e->spectator);
    assert_int_equal(e->reason, RS_REASON_KICKED);
    assert_string_equal(e->text, "go away");
    assert_int_equal(w.n, i);
    assert_int_equal(w.stepped, 0);
    rs_room_destroy(room);
    assert_int_equal(w.n, i); /* nothing from destroy */
}

static void test_room_observer_sees_every_phase_and_step_of_a_race(void **state)
{
    scene *s = *state;
    rs_room_config cfg = room_config(s, 2);
    cfg.laps = 1;
    cfg.results_ticks = 60;
    static watch_log w;
    memset(&w, 0, sizeof w);
    cfg.observer.ctx = &w;
    cfg.observer.event = watch;
    harness *h = harness_create(&cfg, NULL);
    rs_client_config ann = harness_player("ann", 20), ben = harness_player("ben", 20),
                     eye = harness_player("eye", 20);
    eye.spectator = true;
    harness_add_client(h, &ann, HARNESS_AI);
    harness_add_client(h, &ben, HARNESS_AI);
    harness_add_client(h, &eye, HARNESS_AI);
    rs_room *room = harness_room(h);
    rs_room_stats st;
    int64_t end = harness_now(h) + 200 * 1000000LL;
    do {
        harness_step(h, 1000);
        rs_room_get_stats(room, &st);
    } while ((st.race_number < 2 || st.tick < 100) && harness_now(h) < end);
    assert_int_equal(st.race_number, 2);
    assert_int_equal(st.phase, RS_PHASE_COUNTDOWN);

    /* Three joins, then the phases of race 1 and the start of race 2. */
    uint32_t joins = 0, k = 0;
    for (; k < w.n && w.ev[k].type == RS_ROOM_EV_JOINED; k++)
        joins++;
    assert_int_equal(joins, 3);
    static const uint8_t phases[] = {RS_PHASE_COUNTDOWN, RS_PHASE_RACE, RS_PHASE_RESULTS,
                                     RS_PHASE_LOBBY, RS_PHASE_COUNTDOWN};
    static const uint32_t races[] = {1, 1, 1, 1, 2};
    for (uint32_t p = 0; p < sizeof phases; p++, k++) {
        const seen_event *e = seen(&w, k, RS_ROOM_EV_PHASE, 0, NULL);
        assert_int_equal(e->phase, phases[p]);
        assert_int_equal(e->race_number, races[p]);
    }
    assert_int_equal(w.n, k); /* nobody left, nobody was refused */
    /* Exactly one STEPPED per tick the room stepped, in order, with the
     * world's events: each car's lap of race 1. */
    assert_int_equal(w.stepped, st.ticks);
    assert_int_equal(w.steps_out_of_order, 0);
    assert_false(w.no_world_on_step);
    assert_true(w.laps >= 2);
    /* ben's cable is pulled: LEFT, connection lost, with ben's car. */
    uint8_t ben_car = rs_client_car(harness_client(h, 1));
    harness_client_drop(h, 1);
    harness_step(h, 1000);
    const seen_event *e = seen(&w, k, RS_ROOM_EV_LEFT, w.ev[k].peer, "ben");
    assert_true(e->lost);
    assert_int_equal(e->car, ben_car);
    assert_true(ben_car >= 1);
    harness_destroy(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_room_refuses_in_words_and_drops_garbage),
        cmocka_unit_test(test_room_closed_to_newcomers_keeps_its_players),
        cmocka_unit_test(test_room_serves_requests_and_controls_without_a_server),
        cmocka_unit_test(test_room_admits_a_pending_player_later_with_its_token),
        cmocka_unit_test(test_room_refuses_a_pending_player_later_in_the_hooks_words),
        cmocka_unit_test(test_room_forgets_a_pending_player_who_leaves),
        cmocka_unit_test(test_room_refuses_a_pending_player_when_it_filled_up_meanwhile),
        cmocka_unit_test(test_room_lets_the_hook_answer_inside_its_call),
        cmocka_unit_test(test_room_keeps_a_seat_for_its_own_player_through_admission),
        cmocka_unit_test(test_room_without_an_admit_hook_refuses_registration),
        cmocka_unit_test(test_room_answers_token_requests_without_a_request_hook),
        cmocka_unit_test(test_room_hands_token_requests_to_the_request_hook),
        cmocka_unit_test(test_room_sends_blocks_once_and_waits_for_them),
        cmocka_unit_test(test_room_calls_its_hooks_and_defers_laps),
        cmocka_unit_test(test_room_observer_sees_joins_leaves_and_refusals_once),
        cmocka_unit_test(test_room_observer_sees_every_phase_and_step_of_a_race),
        cmocka_unit_test(test_room_gives_a_rejoining_player_the_same_car),
        cmocka_unit_test(test_room_starts_the_next_race_with_a_new_world),
        cmocka_unit_test(test_room_races_eight_clients_without_desync),
        cmocka_unit_test(test_room_races_through_an_impaired_network_without_desync),
    };
    return cmocka_run_group_tests(tests, harness_scene_setup, harness_scene_teardown);
}
