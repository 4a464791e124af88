/*
 * racectl: the operators' command-line tool for a racesim database. It
 * answers leaderboard, rank, personal-best, recent-lap, tune, race and
 * result questions as tables or JSON, re-simulates a stored lap to verify
 * it, and lists players, bans and the audit log; those open the database
 * read-only, so they can run beside a live server (WAL lets them read while
 * it writes). The operators' write commands (admin grant/revoke, token
 * reset, ban add/lift) open it read-write, never upgrading its schema, and
 * record each attempt in the audit log. This file dispatches and holds the
 * helpers the subcommands share (racectl.h).
 */
#define _POSIX_C_SOURCE 200809L /* gmtime_r, getuid */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "racectl.h"
#include "racesim/base/clock.h"
#include "racesim/base/data_dir.h"

typedef struct command {
    const char *name;
    int (*run)(rc_ctx *c, int argc, char **argv);
    const char *summary;
    /* The verbs (first argument) that write: the database is opened
     * read-write for them only. NULL: the command only reads. */
    const char *const *write_verbs;
} command;

static const char *const admin_writes[] = {"grant", "revoke", NULL};
static const char *const token_writes[] = {"reset", NULL};
static const char *const ban_writes[] = {"add", "lift", NULL};

static const command commands[] = {
    {"leaderboard", rc_cmd_leaderboard, "a board's best laps, one per player, a page at a time",
     NULL},
    {"rank", rc_cmd_rank, "a player's rank on a board and the rows around it", NULL},
    {"pbs", rc_cmd_pbs, "a player's personal bests on every board, with ranks", NULL},
    {"recent", rc_cmd_recent, "the newest laps of a board or of a player (valid or not)", NULL},
    {"tunes", rc_cmd_tunes, "a player's saved car tunes", NULL},
    {"races", rc_cmd_races, "the newest races", NULL},
    {"results", rc_cmd_results, "one race's results", NULL},
    {"standings", rc_cmd_standings, "a championship's standings (from raceserver's config)",
     NULL},
    {"verify-lap", rc_cmd_verify_lap, "re-simulate a stored lap and compare it bit for bit",
     NULL},
    {"players", rc_cmd_players, "registered players (or admins only), a page at a time", NULL},
    {"admin", rc_cmd_admin, "grant or revoke a registered player's admin rights (writes)",
     admin_writes},
    {"token", rc_cmd_token, "reset a player's token: a new one, shown once (writes)",
     token_writes},
    {"ban", rc_cmd_ban, "add, list or lift bans by player or address range (add/lift write)",
     ban_writes},
    {"audit", rc_cmd_audit, "the audit log of admin actions and failed attempts, newest first",
     NULL},
};

/* Whether cmd, given these arguments, writes. */
static bool writes(const command *cmd, int argc, char **argv)
{
    if (!cmd->write_verbs || argc < 1)
        return false;
    for (const char *const *v = cmd->write_verbs; *v; v++)
        if (strcmp(argv[0], *v) == 0)
            return true;
    return false;
}

static void usage(FILE *f)
{
    char data[1024];
    rs_data_dir_find(RS_DATA_DIR, data, sizeof data);
    fprintf(f, "usage: racectl --db FILE [--json] <command> [options]"
               "   (racectl <command> --help for details)\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nThe commands that write (admin, token reset, ban add and lift) record each\n"
               "attempt in the audit log as racectl:<user> from \"local\".\n");
    fprintf(f,
            "\n  --db FILE    the racesim database (it must exist and have this build's\n"
            "               schema; opened read-only but by the commands that write)\n"
            "  --json       one JSON document on stdout instead of a table\n"
            "\nTracks and cars are given by their name in the database (any case: \"Kestrel\n"
            "Ridge Circuit\"), by the file raceserver was started with (\"technical\" for\n"
            "tracks/technical.json in the data folder, \"c5\" for cars/c5.json, or a path\n"
            "to a .json file) or by hash (16 hex digits). The data folder, as raceserver\n"
            "finds it ($RS_DATA_DIR, else the built-in one): %s\n"
            "Boards default to physics version %u and \"any tune\".\n"
            "Exit status: 0 ok, 1 failure, 2 usage error.\n",
            data, (unsigned)RS_PHYSICS_VERSION);
}

