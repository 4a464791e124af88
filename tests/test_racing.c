/*
 * The AI driver on every shipped track with every shipped car (it must
 * drive any shipped car round every shipped track without touching a
 * barrier when alone; docs/AI.md): alone, two laps from the grid, no barrier hit, every
 * lap valid and the flying lap within 115 % of the planned lap time; then a
 * full race of eight on each track that everyone finishes. The tracks and
 * cars are whatever JSON files data/tracks and data/cars hold, so a new
 * track or car is tested as soon as it is shipped; with no tracks the tests
 * skip.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "racesim/driver.h"
#include "racesim/physics.h"
#include "racesim/track.h"
#include "test_fixtures.h"

#define MAX_FILES 32
#define NAME_MAX_LEN 128
#define RACE_CARS 8

/* The names (without ".json") of the *.json files of data/<sub>, sorted. */
static int list_json(const char *sub, char names[MAX_FILES][NAME_MAX_LEN])
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", test_data_dir(), sub);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < MAX_FILES) {
        size_t len = strlen(e->d_name);
        if (len < 6 || len >= NAME_MAX_LEN || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        memcpy(names[n], e->d_name, len - 5);
        names[n++][len - 5] = '\0';
    }
    closedir(d);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[NAME_MAX_LEN];
            memcpy(t, names[j], NAME_MAX_LEN);
            memcpy(names[j], names[j - 1], NAME_MAX_LEN);
            memcpy(names[j - 1], t, NAME_MAX_LEN);
        }
    return n;
}

typedef struct race_result {
    uint32_t laps[RACE_CARS];
    uint32_t invalid[RACE_CARS];
    int64_t lap_us[RACE_CARS][4];
    uint64_t ticks;
} race_result;

/* Races n AI cars (n <= RACE_CARS) over laps laps; fills res. */
static void run_race(const rs_track *t, const rs_car_params *car, const rs_racing_line *line,
                     uint32_t n, uint32_t laps, rs_world **out_world, race_result *res)
{
    rs_world_def def = rs_world_default();
    def.track = t;
    def.laps = laps;
    def.start_tick = 60;
    def.max_cars = n;
    rs_world *w = NULL;
    assert_int_equal(rs_world_create(&def, &w), RS_OK);
    rs_driver *drv[RACE_CARS];
    for (uint32_t i = 0; i < n; i++) {
        rs_car_spawn sp;
        assert_true(rs_track_grid_slot(t, i, &sp));
        sp.transmission = RS_TRANSMISSION_MANUAL;
        assert_int_equal(rs_world_add_car(w, car, &sp, &(rs_car_id){0}), RS_OK);
        rs_driver_options o = rs_driver_options_default();
        o.seed = 11u + i;
        o.pace = n == 1 ? 0.97 : 0.96 - 0.003 * i;
        assert_int_equal(rs_driver_create(line, &o, &drv[i]), RS_OK);
    }
    memset(res, 0, sizeof *res);
    /* Generous: three planned laps' time per lap, plus the start. */
    uint64_t limit = (uint64_t)(60.0 * 3.0 * rs_racing_line_lap_time(line)) * laps + 600;
    uint64_t tick = 0;
    for (; tick < limit && !rs_world_race_over(w); tick++) {
        for (uint32_t i = 0; i < n; i++) {
            rs_car_id id = {(uint16_t)(i + 1)};
            rs_input in = rs_driver_update(drv[i], w, id);
            assert_int_equal(rs_world_set_input(w, id, &in), RS_OK);
        }
        assert_int_equal(rs_world_step(w), RS_OK);
        size_t count = 0;
        const rs_event *ev = rs_world_events(w, &count);
        for (size_t k = 0; k < count; k++) {
            if (ev[k].type != RS_EVENT_LAP)
                continue;
            uint32_t c = ev[k].car - 1u;
            if (res->laps[c] < 4)
                res->lap_us[c][res->laps[c]] = ev[k].duration_us;
            res->laps[c]++;
            if (!ev[k].valid)
                res->invalid[c]++;
        }
    }
    res->ticks = tick;
    for (uint32_t i = 0; i < n; i++)
        rs_driver_destroy(drv[i]);
    *out_world = w;
}

