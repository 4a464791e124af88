/*
 * Leaderboard queries (racesim/leaderboard.h) over the personal_bests and
 * laps tables of migrations/0001_initial.sql.
 *
 * Every board query is an equality on the board's four key columns followed
 * by a range or an ordered walk on (time_us, lap_id), which is exactly the
 * personal_bests_rank index: a top-N page reads N index entries, a rank is a
 * COUNT over the entries before the player's row (an index-only scan, no
 * table rows touched), and a player's own row is a primary-key lookup.
 * Statements are prepared on first use and kept in the store's statement
 * cache: preparing costs more than running a top-10 page.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leaderboard_internal.h"
#include "racesim/base/err.h"
#include "racesim/store_testing.h"

#define BOARD_FROM                                                                             \
    " FROM personal_bests AS pb JOIN laps AS l ON l.id = pb.lap_id"                           \
    " JOIN players AS p ON p.id = pb.player_id JOIN tracks AS t ON t.id = pb.track_id"         \
    " WHERE pb.track_id = ?1 AND pb.base_hash = ?2 AND pb.physics_version = ?3"                \
    " AND pb.tune_key = ?4"

/* The board's key columns, for queries on personal_bests alone. */
#define BOARD_WHERE                                                                            \
    " WHERE track_id = ?1 AND base_hash = ?2 AND physics_version = ?3 AND tune_key = ?4"

static const char *const stmt_sql[LB_BOARD_QUERIES] = {
    [LB_TRACK] = "SELECT id FROM tracks WHERE track_hash = ?1",
    [LB_PLAYER] = "SELECT id, name FROM players WHERE name = ?1",
    [LB_COUNT] = "SELECT count(*) FROM personal_bests" BOARD_WHERE,
    /* The offset is skipped inside the subquery, on the covering index
     * alone, so skipped rows cost no joins. */
    [LB_TOP] = "SELECT " ROW_COLS ", pb.tune_key"
               " FROM (SELECT track_id, tune_key, player_id, lap_id, time_us"
               "       FROM personal_bests" BOARD_WHERE
               "       ORDER BY time_us, lap_id LIMIT ?5 OFFSET ?6) AS pb"
               " JOIN laps AS l ON l.id = pb.lap_id JOIN players AS p ON p.id = pb.player_id"
               " JOIN tracks AS t ON t.id = pb.track_id ORDER BY pb.time_us, pb.lap_id",
    [LB_AFTER] = "SELECT " ROW_COLS ", pb.tune_key" BOARD_FROM
                 " AND (pb.time_us, pb.lap_id) > (?5, ?6) ORDER BY pb.time_us, pb.lap_id LIMIT ?7",
    [LB_BEFORE] = "SELECT " ROW_COLS ", pb.tune_key" BOARD_FROM
                  " AND (pb.time_us, pb.lap_id) < (?5, ?6)"
                  " ORDER BY pb.time_us DESC, pb.lap_id DESC LIMIT ?7",
    [LB_ROW] = "SELECT " ROW_COLS ", pb.tune_key" BOARD_FROM " AND pb.player_id = ?5",
    [LB_RANK] = "SELECT count(*) FROM personal_bests" BOARD_WHERE
                " AND (time_us, lap_id) < (?5, ?6)",
    [LB_PBS] = "SELECT " ROW_COLS ", pb.tune_key,"
               " 1 + (SELECT count(*) FROM personal_bests AS o"
               "      WHERE o.track_id = pb.track_id AND o.base_hash = pb.base_hash"
               "      AND o.physics_version = pb.physics_version AND o.tune_key = pb.tune_key"
               "      AND (o.time_us, o.lap_id) < (pb.time_us, pb.lap_id))"
               " FROM personal_bests AS pb JOIN laps AS l ON l.id = pb.lap_id"
               " JOIN players AS p ON p.id = pb.player_id JOIN tracks AS t ON t.id = pb.track_id"
               " WHERE pb.player_id = ?1 AND pb.physics_version = ?2"
               " ORDER BY t.name, 15, pb.base_hash, pb.tune_key = 0 DESC, pb.tune_key = -1 DESC,"
               " pb.tune_key < 0, pb.tune_key", /* then tune hashes, as unsigned numbers */
    [LB_RECENT] = "SELECT " ROW_COLS ", ?4"
                  " FROM laps AS l JOIN players AS p ON p.id = l.player_id"
                  " JOIN tracks AS t ON t.id = l.track_id"
                  " WHERE l.track_id = ?1 AND l.base_hash = ?2 AND l.physics_version = ?3"
                  " AND (?4 = 0 OR l.tune_hash = ?6)"
                  " ORDER BY l.recorded_at DESC, l.id DESC LIMIT ?5",
    [LB_PLAYER_RECENT] = "SELECT " ROW_COLS ", 0"
                         " FROM laps AS l JOIN players AS p ON p.id = l.player_id"
                         " JOIN tracks AS t ON t.id = l.track_id"
                         " WHERE l.player_id = ?1 AND l.physics_version = ?2"
                         " ORDER BY l.recorded_at DESC, l.id DESC LIMIT ?3",
};

