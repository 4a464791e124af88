/*
 * Uniform segment grid (see seggrid.h). Cell coordinates come from floor()
 * of exact products, so every machine bins a segment into the same cells.
 */
#include "seggrid.h"

#include <stdlib.h>
#include <string.h>

#include "detmath.h"

static uint32_t clamp_cell(double v, uint32_t n)
{
    if (!(v > 0.0))
        return 0;
    if (v >= (double)n)
        return n - 1;
    return (uint32_t)v;
}

rs_status rs_seggrid_build(rs_seggrid *g, const rs_seg2 *segs, uint32_t n, double margin_m,
                           double cell_m)
{
    memset(g, 0, sizeof *g);
    if (!(cell_m > 0.0) || !(margin_m >= 0.0))
        return RS_ERR_ARG;
    double x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        const rs_seg2 *s = &segs[i];
        double lx = rs_min(s->ax, s->bx), hx = rs_max(s->ax, s->bx);
        double ly = rs_min(s->ay, s->by), hy = rs_max(s->ay, s->by);
        if (i == 0 || lx < x0) x0 = lx;
        if (i == 0 || ly < y0) y0 = ly;
        if (i == 0 || hx > x1) x1 = hx;
        if (i == 0 || hy > y1) y1 = hy;
    }
    x0 -= margin_m, y0 -= margin_m, x1 += margin_m, y1 += margin_m;
    double span_x = x1 - x0, span_y = y1 - y0;
    /* NaN or Inf coordinates would make the cell counts below meaningless
     * (and their conversion to integers undefined). */
    if (!(span_x - span_x == 0.0) || !(span_y - span_y == 0.0))
        return RS_ERR_ARG;
    /* Keep the cell count bounded for huge, sparse layouts. Each axis
     * counts at least one cell, so a layout that is thin in one direction
     * (all segments on one line) cannot have an unbounded count along the
     * other. */
    while ((span_x / cell_m + 1.0) * (span_y / cell_m + 1.0) > 4.0e6)
        cell_m *= 2.0;
    g->x0 = x0, g->y0 = y0, g->cell_m = cell_m, g->inv_cell = 1.0 / cell_m;
    g->nx = (uint32_t)(span_x / cell_m) + 1;
    g->ny = (uint32_t)(span_y / cell_m) + 1;
    g->nseg = n;
    size_t cells = (size_t)g->nx * g->ny;
    g->cell_start = calloc(cells + 1, sizeof *g->cell_start);
    g->range = malloc(((size_t)n * 4 + 1) * sizeof *g->range);
    if (!g->cell_start || !g->range)
        goto nomem;
    for (uint32_t i = 0; i < n; i++) {
        const rs_seg2 *s = &segs[i];
        uint32_t *r = &g->range[4 * (size_t)i];
        r[0] = clamp_cell((rs_min(s->ax, s->bx) - margin_m - x0) * g->inv_cell, g->nx);
        r[1] = clamp_cell((rs_min(s->ay, s->by) - margin_m - y0) * g->inv_cell, g->ny);
        r[2] = clamp_cell((rs_max(s->ax, s->bx) + margin_m - x0) * g->inv_cell, g->nx);
        r[3] = clamp_cell((rs_max(s->ay, s->by) + margin_m - y0) * g->inv_cell, g->ny);
        for (uint32_t iy = r[1]; iy <= r[3]; iy++)
            for (uint32_t ix = r[0]; ix <= r[2]; ix++)
                g->cell_start[(size_t)iy * g->nx + ix + 1]++;
    }
    for (size_t c = 0; c < cells; c++)
        g->cell_start[c + 1] += g->cell_start[c];
    g->items = malloc(((size_t)g->cell_start[cells] + 1) * sizeof *g->items);
    uint32_t *fill = calloc(cells + 1, sizeof *fill);
    if (!g->items || !fill) {
        free(fill);
        goto nomem;
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *r = &g->range[4 * (size_t)i];
        for (uint32_t iy = r[1]; iy <= r[3]; iy++)
            for (uint32_t ix = r[0]; ix <= r[2]; ix++) {
                size_t c = (size_t)iy * g->nx + ix;
                g->items[g->cell_start[c] + fill[c]++] = i;
            }
    }
    free(fill);
    return RS_OK;
