/*
 * The flat layer for other languages (racesim/client_flat.h): options set
 * by name and checked, the layouts a binding mirrors (sizes, offsets, the
 * sizes the library reports), NULL handled everywhere, and one real race:
 * the raceserver program as a child process, 1 lap of the oval, driven
 * through rs_flat_* calls only by the arithmetic of examples/minimal.c,
 * with the events, results, HUD car and standings checked (about 65 s);
 * and a race weekend (a room with a practice, two offered cars in two
 * classes and a championship): its contents, a car picked by hash, the
 * session's time, chat both ways, a command and a standings request
 * (about 5 s).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "racesim/base/clock.h"
#include "racesim/client_flat.h"
#include "server_proc.h"

/* ------------------------------------------------------------ config */

static void assert_connect_fails(const rs_flat_config *cfg, int32_t port, const char *needle)
{
    char err[256] = "";
    rs_client *c = rs_flat_connect(cfg, "127.0.0.1", port, err, (int32_t)sizeof err);
    assert_null(c);
    if (!strstr(err, needle))
        fail_msg("connect error '%s' does not mention '%s'", err, needle);
}

static void test_config_set_checks_keys_and_numbers(void **state)
{
    (void)state;
    rs_flat_config *cfg = rs_flat_config_new();
    assert_non_null(cfg);
    assert_int_equal(rs_flat_config_set(cfg, "name", "alice"), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "room", ""), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "known_hosts", NULL), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "spectator", "1"), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "spectator", "0"), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "timeout_ms", "4294967295"), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "snapshot_policy", "1"), RS_CLIENT_OK);

    /* Unknown keys, wrong case, NULLs. */
    assert_int_equal(rs_flat_config_set(cfg, "nmae", "x"), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_flat_config_set(cfg, "Name", "x"), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_flat_config_set(cfg, "input_fn", "0"), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_flat_config_set(cfg, NULL, "x"), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_flat_config_set(NULL, "name", "x"), RS_CLIENT_ERR_ARG);
    /* Anything but a plain decimal that fits the field. */
    static const char *const bad_numbers[] = {"", "abc", "-1", "+5", " 5", "5 ", "1x", "0x10",
                                              "1.5", "4294967296", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad_numbers / sizeof *bad_numbers; i++)
        if (rs_flat_config_set(cfg, "max_lead_ticks", bad_numbers[i]) != RS_CLIENT_ERR_ARG)
            fail_msg("max_lead_ticks '%s' was accepted", bad_numbers[i]);
    assert_int_equal(rs_flat_config_set(cfg, "max_lead_ticks", NULL), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_flat_config_set(cfg, "snapshot_policy", "256"), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_flat_config_set(cfg, "simulate", "2"), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_flat_config_set(cfg, "simulate", "true"), RS_CLIENT_ERR_ARG);
    /* car_hash: the whole 64-bit range in decimal, not one more. */
    assert_int_equal(rs_flat_config_set(cfg, "car_hash", "18446744073709551615"), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "car_hash", "0"), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "car_hash", "18446744073709551616"),
                     RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_flat_config_set(cfg, "car_hash", "-1"), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_flat_config_set(cfg, "car_hash", "0x10"), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_flat_config_set(cfg, "spectator", "5"), RS_CLIENT_ERR_ARG);

    /* The values reach the client: connect checks the ranges. */
    assert_int_equal(rs_flat_config_set(cfg, "snapshot_policy", "2"), RS_CLIENT_OK);
    assert_connect_fails(cfg, 27960, "snapshot_policy");
    assert_int_equal(rs_flat_config_set(cfg, "snapshot_policy", "0"), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "max_lead_ticks", "5"), RS_CLIENT_OK);
    assert_connect_fails(cfg, 27960, "max_lead_ticks");
    assert_int_equal(rs_flat_config_set(cfg, "max_lead_ticks", "200"), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "name", "a name far longer than thirty-two bytes"),
                     RS_CLIENT_OK);
    assert_connect_fails(cfg, 27960, "config.name");
    assert_int_equal(rs_flat_config_set(cfg, "name", "alice"), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "server_key", "abc"), RS_CLIENT_OK);
    assert_connect_fails(cfg, 27960, "server_key");
    assert_int_equal(rs_flat_config_set(cfg, "server_key", ""), RS_CLIENT_OK);
    assert_connect_fails(cfg, 0, "port");
    assert_connect_fails(cfg, 65536, "port");
    assert_connect_fails(NULL, 27960, "config");
    /* A NULL err is fine. */
    assert_null(rs_flat_connect(cfg, "127.0.0.1", 0, NULL, 0));
    rs_flat_config_free(cfg);
    rs_flat_config_free(NULL);
}

/* ----------------------------------------------------------- layouts */

