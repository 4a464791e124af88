/*
 * Collision building blocks shared by the barrier and the car-to-car
 * passes: the per-car contact state, the footprint box, and the contact
 * impulse with restitution and friction that never adds kinetic energy
 * (docs/COLLISIONS.md).
 */
#include "collide_internal.h"

#include "detmath.h"

/* ------------------------------------------------------------ car state */

void rs_collide_car_init(rs_collide_car *cc)
{
    cc->barrier_quiet_s = RS_COLLIDE_QUIET_CAP_S;
    cc->barrier_hit_age_s = RS_COLLIDE_QUIET_CAP_S;
    cc->car_quiet_s = RS_COLLIDE_QUIET_CAP_S;
    cc->car_hit_age_s = RS_COLLIDE_QUIET_CAP_S;
    cc->barrier_hits = 0;
    cc->car_hits = 0;
}

void rs_collide_car_write(const rs_collide_car *cc, rs_writer *w)
{
    rs_write_f64(w, cc->barrier_quiet_s);
    rs_write_f64(w, cc->barrier_hit_age_s);
    rs_write_f64(w, cc->car_quiet_s);
    rs_write_f64(w, cc->car_hit_age_s);
    rs_write_u32(w, cc->barrier_hits);
    rs_write_u32(w, cc->car_hits);
}

void rs_collide_car_read(rs_collide_car *cc, rs_reader *r)
{
    cc->barrier_quiet_s = rs_read_f64(r);
    cc->barrier_hit_age_s = rs_read_f64(r);
    cc->car_quiet_s = rs_read_f64(r);
    cc->car_hit_age_s = rs_read_f64(r);
    cc->barrier_hits = rs_read_u32(r);
    cc->car_hits = rs_read_u32(r);
}

/* ------------------------------------------------------------- geometry */

void rs_collide_box_at(const rs_car *car, const double pos_xy[2], rs_box2 *out)
{
    const rs_car_params_data *def = &car->params->def;
    const double *q = car->q;
    /* Column 0 of the rotation matrix: the body x axis in world. */
    double hx = 1.0 - 2.0 * (q[2] * q[2] + q[3] * q[3]);
    double hy = 2.0 * (q[1] * q[2] + q[0] * q[3]);
    double len = rs_sqrt(hx * hx + hy * hy);
    if (len < 1e-9) {
        /* Nose straight up or down: take the heading from the body y axis
         * (column 1), turned a quarter right. */
        double lx = 2.0 * (q[1] * q[2] - q[0] * q[3]);
        double ly = 1.0 - 2.0 * (q[1] * q[1] + q[3] * q[3]);
        hx = ly, hy = -lx;
        len = rs_sqrt(hx * hx + hy * hy);
        if (len < 1e-9)
            hx = 1.0, hy = 0.0, len = 1.0;
    }
    hx /= len, hy /= len;
    double off = 0.5 * (def->axle[0].x_m + def->axle[1].x_m);
    out->ax[0] = hx, out->ax[1] = hy;
    out->ay[0] = -hy, out->ay[1] = hx;
    out->c[0] = pos_xy[0] + off * hx;
    out->c[1] = pos_xy[1] + off * hy;
    out->h[0] = 0.5 * def->length_m;
    out->h[1] = 0.5 * def->width_m;
}

void rs_collide_footprint(const rs_car *car, rs_box2 *out)
{
    rs_collide_box_at(car, car->pos, out);
}

void rs_cbody_init(rs_cbody *b, rs_car *car)
{
    const double *q = car->q, *Ii = car->derived.inv_inertia;
    b->car = car;
    b->inv_m = 1.0 / car->params->def.mass_kg;
    /* Row 2 of the rotation matrix (body to world) is R^T e_z. */
    b->ez_b[0] = 2.0 * (q[1] * q[3] - q[0] * q[2]);
    b->ez_b[1] = 2.0 * (q[2] * q[3] + q[0] * q[1]);
    b->ez_b[2] = 1.0 - 2.0 * (q[1] * q[1] + q[2] * q[2]);
    for (int r = 0; r < 3; r++)
        b->g[r] = Ii[3 * r] * b->ez_b[0] + Ii[3 * r + 1] * b->ez_b[1] + Ii[3 * r + 2] * b->ez_b[2];
    b->kzz = b->ez_b[0] * b->g[0] + b->ez_b[1] * b->g[1] + b->ez_b[2] * b->g[2];
}

/* ------------------------------------------------------------- impulses */

