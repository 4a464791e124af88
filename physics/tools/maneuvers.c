/*
 * The standard test maneuvers (see maneuvers.h for what each one measures
 * and how its driver behaves). Each maneuver is a one-car world on the flat
 * plane plus a controller that reads the car's observable state every tick
 * and answers with a quantised input; the figures are read off the state.
 * Controllers use detmath so results are reproducible bit for bit.
 */
#include "maneuvers.h"

#include <stdbool.h>
#include <string.h>

#include "racesim/base/err.h"

#include "carparams.h"
#include "detmath.h"
#include "tire.h"

#define G 9.80665
#define KMH (1.0 / 3.6)
#define QUARTER_MILE_M 402.336

rs_mv_config rs_mv_config_default(void)
{
    rs_world_def d = rs_world_default();
    rs_mv_config c = {d.tick_hz, d.substeps};
    return c;
}

/* ------------------------------------------------------------ one-car sim */

typedef struct sim {
    rs_world *w;
    rs_car_id id;
    double dt, t;
    rs_car_state st, prev;
    char *err;
    size_t err_len;
    const char *name; /* maneuver name, for messages */
    rs_status status; /* RS_OK until a step fails; sticky, like the message */
} sim;

static rs_status sim_open(sim *s, const char *name, const rs_car_params *car,
                          const rs_mv_config *cfg, const rs_car_spawn *spawn, char *err,
                          size_t err_len)
{
    rs_world_def def = rs_world_default();
    rs_mv_config c = cfg ? *cfg : rs_mv_config_default();
    rs_status st;

    memset(s, 0, sizeof *s);
    s->err = err, s->err_len = err_len, s->name = name;
    if (!car) {
        rs_errf(err, err_len, "%s: no car parameters", name);
        return RS_ERR_ARG;
    }
    def.tick_hz = c.tick_hz;
    def.substeps = c.substeps;
    def.max_cars = 1;
    st = rs_world_create(&def, &s->w);
    if (st != RS_OK) {
        rs_errf(err, err_len, "%s: cannot create world: %s", name, rs_status_str(st));
        return st;
    }
    st = rs_world_add_car(s->w, car, spawn, &s->id);
    if (st != RS_OK) {
        rs_errf(err, err_len, "%s: cannot add car: %s", name, rs_status_str(st));
        rs_world_destroy(s->w);
        s->w = NULL;
        return st;
    }
    s->dt = 1.0 / (double)def.tick_hz;
    rs_world_car_state(s->w, s->id, &s->st);
    s->prev = s->st;
    return RS_OK;
}

/* One tick with input in. False once a step has failed (its status and
 * message are kept), so a maneuver's loops stop at the first failure and
 * sim_close reports it. */
static bool sim_step(sim *s, const rs_input *in)
{
    if (s->status != RS_OK)
        return false;
    rs_status st = rs_world_set_input(s->w, s->id, in);
    if (st == RS_OK)
        st = rs_world_step(s->w);
    if (st != RS_OK) {
        s->status = st;
        if (st == RS_ERR_NONFINITE)
            rs_errf(s->err, s->err_len, "%s: the car's state became NaN/Inf at t = %.4f s",
                    s->name, s->t + s->dt);
        else
            rs_errf(s->err, s->err_len, "%s: step failed at t = %.4f s: %s", s->name,
                    s->t + s->dt, rs_status_str(st));
        return false;
    }
    s->t += s->dt;
    s->prev = s->st;
    rs_world_car_state(s->w, s->id, &s->st);
    return true;
}

/* Ends the run: the world is destroyed, the result is the run's status. */
static rs_status sim_close(sim *s)
{
    rs_world_destroy(s->w);
    s->w = NULL;
    return s->status;
}

/* Horizontal distance moved in the last tick. */
static double sim_step_dist(const sim *s)
{
    double dx = s->st.pos_m[0] - s->prev.pos_m[0], dy = s->st.pos_m[1] - s->prev.pos_m[1];
    return rs_sqrt(dx * dx + dy * dy);
}

/* Linear interpolation of the crossing of `level` between two samples
 * (a at time ta, b one tick later). */
