/*
 * racesim AI driver: produces a car's inputs from its state and the track.
 *
 * A racing line is computed once per (track, car): a smooth path inside the
 * track edges that cuts the corners (or a given one), with a speed profile
 * from its curvature and the car's grip, downforce, power and brakes. A
 * driver follows it: it steers onto the line ahead, brakes before corners,
 * picks its gears (it asks for the gear with the most drive force, which an
 * automatic gearbox takes as "drive"), recovers after a spin or a wall hit,
 * and backs off or moves over for the car ahead.
 *
 * The driver's output is an rs_input built with rs_input_quantise, the same
 * quantised path a player's controls take, and its arithmetic uses the
 * deterministic math, so a race of AI cars is bit-identical everywhere.
 *
 * Thread rules: a racing line is immutable after creation and may be shared
 * between drivers and threads; a driver belongs to one car and one thread.
 */
#ifndef RACESIM_DRIVER_H
#define RACESIM_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"
#include "racesim/track.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_racing_line rs_racing_line;

typedef struct rs_line_options {
    double edge_margin_m; /* distance kept between the car's side and each edge. Usually 0.4 */
    double grip_use;      /* fraction of the tyres' friction the speed profile plans with,
                             (0, 1]. Usually 0.92 */
    double spacing_m;     /* distance between the line's points, 0.5..20. Usually 3 */
    uint32_t relax_sweeps;/* curvature-minimising sweeps per resolution level; 0 keeps the
                             centre line (or the given points) as the line. Usually 200 */
} rs_line_options;

rs_line_options rs_line_options_default(void);

/* Computes a racing line and its speed profile for this car on this track:
 * the path of least curvature inside the edges (less half the car's width
 * and the edge margin), then the fastest speeds along it the car's grip,
 * brakes and engine allow. options may be NULL (defaults). Nothing is
 * borrowed: the line copies what it needs. Returns RS_ERR_ARG for NULL
 * arguments, RS_ERR_RANGE for options out of range, RS_ERR_NOMEM. Free with
 * rs_racing_line_destroy. */
rs_status rs_racing_line_build(const rs_track *track, const rs_car_params *car,
                               const rs_line_options *options, rs_racing_line **out);

/* The same from a closed centre line given as points (x, y and the widths
 * to the right and left; s_m is ignored), for tracks kept elsewhere. With
 * zero widths, or with options->relax_sweeps 0, the points themselves are
 * the line ("a given line"): only the speed profile is computed. Needs at
 * least 3 points and a length of at least 10 m (RS_ERR_RANGE). */
rs_status rs_racing_line_build_points(const rs_track_point *points, uint32_t count,
                                      const rs_car_params *car, const rs_line_options *options,
                                      rs_racing_line **out);

/* Accepts NULL. */
void rs_racing_line_destroy(rs_racing_line *line);

/* The line as points for drawing and tests. */
typedef struct rs_line_point {
    double x_m, y_m;
    double s_m;           /* station on the track's centre line */
    double offset_m;      /* lateral offset from the centre line, + = left */
    double width_left_m;  /* the track's half-widths here */
    double width_right_m;
    double curvature_1_m; /* signed, + = turning left */
    double speed_m_s;     /* planned speed */
} rs_line_point;

uint32_t rs_racing_line_count(const rs_racing_line *line);
bool rs_racing_line_at(const rs_racing_line *line, uint32_t i, rs_line_point *out);

/* Length of the line itself (shorter than the centre line where it cuts
 * corners), metres. */
double rs_racing_line_length(const rs_racing_line *line);

/* Planned lap time of the speed profile, seconds (a lower bound for the
 * driver, which aims a little below the planned speeds). */
double rs_racing_line_lap_time(const rs_racing_line *line);

typedef struct rs_driver rs_driver;

typedef struct rs_driver_options {
    double pace;    /* fraction of the planned speed aimed for, (0, 1]. Usually 0.97 */
    uint32_t seed;  /* small deterministic variations between drivers (pace within
                       +-1 %, look-ahead, how early it pulls out to pass) */
} rs_driver_options;

rs_driver_options rs_driver_options_default(void);

/* A driver for one car following line (built for that car's definition:
 * the speeds, gears and grip it plans with are that car's). options may be
 * NULL. The line is borrowed and must outlive the driver. Returns
 * RS_ERR_ARG for NULL arguments, RS_ERR_RANGE for a pace outside (0, 1],
 * RS_ERR_NOMEM. Free with rs_driver_destroy. */
rs_status rs_driver_create(const rs_racing_line *line, const rs_driver_options *options,
                           rs_driver **out);

/* Accepts NULL. */
void rs_driver_destroy(rs_driver *driver);

/* The input for car's next tick, from the world as it is now (the car's own
 * state, its race state and the cars around it). Call once per tick before
 * rs_world_step, then pass the result to rs_world_set_input. Allocates
 * nothing; deterministic. An unknown car gets a neutral input with full
 * brake. */
rs_input rs_driver_update(rs_driver *driver, const rs_world *world, rs_car_id car);

typedef enum rs_driver_mode {
    RS_DRIVER_RACING = 0,    /* following the line */
    RS_DRIVER_REVERSING = 1, /* backing away from a wall or out of a spin */
    RS_DRIVER_REJOINING = 2  /* driving back onto the line at a gentle pace */
} rs_driver_mode;

/* What the driver is doing, for telemetry and tests. */
typedef struct rs_driver_status {
    uint8_t mode;             /* rs_driver_mode */
    uint32_t line_index;      /* nearest line point */
    double line_s_m;          /* the car's distance along the line */
    double lateral_error_m;   /* + = left of the line (or of its passing offset) */
    double target_speed_m_s;
    double pass_offset_m;     /* lateral shift from the line to pass or avoid a car */
    uint32_t recoveries;      /* times it has had to reverse or rejoin */
} rs_driver_status;

/* Copies the status after the last update. Never fails for a valid driver. */
void rs_driver_get_status(const rs_driver *driver, rs_driver_status *out);

#ifdef __cplusplus
}
#endif

#endif
