/*
 * Collisions (physics/src/collide*.c): cars against hand-built barriers and
 * against each other, stepped exactly as the world steps them (per tick the
 * input, per substep the car, then its barriers, then the car pairs). The
 * tracks here are built by hand (a zeroed rs_track with a few segments and
 * their grid), so these tests do not depend on the track loader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "car.h"
#include "collide.h"
#include "detmath.h"
#include "seggrid.h"
#include "test_fixtures.h"
#include "track_internal.h"

#define TICK_HZ 60
#define SUBSTEPS 4
#define DT (1.0 / (TICK_HZ * SUBSTEPS))
#define MAX_SEGS 2048

/* ------------------------------------------------------------- fixtures */

typedef struct test_track {
    struct rs_track t;
    rs_barrier_seg seg[MAX_SEGS];
    uint32_t n;
} test_track;

static test_track *track_new(void)
{
    test_track *tt = calloc(1, sizeof *tt);
    assert_non_null(tt);
    return tt;
}

/* A straight wall from (x0, y0) to (x1, y1) cut into `pieces` collinear
 * segments (a polyline with joints). */
static void track_wall(test_track *tt, double x0, double y0, double x1, double y1, int pieces)
{
    for (int k = 0; k < pieces; k++) {
        assert_true(tt->n < MAX_SEGS);
        rs_barrier_seg *s = &tt->seg[tt->n++];
        double f0 = (double)k / pieces, f1 = (double)(k + 1) / pieces;
        s->ax = x0 + f0 * (x1 - x0), s->ay = y0 + f0 * (y1 - y0);
        s->bx = x0 + f1 * (x1 - x0), s->by = y0 + f1 * (y1 - y0);
        if (k == pieces - 1)
            s->bx = x1, s->by = y1; /* exact joints: the next piece starts here */
        if (k > 0)
            s->ax = tt->seg[tt->n - 2].bx, s->ay = tt->seg[tt->n - 2].by;
        s->restitution = 0.3;
        s->friction = 0.5;
        s->barrier = 0;
    }
}

static void track_finish(test_track *tt)
{
    rs_seg2 *s2 = malloc((tt->n + 1) * sizeof *s2);
    assert_non_null(s2);
    for (uint32_t i = 0; i < tt->n; i++)
        s2[i] = (rs_seg2){tt->seg[i].ax, tt->seg[i].ay, tt->seg[i].bx, tt->seg[i].by};
    tt->t.nbseg = tt->n;
    tt->t.bseg = tt->seg;
    assert_int_equal(rs_seggrid_build(&tt->t.barrier_grid, s2, tt->n, 0.0, 8.0), RS_OK);
    free(s2);
}

/* A track of one straight wall (see track_wall). */
static test_track *wall_track(double x0, double y0, double x1, double y1, int pieces)
{
    test_track *tt = track_new();
    track_wall(tt, x0, y0, x1, y1, pieces);
    track_finish(tt);
    return tt;
}

static void track_free(test_track *tt)
{
    rs_seggrid_free(&tt->t.barrier_grid);
    free(tt);
}

static rs_car_spawn spawn_at(double x, double y, double yaw, double speed)
{
    rs_car_spawn sp = rs_car_spawn_default();
    sp.pos_m[0] = x, sp.pos_m[1] = y;
    sp.yaw_rad = yaw;
    sp.speed_m_s = speed;
    sp.gear = 0; /* neutral, manual: the car coasts */
    sp.transmission = RS_TRANSMISSION_MANUAL;
    return sp;
}

typedef struct sim {
    rs_world_def def;
    rs_car car[8];
    rs_collide_car cc[8];
    uint32_t n;
    const rs_track *track;
    test_track *own_track; /* freed with the sim (sim_on_wall) */
    rs_collide_scratch *scratch;
    bool car_collisions;
    rs_event evbuf[256];
    rs_event_sink sink;
    uint32_t barrier_events, car_events;
} sim;

static void sim_init(sim *s, const rs_track *track)
{
    memset(s, 0, sizeof *s);
    s->def = rs_world_default();
    s->track = track;
    s->sink.buf = s->evbuf;
    s->sink.cap = 256;
    assert_int_equal(rs_collide_scratch_create(8, &s->scratch), RS_OK);
}

static rs_car *sim_add(sim *s, const rs_car_params *p, const rs_car_spawn *sp)
{
    rs_car *c = &s->car[s->n];
    rs_car_init(c, p, sp, &s->def);
    rs_collide_car_init(&s->cc[s->n]);
    s->n++;
    return c;
}

/* Per-substep check, called after the collision calls. */
typedef void (*sim_check)(void *ctx, const sim *s);

/* One tick, as the world will do it. */
static void sim_tick(sim *s, sim_check check, void *ctx)
{
    for (uint32_t i = 0; i < s->n; i++)
        rs_car_tick_input(&s->car[i], 1.0 / TICK_HZ);
    for (int sub = 0; sub < SUBSTEPS; sub++) {
        double prev[8][3];
        s->sink.count = 0;
        for (uint32_t i = 0; i < s->n; i++) {
            memcpy(prev[i], s->car[i].pos, sizeof prev[i]);
            rs_car_substep(&s->car[i], &s->def, DT, sub == 0);
        }
        for (uint32_t i = 0; i < s->n; i++)
            rs_collide_barriers(&s->car[i], (uint16_t)(i + 1), prev[i], s->track, DT, &s->cc[i],
                                &s->sink);
        if (s->car_collisions)
            rs_collide_cars(s->car, s->n, s->track, DT, s->cc, s->scratch, &s->sink);
        for (uint32_t e = 0; e < s->sink.count; e++) {
            if (s->evbuf[e].type == RS_EVENT_BARRIER_HIT)
                s->barrier_events++;
            else if (s->evbuf[e].type == RS_EVENT_CAR_HIT)
                s->car_events++;
        }
        for (uint32_t i = 0; i < s->n; i++)
            assert_true(rs_car_finite(&s->car[i]));
        if (check)
            check(ctx, s);
    }
}

/* A sim on a fresh track of one straight wall (see track_wall). */
static void sim_on_wall(sim *s, double x0, double y0, double x1, double y1, int pieces)
{
    test_track *tt = wall_track(x0, y0, x1, y1, pieces);
    sim_init(s, &tt->t);
    s->own_track = tt;
}

static void sim_free(sim *s)
{
    rs_collide_scratch_destroy(s->scratch);
    if (s->own_track)
        track_free(s->own_track);
}

