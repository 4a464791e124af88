/*
 * Standard test maneuvers: the drives a magazine road test does (standing
 * start, braking from 100 km/h, skidpad, coast-down) plus a parked-car
 * stability check, run on the flat asphalt plane by small deterministic
 * controllers that read rs_car_state each tick and send quantised rs_input.
 *
 * Every number comes from simulation: the drivers only decide the pedals and
 * the steering. The controllers use detmath (never libm), so a maneuver's
 * result is as reproducible as the world itself. Each function creates its
 * own one-car world, runs, destroys it, and returns RS_ERR_NONFINITE (with
 * the time in err) if the world reported a NaN or Inf in the state.
 *
 * Used by `racesim maneuver`, `racesim demo`, bench/physbench.c and
 * tests/test_validation.c.
 */
#ifndef RS_MANEUVERS_H
#define RS_MANEUVERS_H

#include <stddef.h>

#include "racesim/physics.h"

typedef struct rs_mv_config {
    unsigned tick_hz;  /* Usually 60 */
    unsigned substeps; /* Usually 4 */
} rs_mv_config;

/* The world's defaults: 60 Hz, 4 substeps. */
rs_mv_config rs_mv_config_default(void);

#define RS_MV_NOT_REACHED (-1.0) /* a figure the run never reached */

/* Standing start, automatic gearbox and clutch, straight ahead, driven by
 * rs_mv_launch (full throttle unless the driven wheels slip beyond the
 * tyre's peak; lane keeping). The car settles for 1 s with the brake held,
 * then the brake is released and the throttle floored at t = 0 (no roll-out
 * is subtracted).
 *
 * Top speed: the run continues until the speed gained over the last 5 s,
 * all in one gear, is below 0.05 m/s (mean acceleration under 0.01 m/s^2)
 * while the engine is below the upshift point or in top gear (otherwise the
 * gearbox has yet to shift), or until 300 s have passed; the top speed is
 * the highest speed seen. */
typedef struct rs_mv_accel {
    double t_0_100_kmh_s;   /* or RS_MV_NOT_REACHED */
    double t_0_200_kmh_s;   /* or RS_MV_NOT_REACHED */
    double quarter_mile_s;  /* 402.336 m from rest */
    double quarter_mile_kmh;/* trap speed at 402.336 m */
    double top_speed_kmh;
    int top_speed_gear;     /* gear engaged at the top speed */
    double top_speed_rpm;
    double top_speed_t_s;   /* when the top speed was reached */
    int settled;            /* 1 if the 5 s plateau criterion ended the run */
} rs_mv_accel;

rs_status rs_mv_run_accel(const rs_car_params *car, const rs_mv_config *cfg, rs_mv_accel *out,
                          char *err, size_t err_len);

/* Straight-line braking from 100 km/h. The car is spawned at 100 km/h in a
 * gear that suits the speed (manual gearbox, automatic clutch) and a throttle
 * controller holds 100 km/h for 3 s; then neutral is selected, the throttle
 * lifted and the brake pedal applied.
 *
 * Threshold braking: the one brake pedal is driven by a slip-limiting
 * controller, as a skilled driver or a simple single-channel ABS would. It
 * looks at every wheel's slip ratio each tick and keeps the most-slipping
 * wheel at the tyre's peak-force slip kappa* (found by evaluating the tyre at
 * its static load: the slip where -Fx is largest): pedal = integral term +
 * proportional term of the normalised slip excess max_i((kappa*_i - kappa_i)
 * / |kappa*_i|), clamped to [0, 1], starting from full pedal. Below 3 m/s the
 * pedal is frozen (slip ratios mean little there, as for a real ABS).
 *
 * The distance runs from brake onset to rest (speed < 0.01 m/s) and is
 * scaled by (100 km/h / v0)^2 for the small difference between the held
 * speed v0 and 100 km/h (reported). The full-pedal run is the same with
 * the pedal held at full and no modulation: the wheels lock if the brakes
 * can overpower the tyres (a non-ABS panic stop). */
typedef struct rs_mv_brake {
    double dist_100_0_m;      /* threshold braking */
    double time_s;
    double start_kmh;         /* v0 */
    double mean_decel_g;      /* v0^2 / (2 d g) */
    double target_slip_front; /* kappa* (negative) */
    double target_slip_rear;
    double dist_full_pedal_m; /* full pedal, no modulation */
    double time_full_pedal_s;
} rs_mv_brake;

rs_status rs_mv_run_brake(const rs_car_params *car, const rs_mv_config *cfg, rs_mv_brake *out,
                          char *err, size_t err_len);

