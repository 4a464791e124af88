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
#include "sha256.h"
#include "store_internal.h"
#include "racesim/base/text.h"

#define SALT_BYTES 16

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

static bool name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n < 1 || n > RS_PLAYER_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
            return false;
    return true;
}

rs_status rs_store_player_register(rs_store *s, const char *name, int64_t now_s,
                                   int64_t *player_id, char token_hex[RS_TOKEN_HEX_LEN + 1],
                                   char *err, size_t err_len)
{
    if (!s || !name || !player_id || !token_hex)
        return RS_ERR_ARG;
    if (!name_ok(name)) {
        rs_errf(err, err_len,
                "player name \"%s\": must be 1..%d bytes without control characters", name,
                RS_PLAYER_NAME_MAX);
        return RS_ERR_RANGE;
    }
    uint8_t secret[SALT_BYTES + RS_TOKEN_BYTES], hash[32];
    if (random_bytes(secret, sizeof secret) != RS_OK) {
        rs_errf(err, err_len, "reading /dev/urandom: %s", strerror(errno));
        return RS_ERR_IO;
    }
    const uint8_t *salt = secret, *token = secret + SALT_BYTES;
    token_hash(salt, token, hash);

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
    *player_id = sqlite3_last_insert_rowid(s->db);
    rs_store__hex(token, RS_TOKEN_BYTES, token_hex);
    memset(secret, 0, sizeof secret);
    return RS_OK;
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
