/*
 * The golden determinism scenario (see golden_scenario.h): eight AI drivers
 * race three laps of the technical track. The drivers are part of the
 * scenario, so the AI's arithmetic is covered by the cross-compiler check as
 * well: it runs on the deterministic math like the physics.
 */
#include "golden_scenario.h"

#include <stdio.h>
#include <stdlib.h>

#include "racesim/driver.h"
#include "racesim/track.h"

struct rs_golden {
    rs_car_params *params[2];
    rs_track *track;
    rs_racing_line *line[2];
    rs_driver *driver[RS_GOLDEN_CARS];
    rs_input last[RS_GOLDEN_CARS];
    rs_world *world;
};

rs_status rs_golden_create(const char *data_dir, rs_golden **out, char *err, size_t err_len)
{
    static const char *files[2] = {"cars/c5.json", "cars/formula.json"};
    rs_golden *g = calloc(1, sizeof *g);
    rs_status st = RS_ERR_NOMEM;
    char path[1024];
    *out = NULL;
    if (err && err_len)
        err[0] = '\0';
    if (!g)
        goto fail;
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", data_dir, files[i]);
        st = rs_car_params_load(path, &g->params[i], err, err_len);
        if (st != RS_OK)
            goto fail;
    }
    snprintf(path, sizeof path, "%s/%s", data_dir, RS_GOLDEN_TRACK);
    st = rs_track_load(path, &g->track, err, err_len);
    if (st != RS_OK)
        goto fail;
    for (int i = 0; i < 2; i++) {
        st = rs_racing_line_build(g->track, g->params[i], NULL, &g->line[i]);
        if (st != RS_OK)
            goto fail;
    }
    rs_world_def def = rs_world_default();
    def.max_cars = RS_GOLDEN_CARS;
    def.track = g->track;
    def.laps = RS_GOLDEN_LAPS;
    def.start_tick = 120; /* two seconds on the grid */
    def.car_collisions = true;
    st = rs_world_create(&def, &g->world);
    if (st != RS_OK)
        goto fail;
    for (uint32_t c = 0; c < RS_GOLDEN_CARS; c++) {
        rs_car_spawn sp;
        if (!rs_track_grid_slot(g->track, c, &sp)) {
            st = RS_ERR_RANGE;
            if (err && err_len)
                snprintf(err, err_len, "golden scenario: %s has fewer than %d grid slots",
                         RS_GOLDEN_TRACK, RS_GOLDEN_CARS);
            goto fail;
        }
        /* Half the field lets the AI pick its gears (manual box), half
         * drives the automatic box, so both gearbox paths feed the hash. */
        sp.transmission = c % 4 < 2 ? RS_TRANSMISSION_MANUAL : RS_TRANSMISSION_AUTO;
        /* The golden trace was recorded with every car starting in neutral
         * (the grid's default then; the AI asks for its gear at lights out).
         * The physics did not change when the grid moved to Drive, so the
         * scenario keeps its start and its trace. */
        sp.gear = RS_GEAR_NEUTRAL;
        st = rs_world_add_car(g->world, g->params[c % 2], &sp, NULL);
        if (st != RS_OK)
            goto fail;
        rs_driver_options opt = rs_driver_options_default();
        opt.seed = c + 1;
        opt.pace = 0.95 + 0.005 * (double)(c % 5);
        st = rs_driver_create(g->line[c % 2], &opt, &g->driver[c]);
        if (st != RS_OK)
            goto fail;
    }
    *out = g;
    return RS_OK;
fail:
    if (err && err_len && err[0] == '\0')
        snprintf(err, err_len, "golden scenario: %s", rs_status_str(st));
    rs_golden_destroy(g);
    return st;
}

void rs_golden_destroy(rs_golden *g)
{
    if (!g)
        return;
    rs_world_destroy(g->world);
    for (int c = 0; c < RS_GOLDEN_CARS; c++)
        rs_driver_destroy(g->driver[c]);
    for (int i = 0; i < 2; i++) {
        rs_racing_line_destroy(g->line[i]);
        rs_car_params_destroy(g->params[i]);
    }
    rs_track_destroy(g->track);
    free(g);
}

rs_world *rs_golden_world(rs_golden *g) { return g->world; }

const rs_input *rs_golden_last_inputs(const rs_golden *g) { return g->last; }

/* A driver error: for a second and a half, one car (slot 6, a formula car) turns
 * hard right at full throttle. It ends in the barrier or a spin, so wall
 * impacts and the AI's recovery are part of the golden race too. */
static bool blunder(uint32_t car, uint64_t tick, rs_input *in)
{
    if (car != 5 || tick < RS_GOLDEN_BLUNDER_TICK || tick >= RS_GOLDEN_BLUNDER_TICK + 90)
        return false;
    *in = rs_input_quantise(-1.0, 1.0, 0.0, 0.0, 0.0);
    return true;
}

rs_status rs_golden_step(rs_golden *g)
{
    uint64_t tick = rs_world_tick(g->world);
    for (uint32_t c = 0; c < RS_GOLDEN_CARS; c++) {
        rs_car_id id = {(uint16_t)(c + 1)};
        /* The driver runs every tick, blunder or not, so it sees the car. */
        g->last[c] = rs_driver_update(g->driver[c], g->world, id);
        blunder(c, tick, &g->last[c]);
        rs_world_set_input(g->world, id, &g->last[c]);
    }
    return rs_world_step(g->world);
}
