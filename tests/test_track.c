/*
 * Tracks (racesim/track.h): loading a small track written here as JSON, the
 * ground lookup (surfaces, limits), locating points, sampling the centre line
 * (curvature of a circle is 1/R), timing lines, grid slots, barriers, the
 * hash, and one test per class of validation error, each checking that the
 * message names the offending field.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "detmath.h"
#include "racesim/track.h"
#include "test_assert.h"
#include "test_fixtures.h"
#include "track_internal.h"

/* --------------------------------------------------------------- the box */

/* A 200 m x 100 m rectangle, anticlockwise (left = inside), centre-line
 * points every 10 m, 5 m to each edge: 60 points, 600 m. Point k is at
 * station 10 k. */
#define BOX_POINTS 60

static void box_point(int k, double *x, double *y)
{
    double s = 10.0 * k;
    if (s < 200.0)
        *x = s, *y = 0.0;
    else if (s < 300.0)
        *x = 200.0, *y = s - 200.0;
    else if (s < 500.0)
        *x = 200.0 - (s - 300.0), *y = 100.0;
    else
        *x = 0.0, *y = 100.0 - (s - 500.0);
}

typedef struct box_opts {
    const char *name;
    const char *length;   /* length_m text; NULL "600" */
    int replace_index;    /* centre_line point replaced by replace_text, -1 none */
    const char *replace_text;
    const char *surfaces; /* whole member text or NULL for the default */
    const char *barriers;
    const char *timing;
    const char *grid;
    const char *extra;    /* appended members, e.g. "\"colour\": 1" */
} box_opts;

static box_opts box_default(void)
{
    box_opts o;
    memset(&o, 0, sizeof o);
    o.replace_index = -1;
    return o;
}

static const char *const BOX_SURFACES =
    "\"surfaces\": {\"runoff\": \"grass\","
    " \"kerbs\": [{\"side\": \"left\", \"from_m\": 180, \"to_m\": 220, \"width_m\": 1}],"
    " \"runoff_zones\": [{\"side\": \"right\", \"from_m\": 0, \"to_m\": 150, \"surface\": \"gravel\"}]}";
static const char *const BOX_BARRIERS = "\"barriers\": {\"offset_left_m\": 10, \"offset_right_m\": 12}";
static const char *const BOX_TIMING =
    "\"timing\": {\"start\": {\"s_m\": 100},"
    " \"sectors\": [{\"s_m\": 250}, {\"a\": [50, 112], \"b\": [50, 88]}]}";
static const char *const BOX_GRID =
    "\"grid\": [{\"x_m\": 90, \"y_m\": 2, \"yaw_rad\": 0}, {\"x_m\": 82, \"y_m\": -2, \"yaw_rad\": 0},"
    " {\"x_m\": 74, \"y_m\": 2, \"yaw_rad\": 0.1}, {\"x_m\": 66, \"y_m\": -2, \"yaw_rad\": -0.1}]";

/* The box as JSON; caller frees. */
static char *box_json(const box_opts *o)
{
    size_t cap = 16384;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t n = 0;
    n += (size_t)snprintf(buf + n, cap - n,
                          "{\"format\": \"racesim-track\", \"version\": 1, \"name\": \"%s\","
                          " \"length_m\": %s, \"centre_line\": [",
                          o->name ? o->name : "box", o->length ? o->length : "600");
    for (int k = 0; k < BOX_POINTS; k++) {
        double x, y;
        box_point(k, &x, &y);
        if (k == o->replace_index)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", k ? ", " : "", o->replace_text);
        else
            n += (size_t)snprintf(buf + n, cap - n, "%s[%g, %g, 5, 5]", k ? ", " : "", x, y);
    }
    n += (size_t)snprintf(buf + n, cap - n, "], %s, %s, %s, %s%s%s}",
                          o->surfaces ? o->surfaces : BOX_SURFACES,
                          o->barriers ? o->barriers : BOX_BARRIERS,
                          o->timing ? o->timing : BOX_TIMING, o->grid ? o->grid : BOX_GRID,
                          o->extra ? ", " : "", o->extra ? o->extra : "");
    assert_true(n < cap);
    return buf;
}

static rs_status parse(const char *json, const char *name, rs_track **t, char *err, size_t cap)
{
    return rs_track_parse(json, strlen(json), name, t, err, cap);
}

static rs_track *load_box(const box_opts *o)
{
    char *json = box_json(o);
    char err[512];
    rs_track *t = NULL;
    rs_status st = parse(json, "box.json", &t, err, sizeof err);
    if (st != RS_OK)
        print_error("unexpected: %s\n", err);
    assert_int_equal(st, RS_OK);
    assert_non_null(t);
    free(json);
    return t;
}

/* Loads a variation of the box that must fail; returns the message. */
static void expect_error(const box_opts *o, rs_status want, const char *must_contain,
                         const char *also)
{
    char *json = box_json(o);
    char err[512];
    rs_track *t = (rs_track *)(uintptr_t)1;
    rs_status st = parse(json, "box.json", &t, err, sizeof err);
    free(json);
    assert_fails_naming(st, err, must_contain);
    if (also)
        assert_fails_naming(st, err, also);
    if (want != RS_OK)
        assert_int_equal(st, want);
    assert_null(t);
}

/* ---------------------------------------------------------------- loading */

static void test_box_loads_with_its_length_points_and_name(void **state)
{
    (void)state;
    box_opts o = box_default();
    rs_track *t = load_box(&o);
    assert_string_equal(rs_track_name(t), "box");
    assert_float_equal(rs_track_length(t), 600.0, 1e-9);
    assert_int_equal(rs_track_point_count(t), BOX_POINTS);
    rs_track_point p;
    assert_true(rs_track_point_at(t, 25, &p));
    assert_float_equal(p.x_m, 200.0, 0.0);
    assert_float_equal(p.y_m, 50.0, 0.0);
    assert_float_equal(p.s_m, 250.0, 1e-9);
    assert_float_equal(p.width_left_m, 5.0, 0.0);
    assert_false(rs_track_point_at(t, BOX_POINTS, &p));
    rs_track_destroy(t);
    rs_track_destroy(NULL);
}