int main(int argc, char **argv)
{
    rc_ctx c = {0};
    int i = 1;
    rs_cli_set_program("racectl");
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (rs_is_help(argv[i])) {
            usage(stdout);
            return RC_EXIT_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            c.json = true;
        } else if (strcmp(argv[i], "--db") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "racectl: --db needs a file\n");
                return RC_EXIT_USAGE;
            }
            c.db_path = argv[++i];
        } else {
            fprintf(stderr, "racectl: unknown option '%s'\n\n", argv[i]);
            usage(stderr);
            return RC_EXIT_USAGE;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return RC_EXIT_USAGE;
    }
    const command *cmd = NULL;
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (strcmp(argv[i], commands[k].name) == 0)
            cmd = &commands[k];
    if (!cmd) {
        fprintf(stderr, "racectl: unknown command '%s'\n\n", argv[i]);
        usage(stderr);
        return RC_EXIT_USAGE;
    }
    int sub_argc = argc - i - 1;
    char **sub_argv = argv + i + 1;
    /* --json is also accepted after the command (it is taken out here);
     * --help needs no database. */
    int kept = 0;
    for (int k = 0; k < sub_argc; k++) {
        if (strcmp(sub_argv[k], "--json") == 0)
            c.json = true;
        else
            sub_argv[kept++] = sub_argv[k];
    }
    sub_argc = kept;
    for (int k = 0; k < sub_argc; k++) {
        if (rs_is_help(sub_argv[k]))
            return cmd->run(&c, sub_argc, sub_argv);
    }
    if (!c.db_path)
        return rs_usage_error(cmd->name, "no database: give --db FILE before the command");

    char err[1024];
    /* Read-only unless the command writes; a writing racectl runs beside a
     * live server, so it must not upgrade the schema under it either. */
    c.writable = writes(cmd, sub_argc, sub_argv);
    unsigned flags = c.writable ? RS_STORE_NO_UPGRADE : RS_STORE_READONLY;
    if (rs_store_open(c.db_path, flags, &c.store, err, sizeof err) != RS_OK) {
        fprintf(stderr, "racectl: %s\n", err);
        return RC_EXIT_FAIL;
    }
    if (rs_leaderboard_open(c.store, &c.lb, err, sizeof err) != RS_OK) {
        fprintf(stderr, "racectl: %s\n", err);
        rs_store_close(c.store);
        return RC_EXIT_FAIL;
    }
    int rc = cmd->run(&c, sub_argc, sub_argv);
    rs_leaderboard_close(c.lb);
    rs_store_close(c.store);
    if (fflush(stdout) != 0 && rc == RC_EXIT_OK) {
        fprintf(stderr, "racectl: writing the output: %s\n", strerror(errno));
        rc = RC_EXIT_FAIL;
    }
    return rc;
}

/* ------------------------------------------------------------ helpers */

/* A positive decimal id; 0 on success, else prints a usage error naming
 * opt and returns 2. */
static int parse_i64(const char *cmd, const char *opt, const char *text, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || v < 1)
        return rs_usage_error(cmd, "%s: '%s' is not a positive integer id", opt, text);
    *out = (int64_t)v;
    return 0;
}

/* Consumes argv[*i] when opts has it: 1, or 2 on a usage error; 0 when it
 * is not one of them. */
static int table_option(const char *cmd, int argc, char **argv, int *i, const rc_opt *opts)
{
    const char *a = argv[*i];
    for (const rc_opt *o = opts; o->name; o++) {
        if (strcmp(a, o->name) != 0)
            continue;
        const char *v = rs_opt_value(cmd, argc, argv, i);
        if (!v || (o->num && rs_parse_u32(cmd, a, v, o->min, o->max, o->num)))
            return 2;
        if (o->text)
            *o->text = v;
        return 1;
    }
    return 0;
}

/* --car, which may be repeated (a class board): as table_option. */
static int car_option(const char *cmd, int argc, char **argv, int *i, rc_board_opts *board)
{
    if (strcmp(argv[*i], "--car") != 0)
        return 0;
    const char *v = rs_opt_value(cmd, argc, argv, i);
    if (!v)
        return 2;
    if (board->car_count == RS_LB_CLASS_MAX_CARS) {
        rs_usage_error(cmd, "--car: at most %d cars (a room offers no more)",
                       RS_LB_CLASS_MAX_CARS);
        return 2;
    }
    board->cars[board->car_count++] = v;
    if (!board->car)
        board->car = v;
    return 1;
}

