/*
 * The racing line and its speed profile (racesim/driver.h).
 *
 * Line: the closed centre line is resampled at an even spacing and every
 * point may slide along the centre line's normal inside the track, less half
 * the car's width and a margin. The offsets minimise the sum of squared
 * second differences of the points, the discrete curvature of the path, so
 * the line runs wide into a corner, clips the inside and runs wide out of it
 * (the minimum-curvature line of lap-time optimisation, e.g. Heilmeier et
 * al., "Minimum curvature trajectory planning and control for an autonomous
 * race car", 2019, solved here without a QP library). Each point's best
 * offset with its neighbours held is a closed-form quadratic minimum, clipped
 * to the box: projected Gauss-Seidel with over-relaxation. Plain sweeps
 * converge slowly for corner-length waves, so they run coarse to fine: every
 * 32nd point first, then every 16th, 8th, ... and all, each level starting
 * from the one before. Fixed sweep counts and a fixed visiting order make the
 * result deterministic.
 *
 * Speed profile (the quasi-steady-state lap simulation of the same
 * literature): the cornering limit m v^2 |k| = mu (m g + 1/2 rho ClA v^2)
 * gives each point's highest speed, capped at the car's top speed; a
 * forward pass adds the acceleration the engine (best gear, from the torque
 * curve) and the driven tyres allow, a backward pass the deceleration the
 * brakes and tyres allow, both inside the friction ellipse with the lateral
 * acceleration of the point, plus drag and rolling resistance.
 */
#include <stdlib.h>
#include <string.h>

#include "car.h"
#include "carparams.h"
#include "detmath.h"
#include "driver_internal.h"
#include "drivetrain.h"

#define LEVELS 6              /* strides 32, 16, 8, 4, 2, 1 */
#define STRIDE_MAX (1u << (LEVELS - 1))
#define SOR_OMEGA 1.9         /* over-relaxation of the projected Gauss-Seidel sweeps */
#define ROLLING_COEF 0.012    /* rolling resistance per unit of load (weight + downforce) */
#define ELLIPSE_FLOOR 0.1     /* least share of the longitudinal grip kept in a corner */
#define SHIFT_RPM_SHARE 0.96  /* a gear is used up to this share of the redline */

rs_line_options rs_line_options_default(void)
{
    rs_line_options o;
    o.edge_margin_m = 0.4;
    o.grip_use = 0.92;
    o.spacing_m = 3.0;
    o.relax_sweeps = 200;
    return o;
}

/* ------------------------------------------------------------ allocation */

enum { ARR_X, ARR_Y, ARR_CX, ARR_CY, ARR_NX, ARR_NY, ARR_OFF, ARR_LO, ARR_HI, ARR_WL, ARR_WR,
       ARR_SC, ARR_S, ARR_SEG, ARR_K, ARR_V, ARR_COUNT };

static rs_racing_line *line_alloc(uint32_t n)
{
    rs_racing_line *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->block = calloc((size_t)n * ARR_COUNT, sizeof(double));
    if (!l->block) {
        free(l);
        return NULL;
    }
    double **arr[ARR_COUNT] = {&l->x, &l->y, &l->cx, &l->cy, &l->nx, &l->ny, &l->off, &l->lo,
                               &l->hi, &l->wl, &l->wr, &l->sc, &l->s, &l->seg, &l->kappa, &l->v};
    for (int i = 0; i < ARR_COUNT; i++)
        *arr[i] = l->block + (size_t)i * n;
    l->n = n;
    return l;
}

void rs_racing_line_destroy(rs_racing_line *line)
{
    if (!line)
        return;
    free(line->block);
    free(line);
}

/* ------------------------------------------------------------ resampling */

static uint32_t wrap(int64_t i, uint32_t n)
{
    int64_t m = i % (int64_t)n;
    return (uint32_t)(m < 0 ? m + (int64_t)n : m);
}

/* Samples the closed polyline pts at n even stations: centre point, widths,
 * station, normal. cum[i] is the station of point i, cum[count] the length. */