static void test_layouts_are_what_bindings_mirror(void **state)
{
    (void)state;
    assert_int_equal(rs_flat_version(), RS_FLAT_VERSION);
    /* The library's sizes are this build's. */
    assert_int_equal(rs_flat_sizeof("rs_flat_event"), sizeof(rs_flat_event));
    assert_int_equal(rs_flat_sizeof("rs_flat_result"), sizeof(rs_flat_result));
    assert_int_equal(rs_flat_sizeof("rs_flat_board_row"), sizeof(rs_flat_board_row));
    assert_int_equal(rs_flat_sizeof("rs_flat_pose"), sizeof(rs_flat_pose));
    assert_int_equal(rs_flat_sizeof("rs_flat_car"), sizeof(struct rs_flat_car));
    assert_int_equal(rs_flat_sizeof("rs_flat_track_point"), sizeof(rs_flat_track_point));
    assert_int_equal(rs_flat_sizeof("rs_standing"), sizeof(rs_standing));
    assert_int_equal(rs_flat_sizeof("rs_flat_stats"), sizeof(rs_flat_stats));
    assert_int_equal(rs_flat_sizeof("rs_flat_weekend"), sizeof(rs_flat_weekend));
    assert_int_equal(rs_flat_sizeof("rs_flat_session_def"), sizeof(rs_flat_session_def));
    assert_int_equal(rs_flat_sizeof("rs_flat_car_class"), sizeof(rs_flat_car_class));
    assert_int_equal(rs_flat_sizeof("rs_flat_offered_car"), sizeof(rs_flat_offered_car));
    assert_int_equal(rs_flat_sizeof("rs_flat_session"), sizeof(rs_flat_session));
    assert_int_equal(rs_flat_sizeof("rs_flat_car_info"), sizeof(rs_flat_car_info));
    assert_int_equal(rs_flat_sizeof("rs_flat_penalty"), sizeof(rs_flat_penalty));
    assert_int_equal(rs_flat_sizeof("rs_flat_chat"), sizeof(rs_flat_chat));
    assert_int_equal(rs_flat_sizeof("rs_flat_vote"), sizeof(rs_flat_vote));
    assert_int_equal(rs_flat_sizeof("rs_flat_championship_row"),
                     sizeof(rs_flat_championship_row));
    assert_int_equal(rs_flat_sizeof("rs_client_stats"), 0); /* not a flat layout */
    assert_int_equal(rs_flat_sizeof("rs_flat_config"), 0);
    assert_int_equal(rs_flat_sizeof(""), 0);
    assert_int_equal(rs_flat_sizeof(NULL), 0);
    /* The layouts are ABI: no padding anywhere a binding could get wrong,
     * the same on every 32- and 64-bit target (the int64 fields are
     * 8-aligned by position). A changed number here breaks every binding. */
    assert_int_equal(offsetof(rs_flat_event, request_id), 32);
    assert_int_equal(offsetof(rs_flat_event, race_number), 36);
    assert_int_equal(offsetof(rs_flat_event, time_us), 40);
    assert_int_equal(offsetof(rs_flat_event, value), 72);
    assert_int_equal(offsetof(rs_flat_event, text), 80);
    assert_int_equal(sizeof(rs_flat_event), 1104);
    assert_int_equal(offsetof(rs_flat_result, finish_us), 16);
    assert_int_equal(offsetof(rs_flat_result, class_position), 32); /* appended in version 2 */
    assert_int_equal(offsetof(rs_flat_result, laps_led), 44);
    assert_int_equal(sizeof(rs_flat_result), 48);
    assert_int_equal(offsetof(rs_flat_board_row, name), 32);
    assert_int_equal(sizeof(rs_flat_board_row), 96);
    assert_int_equal(offsetof(rs_flat_pose, quat), 56);
    assert_int_equal(sizeof(rs_flat_pose), 88);
    assert_int_equal(offsetof(struct rs_flat_car, speed_m_s), 24);
    assert_int_equal(offsetof(struct rs_flat_car, lap_time_us), 40);
    assert_int_equal(sizeof(struct rs_flat_car), 72);
    assert_int_equal(offsetof(rs_flat_track_point, inside_limits), 64);
    assert_int_equal(sizeof(rs_flat_track_point), 72);
    assert_int_equal(offsetof(rs_standing, gap_us), 16);
    assert_int_equal(sizeof(rs_standing), 64);
    assert_int_equal(offsetof(rs_flat_stats, late_inputs), 88);
    assert_int_equal(sizeof(rs_flat_stats), 288);
    /* Version 2, the race weekend. */
    assert_int_equal(offsetof(rs_flat_weekend, championship), 16);
    assert_int_equal(sizeof(rs_flat_weekend), 80);
    assert_int_equal(offsetof(rs_flat_session_def, grid_reverse), 20);
    assert_int_equal(sizeof(rs_flat_session_def), 24);
    assert_int_equal(offsetof(rs_flat_car_class, name), 8);
    assert_int_equal(sizeof(rs_flat_car_class), 72);
    assert_int_equal(offsetof(rs_flat_offered_car, index), 8);
    assert_int_equal(offsetof(rs_flat_offered_car, name), 16);
    assert_int_equal(offsetof(rs_flat_offered_car, class_name), 80);
    assert_int_equal(sizeof(rs_flat_offered_car), 144);
    assert_int_equal(offsetof(rs_flat_session, time_left_ms), 24);
    assert_int_equal(sizeof(rs_flat_session), 32);
    assert_int_equal(offsetof(rs_flat_car_info, player_id), 24);
    assert_int_equal(offsetof(rs_flat_car_info, base_hash), 40);
    assert_int_equal(offsetof(rs_flat_car_info, name), 56);
    assert_int_equal(offsetof(rs_flat_car_info, car_name), 184);
    assert_int_equal(sizeof(rs_flat_car_info), 248);
    assert_int_equal(offsetof(rs_flat_penalty, tick), 24);
    assert_int_equal(offsetof(rs_flat_penalty, text), 32);
    assert_int_equal(sizeof(rs_flat_penalty), 288);
    assert_int_equal(offsetof(rs_flat_chat, player_id), 16);
    assert_int_equal(offsetof(rs_flat_chat, from), 24);
    assert_int_equal(offsetof(rs_flat_chat, text), 88);
    assert_int_equal(sizeof(rs_flat_chat), 344);
    assert_int_equal(offsetof(rs_flat_vote, subject), 32);
    assert_int_equal(offsetof(rs_flat_vote, by), 160);
    assert_int_equal(sizeof(rs_flat_vote), 224);
    assert_int_equal(offsetof(rs_flat_championship_row, name), 16);
    assert_int_equal(sizeof(rs_flat_championship_row), 144);
}

