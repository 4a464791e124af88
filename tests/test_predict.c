/*
 * Client prediction and rollback (client_sdk predict.h), without a network:
 * a server world and a client predictor are built identically on the oval;
 * AI drivers produce every car's inputs (car 1 is the client's, driven on
 * the client's predicted world); the client runs LEAD ticks ahead of the
 * server and receives the server's frames (inputs, and a hash every few
 * ticks) DELAY ticks late. The predictor's confirmed state must hash like
 * the server's at every checked tick; mispredictions must roll back only
 * from the first mispredicted tick; a corrupted frame must be reported as a
 * desync, and a server snapshot must bring the client back in sync; nothing
 * may be allocated after creation.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "racesim/driver.h"
#include "racesim/physics.h"
#include "racesim/predict.h"
#include "racesim/track.h"
#include "racesim/base/clock.h"
#include "racesim/base/stats.h"
#include "racesim/base/alloc_count.h"
#include "test_data.h"

/* ------------------------------------------------ allocation counting */

#if RS_WRAP_ALLOC
#define ALLOC_CHECKED 1
ALLOC_COUNT_WRAP_MALLOC_CALLOC_REALLOC
#else
#define ALLOC_CHECKED 0 /* sanitizer builds: the allocation check is skipped */
#endif

/* ------------------------------------------------------------- test_scene */

#define MAX_CARS 16
#define MAX_TICKS 3200
#define START_TICK 30

/* The oval, the C5 and the AI's line for them, loaded once for the group;
 * every test gets the scene as its state. */
static int scene_load(void **state)
{
    static test_scene s;
    if (!test_scene_load("oval", "c5", true, &s))
        return -1;
    *state = &s;
    return 0;
}

static int scene_free(void **state)
{
    test_scene_free(*state);
    return 0;
}

/* The room's world, built the same way on the server and on the client. */
static rs_world *build_world(const test_scene *s, uint32_t n)
{
    rs_world_def def = rs_world_default();
    def.track = s->track;
    def.max_cars = n;
    def.laps = 0;
    def.start_tick = START_TICK;
    rs_world *w = NULL;
    assert_int_equal(rs_world_create(&def, &w), RS_OK);
    for (uint32_t i = 0; i < n; i++) {
        rs_car_spawn sp;
        assert_true(rs_track_grid_slot(s->track, i, &sp));
        sp.transmission = RS_TRANSMISSION_MANUAL;
        assert_int_equal(rs_world_add_car(w, s->car, &sp, NULL), RS_OK);
    }
    return w;
}

/* A predictor of a fresh world of n cars, predicting for car 1 up to
 * max_lead ticks ahead. */
static rs_predict *predictor(const test_scene *s, uint32_t n, uint32_t max_lead)
{
    rs_predict_config cfg = rs_predict_config_default();
    cfg.local_car = (rs_car_id){1};
    cfg.max_lead_ticks = max_lead;
    rs_predict *p = NULL;
    assert_int_equal(rs_predict_create(build_world(s, n), &cfg, &p), RS_PREDICT_OK);
    return p;
}

/* ------------------------------------------------------- the harness */

/* A server and one client joined by a perfect but slow link: the client's
 * inputs reach the server before their tick (it runs `lead` ticks ahead),
 * the server's frames reach the client `delay` ticks after their tick. */
typedef struct net_race {
    uint32_t n, lead, delay, hash_every, drop_every;
    rs_world *server;
    rs_driver *drivers[MAX_CARS]; /* server side: every remote car */
    rs_driver *local_driver;      /* client side: car 1 on the predicted world */
    rs_predict *pred;
    uint64_t server_tick;         /* the next tick the server steps */
    uint64_t sent_upto;           /* local inputs produced for ticks below this */
    rs_input sent[MAX_TICKS + 64];
    bool lost[MAX_TICKS + 64];    /* the server never received it */
    rs_input prev_local;
    rs_input frames[MAX_TICKS][MAX_CARS];
    uint64_t hashes[MAX_TICKS];   /* server hash after stepping tick t */
    uint64_t hashes_sent;
    uint64_t desync_reports;      /* calls that returned RS_PREDICT_DESYNC */
    int64_t pred_ns;              /* time spent in predictor calls */
    uint64_t confirmed;           /* confirmations accepted */
} net_race;

