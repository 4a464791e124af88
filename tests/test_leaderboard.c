/*
 * Leaderboard queries (racesim/leaderboard.h) on a small database written
 * through the store's own lap writer (rs_store_put_lap), so the personal
 * bests are the ones the server keeps: one row per player, ordering and
 * ties, offset and keyset pages, ranks and neighbours, any tune against
 * stock and one tune, the physics-version filter, invalid laps, personal bests, recent
 * laps, and that every board query runs on an index.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "racesim/leaderboard.h"
#include "racesim/physics.h"
#include "racesim/store.h"
#include "racesim/store_testing.h" /* the SQL texts, for the query-plan test */
#include "racesim/tune.h"
#include "test_data.h"

#define PV RS_PHYSICS_VERSION
#define TRACK_A 0x1111222233334444ull
#define TRACK_B 0x9999aaaabbbbccccull /* above INT64_MAX: stored negative */
#define TUNE_X 0xf00dfeedbeefcafeull
#define TUNE_Y 0x0000000000000042ull

typedef struct fixture {
    test_tmpdb db;
    rs_store *store;
    rs_leaderboard *lb;
    uint64_t car_c5, car_formula;
    int64_t now;
    int64_t player[32];
    char err[512];
} fixture;

static void add_player(fixture *f, int i, const char *name)
{
    char token[RS_TOKEN_HEX_LEN + 1];
    assert_int_equal(rs_store_player_register(f->store, name, 1000, &f->player[i], token, f->err,
                                              sizeof f->err),
                     RS_OK);
}

/* Players 0..n-1, named by the format with their number. */
static void add_players(fixture *f, int n, const char *format)
{
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, format, i);
        add_player(f, i, name);
    }
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_true(test_tmpdb_make(&f->db));
    assert_int_equal(rs_store_open(f->db.path, RS_STORE_CREATE, &f->store, f->err,
                                   sizeof f->err),
                     RS_OK);

    int64_t id;
    assert_int_equal(rs_store_put_track(f->store, TRACK_A, "Alpha Ring", "{}", &id, f->err,
                                        sizeof f->err),
                     RS_OK);
    assert_int_equal(rs_store_put_track(f->store, TRACK_B, "Beta Loop", "{}", &id, f->err,
                                        sizeof f->err),
                     RS_OK);
    static const char *const cars[2] = {"c5", "formula"};
    uint64_t *hashes[2] = {&f->car_c5, &f->car_formula};
    for (int c = 0; c < 2; c++) {
        rs_car_params *p = NULL;
        assert_true(test_car_load(cars[c], &p));
        *hashes[c] = rs_car_params_hash(p);
        assert_int_equal(rs_store_put_car(f->store, p, 0, &id, f->err, sizeof f->err), RS_OK);
        rs_car_params_destroy(p);
    }
    assert_int_equal(rs_leaderboard_open(f->store, &f->lb, f->err, sizeof f->err), RS_OK);
    f->now = 1780000000;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    rs_leaderboard_close(f->lb);
    rs_store_close(f->store);
    test_tmpdb_remove(&f->db);
    free(f);
    return 0;
}

typedef struct lap_opts {
    uint64_t track;
    uint64_t car; /* 0: the c5 */
    uint64_t tune;
    uint32_t pv;
    bool invalid;
} lap_opts;

/* Stores a lap of player i (on the c5 unless o.car says) with three
 * sectors; returns its id.
 * Each lap is recorded one second after the previous one. */
static int64_t add_lap_with(fixture *f, int i, int64_t time_us, lap_opts o)
{
    static const uint8_t proof[4] = {1, 2, 3, 4};
    rs_store_lap lap;
    memset(&lap, 0, sizeof lap);
    lap.player_id = f->player[i];
    lap.track_hash = o.track ? o.track : TRACK_A;
    lap.base_hash = o.car ? o.car : f->car_c5;
    lap.params_hash = lap.base_hash;
    lap.tune_hash = o.tune;
    lap.physics_version = o.pv ? o.pv : PV;
    lap.lap_number = 1;
    lap.time_us = time_us;
    lap.sector_count = 3;
    lap.sectors_us[0] = time_us / 3;
    lap.sectors_us[1] = o.invalid ? -1 : time_us / 3;
    lap.sectors_us[2] = time_us - 2 * (time_us / 3);
    lap.valid = !o.invalid;
    lap.invalid_reason = o.invalid ? RS_LAP_SECTOR_SKIPPED : RS_LAP_VALID;
    lap.end_hash = 0x1234;
    lap.recorded_at = ++f->now;
    lap.proof_format = 1;
    lap.proof = proof;
    lap.proof_len = sizeof proof;
    int64_t id = 0;
    assert_int_equal(rs_store_put_lap(f->store, &lap, &id, f->err, sizeof f->err), RS_OK);
    return id;
}

static int64_t add_lap(fixture *f, int i, int64_t time_us)
{
    return add_lap_with(f, i, time_us, (lap_opts){0});
}

static rs_board_key board(const fixture *f, uint64_t tune_key)
{
    return (rs_board_key){TRACK_A, f->car_c5, PV, tune_key};
}

static uint32_t top(fixture *f, rs_board_key key, uint32_t offset, uint32_t limit, rs_lb_row *rows)
{
    uint32_t n = 99;
    assert_int_equal(rs_leaderboard_top(f->lb, &key, offset, limit, rows, &n, f->err,
                                        sizeof f->err),
                     RS_OK);
    return n;
}

/* ------------------------------------------------------------- tests */

