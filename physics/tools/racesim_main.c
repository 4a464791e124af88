/*
 * racesim: the physics core's command-line tool. It evaluates a tyre, runs
 * the standard test maneuvers, replays scenario files, prints the golden
 * determinism trace and runs a short demonstration. Each subcommand lives in
 * its own cmd_*.c file; this file dispatches and holds the shared argument
 * helpers (cmd.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "racesim/base/data_dir.h"
#include "racesim/physics.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"tire", rs_cmd_tire, "evaluate a Magic Formula tyre (one point or a CSV sweep)"},
    {"maneuver", rs_cmd_maneuver, "run a test maneuver (accel, brake, skidpad, coastdown, standstill)"},
    {"run", rs_cmd_run, "run a scenario file, write telemetry CSV and the final hash"},
    {"golden", rs_cmd_golden, "run the golden determinism scenario (optionally tracing hashes)"},
    {"demo", rs_cmd_demo, "drag race and test figures for the shipped cars"},
    {"track", rs_cmd_track, "import, design and check track files"},
    {"race", rs_cmd_race, "race AI cars on a track and print the results as JSON"},
};

const char *rs_cmd_data_dir(void)
{
    static char dir[1024];
    if (!dir[0])
        rs_data_dir_find(RS_DATA_DIR, dir, sizeof dir);
    return dir;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: racesim <command> [options]   (racesim <command> --help for details)\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nphysics version %u. Exit status: 0 ok, 1 failure, 2 usage error.\n",
            (unsigned)RS_PHYSICS_VERSION);
}

static bool listed(const char *const *names, const char *name)
{
    for (; names && *names; names++)
        if (strcmp(*names, name) == 0)
            return true;
    return false;
}

int rs_cmd_next(rs_cmd_args *args, const char **opt, const char **val)
{
    if (args->next >= args->argc)
        return RS_CMD_END;
    const char *a = args->argv[args->next];
    *opt = NULL;
    *val = a;
    if (rs_is_help(a)) {
        args->help();
        return RS_EXIT_OK;
    }
    if (a[0] != '-' || a[1] == '\0') { /* a lone "-" is a file name (stdin) */
        args->next++;
        if (args->positional++ >= args->max_positional)
            return rs_usage_error(args->cmd, "unexpected argument '%s'", a);
        return RS_CMD_MORE;
    }
    *opt = a;
    *val = NULL;
    if (listed(args->flags, a)) {
        args->next++;
        return RS_CMD_MORE;
    }
    if (!listed(args->options, a))
        return rs_usage_error(args->cmd, "unknown option '%s'", a);
    *val = rs_opt_value(args->cmd, args->argc, args->argv, &args->next);
    args->next++;
    return *val ? RS_CMD_MORE : RS_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return RS_EXIT_USAGE;
    }
    if (rs_is_help(argv[1])) {
        usage(stdout);
        return RS_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 2, argv + 2);
    fprintf(stderr, "racesim: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return RS_EXIT_USAGE;
}

