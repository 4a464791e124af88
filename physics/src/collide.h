/*
 * Collisions: cars against barriers and cars against each other, in the
 * horizontal plane (docs/COLLISIONS.md).
 *
 * A car's footprint is its body box (length x width) seen from above,
 * centred between the axles and turned by the car's heading; barriers are
 * vertical walls of zero thickness, solid from both sides. A contact gets
 * an impulse with restitution and Coulomb friction at the contact point, at
 * the height of the centre of mass (so a hit yaws the car but does not roll
 * it), and the overlap is removed by moving the car (position projection,
 * no velocity added). The impulse is built so that kinetic energy never
 * rises; walls always win over car-to-car pushes.
 *
 * The world calls, per substep, after every car has been integrated:
 * rs_collide_barriers for each car in slot order, then (unless ghost mode)
 * rs_collide_cars once. Everything here is deterministic: fixed visiting
 * orders, no allocation while stepping, no floating point in hash keys.
 */
#ifndef RS_COLLIDE_H
#define RS_COLLIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "bytes.h"
#include "car.h"
#include "events.h"
#include "track_internal.h"

/* Hits (counted and reported as events) and the contacts that are not:
 * an impact (a contact that needed an impulse) is a new hit when the car
 * had been clear of that kind of obstacle, by more than RS_COLLIDE_TOUCH_M,
 * for at least RS_COLLIDE_QUIET_S (a contact begins), or when its closing
 * speed is at least RS_COLLIDE_HIT_SPEED_M_S and the car's last hit of that
 * kind is at least RS_COLLIDE_QUIET_S old. So a scrape along a wall is one
 * hit, and so is a crash whose corners slap the wall within a quarter of a
 * second; a car that bounces off and comes back is hit again. For a car
 * pair, "the car" is either of the two. */
#define RS_COLLIDE_QUIET_S 0.25
#define RS_COLLIDE_HIT_SPEED_M_S 1.0
#define RS_COLLIDE_TOUCH_M 0.01
/* Car-to-car contact coefficients (barriers carry their own). */
#define RS_COLLIDE_CAR_RESTITUTION 0.2
#define RS_COLLIDE_CAR_FRICTION 0.4

/* Per-car persistent contact state and hit counters. Part of the world
 * snapshot (RS_COLLIDE_CAR_BYTES canonical bytes). */
typedef struct rs_collide_car {
    double barrier_quiet_s;   /* time since the car last touched a barrier */
    double barrier_hit_age_s; /* time since its last barrier hit */
    double car_quiet_s;       /* time since it last touched another car */
    double car_hit_age_s;     /* time since its last car-to-car hit */
    uint32_t barrier_hits;    /* distinct barrier hits (rule above) */
    uint32_t car_hits;        /* distinct car-to-car hits, counted for both cars */
} rs_collide_car;
/* (The four times stop growing at 1 s: any value >= RS_COLLIDE_QUIET_S
 * means "long ago".) */

#define RS_COLLIDE_CAR_BYTES 40

/* A fresh car: no hits, quiet for long enough that its first touch counts.
 * Never fails. */
void rs_collide_car_init(rs_collide_car *cc);

/* Canonical bytes (RS_COLLIDE_CAR_BYTES), for the snapshot and the hash. */
void rs_collide_car_write(const rs_collide_car *cc, rs_writer *w);

/* Reads what rs_collide_car_write wrote; errors are the reader's sticky flag. */
void rs_collide_car_read(rs_collide_car *cc, rs_reader *r);

/* Resolves one car against the track's barriers after the car has been
 * integrated over one substep of dt seconds; prev_pos is its centre of mass
 * at the substep start (used for the swept query, the tunnelling guard and
 * the choice of contact normal). Changes the car's position, velocity and
 * angular velocity; updates cc and may push one RS_EVENT_BARRIER_HIT with
 * car = car_id1. track NULL (or without barriers) only advances cc's quiet
 * timer. events may be NULL. Never fails; allocates nothing. */
void rs_collide_barriers(rs_car *car, uint16_t car_id1, const double prev_pos[3],
                         const rs_track *track, double dt, rs_collide_car *cc,
                         rs_event_sink *events);

/* Broadphase memory for rs_collide_cars, sized for max_cars at world
 * creation. Caller frees with rs_collide_scratch_destroy. On error *out is
 * NULL (RS_ERR_ARG for max_cars 0, RS_ERR_NOMEM). */
typedef struct rs_collide_scratch rs_collide_scratch;
rs_status rs_collide_scratch_create(uint32_t max_cars, rs_collide_scratch **out);

/* Accepts NULL. */
void rs_collide_scratch_destroy(rs_collide_scratch *s);

/* Resolves all car pairs after every car has been integrated and resolved
 * against the barriers in this substep. Pairs (i, j), i < j by slot index,
 * are visited in ascending order; car i has id i + 1. Cars that car-to-car
 * resolution moved are then run against track's barriers once more (track
 * may be NULL), so walls always win. cc has n entries; n <= the scratch's
 * max_cars (extra cars are ignored). Pushes RS_EVENT_CAR_HIT (car < other)
 * and possibly RS_EVENT_BARRIER_HIT. Never fails; allocates nothing. */
void rs_collide_cars(rs_car *cars, uint32_t n, const rs_track *track, double dt,
                     rs_collide_car *cc, rs_collide_scratch *scratch, rs_event_sink *events);

/* ---------------------------------------------------- for tests and tools */

/* A car's footprint: centre, unit heading and left axes, half extents. */
typedef struct rs_box2 {
    double c[2];
    double ax[2]; /* heading: the body x axis projected on the ground */
    double ay[2]; /* left */
    double h[2];  /* half length, half width */
} rs_box2;

void rs_collide_footprint(const rs_car *car, rs_box2 *out);

/* The broadphase's candidate pairs for the cars' current poses, in the
 * order rs_collide_cars visits them, as (i, j) index pairs in pairs[2k],
 * pairs[2k+1]. Writes at most cap pairs; returns how many there are.
 * brute_force compares every pair, else the grid is used whatever the
 * count (same result by contract; the test checks it). */
uint32_t rs_collide_candidate_pairs(const rs_car *cars, uint32_t n, rs_collide_scratch *scratch,
                                    bool brute_force, uint32_t *pairs, uint32_t cap);

/* How rs_collide_cars finds its candidate pairs: by default every pair for
 * small fields and the grid for large ones; tests force one or the other. */
typedef enum rs_collide_broadphase {
    RS_BROADPHASE_AUTO = 0,
    RS_BROADPHASE_GRID,
    RS_BROADPHASE_EVERY_PAIR,
} rs_collide_broadphase;
void rs_collide_scratch_set_broadphase(rs_collide_scratch *s, rs_collide_broadphase mode);

#endif
