/*
 * Class boards (racesim/leaderboard.h, "class boards"): the boards of up to
 * RS_LB_CLASS_MAX_CARS cars merged, one row per player, their best lap over
 * any of the cars.
 *
 * A player's row on the class board is their row on one car's board that no
 * row of theirs on another car of the class beats: a NOT EXISTS over that
 * player's rows on the cars, one primary-key lookup per car. A page is a
 * UNION ALL of one arm per car, each arm a walk of that car's
 * personal_bests_rank range in (time_us, lap_id) order, which SQLite
 * merges in order (MERGE (UNION ALL)) rather than sorts, filtered as the
 * merge yields rows: a top page stops after its offset + limit rows and the
 * rows it skips (players' slower cars). Counts and ranks count distinct
 * players over the cars' covering index ranges. The statements always have eight arms; a class of
 * fewer cars binds NULL to the rest, which no base_hash equals, so their
 * arms are empty after one seek.
 *
 * Parameters: ?1 track id, ?2 physics version, ?3 tune key, ?4..?11 the
 * cars, ?12 on what the query needs.
 */
#include <string.h>

#include "leaderboard_internal.h"
#include "racesim/base/err.h"
#include "racesim/store_testing.h"

#define CLASS_CARS "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11"
enum { CAR_PARAM = 4, MORE_PARAM = CAR_PARAM + RS_LB_CLASS_MAX_CARS };

/* No row of row's player on a car of the class beats row. The primary key
 * (track, car, physics version, tune key, player) finds each car's row in
 * one seek; SQLite's default plan would take personal_bests_player and
 * then the table, two seeks, hence INDEXED BY (the name SQLite gives a
 * WITHOUT ROWID table's primary key). The row itself is not before itself. */
#define BEST_OF_PLAYER(row)                                                                    \
    " NOT EXISTS (SELECT 1 FROM personal_bests AS o"                                           \
    "  INDEXED BY sqlite_autoindex_personal_bests_1"                                           \
    "  WHERE o.track_id = ?1 AND o.base_hash IN (" CLASS_CARS ")"                              \
    "  AND o.physics_version = ?2 AND o.tune_key = ?3 AND o.player_id = " row ".player_id"     \
    "  AND (o.time_us, o.lap_id) < (" row ".time_us, " row ".lap_id))"

/* One car's rows with cond, in index order. */
#define ARM(car, cond)                                                                         \
    "SELECT track_id, player_id, lap_id, time_us FROM personal_bests"                          \
    " WHERE track_id = ?1 AND base_hash = " car " AND physics_version = ?2 AND tune_key = ?3"  \
    cond

/* The class board's rows with cond, in order. The arms are merged in index
 * order first and filtered after, as the merge yields them. With the filter
 * in each arm instead, a slow car's arm checks row after row of players who
 * are faster in another car before the merge can take its first row: a top
 * page cost ten times a car's on the benchmark. "LIMIT -1" (no limit) is a
 * guard: SQLite neither pushes a WHERE term down into a subquery with a
 * LIMIT nor drops such a subquery's ORDER BY, and the caller's LIMIT relies
 * on the filtered rows keeping the merge's order. test_leaderboard checks
 * the pages and pins this plan (CO-ROUTINE c, MERGE, SCAN c). */
#define CLASS_ROWS(cond, order)                                                                \
    "SELECT track_id, player_id, lap_id, time_us FROM (" ARM("?4", cond) " UNION ALL "         \
    ARM("?5", cond) " UNION ALL " ARM("?6", cond) " UNION ALL " ARM("?7", cond)               \
    " UNION ALL " ARM("?8", cond) " UNION ALL " ARM("?9", cond) " UNION ALL " ARM("?10", cond) \
    " UNION ALL " ARM("?11", cond) " ORDER BY " order " LIMIT -1) AS c WHERE"                 \
    BEST_OF_PLAYER("c")

