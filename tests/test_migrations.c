/*
 * The migration runner: a fresh database gets every embedded migration; a
 * database at every earlier version upgrades to exactly the schema a fresh
 * one has; a changed, missing or unknown newer migration is refused with a
 * clear error and the file is left as it was.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "racesim/identity.h"
#include "racesim/leaderboard.h"
#include "racesim/store.h"
#include "racesim/store_testing.h"
#include "test_data.h"
#include "test_sql.h"

/* The schema as text, everything but SQLite's own objects, in name order. */
static char *schema_text(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT type || ' ' || name || ' ' || coalesce(sql, '') "
                                        "FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
                                        "ORDER BY name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    size_t cap = 1 << 16, n = 0;
    char *out = calloc(1, cap);
    assert_non_null(out);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        size_t len = strlen(t);
        assert_true(n + len + 2 < cap);
        memcpy(out + n, t, len);
        n += len;
        out[n++] = '\n';
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

static void test_embedded_migrations_are_numbered_from_one(void **state)
{
    (void)state;
    assert_true(rs_store__migration_count >= 2);
    assert_int_equal(rs_store_schema_latest(), rs_store__migration_count);
    for (uint32_t i = 0; i < rs_store__migration_count; i++) {
        assert_int_equal(rs_store__migrations[i].version, i + 1);
        assert_int_equal(strlen(rs_store__migrations[i].sql), rs_store__migrations[i].size);
        char prefix[16];
        snprintf(prefix, sizeof prefix, "%04u_", i + 1);
        assert_memory_equal(rs_store__migrations[i].file, prefix, 5);
    }
    assert_string_equal(rs_store__migrations[0].name, "initial");
}

/* The lower-case hex SHA-256 of text. */
static const char *sha256_hex(const char *text, char hex[65])
{
    uint8_t d[32];
    rs_sha256(text, strlen(text), d);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    return hex;
}

static void test_sha256_matches_the_standard_vectors(void **state)
{
    (void)state;
    char hex[65];
    assert_string_equal(sha256_hex("abc", hex),
                        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_string_equal(sha256_hex("", hex),
                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_string_equal(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", hex),
                        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* Opens path applying at most upto migrations, which must work and leave
 * the schema at version want, and closes it. */
static void open_ok(const char *path, unsigned flags, uint32_t upto, uint32_t want)
{
    char err[512];
    rs_store *s = NULL;
    assert_int_equal(rs_store__open_upto(path, flags, upto, &s, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_schema_version(s), want);
    rs_store_close(s);
}

/* Opens path, which must be refused with status want; returns the message. */
static const char *open_refused(const char *path, unsigned flags, rs_status want,
                                char err[512])
{
    rs_store *s = NULL;
    assert_int_equal(rs_store_open(path, flags, &s, err, 512), want);
    assert_null(s);
    return err;
}

/* A database at the latest schema whose history sql then changes behind the
 * store's back. */
static void tamper(const test_tmpdb *f, const char *sql)
{
    open_ok(f->path, RS_STORE_CREATE, rs_store__migration_count, rs_store__migration_count);
    test_sql_value(f->path, sql);
}

static void test_fresh_database_gets_every_migration(void **state)
{
    test_tmpdb *f = *state;
    const uint32_t latest = rs_store__migration_count;
    open_ok(f->path, RS_STORE_CREATE, latest, latest);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM schema_migrations"), latest);
    assert_int_equal(test_sql_value(f->path, "SELECT max(version) FROM schema_migrations"), latest);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM schema_migrations "
                                  "WHERE length(sha256) = 64"),
                     latest);
    /* Reopening applies nothing and agrees with the history. */
    open_ok(f->path, RS_STORE_CREATE, latest, latest);
    open_ok(f->path, RS_STORE_READONLY, latest, latest);
}

static void test_every_earlier_version_upgrades_to_the_fresh_schema(void **state)
{
    test_tmpdb *f = *state;
    const uint32_t latest = rs_store__migration_count;
    open_ok(f->path, RS_STORE_CREATE, latest, latest);
    char *fresh = schema_text(f->path);
    unlink(f->path);

    for (uint32_t k = 0; k < latest; k++) {
        char path[160], err[512];
        snprintf(path, sizeof path, "%s/v%u.db", f->dir, k);
        if (k == 0) {
            /* Version 0: an empty file, as a new deployment creates it. */
            FILE *fp = fopen(path, "wb");
            assert_non_null(fp);
            fclose(fp);
        } else {
            open_ok(path, RS_STORE_CREATE, k, k);
            assert_int_equal(test_sql_value(path, "SELECT max(version) FROM schema_migrations"), k);
            /* A read-only open of an old schema is refused, not upgraded. */
            assert_non_null(
                strstr(open_refused(path, RS_STORE_READONLY, RS_ERR_MISMATCH, err), "older"));
            assert_int_equal(test_sql_value(path, "SELECT max(version) FROM schema_migrations"), k);
        }
        open_ok(path, RS_STORE_CREATE, latest, latest);
        char *upgraded = schema_text(path);
        assert_string_equal(upgraded, fresh);
        free(upgraded);
        test_db_remove(path);
    }
    free(fresh);
}

#define ZEROS "00000000000000000000000000000000" /* 32 of the 64 */

static void test_changed_migration_is_refused(void **state)
{
    test_tmpdb *f = *state;
    char err[512];
    tamper(f, "UPDATE schema_migrations SET sha256 = '" ZEROS ZEROS "' WHERE version = 1");
    open_refused(f->path, RS_STORE_CREATE, RS_ERR_MISMATCH, err);
    assert_non_null(strstr(err, f->path));
    assert_non_null(strstr(err, "0001_initial.sql changed after it was applied"));
    open_refused(f->path, RS_STORE_READONLY, RS_ERR_MISMATCH, err);
    /* Nothing was rewritten. */
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM schema_migrations "
                                              "WHERE sha256 = '" ZEROS ZEROS "'"),
                     1);
}

static void test_renamed_or_missing_migration_is_refused(void **state)
{
    test_tmpdb *f = *state;
    static const char *const cases[][2] = {
        /* the history, changed; what the refusal must say */
        {"UPDATE schema_migrations SET name = 'something_else' WHERE version = 1",
         "something_else"},
        {"DELETE FROM schema_migrations WHERE version = 1", "expected migration 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[512];
        tamper(f, cases[i][0]);
        assert_non_null(
            strstr(open_refused(f->path, RS_STORE_CREATE, RS_ERR_MISMATCH, err), cases[i][1]));
        test_db_remove(f->path);
    }
}

static void test_newer_schema_is_refused(void **state)
{
    test_tmpdb *f = *state;
    char err[512];
    /* What a newer build leaves behind: a migration this one does not have. */
    tamper(f, "CREATE TABLE from_the_future (x INTEGER);"
              "INSERT INTO schema_migrations (version, name, sha256, applied_at) "
              "SELECT max(version) + 1, 'future', "
              "'1111111111111111111111111111111111111111111111111111111111111111', 0 "
              "FROM schema_migrations");
    unsigned modes[] = {RS_STORE_CREATE, 0, RS_STORE_READONLY};
    for (size_t i = 0; i < 3; i++) {
        open_refused(f->path, modes[i], RS_ERR_MISMATCH, err);
        assert_non_null(strstr(err, f->path));
        assert_non_null(strstr(err, "newer than this build"));
    }
    assert_int_equal(test_sql_value(f->path, "SELECT max(version) FROM schema_migrations"),
                     rs_store__migration_count + 1);
}

static void test_foreign_database_is_left_alone(void **state)
{
    test_tmpdb *f = *state;
    char err[512];
    test_sql_value(f->path, "CREATE TABLE somebody_elses (x INTEGER); "
                            "INSERT INTO somebody_elses VALUES (7)");
    open_refused(f->path, RS_STORE_CREATE, RS_ERR_FORMAT, err);
    assert_non_null(strstr(err, "not a racesim database"));
    assert_int_equal(test_sql_value(f->path, "SELECT x FROM somebody_elses"), 7);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM sqlite_master "
                                  "WHERE name = 'schema_migrations'"),
                     0);
}

/* Migration 0006 (identity) on a database with players: everyone already
 * registered stays able to log in (confirmed, no admin rights), and ids
 * keep growing. */
static void test_identity_migration_keeps_existing_players(void **state)
{
    test_tmpdb *f = *state;
    char err[512];
    open_ok(f->path, RS_STORE_CREATE, 5, 5);
    /* A player as a build of schema 5 stored them: token 32 bytes of 0x11,
     * salt 16 bytes of 0x22, hash SHA-256(salt || token). */
    uint8_t secret[48], hash[32];
    memset(secret, 0x22, 16);
    memset(secret + 16, 0x11, 32);
    rs_sha256(secret, sizeof secret, hash);
    char sql[512], hex[65];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", hash[i]);
    snprintf(sql, sizeof sql,
             "INSERT INTO players (id, name, token_salt, token_hash, created_at) VALUES "
             "(7, 'veteran', x'22222222222222222222222222222222', x'%s', 1);"
             "INSERT INTO players (id, name, token_salt, token_hash, created_at) VALUES "
             "(8, '~guest', x'22222222222222222222222222222222', x'%s', 1)",
             hex, hex);
    test_sql_value(f->path, sql);

    rs_store *s = NULL;
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    char token[RS_TOKEN_HEX_LEN + 1];
    memset(token, '1', RS_TOKEN_HEX_LEN);
    token[RS_TOKEN_HEX_LEN] = '\0';
    int64_t id = 0;
    assert_int_equal(rs_store_player_auth(s, "veteran", token, &id, err, sizeof err), RS_OK);
    assert_int_equal(id, 7);
    rs_store_player_info info;
    assert_int_equal(rs_store_player_info_get(s, 7, &info, err, sizeof err), RS_OK);
    assert_true(info.confirmed);
    assert_false(info.admin);
    assert_int_equal(rs_store_player_info_by_name(s, "~guest", &info, err, sizeof err), RS_OK);
    assert_true(info.confirmed && info.guest);
    int64_t version = -1;
    assert_int_equal(rs_store_bans_version(s, &version, err, sizeof err), RS_OK);
    assert_int_equal(version, 0);
    assert_int_equal(rs_store_player_register(s, "rookie", 2, &id, token, err, sizeof err),
                     RS_OK);
    assert_int_equal(id, 9);
    rs_store_close(s);
}

/* Migration 0007 (sessions and championships) on a database with races:
 * every old race is a 'race' session of no named room, every old result is
 * classified exactly when it finished, in class position = position, and
 * the smallest best lap of each race holds the fastest lap. */
static void test_sessions_migration_keeps_old_results(void **state)
{
    test_tmpdb *f = *state;
    open_ok(f->path, RS_STORE_CREATE, 6, 6);
    test_sql_value(f->path,
                   "INSERT INTO players (id, name, token_salt, token_hash, created_at) VALUES "
                   "(1, 'ada', zeroblob(16), zeroblob(32), 1), "
                   "(2, 'bo', zeroblob(16), zeroblob(32), 1), "
                   "(3, 'cy', zeroblob(16), zeroblob(32), 1);"
                   "INSERT INTO cars (id, params_hash, name, base_hash, block) VALUES "
                   "(1, 11, 'c5', 11, x'00');"
                   "INSERT INTO tracks (id, track_hash, name, definition) VALUES "
                   "(1, 22, 'oval', '{}');"
                   "INSERT INTO races (id, track_id, laps, physics_version, started_at, "
                   "finished_at, status) VALUES (1, 1, 3, 1, 100, 200, 'finished'), "
                   "(2, 1, 3, 1, 300, NULL, 'interrupted');"
                   "INSERT INTO race_results (race_id, player_id, car_id, position, finished, "
                   "finish_us, laps_completed, best_lap_us, barrier_hits, car_hits) VALUES "
                   "(1, 1, 1, 1, 1, 90000000, 3, 30000000, 0, 0), "
                   "(1, 2, 1, 2, 1, 91000000, 3, 29500000, 0, 0), "
                   "(1, 3, 1, 3, 0, NULL, 1, NULL, 0, 0)");
    open_ok(f->path, RS_STORE_CREATE, rs_store__migration_count, rs_store__migration_count);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM races WHERE session_type = "
                                             "'race' AND session_index = 0 AND weekend = 0 "
                                             "AND room IS NULL"),
                     2);
    assert_int_equal(test_sql_value(f->path, "SELECT (SELECT group_concat(status, ',') FROM "
                                             "(SELECT status FROM race_results ORDER BY "
                                             "position)) = 'classified,classified,"
                                             "not_classified'"),
                     1);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM race_results WHERE "
                                             "class_position = position AND class_name = '' "
                                             "AND penalty_ms = 0 AND laps_led = 0 "
                                             "AND car_number IS NULL"),
                     3);
    assert_int_equal(test_sql_value(f->path, "SELECT player_id FROM race_results "
                                             "WHERE fastest_lap = 1"),
                     2);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM race_results "
                                             "WHERE fastest_lap = 1"),
                     1);
    /* The new columns take new rows through the store's API. */
    char err[512];
    rs_store *s = NULL;
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    rs_store_race race = {.track_hash = 22, .laps = 0, .physics_version = 1, .started_at = 400,
                          .session_type = RS_STORE_SESSION_QUALIFYING, .session_index = 1,
                          .weekend = 4, .room = "sprint"};
    int64_t race_id = 0;
    assert_int_equal(rs_store_race_create(s, &race, &race_id, err, sizeof err), RS_OK);
    rs_store_result r = {.race_id = race_id, .player_id = 3, .params_hash = 11, .position = 2,
                         .finish_us = -1, .laps_completed = 4, .best_lap_us = 31000000,
                         .status = RS_STORE_RESULT_DISQUALIFIED, .class_position = 1,
                         .class_name = "GT", .penalty_ms = 5000, .laps_led = 2,
                         .car_number = 44, .fastest_lap = true};
    assert_int_equal(rs_store_put_result(s, &r, err, sizeof err), RS_OK);
    r.class_position = 3; /* more than its position: refused */
    assert_int_equal(rs_store_put_result(s, &r, err, sizeof err), RS_ERR_RANGE);
    race.session_index = 16; /* a weekend has at most 16 sessions */
    assert_int_equal(rs_store_race_create(s, &race, &race_id, err, sizeof err), RS_ERR_RANGE);
    race.session_index = 1;
    race.session_type = RS_STORE_SESSION_TYPE_COUNT;
    assert_int_equal(rs_store_race_create(s, &race, &race_id, err, sizeof err), RS_ERR_RANGE);
    rs_store_close(s);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM races WHERE session_type = "
                                             "'qualifying' AND session_index = 1 AND weekend = 4"
                                             " AND room = 'sprint'"),
                     1);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM race_results WHERE "
                                             "status = 'disqualified' AND class_name = 'GT' AND "
                                             "class_position = 1 AND penalty_ms = 5000 AND "
                                             "laps_led = 2 AND car_number = 44 AND fastest_lap"),
                     1);
}