/* -------------------------------------------------------- measurements */

/* The footprint's corners, computed here from the definition (not through
 * the module): body box centred between the axles, turned by the heading. */
static void corners(const rs_car *c, double out[4][2])
{
    const rs_car_params_data *def = &c->params->def;
    const double *q = c->q;
    double hx = 1.0 - 2.0 * (q[2] * q[2] + q[3] * q[3]), hy = 2.0 * (q[1] * q[2] + q[0] * q[3]);
    double len = rs_sqrt(hx * hx + hy * hy);
    hx /= len, hy /= len;
    double off = 0.5 * (def->axle[0].x_m + def->axle[1].x_m);
    double cx = c->pos[0] + off * hx, cy = c->pos[1] + off * hy;
    double l = 0.5 * def->length_m, w = 0.5 * def->width_m;
    const double sx[4] = {1, 1, -1, -1}, sy[4] = {1, -1, -1, 1};
    for (int k = 0; k < 4; k++) {
        out[k][0] = cx + sx[k] * l * hx - sy[k] * w * hy;
        out[k][1] = cy + sx[k] * l * hy + sy[k] * w * hx;
    }
}

static double kinetic(const rs_car *c)
{
    const double *I = c->derived.inertia, *w = c->w, *v = c->vel;
    double Iw[3] = {I[0] * w[0] + I[1] * w[1] + I[2] * w[2], I[3] * w[0] + I[4] * w[1] + I[5] * w[2],
                    I[6] * w[0] + I[7] * w[1] + I[8] * w[2]};
    return 0.5 * c->params->def.mass_kg * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
           0.5 * (w[0] * Iw[0] + w[1] * Iw[1] + w[2] * Iw[2]);
}

static double speed2d(const rs_car *c) { return rs_sqrt(c->vel[0] * c->vel[0] + c->vel[1] * c->vel[1]); }

/* World yaw rate: (R w)_z. */
static double yaw_rate(const rs_car *c)
{
    const double *q = c->q, *w = c->w;
    return 2.0 * (q[1] * q[3] - q[0] * q[2]) * w[0] + 2.0 * (q[2] * q[3] + q[0] * q[1]) * w[1] +
           (1.0 - 2.0 * (q[1] * q[1] + q[2] * q[2])) * w[2];
}

/* Vertical angular momentum about the origin with the centre of mass at
 * pos: m (x vy - y vx) + (R I w)_z. (Position projection moves the cars, so
 * conservation by the impulses is checked at the positions they acted at.) */
static double ang_mom_z(const rs_car *c, const double pos[3])
{
    const double *I = c->derived.inertia, *w = c->w, *q = c->q;
    double Iw[3] = {I[0] * w[0] + I[1] * w[1] + I[2] * w[2], I[3] * w[0] + I[4] * w[1] + I[5] * w[2],
                    I[6] * w[0] + I[7] * w[1] + I[8] * w[2]};
    double ez[3] = {2.0 * (q[1] * q[3] - q[0] * q[2]), 2.0 * (q[2] * q[3] + q[0] * q[1]),
                    1.0 - 2.0 * (q[1] * q[1] + q[2] * q[2])};
    double m = c->params->def.mass_kg;
    return m * (pos[0] * c->vel[1] - pos[1] * c->vel[0]) +
           (ez[0] * Iw[0] + ez[1] * Iw[1] + ez[2] * Iw[2]);
}

/* How deep a car's footprint overlaps barrier segment g, by the separating
 * axes (<= 0: apart). */
static double car_seg_overlap(const rs_car *car, const rs_barrier_seg *g)
{
    double c[4][2], a[2] = {g->ax, g->ay}, b[2] = {g->bx, g->by};
    corners(car, c);
    double axes[3][2] = {{c[0][0] - c[3][0], c[0][1] - c[3][1]},
                         {c[0][0] - c[1][0], c[0][1] - c[1][1]},
                         {-(b[1] - a[1]), b[0] - a[0]}};
    double worst = 1e300;
    for (int k = 0; k < 3; k++) {
        double len = rs_sqrt(axes[k][0] * axes[k][0] + axes[k][1] * axes[k][1]);
        double u[2] = {axes[k][0] / len, axes[k][1] / len};
        double bmin = 1e300, bmax = -1e300;
        for (int j = 0; j < 4; j++) {
            double p = c[j][0] * u[0] + c[j][1] * u[1];
            bmin = rs_min(bmin, p), bmax = rs_max(bmax, p);
        }
        double pa = a[0] * u[0] + a[1] * u[1], pb = b[0] * u[0] + b[1] * u[1];
        double o = rs_min(bmax - rs_min(pa, pb), rs_max(pa, pb) - bmin);
        worst = rs_min(worst, o);
    }
    return worst;
}

/* A small deterministic generator for the random trials. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(double lo, double hi)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return lo + (hi - lo) * ((double)(rng_state >> 11) / 9007199254740992.0);
}

/* ------------------------------------------------------ wall, head on */

typedef struct wall_check {
    double wall_x;    /* the wall is the line x = wall_x; cars come from x < wall_x */
    double worst;     /* largest corner excursion beyond it */
    int substeps;
} wall_check;

static void check_wall(void *ctx, const sim *s)
{
    wall_check *wc = ctx;
    double c[4][2];
    corners(&s->car[0], c);
    for (int k = 0; k < 4; k++)
        wc->worst = rs_max(wc->worst, c[k][0] - wc->wall_x);
    wc->substeps++;
}

/* One car from sp for 2 s towards the wall x = 50 (from y = -1000 to 1000,
 * in `pieces`), on a sim of its own that is left as it ends. */
static wall_check run_at_wall(sim *s, const rs_car_params *p, int pieces, rs_car_spawn sp)
{
    sim_on_wall(s, 50.0, -1000.0, 50.0, 1000.0, pieces);
    sim_add(s, p, &sp);
    wall_check wc = {50.0, -1e300, 0};
    for (int t = 0; t < TICK_HZ * 2; t++)
        sim_tick(s, check_wall, &wc);
    return wc;
}

