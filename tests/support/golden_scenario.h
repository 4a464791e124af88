/*
 * The golden determinism scenario: a 3-lap race of 8 AI-driven cars (both
 * shipped car definitions, alternating on the grid) on the shipped technical
 * track, car-vs-car collisions on, from a standing start, with one scripted
 * driver error that puts a car into the barrier. It exercises the tyres,
 * drivetrain (manual and automatic gearboxes), suspension, track surfaces,
 * barrier and car collisions, lap timing and the AI driver (racing, traffic,
 * recovery), which all feed the hash. Every build on every
 * architecture must produce the same per-tick hashes; tests/test_world.c
 * checks the final hash against the checked-in golden value and
 * tests/determinism/cross_check.sh compares full traces across compilers and
 * architectures.
 */
#ifndef RS_GOLDEN_SCENARIO_H
#define RS_GOLDEN_SCENARIO_H

#include <stdint.h>

#include "racesim/physics.h"

#define RS_GOLDEN_CARS 8
#define RS_GOLDEN_LAPS 3
#define RS_GOLDEN_TRACK "tracks/technical.json"
/* Long enough for every car to finish (the race is over well before) plus a
 * cool-down: the scenario always runs exactly this many ticks. */
#define RS_GOLDEN_TICKS (60u * 350u)
/* When slot 6's driver makes its scripted mistake (golden_scenario.c). */
#define RS_GOLDEN_BLUNDER_TICK (60u * 75u)

/* The final world hash of the scenario. Changes only in a commit that says
 * why (and bumps RS_PHYSICS_VERSION when results changed). */
#define RS_GOLDEN_HASH 0x35ef21b437836265ull

typedef struct rs_golden rs_golden;

/* Loads the cars and the track from data_dir (the project's data/ folder),
 * builds the racing lines, the world and one AI driver per car. Caller frees with rs_golden_destroy. err names what failed. */
rs_status rs_golden_create(const char *data_dir, rs_golden **out, char *err, size_t err_len);
void rs_golden_destroy(rs_golden *g);

/* The world (borrowed until rs_golden_destroy). */
rs_world *rs_golden_world(rs_golden *g);

/* The inputs the drivers chose for the last step, one per car. */
const rs_input *rs_golden_last_inputs(const rs_golden *g);

/* Sets this tick's inputs (from the AI drivers) and steps once. */
rs_status rs_golden_step(rs_golden *g);

#endif
