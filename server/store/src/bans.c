/*
 * Bans (racesim/identity.h): by player (a registered player's or a guest's
 * row) or by IPv4 network, with a reason, an author and an optional expiry;
 * lifted rather than deleted, so the table is also their history. Every
 * change bumps bans_version through the schema's triggers, whichever
 * connection made it, so a running server that polls rs_store_bans_version
 * sees racectl's bans at once; and since the data is the database, a ban
 * outlives any restart.
 */
#include <stdio.h>
#include <string.h>

#include "racesim/base/clock.h"
#include "racesim/base/err.h"
#include "racesim/base/text.h"
#include "racesim/identity.h"
#include "store_internal.h"

/* ------------------------------------------------------------------ CIDR */

/* A decimal number of 1..max_digits digits without a leading zero (but "0"
 * itself), at most max; advances *p past it. */
static bool parse_number(const char **p, int max_digits, unsigned max, unsigned *out)
{
    const char *q = *p;
    unsigned v = 0;
    int digits = 0;
    while (*q >= '0' && *q <= '9' && digits < max_digits + 1) {
        v = v * 10 + (unsigned)(*q - '0');
        q++;
        digits++;
    }
    if (digits == 0 || digits > max_digits || v > max || (digits > 1 && **p == '0'))
        return false;
    *p = q;
    *out = v;
    return true;
}

/* "a.b.c.d" or "a.b.c.d/n", strictly: into the address and the prefix
 * length (32 without "/n"). */
static bool parse_cidr(const char *text, uint32_t *addr, unsigned *prefix)
{
    const char *p = text;
    uint32_t a = 0;
    for (int i = 0; i < 4; i++) {
        unsigned octet;
        if (i > 0 && *p++ != '.')
            return false;
        if (!parse_number(&p, 3, 255, &octet))
            return false;
        a = a << 8 | octet;
    }
    *prefix = 32;
    if (*p == '/') {
        p++;
        if (!parse_number(&p, 2, 32, prefix))
            return false;
    }
    *addr = a;
    return *p == '\0';
}

static void format_ipv4(uint32_t a, char *out, size_t cap)
{
    snprintf(out, cap, "%u.%u.%u.%u", (unsigned)(a >> 24), (unsigned)(a >> 16 & 0xff),
             (unsigned)(a >> 8 & 0xff), (unsigned)(a & 0xff));
}

/* The operator's text, quoted in a message only when it is short printable
 * ASCII: what arrives over the wire must not reach a log line as is. */
static const char *quotable(const char *text)
{
    size_t n = strlen(text);
    if (n == 0 || n > 40)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (text[i] < 0x20 || text[i] > 0x7e)
            return NULL;
    return text;
}

rs_status rs_store_cidr_parse(const char *text, char canonical[RS_STORE_CIDR_MAX + 1],
                              uint32_t *first, uint32_t *last, char *err, size_t err_len)
{
    if (!text || !canonical)
        return RS_ERR_ARG;
    uint32_t addr;
    unsigned prefix;
    if (!parse_cidr(text, &addr, &prefix)) {
        const char *shown = quotable(text);
        rs_errf(err, err_len, "%s%s%s is not an IPv4 address or network: write a.b.c.d or "
                "a.b.c.d/n (decimal, no leading zeros, n up to 32)", shown ? "\"" : "",
                shown ? shown : "the address", shown ? "\"" : "");
        return RS_ERR_RANGE;
    }
    if (prefix < RS_STORE_CIDR_MIN_PREFIX) {
        rs_errf(err, err_len, "a /%u network is wider than a ban may name: at most /%d "
                "(16777216 addresses)", prefix, RS_STORE_CIDR_MIN_PREFIX);
        return RS_ERR_RANGE;
    }
    uint32_t mask = prefix == 32 ? UINT32_MAX : ~(UINT32_MAX >> prefix);
    char net[16], host[16];
    format_ipv4(addr & mask, net, sizeof net);
    format_ipv4(addr, host, sizeof host);
    if (addr & ~mask) {
        /* Refused, not rounded: "10.0.0.1/8" may mean the /8 or the one
         * address, and the wrong guess bans 16 million addresses or one. */
        rs_errf(err, err_len, "%s/%u has host bits set: write %s/%u for the whole network, "
                "or %s/32 for the one address", host, prefix, net, prefix, host);
        return RS_ERR_RANGE;
    }
    char text_out[40]; /* 18 bytes at most, but the compiler cannot know */
    snprintf(text_out, sizeof text_out, "%s/%u", net, prefix);
    rs_str_copy(canonical, RS_STORE_CIDR_MAX + 1, text_out);
    if (first)
        *first = addr;
    if (last)
        *last = addr | ~mask;
    return RS_OK;
}