nomem:
    rs_seggrid_free(g);
    return RS_ERR_NOMEM;
}

void rs_seggrid_free(rs_seggrid *g)
{
    free(g->cell_start);
    free(g->items);
    free(g->range);
    memset(g, 0, sizeof *g);
}

/* ------------------------------------------------- pruning for nearest */

/* Squared distance from (x, y) to the segment s. */
static double point_seg_d2(double x, double y, const rs_seg2 *s)
{
    double vx = s->bx - s->ax, vy = s->by - s->ay, dx = x - s->ax, dy = y - s->ay;
    double l2 = vx * vx + vy * vy;
    double f = l2 > 0.0 ? (dx * vx + dy * vy) / l2 : 0.0;
    f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
    double ex = dx - f * vx, ey = dy - f * vy;
    return ex * ex + ey * ey;
}

/* Squared distance from (x, y) to the box b = {x0, y0, x1, y1}. */
static double point_box_d2(double x, double y, const double b[4])
{
    double dx = x < b[0] ? b[0] - x : x > b[2] ? x - b[2] : 0.0;
    double dy = y < b[1] ? b[1] - y : y > b[3] ? y - b[3] : 0.0;
    return dx * dx + dy * dy;
}

/* Whether the segment meets the box (Liang-Barsky clipping). */
static bool seg_meets_box(const rs_seg2 *s, const double b[4])
{
    double t0 = 0.0, t1 = 1.0;
    double d[2] = {s->bx - s->ax, s->by - s->ay}, a[2] = {s->ax, s->ay};
    for (int k = 0; k < 2; k++) {
        double lo = b[k], hi = b[k + 2];
        if (d[k] == 0.0) {
            if (a[k] < lo || a[k] > hi)
                return false;
            continue;
        }
        double ta = (lo - a[k]) / d[k], tb = (hi - a[k]) / d[k];
        if (ta > tb) {
            double tmp = ta;
            ta = tb, tb = tmp;
        }
        t0 = ta > t0 ? ta : t0, t1 = tb < t1 ? tb : t1;
        if (t0 > t1)
            return false;
    }
    return true;
}

/* The squared distances from the corners of box b to s, corner c at
 * (b[c & 1 ? 2 : 0], b[c & 2 ? 3 : 1]). The pruning below wants them twice
 * (the farthest and the nearest distance), so it computes them once. */
static void corner_d2(const rs_seg2 *s, const double b[4], double d2[4])
{
    for (int c = 0; c < 4; c++)
        d2[c] = point_seg_d2(b[c & 1 ? 2 : 0], b[c & 2 ? 3 : 1], s);
}

/* The farthest any point of a box is from a segment, from its corners'
 * squared distances: at a corner, as the distance to a segment is convex. */
static double far_of(const double d2[4])
{
    double m = 0.0;
    for (int c = 0; c < 4; c++)
        m = rs_max(m, d2[c]);
    return rs_sqrt(m);
}

/* The nearest distance between a segment and a box: 0 if they meet, else
 * attained at a corner of one of them (both are convex polygons). cd2 are
 * the box's corner_d2 to s. */
static double seg_box_dist(const rs_seg2 *s, const double b[4], const double cd2[4])
{
    if (seg_meets_box(s, b))
        return 0.0;
    double d2 = rs_min(point_box_d2(s->ax, s->ay, b), point_box_d2(s->bx, s->by, b));
    for (int c = 0; c < 4; c++)
        d2 = rs_min(d2, cd2[c]);
    return rs_sqrt(d2);
}

/* The distance between s's bounding box and box b: no more than the
 * distance between s and b. */
static double seg_box_gap(const rs_seg2 *s, const double b[4])
{
    double dx = rs_max(rs_max(rs_min(s->ax, s->bx) - b[2], b[0] - rs_max(s->ax, s->bx)), 0.0);
    double dy = rs_max(rs_max(rs_min(s->ay, s->by) - b[3], b[1] - rs_max(s->ay, s->by)), 0.0);
    return rs_sqrt(dx * dx + dy * dy);
}

