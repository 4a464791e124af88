/*
 * Leaderboard queries (racesim/leaderboard.h) over the personal_bests and
 * laps tables of migrations/0001_initial.sql.
 *
 * Every board query is an equality on the board's four key columns followed
 * by a range or an ordered walk on (time_us, lap_id), which is exactly the
 * personal_bests_rank index: a top-N page reads N index entries, a rank is a
 * COUNT over the entries before the player's row (an index-only scan, no
 * table rows touched), and a player's own row is a primary-key lookup.
 * Statements are prepared on first use and kept until close: preparing
 * costs more than running a top-10 page.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leaderboard_internal.h"
#include "leaderboard_private.h"
#include "store_internal.h"

#define BOARD_FROM                                                                             \
    " FROM personal_bests AS pb JOIN laps AS l ON l.id = pb.lap_id"                           \
    " JOIN players AS p ON p.id = pb.player_id JOIN tracks AS t ON t.id = pb.track_id"         \
    " WHERE pb.track_id = ?1 AND pb.base_hash = ?2 AND pb.physics_version = ?3"                \
    " AND pb.tune_key = ?4"

/* The board's key columns, for queries on personal_bests alone. */
#define BOARD_WHERE                                                                            \
    " WHERE track_id = ?1 AND base_hash = ?2 AND physics_version = ?3 AND tune_key = ?4"

enum stmt_id {
    ST_TRACK,
    ST_PLAYER,
    ST_COUNT,
    ST_TOP,
    ST_AFTER,
    ST_BEFORE,
    ST_ROW,
    ST_RANK,
    ST_PBS,
    ST_RECENT,
    ST_PLAYER_RECENT,
    ST_COUNT_OF
};
_Static_assert((int)ST_COUNT_OF <= (int)RS_LB_OPS_FIRST, "leaderboard statement slots overlap");

static const char *const stmt_sql[ST_COUNT_OF] = {
    [ST_TRACK] = "SELECT id FROM tracks WHERE track_hash = ?1",
    [ST_PLAYER] = "SELECT id, name FROM players WHERE name = ?1",
    [ST_COUNT] = "SELECT count(*) FROM personal_bests" BOARD_WHERE,
    /* The offset is skipped inside the subquery, on the covering index
     * alone, so skipped rows cost no joins. */
    [ST_TOP] = "SELECT " ROW_COLS ", pb.tune_key"
               " FROM (SELECT track_id, tune_key, player_id, lap_id, time_us"
               "       FROM personal_bests" BOARD_WHERE
               "       ORDER BY time_us, lap_id LIMIT ?5 OFFSET ?6) AS pb"
               " JOIN laps AS l ON l.id = pb.lap_id JOIN players AS p ON p.id = pb.player_id"
               " JOIN tracks AS t ON t.id = pb.track_id ORDER BY pb.time_us, pb.lap_id",
    [ST_AFTER] = "SELECT " ROW_COLS ", pb.tune_key" BOARD_FROM
                 " AND (pb.time_us, pb.lap_id) > (?5, ?6) ORDER BY pb.time_us, pb.lap_id LIMIT ?7",
    [ST_BEFORE] = "SELECT " ROW_COLS ", pb.tune_key" BOARD_FROM
                  " AND (pb.time_us, pb.lap_id) < (?5, ?6)"
                  " ORDER BY pb.time_us DESC, pb.lap_id DESC LIMIT ?7",
    [ST_ROW] = "SELECT " ROW_COLS ", pb.tune_key" BOARD_FROM " AND pb.player_id = ?5",
    [ST_RANK] = "SELECT count(*) FROM personal_bests" BOARD_WHERE
                " AND (time_us, lap_id) < (?5, ?6)",
    [ST_PBS] = "SELECT " ROW_COLS ", pb.tune_key,"
               " 1 + (SELECT count(*) FROM personal_bests AS o"
               "      WHERE o.track_id = pb.track_id AND o.base_hash = pb.base_hash"
               "      AND o.physics_version = pb.physics_version AND o.tune_key = pb.tune_key"
               "      AND (o.time_us, o.lap_id) < (pb.time_us, pb.lap_id))"
               " FROM personal_bests AS pb JOIN laps AS l ON l.id = pb.lap_id"
               " JOIN players AS p ON p.id = pb.player_id JOIN tracks AS t ON t.id = pb.track_id"
               " WHERE pb.player_id = ?1 AND pb.physics_version = ?2"
               " ORDER BY t.name, 15, pb.base_hash, pb.tune_key = 0 DESC, pb.tune_key = -1 DESC,"
               " pb.tune_key < 0, pb.tune_key", /* then tune hashes, as unsigned numbers */
    [ST_RECENT] = "SELECT " ROW_COLS ", ?4"
                  " FROM laps AS l JOIN players AS p ON p.id = l.player_id"
                  " JOIN tracks AS t ON t.id = l.track_id"
                  " WHERE l.track_id = ?1 AND l.base_hash = ?2 AND l.physics_version = ?3"
                  " AND (?4 = 0 OR l.tune_hash = ?6)"
                  " ORDER BY l.recorded_at DESC, l.id DESC LIMIT ?5",
    [ST_PLAYER_RECENT] = "SELECT " ROW_COLS ", 0"
                         " FROM laps AS l JOIN players AS p ON p.id = l.player_id"
                         " JOIN tracks AS t ON t.id = l.track_id"
                         " WHERE l.player_id = ?1 AND l.physics_version = ?2"
                         " ORDER BY l.recorded_at DESC, l.id DESC LIMIT ?3",
};

