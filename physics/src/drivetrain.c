/*
 * Engine, clutch, gearbox and differential (see drivetrain.h for the model).
 *
 * The torque path engine -> gear -> final drive -> efficiency -> wheel,
 * throttle-scaled torque, engine braking and the gearbox follow the usual
 * game-physics treatment (docs/PHYSICS.md, "Drivetrain" and "Sources");
 * the clutch and differential are treated as
 * friction joints solved implicitly, the standard way rigid-body engines
 * handle stick/slip, so a locked driveline is stable at any stiffness.
 */
#include "drivetrain.h"

#include "detmath.h"


static double curve_torque(const rs_car_params_data *def, double rpm)
{
    uint32_t n = def->curve_points;
    if (rpm <= def->curve_rpm[0])
        return def->curve_nm[0];
    if (rpm >= def->curve_rpm[n - 1])
        return def->curve_nm[n - 1];
    uint32_t i = 1;
    while (def->curve_rpm[i] < rpm)
        i++;
    double r0 = def->curve_rpm[i - 1], r1 = def->curve_rpm[i];
    double t = (rpm - r0) / (r1 - r0);
    return def->curve_nm[i - 1] + t * (def->curve_nm[i] - def->curve_nm[i - 1]);
}

double rs_engine_torque(const rs_car_params_data *def, double omega_e, double throttle)
{
    double rpm = omega_e * RS_RPM_PER_RAD_S;
    /* Soft rev limiter: fuel is cut progressively over the last 100 rpm, so
     * the engine settles at the limiter instead of bouncing off it. */
    double cut = rs_clamp((def->redline_rpm + 100.0 - rpm) / 100.0, 0.0, 1.0);
    double thr = rs_clamp(throttle, 0.0, 1.0) * cut;
    /* Engine braking: friction and pumping losses rise with engine speed. */
    double span = def->redline_rpm - def->idle_rpm;
    double f = rs_clamp((rpm - def->idle_rpm) / span, 0.0, 1.5);
    double brake =
        def->engine_brake_idle_nm + f * (def->engine_brake_nm - def->engine_brake_idle_nm);
    if (rpm < 0.0)
        brake = -brake; /* losses always oppose rotation */
    else if (rpm < def->idle_rpm * 0.5)
        brake *= rpm / (def->idle_rpm * 0.5);
    return thr * curve_torque(def, rpm) - (1.0 - thr) * brake;
}

double rs_idle_throttle(const rs_car_params_data *def, double omega_e)
{
    /* Proportional idle governor: fully open 20 % below idle. */
    double rpm = omega_e * RS_RPM_PER_RAD_S;
    return rs_clamp((def->idle_rpm - rpm) / (0.2 * def->idle_rpm) + 0.02, 0.0, 1.0);
}

double rs_gear_ratio(const rs_car_params_data *def, int gear)
{
    if (gear > 0 && (uint32_t)gear <= def->gears)
        return def->gear_ratio[gear - 1] * def->final_drive;
    if (gear < 0)
        return -def->reverse_ratio * def->final_drive;
    return 0.0;
}

double rs_friction_clamp(double omega_free, double q, double capacity_nm)
{
    double stop = q * capacity_nm; /* largest speed change friction can make */
    if (omega_free > stop)
        return omega_free - stop;
    if (omega_free < -stop)
        return omega_free + stop;
    return 0.0;
}

/* Carrier response omega_c+ = P + Q * T for the driven pair, for a given
 * total wheel-side drive torque guess (needed by the LSD regime choice). */
typedef struct carrier {
    double P, Q;
    double split_bias; /* LSD: T_left - T_right when slipping (else unused) */
    int mode;          /* 0 open, 1 locked, 2 LSD slipping with bias */
} carrier;

static carrier carrier_response(const rs_car_params_data *def, const rs_wheel_response *L,
                                const rs_wheel_response *R, double torque_guess)
{
    carrier c = {0.0, 0.0, 0.0, 0};
    double qs = L->q + R->q;
    double P_open = 0.5 * (L->p + R->p), Q_open = 0.25 * qs;
    if (qs == 0.0) /* both wheels held by their brakes: the carrier is rigid */
        return c;
    double P_lock = (L->p * R->q + R->p * L->q) / qs, Q_lock = L->q * R->q / qs;
    if (def->diff == RS_DIFF_OPEN) {
        c.P = P_open, c.Q = Q_open, c.mode = 0;
    } else if (def->diff == RS_DIFF_LOCKED) {
        c.P = P_lock, c.Q = Q_lock, c.mode = 1;
    } else {
        /* Locked split: T_L - T_R needed to keep both wheels at one speed. */
        double tl = (R->p - L->p + R->q * torque_guess) / qs;
        double diff = 2.0 * tl - torque_guess;
        double ramp = torque_guess >= 0.0 ? def->diff_power_ramp : def->diff_coast_ramp;
        double limit = def->diff_preload_nm + ramp * rs_abs(torque_guess);
        if (rs_abs(diff) <= limit) {
            c.P = P_lock, c.Q = Q_lock, c.mode = 1;
        } else {
            c.split_bias = diff > 0.0 ? limit : -limit;
            c.P = P_open + 0.25 * (L->q - R->q) * c.split_bias;
            c.Q = Q_open;
            c.mode = 2;
        }
    }
    return c;
}

