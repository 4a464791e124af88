/* Test data loading (test_data.h). */
#include "test_data.h"

#include <stdio.h>
#include <stdlib.h>

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
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return false;
    }
    char *text = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (size > 0 && fseek(f, 0, SEEK_SET) == 0)
        text = malloc((size_t)size);
    bool ok = text && fread(text, 1, (size_t)size, f) == (size_t)size;
    fclose(f);
    if (ok && rs_track_parse(text, (size_t)size, path, track, err, sizeof err) != RS_OK) {
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