static void test_null_client_is_an_error_not_a_crash(void **state)
{
    (void)state;
    rs_flat_event ev;
    memset(&ev, 0xff, sizeof ev);
    assert_int_equal(rs_flat_poll(NULL, &ev), 0);
    assert_int_equal(ev.type, 0);
    rs_flat_pose pose;
    assert_int_equal(rs_flat_get_pose(NULL, 1, &pose), RS_CLIENT_ERR_ARG);
    struct rs_flat_car car;
    assert_int_equal(rs_flat_get_car(NULL, &car), RS_CLIENT_ERR_ARG);
    assert_int_equal(car.car, 0);
    rs_flat_result row;
    assert_int_equal(rs_flat_get_result(NULL, 0, &row), 0);
    rs_flat_board_row brow;
    assert_int_equal(rs_flat_get_board_row(NULL, 0, &brow), 0);
    rs_flat_track_point pt;
    assert_int_equal(rs_flat_track_sample(NULL, 0.0, &pt), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_flat_track_locate(NULL, 0.0, 0.0, &pt), RS_CLIENT_ERR_ARG);
    assert_true(rs_flat_track_length(NULL) == 0.0);
    rs_standing st[2];
    assert_int_equal(rs_flat_get_standings(NULL, st, 2), 0);
    assert_int_equal(rs_flat_state(NULL), RS_CLIENT_CLOSED);
    assert_int_equal(rs_flat_car(NULL), 0);
    rs_flat_weekend wk;
    assert_int_equal(rs_flat_get_weekend(NULL, &wk), RS_CLIENT_ERR_ARG);
    rs_flat_session_def def;
    assert_int_equal(rs_flat_get_weekend_session(NULL, 0, &def), 0);
    rs_flat_car_class cls;
    assert_int_equal(rs_flat_get_car_class(NULL, 0, &cls), 0);
    rs_flat_offered_car offer;
    assert_int_equal(rs_flat_get_offered_car(NULL, 0, &offer), 0);
    rs_flat_session ses;
    assert_int_equal(rs_flat_get_session(NULL, &ses), RS_CLIENT_ERR_ARG);
    rs_flat_car_info info;
    assert_int_equal(rs_flat_get_car_info(NULL, 1, &info), RS_CLIENT_ERR_ARG);
    rs_flat_penalty pen;
    assert_int_equal(rs_flat_get_penalty(NULL, &pen), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_flat_get_penalty(NULL, NULL), RS_CLIENT_ERR_ARG);
    rs_flat_chat chat;
    assert_int_equal(rs_flat_get_chat(NULL, &chat), RS_CLIENT_ERR_ARG);
    rs_flat_vote vote;
    assert_int_equal(rs_flat_get_vote(NULL, &vote), RS_CLIENT_ERR_ARG);
    rs_flat_championship_row crow;
    assert_int_equal(rs_flat_get_championship_row(NULL, 0, &crow), 0);
    rs_flat_set_controls(NULL, 0.0, 1.0, 0.0, 0.0, RS_GEAR_KEEP);
    rs_flat_update(NULL);
    rs_flat_close(NULL);
}

