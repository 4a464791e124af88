/*
 * The world with a track: held cars before lights out, barriers stopping a
 * car through rs_world_step, ghost mode, and laps timed end to end with an
 * AI driver, read back through events, race state and race order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "racesim/driver.h"
#include "racesim/physics.h"
#include "racesim/track.h"

static const char *data_dir(void)
{
    const char *d = getenv("RS_DATA_DIR");
    return d ? d : RS_DATA_DIR;
}

static rs_car_params *load_car(const char *name)
{
    char path[1024], err[512];
    rs_car_params *p = NULL;
    snprintf(path, sizeof path, "%s/cars/%s", data_dir(), name);
    if (rs_car_params_load(path, &p, err, sizeof err) != RS_OK)
        fail_msg("%s", err);
    return p;
}

static rs_track *load_track(const char *name)
{
    char path[1024], err[512];
    rs_track *t = NULL;
    snprintf(path, sizeof path, "%s/tracks/%s", data_dir(), name);
    if (rs_track_load(path, &t, err, sizeof err) != RS_OK)
        fail_msg("%s", err);
    return t;
}

static rs_world *make_world(const rs_track *track, uint32_t laps, uint64_t start, bool collisions)
{
    rs_world_def def = rs_world_default();
    def.track = track;
    def.laps = laps;
    def.start_tick = start;
    def.car_collisions = collisions;
    rs_world *w = NULL;
    assert_int_equal(rs_world_create(&def, &w), RS_OK);
    return w;
}

static void test_cars_are_held_on_the_grid_until_lights_out(void **state)
{
    (void)state;
    rs_car_params *car = load_car("c5.json");
    rs_track *track = load_track("technical.json");
    rs_world *w = make_world(track, 1, 120, true);
    rs_car_spawn sp;
    assert_true(rs_track_grid_slot(track, 0, &sp));
    rs_car_id id;
    assert_int_equal(rs_world_add_car(w, car, &sp, &id), RS_OK);
    rs_input in = rs_input_quantise(0.0, 1.0, 0.0, 0.0, 0.0);
    in.gear = 1;
    assert_int_equal(rs_world_set_input(w, id, &in), RS_OK);
    rs_car_state s;
    for (int t = 0; t < 120; t++)
        assert_int_equal(rs_world_step(w), RS_OK);
    assert_true(rs_world_race_time_us(w) == 0);
    rs_world_car_state(w, id, &s);
    assert_true(s.speed_m_s < 0.05);
    for (int t = 0; t < 120; t++)
        assert_int_equal(rs_world_step(w), RS_OK);
    rs_world_car_state(w, id, &s);
    assert_true(s.speed_m_s > 5.0); /* lights out: away it goes */
    assert_true(rs_world_race_time_us(w) == 2000000);
    rs_world_destroy(w);
    rs_track_destroy(track);
    rs_car_params_destroy(car);
}

/* Full throttle, wheel straight, from the oval's grid: the wall at the end
 * of the straight stops the car, with one hit event and a counter. */
static void test_barrier_stops_a_car_through_the_world_step(void **state)
{
    (void)state;
    rs_car_params *car = load_car("formula.json");
    rs_track *track = load_track("oval.json");
    rs_world *w = make_world(track, 0, 0, true);
    rs_car_spawn sp;
    assert_true(rs_track_grid_slot(track, 0, &sp));
    rs_car_id id;
    assert_int_equal(rs_world_add_car(w, car, &sp, &id), RS_OK);
    rs_input in = rs_input_quantise(0.0, 1.0, 0.0, 0.0, 0.0);
    in.gear = 1; /* drive: the grid leaves cars in neutral */
    assert_int_equal(rs_world_set_input(w, id, &in), RS_OK);
    int hit_events = 0;
    double max_speed = 0.0;
    for (int t = 0; t < 60 * 40; t++) {
        assert_int_equal(rs_world_step(w), RS_OK);
        size_t n;
        const rs_event *ev = rs_world_events(w, &n);
        for (size_t k = 0; k < n; k++)
            if (ev[k].type == RS_EVENT_BARRIER_HIT) {
                hit_events++;
                assert_int_equal(ev[k].car, id.index1);
                assert_true(ev[k].impulse_n_s > 0.0);
            }
        rs_car_state s;
        rs_world_car_state(w, id, &s);
        if (s.speed_m_s > max_speed)
            max_speed = s.speed_m_s;
        /* Never outside the barriers: the track still knows where it is. */
        rs_track_location loc;
        assert_true(rs_track_locate(track, s.pos_m[0], s.pos_m[1], &loc));
    }
    rs_race_car_state rs;
    assert_int_equal(rs_world_race_state(w, id, &rs), RS_OK);
    print_message("top speed %.1f m/s, %u barrier hits, %d hit events\n", max_speed,
                  rs.barrier_hits, hit_events);
    assert_true(max_speed > 40.0);
    assert_true(rs.barrier_hits >= 1);
    assert_true(hit_events >= 1);
    rs_world_destroy(w);
    rs_track_destroy(track);
    rs_car_params_destroy(car);
}

