/*
 * Live standings (racesim/standings.h) against the world's own timing
 * events: a formula car laps a C5 on the oval, and at every tick each car's
 * gap and interval must equal the difference of the crossing times the
 * SECTOR events reported for the same line of the same lap; a rollback that
 * undoes a crossing must take the gap back with it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "racesim/driver.h"
#include "racesim/physics.h"
#include "racesim/standings.h"
#include "racesim/track.h"
#include "test_fixtures.h"

#define CARS 2
#define LAPS 3
#define MAX_CROSSINGS (LAPS * RS_MAX_SECTORS + 1)

/* Crossing times from the SECTOR events: t[car][m], -1 = not seen. */
typedef struct crossings {
    int64_t t[CARS][MAX_CROSSINGS];
    uint32_t lines;
} crossings;

static void record(crossings *x, const rs_world *w)
{
    size_t n;
    const rs_event *ev = rs_world_events(w, &n);
    for (size_t k = 0; k < n; k++) {
        if (ev[k].type != RS_EVENT_SECTOR)
            continue;
        /* Sector s of lap l ends at crossing (l - 1) * lines + s + 1. */
        uint64_t m = (uint64_t)(ev[k].lap - 1) * x->lines + ev[k].sector + 1;
        assert_true(m < MAX_CROSSINGS);
        x->t[ev[k].car - 1][m] = ev[k].time_us;
    }
}

/* The crossing a car's gap is measured at: its newest, or its flag. */
static uint64_t newest(const rs_world *w, uint16_t car, uint32_t lines)
{
    rs_race_car_state st;
    assert_int_equal(rs_world_race_state(w, (rs_car_id){car}, &st), RS_OK);
    if (st.status == RS_RACE_FINISHED)
        return (uint64_t)st.laps_completed * lines;
    return st.crossings ? st.crossings - 1 : UINT64_MAX;
}

/* What the gap of `me` behind `ahead` must be from the events alone. */
static void expected(const crossings *x, const rs_world *w, uint16_t me, uint16_t ahead,
                     int64_t *gap, uint32_t *laps)
{
    uint64_t m = newest(w, me, x->lines), ma = newest(w, ahead, x->lines);
    *gap = -1;
    *laps = 0;
    if (m == UINT64_MAX || ma == UINT64_MAX || ma < m)
        return;
    *laps = (uint32_t)((ma - m) / x->lines);
    /* Crossing 0 (the start line at lights out) has no SECTOR event. */
    if (m > 0 && x->t[me - 1][m] >= 0 && x->t[ahead - 1][m] >= 0)
        *gap = x->t[me - 1][m] - x->t[ahead - 1][m];
}

/* Every row agrees with the events; returns the number of rows whose gap
 * is known (the leader aside). */
static uint32_t check(const crossings *x, const rs_standings *b, const rs_world *w)
{
    rs_standing rows[CARS];
    assert_int_equal(rs_standings_get(b, w, rows, CARS), CARS);
    assert_int_equal(rows[0].gap_us, 0);
    assert_int_equal(rows[0].interval_us, 0);
    uint32_t known = 0;
    for (uint32_t k = 1; k < CARS; k++) {
        int64_t gap;
        uint32_t laps;
        expected(x, w, rows[k].car, rows[0].car, &gap, &laps);
        if (newest(w, rows[k].car, x->lines) != 0) /* crossing 0 has no event to compare */
            assert_true(rows[k].gap_us == gap);
        assert_int_equal(rows[k].laps_behind, laps);
        expected(x, w, rows[k].car, rows[k - 1].car, &gap, &laps);
        if (newest(w, rows[k].car, x->lines) != 0)
            assert_true(rows[k].interval_us == gap);
        assert_int_equal(rows[k].interval_laps, laps);
        assert_int_equal(rows[k].position, k + 1);
        known += rows[k].gap_us > 0;
    }
    return known;
}