static void resample(rs_racing_line *l, const rs_track_point *pts, uint32_t count,
                     const double *cum)
{
    double total = cum[count];
    double h = total / (double)l->n;
    uint32_t k = 0;
    for (uint32_t j = 0; j < l->n; j++) {
        double t = (double)j * h;
        while (k + 1 < count && cum[k + 1] <= t)
            k++;
        uint32_t k1 = k + 1 < count ? k + 1 : 0;
        double len = cum[k + 1] - cum[k];
        double u = len > 0.0 ? rs_clamp((t - cum[k]) / len, 0.0, 1.0) : 0.0;
        const rs_track_point *a = &pts[k], *b = &pts[k1];
        l->cx[j] = a->x_m + u * (b->x_m - a->x_m);
        l->cy[j] = a->y_m + u * (b->y_m - a->y_m);
        l->wl[j] = a->width_left_m + u * (b->width_left_m - a->width_left_m);
        l->wr[j] = a->width_right_m + u * (b->width_right_m - a->width_right_m);
        l->sc[j] = t;
    }
    for (uint32_t j = 0; j < l->n; j++) {
        uint32_t jp = wrap((int64_t)j + 1, l->n), jm = wrap((int64_t)j - 1, l->n);
        double tx = l->cx[jp] - l->cx[jm], ty = l->cy[jp] - l->cy[jm];
        double len = rs_sqrt(tx * tx + ty * ty);
        if (len <= 0.0)
            tx = 1.0, ty = 0.0, len = 1.0;
        l->nx[j] = -ty / len;
        l->ny[j] = tx / len;
    }
}

/* ------------------------------------------------------------ relaxation */

static void point_at(const rs_racing_line *l, uint32_t i, double *px, double *py)
{
    *px = l->cx[i] + l->off[i] * l->nx[i];
    *py = l->cy[i] + l->off[i] * l->ny[i];
}

/* One projected over-relaxed Gauss-Seidel update of point j among the
 * points every m apart: the offset minimising the three squared second
 * differences that contain it. */
static void relax_point(rs_racing_line *l, uint32_t j, uint32_t m)
{
    uint32_t n = l->n;
    uint32_t a = wrap((int64_t)j - 2 * (int64_t)m, n), b = wrap((int64_t)j - (int64_t)m, n);
    uint32_t d = wrap((int64_t)j + (int64_t)m, n), e = wrap((int64_t)j + 2 * (int64_t)m, n);
    double ax, ay, bx, by, dx, dy, ex, ey;
    point_at(l, a, &ax, &ay);
    point_at(l, b, &bx, &by);
    point_at(l, d, &dx, &dy);
    point_at(l, e, &ex, &ey);
    double cx = l->cx[j], cy = l->cy[j];
    /* Second differences with this point at offset 0, and the weight each
     * gives the offset (1, -2, 1): minimum at -sum(w u.n) / sum(w^2). */
    double u1x = ax - 2.0 * bx + cx, u1y = ay - 2.0 * by + cy;
    double u2x = bx - 2.0 * cx + dx, u2y = by - 2.0 * cy + dy;
    double u3x = cx - 2.0 * dx + ex, u3y = cy - 2.0 * dy + ey;
    double nx = l->nx[j], ny = l->ny[j];
    double dot = (u1x * nx + u1y * ny) - 2.0 * (u2x * nx + u2y * ny) + (u3x * nx + u3y * ny);
    double best = -dot / 6.0;
    double off = l->off[j] + SOR_OMEGA * (best - l->off[j]);
    l->off[j] = rs_clamp(off, l->lo[j], l->hi[j]);
}

static void relax(rs_racing_line *l, uint32_t sweeps)
{
    uint32_t n = l->n;
    uint32_t prev = 0;
    for (int level = LEVELS - 1; level >= 0; level--) {
        uint32_t m = 1u << level;
        if (n / m < 8)
            continue; /* too few points for a loop at this stride */
        if (prev) {
            /* The new points start halfway between their coarse neighbours. */
            for (uint32_t j = m; j < n; j += 2 * m) {
                double o = 0.5 * (l->off[j - m] + l->off[wrap((int64_t)j + (int64_t)m, n)]);
                l->off[j] = rs_clamp(o, l->lo[j], l->hi[j]);
            }
        }
        for (uint32_t it = 0; it < sweeps; it++)
            for (uint32_t j = 0; j < n; j += m)
                relax_point(l, j, m);
        prev = m;
    }
}

/* Signed curvature of the circle through three points (Menger curvature):
 * 2 cross(b - a, c - b) / (|ab| |bc| |ca|). */