/* The widening is far above the rounding of a lookup's arithmetic (which
 * may bin a point just outside a cell into it, and compares rounded
 * distances) and of the pruning's own, so that nothing decided from a cell's
 * box depends on a last bit. It depends on the grid only: computed once per
 * grid, not per cell. */
static double grid_slack(const rs_seggrid *g)
{
    double extent = rs_max(rs_max(rs_abs(g->x0), rs_abs(g->y0)),
                           rs_max(rs_abs(g->x0 + g->nx * g->cell_m),
                                  rs_abs(g->y0 + g->ny * g->cell_m)));
    return RS_SEGGRID_SLACK_M + 1e-9 * extent;
}

/* The box of part (sx, sy) of cell (ix, iy) cut into `parts` x `parts`
 * (parts = 1: the cell itself), widened by slack. step = cell_m / parts is
 * exact (parts is a power of 2), and so is jx * step for the grids' cells. */
static void part_box(const rs_seggrid *g, uint32_t ix, uint32_t iy, uint32_t parts, uint32_t sx,
                     uint32_t sy, double slack, double b[4])
{
    double step = g->cell_m / parts;
    uint32_t jx = ix * parts + sx, jy = iy * parts + sy;
    b[0] = g->x0 + jx * step - slack, b[1] = g->y0 + jy * step - slack;
    b[2] = g->x0 + (jx + 1) * step + slack, b[3] = g->y0 + (jy + 1) * step + slack;
}

#define P RS_SEGGRID_PARTS
_Static_assert(P * P <= 16, "a cell's parts fit in 16 bits");

/* The parts of cell (ix, iy) (bit P * sy + sx for part (sx, sy)) where
 * every point is within radius[j] - RS_SEGGRID_SLACK_M of whichever segment
 * j is the nearest to it. The cell's list idx[0..n) (cut to the segments
 * that can be the nearest in the cell, so in any part of it) has, per
 * segment, far[k] and near[k]: its farthest and nearest distance to the
 * cell's box b. lat is scratch for n * (P + 1)^2 doubles.
 *
 * A part qualifies when each listed segment j either
 *  (a) is within radius[j] - slack of the part's farthest point: wherever
 *      in the part j is the nearest, the point is near enough; or
 *  (b) is farther from the whole part than some segment is from the part's
 *      farthest point (plus slack): j is never the nearest in it, nor tied
 *      (the rule of rs_seggrid_keep_nearest, for the part).
 * Both distances come from the part's box unwidened, whose corners
 * neighbouring parts share (a (P + 1) x (P + 1) lattice per segment,
 * instead of four corners of each widened part), and are moved by twice the
 * widening: a point of the widened part is within sqrt(2) times the
 * widening of the unwidened one, and distances change by at most as much
 * (they are 1-Lipschitz). So the farthest distance plus, and the nearest
 * minus, twice the widening bound the widened part's from above and from
 * below, which is what the rule needs (the corners' rounding is far below
 * the widening).
 *
 * Without the lattice: every part qualifies when every segment passes (a)
 * for the whole cell; none does when every segment is farther from the
 * whole cell than its radius, as then no segment passes (a) in any part,
 * and the one nearest to the part's farthest point fails (b). Only cells at
 * the radii's edges need their parts. */