/* -------------------------------------------------------- a real race */

/* examples/minimal.c's driver on flat calls: steer towards the centre
 * line 25 m ahead, hold the speed the corner 60 m ahead allows. */
static void drive(rs_client *c, int32_t car)
{
    rs_flat_pose p;
    rs_flat_track_point at, aim, bend;
    if (rs_flat_get_pose(c, car, &p) != RS_CLIENT_OK)
        return;
    if (rs_flat_track_locate(c, p.x_m, p.y_m, &at) != RS_CLIENT_OK) {
        rs_flat_set_controls(c, 0.0, 0.0, 1.0, 0.0, RS_GEAR_KEEP); /* lost: stop */
        return;
    }
    assert_int_equal(rs_flat_track_sample(c, at.s_m + 25.0, &aim), RS_CLIENT_OK);
    assert_int_equal(rs_flat_track_sample(c, at.s_m + 60.0, &bend), RS_CLIENT_OK);
    const double *q = p.quat;
    double fx = 1.0 - 2.0 * (q[2] * q[2] + q[3] * q[3]), fy = 2.0 * (q[1] * q[2] + q[0] * q[3]);
    double dx = aim.x_m - p.x_m, dy = aim.y_m - p.y_m;
    double steer = 2.0 * (fx * dy - fy * dx) / (25.0 + 1e-9);
    double v2 = p.speed_m_s * p.speed_m_s;
    double k = bend.curvature_1_m < 0 ? -bend.curvature_1_m : bend.curvature_1_m;
    double allowed = k > 1e-4 ? 8.0 / k : 1e9;
    if (v2 > 1.2 * allowed)
        rs_flat_set_controls(c, steer, 0.0, 0.6, 0.0, RS_GEAR_KEEP);
    else
        rs_flat_set_controls(c, steer, v2 < allowed ? 0.8 : 0.2, 0.0, 0.0, RS_GEAR_KEEP);
}

/* What the race showed, for the assertions after it. */
typedef struct race_seen {
    int connected, world_ready, laps_mine, finishes, results;
    int32_t car;                 /* WORLD_READY's */
    rs_flat_event connected_ev, lap_ev, finish_ev, results_ev;
    rs_flat_result row0;
    int32_t rows_past_end;       /* rs_flat_get_result(1) */
    bool hud_racing;             /* rs_flat_get_car seen on lap 1, timing */
    double max_speed_m_s;
    bool standings_leading;      /* a row of mine, position 1, while racing */
    bool lap_before_finish, finish_before_results;
} race_seen;

static void on_event(rs_client *c, const rs_flat_event *ev, race_seen *s)
{
    switch (ev->type) {
    case RS_CLIENT_EV_CONNECTED:
        s->connected++;
        s->connected_ev = *ev;
        break;
    case RS_CLIENT_EV_WORLD_READY:
        if (ev->car) {
            s->world_ready++;
            s->car = ev->car;
            assert_true(ev->count >= 1);
        }
        break;
    case RS_CLIENT_EV_LAP:
        if (ev->car == s->car) {
            s->laps_mine++;
            s->lap_ev = *ev;
        }
        break;
    case RS_CLIENT_EV_FINISH:
        s->finishes++;
        s->finish_ev = *ev;
        s->lap_before_finish = s->laps_mine == 1;
        break;
    case RS_CLIENT_EV_RESULTS:
        s->results++;
        s->results_ev = *ev;
        s->finish_before_results = s->finishes == 1;
        assert_int_equal(rs_flat_get_result(c, 0, &s->row0), 1);
        s->rows_past_end = rs_flat_get_result(c, ev->count, &(rs_flat_result){0});
        break;
    case RS_CLIENT_EV_REFUSED:
    case RS_CLIENT_EV_DISCONNECTED:
        fail_msg("connection ended: type %d code %d: %s", ev->type, ev->code, ev->text);
        break;
    default:
        break;
    }
}

/* The HUD car and the standings while the race runs. */
static void watch_race(rs_client *c, race_seen *s)
{
    struct rs_flat_car hud;
    if (rs_flat_get_car(c, &hud) != RS_CLIENT_OK)
        return;
    assert_int_equal(hud.car, s->car);
    assert_int_equal(hud.laps, 1);
    if (hud.speed_m_s > s->max_speed_m_s)
        s->max_speed_m_s = hud.speed_m_s;
    if (hud.status == RS_RACE_RACING) {
        assert_int_equal(hud.lap, 1);
        assert_int_equal(hud.position, 1);
        assert_true(hud.lap_time_us >= 0 && hud.lap_time_us <= hud.race_time_us);
        assert_true(hud.gear >= 1);
        s->hud_racing = true;
        rs_standing rows[4];
        assert_int_equal(rs_flat_get_standings(c, rows, 4), 1);
        s->standings_leading |= rows[0].car == s->car && rows[0].position == 1 &&
                                rows[0].status == RS_RACE_RACING;
    }
}

