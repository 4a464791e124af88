/*
 * The vehicle model: body, suspension, wheels, tyres and drivetrain stepped
 * together once per substep (see car.h and docs/PHYSICS.md).
 *
 * Order inside a substep, and why:
 *  1. Wheel kinematics and tyre loads from the current state (tyre vertical
 *     spring + damper: the suspension, not a load-transfer formula, gives
 *     the load).
 *  2. Magic Formula forces at the current transient slips (docs/TYRES.md).
 *  3. Wheel spin, transient longitudinal slip and the drivetrain solved
 *     together, linear-implicitly (the tyre's slip slope and the relaxation
 *     ODE folded into each wheel's response), so a wheel is stable from
 *     standstill to 100 m/s and a held brake keeps it at exactly zero spin.
 *  4. Lateral transient slip updated implicitly in its decay term.
 *  5. Suspension travel with implicit damping, then the body (semi-implicit
 *     Euler on velocity then position; quaternion renormalised).
 * Forces in the body's x-y plane act at the roll-centre height; the
 * unsprung masses move with the body in x-y and on their own along body z,
 * so the body's mass is anisotropic: total mass in x-y, sprung mass in z.
 */
#include "car.h"

#include "detmath.h"
#include "drivetrain.h"

#define GRAVITY 9.80665
/* Carcass damping of the tyre's relaxation spring (stiffness K/sigma
 * against the corner mass), as a fraction of critical. It acts on the
 * deflection rate sigma * d(slip)/dt, so it is zero in steady state; it keeps
 * a parked car from ringing on its tyres and damps the lateral-roll mode that
 * the relaxation spring and camber would otherwise excite at walking pace. */
#define CARCASS_DAMPING_RATIO 0.6

/* ---------------------------------------------------------------- vectors */

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x, out[1] = y, out[2] = z;
}

/* Rotation matrix (row-major) of a unit quaternion w x y z. */
static void quat_matrix(const double q[4], double m[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    m[0] = 1.0 - 2.0 * (y * y + z * z), m[1] = 2.0 * (x * y - w * z), m[2] = 2.0 * (x * z + w * y);
    m[3] = 2.0 * (x * y + w * z), m[4] = 1.0 - 2.0 * (x * x + z * z), m[5] = 2.0 * (y * z - w * x);
    m[6] = 2.0 * (x * z - w * y), m[7] = 2.0 * (y * z + w * x), m[8] = 1.0 - 2.0 * (x * x + y * y);
}

static void mat_mul(const double m[9], const double v[3], double out[3])
{
    double x = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
    double y = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
    double z = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];
    out[0] = x, out[1] = y, out[2] = z;
}

static void mat_tmul(const double m[9], const double v[3], double out[3])
{
    double x = m[0] * v[0] + m[3] * v[1] + m[6] * v[2];
    double y = m[1] * v[0] + m[4] * v[1] + m[7] * v[2];
    double z = m[2] * v[0] + m[5] * v[1] + m[8] * v[2];
    out[0] = x, out[1] = y, out[2] = z;
}

static void invert3(const double m[9], double out[9])
{
    double c0 = m[4] * m[8] - m[5] * m[7];
    double c1 = m[5] * m[6] - m[3] * m[8];
    double c2 = m[3] * m[7] - m[4] * m[6];
    double inv_det = 1.0 / (m[0] * c0 + m[1] * c1 + m[2] * c2);
    out[0] = c0 * inv_det;
    out[1] = (m[2] * m[7] - m[1] * m[8]) * inv_det;
    out[2] = (m[1] * m[5] - m[2] * m[4]) * inv_det;
    out[3] = c1 * inv_det;
    out[4] = (m[0] * m[8] - m[2] * m[6]) * inv_det;
    out[5] = (m[2] * m[3] - m[0] * m[5]) * inv_det;
    out[6] = c2 * inv_det;
    out[7] = (m[1] * m[6] - m[0] * m[7]) * inv_det;
    out[8] = (m[0] * m[4] - m[1] * m[3]) * inv_det;
}

/* The gyroscopic part of Euler's equations, I dw/dt = -w x Iw, integrated
 * with one Newton step of backward Euler (Catto, "Numerical Methods", GDC
 * 2015). Explicit integration of this term adds energy: a tumbling car in
 * the air would spin up without bound. */
static void gyroscopic_implicit(const double I[9], double dt, double w[3])
{
    double Iw[3], f[3], J[9], Jinv[9], step[3];
    mat_mul(I, w, Iw);
    cross3(w, Iw, f);
    for (int j = 0; j < 3; j++)
        f[j] *= dt;
    /* J = I + dt (skew(w) I - skew(I w)) */
    double sw[9] = {0.0, -w[2], w[1], w[2], 0.0, -w[0], -w[1], w[0], 0.0};
    double sIw[9] = {0.0, -Iw[2], Iw[1], Iw[2], 0.0, -Iw[0], -Iw[1], Iw[0], 0.0};
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double swI = sw[3 * r] * I[c] + sw[3 * r + 1] * I[3 + c] + sw[3 * r + 2] * I[6 + c];
            J[3 * r + c] = I[3 * r + c] + dt * (swI - sIw[3 * r + c]);
        }
    invert3(J, Jinv);
    mat_mul(Jinv, f, step);
    for (int j = 0; j < 3; j++)
        w[j] -= step[j];
}

/* ------------------------------------------------------------------ setup */

static double wheel_steer(const rs_car *car, int i, double steer_ref);

static int is_left(int i) { return (i & 1) == 0; }
static const rs_axle_params *axle_of(const rs_car_params_data *def, int i)
{
    return &def->axle[i >> 1];
}

