/*
 * Building a track from its spec (track_spec.h): the derived geometry the
 * simulation reads (stations, tangents, normals, curvature, kerbs and run-off
 * per segment, the centre-line grid, barriers and their grid, timing lines,
 * grid slots), every check that involves the geometry as a whole, and the
 * canonical bytes and hash.
 *
 * Everything here runs once per load, but a 1000-point circuit must still
 * load in milliseconds, so every crossing test goes through a segment grid
 * (seggrid.h): O(n) work instead of comparing every pair.
 *
 * The checks and the derived data use only + - * / sqrt and detmath, in a
 * fixed order, so the same file gives the same track, bit for bit, on every
 * machine; the hash covers the results, generated barriers included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "detmath.h"
#include "track_spec.h"

#define CANON_MAGIC "RSTK"
#define CANON_VERSION 1u

#define CENTRE_CELL_M 10.0    /* centre-line grid, for points off the track: 8-12 candidates
                                 per cell after pruning (docs/TRACKS.md) */
#define NEAR_CELL_M 2.5       /* the ground lookup's first try (track_internal.h); its cells list
                                 about 3 segments each after pruning, and most of the
                                 asphalt needs no search (track_query.c) */
#define NEAR_MARGIN_M 1.0     /* its reach past the widest edge plus kerb */
#define EDGE_CELL_M 10.0      /* edges, for the crossing checks */
#define BARRIER_CELL_M 10.0   /* barriers, for collisions */
#define MAX_TURN_COS (-0.5)   /* the centre line may turn at most 120 degrees at one point */
#define CURV_HALF_WINDOW_M 5.0 /* curvature is averaged over about +-5 m */
#define CLEAR_SHARE 0.45      /* a generated barrier takes at most this share of the gap to
                                 the next edge beyond it */
#define BARRIER_SLOPE 1.0     /* a generated barrier closes in on the track at most 45 degrees */

static const char *const side_word[2] = {"left", "right"};
static const char *const offset_key[2] = {"barriers.offset_left_m", "barriers.offset_right_m"};

static double dot2(double ax, double ay, double bx, double by) { return ax * bx + ay * by; }
static double cross2(double ax, double ay, double bx, double by) { return ax * by - ay * bx; }

double rs_track_heading_of(double dx, double dy)
{
    double h = rs_atan2(dy, dx);
    return h <= -RS_PI ? RS_PI : h;
}

/* Station difference b - a wrapped into [0, length). */
static double ahead(double a, double b, double length)
{
    double d = b - a;
    if (d < 0.0)
        d += length;
    if (d >= length)
        d -= length;
    return d;
}

/* --------------------------------------------------------- segment tests */

/* Whether segments ab and cd meet (touching counts). */
static bool segs_meet(const rs_seg2 *p, const rs_seg2 *q)
{
    double d1 = cross2(q->bx - q->ax, q->by - q->ay, p->ax - q->ax, p->ay - q->ay);
    double d2 = cross2(q->bx - q->ax, q->by - q->ay, p->bx - q->ax, p->by - q->ay);
    double d3 = cross2(p->bx - p->ax, p->by - p->ay, q->ax - p->ax, q->ay - p->ay);
    double d4 = cross2(p->bx - p->ax, p->by - p->ay, q->bx - p->ax, q->by - p->ay);
    if (((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)) &&
        ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0)))
        return true;
    /* Touching or collinear: an end lies on the other segment. */
    if (d1 == 0.0 || d2 == 0.0 || d3 == 0.0 || d4 == 0.0) {
        double plx = rs_min(p->ax, p->bx), phx = rs_max(p->ax, p->bx);
        double ply = rs_min(p->ay, p->by), phy = rs_max(p->ay, p->by);
        double qlx = rs_min(q->ax, q->bx), qhx = rs_max(q->ax, q->bx);
        double qly = rs_min(q->ay, q->by), qhy = rs_max(q->ay, q->by);
        if (d1 == 0.0 && p->ax >= qlx && p->ax <= qhx && p->ay >= qly && p->ay <= qhy)
            return true;
        if (d2 == 0.0 && p->bx >= qlx && p->bx <= qhx && p->by >= qly && p->by <= qhy)
            return true;
        if (d3 == 0.0 && q->ax >= plx && q->ax <= phx && q->ay >= ply && q->ay <= phy)
            return true;
        if (d4 == 0.0 && q->bx >= plx && q->bx <= phx && q->by >= ply && q->by <= phy)
            return true;
    }
    return false;
}

/* Where p (as a + t (b - a)) crosses q (as c + v (d - c)); false when they
 * are parallel. */
static bool seg_params(const rs_seg2 *p, const rs_seg2 *q, double *t, double *v)
{
    double ex = p->bx - p->ax, ey = p->by - p->ay;
    double fx = q->bx - q->ax, fy = q->by - q->ay;
    double den = cross2(ex, ey, fx, fy);
    if (den == 0.0)
        return false;
    double gx = q->ax - p->ax, gy = q->ay - p->ay;
    *t = cross2(gx, gy, fx, fy) / den;
    *v = cross2(gx, gy, ex, ey) / den;
    return true;
}

static void seg_box(const rs_seg2 *s, double box[4])
{
    box[0] = rs_min(s->ax, s->bx), box[1] = rs_min(s->ay, s->by);
    box[2] = rs_max(s->ax, s->bx), box[3] = rs_max(s->ay, s->by);
}

/* Finds, among the segments of a set (through its grid), the lowest-index one
 * that meets q, skipping segment indices for which skip() says so. Sets in
 * this file are closed polylines laid end to end in blocks of `ring`
 * segments; segments next to each other in one ring share a point and are
 * never reported against each other. */
typedef struct meet_query {
    const rs_seg2 *segs;
    const rs_seg2 *q;
    uint32_t self;  /* index of q in the set, or UINT32_MAX */
    uint32_t ring;  /* segments per closed ring (adjacency), 0 = none */
    bool later_only;/* only segments after self (each pair once) */
    uint32_t hit;   /* lowest index found, UINT32_MAX = none */
} meet_query;

static bool adjacent(uint32_t a, uint32_t b, uint32_t ring)
{
    if (!ring || a / ring != b / ring)
        return false;
    uint32_t base = a / ring * ring, ia = a - base, ib = b - base;
    return ia == ib || ia + 1 == ib || ib + 1 == ia || (ia == 0 && ib == ring - 1) ||
           (ib == 0 && ia == ring - 1);
}

static void meet_visit(void *ctx, uint32_t j)
{
    meet_query *m = ctx;
    if (j >= m->hit)
        return;
    if (m->self != UINT32_MAX) {
        if (m->later_only && j <= m->self)
            return;
        if (adjacent(m->self, j, m->ring))
            return;
    }
    if (segs_meet(m->q, &m->segs[j]))
        m->hit = j;
}

