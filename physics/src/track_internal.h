/*
 * The loaded track as the simulation sees it: the centre line with its
 * derived geometry, per-segment surface zones, barrier segments with their
 * broadphase grid, timing lines and grid slots. Built by the loader
 * (track_load.c, track_build.c), read by the ground lookup (track_query.c),
 * collisions (collide.c), timing (race.c) and the AI driver (driver.c).
 * Immutable after rs_track_load returns.
 */
#ifndef RS_TRACK_INTERNAL_H
#define RS_TRACK_INTERNAL_H

#include "racesim/track.h"
#include "seggrid.h"

#define RS_TRACK_NAME_MAX 64

enum { RS_SIDE_LEFT = 0, RS_SIDE_RIGHT = 1 };

/* One centre-line point and the segment that starts at it (to point i+1,
 * wrapping). */
typedef struct rs_track_node {
    double x, y;
    double w[2];      /* half-widths: [RS_SIDE_LEFT], [RS_SIDE_RIGHT] */
    double s;         /* station of this point */
    double len;       /* length of the segment to the next point (> 0) */
    double tx, ty;    /* unit tangent of that segment */
    double kerb_w[2]; /* kerb width beyond each edge along this segment (0 = none) */
    uint8_t runoff[2];/* rs_surface of the run-off beyond the kerb/edge */
    /* Added by the track module for its own queries (track_build.c). */
    double heading;   /* direction of the segment, (-pi, pi] */
    double nx, ny;    /* unit normal at this point, pointing left: the bisector
                         of the two segments meeting here (edges are offset
                         along it) */
    double pheading;  /* direction of the centre line at this point (the
                         bisector's tangent), (-pi, pi] */
    double curv;      /* signed curvature at this point, + = turning left,
                         smoothed over a few metres (track_build.c) */
} rs_track_node;

/* A barrier segment: a wall between a and b, solid from both sides. */
typedef struct rs_barrier_seg {
    double ax, ay, bx, by;
    double restitution;   /* normal velocity kept after a hit, 0..1 */
    double friction;      /* Coulomb coefficient along the wall */
    uint32_t barrier;     /* index of the polyline it belongs to */
} rs_barrier_seg;

/* A barrier polyline as declared (or generated), for drawing. */
typedef struct rs_barrier_poly {
    uint32_t first_xy;    /* index into rs_track.barrier_xy (in points) */
    uint32_t points;
    bool closed;
    double restitution, friction;
} rs_barrier_poly;

/* Timing line i: from a (left of the track) to b (right). Crossing it in the
 * racing direction means moving from its "before" side to its "after" side:
 * the after side is the one the centre-line tangent at s points to. */
typedef struct rs_timing_line {
    double ax, ay, bx, by;
    double s;             /* station where it meets the centre line */
    double nx, ny;        /* unit normal pointing in the racing direction */
} rs_timing_line;

/* A centre segment as the ground lookup reads it: the node's first point,
 * unit tangent and length, 40 bytes instead of a whole node. */
typedef struct rs_track_seg {
    double x, y, tx, ty, len;
} rs_track_seg;

typedef struct rs_grid_slot {
    double x, y, yaw;
} rs_grid_slot;

struct rs_track {
    char name[RS_TRACK_NAME_MAX];
    double length;        /* sum of segment lengths */
    uint64_t hash;

    uint32_t n;           /* centre-line points (>= 3) */
    rs_track_node *node;
    double max_reach;     /* farthest lateral distance anything on the ground
                             lookup reports (widest edge + kerb + run-off to
                             the barrier + margin) */
    rs_seggrid centre_grid; /* centre segments, margin = max_reach */
    uint8_t runoff_default; /* rs_surface reported beyond max_reach */
    /* The ground lookup's fast path (track_query.c): the centre segments
     * packed for the cache, and a second grid with a margin just past the
     * widest edge and kerb, tried first; the full search runs only when the
     * point is farther than near_reach from the centre line. */
    rs_track_seg *seg;
    double near_reach;
    rs_seggrid near_grid;
    /* Per cell of near_grid, cut into 4 x 4 parts (RS_SEGGRID_PARTS): bit
     * 4 * sy + sx is set when every point of part (sx, sy) is asphalt
     * inside the limits whichever segment is nearest, so the lookup answers
     * without a search (track_build.c, plain_radius). */
    uint16_t *plain_parts;
    /* Per cell of near_grid that lists a segment (else 0): no barrier is
     * nearer to any point of the cell than this many sixteenths of a
     * metre (at most 96: 6 m), so a car there whose reach is less touches
     * none (collide_barrier.c; track_build.c, build_barriers). */
    uint8_t *barrier_clear;
    /* The same for the timing lines: a car whose substep path is shorter
     * crosses none (race.c). */
    uint8_t *line_clear;

    uint32_t nbarrier;    /* polylines */
    rs_barrier_poly *barrier;
    double *barrier_xy;   /* all polyline points, x y interleaved */
    uint32_t nbseg;
    rs_barrier_seg *bseg;
    rs_seggrid barrier_grid; /* barrier segments, margin 0 (queries pass the
                                swept car box) */

    uint32_t nlines;      /* 1 + sector lines, <= RS_TRACK_MAX_LINES */
    rs_timing_line line[RS_TRACK_MAX_LINES];

    uint32_t ngrid;
    rs_grid_slot grid[RS_TRACK_MAX_GRID];
};

/* How far the nearest barrier is at least from (x, y): barrier_clear of
 * the ground grid's cell under it, in metres; 0 off that grid (and NaN). */
double rs_track_barrier_clearance(const rs_track *t, double x, double y);

/* The same for the nearest timing line (line_clear). */
double rs_track_line_clearance(const rs_track *t, double x, double y);

/* Writes the track's canonical bytes (docs/TRACKS.md lists the layout): every
 * field that changes the simulation or the timing, the final barrier
 * geometry included. Returns the size; writes only when buf is non-NULL and
 * cap is large enough (size-query idiom). Never fails. */
size_t rs_track_canonical(const rs_track *track, uint8_t *buf, size_t cap);

#endif