static net_race *race_create(const test_scene *s, uint32_t n, uint32_t lead, uint32_t delay)
{
    net_race *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->n = n;
    r->lead = lead;
    r->delay = delay;
    r->hash_every = 5;
    r->drop_every = 97;
    r->server = build_world(s, n);
    for (uint32_t i = 0; i < n; i++) {
        rs_driver_options o = rs_driver_options_default();
        o.seed = 11u + i;
        o.pace = 0.96 - 0.004 * i;
        assert_int_equal(rs_driver_create(s->line, &o, &r->drivers[i]), RS_OK);
    }
    rs_driver_options o = rs_driver_options_default();
    o.seed = 11u;
    o.pace = 0.96;
    assert_int_equal(rs_driver_create(s->line, &o, &r->local_driver), RS_OK);
    r->pred = predictor(s, n, 64);
    r->prev_local = rs_input_default();
    return r;
}

static void race_free(net_race *r)
{
    rs_predict_destroy(r->pred);
    for (uint32_t i = 0; i < r->n; i++)
        rs_driver_destroy(r->drivers[i]);
    rs_driver_destroy(r->local_driver);
    rs_world_destroy(r->server);
    free(r);
}

static void expect_ok_or_desync(net_race *r, rs_predict_status st)
{
    if (st == RS_PREDICT_DESYNC) {
        r->desync_reports++;
        return;
    }
    if (st != RS_PREDICT_OK)
        fail_msg("predictor: %s", rs_predict_status_str(st));
}

/* Hands the client the server's frame for tick k, optionally corrupted. */
static void deliver(net_race *r, uint64_t k, bool bad_hash, bool bad_input)
{
    rs_input in[MAX_CARS];
    memcpy(in, r->frames[k], r->n * sizeof *in);
    if (bad_input)
        in[r->n - 1].steer = (int16_t)(in[r->n - 1].steer > 0 ? -20000 : 20000);
    bool has_hash = k % r->hash_every == 0;
    uint64_t hash = r->hashes[k] ^ (bad_hash ? 1u : 0u);
    r->hashes_sent += has_hash;
    alloc_counting = 1;
    int64_t t0 = rs_clock_ns();
    rs_predict_status st = rs_predict_confirm(r->pred, k, in, has_hash, hash);
    r->pred_ns += rs_clock_ns() - t0;
    alloc_counting = 0;
    r->confirmed++;
    expect_ok_or_desync(r, st);
}

/* One server tick: the client first runs ahead to server_tick + lead
 * (sending its inputs), the server steps, and the frame of the tick delay
 * ticks ago arrives at the client. */
