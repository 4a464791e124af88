/*
 * The AI driver and what it is built on: the car facts a driver reads
 * (rs_car_params_info), the racing line (inside the edges, straighter than
 * the centre line, a speed profile within the car's grip and brakes) and the
 * driver itself on a generated track: clean, valid laps near the planned
 * time, turning round when facing the wrong way, getting off a wall, and the
 * same race bit for bit when run twice. The full matrix of shipped cars and
 * tracks is test_racing.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "detmath.h"
#include "racesim/driver.h"
#include "racesim/physics.h"
#include "racesim/track.h"
#include "test_fixtures.h"

#define GRAVITY 9.80665

/* The shipped cars every test here drives in turn. */
static const char *const shipped_cars[2] = {"c5", "formula"};

/* A shipped car with its facts and its racing line on a track. */
typedef struct car_line {
    rs_car_params *car;
    rs_car_info info;
    rs_racing_line *line;
} car_line;

static car_line car_line_build(const rs_track *t, const char *name)
{
    car_line cl;
    cl.car = fixture_car(name);
    assert_int_equal(rs_car_params_info(cl.car, &cl.info), RS_OK);
    cl.line = NULL;
    assert_int_equal(rs_racing_line_build(t, cl.car, NULL, &cl.line), RS_OK);
    return cl;
}

static void car_line_free(car_line *cl)
{
    rs_racing_line_destroy(cl->line);
    rs_car_params_destroy(cl->car);
}

/* ------------------------------------------------------ a generated track */

#define GEN_POINTS 720
#define GEN_GRID 8

/* A closed, wobbly loop (radius 150 m with 3rd, 5th and 9th harmonics):
 * fast sweepers, two tight corners and changes of direction, 12 m wide,
 * barriers 4 m beyond the edges, three sectors and a grid. Returned as
 * track JSON text the caller frees; *out_len gets its length. */