static void test_car_at_120_m_s_never_ends_up_beyond_a_wall(void **state)
{
    const fixture_shipped *shipped = *state;
    const double angles_deg[3] = {90.0, 45.0, 5.0};
    for (int ci = 0; ci < 2; ci++) {
        const rs_car_params *p = shipped->cars[ci];
        for (int pieces = 1; pieces <= 200; pieces += 199) {
            for (int a = 0; a < 3; a++) {
                double ang = angles_deg[a] * RS_PI / 180.0;
                /* Heading ang from the wall's direction (+y), towards +x. */
                double yaw = RS_HALF_PI - ang;
                double start_x = 50.0 - 3.0 - 30.0 * rs_sin(ang);
                sim s;
                wall_check wc = run_at_wall(&s, p, pieces, spawn_at(start_x, 0.0, yaw, 120.0));
                print_message("%s, %d piece(s), %2.0f deg at 120 m/s: deepest corner %.2e m "
                              "beyond, %u hit(s), leaves at %.1f m/s\n",
                              rs_car_params_name(p), pieces, angles_deg[a], wc.worst,
                              s.cc[0].barrier_hits, speed2d(&s.car[0]));
                assert_true(wc.worst <= 1e-9);
                assert_true(wc.worst > -0.01); /* it did reach the wall */
                assert_true(s.cc[0].barrier_hits >= 1);
                sim_free(&s);
            }
        }
    }
}

/* Joints in a straight wall must not catch a car sliding along it. */
static void test_joints_in_a_straight_wall_do_not_catch_a_scraping_car(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_car_params *p = shipped->c5;
    double end_speed[2];
    int piece_counts[2] = {1, 400};
    for (int k = 0; k < 2; k++) {
        double ang = 3.0 * RS_PI / 180.0;
        sim s;
        rs_car_spawn sp = spawn_at(48.0, 0.0, RS_HALF_PI - ang, 60.0);
        wall_check wc = run_at_wall(&s, p, piece_counts[k], sp);
        end_speed[k] = speed2d(&s.car[0]);
        print_message("3 deg at 60 m/s along a wall of %d piece(s): %.3f m/s after 2 s, %u hit(s)\n",
                      piece_counts[k], end_speed[k], s.cc[0].barrier_hits);
        assert_true(wc.worst <= 1e-9);
        sim_free(&s);
    }
    assert_true(rs_abs(end_speed[0] - end_speed[1]) < 0.05 * end_speed[0]);
}

static void test_glancing_hit_slows_and_yaws_the_car(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_car_params *p = shipped->c5;
    sim s;
    sim_on_wall(&s, 50.0, -1000.0, 50.0, 1000.0, 1);
    double ang = 10.0 * RS_PI / 180.0;
    rs_car_spawn sp = spawn_at(46.0, 0.0, RS_HALF_PI - ang, 30.0);
    sim_add(&s, p, &sp);
    double v_before = 0.0, r_before = 0.0, v_after = 0.0, r_after = 0.0;
    int hit_tick = -1;
    for (int t = 0; t < TICK_HZ * 2 && hit_tick < 0; t++) {
        v_before = speed2d(&s.car[0]), r_before = yaw_rate(&s.car[0]);
        sim_tick(&s, NULL, NULL);
        if (s.cc[0].barrier_hits > 0) {
            hit_tick = t;
            v_after = speed2d(&s.car[0]), r_after = yaw_rate(&s.car[0]);
        }
    }
    assert_true(hit_tick >= 0);
    print_message("10 deg at 30 m/s: speed %.2f -> %.2f m/s, yaw rate %.3f -> %.3f rad/s\n",
                  v_before, v_after, r_before, r_after);
    assert_true(v_after < v_before - 0.3);
    assert_true(rs_abs(r_after) > 0.3);
    assert_true(rs_abs(r_before) < 0.05);
    /* A car hitting a wall on its left front (wall at +x, heading almost +y)
     * is turned away from the wall, to the left (positive yaw). */
    assert_true(r_after > 0.0);
    sim_free(&s);
}

/* ------------------------------------------------------------- energy */

static void set_random_motion(rs_car *c, double vmax)
{
    double sp = urand(0.0, vmax), dir = urand(-RS_PI, RS_PI);
    c->vel[0] = sp * rs_cos(dir), c->vel[1] = sp * rs_sin(dir), c->vel[2] = urand(-1.0, 1.0);
    c->w[0] = urand(-1.0, 1.0), c->w[1] = urand(-1.0, 1.0), c->w[2] = urand(-4.0, 4.0);
}

/* Puts a car at a random pose with a random tilt (the inverse inertia in
 * world frame is then not diagonal). */
static void set_random_pose(rs_car *c, double x, double y)
{
    double yaw = urand(-RS_PI, RS_PI), roll = urand(-0.1, 0.1), pitch = urand(-0.1, 0.1);
    double cy = rs_cos(0.5 * yaw), sy = rs_sin(0.5 * yaw), cr = rs_cos(0.5 * roll),
           sr = rs_sin(0.5 * roll), cp = rs_cos(0.5 * pitch), spi = rs_sin(0.5 * pitch);
    /* yaw-pitch-roll (z, y, x) */
    c->q[0] = cy * cp * cr + sy * spi * sr;
    c->q[1] = cy * cp * sr - sy * spi * cr;
    c->q[2] = cy * spi * cr + sy * cp * sr;
    c->q[3] = sy * cp * cr - cy * spi * sr;
    c->pos[0] = x, c->pos[1] = y;
}

