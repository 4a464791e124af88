/*
 * rollbench: what a client's rollback costs. A 16-car race on the technical
 * track (every car the stock c5, as a room runs it) is driven by the AI for
 * a while so the state is a real race (cars spread, braking, turning,
 * touching), then a client's predictor (client_sdk's rs_predict) runs 15
 * ticks ahead of a "server" world that keeps racing with the AI. Each round
 * the server steps one tick and the predictor confirms it with inputs that
 * differ from its prediction, so the next rs_predict_advance_to restores the
 * confirmed snapshot and re-simulates exactly 15 ticks of 16 cars: that
 * call is timed. The server's hash rides with every confirmation, so the
 * bench also proves the re-simulation is exact (any desync fails it).
 *
 * Why a second world: the confirmations must carry the inputs the server
 * really used, from the true state, or the race would drift into nonsense
 * within a few hundred rounds. If all 16 AI inputs of a tick happen to
 * equal the previous tick's (which the predictor assumes for remote cars),
 * one car's steering is nudged by one step, on the server too, so every
 * round is a full-depth rollback.
 *
 * Prints one JSON object and one human line (docs/PERFORMANCE.md, "Rollback").
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "racesim/driver.h"
#include "racesim/physics.h"
#include "racesim/predict.h"
#include "racesim/track.h"
#include "racesim/base/cli.h"
#include "racesim/base/clock.h"
#include "racesim/base/stats.h"
/* The option table the other benchmarks use too (tests/support). */

#define CARS 16u
#define DEPTH 15u

static rs_car_id car_of(uint32_t i)
{
    return (rs_car_id){(uint16_t)(i + 1)};
}

static bool inputs_equal(const rs_input *a, const rs_input *b)
{
    return a->steer == b->steer && a->throttle == b->throttle && a->brake == b->brake &&
           a->clutch == b->clutch && a->handbrake == b->handbrake && a->gear == b->gear &&
           a->buttons == b->buttons;
}

static rs_status build_world(const rs_track *track, const rs_car_params *car, rs_world **out)
{
    rs_world_def def = rs_world_default();
    def.max_cars = CARS;
    def.track = track;
    def.laps = 100;
    def.start_tick = 0;
    rs_status st = rs_world_create(&def, out);
    for (uint32_t i = 0; st == RS_OK && i < CARS; i++) {
        rs_car_spawn sp;
        if (!rs_track_grid_slot(track, i, &sp))
            st = RS_ERR_ARG;
        else
            st = rs_world_add_car(*out, car, &sp, NULL);
    }
    if (st != RS_OK) {
        rs_world_destroy(*out);
        *out = NULL;
    }
    return st;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rollbench [--rounds N] [--warmup-s S] [--track FILE] [--car FILE]\n"
            "Times client rollbacks of %u ticks in a %u-car race (default 200 rounds after\n"
            "20 s of AI racing on %s/tracks/technical.json with cars/c5.json).\n",
            DEPTH, CARS, RS_DATA_DIR);
}

