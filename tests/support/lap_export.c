/*
 * lap_export: stored laps as files, for the WebAssembly replay's test
 * (tests/wasm/). The browser gets exactly what the database holds for a
 * lap; this program takes it out the same way `racectl verify-lap` reads
 * it, so the node test can feed the wasm module and compare with the
 * record.
 *
 *   lap_export record DB
 *       Records a one-lap AI race of two cars on the oval (a stock C5 and a
 *       tuned one, so the proof needs two different blocks) into a new
 *       database through the race log and the store's writer thread: the
 *       path raceserver stores its laps by. Prints "lap ID" per stored lap.
 *   lap_export export DB LAP_ID DIR
 *       Writes DIR/record.json (the lap row: time_us, sectors_us, valid,
 *       invalid_reason, end_hash as 16 hex digits, ...), DIR/track.json
 *       (the track's JSON text as stored), DIR/car<i>.bin (the stored block
 *       of the proof's car slot i, from 1) and DIR/proof.bin (decompressed).
 *   lap_export verify DIR PROOF
 *       Re-simulates the proof file PROOF natively with the blocks and track
 *       in DIR (rs_lap_proof_verify) and prints the verdict as one JSON
 *       line: {"code", "diffs", "time_us", "end_hash"} (simulated values),
 *       so a test can compare the wasm verdict on the same bytes.
 *
 * Exit status 0 on success, 1 on failure (reason on stderr), 2 usage.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/driver.h"
#include "racesim/lapproof.h"
#include "racesim/leaderboard.h"
#include "racesim/racelog.h"
#include "racesim/store.h"
#include "racesim/track.h"
#include "racesim/tune.h"
#include "racesim/base/file.h"
#include "test_data.h"

#define CARS 2
#define MAX_BLOCKS 64

static int failf(const char *what, const char *err)
{
    fprintf(stderr, "lap_export: %s: %s\n", what, err);
    return 1;
}

/* --------------------------------------------------------------- record */

typedef struct race {
    rs_car_params *stock, *tuned;
    uint64_t tune_hash;
    rs_track *track;
    char *track_json;
    size_t track_len;
    int64_t race_id, player[CARS];
} race;

/* The definitions, the players and the race row, through the store. */
static int store_definitions(const char *db, race *r)
{
    char err[512];
    rs_store *s = NULL;
    if (rs_store_open(db, RS_STORE_CREATE, &s, err, sizeof err) != RS_OK)
        return failf(db, err);
    int rc = 1;
    int64_t id;
    if (rs_store_put_car(s, r->stock, 0, &id, err, sizeof err) != RS_OK ||
        rs_store_put_car(s, r->tuned, rs_car_params_hash(r->stock), &id, err, sizeof err) !=
            RS_OK ||
        rs_store_put_track(s, rs_track_hash(r->track), rs_track_name(r->track), r->track_json,
                           &id, err, sizeof err) != RS_OK) {
        failf("storing the definitions", err);
        goto done;
    }
    for (int i = 0; i < CARS; i++) {
        char name[32], token[RS_TOKEN_HEX_LEN + 1];
        snprintf(name, sizeof name, "wasm%d", i + 1);
        if (rs_store_player_register(s, name, 1700000000, &r->player[i], token, err,
                                     sizeof err) != RS_OK) {
            failf("registering a player", err);
            goto done;
        }
    }
    rs_store_race race_row = {.track_hash = rs_track_hash(r->track), .laps = 1,
                              .physics_version = RS_PHYSICS_VERSION,
                              .started_at = 1700000000};
    if (rs_store_race_create(s, &race_row, &r->race_id, err, sizeof err) != RS_OK) {
        failf("creating the race", err);
        goto done;
    }
    rc = 0;
done:
    rs_store_close(s);
    return rc;
}

static void print_acks(rs_racelog *log, int *stored)
{
    rs_store_ack acks[16];
    size_t n;
    while ((n = rs_racelog_poll(log, acks, 16)) > 0)
        for (size_t k = 0; k < n; k++)
            if (acks[k].kind == RS_RECORD_LAP && acks[k].status == RS_OK) {
                printf("lap %" PRId64 "\n", acks[k].row_id);
                (*stored)++;
            }
}

