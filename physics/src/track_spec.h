/*
 * Private to the track module: the track as its JSON file declares it (the
 * "spec"), handed from the loader (track_load.c), which only checks shape and
 * ranges of single fields, to the builder (track_build.c), which derives the
 * geometry and checks everything that involves more than one field. The
 * nearest-segment lookup lives here too because the builder validates with
 * the same query the simulation uses (track_query.c).
 */
#ifndef RS_TRACK_SPEC_H
#define RS_TRACK_SPEC_H

#include "json.h"
#include "track_internal.h"

#define RS_TRACK_MAX_POINTS 100000u     /* centre-line points */
#define RS_TRACK_MAX_COORD_M 1.0e5      /* |x|, |y| of any point: 100 km */
#define RS_TRACK_MAX_WIDTH_M 50.0       /* half-width on either side */
#define RS_TRACK_MIN_SEGMENT_M 0.01     /* shortest centre-line segment */
#define RS_TRACK_DUP_CLOSE_M 0.001      /* a last point this near the first is dropped */
#define RS_TRACK_LENGTH_TOL 0.005       /* declared vs computed length */
#define RS_TRACK_MAX_KERB_M 5.0
#define RS_TRACK_MAX_ZONES 1024u        /* kerbs, run-off zones, walls (each) */
#define RS_TRACK_MAX_WALL_POINTS 100000u
#define RS_TRACK_DEFAULT_OFFSET_M 10.0  /* generated barrier beyond the edge */
#define RS_TRACK_MAX_OFFSET_M 200.0
#define RS_TRACK_BARRIER_CLEAR_M 1.0    /* least gap between edge + kerb and a generated barrier */
#define RS_TRACK_LINE_OVERHANG_M 1.0    /* an "s_m" timing line reaches this far past the kerbs */
#define RS_TRACK_LINE_MIN_GAP_M 10.0    /* between consecutive timing lines */
#define RS_TRACK_MIN_SECTOR_LINES 2     /* so a lap has at least 3 sectors */
#define RS_TRACK_GRID_BEHIND 0.4        /* grid slots lie within this fraction of a lap before the line */
#define RS_TRACK_GRID_MAX_ANGLE_DEG 30.0
#define RS_TRACK_REACH_MARGIN_M 5.0     /* added to max_reach beyond the farthest barrier */

typedef struct rs_track_zone_spec {
    uint8_t side;    /* RS_SIDE_* */
    double from, to; /* stations; from > to wraps through the start */
    double width;    /* kerbs */
    uint8_t surface; /* run-off zones */
} rs_track_zone_spec;

typedef struct rs_track_line_spec {
    bool by_station; /* {"s_m": s} rather than {"a": .., "b": ..} */
    double s;
    double a[2], b[2];
} rs_track_line_spec;

typedef struct rs_track_wall_spec {
    uint32_t first;  /* index of its first point in wall_xy (in points) */
    uint32_t points;
    bool closed;
    double restitution, friction;
} rs_track_wall_spec;

typedef struct rs_track_spec {
    char name[RS_TRACK_NAME_MAX];
    double length_m;             /* as declared */
    uint32_t n;                  /* centre-line points after dropping a repeated first */
    double *pts;                 /* x, y, w_right, w_left per point, as in the file */
    uint8_t runoff_default;
    uint32_t nkerb, nzone;
    rs_track_zone_spec *kerb, *zone;
    bool barrier_on[2];          /* [RS_SIDE_*]: generate a barrier on this side */
    double barrier_offset[2];
    double restitution, friction;
    uint32_t nwall;
    rs_track_wall_spec *wall;
    double *wall_xy;
    uint32_t nlines;             /* start line + sector lines */
    rs_track_line_spec line[RS_TRACK_MAX_LINES];
    uint32_t ngrid;
    rs_grid_slot grid[RS_TRACK_MAX_GRID];
} rs_track_spec;

/* Builds the track from a shape-checked spec: derives the geometry, checks
 * it (messages through c, naming the field) and computes the hash. On error
 * returns the status with *out NULL; the spec stays the caller's. */
rs_status rs_track_build(const rs_track_spec *spec, rs_json_ctx *c, rs_track **out);

/* The nearest centre-line segment to (x, y) within max_reach (projection
 * clamped to the segment, ties to the lowest index). */
typedef struct rs_track_near {
    uint32_t seg;
    double u;     /* distance along the segment from its first point, [0, len] */
    double dist;  /* distance from the centre line, >= 0 */
    bool left;    /* the point is on the left (or on the line) */
} rs_track_near;
bool rs_track_nearest(const rs_track *t, double x, double y, rs_track_near *out);

/* Heading of a direction in (-pi, pi]. */
double rs_track_heading_of(double dx, double dy);

#endif
