/*
 * Car against car: footprint boxes against each other (docs/COLLISIONS.md).
 *
 * Broadphase: a uniform grid of the cars' bounding boxes, rebuilt every
 * call into memory allocated at world creation. Cells are at least as large
 * as the largest car box, so a car lands in at most 2 x 2 cells; cells are
 * hashed into a table of about twice as many buckets as cars (a counting
 * sort, no comparisons), so the grid needs no bounds and no sort. A pair is
 * reported from the first cell both cars share only, then the candidates of
 * car i are put in ascending order (insertion sort of a handful), so pairs
 * are visited in ascending (i, j) whatever the hashing did.
 *
 * Narrowphase: a separating-axis test on the two boxes' four axes. As for
 * walls, the axis that closed last over the substep (relative positions
 * then taken from the relative velocity) is the contact normal; if the
 * boxes already overlapped then, the least overlap decides. The contact
 * points (one or two, plus speculative ones within RS_COLLIDE_TOUCH_M) come
 * from clipping the incident box's face to the reference face.
 * An impulse between the two bodies (restitution RS_COLLIDE_CAR_RESTITUTION,
 * friction RS_COLLIDE_CAR_FRICTION) conserves momentum and never adds
 * energy, and the overlap is split between the cars by inverse mass.
 *
 * Walls win: every car this moved is resolved against the barriers once
 * more, from where it was before.
 */
#include "collide_internal.h"

#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "detmath.h"

#define AABB_MARGIN_M 0.05 /* broadphase boxes: touching distance plus room for
                              the pushes of earlier pairs in the same call */
#define CELL_SCALE 1.25    /* cell edge / largest car box: a box spans <= 2 cells */
#define EVERY_PAIR_MAX 32  /* up to this many cars, comparing every pair is cheaper than
                              filling the grid (16 cars: 120 box tests against the grid's
                              hashing and clearing; docs/PERFORMANCE.md) */

enum { F_MOVED = 1, F_QUIET = 2, F_TOUCHED = 4, F_HIT_OLD = 8, F_HIT_NOW = 16 };

struct rs_collide_scratch {
    uint32_t max_cars;
    uint32_t nbuckets; /* power of two */
    rs_collide_broadphase mode;
    bool every_pair;   /* this call's choice (mode and car count) */
    double *aabb;          /* per car: x0 y0 x1 y1 */
    int32_t *range;        /* per car: cells ix0 iy0 ix1 iy1 */
    uint32_t *bucket_start;/* nbuckets + 1 */
    uint32_t *fill;        /* nbuckets */
    uint32_t *entry_car;   /* 4 per car */
    int32_t *entry_cell;   /* 2 per entry */
    uint32_t *cand;        /* one car's candidates */
    double *pre;           /* per car: position (3) before car-to-car resolution */
    uint8_t *flags;        /* per car: F_* */
};

/* The arrays, sized by max_cars and nbuckets, after the struct in one block
 * (block.h). */
static void scratch_layout(void *obj, rs_block *b)
{
    rs_collide_scratch *s = obj;
    size_t n = s->max_cars, nb = s->nbuckets;
    s->aabb = rs_block_take(b, 4 * n, sizeof *s->aabb);
    s->range = rs_block_take(b, 4 * n, sizeof *s->range);
    s->bucket_start = rs_block_take(b, nb + 1, sizeof *s->bucket_start);
    s->fill = rs_block_take(b, nb, sizeof *s->fill);
    s->entry_car = rs_block_take(b, 4 * n, sizeof *s->entry_car);
    s->entry_cell = rs_block_take(b, 8 * n, sizeof *s->entry_cell);
    s->cand = rs_block_take(b, n, sizeof *s->cand);
    s->pre = rs_block_take(b, 3 * n, sizeof *s->pre);
    s->flags = rs_block_take(b, n, sizeof *s->flags);
}

rs_status rs_collide_scratch_create(uint32_t max_cars, rs_collide_scratch **out)
{
    *out = NULL;
    if (max_cars == 0 || max_cars > 65535)
        return RS_ERR_ARG;
    rs_collide_scratch head;
    memset(&head, 0, sizeof head);
    head.max_cars = max_cars;
    head.nbuckets = 16;
    while (head.nbuckets < 2 * max_cars)
        head.nbuckets *= 2;
    *out = rs_block_alloc(&head, sizeof head, scratch_layout);
    return *out ? RS_OK : RS_ERR_NOMEM;
}

void rs_collide_scratch_destroy(rs_collide_scratch *s)
{
    free(s); /* the arrays are in the same block */
}

