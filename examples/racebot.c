/*
 * racebot: a headless client that races with the AI driver (racesim/bot.h, library rs_bot).
 * Usage: racebot [--host H] [--port N] [--name S] [--room S] [--password S]
 *                [--laps-until-exit N] [--quiet]
 * Prints its laps and the race's results; exits 0 when the race ends (or
 * after N laps of its own with --laps-until-exit), 1 when the connection
 * fails, is refused or drops.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "racesim/bot.h"
#include "racesim/base/clock.h"

typedef struct run {
    bool quiet;
    uint32_t laps_until_exit;
    int status; /* -1 running */
} run;

static void on_event(void *ctx, rs_bot *bot, const rs_client_event *ev)
{
    run *r = ctx;
    uint8_t me = rs_client_car(rs_bot_client(bot));
    switch (ev->type) {
    case RS_CLIENT_EV_CONNECTED:
        if (!r->quiet)
            printf("connected (player id %lld)\n", (long long)ev->u.connected.player_id);
        break;
    case RS_CLIENT_EV_WORLD_READY:
        if (!r->quiet)
            printf("race %u: car %u of %u, %u laps\n", ev->u.world.race_number, ev->u.world.car,
                   ev->u.world.car_count, ev->u.world.laps);
        break;
    case RS_CLIENT_EV_LAP:
        if (ev->u.lap.car == me && me != 0) {
            printf("lap %u: %.3f s%s\n", ev->u.lap.lap, (double)ev->u.lap.time_us / 1e6,
                   ev->u.lap.valid ? "" : " (invalid)");
            rs_bot_stats bs;
            rs_bot_get_stats(bot, &bs);
            if (r->laps_until_exit && bs.laps >= r->laps_until_exit)
                r->status = 0;
        }
        break;
    case RS_CLIENT_EV_RESULTS:
        printf("results of race %u:\n", ev->u.results.race_number);
        /* Finishers by position, then cars that did not finish (position 0). */
        rs_proto_result_row rows[RS_PROTO_MAX_CARS];
        uint32_t n = ev->u.results.count;
        for (uint32_t i = 0; i < n; i++) {
            rs_proto_result_row x = ev->u.results.rows[i];
            uint32_t key = x.position ? x.position : 1000u;
            uint32_t j = i;
            while (j > 0 && (rows[j - 1].position ? rows[j - 1].position : 1000u) > key) {
                rows[j] = rows[j - 1];
                j--;
            }
            rows[j] = x;
        }
        for (uint32_t i = 0; i < n; i++) {
            const rs_proto_result_row *row = &rows[i];
            printf("  P%-2u car %-2u laps %u finish %.3f s best %.3f s%s\n", row->position,
                   row->car, row->laps, (double)row->finish_us / 1e6,
                   (double)row->best_lap_us / 1e6, row->car == me ? "  <- me" : "");
        }
        r->status = 0;
        break;
    case RS_CLIENT_EV_ERROR:
        fprintf(stderr, "error: %s\n", ev->u.error.text);
        break;
    case RS_CLIENT_EV_REFUSED:
        fprintf(stderr, "refused: %s\n", ev->u.refused.text);
        break;
    case RS_CLIENT_EV_DISCONNECTED:
        if (r->status < 0) {
            fprintf(stderr, "disconnected: %s\n", ev->u.disconnected.text);
            r->status = 1;
        }
        break;
    default:
        break;
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: racebot [--host H] [--port N] [--name S] [--room S] "
                    "[--password S] [--laps-until-exit N] [--quiet]\n");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* one line at a time, also into a pipe */
    const char *host = "127.0.0.1";
    long port = 27960;
    rs_client_config cfg = rs_client_config_default();
    cfg.name = "racebot";
    run r = {false, 0, -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quiet")) {
            r.quiet = true;
            continue;
        }
        if (!v) {
            usage();
            return 2;
        }
        i++;
        if (!strcmp(a, "--host"))
            host = v;
        else if (!strcmp(a, "--port"))
            port = strtol(v, NULL, 10);
        else if (!strcmp(a, "--name"))
            cfg.name = v;
        else if (!strcmp(a, "--room"))
            cfg.room = v;
        else if (!strcmp(a, "--password"))
            cfg.password = v;
        else if (!strcmp(a, "--laps-until-exit"))
            r.laps_until_exit = (uint32_t)strtoul(v, NULL, 10);
        else {
            usage();
            return 2;
        }
    }
    if (port < 1 || port > 65535) {
        fprintf(stderr, "--port: 1..65535\n");
        return 2;
    }
    rs_bot *bot = NULL;
    char err[256];
    if (rs_bot_create(&cfg, host, (uint16_t)port, true, rs_clock_us(), &bot, err, sizeof err) !=
        RS_CLIENT_OK) {
        fprintf(stderr, "racebot: %s\n", err);
        return 1;
    }
    rs_bot_set_event_fn(bot, on_event, &r);
    while (r.status < 0) {
        if (!rs_bot_update(bot, rs_clock_us()) && r.status < 0)
            r.status = 1;
        rs_sleep_us(1000);
    }
    rs_bot_disconnect(bot, rs_clock_us());
    rs_bot_update(bot, rs_clock_us());
    rs_bot_destroy(bot);
    return r.status;
}