static char *generated_track_json(size_t *out_len)
{
    static double x[GEN_POINTS], y[GEN_POINTS], s[GEN_POINTS + 1];
    for (int i = 0; i < GEN_POINTS; i++) {
        double a = RS_TWO_PI * i / GEN_POINTS;
        double r = 150.0 * (1.0 + 0.3 * rs_sin(3.0 * a) + 0.12 * rs_cos(5.0 * a) +
                            0.05 * rs_sin(9.0 * a));
        x[i] = r * rs_cos(a);
        y[i] = r * rs_sin(a);
    }
    s[0] = 0.0;
    for (int i = 0; i < GEN_POINTS; i++) {
        int j = (i + 1) % GEN_POINTS;
        s[i + 1] = s[i] + rs_sqrt((x[j] - x[i]) * (x[j] - x[i]) + (y[j] - y[i]) * (y[j] - y[i]));
    }
    double len = s[GEN_POINTS];
    size_t cap = 64 * GEN_POINTS + 4096, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    n += (size_t)snprintf(buf + n, cap - n,
                          "{\"format\":\"racesim-track\",\"version\":1,\"name\":\"generated\","
                          "\"length_m\":%.6f,\"centre_line\":[",
                          len);
    for (int i = 0; i < GEN_POINTS; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s[%.6f,%.6f,6,6]", i ? "," : "", x[i], y[i]);
    n += (size_t)snprintf(buf + n, cap - n,
                          "],\"surfaces\":{\"runoff\":\"grass\"},"
                          "\"barriers\":{\"offset_left_m\":4,\"offset_right_m\":4},"
                          "\"timing\":{\"start\":{\"s_m\":0},\"sectors\":[{\"s_m\":%.3f},"
                          "{\"s_m\":%.3f}]},\"grid\":[",
                          len / 3.0, 2.0 * len / 3.0);
    /* Slots 8 m apart behind the line, alternately 2 m left and right. */
    for (int k = 0; k < GEN_GRID; k++) {
        double at = len - 12.0 - 8.0 * k;
        int i = 0;
        while (s[i + 1] <= at)
            i++;
        int j = (i + 1) % GEN_POINTS;
        double seg = s[i + 1] - s[i], u = (at - s[i]) / seg;
        double tx = (x[j] - x[i]) / seg, ty = (y[j] - y[i]) / seg;
        double side = k % 2 == 0 ? 2.0 : -2.0;
        double px = x[i] + u * (x[j] - x[i]) - side * ty;
        double py = y[i] + u * (y[j] - y[i]) + side * tx;
        n += (size_t)snprintf(buf + n, cap - n, "%s{\"x_m\":%.6f,\"y_m\":%.6f,\"yaw_rad\":%.9f}",
                              k ? "," : "", px, py, rs_atan2(ty, tx));
    }
    n += (size_t)snprintf(buf + n, cap - n, "]}");
    assert_true(n < cap);
    *out_len = n;
    return buf;
}

static rs_track *generated_track(void)
{
    size_t len = 0;
    char *text = generated_track_json(&len);
    char err[512] = "";
    rs_track *t = NULL;
    rs_status st = rs_track_parse(text, len, "generated", &t, err, sizeof err);
    free(text);
    if (st != RS_OK)
        fail_msg("generated track: %s", err);
    return t;
}

/* ------------------------------------------------------------- car info */

static void test_car_info_describes_the_c5(void **state)
{
    (void)state;
    rs_car_params *p = fixture_car("c5");
    rs_car_info info;
    assert_int_equal(rs_car_params_info(p, &info), RS_OK);
    print_message("c5: mass %.0f kg, wheelbase %.3f m, lock %.3f rad, %.0f kW at %.0f rpm, "
                  "tyre mu %.3f, brakes %.2f g\n",
                  info.mass_kg, info.wheelbase_m, info.steer_lock_rad, info.max_power_w / 1000.0,
                  info.max_power_rpm, info.tire_mu, info.brake_mu_limit);
    assert_true(info.mass_kg > 1400.0 && info.mass_kg < 1600.0);
    assert_true(info.wheelbase_m > 2.6 && info.wheelbase_m < 2.7);
    assert_true(info.steer_lock_rad > 0.5 && info.steer_lock_rad < 0.7);
    assert_true(info.tire_mu > 0.9 && info.tire_mu < 1.3);
    assert_true(info.max_power_w > 230e3 && info.max_power_w < 280e3); /* 345 hp */
    assert_true(info.max_power_rpm > 4500.0 && info.max_power_rpm <= info.redline_rpm);
    assert_true(info.brake_mu_limit > 1.0); /* the brakes can lock the wheels */
    assert_true(info.width_m > 1.8 && info.length_m > 4.0);
    assert_int_equal(info.gears, 6);
    assert_true(info.downforce_cl_a_m2 >= 0.0 && info.drag_cd_a_m2 > 0.5);
    rs_car_params_destroy(p);
}

static void test_car_info_tells_the_formula_car_apart(void **state)
{
    (void)state;
    rs_car_params *c5 = fixture_car("c5"), *f = fixture_car("formula");
    rs_car_info a, b;
    assert_int_equal(rs_car_params_info(c5, &a), RS_OK);
    assert_int_equal(rs_car_params_info(f, &b), RS_OK);
    print_message("formula: mass %.0f kg, lock %.3f rad, %.0f kW, tyre mu %.3f, downforce "
                  "%.2f m2\n",
                  b.mass_kg, b.steer_lock_rad, b.max_power_w / 1000.0, b.tire_mu,
                  b.downforce_cl_a_m2);
    assert_true(b.mass_kg < a.mass_kg);
    assert_true(b.max_power_w > a.max_power_w);
    assert_true(b.tire_mu > a.tire_mu);
    assert_true(b.downforce_cl_a_m2 > 4.0);
    assert_true(b.steer_lock_rad < a.steer_lock_rad);
    assert_int_equal(rs_car_params_info(NULL, &a), RS_ERR_ARG);
    assert_int_equal(rs_car_params_info(f, NULL), RS_ERR_ARG);
    rs_car_params_destroy(c5);
    rs_car_params_destroy(f);
}

/* --------------------------------------------------------- racing line */

static void check_line_inside(const rs_racing_line *line, double half_width, const char *what)
{
    uint32_t n = rs_racing_line_count(line);
    double worst = -1e9;
    for (uint32_t i = 0; i < n; i++) {
        rs_line_point p;
        assert_true(rs_racing_line_at(line, i, &p));
        double left = p.width_left_m - half_width - p.offset_m;
        double right = p.width_right_m - half_width + p.offset_m;
        if (-left > worst)
            worst = -left;
        if (-right > worst)
            worst = -right;
    }
    print_message("%s: %u points, nearest approach of the car's side to an edge %.2f m\n", what,
                  n, -worst);
    assert_true(worst <= 1e-9);
    assert_false(rs_racing_line_at(line, n, &(rs_line_point){0}));
}

static void test_racing_line_stays_inside_the_edges(void **state)
{
    (void)state;
    rs_track *t = generated_track();
    for (int c = 0; c < 2; c++) {
        car_line cl = car_line_build(t, shipped_cars[c]);
        /* The car's side stays the edge margin (0.4 m) inside each edge. */
        check_line_inside(cl.line, 0.5 * cl.info.width_m + 0.4 - 1e-9, shipped_cars[c]);
        car_line_free(&cl);
    }
    rs_track_destroy(t);
}

/* Sum of squared curvature times length: what a smooth line keeps small. */
static double bending(const rs_racing_line *line)
{
    uint32_t n = rs_racing_line_count(line);
    double sum = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        rs_line_point a, b;
        rs_racing_line_at(line, i, &a);
        rs_racing_line_at(line, (i + 1) % n, &b);
        double ds = rs_sqrt((b.x_m - a.x_m) * (b.x_m - a.x_m) + (b.y_m - a.y_m) * (b.y_m - a.y_m));
        sum += a.curvature_1_m * a.curvature_1_m * ds;
    }
    return sum;
}

