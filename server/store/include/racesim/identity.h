/*
 * racesim identity: who a player is and what they may do, in the store
 * (part of rs_store; docs/PERSISTENCE.md, "Players", "Bans", "Audit").
 *
 *  - Two-phase registration: rs_store_player_register (racesim/store.h)
 *    makes a registered player's row unconfirmed; it logs in only once
 *    rs_store_player_confirm has run (the client said it received its
 *    token). A registration never confirmed is forgotten again, so the name
 *    is free.
 *  - Tokens: a player rotates their own (begin, then commit; both tokens
 *    log in meanwhile); the operator resets one (racectl token reset).
 *  - Admin rights belong to registered players, granted and revoked by the
 *    operator (racectl admin grant/revoke). Guests are never admins.
 *  - Bans by player or by IPv4 network, with reason and expiry, effective
 *    for every connection as soon as they are committed.
 *  - The audit log of admin actions and failed admin attempts.
 *
 * Every function takes the store first and err, err_len last (err may be
 * NULL), uses the store's statement cache, and like every rs_store call runs
 * on the store's connection from one thread at a time. Statuses: RS_OK;
 * RS_ERR_ARG for NULL or malformed arguments; RS_ERR_RANGE for a value or a
 * request refused, the reason in err; RS_ERR_MISSING for no such player,
 * ban or pending rotation (the store's "no such row" status, as in
 * racesim/store.h); RS_ERR_IO (or RS_ERR_FORMAT, RS_ERR_NOMEM) when SQLite
 * fails. Timestamps are unix seconds.
 */
#ifndef RACESIM_IDENTITY_H
#define RACESIM_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <racesim/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- registration */

/* Completes a registration: the player's row is confirmed and its token
 * logs in from now on. RS_OK when it already was. RS_ERR_MISSING when the
 * row is gone (forgotten, or never made). */
rs_status rs_store_player_confirm(rs_store *s, int64_t player_id, char *err, size_t err_len);

/* For a registration whose client never confirmed its token (the
 * connection ended first): deletes the row, freeing the name, if it is
 * still unconfirmed and holds no laps, race results, tunes or bans
 * (*forgotten = true). Otherwise keeps it, confirming it if it was not
 * (*forgotten = false): a row with history is never deleted, and a
 * confirmed one is the player's. RS_ERR_MISSING when there is no such
 * row. */
rs_status rs_store_player_forget_unconfirmed(rs_store *s, int64_t player_id, bool *forgotten,
                                             char *err, size_t err_len);

/* At start-up, before accepting players: the same for every unconfirmed
 * row (registrations a previous run never saw confirmed), in one
 * transaction. *count receives how many rows were deleted; unconfirmed rows
 * with history are confirmed. */
rs_status rs_store_players_forget_unconfirmed(rs_store *s, size_t *count, char *err,
                                              size_t err_len);

/* --------------------------------------------------------------- players */

typedef struct rs_store_player_info {
    int64_t id;
    char name[RS_PLAYER_NAME_MAX + 1]; /* as stored; a guest row's starts with '~' */
    bool admin;
    bool confirmed;
    bool guest;                        /* a guest row ("~" + the guest's name) */
    int64_t created_at;
} rs_store_player_info;

/* One player by id / by name (ASCII case ignored, as everywhere; a guest
 * row by its "~name"). RS_ERR_MISSING when unknown. */
rs_status rs_store_player_info_get(rs_store *s, int64_t player_id, rs_store_player_info *out,
                                   char *err, size_t err_len);
rs_status rs_store_player_info_by_name(rs_store *s, const char *name, rs_store_player_info *out,
                                       char *err, size_t err_len);

/* A page of registered players (guest rows never), admins only or all,
 * ordered by name ignoring ASCII case: skips offset (>= 0) rows, writes at
 * most cap into out (may be NULL when cap is 0) and their number into *n,
 * and the number of rows matching into *total. Unconfirmed registrations are
 * listed too (confirmed = false). */
rs_status rs_store_players_list(rs_store *s, bool admins_only, int64_t offset,
                                rs_store_player_info *out, size_t cap, size_t *n, size_t *total,
                                char *err, size_t err_len);

/* ---------------------------------------------------------------- tokens */

