/*
 * Car against barriers: the car's footprint box against the track's wall
 * segments (docs/COLLISIONS.md).
 *
 * Per substep and car:
 *  1. Candidates: the barrier grid is asked for the segments near the box
 *     swept from the substep's start to its end, so the cost depends on the
 *     walls near the car, not on the track's length.
 *  2. Tunnelling guard: if the centre of mass's path over the substep
 *     crossed a segment, the car is put back on the side it came from.
 *  3. Contacts, up to MAX_PASSES times until none is left: a separating-
 *     axis test of box against each segment gives a normal, a depth and
 *     clipped contact points; all of them form one manifold whose approach
 *     rs_collide_solve removes (restitution, friction, never adding energy);
 *     then the car is moved out of each wall in turn by its depth.
 *
 * Choosing the normal. A wall has no thickness, so "the axis of least
 * overlap" is not enough: a car that drove 0.4 m into a wall in one substep
 * must go back out on the side it came from. The wall's own axis is
 * therefore one-sided (the side of the car's centre at the substep start),
 * and among the axes on which the car was still clear of the segment at the
 * substep start (its position then, its orientation now) the one that
 * closed last is the one it hit through (the time of impact of the
 * separating-axis test). Only when it already overlapped at the start does
 * the least overlap decide.
 *
 * Wall ends and joints. The car's own axes are a contact normal only where
 * a segment's end pokes into the box: a free end, or the outer corner of a
 * polyline. At a joint between two segments of a straight or inward-bent
 * wall that normal would be a ghost (a car scraping along the wall would
 * catch on every joint), so an end is accepted only if the push direction
 * points away from every wall meeting there (its normal cone).
 */
#include "collide_internal.h"

#include "detmath.h"

#define MAX_CAND 256    /* segments near one car; more is absurd geometry */
#define MAX_PASSES 4    /* contact passes per call (a car wedged in a corner) */
#define CONE_TOL 0.02   /* sine of the slack allowed in the normal-cone test */
#define PREFER_WALL_M 0.005 /* the wall's axis wins a near tie of overlaps */
#define QUERY_PAD_M 0.1 /* the query box's margin: what projections may move */
#define GUARD_EPS_M 1e-3 /* how far onto its own side the guard puts the centre */

typedef struct cand_list {
    uint32_t n;
    uint32_t idx[MAX_CAND];
} cand_list;

static void collect(void *ctx, uint32_t index)
{
    cand_list *cl = ctx;
    if (cl->n < MAX_CAND)
        cl->idx[cl->n++] = index;
}

typedef struct wall_contact {
    int state;    /* RS_CONTACT_* */
    double n[2];  /* unit, towards the car */
    double depth; /* how far the car must move along n */
    int np;       /* contact points (1 or 2) */
    double p[2][2];
    double gap[2]; /* per point: 0 in contact, > 0 apart (speculative) */
} wall_contact;

static double dot2(const double a[2], const double b[2]) { return a[0] * b[0] + a[1] * b[1]; }

/* Is direction m (unit) no more than CONE_TOL towards the wall from v to w? */
static bool ray_ok(const double v[2], double wx, double wy, const double m[2])
{
    double d[2] = {wx - v[0], wy - v[1]};
    double len = rs_sqrt(dot2(d, d));
    return dot2(d, m) <= CONE_TOL * len;
}

/* The normal-cone test at a segment end v: pushing the car along m must not
 * push it into the segment itself (towards `other`) nor into any candidate
 * segment that ends at exactly the same point (a polyline joint). */
static bool end_allows(const rs_track *tr, const cand_list *cl, uint32_t si, const double v[2],
                       const double other[2], const double m[2])
{
    if (!ray_ok(v, other[0], other[1], m))
        return false;
    for (uint32_t k = 0; k < cl->n; k++) {
        const rs_barrier_seg *s = &tr->bseg[cl->idx[k]];
        if (cl->idx[k] == si)
            continue;
        if (s->ax == v[0] && s->ay == v[1] && !ray_ok(v, s->bx, s->by, m))
            return false;
        if (s->bx == v[0] && s->by == v[1] && !ray_ok(v, s->ax, s->ay, m))
            return false;
    }
    return true;
}

static bool inside_box(const rs_box2 *b, const double v[2])
{
    double d[2] = {v[0] - b->c[0], v[1] - b->c[1]};
    return rs_abs(dot2(d, b->ax)) < b->h[0] && rs_abs(dot2(d, b->ay)) < b->h[1];
}

