/*
 * racectl, the operators' tool over a racesim database: shared context,
 * argument helpers and output helpers for its subcommands (racectl.c
 * dispatches; racectl_boards.c has the leaderboard commands,
 * racectl_races.c races, results and tunes, racectl_verify.c verify-lap,
 * racectl_players.c players, admin, token and audit, racectl_bans.c ban;
 * racectl_defs.c finds the tracks and cars they are given).
 * Exit status as racesim: 0 ok, 1 failure, 2 usage error.
 */
#ifndef RACECTL_H
#define RACECTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "racesim/base/cli.h"
#include "racesim/base/text.h"
#include "racesim/identity.h"
#include "racesim/leaderboard.h"
#include "racesim/store.h"

/* Exit status: racesim/base/cli.h. */
enum { RC_EXIT_OK = RS_EXIT_OK, RC_EXIT_FAIL = RS_EXIT_FAIL, RC_EXIT_USAGE = RS_EXIT_USAGE };

/* What every subcommand gets: the store (opened read-only, or read-write
 * without schema upgrades for a command that writes), the queries over it,
 * and the output format. */
typedef struct rc_ctx {
    const char *db_path;
    rs_store *store;
    rs_leaderboard *lb;
    bool json;
    bool writable; /* the store was opened for writing */
} rc_ctx;

int rc_cmd_leaderboard(rc_ctx *c, int argc, char **argv);
int rc_cmd_rank(rc_ctx *c, int argc, char **argv);
int rc_cmd_pbs(rc_ctx *c, int argc, char **argv);
int rc_cmd_recent(rc_ctx *c, int argc, char **argv);
int rc_cmd_tunes(rc_ctx *c, int argc, char **argv);
int rc_cmd_races(rc_ctx *c, int argc, char **argv);
int rc_cmd_results(rc_ctx *c, int argc, char **argv);
int rc_cmd_verify_lap(rc_ctx *c, int argc, char **argv);
int rc_cmd_players(rc_ctx *c, int argc, char **argv);
int rc_cmd_admin(rc_ctx *c, int argc, char **argv);
int rc_cmd_token(rc_ctx *c, int argc, char **argv);
int rc_cmd_ban(rc_ctx *c, int argc, char **argv);
int rc_cmd_audit(rc_ctx *c, int argc, char **argv);
int rc_cmd_standings(rc_ctx *c, int argc, char **argv);

/* ---------------------------------------------------------- arguments */

/* The argument helpers below build on the shared ones in racesim/base/cli.h
 * (rs_usage_error, rs_fail, rs_opt_value, ...). Those returning an int
 * return RC_GO_ON when the command should go on, else the exit status to
 * return at once (RC_EXIT_OK after printing the help). */
enum { RC_GO_ON = -1 };

/* The board options shared by leaderboard, rank and recent:
 * --track T --car C [--tune HASH|any|stock] [--physics-version N]; T and C
 * as rc_find_track and rc_find_car take them. --car may be repeated, for a
 * class board (leaderboard and rank): car is the first, cars all of them. */
typedef struct rc_board_opts {
    const char *track, *car, *tune;
    uint32_t physics_version;
    const char *cars[RS_LB_CLASS_MAX_CARS];
    uint32_t car_count;
} rc_board_opts;

/* One option of a subcommand, --name VALUE: a text (text not NULL) or a
 * whole number in min..max (num not NULL). */
typedef struct rc_opt {
    const char *name;
    const char **text;
    uint32_t *num;
    uint32_t min, max;
    bool required;
} rc_opt;

/* Parses a subcommand's options: -h/--help prints help (a printf format,
 * given the default physics version), board (may be NULL) takes the board
 * options, opts (ended by an entry with a NULL name) the others; then
 * every required option must have been given. */
int rc_options(const char *cmd, int argc, char **argv, const char *help, rc_board_opts *board,
               const rc_opt *opts);

/* Parses the one argument of a command that takes an id (what: "RACE_ID"
 * named noun "race id"): a positive decimal number into *id. -h/--help
 * prints help (plain text). Also fails when no database is open. */
int rc_id_argument(rc_ctx *c, const char *cmd, int argc, char **argv, const char *help,
                   const char *what, const char *noun, int64_t *id);

/* Resolves the board options into a key and the names to show. Prints the
 * error and returns 1 (failure) or 2 (usage) when it cannot (or when no
 * database is open), 0 when it can. */
int rc_board_resolve(rc_ctx *c, const char *cmd, const rc_board_opts *o, rs_board_key *key,
                     char track_name[RS_LB_NAME_MAX], char car_name[RS_LB_NAME_MAX]);

/* The same for a class board, when --car was given several times: the
 * class key (any tune or stock only), the track's name and each car's. */