/* A player rotates their token: a fresh random token is stored as pending
 * (salted hash, like the token) and written into token_hex (RS_TOKEN_HEX_LEN
 * lower-case hex digits + NUL), to be shown once. The current token stays
 * valid, and so does the pending one: rs_store_player_auth accepts both
 * and, given the pending one, commits the rotation (a client whose
 * confirmation was lost still gets in). Beginning again replaces the
 * pending token. RS_ERR_RANGE for a guest row or an unconfirmed
 * registration; RS_ERR_MISSING for an unknown player. */
rs_status rs_store_token_rotate_begin(rs_store *s, int64_t player_id,
                                      char token_hex[RS_TOKEN_HEX_LEN + 1], char *err,
                                      size_t err_len);

/* The client confirmed it holds the new token: the pending token becomes
 * the token and the old one stops working. RS_ERR_MISSING when no rotation
 * is pending (never begun, reset by the operator, or already committed by a
 * log-in with the new token: a caller may treat that as done) or the player
 * is unknown; err says which. */
rs_status rs_store_token_rotate_commit(rs_store *s, int64_t player_id, char *err,
                                       size_t err_len);

/* The operator's reset (racectl token reset): a fresh token for the named
 * registered player, valid at once, written into token_hex; the old token
 * and any pending one stop working, and the registration counts as
 * confirmed. RS_ERR_RANGE for a guest row, RS_ERR_MISSING for an unknown
 * name. */
rs_status rs_store_token_reset(rs_store *s, const char *name,
                               char token_hex[RS_TOKEN_HEX_LEN + 1], char *err,
                               size_t err_len);

/* ---------------------------------------------------------------- admins */

/* Grants (admin = true) or revokes admin rights by name. Only a confirmed
 * registered player may be granted them: RS_ERR_RANGE for a guest row or an
 * unconfirmed registration (revoking is accepted for any registered
 * player), RS_ERR_MISSING for an unknown name. Granting twice is fine. */
rs_status rs_store_player_set_admin(rs_store *s, const char *name, bool admin, char *err,
                                    size_t err_len);

/* Whether the player holds admin rights now (read from the database at each
 * call, so a revocation counts at once). RS_ERR_MISSING for an unknown
 * player. */
rs_status rs_store_player_is_admin(rs_store *s, int64_t player_id, bool *admin, char *err,
                                   size_t err_len);

/* ------------------------------------------------------------------ bans */

#define RS_STORE_BAN_REASON_MAX 200 /* bytes of UTF-8, at least 1 */
#define RS_STORE_ACTOR_MAX 80       /* created_by, lifted_by: bytes of UTF-8, at least 1 */
#define RS_STORE_CIDR_MAX 18        /* "255.255.255.255/32" */
#define RS_STORE_CIDR_MIN_PREFIX 8  /* the widest network a ban may name: a /8 */

typedef struct rs_store_ban {
    int64_t id;
    int64_t player_id;                         /* 0 for a network ban */
    char player_name[RS_PLAYER_NAME_MAX + 1];  /* "" for a network ban */
    char network[RS_STORE_CIDR_MAX + 1];       /* "a.b.c.d/n"; "" for a player ban */
    char reason[RS_STORE_BAN_REASON_MAX + 1];
    int64_t created_at;
    char created_by[RS_STORE_ACTOR_MAX + 1];
    int64_t expires_at;                        /* 0 = never */
    int64_t lifted_at;                         /* 0 = not lifted */
    char lifted_by[RS_STORE_ACTOR_MAX + 1];    /* "" when not lifted */
} rs_store_ban;

/* Parses an IPv4 network: "a.b.c.d/n" or a single address "a.b.c.d"
 * (meaning /32), decimal octets without leading zeros, n from
 * RS_STORE_CIDR_MIN_PREFIX to 32. A network whose host bits are not zero
 * ("10.0.0.1/8") is refused, not rounded: the operator may have meant the
 * address or the network, and guessing wrong bans 16 million addresses or
 * one; err names both readings. Writes the canonical text ("a.b.c.d/n"),
 * and the first and last address (host byte order) when the pointers are
 * not NULL. RS_ERR_RANGE with the reason. Needs no store. */
rs_status rs_store_cidr_parse(const char *text, char canonical[RS_STORE_CIDR_MAX + 1],
                              uint32_t *first, uint32_t *last, char *err, size_t err_len);

