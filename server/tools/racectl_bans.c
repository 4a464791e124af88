/*
 * racectl ban: add a ban on a player or an IPv4 network, list bans, lift
 * one (racesim/identity.h). Bans live in the database, so a running server
 * applies one as soon as it polls (it watches rs_store_bans_version) and
 * every server started later applies it too. add and lift write, and record
 * each attempt in the audit log.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racectl.h"
#include "racesim/base/clock.h"
#include "racesim/base/text.h"

#define MAX_DURATION_S (3650 * INT64_C(86400)) /* ten years: longer is "permanent" */

static const char ban_help[] =
    "usage: racectl --db FILE ban add (--player NAME | --address CIDR) --reason TEXT\n"
    "                                 [--for DURATION]\n"
    "       racectl --db FILE ban list [--all] [--offset N] [--limit N]\n"
    "       racectl --db FILE ban lift ID\n"
    "\n"
    "add      bans a player (a registered name, or a guest's: \"~name\", or the bare\n"
    "         name when no registered player has it) or an IPv4 address or network\n"
    "         (a.b.c.d or a.b.c.d/n, n from 8 to 32, host bits zero). --reason (1..200\n"
    "         bytes) is shown to the player. --for 30m, 12h, 7d, 2w (s, m, h, d, w);\n"
    "         without it the ban is permanent. A running server applies it within a\n"
    "         poll and disconnects whoever it covers.\n"
    "list     the active bans, newest first (--all: every ban ever made, with its\n"
    "         state: active, expired or lifted), a page of --limit (default 50) rows\n"
    "         from --offset.\n"
    "lift     ends a ban at once; it stays listed by --all as lifted.\n"
    "\n"
    "add and lift are recorded in the audit log (racectl audit).\n";

/* "30m", "12h", "7d": a positive whole number and a unit (s, m, h, d, w),
 * at most MAX_DURATION_S. */
static bool parse_duration(const char *text, int64_t *seconds)
{
    char *end = NULL;
    errno = 0;
    long long n = strtoll(text, &end, 10);
    if (end == text || errno == ERANGE || n < 1 || text[0] == '+' || text[0] == ' ' ||
        !end[0] || end[1])
        return false;
    int64_t unit;
    switch (end[0]) {
    case 's': unit = 1; break;
    case 'm': unit = 60; break;
    case 'h': unit = 3600; break;
    case 'd': unit = 86400; break;
    case 'w': unit = 7 * 86400; break;
    default: return false;
    }
    if (n > MAX_DURATION_S / unit)
        return false;
    *seconds = (int64_t)n * unit;
    return true;
}

/* What a ban is on: "player ada" or "address 10.0.0.0/8". */
static void ban_target(const rs_store_ban *b, char *out, size_t cap)
{
    if (b->network[0])
        snprintf(out, cap, "address %s", b->network);
    else
        snprintf(out, cap, "player %s", b->player_name);
}

static const char *ban_state(const rs_store_ban *b, int64_t now)
{
    if (b->lifted_at)
        return "lifted";
    if (b->expires_at && b->expires_at <= now)
        return "expired";
    return "active";
}

static void ban_json(const rs_store_ban *b, int64_t now)
{
    printf("{\"id\": %" PRId64 ", \"player\": ", b->id);
    if (b->player_id)
        rc_json_str(stdout, b->player_name);
    else
        printf("null");
    printf(", \"player_id\": %" PRId64 ", \"address\": ", b->player_id);
    if (b->network[0])
        rc_json_str(stdout, b->network);
    else
        printf("null");
    printf(", \"reason\": ");
    rc_json_str(stdout, b->reason);
    printf(", \"created_at\": %" PRId64 ", \"created_by\": ", b->created_at);
    rc_json_str(stdout, b->created_by);
    printf(", \"expires_at\": ");
    if (b->expires_at)
        printf("%" PRId64, b->expires_at);
    else
        printf("null");
    printf(", \"lifted_at\": ");
    if (b->lifted_at) {
        printf("%" PRId64 ", \"lifted_by\": ", b->lifted_at);
        rc_json_str(stdout, b->lifted_by);
    } else {
        printf("null, \"lifted_by\": null");
    }
    printf(", \"state\": \"%s\"}", ban_state(b, now));
}

/* ------------------------------------------------------------------- add */

