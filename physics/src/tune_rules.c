/*
 * The table of tunable parameters and the reader of a car file's
 * "adjustable" section (see tune_rules.h for why the rules live outside the
 * canonical block, docs/TUNES.md for the format).
 *
 * The limits below are the car validator's absolute ranges (cardef.c): a
 * car file may narrow them, never widen them, so every legal tune is also a
 * car the validator accepts field by field.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "carparams.h"
#include "json.h"
#include "tune_rules.h"

typedef struct param_info {
    const char *path;
    double min, max; /* the validator's absolute range */
    size_t field;    /* where the double lives in rs_car_params_data, or NOT_ONE_FIELD */
} param_info;

/* The gear ratios (one range for every gear) and the ride-height offset
 * (which moves several fields) are not one double of the car data. */
#define NOT_ONE_FIELD SIZE_MAX
#define FIELD(m) offsetof(rs_car_params_data, m)
#define FRONT(m) offsetof(rs_car_params_data, axle[0].m)
#define REAR(m) offsetof(rs_car_params_data, axle[1].m)

static const param_info params[RS_TUNE_PARAM_COUNT] = {
    [RS_TUNE_GEAR_RATIOS] = {"gearbox.ratios", 0.1, 10, NOT_ONE_FIELD},
    [RS_TUNE_FINAL_DRIVE] = {"gearbox.final_drive", 0.5, 20, FIELD(final_drive)},
    [RS_TUNE_BRAKE_BIAS_FRONT] = {"brakes.bias_front", 0, 1, FRONT(brake_share)},
    [RS_TUNE_SPRING_FRONT] = {"axles.front.spring_n_m", 1000, 1e6, FRONT(spring_n_m)},
    [RS_TUNE_SPRING_REAR] = {"axles.rear.spring_n_m", 1000, 1e6, REAR(spring_n_m)},
    [RS_TUNE_BUMP_FRONT] = {"axles.front.damper_bump_n_s_m", 0, 2e5, FRONT(damper_bump_n_s_m)},
    [RS_TUNE_BUMP_REAR] = {"axles.rear.damper_bump_n_s_m", 0, 2e5, REAR(damper_bump_n_s_m)},
    [RS_TUNE_REBOUND_FRONT] = {"axles.front.damper_rebound_n_s_m", 0, 2e5,
                               FRONT(damper_rebound_n_s_m)},
    [RS_TUNE_REBOUND_REAR] = {"axles.rear.damper_rebound_n_s_m", 0, 2e5,
                              REAR(damper_rebound_n_s_m)},
    [RS_TUNE_ARB_FRONT] = {"axles.front.arb_n_m", 0, 1e6, FRONT(arb_n_m)},
    [RS_TUNE_ARB_REAR] = {"axles.rear.arb_n_m", 0, 1e6, REAR(arb_n_m)},
    [RS_TUNE_CAMBER_FRONT] = {"axles.front.camber_rad", -0.2, 0.2, FRONT(camber_rad)},
    [RS_TUNE_CAMBER_REAR] = {"axles.rear.camber_rad", -0.2, 0.2, REAR(camber_rad)},
    [RS_TUNE_TOE_FRONT] = {"axles.front.toe_rad", -0.1, 0.1, FRONT(toe_rad)},
    [RS_TUNE_TOE_REAR] = {"axles.rear.toe_rad", -0.1, 0.1, REAR(toe_rad)},
    [RS_TUNE_DOWNFORCE_FRONT] = {"aero.downforce_front_cl_a_m2", -5, 10,
                                 FIELD(lift_front_cl_a_m2)},
    [RS_TUNE_DOWNFORCE_REAR] = {"aero.downforce_rear_cl_a_m2", -5, 10, FIELD(lift_rear_cl_a_m2)},
    [RS_TUNE_DIFF_PRELOAD] = {"differential.preload_nm", 0, 5000, FIELD(diff_preload_nm)},
    [RS_TUNE_DIFF_POWER_RAMP] = {"differential.power_ramp", 0, 5, FIELD(diff_power_ramp)},
    [RS_TUNE_DIFF_COAST_RAMP] = {"differential.coast_ramp", 0, 5, FIELD(diff_coast_ramp)},
    [RS_TUNE_RIDE_HEIGHT] = {"suspension.ride_height_offset_m", -0.05, 0.05, NOT_ONE_FIELD},
};