static void test_a_repeated_first_point_at_the_end_is_dropped(void **state)
{
    (void)state;
    /* 61 points, the last equal to the first (within 1 mm): as in many CSVs. */
    char *json = box_json(&(box_opts){.replace_index = -1});
    char *close = strstr(json, "], \"surfaces\"");
    assert_non_null(close);
    size_t head = (size_t)(close - json);
    char *with = malloc(strlen(json) + 64);
    memcpy(with, json, head);
    sprintf(with + head, ", [0.0004, 0, 5, 5]%s", close);
    char err[512];
    rs_track *t = NULL;
    assert_int_equal(parse(with, "box.json", &t, err, sizeof err), RS_OK);
    assert_int_equal(rs_track_point_count(t), BOX_POINTS);
    assert_float_equal(rs_track_length(t), 600.0, 1e-9);
    rs_track_destroy(t);
    free(with);
    free(json);
}

static void test_load_reads_a_file_and_names_it_in_errors(void **state)
{
    (void)state;
    char path[] = "/tmp/rs_test_track_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    box_opts o = box_default();
    char *json = box_json(&o);
    fputs(json, f);
    fclose(f);
    char err[512];
    rs_track *t = NULL;
    assert_int_equal(rs_track_load(path, &t, err, sizeof err), RS_OK);
    assert_int_equal(rs_track_point_count(t), BOX_POINTS);
    rs_track_destroy(t);
    remove(path);
    assert_int_equal(rs_track_load(path, &t, err, sizeof err), RS_ERR_IO);
    assert_null(t);
    assert_non_null(strstr(err, path));
    free(json);
}

/* ----------------------------------------------------------------- ground */

static void ground_at(const rs_track *t, double x, double y, uint8_t surface, bool inside)
{
    rs_ground_hit h;
    memset(&h, 0xAB, sizeof h);
    rs_track_ground(t, x, y, &h);
    if (h.surface != surface || h.inside_limits != inside)
        print_error("at (%g, %g): surface %u inside %d, wanted %u %d\n", x, y, h.surface,
                    h.inside_limits, surface, inside);
    assert_int_equal(h.surface, surface);
    assert_int_equal(h.inside_limits, inside);
    assert_float_equal(h.height_m, 0.0, 0.0);
    assert_float_equal(h.normal[2], 1.0, 0.0);
    assert_float_equal(h.normal[0], 0.0, 0.0);
    rs_track_location loc;
    if (rs_track_locate(t, x, y, &loc)) {
        assert_int_equal(loc.surface, surface);
        assert_int_equal(loc.inside_limits, inside);
    }
}

static void test_ground_reports_asphalt_kerbs_and_runoff_zones(void **state)
{
    (void)state;
    box_opts o = box_default();
    rs_track *t = load_box(&o);
    ground_at(t, 50.0, 0.0, RS_SURFACE_ASPHALT, true);
    ground_at(t, 50.0, 4.9, RS_SURFACE_ASPHALT, true);
    ground_at(t, 50.0, -5.0, RS_SURFACE_ASPHALT, true);   /* the edge itself is track */
    ground_at(t, 50.0, 5.5, RS_SURFACE_GRASS, false);     /* default run-off */
    ground_at(t, 50.0, -5.5, RS_SURFACE_GRAVEL, false);   /* the right-hand zone 0..150 */
    ground_at(t, 160.0, -5.5, RS_SURFACE_GRASS, false);   /* after the zone */
    ground_at(t, 185.0, 5.5, RS_SURFACE_KERB, true);      /* left kerb 180..220 */
    ground_at(t, 185.0, 6.0, RS_SURFACE_KERB, true);
    ground_at(t, 185.0, 6.5, RS_SURFACE_GRASS, false);
    ground_at(t, 185.0, -5.5, RS_SURFACE_GRASS, false);   /* no kerb on the right */
    ground_at(t, 204.0, 10.0, RS_SURFACE_ASPHALT, true);  /* the next straight */
    ground_at(t, 1000.0, 1000.0, RS_SURFACE_GRASS, false);/* nowhere near */
    ground_at(t, 100.0, 50.0, RS_SURFACE_GRASS, false);   /* the infield, out of reach */
    rs_track_destroy(t);
}

static void test_ground_is_a_pure_function_of_the_point(void **state)
{
    (void)state;
    box_opts o = box_default();
    rs_track *t = load_box(&o);
    for (int k = 0; k < 2000; k++) {
        double x = -30.0 + 0.131 * k, y = -20.0 + 0.0711 * k;
        rs_ground_hit a, b;
        rs_track_ground(t, x, y, &a);
        rs_track_ground(t, x, y, &b);
        assert_memory_equal(&a.surface, &b.surface, 1);
        assert_int_equal(a.inside_limits, b.inside_limits);
    }
    rs_track_destroy(t);
}

static char *circle_json(double r, double step);

/* The nearest segment the slow way: every segment, the same rules (the
 * projection clamped to the segment, the next point itself at the far end,
 * ties to the lowest index, nothing beyond max_reach). */
static bool brute_nearest(const rs_track *t, double x, double y, uint32_t *seg, double *u,
                          double *dist, bool *left)
{
    double best = t->max_reach * t->max_reach;
    bool found = false;
    for (uint32_t i = 0; i < t->n; i++) {
        const rs_track_node *p = &t->node[i], *q = &t->node[(i + 1) % t->n];
        double dx = x - p->x, dy = y - p->y, uu = dx * p->tx + dy * p->ty, ex, ey;
        if (uu <= 0.0)
            uu = 0.0, ex = dx, ey = dy;
        else if (uu >= p->len)
            uu = p->len, ex = x - q->x, ey = y - q->y;
        else
            ex = dx - uu * p->tx, ey = dy - uu * p->ty;
        double d2 = ex * ex + ey * ey;
        if (d2 < best || (d2 == best && !found)) {
            best = d2, *seg = i, *u = uu, *left = p->tx * ey - p->ty * ex >= 0.0;
            found = true;
        }
    }
    *dist = rs_sqrt(best);
    return found;
}

/* One point: the lookups (rs_track_locate searches; rs_track_ground may
 * answer from a cell of plain asphalt) against the full search. */
