/*
 * `racesim demo`: what the physics core can do today, in a few seconds and
 * one screen. It loads every car definition in data/cars/, lines N cars up
 * for a standing-start drag race in one world (lanes 6 m apart) and prints a
 * timing table, runs the standard maneuvers on each definition and prints
 * their figures side by side, and ends with a race of AI cars on the default
 * track (racesim race --table).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "maneuvers.h"

#define CMD "demo"
#define MAX_DEFS 32
#define MAX_DEMO_CARS 16
#define DEFAULT_TRACK "tracks/technical.json"

static void help(void)
{
    printf("usage: racesim demo [--cars N] [--seconds S] [--data DIR]\n"
           "\n"
           "Loads every car definition in DIR/cars (default %s/cars), runs a standing-start\n"
           "drag race of N cars (default: one of each definition; the definitions repeat\n"
           "when N is larger) for S seconds (default 20), printing speeds and distances,\n"
           "then each definition's 0-100 km/h, quarter mile, top speed, 100-0 km/h braking\n"
           "and skidpad figures from the standard maneuvers (racesim maneuver --help),\n"
           "and finally races 8 AI-driven C5s over 2 laps of the default track\n"
           "(DIR/%s) and prints the classification and fastest laps.\n",
           rs_cmd_data_dir(), DEFAULT_TRACK);
}

typedef struct def_entry {
    char file[256];
    rs_car_params *params;
} def_entry;

static int load_defs(const char *dir, def_entry *defs, int *count)
{
    char path[1024], err[512];
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return rs_fail(CMD, "cannot open %s", dir);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || len >= sizeof defs[0].file || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        if (n == MAX_DEFS)
            break;
        memcpy(defs[n].file, e->d_name, len + 1);
        defs[n].params = NULL;
        n++;
    }
    closedir(d);
    /* readdir order is arbitrary: sort by name (insertion sort, stable). */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(defs[j - 1].file, defs[j].file) > 0; j--) {
            def_entry t = defs[j];
            defs[j] = defs[j - 1];
            defs[j - 1] = t;
        }
    for (int i = 0; i < n; i++) {
        int n_path = snprintf(path, sizeof path, "%s/%s", dir, defs[i].file);
        rs_status st = n_path > 0 && (size_t)n_path < sizeof path
                           ? rs_car_params_load(path, &defs[i].params, err, sizeof err)
                           : RS_ERR_IO;
        if (st == RS_ERR_IO && !(n_path > 0 && (size_t)n_path < sizeof path))
            snprintf(err, sizeof err, "%.200s/%.200s: path too long", dir, defs[i].file);
        if (st != RS_OK) {
            for (int j = 0; j < i; j++)
                rs_car_params_destroy(defs[j].params);
            return rs_fail(CMD, "%s (%s)", err, rs_status_str(st));
        }
    }
    *count = n;
    if (n == 0)
        return rs_fail(CMD, "no car definitions (*.json) in %s", dir);
    return RS_EXIT_OK;
}