int rc_options(const char *cmd, int argc, char **argv, const char *help, rc_board_opts *board,
               const rc_opt *opts)
{
    /* The board options are one more table. */
    const rc_opt board_opts[] = {
        {"--track", board ? &board->track : NULL, NULL, 0, 0, false},
        {"--tune", board ? &board->tune : NULL, NULL, 0, 0, false},
        {"--physics-version", NULL, board ? &board->physics_version : NULL, 1, UINT32_MAX, false},
        {NULL, NULL, NULL, 0, 0, false},
    };
    for (int i = 0; i < argc; i++) {
        if (rs_is_help(argv[i])) {
            printf(help, (unsigned)RS_PHYSICS_VERSION);
            return RC_EXIT_OK;
        }
        int r = board ? car_option(cmd, argc, argv, &i, board) : 0;
        if (r == 0 && board)
            r = table_option(cmd, argc, argv, &i, board_opts);
        if (r == 0)
            r = table_option(cmd, argc, argv, &i, opts);
        if (r == 2)
            return RC_EXIT_USAGE;
        if (r == 0)
            return rs_usage_error(cmd, "unknown argument '%s'", argv[i]);
    }
    for (const rc_opt *o = opts; o->name; o++)
        if (o->required && o->text && !*o->text)
            return rs_usage_error(cmd, "%s is required", o->name);
    return RC_GO_ON;
}

int rc_id_argument(rc_ctx *c, const char *cmd, int argc, char **argv, const char *help,
                   const char *what, const char *noun, int64_t *id)
{
    const char *text = NULL;
    for (int i = 0; i < argc; i++) {
        if (rs_is_help(argv[i])) {
            fputs(help, stdout);
            return RC_EXIT_OK;
        }
        if (argv[i][0] == '-' || text)
            return rs_usage_error(cmd, "unexpected argument '%s'", argv[i]);
        text = argv[i];
    }
    if (!text)
        return rs_usage_error(cmd, "expected a %s", noun);
    if (parse_i64(cmd, what, text, id))
        return RC_EXIT_USAGE;
    if (!c->lb)
        return rs_usage_error(cmd, "no database");
    return RC_GO_ON;
}

/* --tune: "any", "stock", or a tune hash (16 hex digits or 0x...). */
static bool parse_tune(const char *s, uint64_t *out)
{
    if (strcmp(s, "any") == 0) {
        *out = RS_TUNE_KEY_ANY;
        return true;
    }
    if (strcmp(s, "stock") == 0) {
        *out = RS_TUNE_KEY_STOCK;
        return true;
    }
    const char *p = s;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    size_t n = strlen(p);
    if (n == 0 || n > 16 || strspn(p, "0123456789abcdefABCDEF") != n)
        return false;
    *out = (uint64_t)strtoull(p, NULL, 16);
    /* Hash 0 is the stock car, whose board has its own key. */
    *out = rs_store_tune_key(*out);
    return true;
}

int rc_board_resolve(rc_ctx *c, const char *cmd, const rc_board_opts *o, rs_board_key *key,
                     char track_name[RS_LB_NAME_MAX], char car_name[RS_LB_NAME_MAX])
{
    if (!c->lb)
        return rs_usage_error(cmd, "no database");
    if (!o->track || !o->car)
        return rs_usage_error(cmd, "a board needs --track and --car");
    if (o->car_count > 1)
        return rs_usage_error(cmd, "one --car: %s shows one car's board", cmd);
    memset(key, 0, sizeof *key);
    key->physics_version = o->physics_version ? o->physics_version : RS_PHYSICS_VERSION;
    key->tune_key = RS_TUNE_KEY_ANY;
    if (o->tune && !parse_tune(o->tune, &key->tune_key))
        return rs_usage_error(cmd, "--tune: '%s' is not 'any', 'stock' or a tune hash", o->tune);
    int rc = rc_find_track(c, cmd, o->track, &key->track_hash, track_name);
    if (rc == 0)
        rc = rc_find_car(c, cmd, o->car, &key->base_hash, car_name);
    return rc;
}

