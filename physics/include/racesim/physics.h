/*
 * racesim physics: the deterministic vehicle-physics core.
 *
 * A world holds cars and steps them at a fixed tick with a fixed number of
 * substeps. The state after N ticks is a pure function of the initial state,
 * the parameters (car definitions, ground) and the quantised inputs, bit for
 * bit on every compiler, optimisation level and architecture we support (see
 * docs/DETERMINISM.md). The state serialises to canonical little-endian bytes
 * (the snapshot) and its 64-bit hash is computed over those bytes.
 *
 * Conventions: SI units; world frame x, y horizontal and z up; car body frame
 * x forward, y left, z up (ISO 8855); positive yaw turns left.
 *
 * Thread rules: a world is not thread-safe; different worlds share nothing and
 * may be stepped on different threads. Car parameters are immutable after
 * creation and may be shared by any number of worlds and threads.
 */
#ifndef RACESIM_PHYSICS_H
#define RACESIM_PHYSICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever any simulation result changes. Lap records store it. */
#define RS_PHYSICS_VERSION 3u

typedef enum rs_status {
    RS_OK = 0,
    RS_ERR_IO,        /* a file could not be read */
    RS_ERR_PARSE,     /* malformed text (JSON, .tir) */
    RS_ERR_RANGE,     /* a value is outside its legal range */
    RS_ERR_MISSING,   /* a required field is absent */
    RS_ERR_NOMEM,     /* allocation failed */
    RS_ERR_FULL,      /* no room: a full world, a lap longer than the proof recorder
                         keeps, the store writer's queue */
    RS_ERR_BUFFER,    /* caller's buffer too small, or bytes truncated */
    RS_ERR_FORMAT,    /* bytes are not a snapshot/parameter block we accept */
    RS_ERR_MISMATCH,  /* snapshot does not match this world's parameters */
    RS_ERR_NONFINITE, /* a NaN or Inf appeared in the state: a bug, reported */
    RS_ERR_ARG        /* an invalid argument (bad id, NULL) */
} rs_status;

/* A static English description of a status. Never fails. */
const char *rs_status_str(rs_status status);

/* ------------------------------------------------------------------ inputs */

#define RS_STEER_MAX 32767 /* steer is in [-RS_STEER_MAX, RS_STEER_MAX], + = left */
#define RS_PEDAL_MAX 255   /* throttle, brake, clutch, handbrake in [0, 255] */

enum {
    RS_GEAR_REVERSE = -1,
    RS_GEAR_NEUTRAL = 0,
    RS_GEAR_KEEP = -128 /* rs_input.gear: no gear request this tick */
};

/* rs_input.buttons: shift requests act on the rising edge (held = one shift). */
enum { RS_BUTTON_SHIFT_UP = 1u << 0, RS_BUTTON_SHIFT_DOWN = 1u << 1 };

/* One car's controls for one tick. Integers only, so every machine sees the
 * same values; out-of-range fields are clamped by the world. */
typedef struct rs_input {
    int16_t steer;     /* -32767 full right .. 32767 full left */
    uint8_t throttle;  /* 0..255 */
    uint8_t brake;     /* 0..255 */
    uint8_t clutch;    /* pedal, 0 released (engaged) .. 255 pressed; manual clutch only */
    uint8_t handbrake; /* 0..255, rear axle */
    int8_t gear;       /* requested gear (-1 R, 0 N, 1..n) or RS_GEAR_KEEP */
    uint8_t buttons;   /* RS_BUTTON_* */
} rs_input;

/* A neutral input: no pedals, centred steering, no gear request. */
rs_input rs_input_default(void);

/* Quantises floating-point controls (steer in [-1, 1], pedals in [0, 1]) into
 * an input, clamping out-of-range and NaN values. For AI drivers and tools. */
rs_input rs_input_quantise(double steer, double throttle, double brake, double clutch,
                           double handbrake);

/* ------------------------------------------------------------ car params */

/* Parsed, validated car parameters (body, suspension, tyres, drivetrain,
 * aero). Immutable; shared by reference between worlds. */
typedef struct rs_car_params rs_car_params;

/* Loads a car definition JSON file (and the .tir files it names, relative to
 * the JSON file). On error returns a status and writes a message naming the
 * file and field (or line) into err; *out is left NULL. Caller frees with
 * rs_car_params_destroy. */