static const char *const stmt_name[ST_COUNT_OF] = {
    [ST_TRACK] = "track", [ST_PLAYER] = "player", [ST_COUNT] = "count", [ST_TOP] = "top",
    [ST_AFTER] = "after", [ST_BEFORE] = "before", [ST_ROW] = "row",
    [ST_RANK] = "rank", [ST_PBS] = "personal_bests", [ST_RECENT] = "recent",
    [ST_PLAYER_RECENT] = "player_recent",
};

const char *rs_leaderboard_sql(unsigned i, const char **name)
{
    if (i >= ST_COUNT_OF)
        return NULL;
    if (name)
        *name = stmt_name[i];
    return stmt_sql[i];
}

/* Column of the board tune key and of the rank (ST_PBS only). */
enum { COL_TUNE_KEY = 16, COL_RANK = 17 };


/* ------------------------------------------------------------ errors */

rs_status rs_lb_db_error(rs_leaderboard *lb, const char *what, char *err, size_t err_len)
{
    if (err && err_len) {
        const char *file = sqlite3_db_filename(lb->db, "main");
        snprintf(err, err_len, "%s: leaderboard %s: %s", file && *file ? file : "(memory)", what,
                 sqlite3_errmsg(lb->db));
    }
    int code = sqlite3_errcode(lb->db) & 0xff;
    return code == SQLITE_NOMEM ? RS_ERR_NOMEM : RS_ERR_IO;
}

rs_status rs_lb_set_error(rs_status st, char *err, size_t err_len, const char *msg)
{
    if (err && err_len)
        snprintf(err, err_len, "%s", msg);
    return st;
}

/* ------------------------------------------------------- statements */

sqlite3_stmt *rs_lb_stmt(rs_leaderboard *lb, unsigned slot, const char *sql, char *err,
                         size_t err_len)
{
    if (!lb->stmt[slot]) {
        if (sqlite3_prepare_v3(lb->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &lb->stmt[slot],
                               NULL) != SQLITE_OK) {
            rs_lb_db_error(lb, "prepare", err, err_len);
            lb->stmt[slot] = NULL;
            return NULL;
        }
    }
    return lb->stmt[slot];
}

static sqlite3_stmt *stmt_get(rs_leaderboard *lb, enum stmt_id id, char *err, size_t err_len)
{
    return rs_lb_stmt(lb, id, stmt_sql[id], err, err_len);
}

