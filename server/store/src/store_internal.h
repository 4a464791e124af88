/*
 * Internals of the store shared by its source files (and by the leaderboard
 * queries): the connection handle, the per-connection statement cache, the
 * error helpers, and the migration runner's internal entry points. Only the
 * store's own sources include <sqlite3.h>.
 */
#ifndef RS_STORE_INTERNAL_H
#define RS_STORE_INTERNAL_H

#include <sqlite3.h>

#include <racesim/store.h>

/* Statement slots: each SQL text is prepared once per connection, on first
 * use, and reused (reset) after that. Slots RS_STMT_LB_FIRST ..
 * RS_STMT_LB_FIRST + RS_STMT_LB_COUNT - 1 belong to the leaderboard queries. */
enum rs_stmt_slot {
    RS_STMT_PLAYER_INSERT,
    RS_STMT_PLAYER_BY_NAME,
    RS_STMT_CAR_INSERT,
    RS_STMT_CAR_ID,
    RS_STMT_TRACK_INSERT,
    RS_STMT_TRACK_ID,
    RS_STMT_RACE_INSERT,
    RS_STMT_RACE_FINISH,
    RS_STMT_RESULT_UPSERT,
    RS_STMT_LAP_INSERT,
    RS_STMT_PROOF_INSERT,
    RS_STMT_PROOF_SELECT,
    RS_STMT_PB_UPSERT,
    RS_STMT_LAP_BY_CALLER,
    RS_STMT_TUNE_UPSERT,
    RS_STMT_TUNE_LIST,
    RS_STMT_TUNE_LOAD,
    RS_STMT_TUNE_DELETE,
    RS_STMT_BEGIN,
    RS_STMT_COMMIT,
    RS_STMT_ROLLBACK,
    RS_STMT_SAVEPOINT,
    RS_STMT_RELEASE,
    RS_STMT_ROLLBACK_TO,
    RS_STMT_LB_FIRST,
    RS_STMT_LB_COUNT = 32,
    RS_STMT_SLOTS = RS_STMT_LB_FIRST + RS_STMT_LB_COUNT
};

struct rs_store {
    sqlite3 *db;
    char *path;
    unsigned flags;
    uint32_t schema_version;
    sqlite3_stmt *stmts[RS_STMT_SLOTS];
};

/* The connection, for the leaderboard queries. Borrowed until rs_store_close. */
sqlite3 *rs_store_db(rs_store *s);

/* The cached statement for slot, prepared from sql on first use (the same
 * slot must always be given the same sql), reset and with bindings cleared.
 * On error returns NULL and writes a message naming the file into err. */
sqlite3_stmt *rs_store_stmt(rs_store *s, unsigned slot, const char *sql, char *err,
                            size_t err_len);

/* Writes "path: what: sqlite's message" into err (when err_len > 0) and
 * returns the status that the SQLite result code rc maps to. */
rs_status rs_store_fail(rs_store *s, int rc, const char *what, char *err, size_t err_len);

/* Maps an SQLite result code to our status (IO, FORMAT for NOTADB/CORRUPT,
 * NOMEM, RANGE for constraint violations). */
rs_status rs_store_status_from_sqlite(int rc);


/* Transactions through cached statements. begin is BEGIN IMMEDIATE, so a
 * writer takes the write lock up front (waiting up to the busy timeout)
 * instead of failing at its first write. */
rs_status rs_store_begin(rs_store *s, char *err, size_t err_len);
rs_status rs_store_commit(rs_store *s, char *err, size_t err_len);
void rs_store_rollback(rs_store *s);

/* Inserts one lap with its proof and personal bests, inside a transaction the
 * caller holds (the writer batches many). */
rs_status rs_store_put_lap_in_tx(rs_store *s, const rs_store_lap *lap, int64_t *lap_id,
                                 char *err, size_t err_len);

/* Opens like rs_store_open but applies at most the first upto embedded
 * migrations (tests build every intermediate schema this way). */
rs_status rs_store_open_upto(const char *path, unsigned flags, uint32_t upto, rs_store **out,
                             char *err, size_t err_len);

#endif
