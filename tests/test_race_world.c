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
#include "test_fixtures.h"

/* Full throttle and nothing else: the grid puts cars in Drive, so no gear
 * request is needed (a newcomer's first input must move the car). */
static rs_input flat_out(void) { return rs_input_quantise(0.0, 1.0, 0.0, 0.0, 0.0); }

/* A car on grid slot `slot` of the world's track, holding `in`. */
static rs_car_id on_grid(rs_world *w, const rs_track *track, const rs_car_params *car,
                         uint32_t slot, rs_input in)
{
    rs_car_spawn sp;
    assert_true(rs_track_grid_slot(track, slot, &sp));
    return fixture_add_car(w, car, &sp, &in);
}

static void test_cars_are_held_on_the_grid_until_lights_out(void **state)
{
    const fixture_shipped *shipped = *state;
    rs_world *w = fixture_world(shipped->technical, 1, 120, true);
    rs_car_id id = on_grid(w, shipped->technical, shipped->c5, 0, flat_out());
    rs_car_state s;
    fixture_steps(w, 120);
    assert_true(rs_world_race_time_us(w) == 0);
    rs_world_car_state(w, id, &s);
    assert_true(s.speed_m_s < 0.05);
    fixture_steps(w, 120);
    rs_world_car_state(w, id, &s);
    assert_true(s.speed_m_s > 5.0); /* lights out: away it goes */
    assert_true(rs_world_race_time_us(w) == 2000000);
    rs_world_destroy(w);
}

/* How far p is past timing line i, along the racing direction (the line
 * runs from a, left, to b, right, so forward is (b - a) turned left). */
static double past_line(const rs_track *track, uint32_t i, const double p[2])
{
    rs_track_line l;
    assert_true(rs_track_line_at(track, i, &l));
    double dx = l.b_m[0] - l.a_m[0], dy = l.b_m[1] - l.a_m[1];
    return (-dy * (p[0] - l.a_m[0]) + dx * (p[1] - l.a_m[1])) / sqrt(dx * dx + dy * dy);
}

/* start_hold false: the car moves before lights out, over the start line
 * and on, and none of it is timed; it is still on the grid after lights out
 * (it must cross the start line after lights out to start lap 1). The
 * snapshot says which kind of world it came from. */
