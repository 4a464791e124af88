/*
 * The racing line as the AI driver reads it: per point the line and the
 * centre line it was derived from, the room either side, the curvature and
 * the planned speed, plus the car facts the driver needs. Built by
 * racing_line.c, read by driver.c; immutable after it is built.
 */
#ifndef RS_DRIVER_INTERNAL_H
#define RS_DRIVER_INTERNAL_H

#include <string.h>

#include "racesim/driver.h"
#include "tire.h"

#define RS_LINE_GRAVITY 9.80665
#define RS_LINE_FORCE_DV 0.5       /* speed step of the drive-force table, m/s */
#define RS_LINE_FORCE_STEPS 400    /* the table reaches 200 m/s */

/* What the car can do, per unit of mass, as the speed profile plans it and
 * the driver's pedal controller inverts it. Tables are indexed by speed in
 * steps of RS_LINE_FORCE_DV. The grip figures include the planning margin
 * (rs_line_options.grip_use); brakes and engine are taken at face value. */
typedef struct rs_line_perf {
    double g;
    double q_down;      /* downforce / (m v^2) */
    double q_drag;      /* drag / (m v^2) */
    double roll;        /* rolling resistance force per unit of load (weight + downforce) */
    double brake_acc;   /* deceleration the brakes can demand at full pedal */
    double force[RS_LINE_FORCE_STEPS + 1];   /* best-gear full-throttle drive force / m */
    uint8_t best_gear[RS_LINE_FORCE_STEPS + 1]; /* the gear giving it */
    double lat_acc[RS_LINE_FORCE_STEPS + 1];   /* cornering limit of the weaker axle, with
                                                  downforce, load sensitivity and lateral
                                                  load transfer */
    double brake_dec[RS_LINE_FORCE_STEPS + 1]; /* braking limit: brakes, tyres, balance */
    double trac_acc[RS_LINE_FORCE_STEPS + 1];  /* what the driven tyres can put down */
    double top_speed;   /* where drive force meets drag and rolling resistance */
    double slip_per_load[2]; /* front, rear: slip angle per unit of lateral force / load
                                (1 / cornering-stiffness coefficient), rad */
} rs_line_perf;

/* Table lookup with linear interpolation, clamped to the table's ends. */
double rs_line_table(const double *table, double v);

/* The operating point the driver's tyre figures are taken at: steady state
 * at load fz_n and 20 m/s, full grip, no slip, no camber (the caller sets
 * the slip it sweeps). */
static inline rs_tire_in rs_line_steady_tire_in(double fz_n)
{
    rs_tire_in in;
    memset(&in, 0, sizeof in);
    in.fz_n = fz_n;
    in.vx_m_s = 20.0;
    in.grip_scale = 1.0;
    in.mode = RS_TIRE_STEADY;
    return in;
}

/* Peak |Fy| / Fz of a tyre at load fz_n (pure cornering, zero camber, the
 * mean of both directions); 0 for no load. In cardinfo.c. */
double rs_tire_peak_mu(const rs_tire_params *tp, double fz_n);

/* Arrays of n entries, point j joins point j + 1 and the last joins the
 * first (a closed loop). */
struct rs_racing_line {
    uint32_t n;
    double *x, *y;      /* line point */
    double *cx, *cy;    /* centre-line point it was shifted from */
    double *nx, *ny;    /* unit normal of the centre line, pointing left */
    double *off;        /* lateral offset from the centre, + = left */
    double *lo, *hi;    /* offsets the car's centre may take, right and left limit */
    double *wl, *wr;    /* track half-widths */
    double *sc;         /* station on the centre line */
    double *s;          /* distance along the line from point 0 */
    double *seg;        /* length of the segment to the next point */
    double *kappa;      /* signed curvature, + = left */
    double *v;          /* planned speed */
    double length;      /* of the line */
    double centre_length;
    double lap_time_s;
    rs_line_perf perf;
    rs_car_info info;
    double half_width_m;  /* of the car, plus the edge margin */
    double rear_x_m;      /* rear axle along body x from the centre of mass (< 0) */
    int driven[2];        /* driven wheels, RS_WHEEL_* */
    double *block;        /* the one allocation behind every array */
};

#endif