static void check_point(const rs_track *t, double x, double y)
{
    uint32_t seg = 0;
    double u = 0.0, dist = 0.0;
    bool left = false;
    bool found = brute_nearest(t, x, y, &seg, &u, &dist, &left);
    rs_track_location loc;
    bool got = rs_track_locate(t, x, y, &loc);
    assert_int_equal(got, found);
    rs_ground_hit h;
    rs_track_ground(t, x, y, &h);
    if (!found) {
        assert_int_equal(h.surface, t->runoff_default);
        assert_false(h.inside_limits);
        return;
    }
    assert_int_equal(loc.segment, seg);
    double s = t->node[seg].s + u;
    assert_true(loc.s_m == (s >= t->length ? s - t->length : s));
    assert_true(loc.offset_m == (left ? dist : -dist));
    assert_int_equal(h.surface, loc.surface);
    assert_int_equal(h.inside_limits, loc.inside_limits);
}

static void check_against_brute_force(const rs_track *t, double x0, double y0, double x1,
                                      double y1)
{
    uint32_t seed = 12345;
    for (int k = 0; k < 20000; k++) {
        seed = seed * 1664525u + 1013904223u;
        double fx = (double)(seed >> 8) / 16777216.0;
        seed = seed * 1664525u + 1013904223u;
        double fy = (double)(seed >> 8) / 16777216.0;
        check_point(t, x0 + fx * (x1 - x0), y0 + fy * (y1 - y0));
    }
}

/* The grid's decisions hold for every point of a cell, its edges and
 * corners included: a lattice over the cell and points a hair inside and
 * outside each corner, for every `stride`-th cell that lists a segment.
 * (A lattice, because a segment wrongly dropped from a cell is missed only
 * in a sliver of it.) The lattice is 9 x 9: the corners and middles of the
 * 4 x 4 parts the plain-asphalt masks are kept for.
 * Counts the cells checked that are plain all over (*whole) and those that
 * are plain in some parts only (*partly). */
static void check_cells_against_brute_force(const rs_track *t, uint32_t stride, uint32_t *whole,
                                            uint32_t *partly)
{
    const rs_seggrid *g = &t->near_grid;
    uint32_t listed = 0;
    *whole = *partly = 0;
    for (uint32_t iy = 0; iy < g->ny; iy++)
        for (uint32_t ix = 0; ix < g->nx; ix++) {
            size_t c = (size_t)iy * g->nx + ix;
            if (g->cell_start[c] == g->cell_start[c + 1] || listed++ % stride)
                continue;
            *whole += t->plain_parts[c] == 0xFFFF;
            *partly += t->plain_parts[c] != 0 && t->plain_parts[c] != 0xFFFF;
            double cx = g->x0 + ix * g->cell_m, cy = g->y0 + iy * g->cell_m;
            for (int k = 0; k < 81; k++)
                check_point(t, cx + (k % 9) * 0.125 * g->cell_m, cy + (k / 9) * 0.125 * g->cell_m);
            for (int k = 0; k < 4; k++) {
                double x = cx + (k & 1) * g->cell_m, y = cy + (k >> 1) * g->cell_m;
                for (int e = -1; e <= 1; e += 2)
                    check_point(t, x + e * 1e-9, y - e * 1e-9);
            }
        }
}

static void test_ground_finds_the_same_segment_as_a_full_search(void **state)
{
    (void)state;
    box_opts o = box_default();
    rs_track *t = load_box(&o);
    check_against_brute_force(t, -40.0, -40.0, 240.0, 140.0);
    check_against_brute_force(t, -2.0, -2.0, 2.0, 2.0); /* the corner: ties */
    rs_track_destroy(t);
    char *json = circle_json(60.0, 3.0);
    char err[512];
    assert_int_equal(parse(json, "circle.json", &t, err, sizeof err), RS_OK);
    check_against_brute_force(t, -100.0, -100.0, 100.0, 100.0);
    rs_track_destroy(t);
    free(json);
    /* A real circuit's corners, kerbs and close straights, over its whole
     * extent and 20 m beyond. */
    t = fixture_track("technical");
    double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
    for (uint32_t i = 0; i < t->n; i++) {
        lo[0] = rs_min(lo[0], t->node[i].x), hi[0] = rs_max(hi[0], t->node[i].x);
        lo[1] = rs_min(lo[1], t->node[i].y), hi[1] = rs_max(hi[1], t->node[i].y);
    }
    check_against_brute_force(t, lo[0] - 20.0, lo[1] - 20.0, hi[0] + 20.0, hi[1] + 20.0);
    /* Cell by cell, so that the parts that answer without a search are
     * checked where they are (there must be cells plain all over and cells
     * plain in some parts only, or the fast path and its parts are not
     * tested). */
    uint32_t whole, partly;
    check_cells_against_brute_force(t, 4, &whole, &partly);
    assert_true(whole > 100);
    assert_true(partly > 100);
    rs_track_destroy(t);
}

/* The distance from (x, y) to segment a..b. */
static double seg_distance(double x, double y, double ax, double ay, double bx, double by)
{
    double vx = bx - ax, vy = by - ay, l2 = vx * vx + vy * vy;
    double f = l2 > 0.0 ? ((x - ax) * vx + (y - ay) * vy) / l2 : 0.0;
    f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
    double ex = x - ax - f * vx, ey = y - ay - f * vy;
    return rs_sqrt(ex * ex + ey * ey);
}

/* The nearest barrier the slow way: every segment. */
static double brute_barrier_distance(const rs_track *t, double x, double y)
{
    double best = 1e300;
    for (uint32_t i = 0; i < t->nbseg; i++) {
        const rs_barrier_seg *s = &t->bseg[i];
        best = rs_min(best, seg_distance(x, y, s->ax, s->ay, s->bx, s->by));
    }
    return best;
}

/* The nearest timing line the slow way. */
static double brute_line_distance(const rs_track *t, double x, double y)
{
    double best = 1e300;
    for (uint32_t i = 0; i < t->nlines; i++) {
        const rs_timing_line *l = &t->line[i];
        best = rs_min(best, seg_distance(x, y, l->ax, l->ay, l->bx, l->by));
    }
    return best;
}

/* The barrier and timing-line clearances of the ground grid's cells are
 * never more than the distance from any point of the cell to the nearest
 * barrier or line (the barrier pass skips its query on one, timing its
 * crossing checks on the other), and the barriers' is not a trivial bound:
 * most of the track is far from a wall, and near walls the bound comes
 * within a few centimetres of the distance. (Getting either wrong by a
 * metre also fails the golden hash and the race tests.) */