static void test_without_start_hold_cars_move_before_lights_out_untimed(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_track *track = shipped->oval;
    rs_world_def def = rs_world_default();
    assert_true(def.start_hold);
    def.track = track;
    def.laps = 1;
    def.start_tick = 300;
    def.start_hold = false;
    rs_world *w = NULL;
    assert_int_equal(rs_world_create(&def, &w), RS_OK);
    rs_car_id id = on_grid(w, track, shipped->c5, 0, flat_out());
    rs_car_state s;
    rs_world_car_state(w, id, &s);
    double start = past_line(track, 0, s.pos_m);
    assert_true(start < 0.0); /* the grid is behind the line */
    uint64_t crossed_at = 0;
    for (uint64_t t = 0; t < def.start_tick + 60; t++) {
        assert_int_equal(rs_world_step(w), RS_OK);
        size_t n;
        const rs_event *ev = rs_world_events(w, &n);
        for (size_t k = 0; k < n; k++)
            assert_true(ev[k].type != RS_EVENT_SECTOR && ev[k].type != RS_EVENT_LAP &&
                        ev[k].type != RS_EVENT_LAP_INVALID);
        rs_world_car_state(w, id, &s);
        if (!crossed_at && past_line(track, 0, s.pos_m) >= 0.0)
            crossed_at = rs_world_tick(w);
        rs_race_car_state rs;
        assert_int_equal(rs_world_race_state(w, id, &rs), RS_OK);
        assert_int_equal(rs.status, RS_RACE_GRID);
        assert_true(rs.crossings == 0 && rs.crossed_us == -1 && rs.lap_start_us == -1);
        if (rs_world_tick(w) == def.start_tick) {
            print_message("no start hold: %.1f m past the start line, %.1f m/s at lights out "
                          "(crossed it in tick %llu)\n",
                          past_line(track, 0, s.pos_m), s.speed_m_s,
                          (unsigned long long)crossed_at);
            assert_true(rs_world_race_time_us(w) == 0);
            assert_true(crossed_at > 0 && crossed_at < def.start_tick);
            assert_true(s.speed_m_s > 10.0);
        }
    }
    /* The snapshot says start_hold false: it restores onto a world like
     * this one, not onto one that holds its cars. */
    size_t len;
    uint8_t *snap = fixture_snapshot(w, &len);
    rs_world *same = NULL, *held = NULL;
    assert_int_equal(rs_world_create(&def, &same), RS_OK);
    on_grid(same, track, shipped->c5, 0, flat_out());
    assert_int_equal(rs_world_restore(same, snap, len), RS_OK);
    assert_true(rs_world_hash(same) == rs_world_hash(w));
    def.start_hold = true;
    assert_int_equal(rs_world_create(&def, &held), RS_OK);
    on_grid(held, track, shipped->c5, 0, flat_out());
    assert_int_equal(rs_world_restore(held, snap, len), RS_ERR_MISMATCH);
    free(snap);
    rs_world_destroy(held);
    rs_world_destroy(same);
    rs_world_destroy(w);

    /* The same car and input with start_hold (the default) does not move. */
    def.start_hold = true;
    assert_int_equal(rs_world_create(&def, &w), RS_OK);
    id = on_grid(w, track, shipped->c5, 0, flat_out());
    fixture_steps(w, (int)def.start_tick);
    rs_world_car_state(w, id, &s);
    assert_true(s.speed_m_s < 0.05);
    assert_true(past_line(track, 0, s.pos_m) - start < 0.01);
    rs_world_destroy(w);
}

/* Steps the world one tick; copies that tick's events of `type` to out
 * (room for cap) and returns how many there were. */
static size_t step_events_of(rs_world *w, uint8_t type, rs_event *out, size_t cap)
{
    assert_int_equal(rs_world_step(w), RS_OK);
    size_t n, found = 0;
    const rs_event *ev = rs_world_events(w, &n);
    for (size_t k = 0; k < n; k++)
        if (ev[k].type == type) {
            assert_true(found < cap);
            out[found++] = ev[k];
        }
    return found;
}

/* Full throttle, wheel straight, from the oval's grid: the wall at the end
 * of the straight stops the car, with one hit event and a counter. */
static void test_barrier_stops_a_car_through_the_world_step(void **state)
{
    const fixture_shipped *shipped = *state;
    rs_world *w = fixture_world(shipped->oval, 0, 0, true);
    rs_car_id id = on_grid(w, shipped->oval, shipped->formula, 0, flat_out());
    int hit_events = 0;
    double max_speed = 0.0;
    for (int t = 0; t < 60 * 40; t++) {
        rs_event hits[8];
        size_t nhits = step_events_of(w, RS_EVENT_BARRIER_HIT, hits, 8);
        for (size_t k = 0; k < nhits; k++) {
            assert_int_equal(hits[k].car, id.index1);
            assert_true(hits[k].impulse_n_s > 0.0);
        }
        hit_events += (int)nhits;
        rs_car_state s;
        rs_world_car_state(w, id, &s);
        if (s.speed_m_s > max_speed)
            max_speed = s.speed_m_s;
        /* Never outside the barriers: the track still knows where it is. */
        rs_track_location loc;
        assert_true(rs_track_locate(shipped->oval, s.pos_m[0], s.pos_m[1], &loc));
    }
    rs_race_car_state rs;
    assert_int_equal(rs_world_race_state(w, id, &rs), RS_OK);
    print_message("top speed %.1f m/s, %u barrier hits, %d hit events\n", max_speed,
                  rs.barrier_hits, hit_events);
    assert_true(max_speed > 40.0);
    assert_true(rs.barrier_hits >= 1);
    assert_true(hit_events >= 1);
    rs_world_destroy(w);
}

