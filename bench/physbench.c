/*
 * physbench: how many cars one core can step in real time.
 *
 * Steps N cars (both shipped definitions, alternating) through scripted
 * driving on the flat plane - full-throttle runs, weaving, braking, each car
 * on its own phase of the program (see script()) - spread 200 m apart so
 * they never meet, and times rs_world_step alone on the monotonic clock (rs_clock_ns)
 * (setting inputs and reading states is outside the timed region). One JSON object per
 * line per car count, medians over the repeats:
 *
 *   {"cars":N,"ticks":T,"substeps":S,"ns_per_car_tick":..,"min_ns_per_car_tick":..,
 *    "realtime_cars_per_core":1e9/(tick_hz*ns_per_car_tick),"allocations_during_steps":0,
 *    "final_mean_speed_m_s":..}
 *
 * With --race TRACK it runs the race-on-track case instead (race_case.c):
 * AI cars on one track with barriers, timing and car-vs-car collisions, and
 * the share of the step those cost.
 *
 * It also checks, once per car count and untimed, that stepping allocates
 * nothing: malloc, calloc, realloc, aligned_alloc and posix_memalign are
 * wrapped at link time (-Wl,--wrap=..., bench/CMakeLists.txt) and counted
 * while a world steps. A non-zero count fails the run (exit 1).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "maneuvers.h"
#include "ground_case.h"
#include "race_case.h"
#include "racesim/physics.h"
#include "racesim/track.h"
#include "racesim/base/cli.h"
#include "racesim/base/clock.h"
#include "racesim/base/stats.h"
/* The allocation counter the tests use too. */
#include "racesim/base/alloc_count.h"

/* ------------------------------------------------ allocation counting */

#if RS_BENCH_WRAP_MALLOC
#define ALLOC_CHECKED 1
ALLOC_COUNT_WRAP_MALLOC_CALLOC_REALLOC
ALLOC_COUNT_WRAP(void *, aligned_alloc, (size_t align, size_t n), (align, n))
ALLOC_COUNT_WRAP(int, posix_memalign, (void **p, size_t align, size_t n), (p, align, n))
#else
#define ALLOC_CHECKED 0 /* no --wrap on this platform: reported as null */
#endif

/* ------------------------------------------------------------- driving */

/* Triangle wave in [-amp, amp] with period `period` ticks. */
static int32_t triangle(uint64_t t, uint32_t period, int32_t amp)
{
    int64_t ph = (int64_t)(t % period);
    int64_t v = ph * 4 * amp / (int64_t)period;
    if (v > 2 * amp)
        v = 4 * amp - v;
    return (int32_t)(v - amp);
}

/* Car i's scripted driving for tick t: a 20 s program (full-throttle runs,
 * braking, part-throttle weaving, coasting), each car at its own phase and
 * with its own steering period and amplitude. The program is a driver, not
 * a robot: the steering asks for at most a_lat_max of lateral acceleration
 * at the current speed (curvature a / v^2), and the throttle is cut while a
 * driven wheel spins beyond 15% slip, so the cars drive rather than spin.
 * Reading the state happens outside the timed region. */
static rs_input script(const rs_car_params *car, const rs_car_state *st, uint32_t i, uint64_t tick,
                       uint32_t hz)
{
    rs_input in;
    uint64_t t = tick + (uint64_t)i * 37u * hz / 10u;
    uint64_t sec = (t / hz) % 20u;
    double wave = (double)triangle(t, hz * (3u + i % 5u), 1000) / 1000.0; /* -1..1 */
    double a_lat_max = 2.0 + (double)(i % 7u) * 0.8;                      /* m/s^2 */
    double v = st->speed_m_s > 4.0 ? st->speed_m_s : 4.0;
    double steer = rs_mv_steer_for_curvature(car, wave * a_lat_max / (v * v));
    double throttle = 0.0, brake = 0.0;
    if (sec < 8) {
        throttle = 0.8 + (double)(i % 5u) * 0.05;
    } else if (sec < 11) {
        brake = 0.3 + (double)((i * 13u) % 7u) * 0.1;
        steer *= 0.5;
    } else if (sec < 17) {
        throttle = 0.4 + (double)((i * 29u) % 6u) * 0.1;
    } else {
        brake = sec == 19 ? 1.0 : 0.0;
    }
    for (int w = 0; w < 4; w++)
        if (st->wheels[w].slip_ratio > 0.15)
            throttle = 0.0;
    in = rs_input_quantise(steer, throttle, brake, 0.0, 0.0);
    in.gear = RS_GEAR_KEEP;
    return in;
}

