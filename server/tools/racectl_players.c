/*
 * racectl's identity commands (racesim/identity.h): players (a page of
 * registered players or admins), admin grant/revoke, token reset and audit
 * (a page of the audit log). admin and token reset write, and record each
 * attempt, successful or not, in the audit log.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racectl.h"


/* The arguments of a command that writes on one player, "VERB NAME"
 * ("admin grant NAME"): -h/--help prints help; VERB must be one of verbs
 * (NULL-ended; its index goes to *verb), else the usage error is expected;
 * then one NAME, and a database open for writing. A name may start with
 * '-' (the name rules allow it), so anything goes but a second one. */
static int verb_and_name(rc_ctx *c, const char *cmd, const char *help, const char *const *verbs,
                         const char *expected, int argc, char **argv, int *verb,
                         const char **name)
{
    if (rc_help_asked(argc, argv, help))
        return RC_EXIT_OK;
    *verb = -1;
    for (int i = 0; argc > 0 && verbs[i] && *verb < 0; i++)
        if (strcmp(argv[0], verbs[i]) == 0)
            *verb = i;
    if (*verb < 0)
        return rs_usage_error(cmd, "%s", expected);
    if (argc == 1)
        return rs_usage_error(cmd, "expected a player name");
    if (argc > 2)
        return rs_usage_error(cmd, "expected one player name, then nothing: '%s'", argv[2]);
    *name = argv[1];
    if (!c->store || !c->writable)
        return rs_usage_error(cmd, "no database open for writing");
    return RC_GO_ON;
}

/* ---------------------------------------------------------------- players */

static void player_json(const rs_store_player_info *p)
{
    printf("{\"id\": %" PRId64 ", \"name\": ", p->id);
    rc_json_str(stdout, p->name);
    printf(", \"admin\": %s, \"confirmed\": %s, \"created_at\": %" PRId64 "}",
           p->admin ? "true" : "false", p->confirmed ? "true" : "false", p->created_at);
}

int rc_cmd_players(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "players";
    bool admins = rc_take_flag(&argc, argv, "--admins");
    rc_page page;
    int rc;
    rs_store_player_info *rows = rc_page_start(
        c, cmd, argc, argv,
        "usage: racectl --db FILE players [--admins] [--offset N] [--limit N]\n"
        "\n"
        "Registered players (guests never), or with --admins only those holding\n"
        "admin rights, by name: id, name, admin, whether the registration was\n"
        "confirmed (the client acknowledged its token), when they registered.\n"
        "A page of --limit rows (default 50, at most 1000) from --offset.\n",
        &page, sizeof *rows, &rc);
    if (!rows)
        return rc;
    size_t n = 0, total = 0;
    char err[512];
    if (rs_store_players_list(c->store, admins, page.offset, rows, page.limit, &n, &total, err,
                              sizeof err) != RS_OK) {
        free(rows);
        return rs_fail(cmd, "%s", err);
    }
    if (c->json) {
        printf("{\"admins_only\": %s, \"offset\": %u, \"total\": %zu, \"players\": [",
               admins ? "true" : "false", (unsigned)page.offset, total);
        for (size_t i = 0; i < n; i++) {
            printf("%s\n  ", i ? "," : "");
            player_json(&rows[i]);
        }
        printf("%s]}\n", n ? "\n" : "");
    } else {
        printf("%8s  %-32s  %-5s  %-9s  %s\n", "ID", "NAME", "ADMIN", "CONFIRMED",
               "REGISTERED (UTC)");
        for (size_t i = 0; i < n; i++) {
            const rs_store_player_info *p = &rows[i];
            char d[32];
            rc_date_str(p->created_at, d, sizeof d);
            printf("%8" PRId64 "  %-32s  %-5s  %-9s  %s\n", p->id, p->name,
                   p->admin ? "yes" : "no", p->confirmed ? "yes" : "no", d);
        }
        rc_page_footer(admins ? "admins" : "players", page.offset, n, total);
    }
    free(rows);
    return RC_EXIT_OK;
}

/* ------------------------------------------------------------------ admin */

static const char admin_help[] =
    "usage: racectl --db FILE admin grant NAME\n"
    "       racectl --db FILE admin revoke NAME\n"
    "\n"
    "Grants or revokes admin rights. Only a registered player whose registration\n"
    "is confirmed can be granted them; guests never. The change counts at once:\n"
    "the server reads the rights at every admin request. Each attempt is recorded\n"
    "in the audit log. List the admins with: racectl players --admins\n";

