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
} rs_seggrid;

/* Builds a grid over n segments, each expanded by margin_m on every side
 * (so a query box may be the bare car box). cell_m > 0. On RS_ERR_NOMEM the
 * grid is left empty (safe to free). */
rs_status rs_seggrid_build(rs_seggrid *g, const rs_seg2 *segs, uint32_t n, double margin_m,
                           double cell_m);

void rs_seggrid_free(rs_seggrid *g);

/* Calls visit(ctx, index) once for every segment whose expanded box meets
 * [x0, x1] x [y0, y1] (a box fully outside the grid meets nothing). */
typedef void (*rs_seggrid_visit)(void *ctx, uint32_t index);
void rs_seggrid_query(const rs_seggrid *g, double x0, double y0, double x1, double y1,
                      rs_seggrid_visit visit, void *ctx);

#endif
