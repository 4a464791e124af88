/*
 * The library pieces behind the racesim command: scenario files (errors name
 * the field, the step program carries controls over, a replay is
 * reproducible) and the determinism trace format that
 * tests/determinism/cross_check.sh parses.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scenario.h"
#include "test_data.h"

/* Parses text that must fail; checks the message names `field`. */
static void expect_error(const char *text, rs_status want, const char *field)
{
    rs_scenario *sc = (rs_scenario *)(uintptr_t)1;
    char err[512] = "";
    rs_status st = rs_scenario_parse(text, strlen(text), "s.json", NULL, &sc, err, sizeof err);
    print_message("  %s\n", err);
    assert_int_equal(st, want);
    assert_null(sc);
    assert_non_null(strstr(err, "s.json"));
    assert_non_null(strstr(err, field));
}

#define CAR_HEAD "{\"duration_s\": 2, \"cars\": [{\"car\": \"c.json\", "

static void test_scenario_errors_name_the_offending_field(void **state)
{
    (void)state;
    expect_error(CAR_HEAD "\"inputs\": [{\"t_s\": 0}, {\"t_s\": 1, \"throttle\": 1.5}]}]}",
                 RS_ERR_RANGE, "cars[0].inputs[1].throttle");
    expect_error(CAR_HEAD "\"spawn\": {\"yawn\": 1}, \"inputs\": []}]}", RS_ERR_PARSE,
                 "cars[0].spawn.yawn");
    expect_error(CAR_HEAD "\"spawn\": {\"transmission\": \"cvt\"}, \"inputs\": []}]}",
                 RS_ERR_RANGE, "cars[0].spawn.transmission");
    expect_error(CAR_HEAD "\"inputs\": [{\"t_s\": 1}, {\"t_s\": 1}]}]}", RS_ERR_RANGE,
                 "cars[0].inputs[1].t_s");
    expect_error(CAR_HEAD "\"inputs\": [{\"t_s\": 3}]}]}", RS_ERR_RANGE, "cars[0].inputs[0].t_s");
    expect_error(CAR_HEAD "\"inputs\": [{\"t_s\": 0, \"gear\": \"drive\"}]}]}", RS_ERR_RANGE,
                 "cars[0].inputs[0].gear");
    expect_error(CAR_HEAD "\"inputs\": [{\"t_s\": 0, \"shift\": \"sideways\"}]}]}", RS_ERR_RANGE,
                 "cars[0].inputs[0].shift");
    expect_error("{\"duration_s\": 2, \"cars\": [{\"spawn\": {}, \"inputs\": []}]}", RS_ERR_MISSING,
                 "cars[0].car");
    expect_error("{\"cars\": [{\"car\": \"c.json\", \"inputs\": []}]}", RS_ERR_MISSING, "duration_s");
    expect_error("{\"duration_s\": 2, \"tick_hz\": 0, \"cars\": []}", RS_ERR_RANGE, "tick_hz");
    expect_error("{\"duration_s\": 2, \"cars\": []}", RS_ERR_RANGE, "cars");
    expect_error("{\"duration_s\": 2, \"cars\": [], }", RS_ERR_PARSE, "1:");
}

