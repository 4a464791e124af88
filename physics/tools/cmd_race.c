/*
 * `racesim race --track FILE`: a race of AI cars, printed as one JSON object.
 *
 * Every car gets the same definition and one AI driver (racesim/driver.h)
 * sharing one racing line; drivers differ by seed and a slightly different
 * pace so the race is not a procession. The cars start from the track's grid
 * slots after a one-second hold (rs_world_def.start_tick), with manual
 * gearboxes because the AI chooses its own gears, and their inputs go
 * through rs_world_set_input exactly like a player's. The world times the
 * laps; this command only collects its RS_EVENT_LAP events and reads the
 * race state at the end. Same arguments, same output, bit for bit.
 * --table prints the same results for people: a classification and the
 * race's fastest laps (racesim demo ends with one).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "json.h"
#include "racesim/driver.h"
#include "racesim/physics.h"
#include "racesim/track.h"

#define CMD "race"
#define START_TICKS 60 /* one second on the grid before lights out */

static void help(void)
{
    printf("usage: racesim race --track FILE [--car FILE] [--cars N] [--laps L] [--ghost]\n"
           "                    [--max-time S] [--seed N] [--pace P] [--table]\n"
           "\n"
           "Races N AI cars over L laps of a track and prints one JSON object: the track,\n"
           "car, physics version and final world hash, the finish order as car numbers\n"
           "(1 = pole sitter) and per car its laps (time_us, sectors_us, valid), best_lap_us,\n"
           "barrier_hits, car_hits, finished and finish_us.\n"
           "\n"
           "  --track FILE    track JSON (required; e.g. data/tracks/oval.json)\n"
           "  --car FILE      car definition for every car (default %s/cars/c5.json)\n"
           "  --cars N        number of cars, 1 .. the track's grid slots (default 8, or\n"
           "                  all the slots if fewer)\n"
           "  --laps L        race distance, 1..1000 (default 3)\n"
           "  --ghost         no car-to-car collisions\n"
           "  --table         print a results table and the fastest laps instead of JSON\n"
           "  --max-time S    stop after S simulated seconds even if not everyone has\n"
           "                  finished (default: generous, from the planned lap time)\n"
           "  --seed N        varies the drivers (default 1)\n"
           "  --pace P        the drivers' pace, fraction of the planned speeds, 0.5..1\n"
           "                  (default 0.96; each driver varies it a little)\n"
           "\n"
           "Exit 1 if a file cannot be loaded or the simulation fails.\n",
           rs_cmd_data_dir());
}

/* One completed lap as the world reported it. */
typedef struct lap_rec {
    int64_t time_us;
    uint32_t sectors;
    int64_t sectors_us[RS_MAX_SECTORS];
    bool valid;
} lap_rec;

typedef struct race_opts {
    const char *track_path;
    const char *car_path;
    uint32_t cars;
    uint32_t laps;
    bool ghost;
    bool table;
    double max_time_s; /* <= 0: automatic */
    uint32_t seed;
    double pace;
} race_opts;

static int parse_args(int argc, char **argv, race_opts *o, int *done)
{
    static char default_car[1024];
    snprintf(default_car, sizeof default_car, "%s/cars/c5.json", rs_cmd_data_dir());
    memset(o, 0, sizeof *o);
    o->car_path = default_car;
    o->cars = 0;
    o->laps = 3;
    o->seed = 1;
    o->pace = 0.96;
    *done = 0;
    static const char *const flags[] = {"--ghost", "--table", NULL};
    static const char *const options[] = {"--track", "--car", "--cars", "--laps", "--seed",
                                          "--max-time", "--pace", NULL};
    rs_cmd_args args = {CMD, help, options, flags, 0, argc, argv, 0, 0};
    const char *a, *v;
    int next;
    while ((next = rs_cmd_next(&args, &a, &v)) == RS_CMD_MORE) {
        int rc = 0;
        if (strcmp(a, "--ghost") == 0)
            o->ghost = true;
        else if (strcmp(a, "--table") == 0)
            o->table = true;
        else if (strcmp(a, "--track") == 0)
            o->track_path = v;
        else if (strcmp(a, "--car") == 0)
            o->car_path = v;
        else if (strcmp(a, "--cars") == 0)
            rc = rs_parse_u32(CMD, a, v, 1, RS_TRACK_MAX_GRID, &o->cars);
        else if (strcmp(a, "--laps") == 0)
            rc = rs_parse_u32(CMD, a, v, 1, 1000, &o->laps);
        else if (strcmp(a, "--seed") == 0)
            rc = rs_parse_u32(CMD, a, v, 0, UINT32_MAX, &o->seed);
        else if (strcmp(a, "--max-time") == 0) {
            if (!(rc = rs_parse_double(CMD, a, v, &o->max_time_s)) &&
                !(o->max_time_s > 0.0 && o->max_time_s <= 1e6))
                return rs_usage_error(CMD, "--max-time: '%s' is not in (0, 1e6] seconds", v);
        } else { /* --pace */
            if (!(rc = rs_parse_double(CMD, a, v, &o->pace)) && !(o->pace >= 0.5 && o->pace <= 1.0))
                return rs_usage_error(CMD, "--pace: '%s' is not in 0.5..1", v);
        }
        if (rc)
            return rc;
    }
    if (next != RS_CMD_END) {
        *done = next == RS_EXIT_OK;
        return next;
    }
    if (!o->track_path)
        return rs_usage_error(CMD, "--track FILE is required");
    return 0;
}