static uint32_t first_meeting(const rs_seggrid *g, const rs_seg2 *segs, const rs_seg2 *q,
                              uint32_t self, uint32_t ring, bool later_only)
{
    meet_query m = {segs, q, self, ring, later_only, UINT32_MAX};
    double b[4];
    seg_box(q, b);
    rs_seggrid_query(g, b[0], b[1], b[2], b[3], meet_visit, &m);
    return m.hit;
}

/* ---------------------------------------------------------- the build state */

typedef struct build {
    const rs_track_spec *spec;
    rs_json_ctx *c;
    rs_track *t;
    double *kerb_pt;   /* per point and side: the wider kerb of the two segments */
    rs_seg2 *centre;   /* centre segments and their grid (margin 0), for crossings */
    rs_seggrid centre0;
    rs_seg2 *edge;     /* left edge segments 0..n-1, right edge n..2n-1 */
    rs_seggrid edge_grid;
    double *gen_xy[2]; /* generated barrier points per side, or NULL */
    uint32_t gen_n[2];
} build;

static void build_free(build *b)
{
    free(b->kerb_pt);
    free(b->centre);
    rs_seggrid_free(&b->centre0);
    free(b->edge);
    rs_seggrid_free(&b->edge_grid);
    free(b->gen_xy[0]);
    free(b->gen_xy[1]);
}

static bool nomem(build *b) { return rs_json_fail(b->c, RS_ERR_NOMEM, "out of memory"); }

/* ------------------------------------------------------------- centre line */

static bool build_nodes(build *b)
{
    const rs_track_spec *s = b->spec;
    rs_track *t = b->t;
    uint32_t n = s->n;
    t->n = n;
    t->node = calloc(n, sizeof *t->node);
    if (!t->node)
        return nomem(b);
    for (uint32_t i = 0; i < n; i++) {
        rs_track_node *p = &t->node[i];
        p->x = s->pts[4 * (size_t)i];
        p->y = s->pts[4 * (size_t)i + 1];
        p->w[RS_SIDE_RIGHT] = s->pts[4 * (size_t)i + 2];
        p->w[RS_SIDE_LEFT] = s->pts[4 * (size_t)i + 3];
        p->runoff[0] = p->runoff[1] = s->runoff_default;
    }
    double station = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        rs_track_node *p = &t->node[i];
        const rs_track_node *q = &t->node[i + 1 < n ? i + 1 : 0];
        double dx = q->x - p->x, dy = q->y - p->y;
        p->len = rs_sqrt(dx * dx + dy * dy);
        if (!(p->len >= RS_TRACK_MIN_SEGMENT_M)) {
            char path[48];
            snprintf(path, sizeof path, "centre_line[%u]", (unsigned)i);
            return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                                   "segment to centre_line[%u] is %.4g m long, at least %g m",
                                   (unsigned)(i + 1 < n ? i + 1 : 0), p->len,
                                   RS_TRACK_MIN_SEGMENT_M);
        }
        p->tx = dx / p->len;
        p->ty = dy / p->len;
        p->heading = rs_track_heading_of(p->tx, p->ty);
        p->s = station;
        station += p->len;
    }
    t->length = station;
    double diff = rs_abs(s->length_m - t->length);
    if (diff > RS_TRACK_LENGTH_TOL * t->length) {
        char a[32], l[32];
        rs_json_format_number(s->length_m, a);
        rs_json_format_number(t->length, l);
        return rs_json_fail_at(b->c, RS_ERR_RANGE, "length_m",
                               "%s does not match the centre line's length %s m (more than "
                               "%g%% apart)", a, l, 100.0 * RS_TRACK_LENGTH_TOL);
    }
    /* Normals along the bisector of the two segments meeting at each point. */
    for (uint32_t i = 0; i < n; i++) {
        rs_track_node *p = &t->node[i];
        const rs_track_node *prev = &t->node[i ? i - 1 : n - 1];
        if (dot2(prev->tx, prev->ty, p->tx, p->ty) < MAX_TURN_COS) {
            char path[48];
            snprintf(path, sizeof path, "centre_line[%u]", (unsigned)i);
            return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                                   "the centre line turns by more than 120 degrees here");
        }
        double bx = prev->tx + p->tx, by = prev->ty + p->ty;
        double bl = rs_sqrt(bx * bx + by * by);
        p->pheading = rs_track_heading_of(bx, by);
        p->nx = -by / bl;
        p->ny = bx / bl;
    }
    return true;
}

/* Signed curvature at each point: the turning angle of the points within
 * +-CURV_HALF_WINDOW_M along the line divided by the arc they stand for, so
 * a circle of radius R gives 1/R however finely it is sampled, and noise in
 * densely sampled survey data averages out. */
static bool build_curvature(build *b)
{
    rs_track *t = b->t;
    uint32_t n = t->n;
    double *turn = malloc(n * sizeof *turn);
    if (!turn)
        return nomem(b);
    for (uint32_t i = 0; i < n; i++) {
        const rs_track_node *prev = &t->node[i ? i - 1 : n - 1], *p = &t->node[i];
        turn[i] = rs_atan2(cross2(prev->tx, prev->ty, p->tx, p->ty),
                           dot2(prev->tx, prev->ty, p->tx, p->ty));
    }
    for (uint32_t i = 0; i < n; i++) {
        const rs_track_node *prev = &t->node[i ? i - 1 : n - 1];
        double sum = turn[i], arc = 0.5 * (prev->len + t->node[i].len);
        double back = 0.0, fwd = 0.0;
        uint32_t j = i;
        for (uint32_t k = 1; k < n / 2; k++) { /* backwards */
            back += t->node[j ? j - 1 : n - 1].len;
            j = j ? j - 1 : n - 1;
            if (back > CURV_HALF_WINDOW_M)
                break;
            sum += turn[j];
            arc += 0.5 * (t->node[j ? j - 1 : n - 1].len + t->node[j].len);
        }
        j = i;
        for (uint32_t k = 1; k < n / 2; k++) { /* forwards */
            fwd += t->node[j].len;
            j = j + 1 < n ? j + 1 : 0;
            if (fwd > CURV_HALF_WINDOW_M)
                break;
            sum += turn[j];
            arc += 0.5 * (t->node[j ? j - 1 : n - 1].len + t->node[j].len);
        }
        t->node[i].curv = sum / arc;
    }
    free(turn);
    return true;
}

/* Segments as a set for the grid. */
static rs_seg2 centre_seg(const rs_track *t, uint32_t i)
{
    const rs_track_node *p = &t->node[i], *q = &t->node[i + 1 < t->n ? i + 1 : 0];
    rs_seg2 s = {p->x, p->y, q->x, q->y};
    return s;
}

