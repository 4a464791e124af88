/*
 * Drivetrain: engine torque, clutch, gearbox, differential and the
 * per-substep solve that couples them to the wheels' spin.
 *
 * Each wheel arrives as a linear implicit response, omega+ = p + q * T, where
 * T is the drive torque applied to it (the tyre's slip stiffness and the
 * relaxation ODE are already folded into p and q by car_step.c). The solve finds
 * the clutch torque that locks engine and gearbox if the clutch can carry it
 * (static friction), otherwise the clutch slips at its capacity (kinetic
 * friction); then the differential splits the torque (open: equal torques;
 * locked: equal speeds; limited slip: locked while the locking torque stays
 * within preload + ramp * input torque). Brakes, handbrake and rolling
 * resistance are friction torques that hold a wheel at exactly zero spin when
 * they can, so a parked car neither creeps nor jitters.
 */
#ifndef RS_DRIVETRAIN_H
#define RS_DRIVETRAIN_H

#include "carparams.h"

/* Engine torque at speed omega_e (rad/s) and effective throttle in [0, 1]:
 * throttle * full-load curve - (1 - throttle) * engine braking, with the soft
 * rev limiter applied. */
double rs_engine_torque(const rs_car_params_data *def, double omega_e, double throttle);

/* The idle controller's throttle: opens as the engine falls below idle so
 * the engine does not stall. */
double rs_idle_throttle(const rs_car_params_data *def, double omega_e);

/* Overall signed ratio (gearbox * final drive) for a gear: negative in
 * reverse, 0 in neutral. */
double rs_gear_ratio(const rs_car_params_data *def, int gear);

typedef struct rs_wheel_response {
    double p, q;         /* free response: omega+ = p + q * T_drive */
    double friction_nm;  /* brake + handbrake + rolling resistance capacity, >= 0 */
} rs_wheel_response;

typedef struct rs_driveline_in {
    double dt;
    double omega_e;      /* engine speed now */
    double engine_nm;    /* engine torque this substep (explicit) */
    double ratio;        /* signed overall ratio; 0 = neutral */
    double clutch_nm;    /* clutch torque capacity now (0 when open) */
    double lsd_prev_nm;  /* last substep's wheel-side drive torque, for the LSD ramp */
    int driven[2];       /* indices of the driven wheels (left, right) */
} rs_driveline_in;

typedef struct rs_driveline_out {
    double omega_e;      /* engine speed after the substep */
    double omega[4];     /* wheel speeds after the substep */
    double drive_nm[4];  /* drive torque applied to each wheel */
    double clutch_nm;    /* torque through the clutch (engine side) */
    double wheel_side_nm;/* total drive torque at the wheels */
    int clutch_locked;
} rs_driveline_out;

/* One implicit driveline substep. Deterministic; never fails. */
void rs_driveline_solve(const rs_car_params_data *def, const rs_driveline_in *in,
                        const rs_wheel_response resp[4], rs_driveline_out *out);

/* Applies a friction torque of capacity B to a wheel whose free response to
 * the torques already known is omega_free (q = response per Nm): the wheel is
 * held at exactly zero when B can stop it within the substep. */
double rs_friction_clamp(double omega_free, double q, double capacity_nm);

#endif
