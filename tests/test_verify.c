/*
 * End to end, as an operator sees it: an AI race on the oval is recorded
 * through the race log and the writer thread (laps with proofs, results,
 * the race's finish), then `racectl verify-lap` re-simulates every stored
 * lap bit for bit, a tampered lap is caught with the difference named, and
 * `racectl leaderboard --json` shows one row per player. And racectl finds
 * tracks and cars as operators name them: stored name, hash, or the data
 * file raceserver was started with; several --car make a class board.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "run_command.h"

#include "racesim/driver.h"
#include "racesim/racelog.h"
#include "racesim/store.h"
#include "racesim/track.h"
#include "racesim/tune.h"
#include "test_data.h"
#include "test_sql.h"

#define CARS 3
#define LAPS 2

/* Runs racectl with args; returns its exit status and its stdout. */
static int racectl(const char *db, const char *args, char *out, size_t cap)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' --db '%s' %s 2>&1", RS_RACECTL_PATH, db, args);
    return run_command(cmd, out, cap);
}

typedef struct race_db {
    test_tmpdb tmp;
    uint32_t laps_recorded;
    int64_t lap_ids[CARS * (LAPS + 1)];
} race_db;

/* Records the race into a fresh database. Car 3 runs a tuned C5. */
static void record_race(race_db *r)
{
    char err[512];
    memset(r, 0, sizeof *r);
    assert_true(test_tmpdb_make(&r->tmp));
    const char *db = r->tmp.path;

    rs_store *s = NULL;
    assert_int_equal(rs_store_open(db, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    rs_car_params *c5 = NULL, *tuned = NULL;
    assert_true(test_car_load("c5", &c5));
    static const char tune[] = "{\"gearbox\": {\"final_drive\": 3.2}}";
    uint64_t tune_hash = 0;
    if (rs_tune_apply(c5, tune, sizeof tune - 1, "tune.json", &tuned, &tune_hash, err,
                      sizeof err) != RS_OK)
        fail_msg("tune: %s", err);
    assert_true(tune_hash != 0);
    size_t track_len;
    char *track_json = NULL;
    rs_track *track = NULL;
    assert_true(test_track_load("oval", &track, &track_json, &track_len));

    int64_t car_id, track_id, race_id, player[CARS];
    assert_int_equal(rs_store_put_car(s, c5, 0, &car_id, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_put_car(s, tuned, rs_car_params_hash(c5), &car_id, err, sizeof err),
                     RS_OK);
    assert_int_equal(rs_store_put_track(s, rs_track_hash(track), rs_track_name(track), track_json,
                                        &track_id, err, sizeof err),
                     RS_OK);
    for (int i = 0; i < CARS; i++) {
        char name[32], token[RS_TOKEN_HEX_LEN + 1];
        snprintf(name, sizeof name, "driver%d", i + 1);
        assert_int_equal(rs_store_player_register(s, name, 1700000000, &player[i], token, err,
                                                  sizeof err),
                         RS_OK);
    }
    rs_store_race race = {.track_hash = rs_track_hash(track), .laps = LAPS,
                          .physics_version = RS_PHYSICS_VERSION, .started_at = 1700000000};
    assert_int_equal(rs_store_race_create(s, &race, &race_id, err, sizeof err), RS_OK);
    rs_store_close(s);

    rs_world_def def = rs_world_default();
    def.max_cars = CARS;
    def.track = track;
    def.laps = LAPS;
    def.start_tick = 60;
    rs_world *w = NULL;
    assert_int_equal(rs_world_create(&def, &w), RS_OK);
    rs_racing_line *line[2] = {NULL, NULL};
    assert_int_equal(rs_racing_line_build(track, c5, NULL, &line[0]), RS_OK);
    assert_int_equal(rs_racing_line_build(track, tuned, NULL, &line[1]), RS_OK);
    rs_driver *drv[CARS];
    rs_racelog_entrant who[CARS];
    for (int i = 0; i < CARS; i++) {
        rs_car_spawn sp;
        const rs_car_params *p = i == CARS - 1 ? tuned : c5;
        assert_true(rs_track_grid_slot(track, (uint32_t)i, &sp));
        assert_int_equal(rs_world_add_car(w, p, &sp, NULL), RS_OK);
        rs_driver_options o = rs_driver_options_default();
        o.seed = (uint32_t)i + 1;
        assert_int_equal(rs_driver_create(line[i == CARS - 1], &o, &drv[i]), RS_OK);
        who[i] = (rs_racelog_entrant){player[i], rs_car_params_hash(p), rs_car_params_hash(c5),
                                      i == CARS - 1 ? tune_hash : 0};
    }
    rs_store_writer *writer = NULL;
    assert_int_equal(rs_store_writer_open(db, NULL, &writer, err, sizeof err), RS_OK);
    rs_racelog_def ld = {writer, race_id, rs_track_hash(track), who, 60u * 120u, 1, false, 0,
                         false};
    rs_racelog *log = NULL;
    /* A race that forced the stock car would refuse the tuned entrant. */
    rs_racelog_def forced = ld;
    forced.forced_tune = true;
    forced.forced_tune_hash = 0;
    assert_int_equal(rs_racelog_create(w, &forced, &log), RS_ERR_MISMATCH);
    assert_null(log);
    assert_int_equal(rs_racelog_create(w, &ld, &log), RS_OK);

    rs_store_ack acks[64];
    for (int t = 0; t < 60 * 200 && !rs_world_race_over(w); t++) {
        for (int i = 0; i < CARS; i++) {
            rs_car_id id = {(uint16_t)(i + 1)};
            rs_input in = rs_driver_update(drv[i], w, id);
            rs_world_set_input(w, id, &in);
        }
        assert_int_equal(rs_racelog_before_step(log, w), RS_OK);
        assert_int_equal(rs_world_step(w), RS_OK);
        assert_int_equal(rs_racelog_after_step(log, w, 1700000000 + t / 60), RS_OK);
        size_t n = rs_racelog_poll(log, acks, 64);
        for (size_t k = 0; k < n; k++)
            if (acks[k].kind == RS_RECORD_LAP && acks[k].status == RS_OK)
                r->lap_ids[r->laps_recorded++] = acks[k].row_id;
    }
    assert_true(rs_world_race_over(w));
    /* Drain: everything queued commits, then the last acknowledgements. */
    while (rs_racelog_flush(log) > 0)
        rs_store_writer_flush(writer);
    rs_store_writer_flush(writer);
    size_t n;
    while ((n = rs_racelog_poll(log, acks, 64)) > 0)
        for (size_t k = 0; k < n; k++)
            if (acks[k].kind == RS_RECORD_LAP && acks[k].status == RS_OK)
                r->lap_ids[r->laps_recorded++] = acks[k].row_id;
    rs_racelog_stats st = rs_racelog_get_stats(log);
    print_message("laps seen %llu, recorded %llu, unproven %llu, failed %llu\n",
                  (unsigned long long)st.laps_seen, (unsigned long long)st.laps_recorded,
                  (unsigned long long)st.laps_unproven, (unsigned long long)st.records_failed);
    assert_int_equal(st.laps_seen, CARS * LAPS);
    assert_int_equal(st.laps_recorded, CARS * LAPS);
    assert_int_equal(st.laps_unproven, 0);
    assert_int_equal(st.records_failed, 0);
    assert_int_equal(r->laps_recorded, CARS * LAPS);

    rs_racelog_destroy(log);
    rs_store_writer_close(writer);
    for (int i = 0; i < CARS; i++)
        rs_driver_destroy(drv[i]);
    rs_racing_line_destroy(line[0]);
    rs_racing_line_destroy(line[1]);
    rs_world_destroy(w);
    rs_track_destroy(track);
    free(track_json);
    rs_car_params_destroy(tuned);
    rs_car_params_destroy(c5);
}

static void test_every_recorded_lap_verifies_and_tampering_is_named(void **state)
{
    (void)state;
    race_db r;
    record_race(&r);
    char out[16384], args[64];
    for (uint32_t i = 0; i < r.laps_recorded; i++) {
        snprintf(args, sizeof args, "verify-lap %lld", (long long)r.lap_ids[i]);
        int rc = racectl(r.tmp.path, args, out, sizeof out);
        if (rc != 0)
            fail_msg("lap %lld does not verify:\n%s", (long long)r.lap_ids[i], out);
    }

    /* One row per player on the board; the tuned car is on "any tune". */
    int rc = racectl(r.tmp.path,
                     "--json leaderboard --track \"Saltmarsh Speedway\""
                     " --car \"Chevrolet Corvette C5\"",
                     out, sizeof out);
    if (rc != 0)
        fail_msg("leaderboard: %s", out);
    int rows = 0;
    for (const char *p = out; (p = strstr(p, "\"player\"")) != NULL; p++)
        rows++;
    print_message("leaderboard rows: %d\n", rows);
    assert_int_equal(rows, CARS);

    /* Change one stored lap time by a microsecond: verification fails and
     * says what differs. */
    char sql[128], err[512];
    snprintf(sql, sizeof sql, "UPDATE laps SET time_us = time_us + 1 WHERE id = %lld",
             (long long)r.lap_ids[0]);
    assert_true(test_sql_run(r.tmp.path, sql, NULL, err, sizeof err));
    snprintf(args, sizeof args, "verify-lap %lld", (long long)r.lap_ids[0]);
    rc = racectl(r.tmp.path, args, out, sizeof out);
    print_message("tampered lap: exit %d\n%s", rc, out);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "lap time"));
    test_tmpdb_remove(&r.tmp);
}

/* racectl must exit with want and print every one of the texts (NULL-ended). */
static void expect_racectl(const char *db, const char *args, int want, ...)
{
    char out[16384];
    int rc = racectl(db, args, out, sizeof out);
    if (rc != want)
        fail_msg("racectl %s: exit %d, expected %d:\n%s", args, rc, want, out);
    va_list ap;
    va_start(ap, want);
    for (const char *text; (text = va_arg(ap, const char *)) != NULL;)
        if (!strstr(out, text))
            fail_msg("racectl %s: \"%s\" not in:\n%s", args, text, out);
    va_end(ap);
}

/* A database as raceserver leaves it after races on the oval and the grand
 * circuit with the C5 and the formula car; technical.json never raced. One
 * more track is stored under the name "grand", which is also a file's name. */
static void store_definitions(const char *db, uint64_t *oval_hash)
{
    char err[512];
    rs_store *s = NULL;
    assert_int_equal(rs_store_open(db, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    int64_t id;
    const char *car_files[] = {"c5", "formula"};
    for (int i = 0; i < 2; i++) {
        rs_car_params *car = NULL;
        assert_true(test_car_load(car_files[i], &car));
        assert_int_equal(rs_store_put_car(s, car, 0, &id, err, sizeof err), RS_OK);
        rs_car_params_destroy(car);
    }
    const char *track_files[] = {"oval", "grand"};
    for (int i = 0; i < 2; i++) {
        rs_track *track = NULL;
        char *json = NULL;
        size_t len;
        assert_true(test_track_load(track_files[i], &track, &json, &len));
        assert_int_equal(rs_store_put_track(s, rs_track_hash(track), rs_track_name(track), json,
                                            &id, err, sizeof err),
                         RS_OK);
        if (i == 0)
            *oval_hash = rs_track_hash(track);
        rs_track_destroy(track);
        free(json);
    }
    assert_int_equal(rs_store_put_track(s, 0x1234, "grand", "{}", &id, err, sizeof err), RS_OK);
    char token[RS_TOKEN_HEX_LEN + 1];
    assert_int_equal(rs_store_player_register(s, "ada", 1700000000, &id, token, err, sizeof err),
                     RS_OK);
    rs_store_close(s);
}

static void test_tracks_and_cars_by_name_hash_or_data_file(void **state)
{
    (void)state;
    test_tmpdb tmp;
    assert_true(test_tmpdb_make(&tmp));
    const char *db = tmp.path;
    uint64_t oval_hash = 0;
    store_definitions(db, &oval_hash);
    char args[1024], oval_hex[17];
    snprintf(oval_hex, sizeof oval_hex, "%016llx", (unsigned long long)oval_hash);

    /* The names raceserver was given, as every command that takes them. */
    expect_racectl(db, "leaderboard --track oval --car c5", 0,
                   "Saltmarsh Speedway / Chevrolet Corvette C5 / any tune", NULL);
    expect_racectl(db, "recent --track oval --car formula", 0,
                   "Saltmarsh Speedway / Formula (2019-era F1)", NULL);
    expect_racectl(db, "rank --player ada --track oval --car c5", 1,
                   "ada has no valid lap on this board", NULL);
    expect_racectl(db, "tunes --player ada --car c5", 0, "ada: 0 tunes", NULL);
    /* The same as the stored name in any case, a path and the hash. */
    expect_racectl(db,
                   "--json leaderboard --track 'SALTMARSH speedway'"
                   " --car 'chevrolet corvette c5'",
                   0, oval_hex, NULL);
    snprintf(args, sizeof args, "--json leaderboard --track '%s/tracks/oval.json' --car c5",
             test_data_dir());
    expect_racectl(db, args, 0, oval_hex, NULL);
    snprintf(args, sizeof args, "leaderboard --track %s --car c5", oval_hex);
    expect_racectl(db, args, 0, "Saltmarsh Speedway", NULL);

    /* Nothing by that name: the error lists what one can type (name, file,
     * hash); a file that never raced says so; a name and a file that are
     * different tracks are ambiguous. */
    expect_racectl(db, "leaderboard --track nowhere --car c5", 1,
                   "no track named 'nowhere' in the database, and no file", "Saltmarsh Speedway",
                   "oval", oval_hex, "Harrowgate Park Grand Circuit", NULL);
    expect_racectl(db, "tunes --player ada --car c6", 1, "no car named 'c6'",
                   "Formula (2019-era F1)", "formula", NULL);
    expect_racectl(db, "leaderboard --track technical --car c5", 1,
                   "Kestrel Ridge Circuit", "not in the database", NULL);
    expect_racectl(db, "leaderboard --track grand --car c5", 1, "'grand' is ambiguous",
                   "0000000000001234", "give the hash", NULL);
    expect_racectl(db, "leaderboard --track 0000000000001234 --car c5", 0,
                   "grand / Chevrolet Corvette C5", NULL);

    /* The data folder is raceserver's: $RS_DATA_DIR first. */
    snprintf(args, sizeof args, "env RS_DATA_DIR=%s/none '%s' --db '%s' leaderboard --track oval"
             " --car c5 2>&1", tmp.dir, RS_RACECTL_PATH, db);
    char out[16384];
    assert_int_equal(run_command(args, out, sizeof out), 1);
    assert_non_null(strstr(out, "/none/tracks/oval.json"));
    expect_racectl(db, "--help", 0, "tracks/technical.json", NULL);
    test_tmpdb_remove(&tmp);
}

/* Stores a valid stock lap of the player on the oval in the car. */
static void put_lap(rs_store *s, int64_t player, uint64_t track, uint64_t car, int64_t time_us)
{
    static const uint8_t proof[4] = {1, 2, 3, 4};
    static int64_t recorded = 1700000100;
    char err[512];
    rs_store_lap lap;
    memset(&lap, 0, sizeof lap);
    lap.player_id = player;
    lap.track_hash = track;
    lap.params_hash = lap.base_hash = car;
    lap.physics_version = RS_PHYSICS_VERSION;
    lap.lap_number = 1;
    lap.time_us = time_us;
    lap.valid = true;
    lap.recorded_at = ++recorded;
    lap.proof_format = 1;
    lap.proof = proof;
    lap.proof_len = sizeof proof;
    int64_t id;
    assert_int_equal(rs_store_put_lap(s, &lap, &id, err, sizeof err), RS_OK);
}

/* Several --car make a class board: each player once, their best car
 * named on the row. ada is faster in the formula than in the C5, bo drove
 * the C5 only, cy the formula only. */
static void test_several_cars_make_a_class_board(void **state)
{
    (void)state;
    test_tmpdb tmp;
    assert_true(test_tmpdb_make(&tmp));
    const char *db = tmp.path;
    uint64_t oval = 0;
    store_definitions(db, &oval);
    char err[512], token[RS_TOKEN_HEX_LEN + 1];
    rs_store *s = NULL;
    assert_int_equal(rs_store_open(db, RS_STORE_NO_UPGRADE, &s, err, sizeof err), RS_OK);
    uint64_t c5 = 0, formula = 0;
    rs_car_params *car = NULL;
    assert_true(test_car_load("c5", &car));
    c5 = rs_car_params_hash(car);
    rs_car_params_destroy(car);
    assert_true(test_car_load("formula", &car));
    formula = rs_car_params_hash(car);
    rs_car_params_destroy(car);
    int64_t ada = 0, bo = 0, cy = 0;
    assert_int_equal(rs_store_player_find(s, "ada", &ada, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_register(s, "bo", 1700000000, &bo, token, err, sizeof err),
                     RS_OK);
    assert_int_equal(rs_store_player_register(s, "cy", 1700000000, &cy, token, err, sizeof err),
                     RS_OK);
    put_lap(s, ada, oval, c5, 61000000);
    put_lap(s, ada, oval, formula, 52000000);
    put_lap(s, bo, oval, c5, 58000000);
    put_lap(s, cy, oval, formula, 60000000);
    rs_store_close(s);

    expect_racectl(db, "leaderboard --track oval --car c5 --car formula", 0,
                   "Saltmarsh Speedway / Chevrolet Corvette C5 + Formula (2019-era F1) / any tune",
                   "3 players", "CAR", NULL);
    char out[16384];
    assert_int_equal(racectl(db, "--json leaderboard --track oval --car c5 --car formula", out,
                             sizeof out),
                     0);
    /* ada's formula lap, bo's C5 lap, cy's formula lap, in that order. */
    const char *a = strstr(out, "\"player\": \"ada\"");
    const char *b = strstr(out, "\"player\": \"bo\"");
    const char *c = strstr(out, "\"player\": \"cy\"");
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    assert_true(a < b && b < c);
    assert_null(strstr(a + 1, "\"player\": \"ada\"")); /* once */
    assert_non_null(strstr(a, "\"time_us\": 52000000"));
    /* Each row names the car its lap was driven in. */
    const char *a_car = strstr(a, "\"car\": \"Formula (2019-era F1)\"");
    const char *b_car = strstr(b, "\"car\": \"Chevrolet Corvette C5\"");
    assert_non_null(a_car);
    assert_non_null(b_car);
    assert_true(a_car < b && b_car < c);
    assert_non_null(strstr(out, "\"players\": 3"));

    expect_racectl(db, "rank --player bo --track oval --car formula --car c5 --around 1", 0,
                   "bo: rank 2 of 3", NULL);
    expect_racectl(db, "--json rank --player cy --track oval --car formula --car c5", 0,
                   "\"rank\": 3", NULL);
    /* A tune belongs to one car; the other commands show one car's board. */
    expect_racectl(db, "leaderboard --track oval --car c5 --car formula --tune 00000000000000aa",
                   2, "'any' or 'stock'", NULL);
    expect_racectl(db, "recent --track oval --car c5 --car formula", 2, "one --car", NULL);
    /* The stock laps only: the same here, every lap was stock. */
    expect_racectl(db, "leaderboard --track oval --car c5 --car formula --tune stock", 0,
                   "stock cars", "3 players", NULL);
    test_tmpdb_remove(&tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_recorded_lap_verifies_and_tampering_is_named),
        cmocka_unit_test(test_tracks_and_cars_by_name_hash_or_data_file),
        cmocka_unit_test(test_several_cars_make_a_class_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