static uint16_t parts_within(const rs_seggrid *g, const rs_seg2 *segs, uint32_t ix, uint32_t iy,
                             double slack, const uint32_t *idx, const double *far,
                             const double *near, uint32_t n, const double *radius, double *lat)
{
    bool all = n > 0, none = true;
    for (uint32_t k = 0; k < n; k++) {
        double r = radius[idx[k]];
        all = all && far[k] + RS_SEGGRID_SLACK_M <= r;
        none = none && near[k] > r;
    }
    if (all)
        return (uint16_t)((1u << (P * P)) - 1u);
    if (none || n > 64)
        return 0; /* (longer lists, never seen, would need more room below) */
    /* The lattice: (P + 1) x (P + 1) squared distances per segment, as
     * point_seg_d2 computes them but dividing once per segment (a rounding
     * far below the widening, as are the corners' own). */
    double step = g->cell_m / P, xs[P + 1], ys[P + 1];
    for (uint32_t a = 0; a <= P; a++)
        xs[a] = g->x0 + (ix * P + a) * step, ys[a] = g->y0 + (iy * P + a) * step;
    double r2[64]; /* (a) as m <= r2 (the squared farthest distance) */
    for (uint32_t k = 0; k < n; k++) {
        const rs_seg2 *sg = &segs[idx[k]];
        double vx = sg->bx - sg->ax, vy = sg->by - sg->ay, l2 = vx * vx + vy * vy;
        double inv = l2 > 0.0 ? 1.0 / l2 : 0.0;
        double *l = &lat[k * (P + 1) * (P + 1)];
        for (uint32_t a = 0; a <= P; a++) {
            double dy = ys[a] - sg->ay;
            for (uint32_t c = 0; c <= P; c++) {
                double dx = xs[c] - sg->ax;
                double f = (dx * vx + dy * vy) * inv;
                f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
                double ex = dx - f * vx, ey = dy - f * vy;
                l[a * (P + 1) + c] = ex * ex + ey * ey;
            }
        }
        double r = radius[idx[k]] - RS_SEGGRID_SLACK_M - 2.0 * slack;
        r2[k] = r >= 0.0 ? r * r : -1.0;
    }
    uint16_t mask = 0;
    for (uint32_t sy = 0; sy < P; sy++)
        for (uint32_t sx = 0; sx < P; sx++) {
            double m[64];
            uint32_t kmin = 0;
            for (uint32_t k = 0; k < n; k++) {
                const double *l = &lat[k * (P + 1) * (P + 1) + sy * (P + 1) + sx];
                m[k] = rs_max(rs_max(l[0], l[1]), rs_max(l[P + 1], l[P + 2]));
                if (m[k] < m[kmin])
                    kmin = k;
            }
            /* The segment with the least farthest distance is at most that
             * from the part, so it never passes (b): it must pass (a). */
            if (!(m[kmin] <= r2[kmin]))
                continue;
            double fmin = rs_sqrt(m[kmin]) + 2.0 * slack;
            double b[4] = {xs[sx], ys[sy], xs[sx + 1], ys[sy + 1]};
            bool ok = true;
            for (uint32_t k = 0; ok && k < n; k++) {
                if (m[k] <= r2[k])
                    continue;
                /* The bounding boxes' gap first: no division. */
                if (seg_box_gap(&segs[idx[k]], b) - 2.0 * slack > fmin + RS_SEGGRID_SLACK_M)
                    continue;
                const double *l = &lat[k * (P + 1) * (P + 1) + sy * (P + 1) + sx];
                double cd2[4] = {l[0], l[1], l[P + 1], l[P + 2]};
                ok = seg_box_dist(&segs[idx[k]], b, cd2) - 2.0 * slack >
                     fmin + RS_SEGGRID_SLACK_M;
            }
            if (ok)
                mask = (uint16_t)(mask | 1u << (P * sy + sx));
        }
    return mask;
}

/* At any point p of a cell, the nearest distance is at most
 * far = min over j of far_of(j) (p is no farther than that from
 * that segment), and every segment j is at least seg_box_dist(j) from p. So
 * a segment with seg_box_dist > far is never the nearest at any p, nor tied
 * with it. Segments a cell does not list are beyond the grid's margin of
 * it; they cannot be nearer than a listed one within the margin, and when
 * none is, the lookup finds nothing either way. Cells are widened
 * (part_box, grid_slack) and the comparison given the same slack.
 *
 * Each listed segment's corner distances serve both its farthest and its
 * nearest distance (they are the same numbers as computing them apart), and
 * empty cells have nothing to cut: most of a track's grid is empty. */