static void race_tick(net_race *r, bool bad_hash, bool bad_input)
{
    uint64_t T = r->server_tick;
    assert_true(T < MAX_TICKS);
    const rs_car_id me = {1};
    while (rs_predict_present_tick(r->pred) < T + r->lead) {
        uint64_t p = rs_predict_present_tick(r->pred);
        if (p >= r->sent_upto) {
            rs_input in = rs_driver_update(r->local_driver, rs_predict_world(r->pred), me);
            alloc_counting = 1;
            int64_t t0 = rs_clock_ns();
            assert_int_equal(rs_predict_local_input(r->pred, p, &in), RS_PREDICT_OK);
            r->pred_ns += rs_clock_ns() - t0;
            alloc_counting = 0;
            r->sent[p] = in;
            r->lost[p] = r->drop_every && p % r->drop_every == 0;
            r->sent_upto = p + 1;
        }
        alloc_counting = 1;
        int64_t t0 = rs_clock_ns();
        rs_predict_status st = rs_predict_advance_to(r->pred, p + 1);
        r->pred_ns += rs_clock_ns() - t0;
        alloc_counting = 0;
        expect_ok_or_desync(r, st);
    }
    /* The server: a lost local input is replaced by the car's previous one. */
    for (uint32_t c = 0; c < r->n; c++) {
        rs_input in;
        if (c == 0)
            in = r->lost[T] ? r->prev_local : r->sent[T];
        else
            in = rs_driver_update(r->drivers[c], r->server, (rs_car_id){(uint16_t)(c + 1)});
        r->frames[T][c] = in;
    }
    r->prev_local = r->frames[T][0];
    for (uint32_t c = 0; c < r->n; c++)
        rs_world_set_input(r->server, (rs_car_id){(uint16_t)(c + 1)}, &r->frames[T][c]);
    assert_int_equal(rs_world_step(r->server), RS_OK);
    r->hashes[T] = rs_world_hash(r->server);
    r->server_tick = T + 1;
    if (T >= r->delay && T - r->delay >= rs_predict_confirmed_tick(r->pred))
        deliver(r, T - r->delay, bad_hash, bad_input);
}

/* Late join / recovery: the server's snapshot of its present state. */
static void race_resync(net_race *r)
{
    static uint8_t buf[1 << 16];
    size_t len = rs_world_snapshot(r->server, buf, sizeof buf);
    assert_true(len <= sizeof buf);
    uint64_t tick = r->server_tick;
    assert_int_equal(rs_predict_reset_snapshot(r->pred, tick, buf, len, r->frames[tick - 1]),
                     RS_PREDICT_OK);
    assert_int_equal(rs_predict_confirmed_tick(r->pred), tick);
    assert_int_equal(rs_predict_confirmed_hash(r->pred), r->hashes[tick - 1]);
}

static void print_stats(const char *what, rs_predict *p, double now_s)
{
    rs_predict_stats st;
    rs_predict_get_stats(p, now_s, &st);
    print_message("%s: present %llu confirmed %llu, steps %llu (predicted %llu, re-simulated "
                  "%llu), rollbacks %llu (%.1f/s), depth p50 %u p99 %u max %u, mispredicted "
                  "ticks %llu, local error last %.4f max %.4f mean %.4f m, local inputs "
                  "replaced %llu too old %llu, hashes %llu, desyncs %llu\n",
                  what, (unsigned long long)st.present_tick,
                  (unsigned long long)st.confirmed_tick, (unsigned long long)st.steps,
                  (unsigned long long)st.predicted_steps, (unsigned long long)st.resim_steps,
                  (unsigned long long)st.rollbacks, st.rollbacks_per_s, st.depth_p50,
                  st.depth_p99, st.depth_max, (unsigned long long)st.mispredicted_ticks,
                  st.local_error_m_last, st.local_error_m_max, st.local_error_m_mean,
                  (unsigned long long)st.local_inputs_replaced,
                  (unsigned long long)st.local_inputs_too_old,
                  (unsigned long long)st.hashes_checked, (unsigned long long)st.desyncs);
}

/* ------------------------------------------------------------- tests */

