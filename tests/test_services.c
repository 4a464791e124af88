/*
 * The store-backed services (server/services) behind a room's hooks: races
 * and laps recorded through the writer with LAP flags from its
 * acknowledgements, players registered and authenticated, leaderboards,
 * tunes (save, list, load, select) and admin commands, asked for by real
 * SDK clients (AI bots of racesim/bot.h, through racesim/client.h's
 * requests) over the in-memory link of tests/support/room_harness.c, on a
 * temporary database. And for a server whose rooms step on workers: what
 * is due to a room that is away (an admission, answers, a kick) waits for
 * it to be home, in order; a registration answered to a room that goes
 * before it is home is forgotten.
 */
#define _POSIX_C_SOURCE 199309L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_data.h"
#include "racesim/leaderboard.h"
#include "racesim/protocol.h"
#include "racesim/room.h"
#include "racesim/identity.h"
#include "racesim/services.h"
#include "racesim/track.h"
#include "racesim/tune.h"
#include "room_harness.h"
#include "test_sql.h"
#include "racesim/base/clock.h"

typedef struct scene {
    test_scene base;
    test_tmpdb db;
} scene;

static int scene_setup(void **state)
{
    scene *s = calloc(1, sizeof *s);
    if (!s || !test_scene_load("oval", "c5", false, &s->base))
        return -1;
    *state = s;
    return 0;
}

static int scene_teardown(void **state)
{
    scene *s = *state;
    test_scene_free(&s->base);
    free(s);
    return 0;
}

/* A fresh database per test. */
static int db_setup(void **state)
{
    scene *s = *state;
    return test_tmpdb_make(&s->db) ? 0 : -1;
}

static int db_teardown(void **state)
{
    scene *s = *state;
    test_tmpdb_remove(&s->db);
    return 0;
}

/* The services of the test running: step() lets them answer. */
static rs_services *g_svc;

static rs_services *services(const scene *s)
{
    rs_services_def d = rs_services_default();
    d.db_path = s->db.path;
    rs_services_track t = {"Oval", s->base.track, s->base.json, s->base.json_len};
    d.tracks = &t;
    d.track_count = 1;
    rs_services *svc = NULL;
    char err[256] = "";
    rs_status st = rs_services_create(&d, &svc, err, sizeof err);
    if (st != RS_OK)
        fprintf(stderr, "%s\n", err);
    assert_int_equal(st, RS_OK);
    g_svc = svc;
    return svc;
}

/* One step of the harness's virtual clock, then the services send what
 * their database thread answered. That thread runs in real time: while it
 * holds jobs, the virtual clock waits for it, up to 50 ms a step. */
static void step(harness *h, int64_t us)
{
    harness_step(h, us);
    if (!g_svc)
        return;
    rs_services_poll(g_svc);
    rs_services_stats st;
    rs_services_get_stats(g_svc, &st);
    for (int k = 0; st.jobs_pending && k < 500; k++) {
        struct timespec t = {0, 100000};
        nanosleep(&t, NULL);
        rs_services_poll(g_svc);
        rs_services_get_stats(g_svc, &st);
    }
}

/* A room on the scene with svc behind its hooks, for players, and no
 * clients yet. */
static harness *open_room(const scene *s, rs_services *svc, uint32_t players)
{
    rs_room_config c = harness_room_config(&s->base, players);
    c.laps = 1;
    c.max_players = 4;
    c.countdown_ticks = 120;
    c.results_ticks = 60;
    c.hooks = rs_services_hooks(svc);
    c.defer_laps = true;
    return harness_create(&c, NULL);
}

static uint8_t phase(harness *h)
{
    rs_room_stats st;
    rs_room_get_stats(harness_room(h), &st);
    return st.phase;
}

/* Steps (1 ms each) until client i has raised an event of this type; takes
 * the oldest into *out. */
static bool wait_event(harness *h, uint32_t i, uint8_t type, rs_client_event *out)
{
    for (int k = 0; k < 2000; k++) {
        if (harness_client_take(h, i, type, out))
            return true;
        step(h, 1000);
    }
    return false;
}

/* A player who joins as name with token (NULL = none), or registers. */
static rs_client_config player(const char *name, const char *token, bool register_player)
{
    rs_client_config c = harness_player(name, 20);
    c.token = token;
    c.register_player = register_player;
    return c;
}

static uint32_t join(harness *h, const char *name, bool register_player)
{
    rs_client_config c = player(name, NULL, register_player);
    return harness_add_client(h, &c, HARNESS_AI);
}

/* Client i drops and comes back as name with token (NULL = none), or
 * registers: true when it then raises an event of this type, taken into
 * *out (NULL: dropped). */
static bool comes_back(harness *h, uint32_t i, const char *name, const char *token,
                       bool register_player, uint8_t type, rs_client_event *out)
{
    rs_client_config c = player(name, token, register_player);
    harness_client_drop(h, i);
    harness_client_rejoin(h, i, &c);
    return wait_event(h, i, type, out);
}

/* Client i drops and comes back as name with token: true when the room
 * refuses it for reason. */
static bool refused_on_return(harness *h, uint32_t i, const char *name, const char *token,
                              bool register_player, uint8_t reason)
{
    rs_client_event ev;
    return comes_back(h, i, name, token, register_player, RS_CLIENT_EV_REFUSED, &ev) &&
           ev.u.refused.reason == reason;
}

/* Waits for client i's CONNECTED and copies the token it was given ("" for
 * a guest) into token[RS_PROTO_TOKEN_LEN + 1]; returns the event. */
static rs_client_event connected(harness *h, uint32_t i, char *token)
{
    rs_client_event ev;
    assert_true(wait_event(h, i, RS_CLIENT_EV_CONNECTED, &ev));
    snprintf(token, RS_PROTO_TOKEN_LEN + 1, "%s", ev.u.connected.token);
    return ev;
}

/* The room, then its services. */
static void close_room(harness *h, rs_services *svc)
{
    harness_destroy(h);
    rs_services_destroy(svc);
}

