/*
 * durbench: what synchronous=FULL costs against synchronous=NORMAL for the
 * server's real write pattern, laps with their proofs through the store's
 * writer thread (docs/PERFORMANCE.md, "Durable commits";
 * docs/PERSISTENCE.md, "Durability").
 *
 * It first records one AI race on the oval (C cars, L laps each) with the
 * lap recorder, so every lap carries a real proof (about 214 KB raw for 8
 * cars): proofs are most of what the writer writes, and compressing them
 * most of its work. Then, in R rounds, each mode (FULL, NORMAL; which goes
 * first alternates from round to round, so drift on the machine falls on
 * both) gets a fresh database in DIR and runs:
 *
 *   paced   each lap is put and its acknowledgement awaited before the next
 *           one: a quiet server, where every lap is its own transaction and
 *           the player waits put -> ack for the "recorded" flag;
 *   burst   every lap (times --repeat) put at once, then all awaited: a busy
 *           server, where the writer batches; laps per second;
 *   set-up  rs_store_race_create on the caller's thread, as the services do
 *           at every countdown on the room's thread (one commit).
 *
 * It prints one JSON object: per mode the medians over rounds of the paced
 * median and 99th-percentile ack latency, of burst throughput and of the
 * race set-up commit. DIR must be on the disk the server would use: on
 * tmpfs an fsync is free and the comparison says nothing.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "racesim/driver.h"
#include "racesim/lapproof.h"
#include "racesim/physics.h"
#include "racesim/store.h"
#include "racesim/store_testing.h"
#include "racesim/track.h"
#include "racesim/base/cli.h"
#include "racesim/base/clock.h"
#include "racesim/base/file.h"
#include "racesim/base/stats.h"

#define START_TICKS 60 /* a one-second hold before lights out */

typedef struct options {
    const char *dir;
    uint32_t cars, laps, runs, repeat;
} options;

/* One recorded lap: who drove it, what the world timed, and its proof. */
typedef struct bench_lap {
    uint32_t car;      /* 0-based slot */
    rs_event event;
    uint64_t end_hash;
    uint8_t *proof;
    size_t proof_len;
} bench_lap;

typedef struct recording {
    rs_track *track;
    char *track_json;
    rs_car_params *car;
    bench_lap *laps;
    uint32_t count, cap;
    size_t proof_bytes;
} recording;

/* What one mode measured in one round. */
typedef struct round_result {
    double paced_p50_ms, paced_p99_ms;
    double burst_laps_per_s;
    double burst_transactions;
    double setup_ms;
} round_result;

enum { MODE_FULL, MODE_NORMAL, MODES };
static const char *const mode_names[MODES] = {"full", "normal"};

/* ------------------------------------------------------------ options */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: durbench [--dir DIR] [--cars N] [--laps N] [--runs N] [--repeat N]\n"
            "\n"
            "Records an AI race on the oval (default 8 cars x 2 laps, real lap proofs),\n"
            "then in --runs rounds (default 7), alternating which goes first, writes its\n"
            "laps through the store's writer with PRAGMA synchronous=FULL and =NORMAL\n"
            "on fresh databases in DIR: paced (put, wait for the ack, next lap), a burst\n"
            "of every lap --repeat times (default 4), and a race set-up commit. Prints\n"
            "one JSON object of medians over the rounds.\n"
            "\n"
            "  --dir DIR   where the databases are made (default /var/tmp); it must be on\n"
            "              the disk the server uses: on tmpfs an fsync costs nothing\n"
            "\n"
            "Exit status: 0 ok, 1 failure, 2 usage error.\n");
}

static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){"/var/tmp", 8, 2, 7, 4};
    const rs_cli_opt opts[] = {
        {"--dir", NULL, 0, 0, &o->dir},
        {"--cars", &o->cars, 1, 24, NULL},
        {"--laps", &o->laps, 1, 20, NULL},
        {"--runs", &o->runs, 1, 1000, NULL},
        {"--repeat", &o->repeat, 1, 100, NULL},
    };
    return rs_cli_parse_opts("durbench", argc, argv, opts, sizeof opts / sizeof opts[0], usage);
}

/* ---------------------------------------------------------- recording */

static void recording_free(recording *r)
{
    for (uint32_t i = 0; i < r->count; i++)
        free(r->laps[i].proof);
    free(r->laps);
    rs_car_params_destroy(r->car);
    rs_track_destroy(r->track);
    free(r->track_json);
}

/* Keeps the lap the world just timed with its proof (a lap the recorder
 * has no proof for, e.g. one begun before recording, is skipped). */