static void test_a_predicting_client_stays_in_sync_with_the_server(void **state)
{
    const test_scene *s = *state;
    const uint32_t lead = 4, delay = 6, ticks = 2400;
    net_race *r = race_create(s, 3, lead, delay);
    alloc_count = 0;
    rs_predict_stats st;
    for (uint32_t t = 0; t < ticks; t++) {
        race_tick(r, false, false);
        /* The caller's clock: the server's tick time. */
        rs_predict_get_stats(r->pred, (double)t / 60.0, &st);
        if (t % 200 == 199) {
            /* Forces any pending rollback; the confirmed state is the server's. */
            uint64_t c = rs_predict_confirmed_tick(r->pred);
            assert_int_equal(rs_predict_confirmed_hash(r->pred), r->hashes[c - 1]);
        }
    }
    print_stats("3 cars, lead 4, delay 6, 2400 ticks", r->pred, (double)ticks / 60.0);
    rs_predict_get_stats(r->pred, (double)ticks / 60.0, &st);
    assert_int_equal(r->desync_reports, 0);
    assert_int_equal(st.desyncs, 0);
    assert_false(st.needs_snapshot);
    assert_int_equal(st.hashes_checked, r->hashes_sent);
    assert_true(st.hashes_checked >= 2400 / 5 - 2);
    assert_int_equal(st.confirmed_tick, ticks - delay);
    assert_int_equal(st.present_tick, ticks - 1 + lead);
    /* Remote AI inputs change all the time: mispredictions and rollbacks. */
    assert_true(st.mispredicted_ticks > 100);
    assert_true(st.rollbacks > 100);
    /* A rollback starts at the oldest unconfirmed tick at worst: the present
     * is at most lead + delay ahead of it. */
    assert_true(st.depth_max <= lead + delay);
    assert_true(st.depth_max >= 1);
    /* Every tick is predicted once; everything else is rollback. */
    assert_int_equal(st.predicted_steps, st.present_tick);
    assert_int_equal(st.steps, st.predicted_steps + st.resim_steps);
    assert_true(st.resim_steps <= st.rollbacks * (lead + delay));
    /* Every 97th local input is lost; the server's replacement differs from
     * it while the car is driving. */
    assert_true(st.local_inputs_replaced >= 10);
    assert_true(st.rollbacks_per_s > 0.0);
    if (ALLOC_CHECKED)
        assert_int_equal(alloc_count, 0);
    print_message("cost: %.1f us of predictor work per confirmed tick (3 cars, %s)\n",
                  (double)r->pred_ns / 1e3 / (double)r->confirmed,
                  ALLOC_CHECKED ? "0 allocations after creation" : "allocations not counted");
    race_free(r);
}

/* The server's side of ticks [from, to): steps ref with the true inputs
 * and confirms each tick to p with ref's hash. */
static void confirm_truth(rs_predict *p, rs_world *ref, rs_input truth[][2], int from, int to)
{
    for (int t = from; t < to; t++) {
        rs_world_set_input(ref, (rs_car_id){1}, &truth[t][0]);
        rs_world_set_input(ref, (rs_car_id){2}, &truth[t][1]);
        assert_int_equal(rs_world_step(ref), RS_OK);
        assert_int_equal(rs_predict_confirm(p, (uint64_t)t, truth[t], true, rs_world_hash(ref)),
                         RS_PREDICT_OK);
    }
}