/* Waits for the reply to request id (0: it could not be sent). */
static rs_client_event reply(harness *h, uint32_t i, uint8_t type, uint32_t id)
{
    rs_client_event ev;
    memset(&ev, 0, sizeof ev);
    assert_true(id != 0);
    assert_true(wait_event(h, i, type, &ev));
    uint32_t echoed = type == RS_CLIENT_EV_TUNE_REPLY    ? ev.u.tune.request_id
                      : type == RS_CLIENT_EV_ADMIN_REPLY ? ev.u.admin.request_id
                                                         : ev.u.leaderboard.request_id;
    assert_int_equal(echoed, id);
    return ev;
}

static bool run_until_phase(harness *h, uint8_t ph, uint32_t race, int64_t limit_us)
{
    int64_t end = harness_now(h) + limit_us;
    while (harness_now(h) < end) {
        step(h, 1000);
        rs_room_stats st;
        rs_room_get_stats(harness_room(h), &st);
        if (st.phase == ph && st.race_number >= race)
            return true;
    }
    return false;
}

/* One 1 ms step of the harness's virtual clock. The writer acknowledges
 * laps on its own thread in real time (an fsync each, which a busy machine
 * can make slow), while the room waits only 5 s of virtual time for a
 * LAP's flags: while laps are unacknowledged, the virtual clock waits for
 * the writer, up to 200 ms of real time a step. Returns how many are. */
static uint64_t paced_step(harness *h, rs_services *svc)
{
    rs_services_stats st;
    rs_services_get_stats(svc, &st);
    step(h, 1000);
    uint64_t pending = st.laps_pending;
    for (int k = 0; pending && k < 200; k++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        rs_services_poll(svc);
        rs_services_get_stats(svc, &st);
        if (st.laps_pending < pending)
            break;
    }
    return pending;
}

/* Runs the room's first race to its results, then through its last
 * acknowledgements and LAPs. */
static void race_to_results(harness *h, rs_services *svc)
{
    for (int k = 0; k < 200000 && phase(h) != RS_PHASE_RESULTS; k++)
        paced_step(h, svc);
    assert_int_equal(phase(h), RS_PHASE_RESULTS);
    /* 6 s: past the room's wait, so every LAP of the race is out, with
     * its flags or, unacknowledged, without. */
    uint64_t pending = 1;
    for (int k = 0; k < 20000 && (k < 6000 || pending); k++)
        pending = paced_step(h, svc);
    assert_int_equal(pending, 0);
}

/* The reply to client i's tune request id. */
static rs_msg_tune_reply tune_reply(harness *h, uint32_t i, uint32_t id)
{
    return reply(h, i, RS_CLIENT_EV_TUNE_REPLY, id).u.tune;
}

/* Client i's admin command and the reply to it. */
static rs_msg_admin_reply admin(harness *h, uint32_t i, uint8_t command, const char *arg,
                                const char *reason)
{
    uint32_t id = rs_client_admin(harness_client(h, i), command, arg, reason, 0);
    return reply(h, i, RS_CLIENT_EV_ADMIN_REPLY, id).u.admin;
}

/* What an operator does with racectl admin grant NAME. */
static void make_admin(rs_services *svc, const char *name)
{
    char err[256] = "";
    rs_status st = rs_store_player_set_admin(rs_services_store(svc), name, true, err, sizeof err);
    if (st != RS_OK) {
        char last[512];
        rs_services_last_error(svc, last, sizeof last);
        fprintf(stderr, "%s (services: %s)\n", err, last);
    }
    assert_int_equal(st, RS_OK);
}

/* ------------------------------------------------------------- races */