static void test_barrier_hits_never_raise_kinetic_energy(void **state)
{
    const fixture_shipped *shipped = *state;
    test_track *tt = track_new();
    track_wall(tt, 50.0, -1000.0, 50.0, 1000.0, 1); /* a long wall */
    track_wall(tt, 0.0, 100.0, 0.0, 130.0, 1);     /* a free-standing one */
    track_wall(tt, 0.0, 200.0, 20.0, 200.0, 1);    /* a corner */
    track_wall(tt, 0.0, 200.0, 0.0, 220.0, 3);
    track_finish(tt);
    rs_world_def def = rs_world_default();
    double worst = -1e300;
    int impacts = 0, trials = 0;
    for (int ci = 0; ci < 2; ci++) {
        const rs_car_params *p = shipped->cars[ci];
        rs_car_spawn sp = spawn_at(0.0, 0.0, 0.0, 0.0);
        /* Direct trials: random pose overlapping a wall, random motion. */
        const double spots[4][2] = {{49.0, 0.0}, {0.0, 99.0}, {0.5, 200.5}, {0.0, 131.0}};
        for (int t = 0; t < 4000; t++) {
            rs_car c;
            rs_collide_car cc;
            rs_car_init(&c, p, &sp, &def);
            rs_collide_car_init(&cc);
            const double *at = spots[t % 4];
            set_random_pose(&c, at[0] + urand(-2.5, 2.5), at[1] + urand(-2.5, 2.5));
            set_random_motion(&c, 80.0);
            double prev[3] = {c.pos[0] - c.vel[0] * DT, c.pos[1] - c.vel[1] * DT, c.pos[2]};
            double e0 = kinetic(&c), v0[3], w0[3];
            memcpy(v0, c.vel, sizeof v0), memcpy(w0, c.w, sizeof w0);
            rs_collide_barriers(&c, 1, prev, &tt->t, DT, &cc, NULL);
            double e1 = kinetic(&c);
            if (memcmp(v0, c.vel, sizeof v0) || memcmp(w0, c.w, sizeof w0))
                impacts++;
            worst = rs_max(worst, (e1 - e0) / e0);
            assert_true(e1 <= e0 * (1.0 + 1e-12));
            trials++;
        }
        /* Driven trials: random approach angles, speeds and spins, each
         * collision call measured on its own. */
        for (int t = 0; t < 60; t++) {
            sim s;
            sim_init(&s, &tt->t);
            double ang = urand(0.05, RS_PI - 0.05);
            rs_car_spawn sp2 = spawn_at(40.0, 0.0, RS_HALF_PI - ang + urand(-0.3, 0.3), urand(5.0, 120.0));
            rs_car *c = sim_add(&s, p, &sp2);
            c->w[2] = urand(-3.0, 3.0);
            for (int tick = 0; tick < 30; tick++) {
                rs_car_tick_input(c, 1.0 / TICK_HZ);
                for (int sub = 0; sub < SUBSTEPS; sub++) {
                    double prev[3];
                    memcpy(prev, c->pos, sizeof prev);
                    rs_car_substep(c, &s.def, DT, sub == 0);
                    double e0 = kinetic(c);
                    rs_collide_barriers(c, 1, prev, &tt->t, DT, &s.cc[0], NULL);
                    double e1 = kinetic(c);
                    worst = rs_max(worst, (e1 - e0) / e0);
                    assert_true(e1 <= e0 * (1.0 + 1e-12));
                }
            }
            sim_free(&s);
        }
    }
    print_message("%d direct trials (%d with an impulse) and 120 driven runs: largest relative "
                  "kinetic energy change in one call %+.2e\n",
                  trials, impacts, worst);
    assert_true(impacts > trials / 4);
    track_free(tt);
}

/* ------------------------------------------------------------ resting */

typedef struct rest_check {
    double x0, y0, drift, speed;
    int after; /* substeps to skip before measuring speed */
    int substeps;
} rest_check;

static void check_rest(void *ctx, const sim *s)
{
    rest_check *rc = ctx;
    const rs_car *c = &s->car[0];
    double dx = c->pos[0] - rc->x0, dy = c->pos[1] - rc->y0;
    rc->drift = rs_max(rc->drift, rs_sqrt(dx * dx + dy * dy));
    if (++rc->substeps > rc->after)
        rc->speed = rs_max(rc->speed, speed2d(c));
}

static void test_car_resting_against_a_wall_stays_still(void **state)
{
    const fixture_shipped *shipped = *state;
    for (int ci = 0; ci < 2; ci++) {
        const rs_car_params *p = shipped->cars[ci];
        const rs_car_params_data *def = &p->def;
        double off = 0.5 * (def->axle[0].x_m + def->axle[1].x_m);
        for (int variant = 0; variant < 2; variant++) {
            sim s;
            sim_on_wall(&s, 50.0, -100.0, 50.0, 100.0, 4);
            rs_car_spawn sp;
            rs_input in;
            if (variant == 0) {
                /* Parked alongside the wall, its right side touching it
                 * (0.5 mm in), brakes on. */
                sp = spawn_at(50.0 - 0.5 * def->width_m + 0.0005, 0.0, RS_HALF_PI, 0.0);
                in = rs_input_quantise(0.0, 0.0, 1.0, 0.0, 0.0);
            } else {
                /* Nose against the wall, first gear, pushing with some throttle. */
                sp = spawn_at(50.0 - 0.5 * def->length_m - off, 0.0, 0.0, 0.0);
                sp.gear = 1;
                in = rs_input_quantise(0.0, 0.25, 0.0, 0.0, 0.0);
            }
            rs_car *c = sim_add(&s, p, &sp);
            c->input = in;
            /* Let it settle on its springs for a second, then watch 10 s. */
            for (int t = 0; t < TICK_HZ; t++)
                sim_tick(&s, NULL, NULL);
            rest_check rc = {c->pos[0], c->pos[1], 0.0, 0.0, 0, 0};
            uint32_t hits0 = s.cc[0].barrier_hits;
            for (int t = 0; t < TICK_HZ * 10; t++)
                sim_tick(&s, check_rest, &rc);
            print_message("%s %s: moved %.2e m in 10 s, top speed %.2e m/s, %u hit(s) then\n",
                          rs_car_params_name(p),
                          variant == 0 ? "parked against a wall" : "pushing into a wall",
                          rc.drift, rc.speed, s.cc[0].barrier_hits - hits0);
            if (variant == 0) {
                assert_true(rc.drift < 1e-3);
                assert_true(rc.speed < 1e-3);
            } else {
                /* Pushing, the symmetric state can break in the drivetrain
                 * and tyres at zero speed (the rear wheels get slightly
                 * unequal torque) and the car then creeps by millimetres,
                 * pivoting on a front corner; held at its centre instead of
                 * by the wall it does not move, but the wall is one-sided.
                 * No jitter, no bounce: */
                assert_true(rc.drift < 0.01);
                assert_true(rc.speed < 0.005);
            }
            assert_int_equal(s.cc[0].barrier_hits, hits0);
            sim_free(&s);
        }
    }
}

/* ----------------------------------------------------------- wall ends */

typedef struct end_check {
    const test_track *tt;
    double worst;
} end_check;

static void check_end(void *ctx, const sim *s)
{
    end_check *ec = ctx;
    for (uint32_t k = 0; k < ec->tt->n; k++)
        ec->worst = rs_max(ec->worst, car_seg_overlap(&s->car[0], &ec->tt->seg[k]));
}

