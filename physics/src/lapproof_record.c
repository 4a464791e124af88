/*
 * Lap proofs, recording (racesim/lapproof.h): a lap's start snapshot and
 * input log kept while a race runs, and the proof written from them.
 *
 * When a lap starts is only known after the tick in which it started (the
 * line crossing happens inside a substep), so the recorder saves the world's
 * image every tick into one buffer, and at the next tick boundary, seeing
 * that a car's lap began in the tick just stepped, writes that image's
 * snapshot into the car's own start buffer. An image, not a snapshot, every
 * tick: a room records around every tick it steps, a lap starts in few of
 * them, and saving an image costs a tenth of writing a snapshot. Inputs go to a ring indexed by tick. The snapshot already
 * holds each car's input for its first tick; the log repeats it so the
 * replay is one simple loop.
 *
 * The recorder reads the cars' inputs from the world's internals: it is
 * part of the physics library, and a public getter would only serve it.
 */
#include <stdlib.h>
#include <string.h>

#include "racesim/lapproof.h"
#include "racesim/track.h"

#include "block.h"
#include "bytes.h"
#include "lapproof_format.h"
#include "world.h"

/* --------------------------------------------------------------- recorder */

/* What changes when a lap starts, per car. */
typedef struct lap_mark {
    uint8_t status;
    uint32_t laps_completed;
    int64_t lap_start_us;
} lap_mark;

/* Every array has a slot per car the world can ever hold (max_cars), so
 * cars joining never allocate. */
struct rs_lap_recorder {
    uint32_t max_cars;
    uint32_t cars;        /* cars in the world at the last rs_lap_recorder_before_step */
    uint32_t max_ticks;
    size_t snap_cap;      /* a snapshot of max_cars cars */
    size_t image_cap;     /* an image of max_cars cars (rs_world_image_cap) */
    uint8_t *cur_image;   /* the world's image at the start of tick cur_tick */
    uint32_t cur_cars;    /* the cars in it */
    uint64_t cur_tick;
    bool have_cur;
    uint8_t *start_snap;  /* max_cars x snap_cap: the snapshot of the tick each lap began in */
    size_t *start_len;
    uint32_t *start_cars; /* the cars in it */
    uint64_t *start_tick;
    bool *has_start;
    lap_mark *mark;       /* per car, as of the last boundary */
    uint64_t *join_tick;  /* per car: the tick before which it was added */
    rs_car_spawn *spawn;  /* per car: how it was added */
    rs_input *ring;       /* max_ticks x max_cars, row (tick % max_ticks); a row holds the
                             inputs of the cars present in its tick */
};

static lap_mark mark_of(const rs_world *world, uint32_t c)
{
    rs_race_car_state s;
    lap_mark m = {0, 0, 0};
    if (rs_world_race_state(world, (rs_car_id){(uint16_t)(c + 1)}, &s) == RS_OK) {
        m.status = s.status;
        m.laps_completed = s.laps_completed;
        m.lap_start_us = s.lap_start_us;
    }
    return m;
}

void rs_lap_recorder_destroy(rs_lap_recorder *rec)
{
    free(rec); /* the arrays are in the same block */
}

/* The snapshots, per-car marks and joins and the input ring after the
 * struct in one block (block.h). */
static void recorder_layout(void *obj, rs_block *b)
{
    rs_lap_recorder *rec = obj;
    size_t cars = rec->max_cars;
    rec->cur_image = rs_block_take(b, rec->image_cap, 1);
    rec->start_snap = rs_block_take(b, cars, rec->snap_cap);
    rec->start_len = rs_block_take(b, cars, sizeof *rec->start_len);
    rec->start_cars = rs_block_take(b, cars, sizeof *rec->start_cars);
    rec->start_tick = rs_block_take(b, cars, sizeof *rec->start_tick);
    rec->has_start = rs_block_take(b, cars, sizeof *rec->has_start);
    rec->mark = rs_block_take(b, cars, sizeof *rec->mark);
    rec->join_tick = rs_block_take(b, cars, sizeof *rec->join_tick);
    rec->spawn = rs_block_take(b, cars, sizeof *rec->spawn);
    rec->ring = rs_block_take(b, (size_t)rec->max_ticks * cars, sizeof *rec->ring);
}

