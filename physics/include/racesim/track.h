/*
 * racesim tracks: a closed circuit the world's cars race on.
 *
 * A track is a closed centre line with a width to the right and to the left
 * of every point (the format of the public circuit databases), surface zones
 * (asphalt between the edges, kerbs along them where wanted, grass or gravel
 * run-off beyond), barriers as polylines, a start/finish line and sector
 * lines (the timing lines), and a starting grid. It is stored as JSON
 * (docs/TRACKS.md) and checked on load: every error names the file and field.
 *
 * Once loaded a track is immutable and may be shared by any number of worlds
 * and threads. Its identity is the 64-bit hash of its canonical bytes, which
 * lap records store next to the car and physics-version hashes.
 *
 * Frame: world x, y horizontal (metres); the centre line runs in the racing
 * direction; "left" and "right" are as seen by a driver going that way.
 */
#ifndef RACESIM_TRACK_H
#define RACESIM_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RS_TRACK_MAX_LINES RS_MAX_SECTORS /* timing lines: start/finish plus sector lines */
#define RS_TRACK_MAX_GRID 64  /* grid slots */

typedef struct rs_track rs_track;

/* Loads a track JSON file. On error returns a status, writes a message naming
 * the file and field into err and leaves *out NULL. Free with
 * rs_track_destroy. */
rs_status rs_track_load(const char *path, rs_track **out, char *err, size_t err_len);

/* The same from text in memory; name is used in messages. */
rs_status rs_track_parse(const char *text, size_t len, const char *name, rs_track **out,
                         char *err, size_t err_len);

/* Accepts NULL. */
void rs_track_destroy(rs_track *track);

/* 64-bit hash of the track's canonical bytes (every field that changes the
 * simulation or the timing): the identity of a track. */
uint64_t rs_track_hash(const rs_track *track);

/* Display name, borrowed until rs_track_destroy. */
const char *rs_track_name(const rs_track *track);

/* Length of the closed centre line, metres. */
double rs_track_length(const rs_track *track);

/* ---------------------------------------------------------------- ground */

/* An rs_ground_fn: pass the track as ground_ctx. Reports the surface zone at
 * (x, y) and whether the point is inside the track limits (between the
 * edges, kerbs included). Pure and thread-safe. Worlds created with a track
 * use it automatically. */
void rs_track_ground(const void *track, double x_m, double y_m, rs_ground_hit *out);

/* Where a point is relative to the centre line. */
typedef struct rs_track_location {
    double s_m;           /* station: distance along the centre line from point 0, [0, length) */
    double offset_m;      /* signed lateral offset from the centre line, + = left */
    double width_left_m;  /* track half-widths at s (interpolated) */
    double width_right_m;
    double heading_rad;   /* direction of the centre line at s, (-pi, pi] */
    uint32_t segment;     /* centre-line segment index (point i to point i+1) */
    uint8_t surface;      /* rs_surface */
    bool inside_limits;   /* between the edges, kerbs counting as track */
} rs_track_location;

/* Locates (x, y) on the nearest part of the track. Returns false (and fills
 * nothing) when the point is farther from every centre-line segment than the
 * widest run-off, i.e. nowhere near the track. */
bool rs_track_locate(const rs_track *track, double x_m, double y_m, rs_track_location *out);

/* ------------------------------------------------------------ centre line */

typedef struct rs_track_point {
    double x_m, y_m;
    double width_right_m, width_left_m;
    double s_m; /* station of this point */
} rs_track_point;

/* Number of centre-line points (the line closes from the last to the first). */
uint32_t rs_track_point_count(const rs_track *track);

/* Point i (0 <= i < count); false for a bad index. */
bool rs_track_point_at(const rs_track *track, uint32_t i, rs_track_point *out);

/* The centre line at station s (wrapped into [0, length)), linearly
 * interpolated: position, widths, heading. curvature_1_m is the signed
 * curvature (+ = turning left) estimated from the neighbouring points. */
typedef struct rs_track_sample {
    double x_m, y_m;
    double heading_rad;
    double curvature_1_m;
    double width_left_m, width_right_m;
} rs_track_sample;
void rs_track_sample_at(const rs_track *track, double s_m, rs_track_sample *out);

/* ------------------------------------------------------------ timing lines */

/* Timing lines: index 0 is the start/finish line, 1.. the sector lines in
 * racing order. A lap has line_count sectors. */
uint32_t rs_track_line_count(const rs_track *track);

typedef struct rs_track_line {
    double a_m[2]; /* end on the left of the track */
    double b_m[2]; /* end on the right */
    double s_m;    /* station where it crosses the centre line */
} rs_track_line;
bool rs_track_line_at(const rs_track *track, uint32_t i, rs_track_line *out);

/* ------------------------------------------------------------------- grid */

uint32_t rs_track_grid_count(const rs_track *track);

/* Grid slot i (0 = pole) as a spawn pose: rs_car_spawn_default (at rest, in
 * Drive) at the slot's place and heading; false for a bad index. */
bool rs_track_grid_slot(const rs_track *track, uint32_t i, rs_car_spawn *out);

/* --------------------------------------------------------------- barriers */

/* Barriers are polylines (generated ones are offset beyond the edges; others
 * are extra walls). For drawing them. */
uint32_t rs_track_barrier_count(const rs_track *track);

typedef struct rs_track_barrier {
    const double *xy; /* points as x0, y0, x1, y1, ...; borrowed */
    uint32_t points;
    bool closed;      /* the last point joins the first */
    double restitution;
    double friction;
} rs_track_barrier;
bool rs_track_barrier_at(const rs_track *track, uint32_t i, rs_track_barrier *out);

#ifdef __cplusplus
}
#endif

#endif
