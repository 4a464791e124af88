/*
 * Car definitions: loading a car JSON file (docs/CARS.md) into
 * rs_car_params_data, and the validation every parameter set passes, whether
 * it came from a file on the server or from a block off the network.
 *
 * The JSON mirrors the struct section by section and its field paths are the
 * names validation reports ("axles.front.spring_n_m: 9e9 outside 1000..1e6"),
 * so one table per section gives the key, the struct field and the legal
 * range, and both the loader and the validator walk it. The loader only
 * checks shape (known keys, types, array sizes that fit the struct); every
 * range lives in the validator, which never trusts its input.
 *
 * The loaded data is handed to rs_car_params_wrap, which rebuilds it from
 * its own canonical block (params_block.c): the server then simulates with
 * exactly the values every client reconstructs from that block.
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carparams.h"
#include "json.h"
#include "racesim/base/err.h"

/* -------------------------------------------------------------- field tables */

/* A double field: its JSON key (also its name in messages), where it lives in
 * the struct the table describes, and its legal range. */
typedef struct rule {
    const char *key;
    size_t offset;
    double min, max;
    bool min_open; /* min itself is not allowed */
} rule;

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define CAR(field) offsetof(rs_car_params_data, field)
#define AXLE(field) offsetof(rs_axle_params, field)
#define INERTIA(k) (offsetof(rs_car_params_data, inertia_kg_m2) + (k) * sizeof(double))

static const rule body_rules[] = {
    {"mass_kg", CAR(mass_kg), 50, 5000, false},
    {"cg_height_m", CAR(cg_height_m), 0.05, 2, false},
    {"length_m", CAR(length_m), 0.5, 20, false},
    {"width_m", CAR(width_m), 0.3, 5, false},
    {"height_m", CAR(height_m), 0.2, 5, false},
};

/* Tensor entries about the centre of mass, body axes (carparams.h). */
static const rule inertia_rules[] = {
    {"xx", INERTIA(0), 0.1, 1e5, false}, {"yy", INERTIA(1), 0.1, 1e5, false},
    {"zz", INERTIA(2), 0.1, 1e5, false}, {"xy", INERTIA(3), -1e5, 1e5, false},
    {"xz", INERTIA(4), -1e5, 1e5, false}, {"yz", INERTIA(5), -1e5, 1e5, false},
};

static const rule axle_rules[] = {
    {"x_m", AXLE(x_m), -10, 10, false}, /* sign per axle: check_axles */
    {"track_m", AXLE(track_m), 0.3, 5, false},
    {"spring_n_m", AXLE(spring_n_m), 1000, 1e6, false},
    {"damper_bump_n_s_m", AXLE(damper_bump_n_s_m), 0, 2e5, false},
    {"damper_rebound_n_s_m", AXLE(damper_rebound_n_s_m), 0, 2e5, false},
    {"bump_travel_m", AXLE(bump_travel_m), 0.001, 0.5, false},
    {"droop_travel_m", AXLE(droop_travel_m), 0.001, 0.5, false},
    {"bump_stop_n_m", AXLE(bump_stop_n_m), 1000, 1e8, false},
    {"arb_n_m", AXLE(arb_n_m), 0, 1e6, false},
    {"roll_centre_m", AXLE(roll_centre_m), -0.5, 1.5, false},
    {"unsprung_mass_kg", AXLE(unsprung_mass_kg), 1, 500, false},
    {"wheel_inertia_kg_m2", AXLE(wheel_inertia_kg_m2), 0.05, 50, false},
    {"camber_rad", AXLE(camber_rad), -0.2, 0.2, false},
    {"toe_rad", AXLE(toe_rad), -0.1, 0.1, false},
    {"steer_max_rad", AXLE(steer_max_rad), 0, 1.2, false},
    {"brake_share", AXLE(brake_share), 0, 1, false},
};

static const rule steering_rules[] = {
    {"ackermann", CAR(ackermann), 0, 1, false},
};

static const rule aero_rules[] = {
    {"air_density_kg_m3", CAR(air_density_kg_m3), 0.5, 1.5, false},
    {"drag_cd_a_m2", CAR(drag_cd_a_m2), 0, 5, false},
    {"downforce_front_cl_a_m2", CAR(lift_front_cl_a_m2), -5, 10, false},
    {"downforce_rear_cl_a_m2", CAR(lift_rear_cl_a_m2), -5, 10, false},
    {"cp_height_m", CAR(cp_height_m), 0, 3, false},
};