static void test_board_has_one_row_per_player_with_their_best_lap(void **state)
{
    fixture *f = *state;
    add_player(f, 0, "alice");
    add_player(f, 1, "bob");
    add_lap(f, 0, 92000000);
    int64_t alice_best = add_lap(f, 0, 90500000);
    add_lap(f, 0, 91000000);
    int64_t bob_best = add_lap(f, 1, 90400000);
    add_lap(f, 1, 95000000);

    rs_lb_row rows[10];
    assert_int_equal(top(f, board(f, 0), 0, 10, rows), 2);
    assert_int_equal(rows[0].rank, 1);
    assert_string_equal(rows[0].player_name, "bob");
    assert_int_equal(rows[0].lap_id, bob_best);
    assert_int_equal(rows[0].time_us, 90400000);
    assert_int_equal(rows[1].rank, 2);
    assert_string_equal(rows[1].player_name, "alice");
    assert_int_equal(rows[1].lap_id, alice_best);
    /* Row details come from the lap record and the definitions. */
    assert_int_equal(rows[1].sector_count, 3);
    assert_int_equal(rows[1].sectors_us[0] + rows[1].sectors_us[1] + rows[1].sectors_us[2],
                     90500000);
    assert_true(rows[1].valid);
    assert_true(rows[1].track_hash == TRACK_A);
    assert_string_equal(rows[1].track_name, "Alpha Ring");
    assert_true(rows[1].base_hash == f->car_c5);
    assert_true(rows[1].car_name[0] != '\0');
    assert_int_equal(rows[1].physics_version, PV);
    assert_true(rows[1].recorded_at > 1780000000);

    uint32_t count = 0;
    rs_board_key key = board(f, 0);
    assert_int_equal(rs_leaderboard_count(f->lb, &key, &count, f->err, sizeof f->err), RS_OK);
    assert_int_equal(count, 2);
}

