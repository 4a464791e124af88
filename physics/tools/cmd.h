/*
 * The racesim command's subcommands and the small argument helpers every
 * tool shares (cli.c; racectl uses them too). Each subcommand takes the arguments after its own
 * name and returns the process exit status: 0 success, 1 failure (a file
 * could not be loaded, a simulation went non-finite), 2 usage error.
 */
#ifndef RS_CMD_H
#define RS_CMD_H

#include <stdint.h>

enum { RS_EXIT_OK = 0, RS_EXIT_FAIL = 1, RS_EXIT_USAGE = 2 };

int rs_cmd_tire(int argc, char **argv);
int rs_cmd_maneuver(int argc, char **argv);
int rs_cmd_run(int argc, char **argv);
int rs_cmd_golden(int argc, char **argv);
int rs_cmd_demo(int argc, char **argv);
int rs_cmd_track(int argc, char **argv); /* cmd_track.c */
int rs_cmd_race(int argc, char **argv);  /* cmd_race.c */

/* The program name the helpers below print (default "racesim"); a tool's
 * main sets it once before parsing arguments. */
void rs_cli_set_program(const char *name);

/* Prints "<program> <cmd>: <message>" and a hint to stderr; returns
 * RS_EXIT_USAGE so callers can `return rs_usage_error(...)`. */
int rs_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints "<program> <cmd>: <message>" to stderr; returns RS_EXIT_FAIL. */
int rs_fail(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

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

#endif