void rs_collide_scratch_set_broadphase(rs_collide_scratch *s, rs_collide_broadphase mode)
{
    s->mode = mode;
}

/* ----------------------------------------------------------- broadphase */

/* floor(v) as a cell index, clamped far beyond any track so the conversion
 * is always in range (NaN goes to cell 0). */
static int32_t cell_of(double v)
{
    if (!(v == v))
        v = 0.0;
    v = rs_clamp(v, -1.0e9, 1.0e9);
    int32_t i = (int32_t)v;
    if ((double)i > v)
        i--;
    return i;
}

static uint32_t bucket_of(const rs_collide_scratch *s, int32_t cx, int32_t cy)
{
    uint32_t h = (uint32_t)cx * 0x9E3779B1u ^ (uint32_t)cy * 0x85EBCA77u;
    h ^= h >> 15;
    return h & (s->nbuckets - 1);
}

static bool aabb_overlap(const double *a, const double *b)
{
    return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

/* Bounding boxes of every car and, unless every pair is compared, the
 * hashed grid. Both ways give the same pairs in the same order (ascending j
 * for each i), so the choice is only a matter of cost. */
static void build(const rs_car *cars, uint32_t n, rs_collide_scratch *s)
{
    s->every_pair = s->mode == RS_BROADPHASE_EVERY_PAIR ||
                    (s->mode == RS_BROADPHASE_AUTO && n <= EVERY_PAIR_MAX);
    double cell = 1.0;
    for (uint32_t i = 0; i < n; i++) {
        rs_box2 b;
        rs_collide_footprint(&cars[i], &b);
        double ex = b.h[0] * rs_abs(b.ax[0]) + b.h[1] * rs_abs(b.ay[0]) + AABB_MARGIN_M;
        double ey = b.h[0] * rs_abs(b.ax[1]) + b.h[1] * rs_abs(b.ay[1]) + AABB_MARGIN_M;
        double *a = &s->aabb[4 * (size_t)i];
        a[0] = b.c[0] - ex, a[1] = b.c[1] - ey, a[2] = b.c[0] + ex, a[3] = b.c[1] + ey;
        cell = rs_max(cell, CELL_SCALE * 2.0 * rs_max(ex, ey));
    }
    if (s->every_pair)
        return;
    double inv = 1.0 / cell;
    memset(s->bucket_start, 0, ((size_t)s->nbuckets + 1) * sizeof *s->bucket_start);
    for (uint32_t i = 0; i < n; i++) {
        const double *a = &s->aabb[4 * (size_t)i];
        int32_t *r = &s->range[4 * (size_t)i];
        r[0] = cell_of(a[0] * inv), r[1] = cell_of(a[1] * inv);
        r[2] = cell_of(a[2] * inv), r[3] = cell_of(a[3] * inv);
        /* Never more than two cells a side (the cell size makes sure; this
         * keeps the entry count within its allocation whatever happens). */
        if (r[2] > r[0] + 1)
            r[2] = r[0] + 1;
        if (r[3] > r[1] + 1)
            r[3] = r[1] + 1;
        for (int32_t cy = r[1]; cy <= r[3]; cy++)
            for (int32_t cx = r[0]; cx <= r[2]; cx++)
                s->bucket_start[bucket_of(s, cx, cy) + 1]++;
    }
    for (uint32_t b = 0; b < s->nbuckets; b++)
        s->bucket_start[b + 1] += s->bucket_start[b];
    memset(s->fill, 0, (size_t)s->nbuckets * sizeof *s->fill);
    for (uint32_t i = 0; i < n; i++) {
        const int32_t *r = &s->range[4 * (size_t)i];
        for (int32_t cy = r[1]; cy <= r[3]; cy++)
            for (int32_t cx = r[0]; cx <= r[2]; cx++) {
                uint32_t b = bucket_of(s, cx, cy);
                uint32_t e = s->bucket_start[b] + s->fill[b]++;
                s->entry_car[e] = i;
                s->entry_cell[2 * (size_t)e] = cx;
                s->entry_cell[2 * (size_t)e + 1] = cy;
            }
    }
}

/* Car i's partners j > i whose boxes overlap, ascending, into s->cand. */
static uint32_t candidates(uint32_t i, uint32_t n, rs_collide_scratch *s)
{
    const double *ai = &s->aabb[4 * (size_t)i];
    uint32_t count = 0;
    if (s->every_pair) {
        for (uint32_t j = i + 1; j < n; j++)
            if (aabb_overlap(ai, &s->aabb[4 * (size_t)j]))
                s->cand[count++] = j;
        return count;
    }
    const int32_t *ri = &s->range[4 * (size_t)i];
    for (int32_t cy = ri[1]; cy <= ri[3]; cy++)
        for (int32_t cx = ri[0]; cx <= ri[2]; cx++) {
            uint32_t b = bucket_of(s, cx, cy);
            for (uint32_t e = s->bucket_start[b]; e < s->bucket_start[b + 1]; e++) {
                uint32_t j = s->entry_car[e];
                if (j <= i || s->entry_cell[2 * (size_t)e] != cx ||
                    s->entry_cell[2 * (size_t)e + 1] != cy)
                    continue;
                /* Report from the first cell the two share only. */
                const int32_t *rj = &s->range[4 * (size_t)j];
                int32_t fx = ri[0] > rj[0] ? ri[0] : rj[0], fy = ri[1] > rj[1] ? ri[1] : rj[1];
                if (fx != cx || fy != cy || !aabb_overlap(ai, &s->aabb[4 * (size_t)j]))
                    continue;
                /* Insertion keeps the list ascending. */
                uint32_t k = count++;
                while (k > 0 && s->cand[k - 1] > j) {
                    s->cand[k] = s->cand[k - 1];
                    k--;
                }
                s->cand[k] = j;
            }
        }
    return count;
}

uint32_t rs_collide_candidate_pairs(const rs_car *cars, uint32_t n, rs_collide_scratch *scratch,
                                    bool brute_force, uint32_t *pairs, uint32_t cap)
{
    if (n > scratch->max_cars)
        n = scratch->max_cars;
    rs_collide_broadphase saved = scratch->mode;
    scratch->mode = brute_force ? RS_BROADPHASE_EVERY_PAIR : RS_BROADPHASE_GRID;
    build(cars, n, scratch);
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = candidates(i, n, scratch);
        for (uint32_t k = 0; k < c; k++, total++)
            if (total < cap)
                pairs[2 * (size_t)total] = i, pairs[2 * (size_t)total + 1] = scratch->cand[k];
    }
    scratch->mode = saved;
    return total;
}

