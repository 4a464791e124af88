/*
 * `racesim golden [--trace] [--data DIR]`: runs the golden determinism
 * scenario (tests/support/golden_scenario.h) and prints the final world hash
 * as "hash=<16 hex digits>". With --trace it first prints, after every tick,
 * one line per car "<tick> <car> <car hash>" and one "<tick> world <world
 * hash>" (scenario.h documents the format; tests/determinism/cross_check.sh
 * compares these traces between builds to name the first divergence).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "golden_scenario.h"
#include "scenario.h"

#define CMD "golden"

static void help(void)
{
    printf("usage: racesim golden [--trace] [--data DIR]\n"
           "\n"
           "Runs the golden determinism scenario (%d cars, %u ticks at 60 Hz) and prints the\n"
           "final world hash as the last line: hash=<16 hex digits>.\n"
           "\n"
           "  --trace     after every tick print \"<tick> <car> <car hash>\" for each car\n"
           "              (tick 1-based, car 0-based) and then \"<tick> world <world hash>\"\n"
           "  --data DIR  the data folder holding cars/*.json (default %s)\n"
           "\n"
           "The checked-in golden hash is %016" PRIx64 " (tests/support/golden_scenario.h).\n",
           RS_GOLDEN_CARS, (unsigned)RS_GOLDEN_TICKS, rs_cmd_data_dir(), (uint64_t)RS_GOLDEN_HASH);
}

int rs_cmd_golden(int argc, char **argv)
{
    const char *data = rs_cmd_data_dir();
    int trace = 0;
    static const char *const flags[] = {"--trace", NULL};
    static const char *const options[] = {"--data", NULL};
    rs_cmd_args args = {CMD, help, options, flags, 0, argc, argv, 0, 0};
    const char *a, *v;
    int rc;
    while ((rc = rs_cmd_next(&args, &a, &v)) == RS_CMD_MORE) {
        if (strcmp(a, "--trace") == 0)
            trace = 1;
        else
            data = v; /* --data */
    }
    if (rc != RS_CMD_END)
        return rc;

    rs_golden *g = NULL;
    char err[512];
    rs_status st = rs_golden_create(data, &g, err, sizeof err);
    if (st != RS_OK)
        return rs_fail(CMD, "%s", err);
    rs_world *w = rs_golden_world(g);
    for (uint32_t t = 0; t < RS_GOLDEN_TICKS; t++) {
        if ((st = rs_golden_step(g)) != RS_OK) {
            rs_golden_destroy(g);
            return rs_fail(CMD, "tick %u: %s", t + 1, rs_status_str(st));
        }
        if (trace && rs_trace_write(stdout, w) != 0) {
            rs_golden_destroy(g);
            return rs_fail(CMD, "error writing the trace");
        }
    }
    char line[32];
    rs_hash_line(rs_world_hash(w), line);
    rs_golden_destroy(g);
    printf("%s\n", line);
    if (fflush(stdout) != 0)
        return rs_fail(CMD, "error writing stdout");
    return RS_EXIT_OK;
}