const char *rs_tune_param_path(rs_tune_param p)
{
    return (unsigned)p < RS_TUNE_PARAM_COUNT ? params[p].path : "?";
}

void rs_tune_param_limits(rs_tune_param p, double *min, double *max)
{
    *min = params[p].min;
    *max = params[p].max;
}

static bool is_one_field(rs_tune_param p)
{
    return (unsigned)p < RS_TUNE_PARAM_COUNT && params[p].field != NOT_ONE_FIELD;
}

double rs_tune_param_get(const rs_car_params_data *def, rs_tune_param p)
{
    if (!is_one_field(p))
        return 0.0;
    return *(const double *)((const char *)def + params[p].field);
}

/* Raising the car by v on its spring perches: the body (centre of mass,
 * roll centres, aero centre of pressure) sits v higher over the same
 * wheels, so the wheel has v more travel before the bump stop and v less
 * before the droop limit. Springs, preloads and tyres are unchanged. */
static void raise_ride_height(rs_car_params_data *def, double v)
{
    def->cg_height_m += v;
    def->cp_height_m += v;
    for (int a = 0; a < 2; a++) {
        def->axle[a].roll_centre_m += v;
        def->axle[a].bump_travel_m += v;
        def->axle[a].droop_travel_m -= v;
    }
}

void rs_tune_param_set(rs_car_params_data *def, rs_tune_param p, double v)
{
    if (p == RS_TUNE_RIDE_HEIGHT) {
        raise_ride_height(def, v);
        return;
    }
    if (!is_one_field(p))
        return;
    *(double *)((char *)def + params[p].field) = v;
    /* The validator wants the shares to add up to 1; 1 - v + v is within
     * an ulp of it for every v in 0..1. */
    if (p == RS_TUNE_BRAKE_BIAS_FRONT)
        def->axle[1].brake_share = 1.0 - v;
}

/* ------------------------------------------------------------------- paths */

/* True when path is a parameter's path. */
static bool is_leaf(const char *path)
{
    for (int p = 0; p < RS_TUNE_PARAM_COUNT; p++)
        if (strcmp(params[p].path, path) == 0)
            return true;
    return false;
}

/* True when path is a proper prefix of a parameter's path ending at a dot
 * (an object on the way to it). */
static bool is_branch(const char *path)
{
    size_t n = strlen(path);
    for (int p = 0; p < RS_TUNE_PARAM_COUNT; p++)
        if (strncmp(params[p].path, path, n) == 0 && params[p].path[n] == '.')
            return true;
    return false;
}

size_t rs_tune_check_shape(const rs_json *obj, const char *prefix, const char *const *skip,
                           size_t n_skip, void (*bad)(void *ctx, const char *path, const char *what),
                           void *ctx)
{
    size_t problems = 0;
    size_t n = rs_json_count(obj);
    for (size_t i = 0; i < n; i++) {
        const char *key = rs_json_key_at(obj, i);
        const rs_json *v = rs_json_value_at(obj, i);
        bool skipped = false;
        for (size_t k = 0; prefix[0] == 0 && k < n_skip; k++)
            skipped |= strcmp(key, skip[k]) == 0;
        if (skipped)
            continue;
        char path[128];
        int len = snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", key);
        if (len < 0 || (size_t)len >= sizeof path || strchr(key, '.')) {
            bad(ctx, path, "unknown field");
            problems++;
        } else if (is_leaf(path)) {
            continue;
        } else if (!is_branch(path)) {
            bad(ctx, path, "unknown field");
            problems++;
        } else if (rs_json_kind_of(v) != RS_JSON_OBJECT) {
            bad(ctx, path, "expected an object");
            problems++;
        } else {
            problems += rs_tune_check_shape(v, path, skip, n_skip, bad, ctx);
        }
    }
    return problems;
}