static void test_matching_confirmations_cost_nothing_and_rollback_starts_at_the_mismatch(
    void **state)
{
    const test_scene *s = *state;
    rs_world *ref = build_world(s, 2);
    rs_predict *p = predictor(s, 2, 60);
    rs_input gas = rs_input_quantise(0.0, 1.0, 0.0, 0.0, 0.0);
    gas.gear = 1;
    rs_input neutral = rs_input_default();
    rs_input remote_late = rs_input_quantise(0.1, 0.5, 0.0, 0.0, 0.0);
    /* The server's truth: car 1 on the gas from tick 0, car 2 idle until
     * tick 45, then remote_late. */
    rs_input truth[60][2];
    for (int t = 0; t < 60; t++) {
        truth[t][0] = gas;
        truth[t][1] = t < 45 ? neutral : remote_late;
    }
    assert_int_equal(rs_predict_local_input(p, 0, &gas), RS_PREDICT_OK);
    assert_int_equal(rs_predict_advance_to(p, 50), RS_PREDICT_OK); /* local input held */
    rs_predict_stats st;
    rs_predict_get_stats(p, 0.0, &st);
    assert_int_equal(st.steps, 50);
    /* Ticks 0..44 match the prediction: bookkeeping only, no step. */
    for (int t = 0; t < 45; t++) {
        uint64_t h = 0;
        rs_world_set_input(ref, (rs_car_id){1}, &truth[t][0]);
        rs_world_set_input(ref, (rs_car_id){2}, &truth[t][1]);
        assert_int_equal(rs_world_step(ref), RS_OK);
        h = rs_world_hash(ref);
        assert_int_equal(rs_predict_confirm(p, (uint64_t)t, truth[t], t % 3 == 0, h),
                         RS_PREDICT_OK);
    }
    rs_predict_get_stats(p, 0.0, &st);
    assert_int_equal(st.steps, 50);
    assert_int_equal(st.rollbacks, 0);
    assert_int_equal(st.hashes_checked, 15);
    /* Duplicates, gaps and late local inputs are refused and counted. */
    assert_int_equal(rs_predict_confirm(p, 44, truth[44], false, 0), RS_PREDICT_ERR_OLD);
    assert_int_equal(rs_predict_confirm(p, 46, truth[46], false, 0), RS_PREDICT_ERR_GAP);
    assert_int_equal(rs_predict_local_input(p, 40, &gas), RS_PREDICT_ERR_OLD);
    assert_int_equal(rs_predict_local_input(p, 45 + 61, &gas), RS_PREDICT_ERR_TOO_FAR);
    /* Tick 45 differs for car 2, and so does 46 (confirmed in the same
     * frame): one rollback, from 45 to the present only. */
    confirm_truth(p, ref, truth, 45, 47);
    rs_predict_get_stats(p, 0.0, &st);
    assert_int_equal(st.steps, 50); /* deferred until the next advance */
    assert_int_equal(rs_predict_advance_to(p, 52), RS_PREDICT_OK);
    rs_predict_get_stats(p, 0.0, &st);
    assert_int_equal(st.rollbacks, 1);
    assert_int_equal(st.mispredicted_ticks, 1);
    assert_int_equal(st.resim_steps, 5);  /* ticks 45..49 */
    assert_int_equal(st.steps, 50 + 5 + 2);
    assert_int_equal(st.depth_max, 5);
    assert_int_equal(st.hashes_checked, 17);
    assert_int_equal(st.desyncs, 0);
    assert_int_equal(st.confirms_rejected, 2);
    assert_int_equal(st.local_inputs_too_old, 1);
    assert_int_equal(rs_predict_confirmed_hash(p), rs_world_hash(ref));
    /* Remote car 2 is now predicted as remote_late: confirming it costs nothing. */
    confirm_truth(p, ref, truth, 47, 52);
    assert_int_equal(rs_predict_advance_to(p, 52), RS_PREDICT_OK);
    rs_predict_get_stats(p, 0.0, &st);
    assert_int_equal(st.rollbacks, 1);
    assert_int_equal(st.steps, 57);
    /* A late change of the local input re-simulates from its tick. */
    rs_input brake = rs_input_quantise(0.0, 0.0, 1.0, 0.0, 0.0);
    assert_int_equal(rs_predict_local_input(p, 54, &brake), RS_PREDICT_OK);
    assert_int_equal(rs_predict_advance_to(p, 56), RS_PREDICT_OK);
    rs_predict_get_stats(p, 0.0, &st);
    assert_int_equal(st.rollbacks, 1); /* tick 54 was not predicted yet */
    assert_int_equal(rs_predict_local_input(p, 53, &brake), RS_PREDICT_OK);
    assert_int_equal(rs_predict_advance_to(p, 56), RS_PREDICT_OK);
    rs_predict_get_stats(p, 0.0, &st);
    assert_int_equal(st.rollbacks, 2);
    assert_int_equal(st.resim_steps, 5 + 3); /* ticks 53..55 */
    /* Falling behind: confirmations past the present (56) step the world,
     * after the pending rollback of the local brake the server never saw. */
    assert_int_equal(rs_predict_present_tick(p), 56);
    confirm_truth(p, ref, truth, 52, 58);
    rs_predict_get_stats(p, 0.0, &st);
    assert_int_equal(st.present_tick, 58);
    assert_int_equal(st.confirmed_tick, 58);
    assert_int_equal(st.desyncs, 0);
    assert_int_equal(st.local_inputs_replaced, 2); /* set for 53 and 54 */
    assert_int_equal(rs_predict_confirmed_hash(p), rs_world_hash(ref));
    rs_predict_destroy(p);
    rs_world_destroy(ref);
}

