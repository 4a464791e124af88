/*
 * The argument helpers every command-line tool here shares (racesim,
 * racectl, the benchmarks): the same usage errors, the same strict number
 * parsing, the same exit statuses.
 */
#ifndef RACESIM_BASE_CLI_H
#define RACESIM_BASE_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "racesim/base/err.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { RS_EXIT_OK = 0, RS_EXIT_FAIL = 1, RS_EXIT_USAGE = 2 };

/* The program name the helpers below print (default "racesim"); a tool's
 * main sets it once before parsing arguments. */
void rs_cli_set_program(const char *name);

/* Prints "<program> <cmd>: <message>" and a hint to stderr; returns
 * RS_EXIT_USAGE so callers can `return rs_usage_error(...)`. A tool without
 * subcommands passes cmd NULL: "<program>: <message>". */
int rs_usage_error(const char *cmd, const char *fmt, ...) RS_PRINTF(2, 3);

/* Prints "<program> <cmd>: <message>" to stderr (cmd may be NULL, as
 * above); returns RS_EXIT_FAIL. */
int rs_fail(const char *cmd, const char *fmt, ...) RS_PRINTF(2, 3);

/* True when arg is "-h" or "--help". */
int rs_is_help(const char *arg);

/* Fetches the value of option argv[*i] (which must have one); advances *i.
 * Returns NULL (after printing a usage error) when it is missing. */
const char *rs_opt_value(const char *cmd, int argc, char **argv, int *i);

/* Parses a whole string as a finite double / a non-negative integer in
 * [lo, hi]. Return 0 on success; on failure print a usage error naming the
 * option and return RS_EXIT_USAGE. */
int rs_parse_double(const char *cmd, const char *opt, const char *text, double *out);
int rs_parse_u32(const char *cmd, const char *opt, const char *text, uint32_t lo, uint32_t hi,
                 uint32_t *out);

/* A command line where every option takes one value ("--name value"), as
 * the benchmarks have them. One option: a whole number in [lo, hi] into *u32,
 * or (u32 NULL) its text into *text. */
typedef struct rs_cli_opt {
    const char *name;
    uint32_t *u32;
    uint32_t lo, hi;
    const char **text;
} rs_cli_opt;

/* Parses argv[1..] against opts[0..n) for `program` (which the helpers above
 * name from now on). Returns -1 to go on, RS_EXIT_OK after printing
 * usage(stdout) for -h or --help, or RS_EXIT_USAGE after a usage error. */
int rs_cli_parse_opts(const char *program, int argc, char **argv, const rs_cli_opt *opts,
                      size_t n, void (*usage)(FILE *));

#ifdef __cplusplus
}
#endif

#endif
