/*
 * Saved car tunes, per player, stock car and name. rs_store_tune_put
 * validates the JSON (racesim/tune.h) and stores nothing unless it is legal;
 * rs_store_tune_save keeps JSON its caller already validated. The store
 * keeps the JSON as given with its content hash and the hash of the tuned
 * car's block.
 * Saving under an existing name replaces that tune (a new version is a new
 * content hash under the same name). A player holds at most
 * RS_STORE_TUNES_PER_PLAYER tunes: a new name beyond that is refused, so a
 * player's rows, and every listing of them, stay bounded.
 */
#include <stdlib.h>
#include <string.h>

#include "racesim/base/err.h"
#include "racesim/tune.h"
#include "store_internal.h"

#define TUNE_NAME_MAX 64
#define STR_(x) #x
#define STR(x) STR_(x)

static rs_status check_name(const char *name, char *err, size_t err_len)
{
    size_t n = strlen(name);
    if (n < 1 || n > TUNE_NAME_MAX) {
        rs_errf(err, err_len, "tune name \"%s\": must be 1..%d bytes", name, TUNE_NAME_MAX);
        return RS_ERR_RANGE;
    }
    return RS_OK;
}

rs_status rs_store_tune_save(rs_store *s, int64_t player_id, uint64_t base_hash,
                             const char *name, uint64_t tune_hash, uint64_t params_hash,
                             const char *json, int64_t now_s, int64_t *tune_id, char *err,
                             size_t err_len)
{
    if (!s || !name || !json || !tune_id)
        return RS_ERR_ARG;
    rs_status status = check_name(name, err, err_len);
    if (status != RS_OK)
        return status;
    /* ?3 (the name), ?6 (the JSON) and ?7 are bound below. One statement
     * both checks the cap and writes, so two connections saving at once
     * cannot pass it together: the SELECT yields no row (nothing is
     * inserted) when the name is new and the player already has
     * RS_STORE_TUNES_PER_PLAYER tunes; an existing name is replaced. */
    int64_t v[5] = {player_id, (int64_t)base_hash, 0, (int64_t)tune_hash, (int64_t)params_hash};
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_TUNE_UPSERT,
        "INSERT INTO tunes (player_id, base_hash, name, tune_hash, params_hash, json, created_at) "
        "SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 WHERE (SELECT count(*) FROM tunes WHERE player_id = ?1) "
        "< " STR(RS_STORE_TUNES_PER_PLAYER) " OR EXISTS (SELECT 1 FROM tunes WHERE player_id = ?1 "
        "AND base_hash = ?2 AND name = ?3) "
        "ON CONFLICT (player_id, base_hash, name) DO UPDATE SET tune_hash = excluded.tune_hash, "
        "params_hash = excluded.params_hash, json = excluded.json, "
        "created_at = excluded.created_at RETURNING id",
        v, 5, err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, json, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 7, now_s);
    bool stored = false;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *tune_id = sqlite3_column_int64(st, 0);
        stored = true;
        rc = sqlite3_step(st);
    }
    sqlite3_reset(st);
    if ((rc & 0xff) == SQLITE_CONSTRAINT) {
        rs_errf(err, err_len, "%s: saving tune \"%s\": %s (is player %lld stored?)", s->path,
                name, sqlite3_errmsg(s->db), (long long)player_id);
        return RS_ERR_RANGE;
    }
    if (rc != SQLITE_DONE)
        return rs_store__fail(s, rc, "saving a tune", err, err_len);
    if (!stored) {
        rs_errf(err, err_len, "at most %d saved tunes per player: save under an existing name "
                "to replace one", RS_STORE_TUNES_PER_PLAYER);
        return RS_ERR_RANGE;
    }
    return RS_OK;
}