static void test_clearances_are_never_more_than_the_distance(void **state)
{
    (void)state;
    rs_track *t = fixture_track("technical");
    const rs_seggrid *g = &t->near_grid;
    uint32_t listed = 0, far = 0, uncapped = 0, tight = 0, near_line = 0;
    for (uint32_t iy = 0; iy < g->ny; iy++)
        for (uint32_t ix = 0; ix < g->nx; ix++) {
            size_t c = (size_t)iy * g->nx + ix;
            if (g->cell_start[c] == g->cell_start[c + 1] || listed++ % 2)
                continue;
            double cx = g->x0 + ix * g->cell_m, cy = g->y0 + iy * g->cell_m;
            double clear = t->barrier_clear[c] / 16.0, least = 1e300;
            far += clear >= 5.0; /* beyond a car's reach in a substep */
            for (int k = 0; k < 25; k++) {
                double x = cx + (k % 5) * 0.25 * g->cell_m, y = cy + (k / 5) * 0.25 * g->cell_m;
                double d = brute_barrier_distance(t, x, y);
                least = rs_min(least, d);
                assert_true(rs_track_barrier_clearance(t, x, y) <= d);
                assert_true(rs_track_line_clearance(t, x, y) <= brute_line_distance(t, x, y));
            }
            near_line += t->line_clear[c] < 128;
            /* A hair inside and outside each corner: whichever cell the
             * point falls in must hold for it. */
            for (int k = 0; k < 4; k++) {
                double x = cx + (k & 1) * g->cell_m, y = cy + (k >> 1) * g->cell_m;
                for (int e = -1; e <= 1; e += 2) {
                    double px = x + e * 1e-9, py = y - e * 1e-9;
                    assert_true(rs_track_barrier_clearance(t, px, py) <=
                                brute_barrier_distance(t, px, py));
                    assert_true(rs_track_line_clearance(t, px, py) <=
                                brute_line_distance(t, px, py));
                }
            }
            uncapped += clear < 6.0; /* 6 m: the most it says */
            tight += clear < 6.0 && least - clear < 0.6;
        }
    print_message("%u cells checked: %u with the nearest wall 5 m away or more, %u nearer than "
                  "6 m, %u of them within 0.6 m of their bound\n",
                  (listed + 1) / 2, far, uncapped, tight);
    assert_true(far > listed / 8);
    assert_true(uncapped > 100);
    assert_true(tight > uncapped / 2);
    assert_true(near_line > 20); /* the cells around the lines are checked */
    rs_track_destroy(t);
}

static void test_locate_gives_station_offset_and_heading(void **state)
{
    (void)state;
    box_opts o = box_default();
    rs_track *t = load_box(&o);
    rs_track_location loc;
    assert_true(rs_track_locate(t, 55.0, 3.0, &loc));
    assert_float_equal(loc.s_m, 55.0, 1e-9);
    assert_float_equal(loc.offset_m, 3.0, 1e-9);   /* + = left */
    assert_float_equal(loc.heading_rad, 0.0, 1e-12);
    assert_float_equal(loc.width_left_m, 5.0, 1e-12);
    assert_int_equal(loc.segment, 5);
    assert_true(loc.inside_limits);
    assert_true(rs_track_locate(t, 203.0, 150.0 - 100.0, &loc)); /* right-hand straight going up */
    assert_float_equal(loc.s_m, 250.0, 1e-9);
    assert_float_equal(loc.offset_m, -3.0, 1e-9);
    assert_float_equal(loc.heading_rad, RS_HALF_PI, 1e-12);
    assert_true(rs_track_locate(t, 100.0, 104.0, &loc)); /* top straight going -x */
    assert_float_equal(loc.s_m, 400.0, 1e-9);
    assert_float_equal(loc.offset_m, -4.0, 1e-9);
    assert_float_equal(loc.heading_rad, RS_PI, 1e-12);  /* (-pi, pi] */
    assert_true(rs_track_locate(t, -2.0, 0.5, &loc)); /* just before the start: s near 600 */
    assert_float_equal(loc.s_m, 599.5, 1e-9);
    /* Stations stay in [0, length). */
    assert_true(rs_track_locate(t, -3.0, -3.0, &loc)); /* outside the corner at point 0 */
    assert_true(loc.s_m >= 0.0 && loc.s_m < 600.0);
    assert_float_equal(loc.offset_m, -rs_sqrt(18.0), 1e-9);
    assert_false(rs_track_locate(t, 100.0, 50.0, &loc));
    rs_track_destroy(t);
}

/* ------------------------------------------------------------ centre line */

/* A circle of radius r (anticlockwise, or clockwise for r < 0) sampled every
 * step metres, with a timing set and a grid that suit it. Caller frees. */
static char *circle_json(double r, double step)
{
    double ar = rs_abs(r);
    int n = (int)(RS_TWO_PI * ar / step);
    size_t cap = 64 * (size_t)n + 4096;
    char *buf = malloc(cap);
    assert_non_null(buf);
    double len = 0.0, px = 0.0, py = 0.0, x0 = 0.0, y0 = 0.0;
    size_t k = (size_t)snprintf(buf, cap, "{\"format\": \"racesim-track\", \"version\": 1, "
                                          "\"name\": \"circle\", \"length_m\": LENGTH_PLACE, "
                                          "\"centre_line\": [");
    for (int i = 0; i < n; i++) {
        double a = RS_TWO_PI * i / n * (r > 0 ? 1.0 : -1.0), s, c;
        rs_sincos(a, &s, &c);
        double x = ar * c, y = ar * s;
        if (i)
            len += rs_sqrt((x - px) * (x - px) + (y - py) * (y - py));
        else
            x0 = x, y0 = y;
        px = x, py = y;
        k += (size_t)snprintf(buf + k, cap - k, "%s[%.17g, %.17g, 6, 6]", i ? ", " : "", x, y);
    }
    len += rs_sqrt((x0 - px) * (x0 - px) + (y0 - py) * (y0 - py));
    /* The grid: a quarter lap before the line, heading along the circle. */
    double ga = -0.25 * RS_TWO_PI * (r > 0 ? 1.0 : -1.0) + 0.0, gs, gc;
    rs_sincos(ga, &gs, &gc);
    double yaw = ga + (r > 0 ? RS_HALF_PI : -RS_HALF_PI);
    k += (size_t)snprintf(buf + k, cap - k,
                          "], \"timing\": {\"start\": {\"s_m\": 0}, \"sectors\": [{\"s_m\": %.3f},"
                          " {\"s_m\": %.3f}]}, \"grid\": [{\"x_m\": %.17g, \"y_m\": %.17g, "
                          "\"yaw_rad\": %.17g}]}",
                          len / 3.0, 2.0 * len / 3.0, ar * gc, ar * gs, yaw);
    assert_true(k < cap);
    char lenbuf[32];
    snprintf(lenbuf, sizeof lenbuf, "%-12.4f", len);
    char *place = strstr(buf, "LENGTH_PLACE");
    memcpy(place, lenbuf, 12);
    return buf;
}

