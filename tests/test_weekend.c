/*
 * A room's weekend (server/room/src/room_session.c), as players meet it:
 * real SDK clients (AI bots) over the room harness's in-memory link drive
 * practice, qualifying and races on the oval, and the tests read what the
 * clients were told (RACE_STATE, LAP, RESULTS, CAR_INFO) and what the room
 * built (its world's cars and their drivers).
 *
 * - the sessions follow each other in the configured order, each a world of
 *   its own, and the weekend begins again after the last;
 * - a timed race ends when its leader crosses the line after the time, and
 *   every other car at its next crossing;
 * - a race's grid is the qualifying order (best valid lap, ties to who set
 *   it first), or the previous race's with its top N reversed;
 * - a player joining a practice under way drives at once, placed clear of
 *   every other car, and nobody's simulation loses step;
 * - players coming and going cost the others at most one world per seat.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "racesim/protocol.h"
#include "racesim/room.h"
#include "room_harness.h"
#include "test_data.h"

#define SECOND 1000000LL
#ifndef TIMED_RACE_S
#define TIMED_RACE_S 60
#endif

static rs_room_config weekend_config(const test_scene *s, uint32_t players,
                                     const rs_proto_session_def *sessions, uint32_t count)
{
    rs_room_config c = harness_room_config(s, players);
    c.max_players = 8;
    c.countdown_ticks = 120;
    c.results_ticks = 60;
    c.sessions = sessions;
    c.session_count = count;
    return c;
}

static harness *field(const rs_room_config *cfg, uint32_t n)
{
    harness *h = harness_create(cfg, NULL);
    for (uint32_t k = 0; k < n; k++) {
        char name[24];
        snprintf(name, sizeof name, "driver%u", k);
        rs_client_config c = harness_player(name, 20);
        harness_add_client(h, &c, HARNESS_AI);
    }
    return h;
}

/* The names of the cars of the room's world, in car order. */
static uint32_t world_names(rs_room *room, char names[][RS_PROTO_NAME_MAX + 1])
{
    const rs_world *w = rs_room_world(room);
    uint32_t n = w ? rs_world_car_count(w) : 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *name = "";
        assert_true(rs_room_car_driver(room, (uint8_t)(i + 1), &name, NULL, NULL));
        snprintf(names[i], RS_PROTO_NAME_MAX + 1, "%s", name);
    }
    return n;
}

/* Steps until the room runs session index (of race_number > after), or the
 * deadline; fails the test at the deadline. */
static void run_until_session(harness *h, uint32_t index, uint32_t after, int64_t deadline)
{
    rs_room *room = harness_room(h);
    for (;;) {
        rs_room_session_info si;
        rs_room_stats st;
        rs_room_session_state(room, &si);
        rs_room_get_stats(room, &st);
        if (si.running && si.index == index && st.race_number > after)
            return;
        assert_true(harness_now(h) < deadline);
        harness_step(h, 1000);
    }
}

/* Steps until client 0 holds a RESULTS of race_number, which it returns. */
static rs_msg_results results_of(harness *h, uint32_t race_number, int64_t deadline)
{
    rs_client_event ev;
    for (;;) {
        while (harness_client_take(h, 0, RS_CLIENT_EV_RESULTS, &ev))
            if (ev.u.results.race_number == race_number)
                return ev.u.results;
        assert_true(harness_now(h) < deadline);
        harness_step(h, 1000);
    }
}

/* A result's rows as driver names (the world still exists in the results
 * phase, so its cars still name their drivers). */
static void result_names(rs_room *room, const rs_msg_results *r,
                         char names[][RS_PROTO_NAME_MAX + 1])
{
    for (uint32_t i = 0; i < r->count; i++) {
        const char *name = "";
        assert_true(rs_room_car_driver(room, r->rows[i].car, &name, NULL, NULL));
        snprintf(names[i], RS_PROTO_NAME_MAX + 1, "%s", name);
    }
}