int rc_class_resolve(rc_ctx *c, const char *cmd, const rc_board_opts *o, rs_class_key *key,
                     char track_name[RS_LB_NAME_MAX],
                     char car_names[RS_LB_CLASS_MAX_CARS][RS_LB_NAME_MAX])
{
    if (!c->lb)
        return rs_usage_error(cmd, "no database");
    if (!o->track || o->car_count < 2)
        return rs_usage_error(cmd, "a class board needs --track and several --car");
    memset(key, 0, sizeof *key);
    key->physics_version = o->physics_version ? o->physics_version : RS_PHYSICS_VERSION;
    key->tune_key = RS_TUNE_KEY_ANY;
    /* A tune belongs to one car: a class board is every lap or stock laps. */
    if (o->tune && (!parse_tune(o->tune, &key->tune_key) ||
                    (key->tune_key != RS_TUNE_KEY_ANY && key->tune_key != RS_TUNE_KEY_STOCK)))
        return rs_usage_error(cmd, "--tune: a board of several cars is 'any' or 'stock', "
                                   "not '%s' (a tune belongs to one car)", o->tune);
    int rc = rc_find_track(c, cmd, o->track, &key->track_hash, track_name);
    for (uint32_t i = 0; rc == 0 && i < o->car_count; i++)
        rc = rc_find_car(c, cmd, o->cars[i], &key->base_hashes[i], car_names[i]);
    key->car_count = o->car_count;
    return rc;
}

int rc_player(rc_ctx *c, const char *cmd, const char *name, int64_t *id,
              char name_out[RS_LB_NAME_MAX])
{
    char err[512];
    if (!c->lb)
        return rs_usage_error(cmd, "no database");
    if (rs_leaderboard_find_player(c->lb, name, id, name_out, err, sizeof err) != RS_OK)
        return rs_fail(cmd, "%s", err);
    return 0;
}

void rc_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void rc_hash_str(uint64_t h, char out[17])
{
    snprintf(out, 17, "%016" PRIx64, h);
}

const char *rc_tune_key_str(uint64_t key, char buf[17])
{
    if (key == RS_TUNE_KEY_ANY)
        return "any";
    if (key == RS_TUNE_KEY_STOCK)
        return "stock";
    rc_hash_str(key, buf);
    return buf;
}

void rc_date_str(int64_t unix_s, char *out, size_t len)
{
    if (rs_time_format_utc(unix_s, "%Y-%m-%d %H:%M:%S", out, len) == 0)
        snprintf(out, len, "%" PRId64, unix_s);
}

