/*
 * World-level tests: snapshot/restore and image save/load continuity, the
 * golden hash, and that malformed snapshots and foreign images are refused
 * without touching the world.
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
#include "racesim/physics.h"
#include "world.h"
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

/* A world image taken mid-race and loaded back into the same world after
 * it has run on must continue exactly as it did the first time, tick by
 * tick, and exactly as a second world restored from a snapshot of the same
 * moment (which writes -0.0 as +0.0 and keeps the caches it has). */
static void test_image_load_then_continue_matches_the_first_run_and_a_snapshot(void **state)
{
    enum { AT = 700, TICKS = 900 };
    const golden_pair *pair = *state;
    rs_golden *a = pair->a, *b = pair->b;
    rs_world *wa = rs_golden_world(a), *wb = rs_golden_world(b);
    run(a, AT);
    size_t n;
    uint8_t *snap = fixture_snapshot(wa, &n);
    size_t image_len = rs_world_image_size(wa);
    uint8_t *image = malloc(image_len + 1); /* +1: saved at an odd address */
    uint64_t *hashes = malloc(TICKS * sizeof *hashes);
    rs_input *inputs = malloc(TICKS * RS_GOLDEN_CARS * sizeof *inputs);
    assert_true(image && hashes && inputs);
    assert_int_equal(rs_world_image_save(wa, image + 1, image_len), RS_OK);
    uint64_t at_hash = 0;
    assert_int_equal(rs_world_image_hash(wa, image + 1, image_len, &at_hash), RS_OK);
    assert_int_equal(at_hash, rs_world_hash(wa));
    for (int t = 0; t < TICKS; t++) {
        assert_int_equal(rs_golden_step(a), RS_OK);
        memcpy(&inputs[t * RS_GOLDEN_CARS], rs_golden_last_inputs(a),
               RS_GOLDEN_CARS * sizeof *inputs);
        hashes[t] = rs_world_hash(wa);
    }
    /* The image still hashes as the state it holds, not the world's now. */
    uint64_t later = 0;
    assert_int_equal(rs_world_image_hash(wa, image + 1, image_len, &later), RS_OK);
    assert_int_equal(later, at_hash);
    assert_int_not_equal(rs_world_hash(wa), at_hash);

    run(b, 13); /* a different state, to be overwritten */
    assert_int_equal(rs_world_image_load(wa, image + 1, image_len), RS_OK);
    assert_int_equal(rs_world_restore(wb, snap, n), RS_OK);
    assert_int_equal(rs_world_tick(wa), AT);
    assert_int_equal(rs_world_hash(wa), at_hash);
    for (int t = 0; t < TICKS; t++) {
        for (uint16_t c = 0; c < RS_GOLDEN_CARS; c++) {
            const rs_input *in = &inputs[t * RS_GOLDEN_CARS + c];
            rs_world_set_input(wa, (rs_car_id){(uint16_t)(c + 1)}, in);
            rs_world_set_input(wb, (rs_car_id){(uint16_t)(c + 1)}, in);
        }
        assert_int_equal(rs_world_step(wa), RS_OK);
        assert_int_equal(rs_world_step(wb), RS_OK);
        assert_int_equal(rs_world_hash(wa), hashes[t]);
        assert_int_equal(rs_world_hash(wb), hashes[t]);
    }
    free(inputs);
    free(hashes);
    free(image);
    free(snap);
}

/* Loading an image brings back every byte it promises, whatever ran in
 * between: each car from pos on, its race and contact state, the race and
 * the tick. The hashes above cover only what a snapshot writes. */
static void test_image_load_brings_back_every_state_byte(void **state)
{
    const golden_pair *pair = *state;
    rs_world *w = rs_golden_world(pair->a);
    run(pair->a, 400);
    uint32_t n = w->count;
    rs_car *cars = malloc(n * sizeof *cars);
    rs_race_car *race_cars = malloc(n * sizeof *race_cars);
    rs_collide_car *contact = malloc(n * sizeof *contact);
    size_t len = rs_world_image_size(w);
    uint8_t *image = malloc(len);
    assert_true(cars && race_cars && contact && image);
    memcpy(cars, w->cars, n * sizeof *cars);
    memcpy(race_cars, w->race_cars, n * sizeof *race_cars);
    memcpy(contact, w->contact, n * sizeof *contact);
    rs_race race = w->race;
    assert_int_equal(rs_world_image_save(w, image, len), RS_OK);
    run(pair->a, 300);
    for (uint32_t c = 0; c < n; c++) /* as if every car had been hit since */
        memset(&w->contact[c], 0x5a, sizeof w->contact[c]);
    assert_int_equal(rs_world_image_load(w, image, len), RS_OK);
    size_t from = offsetof(rs_car, pos);
    for (uint32_t c = 0; c < n; c++) {
        assert_memory_equal((const uint8_t *)&w->cars[c] + from, (const uint8_t *)&cars[c] + from,
                            sizeof(rs_car) - from);
        assert_memory_equal(&w->race_cars[c], &race_cars[c], sizeof(rs_race_car));
        assert_memory_equal(&w->contact[c], &contact[c], sizeof(rs_collide_car));
    }
    assert_memory_equal(&w->race, &race, sizeof race);
    assert_int_equal(rs_world_tick(w), 400);
    free(image);
    free(contact);
    free(race_cars);
    free(cars);
}

