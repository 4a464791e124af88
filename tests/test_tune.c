/*
 * Car tunes: a legal tune changes the car (and how it drives), an illegal
 * one is rejected whole with every bad field and its range named, the tune
 * hash ignores how the JSON was written, and a car without an "adjustable"
 * section accepts only the stock tune.
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

#include <cmocka.h>

#include "racesim/physics.h"
#include "racesim/base/file.h"
#include "racesim/tune.h"
#include "test_fixtures.h"

static rs_status apply(const rs_car_params *base, const char *json, rs_car_params **out,
                       uint64_t *hash, char *err, size_t err_len)
{
    return rs_tune_apply(base, json, strlen(json), "tune.json", out, hash, err, err_len);
}

/* Top speed-ish: full throttle in top gear from 40 m/s for 10 s, flat plane. */
static double speed_after_run(const rs_car_params *car)
{
    rs_car_spawn sp = rs_car_spawn_default();
    sp.speed_m_s = 40.0;
    sp.gear = 4;
    return fixture_drive_alone(car, &sp, rs_input_quantise(0.0, 1.0, 0.0, 0.0, 0.0), 600)
        .speed_m_s;
}

/* Height of the centre of mass after 3 s parked on the flat plane. */
static double parked_height(const rs_car_params *car)
{
    rs_car_spawn sp = rs_car_spawn_default();
    return fixture_drive_alone(car, &sp, rs_input_quantise(0.0, 0.0, 1.0, 0.0, 0.0), 180)
        .pos_m[2];
}

/* The ride-height offset raises (or lowers) the parked car by that much:
 * the body moves on its perches, the springs carry the same load. */
static void test_ride_height_offset_moves_the_parked_car(void **state)
{
    const fixture_shipped *shipped = *state;
    rs_car_params *up = NULL, *down = NULL;
    char err[512];
    uint64_t h;
    const rs_car_params *c5 = shipped->c5;
    assert_int_equal(apply(c5, "{\"suspension\": {\"ride_height_offset_m\": 0.03}}", &up, &h,
                           err, sizeof err),
                     RS_OK);
    assert_int_equal(apply(c5, "{\"suspension\": {\"ride_height_offset_m\": -0.02}}", &down,
                           &h, err, sizeof err),
                     RS_OK);
    double z0 = parked_height(c5), zu = parked_height(up), zd = parked_height(down);
    print_message("parked centre of mass: stock %.4f m, +0.03: %.4f m, -0.02: %.4f m\n", z0, zu,
                  zd);
    assert_true(zu - z0 > 0.029 && zu - z0 < 0.031);
    assert_true(z0 - zd > 0.019 && z0 - zd < 0.021);
    /* Outside the car's range: named with the range. */
    rs_car_params *bad = NULL;
    assert_int_not_equal(apply(c5, "{\"suspension\": {\"ride_height_offset_m\": 0.06}}", &bad,
                               &h, err, sizeof err),
                         RS_OK);
    assert_non_null(strstr(err, "suspension.ride_height_offset_m"));
    assert_null(bad);
    rs_car_params_destroy(up);
    rs_car_params_destroy(down);
}

