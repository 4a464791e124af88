/*
 * The operators' queries of racesim/leaderboard.h: tracks and cars by name
 * or hash and the lists of them, races and their results, and the pieces
 * `racectl verify-lap` needs to rebuild a lap (the lap record, car blocks,
 * track JSON). Their statements are the leaderboard's queries from
 * LB_BOARD_QUERIES on (leaderboard_internal.h).
 */
#include <stdlib.h>
#include <string.h>

#include "leaderboard_internal.h"
#include "racesim/base/err.h"
#include "sha256.h"
#include "racesim/base/text.h"

#define RACE_COLS                                                                              \
    "SELECT r.id, t.track_hash, t.name, r.laps, r.physics_version,"                          \
    " r.forced_tune_hash IS NOT NULL, coalesce(r.forced_tune_hash, 0), r.started_at,"         \
    " coalesce(r.finished_at, 0),"                                                            \
    " (SELECT count(*) FROM race_results AS rr WHERE rr.race_id = r.id), r.status,"           \
    " r.session_type, r.session_index, r.weekend, coalesce(r.room, '')"                     \
    " FROM races AS r JOIN tracks AS t ON t.id = r.track_id"

static const char *const op_sql[LB_QUERIES - LB_BOARD_QUERIES] = {
    [LB_TRACK_BY_HASH - LB_BOARD_QUERIES] =
        "SELECT track_hash, name FROM tracks WHERE track_hash = ?1",
    [LB_TRACK_BY_NAME - LB_BOARD_QUERIES] =
        "SELECT track_hash, name FROM tracks WHERE name = ?1 COLLATE NOCASE LIMIT 2",
    /* A tuned block names its stock car; the stock car's own row has the name. */
    [LB_CAR_BY_HASH - LB_BOARD_QUERIES] =
        "SELECT c.base_hash, coalesce((SELECT s.name FROM cars AS s"
        " WHERE s.params_hash = c.base_hash), c.name) FROM cars AS c WHERE c.params_hash = ?1",
    [LB_CAR_BY_NAME - LB_BOARD_QUERIES] =
        "SELECT DISTINCT base_hash, name FROM cars WHERE params_hash = base_hash"
        " AND name = ?1 COLLATE NOCASE LIMIT 2",
    [LB_TRACKS - LB_BOARD_QUERIES] =
        "SELECT track_hash, name FROM tracks ORDER BY name COLLATE NOCASE, track_hash LIMIT ?1",
    [LB_CARS - LB_BOARD_QUERIES] =
        "SELECT params_hash, name FROM cars WHERE params_hash = base_hash"
        " ORDER BY name COLLATE NOCASE, params_hash LIMIT ?1",
    /* Race ids grow with creation, so the newest are the highest ids. */
    /* ?2: an rs_store_session_type (-1 any); the column keeps its name. */
    [LB_RACES - LB_BOARD_QUERIES] =
        RACE_COLS " WHERE ?2 < 0 OR r.session_type = CASE ?2 WHEN 0 THEN 'race'"
                  " WHEN 1 THEN 'practice' WHEN 2 THEN 'qualifying' WHEN 3 THEN 'warmup' END"
                  " ORDER BY r.id DESC LIMIT ?1",
    [LB_RACE - LB_BOARD_QUERIES] = RACE_COLS " WHERE r.id = ?1",
    [LB_RESULTS - LB_BOARD_QUERIES] =
        "SELECT rr.position, rr.player_id, p.name, c.params_hash, c.name, rr.finished,"
        " coalesce(rr.finish_us, -1), rr.laps_completed, coalesce(rr.best_lap_us, -1),"
        " rr.barrier_hits, rr.car_hits, rr.status, rr.class_name, rr.class_position,"
        " rr.penalty_ms, rr.laps_led, coalesce(rr.car_number, 0), rr.fastest_lap"
        " FROM race_results AS rr JOIN players AS p ON p.id = rr.player_id"
        " JOIN cars AS c ON c.id = rr.car_id WHERE rr.race_id = ?1"
        " ORDER BY rr.position, rr.player_id",
    [LB_PENALTIES - LB_BOARD_QUERIES] =
        "SELECT player_id, penalty_id, kind, offence, seconds, tick, race_time_us, reason,"
        " removed, coalesce(removed_tick, 0), coalesce(removed_race_time_us, 0),"
        " coalesce(removed_reason, '') FROM race_penalties WHERE race_id = ?1"
        " ORDER BY penalty_id",
    [LB_LAP - LB_BOARD_QUERIES] =
        "SELECT " ROW_COLS ", 0, (SELECT c.params_hash FROM cars AS c WHERE c.id = l.car_id),"
        " l.end_hash FROM laps AS l JOIN players AS p ON p.id = l.player_id"
        " JOIN tracks AS t ON t.id = l.track_id WHERE l.id = ?1",
    [LB_CAR_BLOCK - LB_BOARD_QUERIES] = "SELECT block FROM cars WHERE params_hash = ?1",
    [LB_TRACK_JSON - LB_BOARD_QUERIES] = "SELECT definition FROM tracks WHERE track_hash = ?1",
};