/* Migration 0008 (race penalties) on a database of version 7 with a race:
 * its results stay as they were, with no penalties (only their total was
 * kept); a new result's penalties go in with it through the store's API,
 * are read back in id order, replaced when the result is written again,
 * refused whole when one breaks the rules, and go with their race. */
static void test_penalties_migration_keeps_old_results(void **state)
{
    test_tmpdb *f = *state;
    open_ok(f->path, RS_STORE_CREATE, 7, 7);
    test_sql_value(f->path,
                   "INSERT INTO players (id, name, token_salt, token_hash, created_at) VALUES "
                   "(1, 'ada', zeroblob(16), zeroblob(32), 1), "
                   "(2, 'bo', zeroblob(16), zeroblob(32), 1);"
                   "INSERT INTO cars (id, params_hash, name, base_hash, block) VALUES "
                   "(1, 11, 'c5', 11, x'00');"
                   "INSERT INTO tracks (id, track_hash, name, definition) VALUES "
                   "(1, 22, 'oval', '{}');"
                   "INSERT INTO races (id, track_id, laps, physics_version, started_at, "
                   "finished_at, status) VALUES (1, 1, 3, 1, 100, 200, 'finished');"
                   "INSERT INTO race_results (race_id, player_id, car_id, position, finished, "
                   "finish_us, laps_completed, best_lap_us, barrier_hits, car_hits, "
                   "penalty_ms) VALUES (1, 1, 1, 1, 1, 90000000, 3, 30000000, 0, 0, 5000)");
    open_ok(f->path, RS_STORE_CREATE, rs_store__migration_count, rs_store__migration_count);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM race_penalties"), 0);
    assert_int_equal(test_sql_value(f->path, "SELECT penalty_ms FROM race_results"), 5000);

    char err[512];
    rs_store *s = NULL;
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    rs_store_penalty pen[3] = {
        {.id = 1, .kind = RS_STORE_PENALTY_WARNING, .offence = RS_STORE_OFFENCE_TRACK_LIMITS,
         .tick = 500, .race_time_us = 6000000, .reason = "track limits 1/2"},
        {.id = 4, .kind = RS_STORE_PENALTY_TIME, .offence = RS_STORE_OFFENCE_JUMP_START,
         .seconds = 10, .tick = 120, .race_time_us = 0, .reason = "jump start"},
        {.id = 7, .kind = RS_STORE_PENALTY_DSQ, .offence = RS_STORE_OFFENCE_ADMIN, .tick = 900,
         .race_time_us = 13000000, .reason = "pit lane", .removed = true, .removed_tick = 950,
         .removed_race_time_us = 13800000, .removed_reason = "it was the other car"},
    };
    rs_store_result r = {.race_id = 1, .player_id = 2, .params_hash = 11, .position = 2,
                         .finish_us = -1, .best_lap_us = -1,
                         .status = RS_STORE_RESULT_NOT_CLASSIFIED, .penalty_ms = 10000,
                         .penalties = pen, .penalty_count = 3};
    assert_int_equal(rs_store_put_result(s, &r, err, sizeof err), RS_OK);
    rs_leaderboard *lb = NULL;
    assert_int_equal(rs_leaderboard_open(s, &lb, err, sizeof err), RS_OK);
    rs_lb_penalty got[4];
    uint32_t n = 0, total = 0;
    assert_int_equal(rs_leaderboard_penalties(lb, 1, got, 4, &n, &total, err, sizeof err), RS_OK);
    assert_int_equal(n, 3);
    assert_int_equal(total, 3);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(got[i].player_id, 2);
        assert_int_equal(got[i].penalty.id, pen[i].id);
        assert_int_equal(got[i].penalty.kind, pen[i].kind);
        assert_int_equal(got[i].penalty.offence, pen[i].offence);
        assert_int_equal(got[i].penalty.seconds, pen[i].seconds);
        assert_int_equal(got[i].penalty.tick, pen[i].tick);
        assert_int_equal(got[i].penalty.race_time_us, pen[i].race_time_us);
        assert_string_equal(got[i].penalty.reason, pen[i].reason);
        assert_int_equal(got[i].penalty.removed, pen[i].removed);
        assert_string_equal(got[i].penalty.removed_reason, pen[i].removed_reason);
    }
    assert_int_equal(got[2].penalty.removed_tick, 950);
    assert_int_equal(got[2].penalty.removed_race_time_us, 13800000);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM race_penalties WHERE "
                                             "penalty_id = 7 AND kind = 'dsq' AND offence = "
                                             "'admin' AND removed AND removed_reason = 'it was "
                                             "the other car'"),
                     1);

    /* Written again: its penalties are the new ones. */
    r.penalty_count = 2;
    assert_int_equal(rs_store_put_result(s, &r, err, sizeof err), RS_OK);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM race_penalties"), 2);
    /* A removed warning (nothing to take back) or a time penalty without
     * seconds: the whole result is refused, and what was stored stays. */
    pen[0].removed = true;
    r.penalty_ms = 1;
    assert_int_equal(rs_store_put_result(s, &r, err, sizeof err), RS_ERR_RANGE);
    assert_non_null(strstr(err, "penalty 1: a warning cannot be removed"));
    pen[0].removed = false;
    pen[1].seconds = 0;
    assert_int_equal(rs_store_put_result(s, &r, err, sizeof err), RS_ERR_RANGE);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM race_penalties"), 2);
    assert_int_equal(test_sql_value(f->path, "SELECT penalty_ms FROM race_results WHERE "
                                             "player_id = 2"),
                     10000);
    rs_leaderboard_close(lb);
    rs_store_close(s);
    /* They go with their race. */
    test_sql_value(f->path, "PRAGMA foreign_keys = ON; DELETE FROM races WHERE id = 1");
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM race_penalties"), 0);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, test_tmpdb_setup, test_tmpdb_teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_embedded_migrations_are_numbered_from_one),
        cmocka_unit_test(test_sha256_matches_the_standard_vectors),
        T(test_fresh_database_gets_every_migration),
        T(test_every_earlier_version_upgrades_to_the_fresh_schema),
        T(test_changed_migration_is_refused),
        T(test_renamed_or_missing_migration_is_refused),
        T(test_newer_schema_is_refused),
        T(test_foreign_database_is_left_alone),
        T(test_identity_migration_keeps_existing_players),
        T(test_sessions_migration_keeps_old_results),
        T(test_penalties_migration_keeps_old_results),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
