/*
 * Private to the store: builds a leaderboard over a bare SQLite connection,
 * which is what rs_leaderboard_open does with the store's read connection.
 * Kept separate so the leaderboard does not depend on how the store
 * manages its connections.
 */
#ifndef RS_LEADERBOARD_INTERNAL_H
#define RS_LEADERBOARD_INTERNAL_H

#include <sqlite3.h>

#include "racesim/leaderboard.h"

/* The connection is borrowed: it must outlive the leaderboard. */
rs_status rs_leaderboard_open_db(sqlite3 *db, rs_leaderboard **out, char *err, size_t err_len);

/* The SQL of the i-th cached query and a short name for it, so tests can
 * check each query's plan (EXPLAIN QUERY PLAN). NULL past the last one. */
const char *rs_leaderboard_sql(unsigned i, const char **name);

#endif