static void test_racing_line_bends_less_and_is_faster_than_the_centre_line(void **state)
{
    (void)state;
    rs_track *t = generated_track();
    rs_car_params *p = fixture_car("c5");
    rs_line_options centre_opt = rs_line_options_default();
    centre_opt.relax_sweeps = 0;
    rs_racing_line *centre = NULL, *line = NULL;
    assert_int_equal(rs_racing_line_build(t, p, &centre_opt, &centre), RS_OK);
    assert_int_equal(rs_racing_line_build(t, p, NULL, &line), RS_OK);
    double bc = bending(centre), bl = bending(line);
    double tc = rs_racing_line_lap_time(centre), tl = rs_racing_line_lap_time(line);
    print_message("centre line: %.1f m, bending %.5f /m, planned lap %.2f s\n",
                  rs_racing_line_length(centre), bc, tc);
    print_message("racing line: %.1f m, bending %.5f /m, planned lap %.2f s\n",
                  rs_racing_line_length(line), bl, tl);
    assert_true(bl < 0.6 * bc);
    assert_true(tl < 0.97 * tc);
    /* The centre line itself: offsets all zero. */
    rs_line_point q;
    for (uint32_t i = 0; i < rs_racing_line_count(centre); i++) {
        rs_racing_line_at(centre, i, &q);
        assert_true(q.offset_m == 0.0);
    }
    rs_racing_line_destroy(centre);
    rs_racing_line_destroy(line);
    rs_car_params_destroy(p);
    rs_track_destroy(t);
}

static void test_speed_profile_respects_grip_and_brakes(void **state)
{
    (void)state;
    rs_track *t = generated_track();
    for (int c = 0; c < 2; c++) {
        car_line cl = car_line_build(t, shipped_cars[c]);
        const rs_car_info info = cl.info;
        const rs_racing_line *line = cl.line;
        uint32_t n = rs_racing_line_count(line);
        double q_down = 0.5 * info.air_density_kg_m3 * info.downforce_cl_a_m2 / info.mass_kg;
        double q_drag = 0.5 * info.air_density_kg_m3 * info.drag_cd_a_m2 / info.mass_kg;
        double worst_lat = 0.0, worst_brake = 0.0, vmin = 1e9, vmax = 0.0;
        for (uint32_t i = 0; i < n; i++) {
            rs_line_point a, b;
            rs_racing_line_at(line, i, &a);
            rs_racing_line_at(line, (i + 1) % n, &b);
            double v = a.speed_m_s;
            vmin = rs_min(vmin, v);
            vmax = rs_max(vmax, v);
            /* Cornering within the tyres' friction with downforce. */
            double lat =
                v * v * rs_abs(a.curvature_1_m) / (info.tire_mu * (GRAVITY + q_down * v * v));
            worst_lat = rs_max(worst_lat, lat);
            /* Braking no harder than the brakes plus drag and some rolling
             * resistance (on either the brakes' or the tyres' limit). */
            double ds =
                rs_sqrt((b.x_m - a.x_m) * (b.x_m - a.x_m) + (b.y_m - a.y_m) * (b.y_m - a.y_m));
            double dec = (a.speed_m_s * a.speed_m_s - b.speed_m_s * b.speed_m_s) / (2.0 * ds);
            double limit = rs_min(info.brake_mu_limit, info.tire_mu) * GRAVITY + q_drag * v * v +
                           0.02 * (GRAVITY + q_down * v * v);
            worst_brake = rs_max(worst_brake, dec / (limit + q_down * v * v * info.tire_mu));
        }
        print_message("%s: speeds %.1f..%.1f m/s, peak lateral use %.2f, peak braking use %.2f, "
                      "planned lap %.2f s\n",
                      shipped_cars[c], vmin, vmax, worst_lat, worst_brake,
                      rs_racing_line_lap_time(line));
        assert_true(worst_lat <= 1.0);
        assert_true(worst_brake <= 1.0);
        assert_true(vmin > 5.0);
        car_line_free(&cl);
    }
    rs_track_destroy(t);
}