/* An rs_store__row_reader: row is an rs_store_tune. */
static void read_info(sqlite3_stmt *st, void *row)
{
    rs_store_tune *t = row;
    memset(t, 0, sizeof *t);
    t->id = sqlite3_column_int64(st, 0);
    t->player_id = sqlite3_column_int64(st, 1);
    t->base_hash = (uint64_t)sqlite3_column_int64(st, 2);
    const char *name = (const char *)sqlite3_column_text(st, 3);
    if (name) {
        size_t n = strlen(name);
        if (n > TUNE_NAME_MAX)
            n = TUNE_NAME_MAX;
        memcpy(t->name, name, n);
        t->name[n] = '\0';
    }
    t->tune_hash = (uint64_t)sqlite3_column_int64(st, 4);
    t->params_hash = (uint64_t)sqlite3_column_int64(st, 5);
    t->created_at = sqlite3_column_int64(st, 6);
}

#define TUNE_COLUMNS "id, player_id, base_hash, name, tune_hash, params_hash, created_at"

/* The cached statement in slot with the player and the stock car bound to
 * ?1 and ?2, and the tune's name (if not NULL) to ?3. */
static sqlite3_stmt *tune_stmt(rs_store *s, unsigned slot, const char *sql, int64_t player_id,
                               uint64_t base_hash, const char *name, char *err, size_t err_len)
{
    int64_t v[2] = {player_id, (int64_t)base_hash};
    sqlite3_stmt *st = rs_store__stmt_ints(s, slot, sql, v, 2, err, err_len);
    if (st && name)
        sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
    return st;
}

rs_status rs_store_tune_list(rs_store *s, int64_t player_id, uint64_t base_hash,
                             rs_store_tune *out, size_t cap, size_t *total, char *err,
                             size_t err_len)
{
    if (!s || !total || (cap > 0 && !out))
        return RS_ERR_ARG;
    sqlite3_stmt *st = tune_stmt(s, RS_STMT_TUNE_LIST,
                                 "SELECT " TUNE_COLUMNS " FROM tunes WHERE player_id = ?1 "
                                 "AND (?2 = 0 OR base_hash = ?2) ORDER BY base_hash, name",
                                 player_id, base_hash, NULL, err, err_len);
    if (!st)
        return RS_ERR_IO;
    size_t n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n < cap)
            read_info(st, &out[n]);
        n++;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return rs_store__fail(s, rc, "listing tunes", err, err_len);
    *total = n;
    return RS_OK;
}

