/*
 * Players and their secret tokens. A token is 32 random bytes from the
 * kernel, shown to the player once as hex; the database keeps only a random
 * 16-byte salt and SHA-256(salt || token), so a leaked database does not
 * leak tokens, and two players with the same token (impossible in practice)
 * would still have different hashes. Tokens are full-entropy random, so one
 * round of SHA-256 is enough: there is nothing for a slow password hash to
 * protect against. Comparison is constant time.
 *
 * A registered player's row is made unconfirmed and logs in only once
 * confirmed (racesim/identity.h, identity.c); while a token rotation is
 * pending, the pending token logs in too and doing so commits it.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "racesim/base/err.h"
#include "racesim/protocol.h"
#include "sha256.h"
#include "store_internal.h"
#include "racesim/base/text.h"

#define SALT_BYTES RS_STORE__SALT_BYTES

/* Guest rows: the services record a guest's laps under "~" + the guest's
 * name (racesim/services.h; registration refuses names starting with "~").
 * One row per guest name, reused; a row that no lap refers to is deleted
 * once it is this old (docs/PERSISTENCE.md, "Guest rows"). */
#define GUEST_PREFIX '~'
#define GUEST_KEEP_S (30 * 24 * 3600)

static rs_status random_bytes(uint8_t *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return RS_ERR_IO;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            close(fd);
            return RS_ERR_IO;
        }
        got += (size_t)r;
    }
    close(fd);
    return RS_OK;
}

bool rs_store__is_guest_name(const char *name)
{
    return name[0] == GUEST_PREFIX;
}

static void token_hash(const uint8_t salt[SALT_BYTES], const uint8_t token[RS_TOKEN_BYTES],
                       uint8_t out[32])
{
    rs_sha256_ctx c;
    rs_store__sha256_init(&c);
    rs_store__sha256_update(&c, salt, SALT_BYTES);
    rs_store__sha256_update(&c, token, RS_TOKEN_BYTES);
    rs_store__sha256_final(&c, out);
}

static bool parse_token(const char *hex, uint8_t out[RS_TOKEN_BYTES])
{
    if (strlen(hex) != RS_TOKEN_HEX_LEN)
        return false;
    for (size_t i = 0; i < RS_TOKEN_BYTES; i++) {
        int hi = rs_hex_digit(hex[2 * i]), lo = rs_hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

rs_status rs_store__token_new(rs_store__token *t, char *err, size_t err_len)
{
    uint8_t secret[SALT_BYTES + RS_TOKEN_BYTES];
    if (random_bytes(secret, sizeof secret) != RS_OK) {
        rs_errf(err, err_len, "reading /dev/urandom: %s", strerror(errno));
        return RS_ERR_IO;
    }
    memcpy(t->salt, secret, SALT_BYTES);
    token_hash(t->salt, secret + SALT_BYTES, t->hash);
    rs_store__hex(secret + SALT_BYTES, RS_TOKEN_BYTES, t->hex);
    memset(secret, 0, sizeof secret);
    return RS_OK;
}

rs_status rs_store__token_give(rs_status status, rs_store__token *t,
                               char token_hex[RS_TOKEN_HEX_LEN + 1])
{
    if (status == RS_OK)
        memcpy(token_hex, t->hex, sizeof t->hex);
    memset(t, 0, sizeof *t);
    return status;
}

/* Stale guest rows among a bounded sample, so the cost of a prune does not
 * grow with the table: the GUEST_SAMPLE rows from a random id (?1) on and
 * the GUEST_SAMPLE oldest; stale means a guest row created before the
 * cutoff (?2) that no lap and no ban refers to (a banned guest's row stays,
 * or the ban would go with it). Its race results (a guest who never
 * completed a lap: not finished, no laps) go with it. */
#define GUEST_SAMPLE "32"
#define STALE_GUESTS                                                                       \
    "SELECT p.id FROM players p WHERE (p.id IN (SELECT id FROM players WHERE id >= ?1 "    \
    "ORDER BY id LIMIT " GUEST_SAMPLE ") OR p.id IN (SELECT id FROM players ORDER BY id "  \
    "LIMIT " GUEST_SAMPLE ")) AND substr(p.name, 1, 1) = '~' AND p.created_at < ?2 "       \
    "AND NOT EXISTS (SELECT 1 FROM laps l WHERE l.player_id = p.id) "                      \
    "AND NOT EXISTS (SELECT 1 FROM bans b WHERE b.player_id = p.id)"

/* Runs one prune statement with the sample start and the cutoff bound. */
static int prune_step(rs_store *s, const char *sql, int64_t start, int64_t cutoff)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, start);
        sqlite3_bind_int64(st, 2, cutoff);
        rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Deletes stale guest rows (see STALE_GUESTS) as a new one is made, so
 * guests who never completed a lap do not pile up. Prepared here rather
 * than cached: it runs only when a guest name is new, inside the new row's
 * transaction (one commit for both). All or nothing; a prune that fails
 * (something else refers to a row) changes nothing and is tried again with
 * the next new guest: it never stops a registration. */
static void prune_guests(rs_store *s, int64_t now_s)
{
    sqlite3_stmt *q = NULL;
    int64_t start = 0;
    if (rs_store__query_first(s, "SELECT abs(random() % (coalesce(max(id), 0) + 1)) FROM players",
                              "sampling guest rows", &q, NULL, 0) == RS_OK)
        start = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    if (sqlite3_exec(s->db, "SAVEPOINT guest_prune", NULL, NULL, NULL) != SQLITE_OK)
        return;
    int64_t cutoff = now_s - GUEST_KEEP_S;
    int rc = prune_step(s, "DELETE FROM race_results WHERE player_id IN (" STALE_GUESTS ")",
                        start, cutoff);
    if (rc == SQLITE_OK)
        rc = prune_step(s, "DELETE FROM players WHERE id IN (" STALE_GUESTS ")", start, cutoff);
    if (rc != SQLITE_OK)
        sqlite3_exec(s->db, "ROLLBACK TO guest_prune", NULL, NULL, NULL);
    sqlite3_exec(s->db, "RELEASE guest_prune", NULL, NULL, NULL);
}

/* Ends a guest row's transaction: committed when the row went in, else
 * rolled back, prune and all. A commit that fails fails the registration:
 * nothing was stored. */
static rs_status end_guest_row(rs_store *s, rs_status status, char *err, size_t err_len)
{
    if (status != RS_OK)
        sqlite3_exec(s->db, "ROLLBACK TO guest_row", NULL, NULL, NULL);
    int rc = sqlite3_exec(s->db, "RELEASE guest_row", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        if (status == RS_OK)
            status = rs_store__fail(s, rc, "committing a guest's player row", err, err_len);
        rs_store__rollback(s);
    }
    return status;
}

/* A registered player's row starts unconfirmed (two-phase registration,
 * racesim/identity.h); a guest row is confirmed at once, since nobody is
 * ever given its token. */
static rs_status insert_player(rs_store *s, const char *name, const uint8_t *salt,
                               const uint8_t *hash, int64_t now_s, bool confirmed, char *err,
                               size_t err_len)
{
    /* The id is above every id ever deleted too (players_deleted_max,
     * migration 0006): a forgotten registration's id is never reused. */
    sqlite3_stmt *st = rs_store__stmt(
        s, RS_STMT_PLAYER_INSERT,
        "INSERT INTO players (id, name, token_salt, token_hash, created_at, confirmed) "
        "VALUES (max((SELECT coalesce(max(id), 0) FROM players), "
        "(SELECT id FROM players_deleted_max)) + 1, ?1, ?2, ?3, ?4, ?5)",
        err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, salt, SALT_BYTES, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, hash, 32, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, now_s);
    sqlite3_bind_int(st, 5, confirmed ? 1 : 0);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc == SQLITE_CONSTRAINT_UNIQUE) {
        rs_errf(err, err_len, "player name \"%s\" is already taken", name);
        return RS_ERR_RANGE;
    }
    if (rc != SQLITE_DONE)
        return rs_store__fail(s, rc, "registering a player", err, err_len);
    return RS_OK;
}

