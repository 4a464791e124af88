/*
 * What laps refer to: car parameter blocks, tracks, races and their
 * results. Cars and tracks are content-addressed by their 64-bit hash, so
 * storing one is an idempotent upsert that returns the existing id.
 */
#include <stdlib.h>
#include <string.h>

#include "racesim/base/err.h"
#include "racesim/base/text.h"
#include "store_internal.h"

/* SELECT id ... WHERE hash = ?1 through a cached slot. */
static rs_status id_by_hash(rs_store *s, unsigned slot, const char *sql, uint64_t hash,
                            const char *what, int64_t *id, char *err, size_t err_len)
{
    if (!s || !id)
        return RS_ERR_ARG;
    rs_status status = rs_store__id_lookup(s, slot, sql, (int64_t)hash, what, id, err, err_len);
    if (status == RS_ERR_MISSING)
        rs_errf(err, err_len, "%s: %s %016llx is not stored", s->path, what,
                (unsigned long long)hash);
    return status;
}

rs_status rs_store_car_id(rs_store *s, uint64_t params_hash, int64_t *car_id, char *err,
                          size_t err_len)
{
    return id_by_hash(s, RS_STMT_CAR_ID, "SELECT id FROM cars WHERE params_hash = ?1",
                      params_hash, "car", car_id, err, err_len);
}

rs_status rs_store_track_id(rs_store *s, uint64_t track_hash, int64_t *track_id, char *err,
                            size_t err_len)
{
    return id_by_hash(s, RS_STMT_TRACK_ID, "SELECT id FROM tracks WHERE track_hash = ?1",
                      track_hash, "track", track_id, err, err_len);
}

rs_status rs_store_put_car(rs_store *s, const rs_car_params *params, uint64_t base_hash,
                           int64_t *car_id, char *err, size_t err_len)
{
    if (!s || !params || !car_id)
        return RS_ERR_ARG;
    size_t size = rs_car_params_block(params, NULL, 0);
    uint8_t *block = malloc(size ? size : 1);
    if (!block)
        return RS_ERR_NOMEM;
    rs_car_params_block(params, block, size);
    uint64_t hash = rs_car_params_hash(params);
    /* ?2 (the name) and ?4 (the block) are bound below. A stock car is its
     * own base. */
    int64_t v[3] = {(int64_t)hash, 0, (int64_t)(base_hash ? base_hash : hash)};
    sqlite3_stmt *st = rs_store__stmt_ints(s, RS_STMT_CAR_INSERT,
                                           "INSERT INTO cars (params_hash, name, base_hash, "
                                           "block) VALUES (?1, ?2, ?3, ?4) "
                                           "ON CONFLICT (params_hash) DO NOTHING",
                                           v, 3, err, err_len);
    rs_status status = RS_ERR_IO;
    if (st) {
        sqlite3_bind_text(st, 2, rs_car_params_name(params), -1, SQLITE_STATIC);
        sqlite3_bind_blob64(st, 4, block, size, SQLITE_STATIC);
        status = rs_store__step_done(s, st, "storing a car", err, err_len);
    }
    free(block);
    if (status != RS_OK)
        return status;
    return rs_store_car_id(s, hash, car_id, err, err_len);
}

rs_status rs_store_put_track(rs_store *s, uint64_t track_hash, const char *name,
                             const char *definition_json, int64_t *track_id, char *err,
                             size_t err_len)
{
    if (!s || !name || !definition_json || !track_id)
        return RS_ERR_ARG;
    int64_t hash = (int64_t)track_hash;
    sqlite3_stmt *st = rs_store__stmt_ints(s, RS_STMT_TRACK_INSERT,
                                           "INSERT INTO tracks (track_hash, name, definition) "
                                           "VALUES (?1, ?2, ?3) "
                                           "ON CONFLICT (track_hash) DO NOTHING",
                                           &hash, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, definition_json, -1, SQLITE_STATIC);
    rs_status status = rs_store__step_done(s, st, "storing a track", err, err_len);
    if (status != RS_OK)
        return status;
    return rs_store_track_id(s, track_hash, track_id, err, err_len);
}

