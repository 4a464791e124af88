/*
 * The store-backed services (server/services) behind a room's hooks: races
 * and laps recorded through the writer with LAP flags from its
 * acknowledgements, players registered and authenticated, leaderboards,
 * tunes (save, list, load, select) and admin commands, driven by protocol
 * clients through the in-memory transport of tests/support/room_harness.c
 * on a temporary database.
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
#include <unistd.h>

#include <cmocka.h>

#include "test_data.h"
#include "racesim/driver.h"
#include "racesim/leaderboard.h"
#include "racesim/protocol.h"
#include "racesim/room.h"
#include "racesim/services.h"
#include "racesim/track.h"
#include "racesim/tune.h"
#include "room_harness.h"
#include "racesim/base/clock.h"

typedef struct scene {
    test_scene base;
    char db[256];
} scene;

static int scene_setup(void **state)
{
    scene *s = calloc(1, sizeof *s);
    if (!s || !test_scene_load("oval", "c5", true, &s->base))
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
    static int n;
    snprintf(s->db, sizeof s->db, "/tmp/rs_test_services_%d_%d.db", (int)getpid(), ++n);
    test_db_remove(s->db);
    return 0;
}

static int db_teardown(void **state)
{
    scene *s = *state;
    test_db_remove(s->db);
    return 0;
}

static rs_services *services(const scene *s, const char *ban_path)
{
    rs_services_def d = rs_services_default();
    d.db_path = s->db;
    d.admin_secret = "hunter2-is-the-admin-secret";
    d.ban_path = ban_path;
    rs_services_track t = {"Oval", s->base.track, s->base.json, s->base.json_len};
    d.tracks = &t;
    d.track_count = 1;
    rs_services *svc = NULL;
    char err[256] = "";
    rs_status st = rs_services_create(&d, &svc, err, sizeof err);
    if (st != RS_OK)
        fprintf(stderr, "%s\n", err);
    assert_int_equal(st, RS_OK);
    return svc;
}

static rs_room_config room_config(const scene *s, rs_services *svc, uint32_t players)
{
    rs_room_config c = rs_room_config_default();
    c.track = s->base.track;
    c.track_json = s->base.json;
    c.track_json_len = s->base.json_len;
    c.car = s->base.car;
    c.laps = 1;
    c.max_players = 4;
    c.start_players = players;
    c.countdown_ticks = 120;
    c.results_ticks = 60;
    c.hooks = rs_services_hooks(svc);
    c.auth = rs_services_auth;
    c.auth_ctx = svc;
    c.defer_laps = true;
    return c;
}

static uint8_t phase(harness *h)
{
    rs_room_stats st;
    rs_room_get_stats(harness_room(h), &st);
    return st.phase;
}

/* Steps (1 ms each) until client i holds a message of this type. */
static bool wait_msg(harness *h, uint32_t i, uint8_t type, rs_msg *out)
{
    for (int k = 0; k < 2000; k++) {
        if (harness_client_take(h, i, type, out))
            return true;
        harness_step(h, 1000);
    }
    return false;
}

/* Keeps only the newest message of a type. */
static bool newest_msg(harness *h, uint32_t i, uint8_t type, rs_msg *out)
{
    bool any = false;
    while (harness_client_take(h, i, type, out))
        any = true;
    return any;
}

static bool run_until_phase(harness *h, uint8_t ph, uint32_t race, int64_t limit_us)
{
    int64_t end = harness_now(h) + limit_us;
    while (harness_now(h) < end) {
        harness_step(h, 1000);
        rs_room_stats st;
        rs_room_get_stats(harness_room(h), &st);
        if (st.phase == ph && st.race_number >= race)
            return true;
    }
    return false;
}

static rs_msg request(uint8_t type)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = type;
    return m;
}

static rs_msg admin(uint32_t id, const char *secret, uint8_t command, const char *arg)
{
    rs_msg m = request(RS_MSG_ADMIN);
    m.u.admin.request_id = id;
    snprintf(m.u.admin.secret, sizeof m.u.admin.secret, "%s", secret);
    m.u.admin.command = command;
    snprintf(m.u.admin.arg, sizeof m.u.admin.arg, "%s", arg);
    return m;
}

/* ------------------------------------------------------------- races */