/* Two cars driven into each other: they collide, unless the race is in
 * ghost mode, where they pass through. */
static uint32_t crash_two_cars(const rs_track *track, bool collisions)
{
    rs_car_params *car = load_car("c5.json");
    rs_world *w = make_world(track, 0, 0, collisions);
    rs_car_spawn a, b;
    assert_true(rs_track_grid_slot(track, 0, &a));
    assert_true(rs_track_grid_slot(track, 2, &b)); /* same column, a row behind */
    rs_car_id ia, ib;
    assert_int_equal(rs_world_add_car(w, car, &a, &ia), RS_OK);
    assert_int_equal(rs_world_add_car(w, car, &b, &ib), RS_OK);
    /* Slot 2 is behind slot 0: full throttle into its back while the leader
     * stands on the brakes. */
    rs_input push = rs_input_quantise(0.0, 1.0, 0.0, 0.0, 0.0);
    rs_input stop = rs_input_quantise(0.0, 0.0, 1.0, 0.0, 0.0);
    push.gear = 1;
    rs_world_set_input(w, ia, &stop);
    rs_world_set_input(w, ib, &push);
    uint32_t events = 0;
    for (int t = 0; t < 60 * 4; t++) {
        assert_int_equal(rs_world_step(w), RS_OK);
        size_t n;
        const rs_event *ev = rs_world_events(w, &n);
        for (size_t k = 0; k < n; k++)
            if (ev[k].type == RS_EVENT_CAR_HIT) {
                assert_true(ev[k].car < ev[k].other);
                events++;
            }
    }
    rs_race_car_state rs;
    rs_world_race_state(w, ib, &rs);
    assert_true(rs.car_hits == (events > 0 ? rs.car_hits : 0));
    rs_world_destroy(w);
    rs_car_params_destroy(car);
    return events;
}

static void test_ghost_mode_turns_car_collisions_off(void **state)
{
    (void)state;
    rs_track *track = load_track("technical.json");
    assert_true(crash_two_cars(track, true) >= 1);
    assert_int_equal(crash_two_cars(track, false), 0);
    rs_track_destroy(track);
}

/* Full throttle for 4 s in a straight line from a standstill, starting at
 * (x, y) along heading; returns the distance covered. Records whether every
 * wheel reported a surface other than asphalt/kerb and outside the limits. */
static double launch(const rs_track *track, const rs_car_params *car, double x, double y,
                     double heading, bool *all_off)
{
    rs_world *w = make_world(track, 0, 0, false);
    rs_car_spawn sp = rs_car_spawn_default();
    sp.pos_m[0] = x, sp.pos_m[1] = y, sp.yaw_rad = heading;
    rs_car_id id;
    assert_int_equal(rs_world_add_car(w, car, &sp, &id), RS_OK);
    rs_input in = rs_input_quantise(0.0, 1.0, 0.0, 0.0, 0.0);
    in.gear = 1;
    rs_world_set_input(w, id, &in);
    rs_car_state s;
    *all_off = true;
    for (int t = 0; t < 240; t++) {
        assert_int_equal(rs_world_step(w), RS_OK);
        rs_world_car_state(w, id, &s);
        for (int k = 0; k < 4; k++)
            if (s.wheels[k].inside_limits || s.wheels[k].surface <= RS_SURFACE_KERB)
                *all_off = false;
    }
    double dx = s.pos_m[0] - x, dy = s.pos_m[1] - y;
    rs_world_destroy(w);
    return dx * dx + dy * dy;
}

/* The track's surfaces reach the tyres: the same launch on the run-off
 * beside the start straight covers clearly less ground than on asphalt. */