void rs_lb_done(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

int rs_lb_bind_i64(sqlite3_stmt *st, int i, int64_t v)
{
    return sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

int rs_lb_bind_hash(sqlite3_stmt *st, int i, uint64_t v)
{
    return sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

int rs_lb_bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

/* ------------------------------------------------------- row reading */

void rs_lb_copy_name(char dst[RS_LB_NAME_MAX], const unsigned char *src)
{
    size_t n = 0;
    if (src) {
        n = strlen((const char *)src);
        if (n >= RS_LB_NAME_MAX) {
            n = RS_LB_NAME_MAX - 1;
            while (n > 0 && (src[n] & 0xc0) == 0x80)
                n--;
        }
        memcpy(dst, src, n);
    }
    dst[n] = '\0';
}

/* Parses the stored sector list, a JSON array of integers ("[31250,-1]").
 * Returns false when it is not one or has too many entries. */
static bool parse_sectors(const unsigned char *s, rs_lb_row *row)
{
    row->sector_count = 0;
    if (!s)
        return false;
    const char *p = (const char *)s;
    while (*p == ' ')
        p++;
    if (*p++ != '[')
        return false;
    while (*p == ' ')
        p++;
    if (*p == ']')
        return p[1] == '\0' || p[1] == ' ';
    for (;;) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || row->sector_count == RS_MAX_SECTORS)
            return false;
        row->sectors_us[row->sector_count++] = (int64_t)v;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == ']')
            return true;
        if (*p++ != ',')
            return false;
        while (*p == ' ')
            p++;
    }
}

rs_status rs_lb_read_row(rs_leaderboard *lb, sqlite3_stmt *st, rs_lb_row *row, char *err,
                          size_t err_len)
{
    (void)lb;
    memset(row, 0, sizeof *row);
    row->player_id = sqlite3_column_int64(st, 0);
    rs_lb_copy_name(row->player_name, sqlite3_column_text(st, 1));
    row->lap_id = sqlite3_column_int64(st, 2);
    row->time_us = sqlite3_column_int64(st, 3);
    row->recorded_at = sqlite3_column_int64(st, 4);
    row->tune_hash = (uint64_t)sqlite3_column_int64(st, 5);
    if (!parse_sectors(sqlite3_column_text(st, 6), row)) {
        if (err && err_len)
            snprintf(err, err_len, "lap %lld: sectors_us is not a JSON array of at most %d integers",
                     (long long)row->lap_id, RS_MAX_SECTORS);
        return RS_ERR_FORMAT;
    }
    row->race_id = sqlite3_column_int64(st, 7);
    row->lap_number = (uint32_t)sqlite3_column_int64(st, 8);
    row->valid = sqlite3_column_int64(st, 9) != 0;
    row->invalid_reason = (int32_t)sqlite3_column_int64(st, 10);
    row->track_hash = (uint64_t)sqlite3_column_int64(st, 11);
    rs_lb_copy_name(row->track_name, sqlite3_column_text(st, 12));
    row->base_hash = (uint64_t)sqlite3_column_int64(st, 13);
    rs_lb_copy_name(row->car_name, sqlite3_column_text(st, 14));
    row->physics_version = (uint32_t)sqlite3_column_int64(st, 15);
    row->tune_key = (uint64_t)sqlite3_column_int64(st, COL_TUNE_KEY);
    return RS_OK;
}

/* Steps st, reading up to cap rows (ranks are left 0 for the caller), then
 * resets it. With total not NULL the statement runs to the end and *total
 * gets the number of rows it returned. */
static rs_status collect(rs_leaderboard *lb, sqlite3_stmt *st, rs_lb_row *rows, uint32_t cap,
                         uint32_t *count, uint32_t *total, char *err, size_t err_len)
{
    uint32_t n = 0, all = 0;
    rs_status status = RS_OK;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n < cap) {
            status = rs_lb_read_row(lb, st, &rows[n], err, err_len);
            if (status != RS_OK)
                break;
            n++;
        }
        all++;
        if (!total && n == cap)
            break;
    }
    if (status == RS_OK && rc != SQLITE_ROW && rc != SQLITE_DONE)
        status = rs_lb_db_error(lb, "query", err, err_len);
    rs_lb_done(st);
    *count = n;
    if (total)
        *total = all;
    return status;
}

rs_status rs_lb_scalar(rs_leaderboard *lb, sqlite3_stmt *st, int64_t *out, bool *found,
                        char *err, size_t err_len)
{
    int rc = sqlite3_step(st);
    rs_status status = RS_OK;
    *found = rc == SQLITE_ROW;
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else if (rc != SQLITE_DONE)
        status = rs_lb_db_error(lb, "query", err, err_len);
    rs_lb_done(st);
    return status;
}

/* ------------------------------------------------------------ boards */

/* Finds the track's id. *found is false for a track the store has never
 * seen, whose boards are simply empty. */
