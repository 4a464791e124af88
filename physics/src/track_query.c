/*
 * Questions asked of a loaded track: the ground under a wheel, where a point
 * is relative to the centre line, the centre line at a station, and the
 * plain accessors of racesim/track.h.
 *
 * rs_track_ground is on the hot path (every wheel, every substep: 16 calls
 * per car per tick), so the nearest-segment search reads a grid's one cell
 * under the point directly instead of going through the generic box query:
 * a point lies in exactly one cell, so no segment can be reported twice, and
 * the cell lists every segment within the grid's margin of any point in it.
 * Items in a cell are in ascending segment order (seggrid.c fills them that
 * way), so keeping the first strictly smaller distance breaks ties towards
 * the lowest index, and the answer does not depend on the grids. It tries a
 * tight grid first (cars are nearly always on the track) and the wide one,
 * margin max_reach, only when that finds nothing near enough. Both grids'
 * cells list only the segments that can be the nearest somewhere in them
 * (rs_seggrid_keep_nearest), and a part of a cell of the tight grid that
 * is asphalt all over answers without a search (track_build.c,
 * plain_radius).
 *
 * Version 1 tracks are flat: height 0 and an upward normal everywhere.
 */
#include <string.h>

#include "detmath.h"
#include "track_spec.h"

/* The grid's cell under (x, y), if the point is on the grid. */
static inline bool cell_under(const rs_seggrid *g, double x, double y, size_t *c)
{
    double fx = (x - g->x0) * g->inv_cell, fy = (y - g->y0) * g->inv_cell;
    if (!(fx >= 0.0 && fy >= 0.0 && fx < (double)g->nx && fy < (double)g->ny))
        return false; /* also NaN */
    *c = (size_t)(uint32_t)fy * g->nx + (uint32_t)fx;
    return true;
}

/* A clearance byte of the ground grid's cell under (x, y), in metres. */
static double clearance_at(const rs_track *t, const uint8_t *clear, double x, double y)
{
    size_t c;
    if (!clear || !cell_under(&t->near_grid, x, y, &c))
        return 0.0;
    return clear[c] / 16.0; /* sixteenths, exact */
}

double rs_track_barrier_clearance(const rs_track *t, double x, double y)
{
    return clearance_at(t, t->barrier_clear, x, y);
}

double rs_track_line_clearance(const rs_track *t, double x, double y)
{
    return clearance_at(t, t->line_clear, x, y);
}

/* The same, with `part` the part of the cell under the point when cut into
 * 4 x 4 (4 * sy + sx, as the plain-asphalt masks have it): 4 * fx is exact,
 * so its whole part is 4 * ix plus the part's column. */
_Static_assert(RS_SEGGRID_PARTS == 4, "the masks' parts are quarters of a cell");
static inline bool cell_part_under(const rs_seggrid *g, double x, double y, size_t *c,
                                   unsigned *part)
{
    double fx = (x - g->x0) * g->inv_cell, fy = (y - g->y0) * g->inv_cell;
    if (!(fx >= 0.0 && fy >= 0.0 && fx < (double)g->nx && fy < (double)g->ny))
        return false; /* also NaN */
    uint32_t ix = (uint32_t)fx, iy = (uint32_t)fy;
    *c = (size_t)iy * g->nx + ix;
    *part = ((uint32_t)(4.0 * fy) - 4 * iy) * 4 + ((uint32_t)(4.0 * fx) - 4 * ix);
    return true;
}

/* The nearest segment among those a grid lists for cell c, if one is within
 * `reach` of (x, y). */
static inline bool nearest_in_cell(const rs_track *t, const rs_seggrid *g, size_t c,
                                   double reach, double x, double y, rs_track_near *out)
{
    const rs_track_seg *seg = t->seg;
    double best = reach * reach;
    uint32_t bi = UINT32_MAX;
    double bu = 0.0, bex = 0.0, bey = 0.0;
    for (uint32_t k = g->cell_start[c], end = g->cell_start[c + 1]; k < end; k++) {
        uint32_t i = g->items[k];
        const rs_track_seg *p = &seg[i];
        double dx = x - p->x, dy = y - p->y;
        double u = dx * p->tx + dy * p->ty;
        double ex, ey;
        if (u <= 0.0) {
            u = 0.0, ex = dx, ey = dy;
        } else if (u >= p->len) {
            /* The next point itself, so the distance is bit-identical to the
             * one the next segment computes and the tie goes to the lower. */
            const rs_track_seg *q = &seg[i + 1 < t->n ? i + 1 : 0];
            u = p->len, ex = x - q->x, ey = y - q->y;
        } else {
            ex = dx - u * p->tx, ey = dy - u * p->ty;
        }
        double d2 = ex * ex + ey * ey;
        if (d2 < best || (d2 == best && bi == UINT32_MAX)) {
            best = d2, bi = i, bu = u, bex = ex, bey = ey;
        }
    }
    if (bi == UINT32_MAX)
        return false;
    out->seg = bi;
    out->u = bu;
    out->dist = rs_sqrt(best);
    out->left = seg[bi].tx * bey - seg[bi].ty * bex >= 0.0;
    return true;
}