static double cross_time(double ta, double dt, double a, double b, double level)
{
    double f = (b != a) ? (level - a) / (b - a) : 1.0;
    return ta + rs_clamp(f, 0.0, 1.0) * dt;
}

static rs_input input_of(double steer, double throttle, double brake)
{
    rs_input in = rs_input_quantise(steer, throttle, brake, 0.0, 0.0);
    in.gear = RS_GEAR_KEEP;
    return in;
}

/* ---------------------------------------------------------- controllers */

rs_mv_speed_pi rs_mv_speed_pi_default(void)
{
    rs_mv_speed_pi c = {0.4, 0.25, 0.0, 0.1};
    return c;
}

double rs_mv_speed_pi_update(rs_mv_speed_pi *c, double target_m_s, double speed_m_s, double dt)
{
    double e = target_m_s - speed_m_s;
    double u = c->feedforward + c->integral + c->kp * e;
    /* Integrate only while the output is not saturated in the same direction. */
    if (!((u >= 1.0 && e > 0.0) || (u <= 0.0 && e < 0.0)))
        c->integral += c->ki * e * dt;
    c->integral = rs_clamp(c->integral, -1.0, 1.0);
    return rs_clamp(c->feedforward + c->integral + c->kp * e, 0.0, 1.0);
}

static int driven_axle(const rs_car_params_data *def)
{
    return def->drive == RS_DRIVE_FWD ? 0 : 1;
}

int rs_mv_cruise_gear(const rs_car_params *car, double speed_m_s)
{
    const rs_car_params_data *def = &car->def;
    double r = def->axle[driven_axle(def)].tire.unloaded_radius;
    double want = def->idle_rpm + 0.4 * (def->upshift_rpm - def->idle_rpm);
    for (int g = (int)def->gears; g >= 1; g--) {
        double rpm = speed_m_s / r * def->gear_ratio[g - 1] * def->final_drive * RS_RPM_PER_RAD_S;
        if (rpm >= want)
            return g;
    }
    return 1;
}

double rs_mv_steer_for_curvature(const rs_car_params *car, double curvature_1_m)
{
    const rs_car_params_data *def = &car->def;
    double L = def->axle[0].x_m - def->axle[1].x_m;
    double gain = def->axle[0].steer_max_rad > 0.0 ? def->axle[0].steer_max_rad : 0.5;
    return rs_clamp(rs_atan(L * curvature_1_m) / gain, -1.0, 1.0);
}

/* -------------------------------------------------------- slip control */

/* The slip ratio at which the tyre's force peaks at load fz and 100 km/h
 * (steady-state tyre, the car's own parameters): sign -1 braking (the most
 * negative Fx), +1 driving. */
static double peak_slip(const rs_tire_params *t, double fz, double sign)
{
    rs_tire_in in;
    rs_tire_out o;
    double best = 0.0, best_k = 0.1 * sign;
    memset(&in, 0, sizeof in);
    in.fz_n = fz;
    in.vx_m_s = 100.0 * KMH;
    in.grip_scale = 1.0;
    in.mode = RS_TIRE_STEADY;
    for (int k = 1; k <= 240; k++) {
        in.kappa = 0.0025 * k * sign;
        in.omega_rad_s = in.vx_m_s * (1.0 + in.kappa) / t->unloaded_radius;
        rs_tire_eval(t, &in, &o);
        if (sign * o.fx > best)
            best = sign * o.fx, best_k = in.kappa;
    }
    return best_k;
}

static void static_corner_loads(const rs_car_params_data *def, double load[2])
{
    double L = def->axle[0].x_m - def->axle[1].x_m;
    load[0] = 0.5 * def->mass_kg * G * (-def->axle[1].x_m) / L;
    load[1] = 0.5 * def->mass_kg * G * def->axle[0].x_m / L;
}

/* The slip-limiting pedal law shared by the launch and braking drivers:
 * excess = max over the watched wheels of (kappa_i - kappa*) / kappa*
 * (positive when a wheel slips beyond the tyre's peak); an integral term
 * (starting at full pedal) falls while the excess is positive and recovers
 * while it is negative, plus a proportional term. Returns the pedal. */
typedef struct slip_limiter {
    double integral;
} slip_limiter;