/* Everything the race owns; freed by race_free whatever state it is in. */
typedef struct race {
    rs_track *track;
    rs_car_params *car;
    rs_racing_line *line;
    rs_world *world;
    rs_driver **drivers;
    lap_rec *laps;      /* cars x lap_cap */
    uint32_t *lap_count;
    uint32_t lap_cap;
    uint32_t cars;
} race;

static void race_free(race *r)
{
    if (r->drivers)
        for (uint32_t i = 0; i < r->cars; i++)
            rs_driver_destroy(r->drivers[i]);
    free(r->drivers);
    free(r->laps);
    free(r->lap_count);
    rs_world_destroy(r->world);
    rs_racing_line_destroy(r->line);
    rs_car_params_destroy(r->car);
    rs_track_destroy(r->track);
}

static void collect_events(race *r)
{
    size_t n = 0;
    const rs_event *ev = rs_world_events(r->world, &n);
    for (size_t k = 0; k < n; k++) {
        const rs_event *e = &ev[k];
        if (e->type != RS_EVENT_LAP || e->car == 0 || e->car > r->cars)
            continue;
        uint32_t c = e->car - 1u;
        if (r->lap_count[c] >= r->lap_cap)
            continue;
        lap_rec *l = &r->laps[(size_t)c * r->lap_cap + r->lap_count[c]++];
        l->time_us = e->duration_us;
        l->sectors = e->sector_count <= RS_MAX_SECTORS ? e->sector_count : RS_MAX_SECTORS;
        for (uint32_t s = 0; s < l->sectors; s++)
            l->sectors_us[s] = e->sectors_us[s];
        l->valid = e->valid;
    }
}

static void print_result(const race *r, const race_opts *o, bool over, uint64_t ticks)
{
    char hash[17];
    snprintf(hash, sizeof hash, "%016" PRIx64, rs_world_hash(r->world));
    printf("{\"track\":");
    rs_json_fput_string(stdout, rs_track_name(r->track));
    printf(",\"car\":");
    rs_json_fput_string(stdout, rs_car_params_name(r->car));
    printf(",\"physics_version\":%u,\"cars\":%u,\"laps\":%u,\"ghost\":%s,\"seed\":%u",
           (unsigned)RS_PHYSICS_VERSION, (unsigned)r->cars, (unsigned)o->laps,
           o->ghost ? "true" : "false", (unsigned)o->seed);
    printf(",\"planned_lap_us\":%" PRId64, (int64_t)(rs_racing_line_lap_time(r->line) * 1e6 + 0.5));
    printf(",\"race_over\":%s,\"race_time_us\":%" PRId64 ",\"ticks\":%" PRIu64,
           over ? "true" : "false", rs_world_race_time_us(r->world), ticks);

    rs_car_id *order = malloc(r->cars * sizeof *order);
    uint32_t n = order ? rs_world_race_order(r->world, order, r->cars) : 0;
    if (n > r->cars)
        n = r->cars;
    printf(",\"order\":[");
    for (uint32_t i = 0; i < n; i++)
        printf("%s%u", i ? "," : "", (unsigned)order[i].index1);
    free(order);
    printf("],\"results\":[");
    for (uint32_t c = 0; c < r->cars; c++) {
        rs_car_id id = {(uint16_t)(c + 1)};
        rs_race_car_state rs;
        rs_driver_status ds;
        rs_world_race_state(r->world, id, &rs);
        rs_driver_get_status(r->drivers[c], &ds);
        printf("%s{\"car\":%u,\"position\":%u,\"finished\":%s,\"finish_us\":%" PRId64
               ",\"best_lap_us\":%" PRId64 ",\"barrier_hits\":%u,\"car_hits\":%u,"
               "\"recoveries\":%u,\"laps\":[",
               c ? "," : "", (unsigned)(c + 1), (unsigned)rs.position,
               rs.status == RS_RACE_FINISHED ? "true" : "false", rs.finish_us, rs.best_lap_us,
               (unsigned)rs.barrier_hits, (unsigned)rs.car_hits, (unsigned)ds.recoveries);
        for (uint32_t k = 0; k < r->lap_count[c]; k++) {
            const lap_rec *l = &r->laps[(size_t)c * r->lap_cap + k];
            printf("%s{\"time_us\":%" PRId64 ",\"sectors_us\":[", k ? "," : "", l->time_us);
            for (uint32_t s = 0; s < l->sectors; s++)
                printf("%s%" PRId64, s ? "," : "", l->sectors_us[s]);
            printf("],\"valid\":%s}", l->valid ? "true" : "false");
        }
        printf("]}");
    }
    printf("],\"hash\":\"%s\"}\n", hash);
}

