/*
 * Static facts about a car definition (rs_car_params_info): what a driver,
 * AI or human aid, wants to know before it takes the wheel — size, steering
 * lock, power, aero and how much grip the tyres and brakes have.
 *
 * Everything is derived from the immutable parameters with the same code the
 * simulation uses (rs_car_derive for the geometry, the engine curve and the
 * Magic Formula tyre itself for the grip), so the figures agree with what the
 * car does, and they are deterministic like the rest of the library.
 */
#include <string.h>

#include "car.h"
#include "driver_internal.h"
#include "detmath.h"
#include "drivetrain.h"
#include "tire.h"

#define GRAVITY 9.80665

/* Steps of the engine-speed sweep between idle and redline. */
#define POWER_STEPS 400
/* Slip-angle search for the tyre's friction peak: a coarse scan up to
 * 0.4 rad (23 degrees, well past the peak of any road or racing tyre), then
 * a fine one around the best coarse point. */
#define COARSE_STEPS 40
#define COARSE_STEP_RAD 0.01
#define FINE_STEPS 40
#define FINE_STEP_RAD 0.0005

static double abs_fy(const rs_tire_params *tp, rs_tire_in *in, double alpha)
{
    rs_tire_out out;
    in->tan_alpha = rs_tan(alpha);
    rs_tire_eval(tp, in, &out);
    return rs_abs(out.fy);
}

double rs_tire_peak_mu(const rs_tire_params *tp, double fz_n)
{
    if (!(fz_n > 0.0))
        return 0.0;
    double peak[2] = {0.0, 0.0};
    rs_tire_in in = rs_line_steady_tire_in(fz_n);
    /* Both cornering directions (the small offsets of a real tyre make
     * them differ slightly); the mean of the two peaks. */
    for (int side = 0; side < 2; side++) {
        double sign = side == 0 ? 1.0 : -1.0;
        double best_a = COARSE_STEP_RAD;
        for (int i = 1; i <= COARSE_STEPS; i++) {
            double a = (double)i * COARSE_STEP_RAD;
            double f = abs_fy(tp, &in, sign * a);
            if (f > peak[side])
                peak[side] = f, best_a = a;
        }
        for (int i = -FINE_STEPS / 2; i <= FINE_STEPS / 2; i++) {
            double a = best_a + (double)i * FINE_STEP_RAD;
            if (a <= 0.0)
                continue;
            double f = abs_fy(tp, &in, sign * a);
            if (f > peak[side])
                peak[side] = f;
        }
    }
    return 0.5 * (peak[0] + peak[1]) / fz_n;
}

rs_status rs_car_params_info(const rs_car_params *params, rs_car_info *out)
{
    if (!params || !out)
        return RS_ERR_ARG;
    const rs_car_params_data *def = &params->def;
    rs_car car;
    memset(&car, 0, sizeof car);
    car.params = params;
    rs_car_derive(&car);

    memset(out, 0, sizeof *out);
    out->mass_kg = def->mass_kg;
    out->wheelbase_m = car.derived.wheelbase_m;
    out->track_front_m = def->axle[0].track_m;
    out->track_rear_m = def->axle[1].track_m;
    out->length_m = def->length_m;
    out->width_m = def->width_m;
    out->height_m = def->height_m;
    out->cg_height_m = def->cg_height_m;
    out->steer_lock_rad = car.derived.steer_ref_max_rad;
    out->redline_rpm = def->redline_rpm;
    out->drag_cd_a_m2 = def->drag_cd_a_m2;
    out->downforce_cl_a_m2 = def->lift_front_cl_a_m2 + def->lift_rear_cl_a_m2;
    out->air_density_kg_m3 = def->air_density_kg_m3;
    out->gears = def->gears;

    /* Peak of the full-throttle power curve, sampled finely between idle and
     * redline (the curve is piecewise linear in torque, so power peaks
     * between its points as often as on them). */
    for (int i = 0; i <= POWER_STEPS; i++) {
        double rpm = def->idle_rpm + (def->redline_rpm - def->idle_rpm) * (double)i / POWER_STEPS;
        double omega = rpm / RS_RPM_PER_RAD_S;
        double p = rs_engine_torque(def, omega, 1.0) * omega;
        if (p > out->max_power_w) {
            out->max_power_w = p;
            out->max_power_rpm = rpm;
        }
    }

    /* Static axle loads by the lever rule (as rs_car_derive); each tyre is
     * tested at its corner's share. The weaker axle limits the car. */
    double xf = def->axle[0].x_m, xr = def->axle[1].x_m;
    double wheelbase = xf - xr;
    double axle_load[2] = {def->mass_kg * GRAVITY * (-xr) / wheelbase,
                           def->mass_kg * GRAVITY * xf / wheelbase};
    double mu = 0.0;
    for (int a = 0; a < 2; a++) {
        double m = rs_tire_peak_mu(&def->axle[a].tire, 0.5 * axle_load[a]);
        if (a == 0 || m < mu)
            mu = m;
    }
    out->tire_mu = mu;

    /* Full brake torque at the rolling radius, per unit of weight. */
    double radius = car.derived.rolling_radius_m;
    out->brake_mu_limit = def->brake_max_nm / radius / (def->mass_kg * GRAVITY);
    return RS_OK;
}