static int ban_add(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "ban add";
    const char *player = NULL, *address = NULL, *reason = NULL, *duration = NULL;
    const rc_opt opts[] = {{"--player", &player, NULL, 0, 0, false},
                           {"--address", &address, NULL, 0, 0, false},
                           {"--reason", &reason, NULL, 0, 0, true},
                           {"--for", &duration, NULL, 0, 0, false},
                           {NULL, NULL, NULL, 0, 0, false}};
    int rc = rc_options(cmd, argc, argv, ban_help, NULL, opts);
    if (rc != RC_GO_ON)
        return rc;
    if (!player == !address)
        return rs_usage_error(cmd, "give either --player NAME or --address CIDR");
    int64_t for_s = 0;
    if (duration && !parse_duration(duration, &for_s))
        return rs_usage_error(cmd, "--for: '%s' is not a duration like 30m, 12h, 7d or 2w "
                              "(at most 3650d)", duration);
    rs_store_ban b = {0};
    if ((player && !rs_str_copy(b.player_name, sizeof b.player_name, player)) ||
        (address && !rs_str_copy(b.network, sizeof b.network, address)) ||
        !rs_str_copy(b.reason, sizeof b.reason, reason)) {
        return rs_usage_error(cmd, "%s is too long (a name is at most %d bytes, an address "
                              "%d, a reason %d)", player ? "--player or --reason"
                                                         : "--address or --reason",
                              RS_PLAYER_NAME_MAX, RS_STORE_CIDR_MAX, RS_STORE_BAN_REASON_MAX);
    }
    if (!c->store || !c->writable)
        return rs_usage_error(cmd, "no database open for writing");
    b.created_at = rs_wall_time_s();
    b.expires_at = for_s ? b.created_at + for_s : 0;
    rc_actor(b.created_by, sizeof b.created_by);

    char target[64], err[512], result[600];
    snprintf(target, sizeof target, "%s %s", player ? "player" : "address",
             player ? player : address);
    int64_t id = 0;
    if (rs_store_ban_add(c->store, &b, &id, err, sizeof err) != RS_OK)
        return rc_audit_failure(c, cmd, "ban add", target, err);
    ban_target(&b, target, sizeof target);
    snprintf(result, sizeof result, "ok: ban %" PRId64 "%s%s: %s", id, duration ? " for " : "",
             duration ? duration : ", permanent", b.reason);
    rc = rc_audit(c, cmd, "ban add", target, result, RC_EXIT_OK);
    if (c->json) {
        ban_json(&b, b.created_at);
        printf("\n");
    } else {
        char until[64] = "permanent";
        if (b.expires_at) {
            char d[32];
            rc_date_str(b.expires_at, d, sizeof d);
            snprintf(until, sizeof until, "until %s UTC", d);
        }
        printf("ban %" PRId64 ": %s, %s\n  reason: %s\n", id, target, until, b.reason);
    }
    return rc;
}

/* ------------------------------------------------------------------ list */

static int ban_list(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "ban list";
    bool all = rc_take_flag(&argc, argv, "--all");
    rc_page page;
    int rc;
    rs_store_ban *bans = rc_page_start(c, cmd, argc, argv, ban_help, &page, sizeof *bans, &rc);
    if (!bans)
        return rc;
    int64_t now = rs_wall_time_s();
    size_t n = 0, total = 0;
    char err[512];
    if (rs_store_bans_list(c->store, all, now, page.offset, bans, page.limit, &n, &total, err,
                           sizeof err) != RS_OK) {
        free(bans);
        return rs_fail(cmd, "%s", err);
    }
    if (c->json) {
        printf("{\"all\": %s, \"offset\": %u, \"total\": %zu, \"bans\": [",
               all ? "true" : "false", (unsigned)page.offset, total);
        for (size_t i = 0; i < n; i++) {
            printf("%s\n  ", i ? "," : "");
            ban_json(&bans[i], now);
        }
        printf("%s]}\n", n ? "\n" : "");
    } else {
        printf("%6s  %-41s  %-7s  %-19s  %-19s  %-20s  %s\n", "BAN", "ON", "STATE",
               "MADE (UTC)", "EXPIRES (UTC)", "BY", "REASON");
        for (size_t i = 0; i < n; i++) {
            const rs_store_ban *b = &bans[i];
            char target[64], made[32], expires[32] = "never";
            ban_target(b, target, sizeof target);
            rc_date_str(b->created_at, made, sizeof made);
            if (b->expires_at)
                rc_date_str(b->expires_at, expires, sizeof expires);
            printf("%6" PRId64 "  %-41s  %-7s  %-19s  %-19s  %-20s  %s\n", b->id, target,
                   ban_state(b, now), made, expires, b->created_by, b->reason);
        }
        rc_page_footer(all ? "bans" : "active bans", page.offset, n, total);
    }
    free(bans);
    return RC_EXIT_OK;
}

/* ------------------------------------------------------------------ lift */

static int ban_lift(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "ban lift";
    if (rc_help_asked(argc, argv, ban_help))
        return RC_EXIT_OK;
    if (argc != 1)
        return rs_usage_error(cmd, "expected one ban id (racectl ban list shows them)");
    char *end = NULL;
    errno = 0;
    long long id = strtoll(argv[0], &end, 10);
    if (end == argv[0] || *end || errno == ERANGE || id < 1)
        return rs_usage_error(cmd, "'%s' is not a ban id (a positive whole number)", argv[0]);
    if (!c->store || !c->writable)
        return rs_usage_error(cmd, "no database open for writing");
    char actor[RS_STORE_ACTOR_MAX + 1], target[32], err[512];
    rc_actor(actor, sizeof actor);
    snprintf(target, sizeof target, "ban %lld", id);
    if (rs_store_ban_lift(c->store, id, rs_wall_time_s(), actor, err, sizeof err) != RS_OK)
        return rc_audit_failure(c, cmd, "ban lift", target, err);
    int rc = rc_audit(c, cmd, "ban lift", target, "ok", RC_EXIT_OK);
    if (c->json)
        printf("{\"id\": %lld, \"lifted\": true}\n", id);
    else
        printf("ban %lld lifted\n", id);
    return rc;
}

int rc_cmd_ban(rc_ctx *c, int argc, char **argv)
{
    if (rc_help_asked(argc, argv, ban_help))
        return RC_EXIT_OK;
    if (argc >= 1 && strcmp(argv[0], "add") == 0)
        return ban_add(c, argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "list") == 0)
        return ban_list(c, argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "lift") == 0)
        return ban_lift(c, argc - 1, argv + 1);
    return rs_usage_error("ban", "expected 'add', 'list' or 'lift' (racectl ban --help)");
}