static void test_sample_curvature_of_a_circle_is_one_over_r(void **state)
{
    (void)state;
    const double radii[4] = {100.0, -50.0, 250.0, 30.0};
    const double steps[4] = {5.0, 2.0, 7.0, 1.0};
    for (int c = 0; c < 4; c++) {
        char *json = circle_json(radii[c], steps[c]);
        char err[512];
        rs_track *t = NULL;
        rs_status st = parse(json, "circle.json", &t, err, sizeof err);
        if (st)
            print_error("%s\n", err);
        assert_int_equal(st, RS_OK);
        double len = rs_track_length(t);
        for (int i = 0; i < 37; i++) {
            rs_track_sample sm;
            rs_track_sample_at(t, len * i / 37.0 + 0.3, &sm);
            assert_float_equal(sm.curvature_1_m, 1.0 / radii[c], 0.01 / rs_abs(radii[c]));
            assert_float_equal(rs_sqrt(sm.x_m * sm.x_m + sm.y_m * sm.y_m), rs_abs(radii[c]),
                               0.002 * rs_abs(radii[c]));
            assert_float_equal(sm.width_left_m, 6.0, 1e-12);
            /* Heading is the tangent: perpendicular to the radius. */
            double s, co;
            rs_sincos(sm.heading_rad, &s, &co);
            assert_float_equal((sm.x_m * co + sm.y_m * s) / rs_abs(radii[c]), 0.0, 0.02);
        }
        rs_track_destroy(t);
        free(json);
    }
}

static void test_sample_wraps_stations_and_interpolates(void **state)
{
    (void)state;
    box_opts o = box_default();
    rs_track *t = load_box(&o);
    rs_track_sample a, b, c;
    rs_track_sample_at(t, 55.0, &a);
    assert_float_equal(a.x_m, 55.0, 1e-12);
    assert_float_equal(a.y_m, 0.0, 1e-12);
    assert_float_equal(a.heading_rad, 0.0, 1e-12);
    assert_float_equal(a.curvature_1_m, 0.0, 1e-12);
    rs_track_sample_at(t, 655.0, &b);
    rs_track_sample_at(t, -545.0, &c);
    assert_memory_equal(&a, &b, sizeof a);
    assert_memory_equal(&a, &c, sizeof a);
    rs_track_sample_at(t, 200.0, &b); /* the corner: heading halfway round, turning left */
    assert_float_equal(b.heading_rad, RS_PI / 4.0, 1e-12);
    assert_true(b.curvature_1_m > 0.0);
    rs_track_sample_at(t, 1e300, &c); /* absurd stations stay on the track */
    assert_true(c.x_m >= -1.0 && c.x_m <= 201.0);
    rs_track_destroy(t);
}

/* ---------------------------------------------------- lines, grid, barriers */

static void test_timing_lines_span_the_track_in_racing_order(void **state)
{
    (void)state;
    box_opts o = box_default();
    rs_track *t = load_box(&o);
    assert_int_equal(rs_track_line_count(t), 3);
    rs_track_line l;
    assert_true(rs_track_line_at(t, 0, &l));
    assert_float_equal(l.s_m, 100.0, 1e-9);
    assert_float_equal(l.a_m[0], 100.0, 1e-9);
    assert_float_equal(l.a_m[1], 6.0, 1e-9);   /* left: width 5 + 1 m past the edge */
    assert_float_equal(l.b_m[1], -6.0, 1e-9);
    assert_true(rs_track_line_at(t, 1, &l));
    assert_float_equal(l.s_m, 250.0, 1e-9);
    assert_true(l.a_m[0] < 200.0 && l.b_m[0] > 200.0); /* left of a car going up is -x */
    assert_true(rs_track_line_at(t, 2, &l));
    assert_float_equal(l.s_m, 450.0, 1e-9);
    /* Given as a = (50, 112), b = (50, 88): a is on the right going -x, so
     * they are swapped to keep a on the left. */
    assert_float_equal(l.a_m[1], 88.0, 0.0);
    assert_float_equal(l.b_m[1], 112.0, 0.0);
    assert_false(rs_track_line_at(t, 3, &l));
    /* The normals point in the racing direction. */
    assert_float_equal(t->line[0].nx, 1.0, 1e-12);
    assert_float_equal(t->line[1].ny, 1.0, 1e-12);
    assert_float_equal(t->line[2].nx, -1.0, 1e-12);
    rs_track_destroy(t);
}

static void test_grid_slots_are_spawns_at_rest_in_drive(void **state)
{
    (void)state;
    box_opts o = box_default();
    rs_track *t = load_box(&o);
    assert_int_equal(rs_track_grid_count(t), 4);
    rs_car_spawn sp;
    assert_true(rs_track_grid_slot(t, 0, &sp));
    assert_float_equal(sp.pos_m[0], 90.0, 0.0);
    assert_float_equal(sp.pos_m[1], 2.0, 0.0);
    assert_float_equal(sp.pos_m[2], 0.0, 0.0);
    assert_float_equal(sp.yaw_rad, 0.0, 0.0);
    assert_float_equal(sp.speed_m_s, 0.0, 0.0);
    assert_int_equal(sp.gear, 1); /* Drive: a throttle alone moves the car */
    assert_int_equal(sp.transmission, RS_TRANSMISSION_AUTO);
    assert_int_equal(sp.clutch_mode, RS_CLUTCH_AUTO);
    assert_true(rs_track_grid_slot(t, 3, &sp));
    assert_float_equal(sp.yaw_rad, -0.1, 0.0);
    assert_false(rs_track_grid_slot(t, 4, &sp));
    rs_track_destroy(t);
}

