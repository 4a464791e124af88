/*
 * Importing racetrack-database CSVs (physics/tools/track_import.c): a tiny
 * circuit written by the test itself (so this test never skips entirely),
 * CSV errors with line numbers, and the real Monza and Silverstone files
 * from ../shared/data/tracks when present (RS_SHARED_DIR; skipped cleanly
 * otherwise; the project itself never contains them). Every import must
 * load with rs_track_load and keep the CSV's geometry.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Before cmocka.h, whose fail() is a macro. */
#include "json.h"
#include "track_import.h"

#include <cmocka.h>

#include "detmath.h"
#include "racesim/track.h"
#include "test_assert.h"
#include "test_fixtures.h"

/* A circle of radius r, n points, in the database's format: '#' header,
 * some CRLF line endings, and the first point repeated at the end. */
static char *circle_csv(double r, int n, double wr, double wl, double *length)
{
    size_t cap = 80 * (size_t)n + 256;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t k = (size_t)snprintf(buf, cap, "# x_m,y_m,w_tr_right_m,w_tr_left_m\n");
    double len = 0.0, px = 0.0, py = 0.0;
    for (int i = 0; i <= n; i++) {
        double s, c;
        rs_sincos(RS_TWO_PI * (i % n) / n, &s, &c);
        double x = r * c, y = r * s;
        char xs[32], ys[32];
        rs_json_format_number(x, xs);
        rs_json_format_number(y, ys);
        /* What the importer reads back is exactly the printed value. */
        x = strtod(xs, NULL), y = strtod(ys, NULL);
        if (i)
            len += rs_sqrt((x - px) * (x - px) + (y - py) * (y - py));
        px = x, py = y;
        k += (size_t)snprintf(buf + k, cap - k, "%s,%s,%g,%g%s", xs, ys, wr, wl,
                              i % 3 == 0 ? "\r\n" : "\n");
    }
    assert_true(k < cap);
    *length = len;
    return buf;
}

static rs_track *parse_json(const char *json)
{
    char err[512];
    rs_track *t = NULL;
    rs_status st = rs_track_parse(json, strlen(json), "imported.json", &t, err, sizeof err);
    if (st != RS_OK)
        print_error("%s\n", err);
    assert_int_equal(st, RS_OK);
    return t;
}

static void test_a_small_csv_imports_into_a_valid_track(void **state)
{
    (void)state;
    double length = 0.0;
    char *csv = circle_csv(80.0, 100, 5.0, 6.0, &length);
    char *json = NULL;
    char err[512];
    rs_status st = rs_track_import_csv(csv, strlen(csv), "/some/dir/Tiny_track.csv", NULL, &json,
                                       err, sizeof err);
    if (st != RS_OK)
        print_error("%s\n", err);
    assert_int_equal(st, RS_OK);
    assert_non_null(json);
    rs_track *t = parse_json(json);
    assert_string_equal(rs_track_name(t), "Tiny");
    assert_int_equal(rs_track_point_count(t), 100); /* the repeated point dropped */
    assert_float_equal(rs_track_length(t), length, 1e-9 * length);
    rs_track_point p;
    assert_true(rs_track_point_at(t, 0, &p));
    assert_float_equal(p.x_m, 80.0, 0.0);
    assert_float_equal(p.width_right_m, 5.0, 0.0);
    assert_float_equal(p.width_left_m, 6.0, 0.0);
    /* Start at the first point, sectors at thirds. */
    assert_int_equal(rs_track_line_count(t), 3);
    rs_track_line l;
    assert_true(rs_track_line_at(t, 0, &l));
    assert_float_equal(l.s_m, 0.0, 1e-9);
    assert_true(rs_track_line_at(t, 1, &l));
    assert_float_equal(l.s_m, length / 3.0, 0.1);
    assert_true(rs_track_line_at(t, 2, &l));
    assert_float_equal(l.s_m, 2.0 * length / 3.0, 0.1);
    /* A full grid behind the line, every slot on the asphalt, heading round. */
    assert_int_equal(rs_track_grid_count(t), 24);
    for (uint32_t i = 0; i < 24; i++) {
        rs_car_spawn sp;
        assert_true(rs_track_grid_slot(t, i, &sp));
        rs_ground_hit h;
        rs_track_ground(t, sp.pos_m[0], sp.pos_m[1], &h);
        assert_int_equal(h.surface, RS_SURFACE_ASPHALT);
        rs_track_location loc;
        assert_true(rs_track_locate(t, sp.pos_m[0], sp.pos_m[1], &loc));
        double behind = length - loc.s_m;
        assert_float_equal(behind, 10.0 + 4.0 * i, 0.5);
        assert_true(i % 2 == 0 ? loc.offset_m > 2.0 : loc.offset_m < -2.0); /* two columns */
    }
    /* A radius of 80 m is under the 100 m kerb rule: kerbs all round. */
    rs_ground_hit h;
    rs_track_ground(t, 80.0 + 5.5, 0.0, &h); /* outside, right of the line */
    assert_int_equal(h.surface, RS_SURFACE_KERB);
    rs_track_ground(t, 80.0 - 6.5, 0.0, &h); /* inside, left */
    assert_int_equal(h.surface, RS_SURFACE_KERB);
    rs_track_ground(t, 80.0 + 7.0, 0.0, &h);
    assert_int_equal(h.surface, RS_SURFACE_GRASS);
    assert_int_equal(rs_track_barrier_count(t), 2);
    rs_track_destroy(t);
    free(json);
    free(csv);
}

