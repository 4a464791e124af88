/*
 * The store's connection, shared by every source file of rs_store: the
 * handle, its one statement cache (the leaderboard's queries included),
 * the helpers that bind, step and report errors, transactions, and the
 * migration runner's entry point. Only the store's own sources include
 * <sqlite3.h>.
 */
#ifndef RS_STORE_INTERNAL_H
#define RS_STORE_INTERNAL_H

#include <sqlite3.h>

#include <racesim/store.h>

/* Slots of the statement cache: each SQL text is prepared once per
 * connection, on first use, and reused after that. The leaderboard's queries
 * (numbered in leaderboard_internal.h) take RS_STMT_LB_COUNT slots from
 * RS_STMT_LB_FIRST. */
enum rs_stmt_slot {
    RS_STMT_PLAYER_INSERT,
    RS_STMT_PLAYER_BY_NAME,
    RS_STMT_CAR_INSERT,
    RS_STMT_CAR_ID,
    RS_STMT_TRACK_INSERT,
    RS_STMT_TRACK_ID,
    RS_STMT_RACE_INSERT,
    RS_STMT_RACE_END,
    RS_STMT_RESULT_UPSERT,
    RS_STMT_PENALTY_DELETE,
    RS_STMT_PENALTY_INSERT,
    RS_STMT_LAP_INSERT,
    RS_STMT_PROOF_INSERT,
    RS_STMT_PROOF_SELECT,
    RS_STMT_PB_UPSERT,
    RS_STMT_LAP_BY_CALLER,
    RS_STMT_TUNE_UPSERT,
    RS_STMT_TUNE_LIST,
    RS_STMT_TUNE_LOAD,
    RS_STMT_TUNE_DELETE,
    RS_STMT_TUNE_PAGE,
    RS_STMT_TUNE_COUNT,
    /* identity.c */
    RS_STMT_PLAYER_CONFIRM,
    RS_STMT_PLAYER_FORGET,
    RS_STMT_PLAYERS_FORGET,
    RS_STMT_PLAYERS_CONFIRM_ALL,
    RS_STMT_PLAYER_INFO_ID,
    RS_STMT_PLAYER_INFO_NAME,
    RS_STMT_PLAYERS_PAGE,
    RS_STMT_PLAYERS_COUNT,
    RS_STMT_ADMINS_PAGE,
    RS_STMT_ADMINS_COUNT,
    RS_STMT_TOKEN_PENDING,
    RS_STMT_TOKEN_COMMIT,
    RS_STMT_TOKEN_COMMIT_USED,
    RS_STMT_TOKEN_RESET,
    RS_STMT_PLAYER_SET_ADMIN,
    /* bans.c */
    RS_STMT_BAN_INSERT,
    RS_STMT_BAN_LIFT,
    RS_STMT_BAN_GET,
    RS_STMT_BANS_PAGE,
    RS_STMT_BANS_COUNT,
    RS_STMT_BAN_MATCH,
    RS_STMT_BANS_VERSION,
    /* audit.c */
    RS_STMT_AUDIT_INSERT,
    RS_STMT_AUDIT_PRUNE,
    RS_STMT_AUDIT_PAGE,
    RS_STMT_AUDIT_COUNT,
    RS_STMT_STANDINGS_ROWS,
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
    sqlite3_stmt *stmts[RS_STMT_SLOTS]; /* finalised by rs_store_close */
};

/* The cached statement for slot, prepared from sql on first use (the same
 * slot must always be given the same sql), reset and with bindings cleared.
 * On error returns NULL and writes a message naming the file into err. */
sqlite3_stmt *rs_store__stmt(rs_store *s, unsigned slot, const char *sql, char *err,
                             size_t err_len);

/* rs_store__stmt with the integers v[0..n-1] bound to ?1..?n (hashes are
 * passed as the signed integer with the same 64 bits, as they are stored).
 * The caller binds any text, blob or NULL after them. */
sqlite3_stmt *rs_store__stmt_ints(rs_store *s, unsigned slot, const char *sql, const int64_t *v,
                                  int n, char *err, size_t err_len);

/* Steps a statement that returns no row, then resets it. RS_OK when it ran,
 * else the status rs_store__fail gives with what in the message. */
rs_status rs_store__step_done(rs_store *s, sqlite3_stmt *st, const char *what, char *err,
                              size_t err_len);

/* Steps a statement that returns at most one row. RS_OK: the row is there
 * to read; RS_ERR_MISSING: no row, nothing written to err (the caller says
 * what is missing); any other status: an error, written to err. The caller
 * resets the statement afterwards, whatever the answer. */
rs_status rs_store__step_row(rs_store *s, sqlite3_stmt *st, const char *what, char *err,
                             size_t err_len);

/* Runs a cached query of one integer key (?1) that answers one id, and
 * writes the id. RS_ERR_MISSING, with nothing written to err, when there is
 * no row. */
rs_status rs_store__id_lookup(rs_store *s, unsigned slot, const char *sql, int64_t key,
                              const char *what, int64_t *id, char *err, size_t err_len);

/* Prepares sql without caching it (set-up and checks run once) and steps
 * it to its first row, with rs_store__step_row's answers. *st is NULL when
 * it could not be prepared; the caller finalises it in every case. */
rs_status rs_store__query_first(rs_store *s, const char *sql, const char *what,
                                sqlite3_stmt **st, char *err, size_t err_len);

/* Writes "path: what: sqlite's message" into err (when err_len > 0) and
 * returns the status that the SQLite result code rc maps to. */