void rc_sectors_table(const rs_lb_row *r, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < r->sector_count && used < len; i++) {
        int64_t v = r->sectors_us[i];
        int n;
        if (v < 0)
            n = snprintf(out + used, len - used, "%s-", i ? " " : "");
        else
            n = snprintf(out + used, len - used, "%s%" PRId64 ".%03d", i ? " " : "",
                         v / 1000000, (int)(v / 1000 % 1000));
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

void rc_sectors_json(FILE *f, const rs_lb_row *r)
{
    fputc('[', f);
    for (uint32_t i = 0; i < r->sector_count; i++)
        fprintf(f, "%s%" PRId64, i ? ", " : "", r->sectors_us[i]);
    fputc(']', f);
}

void rc_row_json(FILE *f, const rs_lb_row *r, bool with_board)
{
    char h[17];
    fprintf(f, "{");
    if (r->rank)
        fprintf(f, "\"rank\": %u, ", (unsigned)r->rank);
    fprintf(f, "\"player\": ");
    rc_json_str(f, r->player_name);
    fprintf(f, ", \"player_id\": %" PRId64 ", \"lap_id\": %" PRId64 ", \"time_us\": %" PRId64
               ", \"recorded_at\": %" PRId64 ", ",
            r->player_id, r->lap_id, r->time_us, r->recorded_at);
    rc_hash_str(r->tune_hash, h);
    fprintf(f, "\"tune_hash\": \"%s\", \"sectors_us\": ", h);
    rc_sectors_json(f, r);
    if (with_board) {
        rc_hash_str(r->track_hash, h);
        fprintf(f, ", \"track\": ");
        rc_json_str(f, r->track_name);
        fprintf(f, ", \"track_hash\": \"%s\", \"car\": ", h);
        rc_json_str(f, r->car_name);
        rc_hash_str(r->base_hash, h);
        fprintf(f, ", \"car_hash\": \"%s\", \"physics_version\": %u", h,
                (unsigned)r->physics_version);
    }
    fprintf(f, ", \"valid\": %s, \"invalid_reason\": %d, \"race_id\": %" PRId64
               ", \"lap_number\": %u}",
            r->valid ? "true" : "false", (int)r->invalid_reason, r->race_id,
            (unsigned)r->lap_number);
}

/* ------------------------------------------------------- writes, audit */

bool rc_help_asked(int argc, char **argv, const char *help)
{
    for (int i = 0; i < argc; i++) {
        if (rs_is_help(argv[i])) {
            fputs(help, stdout);
            return true;
        }
    }
    return false;
}

void rc_page_footer(const char *what, uint32_t offset, size_t n, size_t total)
{
    if (n == 0) {
        printf("(no %s%s)\n", what, offset ? " at this offset" : "");
        return;
    }
    printf("%s %u-%zu of %zu", what, (unsigned)offset + 1, (size_t)offset + n, total);
    if ((size_t)offset + n < total)
        printf("; next page: --offset %zu", (size_t)offset + n);
    printf("\n");
}

void *rc_page_start(rc_ctx *c, const char *cmd, int argc, char **argv, const char *help,
                    rc_page *page, size_t row_size, int *rc)
{
    *page = (rc_page){0, RC_PAGE_DEFAULT};
    const rc_opt opts[] = {{"--offset", NULL, &page->offset, 0, UINT32_MAX, false},
                           {"--limit", NULL, &page->limit, 1, RC_PAGE_MAX, false},
                           {NULL, NULL, NULL, 0, 0, false}};
    *rc = rc_options(cmd, argc, argv, help, NULL, opts);
    if (*rc != RC_GO_ON)
        return NULL;
    if (!c->store) {
        *rc = rs_usage_error(cmd, "no database");
        return NULL;
    }
    void *rows = calloc(page->limit, row_size);
    if (!rows)
        *rc = rs_fail(cmd, "out of memory");
    return rows;
}

bool rc_take_flag(int *argc, char **argv, const char *flag)
{
    bool seen = false;
    int kept = 0;
    for (int i = 0; i < *argc; i++) {
        if (strcmp(argv[i], flag) == 0)
            seen = true;
        else
            argv[kept++] = argv[i];
    }
    *argc = kept;
    return seen;
}

void rc_actor(char *out, size_t cap)
{
    /* $USER, as the operator's shell has it; the uid when it is not set.
     * Characters a log line should not hold become '_'. */
    const char *user = getenv("USER");
    char name[48];
    if (user && user[0]) {
        size_t n = 0;
        for (; user[n] && n < sizeof name - 1; n++) {
            char ch = user[n];
            bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                         (ch >= '0' && ch <= '9') || strchr("._-@", ch);
            name[n] = plain ? ch : '_';
        }
        name[n] = '\0';
    } else {
        snprintf(name, sizeof name, "uid %lu", (unsigned long)getuid());
    }
    snprintf(out, cap, "racectl:%s", name);
}

int rc_audit(rc_ctx *c, const char *cmd, const char *action, const char *target,
             const char *result, int rc)
{
    char actor[RS_STORE_ACTOR_MAX + 1], err[512];
    rc_actor(actor, sizeof actor);
    if (rs_store_audit_add(c->store, rs_wall_time_s(), actor, "local", action, target, result,
                           err, sizeof err) != RS_OK) {
        fprintf(stderr, "racectl %s: %s; recording it in the audit log failed: %s\n", cmd,
                rc == RC_EXIT_OK ? "done" : "failed", err);
        return RC_EXIT_FAIL;
    }
    return rc;
}

int rc_audit_failure(rc_ctx *c, const char *cmd, const char *action, const char *target,
                     const char *why)
{
    char result[600];
    snprintf(result, sizeof result, "failed: %s", why);
    rs_fail(cmd, "%s", why);
    return rc_audit(c, cmd, action, target, result, RC_EXIT_FAIL);
}