static void test_services_record_every_lap_and_flag_it(void **state)
{
    scene *s = *state;
    rs_services *svc = services(s);
    harness *h = open_room(s, svc, 3);
    uint32_t alice = join(h, "alice", true);
    uint32_t bob = join(h, "bob", false);
    join(h, "carol", true);

    char token[RS_PROTO_TOKEN_LEN + 1];
    rs_client_event ev = connected(h, alice, token);
    assert_true(ev.u.connected.player_id > 0);
    assert_int_equal(strlen(ev.u.connected.token), 64);
    int64_t alice_id = ev.u.connected.player_id;

    race_to_results(h, svc);

    /* Every LAP carries its flags: recorded, and a personal best for each
     * player's first valid lap on a fresh database; one of them was the
     * track record when it was acknowledged. */
    uint32_t laps = 0, valid = 0, records = 0;
    while (harness_client_take(h, bob, RS_CLIENT_EV_LAP, &ev)) {
        laps++;
        if (!(ev.u.lap.flags & RS_LAP_RECORDED)) {
            char last[600];
            rs_services_last_error(svc, last, sizeof last);
            fprintf(stderr, "a LAP without the recorded flag; last error: %s\n", last);
        }
        assert_true(ev.u.lap.flags & RS_LAP_RECORDED);
        if (ev.u.lap.valid) {
            valid++;
            assert_true(ev.u.lap.flags & RS_LAP_PERSONAL_BEST);
        }
        records += (ev.u.lap.flags & RS_LAP_TRACK_RECORD) != 0;
    }
    printf("[race] LAPs %u (valid %u, track records %u)\n", laps, valid, records);
    assert_true(laps >= 3);
    if (valid)
        assert_true(records >= 1);
    /* Every client built each world the room sent (track, car blocks and
     * snapshot checked against their hashes) and stayed in sync. */
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(harness_client_events(h, i)->count[RS_CLIENT_EV_ERROR], 0);

    /* A leaderboard request (the room's track, bob's car, any tune) is
     * answered from the store. */
    uint32_t id = rs_client_request_leaderboard(harness_client(h, bob), 0, 0, 0, 0, 10);
    rs_msg_leaderboard_reply lb_reply =
        reply(h, bob, RS_CLIENT_EV_LEADERBOARD_REPLY, id).u.leaderboard;
    assert_int_equal(lb_reply.result, RS_RESULT_OK);
    assert_int_equal(lb_reply.total, valid);
    assert_int_equal(lb_reply.count, valid);
    if (valid) {
        assert_int_equal(lb_reply.rows[0].rank, 1);
        assert_true(lb_reply.rows[0].time_us > 0);
    }

    /* What a request costs the room's thread: the hook called directly with
     * the same request (the reply goes to a peer that does not exist and is
     * dropped). */
    rs_msg q;
    memset(&q, 0, sizeof q);
    q.type = RS_MSG_LEADERBOARD_REQUEST;
    q.u.leaderboard_request.request_id = 77;
    q.u.leaderboard_request.count = 10;
    rs_room_hooks hk = rs_services_hooks(svc);
    int64_t t0 = rs_clock_ns();
    for (int k = 0; k < 1000; k++)
        hk.request(hk.ctx, harness_room(h), 999999, 0, "bob", &q);
    double us = (double)(rs_clock_ns() - t0) / 1000.0 / 1000.0;
    printf("[requests] a leaderboard request (count + top %u rows) costs %.1f us\n", valid, us);

    /* The rows are in the database: every lap heard, as many as the store
     * holds for the board (valid or not). */
    assert_int_equal(rs_services_shutdown(svc, 5000), 0);
    rs_leaderboard *lb = NULL;
    char err[256];
    assert_int_equal(rs_leaderboard_open(rs_services_store(svc), &lb, err, sizeof err), RS_OK);
    rs_board_key key = {rs_track_hash(s->base.track), rs_car_params_hash(s->base.car),
                        RS_PHYSICS_VERSION, RS_TUNE_KEY_ANY};
    rs_lb_row rows[32];
    uint32_t count = 0;
    assert_int_equal(rs_leaderboard_recent(lb, &key, 32, rows, &count, err, sizeof err), RS_OK);
    assert_int_equal(count, laps);
    int64_t player_id = 0;
    assert_int_equal(rs_leaderboard_find_player(lb, "~bob", &player_id, NULL, err, sizeof err),
                     RS_OK);
    rs_lb_race races[4];
    assert_int_equal(rs_leaderboard_races(lb, 4, races, &count, err, sizeof err), RS_OK);
    /* The first race (newest first; the next one may have begun). */
    assert_true(count >= 1);
    assert_int_equal(races[count - 1].entries, 3);
    assert_true(races[count - 1].finished_at > 0);
    assert_int_equal(races[count - 1].laps, 1);
    rs_leaderboard_close(lb);
    rs_services_stats st;
    rs_services_get_stats(svc, &st);
    assert_int_equal(st.laps_recorded, laps);
    assert_int_equal(st.records_failed, 0);

    /* The token from registration authenticates next time; a wrong one does
     * not, nor none (a registered name needs its token), nor registering the
     * name again in other letters. */
    const char *wrong = "0000000000000000000000000000000000000000000000000000000000000000";
    assert_true(refused_on_return(h, alice, "alice", wrong, false, RS_REASON_AUTH));
    assert_true(refused_on_return(h, alice, "alice", NULL, false, RS_REASON_AUTH));
    assert_true(refused_on_return(h, alice, "ALICE", NULL, true, RS_REASON_NAME_TAKEN));
    assert_true(comes_back(h, alice, "alice", token, false, RS_CLIENT_EV_CONNECTED, &ev));
    assert_int_equal(ev.u.connected.player_id, alice_id);
    assert_int_equal(ev.u.connected.token[0], '\0');

    /* Her game crashes and restarts: the old connection is still open as
     * far as the server knows (until it times out), and the new one, with
     * her token, takes her seat back at once; the old one is told why. */
    rs_client_config again = player("alice", token, false);
    uint32_t alice2 = harness_add_client(h, &again, HARNESS_AI);
    assert_true(wait_event(h, alice2, RS_CLIENT_EV_CONNECTED, &ev));
    assert_int_equal(ev.u.connected.player_id, alice_id);
    assert_true(wait_event(h, alice, RS_CLIENT_EV_DISCONNECTED, &ev));
    assert_int_equal(ev.u.disconnected.reason, RS_REASON_REPLACED);
    /* A wrong token for her name is refused, and she keeps her seat. */
    rs_client_config forged = player("alice", wrong, false);
    uint32_t mallory = harness_add_client(h, &forged, HARNESS_AI);
    assert_true(wait_event(h, mallory, RS_CLIENT_EV_REFUSED, &ev));
    assert_int_equal(ev.u.refused.reason, RS_REASON_AUTH);
    step(h, 200000);
    assert_int_equal(rs_client_get_state(harness_client(h, alice2)), RS_CLIENT_CONNECTED);
    assert_int_equal(harness_client_events(h, alice2)->count[RS_CLIENT_EV_DISCONNECTED], 0);
    /* A guest of a connected player's name is still refused. */
    rs_client_config guest = player("bob", NULL, false);
    uint32_t bob2 = harness_add_client(h, &guest, HARNESS_AI);
    assert_true(wait_event(h, bob2, RS_CLIENT_EV_REFUSED, &ev));
    assert_int_equal(ev.u.refused.reason, RS_REASON_NAME_TAKEN);

    close_room(h, svc);
}

/* ------------------------------------------------------ player names */

/* Counts the LAPs client i heard, per car, and how many of them were
 * flagged recorded. */
typedef struct lap_tally {
    uint32_t laps[RS_PROTO_MAX_CARS + 1], recorded[RS_PROTO_MAX_CARS + 1], total;
} lap_tally;

static lap_tally tally_laps(harness *h, uint32_t i)
{
    lap_tally t;
    memset(&t, 0, sizeof t);
    rs_client_event ev;
    while (harness_client_take(h, i, RS_CLIENT_EV_LAP, &ev)) {
        assert_true(ev.u.lap.car >= 1 && ev.u.lap.car <= RS_PROTO_MAX_CARS);
        t.laps[ev.u.lap.car]++;
        t.recorded[ev.u.lap.car] += (ev.u.lap.flags & RS_LAP_RECORDED) != 0;
        t.total++;
    }
    return t;
}


/* A guest whose name holds a control character is turned away at the door
 * in words (the decoder refuses the name, the room answers REFUSE with the
 * rule it breaks), and the race the others drive is recorded whole. */