rs_status rs_seggrid_keep_nearest(rs_seggrid *g, const rs_seg2 *segs, const double *radius,
                                  uint16_t *parts)
{
    if (!g->cell_start || !g->items)
        return RS_OK;
    uint32_t most = 0;
    for (size_t c = 0; c < (size_t)g->nx * g->ny; c++)
        if (g->cell_start[c + 1] - g->cell_start[c] > most)
            most = g->cell_start[c + 1] - g->cell_start[c];
    /* Per listed segment: 4 corner distances, then far, near and the gap;
     * and the parts' lattice. */
    size_t per = 7 + (radius ? (P + 1) * (P + 1) : 0);
    double *scratch = malloc(((size_t)most * per + 1) * sizeof *scratch);
    if (!scratch)
        return RS_ERR_NOMEM;
    double *cd2 = scratch, *far = scratch + 4 * (size_t)most, *near = far + most;
    double *gap = near + most, *lat = gap + most;
    double slack = grid_slack(g);
    uint32_t out = 0;
    for (uint32_t iy = 0; iy < g->ny; iy++)
        for (uint32_t ix = 0; ix < g->nx; ix++) {
            size_t c = (size_t)iy * g->nx + ix;
            uint32_t k0 = g->cell_start[c], k1 = g->cell_start[c + 1];
            g->cell_start[c] = out;
            if (k0 == k1)
                continue;
            double b[4];
            part_box(g, ix, iy, 1, 0, 0, slack, b);
            /* Gaps first: a segment's bounding box is no farther from the
             * cell than the segment is, so one whose gap exceeds a farthest
             * distance already found cannot give the least, and one whose
             * gap exceeds the least by twice the slack is cut (its distance
             * is then beyond the least plus the slack, whatever the
             * rounding). The corners of the others give the same numbers as
             * before, so the lists are the same. */
            uint32_t n = k1 - k0, kbest = 0;
            for (uint32_t k = 0; k < n; k++) {
                gap[k] = seg_box_gap(&segs[g->items[k0 + k]], b);
                far[k] = -1.0; /* not computed */
                if (gap[k] < gap[kbest])
                    kbest = k;
            }
            double fmin = 1e300;
            for (uint32_t j = 0; j < n; j++) {
                uint32_t k = j == 0 ? kbest : j == kbest ? 0 : j; /* the least gap first */
                if (gap[k] > fmin)
                    continue;
                corner_d2(&segs[g->items[k0 + k]], b, &cd2[4 * (size_t)k]);
                far[k] = far_of(&cd2[4 * (size_t)k]);
                fmin = rs_min(fmin, far[k]);
            }
            uint32_t first = out;
            for (uint32_t k = 0; k < n; k++) {
                uint32_t i = g->items[k0 + k];
                if (far[k] < 0.0) {
                    if (gap[k] > fmin + 2.0 * RS_SEGGRID_SLACK_M)
                        continue;
                    corner_d2(&segs[i], b, &cd2[4 * (size_t)k]);
                    far[k] = far_of(&cd2[4 * (size_t)k]);
                }
                double d = seg_box_dist(&segs[i], b, &cd2[4 * (size_t)k]);
                if (d <= fmin + RS_SEGGRID_SLACK_M) {
                    /* out - first <= k: the kept ones move down. */
                    far[out - first] = far[k], near[out - first] = d;
                    g->items[out++] = i;
                }
            }
            if (radius)
                parts[c] = parts_within(g, segs, ix, iy, slack, &g->items[first], far, near,
                                        out - first, radius, lat);
        }
    g->cell_start[(size_t)g->nx * g->ny] = out;
    g->nearest_only = true;
    free(scratch);
    return RS_OK;
}

#undef P

#define CLEAR_UNITS 16.0 /* per metre: exact binary fractions */
#define CLEAR_MAX 96u     /* 6 m: more than a car reaches in a substep */

/* Wall by wall rather than cell by cell: a wall reaches the few cells within
 * the cap of it, while a cell's own search would visit every wall near it
 * (walls are short). The minimum is kept in the bytes themselves (rounding
 * down commutes with taking the least), so nothing the size of the grid is
 * allocated or written beyond out's bytes for the cells that list
 * something: a track's grid is mostly empty, and touching all of it cost
 * more time than the distances. */