/* Two cars driven into each other: they collide, unless the race is in
 * ghost mode, where they pass through. */
static uint32_t crash_two_cars(const rs_track *track, const rs_car_params *car, bool collisions)
{
    rs_world *w = fixture_world(track, 0, 0, collisions);
    /* Slot 2 is behind slot 0 (same column, a row behind): full throttle
     * into its back while the leader stands on the brakes. */
    on_grid(w, track, car, 0, rs_input_quantise(0.0, 0.0, 1.0, 0.0, 0.0));
    rs_car_id ib = on_grid(w, track, car, 2, flat_out());
    uint32_t events = 0;
    for (int t = 0; t < 60 * 4; t++) {
        rs_event hits[8];
        size_t nhits = step_events_of(w, RS_EVENT_CAR_HIT, hits, 8);
        for (size_t k = 0; k < nhits; k++)
            assert_true(hits[k].car < hits[k].other);
        events += (uint32_t)nhits;
    }
    rs_race_car_state rs;
    rs_world_race_state(w, ib, &rs);
    assert_true(rs.car_hits == (events > 0 ? rs.car_hits : 0));
    rs_world_destroy(w);
    return events;
}

static void test_ghost_mode_turns_car_collisions_off(void **state)
{
    const fixture_shipped *shipped = *state;
    assert_true(crash_two_cars(shipped->technical, shipped->c5, true) >= 1);
    assert_int_equal(crash_two_cars(shipped->technical, shipped->c5, false), 0);
}

/* Full throttle for 4 s in a straight line from a standstill, starting at
 * (x, y) along heading; returns the distance covered. Records whether every
 * wheel reported a surface other than asphalt/kerb and outside the limits. */
static double launch(const rs_track *track, const rs_car_params *car, double x, double y,
                     double heading, bool *all_off)
{
    rs_world *w = fixture_world(track, 0, 0, false);
    rs_car_spawn sp = rs_car_spawn_default();
    sp.pos_m[0] = x, sp.pos_m[1] = y, sp.yaw_rad = heading;
    rs_input in = flat_out();
    rs_car_id id = fixture_add_car(w, car, &sp, &in);
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
    const fixture_shipped *shipped = *state;
    const rs_track *track = shipped->technical;
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
    const rs_car_params *car = shipped->c5;
    double on = launch(track, car, sp.pos_m[0], sp.pos_m[1], sp.yaw_rad, &track_all_off);
    double out = launch(track, car, x, y, sp.yaw_rad, &runoff_all_off);
    print_message("4 s launch: %.1f m on asphalt, %.1f m on the %s run-off %.1f m to the left\n",
                  sqrt(on), sqrt(out), hit.surface == RS_SURFACE_GRAVEL ? "gravel" : "grass", d);
    assert_false(track_all_off);
    assert_true(runoff_all_off);
    assert_true(sqrt(out) < 0.8 * sqrt(on));
}

/* One AI car, two laps of the oval: LAP events carry sectors that add up,
 * the race state agrees, the car finishes first and the race ends. */
static void test_laps_are_timed_end_to_end(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_track *track = shipped->oval;
    const rs_car_params *car = shipped->formula;
    rs_world *w = fixture_world(track, 2, 60, true);
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
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cars_are_held_on_the_grid_until_lights_out),
        cmocka_unit_test(test_without_start_hold_cars_move_before_lights_out_untimed),
        cmocka_unit_test(test_barrier_stops_a_car_through_the_world_step),
        cmocka_unit_test(test_ghost_mode_turns_car_collisions_off),
        cmocka_unit_test(test_leaving_the_track_costs_time),
        cmocka_unit_test(test_laps_are_timed_end_to_end),
    };
    return cmocka_run_group_tests(tests, fixture_shipped_load, fixture_shipped_free);
}