static void test_a_corrupted_frame_is_a_desync_and_a_snapshot_recovers(void **state)
{
    const test_scene *s = *state;
    net_race *r = race_create(s, 4, 5, 6);
    for (int t = 0; t < 400; t++)
        race_tick(r, false, false);
    assert_int_equal(r->desync_reports, 0);
    /* A wrong hash (deliver uses hashes at ticks divisible by 5). */
    while ((r->server_tick - r->delay) % r->hash_every != 0)
        race_tick(r, false, false);
    race_tick(r, true, false);
    race_tick(r, false, false); /* a re-simulated state is checked at the next advance */
    rs_predict_stats st;
    rs_predict_get_stats(r->pred, 0.0, &st);
    assert_int_equal(r->desync_reports, 1);
    assert_int_equal(st.desyncs, 1);
    assert_true(st.needs_snapshot);
    race_resync(r);
    rs_predict_get_stats(r->pred, 0.0, &st);
    assert_false(st.needs_snapshot);
    for (int t = 0; t < 200; t++)
        race_tick(r, false, false);
    assert_int_equal(r->desync_reports, 1);
    /* A wrong remote input: the client's confirmed state leaves the
     * server's, and the next hash check says so. */
    race_tick(r, false, true);
    for (int t = 0; t < 10; t++)
        race_tick(r, false, false);
    rs_predict_get_stats(r->pred, 0.0, &st);
    assert_int_equal(st.desyncs, 2);
    assert_true(st.needs_snapshot);
    assert_true(r->desync_reports >= 2);
    uint64_t reports = r->desync_reports;
    race_resync(r);
    for (int t = 0; t < 600; t++)
        race_tick(r, false, false);
    rs_predict_get_stats(r->pred, 0.0, &st);
    assert_int_equal(r->desync_reports, reports);
    assert_int_equal(st.desyncs, 2);
    assert_false(st.needs_snapshot);
    uint64_t c = rs_predict_confirmed_tick(r->pred);
    assert_int_equal(rs_predict_confirmed_hash(r->pred), r->hashes[c - 1]);
    print_stats("4 cars, lead 5, delay 6, two desyncs recovered", r->pred, 0.0);
    race_free(r);
}

static void test_a_bad_snapshot_changes_nothing(void **state)
{
    const test_scene *s = *state;
    rs_predict *p = NULL;
    assert_int_equal(rs_predict_create(build_world(s, 2), NULL, &p), RS_PREDICT_OK);
    assert_int_equal(rs_predict_advance_to(p, 10), RS_PREDICT_OK);
    uint64_t h = rs_predict_confirmed_hash(p);
    uint8_t junk[64] = {1, 2, 3};
    assert_int_equal(rs_predict_reset_snapshot(p, 5, junk, sizeof junk, NULL),
                     RS_PREDICT_ERR_SNAPSHOT);
    /* A valid snapshot announced with the wrong tick. */
    rs_world *w = build_world(s, 2);
    static uint8_t buf[1 << 16];
    size_t len = rs_world_snapshot(w, buf, sizeof buf);
    assert_int_equal(rs_predict_reset_snapshot(p, 3, buf, len, NULL), RS_PREDICT_ERR_SNAPSHOT);
    assert_int_equal(rs_predict_present_tick(p), 10);
    assert_int_equal(rs_predict_confirmed_hash(p), h);
    assert_int_equal(rs_predict_advance_to(p, 12), RS_PREDICT_OK);
    assert_int_equal(rs_predict_reset_snapshot(p, 0, buf, len, NULL), RS_PREDICT_OK);
    assert_int_equal(rs_predict_present_tick(p), 0);
    assert_int_equal(rs_predict_confirmed_hash(p), rs_world_hash(w));
    /* Out-of-window advances stop at the window. */
    assert_int_equal(rs_predict_advance_to(p, 1000), RS_PREDICT_ERR_TOO_FAR);
    assert_int_equal(rs_predict_present_tick(p), 64);
    rs_world_destroy(w);
    rs_predict_destroy(p);
}