void rs_car_derive(rs_car *car)
{
    const rs_car_params_data *def = &car->params->def;
    rs_car_derived *out = &car->derived;
    double xf = def->axle[0].x_m, xr = def->axle[1].x_m;
    double wheelbase = xf - xr;
    /* Static axle loads from the lever rule: front carries m g b / L. */
    double axle_load[2] = {def->mass_kg * GRAVITY * (-xr) / wheelbase,
                           def->mass_kg * GRAVITY * xf / wheelbase};
    double unsprung = 0.0;

    out->wheelbase_m = wheelbase;
    for (int i = 0; i < 4; i++) {
        const rs_axle_params *a = axle_of(def, i);
        double corner = 0.5 * axle_load[i >> 1];
        double tire_sag = corner / a->tire.vertical_stiffness;
        out->mount[i][0] = a->x_m;
        out->mount[i][1] = is_left(i) ? 0.5 * a->track_m : -0.5 * a->track_m;
        out->mount[i][2] = a->tire.unloaded_radius - tire_sag - def->cg_height_m;
        out->rc_z[i] = a->roll_centre_m - def->cg_height_m;
        if (i == 2 + (def->drive == RS_DRIVE_FWD ? -2 : 0))
            out->rolling_radius_m = a->tire.unloaded_radius - tire_sag;
        /* The spring carries the sprung part of the corner at design ride. */
        out->preload_n[i] = corner - a->unsprung_mass_kg * GRAVITY;
        rs_sincos(is_left(i) ? -a->camber_rad : a->camber_rad, &out->camber_sin[i],
                  &out->camber_cos[i]);
        unsprung += a->unsprung_mass_kg;
    }
    out->sprung_mass_kg = def->mass_kg - unsprung;

    const double *I = def->inertia_kg_m2; /* xx yy zz xy xz yz: tensor entries */
    double m[9] = {I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2]};
    for (int j = 0; j < 9; j++)
        out->inertia[j] = m[j];
    invert3(m, out->inv_inertia);

    /* Full lock: the inside front wheel reaches steer_max. With Ackermann
     * geometry the bicycle-model angle is a little smaller (low-speed
     * turning: R = L / tan(delta) for the rear-axle centre; docs/PHYSICS.md,
     * "Steering"). */
    const rs_axle_params *f = &def->axle[0];
    if (f->steer_max_rad > 0.0) {
        double inner_r = wheelbase / rs_tan(f->steer_max_rad);
        double full_ack = rs_atan(wheelbase / (inner_r + 0.5 * f->track_m));
        out->steer_ref_max_rad = f->steer_max_rad + def->ackermann * (full_ack - f->steer_max_rad);
    } else {
        out->steer_ref_max_rad = 0.0;
    }

    out->idle_rad_s = def->idle_rpm / RS_RPM_PER_RAD_S;
    out->engage_start_rad_s = 1.1 * out->idle_rad_s;
    out->engage_full_rad_s =
        (def->idle_rpm + 0.3 * (def->redline_rpm - def->idle_rpm)) / RS_RPM_PER_RAD_S;
    out->cp_z = def->cp_height_m - def->cg_height_m;
    if (def->drive == RS_DRIVE_FWD)
        out->driven[0] = RS_WHEEL_FL, out->driven[1] = RS_WHEEL_FR;
    else
        out->driven[0] = RS_WHEEL_RL, out->driven[1] = RS_WHEEL_RR;
}

static void ground_at(const rs_world_def *w, double x, double y, rs_ground_hit *hit)
{
    if (w->ground) {
        /* A lookup that knows nothing of track limits leaves them "inside". */
        hit->inside_limits = true;
        w->ground(w->ground_ctx, x, y, hit);
        if (hit->surface >= RS_SURFACE_COUNT)
            hit->surface = RS_SURFACE_ASPHALT;
    } else {
        hit->height_m = 0.0;
        hit->normal[0] = 0.0, hit->normal[1] = 0.0, hit->normal[2] = 1.0;
        hit->surface = RS_SURFACE_ASPHALT;
        hit->inside_limits = true;
    }
}

void rs_car_init(rs_car *car, const rs_car_params *params, const rs_car_spawn *spawn,
                 const rs_world_def *world)
{
    const rs_car_params_data *def = &params->def;
    rs_ground_hit hit;
    double c, s;

    *car = (rs_car){0};
    car->params = params;
    rs_car_derive(car);

    ground_at(world, spawn->pos_m[0], spawn->pos_m[1], &hit);
    rs_sincos(0.5 * spawn->yaw_rad, &s, &c);
    car->q[0] = c, car->q[3] = s;
    car->pos[0] = spawn->pos_m[0];
    car->pos[1] = spawn->pos_m[1];
    car->pos[2] = hit.height_m + def->cg_height_m + spawn->pos_m[2];
    rs_sincos(spawn->yaw_rad, &s, &c);
    car->vel[0] = spawn->speed_m_s * c;
    car->vel[1] = spawn->speed_m_s * s;

    for (int i = 0; i < 4; i++) {
        const rs_tire_params *t = &axle_of(def, i)->tire;
        car->wheel[i].omega = spawn->speed_m_s / t->unloaded_radius;
    }
    car->transmission = spawn->transmission <= RS_TRANSMISSION_MANUAL ? spawn->transmission
                                                                       : RS_TRANSMISSION_AUTO;
    car->clutch_mode = spawn->clutch_mode <= RS_CLUTCH_MANUAL ? spawn->clutch_mode : RS_CLUTCH_AUTO;
    int gear = spawn->gear;
    if (gear < -1)
        gear = -1;
    if (gear > (int)def->gears)
        gear = (int)def->gears;
    car->gear = gear;
    car->shift_target = gear;
    car->auto_mode_gear = gear > 0 ? 1 : gear;
    const int *driven = car->derived.driven;
    double wheel_w = 0.5 * (car->wheel[driven[0]].omega + car->wheel[driven[1]].omega);
    car->omega_e = rs_max(car->derived.idle_rad_s, rs_gear_ratio(def, gear) * wheel_w);
    car->input = rs_input_default();
    for (int i = 0; i < 4; i++) {
        car->steer_rad[i] = wheel_steer(car, i, 0.0);
        rs_sincos(car->steer_rad[i], &car->steer_sin[i], &car->steer_cos[i]);
    }
}