static double menger(double ax, double ay, double bx, double by, double cx, double cy)
{
    double abx = bx - ax, aby = by - ay, bcx = cx - bx, bcy = cy - by, cax = ax - cx, cay = ay - cy;
    double den =
        rs_sqrt((abx * abx + aby * aby) * (bcx * bcx + bcy * bcy) * (cax * cax + cay * cay));
    return den > 0.0 ? 2.0 * (abx * bcy - aby * bcx) / den : 0.0;
}

static void geometry(rs_racing_line *l)
{
    uint32_t n = l->n;
    for (uint32_t j = 0; j < n; j++)
        point_at(l, j, &l->x[j], &l->y[j]);
    double s = 0.0;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t jp = wrap((int64_t)j + 1, n);
        double dx = l->x[jp] - l->x[j], dy = l->y[jp] - l->y[j];
        l->s[j] = s;
        l->seg[j] = rs_sqrt(dx * dx + dy * dy);
        s += l->seg[j];
    }
    l->length = s;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t jm = wrap((int64_t)j - 1, n), jp = wrap((int64_t)j + 1, n);
        l->kappa[j] = menger(l->x[jm], l->y[jm], l->x[j], l->y[j], l->x[jp], l->y[jp]);
    }
}

/* ---------------------------------------------------------- speed profile */

#define MU_LOADS 24           /* peak friction tabulated at loads ... */
#define MU_LOAD_MAX 6.0       /* ... up to this multiple of the static corner load */

/* A tyre's peak friction against load, tabulated once. */
typedef struct mu_table {
    double fz0;               /* static corner load */
    double mu[MU_LOADS + 1];  /* at fz0 * MU_LOAD_MAX * i / MU_LOADS */
} mu_table;

static void mu_table_init(mu_table *t, const rs_tire_params *tp, double fz0)
{
    t->fz0 = fz0;
    for (int i = 1; i <= MU_LOADS; i++)
        t->mu[i] = rs_tire_peak_mu(tp, fz0 * MU_LOAD_MAX * (double)i / MU_LOADS);
    t->mu[0] = t->mu[1];
}

/* Friction force one tyre can give at load fz. */
static double tire_force(const mu_table *t, double fz)
{
    if (fz <= 0.0)
        return 0.0;
    double x = rs_min(fz / (t->fz0 * MU_LOAD_MAX) * MU_LOADS, (double)MU_LOADS);
    int i = (int)x; /* in [0, MU_LOADS]: fz > 0 and clamped above */
    if (i >= MU_LOADS)
        return t->mu[MU_LOADS] * fz;
    double u = x - (double)i;
    return (t->mu[i] + u * (t->mu[i + 1] - t->mu[i])) * fz;
}

double rs_line_table(const double *table, double v)
{
    double x = v / RS_LINE_FORCE_DV;
    if (x >= (double)RS_LINE_FORCE_STEPS)
        return table[RS_LINE_FORCE_STEPS];
    if (x <= 0.0)
        return table[0];
    int k = (int)x; /* in range: checked above */
    double u = x - (double)k;
    return table[k] + u * (table[k + 1] - table[k]);
}

/* Cornering limit at axle loads fz[2] (both wheels, with downforce): each
 * axle carries the lateral force of its share of the mass, and lateral
 * load transfer (m_axle a h / track) moves load to the outer tyre, which
 * the tyres' load sensitivity makes cost grip. Solved by damped fixed-point
 * iteration (the capacity falls as the acceleration grows). */
static double lateral_limit(const rs_car_params_data *def, const mu_table mt[2], const double fz[2],
                            const double share[2])
{
    double a = 10.0;
    for (int it = 0; it < 12; it++) {
        double lim = 1e9;
        for (int x = 0; x < 2; x++) {
            double m_axle = def->mass_kg * share[x];
            double half = 0.5 * fz[x];
            double dfz = rs_min(m_axle * a * def->cg_height_m / def->axle[x].track_m, half);
            double cap = tire_force(&mt[x], half + dfz) + tire_force(&mt[x], half - dfz);
            lim = rs_min(lim, cap / m_axle);
        }
        a = 0.5 * (a + lim);
    }
    return a;
}

