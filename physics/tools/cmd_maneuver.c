/*
 * `racesim maneuver NAME --car FILE`: runs one standard test maneuver
 * (maneuvers.h) on a car definition and prints its figures as one JSON
 * object. Exit 1 when the car cannot be loaded or the state went NaN/Inf.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "json.h"
#include "maneuvers.h"

#define CMD "maneuver"

static void help(void)
{
    printf(
        "usage: racesim maneuver NAME --car FILE [--tune FILE] [--tick-hz N] [--substeps N]\n"
        "                        [--radius M]\n"
        "\n"
        "Runs a test maneuver on the flat asphalt plane and prints one JSON object.\n"
        "\n"
        "  accel       full throttle from rest (automatic gearbox and clutch):\n"
        "              t_0_100_kmh_s, t_0_200_kmh_s, quarter_mile_s, top_speed_kmh\n"
        "              (top speed: highest speed once the gain over 5 s is < 0.05 m/s, or\n"
        "              the highest speed in 300 s)\n"
        "  brake       threshold braking from a steady 100 km/h with a slip-limiting pedal\n"
        "              controller: dist_100_0_m; also dist_full_pedal_m, the same stop with\n"
        "              the pedal held at full (wheels lock where the brakes can lock them)\n"
        "  skidpad     counter-clockwise circle, radius 45.72 m (300 ft diameter) unless\n"
        "              --radius: max_lat_g = v^2/(R g) at the highest speed held within\n"
        "              0.5 m of the circle for 2 s while the speed ramps up\n"
        "  coastdown   from 100 km/h to rest in neutral, all inputs zero: dist_m, time_s\n"
        "  standstill  parked 60 s: drift_m (brake held), drift_m_no_input, max_speed_m_s\n"
        "\n"
        "  --car FILE      car definition JSON (e.g. data/cars/c5.json)\n"
        "  --tune FILE     a tune to apply (not supported yet: fails)\n"
        "  --tick-hz N     ticks per second (default 60)\n"
        "  --substeps N    substeps per tick (default 4)\n"
        "  --radius M      skidpad radius in metres (default 45.72)\n"
        "\n"
        "A figure the run never reached is printed as null. Exit 1 if the car cannot be\n"
        "loaded or its state became NaN/Inf (reported on stderr).\n");
}

/* Prints a figure, or null when it was never reached. */
static void num(const char *key, double v, const char *fmt, int comma)
{
    printf("\"%s\":", key);
    if (v == RS_MV_NOT_REACHED)
        printf("null");
    else
        printf(fmt, v);
    if (comma)
        putchar(',');
}

