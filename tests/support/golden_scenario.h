/*
 * The golden determinism scenario: 8 cars (both shipped car definitions)
 * driven by a scripted, time-varying input program for 60 simulated seconds
 * at 60 Hz on the flat ground. Every build on every architecture must produce
 * the same per-tick hashes; tests/test_world.c checks the final hash against
 * the checked-in golden value and tests/determinism/cross_check.sh compares
 * full traces across compilers and architectures.
 */
#ifndef RS_GOLDEN_SCENARIO_H
#define RS_GOLDEN_SCENARIO_H

#include <stdint.h>

#include "racesim/physics.h"

#define RS_GOLDEN_CARS 8
#define RS_GOLDEN_TICKS (60u * 60u)

/* The final world hash of the scenario. Changes only in a commit that says
 * why (and bumps RS_PHYSICS_VERSION when results changed). */
#define RS_GOLDEN_HASH 0x59398d0fe0b8c8ffull

typedef struct rs_golden rs_golden;

/* Loads the cars from data_dir (the project's data/ folder) and builds the
 * world. Caller frees with rs_golden_destroy. err names what failed. */
rs_status rs_golden_create(const char *data_dir, rs_golden **out, char *err, size_t err_len);
void rs_golden_destroy(rs_golden *g);

/* The world (borrowed until rs_golden_destroy). */
rs_world *rs_golden_world(rs_golden *g);

/* The scripted input of car i (0-based) for a tick: a pure function. */
rs_input rs_golden_input(uint32_t car, uint64_t tick);

/* Sets this tick's inputs and steps once. */
rs_status rs_golden_step(rs_golden *g);

#endif
