/*
 * Championship standings from stored results (racesim/championship.h) and
 * through `racectl standings`: points summed over several events and rooms,
 * pole and fastest-lap points, per-class standings, ties sharing a
 * position, a disqualified driver scoring nothing, and sessions that do not
 * count (stopped, another room, a type that does not score).
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run_command.h"

#include "racesim/championship.h"
#include "racesim/store.h"
#include "test_data.h"
#include "test_sql.h"

#define CAR UINT64_C(11)
#define TRACK UINT64_C(22)

enum { ADA = 1, BO = 2, CY = 3, DEE = 4, EVE = 5 };

typedef struct row {
    int64_t player;
    uint32_t position, class_position;
    rs_store_result_status status;
    const char *cls;
    int64_t best_lap_us;
    bool fastest;
} row;

static int64_t session(rs_store *s, const char *room, rs_store_session_type type,
                       rs_store_race_status end, const row *rows, size_t n)
{
    char err[512];
    rs_store_race race = {.track_hash = TRACK, .laps = 3, .physics_version = 1,
                          .started_at = 1000, .session_type = type, .weekend = 1};
    snprintf(race.room, sizeof race.room, "%s", room);
    int64_t id = 0;
    assert_int_equal(rs_store_race_create(s, &race, &id, err, sizeof err), RS_OK);
    for (size_t i = 0; i < n; i++) {
        rs_store_result r = {.race_id = id, .player_id = rows[i].player, .params_hash = CAR,
                             .position = rows[i].position,
                             .finished = rows[i].status == RS_STORE_RESULT_CLASSIFIED,
                             .finish_us = -1, .laps_completed = 3,
                             .best_lap_us = rows[i].best_lap_us, .status = rows[i].status,
                             .class_position = rows[i].class_position,
                             .fastest_lap = rows[i].fastest};
        snprintf(r.class_name, sizeof r.class_name, "%s", rows[i].cls);
        assert_int_equal(rs_store_put_result(s, &r, err, sizeof err), RS_OK);
    }
    assert_int_equal(rs_store_race_end(s, id, end, 2000, err, sizeof err), RS_OK);
    return id;
}

#define C RS_STORE_RESULT_CLASSIFIED
#define NC RS_STORE_RESULT_NOT_CLASSIFIED
#define DQ RS_STORE_RESULT_DISQUALIFIED

/* The season of the tests: two rooms of the championship, one that is not. */
static rs_store *season(const test_tmpdb *f)
{
    char err[512];
    rs_store *s = NULL;
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    test_sql_value(f->path,
                   "INSERT INTO players (id, name, token_salt, token_hash, created_at) VALUES "
                   "(1, 'ada', zeroblob(16), zeroblob(32), 1), "
                   "(2, 'bo', zeroblob(16), zeroblob(32), 1), "
                   "(3, 'cy', zeroblob(16), zeroblob(32), 1), "
                   "(4, 'dee', zeroblob(16), zeroblob(32), 1), "
                   "(5, '~eve', zeroblob(16), zeroblob(32), 1);"
                   "INSERT INTO cars (id, params_hash, name, base_hash, block) VALUES "
                   "(1, 11, 'c5', 11, x'00');"
                   "INSERT INTO tracks (id, track_hash, name, definition) VALUES "
                   "(1, 22, 'oval', '{}')");
    /* sprint, weekend 1: qualifying, then the race (cy disqualified with the
     * fastest lap, eve not classified). */
    const row q1[] = {{ADA, 1, 1, C, "GT", 30000000, true},
                      {BO, 2, 2, C, "GT", 30100000, false},
                      {CY, 3, 1, C, "P", 30200000, false},
                      {DEE, 4, 2, C, "P", 30300000, false}};
    session(s, "sprint", RS_STORE_SESSION_QUALIFYING, RS_STORE_RACE_FINISHED, q1, 4);
    const row r1[] = {{BO, 1, 1, C, "GT", 30500000, false},
                      {ADA, 2, 2, C, "GT", 30000000, false},
                      {DEE, 3, 1, C, "P", 29800000, false},
                      {EVE, 4, 3, NC, "GT", 31000000, false},
                      {CY, 5, 2, DQ, "P", 29000000, true}};
    session(s, "sprint", RS_STORE_SESSION_RACE, RS_STORE_RACE_FINISHED, r1, 5);
    /* a practice (does not score) */
    const row p1[] = {{DEE, 1, 1, C, "P", 28000000, true}};
    session(s, "endurance", RS_STORE_SESSION_PRACTICE, RS_STORE_RACE_FINISHED, p1, 1);
    /* endurance: ada wins with the fastest lap */
    const row r2[] = {{ADA, 1, 1, C, "GT", 29900000, true},
                      {CY, 2, 1, C, "P", 29500000, false},
                      {BO, 3, 2, C, "GT", 30200000, false},
                      {DEE, 4, 2, C, "P", 30100000, false}};
    session(s, "endurance", RS_STORE_SESSION_RACE, RS_STORE_RACE_FINISHED, r2, 4);
    /* stopped, and a room outside the championship: neither counts */
    const row r3[] = {{DEE, 1, 1, C, "P", 29000000, true}};
    session(s, "sprint", RS_STORE_SESSION_RACE, RS_STORE_RACE_STOPPED, r3, 1);
    session(s, "other", RS_STORE_SESSION_RACE, RS_STORE_RACE_FINISHED, r3, 1);
    return s;
}