static void test_a_real_race_through_flat_calls(void **state)
{
    (void)state;
    static const char *const args[] = {
        "--track", RS_DATA_DIR "/tracks/oval.json", "--laps", "1", "--start-players", "1",
        "--lobby-s", "1", "--countdown-s", "1", "--stats-interval", "0", NULL};
    server_proc srv;
    server_start(&srv, true, args);

    rs_flat_config *cfg = rs_flat_config_new();
    assert_non_null(cfg);
    assert_int_equal(rs_flat_config_set(cfg, "name", "flat"), RS_CLIENT_OK);
    char err[256] = "";
    rs_client *c = rs_flat_connect(cfg, "127.0.0.1", srv.port, err, (int32_t)sizeof err);
    rs_flat_config_free(cfg); /* copied by connect */
    if (!c)
        fail_msg("rs_flat_connect: %s", err);

    race_seen s;
    memset(&s, 0, sizeof s);
    /* One lap of the oval is about 60 s; lobby and countdown 2 s more. */
    int64_t deadline = rs_clock_us() + 80 * INT64_C(1000000);
    while (!s.results && rs_clock_us() < deadline) {
        int32_t car = rs_flat_car(c);
        if (car)
            drive(c, car);
        rs_flat_update(c);
        rs_flat_event ev;
        while (rs_flat_poll(c, &ev))
            on_event(c, &ev, &s);
        if (s.car)
            watch_race(c, &s);
        rs_sleep_us(1000);
    }
    if (!s.results)
        server_dump_log(&srv);
    assert_int_equal(s.results, 1);

    assert_int_equal(s.connected, 1);
    assert_int_equal(s.connected_ev.flags, 0); /* a player, not a spectator */
    assert_true(s.connected_ev.value == 60.0);
    assert_true(s.world_ready >= 1);
    assert_true(s.car >= 1);
    assert_int_equal(rs_flat_car(c), s.car);

    assert_int_equal(s.laps_mine, 1);
    assert_int_equal(s.lap_ev.lap, 1);
    assert_int_equal(s.lap_ev.position, 1);
    assert_true(s.lap_ev.time_us > 20 * INT64_C(1000000) &&
                s.lap_ev.time_us < 75 * INT64_C(1000000));
    assert_true(s.lap_ev.tick > 0);

    assert_int_equal(s.finishes, 1);
    assert_true(s.lap_before_finish);
    assert_int_equal(s.finish_ev.car, s.car);
    assert_int_equal(s.finish_ev.lap, 1);
    assert_int_equal(s.finish_ev.position, 1);
    assert_true(s.finish_ev.time_us == s.lap_ev.time_us);

    assert_true(s.finish_before_results);
    assert_int_equal(s.results_ev.count, 1);
    assert_int_equal(s.row0.car, s.car);
    assert_int_equal(s.row0.position, 1);
    assert_int_equal(s.row0.laps, 1);
    assert_int_equal(s.row0.finished, 1);
    assert_true(s.row0.finish_us > 0);
    assert_int_equal(s.rows_past_end, 0);

    assert_true(s.hud_racing);
    assert_true(s.standings_leading);
    assert_true(s.max_speed_m_s > 10.0);

    /* After the flag: finished, first, timed. */
    struct rs_flat_car hud;
    assert_int_equal(rs_flat_get_car(c, &hud), RS_CLIENT_OK);
    assert_int_equal(hud.status, RS_RACE_FINISHED);
    assert_int_equal(hud.lap, 1);
    assert_true(hud.lap_time_us == -1);
    assert_true(hud.last_lap_us > 0);
    rs_standing rows[2];
    assert_int_equal(rs_flat_get_standings(c, rows, 2), 1);
    assert_int_equal(rows[0].car, s.car);
    assert_int_equal(rows[0].status, RS_RACE_FINISHED);
    assert_int_equal(rows[0].laps_completed, 1);

    /* The track: wraps stations, knows where a point is not. */
    double len = rs_flat_track_length(c);
    assert_true(len > 100.0);
    rs_flat_track_point pt;
    assert_int_equal(rs_flat_track_sample(c, -10.0, &pt), RS_CLIENT_OK);
    assert_true(pt.s_m > len - 10.5 && pt.s_m < len);
    assert_int_equal(pt.inside_limits, 1);
    assert_int_equal(rs_flat_track_locate(c, pt.x_m, pt.y_m, &pt), RS_CLIENT_OK);
    assert_true(pt.offset_m > -0.5 && pt.offset_m < 0.5);
    assert_int_equal(rs_flat_track_locate(c, 1e7, 1e7, &pt), RS_CLIENT_ERR_ARG);
    rs_flat_pose pose;
    assert_int_equal(rs_flat_get_pose(c, 33, &pose), RS_CLIENT_ERR_ARG);

    rs_flat_stats st;
    rs_flat_get_stats(c, &st);
    assert_true(st.rtt_ms > 0.0);
    assert_true(st.frames > 1000);
    assert_int_equal(st.desyncs, 0);
    assert_int_equal(rs_flat_state(c), RS_CLIENT_CONNECTED);
    rs_flat_close(c);
    server_stop(&srv);
    server_cleanup(&srv);
}

