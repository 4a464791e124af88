/*
 * The synchronous store: opening bad files gives clear errors and leaves
 * them untouched; players and tokens; cars and tracks; laps with proofs and
 * personal bests; races and results; tunes.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "racesim/base/clock.h"
#include "racesim/identity.h"
#include "racesim/leaderboard.h"
#include "racesim/physics.h"
#include "racesim/store.h"
#include "racesim/store_testing.h"
#include "test_data.h"
#include "test_sql.h"

typedef test_tmpdb fixture;

/* Every way of opening path must be refused as not a database (with the
 * path and what in the message), whatever the flags. */
static void refused_in_every_mode(const char *path, const char *what)
{
    unsigned modes[] = {RS_STORE_CREATE, 0, RS_STORE_READONLY};
    for (size_t i = 0; i < 3; i++) {
        rs_store *s = NULL;
        char err[512];
        assert_int_equal(rs_store_open(path, modes[i], &s, err, sizeof err), RS_ERR_FORMAT);
        assert_null(s);
        assert_non_null(strstr(err, path));
        assert_non_null(strstr(err, what));
    }
}

static off_t file_size(const char *path)
{
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return sb.st_size;
}

/* A database with one player, car and track, and the hashes to use. */
typedef struct world {
    rs_store *s;
    int64_t player;
    uint64_t car_hash, track_hash;
} world;

#define TRACK_HASH UINT64_C(0x9e3779b97f4a7c15)

static world make_world(const char *path)
{
    world w = {0};
    char err[512], token[RS_TOKEN_HEX_LEN + 1];
    assert_int_equal(rs_store_open(path, RS_STORE_CREATE, &w.s, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_register(w.s, "alice", 1000, &w.player, token, err,
                                              sizeof err),
                     RS_OK);
    rs_car_params *car = NULL;
    assert_true(test_car_load("c5", &car));
    int64_t car_id = 0, track_id = 0;
    assert_int_equal(rs_store_put_car(w.s, car, 0, &car_id, err, sizeof err), RS_OK);
    w.car_hash = rs_car_params_hash(car);
    rs_car_params_destroy(car);
    assert_int_equal(rs_store_put_track(w.s, TRACK_HASH, "test track", "{\"name\":\"t\"}",
                                        &track_id, err, sizeof err),
                     RS_OK);
    w.track_hash = TRACK_HASH;
    return w;
}

static rs_store_lap lap_for(const world *w, int64_t caller_id, int64_t time_us)
{
    rs_store_lap lap = {0};
    lap.caller_id = caller_id;
    lap.player_id = w->player;
    lap.track_hash = w->track_hash;
    lap.params_hash = w->car_hash;
    lap.base_hash = w->car_hash;
    lap.physics_version = RS_PHYSICS_VERSION;
    lap.lap_number = 1;
    lap.time_us = time_us;
    lap.sector_count = 3;
    lap.sectors_us[0] = time_us / 3;
    lap.sectors_us[1] = time_us / 3;
    lap.sectors_us[2] = time_us - 2 * (time_us / 3);
    lap.valid = true;
    lap.end_hash = UINT64_C(0xfedcba9876543210);
    lap.recorded_at = 2000;
    return lap;
}

/* ------------------------------------------------------------ bad files */

static void test_missing_file_is_a_clear_error(void **state)
{
    fixture *f = *state;
    rs_store *s = (rs_store *)1;
    char err[512];
    assert_int_equal(rs_store_open(f->path, 0, &s, err, sizeof err), RS_ERR_IO);
    assert_null(s);
    assert_non_null(strstr(err, f->path));
    assert_non_null(strstr(err, "does not exist"));
    assert_int_equal(rs_store_open(f->path, RS_STORE_READONLY, &s, err, sizeof err), RS_ERR_IO);
    assert_int_equal(access(f->path, F_OK), -1); /* nothing was created */
    char nodir[200];
    snprintf(nodir, sizeof nodir, "%s/no/such/dir.db", f->dir);
    assert_int_equal(rs_store_open(nodir, RS_STORE_CREATE, &s, err, sizeof err), RS_ERR_IO);
    assert_non_null(strstr(err, nodir));
    assert_int_equal(rs_store_open(f->dir, RS_STORE_CREATE, &s, err, sizeof err), RS_ERR_IO);
    assert_non_null(strstr(err, "directory"));
}

static void test_random_bytes_are_refused_and_left_alone(void **state)
{
    fixture *f = *state;
    uint8_t junk[8192];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof junk; i++) {
        x = x * 1664525u + 1013904223u;
        junk[i] = (uint8_t)(x >> 24);
    }
    FILE *fp = fopen(f->path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(junk, 1, sizeof junk, fp), sizeof junk);
    fclose(fp);
    refused_in_every_mode(f->path, "not a SQLite database or corrupt");
    uint8_t back[sizeof junk];
    fp = fopen(f->path, "rb");
    assert_non_null(fp);
    assert_int_equal(fread(back, 1, sizeof back, fp), sizeof back);
    fclose(fp);
    assert_memory_equal(back, junk, sizeof junk);
}