static const char *const rooms[] = {"sprint", "endurance"};

static rs_championship_def cup(void)
{
    return (rs_championship_def){.name = "Club Cup", .rooms = rooms, .room_count = 2,
                                 .pole_points = 3, .fastest_lap_points = 2};
}

static void expect_row(const rs_championship_row *r, uint32_t position, const char *name,
                       uint32_t points, uint32_t events, uint32_t wins)
{
    assert_string_equal(r->name, name);
    assert_int_equal(r->position, position);
    assert_int_equal(r->points, points);
    assert_int_equal(r->events, events);
    assert_int_equal(r->wins, wins);
}

static void test_points_sum_over_events(void **state)
{
    test_tmpdb *f = *state;
    rs_store *s = season(f);
    rs_championship_def c = cup();
    rs_championship_row rows[8];
    uint32_t total = 0;
    char err[512];
    assert_int_equal(rs_store_standings(s, &c, NULL, 0, rows, 8, &total, err, sizeof err),
                     RS_OK);
    assert_int_equal(total, 5);
    /* ada: pole 3 + 18 + 25 + fastest lap 2; bo 25 + 15; dee 15 + 12; cy
     * disqualified (no points, not even its fastest lap) + 18; eve not
     * classified: an event, no points. */
    expect_row(&rows[0], 1, "ada", 48, 2, 1);
    assert_int_equal(rows[0].poles, 1);
    assert_int_equal(rows[0].fastest_laps, 1);
    expect_row(&rows[1], 2, "bo", 40, 2, 1);
    expect_row(&rows[2], 3, "dee", 27, 2, 0);
    expect_row(&rows[3], 4, "cy", 18, 2, 0);
    assert_int_equal(rows[3].fastest_laps, 0);
    expect_row(&rows[4], 5, "eve", 0, 1, 0);
    assert_true(rows[4].guest);
    /* A page from offset 3. */
    assert_int_equal(rs_store_standings(s, &c, "", 3, rows, 8, &total, err, sizeof err), RS_OK);
    assert_int_equal(total, 5);
    expect_row(&rows[0], 4, "cy", 18, 2, 0);
    rs_store_close(s);
}

static void test_class_standings_use_class_positions(void **state)
{
    test_tmpdb *f = *state;
    rs_store *s = season(f);
    rs_championship_def c = cup();
    rs_championship_row rows[8];
    uint32_t total = 0;
    char err[512];
    /* GT: ada pole 3 + 18 + class fastest lap 2 + 25 + 2; bo 25 + 18; eve 0. */
    assert_int_equal(rs_store_standings(s, &c, "GT", 0, rows, 8, &total, err, sizeof err),
                     RS_OK);
    assert_int_equal(total, 3);
    expect_row(&rows[0], 1, "ada", 50, 2, 1);
    expect_row(&rows[1], 2, "bo", 43, 2, 1);
    expect_row(&rows[2], 3, "eve", 0, 1, 0);
    assert_string_equal(rows[0].class_name, "GT");
    /* P: the class's pole is cy's (3); in the sprint its fastest lap (and
     * everything else) is lost to the disqualification; at endurance it wins
     * the class with its fastest lap: 3 + 25 + 2. dee: 25 + 18. */
    assert_int_equal(rs_store_standings(s, &c, "P", 0, rows, 8, &total, err, sizeof err),
                     RS_OK);
    assert_int_equal(total, 2);
    expect_row(&rows[0], 1, "dee", 43, 2, 1);
    expect_row(&rows[1], 2, "cy", 30, 2, 1);
    assert_int_equal(rows[1].poles, 1);
    rs_store_close(s);
}

static void test_ties_share_a_position(void **state)
{
    test_tmpdb *f = *state;
    rs_store *s = season(f);
    static const uint32_t points[] = {10, 10, 5};
    static const char *const endurance[] = {"endurance"};
    rs_championship_def c = {.name = "Tie Cup", .rooms = endurance, .room_count = 1,
                             .points = points, .points_count = 3};
    rs_championship_row rows[8];
    uint32_t total = 0;
    char err[512];
    assert_int_equal(rs_store_standings(s, &c, NULL, 0, rows, 8, &total, err, sizeof err),
                     RS_OK);
    assert_int_equal(total, 4);
    expect_row(&rows[0], 1, "ada", 10, 1, 1); /* the win orders it first */
    expect_row(&rows[1], 1, "cy", 10, 1, 0);
    expect_row(&rows[2], 3, "bo", 5, 1, 0);
    expect_row(&rows[3], 4, "dee", 0, 1, 0);
    /* Practice scoring too: dee's practice win counts. */
    c.session_types = 1u << RS_STORE_SESSION_RACE | 1u << RS_STORE_SESSION_PRACTICE;
    assert_int_equal(rs_store_standings(s, &c, NULL, 0, rows, 8, &total, err, sizeof err),
                     RS_OK);
    expect_row(&rows[0], 1, "ada", 10, 1, 1);
    expect_row(&rows[1], 1, "dee", 10, 2, 1);
    expect_row(&rows[2], 1, "cy", 10, 1, 0);
    /* A bad definition is refused with its reason. */
    c.room_count = 0;
    assert_int_equal(rs_store_standings(s, &c, NULL, 0, rows, 8, &total, err, sizeof err),
                     RS_ERR_ARG);
    assert_non_null(strstr(err, "rooms"));
    rs_store_close(s);
}