/* ------------------------------------------------------------- gearbox */

static void start_shift(rs_car *car, int target, double forward_speed)
{
    const rs_car_params_data *def = &car->params->def;
    if (target < -1 || target > (int)def->gears || target == car->shift_target)
        return;
    /* Reverse and forward gears only engage when (nearly) stopped: a real
     * gearbox refuses, and so do we. */
    if ((target < 0 && forward_speed > 1.0) ||
        (target > 0 && car->gear < 0 && forward_speed < -1.0))
        return;
    car->shift_target = target;
    car->gear = 0;
    car->shift_timer_s = def->shift_time_s;
    car->shift_cooldown_s = def->shift_time_s + 0.3;
    if (car->shift_timer_s <= 0.0)
        car->gear = target;
}

static double forward_speed(const rs_car *car)
{
    double m[9], vb[3];
    quat_matrix(car->q, m);
    mat_tmul(m, car->vel, vb);
    return vb[0];
}

/* Automatic gearbox (docs/PHYSICS.md, "Drivetrain"): separate up and down
 * shift points that move with throttle, with hysteresis so it never hunts
 * between two gears. */
static void auto_gearbox(rs_car *car, double fwd)
{
    const rs_car_params_data *def = &car->params->def;
    int g = car->gear;
    if (car->auto_mode_gear != 1) {
        start_shift(car, car->auto_mode_gear, fwd);
        return;
    }
    if (car->shift_timer_s > 0.0 || car->shift_cooldown_s > 0.0)
        return;
    if (g <= 0) {
        start_shift(car, 1, fwd);
        return;
    }
    /* Decide on road speed, not driven-wheel speed: wheelspin must not
     * shift the box up (a spinning car would end up in top gear at rest). */
    double thr = car->input.throttle / (double)RS_PEDAL_MAX;
    double radius = car->derived.rolling_radius_m;
    double rpm = fwd / radius * rs_gear_ratio(def, g) * RS_RPM_PER_RAD_S;
    double up = def->idle_rpm + (def->upshift_rpm - def->idle_rpm) * (0.35 + 0.65 * thr);
    double down = def->idle_rpm + (def->downshift_rpm - def->idle_rpm) * (0.5 + 0.5 * thr);
    if (g < (int)def->gears && rpm >= up) {
        double after = rpm * def->gear_ratio[g] / def->gear_ratio[g - 1];
        if (after >= down * 1.05)
            start_shift(car, g + 1, fwd);
    } else if (g > 1 && rpm <= down) {
        double after = rpm * def->gear_ratio[g - 2] / def->gear_ratio[g - 1];
        if (after <= up * 0.95)
            start_shift(car, g - 1, fwd);
    }
}

void rs_car_tick_input(rs_car *car, double tick_dt)
{
    const rs_input *in = &car->input;
    uint8_t pressed = (uint8_t)(in->buttons & ~car->prev_buttons);
    double fwd = forward_speed(car);
    (void)tick_dt;

    if (car->transmission == RS_TRANSMISSION_MANUAL) {
        int target = car->shift_target;
        if (in->gear != RS_GEAR_KEEP)
            target = in->gear;
        else if (pressed & RS_BUTTON_SHIFT_UP)
            target = car->shift_target + 1;
        else if (pressed & RS_BUTTON_SHIFT_DOWN)
            target = car->shift_target - 1;
        start_shift(car, target, fwd);
    } else {
        if (in->gear != RS_GEAR_KEEP)
            car->auto_mode_gear = in->gear > 0 ? 1 : in->gear;
        auto_gearbox(car, fwd);
    }
    car->prev_buttons = in->buttons;

    /* Steering geometry changes only with the input: once per tick. */
    double steer_ref = in->steer / (double)RS_STEER_MAX * car->derived.steer_ref_max_rad;
    for (int i = 0; i < 4; i++) {
        car->steer_rad[i] = wheel_steer(car, i, steer_ref);
        rs_sincos(car->steer_rad[i], &car->steer_sin[i], &car->steer_cos[i]);
    }
}

/* --------------------------------------------------------------- substep */

/* Everything one wheel contributes in a substep. */
typedef struct wheel_frame {
    double lever[3];   /* mount point (with travel) relative to CG, world */
    double n[3], lng[3], lat[3];
    double vx, vy;
    double fz;
    double fx, fy;     /* final forces this substep */
    double a, b;       /* kappa+ = a + b * omega+ */
    double f, g;       /* Fx+ = f + g * omega+ */
    double re;
    double kappa_lim, alpha_lim;
    double peak_x, peak_y; /* friction bound on the final forces */
    rs_tire_out t;
    int grounded;
} wheel_frame;

/* Weight of the carcass damper, 1 .. 0. The damper works only while the
 * contact patch sticks: once a patch slides at speed its deflection stops
 * changing, so a sliding tyre gets no damping force on top of friction
 * (otherwise a braked wheel creeps towards lock-up for seconds, braking
 * harder than its friction allows). Below VXLOW, and blending out by twice
 * that, the damper stays fully on: a parked car must not rock on its tyres,
 * which it would as pitch modulates the load-dependent slip stiffness. */
