/*
 * One substep of the vehicle model (car.h, docs/PHYSICS.md), with the four
 * wheels in four lanes (v4.h): lane i is wheel i (FL FR RL RR).
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
 *
 * Bits: every wheel does the same arithmetic with its own numbers, so the
 * wheels' stages run in lanes, each lane performing exactly the operations
 * of the one-wheel formula written beside it, in the same order (v4.h's
 * rules: selects for branches, no min/max, no FMA). What couples the wheels
 * stays scalar and in wheel order: the ground lookups, the driveline solve,
 * and the sums of the wheels' forces and torques on the body, which are
 * added one wheel after the other exactly as a loop over the wheels would.
 * This file is compiled twice (car_step_avx2.c); both copies give the same
 * bits, and the cross check's SSE2-only build proves the narrow path agrees.
 */
#include <string.h>

#include "car_internal.h"
#include "detmath.h"
#include "detmath4.h"
#include "drivetrain.h"
#include "tire4.h"
#include "v4.h"

/* car_step_avx2.c compiles this file again for AVX2 under other names. */
#ifndef RS_CAR_SUBSTEP
#define RS_CAR_SUBSTEP rs_car_substep_base
#define RS_CAR_TIRE4 rs_tire_eval4_base
#define RS_CAR_STEP_DISPATCH 1
#endif

/* Carcass damping of the tyre's relaxation spring (stiffness K/sigma
 * against the corner mass), as a fraction of critical. It acts on the
 * deflection rate sigma * d(slip)/dt, so it is zero in steady state; it keeps
 * a parked car from ringing on its tyres and damps the lateral-roll mode that
 * the relaxation spring and camber would otherwise excite at walking pace. */
#define CARCASS_DAMPING_RATIO 0.6

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

/* ------------------------------------------------------------ lane helpers */

static inline rs_v4 zero(void) { return rs_v4_splat(0.0); }
static inline rs_v4 one(void) { return rs_v4_splat(1.0); }

/* A field of the four wheels' state, and a per-wheel array. */
#define WHEELS(car, field)                                                                     \
    rs_v4_set((car)->wheel[0].field, (car)->wheel[1].field, (car)->wheel[2].field,             \
              (car)->wheel[3].field)

static inline rs_v4 lanes(const double a[4])
{
    rs_v4 v;
    memcpy(&v, a, sizeof v);
    return v;
}

static inline void unlanes(rs_v4 v, double a[4]) { memcpy(a, &v, sizeof v); }

/* m * v and m^T * v for a vector of lanes (the same sums as mat_mul and
 * mat_tmul, m splat). */
static inline void mat_mul4(const double m[9], const rs_v4 v[3], rs_v4 out[3])
{
    rs_v4 x = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
    rs_v4 y = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
    rs_v4 z = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];
    out[0] = x, out[1] = y, out[2] = z;
}

static inline void mat_tmul4(const double m[9], const rs_v4 v[3], rs_v4 out[3])
{
    rs_v4 x = m[0] * v[0] + m[3] * v[1] + m[6] * v[2];
    rs_v4 y = m[1] * v[0] + m[4] * v[1] + m[7] * v[2];
    rs_v4 z = m[2] * v[0] + m[5] * v[1] + m[8] * v[2];
    out[0] = x, out[1] = y, out[2] = z;
}