static const rule engine_rules[] = {
    {"idle_rpm", CAR(idle_rpm), 200, 10000, false},
    {"redline_rpm", CAR(redline_rpm), 1000, 25000, false},
    {"inertia_kg_m2", CAR(engine_inertia_kg_m2), 0.005, 10, false},
    {"engine_brake_nm", CAR(engine_brake_nm), 0, 2000, false},
    {"engine_brake_idle_nm", CAR(engine_brake_idle_nm), 0, 2000, false},
};

static const rule clutch_rules[] = {
    {"max_nm", CAR(clutch_max_nm), 10, 20000, false},
};

static const rule gearbox_rules[] = {
    {"reverse_ratio", CAR(reverse_ratio), 0.1, 10, false},
    {"final_drive", CAR(final_drive), 0.5, 20, false},
    {"efficiency", CAR(driveline_efficiency), 0, 1, true},
    {"shift_time_s", CAR(shift_time_s), 0, 2, false},
    {"upshift_rpm", CAR(upshift_rpm), 200, 25000, false},
    {"downshift_rpm", CAR(downshift_rpm), 200, 25000, false},
};

static const rule lsd_rules[] = {
    {"preload_nm", CAR(diff_preload_nm), 0, 5000, false},
    {"power_ramp", CAR(diff_power_ramp), 0, 5, false},
    {"coast_ramp", CAR(diff_coast_ramp), 0, 5, false},
};

static const rule brakes_rules[] = {
    {"max_nm", CAR(brake_max_nm), 100, 50000, false},
    {"handbrake_max_nm", CAR(handbrake_max_nm), 0, 20000, false},
};

static const char *const axle_names[2] = {"front", "rear"};
static const char *const axle_paths[2] = {"axles.front", "axles.rear"};
static const char *const drive_names[2] = {"rwd", "fwd"};        /* rs_drive_layout */
static const char *const diff_names[3] = {"open", "locked", "lsd"}; /* rs_diff_type */

#define CURVE_KEY "torque_curve_rpm_nm"
#define RATIOS_KEY "ratios"
#define SOURCE_MAX 4096

static double *field_at(void *base, const rule *r)
{
    return (double *)(void *)((unsigned char *)base + r->offset);
}

static double field_value(const void *base, const rule *r)
{
    double v;
    memcpy(&v, (const unsigned char *)base + r->offset, sizeof v);
    return v;
}

/* ---------------------------------------------------------------- validation */

/* "prefix.key" into buf. */
static const char *join(char *buf, size_t len, const char *prefix, const char *key)
{
    snprintf(buf, len, "%s.%s", prefix, key);
    return buf;
}

static bool in_range(double v, double min, double max, bool min_open)
{
    return (min_open ? v > min : v >= min) && v <= max; /* false for NaN */
}

static bool check_range(rs_json_ctx *k, const char *path, double v, double min, double max,
                        bool min_open)
{
    if (in_range(v, min, max, min_open))
        return true;
    char a[32], lo[32], hi[32];
    rs_json_format_number(v, a);
    rs_json_format_number(min, lo);
    rs_json_format_number(max, hi);
    if (min_open)
        return rs_json_fail_at(k, RS_ERR_RANGE, path, "%s outside %s..%s (%s excluded)", a, lo, hi,
                               lo);
    return rs_json_fail_at(k, RS_ERR_RANGE, path, "%s outside %s..%s", a, lo, hi);
}

static void check_rules(rs_json_ctx *k, const char *prefix, const rule *rules, size_t n,
                        const void *base)
{
    char path[96];
    for (size_t i = 0; i < n && k->status == RS_OK; i++)
        check_range(k, join(path, sizeof path, prefix, rules[i].key), field_value(base, &rules[i]),
                    rules[i].min, rules[i].max, rules[i].min_open);
}