int rc_class_resolve(rc_ctx *c, const char *cmd, const rc_board_opts *o, rs_class_key *key,
                     char track_name[RS_LB_NAME_MAX],
                     char car_names[RS_LB_CLASS_MAX_CARS][RS_LB_NAME_MAX]);

/* Finds a stored track, or a stock car, as an operator names it: its hash
 * (16 hex digits, or 0x and up to 16), its name in the database (any
 * case), or the file raceserver was started with: a bare name ("oval",
 * "c5", case as the file's) is <data>/tracks/oval.json or <data>/cars/
 * c5.json (the data folder as raceserver finds it: $RS_DATA_DIR, else the
 * built-in one), a path with a '/' or ending in .json is read as it is.
 * A file is loaded and found by its hash. Writes the hash (a car's stock
 * hash) and the stored name. When nothing matches, or the name and the
 * file are different definitions, prints why and every stored one (name,
 * file, hash) and returns 1 (2 when no database is open); 0 when found. */
int rc_find_track(rc_ctx *c, const char *cmd, const char *text, uint64_t *hash,
                  char name[RS_LB_NAME_MAX]);
int rc_find_car(rc_ctx *c, const char *cmd, const char *text, uint64_t *base_hash,
                char name[RS_LB_NAME_MAX]);

/* Finds a player by name; prints the error and returns 1 if none (2 when
 * no database is open), 0 when found. */
int rc_player(rc_ctx *c, const char *cmd, const char *name, int64_t *id,
              char name_out[RS_LB_NAME_MAX]);

/* A page of a listing (players, bans, audit): --limit rows, by default
 * RC_PAGE_DEFAULT and at most RC_PAGE_MAX, from --offset. */
enum { RC_PAGE_DEFAULT = 50, RC_PAGE_MAX = 1000 };
typedef struct rc_page {
    uint32_t offset, limit;
} rc_page;

/* Starts a listing whose options are the page's (--offset N, --limit N):
 * parses them into *page (-h/--help prints help, as rc_options), checks a
 * database is open, and returns page->limit zeroed rows of row_size bytes
 * for the caller to fill and free. NULL when the command ends here, with
 * *rc the exit status to return. */
void *rc_page_start(rc_ctx *c, const char *cmd, int argc, char **argv, const char *help,
                    rc_page *page, size_t row_size, int *rc);

/* True, after printing help (plain text), when an argument is -h/--help. */
bool rc_help_asked(int argc, char **argv, const char *help);

/* Under a page's table: "players 1-50 of 120; next page: --offset 50", or
 * "(no players)". */
void rc_page_footer(const char *what, uint32_t offset, size_t n, size_t total);

/* Takes every occurrence of a value-less flag ("--all") out of argv,
 * updating *argc; true when there was one. */
bool rc_take_flag(int *argc, char **argv, const char *flag);

/* ------------------------------------------------------- writes, audit */

/* Who is acting, for the audit log and a ban's author: "racectl:<$USER>",
 * or "racectl:uid N" when USER is not set. */
void rc_actor(char *out, size_t cap);

/* Records one write attempt of cmd in the audit log (actor rc_actor,
 * address "local"): action, target and result ("ok", or "failed: why").
 * Returns rc, the command's exit status so far, or RC_EXIT_FAIL (after
 * saying so) when the entry could not be written. */
int rc_audit(rc_ctx *c, const char *cmd, const char *action, const char *target,
             const char *result, int rc);

/* A write that failed for why (the store's message): says so, then records
 * it in the audit log with the result "failed: why". Returns RC_EXIT_FAIL. */
int rc_audit_failure(rc_ctx *c, const char *cmd, const char *action, const char *target,
                     const char *why);

/* ------------------------------------------------------------- output */

/* Writes s as a JSON string literal. */
void rc_json_str(FILE *f, const char *s);

/* A 64-bit hash as 16 hex digits (JSON: a string, since JSON numbers lose
 * precision past 2^53). */
void rc_hash_str(uint64_t h, char out[17]);

/* "any", "stock" or the tune hash in hex. */
const char *rc_tune_key_str(uint64_t key, char buf[17]);

/* "YYYY-MM-DD HH:MM:SS" UTC. */
void rc_date_str(int64_t unix_s, char *out, size_t len);

/* The sectors as "31.250 36.114 -" (table) or [31250000, ...] (JSON). */
void rc_sectors_table(const rs_lb_row *r, char *out, size_t len);
void rc_sectors_json(FILE *f, const rs_lb_row *r);

/* One leaderboard row as a JSON object (the fields a board row has). */
void rc_row_json(FILE *f, const rs_lb_row *r, bool with_board);

#endif