static const char *const stmt_name[LB_BOARD_QUERIES] = {
    [LB_TRACK] = "track", [LB_PLAYER] = "player", [LB_COUNT] = "count", [LB_TOP] = "top",
    [LB_AFTER] = "after", [LB_BEFORE] = "before", [LB_ROW] = "row",
    [LB_RANK] = "rank", [LB_PBS] = "personal_bests", [LB_RECENT] = "recent",
    [LB_PLAYER_RECENT] = "player_recent",
};

const char *rs_store__leaderboard_sql(unsigned i, const char **name)
{
    if (i >= LB_BOARD_QUERIES)
        return NULL;
    if (!stmt_sql[i]) /* a class board's query: leaderboard_class.c keeps those */
        return rs_store__lb_class_sql((enum rs_lb_query)i, name);
    if (name)
        *name = stmt_name[i];
    return stmt_sql[i];
}

/* Column of the board tune key and of the rank (LB_PBS only). */
enum { COL_TUNE_KEY = 16, COL_RANK = 17 };

/* ------------------------------------------------------------ errors */

rs_status rs_store__lb_db_error(rs_leaderboard *lb, const char *what, char *err,
                                size_t err_len)
{
    sqlite3 *db = lb->store->db;
    const char *file = sqlite3_db_filename(db, "main");
    rs_errf(err, err_len, "%s: leaderboard %s: %s", file && *file ? file : "(memory)", what,
            sqlite3_errmsg(db));
    return (sqlite3_errcode(db) & 0xff) == SQLITE_NOMEM ? RS_ERR_NOMEM : RS_ERR_IO;
}

rs_status rs_store__lb_set_error(rs_status st, char *err, size_t err_len, const char *msg)
{
    rs_errf(err, err_len, "%s", msg);
    return st;
}

rs_status rs_store__lb_missing_argument(char *err, size_t err_len)
{
    return rs_store__lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: missing argument");
}

/* ------------------------------------------------------- statements */

sqlite3_stmt *rs_store__lb_stmt(rs_leaderboard *lb, enum rs_lb_query q, const char *sql,
                                const int64_t *v, int n, char *err, size_t err_len)
{
    return rs_store__stmt_ints(lb->store, RS_STMT_LB_FIRST + (unsigned)q, sql, v, n, err,
                               err_len);
}

/* A board query with v[0..n-1] bound to ?1..?n. */
static sqlite3_stmt *board_query(rs_leaderboard *lb, enum rs_lb_query q, const int64_t *v, int n,
                                 char *err, size_t err_len)
{
    return rs_store__lb_stmt(lb, q, stmt_sql[q], v, n, err, err_len);
}

void rs_store__lb_done(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

rs_status rs_store__lb_bind_text(rs_leaderboard *lb, sqlite3_stmt *st, int i, const char *text,
                                 char *err, size_t err_len)
{
    if (sqlite3_bind_text(st, i, text, -1, SQLITE_TRANSIENT) == SQLITE_OK)
        return RS_OK;
    rs_store__lb_done(st);
    return rs_store__lb_db_error(lb, "bind", err, err_len);
}

rs_status rs_store__lb_step_row(rs_leaderboard *lb, sqlite3_stmt *st, const char *what,
                                char *err, size_t err_len)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        return RS_OK;
    return rc == SQLITE_DONE ? RS_ERR_MISSING : rs_store__lb_db_error(lb, what, err, err_len);
}