static void check_name(rs_json_ctx *k, const rs_car_params_data *def)
{
    const char *end = memchr(def->name, 0, sizeof def->name);
    if (!end) {
        rs_json_fail_at(k, RS_ERR_RANGE, "name", "longer than %d bytes", RS_NAME_MAX - 1);
        return;
    }
    size_t n = (size_t)(end - def->name);
    if (n == 0) {
        rs_json_fail_at(k, RS_ERR_RANGE, "name", "empty");
        return;
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)def->name[i] < 0x20 || def->name[i] == 0x7f) {
            rs_json_fail_at(k, RS_ERR_RANGE, "name", "contains a control character");
            return;
        }
    if (!rs_json_utf8_valid(def->name, n))
        rs_json_fail_at(k, RS_ERR_RANGE, "name", "not valid UTF-8");
}

static void check_inertia(rs_json_ctx *k, const rs_car_params_data *def)
{
    const double *I = def->inertia_kg_m2;
    double xx = I[0], yy = I[1], zz = I[2], xy = I[3], xz = I[4], yz = I[5];
    check_rules(k, "body.inertia_kg_m2", inertia_rules, COUNT(inertia_rules), def);
    if (k->status != RS_OK)
        return;
    /* Sylvester's criterion on [[xx xy xz] [xy yy yz] [xz yz zz]]. */
    double m2 = xx * yy - xy * xy;
    double det = xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz);
    if (!(m2 > 0.0 && det > 0.0)) {
        rs_json_fail_at(k, RS_ERR_RANGE, "body.inertia_kg_m2", "not positive definite");
        return;
    }
    /* Each diagonal entry is an integral of two squared coordinates, so in
     * any frame no entry exceeds the sum of the other two. */
    const char *axis[3] = {"xx", "yy", "zz"};
    for (int i = 0; i < 3; i++) {
        double a = I[i], b = I[(i + 1) % 3], c = I[(i + 2) % 3];
        if (a > b + c) {
            rs_json_fail_at(k, RS_ERR_RANGE, "body.inertia_kg_m2",
                "%s exceeds the sum of the other two diagonal entries (not a rigid body)",
                axis[i]);
            return;
        }
    }
}

/* The tyre module validates its coefficients when it reads them; here only
 * the few the vehicle model itself divides by or builds geometry from. */
static void check_tire(rs_json_ctx *k, const char *axle_path, const rs_tire_params *t)
{
    char prefix[64], path[96];
    snprintf(prefix, sizeof prefix, "%s.tyre", axle_path);
    check_range(k, join(path, sizeof path, prefix, "unloaded_radius"), t->unloaded_radius, 0.1,
                1.5, false);
    check_range(k, join(path, sizeof path, prefix, "vertical_stiffness"), t->vertical_stiffness,
                1e4, 1e7, false);
    check_range(k, join(path, sizeof path, prefix, "vertical_damping"), t->vertical_damping, 0,
                1e5, false);
}

static void check_axles(rs_json_ctx *k, const rs_car_params_data *def)
{
    const rs_axle_params *f = &def->axle[0], *r = &def->axle[1];
    char path[96];
    if (!(f->x_m >= 0.1))
        check_range(k, "axles.front.x_m", f->x_m, 0.1, 10, false);
    if (!(r->x_m <= -0.1))
        check_range(k, "axles.rear.x_m", r->x_m, -10, -0.1, false);
    if (k->status != RS_OK)
        return;
    if (!(f->steer_max_rad > 0.0)) {
        rs_json_fail_at(k, RS_ERR_RANGE, "axles.front.steer_max_rad",
                        "0 (the front axle must steer)");
        return;
    }
    if (r->steer_max_rad != 0.0) {
        rs_json_fail_at(k, RS_ERR_RANGE, "axles.rear.steer_max_rad",
                        "must be 0 (rear steering is not modelled)");
        return;
    }
    double sum = f->brake_share + r->brake_share;
    if (!(sum >= 1.0 - 1e-9 && sum <= 1.0 + 1e-9)) {
        char a[32], b[32], s[32];
        rs_json_format_number(f->brake_share, a);
        rs_json_format_number(r->brake_share, b);
        rs_json_format_number(sum, s);
        rs_json_fail_at(k, RS_ERR_RANGE, "axles.rear.brake_share",
                        "front %s + rear %s = %s, must be 1 (within 1e-9)", a, b, s);
        return;
    }
    /* The spring carries the sprung part of each corner, so the unsprung
     * mass must leave most of the static corner load to it. */
    double wheelbase = f->x_m - r->x_m;
    double corner_kg[2] = {0.5 * def->mass_kg * -r->x_m / wheelbase,
                           0.5 * def->mass_kg * f->x_m / wheelbase};
    for (int i = 0; i < 2; i++) {
        if (!(def->axle[i].unsprung_mass_kg < 0.5 * corner_kg[i])) {
            char a[32], c[32];
            rs_json_format_number(def->axle[i].unsprung_mass_kg, a);
            rs_json_format_number(corner_kg[i], c);
            rs_json_fail_at(k, RS_ERR_RANGE,
                            join(path, sizeof path, axle_paths[i], "unsprung_mass_kg"),
                            "%s is not below half the corner's static mass %s", a, c);
            return;
        }
    }
}

