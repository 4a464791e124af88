/*
 * Balance of performance (racesim/bop.h): ballast and a restrictor applied
 * to a copy of a car's data, which then takes the same path as a loaded or
 * tuned car (rs_car_params_rebuild: validation, the canonical block, the
 * hash), so nothing derived from the mass or the engine can be left stale.
 */
#include <stdlib.h>

#include "racesim/bop.h"
#include "racesim/base/err.h"

#include "carparams.h"
#include "json.h"

/* "name: value outside 0..max" for a value not in 0..max (NaN included). */
static bool in_range(double v, double max, const char *name, char *err, size_t err_len)
{
    if (v >= 0.0 && v <= max)
        return true;
    char a[32], hi[32];
    rs_json_format_number(v, a);
    rs_json_format_number(max, hi);
    rs_errf(err, err_len, "%s: %s outside 0..%s", name, a, hi);
    return false;
}

/* The changes themselves. A point mass at the centre of mass adds to the
 * mass and nothing else (no axle moves, no inertia about the centre of mass
 * changes). Zero changes nothing, bit for bit: x + 0 and x * 1 are x. */
static void apply(rs_car_params_data *def, double ballast_kg, double restrictor_pct)
{
    def->mass_kg += ballast_kg;
    /* (100 - pct) / 100 is the correctly rounded fraction for a whole
     * percentage (0.9 for 10), which 1 - pct / 100 need not be. */
    double scale = (100.0 - restrictor_pct) / 100.0;
    for (uint32_t i = 0; i < def->curve_points; i++)
        def->curve_nm[i] *= scale;
}

rs_status rs_car_params_bop(const rs_car_params *base, double ballast_kg, double restrictor_pct,
                            rs_car_params **out, char *err, size_t err_len)
{
    if (err && err_len)
        err[0] = 0;
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    if (!base) {
        rs_errf(err, err_len, "balance of performance: no car");
        return RS_ERR_ARG;
    }
    if (!in_range(ballast_kg, RS_BOP_BALLAST_MAX_KG, "ballast_kg", err, err_len) ||
        !in_range(restrictor_pct, RS_BOP_RESTRICTOR_MAX_PCT, "restrictor_pct", err, err_len))
        return RS_ERR_RANGE;
    rs_car_params_data *def = malloc(sizeof *def);
    if (!def) {
        rs_errf(err, err_len, "balance of performance: out of memory");
        return RS_ERR_NOMEM;
    }
    *def = base->def;
    apply(def, ballast_kg, restrictor_pct);
    char msg[320];
    rs_status st = rs_car_params_rebuild(def, &base->rules, "the car", out, msg, sizeof msg);
    if (st != RS_OK)
        rs_errf(err, err_len, "balance of performance: %s", msg);
    free(def);
    return st;
}