/* ------------------------------------------------- a race weekend */

/* A room with a weekend (a 10-minute practice, then a race), two offered
 * cars in two classes and a championship, as raceserver's JSON; the path
 * is written into path. */
static void write_weekend_config(char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/rs_flat_weekend_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"championships\": [{\"name\": \"Flat Cup\", \"rooms\": [\"weekend\"]}],\n"
            " \"rooms\": [{\"name\": \"weekend\", \"track\": \"%s/tracks/oval.json\",\n"
            "   \"start_players\": 1, \"lobby_s\": 1, \"countdown_s\": 1,\n"
            "   \"weekend\": [{\"session\": \"practice\", \"minutes\": 10},\n"
            "               {\"session\": \"race\", \"laps\": 1}],\n"
            "   \"cars\": [{\"car\": \"%s/cars/c5.json\", \"class\": \"GT\"},\n"
            "            {\"car\": \"%s/cars/formula.json\", \"class\": \"Formula\"}]}]}\n",
            RS_DATA_DIR, RS_DATA_DIR, RS_DATA_DIR);
    assert_int_equal(fclose(f), 0);
}

/* What one client of the weekend saw. */
typedef struct weekend_seen {
    bool connected, weekend, world;
    int32_t car;                  /* WORLD_READY's local car */
    int chats_from_other;         /* CHAT lines from the other client */
    rs_flat_event chat_ev;        /* the last of them */
    rs_flat_chat chat;            /* and its details */
    uint32_t command_id, standings_id;
    rs_flat_event command_ev, standings_ev;
    int32_t standings_rows;       /* rs_flat_get_championship_row answered 1 this often */
} weekend_seen;

static void on_weekend_event(rs_client *c, const rs_flat_event *ev, const char *other,
                             weekend_seen *s)
{
    switch (ev->type) {
    case RS_CLIENT_EV_CONNECTED:
        s->connected = true;
        break;
    case RS_CLIENT_EV_WEEKEND:
        s->weekend = true;
        break;
    case RS_CLIENT_EV_WORLD_READY:
        if (ev->car) {
            s->world = true;
            s->car = ev->car;
        }
        break;
    case RS_CLIENT_EV_CHAT: {
        rs_flat_chat chat;
        assert_int_equal(rs_flat_get_chat(c, &chat), RS_CLIENT_OK);
        if (strcmp(chat.from, other) == 0) {
            s->chats_from_other++;
            s->chat_ev = *ev;
            s->chat = chat;
        }
        break;
    }
    case RS_CLIENT_EV_COMMAND_REPLY:
        if (ev->request_id == s->command_id)
            s->command_ev = *ev;
        break;
    case RS_CLIENT_EV_STANDINGS:
        if (ev->request_id == s->standings_id) {
            s->standings_ev = *ev;
            rs_flat_championship_row row;
            while (rs_flat_get_championship_row(c, s->standings_rows, &row))
                s->standings_rows++;
        }
        break;
    case RS_CLIENT_EV_REFUSED:
    case RS_CLIENT_EV_DISCONNECTED:
        fail_msg("connection ended: type %d code %d: %s", ev->type, ev->code, ev->text);
        break;
    default:
        break;
    }
}

typedef struct weekend_client {
    rs_client *c;
    const char *other;            /* the other client's name */
    weekend_seen seen;
} weekend_client;

/* Updates both clients and hands out their events, a millisecond at a
 * time, until done(a, b) or the seconds run out; returns done's last say. */
static bool pump(weekend_client *a, weekend_client *b, double seconds,
                 bool (*done)(const weekend_client *, const weekend_client *))
{
    int64_t deadline = rs_clock_us() + (int64_t)(seconds * 1e6);
    while (rs_clock_us() < deadline) {
        weekend_client *both[2] = {a, b};
        for (int k = 0; k < 2; k++) {
            if (!both[k]->c)
                continue;
            rs_flat_update(both[k]->c);
            rs_flat_event ev;
            while (rs_flat_poll(both[k]->c, &ev))
                on_weekend_event(both[k]->c, &ev, both[k]->other, &both[k]->seen);
        }
        if (done(a, b))
            return true;
        rs_sleep_us(1000);
    }
    return done(a, b);
}

