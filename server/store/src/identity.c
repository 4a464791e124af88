/*
 * Who a player is (racesim/identity.h): two-phase registration, player
 * information and listings, token rotation and the operator's reset, and
 * admin rights. Log-in itself, with the pending token of a rotation, is in
 * players.c beside registration.
 *
 * Writes are single statements whose WHERE clause carries the rule (not a
 * guest, still unconfirmed, no history), so they are atomic without a
 * transaction; when one changes no row, the row is read to say why.
 */
#include <string.h>

#include "racesim/base/err.h"
#include "racesim/identity.h"
#include "store_internal.h"

/* The tables whose rows keep a player's row alive: deleting an unconfirmed
 * registration is only right while none of them refers to it (personal
 * bests refer to laps, so laps cover them). */
#define HAS_NO_HISTORY(id)                                                                 \
    "NOT EXISTS (SELECT 1 FROM laps WHERE laps.player_id = " id ") "                       \
    "AND NOT EXISTS (SELECT 1 FROM race_results WHERE race_results.player_id = " id ") "   \
    "AND NOT EXISTS (SELECT 1 FROM tunes WHERE tunes.player_id = " id ") "                 \
    "AND NOT EXISTS (SELECT 1 FROM bans WHERE bans.player_id = " id ")"

#define GUEST_ROW(col) "substr(" col ", 1, 1) = '~'"

/* --------------------------------------------------------------- reading */

#define INFO_COLUMNS "id, name, admin, confirmed, created_at"

/* An rs_store__row_reader: row is an rs_store_player_info. */
static void read_info(sqlite3_stmt *st, void *row)
{
    rs_store_player_info *out = row;
    memset(out, 0, sizeof *out);
    out->id = sqlite3_column_int64(st, 0);
    rs_store__copy_text(out->name, sizeof out->name, sqlite3_column_text(st, 1));
    out->admin = sqlite3_column_int(st, 2) != 0;
    out->confirmed = sqlite3_column_int(st, 3) != 0;
    out->guest = rs_store__is_guest_name(out->name);
    out->created_at = sqlite3_column_int64(st, 4);
}

/* Steps a one-row info query and reads it; RS_ERR_MISSING (without a
 * message) when there is no row. */
static rs_status info_row(rs_store *s, sqlite3_stmt *st, rs_store_player_info *out, char *err,
                          size_t err_len)
{
    rs_status status = rs_store__step_row(s, st, "reading a player", err, err_len);
    if (status == RS_OK)
        read_info(st, out);
    sqlite3_reset(st);
    return status;
}

rs_status rs_store_player_info_get(rs_store *s, int64_t player_id, rs_store_player_info *out,
                                   char *err, size_t err_len)
{
    if (!s || !out)
        return RS_ERR_ARG;
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_PLAYER_INFO_ID, "SELECT " INFO_COLUMNS " FROM players WHERE id = ?1",
        &player_id, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = info_row(s, st, out, err, err_len);
    if (status == RS_ERR_MISSING)
        rs_errf(err, err_len, "%s: no player with id %lld", s->path, (long long)player_id);
    return status;
}

