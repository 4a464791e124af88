/*
 * The operators' queries of racesim/leaderboard.h: tracks and cars by name
 * or hash, races and their results, and the pieces `racectl verify-lap`
 * needs to rebuild a lap (the lap record, car blocks, track JSON). They
 * share the leaderboard's statement cache (slots from RS_LB_OPS_FIRST).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leaderboard_private.h"

enum {
    OP_TRACK_BY_HASH = RS_LB_OPS_FIRST,
    OP_TRACK_BY_NAME,
    OP_CAR_BY_HASH,
    OP_CAR_BY_NAME,
    OP_RACES,
    OP_RACE,
    OP_RESULTS,
    OP_LAP,
    OP_CAR_BLOCK,
    OP_TRACK_JSON,
    OP_END
};
_Static_assert((int)OP_END <= (int)RS_LB_SLOTS, "too many leaderboard statements");

#define RACE_COLS                                                                              \
    "SELECT r.id, t.track_hash, t.name, r.laps, r.physics_version,"                          \
    " r.forced_tune_hash IS NOT NULL, coalesce(r.forced_tune_hash, 0), r.started_at,"         \
    " coalesce(r.finished_at, 0),"                                                            \
    " (SELECT count(*) FROM race_results AS rr WHERE rr.race_id = r.id)"                      \
    " FROM races AS r JOIN tracks AS t ON t.id = r.track_id"

static const char *const op_sql[OP_END - RS_LB_OPS_FIRST] = {
    [OP_TRACK_BY_HASH - RS_LB_OPS_FIRST] = "SELECT track_hash, name FROM tracks WHERE track_hash = ?1",
    [OP_TRACK_BY_NAME - RS_LB_OPS_FIRST] =
        "SELECT track_hash, name FROM tracks WHERE name = ?1 COLLATE NOCASE LIMIT 2",
    /* A tuned block names its stock car; the stock car's own row has the name. */
    [OP_CAR_BY_HASH - RS_LB_OPS_FIRST] =
        "SELECT c.base_hash, coalesce((SELECT s.name FROM cars AS s"
        " WHERE s.params_hash = c.base_hash), c.name) FROM cars AS c WHERE c.params_hash = ?1",
    [OP_CAR_BY_NAME - RS_LB_OPS_FIRST] =
        "SELECT DISTINCT base_hash, name FROM cars WHERE params_hash = base_hash"
        " AND name = ?1 COLLATE NOCASE LIMIT 2",
    /* Race ids grow with creation, so the newest are the highest ids. */
    [OP_RACES - RS_LB_OPS_FIRST] = RACE_COLS " ORDER BY r.id DESC LIMIT ?1",
    [OP_RACE - RS_LB_OPS_FIRST] = RACE_COLS " WHERE r.id = ?1",
    [OP_RESULTS - RS_LB_OPS_FIRST] =
        "SELECT rr.position, rr.player_id, p.name, c.params_hash, c.name, rr.finished,"
        " coalesce(rr.finish_us, -1), rr.laps_completed, coalesce(rr.best_lap_us, -1),"
        " rr.barrier_hits, rr.car_hits"
        " FROM race_results AS rr JOIN players AS p ON p.id = rr.player_id"
        " JOIN cars AS c ON c.id = rr.car_id WHERE rr.race_id = ?1"
        " ORDER BY rr.position, rr.player_id",
    [OP_LAP - RS_LB_OPS_FIRST] =
        "SELECT " ROW_COLS ", 0, (SELECT c.params_hash FROM cars AS c WHERE c.id = l.car_id),"
        " l.end_hash FROM laps AS l JOIN players AS p ON p.id = l.player_id"
        " JOIN tracks AS t ON t.id = l.track_id WHERE l.id = ?1",
    [OP_CAR_BLOCK - RS_LB_OPS_FIRST] = "SELECT block FROM cars WHERE params_hash = ?1",
    [OP_TRACK_JSON - RS_LB_OPS_FIRST] = "SELECT definition FROM tracks WHERE track_hash = ?1",
};

static sqlite3_stmt *op_stmt(rs_leaderboard *lb, unsigned id, char *err, size_t err_len)
{
    return rs_lb_stmt(lb, id, op_sql[id - RS_LB_OPS_FIRST], err, err_len);
}

/* "0123456789abcdef" (exactly 16 hex digits) or "0x" and 1..16 hex digits. */
static bool parse_hash(const char *s, uint64_t *out)
{
    size_t n = strlen(s);
    bool prefixed = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (prefixed) {
        s += 2;
        n -= 2;
    }
    if (n == 0 || n > 16 || (!prefixed && n != 16))
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return false;
        v = v << 4 | d;
    }
    *out = v;
    return true;
}