rs_status rs_store__fail(rs_store *s, int rc, const char *what, char *err, size_t err_len);

/* Maps an SQLite result code to our status (IO, FORMAT for NOTADB/CORRUPT,
 * NOMEM, RANGE for constraint violations). */
rs_status rs_store__status_from_sqlite(int rc);

/* Transactions through cached statements. begin is BEGIN IMMEDIATE, so a
 * writer takes the write lock up front (waiting up to the busy timeout)
 * instead of failing at its first write. */
rs_status rs_store__begin(rs_store *s, char *err, size_t err_len);
rs_status rs_store__commit(rs_store *s, char *err, size_t err_len);
void rs_store__rollback(rs_store *s);

/* ------------------------------------ results (catalog.c, penalties.c) */

/* rs_store_put_result inside the caller's transaction (the writer's batch). */
rs_status rs_store__put_result_in_tx(rs_store *s, const rs_store_result *r, char *err,
                                     size_t err_len);

/* Checks a result's penalties before anything is written: RS_ERR_RANGE,
 * with the first fault in err, as rs_store_put_result says. */
rs_status rs_store__penalties_check(const rs_store_result *r, char *err, size_t err_len);

/* Replaces the penalties of result (race_id, player_id) with r's; inside a
 * transaction, after the result row is written (the foreign key). */
rs_status rs_store__put_penalties_in_tx(rs_store *s, const rs_store_result *r, char *err,
                                        size_t err_len);

/* ------------------------------------------------- tokens (players.c) */

#define RS_STORE__SALT_BYTES 16

/* A new token: its hex text, for the player's eyes only, and what the
 * database keeps of it. */
typedef struct rs_store__token {
    char hex[RS_TOKEN_HEX_LEN + 1];
    uint8_t salt[RS_STORE__SALT_BYTES];
    uint8_t hash[32]; /* SHA-256(salt || token) */
} rs_store__token;

/* A fresh random token with a fresh random salt. RS_ERR_IO (with the
 * reason) when the kernel's random source cannot be read. */
rs_status rs_store__token_new(rs_store__token *t, char *err, size_t err_len);

/* Ends a write of t: its text goes to token_hex only when status is RS_OK
 * (the token was stored), and t is wiped either way, so the secret is
 * kept nowhere but with the caller. Returns status. */
rs_status rs_store__token_give(rs_status status, rs_store__token *t,
                               char token_hex[RS_TOKEN_HEX_LEN + 1]);

/* True for a guest row's name ("~" + the guest's name, racesim/services.h). */
bool rs_store__is_guest_name(const char *name);

/* ------------------------------------------------ text (store_text.c) */

/* Copies src (NULL: "") into dst of cap bytes, cut at a UTF-8 character
 * boundary when it does not fit. */
void rs_store__copy_text(char *dst, size_t cap, const unsigned char *src);

/* Checks a text the store is asked to keep and show (a ban's reason, who
 * made it): 1..max bytes of well-formed UTF-8 without control characters.
 * RS_ERR_ARG for NULL, else RS_ERR_RANGE with what and the rule in err. */
rs_status rs_store__text_check(const char *text, size_t max, const char *what, char *err,
                               size_t err_len);

/* Copies untrusted text (NULL: "") into dst of cap bytes for the audit log:
 * cut at a character boundary, every control character and every byte that
 * is not part of well-formed UTF-8 written as '?'. */
void rs_store__text_clean(char *dst, size_t cap, const char *src);

/* ---------------------------------------------- paging (store_text.c) */

/* What every paged list (players, bans, audit, tunes) does alike: check its
 * arguments, count all its rows, then read one page of them. */

/* Checks a page's arguments and sets *n to 0: RS_ERR_ARG without a message
 * when s, n or total is NULL; RS_ERR_ARG with the reason when offset is
 * negative or cap rows have nowhere to go. */
rs_status rs_store__page_check(rs_store *s, int64_t offset, size_t cap, const void *out,
                               size_t *n, size_t *total, char *err, size_t err_len);

/* A cap as an SQL LIMIT (a size_t above INT64_MAX is clamped). */
int64_t rs_store__limit(size_t cap);

/* Runs a count(*) query (parameters bound) into *total and resets it.
 * st NULL (it could not be prepared; err says why), or no row: RS_ERR_IO. */
rs_status rs_store__page_count(rs_store *s, sqlite3_stmt *st, const char *what, size_t *total,
                               char *err, size_t err_len);

/* Reads one row of a page into *row (the list's own row type). */
typedef void rs_store__row_reader(sqlite3_stmt *st, void *row);

/* Steps a page query (parameters bound) and reads at most cap rows of
 * row_size bytes into out with read, counting them in *n; then resets it.
 * st NULL: RS_ERR_IO, as rs_store__page_count. what names the listing in
 * an error's message. */
rs_status rs_store__page_rows(rs_store *s, sqlite3_stmt *st, rs_store__row_reader *read,
                              void *out, size_t row_size, size_t cap, size_t *n,
                              const char *what, char *err, size_t err_len);

/* ------------------------------------------------------------- others */

/* The rs_store_race_status a races.status text names (RUNNING for NULL or
 * an unknown word, which the schema's CHECK constraint rules out). */
rs_store_race_status rs_store__race_status_parse(const unsigned char *text);

/* Checks the applied migrations recorded in the database against the
 * embedded ones and, unless read_only, applies the missing ones up to
 * version upto, each in its own transaction. Writes the resulting version
 * into s->schema_version. */
rs_status rs_store__migrate(rs_store *s, uint32_t upto, bool read_only, char *err,
                            size_t err_len);

#endif