static void test_services_refuse_a_control_character_and_record_the_rest(void **state)
{
    scene *s = *state;
    rs_services *svc = services(s);
    harness *h = open_room(s, svc, 3);
    uint32_t alice = join(h, "alice", true);
    uint32_t bob = join(h, "bob", false);
    join(h, "carol", false);
    assert_true(run_until_phase(h, RS_PHASE_RACE, 1, 20 * 1000000LL));

    /* The SDK would not even send such a name (test_names), so the HELLO is
     * made by hand: a good one with one byte changed. */
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_HELLO;
    m.u.hello.protocol_version = RS_PROTO_VERSION;
    m.u.hello.physics_version = RS_PHYSICS_VERSION;
    strcpy(m.u.hello.name, "badXname");
    uint8_t hello[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, hello, sizeof hello, &len, NULL), RS_PROTO_OK);
    uint8_t *x = memchr(hello, 'X', len);
    assert_non_null(x);
    *x = 0x07;
    rs_room *room = harness_room(h);
    rs_room_stats before, after;
    rs_room_get_stats(room, &before);
    const uint32_t peer = 7777; /* not one of the harness's */
    rs_room_connect(room, peer, harness_now(h));
    rs_room_receive(room, peer, RS_CH_CONTROL, hello, len, harness_now(h));
    rs_room_packet out[4];
    size_t n = rs_room_poll(room, out, 4);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].peer, peer);
    rs_msg r;
    assert_int_equal(rs_proto_decode(out[0].data, out[0].len, &r, NULL), RS_PROTO_OK);
    assert_int_equal(r.type, RS_MSG_REFUSE);
    assert_int_equal(r.u.refuse.reason, RS_REASON_BAD_NAME);
    printf("[names] REFUSE: %s\n", r.u.refuse.text);
    assert_string_equal(r.u.refuse.text,
                        "your player name is not allowed: control character U+0007 at byte 3");
    rs_room_get_stats(room, &after);
    assert_int_equal(after.refused, before.refused + 1);
    assert_int_equal(after.players, 3);

    race_to_results(h, svc);
    lap_tally t = tally_laps(h, bob);
    assert_true(t.total >= 3);
    for (uint32_t car = 1; car <= RS_PROTO_MAX_CARS; car++)
        assert_int_equal(t.recorded[car], t.laps[car]); /* every driver's every lap */
    assert_int_equal(rs_services_shutdown(svc, 5000), 0);
    rs_services_stats st;
    rs_services_get_stats(svc, &st);
    assert_int_equal(st.laps_recorded, t.total);
    assert_int_equal(st.records_failed, 0);
    assert_int_equal(st.db_errors, 0);
    (void)alice;
    close_room(h, svc);
    assert_int_equal(test_sql_value(s->db.path, "SELECT count(*) FROM laps"), t.total);
    assert_int_equal(test_sql_value(s->db.path,
                                    "SELECT count(*) FROM players WHERE name LIKE '%name%'"),
                     0);
}

/* Whatever the reason one guest's player row cannot be written (here a
 * trigger refuses it, standing in for any rule or disk error), that guest
 * alone goes unrecorded: the race and every other driver's laps are
 * stored, and the loss is reported as an error. */
static void test_services_record_the_race_when_one_guest_row_fails(void **state)
{
    scene *s = *state;
    rs_services *svc = services(s);
    char err[256];
    assert_true(test_sql_run(s->db.path,
                             "CREATE TRIGGER refuse_doomed BEFORE INSERT ON players "
                             "WHEN NEW.name = '~doomed' BEGIN "
                             "SELECT RAISE(ABORT, 'this row is refused (test)'); END",
                             NULL, err, sizeof err));
    harness *h = open_room(s, svc, 3);
    uint32_t alice = join(h, "alice", true);
    uint32_t bob = join(h, "bob", false);
    uint32_t doomed = join(h, "doomed", false);
    /* At the countdown the race is set up, and the loss reported. */
    assert_true(run_until_phase(h, RS_PHASE_COUNTDOWN, 1, 20 * 1000000LL));
    rs_services_stats st;
    rs_services_get_stats(svc, &st);
    if (st.db_errors != 1) {
        char dbg[600];
        rs_services_last_error(svc, dbg, sizeof dbg);
        fprintf(stderr, "%llu database errors; the last: %s\n", (unsigned long long)st.db_errors, dbg);
    }
    assert_int_equal(st.db_errors, 1);
    char last[600];
    rs_services_last_error(svc, last, sizeof last);
    printf("[names] the error: %s\n", last);
    assert_non_null(strstr(last, "guest doomed: storing its player row (its laps and result "
                                 "of this race will not be stored)"));
    assert_non_null(strstr(last, "this row is refused (test)"));
    race_to_results(h, svc);
    uint8_t doomed_car = rs_client_car(harness_client(h, doomed));
    assert_true(doomed_car >= 1);
    (void)alice;

    lap_tally t = tally_laps(h, bob);
    uint32_t others = 0;
    for (uint32_t car = 1; car <= RS_PROTO_MAX_CARS; car++) {
        if (car == doomed_car)
            continue;
        assert_int_equal(t.recorded[car], t.laps[car]);
        others += t.laps[car];
    }
    assert_true(others >= 2);
    assert_true(t.laps[doomed_car] >= 1);
    assert_int_equal(t.recorded[doomed_car], 0);

    assert_int_equal(rs_services_shutdown(svc, 5000), 0);
    rs_services_get_stats(svc, &st);
    assert_int_equal(st.laps_recorded, others);
    close_room(h, svc);
    /* The first race (the next may have begun) holds both others' laps. */
    assert_int_equal(test_sql_value(s->db.path, "SELECT count(*) FROM laps WHERE race_id = 1"),
                     others);
    assert_int_equal(test_sql_value(s->db.path, "SELECT count(DISTINCT player_id) FROM laps "
                                                "WHERE race_id = 1"),
                     2);

}

/* A name stored before the name rules that migration 0005 could not
 * rename would not encode in a LEADERBOARD_REPLY (the decoder refuses it):
 * the reply shows "(player <id>)" in its place, and the board still goes
 * out. */