/* ------------------------------------------------------- row reading */

void rs_store__lb_copy_name(char dst[RS_LB_NAME_MAX], const unsigned char *src)
{
    rs_store__copy_text(dst, RS_LB_NAME_MAX, src);
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

rs_status rs_store__lb_read_row(sqlite3_stmt *st, rs_lb_row *row, char *err, size_t err_len)
{
    memset(row, 0, sizeof *row);
    row->player_id = sqlite3_column_int64(st, 0);
    rs_store__lb_copy_name(row->player_name, sqlite3_column_text(st, 1));
    row->lap_id = sqlite3_column_int64(st, 2);
    row->time_us = sqlite3_column_int64(st, 3);
    row->recorded_at = sqlite3_column_int64(st, 4);
    row->tune_hash = (uint64_t)sqlite3_column_int64(st, 5);
    if (!parse_sectors(sqlite3_column_text(st, 6), row)) {
        rs_errf(err, err_len, "lap %lld: sectors_us is not a JSON array of at most %d integers",
                (long long)row->lap_id, RS_MAX_SECTORS);
        return RS_ERR_FORMAT;
    }
    row->race_id = sqlite3_column_int64(st, 7);
    row->lap_number = (uint32_t)sqlite3_column_int64(st, 8);
    row->valid = sqlite3_column_int64(st, 9) != 0;
    row->invalid_reason = (int32_t)sqlite3_column_int64(st, 10);
    row->track_hash = (uint64_t)sqlite3_column_int64(st, 11);
    rs_store__lb_copy_name(row->track_name, sqlite3_column_text(st, 12));
    row->base_hash = (uint64_t)sqlite3_column_int64(st, 13);
    rs_store__lb_copy_name(row->car_name, sqlite3_column_text(st, 14));
    row->physics_version = (uint32_t)sqlite3_column_int64(st, 15);
    row->tune_key = (uint64_t)sqlite3_column_int64(st, COL_TUNE_KEY);
    return RS_OK;
}

rs_status rs_store__lb_collect(rs_leaderboard *lb, sqlite3_stmt *st, rs_lb_row *rows,
                               uint32_t cap, int rank_col, uint32_t *count, uint32_t *total,
                               char *err, size_t err_len)
{
    uint32_t n = 0, all = 0;
    rs_status status = RS_OK;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n < cap) {
            status = rs_store__lb_read_row(st, &rows[n], err, err_len);
            if (status != RS_OK)
                break;
            if (rank_col >= 0)
                rows[n].rank = (uint32_t)sqlite3_column_int64(st, rank_col);
            n++;
        }
        all++;
        if (!total && n == cap)
            break;
    }
    if (status == RS_OK && rc != SQLITE_ROW && rc != SQLITE_DONE)
        status = rs_store__lb_db_error(lb, "query", err, err_len);
    rs_store__lb_done(st);
    *count = n;
    if (total)
        *total = all;
    return status;
}

rs_status rs_store__lb_scalar(rs_leaderboard *lb, sqlite3_stmt *st, int64_t *out, bool *found,
                              char *err, size_t err_len)
{
    rs_status status = rs_store__lb_step_row(lb, st, "query", err, err_len);
    *found = status == RS_OK;
    if (*found)
        *out = sqlite3_column_int64(st, 0);
    rs_store__lb_done(st);
    return status == RS_ERR_MISSING ? RS_OK : status;
}

/* ------------------------------------------------------------ boards */

rs_status rs_store__lb_track_id(rs_leaderboard *lb, uint64_t track_hash, int64_t *track_id,
                                bool *found, char *err, size_t err_len)
{
    int64_t hash = (int64_t)track_hash;
    *found = false;
    sqlite3_stmt *st = board_query(lb, LB_TRACK, &hash, 1, err, err_len);
    return st ? rs_store__lb_scalar(lb, st, track_id, found, err, err_len) : RS_ERR_IO;
}

