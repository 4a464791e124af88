/*
 * The lap proof replay (racesim/lapproof.h, rs_lap_replay_*) that the
 * browser module steps, natively: stepped one tick at a time it gives
 * exactly rs_lap_proof_verify's verdict and message, its world moves with
 * the log and matches the proof's end hash at the last tick, a finished
 * replay refuses more steps, and a refused proof is done at open with no
 * world. The WebAssembly side of the same code is test_replay_wasm.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "racesim/driver.h"
#include "racesim/lapproof.h"
#include "racesim/physics.h"
#include "racesim/track.h"
#include "test_fixtures.h"

#define CARS 2

typedef struct lap {
    rs_car_params *car;
    rs_track *track;
    const rs_car_params *cars[CARS];
    uint8_t *proof;
    size_t len;
} lap;

/* Two AI cars, one lap of the oval; the proof of the first lap completed. */
static int record_lap(void **state)
{
    static lap l;
    memset(&l, 0, sizeof l);
    l.car = fixture_car("c5");
    l.track = fixture_track("oval");
    rs_world *w = fixture_world(l.track, 1, 30, true);
    rs_racing_line *line = NULL;
    assert_int_equal(rs_racing_line_build(l.track, l.car, NULL, &line), RS_OK);
    rs_driver *drv[CARS];
    for (uint32_t i = 0; i < CARS; i++) {
        rs_car_spawn sp;
        assert_true(rs_track_grid_slot(l.track, i, &sp));
        assert_int_equal(rs_world_add_car(w, l.car, &sp, NULL), RS_OK);
        rs_driver_options o = rs_driver_options_default();
        o.seed = i + 1;
        assert_int_equal(rs_driver_create(line, &o, &drv[i]), RS_OK);
        l.cars[i] = l.car;
    }
    rs_lap_recorder *rec = NULL;
    assert_int_equal(rs_lap_recorder_create(w, 60 * 90, &rec), RS_OK);
    for (int t = 0; t < 60 * 120 && !l.proof; t++) {
        for (uint32_t i = 0; i < CARS; i++) {
            rs_car_id id = {(uint16_t)(i + 1)};
            rs_input in = rs_driver_update(drv[i], w, id);
            rs_world_set_input(w, id, &in);
        }
        assert_int_equal(rs_lap_recorder_before_step(rec, w), RS_OK);
        assert_int_equal(rs_world_step(w), RS_OK);
        size_t n;
        const rs_event *ev = rs_world_events(w, &n);
        for (size_t k = 0; k < n && !l.proof; k++)
            if (ev[k].type == RS_EVENT_LAP)
                assert_int_equal(
                    rs_lap_recorder_take(rec, w, (rs_car_id){ev[k].car}, &l.proof, &l.len), RS_OK);
    }
    assert_non_null(l.proof);
    rs_lap_recorder_destroy(rec);
    for (uint32_t i = 0; i < CARS; i++)
        rs_driver_destroy(drv[i]);
    rs_racing_line_destroy(line);
    rs_world_destroy(w);
    *state = &l;
    return 0;
}

static int free_lap(void **state)
{
    lap *l = *state;
    free(l->proof);
    rs_track_destroy(l->track);
    rs_car_params_destroy(l->car);
    return 0;
}

/* Steps p one tick at a time; returns the verdict, the message in msg. */
static rs_lap_verdict step_through(const lap *l, const uint8_t *p, char *msg, size_t msg_len,
                                   uint32_t *ticks, uint32_t *moved)
{
    rs_lap_replay *rep = NULL;
    assert_int_equal(rs_lap_replay_open(p, l->len, l->cars, CARS, l->track, &rep, NULL, 0), RS_OK);
    const rs_lap_proof_info *info = rs_lap_replay_info(rep);
    assert_non_null(info);
    rs_car_id car = {info->car};
    rs_car_state s0, s;
    assert_int_equal(rs_world_car_state(rs_lap_replay_world(rep), car, &s0), RS_OK);
    *moved = 0;
    while (!rs_lap_replay_done(rep)) {
        uint32_t before = rs_lap_replay_ticks(rep);
        assert_int_equal(rs_lap_replay_step(rep), RS_OK);
        assert_int_equal(rs_lap_replay_ticks(rep), before + 1);
        assert_int_equal(rs_world_tick(rs_lap_replay_world(rep)), info->first_tick + before + 1);
        assert_int_equal(rs_world_car_state(rs_lap_replay_world(rep), car, &s), RS_OK);
        if (s.pos_m[0] != s0.pos_m[0] || s.pos_m[1] != s0.pos_m[1])
            (*moved)++; /* ticks in which the car moved */
        s0 = s;
    }
    *ticks = rs_lap_replay_ticks(rep);
    assert_int_equal(rs_lap_replay_step(rep), RS_ERR_ARG); /* done: no more ticks */
    rs_lap_verdict v, again;
    rs_lap_replay_finish(rep, &v, msg, msg_len);
    char msg2[2048];
    rs_lap_replay_finish(rep, &again, msg2, sizeof msg2); /* idempotent */
    assert_memory_equal(&v, &again, sizeof v);
    rs_event ev;
    if (v.code == RS_LAP_PROOF_OK) {
        assert_true(rs_lap_replay_lap(rep, &ev));
        assert_true(ev.duration_us == info->lap_time_us);
        assert_int_equal(ev.sector_count, info->sector_count);
        assert_true(rs_world_car_hash(rs_lap_replay_world(rep), car) == info->end_car_hash);
    }
    rs_lap_replay_destroy(rep);
    return v;
}