static void test_services_hide_a_stored_name_that_breaks_the_rules(void **state)
{
    scene *s = *state;
    rs_services *svc = services(s);
    rs_store *st = rs_services_store(svc);
    char err[256];
    int64_t id = 0, lap_id = 0;
    uint64_t track_hash = rs_track_hash(s->base.track), car_hash = rs_car_params_hash(s->base.car);
    assert_int_equal(rs_store_put_track(st, track_hash, "oval", "{}", &id, err, sizeof err),
                     RS_OK);
    assert_int_equal(rs_store_put_car(st, s->base.car, 0, &id, err, sizeof err), RS_OK);
    assert_true(test_sql_run(s->db.path,
                             "INSERT INTO players (name, token_salt, token_hash, created_at) "
                             "VALUES ('evil' || char(0x202E) || 'cba', zeroblob(16), "
                             "zeroblob(32), 1)",
                             NULL, err, sizeof err));
    int64_t evil = test_sql_value(s->db.path, "SELECT max(id) FROM players");
    rs_store_lap lap = {.player_id = evil, .track_hash = track_hash, .params_hash = car_hash,
                        .base_hash = car_hash, .physics_version = RS_PHYSICS_VERSION,
                        .lap_number = 1, .time_us = 61000000, .valid = true, .recorded_at = 5};
    assert_int_equal(rs_store_put_lap(st, &lap, &lap_id, err, sizeof err), RS_OK);

    harness *h = open_room(s, svc, 2);
    uint32_t bob = join(h, "bob", false);
    assert_true(wait_event(h, bob, RS_CLIENT_EV_CONNECTED, NULL));
    uint32_t rid = rs_client_request_leaderboard(harness_client(h, bob), 0, 0, 0, 0, 10);
    rs_msg_leaderboard_reply r = reply(h, bob, RS_CLIENT_EV_LEADERBOARD_REPLY, rid).u.leaderboard;
    assert_int_equal(r.result, RS_RESULT_OK);
    assert_int_equal(r.count, 1);
    char want[40];
    snprintf(want, sizeof want, "(player %lld)", (long long)evil);
    assert_string_equal(r.rows[0].name, want);
    assert_int_equal(r.rows[0].time_us, 61000000);
    close_room(h, svc);
}

/* ------------------------------------------------------ tunes, admin */

static const char *good_tune =
    "{\"gearbox\":{\"final_drive\":3.7},\"brakes\":{\"bias_front\":0.6}}";

static void test_services_save_and_select_tunes(void **state)
{
    scene *s = *state;
    rs_services *svc = services(s);
    harness *h = open_room(s, svc, 2);
    uint32_t alice = join(h, "alice", true);
    uint32_t bob = join(h, "bob", false);
    rs_client *a = harness_client(h, alice);
    assert_true(wait_event(h, alice, RS_CLIENT_EV_CONNECTED, NULL));

    rs_msg_tune_reply r = tune_reply(h, alice, rs_client_tune_save(a, "fast", good_tune));
    assert_int_equal(r.result, RS_RESULT_OK);
    assert_int_equal(r.op, RS_TUNE_OP_SAVE);
    uint64_t tune_hash = r.tune_hash;
    assert_true(tune_hash != 0);

    /* A bad tune is refused whole, naming every bad field. */
    const char *wild = "{\"gearbox\":{\"final_drive\":9.1},\"brakes\":{\"bias_front\":0.9}}";
    r = tune_reply(h, alice, rs_client_tune_save(a, "wild", wild));
    assert_int_equal(r.result, RS_RESULT_INVALID);
    printf("[tune] refused: %s\n", r.text);
    assert_non_null(strstr(r.text, "gearbox.final_drive"));
    assert_non_null(strstr(r.text, "brakes.bias_front"));

    /* Guests keep no tunes. */
    r = tune_reply(h, bob, rs_client_tune_save(harness_client(h, bob), "wild", good_tune));
    assert_int_equal(r.result, RS_RESULT_DENIED);

    r = tune_reply(h, alice, rs_client_tune_list(a, 0, 0));
    assert_int_equal(r.result, RS_RESULT_OK);
    assert_string_equal(r.text, "fast\n");

    r = tune_reply(h, alice, rs_client_tune_load(a, "fast"));
    assert_int_equal(r.result, RS_RESULT_OK);
    assert_int_equal(r.tune_hash, tune_hash);
    assert_string_equal(r.text, good_tune);
    r = tune_reply(h, alice, rs_client_tune_load(a, "nope"));
    assert_int_equal(r.result, RS_RESULT_NOT_FOUND);

    r = tune_reply(h, alice, rs_client_tune_select(a, "fast"));
    assert_int_equal(r.op, RS_TUNE_OP_SELECT);
    assert_int_equal(r.result, RS_RESULT_OK);
    assert_int_equal(r.tune_hash, tune_hash);

    /* The selection takes effect at the next race: end this one (admin). */
    assert_true(run_until_phase(h, RS_PHASE_RACE, 1, 20 * 1000000LL));
    make_admin(svc, "alice");
    assert_int_equal(admin(h, alice, RS_ADMIN_END_RACE, "", NULL).result, RS_RESULT_OK);
    assert_true(run_until_phase(h, RS_PHASE_COUNTDOWN, 2, 20 * 1000000LL));
    for (int k = 0; k < 300; k++)
        step(h, 1000);
    uint8_t car = rs_client_car(a);
    assert_true(car >= 1);
    rs_car_params *tuned = NULL;
    uint64_t th = 0;
    char err[512];
    assert_int_equal(rs_tune_apply(s->base.car, good_tune, strlen(good_tune), "fast", &tuned, &th,
                                   err, sizeof err),
                     RS_OK);
    assert_int_equal(th, tune_hash);
    /* The clients rebuilt the tuned car from its PARAMS block and checked its
     * hash against WELCOME's. */
    rs_client *b = harness_client(h, bob);
    rs_msg_welcome w;
    assert_true(rs_client_welcome(b, &w));
    assert_int_equal(w.car_hashes[car - 1], rs_car_params_hash(tuned));
    assert_non_null(rs_client_car_params(b, car));
    assert_int_equal(rs_car_params_hash(rs_client_car_params(b, car)), rs_car_params_hash(tuned));
    assert_int_equal(harness_client_events(h, bob)->count[RS_CLIENT_EV_ERROR], 0);
    bool seen = false;
    rs_client_event ev;
    while (harness_client_take(h, bob, RS_CLIENT_EV_CAR_INFO, &ev)) {
        if (ev.u.car_info.car == car && ev.u.car_info.params_hash == rs_car_params_hash(tuned)) {
            assert_int_equal(ev.u.car_info.tune_hash, tune_hash);
            assert_int_equal(ev.u.car_info.base_hash, rs_car_params_hash(s->base.car));
            seen = true;
        }
    }
    assert_true(seen);
    rs_car_params_destroy(tuned);
    rs_client_stats cs;
    rs_client_get_stats(b, harness_now(h), &cs);
    assert_int_equal(cs.desyncs, 0);
    close_room(h, svc);
}

