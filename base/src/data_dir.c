/*
 * The data folder (racesim/base/data_dir.h).
 */
#define _POSIX_C_SOURCE 200809L /* readlink */

#include "racesim/base/data_dir.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An installed program's data folder, relative to the program's own folder
 * (cmake/install.cmake defines it from the install layout). */
#ifndef RS_DATA_FROM_BIN
#define RS_DATA_FROM_BIN "../share/racesim/data"
#endif

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

#ifndef RS_WEB_FROM_BIN
#define RS_WEB_FROM_BIN "../share/racesim/web"
#endif

/* $env, else <program's folder>/from_bin, else built_in, else fallback. */
static void find_dir(const char *env_name, const char *from_bin, const char *built_in,
                     const char *fallback, char *out, size_t cap)
{
    const char *env = getenv(env_name);
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return;
    }
    /* An installed copy first: it must not read the source tree it was
     * built from, which may have moved on since. A program in the build
     * tree has no such folder beside it. */
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        if (snprintf(out, cap, "%s/%s", exe, from_bin) < (int)cap && is_dir(out))
            return;
    }
    if (built_in && is_dir(built_in)) {
        snprintf(out, cap, "%s", built_in);
        return;
    }
    snprintf(out, cap, "%s", fallback);
}

void rs_data_dir_find(const char *built_in, char *out, size_t cap)
{
    find_dir("RS_DATA_DIR", RS_DATA_FROM_BIN, built_in, "data", out, cap);
}

void rs_web_dir_find(const char *built_in, char *out, size_t cap)
{
    find_dir("RS_WEB_DIR", RS_WEB_FROM_BIN, built_in, "", out, cap);
}