static double carcass_damping_weight(double force, double peak, double vx, double v_low)
{
    double u = peak > 0.0 ? 1.0 - rs_abs(force) / peak : 0.0;
    if (u < 0.0)
        u = 0.0;
    double s = rs_abs(vx) / v_low;
    if (s <= 1.0)
        return 1.0;
    if (s < 2.0)
        return u + (1.0 - u) * (2.0 - s);
    return u;
}

static double tire_vlow(const rs_tire_params *tp) { return tp->vxlow > 0.1 ? tp->vxlow : 1.0; }

static double wheel_steer(const rs_car *car, int i, double steer_ref)
{
    const rs_car_params_data *def = &car->params->def;
    const rs_axle_params *a = axle_of(def, i);
    double toe = is_left(i) ? -a->toe_rad : a->toe_rad;
    if (a->steer_max_rad <= 0.0 || steer_ref == 0.0)
        return toe;
    /* Ackermann: each front wheel points at the turn centre on the rear-axle
     * line; the ackermann factor blends from parallel (0) to full (1). */
    double L = car->derived.wheelbase_m;
    double r = L / rs_tan(rs_abs(steer_ref));
    int inside = (steer_ref > 0.0) == is_left(i);
    double half = 0.5 * a->track_m;
    double ack = rs_atan(L / (inside ? r - half : r + half));
    double mag = rs_abs(steer_ref) + def->ackermann * (ack - rs_abs(steer_ref));
    return (steer_ref > 0.0 ? mag : -mag) + toe;
}

static void wheel_kinematics(rs_car *car, const rs_world_def *world, const double R[9],
                             const double w_world[3], int i, wheel_frame *wf)
{
    const rs_car_params_data *def = &car->params->def;
    const rs_tire_params *tp = &axle_of(def, i)->tire;
    rs_wheel *wh = &car->wheel[i];
    double local[3] = {car->derived.mount[i][0], car->derived.mount[i][1],
                       car->derived.mount[i][2] + wh->travel_m};
    double centre[3], v[3], zb[3] = {R[2], R[5], R[8]};
    rs_ground_hit hit;

    mat_mul(R, local, wf->lever);
    for (int j = 0; j < 3; j++)
        centre[j] = car->pos[j] + wf->lever[j];
    cross3(w_world, wf->lever, v);
    for (int j = 0; j < 3; j++)
        v[j] += car->vel[j] + zb[j] * wh->travel_v;

    ground_at(world, centre[0], centre[1], &hit);
    for (int j = 0; j < 3; j++)
        wf->n[j] = hit.normal[j];
    wh->surface = hit.surface;
    wh->inside_limits = hit.inside_limits;

    /* Tyre as a radial spring-damper against the ground plane. */
    double dist = (centre[2] - hit.height_m) * wf->n[2];
    double deflection = tp->unloaded_radius - dist;
    double fz = 0.0;
    if (deflection > 0.0)
        fz = tp->vertical_stiffness * deflection - tp->vertical_damping * dot3(v, wf->n);
    wf->fz = fz > 0.0 ? fz : 0.0;
    wf->grounded = deflection > 0.0;

    /* Wheel heading and spin axis (ISO-W: x along heading, y left). */
    double cs = car->steer_cos[i], sn = car->steer_sin[i];
    double cg = car->derived.camber_cos[i], sg = car->derived.camber_sin[i];
    double head_b[3] = {cs, sn, 0.0}, axis_b[3] = {-sn * cg, cs * cg, sg};
    double head[3], axis[3];
    mat_mul(R, head_b, head);
    mat_mul(R, axis_b, axis);
    double hn = dot3(head, wf->n);
    for (int j = 0; j < 3; j++)
        wf->lng[j] = head[j] - hn * wf->n[j];
    double len = rs_sqrt(dot3(wf->lng, wf->lng));
    for (int j = 0; j < 3; j++)
        wf->lng[j] /= len;
    cross3(wf->n, wf->lng, wf->lat);
    wf->vx = dot3(v, wf->lng);
    wf->vy = dot3(v, wf->lat);
    wh->steer = car->steer_rad[i];
    wh->camber = rs_asin(rs_clamp(dot3(axis, wf->n), -1.0, 1.0));
}

/* What wheel i's tyre is given: its load, slips, camber and speeds. A .tir
 * describes a tyre as mounted on the left; on the right it is mirrored
 * (lateral slip, camber and the lateral outputs change sign, as ADAMS/MFeval
 * do with TYRESIDE), so ply-steer and conicity offsets cancel across the axle
 * and a symmetric car runs straight. */
static void tire_input(const rs_car *car, const rs_world_def *world, int i, const wheel_frame *wf,
                       rs_tire_in *in)
{
    const rs_wheel *wh = &car->wheel[i];
    int mirror = !is_left(i);
    in->fz_n = wf->fz;
    in->kappa = wh->kappa;
    in->tan_alpha = mirror ? -wh->tan_alpha : wh->tan_alpha;
    in->gamma_rad = mirror ? -wh->camber : wh->camber;
    in->vx_m_s = wf->vx;
    in->omega_rad_s = wh->omega;
    in->grip_scale = world->surfaces[wh->surface].grip_scale;
    in->mode = RS_TIRE_TRANSIENT;
    in->want_moments = 0; /* rs_tire_eval4 takes the mode and moments once for all four */
}

/* Wheel i's share of the tyre forces at the current transient slips (wf->t
 * holds the tyre's outputs), and its linear implicit spin response (see
 * drivetrain.h). */