static void test_services_obey_administrators_only(void **state)
{
    scene *s = *state;
    rs_services *svc = services(s);
    harness *h = open_room(s, svc, 3);
    uint32_t alice = join(h, "alice", true);
    uint32_t bob = join(h, "bob", false);
    uint32_t eve = join(h, "eve", true);
    char eve_token[RS_PROTO_TOKEN_LEN + 1];
    connected(h, eve, eve_token);
    rs_client_event ev;
    assert_true(run_until_phase(h, RS_PHASE_RACE, 1, 20 * 1000000LL));
    make_admin(svc, "alice");

    /* Not an administrator: refused and counted, nothing happens. */
    assert_int_equal(admin(h, eve, RS_ADMIN_END_RACE, "", NULL).result, RS_RESULT_DENIED);
    assert_int_equal(admin(h, eve, RS_ADMIN_KICK, "bob", NULL).result, RS_RESULT_DENIED);
    assert_int_equal(admin(h, bob, RS_ADMIN_KICK, "eve", NULL).result, RS_RESULT_DENIED);
    assert_int_equal(phase(h), RS_PHASE_RACE);
    rs_room_stats rst;
    rs_room_get_stats(harness_room(h), &rst);
    assert_int_equal(rst.players, 3);
    rs_services_stats st;
    rs_services_get_stats(svc, &st);
    assert_int_equal(st.admin_denied, 3);

    /* An administrator: kick, ban (refused on return, with the reason), end
     * the race. */
    assert_int_equal(admin(h, alice, RS_ADMIN_KICK, "bob", "blocking").result, RS_RESULT_OK);
    assert_true(wait_event(h, bob, RS_CLIENT_EV_DISCONNECTED, &ev));
    assert_int_equal(ev.u.disconnected.reason, RS_REASON_KICKED);
    assert_non_null(strstr(ev.u.disconnected.text, "blocking"));
    assert_int_equal(admin(h, alice, RS_ADMIN_BAN, "eve", "ramming on purpose").result,
                     RS_RESULT_OK);
    assert_true(wait_event(h, eve, RS_CLIENT_EV_DISCONNECTED, &ev));
    assert_int_equal(ev.u.disconnected.reason, RS_REASON_BANNED);
    assert_true(comes_back(h, eve, "eve", eve_token, false, RS_CLIENT_EV_REFUSED, &ev));
    assert_int_equal(ev.u.refused.reason, RS_REASON_BANNED);
    assert_non_null(strstr(ev.u.refused.text, "ramming on purpose"));
    /* The kicked player may come back (into a new seat, no car this race). */
    harness_client_drop(h, bob);
    harness_client_rejoin(h, bob, NULL);
    assert_true(wait_event(h, bob, RS_CLIENT_EV_CONNECTED, &ev));
    assert_false(ev.u.connected.spectator); /* a player, whose car comes with a race */
    assert_true(wait_event(h, bob, RS_CLIENT_EV_WORLD_READY, &ev));
    assert_int_equal(ev.u.world.car, 0);

    rs_msg_admin_reply r = admin(h, alice, RS_ADMIN_CHANGE_TRACK, "nowhere", NULL);
    assert_int_equal(r.result, RS_RESULT_NOT_FOUND);
    assert_non_null(strstr(r.text, "Oval"));
    assert_int_equal(admin(h, alice, RS_ADMIN_CHANGE_TRACK, "oval", NULL).result, RS_RESULT_OK);
    assert_int_equal(admin(h, alice, RS_ADMIN_END_RACE, "", NULL).result, RS_RESULT_OK);
    assert_int_equal(phase(h), RS_PHASE_RESULTS);
    assert_true(wait_event(h, alice, RS_CLIENT_EV_RESULTS, NULL));
    assert_int_equal(admin(h, alice, RS_ADMIN_END_RACE, "", NULL).result, RS_RESULT_INVALID);

    /* Every command and every refused attempt is in the audit trail. */
    rs_store_audit_row rows[16];
    size_t n = 0, total = 0;
    char err[256];
    assert_int_equal(rs_store_audit_list(rs_services_store(svc), 0, rows, 16, &n, &total, err,
                                         sizeof err),
                     RS_OK);
    size_t denied = 0, done = 0;
    for (size_t i = 0; i < n; i++) {
        denied += strcmp(rows[i].result, "denied") == 0;
        done += strcmp(rows[i].result, "done") == 0;
    }
    assert_int_equal(denied, 3);
    assert_true(done >= 5);

    /* A revoked administrator is refused at once. */
    assert_int_equal(rs_store_player_set_admin(rs_services_store(svc), "alice", false, err,
                                               sizeof err),
                     RS_OK);
    assert_int_equal(admin(h, alice, RS_ADMIN_END_RACE, "", NULL).result, RS_RESULT_DENIED);

    harness_destroy(h);
    assert_int_equal(rs_services_shutdown(svc, 5000), 0);
    rs_services_destroy(svc);

    /* The ban is in the database: new services still refuse eve. */
    svc = services(s);
    h = open_room(s, svc, 1);
    rs_client_config again = player("eve", eve_token, false);
    uint32_t e2 = harness_add_client(h, &again, HARNESS_AI);
    assert_true(wait_event(h, e2, RS_CLIENT_EV_REFUSED, &ev));
    assert_int_equal(ev.u.refused.reason, RS_REASON_BANNED);
    close_room(h, svc);
}