static rs_client *connect_flat(uint16_t port, const char *name, uint64_t car_hash)
{
    rs_flat_config *cfg = rs_flat_config_new();
    assert_non_null(cfg);
    char hash[24];
    snprintf(hash, sizeof hash, "%" PRIu64, car_hash);
    assert_int_equal(rs_flat_config_set(cfg, "name", name), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "room", "weekend"), RS_CLIENT_OK);
    assert_int_equal(rs_flat_config_set(cfg, "car_hash", hash), RS_CLIENT_OK);
    char err[256] = "";
    rs_client *c = rs_flat_connect(cfg, "127.0.0.1", port, err, (int32_t)sizeof err);
    rs_flat_config_free(cfg);
    if (!c)
        fail_msg("rs_flat_connect %s: %s", name, err);
    return c;
}

static bool a_has_weekend(const weekend_client *a, const weekend_client *b)
{
    (void)b;
    return a->seen.connected && a->seen.weekend;
}

/* Both have a world, and a's has b's car: b joins a running practice,
 * so a hears of b's car a moment after b's world is built. */
static bool both_driving(const weekend_client *a, const weekend_client *b)
{
    rs_flat_car_info info;
    return a->seen.world && b->seen.world && b->seen.car != 0 &&
           rs_flat_get_car_info(a->c, b->seen.car, &info) == RS_CLIENT_OK;
}

static bool chats_arrived(const weekend_client *a, const weekend_client *b)
{
    return a->seen.chats_from_other >= 1 && b->seen.chats_from_other >= 1;
}

static bool replies_arrived(const weekend_client *a, const weekend_client *b)
{
    return a->seen.command_ev.type && b->seen.standings_ev.type;
}

/* The weekend as client a sees it: two sessions, two classes, two cars,
 * the championship; returns the second car's hash. */
static uint64_t check_weekend(rs_client *c)
{
    rs_flat_weekend wk;
    assert_int_equal(rs_flat_get_weekend(c, &wk), RS_CLIENT_OK);
    assert_true(wk.weekend >= 1);
    assert_int_equal(wk.session_count, 2);
    assert_int_equal(wk.class_count, 2);
    assert_int_equal(wk.car_count, 2);
    assert_string_equal(wk.championship, "Flat Cup");
    rs_flat_session_def def;
    assert_int_equal(rs_flat_get_weekend_session(c, 0, &def), 1);
    assert_int_equal(def.type, RS_SESSION_PRACTICE);
    assert_int_equal(def.time_limit_s, 600);
    assert_int_equal(def.laps, 0);
    assert_int_equal(rs_flat_get_weekend_session(c, 1, &def), 1);
    assert_int_equal(def.index, 1);
    assert_int_equal(def.type, RS_SESSION_RACE);
    assert_int_equal(def.laps, 1);
    assert_int_equal(rs_flat_get_weekend_session(c, 2, &def), 0);
    rs_flat_car_class cls;
    assert_int_equal(rs_flat_get_car_class(c, 1, &cls), 1);
    assert_string_equal(cls.name, "Formula");
    assert_int_equal(rs_flat_get_car_class(c, 2, &cls), 0);
    rs_flat_offered_car first, second;
    assert_int_equal(rs_flat_get_offered_car(c, 0, &first), 1);
    assert_int_equal(rs_flat_get_offered_car(c, 1, &second), 1);
    assert_int_equal(rs_flat_get_offered_car(c, 2, &second), 0);
    assert_int_equal(rs_flat_get_offered_car(c, 1, &second), 1);
    assert_string_equal(first.class_name, "GT");
    assert_int_equal(second.index, 1);
    assert_int_equal(second.class_index, 1);
    assert_string_equal(second.class_name, "Formula");
    assert_true(second.name[0] != '\0');
    assert_true(first.base_hash != 0 && second.base_hash != 0);
    assert_true(first.base_hash != second.base_hash);
    return second.base_hash;
}

/* Client b drives the second car, and client a's view agrees. */
static void check_chosen_car(const weekend_client *a, const weekend_client *b, uint64_t hash)
{
    rs_flat_car_info info;
    assert_int_equal(rs_flat_get_car_info(b->c, b->seen.car, &info), RS_CLIENT_OK);
    assert_int_equal(info.car, b->seen.car);
    assert_true(info.base_hash == hash);
    assert_int_equal(info.class_index, 1);
    assert_string_equal(info.class_name, "Formula");
    assert_string_equal(info.name, "flatb");
    assert_true(info.car_name[0] != '\0');
    rs_flat_car_info seen_by_a;
    assert_int_equal(rs_flat_get_car_info(a->c, b->seen.car, &seen_by_a), RS_CLIENT_OK);
    assert_true(seen_by_a.base_hash == hash);
    assert_string_equal(seen_by_a.car_name, info.car_name);
    assert_int_equal(rs_flat_get_car_info(a->c, a->seen.car, &info), RS_CLIENT_OK);
    assert_string_equal(info.class_name, "GT"); /* the room's choice: its first car */
    assert_int_equal(rs_flat_get_car_info(a->c, 33, &info), RS_CLIENT_ERR_ARG);
}

