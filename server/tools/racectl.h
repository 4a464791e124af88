/*
 * racectl, the operators' tool over a racesim database: shared context,
 * argument helpers and output helpers for its subcommands (racectl.c
 * dispatches; racectl_boards.c has the leaderboard commands,
 * racectl_races.c races, results and tunes, racectl_verify.c verify-lap).
 * Exit status as racesim: 0 ok, 1 failure, 2 usage error.
 */
#ifndef RACECTL_H
#define RACECTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "racesim/base/cli.h"
#include "racesim/leaderboard.h"
#include "racesim/store.h"

/* Exit status: racesim/base/cli.h. */
enum { RC_EXIT_OK = RS_EXIT_OK, RC_EXIT_FAIL = RS_EXIT_FAIL, RC_EXIT_USAGE = RS_EXIT_USAGE };

/* What every subcommand gets: the store, opened read-only, the queries over
 * it, and the output format. */
typedef struct rc_ctx {
    const char *db_path;
    rs_store *store;
    rs_leaderboard *lb;
    bool json;
} rc_ctx;

int rc_cmd_leaderboard(rc_ctx *c, int argc, char **argv);
int rc_cmd_rank(rc_ctx *c, int argc, char **argv);
int rc_cmd_pbs(rc_ctx *c, int argc, char **argv);
int rc_cmd_recent(rc_ctx *c, int argc, char **argv);
int rc_cmd_tunes(rc_ctx *c, int argc, char **argv);
int rc_cmd_races(rc_ctx *c, int argc, char **argv);
int rc_cmd_results(rc_ctx *c, int argc, char **argv);
int rc_cmd_verify_lap(rc_ctx *c, int argc, char **argv);

/* ---------------------------------------------------------- arguments */

/* The argument helpers below build on the shared ones in racesim/base/cli.h
 * (rs_usage_error, rs_fail, rs_opt_value, ...). Those returning an int
 * return RC_GO_ON when the command should go on, else the exit status to
 * return at once (RC_EXIT_OK after printing the help). */
enum { RC_GO_ON = -1 };

/* The board options shared by leaderboard, rank and recent:
 * --track HASH|NAME --car HASH|NAME [--tune HASH|any|stock] [--physics-version N]. */
typedef struct rc_board_opts {
    const char *track, *car, *tune;
    uint32_t physics_version;
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

/* Finds a player by name; prints the error and returns 1 if none (2 when
 * no database is open), 0 when found. */
int rc_player(rc_ctx *c, const char *cmd, const char *name, int64_t *id,
              char name_out[RS_LB_NAME_MAX]);

/* ------------------------------------------------------------- output */

/* Writes s as a JSON string literal. */
void rc_json_str(FILE *f, const char *s);

/* A 64-bit hash as 16 hex digits (JSON: a string, since JSON numbers lose
 * precision past 2^53). */
void rc_hash_str(uint64_t h, char out[17]);

/* "any", "stock" or the tune hash in hex. */
const char *rc_tune_key_str(uint64_t key, char buf[17]);

/* m:ss.mmm (or h:mm:ss.mmm); "-" for a negative time. */
void rc_time_str(int64_t us, char *out, size_t len);

/* "YYYY-MM-DD HH:MM:SS" UTC. */
void rc_date_str(int64_t unix_s, char *out, size_t len);

/* The sectors as "31.250 36.114 -" (table) or [31250000, ...] (JSON). */
void rc_sectors_table(const rs_lb_row *r, char *out, size_t len);
void rc_sectors_json(FILE *f, const rs_lb_row *r);

/* One leaderboard row as a JSON object (the fields a board row has). */
void rc_row_json(FILE *f, const rs_lb_row *r, bool with_board);

#endif