static void test_a_legal_tune_changes_the_car_and_how_it_drives(void **state)
{
    const fixture_shipped *shipped = *state;
    const char *tune = "{\"format\":\"racesim-tune\",\"version\":1,"
                       "\"gearbox\":{\"final_drive\":4.1,\"ratios\":[3.0,2.0,1.5,1.2,0.9,0.7]},"
                       "\"brakes\":{\"bias_front\":0.6},"
                       "\"axles\":{\"front\":{\"spring_n_m\":40000},\"rear\":{\"arb_n_m\":5000}},"
                       "\"aero\":{\"downforce_rear_cl_a_m2\":0.25}}";
    rs_car_params *tuned = NULL;
    uint64_t hash = 0;
    char err[1024];
    assert_int_equal(apply(shipped->c5, tune, &tuned, &hash, err, sizeof err), RS_OK);
    assert_non_null(tuned);
    assert_true(hash != 0);
    assert_true(rs_car_params_hash(tuned) != rs_car_params_hash(shipped->c5));
    assert_int_equal(rs_tune_adjustable_count(tuned), rs_tune_adjustable_count(shipped->c5));
    double v0 = speed_after_run(shipped->c5), v1 = speed_after_run(tuned);
    print_message("speed after 10 s in 4th: stock %.2f m/s, tuned %.2f m/s\n", v0, v1);
    assert_true(v0 != v1);
    /* A tuned car can be tuned again (it keeps the rules) and the block it
     * sends to clients rebuilds the same car. */
    rs_car_params *copy = fixture_car_via_block(tuned);
    assert_true(rs_car_params_hash(copy) == rs_car_params_hash(tuned));
    rs_car_params_destroy(copy);
    rs_car_params_destroy(tuned);
}

static void test_every_illegal_field_is_named_with_its_range(void **state)
{
    const fixture_shipped *shipped = *state;
    rs_car_params *tuned = NULL;
    uint64_t hash = 123;
    char err[2048];
    const char *tune = "{\"gearbox\":{\"final_drive\":9,\"ratios\":[3.0,2.0,0.1,1.2,1.3,0.7]},"
                       "\"brakes\":{\"bias_front\":0.9},"
                       "\"axles\":{\"front\":{\"spring_n_m\":\"soft\",\"ride_height_m\":0.1}},"
                       "\"aero\":{\"downforce_front_cl_a_m2\":1}}";
    rs_status st = apply(shipped->c5, tune, &tuned, &hash, err, sizeof err);
    print_message("%s\n", err);
    assert_int_not_equal(st, RS_OK);
    assert_null(tuned);
    assert_true(hash == 0);
    assert_non_null(strstr(err, "tune.json: "));
    assert_non_null(strstr(err, "gearbox.final_drive: 9 outside 2.8..4.1"));
    assert_non_null(strstr(err, "gearbox.ratios[2]: 0.1 outside 0.45..3.2"));
    assert_non_null(strstr(err, "gearbox.ratios[4]: 1.3 not below the previous gear's 1.2"));
    assert_non_null(strstr(err, "brakes.bias_front: 0.9 outside 0.52..0.72"));
    assert_non_null(strstr(err, "axles.front.spring_n_m: expected a number"));
    assert_non_null(strstr(err, "axles.front.ride_height_m: unknown field"));
    assert_non_null(strstr(err, "aero.downforce_front_cl_a_m2: not adjustable on this car"));

    /* Structure: the ratio count must match the gearbox; a tune for another
     * car is refused. */
    assert_int_equal(apply(shipped->c5, "{\"gearbox\":{\"ratios\":[3,2,1]}}", &tuned, NULL,
                           err, sizeof err),
                     RS_ERR_RANGE);
    assert_non_null(strstr(err, "gearbox.ratios: 3 ratios, this car has 6 forward gears"));
    assert_int_equal(apply(shipped->c5, "{\"car\":\"0123456789abcdef\"}", &tuned, NULL, err,
                           sizeof err),
                     RS_ERR_MISMATCH);
    /* A small buffer still gets a terminated, marked-as-cut message. */
    char small[40];
    assert_int_not_equal(apply(shipped->c5, tune, &tuned, NULL, small, sizeof small), RS_OK);
    assert_true(strlen(small) < sizeof small);
    assert_non_null(strstr(small, "..."));
    assert_null(tuned);
}

