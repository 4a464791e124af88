/*
 * Lap proofs: a short AI race on the oval records a proof for every lap,
 * each re-simulates bit for bit, and a tampered input, lap time or end hash
 * is named in the verdict; truncated proofs are rejected at every length.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "racesim/base/file.h"
#include "racesim/driver.h"
#include "racesim/lapproof.h"
#include "racesim/physics.h"
#include "racesim/track.h"
#include "test_fixtures.h"

#define CARS 2
#define MAX_PROOFS 8

typedef struct race {
    rs_car_params *car;
    rs_track *track;
    const rs_car_params *cars[CARS];
    uint8_t *proof[MAX_PROOFS];
    size_t len[MAX_PROOFS];
    uint32_t proofs;
    uint32_t laps_seen;
    uint32_t full; /* laps too long for the recorder */
} race;

/* Two AI cars, two laps of the oval, a proof taken for every lap. */
static void run_race(race *r, uint32_t max_lap_ticks)
{
    memset(r, 0, sizeof *r);
    r->car = fixture_car("formula");
    r->track = fixture_track("oval");
    /* max_cars stays 16: the verifier builds a world of 2 */
    rs_world *w = fixture_world(r->track, 2, 30, true);
    rs_racing_line *line = NULL;
    assert_int_equal(rs_racing_line_build(r->track, r->car, NULL, &line), RS_OK);
    rs_driver *drv[CARS];
    rs_car_id id[CARS];
    for (uint32_t i = 0; i < CARS; i++) {
        rs_car_spawn sp;
        assert_true(rs_track_grid_slot(r->track, i, &sp));
        assert_int_equal(rs_world_add_car(w, r->car, &sp, &id[i]), RS_OK);
        rs_driver_options o = rs_driver_options_default();
        o.seed = i + 1;
        assert_int_equal(rs_driver_create(line, &o, &drv[i]), RS_OK);
        r->cars[i] = r->car;
    }
    rs_lap_recorder *rec = NULL;
    assert_int_equal(rs_lap_recorder_create(w, max_lap_ticks, &rec), RS_OK);
    for (int t = 0; t < 60 * 120 && !rs_world_race_over(w); t++) {
        for (uint32_t i = 0; i < CARS; i++) {
            rs_input in = rs_driver_update(drv[i], w, id[i]);
            rs_world_set_input(w, id[i], &in);
        }
        assert_int_equal(rs_lap_recorder_before_step(rec, w), RS_OK);
        assert_int_equal(rs_world_step(w), RS_OK);
        size_t n;
        const rs_event *ev = rs_world_events(w, &n);
        for (size_t k = 0; k < n; k++) {
            if (ev[k].type != RS_EVENT_LAP)
                continue;
            r->laps_seen++;
            uint8_t *p = NULL;
            size_t len = 0;
            rs_status st = rs_lap_recorder_take(rec, w, (rs_car_id){ev[k].car}, &p, &len);
            if (st == RS_ERR_FULL) {
                r->full++;
                continue;
            }
            assert_int_equal(st, RS_OK);
            assert_true(r->proofs < MAX_PROOFS);
            r->proof[r->proofs] = p;
            r->len[r->proofs++] = len;
        }
    }
    rs_lap_recorder_destroy(rec);
    for (uint32_t i = 0; i < CARS; i++)
        rs_driver_destroy(drv[i]);
    rs_racing_line_destroy(line);
    rs_world_destroy(w);
}

static void free_race(race *r)
{
    for (uint32_t i = 0; i < r->proofs; i++)
        free(r->proof[i]);
    rs_track_destroy(r->track);
    rs_car_params_destroy(r->car);
}

/* The race the tests read (proofs of laps up to a minute long), run once
 * for the group; every test gets it as its state. */
static int race_once(void **state)
{
    static race r;
    run_race(&r, 60 * 60);
    *state = &r;
    return 0;
}

static int race_free(void **state)
{
    free_race(*state);
    return 0;
}

/* The race's first proof (there must be one); *len its size. */
static const uint8_t *first_proof(const race *r, size_t *len)
{
    assert_true(r->proofs >= 1);
    *len = r->len[0];
    return r->proof[0];
}

static rs_lap_verdict verify(const race *r, const uint8_t *p, size_t len, char *msg,
                             size_t msg_len)
{
    rs_lap_verdict v;
    assert_int_equal(rs_lap_proof_verify(p, len, r->cars, CARS, r->track, &v, msg, msg_len),
                     RS_OK);
    return v;
}