rs_status rs_store_player_info_by_name(rs_store *s, const char *name, rs_store_player_info *out,
                                       char *err, size_t err_len)
{
    if (!s || !name || !out)
        return RS_ERR_ARG;
    /* players.name is COLLATE NOCASE: ASCII case is ignored, as everywhere. */
    sqlite3_stmt *st = rs_store__stmt(s, RS_STMT_PLAYER_INFO_NAME,
                                      "SELECT " INFO_COLUMNS " FROM players WHERE name = ?1",
                                      err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    rs_status status = info_row(s, st, out, err, err_len);
    if (status == RS_ERR_MISSING)
        rs_errf(err, err_len, "no player named \"%s\"", name);
    return status;
}

rs_status rs_store_players_list(rs_store *s, bool admins_only, int64_t offset,
                                rs_store_player_info *out, size_t cap, size_t *n, size_t *total,
                                char *err, size_t err_len)
{
    rs_status status = rs_store__page_check(s, offset, cap, out, n, total, err, err_len);
    if (status != RS_OK)
        return status;
    /* Two statements rather than "?3 OR admin = 1", so the admins' page
     * walks the small players_admins index and the full one the name's. */
    sqlite3_stmt *st =
        admins_only
            ? rs_store__stmt(s, RS_STMT_ADMINS_COUNT,
                             "SELECT count(*) FROM players WHERE admin = 1", err, err_len)
            : rs_store__stmt(s, RS_STMT_PLAYERS_COUNT,
                             "SELECT count(*) FROM players WHERE NOT " GUEST_ROW("name"), err,
                             err_len);
    status = rs_store__page_count(s, st, "counting players", total, err, err_len);
    if (status != RS_OK || cap == 0)
        return status;
    int64_t v[2] = {rs_store__limit(cap), offset};
    st = admins_only
             ? rs_store__stmt_ints(s, RS_STMT_ADMINS_PAGE,
                                   "SELECT " INFO_COLUMNS " FROM players WHERE admin = 1 "
                                   "ORDER BY name COLLATE NOCASE LIMIT ?1 OFFSET ?2",
                                   v, 2, err, err_len)
             : rs_store__stmt_ints(s, RS_STMT_PLAYERS_PAGE,
                                   "SELECT " INFO_COLUMNS " FROM players WHERE NOT "
                                   GUEST_ROW("name") " ORDER BY name LIMIT ?1 OFFSET ?2",
                                   v, 2, err, err_len);
    return rs_store__page_rows(s, st, read_info, out, sizeof *out, cap, n, "listing players", err,
                               err_len);
}

/* ----------------------------------------------------------- registration */

rs_status rs_store_player_confirm(rs_store *s, int64_t player_id, char *err, size_t err_len)
{
    if (!s)
        return RS_ERR_ARG;
    sqlite3_stmt *st = rs_store__stmt_ints(s, RS_STMT_PLAYER_CONFIRM,
                                           "UPDATE players SET confirmed = 1 WHERE id = ?1",
                                           &player_id, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__step_done(s, st, "confirming a registration", err, err_len);
    if (status == RS_OK && sqlite3_changes(s->db) == 0) {
        rs_errf(err, err_len, "%s: confirming player %lld: no such player (forgotten already?)",
                s->path, (long long)player_id);
        return RS_ERR_MISSING;
    }
    return status;
}

rs_status rs_store_player_forget_unconfirmed(rs_store *s, int64_t player_id, bool *forgotten,
                                             char *err, size_t err_len)
{
    if (!s || !forgotten)
        return RS_ERR_ARG;
    *forgotten = false;
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_PLAYER_FORGET,
        "DELETE FROM players WHERE id = ?1 AND confirmed = 0 AND " HAS_NO_HISTORY("?1"),
        &player_id, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__step_done(s, st, "forgetting a registration", err, err_len);
    if (status != RS_OK)
        return status;
    if (sqlite3_changes(s->db) == 1) {
        *forgotten = true;
        return RS_OK;
    }
    /* Confirmed already, or it has history: it stays, and it is the
     * player's (confirm says RS_ERR_MISSING when there is no such row). */
    return rs_store_player_confirm(s, player_id, err, err_len);
}

rs_status rs_store_players_forget_unconfirmed(rs_store *s, size_t *count, char *err,
                                              size_t err_len)
{
    if (!s || !count)
        return RS_ERR_ARG;
    *count = 0;
    /* Both walk the players_unconfirmed index: the cost is the number of
     * unconfirmed rows, not the size of the table. */
    rs_status status = rs_store__begin(s, err, err_len);
    sqlite3_stmt *st = NULL;
    if (status == RS_OK) {
        st = rs_store__stmt(s, RS_STMT_PLAYERS_FORGET,
                            "DELETE FROM players WHERE confirmed = 0 AND "
                            HAS_NO_HISTORY("players.id"),
                            err, err_len);
        status = st ? rs_store__step_done(s, st, "forgetting unconfirmed registrations", err,
                                          err_len)
                    : RS_ERR_IO;
    }
    size_t deleted = status == RS_OK ? (size_t)sqlite3_changes(s->db) : 0;
    if (status == RS_OK) {
        st = rs_store__stmt(s, RS_STMT_PLAYERS_CONFIRM_ALL,
                            "UPDATE players SET confirmed = 1 WHERE confirmed = 0", err, err_len);
        status = st ? rs_store__step_done(s, st, "confirming registrations with history", err,
                                          err_len)
                    : RS_ERR_IO;
    }
    if (status == RS_OK)
        status = rs_store__commit(s, err, err_len);
    else
        rs_store__rollback(s);
    if (status == RS_OK)
        *count = deleted;
    return status;
}

/* ---------------------------------------------------------------- tokens */

/* Why a write on a registered player's row (by id, or by name when name is
 * not NULL) changed nothing: the row is missing, a guest's, or (when
 * needs_confirmed) an unconfirmed registration. Writes the reason into err
 * and returns its status. */
static rs_status why_not(rs_store *s, int64_t id, const char *name, const char *doing,
                         bool needs_confirmed, char *err, size_t err_len)
{
    rs_store_player_info info;
    rs_status status = name ? rs_store_player_info_by_name(s, name, &info, err, err_len)
                            : rs_store_player_info_get(s, id, &info, err, err_len);
    if (status != RS_OK)
        return status; /* the row is missing (err says so), or an I/O error */
    if (info.guest) {
        rs_errf(err, err_len, "%s: %s is a guest's row: guests have no token and no rights",
                doing, info.name);
        return RS_ERR_RANGE;
    }
    if (needs_confirmed && !info.confirmed) {
        rs_errf(err, err_len, "%s: %s has not completed registration (the client never "
                "confirmed receiving its token)", doing, info.name);
        return RS_ERR_RANGE;
    }
    rs_errf(err, err_len, "%s: player %s: the row did not change", doing, info.name);
    return RS_ERR_IO; /* not reached: the WHERE clause says the same as the checks above */
}

/* A write of a new token on a registered player's row: the row, by id or
 * by name when name is not NULL (as why_not takes it); the cached statement
 * that stores the token (?1 the row, ?2 the salt, ?3 the hash), whose WHERE
 * clause carries the rule; and the words of its errors. */
typedef struct token_write {
    unsigned slot;
    const char *sql;
    int64_t id;
    const char *name;
    const char *storing;  /* the statement's failure: "storing a new token" */
    const char *doing;    /* why no row changed: "rotating a token" */
    bool needs_confirmed; /* as why_not's */
} token_write;

/* Issues a fresh token and stores it as w says; the token reaches
 * token_hex only when it was stored. */
static rs_status write_new_token(rs_store *s, const token_write *w,
                                 char token_hex[RS_TOKEN_HEX_LEN + 1], char *err, size_t err_len)
{
    rs_store__token token;
    rs_status status = rs_store__token_new(&token, err, err_len);
    if (status != RS_OK)
        return status;
    sqlite3_stmt *st = w->name ? rs_store__stmt(s, w->slot, w->sql, err, err_len)
                               : rs_store__stmt_ints(s, w->slot, w->sql, &w->id, 1, err, err_len);
    if (!st)
        return rs_store__token_give(RS_ERR_IO, &token, token_hex);
    if (w->name)
        sqlite3_bind_text(st, 1, w->name, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, token.salt, sizeof token.salt, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, token.hash, sizeof token.hash, SQLITE_STATIC);
    status = rs_store__step_done(s, st, w->storing, err, err_len);
    if (status == RS_OK && sqlite3_changes(s->db) == 0)
        status = why_not(s, w->id, w->name, w->doing, w->needs_confirmed, err, err_len);
    return rs_store__token_give(status, &token, token_hex);
}

rs_status rs_store_token_rotate_begin(rs_store *s, int64_t player_id,
                                      char token_hex[RS_TOKEN_HEX_LEN + 1], char *err,
                                      size_t err_len)
{
    if (!s || !token_hex)
        return RS_ERR_ARG;
    /* The new token waits beside the old one until a log-in uses it. */
    const token_write w = {.slot = RS_STMT_TOKEN_PENDING,
                           .sql = "UPDATE players SET pending_salt = ?2, pending_hash = ?3 "
                                  "WHERE id = ?1 AND confirmed = 1 AND NOT " GUEST_ROW("name"),
                           .id = player_id, .needs_confirmed = true,
                           .storing = "storing a new token", .doing = "rotating a token"};
    return write_new_token(s, &w, token_hex, err, err_len);
}

rs_status rs_store_token_rotate_commit(rs_store *s, int64_t player_id, char *err,
                                       size_t err_len)
{
    if (!s)
        return RS_ERR_ARG;
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_TOKEN_COMMIT,
        "UPDATE players SET token_salt = pending_salt, token_hash = pending_hash, "
        "pending_salt = NULL, pending_hash = NULL WHERE id = ?1 AND pending_hash IS NOT NULL",
        &player_id, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__step_done(s, st, "committing a token rotation", err, err_len);
    if (status != RS_OK || sqlite3_changes(s->db) == 1)
        return status;
    rs_store_player_info info;
    status = rs_store_player_info_get(s, player_id, &info, err, err_len);
    if (status == RS_OK) {
        rs_errf(err, err_len, "player %s: no token rotation is pending (never begun, reset "
                "by the operator, or committed already by a log-in with the new token)",
                info.name);
        status = RS_ERR_MISSING;
    }
    return status;
}

rs_status rs_store_token_reset(rs_store *s, const char *name,
                               char token_hex[RS_TOKEN_HEX_LEN + 1], char *err, size_t err_len)
{
    if (!s || !name || !token_hex)
        return RS_ERR_ARG;
    /* It replaces the token at once, drops any pending one and confirms an
     * unconfirmed registration. */
    const token_write w = {.slot = RS_STMT_TOKEN_RESET,
                           .sql = "UPDATE players SET token_salt = ?2, token_hash = ?3, "
                                  "pending_salt = NULL, pending_hash = NULL, confirmed = 1 "
                                  "WHERE name = ?1 AND NOT " GUEST_ROW("name"),
                           .name = name, .storing = "resetting a token",
                           .doing = "resetting a token"};
    return write_new_token(s, &w, token_hex, err, err_len);
}

/* ---------------------------------------------------------------- admins */

rs_status rs_store_player_set_admin(rs_store *s, const char *name, bool admin, char *err,
                                    size_t err_len)
{
    if (!s || !name)
        return RS_ERR_ARG;
    /* Granting needs a confirmed registration; revoking only a registered
     * player's row (?2 = 0 passes the confirmed test). The schema's CHECK
     * refuses an admin guest row as well. */
    sqlite3_stmt *st = rs_store__stmt(
        s, RS_STMT_PLAYER_SET_ADMIN,
        "UPDATE players SET admin = ?2 WHERE name = ?1 AND NOT " GUEST_ROW("name")
        " AND (?2 = 0 OR confirmed = 1)",
        err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, admin ? 1 : 0);
    rs_status status = rs_store__step_done(s, st, admin ? "granting admin rights"
                                                        : "revoking admin rights",
                                           err, err_len);
    if (status == RS_OK && sqlite3_changes(s->db) == 0)
        status = why_not(s, 0, name, admin ? "granting admin rights" : "revoking admin rights",
                         admin, err, err_len);
    return status;
}

rs_status rs_store_player_is_admin(rs_store *s, int64_t player_id, bool *admin, char *err,
                                   size_t err_len)
{
    if (!s || !admin)
        return RS_ERR_ARG;
    rs_store_player_info info;
    rs_status status = rs_store_player_info_get(s, player_id, &info, err, err_len);
    *admin = status == RS_OK && info.admin;
    return status;
}