static bool check_centre_crossings(build *b)
{
    rs_track *t = b->t;
    uint32_t n = t->n;
    b->centre = malloc(n * sizeof *b->centre);
    if (!b->centre)
        return nomem(b);
    for (uint32_t i = 0; i < n; i++)
        b->centre[i] = centre_seg(t, i);
    if (rs_seggrid_build(&b->centre0, b->centre, n, 0.0, EDGE_CELL_M) != RS_OK)
        return nomem(b);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = first_meeting(&b->centre0, b->centre, &b->centre[i], i, n, true);
        if (j != UINT32_MAX) {
            char path[48];
            snprintf(path, sizeof path, "centre_line[%u]", (unsigned)i);
            return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                                   "the centre line crosses itself: this segment meets the one "
                                   "from centre_line[%u]", (unsigned)j);
        }
    }
    return true;
}

/* Edge point i of a side: offset along the normal by that point's width. */
static void edge_point(const rs_track *t, uint32_t i, int side, double d, double *x, double *y)
{
    const rs_track_node *p = &t->node[i];
    double sg = side == RS_SIDE_LEFT ? 1.0 : -1.0;
    *x = p->x + sg * d * p->nx;
    *y = p->y + sg * d * p->ny;
}

static bool build_edges(build *b)
{
    rs_track *t = b->t;
    uint32_t n = t->n;
    b->edge = malloc(2 * (size_t)n * sizeof *b->edge);
    if (!b->edge)
        return nomem(b);
    for (int side = 0; side < 2; side++)
        for (uint32_t i = 0; i < n; i++) {
            uint32_t j = i + 1 < n ? i + 1 : 0;
            rs_seg2 *e = &b->edge[(size_t)side * n + i];
            edge_point(t, i, side, t->node[i].w[side], &e->ax, &e->ay);
            edge_point(t, j, side, t->node[j].w[side], &e->bx, &e->by);
        }
    if (rs_seggrid_build(&b->edge_grid, b->edge, 2 * n, 0.0, EDGE_CELL_M) != RS_OK)
        return nomem(b);
    for (uint32_t i = 0; i < 2 * n; i++) {
        /* An edge that reaches another part of the centre line (or folds
         * back over its own) means the track overlaps itself, even where
         * the edges themselves slip past each other without crossing. */
        uint32_t j = first_meeting(&b->centre0, b->centre, &b->edge[i], UINT32_MAX, 0, false);
        uint32_t k = j == UINT32_MAX ? first_meeting(&b->edge_grid, b->edge, &b->edge[i], i, n, true)
                                     : UINT32_MAX;
        if (j == UINT32_MAX && k == UINT32_MAX)
            continue;
        char path[48], what[96];
        snprintf(path, sizeof path, "centre_line[%u]", (unsigned)(i % n));
        if (j != UINT32_MAX)
            snprintf(what, sizeof what, "the %s edge crosses the centre line near centre_line[%u]",
                     side_word[i / n], (unsigned)j);
        else if (i / n == k / n)
            snprintf(what, sizeof what, "the %s edge crosses itself near centre_line[%u]",
                     side_word[i / n], (unsigned)(k % n));
        else
            snprintf(what, sizeof what, "the left edge crosses the right edge near centre_line[%u]",
                     (unsigned)(k % n));
        return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                               "%s (the width is too large for the curve, or the track comes too "
                               "close to itself)", what);
    }
    return true;
}

/* ---------------------------------------------------------------- surfaces */

static bool in_zone(double m, double from, double to)
{
    return from <= to ? (m >= from && m <= to) : (m >= from || m <= to);
}

static bool check_zone(build *b, const char *list, uint32_t k, const rs_track_zone_spec *z)
{
    char path[64];
    double length = b->t->length;
    snprintf(path, sizeof path, "surfaces.%s[%u]", list, (unsigned)k);
    if (z->from > length || z->to > length) {
        char a[32], l[32];
        rs_json_format_number(z->from > length ? z->from : z->to, a);
        rs_json_format_number(length, l);
        return rs_json_fail_at(b->c, RS_ERR_RANGE, path, "%s %s m is beyond the track length %s m",
                               z->from > length ? "from_m" : "to_m", a, l);
    }
    if (z->from == z->to)
        return rs_json_fail_at(b->c, RS_ERR_RANGE, path, "from_m equals to_m: an empty zone");
    return true;
}

/* A zone covers the segments whose midpoint lies in it: kerbs and run-off
 * change at segment boundaries (docs/TRACKS.md). Kerbs that overlap keep the
 * wider; a later run-off zone overrides an earlier one. */
static bool build_surfaces(build *b)
{
    const rs_track_spec *s = b->spec;
    rs_track *t = b->t;
    for (uint32_t k = 0; k < s->nkerb; k++)
        if (!check_zone(b, "kerbs", k, &s->kerb[k]))
            return false;
    for (uint32_t k = 0; k < s->nzone; k++)
        if (!check_zone(b, "runoff_zones", k, &s->zone[k]))
            return false;
    for (uint32_t i = 0; i < t->n; i++) {
        rs_track_node *p = &t->node[i];
        double mid = p->s + 0.5 * p->len;
        for (uint32_t k = 0; k < s->nkerb; k++) {
            const rs_track_zone_spec *z = &s->kerb[k];
            if (in_zone(mid, z->from, z->to) && z->width > p->kerb_w[z->side])
                p->kerb_w[z->side] = z->width;
        }
        for (uint32_t k = 0; k < s->nzone; k++) {
            const rs_track_zone_spec *z = &s->zone[k];
            if (in_zone(mid, z->from, z->to))
                p->runoff[z->side] = z->surface;
        }
    }
    t->runoff_default = s->runoff_default;
    b->kerb_pt = malloc(2 * (size_t)t->n * sizeof *b->kerb_pt);
    if (!b->kerb_pt)
        return nomem(b);
    for (uint32_t i = 0; i < t->n; i++) {
        const rs_track_node *prev = &t->node[i ? i - 1 : t->n - 1], *p = &t->node[i];
        for (int side = 0; side < 2; side++)
            b->kerb_pt[2 * (size_t)i + (size_t)side] = rs_max(prev->kerb_w[side], p->kerb_w[side]);
    }
    return true;
}

/* The radius of plain asphalt around centre segment i: the narrowest
 * half-width at either end of it (the lookup interpolates between them).
 * Wherever a point is no farther than that from the segment nearest to it,
 * it is on the asphalt, inside the limits, on whichever side. The near
 * grid's pruning marks the parts of its cells where that holds for every
 * point (rs_seggrid_keep_nearest: wherever in the part a segment can be the
 * nearest, the part's farthest point from it is within its radius, with
 * RS_SEGGRID_SLACK_M in hand, which keeps the decision off the lookup's
 * last bits), so the lookup answers them without a search. */