static rs_status keep_lap(recording *r, const rs_world *w, rs_lap_recorder *rec,
                          const rs_event *e)
{
    uint8_t *proof = NULL;
    size_t len = 0;
    if (rs_lap_recorder_take(rec, w, (rs_car_id){e->car}, &proof, &len) != RS_OK)
        return RS_OK;
    if (r->count == r->cap) {
        uint32_t cap = r->cap ? 2 * r->cap : 32;
        bench_lap *n = realloc(r->laps, cap * sizeof *n);
        if (!n) {
            free(proof);
            return RS_ERR_NOMEM;
        }
        r->laps = n;
        r->cap = cap;
    }
    bench_lap *b = &r->laps[r->count++];
    b->car = e->car - 1u;
    b->event = *e;
    b->end_hash = rs_world_car_hash(w, (rs_car_id){e->car});
    b->proof = proof;
    b->proof_len = len;
    r->proof_bytes += len;
    return RS_OK;
}

/* Races the AI cars and keeps every lap with its proof. */
static rs_status run_race(recording *r, const options *o, rs_racing_line *line, rs_world *w,
                          rs_driver **drivers)
{
    rs_lap_recorder *rec = NULL;
    rs_status st = rs_lap_recorder_create(w, 60u * 300u, &rec);
    uint64_t max_ticks = (uint64_t)((double)(o->laps + 1) * 2.0 * rs_racing_line_lap_time(line) *
                                    60.0) + START_TICKS;
    for (uint64_t t = 0; st == RS_OK && t < max_ticks && !rs_world_race_over(w); t++) {
        for (uint32_t i = 0; i < o->cars; i++) {
            rs_car_id id = {(uint16_t)(i + 1)};
            rs_input in = rs_driver_update(drivers[i], w, id);
            rs_world_set_input(w, id, &in);
        }
        st = rs_lap_recorder_before_step(rec, w);
        if (st == RS_OK)
            st = rs_world_step(w);
        size_t n = 0;
        const rs_event *ev = rs_world_events(w, &n);
        for (size_t k = 0; st == RS_OK && k < n; k++)
            if (ev[k].type == RS_EVENT_LAP)
                st = keep_lap(r, w, rec, &ev[k]);
    }
    rs_lap_recorder_destroy(rec);
    return st;
}

/* Loads the oval and the C5 and records the race. */
static int record(const options *o, recording *r)
{
    char path[1024], err[512];
    memset(r, 0, sizeof *r);
    snprintf(path, sizeof path, "%s/tracks/oval.json", RS_DATA_DIR);
    size_t json_len = 0;
    if (rs_file_read(path, 0, &r->track_json, &json_len, err, sizeof err) != RS_FILE_OK ||
        rs_track_parse(r->track_json, json_len, path, &r->track, err, sizeof err) != RS_OK)
        return rs_fail(NULL, "%s", err);
    snprintf(path, sizeof path, "%s/cars/c5.json", RS_DATA_DIR);
    if (rs_car_params_load(path, &r->car, err, sizeof err) != RS_OK)
        return rs_fail(NULL, "%s", err);
    if (o->cars > rs_track_grid_count(r->track))
        return rs_usage_error(NULL, "--cars: the oval has %u grid slots",
                              (unsigned)rs_track_grid_count(r->track));

    rs_racing_line *line = NULL;
    rs_world *w = NULL;
    rs_driver **drivers = calloc(o->cars, sizeof *drivers);
    rs_status st = drivers ? rs_racing_line_build(r->track, r->car, NULL, &line) : RS_ERR_NOMEM;
    rs_world_def def = rs_world_default();
    def.max_cars = o->cars;
    def.track = r->track;
    def.laps = o->laps;
    def.start_tick = START_TICKS;
    if (st == RS_OK)
        st = rs_world_create(&def, &w);
    for (uint32_t i = 0; st == RS_OK && i < o->cars; i++) {
        rs_car_spawn sp;
        rs_car_id id;
        rs_track_grid_slot(r->track, i, &sp);
        sp.transmission = RS_TRANSMISSION_MANUAL; /* the AI picks its gears */
        st = rs_world_add_car(w, r->car, &sp, &id);
        rs_driver_options dopt = rs_driver_options_default();
        dopt.pace = 0.96 - 0.004 * (double)i;
        dopt.seed = i + 1;
        if (st == RS_OK)
            st = rs_driver_create(line, &dopt, &drivers[i]);
    }
    if (st == RS_OK)
        st = run_race(r, o, line, w, drivers);
    for (uint32_t i = 0; drivers && i < o->cars; i++)
        rs_driver_destroy(drivers[i]);
    free(drivers);
    rs_world_destroy(w);
    rs_racing_line_destroy(line);
    if (st != RS_OK)
        return rs_fail(NULL, "recording the race: %s", rs_status_str(st));
    if (r->count == 0)
        return rs_fail(NULL, "the race produced no lap with a proof");
    return 0;
}

