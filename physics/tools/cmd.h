/*
 * The racesim command's subcommands (the argument helpers they use are
 * racesim/base/cli.h). Each subcommand takes the arguments after its own
 * name and returns the process exit status: 0 success, 1 failure (a file
 * could not be loaded, a simulation went non-finite), 2 usage error.
 */
#ifndef RS_CMD_H
#define RS_CMD_H

#include "racesim/base/cli.h"

/* The argument loop every subcommand shares: declare the options, then
 * call rs_cmd_next until it returns something else than RS_CMD_MORE. */
typedef struct rs_cmd_args {
    const char *cmd;            /* named in messages */
    void (*help)(void);         /* printed for -h/--help */
    const char *const *options; /* the options that take a value, NULL-terminated */
    const char *const *flags;   /* the options that take none, NULL-terminated; NULL: none */
    int max_positional;         /* more positional arguments are usage errors */
    int argc;
    char **argv;
    int next;                   /* the next argument's index */
    int positional;             /* positional arguments read so far */
} rs_cmd_args;

#define RS_CMD_MORE (-1) /* an argument was read */
#define RS_CMD_END (-2)  /* there are no more */

/* Reads the next argument: an option sets *opt (one of the declared ones)
 * and, unless it is a flag, *val to its value (the argument after it); a
 * positional argument sets *opt to NULL and *val. Returns RS_CMD_MORE or
 * RS_CMD_END, or the exit status to return: RS_EXIT_OK after printing
 * help() for -h/--help, RS_EXIT_USAGE after the message for an unknown
 * option, a missing value or a positional argument too many. */
int rs_cmd_next(rs_cmd_args *args, const char **opt, const char **val);

/* The data folder (cars/, tracks/, tyres/) the subcommands default to:
 * rs_data_dir_find's answer (racesim/base/data_dir.h), so an installed
 * racesim uses the installed data. Found once; racesim_main.c. */
const char *rs_cmd_data_dir(void);

int rs_cmd_tire(int argc, char **argv);
int rs_cmd_maneuver(int argc, char **argv);
int rs_cmd_run(int argc, char **argv);
int rs_cmd_golden(int argc, char **argv);
int rs_cmd_demo(int argc, char **argv);
int rs_cmd_track(int argc, char **argv); /* cmd_track.c */
int rs_cmd_race(int argc, char **argv);  /* cmd_race.c */

#endif