static double slip_limiter_update(slip_limiter *c, double excess, double dt)
{
    const double kp = 0.3, ki = 3.0;
    c->integral = rs_clamp(c->integral - ki * excess * dt, 0.0, 1.0);
    return rs_clamp(c->integral - kp * excess, 0.0, 1.0);
}

/* Steering that keeps a car on the line y = lane_y heading +x: curvature
 * feedback on lateral offset and heading, gains scheduled on speed (a
 * damped response of 0.5 rad/s), as a driver holds a drag strip lane. */
static double lane_keep(const rs_car_params_data *def, const rs_car_state *c, double lane_y)
{
    double L = def->axle[0].x_m - def->axle[1].x_m;
    double gain = def->axle[0].steer_max_rad > 0.0 ? def->axle[0].steer_max_rad : 0.5;
    double v = c->forward_speed_m_s > 3.0 ? c->forward_speed_m_s : 3.0;
    double wn = 0.5;
    double kappa = -(wn / v) * (wn / v) * (c->pos_m[1] - lane_y) -
                   2.0 * 0.9 * wn / v * rs_wrap_angle(c->yaw_rad);
    return rs_clamp(rs_atan(L * kappa) / gain, -1.0, 1.0);
}

void rs_mv_launch_init(rs_mv_launch *drv, const rs_car_params *car, double lane_y_m)
{
    const rs_car_params_data *def = &car->def;
    double load[2];
    static_corner_loads(def, load);
    drv->car = car;
    drv->lane_y_m = lane_y_m;
    drv->driven_axle = driven_axle(def);
    drv->peak_slip = peak_slip(&def->axle[drv->driven_axle].tire, load[drv->driven_axle], 1.0);
    drv->integral = 1.0;
    drv->throttle = 1.0;
}

rs_input rs_mv_launch_input(rs_mv_launch *drv, const rs_car_state *s, double dt)
{
    const rs_car_params_data *def = &drv->car->def;
    double excess = -1e9;
    for (int w = 2 * drv->driven_axle; w < 2 * drv->driven_axle + 2; w++) {
        double e = (s->wheels[w].slip_ratio - drv->peak_slip) / drv->peak_slip;
        if (e > excess)
            excess = e;
    }
    slip_limiter tc = {drv->integral};
    drv->throttle = slip_limiter_update(&tc, excess, dt);
    drv->integral = tc.integral;
    return input_of(lane_keep(def, s, drv->lane_y_m), drv->throttle, 0.0);
}

/* ------------------------------------------------------------------ accel */

