/*
 * racesim: the physics core's command-line tool. It evaluates a tyre, runs
 * the standard test maneuvers, replays scenario files, prints the golden
 * determinism trace and runs a short demonstration. Each subcommand lives in
 * its own cmd_*.c file; this file dispatches and holds the shared argument
 * helpers (cmd.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
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
#ifdef RS_HAVE_CMD_TRACK
    {"track", rs_cmd_track, "import, design and check track files"},
#endif
#ifdef RS_HAVE_CMD_RACE
    {"race", rs_cmd_race, "race AI cars on a track and print the results as JSON"},
#endif
};

static void usage(FILE *f)
{
    fprintf(f, "usage: racesim <command> [options]   (racesim <command> --help for details)\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nphysics version %u. Exit status: 0 ok, 1 failure, 2 usage error.\n",
            (unsigned)RS_PHYSICS_VERSION);
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

/* ---------------------------------------------------------------- helpers */

int rs_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "racesim %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see racesim %s --help)\n", cmd);
    return RS_EXIT_USAGE;
}

int rs_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "racesim %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return RS_EXIT_FAIL;
}

int rs_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

const char *rs_opt_value(const char *cmd, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        rs_usage_error(cmd, "option %s needs a value", argv[*i]);
        return NULL;
    }
    *i += 1;
    return argv[*i];
}

int rs_parse_double(const char *cmd, const char *opt, const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(v - v == 0.0)) /* rejects NaN and Inf */
        return rs_usage_error(cmd, "%s: '%s' is not a finite number", opt, text);
    *out = v;
    return 0;
}

int rs_parse_u32(const char *cmd, const char *opt, const char *text, uint32_t lo, uint32_t hi,
                 uint32_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || text[0] == '-' || v < lo || v > hi)
        return rs_usage_error(cmd, "%s: '%s' is not an integer in %u..%u", opt, text,
                              (unsigned)lo, (unsigned)hi);
    *out = (uint32_t)v;
    return 0;
}