static void test_car_hitting_the_end_of_a_free_standing_wall_stops_there(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_car_params *p = shipped->c5;
    const double offsets[5] = {0.0, 0.4, 0.9, -0.6, 1.2};
    const double speeds[2] = {30.0, 120.0};
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < 5; k++) {
            sim s;
            sim_on_wall(&s, 60.0, 0.0, 120.0, 0.0, 1);
            /* Heading +x along the wall's line, offset sideways. */
            rs_car_spawn sp = spawn_at(20.0, offsets[k], 0.0, speeds[v]);
            rs_car *c = sim_add(&s, p, &sp);
            end_check ec = {s.own_track, -1e300};
            for (int t = 0; t < TICK_HZ * 2; t++)
                sim_tick(&s, check_end, &ec);
            double half_w = 0.5 * p->def.width_m;
            print_message("end of a wall, %3.0f m/s, offset %+.1f m: overlap at most %.1e m, "
                          "%u hit(s), x %.2f m, vx %.2f m/s\n",
                          speeds[v], offsets[k], ec.worst, s.cc[0].barrier_hits, c->pos[0],
                          c->vel[0]);
            assert_true(ec.worst <= 1e-9);
            if (rs_abs(offsets[k]) < half_w - 0.05) {
                /* It hit the end face-on: stopped short of it, going back. */
                assert_true(s.cc[0].barrier_hits >= 1);
                assert_true(c->pos[0] < 60.0);
            } else if (rs_abs(offsets[k]) > half_w + 0.05) {
                /* It passes beside the end: nothing to hit. */
                assert_int_equal(s.cc[0].barrier_hits, 0);
                assert_true(c->pos[0] > 60.0);
            }
            sim_free(&s);
        }
}

static void test_car_driven_into_a_corner_stays_inside_it(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_car_params *p = shipped->formula;
    for (int k = 0; k < 3; k++) {
        test_track *tt = track_new();
        /* The walls x = 50 and y = 50 meeting at (50, 50); the car comes
         * from the lower left. */
        track_wall(tt, 50.0, -100.0, 50.0, 50.0, 5);
        track_wall(tt, 50.0, 50.0, -100.0, 50.0, 5);
        track_finish(tt);
        sim s;
        sim_init(&s, &tt->t);
        double yaw = RS_PI / 4.0 + (k - 1) * 0.3;
        rs_car_spawn sp = spawn_at(20.0, 20.0, yaw, 120.0);
        sim_add(&s, p, &sp);
        double worst = -1e300;
        for (int t = 0; t < TICK_HZ * 2; t++) {
            sim_tick(&s, NULL, NULL);
            double c[4][2];
            corners(&s.car[0], c);
            for (int j = 0; j < 4; j++)
                worst = rs_max(worst, rs_max(c[j][0], c[j][1]) - 50.0);
        }
        print_message("into a corner at 120 m/s, yaw %.2f rad: deepest corner %.1e m, %u hit(s)\n",
                      yaw, worst, s.cc[0].barrier_hits);
        assert_true(worst <= 1e-6);
        sim_free(&s);
        track_free(tt);
    }
}

static void test_centre_that_crossed_a_wall_is_put_back_on_its_side(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_car_params *p = shipped->c5;
    test_track *tt = wall_track(50.0, -100.0, 50.0, 100.0, 1);
    rs_world_def def = rs_world_default();
    rs_car_spawn sp = spawn_at(53.0, 0.0, 0.0, 0.0);
    rs_car c;
    rs_collide_car cc;
    rs_car_init(&c, p, &sp, &def);
    rs_collide_car_init(&cc);
    c.vel[0] = 700.0; /* as if it jumped 3 m in one substep, far past the wall */
    double prev[3] = {47.0, 0.0, c.pos[2]};
    rs_collide_barriers(&c, 1, prev, &tt->t, DT, &cc, NULL);
    double cr[4][2];
    corners(&c, cr);
    for (int k = 0; k < 4; k++)
        assert_true(cr[k][0] <= 50.0 + 1e-9);
    assert_true(c.vel[0] < 0.0);
    track_free(tt);
}

/* ---------------------------------------------------------- car to car */

static void momentum(const sim *s, double pos[][3], double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    for (uint32_t i = 0; i < s->n; i++) {
        double m = s->car[i].params->def.mass_kg;
        out[0] += m * s->car[i].vel[0];
        out[1] += m * s->car[i].vel[1];
        out[2] += ang_mom_z(&s->car[i], pos[i]);
    }
}

static double total_kinetic(const sim *s)
{
    double e = 0.0;
    for (uint32_t i = 0; i < s->n; i++)
        e += kinetic(&s->car[i]);
    return e;
}

typedef struct cons_check {
    double worst_p, worst_l, worst_e;
    int impacts;
} cons_check;

/* Runs the pair pass alone on s's cars (already integrated) and records
 * how momentum, angular momentum and energy changed. */
static void pair_pass_measured(sim *s, cons_check *cc)
{
    double p0[3], p1[3], pos[8][3];
    for (uint32_t i = 0; i < s->n; i++)
        memcpy(pos[i], s->car[i].pos, sizeof pos[i]);
    momentum(s, pos, p0);
    double e0 = total_kinetic(s), scale = 0.0;
    for (uint32_t i = 0; i < s->n; i++)
        scale += s->car[i].params->def.mass_kg * speed2d(&s->car[i]) + 1.0;
    double v0 = s->car[0].vel[0];
    rs_collide_cars(s->car, s->n, NULL, DT, s->cc, s->scratch, &s->sink);
    if (s->car[0].vel[0] != v0)
        cc->impacts++;
    momentum(s, pos, p1);
    double e1 = total_kinetic(s);
    cc->worst_p = rs_max(cc->worst_p, rs_max(rs_abs(p1[0] - p0[0]), rs_abs(p1[1] - p0[1])) / scale);
    cc->worst_l = rs_max(cc->worst_l, rs_abs(p1[2] - p0[2]) / (scale * 100.0));
    cc->worst_e = rs_max(cc->worst_e, (e1 - e0) / (e0 + 1.0));
}

