/*
 * One car's state and its integration step (the vehicle model).
 *
 * The model is a multi-body car with Magic Formula tyres: a 6-DOF sprung
 * body, per wheel a vertical travel DOF (unsprung mass on spring, damper,
 * bump stop, droop limit and anti-roll bar), a spin DOF and two
 * transient-slip states (relaxation-length ODEs, docs/TYRES.md, "Low speed
 * and relaxation"), plus the engine's speed. docs/PHYSICS.md walks through
 * it.
 */
#ifndef RS_CAR_H
#define RS_CAR_H

#include <stdint.h>

#include "carparams.h"
#include "racesim/physics.h"

typedef struct rs_wheel {
    /* state (snapshotted) */
    double travel_m;    /* compression from the design position, + = wheel up */
    double travel_v;    /* its rate, m/s */
    double omega;       /* spin, rad/s */
    double kappa;       /* transient longitudinal slip kappa' */
    double tan_alpha;   /* transient lateral slip tan(alpha') */
    /* telemetry from the last substep (not state; recomputed every step) */
    double fz, fx, fy, mz, steer, camber;
    uint8_t surface;
    uint8_t grounded;
    uint8_t inside_limits;
} rs_wheel;

/* Constants derived from the parameters when the car is added. They are a
 * pure function of the parameter block, so every machine derives the same. */
typedef struct rs_car_derived {
    double mount[3][4];        /* wheel centre at design ride, body frame: mount[axis][wheel],
                                  lane by lane for the step */
    double rc_z[4];            /* roll-centre height, body frame z */
    double preload_n[4];       /* spring force at design ride (static sprung corner load) */
    double inv_inertia[9];     /* body-frame inverse inertia tensor */
    double inertia[9];
    double sprung_mass_kg;
    double wheelbase_m;
    double rolling_radius_m;   /* driven tyre at static load: the gearbox's road-speed gauge */
    double steer_ref_max_rad;  /* bicycle-model steer angle at full lock */
    double engage_start_rad_s; /* automatic clutch: starts to bite */
    double engage_full_rad_s;  /* ... fully engaged */
    double idle_rad_s;
    double cp_z;               /* aero centre of pressure, body frame z */
    double camber_sin[4], camber_cos[4]; /* static camber, ISO sign per side */
    double toe_rad[4], toe_sin[4], toe_cos[4]; /* static toe, sign per side: the steer
                                                  angle of a wheel pointing straight */
    int driven[2];
} rs_car_derived;

typedef struct rs_car {
    const rs_car_params *params;
    rs_car_derived derived;
    /* body state (snapshotted) */
    double pos[3];
    double q[4];        /* w x y z, body to world, unit */
    double vel[3];      /* world */
    double w[3];        /* angular velocity, body frame */
    rs_wheel wheel[4];
    /* drivetrain state (snapshotted) */
    double omega_e;
    double shift_timer_s;   /* > 0 while a shift is in progress */
    double shift_cooldown_s;/* automatic mode: minimum time between shifts */
    double drive_prev_nm;   /* last substep's wheel-side drive torque (LSD ramp, friction
                               regime guess) */
    int32_t gear;           /* engaged gear: -1 R, 0 N, 1..n */
    int32_t shift_target;   /* gear being engaged while shift_timer_s > 0 */
    int32_t auto_mode_gear; /* automatic: driver's selection: -1 R, 0 N, 1 D */
    uint8_t transmission;   /* rs_transmission */
    uint8_t clutch_mode;    /* rs_clutch_mode */
    uint8_t prev_buttons;
    rs_input input;
    /* per-tick cache derived from the input at the start of each tick (not
     * state: recomputed before it is used, unless steer_key says it holds
     * the angles for this tick's input.steer already: 65536 + that steer,
     * 0 = nothing; the car model cannot change under it) */
    double steer_rad[4], steer_sin[4], steer_cos[4];
    uint32_t steer_key;
    /* telemetry of the last substep (not state) */
    double engine_nm, clutch_engagement, drive_power_w;
} rs_car;

/* Fills car->derived from car->params (car->params must be set). */
void rs_car_derive(rs_car *car);

/* Sets up a car at rest on its suspension. */
void rs_car_init(rs_car *car, const rs_car_params *params, const rs_car_spawn *spawn,
                 const rs_world_def *world);

/* Applies this tick's input (edge-triggered shifts, automatic gearbox). */
void rs_car_tick_input(rs_car *car, double tick_dt);

/* One substep of duration dt. first is nonzero for a tick's first substep:
 * the aligning moment is evaluated there and held for the tick. */
void rs_car_substep(rs_car *car, const rs_world_def *world, double dt, int first);

/* True when every state value is finite. */
int rs_car_finite(const rs_car *car);

/* Fills the public read-only view. */
void rs_car_observe(const rs_car *car, rs_car_state *out);

#endif
