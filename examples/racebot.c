/*
 * racebot: a headless client that races with the AI driver (racesim/bot.h, library rs_bot).
 * Usage: racebot [--host H] [--port N] [--name S] [--room S] [--password S]
 *                [--laps-until-exit N] [--quiet]
 * Prints its laps and the race's results; exits 0 when the race ends (or
 * after N laps of its own with --laps-until-exit), 1 when the connection
 * fails, is refused or drops, 2 on a usage error (0 after --help).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "racesim/bot.h"
#include "racesim/base/cli.h"
#include "racesim/base/clock.h"
#include "racesim/base/text.h"

typedef struct run {
    bool quiet;
    uint32_t laps_until_exit;
    uint32_t sessions;   /* exit after this many sessions' results (1: the first) */
    const char *car;     /* the offered car to drive (SELECT_CAR), NULL = the room's first */
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
        /* Asked at once, so that the car is ours from the first session the
         * room starts after the command arrives. */
        if (r->car && rs_client_command(rs_bot_client(bot), RS_CMD_SELECT_CAR, r->car, NULL) !=
                          RS_CLIENT_OK)
            fprintf(stderr, "racebot: could not ask for the car '%s'\n", r->car);
        break;
    case RS_CLIENT_EV_WORLD_READY:
        if (!r->quiet)
            printf("race %u: car %u of %u, %u laps\n", ev->u.world.race_number, ev->u.world.car,
                   ev->u.world.car_count, ev->u.world.laps);
        break;
    case RS_CLIENT_EV_LAP:
        if (ev->u.lap.car == me && me != 0) {
            char t[32];
            rs_race_time_str(ev->u.lap.time_us, t, sizeof t);
            printf("lap %u: %s%s\n", ev->u.lap.lap, t, ev->u.lap.valid ? "" : " (invalid)");
            rs_bot_stats bs;
            rs_bot_get_stats(bot, &bs);
            if (r->laps_until_exit && bs.laps >= r->laps_until_exit)
                r->status = 0;
        }
        break;
    case RS_CLIENT_EV_RESULTS:
        printf("results of race %u:\n", ev->u.results.race_number);
        /* Rows come in finishing order, then the cars that did not finish
         * (no finish time, -1); a car without a valid lap has no best (-1):
         * say so rather than print a time. */
        for (uint32_t i = 0; i < ev->u.results.count; i++) {
            const rs_proto_result_row *row = &ev->u.results.rows[i];
            char pos[8] = "DNF", fin[32] = "DNF", best[32];
            if (row->finish_us >= 0) {
                snprintf(pos, sizeof pos, "P%u", (unsigned)row->position);
                rs_race_time_str(row->finish_us, fin, sizeof fin);
            }
            rs_race_time_str(row->best_lap_us, best, sizeof best);
            printf("  %-3s car %-2u laps %u finish %s best %s%s\n", pos, row->car, row->laps, fin,
                   best, row->car == me ? "  <- me" : "");
        }
        if (r->sessions <= 1)
            r->status = 0;
        else
            r->sessions--;
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

static void usage(FILE *f)
{
    fprintf(f, "usage: racebot [--host H] [--port N] [--name S] [--room S] [--password S]\n"
               "               [--car NAME] [--sessions N] [--laps-until-exit N] [--quiet]\n"
               "\n"
               "Joins a raceserver (default 127.0.0.1:27960) as a headless AI driver, prints\n"
               "its laps and the race's results (DNF for a car that did not finish, - for no\n"
               "valid lap). --car drives that offered car (its name or hash); --sessions\n"
               "stays for N sessions of the room's weekend (default 1). Exit status: 0 when\n"
               "the last session ends (or after N laps of its own), 1 when the connection\n"
               "fails, is refused or drops, 2 usage error.\n");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* one line at a time, also into a pipe */
    const char *host = "127.0.0.1", *port_text = "27960", *laps_text = "0";
    const char *sessions_text = "1";
    rs_client_config cfg = rs_client_config_default();
    cfg.name = "racebot";
    run r = {false, 0, 1, NULL, -1};
    /* Every option but --quiet and --help takes a value. */
    const struct {
        const char *name;
        const char **value;
    } opts[] = {{"--host", &host},
                {"--port", &port_text},
                {"--name", &cfg.name},
                {"--room", &cfg.room},
                {"--password", &cfg.password},
                {"--laps-until-exit", &laps_text},
                {"--car", &r.car},
                {"--sessions", &sessions_text}};
    rs_cli_set_program("racebot");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (rs_is_help(a)) {
            usage(stdout);
            return RS_EXIT_OK;
        }
        if (!strcmp(a, "--quiet")) {
            r.quiet = true;
            continue;
        }
        const size_t n_opts = sizeof opts / sizeof opts[0];
        size_t k = 0;
        while (k < n_opts && strcmp(a, opts[k].name) != 0)
            k++;
        if (k == n_opts || i + 1 >= argc) {
            if (k == n_opts)
                fprintf(stderr, "racebot: unknown option '%s'\n", a);
            else
                fprintf(stderr, "racebot: %s needs a value\n", a);
            usage(stderr);
            return RS_EXIT_USAGE;
        }
        *opts[k].value = argv[++i];
    }
    uint32_t port = 0;
    if (rs_parse_u32(NULL, "--port", port_text, 1, 65535, &port) ||
        rs_parse_u32(NULL, "--laps-until-exit", laps_text, 0, UINT32_MAX, &r.laps_until_exit) ||
        rs_parse_u32(NULL, "--sessions", sessions_text, 1, 1000, &r.sessions))
        return RS_EXIT_USAGE;
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
