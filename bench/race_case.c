/*
 * physbench --race TRACK: the race-on-track case. N AI cars on one track
 * with barriers, timing and car-vs-car collisions, and how much of the step
 * the collisions cost.
 *
 * The AI drives once (untimed except for its own cost) and its inputs are
 * recorded; then the same inputs are replayed, timed, in three worlds:
 *   full     the track (surfaces, barriers, timing) and car-vs-car on
 *   ghost    the same with car-vs-car off
 *   surface  only the track's ground lookup: no barriers, no timing, ghost
 * so full - surface is what collisions and timing add, full - ghost the
 * car-vs-car part. Replayed trajectories differ only where cars touched,
 * and the cost per car barely depends on the trajectory. The three modes run
 * interleaved in each of R rounds; costs and shares are medians over rounds.
 */
#define _POSIX_C_SOURCE 200809L

#include "race_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "racesim/driver.h"
#include "racesim/track.h"
#include "racesim/base/clock.h"
#include "racesim/base/stats.h"

enum { MODE_FULL, MODE_GHOST, MODE_SURFACE, MODE_COUNT };
static const char *const mode_names[MODE_COUNT] = {"full", "ghost", "surface"};

/* Where car i starts: the grid while it lasts, then spread around the lap
 * two abreast, rolling at 20 m/s so a big field does not start in a heap. */
static void spawn_of(const rs_track *track, uint32_t i, uint32_t n, rs_car_spawn *sp)
{
    if (n <= rs_track_grid_count(track) && rs_track_grid_slot(track, i, sp))
        return;
    rs_track_sample smp;
    double len = rs_track_length(track);
    uint32_t rows = (n + 1) / 2;
    rs_track_sample_at(track, len * (double)(i / 2) / (double)rows, &smp);
    double side = (i % 2 ? -0.3 : 0.3) * (i % 2 ? smp.width_right_m : smp.width_left_m);
    /* The left normal of heading (cos, sin) is (-sin, cos). Only spawn
     * poses use libm here; the simulation itself never does. */
    double c = cos(smp.heading_rad), s = sin(smp.heading_rad);
    *sp = rs_car_spawn_default();
    sp->pos_m[0] = smp.x_m - s * side;
    sp->pos_m[1] = smp.y_m + c * side;
    sp->yaw_rad = smp.heading_rad;
    sp->speed_m_s = 20.0;
    sp->gear = 2;
}

static rs_status build(const race_bench *rb, int mode, rs_world **out)
{
    rs_world_def def = rs_world_default();
    def.max_cars = rb->cars;
    def.laps = 0;
    if (mode == MODE_SURFACE) {
        def.ground = rs_track_ground;
        def.ground_ctx = rb->track;
    } else {
        def.track = rb->track;
    }
    def.car_collisions = mode == MODE_FULL;
    rs_status st = rs_world_create(&def, out);
    for (uint32_t i = 0; st == RS_OK && i < rb->cars; i++) {
        rs_car_spawn sp;
        spawn_of(rb->track, i, rb->cars, &sp);
        st = rs_world_add_car(*out, rb->params[i % 2u], &sp, NULL);
    }
    if (st != RS_OK) {
        rs_world_destroy(*out);
        *out = NULL;
    }
    return st;
}