static void test_every_lap_of_a_race_re_simulates_bit_for_bit(void **state)
{
    const race *r = *state;
    assert_int_equal(r->laps_seen, 2 * CARS);
    assert_int_equal(r->proofs, 2 * CARS);
    for (uint32_t i = 0; i < r->proofs; i++) {
        rs_lap_proof_info info;
        assert_int_equal(rs_lap_proof_info_read(r->proof[i], r->len[i], &info), RS_OK);
        char msg[512];
        rs_lap_verdict v = verify(r, r->proof[i], r->len[i], msg, sizeof msg);
        print_message("car %u lap %u: %.3f s, %u ticks, %zu bytes: %s\n", info.car, info.lap,
                      (double)info.lap_time_us / 1e6, info.tick_count, r->len[i], msg);
        assert_int_equal(v.code, RS_LAP_PROOF_OK);
        assert_string_equal(msg, "ok");
        assert_true(v.simulated_time_us == info.lap_time_us);
        assert_true(v.simulated_hash == info.end_car_hash);
        uint64_t h;
        assert_int_equal(rs_lap_proof_car_hash(r->proof[i], r->len[i], 0, &h), RS_OK);
        assert_true(h == rs_car_params_hash(r->car));
    }
}

static void test_tampering_is_named_in_the_verdict(void **state)
{
    const race *r = *state;
    size_t len;
    const uint8_t *good = first_proof(r, &len);
    rs_lap_proof_info info;
    assert_int_equal(rs_lap_proof_info_read(good, len, &info), RS_OK);
    uint8_t *p = malloc(len);
    assert_non_null(p);
    char msg[1024];

    /* The lap time field sits after the fixed header and the car hashes. */
    size_t time_at = 4 + 4 + 4 + 4 + 4 + 4 + 8 + 1 + 16 * RS_SURFACE_COUNT + 8 + 4 + 8 * CARS + 2 +
                     4 + 1 + 1;
    memcpy(p, good, len);
    p[time_at] ^= 1;
    rs_lap_verdict v = verify(r, p, len, msg, sizeof msg);
    print_message("lap time tampered: %s\n", msg);
    assert_int_equal(v.code, RS_LAP_PROOF_DIFFERS);
    assert_int_equal(v.diffs, RS_LAP_DIFF_TIME);
    assert_non_null(strstr(msg, "lap time"));
    assert_non_null(strstr(msg, "recorded"));

    /* The end hash follows the lap end time and the sectors. */
    size_t hash_at = time_at + 8 + 8 + 4 + 8 * (size_t)info.sector_count;
    memcpy(p, good, len);
    p[hash_at + 3] ^= 0x10;
    v = verify(r, p, len, msg, sizeof msg);
    print_message("end hash tampered: %s\n", msg);
    assert_int_equal(v.code, RS_LAP_PROOF_DIFFERS);
    assert_int_equal(v.diffs, RS_LAP_DIFF_HASH);
    assert_non_null(strstr(msg, "end car hash"));

    /* One throttle byte of the lapping car, a third of the way into the log. */
    size_t log_at = len - (size_t)info.tick_count * CARS * 8;
    size_t at = log_at + ((size_t)(info.tick_count / 3) * CARS + (info.car - 1u)) * 8 + 2;
    memcpy(p, good, len);
    p[at] = (uint8_t)(p[at] > 128 ? 0 : 255);
    v = verify(r, p, len, msg, sizeof msg);
    print_message("input tampered: %s\n", msg);
    assert_true(v.code == RS_LAP_PROOF_DIFFERS || v.code == RS_LAP_PROOF_NO_LAP);
    assert_true(v.code != RS_LAP_PROOF_DIFFERS || (v.diffs & RS_LAP_DIFF_HASH));

    /* The wrong cars are refused before anything is simulated. */
    const rs_car_params *none[CARS] = {r->car, NULL};
    assert_int_equal(rs_lap_proof_verify(good, len, none, CARS, r->track, &v, msg, sizeof msg),
                     RS_OK);
    assert_int_equal(v.code, RS_LAP_PROOF_WRONG_CARS);
    assert_int_equal(rs_lap_proof_verify(good, len, r->cars, CARS, NULL, &v, msg, sizeof msg),
                     RS_OK);
    assert_int_equal(v.code, RS_LAP_PROOF_WRONG_TRACK);
    free(p);
}