static void perf_init(rs_line_perf *p, const rs_car_params *car, const rs_car_info *info,
                      double grip_use)
{
    const rs_car_params_data *def = &car->def;
    rs_car tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.params = car;
    rs_car_derive(&tmp);
    double m = def->mass_kg;
    double rho = def->air_density_kg_m3;
    int drv = def->drive == RS_DRIVE_FWD ? 0 : 1;
    double wheelbase = def->axle[0].x_m - def->axle[1].x_m;
    double share[2] = {-def->axle[1].x_m / wheelbase, def->axle[0].x_m / wheelbase};
    double cl[2] = {def->lift_front_cl_a_m2, def->lift_rear_cl_a_m2};
    double g = RS_LINE_GRAVITY;

    p->g = g;
    p->q_down = 0.5 * rho * (cl[0] + cl[1]) / m;
    p->q_drag = 0.5 * rho * def->drag_cd_a_m2 / m;
    p->roll = ROLLING_COEF;
    p->brake_acc = info->brake_mu_limit * g;

    mu_table mt[2];
    for (int x = 0; x < 2; x++)
        mu_table_init(&mt[x], &def->axle[x].tire, 0.5 * m * g * share[x]);
    double beta = def->axle[0].brake_share;
    double h_l = def->cg_height_m / wheelbase;

    /* Best gear at each road speed; below the clutch's full-engagement
     * speed the clutch slips and the engine holds that speed. */
    double r = tmp.derived.rolling_radius_m;
    double engage = tmp.derived.engage_full_rad_s;
    p->top_speed = 0.0;
    for (int k = 0; k <= RS_LINE_FORCE_STEPS; k++) {
        double v = (double)k * RS_LINE_FORCE_DV;
        double best = 0.0;
        p->best_gear[k] = 1;
        for (uint32_t gi = 1; gi <= def->gears; gi++) {
            double ratio = rs_gear_ratio(def, (int)gi);
            double omega = v / r * ratio;
            if (omega * RS_RPM_PER_RAD_S > SHIFT_RPM_SHARE * def->redline_rpm)
                continue;
            double torque = rs_engine_torque(def, rs_max(omega, engage), 1.0);
            double f = torque * ratio * def->driveline_efficiency / r / m;
            if (f > best) {
                best = f;
                p->best_gear[k] = (uint8_t)gi;
            }
        }
        if (best == 0.0)
            p->best_gear[k] = (uint8_t)def->gears; /* beyond every gear's redline */
        p->force[k] = best;
        if (p->top_speed == 0.0 && k > 0 &&
            best <= p->q_drag * v * v + ROLLING_COEF * (g + p->q_down * v * v))
            p->top_speed = v;

        /* Grip at this speed: axle loads with their downforce. */
        double fz[2];
        for (int x = 0; x < 2; x++)
            fz[x] = m * g * share[x] + 0.5 * rho * cl[x] * v * v;
        p->lat_acc[k] = grip_use * lateral_limit(def, mt, fz, share);
        p->trac_acc[k] = grip_use * 2.0 * tire_force(&mt[drv], 0.5 * fz[drv]) / m;
        /* Braking with a fixed balance: an axle locks when its share of
         * the brake force passes its grip; braking moves m a h / L of load
         * forward. front: beta m a <= mu_f (Fzf + m a h/L), rear:
         * (1 - beta) m a <= mu_r (Fzr - m a h/L), mu at the static loads. */
        double mu_f = tire_force(&mt[0], 0.5 * fz[0]) / (0.5 * fz[0]);
        double mu_r = tire_force(&mt[1], 0.5 * fz[1]) / (0.5 * fz[1]);
        double den_f = beta * m - mu_f * m * h_l;
        double lim_f = den_f > 0.0 ? mu_f * fz[0] / den_f : 1e9;
        double lim_r = mu_r * fz[1] / ((1.0 - beta) * m + mu_r * m * h_l);
        double tires =
            2.0 * (tire_force(&mt[0], 0.5 * fz[0]) + tire_force(&mt[1], 0.5 * fz[1])) / m;
        p->brake_dec[k] = rs_min(p->brake_acc, grip_use * rs_min(tires, rs_min(lim_f, lim_r)));
    }
    if (p->top_speed == 0.0)
        p->top_speed = RS_LINE_FORCE_STEPS * RS_LINE_FORCE_DV;

    /* Cornering stiffness per unit load of each axle's tyre at its static
     * load: the slip angle a steady corner needs is about
     * (lateral force / load) / coefficient, which the driver adds to the
     * kinematic steering angle. */
    for (int x = 0; x < 2; x++) {
        double fz = mt[x].fz0;
        rs_tire_in in = rs_line_steady_tire_in(fz);
        rs_tire_out o;
        /* A central difference: the tyre's offsets cancel. */
        in.tan_alpha = -0.005;
        rs_tire_eval(&def->axle[x].tire, &in, &o);
        double fy_neg = o.fy;
        in.tan_alpha = 0.005;
        rs_tire_eval(&def->axle[x].tire, &in, &o);
        double coef = rs_abs(fy_neg - o.fy) / (0.01 * fz);
        p->slip_per_load[x] = coef > 1.0 ? 1.0 / coef : 1.0;
    }
}

