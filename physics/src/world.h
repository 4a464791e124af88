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

/* How a car came into the world, for the lap recorder (lapproof_record.c),
 * which proves laps during which cars joined. Bookkeeping, not state: the
 * snapshot does not hold it. */
typedef struct rs_world_join {
    uint64_t tick;      /* the tick before which the car was added */
    rs_car_spawn spawn; /* as given, with the gear, gearbox and clutch mode the car took
                           from it (out-of-range values as the car clamped them) */
} rs_world_join;

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
    rs_world_join *joins;    /* per slot */
    rs_event_sink events;    /* the last step's events */
    uint8_t *scratch;        /* snapshot-sized buffer for hashing */
    size_t scratch_len;
};

/* Bytes of one car slot's canonical state (fixed). */
size_t rs_snapshot_car_size(void);

/* Writes one slot (car dynamics, race and contact state) canonically. */
void rs_snapshot_write_slot(const rs_world *world, uint32_t slot, rs_writer *w);

/* The same from the slot's parts wherever they are kept (a world image's
 * copies): of the car, only its parameter hash and state are read. */
void rs_snapshot_write_parts(const rs_car *car, const rs_race_car *rc, const rs_collide_car *cc,
                             rs_writer *w);

/* Everything a snapshot holds before its cars: the header with tick, the
 * race state race and the car count. */
void rs_snapshot_write_head(const rs_world *world, uint64_t tick, const rs_race *race,
                            uint32_t count, rs_writer *w);

/* The bytes an image takes when the world is full (max_cars cars). */
size_t rs_world_image_cap(const rs_world *world);

/* Writes the snapshot of the state an image of this world holds into buf,
 * as rs_world_snapshot would have written it then. The world may have more
 * cars now than the image has (cars join, never leave; the lap recorder
 * saves an image every tick and needs a snapshot only when a lap starts).
 * Returns the snapshot's length; 0 when the image is not this world's, len
 * does not hold it or cap is too small. */
size_t rs_world_image_snapshot(const rs_world *world, const void *image, size_t len,
                               uint8_t *buf, size_t cap);

/* The number of cars in snapshot bytes, read from their header; false when
 * the bytes are not a snapshot of this format or their length does not fit
 * that number. Nothing else is checked (rs_world_restore does that). */
bool rs_snapshot_cars(const uint8_t *snap, size_t len, uint32_t *cars);

#endif
