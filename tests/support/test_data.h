/*
 * The project's own data (data/: tracks, cars) for tests: where it is and
 * how to load the usual pieces. RS_DATA_DIR in the environment (ctest sets
 * it) overrides the build's default.
 */
#ifndef RS_TEST_DATA_H
#define RS_TEST_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include "racesim/physics.h"
#include "racesim/track.h"

/* The data directory (never NULL). */
const char *test_data_dir(void);

/* Loads data/tracks/NAME.json: the track and its JSON text (what a room
 * sends to clients; malloc'd, caller frees). false on error, with the
 * reason on stderr. */
bool test_track_load(const char *name, rs_track **track, char **json, size_t *json_len);

/* Loads data/cars/NAME.json. false on error, with the reason on stderr. */
bool test_car_load(const char *name, rs_car_params **car);

#endif