rs_status rs_mv_run_accel(const rs_car_params *car, const rs_mv_config *cfg, rs_mv_accel *out,
                          char *err, size_t err_len)
{
    sim s;
    rs_car_spawn sp = rs_car_spawn_default(); /* at rest at the origin, automatic */
    rs_status st;
    double dist = 0.0, t0, vmax = 0.0, vsec[8] = {0};
    unsigned ticks_per_s, n_sec = 0, same_gear_s = 0;
    int last_gear = -2;

    memset(out, 0, sizeof *out);
    out->t_0_100_kmh_s = out->t_0_200_kmh_s = RS_MV_NOT_REACHED;
    out->quarter_mile_s = out->quarter_mile_kmh = RS_MV_NOT_REACHED;
    sp.gear = 1; /* automatic gearbox in Drive */
    if ((st = sim_open(&s, "accel", car, cfg, &sp, err, err_len)) != RS_OK)
        return st;
    ticks_per_s = (unsigned)(1.0 / s.dt + 0.5);

    /* Settle on the suspension with the brake held. */
    rs_input hold = input_of(0.0, 0.0, 1.0);
    for (unsigned k = 0; k < ticks_per_s; k++)
        sim_step(&s, &hold);

    rs_mv_launch driver;
    rs_mv_launch_init(&driver, car, 0.0);
    t0 = s.t;
    for (unsigned long k = 1; s.status == RS_OK && s.t - t0 < 300.0; k++) {
        rs_input go = rs_mv_launch_input(&driver, &s.st, s.dt);
        if (!sim_step(&s, &go))
            break;
        double ta = s.t - s.dt - t0;
        double v0 = s.prev.forward_speed_m_s, v1 = s.st.forward_speed_m_s;
        double d0 = dist;
        dist += sim_step_dist(&s);
        if (out->t_0_100_kmh_s < 0.0 && v1 >= 100.0 * KMH)
            out->t_0_100_kmh_s = cross_time(ta, s.dt, v0, v1, 100.0 * KMH);
        if (out->t_0_200_kmh_s < 0.0 && v1 >= 200.0 * KMH)
            out->t_0_200_kmh_s = cross_time(ta, s.dt, v0, v1, 200.0 * KMH);
        if (out->quarter_mile_s < 0.0 && dist >= QUARTER_MILE_M) {
            double tq = cross_time(ta, s.dt, d0, dist, QUARTER_MILE_M);
            out->quarter_mile_s = tq;
            out->quarter_mile_kmh = (v0 + (v1 - v0) * (tq - ta) / s.dt) * 3.6;
        }
        if (v1 > vmax) {
            vmax = v1;
            out->top_speed_kmh = v1 * 3.6;
            out->top_speed_gear = s.st.gear;
            out->top_speed_rpm = s.st.engine_rpm;
            out->top_speed_t_s = s.t - t0;
        }
        /* Plateau test once per simulated second: gained < 0.05 m/s in 5 s
         * in one gear, unless the engine runs at or above the upshift point
         * below top gear (the gearbox has yet to shift up: not the top
         * speed). */
        if (k % ticks_per_s == 0) {
            const rs_car_params_data *def = &car->def;
            int limited = s.st.gear < (int)def->gears && s.st.engine_rpm >= def->upshift_rpm;
            same_gear_s = s.st.gear == last_gear && !s.st.shifting ? same_gear_s + 1 : 0;
            last_gear = s.st.gear;
            vsec[n_sec % 8] = v1;
            if (n_sec >= 10 && same_gear_s >= 5 && v1 - vsec[(n_sec - 5) % 8] < 0.05 && !limited) {
                out->settled = 1;
                break;
            }
            n_sec++;
        }
    }
    return sim_close(&s);
}

/* ------------------------------------------------------------------ brake */

static rs_status brake_run(const rs_car_params *car, const rs_mv_config *cfg, int modulate,
                           const double target[2], double *dist_out, double *time_out,
                           double *v0_out, char *err, size_t err_len)
{
    sim s;
    rs_car_spawn sp = rs_car_spawn_default(); /* at rest at the origin, automatic */
    rs_status st;
    const double v_target = 100.0 * KMH;

    sp.speed_m_s = v_target;
    sp.gear = (int8_t)rs_mv_cruise_gear(car, v_target);
    sp.transmission = RS_TRANSMISSION_MANUAL;
    if ((st = sim_open(&s, "brake", car, cfg, &sp, err, err_len)) != RS_OK)
        return st;

    rs_mv_speed_pi pi = rs_mv_speed_pi_default();
    while (s.t < 3.0) {
        rs_input in = input_of(0.0, rs_mv_speed_pi_update(&pi, v_target, s.st.forward_speed_m_s, s.dt), 0.0);
        if (!sim_step(&s, &in))
            return sim_close(&s);
    }

    double v0 = s.st.forward_speed_m_s, t0 = s.t, dist = 0.0;
    slip_limiter abs_ctl = {1.0};
    double pedal = 1.0;
    *v0_out = v0;
    for (;;) {
        rs_input in = input_of(0.0, 0.0, pedal);
        in.gear = RS_GEAR_NEUTRAL;
        if (!sim_step(&s, &in))
            return sim_close(&s);
        dist += sim_step_dist(&s);
        if (s.st.forward_speed_m_s < 0.01 || s.t - t0 > 60.0)
            break;
        if (modulate && s.st.forward_speed_m_s > 3.0) {
            double excess = -1e9;
            for (int i = 0; i < 4; i++) {
                double k = target[i >> 1];
                double e = (k - s.st.wheels[i].slip_ratio) / -k;
                if (e > excess)
                    excess = e;
            }
            pedal = slip_limiter_update(&abs_ctl, excess, s.dt);
        }
    }
    /* Normalise to exactly 100 km/h (d scales with v0^2 at constant decel). */
    *dist_out = dist * (v_target / v0) * (v_target / v0);
    *time_out = (s.t - t0) * (v_target / v0);
    return sim_close(&s);
}