/* ----------------------------------------------------------- narrowphase */

typedef struct pair_contact {
    int state;    /* RS_CONTACT_* */
    double n[2];  /* unit, from car j towards car i */
    double depth;
    int np;       /* contact points (1 or 2) */
    double p[2][2];
    double gap[2]; /* per point: 0 in contact, > 0 apart (speculative) */
} pair_contact;

static double dot2(const double a[2], const double b[2]) { return a[0] * b[0] + a[1] * b[1]; }

/* The face of box `inc` turned most towards direction d, as its two
 * corners. */
static void incident_face(const rs_box2 *inc, const double d[2], double p[2][2])
{
    double dx = dot2(inc->ax, d), dy = dot2(inc->ay, d);
    int k = rs_abs(dx) >= rs_abs(dy) ? 0 : 1;
    const double *u = k == 0 ? inc->ax : inc->ay, *e = k == 0 ? inc->ay : inc->ax;
    double sgn = (k == 0 ? dx : dy) >= 0.0 ? 1.0 : -1.0;
    double fc[2] = {inc->c[0] + sgn * inc->h[k] * u[0], inc->c[1] + sgn * inc->h[k] * u[1]};
    double he = inc->h[1 - k];
    p[0][0] = fc[0] + he * e[0], p[0][1] = fc[1] + he * e[1];
    p[1][0] = fc[0] - he * e[0], p[1][1] = fc[1] - he * e[1];
}

/* Reference face of box `ref` on its axis k with outward normal f; the
 * incident box's face is clipped to it; the points inside are kept, each
 * halfway to the face, and those less than RS_COLLIDE_TOUCH_M outside as
 * speculative points (gap > 0). Returns how many (0 to 2). */