/* racectl reads the championship from raceserver's configuration file. */
static void test_racectl_standings(void **state)
{
    test_tmpdb *f = *state;
    rs_store_close(season(f));
    char cfg[256], out[16384], cmd[2048];
    snprintf(cfg, sizeof cfg, "%s/server.json", f->dir);
    FILE *o = fopen(cfg, "w");
    assert_non_null(o);
    fputs("{\"rooms\": [{\"name\": \"sprint\"}, {\"name\": \"endurance\"}],\n"
          " \"championships\": [{\"name\": \"Club Cup\", \"rooms\": [\"sprint\", "
          "\"endurance\"], \"pole_points\": 3, \"fastest_lap_points\": 2}]}\n",
          o);
    fclose(o);
    snprintf(cmd, sizeof cmd, "'%s' --db '%s' standings 'club cup' --config '%s' --json 2>&1",
             RS_RACECTL_PATH, f->path, cfg);
    assert_int_equal(run_command(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "\"championship\": \"Club Cup\""));
    assert_non_null(strstr(out, "{\"position\": 1, \"driver\": \"ada\", \"player_id\": 1, "
                                "\"guest\": false, \"class\": \"GT\", \"points\": 48, "
                                "\"events\": 2, \"wins\": 1, \"poles\": 1, \"fastest_laps\": 1}"));
    assert_non_null(strstr(out, "\"driver\": \"eve\", \"player_id\": 5, \"guest\": true"));
    snprintf(cmd, sizeof cmd, "'%s' --db '%s' standings 'Club Cup' --config '%s' --class P 2>&1",
             RS_RACECTL_PATH, f->path, cfg);
    assert_int_equal(run_command(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "Club Cup, class P"));
    assert_non_null(strstr(out, "dee"));
    assert_null(strstr(out, "ada"));
    snprintf(cmd, sizeof cmd, "'%s' --db '%s' standings 'Nope' --config '%s' 2>&1",
             RS_RACECTL_PATH, f->path, cfg);
    assert_int_equal(run_command(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "no championship 'Nope'"));
    snprintf(cmd, sizeof cmd, "'%s' --db '%s' standings 'Club Cup' 2>&1", RS_RACECTL_PATH,
             f->path);
    assert_int_equal(run_command(cmd, out, sizeof out), 2);
    /* results and races show the classification and the session. */
    snprintf(cmd, sizeof cmd, "'%s' --db '%s' --json results 2 2>&1", RS_RACECTL_PATH, f->path);
    assert_int_equal(run_command(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "\"status\": \"disqualified\", \"class\": \"P\", "
                                "\"class_position\": 2, \"penalty_ms\": 0, \"laps_led\": 0, "
                                "\"number\": null, \"fastest_lap\": true, "
                                "\"penalties\": []}"));
    assert_non_null(strstr(out, "\"session\": {\"type\": \"race\", \"index\": 0, "
                                "\"weekend\": 1, \"room\": \"sprint\"}"));
    snprintf(cmd, sizeof cmd, "'%s' --db '%s' results 2 2>&1", RS_RACECTL_PATH, f->path);
    assert_int_equal(run_command(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "DSQ"));
    assert_non_null(strstr(out, "NC"));
    snprintf(cmd, sizeof cmd, "'%s' --db '%s' races 2>&1", RS_RACECTL_PATH, f->path);
    assert_int_equal(run_command(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "qualifying 0/1 @sprint"));
    assert_non_null(strstr(out, "practice 0/1 @endurance"));
    /* A championship naming a room the file does not have is refused. */
    o = fopen(cfg, "w");
    assert_non_null(o);
    fputs("{\"championships\": [{\"name\": \"Club Cup\", \"rooms\": [\"sprint\"]}]}\n", o);
    fclose(o);
    snprintf(cmd, sizeof cmd, "'%s' --db '%s' standings 'Club Cup' --config '%s' 2>&1",
             RS_RACECTL_PATH, f->path, cfg);
    assert_int_equal(run_command(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "no room is named 'sprint'"));
    remove(cfg);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, test_tmpdb_setup, test_tmpdb_teardown)
    const struct CMUnitTest tests[] = {
        T(test_points_sum_over_events),
        T(test_class_standings_use_class_positions),
        T(test_ties_share_a_position),
        T(test_racectl_standings),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