static void test_car_hits_conserve_momentum_and_never_gain_energy(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_car_params *pa = shipped->c5, *pb = shipped->formula;
    cons_check cc = {0.0, 0.0, -1e300, 0};
    /* Head-on and side (T-bone) hits, driven. */
    for (int kind = 0; kind < 2; kind++) {
        sim s;
        sim_init(&s, NULL);
        s.car_collisions = true;
        rs_car_spawn a = spawn_at(0.0, 0.0, 0.0, 30.0);
        rs_car_spawn b = kind == 0 ? spawn_at(30.0, 0.3, RS_PI, 25.0)
                                   : spawn_at(18.0, -12.0, RS_HALF_PI, 25.0);
        sim_add(&s, pa, &a);
        sim_add(&s, pb, &b);
        for (int t = 0; t < TICK_HZ; t++) {
            for (uint32_t i = 0; i < s.n; i++)
                rs_car_tick_input(&s.car[i], 1.0 / TICK_HZ);
            for (int sub = 0; sub < SUBSTEPS; sub++) {
                for (uint32_t i = 0; i < s.n; i++)
                    rs_car_substep(&s.car[i], &s.def, DT, sub == 0);
                pair_pass_measured(&s, &cc);
            }
        }
        print_message("%s: car hits %u / %u, speeds after 1 s %.1f and %.1f m/s\n",
                      kind == 0 ? "head-on" : "side", s.cc[0].car_hits, s.cc[1].car_hits,
                      speed2d(&s.car[0]), speed2d(&s.car[1]));
        assert_true(s.cc[0].car_hits >= 1);
        assert_int_equal(s.cc[0].car_hits, s.cc[1].car_hits);
        sim_free(&s);
    }
    /* Random overlapping pairs: poses, tilts, velocities and spins. */
    for (int t = 0; t < 3000; t++) {
        sim s;
        sim_init(&s, NULL);
        rs_car_spawn z = spawn_at(0.0, 0.0, 0.0, 0.0);
        rs_car *a = sim_add(&s, t & 1 ? pa : pb, &z);
        rs_car *b = sim_add(&s, t & 2 ? pa : pb, &z);
        set_random_pose(a, urand(-2.0, 2.0), urand(-2.0, 2.0));
        set_random_pose(b, urand(-2.0, 2.0), urand(-2.0, 2.0));
        set_random_motion(a, 60.0);
        set_random_motion(b, 60.0);
        pair_pass_measured(&s, &cc);
        sim_free(&s);
    }
    print_message("car pairs (%d with an impulse): largest momentum error %.1e, angular %.1e "
                  "(relative), kinetic energy change %+.2e\n",
                  cc.impacts, cc.worst_p, cc.worst_l, cc.worst_e);
    assert_true(cc.impacts > 1000);
    assert_true(cc.worst_p < 1e-12);
    assert_true(cc.worst_l < 1e-12);
    assert_true(cc.worst_e <= 1e-12);
}

/* Six cars driven into one spot between walls. */
static void pileup(const rs_car_params *pa, const rs_car_params *pb, const rs_track *track,
                   rs_collide_broadphase mode, rs_collide_scratch *scratch, rs_car out[6],
                   rs_collide_car cc_out[6],
                   uint32_t *events)
{
    sim s;
    sim_init(&s, track);
    if (scratch) {
        rs_collide_scratch_destroy(s.scratch);
        s.scratch = scratch;
    }
    rs_collide_scratch_set_broadphase(s.scratch, mode);
    s.car_collisions = true;
    for (int i = 0; i < 6; i++) {
        double ang = i * RS_TWO_PI / 6.0 + 0.1;
        rs_car_spawn sp = spawn_at(-25.0 * rs_cos(ang), -25.0 * rs_sin(ang), ang, 20.0 + i);
        sim_add(&s, i & 1 ? pa : pb, &sp);
    }
    for (int t = 0; t < TICK_HZ * 3; t++)
        sim_tick(&s, NULL, NULL);
    memcpy(out, s.car, 6 * sizeof *out);
    memcpy(cc_out, s.cc, 6 * sizeof *cc_out);
    *events = s.car_events;
    rs_collide_scratch_set_broadphase(s.scratch, RS_BROADPHASE_AUTO);
    if (scratch)
        s.scratch = NULL;
    sim_free(&s);
}

static bool same_state(const rs_car *a, const rs_car *b, int n)
{
    for (int i = 0; i < n; i++)
        if (memcmp(a[i].pos, b[i].pos, sizeof a[i].pos) || memcmp(a[i].vel, b[i].vel, sizeof a[i].vel) ||
            memcmp(a[i].w, b[i].w, sizeof a[i].w) || memcmp(a[i].q, b[i].q, sizeof a[i].q))
            return false;
    return true;
}

static void test_pileup_is_the_same_bit_for_bit_every_time(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_car_params *pa = shipped->c5, *pb = shipped->formula;
    test_track *tt = track_new();
    track_wall(tt, -30.0, -40.0, -30.0, 40.0, 8);
    track_wall(tt, 30.0, -40.0, 30.0, 40.0, 8);
    track_finish(tt);
    rs_car r1[6], r2[6], r3[6];
    rs_collide_car c1[6], c2[6], c3[6];
    uint32_t e1, e2, e3;
    pileup(pa, pb, &tt->t, RS_BROADPHASE_GRID, NULL, r1, c1, &e1);
    /* The same with a scratch that has served another world before. */
    rs_collide_scratch *used = NULL;
    assert_int_equal(rs_collide_scratch_create(8, &used), RS_OK);
    pileup(pb, pa, NULL, RS_BROADPHASE_GRID, used, r2, c2, &e2);
    pileup(pa, pb, &tt->t, RS_BROADPHASE_GRID, used, r2, c2, &e2);
    /* And comparing every pair instead of the grid, as small fields do by
     * default. */
    pileup(pa, pb, &tt->t, RS_BROADPHASE_EVERY_PAIR, used, r3, c3, &e3);
    rs_collide_scratch_destroy(used);
    uint32_t hits = 0;
    for (int i = 0; i < 6; i++)
        hits += c1[i].car_hits;
    print_message("pile-up of 6 cars: %u car hit events, %u car hits counted\n", e1, hits);
    assert_true(e1 >= 3);
    assert_true(same_state(r1, r2, 6));
    assert_true(same_state(r1, r3, 6));
    assert_int_equal(e1, e2);
    assert_int_equal(e1, e3);
    assert_memory_equal(c1, c2, sizeof c1);
    track_free(tt);
}