static void test_given_points_are_followed_as_they_are(void **state)
{
    (void)state;
    rs_car_params *p = fixture_car("c5");
    /* A 200 x 100 m rectangle with 20 m corners, given with zero width:
     * the line is these points, only the speed profile is computed. */
    rs_track_point pts[84];
    uint32_t n = 0;
    static const double centre[4][2] = {{80, 30}, {-80, 30}, {-80, -30}, {80, -30}};
    for (int corner = 0; corner < 4; corner++) {
        for (int k = 0; k <= 20; k++) {
            double a = RS_HALF_PI * (corner + k / 20.0);
            rs_track_point q = {centre[corner][0] + 20.0 * rs_cos(a),
                                centre[corner][1] + 20.0 * rs_sin(a), 0.0, 0.0, 0.0};
            pts[n++] = q;
        }
    }
    rs_racing_line *line = NULL;
    assert_int_equal(rs_racing_line_build_points(pts, n, p, NULL, &line), RS_OK);
    for (uint32_t i = 0; i < rs_racing_line_count(line); i++) {
        rs_line_point q;
        rs_racing_line_at(line, i, &q);
        assert_true(q.offset_m == 0.0);
        assert_true(q.width_left_m == 0.0 && q.width_right_m == 0.0);
    }
    /* In the 20 m corners the car is slow, on the straights fast. */
    rs_line_point q;
    double vmin = 1e9, vmax = 0.0;
    for (uint32_t i = 0; i < rs_racing_line_count(line); i++) {
        rs_racing_line_at(line, i, &q);
        vmin = rs_min(vmin, q.speed_m_s);
        vmax = rs_max(vmax, q.speed_m_s);
    }
    print_message("given line: %.1f m, %.1f..%.1f m/s, planned %.2f s\n",
                  rs_racing_line_length(line), vmin, vmax, rs_racing_line_lap_time(line));
    assert_true(vmin > 10.0 && vmin < 16.0); /* sqrt(mu g R) = 14.2 m/s at mu 1.03 */
    assert_true(vmax > 25.0);
    rs_racing_line_destroy(line);
    rs_car_params_destroy(p);
}

