/*
 * Laps, their proofs and the personal bests. A lap row, its compressed proof
 * and the personal-best updates are written in one transaction, so the
 * leaderboards can never show a lap that is not stored, nor miss one that is.
 * Proofs are zlib streams (compress2, level 6: most of the gain of level 9
 * for a fraction of the time) with the raw size recorded next to them, so a
 * reader can allocate exactly and detect a damaged stream.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "laps.h"
#include "store_internal.h"
#include "racesim/base/err.h"

/* No proof is larger than this once decompressed (a 20-minute lap of 8 cars
 * at 60 Hz is a few MB); bigger recorded sizes mean a damaged row. */
#define RS_PROOF_MAX_BYTES (256u << 20)

uint64_t rs_store_tune_key(uint64_t tune_hash)
{
    return tune_hash == 0 ? RS_TUNE_KEY_STOCK : tune_hash;
}

rs_status rs_store__lap_check(const rs_store_lap *lap, char *err, size_t err_len)
{
    if (!lap)
        return RS_ERR_ARG;
    const char *bad = NULL;
    if (lap->player_id <= 0)
        bad = "player_id must be a stored player";
    else if (lap->lap_number < 1)
        bad = "lap_number must be at least 1";
    else if (lap->time_us <= 0)
        bad = "time_us must be positive";
    else if (lap->sector_count > RS_MAX_SECTORS)
        bad = "sector_count exceeds RS_MAX_SECTORS";
    else if (lap->race_id < 0)
        bad = "race_id must be 0 or a stored race";
    else if (lap->proof_len > 0 && !lap->proof)
        bad = "proof is NULL but proof_len is not 0";
    else if (lap->proof_len > RS_PROOF_MAX_BYTES)
        bad = "proof larger than 256 MiB";
    if (bad) {
        rs_errf(err, err_len, "lap (caller id %" PRId64 "): %s", lap->caller_id, bad);
        return RS_ERR_ARG;
    }
    return RS_OK;
}

/* "[t0,t1,...]": at most 16 numbers of at most 20 characters. */
static void sectors_json(const rs_store_lap *lap, char *out, size_t cap)
{
    size_t n = 0;
    out[n++] = '[';
    for (uint32_t i = 0; i < lap->sector_count; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%" PRId64, i ? "," : "", lap->sectors_us[i]);
    snprintf(out + n, cap - n, "]");
}

static rs_status put_proof(rs_store *s, const rs_store_lap *lap, int64_t lap_id, char *err,
                           size_t err_len)
{
    uLongf zcap = compressBound((uLong)lap->proof_len);
    uint8_t *z = malloc(zcap);
    if (!z)
        return RS_ERR_NOMEM;
    int zrc = compress2(z, &zcap, lap->proof, (uLong)lap->proof_len, 6);
    if (zrc != Z_OK) {
        free(z);
        rs_errf(err, err_len, "lap (caller id %" PRId64 "): compressing the proof: zlib %d",
                      lap->caller_id, zrc);
        return zrc == Z_MEM_ERROR ? RS_ERR_NOMEM : RS_ERR_FORMAT;
    }
    int64_t v[3] = {lap_id, lap->proof_format, (int64_t)lap->proof_len};
    sqlite3_stmt *st = rs_store__stmt_ints(s, RS_STMT_PROOF_INSERT,
                                           "INSERT INTO lap_proofs (lap_id, format, raw_size, "
                                           "data) VALUES (?1, ?2, ?3, ?4)",
                                           v, 3, err, err_len);
    rs_status status = RS_ERR_IO;
    if (st) {
        sqlite3_bind_blob64(st, 4, z, zcap, SQLITE_STATIC);
        status = rs_store__step_done(s, st, "storing a lap proof", err, err_len);
    }
    free(z);
    return status;
}

static rs_status put_best(rs_store *s, const rs_store_lap *lap, int64_t track_id,
                          uint64_t tune_key, int64_t lap_id, char *err, size_t err_len)
{
    /* Strictly faster only: on a tie the earlier lap keeps the place. */
    int64_t v[7] = {track_id, (int64_t)lap->base_hash, lap->physics_version, (int64_t)tune_key,
                    lap->player_id, lap_id, lap->time_us};
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_PB_UPSERT,
        "INSERT INTO personal_bests (track_id, base_hash, physics_version, tune_key, player_id, "
        "lap_id, time_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
        "ON CONFLICT (track_id, base_hash, physics_version, tune_key, player_id) "
        "DO UPDATE SET lap_id = excluded.lap_id, time_us = excluded.time_us "
        "WHERE excluded.time_us < personal_bests.time_us",
        v, 7, err, err_len);
    return st ? rs_store__step_done(s, st, "updating a personal best", err, err_len) : RS_ERR_IO;
}