/* Operators' query q with the integers v[0..n-1] bound to ?1..?n. */
static sqlite3_stmt *op_stmt(rs_leaderboard *lb, enum rs_lb_query q, const int64_t *v, int n,
                             char *err, size_t err_len)
{
    return rs_store__lb_stmt(lb, q, op_sql[q - LB_BOARD_QUERIES], v, n, err, err_len);
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
        int d = rs_hex_digit(s[i]);
        if (d < 0)
            return false;
        v = v << 4 | (unsigned)d;
    }
    *out = v;
    return true;
}

/* Runs a (hash, name) lookup by hash or by name and reports none or
 * several matches. */
static rs_status find_named(rs_leaderboard *lb, const char *what, enum rs_lb_query by_hash,
                            enum rs_lb_query by_name, const char *text, uint64_t *hash,
                            char *name_out, char *err, size_t err_len)
{
    if (!lb || !text || !hash)
        return rs_store__lb_missing_argument(err, err_len);
    uint64_t h = 0;
    bool is_hash = parse_hash(text, &h);
    int64_t key = (int64_t)h;
    sqlite3_stmt *st = is_hash ? op_stmt(lb, by_hash, &key, 1, err, err_len)
                               : op_stmt(lb, by_name, NULL, 0, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = is_hash ? RS_OK : rs_store__lb_bind_text(lb, st, 1, text, err, err_len);
    if (status != RS_OK)
        return status;
    int rc, rows = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (rows++ == 0) {
            *hash = (uint64_t)sqlite3_column_int64(st, 0);
            if (name_out)
                rs_store__lb_copy_name(name_out, sqlite3_column_text(st, 1));
        }
    }
    if (rc != SQLITE_DONE) {
        status = rs_store__lb_db_error(lb, what, err, err_len);
    } else if (rows == 0) {
        rs_errf(err, err_len, "no %s %s '%s' in the database", what,
                is_hash ? "with hash" : "named", text);
        status = RS_ERR_MISSING;
    } else if (rows > 1) {
        rs_errf(err, err_len, "several %ss are named '%s': give the hash instead", what, text);
        status = RS_ERR_RANGE;
    }
    rs_store__lb_done(st);
    return status;
}

rs_status rs_leaderboard_find_track(rs_leaderboard *lb, const char *name_or_hash,
                                    uint64_t *track_hash, char *name_out, char *err,
                                    size_t err_len)
{
    return find_named(lb, "track", LB_TRACK_BY_HASH, LB_TRACK_BY_NAME, name_or_hash, track_hash,
                      name_out, err, err_len);
}

rs_status rs_leaderboard_find_car(rs_leaderboard *lb, const char *name_or_hash,
                                  uint64_t *base_hash, char *name_out, char *err,
                                  size_t err_len)
{
    return find_named(lb, "car", LB_CAR_BY_HASH, LB_CAR_BY_NAME, name_or_hash, base_hash,
                      name_out, err, err_len);
}

