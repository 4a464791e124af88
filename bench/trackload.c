/*
 * trackload: what loading a track costs (rs_track_load: reading and parsing
 * the JSON, every check, the derived geometry and the lookup grids, then
 * rs_track_destroy). A client loads the track when a race starts, so this is
 * a stall it sees (docs/TRACKS.md).
 *
 * Each track file given (default: the shipped oval, technical and grand) is
 * loaded W times untimed to warm the caches, then N times, each load timed
 * alone on the monotonic clock (rs_clock_ns). One JSON object per track:
 *
 *   {"bench":"trackload","track":NAME,"file":PATH,"points":..,"loads":N,"warmup":W,
 *    "median_ms":..,"min_ms":..,"max_ms":..}
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/physics.h"
#include "racesim/track.h"
#include "racesim/base/cli.h"
#include "racesim/base/clock.h"
#include "racesim/base/stats.h"

static const char *const default_tracks[] = {"oval", "technical", "grand"};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: trackload [--loads N] [--warmup W] [TRACK.json ...]\n"
            "Times rs_track_load (and rs_track_destroy) of each track file: W untimed loads\n"
            "(default 2), then N timed ones (default 20); prints the median and least ms per\n"
            "load as one JSON line per track (default: %s/tracks/{oval,technical,grand}.json).\n",
            RS_DATA_DIR);
}

/* A string as a JSON string's contents (paths may hold quotes or
 * backslashes; control characters are left out). */
static void put_json_text(const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            putchar('\\');
        if ((unsigned char)*s >= 0x20)
            putchar(*s);
    }
}

/* Times one track; false (after saying why) when it does not load. */
static bool time_track(const char *path, uint32_t loads, uint32_t warmup, double *ms)
{
    char err[512], name[128] = "";
    uint32_t points = 0;
    for (uint32_t r = 0; r < warmup + loads; r++) {
        rs_track *t = NULL;
        int64_t t0 = rs_clock_ns();
        rs_status st = rs_track_load(path, &t, err, sizeof err);
        if (st == RS_OK && r == 0) {
            snprintf(name, sizeof name, "%s", rs_track_name(t));
            points = rs_track_point_count(t);
        }
        rs_track_destroy(t);
        int64_t t1 = rs_clock_ns();
        if (st != RS_OK) {
            rs_fail(NULL, "%s", err);
            return false;
        }
        if (r >= warmup)
            ms[r - warmup] = (double)(t1 - t0) / 1e6;
    }
    double med = rs_median(ms, loads); /* sorts ms */
    printf("{\"bench\":\"trackload\",\"track\":\"");
    put_json_text(name);
    printf("\",\"file\":\"");
    put_json_text(path);
    printf("\",\"points\":%u,\"loads\":%u,\"warmup\":%u,\"median_ms\":%.3f,\"min_ms\":%.3f,"
           "\"max_ms\":%.3f}\n",
           points, loads, warmup, med, ms[0], ms[loads - 1]);
    fflush(stdout);
    return true;
}

int main(int argc, char **argv)
{
    uint32_t loads = 20, warmup = 2;
    const rs_cli_opt opts[] = {
        {"--loads", &loads, 1, 1000000, NULL},
        {"--warmup", &warmup, 0, 1000000, NULL},
    };
    /* The options come first (each takes a value), then the track files. */
    int first = 1;
    while (first < argc && argv[first][0] == '-' && argv[first][1] != '\0')
        first += rs_is_help(argv[first]) ? 1 : 2;
    if (first > argc)
        first = argc;
    int prc = rs_cli_parse_opts("trackload", first, argv, opts, sizeof opts / sizeof opts[0],
                                usage);
    if (prc >= 0)
        return prc;

    double *ms = malloc(loads * sizeof *ms);
    if (!ms)
        return rs_fail(NULL, "out of memory");
    int rc = RS_EXIT_OK;
    if (first < argc) {
        for (int i = first; i < argc && rc == RS_EXIT_OK; i++)
            if (!time_track(argv[i], loads, warmup, ms))
                rc = RS_EXIT_FAIL;
    } else {
        for (size_t i = 0; i < sizeof default_tracks / sizeof *default_tracks; i++) {
            char path[1024];
            snprintf(path, sizeof path, "%s/tracks/%s.json", RS_DATA_DIR, default_tracks[i]);
            if (!time_track(path, loads, warmup, ms)) {
                rc = RS_EXIT_FAIL;
                break;
            }
        }
    }
    free(ms);
    return rc;
}