static void test_line_build_rejects_bad_input(void **state)
{
    (void)state;
    rs_car_params *p = fixture_car("c5");
    rs_track_point pts[3] = {{0, 0, 5, 5, 0}, {100, 0, 5, 5, 0}, {50, 80, 5, 5, 0}};
    rs_racing_line *line = (rs_racing_line *)1;
    assert_int_equal(rs_racing_line_build_points(NULL, 3, p, NULL, &line), RS_ERR_ARG);
    assert_null(line);
    assert_int_equal(rs_racing_line_build_points(pts, 2, p, NULL, &line), RS_ERR_RANGE);
    assert_int_equal(rs_racing_line_build_points(pts, 3, NULL, NULL, &line), RS_ERR_ARG);
    rs_line_options o = rs_line_options_default();
    o.grip_use = 1.5;
    assert_int_equal(rs_racing_line_build_points(pts, 3, p, &o, &line), RS_ERR_RANGE);
    o = rs_line_options_default();
    o.spacing_m = 0.0;
    assert_int_equal(rs_racing_line_build_points(pts, 3, p, &o, &line), RS_ERR_RANGE);
    rs_track_point tiny[3] = {{0, 0, 5, 5, 0}, {1, 0, 5, 5, 0}, {0, 1, 5, 5, 0}};
    assert_int_equal(rs_racing_line_build_points(tiny, 3, p, NULL, &line), RS_ERR_RANGE);
    rs_track_point bad[3] = {{0, 0, -1, 5, 0}, {100, 0, 5, 5, 0}, {50, 80, 5, 5, 0}};
    assert_int_equal(rs_racing_line_build_points(bad, 3, p, NULL, &line), RS_ERR_RANGE);
    assert_int_equal(rs_racing_line_build(NULL, p, NULL, &line), RS_ERR_ARG);
    assert_int_equal(rs_racing_line_build_points(pts, 3, p, NULL, &line), RS_OK);
    rs_driver *d = (rs_driver *)1;
    rs_driver_options dopt = rs_driver_options_default();
    dopt.pace = 0.0;
    assert_int_equal(rs_driver_create(line, &dopt, &d), RS_ERR_RANGE);
    assert_null(d);
    assert_int_equal(rs_driver_create(NULL, NULL, &d), RS_ERR_ARG);
    rs_racing_line_destroy(line);
    rs_racing_line_destroy(NULL);
    rs_driver_destroy(NULL);
    rs_car_params_destroy(p);
}

/* ------------------------------------------------------------- driving */

typedef struct session {
    rs_track *track;
    rs_car_params *car;
    rs_racing_line *line;
    rs_world *world;
    rs_driver *driver[GEN_GRID];
    uint32_t cars;
    /* per car: completed laps as the world timed them */
    uint32_t laps[GEN_GRID];
    uint32_t invalid[GEN_GRID];
    int64_t lap_us[GEN_GRID][8];
} session;

static void session_start(session *s, const char *car, uint32_t cars, uint32_t laps,
                          bool collisions)
{
    memset(s, 0, sizeof *s);
    s->track = generated_track();
    s->car = fixture_car(car);
    assert_int_equal(rs_racing_line_build(s->track, s->car, NULL, &s->line), RS_OK);
    rs_world_def def = rs_world_default();
    def.track = s->track;
    def.laps = laps;
    def.start_tick = 30;
    def.max_cars = cars;
    def.car_collisions = collisions;
    assert_int_equal(rs_world_create(&def, &s->world), RS_OK);
    s->cars = cars;
    for (uint32_t i = 0; i < cars; i++) {
        rs_car_spawn sp;
        assert_true(rs_track_grid_slot(s->track, i, &sp));
        sp.transmission = RS_TRANSMISSION_MANUAL;
        assert_int_equal(rs_world_add_car(s->world, s->car, &sp, &(rs_car_id){0}), RS_OK);
        rs_driver_options o = rs_driver_options_default();
        o.seed = 7u + i;
        o.pace = 0.97 - 0.005 * i;
        assert_int_equal(rs_driver_create(s->line, &o, &s->driver[i]), RS_OK);
    }
}

/* Steps until the race is over or ticks run out; returns ticks stepped. */
static uint64_t session_run(session *s, uint64_t ticks)
{
    uint64_t t = 0;
    for (; t < ticks && !rs_world_race_over(s->world); t++) {
        for (uint32_t i = 0; i < s->cars; i++) {
            rs_car_id id = {(uint16_t)(i + 1)};
            rs_input in = rs_driver_update(s->driver[i], s->world, id);
            assert_int_equal(rs_world_set_input(s->world, id, &in), RS_OK);
        }
        assert_int_equal(rs_world_step(s->world), RS_OK);
        size_t n = 0;
        const rs_event *ev = rs_world_events(s->world, &n);
        for (size_t k = 0; k < n; k++) {
            if (ev[k].type != RS_EVENT_LAP)
                continue;
            uint32_t c = ev[k].car - 1u;
            if (s->laps[c] < 8)
                s->lap_us[c][s->laps[c]] = ev[k].duration_us;
            s->laps[c]++;
            if (!ev[k].valid)
                s->invalid[c]++;
        }
    }
    return t;
}

static void session_end(session *s)
{
    for (uint32_t i = 0; i < s->cars; i++)
        rs_driver_destroy(s->driver[i]);
    rs_world_destroy(s->world);
    rs_racing_line_destroy(s->line);
    rs_car_params_destroy(s->car);
    rs_track_destroy(s->track);
}

