/*
 * The leaderboard's internals, shared by leaderboard.c (boards, ranks,
 * personal bests, recent laps) and leaderboard_ops.c (the operators'
 * lookups of tracks, cars, races, results and single laps): the object, the
 * numbers of its queries in the store's statement cache, and the helpers
 * both files use.
 */
#ifndef RS_LEADERBOARD_INTERNAL_H
#define RS_LEADERBOARD_INTERNAL_H

#include "racesim/leaderboard.h"
#include "store_internal.h"

/* The columns every row query returns, in the order rs_store__lb_read_row
 * expects: the lap record joined with its player, track and stock car. The
 * board queries add pb.tune_key and a rank; the others add their own. */
#define ROW_COLS                                                                           \
    "l.player_id, p.name, l.id, l.time_us, l.recorded_at, l.tune_hash, l.sectors_us, "  \
    "coalesce(l.race_id, 0), l.lap_number, l.valid, l.invalid_reason, t.track_hash, "    \
    "t.name, l.base_hash, "                                                              \
    "coalesce((SELECT c.name FROM cars AS c WHERE c.params_hash = l.base_hash), ''), "   \
    "l.physics_version"

/* The leaderboard's queries. Query q is kept in slot RS_STMT_LB_FIRST + q of
 * the store's statement cache, so it is prepared once per connection and
 * finalised by rs_store_close. leaderboard.c owns the board queries,
 * leaderboard_ops.c the operators' ones. */
enum rs_lb_query {
    LB_TRACK,
    LB_PLAYER,
    LB_COUNT,
    LB_TOP,
    LB_AFTER,
    LB_BEFORE,
    LB_ROW,
    LB_RANK,
    LB_PBS,
    LB_RECENT,
    LB_PLAYER_RECENT,
    /* A class's board (leaderboard_class.c): several cars' boards merged. */
    LB_CLASS_COUNT,
    LB_CLASS_TOP,
    LB_CLASS_AFTER,
    LB_CLASS_BEFORE,
    LB_CLASS_ROW,
    LB_CLASS_RANK,
    LB_BOARD_QUERIES, /* the ones rs_store__leaderboard_sql lists */
    LB_TRACK_BY_HASH = LB_BOARD_QUERIES,
    LB_TRACK_BY_NAME,
    LB_CAR_BY_HASH,
    LB_CAR_BY_NAME,
    LB_TRACKS,
    LB_CARS,
    LB_RACES,
    LB_RACE,
    LB_RESULTS,
    LB_PENALTIES,
    LB_LAP,
    LB_CAR_BLOCK,
    LB_TRACK_JSON,
    LB_QUERIES
};
_Static_assert((int)LB_QUERIES <= (int)RS_STMT_LB_COUNT,
               "the store's cache reserves too few slots for the leaderboard");

struct rs_leaderboard {
    rs_store *store; /* borrowed: its connection and its statement cache */
};

/* Query q (whose text is sql) from the store's cache with the integers
 * v[0..n-1] bound to ?1..?n. NULL, with err written, when it cannot be
 * prepared. */
sqlite3_stmt *rs_store__lb_stmt(rs_leaderboard *lb, enum rs_lb_query q, const char *sql,
                                const int64_t *v, int n, char *err, size_t err_len);

/* Resets the statement and clears its bindings, which also ends its read
 * transaction, so a long-lived leaderboard never pins an old WAL snapshot. */
void rs_store__lb_done(sqlite3_stmt *st);

/* Writes "file: leaderboard what: sqlite message" and returns RS_ERR_IO (or
 * RS_ERR_NOMEM). */
rs_status rs_store__lb_db_error(rs_leaderboard *lb, const char *what, char *err,
                                size_t err_len);

/* Copies msg into err and returns st. */
rs_status rs_store__lb_set_error(rs_status st, char *err, size_t err_len, const char *msg);

/* RS_ERR_ARG, "leaderboard: missing argument" in err: a NULL argument. */
rs_status rs_store__lb_missing_argument(char *err, size_t err_len);

/* Binds a text to ?i of st; on failure resets st and reports the error. */
rs_status rs_store__lb_bind_text(rs_leaderboard *lb, sqlite3_stmt *st, int i, const char *text,
                                 char *err, size_t err_len);

/* Copies a name, cutting it at a UTF-8 character boundary if it is long. */
void rs_store__lb_copy_name(char dst[RS_LB_NAME_MAX], const unsigned char *src);

/* Reads the common row columns (ROW_COLS plus a tune key). */
rs_status rs_store__lb_read_row(sqlite3_stmt *st, rs_lb_row *row, char *err, size_t err_len);

/* Steps a query that answers at most one row. RS_OK: the row is there to
 * read; RS_ERR_MISSING: no row (nothing written to err); else the error,
 * reported as "what". The caller calls rs_store__lb_done afterwards. */
rs_status rs_store__lb_step_row(rs_leaderboard *lb, sqlite3_stmt *st, const char *what,
                                char *err, size_t err_len);

/* Steps st, reading up to cap rows (ranks are left 0 for the caller, except
 * with rank_col >= 0: the rank is that column), then resets it. With total
 * not NULL the statement runs to the end and *total gets the number of rows
 * it returned. */
rs_status rs_store__lb_collect(rs_leaderboard *lb, sqlite3_stmt *st, rs_lb_row *rows,
                               uint32_t cap, int rank_col, uint32_t *count, uint32_t *total,
                               char *err, size_t err_len);

/* Runs a one-integer query (a count or an id) and resets it; *found says
 * whether it returned a row. */
rs_status rs_store__lb_scalar(rs_leaderboard *lb, sqlite3_stmt *st, int64_t *out, bool *found,
                              char *err, size_t err_len);

/* The store's id of a track; *found false (RS_OK) when the store has never
 * seen it, so its boards are empty. */
rs_status rs_store__lb_track_id(rs_leaderboard *lb, uint64_t track_hash, int64_t *track_id,
                                bool *found, char *err, size_t err_len);

/* The start of every paged query: false when there is nothing to run,
 * with *status saying why (RS_OK for a limit of 0). */
bool rs_store__lb_page_start(const rs_leaderboard *lb, uint32_t *count, uint32_t limit,
                             const rs_lb_row *rows, rs_status *status, char *err,
                             size_t err_len);

/* Ranks rows first_rank, first_rank + 1, ... */
void rs_store__lb_number_rows(rs_lb_row *rows, uint32_t count, uint32_t first_rank);

/* Reverses n rows: neighbours before a row are read best-last. */
void rs_store__lb_reverse(rs_lb_row *rows, uint32_t n);

/* The SQL and name of a class board's query q (leaderboard_class.c). */
const char *rs_store__lb_class_sql(enum rs_lb_query q, const char **name);

#endif