static void test_equal_times_rank_the_earlier_lap_first(void **state)
{
    fixture *f = *state;
    add_player(f, 0, "first");
    add_player(f, 1, "second");
    add_player(f, 2, "third");
    int64_t a = add_lap(f, 0, 88000000);
    int64_t b = add_lap(f, 1, 88000000);
    add_lap(f, 2, 87999999);
    /* An equal time later does not replace a personal best. */
    add_lap(f, 0, 88000000);

    rs_lb_row rows[4];
    assert_int_equal(top(f, board(f, 0), 0, 4, rows), 3);
    assert_string_equal(rows[0].player_name, "third");
    assert_string_equal(rows[1].player_name, "first");
    assert_int_equal(rows[1].lap_id, a);
    assert_string_equal(rows[2].player_name, "second");
    assert_int_equal(rows[2].lap_id, b);

    rs_lb_row r;
    rs_board_key key = board(f, 0);
    assert_int_equal(rs_leaderboard_rank(f->lb, &key, f->player[1], &r, f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(r.rank, 3);
    assert_int_equal(rs_leaderboard_rank(f->lb, &key, f->player[0], &r, f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(r.rank, 2);
}

/* 25 players with some equal times: offset pages, keyset pages and one big
 * page must agree row for row, and ranks must run 1..25. */
static void test_pages_by_offset_and_by_key_match_one_big_page(void **state)
{
    fixture *f = *state;
    add_players(f, 25, "p%02d");
    for (int i = 24; i >= 0; i--)
        add_lap(f, i, 80000000 + (int64_t)(i / 3) * 1000); /* threes share a time */

    rs_lb_row all[30], page[7];
    assert_int_equal(top(f, board(f, 0), 0, 30, all), 25);
    for (uint32_t i = 0; i < 25; i++) {
        assert_int_equal(all[i].rank, i + 1);
        if (i > 0)
            assert_true(all[i - 1].time_us < all[i].time_us ||
                        (all[i - 1].time_us == all[i].time_us &&
                         all[i - 1].lap_id < all[i].lap_id));
    }

    uint32_t seen = 0;
    for (uint32_t off = 0; off < 30; off += 7) {
        uint32_t n = top(f, board(f, 0), off, 7, page);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(page[i].lap_id, all[off + i].lap_id);
            assert_int_equal(page[i].rank, all[off + i].rank);
        }
        seen += n;
    }
    assert_int_equal(seen, 25);

    rs_board_key key = board(f, 0);
    seen = top(f, key, 0, 7, page);
    while (seen < 25) {
        uint32_t n = 0;
        rs_lb_row last = page[6];
        assert_int_equal(rs_leaderboard_after(f->lb, &key, last.time_us, last.lap_id, 7, page, &n,
                                              f->err, sizeof f->err),
                         RS_OK);
        assert_true(n > 0);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(page[i].lap_id, all[seen + i].lap_id);
            assert_int_equal(page[i].rank, seen + i + 1);
        }
        seen += n;
    }
    assert_int_equal(seen, 25);
    uint32_t n = 99;
    assert_int_equal(rs_leaderboard_after(f->lb, &key, all[24].time_us, all[24].lap_id, 7, page,
                                          &n, f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 0);
}

static void test_rank_and_neighbours_match_the_board(void **state)
{
    fixture *f = *state;
    add_players(f, 9, "n%d");
    for (int i = 0; i < 9; i++)
        add_lap(f, i, 70000000 + (int64_t)i * 5000); /* player i has rank i + 1 */
    rs_board_key key = board(f, 0);
    rs_lb_row rows[5];
    uint32_t n, me;
    for (int i = 0; i < 9; i++) {
        rs_lb_row r;
        assert_int_equal(rs_leaderboard_rank(f->lb, &key, f->player[i], &r, f->err,
                                             sizeof f->err),
                         RS_OK);
        assert_int_equal(r.rank, i + 1);
        assert_int_equal(r.player_id, f->player[i]);

        assert_int_equal(rs_leaderboard_around(f->lb, &key, f->player[i], 2, rows, &n, &me,
                                               f->err, sizeof f->err),
                         RS_OK);
        int lo = i - 2 < 0 ? 0 : i - 2, hi = i + 2 > 8 ? 8 : i + 2;
        assert_int_equal(n, (uint32_t)(hi - lo + 1));
        assert_int_equal(me, (uint32_t)(i - lo));
        for (uint32_t j = 0; j < n; j++) {
            assert_int_equal(rows[j].rank, (uint32_t)lo + j + 1);
            assert_int_equal(rows[j].player_id, f->player[lo + (int)j]);
        }
    }
    /* k = 0 is the player's row alone. */
    assert_int_equal(rs_leaderboard_around(f->lb, &key, f->player[4], 0, rows, &n, &me, f->err,
                                           sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].rank, 5);
}

static void test_unknown_player_track_or_board_is_reported_not_invented(void **state)
{
    fixture *f = *state;
    add_player(f, 0, "Zed");
    add_player(f, 1, "nolaps");
    add_lap(f, 0, 60000000);
    rs_lb_row rows[3], r;
    uint32_t n = 9, me;
    rs_board_key key = board(f, 0);
    assert_int_equal(rs_leaderboard_rank(f->lb, &key, f->player[1], &r, f->err, sizeof f->err),
                     RS_ERR_MISSING);
    assert_int_equal(rs_leaderboard_around(f->lb, &key, f->player[1], 1, rows, &n, &me, f->err,
                                           sizeof f->err),
                     RS_ERR_MISSING);
    rs_board_key unknown = {0xdeadull, f->car_c5, PV, 0};
    assert_int_equal(top(f, unknown, 0, 3, rows), 0);
    assert_int_equal(rs_leaderboard_rank(f->lb, &unknown, f->player[0], &r, f->err,
                                         sizeof f->err),
                     RS_ERR_MISSING);
    rs_board_key other_car = {TRACK_A, f->car_formula, PV, 0};
    assert_int_equal(top(f, other_car, 0, 3, rows), 0);

    int64_t id = 0;
    char name[RS_LB_NAME_MAX];
    assert_int_equal(rs_leaderboard_find_player(f->lb, "zED", &id, name, f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(id, f->player[0]);
    assert_string_equal(name, "Zed");
    assert_int_equal(rs_leaderboard_find_player(f->lb, "nobody", &id, name, f->err,
                                                sizeof f->err),
                     RS_ERR_MISSING);
}

static void test_any_tune_board_holds_every_tune_and_a_tune_board_only_its_own(void **state)
{
    fixture *f = *state;
    add_player(f, 0, "stocky");
    add_player(f, 1, "tuner");
    add_player(f, 2, "both");
    add_lap(f, 0, 90000000);
    add_lap_with(f, 1, 89000000, (lap_opts){.tune = TUNE_X});
    add_lap_with(f, 2, 91000000, (lap_opts){.tune = TUNE_X});
    int64_t both_y = add_lap_with(f, 2, 88000000, (lap_opts){.tune = TUNE_Y});

    rs_lb_row rows[5];
    assert_int_equal(top(f, board(f, 0), 0, 5, rows), 3);
    assert_string_equal(rows[0].player_name, "both");
    assert_int_equal(rows[0].lap_id, both_y);
    assert_true(rows[0].tune_hash == TUNE_Y);
    assert_string_equal(rows[1].player_name, "tuner");
    assert_string_equal(rows[2].player_name, "stocky");
    assert_true(rows[2].tune_hash == 0);

    assert_int_equal(top(f, board(f, TUNE_X), 0, 5, rows), 2);
    assert_string_equal(rows[0].player_name, "tuner");
    assert_string_equal(rows[1].player_name, "both");
    assert_int_equal(rows[1].time_us, 91000000);
    assert_true(rows[1].tune_hash == TUNE_X && rows[1].tune_key == TUNE_X);

    assert_int_equal(top(f, board(f, TUNE_Y), 0, 5, rows), 1);
    assert_int_equal(top(f, board(f, RS_TUNE_KEY_STOCK), 0, 5, rows), 1);
    assert_string_equal(rows[0].player_name, "stocky");
    assert_true(rows[0].tune_hash == 0);
    rs_lb_row r;
    rs_board_key kx = board(f, TUNE_X);
    assert_int_equal(rs_leaderboard_rank(f->lb, &kx, f->player[0], &r, f->err, sizeof f->err),
                     RS_ERR_MISSING);
}

static void test_boards_are_filtered_to_one_physics_version(void **state)
{
    fixture *f = *state;
    add_player(f, 0, "old");
    add_player(f, 1, "new");
    add_lap_with(f, 0, 50000000, (lap_opts){.pv = PV - 1});
    add_lap(f, 1, 60000000);
    rs_lb_row rows[3];
    assert_int_equal(top(f, board(f, 0), 0, 3, rows), 1);
    assert_string_equal(rows[0].player_name, "new");
    rs_board_key old = {TRACK_A, f->car_c5, PV - 1, 0};
    assert_int_equal(top(f, old, 0, 3, rows), 1);
    assert_string_equal(rows[0].player_name, "old");
    assert_int_equal(rows[0].physics_version, PV - 1);

    uint32_t n = 0, total = 0;
    assert_int_equal(rs_leaderboard_personal_bests(f->lb, f->player[0], PV, rows, 3, &n, &total,
                                                   f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(total, 0);
    assert_int_equal(rs_leaderboard_player_recent(f->lb, f->player[0], PV, 3, rows, &n, f->err,
                                                  sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 0);
}

static void test_invalid_laps_never_reach_a_board_but_show_as_recent(void **state)
{
    fixture *f = *state;
    add_player(f, 0, "cutter");
    add_player(f, 1, "clean");
    add_lap(f, 0, 75000000);
    int64_t cut = add_lap_with(f, 0, 70000000, (lap_opts){.invalid = true});
    add_player(f, 2, "onlycuts");
    add_lap_with(f, 2, 60000000, (lap_opts){.invalid = true});
    add_lap(f, 1, 74000000);

    rs_lb_row rows[5];
    assert_int_equal(top(f, board(f, 0), 0, 5, rows), 2);
    assert_string_equal(rows[0].player_name, "clean");
    assert_string_equal(rows[1].player_name, "cutter");
    assert_int_equal(rows[1].time_us, 75000000);

    uint32_t n = 0;
    assert_int_equal(rs_leaderboard_player_recent(f->lb, f->player[0], PV, 5, rows, &n, f->err,
                                                  sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(rows[0].lap_id, cut);
    assert_false(rows[0].valid);
    assert_int_equal(rows[0].invalid_reason, RS_LAP_SECTOR_SKIPPED);
    assert_int_equal(rows[0].sectors_us[1], -1);
    assert_int_equal(rows[0].rank, 0);
    assert_true(rows[1].valid);
}

static void test_personal_bests_list_every_board_with_its_rank(void **state)
{
    fixture *f = *state;
    add_player(f, 0, "me");
    add_player(f, 1, "rival");
    add_lap(f, 1, 80000000);
    add_lap(f, 0, 81000000);                                      /* A, any: rank 2 */
    add_lap_with(f, 0, 82000000, (lap_opts){.tune = TUNE_X});     /* A, X: rank 1; any stays */
    add_lap_with(f, 0, 65000000, (lap_opts){.track = TRACK_B});   /* B, any: rank 1 */

    rs_lb_row rows[8];
    uint32_t n = 0, total = 0;
    assert_int_equal(rs_leaderboard_personal_bests(f->lb, f->player[0], PV, rows, 8, &n, &total,
                                                   f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 5);
    assert_int_equal(total, 5);
    /* Ordered by track name, then car, then tune key: any tune, stock, tunes. */
    assert_string_equal(rows[0].track_name, "Alpha Ring");
    assert_true(rows[0].tune_key == RS_TUNE_KEY_ANY);
    assert_int_equal(rows[0].time_us, 81000000);
    assert_int_equal(rows[0].rank, 2);
    assert_true(rows[1].tune_key == RS_TUNE_KEY_STOCK);
    assert_int_equal(rows[1].time_us, 81000000);
    assert_int_equal(rows[1].rank, 2);
    assert_string_equal(rows[2].track_name, "Alpha Ring");
    assert_true(rows[2].tune_key == TUNE_X);
    assert_int_equal(rows[2].time_us, 82000000);
    assert_int_equal(rows[2].rank, 1);
    assert_string_equal(rows[3].track_name, "Beta Loop");
    assert_true(rows[3].track_hash == TRACK_B);
    assert_true(rows[3].tune_key == RS_TUNE_KEY_ANY);
    assert_int_equal(rows[3].rank, 1);
    assert_true(rows[4].tune_key == RS_TUNE_KEY_STOCK);

    /* A short buffer still reports the total. */
    assert_int_equal(rs_leaderboard_personal_bests(f->lb, f->player[0], PV, rows, 1, &n, &total,
                                                   f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(total, 5);
}

static void test_recent_laps_are_newest_first_and_follow_the_tune_filter(void **state)
{
    fixture *f = *state;
    add_player(f, 0, "a");
    add_player(f, 1, "b");
    int64_t l1 = add_lap(f, 0, 90000000);
    int64_t l2 = add_lap_with(f, 1, 91000000, (lap_opts){.tune = TUNE_X});
    add_lap_with(f, 1, 92000000, (lap_opts){.track = TRACK_B});
    int64_t l4 = add_lap_with(f, 0, 93000000, (lap_opts){.invalid = true});

    rs_lb_row rows[10];
    uint32_t n = 0;
    rs_board_key key = board(f, 0);
    assert_int_equal(rs_leaderboard_recent(f->lb, &key, 10, rows, &n, f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 3);
    assert_int_equal(rows[0].lap_id, l4);
    assert_int_equal(rows[1].lap_id, l2);
    assert_int_equal(rows[2].lap_id, l1);
    assert_true(rows[0].recorded_at >= rows[1].recorded_at);

    assert_int_equal(rs_leaderboard_recent(f->lb, &key, 2, rows, &n, f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 2);

    rs_board_key kx = board(f, TUNE_X);
    assert_int_equal(rs_leaderboard_recent(f->lb, &kx, 10, rows, &n, f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].lap_id, l2);
    rs_board_key ks = board(f, RS_TUNE_KEY_STOCK);
    assert_int_equal(rs_leaderboard_recent(f->lb, &ks, 10, rows, &n, f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(rows[0].lap_id, l4);
    assert_int_equal(rows[1].lap_id, l1);

    assert_int_equal(rs_leaderboard_player_recent(f->lb, f->player[1], PV, 10, rows, &n, f->err,
                                                  sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].track_name, "Beta Loop");
    assert_string_equal(rows[1].track_name, "Alpha Ring");
}

/* The operators' lookups racectl is built on. */
static void test_operator_lookups_find_definitions_races_and_laps(void **state)
{
    fixture *f = *state;
    uint64_t h = 0;
    char name[RS_LB_NAME_MAX];
    assert_int_equal(rs_leaderboard_find_track(f->lb, "alpha RING", &h, name, f->err,
                                               sizeof f->err),
                     RS_OK);
    assert_true(h == TRACK_A);
    assert_string_equal(name, "Alpha Ring");
    assert_int_equal(rs_leaderboard_find_track(f->lb, "9999aaaabbbbcccc", &h, name, f->err,
                                               sizeof f->err),
                     RS_OK);
    assert_true(h == TRACK_B);
    assert_int_equal(rs_leaderboard_find_track(f->lb, "0x1111222233334444", &h, NULL, f->err,
                                               sizeof f->err),
                     RS_OK);
    assert_true(h == TRACK_A);
    assert_int_equal(rs_leaderboard_find_track(f->lb, "Gamma", &h, NULL, f->err, sizeof f->err),
                     RS_ERR_MISSING);
    assert_non_null(strstr(f->err, "Gamma"));

    char hex[32];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)f->car_formula);
    assert_int_equal(rs_leaderboard_find_car(f->lb, hex, &h, name, f->err, sizeof f->err), RS_OK);
    assert_true(h == f->car_formula);
    for (char *c = name; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    assert_int_equal(rs_leaderboard_find_car(f->lb, name, &h, NULL, f->err, sizeof f->err),
                     RS_OK);
    assert_true(h == f->car_formula);

    /* The lists an operator chooses from: by name; tuned cars are not
     * boards' cars. */
    rs_lb_definition defs[4];
    uint32_t count = 0;
    assert_int_equal(rs_leaderboard_tracks(f->lb, 4, defs, &count, f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(count, 2);
    assert_string_equal(defs[0].name, "Alpha Ring");
    assert_true(defs[1].hash == TRACK_B);
    assert_int_equal(rs_leaderboard_tracks(f->lb, 1, defs, &count, f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(count, 1);
    rs_car_params *c5 = NULL, *tuned = NULL;
    static const char tune[] = "{\"gearbox\": {\"final_drive\": 3.2}}";
    uint64_t tune_hash;
    int64_t id;
    assert_true(test_car_load("c5", &c5));
    assert_int_equal(rs_tune_apply(c5, tune, sizeof tune - 1, "tune.json", &tuned, &tune_hash,
                                   f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(rs_store_put_car(f->store, tuned, f->car_c5, &id, f->err, sizeof f->err),
                     RS_OK);
    rs_car_params_destroy(tuned);
    rs_car_params_destroy(c5);
    assert_int_equal(rs_leaderboard_cars(f->lb, 4, defs, &count, f->err, sizeof f->err), RS_OK);
    assert_int_equal(count, 2);
    assert_true(defs[0].hash == f->car_c5);
    assert_true(defs[1].hash == f->car_formula);

    /* Car blocks and track definitions come back as stored. */
    uint8_t *block = NULL;
    size_t len = 0;
    assert_int_equal(rs_leaderboard_car_block(f->lb, f->car_c5, &block, &len, f->err,
                                              sizeof f->err),
                     RS_OK);
    rs_car_params *p = NULL;
    assert_int_equal(rs_car_params_from_block(block, len, &p, f->err, sizeof f->err), RS_OK);
    assert_true(rs_car_params_hash(p) == f->car_c5);
    rs_car_params_destroy(p);
    free(block);
    char *json = NULL;
    assert_int_equal(rs_leaderboard_track_definition(f->lb, TRACK_B, &json, &len, f->err,
                                                     sizeof f->err),
                     RS_OK);
    assert_string_equal(json, "{}");
    free(json);
    assert_int_equal(rs_leaderboard_car_block(f->lb, 42, &block, &len, f->err, sizeof f->err),
                     RS_ERR_MISSING);

    /* A race with two results, and one lap of it. */
    add_player(f, 0, "winner");
    add_player(f, 1, "second");
    rs_store_race race = {.track_hash = TRACK_A, .laps = 3, .physics_version = PV,
                          .started_at = 1780000000};
    int64_t race_id = 0;
    assert_int_equal(rs_store_race_create(f->store, &race, &race_id, f->err, sizeof f->err),
                     RS_OK);
    for (int i = 0; i < 2; i++) {
        rs_store_result r = {.race_id = race_id, .player_id = f->player[1 - i],
                             .params_hash = f->car_c5, .position = (uint32_t)(2 - i),
                             .finished = true, .finish_us = 300000000 + i,
                             .laps_completed = 3, .best_lap_us = 95000000,
                             .barrier_hits = (uint32_t)i};
        assert_int_equal(rs_store_put_result(f->store, &r, f->err, sizeof f->err), RS_OK);
    }
    rs_lb_race races[4];
    uint32_t n = 0, total = 0;
    assert_int_equal(rs_leaderboard_races(f->lb, 4, races, &n, f->err, sizeof f->err), RS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(races[0].id, race_id);
    assert_string_equal(races[0].track_name, "Alpha Ring");
    assert_int_equal(races[0].entries, 2);
    assert_int_equal(races[0].finished_at, 0);
    rs_lb_result res[4];
    rs_lb_race one;
    assert_int_equal(rs_leaderboard_results(f->lb, race_id, &one, res, 4, &n, &total, f->err,
                                            sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(total, 2);
    assert_int_equal(res[0].position, 1);
    assert_string_equal(res[0].player_name, "winner");
    assert_int_equal(res[1].position, 2);
    char c5_hex[32], c5_name[RS_LB_NAME_MAX];
    snprintf(c5_hex, sizeof c5_hex, "0x%llx", (unsigned long long)f->car_c5);
    assert_int_equal(rs_leaderboard_find_car(f->lb, c5_hex, &h, c5_name, f->err, sizeof f->err),
                     RS_OK);
    assert_string_equal(res[1].car_name, c5_name);
    assert_int_equal(res[1].barrier_hits, 0);
    assert_int_equal(res[0].barrier_hits, 1);
    assert_int_equal(rs_leaderboard_results(f->lb, race_id + 7, &one, res, 4, &n, &total, f->err,
                                            sizeof f->err),
                     RS_ERR_MISSING);

    /* A qualifying too: the type filter keeps the kinds apart (the column
     * holds the type's name, the filter its number). */
    rs_store_race quali = race;
    quali.session_type = RS_STORE_SESSION_QUALIFYING;
    int64_t quali_id = 0;
    assert_int_equal(rs_store_race_create(f->store, &quali, &quali_id, f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(rs_leaderboard_races_of_type(f->lb, RS_STORE_SESSION_QUALIFYING, 4, races,
                                                  &n, f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(races[0].id, quali_id);
    assert_int_equal(races[0].session_type, RS_STORE_SESSION_QUALIFYING);
    assert_int_equal(rs_leaderboard_races_of_type(f->lb, RS_STORE_SESSION_RACE, 4, races, &n,
                                                  f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(races[0].id, race_id);
    assert_int_equal(rs_leaderboard_races_of_type(f->lb, RS_STORE_SESSION_WARMUP, 4, races, &n,
                                                  f->err, sizeof f->err),
                     RS_OK);
    assert_int_equal(n, 0);
    assert_int_equal(rs_leaderboard_races(f->lb, 4, races, &n, f->err, sizeof f->err), RS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(races[0].id, quali_id); /* the newest first */

    int64_t lap_id = add_lap(f, 0, 95000000);
    rs_lb_row row;
    assert_int_equal(rs_leaderboard_lap(f->lb, lap_id, &row, f->err, sizeof f->err), RS_OK);
    assert_int_equal(row.time_us, 95000000);
    assert_true(row.params_hash == f->car_c5);
    assert_true(row.end_hash == 0x1234);
    assert_true(row.tune_key == RS_TUNE_KEY_STOCK);
    assert_int_equal(rs_leaderboard_lap(f->lb, lap_id + 100, &row, f->err, sizeof f->err),
                     RS_ERR_MISSING);
}

/* Every board query must walk an index in order: no full scan of the board's
 * table and no sort. The personal-bests query is the documented exception
 * (it reads all of a physics version's personal bests). */
/* ------------------------------------------------------- class boards */

static int64_t add_formula_lap(fixture *f, int i, int64_t time_us)
{
    return add_lap_with(f, i, time_us, (lap_opts){.car = f->car_formula});
}

/* The class of both cars on track A (any tune unless tune_key says). */
static rs_class_key both_cars(const fixture *f, uint64_t tune_key)
{
    return (rs_class_key){TRACK_A, PV, tune_key, 2, {f->car_c5, f->car_formula}};
}

static uint32_t class_top(fixture *f, rs_class_key key, uint32_t offset, uint32_t limit,
                          rs_lb_row *rows)
{
    uint32_t n = 99;
    assert_int_equal(rs_leaderboard_class_top(f->lb, &key, offset, limit, rows, &n, f->err,
                                              sizeof f->err),
                     RS_OK);
    return n;
}

static uint32_t class_count(fixture *f, rs_class_key key)
{
    uint32_t n = 99;
    assert_int_equal(rs_leaderboard_class_count(f->lb, &key, &n, f->err, sizeof f->err), RS_OK);
    return n;
}

static void test_class_board_has_each_player_once_with_their_best_car(void **state)
{
    fixture *f = *state;
    add_players(f, 4, "d%d");
    add_lap(f, 0, 60000000);
    int64_t d0_best = add_formula_lap(f, 0, 58000000); /* faster in the formula */
    int64_t d1_best = add_lap(f, 1, 59000000);
    int64_t d2_best = add_formula_lap(f, 2, 61000000);
    int64_t d3_best = add_lap(f, 3, 57000000); /* faster in the c5 */
    add_formula_lap(f, 3, 62000000);

    rs_lb_row rows[8];
    assert_int_equal(class_top(f, both_cars(f, RS_TUNE_KEY_ANY), 0, 8, rows), 4);
    const int64_t laps[4] = {d3_best, d0_best, d1_best, d2_best};
    const int64_t players[4] = {f->player[3], f->player[0], f->player[1], f->player[2]};
    const uint64_t cars[4] = {f->car_c5, f->car_formula, f->car_c5, f->car_formula};
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(rows[i].rank, i + 1);
        assert_int_equal(rows[i].lap_id, laps[i]);
        assert_int_equal(rows[i].player_id, players[i]);
        assert_true(rows[i].base_hash == cars[i]); /* the row names its car */
        assert_true(rows[i].car_name[0] != '\0');
        assert_true(rows[i].tune_key == RS_TUNE_KEY_ANY);
    }
    assert_string_not_equal(rows[0].car_name, rows[1].car_name);
    /* Six personal bests, four players. */
    assert_int_equal(class_count(f, both_cars(f, RS_TUNE_KEY_ANY)), 4);

    /* A class of one car is that car's board; a car named twice counts once. */
    rs_class_key one = {TRACK_A, PV, RS_TUNE_KEY_ANY, 3, {f->car_c5, f->car_c5, f->car_c5}};
    rs_lb_row car_rows[8];
    uint32_t n = class_top(f, one, 0, 8, rows);
    assert_int_equal(n, top(f, board(f, 0), 0, 8, car_rows));
    assert_int_equal(n, 3);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(rows[i].lap_id, car_rows[i].lap_id);
    assert_int_equal(class_count(f, one), 3);
}

static void test_class_board_ties_rank_the_earlier_lap_first_across_cars(void **state)
{
    fixture *f = *state;
    add_players(f, 4, "t%d");
    int64_t a = add_formula_lap(f, 0, 70000000); /* set first, in the formula */
    int64_t b = add_lap(f, 1, 70000000);
    int64_t c = add_lap(f, 2, 70000000);
    int64_t d = add_formula_lap(f, 3, 70000000);
    /* An equal time in the other car later does not become the player's row. */
    add_lap(f, 0, 70000000);

    rs_lb_row rows[8];
    assert_int_equal(class_top(f, both_cars(f, RS_TUNE_KEY_ANY), 0, 8, rows), 4);
    const int64_t order[4] = {a, b, c, d};
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(rows[i].lap_id, order[i]);
    assert_true(rows[0].base_hash == f->car_formula);

    rs_class_key key = both_cars(f, RS_TUNE_KEY_ANY);
    rs_lb_row r;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(rs_leaderboard_class_rank(f->lb, &key, f->player[i], &r, f->err,
                                                   sizeof f->err),
                         RS_OK);
        assert_int_equal(r.rank, i + 1);
        assert_int_equal(r.lap_id, order[i]);
    }
}

static int64_t best_of(int i)
{
    return 80000000 + (int64_t)(i / 3) * 1000;
}

/* 20 players over two cars, some on both with either car faster, times
 * shared in threes: offset pages, keyset pages, ranks and neighbours must
 * agree with one big page. */
static void test_class_board_pages_ranks_and_neighbours_agree(void **state)
{
    fixture *f = *state;
    add_players(f, 20, "q%02d");
    /* Player i's best is best_of(i), in the c5 for i % 3 == 0, in the
     * formula for 1; players with i % 3 == 2 drive both, the slower car
     * half a second off (the c5 for odd i, set after the formula's lap). */
    for (int i = 19; i >= 0; i--) {
        int64_t t = best_of(i);
        bool both = i % 3 == 2;
        if (i % 3 != 1)
            add_lap(f, i, both && i % 2 ? t + 500000 : t);
        if (i % 3 != 0)
            add_formula_lap(f, i, both && i % 2 == 0 ? t + 500000 : t);
    }
    rs_class_key key = both_cars(f, RS_TUNE_KEY_ANY);
    assert_int_equal(class_count(f, key), 20);
    rs_lb_row all[24], page[6];
    assert_int_equal(class_top(f, key, 0, 24, all), 20);
    for (uint32_t i = 0; i < 20; i++) {
        assert_int_equal(all[i].rank, i + 1);
        for (uint32_t j = 0; j < i; j++)
            assert_true(all[j].player_id != all[i].player_id);
        if (i > 0)
            assert_true(all[i - 1].time_us < all[i].time_us ||
                        (all[i - 1].time_us == all[i].time_us &&
                         all[i - 1].lap_id < all[i].lap_id));
        /* Every player's row is their best, in the car that set it. */
        int p = 0;
        while (f->player[p] != all[i].player_id)
            p++;
        assert_int_equal(all[i].time_us, best_of(p));
        bool in_c5 = p % 3 == 0 || (p % 3 == 2 && p % 2 == 0);
        assert_true(all[i].base_hash == (in_c5 ? f->car_c5 : f->car_formula));
    }

    uint32_t seen = 0;
    for (uint32_t off = 0; off < 24; off += 6) {
        uint32_t n = class_top(f, key, off, 6, page);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(page[i].lap_id, all[off + i].lap_id);
            assert_int_equal(page[i].rank, off + i + 1);
        }
        seen += n;
    }
    assert_int_equal(seen, 20);

    seen = class_top(f, key, 0, 6, page);
    while (seen < 20) {
        uint32_t n = 0;
        rs_lb_row last = page[5];
        assert_int_equal(rs_leaderboard_class_after(f->lb, &key, last.time_us, last.lap_id, 6,
                                                    page, &n, f->err, sizeof f->err),
                         RS_OK);
        assert_true(n > 0);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(page[i].lap_id, all[seen + i].lap_id);
            assert_int_equal(page[i].rank, seen + i + 1);
        }
        seen += n;
    }
    assert_int_equal(seen, 20);

    for (uint32_t i = 0; i < 20; i++) {
        uint32_t n, me;
        rs_lb_row around[5];
        assert_int_equal(rs_leaderboard_class_around(f->lb, &key, all[i].player_id, 2, around,
                                                      &n, &me, f->err, sizeof f->err),
                         RS_OK);
        uint32_t lo = i < 2 ? 0 : i - 2, hi = i + 2 > 19 ? 19 : i + 2;
        assert_int_equal(n, hi - lo + 1);
        assert_int_equal(me, i - lo);
        for (uint32_t j = 0; j < n; j++) {
            assert_int_equal(around[j].rank, lo + j + 1);
            assert_int_equal(around[j].lap_id, all[lo + j].lap_id);
        }
    }
}

static void test_class_board_follows_the_stock_filter_and_refuses_a_tune(void **state)
{
    fixture *f = *state;
    add_players(f, 2, "s%d");
    int64_t tuned = add_lap_with(f, 0, 55000000, (lap_opts){.tune = TUNE_X});
    int64_t stock = add_formula_lap(f, 0, 58000000);
    int64_t other = add_lap(f, 1, 59000000);

    rs_lb_row rows[4];
    assert_int_equal(class_top(f, both_cars(f, RS_TUNE_KEY_ANY), 0, 4, rows), 2);
    assert_int_equal(rows[0].lap_id, tuned);
    assert_int_equal(class_top(f, both_cars(f, RS_TUNE_KEY_STOCK), 0, 4, rows), 2);
    assert_int_equal(rows[0].lap_id, stock);
    assert_true(rows[0].base_hash == f->car_formula);
    assert_true(rows[0].tune_key == RS_TUNE_KEY_STOCK);
    assert_int_equal(rows[1].lap_id, other);

    rs_class_key key = both_cars(f, TUNE_X);
    uint32_t n;
    assert_int_equal(rs_leaderboard_class_top(f->lb, &key, 0, 4, rows, &n, f->err, sizeof f->err),
                     RS_ERR_ARG);
    assert_non_null(strstr(f->err, "tune"));
    key = both_cars(f, RS_TUNE_KEY_ANY);
    key.car_count = 0;
    assert_int_equal(rs_leaderboard_class_count(f->lb, &key, &n, f->err, sizeof f->err),
                     RS_ERR_ARG);
    key.car_count = RS_LB_CLASS_MAX_CARS + 1;
    assert_int_equal(rs_leaderboard_class_count(f->lb, &key, &n, f->err, sizeof f->err),
                     RS_ERR_ARG);

    /* An unknown track is an empty board; a player without a lap is missing. */
    key = both_cars(f, RS_TUNE_KEY_ANY);
    key.track_hash = 0x5555;
    assert_int_equal(class_count(f, key), 0);
    assert_int_equal(class_top(f, key, 0, 4, rows), 0);
    key.track_hash = TRACK_A;
    add_player(f, 2, "nolap");
    assert_int_equal(rs_leaderboard_class_rank(f->lb, &key, f->player[2], rows, f->err,
                                               sizeof f->err),
                     RS_ERR_MISSING);
}

static unsigned occurrences(const char *text, const char *word)
{
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, word)) != NULL; p += strlen(word))
        n++;
    return n;
}

/* A class page merges eight arms, each a walk of one car's range of
 * personal_bests_rank, filters the merged rows as they come (SCAN c) with a
 * primary-key lookup per car, and sorts only its page; counts and ranks
 * read the cars' covering index ranges and sort nothing but the distinct
 * players; a player's row is primary-key lookups. */
static void check_class_plan(const char *name, const char *plan)
{
    static const char board_range[] = "USING COVERING INDEX personal_bests_rank (track_id=? AND "
                                      "base_hash=? AND physics_version=? AND tune_key=?";
    static const char by_player[] = "USING PRIMARY KEY (track_id=? AND base_hash=? AND "
                                    "physics_version=? AND tune_key=? AND player_id=?)";
    bool ok;
    if (strcmp(name, "class_count") == 0 || strcmp(name, "class_rank") == 0)
        ok = strstr(plan, board_range) && occurrences(plan, "TEMP B-TREE") == 1 &&
             strstr(plan, "TEMP B-TREE FOR count(DISTINCT)");
    else if (strcmp(name, "class_row") == 0)
        ok = occurrences(plan, by_player) == 2 && !strstr(plan, "TEMP B-TREE");
    else
        ok = occurrences(plan, board_range) == RS_LB_CLASS_MAX_CARS &&
             strstr(plan, "MERGE (UNION ALL)") && strstr(plan, "CO-ROUTINE c") &&
             strstr(plan, "SCAN c") && strstr(plan, by_player) &&
             occurrences(plan, "TEMP B-TREE") == 1;
    if (!ok) {
        print_error("class query %s:\n%s", name, plan);
        fail();
    }
}

static void test_board_queries_run_on_the_rank_index(void **state)
{
    fixture *f = *state;
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(f->db.path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    const char *name;
    const char *sql;
    for (unsigned i = 0; (sql = rs_store__leaderboard_sql(i, &name)) != NULL; i++) {
        char buf[8192];
        snprintf(buf, sizeof buf, "EXPLAIN QUERY PLAN %s", sql);
        sqlite3_stmt *st = NULL;
        assert_int_equal(sqlite3_prepare_v2(db, buf, -1, &st, NULL), SQLITE_OK);
        char plan[16384] = "";
        bool table_scan = false;
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *d = (const char *)sqlite3_column_text(st, 3);
            d = d ? d : "";
            /* "SCAN pb" reads the top page's subquery (at most a page of
             * rows); any other SCAN reads a whole table. */
            /* "SCAN c" reads a class board's merged arms as they come. */
            if (strncmp(d, "SCAN ", 5) == 0 && strcmp(d, "SCAN pb") != 0 &&
                strcmp(d, "SCAN c") != 0)
                table_scan = true;
            strncat(plan, d, sizeof plan - strlen(plan) - 2);
            strncat(plan, "\n", sizeof plan - strlen(plan) - 1);
        }
        sqlite3_finalize(st);
        if (strcmp(name, "personal_bests") == 0)
            continue;
        /* The top page sorts its own page again after the joins (at most
         * limit rows: the ORDER BY that makes the page's order a guarantee);
         * every other sort would be of a whole board. */
        bool sorts = strstr(plan, "TEMP B-TREE") != NULL && strcmp(name, "top") != 0;
        if (strncmp(name, "class_", 6) == 0) {
            check_class_plan(name, plan);
            sorts = false;
        }
        if (sorts || table_scan) {
            print_error("query %s:\n%s", name, plan);
            fail();
        }
        if (strcmp(name, "top") == 0 || strcmp(name, "after") == 0 ||
            strcmp(name, "before") == 0 || strcmp(name, "rank") == 0 ||
            strcmp(name, "count") == 0) {
            if (!strstr(plan, "INDEX personal_bests_rank")) {
                print_error("query %s does not use personal_bests_rank:\n%s", name, plan);
                fail();
            }
        }
        if (strcmp(name, "rank") == 0)
            assert_non_null(strstr(plan, "COVERING INDEX personal_bests_rank (track_id=? AND "
                                         "base_hash=? AND physics_version=? AND tune_key=? AND "
                                         "(time_us,lap_id)<(?,?))"));
    }
    sqlite3_close(db);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_board_has_one_row_per_player_with_their_best_lap),
        T(test_equal_times_rank_the_earlier_lap_first),
        T(test_pages_by_offset_and_by_key_match_one_big_page),
        T(test_rank_and_neighbours_match_the_board),
        T(test_unknown_player_track_or_board_is_reported_not_invented),
        T(test_any_tune_board_holds_every_tune_and_a_tune_board_only_its_own),
        T(test_boards_are_filtered_to_one_physics_version),
        T(test_invalid_laps_never_reach_a_board_but_show_as_recent),
        T(test_personal_bests_list_every_board_with_its_rank),
        T(test_recent_laps_are_newest_first_and_follow_the_tune_filter),
        T(test_operator_lookups_find_definitions_races_and_laps),
        T(test_class_board_has_each_player_once_with_their_best_car),
        T(test_class_board_ties_rank_the_earlier_lap_first_across_cars),
        T(test_class_board_pages_ranks_and_neighbours_agree),
        T(test_class_board_follows_the_stock_filter_and_refuses_a_tune),
        T(test_board_queries_run_on_the_rank_index),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