/* "m:ss.mmm" (or "-" for none). */
static const char *lap_text(int64_t us, char buf[32])
{
    if (us < 0) {
        snprintf(buf, 32, "-");
        return buf;
    }
    int64_t ms = (us + 500) / 1000;
    snprintf(buf, 32, "%" PRId64 ":%02" PRId64 ".%03" PRId64, ms / 60000, ms / 1000 % 60, ms % 1000);
    return buf;
}

static void print_table(const race *r, const race_opts *o, bool over)
{
    char a[32], b[32];
    rs_car_id *order = malloc(r->cars * sizeof *order);
    if (!order)
        return;
    uint32_t n = rs_world_race_order(r->world, order, r->cars);
    if (n > r->cars)
        n = r->cars;
    printf("Race: %u x %s, %u lap%s of %s (%.0f m)%s\n", (unsigned)r->cars,
           rs_car_params_name(r->car), (unsigned)o->laps, o->laps == 1 ? "" : "s",
           rs_track_name(r->track), rs_track_length(r->track), over ? "" : " - stopped by --max-time");
    printf("  pos  car  laps  race time   best lap   invalid  barrier  car hits\n");
    int64_t winner_us = -1;
    for (uint32_t i = 0; i < n; i++) {
        rs_race_car_state rs;
        uint32_t c = order[i].index1 - 1u, invalid = 0;
        rs_world_race_state(r->world, order[i], &rs);
        for (uint32_t k = 0; k < r->lap_count[c]; k++)
            invalid += !r->laps[(size_t)c * r->lap_cap + k].valid;
        if (i == 0)
            winner_us = rs.finish_us;
        if (rs.status == RS_RACE_FINISHED && i > 0 && winner_us >= 0)
            snprintf(a, sizeof a, "+%.3f s", (double)(rs.finish_us - winner_us) / 1e6);
        else if (rs.status == RS_RACE_FINISHED)
            lap_text(rs.finish_us, a);
        else
            snprintf(a, sizeof a, "running");
        printf("  %3u  %3u  %4u  %-10s  %-9s  %7u  %7u  %8u\n", (unsigned)(i + 1),
               (unsigned)(c + 1), (unsigned)rs.laps_completed, a, lap_text(rs.best_lap_us, b),
               (unsigned)invalid, (unsigned)rs.barrier_hits, (unsigned)rs.car_hits);
    }
    free(order);

    /* Fastest valid laps of the race, best first (selection of the top 5). */
    printf("Fastest laps:\n");
    uint32_t total = 0;
    for (uint32_t c = 0; c < r->cars; c++)
        total += r->lap_count[c];
    int64_t floor_us = -1;
    uint32_t floor_car = 0, floor_lap = 0;
    for (int rank = 1; rank <= 5; rank++) {
        int64_t best = -1;
        uint32_t bc = 0, bl = 0;
        for (uint32_t c = 0; c < r->cars; c++)
            for (uint32_t k = 0; k < r->lap_count[c]; k++) {
                const lap_rec *l = &r->laps[(size_t)c * r->lap_cap + k];
                /* Strictly after the previous pick in (time, car, lap) order. */
                bool after = floor_us < 0 || l->time_us > floor_us ||
                             (l->time_us == floor_us && (c > floor_car || (c == floor_car && k > floor_lap)));
                bool better = best < 0 || l->time_us < best ||
                              (l->time_us == best && (c < bc || (c == bc && k < bl)));
                if (l->valid && after && better)
                    best = l->time_us, bc = c, bl = k;
            }
        if (best < 0)
            break;
        printf("  %d. %s  car %u, lap %u\n", rank, lap_text(best, a), (unsigned)(bc + 1),
               (unsigned)(bl + 1));
        floor_us = best, floor_car = bc, floor_lap = bl;
    }
    if (total == 0)
        printf("  (no laps completed)\n");
    printf("world hash %016" PRIx64 ", physics version %u\n", rs_world_hash(r->world),
           (unsigned)RS_PHYSICS_VERSION);
}