static void test_services_record_every_lap_and_flag_it(void **state)
{
    scene *s = *state;
    rs_services *svc = services(s, NULL);
    rs_room_config cfg = room_config(s, svc, 3);
    harness *h = harness_create(&cfg, 0, 0, NULL, s->base.line, 20.0);
    uint32_t alice = harness_add_client(h, "alice", NULL, RS_HELLO_REGISTER);
    uint32_t bob = harness_add_client(h, "bob", NULL, 0);
    harness_add_client(h, "carol", NULL, RS_HELLO_REGISTER);

    rs_msg w;
    assert_true(wait_msg(h, alice, RS_MSG_WELCOME, &w));
    assert_true(w.u.welcome.player_id > 0);
    assert_int_equal(strlen(w.u.welcome.token), 64);
    char token[65];
    strcpy(token, w.u.welcome.token);
    int64_t alice_id = w.u.welcome.player_id;

    assert_true(run_until_phase(h, RS_PHASE_RESULTS, 1, 200 * 1000000LL));
    for (int k = 0; k < 1000; k++)
        harness_step(h, 1000); /* the last acknowledgements and LAPs */

    /* Every LAP carries its flags: recorded, and a personal best for each
     * player's first valid lap on a fresh database; one of them was the
     * track record when it was acknowledged. */
    uint32_t laps = 0, valid = 0, records = 0;
    rs_msg m;
    while (harness_client_take(h, bob, RS_MSG_LAP, &m)) {
        laps++;
        assert_true(m.u.lap.flags & RS_LAP_RECORDED);
        if (m.u.lap.valid) {
            valid++;
            assert_true(m.u.lap.flags & RS_LAP_PERSONAL_BEST);
        }
        records += (m.u.lap.flags & RS_LAP_TRACK_RECORD) != 0;
    }
    printf("[race] LAPs %u (valid %u, track records %u)\n", laps, valid, records);
    assert_true(laps >= 3);
    if (valid)
        assert_true(records >= 1);

    /* A leaderboard request is answered from the store. */
    rs_msg q = request(RS_MSG_LEADERBOARD_REQUEST);
    q.u.leaderboard_request.request_id = 77;
    q.u.leaderboard_request.count = 10;
    harness_client_send(h, bob, &q);
    assert_true(wait_msg(h, bob, RS_MSG_LEADERBOARD_REPLY, &m));
    assert_int_equal(m.u.leaderboard_reply.request_id, 77);
    assert_int_equal(m.u.leaderboard_reply.result, RS_RESULT_OK);
    assert_int_equal(m.u.leaderboard_reply.total, valid);
    assert_int_equal(m.u.leaderboard_reply.count, valid);
    if (valid) {
        assert_int_equal(m.u.leaderboard_reply.rows[0].rank, 1);
        assert_true(m.u.leaderboard_reply.rows[0].time_us > 0);
    }

    /* What a request costs the room's thread: the hook called directly (the
     * reply goes to a peer that does not exist and is dropped). */
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
    rs_board_key key = {rs_track_hash(s->base.track), rs_car_params_hash(s->base.car), RS_PHYSICS_VERSION,
                        RS_TUNE_KEY_ANY};
    rs_lb_row rows[32];
    uint32_t count = 0;
    assert_int_equal(rs_leaderboard_recent(lb, &key, 32, rows, &count, err, sizeof err), RS_OK);
    assert_int_equal(count, laps);
    int64_t id = 0;
    assert_int_equal(rs_leaderboard_find_player(lb, "~bob", &id, NULL, err, sizeof err), RS_OK);
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

    /* The token from registration authenticates next time; a wrong one does not. */
    harness_client_drop(h, alice);
    harness_client_identity(h, alice, "alice", "00000000000000000000000000000000"
                                               "00000000000000000000000000000000", 0);
    harness_client_rejoin(h, alice);
    assert_true(wait_msg(h, alice, RS_MSG_REFUSE, &m));
    assert_int_equal(m.u.refuse.reason, RS_REASON_AUTH);
    harness_client_drop(h, alice);
    harness_client_identity(h, alice, "alice", NULL, 0);
    harness_client_rejoin(h, alice);
    assert_true(wait_msg(h, alice, RS_MSG_REFUSE, &m)); /* a registered name needs its token */
    assert_int_equal(m.u.refuse.reason, RS_REASON_AUTH);
    harness_client_drop(h, alice);
    harness_client_identity(h, alice, "ALICE", NULL, RS_HELLO_REGISTER);
    harness_client_rejoin(h, alice);
    assert_true(wait_msg(h, alice, RS_MSG_REFUSE, &m));
    assert_int_equal(m.u.refuse.reason, RS_REASON_NAME_TAKEN);
    harness_client_drop(h, alice);
    harness_client_identity(h, alice, "alice", token, 0);
    harness_client_rejoin(h, alice);
    assert_true(newest_msg(h, alice, RS_MSG_WELCOME, &m) || wait_msg(h, alice, RS_MSG_WELCOME, &m));
    assert_int_equal(m.u.welcome.player_id, alice_id);
    assert_int_equal(m.u.welcome.token[0], '\0');

    harness_destroy(h);
    rs_services_destroy(svc);
}