static void test_gaps_are_the_line_crossing_differences(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_track *track = shipped->oval;
    rs_world *w = fixture_world(track, LAPS, 60, true);
    const rs_car_params *params[CARS] = {shipped->c5, shipped->formula};
    rs_racing_line *line[CARS];
    rs_driver *drv[CARS];
    rs_car_id id[CARS];
    for (uint32_t c = 0; c < CARS; c++) {
        rs_car_spawn sp;
        assert_true(rs_track_grid_slot(track, c, &sp));
        assert_int_equal(rs_world_add_car(w, params[c], &sp, &id[c]), RS_OK);
        assert_int_equal(rs_racing_line_build(track, params[c], NULL, &line[c]), RS_OK);
        assert_int_equal(rs_driver_create(line[c], NULL, &drv[c]), RS_OK);
    }
    rs_standings *b = rs_standings_create(CARS);
    assert_non_null(b);
    crossings x;
    memset(&x, 0xff, sizeof x.t); /* -1 */
    x.lines = rs_track_line_count(track);
    assert_true(x.lines >= 2);

    /* Before lights out nobody has crossed anything. */
    rs_standing rows[CARS];
    rs_standings_observe(b, w);
    assert_int_equal(rs_standings_get(b, w, rows, CARS), CARS);
    assert_int_equal(rows[1].gap_us, -1);

    size_t snap_cap = rs_world_snapshot(w, NULL, 0);
    uint8_t *before = malloc(snap_cap);
    assert_non_null(before);
    bool rolled_back = false;
    uint32_t known = 0, lapped = 0;
    for (int t = 0; t < 60 * 400 && !rs_world_race_over(w); t++) {
        rs_input in[CARS];
        for (uint32_t c = 0; c < CARS; c++) {
            in[c] = rs_driver_update(drv[c], w, id[c]);
            rs_world_set_input(w, id[c], &in[c]);
        }
        size_t snap_len = rs_world_snapshot(w, before, snap_cap);
        uint64_t c5_before = newest(w, 1, x.lines);
        assert_int_equal(rs_world_step(w), RS_OK);
        if (!rolled_back && c5_before != UINT64_MAX && newest(w, 1, x.lines) == x.lines + 1) {
            /* The C5's first line of lap 2, undone as a rollback would
             * undo it: its gap goes back to the line before. */
            rolled_back = true;
            rs_standings_observe(b, w);
            assert_int_equal(rs_world_restore(w, before, snap_len), RS_OK);
            rs_standings_observe(b, w);
            check(&x, b, w);
            for (uint32_t c = 0; c < CARS; c++)
                rs_world_set_input(w, id[c], &in[c]);
            assert_int_equal(rs_world_step(w), RS_OK);
        }
        record(&x, w);
        rs_standings_observe(b, w);
        known += check(&x, b, w);
        rs_standings_get(b, w, rows, CARS);
        lapped += rows[1].laps_behind > 0;
    }
    assert_true(rs_world_race_over(w));
    assert_true(rolled_back);
    print_message("%u ticks with a known gap, %u with the C5 a lap or more down\n", known,
                  lapped);
    assert_true(known > 1000);
    assert_true(lapped > 100); /* the formula car laps the C5 */
    /* At the end: the finishers in order, gaps at the flag. */
    assert_int_equal(rs_standings_get(b, w, rows, CARS), CARS);
    assert_int_equal(rows[0].car, 2);
    assert_true(rows[0].finish_us > 0 && rows[1].finish_us > rows[0].finish_us);
    free(before);
    rs_standings_destroy(b);
    for (uint32_t c = 0; c < CARS; c++) {
        rs_driver_destroy(drv[c]);
        rs_racing_line_destroy(line[c]);
    }
    rs_world_destroy(w);
}

static void test_a_board_without_memory_or_cars_is_refused(void **state)
{
    (void)state;
    assert_null(rs_standings_create(0));
    assert_null(rs_standings_create(RS_STANDINGS_MAX_CARS + 1));
    rs_standings_destroy(NULL);
    rs_standings_reset(NULL);
    rs_standings_observe(NULL, NULL);
    assert_int_equal(rs_standings_get(NULL, NULL, NULL, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gaps_are_the_line_crossing_differences),
        cmocka_unit_test(test_a_board_without_memory_or_cars_is_refused),
    };
    return cmocka_run_group_tests(tests, fixture_shipped_load, fixture_shipped_free);
}
