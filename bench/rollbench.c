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

/* What the stages share: the options, what they build and what they measure. */
typedef struct bench {
    uint32_t rounds, warmup_s;
    char track_path[1024], car_path[1024];
    rs_track *track;
    rs_car_params *car;
    rs_racing_line *line;
    rs_driver *drivers[CARS];
    rs_world *server;
    rs_predict *pred; /* owns the client's world */
    uint8_t *snap;
    double *ns;          /* each rollback's time, ns */
    rs_input last[CARS]; /* the inputs the server used last */
    double speed_sum;    /* at the end of the warm-up, over all cars */
    uint32_t car_hits;
    uint32_t nudged;
    rs_predict_stats stats; /* the predictor's, after the last round */
} bench;

/* Fills the options from the command line. Returns -1 to go on, else the
 * exit status. */
static int parse_args(int argc, char **argv, bench *b)
{
    b->rounds = 200;
    b->warmup_s = 20;
    snprintf(b->track_path, sizeof b->track_path, "%s/tracks/technical.json", RS_DATA_DIR);
    snprintf(b->car_path, sizeof b->car_path, "%s/cars/c5.json", RS_DATA_DIR);
    const char *track_opt = NULL, *car_opt = NULL;
    const rs_cli_opt opts[] = {
        {"--rounds", &b->rounds, 1, 1000000, NULL},
        {"--warmup-s", &b->warmup_s, 0, 3600, NULL},
        {"--track", NULL, 0, 0, &track_opt},
        {"--car", NULL, 0, 0, &car_opt},
    };
    int prc = rs_cli_parse_opts("rollbench", argc, argv, opts, sizeof opts / sizeof opts[0], usage);
    if (prc >= 0)
        return prc;
    if (track_opt)
        snprintf(b->track_path, sizeof b->track_path, "%s", track_opt);
    if (car_opt)
        snprintf(b->car_path, sizeof b->car_path, "%s", car_opt);
    return -1;
}

/* The track, the car, the racing line and one AI driver per car. */
static bool load_race(bench *b)
{
    char err[512];
    b->ns = calloc(b->rounds, sizeof *b->ns);
    if (!b->ns)
        return false;
    if (rs_track_load(b->track_path, &b->track, err, sizeof err) != RS_OK ||
        rs_car_params_load(b->car_path, &b->car, err, sizeof err) != RS_OK) {
        fprintf(stderr, "rollbench: %s\n", err);
        return false;
    }
    if (rs_track_grid_count(b->track) < CARS) {
        fprintf(stderr, "rollbench: %s has fewer than %u grid slots\n", b->track_path, CARS);
        return false;
    }
    if (rs_racing_line_build(b->track, b->car, NULL, &b->line) != RS_OK) {
        fprintf(stderr, "rollbench: cannot build a racing line\n");
        return false;
    }
    for (uint32_t i = 0; i < CARS; i++) {
        rs_driver_options o = rs_driver_options_default();
        o.seed = i + 1;
        if (rs_driver_create(b->line, &o, &b->drivers[i]) != RS_OK)
            return false;
    }
    return true;
}

/* One tick of the server's race with the inputs already set. */
static bool step_server(bench *b)
{
    if (rs_world_step(b->server) != RS_OK) {
        fprintf(stderr, "rollbench: the race went non-finite\n");
        return false;
    }
    return true;
}

/* The server's race: the AI drives it to a realistic mid-race state. */
static bool warm_up(bench *b)
{
    if (build_world(b->track, b->car, &b->server) != RS_OK) {
        fprintf(stderr, "rollbench: cannot build the race world\n");
        return false;
    }
    for (uint32_t i = 0; i < CARS; i++)
        b->last[i] = rs_input_default();
    uint64_t warmup_ticks = (uint64_t)b->warmup_s * 60u;
    for (uint64_t t = 0; t < warmup_ticks; t++) {
        for (uint32_t i = 0; i < CARS; i++) {
            b->last[i] = rs_driver_update(b->drivers[i], b->server, car_of(i));
            rs_world_set_input(b->server, car_of(i), &b->last[i]);
        }
        if (!step_server(b))
            return false;
    }
    return true;
}