/* Clips the segment p[0]-p[1] to lo <= (P - o).dir <= hi; returns the
 * number of points left (0 or 2). */
static int clip_slab(double p[2][2], const double o[2], const double dir[2], double lo, double hi)
{
    double s[2];
    for (int k = 0; k < 2; k++) {
        double d[2] = {p[k][0] - o[0], p[k][1] - o[1]};
        s[k] = dot2(d, dir);
    }
    if ((s[0] < lo && s[1] < lo) || (s[0] > hi && s[1] > hi))
        return 0;
    double q[2][2] = {{p[0][0], p[0][1]}, {p[1][0], p[1][1]}};
    for (int k = 0; k < 2; k++) {
        double bound = s[k] < lo ? lo : (s[k] > hi ? hi : s[k]);
        if (bound != s[k]) {
            /* s[k] is outside, so the other end is not on the same side and
             * s[1-k] - s[k] is not zero. */
            double f = (bound - s[k]) / (s[1 - k] - s[k]);
            q[k][0] = p[k][0] + f * (p[1 - k][0] - p[k][0]);
            q[k][1] = p[k][1] + f * (p[1 - k][1] - p[k][1]);
        }
    }
    for (int k = 0; k < 2; k++)
        p[k][0] = q[k][0], p[k][1] = q[k][1];
    return 2;
}

/* Keeps the clipped points that lie inside, base + (q - o).dir > 0, each
 * moved halfway to the surface it would be pushed to (along out_dir), and
 * as speculative points those less than RS_COLLIDE_TOUCH_M outside (the
 * far end of a face that is nearly flat on the wall). */
static void keep_inside(double p[2][2], int np, const double o[2], const double dir[2], double base,
                        const double out_dir[2], wall_contact *out)
{
    for (int k = 0; k < np; k++) {
        double d[2] = {p[k][0] - o[0], p[k][1] - o[1]};
        double depth = base + dot2(d, dir);
        if (depth > -RS_COLLIDE_TOUCH_M) {
            double h = depth > 0.0 ? 0.5 * depth : 0.0;
            out->p[out->np][0] = p[k][0] + h * out_dir[0];
            out->p[out->np][1] = p[k][1] + h * out_dir[1];
            out->gap[out->np] = depth > 0.0 ? 0.0 : -depth;
            out->np++;
        }
    }
}

/* Box against one segment: see the file comment. shift is the box centre's
 * position at the substep start minus now; side_pt decides the wall's side. */