static void test_creation_refuses_bad_arguments_and_keeps_the_world(void **state)
{
    const test_scene *s = *state;
    rs_world *w = build_world(s, 2);
    rs_predict *p = NULL;
    rs_predict_config cfg = rs_predict_config_default();
    cfg.local_car = (rs_car_id){3};
    assert_int_equal(rs_predict_create(w, &cfg, &p), RS_PREDICT_ERR_ARG);
    cfg = rs_predict_config_default();
    cfg.max_lead_ticks = 0;
    assert_int_equal(rs_predict_create(w, &cfg, &p), RS_PREDICT_ERR_ARG);
    cfg.max_lead_ticks = RS_PREDICT_MAX_LEAD + 1;
    assert_int_equal(rs_predict_create(w, &cfg, &p), RS_PREDICT_ERR_ARG);
    assert_null(p);
    rs_input in = rs_input_default();
    assert_int_equal(rs_predict_create(w, NULL, &p), RS_PREDICT_OK);
    /* A spectator has no local car. */
    assert_int_equal(rs_predict_local_input(p, 0, &in), RS_PREDICT_ERR_ARG);
    rs_predict_pose pose;
    assert_int_equal(rs_predict_pose_of(p, (rs_car_id){3}, 0.5, &pose), RS_PREDICT_ERR_ARG);
    rs_predict_destroy(p); /* destroys w */
    rs_predict_destroy(NULL);
}

static void test_poses_interpolate_between_the_last_two_ticks(void **state)
{
    const test_scene *s = *state;
    rs_predict *p = predictor(s, 2, 120);
    rs_input in = rs_input_quantise(0.5, 1.0, 0.0, 0.0, 0.0);
    in.gear = 1;
    assert_int_equal(rs_predict_local_input(p, 0, &in), RS_PREDICT_OK);
    assert_int_equal(rs_predict_advance_to(p, 60 + START_TICK), RS_PREDICT_OK);
    rs_car_state now;
    assert_int_equal(rs_world_car_state(rs_predict_world(p), (rs_car_id){1}, &now), RS_OK);
    rs_predict_pose a, b, mid;
    assert_int_equal(rs_predict_pose_of(p, (rs_car_id){1}, 0.0, &a), RS_PREDICT_OK);
    assert_int_equal(rs_predict_pose_of(p, (rs_car_id){1}, 1.0, &b), RS_PREDICT_OK);
    assert_int_equal(rs_predict_pose_of(p, (rs_car_id){1}, 0.5, &mid), RS_PREDICT_OK);
    for (int k = 0; k < 3; k++) {
        assert_true(b.pos_m[k] == now.pos_m[k]);
        assert_true(fabs(mid.pos_m[k] - 0.5 * (a.pos_m[k] + b.pos_m[k])) < 1e-9);
    }
    /* It moved during the last tick, and about speed / tick_hz. */
    double dx = b.pos_m[0] - a.pos_m[0], dy = b.pos_m[1] - a.pos_m[1];
    double moved = sqrt(dx * dx + dy * dy);
    assert_true(moved > 0.0);
    assert_true(fabs(moved - now.speed_m_s / 60.0) < 0.01 + 0.05 * moved);
    double norm = 0.0, dot_a = 0.0;
    for (int k = 0; k < 4; k++) {
        norm += mid.quat[k] * mid.quat[k];
        dot_a += mid.quat[k] * a.quat[k];
    }
    assert_true(fabs(norm - 1.0) < 1e-12);
    assert_true(dot_a > 0.999); /* half a tick of turning */
    /* Remote cars have poses too. */
    assert_int_equal(rs_predict_pose_of(p, (rs_car_id){2}, 0.3, &mid), RS_PREDICT_OK);
    rs_predict_destroy(p);
}