static void test_ai_laps_the_generated_track_cleanly(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        session s;
        session_start(&s, shipped_cars[c], 1, 2, true);
        double planned = rs_racing_line_lap_time(s.line);
        session_run(&s, (uint64_t)(60.0 * 4.0 * planned) + 600);
        rs_race_car_state rs;
        assert_int_equal(rs_world_race_state(s.world, (rs_car_id){1}, &rs), RS_OK);
        print_message("%s: planned %.2f s, laps %.3f s and %.3f s, barrier hits %u\n",
                      shipped_cars[c], planned, s.lap_us[0][0] / 1e6, s.lap_us[0][1] / 1e6,
                      rs.barrier_hits);
        assert_int_equal(rs.status, RS_RACE_FINISHED);
        assert_int_equal(s.laps[0], 2);
        assert_int_equal(s.invalid[0], 0);
        assert_int_equal(rs.barrier_hits, 0);
        /* The flying lap within 115 % of the plan (the driver aims at 97 %
         * of the planned speeds). */
        assert_true((double)s.lap_us[0][1] / 1e6 < 1.15 * planned);
        assert_true((double)s.lap_us[0][1] / 1e6 > planned);
        session_end(&s);
    }
}

/* Drives one car from a spawn pose until it races again; returns the
 * ticks it took (or the limit). */
static uint32_t ticks_to_recover(const rs_car_spawn *sp, const char *car, uint32_t limit,
                                 uint32_t *barrier_hits, uint32_t *recoveries)
{
    session s;
    session_start(&s, car, 1, 0, true);
    rs_world_destroy(s.world);
    rs_world_def def = rs_world_default();
    def.track = s.track;
    assert_int_equal(rs_world_create(&def, &s.world), RS_OK);
    rs_car_spawn spawn = *sp;
    spawn.transmission = RS_TRANSMISSION_MANUAL;
    assert_int_equal(rs_world_add_car(s.world, s.car, &spawn, &(rs_car_id){0}), RS_OK);
    uint32_t t = 0, good = 0;
    rs_driver_status ds;
    for (; t < limit && good < 60; t++) {
        rs_input in = rs_driver_update(s.driver[0], s.world, (rs_car_id){1});
        rs_world_set_input(s.world, (rs_car_id){1}, &in);
        assert_int_equal(rs_world_step(s.world), RS_OK);
        rs_driver_get_status(s.driver[0], &ds);
        rs_car_state cs;
        rs_world_car_state(s.world, (rs_car_id){1}, &cs);
        /* Racing again: in racing mode and going forward at a fair speed. */
        good = ds.mode == RS_DRIVER_RACING && cs.forward_speed_m_s > 10.0 ? good + 1 : 0;
    }
    rs_race_car_state rs;
    rs_world_race_state(s.world, (rs_car_id){1}, &rs);
    *barrier_hits = rs.barrier_hits;
    *recoveries = ds.recoveries;
    session_end(&s);
    return t;
}

static void test_ai_turns_round_when_facing_the_wrong_way(void **state)
{
    (void)state;
    rs_track *t = generated_track();
    for (int c = 0; c < 2; c++) {
        for (int k = 0; k < 3; k++) {
            /* On the grid turned round, and turned 100 degrees either way. */
            static const double turn[3] = {RS_PI, 1.75, -1.75};
            rs_car_spawn sp;
            rs_track_grid_slot(t, 0, &sp);
            sp.yaw_rad += turn[k];
            uint32_t hits = 0, rec = 0;
            uint32_t ticks = ticks_to_recover(&sp, shipped_cars[c], 60 * 40, &hits, &rec);
            print_message("%s turned %.2f rad: racing again after %.1f s, %u recoveries, "
                          "%u barrier hits\n",
                          shipped_cars[c], turn[k], ticks / 60.0, rec, hits);
            assert_true(ticks < 60 * 40);
            assert_true(rec >= 1);
        }
    }
    rs_track_destroy(t);
}