static void wall_test(const rs_track *tr, const cand_list *cl, uint32_t si, const rs_box2 *box,
                      const double shift[2], const double side_pt[2], wall_contact *out)
{
    const rs_barrier_seg *s = &tr->bseg[si];
    double A[2] = {s->ax, s->ay}, B[2] = {s->bx, s->by};
    double ab[2] = {B[0] - A[0], B[1] - A[1]};
    double len = rs_sqrt(dot2(ab, ab));
    out->state = RS_CONTACT_SEPARATED;
    if (len < 1e-9)
        return; /* a zero-length wall stops nothing */
    double t[2] = {ab[0] / len, ab[1] / len};
    double n[2] = {-t[1], t[0]};
    double sp[2] = {side_pt[0] - A[0], side_pt[1] - A[1]};
    if (dot2(sp, n) < 0.0)
        n[0] = -n[0], n[1] = -n[1];
    double ca[2] = {box->c[0] - A[0], box->c[1] - A[1]};

    double o[3], op[3], m[3][2], sep = 0.0;
    bool valid[3] = {true, false, false};
    /* Axis 0, the wall's normal, one-sided: how far the box reaches past
     * the wall's line towards the far side. */
    double rn = rs_box2_radius(box, n);
    o[0] = rn - dot2(ca, n);
    op[0] = o[0] - dot2(shift, n);
    m[0][0] = n[0], m[0][1] = n[1];
    sep = o[0];
    /* Axes 1, 2: the box's own axes, two-sided. */
    for (int k = 0; k < 2; k++) {
        const double *u = k == 0 ? box->ax : box->ay;
        double h = box->h[k];
        double pa = -dot2(ca, u), pb = pa + dot2(ab, u);
        double smin = rs_min(pa, pb), smax = rs_max(pa, pb), su = dot2(shift, u);
        double hi = h - smin, lo = smax + h; /* segment above / below the box */
        double hi_p = hi + su, lo_p = lo - su;
        op[k + 1] = rs_min(hi_p, lo_p);
        bool above = op[k + 1] <= 0.0 ? hi_p <= 0.0 : hi < lo;
        double sgn = above ? -1.0 : 1.0;
        o[k + 1] = above ? hi : lo;
        m[k + 1][0] = sgn * u[0], m[k + 1][1] = sgn * u[1];
        sep = rs_min(sep, rs_min(hi, lo));
    }
    out->state = rs_contact_state(sep);
    if (out->state != RS_CONTACT_PENETRATING)
        return;

    /* Box axes are contact normals only at a segment end inside the box
     * whose normal cone admits them. */
    bool a_in = inside_box(box, A), b_in = inside_box(box, B);
    for (int k = 1; k < 3; k++)
        valid[k] = (a_in || b_in) && (!a_in || end_allows(tr, cl, si, A, B, m[k])) &&
                   (!b_in || end_allows(tr, cl, si, B, A, m[k]));

    int best = -1;
    double best_t = 0.0;
    for (int k = 0; k < 3; k++) {
        if (!valid[k] || op[k] > 0.0)
            continue;
        double tk = op[k] / (op[k] - o[k]); /* o[k] > 0 >= op[k] */
        if (best < 0 || tk > best_t)
            best = k, best_t = tk;
    }
    if (best < 0) {
        best = 0;
        for (int k = 1; k < 3; k++)
            if (valid[k] && o[k] + PREFER_WALL_M < o[best])
                best = k;
    }
    out->n[0] = m[best][0], out->n[1] = m[best][1];
    out->depth = o[best];

    out->np = 0;
    const double *mn = m[best];
    if (best == 0) {
        /* Reference face: the wall. Incident face: the box face turned most
         * towards it, clipped to the segment's extent. */
        double dx = dot2(box->ax, mn), dy = dot2(box->ay, mn);
        int k = rs_abs(dx) >= rs_abs(dy) ? 0 : 1;
        const double *u = k == 0 ? box->ax : box->ay, *e = k == 0 ? box->ay : box->ax;
        double sgn = (k == 0 ? dx : dy) > 0.0 ? -1.0 : 1.0;
        double fc[2] = {box->c[0] + sgn * box->h[k] * u[0], box->c[1] + sgn * box->h[k] * u[1]};
        double he = box->h[1 - k];
        double p[2][2] = {{fc[0] + he * e[0], fc[1] + he * e[1]},
                          {fc[0] - he * e[0], fc[1] - he * e[1]}};
        double neg_n[2] = {-mn[0], -mn[1]};
        int np = clip_slab(p, A, t, 0.0, len);
        keep_inside(p, np, A, neg_n, 0.0, mn, out);
    } else {
        /* Reference face: the box face towards the segment end. Incident:
         * the segment, clipped to that face's extent. */
        int k = best - 1;
        const double *v = k == 0 ? box->ay : box->ax;
        double hv = box->h[1 - k];
        double p[2][2] = {{A[0], A[1]}, {B[0], B[1]}};
        double neg_m[2] = {-mn[0], -mn[1]};
        int np = clip_slab(p, box->c, v, -hv, hv);
        keep_inside(p, np, box->c, mn, box->h[k], neg_m, out);
    }
    if (out->np == 0 || (out->gap[0] > 0.0 && (out->np == 1 || out->gap[1] > 0.0))) {
        /* Nothing clipped inside (a sliver at a wall end): the point of the
         * segment nearest the box centre. */
        double f = rs_clamp(dot2(ca, t), 0.0, len);
        out->p[0][0] = A[0] + f * t[0], out->p[0][1] = A[1] + f * t[1];
        out->gap[0] = 0.0;
        out->np = 1;
    }
}