/* Runs a (hash, name) lookup by hash or by name and reports none or
 * several matches. */
static rs_status find_named(rs_leaderboard *lb, const char *what, unsigned by_hash,
                            unsigned by_name, const char *text, uint64_t *hash, char *name_out,
                            char *err, size_t err_len)
{
    if (!lb || !text || !hash)
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    uint64_t h;
    bool is_hash = parse_hash(text, &h);
    sqlite3_stmt *st = op_stmt(lb, is_hash ? by_hash : by_name, err, err_len);
    if (!st)
        return RS_ERR_IO;
    int brc = is_hash ? rs_lb_bind_hash(st, 1, h) : rs_lb_bind_text(st, 1, text);
    if (brc != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    int rc, rows = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (rows++ == 0) {
            *hash = (uint64_t)sqlite3_column_int64(st, 0);
            if (name_out)
                rs_lb_copy_name(name_out, sqlite3_column_text(st, 1));
        }
    }
    rs_status status = RS_OK;
    if (rc != SQLITE_DONE)
        status = rs_lb_db_error(lb, what, err, err_len);
    else if (rows == 0) {
        if (err && err_len)
            snprintf(err, err_len, "no %s %s '%s' in the database", what,
                     is_hash ? "with hash" : "named", text);
        status = RS_ERR_MISSING;
    } else if (rows > 1) {
        if (err && err_len)
            snprintf(err, err_len, "several %ss are named '%s': give the hash instead", what,
                     text);
        status = RS_ERR_RANGE;
    }
    rs_lb_done(st);
    return status;
}

rs_status rs_leaderboard_find_track(rs_leaderboard *lb, const char *name_or_hash,
                                    uint64_t *track_hash, char *name_out, char *err,
                                    size_t err_len)
{
    return find_named(lb, "track", OP_TRACK_BY_HASH, OP_TRACK_BY_NAME, name_or_hash, track_hash,
                      name_out, err, err_len);
}

rs_status rs_leaderboard_find_car(rs_leaderboard *lb, const char *name_or_hash,
                                  uint64_t *base_hash, char *name_out, char *err,
                                  size_t err_len)
{
    return find_named(lb, "car", OP_CAR_BY_HASH, OP_CAR_BY_NAME, name_or_hash, base_hash,
                      name_out, err, err_len);
}

static void read_race(sqlite3_stmt *st, rs_lb_race *r)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    r->track_hash = (uint64_t)sqlite3_column_int64(st, 1);
    rs_lb_copy_name(r->track_name, sqlite3_column_text(st, 2));
    r->laps = (uint32_t)sqlite3_column_int64(st, 3);
    r->physics_version = (uint32_t)sqlite3_column_int64(st, 4);
    r->forced_tune = sqlite3_column_int64(st, 5) != 0;
    r->forced_tune_hash = (uint64_t)sqlite3_column_int64(st, 6);
    r->started_at = sqlite3_column_int64(st, 7);
    r->finished_at = sqlite3_column_int64(st, 8);
    r->entries = (uint32_t)sqlite3_column_int64(st, 9);
}