static void test_every_car_laps_every_shipped_track_alone_without_a_touch(void **state)
{
    (void)state;
    static char tracks[MAX_FILES][NAME_MAX_LEN], cars[MAX_FILES][NAME_MAX_LEN];
    int nt = list_json("tracks", tracks), nc = list_json("cars", cars);
    if (nt == 0)
        skip();
    assert_true(nc > 0);
    for (int ti = 0; ti < nt; ti++) {
        rs_track *t = fixture_track(tracks[ti]);
        for (int ci = 0; ci < nc; ci++) {
            rs_car_params *car = fixture_car(cars[ci]);
            rs_racing_line *line = NULL;
            assert_int_equal(rs_racing_line_build(t, car, NULL, &line), RS_OK);
            double planned = rs_racing_line_lap_time(line);
            rs_world *w = NULL;
            race_result res;
            run_race(t, car, line, 1, 2, &w, &res);
            rs_race_car_state rs;
            assert_int_equal(rs_world_race_state(w, (rs_car_id){1}, &rs), RS_OK);
            double flying = (double)res.lap_us[0][1] / 1e6;
            print_message("%-16s %-14s planned %7.3f s, laps %7.3f %7.3f s (%.1f %%), barrier "
                          "hits %u, invalid %u\n",
                          tracks[ti], cars[ci], planned, res.lap_us[0][0] / 1e6, flying,
                          100.0 * flying / planned, rs.barrier_hits, res.invalid[0]);
            assert_int_equal(res.laps[0], 2);
            assert_int_equal(rs.status, RS_RACE_FINISHED);
            assert_int_equal(rs.barrier_hits, 0);
            assert_int_equal(res.invalid[0], 0);
            assert_true(flying > planned);
            assert_true(flying < 1.15 * planned);
            rs_world_destroy(w);
            rs_racing_line_destroy(line);
            rs_car_params_destroy(car);
        }
        rs_track_destroy(t);
    }
}

static void test_a_race_of_eight_finishes_on_every_shipped_track(void **state)
{
    (void)state;
    static char tracks[MAX_FILES][NAME_MAX_LEN];
    int nt = list_json("tracks", tracks);
    if (nt == 0)
        skip();
    rs_car_params *car = fixture_car("c5");
    for (int ti = 0; ti < nt; ti++) {
        rs_track *t = fixture_track(tracks[ti]);
        uint32_t n = rs_track_grid_count(t) < RACE_CARS ? rs_track_grid_count(t) : RACE_CARS;
        rs_racing_line *line = NULL;
        assert_int_equal(rs_racing_line_build(t, car, NULL, &line), RS_OK);
        rs_world *w = NULL;
        race_result res;
        run_race(t, car, line, n, 2, &w, &res);
        uint32_t barrier = 0, cars = 0, finished = 0;
        for (uint32_t i = 0; i < n; i++) {
            rs_race_car_state rs;
            rs_world_race_state(w, (rs_car_id){(uint16_t)(i + 1)}, &rs);
            barrier += rs.barrier_hits;
            cars += rs.car_hits;
            finished += rs.status == RS_RACE_FINISHED;
        }
        rs_car_id order[RACE_CARS];
        rs_world_race_order(w, order, RACE_CARS);
        print_message("%-16s %u cars, 2 laps in %.1f s: %u finished, barrier hits %u, car hits "
                      "%u, winner car %u\n",
                      tracks[ti], n, (double)res.ticks / 60.0, finished, barrier, cars,
                      order[0].index1);
        assert_true(rs_world_race_over(w));
        assert_int_equal(finished, n);
        assert_true(barrier <= 1);
        rs_world_destroy(w);
        rs_racing_line_destroy(line);
        rs_track_destroy(t);
    }
    rs_car_params_destroy(car);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_car_laps_every_shipped_track_alone_without_a_touch),
        cmocka_unit_test(test_a_race_of_eight_finishes_on_every_shipped_track),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