static double plain_radius(const rs_track *t, uint32_t i)
{
    const rs_track_node *p = &t->node[i], *q = &t->node[i + 1 < t->n ? i + 1 : 0];
    return rs_min(rs_min(p->w[0], p->w[1]), rs_min(q->w[0], q->w[1]));
}

/* The ground lookup reaches as far as the farthest generated barrier could be
 * (or the default offset where there is none), plus a margin; the centre
 * grid is built with it. */
static bool build_centre_grid(build *b)
{
    const rs_track_spec *s = b->spec;
    rs_track *t = b->t;
    double reach = 0.0;
    for (uint32_t i = 0; i < t->n; i++)
        for (int side = 0; side < 2; side++) {
            double kerb = b->kerb_pt[2 * (size_t)i + (size_t)side];
            double off = s->barrier_on[side] ? s->barrier_offset[side] : RS_TRACK_DEFAULT_OFFSET_M;
            double r = t->node[i].w[side] + rs_max(off, kerb + RS_TRACK_BARRIER_CLEAR_M);
            reach = rs_max(reach, r);
        }
    t->max_reach = reach + RS_TRACK_REACH_MARGIN_M;
    rs_seg2 *segs = malloc(t->n * sizeof *segs);
    if (!segs)
        return nomem(b);
    for (uint32_t i = 0; i < t->n; i++)
        segs[i] = centre_seg(t, i);
    double near = 0.0;
    for (uint32_t i = 0; i < t->n; i++)
        for (int side = 0; side < 2; side++)
            near = rs_max(near, t->node[i].w[side] + b->kerb_pt[2 * (size_t)i + (size_t)side]);
    t->near_reach = near + NEAR_MARGIN_M;
    t->seg = malloc(t->n * sizeof *t->seg);
    rs_status st = t->seg ? RS_OK : RS_ERR_NOMEM;
    for (uint32_t i = 0; t->seg && i < t->n; i++) {
        const rs_track_node *p = &t->node[i];
        t->seg[i].x = p->x, t->seg[i].y = p->y;
        t->seg[i].tx = p->tx, t->seg[i].ty = p->ty, t->seg[i].len = p->len;
    }
    if (st == RS_OK)
        st = rs_seggrid_build(&t->centre_grid, segs, t->n, t->max_reach, CENTRE_CELL_M);
    if (st == RS_OK)
        st = rs_seggrid_build(&t->near_grid, segs, t->n, t->near_reach, NEAR_CELL_M);
    /* The lookup reads one cell and wants the nearest segment: a cell needs
     * to list only those that can be it somewhere in the cell. */
    double *radius = NULL;
    if (st == RS_OK) {
        const rs_seggrid *g = &t->near_grid;
        radius = malloc(t->n * sizeof *radius);
        t->plain_parts = calloc((size_t)g->nx * g->ny, sizeof *t->plain_parts);
        st = radius && t->plain_parts ? RS_OK : RS_ERR_NOMEM;
    }
    for (uint32_t i = 0; st == RS_OK && i < t->n; i++)
        radius[i] = plain_radius(t, i);
    if (st == RS_OK)
        st = rs_seggrid_keep_nearest(&t->centre_grid, segs, NULL, NULL);
    if (st == RS_OK)
        st = rs_seggrid_keep_nearest(&t->near_grid, segs, radius, t->plain_parts);
    free(radius);
    free(segs);
    return st == RS_OK ? true : nomem(b);
}

/* ---------------------------------------------------------------- barriers */

/* The nearest crossing of a ray (as a segment from its origin) with the
 * edges, as a share of its length. */
typedef struct ray_query {
    rs_seg2 ray;
    const rs_seg2 *edge;
    uint32_t skip_a, skip_b; /* the edge segments that start and end at the origin */
    double best;
} ray_query;

static void ray_visit(void *ctx, uint32_t j)
{
    ray_query *q = ctx;
    double tr, v;
    if (j != q->skip_a && j != q->skip_b && seg_params(&q->ray, &q->edge[j], &tr, &v) &&
        tr > 0.0 && tr < q->best && v >= 0.0 && v <= 1.0)
        q->best = tr;
}

/* Distance from the edge point of `side` at point i, outwards along the
 * normal, to the first other edge segment within `range`; range if none. */
static double clearance(build *b, uint32_t i, int side, double range)
{
    const rs_track *t = b->t;
    uint32_t n = t->n;
    const rs_track_node *p = &t->node[i];
    double sg = side == RS_SIDE_LEFT ? 1.0 : -1.0;
    ray_query q;
    edge_point(t, i, side, p->w[side], &q.ray.ax, &q.ray.ay);
    q.ray.bx = q.ray.ax + sg * range * p->nx;
    q.ray.by = q.ray.ay + sg * range * p->ny;
    q.edge = b->edge;
    q.skip_a = (uint32_t)side * n + i;
    q.skip_b = (uint32_t)side * n + (i ? i - 1 : n - 1);
    q.best = 1.0;
    double box[4];
    seg_box(&q.ray, box);
    rs_seggrid_query(&b->edge_grid, box[0], box[1], box[2], box[3], ray_visit, &q);
    return q.best * range;
}

/* Chooses the distance of the generated barrier from the centre line at each
 * point of one side (docs/TRACKS.md, "Generated barriers"):
 *  1. the offset beyond the edge, but at least RS_TRACK_BARRIER_CLEAR_M
 *     beyond the kerb (the floor: nothing below ever goes closer);
 *  2. at most CLEAR_SHARE of the free distance to the next edge straight out
 *     (another part of the circuit, the far side of a hairpin);
 *  3. closing in on the track no steeper than BARRIER_SLOPE after such a dip.
 * The loops this leaves on the inside of corners tighter than the offset are
 * cut off afterwards (cut_loops). */
static void choose_barrier(build *b, int side, double *d)
{
    const rs_track *t = b->t;
    uint32_t n = t->n;
    double off = b->spec->barrier_offset[side];
    double *floor_d = d + n;
    for (uint32_t i = 0; i < n; i++) {
        double w = t->node[i].w[side], kerb = b->kerb_pt[2 * (size_t)i + (size_t)side];
        floor_d[i] = w + kerb + RS_TRACK_BARRIER_CLEAR_M;
        double want = rs_max(off, kerb + RS_TRACK_BARRIER_CLEAR_M);
        double free_m = clearance(b, i, side, want / CLEAR_SHARE);
        d[i] = rs_max(floor_d[i], w + rs_min(want, CLEAR_SHARE * free_m));
    }
    /* Twice round forwards, twice backwards, so a dip spreads across the
     * start of the loop too. */
    for (uint32_t k = 0; k < 2 * n; k++) {
        uint32_t i = k % n, j = i + 1 < n ? i + 1 : 0;
        double lim = rs_max(floor_d[j], d[i] + BARRIER_SLOPE * t->node[i].len);
        if (d[j] > lim)
            d[j] = lim;
    }
    for (uint32_t k = 2 * n; k-- > 0;) {
        uint32_t i = k % n, j = i + 1 < n ? i + 1 : 0;
        double lim = rs_max(floor_d[i], d[j] + BARRIER_SLOPE * t->node[i].len);
        if (d[i] > lim)
            d[i] = lim;
    }
}