static void wheel_tire(rs_car *car, const rs_world_def *world, int i, double dt, int first,
                       double brake_nm, wheel_frame *wf, rs_wheel_response *resp)
{
    const rs_axle_params *a = axle_of(&car->params->def, i);
    const rs_tire_params *tp = &a->tire;
    rs_wheel *wh = &car->wheel[i];
    double iw = a->wheel_inertia_kg_m2;

    if (!is_left(i)) {
        /* d(-Fy(-a))/da = Fy'(-a): the slope keeps its sign. */
        wf->t.fy = -wf->t.fy;
        wf->t.mz = -wf->t.mz;
        wf->t.mx = -wf->t.mx;
    }
    if (first)
        wh->mz = wf->t.mz;
    else
        wf->t.mz = wh->mz;
    wf->re = wf->t.re_m > 0.05 ? wf->t.re_m : 0.05;

    double friction = brake_nm + rs_abs(wf->t.my) +
                      world->surfaces[wh->surface].rolling_drag_coef * wf->fz * wf->re;
    resp->friction_nm = friction;

    if (!wf->grounded || wf->fz <= 0.0) {
        /* In the air: no tyre force; the deflections relax away. */
        wf->a = wh->kappa / (1.0 + 20.0 * dt), wf->b = 0.0;
        wf->f = 0.0, wf->g = 0.0;
        wf->kappa_lim = wf->alpha_lim = 1e9;
        wf->peak_x = wf->peak_y = 0.0;
        resp->p = wh->omega;
        resp->q = dt / iw;
        return;
    }

    /* Relaxation ODE sigma dk/dt = (omega Re - Vx) - |Vx| k, implicit:
     * k+ = a + b omega+ (docs/TYRES.md, "Low speed and relaxation"; Pacejka
     * 7.2). */
    double sigma = wf->t.sigma_kappa_m > 0.01 ? wf->t.sigma_kappa_m : 0.01;
    double vabs = rs_abs(wf->vx);
    double D = 1.0 + dt * vabs / sigma;
    wf->a = (wh->kappa - dt * wf->vx / sigma) / D;
    wf->b = dt * wf->re / (sigma * D);

    /* Fx linearised in kappa with the tyre's own slope (never negative: a
     * falling slope is the real wheel-spin instability, handled explicitly),
     * plus low-speed damping of the relaxation spring. */
    double slope = wf->t.dfx_dkappa > 0.0 ? wf->t.dfx_dkappa : 0.0;
    double m_corner = wf->fz / GRAVITY;
    double cx = 2.0 * CARCASS_DAMPING_RATIO * rs_sqrt(rs_abs(wf->t.kxk) / sigma * m_corner) *
                carcass_damping_weight(wf->t.fx, wf->t.mux * wf->fz, wf->vx, tire_vlow(tp));
    wf->f = wf->t.fx + slope * (wf->a - wh->kappa) + cx * (-wf->vx - vabs * wh->kappa);
    wf->g = slope * wf->b + cx * wf->re;

    double m = iw / dt + wf->re * wf->g;
    resp->p = (iw * wh->omega / dt - wf->re * wf->f) / m;
    resp->q = 1.0 / m;

    /* At low speed the transient slip is the tyre's deflection: cap it where
     * the tyre saturates so it slides instead of winding up without bound. */
    double peak_x = wf->t.mux * wf->fz, peak_y = wf->t.muy * wf->fz;
    /* The linearised force and the carcass damping may never exceed what
     * friction can give: the bound is the tyre's peak, or the formula's own
     * force where its offsets put it above the peak. */
    wf->peak_x = rs_max(peak_x, rs_abs(wf->t.fx));
    wf->peak_y = rs_max(peak_y, rs_abs(wf->t.fy));
    if (vabs < 2.0 * tire_vlow(tp)) {
        wf->kappa_lim = 3.0 * peak_x / (rs_abs(wf->t.kxk) + 1.0);
        wf->alpha_lim = 3.0 * peak_y / (rs_abs(wf->t.kya) + 1.0);
    } else {
        wf->kappa_lim = tp->kpumax > -tp->kpumin ? tp->kpumax : -tp->kpumin;
        wf->alpha_lim = tp->tan_alpmax > -tp->tan_alpmin ? tp->tan_alpmax : -tp->tan_alpmin;
    }
}

static void lateral_slip(rs_car *car, int i, double dt, wheel_frame *wf)
{
    const rs_tire_params *tp = &axle_of(&car->params->def, i)->tire;
    rs_wheel *wh = &car->wheel[i];
    if (!wf->grounded || wf->fz <= 0.0) {
        wh->tan_alpha /= 1.0 + 20.0 * dt;
        wf->fy = 0.0;
        return;
    }
    /* sigma d(tan a)/dt = Vy - |Vx| tan a, implicit in the decay term. */
    double sigma = wf->t.sigma_alpha_m > 0.01 ? wf->t.sigma_alpha_m : 0.01;
    double vabs = rs_abs(wf->vx);
    double next = (wh->tan_alpha + dt * wf->vy / sigma) / (1.0 + dt * vabs / sigma);
    next = rs_clamp(next, -wf->alpha_lim, wf->alpha_lim);
    double slope = wf->t.dfy_dalpha < 0.0 ? wf->t.dfy_dalpha : 0.0;
    double cy = 2.0 * CARCASS_DAMPING_RATIO *
                rs_sqrt(rs_abs(wf->t.kya) / sigma * (wf->fz / GRAVITY)) *
                carcass_damping_weight(wf->t.fy, wf->t.muy * wf->fz, wf->vx, tire_vlow(tp));
    double fy = wf->t.fy + slope * (next - wh->tan_alpha) - cy * (wf->vy - vabs * wh->tan_alpha);
    wf->fy = rs_clamp(fy, -wf->peak_y, wf->peak_y);
    wh->tan_alpha = next;
}