#define AFTER_ROW " AND (time_us, lap_id) > (?12, ?13)"
#define BEFORE_ROW " AND (time_us, lap_id) < (?12, ?13)"
#define ASC "time_us, lap_id"
#define DESC "time_us DESC, lap_id DESC"

/* A page of class rows joined with their laps, players and tracks; the page
 * is sorted again after the joins (at most a page of rows). */
#define PAGE(cond, order, limit)                                                               \
    "SELECT " ROW_COLS ", ?3 FROM (" CLASS_ROWS(cond, order) limit ") AS pb"                   \
    " JOIN laps AS l ON l.id = pb.lap_id JOIN players AS p ON p.id = pb.player_id"             \
    " JOIN tracks AS t ON t.id = pb.track_id ORDER BY pb." order

/* Players with a row on any of the cars (with cond): a player's best is
 * before a row exactly when any of their rows is, so a rank needs no
 * per-row check, only the distinct players of the cars' index ranges. */
#define PLAYERS(cond)                                                                          \
    "SELECT count(DISTINCT player_id) FROM personal_bests"                                     \
    " WHERE track_id = ?1 AND base_hash IN (" CLASS_CARS ") AND physics_version = ?2"          \
    " AND tune_key = ?3" cond

static const char *const class_sql[] = {
    [LB_CLASS_COUNT] = PLAYERS(""),
    [LB_CLASS_TOP] = PAGE("", ASC, " LIMIT ?12 OFFSET ?13"),
    [LB_CLASS_AFTER] = PAGE(AFTER_ROW, ASC, " LIMIT ?14"),
    [LB_CLASS_BEFORE] = PAGE(BEFORE_ROW, DESC, " LIMIT ?14"),
    [LB_CLASS_ROW] = "SELECT " ROW_COLS ", ?3 FROM personal_bests AS pb"
                     " INDEXED BY sqlite_autoindex_personal_bests_1"
                     " JOIN laps AS l ON l.id = pb.lap_id JOIN players AS p ON p.id = pb.player_id"
                     " JOIN tracks AS t ON t.id = pb.track_id"
                     " WHERE pb.track_id = ?1 AND pb.base_hash IN (" CLASS_CARS ")"
                     " AND pb.physics_version = ?2 AND pb.tune_key = ?3"
                     " AND pb.player_id = ?12 AND" BEST_OF_PLAYER("pb"),
    [LB_CLASS_RANK] = PLAYERS(BEFORE_ROW),
};

static const char *const class_name[] = {
    [LB_CLASS_COUNT] = "class_count", [LB_CLASS_TOP] = "class_top",
    [LB_CLASS_AFTER] = "class_after", [LB_CLASS_BEFORE] = "class_before",
    [LB_CLASS_ROW] = "class_row",     [LB_CLASS_RANK] = "class_rank",
};

const char *rs_store__lb_class_sql(enum rs_lb_query q, const char **name)
{
    if (q < LB_CLASS_COUNT || q > LB_CLASS_RANK)
        return NULL;
    if (name)
        *name = class_name[q];
    return class_sql[q];
}

/* Checks a class key: cars in range, a tune key that spans cars. */
static rs_status check_key(const rs_class_key *key, char *err, size_t err_len)
{
    if (!key)
        return rs_store__lb_set_error(RS_ERR_ARG, err, err_len, "leaderboard: no class key");
    if (key->car_count < 1 || key->car_count > RS_LB_CLASS_MAX_CARS) {
        rs_errf(err, err_len, "leaderboard: a class has 1..%d cars, not %u",
                RS_LB_CLASS_MAX_CARS, key->car_count);
        return RS_ERR_ARG;
    }
    if (key->tune_key != RS_TUNE_KEY_ANY && key->tune_key != RS_TUNE_KEY_STOCK)
        return rs_store__lb_set_error(RS_ERR_ARG, err, err_len,
                                      "leaderboard: a class board is 'any tune' or 'stock'; "
                                      "a tune belongs to one car, whose own board shows it");
    return RS_OK;
}