static void test_services_rotate_tokens(void **state)
{
    scene *s = *state;
    rs_services *svc = services(s);
    harness *h = open_room(s, svc, 3);
    uint32_t alice = join(h, "alice", true);
    char old[RS_PROTO_TOKEN_LEN + 1], fresh[RS_PROTO_TOKEN_LEN + 1];
    connected(h, alice, old);
    rs_client_event ev;

    /* Guests have no token to rotate. */
    uint32_t bob = join(h, "bob", false);
    assert_true(wait_event(h, bob, RS_CLIENT_EV_CONNECTED, NULL));
    uint32_t id = rs_client_rotate_token(harness_client(h, bob));
    assert_true(id != 0);
    assert_true(wait_event(h, bob, RS_CLIENT_EV_TOKEN_REPLY, &ev));
    assert_int_equal(ev.u.token.result, RS_RESULT_DENIED);

    /* Alice's new token works, and once her client confirmed it (it does
     * when the event is polled), the old one does not. */
    id = rs_client_rotate_token(harness_client(h, alice));
    assert_true(wait_event(h, alice, RS_CLIENT_EV_TOKEN_REPLY, &ev));
    assert_int_equal(ev.u.token.request_id, id);
    assert_int_equal(ev.u.token.result, RS_RESULT_OK);
    snprintf(fresh, sizeof fresh, "%s", ev.u.token.token);
    assert_string_not_equal(fresh, old);
    for (int k = 0; k < 200; k++)
        step(h, 1000);
    assert_true(refused_on_return(h, alice, "alice", old, false, RS_REASON_AUTH));
    assert_true(comes_back(h, alice, "alice", fresh, false, RS_CLIENT_EV_CONNECTED, NULL));

    close_room(h, svc);
}

/* Penalties through ADMIN (race control in the room): an administrator's
 * time penalty and disqualification reach the players as PENALTY, removing
 * one undoes it, the words of each reply, and the audit trail. */
static void test_services_give_and_remove_penalties(void **state)
{
    scene *s = *state;
    rs_services *svc = services(s);
    harness *h = open_room(s, svc, 2);
    uint32_t alice = join(h, "alice", true);
    uint32_t bob = join(h, "bob", false);
    assert_true(run_until_phase(h, RS_PHASE_RACE, 1, 20 * 1000000LL));
    make_admin(svc, "alice");
    rs_client *a = harness_client(h, alice);

    /* Not an administrator. */
    uint32_t id = rs_client_admin(harness_client(h, bob), RS_ADMIN_PENALTY, "alice", "", 30);
    assert_int_equal(reply(h, bob, RS_CLIENT_EV_ADMIN_REPLY, id).u.admin.result,
                     RS_RESULT_DENIED);

    id = rs_client_admin(a, RS_ADMIN_PENALTY, "bob", "blocking", 30);
    rs_msg_admin_reply r = reply(h, alice, RS_CLIENT_EV_ADMIN_REPLY, id).u.admin;
    assert_int_equal(r.result, RS_RESULT_OK);
    assert_string_equal(r.text, "penalty 1: 30 s for bob");
    id = rs_client_admin(a, RS_ADMIN_DISQUALIFY, "bob", "pit lane", 0);
    r = reply(h, alice, RS_CLIENT_EV_ADMIN_REPLY, id).u.admin;
    assert_int_equal(r.result, RS_RESULT_OK);
    assert_string_equal(r.text, "penalty 2: bob disqualified");
    id = rs_client_admin(a, RS_ADMIN_DISQUALIFY, "nobody", "", 0);
    assert_int_equal(reply(h, alice, RS_CLIENT_EV_ADMIN_REPLY, id).u.admin.result,
                     RS_RESULT_NOT_FOUND);
    id = rs_client_admin(a, RS_ADMIN_REMOVE_PENALTY, "2", "wrong car", 0);
    r = reply(h, alice, RS_CLIENT_EV_ADMIN_REPLY, id).u.admin;
    assert_int_equal(r.result, RS_RESULT_OK);
    assert_string_equal(r.text, "penalty 2 removed");
    id = rs_client_admin(a, RS_ADMIN_REMOVE_PENALTY, "2", "", 0);
    assert_int_equal(reply(h, alice, RS_CLIENT_EV_ADMIN_REPLY, id).u.admin.result,
                     RS_RESULT_NOT_FOUND);
    id = rs_client_admin(a, RS_ADMIN_REMOVE_PENALTY, "two", "", 0);
    assert_int_equal(reply(h, alice, RS_CLIENT_EV_ADMIN_REPLY, id).u.admin.result,
                     RS_RESULT_INVALID);

    /* bob heard the time penalty, the disqualification and its removal. */
    rs_client_event ev;
    assert_true(wait_event(h, bob, RS_CLIENT_EV_PENALTY, &ev));
    assert_int_equal(ev.u.penalty.kind, RS_PENALTY_TIME);
    assert_int_equal(ev.u.penalty.offence, RS_OFFENCE_ADMIN);
    assert_int_equal(ev.u.penalty.seconds, 30);
    assert_string_equal(ev.u.penalty.text, "blocking");
    assert_true(wait_event(h, bob, RS_CLIENT_EV_PENALTY, &ev));
    assert_int_equal(ev.u.penalty.kind, RS_PENALTY_DSQ);
    assert_true(wait_event(h, bob, RS_CLIENT_EV_PENALTY, &ev));
    assert_true(ev.u.penalty.removed);
    assert_int_equal(ev.u.penalty.id, 2);

    /* The race's results count the 30 s and not the disqualification. */
    race_to_results(h, svc);
    rs_client_event res;
    assert_true(wait_event(h, alice, RS_CLIENT_EV_RESULTS, &res));
    uint8_t bob_car = 0;
    for (uint8_t c = 1; c <= 2; c++) {
        const char *name = "";
        if (rs_room_car_driver(harness_room(h), c, &name, NULL, NULL) && strcmp(name, "bob") == 0)
            bob_car = c;
    }
    assert_true(bob_car > 0);
    for (uint32_t i = 0; i < res.u.results.count; i++) {
        const rs_proto_result_row *row = &res.u.results.rows[i];
        assert_int_equal(row->penalty_ms, row->car == bob_car ? 30000u : 0u);
        assert_true(row->status != RS_DISQUALIFIED);
    }

    /* Each command given is in the audit trail, the refused one too. */
    rs_store_audit_row rows[32];
    size_t n = 0, total = 0;
    char err[256];
    assert_int_equal(rs_store_audit_list(rs_services_store(svc), 0, rows, 32, &n, &total, err,
                                         sizeof err),
                     RS_OK);
    uint32_t penalty = 0, disqualify = 0, remove = 0, denied = 0;
    for (size_t i = 0; i < n; i++) {
        bool done = strcmp(rows[i].result, "done") == 0;
        penalty += done && strcmp(rows[i].action, "penalty") == 0;
        disqualify += done && strcmp(rows[i].action, "disqualify") == 0;
        remove += done && strcmp(rows[i].action, "remove penalty") == 0;
        denied += strcmp(rows[i].result, "denied") == 0;
    }
    assert_int_equal(penalty, 1);
    assert_int_equal(disqualify, 2); /* "nobody" was a command given, and answered */
    assert_int_equal(remove, 2);
    assert_int_equal(denied, 1);
    close_room(h, svc);
}

