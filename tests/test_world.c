/*
 * World-level tests: snapshot/restore continuity, the golden hash, and that
 * malformed snapshots are refused without touching the world.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "golden_scenario.h"
#include "race.h"
#include "racesim/physics.h"
#include "test_fixtures.h"

static rs_golden *golden(void)
{
    char err[512] = "";
    rs_golden *g = NULL;
    rs_status st = rs_golden_create(test_data_dir(), &g, err, sizeof err);
    if (st != RS_OK)
        fail_msg("golden scenario: %s", err);
    return g;
}

static void run(rs_golden *g, uint64_t ticks)
{
    for (uint64_t t = 0; t < ticks; t++)
        assert_int_equal(rs_golden_step(g), RS_OK);
}

/* Two fresh runs of the golden scenario for a test (its state), compared
 * by the snapshot tests; destroyed after the test. */
typedef struct golden_pair {
    rs_golden *a, *b;
} golden_pair;

static int golden_pair_create(void **state)
{
    static golden_pair pair;
    pair.a = golden();
    pair.b = golden();
    *state = &pair;
    return 0;
}

static int golden_pair_destroy(void **state)
{
    golden_pair *pair = *state;
    rs_golden_destroy(pair->a);
    rs_golden_destroy(pair->b);
    return 0;
}

static void test_snapshot_restore_then_continue_matches_uninterrupted_run(void **state)
{
    const golden_pair *pair = *state;
    rs_golden *a = pair->a, *b = pair->b;
    run(a, 700);
    size_t n;
    uint8_t *snap = fixture_snapshot(rs_golden_world(a), &n);
    rs_input *inputs = malloc(900 * RS_GOLDEN_CARS * sizeof *inputs);
    assert_non_null(inputs);
    /* The AI drivers keep state of their own outside the world, so b
     * replays the inputs a's drivers chose: the world alone must continue
     * bit for bit from its snapshot. */
    for (int t = 0; t < 900; t++) {
        assert_int_equal(rs_golden_step(a), RS_OK);
        memcpy(&inputs[t * RS_GOLDEN_CARS], rs_golden_last_inputs(a),
               RS_GOLDEN_CARS * sizeof *inputs);
    }

    run(b, 13); /* a different state, to be overwritten */
    assert_int_equal(rs_world_restore(rs_golden_world(b), snap, n), RS_OK);
    assert_int_equal(rs_world_tick(rs_golden_world(b)), 700);
    for (int t = 0; t < 900; t++) {
        for (uint16_t c = 0; c < RS_GOLDEN_CARS; c++)
            rs_world_set_input(rs_golden_world(b), (rs_car_id){(uint16_t)(c + 1)},
                               &inputs[t * RS_GOLDEN_CARS + c]);
        assert_int_equal(rs_world_step(rs_golden_world(b)), RS_OK);
    }
    assert_int_equal(rs_world_hash(rs_golden_world(a)), rs_world_hash(rs_golden_world(b)));
    for (uint16_t c = 1; c <= RS_GOLDEN_CARS; c++) {
        rs_car_id id = {c};
        assert_int_equal(rs_world_car_hash(rs_golden_world(a), id),
                         rs_world_car_hash(rs_golden_world(b), id));
    }
    free(inputs);
    free(snap);
}

static void test_golden_scenario_final_hash_matches_checked_in_value(void **state)
{
    rs_golden *g = ((const golden_pair *)*state)->a;
    run(g, RS_GOLDEN_TICKS);
    uint64_t h = rs_world_hash(rs_golden_world(g));
    print_message("golden final hash: %016llx (checked in: %016llx)\n", (unsigned long long)h,
                  (unsigned long long)RS_GOLDEN_HASH);
    assert_int_equal(h, RS_GOLDEN_HASH);
    /* The hash of snapshot bytes already taken is the world's hash. */
    size_t n;
    uint8_t *bytes = fixture_snapshot(rs_golden_world(g), &n);
    assert_int_equal(rs_snapshot_hash(bytes, n), h);
    bytes[n / 2] ^= 1u;
    assert_int_not_equal(rs_snapshot_hash(bytes, n), h);
    free(bytes);
}

