/*
 * The project's own data (data/: tracks, cars) for tests: where it is and
 * how to load the usual pieces. RS_DATA_DIR in the environment (ctest sets
 * it) overrides the build's default.
 */
#ifndef RS_TEST_DATA_H
#define RS_TEST_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include "racesim/driver.h"
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

/* Removes an SQLite database file and its companions (-wal, -shm,
 * -journal); missing ones are fine. */
void test_db_remove(const char *path);

/* A fresh temporary directory and the path of a database in it, for the
 * tests of the store and of what uses it. */
typedef struct test_tmpdb {
    char dir[64];
    char path[128]; /* dir/race.db, not created */
} test_tmpdb;

/* Makes the directory /tmp/rs_test_XXXXXX. false on error, with the reason
 * on stderr. */
bool test_tmpdb_make(test_tmpdb *db);

/* Removes the database (test_db_remove) and the directory, first making the
 * directory writable again (a test may have taken that away). */
void test_tmpdb_remove(const test_tmpdb *db);

/* cmocka set-up and tear-down for tests whose state is a test_tmpdb. */
int test_tmpdb_setup(void **state);
int test_tmpdb_teardown(void **state);

/* What the room tests race on: a track with its JSON text, a stock car and,
 * when asked, the AI's racing line for them. */
typedef struct test_scene {
    rs_track *track;
    char *json;
    size_t json_len;
    rs_car_params *car;
    rs_racing_line *line; /* NULL unless with_line */
} test_scene;

/* Loads data/tracks/TRACK.json and data/cars/CAR.json into *out. false on
 * error (reason on stderr), with whatever was loaded freed. */
bool test_scene_load(const char *track, const char *car, bool with_line, test_scene *out);

/* Frees what test_scene_load loaded. Accepts a zeroed scene. */
void test_scene_free(test_scene *s);

#endif