/* Prepares board query q with the board key bound to ?1..?4 and the n (at
 * most 4) values of more to ?5 on. Returns NULL with *status RS_OK for a track the
 * store has never seen (its boards are simply empty), NULL with an error
 * status on failure. */
static sqlite3_stmt *board_stmt(rs_leaderboard *lb, enum rs_lb_query q, const rs_board_key *key,
                                const int64_t *more, int n, rs_status *status, char *err,
                                size_t err_len)
{
    if (!key) {
        *status = rs_store__lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: no board key");
        return NULL;
    }
    int64_t track_id = 0;
    bool found = false;
    *status = rs_store__lb_track_id(lb, key->track_hash, &track_id, &found, err, err_len);
    if (*status != RS_OK || !found)
        return NULL;
    int64_t v[8] = {track_id, (int64_t)key->base_hash, key->physics_version,
                    (int64_t)key->tune_key};
    for (int i = 0; i < n; i++)
        v[4 + i] = more[i];
    sqlite3_stmt *st = board_query(lb, q, v, 4 + n, err, err_len);
    if (!st)
        *status = RS_ERR_IO;
    return st;
}

void rs_store__lb_number_rows(rs_lb_row *rows, uint32_t count, uint32_t first_rank)
{
    for (uint32_t i = 0; i < count; i++)
        rows[i].rank = first_rank + i;
}

/* The rank of the row (time_us, lap_id) on the board. */
static rs_status rank_of(rs_leaderboard *lb, const rs_board_key *key, int64_t time_us,
                         int64_t lap_id, uint32_t *rank, char *err, size_t err_len)
{
    int64_t row[2] = {time_us, lap_id}, before = 0;
    rs_status status;
    sqlite3_stmt *st = board_stmt(lb, LB_RANK, key, row, 2, &status, err, err_len);
    *rank = 1;
    if (!st)
        return status;
    bool found;
    status = rs_store__lb_scalar(lb, st, &before, &found, err, err_len);
    *rank = (uint32_t)before + 1;
    return status;
}

bool rs_store__lb_page_start(const rs_leaderboard *lb, uint32_t *count, uint32_t limit,
                             const rs_lb_row *rows, rs_status *status, char *err,
                             size_t err_len)
{
    *status = RS_OK;
    if (!lb || !count || (limit && !rows))
        *status = rs_store__lb_missing_argument(err, err_len);
    else
        *count = 0;
    return *status == RS_OK && limit > 0;
}

void rs_store__lb_reverse(rs_lb_row *rows, uint32_t n)
{
    for (uint32_t i = 0; i < n / 2; i++) {
        rs_lb_row t = rows[i];
        rows[i] = rows[n - 1 - i];
        rows[n - 1 - i] = t;
    }
}

rs_status rs_leaderboard_open(rs_store *store, rs_leaderboard **out, char *err, size_t err_len)
{
    if (out)
        *out = NULL;
    if (!store)
        return rs_store__lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: no store");
    if (!out)
        return rs_store__lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: no database");
    rs_leaderboard *lb = calloc(1, sizeof *lb);
    if (!lb)
        return rs_store__lb_set_error(RS_ERR_NOMEM, err, err_len, "leaderboard: out of memory");
    lb->store = store;
    *out = lb;
    return RS_OK;
}

void rs_leaderboard_close(rs_leaderboard *lb)
{
    /* Its statements stay in the store's cache, for the next leaderboard. */
    free(lb);
}