/* An image is only for the world that saved it, with the cars it had:
 * anything else is refused and the world is left as it was. */
static void test_image_refuses_another_world_a_short_buffer_and_a_new_car(void **state)
{
    const golden_pair *pair = *state;
    rs_world *wa = rs_golden_world(pair->a), *wb = rs_golden_world(pair->b);
    run(pair->a, 50);
    run(pair->b, 80);
    size_t len = rs_world_image_size(wa);
    uint8_t *image = malloc(len);
    assert_non_null(image);
    assert_int_equal(rs_world_image_save(wa, image, len - 1), RS_ERR_BUFFER);
    assert_int_equal(rs_world_image_save(wa, NULL, len), RS_ERR_ARG);
    assert_int_equal(rs_world_image_save(wa, image, len), RS_OK);
    uint64_t hb = rs_world_hash(wb), h;
    assert_int_equal(rs_world_image_load(wb, image, len), RS_ERR_MISMATCH);
    assert_int_equal(rs_world_image_hash(wb, image, len, &h), RS_ERR_MISMATCH);
    assert_int_equal(rs_world_hash(wb), hb);
    uint64_t ha = rs_world_hash(wa);
    run(pair->a, 5);
    assert_int_equal(rs_world_image_load(wa, image, len - 1), RS_ERR_BUFFER);
    assert_int_equal(rs_world_image_load(wa, image, 3), RS_ERR_BUFFER);
    assert_int_equal(rs_world_image_load(wa, NULL, len), RS_ERR_ARG);
    assert_int_not_equal(rs_world_hash(wa), ha);
    assert_int_equal(rs_world_image_load(wa, image, len), RS_OK);
    assert_int_equal(rs_world_hash(wa), ha);
    free(image);
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
 * cars, and a buffer one byte short must stay untouched. Images follow the
 * car count too. */
static void test_snapshot_length_is_what_is_written_for_every_car_count(void **state)
{
    (void)state;
    enum { MAX_CARS = 5, CAP = 8192 };
    rs_car_params *p = fixture_car("c5");
    rs_world *w = bare_world(MAX_CARS);
    uint8_t *buf = malloc(CAP), *image = malloc(CAP), *prev = malloc(CAP), *before = malloc(CAP);
    assert_true(buf && image && prev && before);
    size_t before_len = 0;
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
        /* An image of one car fewer is refused, and so is its hash. */
        if (cars > 0) {
            uint64_t h;
            assert_int_equal(rs_world_image_load(w, image, CAP), RS_ERR_MISMATCH);
            assert_int_equal(rs_world_image_hash(w, image, CAP, &h), RS_ERR_MISMATCH);
        }
        /* The image saved with one car fewer still gives the snapshot of
         * that moment, bytes and all (the lap recorder's case: a lap that
         * began in the tick before a car joined). */
        if (cars > 0) {
            assert_int_equal(rs_world_image_snapshot(w, image, CAP, before, CAP), before_len);
            assert_memory_equal(before, prev, before_len);
            assert_int_equal(rs_world_image_snapshot(w, image, CAP, before, before_len - 1), 0);
        }
        assert_true(rs_world_image_size(w) <= CAP);
        assert_int_equal(rs_world_image_save(w, image, CAP), RS_OK);
        before_len = rs_world_snapshot(w, prev, CAP);
    }
    free(buf);
    free(image);
    free(prev);
    free(before);
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
        WITH_GOLDEN_PAIR(test_image_load_then_continue_matches_the_first_run_and_a_snapshot),
        WITH_GOLDEN_PAIR(test_image_load_brings_back_every_state_byte),
        WITH_GOLDEN_PAIR(test_image_refuses_another_world_a_short_buffer_and_a_new_car),
        cmocka_unit_test(test_snapshot_length_is_what_is_written_for_every_car_count),
        cmocka_unit_test(test_world_refuses_a_car_beyond_capacity),
        cmocka_unit_test(test_quantised_inputs_clamp_out_of_range_and_nan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