static void test_ai_gets_off_a_wall(void **state)
{
    (void)state;
    rs_track *t = generated_track();
    /* Parked nose-first 0.2 m from a barrier (the edge at 6 m plus
     * 4 m of run-off), 50 degrees off the track's direction: it drives
     * into the wall, is stuck, and must back off and turn. */
    rs_track_sample smp;
    rs_track_sample_at(t, 100.0, &smp);
    double nx = -rs_sin(smp.heading_rad), ny = rs_cos(smp.heading_rad);
    for (int c = 0; c < 2; c++) {
        rs_car_params *p = fixture_car(shipped_cars[c]);
        rs_car_info info;
        rs_car_params_info(p, &info);
        rs_car_params_destroy(p);
        /* How far the leading corner reaches sideways at 0.9 rad. */
        double reach = 0.5 * info.length_m * rs_sin(0.9) + 0.5 * info.width_m * rs_cos(0.9);
        for (int side = -1; side <= 1; side += 2) {
            rs_car_spawn sp = rs_car_spawn_default();
            double off = side * (10.0 - 0.2 - reach);
            sp.pos_m[0] = smp.x_m + off * nx;
            sp.pos_m[1] = smp.y_m + off * ny;
            sp.yaw_rad = smp.heading_rad + side * 0.9;
            uint32_t hits = 0, rec = 0;
            uint32_t ticks = ticks_to_recover(&sp, shipped_cars[c], 60 * 40, &hits, &rec);
            print_message("%s against the %s wall: racing again after %.1f s, %u recoveries, "
                          "%u barrier hits\n",
                          shipped_cars[c], side > 0 ? "left" : "right", ticks / 60.0, rec, hits);
            assert_true(ticks < 60 * 40);
            assert_true(rec >= 1); /* it was stuck and had to back off */
        }
    }
    rs_track_destroy(t);
}

static void test_ai_race_is_the_same_every_time(void **state)
{
    (void)state;
    uint64_t hash[2];
    for (int run = 0; run < 2; run++) {
        session s;
        session_start(&s, "c5", 4, 1, true);
        session_run(&s, 60 * 30);
        hash[run] = rs_world_hash(s.world);
        session_end(&s);
    }
    print_message("4 cars, 30 s: hash %016llx\n", (unsigned long long)hash[0]);
    assert_true(hash[0] == hash[1]);
}

static void test_ai_race_of_eight_finishes(void **state)
{
    (void)state;
    session s;
    session_start(&s, "c5", GEN_GRID, 2, true);
    double planned = rs_racing_line_lap_time(s.line);
    uint64_t ticks = session_run(&s, (uint64_t)(60.0 * 6.0 * planned));
    uint32_t hits = 0, car_hits = 0;
    for (uint32_t i = 0; i < s.cars; i++) {
        rs_race_car_state rs;
        rs_world_race_state(s.world, (rs_car_id){(uint16_t)(i + 1)}, &rs);
        rs_driver_status ds;
        rs_driver_get_status(s.driver[i], &ds);
        print_message("car %u: P%u, %s, best %.3f s, barrier hits %u, car hits %u, "
                      "recoveries %u\n",
                      i + 1, rs.finish_position,
                      rs.status == RS_RACE_FINISHED ? "finished" : "running",
                      rs.best_lap_us / 1e6, rs.barrier_hits, rs.car_hits, ds.recoveries);
        hits += rs.barrier_hits;
        car_hits += rs.car_hits;
    }
    print_message("race over after %.1f s, %u barrier hits, %u car hits in all\n", ticks / 60.0,
                  hits, car_hits);
    assert_true(rs_world_race_over(s.world));
    assert_true(hits <= 2);
    session_end(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_car_info_describes_the_c5),
        cmocka_unit_test(test_car_info_tells_the_formula_car_apart),
        cmocka_unit_test(test_racing_line_stays_inside_the_edges),
        cmocka_unit_test(test_racing_line_bends_less_and_is_faster_than_the_centre_line),
        cmocka_unit_test(test_speed_profile_respects_grip_and_brakes),
        cmocka_unit_test(test_given_points_are_followed_as_they_are),
        cmocka_unit_test(test_line_build_rejects_bad_input),
        cmocka_unit_test(test_ai_laps_the_generated_track_cleanly),
        cmocka_unit_test(test_ai_turns_round_when_facing_the_wrong_way),
        cmocka_unit_test(test_ai_gets_off_a_wall),
        cmocka_unit_test(test_ai_race_is_the_same_every_time),
        cmocka_unit_test(test_ai_race_of_eight_finishes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