/* ------------------------------------------------------------ writing */

/* A fresh database with the track, the car, one player per car and a
 * race; db->race_id and the players' ids are what the laps refer to. */
typedef struct bench_db {
    char dir[1024];
    char path[1100];
    int64_t players[24];
    int64_t race_id;
} bench_db;

static void db_remove(bench_db *db)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    char p[1200];
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(p, sizeof p, "%s%s", db->path, suffixes[i]);
        remove(p);
    }
    rmdir(db->dir);
}

static int db_create(const options *o, const recording *r, bench_db *db, double *setup_ms)
{
    char err[512], name[24], token[RS_TOKEN_HEX_LEN + 1];
    snprintf(db->dir, sizeof db->dir, "%s/durbench_XXXXXX", o->dir);
    if (!mkdtemp(db->dir))
        return rs_fail(NULL, "mkdtemp %s: %s", db->dir, strerror(errno));
    snprintf(db->path, sizeof db->path, "%s/race.db", db->dir);
    rs_store *s = NULL;
    int64_t id = 0;
    rs_status st = rs_store_open(db->path, RS_STORE_CREATE, &s, err, sizeof err);
    if (st == RS_OK)
        st = rs_store_put_track(s, rs_track_hash(r->track), rs_track_name(r->track),
                                r->track_json, &id, err, sizeof err);
    if (st == RS_OK)
        st = rs_store_put_car(s, r->car, 0, &id, err, sizeof err);
    for (uint32_t i = 0; st == RS_OK && i < o->cars; i++) {
        snprintf(name, sizeof name, "driver%u", (unsigned)i + 1);
        st = rs_store_player_register(s, name, 1, &db->players[i], token, err, sizeof err);
    }
    rs_store_race race = {.track_hash = rs_track_hash(r->track), .laps = o->laps,
                          .physics_version = RS_PHYSICS_VERSION, .started_at = 1};
    int64_t t0 = rs_clock_ns();
    if (st == RS_OK)
        st = rs_store_race_create(s, &race, &db->race_id, err, sizeof err);
    *setup_ms = (double)(rs_clock_ns() - t0) / 1e6;
    rs_store_close(s);
    if (st != RS_OK)
        return rs_fail(NULL, "%s", err);
    return 0;
}

/* The record the race log would queue for lap i, with a unique caller id. */
static rs_store_lap lap_record(const recording *r, const bench_db *db, uint32_t i,
                               int64_t caller_id)
{
    const bench_lap *b = &r->laps[i];
    rs_store_lap l;
    memset(&l, 0, sizeof l);
    l.caller_id = caller_id;
    l.player_id = db->players[b->car];
    l.track_hash = rs_track_hash(r->track);
    l.params_hash = l.base_hash = rs_car_params_hash(r->car);
    l.physics_version = RS_PHYSICS_VERSION;
    l.race_id = db->race_id;
    l.lap_number = b->event.lap;
    l.time_us = b->event.duration_us;
    l.sector_count = b->event.sector_count <= RS_MAX_SECTORS ? b->event.sector_count
                                                             : RS_MAX_SECTORS;
    for (uint32_t k = 0; k < l.sector_count; k++)
        l.sectors_us[k] = b->event.sectors_us[k];
    l.valid = b->event.valid;
    l.invalid_reason = b->event.valid ? 0 : b->event.reason;
    l.end_hash = b->end_hash;
    l.recorded_at = 1;
    l.proof_format = RS_LAP_PROOF_VERSION;
    l.proof = b->proof;
    l.proof_len = b->proof_len;
    return l;
}

/* Waits for n acks, all RS_OK. */
static int await_acks(rs_store_writer *w, size_t n)
{
    rs_store_ack acks[64];
    size_t got = 0;
    while (got < n) {
        rs_store_writer_flush(w);
        size_t k = rs_store_writer_poll(w, acks, 64);
        for (size_t i = 0; i < k; i++)
            if (acks[i].status != RS_OK)
                return rs_fail(NULL, "a lap was not stored: %s",
                               rs_status_str(acks[i].status));
        got += k;
    }
    return 0;
}

