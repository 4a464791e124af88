/*
 * Vehicle-model behaviour that physics must obey whatever the car: a locked
 * wheel never out-brakes one held at its peak, a parked car comes to rest
 * after a hard stop instead of rocking on its tyres, and a car tumbling in
 * the air does not gain rotational energy. And the car step's two compiled
 * copies (baseline and AVX2) give the same bits in every state. And the
 * check for a car gone NaN or infinite misses no field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "car_internal.h"
#include "carparams.h"
#include "maneuvers.h"
#include "racesim/physics.h"
#include "race.h"
#include "splitmix64.h"
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

/* ------------------------------------------------ the step's two copies */

/* Ground with everything a wheel can meet: strips of each surface across x,
 * a 4 cm step up onto the last (a kerb edge), tilted normals on some. */
static void patchwork_ground(const void *ctx, double x, double y, rs_ground_hit *hit)
{
    (void)ctx;
    int strip = (int)(x / 15.0 + 1000.0) & 3;
    hit->surface = (uint8_t)strip;
    hit->inside_limits = strip < 2;
    hit->height_m = strip == 3 ? 0.04 : 0.0;
    double tilt = strip == 1 ? 0.06 : (y > 3.0 ? -0.04 : 0.0);
    /* A unit normal tilted about y: (sin, 0, cos) for a small angle. */
    hit->normal[0] = tilt;
    hit->normal[1] = 0.0;
    hit->normal[2] = 1.0 - 0.5 * tilt * tilt;
}

/* The first field in which two cars differ, or NULL. Every number a
 * substep writes: the state and the telemetry. */
static const char *car_difference(const rs_car *a, const rs_car *b, int *wheel)
{
#define SAME(field)                                                                            \
    if (memcmp(&a->field, &b->field, sizeof a->field) != 0)                                    \
        return #field;
    *wheel = -1;
    SAME(pos) SAME(q) SAME(vel) SAME(w) SAME(omega_e) SAME(shift_timer_s)
    SAME(shift_cooldown_s) SAME(drive_prev_nm) SAME(gear) SAME(shift_target)
    SAME(engine_nm) SAME(clutch_engagement) SAME(drive_power_w)
    for (int i = 0; i < 4; i++) {
        *wheel = i;
        SAME(wheel[i].travel_m) SAME(wheel[i].travel_v) SAME(wheel[i].omega)
        SAME(wheel[i].kappa) SAME(wheel[i].tan_alpha) SAME(wheel[i].fz) SAME(wheel[i].fx)
        SAME(wheel[i].fy) SAME(wheel[i].mz) SAME(wheel[i].steer) SAME(wheel[i].camber)
        SAME(wheel[i].surface) SAME(wheel[i].grounded) SAME(wheel[i].inside_limits)
    }
#undef SAME
    return NULL;
}

typedef void (*substep_fn)(rs_car *, const rs_world_def *, double, int);

/* Drives two copies of a car through random inputs over the patchwork,
 * one with each step, comparing every field after every substep. */
static void drive_both_copies(const rs_car_params *p, const rs_car_spawn *sp, uint64_t seed,
                              substep_fn fa, substep_fn fb, const char *what)
{
    rs_world_def def = rs_world_default();
    def.ground = patchwork_ground;
    rs_car a, b;
    rs_car_init(&a, p, sp, &def);
    b = a;
    double dt = 1.0 / (def.tick_hz * def.substeps);
    rs_input in = rs_input_default();
    for (int t = 0; t < 900; t++) {
        if (t % 20 == 0) {
            /* A new input every third of a second: any pedal mix, any steer,
             * the handbrake now and then, and the gears both ways. */
            uint64_t r = splitmix64_next(&seed);
            in.throttle = (uint8_t)(r % (RS_PEDAL_MAX + 1));
            in.brake = (uint8_t)((r >> 16) % 4 == 0 ? (r >> 20) % (RS_PEDAL_MAX + 1) : 0);
            in.handbrake = (uint8_t)((r >> 24) % 8 == 0 ? RS_PEDAL_MAX : 0);
            in.steer = (int16_t)((int)((r >> 32) % (2 * RS_STEER_MAX + 1)) - RS_STEER_MAX);
            in.gear = (int8_t)((r >> 48) % 16 == 0 ? -1 : RS_GEAR_KEEP);
            if ((r >> 52) % 16 == 1)
                in.gear = 1;
        }
        a.input = in, b.input = in;
        rs_car_tick_input(&a, 1.0 / def.tick_hz);
        rs_car_tick_input(&b, 1.0 / def.tick_hz);
        for (uint32_t s = 0; s < def.substeps; s++) {
            fa(&a, &def, dt, s == 0);
            fb(&b, &def, dt, s == 0);
            int wheel;
            const char *field = car_difference(&a, &b, &wheel);
            if (field)
                fail_msg("%s: the copies differ in %s (i = %d) at tick %d, substep %u", what,
                         field, wheel, t, s);
        }
    }
    rs_car_state st;
    rs_car_observe(&a, &st);
    print_message("%s: the same bits for 900 ticks, ending at x %.1f m, %.1f m/s\n", what,
                  st.pos_m[0], st.speed_m_s);
}

