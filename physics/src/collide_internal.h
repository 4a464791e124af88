/*
 * What the collision files share: the car as a rigid body seen from above
 * (collide.c), the contact impulse (collide.c), and the barrier pass that
 * car-to-car resolution re-runs for the cars it moved (collide_barrier.c).
 */
#ifndef RS_COLLIDE_INTERNAL_H
#define RS_COLLIDE_INTERNAL_H

#include "collide.h"

/* The quiet timers stop growing here (anything >= RS_COLLIDE_QUIET_S works). */
#define RS_COLLIDE_QUIET_CAP_S 1.0

/* A car as the impulse sees it. A horizontal impulse J at a point r from the
 * centre of mass (at its height) changes the velocity by J / m and the
 * angular velocity by I_world^-1 (r x J), where r x J is vertical; with
 * I_world^-1 = R I^-1 R^T the body-frame change is I^-1 R^T e_z (r x J)_z. */
typedef struct rs_cbody {
    rs_car *car;
    double inv_m;
    double ez_b[3]; /* world up in the body frame: R^T e_z */
    double g[3];    /* body-frame angular velocity change per unit vertical torque: I^-1 ez_b */
    double kzz;     /* e_z . I_world^-1 e_z = ez_b . g */
} rs_cbody;

void rs_cbody_init(rs_cbody *b, rs_car *car);

/* Body x axis in world (R column 0) and the footprint from a car's pose. */
void rs_collide_box_at(const rs_car *car, const double pos_xy[2], rs_box2 *out);

/* Projection radius of a box on unit direction d. */
static inline double rs_box2_radius(const rs_box2 *b, const double d[2])
{
    double px = b->ax[0] * d[0] + b->ax[1] * d[1];
    double py = b->ay[0] * d[0] + b->ay[1] * d[1];
    return b->h[0] * (px < 0.0 ? -px : px) + b->h[1] * (py < 0.0 ? -py : py);
}

/* How two shapes stand after a separating-axis test, from sep, their least
 * overlap over the axes (negative: the gap): apart by more than
 * RS_COLLIDE_TOUCH_M, touching within it, or overlapping. */
enum { RS_CONTACT_SEPARATED = 0, RS_CONTACT_TOUCHING = 1, RS_CONTACT_PENETRATING = 2 };

static inline int rs_contact_state(double sep)
{
    if (sep <= -RS_COLLIDE_TOUCH_M)
        return RS_CONTACT_SEPARATED;
    return sep <= 0.0 ? RS_CONTACT_TOUCHING : RS_CONTACT_PENETRATING;
}

/* One contact point of a manifold. The caller fills p, n, e and mu;
 * rs_collide_solve fills jn and closing. */
typedef struct rs_cpoint {
    double p[2];    /* point, at the centre of mass's height */
    double n[2];    /* unit normal, towards body a */
    double e, mu;   /* restitution (normal velocity kept), Coulomb friction */
    double gap_speed; /* 0 for a point in contact; > 0 for a speculative point
                         still apart: its gap divided by dt, the normal speed
                         at which it would just touch by the next substep */
    double jn;      /* out: normal impulse, N s */
    double closing; /* out: closing speed along n before the solve, m/s */
    /* solver scratch */
    double ra[2], rb[2], t[2], knn, ktt, target, jt;
} rs_cpoint;

/* Most contact points solved together (a car in a corner touching walls
 * with several corners); points beyond it are left out of the solve. */
#define RS_COLLIDE_MAX_POINTS 16

/* Resolves the approach at a manifold of *count contact points between
 * body a and body b (b NULL: a fixed wall). Points that share a normal are
 * first reduced to the two farthest apart (the array is compacted; *count
 * gets the new number). Then sequential impulses with accumulated, clamped
 * normal and friction impulses: each point's normal impulse brings its
 * normal velocity to -e times its closing speed (0 below
 * RS_COLLIDE_HIT_SPEED_M_S), never pulling; a speculative point (gap_speed
 * > 0) only keeps its approach below gap_speed, and only in slow contacts
 * (it would take the bounce from a real impact); a pair of points with one
 * normal is solved exactly together; friction stays within mu times the
 * normal impulse. If the whole change would raise the kinetic energy
 * (restitution at several points can), it is scaled down until it does
 * not. Changes the bodies' velocities and angular velocities only. Returns
 * the total normal impulse. */
double rs_collide_solve(rs_cbody *a, rs_cbody *b, rs_cpoint *pts, uint32_t *count);

/* The hit rule of collide.h: an impact (an impulse was applied) with
 * closing speed `closing` is a new hit when the car was quiet, or when the
 * closing speed is significant and the last hit is old enough. */
static inline bool rs_collide_is_hit(bool was_quiet, bool hit_old, double closing)
{
    return was_quiet || (hit_old && closing >= RS_COLLIDE_HIT_SPEED_M_S);
}

/* The barrier pass (collide_barrier.c). advance_timer: add dt to cc's quiet
 * timer when nothing was touched (false for the re-run after car-to-car
 * resolution, which happens within the same substep). */
void rs_collide_barrier_pass(rs_car *car, uint16_t car_id1, const double prev_pos[3],
                             const rs_track *track, double dt, bool advance_timer,
                             rs_collide_car *cc, rs_event_sink *events);

#endif