/* ------------------------------------------------------ tunes, admin */

static const char *good_tune = "{\"gearbox\":{\"final_drive\":3.7},\"brakes\":{\"bias_front\":0.6}}";

static void test_services_save_and_select_tunes(void **state)
{
    scene *s = *state;
    rs_services *svc = services(s, NULL);
    rs_room_config cfg = room_config(s, svc, 2);
    harness *h = harness_create(&cfg, 0, 0, NULL, s->base.line, 20.0);
    uint32_t alice = harness_add_client(h, "alice", NULL, RS_HELLO_REGISTER);
    uint32_t bob = harness_add_client(h, "bob", NULL, 0);
    rs_msg m;
    assert_true(wait_msg(h, alice, RS_MSG_WELCOME, &m));

    rs_msg q = request(RS_MSG_TUNE_SAVE);
    q.u.tune_save.request_id = 1;
    strcpy(q.u.tune_save.name, "fast");
    strcpy(q.u.tune_save.json, good_tune);
    harness_client_send(h, alice, &q);
    assert_true(wait_msg(h, alice, RS_MSG_TUNE_REPLY, &m));
    assert_int_equal(m.u.tune_reply.result, RS_RESULT_OK);
    assert_int_equal(m.u.tune_reply.op, RS_TUNE_OP_SAVE);
    uint64_t tune_hash = m.u.tune_reply.tune_hash;
    assert_true(tune_hash != 0);

    /* A bad tune is refused whole, naming every bad field. */
    q.u.tune_save.request_id = 2;
    strcpy(q.u.tune_save.name, "wild");
    strcpy(q.u.tune_save.json, "{\"gearbox\":{\"final_drive\":9.1},\"brakes\":{\"bias_front\":0.9}}");
    harness_client_send(h, alice, &q);
    assert_true(wait_msg(h, alice, RS_MSG_TUNE_REPLY, &m));
    assert_int_equal(m.u.tune_reply.request_id, 2);
    assert_int_equal(m.u.tune_reply.result, RS_RESULT_INVALID);
    printf("[tune] refused: %s\n", m.u.tune_reply.text);
    assert_non_null(strstr(m.u.tune_reply.text, "gearbox.final_drive"));
    assert_non_null(strstr(m.u.tune_reply.text, "brakes.bias_front"));

    /* Guests keep no tunes. */
    q.u.tune_save.request_id = 3;
    strcpy(q.u.tune_save.json, good_tune);
    harness_client_send(h, bob, &q);
    assert_true(wait_msg(h, bob, RS_MSG_TUNE_REPLY, &m));
    assert_int_equal(m.u.tune_reply.result, RS_RESULT_DENIED);

    rs_msg l = request(RS_MSG_TUNE_LIST);
    l.u.tune_list.request_id = 4;
    harness_client_send(h, alice, &l);
    assert_true(wait_msg(h, alice, RS_MSG_TUNE_REPLY, &m));
    assert_int_equal(m.u.tune_reply.result, RS_RESULT_OK);
    assert_string_equal(m.u.tune_reply.text, "fast\n");

    rs_msg ld = request(RS_MSG_TUNE_LOAD);
    ld.u.tune_load.request_id = 5;
    strcpy(ld.u.tune_load.name, "fast");
    harness_client_send(h, alice, &ld);
    assert_true(wait_msg(h, alice, RS_MSG_TUNE_REPLY, &m));
    assert_int_equal(m.u.tune_reply.result, RS_RESULT_OK);
    assert_int_equal(m.u.tune_reply.tune_hash, tune_hash);
    assert_string_equal(m.u.tune_reply.text, good_tune);
    strcpy(ld.u.tune_load.name, "nope");
    harness_client_send(h, alice, &ld);
    assert_true(wait_msg(h, alice, RS_MSG_TUNE_REPLY, &m));
    assert_int_equal(m.u.tune_reply.result, RS_RESULT_NOT_FOUND);

    rs_msg sel = request(RS_MSG_SELECT_TUNE);
    sel.u.select_tune.request_id = 6;
    strcpy(sel.u.select_tune.name, "fast");
    harness_client_send(h, alice, &sel);
    assert_true(wait_msg(h, alice, RS_MSG_TUNE_REPLY, &m));
    assert_int_equal(m.u.tune_reply.op, RS_TUNE_OP_SELECT);
    assert_int_equal(m.u.tune_reply.result, RS_RESULT_OK);
    assert_int_equal(m.u.tune_reply.tune_hash, tune_hash);

    /* The selection takes effect at the next race: end this one (admin). */
    assert_true(run_until_phase(h, RS_PHASE_RACE, 1, 20 * 1000000LL));
    uint8_t car1 = harness_client_car(h, alice);
    rs_msg a = admin(9, "hunter2-is-the-admin-secret", RS_ADMIN_END_RACE, "");
    harness_client_send(h, bob, &a);
    assert_true(wait_msg(h, bob, RS_MSG_ADMIN_REPLY, &m));
    assert_int_equal(m.u.admin_reply.result, RS_RESULT_OK);
    assert_true(run_until_phase(h, RS_PHASE_COUNTDOWN, 2, 20 * 1000000LL));
    for (int k = 0; k < 300; k++)
        harness_step(h, 1000);
    uint8_t car = harness_client_car(h, alice);
    assert_true(car >= 1);
    (void)car1;
    rs_car_params *tuned = NULL;
    uint64_t th = 0;
    char err[512];
    assert_int_equal(rs_tune_apply(s->base.car, good_tune, strlen(good_tune), "fast", &tuned, &th, err,
                                   sizeof err), RS_OK);
    assert_int_equal(th, tune_hash);
    /* The clients rebuilt the tuned car from its PARAMS block and checked its
     * hash against WELCOME (the harness aborts otherwise). */
    assert_true(newest_msg(h, bob, RS_MSG_WELCOME, &m));
    assert_int_equal(m.u.welcome.car_hashes[car - 1], rs_car_params_hash(tuned));
    bool seen = false;
    while (harness_client_take(h, bob, RS_MSG_CAR_INFO, &m)) {
        if (m.u.car_info.car == car && m.u.car_info.params_hash == rs_car_params_hash(tuned)) {
            assert_int_equal(m.u.car_info.tune_hash, tune_hash);
            assert_int_equal(m.u.car_info.base_hash, rs_car_params_hash(s->base.car));
            seen = true;
        }
    }
    assert_true(seen);
    rs_car_params_destroy(tuned);
    harness_client_stats cs;
    harness_client_stats_get(h, bob, &cs);
    assert_int_equal(cs.desyncs, 0);
    harness_destroy(h);
    rs_services_destroy(svc);
}