static double suspension_force(const rs_axle_params *a, double preload, double travel, double v,
                               double other_travel)
{
    double f = preload + a->spring_n_m * travel;
    f += (v > 0.0 ? a->damper_bump_n_s_m : a->damper_rebound_n_s_m) * v;
    if (travel > a->bump_travel_m)
        f += a->bump_stop_n_m * (travel - a->bump_travel_m);
    else if (travel < -a->droop_travel_m)
        f += a->bump_stop_n_m * (travel + a->droop_travel_m);
    return f + a->arb_n_m * (travel - other_travel);
}

/* The forces and torques on the body in one substep, body frame. Each stage
 * adds its share in a fixed order: the sums must round the same everywhere. */
typedef struct body_load {
    double force[3], torque[3];
} body_load;

/* What the engine, clutch and driveline did in one substep. */
typedef struct drive_step {
    rs_driveline_out out;
    double engine_nm;
    double engagement;
} drive_step;

/* 1-2: kinematics, loads, tyre forces, spin responses. */
static void wheels_and_tires(rs_car *car, const rs_world_def *world, const double R[9],
                             const double w_world[3], double dt, int first, wheel_frame wf[4],
                             rs_wheel_response resp[4])
{
    const rs_car_params_data *def = &car->params->def;
    const rs_input *in = &car->input;
    double brake = in->brake / (double)RS_PEDAL_MAX;
    double handbrake = in->handbrake / (double)RS_PEDAL_MAX;
    rs_tire_in tin[4];
    rs_tire_out tout[4];
    for (int i = 0; i < 4; i++) {
        wheel_kinematics(car, world, R, w_world, i, &wf[i]);
        tire_input(car, world, i, &wf[i], &tin[i]);
    }
    /* The four tyres in one four-lane evaluation, each lane bit-identical to
     * rs_tire_eval. The aligning moment (a small yaw torque on the body) is
     * evaluated on the tick's first substep and held: it costs as much as
     * the forces. */
    rs_tire_eval4(&car->params->tire_lanes, tin, RS_TIRE_TRANSIENT, first, tout);
    for (int i = 0; i < 4; i++) {
        const rs_axle_params *a = axle_of(def, i);
        double bnm = 0.5 * def->brake_max_nm * a->brake_share * brake;
        if (i >= 2)
            bnm += 0.5 * def->handbrake_max_nm * handbrake;
        wf[i].t = tout[i];
        wheel_tire(car, world, i, dt, first, bnm, &wf[i], &resp[i]);
    }
}

/* The clutch, 0 open .. 1 engaged: open during a shift; in manual mode the
 * driver's pedal, else closing with engine speed from the bite point. */
static double clutch_engagement(const rs_car *car, int shifting)
{
    const rs_car_derived *derived = &car->derived;
    if (car->clutch_mode == RS_CLUTCH_MANUAL)
        return shifting ? 0.0 : 1.0 - car->input.clutch / (double)RS_PEDAL_MAX;
    if (shifting)
        return 0.0;
    return rs_clamp((car->omega_e - derived->engage_start_rad_s) /
                        (derived->engage_full_rad_s - derived->engage_start_rad_s),
                    0.0, 1.0);
}

/* 3: engine torque and the driveline solved with the wheels' spin
 * responses. */
static void drivetrain_step(const rs_car *car, double dt, const rs_wheel_response resp[4],
                            drive_step *ds)
{
    const rs_car_params_data *def = &car->params->def;
    double throttle = car->input.throttle / (double)RS_PEDAL_MAX;
    int shifting = car->shift_timer_s > 0.0;
    double thr_eff = shifting ? 0.0 : throttle;
    double idle = rs_idle_throttle(def, car->omega_e);
    if (idle > thr_eff)
        thr_eff = idle;
    ds->engine_nm = rs_engine_torque(def, car->omega_e, thr_eff);
    ds->engagement = clutch_engagement(car, shifting);

    rs_driveline_in dl;
    dl.dt = dt;
    dl.omega_e = car->omega_e;
    dl.engine_nm = ds->engine_nm;
    dl.ratio = rs_gear_ratio(def, car->gear);
    dl.clutch_nm = ds->engagement * def->clutch_max_nm;
    dl.lsd_prev_nm = car->drive_prev_nm;
    dl.driven[0] = car->derived.driven[0];
    dl.driven[1] = car->derived.driven[1];
    rs_driveline_solve(def, &dl, resp, &ds->out);
}

/* 3-4: the solved wheel spins give the longitudinal forces and slips; then
 * each wheel's lateral transient slip. Returns the power at the hubs. */
static double wheel_spin(rs_car *car, double dt, const rs_driveline_out *out, wheel_frame wf[4])
{
    double hub_power = 0.0;
    for (int i = 0; i < 4; i++) {
        rs_wheel *wh = &car->wheel[i];
        double w = out->omega[i];
        wf[i].fx = rs_clamp(wf[i].f + wf[i].g * w, -wf[i].peak_x, wf[i].peak_x);
        wh->kappa = rs_clamp(wf[i].a + wf[i].b * w, -wf[i].kappa_lim, wf[i].kappa_lim);
        wh->omega = w;
        hub_power += out->drive_nm[i] * w;
        /* 4: lateral transient slip. */
        lateral_slip(car, i, dt, &wf[i]);
    }
    return hub_power;
}

/* 5a: tyre force components in the body's x-y plane go to the body at
 * roll-centre height; along body z they load the wheel (*fwheel_z). */