/* z component of (b - a) x (c - a). */
static double orient(double ax, double ay, double bx, double by, double cx, double cy)
{
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/* Puts the centre of mass back on its own side of every candidate segment
 * its path over the substep crossed. Returns true if it moved it. */
static bool guard_path(const rs_track *tr, const cand_list *cl, const double prev[2], double pos[3])
{
    bool moved = false;
    for (uint32_t k = 0; k < cl->n; k++) {
        const rs_barrier_seg *s = &tr->bseg[cl->idx[k]];
        double d1 = orient(s->ax, s->ay, s->bx, s->by, prev[0], prev[1]);
        double d2 = orient(s->ax, s->ay, s->bx, s->by, pos[0], pos[1]);
        if (d1 == 0.0 || (d1 > 0.0 && d2 > 0.0) || (d1 < 0.0 && d2 < 0.0))
            continue;
        double d3 = orient(prev[0], prev[1], pos[0], pos[1], s->ax, s->ay);
        double d4 = orient(prev[0], prev[1], pos[0], pos[1], s->bx, s->by);
        if ((d3 > 0.0 && d4 > 0.0) || (d3 < 0.0 && d4 < 0.0))
            continue; /* the path passes beside the wall's end */
        double ab[2] = {s->bx - s->ax, s->by - s->ay};
        double len = rs_sqrt(dot2(ab, ab));
        if (len < 1e-9)
            continue;
        double f = d1 / (d1 - d2);
        /* Unit normal towards the side the centre came from. */
        double sgn = d1 > 0.0 ? 1.0 : -1.0;
        double n[2] = {-sgn * ab[1] / len, sgn * ab[0] / len};
        pos[0] = prev[0] + f * (pos[0] - prev[0]) + GUARD_EPS_M * n[0];
        pos[1] = prev[1] + f * (pos[1] - prev[1]) + GUARD_EPS_M * n[1];
        moved = true;
    }
    return moved;
}

static void box_extent(const rs_box2 *b, double e[2])
{
    e[0] = b->h[0] * rs_abs(b->ax[0]) + b->h[1] * rs_abs(b->ay[0]);
    e[1] = b->h[0] * rs_abs(b->ax[1]) + b->h[1] * rs_abs(b->ay[1]);
}

/* What a call did, for the hit rule and the event. */
typedef struct impact {
    double impulse;  /* total normal impulse */
    double closing;  /* largest closing speed at a point that took an impulse */
    double best_jn;  /* the point that took the largest impulse: */
    double p[2], n[2];
} impact;

static void note_points(const rs_cpoint *pts, uint32_t np, double total, impact *im)
{
    im->impulse += total;
    for (uint32_t i = 0; i < np; i++) {
        const rs_cpoint *c = &pts[i];
        if (!(c->jn > 0.0))
            continue;
        im->closing = rs_max(im->closing, c->closing);
        if (c->jn > im->best_jn) {
            im->best_jn = c->jn;
            im->p[0] = c->p[0], im->p[1] = c->p[1];
            im->n[0] = c->n[0], im->n[1] = c->n[1];
        }
    }
}

void rs_collide_barrier_pass(rs_car *car, uint16_t car_id1, const double prev_pos[3],
                             const rs_track *track, double dt, bool advance_timer,
                             rs_collide_car *cc, rs_event_sink *events)
{
    bool was_quiet = cc->barrier_quiet_s >= RS_COLLIDE_QUIET_S;
    bool hit_old = cc->barrier_hit_age_s >= RS_COLLIDE_QUIET_S;
    bool touched = false, hit = false;
    if (track && track->nbseg > 0 && track->bseg) {
        cand_list cl;
        rs_box2 box;
        double e[2];
        cl.n = 0;
        rs_collide_box_at(car, car->pos, &box);
        box_extent(&box, e);
        double shift[2] = {prev_pos[0] - car->pos[0], prev_pos[1] - car->pos[1]};
        double pad = QUERY_PAD_M + RS_COLLIDE_TOUCH_M;
        /* Every point of the query box below is within this of the box's
         * centre (an L1 bound of it). Where the nearest wall is farther, no
         * wall meets the query box: a wall outside it is neither touched
         * nor crossed by the centre's path, so the query and everything
         * after it would change nothing. Most substeps end here. */
        double reach = e[0] + e[1] + 2.0 * pad + rs_abs(shift[0]) + rs_abs(shift[1]);
        bool clear = reach < rs_track_barrier_clearance(track, box.c[0], box.c[1]);
        double x0 = box.c[0] + rs_min(0.0, shift[0]) - e[0] - pad;
        double x1 = box.c[0] + rs_max(0.0, shift[0]) + e[0] + pad;
        double y0 = box.c[1] + rs_min(0.0, shift[1]) - e[1] - pad;
        double y1 = box.c[1] + rs_max(0.0, shift[1]) + e[1] + pad;
        if (!clear)
            rs_seggrid_query(&track->barrier_grid, x0, y0, x1, y1, collect, &cl);

        if (cl.n > 0) {
            /* Twice: a correction could in principle cross another wall. */
            if (guard_path(track, &cl, prev_pos, car->pos))
                guard_path(track, &cl, prev_pos, car->pos);

            rs_cbody body;
            rs_cbody_init(&body, car); /* only the orientation matters: fixed here */
            impact im = {0.0, 0.0, 0.0, {0.0, 0.0}, {0.0, 0.0}};
            uint8_t deep[MAX_CAND];
            for (int pass = 0; pass < MAX_PASSES; pass++) {
                /* Every contact of this pose in one manifold, so a car
                 * lying on a wall (or on two segments of it) is held at
                 * both corners at once. */
                rs_cpoint pts[RS_COLLIDE_MAX_POINTS];
                uint32_t np = 0;
                bool any = false;
                rs_collide_box_at(car, car->pos, &box);
                double sh[2] = {prev_pos[0] - car->pos[0], prev_pos[1] - car->pos[1]};
                for (uint32_t k = 0; k < cl.n; k++) {
                    const rs_barrier_seg *s = &track->bseg[cl.idx[k]];
                    wall_contact c;
                    wall_test(track, &cl, cl.idx[k], &box, sh, prev_pos, &c);
                    deep[k] = c.state == RS_CONTACT_PENETRATING;
                    touched = touched || c.state != RS_CONTACT_SEPARATED;
                    if (!deep[k])
                        continue;
                    any = true;
                    for (int j = 0; j < c.np && np < RS_COLLIDE_MAX_POINTS; j++, np++) {
                        rs_cpoint *pt = &pts[np];
                        pt->p[0] = c.p[j][0], pt->p[1] = c.p[j][1];
                        pt->n[0] = c.n[0], pt->n[1] = c.n[1];
                        pt->e = s->restitution;
                        pt->mu = s->friction;
                        pt->gap_speed = c.gap[j] / dt;
                    }
                }
                if (!any)
                    break;
                double total = rs_collide_solve(&body, NULL, pts, &np);
                note_points(pts, np, total, &im);
                /* Then out of each wall in turn, from where the previous
                 * ones left it (two segments of one straight wall need one
                 * move, not two). */
                for (uint32_t k = 0; k < cl.n; k++) {
                    if (!deep[k])
                        continue;
                    wall_contact c;
                    rs_collide_box_at(car, car->pos, &box);
                    sh[0] = prev_pos[0] - car->pos[0], sh[1] = prev_pos[1] - car->pos[1];
                    wall_test(track, &cl, cl.idx[k], &box, sh, prev_pos, &c);
                    if (c.state == RS_CONTACT_PENETRATING) {
                        car->pos[0] += c.depth * c.n[0];
                        car->pos[1] += c.depth * c.n[1];
                    }
                }
            }
            if (im.impulse > 0.0 && rs_collide_is_hit(was_quiet, hit_old, im.closing)) {
                hit = true;
                cc->barrier_hits++;
                rs_event *ev = rs_event_push(events, RS_EVENT_BARRIER_HIT, car_id1);
                if (ev) {
                    ev->impulse_n_s = im.impulse;
                    ev->speed_m_s = im.closing;
                    ev->point_m[0] = im.p[0], ev->point_m[1] = im.p[1];
                    ev->normal[0] = im.n[0], ev->normal[1] = im.n[1];
                }
            }
        }
    }
    if (hit)
        cc->barrier_hit_age_s = 0.0;
    else if (advance_timer)
        cc->barrier_hit_age_s = rs_min(cc->barrier_hit_age_s + dt, RS_COLLIDE_QUIET_CAP_S);
    if (touched)
        cc->barrier_quiet_s = 0.0;
    else if (advance_timer)
        cc->barrier_quiet_s = rs_min(cc->barrier_quiet_s + dt, RS_COLLIDE_QUIET_CAP_S);
}

void rs_collide_barriers(rs_car *car, uint16_t car_id1, const double prev_pos[3],
                         const rs_track *track, double dt, rs_collide_car *cc,
                         rs_event_sink *events)
{
    rs_collide_barrier_pass(car, car_id1, prev_pos, track, dt, true, cc, events);
}