static void test_services_obey_the_admin_secret_only(void **state)
{
    scene *s = *state;
    char bans[300];
    snprintf(bans, sizeof bans, "%s.bans", s->db);
    remove(bans);
    rs_services *svc = services(s, bans);
    rs_room_config cfg = room_config(s, svc, 3);
    harness *h = harness_create(&cfg, 0, 0, NULL, s->base.line, 20.0);
    uint32_t alice = harness_add_client(h, "alice", NULL, 0);
    uint32_t bob = harness_add_client(h, "bob", NULL, 0);
    uint32_t eve = harness_add_client(h, "eve", NULL, 0);
    assert_true(run_until_phase(h, RS_PHASE_RACE, 1, 20 * 1000000LL));
    rs_msg m;

    /* Wrong secrets (a prefix, a longer one, an empty-ish one) change nothing. */
    const char *wrong[] = {"hunter2", "hunter2-is-the-admin-secret!", "x"};
    for (uint32_t k = 0; k < 3; k++) {
        rs_msg a = admin(10 + k, wrong[k], RS_ADMIN_END_RACE, "");
        harness_client_send(h, eve, &a);
        assert_true(wait_msg(h, eve, RS_MSG_ADMIN_REPLY, &m));
        assert_int_equal(m.u.admin_reply.request_id, 10 + k);
        assert_int_equal(m.u.admin_reply.result, RS_RESULT_DENIED);
    }
    rs_msg k1 = admin(20, "nothunter", RS_ADMIN_KICK, "bob");
    harness_client_send(h, eve, &k1);
    assert_true(wait_msg(h, eve, RS_MSG_ADMIN_REPLY, &m));
    assert_int_equal(m.u.admin_reply.result, RS_RESULT_DENIED);
    assert_int_equal(phase(h), RS_PHASE_RACE);
    rs_room_stats rst;
    rs_room_get_stats(harness_room(h), &rst);
    assert_int_equal(rst.players, 3);
    rs_services_stats st;
    rs_services_get_stats(svc, &st);
    assert_int_equal(st.admin_denied, 4);

    /* The right secret: kick, then ban (refused on return), then end the race. */
    rs_msg k2 = admin(21, "hunter2-is-the-admin-secret", RS_ADMIN_KICK, "bob");
    harness_client_send(h, alice, &k2);
    assert_true(wait_msg(h, alice, RS_MSG_ADMIN_REPLY, &m));
    assert_int_equal(m.u.admin_reply.result, RS_RESULT_OK);
    assert_true(wait_msg(h, bob, RS_MSG_BYE, &m));
    assert_int_equal(m.u.bye.reason, RS_REASON_KICKED);
    rs_room_get_stats(harness_room(h), &rst);
    assert_int_equal(rst.players, 2);

    rs_msg b = admin(22, "hunter2-is-the-admin-secret", RS_ADMIN_BAN, "eve");
    harness_client_send(h, alice, &b);
    assert_true(wait_msg(h, alice, RS_MSG_ADMIN_REPLY, &m));
    assert_int_equal(m.u.admin_reply.result, RS_RESULT_OK);
    assert_true(wait_msg(h, eve, RS_MSG_BYE, &m));
    assert_int_equal(m.u.bye.reason, RS_REASON_BANNED);
    harness_client_drop(h, eve);
    harness_client_identity(h, eve, "EVE", NULL, 0);
    harness_client_rejoin(h, eve);
    assert_true(wait_msg(h, eve, RS_MSG_REFUSE, &m));
    assert_int_equal(m.u.refuse.reason, RS_REASON_BANNED);
    /* The kicked player may come back (into a new seat, no car this race). */
    harness_client_drop(h, bob);
    harness_client_rejoin(h, bob);
    assert_true(wait_msg(h, bob, RS_MSG_WELCOME, &m));
    assert_int_equal(m.u.welcome.car, 0);

    rs_msg t = admin(23, "hunter2-is-the-admin-secret", RS_ADMIN_CHANGE_TRACK, "nowhere");
    harness_client_send(h, alice, &t);
    assert_true(wait_msg(h, alice, RS_MSG_ADMIN_REPLY, &m));
    assert_int_equal(m.u.admin_reply.result, RS_RESULT_NOT_FOUND);
    assert_non_null(strstr(m.u.admin_reply.text, "Oval"));
    t = admin(24, "hunter2-is-the-admin-secret", RS_ADMIN_CHANGE_TRACK, "oval");
    harness_client_send(h, alice, &t);
    assert_true(wait_msg(h, alice, RS_MSG_ADMIN_REPLY, &m));
    assert_int_equal(m.u.admin_reply.result, RS_RESULT_OK);

    rs_msg e = admin(25, "hunter2-is-the-admin-secret", RS_ADMIN_END_RACE, "");
    harness_client_send(h, alice, &e);
    assert_true(wait_msg(h, alice, RS_MSG_ADMIN_REPLY, &m));
    assert_int_equal(m.u.admin_reply.result, RS_RESULT_OK);
    assert_int_equal(phase(h), RS_PHASE_RESULTS);
    assert_true(wait_msg(h, alice, RS_MSG_RESULTS, &m));
    harness_client_send(h, alice, &e);
    assert_true(wait_msg(h, alice, RS_MSG_ADMIN_REPLY, &m));
    assert_int_equal(m.u.admin_reply.result, RS_RESULT_INVALID); /* nothing running */

    harness_destroy(h);
    assert_int_equal(rs_services_shutdown(svc, 5000), 0);
    rs_services_destroy(svc);

    /* The ban was kept on disk: new services refuse the name. */
    svc = services(s, bans);
    assert_true(rs_services_is_banned(svc, "Eve"));
    int64_t id = 0;
    char text[200] = "";
    assert_false(rs_services_auth(svc, "eve", "", &id, text, sizeof text));
    assert_int_equal(id, -(int64_t)RS_REASON_BANNED);
    assert_true(rs_services_auth(svc, "mallory", "", &id, text, sizeof text));
    assert_int_equal(id, 0);
    rs_services_destroy(svc);
    remove(bans);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_services_record_every_lap_and_flag_it, db_setup,
                                        db_teardown),
        cmocka_unit_test_setup_teardown(test_services_save_and_select_tunes, db_setup,
                                        db_teardown),
        cmocka_unit_test_setup_teardown(test_services_obey_the_admin_secret_only, db_setup,
                                        db_teardown),
    };
    return cmocka_run_group_tests(tests, scene_setup, scene_teardown);
}