static void test_import_options_name_kerbs_and_grid(void **state)
{
    (void)state;
    double length = 0.0;
    char *csv = circle_csv(300.0, 400, 6.0, 6.0, &length);
    rs_track_import_options o = rs_track_import_default();
    o.name = "Big circle";
    o.max_grid = 6;
    o.barrier_offset_m = 8.0;
    char *json = NULL;
    char err[512];
    assert_int_equal(rs_track_import_csv(csv, strlen(csv), "c.csv", &o, &json, err, sizeof err),
                     RS_OK);
    rs_track *t = parse_json(json);
    assert_string_equal(rs_track_name(t), "Big circle");
    assert_int_equal(rs_track_grid_count(t), 6);
    assert_non_null(strstr(json, "\"offset_left_m\": 8"));
    /* R = 300 m: no kerbs. */
    rs_ground_hit h;
    rs_track_ground(t, 300.0 + 6.5, 0.0, &h);
    assert_int_equal(h.surface, RS_SURFACE_GRASS);
    rs_track_destroy(t);
    free(json);
    free(csv);
}

static void test_csv_errors_name_the_line(void **state)
{
    (void)state;
    const char *cases[][2] = {
        {"# x_m,y_m,w_tr_right_m,w_tr_left_m\n0,0,5,5\n100,0,5\n", "bad.csv:3: expected 4 numbers"},
        {"0,0,5,5\n100,0,5,5,7\n", "bad.csv:2: expected 4 numbers"},
        {"0,0,5,5\n100,zero,5,5\n", "bad.csv:2: expected 4 numbers"},
        {"0,0,5,5\n100,0,5,5\n", "bad.csv: needs at least 3 distinct points, found 2"},
        {"", "bad.csv: needs at least 3 distinct points, found 0"},
        {"x_m,y_m,w_tr_right_m,w_tr_left_m\n0,0,5,5\n100,0,5,5\n100,100,5,5\n0,100,-5,5\n",
         "bad.csv (imported): centre_line[3][2]: width -5 must be > 0"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *json = (char *)(uintptr_t)1;
        char err[512];
        rs_status st = rs_track_import_csv(cases[k][0], strlen(cases[k][0]), "bad.csv", NULL,
                                           &json, err, sizeof err);
        assert_fails_naming(st, err, cases[k][1]);
        assert_null(json);
    }
}

/* ------------------------------------------------------- the real circuits */

/* The closed polyline length of a database CSV, read independently of the
 * importer, and its number of points. */
static double csv_length(const char *path, uint32_t *points)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char line[256];
    double x0 = 0.0, y0 = 0.0, px = 0.0, py = 0.0, len = 0.0;
    uint32_t n = 0;
    while (fgets(line, sizeof line, f)) {
        double x, y, wr, wl;
        if (line[0] == '#' || sscanf(line, "%lf,%lf,%lf,%lf", &x, &y, &wr, &wl) != 4)
            continue;
        if (n)
            len += rs_sqrt((x - px) * (x - px) + (y - py) * (y - py));
        else
            x0 = x, y0 = y;
        px = x, py = y;
        n++;
    }
    fclose(f);
    len += rs_sqrt((x0 - px) * (x0 - px) + (y0 - py) * (y0 - py));
    *points = n;
    return len;
}

