/*
 * The parsed car definition: everything the vehicle model needs, in SI
 * units, validated. It is built once from JSON (cardef.c) or from the
 * canonical block (params_block.c) and never changes afterwards; worlds
 * borrow it. The canonical block serialises every field below in order, so a
 * new field means a new block version and a physics_version bump.
 */
#ifndef RS_CARPARAMS_H
#define RS_CARPARAMS_H

#include <stdint.h>

#include "racesim/physics.h"
#include "tire.h"
#include "tire4.h"
#include "tune_rules.h"

#define RS_MAX_CURVE_POINTS 32
#define RS_MAX_GEARS 10
#define RS_NAME_MAX 64

typedef enum rs_drive_layout { RS_DRIVE_RWD = 0, RS_DRIVE_FWD = 1 } rs_drive_layout;
typedef enum rs_diff_type { RS_DIFF_OPEN = 0, RS_DIFF_LOCKED = 1, RS_DIFF_LSD = 2 } rs_diff_type;

typedef struct rs_axle_params {
    double x_m;                 /* axle position along body x from the centre of mass (+ forward) */
    double track_m;             /* distance between the two wheel centres */
    double spring_n_m;          /* wheel rate of each corner's spring */
    double damper_bump_n_s_m;   /* damper rate in compression, at the wheel */
    double damper_rebound_n_s_m;/* damper rate in extension, at the wheel */
    double bump_travel_m;       /* compression from design position where the bump stop starts */
    double droop_travel_m;      /* extension from design position where the droop limit starts */
    double bump_stop_n_m;       /* stiffness of the bump stop and of the droop limit */
    double arb_n_m;             /* anti-roll bar rate: force per metre of travel difference */
    double roll_centre_m;       /* roll centre height above ground at design ride */
    double unsprung_mass_kg;    /* per corner */
    double wheel_inertia_kg_m2; /* spin inertia of one wheel (tyre, rim, hub, brake disc) */
    double camber_rad;          /* static camber, negative = top leaning inboard */
    double toe_rad;             /* static toe, positive = toe-in */
    double steer_max_rad;       /* 0 for a non-steered axle; max road-wheel angle of the
                                   inside wheel */
    double brake_share;         /* this axle's share of the brake torque (front + rear = 1) */
    rs_tire_params tire;
} rs_axle_params;

typedef struct rs_car_params_data {
    char name[RS_NAME_MAX];
    /* body */
    double mass_kg;             /* total, including unsprung masses */
    double inertia_kg_m2[6];    /* about the centre of mass, body axes: Ixx Iyy Izz Ixy Ixz Iyz */
    double cg_height_m;         /* centre of mass above ground at design ride */
    double length_m, width_m, height_m; /* body box, for collisions */
    rs_axle_params axle[2];     /* 0 front, 1 rear */
    double ackermann;           /* 0 parallel steer .. 1 full Ackermann */
    /* aero (air density included in the coefficients below is not assumed) */
    double air_density_kg_m3;
    double drag_cd_a_m2;        /* Cd * frontal area */
    double lift_front_cl_a_m2;  /* downforce coefficient * area at the front axle
                                   (positive = down) */
    double lift_rear_cl_a_m2;
    double cp_height_m;         /* drag acts at this height above ground */
    /* engine */
    uint32_t curve_points;
    double curve_rpm[RS_MAX_CURVE_POINTS];
    double curve_nm[RS_MAX_CURVE_POINTS]; /* full-throttle torque */
    double idle_rpm;
    double redline_rpm;         /* rev limiter cuts fuel above this */
    double engine_inertia_kg_m2;/* crank, flywheel, clutch disc */
    double engine_brake_nm;     /* friction/pumping torque at zero throttle, at redline */
    double engine_brake_idle_nm;/* ... and at idle; linear in between */
    /* clutch and gearbox */
    double clutch_max_nm;
    uint32_t gears;             /* number of forward gears */
    double gear_ratio[RS_MAX_GEARS];
    double reverse_ratio;       /* positive number; direction is handled by the model */
    double final_drive;
    double driveline_efficiency;/* 0..1, gearbox + final drive */
    double shift_time_s;        /* torque interruption per shift */
    double upshift_rpm;         /* automatic mode: shift up at or above */
    double downshift_rpm;       /* automatic mode: shift down at or below (< upshift) */
    /* differential */
    uint32_t drive;             /* rs_drive_layout */
    uint32_t diff;              /* rs_diff_type */
    double diff_preload_nm;     /* LSD: locking torque at zero input torque */
    double diff_power_ramp;     /* LSD: extra locking torque per Nm of input torque on power */
    double diff_coast_ramp;     /* LSD: ... on overrun */
    /* brakes */
    double brake_max_nm;        /* total brake torque at full pedal, all wheels */
    double handbrake_max_nm;    /* total on the rear axle at full lever */
} rs_car_params_data;

/* The axles' constants the car step needs, per wheel (FL FR RL RR: the
 * front axle's twice, then the rear's), lane by lane (car_step.c). */
typedef struct rs_wheel_lanes {
    double unloaded_radius[4], vertical_stiffness[4], vertical_damping[4];
    double vxlow[4];         /* the tyre's VXLOW, or 1 m/s where it gives none (<= 0.1) */
    double kappa_max[4];     /* the larger of KPUMAX and -KPUMIN */
    double tan_alpha_max[4]; /* the larger of tan(ALPMAX) and -tan(ALPMIN) */
    double inertia[4], brake_share[4], unsprung_mass[4];
    double spring[4], damper_bump[4], damper_rebound[4];
    double bump_travel[4], droop_travel[4], bump_stop[4], arb[4];
} rs_wheel_lanes;

/* Fills out from def's axles. */
void rs_wheel_lanes_set(rs_wheel_lanes *out, const rs_car_params_data *def);

struct rs_car_params {
    rs_car_params_data def;
    uint64_t hash; /* of the canonical block, computed at creation */
    /* What a tune may change (the car file's "adjustable" section). Not part
     * of the canonical block or the hash: a car rebuilt from a block has no
     * rules, and adding rules to a car file does not change the car. */
    rs_tune_rules rules;
    /* The four wheels' tyres (front, front, rear, rear) lane by lane, for
     * rs_tire_eval4; derived from def at creation, like the hash. */
    rs_tire_lanes tire_lanes;
    /* The axles' other constants, likewise. */
    rs_wheel_lanes wheel_lanes;
};

/* Checks every field's range; names the first bad field in err. Used by both
 * the JSON loader and the block reader. */
rs_status rs_car_params_validate(const rs_car_params_data *def, char *err, size_t err_len);

/* Serialises def canonically (every field above, in order). */
void rs_car_params_write(const rs_car_params_data *def, rs_writer *w);

/* Allocates an rs_car_params around validated data and computes its hash. */
rs_status rs_car_params_wrap(const rs_car_params_data *def, rs_car_params **out);

/* A car made from another: def is a copy of the other car's data with some
 * fields changed (a tune, balance of performance). It takes the loader's
 * own path, validation then rs_car_params_wrap, so nothing derived from
 * the data (static loads, the hash, what a world derives when it adds the
 * car) can be left stale, and it keeps the other car's tuning rules. On
 * error *out is NULL and err says "<what> is not valid: <field>: <why>"
 * or "cannot build <what> (<status>)". */
rs_status rs_car_params_rebuild(const rs_car_params_data *def, const rs_tune_rules *rules,
                                const char *what, rs_car_params **out, char *err,
                                size_t err_len);

#endif