typedef struct bench_cfg {
    uint32_t ticks, repeat, substeps;
    rs_car_params *params[2];
} bench_cfg;

static rs_status build(const bench_cfg *cfg, uint32_t n, rs_world **out)
{
    rs_world_def def = rs_world_default();
    rs_status st;
    uint32_t side = 1;
    while (side * side < n)
        side++;
    def.max_cars = n;
    def.substeps = cfg->substeps;
    if ((st = rs_world_create(&def, out)) != RS_OK)
        return st;
    for (uint32_t i = 0; i < n; i++) {
        rs_car_spawn sp = rs_car_spawn_default();
        sp.pos_m[0] = 200.0 * (double)(i % side);
        sp.pos_m[1] = 200.0 * (double)(i / side);
        sp.pos_m[2] = 0.0;
        sp.yaw_rad = 0.5 * (double)(i % 13u);
        sp.speed_m_s = (double)(i % 5u) * 5.0;
        sp.gear = (int8_t)(i % 5u == 0 ? 1 : 2);
        sp.transmission = RS_TRANSMISSION_AUTO;
        sp.clutch_mode = RS_CLUTCH_AUTO;
        if ((st = rs_world_add_car(*out, cfg->params[i % 2u], &sp, NULL)) != RS_OK) {
            rs_world_destroy(*out);
            *out = NULL;
            return st;
        }
    }
    return RS_OK;
}

static void set_inputs(const bench_cfg *cfg, rs_world *w, uint32_t n, uint64_t tick, uint32_t hz)
{
    for (uint32_t i = 0; i < n; i++) {
        rs_car_id id = {(uint16_t)(i + 1)};
        rs_car_state st;
        rs_world_car_state(w, id, &st);
        rs_input in = script(cfg->params[i % 2u], &st, i, tick, hz);
        rs_world_set_input(w, id, &in);
    }
}

/* Runs one car count; prints its JSON line. Returns the exit status. */
static int bench(const bench_cfg *cfg, uint32_t n)
{
    rs_world *w = NULL;
    rs_status st;
    uint32_t hz = rs_world_default().tick_hz;
    double *samples = calloc(cfg->repeat, sizeof *samples);
    if (!samples) {
        fprintf(stderr, "physbench: out of memory\n");
        return 1;
    }

    /* The allocation check, untimed: 2 s of driving with counting on. */
    if ((st = build(cfg, n, &w)) != RS_OK) {
        fprintf(stderr, "physbench: cannot build a world of %u cars: %s\n", n, rs_status_str(st));
        free(samples);
        return 1;
    }
    alloc_count = 0;
    for (uint64_t t = 0; t < 2u * hz && st == RS_OK; t++) {
        set_inputs(cfg, w, n, t, hz);
        alloc_counting = 1;
        st = rs_world_step(w);
        alloc_counting = 0;
    }
    unsigned long allocs = alloc_count;
    rs_world_destroy(w);
    if (st != RS_OK) {
        fprintf(stderr, "physbench: step failed during the allocation check: %s\n", rs_status_str(st));
        free(samples);
        return 1;
    }

    double mean_speed = 0.0;
    for (uint32_t r = 0; r < cfg->repeat; r++) {
        if ((st = build(cfg, n, &w)) != RS_OK) {
            fprintf(stderr, "physbench: cannot build a world: %s\n", rs_status_str(st));
            free(samples);
            return 1;
        }
        int64_t total = 0;
        for (uint64_t t = 0; t < cfg->ticks; t++) {
            set_inputs(cfg, w, n, t, hz);
            int64_t t0 = rs_clock_ns();
            st = rs_world_step(w);
            total += rs_clock_ns() - t0;
            if (st != RS_OK)
                break;
        }
        if (st == RS_OK && r + 1 == cfg->repeat) {
            /* Evidence that the cars drive: their mean speed at the end. */
            mean_speed = 0.0;
            for (uint32_t i = 0; i < n; i++) {
                rs_car_state cs;
                rs_world_car_state(w, (rs_car_id){(uint16_t)(i + 1)}, &cs);
                mean_speed += cs.speed_m_s / n;
            }
        }
        rs_world_destroy(w);
        if (st != RS_OK) {
            fprintf(stderr, "physbench: %u cars: step failed: %s\n", n, rs_status_str(st));
            free(samples);
            return 1;
        }
        samples[r] = (double)total / ((double)n * (double)cfg->ticks);
    }
    double median = rs_median(samples, cfg->repeat); /* sorts them: samples[0] is the least */
    char allocs_text[32];
    if (ALLOC_CHECKED)
        snprintf(allocs_text, sizeof allocs_text, "%lu", allocs);
    else
        snprintf(allocs_text, sizeof allocs_text, "null");
    printf("{\"cars\":%u,\"ticks\":%u,\"substeps\":%u,\"repeat\":%u,\"ns_per_car_tick\":%.1f,"
           "\"min_ns_per_car_tick\":%.1f,\"realtime_cars_per_core\":%.0f,"
           "\"allocations_during_steps\":%s,\"final_mean_speed_m_s\":%.1f}\n",
           n, cfg->ticks, cfg->substeps, cfg->repeat, median, samples[0], 1e9 / (hz * median),
           allocs_text, mean_speed);
    fflush(stdout);
    free(samples);
    if (allocs != 0) {
        fprintf(stderr, "physbench: rs_world_step allocated %lu times with %u cars\n", allocs, n);
        return 1;
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: physbench [--cars N] [--ticks T] [--repeat R] [--substeps S] [--data DIR]\n"
               "                 [--race TRACK.json | --ground TRACK.json]\n"
               "\n"
               "Times rs_world_step for N cars (default: N = 1, 16, 256 and 4096 in turn)\n"
               "over T ticks (default 600 = 10 s), R times (default 3), and prints one JSON\n"
               "line per N with the median and minimum nanoseconds per car per tick.\n"
               "Fails if stepping allocates. DIR holds cars/c5.json and cars/formula.json\n"
               "(default %s).\n"
               "\n"
               "--race TRACK.json: N AI cars (default 16) race on the track with barriers,\n"
               "timing and car-vs-car collisions; their recorded inputs are replayed in a\n"
               "full, a ghost (no car-vs-car) and a surface-only world, and one JSON line\n"
               "reports each one's median cost and the collision share.\n"
               "--ground TRACK.json: the median cost of one track ground lookup, on the\n"
               "track and on the run-off.\n",
            RS_DATA_DIR);
}