static inline rs_v4 dot4(const rs_v4 a[3], const rs_v4 b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross4(const rs_v4 a[3], const rs_v4 b[3], rs_v4 out[3])
{
    rs_v4 x = a[1] * b[2] - a[2] * b[1];
    rs_v4 y = a[2] * b[0] - a[0] * b[2];
    rs_v4 z = a[0] * b[1] - a[1] * b[0];
    out[0] = x, out[1] = y, out[2] = z;
}

/* --------------------------------------------------------------- the wheels */

/* The wheels' state through a substep, in lanes; written back at its end
 * (nothing outside the wheels' stages reads it in between). */
typedef struct wheel_state {
    rs_v4 travel_m, travel_v, omega, kappa, tan_alpha, mz;
    rs_v4 camber; /* telemetry */
} wheel_state;

/* Everything the wheels contribute in a substep, in lanes. */
typedef struct wheel_frame {
    rs_v4 lever[3];        /* mount point (with travel) relative to CG, world */
    rs_v4 n[3], lng[3], lat[3];
    rs_v4 vx, vy;
    rs_v4 fz;
    rs_v4 fx, fy;          /* final forces this substep */
    rs_v4 a, b;            /* kappa+ = a + b * omega+ */
    rs_v4 f, g;            /* Fx+ = f + g * omega+ */
    rs_v4 re;
    rs_v4 kappa_lim, alpha_lim;
    rs_v4 peak_x, peak_y;  /* friction bound on the final forces */
    rs_v4m grounded;       /* the tyre touches the ground */
    rs_v4m air;            /* not grounded, or no load: no tyre force */
    /* The tyre's outputs the car uses, the right wheels' mirrored back. */
    struct {
        rs_v4 fx, fy, mz, my, sigma_kappa, sigma_alpha, kxk, kya, mux, muy, dfx, dfy;
    } t;
} wheel_frame;

/* Lanes 1 and 3: the right wheels. */
static inline rs_v4m right_wheels(void) { return (rs_v4m){0, -1, 0, -1}; }
/* Lanes 2 and 3: the rear wheels. */
static inline rs_v4m rear_wheels(void) { return (rs_v4m){0, 0, -1, -1}; }

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

/* Weight of the carcass damper, 1 .. 0. The damper works only while the
 * contact patch sticks: once a patch slides at speed its deflection stops
 * changing, so a sliding tyre gets no damping force on top of friction
 * (otherwise a braked wheel creeps towards lock-up for seconds, braking
 * harder than its friction allows). Below VXLOW, and blending out by twice
 * that, the damper stays fully on: a parked car must not rock on its tyres,
 * which it would as pitch modulates the load-dependent slip stiffness. */
static inline rs_v4 carcass_damping_weight(rs_v4 force, rs_v4 peak, rs_v4 vx, rs_v4 v_low)
{
    /* u = peak > 0 ? 1 - |force| / peak : 0, at least 0 */
    rs_v4 u = rs_v4_sel(rs_v4_gt(peak, zero()), 1.0 - rs_v4_abs(force) / peak, zero());
    u = rs_v4_sel(rs_v4_lt(u, zero()), zero(), u);
    rs_v4 s = rs_v4_abs(vx) / v_low;
    /* s <= 1: 1; s < 2: blend; else u */
    return rs_v4_sel(rs_v4_le(s, one()), one(),
                     rs_v4_sel(rs_v4_lt(s, rs_v4_splat(2.0)), u + (1.0 - u) * (2.0 - s), u));
}

/* 1: each wheel's lever, velocity, ground contact, load, frame and speeds. */
static void wheel_kinematics(rs_car *car, const rs_world_def *world, const double R[9],
                             const double w_world[3], wheel_state *ws, wheel_frame *wf)
{
    const rs_wheel_lanes *L = &car->params->wheel_lanes;
    const rs_car_derived *d = &car->derived;
    rs_v4 local[3] = {lanes(d->mount[0]), lanes(d->mount[1]), lanes(d->mount[2]) + ws->travel_m};
    rs_v4 ww[3] = {rs_v4_splat(w_world[0]), rs_v4_splat(w_world[1]), rs_v4_splat(w_world[2])};
    rs_v4 centre[3], v[3];
    const double zb[3] = {R[2], R[5], R[8]};

    mat_mul4(R, local, wf->lever);
    for (int j = 0; j < 3; j++)
        centre[j] = car->pos[j] + wf->lever[j];
    cross4(ww, wf->lever, v);
    for (int j = 0; j < 3; j++)
        v[j] += car->vel[j] + zb[j] * ws->travel_v;

    /* The ground under each wheel: one lookup each, in wheel order. */
    rs_ground_hit hit[4];
    for (int i = 0; i < 4; i++) {
        ground_at(world, centre[0][i], centre[1][i], &hit[i]);
        car->wheel[i].surface = hit[i].surface;
        car->wheel[i].inside_limits = hit[i].inside_limits;
    }
    for (int j = 0; j < 3; j++)
        wf->n[j] = rs_v4_set(hit[0].normal[j], hit[1].normal[j], hit[2].normal[j],
                             hit[3].normal[j]);
    rs_v4 height = rs_v4_set(hit[0].height_m, hit[1].height_m, hit[2].height_m, hit[3].height_m);

    /* Tyre as a radial spring-damper against the ground plane. */
    rs_v4 dist = (centre[2] - height) * wf->n[2];
    rs_v4 deflection = lanes(L->unloaded_radius) - dist;
    wf->grounded = rs_v4_gt(deflection, zero());
    rs_v4 fz = rs_v4_sel(wf->grounded,
                         lanes(L->vertical_stiffness) * deflection -
                             lanes(L->vertical_damping) * dot4(v, wf->n),
                         zero());
    wf->fz = rs_v4_sel(rs_v4_gt(fz, zero()), fz, zero());
    wf->air = ~wf->grounded | rs_v4_le(wf->fz, zero());

    /* Wheel heading and spin axis (ISO-W: x along heading, y left). */
    rs_v4 cs = lanes(car->steer_cos), sn = lanes(car->steer_sin);
    rs_v4 cg = lanes(d->camber_cos), sg = lanes(d->camber_sin);
    rs_v4 head_b[3] = {cs, sn, zero()}, axis_b[3] = {-sn * cg, cs * cg, sg};
    rs_v4 head[3], axis[3];
    mat_mul4(R, head_b, head);
    mat_mul4(R, axis_b, axis);
    rs_v4 hn = dot4(head, wf->n);
    for (int j = 0; j < 3; j++)
        wf->lng[j] = head[j] - hn * wf->n[j];
    rs_v4 len = rs_v4_sqrt(dot4(wf->lng, wf->lng));
    for (int j = 0; j < 3; j++)
        wf->lng[j] /= len;
    cross4(wf->n, wf->lng, wf->lat);
    wf->vx = dot4(v, wf->lng);
    wf->vy = dot4(v, wf->lat);
    ws->camber = rs_v4_asin(rs_v4_clamp(dot4(axis, wf->n), rs_v4_splat(-1.0), one()));
}

/* What each tyre is given: its load, slips, camber and speeds. A .tir
 * describes a tyre as mounted on the left; on the right it is mirrored
 * (lateral slip, camber and the lateral outputs change sign, as ADAMS/MFeval
 * do with TYRESIDE), so ply-steer and conicity offsets cancel across the axle
 * and a symmetric car runs straight. */
static void tire_inputs(const rs_car *car, const rs_world_def *world, const wheel_state *ws,
                        const wheel_frame *wf, rs_tire_in4 *in)
{
    rs_v4m right = right_wheels();
    unlanes(wf->fz, in->fz_n);
    unlanes(ws->kappa, in->kappa);
    unlanes(rs_v4_sel(right, -ws->tan_alpha, ws->tan_alpha), in->tan_alpha);
    unlanes(rs_v4_sel(right, -ws->camber, ws->camber), in->gamma_rad);
    unlanes(wf->vx, in->vx_m_s);
    unlanes(ws->omega, in->omega_rad_s);
    for (int i = 0; i < 4; i++)
        in->grip_scale[i] = world->surfaces[car->wheel[i].surface].grip_scale;
}

/* The tyres' outputs the car uses, the right wheels' lateral ones mirrored
 * back (d(-Fy(-a))/da = Fy'(-a): the slope keeps its sign). */
static void tire_outputs(const rs_tire_out4 *out, wheel_frame *wf)
{
    rs_v4m right = right_wheels();
    rs_v4 fy = lanes(out->fy), mz = lanes(out->mz);
    wf->t.fx = lanes(out->fx);
    wf->t.fy = rs_v4_sel(right, -fy, fy);
    wf->t.mz = rs_v4_sel(right, -mz, mz);
    wf->t.my = lanes(out->my);
    wf->re = lanes(out->re_m);
    wf->t.sigma_kappa = lanes(out->sigma_kappa_m);
    wf->t.sigma_alpha = lanes(out->sigma_alpha_m);
    wf->t.kxk = lanes(out->kxk);
    wf->t.kya = lanes(out->kya);
    wf->t.mux = lanes(out->mux);
    wf->t.muy = lanes(out->muy);
    wf->t.dfx = lanes(out->dfx_dkappa);
    wf->t.dfy = lanes(out->dfy_dalpha);
}

/* 2: each wheel's share of the tyre forces at the current transient slips,
 * and its linear implicit spin response (see drivetrain.h). */
static void wheel_tires(rs_car *car, const rs_world_def *world, double dt, int first,
                        wheel_state *ws, wheel_frame *wf, rs_wheel_response resp[4])
{
    const rs_car_params_data *def = &car->params->def;
    const rs_wheel_lanes *L = &car->params->wheel_lanes;
    const rs_input *in = &car->input;
    rs_v4 iw = lanes(L->inertia);
    rs_v4 kappa = ws->kappa, omega = ws->omega;

    if (first)
        ws->mz = wf->t.mz;
    else
        wf->t.mz = ws->mz;
    wf->re = rs_v4_sel(rs_v4_gt(wf->re, rs_v4_splat(0.05)), wf->re, rs_v4_splat(0.05));

    /* Brakes: each axle's share, the handbrake on the rear. */
    double brake = in->brake / (double)RS_PEDAL_MAX;
    double handbrake = in->handbrake / (double)RS_PEDAL_MAX;
    rs_v4 bnm = 0.5 * def->brake_max_nm * lanes(L->brake_share) * brake;
    bnm = rs_v4_sel(rear_wheels(), bnm + 0.5 * def->handbrake_max_nm * handbrake, bnm);
    rs_v4 drag = rs_v4_set(world->surfaces[car->wheel[0].surface].rolling_drag_coef,
                           world->surfaces[car->wheel[1].surface].rolling_drag_coef,
                           world->surfaces[car->wheel[2].surface].rolling_drag_coef,
                           world->surfaces[car->wheel[3].surface].rolling_drag_coef);
    rs_v4 friction = bnm + rs_v4_abs(wf->t.my) + drag * wf->fz * wf->re;

    /* Relaxation ODE sigma dk/dt = (omega Re - Vx) - |Vx| k, implicit:
     * k+ = a + b omega+ (docs/TYRES.md, "Low speed and relaxation"; Pacejka
     * 7.2). */
    rs_v4 sigma = rs_v4_sel(rs_v4_gt(wf->t.sigma_kappa, rs_v4_splat(0.01)), wf->t.sigma_kappa,
                            rs_v4_splat(0.01));
    rs_v4 vabs = rs_v4_abs(wf->vx);
    rs_v4 D = 1.0 + dt * vabs / sigma;
    rs_v4 a = (kappa - dt * wf->vx / sigma) / D;
    rs_v4 b = dt * wf->re / (sigma * D);

    /* Fx linearised in kappa with the tyre's own slope (never negative: a
     * falling slope is the real wheel-spin instability, handled explicitly),
     * plus low-speed damping of the relaxation spring. */
    rs_v4 slope = rs_v4_sel(rs_v4_gt(wf->t.dfx, zero()), wf->t.dfx, zero());
    rs_v4 m_corner = wf->fz / GRAVITY;
    rs_v4 vlow = lanes(L->vxlow);
    rs_v4 cx = 2.0 * CARCASS_DAMPING_RATIO * rs_v4_sqrt(rs_v4_abs(wf->t.kxk) / sigma * m_corner) *
               carcass_damping_weight(wf->t.fx, wf->t.mux * wf->fz, wf->vx, vlow);
    rs_v4 f = wf->t.fx + slope * (a - kappa) + cx * (-wf->vx - vabs * kappa);
    rs_v4 g = slope * b + cx * wf->re;

    rs_v4 m = iw / dt + wf->re * g;
    rs_v4 p = (iw * omega / dt - wf->re * f) / m;
    rs_v4 q = 1.0 / m;

    /* At low speed the transient slip is the tyre's deflection: cap it where
     * the tyre saturates so it slides instead of winding up without bound. */
    rs_v4 mu_x = wf->t.mux * wf->fz, mu_y = wf->t.muy * wf->fz;
    /* The linearised force and the carcass damping may never exceed what
     * friction can give: the bound is the tyre's peak, or the formula's own
     * force where its offsets put it above the peak (rs_max). */
    rs_v4 afx = rs_v4_abs(wf->t.fx), afy = rs_v4_abs(wf->t.fy);
    rs_v4 peak_x = rs_v4_sel(rs_v4_gt(mu_x, afx), mu_x, afx);
    rs_v4 peak_y = rs_v4_sel(rs_v4_gt(mu_y, afy), mu_y, afy);
    rs_v4m slow = rs_v4_lt(vabs, 2.0 * vlow);
    rs_v4 kappa_lim = rs_v4_sel(slow, 3.0 * mu_x / (rs_v4_abs(wf->t.kxk) + 1.0),
                                lanes(L->kappa_max));
    rs_v4 alpha_lim = rs_v4_sel(slow, 3.0 * mu_y / (rs_v4_abs(wf->t.kya) + 1.0),
                                lanes(L->tan_alpha_max));

    /* In the air: no tyre force; the deflections relax away. */
    rs_v4m air = wf->air;
    wf->a = rs_v4_sel(air, kappa / (1.0 + 20.0 * dt), a);
    wf->b = rs_v4_sel(air, zero(), b);
    wf->f = rs_v4_sel(air, zero(), f);
    wf->g = rs_v4_sel(air, zero(), g);
    wf->kappa_lim = rs_v4_sel(air, rs_v4_splat(1e9), kappa_lim);
    wf->alpha_lim = rs_v4_sel(air, rs_v4_splat(1e9), alpha_lim);
    wf->peak_x = rs_v4_sel(air, zero(), peak_x);
    wf->peak_y = rs_v4_sel(air, zero(), peak_y);
    p = rs_v4_sel(air, omega, p);
    q = rs_v4_sel(air, dt / iw, q);
    for (int i = 0; i < 4; i++)
        resp[i] = (rs_wheel_response){.p = p[i], .q = q[i], .friction_nm = friction[i]};
}

/* 4: each wheel's lateral transient slip and final lateral force. */
static void lateral_slip(const rs_car *car, double dt, wheel_state *ws, wheel_frame *wf)
{
    rs_v4 ta = ws->tan_alpha;
    /* sigma d(tan a)/dt = Vy - |Vx| tan a, implicit in the decay term. */
    rs_v4 sigma = rs_v4_sel(rs_v4_gt(wf->t.sigma_alpha, rs_v4_splat(0.01)), wf->t.sigma_alpha,
                            rs_v4_splat(0.01));
    rs_v4 vabs = rs_v4_abs(wf->vx);
    rs_v4 next = (ta + dt * wf->vy / sigma) / (1.0 + dt * vabs / sigma);
    next = rs_v4_clamp(next, -wf->alpha_lim, wf->alpha_lim);
    rs_v4 slope = rs_v4_sel(rs_v4_lt(wf->t.dfy, zero()), wf->t.dfy, zero());
    rs_v4 cy = 2.0 * CARCASS_DAMPING_RATIO *
               rs_v4_sqrt(rs_v4_abs(wf->t.kya) / sigma * (wf->fz / GRAVITY)) *
               carcass_damping_weight(wf->t.fy, wf->t.muy * wf->fz, wf->vx,
                                      lanes(car->params->wheel_lanes.vxlow));
    rs_v4 fy = wf->t.fy + slope * (next - ta) - cy * (wf->vy - vabs * ta);
    /* In the air: no force; the slip relaxes away. */
    wf->fy = rs_v4_sel(wf->air, zero(), rs_v4_clamp(fy, -wf->peak_y, wf->peak_y));
    ws->tan_alpha = rs_v4_sel(wf->air, ta / (1.0 + 20.0 * dt), next);
}

/* 3-4: the solved wheel spins give the longitudinal forces and slips; then
 * each wheel's lateral transient slip. Returns the power at the hubs. */
static double wheel_spin(const rs_car *car, double dt, const rs_driveline_out *out,
                         wheel_state *ws, wheel_frame *wf)
{
    rs_v4 w = lanes(out->omega);
    wf->fx = rs_v4_clamp(wf->f + wf->g * w, -wf->peak_x, wf->peak_x);
    ws->kappa = rs_v4_clamp(wf->a + wf->b * w, -wf->kappa_lim, wf->kappa_lim);
    ws->omega = w;
    rs_v4 power = lanes(out->drive_nm) * w;
    double hub_power = 0.0;
    for (int i = 0; i < 4; i++)
        hub_power += power[i];
    lateral_slip(car, dt, ws, wf);
    return hub_power;
}

/* 5a: each tyre's force components in the body's x-y plane go to the body
 * at roll-centre height; along body z they load the wheel (fwheel_z). The
 * wheels' shares are added in wheel order. */
static void tire_forces_on_body(const rs_car *car, const double R[9], const wheel_frame *wf,
                                rs_v4 *fwheel_z, body_load *load)
{
    const rs_car_derived *d = &car->derived;
    rs_v4 ft[3], fb[3], tq[3], mz_w[3], mz_b[3];
    for (int j = 0; j < 3; j++)
        ft[j] = wf->fx * wf->lng[j] + wf->fy * wf->lat[j] + wf->fz * wf->n[j];
    mat_tmul4(R, ft, fb);
    *fwheel_z = fb[2];
    rs_v4 p[3] = {lanes(d->mount[0]), lanes(d->mount[1]), lanes(d->rc_z)};
    rs_v4 fxy[3] = {fb[0], fb[1], zero()};
    cross4(p, fxy, tq);
    /* Aligning moment about the ground normal reaches the body through the
     * steering. */
    for (int j = 0; j < 3; j++)
        mz_w[j] = wf->t.mz * wf->n[j];
    mat_tmul4(R, mz_w, mz_b);
    for (int i = 0; i < 4; i++) {
        load->force[0] += fb[0][i], load->force[1] += fb[1][i];
        for (int j = 0; j < 3; j++)
            load->torque[j] += tq[j][i];
        for (int j = 0; j < 3; j++)
            load->torque[j] += mz_b[j][i];
    }
}

/* The suspension's force on each wheel at travel and rate v (spring,
 * damper, bump stop or droop limit, anti-roll bar against the other wheel
 * of the axle). */
static rs_v4 suspension_force(const rs_wheel_lanes *L, rs_v4 preload, rs_v4 travel,
                              rs_v4 v, rs_v4 other_travel)
{
    rs_v4 f = preload + lanes(L->spring) * travel;
    f += rs_v4_sel(rs_v4_gt(v, zero()), lanes(L->damper_bump), lanes(L->damper_rebound)) * v;
    rs_v4 bump = lanes(L->bump_travel), droop = lanes(L->droop_travel);
    rs_v4 stop = lanes(L->bump_stop);
    rs_v4m over = rs_v4_gt(travel, bump);
    rs_v4m under = ~over & rs_v4_lt(travel, -droop);
    f = rs_v4_sel(over, f + stop * (travel - bump),
                  rs_v4_sel(under, f + stop * (travel + droop), f));
    return f + lanes(L->arb) * (travel - other_travel);
}

/* 5a: each wheel's travel rate, implicit in the dampers (suspension and
 * tyre), under fwheel_z (the tyre's force along body z) and gravity gb_z;
 * returns the suspension force at the new rate. */
static rs_v4 suspension_travel(const rs_car *car, double dt, double gb_z, wheel_state *ws,
                               const wheel_frame *wf, rs_v4 fwheel_z)
{
    const rs_wheel_lanes *L = &car->params->wheel_lanes;
    rs_v4 preload = lanes(car->derived.preload_n);
    rs_v4 mu = lanes(L->unsprung_mass);
    rs_v4 travel = ws->travel_m, tv = ws->travel_v;
    /* The other wheel of the same axle: lanes 0<->1, 2<->3. */
    rs_v4 other = rs_v4_set(travel[1], travel[0], travel[3], travel[2]);
    rs_v4 c = rs_v4_sel(rs_v4_gt(tv, zero()), lanes(L->damper_bump), lanes(L->damper_rebound));
    rs_v4 ct = rs_v4_sel(wf->grounded, lanes(L->vertical_damping), zero());
    /* Implicit in the dampers (suspension and tyre): F(v+) = F0 - c v+. */
    rs_v4 f_now = fwheel_z - suspension_force(L, preload, travel, tv, other) + mu * gb_z;
    rs_v4 f0 = f_now + (c + ct) * tv;
    rs_v4 v_next = (tv + dt * f0 / mu) / (1.0 + dt * (c + ct) / mu);
    ws->travel_v = v_next;
    return suspension_force(L, preload, travel, v_next, other);
}

/* 5a: the suspension forces on the body at the mounts, in wheel order;
 * then the travel moves. */
static void suspension_on_body(const rs_car *car, double dt, wheel_state *ws, rs_v4 fsusp,
                               body_load *load)
{
    const rs_car_derived *d = &car->derived;
    rs_v4 f[3] = {zero(), zero(), fsusp}, tq[3];
    rs_v4 p[3] = {lanes(d->mount[0]), lanes(d->mount[1]), lanes(d->mount[2]) + ws->travel_m};
    cross4(p, f, tq);
    for (int i = 0; i < 4; i++) {
        load->force[2] += fsusp[i];
        for (int j = 0; j < 3; j++)
            load->torque[j] += tq[j][i];
    }
    ws->travel_m += dt * ws->travel_v;
}

/* The wheels' state and telemetry back into the car. */
static void store_wheels(rs_car *car, const wheel_state *ws, const wheel_frame *wf)
{
    for (int i = 0; i < 4; i++) {
        rs_wheel *wh = &car->wheel[i];
        wh->travel_m = ws->travel_m[i];
        wh->travel_v = ws->travel_v[i];
        wh->omega = ws->omega[i];
        wh->kappa = ws->kappa[i];
        wh->tan_alpha = ws->tan_alpha[i];
        wh->mz = ws->mz[i];
        wh->camber = ws->camber[i];
        wh->steer = car->steer_rad[i];
        wh->fz = wf->fz[i], wh->fx = wf->fx[i], wh->fy = wf->fy[i];
        wh->grounded = (uint8_t)(wf->grounded[i] != 0);
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


void RS_CAR_SUBSTEP(rs_car *car, const rs_world_def *world, double dt, int first)
{
    double R[9], w_world[3], gb[3], gw[3] = {0.0, 0.0, -GRAVITY};
    body_load load = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    wheel_state ws = {.travel_m = WHEELS(car, travel_m),
                      .travel_v = WHEELS(car, travel_v),
                      .omega = WHEELS(car, omega),
                      .kappa = WHEELS(car, kappa),
                      .tan_alpha = WHEELS(car, tan_alpha),
                      .mz = WHEELS(car, mz)};
    wheel_frame wf;
    rs_tire_in4 tin;
    rs_tire_out4 tout;
    rs_wheel_response resp[4];
    drive_step ds;

    quat_matrix(car->q, R);
    mat_mul(R, car->w, w_world);
    mat_tmul(R, gw, gb);

    /* The stages in the order the top of this file gives, and why. */
    wheel_kinematics(car, world, R, w_world, &ws, &wf);
    tire_inputs(car, world, &ws, &wf, &tin);
    /* The four tyres in one four-lane evaluation, each lane bit-identical to
     * rs_tire_eval. The aligning moment (a small yaw torque on the body) is
     * evaluated on the tick's first substep and held: it costs as much as
     * the forces. */
    RS_CAR_TIRE4(&car->params->tire_lanes, &tin, RS_TIRE_TRANSIENT, first, &tout);
    tire_outputs(&tout, &wf);
    wheel_tires(car, world, dt, first, &ws, &wf, resp);
    drivetrain_step(car, dt, resp, &ds);
    double hub_power = wheel_spin(car, dt, &ds.out, &ws, &wf);
    rs_v4 fwheel_z;
    tire_forces_on_body(car, R, &wf, &fwheel_z, &load);
    rs_v4 fsusp = suspension_travel(car, dt, gb[2], &ws, &wf, fwheel_z);
    suspension_on_body(car, dt, &ws, fsusp, &load);
    store_wheels(car, &ws, &wf);
    aero_on_body(car, R, &load);
    gravity_on_body(car, gb, &load);
    integrate_body(car, R, dt, &load);
    drivetrain_state(car, dt, &ds, hub_power);
}

#ifdef RS_CAR_STEP_DISPATCH
void rs_car_substep(rs_car *car, const rs_world_def *world, double dt, int first)
{
#if RS_TIRE4_AVX2
    /* Both copies give the same bits; AVX2 does four lanes per instruction
     * where the baseline does two. */
    if (__builtin_cpu_supports("avx2")) {
        rs_car_substep_avx2(car, world, dt, first);
        return;
    }
#endif
    rs_car_substep_base(car, world, dt, first);
}
#endif