rs_status rs_leaderboard_find_player(rs_leaderboard *lb, const char *name, int64_t *player_id,
                                     char *name_out, char *err, size_t err_len)
{
    if (!lb || !name || !player_id)
        return rs_store__lb_missing_argument(err, err_len);
    sqlite3_stmt *st = board_query(lb, LB_PLAYER, NULL, 0, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__lb_bind_text(lb, st, 1, name, err, err_len);
    if (status != RS_OK)
        return status;
    status = rs_store__lb_step_row(lb, st, "player lookup", err, err_len);
    if (status == RS_OK) {
        *player_id = sqlite3_column_int64(st, 0);
        if (name_out)
            rs_store__lb_copy_name(name_out, sqlite3_column_text(st, 1));
    } else if (status == RS_ERR_MISSING) {
        rs_errf(err, err_len, "no player named '%s'", name);
    }
    rs_store__lb_done(st);
    return status;
}

rs_status rs_leaderboard_count(rs_leaderboard *lb, const rs_board_key *key, uint32_t *count,
                               char *err, size_t err_len)
{
    if (!lb || !count)
        return rs_store__lb_missing_argument(err, err_len);
    *count = 0;
    rs_status status;
    sqlite3_stmt *st = board_stmt(lb, LB_COUNT, key, NULL, 0, &status, err, err_len);
    if (!st)
        return status;
    int64_t n = 0;
    bool found;
    status = rs_store__lb_scalar(lb, st, &n, &found, err, err_len);
    *count = (uint32_t)n;
    return status;
}

rs_status rs_leaderboard_top(rs_leaderboard *lb, const rs_board_key *key, uint32_t offset,
                             uint32_t limit, rs_lb_row *rows, uint32_t *count, char *err,
                             size_t err_len)
{
    rs_status status;
    if (!rs_store__lb_page_start(lb, count, limit, rows, &status, err, err_len))
        return status;
    int64_t page[2] = {limit, offset};
    sqlite3_stmt *st = board_stmt(lb, LB_TOP, key, page, 2, &status, err, err_len);
    if (!st)
        return status;
    status = rs_store__lb_collect(lb, st, rows, limit, -1, count, NULL, err, err_len);
    rs_store__lb_number_rows(rows, *count, offset + 1);
    return status;
}

rs_status rs_leaderboard_after(rs_leaderboard *lb, const rs_board_key *key, int64_t after_time_us,
                               int64_t after_lap_id, uint32_t limit, rs_lb_row *rows,
                               uint32_t *count, char *err, size_t err_len)
{
    rs_status status;
    if (!rs_store__lb_page_start(lb, count, limit, rows, &status, err, err_len))
        return status;
    int64_t after[3] = {after_time_us, after_lap_id, limit};
    sqlite3_stmt *st = board_stmt(lb, LB_AFTER, key, after, 3, &status, err, err_len);
    if (!st)
        return status;
    status = rs_store__lb_collect(lb, st, rows, limit, -1, count, NULL, err, err_len);
    if (status != RS_OK || *count == 0)
        return status;
    uint32_t first;
    status = rank_of(lb, key, rows[0].time_us, rows[0].lap_id, &first, err, err_len);
    rs_store__lb_number_rows(rows, *count, first);
    return status;
}

rs_status rs_leaderboard_rank(rs_leaderboard *lb, const rs_board_key *key, int64_t player_id,
                              rs_lb_row *row, char *err, size_t err_len)
{
    if (!lb || !row)
        return rs_store__lb_missing_argument(err, err_len);
    rs_status status;
    sqlite3_stmt *st = board_stmt(lb, LB_ROW, key, &player_id, 1, &status, err, err_len);
    if (!st) {
        if (status == RS_OK)
            status = rs_store__lb_set_error(RS_ERR_MISSING, err, err_len, "the track has no laps");
        return status;
    }
    uint32_t n;
    status = rs_store__lb_collect(lb, st, row, 1, -1, &n, NULL, err, err_len);
    if (status != RS_OK)
        return status;
    if (n == 0)
        return rs_store__lb_set_error(RS_ERR_MISSING, err, err_len,
                                      "the player has no valid lap on this board");
    return rank_of(lb, key, row->time_us, row->lap_id, &row->rank, err, err_len);
}

/* Up to k rows next to the row me on the board: q is LB_BEFORE (read
 * best-last) or LB_AFTER. */
static rs_status neighbours(rs_leaderboard *lb, enum rs_lb_query q, const rs_board_key *key,
                            const rs_lb_row *me, uint32_t k, rs_lb_row *rows, uint32_t *n,
                            char *err, size_t err_len)
{
    *n = 0;
    if (k == 0)
        return RS_OK;
    int64_t from[3] = {me->time_us, me->lap_id, k};
    rs_status status;
    sqlite3_stmt *st = board_stmt(lb, q, key, from, 3, &status, err, err_len);
    if (!st)
        return status != RS_OK ? status : RS_ERR_MISSING;
    return rs_store__lb_collect(lb, st, rows, k, -1, n, NULL, err, err_len);
}

rs_status rs_leaderboard_around(rs_leaderboard *lb, const rs_board_key *key, int64_t player_id,
                                uint32_t k, rs_lb_row *rows, uint32_t *count,
                                uint32_t *player_index, char *err, size_t err_len)
{
    if (!lb || !rows || !count || !player_index)
        return rs_store__lb_missing_argument(err, err_len);
    *count = 0;
    *player_index = 0;
    rs_lb_row me;
    rs_status status = rs_leaderboard_rank(lb, key, player_id, &me, err, err_len);
    if (status != RS_OK)
        return status;

    /* The k rows before, read best-last from the index and turned round. */
    uint32_t before = 0, after = 0;
    status = neighbours(lb, LB_BEFORE, key, &me, k, rows, &before, err, err_len);
    if (status != RS_OK)
        return status;
    rs_store__lb_reverse(rows, before);
    rows[before] = me;
    status = neighbours(lb, LB_AFTER, key, &me, k, rows + before + 1, &after, err, err_len);
    if (status != RS_OK)
        return status;
    *count = before + 1 + after;
    *player_index = before;
    rs_store__lb_number_rows(rows, *count, me.rank - before);
    return RS_OK;
}

rs_status rs_leaderboard_personal_bests(rs_leaderboard *lb, int64_t player_id,
                                        uint32_t physics_version, rs_lb_row *rows, uint32_t cap,
                                        uint32_t *count, uint32_t *total, char *err,
                                        size_t err_len)
{
    if (!lb || !count || !total || (cap && !rows))
        return rs_store__lb_missing_argument(err, err_len);
    int64_t v[2] = {player_id, physics_version};
    sqlite3_stmt *st = board_query(lb, LB_PBS, v, 2, err, err_len);
    if (!st)
        return RS_ERR_IO;
    /* Ranks are read as rows arrive: the statement is reset at the end. */
    return rs_store__lb_collect(lb, st, rows, cap, COL_RANK, count, total, err, err_len);
}

rs_status rs_leaderboard_recent(rs_leaderboard *lb, const rs_board_key *key, uint32_t limit,
                                rs_lb_row *rows, uint32_t *count, char *err, size_t err_len)
{
    rs_status status;
    if (!rs_store__lb_page_start(lb, count, limit, rows, &status, err, err_len))
        return status;
    /* The laps' own tune hash: the stock board's key stands for hash 0. */
    uint64_t tune_key = key ? key->tune_key : 0;
    int64_t more[2] = {limit, tune_key == RS_TUNE_KEY_STOCK ? 0 : (int64_t)tune_key};
    sqlite3_stmt *st = board_stmt(lb, LB_RECENT, key, more, 2, &status, err, err_len);
    if (!st)
        return status;
    return rs_store__lb_collect(lb, st, rows, limit, -1, count, NULL, err, err_len);
}

rs_status rs_leaderboard_player_recent(rs_leaderboard *lb, int64_t player_id,
                                       uint32_t physics_version, uint32_t limit, rs_lb_row *rows,
                                       uint32_t *count, char *err, size_t err_len)
{
    rs_status status;
    if (!rs_store__lb_page_start(lb, count, limit, rows, &status, err, err_len))
        return status;
    int64_t v[3] = {player_id, physics_version, limit};
    sqlite3_stmt *st = board_query(lb, LB_PLAYER_RECENT, v, 3, err, err_len);
    if (!st)
        return RS_ERR_IO;
    return rs_store__lb_collect(lb, st, rows, limit, -1, count, NULL, err, err_len);
}