/* Adds a ban. In b: either player_name (a registered player's name, or a
 * guest's: "~name", or the bare name when no registered player has it) or
 * network (rs_store_cidr_parse's syntax), not both; reason (1..200 bytes of
 * UTF-8 without control characters), created_at, created_by (1..80 bytes,
 * likewise) and expires_at (0 = never, else later than created_at). On
 * success *id and b->id receive the new ban's id, and b->player_id,
 * b->player_name (as stored), b->network (canonical) and b->lifted_* are
 * filled in. The ban is effective for every connection once this returns:
 * rs_store_bans_version changes. RS_ERR_ARG for neither or both targets,
 * RS_ERR_RANGE for a refused value, RS_ERR_MISSING for an unknown player. */
rs_status rs_store_ban_add(rs_store *s, rs_store_ban *b, int64_t *id, char *err,
                           size_t err_len);

/* Lifts an active or expired ban: it stops applying at once and is kept,
 * with when and by whom (by: 1..80 bytes). RS_ERR_MISSING for an unknown
 * id, RS_ERR_RANGE when it was lifted already (err says when and by whom). */
rs_status rs_store_ban_lift(rs_store *s, int64_t id, int64_t now_s, const char *by, char *err,
                            size_t err_len);

/* A page of bans, newest first: the active ones at now_s (not lifted, not
 * expired), or every ban ever made with include_inactive. Skips offset
 * (>= 0), writes at most cap into out (may be NULL when cap is 0) and their
 * number into *n, and the number matching into *total. */
rs_status rs_store_bans_list(rs_store *s, bool include_inactive, int64_t now_s, int64_t offset,
                             rs_store_ban *out, size_t cap, size_t *n, size_t *total,
                             char *err, size_t err_len);

/* Whether a ban active at now_s applies to this player (player_id; 0 =
 * none) or covers this IPv4 address (host byte order; 0 = none). When one
 * does, *banned = true and which (may be NULL) receives it: of several, the
 * one lasting longest (permanent first, then the latest expiry). */
rs_status rs_store_ban_match(rs_store *s, int64_t player_id, uint32_t ipv4, int64_t now_s,
                             bool *banned, rs_store_ban *which, char *err, size_t err_len);

/* A number that changes (grows) whenever any connection adds, lifts or
 * otherwise changes a ban, kept by triggers in the database: one row read,
 * cheap enough to poll, so a server sees racectl's bans within a poll.
 * Expiry does not change it (it is a matter of time, not of the data):
 * rs_store_ban_match takes the time. */
rs_status rs_store_bans_version(rs_store *s, int64_t *version, char *err, size_t err_len);

/* ----------------------------------------------------------------- audit */

#define RS_STORE_AUDIT_ACTOR_MAX 80   /* bytes kept of each field; longer text is cut */
#define RS_STORE_AUDIT_ADDRESS_MAX 64
#define RS_STORE_AUDIT_ACTION_MAX 40
#define RS_STORE_AUDIT_TEXT_MAX 200   /* target and result */
#define RS_STORE_AUDIT_KEEP 200000    /* rows kept: the oldest go as new ones come */

typedef struct rs_store_audit_row {
    int64_t id;
    int64_t at;
    char actor[RS_STORE_AUDIT_ACTOR_MAX + 1];     /* a player's name, "racectl:<user>", ... */
    char address[RS_STORE_AUDIT_ADDRESS_MAX + 1]; /* the peer's address, "local" */
    char action[RS_STORE_AUDIT_ACTION_MAX + 1];   /* "kick", "ban add", "admin denied", ... */
    char target[RS_STORE_AUDIT_TEXT_MAX + 1];     /* on whom or what; may be "" */
    char result[RS_STORE_AUDIT_TEXT_MAX + 1];     /* "ok", or why it failed */
} rs_store_audit_row;

/* Records one admin action or failed admin attempt. action is required;
 * the other texts may be NULL (stored as ""). The fields are untrusted text
 * (a failed attempt's target is whatever the attacker sent), so they are
 * never refused: each is cut to its maximum at a character boundary, and
 * control characters and bytes that are not UTF-8 become '?', so a listing
 * cannot carry terminal escapes. Only the newest RS_STORE_AUDIT_KEEP rows
 * are kept. */
rs_status rs_store_audit_add(rs_store *s, int64_t at, const char *actor, const char *address,
                             const char *action, const char *target, const char *result,
                             char *err, size_t err_len);

/* A page of the audit log, newest first: skips offset (>= 0), writes at
 * most cap rows into out (may be NULL when cap is 0) and their number into
 * *n, and the number of rows into *total. */
rs_status rs_store_audit_list(rs_store *s, int64_t offset, rs_store_audit_row *out, size_t cap,
                              size_t *n, size_t *total, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
