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

#include "test_data.h"
#include "../server/store/src/migrations.h"
#include "../server/store/src/sha256.h"
#include "../server/store/src/store_internal.h"

typedef struct fixture {
    char dir[64];
    char path[128];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/rs_migrations_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/race.db", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    test_db_remove(f->path);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* Runs SQL with no values on a raw connection (test set-up only). */
static void raw_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "?");
    sqlite3_close(db);
}

static int64_t raw_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

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
    assert_true(rs_migration_count >= 2);
    assert_int_equal(rs_store_schema_latest(), rs_migration_count);
    for (uint32_t i = 0; i < rs_migration_count; i++) {
        assert_int_equal(rs_migrations[i].version, i + 1);
        assert_int_equal(strlen(rs_migrations[i].sql), rs_migrations[i].size);
        char prefix[16];
        snprintf(prefix, sizeof prefix, "%04u_", i + 1);
        assert_memory_equal(rs_migrations[i].file, prefix, 5);
    }
    assert_string_equal(rs_migrations[0].name, "initial");
}

static void test_sha256_matches_the_standard_vectors(void **state)
{
    (void)state;
    uint8_t d[32];
    char hex[65];
    rs_sha256("abc", 3, d);
    rs_hex(d, 32, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    rs_sha256("", 0, d);
    rs_hex(d, 32, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    rs_sha256(two, strlen(two), d);
    rs_hex(d, 32, hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_fresh_database_gets_every_migration(void **state)
{
    fixture *f = *state;
    rs_store *s = NULL;
    char err[512];
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_schema_version(s), rs_migration_count);
    rs_store_close(s);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM schema_migrations"),
                     rs_migration_count);
    assert_int_equal(raw_int(f->path, "SELECT max(version) FROM schema_migrations"),
                     rs_migration_count);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM schema_migrations "
                                      "WHERE length(sha256) = 64"),
                     rs_migration_count);
    /* Reopening applies nothing and agrees with the history. */
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    rs_store_close(s);
    assert_int_equal(rs_store_open(f->path, RS_STORE_READONLY, &s, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_schema_version(s), rs_migration_count);
    rs_store_close(s);
}

static void test_every_earlier_version_upgrades_to_the_fresh_schema(void **state)
{
    fixture *f = *state;
    char err[512];
    rs_store *s = NULL;
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    rs_store_close(s);
    char *fresh = schema_text(f->path);
    unlink(f->path);

    for (uint32_t k = 0; k < rs_migration_count; k++) {
        char path[160];
        snprintf(path, sizeof path, "%s/v%u.db", f->dir, k);
        if (k == 0) {
            /* Version 0: an empty file, as a new deployment creates it. */
            FILE *fp = fopen(path, "wb");
            assert_non_null(fp);
            fclose(fp);
        } else {
            assert_int_equal(rs_store_open_upto(path, RS_STORE_CREATE, k, &s, err, sizeof err),
                             RS_OK);
            assert_int_equal(rs_store_schema_version(s), k);
            rs_store_close(s);
            assert_int_equal(raw_int(path, "SELECT max(version) FROM schema_migrations"), k);
            /* A read-only open of an old schema is refused, not upgraded. */
            assert_int_equal(rs_store_open(path, RS_STORE_READONLY, &s, err, sizeof err),
                             RS_ERR_MISMATCH);
            assert_null(s);
            assert_non_null(strstr(err, "older"));
            assert_int_equal(raw_int(path, "SELECT max(version) FROM schema_migrations"), k);
        }
        assert_int_equal(rs_store_open(path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
        assert_int_equal(rs_store_schema_version(s), rs_migration_count);
        rs_store_close(s);
        char *upgraded = schema_text(path);
        assert_string_equal(upgraded, fresh);
        free(upgraded);
        char p[200];
        snprintf(p, sizeof p, "%s-wal", path);
        unlink(p);
        snprintf(p, sizeof p, "%s-shm", path);
        unlink(p);
        unlink(path);
    }
    free(fresh);
}

static void test_changed_migration_is_refused(void **state)
{
    fixture *f = *state;
    char err[512];
    rs_store *s = NULL;
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    rs_store_close(s);
    raw_exec(f->path, "UPDATE schema_migrations SET sha256 = "
                      "'0000000000000000000000000000000000000000000000000000000000000000' "
                      "WHERE version = 1");
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err),
                     RS_ERR_MISMATCH);
    assert_null(s);
    assert_non_null(strstr(err, f->path));
    assert_non_null(strstr(err, "0001_initial.sql changed after it was applied"));
    assert_int_equal(rs_store_open(f->path, RS_STORE_READONLY, &s, err, sizeof err),
                     RS_ERR_MISMATCH);
    /* Nothing was rewritten. */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM schema_migrations WHERE sha256 = "
                                      "'0000000000000000000000000000000000000000000000000000000000000000'"),
                     1);
}

static void test_renamed_migration_is_refused(void **state)
{
    fixture *f = *state;
    char err[512];
    rs_store *s = NULL;
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    rs_store_close(s);
    raw_exec(f->path, "UPDATE schema_migrations SET name = 'something_else' WHERE version = 1");
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err),
                     RS_ERR_MISMATCH);
    assert_non_null(strstr(err, "something_else"));
}

static void test_gap_in_the_history_is_refused(void **state)
{
    fixture *f = *state;
    char err[512];
    rs_store *s = NULL;
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    rs_store_close(s);
    raw_exec(f->path, "DELETE FROM schema_migrations WHERE version = 1");
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err),
                     RS_ERR_MISMATCH);
    assert_non_null(strstr(err, "expected migration 1"));
}

static void test_newer_schema_is_refused(void **state)
{
    fixture *f = *state;
    char err[512];
    rs_store *s = NULL;
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    rs_store_close(s);
    /* What a newer build leaves behind: a migration this one does not have. */
    raw_exec(f->path, "CREATE TABLE from_the_future (x INTEGER);"
                      "INSERT INTO schema_migrations (version, name, sha256, applied_at) "
                      "SELECT max(version) + 1, 'future', "
                      "'1111111111111111111111111111111111111111111111111111111111111111', 0 "
                      "FROM schema_migrations");
    unsigned modes[] = {RS_STORE_CREATE, 0, RS_STORE_READONLY};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(rs_store_open(f->path, modes[i], &s, err, sizeof err), RS_ERR_MISMATCH);
        assert_null(s);
        assert_non_null(strstr(err, f->path));
        assert_non_null(strstr(err, "newer than this build"));
    }
    assert_int_equal(raw_int(f->path, "SELECT max(version) FROM schema_migrations"),
                     rs_migration_count + 1);
}

static void test_foreign_database_is_left_alone(void **state)
{
    fixture *f = *state;
    char err[512];
    rs_store *s = NULL;
    raw_exec(f->path, "CREATE TABLE somebody_elses (x INTEGER); INSERT INTO somebody_elses VALUES (7)");
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_ERR_FORMAT);
    assert_non_null(strstr(err, "not a racesim database"));
    assert_int_equal(raw_int(f->path, "SELECT x FROM somebody_elses"), 7);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_master "
                                      "WHERE name = 'schema_migrations'"),
                     0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_embedded_migrations_are_numbered_from_one),
        cmocka_unit_test(test_sha256_matches_the_standard_vectors),
        cmocka_unit_test_setup_teardown(test_fresh_database_gets_every_migration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_earlier_version_upgrades_to_the_fresh_schema,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_migration_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_renamed_migration_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gap_in_the_history_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newer_schema_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_foreign_database_is_left_alone, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