static void import_real(const char *rel, const char *name, double km_lo, double km_hi)
{
    char csv[1024];
    fixture_shared_file(csv, sizeof csv, rel);
    char dir[] = "/tmp/rs_test_track_import_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out[1100];
    snprintf(out, sizeof out, "%s/%s.json", dir, name);
    char err[640];
    rs_status st = rs_track_import_file(csv, out, NULL, err, sizeof err);
    if (st != RS_OK)
        print_error("%s\n", err);
    assert_int_equal(st, RS_OK);
    rs_track *t = NULL;
    st = rs_track_load(out, &t, err, sizeof err);
    if (st != RS_OK)
        print_error("%s\n", err);
    assert_int_equal(st, RS_OK);
    remove(out);
    rmdir(dir);

    uint32_t points = 0;
    double len = csv_length(csv, &points);
    assert_string_equal(rs_track_name(t), name);
    assert_int_equal(rs_track_point_count(t), points);
    assert_float_equal(rs_track_length(t), len, 1e-6 * len);
    assert_true(rs_track_length(t) > 1000.0 * km_lo && rs_track_length(t) < 1000.0 * km_hi);
    assert_int_equal(rs_track_line_count(t), 3);
    assert_int_equal(rs_track_grid_count(t), 24);
    assert_true(rs_track_barrier_count(t) >= 1);
    /* The whole centre line is asphalt inside the limits, and locating
     * each point gives back its station. */
    for (uint32_t i = 0; i < points; i++) {
        rs_track_point p;
        assert_true(rs_track_point_at(t, i, &p));
        rs_track_location loc;
        assert_true(rs_track_locate(t, p.x_m, p.y_m, &loc));
        assert_int_equal(loc.surface, RS_SURFACE_ASPHALT);
        assert_true(loc.inside_limits);
        assert_float_equal(rs_abs(loc.offset_m), 0.0, 1e-9);
    }
    for (uint32_t i = 0; i < rs_track_grid_count(t); i++) {
        rs_car_spawn sp;
        assert_true(rs_track_grid_slot(t, i, &sp));
        rs_ground_hit h;
        rs_track_ground(t, sp.pos_m[0], sp.pos_m[1], &h);
        assert_true(h.inside_limits);
    }
    /* Curvature stays physical: no corner tighter than a 10 m radius. */
    for (double s = 0.0; s < rs_track_length(t); s += 2.0) {
        rs_track_sample sm;
        rs_track_sample_at(t, s, &sm);
        assert_true(rs_abs(sm.curvature_1_m) < 0.1);
    }
    rs_track_destroy(t);
}

static void test_monza_imports_and_loads(void **state)
{
    (void)state;
    import_real("data/tracks/Monza_track.csv", "Monza", 5.7, 5.9);
}

static void test_silverstone_imports_and_loads(void **state)
{
    (void)state;
    import_real("data/tracks/Silverstone_track.csv", "Silverstone", 5.8, 6.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_small_csv_imports_into_a_valid_track),
        cmocka_unit_test(test_import_options_name_kerbs_and_grid),
        cmocka_unit_test(test_csv_errors_name_the_line),
        cmocka_unit_test(test_monza_imports_and_loads),
        cmocka_unit_test(test_silverstone_imports_and_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
