/* Test data loading and temporary databases (test_data.h). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include "test_data.h"
#include "racesim/base/file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RS_DATA_DIR
#define RS_DATA_DIR "data"
#endif

const char *test_data_dir(void)
{
    const char *d = getenv("RS_DATA_DIR");
    return d && *d ? d : RS_DATA_DIR;
}

bool test_track_load(const char *name, rs_track **track, char **json, size_t *json_len)
{
    char path[1024], err[512] = "";
    snprintf(path, sizeof path, "%s/tracks/%s.json", test_data_dir(), name);
    char *text = NULL;
    size_t size = 0;
    bool ok = rs_file_read(path, 0, &text, &size, err, sizeof err) == RS_FILE_OK;
    if (!ok)
        fprintf(stderr, "%s\n", err);
    if (ok && rs_track_parse(text, size, path, track, err, sizeof err) != RS_OK) {
        fprintf(stderr, "%s\n", err);
        ok = false;
    }
    if (!ok) {
        free(text);
        return false;
    }
    *json = text;
    *json_len = (size_t)size;
    return true;
}

bool test_car_load(const char *name, rs_car_params **car)
{
    char path[1024], err[512] = "";
    snprintf(path, sizeof path, "%s/cars/%s.json", test_data_dir(), name);
    if (rs_car_params_load(path, car, err, sizeof err) != RS_OK) {
        fprintf(stderr, "%s\n", err);
        return false;
    }
    return true;
}

void test_db_remove(const char *path)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    char p[1024];
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        remove(p);
    }
}

bool test_tmpdb_make(test_tmpdb *db)
{
    /* /tmp, not $TMPDIR: a test that drops root privileges must still reach
     * the file. */
    snprintf(db->dir, sizeof db->dir, "/tmp/rs_test_XXXXXX");
    if (!mkdtemp(db->dir)) {
        perror(db->dir);
        return false;
    }
    snprintf(db->path, sizeof db->path, "%s/race.db", db->dir);
    return true;
}

void test_tmpdb_remove(const test_tmpdb *db)
{
    test_db_remove(db->path);
    chmod(db->dir, 0700);
    rmdir(db->dir);
}

int test_tmpdb_setup(void **state)
{
    test_tmpdb *db = calloc(1, sizeof *db);
    *state = db;
    return db && test_tmpdb_make(db) ? 0 : -1;
}

int test_tmpdb_teardown(void **state)
{
    if (*state)
        test_tmpdb_remove(*state);
    free(*state);
    return 0;
}

bool test_scene_load(const char *track, const char *car, bool with_line, test_scene *out)
{
    memset(out, 0, sizeof *out);
    bool ok = test_track_load(track, &out->track, &out->json, &out->json_len) &&
              test_car_load(car, &out->car);
    if (ok && with_line && rs_racing_line_build(out->track, out->car, NULL, &out->line) != RS_OK) {
        fprintf(stderr, "%s on %s: no racing line\n", car, track);
        ok = false;
    }
    if (!ok)
        test_scene_free(out);
    return ok;
}

void test_scene_free(test_scene *s)
{
    rs_racing_line_destroy(s->line);
    rs_car_params_destroy(s->car);
    rs_track_destroy(s->track);
    free(s->json);
    memset(s, 0, sizeof *s);
}