static void tire_forces_on_body(const rs_car *car, const double R[9], const wheel_frame wf[4],
                                double fwheel_z[4], body_load *load)
{
    const rs_car_derived *derived = &car->derived;
    for (int i = 0; i < 4; i++) {
        double ft[3], fb[3];
        for (int j = 0; j < 3; j++)
            ft[j] = wf[i].fx * wf[i].lng[j] + wf[i].fy * wf[i].lat[j] + wf[i].fz * wf[i].n[j];
        mat_tmul(R, ft, fb);
        fwheel_z[i] = fb[2];
        double p[3] = {derived->mount[i][0], derived->mount[i][1], derived->rc_z[i]};
        double fxy[3] = {fb[0], fb[1], 0.0}, tq[3];
        cross3(p, fxy, tq);
        load->force[0] += fb[0], load->force[1] += fb[1];
        for (int j = 0; j < 3; j++)
            load->torque[j] += tq[j];
        /* Aligning moment about the ground normal reaches the body through
         * the steering. */
        double mz_w[3] = {wf[i].t.mz * wf[i].n[0], wf[i].t.mz * wf[i].n[1],
                          wf[i].t.mz * wf[i].n[2]};
        double mz_b[3];
        mat_tmul(R, mz_w, mz_b);
        for (int j = 0; j < 3; j++)
            load->torque[j] += mz_b[j];
    }
}

/* 5a: wheel i's travel rate, implicit in the dampers (suspension and
 * tyre), under fwheel_z (the tyre's force along body z) and gravity gb_z;
 * returns the suspension force at the new rate. */
static double suspension_travel(rs_car *car, int i, double dt, double gb_z,
                                const wheel_frame *wf, double fwheel_z)
{
    const rs_axle_params *a = axle_of(&car->params->def, i);
    double preload = car->derived.preload_n[i];
    rs_wheel *wh = &car->wheel[i];
    double mu = a->unsprung_mass_kg;
    double other = car->wheel[i ^ 1].travel_m;
    double c = wh->travel_v > 0.0 ? a->damper_bump_n_s_m : a->damper_rebound_n_s_m;
    double ct = wf->grounded ? a->tire.vertical_damping : 0.0;
    /* Implicit in the dampers (suspension and tyre): F(v+) = F0 - c v+. */
    double f_now = fwheel_z - suspension_force(a, preload, wh->travel_m, wh->travel_v, other) +
                   mu * gb_z;
    double f0 = f_now + (c + ct) * wh->travel_v;
    double v_next = (wh->travel_v + dt * f0 / mu) / (1.0 + dt * (c + ct) / mu);
    double f = suspension_force(a, preload, wh->travel_m, v_next, other);
    wh->travel_v = v_next;
    return f;
}

/* 5a: the suspension forces on the body at the mounts; then the travel
 * moves and the wheels' telemetry is kept. */
static void suspension_on_body(rs_car *car, double dt, const wheel_frame wf[4],
                               const double fsusp[4], body_load *load)
{
    const rs_car_derived *derived = &car->derived;
    for (int i = 0; i < 4; i++) {
        rs_wheel *wh = &car->wheel[i];
        double f[3] = {0.0, 0.0, fsusp[i]}, tq[3];
        double p[3] = {derived->mount[i][0], derived->mount[i][1],
                       derived->mount[i][2] + wh->travel_m};
        cross3(p, f, tq);
        load->force[2] += fsusp[i];
        for (int j = 0; j < 3; j++)
            load->torque[j] += tq[j];
        wh->travel_m += dt * wh->travel_v;
        wh->fz = wf[i].fz, wh->fx = wf[i].fx, wh->fy = wf[i].fy;
        wh->grounded = (uint8_t)wf[i].grounded;
    }
}

/* Aerodynamics: drag at the centre of pressure, downforce at each axle. */
static void aero_on_body(const rs_car *car, const double R[9], body_load *load)
{
    const rs_car_params_data *def = &car->params->def;
    double vb[3];
    mat_tmul(R, car->vel, vb);
    double speed = rs_sqrt(dot3(vb, vb));
    double q_dyn = 0.5 * def->air_density_kg_m3;
    double drag = q_dyn * def->drag_cd_a_m2 * speed;
    double fd[3] = {-drag * vb[0], -drag * vb[1], -drag * vb[2]};
    double cp[3] = {0.0, 0.0, car->derived.cp_z};
    double tq[3];
    cross3(cp, fd, tq);
    for (int j = 0; j < 3; j++)
        load->force[j] += fd[j], load->torque[j] += tq[j];
    double vx2 = vb[0] * vb[0];
    double down_f = q_dyn * def->lift_front_cl_a_m2 * vx2;
    double down_r = q_dyn * def->lift_rear_cl_a_m2 * vx2;
    load->force[2] -= down_f + down_r;
    /* r x (0,0,-F): +x*F about y */
    load->torque[1] += down_f * def->axle[0].x_m + down_r * def->axle[1].x_m;
}

/* Gravity: total mass in x-y, sprung mass along z (the unsprung weight is
 * carried by the wheels' own travel DOFs). gb is gravity in the body frame. */
static void gravity_on_body(const rs_car *car, const double gb[3], body_load *load)
{
    double mass = car->params->def.mass_kg;
    load->force[0] += mass * gb[0];
    load->force[1] += mass * gb[1];
    load->force[2] += car->derived.sprung_mass_kg * gb[2];
}

