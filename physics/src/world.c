/*
 * World lifecycle, inputs and the fixed-step loop.
 *
 * A tick applies each car's input once (gear logic is per tick), then runs
 * the substeps; within a substep the cars are visited in slot order so any
 * future interaction (collisions) is deterministic.
 */
#include "world.h"

#include <stdlib.h>
#include <string.h>

#include "detmath.h"

const char *rs_status_str(rs_status status)
{
    switch (status) {
    case RS_OK: return "ok";
    case RS_ERR_IO: return "file could not be read";
    case RS_ERR_PARSE: return "malformed text";
    case RS_ERR_RANGE: return "value out of range";
    case RS_ERR_MISSING: return "required field missing";
    case RS_ERR_NOMEM: return "out of memory";
    case RS_ERR_FULL: return "world is full";
    case RS_ERR_BUFFER: return "buffer too small or bytes truncated";
    case RS_ERR_FORMAT: return "not a recognised snapshot or parameter block";
    case RS_ERR_MISMATCH: return "snapshot does not match this world";
    case RS_ERR_NONFINITE: return "non-finite value in the simulation state";
    case RS_ERR_ARG: return "invalid argument";
    }
    return "unknown status";
}

rs_input rs_input_default(void)
{
    rs_input in = {0, 0, 0, 0, 0, RS_GEAR_KEEP, 0};
    return in;
}

static int quantise(double x, double lo, double hi, int scale)
{
    if (!(x == x))
        x = 0.0; /* NaN */
    x = rs_clamp(x, lo, hi) * scale;
    /* Round half away from zero; the value is in range, so the cast is safe. */
    return x >= 0.0 ? (int)(x + 0.5) : -(int)(-x + 0.5);
}

rs_input rs_input_quantise(double steer, double throttle, double brake, double clutch,
                           double handbrake)
{
    rs_input in = rs_input_default();
    in.steer = (int16_t)quantise(steer, -1.0, 1.0, RS_STEER_MAX);
    in.throttle = (uint8_t)quantise(throttle, 0.0, 1.0, RS_PEDAL_MAX);
    in.brake = (uint8_t)quantise(brake, 0.0, 1.0, RS_PEDAL_MAX);
    in.clutch = (uint8_t)quantise(clutch, 0.0, 1.0, RS_PEDAL_MAX);
    in.handbrake = (uint8_t)quantise(handbrake, 0.0, 1.0, RS_PEDAL_MAX);
    return in;
}

rs_world_def rs_world_default(void)
{
    rs_world_def d;
    memset(&d, 0, sizeof d);
    d.tick_hz = 60;
    d.substeps = 4;
    d.max_cars = 16;
    d.ground = NULL;
    d.ground_ctx = NULL;
    /* Grip and drag per surface: kerbs a little slippery, grass and gravel
     * slow a car down and cost grip (gravel mostly drag: it digs in). */
    d.surfaces[RS_SURFACE_ASPHALT] = (rs_surface_params){1.0, 0.0};
    d.surfaces[RS_SURFACE_KERB] = (rs_surface_params){0.92, 0.004};
    d.surfaces[RS_SURFACE_GRASS] = (rs_surface_params){0.55, 0.06};
    d.surfaces[RS_SURFACE_GRAVEL] = (rs_surface_params){0.5, 0.25};
    return d;
}

rs_car_spawn rs_car_spawn_default(void)
{
    rs_car_spawn s;
    memset(&s, 0, sizeof s);
    s.gear = 0;
    s.transmission = RS_TRANSMISSION_AUTO;
    s.clutch_mode = RS_CLUTCH_AUTO;
    return s;
}