/* ------------------------------------------------------- rooms away */

/* The room a server is updating on one of its workers, as the services
 * are told (rs_services_set_home): here the test says when. */
static bool g_room_away;

static bool room_home(void *ctx, const rs_room *room)
{
    (void)ctx;
    (void)room;
    return !g_room_away;
}

/* Whether client i raises an event of this type within ms steps. */
static bool event_within(harness *h, uint32_t i, uint8_t type, int ms)
{
    for (int k = 0; k < ms; k++) {
        if (harness_client_take(h, i, type, NULL))
            return true;
        step(h, 1000);
    }
    return false;
}

static void test_services_answer_a_room_away_once_it_is_home(void **state)
{
    scene *s = *state;
    rs_services *svc = services(s);
    rs_services_set_home(svc, room_home, NULL);
    harness *h = open_room(s, svc, 3);
    rs_client_event ev;

    /* An admission answered while the room is away seats nobody until it
     * is home. */
    g_room_away = true;
    uint32_t alice = join(h, "alice", true);
    assert_false(event_within(h, alice, RS_CLIENT_EV_CONNECTED, 300));
    rs_services_stats st;
    rs_services_get_stats(svc, &st);
    assert_int_equal(st.jobs_pending, 0); /* answered, waiting for the room */
    g_room_away = false;
    assert_true(event_within(h, alice, RS_CLIENT_EV_CONNECTED, 50));
    uint32_t bob = join(h, "bob", false);
    assert_true(event_within(h, bob, RS_CLIENT_EV_CONNECTED, 300));
    make_admin(svc, "alice");

    /* Requests and a kick while the room is away: nothing reaches it, then
     * everything, in the order it was asked. */
    g_room_away = true;
    rs_client *c = harness_client(h, alice);
    uint32_t first = rs_client_request_leaderboard(c, 0, 0, 0, 0, 10);
    uint32_t second = rs_client_request_leaderboard(c, 0, 0, 0, 0, 5);
    uint32_t kick = rs_client_admin(c, RS_ADMIN_KICK, "bob", "testing", 0);
    assert_true(first && second && kick);
    assert_false(event_within(h, alice, RS_CLIENT_EV_LEADERBOARD_REPLY, 300));
    assert_false(harness_client_take(h, alice, RS_CLIENT_EV_ADMIN_REPLY, NULL));
    assert_false(harness_client_take(h, bob, RS_CLIENT_EV_DISCONNECTED, NULL));
    rs_room_stats rst;
    rs_room_get_stats(harness_room(h), &rst);
    assert_int_equal(rst.players, 2);
    g_room_away = false;
    assert_int_equal(reply(h, alice, RS_CLIENT_EV_LEADERBOARD_REPLY, first).u.leaderboard.
                         request_id, first);
    assert_int_equal(reply(h, alice, RS_CLIENT_EV_LEADERBOARD_REPLY, second).u.leaderboard.
                         request_id, second);
    rs_msg_admin_reply r = reply(h, alice, RS_CLIENT_EV_ADMIN_REPLY, kick).u.admin;
    assert_int_equal(r.result, RS_RESULT_OK); /* bob was there to kick */
    assert_true(wait_event(h, bob, RS_CLIENT_EV_DISCONNECTED, &ev));
    assert_int_equal(ev.u.disconnected.reason, RS_REASON_KICKED);

    /* A registration answered while the room is away, and the room goes
     * before it is home: nobody learned the token, so the name is free
     * again, as for a player who left before its WELCOME. */
    g_room_away = true;
    uint32_t carol = join(h, "carol", true);
    assert_false(event_within(h, carol, RS_CLIENT_EV_CONNECTED, 300));
    harness_destroy(h);
    rs_services_poll(svc); /* finishes it without its room: the registration is forgotten */
    for (int k = 0; k < 500; k++) {
        rs_services_get_stats(svc, &st);
        if (!st.jobs_pending)
            break;
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
        rs_services_poll(svc);
    }
    int64_t id = 0;
    char err[256];
    assert_int_equal(rs_store_player_find(rs_services_store(svc), "carol", &id, err, sizeof err),
                     RS_ERR_MISSING);
    g_room_away = false;
    rs_services_destroy(svc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_services_record_every_lap_and_flag_it, db_setup,
                                        db_teardown),
        cmocka_unit_test_setup_teardown(test_services_refuse_a_control_character_and_record_the_rest,
                                        db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_services_record_the_race_when_one_guest_row_fails,
                                        db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_services_hide_a_stored_name_that_breaks_the_rules,
                                        db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_services_save_and_select_tunes, db_setup,
                                        db_teardown),
        cmocka_unit_test_setup_teardown(test_services_obey_administrators_only, db_setup,
                                        db_teardown),
        cmocka_unit_test_setup_teardown(test_services_rotate_tokens,
                                        db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_services_give_and_remove_penalties, db_setup,
                                        db_teardown),
        cmocka_unit_test_setup_teardown(test_services_answer_a_room_away_once_it_is_home,
                                        db_setup, db_teardown),
    };
    return cmocka_run_group_tests(tests, scene_setup, scene_teardown);
}