/* Share of the longitudinal grip left by lateral acceleration v^2 |k|
 * (friction ellipse). */
static double ellipse(const rs_line_perf *p, double v, double kappa)
{
    double r = v * v * rs_abs(kappa) / rs_line_table(p->lat_acc, v);
    double e = r < 1.0 ? rs_sqrt(1.0 - r * r) : 0.0;
    return rs_max(e, ELLIPSE_FLOOR);
}

/* Highest speed at which v^2 |k| stays within the cornering limit: the
 * first table speed that breaks it, then linear interpolation of the
 * margin between it and the one before. */
static double corner_speed(const rs_line_perf *p, double kappa)
{
    double k = rs_abs(kappa);
    double prev = -p->lat_acc[0];
    for (int i = 1; i <= RS_LINE_FORCE_STEPS; i++) {
        double v = (double)i * RS_LINE_FORCE_DV;
        if (v >= p->top_speed)
            break;
        double margin = v * v * k - p->lat_acc[i];
        if (margin > 0.0) {
            double u = prev < 0.0 ? -prev / (margin - prev) : 0.0;
            return (double)(i - 1) * RS_LINE_FORCE_DV + u * RS_LINE_FORCE_DV;
        }
        prev = margin;
    }
    return p->top_speed;
}

static void speed_profile(rs_racing_line *l, const rs_line_perf *p)
{
    uint32_t n = l->n;
    uint32_t start = 0;
    for (uint32_t j = 0; j < n; j++) {
        l->v[j] = corner_speed(p, l->kappa[j]);
        if (l->v[j] < l->v[start])
            start = j;
    }
    /* Forward: what the engine and the driven tyres add. */
    for (uint32_t k = 1; k <= n; k++) {
        uint32_t j = wrap((int64_t)start + k, n), i = wrap((int64_t)j - 1, n);
        double v0 = l->v[i];
        double grip = rs_line_table(p->trac_acc, v0) * ellipse(p, v0, l->kappa[i]);
        double acc = rs_min(rs_line_table(p->force, v0), grip) - p->q_drag * v0 * v0 -
                     p->roll * (p->g + p->q_down * v0 * v0);
        double v1 = rs_sqrt(v0 * v0 + 2.0 * acc * l->seg[i]);
        if (v1 < l->v[j])
            l->v[j] = v1;
    }
    /* Backward: what the brakes and all four tyres take away. */
    for (uint32_t k = 1; k <= n; k++) {
        uint32_t j = wrap((int64_t)start - (int64_t)k, n), i = wrap((int64_t)j + 1, n);
        double v1 = l->v[i];
        double dec = rs_line_table(p->brake_dec, v1) * ellipse(p, v1, l->kappa[i]) +
                     p->q_drag * v1 * v1 + p->roll * (p->g + p->q_down * v1 * v1);
        double v0 = rs_sqrt(v1 * v1 + 2.0 * dec * l->seg[j]);
        if (v0 < l->v[j])
            l->v[j] = v0;
    }
    double t = 0.0;
    for (uint32_t j = 0; j < n; j++) {
        double vm = 0.5 * (l->v[j] + l->v[wrap((int64_t)j + 1, n)]);
        t += l->seg[j] / rs_max(vm, 0.1);
    }
    l->lap_time_s = t;
}

/* ---------------------------------------------------------------- build */

static int options_ok(const rs_line_options *o)
{
    return o->edge_margin_m >= 0.0 && o->edge_margin_m <= 10.0 && o->grip_use > 0.0 &&
           o->grip_use <= 1.0 && o->spacing_m >= 0.5 && o->spacing_m <= 20.0 &&
           o->relax_sweeps <= 100000;
}