static void test_stepping_gives_verify_s_verdict(void **state)
{
    const lap *l = *state;
    rs_lap_proof_info info;
    assert_int_equal(rs_lap_proof_info_read(l->proof, l->len, &info), RS_OK);
    char msg[512], vmsg[512];
    uint32_t ticks = 0, moved = 0;
    rs_lap_verdict v = step_through(l, l->proof, msg, sizeof msg, &ticks, &moved);
    rs_lap_verdict w;
    assert_int_equal(
        rs_lap_proof_verify(l->proof, l->len, l->cars, CARS, l->track, &w, vmsg, sizeof vmsg),
        RS_OK);
    print_message("car %u: %u ticks stepped (moved in %u), %s\n", info.car, ticks, moved, msg);
    assert_int_equal(v.code, RS_LAP_PROOF_OK);
    assert_string_equal(msg, "ok");
    assert_int_equal(ticks, info.tick_count);
    assert_true(moved > ticks / 2);
    assert_memory_equal(&v, &w, sizeof v);
    assert_string_equal(msg, vmsg);

    /* A tampered input: stepping and verify still say the same, word for word. */
    uint8_t *p = malloc(l->len);
    assert_non_null(p);
    memcpy(p, l->proof, l->len);
    size_t at = l->len - (size_t)info.tick_count * CARS * 8 +
                ((size_t)(info.tick_count / 3) * CARS + (info.car - 1u)) * 8;
    p[at] ^= 0x01; /* steering, one unit */
    v = step_through(l, p, msg, sizeof msg, &ticks, &moved);
    assert_int_equal(rs_lap_proof_verify(p, l->len, l->cars, CARS, l->track, &w, vmsg, sizeof vmsg),
                     RS_OK);
    print_message("nudged: %s\n", msg);
    assert_int_not_equal(v.code, RS_LAP_PROOF_OK);
    assert_memory_equal(&v, &w, sizeof v);
    assert_string_equal(msg, vmsg);
    /* Cut short, the message is the same text cut. */
    char small[40], vsmall[40];
    (void)step_through(l, p, small, sizeof small, &ticks, &moved);
    rs_lap_proof_verify(p, l->len, l->cars, CARS, l->track, &w, vsmall, sizeof vsmall);
    assert_string_equal(small, vsmall);
    assert_int_equal(strncmp(small, msg, sizeof small - 1), 0);
    free(p);
}

static void test_refused_inputs_are_done_at_open(void **state)
{
    const lap *l = *state;
    const rs_car_params *none[CARS] = {l->car, NULL};
    rs_lap_replay *rep = NULL;
    char msg[256];
    assert_int_equal(rs_lap_replay_open(l->proof, l->len, none, CARS, l->track, &rep, NULL, 0),
                     RS_OK);
    assert_true(rs_lap_replay_done(rep));
    assert_null(rs_lap_replay_world(rep));
    assert_int_equal(rs_lap_replay_step(rep), RS_ERR_ARG);
    rs_lap_verdict v;
    rs_lap_replay_finish(rep, &v, msg, sizeof msg);
    assert_int_equal(v.code, RS_LAP_PROOF_WRONG_CARS);
    assert_int_equal(rs_lap_replay_ticks(rep), 0);
    assert_false(rs_lap_replay_lap(rep, &(rs_event){0}));
    rs_lap_replay_destroy(rep);

    /* An unreadable proof opens nothing and says why. */
    rep = (rs_lap_replay *)1;
    assert_int_equal(rs_lap_replay_open(l->proof, l->len - 1, l->cars, CARS, l->track, &rep, msg,
                                        sizeof msg),
                     RS_ERR_BUFFER);
    assert_null(rep);
    assert_non_null(strstr(msg, "not a valid lap proof"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stepping_gives_verify_s_verdict),
        cmocka_unit_test(test_refused_inputs_are_done_at_open),
    };
    return cmocka_run_group_tests(tests, record_lap, free_lap);
}
