/*
 * `racesim track`: works with track files (docs/TRACKS.md).
 *   import  converts a racetrack-database CSV into track JSON (track_import.c)
 *   check   loads a track file and prints what it holds, or the error
 *   info    the same as check
 *   design  builds a track from a short description (track_design.c)
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "json.h"
#include "racesim/track.h"
#include "track_import.h"
#include "track_design.h"

#define CMD "track"
#define IMPORT CMD " import"

#define DESIGN_USAGE "       racesim track design ...          (racesim track design --help)\n"
#define DESIGN_NAME ", design"

static void help(FILE *f)
{
    fprintf(f,
            "usage: racesim track import FILE.csv OUT.json [--name NAME] [options]\n"
            "       racesim track check FILE.json     (also: racesim track info FILE.json)\n"
            DESIGN_USAGE
            "\n"
            "import  converts a circuit in the racetrack-database CSV format\n"
            "        (x_m,y_m,w_tr_right_m,w_tr_left_m) into racesim track JSON with kerbs,\n"
            "        barriers, timing lines and a grid (docs/TRACKS.md); the result is\n"
            "        loaded before it is written, so it is always a valid track.\n"
            "check   loads a track file and prints its name, length, points, timing lines,\n"
            "        grid slots, barriers and hash as JSON; exit status 1 with the error\n"
            "        (naming the field) when it does not load.\n");
}

static void import_help(void)
{
    printf("usage: racesim track import FILE.csv OUT.json [--name NAME] [--kerb-width M]\n"
           "                            [--kerb-radius M] [--barrier-offset M] [--grid N]\n"
           "\n"
           "Converts a racetrack-database CSV (x_m,y_m,w_tr_right_m,w_tr_left_m; a '#'\n"
           "header line is skipped) into racesim track JSON and checks that it loads.\n"
           "\n"
           "  --name NAME          display name (default: the file name without\n"
           "                       extension and without a \"_track\" suffix)\n"
           "  --kerb-width M       kerb width at tight corners, 0..5 m (default 1; 0 = none)\n"
           "  --kerb-radius M      kerbs where the centre-line radius is below M (default 100)\n"
           "  --barrier-offset M   generated barriers M beyond each edge, 1..200 (default 10;\n"
           "                       reduced where the circuit is too tight for it)\n"
           "  --grid N             grid slots wanted, 1..24 (default 24; fewer on a short\n"
           "                       circuit)\n"
           "\n"
           "Prints {\"out\": OUT.json, \"name\", \"length_m\", \"points\", \"grid_slots\", \"hash\"}.\n");
}

static void check_help(FILE *f)
{
    fprintf(f,
            "usage: racesim track check FILE.json\n"
            "\n"
            "Loads a track file and prints one JSON object: name, length_m, points, lines\n"
            "(each timing line's station; line 0 is the start/finish line), grid_slots,\n"
            "barriers, barrier_points and hash (16 hex digits). Exit status 1 and the\n"
            "error, naming the file and field, when the file does not load.\n");
}

static void print_track(const char *file, const rs_track *t)
{
    uint32_t points = 0;
    for (uint32_t i = 0; i < rs_track_barrier_count(t); i++) {
        rs_track_barrier b;
        if (rs_track_barrier_at(t, i, &b))
            points += b.points;
    }
    printf("{\"file\": ");
    rs_json_fput_string(stdout, file);
    printf(", \"name\": ");
    rs_json_fput_string(stdout, rs_track_name(t));
    printf(", \"length_m\": %.3f, \"points\": %u, \"lines\": [", rs_track_length(t),
           (unsigned)rs_track_point_count(t));
    for (uint32_t i = 0; i < rs_track_line_count(t); i++) {
        rs_track_line l;
        rs_track_line_at(t, i, &l);
        printf("%s{\"line\": %u, \"s_m\": %.3f}", i ? ", " : "", (unsigned)i, l.s_m);
    }
    printf("], \"grid_slots\": %u, \"barriers\": %u, \"barrier_points\": %u, "
           "\"hash\": \"%016llx\"}\n",
           (unsigned)rs_track_grid_count(t), (unsigned)rs_track_barrier_count(t),
           (unsigned)points, (unsigned long long)rs_track_hash(t));
}

static int cmd_check(int argc, char **argv)
{
    if (argc >= 1 && rs_is_help(argv[0])) {
        check_help(stdout);
        return RS_EXIT_OK;
    }
    if (argc != 1)
        return rs_usage_error(CMD " check", "expected one track file");
    char err[512];
    rs_track *t = NULL;
    rs_status st = rs_track_load(argv[0], &t, err, sizeof err);
    if (st != RS_OK)
        return rs_fail(CMD " check", "%s", err);
    print_track(argv[0], t);
    rs_track_destroy(t);
    return RS_EXIT_OK;
}

static int cmd_import(int argc, char **argv)
{
    rs_track_import_options o = rs_track_import_default();
    const char *files[2] = {NULL, NULL};
    int nfiles = 0;
    static const char *const options[] = {"--name", "--kerb-width", "--kerb-radius",
                                          "--barrier-offset", "--grid", NULL};
    rs_cmd_args args = {IMPORT, import_help, options, NULL, 2, argc, argv, 0, 0};
    const char *a, *v;
    int next;
    while ((next = rs_cmd_next(&args, &a, &v)) == RS_CMD_MORE) {
        int rc = 0;
        if (!a) {
            files[nfiles++] = v;
        } else if (strcmp(a, "--name") == 0) {
            size_t n = strlen(v);
            if (n == 0 || n > 63)
                return rs_usage_error(IMPORT, "--name: 1..63 bytes");
            o.name = v;
        } else if (strcmp(a, "--kerb-width") == 0) {
            if (!(rc = rs_parse_double(IMPORT, a, v, &o.kerb_width_m)) &&
                !(o.kerb_width_m >= 0.0 && o.kerb_width_m <= 5.0))
                return rs_usage_error(IMPORT, "--kerb-width: %s outside 0..5", v);
        } else if (strcmp(a, "--kerb-radius") == 0) {
            if (!(rc = rs_parse_double(IMPORT, a, v, &o.kerb_radius_m)) &&
                !(o.kerb_radius_m >= 0.0))
                return rs_usage_error(IMPORT, "--kerb-radius: %s must be >= 0", v);
        } else if (strcmp(a, "--barrier-offset") == 0) {
            if (!(rc = rs_parse_double(IMPORT, a, v, &o.barrier_offset_m)) &&
                !(o.barrier_offset_m >= 1.0 && o.barrier_offset_m <= 200.0))
                return rs_usage_error(IMPORT, "--barrier-offset: %s outside 1..200", v);
        } else { /* --grid */
            rc = rs_parse_u32(IMPORT, a, v, 1, 24, &o.max_grid);
        }
        if (rc)
            return rc;
    }
    if (next != RS_CMD_END)
        return next;
    if (nfiles != 2)
        return rs_usage_error(IMPORT, "expected FILE.csv and OUT.json");
    char err[640];
    rs_status st = rs_track_import_file(files[0], files[1], &o, err, sizeof err);
    if (st != RS_OK)
        return rs_fail(IMPORT, "%s", err);
    rs_track *t = NULL;
    st = rs_track_load(files[1], &t, err, sizeof err);
    if (st != RS_OK) /* cannot happen: the import loaded it before writing */
        return rs_fail(IMPORT, "%s", err);
    printf("{\"out\": ");
    rs_json_fput_string(stdout, files[1]);
    printf(", \"name\": ");
    rs_json_fput_string(stdout, rs_track_name(t));
    printf(", \"length_m\": %.3f, \"points\": %u, \"grid_slots\": %u, \"hash\": \"%016llx\"}\n",
           rs_track_length(t), (unsigned)rs_track_point_count(t),
           (unsigned)rs_track_grid_count(t), (unsigned long long)rs_track_hash(t));
    rs_track_destroy(t);
    return RS_EXIT_OK;
}

int rs_cmd_track(int argc, char **argv)
{
    if (argc < 1) {
        help(stderr);
        return RS_EXIT_USAGE;
    }
    if (rs_is_help(argv[0])) {
        help(stdout);
        return RS_EXIT_OK;
    }
    if (strcmp(argv[0], "import") == 0)
        return cmd_import(argc - 1, argv + 1);
    if (strcmp(argv[0], "check") == 0 || strcmp(argv[0], "info") == 0)
        return cmd_check(argc - 1, argv + 1);
    if (strcmp(argv[0], "design") == 0)
        return rs_track_design_cmd(argc - 1, argv + 1);
    return rs_usage_error(CMD, "unknown subcommand '%s' (import, check, info" DESIGN_NAME ")",
                          argv[0]);
}