int rc_cmd_admin(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "admin";
    static const char *const verbs[] = {"grant", "revoke", NULL};
    const char *name = NULL;
    int verb;
    int rc = verb_and_name(c, cmd, admin_help, verbs, "expected 'grant NAME' or 'revoke NAME'",
                           argc, argv, &verb, &name);
    if (rc != RC_GO_ON)
        return rc;
    bool grant = verb == 0;
    const char *action = grant ? "admin grant" : "admin revoke";
    char err[512];
    if (rs_store_player_set_admin(c->store, name, grant, err, sizeof err) != RS_OK)
        return rc_audit_failure(c, cmd, action, name, err);
    rc = rc_audit(c, cmd, action, name, "ok", RC_EXIT_OK);
    if (c->json) {
        printf("{\"player\": ");
        rc_json_str(stdout, name);
        printf(", \"admin\": %s}\n", grant ? "true" : "false");
    } else {
        printf("%s %s\n", name, grant ? "is now an admin" : "is no longer an admin");
    }
    return rc;
}

/* ------------------------------------------------------------------ token */

static const char token_help[] =
    "usage: racectl --db FILE token reset NAME\n"
    "\n"
    "Issues a new token for a registered player and prints it once. It works at\n"
    "once; the player's old token, and any rotation they had begun, stop working,\n"
    "and an unconfirmed registration counts as confirmed. Give the token to the\n"
    "player privately: it is shown only this once and only its hash is stored.\n"
    "The reset (never the token) is recorded in the audit log.\n";

int rc_cmd_token(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "token";
    static const char *const verbs[] = {"reset", NULL};
    const char *name = NULL;
    int verb;
    int rc = verb_and_name(c, cmd, token_help, verbs, "expected 'reset NAME'", argc, argv, &verb,
                           &name);
    if (rc != RC_GO_ON)
        return rc;
    char err[512], token[RS_TOKEN_HEX_LEN + 1];
    if (rs_store_token_reset(c->store, name, token, err, sizeof err) != RS_OK)
        return rc_audit_failure(c, cmd, "token reset", name, err);
    rc = rc_audit(c, cmd, "token reset", name, "ok", RC_EXIT_OK);
    if (c->json) {
        printf("{\"player\": ");
        rc_json_str(stdout, name);
        printf(", \"token\": \"%s\"}\n", token);
    } else {
        printf("new token for %s: %s\n", name, token);
        printf("Give it to %s privately: it is shown only this once, and their old token no "
               "longer works.\n",
               name);
    }
    memset(token, 0, sizeof token);
    return rc;
}

/* ------------------------------------------------------------------ audit */

static void audit_json(const rs_store_audit_row *r)
{
    printf("{\"id\": %" PRId64 ", \"at\": %" PRId64 ", \"actor\": ", r->id, r->at);
    rc_json_str(stdout, r->actor);
    printf(", \"address\": ");
    rc_json_str(stdout, r->address);
    printf(", \"action\": ");
    rc_json_str(stdout, r->action);
    printf(", \"target\": ");
    rc_json_str(stdout, r->target);
    printf(", \"result\": ");
    rc_json_str(stdout, r->result);
    printf("}");
}

int rc_cmd_audit(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "audit";
    rc_page page;
    int rc;
    rs_store_audit_row *rows = rc_page_start(
        c, cmd, argc, argv,
        "usage: racectl --db FILE audit [--offset N] [--limit N]\n"
        "\n"
        "The audit log, newest first: every admin action and every failed admin\n"
        "attempt, by players over the network and by racectl's write commands:\n"
        "when (UTC), who, from where, what, on whom or what, and the result.\n"
        "A page of --limit rows (default 50, at most 1000) from --offset.\n",
        &page, sizeof *rows, &rc);
    if (!rows)
        return rc;
    size_t n = 0, total = 0;
    char err[512];
    if (rs_store_audit_list(c->store, page.offset, rows, page.limit, &n, &total, err, sizeof err) !=
        RS_OK) {
        free(rows);
        return rs_fail(cmd, "%s", err);
    }
    if (c->json) {
        printf("{\"offset\": %u, \"total\": %zu, \"entries\": [", (unsigned)page.offset, total);
        for (size_t i = 0; i < n; i++) {
            printf("%s\n  ", i ? "," : "");
            audit_json(&rows[i]);
        }
        printf("%s]}\n", n ? "\n" : "");
    } else {
        printf("%8s  %-19s  %-20s  %-21s  %-14s  %-20s  %s\n", "ID", "AT (UTC)", "ACTOR",
               "ADDRESS", "ACTION", "TARGET", "RESULT");
        for (size_t i = 0; i < n; i++) {
            const rs_store_audit_row *r = &rows[i];
            char d[32];
            rc_date_str(r->at, d, sizeof d);
            printf("%8" PRId64 "  %-19s  %-20s  %-21s  %-14s  %-20s  %s\n", r->id, d, r->actor,
                   r->address, r->action, r->target, r->result);
        }
        rc_page_footer("entries", page.offset, n, total);
    }
    free(rows);
    return RC_EXIT_OK;
}