static void test_generated_barriers_surround_the_track_without_folding(void **state)
{
    (void)state;
    box_opts o = box_default();
    rs_track *t = load_box(&o);
    assert_int_equal(rs_track_barrier_count(t), 2);
    rs_track_barrier b;
    assert_true(rs_track_barrier_at(t, 0, &b)); /* left = the infield */
    assert_true(b.closed);
    assert_float_equal(b.restitution, 0.3, 0.0);
    assert_float_equal(b.friction, 0.5, 0.0);
    /* Every left barrier point is inside the infield, 15 m from the centre
     * line (5 m width + 10 m offset) or at a cut corner; never nearer than
     * 6 m + 1 m of kerb clearance. */
    for (uint32_t i = 0; i < b.points; i++) {
        double x = b.xy[2 * i], y = b.xy[2 * i + 1];
        assert_true(x >= 15.0 - 1e-9 && x <= 185.0 + 1e-9);
        assert_true(y >= 15.0 - 1e-9 && y <= 85.0 + 1e-9);
        rs_track_location loc;
        assert_true(rs_track_locate(t, x, y, &loc));
        assert_true(loc.offset_m >= 6.0);
    }
    /* The inside corners were cut: fewer points than the centre line. */
    assert_true(b.points < BOX_POINTS);
    assert_true(rs_track_barrier_at(t, 1, &b)); /* right, 5 + 12 m outside */
    for (uint32_t i = 0; i < b.points; i++) {
        rs_track_location loc;
        assert_true(rs_track_locate(t, b.xy[2 * i], b.xy[2 * i + 1], &loc));
        assert_true(loc.offset_m <= -17.0 + 1e-9);
    }
    /* Segments for collisions, each tagged with its polyline. */
    assert_true(t->nbseg > 0);
    uint32_t per[2] = {0, 0};
    for (uint32_t i = 0; i < t->nbseg; i++) {
        assert_true(t->bseg[i].barrier < 2);
        per[t->bseg[i].barrier]++;
    }
    assert_int_equal(per[1], b.points);
    assert_false(rs_track_barrier_at(t, 2, &b));
    rs_track_destroy(t);
}

static void test_barriers_can_be_disabled_and_walls_added(void **state)
{
    (void)state;
    box_opts o = box_default();
    o.barriers = "\"barriers\": {\"offset_left_m\": false, \"offset_right_m\": null,"
                 " \"restitution\": 0.2, \"friction\": 0.9,"
                 " \"walls\": [{\"points\": [[40, 40], [160, 40], [160, 60]], \"friction\": 1.5},"
                 " {\"points\": [[20, 20], [30, 20], [30, 30]], \"closed\": true}]}";
    rs_track *t = load_box(&o);
    assert_int_equal(rs_track_barrier_count(t), 3); /* right generated + 2 walls */
    rs_track_barrier b;
    assert_true(rs_track_barrier_at(t, 0, &b));
    assert_true(b.closed);
    assert_float_equal(b.restitution, 0.2, 0.0);
    assert_true(rs_track_barrier_at(t, 1, &b));
    assert_false(b.closed);
    assert_int_equal(b.points, 3);
    assert_float_equal(b.friction, 1.5, 0.0);
    assert_float_equal(b.restitution, 0.2, 0.0);
    assert_float_equal(b.xy[2], 160.0, 0.0);
    assert_true(rs_track_barrier_at(t, 2, &b));
    assert_true(b.closed);
    assert_float_equal(b.friction, 0.9, 0.0);
    rs_track_destroy(t);
}

/* ------------------------------------------------------------------- hash */

static void test_hash_is_stable_and_changes_with_a_width(void **state)
{
    (void)state;
    box_opts o = box_default();
    rs_track *a = load_box(&o);
    rs_track *b = load_box(&o);
    assert_true(rs_track_hash(a) != 0);
    assert_true(rs_track_hash(a) == rs_track_hash(b));
    size_t n = rs_track_canonical(a, NULL, 0);
    assert_true(n > 60 * 8);
    uint8_t *buf = malloc(n);
    assert_int_equal(rs_track_canonical(a, buf, n), n);
    assert_int_equal(rs_track_canonical(a, buf, n - 1), n); /* too small: size only */
    free(buf);
    rs_track_destroy(b);
    /* The same numbers written differently: the same track. */
    o.length = "6.0e2";
    b = load_box(&o);
    assert_true(rs_track_hash(a) == rs_track_hash(b));
    rs_track_destroy(b);
    o.length = NULL;
    o.replace_index = 7;
    o.replace_text = "[70, 0, 5.5, 5]";
    b = load_box(&o);
    assert_true(rs_track_hash(a) != rs_track_hash(b));
    rs_track_destroy(b);
    o.replace_index = -1;
    o.barriers = "\"barriers\": {\"offset_left_m\": 10, \"offset_right_m\": 12, \"friction\": 0.6}";
    b = load_box(&o);
    assert_true(rs_track_hash(a) != rs_track_hash(b));
    rs_track_destroy(b);
    o.barriers = NULL;
    o.timing = "\"timing\": {\"start\": {\"s_m\": 101}, \"sectors\": [{\"s_m\": 250}, {\"s_m\": 450}]}";
    b = load_box(&o);
    assert_true(rs_track_hash(a) != rs_track_hash(b));
    rs_track_destroy(b);
    rs_track_destroy(a);
}

/* ------------------------------------------------------------- validation */

/* A track from n points (x, y) with one width on both sides, declared with
 * its computed length and a timing set and grid that are only well formed:
 * for errors found before those are looked at. Caller frees. */