rs_status rs_store_player_register(rs_store *s, const char *name, int64_t now_s,
                                   int64_t *player_id, char token_hex[RS_TOKEN_HEX_LEN + 1],
                                   char *err, size_t err_len)
{
    if (!s || !name || !player_id || !token_hex)
        return RS_ERR_ARG;
    /* The protocol's rules, word for word what the decoder applies to a
     * HELLO: a name the wire accepts is a name the store accepts. The name
     * is not echoed: it may hold what a log line must not. */
    if (!rs_proto_name_check(name, strlen(name), err, err_len))
        return RS_ERR_RANGE;
    rs_store__token token;
    rs_status status = rs_store__token_new(&token, err, err_len);
    if (status != RS_OK)
        return status;
    bool guest = rs_store__is_guest_name(name), prune = guest;
    /* Its own transaction takes the write lock at once (BEGIN IMMEDIATE):
     * the prune reads before it writes, and a deferred transaction that
     * another connection wrote past in between (the services' database
     * thread registers players) could not be upgraded and would fail at
     * once instead of waiting its turn. Inside a caller's transaction a
     * savepoint does. */
    bool own = sqlite3_get_autocommit(s->db);
    if (prune && (own ? rs_store__begin(s, NULL, 0) != RS_OK
                      : sqlite3_exec(s->db, "SAVEPOINT guest_row", NULL, NULL, NULL) != SQLITE_OK))
        prune = false; /* no prune, then: the row alone, as for anyone */
    if (prune)
        prune_guests(s, now_s);

    status = insert_player(s, name, token.salt, token.hash, now_s, guest, err, err_len);
    if (prune && own && status == RS_OK)
        status = rs_store__commit(s, err, err_len);
    else if (prune && own)
        rs_store__rollback(s);
    else if (prune)
        status = end_guest_row(s, status, err, err_len);
    if (status == RS_OK)
        *player_id = sqlite3_last_insert_rowid(s->db);
    return rs_store__token_give(status, &token, token_hex);
}

