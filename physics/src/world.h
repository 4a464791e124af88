/*
 * The world object: cars in fixed slots, their race and contact state, the
 * tick counter, the per-step event buffer and the scratch space hashing and
 * collisions need, all allocated at creation so stepping never allocates.
 */
#ifndef RS_WORLD_H
#define RS_WORLD_H

#include "car.h"
#include "collide.h"
#include "events.h"
#include "race.h"

struct rs_world {
    rs_world_def def;
    uint32_t count;
    uint64_t tick;
    int broken;              /* a NaN/Inf appeared: stepping refuses from then on */
    rs_car *cars;            /* def.max_cars slots */
    rs_race race;            /* laps, finishers (snapshotted) */
    rs_race_car *race_cars;  /* per slot (snapshotted) */
    rs_race_car *race_tmp;   /* per slot: a snapshot's race state while it is checked */
    rs_collide_car *contact; /* per slot (snapshotted) */
    rs_collide_scratch *collide_scratch;
    double (*prev_pos)[3];   /* per slot: centre of mass at the substep start */
    rs_input *saved_input;   /* per slot: the player's input while held before lights out */
    rs_event_sink events;    /* the last step's events */
    uint8_t *scratch;        /* snapshot-sized buffer for hashing */
    size_t scratch_len;
};

/* Bytes of one car slot's canonical state (fixed). */
size_t rs_snapshot_car_size(void);

/* Writes one slot (car dynamics, race and contact state) canonically. */
void rs_snapshot_write_slot(const rs_world *world, uint32_t slot, rs_writer *w);

#endif