rs_status rs_mv_run_brake(const rs_car_params *car, const rs_mv_config *cfg, rs_mv_brake *out,
                          char *err, size_t err_len)
{
    double load[2], target[2], v0 = 0.0;
    rs_status st;

    memset(out, 0, sizeof *out);
    if (!car) {
        rs_errf(err, err_len, "brake: no car parameters");
        return RS_ERR_ARG;
    }
    static_corner_loads(&car->def, load);
    target[0] = peak_slip(&car->def.axle[0].tire, load[0], -1.0);
    target[1] = peak_slip(&car->def.axle[1].tire, load[1], -1.0);
    out->target_slip_front = target[0];
    out->target_slip_rear = target[1];

    st = brake_run(car, cfg, 1, target, &out->dist_100_0_m, &out->time_s, &v0, err, err_len);
    if (st != RS_OK)
        return st;
    out->start_kmh = v0 * 3.6;
    out->mean_decel_g = (100.0 * KMH) * (100.0 * KMH) / (2.0 * out->dist_100_0_m * G);
    return brake_run(car, cfg, 0, target, &out->dist_full_pedal_m, &out->time_full_pedal_s, &v0, err,
                     err_len);
}

/* ---------------------------------------------------------------- skidpad */

rs_status rs_mv_run_skidpad(const rs_car_params *car, const rs_mv_config *cfg, double radius_m,
                            rs_mv_skidpad *out, char *err, size_t err_len)
{
    sim s;
    rs_car_spawn sp = rs_car_spawn_default(); /* at rest at the origin, automatic */
    rs_status st;
    const double R = radius_m > 0.0 ? radius_m : 45.72;
    const double a0 = 0.4 * G, a_rate = 0.01 * G;

    memset(out, 0, sizeof *out);
    out->radius_m = R;
    out->limit = "time";
    if (!car) {
        rs_errf(err, err_len, "skidpad: no car parameters");
        return RS_ERR_ARG;
    }
    const rs_car_params_data *def = &car->def;
    const double L = def->axle[0].x_m - def->axle[1].x_m;
    /* Steering input 1 is roughly the front axle's maximum road-wheel angle;
     * the integrating curvature loop absorbs the remaining gain error. */
    const double gain = def->axle[0].steer_max_rad > 0.0 ? def->axle[0].steer_max_rad : 0.5;

    /* Start on the circle (centre at (0, R), travelling +x, turning left). */
    double v_start = rs_sqrt(a0 * R);
    sp.speed_m_s = v_start;
    sp.gear = (int8_t)rs_mv_cruise_gear(car, v_start);
    if ((st = sim_open(&s, "skidpad", car, cfg, &sp, err, err_len)) != RS_OK)
        return st;

    rs_mv_speed_pi pi = rs_mv_speed_pi_default();
    double u_int = 0.0, e_int = 0.0, held_for = 0.0, steer = rs_atan(L / R) / gain;
    const double wn = 1.5, zeta = 0.9, g_inner = 6.0;
    for (;;) {
        const rs_car_state *c = &s.st;
        double rx = c->pos_m[0], ry = c->pos_m[1] - R;
        double r = rs_sqrt(rx * rx + ry * ry);
        double e = r - R; /* + = outside the circle */
        double h = rs_wrap_angle(c->yaw_rad - (rs_atan2(ry, rx) + RS_HALF_PI)); /* + = nose inward */
        double v = c->forward_speed_m_s > 1.0 ? c->forward_speed_m_s : 1.0;

        if (s.t > 1.0) {
            if (h > 0.5 || h < -0.5) {
                out->limit = "oversteer";
                break;
            }
            if (e > 3.0 || e < -3.0) {
                out->limit = (steer >= 0.999) ? "steering lock" : "understeer";
                break;
            }
        }
        held_for = (e < 0.5 && e > -0.5) ? held_for + s.dt : 0.0;
        if (held_for >= 2.0 && v > out->speed_kmh / 3.6) {
            out->speed_kmh = v * 3.6;
            out->max_lat_g = v * v / (R * G);
            out->steer_at_limit = steer;
        }
        if (s.t >= 240.0)
            break;

        /* Path curvature command, with gains scheduled on speed so the
         * radius error behaves like a damped oscillator of frequency wn. */
        double k_e = (wn / v) * (wn / v), k_h = 2.0 * zeta * wn / v;
        e_int = rs_clamp(e_int + e * s.dt, -20.0, 20.0);
        double kappa_cmd = 1.0 / R + k_e * (e + 0.3 * wn * e_int) - k_h * h;
        double kappa_meas = c->angvel_rad_s[2] / v;
        double ff = rs_atan(L * kappa_cmd) / gain;
        double du = g_inner * s.dt * (kappa_cmd - kappa_meas) * L / gain;
        if (!((ff + u_int >= 1.0 && du > 0.0) || (ff + u_int <= -1.0 && du < 0.0)))
            u_int += du;
        steer = rs_clamp(ff + u_int, -1.0, 1.0);

        double a_t = a0 + a_rate * s.t;
        double thr = rs_mv_speed_pi_update(&pi, rs_sqrt(a_t * R), c->forward_speed_m_s, s.dt);
        rs_input in = input_of(steer, thr, 0.0);
        if (!sim_step(&s, &in))
            break;
    }
    return sim_close(&s);
}