static void check_engine(rs_json_ctx *k, const rs_car_params_data *def)
{
    const char *curve = "engine." CURVE_KEY;
    char path[96];
    check_rules(k, "engine", engine_rules, COUNT(engine_rules), def);
    if (k->status != RS_OK)
        return;
    if (def->curve_points < 2 || def->curve_points > RS_MAX_CURVE_POINTS) {
        rs_json_fail_at(k, RS_ERR_RANGE, curve, "%lu points, expected 2..%d",
                        (unsigned long)def->curve_points, RS_MAX_CURVE_POINTS);
        return;
    }
    double peak = 0.0;
    for (uint32_t i = 0; i < def->curve_points; i++) {
        snprintf(path, sizeof path, "%s[%lu]", curve, (unsigned long)i);
        if (!check_range(k, path, def->curve_rpm[i], 0, 30000, false) ||
            !check_range(k, path, def->curve_nm[i], 0, 5000, false))
            return;
        if (i > 0 && !(def->curve_rpm[i] > def->curve_rpm[i - 1])) {
            char a[32], b[32];
            rs_json_format_number(def->curve_rpm[i], a);
            rs_json_format_number(def->curve_rpm[i - 1], b);
            rs_json_fail_at(k, RS_ERR_RANGE, path, "rpm %s not above the previous point's %s", a,
                            b);
            return;
        }
        if (def->curve_nm[i] > peak)
            peak = def->curve_nm[i];
    }
    if (!(peak > 0.0)) {
        rs_json_fail_at(k, RS_ERR_RANGE, curve, "no positive torque");
        return;
    }
    char a[32], b[32], c[32], e[32];
    rs_json_format_number(def->idle_rpm, a);
    rs_json_format_number(def->redline_rpm, b);
    if (!(def->redline_rpm > def->idle_rpm)) {
        rs_json_fail_at(k, RS_ERR_RANGE, "engine.redline_rpm", "%s must be above idle_rpm %s", b,
                        a);
        return;
    }
    double first = def->curve_rpm[0], last = def->curve_rpm[def->curve_points - 1];
    if (first > def->idle_rpm || last < def->redline_rpm) {
        rs_json_format_number(first, c);
        rs_json_format_number(last, e);
        rs_json_fail_at(k, RS_ERR_RANGE, curve,
                        "covers %s..%s rpm, must span idle_rpm..redline_rpm (%s..%s)", c, e, a, b);
        return;
    }
    if (def->clutch_max_nm < peak) {
        /* Checked here because it needs the curve; reported on the clutch. */
        check_rules(k, "clutch", clutch_rules, COUNT(clutch_rules), def);
        rs_json_format_number(def->clutch_max_nm, c);
        rs_json_format_number(peak, e);
        rs_json_fail_at(k, RS_ERR_RANGE, "clutch.max_nm",
                        "%s below the engine's peak torque %s (always slips)", c, e);
    }
}

