/*
 * `racectl verify-lap ID`: proves (or disproves) a stored lap. It reads the
 * lap record and its proof (decompressed by the store), checks that the
 * record says what the proof says, rebuilds every car from its stored
 * canonical block and the track from its stored JSON, and re-simulates the
 * proof's input log from its start snapshot (racesim/lapproof.h), comparing
 * the lap time, sectors, validity and the car's end-state hash bit for bit.
 * Exit status 0 only when everything matches.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racectl.h"
#include "racesim/lapproof.h"
#include "racesim/track.h"

#define CMD "verify-lap"
#define MAX_DIFFS 12

typedef struct record_diffs {
    char text[MAX_DIFFS][160];
    int count;
} record_diffs;

static void add_diff(record_diffs *d, const char *fmt, int64_t stored, int64_t proof)
{
    if (d->count < MAX_DIFFS)
        snprintf(d->text[d->count++], sizeof d->text[0], fmt, stored, proof);
}

/* The lap row must say what the proof recorded: otherwise the row was
 * changed (or written wrongly) after the proof was taken. */
static void compare_record(const rs_lb_row *row, const rs_lap_proof_info *info, record_diffs *d)
{
    if (row->time_us != info->lap_time_us)
        add_diff(d, "lap time: %" PRId64 " us stored, %" PRId64 " us in the proof", row->time_us,
                 info->lap_time_us);
    if ((int64_t)row->lap_number != (int64_t)info->lap)
        add_diff(d, "lap number: %" PRId64 " stored, %" PRId64 " in the proof", row->lap_number,
                 info->lap);
    if (row->valid != info->valid || row->invalid_reason != info->invalid_reason)
        add_diff(d, "validity: reason %" PRId64 " stored, %" PRId64 " in the proof",
                 row->valid ? 0 : row->invalid_reason,
                 info->valid ? 0 : info->invalid_reason);
    if (row->end_hash != info->end_car_hash)
        add_diff(d, "end hash: %016" PRIx64 " stored, %016" PRIx64 " in the proof",
                 (int64_t)row->end_hash, (int64_t)info->end_car_hash);
    if (row->physics_version != info->physics_version)
        add_diff(d, "physics version: %" PRId64 " stored, %" PRId64 " in the proof",
                 row->physics_version, info->physics_version);
    if (row->track_hash != info->track_hash)
        add_diff(d, "track: %016" PRIx64 " stored, %016" PRIx64 " in the proof",
                 (int64_t)row->track_hash, (int64_t)info->track_hash);
    if (row->params_hash != info->car_params_hash)
        add_diff(d, "car block: %016" PRIx64 " stored, %016" PRIx64 " in the proof",
                 (int64_t)row->params_hash, (int64_t)info->car_params_hash);
    bool sectors_same = row->sector_count == info->sector_count;
    for (uint32_t i = 0; sectors_same && i < row->sector_count; i++)
        sectors_same = row->sectors_us[i] == info->sectors_us[i];
    if (!sectors_same)
        add_diff(d, "sectors: %" PRId64 " stored, %" PRId64 " in the proof (count; values differ)",
                 row->sector_count, info->sector_count);
}

typedef struct rebuilt {
    rs_car_params **cars;
    uint32_t car_count;
    rs_track *track;
} rebuilt;

static void rebuilt_free(rebuilt *b)
{
    for (uint32_t i = 0; b->cars && i < b->car_count; i++)
        rs_car_params_destroy(b->cars[i]);
    free(b->cars);
    rs_track_destroy(b->track);
}

/* Rebuilds the proof's cars and track from the database. */
static int rebuild(rc_ctx *c, const uint8_t *proof, size_t len, const rs_lap_proof_info *info,
                   rebuilt *b)
{
    char err[512];
    b->cars = calloc(info->car_count ? info->car_count : 1, sizeof *b->cars);
    if (!b->cars)
        return rs_fail(CMD, "out of memory");
    b->car_count = info->car_count;
    for (uint32_t i = 0; i < info->car_count; i++) {
        uint64_t h;
        uint8_t *block = NULL;
        size_t blen = 0;
        rs_status st = rs_lap_proof_car_hash(proof, len, i, &h);
        if (st != RS_OK)
            return rs_fail(CMD, "proof car %u: %s", (unsigned)i, rs_status_str(st));
        if (rs_leaderboard_car_block(c->lb, h, &block, &blen, err, sizeof err) != RS_OK)
            return rs_fail(CMD, "car %u of the proof: %s", (unsigned)i, err);
        st = rs_car_params_from_block(block, blen, &b->cars[i], err, sizeof err);
        free(block);
        if (st != RS_OK)
            return rs_fail(CMD, "car %016" PRIx64 ": stored block does not load: %s", h, err);
        if (rs_car_params_hash(b->cars[i]) != h)
            return rs_fail(CMD, "car %016" PRIx64 ": the stored block hashes to %016" PRIx64, h,
                           rs_car_params_hash(b->cars[i]));
    }
    if (info->track_hash != 0) {
        char *json = NULL;
        size_t jlen = 0;
        if (rs_leaderboard_track_definition(c->lb, info->track_hash, &json, &jlen, err,
                                            sizeof err) != RS_OK)
            return rs_fail(CMD, "%s", err);
        rs_status st = rs_track_parse(json, jlen, "stored track", &b->track, err, sizeof err);
        free(json);
        if (st != RS_OK)
            return rs_fail(CMD, "track %016" PRIx64 ": stored definition does not load: %s",
                           info->track_hash, err);
        if (rs_track_hash(b->track) != info->track_hash)
            return rs_fail(CMD, "track %016" PRIx64 ": the stored definition hashes to %016" PRIx64,
                           info->track_hash, rs_track_hash(b->track));
    }
    return 0;
}