int rs_bench_race(const race_bench *rb)
{
    uint32_t n = rb->cars, ticks = rb->ticks;
    rs_input *log = malloc((size_t)n * ticks * sizeof *log);
    rs_racing_line *line[2] = {NULL, NULL};
    rs_driver **drivers = calloc(n, sizeof *drivers);
    rs_world *w = NULL;
    int rc = 1;
    if (!log || !drivers) {
        fprintf(stderr, "physbench: out of memory\n");
        goto done;
    }
    for (int k = 0; k < 2; k++)
        if (rs_racing_line_build(rb->track, rb->params[k], NULL, &line[k]) != RS_OK) {
            fprintf(stderr, "physbench: cannot build a racing line\n");
            goto done;
        }
    for (uint32_t i = 0; i < n; i++) {
        rs_driver_options o = rs_driver_options_default();
        o.seed = i + 1;
        if (rs_driver_create(line[i % 2u], &o, &drivers[i]) != RS_OK) {
            fprintf(stderr, "physbench: cannot create a driver\n");
            goto done;
        }
    }

    /* Record: the AI drives the full world; its own cost is timed. */
    if (build(rb, MODE_FULL, &w) != RS_OK) {
        fprintf(stderr, "physbench: cannot build the race world\n");
        goto done;
    }
    int64_t ai_ns = 0;
    *rb->allocs = 0;
    uint64_t barrier_hits = 0, car_hits = 0;
    for (uint32_t t = 0; t < ticks; t++) {
        int64_t t0 = rs_clock_ns();
        for (uint32_t i = 0; i < n; i++)
            log[(size_t)t * n + i] = rs_driver_update(drivers[i], w, (rs_car_id){(uint16_t)(i + 1)});
        ai_ns += rs_clock_ns() - t0;
        for (uint32_t i = 0; i < n; i++)
            rs_world_set_input(w, (rs_car_id){(uint16_t)(i + 1)}, &log[(size_t)t * n + i]);
        *rb->counting = 1;
        rs_status step = rs_world_step(w);
        *rb->counting = 0;
        if (step != RS_OK) {
            fprintf(stderr, "physbench: the race went non-finite at tick %u\n", t);
            goto done;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        rs_race_car_state rs;
        rs_world_race_state(w, (rs_car_id){(uint16_t)(i + 1)}, &rs);
        barrier_hits += rs.barrier_hits;
        car_hits += rs.car_hits;
    }
    rs_world_destroy(w);
    w = NULL;
    unsigned long allocs = *rb->allocs;
    char allocs_text[32];
    if (rb->alloc_checked)
        snprintf(allocs_text, sizeof allocs_text, "%lu", allocs);
    else
        snprintf(allocs_text, sizeof allocs_text, "null");

    /* Replay, timed, the modes interleaved within each repeat so the
     * machine's drifts hit them alike; shares are medians of per-repeat
     * ratios. */
    double *ms = malloc((size_t)MODE_COUNT * rb->repeat * sizeof *ms);
    double *share = malloc(2u * rb->repeat * sizeof *share);
    if (!ms || !share) {
        free(ms);
        free(share);
        goto done;
    }
    for (uint32_t r = 0; r < rb->repeat; r++)
        for (int m = 0; m < MODE_COUNT; m++) {
            if (build(rb, m, &w) != RS_OK) {
                free(ms);
                free(share);
                goto done;
            }
            int64_t total = 0;
            for (uint32_t t = 0; t < ticks; t++) {
                for (uint32_t i = 0; i < n; i++)
                    rs_world_set_input(w, (rs_car_id){(uint16_t)(i + 1)}, &log[(size_t)t * n + i]);
                int64_t t0 = rs_clock_ns();
                rs_status st = rs_world_step(w);
                total += rs_clock_ns() - t0;
                if (st != RS_OK) {
                    fprintf(stderr, "physbench: replay (%s) failed: %s\n", mode_names[m],
                            rs_status_str(st));
                    free(ms);
                    free(share);
                    goto done;
                }
            }
            rs_world_destroy(w);
            w = NULL;
            ms[m * rb->repeat + r] = (double)total / ((double)n * (double)ticks);
        }
    for (uint32_t r = 0; r < rb->repeat; r++) {
        double f = ms[MODE_FULL * rb->repeat + r];
        share[r] = (f - ms[MODE_SURFACE * rb->repeat + r]) / f;
        share[rb->repeat + r] = (f - ms[MODE_GHOST * rb->repeat + r]) / f;
    }
    double ns[MODE_COUNT];
    for (int m = 0; m < MODE_COUNT; m++)
        ns[m] = rs_median(&ms[m * rb->repeat], rb->repeat);
    double share_all = rs_median(share, rb->repeat);
    double share_cars = rs_median(share + rb->repeat, rb->repeat);
    free(ms);
    free(share);
    double full = ns[MODE_FULL];
    printf("{\"case\":\"race\",\"track\":\"%s\",\"cars\":%u,\"ticks\":%u,\"repeat\":%u,"
           "\"ns_per_car_tick\":%.1f,\"ghost_ns_per_car_tick\":%.1f,"
           "\"surface_only_ns_per_car_tick\":%.1f,\"collision_and_timing_share\":%.3f,"
           "\"car_vs_car_share\":%.3f,\"ai_ns_per_car_tick\":%.1f,"
           "\"realtime_cars_per_core\":%.0f,\"allocations_during_steps\":%s,"
           "\"barrier_hits\":%llu,\"car_hits\":%llu}\n",
           rs_track_name(rb->track), n, ticks, rb->repeat, full, ns[MODE_GHOST],
           ns[MODE_SURFACE], share_all, share_cars,
           (double)ai_ns / ((double)n * (double)ticks), 1e9 / (60.0 * full), allocs_text,
           (unsigned long long)barrier_hits, (unsigned long long)car_hits);
    fflush(stdout);
    rc = 0;
    if (allocs != 0) {
        fprintf(stderr, "physbench: rs_world_step allocated %lu times in the race\n", allocs);
        rc = 1;
    }
done:
    rs_world_destroy(w);
    if (drivers)
        for (uint32_t i = 0; i < n; i++)
            rs_driver_destroy(drivers[i]);
    free(drivers);
    rs_racing_line_destroy(line[0]);
    rs_racing_line_destroy(line[1]);
    free(log);
    return rc;
}
