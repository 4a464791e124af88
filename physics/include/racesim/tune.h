/*
 * racesim tunes: a player's overrides of a car's adjustable parameters.
 *
 * A tune is a small JSON document (docs/TUNES.md) whose field paths are the
 * car file's own ("gearbox.final_drive", "axles.front.spring_n_m"). Each car
 * file says in its "adjustable" section which parameters a tune may set and
 * within what range; a car without that section accepts only the empty
 * (stock) tune. Applying a tune builds a new, immutable rs_car_params whose
 * canonical block and hash differ from the stock car's wherever the tune
 * changed something, so a tuned car is simply another car to the world,
 * the snapshot and every client.
 *
 * Tunes are applied on the server, to cars loaded from JSON: a car rebuilt
 * from a parameter block carries no tuning rules.
 */
#ifndef RACESIM_TUNE_H
#define RACESIM_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The "format" and "version" a tune may state. */
#define RS_TUNE_FORMAT "racesim-tune"
#define RS_TUNE_VERSION 1

/* Validates the tune (len bytes of JSON text; name only appears in
 * messages) against base's tuning rules and builds the tuned car.
 *
 * Every problem is reported, not just the first: err receives
 * "name: field: problem; field: problem; ..." with each bad value and its
 * legal range ("gearbox.ratios[2]: 0.1 outside 0.5..3.5"), ending in "..."
 * if err is too small. An illegal tune is rejected whole: *out stays NULL
 * and *tune_hash 0. Statuses: RS_ERR_PARSE (not JSON, unknown field, wrong
 * kind), RS_ERR_RANGE (a value outside its range, a structural rule broken,
 * a parameter this car does not let tunes change), RS_ERR_MISMATCH (the
 * tune names another car), RS_ERR_ARG, RS_ERR_NOMEM; with several problems
 * the first one's status.
 *
 * On success *out is the tuned car (caller frees with
 * rs_car_params_destroy; it keeps base's tuning rules, base is not kept) and
 * *tune_hash identifies the overrides: a 64-bit hash of their canonical
 * form, independent of key order, whitespace and number spelling ("3.40",
 * "3.4", "34e-1" are one value). The empty tune {} is the stock tune, with
 * hash 0, and *out is then a copy of the stock car. tune_hash may be NULL. */
rs_status rs_tune_apply(const rs_car_params *base, const char *tune_json, size_t len,
                        const char *name, rs_car_params **out, uint64_t *tune_hash, char *err,
                        size_t err_len);

/* Number of parameters a tune may set on this car (0: stock only). */
uint32_t rs_tune_adjustable_count(const rs_car_params *car);

/* Describes the car's adjustable parameters as one JSON object:
 * {"car":"<params hash, 16 hex>","name":"...","adjustable":[{"field":
 * "gearbox.final_drive","min":2.8,"max":4.5,"stock":3.42}, ...]} (the gear
 * ratios' stock value is an array), in the canonical parameter order.
 * Returns the text's length without the NUL; writes text and NUL only when
 * buf is non-NULL and cap exceeds that length (size-query idiom). Never
 * fails. */
size_t rs_tune_rules_json(const rs_car_params *car, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