static void test_restore_refuses_every_truncation_and_leaves_world_unchanged(void **state)
{
    const golden_pair *pair = *state;
    rs_golden *a = pair->a, *b = pair->b;
    run(a, 120);
    run(b, 60);
    size_t n;
    uint8_t *snap = fixture_snapshot(rs_golden_world(a), &n);
    uint64_t before = rs_world_hash(rs_golden_world(b));
    for (size_t len = 0; len < n; len++)
        assert_int_not_equal(rs_world_restore(rs_golden_world(b), snap, len), RS_OK);
    /* Trailing garbage, a bad magic, a NaN in a double, a wrong parameter hash. */
    uint8_t *longer = malloc(n + 1);
    memcpy(longer, snap, n);
    longer[n] = 0;
    assert_int_equal(rs_world_restore(rs_golden_world(b), longer, n + 1), RS_ERR_FORMAT);
    snap[0] ^= 0xff;
    assert_int_equal(rs_world_restore(rs_golden_world(b), snap, n), RS_ERR_FORMAT);
    snap[0] ^= 0xff;
    /* Header (see snapshot.c), the race state, the car count. */
    size_t first_car = 4 + 4 + 4 + 8 + 4 + 4 + 8 + 4 + 8 + 1 + rs_race_size() + 4;
    uint8_t saved[8];
    memcpy(saved, snap + first_car + 8, 8);
    const uint8_t nan_bits[8] = {0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
    memcpy(snap + first_car + 8, nan_bits, 8);
    assert_int_not_equal(rs_world_restore(rs_golden_world(b), snap, n), RS_OK);
    memcpy(snap + first_car + 8, saved, 8);
    snap[first_car] ^= 1;
    assert_int_equal(rs_world_restore(rs_golden_world(b), snap, n), RS_ERR_MISMATCH);
    snap[first_car] ^= 1;
    assert_int_equal(rs_world_hash(rs_golden_world(b)), before);
    assert_int_equal(rs_world_restore(rs_golden_world(b), snap, n), RS_OK);
    assert_int_equal(rs_world_hash(rs_golden_world(b)), rs_world_hash(rs_golden_world(a)));
    free(longer);
    free(snap);
}

static void test_snapshot_size_query_writes_nothing_into_a_small_buffer(void **state)
{
    rs_golden *g = ((const golden_pair *)*state)->a;
    size_t n = rs_world_snapshot(rs_golden_world(g), NULL, 0);
    uint8_t small[16];
    memset(small, 0xab, sizeof small);
    assert_int_equal(rs_world_snapshot(rs_golden_world(g), small, sizeof small), n);
    for (size_t i = 0; i < sizeof small; i++)
        assert_int_equal(small[i], 0xab);
}

/* A world without a track and without cars, room for max_cars. */
static rs_world *bare_world(uint32_t max_cars)
{
    rs_world_def def = rs_world_default();
    def.max_cars = max_cars;
    rs_world *w = NULL;
    assert_int_equal(rs_world_create(&def, &w), RS_OK);
    return w;
}

/* The snapshot's length is computed from the car count, not measured by a
 * dry run: it must still be exactly what is written, for any number of
 * cars, and a buffer one byte short must stay untouched. */
static void test_snapshot_length_is_what_is_written_for_every_car_count(void **state)
{
    (void)state;
    enum { MAX_CARS = 5, CAP = 8192 };
    rs_car_params *p = fixture_car("c5");
    rs_world *w = bare_world(MAX_CARS);
    uint8_t *buf = malloc(CAP);
    assert_non_null(buf);
    for (uint32_t cars = 0; cars <= MAX_CARS; cars++) {
        if (cars > 0) {
            rs_car_spawn sp = rs_car_spawn_default();
            sp.pos_m[1] = 10.0 * cars;
            assert_int_equal(rs_world_add_car(w, p, &sp, NULL), RS_OK);
        }
        size_t n = rs_world_snapshot(w, NULL, 0);
        assert_true(n <= CAP);
        memset(buf, 0xab, CAP);
        assert_int_equal(rs_world_snapshot(w, buf, n - 1), n);
        for (size_t i = 0; i < CAP; i++)
            assert_int_equal(buf[i], 0xab);
        assert_int_equal(rs_world_snapshot(w, buf, CAP), n);
        /* restore insists on the exact length for the count it reads */
        assert_int_equal(rs_world_restore(w, buf, n), RS_OK);
        assert_int_equal(rs_snapshot_hash(buf, n), rs_world_hash(w));
    }
    free(buf);
    rs_world_destroy(w);
    rs_car_params_destroy(p);
}

static void test_world_refuses_a_car_beyond_capacity(void **state)
{
    (void)state;
    rs_car_params *p = fixture_car("c5");
    rs_world *w = bare_world(2);
    rs_car_spawn sp = rs_car_spawn_default();
    rs_car_id id;
    assert_int_equal(rs_world_add_car(w, p, &sp, &id), RS_OK);
    assert_int_equal(id.index1, 1);
    sp.pos_m[1] = 10.0;
    assert_int_equal(rs_world_add_car(w, p, &sp, &id), RS_OK);
    assert_int_equal(rs_world_add_car(w, p, &sp, &id), RS_ERR_FULL);
    assert_int_equal(id.index1, 0);
    rs_car_id bad = {3};
    rs_input in = rs_input_default();
    assert_int_equal(rs_world_set_input(w, bad, &in), RS_ERR_ARG);
    rs_world_destroy(w);
    rs_car_params_destroy(p);
}

static void test_quantised_inputs_clamp_out_of_range_and_nan(void **state)
{
    (void)state;
    rs_input in = rs_input_quantise(2.0, -1.0, 0.5, 0.0 / 0.0 * 0.0, 1.0);
    assert_int_equal(in.steer, RS_STEER_MAX);
    assert_int_equal(in.throttle, 0);
    assert_int_equal(in.brake, 128);
    assert_int_equal(in.clutch, 0);
    assert_int_equal(in.handbrake, RS_PEDAL_MAX);
    in = rs_input_quantise(-1.0, 0, 0, 0, 0);
    assert_int_equal(in.steer, -RS_STEER_MAX);
}

/* A test run with a fresh golden_pair as its state. */
#define WITH_GOLDEN_PAIR(test) \
    cmocka_unit_test_setup_teardown(test, golden_pair_create, golden_pair_destroy)

int main(void)
{
    const struct CMUnitTest tests[] = {
        WITH_GOLDEN_PAIR(test_snapshot_restore_then_continue_matches_uninterrupted_run),
        WITH_GOLDEN_PAIR(test_golden_scenario_final_hash_matches_checked_in_value),
        WITH_GOLDEN_PAIR(test_restore_refuses_every_truncation_and_leaves_world_unchanged),
        WITH_GOLDEN_PAIR(test_snapshot_size_query_writes_nothing_into_a_small_buffer),
        cmocka_unit_test(test_snapshot_length_is_what_is_written_for_every_car_count),
        cmocka_unit_test(test_world_refuses_a_car_beyond_capacity),
        cmocka_unit_test(test_quantised_inputs_clamp_out_of_range_and_nan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