rs_status rs_car_params_load(const char *path, rs_car_params **out, char *err, size_t err_len);

/* Rebuilds parameters from a canonical block (as sent to clients). The block
 * is fully validated. Caller frees with rs_car_params_destroy. */
rs_status rs_car_params_from_block(const uint8_t *block, size_t len, rs_car_params **out,
                                   char *err, size_t err_len);

/* Writes the canonical block. Returns the block's size; writes nothing when
 * buf is NULL or cap is too small (size-query idiom). Never fails. */
size_t rs_car_params_block(const rs_car_params *params, uint8_t *buf, size_t cap);

/* 64-bit hash of the canonical block: the identity of a car definition. */
uint64_t rs_car_params_hash(const rs_car_params *params);

/* The definition's display name, borrowed until rs_car_params_destroy. */
const char *rs_car_params_name(const rs_car_params *params);

/* Accepts NULL. */
void rs_car_params_destroy(rs_car_params *params);

/* ------------------------------------------------------------------ ground */

/* Surface kinds a ground lookup may report. */
typedef enum rs_surface {
    RS_SURFACE_ASPHALT = 0,
    RS_SURFACE_KERB = 1,
    RS_SURFACE_GRASS = 2,
    RS_SURFACE_GRAVEL = 3,
    RS_SURFACE_COUNT
} rs_surface;

/* How a surface changes a tyre: friction scale and extra rolling drag. */
typedef struct rs_surface_params {
    double grip_scale;        /* multiplies the tyre's peak friction; asphalt 1 */
    double rolling_drag_coef; /* extra rolling resistance force / wheel load; asphalt 0 */
} rs_surface_params;

/* What the ground is like at one horizontal point. */
typedef struct rs_ground_hit {
    double height_m;  /* ground height at (x, y) */
    double normal[3]; /* unit normal, pointing up */
    uint8_t surface;  /* rs_surface */
    bool inside_limits; /* inside the track limits (edges, kerbs counting as track) */
} rs_ground_hit;

/* A ground lookup: the track module supplies one; NULL means a flat asphalt
 * plane at z = 0. Must be a pure function of (ctx, x, y). */
typedef void (*rs_ground_fn)(const void *ctx, double x_m, double y_m, rs_ground_hit *out);

/* ------------------------------------------------------------------- world */

typedef struct rs_world rs_world;
typedef struct rs_track rs_track; /* racesim/track.h */

/* A car in a world. Zero means none. */
typedef struct rs_car_id {
    uint16_t index1; /* slot index + 1 */
} rs_car_id;

typedef struct rs_world_def {
    uint32_t tick_hz;    /* ticks per second. Usually 60 */
    uint32_t substeps;   /* integration substeps per tick. Usually 4; 1..64 */
    uint32_t max_cars;   /* capacity, allocated at creation. Usually 16; 1..65535 */
    rs_ground_fn ground; /* NULL: flat asphalt plane at z = 0 */
    const void *ground_ctx;
    rs_surface_params surfaces[RS_SURFACE_COUNT];
    /* Racing. With a track, the ground defaults to the track's surface (when
     * ground is NULL), barriers stop the cars and the world times laps. */
    const rs_track *track; /* NULL: no barriers, no timing; borrowed, must outlive the world */
    uint32_t laps;         /* race distance; 0 = open session (laps timed, nobody finishes) */
    uint64_t start_tick;   /* lights out: the race clock is negative before this tick and
                              nothing is timed; see start_hold */
    bool car_collisions;   /* false = ghost mode: cars pass through each other */
    bool start_hold;       /* true: before start_tick every car is held on its brakes with
                              no throttle (its driver's inputs are kept and apply from
                              lights out). false: the drivers' inputs apply before lights
                              out too, so a car can move early and a jump start can be
                              judged (docs/TIMING.md, "Lights out"). Timing ignores
                              everything before lights out either way. The snapshot
                              records it, so a restore cannot mix the two */
} rs_world_def;

/* Sensible defaults: 60 Hz, 4 substeps, 16 cars, flat plane, standard
 * surfaces, no track, open session, start at tick 0, car collisions on,
 * cars held until lights out. */
rs_world_def rs_world_default(void);

/* Creates a world; allocates everything it will ever need. Caller frees with
 * rs_world_destroy. On error *out is NULL. */