static int face_contact(const rs_box2 *ref, int k, const double f[2], const rs_box2 *inc,
                        double out[2][2], double gap[2])
{
    double p[2][2];
    double neg_f[2] = {-f[0], -f[1]};
    incident_face(inc, neg_f, p);
    const double *v = k == 0 ? ref->ay : ref->ax;
    double hv = ref->h[1 - k];
    /* Clip to -hv <= (P - c).v <= hv. */
    double s[2];
    for (int q = 0; q < 2; q++) {
        double d[2] = {p[q][0] - ref->c[0], p[q][1] - ref->c[1]};
        s[q] = dot2(d, v);
    }
    if ((s[0] < -hv && s[1] < -hv) || (s[0] > hv && s[1] > hv))
        return 0;
    double c[2][2];
    for (int q = 0; q < 2; q++) {
        double bound = rs_clamp(s[q], -hv, hv);
        double t = bound != s[q] ? (bound - s[q]) / (s[1 - q] - s[q]) : 0.0;
        c[q][0] = p[q][0] + t * (p[1 - q][0] - p[q][0]);
        c[q][1] = p[q][1] + t * (p[1 - q][1] - p[q][1]);
    }
    int np = 0;
    for (int q = 0; q < 2; q++) {
        double d[2] = {c[q][0] - ref->c[0], c[q][1] - ref->c[1]};
        double depth = ref->h[k] - dot2(d, f);
        if (depth > -RS_COLLIDE_TOUCH_M) {
            double h = depth > 0.0 ? 0.5 * depth : 0.0;
            out[np][0] = c[q][0] + h * f[0];
            out[np][1] = c[q][1] + h * f[1];
            gap[np] = depth > 0.0 ? 0.0 : -depth;
            np++;
        }
    }
    if (np > 0 && gap[0] > 0.0 && (np == 1 || gap[1] > 0.0))
        return 0; /* only speculative points: the caller's fallback */
    return np;
}

/* Box i against box j; rel_shift is (ci - cj) at the substep start minus
 * now. */
static void box_box(const rs_box2 *bi, const rs_box2 *bj, const double rel_shift[2],
                    pair_contact *out)
{
    const double *axes[4] = {bi->ax, bi->ay, bj->ax, bj->ay};
    double d[2] = {bi->c[0] - bj->c[0], bi->c[1] - bj->c[1]};
    double o[4], op[4], sgn[4], sep = 0.0;
    for (int k = 0; k < 4; k++) {
        const double *u = axes[k];
        double r = rs_box2_radius(bi, u) + rs_box2_radius(bj, u);
        double dd = dot2(d, u), dp = dd + dot2(rel_shift, u);
        double o2 = r - rs_abs(dd);
        op[k] = r - rs_abs(dp);
        if (op[k] <= 0.0) {
            sgn[k] = dp >= 0.0 ? 1.0 : -1.0;
            o[k] = r - sgn[k] * dd; /* one-sided: back the way it came */
        } else {
            sgn[k] = dd >= 0.0 ? 1.0 : -1.0;
            o[k] = o2;
        }
        sep = k == 0 ? o2 : rs_min(sep, o2);
    }
    out->state = rs_contact_state(sep);
    if (out->state != RS_CONTACT_PENETRATING)
        return;

    int best = -1;
    double best_t = 0.0;
    for (int k = 0; k < 4; k++) {
        if (op[k] > 0.0)
            continue;
        double t = op[k] / (op[k] - o[k]);
        if (best < 0 || t > best_t)
            best = k, best_t = t;
    }
    if (best < 0) {
        best = 0;
        for (int k = 1; k < 4; k++)
            if (o[k] < o[best])
                best = k;
    }
    const double *u = axes[best];
    out->n[0] = sgn[best] * u[0], out->n[1] = sgn[best] * u[1];
    out->depth = o[best];
    /* Reference face: on box i its face towards j (outward -n), on box j
     * its face towards i (outward +n). */
    if (best < 2) {
        double f[2] = {-out->n[0], -out->n[1]};
        out->np = face_contact(bi, best, f, bj, out->p, out->gap);
    } else {
        out->np = face_contact(bj, best - 2, out->n, bi, out->p, out->gap);
    }
    if (out->np == 0) {
        out->p[0][0] = 0.5 * (bi->c[0] + bj->c[0]);
        out->p[0][1] = 0.5 * (bi->c[1] + bj->c[1]);
        out->gap[0] = 0.0;
        out->np = 1;
    }
}

/* ---------------------------------------------------------------- pass */