rs_status rs_store_tune_list_page(rs_store *s, int64_t player_id, uint64_t base_hash,
                                  int64_t offset, rs_store_tune *out, size_t cap, size_t *n,
                                  size_t *total, char *err, size_t err_len)
{
    rs_status status = rs_store__page_check(s, offset, cap, out, n, total, err, err_len);
    if (status != RS_OK)
        return status;
    sqlite3_stmt *st = tune_stmt(s, RS_STMT_TUNE_COUNT,
                                 "SELECT count(*) FROM tunes WHERE player_id = ?1 "
                                 "AND (?2 = 0 OR base_hash = ?2)",
                                 player_id, base_hash, NULL, err, err_len);
    status = rs_store__page_count(s, st, "counting tunes", total, err, err_len);
    if (status != RS_OK || cap == 0)
        return status;
    st = tune_stmt(s, RS_STMT_TUNE_PAGE,
                   "SELECT " TUNE_COLUMNS " FROM tunes WHERE player_id = ?1 "
                   "AND (?2 = 0 OR base_hash = ?2) ORDER BY base_hash, name LIMIT ?3 OFFSET ?4",
                   player_id, base_hash, NULL, err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_int64(st, 3, rs_store__limit(cap));
    sqlite3_bind_int64(st, 4, offset);
    return rs_store__page_rows(s, st, read_info, out, sizeof *out, cap, n, "listing tunes", err,
                               err_len);
}

/* Copies a text column into a malloc'ed, NUL-terminated string. */
static char *column_text_copy(sqlite3_stmt *st, int col)
{
    const char *text = (const char *)sqlite3_column_text(st, col);
    size_t n = (size_t)sqlite3_column_bytes(st, col);
    char *copy = malloc(n + 1);
    if (copy) {
        if (n > 0 && text)
            memcpy(copy, text, n);
        copy[n] = '\0';
    }
    return copy;
}

rs_status rs_store_tune_load(rs_store *s, int64_t player_id, uint64_t base_hash,
                             const char *name, rs_store_tune *info, char **json, char *err,
                             size_t err_len)
{
    if (!s || !name || !json)
        return RS_ERR_ARG;
    *json = NULL;
    sqlite3_stmt *st = tune_stmt(s, RS_STMT_TUNE_LOAD,
                                 "SELECT " TUNE_COLUMNS ", json FROM tunes "
                                 "WHERE player_id = ?1 AND base_hash = ?2 AND name = ?3",
                                 player_id, base_hash, name, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__step_row(s, st, "loading a tune", err, err_len);
    if (status == RS_OK) {
        if (info)
            read_info(st, info);
        *json = column_text_copy(st, 7);
        if (!*json)
            status = RS_ERR_NOMEM;
    } else if (status == RS_ERR_MISSING) {
        rs_errf(err, err_len, "%s: tune \"%s\" not found for player %lld and car %016llx",
                s->path, name, (long long)player_id, (unsigned long long)base_hash);
    }
    sqlite3_reset(st);
    return status;
}

rs_status rs_store_tune_delete(rs_store *s, int64_t player_id, uint64_t base_hash,
                               const char *name, char *err, size_t err_len)
{
    if (!s || !name)
        return RS_ERR_ARG;
    sqlite3_stmt *st = tune_stmt(s, RS_STMT_TUNE_DELETE,
                                 "DELETE FROM tunes WHERE player_id = ?1 AND base_hash = ?2 "
                                 "AND name = ?3",
                                 player_id, base_hash, name, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__step_done(s, st, "deleting a tune", err, err_len);
    if (status == RS_OK && sqlite3_changes(s->db) == 0) {
        rs_errf(err, err_len, "%s: tune \"%s\" not found for player %lld", s->path, name,
                (long long)player_id);
        return RS_ERR_MISSING;
    }
    return status;
}

rs_status rs_store_tune_put(rs_store *s, int64_t player_id, const rs_car_params *stock,
                            const char *name, const char *tune_json, size_t len, int64_t now_s,
                            int64_t *tune_id, uint64_t *tune_hash, char *err, size_t err_len)
{
    if (!s || !stock || !name || !tune_json || !tune_id)
        return RS_ERR_ARG;
    rs_status st = check_name(name, err, err_len);
    if (st != RS_OK)
        return st;
    /* The JSON is stored as text: it must be one (no NUL inside). */
    if (memchr(tune_json, '\0', len)) {
        rs_errf(err, err_len, "tune \"%s\": contains a NUL byte", name);
        return RS_ERR_PARSE;
    }
    rs_car_params *tuned = NULL;
    uint64_t hash = 0;
    st = rs_tune_apply(stock, tune_json, len, name, &tuned, &hash, err, err_len);
    if (st != RS_OK)
        return st; /* err names every bad field; nothing was written */
    char *text = malloc(len + 1);
    if (!text) {
        rs_car_params_destroy(tuned);
        return RS_ERR_NOMEM;
    }
    memcpy(text, tune_json, len);
    text[len] = '\0';
    int64_t car_id = 0;
    uint64_t stock_hash = rs_car_params_hash(stock);
    /* One transaction: the tuned block and the tune land together or not at all. */
    st = rs_store__begin(s, err, err_len);
    if (st == RS_OK)
        st = rs_store_put_car(s, tuned, stock_hash, &car_id, err, err_len);
    if (st == RS_OK)
        st = rs_store_tune_save(s, player_id, stock_hash, name, hash, rs_car_params_hash(tuned),
                                text, now_s, tune_id, err, err_len);
    if (st == RS_OK)
        st = rs_store__commit(s, err, err_len);
    else
        rs_store__rollback(s);
    free(text);
    rs_car_params_destroy(tuned);
    if (st == RS_OK && tune_hash)
        *tune_hash = hash;
    return st;
}