/* Binds the class's cars to ?4..?11, each once, NULL for the rest: a car
 * named twice would otherwise have two arms and show its rows twice. */
static void bind_cars(sqlite3_stmt *st, const rs_class_key *key)
{
    int bound = 0;
    for (uint32_t i = 0; i < key->car_count; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < i; j++)
            seen = seen || key->base_hashes[j] == key->base_hashes[i];
        if (!seen)
            sqlite3_bind_int64(st, CAR_PARAM + bound++, (int64_t)key->base_hashes[i]);
    }
    for (; bound < RS_LB_CLASS_MAX_CARS; bound++)
        sqlite3_bind_null(st, CAR_PARAM + bound);
}

/* Prepares class query q with the key bound to ?1..?11 and the n values of
 * more to ?12 on. NULL with *status RS_OK for a track the store has never
 * seen (its boards are empty), NULL with an error status on failure. */
static sqlite3_stmt *class_stmt(rs_leaderboard *lb, enum rs_lb_query q, const rs_class_key *key,
                                const int64_t *more, int n, rs_status *status, char *err,
                                size_t err_len)
{
    *status = check_key(key, err, err_len);
    if (*status != RS_OK)
        return NULL;
    int64_t track_id = 0;
    bool found = false;
    *status = rs_store__lb_track_id(lb, key->track_hash, &track_id, &found, err, err_len);
    if (*status != RS_OK || !found)
        return NULL;
    int64_t v[3] = {track_id, key->physics_version, (int64_t)key->tune_key};
    sqlite3_stmt *st = rs_store__lb_stmt(lb, q, class_sql[q], v, 3, err, err_len);
    if (!st) {
        *status = RS_ERR_IO;
        return NULL;
    }
    bind_cars(st, key);
    for (int i = 0; i < n; i++)
        sqlite3_bind_int64(st, MORE_PARAM + i, more[i]);
    return st;
}

/* A count query (the board, or the rows before one) into *out. */
static rs_status class_count(rs_leaderboard *lb, enum rs_lb_query q, const rs_class_key *key,
                             const int64_t *more, int n, uint32_t *out, char *err,
                             size_t err_len)
{
    *out = 0;
    rs_status status;
    sqlite3_stmt *st = class_stmt(lb, q, key, more, n, &status, err, err_len);
    if (!st)
        return status;
    int64_t v = 0;
    bool found;
    status = rs_store__lb_scalar(lb, st, &v, &found, err, err_len);
    *out = (uint32_t)v;
    return status;
}

/* The rank of the row (time_us, lap_id) on the class board: 1 + the
 * players whose best is before it. */
static rs_status class_rank_of(rs_leaderboard *lb, const rs_class_key *key, int64_t time_us,
                               int64_t lap_id, uint32_t *rank, char *err, size_t err_len)
{
    int64_t row[2] = {time_us, lap_id};
    uint32_t before;
    rs_status status = class_count(lb, LB_CLASS_RANK, key, row, 2, &before, err, err_len);
    *rank = before + 1;
    return status;
}

rs_status rs_leaderboard_class_count(rs_leaderboard *lb, const rs_class_key *key,
                                     uint32_t *count, char *err, size_t err_len)
{
    if (!lb || !count)
        return rs_store__lb_missing_argument(err, err_len);
    return class_count(lb, LB_CLASS_COUNT, key, NULL, 0, count, err, err_len);
}

rs_status rs_leaderboard_class_top(rs_leaderboard *lb, const rs_class_key *key, uint32_t offset,
                                   uint32_t limit, rs_lb_row *rows, uint32_t *count, char *err,
                                   size_t err_len)
{
    rs_status status;
    if (!rs_store__lb_page_start(lb, count, limit, rows, &status, err, err_len))
        return status;
    int64_t page[2] = {limit, offset};
    sqlite3_stmt *st = class_stmt(lb, LB_CLASS_TOP, key, page, 2, &status, err, err_len);
    if (!st)
        return status;
    status = rs_store__lb_collect(lb, st, rows, limit, -1, count, NULL, err, err_len);
    rs_store__lb_number_rows(rows, *count, offset + 1);
    return status;
}