const rs_json *rs_tune_find(const rs_json *obj, rs_tune_param p)
{
    const char *path = params[p].path;
    const rs_json *v = obj;
    while (v) {
        const char *dot = strchr(path, '.');
        char key[64];
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key || rs_json_kind_of(v) != RS_JSON_OBJECT)
            return NULL;
        memcpy(key, path, n);
        key[n] = 0;
        v = rs_json_get(v, key);
        if (!dot)
            return v;
        path = dot + 1;
    }
    return NULL;
}

/* -------------------------------------------------------- "adjustable" */

static void shape_fail(void *ctx, const char *path, const char *what)
{
    rs_json_ctx *c = ctx;
    size_t mark = rs_json_ctx_push_key(c, path);
    rs_json_fail(c, RS_ERR_PARSE, "%s", what);
    rs_json_ctx_pop(c, mark);
}

/* Checks one range against the limits and the stock value. */
static void check_range(rs_json_ctx *c, rs_tune_param p, const rs_tune_range *r, double stock)
{
    char lo[32], hi[32], a[32], b[32];
    rs_json_format_number(params[p].min, lo);
    rs_json_format_number(params[p].max, hi);
    rs_json_format_number(r->min, a);
    rs_json_format_number(r->max, b);
    if (!(r->min <= r->max))
        rs_json_fail(c, RS_ERR_RANGE, "[%s, %s]: min above max", a, b);
    else if (r->min < params[p].min || r->max > params[p].max)
        rs_json_fail(c, RS_ERR_RANGE, "[%s, %s] not inside the model's limits %s..%s", a, b, lo,
                     hi);
    else if (!(stock >= r->min && stock <= r->max)) {
        char s[32];
        rs_json_format_number(stock, s);
        rs_json_fail(c, RS_ERR_RANGE, "[%s, %s] does not contain the stock value %s", a, b, s);
    }
}

void rs_tune_rules_read(rs_json_ctx *c, const rs_json *obj, const rs_car_params_data *def,
                        rs_tune_rules *out)
{
    memset(out, 0, sizeof *out);
    if (!obj || c->status != RS_OK)
        return;
    size_t mark = rs_json_ctx_push_key(c, "adjustable");
    if (!rs_json_as_kind(c, obj, RS_JSON_OBJECT)) {
        rs_json_ctx_pop(c, mark);
        return;
    }
    rs_tune_check_shape(obj, "", NULL, 0, shape_fail, c);
    for (int i = 0; i < RS_TUNE_PARAM_COUNT && c->status == RS_OK; i++) {
        rs_tune_param p = (rs_tune_param)i;
        const rs_json *v = rs_tune_find(obj, p);
        if (!v)
            continue;
        size_t mark2 = rs_json_ctx_push_key(c, params[p].path);
        rs_tune_range r = {true, 0, 0};
        if (rs_json_as_array(c, v, 2, 2)) {
            rs_json_as_number(c, rs_json_at(v, 0), -1e300, 1e300, &r.min);
            rs_json_as_number(c, rs_json_at(v, 1), -1e300, 1e300, &r.max);
        }
        if (c->status == RS_OK && p == RS_TUNE_GEAR_RATIOS) {
            for (uint32_t g = 0; g < def->gears && c->status == RS_OK; g++)
                check_range(c, p, &r, def->gear_ratio[g]);
        } else if (c->status == RS_OK) {
            if (p >= RS_TUNE_DIFF_PRELOAD && def->diff != RS_DIFF_LSD)
                rs_json_fail(c, RS_ERR_RANGE, "only adjustable when the differential is \"lsd\"");
            else
                check_range(c, p, &r, rs_tune_param_get(def, p));
        }
        out->range[p] = r;
        rs_json_ctx_pop(c, mark2);
    }
    rs_json_ctx_pop(c, mark);
}
