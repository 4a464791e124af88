/*
 * The set-ups the tests share, written with cmocka's assertions (a test
 * whose set-up fails, fails with the reason): the shipped cars and tracks,
 * one at a time or once for a group of tests; files from ../shared (the test
 * is skipped without them); an empty world, a car in it holding an input,
 * stepping it and its snapshot; a car rebuilt from its parameter block.
 * Header-only, so any test that sees tests/support (every test linking
 * rs_test_data) may use it; include it after cmocka.h.
 */
#ifndef RS_TEST_FIXTURES_H
#define RS_TEST_FIXTURES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "racesim/physics.h"
#include "racesim/track.h"
#include "test_data.h"

/* data/cars/NAME.json (NAME without the extension). */
static inline rs_car_params *fixture_car(const char *name)
{
    rs_car_params *car = NULL;
    if (!test_car_load(name, &car))
        fail_msg("cannot load car %s", name);
    return car;
}

/* data/tracks/NAME.json (NAME without the extension). */
static inline rs_track *fixture_track(const char *name)
{
    rs_track *track = NULL;
    char *json = NULL;
    size_t len = 0;
    if (!test_track_load(name, &track, &json, &len))
        fail_msg("cannot load track %s", name);
    free(json);
    return track;
}

/* The path of ../shared/REL (RS_SHARED_DIR) in buf. The project never ships
 * those files: where ../shared lacks this one, the test is skipped, saying
 * so. */
static inline void fixture_shared_file(char *buf, size_t cap, const char *rel)
{
    const char *dir = getenv("RS_SHARED_DIR");
    FILE *f = NULL;
    if (dir && *dir) {
        snprintf(buf, cap, "%s/%s", dir, rel);
        f = fopen(buf, "rb");
    }
    if (!f) {
        print_message("skipped: ../shared/%s not found (RS_SHARED_DIR)\n", rel);
        skip();
        return;
    }
    fclose(f);
}

/* The shipped cars and tracks most physics tests drive, loaded once for a
 * group of tests: fixture_shipped_load and fixture_shipped_free are the
 * group's cmocka set-up and tear-down, and every test of the group gets the
 * loaded set as its state (`const fixture_shipped *shipped = *state;`). */
typedef struct fixture_shipped {
    rs_car_params *c5, *formula;
    const rs_car_params *cars[2]; /* the same two, for the tests that try each */
    rs_track *technical, *oval;
} fixture_shipped;

static inline int fixture_shipped_load(void **state)
{
    static fixture_shipped d;
    d.c5 = fixture_car("c5");
    d.formula = fixture_car("formula");
    d.cars[0] = d.c5;
    d.cars[1] = d.formula;
    d.technical = fixture_track("technical");
    d.oval = fixture_track("oval");
    *state = &d;
    return 0;
}

static inline int fixture_shipped_free(void **state)
{
    fixture_shipped *d = *state;
    rs_track_destroy(d->oval);
    rs_track_destroy(d->technical);
    rs_car_params_destroy(d->formula);
    rs_car_params_destroy(d->c5);
    return 0;
}

/* The car a client rebuilds from `car`'s parameter block (the block must
 * load back); the caller destroys it. */
static inline rs_car_params *fixture_car_via_block(const rs_car_params *car)
{
    size_t n = rs_car_params_block(car, NULL, 0);
    uint8_t *block = malloc(n);
    assert_non_null(block);
    rs_car_params_block(car, block, n);
    rs_car_params *copy = NULL;
    char err[512];
    assert_int_equal(rs_car_params_from_block(block, n, &copy, err, sizeof err), RS_OK);
    free(block);
    return copy;
}

/* An empty world on `track` (NULL: the flat plane), racing `laps` laps
 * (0: an open session) from lights out at `start_tick`. */
static inline rs_world *fixture_world(const rs_track *track, uint32_t laps, uint64_t start_tick,
                                      bool car_collisions)
{
    rs_world_def def = rs_world_default();
    def.track = track;
    def.laps = laps;
    def.start_tick = start_tick;
    def.car_collisions = car_collisions;
    rs_world *w = NULL;
    assert_int_equal(rs_world_create(&def, &w), RS_OK);
    return w;
}

/* Adds a car at `sp` that holds `in` until told otherwise. */
static inline rs_car_id fixture_add_car(rs_world *w, const rs_car_params *car,
                                        const rs_car_spawn *sp, const rs_input *in)
{
    rs_car_id id;
    assert_int_equal(rs_world_add_car(w, car, sp, &id), RS_OK);
    assert_int_equal(rs_world_set_input(w, id, in), RS_OK);
    return id;
}

/* The world's snapshot in a malloc'd buffer (the caller frees it) of *len
 * bytes. */
static inline uint8_t *fixture_snapshot(const rs_world *w, size_t *len)
{
    size_t n = rs_world_snapshot(w, NULL, 0);
    uint8_t *snap = malloc(n);
    assert_non_null(snap);
    assert_int_equal(rs_world_snapshot(w, snap, n), n);
    *len = n;
    return snap;
}

/* Steps the world `ticks` times; every step must succeed. */
static inline void fixture_steps(rs_world *w, int ticks)
{
    for (int t = 0; t < ticks; t++)
        assert_int_equal(rs_world_step(w), RS_OK);
}

/* One car alone on the flat plane from `sp`, holding `in` for `ticks`:
 * where it ends up. */
static inline rs_car_state fixture_drive_alone(const rs_car_params *car, const rs_car_spawn *sp,
                                               rs_input in, int ticks)
{
    rs_world *w = fixture_world(NULL, 0, 0, true);
    rs_car_id id = fixture_add_car(w, car, sp, &in);
    fixture_steps(w, ticks);
    rs_car_state s;
    assert_int_equal(rs_world_car_state(w, id, &s), RS_OK);
    rs_world_destroy(w);
    return s;
}

#endif