static rs_status track_id(rs_leaderboard *lb, uint64_t track_hash, int64_t *id, bool *found,
                          char *err, size_t err_len)
{
    sqlite3_stmt *st = stmt_get(lb, ST_TRACK, err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (rs_lb_bind_hash(st, 1, track_hash) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    return rs_lb_scalar(lb, st, id, found, err, err_len);
}

/* Prepares statement id with the board key bound to ?1..?4. Returns NULL
 * with *status RS_OK for an unknown track (an empty board), NULL with an
 * error status on failure. */
static sqlite3_stmt *board_stmt(rs_leaderboard *lb, enum stmt_id id, const rs_board_key *key,
                                rs_status *status, char *err, size_t err_len)
{
    int64_t tid = 0;
    bool found = false;
    if (!key) {
        *status = rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: no board key");
        return NULL;
    }
    *status = track_id(lb, key->track_hash, &tid, &found, err, err_len);
    if (*status != RS_OK || !found)
        return NULL;
    sqlite3_stmt *st = stmt_get(lb, id, err, err_len);
    if (!st) {
        *status = RS_ERR_IO;
        return NULL;
    }
    if (rs_lb_bind_i64(st, 1, tid) != SQLITE_OK || rs_lb_bind_hash(st, 2, key->base_hash) != SQLITE_OK ||
        rs_lb_bind_i64(st, 3, key->physics_version) != SQLITE_OK ||
        rs_lb_bind_hash(st, 4, key->tune_key) != SQLITE_OK) {
        *status = rs_lb_db_error(lb, "bind", err, err_len);
        rs_lb_done(st);
        return NULL;
    }
    return st;
}

static void number_rows(rs_lb_row *rows, uint32_t count, uint32_t first_rank)
{
    for (uint32_t i = 0; i < count; i++)
        rows[i].rank = first_rank + i;
}

/* The rank of the row (time_us, lap_id) on the board. */
static rs_status rank_of(rs_leaderboard *lb, const rs_board_key *key, int64_t time_us,
                         int64_t lap_id, uint32_t *rank, char *err, size_t err_len)
{
    rs_status status;
    sqlite3_stmt *st = board_stmt(lb, ST_RANK, key, &status, err, err_len);
    *rank = 1;
    if (!st)
        return status;
    if (rs_lb_bind_i64(st, 5, time_us) != SQLITE_OK || rs_lb_bind_i64(st, 6, lap_id) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    int64_t before = 0;
    bool found;
    status = rs_lb_scalar(lb, st, &before, &found, err, err_len);
    *rank = (uint32_t)before + 1;
    return status;
}

rs_status rs_leaderboard_open_db(sqlite3 *db, rs_leaderboard **out, char *err, size_t err_len)
{
    if (!out || !db)
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: no database");
    *out = NULL;
    rs_leaderboard *lb = calloc(1, sizeof *lb);
    if (!lb)
        return rs_lb_set_error(RS_ERR_NOMEM, err, err_len, "leaderboard: out of memory");
    lb->db = db;
    *out = lb;
    return RS_OK;
}

rs_status rs_leaderboard_open(rs_store *store, rs_leaderboard **out, char *err, size_t err_len)
{
    if (!store) {
        if (out)
            *out = NULL;
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: no store");
    }
    return rs_leaderboard_open_db(rs_store_db(store), out, err, err_len);
}

void rs_leaderboard_close(rs_leaderboard *lb)
{
    if (!lb)
        return;
    for (int i = 0; i < RS_LB_SLOTS; i++)
        sqlite3_finalize(lb->stmt[i]);
    free(lb);
}

rs_status rs_leaderboard_find_player(rs_leaderboard *lb, const char *name, int64_t *player_id,
                                     char *name_out, char *err, size_t err_len)
{
    if (!lb || !name || !player_id)
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    sqlite3_stmt *st = stmt_get(lb, ST_PLAYER, err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (rs_lb_bind_text(st, 1, name) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    int rc = sqlite3_step(st);
    rs_status status = RS_OK;
    if (rc == SQLITE_ROW) {
        *player_id = sqlite3_column_int64(st, 0);
        if (name_out)
            rs_lb_copy_name(name_out, sqlite3_column_text(st, 1));
    } else if (rc == SQLITE_DONE) {
        if (err && err_len)
            snprintf(err, err_len, "no player named '%s'", name);
        status = RS_ERR_MISSING;
    } else {
        status = rs_lb_db_error(lb, "player lookup", err, err_len);
    }
    rs_lb_done(st);
    return status;
}

rs_status rs_leaderboard_count(rs_leaderboard *lb, const rs_board_key *key, uint32_t *count,
                               char *err, size_t err_len)
{
    if (!lb || !count)
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    *count = 0;
    rs_status status;
    sqlite3_stmt *st = board_stmt(lb, ST_COUNT, key, &status, err, err_len);
    if (!st)
        return status;
    int64_t n = 0;
    bool found;
    status = rs_lb_scalar(lb, st, &n, &found, err, err_len);
    *count = (uint32_t)n;
    return status;
}

rs_status rs_leaderboard_top(rs_leaderboard *lb, const rs_board_key *key, uint32_t offset,
                             uint32_t limit, rs_lb_row *rows, uint32_t *count, char *err,
                             size_t err_len)
{
    if (!lb || !count || (limit && !rows))
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    *count = 0;
    if (limit == 0)
        return RS_OK;
    rs_status status;
    sqlite3_stmt *st = board_stmt(lb, ST_TOP, key, &status, err, err_len);
    if (!st)
        return status;
    if (rs_lb_bind_i64(st, 5, limit) != SQLITE_OK || rs_lb_bind_i64(st, 6, offset) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    status = collect(lb, st, rows, limit, count, NULL, err, err_len);
    number_rows(rows, *count, offset + 1);
    return status;
}

rs_status rs_leaderboard_after(rs_leaderboard *lb, const rs_board_key *key, int64_t after_time_us,
                               int64_t after_lap_id, uint32_t limit, rs_lb_row *rows,
                               uint32_t *count, char *err, size_t err_len)
{
    if (!lb || !count || (limit && !rows))
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    *count = 0;
    if (limit == 0)
        return RS_OK;
    rs_status status;
    sqlite3_stmt *st = board_stmt(lb, ST_AFTER, key, &status, err, err_len);
    if (!st)
        return status;
    if (rs_lb_bind_i64(st, 5, after_time_us) != SQLITE_OK ||
        rs_lb_bind_i64(st, 6, after_lap_id) != SQLITE_OK || rs_lb_bind_i64(st, 7, limit) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    status = collect(lb, st, rows, limit, count, NULL, err, err_len);
    if (status != RS_OK || *count == 0)
        return status;
    uint32_t first;
    status = rank_of(lb, key, rows[0].time_us, rows[0].lap_id, &first, err, err_len);
    number_rows(rows, *count, first);
    return status;
}

rs_status rs_leaderboard_rank(rs_leaderboard *lb, const rs_board_key *key, int64_t player_id,
                              rs_lb_row *row, char *err, size_t err_len)
{
    if (!lb || !row)
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    rs_status status;
    sqlite3_stmt *st = board_stmt(lb, ST_ROW, key, &status, err, err_len);
    if (!st) {
        if (status == RS_OK)
            status = rs_lb_set_error(RS_ERR_MISSING, err, err_len, "the track has no laps");
        return status;
    }
    if (rs_lb_bind_i64(st, 5, player_id) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    uint32_t n;
    status = collect(lb, st, row, 1, &n, NULL, err, err_len);
    if (status != RS_OK)
        return status;
    if (n == 0)
        return rs_lb_set_error(RS_ERR_MISSING, err, err_len, "the player has no valid lap on this board");
    return rank_of(lb, key, row->time_us, row->lap_id, &row->rank, err, err_len);
}

rs_status rs_leaderboard_around(rs_leaderboard *lb, const rs_board_key *key, int64_t player_id,
                                uint32_t k, rs_lb_row *rows, uint32_t *count,
                                uint32_t *player_index, char *err, size_t err_len)
{
    if (!lb || !rows || !count || !player_index)
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    *count = 0;
    *player_index = 0;
    rs_lb_row me;
    rs_status status = rs_leaderboard_rank(lb, key, player_id, &me, err, err_len);
    if (status != RS_OK)
        return status;

    /* The k rows before, read best-last from the index and turned round. */
    uint32_t before = 0;
    if (k > 0) {
        sqlite3_stmt *st = board_stmt(lb, ST_BEFORE, key, &status, err, err_len);
        if (!st)
            return status != RS_OK ? status : RS_ERR_MISSING;
        if (rs_lb_bind_i64(st, 5, me.time_us) != SQLITE_OK || rs_lb_bind_i64(st, 6, me.lap_id) != SQLITE_OK ||
            rs_lb_bind_i64(st, 7, k) != SQLITE_OK) {
            rs_lb_done(st);
            return rs_lb_db_error(lb, "bind", err, err_len);
        }
        status = collect(lb, st, rows, k, &before, NULL, err, err_len);
        if (status != RS_OK)
            return status;
        for (uint32_t i = 0; i < before / 2; i++) {
            rs_lb_row t = rows[i];
            rows[i] = rows[before - 1 - i];
            rows[before - 1 - i] = t;
        }
    }
    rows[before] = me;

    uint32_t after = 0;
    if (k > 0) {
        sqlite3_stmt *st = board_stmt(lb, ST_AFTER, key, &status, err, err_len);
        if (!st)
            return status != RS_OK ? status : RS_ERR_MISSING;
        if (rs_lb_bind_i64(st, 5, me.time_us) != SQLITE_OK || rs_lb_bind_i64(st, 6, me.lap_id) != SQLITE_OK ||
            rs_lb_bind_i64(st, 7, k) != SQLITE_OK) {
            rs_lb_done(st);
            return rs_lb_db_error(lb, "bind", err, err_len);
        }
        status = collect(lb, st, rows + before + 1, k, &after, NULL, err, err_len);
        if (status != RS_OK)
            return status;
    }
    *count = before + 1 + after;
    *player_index = before;
    number_rows(rows, *count, me.rank - before);
    return RS_OK;
}

rs_status rs_leaderboard_personal_bests(rs_leaderboard *lb, int64_t player_id,
                                        uint32_t physics_version, rs_lb_row *rows, uint32_t cap,
                                        uint32_t *count, uint32_t *total, char *err,
                                        size_t err_len)
{
    if (!lb || !count || !total || (cap && !rows))
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    sqlite3_stmt *st = stmt_get(lb, ST_PBS, err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (rs_lb_bind_i64(st, 1, player_id) != SQLITE_OK || rs_lb_bind_i64(st, 2, physics_version) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    /* collect() resets the statement, so ranks are read as rows arrive. */
    uint32_t n = 0, all = 0;
    rs_status status = RS_OK;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n < cap) {
            status = rs_lb_read_row(lb, st, &rows[n], err, err_len);
            if (status != RS_OK)
                break;
            rows[n].rank = (uint32_t)sqlite3_column_int64(st, COL_RANK);
            n++;
        }
        all++;
    }
    if (status == RS_OK && rc != SQLITE_ROW && rc != SQLITE_DONE)
        status = rs_lb_db_error(lb, "personal bests", err, err_len);
    rs_lb_done(st);
    *count = n;
    *total = all;
    return status;
}

rs_status rs_leaderboard_recent(rs_leaderboard *lb, const rs_board_key *key, uint32_t limit,
                                rs_lb_row *rows, uint32_t *count, char *err, size_t err_len)
{
    if (!lb || !count || (limit && !rows))
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    *count = 0;
    if (limit == 0)
        return RS_OK;
    rs_status status;
    sqlite3_stmt *st = board_stmt(lb, ST_RECENT, key, &status, err, err_len);
    if (!st)
        return status;
    /* The laps' own tune hash: the stock board's key stands for hash 0. */
    uint64_t tune_hash = key->tune_key == RS_TUNE_KEY_STOCK ? 0 : key->tune_key;
    if (rs_lb_bind_i64(st, 5, limit) != SQLITE_OK || rs_lb_bind_hash(st, 6, tune_hash) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    return collect(lb, st, rows, limit, count, NULL, err, err_len);
}

rs_status rs_leaderboard_player_recent(rs_leaderboard *lb, int64_t player_id,
                                       uint32_t physics_version, uint32_t limit, rs_lb_row *rows,
                                       uint32_t *count, char *err, size_t err_len)
{
    if (!lb || !count || (limit && !rows))
        return rs_lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
    *count = 0;
    if (limit == 0)
        return RS_OK;
    sqlite3_stmt *st = stmt_get(lb, ST_PLAYER_RECENT, err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (rs_lb_bind_i64(st, 1, player_id) != SQLITE_OK || rs_lb_bind_i64(st, 2, physics_version) != SQLITE_OK ||
        rs_lb_bind_i64(st, 3, limit) != SQLITE_OK) {
        rs_lb_done(st);
        return rs_lb_db_error(lb, "bind", err, err_len);
    }
    return collect(lb, st, rows, limit, count, NULL, err, err_len);
}