static void split_torque(const carrier *c, const rs_wheel_response *L, const rs_wheel_response *R,
                         double total, double *tl, double *tr)
{
    double qs = L->q + R->q;
    if (c->mode == 1 && qs > 0.0) {
        *tl = (R->p - L->p + R->q * total) / qs;
        *tr = total - *tl;
    } else {
        *tl = 0.5 * (total + c->split_bias);
        *tr = 0.5 * (total - c->split_bias);
    }
}

/* Friction regimes. A wheel that its friction can hold this substep becomes
 * rigid at zero spin (q = 0); a wheel sliding against its brake sees the
 * brake as a constant torque opposing its motion, folded into p. Doing this
 * before the clutch solve means braking in gear also has to slow the engine's
 * inertia, as it does in a real car. */
static void friction_regimes(const rs_wheel_response in[4], const double guess_nm[4],
                             rs_wheel_response eff[4], double dir[4])
{
    for (int i = 0; i < 4; i++) {
        double free_w = in[i].p + in[i].q * guess_nm[i];
        double stop = in[i].q * in[i].friction_nm;
        eff[i] = in[i];
        if (free_w <= stop && free_w >= -stop) {
            dir[i] = 0.0;
            eff[i].p = 0.0;
            eff[i].q = 0.0;
        } else {
            dir[i] = free_w > 0.0 ? 1.0 : -1.0;
            eff[i].p = in[i].p - dir[i] * stop;
        }
    }
}

void rs_driveline_solve(const rs_car_params_data *def, const rs_driveline_in *in,
                        const rs_wheel_response resp[4], rs_driveline_out *out)
{
    const double ie = def->engine_inertia_kg_m2;
    const int il = in->driven[0], ir = in->driven[1];
    double G = in->ratio;
    double eta = def->driveline_efficiency;
    double t_cl = 0.0, t_w = 0.0;
    int locked = 0;
    double guess[4] = {0.0, 0.0, 0.0, 0.0};
    rs_wheel_response eff[4];
    double dir[4];

    guess[il] = guess[ir] = 0.5 * in->lsd_prev_nm;
    friction_regimes(resp, guess, eff, dir);
    const rs_wheel_response *L = &eff[il], *R = &eff[ir];
    carrier c = carrier_response(def, L, R, in->lsd_prev_nm);

    if (G != 0.0 && in->clutch_nm > 0.0) {
        /* Clutch torque that makes engine speed equal G * carrier speed at
         * the end of the substep (static friction), clamped to the clutch's
         * capacity (kinetic friction). Efficiency loses power in the
         * direction it flows: wheel torque = G * T * eta on drive and
         * G * T / eta on overrun, so the driveline never creates energy. */
        double free_e = in->omega_e + in->dt * in->engine_nm / ie;
        double slip = free_e - G * c.P;
        double e = slip * G >= 0.0 ? eta : 1.0 / eta;
        for (int pass = 0; pass < 3; pass++) {
            double t_lock = slip / (in->dt / ie + G * G * e * c.Q);
            t_cl = rs_clamp(t_lock, -in->clutch_nm, in->clutch_nm);
            locked = t_lock == t_cl;
            double carrier_speed = c.P + c.Q * G * e * t_cl;
            double e2 = t_cl * G * carrier_speed >= 0.0 ? eta : 1.0 / eta;
            carrier c2 = carrier_response(def, L, R, G * e2 * t_cl);
            if (e2 == e && c2.mode == c.mode && c2.split_bias == c.split_bias)
                break;
            e = e2;
            c = c2;
            slip = free_e - G * c.P;
        }
        t_w = G * e * t_cl;
    }

    out->omega_e = in->omega_e + in->dt * (in->engine_nm - t_cl) / ie;
    out->clutch_nm = t_cl;
    out->wheel_side_nm = t_w;
    out->clutch_locked = locked;

    double drive[4] = {0.0, 0.0, 0.0, 0.0};
    if (t_w != 0.0)
        split_torque(&c, L, R, t_w, &drive[il], &drive[ir]);
    for (int i = 0; i < 4; i++) {
        double w;
        if (dir[i] == 0.0) {
            /* Held: check the friction really can hold against the drive
             * torque it got; if not, it slips this substep. */
            w = rs_friction_clamp(resp[i].p + resp[i].q * drive[i], resp[i].q, resp[i].friction_nm);
        } else {
            w = eff[i].p + eff[i].q * drive[i];
            if (w * dir[i] < 0.0) /* friction would have stopped it first */
                w = 0.0;
        }
        out->omega[i] = w;
        out->drive_nm[i] = drive[i];
    }
    if (locked)
        out->omega_e = G * 0.5 * (out->omega[il] + out->omega[ir]);
}