static void test_weekend_runs_practice_qualifying_and_a_race_from_its_grid(void **state)
{
    const rs_proto_session_def sessions[] = {
        {.type = RS_SESSION_PRACTICE, .time_limit_s = 15},
        {.type = RS_SESSION_QUALIFYING, .time_limit_s = 30},
        {.type = RS_SESSION_RACE, .laps = 1, .grid_source = RS_GRID_QUALIFYING},
    };
    rs_room_config cfg = weekend_config(*state, 3, sessions, 3);
    harness *h = field(&cfg, 3);
    rs_room *room = harness_room(h);
    int64_t deadline = harness_now(h) + 400 * SECOND;

    run_until_session(h, 0, 0, deadline);
    rs_room_session_info si;
    rs_room_session_state(room, &si);
    assert_int_equal(si.weekend, 1);
    assert_int_equal(si.def.type, RS_SESSION_PRACTICE);
    /* Practice runs at once: no standing start, no countdown. */
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    assert_int_equal(st.phase, RS_PHASE_RACE);

    rs_msg_results practice = results_of(h, 1, deadline);
    assert_int_equal(practice.session_type, RS_SESSION_PRACTICE);
    assert_int_equal(practice.session_index, 0);

    run_until_session(h, 1, 1, deadline);
    rs_msg_results quali = results_of(h, 2, deadline);
    assert_int_equal(quali.session_type, RS_SESSION_QUALIFYING);
    assert_int_equal(quali.count, 3);
    /* Classified by best valid lap, the cars without one behind. */
    char quali_names[RS_PROTO_MAX_CARS][RS_PROTO_NAME_MAX + 1];
    result_names(room, &quali, quali_names);
    uint32_t timed = 0;
    for (uint32_t i = 0; i < quali.count; i++) {
        const rs_proto_result_row *row = &quali.rows[i];
        assert_int_equal(row->position, i + 1);
        if (row->status == RS_CLASSIFIED) {
            assert_int_equal(timed, i); /* no untimed car ahead of a timed one */
            timed++;
            assert_true(row->best_lap_us > 0);
            if (i > 0)
                assert_true(quali.rows[i - 1].best_lap_us <= row->best_lap_us);
        } else {
            assert_int_equal(row->best_lap_us, -1);
        }
    }
    assert_true(timed >= 2); /* 30 s on the oval: every AI car sets a lap */

    run_until_session(h, 2, 2, deadline);
    /* Car k of the race is the k-th of qualifying: the grid. */
    char grid[RS_PROTO_MAX_CARS][RS_PROTO_NAME_MAX + 1];
    assert_int_equal(world_names(room, grid), 3);
    for (uint32_t i = 0; i < 3; i++)
        assert_string_equal(grid[i], quali_names[i]);
    rs_room_get_stats(room, &st);
    assert_int_equal(st.phase, RS_PHASE_COUNTDOWN);

    /* Every client was told the session it is in (once the link carried it). */
    for (int k = 0; k < 200; k++)
        harness_step(h, 1000);
    rs_client_event ev;
    bool saw_race_state_of_race = false;
    while (harness_client_take(h, 1, RS_CLIENT_EV_RACE_STATE, &ev))
        if (ev.u.race_state.session_index == 2 && ev.u.race_state.session_type == RS_SESSION_RACE)
            saw_race_state_of_race = true;
    assert_true(saw_race_state_of_race);
    rs_msg_weekend wk;
    assert_true(rs_client_weekend(harness_client(h, 2), &wk));
    assert_int_equal(wk.session_count, 3);
    assert_int_equal(wk.sessions[1].type, RS_SESSION_QUALIFYING);
    assert_int_equal(wk.sessions[1].time_limit_s, 30);

    rs_msg_results race = results_of(h, 3, deadline);
    assert_int_equal(race.session_type, RS_SESSION_RACE);
    /* After the last session the weekend begins again. */
    run_until_session(h, 0, 3, deadline);
    rs_room_session_state(room, &si);
    assert_int_equal(si.weekend, 2);
    for (uint32_t i = 0; i < 3; i++) {
        rs_client_stats cs;
        rs_client_get_stats(harness_client(h, i), harness_now(h), &cs);
        assert_int_equal(cs.desyncs, 0);
    }
    harness_destroy(h);
}