rs_status rs_leaderboard_races(rs_leaderboard *lb, uint32_t limit, rs_lb_race *races,
                               uint32_t *count, char *err, size_t err_len)
{
    if (!lb || !count || (limit && !races))
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    *count = 0;
    if (limit == 0)
        return RS_OK;
    sqlite3_stmt *st = op_stmt(lb, OP_RACES, err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (rs_lb_bind_i64(st, 1, limit) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    int rc = SQLITE_DONE;
    uint32_t n = 0;
    while (n < limit && (rc = sqlite3_step(st)) == SQLITE_ROW)
        read_race(st, &races[n++]);
    rs_status status = RS_OK;
    if (n < limit && rc != SQLITE_DONE)
        status = rs_lb_db_error(lb, "races", err, err_len);
    rs_lb_done(st);
    *count = n;
    return status;
}

rs_status rs_leaderboard_results(rs_leaderboard *lb, int64_t race_id, rs_lb_race *race,
                                 rs_lb_result *results, uint32_t cap, uint32_t *count,
                                 uint32_t *total, char *err, size_t err_len)
{
    if (!lb || !race || !count || !total || (cap && !results))
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    *count = *total = 0;
    sqlite3_stmt *st = op_stmt(lb, OP_RACE, err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (rs_lb_bind_i64(st, 1, race_id) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        read_race(st, race);
    rs_lb_done(st);
    if (rc == SQLITE_DONE) {
        if (err && err_len)
            snprintf(err, err_len, "no race with id %lld", (long long)race_id);
        return RS_ERR_MISSING;
    }
    if (rc != SQLITE_ROW)
        return rs_lb_db_error(lb, "race", err, err_len);

    st = op_stmt(lb, OP_RESULTS, err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (rs_lb_bind_i64(st, 1, race_id) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    uint32_t n = 0, all = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n < cap) {
            rs_lb_result *r = &results[n++];
            memset(r, 0, sizeof *r);
            r->position = (uint32_t)sqlite3_column_int64(st, 0);
            r->player_id = sqlite3_column_int64(st, 1);
            rs_lb_copy_name(r->player_name, sqlite3_column_text(st, 2));
            r->params_hash = (uint64_t)sqlite3_column_int64(st, 3);
            rs_lb_copy_name(r->car_name, sqlite3_column_text(st, 4));
            r->finished = sqlite3_column_int64(st, 5) != 0;
            r->finish_us = sqlite3_column_int64(st, 6);
            r->laps_completed = (uint32_t)sqlite3_column_int64(st, 7);
            r->best_lap_us = sqlite3_column_int64(st, 8);
            r->barrier_hits = (uint32_t)sqlite3_column_int64(st, 9);
            r->car_hits = (uint32_t)sqlite3_column_int64(st, 10);
        }
        all++;
    }
    rs_status status = rc == SQLITE_DONE ? RS_OK : rs_lb_db_error(lb, "results", err, err_len);
    rs_lb_done(st);
    *count = n;
    *total = all;
    return status;
}

rs_status rs_leaderboard_lap(rs_leaderboard *lb, int64_t lap_id, rs_lb_row *row, char *err,
                             size_t err_len)
{
    if (!lb || !row)
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    sqlite3_stmt *st = op_stmt(lb, OP_LAP, err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (rs_lb_bind_i64(st, 1, lap_id) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    rs_status status = RS_OK;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        status = rs_lb_read_row(lb, st, row, err, err_len);
        row->tune_key = rs_store_tune_key(row->tune_hash);
        row->params_hash = (uint64_t)sqlite3_column_int64(st, 17);
        row->end_hash = (uint64_t)sqlite3_column_int64(st, 18);
    } else if (rc == SQLITE_DONE) {
        if (err && err_len)
            snprintf(err, err_len, "no lap with id %lld", (long long)lap_id);
        status = RS_ERR_MISSING;
    } else {
        status = rs_lb_db_error(lb, "lap", err, err_len);
    }
    rs_lb_done(st);
    return status;
}

/* Copies the first column (a blob or text) of the row matching hash into a
 * malloc'ed buffer with a NUL after it. */
static rs_status fetch_bytes(rs_leaderboard *lb, unsigned id, const char *what, uint64_t hash,
                             void **out, size_t *len, char *err, size_t err_len)
{
    if (!lb || !out || !len)
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    *out = NULL;
    *len = 0;
    sqlite3_stmt *st = op_stmt(lb, id, err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (rs_lb_bind_hash(st, 1, hash) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    rs_status status = RS_OK;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const void *p = sqlite3_column_blob(st, 0);
        size_t n = (size_t)sqlite3_column_bytes(st, 0);
        uint8_t *copy = malloc(n + 1);
        if (!copy) {
            status = rs_lb_set_error(RS_ERR_NOMEM, err, err_len, "leaderboard: out of memory");
        } else {
            if (n)
                memcpy(copy, p, n);
            copy[n] = 0;
            *out = copy;
            *len = n;
        }
    } else if (rc == SQLITE_DONE) {
        if (err && err_len)
            snprintf(err, err_len, "no %s with hash %016llx in the database", what,
                     (unsigned long long)hash);
        status = RS_ERR_MISSING;
    } else {
        status = rs_lb_db_error(lb, what, err, err_len);
    }
    rs_lb_done(st);
    return status;
}

rs_status rs_leaderboard_car_block(rs_leaderboard *lb, uint64_t params_hash, uint8_t **block,
                                   size_t *len, char *err, size_t err_len)
{
    void *p = NULL;
    rs_status st = fetch_bytes(lb, OP_CAR_BLOCK, "car", params_hash, &p, len, err, err_len);
    if (block)
        *block = p;
    else
        free(p);
    return st;
}

rs_status rs_leaderboard_track_definition(rs_leaderboard *lb, uint64_t track_hash, char **json,
                                          size_t *len, char *err, size_t err_len)
{
    void *p = NULL;
    rs_status st = fetch_bytes(lb, OP_TRACK_JSON, "track", track_hash, &p, len, err, err_len);
    if (json)
        *json = p;
    else
        free(p);
    return st;
}
