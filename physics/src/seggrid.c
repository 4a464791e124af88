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

/* The nearest distance between a segment and a box: 0 if they meet, else
 * attained at a corner of one of them (both are convex polygons). */
static double seg_box_dist(const rs_seg2 *s, const double b[4])
{
    if (seg_meets_box(s, b))
        return 0.0;
    double d2 = rs_min(point_box_d2(s->ax, s->ay, b), point_box_d2(s->bx, s->by, b));
    for (int c = 0; c < 4; c++)
        d2 = rs_min(d2, point_seg_d2(b[c & 1 ? 2 : 0], b[c & 2 ? 3 : 1], s));
    return rs_sqrt(d2);
}

double rs_seg2_box_far(const rs_seg2 *s, const double b[4])
{
    double d2 = 0.0;
    for (int c = 0; c < 4; c++)
        d2 = rs_max(d2, point_seg_d2(b[c & 1 ? 2 : 0], b[c & 2 ? 3 : 1], s));
    return rs_sqrt(d2);
}

/* The widening is far above the rounding of a lookup's arithmetic (which
 * may bin a point just outside a cell into it, and compares rounded
 * distances) and of the pruning's own, so that nothing decided from a cell's
 * box depends on a last bit. */
void rs_seggrid_cell_box(const rs_seggrid *g, uint32_t ix, uint32_t iy, double b[4])
{
    double extent = rs_max(rs_max(rs_abs(g->x0), rs_abs(g->y0)),
                           rs_max(rs_abs(g->x0 + g->nx * g->cell_m),
                                  rs_abs(g->y0 + g->ny * g->cell_m)));
    double slack = RS_SEGGRID_SLACK_M + 1e-9 * extent;
    b[0] = g->x0 + ix * g->cell_m - slack, b[1] = g->y0 + iy * g->cell_m - slack;
    b[2] = g->x0 + (ix + 1) * g->cell_m + slack, b[3] = g->y0 + (iy + 1) * g->cell_m + slack;
}

/* At any point p of a cell, the nearest distance is at most
 * far = min over j of rs_seg2_box_far(j) (p is no farther than that from
 * that segment), and every segment j is at least seg_box_dist(j) from p. So
 * a segment with seg_box_dist > far is never the nearest at any p, nor tied
 * with it. Segments a cell does not list are beyond the grid's margin of
 * it; they cannot be nearer than a listed one within the margin, and when
 * none is, the lookup finds nothing either way. Cells are widened
 * (rs_seggrid_cell_box) and the comparison given the same slack. */
void rs_seggrid_keep_nearest(rs_seggrid *g, const rs_seg2 *segs)
{
    if (!g->cell_start || !g->items)
        return;
    uint32_t out = 0;
    for (uint32_t iy = 0; iy < g->ny; iy++)
        for (uint32_t ix = 0; ix < g->nx; ix++) {
            size_t c = (size_t)iy * g->nx + ix;
            uint32_t k0 = g->cell_start[c], k1 = g->cell_start[c + 1];
            double b[4];
            rs_seggrid_cell_box(g, ix, iy, b);
            double far = 1e300;
            for (uint32_t k = k0; k < k1; k++)
                far = rs_min(far, rs_seg2_box_far(&segs[g->items[k]], b));
            g->cell_start[c] = out;
            for (uint32_t k = k0; k < k1; k++)
                if (seg_box_dist(&segs[g->items[k]], b) <= far + RS_SEGGRID_SLACK_M)
                    g->items[out++] = g->items[k];
        }
    g->cell_start[(size_t)g->nx * g->ny] = out;
    g->nearest_only = true;
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