static void test_weekend_timed_race_ends_on_the_leaders_crossing(void **state)
{
    /* A leader and two slow cars, so that after the time a slower car
     * crosses the line before the leader does: its lap must not end its
     * race (the flag waits for the leader), and its next one must. */
    const uint32_t limit_s = TIMED_RACE_S;
    const rs_proto_session_def sessions[] = {{.type = RS_SESSION_RACE, .time_limit_s = limit_s}};
    rs_room_config cfg = weekend_config(*state, 3, sessions, 1);
    cfg.finish_timeout_ticks = 150 * 60; /* the slowest needs most of a lap after the flag */
    harness *h = field(&cfg, 3);
    rs_bot_set_pace(harness_bot(h, 1), 0.55);
    rs_bot_set_pace(harness_bot(h, 2), 0.65);
    int64_t deadline = harness_now(h) + 400 * SECOND;
    rs_msg_results r = results_of(h, 1, deadline);

    /* The laps client 0 heard, in order; the race clock at the end of a
     * lap's tick from its tick number. */
    uint64_t limit_tick = cfg.countdown_ticks + limit_s * 60u;
    rs_client_event ev;
    uint64_t flag_tick = 0;
    uint32_t chequered = 0, crossed_before_flag = 0, winner = 0;
    bool done[RS_PROTO_MAX_CARS + 1] = {false};
    while (harness_client_take(h, 0, RS_CLIENT_EV_LAP, &ev)) {
        const rs_msg_lap *l = &ev.u.lap;
        bool after_time = l->tick + 1 >= limit_tick;
        if (done[l->car]) {
            /* A lap after its flag: driven, not part of the race. */
            assert_false(l->flags & RS_LAP_CHEQUERED);
            continue;
        }
        if (!(l->flags & RS_LAP_CHEQUERED)) {
            /* After the time but before the leader's crossing: racing on. */
            assert_true(flag_tick == 0);
            crossed_before_flag += after_time;
            continue;
        }
        chequered++;
        done[l->car] = true;
        if (flag_tick == 0) {
            /* The first flag is the leader's, after the time. */
            assert_int_equal(l->position, 1);
            assert_true(after_time);
            flag_tick = l->tick;
            winner = l->car;
        }
    }
    assert_true(flag_tick > 0);
    assert_true(crossed_before_flag >= 1); /* the case this test is about happened */
    assert_int_equal(chequered, 3);        /* each car took it once */
    assert_int_equal(r.count, 3);
    assert_int_equal(r.rows[0].car, winner);
    for (uint32_t i = 0; i < r.count; i++) {
        assert_int_equal(r.rows[i].status, RS_CLASSIFIED);
        assert_true(r.rows[i].finish_us > (int64_t)limit_s * SECOND);
        if (i > 0)
            assert_true(r.rows[i - 1].laps >= r.rows[i].laps);
    }
    assert_true(r.rows[0].laps_led >= 1);
    harness_destroy(h);
}

static void test_weekend_reverses_the_previous_races_top(void **state)
{
    const rs_proto_session_def sessions[] = {
        {.type = RS_SESSION_RACE, .laps = 1},
        {.type = RS_SESSION_RACE, .laps = 1, .grid_source = RS_GRID_PREVIOUS_RACE,
         .grid_reverse = 2},
    };
    rs_room_config cfg = weekend_config(*state, 3, sessions, 2);
    harness *h = field(&cfg, 3);
    rs_room *room = harness_room(h);
    int64_t deadline = harness_now(h) + 300 * SECOND;
    rs_msg_results first = results_of(h, 1, deadline);
    char order[RS_PROTO_MAX_CARS][RS_PROTO_NAME_MAX + 1];
    result_names(room, &first, order);
    assert_int_equal(first.count, 3);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(first.rows[i].status, RS_CLASSIFIED);
    run_until_session(h, 1, 1, deadline);
    char grid[RS_PROTO_MAX_CARS][RS_PROTO_NAME_MAX + 1];
    assert_int_equal(world_names(room, grid), 3);
    /* The top two swap, the third stays. */
    assert_string_equal(grid[0], order[1]);
    assert_string_equal(grid[1], order[0]);
    assert_string_equal(grid[2], order[2]);
    harness_destroy(h);
}

static void test_weekend_places_a_late_joiner_clear_of_everyone(void **state)
{
    const rs_proto_session_def sessions[] = {{.type = RS_SESSION_PRACTICE, .time_limit_s = 60}};
    rs_room_config cfg = weekend_config(*state, 2, sessions, 1);
    harness *h = field(&cfg, 2);
    rs_room *room = harness_room(h);
    int64_t deadline = harness_now(h) + 200 * SECOND;
    run_until_session(h, 0, 0, deadline);
    /* Let the two drive away from the grid a while, then a third comes. */
    while (rs_world_tick(rs_room_world(room)) < 6 * 60)
        harness_step(h, 1000);
    rs_client_config c = harness_player("latecomer", 20);
    uint32_t late = harness_add_client(h, &c, HARNESS_AI);
    const rs_world *w = rs_room_world(room);
    while (rs_world_car_count(w) < 3) {
        assert_true(harness_now(h) < deadline);
        harness_step(h, 1000);
        w = rs_room_world(room);
    }
    /* Seen right after the step that added it: at most one tick on. */
    rs_car_state mine;
    assert_int_equal(rs_world_car_state(w, (rs_car_id){3}, &mine), RS_OK);
    for (uint16_t k = 1; k <= 2; k++) {
        rs_car_state o;
        assert_int_equal(rs_world_car_state(w, (rs_car_id){k}, &o), RS_OK);
        double dx = o.pos_m[0] - mine.pos_m[0], dy = o.pos_m[1] - mine.pos_m[1];
        assert_true(dx * dx + dy * dy > 11.0 * 11.0);
    }
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    assert_int_equal(st.race_number, 1); /* the same session, not a new one */
    uint64_t join_tick = rs_world_tick(w);
    while (rs_world_tick(rs_room_world(room)) < join_tick + 15 * 60)
        harness_step(h, 1000);
    w = rs_room_world(room);
    assert_int_equal(rs_client_car(harness_client(h, late)), 3);
    assert_int_equal(rs_world_car_state(w, (rs_car_id){3}, &mine), RS_OK);
    assert_true(mine.speed_m_s > 10.0); /* it drives */
    for (uint32_t i = 0; i < 3; i++) {
        rs_client_stats cs;
        rs_client_get_stats(harness_client(h, i), harness_now(h), &cs);
        assert_int_equal(cs.desyncs, 0);
        assert_true(cs.confirmed_tick + 60 >= rs_world_tick(w));
    }
    harness_destroy(h);
}