rs_status rs_store__put_lap_in_tx(rs_store *s, const rs_store_lap *lap, int64_t *lap_id,
                                  char *err, size_t err_len)
{
    rs_status status = rs_store__lap_check(lap, err, err_len);
    if (status != RS_OK)
        return status;
    int64_t track_id = 0, car_id = 0;
    status = rs_store_track_id(s, lap->track_hash, &track_id, err, err_len);
    if (status == RS_OK)
        status = rs_store_car_id(s, lap->params_hash, &car_id, err, err_len);
    if (status != RS_OK)
        return status;
    char sectors[RS_MAX_SECTORS * 22 + 4];
    sectors_json(lap, sectors, sizeof sectors);

    /* ?10, the sectors, is text; a race id of 0 is stored as NULL. */
    int64_t v[15] = {lap->player_id, track_id, car_id, (int64_t)lap->base_hash,
                     (int64_t)lap->tune_hash, lap->physics_version, lap->race_id,
                     lap->lap_number, lap->time_us, 0, lap->valid ? 1 : 0, lap->invalid_reason,
                     (int64_t)lap->end_hash, lap->recorded_at, lap->caller_id};
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_LAP_INSERT,
        "INSERT INTO laps (player_id, track_id, car_id, base_hash, tune_hash, physics_version, "
        "race_id, lap_number, time_us, sectors_us, valid, invalid_reason, end_hash, "
        "recorded_at, caller_id) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        v, 15, err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (lap->race_id <= 0)
        sqlite3_bind_null(st, 7);
    sqlite3_bind_text(st, 10, sectors, -1, SQLITE_STATIC);
    status = rs_store__step_done(s, st, "storing a lap", err, err_len);
    if (status != RS_OK)
        return status;
    int64_t id = sqlite3_last_insert_rowid(s->db);

    if (lap->proof_len > 0) {
        status = put_proof(s, lap, id, err, err_len);
        if (status != RS_OK)
            return status;
    }
    if (lap->valid) {
        status = put_best(s, lap, track_id, rs_store_tune_key(lap->tune_hash), id, err, err_len);
        if (status == RS_OK)
            status = put_best(s, lap, track_id, RS_TUNE_KEY_ANY, id, err, err_len);
        if (status != RS_OK)
            return status;
    }
    *lap_id = id;
    return RS_OK;
}

rs_status rs_store_put_lap(rs_store *s, const rs_store_lap *lap, int64_t *lap_id, char *err,
                           size_t err_len)
{
    if (!s || !lap || !lap_id)
        return RS_ERR_ARG;
    rs_status status = rs_store__begin(s, err, err_len);
    if (status != RS_OK)
        return status;
    status = rs_store__put_lap_in_tx(s, lap, lap_id, err, err_len);
    if (status != RS_OK) {
        rs_store__rollback(s);
        return status;
    }
    return rs_store__commit(s, err, err_len);
}

/* Inflates a stored proof of len bytes that must decompress to exactly
 * raw_size bytes. *out is malloc'ed: caller frees with free(). RS_ERR_FORMAT
 * when it does not. */
