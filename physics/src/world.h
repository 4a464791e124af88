/*
 * The world object: cars in fixed slots, the tick counter and the scratch
 * space hashing needs, all allocated at creation so stepping never allocates.
 */
#ifndef RS_WORLD_H
#define RS_WORLD_H

#include "car.h"

struct rs_world {
    rs_world_def def;
    uint32_t count;
    uint64_t tick;
    int broken;       /* a NaN/Inf appeared: stepping refuses from then on */
    rs_car *cars;     /* def.max_cars slots */
    uint8_t *scratch; /* snapshot-sized buffer for hashing */
    size_t scratch_len;
};

/* Bytes of one car's canonical state (fixed). */
size_t rs_snapshot_car_size(void);

/* Writes / reads one car's dynamic state canonically. */
void rs_snapshot_write_car(const rs_car *car, rs_writer *w);
void rs_snapshot_read_car(rs_car *car, rs_reader *r);

#endif