static void print_result(rc_ctx *c, int64_t lap_id, const rs_lb_row *row,
                         const rs_lap_proof_info *info, const record_diffs *d,
                         const rs_lap_verdict *v, const char *msg)
{
    bool ok = d->count == 0 && v->code == RS_LAP_PROOF_OK;
    if (c->json) {
        printf("{\"lap_id\": %" PRId64 ", \"ok\": %s, \"verdict\": \"%s\", \"message\": ", lap_id,
               ok ? "true" : "false", rs_lap_verdict_name(v->code));
        rc_json_str(stdout, msg);
        printf(", \"record_matches_proof\": %s, \"record_diffs\": [", d->count ? "false" : "true");
        for (int i = 0; i < d->count; i++) {
            printf("%s", i ? ", " : "");
            rc_json_str(stdout, d->text[i]);
        }
        printf("], \"recorded\": {\"lap\": %u, \"time_us\": %" PRId64
               ", \"end_hash\": \"%016" PRIx64 "\"}, \"simulated\": {\"lap\": %u,"
               " \"time_us\": %" PRId64 ", \"end_hash\": \"%016" PRIx64 "\"}, \"ticks\": %u,"
               " \"cars\": %u}\n",
               (unsigned)v->recorded_lap, v->recorded_time_us, v->recorded_hash,
               (unsigned)v->simulated_lap, v->simulated_time_us, v->simulated_hash,
               (unsigned)info->tick_count, (unsigned)info->car_count);
        return;
    }
    char t[32];
    rs_race_time_str(row->time_us, t, sizeof t);
    printf("lap %" PRId64 ": %s, %s on %s, lap %u, %s (%" PRId64 " us)\n", lap_id,
           row->player_name, row->car_name, row->track_name, (unsigned)row->lap_number, t,
           row->time_us);
    printf("proof: %u ticks of %u car%s from tick %" PRIu64 "\n", (unsigned)info->tick_count,
           (unsigned)info->car_count, info->car_count == 1 ? "" : "s", info->first_tick);
    if (d->count == 0)
        printf("record: matches the proof\n");
    for (int i = 0; i < d->count; i++)
        printf("record differs from the proof: %s\n", d->text[i]);
    if (v->code == RS_LAP_PROOF_OK)
        printf("re-simulation: ok\n");
    else
        printf("re-simulation: %s: %s\n", rs_lap_verdict_name(v->code), msg);
    printf("%s\n", ok ? "VERIFIED: lap time, sectors, validity and end hash match bit for bit"
                      : "NOT VERIFIED");
}

int rc_cmd_verify_lap(rc_ctx *c, int argc, char **argv)
{
    int64_t lap_id;
    int rc = rc_id_argument(c, CMD, argc, argv,
                            "usage: racectl --db FILE verify-lap LAP_ID\n"
                            "\n"
                            "Re-simulates a stored lap from its proof (the start snapshot and"
                            " every\n"
                            "car's inputs, stored compressed with the lap), using the car blocks"
                            " and\n"
                            "track definition stored in the database, and checks that the lap"
                            " time,\n"
                            "sectors, validity and the car's end-state hash come out bit for bit"
                            " as\n"
                            "recorded; also checks that the lap record agrees with its proof."
                            " Says\n"
                            "exactly what differs otherwise. Exit status 0 verified, 1 not"
                            " verified\n"
                            "(or no proof, or a definition is missing), 2 usage error.\n",
                            "LAP_ID", "lap id", &lap_id);
    if (rc != RC_GO_ON)
        return rc;

    char err[512], msg[1024] = "";
    rs_lb_row row;
    if (rs_leaderboard_lap(c->lb, lap_id, &row, err, sizeof err) != RS_OK)
        return rs_fail(CMD, "%s", err);
    uint32_t format = 0;
    uint8_t *proof = NULL;
    size_t len = 0;
    rs_status st = rs_store_lap_proof(c->store, lap_id, &format, &proof, &len, err, sizeof err);
    if (st == RS_ERR_MISSING)
        return rs_fail(CMD, "lap %" PRId64 " has no proof stored: it cannot be verified", lap_id);
    if (st != RS_OK)
        return rs_fail(CMD, "%s", err);

    rc = RC_EXIT_FAIL;
    rebuilt b = {0};
    rs_lap_proof_info info;
    st = rs_lap_proof_info_read(proof, len, &info);
    if (st != RS_OK) {
        rs_fail(CMD, "lap %" PRId64 ": the stored proof does not decode (format %u): %s", lap_id,
                (unsigned)format, rs_status_str(st));
        goto done;
    }
    record_diffs d = {0};
    compare_record(&row, &info, &d);
    if (info.physics_version != RS_PHYSICS_VERSION) {
        rs_fail(CMD,
                "lap %" PRId64 " was driven with physics version %u; this build is version %u "
                "and cannot re-simulate it (use a build of that version)",
                lap_id, (unsigned)info.physics_version, (unsigned)RS_PHYSICS_VERSION);
        goto done;
    }
    if (rebuild(c, proof, len, &info, &b) != 0)
        goto done;
    rs_lap_verdict v;
    memset(&v, 0, sizeof v);
    st = rs_lap_proof_verify(proof, len, (const rs_car_params *const *)b.cars, b.car_count,
                             b.track, &v, msg, sizeof msg);
    if (st != RS_OK) {
        rs_fail(CMD, "lap %" PRId64 ": re-simulation could not run: %s", lap_id,
                rs_status_str(st));
        goto done;
    }
    print_result(c, lap_id, &row, &info, &d, &v, msg);
    rc = d.count == 0 && v.code == RS_LAP_PROOF_OK ? RC_EXIT_OK : RC_EXIT_FAIL;
done:
    rebuilt_free(&b);
    free(proof);
    return rc;
}