static void test_broadphase_equals_brute_force(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_car_params *pa = shipped->c5, *pb = shipped->formula;
    rs_world_def def = rs_world_default();
    enum { N = 200 };
    rs_car *cars = calloc(N, sizeof *cars);
    uint32_t *g = malloc(2 * N * N * sizeof *g), *b = malloc(2 * N * N * sizeof *b);
    rs_collide_scratch *s = NULL;
    assert_non_null(cars);
    assert_int_equal(rs_collide_scratch_create(N, &s), RS_OK);
    const double spans[3] = {40.0, 200.0, 2.0e5};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < N; i++) {
            rs_car_spawn sp = spawn_at(0.0, 0.0, 0.0, 0.0);
            rs_car_init(&cars[i], i % 3 ? pa : pb, &sp, &def);
            set_random_pose(&cars[i], urand(-spans[k], spans[k]) - 1000.0, urand(-spans[k], spans[k]));
        }
        uint32_t ng = rs_collide_candidate_pairs(cars, N, s, false, g, N * N);
        uint32_t nb = rs_collide_candidate_pairs(cars, N, s, true, b, N * N);
        print_message("200 cars over +-%.0f m: %u candidate pairs (grid), %u (every pair)\n",
                      spans[k], ng, nb);
        assert_int_equal(ng, nb);
        assert_memory_equal(g, b, 2 * (size_t)ng * sizeof *g);
        if (k == 0)
            assert_true(ng > 50);
    }
    rs_collide_scratch_destroy(s);
    free(cars), free(g), free(b);
}

/* Walls win: a car parked broadside against a wall and rammed by another
 * never ends up beyond the wall, though car-to-car resolution pushes it. */
static void test_car_rammed_into_a_wall_stays_on_its_side(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_car_params *pa = shipped->c5, *pb = shipped->formula;
    const double speeds[3] = {15.0, 40.0, 90.0};
    for (int k = 0; k < 3; k++) {
        sim s;
        sim_on_wall(&s, 50.0, -100.0, 50.0, 100.0, 10);
        s.car_collisions = true;
        /* The victim's right side on the wall; the rammer comes from -x. */
        rs_car_spawn victim = spawn_at(50.0 - 0.5 * pa->def.width_m - 0.001, 0.0, RS_HALF_PI, 0.0);
        rs_car_spawn rammer = spawn_at(30.0, 0.3, 0.0, speeds[k]);
        sim_add(&s, pa, &victim)->input = rs_input_quantise(0.0, 0.0, 1.0, 0.0, 0.0);
        sim_add(&s, pb, &rammer);
        wall_check wc = {50.0, -1e300, 0};
        double worst_rammer = -1e300;
        for (int t = 0; t < TICK_HZ * 2; t++) {
            sim_tick(&s, check_wall, &wc);
            double c[4][2];
            corners(&s.car[1], c);
            for (int j = 0; j < 4; j++)
                worst_rammer = rs_max(worst_rammer, c[j][0] - 50.0);
        }
        print_message("rammed at %.0f m/s against a wall: victim %.1e m beyond it, rammer %.1e m; "
                      "car hits %u, victim's barrier hits %u\n",
                      speeds[k], wc.worst, worst_rammer, s.cc[0].car_hits, s.cc[0].barrier_hits);
        assert_true(wc.worst <= 1e-9);
        assert_true(worst_rammer <= 1e-9);
        assert_true(s.cc[0].car_hits >= 1);
        sim_free(&s);
    }
}

/* -------------------------------------------------- counters and events */

static void test_scrape_along_a_wall_is_one_hit_with_one_event(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_car_params *p = shipped->c5;
    sim s;
    sim_on_wall(&s, 50.0, -1000.0, 50.0, 1000.0, 100);
    /* Along the wall at 30 m/s, steering gently into it for 4 s. */
    rs_car_spawn sp = spawn_at(48.0, 0.0, RS_HALF_PI - 0.05, 30.0);
    rs_car *c = sim_add(&s, p, &sp);
    c->input = rs_input_quantise(-0.05, 0.0, 0.0, 0.0, 0.0);
    rs_event first;
    memset(&first, 0, sizeof first);
    int touching = 0;
    for (int t = 0; t < TICK_HZ * 4; t++) {
        for (int sub = 0; sub < SUBSTEPS; sub++) {
            /* sim_tick does this too; done by hand to keep the events. */
            if (sub == 0)
                rs_car_tick_input(c, 1.0 / TICK_HZ);
            double prev[3];
            memcpy(prev, c->pos, sizeof prev);
            s.sink.count = 0;
            s.sink.tick = (uint64_t)t, s.sink.substep = (uint32_t)sub;
            rs_car_substep(c, &s.def, DT, sub == 0);
            rs_collide_barriers(c, 1, prev, s.track, DT, &s.cc[0], &s.sink);
            for (uint32_t e = 0; e < s.sink.count; e++) {
                if (s.barrier_events++ == 0)
                    first = s.evbuf[e];
                print_message("  event: tick %d.%d, %.2f m/s, %.0f N s, at (%.2f, %.2f)\n", t, sub,
                              s.evbuf[e].speed_m_s, s.evbuf[e].impulse_n_s, s.evbuf[e].point_m[0],
                              s.evbuf[e].point_m[1]);
            }
            if (s.cc[0].barrier_quiet_s == 0.0)
                touching++;
        }
    }
    print_message("scrape: %d substeps touching the wall, %u hit(s), %u event(s); first event "
                  "tick %llu, %.2f m/s, %.0f N s at (%.2f, %.2f), normal (%.2f, %.2f)\n",
                  touching, s.cc[0].barrier_hits, s.barrier_events,
                  (unsigned long long)first.tick, first.speed_m_s, first.impulse_n_s,
                  first.point_m[0], first.point_m[1], first.normal[0], first.normal[1]);
    assert_true(touching > 240 * 2);
    assert_int_equal(s.cc[0].barrier_hits, 1);
    assert_int_equal(s.barrier_events, 1);
    assert_int_equal(first.type, RS_EVENT_BARRIER_HIT);
    assert_int_equal(first.car, 1);
    assert_true(first.impulse_n_s > 0.0 && first.speed_m_s > 0.0);
    assert_true(rs_abs(first.point_m[0] - 50.0) < 0.1);
    assert_true(first.normal[0] < -0.99); /* away from the wall, towards the car */
    sim_free(&s);
}

static void keep_first_car_event(void *ctx, const sim *s)
{
    rs_event *first = ctx;
    for (uint32_t e = 0; e < s->sink.count; e++)
        if (first->type == 0 && s->evbuf[e].type == RS_EVENT_CAR_HIT)
            *first = s->evbuf[e];
}