/* Two AI drivers race one lap; every lap goes through the race log. */
static int run_race(const char *db, race *r)
{
    char err[512];
    rs_world_def def = rs_world_default();
    def.max_cars = CARS;
    def.track = r->track;
    def.laps = 1;
    def.start_tick = 60;
    def.car_collisions = true;
    rs_world *w = NULL;
    rs_racing_line *line[CARS] = {NULL, NULL};
    rs_driver *drv[CARS] = {NULL, NULL};
    rs_store_writer *writer = NULL;
    rs_racelog *log = NULL;
    rs_racelog_entrant who[CARS];
    int rc = 1, stored = 0;
    if (rs_world_create(&def, &w) != RS_OK)
        return failf("world", "not created");
    for (int i = 0; i < CARS; i++) {
        const rs_car_params *p = i == 0 ? r->stock : r->tuned;
        rs_car_spawn sp;
        rs_driver_options o = rs_driver_options_default();
        o.seed = (uint32_t)i + 1;
        if (!rs_track_grid_slot(r->track, (uint32_t)i, &sp) ||
            rs_world_add_car(w, p, &sp, NULL) != RS_OK ||
            rs_racing_line_build(r->track, p, NULL, &line[i]) != RS_OK ||
            rs_driver_create(line[i], &o, &drv[i]) != RS_OK) {
            failf("race", "cannot place the cars and their drivers");
            goto done;
        }
        who[i] = (rs_racelog_entrant){r->player[i], rs_car_params_hash(p),
                                      rs_car_params_hash(r->stock), i == 0 ? 0 : r->tune_hash};
    }
    if (rs_store_writer_open(db, NULL, &writer, err, sizeof err) != RS_OK) {
        failf("writer", err);
        goto done;
    }
    rs_racelog_def ld = {writer, r->race_id, rs_track_hash(r->track), who, 60u * 120u, 1, false, 0,
                         false};
    if (rs_racelog_create(w, &ld, &log) != RS_OK) {
        failf("race log", "not created");
        goto done;
    }
    for (int t = 0; t < 60 * 200 && !rs_world_race_over(w); t++) {
        for (int i = 0; i < CARS; i++) {
            rs_car_id id = {(uint16_t)(i + 1)};
            rs_input in = rs_driver_update(drv[i], w, id);
            rs_world_set_input(w, id, &in);
        }
        if (rs_racelog_before_step(log, w) != RS_OK || rs_world_step(w) != RS_OK ||
            rs_racelog_after_step(log, w, 1700000000 + t / 60) != RS_OK) {
            failf("race", "a step failed");
            goto done;
        }
        print_acks(log, &stored);
    }
    while (rs_racelog_flush(log) > 0)
        rs_store_writer_flush(writer);
    rs_store_writer_flush(writer);
    print_acks(log, &stored);
    if (!rs_world_race_over(w) || stored != CARS) {
        fprintf(stderr, "lap_export: race over %d, %d laps stored, %d expected\n",
                rs_world_race_over(w), stored, CARS);
        goto done;
    }
    rc = 0;
done:
    rs_racelog_destroy(log);
    rs_store_writer_close(writer);
    for (int i = 0; i < CARS; i++) {
        rs_driver_destroy(drv[i]);
        rs_racing_line_destroy(line[i]);
    }
    rs_world_destroy(w);
    return rc;
}

static int cmd_record(const char *db)
{
    char err[512];
    race r;
    memset(&r, 0, sizeof r);
    static const char tune[] = "{\"gearbox\": {\"final_drive\": 3.2}}";
    int rc = 1;
    if (!test_car_load("c5", &r.stock) || !test_track_load("oval", &r.track, &r.track_json,
                                                           &r.track_len))
        goto done;
    if (rs_tune_apply(r.stock, tune, sizeof tune - 1, "tune.json", &r.tuned, &r.tune_hash, err,
                      sizeof err) != RS_OK) {
        failf("tune", err);
        goto done;
    }
    rc = store_definitions(db, &r);
    if (rc == 0)
        rc = run_race(db, &r);
done:
    rs_car_params_destroy(r.tuned);
    rs_car_params_destroy(r.stock);
    rs_track_destroy(r.track);
    free(r.track_json);
    return rc;
}

/* --------------------------------------------------------------- export */

static int write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return failf(path, "cannot create");
    bool ok = fwrite(data, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    return ok ? 0 : failf(path, "cannot write");
}

static void json_sectors(FILE *f, const int64_t *us, uint32_t n)
{
    fprintf(f, "[");
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%s%" PRId64, i ? ", " : "", us[i]);
    fprintf(f, "]");
}

static int write_record(const char *dir, const rs_lb_row *row, const rs_lap_proof_info *info)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/record.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return failf(path, "cannot create");
    fprintf(f,
            "{\"lap_id\": %" PRId64 ", \"lap_number\": %u, \"time_us\": %" PRId64
            ", \"sectors_us\": ",
            row->lap_id, (unsigned)row->lap_number, row->time_us);
    json_sectors(f, row->sectors_us, row->sector_count);
    fprintf(f,
            ", \"valid\": %s, \"invalid_reason\": %d, \"end_hash\": \"%016" PRIx64
            "\", \"params_hash\": \"%016" PRIx64 "\", \"track_hash\": \"%016" PRIx64
            "\", \"physics_version\": %u, \"cars\": %u, \"car\": %u, \"tick_count\": %u}\n",
            row->valid ? "true" : "false", (int)row->invalid_reason, row->end_hash,
            row->params_hash, row->track_hash, (unsigned)row->physics_version,
            (unsigned)info->car_count, (unsigned)info->car, (unsigned)info->tick_count);
    return fclose(f) == 0 ? 0 : failf(path, "cannot write");
}

