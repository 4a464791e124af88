/*
 * Vehicle-model behaviour that physics must obey whatever the car: a locked
 * wheel never out-brakes one held at its peak, a parked car comes to rest
 * after a hard stop instead of rocking on its tyres, and a car tumbling in
 * the air does not gain rotational energy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "carparams.h"
#include "maneuvers.h"
#include "racesim/physics.h"
#include "race.h"
#include "test_fixtures.h"

static void test_full_pedal_stop_is_never_shorter_than_threshold_braking(void **state)
{
    (void)state;
    const char *cars[2] = {"c5", "formula"};
    for (int i = 0; i < 2; i++) {
        rs_car_params *p = fixture_car(cars[i]);
        rs_mv_config cfg = rs_mv_config_default();
        rs_mv_brake b;
        char err[256] = "";
        assert_int_equal(rs_mv_run_brake(p, &cfg, &b, err, sizeof err), RS_OK);
        print_message("%s: threshold %.2f m, full pedal %.2f m\n", cars[i], b.dist_100_0_m,
                      b.dist_full_pedal_m);
        assert_true(b.dist_full_pedal_m >= b.dist_100_0_m);
        rs_car_params_destroy(p);
    }
}

static void test_parked_car_comes_to_rest_after_a_hard_stop(void **state)
{
    (void)state;
    const char *cars[2] = {"c5", "formula"};
    for (int i = 0; i < 2; i++) {
        rs_car_params *p = fixture_car(cars[i]);
        rs_world *w = fixture_world(NULL, 0, 0, true);
        rs_car_spawn sp = rs_car_spawn_default();
        sp.speed_m_s = 25.0;
        sp.gear = 3;
        rs_input in = rs_input_quantise(0.0, 0.0, 1.0, 0.0, 0.0);
        rs_car_id id = fixture_add_car(w, p, &sp, &in);
        double worst = 0.0;
        for (int t = 0; t < 60 * 8; t++) {
            assert_int_equal(rs_world_step(w), RS_OK);
            rs_car_state s;
            rs_world_car_state(w, id, &s);
            if (t >= 60 * 6 && s.speed_m_s > worst)
                worst = s.speed_m_s; /* the last two seconds, long after the stop */
        }
        print_message("%s: largest speed 6-8 s after braking from 90 km/h: %.2e m/s\n", cars[i],
                      worst);
        assert_true(worst < 1e-3);
        rs_world_destroy(w);
        rs_car_params_destroy(p);
    }
}

/* Byte offset of the first car's angular velocity in a snapshot: header
 * (magic, format, version, tick, hz, substeps, track hash, laps, start tick,
 * car collisions), race state, car count, then the car's parameter hash,
 * position, quaternion, velocity (see snapshot.c). */
#define SNAP_W_OFFSET \
    (4 + 4 + 4 + 8 + 4 + 4 + 8 + 4 + 8 + 1 + (int)rs_race_size() + 4 + 8 + 24 + 32 + 24)

static void put_f64(uint8_t *p, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    for (int k = 0; k < 8; k++)
        p[k] = (uint8_t)(bits >> (8 * k));
}

static double rotational_energy(const rs_car_params *p, const rs_car_state *s)
{
    /* The state reports world-frame angular velocity; rotate it into the
     * body frame with the quaternion's conjugate, then 1/2 w.I.w. */
    const double *q = s->quat, *w = s->angvel_rad_s;
    double qw = q[0], qx = -q[1], qy = -q[2], qz = -q[3];
    double tx = 2.0 * (qy * w[2] - qz * w[1]), ty = 2.0 * (qz * w[0] - qx * w[2]),
           tz = 2.0 * (qx * w[1] - qy * w[0]);
    double b[3] = {w[0] + qw * tx + (qy * tz - qz * ty), w[1] + qw * ty + (qz * tx - qx * tz),
                   w[2] + qw * tz + (qx * ty - qy * tx)};
    const double *I = p->def.inertia_kg_m2;
    double Ib[3] = {I[0] * b[0] + I[3] * b[1] + I[4] * b[2], I[3] * b[0] + I[1] * b[1] + I[5] * b[2],
                    I[4] * b[0] + I[5] * b[1] + I[2] * b[2]};
    return 0.5 * (b[0] * Ib[0] + b[1] * Ib[1] + b[2] * Ib[2]);
}

static void test_tumbling_car_in_the_air_does_not_gain_rotational_energy(void **state)
{
    (void)state;
    rs_car_params *p = fixture_car("c5");
    rs_world *w = fixture_world(NULL, 0, 0, true);
    rs_car_spawn sp = rs_car_spawn_default();
    sp.pos_m[2] = 400.0; /* 400 m up: nine seconds of free fall */
    rs_car_id id;
    assert_int_equal(rs_world_add_car(w, p, &sp, &id), RS_OK);
    size_t n;
    uint8_t *snap = fixture_snapshot(w, &n);
    /* Spin about all three axes: the intermediate axis is the unstable one. */
    put_f64(snap + SNAP_W_OFFSET, 2.0);
    put_f64(snap + SNAP_W_OFFSET + 8, 3.0);
    put_f64(snap + SNAP_W_OFFSET + 16, 1.0);
    assert_int_equal(rs_world_restore(w, snap, n), RS_OK);
    rs_car_state s;
    assert_int_equal(rs_world_step(w), RS_OK);
    rs_world_car_state(w, id, &s);
    double e0 = rotational_energy(p, &s), emax = e0;
    for (int t = 0; t < 60 * 8; t++) {
        assert_int_equal(rs_world_step(w), RS_OK);
        rs_world_car_state(w, id, &s);
        double e = rotational_energy(p, &s);
        if (e > emax)
            emax = e;
    }
    print_message("rotational energy %.1f J at the start, at most %.1f J, %.1f J after 8 s\n", e0,
                  emax, rotational_energy(p, &s));
    assert_true(emax <= e0 * 1.02);
    free(snap);
    rs_world_destroy(w);
    rs_car_params_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_pedal_stop_is_never_shorter_than_threshold_braking),
        cmocka_unit_test(test_parked_car_comes_to_rest_after_a_hard_stop),
        cmocka_unit_test(test_tumbling_car_in_the_air_does_not_gain_rotational_energy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