static void check_gearbox(rs_json_ctx *k, const rs_car_params_data *def)
{
    const char *ratios = "gearbox." RATIOS_KEY;
    char path[96], a[32], b[32];
    if (def->gears < 1 || def->gears > RS_MAX_GEARS) {
        rs_json_fail_at(k, RS_ERR_RANGE, ratios, "%lu gears, expected 1..%d",
                        (unsigned long)def->gears, RS_MAX_GEARS);
        return;
    }
    for (uint32_t i = 0; i < def->gears; i++) {
        snprintf(path, sizeof path, "%s[%lu]", ratios, (unsigned long)i);
        if (!check_range(k, path, def->gear_ratio[i], 0.1, 10, false))
            return;
        if (i > 0 && !(def->gear_ratio[i] < def->gear_ratio[i - 1])) {
            rs_json_format_number(def->gear_ratio[i], a);
            rs_json_format_number(def->gear_ratio[i - 1], b);
            rs_json_fail_at(k, RS_ERR_RANGE, path,
                            "%s not below the previous gear's %s (ratios must decrease)", a, b);
            return;
        }
    }
    check_rules(k, "gearbox", gearbox_rules, COUNT(gearbox_rules), def);
    if (k->status != RS_OK)
        return;
    rs_json_format_number(def->downshift_rpm, a);
    if (!(def->downshift_rpm > def->idle_rpm)) {
        rs_json_format_number(def->idle_rpm, b);
        rs_json_fail_at(k, RS_ERR_RANGE, "gearbox.downshift_rpm",
                        "%s must be above engine.idle_rpm %s", a, b);
        return;
    }
    rs_json_format_number(def->upshift_rpm, b);
    if (!(def->downshift_rpm < def->upshift_rpm)) {
        rs_json_fail_at(k, RS_ERR_RANGE, "gearbox.downshift_rpm", "%s must be below upshift_rpm %s",
                        a, b);
        return;
    }
    if (!(def->upshift_rpm <= def->redline_rpm)) {
        rs_json_format_number(def->redline_rpm, a);
        rs_json_fail_at(k, RS_ERR_RANGE, "gearbox.upshift_rpm", "%s above engine.redline_rpm %s", b,
                        a);
    }
}

static void check_differential(rs_json_ctx *k, const rs_car_params_data *def)
{
    if (def->drive > RS_DRIVE_FWD) {
        rs_json_fail_at(k, RS_ERR_RANGE, "drive", "%lu is not rwd (0) or fwd (1)",
                        (unsigned long)def->drive);
        return;
    }
    if (def->diff > RS_DIFF_LSD) {
        rs_json_fail_at(k, RS_ERR_RANGE, "differential.type",
                        "%lu is not open (0), locked (1) or lsd (2)", (unsigned long)def->diff);
        return;
    }
    if (def->diff == RS_DIFF_LSD) {
        check_rules(k, "differential", lsd_rules, COUNT(lsd_rules), def);
        return;
    }
    /* Unused fields are zero, so equal cars have equal blocks and hashes. */
    char path[96];
    for (size_t i = 0; i < COUNT(lsd_rules); i++)
        if (field_value(def, &lsd_rules[i]) != 0.0) {
            rs_json_fail_at(k, RS_ERR_RANGE,
                            join(path, sizeof path, "differential", lsd_rules[i].key),
                            "must be 0 unless type is lsd");
            return;
        }
}

rs_status rs_car_params_validate(const rs_car_params_data *def, char *err, size_t err_len)
{
    /* Sticky: the first bad field wins. */
    rs_json_ctx k = rs_json_ctx_init(NULL, err, err_len);
    if (!def) {
        rs_json_fail_at(&k, RS_ERR_ARG, "car", "no parameters");
        return k.status;
    }
    check_name(&k, def);
    check_rules(&k, "body", body_rules, COUNT(body_rules), def);
    check_inertia(&k, def);
    for (int i = 0; i < 2; i++) {
        check_rules(&k, axle_paths[i], axle_rules, COUNT(axle_rules), &def->axle[i]);
        check_tire(&k, axle_paths[i], &def->axle[i].tire);
    }
    check_axles(&k, def);
    check_rules(&k, "steering", steering_rules, COUNT(steering_rules), def);
    check_rules(&k, "aero", aero_rules, COUNT(aero_rules), def);
    check_engine(&k, def);
    check_rules(&k, "clutch", clutch_rules, COUNT(clutch_rules), def);
    check_gearbox(&k, def);
    check_differential(&k, def);
    check_rules(&k, "brakes", brakes_rules, COUNT(brakes_rules), def);
    return k.status;
}

/* ------------------------------------------------------------------- loading */