static void test_lead_is_half_the_round_trip_plus_jitter_in_ticks(void **state)
{
    (void)state;
    assert_int_equal(rs_predict_lead_ticks(100.0, 10.0, 60, 2), 4 + 2); /* 3.6 -> 4 */
    assert_int_equal(rs_predict_lead_ticks(100.0, 0.0, 60, 0), 3);      /* exactly 3 */
    assert_int_equal(rs_predict_lead_ticks(0.0, 0.0, 60, 1), 1);
    assert_int_equal(rs_predict_lead_ticks(NAN, -5.0, 60, 2), 2);
    assert_int_equal(rs_predict_lead_ticks(1e12, 0.0, 60, 0), RS_PREDICT_MAX_LEAD);
    assert_int_equal(rs_predict_lead_ticks(150.0, 20.0, 60, UINT32_MAX), RS_PREDICT_MAX_LEAD);
}

/* The rollback budget (docs/PREDICTION.md: under 2 ms): re-simulating 15
 * ticks of a 16-car race. */
static void test_rollback_of_15_ticks_with_16_cars_is_measured(void **state)
{
    const test_scene *s = *state;
    if (rs_track_grid_count(s->track) < 16)
        skip();
    net_race *r = race_create(s, 16, 9, 6);
    r->drop_every = 0;
    for (int t = 0; t < 200; t++)
        race_tick(r, false, false);
    rs_predict_stats after;
    /* Remote inputs change almost every tick, so almost every frame asks
     * for a rollback of depth lead + delay = 15; time each one alone. */
    double ms[40];
    int n = 0;
    for (int t = 0; t < 40; t++) {
        race_tick(r, false, false);
        rs_predict_stats a, b;
        rs_predict_get_stats(r->pred, 0.0, &a);
        int64_t t0 = rs_clock_ns();
        rs_predict_status st = rs_predict_advance_to(r->pred, rs_predict_present_tick(r->pred));
        int64_t dt = rs_clock_ns() - t0;
        rs_predict_get_stats(r->pred, 0.0, &b);
        assert_int_equal(st, RS_PREDICT_OK);
        if (b.rollbacks == a.rollbacks + 1) {
            assert_int_equal(b.resim_steps - a.resim_steps, 15);
            ms[n++] = (double)dt / 1e6;
        }
    }
    assert_true(n >= 20);
    qsort(ms, (size_t)n, sizeof *ms, rs_cmp_double); /* for the report */
    rs_predict_get_stats(r->pred, 0.0, &after);
    assert_int_equal(after.depth_max, 15);
    assert_int_equal(after.desyncs, 0);
    print_message("16 cars: a 15-tick rollback takes %.3f ms median, %.3f ms max (%d "
                  "rollbacks)\n",
                  ms[n / 2], ms[n - 1], n);
    race_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_predicting_client_stays_in_sync_with_the_server),
        cmocka_unit_test(
            test_matching_confirmations_cost_nothing_and_rollback_starts_at_the_mismatch),
        cmocka_unit_test(test_a_corrupted_frame_is_a_desync_and_a_snapshot_recovers),
        cmocka_unit_test(test_a_bad_snapshot_changes_nothing),
        cmocka_unit_test(test_creation_refuses_bad_arguments_and_keeps_the_world),
        cmocka_unit_test(test_poses_interpolate_between_the_last_two_ticks),
        cmocka_unit_test(test_lead_is_half_the_round_trip_plus_jitter_in_ticks),
        cmocka_unit_test(test_rollback_of_15_ticks_with_16_cars_is_measured),
    };
    return cmocka_run_group_tests(tests, scene_load, scene_free);
}
