/*
 * A uniform grid over 2-D segments: the broadphase for car-vs-barrier
 * collisions and for locating a point on the centre line, so a query costs
 * the same on a 1 km oval and a 7 km circuit.
 *
 * Built once (allocates), then read-only and shareable between threads.
 * Queries allocate nothing and keep no state: each segment whose (margin-
 * expanded) bounding box meets the query box is reported exactly once, in a
 * fixed order (cells row by row, then insertion order within a cell), so
 * results are deterministic. A segment spanning several cells is reported
 * from the first cell of the overlap between its cell range and the query's
 * cell range, which needs no "already seen" marks.
 */
#ifndef RS_SEGGRID_H
#define RS_SEGGRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"

typedef struct rs_seg2 {
    double ax, ay, bx, by;
} rs_seg2;

typedef struct rs_seggrid {
    double x0, y0;       /* lower-left corner of cell (0, 0) */
    double cell_m;       /* cell edge length */
    double inv_cell;
    uint32_t nx, ny;     /* cells in x and y */
    uint32_t *cell_start;/* nx*ny + 1 offsets into items (CSR) */
    uint32_t *items;     /* segment indices */
    uint32_t *range;     /* per segment: ix0, iy0, ix1, iy1 (its cell range) */
    uint32_t nseg;
    bool nearest_only;   /* cells pruned by rs_seggrid_keep_nearest */
} rs_seggrid;

/* Builds a grid over n segments, each expanded by margin_m on every side
 * (so a query box may be the bare car box). cell_m > 0. On RS_ERR_NOMEM the
 * grid is left empty (safe to free). */
rs_status rs_seggrid_build(rs_seggrid *g, const rs_seg2 *segs, uint32_t n, double margin_m,
                           double cell_m);

void rs_seggrid_free(rs_seggrid *g);

/* Shortens each cell's list to the segments that can be the nearest of the
 * grid's segments (or tie with it) at some point of the cell: a segment
 * farther from the whole cell than some other segment is from the cell's
 * farthest point never is. Lists keep their ascending order. The nearest-
 * segment lookup that reads the one cell under a point (track_query.c)
 * finds the same segment with fewer candidates; box queries are no longer
 * possible (rs_seggrid_query reports nothing). segs are those the grid was
 * built over.
 *
 * With radius (one per segment; else NULL), it also sets parts[c] (one per
 * cell, zeroed by the caller) to the mask of cell c's RS_SEGGRID_PARTS x
 * RS_SEGGRID_PARTS parts (bit RS_SEGGRID_PARTS * sy + sx for part (sx, sy))
 * in which every point is within radius[j] - RS_SEGGRID_SLACK_M of whichever
 * segment j is the nearest to it (a part's box widened as a cell's is, see
 * below). RS_ERR_NOMEM leaves the grid as it was. */
rs_status rs_seggrid_keep_nearest(rs_seggrid *g, const rs_seg2 *segs, const double *radius,
                                  uint16_t *parts);

/* The parts a cell is cut into per side for the masks above: 0.625 m for
 * the ground lookup's 2.5 m cells. */
#define RS_SEGGRID_PARTS 4

/* Decisions made at build time for every point of a cell (the pruning
 * and its parts above, track_build.c's plain asphalt) use the cell's box widened
 * by at least this much, and keep at least this much in hand when comparing
 * distances. */
#define RS_SEGGRID_SLACK_M 1e-6

/* For every cell of g that lists a segment (the others get 0): how far the
 * cell (widened, less RS_SEGGRID_SLACK_M) is from the nearest of the n
 * segments segs (walls), in sixteenths of a metre rounded down, at most 96
 * (6 m). A point in the cell is at least that far from every one of them.
 * out has a byte per cell of g, all 0 (calloc). */
void rs_seggrid_clearance(const rs_seggrid *g, const rs_seg2 *segs, uint32_t n, uint8_t *out);

/* Calls visit(ctx, index) once for every segment whose expanded box meets
 * [x0, x1] x [y0, y1] (a box fully outside the grid meets nothing). */
typedef void (*rs_seggrid_visit)(void *ctx, uint32_t index);
void rs_seggrid_query(const rs_seggrid *g, double x0, double y0, double x1, double y1,
                      rs_seggrid_visit visit, void *ctx);

#endif