/* Lists (hash, name) rows of query q, at most limit. */
static rs_status list_definitions(rs_leaderboard *lb, enum rs_lb_query q, const char *what,
                                  uint32_t limit, rs_lb_definition *defs, uint32_t *count,
                                  char *err, size_t err_len)
{
    if (!lb || !count || (limit && !defs))
        return rs_store__lb_missing_argument(err, err_len);
    *count = 0;
    if (limit == 0)
        return RS_OK;
    int64_t v = limit;
    sqlite3_stmt *st = op_stmt(lb, q, &v, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    int rc = SQLITE_DONE;
    uint32_t n = 0;
    while (n < limit && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        defs[n].hash = (uint64_t)sqlite3_column_int64(st, 0);
        rs_store__lb_copy_name(defs[n].name, sqlite3_column_text(st, 1));
        n++;
    }
    rs_status status = RS_OK;
    if (n < limit && rc != SQLITE_DONE)
        status = rs_store__lb_db_error(lb, what, err, err_len);
    rs_store__lb_done(st);
    *count = n;
    return status;
}

rs_status rs_leaderboard_tracks(rs_leaderboard *lb, uint32_t limit, rs_lb_definition *defs,
                                uint32_t *count, char *err, size_t err_len)
{
    return list_definitions(lb, LB_TRACKS, "tracks", limit, defs, count, err, err_len);
}

rs_status rs_leaderboard_cars(rs_leaderboard *lb, uint32_t limit, rs_lb_definition *defs,
                              uint32_t *count, char *err, size_t err_len)
{
    return list_definitions(lb, LB_CARS, "cars", limit, defs, count, err, err_len);
}

static void read_race(sqlite3_stmt *st, rs_lb_race *r)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    r->track_hash = (uint64_t)sqlite3_column_int64(st, 1);
    rs_store__lb_copy_name(r->track_name, sqlite3_column_text(st, 2));
    r->laps = (uint32_t)sqlite3_column_int64(st, 3);
    r->physics_version = (uint32_t)sqlite3_column_int64(st, 4);
    r->forced_tune = sqlite3_column_int64(st, 5) != 0;
    r->forced_tune_hash = (uint64_t)sqlite3_column_int64(st, 6);
    r->started_at = sqlite3_column_int64(st, 7);
    r->finished_at = sqlite3_column_int64(st, 8);
    r->entries = (uint32_t)sqlite3_column_int64(st, 9);
    r->status = rs_store__race_status_parse(sqlite3_column_text(st, 10));
    int type = rs_store_session_type_parse((const char *)sqlite3_column_text(st, 11));
    r->session_type = type < 0 ? RS_STORE_SESSION_RACE : (rs_store_session_type)type;
    r->session_index = (uint32_t)sqlite3_column_int64(st, 12);
    r->weekend = (uint32_t)sqlite3_column_int64(st, 13);
    rs_store__lb_copy_name(r->room, sqlite3_column_text(st, 14));
}

static void read_result(sqlite3_stmt *st, rs_lb_result *r)
{
    memset(r, 0, sizeof *r);
    r->position = (uint32_t)sqlite3_column_int64(st, 0);
    r->player_id = sqlite3_column_int64(st, 1);
    rs_store__lb_copy_name(r->player_name, sqlite3_column_text(st, 2));
    r->params_hash = (uint64_t)sqlite3_column_int64(st, 3);
    rs_store__lb_copy_name(r->car_name, sqlite3_column_text(st, 4));
    r->finished = sqlite3_column_int64(st, 5) != 0;
    r->finish_us = sqlite3_column_int64(st, 6);
    r->laps_completed = (uint32_t)sqlite3_column_int64(st, 7);
    r->best_lap_us = sqlite3_column_int64(st, 8);
    r->barrier_hits = (uint32_t)sqlite3_column_int64(st, 9);
    r->car_hits = (uint32_t)sqlite3_column_int64(st, 10);
    const char *status = (const char *)sqlite3_column_text(st, 11);
    r->status = status && strcmp(status, "disqualified") == 0     ? RS_STORE_RESULT_DISQUALIFIED
                : status && strcmp(status, "not_classified") == 0 ? RS_STORE_RESULT_NOT_CLASSIFIED
                                                                  : RS_STORE_RESULT_CLASSIFIED;
    rs_store__lb_copy_name(r->class_name, sqlite3_column_text(st, 12));
    r->class_position = (uint32_t)sqlite3_column_int64(st, 13);
    r->penalty_ms = (uint32_t)sqlite3_column_int64(st, 14);
    r->laps_led = (uint32_t)sqlite3_column_int64(st, 15);
    r->car_number = (uint32_t)sqlite3_column_int64(st, 16);
    r->fastest_lap = sqlite3_column_int64(st, 17) != 0;
}

