/*
 * What laps refer to: car parameter blocks, tracks, races and their
 * results. Cars and tracks are content-addressed by their 64-bit hash, so
 * storing one is an idempotent upsert that returns the existing id.
 */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "racesim/base/err.h"

/* SELECT id ... WHERE hash = ?1 through a cached slot. */
static rs_status id_by_hash(rs_store *s, unsigned slot, const char *sql, uint64_t hash,
                            const char *what, int64_t *id, char *err, size_t err_len)
{
    sqlite3_stmt *st = rs_store_stmt(s, slot, sql, err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)hash);
    int rc = sqlite3_step(st);
    rs_status status = RS_OK;
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
    } else if (rc == SQLITE_DONE) {
        rs_errf(err, err_len, "%s: %s %016llx is not stored", s->path, what,
                      (unsigned long long)hash);
        status = RS_ERR_MISSING;
    } else {
        status = rs_store_fail(s, rc, what, err, err_len);
    }
    sqlite3_reset(st);
    return status;
}

rs_status rs_store_car_id(rs_store *s, uint64_t params_hash, int64_t *car_id, char *err,
                          size_t err_len)
{
    if (!s || !car_id)
        return RS_ERR_ARG;
    return id_by_hash(s, RS_STMT_CAR_ID, "SELECT id FROM cars WHERE params_hash = ?1",
                      params_hash, "car", car_id, err, err_len);
}

rs_status rs_store_track_id(rs_store *s, uint64_t track_hash, int64_t *track_id, char *err,
                            size_t err_len)
{
    if (!s || !track_id)
        return RS_ERR_ARG;
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
    rs_status status = RS_OK;
    sqlite3_stmt *st = rs_store_stmt(s, RS_STMT_CAR_INSERT,
                                     "INSERT INTO cars (params_hash, name, base_hash, block) "
                                     "VALUES (?1, ?2, ?3, ?4) "
                                     "ON CONFLICT (params_hash) DO NOTHING",
                                     err, err_len);
    if (!st) {
        status = RS_ERR_IO;
    } else {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)hash);
        sqlite3_bind_text(st, 2, rs_car_params_name(params), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)(base_hash ? base_hash : hash));
        sqlite3_bind_blob64(st, 4, block, size, SQLITE_STATIC);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            status = rs_store_fail(s, rc, "storing a car", err, err_len);
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
    sqlite3_stmt *st = rs_store_stmt(s, RS_STMT_TRACK_INSERT,
                                     "INSERT INTO tracks (track_hash, name, definition) "
                                     "VALUES (?1, ?2, ?3) ON CONFLICT (track_hash) DO NOTHING",
                                     err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)track_hash);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, definition_json, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return rs_store_fail(s, rc, "storing a track", err, err_len);
    return rs_store_track_id(s, track_hash, track_id, err, err_len);
}

rs_status rs_store_race_create(rs_store *s, const rs_store_race *race, int64_t *race_id,
                               char *err, size_t err_len)
{
    if (!s || !race || !race_id)
        return RS_ERR_ARG;
    int64_t track_id = 0;
    rs_status status = rs_store_track_id(s, race->track_hash, &track_id, err, err_len);
    if (status != RS_OK)
        return status;
    sqlite3_stmt *st = rs_store_stmt(s, RS_STMT_RACE_INSERT,
                                     "INSERT INTO races (track_id, laps, physics_version, "
                                     "forced_tune_hash, started_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                                     err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_int64(st, 1, track_id);
    sqlite3_bind_int64(st, 2, race->laps);
    sqlite3_bind_int64(st, 3, race->physics_version);
    if (race->forced_tune)
        sqlite3_bind_int64(st, 4, (sqlite3_int64)race->forced_tune_hash);
    else
        sqlite3_bind_null(st, 4);
    sqlite3_bind_int64(st, 5, race->started_at);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return rs_store_fail(s, rc, "creating a race", err, err_len);
    *race_id = sqlite3_last_insert_rowid(s->db);
    return RS_OK;
}

rs_status rs_store_put_result(rs_store *s, const rs_store_result *r, char *err, size_t err_len)
{
    if (!s || !r)
        return RS_ERR_ARG;
    if (r->position < 1) {
        rs_errf(err, err_len, "result: position must be at least 1");
        return RS_ERR_RANGE;
    }
    int64_t car_id = 0;
    rs_status status = rs_store_car_id(s, r->params_hash, &car_id, err, err_len);
    if (status != RS_OK)
        return status;
    sqlite3_stmt *st = rs_store_stmt(
        s, RS_STMT_RESULT_UPSERT,
        "INSERT INTO race_results (race_id, player_id, car_id, position, finished, finish_us, "
        "laps_completed, best_lap_us, barrier_hits, car_hits) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
        "ON CONFLICT (race_id, player_id) DO UPDATE SET car_id = excluded.car_id, "
        "position = excluded.position, finished = excluded.finished, "
        "finish_us = excluded.finish_us, laps_completed = excluded.laps_completed, "
        "best_lap_us = excluded.best_lap_us, barrier_hits = excluded.barrier_hits, "
        "car_hits = excluded.car_hits",
        err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_int64(st, 1, r->race_id);
    sqlite3_bind_int64(st, 2, r->player_id);
    sqlite3_bind_int64(st, 3, car_id);
    sqlite3_bind_int64(st, 4, r->position);
    sqlite3_bind_int(st, 5, r->finished ? 1 : 0);
    if (r->finish_us >= 0)
        sqlite3_bind_int64(st, 6, r->finish_us);
    else
        sqlite3_bind_null(st, 6);
    sqlite3_bind_int64(st, 7, r->laps_completed);
    if (r->best_lap_us >= 0)
        sqlite3_bind_int64(st, 8, r->best_lap_us);
    else
        sqlite3_bind_null(st, 8);
    sqlite3_bind_int64(st, 9, r->barrier_hits);
    sqlite3_bind_int64(st, 10, r->car_hits);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return rs_store_fail(s, rc, "storing a race result", err, err_len);
    return RS_OK;
}

rs_status rs_store_race_finish(rs_store *s, int64_t race_id, int64_t finished_at, char *err,
                               size_t err_len)
{
    if (!s)
        return RS_ERR_ARG;
    sqlite3_stmt *st = rs_store_stmt(s, RS_STMT_RACE_FINISH,
                                     "UPDATE races SET finished_at = ?2 WHERE id = ?1", err,
                                     err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_int64(st, 1, race_id);
    sqlite3_bind_int64(st, 2, finished_at);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return rs_store_fail(s, rc, "finishing a race", err, err_len);
    if (sqlite3_changes(s->db) == 0) {
        rs_errf(err, err_len, "%s: race %lld does not exist", s->path, (long long)race_id);
        return RS_ERR_MISSING;
    }
    return RS_OK;
}