/* Fills the database with enough laps (incompressible proofs) to span many
 * pages, then closes it, which checkpoints the WAL into the main file. */
static void make_big_database(const char *path)
{
    world w = make_world(path);
    uint8_t proof[4096];
    uint32_t x = 99;
    char err[512];
    for (int i = 0; i < 300; i++) {
        for (size_t j = 0; j < sizeof proof; j++) {
            x = x * 1664525u + 1013904223u;
            proof[j] = (uint8_t)(x >> 24);
        }
        rs_store_lap lap = lap_for(&w, i + 1, 90000000 + i);
        lap.proof = proof;
        lap.proof_len = sizeof proof;
        int64_t id = 0;
        assert_int_equal(rs_store_put_lap(w.s, &lap, &id, err, sizeof err), RS_OK);
    }
    rs_store_close(w.s);
}

static void test_truncated_file_is_refused_and_left_alone(void **state)
{
    fixture *f = *state;
    make_big_database(f->path);
    off_t size = file_size(f->path);
    assert_true(size > 1000000);
    assert_int_equal(truncate(f->path, size / 2), 0);
    refused_in_every_mode(f->path, "corrupt");
    assert_int_equal(file_size(f->path), size / 2);
}

static void test_damaged_page_is_caught_by_the_check(void **state)
{
    fixture *f = *state;
    make_big_database(f->path);
    off_t size = file_size(f->path);
    /* Scribble over a page in the middle of the lap proofs. */
    int fd = open(f->path, O_WRONLY);
    assert_true(fd >= 0);
    uint8_t junk[4096];
    memset(junk, 0xa5, sizeof junk);
    assert_int_equal(pwrite(fd, junk, sizeof junk, (size / 2) & ~(off_t)4095), sizeof junk);
    close(fd);
    rs_store *s = NULL;
    char err[512];
    assert_int_equal(rs_store_open(f->path, RS_STORE_CHECK, &s, err, sizeof err), RS_ERR_FORMAT);
    assert_null(s);
    assert_non_null(strstr(err, f->path));
    assert_non_null(strstr(err, "quick check"));
    /* Without the check the damage is found when it is read. */
    assert_int_equal(rs_store_open(f->path, 0, &s, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_check(s, true, err, sizeof err), RS_ERR_FORMAT);
    rs_store_close(s);
}

/* As root, file permissions do not stop writes: run the check as nobody. */
static void test_read_only_file_is_refused_for_writing(void **state)
{
    fixture *f = *state;
    rs_store *s = NULL;
    char err[512];
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    rs_store_close(s);
    assert_int_equal(chmod(f->path, 0444), 0);
    assert_int_equal(chmod(f->dir, 0755), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3);
        rs_store *c = NULL;
        char e[512];
        rs_status st = rs_store_open(f->path, RS_STORE_CREATE, &c, e, sizeof e);
        if (st != RS_ERR_IO || c != NULL || !strstr(e, "read-only") || !strstr(e, f->path))
            _exit(1);
        st = rs_store_open(f->path, 0, &c, e, sizeof e);
        if (st != RS_ERR_IO)
            _exit(2);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* ------------------------------------------------------------- players */

static void test_player_tokens_are_random_and_stored_only_hashed(void **state)
{
    fixture *f = *state;
    rs_store *s = NULL;
    char err[512], t1[RS_TOKEN_HEX_LEN + 1], t2[RS_TOKEN_HEX_LEN + 1];
    int64_t a = 0, b = 0, id = 0;
    assert_int_equal(rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_register(s, "Alice", 1, &a, t1, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_register(s, "bob", 1, &b, t2, err, sizeof err), RS_OK);
    assert_int_equal(strlen(t1), RS_TOKEN_HEX_LEN);
    assert_string_not_equal(t1, t2);
    assert_true(a != b);
    /* Registration is two-phase (test_identity): confirmed, they log in. */
    assert_int_equal(rs_store_player_confirm(s, a, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_confirm(s, b, err, sizeof err), RS_OK);

    assert_int_equal(rs_store_player_auth(s, "Alice", t1, &id, err, sizeof err), RS_OK);
    assert_int_equal(id, a);
    assert_int_equal(rs_store_player_auth(s, "alice", t1, &id, err, sizeof err), RS_OK);
    char upper[RS_TOKEN_HEX_LEN + 1];
    for (size_t i = 0; i <= RS_TOKEN_HEX_LEN; i++)
        upper[i] = (char)(t1[i] >= 'a' && t1[i] <= 'f' ? t1[i] - 32 : t1[i]);
    assert_int_equal(rs_store_player_auth(s, "Alice", upper, &id, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_auth(s, "Alice", t2, &id, err, sizeof err), RS_ERR_MISMATCH);
    assert_int_equal(rs_store_player_auth(s, "nobody", t1, &id, err, sizeof err),
                     RS_ERR_MISMATCH);
    assert_int_equal(rs_store_player_auth(s, "Alice", "abc", &id, err, sizeof err),
                     RS_ERR_MISMATCH);
    char wrong[RS_TOKEN_HEX_LEN + 1];
    memcpy(wrong, t1, sizeof wrong);
    wrong[10] = wrong[10] == '0' ? '1' : '0';
    assert_int_equal(rs_store_player_auth(s, "Alice", wrong, &id, err, sizeof err),
                     RS_ERR_MISMATCH);

    assert_int_equal(rs_store_player_register(s, "ALICE", 1, &id, t2, err, sizeof err),
                     RS_ERR_RANGE);
    assert_non_null(strstr(err, "taken"));
    assert_int_equal(rs_store_player_register(s, "", 1, &id, t2, err, sizeof err), RS_ERR_RANGE);
    assert_int_equal(rs_store_player_register(s, "0123456789abcdef0123456789abcdefX", 1, &id, t2,
                                              err, sizeof err),
                     RS_ERR_RANGE);
    assert_int_equal(rs_store_player_register(s, "0123456789abcdef0123456789abcdef", 1, &id, t2,
                                              err, sizeof err),
                     RS_OK);
    assert_int_equal(rs_store_player_find(s, "BOB", &id, err, sizeof err), RS_OK);
    assert_int_equal(id, b);
    assert_int_equal(rs_store_player_find(s, "carol", &id, err, sizeof err), RS_ERR_MISSING);
    rs_store_close(s);

    /* The token itself is nowhere in the file's rows. */
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM players WHERE hex(token_hash) = upper('%s') "
             "OR instr(lower(hex(token_salt || token_hash)), '%.32s') > 0",
             t1, t1);
    assert_int_equal(test_sql_value(f->path, sql), 0);
}

/* Guest rows ("~" + a guest's name, kept by the services) that hold no lap
 * are deleted, with their race results, once 30 days old, when a new guest
 * row is made; everything else stays. The work per new guest is bounded. */
static void test_guest_rows_without_laps_are_pruned(void **state)
{
    fixture *f = *state;
    world w = make_world(f->path); /* alice, registered at 1000 */
    char err[512], token[RS_TOKEN_HEX_LEN + 1];
    const int64_t day = 24 * 3600, now = 1000 + 31 * day;
    int64_t no_lap = 0, with_result = 0, with_lap = 0, young = 0, registered = 0, id = 0;
    assert_int_equal(rs_store_player_register(w.s, "~nolap", 1000, &no_lap, token, err,
                                              sizeof err), RS_OK);
    assert_int_equal(rs_store_player_register(w.s, "~result", 1000, &with_result, token, err,
                                              sizeof err), RS_OK);
    assert_int_equal(rs_store_player_register(w.s, "~lap", 1000, &with_lap, token, err,
                                              sizeof err), RS_OK);
    assert_int_equal(rs_store_player_register(w.s, "~young", now - day, &young, token, err,
                                              sizeof err), RS_OK);
    assert_int_equal(rs_store_player_register(w.s, "registered", 1000, &registered, token, err,
                                              sizeof err), RS_OK);
    rs_store_race race = {.track_hash = w.track_hash, .laps = 3,
                          .physics_version = RS_PHYSICS_VERSION, .started_at = 1000};
    int64_t race_id = 0, lap_id = 0;
    assert_int_equal(rs_store_race_create(w.s, &race, &race_id, err, sizeof err), RS_OK);
    rs_store_result r = {.race_id = race_id, .player_id = with_result, .params_hash = w.car_hash,
                         .position = 2, .finish_us = -1, .best_lap_us = -1};
    assert_int_equal(rs_store_put_result(w.s, &r, err, sizeof err), RS_OK);
    r.player_id = with_lap;
    r.position = 1;
    assert_int_equal(rs_store_put_result(w.s, &r, err, sizeof err), RS_OK);
    rs_store_lap lap = lap_for(&w, 1, 90000000);
    lap.player_id = with_lap;
    lap.race_id = race_id;
    assert_int_equal(rs_store_put_lap(w.s, &lap, &lap_id, err, sizeof err), RS_OK);

    /* A registered name prunes nothing; a new guest row does. */
    assert_int_equal(rs_store_player_register(w.s, "carol", now, &id, token, err, sizeof err),
                     RS_OK);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM players"), 7);
    assert_int_equal(rs_store_player_register(w.s, "~newcomer", now, &id, token, err,
                                              sizeof err), RS_OK);
    assert_int_equal(rs_store_player_find(w.s, "~nolap", &id, err, sizeof err), RS_ERR_MISSING);
    assert_int_equal(rs_store_player_find(w.s, "~result", &id, err, sizeof err), RS_ERR_MISSING);
    assert_int_equal(rs_store_player_find(w.s, "~lap", &id, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_find(w.s, "~young", &id, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_find(w.s, "registered", &id, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_find(w.s, "alice", &id, err, sizeof err), RS_OK);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM race_results"), 1);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT player_id FROM race_results");
    assert_int_equal(test_sql_value(f->path, sql), with_lap);

    /* Many stale rows: each new guest row removes those in a bounded sample
     * (32 to 64 of them), so its registration costs the same on any table. */
    test_sql_value(f->path,
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
                   "INSERT INTO players (name, token_salt, token_hash, created_at) "
                   "SELECT '~stale' || i, zeroblob(16), zeroblob(32), 1000 FROM n");
    int64_t before = test_sql_value(f->path, "SELECT count(*) FROM players");
    int64_t t_reg = rs_clock_ns();
    assert_int_equal(rs_store_player_register(w.s, "dave", now, &id, token, err, sizeof err),
                     RS_OK);
    double reg_ms = (double)(rs_clock_ns() - t_reg) / 1e6;
    before++;
    int64_t t0 = rs_clock_ns();
    assert_int_equal(rs_store_player_register(w.s, "~another", now, &id, token, err,
                                              sizeof err), RS_OK);
    double ms = (double)(rs_clock_ns() - t0) / 1e6;
    int64_t removed = before + 1 - test_sql_value(f->path, "SELECT count(*) FROM players");
    printf("[guests] a new guest row among 20000 stale ones: %lld removed, %.2f ms (a "
           "registered player's row: %.2f ms)\n", (long long)removed, ms, reg_ms);
    assert_true(removed >= 32 && removed <= 64);
    rs_store_close(w.s);
}

/* ------------------------------------------------------------ catalogue */

static void test_cars_and_tracks_are_stored_once(void **state)
{
    fixture *f = *state;
    world w = make_world(f->path);
    char err[512];
    rs_car_params *car = NULL;
    assert_true(test_car_load("c5", &car));
    int64_t id1 = 0, id2 = 0, t1 = 0, t2 = 0;
    assert_int_equal(rs_store_put_car(w.s, car, 0, &id1, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_put_car(w.s, car, 0, &id2, err, sizeof err), RS_OK);
    assert_int_equal(id1, id2);
    assert_int_equal(rs_store_car_id(w.s, rs_car_params_hash(car), &id2, err, sizeof err), RS_OK);
    assert_int_equal(id1, id2);
    rs_car_params_destroy(car);
    assert_int_equal(rs_store_put_track(w.s, TRACK_HASH, "x", "{}", &t1, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_put_track(w.s, TRACK_HASH, "x", "{}", &t2, err, sizeof err), RS_OK);
    assert_int_equal(t1, t2);
    assert_int_equal(rs_store_track_id(w.s, 42, &t2, err, sizeof err), RS_ERR_MISSING);
    /* The stored block rebuilds the same car. */
    rs_leaderboard *lb = NULL;
    uint8_t *block = NULL;
    size_t len = 0;
    assert_int_equal(rs_leaderboard_open(w.s, &lb, err, sizeof err), RS_OK);
    assert_int_equal(rs_leaderboard_car_block(lb, w.car_hash, &block, &len, err, sizeof err),
                     RS_OK);
    rs_leaderboard_close(lb);
    rs_store_close(w.s);
    rs_car_params *back = NULL;
    assert_int_equal(rs_car_params_from_block(block, len, &back, err, sizeof err), RS_OK);
    assert_true(rs_car_params_hash(back) == w.car_hash);
    rs_car_params_destroy(back);
    free(block);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM cars"), 1);
    assert_true((uint64_t)test_sql_value(f->path, "SELECT params_hash FROM cars") == w.car_hash);
    assert_true((uint64_t)test_sql_value(f->path, "SELECT base_hash FROM cars") == w.car_hash);
}

/* ----------------------------------------------------------------- laps */

static void test_lap_and_proof_round_trip(void **state)
{
    fixture *f = *state;
    world w = make_world(f->path);
    char err[512];
    uint8_t proof[20000];
    for (size_t i = 0; i < sizeof proof; i++)
        proof[i] = (uint8_t)(i % 7 == 0 ? i : 3); /* compressible, like input logs */
    rs_store_lap lap = lap_for(&w, 77, 83456789);
    lap.proof = proof;
    lap.proof_len = sizeof proof;
    lap.proof_format = 1;
    lap.tune_hash = 0xabcdef;
    int64_t id = 0;
    assert_int_equal(rs_store_put_lap(w.s, &lap, &id, err, sizeof err), RS_OK);
    assert_true(id > 0);
    int64_t found = 0;
    assert_int_equal(rs_store_lap_by_caller_id(w.s, 77, &found, err, sizeof err), RS_OK);
    assert_int_equal(found, id);
    assert_int_equal(rs_store_lap_by_caller_id(w.s, 78, &found, err, sizeof err), RS_ERR_MISSING);

    uint8_t *back = NULL;
    size_t len = 0;
    uint32_t format = 0;
    assert_int_equal(rs_store_lap_proof(w.s, id, &format, &back, &len, err, sizeof err), RS_OK);
    assert_int_equal(len, sizeof proof);
    assert_int_equal(format, 1);
    assert_memory_equal(back, proof, sizeof proof);
    free(back);
    rs_store_close(w.s);

    assert_true(test_sql_value(f->path, "SELECT length(data) FROM lap_proofs") < 5000);
    assert_int_equal(test_sql_value(f->path, "SELECT time_us FROM laps"), 83456789);
    assert_int_equal(test_sql_value(f->path, "SELECT sectors_us = '[27818929,27818929,27818931]' "
                                      "FROM laps"),
                     1);
    assert_true((uint64_t)test_sql_value(f->path, "SELECT end_hash FROM laps") ==
                UINT64_C(0xfedcba9876543210));

    /* A damaged raw size is reported, not trusted. */
    test_sql_value(f->path, "UPDATE lap_proofs SET raw_size = raw_size + 1");
    rs_store *s = NULL;
    assert_int_equal(rs_store_open(f->path, 0, &s, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_lap_proof(s, id, &format, &back, &len, err, sizeof err),
                     RS_ERR_FORMAT);
    assert_null(back);
    assert_non_null(strstr(err, "recorded"));
    test_sql_value(f->path, "UPDATE lap_proofs SET raw_size = raw_size - 2");
    assert_int_equal(rs_store_lap_proof(s, id, &format, &back, &len, err, sizeof err),
                     RS_ERR_FORMAT);
    test_sql_value(f->path, "UPDATE lap_proofs SET raw_size = raw_size + 1, "
                      "data = substr(data, 1, length(data) / 2)");
    assert_int_equal(rs_store_lap_proof(s, id, &format, &back, &len, err, sizeof err),
                     RS_ERR_FORMAT);
    rs_store_close(s);
}

static void test_bad_laps_are_refused_whole(void **state)
{
    fixture *f = *state;
    world w = make_world(f->path);
    char err[512];
    int64_t id = 0;
    rs_store_lap lap = lap_for(&w, 1, 0);
    assert_int_equal(rs_store_put_lap(w.s, &lap, &id, err, sizeof err), RS_ERR_ARG);
    assert_non_null(strstr(err, "time_us"));
    lap = lap_for(&w, 1, 100);
    lap.track_hash = 5;
    assert_int_equal(rs_store_put_lap(w.s, &lap, &id, err, sizeof err), RS_ERR_MISSING);
    lap = lap_for(&w, 1, 100);
    lap.player_id = 999;
    assert_int_equal(rs_store_put_lap(w.s, &lap, &id, err, sizeof err), RS_ERR_RANGE);
    rs_store_close(w.s);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM laps"), 0);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM personal_bests"), 0);
}

static int64_t best(const char *path, uint64_t tune_key)
{
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT coalesce((SELECT lap_id * 1000000000 + time_us FROM personal_bests "
             "WHERE tune_key = %lld), 0)",
             (long long)tune_key);
    return test_sql_value(path, sql);
}

static void test_personal_bests_keep_the_first_of_the_fastest(void **state)
{
    fixture *f = *state;
    world w = make_world(f->path);
    char err[512];
    int64_t ids[6];
    /* stock 100, tuned 90, stock 95, tuned 90 (tie), invalid 50, stock 95 (tie) */
    struct { int64_t t; uint64_t tune; bool valid; } laps[6] = {
        {100, 0, true}, {90, 7, true}, {95, 0, true}, {90, 7, true}, {50, 0, false}, {95, 0, true}};
    for (int i = 0; i < 6; i++) {
        rs_store_lap lap = lap_for(&w, i, laps[i].t);
        lap.tune_hash = laps[i].tune;
        lap.valid = laps[i].valid;
        lap.invalid_reason = laps[i].valid ? 0 : 1;
        assert_int_equal(rs_store_put_lap(w.s, &lap, &ids[i], err, sizeof err), RS_OK);
    }
    rs_store_close(w.s);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM laps"), 6);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM personal_bests"), 3);
    assert_int_equal(best(f->path, RS_TUNE_KEY_ANY), ids[1] * 1000000000 + 90);
    assert_int_equal(best(f->path, 7), ids[1] * 1000000000 + 90);
    assert_int_equal(best(f->path, rs_store_tune_key(0)), ids[2] * 1000000000 + 95);
    assert_true(rs_store_tune_key(0) == RS_TUNE_KEY_STOCK);
    assert_true(rs_store_tune_key(7) == 7);
}

/* ---------------------------------------------------- races and results */

static void test_races_and_results(void **state)
{
    fixture *f = *state;
    world w = make_world(f->path);
    char err[512];
    rs_store_race race = {.track_hash = w.track_hash, .laps = 3,
                          .physics_version = RS_PHYSICS_VERSION, .started_at = 50};
    int64_t race_id = 0, lap_id = 0;
    assert_int_equal(rs_store_race_create(w.s, &race, &race_id, err, sizeof err), RS_OK);
    rs_store_lap lap = lap_for(&w, 1, 1000);
    lap.race_id = race_id;
    assert_int_equal(rs_store_put_lap(w.s, &lap, &lap_id, err, sizeof err), RS_OK);
    rs_store_result r = {.race_id = race_id, .player_id = w.player, .params_hash = w.car_hash,
                         .position = 1, .finished = true, .finish_us = 3000,
                         .laps_completed = 3, .best_lap_us = 1000};
    assert_int_equal(rs_store_put_result(w.s, &r, err, sizeof err), RS_OK);
    r.barrier_hits = 2;
    assert_int_equal(rs_store_put_result(w.s, &r, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_race_finish(w.s, race_id, 60, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_race_finish(w.s, race_id + 10, 60, err, sizeof err),
                     RS_ERR_MISSING);
    race.forced_tune = true;
    race.forced_tune_hash = 99;
    assert_int_equal(rs_store_race_create(w.s, &race, &race_id, err, sizeof err), RS_OK);
    rs_store_close(w.s);
    assert_int_equal(test_sql_value(f->path, "SELECT count(*) FROM race_results"), 1);
    assert_int_equal(test_sql_value(f->path, "SELECT barrier_hits FROM race_results"), 2);
    assert_int_equal(test_sql_value(f->path, "SELECT finished_at FROM races WHERE id = 1"), 60);
    assert_int_equal(test_sql_value(f->path, "SELECT forced_tune_hash FROM races WHERE id = 2"),
                     99);
    assert_int_equal(test_sql_value(f->path, "SELECT race_id FROM laps"), 1);
}

/* ---------------------------------------------------------------- tunes */

static void test_tunes_save_list_load_delete(void **state)
{
    fixture *f = *state;
    world w = make_world(f->path);
    char err[512];
    int64_t id1 = 0, id2 = 0, id3 = 0;
    assert_int_equal(rs_store_tune_save(w.s, w.player, w.car_hash, "wet", 1, 11, "{\"a\":1}", 5,
                                        &id1, err, sizeof err),
                     RS_OK);
    assert_int_equal(rs_store_tune_save(w.s, w.player, w.car_hash, "dry", 2, 12, "{\"a\":2}", 5,
                                        &id2, err, sizeof err),
                     RS_OK);
    assert_int_equal(rs_store_tune_save(w.s, w.player, w.car_hash, "wet", 3, 13, "{\"a\":3}", 6,
                                        &id3, err, sizeof err),
                     RS_OK);
    assert_int_equal(id3, id1); /* same name: replaced */
    rs_store_tune list[4];
    size_t total = 0;
    assert_int_equal(rs_store_tune_list(w.s, w.player, 0, list, 4, &total, err, sizeof err),
                     RS_OK);
    assert_int_equal(total, 2);
    assert_string_equal(list[0].name, "dry");
    assert_string_equal(list[1].name, "wet");
    assert_true(list[1].tune_hash == 3 && list[1].params_hash == 13);
    assert_int_equal(rs_store_tune_list(w.s, w.player, 12345, list, 4, &total, err, sizeof err),
                     RS_OK);
    assert_int_equal(total, 0);
    rs_store_tune info;
    char *json = NULL;
    assert_int_equal(rs_store_tune_load(w.s, w.player, w.car_hash, "wet", &info, &json, err,
                                        sizeof err),
                     RS_OK);
    assert_string_equal(json, "{\"a\":3}");
    assert_int_equal(info.created_at, 6);
    free(json);
    assert_int_equal(rs_store_tune_delete(w.s, w.player, w.car_hash, "wet", err, sizeof err),
                     RS_OK);
    assert_int_equal(rs_store_tune_delete(w.s, w.player, w.car_hash, "wet", err, sizeof err),
                     RS_ERR_MISSING);
    assert_int_equal(rs_store_tune_load(w.s, w.player, w.car_hash, "wet", &info, &json, err,
                                        sizeof err),
                     RS_ERR_MISSING);
    assert_int_equal(rs_store_tune_save(w.s, 999, w.car_hash, "x", 1, 1, "{}", 1, &id1, err,
                                        sizeof err),
                     RS_ERR_RANGE);
    assert_int_equal(rs_store_tune_save(w.s, w.player, w.car_hash, "", 1, 1, "{}", 1, &id1, err,
                                        sizeof err),
                     RS_ERR_RANGE);
    rs_store_close(w.s);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, test_tmpdb_setup, test_tmpdb_teardown)
    const struct CMUnitTest tests[] = {
        T(test_missing_file_is_a_clear_error),
        T(test_random_bytes_are_refused_and_left_alone),
        T(test_truncated_file_is_refused_and_left_alone),
        T(test_damaged_page_is_caught_by_the_check),
        T(test_read_only_file_is_refused_for_writing),
        T(test_player_tokens_are_random_and_stored_only_hashed),
        T(test_guest_rows_without_laps_are_pruned),
        T(test_cars_and_tracks_are_stored_once),
        T(test_lap_and_proof_round_trip),
        T(test_bad_laps_are_refused_whole),
        T(test_personal_bests_keep_the_first_of_the_fastest),
        T(test_races_and_results),
        T(test_tunes_save_list_load_delete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