/* What log-in needs of a player's row. */
typedef struct auth_row {
    bool found;
    int64_t id;
    bool confirmed;
    bool pending; /* a rotation is pending: pending_salt and pending_hash are set */
    uint8_t salt[SALT_BYTES], hash[32];
    uint8_t pending_salt[SALT_BYTES], pending_hash[32];
} auth_row;

/* Copies a blob column of exactly n bytes; false when it is NULL or of
 * another size. */
static bool column_blob(sqlite3_stmt *st, int col, uint8_t *out, size_t n)
{
    const void *b = sqlite3_column_blob(st, col);
    if (!b || (size_t)sqlite3_column_bytes(st, col) != n)
        return false;
    memcpy(out, b, n);
    return true;
}

/* Reads a player's row by name into *r (zeroed; r->found = false when
 * unknown). */
static rs_status player_row(rs_store *s, const char *name, auth_row *r, char *err,
                            size_t err_len)
{
    memset(r, 0, sizeof *r);
    sqlite3_stmt *st = rs_store__stmt(s, RS_STMT_PLAYER_BY_NAME,
                                      "SELECT id, token_salt, token_hash, confirmed, "
                                      "pending_salt, pending_hash FROM players WHERE name = ?1",
                                      err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    rs_status status = rs_store__step_row(s, st, "looking up a player", err, err_len);
    if (status == RS_OK) {
        r->found = true;
        r->id = sqlite3_column_int64(st, 0);
        r->confirmed = sqlite3_column_int(st, 3) != 0;
        if (!column_blob(st, 1, r->salt, SALT_BYTES) || !column_blob(st, 2, r->hash, 32)) {
            rs_errf(err, err_len, "%s: player \"%s\": stored token hash is malformed", s->path,
                    name);
            memset(r, 0, sizeof *r);
            status = RS_ERR_FORMAT;
        } else if (column_blob(st, 4, r->pending_salt, SALT_BYTES) &&
                   column_blob(st, 5, r->pending_hash, 32)) {
            r->pending = true;
        }
    }
    sqlite3_reset(st);
    return status == RS_ERR_MISSING ? RS_OK : status;
}

/* 0 when the 32 bytes are equal; the time taken does not depend on where
 * they differ. */
static uint8_t diff32(const uint8_t a[32], const uint8_t b[32])
{
    uint8_t diff = 0;
    for (size_t i = 0; i < 32; i++)
        diff |= (uint8_t)(a[i] ^ b[i]);
    return diff;
}

/* The player logged in with their pending token: it becomes the token, the
 * old one stops working. Only that pending token is committed: if another
 * rotation or a reset replaced it meanwhile, nothing changes. */
static rs_status commit_used_pending(rs_store *s, const auth_row *r, char *err, size_t err_len)
{
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_TOKEN_COMMIT_USED,
        "UPDATE players SET token_salt = pending_salt, token_hash = pending_hash, "
        "pending_salt = NULL, pending_hash = NULL WHERE id = ?1 AND pending_hash = ?2",
        &r->id, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_blob(st, 2, r->pending_hash, 32, SQLITE_STATIC);
    return rs_store__step_done(s, st, "committing a token rotation", err, err_len);
}

rs_status rs_store_player_auth(rs_store *s, const char *name, const char *token_hex,
                               int64_t *player_id, char *err, size_t err_len)
{
    if (!s || !name || !token_hex || !player_id)
        return RS_ERR_ARG;
    auth_row r;
    uint8_t token[RS_TOKEN_BYTES] = {0}, hash[32], pending[32];
    rs_status status = player_row(s, name, &r, err, err_len);
    if (status != RS_OK)
        return status;
    bool parsed = parse_token(token_hex, token);
    /* Hash and compare against both the token and the pending one, even for
     * an unknown name, an unconfirmed registration, no rotation or a
     * malformed token (all zero salts and hashes then), so the time taken
     * does not tell which it was. */
    token_hash(r.salt, token, hash);
    token_hash(r.pending_salt, token, pending);
    bool current_ok = diff32(hash, r.hash) == 0;
    bool pending_ok = diff32(pending, r.pending_hash) == 0 && r.pending;
    memset(token, 0, sizeof token);
    if (!r.found || !r.confirmed || !parsed || !(current_ok || pending_ok)) {
        rs_errf(err, err_len, "player \"%s\": unknown player or wrong token", name);
        return RS_ERR_MISMATCH;
    }
    if (!current_ok) {
        status = commit_used_pending(s, &r, err, err_len);
        if (status != RS_OK)
            return status;
    }
    *player_id = r.id;
    return RS_OK;
}

rs_status rs_store_player_find(rs_store *s, const char *name, int64_t *player_id, char *err,
                               size_t err_len)
{
    if (!s || !name || !player_id)
        return RS_ERR_ARG;
    auth_row r;
    rs_status status = player_row(s, name, &r, err, err_len);
    if (status == RS_OK && !r.found) {
        rs_errf(err, err_len, "player \"%s\": no such player", name);
        return RS_ERR_MISSING;
    }
    if (status == RS_OK)
        *player_id = r.id;
    return status;
}