rs_status rs_leaderboard_races(rs_leaderboard *lb, uint32_t limit, rs_lb_race *races,
                               uint32_t *count, char *err, size_t err_len)
{
    return rs_leaderboard_races_of_type(lb, -1, limit, races, count, err, err_len);
}

rs_status rs_leaderboard_races_of_type(rs_leaderboard *lb, int type, uint32_t limit,
                                       rs_lb_race *races, uint32_t *count, char *err,
                                       size_t err_len)
{
    if (!lb || !count || (limit && !races))
        return rs_store__lb_missing_argument(err, err_len);
    *count = 0;
    if (limit == 0)
        return RS_OK;
    int64_t v[2] = {limit, type < 0 ? -1 : type};
    sqlite3_stmt *st = op_stmt(lb, LB_RACES, v, 2, err, err_len);
    if (!st)
        return RS_ERR_IO;
    int rc = SQLITE_DONE;
    uint32_t n = 0;
    while (n < limit && (rc = sqlite3_step(st)) == SQLITE_ROW)
        read_race(st, &races[n++]);
    rs_status status = RS_OK;
    if (n < limit && rc != SQLITE_DONE)
        status = rs_store__lb_db_error(lb, "races", err, err_len);
    rs_store__lb_done(st);
    *count = n;
    return status;
}

rs_status rs_leaderboard_results(rs_leaderboard *lb, int64_t race_id, rs_lb_race *race,
                                 rs_lb_result *results, uint32_t cap, uint32_t *count,
                                 uint32_t *total, char *err, size_t err_len)
{
    if (!lb || !race || !count || !total || (cap && !results))
        return rs_store__lb_missing_argument(err, err_len);
    *count = *total = 0;
    sqlite3_stmt *st = op_stmt(lb, LB_RACE, &race_id, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__lb_step_row(lb, st, "race", err, err_len);
    if (status == RS_OK)
        read_race(st, race);
    else if (status == RS_ERR_MISSING)
        rs_errf(err, err_len, "no race with id %lld", (long long)race_id);
    rs_store__lb_done(st);
    if (status != RS_OK)
        return status;

    st = op_stmt(lb, LB_RESULTS, &race_id, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    uint32_t n = 0, all = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n < cap)
            read_result(st, &results[n++]);
        all++;
    }
    status = rc == SQLITE_DONE ? RS_OK : rs_store__lb_db_error(lb, "results", err, err_len);
    rs_store__lb_done(st);
    *count = n;
    *total = all;
    return status;
}

/* The kind and offence stored as words (the table's CHECKs allow no
 * others; anything else reads as the first). */
static rs_store_penalty_kind kind_parse(const unsigned char *text)
{
    for (int i = 0; text && i < RS_STORE_PENALTY_KIND_COUNT; i++)
        if (strcmp((const char *)text, rs_store_penalty_kind_name((rs_store_penalty_kind)i)) == 0)
            return (rs_store_penalty_kind)i;
    return RS_STORE_PENALTY_TIME;
}

static rs_store_offence offence_parse(const unsigned char *text)
{
    for (int i = 0; text && i < RS_STORE_OFFENCE_COUNT; i++)
        if (strcmp((const char *)text, rs_store_offence_name((rs_store_offence)i)) == 0)
            return (rs_store_offence)i;
    return RS_STORE_OFFENCE_TRACK_LIMITS;
}

static void read_penalty(sqlite3_stmt *st, rs_lb_penalty *out)
{
    memset(out, 0, sizeof *out);
    rs_store_penalty *p = &out->penalty;
    out->player_id = sqlite3_column_int64(st, 0);
    p->id = (uint32_t)sqlite3_column_int64(st, 1);
    p->kind = kind_parse(sqlite3_column_text(st, 2));
    p->offence = offence_parse(sqlite3_column_text(st, 3));
    p->seconds = (uint32_t)sqlite3_column_int64(st, 4);
    p->tick = (uint64_t)sqlite3_column_int64(st, 5);
    p->race_time_us = sqlite3_column_int64(st, 6);
    rs_store__copy_text(p->reason, sizeof p->reason, sqlite3_column_text(st, 7));
    p->removed = sqlite3_column_int(st, 8) != 0;
    p->removed_tick = (uint64_t)sqlite3_column_int64(st, 9);
    p->removed_race_time_us = sqlite3_column_int64(st, 10);
    rs_store__copy_text(p->removed_reason, sizeof p->removed_reason,
                        sqlite3_column_text(st, 11));
}