static void test_the_hash_ignores_key_order_and_number_spelling(void **state)
{
    const fixture_shipped *shipped = *state;
    const char *a = "{\"gearbox\":{\"final_drive\":4.2},\"axles\":{\"rear\":{\"spring_n_m\":"
                    "200000},\"front\":{\"camber_rad\":-0.05}}}";
    const char *b = "{ \"axles\" : { \"front\" : { \"camber_rad\" : -5e-2 }, \"rear\": "
                    "{\"spring_n_m\": 2.0E5}},\n \"version\": 1, \"gearbox\": {\"final_drive\": "
                    "4.20}}";
    const char *c = "{\"gearbox\":{\"final_drive\":4.3}}";
    rs_car_params *ta = NULL, *tb = NULL, *tc = NULL, *stock = NULL;
    uint64_t ha = 0, hb = 0, hc = 0, hs = 99;
    char err[512];
    assert_int_equal(apply(shipped->formula, a, &ta, &ha, err, sizeof err), RS_OK);
    assert_int_equal(apply(shipped->formula, b, &tb, &hb, err, sizeof err), RS_OK);
    assert_int_equal(apply(shipped->formula, c, &tc, &hc, err, sizeof err), RS_OK);
    assert_true(ha != 0 && ha == hb && ha != hc);
    assert_true(rs_car_params_hash(ta) == rs_car_params_hash(tb));
    assert_true(rs_car_params_hash(ta) != rs_car_params_hash(tc));
    /* The empty tune is the stock car, hash 0. */
    assert_int_equal(apply(shipped->formula, "{ }", &stock, &hs, err, sizeof err), RS_OK);
    assert_true(hs == 0);
    assert_true(rs_car_params_hash(stock) == rs_car_params_hash(shipped->formula));
    rs_car_params_destroy(ta);
    rs_car_params_destroy(tb);
    rs_car_params_destroy(tc);
    rs_car_params_destroy(stock);
}

static void test_a_car_without_rules_accepts_only_the_stock_tune(void **state)
{
    const fixture_shipped *shipped = *state;
    /* A car rebuilt from its block carries no rules. */
    rs_car_params *bare = fixture_car_via_block(shipped->c5);
    char err[1024];
    assert_int_equal(rs_tune_adjustable_count(bare), 0);
    assert_true(rs_car_params_hash(bare) == rs_car_params_hash(shipped->c5));
    rs_car_params *t = NULL;
    assert_int_equal(apply(bare, "{\"gearbox\":{\"final_drive\":3.5},\"brakes\":{\"bias_front\":"
                                 "0.6}}",
                           &t, NULL, err, sizeof err),
                     RS_ERR_RANGE);
    assert_null(t);
    assert_non_null(strstr(err, "gearbox.final_drive: not adjustable on this car"));
    assert_non_null(strstr(err, "brakes.bias_front: not adjustable on this car"));
    uint64_t h = 5;
    assert_int_equal(apply(bare, "{}", &t, &h, err, sizeof err), RS_OK);
    assert_true(h == 0);
    rs_car_params_destroy(t);
    rs_car_params_destroy(bare);
}

/* Loads c5.json with one substitution (tyre paths made absolute, so the
 * copy can live in a temporary directory); returns the status, err the
 * message. */
static rs_status load_edited_c5(const char *from, const char *to, char *err, size_t err_len,
                                uint64_t *hash)
{
    char path[1024], tmpl[] = "/tmp/rs_tune_XXXXXX";
    snprintf(path, sizeof path, "%s/cars/c5.json", test_data_dir());
    char *text = NULL; /* room to spare in edited for the longer tyre paths */
    assert_int_equal(rs_file_read(path, 65536, &text, NULL, NULL, 0), RS_FILE_OK);
    static char edited[70000];
    /* Replace every "../tyres/" and the one occurrence of from. */
    char *o = edited;
    const char *end = edited + sizeof edited - 1;
    bool replaced = false;
    for (const char *p = text; *p;) {
        if (strncmp(p, "../tyres/", 9) == 0) {
            o += snprintf(o, (size_t)(end - o), "%s/tyres/", test_data_dir());
            p += 9;
        } else if (!replaced && strncmp(p, from, strlen(from)) == 0) {
            o += snprintf(o, (size_t)(end - o), "%s", to);
            p += strlen(from);
            replaced = true;
        } else if (o < end) {
            *o++ = *p++;
        }
    }
    *o = 0;
    free(text);
    assert_true(replaced);
    assert_non_null(mkdtemp(tmpl));
    char file[1100];
    snprintf(file, sizeof file, "%s/car.json", tmpl);
    FILE *f = fopen(file, "wb");
    assert_non_null(f);
    fputs(edited, f);
    fclose(f);
    rs_car_params *p = NULL;
    rs_status st = rs_car_params_load(file, &p, err, err_len);
    if (p && hash)
        *hash = rs_car_params_hash(p);
    rs_car_params_destroy(p);
    remove(file);
    rmdir(tmpl);
    return st;
}