int main(int argc, char **argv)
{
    uint32_t rounds = 200, warmup_s = 20;
    char track_path[1024], car_path[1024];
    snprintf(track_path, sizeof track_path, "%s/tracks/technical.json", RS_DATA_DIR);
    snprintf(car_path, sizeof car_path, "%s/cars/c5.json", RS_DATA_DIR);
    const char *track_opt = NULL, *car_opt = NULL;
    const rs_cli_opt opts[] = {
        {"--rounds", &rounds, 1, 1000000, NULL},
        {"--warmup-s", &warmup_s, 0, 3600, NULL},
        {"--track", NULL, 0, 0, &track_opt},
        {"--car", NULL, 0, 0, &car_opt},
    };
    int prc = rs_cli_parse_opts("rollbench", argc, argv, opts, sizeof opts / sizeof opts[0], usage);
    if (prc >= 0)
        return prc;
    if (track_opt)
        snprintf(track_path, sizeof track_path, "%s", track_opt);
    if (car_opt)
        snprintf(car_path, sizeof car_path, "%s", car_opt);

    int rc = 1;
    char err[512];
    rs_track *track = NULL;
    rs_car_params *car = NULL;
    rs_racing_line *line = NULL;
    rs_driver *drivers[CARS] = {0};
    rs_world *server = NULL, *client = NULL;
    rs_predict *pred = NULL;
    uint8_t *snap = NULL;
    double *ns = calloc(rounds, sizeof *ns); /* each rollback's time, ns */

    if (!ns)
        goto done;
    if (rs_track_load(track_path, &track, err, sizeof err) != RS_OK ||
        rs_car_params_load(car_path, &car, err, sizeof err) != RS_OK) {
        fprintf(stderr, "rollbench: %s\n", err);
        goto done;
    }
    if (rs_track_grid_count(track) < CARS) {
        fprintf(stderr, "rollbench: %s has fewer than %u grid slots\n", track_path, CARS);
        goto done;
    }
    if (rs_racing_line_build(track, car, NULL, &line) != RS_OK) {
        fprintf(stderr, "rollbench: cannot build a racing line\n");
        goto done;
    }
    for (uint32_t i = 0; i < CARS; i++) {
        rs_driver_options o = rs_driver_options_default();
        o.seed = i + 1;
        if (rs_driver_create(line, &o, &drivers[i]) != RS_OK)
            goto done;
    }

    /* The server's race: the AI drives it to a realistic mid-race state. */
    if (build_world(track, car, &server) != RS_OK) {
        fprintf(stderr, "rollbench: cannot build the race world\n");
        goto done;
    }
    rs_input last[CARS];
    for (uint32_t i = 0; i < CARS; i++)
        last[i] = rs_input_default();
    uint64_t warmup_ticks = (uint64_t)warmup_s * 60u;
    for (uint64_t t = 0; t < warmup_ticks; t++) {
        for (uint32_t i = 0; i < CARS; i++) {
            last[i] = rs_driver_update(drivers[i], server, car_of(i));
            rs_world_set_input(server, car_of(i), &last[i]);
        }
        if (rs_world_step(server) != RS_OK) {
            fprintf(stderr, "rollbench: the race went non-finite\n");
            goto done;
        }
    }

    /* What the state looks like: proof the cars are racing, not parked. */
    double speed_sum = 0.0;
    uint32_t car_hits = 0;
    for (uint32_t i = 0; i < CARS; i++) {
        rs_car_state cs;
        rs_race_car_state rcs;
        rs_world_car_state(server, car_of(i), &cs);
        rs_world_race_state(server, car_of(i), &rcs);
        speed_sum += cs.speed_m_s;
        car_hits += rcs.car_hits;
    }

    /* The client joins with a snapshot of the server's world, as a late
     * joiner would, and predicts with car 1 as its own. */
    size_t snap_len = rs_world_snapshot(server, NULL, 0);
    snap = malloc(snap_len);
    if (!snap || build_world(track, car, &client) != RS_OK)
        goto done;
    rs_world_snapshot(server, snap, snap_len);
    rs_predict_config pc = rs_predict_config_default();
    pc.local_car = car_of(0);
    pc.max_lead_ticks = 64;
    if (rs_world_restore(client, snap, snap_len) != RS_OK ||
        rs_predict_create(client, &pc, &pred) != RS_PREDICT_OK) {
        fprintf(stderr, "rollbench: cannot set up the predictor\n");
        goto done;
    }
    client = NULL; /* the predictor owns it */
    uint64_t t0 = rs_world_tick(server);
    if (rs_predict_reset_snapshot(pred, t0, snap, snap_len, last) != RS_PREDICT_OK)
        goto done;
    /* Run DEPTH ticks ahead, keeping the local car's last input. */
    if (rs_predict_advance_to(pred, t0 + DEPTH) != RS_PREDICT_OK)
        goto done;

    uint32_t nudged = 0;
    rs_predict_stats before, after;
    for (uint32_t r = 0; r < rounds; r++) {
        uint64_t tick = rs_world_tick(server);
        rs_input in[CARS];
        /* Remote cars are predicted to keep their last input; the local
         * car's prediction is whatever the client set, so only remote cars
         * can be relied on to mispredict. */
        bool same = true;
        for (uint32_t i = 0; i < CARS; i++) {
            in[i] = rs_driver_update(drivers[i], server, car_of(i));
            same = same && (i == 0 || inputs_equal(&in[i], &last[i]));
        }
        if (same) {
            in[1].steer = (int16_t)(in[1].steer > 0 ? in[1].steer - 1 : in[1].steer + 1);
            nudged++;
        }
        for (uint32_t i = 0; i < CARS; i++) {
            rs_world_set_input(server, car_of(i), &in[i]);
            last[i] = in[i];
        }
        if (rs_world_step(server) != RS_OK) {
            fprintf(stderr, "rollbench: the race went non-finite\n");
            goto done;
        }
        /* The client's own input for its newest tick, as a game would set it. */
        rs_predict_local_input(pred, tick + DEPTH, &in[0]);
        rs_predict_status ps = rs_predict_confirm(pred, tick, in, true, rs_world_hash(server));
        if (ps != RS_PREDICT_OK) {
            fprintf(stderr, "rollbench: confirm of tick %" PRIu64 ": %s\n", tick,
                    rs_predict_status_str(ps));
            goto done;
        }
        rs_predict_get_stats(pred, 0.0, &before);
        int64_t a = rs_clock_ns();
        ps = rs_predict_advance_to(pred, tick + DEPTH);
        int64_t b = rs_clock_ns();
        rs_predict_get_stats(pred, 0.0, &after);
        if (ps != RS_PREDICT_OK) {
            fprintf(stderr, "rollbench: rollback at tick %" PRIu64 ": %s\n", tick,
                    rs_predict_status_str(ps));
            goto done;
        }
        if (after.resim_steps - before.resim_steps != DEPTH ||
            after.rollbacks != before.rollbacks + 1) {
            fprintf(stderr,
                    "rollbench: round %u re-simulated %" PRIu64 " ticks in %" PRIu64
                    " rollbacks, not %u in 1\n",
                    r, after.resim_steps - before.resim_steps, after.rollbacks - before.rollbacks,
                    DEPTH);
            goto done;
        }
        ns[r] = (double)(b - a);
        /* Keep the lead: predict one more tick (untimed). */
        if (rs_predict_advance_to(pred, tick + 1 + DEPTH) != RS_PREDICT_OK)
            goto done;
    }
    if (after.desyncs != 0 || after.hashes_checked < rounds) {
        fprintf(stderr, "rollbench: %" PRIu64 " desyncs in %" PRIu64 " hash checks\n",
                after.desyncs, after.hashes_checked);
        goto done;
    }

    qsort(ns, rounds, sizeof *ns, rs_cmp_double);
    double med = ns[rounds / 2] / 1e6;
    double p90 = ns[(size_t)((double)(rounds - 1) * 0.9)] / 1e6;
    double mx = ns[rounds - 1] / 1e6;
    double per_car_tick = ns[rounds / 2] / (double)(DEPTH * CARS);
    printf("{\"bench\":\"rollback\",\"track\":\"technical\",\"cars\":%u,\"depth_ticks\":%u,"
           "\"rounds\":%u,\"warmup_s\":%u,\"median_ms\":%.3f,\"p90_ms\":%.3f,\"max_ms\":%.3f,"
           "\"ns_per_car_tick\":%.0f,\"nudged\":%u,\"mean_speed_m_s\":%.1f,\"car_hits\":%u,"
           "\"hashes_checked\":%" PRIu64 ",\"desyncs\":%" PRIu64 ",\"goal_ms\":2.0,\"pass\":%s}\n",
           CARS, DEPTH, rounds, warmup_s, med, p90, mx, per_car_tick, nudged, speed_sum / CARS,
           car_hits, after.hashes_checked, after.desyncs, med < 2.0 ? "true" : "false");
    printf("rollback of %u ticks x %u cars: median %.3f ms, p90 %.3f ms, max %.3f ms "
           "(%.0f ns per car-tick; goal < 2 ms)\n",
           DEPTH, CARS, med, p90, mx, per_car_tick);
    rc = 0;
done:
    rs_predict_destroy(pred);
    rs_world_destroy(client);
    rs_world_destroy(server);
    for (uint32_t i = 0; i < CARS; i++)
        rs_driver_destroy(drivers[i]);
    rs_racing_line_destroy(line);
    rs_car_params_destroy(car);
    rs_track_destroy(track);
    free(snap);
    free(ns);
    return rc;
}