/* 5b: body, semi-implicit Euler. */
static void integrate_body(rs_car *car, const double R[9], double dt, const body_load *load)
{
    const rs_car_derived *derived = &car->derived;
    double mass = car->params->def.mass_kg;
    const double *force = load->force;
    double acc_b[3] = {force[0] / mass, force[1] / mass, force[2] / derived->sprung_mass_kg};
    double acc[3];
    mat_mul(R, acc_b, acc);
    for (int j = 0; j < 3; j++) {
        car->vel[j] += dt * acc[j];
        car->pos[j] += dt * car->vel[j];
    }
    double dw[3];
    mat_mul(derived->inv_inertia, load->torque, dw);
    for (int j = 0; j < 3; j++)
        car->w[j] += dt * dw[j];
    gyroscopic_implicit(derived->inertia, dt, car->w);
    double *q = car->q, wx = car->w[0], wy = car->w[1], wz = car->w[2];
    double h = 0.5 * dt;
    double nq[4] = {q[0] + h * (-q[1] * wx - q[2] * wy - q[3] * wz),
                    q[1] + h * (q[0] * wx + q[2] * wz - q[3] * wy),
                    q[2] + h * (q[0] * wy + q[3] * wx - q[1] * wz),
                    q[3] + h * (q[0] * wz + q[1] * wy - q[2] * wx)};
    double inv = 1.0 / rs_sqrt(nq[0] * nq[0] + nq[1] * nq[1] + nq[2] * nq[2] + nq[3] * nq[3]);
    for (int j = 0; j < 4; j++)
        q[j] = nq[j] * inv;
}

/* Drivetrain state and timers, and the substep's drivetrain telemetry. */
static void drivetrain_state(rs_car *car, double dt, const drive_step *ds, double hub_power)
{
    car->omega_e = ds->out.omega_e > 0.0 ? ds->out.omega_e : 0.0;
    car->drive_prev_nm = ds->out.wheel_side_nm;
    if (car->shift_timer_s > 0.0) {
        car->shift_timer_s -= dt;
        if (car->shift_timer_s <= 0.0) {
            car->shift_timer_s = 0.0;
            car->gear = car->shift_target;
        }
    }
    if (car->shift_cooldown_s > 0.0) {
        car->shift_cooldown_s -= dt;
        if (car->shift_cooldown_s < 0.0)
            car->shift_cooldown_s = 0.0;
    }
    car->engine_nm = ds->engine_nm;
    car->clutch_engagement = ds->engagement;
    car->drive_power_w = hub_power;
}

void rs_car_substep(rs_car *car, const rs_world_def *world, double dt, int first)
{
    double R[9], w_world[3], gb[3], gw[3] = {0.0, 0.0, -GRAVITY};
    body_load load = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    wheel_frame wf[4];
    rs_wheel_response resp[4];
    drive_step ds;
    double fwheel_z[4], fsusp[4];

    quat_matrix(car->q, R);
    mat_mul(R, car->w, w_world);
    mat_tmul(R, gw, gb);

    /* The stages in the order the top of this file gives, and why. */
    wheels_and_tires(car, world, R, w_world, dt, first, wf, resp);
    drivetrain_step(car, dt, resp, &ds);
    double hub_power = wheel_spin(car, dt, &ds.out, wf);
    tire_forces_on_body(car, R, wf, fwheel_z, &load);
    for (int i = 0; i < 4; i++)
        fsusp[i] = suspension_travel(car, i, dt, gb[2], &wf[i], fwheel_z[i]);
    suspension_on_body(car, dt, wf, fsusp, &load);
    aero_on_body(car, R, &load);
    gravity_on_body(car, gb, &load);
    integrate_body(car, R, dt, &load);
    drivetrain_state(car, dt, &ds, hub_power);
}

/* ------------------------------------------------------------- queries */

static int finite(double x) { return x == x && x - x == 0.0; }

int rs_car_finite(const rs_car *car)
{
    for (int j = 0; j < 3; j++)
        if (!finite(car->pos[j]) || !finite(car->vel[j]) || !finite(car->w[j]))
            return 0;
    for (int j = 0; j < 4; j++)
        if (!finite(car->q[j]))
            return 0;
    for (int i = 0; i < 4; i++) {
        const rs_wheel *w = &car->wheel[i];
        if (!finite(w->travel_m) || !finite(w->travel_v) || !finite(w->omega) ||
            !finite(w->kappa) || !finite(w->tan_alpha))
            return 0;
    }
    return finite(car->omega_e) && finite(car->shift_timer_s) && finite(car->shift_cooldown_s) &&
           finite(car->drive_prev_nm);
}

void rs_car_observe(const rs_car *car, rs_car_state *out)
{
    double R[9], vb[3];
    quat_matrix(car->q, R);
    *out = (rs_car_state){0};
    for (int j = 0; j < 3; j++)
        out->pos_m[j] = car->pos[j], out->vel_m_s[j] = car->vel[j];
    for (int j = 0; j < 4; j++)
        out->quat[j] = car->q[j];
    mat_mul(R, car->w, out->angvel_rad_s);
    mat_tmul(R, car->vel, vb);
    out->speed_m_s = rs_sqrt(dot3(car->vel, car->vel));
    out->forward_speed_m_s = vb[0];
    out->yaw_rad = rs_atan2(R[3], R[0]);
    out->engine_rpm = car->omega_e * RS_RPM_PER_RAD_S;
    out->engine_torque_nm = car->engine_nm;
    out->clutch_engagement = car->clutch_engagement;
    out->gear = car->shift_timer_s > 0.0 ? car->shift_target : car->gear;
    out->shifting = car->shift_timer_s > 0.0;
    out->drive_power_w = car->drive_power_w;
    for (int i = 0; i < 4; i++) {
        const rs_wheel *w = &car->wheel[i];
        rs_wheel_state *o = &out->wheels[i];
        o->load_n = w->fz, o->fx_n = w->fx, o->fy_n = w->fy, o->mz_nm = w->mz;
        o->slip_ratio = w->kappa;
        o->slip_angle_rad = rs_atan(w->tan_alpha);
        o->omega_rad_s = w->omega;
        o->travel_m = w->travel_m;
        o->steer_rad = w->steer;
        o->camber_rad = w->camber;
        o->surface = w->surface;
        o->grounded = w->grounded != 0;
        o->inside_limits = w->inside_limits != 0;
    }
}