rs_status rs_world_create(const rs_world_def *def, rs_world **out);

/* Accepts NULL. Does not free car parameters (the caller owns them). */
void rs_world_destroy(rs_world *world);

typedef enum rs_transmission {
    RS_TRANSMISSION_AUTO = 0,  /* gearbox shifts itself (up/down hysteresis) */
    RS_TRANSMISSION_MANUAL = 1 /* only gear requests and shift buttons shift */
} rs_transmission;

typedef enum rs_clutch_mode {
    RS_CLUTCH_AUTO = 0,  /* launch and shifts handled; the pedal is ignored */
    RS_CLUTCH_MANUAL = 1 /* the clutch pedal input drives the clutch */
} rs_clutch_mode;

/* Where and how a car starts. */
typedef struct rs_car_spawn {
    double pos_m[3];   /* position of the centre of mass; z = 0 puts it at ride height */
    double yaw_rad;    /* heading, 0 = +x */
    double speed_m_s;  /* initial forward speed; wheels spin to match */
    int8_t gear;       /* initial gear (-1 R, 0 N, 1..n); default 1: Drive for the
                          automatic gearbox */
    uint8_t transmission; /* rs_transmission */
    uint8_t clutch_mode;  /* rs_clutch_mode */
} rs_car_spawn;

/* At the origin, at rest, in Drive (gear 1) with the automatic gearbox and
 * clutch: a throttle alone moves the car. */
rs_car_spawn rs_car_spawn_default(void);

/* Adds a car at rest on its suspension at the spawn pose. params is borrowed
 * and must outlive the world. Returns RS_ERR_FULL when max_cars are present. */
rs_status rs_world_add_car(rs_world *world, const rs_car_params *params,
                           const rs_car_spawn *spawn, rs_car_id *out);

/* Number of cars added so far; ids are {1}..{count} in insertion order. */
uint32_t rs_world_car_count(const rs_world *world);

/* The track of the world's definition (borrowed), NULL for a flat plane. */
const rs_track *rs_world_track(const rs_world *world);

/* Sets the input used by every following tick until changed. Out-of-range
 * fields are clamped. Returns RS_ERR_ARG for an unknown id. */
rs_status rs_world_set_input(rs_world *world, rs_car_id car, const rs_input *input);

/* Advances every car one tick. Allocates nothing. Returns RS_ERR_NONFINITE
 * (and leaves the world unchanged from then on) if a NaN or Inf appears. */
rs_status rs_world_step(rs_world *world);

/* Ticks stepped since creation (or since the restored snapshot's tick). */
uint64_t rs_world_tick(const rs_world *world);

/* Canonical snapshot of the dynamic state (not the parameters, which are
 * identified by their hashes inside it). Returns the size; writes only when
 * buf is non-NULL and cap is large enough. Never fails. */
size_t rs_world_snapshot(const rs_world *world, uint8_t *buf, size_t cap);

/* Restores a snapshot taken from a world with the same cars (same parameter
 * hashes, in the same order) and definition. On error the world is unchanged. */
rs_status rs_world_restore(rs_world *world, const uint8_t *buf, size_t len);

/* 64-bit hash of the snapshot bytes (-0.0 written as +0.0). */
uint64_t rs_world_hash(const rs_world *world);

/* The same hash computed from snapshot bytes already taken: equals
 * rs_world_hash of the world rs_world_snapshot wrote them from. Lets a
 * client that keeps snapshots anyway hash only the states it checks. */
uint64_t rs_snapshot_hash(const uint8_t *snapshot, size_t len);

/* A world image: the world's dynamic state copied as it lies in memory, for
 * going back to it later in the same world (a client's prediction ring).
 * Much cheaper than a snapshot both ways, but only the world object that
 * saved an image can load it, with the same cars: it is not canonical, not
 * portable, and not for the wire or a file. rs_world_image_size is the
 * bytes an image takes (fixed while the car count is); the buffer needs no
 * alignment. Loading an image of another world or car count refuses with
 * RS_ERR_MISMATCH and leaves the world unchanged. */
size_t rs_world_image_size(const rs_world *world);
rs_status rs_world_image_save(const rs_world *world, void *image, size_t cap);
rs_status rs_world_image_load(rs_world *world, const void *image, size_t len);

