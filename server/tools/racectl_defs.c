/*
 * How racectl finds a track or a stock car an operator names: by its hash,
 * by the name stored in the database ("Kestrel Ridge Circuit", any case),
 * or by the file raceserver was started with ("--track technical" means
 * <data>/tracks/technical.json, a path to a .json file is taken as it is,
 * exactly as raceserver reads them). The database knows names and hashes
 * only, so a file is loaded and its hash looked up: that is the very
 * definition the server stored, even when several versions of the file
 * (same name, different hashes) have been raced.
 */
#define _POSIX_C_SOURCE 200809L /* opendir, stat */

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "racectl.h"
#include "racesim/base/data_dir.h"
#include "racesim/physics.h"
#include "racesim/track.h"

enum { PATH_CAP = 1024, LISTED = 50 };

typedef struct def_kind {
    const char *noun;   /* "track" */
    const char *opt;    /* "--track" */
    const char *folder; /* its files' folder under the data folder */
    rs_status (*find)(rs_leaderboard *lb, const char *name_or_hash, uint64_t *hash,
                      char *name_out, char *err, size_t err_len);
    rs_status (*list)(rs_leaderboard *lb, uint32_t limit, rs_lb_definition *defs,
                      uint32_t *count, char *err, size_t err_len);
    /* Loads a file: the hash the database keys it by, and its name. */
    rs_status (*load)(const char *path, uint64_t *hash, char name[RS_LB_NAME_MAX], char *err,
                      size_t err_len);
} def_kind;

static rs_status load_track(const char *path, uint64_t *hash, char name[RS_LB_NAME_MAX],
                            char *err, size_t err_len)
{
    rs_track *t = NULL;
    rs_status st = rs_track_load(path, &t, err, err_len);
    if (st != RS_OK)
        return st;
    *hash = rs_track_hash(t);
    rs_str_cut(name, RS_LB_NAME_MAX, rs_track_name(t));
    rs_track_destroy(t);
    return RS_OK;
}

static rs_status load_car(const char *path, uint64_t *hash, char name[RS_LB_NAME_MAX], char *err,
                          size_t err_len)
{
    rs_car_params *p = NULL;
    rs_status st = rs_car_params_load(path, &p, err, err_len);
    if (st != RS_OK)
        return st;
    *hash = rs_car_params_hash(p);
    rs_str_cut(name, RS_LB_NAME_MAX, rs_car_params_name(p));
    rs_car_params_destroy(p);
    return RS_OK;
}

static const def_kind tracks = {"track", "--track", "tracks", rs_leaderboard_find_track,
                                 rs_leaderboard_tracks, load_track};
static const def_kind cars = {"car", "--car", "cars", rs_leaderboard_find_car,
                               rs_leaderboard_cars, load_car};

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The folder of kind's files (<data>/tracks). */
static void kind_folder(const def_kind *k, char out[PATH_CAP])
{
    char data[PATH_CAP - 16];
    rs_data_dir_find(RS_DATA_DIR, data, sizeof data);
    snprintf(out, PATH_CAP, "%s/%s", data, k->folder);
}

/* The file text names as raceserver reads it: a bare name ("oval") is
 * <data>/<folder>/oval.json, anything with a '/' or ending in .json a path. */
static void file_path(const def_kind *k, const char *text, char out[PATH_CAP])
{
    size_t n = strlen(text);
    bool bare = !strchr(text, '/') && !(n >= 5 && strcmp(text + n - 5, ".json") == 0);
    if (!bare) {
        snprintf(out, PATH_CAP, "%s", text);
        return;
    }
    char folder[PATH_CAP];
    kind_folder(k, folder);
    if (snprintf(out, PATH_CAP, "%s/%s.json", folder, text) >= PATH_CAP)
        out[0] = '\0'; /* too long to be a file: no file */
}

/* A definition file in the data folder: its hash and stem ("oval"). */
typedef struct data_file {
    uint64_t hash;
    char stem[64];
} data_file;

/* Loads every file of the folder (at most cap; those that do not load are
 * left out): how raceserver would be told to use each stored definition. */