static void test_damaged_proofs_are_rejected_at_every_length(void **state)
{
    const race *r = *state;
    size_t len;
    const uint8_t *good = first_proof(r, &len);
    rs_lap_proof_info info;
    for (size_t n = 0; n < len; n++)
        assert_int_not_equal(rs_lap_proof_info_read(good, n, &info), RS_OK);
    rs_lap_verdict v;
    char msg[256];
    for (size_t n = 0; n < len; n += len / 7 + 1)
        assert_int_not_equal(
            rs_lap_proof_verify(good, n, r->cars, CARS, r->track, &v, msg, sizeof msg), RS_OK);
    /* One byte too many, a wrong magic, an unknown version. */
    uint8_t *p = malloc(len + 1);
    assert_non_null(p);
    memcpy(p, good, len);
    p[len] = 0;
    assert_int_equal(rs_lap_proof_info_read(p, len + 1, &info), RS_ERR_FORMAT);
    p[0] = 'X';
    assert_int_equal(rs_lap_proof_info_read(p, len, &info), RS_ERR_FORMAT);
    memcpy(p, good, len);
    p[4] = 2;
    assert_int_equal(rs_lap_proof_info_read(p, len, &info), RS_ERR_FORMAT);
    free(p);
}

/* Runs a race of its own. */
static void test_a_lap_longer_than_the_recorder_holds_gets_no_proof(void **state)
{
    (void)state;
    race r;
    run_race(&r, 60); /* one second: no lap of the oval fits */
    assert_int_equal(r.laps_seen, 2 * CARS);
    assert_int_equal(r.proofs, 0);
    assert_int_equal(r.full, 2 * CARS);
    free_race(&r);
}

/* tests/fixtures/lapproof_v1.bin: a version 1 proof as users' databases
 * hold them, recorded by the code of commit a34e3c9 (before version 2) and
 * kept byte for byte: car 1's second lap of a two-lap race of two AI
 * formula cars on the oval, at 30 Hz with 8 substeps (a world definition
 * other than the default, so the header's fields are read, not assumed).
 * Whatever the current format is, it must still decode and verify. */
#define V1_FIXTURE RS_TEST_FIXTURES "/lapproof_v1.bin"
#define V1_LAP_TIME_US 30677685
#define V1_TICKS 922u

static void test_a_version_1_proof_still_verifies(void **state)
{
    const race *r = *state; /* its formula car and oval are the fixture's */
    char *bytes = NULL;
    size_t len = 0;
    char err[256];
    assert_int_equal(rs_file_read(V1_FIXTURE, 1u << 20, &bytes, &len, err, sizeof err),
                     RS_FILE_OK);
    const uint8_t *p = (const uint8_t *)bytes;
    rs_lap_proof_info info;
    assert_int_equal(rs_lap_proof_info_read(p, len, &info), RS_OK);
    assert_int_equal(info.version, 1);
    assert_int_equal(info.tick_hz, 30);
    assert_int_equal(info.substeps, 8);
    assert_int_equal(info.laps, 2);
    assert_int_equal(info.car_count, CARS);
    assert_int_equal(info.car, 1);
    assert_int_equal(info.lap, 2);
    assert_int_equal(info.tick_count, V1_TICKS);
    assert_true(info.lap_time_us == V1_LAP_TIME_US);
    assert_true(info.car_params_hash == rs_car_params_hash(r->car));

    char msg[512];
    rs_lap_verdict v = verify(r, p, len, msg, sizeof msg);
    print_message("version 1 fixture: %s\n", msg);
    assert_int_equal(v.code, RS_LAP_PROOF_OK);
    assert_true(v.simulated_time_us == V1_LAP_TIME_US);

    /* It is really re-simulated: the lapping car's throttle inverted in one
     * tick mid-lap changes its end state. */
    uint8_t *bad = malloc(len);
    assert_non_null(bad);
    memcpy(bad, p, len);
    size_t at = len - (size_t)V1_TICKS * CARS * 8 + (size_t)(V1_TICKS / 2) * CARS * 8 + 2;
    bad[at] = (uint8_t)(bad[at] > 128 ? 0 : 255);
    v = verify(r, bad, len, msg, sizeof msg);
    print_message("version 1 fixture, throttle tampered: %s\n", msg);
    assert_true(v.code == RS_LAP_PROOF_DIFFERS || v.code == RS_LAP_PROOF_NO_LAP);
    free(bad);
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_lap_of_a_race_re_simulates_bit_for_bit),
        cmocka_unit_test(test_tampering_is_named_in_the_verdict),
        cmocka_unit_test(test_damaged_proofs_are_rejected_at_every_length),
        cmocka_unit_test(test_a_lap_longer_than_the_recorder_holds_gets_no_proof),
        cmocka_unit_test(test_a_version_1_proof_still_verifies),
    };
    return cmocka_run_group_tests(tests, race_once, race_free);
}
