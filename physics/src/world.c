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

#include "block.h"
#include "detmath.h"
#include "racesim/track.h"

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
    d.track = NULL;
    d.laps = 0;
    d.start_tick = 0;
    d.car_collisions = true;
    d.start_hold = true;
    return d;
}

rs_car_spawn rs_car_spawn_default(void)
{
    rs_car_spawn s;
    memset(&s, 0, sizeof s);
    /* Drive: the automatic clutch slips at a standstill, so a throttle
     * alone moves the car, as it does a road car with an automatic. A car
     * left in neutral would rev at the limiter and go nowhere: the first
     * thing every newcomer to the SDK ran into. */
    s.gear = 1;
    s.transmission = RS_TRANSMISSION_AUTO;
    s.clutch_mode = RS_CLUTCH_AUTO;
    return s;
}

/* Events one step may produce: per car a few timing events per substep is
 * already generous (lines are metres apart), plus hits. */
static uint32_t event_capacity(uint32_t max_cars) { return 64u + 16u * max_cars; }

/* The per-slot arrays, the event buffer and the hashing buffer after the
 * struct in one block (block.h): all are sized by the definition. */
static void world_layout(void *obj, rs_block *b)
{
    rs_world *w = obj;
    size_t n = w->def.max_cars;
    w->cars = rs_block_take(b, n, sizeof *w->cars);
    w->race_cars = rs_block_take(b, n, sizeof *w->race_cars);
    w->race_tmp = rs_block_take(b, n, sizeof *w->race_tmp);
    w->contact = rs_block_take(b, n, sizeof *w->contact);
    w->prev_pos = rs_block_take(b, n, sizeof *w->prev_pos);
    w->saved_input = rs_block_take(b, n, sizeof *w->saved_input);
    w->joins = rs_block_take(b, n, sizeof *w->joins);
    w->events.buf = rs_block_take(b, w->events.cap, sizeof *w->events.buf);
    w->scratch = rs_block_take(b, w->scratch_len, 1);
}

rs_status rs_world_create(const rs_world_def *def, rs_world **out)
{
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
    rs_world head;
    memset(&head, 0, sizeof head);
    head.def = *def;
    if (def->track && !def->ground) {
        head.def.ground = rs_track_ground;
        head.def.ground_ctx = def->track;
    }
    rs_race_init(&head.race, def->laps);
    head.events.cap = event_capacity(def->max_cars);
    /* The snapshot of the empty world is its fixed header. */
    head.scratch_len =
        rs_world_snapshot(&head, NULL, 0) + (size_t)def->max_cars * rs_snapshot_car_size();
    rs_world *w = rs_block_alloc(&head, sizeof head, world_layout);
    if (!w)
        return RS_ERR_NOMEM;
    if (rs_collide_scratch_create(def->max_cars, &w->collide_scratch) != RS_OK) {
        free(w);
        return RS_ERR_NOMEM;
    }
    *out = w;
    return RS_OK;
}

void rs_world_destroy(rs_world *world)
{
    if (!world)
        return;
    rs_collide_scratch_destroy(world->collide_scratch);
    free(world); /* the arrays are in the same block */
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
    rs_race_car_init(&world->race_cars[world->count], world->count);
    rs_collide_car_init(&world->contact[world->count]);
    rs_world_join *join = &world->joins[world->count];
    join->tick = world->tick;
    join->spawn = *spawn;
    join->spawn.gear = (int8_t)car->gear;
    join->spawn.transmission = car->transmission;
    join->spawn.clutch_mode = car->clutch_mode;
    world->count++;
    if (out)
        out->index1 = (uint16_t)world->count;
    return RS_OK;
}

uint32_t rs_world_car_count(const rs_world *world) { return world->count; }

const rs_track *rs_world_track(const rs_world *world) { return world->def.track; }

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

static bool all_wheels_out(const rs_car *car)
{
    for (int i = 0; i < 4; i++)
        if (car->wheel[i].inside_limits)
            return false;
    return true;
}

/* One substep of every car: integrate, then barriers, then car pairs (the
 * walls get the last word inside rs_collide_cars), then the timing lines
 * against the centre-of-mass path the collisions left. */