/* Velocity of the body's point at horizontal offset r: v + w x r, whose
 * horizontal part needs only the world yaw rate. */
static void point_velocity(const rs_cbody *b, const double r[2], double out[2])
{
    const double *w = b->car->w;
    double wz = b->ez_b[0] * w[0] + b->ez_b[1] * w[1] + b->ez_b[2] * w[2];
    out[0] = b->car->vel[0] - wz * r[1];
    out[1] = b->car->vel[1] + wz * r[0];
}

static void apply(rs_cbody *b, const double r[2], double jx, double jy)
{
    rs_car *car = b->car;
    car->vel[0] += jx * b->inv_m;
    car->vel[1] += jy * b->inv_m;
    double tz = r[0] * jy - r[1] * jx;
    for (int k = 0; k < 3; k++)
        car->w[k] += tz * b->g[k];
}

/* Relative velocity of a over b at contact point c. */
static void relative_velocity(const rs_cbody *a, const rs_cbody *b, const rs_cpoint *c, double v[2])
{
    point_velocity(a, c->ra, v);
    if (b) {
        double vb[2];
        point_velocity(b, c->rb, vb);
        v[0] -= vb[0], v[1] -= vb[1];
    }
}

static void apply_pair(rs_cbody *a, rs_cbody *b, const rs_cpoint *c, double jx, double jy)
{
    apply(a, c->ra, jx, jy);
    if (b)
        apply(b, c->rb, -jx, -jy);
}

/* Inverse effective mass of one body at arm r along unit d:
 * 1/m + (r x d)_z^2 e_z.I_world^-1.e_z (Mirtich 1996, eq. 3.21). */
static double inv_mass_along(const rs_cbody *b, const double r[2], const double d[2])
{
    double c = r[0] * d[1] - r[1] * d[0];
    return b->inv_m + c * c * b->kzz;
}

/* Kinetic energy terms of a velocity change (dv, dw) from (v, w):
 * dKE = lin + quad / 2, both summed into out[0], out[1]. */
static void energy_terms(const rs_car *car, const double v0[3], const double w0[3], double out[2])
{
    const double *I = car->derived.inertia;
    double m = car->params->def.mass_kg;
    double dv[3], dw[3], Idw[3];
    for (int k = 0; k < 3; k++)
        dv[k] = car->vel[k] - v0[k], dw[k] = car->w[k] - w0[k];
    for (int r = 0; r < 3; r++)
        Idw[r] = I[3 * r] * dw[0] + I[3 * r + 1] * dw[1] + I[3 * r + 2] * dw[2];
    out[0] += m * (v0[0] * dv[0] + v0[1] * dv[1] + v0[2] * dv[2]) +
              (w0[0] * Idw[0] + w0[1] * Idw[1] + w0[2] * Idw[2]);
    out[1] += m * (dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]) +
              (dw[0] * Idw[0] + dw[1] * Idw[1] + dw[2] * Idw[2]);
}

static void scale_change(rs_car *car, const double v0[3], const double w0[3], double s)
{
    for (int k = 0; k < 3; k++) {
        car->vel[k] = v0[k] + s * (car->vel[k] - v0[k]);
        car->w[k] = w0[k] + s * (car->w[k] - w0[k]);
    }
}

#define SOLVER_ITERATIONS 8
#define SAME_NORMAL (1.0 - 1e-9) /* cos of the angle within which normals are one */

/* Keeps, of the points that share a normal, only the two farthest apart
 * along the tangent: normal forces spread along a line act on a rigid body
 * like forces at the line's two ends, and a pair can be solved exactly
 * (below). Groups come out in order of their first point, each as one or
 * two adjacent entries; group_len[] gets their sizes. Returns the count. */
static uint32_t reduce(rs_cpoint *pts, uint32_t n, uint8_t *group_len, uint32_t *groups)
{
    rs_cpoint out[RS_COLLIDE_MAX_POINTS];
    bool used[RS_COLLIDE_MAX_POINTS] = {false};
    uint32_t nout = 0, ng = 0;
    if (n > RS_COLLIDE_MAX_POINTS)
        n = RS_COLLIDE_MAX_POINTS;
    for (uint32_t i = 0; i < n; i++) {
        if (used[i])
            continue;
        const double *ni = pts[i].n;
        double t[2] = {-ni[1], ni[0]};
        uint32_t lo = i, hi = i;
        double slo = pts[i].p[0] * t[0] + pts[i].p[1] * t[1], shi = slo;
        for (uint32_t j = i + 1; j < n; j++) {
            if (used[j] || pts[j].n[0] * ni[0] + pts[j].n[1] * ni[1] < SAME_NORMAL)
                continue;
            used[j] = true;
            double sj = pts[j].p[0] * t[0] + pts[j].p[1] * t[1];
            if (sj < slo)
                lo = j, slo = sj;
            if (sj > shi)
                hi = j, shi = sj;
        }
        out[nout++] = pts[lo];
        group_len[ng] = 1;
        if (shi - slo > 1e-9) {
            out[nout++] = pts[hi];
            group_len[ng] = 2;
        }
        ng++;
    }
    for (uint32_t i = 0; i < nout; i++)
        pts[i] = out[i];
    *groups = ng;
    return nout;
}