/* Every segment within a grid's margin of the point is listed in its cell,
 * so a nearest segment found within near_reach is the nearest of all (ties
 * included: they are all listed, in ascending order): the full search over
 * the wider centre grid gives the same answer and is needed only for points
 * off the track. */
static inline bool nearest_in(const rs_track *t, const rs_seggrid *g, double reach, double x,
                              double y, rs_track_near *out)
{
    size_t c;
    return cell_under(g, x, y, &c) && nearest_in_cell(t, g, c, reach, x, y, out);
}

static inline bool nearest(const rs_track *t, double x, double y, rs_track_near *out)
{
    if (nearest_in(t, &t->near_grid, t->near_reach, x, y, out))
        return true;
    return nearest_in(t, &t->centre_grid, t->max_reach, x, y, out);
}

bool rs_track_nearest(const rs_track *t, double x, double y, rs_track_near *out)
{
    return nearest(t, x, y, out);
}

/* Widths at the nearest point, surface and limits. */
static inline void classify(const rs_track *t, const rs_track_near *nr, double w[2],
                            uint8_t *surface, bool *inside)
{
    const rs_track_node *p = &t->node[nr->seg];
    const rs_track_node *q = &t->node[nr->seg + 1 < t->n ? nr->seg + 1 : 0];
    double f = nr->u / p->len;
    w[RS_SIDE_LEFT] = p->w[RS_SIDE_LEFT] + f * (q->w[RS_SIDE_LEFT] - p->w[RS_SIDE_LEFT]);
    w[RS_SIDE_RIGHT] = p->w[RS_SIDE_RIGHT] + f * (q->w[RS_SIDE_RIGHT] - p->w[RS_SIDE_RIGHT]);
    int side = nr->left ? RS_SIDE_LEFT : RS_SIDE_RIGHT;
    if (nr->dist <= w[side]) {
        *surface = RS_SURFACE_ASPHALT, *inside = true;
    } else if (nr->dist <= w[side] + p->kerb_w[side]) {
        *surface = RS_SURFACE_KERB, *inside = true;
    } else {
        *surface = p->runoff[side], *inside = false;
    }
}

void rs_track_ground(const void *track, double x_m, double y_m, rs_ground_hit *out)
{
    const rs_track *t = track;
    out->height_m = 0.0;
    out->normal[0] = 0.0, out->normal[1] = 0.0, out->normal[2] = 1.0;
    /* Most wheels are on plain asphalt: nothing to search. */
    size_t c;
    unsigned part;
    bool on_grid = cell_part_under(&t->near_grid, x_m, y_m, &c, &part);
    if (on_grid && ((unsigned)t->plain_parts[c] >> part & 1u)) {
        out->surface = RS_SURFACE_ASPHALT;
        out->inside_limits = true;
        return;
    }
    rs_track_near nr;
    if (!(on_grid && nearest_in_cell(t, &t->near_grid, c, t->near_reach, x_m, y_m, &nr)) &&
        !nearest_in(t, &t->centre_grid, t->max_reach, x_m, y_m, &nr)) {
        out->surface = t->runoff_default;
        out->inside_limits = false;
        return;
    }
    double w[2];
    classify(t, &nr, w, &out->surface, &out->inside_limits);
}