static void resolve_pair(rs_car *cars, uint32_t i, uint32_t j, double dt, rs_collide_car *cc,
                         rs_collide_scratch *s, rs_event_sink *events)
{
    rs_car *ci = &cars[i], *cj = &cars[j];
    rs_box2 bi, bj;
    pair_contact c;
    rs_collide_footprint(ci, &bi);
    rs_collide_footprint(cj, &bj);
    double rel_shift[2] = {-(ci->vel[0] - cj->vel[0]) * dt, -(ci->vel[1] - cj->vel[1]) * dt};
    box_box(&bi, &bj, rel_shift, &c);
    if (c.state == RS_CONTACT_SEPARATED)
        return;
    s->flags[i] |= F_TOUCHED;
    s->flags[j] |= F_TOUCHED;
    if (c.state != RS_CONTACT_PENETRATING)
        return;

    rs_cbody a, b;
    rs_cbody_init(&a, ci);
    rs_cbody_init(&b, cj);
    rs_cpoint pts[2];
    for (int k = 0; k < c.np; k++) {
        pts[k].p[0] = c.p[k][0], pts[k].p[1] = c.p[k][1];
        pts[k].n[0] = c.n[0], pts[k].n[1] = c.n[1];
        pts[k].e = RS_COLLIDE_CAR_RESTITUTION;
        pts[k].mu = RS_COLLIDE_CAR_FRICTION;
        pts[k].gap_speed = c.gap[k] / dt;
    }
    uint32_t np = (uint32_t)c.np;
    double jn = rs_collide_solve(&a, &b, pts, &np);
    double closing = 0.0;
    for (uint32_t k = 0; k < np; k++)
        if (pts[k].jn > 0.0)
            closing = rs_max(closing, pts[k].closing);
    /* Split the overlap by inverse mass: the lighter car moves more. */
    double wsum = a.inv_m + b.inv_m;
    double di = c.depth * (a.inv_m / wsum), dj = c.depth * (b.inv_m / wsum);
    ci->pos[0] += di * c.n[0], ci->pos[1] += di * c.n[1];
    cj->pos[0] -= dj * c.n[0], cj->pos[1] -= dj * c.n[1];
    s->flags[i] |= F_MOVED;
    s->flags[j] |= F_MOVED;

    bool quiet = (s->flags[i] & F_QUIET) || (s->flags[j] & F_QUIET);
    bool hit_old = (s->flags[i] & (F_HIT_OLD | F_HIT_NOW)) == F_HIT_OLD ||
                   (s->flags[j] & (F_HIT_OLD | F_HIT_NOW)) == F_HIT_OLD;
    if (jn > 0.0 && rs_collide_is_hit(quiet, hit_old, closing)) {
        cc[i].car_hits++;
        cc[j].car_hits++;
        s->flags[i] |= F_HIT_NOW;
        s->flags[j] |= F_HIT_NOW;
        rs_event *ev = rs_event_push(events, RS_EVENT_CAR_HIT, (uint16_t)(i + 1));
        if (ev) {
            int k = np > 1 && pts[1].jn > pts[0].jn ? 1 : 0;
            ev->other = (uint16_t)(j + 1);
            ev->impulse_n_s = jn;
            ev->speed_m_s = closing;
            ev->point_m[0] = pts[k].p[0], ev->point_m[1] = pts[k].p[1];
            ev->normal[0] = c.n[0], ev->normal[1] = c.n[1];
        }
    }
}

void rs_collide_cars(rs_car *cars, uint32_t n, const rs_track *track, double dt,
                     rs_collide_car *cc, rs_collide_scratch *scratch, rs_event_sink *events)
{
    rs_collide_scratch *s = scratch;
    if (n > s->max_cars)
        n = s->max_cars;
    for (uint32_t i = 0; i < n; i++) {
        s->flags[i] = (uint8_t)((cc[i].car_quiet_s >= RS_COLLIDE_QUIET_S ? F_QUIET : 0) |
                                (cc[i].car_hit_age_s >= RS_COLLIDE_QUIET_S ? F_HIT_OLD : 0));
        for (int k = 0; k < 3; k++)
            s->pre[3 * (size_t)i + (size_t)k] = cars[i].pos[k];
    }
    build(cars, n, s);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t count = candidates(i, n, s);
        for (uint32_t k = 0; k < count; k++)
            resolve_pair(cars, i, s->cand[k], dt, cc, s, events);
    }
    for (uint32_t i = 0; i < n; i++) {
        if ((s->flags[i] & F_MOVED) && track)
            rs_collide_barrier_pass(&cars[i], (uint16_t)(i + 1), &s->pre[3 * (size_t)i], track,
                                    dt, false, &cc[i], events);
        if (s->flags[i] & F_TOUCHED)
            cc[i].car_quiet_s = 0.0;
        else
            cc[i].car_quiet_s = rs_min(cc[i].car_quiet_s + dt, RS_COLLIDE_QUIET_CAP_S);
        if (s->flags[i] & F_HIT_NOW)
            cc[i].car_hit_age_s = 0.0;
        else
            cc[i].car_hit_age_s = rs_min(cc[i].car_hit_age_s + dt, RS_COLLIDE_QUIET_CAP_S);
    }
}