static int drag_race(def_entry *defs, int n_defs, uint32_t n_cars, double seconds)
{
    rs_world_def wd = rs_world_default();
    rs_world *w = NULL;
    rs_status st;
    double start_x[MAX_DEMO_CARS];
    double finish_t[MAX_DEMO_CARS];
    int rc = RS_EXIT_OK;

    wd.max_cars = n_cars;
    if ((st = rs_world_create(&wd, &w)) != RS_OK)
        return rs_fail(CMD, "cannot create the world: %s", rs_status_str(st));
    for (uint32_t i = 0; i < n_cars; i++) {
        rs_car_spawn sp = rs_car_spawn_default();
        sp.pos_m[0] = 0.0;
        sp.pos_m[1] = 6.0 * i;
        sp.pos_m[2] = 0.0;
        sp.yaw_rad = 0.0;
        sp.speed_m_s = 0.0;
        sp.gear = 1;
        sp.transmission = RS_TRANSMISSION_AUTO;
        sp.clutch_mode = RS_CLUTCH_AUTO;
        if ((st = rs_world_add_car(w, defs[i % (uint32_t)n_defs].params, &sp, NULL)) != RS_OK) {
            rs_world_destroy(w);
            return rs_fail(CMD, "cannot add car %u: %s", i, rs_status_str(st));
        }
        finish_t[i] = -1.0;
    }

    printf("Drag race: %u cars, standing start on the flat plane, %.0f s at full throttle\n"
           "(lifted only against wheelspin; automatic gearbox; lanes 6 m apart;\n"
           "km/h and metres from the start)\n\n",
           n_cars, seconds);
    printf("  t_s ");
    for (uint32_t i = 0; i < n_cars; i++)
        printf("| %-17.17s", rs_car_params_name(defs[i % (uint32_t)n_defs].params));
    printf("\n      ");
    for (uint32_t i = 0; i < n_cars; i++)
        printf("|  km/h gear      m");
    printf("\n");

    uint32_t hz = wd.tick_hz;
    uint64_t ticks = (uint64_t)(seconds * hz + 0.5), settle = hz; /* 1 s on the brakes first */
    double prev_x[MAX_DEMO_CARS];
    rs_mv_launch drivers[MAX_DEMO_CARS];
    for (uint32_t i = 0; i < n_cars; i++)
        rs_mv_launch_init(&drivers[i], defs[i % (uint32_t)n_defs].params, 6.0 * i);
    for (uint64_t n = 0; n < settle + ticks; n++) {
        for (uint32_t i = 0; i < n_cars; i++) {
            rs_car_id id = {(uint16_t)(i + 1)};
            rs_input in = rs_input_quantise(0.0, 0.0, 1.0, 0.0, 0.0);
            in.gear = RS_GEAR_KEEP;
            if (n >= settle) {
                rs_car_state s;
                rs_world_car_state(w, id, &s);
                in = rs_mv_launch_input(&drivers[i], &s, 1.0 / hz);
            }
            rs_world_set_input(w, id, &in);
        }
        if ((st = rs_world_step(w)) != RS_OK) {
            rc = rs_fail(CMD, "drag race, tick %llu: %s", (unsigned long long)(n + 1),
                         rs_status_str(st));
            goto done;
        }
        int print = n + 1 >= settle && (n + 1 - settle) % hz == 0;
        if (print)
            printf("%5.1f ", (double)(n + 1 - settle) / hz);
        for (uint32_t i = 0; i < n_cars; i++) {
            rs_car_state s;
            rs_world_car_state(w, (rs_car_id){(uint16_t)(i + 1)}, &s);
            if (n + 1 == settle)
                start_x[i] = s.pos_m[0];
            if (n + 1 > settle) {
                double d0 = prev_x[i] - start_x[i], d1 = s.pos_m[0] - start_x[i];
                if (finish_t[i] < 0.0 && d1 >= 402.336)
                    finish_t[i] = (double)(n - settle) / hz + (402.336 - d0) / (d1 - d0) / hz;
            }
            prev_x[i] = s.pos_m[0];
            if (print && n + 1 > settle)
                printf("| %5.1f %4d %6.1f", s.forward_speed_m_s * 3.6, s.gear, s.pos_m[0] - start_x[i]);
            else if (print)
                printf("| %5.1f %4d %6.1f", 0.0, s.gear, 0.0);
        }
        if (print)
            printf("\n");
    }

    printf("\nQuarter mile (402 m): ");
    for (uint32_t i = 0; i < n_cars; i++) {
        if (finish_t[i] >= 0.0)
            printf("%scar %u %.2f s", i ? ", " : "", i, finish_t[i]);
        else
            printf("%scar %u not reached", i ? ", " : "", i);
    }
    printf("\n\n");
done:
    rs_world_destroy(w);
    return rc;
}

static void fig(double v, const char *fmt)
{
    char buf[32];
    if (v == RS_MV_NOT_REACHED)
        snprintf(buf, sizeof buf, "-");
    else
        snprintf(buf, sizeof buf, fmt, v);
    printf(" %10s", buf);
}