static size_t scan_folder(const def_kind *k, const char *folder, data_file *files, size_t cap)
{
    size_t n = 0;
    DIR *d = opendir(folder);
    if (!d)
        return 0;
    struct dirent *e;
    while (n < cap && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0 ||
            len - 5 >= sizeof files[n].stem)
            continue;
        char path[PATH_CAP * 2], name[RS_LB_NAME_MAX], err[512];
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        if (k->load(path, &files[n].hash, name, err, sizeof err) != RS_OK)
            continue;
        snprintf(files[n].stem, sizeof files[n].stem, "%.*s", (int)(len - 5), e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

/* Under an error: every stored definition of kind as the operator can
 * name it (hash, the data file's stem, name). */
static void print_known(rc_ctx *c, const def_kind *k)
{
    rs_lb_definition defs[LISTED + 1];
    data_file files[LISTED];
    uint32_t n = 0;
    char err[512], folder[PATH_CAP];
    if (k->list(c->lb, LISTED + 1, defs, &n, err, sizeof err) != RS_OK) {
        fprintf(stderr, "(listing the stored %ss failed: %s)\n", k->noun, err);
        return;
    }
    if (n == 0) {
        fprintf(stderr, "the database has no %ss yet: raceserver stores each one it races\n",
                k->noun);
        return;
    }
    kind_folder(k, folder);
    size_t file_count = scan_folder(k, folder, files, LISTED);
    fprintf(stderr,
            "%ss in the database: give %s the hash, the file name raceserver was given\n"
            "(files in %s) or the name in any case\n  %-16s  %-14s  %s\n",
            k->noun, k->opt, folder, "HASH", "FILE", "NAME");
    for (uint32_t i = 0; i < n && i < LISTED; i++) {
        const char *stem = "-";
        for (size_t f = 0; f < file_count; f++)
            if (files[f].hash == defs[i].hash)
                stem = files[f].stem;
        char hex[17];
        rc_hash_str(defs[i].hash, hex);
        fprintf(stderr, "  %-16s  %-14s  %s\n", hex, stem, defs[i].name);
    }
    if (n > LISTED)
        fprintf(stderr, "  (and more: only the first %d are listed)\n", LISTED);
}

/* Fails naming why, then lists what the operator could have typed. */
static int fail_listing(rc_ctx *c, const char *cmd, const def_kind *k, const char *why)
{
    rs_fail(cmd, "%s: %s", k->opt, why);
    print_known(c, k);
    return RC_EXIT_FAIL;
}

static int find_definition(rc_ctx *c, const char *cmd, const def_kind *k, const char *text,
                           uint64_t *hash, char name[RS_LB_NAME_MAX])
{
    if (!c->lb)
        return rs_usage_error(cmd, "no database");
    char err[512], why[PATH_CAP + 1024], path[PATH_CAP];
    /* By hash or stored name; several definitions with that name is an
     * answer too (the listing shows their hashes). */
    uint64_t by_name = 0;
    char stored_name[RS_LB_NAME_MAX];
    rs_status named = k->find(c->lb, text, &by_name, stored_name, err, sizeof err);
    if (named == RS_ERR_RANGE)
        return fail_listing(c, cmd, k, err);
    if (named != RS_OK && named != RS_ERR_MISSING)
        return rs_fail(cmd, "%s: %s", k->opt, err);

    /* By file: load it, then look its hash up. */
    enum { NO_FILE, BAD_FILE, NOT_STORED, STORED } file = NO_FILE;
    uint64_t file_hash = 0, by_file = 0;
    char file_name[RS_LB_NAME_MAX] = "", file_err[512] = "", hex[17];
    file_path(k, text, path);
    if (path[0] && is_file(path)) {
        file = BAD_FILE;
        if (k->load(path, &file_hash, file_name, file_err, sizeof file_err) == RS_OK) {
            rc_hash_str(file_hash, hex);
            rs_status st = k->find(c->lb, hex, &by_file, name, err, sizeof err);
            if (st != RS_OK && st != RS_ERR_MISSING)
                return rs_fail(cmd, "%s: %s", k->opt, err);
            file = st == RS_OK ? STORED : NOT_STORED;
        }
    }

    if (file == STORED && named == RS_OK && by_file != by_name) {
        char name_hex[17];
        rc_hash_str(by_name, name_hex);
        snprintf(why, sizeof why,
                 "'%s' is ambiguous: the %s named '%s' (hash %s) and the file %s (%s '%s', hash "
                 "%s) are different %ss; give the hash",
                 text, k->noun, stored_name, name_hex, path, k->noun, file_name, hex, k->noun);
        return fail_listing(c, cmd, k, why);
    }
    if (file == STORED) {
        *hash = by_file;
        return 0;
    }
    if (named == RS_OK) {
        /* A file of that name that does not load, or was never raced, is
         * not what was meant: the stored definition was named. */
        *hash = by_name;
        memcpy(name, stored_name, RS_LB_NAME_MAX);
        return 0;
    }
    if (file == NOT_STORED)
        snprintf(why, sizeof why,
                 "%s is %s '%s' (hash %s), which is not in the database: no race has been run "
                 "on this version of the file",
                 path, k->noun, file_name, hex);
    else if (file == BAD_FILE)
        snprintf(why, sizeof why, "no %s named '%s' in the database, and %s does not load: %s",
                 k->noun, text, path, file_err);
    else
        snprintf(why, sizeof why, "no %s named '%s' in the database, and no file %s", k->noun,
                 text, path[0] ? path : "of that name");
    return fail_listing(c, cmd, k, why);
}

int rc_find_track(rc_ctx *c, const char *cmd, const char *text, uint64_t *hash,
                  char name[RS_LB_NAME_MAX])
{
    return find_definition(c, cmd, &tracks, text, hash, name);
}

int rc_find_car(rc_ctx *c, const char *cmd, const char *text, uint64_t *base_hash,
                char name[RS_LB_NAME_MAX])
{
    return find_definition(c, cmd, &cars, text, base_hash, name);
}