/* Client i's WORLD_READY events so far, taken. */
static uint32_t worlds_taken(harness *h, uint32_t i)
{
    uint32_t n = 0;
    while (harness_client_take(h, i, RS_CLIENT_EV_WORLD_READY, NULL))
        n++;
    return n;
}

/* Steps until client i is linked with a car of the running world, or fails
 * at the deadline. */
static void until_driving(harness *h, uint32_t i, int64_t deadline)
{
    while (!harness_client_linked(h, i) || rs_client_car(harness_client(h, i)) == 0) {
        assert_true(harness_now(h) < deadline);
        harness_step(h, 1000);
    }
}

static void test_weekend_churn_costs_the_others_one_world_per_seat(void **state)
{
    /* Each car added to a running practice sends every watcher the whole
     * world again (tens of kilobytes). A player leaving and coming back
     * takes its own car again, which only its own connection is sent; and
     * a seat is freed only when the next session begins. So however often
     * players come and go, the others are sent at most one world per seat
     * in a session: max_players, here 4. */
    const rs_proto_session_def sessions[] = {{.type = RS_SESSION_PRACTICE, .time_limit_s = 600}};
    rs_room_config cfg = weekend_config(*state, 2, sessions, 1);
    cfg.max_players = 4;
    harness *h = field(&cfg, 2);
    rs_room *room = harness_room(h);
    int64_t deadline = harness_now(h) + 300 * SECOND;
    run_until_session(h, 0, 0, deadline);
    until_driving(h, 0, deadline);
    harness_step(h, 500000); /* its world's events all polled */
    (void)worlds_taken(h, 0);
    /* One player drops out and comes back, ten times. */
    rs_client_config c = harness_player("churner", 20);
    uint32_t churner = harness_add_client(h, &c, HARNESS_AI);
    until_driving(h, churner, deadline);
    uint8_t car = rs_client_car(harness_client(h, churner));
    harness_step(h, 500000);
    assert_int_equal(worlds_taken(h, 0), 1); /* the world with its car */
    for (int k = 0; k < 10; k++) {
        harness_client_drop(h, churner);
        harness_step(h, 100000);
        harness_client_rejoin(h, churner, NULL);
        until_driving(h, churner, deadline);
        assert_int_equal(rs_client_car(harness_client(h, churner)), car); /* its own car */
    }
    harness_step(h, 500000);
    assert_int_equal(worlds_taken(h, 0), 0); /* none for its comebacks */
    /* Newcomers under ever new names: each takes a seat, a car and a
     * world for everyone, until the seats are gone; the rest are refused. */
    uint32_t admitted = 0, refused = 0;
    for (int k = 0; k < 6; k++) {
        char name[24];
        snprintf(name, sizeof name, "passer%d", k);
        rs_client_config pc = harness_player(name, 20);
        uint32_t i = harness_add_client(h, &pc, HARNESS_AI);
        for (;;) {
            assert_true(harness_now(h) < deadline);
            harness_step(h, 1000);
            if (harness_client_take(h, i, RS_CLIENT_EV_REFUSED, NULL)) {
                refused++;
                break;
            }
            if (rs_client_car(harness_client(h, i)) != 0) {
                admitted++;
                harness_client_drop(h, i);
                break;
            }
        }
    }
    assert_int_equal(admitted, 1); /* the fourth seat */
    assert_int_equal(refused, 5);
    harness_step(h, 500000);
    assert_int_equal(worlds_taken(h, 0), 1);
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    assert_int_equal(st.race_number, 1);
    assert_int_equal(rs_world_car_count(rs_room_world(room)), 4);
    harness_destroy(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weekend_runs_practice_qualifying_and_a_race_from_its_grid),
        cmocka_unit_test(test_weekend_timed_race_ends_on_the_leaders_crossing),
        cmocka_unit_test(test_weekend_reverses_the_previous_races_top),
        cmocka_unit_test(test_weekend_places_a_late_joiner_clear_of_everyone),
        cmocka_unit_test(test_weekend_churn_costs_the_others_one_world_per_seat),
    };
    return cmocka_run_group_tests(tests, harness_scene_setup, harness_scene_teardown);
}