rs_status rs_leaderboard_penalties(rs_leaderboard *lb, int64_t race_id, rs_lb_penalty *out,
                                   uint32_t cap, uint32_t *count, uint32_t *total, char *err,
                                   size_t err_len)
{
    if (!lb || !count || !total || (cap && !out))
        return rs_store__lb_missing_argument(err, err_len);
    *count = *total = 0;
    sqlite3_stmt *st = op_stmt(lb, LB_PENALTIES, &race_id, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    uint32_t n = 0, all = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n < cap)
            read_penalty(st, &out[n++]);
        all++;
    }
    rs_status status =
        rc == SQLITE_DONE ? RS_OK : rs_store__lb_db_error(lb, "penalties", err, err_len);
    rs_store__lb_done(st);
    *count = n;
    *total = all;
    return status;
}

rs_status rs_leaderboard_lap(rs_leaderboard *lb, int64_t lap_id, rs_lb_row *row, char *err,
                             size_t err_len)
{
    if (!lb || !row)
        return rs_store__lb_missing_argument(err, err_len);
    sqlite3_stmt *st = op_stmt(lb, LB_LAP, &lap_id, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__lb_step_row(lb, st, "lap", err, err_len);
    if (status == RS_OK) {
        status = rs_store__lb_read_row(st, row, err, err_len);
        row->tune_key = rs_store_tune_key(row->tune_hash);
        row->params_hash = (uint64_t)sqlite3_column_int64(st, 17);
        row->end_hash = (uint64_t)sqlite3_column_int64(st, 18);
    } else if (status == RS_ERR_MISSING) {
        rs_errf(err, err_len, "no lap with id %lld", (long long)lap_id);
    }
    rs_store__lb_done(st);
    return status;
}

/* Copies the first column (a blob or text) of the row matching hash into
 * *out, malloc'ed with a NUL after it (out NULL: only *len is wanted). */
static rs_status fetch_bytes(rs_leaderboard *lb, enum rs_lb_query q, const char *what,
                             uint64_t hash, uint8_t **out, size_t *len, char *err,
                             size_t err_len)
{
    if (!lb || !len)
        return rs_store__lb_missing_argument(err, err_len);
    if (out)
        *out = NULL;
    *len = 0;
    int64_t key = (int64_t)hash;
    sqlite3_stmt *st = op_stmt(lb, q, &key, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__lb_step_row(lb, st, what, err, err_len);
    if (status == RS_OK) {
        const void *p = sqlite3_column_blob(st, 0);
        size_t n = (size_t)sqlite3_column_bytes(st, 0);
        uint8_t *copy = out ? malloc(n + 1) : NULL;
        if (out && !copy) {
            status = rs_store__lb_set_error(RS_ERR_NOMEM, err, err_len,
                                            "leaderboard: out of memory");
        } else {
            if (copy) {
                if (n)
                    memcpy(copy, p, n);
                copy[n] = 0;
                *out = copy;
            }
            *len = n;
        }
    } else if (status == RS_ERR_MISSING) {
        rs_errf(err, err_len, "no %s with hash %016llx in the database", what,
                (unsigned long long)hash);
    }
    rs_store__lb_done(st);
    return status;
}

rs_status rs_leaderboard_car_block(rs_leaderboard *lb, uint64_t params_hash, uint8_t **block,
                                   size_t *len, char *err, size_t err_len)
{
    return fetch_bytes(lb, LB_CAR_BLOCK, "car", params_hash, block, len, err, err_len);
}

rs_status rs_leaderboard_track_definition(rs_leaderboard *lb, uint64_t track_hash, char **json,
                                          size_t *len, char *err, size_t err_len)
{
    uint8_t *text = NULL;
    rs_status st = fetch_bytes(lb, LB_TRACK_JSON, "track", track_hash, json ? &text : NULL, len,
                               err, err_len);
    if (json)
        *json = (char *)text;
    return st;
}