rs_status rs_lap_recorder_create(const rs_world *world, uint32_t max_lap_ticks,
                                 rs_lap_recorder **out)
{
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    /* The world replaced a NULL ground with the track's own; anything else
     * is a function a proof cannot carry. */
    if (!world || world->count == 0 || !world->def.track ||
        world->def.ground != rs_track_ground || world->def.ground_ctx != world->def.track ||
        max_lap_ticks == 0 || max_lap_ticks > MAX_LAP_TICKS)
        return RS_ERR_ARG;
    rs_lap_recorder head;
    memset(&head, 0, sizeof head);
    head.max_cars = world->def.max_cars;
    head.cars = world->count;
    head.max_ticks = max_lap_ticks;
    head.snap_cap = rs_world_snapshot(world, NULL, 0) +
                    (size_t)(head.max_cars - world->count) * rs_snapshot_car_size();
    head.image_cap = rs_world_image_cap(world);
    rs_lap_recorder *rec = rs_block_alloc(&head, sizeof head, recorder_layout);
    if (!rec)
        return RS_ERR_NOMEM;
    for (uint32_t c = 0; c < rec->cars; c++)
        rec->mark[c] = mark_of(world, c);
    *out = rec;
    return RS_OK;
}

/* Notes the cars added since the last boundary; false when one was added
 * before an earlier step than tick t (after the last
 * rs_lap_recorder_before_step, not before this one): that step is not in
 * the log, so no lap in progress can be proved. */
static bool note_joins(rs_lap_recorder *rec, const rs_world *world, uint64_t t)
{
    bool in_order = true;
    for (uint32_t c = rec->cars; c < world->count; c++) {
        rec->join_tick[c] = world->joins[c].tick;
        rec->spawn[c] = world->joins[c].spawn;
        rec->mark[c] = mark_of(world, c);
        rec->has_start[c] = false;
        in_order = in_order && world->joins[c].tick == t;
    }
    rec->cars = world->count;
    return in_order;
}

rs_status rs_lap_recorder_before_step(rs_lap_recorder *rec, const rs_world *world)
{
    if (!rec || !world)
        return RS_ERR_ARG;
    /* Cars join, never leave; the arrays are sized by max_cars. */
    if (world->count < rec->cars || world->def.max_cars != rec->max_cars)
        return RS_ERR_MISMATCH;
    uint64_t t = world->tick;
    bool continuous = rec->have_cur && t == rec->cur_tick + 1;
    continuous = note_joins(rec, world, t) && continuous;
    const uint8_t *cur_snap = NULL; /* cur_image's snapshot, once a lap start needs it */
    size_t cur_len = 0;
    for (uint32_t c = 0; c < rec->cars; c++) {
        lap_mark m = mark_of(world, c);
        lap_mark *old = &rec->mark[c];
        bool changed = m.status != old->status || m.laps_completed != old->laps_completed ||
                       m.lap_start_us != old->lap_start_us;
        if (!continuous) {
            rec->has_start[c] = false; /* we did not see this lap begin */
        } else if (changed) {
            /* Its lap began in the tick just stepped, from cur_image:
             * written as a snapshot once, copied for any other car. */
            uint8_t *start = rec->start_snap + (size_t)c * rec->snap_cap;
            rec->has_start[c] = m.status == RS_RACE_RACING;
            if (rec->has_start[c] && cur_snap) {
                memcpy(start, cur_snap, cur_len);
            } else if (rec->has_start[c]) {
                /* Never 0: the image is this world's, its cars are never more
                 * than the world's, and the buffer holds max_cars. */
                cur_len = rs_world_image_snapshot(world, rec->cur_image, rec->image_cap, start,
                                                  rec->snap_cap);
                cur_snap = cur_len > 0 ? start : NULL;
                rec->has_start[c] = cur_len > 0;
            }
            if (rec->has_start[c]) {
                rec->start_len[c] = cur_len;
                rec->start_cars[c] = rec->cur_cars;
                rec->start_tick[c] = rec->cur_tick;
            }
        }
        *old = m;
    }
    rs_world_image_save(world, rec->cur_image, rec->image_cap); /* sized for max_cars */
    rec->cur_cars = rec->cars;
    rs_input *row = rec->ring + (size_t)(t % rec->max_ticks) * rec->max_cars;
    for (uint32_t c = 0; c < rec->cars; c++)
        row[c] = world->cars[c].input;
    rec->cur_tick = t;
    rec->have_cur = true;
    return RS_OK;
}