bool rs_track_locate(const rs_track *t, double x_m, double y_m, rs_track_location *out)
{
    rs_track_near nr;
    if (!nearest(t, x_m, y_m, &nr))
        return false;
    const rs_track_node *p = &t->node[nr.seg];
    double w[2];
    classify(t, &nr, w, &out->surface, &out->inside_limits);
    double s = p->s + nr.u;
    out->s_m = s >= t->length ? s - t->length : s;
    out->offset_m = nr.left ? nr.dist : -nr.dist;
    out->width_left_m = w[RS_SIDE_LEFT];
    out->width_right_m = w[RS_SIDE_RIGHT];
    out->heading_rad = p->heading;
    out->segment = nr.seg;
    return true;
}

/* ----------------------------------------------------------- centre line */

static double wrap_station(double s, double length)
{
    if (s >= 0.0 && s < length)
        return s;
    double k = s / length;
    if (!(k > -1e15 && k < 1e15))
        return 0.0; /* NaN, Inf, or too far out to mean anything */
    double fk = (double)(int64_t)k; /* in range: |k| < 1e15 */
    if (fk > k)
        fk -= 1.0;
    double r = s - fk * length;
    if (r < 0.0)
        r += length;
    if (r >= length)
        r -= length;
    return r >= 0.0 && r < length ? r : 0.0;
}

void rs_track_sample_at(const rs_track *t, double s_m, rs_track_sample *out)
{
    double s = wrap_station(s_m, t->length);
    uint32_t lo = 0, hi = t->n - 1; /* the last point at or before s */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (t->node[mid].s <= s)
            lo = mid;
        else
            hi = mid - 1;
    }
    const rs_track_node *p = &t->node[lo], *q = &t->node[lo + 1 < t->n ? lo + 1 : 0];
    double f = (s - p->s) / p->len;
    if (f > 1.0)
        f = 1.0;
    out->x_m = p->x + f * (q->x - p->x);
    out->y_m = p->y + f * (q->y - p->y);
    out->heading_rad = rs_wrap_angle(p->pheading + f * rs_wrap_angle(q->pheading - p->pheading));
    out->curvature_1_m = p->curv + f * (q->curv - p->curv);
    out->width_left_m = p->w[RS_SIDE_LEFT] + f * (q->w[RS_SIDE_LEFT] - p->w[RS_SIDE_LEFT]);
    out->width_right_m = p->w[RS_SIDE_RIGHT] + f * (q->w[RS_SIDE_RIGHT] - p->w[RS_SIDE_RIGHT]);
}

/* -------------------------------------------------------------- accessors */

uint64_t rs_track_hash(const rs_track *t) { return t->hash; }

const char *rs_track_name(const rs_track *t) { return t->name; }

double rs_track_length(const rs_track *t) { return t->length; }

uint32_t rs_track_point_count(const rs_track *t) { return t->n; }

bool rs_track_point_at(const rs_track *t, uint32_t i, rs_track_point *out)
{
    if (i >= t->n)
        return false;
    const rs_track_node *p = &t->node[i];
    *out = (rs_track_point){p->x, p->y, p->w[RS_SIDE_RIGHT], p->w[RS_SIDE_LEFT], p->s};
    return true;
}

uint32_t rs_track_line_count(const rs_track *t) { return t->nlines; }

bool rs_track_line_at(const rs_track *t, uint32_t i, rs_track_line *out)
{
    if (i >= t->nlines)
        return false;
    const rs_timing_line *l = &t->line[i];
    *out = (rs_track_line){{l->ax, l->ay}, {l->bx, l->by}, l->s};
    return true;
}

uint32_t rs_track_grid_count(const rs_track *t) { return t->ngrid; }

bool rs_track_grid_slot(const rs_track *t, uint32_t i, rs_car_spawn *out)
{
    if (i >= t->ngrid)
        return false;
    /* At rest in Drive with the automatic gearbox and clutch (the defaults):
     * the world holds every car on its brakes until lights out. */
    *out = rs_car_spawn_default();
    out->pos_m[0] = t->grid[i].x;
    out->pos_m[1] = t->grid[i].y;
    out->yaw_rad = t->grid[i].yaw;
    return true;
}

uint32_t rs_track_barrier_count(const rs_track *t) { return t->nbarrier; }

bool rs_track_barrier_at(const rs_track *t, uint32_t i, rs_track_barrier *out)
{
    if (i >= t->nbarrier)
        return false;
    const rs_barrier_poly *b = &t->barrier[i];
    out->xy = &t->barrier_xy[2 * (size_t)b->first_xy];
    out->points = b->points;
    out->closed = b->closed;
    out->restitution = b->restitution;
    out->friction = b->friction;
    return true;
}
