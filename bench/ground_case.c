/*
 * physbench --ground TRACK: the cost of one rs_track_ground call, the lookup
 * every wheel makes every substep. Points are spread over the lap: for each
 * of 4096 stations, offsets across the asphalt and the kerbs (on track) and
 * out on the run-off to the barriers (off track), looked up in a fixed order.
 * Prints one JSON line with the median ns per call of each set over R rounds.
 */
#define _POSIX_C_SOURCE 200809L

#include "ground_case.h"
#include "racesim/base/clock.h"
#include "racesim/base/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define STATIONS 4096
#define OFFSETS 8

/* Points at fractions of the half-width: on track (within 0.95 of the edge)
 * or on the run-off (1.3 to 2.5 times the half-width out). */
static void fill(const rs_track *t, int off_track, double *xy)
{
    static const double on[OFFSETS] = {-0.95, -0.7, -0.4, -0.1, 0.1, 0.4, 0.7, 0.95};
    static const double off[OFFSETS] = {-2.5, -2.0, -1.6, -1.3, 1.3, 1.6, 2.0, 2.5};
    double len = rs_track_length(t);
    for (int i = 0; i < STATIONS; i++) {
        rs_track_sample s;
        rs_track_sample_at(t, len * i / STATIONS, &s);
        double nx = -sin(s.heading_rad), ny = cos(s.heading_rad); /* left normal */
        for (int k = 0; k < OFFSETS; k++) {
            double f = off_track ? off[k] : on[k];
            double w = f > 0 ? s.width_left_m : s.width_right_m;
            double d = f * w;
            xy[2 * (i * OFFSETS + k)] = s.x_m + nx * d;
            xy[2 * (i * OFFSETS + k) + 1] = s.y_m + ny * d;
        }
    }
}

int rs_bench_ground(const rs_track *track, uint32_t repeat)
{
    size_t n = (size_t)STATIONS * OFFSETS;
    double *xy = malloc(2 * n * sizeof *xy);
    double *samples = malloc(repeat * sizeof *samples);
    double med[2];
    unsigned checksum = 0; /* keeps the calls from being optimised away */
    if (!xy || !samples) {
        free(xy);
        free(samples);
        fprintf(stderr, "physbench: out of memory\n");
        return 1;
    }
    for (int set = 0; set < 2; set++) {
        fill(track, set, xy);
        for (uint32_t r = 0; r < repeat; r++) {
            int64_t t0 = rs_clock_ns();
            for (int pass = 0; pass < 10; pass++)
                for (size_t i = 0; i < n; i++) {
                    rs_ground_hit hit;
                    rs_track_ground(track, xy[2 * i], xy[2 * i + 1], &hit);
                    checksum += hit.surface + (hit.inside_limits ? 1u : 0u);
                }
            samples[r] = (double)(rs_clock_ns() - t0) / (10.0 * (double)n);
        }
        med[set] = rs_median(samples, repeat);
    }
    printf("{\"case\":\"ground\",\"track\":\"%s\",\"points\":%zu,\"repeat\":%u,"
           "\"on_track_ns_per_call\":%.1f,\"run_off_ns_per_call\":%.1f,\"checksum\":%u}\n",
           rs_track_name(track), n, repeat, med[0], med[1], checksum);
    fflush(stdout);
    free(xy);
    free(samples);
    return 0;
}