static int cmd_export(const char *db, const char *id_text, const char *dir)
{
    char err[512], *end = NULL;
    long long lap_id = strtoll(id_text, &end, 10);
    if (!*id_text || *end || lap_id <= 0)
        return failf(id_text, "not a lap id");
    rs_store *s = NULL;
    rs_leaderboard *lb = NULL;
    uint8_t *proof = NULL, *block = NULL;
    char *json = NULL;
    size_t len = 0, blen = 0, jlen = 0;
    uint32_t format = 0;
    int rc = 1;
    if (rs_store_open(db, RS_STORE_READONLY, &s, err, sizeof err) != RS_OK ||
        rs_leaderboard_open(s, &lb, err, sizeof err) != RS_OK) {
        failf(db, err);
        goto done;
    }
    rs_lb_row row;
    rs_lap_proof_info info;
    if (rs_leaderboard_lap(lb, lap_id, &row, err, sizeof err) != RS_OK ||
        rs_store_lap_proof(s, lap_id, &format, &proof, &len, err, sizeof err) != RS_OK) {
        failf("lap", err);
        goto done;
    }
    if (rs_lap_proof_info_read(proof, len, &info) != RS_OK) {
        failf("lap", "its proof does not decode");
        goto done;
    }
    if (write_file(dir, "proof.bin", proof, len) != 0 || write_record(dir, &row, &info) != 0)
        goto done;
    if (rs_leaderboard_track_definition(lb, info.track_hash, &json, &jlen, err, sizeof err) !=
            RS_OK ||
        write_file(dir, "track.json", json, jlen) != 0) {
        failf("track", err);
        goto done;
    }
    for (uint32_t i = 0; i < info.car_count; i++) {
        uint64_t h = 0;
        char name[32];
        rs_lap_proof_car_hash(proof, len, i, &h);
        free(block);
        block = NULL;
        if (rs_leaderboard_car_block(lb, h, &block, &blen, err, sizeof err) != RS_OK) {
            failf("car block", err);
            goto done;
        }
        snprintf(name, sizeof name, "car%u.bin", (unsigned)i + 1);
        if (write_file(dir, name, block, blen) != 0)
            goto done;
    }
    printf("lap %lld: %u cars, %u ticks, proof %zu bytes, track %zu bytes\n", lap_id,
           (unsigned)info.car_count, (unsigned)info.tick_count, len, jlen);
    rc = 0;
done:
    free(block);
    free(json);
    free(proof);
    rs_leaderboard_close(lb);
    rs_store_close(s);
    return rc;
}

/* --------------------------------------------------------------- verify */

static int cmd_verify(const char *dir, const char *proof_path)
{
    char err[512], path[1024], msg[2048];
    uint8_t *proof = NULL;
    char *json = NULL;
    size_t len = 0, jlen = 0;
    rs_track *track = NULL;
    rs_car_params *cars[MAX_BLOCKS] = {NULL};
    uint32_t n = 0;
    int rc = 1;
    rs_lap_proof_info info;
    if (rs_file_read(proof_path, 0, (char **)&proof, &len, err, sizeof err) != RS_FILE_OK ||
        rs_lap_proof_info_read(proof, len, &info) != RS_OK || info.car_count > MAX_BLOCKS) {
        failf(proof_path, "not a readable proof");
        goto done;
    }
    snprintf(path, sizeof path, "%s/track.json", dir);
    if (rs_file_read(path, 0, &json, &jlen, err, sizeof err) != RS_FILE_OK ||
        rs_track_parse(json, jlen, "stored track", &track, err, sizeof err) != RS_OK) {
        failf(path, err);
        goto done;
    }
    for (; n < info.car_count; n++) {
        uint8_t *block = NULL;
        size_t blen = 0;
        snprintf(path, sizeof path, "%s/car%u.bin", dir, (unsigned)n + 1);
        rs_status st = RS_ERR_ARG;
        if (rs_file_read(path, 0, (char **)&block, &blen, err, sizeof err) == RS_FILE_OK)
            st = rs_car_params_from_block(block, blen, &cars[n], err, sizeof err);
        free(block);
        if (st != RS_OK) {
            failf(path, err);
            goto done;
        }
    }
    rs_lap_verdict v;
    if (rs_lap_proof_verify(proof, len, (const rs_car_params *const *)cars, n, track, &v, msg,
                            sizeof msg) != RS_OK) {
        failf("verify", msg);
        goto done;
    }
    printf("{\"code\": %u, \"diffs\": %u, \"time_us\": %" PRId64 ", \"end_hash\": \"%016" PRIx64
           "\"}\n",
           (unsigned)v.code, (unsigned)v.diffs, v.simulated_time_us, v.simulated_hash);
    rc = 0;
done:
    for (uint32_t i = 0; i < n; i++)
        rs_car_params_destroy(cars[i]);
    rs_track_destroy(track);
    free(json);
    free(proof);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "record") == 0)
        return cmd_record(argv[2]);
    if (argc == 5 && strcmp(argv[1], "export") == 0)
        return cmd_export(argv[2], argv[3], argv[4]);
    if (argc == 4 && strcmp(argv[1], "verify") == 0)
        return cmd_verify(argv[2], argv[3]);
    fprintf(stderr, "usage: lap_export record DB | export DB LAP_ID DIR | verify DIR PROOF\n");
    return 2;
}
