/*
 * racesim balance of performance: ballast and an engine restrictor, the
 * two handicaps race organisers use to bring different cars closer
 * together (docs/CARS.md, "Balance of performance").
 *
 * Like a tune (racesim/tune.h), balance of performance builds a new,
 * immutable rs_car_params: its canonical block and hash differ from the
 * base car's, so to the world, the snapshot, lap proofs and every client a
 * handicapped car is simply another car, rebuilt from its block like any
 * other. Nothing in the simulation knows about balance of performance.
 */
#ifndef RACESIM_BOP_H
#define RACESIM_BOP_H

#include <stddef.h>

#include "racesim/physics.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RS_BOP_BALLAST_MAX_KG 500.0
#define RS_BOP_RESTRICTOR_MAX_PCT 90.0

/* Builds base with balance of performance:
 *
 * ballast_kg (0..RS_BOP_BALLAST_MAX_KG) is added to the total mass as a
 * point mass at the centre of mass. The centre of mass therefore stays
 * where it is, and with it the axle positions (measured from it), the
 * lever-rule split of the static axle loads and the inertia tensor (about
 * the centre of mass, which a point mass there does not change). The
 * ballast is sprung mass: the static loads, spring preloads and tyre sag
 * grow with it, derived from the new mass as for any loaded car, so the
 * car still sits at its design ride height.
 *
 * restrictor_pct (0..RS_BOP_RESTRICTOR_MAX_PCT) scales the engine's
 * full-throttle torque curve by (100 - restrictor_pct) / 100, so power at
 * every engine speed drops by that fraction. Engine braking (the torque at
 * closed throttle), the rev limits and the inertias are unchanged.
 *
 * 0 and 0 give a car equal to base (the same canonical block and hash).
 * The new car keeps base's tuning rules, as rs_tune_apply's result does,
 * so a tuned car may be given balance of performance and a handicapped car
 * may still be tuned. base is not kept; the caller frees *out with
 * rs_car_params_destroy.
 *
 * Errors (*out is NULL, err says why): RS_ERR_RANGE for an argument that
 * is NaN or outside its range ("restrictor_pct: 95 outside 0..90"), or a
 * car the validator refuses (a base car so heavy the ballast takes it past
 * the mass limit: "balance of performance: the car is not valid:
 * body.mass_kg: ..."); RS_ERR_ARG for a NULL base or out; RS_ERR_NOMEM. */
rs_status rs_car_params_bop(const rs_car_params *base, double ballast_kg, double restrictor_pct,
                            rs_car_params **out, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