static void test_step_program_carries_unnamed_controls_over(void **state)
{
    static const char text[] =
        "{\"tick_hz\": 10, \"duration_s\": 5, \"cars\": [{\"car\": \"c.json\", \"inputs\": ["
        "{\"t_s\": 0.5, \"throttle\": 1, \"steer\": -0.5},"
        "{\"t_s\": 1.0, \"brake\": 0.5, \"gear\": 2},"
        "{\"t_s\": 2.0, \"throttle\": 0, \"shift\": \"up\"},"
        "{\"t_s\": 3.0, \"gear\": \"keep\"}]}]}";
    rs_scenario *sc = NULL;
    char err[256];
    (void)state;
    assert_int_equal(rs_scenario_parse(text, strlen(text), "s.json", "/base", &sc, err, sizeof err),
                     RS_OK);
    assert_int_equal(rs_scenario_ticks(sc), 50);
    assert_string_equal(rs_scenario_car_path(sc, 0), "/base/c.json");

    rs_input in = rs_scenario_input(sc, 0, 4); /* 0.4 s: before the first step */
    assert_int_equal(in.throttle, 0);
    assert_int_equal(in.gear, RS_GEAR_KEEP);
    in = rs_scenario_input(sc, 0, 5); /* 0.5 s */
    assert_int_equal(in.throttle, RS_PEDAL_MAX);
    assert_int_equal(in.steer, rs_input_quantise(-0.5, 0, 0, 0, 0).steer);
    in = rs_scenario_input(sc, 0, 15); /* 1.5 s: throttle and steer carried over */
    assert_int_equal(in.throttle, RS_PEDAL_MAX);
    assert_int_equal(in.steer, rs_input_quantise(-0.5, 0, 0, 0, 0).steer);
    assert_int_equal(in.brake, rs_input_quantise(0, 0, 0.5, 0, 0).brake);
    assert_int_equal(in.gear, 2);
    assert_int_equal(in.buttons, 0);
    in = rs_scenario_input(sc, 0, 20); /* 2.0 s: the shift button, on this tick only */
    assert_int_equal(in.throttle, 0);
    assert_int_equal(in.buttons, RS_BUTTON_SHIFT_UP);
    assert_int_equal(in.gear, 2);
    in = rs_scenario_input(sc, 0, 21);
    assert_int_equal(in.buttons, 0);
    in = rs_scenario_input(sc, 0, 49);
    assert_int_equal(in.gear, RS_GEAR_KEEP);
    assert_int_equal(in.brake, rs_input_quantise(0, 0, 0.5, 0, 0).brake);
    rs_scenario_destroy(sc);
}

static rs_scenario *two_car_scenario(void)
{
    static const char text[] =
        "{\"duration_s\": 3, \"cars\": ["
        "{\"car\": \"cars/c5.json\", \"spawn\": {\"gear\": 1},"
        " \"inputs\": [{\"t_s\": 0, \"throttle\": 1, \"steer\": 0.1}, {\"t_s\": 2, \"brake\": 1}]},"
        "{\"car\": \"cars/formula.json\", \"spawn\": {\"y\": 10, \"speed\": 10, \"gear\": 2,"
        " \"transmission\": \"manual\"},"
        " \"inputs\": [{\"t_s\": 0, \"throttle\": 0.6}, {\"t_s\": 1, \"shift\": \"up\"}]}]}";
    rs_scenario *sc = NULL;
    char err[512];
    rs_status st = rs_scenario_parse(text, strlen(text), "inline.json", test_data_dir(), &sc, err,
                                     sizeof err);
    if (st != RS_OK)
        print_message("%s\n", err);
    assert_int_equal(st, RS_OK);
    return sc;
}

static void test_a_scenario_run_twice_gives_the_same_hash(void **state)
{
    rs_scenario *sc = two_car_scenario();
    uint64_t h1 = 0, h2 = 1;
    char err[512];
    (void)state;
    assert_int_equal(rs_scenario_run(sc, NULL, &h1, err, sizeof err), RS_OK);
    assert_int_equal(rs_scenario_run(sc, NULL, &h2, err, sizeof err), RS_OK);
    assert_true(h1 == h2);
    assert_true(h1 != 0);
    rs_scenario_destroy(sc);
}

static void test_a_missing_car_file_is_named_in_the_error(void **state)
{
    static const char text[] =
        "{\"duration_s\": 1, \"cars\": [{\"car\": \"no/such/car.json\", \"inputs\": []}]}";
    rs_scenario *sc = NULL;
    char err[512];
    uint64_t h;
    (void)state;
    assert_int_equal(rs_scenario_parse(text, strlen(text), "s.json", NULL, &sc, err, sizeof err), RS_OK);
    assert_int_not_equal(rs_scenario_run(sc, NULL, &h, err, sizeof err), RS_OK);
    print_message("  %s\n", err);
    assert_non_null(strstr(err, "no/such/car.json"));
    rs_scenario_destroy(sc);
}