rs_status rs_racing_line_build_points(const rs_track_point *points, uint32_t count,
                                      const rs_car_params *car, const rs_line_options *options,
                                      rs_racing_line **out)
{
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    if (!points || !car)
        return RS_ERR_ARG;
    rs_line_options o = options ? *options : rs_line_options_default();
    if (!options_ok(&o) || count < 3)
        return RS_ERR_RANGE;
    double *cum = malloc(((size_t)count + 1) * sizeof *cum);
    if (!cum)
        return RS_ERR_NOMEM;
    cum[0] = 0.0;
    for (uint32_t i = 0; i < count; i++) {
        const rs_track_point *a = &points[i], *b = &points[i + 1 < count ? i + 1 : 0];
        double dx = b->x_m - a->x_m, dy = b->y_m - a->y_m;
        int finite = dx - dx == 0.0 && dy - dy == 0.0 && a->width_left_m - a->width_left_m == 0.0 &&
                     a->width_right_m - a->width_right_m == 0.0;
        if (!finite || a->width_left_m < 0.0 || a->width_right_m < 0.0) {
            free(cum);
            return RS_ERR_RANGE;
        }
        cum[i + 1] = cum[i] + rs_sqrt(dx * dx + dy * dy);
    }
    double total = cum[count];
    if (!(total >= 10.0 && total <= 1.0e7)) {
        free(cum);
        return RS_ERR_RANGE;
    }
    /* A multiple of the coarsest stride so that every level closes the loop. */
    double want = total / o.spacing_m;
    uint32_t n = (uint32_t)want + 1u;
    n = (n + STRIDE_MAX - 1u) & ~(STRIDE_MAX - 1u);

    rs_racing_line *l = line_alloc(n);
    if (!l) {
        free(cum);
        return RS_ERR_NOMEM;
    }
    rs_car_params_info(car, &l->info);
    l->half_width_m = 0.5 * l->info.width_m + o.edge_margin_m;
    l->centre_length = total;
    l->rear_x_m = car->def.axle[1].x_m;
    l->driven[0] = car->def.drive == RS_DRIVE_FWD ? RS_WHEEL_FL : RS_WHEEL_RL;
    l->driven[1] = car->def.drive == RS_DRIVE_FWD ? RS_WHEEL_FR : RS_WHEEL_RR;
    resample(l, points, count, cum);
    free(cum);
    for (uint32_t j = 0; j < n; j++) {
        double lo = -(l->wr[j] - l->half_width_m), hi = l->wl[j] - l->half_width_m;
        if (lo > hi)
            lo = hi = 0.5 * (lo + hi); /* narrower than the car: keep to the middle */
        l->lo[j] = lo;
        l->hi[j] = hi;
        l->off[j] = rs_clamp(0.0, lo, hi);
    }
    if (o.relax_sweeps > 0)
        relax(l, o.relax_sweeps);
    geometry(l);
    perf_init(&l->perf, car, &l->info, o.grip_use);
    speed_profile(l, &l->perf);
    *out = l;
    return RS_OK;
}

rs_status rs_racing_line_build(const rs_track *track, const rs_car_params *car,
                               const rs_line_options *options, rs_racing_line **out)
{
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    if (!track || !car)
        return RS_ERR_ARG;
    uint32_t count = rs_track_point_count(track);
    if (count < 3)
        return RS_ERR_RANGE;
    rs_track_point *pts = malloc((size_t)count * sizeof *pts);
    if (!pts)
        return RS_ERR_NOMEM;
    for (uint32_t i = 0; i < count; i++)
        rs_track_point_at(track, i, &pts[i]);
    rs_status st = rs_racing_line_build_points(pts, count, car, options, out);
    free(pts);
    return st;
}

/* ---------------------------------------------------------------- access */

uint32_t rs_racing_line_count(const rs_racing_line *line) { return line ? line->n : 0; }

bool rs_racing_line_at(const rs_racing_line *line, uint32_t i, rs_line_point *out)
{
    if (!line || !out || i >= line->n)
        return false;
    out->x_m = line->x[i];
    out->y_m = line->y[i];
    out->s_m = line->sc[i];
    out->offset_m = line->off[i];
    out->width_left_m = line->wl[i];
    out->width_right_m = line->wr[i];
    out->curvature_1_m = line->kappa[i];
    out->speed_m_s = line->v[i];
    return true;
}

double rs_racing_line_length(const rs_racing_line *line) { return line ? line->length : 0.0; }

double rs_racing_line_lap_time(const rs_racing_line *line) { return line ? line->lap_time_s : 0.0; }