/* Checks obj's keys against a table plus extra keys. */
static void check_section_keys(rs_json_ctx *c, const rs_json *obj, const rule *rules, size_t n,
                               const char *const *extra, size_t n_extra)
{
    const char *allowed[24];
    size_t k = 0;
    for (size_t i = 0; i < n && k < COUNT(allowed); i++)
        allowed[k++] = rules[i].key;
    for (size_t i = 0; i < n_extra && k < COUNT(allowed); i++)
        allowed[k++] = extra[i];
    rs_json_check_keys(c, obj, allowed, k);
}

/* Reads every field of a table; ranges are the validator's job. */
static void read_rules(rs_json_ctx *c, const rs_json *obj, const rule *rules, size_t n, void *base)
{
    for (size_t i = 0; i < n; i++)
        rs_json_get_number(c, obj, rules[i].key, -DBL_MAX, DBL_MAX, field_at(base, &rules[i]));
}

/* Opens section key of obj: pushes it on the path and checks its keys. */
static const rs_json *open_section(rs_json_ctx *c, const rs_json *obj, const char *key,
                                   const rule *rules, size_t n, const char *const *extra,
                                   size_t n_extra, size_t *mark)
{
    const rs_json *sec = rs_json_get_object(c, obj, key);
    *mark = rs_json_ctx_push_key(c, key);
    check_section_keys(c, sec, rules, n, extra, n_extra);
    return sec;
}

/* Reads a simple section: a table of numbers and nothing else. */
static void read_section(rs_json_ctx *c, const rs_json *obj, const char *key, const rule *rules,
                         size_t n, void *base)
{
    size_t mark;
    const rs_json *sec = open_section(c, obj, key, rules, n, NULL, 0, &mark);
    read_rules(c, sec, rules, n, base);
    rs_json_ctx_pop(c, mark);
}

/* Picks a name from a list (its index is the enum value). */
static uint32_t read_choice(rs_json_ctx *c, const rs_json *obj, const char *key,
                            const char *const *names, size_t n)
{
    const char *s = NULL;
    if (!rs_json_get_string(c, obj, key, 32, &s))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return (uint32_t)i;
    size_t mark = rs_json_ctx_push_key(c, key);
    char list[96] = "";
    for (size_t i = 0; i < n; i++) {
        strcat(list, i ? (i + 1 == n ? " or \"" : ", \"") : "\"");
        strcat(list, names[i]);
        strcat(list, "\"");
    }
    rs_json_fail(c, RS_ERR_RANGE, "\"%s\" is not %s", s, list);
    rs_json_ctx_pop(c, mark);
    return 0;
}

/* The directory part of path, including its final separator ("" if none). */
static size_t dir_len(const char *path)
{
    size_t n = strlen(path);
    while (n > 0 && path[n - 1] != '/' && path[n - 1] != '\\')
        n--;
    return n;
}