rs_status rs_world_create(const rs_world_def *def, rs_world **out)
{
    rs_world *w = NULL;
    *out = NULL;
    if (!def || def->tick_hz < 1 || def->tick_hz > 10000 || def->substeps < 1 ||
        def->substeps > 64 || def->max_cars < 1 || def->max_cars > 65535)
        return RS_ERR_ARG;
    for (int s = 0; s < RS_SURFACE_COUNT; s++) {
        const rs_surface_params *p = &def->surfaces[s];
        if (!(p->grip_scale > 0.0 && p->grip_scale <= 2.0) ||
            !(p->rolling_drag_coef >= 0.0 && p->rolling_drag_coef <= 2.0))
            return RS_ERR_RANGE;
    }
    w = calloc(1, sizeof *w);
    if (!w)
        goto fail;
    w->def = *def;
    w->cars = calloc(def->max_cars, sizeof *w->cars);
    w->scratch_len = rs_world_snapshot(w, NULL, 0) + (size_t)def->max_cars * rs_snapshot_car_size();
    w->scratch = malloc(w->scratch_len);
    if (!w->cars || !w->scratch)
        goto fail;
    *out = w;
    return RS_OK;
fail:
    rs_world_destroy(w);
    return RS_ERR_NOMEM;
}

void rs_world_destroy(rs_world *world)
{
    if (!world)
        return;
    free(world->cars);
    free(world->scratch);
    free(world);
}

rs_status rs_world_add_car(rs_world *world, const rs_car_params *params,
                           const rs_car_spawn *spawn, rs_car_id *out)
{
    if (out)
        out->index1 = 0;
    if (!world || !params || !spawn)
        return RS_ERR_ARG;
    if (world->count >= world->def.max_cars)
        return RS_ERR_FULL;
    rs_car *car = &world->cars[world->count];
    rs_car_init(car, params, spawn, &world->def);
    if (!rs_car_finite(car))
        return RS_ERR_RANGE;
    world->count++;
    if (out)
        out->index1 = (uint16_t)world->count;
    return RS_OK;
}

uint32_t rs_world_car_count(const rs_world *world) { return world->count; }

static rs_car *car_of(const rs_world *world, rs_car_id id)
{
    if (!world || id.index1 == 0 || id.index1 > world->count)
        return NULL;
    return &world->cars[id.index1 - 1];
}

rs_status rs_world_set_input(rs_world *world, rs_car_id id, const rs_input *input)
{
    rs_car *car = car_of(world, id);
    if (!car || !input)
        return RS_ERR_ARG;
    rs_input in = *input;
    if (in.steer < -RS_STEER_MAX)
        in.steer = -RS_STEER_MAX;
    if (in.gear != RS_GEAR_KEEP && in.gear < RS_GEAR_REVERSE)
        in.gear = RS_GEAR_REVERSE;
    in.buttons &= RS_BUTTON_SHIFT_UP | RS_BUTTON_SHIFT_DOWN;
    car->input = in;
    return RS_OK;
}

rs_status rs_world_step(rs_world *world)
{
    if (world->broken)
        return RS_ERR_NONFINITE;
    double tick_dt = 1.0 / (double)world->def.tick_hz;
    double dt = tick_dt / (double)world->def.substeps;
    for (uint32_t c = 0; c < world->count; c++)
        rs_car_tick_input(&world->cars[c], tick_dt);
    for (uint32_t s = 0; s < world->def.substeps; s++)
        for (uint32_t c = 0; c < world->count; c++)
            rs_car_substep(&world->cars[c], &world->def, dt, s == 0);
    world->tick++;
    for (uint32_t c = 0; c < world->count; c++) {
        if (!rs_car_finite(&world->cars[c])) {
            world->broken = 1;
            return RS_ERR_NONFINITE;
        }
    }
    return RS_OK;
}

uint64_t rs_world_tick(const rs_world *world) { return world->tick; }

rs_status rs_world_car_state(const rs_world *world, rs_car_id id, rs_car_state *out)
{
    const rs_car *car = car_of(world, id);
    if (!car || !out)
        return RS_ERR_ARG;
    rs_car_observe(car, out);
    return RS_OK;
}