/* Constant-radius skidpad, counter-clockwise (turning left) around a circle
 * of radius radius_m (45.72 m = the 300 ft diameter pad magazines use, if
 * radius_m <= 0). A path controller steers the car's centre of mass along
 * the circle (curvature feedback on radius and heading error, with an
 * integrating inner loop on the measured path curvature yaw_rate / v that
 * absorbs understeer); a throttle controller follows a target speed whose
 * lateral acceleration v^2 / R ramps up by 0.01 g per second from 0.4 g.
 *
 * "Held" means the radius error stayed within 0.5 m (about 1%) for the
 * preceding 2 s. The run ends when the car loses the circle (radius error
 * beyond 3 m, heading error beyond 0.5 rad) or after 120 s;
 * max_lat_g = v^2 / (R g) at the highest held speed. */
typedef struct rs_mv_skidpad {
    double radius_m;
    double max_lat_g;
    double speed_kmh;      /* highest held speed */
    double steer_at_limit; /* steering input [-1, 1] at that moment */
    const char *limit;     /* "understeer", "oversteer", "steering lock", "time" */
} rs_mv_skidpad;

rs_status rs_mv_run_skidpad(const rs_car_params *car, const rs_mv_config *cfg, double radius_m,
                            rs_mv_skidpad *out, char *err, size_t err_len);

/* Coast-down: spawned at 100 km/h in neutral, every input zero, until the
 * speed falls below 0.01 m/s or 900 s pass (stopped = 0 then). */
typedef struct rs_mv_coastdown {
    double dist_m;
    double time_s;
    int stopped;
    double final_speed_m_s;
} rs_mv_coastdown;

rs_status rs_mv_run_coastdown(const rs_car_params *car, const rs_mv_config *cfg,
                              rs_mv_coastdown *out, char *err, size_t err_len);

/* Parked for 60 s on the flat plane, spawned at rest in neutral: once with
 * the brake pedal held fully, once with every input zero. Drift is the
 * largest horizontal distance of the centre of mass from its spawn position
 * during the run. */
typedef struct rs_mv_standstill {
    double drift_m;            /* brake held */
    double drift_m_no_input;   /* all inputs zero */
    double max_speed_m_s;      /* largest speed seen in either run */
    double duration_s;
} rs_mv_standstill;

rs_status rs_mv_run_standstill(const rs_car_params *car, const rs_mv_config *cfg,
                               rs_mv_standstill *out, char *err, size_t err_len);

/* The drag-strip driver used by the accel maneuver and the demo: full
 * throttle, lifted only as far as needed to keep the driven wheels' slip
 * ratio at the tyre's peak-traction slip kappa* (found from the tyre at its
 * static load), with the same integral + proportional law as the braking
 * driver; and steering that holds the line y = lane_y_m heading +x
 * (curvature feedback on offset and heading, gains scheduled on speed). */
typedef struct rs_mv_launch {
    const rs_car_params *car; /* borrowed */
    double lane_y_m;
    double peak_slip; /* kappa* of the driven tyres, > 0 */
    double integral, throttle;
    int driven_axle;  /* 0 front, 1 rear */
} rs_mv_launch;

void rs_mv_launch_init(rs_mv_launch *driver, const rs_car_params *car, double lane_y_m);

/* This tick's input from the car's current state; dt = tick length, s. */
rs_input rs_mv_launch_input(rs_mv_launch *driver, const rs_car_state *state, double dt);

/* A PI speed-holding throttle controller (used by the maneuvers and the
 * demo; exposed for tests and scenario drivers). */
typedef struct rs_mv_speed_pi {
    double kp, ki, integral, feedforward;
} rs_mv_speed_pi;

rs_mv_speed_pi rs_mv_speed_pi_default(void);

/* Throttle in [0, 1] to move forward_speed towards target; dt in seconds.
 * Anti-windup: the integral stops growing while the output saturates. */
double rs_mv_speed_pi_update(rs_mv_speed_pi *c, double target_m_s, double speed_m_s, double dt);

/* The steering input in [-1, 1] that asks for a path of the given
 * curvature (1/m, + = left) at low speed: atan(L kappa) over the front
 * axle's maximum road-wheel angle (the model's Ackermann mapping makes the
 * real angle differ a little). For drivers in tools and benchmarks. */
double rs_mv_steer_for_curvature(const rs_car_params *car, double curvature_1_m);

/* The gear a car should be in at a speed for cruising: the highest gear
 * whose engine speed at this road speed (unloaded tyre radius) is at least
 * 40% of the way from idle to the upshift point, else 1. */
int rs_mv_cruise_gear(const rs_car_params *car, double speed_m_s);

#endif