static char *points_json(const double *xy, int n, double width)
{
    size_t cap = 96 * (size_t)n + 1024;
    char *buf = malloc(cap);
    assert_non_null(buf);
    double len = 0.0;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        double dx = xy[2 * j] - xy[2 * i], dy = xy[2 * j + 1] - xy[2 * i + 1];
        len += rs_sqrt(dx * dx + dy * dy);
    }
    size_t k = (size_t)snprintf(buf, cap, "{\"format\": \"racesim-track\", \"version\": 1, "
                                          "\"name\": \"p\", \"length_m\": %.17g, \"centre_line\": [",
                                len);
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s[%.17g, %.17g, %g, %g]", i ? ", " : "",
                              xy[2 * i], xy[2 * i + 1], width, width);
    k += (size_t)snprintf(buf + k, cap - k,
                          "], \"timing\": {\"start\": {\"s_m\": 0}, \"sectors\": [{\"s_m\": 1},"
                          " {\"s_m\": 2}]}, \"grid\": [{\"x_m\": 0, \"y_m\": 0, \"yaw_rad\": 0}]}");
    assert_true(k < cap);
    return buf;
}

static void expect_points_error(const double *xy, int n, double width, const char *a,
                                const char *b)
{
    char *json = points_json(xy, n, width);
    char err[512];
    rs_track *t = NULL;
    rs_status st = parse(json, "p.json", &t, err, sizeof err);
    free(json);
    assert_fails_naming(st, err, a);
    assert_fails_naming(st, err, b);
    assert_int_equal(st, RS_ERR_RANGE);
    assert_null(t);
}

static void test_error_self_intersection_names_the_point(void **state)
{
    (void)state;
    /* A figure of eight (lemniscate of Gerono) crosses itself at the origin. */
    enum { N = 100 };
    double xy[2 * N];
    for (int i = 0; i < N; i++) {
        double s, c;
        rs_sincos(RS_TWO_PI * i / N + 0.01, &s, &c);
        xy[2 * i] = 150.0 * s;
        xy[2 * i + 1] = 80.0 * s * c;
    }
    expect_points_error(xy, N, 4.0, "p.json: centre_line[", "the centre line crosses itself");
}

static void test_error_edges_cross_where_the_track_comes_too_close(void **state)
{
    (void)state;
    /* A 200 m x 10 m loop: with 6 m to each side the inner edges of the two
     * long straights overlap. With 4 m they are 2 m apart: fine. */
    enum { N = 42 };
    double xy[2 * N];
    for (int i = 0; i < N; i++) {
        double s = 10.0 * i;
        xy[2 * i] = s < 200.0 ? s : (s < 210.0 ? 200.0 : (s < 410.0 ? 410.0 - s : 0.0));
        xy[2 * i + 1] = s < 200.0 ? 0.0 : (s < 210.0 ? s - 200.0 : (s < 410.0 ? 10.0 : 420.0 - s));
    }
    expect_points_error(xy, N, 6.0, "p.json: centre_line[", "the left edge crosses itself");
    /* One point with a width wider than the corner it is in. */
    expect_points_error(xy, N, 50.0, "p.json: centre_line[", "edge");
}

static void test_error_zero_length_segment(void **state)
{
    (void)state;
    box_opts o = box_default();
    o.replace_index = 4;
    o.replace_text = "[30, 0, 5, 5]"; /* the same as point 3 */
    expect_error(&o, RS_ERR_RANGE, "box.json: centre_line[3]: segment to centre_line[4] is 0 m long",
                 NULL);
}

static void test_error_width_must_be_positive(void **state)
{
    (void)state;
    box_opts o = box_default();
    o.replace_index = 12;
    o.replace_text = "[120, 0, -1, 5]";
    expect_error(&o, RS_ERR_RANGE, "box.json: centre_line[12][2]: width -1 must be > 0", NULL);
    o.replace_text = "[120, 0, 5, 0]";
    expect_error(&o, RS_ERR_RANGE, "box.json: centre_line[12][3]: width 0 must be > 0", NULL);
    o.replace_text = "[120, 0, 5, 51]";
    expect_error(&o, RS_ERR_RANGE, "centre_line[12][3]: width 51 must be at most 50", NULL);
}

static void test_error_length_must_match(void **state)
{
    (void)state;
    box_opts o = box_default();
    o.length = "610";
    expect_error(&o, RS_ERR_RANGE, "box.json: length_m: 610 does not match", NULL);
}

static void test_error_line_not_crossing_the_track(void **state)
{
    (void)state;
    box_opts o = box_default();
    o.timing = "\"timing\": {\"start\": {\"s_m\": 100},"
               " \"sectors\": [{\"a\": [250, -20], \"b\": [250, -40]}, {\"s_m\": 450}]}";
    expect_error(&o, RS_ERR_RANGE, "box.json: timing.sectors[0]: the line does not cross", NULL);
    /* Ends inside the track: it does not span both edges. */
    o.timing = "\"timing\": {\"start\": {\"a\": [100, 3], \"b\": [100, -9]},"
               " \"sectors\": [{\"s_m\": 250}, {\"s_m\": 450}]}";
    expect_error(&o, RS_ERR_RANGE, "box.json: timing.start: an end of the line lies inside", NULL);
}

static void test_error_lines_out_of_order(void **state)
{
    (void)state;
    box_opts o = box_default();
    o.timing = "\"timing\": {\"start\": {\"s_m\": 100},"
               " \"sectors\": [{\"s_m\": 450}, {\"s_m\": 250}]}";
    expect_error(&o, RS_ERR_RANGE, "box.json: timing.sectors[1]: out of order", NULL);
    o.timing = "\"timing\": {\"start\": {\"s_m\": 100},"
               " \"sectors\": [{\"s_m\": 250}, {\"s_m\": 95}]}";
    expect_error(&o, RS_ERR_RANGE, "timing.sectors[1]: too close to the start line", NULL);
    o.timing = "\"timing\": {\"start\": {\"s_m\": 100}, \"sectors\": [{\"s_m\": 250}]}";
    expect_error(&o, RS_ERR_RANGE, "box.json: timing.sectors: 1 elements, expected 2..15", NULL);
}

static void test_error_unknown_key(void **state)
{
    (void)state;
    box_opts o = box_default();
    o.extra = "\"colour\": \"red\"";
    expect_error(&o, RS_ERR_PARSE, "box.json: colour: unknown field", NULL);
    o.extra = NULL;
    o.surfaces = "\"surfaces\": {\"kerbs\": [{\"side\": \"left\", \"from_m\": 1, \"to_m\": 9,"
                 " \"width_m\": 1, \"colour\": 2}]}";
    expect_error(&o, RS_ERR_PARSE, "box.json: surfaces.kerbs[0].colour: unknown field", NULL);
}