static void test_telemetry_has_a_header_and_one_row_per_car_per_tick(void **state)
{
    rs_scenario *sc = two_car_scenario();
    FILE *f = tmpfile();
    char err[512], line[4096];
    uint64_t h;
    rs_scenario_output out = {f, NULL};
    (void)state;
    assert_non_null(f);
    assert_int_equal(rs_scenario_run(sc, &out, &h, err, sizeof err), RS_OK);
    rewind(f);
    assert_non_null(fgets(line, sizeof line, f));
    line[strcspn(line, "\n")] = '\0';
    assert_string_equal(line, rs_scenario_csv_header());
    size_t header_cols = 1;
    for (const char *p = line; *p; p++)
        header_cols += *p == ',';
    uint64_t rows = 0;
    while (fgets(line, sizeof line, f)) {
        size_t cols = 1;
        for (const char *p = line; *p; p++)
            cols += *p == ',';
        assert_int_equal(cols, header_cols);
        rows++;
    }
    assert_int_equal(rows, rs_scenario_ticks(sc) * rs_scenario_car_count(sc));
    fclose(f);
    rs_scenario_destroy(sc);
}

/* The trace lines of one tick: "<tick> <car> <16 hex>" per car, then
 * "<tick> world <16 hex>". */
static void test_trace_lines_give_tick_car_and_hash_in_the_agreed_format(void **state)
{
    rs_world *w = NULL;
    rs_car_params *p = NULL;
    char path[1024], err[512];
    rs_world_def def = rs_world_default();
    (void)state;
    snprintf(path, sizeof path, "%s/cars/c5.json", test_data_dir());
    assert_int_equal(rs_car_params_load(path, &p, err, sizeof err), RS_OK);
    def.max_cars = 2;
    assert_int_equal(rs_world_create(&def, &w), RS_OK);
    for (int i = 0; i < 2; i++) {
        rs_car_spawn sp = rs_car_spawn_default();
        sp.pos_m[1] = 10.0 * i;
        sp.speed_m_s = 5.0 * i;
        assert_int_equal(rs_world_add_car(w, p, &sp, NULL), RS_OK);
    }
    for (int t = 0; t < 3; t++)
        assert_int_equal(rs_world_step(w), RS_OK);

    size_t need = rs_trace_format(w, NULL, 0);
    char small[8] = "x";
    assert_int_equal(rs_trace_format(w, small, sizeof small), need); /* too small: nothing written */
    assert_int_equal(small[0], 'x');
    char buf[512];
    assert_int_equal(rs_trace_format(w, buf, sizeof buf), need);
    assert_int_equal(strlen(buf), need);

    char expect[512];
    snprintf(expect, sizeof expect,
             "3 0 %016" PRIx64 "\n3 1 %016" PRIx64 "\n3 world %016" PRIx64 "\n",
             rs_world_car_hash(w, (rs_car_id){1}), rs_world_car_hash(w, (rs_car_id){2}),
             rs_world_hash(w));
    assert_string_equal(buf, expect);
    assert_true(rs_world_car_hash(w, (rs_car_id){1}) != rs_world_car_hash(w, (rs_car_id){2}));

    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(rs_trace_write(f, w), 0);
    rewind(f);
    char back[512] = "";
    size_t n = fread(back, 1, sizeof back - 1, f);
    back[n] = '\0';
    assert_string_equal(back, expect);
    fclose(f);

    char line[32];
    rs_hash_line(0x0123456789abcdefull, line);
    assert_string_equal(line, "hash=0123456789abcdef");
    rs_hash_line(rs_world_hash(w), line);
    assert_int_equal(strlen(line), 21);

    rs_world_destroy(w);
    rs_car_params_destroy(p);
}

static void test_the_example_scenarios_parse(void **state)
{
    static const char *names[] = {"drag_race.json", "lane_change.json", "manual_shifts.json"};
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1024], err[512];
        rs_scenario *sc = NULL;
        snprintf(path, sizeof path, "%s/../examples/scenarios/%s", test_data_dir(), names[i]);
        rs_status st = rs_scenario_load(path, &sc, err, sizeof err);
        if (st != RS_OK)
            print_message("%s\n", err);
        assert_int_equal(st, RS_OK);
        assert_true(rs_scenario_car_count(sc) >= 1);
        rs_scenario_destroy(sc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenario_errors_name_the_offending_field),
        cmocka_unit_test(test_step_program_carries_unnamed_controls_over),
        cmocka_unit_test(test_a_scenario_run_twice_gives_the_same_hash),
        cmocka_unit_test(test_a_missing_car_file_is_named_in_the_error),
        cmocka_unit_test(test_telemetry_has_a_header_and_one_row_per_car_per_tick),
        cmocka_unit_test(test_trace_lines_give_tick_car_and_hash_in_the_agreed_format),
        cmocka_unit_test(test_the_example_scenarios_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