static int figures(def_entry *defs, int n_defs)
{
    rs_mv_config cfg = rs_mv_config_default();
    char err[512];
    printf("Test figures from the standard maneuvers (racesim maneuver NAME --car FILE):\n\n");
    printf("%-24s %10s %10s %10s %10s %10s %10s %10s\n", "car", "0-100 s", "0-200 s", "1/4 mi s",
           "top km/h", "100-0 m", "full ped m", "skidpad g");
    for (int i = 0; i < n_defs; i++) {
        rs_mv_accel a;
        rs_mv_brake b;
        rs_mv_skidpad s;
        rs_status st;
        if ((st = rs_mv_run_accel(defs[i].params, &cfg, &a, err, sizeof err)) != RS_OK ||
            (st = rs_mv_run_brake(defs[i].params, &cfg, &b, err, sizeof err)) != RS_OK ||
            (st = rs_mv_run_skidpad(defs[i].params, &cfg, 0.0, &s, err, sizeof err)) != RS_OK)
            return rs_fail(CMD, "%s: %s", defs[i].file, err);
        printf("%-24.24s", rs_car_params_name(defs[i].params));
        fig(a.t_0_100_kmh_s, "%.2f");
        fig(a.t_0_200_kmh_s, "%.2f");
        fig(a.quarter_mile_s, "%.2f");
        fig(a.top_speed_kmh, "%.1f");
        fig(b.dist_100_0_m, "%.1f");
        fig(b.dist_full_pedal_m, "%.1f");
        fig(s.max_lat_g, "%.3f");
        printf("\n");
    }
    printf("\n(skidpad: %.2f m radius; braking: slip-limited pedal vs. full pedal)\n", 45.72);
    return RS_EXIT_OK;
}

int rs_cmd_demo(int argc, char **argv)
{
    const char *data = rs_cmd_data_dir();
    uint32_t n_cars = 0;
    double seconds = 20.0;
    int rc;
    static const char *const options[] = {"--cars", "--seconds", "--data", NULL};
    rs_cmd_args args = {CMD, help, options, NULL, 0, argc, argv, 0, 0};
    const char *a, *v;
    while ((rc = rs_cmd_next(&args, &a, &v)) == RS_CMD_MORE) {
        if (strcmp(a, "--cars") == 0) {
            if ((rc = rs_parse_u32(CMD, a, v, 1, MAX_DEMO_CARS, &n_cars)))
                return rc;
        } else if (strcmp(a, "--seconds") == 0) {
            if ((rc = rs_parse_double(CMD, a, v, &seconds)))
                return rc;
            if (seconds < 1.0 || seconds > 120.0)
                return rs_usage_error(CMD, "--seconds must be in 1..120");
        } else {
            data = v; /* --data */
        }
    }
    if (rc != RS_CMD_END)
        return rc;

    def_entry defs[MAX_DEFS];
    int n_defs = 0;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/cars", data);
    if ((rc = load_defs(dir, defs, &n_defs)) != RS_EXIT_OK)
        return rc;
    if (n_cars == 0)
        n_cars = (uint32_t)n_defs > MAX_DEMO_CARS ? MAX_DEMO_CARS : (uint32_t)n_defs;

    printf("racesim demo (physics version %u): %d car definition%s in %s\n", RS_PHYSICS_VERSION,
           n_defs, n_defs == 1 ? "" : "s", dir);
    for (int i = 0; i < n_defs; i++)
        printf("  %-14s %s\n", defs[i].file, rs_car_params_name(defs[i].params));
    printf("\n");

    rc = drag_race(defs, n_defs, n_cars, seconds);
    if (rc == RS_EXIT_OK)
        rc = figures(defs, n_defs);
    for (int i = 0; i < n_defs; i++)
        rs_car_params_destroy(defs[i].params);
    if (rc == RS_EXIT_OK) {
        char track[1024], car[1024];
        snprintf(track, sizeof track, "%s/%s", data, DEFAULT_TRACK);
        snprintf(car, sizeof car, "%s/cars/c5.json", data);
        char *race_argv[] = {"--track", track, "--car", car, "--cars", "8", "--laps", "2", "--table"};
        printf("\n");
        fflush(stdout);
        rc = rs_cmd_race((int)(sizeof race_argv / sizeof race_argv[0]), race_argv);
    }
    fflush(stdout);
    return rc;
}