/* The length of a fixed-size text field, which need not end in a NUL. */
static int text_len(const char *s, size_t cap)
{
    const char *nul = memchr(s, '\0', cap);
    return (int)(nul ? (size_t)(nul - s) : cap);
}

/* Indexed by rs_store_session_type: the words migration 0007 allows. */
static const char *const session_type_names[] = {"race", "practice", "qualifying", "warmup"};

const char *rs_store_session_type_name(rs_store_session_type type)
{
    unsigned i = (unsigned)type;
    return i < RS_STORE_SESSION_TYPE_COUNT ? session_type_names[i] : "?";
}

int rs_store_session_type_parse(const char *name)
{
    for (int i = 0; name && i < RS_STORE_SESSION_TYPE_COUNT; i++)
        if (strcmp(name, session_type_names[i]) == 0)
            return i;
    return -1;
}

rs_status rs_store_race_create(rs_store *s, const rs_store_race *race, int64_t *race_id,
                               char *err, size_t err_len)
{
    if (!s || !race || !race_id)
        return RS_ERR_ARG;
    if ((unsigned)race->session_type >= RS_STORE_SESSION_TYPE_COUNT ||
        race->session_index > 15) {
        rs_errf(err, err_len, "race: session type or index out of range");
        return RS_ERR_RANGE;
    }
    int64_t track_id = 0;
    rs_status status = rs_store_track_id(s, race->track_hash, &track_id, err, err_len);
    if (status != RS_OK)
        return status;
    /* forced_tune_hash is NULL when players choose their tunes. */
    int64_t v[7] = {track_id, race->laps, race->physics_version, (int64_t)race->forced_tune_hash,
                    race->started_at, race->session_index, race->weekend};
    sqlite3_stmt *st = rs_store__stmt_ints(s, RS_STMT_RACE_INSERT,
                                           "INSERT INTO races (track_id, laps, physics_version, "
                                           "forced_tune_hash, started_at, session_index, "
                                           "weekend, session_type, room) "
                                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                                           v, 7, err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (!race->forced_tune)
        sqlite3_bind_null(st, 4);
    sqlite3_bind_text(st, 8, session_type_names[race->session_type], -1, SQLITE_STATIC);
    if (race->room[0])
        sqlite3_bind_text(st, 9, race->room, text_len(race->room, sizeof race->room),
                          SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 9);
    status = rs_store__step_done(s, st, "creating a race", err, err_len);
    if (status == RS_OK)
        *race_id = sqlite3_last_insert_rowid(s->db);
    return status;
}

const char *rs_store_result_status_name(rs_store_result_status status, bool finished)
{
    switch (status) {
    case RS_STORE_RESULT_BY_FINISH:
        return finished ? "classified" : "not_classified";
    case RS_STORE_RESULT_CLASSIFIED:
        return "classified";
    case RS_STORE_RESULT_NOT_CLASSIFIED:
        return "not_classified";
    case RS_STORE_RESULT_DISQUALIFIED:
        return "disqualified";
    }
    return "?";
}

rs_status rs_store_put_result(rs_store *s, const rs_store_result *r, char *err, size_t err_len)
{
    if (!s || !r)
        return RS_ERR_ARG;
    /* The row and its penalties together, or neither. */
    rs_status status = rs_store__begin(s, err, err_len);
    if (status != RS_OK)
        return status;
    status = rs_store__put_result_in_tx(s, r, err, err_len);
    if (status != RS_OK) {
        rs_store__rollback(s);
        return status;
    }
    return rs_store__commit(s, err, err_len);
}

rs_status rs_store__put_result_in_tx(rs_store *s, const rs_store_result *r, char *err,
                                     size_t err_len)
{
    if (!s || !r)
        return RS_ERR_ARG;
    if (r->position < 1) {
        rs_errf(err, err_len, "result: position must be at least 1");
        return RS_ERR_RANGE;
    }
    rs_status status = rs_store__penalties_check(r, err, err_len);
    if (status != RS_OK)
        return status;
    int64_t car_id = 0;
    status = rs_store_car_id(s, r->params_hash, &car_id, err, err_len);
    if (status != RS_OK)
        return status;
    if ((unsigned)r->status > RS_STORE_RESULT_DISQUALIFIED ||
        (r->class_position > r->position) || r->penalty_ms > INT32_MAX) {
        rs_errf(err, err_len, "result: status, class position or penalty out of range");
        return RS_ERR_RANGE;
    }
    /* A negative finish or best lap time means none: NULL. */
    int64_t v[16] = {r->race_id, r->player_id, car_id, r->position, r->finished ? 1 : 0,
                     r->finish_us, r->laps_completed, r->best_lap_us, r->barrier_hits,
                     r->car_hits, r->class_position ? r->class_position : r->position,
                     r->penalty_ms, r->laps_led, r->car_number, r->fastest_lap ? 1 : 0, 0};
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_RESULT_UPSERT,
        "INSERT INTO race_results (race_id, player_id, car_id, position, finished, finish_us, "
        "laps_completed, best_lap_us, barrier_hits, car_hits, class_position, penalty_ms, "
        "laps_led, car_number, fastest_lap, status, class_name) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17) "
        "ON CONFLICT (race_id, player_id) DO UPDATE SET car_id = excluded.car_id, "
        "position = excluded.position, finished = excluded.finished, "
        "finish_us = excluded.finish_us, laps_completed = excluded.laps_completed, "
        "best_lap_us = excluded.best_lap_us, barrier_hits = excluded.barrier_hits, "
        "car_hits = excluded.car_hits, class_position = excluded.class_position, "
        "penalty_ms = excluded.penalty_ms, laps_led = excluded.laps_led, "
        "car_number = excluded.car_number, fastest_lap = excluded.fastest_lap, "
        "status = excluded.status, class_name = excluded.class_name",
        v, 15, err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (r->finish_us < 0)
        sqlite3_bind_null(st, 6);
    if (r->best_lap_us < 0)
        sqlite3_bind_null(st, 8);
    if (r->car_number == 0)
        sqlite3_bind_null(st, 14);
    sqlite3_bind_text(st, 16, rs_store_result_status_name(r->status, r->finished), -1,
                      SQLITE_STATIC);
    sqlite3_bind_text(st, 17, r->class_name, text_len(r->class_name, sizeof r->class_name),
                      SQLITE_TRANSIENT);
    status = rs_store__step_done(s, st, "storing a race result", err, err_len);
    if (status != RS_OK)
        return status;
    return rs_store__put_penalties_in_tx(s, r, err, err_len);
}

/* Indexed by rs_store_race_status: the words migration 0004 allows. */
static const char *const race_status_names[] = {"running", "finished", "stopped",
                                                "interrupted", "abandoned"};

const char *rs_store_race_status_name(rs_store_race_status status)
{
    unsigned i = (unsigned)status;
    return i < sizeof race_status_names / sizeof race_status_names[0] ? race_status_names[i]
                                                                       : "?";
}

rs_store_race_status rs_store__race_status_parse(const unsigned char *text)
{
    for (unsigned i = 0; text && i < sizeof race_status_names / sizeof race_status_names[0]; i++)
        if (strcmp((const char *)text, race_status_names[i]) == 0)
            return (rs_store_race_status)i;
    return RS_STORE_RACE_RUNNING; /* the CHECK constraint allows nothing else */
}

rs_status rs_store_race_end(rs_store *s, int64_t race_id, rs_store_race_status status,
                            int64_t ended_at, char *err, size_t err_len)
{
    if (!s)
        return RS_ERR_ARG;
    /* Running is where a race starts, and interrupted is a finding about a
     * dead server, never something a live one decides. */
    if (status != RS_STORE_RACE_FINISHED && status != RS_STORE_RACE_STOPPED &&
        status != RS_STORE_RACE_ABANDONED) {
        rs_errf(err, err_len, "%s: race %lld: cannot end a race as %s", s->path,
                (long long)race_id, rs_store_race_status_name(status));
        return RS_ERR_ARG;
    }
    int64_t v[2] = {race_id, ended_at};
    sqlite3_stmt *st = rs_store__stmt_ints(s, RS_STMT_RACE_END,
                                           "UPDATE races SET status = ?3, finished_at = ?2 "
                                           "WHERE id = ?1",
                                           v, 2, err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_text(st, 3, rs_store_race_status_name(status), -1, SQLITE_STATIC);
    rs_status result = rs_store__step_done(s, st, "ending a race", err, err_len);
    if (result == RS_OK && sqlite3_changes(s->db) == 0) {
        rs_errf(err, err_len, "%s: race %lld does not exist", s->path, (long long)race_id);
        return RS_ERR_MISSING;
    }
    return result;
}

rs_status rs_store_race_finish(rs_store *s, int64_t race_id, int64_t finished_at, char *err,
                               size_t err_len)
{
    return rs_store_race_end(s, race_id, RS_STORE_RACE_FINISHED, finished_at, err, err_len);
}

/* Reads the running races (oldest first) into out, counting them all. */
static rs_status list_running(rs_store *s, rs_store_race_info *out, size_t cap, size_t *count,
                              char *err, size_t err_len)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT r.id, t.track_hash, t.name, r.laps, r.started_at "
                                "FROM races AS r JOIN tracks AS t ON t.id = r.track_id "
                                "WHERE r.status = 'running' ORDER BY r.id",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rs_store__fail(s, rc, "looking for running races", err, err_len);
    size_t n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n < cap) {
            rs_store_race_info *r = &out[n];
            memset(r, 0, sizeof *r);
            r->id = sqlite3_column_int64(st, 0);
            r->track_hash = (uint64_t)sqlite3_column_int64(st, 1);
            const char *name = (const char *)sqlite3_column_text(st, 2);
            if (!rs_str_copy(r->track_name, sizeof r->track_name, name))
                rs_str_copy(r->track_name, sizeof r->track_name, "(name too long)");
            r->laps = (uint32_t)sqlite3_column_int64(st, 3);
            r->started_at = sqlite3_column_int64(st, 4);
        }
        n++;
    }
    rs_status status = rc == SQLITE_DONE
                           ? RS_OK
                           : rs_store__fail(s, rc, "looking for running races", err, err_len);
    sqlite3_finalize(st);
    *count = n;
    return status;
}

rs_status rs_store_races_interrupt(rs_store *s, rs_store_race_info *out, size_t cap,
                                   size_t *count, char *err, size_t err_len)
{
    if (!s || !count || (cap && !out))
        return RS_ERR_ARG;
    *count = 0;
    /* One write transaction: what is listed is exactly what is marked. */
    rs_status status = rs_store__begin(s, err, err_len);
    if (status != RS_OK)
        return status;
    size_t n = 0;
    status = list_running(s, out, cap, &n, err, err_len);
    if (status == RS_OK && n > 0) {
        int rc = sqlite3_exec(s->db,
                              "UPDATE races SET status = 'interrupted' WHERE status = 'running'",
                              NULL, NULL, NULL);
        if (rc != SQLITE_OK)
            status = rs_store__fail(s, rc, "marking running races interrupted", err, err_len);
    }
    if (status != RS_OK) {
        rs_store__rollback(s);
        return status;
    }
    status = rs_store__commit(s, err, err_len);
    if (status == RS_OK)
        *count = n;
    return status;
}