/* A closed polyline of m points as segments, and their grid. */
static bool ring_grid(const double *xy, uint32_t m, rs_seg2 *segs, rs_seggrid *g)
{
    for (uint32_t i = 0; i < m; i++) {
        uint32_t j = i + 1 < m ? i + 1 : 0;
        rs_seg2 s = {xy[2 * i], xy[2 * i + 1], xy[2 * j], xy[2 * j + 1]};
        segs[i] = s;
    }
    rs_seggrid_free(g);
    return rs_seggrid_build(g, segs, m, 0.0, EDGE_CELL_M) == RS_OK;
}

/* Cuts the loops out of a closed offset polyline: where segment i meets a
 * later segment j, the points of the shorter of the two arcs between them
 * are replaced by the crossing point. On the inside of a corner tighter than
 * the offset this leaves the exact offset curve (the barrier runs into the
 * corner and out again, meeting itself at one point); at a hairpin whose
 * straights are closer than twice the offset the two sides meet in the
 * middle. A loop longer than max_cut points is not a corner but the barrier
 * crossing another part of the circuit: returns false with *at the point
 * where it happens. src_of maps each point back to its centre-line point. */
static bool cut_loops(double *xy, uint32_t *src_of, uint32_t *m_io, uint32_t max_cut,
                      uint32_t *at, uint32_t *with, bool *nomem_out)
{
    uint32_t m = *m_io;
    rs_seg2 *segs = malloc(m * sizeof *segs);
    rs_seggrid g;
    memset(&g, 0, sizeof g);
    *nomem_out = false;
    bool ok = true;
    if (!segs) {
        *nomem_out = true;
        return false;
    }
    for (;;) {
        if (m < 3 || !ring_grid(xy, m, segs, &g)) {
            *nomem_out = m >= 3;
            ok = false;
            *at = *with = 0;
            break;
        }
        uint32_t i = 0, j = UINT32_MAX;
        for (; i < m; i++) {
            j = first_meeting(&g, segs, &segs[i], i, m, true);
            if (j != UINT32_MAX)
                break;
        }
        if (j == UINT32_MAX)
            break; /* clean */
        double tp = 0.0, v = 0.0;
        if (!seg_params(&segs[i], &segs[j], &tp, &v))
            tp = 1.0; /* collinear overlap: cut at the end of segment i */
        tp = rs_clamp(tp, 0.0, 1.0);
        double x = segs[i].ax + tp * (segs[i].bx - segs[i].ax);
        double y = segs[i].ay + tp * (segs[i].by - segs[i].ay);
        uint32_t inner = j - i; /* points i+1..j */
        uint32_t outer = m - inner; /* points j+1..i, wrapping */
        if (rs_min((double)inner, (double)outer) > (double)max_cut) {
            *at = src_of[i];
            *with = src_of[j];
            ok = false;
            break;
        }
        if (inner <= outer) {
            /* Keep 0..i, X, j+1..m-1. */
            xy[2 * (i + 1)] = x, xy[2 * (i + 1) + 1] = y;
            src_of[i + 1] = src_of[j];
            uint32_t keep = i + 2;
            for (uint32_t k = j + 1; k < m; k++, keep++) {
                xy[2 * keep] = xy[2 * k], xy[2 * keep + 1] = xy[2 * k + 1];
                src_of[keep] = src_of[k];
            }
            m = keep;
        } else {
            /* Keep X, i+1..j. */
            uint32_t keep = 1;
            for (uint32_t k = i + 1; k <= j; k++, keep++) {
                xy[2 * keep] = xy[2 * k], xy[2 * keep + 1] = xy[2 * k + 1];
                src_of[keep] = src_of[k];
            }
            xy[0] = x, xy[1] = y;
            src_of[0] = src_of[i];
            m = keep;
        }
    }
    rs_seggrid_free(&g);
    free(segs);
    *m_io = m;
    return ok;
}

static bool build_generated_barrier(build *b, int side)
{
    rs_track *t = b->t;
    uint32_t n = t->n;
    double *d = malloc(2 * (size_t)n * sizeof *d);
    double *xy = malloc(2 * (size_t)n * sizeof *xy);
    uint32_t *src = malloc(n * sizeof *src);
    rs_seg2 *segs = malloc(n * sizeof *segs);
    rs_seggrid g;
    memset(&g, 0, sizeof g);
    bool ok = d && xy && segs && src;
    if (!ok) {
        nomem(b);
        goto done;
    }
    choose_barrier(b, side, d);
    for (uint32_t i = 0; i < n; i++) {
        edge_point(t, i, side, d[i], &xy[2 * i], &xy[2 * i + 1]);
        src[i] = i;
    }
    uint32_t m = n, at = 0, with = 0;
    bool oom = false;
    /* A corner loop spans at most about a quarter of the points. */
    if (!cut_loops(xy, src, &m, n / 4, &at, &with, &oom)) {
        if (oom)
            ok = nomem(b);
        else
            ok = rs_json_fail_at(b->c, RS_ERR_RANGE, offset_key[side],
                                 "the generated %s barrier crosses itself between "
                                 "centre_line[%u] and centre_line[%u] (the track comes too close "
                                 "to itself there): lower the offset, or set it to false and "
                                 "give walls", side_word[side], (unsigned)at, (unsigned)with);
        goto done;
    }
    if (!ring_grid(xy, m, segs, &g)) {
        ok = nomem(b);
        goto done;
    }
    for (uint32_t i = 0; i < m && ok; i++) {
        uint32_t j = first_meeting(&b->edge_grid, b->edge, &segs[i], UINT32_MAX, 0, false);
        if (j != UINT32_MAX)
            ok = rs_json_fail_at(b->c, RS_ERR_RANGE, offset_key[side],
                                 "the generated %s barrier at centre_line[%u] crosses the %s "
                                 "edge of the track near centre_line[%u]: lower the offset, or "
                                 "set it to false and give walls", side_word[side],
                                 (unsigned)src[i], side_word[j / n], (unsigned)(j % n));
    }
done:
    rs_seggrid_free(&g);
    free(segs);
    free(d);
    free(src);
    if (ok) {
        b->gen_xy[side] = xy;
        b->gen_n[side] = m;
    } else {
        free(xy);
    }
    return ok;
}