static double normal_velocity(const rs_cbody *a, const rs_cbody *b, const rs_cpoint *c)
{
    double v[2];
    relative_velocity(a, b, c, v);
    return v[0] * c->n[0] + v[1] * c->n[1];
}

/* One point's normal impulse: bring its normal velocity to the target,
 * keeping the accumulated impulse >= 0. */
static void solve_normal(rs_cbody *a, rs_cbody *b, rs_cpoint *c)
{
    if (c->target > 1e299)
        return; /* a speculative point standing aside */
    double jn = rs_max(c->jn + (c->target - normal_velocity(a, b, c)) / c->knn, 0.0);
    double dj = jn - c->jn;
    c->jn = jn;
    apply_pair(a, b, c, dj * c->n[0], dj * c->n[1]);
}

/* Two points at once: the linear complementarity problem
 *   vn - target = K x + q >= 0,  x >= 0,  x . (K x + q) = 0
 * over the accumulated impulses x, solved exactly by trying its four cases
 * (both pushing, one, the other, none), as Box2D's block solver does. Two
 * corners of a face hitting a wall square-on get equal impulses, which
 * iterating point by point only approaches slowly (K is nearly singular for
 * two points far in front of the centre of mass). */
static void solve_normal_pair(rs_cbody *a, rs_cbody *b, rs_cpoint *c1, rs_cpoint *c2)
{
    double k12 = (c1->n[0] * c2->n[0] + c1->n[1] * c2->n[1]) * (a->inv_m + (b ? b->inv_m : 0.0));
    k12 += (c1->ra[0] * c1->n[1] - c1->ra[1] * c1->n[0]) *
           (c2->ra[0] * c2->n[1] - c2->ra[1] * c2->n[0]) * a->kzz;
    if (b)
        k12 += (c1->rb[0] * c1->n[1] - c1->rb[1] * c1->n[0]) *
               (c2->rb[0] * c2->n[1] - c2->rb[1] * c2->n[0]) * b->kzz;
    if (c1->target > 1e299 || c2->target > 1e299) {
        solve_normal(a, b, c1);
        solve_normal(a, b, c2);
        return;
    }
    double k11 = c1->knn, k22 = c2->knn;
    double q1 = normal_velocity(a, b, c1) - c1->target - (k11 * c1->jn + k12 * c2->jn);
    double q2 = normal_velocity(a, b, c2) - c2->target - (k12 * c1->jn + k22 * c2->jn);
    double x1 = 0.0, x2 = 0.0;
    double det = k11 * k22 - k12 * k12;
    bool ok = false;
    if (det > 1e-12 * k11 * k22) {
        x1 = (k12 * q2 - k22 * q1) / det;
        x2 = (k12 * q1 - k11 * q2) / det;
        ok = x1 >= 0.0 && x2 >= 0.0;
    }
    if (!ok) {
        x1 = -q1 / k11, x2 = 0.0;
        ok = x1 >= 0.0 && k12 * x1 + q2 >= 0.0;
    }
    if (!ok) {
        x1 = 0.0, x2 = -q2 / k22;
        ok = x2 >= 0.0 && k12 * x2 + q1 >= 0.0;
    }
    if (!ok) {
        x1 = 0.0, x2 = 0.0;
        ok = q1 >= 0.0 && q2 >= 0.0;
    }
    if (!ok) {
        /* Only rounding gets here: fall back to one point at a time. */
        solve_normal(a, b, c1);
        solve_normal(a, b, c2);
        return;
    }
    double d1 = x1 - c1->jn, d2 = x2 - c2->jn;
    c1->jn = x1, c2->jn = x2;
    apply_pair(a, b, c1, d1 * c1->n[0], d1 * c1->n[1]);
    apply_pair(a, b, c2, d2 * c2->n[0], d2 * c2->n[1]);
}