/* Everything before the snapshot. */
static void write_header(rs_writer *w, const rs_world *world, const rs_event *lap,
                         uint64_t end_hash, uint64_t first_tick, uint32_t ticks)
{
    const rs_world_def *def = &world->def;
    rs_write_bytes(w, PROOF_MAGIC, 4);
    rs_write_u32(w, RS_LAP_PROOF_VERSION);
    rs_write_u32(w, RS_PHYSICS_VERSION);
    rs_write_u32(w, def->tick_hz);
    rs_write_u32(w, def->substeps);
    rs_write_u32(w, def->laps);
    rs_write_u64(w, def->start_tick);
    rs_write_u8(w, def->car_collisions ? 1 : 0);
    rs_write_u8(w, def->start_hold ? 1 : 0);
    for (int s = 0; s < RS_SURFACE_COUNT; s++) {
        rs_write_f64(w, def->surfaces[s].grip_scale);
        rs_write_f64(w, def->surfaces[s].rolling_drag_coef);
    }
    rs_write_u64(w, rs_track_hash(def->track));
    rs_write_u32(w, world->count);
    for (uint32_t c = 0; c < world->count; c++)
        rs_write_u64(w, world->cars[c].params->hash);
    rs_write_u16(w, lap->car);
    rs_write_u32(w, lap->lap);
    rs_write_u8(w, lap->valid ? 1 : 0);
    rs_write_u8(w, lap->reason);
    rs_write_u64(w, (uint64_t)lap->duration_us);
    rs_write_u64(w, (uint64_t)lap->time_us);
    rs_write_u32(w, lap->sector_count);
    for (uint32_t s = 0; s < lap->sector_count; s++)
        rs_write_u64(w, (uint64_t)lap->sectors_us[s]);
    rs_write_u64(w, end_hash);
    rs_write_u64(w, first_tick);
    rs_write_u32(w, ticks);
}

/* The proof of car c's lap, whose log runs from its start tick to
 * cur_tick: the header, the start snapshot (which holds the first
 * start_cars[c] cars: every later one joined inside the log), the joins and
 * the input log. With w measuring (no buffer) it gives the size. */
static void write_proof(const rs_lap_recorder *rec, rs_writer *w, const rs_world *world,
                        uint32_t c, const rs_event *lap, uint64_t end_hash)
{
    uint64_t first = rec->start_tick[c];
    uint32_t snap_cars = rec->start_cars[c];
    write_header(w, world, lap, end_hash, first, (uint32_t)(rec->cur_tick - first + 1));
    rs_write_u32(w, (uint32_t)rec->start_len[c]);
    rs_write_bytes(w, rec->start_snap + (size_t)c * rec->snap_cap, rec->start_len[c]);
    rs_write_u32(w, rec->cars - snap_cars);
    for (uint32_t k = snap_cars; k < rec->cars; k++)
        rs_lap_join_write(w, rec->join_tick[k], (uint16_t)(k + 1u), &rec->spawn[k]);
    uint32_t present = snap_cars;
    for (uint64_t t = first; t <= rec->cur_tick; t++) {
        while (present < rec->cars && rec->join_tick[present] <= t)
            present++;
        const rs_input *row = rec->ring + (size_t)(t % rec->max_ticks) * rec->max_cars;
        for (uint32_t k = 0; k < present; k++)
            rs_lap_input_write(w, &row[k]);
    }
}

rs_status rs_lap_recorder_take(rs_lap_recorder *rec, const rs_world *world, rs_car_id car,
                               uint8_t **proof, size_t *len)
{
    if (!proof || !len)
        return RS_ERR_ARG;
    *proof = NULL;
    *len = 0;
    /* A car added between rs_lap_recorder_before_step and the step would
     * be in the step but not in the log. */
    if (!rec || !world || world->count != rec->cars || car.index1 == 0 ||
        car.index1 > rec->cars || !rec->have_cur || world->tick != rec->cur_tick + 1)
        return RS_ERR_ARG;
    size_t n;
    const rs_event *ev = rs_world_events(world, &n);
    const rs_event *lap = NULL;
    for (size_t k = 0; k < n && !lap; k++)
        if (ev[k].type == RS_EVENT_LAP && ev[k].car == car.index1)
            lap = &ev[k];
    uint32_t c = car.index1 - 1u;
    if (!lap || !rec->has_start[c] || lap->sector_count > RS_MAX_SECTORS)
        return RS_ERR_MISSING;
    uint64_t first = rec->start_tick[c];
    if (rec->cur_tick - first >= rec->max_ticks)
        return RS_ERR_FULL;
    uint64_t end_hash = rs_world_car_hash(world, car);
    rs_writer w = rs_writer_init(NULL, 0);
    write_proof(rec, &w, world, c, lap, end_hash);
    size_t size = w.len;
    uint8_t *buf = malloc(size);
    if (!buf)
        return RS_ERR_NOMEM;
    w = rs_writer_init(buf, size);
    write_proof(rec, &w, world, c, lap, end_hash);
    if (w.overflow || w.nonfinite || w.len != size) {
        free(buf);
        return RS_ERR_RANGE; /* non-finite surface parameters or spawn: cannot happen in a
                                valid world */
    }
    *proof = buf;
    *len = size;
    return RS_OK;
}