static bool check_walls(build *b)
{
    const rs_track_spec *s = b->spec;
    const rs_track *t = b->t;
    for (uint32_t w = 0; w < s->nwall; w++) {
        const rs_track_wall_spec *ws = &s->wall[w];
        const double *xy = &s->wall_xy[2 * (size_t)ws->first];
        char path[80];
        for (uint32_t k = 0; k < ws->points; k++) {
            rs_track_near near;
            if (!rs_track_nearest(t, xy[2 * k], xy[2 * k + 1], &near))
                continue;
            const rs_track_node *p = &t->node[near.seg];
            const rs_track_node *q = &t->node[near.seg + 1 < t->n ? near.seg + 1 : 0];
            int side = near.left ? RS_SIDE_LEFT : RS_SIDE_RIGHT;
            double f = near.u / p->len;
            double width = p->w[side] + f * (q->w[side] - p->w[side]);
            if (near.dist <= width + p->kerb_w[side]) {
                snprintf(path, sizeof path, "barriers.walls[%u].points[%u]", (unsigned)w,
                         (unsigned)k);
                return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                                       "lies inside the track limits (near centre_line[%u])",
                                       (unsigned)near.seg);
            }
        }
        uint32_t segs = ws->closed ? ws->points : ws->points - 1;
        for (uint32_t k = 0; k < segs; k++) {
            uint32_t k2 = k + 1 < ws->points ? k + 1 : 0;
            rs_seg2 q = {xy[2 * k], xy[2 * k + 1], xy[2 * k2], xy[2 * k2 + 1]};
            uint32_t j = first_meeting(&b->edge_grid, b->edge, &q, UINT32_MAX, 0, false);
            if (j != UINT32_MAX) {
                snprintf(path, sizeof path, "barriers.walls[%u].points[%u]", (unsigned)w,
                         (unsigned)k);
                return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                                       "the wall from here to points[%u] crosses the %s edge of "
                                       "the track near centre_line[%u]", (unsigned)k2,
                                       side_word[j / t->n], (unsigned)(j % t->n));
            }
        }
    }
    return true;
}

/* Lays out every barrier polyline (generated left, generated right, then the
 * walls in file order), its segments and their grid. */
static bool build_barriers(build *b)
{
    const rs_track_spec *s = b->spec;
    rs_track *t = b->t;
    for (int side = 0; side < 2; side++)
        if (s->barrier_on[side] && !build_generated_barrier(b, side))
            return false;
    if (!check_walls(b))
        return false;
    uint32_t polys = s->nwall + (s->barrier_on[0] ? 1u : 0u) + (s->barrier_on[1] ? 1u : 0u);
    size_t points = 0, segs = 0;
    for (int side = 0; side < 2; side++)
        if (s->barrier_on[side])
            points += b->gen_n[side], segs += b->gen_n[side];
    for (uint32_t w = 0; w < s->nwall; w++)
        points += s->wall[w].points,
            segs += s->wall[w].closed ? s->wall[w].points : s->wall[w].points - 1;
    t->barrier = calloc(polys ? polys : 1, sizeof *t->barrier);
    t->barrier_xy = malloc((points ? points : 1) * 2 * sizeof *t->barrier_xy);
    t->bseg = calloc(segs ? segs : 1, sizeof *t->bseg);
    rs_seg2 *gs = malloc((segs ? segs : 1) * sizeof *gs);
    if (!t->barrier || !t->barrier_xy || !t->bseg || !gs) {
        free(gs);
        return nomem(b);
    }
    uint32_t used = 0, nseg = 0;
    for (uint32_t k = 0; k < polys; k++) {
        rs_barrier_poly *poly = &t->barrier[k];
        const double *src;
        if (k < polys - s->nwall) {
            int side = (k == 0 && s->barrier_on[0]) ? RS_SIDE_LEFT : RS_SIDE_RIGHT;
            src = b->gen_xy[side];
            poly->points = b->gen_n[side];
            poly->closed = true;
            poly->restitution = s->restitution;
            poly->friction = s->friction;
        } else {
            const rs_track_wall_spec *ws = &s->wall[k - (polys - s->nwall)];
            src = &s->wall_xy[2 * (size_t)ws->first];
            poly->points = ws->points;
            poly->closed = ws->closed;
            poly->restitution = ws->restitution;
            poly->friction = ws->friction;
        }
        poly->first_xy = used;
        memcpy(&t->barrier_xy[2 * (size_t)used], src, 2 * (size_t)poly->points * sizeof *src);
        uint32_t ns = poly->closed ? poly->points : poly->points - 1;
        for (uint32_t i = 0; i < ns; i++) {
            const double *a = &t->barrier_xy[2 * ((size_t)used + i)];
            const double *c = &t->barrier_xy[2 * ((size_t)used + (i + 1 < poly->points ? i + 1 : 0))];
            rs_barrier_seg *bs = &t->bseg[nseg];
            bs->ax = a[0], bs->ay = a[1], bs->bx = c[0], bs->by = c[1];
            bs->restitution = poly->restitution;
            bs->friction = poly->friction;
            bs->barrier = k;
            rs_seg2 g2 = {a[0], a[1], c[0], c[1]};
            gs[nseg++] = g2;
        }
        used += poly->points;
    }
    t->nbarrier = polys;
    t->nbseg = nseg;
    rs_status st = rs_seggrid_build(&t->barrier_grid, gs, nseg, 0.0, BARRIER_CELL_M);
    /* Most of a car's substeps are nowhere near a wall: the ground grid's
     * cells say how far the nearest one is, so the contact pass can tell
     * without a query (collide_barrier.c). */
    const rs_seggrid *g = &t->near_grid;
    if (st == RS_OK) {
        t->barrier_clear = calloc((size_t)g->nx * g->ny + 1u, 1);
        st = t->barrier_clear ? RS_OK : RS_ERR_NOMEM;
    }
    if (st == RS_OK)
        rs_seggrid_clearance(g, gs, nseg, t->barrier_clear);
    free(gs);
    return st == RS_OK ? true : nomem(b);
}

/* ------------------------------------------------------------ timing lines */

static void line_path(uint32_t k, char *path, size_t cap)
{
    if (k == 0)
        snprintf(path, cap, "timing.start");
    else
        snprintf(path, cap, "timing.sectors[%u]", (unsigned)(k - 1));
}