/* What the state looks like: proof the cars are racing, not parked. */
static void describe_race(bench *b)
{
    for (uint32_t i = 0; i < CARS; i++) {
        rs_car_state cs;
        rs_race_car_state rcs;
        rs_world_car_state(b->server, car_of(i), &cs);
        rs_world_race_state(b->server, car_of(i), &rcs);
        b->speed_sum += cs.speed_m_s;
        b->car_hits += rcs.car_hits;
    }
}

/* The client joins with a snapshot of the server's world, as a late
 * joiner would, and predicts with car 1 as its own, DEPTH ticks ahead. */
static bool join_client(bench *b)
{
    rs_world *client = NULL;
    size_t snap_len = rs_world_snapshot(b->server, NULL, 0);
    b->snap = malloc(snap_len);
    if (!b->snap || build_world(b->track, b->car, &client) != RS_OK)
        return false;
    rs_world_snapshot(b->server, b->snap, snap_len);
    rs_predict_config pc = rs_predict_config_default();
    pc.local_car = car_of(0);
    pc.max_lead_ticks = 64;
    if (rs_world_restore(client, b->snap, snap_len) != RS_OK ||
        rs_predict_create(client, &pc, &b->pred) != RS_PREDICT_OK) {
        fprintf(stderr, "rollbench: cannot set up the predictor\n");
        rs_world_destroy(client); /* on error the caller keeps it */
        return false;
    }
    /* The predictor owns the client's world from here on. */
    uint64_t t0 = rs_world_tick(b->server);
    if (rs_predict_reset_snapshot(b->pred, t0, b->snap, snap_len, b->last) != RS_PREDICT_OK)
        return false;
    /* Run DEPTH ticks ahead, keeping the local car's last input. */
    return rs_predict_advance_to(b->pred, t0 + DEPTH) == RS_PREDICT_OK;
}

/* The server's next tick with the AI's inputs, which the client must
 * mispredict: in[] receives the inputs the server used. */
static bool server_tick(bench *b, rs_input in[CARS])
{
    /* Remote cars are predicted to keep their last input; the local
     * car's prediction is whatever the client set, so only remote cars
     * can be relied on to mispredict. */
    bool same = true;
    for (uint32_t i = 0; i < CARS; i++) {
        in[i] = rs_driver_update(b->drivers[i], b->server, car_of(i));
        same = same && (i == 0 || inputs_equal(&in[i], &b->last[i]));
    }
    if (same) {
        in[1].steer = (int16_t)(in[1].steer > 0 ? in[1].steer - 1 : in[1].steer + 1);
        b->nudged++;
    }
    for (uint32_t i = 0; i < CARS; i++) {
        rs_world_set_input(b->server, car_of(i), &in[i]);
        b->last[i] = in[i];
    }
    return step_server(b);
}

/* Round r: the client confirms the server's tick with in[] and the timed
 * advance re-simulates DEPTH ticks in one rollback; then the client
 * predicts one tick more to keep its lead. */
static bool time_rollback(bench *b, uint32_t r, uint64_t tick, rs_input in[CARS])
{
    rs_predict_stats before;
    /* The client's own input for its newest tick, as a game would set it. */
    rs_predict_local_input(b->pred, tick + DEPTH, &in[0]);
    rs_predict_status ps = rs_predict_confirm(b->pred, tick, in, true, rs_world_hash(b->server));
    if (ps != RS_PREDICT_OK) {
        fprintf(stderr, "rollbench: confirm of tick %" PRIu64 ": %s\n", tick,
                rs_predict_status_str(ps));
        return false;
    }
    rs_predict_get_stats(b->pred, 0.0, &before);
    int64_t t_a = rs_clock_ns();
    ps = rs_predict_advance_to(b->pred, tick + DEPTH);
    int64_t t_b = rs_clock_ns();
    rs_predict_get_stats(b->pred, 0.0, &b->stats);
    if (ps != RS_PREDICT_OK) {
        fprintf(stderr, "rollbench: rollback at tick %" PRIu64 ": %s\n", tick,
                rs_predict_status_str(ps));
        return false;
    }
    const rs_predict_stats *after = &b->stats;
    if (after->resim_steps - before.resim_steps != DEPTH ||
        after->rollbacks != before.rollbacks + 1) {
        fprintf(stderr,
                "rollbench: round %u re-simulated %" PRIu64 " ticks in %" PRIu64
                " rollbacks, not %u in 1\n",
                r, after->resim_steps - before.resim_steps, after->rollbacks - before.rollbacks,
                DEPTH);
        return false;
    }
    b->ns[r] = (double)(t_b - t_a);
    /* Keep the lead: predict one more tick (untimed). */
    return rs_predict_advance_to(b->pred, tick + 1 + DEPTH) == RS_PREDICT_OK;
}