void rs_seggrid_clearance(const rs_seggrid *g, const rs_seg2 *segs, uint32_t n, uint8_t *out)
{
    if (!g->cell_start)
        return;
    /* No wall within the cap, until one is found; the empty cells keep
     * their 0, and the walls below pass them over. */
    size_t cells = (size_t)g->nx * g->ny;
    for (size_t c = 0; c < cells; c++)
        if (g->cell_start[c] != g->cell_start[c + 1])
            out[c] = CLEAR_MAX;
    double cap = CLEAR_MAX / CLEAR_UNITS, slack = grid_slack(g);
    for (uint32_t i = 0; i < n; i++) {
        const rs_seg2 *sg = &segs[i];
        /* The cells whose widened box can be within the cap of the wall. */
        double fx0 = (rs_min(sg->ax, sg->bx) - cap - g->x0) * g->inv_cell - 1.0;
        double fy0 = (rs_min(sg->ay, sg->by) - cap - g->y0) * g->inv_cell - 1.0;
        double fx1 = (rs_max(sg->ax, sg->bx) + cap - g->x0) * g->inv_cell + 1.0;
        double fy1 = (rs_max(sg->ay, sg->by) + cap - g->y0) * g->inv_cell + 1.0;
        if (!(fx1 >= 0.0) || !(fy1 >= 0.0) || !(fx0 < (double)g->nx) || !(fy0 < (double)g->ny))
            continue;
        uint32_t qx0 = clamp_cell(fx0, g->nx), qx1 = clamp_cell(fx1, g->nx);
        uint32_t qy0 = clamp_cell(fy0, g->ny), qy1 = clamp_cell(fy1, g->ny);
        for (uint32_t iy = qy0; iy <= qy1; iy++)
            for (uint32_t ix = qx0; ix <= qx1; ix++) {
                size_t c = (size_t)iy * g->nx + ix;
                if (out[c] == 0)
                    continue; /* off the track (cars are rarely there), or nothing to gain */
                double b[4];
                part_box(g, ix, iy, 1, 0, 0, slack, b);
                /* A wall that cannot bring the byte down is passed over: its
                 * bounding box is no nearer than it is. */
                double least = out[c] / CLEAR_UNITS + RS_SEGGRID_SLACK_M;
                if (seg_box_gap(sg, b) >= least)
                    continue;
                double cd2[4];
                corner_d2(sg, b, cd2);
                double u = (seg_box_dist(sg, b, cd2) - RS_SEGGRID_SLACK_M) * CLEAR_UNITS;
                if (u < out[c])
                    out[c] = u > 0.0 ? (uint8_t)u : 0u; /* rounded down */
            }
    }
}

void rs_seggrid_query(const rs_seggrid *g, double x0, double y0, double x1, double y1,
                      rs_seggrid_visit visit, void *ctx)
{
    if (g->nseg == 0 || !g->cell_start || g->nearest_only)
        return;
    double fx0 = (x0 - g->x0) * g->inv_cell, fx1 = (x1 - g->x0) * g->inv_cell;
    double fy0 = (y0 - g->y0) * g->inv_cell, fy1 = (y1 - g->y0) * g->inv_cell;
    if (!(fx1 >= 0.0) || !(fy1 >= 0.0) || !(fx0 < (double)g->nx) || !(fy0 < (double)g->ny))
        return; /* outside the grid (or NaN) */
    uint32_t qx0 = clamp_cell(fx0, g->nx), qx1 = clamp_cell(fx1, g->nx);
    uint32_t qy0 = clamp_cell(fy0, g->ny), qy1 = clamp_cell(fy1, g->ny);
    for (uint32_t iy = qy0; iy <= qy1; iy++)
        for (uint32_t ix = qx0; ix <= qx1; ix++) {
            size_t c = (size_t)iy * g->nx + ix;
            for (uint32_t k = g->cell_start[c]; k < g->cell_start[c + 1]; k++) {
                uint32_t i = g->items[k];
                const uint32_t *r = &g->range[4 * (size_t)i];
                /* Report from the first cell of the overlap only. */
                uint32_t ox = r[0] > qx0 ? r[0] : qx0, oy = r[1] > qy0 ? r[1] : qy0;
                if (ox == ix && oy == iy)
                    visit(ctx, i);
            }
        }
}