/* ------------------------------------------------------------- reading */

/* The columns read_ban expects, from bans AS b LEFT JOIN players AS p. */
#define BAN_COLUMNS                                                                        \
    "b.id AS id, coalesce(b.player_id, 0), coalesce(p.name, ''), coalesce(b.network, ''), " \
    "b.reason, b.created_at, b.created_by, coalesce(b.expires_at, 0) AS expires, "          \
    "coalesce(b.lifted_at, 0), coalesce(b.lifted_by, '')"
#define BAN_FROM " FROM bans AS b LEFT JOIN players AS p ON p.id = b.player_id"
/* Active at ?now: not lifted, not expired. */
#define BAN_ACTIVE(now) "(b.lifted_at IS NULL AND (b.expires_at IS NULL OR b.expires_at > " now "))"

/* An rs_store__row_reader: row is an rs_store_ban. */
static void read_ban(sqlite3_stmt *st, void *row)
{
    rs_store_ban *b = row;
    memset(b, 0, sizeof *b);
    b->id = sqlite3_column_int64(st, 0);
    b->player_id = sqlite3_column_int64(st, 1);
    rs_store__copy_text(b->player_name, sizeof b->player_name, sqlite3_column_text(st, 2));
    rs_store__copy_text(b->network, sizeof b->network, sqlite3_column_text(st, 3));
    rs_store__copy_text(b->reason, sizeof b->reason, sqlite3_column_text(st, 4));
    b->created_at = sqlite3_column_int64(st, 5);
    rs_store__copy_text(b->created_by, sizeof b->created_by, sqlite3_column_text(st, 6));
    b->expires_at = sqlite3_column_int64(st, 7);
    b->lifted_at = sqlite3_column_int64(st, 8);
    rs_store__copy_text(b->lifted_by, sizeof b->lifted_by, sqlite3_column_text(st, 9));
}