static void substep(rs_world *world, uint32_t s, double dt)
{
    const rs_world_def *def = &world->def;
    const rs_track *track = def->track;
    world->events.substep = s;
    for (uint32_t c = 0; c < world->count; c++) {
        rs_car *car = &world->cars[c];
        for (int j = 0; j < 3; j++)
            world->prev_pos[c][j] = car->pos[j];
        rs_car_substep(car, def, dt, s == 0);
    }
    if (track)
        for (uint32_t c = 0; c < world->count; c++)
            rs_collide_barriers(&world->cars[c], (uint16_t)(c + 1), world->prev_pos[c], track, dt,
                                &world->contact[c], &world->events);
    if (def->car_collisions && world->count > 1)
        rs_collide_cars(world->cars, world->count, track, dt, world->contact,
                        world->collide_scratch, &world->events);
    if (track) {
        /* The race clock at this substep's start: an exact integer count of
         * substeps over the substep rate, negative before lights out. */
        int64_t n = ((int64_t)world->tick - (int64_t)def->start_tick) * (int64_t)def->substeps +
                    (int64_t)s;
        double clock = (double)n / ((double)def->tick_hz * (double)def->substeps);
        for (uint32_t c = 0; c < world->count; c++) {
            const rs_car *car = &world->cars[c];
            rs_race_substep(&world->race, world->race_cars, world->count, c, track,
                            world->prev_pos[c], car->pos, clock, dt, all_wheels_out(car),
                            &world->events);
        }
        rs_race_substep_end(&world->race, world->race_cars, world->count, &world->events);
    }
}

rs_status rs_world_step(rs_world *world)
{
    if (world->broken)
        return RS_ERR_NONFINITE;
    double tick_dt = 1.0 / (double)world->def.tick_hz;
    double dt = tick_dt / (double)world->def.substeps;
    world->events.count = 0;
    world->events.tick = world->tick;
    /* Before lights out every car is held (unless the world says not to):
     * the players' inputs are kept (they are state) but the car sees full
     * brakes and no throttle. */
    int held = world->def.start_hold && world->tick < world->def.start_tick;
    for (uint32_t c = 0; c < world->count; c++) {
        rs_car *car = &world->cars[c];
        rs_input saved = car->input;
        if (held) {
            car->input.throttle = 0;
            car->input.brake = RS_PEDAL_MAX;
        }
        rs_car_tick_input(car, tick_dt);
        world->saved_input[c] = saved;
    }
    for (uint32_t s = 0; s < world->def.substeps; s++)
        substep(world, s, dt);
    if (held)
        for (uint32_t c = 0; c < world->count; c++)
            world->cars[c].input = world->saved_input[c];
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

/* ---------------------------------------------------------------- racing */

rs_status rs_world_race_state(const rs_world *world, rs_car_id id, rs_race_car_state *out)
{
    if (!car_of(world, id) || !out)
        return RS_ERR_ARG;
    rs_race_fill_state(&world->race_cars[id.index1 - 1], world->def.track, out);
    out->barrier_hits = world->contact[id.index1 - 1].barrier_hits;
    out->car_hits = world->contact[id.index1 - 1].car_hits;
    return RS_OK;
}

int64_t rs_world_race_time_us(const rs_world *world)
{
    /* Rounded like the timing lines, so the clock agrees with event times. */
    double t = ((double)world->tick - (double)world->def.start_tick) / (double)world->def.tick_hz;
    return rs_race_time_us(t);
}

uint32_t rs_world_race_order(const rs_world *world, rs_car_id *out, uint32_t cap)
{
    uint16_t *order = (uint16_t *)world->scratch; /* scratch holds >= 2 bytes per slot */
    uint32_t n = rs_race_order(world->race_cars, world->count, order, world->count);
    for (uint32_t i = 0; i < n && i < cap; i++)
        out[i].index1 = (uint16_t)(order[i] + 1);
    return world->count;
}

bool rs_world_race_over(const rs_world *world) { return world->race.over != 0; }

const rs_event *rs_world_events(const rs_world *world, size_t *count)
{
    *count = world->events.count;
    return world->events.buf;
}

uint64_t rs_world_events_dropped(const rs_world *world) { return world->events.dropped; }
