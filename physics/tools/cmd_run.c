/*
 * `racesim run SCENARIO.json [--out telemetry.csv] [--trace]`: replays a
 * scenario file (examples/scenarios/README.md describes the format) and
 * writes telemetry CSV to --out or stdout; the last stdout line is always
 * "hash=<16 hex digits>", the final world hash.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "scenario.h"

#define CMD "run"

static void help(void)
{
    printf("usage: racesim run SCENARIO.json [--out FILE.csv] [--trace] [--quiet]\n"
           "\n"
           "Runs a scenario (world, cars, spawn poses, a step program of inputs per car;\n"
           "format: examples/scenarios/README.md) on the flat plane.\n"
           "\n"
           "  --out FILE   write the telemetry CSV there (default: stdout)\n"
           "  --trace      print the determinism trace (as racesim golden --trace) on stdout\n"
           "               instead of telemetry, unless --out is given\n"
           "  --quiet      no telemetry at all, only the hash\n"
           "\n"
           "Telemetry: one row per car per tick, after the tick (tick 1-based, car 0-based):\n"
           "%s\n"
           "The last line on stdout is hash=<16 hex digits>, the final world hash.\n",
           rs_scenario_csv_header());
}

int rs_cmd_run(int argc, char **argv)
{
    const char *path = NULL, *out_path = NULL;
    int trace = 0, quiet = 0;
    static const char *const flags[] = {"--trace", "--quiet", NULL};
    static const char *const options[] = {"--out", NULL};
    rs_cmd_args args = {CMD, help, options, flags, 1, argc, argv, 0, 0};
    const char *a, *v;
    int rc;
    while ((rc = rs_cmd_next(&args, &a, &v)) == RS_CMD_MORE) {
        if (!a)
            path = v;
        else if (strcmp(a, "--out") == 0)
            out_path = v;
        else if (strcmp(a, "--trace") == 0)
            trace = 1;
        else
            quiet = 1; /* --quiet */
    }
    if (rc != RS_CMD_END)
        return rc;
    if (!path)
        return rs_usage_error(CMD, "missing SCENARIO.json");
    if (quiet && (out_path || trace))
        return rs_usage_error(CMD, "--quiet excludes --out and --trace");

    rs_scenario *sc = NULL;
    char err[512];
    rs_status st = rs_scenario_load(path, &sc, err, sizeof err);
    if (st != RS_OK)
        return rs_fail(CMD, "%s", err);

    rs_scenario_output out = {NULL, NULL};
    FILE *f = NULL;
    if (out_path) {
        if (!(f = fopen(out_path, "w"))) {
            rs_scenario_destroy(sc);
            return rs_fail(CMD, "cannot write %s: %s", out_path, strerror(errno));
        }
        out.telemetry = f;
    } else if (!quiet && !trace) {
        out.telemetry = stdout;
    }
    if (trace)
        out.trace = stdout;

    uint64_t hash = 0;
    st = rs_scenario_run(sc, &out, &hash, err, sizeof err);
    rs_scenario_destroy(sc);
    if (f && fclose(f) != 0 && st == RS_OK) {
        snprintf(err, sizeof err, "error writing %s", out_path);
        st = RS_ERR_IO;
    }
    if (st != RS_OK)
        return rs_fail(CMD, "%s: %s", path, err);
    char line[32];
    rs_hash_line(hash, line);
    printf("%s\n", line);
    if (fflush(stdout) != 0)
        return rs_fail(CMD, "error writing stdout");
    return RS_EXIT_OK;
}
