/*
 * Players and their secret tokens. A token is 32 random bytes from the
 * kernel, shown to the player once as hex; the database keeps only a random
 * 16-byte salt and SHA-256(salt || token), so a leaked database does not
 * leak tokens, and two players with the same token (impossible in practice)
 * would still have different hashes. Tokens are full-entropy random, so one
 * round of SHA-256 is enough: there is nothing for a slow password hash to
 * protect against. Comparison is constant time.
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

#define SALT_BYTES 16

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

/* Stale guest rows among a bounded sample, so the cost of a prune does not
 * grow with the table: the GUEST_SAMPLE rows from a random id (?1) on and
 * the GUEST_SAMPLE oldest; stale means a guest row created before the
 * cutoff (?2) that no lap refers to. Its race results (a guest who never
 * completed a lap: not finished, no laps) go with it. */
#define GUEST_SAMPLE "32"
#define STALE_GUESTS                                                                       \
    "SELECT p.id FROM players p WHERE (p.id IN (SELECT id FROM players WHERE id >= ?1 "    \
    "ORDER BY id LIMIT " GUEST_SAMPLE ") OR p.id IN (SELECT id FROM players ORDER BY id "  \
    "LIMIT " GUEST_SAMPLE ")) AND substr(p.name, 1, 1) = '~' AND p.created_at < ?2 "       \
    "AND NOT EXISTS (SELECT 1 FROM laps l WHERE l.player_id = p.id)"

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

static rs_status insert_player(rs_store *s, const char *name, const uint8_t *salt,
                               const uint8_t *hash, int64_t now_s, char *err, size_t err_len)
{
    sqlite3_stmt *st = rs_store__stmt(s, RS_STMT_PLAYER_INSERT,
                                      "INSERT INTO players (name, token_salt, token_hash, "
                                      "created_at) VALUES (?1, ?2, ?3, ?4)",
                                      err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, salt, SALT_BYTES, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, hash, 32, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, now_s);
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
    uint8_t secret[SALT_BYTES + RS_TOKEN_BYTES], hash[32];
    if (random_bytes(secret, sizeof secret) != RS_OK) {
        rs_errf(err, err_len, "reading /dev/urandom: %s", strerror(errno));
        return RS_ERR_IO;
    }
    const uint8_t *salt = secret, *token = secret + SALT_BYTES;
    token_hash(salt, token, hash);
    bool guest = name[0] == GUEST_PREFIX;
    if (guest && sqlite3_exec(s->db, "SAVEPOINT guest_row", NULL, NULL, NULL) != SQLITE_OK)
        guest = false; /* no prune, then: the row alone, as for anyone */
    if (guest)
        prune_guests(s, now_s);

    rs_status status = insert_player(s, name, salt, hash, now_s, err, err_len);
    if (guest)
        status = end_guest_row(s, status, err, err_len);
    if (status == RS_OK) {
        *player_id = sqlite3_last_insert_rowid(s->db);
        rs_store__hex(token, RS_TOKEN_BYTES, token_hex);
    }
    memset(secret, 0, sizeof secret);
    return status;
}

/* Reads a player's id, salt and hash; *found = false when unknown. */
static rs_status player_row(rs_store *s, const char *name, bool *found, int64_t *id,
                            uint8_t salt[SALT_BYTES], uint8_t hash[32], char *err,
                            size_t err_len)
{
    sqlite3_stmt *st = rs_store__stmt(s, RS_STMT_PLAYER_BY_NAME,
                                      "SELECT id, token_salt, token_hash FROM players "
                                      "WHERE name = ?1",
                                      err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    rs_status status = rs_store__step_row(s, st, "looking up a player", err, err_len);
    *found = status == RS_OK;
    if (*found) {
        *id = sqlite3_column_int64(st, 0);
        const void *sb = sqlite3_column_blob(st, 1), *hb = sqlite3_column_blob(st, 2);
        if (sb && hb && sqlite3_column_bytes(st, 1) == SALT_BYTES &&
            sqlite3_column_bytes(st, 2) == 32) {
            memcpy(salt, sb, SALT_BYTES);
            memcpy(hash, hb, 32);
        } else {
            rs_errf(err, err_len, "%s: player \"%s\": stored token hash is malformed", s->path,
                    name);
            *found = false;
            status = RS_ERR_FORMAT;
        }
    }
    sqlite3_reset(st);
    return status == RS_ERR_MISSING ? RS_OK : status;
}

rs_status rs_store_player_auth(rs_store *s, const char *name, const char *token_hex,
                               int64_t *player_id, char *err, size_t err_len)
{
    if (!s || !name || !token_hex || !player_id)
        return RS_ERR_ARG;
    bool found = false;
    int64_t id = 0;
    uint8_t salt[SALT_BYTES] = {0}, stored[32] = {0}, token[RS_TOKEN_BYTES] = {0}, hash[32];
    rs_status status = player_row(s, name, &found, &id, salt, stored, err, err_len);
    if (status != RS_OK)
        return status;
    bool parsed = parse_token(token_hex, token);
    /* Hash and compare even for an unknown name or a malformed token, so the
     * time taken does not tell which it was. */
    token_hash(salt, token, hash);
    uint8_t diff = 0;
    for (size_t i = 0; i < 32; i++)
        diff |= (uint8_t)(hash[i] ^ stored[i]);
    if (!found || !parsed || diff != 0) {
        rs_errf(err, err_len, "player \"%s\": unknown player or wrong token", name);
        return RS_ERR_MISMATCH;
    }
    *player_id = id;
    return RS_OK;
}

rs_status rs_store_player_find(rs_store *s, const char *name, int64_t *player_id, char *err,
                               size_t err_len)
{
    if (!s || !name || !player_id)
        return RS_ERR_ARG;
    bool found = false;
    uint8_t salt[SALT_BYTES], hash[32];
    rs_status status = player_row(s, name, &found, player_id, salt, hash, err, err_len);
    if (status == RS_OK && !found) {
        rs_errf(err, err_len, "player \"%s\": no such player", name);
        return RS_ERR_MISSING;
    }
    return status;
}