static void test_leaving_the_track_costs_time(void **state)
{
    (void)state;
    rs_car_params *car = load_car("c5.json");
    rs_track *track = load_track("technical.json");
    rs_car_spawn sp;
    assert_true(rs_track_grid_slot(track, 0, &sp));
    /* Step out to the left (normal (-sin, cos) of the heading) until the
     * ground is run-off, outside the limits, for a car's width. */
    double nx = -sin(sp.yaw_rad), ny = cos(sp.yaw_rad), x = 0.0, y = 0.0;
    rs_ground_hit hit, inner;
    double d = 0.0;
    for (; d < 40.0; d += 0.25) {
        x = sp.pos_m[0] + nx * d, y = sp.pos_m[1] + ny * d;
        rs_track_ground(track, x, y, &hit);
        rs_track_ground(track, x - 2.5 * nx, y - 2.5 * ny, &inner);
        if (!hit.inside_limits && !inner.inside_limits && hit.surface >= RS_SURFACE_GRASS &&
            inner.surface >= RS_SURFACE_GRASS)
            break;
    }
    assert_true(d < 40.0);
    x -= 1.25 * nx, y -= 1.25 * ny; /* the car's centre between the two probes */
    bool track_all_off, runoff_all_off;
    double on = launch(track, car, sp.pos_m[0], sp.pos_m[1], sp.yaw_rad, &track_all_off);
    double out = launch(track, car, x, y, sp.yaw_rad, &runoff_all_off);
    print_message("4 s launch: %.1f m on asphalt, %.1f m on the %s run-off %.1f m to the left\n",
                  sqrt(on), sqrt(out), hit.surface == RS_SURFACE_GRAVEL ? "gravel" : "grass", d);
    assert_false(track_all_off);
    assert_true(runoff_all_off);
    assert_true(sqrt(out) < 0.8 * sqrt(on));
    rs_track_destroy(track);
    rs_car_params_destroy(car);
}

/* One AI car, two laps of the oval: LAP events carry sectors that add up,
 * the race state agrees, the car finishes first and the race ends. */
static void test_laps_are_timed_end_to_end(void **state)
{
    (void)state;
    rs_car_params *car = load_car("formula.json");
    rs_track *track = load_track("oval.json");
    rs_world *w = make_world(track, 2, 60, true);
    rs_car_spawn sp;
    assert_true(rs_track_grid_slot(track, 0, &sp));
    rs_car_id id;
    assert_int_equal(rs_world_add_car(w, car, &sp, &id), RS_OK);
    rs_racing_line *line = NULL;
    rs_driver *drv = NULL;
    assert_int_equal(rs_racing_line_build(track, car, NULL, &line), RS_OK);
    assert_int_equal(rs_driver_create(line, NULL, &drv), RS_OK);
    int laps = 0, finishes = 0, overs = 0;
    int64_t lap_sum = 0, last_lap_us = -1;
    for (int t = 0; t < 60 * 240 && !rs_world_race_over(w); t++) {
        rs_input in = rs_driver_update(drv, w, id);
        rs_world_set_input(w, id, &in);
        assert_int_equal(rs_world_step(w), RS_OK);
        size_t n;
        const rs_event *ev = rs_world_events(w, &n);
        for (size_t k = 0; k < n; k++) {
            if (ev[k].type == RS_EVENT_LAP) {
                int64_t sum = 0;
                assert_int_equal(ev[k].sector_count, rs_track_line_count(track));
                for (uint32_t j = 0; j < ev[k].sector_count; j++) {
                    assert_true(ev[k].sectors_us[j] > 0);
                    sum += ev[k].sectors_us[j];
                }
                assert_true(sum == ev[k].duration_us);
                assert_true(ev[k].valid);
                laps++;
                lap_sum += ev[k].duration_us;
                last_lap_us = ev[k].duration_us;
                /* The crossing lies inside the tick that reports it. */
                int64_t end = rs_world_race_time_us(w);
                assert_true(ev[k].time_us <= end && ev[k].time_us > end - 16667 - 1);
            } else if (ev[k].type == RS_EVENT_FINISH) {
                assert_int_equal(ev[k].position, 1);
                finishes++;
            } else if (ev[k].type == RS_EVENT_RACE_OVER) {
                overs++;
            }
        }
    }
    rs_race_car_state rs;
    assert_int_equal(rs_world_race_state(w, id, &rs), RS_OK);
    print_message("2 laps: %.3f s, last %.3f s, best %.3f s\n", (double)lap_sum / 1e6,
                  (double)last_lap_us / 1e6, (double)rs.best_lap_us / 1e6);
    assert_int_equal(laps, 2);
    assert_int_equal(finishes, 1);
    assert_int_equal(overs, 1);
    assert_true(rs_world_race_over(w));
    assert_int_equal(rs.status, RS_RACE_FINISHED);
    assert_int_equal(rs.laps_completed, 2);
    assert_int_equal(rs.finish_position, 1);
    assert_true(rs.last_lap_us == last_lap_us);
    assert_int_equal(rs.barrier_hits, 0);
    rs_car_id order[1];
    assert_int_equal(rs_world_race_order(w, order, 1), 1);
    assert_int_equal(order[0].index1, id.index1);
    rs_driver_destroy(drv);
    rs_racing_line_destroy(line);
    rs_world_destroy(w);
    rs_track_destroy(track);
    rs_car_params_destroy(car);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cars_are_held_on_the_grid_until_lights_out),
        cmocka_unit_test(test_barrier_stops_a_car_through_the_world_step),
        cmocka_unit_test(test_ghost_mode_turns_car_collisions_off),
        cmocka_unit_test(test_leaving_the_track_costs_time),
        cmocka_unit_test(test_laps_are_timed_end_to_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
