/*
 * Writes seed inputs for the binary fuzz targets: the canonical blocks of
 * the shipped cars, snapshots of a small world at a few ticks, and the
 * proofs of a C5's first lap of the oval, alone and with two cars joining
 * during it (what fuzz_lapproof re-simulates; run_fuzz.sh adds the version
 * 1 proof of tests/fixtures). Text targets seed from data/ directly (see
 * run_fuzz.sh).
 */
#include <math.h> /* seed placement only */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "racesim/driver.h"
#include "racesim/lapproof.h"
#include "racesim/physics.h"
#include "racesim/track.h"
#include "seed_file.h"

static int write_file(const char *dir, const char *name, const uint8_t *p, size_t n)
{
    return seed_file_write("make_seeds", dir, name, p, n);
}

/* One AI-driven C5 on the oval; the proof of its first lap. With joins,
 * two more C5s join during that lap (proof format 2's joins), parked far
 * off the track, the second with the manual gearbox in second. */
static int lap_proof_seed(const rs_car_params *c5, const char *dir, const char *name, bool joins)
{
    char err[512], path[1024];
    rs_track *track = NULL;
    snprintf(path, sizeof path, "%s/tracks/oval.json", RS_DATA_DIR);
    if (rs_track_load(path, &track, err, sizeof err) != RS_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rs_world_def def = rs_world_default();
    def.max_cars = 3;
    def.track = track;
    rs_world *w = NULL;
    rs_racing_line *line = NULL;
    rs_driver *drv = NULL;
    rs_lap_recorder *rec = NULL;
    rs_car_spawn sp;
    int rc = 1;
    if (rs_world_create(&def, &w) != RS_OK || !rs_track_grid_slot(track, 0, &sp) ||
        rs_world_add_car(w, c5, &sp, NULL) != RS_OK ||
        rs_racing_line_build(track, c5, NULL, &line) != RS_OK ||
        rs_driver_create(line, NULL, &drv) != RS_OK || rs_lap_recorder_create(w, 6000, &rec) != RS_OK)
        goto out;
    rs_car_id id = {1};
    for (int t = 0; t < 60 * 120; t++) {
        if (joins && (t == 600 || t == 900)) {
            rs_car_spawn far = sp; /* 300 m and 320 m to the right of the grid */
            double off = t == 600 ? 300.0 : 320.0;
            far.pos_m[0] += off * sin(sp.yaw_rad);
            far.pos_m[1] -= off * cos(sp.yaw_rad);
            if (t == 900) {
                far.gear = 2;
                far.transmission = RS_TRANSMISSION_MANUAL;
            }
            if (rs_world_add_car(w, c5, &far, NULL) != RS_OK)
                goto out;
        }
        rs_input in = rs_driver_update(drv, w, id);
        rs_world_set_input(w, id, &in);
        rs_lap_recorder_before_step(rec, w);
        if (rs_world_step(w) != RS_OK)
            goto out;
        uint8_t *proof = NULL;
        size_t len = 0;
        if (rs_lap_recorder_take(rec, w, id, &proof, &len) == RS_OK) {
            rc = write_file(dir, name, proof, len);
            free(proof);
            goto out;
        }
    }
    fprintf(stderr, "make_seeds: no lap completed\n");
out:
    rs_lap_recorder_destroy(rec);
    rs_driver_destroy(drv);
    rs_racing_line_destroy(line);
    rs_world_destroy(w);
    rs_track_destroy(track);
    return rc;
}

int main(int argc, char **argv)
{
    static const char *cars[2] = {"c5", "formula"};
    char err[512], path[1024];
    rs_car_params *p[2] = {NULL, NULL};
    if (argc != 4) {
        fprintf(stderr, "usage: make_seeds BLOCK_DIR SNAPSHOT_DIR LAPPROOF_DIR\n");
        return 2;
    }
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/cars/%s.json", RS_DATA_DIR, cars[i]);
        if (rs_car_params_load(path, &p[i], err, sizeof err) != RS_OK) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        size_t n = rs_car_params_block(p[i], NULL, 0);
        uint8_t *b = malloc(n);
        if (!b || rs_car_params_block(p[i], b, n) != n || write_file(argv[1], cars[i], b, n))
            return 1;
        free(b);
    }
    /* The snapshot target restores into a world of two C5s. */
    rs_world_def def = rs_world_default();
    def.max_cars = 2;
    rs_world *w = NULL;
    if (rs_world_create(&def, &w) != RS_OK)
        return 1;
    for (int i = 0; i < 2; i++) {
        rs_car_spawn sp = rs_car_spawn_default();
        sp.pos_m[1] = 10.0 * i;
        rs_world_add_car(w, p[0], &sp, NULL);
    }
    rs_input in = rs_input_quantise(0.3, 1.0, 0.0, 0.0, 0.0);
    in.gear = 1;
    rs_car_id id = {1};
    rs_world_set_input(w, id, &in);
    for (int k = 0; k < 3; k++) {
        for (int t = 0; t < 90; t++)
            rs_world_step(w);
        size_t n = rs_world_snapshot(w, NULL, 0);
        uint8_t *b = malloc(n);
        char name[32];
        snprintf(name, sizeof name, "tick%d", (k + 1) * 90);
        if (!b || rs_world_snapshot(w, b, n) != n || write_file(argv[2], name, b, n))
            return 1;
        free(b);
    }
    rs_world_destroy(w);
    int rc = lap_proof_seed(p[0], argv[3], "c5_oval_lap1", false);
    if (rc == 0)
        rc = lap_proof_seed(p[0], argv[3], "c5_oval_lap1_joins", true);
    rs_car_params_destroy(p[0]);
    rs_car_params_destroy(p[1]);
    return rc;
}