/* Where line k meets the centre line: exactly once, or an error. */
static bool line_crossing(build *b, uint32_t k, const rs_seg2 *ln, double *station,
                          uint32_t *seg)
{
    const rs_track *t = b->t;
    char path[48];
    line_path(k, path, sizeof path);
    /* Every centre segment is tried (a few thousand, for at most 16 lines
     * per load): simple and obviously right. A crossing exactly through a
     * point is found by both segments that meet there, give or take a
     * rounding, so crossings less than 1 mm apart along the line count as
     * one. */
    uint32_t hits = 0;
    double first_tl = 0.0, span = rs_sqrt((ln->bx - ln->ax) * (ln->bx - ln->ax) +
                                          (ln->by - ln->ay) * (ln->by - ln->ay));
    for (uint32_t i = 0; i < t->n; i++) {
        rs_seg2 cs = centre_seg(t, i);
        double tl, v;
        if (!seg_params(ln, &cs, &tl, &v) || tl < 0.0 || tl > 1.0 || v < 0.0 || v > 1.0)
            continue;
        if (hits == 0) {
            *station = t->node[i].s + v * t->node[i].len;
            *seg = i;
            first_tl = tl;
            hits = 1;
        } else if (rs_abs(tl - first_tl) * span > 0.001) {
            hits++;
        }
    }
    if (hits == 0)
        return rs_json_fail_at(b->c, RS_ERR_RANGE, path, "the line does not cross the centre line");
    if (hits > 1)
        return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                               "the line crosses the centre line %u times; it must cross once",
                               (unsigned)hits);
    if (*station >= t->length)
        *station -= t->length;
    return true;
}

/* True when (x, y) is inside the track limits (edges plus kerbs). */
static bool inside_limits(const rs_track *t, double x, double y)
{
    rs_ground_hit hit;
    rs_track_ground(t, x, y, &hit);
    return hit.inside_limits;
}

/* The ends of a line given by its station: square to the centre line there,
 * past the widest kerb of this segment and its neighbours, so the ends are
 * outside the limits whichever segment is nearest them. */
static bool line_at_station(build *b, const rs_track_line_spec *ls, char *path, rs_seg2 *ln)
{
    const rs_track *t = b->t;
    if (ls->s >= t->length) {
        char a[32], l[32];
        rs_json_format_number(ls->s, a);
        rs_json_format_number(t->length, l);
        strcat(path, ".s_m");
        return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                               "station %s m is not before the track length %s m", a, l);
    }
    rs_track_sample sm;
    rs_track_sample_at(t, ls->s, &sm);
    uint32_t lo = 0, hi = t->n - 1;
    while (lo < hi) { /* the segment containing s */
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (t->node[mid].s <= ls->s)
            lo = mid;
        else
            hi = mid - 1;
    }
    double kerb[2] = {0.0, 0.0};
    for (uint32_t d = 0; d < 3; d++) {
        const rs_track_node *q = &t->node[(lo + t->n - 1 + d) % t->n];
        kerb[0] = rs_max(kerb[0], q->kerb_w[0]);
        kerb[1] = rs_max(kerb[1], q->kerb_w[1]);
    }
    double sn, cs;
    rs_sincos(sm.heading_rad, &sn, &cs);
    double nx = -sn, ny = cs;
    double dl = sm.width_left_m + kerb[RS_SIDE_LEFT] + RS_TRACK_LINE_OVERHANG_M;
    double dr = sm.width_right_m + kerb[RS_SIDE_RIGHT] + RS_TRACK_LINE_OVERHANG_M;
    ln->ax = sm.x_m + dl * nx, ln->ay = sm.y_m + dl * ny;
    ln->bx = sm.x_m - dr * nx, ln->by = sm.y_m - dr * ny;
    return true;
}

/* Places timing line k: its ends (a on the left), station and normal. */
static bool place_line(build *b, uint32_t k)
{
    rs_track *t = b->t;
    const rs_track_line_spec *ls = &b->spec->line[k];
    char path[48];
    line_path(k, path, sizeof path);
    rs_seg2 ln = {ls->a[0], ls->a[1], ls->b[0], ls->b[1]};
    if (ls->by_station && !line_at_station(b, ls, path, &ln))
        return false;
    if (!(rs_abs(ln.bx - ln.ax) + rs_abs(ln.by - ln.ay) > 0.0))
        return rs_json_fail_at(b->c, RS_ERR_RANGE, path, "a and b are the same point");
    double station = 0.0;
    uint32_t seg = 0;
    if (!line_crossing(b, k, &ln, &station, &seg))
        return false;
    const rs_track_node *p = &t->node[seg];
    /* a must be on the left: swap if the file gave them the other way. */
    if (cross2(p->tx, p->ty, ln.ax - p->x, ln.ay - p->y) <
        cross2(p->tx, p->ty, ln.bx - p->x, ln.by - p->y)) {
        double x = ln.ax, y = ln.ay;
        ln.ax = ln.bx, ln.ay = ln.by, ln.bx = x, ln.by = y;
    }
    if (inside_limits(t, ln.ax, ln.ay) || inside_limits(t, ln.bx, ln.by))
        return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                               "an end of the line lies inside the track limits: a timing "
                               "line must span the track from beyond one edge (and kerb) to "
                               "beyond the other");
    double nx = ln.ay - ln.by, ny = -(ln.ax - ln.bx);
    double nl = rs_sqrt(nx * nx + ny * ny);
    nx /= nl, ny /= nl;
    if (dot2(nx, ny, p->tx, p->ty) < 0.5)
        return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                               "the line meets the centre line more than 60 degrees from "
                               "square");
    rs_timing_line *tl = &t->line[k];
    tl->ax = ln.ax, tl->ay = ln.ay, tl->bx = ln.bx, tl->by = ln.by;
    tl->s = station;
    tl->nx = nx, tl->ny = ny;
    return true;
}

/* Racing order: each line at least RS_TRACK_LINE_MIN_GAP_M after the
 * previous one, counted from the start line, and the last one that far
 * before the start line comes round again. */
static bool check_line_order(build *b)
{
    const rs_track *t = b->t;
    double prev = 0.0;
    for (uint32_t k = 1; k <= t->nlines; k++) {
        double rel = k < t->nlines ? ahead(t->line[0].s, t->line[k].s, t->length) : t->length;
        if (!(rel >= prev + RS_TRACK_LINE_MIN_GAP_M)) {
            char a[32], p2[32], path[48];
            rs_json_format_number(k < t->nlines ? t->line[k].s : t->line[0].s, a);
            rs_json_format_number(rel - prev, p2);
            line_path(k < t->nlines ? k : k - 1, path, sizeof path);
            return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                                   "%s: lines must be in racing order from the start line, at "
                                   "least %g m apart (this one is at station %s m, %s m after "
                                   "the previous line)",
                                   k < t->nlines ? "out of order" : "too close to the start line",
                                   RS_TRACK_LINE_MIN_GAP_M, a, p2);
        }
        prev = rel;
    }
    return true;
}

static bool build_lines(build *b)
{
    rs_track *t = b->t;
    t->nlines = b->spec->nlines;
    for (uint32_t k = 0; k < t->nlines; k++)
        if (!place_line(b, k))
            return false;
    if (!check_line_order(b))
        return false;
    /* As for the barriers: how far the nearest line is, per cell of the
     * ground grid, so that timing can tell a substep crosses none. */
    rs_seg2 segs[RS_TRACK_MAX_LINES];
    for (uint32_t k = 0; k < t->nlines; k++) {
        const rs_timing_line *ln = &t->line[k];
        segs[k] = (rs_seg2){ln->ax, ln->ay, ln->bx, ln->by};
    }
    const rs_seggrid *g = &t->near_grid;
    t->line_clear = calloc((size_t)g->nx * g->ny + 1u, 1);
    if (!t->line_clear)
        return nomem(b);
    rs_seggrid_clearance(g, segs, t->nlines, t->line_clear);
    return true;
}