static void test_both_copies_of_the_step_give_the_same_bits(void **state)
{
    (void)state;
#if RS_TIRE4_AVX2
    if (!__builtin_cpu_supports("avx2")) {
        print_message("skipped: this CPU has no AVX2, so only the baseline copy runs\n");
        return;
    }
    const char *cars[2] = {"c5", "formula"};
    for (int i = 0; i < 2; i++) {
        rs_car_params *p = fixture_car(cars[i]);
        rs_car_spawn sp = rs_car_spawn_default();
        drive_both_copies(p, &sp, 1 + (uint64_t)i, rs_car_substep_base, rs_car_substep_avx2,
                          cars[i]);
        /* Dropped from 2 m at speed: the wheels in the air, then landing. */
        sp.pos_m[2] = 2.0;
        sp.speed_m_s = 30.0;
        drive_both_copies(p, &sp, 7 + (uint64_t)i, rs_car_substep_base, rs_car_substep_avx2,
                          cars[i]);
        rs_car_params_destroy(p);
    }
#else
    print_message("skipped: this build has only the baseline copy of the step\n");
#endif
}

/* rs_car_finite says no for a NaN or an infinity in any field it checks,
 * and yes for a car whose every field is finite. */
static void test_finite_check_catches_every_field(void **state)
{
    (void)state;
    rs_car_params *p = fixture_car("c5");
    rs_world_def def = rs_world_default();
    rs_car_spawn sp = rs_car_spawn_default();
    rs_car a;
    rs_car_init(&a, p, &sp, &def);
    assert_true(rs_car_finite(&a));
    double *fields[37];
    int n = 0;
    for (int j = 0; j < 3; j++)
        fields[n++] = &a.pos[j], fields[n++] = &a.vel[j], fields[n++] = &a.w[j];
    for (int j = 0; j < 4; j++)
        fields[n++] = &a.q[j];
    for (int i = 0; i < 4; i++) {
        rs_wheel *w = &a.wheel[i];
        fields[n++] = &w->travel_m, fields[n++] = &w->travel_v, fields[n++] = &w->omega;
        fields[n++] = &w->kappa, fields[n++] = &w->tan_alpha;
    }
    fields[n++] = &a.omega_e, fields[n++] = &a.shift_timer_s, fields[n++] = &a.shift_cooldown_s;
    fields[n++] = &a.drive_prev_nm;
    assert_int_equal(n, 37);
    const double bad[3] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < n; k++)
        for (int b = 0; b < 3; b++) {
            double keep = *fields[k];
            *fields[k] = bad[b];
            if (rs_car_finite(&a))
                fail_msg("field %d set to %g passes", k, bad[b]);
            *fields[k] = keep;
        }
    *fields[0] = 1e308, *fields[1] = -1e308, *fields[2] = 4.9e-324; /* large and tiny: fine */
    assert_true(rs_car_finite(&a));
    rs_car_params_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_pedal_stop_is_never_shorter_than_threshold_braking),
        cmocka_unit_test(test_parked_car_comes_to_rest_after_a_hard_stop),
        cmocka_unit_test(test_tumbling_car_in_the_air_does_not_gain_rotational_energy),
        cmocka_unit_test(test_both_copies_of_the_step_give_the_same_bits),
        cmocka_unit_test(test_finite_check_catches_every_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