int rs_cmd_maneuver(int argc, char **argv)
{
    const char *name = NULL, *car_path = NULL, *tune = NULL;
    rs_mv_config cfg = rs_mv_config_default();
    double radius = 45.72;
    uint32_t u;
    int rc;

    static const char *const options[] = {"--car", "--tune", "--tick-hz", "--substeps",
                                          "--radius", NULL};
    rs_cmd_args args = {CMD, help, options, NULL, 1, argc, argv, 0, 0};
    const char *a, *v;
    while ((rc = rs_cmd_next(&args, &a, &v)) == RS_CMD_MORE) {
        if (!a)
            name = v;
        else if (strcmp(a, "--car") == 0)
            car_path = v;
        else if (strcmp(a, "--tune") == 0)
            tune = v;
        else if (strcmp(a, "--tick-hz") == 0) {
            if ((rc = rs_parse_u32(CMD, a, v, 10, 10000, &u)))
                return rc;
            cfg.tick_hz = u;
        } else if (strcmp(a, "--substeps") == 0) {
            if ((rc = rs_parse_u32(CMD, a, v, 1, 64, &u)))
                return rc;
            cfg.substeps = u;
        } else { /* --radius */
            if ((rc = rs_parse_double(CMD, a, v, &radius)))
                return rc;
            if (radius < 5.0 || radius > 10000.0)
                return rs_usage_error(CMD, "--radius must be in 5..10000 m");
        }
    }
    if (rc != RS_CMD_END)
        return rc;
    if (!name)
        return rs_usage_error(CMD, "missing maneuver NAME (accel, brake, skidpad, coastdown, standstill)");
    if (strcmp(name, "accel") && strcmp(name, "brake") && strcmp(name, "skidpad") &&
        strcmp(name, "coastdown") && strcmp(name, "standstill"))
        return rs_usage_error(CMD, "unknown maneuver '%s' (accel, brake, skidpad, coastdown, standstill)", name);
    if (!car_path)
        return rs_usage_error(CMD, "--car FILE is required");
    if (tune)
        return rs_fail(CMD, "%s: tunes are not supported yet (they arrive with persistence)", tune);

    rs_car_params *car = NULL;
    char err[512];
    rs_status st = rs_car_params_load(car_path, &car, err, sizeof err);
    if (st != RS_OK)
        return rs_fail(CMD, "%s (%s)", err, rs_status_str(st));

    printf("{\"maneuver\":\"%s\",\"car\":", name);
    rs_json_fput_string(stdout, rs_car_params_name(car));
    printf(",\"tick_hz\":%u,\"substeps\":%u,", cfg.tick_hz, cfg.substeps);
    if (strcmp(name, "accel") == 0) {
        rs_mv_accel r;
        if ((st = rs_mv_run_accel(car, &cfg, &r, err, sizeof err)) == RS_OK) {
            num("t_0_100_kmh_s", r.t_0_100_kmh_s, "%.3f", 1);
            num("t_0_200_kmh_s", r.t_0_200_kmh_s, "%.3f", 1);
            num("quarter_mile_s", r.quarter_mile_s, "%.3f", 1);
            num("quarter_mile_kmh", r.quarter_mile_kmh, "%.1f", 1);
            num("top_speed_kmh", r.top_speed_kmh, "%.2f", 1);
            printf("\"top_speed_gear\":%d,", r.top_speed_gear);
            num("top_speed_rpm", r.top_speed_rpm, "%.0f", 1);
            num("top_speed_t_s", r.top_speed_t_s, "%.1f", 1);
            printf("\"top_speed_settled\":%s}\n", r.settled ? "true" : "false");
        }
    } else if (strcmp(name, "brake") == 0) {
        rs_mv_brake r;
        if ((st = rs_mv_run_brake(car, &cfg, &r, err, sizeof err)) == RS_OK) {
            num("dist_100_0_m", r.dist_100_0_m, "%.2f", 1);
            num("time_s", r.time_s, "%.3f", 1);
            num("start_kmh", r.start_kmh, "%.3f", 1);
            num("mean_decel_g", r.mean_decel_g, "%.3f", 1);
            num("target_slip_front", r.target_slip_front, "%.4f", 1);
            num("target_slip_rear", r.target_slip_rear, "%.4f", 1);
            num("dist_full_pedal_m", r.dist_full_pedal_m, "%.2f", 1);
            num("time_full_pedal_s", r.time_full_pedal_s, "%.3f", 0);
            printf("}\n");
        }
    } else if (strcmp(name, "skidpad") == 0) {
        rs_mv_skidpad r;
        if ((st = rs_mv_run_skidpad(car, &cfg, radius, &r, err, sizeof err)) == RS_OK) {
            num("radius_m", r.radius_m, "%.2f", 1);
            num("max_lat_g", r.max_lat_g, "%.3f", 1);
            num("speed_kmh", r.speed_kmh, "%.2f", 1);
            num("steer_at_limit", r.steer_at_limit, "%.3f", 1);
            printf("\"limit\":\"%s\"}\n", r.limit);
        }
    } else if (strcmp(name, "coastdown") == 0) {
        rs_mv_coastdown r;
        if ((st = rs_mv_run_coastdown(car, &cfg, &r, err, sizeof err)) == RS_OK) {
            num("dist_m", r.dist_m, "%.1f", 1);
            num("time_s", r.time_s, "%.2f", 1);
            printf("\"stopped\":%s,", r.stopped ? "true" : "false");
            num("final_speed_m_s", r.final_speed_m_s, "%.4f", 0);
            printf("}\n");
        }
    } else {
        rs_mv_standstill r;
        if ((st = rs_mv_run_standstill(car, &cfg, &r, err, sizeof err)) == RS_OK) {
            num("duration_s", r.duration_s, "%.0f", 1);
            num("drift_m", r.drift_m, "%.3e", 1);
            num("drift_m_no_input", r.drift_m_no_input, "%.3e", 1);
            num("max_speed_m_s", r.max_speed_m_s, "%.3e", 0);
            printf("}\n");
        }
    }
    rs_car_params_destroy(car);
    if (st != RS_OK) {
        /* Close the object so stdout stays one valid JSON value. */
        printf("\"error\":");
        rs_json_fput_string(stdout, err);
        printf("}\n");
        fflush(stdout);
        return rs_fail(CMD, "%s", err);
    }
    return RS_EXIT_OK;
}
