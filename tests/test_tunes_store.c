/*
 * Tunes end to end in the store: an illegal tune is rejected whole with
 * every bad field named and nothing stored; a legal one is saved with its
 * content hash and its tuned car block, listed, loaded (re-applying the
 * loaded JSON gives the same car), versioned under the same name, and
 * deleted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_data.h"
#include "racesim/store.h"
#include "racesim/tune.h"

typedef struct fixture {
    test_tmpdb db;
    rs_store *s;
    rs_car_params *c5;
    int64_t player;
} fixture;

/* A database with the C5 and one player. */
static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    *state = f;
    char err[512] = "", token[RS_TOKEN_HEX_LEN + 1];
    int64_t car_id;
    if (!f || !test_tmpdb_make(&f->db) || !test_car_load("c5", &f->c5))
        return -1;
    if (rs_store_open(f->db.path, RS_STORE_CREATE, &f->s, err, sizeof err) != RS_OK ||
        rs_store_put_car(f->s, f->c5, 0, &car_id, err, sizeof err) != RS_OK ||
        rs_store_player_register(f->s, "tuner", 1700000000, &f->player, token, err, sizeof err) !=
            RS_OK) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    rs_store_close(f->s);
    rs_car_params_destroy(f->c5);
    test_tmpdb_remove(&f->db);
    free(f);
    return 0;
}

static size_t count_tunes(fixture *f)
{
    char err[512];
    size_t total = 99;
    rs_store_tune list[4];
    assert_int_equal(rs_store_tune_list(f->s, f->player, 0, list, 4, &total, err, sizeof err),
                     RS_OK);
    return total;
}

static void test_an_illegal_tune_is_rejected_whole_and_nothing_is_stored(void **state)
{
    fixture *f = *state;
    static const char bad[] = "{\"gearbox\": {\"final_drive\": 99, \"ratios\": [1, 2]},"
                              " \"brakes\": {\"bias_front\": 0.01}}";
    char err[1024] = "";
    int64_t id = 0;
    uint64_t hash = 1;
    rs_status st = rs_store_tune_put(f->s, f->player, f->c5, "silly", bad, sizeof bad - 1,
                                     1700000000, &id, &hash, err, sizeof err);
    print_message("%s\n", err);
    assert_int_not_equal(st, RS_OK);
    /* Every bad field, each with its range. */
    assert_non_null(strstr(err, "final_drive"));
    assert_non_null(strstr(err, "ratios"));
    assert_non_null(strstr(err, "bias_front"));
    assert_int_equal(count_tunes(f), 0);
}

static void test_a_legal_tune_is_saved_listed_loaded_versioned_and_deleted(void **state)
{
    fixture *f = *state;
    static const char v1[] = "{\"gearbox\": {\"final_drive\": 3.2}}";
    static const char v1_again[] = "{ \"gearbox\" : { \"final_drive\" : 3.20 } }";
    static const char v2[] = "{\"gearbox\": {\"final_drive\": 3.6}}";
    char err[1024];
    int64_t id1, id2;
    uint64_t h1, h1b, h2;
    assert_int_equal(rs_store_tune_put(f->s, f->player, f->c5, "long legs", v1, sizeof v1 - 1,
                                       1700000000, &id1, &h1, err, sizeof err),
                     RS_OK);
    assert_true(h1 != 0);
    /* The same tune written differently is the same version. */
    assert_int_equal(rs_store_tune_put(f->s, f->player, f->c5, "long legs", v1_again,
                                       sizeof v1_again - 1, 1700000001, &id1, &h1b, err,
                                       sizeof err),
                     RS_OK);
    assert_true(h1b == h1);
    assert_int_equal(count_tunes(f), 1);

    rs_store_tune info;
    char *json = NULL;
    assert_int_equal(rs_store_tune_load(f->s, f->player, rs_car_params_hash(f->c5), "long legs",
                                        &info, &json, err, sizeof err),
                     RS_OK);
    assert_true(info.tune_hash == h1);
    rs_car_params *tuned = NULL;
    uint64_t h;
    assert_int_equal(
        rs_tune_apply(f->c5, json, strlen(json), "loaded", &tuned, &h, err, sizeof err), RS_OK);
    assert_true(h == h1);
    assert_true(rs_car_params_hash(tuned) == info.params_hash);
    /* The tuned block is stored, so its laps can be re-simulated. */
    int64_t car_id;
    assert_int_equal(rs_store_car_id(f->s, info.params_hash, &car_id, err, sizeof err), RS_OK);
    rs_car_params_destroy(tuned);
    free(json);

    /* A new version under the same name replaces it. */
    assert_int_equal(rs_store_tune_put(f->s, f->player, f->c5, "long legs", v2, sizeof v2 - 1,
                                       1700000002, &id2, &h2, err, sizeof err),
                     RS_OK);
    assert_true(h2 != h1);
    assert_int_equal(count_tunes(f), 1);
    assert_int_equal(rs_store_tune_delete(f->s, f->player, rs_car_params_hash(f->c5), "long legs",
                                          err, sizeof err),
                     RS_OK);
    assert_int_equal(count_tunes(f), 0);
    assert_int_equal(rs_store_tune_delete(f->s, f->player, rs_car_params_hash(f->c5), "long legs",
                                          err, sizeof err),
                     RS_ERR_MISSING);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_an_illegal_tune_is_rejected_whole_and_nothing_is_stored),
        T(test_a_legal_tune_is_saved_listed_loaded_versioned_and_deleted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