/* Up to limit rows after (q LB_CLASS_AFTER) or before (LB_CLASS_BEFORE,
 * read best-last) the row (time_us, lap_id), without ranks. */
static rs_status class_walk(rs_leaderboard *lb, enum rs_lb_query q, const rs_class_key *key,
                            int64_t time_us, int64_t lap_id, uint32_t limit, rs_lb_row *rows,
                            uint32_t *count, char *err, size_t err_len)
{
    *count = 0;
    if (limit == 0)
        return RS_OK;
    int64_t from[3] = {time_us, lap_id, limit};
    rs_status status;
    sqlite3_stmt *st = class_stmt(lb, q, key, from, 3, &status, err, err_len);
    if (!st)
        return status;
    return rs_store__lb_collect(lb, st, rows, limit, -1, count, NULL, err, err_len);
}

rs_status rs_leaderboard_class_after(rs_leaderboard *lb, const rs_class_key *key,
                                     int64_t after_time_us, int64_t after_lap_id, uint32_t limit,
                                     rs_lb_row *rows, uint32_t *count, char *err,
                                     size_t err_len)
{
    rs_status status;
    if (!rs_store__lb_page_start(lb, count, limit, rows, &status, err, err_len))
        return status;
    status = class_walk(lb, LB_CLASS_AFTER, key, after_time_us, after_lap_id, limit, rows, count,
                        err, err_len);
    if (status != RS_OK || *count == 0)
        return status;
    uint32_t first;
    status = class_rank_of(lb, key, rows[0].time_us, rows[0].lap_id, &first, err, err_len);
    rs_store__lb_number_rows(rows, *count, first);
    return status;
}

rs_status rs_leaderboard_class_rank(rs_leaderboard *lb, const rs_class_key *key,
                                    int64_t player_id, rs_lb_row *row, char *err,
                                    size_t err_len)
{
    if (!lb || !row)
        return rs_store__lb_missing_argument(err, err_len);
    rs_status status;
    sqlite3_stmt *st = class_stmt(lb, LB_CLASS_ROW, key, &player_id, 1, &status, err, err_len);
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
                                      "the player has no valid lap on this class's board");
    return class_rank_of(lb, key, row->time_us, row->lap_id, &row->rank, err, err_len);
}

rs_status rs_leaderboard_class_around(rs_leaderboard *lb, const rs_class_key *key,
                                      int64_t player_id, uint32_t k, rs_lb_row *rows,
                                      uint32_t *count, uint32_t *player_index, char *err,
                                      size_t err_len)
{
    if (!lb || !rows || !count || !player_index)
        return rs_store__lb_missing_argument(err, err_len);
    *count = 0;
    *player_index = 0;
    rs_lb_row me;
    rs_status status = rs_leaderboard_class_rank(lb, key, player_id, &me, err, err_len);
    if (status != RS_OK)
        return status;
    uint32_t before = 0, after = 0;
    status = class_walk(lb, LB_CLASS_BEFORE, key, me.time_us, me.lap_id, k, rows, &before, err,
                        err_len);
    if (status != RS_OK)
        return status;
    rs_store__lb_reverse(rows, before);
    rows[before] = me;
    status = class_walk(lb, LB_CLASS_AFTER, key, me.time_us, me.lap_id, k, rows + before + 1,
                        &after, err, err_len);
    if (status != RS_OK)
        return status;
    *count = before + 1 + after;
    *player_index = before;
    rs_store__lb_number_rows(rows, *count, me.rank - before);
    return RS_OK;
}