static rs_status proof_decompress(const uint8_t *data, size_t len, size_t raw_size,
                                  uint8_t **out, char *err, size_t err_len)
{
    *out = NULL;
    if (raw_size > RS_PROOF_MAX_BYTES) {
        rs_errf(err, err_len, "proof: recorded size %zu is not plausible", raw_size);
        return RS_ERR_FORMAT;
    }
    uint8_t *buf = malloc(raw_size ? raw_size : 1);
    if (!buf)
        return RS_ERR_NOMEM;
    uLongf got = (uLongf)raw_size;
    /* With a buffer of exactly raw_size, a stream that inflates to more
     * fails with Z_BUF_ERROR and one that inflates to less is caught by the
     * size comparison. */
    int zrc = uncompress(buf, &got, data, (uLong)len);
    if (zrc != Z_OK || got != raw_size) {
        free(buf);
        if (zrc == Z_MEM_ERROR)
            return RS_ERR_NOMEM;
        rs_errf(err, err_len,
                "proof: stored data does not decompress to the recorded %zu bytes (%s)",
                raw_size, zrc == Z_OK ? "shorter" : zrc == Z_BUF_ERROR ? "longer or cut"
                                                                      : "damaged stream");
        return RS_ERR_FORMAT;
    }
    *out = buf;
    return RS_OK;
}

rs_status rs_store_lap_proof(rs_store *s, int64_t lap_id, uint32_t *format, uint8_t **out,
                             size_t *out_len, char *err, size_t err_len)
{
    if (!s || !format || !out || !out_len)
        return RS_ERR_ARG;
    *out = NULL;
    *out_len = 0;
    sqlite3_stmt *st = rs_store__stmt_ints(s, RS_STMT_PROOF_SELECT,
                                           "SELECT format, raw_size, data FROM lap_proofs "
                                           "WHERE lap_id = ?1",
                                           &lap_id, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__step_row(s, st, "reading a lap proof", err, err_len);
    if (status == RS_OK) {
        int64_t fmt = sqlite3_column_int64(st, 0);
        int64_t raw = sqlite3_column_int64(st, 1);
        const uint8_t *data = sqlite3_column_blob(st, 2);
        int n = sqlite3_column_bytes(st, 2);
        if (fmt < 0 || fmt > UINT32_MAX || raw < 0 || n < 0 || (!data && n > 0)) {
            rs_errf(err, err_len, "%s: lap %" PRId64 ": proof row is malformed", s->path, lap_id);
            status = RS_ERR_FORMAT;
        } else {
            char why[160];
            status = proof_decompress(data ? data : (const uint8_t *)"", (size_t)n, (size_t)raw,
                                      out, why, sizeof why);
            if (status == RS_OK) {
                *format = (uint32_t)fmt;
                *out_len = (size_t)raw;
            } else {
                rs_errf(err, err_len, "%s: lap %" PRId64 ": %s", s->path, lap_id, why);
            }
        }
    } else if (status == RS_ERR_MISSING) {
        rs_errf(err, err_len, "%s: lap %" PRId64 " has no proof", s->path, lap_id);
    }
    sqlite3_reset(st);
    return status;
}

rs_status rs_store_lap_by_caller_id(rs_store *s, int64_t caller_id, int64_t *lap_id,
                                    char *err, size_t err_len)
{
    if (!s || !lap_id)
        return RS_ERR_ARG;
    rs_status status = rs_store__id_lookup(s, RS_STMT_LAP_BY_CALLER,
                                           "SELECT id FROM laps WHERE caller_id = ?1 "
                                           "ORDER BY id DESC LIMIT 1",
                                           caller_id, "looking up a lap", lap_id, err, err_len);
    if (status == RS_ERR_MISSING)
        rs_errf(err, err_len, "%s: no lap with caller id %" PRId64, s->path, caller_id);
    return status;
}
