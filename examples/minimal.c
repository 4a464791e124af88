/*
 * The smallest useful racesim client: connect, drive round the track, print
 * what happens. Usage: example_minimal [HOST [PORT [SECONDS]]]
 * (default 127.0.0.1 27960 60). Exits 0 when the race's results arrive or
 * the time is up while connected, 1 when the connection fails or is refused.
 *
 * Its driver is ten lines of arithmetic on the car's pose and the track:
 * steer towards the centre line 25 m ahead, and hold a speed the corner
 * ahead allows. Cars start in Drive, so throttle and steering are all it
 * sends (docs/CLIENT_SDK.md, "Gears").
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "racesim/base/clock.h"
#include "racesim/client.h"

/* Throttle, brake and steering for the car at pose p on track t. */
static rs_input drive(const rs_track *t, const rs_predict_pose *p)
{
    rs_track_location at;
    if (!rs_track_locate(t, p->pos_m[0], p->pos_m[1], &at))
        return rs_input_quantise(0.0, 0.0, 1.0, 0.0, 0.0); /* lost: stop */
    rs_track_sample aim, bend;
    rs_track_sample_at(t, at.s_m + 25.0, &aim);
    rs_track_sample_at(t, at.s_m + 60.0, &bend);
    /* The car's heading from its orientation (w, x, y, z), and the side the
     * aim point lies on: the cross product, per metre of distance. */
    const double *q = p->quat;
    double fx = 1.0 - 2.0 * (q[2] * q[2] + q[3] * q[3]), fy = 2.0 * (q[1] * q[2] + q[0] * q[3]);
    double dx = aim.x_m - p->pos_m[0], dy = aim.y_m - p->pos_m[1];
    double steer = 2.0 * (fx * dy - fy * dx) / (25.0 + 1e-9);
    /* A corner of curvature k allows v^2 = a / k with a lateral grip a. */
    double v2 = p->vel_m_s[0] * p->vel_m_s[0] + p->vel_m_s[1] * p->vel_m_s[1];
    double k = bend.curvature_1_m < 0 ? -bend.curvature_1_m : bend.curvature_1_m;
    double allowed = k > 1e-4 ? 8.0 / k : 1e9;
    if (v2 > 1.2 * allowed)
        return rs_input_quantise(steer, 0.0, 0.6, 0.0, 0.0);
    return rs_input_quantise(steer, v2 < allowed ? 0.8 : 0.2, 0.0, 0.0, 0.0);
}

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
    int status = -1;
    int64_t end = rs_clock_us() + seconds * 1000000;
    while (status < 0) {
        /* The controls for the coming ticks, from where the car is now. */
        rs_predict_pose pose;
        uint8_t car = rs_client_car(c);
        if (car && rs_client_pose(c, car, rs_clock_us(), &pose) == RS_CLIENT_OK) {
            rs_input in = drive(rs_client_track(c), &pose);
            rs_client_set_input(c, &in);
        }
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
                printf("lap: car %u lap %u %.3f s%s\n", ev.u.lap.car, ev.u.lap.lap,
                       (double)ev.u.lap.time_us / 1e6, ev.u.lap.car == car ? " (mine)" : "");
                break;
            case RS_CLIENT_EV_FINISH:
                printf("finished: %u laps, position %u\n", ev.u.finish.laps, ev.u.finish.position);
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