/* rs_world_hash of the state an image holds, computed without loading it. */
rs_status rs_world_image_hash(const rs_world *world, const void *image, size_t len,
                              uint64_t *hash);

/* 64-bit hash of one car's part of the snapshot, for naming a divergence. */
uint64_t rs_world_car_hash(const rs_world *world, rs_car_id car);

/* ------------------------------------------------------------ observation */

typedef struct rs_wheel_state {
    double load_n;        /* vertical tyre force Fz */
    double fx_n, fy_n;    /* tyre forces, ISO-W wheel axes */
    double mz_nm;         /* aligning moment */
    double slip_ratio;    /* transient longitudinal slip kappa' */
    double slip_angle_rad;/* atan of transient tan(alpha') */
    double omega_rad_s;   /* wheel spin */
    double travel_m;      /* suspension compression from the design position */
    double steer_rad;     /* road-wheel steer angle */
    double camber_rad;
    uint8_t surface;      /* rs_surface under the wheel */
    bool grounded;
    bool inside_limits;   /* contact point inside the track limits */
} rs_wheel_state;

typedef struct rs_car_state {
    double pos_m[3];
    double quat[4];        /* w, x, y, z: body to world */
    double vel_m_s[3];     /* world frame */
    double angvel_rad_s[3];/* world frame */
    double speed_m_s;      /* |velocity| */
    double forward_speed_m_s; /* along the body x axis */
    double yaw_rad;        /* heading in (-pi, pi] */
    double engine_rpm;
    double engine_torque_nm; /* engine output torque this tick (after throttle/limiter) */
    double clutch_engagement;/* 0 open .. 1 fully engaged */
    int gear;              /* -1 R, 0 N, 1..n */
    bool shifting;
    double drive_power_w;  /* power delivered to the driven wheels' hubs */
    rs_wheel_state wheels[4]; /* FL, FR, RL, RR */
} rs_car_state;

enum { RS_WHEEL_FL = 0, RS_WHEEL_FR = 1, RS_WHEEL_RL = 2, RS_WHEEL_RR = 3 };

/* Fills *out with a read-only view of one car. Returns RS_ERR_ARG for an
 * unknown id. */
rs_status rs_world_car_state(const rs_world *world, rs_car_id car, rs_car_state *out);

/* Static facts about a car definition, for drivers (AI or human aids) and
 * frontends. */
typedef struct rs_car_info {
    double mass_kg;
    double wheelbase_m;
    double track_front_m, track_rear_m;
    double length_m, width_m, height_m; /* body box */
    double cg_height_m;
    double steer_lock_rad;   /* bicycle-model road-wheel angle at full steering input */
    double max_power_w;      /* peak of the engine's full-throttle curve */
    double max_power_rpm;
    double redline_rpm;
    double drag_cd_a_m2;
    double downforce_cl_a_m2;/* front + rear, positive = down */
    double air_density_kg_m3;
    double tire_mu;          /* peak lateral friction coefficient of the tyres at
                                their static load (the weaker axle), on asphalt */
    double brake_mu_limit;   /* deceleration the brakes can demand at full pedal
                                per unit g (brake torque / radius / weight) */
    uint32_t gears;
} rs_car_info;

rs_status rs_car_params_info(const rs_car_params *params, rs_car_info *out);

/* ------------------------------------------------------------------ racing */

/* Most timing lines (start/finish + sector lines) a track may have; a lap has
 * as many sectors as the track has timing lines. */
#define RS_MAX_SECTORS 16

/* Why a lap is not valid (the first reason wins). */
typedef enum rs_lap_invalid {
    RS_LAP_VALID = 0,
    RS_LAP_SECTOR_SKIPPED = 1, /* a sector line was not crossed in order */
    RS_LAP_TRACK_LIMITS = 2,   /* all four wheels left the track limits */
    RS_LAP_REVERSED = 3        /* the car crossed a timing line backwards */
} rs_lap_invalid;

typedef enum rs_race_status {
    RS_RACE_GRID = 0,     /* before lights out, or before its first crossing of the start line */
    RS_RACE_RACING = 1,   /* on a lap */
    RS_RACE_FINISHED = 2  /* took the flag; it keeps driving but is no longer timed */
} rs_race_status;

