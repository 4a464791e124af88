/*
 * Tuning rules: which of a car's parameters a tune may change and within
 * what range (docs/TUNES.md). They come from the optional "adjustable"
 * section of a car JSON file and live beside the parameters, outside the
 * canonical block: they say what a player may do with the car, not what the
 * car is, so a stock car's block and hash do not depend on them, and a car
 * rebuilt from a block has none (tunes are applied on the server, to cars
 * loaded from JSON).
 *
 * One table (tune_rules.c) names every tunable parameter by its field path,
 * which is the same path in the car file, in its "adjustable" section and in
 * a tune, so the loader, the tune reader and every message agree.
 */
#ifndef RS_TUNE_RULES_H
#define RS_TUNE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"

/* Every tunable parameter, in canonical (hash) order. */
typedef enum rs_tune_param {
    RS_TUNE_GEAR_RATIOS = 0, /* every forward gear; one range for all */
    RS_TUNE_FINAL_DRIVE,
    RS_TUNE_BRAKE_BIAS_FRONT,  /* front axle's brake share; the rear gets the rest */
    RS_TUNE_SPRING_FRONT,
    RS_TUNE_SPRING_REAR,
    RS_TUNE_BUMP_FRONT,
    RS_TUNE_BUMP_REAR,
    RS_TUNE_REBOUND_FRONT,
    RS_TUNE_REBOUND_REAR,
    RS_TUNE_ARB_FRONT,
    RS_TUNE_ARB_REAR,
    RS_TUNE_CAMBER_FRONT,
    RS_TUNE_CAMBER_REAR,
    RS_TUNE_TOE_FRONT,
    RS_TUNE_TOE_REAR,
    RS_TUNE_DOWNFORCE_FRONT,
    RS_TUNE_DOWNFORCE_REAR,
    RS_TUNE_DIFF_PRELOAD,
    RS_TUNE_DIFF_POWER_RAMP,
    RS_TUNE_DIFF_COAST_RAMP,
    RS_TUNE_RIDE_HEIGHT,       /* offset from the design ride height, both axles (+ = up) */
    RS_TUNE_PARAM_COUNT
} rs_tune_param;

/* One parameter's legal range, inclusive. */
typedef struct rs_tune_range {
    bool adjustable; /* false: a tune may not set it */
    double min, max;
} rs_tune_range;

typedef struct rs_tune_rules {
    rs_tune_range range[RS_TUNE_PARAM_COUNT];
} rs_tune_rules;

struct rs_car_params_data;
struct rs_json_ctx;
struct rs_json;

/* The parameter's field path ("axles.front.spring_n_m"). Never fails for a
 * valid index. */
const char *rs_tune_param_path(rs_tune_param p);

/* The stock value of a scalar parameter (not RS_TUNE_GEAR_RATIOS) in def;
 * 0 for the ride-height offset, which is relative to the design. */
double rs_tune_param_get(const struct rs_car_params_data *def, rs_tune_param p);

/* Writes a scalar parameter (brake bias sets both axles' shares; the
 * ride-height offset moves everything that hangs on it, once: call it on
 * stock data). */
void rs_tune_param_set(struct rs_car_params_data *def, rs_tune_param p, double v);

/* The absolute range the car validator allows for the parameter, which
 * every legal range must lie inside. */
void rs_tune_param_limits(rs_tune_param p, double *min, double *max);

/* Reads a car file's "adjustable" section (obj; NULL means absent: nothing
 * adjustable) into *out, for the stock data def. Each leaf is [min, max]; the
 * range must be ordered, inside the validator's limits and contain the stock
 * value. Errors go to the sticky field reader c (first one wins). */
void rs_tune_rules_read(struct rs_json_ctx *c, const struct rs_json *obj,
                        const struct rs_car_params_data *def, rs_tune_rules *out);

/* Checks the keys of obj (a tune or an "adjustable" section, at the root
 * when prefix is "") against the table: every key must be a parameter's path
 * or an object on the way to one; the n_skip root keys in skip are left to
 * the caller. Calls bad(ctx, path, what) for each unknown field and each
 * non-object on the way (leaves are not inspected). Returns the number of
 * problems found. */
size_t rs_tune_check_shape(const struct rs_json *obj, const char *prefix,
                           const char *const *skip, size_t n_skip,
                           void (*bad)(void *ctx, const char *path, const char *what),
                           void *ctx);

/* The value at a parameter's path inside obj, or NULL when absent (or when
 * something on the way is not an object). */
const struct rs_json *rs_tune_find(const struct rs_json *obj, rs_tune_param p);

#endif