/* The paced and burst runs on one fresh database. */
static int run_mode(const options *o, const recording *r, bool full, round_result *out)
{
    rs_store__set_synchronous(full);
    bench_db db;
    memset(&db, 0, sizeof db);
    int rc = db_create(o, r, &db, &out->setup_ms);
    rs_store_writer *w = NULL;
    char err[512];
    if (rc == 0 && rs_store_writer_open(db.path, NULL, &w, err, sizeof err) != RS_OK)
        rc = rs_fail(NULL, "%s", err);
    double *lat = calloc(r->count, sizeof *lat);
    if (rc == 0 && !lat)
        rc = rs_fail(NULL, "out of memory");
    int64_t caller = 1;
    /* Paced: put -> ack, the wait a player has for the "recorded" flag. */
    for (uint32_t i = 0; rc == 0 && i < r->count; i++) {
        rs_store_lap l = lap_record(r, &db, i, caller++);
        int64_t t0 = rs_clock_ns();
        if (rs_store_writer_put_lap(w, &l) != RS_OK)
            rc = rs_fail(NULL, "put refused");
        if (rc == 0)
            rc = await_acks(w, 1);
        lat[i] = (double)(rs_clock_ns() - t0) / 1e6;
    }
    if (rc == 0) {
        out->paced_p50_ms = rs_quantile(lat, r->count, 0.5);
        out->paced_p99_ms = rs_quantile(lat, r->count, 0.99);
    }
    /* Burst: everything at once; the writer batches what gathers. */
    rs_store_writer_stats before = w ? rs_store_writer_get_stats(w) : (rs_store_writer_stats){0};
    size_t burst = (size_t)r->count * o->repeat;
    int64_t t0 = rs_clock_ns();
    for (size_t i = 0; rc == 0 && i < burst; i++) {
        rs_store_lap l = lap_record(r, &db, (uint32_t)(i % r->count), caller++);
        if (rs_store_writer_put_lap(w, &l) != RS_OK)
            rc = rs_fail(NULL, "put refused (raise the writer's capacity)");
    }
    if (rc == 0)
        rc = await_acks(w, burst);
    if (rc == 0) {
        double s = (double)(rs_clock_ns() - t0) / 1e9;
        out->burst_laps_per_s = (double)burst / s;
        out->burst_transactions =
            (double)(rs_store_writer_get_stats(w).transactions - before.transactions);
    }
    free(lat);
    rs_store_writer_close(w);
    db_remove(&db);
    return rc;
}

/* ------------------------------------------------------------- report */

static double median_of(const round_result *res, uint32_t n, size_t offset)
{
    double *v = malloc(n * sizeof *v);
    if (!v)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        memcpy(&v[i], (const char *)&res[i] + offset, sizeof v[i]);
    double m = rs_median(v, n);
    free(v);
    return m;
}

static void print_mode(const char *name, const round_result *res, uint32_t n, bool last)
{
    printf("  \"%s\": {\"paced_ack_p50_ms\": %.3f, \"paced_ack_p99_ms\": %.3f, "
           "\"burst_laps_per_s\": %.1f, \"burst_transactions\": %.1f, \"race_setup_ms\": %.3f}%s\n",
           name, median_of(res, n, offsetof(round_result, paced_p50_ms)),
           median_of(res, n, offsetof(round_result, paced_p99_ms)),
           median_of(res, n, offsetof(round_result, burst_laps_per_s)),
           median_of(res, n, offsetof(round_result, burst_transactions)),
           median_of(res, n, offsetof(round_result, setup_ms)), last ? "" : ",");
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    recording rec;
    rc = record(&o, &rec);
    round_result *res[MODES] = {calloc(o.runs, sizeof **res), calloc(o.runs, sizeof **res)};
    if (rc == 0 && (!res[0] || !res[1]))
        rc = rs_fail(NULL, "out of memory");
    for (uint32_t run = 0; rc == 0 && run < o.runs; run++) {
        /* FULL first in even rounds, NORMAL first in odd ones. */
        for (int k = 0; rc == 0 && k < MODES; k++) {
            int mode = (int)((run + (uint32_t)k) % MODES);
            rc = run_mode(&o, &rec, mode == MODE_FULL, &res[mode][run]);
        }
    }
    if (rc == 0) {
        printf("{\n  \"dir\": \"%s\", \"laps\": %u, \"cars\": %u, \"proof_raw_bytes_mean\": %zu, "
               "\"burst_laps\": %u, \"rounds\": %u,\n",
               o.dir, (unsigned)rec.count, (unsigned)o.cars, rec.proof_bytes / rec.count,
               (unsigned)(rec.count * o.repeat), (unsigned)o.runs);
        for (int m = 0; m < MODES; m++)
            print_mode(mode_names[m], res[m], o.runs, m + 1 == MODES);
        printf("}\n");
    }
    rs_store__set_synchronous(true);
    free(res[0]);
    free(res[1]);
    recording_free(&rec);
    return rc;
}
