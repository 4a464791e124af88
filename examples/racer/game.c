#include "game.h"

#include <stdio.h>

void racer_game_init(racer_game *g, uint32_t exit_after_laps)
{
    *g = (racer_game){.status = -1, .exit_after_laps = exit_after_laps};
}

/* racer's own, not base's rs_race_time_str: the example builds on the
 * installed SDK headers alone, and base/text.h is not one of them. */
void racer_format_lap(int64_t us, char *out, size_t cap)
{
    if (us < 0) {
        snprintf(out, cap, "--");
        return;
    }
    int64_t ms = (us + 500) / 1000;
    snprintf(out, cap, "%lld:%02lld.%03lld", (long long)(ms / 60000),
             (long long)(ms / 1000 % 60), (long long)(ms % 1000));
}

void racer_car_name(const rs_client *c, uint8_t car, char *out, size_t cap)
{
    rs_msg_car_info info;
    if (rs_client_car_info(c, car, &info) && info.name[0])
        snprintf(out, cap, "%s", info.name);
    else
        snprintf(out, cap, "car %u", (unsigned)car);
}

static void print_results(const rs_client *c, const rs_msg_results *r)
{
    printf("results of race %u:\n", (unsigned)r->race_number);
    for (uint32_t i = 0; i < r->count; i++) {
        const rs_proto_result_row *row = &r->rows[i];
        char name[RS_PROTO_NAME_MAX + 8], best[32], pos[8] = "DNF";
        racer_car_name(c, row->car, name, sizeof name);
        racer_format_lap(row->best_lap_us, best, sizeof best);
        if (row->finish_us >= 0) /* rows in finishing order, then the cars without a finish */
            snprintf(pos, sizeof pos, "P%u", (unsigned)row->position);
        printf("  %-3s %-20s laps %u best %s%s\n", pos, name, (unsigned)row->laps, best,
               row->car == rs_client_car(c) ? "  <- you" : "");
    }
}

void racer_game_on_event(racer_game *g, rs_client *c, const rs_client_event *ev)
{
    uint8_t me = rs_client_car(c);
    switch (ev->type) {
    case RS_CLIENT_EV_CONNECTED:
        printf("connected: %s, %u Hz\n", ev->u.connected.spectator ? "spectator" : "player",
               (unsigned)ev->u.connected.tick_hz);
        break;
    case RS_CLIENT_EV_WORLD_READY:
        printf("race %u: car %u of %u, %u laps\n", (unsigned)ev->u.world.race_number,
               (unsigned)ev->u.world.car, (unsigned)ev->u.world.car_count,
               (unsigned)ev->u.world.laps);
        /* A snapshot after a desync rebuilds the same race: keep its laps. */
        if (ev->u.world.race_number != g->race_number) {
            g->race_number = ev->u.world.race_number;
            g->have_results = false;
            g->laps_done = 0;
        }
        break;
    case RS_CLIENT_EV_RACE_STATE:
        if (ev->u.race_state.phase == RS_PHASE_RACE)
            printf("race %u: lights out\n", (unsigned)ev->u.race_state.race_number);
        break;
    case RS_CLIENT_EV_LAP:
        if (ev->u.lap.car != me || me == 0)
            break;
        g->laps_done = ev->u.lap.lap;
        char t[32];
        racer_format_lap(ev->u.lap.time_us, t, sizeof t);
        printf("lap %u: %s (%.3f s)%s\n", (unsigned)ev->u.lap.lap, t,
               (double)ev->u.lap.time_us / 1e6, ev->u.lap.valid ? "" : " invalid");
        if (g->exit_after_laps && g->laps_done >= g->exit_after_laps)
            g->status = 0;
        break;
    case RS_CLIENT_EV_FINISH:
        printf("finished: position %u\n", (unsigned)ev->u.finish.position);
        break;
    case RS_CLIENT_EV_RESULTS:
        g->results = ev->u.results;
        g->have_results = true;
        print_results(c, &g->results);
        break;
    case RS_CLIENT_EV_ERROR:
        fprintf(stderr, "racer: %s\n", ev->u.error.text);
        break;
    case RS_CLIENT_EV_REFUSED:
        fprintf(stderr, "racer: refused: %s\n", ev->u.refused.text);
        break;
    case RS_CLIENT_EV_DISCONNECTED:
        fprintf(stderr, "racer: disconnected: %s\n", ev->u.disconnected.text);
        if (g->status < 0)
            g->status = 1;
        break;
    default:
        break;
    }
}