static bool is_absolute(const char *p)
{
    return p[0] == '/' || p[0] == '\\' ||
           (((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':');
}

/* Loads the tyre named relative to the car file; its message is passed
 * through after the field path. */
static void read_tire(rs_json_ctx *c, const rs_json *axle, rs_tire_params *out)
{
    const char *rel = NULL;
    if (!rs_json_get_string(c, axle, "tyre", 1024, &rel))
        return;
    size_t mark = rs_json_ctx_push_key(c, "tyre");
    if (rel[0] == 0) {
        rs_json_fail(c, RS_ERR_RANGE, "empty file name");
    } else {
        size_t dn = is_absolute(rel) ? 0 : dir_len(c->file);
        char *full = malloc(dn + strlen(rel) + 1);
        if (!full) {
            rs_json_fail(c, RS_ERR_NOMEM, "out of memory");
        } else {
            char msg[256];
            memcpy(full, c->file, dn);
            strcpy(full + dn, rel);
            rs_status st = rs_tir_load(full, out, msg, sizeof msg);
            if (st != RS_OK)
                rs_json_fail(c, st, "%s", msg);
            free(full);
        }
    }
    rs_json_ctx_pop(c, mark);
}

static void read_body(rs_json_ctx *c, const rs_json *root, rs_car_params_data *def)
{
    static const char *const extra[] = {"inertia_kg_m2"};
    size_t mark, mark2;
    const rs_json *body =
        open_section(c, root, "body", body_rules, COUNT(body_rules), extra, COUNT(extra), &mark);
    read_rules(c, body, body_rules, COUNT(body_rules), def);
    const rs_json *inertia = open_section(c, body, "inertia_kg_m2", inertia_rules,
                                          COUNT(inertia_rules), NULL, 0, &mark2);
    read_rules(c, inertia, inertia_rules, COUNT(inertia_rules), def);
    rs_json_ctx_pop(c, mark2);
    rs_json_ctx_pop(c, mark);
}

static void read_axles(rs_json_ctx *c, const rs_json *root, rs_car_params_data *def)
{
    const rs_json *axles = rs_json_get_object(c, root, "axles");
    size_t mark = rs_json_ctx_push_key(c, "axles");
    rs_json_check_keys(c, axles, axle_names, 2);
    for (int i = 0; i < 2; i++) {
        static const char *const extra[] = {"tyre"};
        size_t mark2;
        const rs_json *a = open_section(c, axles, axle_names[i], axle_rules, COUNT(axle_rules),
                                        extra, COUNT(extra), &mark2);
        read_rules(c, a, axle_rules, COUNT(axle_rules), &def->axle[i]);
        read_tire(c, a, &def->axle[i].tire);
        rs_json_ctx_pop(c, mark2);
    }
    rs_json_ctx_pop(c, mark);
}

static void read_engine(rs_json_ctx *c, const rs_json *root, rs_car_params_data *def)
{
    static const char *const extra[] = {CURVE_KEY};
    size_t mark;
    const rs_json *eng = open_section(c, root, "engine", engine_rules, COUNT(engine_rules), extra,
                                      COUNT(extra), &mark);
    read_rules(c, eng, engine_rules, COUNT(engine_rules), def);
    const rs_json *curve = rs_json_get_array(c, eng, CURVE_KEY, 2, RS_MAX_CURVE_POINTS);
    size_t mark2 = rs_json_ctx_push_key(c, CURVE_KEY);
    size_t n = rs_json_count(curve);
    for (size_t i = 0; i < n && c->status == RS_OK; i++) {
        const rs_json *pt = rs_json_at(curve, i);
        size_t mark3 = rs_json_ctx_push_index(c, i);
        if (rs_json_as_array(c, pt, 2, 2)) {
            rs_json_as_number(c, rs_json_at(pt, 0), -DBL_MAX, DBL_MAX, &def->curve_rpm[i]);
            rs_json_as_number(c, rs_json_at(pt, 1), -DBL_MAX, DBL_MAX, &def->curve_nm[i]);
        }
        rs_json_ctx_pop(c, mark3);
    }
    def->curve_points = (uint32_t)n;
    rs_json_ctx_pop(c, mark2);
    rs_json_ctx_pop(c, mark);
}

static void read_gearbox(rs_json_ctx *c, const rs_json *root, rs_car_params_data *def)
{
    static const char *const extra[] = {RATIOS_KEY};
    size_t mark;
    const rs_json *box = open_section(c, root, "gearbox", gearbox_rules, COUNT(gearbox_rules),
                                      extra, COUNT(extra), &mark);
    const rs_json *ratios = rs_json_get_array(c, box, RATIOS_KEY, 1, RS_MAX_GEARS);
    size_t mark2 = rs_json_ctx_push_key(c, RATIOS_KEY);
    size_t n = rs_json_count(ratios);
    for (size_t i = 0; i < n; i++) {
        size_t mark3 = rs_json_ctx_push_index(c, i);
        rs_json_as_number(c, rs_json_at(ratios, i), -DBL_MAX, DBL_MAX, &def->gear_ratio[i]);
        rs_json_ctx_pop(c, mark3);
    }
    def->gears = (uint32_t)n;
    rs_json_ctx_pop(c, mark2);
    read_rules(c, box, gearbox_rules, COUNT(gearbox_rules), def);
    rs_json_ctx_pop(c, mark);
}

static void read_differential(rs_json_ctx *c, const rs_json *root, rs_car_params_data *def)
{
    static const char *const extra[] = {"type"};
    size_t mark;
    const rs_json *diff = open_section(c, root, "differential", lsd_rules, COUNT(lsd_rules), extra,
                                       COUNT(extra), &mark);
    def->diff = read_choice(c, diff, "type", diff_names, COUNT(diff_names));
    if (def->diff == RS_DIFF_LSD) {
        read_rules(c, diff, lsd_rules, COUNT(lsd_rules), def);
    } else {
        for (size_t i = 0; i < COUNT(lsd_rules); i++) {
            if (c->status == RS_OK && rs_json_get(diff, lsd_rules[i].key)) {
                size_t mark2 = rs_json_ctx_push_key(c, lsd_rules[i].key);
                rs_json_fail(c, RS_ERR_PARSE, "only used when type is \"lsd\"");
                rs_json_ctx_pop(c, mark2);
            }
        }
    }
    rs_json_ctx_pop(c, mark);
}

/* Reads the whole definition into def (zeroed by the caller). */
static void read_car(rs_json_ctx *c, const rs_json *root, rs_car_params_data *def)
{
    static const char *const top[] = {"name",   "source",  "body",         "axles",
                                      "steering", "aero",  "engine",       "clutch",
                                      "gearbox", "differential", "drive", "brakes",
                                      "adjustable"};
    const char *name = NULL, *source = NULL;
    rs_json_check_keys(c, root, top, COUNT(top));
    if (rs_json_get_string(c, root, "name", RS_NAME_MAX - 1, &name))
        memcpy(def->name, name, strlen(name) + 1);
    if (rs_json_get_string(c, root, "source", SOURCE_MAX, &source) && source[0] == 0) {
        size_t mark = rs_json_ctx_push_key(c, "source");
        rs_json_fail(c, RS_ERR_RANGE, "empty (say where the figures come from)");
        rs_json_ctx_pop(c, mark);
    }
    read_body(c, root, def);
    read_axles(c, root, def);
    read_section(c, root, "steering", steering_rules, COUNT(steering_rules), def);
    read_section(c, root, "aero", aero_rules, COUNT(aero_rules), def);
    read_engine(c, root, def);
    read_section(c, root, "clutch", clutch_rules, COUNT(clutch_rules), def);
    read_gearbox(c, root, def);
    read_differential(c, root, def);
    def->drive = read_choice(c, root, "drive", drive_names, COUNT(drive_names));
    read_section(c, root, "brakes", brakes_rules, COUNT(brakes_rules), def);
}

rs_status rs_car_params_load(const char *path, rs_car_params **out, char *err, size_t err_len)
{
    rs_json_doc *doc = NULL;
    rs_car_params_data *def = NULL;
    rs_tune_rules rules;
    char scratch[1];
    if (!err || !err_len) {
        err = scratch;
        err_len = sizeof scratch;
    }
    err[0] = 0;
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    if (!path) {
        rs_errf(err, err_len, "no path");
        return RS_ERR_ARG;
    }
    rs_status st = rs_json_load(path, &doc, err, err_len);
    if (st != RS_OK)
        goto fail;
    def = calloc(1, sizeof *def); /* zeroed: unused array slots and padding too */
    if (!def) {
        st = RS_ERR_NOMEM;
        rs_errf(err, err_len, "%s: out of memory", path);
        goto fail;
    }
    rs_json_ctx c = rs_json_ctx_init(path, err, err_len);
    read_car(&c, rs_json_root(doc), def);
    if (c.status == RS_OK) {
        char msg[256];
        rs_status vs = rs_car_params_validate(def, msg, sizeof msg);
        if (vs != RS_OK)
            rs_json_fail(&c, vs, "%s", msg);
    }
    /* The tuning rules are checked against the validated stock car. */
    rs_tune_rules_read(&c, rs_json_get(rs_json_root(doc), "adjustable"), def, &rules);
    st = c.status;
    if (st != RS_OK)
        goto fail;
    st = rs_car_params_wrap(def, out);
    if (st != RS_OK) {
        rs_errf(err, err_len, "%s: cannot build the parameter block (%s)", path,
                st == RS_ERR_NOMEM ? "out of memory" : "internal error");
        goto fail;
    }
    (*out)->rules = rules;
    free(def);
    rs_json_free(doc);
    return RS_OK;

fail:
    free(def);
    rs_json_free(doc);
    return st;
}

const char *rs_car_params_name(const rs_car_params *params)
{
    return params ? params->def.name : "";
}

void rs_car_params_destroy(rs_car_params *params) { free(params); }