/* The practice session: timed, 10 minutes, running down. */
static void check_session(rs_client *c)
{
    rs_flat_session ses;
    assert_int_equal(rs_flat_get_session(c, &ses), RS_CLIENT_OK);
    assert_int_equal(ses.index, 0);
    assert_int_equal(ses.type, RS_SESSION_PRACTICE);
    assert_int_equal(ses.laps, 0);
    assert_int_equal(ses.time_limit_ms, 600000);
    assert_int_equal(ses.chequered, 0);
    if (!(ses.time_left_ms > 0 && ses.time_left_ms <= 600000))
        fail_msg("time left %lld ms of a 10-minute practice", (long long)ses.time_left_ms);
}

static void test_a_race_weekend_through_flat_calls(void **state)
{
    (void)state;
    char config[64];
    write_weekend_config(config, sizeof config);
    const char *const args[] = {"--config", config, "--stats-interval", "0", NULL};
    server_proc srv;
    server_start(&srv, true, args);

    /* a: the room's car; it learns the offered cars from the WEEKEND. */
    weekend_client a = {.c = connect_flat(srv.port, "flata", 0), .other = "flatb"};
    weekend_client b = {.c = NULL, .other = "flata"};
    if (!pump(&a, &b, 15.0, a_has_weekend))
        server_dump_log(&srv);
    assert_true(a.seen.weekend);
    uint64_t second = check_weekend(a.c);

    /* b: picks the second car by its hash. */
    b.c = connect_flat(srv.port, "flatb", second);
    if (!pump(&a, &b, 20.0, both_driving))
        server_dump_log(&srv);
    assert_true(b.seen.world && a.seen.world);
    check_chosen_car(&a, &b, second);
    check_session(b.c);

    /* A line to the room and a private one, each read by the other. */
    static const char room_line[] = "hello from flat \xc3\xa9t\xc3\xa9 \xe2\x9c\x93";
    assert_int_equal(rs_client_chat(b.c, "", room_line), RS_CLIENT_OK);
    assert_int_equal(rs_client_chat(a.c, "flatb", "just for you"), RS_CLIENT_OK);
    assert_int_equal(rs_client_chat(a.c, "", "bad\nline"), RS_CLIENT_ERR_ARG);
    if (!pump(&a, &b, 10.0, chats_arrived))
        server_dump_log(&srv);
    assert_int_equal(a.seen.chats_from_other, 1);
    assert_int_equal(a.seen.chat_ev.code, RS_CHAT_ROOM);
    assert_string_equal(a.seen.chat_ev.text, room_line);
    assert_string_equal(a.seen.chat.text, room_line);
    assert_int_equal(a.seen.chat.is_private, 0);
    assert_int_equal(a.seen.chat.announcement, 0);
    assert_int_equal(b.seen.chats_from_other, 1);
    assert_int_equal(b.seen.chat.kind, RS_CHAT_PRIVATE);
    assert_int_equal(b.seen.chat.is_private, 1);
    assert_string_equal(b.seen.chat.text, "just for you");

    /* A command (a's car again, by hash in hex) and a standings request. */
    char hex[17];
    rs_flat_offered_car first;
    assert_int_equal(rs_flat_get_offered_car(a.c, 0, &first), 1);
    snprintf(hex, sizeof hex, "%016" PRIx64, first.base_hash);
    assert_int_equal(rs_client_command(a.c, RS_CMD_SELECT_CAR, hex, &a.seen.command_id),
                     RS_CLIENT_OK);
    assert_true(a.seen.command_id != 0);
    assert_int_equal(rs_client_standings_request(b.c, NULL, NULL, 0, 10, &b.seen.standings_id),
                     RS_CLIENT_OK);
    if (!pump(&a, &b, 10.0, replies_arrived))
        server_dump_log(&srv);
    assert_int_equal(a.seen.command_ev.code, RS_RESULT_OK);
    /* A fresh database: the room's championship, no finished session yet. */
    assert_int_equal(b.seen.standings_ev.code, RS_RESULT_OK);
    assert_string_equal(b.seen.standings_ev.text, "Flat Cup");
    assert_int_equal(b.seen.standings_ev.count, 0);
    assert_int_equal(b.seen.standings_rows, 0);

    rs_flat_close(a.c);
    rs_flat_close(b.c);
    server_stop(&srv);
    server_cleanup(&srv);
    remove(config);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_set_checks_keys_and_numbers),
        cmocka_unit_test(test_layouts_are_what_bindings_mirror),
        cmocka_unit_test(test_null_client_is_an_error_not_a_crash),
        cmocka_unit_test_teardown(test_a_real_race_through_flat_calls, server_kill_leftover),
        cmocka_unit_test_teardown(test_a_race_weekend_through_flat_calls, server_kill_leftover),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