/* One ban by id; RS_ERR_MISSING with a message when there is none. */
static rs_status ban_get(rs_store *s, int64_t id, rs_store_ban *b, char *err, size_t err_len)
{
    sqlite3_stmt *st = rs_store__stmt_ints(s, RS_STMT_BAN_GET,
                                           "SELECT " BAN_COLUMNS BAN_FROM " WHERE b.id = ?1",
                                           &id, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__step_row(s, st, "reading a ban", err, err_len);
    if (status == RS_OK)
        read_ban(st, b);
    else if (status == RS_ERR_MISSING)
        rs_errf(err, err_len, "no ban with id %lld", (long long)id);
    sqlite3_reset(st);
    return status;
}

/* ------------------------------------------------------------- adding */

/* A fixed-size text field of the caller's struct must hold its NUL. */
static bool terminated(const char *field, size_t size)
{
    return memchr(field, '\0', size) != NULL;
}

/* The player a ban names: the row of that name (a registered player, or a
 * guest row given as "~name"), else the guest row of that name. */
static rs_status resolve_player(rs_store *s, const char *name, rs_store_player_info *info,
                                char *err, size_t err_len)
{
    rs_status status = rs_store_player_info_by_name(s, name, info, err, err_len);
    if (status != RS_ERR_MISSING || rs_store__is_guest_name(name))
        return status;
    char guest[RS_PLAYER_NAME_MAX + 2];
    snprintf(guest, sizeof guest, "~%s", name);
    status = rs_store_player_info_by_name(s, guest, info, err, err_len);
    if (status == RS_ERR_MISSING)
        rs_errf(err, err_len, "no player or guest named \"%s\" (a guest has a row once it "
                "raced; ban an address otherwise)", name);
    return status;
}

/* Checks what a new ban says besides its target. */
static rs_status check_ban(const rs_store_ban *b, char *err, size_t err_len)
{
    if (!terminated(b->reason, sizeof b->reason) ||
        !terminated(b->created_by, sizeof b->created_by)) {
        rs_errf(err, err_len, "a ban's reason or author is not NUL-terminated");
        return RS_ERR_ARG;
    }
    rs_status status = rs_store__text_check(b->reason, RS_STORE_BAN_REASON_MAX,
                                            "a ban's reason", err, err_len);
    if (status == RS_OK)
        status = rs_store__text_check(b->created_by, RS_STORE_ACTOR_MAX, "a ban's author", err,
                                      err_len);
    if (status == RS_OK && b->expires_at != 0 && b->expires_at <= b->created_at) {
        rs_errf(err, err_len, "the ban would have expired already: it expires at %lld, not "
                "after it was made (%lld)", (long long)b->expires_at, (long long)b->created_at);
        status = RS_ERR_RANGE;
    }
    return status;
}

rs_status rs_store_ban_add(rs_store *s, rs_store_ban *b, int64_t *id, char *err,
                           size_t err_len)
{
    if (!s || !b || !id)
        return RS_ERR_ARG;
    if (!terminated(b->player_name, sizeof b->player_name) ||
        !terminated(b->network, sizeof b->network) ||
        (b->player_name[0] != '\0') == (b->network[0] != '\0')) {
        rs_errf(err, err_len, "a ban names one player or one address range: give exactly one");
        return RS_ERR_ARG;
    }
    rs_status status = check_ban(b, err, err_len);
    if (status != RS_OK)
        return status;
    rs_store_player_info info = {0};
    char network[RS_STORE_CIDR_MAX + 1] = "";
    uint32_t first = 0, last = 0;
    if (b->player_name[0])
        status = resolve_player(s, b->player_name, &info, err, err_len);
    else
        status = rs_store_cidr_parse(b->network, network, &first, &last, err, err_len);
    if (status != RS_OK)
        return status;

    sqlite3_stmt *st = rs_store__stmt(
        s, RS_STMT_BAN_INSERT,
        "INSERT INTO bans (player_id, network, net_first, net_last, reason, created_at, "
        "created_by, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        err, err_len);
    if (!st)
        return RS_ERR_IO;
    if (info.id) {
        sqlite3_bind_int64(st, 1, info.id);
    } else {
        sqlite3_bind_text(st, 2, network, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, first);
        sqlite3_bind_int64(st, 4, last);
    }
    sqlite3_bind_text(st, 5, b->reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, b->created_at);
    sqlite3_bind_text(st, 7, b->created_by, -1, SQLITE_STATIC);
    if (b->expires_at)
        sqlite3_bind_int64(st, 8, b->expires_at);
    status = rs_store__step_done(s, st, "adding a ban", err, err_len);
    if (status != RS_OK)
        return status;
    *id = b->id = sqlite3_last_insert_rowid(s->db);
    b->player_id = info.id;
    memcpy(b->player_name, info.name, sizeof b->player_name);
    memcpy(b->network, network, sizeof b->network);
    b->lifted_at = 0;
    b->lifted_by[0] = '\0';
    return RS_OK;
}

/* ------------------------------------------------------------- lifting */

rs_status rs_store_ban_lift(rs_store *s, int64_t id, int64_t now_s, const char *by, char *err,
                            size_t err_len)
{
    if (!s)
        return RS_ERR_ARG;
    rs_status status = rs_store__text_check(by, RS_STORE_ACTOR_MAX, "who lifts a ban", err,
                                            err_len);
    if (status != RS_OK)
        return status;
    int64_t v[2] = {id, now_s};
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_BAN_LIFT,
        "UPDATE bans SET lifted_at = ?2, lifted_by = ?3 WHERE id = ?1 AND lifted_at IS NULL", v,
        2, err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_text(st, 3, by, -1, SQLITE_STATIC);
    status = rs_store__step_done(s, st, "lifting a ban", err, err_len);
    if (status != RS_OK || sqlite3_changes(s->db) == 1)
        return status;
    rs_store_ban b;
    status = ban_get(s, id, &b, err, err_len);
    if (status == RS_OK) {
        char when[32];
        if (rs_time_format_utc(b.lifted_at, "%Y-%m-%d %H:%M:%S UTC", when, sizeof when) == 0)
            snprintf(when, sizeof when, "%lld", (long long)b.lifted_at);
        rs_errf(err, err_len, "ban %lld was lifted already, at %s by %s", (long long)id, when,
                b.lifted_by);
        status = RS_ERR_RANGE;
    }
    return status;
}

/* ------------------------------------------------------------- listing */

rs_status rs_store_bans_list(rs_store *s, bool include_inactive, int64_t now_s, int64_t offset,
                             rs_store_ban *out, size_t cap, size_t *n, size_t *total,
                             char *err, size_t err_len)
{
    rs_status status = rs_store__page_check(s, offset, cap, out, n, total, err, err_len);
    if (status != RS_OK)
        return status;
    int64_t v[4] = {include_inactive ? 1 : 0, now_s, rs_store__limit(cap), offset};
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_BANS_COUNT, "SELECT count(*) FROM bans AS b WHERE ?1 OR " BAN_ACTIVE("?2"),
        v, 2, err, err_len);
    status = rs_store__page_count(s, st, "counting bans", total, err, err_len);
    if (status != RS_OK || cap == 0)
        return status;
    st = rs_store__stmt_ints(s, RS_STMT_BANS_PAGE,
                             "SELECT " BAN_COLUMNS BAN_FROM " WHERE ?1 OR " BAN_ACTIVE("?2")
                             " ORDER BY b.id DESC LIMIT ?3 OFFSET ?4",
                             v, 4, err, err_len);
    return rs_store__page_rows(s, st, read_ban, out, sizeof *out, cap, n, "listing bans", err,
                               err_len);
}

/* ------------------------------------------------------------- matching */

rs_status rs_store_ban_match(rs_store *s, int64_t player_id, uint32_t ipv4, int64_t now_s,
                             bool *banned, rs_store_ban *which, char *err, size_t err_len)
{
    if (!s || !banned)
        return RS_ERR_ARG;
    *banned = false;
    if (player_id == 0 && ipv4 == 0)
        return RS_OK;
    /* Two searches, each on its own index (bans_player; bans_network, which
     * holds only networks not lifted), then the ban lasting longest. */
    int64_t v[3] = {player_id, (int64_t)ipv4, now_s};
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_BAN_MATCH,
        "SELECT * FROM ("
        "SELECT " BAN_COLUMNS ", b.expires_at IS NULL AS forever" BAN_FROM
        " WHERE ?1 <> 0 AND b.player_id = ?1 AND " BAN_ACTIVE("?3") " UNION ALL "
        "SELECT " BAN_COLUMNS ", b.expires_at IS NULL AS forever" BAN_FROM
        " WHERE ?2 <> 0 AND b.network IS NOT NULL AND b.lifted_at IS NULL"
        " AND b.net_first <= ?2 AND b.net_last >= ?2 AND " BAN_ACTIVE("?3")
        ") ORDER BY forever DESC, expires DESC, id DESC LIMIT 1",
        v, 3, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__step_row(s, st, "matching bans", err, err_len);
    if (status == RS_OK) {
        *banned = true;
        if (which)
            read_ban(st, which);
    }
    sqlite3_reset(st);
    return status == RS_ERR_MISSING ? RS_OK : status;
}

rs_status rs_store_bans_version(rs_store *s, int64_t *version, char *err, size_t err_len)
{
    if (!s || !version)
        return RS_ERR_ARG;
    sqlite3_stmt *st = rs_store__stmt(s, RS_STMT_BANS_VERSION,
                                      "SELECT version FROM bans_version WHERE only_row = 1", err,
                                      err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__step_row(s, st, "reading the bans' version", err, err_len);
    if (status == RS_OK)
        *version = sqlite3_column_int64(st, 0);
    else if (status == RS_ERR_MISSING)
        rs_errf(err, err_len, "%s: the bans_version row is missing: the database was edited "
                "by hand", s->path);
    sqlite3_reset(st);
    return status == RS_ERR_MISSING ? RS_ERR_FORMAT : status;
}