typedef struct rs_race_car_state {
    uint8_t status;          /* rs_race_status */
    uint32_t position;       /* 1 = leading (laps completed, then progress, then time) */
    uint32_t laps_completed;
    uint32_t next_line;      /* timing line expected next */
    bool lap_valid;          /* the lap in progress */
    uint8_t invalid_reason;  /* rs_lap_invalid of the lap in progress */
    int64_t lap_start_us;    /* race clock when the lap in progress began */
    int64_t last_lap_us;     /* -1 before the first lap */
    int64_t best_lap_us;     /* best valid lap, -1 if none */
    int64_t finish_us;       /* race clock at the flag, -1 before */
    uint32_t finish_position;/* 0 before the flag */
    uint32_t barrier_hits;   /* distinct barrier impacts */
    uint32_t car_hits;       /* distinct car-to-car impacts */
    uint64_t crossings;      /* timing lines crossed for the first time, in racing order:
                                crossing m (from 0) is line m mod the track's line count,
                                crossing 0 the start line at the start of lap 1, crossing
                                k * lines the end of lap k. 0 on the grid. Counts on after
                                the flag (those crossings are not timed) */
    int64_t crossed_us;      /* race clock at crossing crossings - 1, -1 before the first */
} rs_race_car_state;

rs_status rs_world_race_state(const rs_world *world, rs_car_id car, rs_race_car_state *out);

/* The race clock at the end of the last step, microseconds since lights out
 * (negative before it). */
int64_t rs_world_race_time_us(const rs_world *world);

/* Writes up to cap car ids in race order (leader first); returns how many
 * cars there are. */
uint32_t rs_world_race_order(const rs_world *world, rs_car_id *out, uint32_t cap);

/* True once laps > 0 and every car has taken the flag. */
bool rs_world_race_over(const rs_world *world);

typedef enum rs_event_type {
    RS_EVENT_SECTOR = 1,      /* a sector completed (also for the last sector of a lap) */
    RS_EVENT_LAP = 2,         /* a lap completed: time, sectors, validity */
    RS_EVENT_LAP_INVALID = 3, /* the lap in progress became invalid: reason */
    RS_EVENT_FINISH = 4,      /* the car took the flag: finish position */
    RS_EVENT_RACE_OVER = 5,   /* every car has taken the flag (car = 0) */
    RS_EVENT_BARRIER_HIT = 6, /* a car hit a barrier: point, normal, impulse */
    RS_EVENT_CAR_HIT = 7      /* two cars hit: car < other, point, normal, impulse */
} rs_event_type;

/* Something that happened during the last step, for frontends (sounds,
 * timing screens) and stewarding. */
typedef struct rs_event {
    uint8_t type;        /* rs_event_type */
    uint8_t reason;      /* RS_EVENT_LAP/LAP_INVALID: rs_lap_invalid */
    bool valid;          /* RS_EVENT_LAP: lap valid */
    uint16_t car;        /* rs_car_id.index1 */
    uint16_t other;      /* RS_EVENT_CAR_HIT: the other car; else 0 */
    uint32_t lap;        /* lap number the event belongs to (1 = first) */
    uint32_t sector;     /* RS_EVENT_SECTOR: sector index (0-based) */
    uint32_t position;   /* RS_EVENT_FINISH: finish position */
    uint32_t substep;    /* substep of the tick in which it happened */
    uint64_t tick;       /* tick in which it happened */
    int64_t time_us;     /* race clock at the event (line crossings interpolated inside the substep) */
    int64_t duration_us; /* SECTOR: sector time; LAP: lap time */
    uint32_t sector_count;             /* RS_EVENT_LAP: entries in sectors_us */
    int64_t sectors_us[RS_MAX_SECTORS]; /* RS_EVENT_LAP: sector times; -1 = skipped */
    double impulse_n_s;  /* hits: normal impulse */
    double speed_m_s;    /* hits: closing speed along the normal */
    double point_m[2];   /* hits: contact point, world */
    double normal[2];    /* hits: unit contact normal, world (towards car) */
} rs_event;

/* The events of the last rs_world_step in the order they happened; borrowed
 * until the next step. *count receives the number. */
const rs_event *rs_world_events(const rs_world *world, size_t *count);

/* Events that did not fit the per-step buffer since creation (a capacity
 * problem worth logging; the race state itself is unaffected). */
uint64_t rs_world_events_dropped(const rs_world *world);

#ifdef __cplusplus
}
#endif

#endif