/* -------------------------------------------------------------- coastdown */

rs_status rs_mv_run_coastdown(const rs_car_params *car, const rs_mv_config *cfg,
                              rs_mv_coastdown *out, char *err, size_t err_len)
{
    sim s;
    rs_car_spawn sp = rs_car_spawn_default(); /* at rest at the origin, automatic */
    rs_status st;
    rs_input zero;

    memset(out, 0, sizeof *out);
    memset(&zero, 0, sizeof zero); /* every input zero: gear 0 = neutral */
    sp.speed_m_s = 100.0 * KMH;
    sp.gear = 0;
    if ((st = sim_open(&s, "coastdown", car, cfg, &sp, err, err_len)) != RS_OK)
        return st;
    while (s.t < 900.0 && sim_step(&s, &zero)) {
        out->dist_m += sim_step_dist(&s);
        if (s.st.speed_m_s < 0.01) {
            out->stopped = 1;
            break;
        }
    }
    out->time_s = s.t;
    out->final_speed_m_s = s.st.speed_m_s;
    return sim_close(&s);
}

/* ------------------------------------------------------------- standstill */

static rs_status park(const rs_car_params *car, const rs_mv_config *cfg, const rs_input *in,
                      double seconds, double *drift, double *vmax, char *err, size_t err_len)
{
    sim s;
    rs_car_spawn sp = rs_car_spawn_default(); /* at rest at the origin, automatic */
    rs_status st;
    if ((st = sim_open(&s, "standstill", car, cfg, &sp, err, err_len)) != RS_OK)
        return st;
    double x0 = s.st.pos_m[0], y0 = s.st.pos_m[1];
    while (s.t < seconds - 0.5 * s.dt && sim_step(&s, in)) {
        double dx = s.st.pos_m[0] - x0, dy = s.st.pos_m[1] - y0;
        double dd = rs_sqrt(dx * dx + dy * dy);
        if (dd > *drift)
            *drift = dd;
        if (s.st.speed_m_s > *vmax)
            *vmax = s.st.speed_m_s;
    }
    return sim_close(&s);
}

rs_status rs_mv_run_standstill(const rs_car_params *car, const rs_mv_config *cfg,
                               rs_mv_standstill *out, char *err, size_t err_len)
{
    rs_input braked, zero;
    rs_status st;
    memset(out, 0, sizeof *out);
    memset(&zero, 0, sizeof zero);
    braked = zero;
    braked.brake = RS_PEDAL_MAX;
    out->duration_s = 60.0;
    st = park(car, cfg, &braked, out->duration_s, &out->drift_m, &out->max_speed_m_s, err, err_len);
    if (st != RS_OK)
        return st;
    return park(car, cfg, &zero, out->duration_s, &out->drift_m_no_input, &out->max_speed_m_s, err,
                err_len);
}
