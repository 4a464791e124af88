/*
 * Shared by the leaderboard's source files (leaderboard.c: boards, ranks,
 * personal bests, recent laps; leaderboard_ops.c: the operators' lookups of
 * tracks, cars, races, results and single laps): the object, its statement
 * cache and the small helpers both use.
 */
#ifndef RS_LEADERBOARD_PRIVATE_H
#define RS_LEADERBOARD_PRIVATE_H

#include <sqlite3.h>

#include "racesim/leaderboard.h"

/* The columns every row query returns, in the order rs_lb_read_row expects: the
 * lap record joined with its player, track and stock car. The board
 * queries add pb.tune_key and a rank; the others add their own. */
#define ROW_COLS                                                                               \
    "l.player_id, p.name, l.id, l.time_us, l.recorded_at, l.tune_hash, l.sectors_us, "      \
    "coalesce(l.race_id, 0), l.lap_number, l.valid, l.invalid_reason, t.track_hash, t.name, " \
    "l.base_hash, coalesce((SELECT c.name FROM cars AS c WHERE c.params_hash = l.base_hash), ''), " \
    "l.physics_version"

/* Statement slots: leaderboard.c uses 0 .. RS_LB_OPS_FIRST - 1,
 * leaderboard_ops.c the rest. */
enum { RS_LB_OPS_FIRST = 11, RS_LB_SLOTS = 32 };

struct rs_leaderboard {
    sqlite3 *db; /* borrowed from the store */
    sqlite3_stmt *stmt[RS_LB_SLOTS];
};

/* The statement in slot, prepared from sql on first use (a slot always gets
 * the same sql) and kept until rs_leaderboard_close. NULL with err written
 * when it cannot be prepared. */
sqlite3_stmt *rs_lb_stmt(rs_leaderboard *lb, unsigned slot, const char *sql, char *err,
                         size_t err_len);

/* Resets the statement and clears its bindings, which also ends its read
 * transaction, so a long-lived leaderboard never pins an old WAL snapshot. */
void rs_lb_done(sqlite3_stmt *st);

/* Writes "file: leaderboard what: sqlite message" and returns RS_ERR_IO (or
 * RS_ERR_NOMEM). */
rs_status rs_lb_db_error(rs_leaderboard *lb, const char *what, char *err, size_t err_len);

/* Copies msg into err and returns st. */
rs_status rs_lb_set_error(rs_status st, char *err, size_t err_len, const char *msg);

/* Binders returning the SQLite code. Hashes are stored as the signed integer
 * with the same 64 bits. */
int rs_lb_bind_i64(sqlite3_stmt *st, int i, int64_t v);
int rs_lb_bind_hash(sqlite3_stmt *st, int i, uint64_t v);
int rs_lb_bind_text(sqlite3_stmt *st, int i, const char *s);

/* Copies a name, cutting it at a UTF-8 character boundary if it is long. */
void rs_lb_copy_name(char dst[RS_LB_NAME_MAX], const unsigned char *src);

/* Reads the common row columns (leaderboard.c's ROW_COLS plus a tune key). */
rs_status rs_lb_read_row(rs_leaderboard *lb, sqlite3_stmt *st, rs_lb_row *row, char *err,
                         size_t err_len);

/* Runs a one-integer query (a count or an id) and resets it; *found says
 * whether it returned a row. */
rs_status rs_lb_scalar(rs_leaderboard *lb, sqlite3_stmt *st, int64_t *out, bool *found,
                       char *err, size_t err_len);

#endif
