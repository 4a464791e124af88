/*
 * The vehicle model's set-up, gearbox and queries (car.h, docs/PHYSICS.md).
 * Its substep, the integration itself, is car_step.c.
 */
#include "car_internal.h"

#include "detmath.h"
#include "drivetrain.h"

/* ------------------------------------------------------------------ setup */

/* Wheel i's steer angle (toe included) for the bicycle-model angle
 * steer_ref. */
/* A wheel's steer angle for the bicycle-model angle steer_ref != 0 on a
 * steered axle, given r = L / tan(|steer_ref|), the turn radius at the
 * rear-axle centre (the same for both wheels, so computed once). */
static double wheel_steer(const rs_car *car, int i, double steer_ref, double r)
{
    const rs_car_params_data *def = &car->params->def;
    const rs_axle_params *a = axle_of(def, i);
    double toe = car->derived.toe_rad[i];
    /* Ackermann: each front wheel points at the turn centre on the rear-axle
     * line; the ackermann factor blends from parallel (0) to full (1). */
    double L = car->derived.wheelbase_m;
    int inside = (steer_ref > 0.0) == is_left(i);
    double half = 0.5 * a->track_m;
    double ack = rs_atan(L / (inside ? r - half : r + half));
    double mag = rs_abs(steer_ref) + def->ackermann * (ack - rs_abs(steer_ref));
    return (steer_ref > 0.0 ? mag : -mag) + toe;
}

/* The wheels' steer angles and their sines and cosines. A wheel that does
 * not steer, or any wheel with the steering straight, points along its toe,
 * whose sine and cosine are the car's constants. */
static void set_steer(rs_car *car, double steer_ref)
{
    const rs_car_derived *d = &car->derived;
    double r = 0.0;
    if (steer_ref != 0.0)
        r = d->wheelbase_m / rs_tan(rs_abs(steer_ref));
    for (int i = 0; i < 4; i++) {
        if (steer_ref == 0.0 || axle_of(&car->params->def, i)->steer_max_rad <= 0.0) {
            car->steer_rad[i] = d->toe_rad[i];
            car->steer_sin[i] = d->toe_sin[i], car->steer_cos[i] = d->toe_cos[i];
        } else {
            car->steer_rad[i] = wheel_steer(car, i, steer_ref, r);
            rs_sincos(car->steer_rad[i], &car->steer_sin[i], &car->steer_cos[i]);
        }
    }
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
        out->mount[0][i] = a->x_m;
        out->mount[1][i] = is_left(i) ? 0.5 * a->track_m : -0.5 * a->track_m;
        out->mount[2][i] = a->tire.unloaded_radius - tire_sag - def->cg_height_m;
        out->rc_z[i] = a->roll_centre_m - def->cg_height_m;
        if (i == 2 + (def->drive == RS_DRIVE_FWD ? -2 : 0))
            out->rolling_radius_m = a->tire.unloaded_radius - tire_sag;
        /* The spring carries the sprung part of the corner at design ride. */
        out->preload_n[i] = corner - a->unsprung_mass_kg * GRAVITY;
        rs_sincos(is_left(i) ? -a->camber_rad : a->camber_rad, &out->camber_sin[i],
                  &out->camber_cos[i]);
        out->toe_rad[i] = is_left(i) ? -a->toe_rad : a->toe_rad;
        rs_sincos(out->toe_rad[i], &out->toe_sin[i], &out->toe_cos[i]);
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
    set_steer(car, 0.0);
    car->steer_key = 65536;
}

void rs_wheel_lanes_set(rs_wheel_lanes *out, const rs_car_params_data *def)
{
    for (int i = 0; i < 4; i++) {
        const rs_axle_params *a = axle_of(def, i);
        const rs_tire_params *tp = &a->tire;
        out->unloaded_radius[i] = tp->unloaded_radius;
        out->vertical_stiffness[i] = tp->vertical_stiffness;
        out->vertical_damping[i] = tp->vertical_damping;
        out->vxlow[i] = tp->vxlow > 0.1 ? tp->vxlow : 1.0;
        out->kappa_max[i] = tp->kpumax > -tp->kpumin ? tp->kpumax : -tp->kpumin;
        out->tan_alpha_max[i] = tp->tan_alpmax > -tp->tan_alpmin ? tp->tan_alpmax : -tp->tan_alpmin;
        out->inertia[i] = a->wheel_inertia_kg_m2;
        out->brake_share[i] = a->brake_share;
        out->unsprung_mass[i] = a->unsprung_mass_kg;
        out->spring[i] = a->spring_n_m;
        out->damper_bump[i] = a->damper_bump_n_s_m;
        out->damper_rebound[i] = a->damper_rebound_n_s_m;
        out->bump_travel[i] = a->bump_travel_m;
        out->droop_travel[i] = a->droop_travel_m;
        out->bump_stop[i] = a->bump_stop_n_m;
        out->arb[i] = a->arb_n_m;
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
    /* A steer input unchanged since the angles were last set gives the same
     * angles (a pure function of it and the car model): held steering,
     * and the repeated inputs a client predicts other cars with. */
    uint32_t key = (uint32_t)(65536 + in->steer);
    if (car->steer_key != key) {
        set_steer(car, in->steer / (double)RS_STEER_MAX * car->derived.steer_ref_max_rad);
        car->steer_key = key;
    }
}

/* ------------------------------------------------------------- queries */

/* x - x is 0 for a finite x and NaN for an infinite or NaN one, and a sum
 * with a NaN in it is NaN: so one comparison at the end checks every value,
 * without a branch per value (this runs for every car every tick). */
int rs_car_finite(const rs_car *car)
{
    double acc = 0.0;
    for (int j = 0; j < 3; j++)
        acc += (car->pos[j] - car->pos[j]) + (car->vel[j] - car->vel[j]) + (car->w[j] - car->w[j]);
    for (int j = 0; j < 4; j++)
        acc += car->q[j] - car->q[j];
    for (int i = 0; i < 4; i++) {
        const rs_wheel *w = &car->wheel[i];
        acc += (w->travel_m - w->travel_m) + (w->travel_v - w->travel_v) + (w->omega - w->omega) +
               (w->kappa - w->kappa) + (w->tan_alpha - w->tan_alpha);
    }
    acc += (car->omega_e - car->omega_e) + (car->shift_timer_s - car->shift_timer_s) +
           (car->shift_cooldown_s - car->shift_cooldown_s) +
           (car->drive_prev_nm - car->drive_prev_nm);
    return acc == 0.0;
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