static void test_car_hit_events_name_both_cars(void **state)
{
    const fixture_shipped *shipped = *state;
    const rs_car_params *p = shipped->c5;
    sim s;
    sim_init(&s, NULL);
    s.car_collisions = true;
    /* Car 2 rear-ends car 1 and keeps pushing it. */
    rs_car_spawn a = spawn_at(10.0, 0.0, 0.0, 10.0), b = spawn_at(0.0, 0.0, 0.0, 16.0);
    sim_add(&s, p, &a);
    rs_car *pusher = sim_add(&s, p, &b);
    pusher->input = rs_input_quantise(0.0, 0.4, 0.0, 0.0, 0.0);
    pusher->gear = 2, pusher->shift_target = 2;
    rs_event first;
    memset(&first, 0, sizeof first);
    for (int t = 0; t < TICK_HZ * 3; t++)
        sim_tick(&s, keep_first_car_event, &first);
    print_message("rear-end: %u event(s), hits %u / %u; %.2f m/s, %.0f N s, normal (%.2f, %.2f)\n",
                  s.car_events, s.cc[0].car_hits, s.cc[1].car_hits, first.speed_m_s,
                  first.impulse_n_s, first.normal[0], first.normal[1]);
    assert_true(s.car_events >= 1);
    assert_int_equal(s.cc[0].car_hits, s.car_events);
    assert_int_equal(s.cc[1].car_hits, s.car_events);
    assert_true(s.car_events <= 3);
    assert_int_equal(first.car, 1);
    assert_int_equal(first.other, 2);
    assert_true(first.normal[0] > 0.9); /* towards car 1, which is ahead */
    assert_true(first.speed_m_s > 1.0);
    sim_free(&s);
}

static void test_contact_state_round_trips_through_canonical_bytes(void **state)
{
    (void)state;
    rs_collide_car a = {0.125, 0.25, 0.5, 1.0, 7, 3}, b;
    uint8_t buf[RS_COLLIDE_CAR_BYTES];
    rs_writer w = rs_writer_init(buf, sizeof buf);
    rs_collide_car_write(&a, &w);
    assert_int_equal(w.len, RS_COLLIDE_CAR_BYTES);
    assert_false(w.overflow);
    rs_reader r = rs_reader_init(buf, sizeof buf);
    rs_collide_car_read(&b, &r);
    assert_false(r.error);
    assert_memory_equal(&a, &b, sizeof a);
    rs_collide_car_init(&b);
    assert_int_equal(b.barrier_hits, 0);
    assert_true(b.barrier_quiet_s >= RS_COLLIDE_QUIET_S);
}

/* The barrier pass skips its query where the track says the nearest wall
 * is beyond the car's reach (track_internal.h, barrier_clear). Skipping
 * must change nothing: random poses and motions all over a real circuit,
 * on the track, on the run-off and in the walls, give bit for bit the same
 * car and contact state with the shortcut as without it. Both kinds must
 * occur: many skips, and many calls that move the car. */
static void test_barrier_shortcut_changes_nothing(void **state)
{
    const fixture_shipped *shipped = *state;
    rs_track *t = shipped->technical;
    const rs_seggrid *g = &t->near_grid;
    rs_world_def def = rs_world_default();
    int skipped = 0, moved = 0, trials = 0;
    for (uint32_t c = 0; c < g->nx * g->ny && trials < 40000; c++) {
        if (g->cell_start[c] == g->cell_start[c + 1])
            continue;
        double x0 = g->x0 + (c % g->nx) * g->cell_m, y0 = g->y0 + (c / g->nx) * g->cell_m;
        for (int k = 0; k < 4; k++, trials++) {
            const rs_car_params *p = shipped->cars[k & 1];
            rs_car_spawn sp = spawn_at(0.0, 0.0, 0.0, 0.0);
            rs_car a, b;
            rs_collide_car ca, cb;
            rs_car_init(&a, p, &sp, &def);
            rs_collide_car_init(&ca);
            set_random_pose(&a, x0 + urand(-8.0, 10.5), y0 + urand(-8.0, 10.5));
            set_random_motion(&a, 90.0);
            ca.barrier_quiet_s = urand(0.0, 1.0);
            b = a, cb = ca;
            rs_car before = a;
            double prev[3] = {a.pos[0] - a.vel[0] * DT, a.pos[1] - a.vel[1] * DT, a.pos[2]};
            skipped += rs_track_barrier_clearance(t, a.pos[0], a.pos[1]) >= 5.0;
            rs_collide_barriers(&a, 1, prev, t, DT, &ca, NULL);
            moved += memcmp(&a, &before, sizeof a) != 0;
            uint8_t *clear = t->barrier_clear;
            t->barrier_clear = NULL; /* every call queries */
            rs_collide_barriers(&b, 1, prev, t, DT, &cb, NULL);
            t->barrier_clear = clear;
            assert_memory_equal(&a, &b, sizeof a);
            assert_memory_equal(&ca, &cb, sizeof ca);
        }
    }
    print_message("%d calls: %d where the nearest wall is 5 m away or more, %d that moved the car\n",
                  trials, skipped, moved);
    assert_true(trials >= 20000);
    assert_true(skipped > trials / 4);
    assert_true(moved > trials / 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_car_at_120_m_s_never_ends_up_beyond_a_wall),
        cmocka_unit_test(test_joints_in_a_straight_wall_do_not_catch_a_scraping_car),
        cmocka_unit_test(test_glancing_hit_slows_and_yaws_the_car),
        cmocka_unit_test(test_barrier_hits_never_raise_kinetic_energy),
        cmocka_unit_test(test_car_resting_against_a_wall_stays_still),
        cmocka_unit_test(test_car_hitting_the_end_of_a_free_standing_wall_stops_there),
        cmocka_unit_test(test_car_driven_into_a_corner_stays_inside_it),
        cmocka_unit_test(test_centre_that_crossed_a_wall_is_put_back_on_its_side),
        cmocka_unit_test(test_car_hits_conserve_momentum_and_never_gain_energy),
        cmocka_unit_test(test_pileup_is_the_same_bit_for_bit_every_time),
        cmocka_unit_test(test_broadphase_equals_brute_force),
        cmocka_unit_test(test_car_rammed_into_a_wall_stays_on_its_side),
        cmocka_unit_test(test_scrape_along_a_wall_is_one_hit_with_one_event),
        cmocka_unit_test(test_car_hit_events_name_both_cars),
        cmocka_unit_test(test_contact_state_round_trips_through_canonical_bytes),
        cmocka_unit_test(test_barrier_shortcut_changes_nothing),
    };
    return cmocka_run_group_tests(tests, fixture_shipped_load, fixture_shipped_free);
}