int main(int argc, char **argv)
{
    bench_cfg cfg = {600, 3, rs_world_default().substeps, {NULL, NULL}};
    uint32_t one = 0;
    const char *data = RS_DATA_DIR, *race_track = NULL, *ground_track = NULL;

    const rs_cli_opt opts[] = {
        {"--cars", &one, 1, 65535, NULL},
        {"--ticks", &cfg.ticks, 1, 10000000, NULL},
        {"--repeat", &cfg.repeat, 1, 1000, NULL},
        {"--substeps", &cfg.substeps, 1, 64, NULL},
        {"--data", NULL, 0, 0, &data},
        {"--race", NULL, 0, 0, &race_track},
        {"--ground", NULL, 0, 0, &ground_track},
    };
    int rc = rs_cli_parse_opts("physbench", argc, argv, opts, sizeof opts / sizeof opts[0], usage);
    if (rc >= 0)
        return rc;
    rc = 0;

    static const char *files[2] = {"cars/c5.json", "cars/formula.json"};
    for (int k = 0; k < 2; k++) {
        char path[1024], err[512];
        snprintf(path, sizeof path, "%s/%s", data, files[k]);
        rs_status st = rs_car_params_load(path, &cfg.params[k], err, sizeof err);
        if (st != RS_OK) {
            fprintf(stderr, "physbench: %s\n", err);
            rs_car_params_destroy(cfg.params[0]);
            return 1;
        }
    }

    static const uint32_t counts[] = {1, 16, 256, 4096};
    const char *track_path = ground_track ? ground_track : race_track;
    if (track_path) {
        char err[512];
        rs_track *track = NULL;
        if (rs_track_load(track_path, &track, err, sizeof err) != RS_OK) {
            fprintf(stderr, "physbench: %s\n", err);
            rc = 1;
        } else if (ground_track) {
            rc = rs_bench_ground(track, cfg.repeat);
        } else {
            race_bench rb = {track,      {cfg.params[0], cfg.params[1]}, one ? one : 16,
                             cfg.ticks,  cfg.repeat, &alloc_counting, &alloc_count, ALLOC_CHECKED};
            rc = rs_bench_race(&rb);
        }
        rs_track_destroy(track);
    } else if (one)
        rc = bench(&cfg, one);
    else
        for (size_t k = 0; k < sizeof counts / sizeof counts[0] && rc == 0; k++)
            rc = bench(&cfg, counts[k]);
    rs_car_params_destroy(cfg.params[0]);
    rs_car_params_destroy(cfg.params[1]);
    return rc;
}