static void test_error_grid_slot_off_the_track(void **state)
{
    (void)state;
    box_opts o = box_default();
    o.grid = "\"grid\": [{\"x_m\": 90, \"y_m\": 2, \"yaw_rad\": 0},"
             " {\"x_m\": 80, \"y_m\": 30, \"yaw_rad\": 0}]";
    expect_error(&o, RS_ERR_RANGE, "box.json: grid[1]:", "outside the track limits");
    o.grid = "\"grid\": [{\"x_m\": 90, \"y_m\": 2, \"yaw_rad\": 1.0}]";
    expect_error(&o, RS_ERR_RANGE, "box.json: grid[0]: yaw_rad points 57 degrees away", NULL);
    o.grid = "\"grid\": [{\"x_m\": 110, \"y_m\": 2, \"yaw_rad\": 0}]";
    expect_error(&o, RS_ERR_RANGE, "box.json: grid[0]: is not behind the start line", NULL);
}

static void test_error_walls_and_zones_are_checked(void **state)
{
    (void)state;
    box_opts o = box_default();
    o.barriers = "\"barriers\": {\"walls\": [{\"points\": [[40, 40], [50, 2]]}]}";
    expect_error(&o, RS_ERR_RANGE, "box.json: barriers.walls[0].points[1]: lies inside", NULL);
    o.barriers = "\"barriers\": {\"walls\": [{\"points\": [[40, 40], [50, -40]]}]}";
    expect_error(&o, RS_ERR_RANGE, "box.json: barriers.walls[0].points[0]: the wall from here",
                 "crosses");
    o.barriers = "\"barriers\": {\"offset_left_m\": 0.5}";
    expect_error(&o, RS_ERR_RANGE, "box.json: barriers.offset_left_m: 0.5 outside 1..200", NULL);
    o.barriers = "\"barriers\": {\"offset_left_m\": true}";
    expect_error(&o, RS_ERR_RANGE, "box.json: barriers.offset_left_m: true is not an offset",
                 NULL);
    o.barriers = NULL;
    o.surfaces = "\"surfaces\": {\"kerbs\": [{\"side\": \"middle\", \"from_m\": 1, \"to_m\": 9,"
                 " \"width_m\": 1}]}";
    expect_error(&o, RS_ERR_RANGE, "box.json: surfaces.kerbs[0].side: unknown side", NULL);
    o.surfaces = "\"surfaces\": {\"runoff_zones\": [{\"side\": \"left\", \"from_m\": 1,"
                 " \"to_m\": 700, \"surface\": \"sand\"}]}";
    expect_error(&o, RS_ERR_RANGE, "surfaces.runoff_zones[0].surface: unknown surface", NULL);
    o.surfaces = "\"surfaces\": {\"runoff_zones\": [{\"side\": \"left\", \"from_m\": 1,"
                 " \"to_m\": 700, \"surface\": \"gravel\"}]}";
    expect_error(&o, RS_ERR_RANGE, "surfaces.runoff_zones[0]: to_m 700 m is beyond", NULL);
    o.surfaces = "\"surfaces\": {\"kerbs\": [{\"side\": \"left\", \"from_m\": 1, \"to_m\": 9,"
                 " \"width_m\": 6}]}";
    expect_error(&o, RS_ERR_RANGE, "surfaces.kerbs[0].width_m: 6 outside 0..5", NULL);
}

static void test_error_header_fields(void **state)
{
    (void)state;
    const char *cases[][2] = {
        {"{\"format\": \"racesim-car\", \"version\": 1}", "x.json: format: \"racesim-car\" is not"},
        {"{\"format\": \"racesim-track\", \"version\": 2}", "x.json: version: 2 outside 1..1"},
        {"{\"format\": \"racesim-track\", \"version\": 1, \"name\": \"\"}", "x.json: name: must not be empty"},
        {"{\"format\": \"racesim-track\", \"version\": 1, \"name\": \"a\", \"length_m\": 5}",
         "x.json: centre_line: required field missing"},
        {"[1, 2]", "x.json: expected an object, found an array"},
        {"{\"format\": ", "x.json:1:12:"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char err[512];
        rs_track *t = NULL;
        rs_status st = parse(cases[k][0], "x.json", &t, err, sizeof err);
        assert_fails_naming(st, err, cases[k][1]);
        assert_null(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_loads_with_its_length_points_and_name),
        cmocka_unit_test(test_a_repeated_first_point_at_the_end_is_dropped),
        cmocka_unit_test(test_load_reads_a_file_and_names_it_in_errors),
        cmocka_unit_test(test_ground_reports_asphalt_kerbs_and_runoff_zones),
        cmocka_unit_test(test_ground_is_a_pure_function_of_the_point),
        cmocka_unit_test(test_ground_finds_the_same_segment_as_a_full_search),
        cmocka_unit_test(test_clearances_are_never_more_than_the_distance),
        cmocka_unit_test(test_locate_gives_station_offset_and_heading),
        cmocka_unit_test(test_sample_curvature_of_a_circle_is_one_over_r),
        cmocka_unit_test(test_sample_wraps_stations_and_interpolates),
        cmocka_unit_test(test_timing_lines_span_the_track_in_racing_order),
        cmocka_unit_test(test_grid_slots_are_spawns_at_rest_in_drive),
        cmocka_unit_test(test_generated_barriers_surround_the_track_without_folding),
        cmocka_unit_test(test_barriers_can_be_disabled_and_walls_added),
        cmocka_unit_test(test_hash_is_stable_and_changes_with_a_width),
        cmocka_unit_test(test_error_self_intersection_names_the_point),
        cmocka_unit_test(test_error_zero_length_segment),
        cmocka_unit_test(test_error_width_must_be_positive),
        cmocka_unit_test(test_error_edges_cross_where_the_track_comes_too_close),
        cmocka_unit_test(test_error_length_must_match),
        cmocka_unit_test(test_error_line_not_crossing_the_track),
        cmocka_unit_test(test_error_lines_out_of_order),
        cmocka_unit_test(test_error_unknown_key),
        cmocka_unit_test(test_error_grid_slot_off_the_track),
        cmocka_unit_test(test_error_walls_and_zones_are_checked),
        cmocka_unit_test(test_error_header_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