int rs_cmd_race(int argc, char **argv)
{
    race_opts o;
    race r;
    char err[512];
    int done = 0, rc;
    rs_status st;

    if ((rc = parse_args(argc, argv, &o, &done)) != 0 || done)
        return rc;
    memset(&r, 0, sizeof r);
    if ((st = rs_track_load(o.track_path, &r.track, err, sizeof err)) != RS_OK) {
        rc = rs_fail(CMD, "%s (%s)", err, rs_status_str(st));
        goto out;
    }
    if ((st = rs_car_params_load(o.car_path, &r.car, err, sizeof err)) != RS_OK) {
        rc = rs_fail(CMD, "%s (%s)", err, rs_status_str(st));
        goto out;
    }
    uint32_t slots = rs_track_grid_count(r.track);
    if (o.cars == 0)
        o.cars = slots < 8 ? slots : 8;
    if (o.cars > slots) {
        rc = rs_usage_error(CMD, "--cars: %u cars but %s has %u grid slots", (unsigned)o.cars,
                            o.track_path, (unsigned)slots);
        goto out;
    }
    r.cars = o.cars;
    if ((st = rs_racing_line_build(r.track, r.car, NULL, &r.line)) != RS_OK) {
        rc = rs_fail(CMD, "racing line: %s", rs_status_str(st));
        goto out;
    }

    rs_world_def def = rs_world_default();
    def.max_cars = r.cars;
    def.track = r.track;
    def.laps = o.laps;
    def.start_tick = START_TICKS;
    def.car_collisions = !o.ghost;
    if ((st = rs_world_create(&def, &r.world)) != RS_OK) {
        rc = rs_fail(CMD, "world: %s", rs_status_str(st));
        goto out;
    }
    r.drivers = calloc(r.cars, sizeof *r.drivers);
    r.lap_cap = o.laps + 2;
    r.laps = calloc((size_t)r.cars * r.lap_cap, sizeof *r.laps);
    r.lap_count = calloc(r.cars, sizeof *r.lap_count);
    if (!r.drivers || !r.laps || !r.lap_count) {
        rc = rs_fail(CMD, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < r.cars; i++) {
        rs_car_spawn sp;
        rs_car_id id;
        rs_track_grid_slot(r.track, i, &sp);
        sp.transmission = RS_TRANSMISSION_MANUAL; /* the AI picks its gears */
        if ((st = rs_world_add_car(r.world, r.car, &sp, &id)) != RS_OK) {
            rc = rs_fail(CMD, "grid slot %u: %s", (unsigned)i, rs_status_str(st));
            goto out;
        }
        /* A spread of 3 % in pace, in a seed-dependent order. */
        rs_driver_options dopt = rs_driver_options_default();
        uint32_t h = (o.seed * 2654435761u) ^ (i * 40503u + 17u);
        h ^= h >> 13;
        h *= 0x5bd1e995u;
        h ^= h >> 15;
        dopt.pace = o.pace * (1.0 - 0.03 * (double)(h % 1000u) / 1000.0);
        dopt.seed = o.seed * 1000003u + i;
        if ((st = rs_driver_create(r.line, &dopt, &r.drivers[i])) != RS_OK) {
            rc = rs_fail(CMD, "driver: %s", rs_status_str(st));
            goto out;
        }
    }

    double max_time = o.max_time_s;
    if (max_time <= 0.0)
        max_time = 2.0 * (double)(o.laps + 1) * rs_racing_line_lap_time(r.line) + 60.0;
    uint64_t max_ticks = (uint64_t)(max_time * def.tick_hz) + START_TICKS;
    bool over = false;
    uint64_t t = 0;
    for (; t < max_ticks && !over; t++) {
        for (uint32_t i = 0; i < r.cars; i++) {
            rs_car_id id = {(uint16_t)(i + 1)};
            rs_input in = rs_driver_update(r.drivers[i], r.world, id);
            rs_world_set_input(r.world, id, &in);
        }
        if ((st = rs_world_step(r.world)) != RS_OK) {
            rc = rs_fail(CMD, "tick %" PRIu64 ": %s", t, rs_status_str(st));
            goto out;
        }
        collect_events(&r);
        over = rs_world_race_over(r.world);
    }
    if (o.table)
        print_table(&r, &o, over);
    else
        print_result(&r, &o, over, t);
    rc = RS_EXIT_OK;
out:
    race_free(&r);
    return rc;
}
