/*
 * The per-step event buffer: allocated with the world, cleared at the start
 * of every step, filled by timing (race.c) and collisions (collide.c).
 * A full buffer drops new events and counts them; nothing else depends on
 * an event being kept, so the simulation is the same either way.
 */
#ifndef RS_EVENTS_H
#define RS_EVENTS_H

#include <string.h>

#include "racesim/physics.h"

typedef struct rs_event_sink {
    rs_event *buf;
    uint32_t cap;
    uint32_t count;
    uint64_t dropped;
    uint64_t tick;     /* stamped into every pushed event */
    uint32_t substep;  /* ditto */
} rs_event_sink;

/* A zeroed event of the given type for car, stamped with the sink's tick
 * and substep, or NULL (counted as dropped) when the buffer is full.
 * sink may be NULL (tests that do not care): returns NULL. */
static inline rs_event *rs_event_push(rs_event_sink *sink, uint8_t type, uint16_t car)
{
    if (!sink)
        return NULL;
    if (sink->count >= sink->cap) {
        sink->dropped++;
        return NULL;
    }
    rs_event *e = &sink->buf[sink->count++];
    memset(e, 0, sizeof *e);
    e->type = type;
    e->car = car;
    e->tick = sink->tick;
    e->substep = sink->substep;
    return e;
}

#endif