static void test_bad_adjustable_ranges_are_refused_when_the_car_loads(void **state)
{
    const fixture_shipped *shipped = *state;
    char err[1024];
    assert_int_equal(load_edited_c5("\"final_drive\": [2.8, 4.1]", "\"final_drive\": [3.5, 4.1]",
                                    err, sizeof err, NULL),
                     RS_ERR_RANGE);
    assert_non_null(strstr(err, "adjustable.gearbox.final_drive: [3.5, 4.1] does not contain the "
                                "stock value 3.42"));
    assert_int_equal(load_edited_c5("\"final_drive\": [2.8, 4.1]", "\"final_drive\": [0.1, 4.1]",
                                    err, sizeof err, NULL),
                     RS_ERR_RANGE);
    assert_non_null(strstr(err, "not inside the model's limits 0.5..20"));
    assert_int_equal(load_edited_c5("\"bias_front\"", "\"bias_rear\"", err, sizeof err, NULL),
                     RS_ERR_PARSE);
    assert_non_null(strstr(err, "adjustable.brakes.bias_rear: unknown field"));
    /* The rules are not part of the car: the stock hash is unchanged by them. */
    uint64_t h = 0;
    assert_int_equal(load_edited_c5("\"aero\": { \"downforce_rear_cl_a_m2\": [0, 0.3] }",
                                    "\"aero\": { \"downforce_rear_cl_a_m2\": [0, 0.5] }", err,
                                    sizeof err, &h),
                     RS_OK);
    assert_true(h == rs_car_params_hash(shipped->c5));
}

static void test_the_rules_are_listed_as_json(void **state)
{
    const fixture_shipped *shipped = *state;
    size_t n = rs_tune_rules_json(shipped->c5, NULL, 0);
    char *buf = malloc(n + 1);
    assert_non_null(buf);
    char tiny[8] = "x";
    assert_int_equal(rs_tune_rules_json(shipped->c5, tiny, sizeof tiny), n);
    assert_string_equal(tiny, "x"); /* too small: untouched */
    assert_int_equal(rs_tune_rules_json(shipped->c5, buf, n + 1), n);
    assert_int_equal(strlen(buf), n);
    assert_non_null(strstr(buf, "{\"field\":\"gearbox.final_drive\",\"min\":2.8,\"max\":4.1,"
                                "\"stock\":3.42}"));
    assert_non_null(strstr(buf, "\"stock\":[2.66,1.78,1.3,1,0.74,0.5]"));
    assert_null(strstr(buf, "downforce_front"));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_legal_tune_changes_the_car_and_how_it_drives),
        cmocka_unit_test(test_every_illegal_field_is_named_with_its_range),
        cmocka_unit_test(test_the_hash_ignores_key_order_and_number_spelling),
        cmocka_unit_test(test_a_car_without_rules_accepts_only_the_stock_tune),
        cmocka_unit_test(test_bad_adjustable_ranges_are_refused_when_the_car_loads),
        cmocka_unit_test(test_the_rules_are_listed_as_json),
        cmocka_unit_test(test_ride_height_offset_moves_the_parked_car),
    };
    return cmocka_run_group_tests(tests, fixture_shipped_load, fixture_shipped_free);
}