/* The measured rounds; then the server's hashes must all have matched. */
static bool run_rounds(bench *b)
{
    for (uint32_t r = 0; r < b->rounds; r++) {
        uint64_t tick = rs_world_tick(b->server);
        rs_input in[CARS];
        if (!server_tick(b, in) || !time_rollback(b, r, tick, in))
            return false;
    }
    if (b->stats.desyncs != 0 || b->stats.hashes_checked < b->rounds) {
        fprintf(stderr, "rollbench: %" PRIu64 " desyncs in %" PRIu64 " hash checks\n",
                b->stats.desyncs, b->stats.hashes_checked);
        return false;
    }
    return true;
}

/* One JSON object and one human line (docs/PERFORMANCE.md, "Rollback"). */
static void report(bench *b)
{
    uint32_t rounds = b->rounds;
    double *ns = b->ns;
    qsort(ns, rounds, sizeof *ns, rs_cmp_double);
    double med = ns[rounds / 2] / 1e6;
    double p90 = ns[(size_t)((double)(rounds - 1) * 0.9)] / 1e6;
    double mx = ns[rounds - 1] / 1e6;
    double per_car_tick = ns[rounds / 2] / (double)(DEPTH * CARS);
    printf("{\"bench\":\"rollback\",\"track\":\"technical\",\"cars\":%u,\"depth_ticks\":%u,"
           "\"rounds\":%u,\"warmup_s\":%u,\"median_ms\":%.3f,\"p90_ms\":%.3f,\"max_ms\":%.3f,"
           "\"ns_per_car_tick\":%.0f,\"nudged\":%u,\"mean_speed_m_s\":%.1f,\"car_hits\":%u,"
           "\"hashes_checked\":%" PRIu64 ",\"desyncs\":%" PRIu64 ",\"goal_ms\":2.0,\"pass\":%s}\n",
           CARS, DEPTH, rounds, b->warmup_s, med, p90, mx, per_car_tick, b->nudged,
           b->speed_sum / CARS, b->car_hits, b->stats.hashes_checked, b->stats.desyncs,
           med < 2.0 ? "true" : "false");
    printf("rollback of %u ticks x %u cars: median %.3f ms, p90 %.3f ms, max %.3f ms "
           "(%.0f ns per car-tick; goal < 2 ms)\n",
           DEPTH, CARS, med, p90, mx, per_car_tick);
}

static void free_bench(bench *b)
{
    rs_predict_destroy(b->pred);
    rs_world_destroy(b->server);
    for (uint32_t i = 0; i < CARS; i++)
        rs_driver_destroy(b->drivers[i]);
    rs_racing_line_destroy(b->line);
    rs_car_params_destroy(b->car);
    rs_track_destroy(b->track);
    free(b->snap);
    free(b->ns);
}

int main(int argc, char **argv)
{
    bench b;
    memset(&b, 0, sizeof b);
    int prc = parse_args(argc, argv, &b);
    if (prc >= 0)
        return prc;

    int rc = 1;
    if (load_race(&b) && warm_up(&b)) {
        describe_race(&b);
        if (join_client(&b) && run_rounds(&b)) {
            report(&b);
            rc = 0;
        }
    }
    free_bench(&b);
    return rc;
}