/* Coulomb friction at one point: stop its sliding, within +-mu times its
 * normal impulse. */
static void solve_friction(rs_cbody *a, rs_cbody *b, rs_cpoint *c)
{
    double v[2];
    relative_velocity(a, b, c, v);
    double vt = v[0] * c->t[0] + v[1] * c->t[1];
    double jt = rs_clamp(c->jt - vt / c->ktt, -c->mu * c->jn, c->mu * c->jn);
    double dj = jt - c->jt;
    c->jt = jt;
    apply_pair(a, b, c, dj * c->t[0], dj * c->t[1]);
}

double rs_collide_solve(rs_cbody *a, rs_cbody *b, rs_cpoint *pts, uint32_t *count)
{
    double va0[3], wa0[3], vb0[3] = {0.0, 0.0, 0.0}, wb0[3] = {0.0, 0.0, 0.0};
    uint8_t group_len[RS_COLLIDE_MAX_POINTS];
    uint32_t groups = 0;
    uint32_t n = reduce(pts, *count, group_len, &groups);
    bool approach = false;
    *count = n;
    for (int k = 0; k < 3; k++) {
        va0[k] = a->car->vel[k], wa0[k] = a->car->w[k];
        if (b)
            vb0[k] = b->car->vel[k], wb0[k] = b->car->w[k];
    }
    for (uint32_t i = 0; i < n; i++) {
        rs_cpoint *c = &pts[i];
        c->t[0] = -c->n[1], c->t[1] = c->n[0];
        c->ra[0] = c->p[0] - a->car->pos[0], c->ra[1] = c->p[1] - a->car->pos[1];
        c->rb[0] = c->rb[1] = 0.0;
        c->knn = inv_mass_along(a, c->ra, c->n);
        c->ktt = inv_mass_along(a, c->ra, c->t);
        if (b) {
            c->rb[0] = c->p[0] - b->car->pos[0], c->rb[1] = c->p[1] - b->car->pos[1];
            c->knn += inv_mass_along(b, c->rb, c->n);
            c->ktt += inv_mass_along(b, c->rb, c->t);
        }
        c->closing = -normal_velocity(a, b, c);
        c->jn = c->jt = 0.0;
        bool fast = c->closing >= RS_COLLIDE_HIT_SPEED_M_S;
        if (c->gap_speed > 0.0) {
            /* A speculative point (Catto, "Speculative contacts", 2013) holds
             * the far end of a face lying on a wall, so a slightly turned car
             * is not held at one corner per substep and rocked. In an impact
             * it stands aside: the bounce belongs to the point that hits. */
            c->target = fast ? 1e300 : -c->gap_speed;
            approach = approach || (!fast && c->closing > c->gap_speed);
        } else {
            /* Newton restitution for real impacts only: slow contacts get
             * none, so a car resting on a wall does not bounce. */
            c->target = fast ? c->e * c->closing : 0.0;
            approach = approach || c->closing > 0.0;
        }
    }
    if (!approach)
        return 0.0;

    /* Sequential impulses with accumulated clamping (Catto, "Iterative
     * Dynamics with Temporal Coherence", GDC 2005), a normal group (one
     * point, or a pair solved exactly) at a time, then its friction. */
    for (int it = 0; it < SOLVER_ITERATIONS; it++) {
        uint32_t i = 0;
        for (uint32_t g = 0; g < groups; g++) {
            if (group_len[g] == 2)
                solve_normal_pair(a, b, &pts[i], &pts[i + 1]);
            else
                solve_normal(a, b, &pts[i]);
            for (uint32_t k = 0; k < group_len[g]; k++)
                solve_friction(a, b, &pts[i + k]);
            i += group_len[g];
        }
    }

    /* The change of kinetic energy is exactly lin + quad / 2 for the total
     * velocity change, and scaling that change by s gives s lin + s^2 quad / 2:
     * if it is positive, take the largest s that does not raise the energy. */
    double terms[2] = {0.0, 0.0};
    energy_terms(a->car, va0, wa0, terms);
    if (b)
        energy_terms(b->car, vb0, wb0, terms);
    double s = 1.0;
    if (terms[0] + 0.5 * terms[1] > 0.0) {
        s = terms[0] < 0.0 && terms[1] > 0.0 ? -2.0 * terms[0] / terms[1] * 0.999999 : 0.0;
        scale_change(a->car, va0, wa0, s);
        if (b)
            scale_change(b->car, vb0, wb0, s);
    }
    double total = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        pts[i].jn *= s;
        total += pts[i].jn;
    }
    return total;
}
