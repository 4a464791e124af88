/*
 * The smallest useful racesim client: connect, hold the throttle, print
 * what happens. Usage: example_minimal [HOST [PORT [SECONDS]]]
 * (default 127.0.0.1 27960 60). Exits 0 when the race's results arrive or
 * the time is up while connected, 1 when the connection fails or is refused.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "racesim/client.h"
#include "racesim/base/clock.h"

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* one line at a time, also into a pipe */
    const char *host = argc > 1 ? argv[1] : "127.0.0.1";
    uint16_t port = (uint16_t)(argc > 2 ? atoi(argv[2]) : 27960);
    int64_t seconds = argc > 3 ? atoi(argv[3]) : 60;

    rs_client_config cfg = rs_client_config_default();
    cfg.name = "minimal";
    rs_client *c = NULL;
    char err[256];
    if (rs_client_connect(&cfg, host, port, rs_clock_us(), &c, err, sizeof err) != RS_CLIENT_OK) {
        fprintf(stderr, "connect: %s\n", err);
        return 1;
    }
    /* Straight ahead with a little throttle: enough to see laps on an oval's straight. */
    rs_input in = rs_input_quantise(0.0, 0.6, 0.0, 0.0, 0.0);
    rs_client_set_input(c, &in);

    int status = -1;
    int64_t end = rs_clock_us() + seconds * 1000000;
    while (status < 0) {
        rs_client_update(c, rs_clock_us());
        rs_client_event ev;
        while (rs_client_poll_event(c, &ev)) {
            switch (ev.type) {
            case RS_CLIENT_EV_CONNECTED:
                printf("connected: %s, %u Hz\n", ev.u.connected.spectator ? "spectator" : "player",
                       ev.u.connected.tick_hz);
                break;
            case RS_CLIENT_EV_WORLD_READY:
                printf("world ready: car %u of %u, %u laps\n", ev.u.world.car,
                       ev.u.world.car_count, ev.u.world.laps);
                break;
            case RS_CLIENT_EV_RACE_STATE:
                printf("race %u phase %u\n", ev.u.race_state.race_number, ev.u.race_state.phase);
                break;
            case RS_CLIENT_EV_LAP:
                printf("lap: car %u lap %u %.3f s\n", ev.u.lap.car, ev.u.lap.lap,
                       (double)ev.u.lap.time_us / 1e6);
                break;
            case RS_CLIENT_EV_RESULTS:
                printf("results: %u cars\n", ev.u.results.count);
                status = 0;
                break;
            case RS_CLIENT_EV_ERROR:
                printf("error: %s\n", ev.u.error.text);
                break;
            case RS_CLIENT_EV_REFUSED:
                printf("refused: %s\n", ev.u.refused.text);
                break;
            case RS_CLIENT_EV_DISCONNECTED:
                printf("disconnected: %s\n", ev.u.disconnected.text);
                status = 1;
                break;
            default:
                break;
            }
        }
        if (status < 0 && rs_clock_us() > end)
            status = rs_client_get_state(c) == RS_CLIENT_CONNECTED ? 0 : 1;
        rs_sleep_us(1000); /* 1 ms: ticks are 16.7 ms apart */
    }
    rs_client_stats st;
    rs_client_get_stats(c, rs_clock_us(), &st);
    printf("rtt %.1f ms, rollbacks %llu, desyncs %llu, %llu B in, %llu B out on the wire\n",
           st.rtt_ms, (unsigned long long)st.rollbacks, (unsigned long long)st.desyncs,
           (unsigned long long)st.wire_bytes_in, (unsigned long long)st.wire_bytes_out);
    rs_client_disconnect(c, rs_clock_us());
    rs_client_update(c, rs_clock_us());
    rs_client_destroy(c);
    return status;
}