/* -------------------------------------------------------------------- grid */

static bool build_grid(build *b)
{
    const rs_track_spec *s = b->spec;
    rs_track *t = b->t;
    char path[32];
    t->ngrid = s->ngrid;
    for (uint32_t i = 0; i < s->ngrid; i++) {
        const rs_grid_slot *g = &s->grid[i];
        snprintf(path, sizeof path, "grid[%u]", (unsigned)i);
        rs_track_location loc;
        if (!rs_track_locate(t, g->x, g->y, &loc) || !loc.inside_limits)
            return rs_json_fail_at(b->c, RS_ERR_RANGE, path, "(%g, %g) is outside the track limits",
                                   g->x, g->y);
        double yaw = rs_wrap_angle(g->yaw);
        double off = rs_abs(rs_wrap_angle(yaw - loc.heading_rad));
        if (off > RS_TRACK_GRID_MAX_ANGLE_DEG * (RS_PI / 180.0))
            return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                                   "yaw_rad points %.0f degrees away from the track direction, at "
                                   "most %g", off * (180.0 / RS_PI), RS_TRACK_GRID_MAX_ANGLE_DEG);
        double before = ahead(loc.s_m, t->line[0].s, t->length);
        if (!(before > 0.0 && before <= RS_TRACK_GRID_BEHIND * t->length))
            return rs_json_fail_at(b->c, RS_ERR_RANGE, path,
                                   "is not behind the start line (it must lie within the last "
                                   "%g%% of a lap before it)", 100.0 * RS_TRACK_GRID_BEHIND);
        t->grid[i].x = g->x;
        t->grid[i].y = g->y;
        t->grid[i].yaw = yaw;
    }
    return true;
}

/* -------------------------------------------------------- canonical bytes */

size_t rs_track_canonical(const rs_track *t, uint8_t *buf, size_t cap)
{
    rs_writer w = rs_writer_init(buf, cap);
    rs_write_bytes(&w, CANON_MAGIC, 4);
    rs_write_u32(&w, CANON_VERSION);
    size_t name_len = strlen(t->name);
    rs_write_u8(&w, (uint8_t)name_len);
    rs_write_bytes(&w, t->name, name_len);
    rs_write_u32(&w, t->n);
    for (uint32_t i = 0; i < t->n; i++) {
        const rs_track_node *p = &t->node[i];
        rs_write_f64(&w, p->x);
        rs_write_f64(&w, p->y);
        rs_write_f64(&w, p->w[RS_SIDE_LEFT]);
        rs_write_f64(&w, p->w[RS_SIDE_RIGHT]);
        rs_write_f64(&w, p->kerb_w[RS_SIDE_LEFT]);
        rs_write_f64(&w, p->kerb_w[RS_SIDE_RIGHT]);
        rs_write_u8(&w, p->runoff[RS_SIDE_LEFT]);
        rs_write_u8(&w, p->runoff[RS_SIDE_RIGHT]);
    }
    rs_write_f64(&w, t->length);
    rs_write_u8(&w, t->runoff_default);
    rs_write_f64(&w, t->max_reach);
    rs_write_u32(&w, t->nbarrier);
    for (uint32_t k = 0; k < t->nbarrier; k++) {
        const rs_barrier_poly *poly = &t->barrier[k];
        rs_write_u8(&w, poly->closed ? 1 : 0);
        rs_write_f64(&w, poly->restitution);
        rs_write_f64(&w, poly->friction);
        rs_write_u32(&w, poly->points);
        for (uint32_t i = 0; i < 2 * poly->points; i++)
            rs_write_f64(&w, t->barrier_xy[2 * (size_t)poly->first_xy + i]);
    }
    rs_write_u32(&w, t->nlines);
    for (uint32_t k = 0; k < t->nlines; k++) {
        const rs_timing_line *l = &t->line[k];
        rs_write_f64(&w, l->ax);
        rs_write_f64(&w, l->ay);
        rs_write_f64(&w, l->bx);
        rs_write_f64(&w, l->by);
        rs_write_f64(&w, l->s);
        rs_write_f64(&w, l->nx);
        rs_write_f64(&w, l->ny);
    }
    rs_write_u32(&w, t->ngrid);
    for (uint32_t k = 0; k < t->ngrid; k++) {
        rs_write_f64(&w, t->grid[k].x);
        rs_write_f64(&w, t->grid[k].y);
        rs_write_f64(&w, t->grid[k].yaw);
    }
    return w.len;
}

static bool build_hash(build *b)
{
    rs_track *t = b->t;
    size_t len = rs_track_canonical(t, NULL, 0);
    uint8_t *buf = malloc(len);
    if (!buf)
        return nomem(b);
    rs_track_canonical(t, buf, len);
    t->hash = rs_hash64(buf, len, 0);
    free(buf);
    return true;
}

/* ------------------------------------------------------------------- build */

void rs_track_destroy(rs_track *t)
{
    if (!t)
        return;
    free(t->node);
    free(t->seg);
    rs_seggrid_free(&t->centre_grid);
    rs_seggrid_free(&t->near_grid);
    free(t->plain_parts);
    free(t->barrier_clear);
    free(t->line_clear);
    free(t->barrier);
    free(t->barrier_xy);
    free(t->bseg);
    rs_seggrid_free(&t->barrier_grid);
    free(t);
}

rs_status rs_track_build(const rs_track_spec *spec, rs_json_ctx *c, rs_track **out)
{
    *out = NULL;
    build b;
    memset(&b, 0, sizeof b);
    b.spec = spec;
    b.c = c;
    b.t = calloc(1, sizeof *b.t);
    if (!b.t) {
        rs_json_fail(c, RS_ERR_NOMEM, "out of memory");
        return c->status;
    }
    memcpy(b.t->name, spec->name, sizeof b.t->name);
    bool ok = build_nodes(&b) && build_curvature(&b) && check_centre_crossings(&b) &&
              build_edges(&b) && build_surfaces(&b) && build_centre_grid(&b) &&
              build_barriers(&b) && build_lines(&b) && build_grid(&b) && build_hash(&b);
    build_free(&b);
    if (!ok) {
        rs_track_destroy(b.t);
        if (c->status == RS_OK)
            rs_json_fail(c, RS_ERR_RANGE, "invalid track");
        return c->status;
    }
    *out = b.t;
    return RS_OK;
}
