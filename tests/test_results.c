/*
 * Results of a real weekend, end to end: a room with the services behind
 * its hooks (tests/support/room_harness.c, AI clients over the in-memory
 * link) runs a qualifying and a race, its cars in two classes (a registered
 * player's entry drives the second class's car with a race number). Then:
 *  - one results file per session is in results_dir; every one validates
 *    against docs/results.schema.json (tests/results/check_results.py, with
 *    python3-jsonschema) and says what the RESULTS the clients got said;
 *  - the races rows carry their session, the results rows the room's
 *    classification;
 *  - the SDK's standings request is answered for the room's championship
 *    (WEEKEND names it) with the points those results give, overall and per
 *    class (by class positions), and NOT_FOUND for an unknown one;
 *  - a session cut short by a shutdown is stored and written as stopped;
 *  - race control's and the administrators' penalties reach the file, the
 *    database (race_penalties) and racectl results, removals included.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "racesim/client.h"
#include "racesim/identity.h"
#include "racesim/protocol.h"
#include "racesim/room.h"
#include "racesim/services.h"
#include "room_harness.h"
#include "run_command.h"
#include "test_data.h"
#include "test_sql.h"

#define SECOND 1000000LL

typedef struct scene {
    test_scene base;
    test_tmpdb db;
    char dir[160]; /* results_dir */
    rs_car_params *formula; /* the second class's car */
} scene;

static int setup(void **state)
{
    scene *s = calloc(1, sizeof *s);
    if (!s || !test_scene_load("oval", "c5", false, &s->base) || !test_tmpdb_make(&s->db) ||
        !test_car_load("formula", &s->formula))
        return -1;
    snprintf(s->dir, sizeof s->dir, "%s/results", s->db.dir);
    if (mkdir(s->dir, 0700) != 0)
        return -1;
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    scene *s = *state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", s->dir);
    test_tmpdb_remove(&s->db);
    test_scene_free(&s->base);
    rs_car_params_destroy(s->formula);
    free(s);
    return 0;
}

static rs_services *g_svc;

/* One step of the virtual clock; the database thread (real time) answers
 * before the clock goes on, up to 50 ms a step. */
static void step(harness *h, int64_t us)
{
    harness_step(h, us);
    rs_services_poll(g_svc);
    rs_services_stats st;
    rs_services_get_stats(g_svc, &st);
    for (int k = 0; (st.jobs_pending || st.laps_pending) && k < 500; k++) {
        struct timespec t = {0, 100000};
        nanosleep(&t, NULL);
        rs_services_poll(g_svc);
        rs_services_get_stats(g_svc, &st);
    }
}

/* A session's RESULTS as client 0 got it, with its drivers' names (read
 * while the session's world still names them). */
typedef struct seen {
    rs_msg_results r;
    char names[RS_PROTO_MAX_CARS][RS_PROTO_NAME_MAX + 1];
} seen;

static void wait_results(harness *h, uint32_t race_number, seen *out, int64_t deadline)
{
    rs_client_event ev;
    for (;;) {
        while (harness_client_take(h, 0, RS_CLIENT_EV_RESULTS, &ev)) {
            if (ev.u.results.race_number != race_number)
                continue;
            out->r = ev.u.results;
            for (uint32_t i = 0; i < out->r.count; i++) {
                const char *name = "";
                assert_true(rs_room_car_driver(harness_room(h), out->r.rows[i].car, &name, NULL,
                                               NULL));
                snprintf(out->names[i], sizeof out->names[i], "%s", name);
            }
            return;
        }
        assert_true(harness_now(h) < deadline);
        step(h, 1000);
    }
}

/* The row holding the session's fastest lap (smallest best lap), or -1. */
static int fastest_row(const rs_msg_results *r)
{
    int f = -1;
    for (uint32_t i = 0; i < r->count; i++)
        if (r->rows[i].best_lap_us > 0 &&
            (f < 0 || r->rows[i].best_lap_us < r->rows[f].best_lap_us))
            f = (int)i;
    return f;
}

/* The room's classes: alice's entry drives the P car with number 7, the
 * others the first car offered, in GT. */
static const char *class_of(const char *driver)
{
    return strcmp(driver, "alice") == 0 ? "P" : "GT";
}

/* The line check_results.py prints for a file holding sn. */
static void expected_line(const seen *sn, const char *status, char *out, size_t cap)
{
    const rs_msg_results *r = &sn->r;
    static const char *const types[] = {"practice", "qualifying", "warmup", "race"};
    static const char *const statuses[] = {"classified", "not_classified", "disqualified"};
    size_t n = (size_t)snprintf(out, cap, "%s %u %u %s|", types[r->session_type],
                                (unsigned)r->session_index, (unsigned)r->race_number, status);
    int f = fastest_row(r);
    for (uint32_t i = 0; i < r->count && n < cap; i++) {
        const rs_proto_result_row *w = &r->rows[i];
        bool alice = strcmp(sn->names[i], "alice") == 0;
        n += (size_t)snprintf(out + n, cap - n, "%u,%u,%s,%u,%d,%s,%u,%lld,%lld,%d,%u,%u;",
                              (unsigned)w->car, (unsigned)w->position, class_of(sn->names[i]),
                              (unsigned)w->class_position, alice ? 7 : -1,
                              statuses[w->status], (unsigned)w->laps, (long long)w->finish_us,
                              (long long)w->best_lap_us, (int)i == f, (unsigned)w->laps_led,
                              (unsigned)w->penalty_ms);
    }
}

/* Runs the checker over the results folder: its exit status, its output in out. */
static int check_files(const scene *s, char *out, size_t cap)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s/tests/results/check_results.py' '%s' "
             "'%s/docs/results.schema.json' 2>&1", RS_SOURCE_DIR, s->dir, RS_SOURCE_DIR);
    return run_command(cmd, out, cap);
}

/* The row of the fastest lap among the rows of class cls (NULL: all), or -1. */
static int fastest_in(const seen *sn, const char *cls)
{
    int f = -1;
    for (uint32_t i = 0; i < sn->r.count; i++) {
        const rs_proto_result_row *w = &sn->r.rows[i];
        if ((!cls || strcmp(class_of(sn->names[i]), cls) == 0) && w->best_lap_us > 0 &&
            (f < 0 || w->best_lap_us < sn->r.rows[f].best_lap_us))
            f = (int)i;
    }
    return f;
}

/* The points a driver got from the two sessions under the championship's
 * rules, overall (cls NULL, positions) or in class cls (class positions):
 * 25-18-15 for the classified race positions, 1 for pole, 1 for the race's
 * fastest lap (not when disqualified). */
static uint32_t points_of(const char *name, const seen *quali, const seen *race,
                          const char *cls)
{
    static const uint32_t table[] = {25, 18, 15, 12, 10, 8, 6, 4, 2, 1};
    uint32_t p = 0;
    for (uint32_t i = 0; i < quali->r.count; i++) {
        const rs_proto_result_row *w = &quali->r.rows[i];
        if (strcmp(quali->names[i], name) == 0 && w->status == RS_CLASSIFIED &&
            (cls ? w->class_position : w->position) == 1)
            p += 1;
    }
    int f = fastest_in(race, cls);
    for (uint32_t i = 0; i < race->r.count; i++) {
        if (strcmp(race->names[i], name) != 0)
            continue;
        const rs_proto_result_row *w = &race->r.rows[i];
        uint32_t pos = cls ? w->class_position : w->position;
        if (w->status == RS_CLASSIFIED && pos <= 10)
            p += table[pos - 1];
        if ((int)i == f && w->status != RS_DISQUALIFIED)
            p += 1;
    }
    return p;
}

/* Asks client 0 for the standings of championship/class, and waits for them. */
static rs_msg_standings_reply standings(harness *h, const char *championship,
                                        const char *cls)
{
    uint32_t id = 0;
    assert_int_equal(rs_client_standings_request(harness_client(h, 0), championship, cls, 0,
                                                 10, &id),
                     RS_CLIENT_OK);
    rs_client_event ev;
    for (int k = 0; k < 3000; k++) {
        if (harness_client_take(h, 0, RS_CLIENT_EV_STANDINGS, &ev)) {
            assert_int_equal(ev.u.standings.request_id, id);
            return ev.u.standings;
        }
        step(h, 1000);
    }
    fail_msg("no STANDINGS for '%s' / '%s'", championship, cls);
    return ev.u.standings;
}

/* Every row of st has the points the results give (cls NULL: overall). */
static void check_points(const rs_msg_standings_reply *st, const seen *quali, const seen *race,
                         const char *cls)
{
    assert_int_equal(st->result, RS_RESULT_OK);
    for (uint32_t i = 0; i < st->count; i++) {
        const rs_proto_standing_row *w = &st->rows[i];
        uint32_t want = points_of(w->name, quali, race, cls);
        if (w->points != want)
            fail_msg("%s (%s): %u points, the results give %u", w->name, cls ? cls : "overall",
                     w->points, want);
        assert_int_equal(w->events, 1);
        assert_string_equal(w->class_name, class_of(w->name));
        if (i > 0)
            assert_true(st->rows[i - 1].points >= w->points);
    }
}

static void test_a_weekend_writes_results_files_and_scores(void **state)
{
    scene *s = *state;
    if (access("/usr/bin/python3", X_OK) != 0 ||
        system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") != 0)
        skip(); /* scripts/deps.sh installs python3-jsonschema */
    static const char *const rooms[] = {"default"};
    rs_championship_def cup = {.name = "Club Cup", .rooms = rooms, .room_count = 1,
                               .pole_points = 1, .fastest_lap_points = 1};
    /* alice is a registered player (the entry list holds her seat and car). */
    char err[256] = "", token[RS_TOKEN_HEX_LEN + 1];
    rs_store *store = NULL;
    int64_t alice_id = 0;
    assert_int_equal(rs_store_open(s->db.path, RS_STORE_CREATE, &store, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_register(store, "alice", 1, &alice_id, token, err,
                                              sizeof err),
                     RS_OK);
    assert_int_equal(rs_store_player_confirm(store, alice_id, err, sizeof err), RS_OK);
    rs_store_close(store);
    rs_services_def d = rs_services_default();
    d.db_path = s->db.path;
    d.results_dir = s->dir;
    d.server_name = "test server";
    d.championships = &cup;
    d.championship_count = 1;
    rs_services *svc = NULL;
    assert_int_equal(rs_services_create(&d, &svc, err, sizeof err), RS_OK);
    g_svc = svc;

    const rs_proto_session_def sessions[] = {
        {.type = RS_SESSION_QUALIFYING, .time_limit_s = 25},
        {.type = RS_SESSION_RACE, .laps = 1, .grid_source = RS_GRID_QUALIFYING},
    };
    rs_room_config c = harness_room_config(&s->base, 3);
    c.max_players = 4;
    c.countdown_ticks = 120;
    c.results_ticks = 60;
    c.sessions = sessions;
    c.session_count = 2;
    c.championship = "Club Cup";
    const rs_room_car_offer offers[] = {{.params = s->base.car, .class_index = 0},
                                        {.params = s->formula, .class_index = 1}};
    const char *const classes[] = {"GT", "P"};
    const rs_room_entry entries[] = {{.name = "alice", .car = 1, .number = 7}};
    c.cars = offers;
    c.car_count = 2;
    c.classes = classes;
    c.class_count = 2;
    c.entries = entries;
    c.entry_count = 1;
    c.hooks = rs_services_hooks(svc);
    c.defer_laps = true;
    harness *h = harness_create(&c, NULL);
    const char *names[] = {"alice", "bob", "carol"};
    for (int i = 0; i < 3; i++) {
        rs_client_config cc = harness_player(names[i], 20);
        cc.token = i == 0 ? token : NULL; /* bob and carol are guests */
        harness_add_client(h, &cc, HARNESS_AI);
    }
    int64_t deadline = harness_now(h) + 400 * SECOND;
    seen quali, race;
    wait_results(h, 1, &quali, deadline);
    wait_results(h, 2, &race, deadline);
    assert_int_equal(quali.r.session_type, RS_SESSION_QUALIFYING);
    assert_int_equal(race.r.session_type, RS_SESSION_RACE);
    assert_int_equal(race.r.count, 3);
    rs_msg_weekend wk;
    assert_true(rs_client_weekend(harness_client(h, 1), &wk));
    assert_string_equal(wk.championship, "Club Cup");

    /* Both sessions' ends committed: their rows are what the room said. */
    while (test_sql_value(s->db.path, "SELECT count(*) FROM races WHERE status = 'finished'") <
           2) {
        assert_true(harness_now(h) < deadline);
        step(h, 1000);
    }
    assert_int_equal(test_sql_value(s->db.path,
                                    "SELECT count(*) FROM races WHERE room = 'default' AND "
                                    "weekend = 1 AND ((session_type = 'qualifying' AND "
                                    "session_index = 0) OR (session_type = 'race' AND "
                                    "session_index = 1))"),
                     2);
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM race_results AS rr JOIN races AS r ON r.id = rr.race_id "
             "WHERE r.session_type = 'race' AND rr.position = 1 AND rr.laps_completed = %u "
             "AND rr.laps_led = %u AND rr.status = '%s'",
             (unsigned)race.r.rows[0].laps, (unsigned)race.r.rows[0].laps_led,
             race.r.rows[0].status == RS_CLASSIFIED ? "classified" : "not_classified");
    assert_int_equal(test_sql_value(s->db.path, sql), 1);

    /* The files: valid, and what the clients were told. */
    char out[8192], want[1024];
    int rc = check_files(s, out, sizeof out);
    if (rc != 0)
        fail_msg("check_results.py (exit %d):\n%s", rc, out);
    expected_line(&quali, "finished", want, sizeof want);
    if (!strstr(out, want))
        fail_msg("the qualifying's file says:\n%s\nthe clients were told:\n%s", out, want);
    expected_line(&race, "finished", want, sizeof want);
    if (!strstr(out, want))
        fail_msg("the race's file says:\n%s\nthe clients were told:\n%s", out, want);

    /* The standings of the room's championship ("" asks for it) through the SDK. */
    rs_msg_standings_reply st = standings(h, "", "");
    assert_string_equal(st.championship, "Club Cup");
    assert_int_equal(st.total, 3);
    assert_int_equal(st.count, 3);
    check_points(&st, &quali, &race, NULL);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < st.count; i++)
        sum += st.rows[i].points;
    assert_true(sum >= 25 + 18 + 15 + 1); /* every car finishes a lap of the oval */
    /* Per class, by class positions: GT has bob and carol, P alice alone. */
    st = standings(h, "club cup", "GT");
    assert_int_equal(st.total, 2);
    check_points(&st, &quali, &race, "GT");
    st = standings(h, "Club Cup", "P");
    assert_int_equal(st.total, 1);
    assert_string_equal(st.rows[0].name, "alice");
    check_points(&st, &quali, &race, "P");
    /* An unknown championship is not found. */
    st = standings(h, "Nope", "");
    assert_int_equal(st.result, RS_RESULT_NOT_FOUND);
    assert_string_equal(st.championship, "");

    /* The next weekend's qualifying, cut short by a shutdown: stored and
     * written as stopped, with the order at that moment. */
    for (;;) {
        rs_room_session_info si;
        rs_room_session_state(harness_room(h), &si);
        if (si.running && si.weekend == 2 && si.time_left_us >= 0 && si.time_left_us < 20 * SECOND)
            break;
        assert_true(harness_now(h) < deadline);
        step(h, 1000);
    }
    assert_int_equal(rs_services_shutdown(svc, 5000), 0);
    harness_destroy(h);
    rs_services_destroy(svc); /* the database thread writes what it holds first */
    g_svc = NULL;
    rc = check_files(s, out, sizeof out);
    if (rc != 0)
        fail_msg("check_results.py (exit %d):\n%s", rc, out);
    printf("[files] check_results.py:\n%s", out);
    assert_non_null(strstr(out, "qualifying 0 3 stopped|"));
    assert_int_equal(test_sql_value(s->db.path, "SELECT count(*) FROM races WHERE status = "
                                                "'stopped' AND session_type = 'qualifying' "
                                                "AND weekend = 2"),
                     1);
}

/* Race control's and the administrators' penalties, from the room to
 * every place the results go: a free start where "eager" is on the
 * throttle before lights out (race control: a 10 s jump start), and in the
 * race an administrator gives "patient" 20 s and a disqualification, takes
 * the disqualification back, and gives "eager" 5 s and takes them back.
 * The results file lists them per row (and validates), the database keeps
 * them with their results rows, racectl results shows them, and only the
 * time penalties in force count. */
static void test_penalties_reach_the_file_the_database_and_racectl(void **state)
{
    scene *s = *state;
    if (access("/usr/bin/python3", X_OK) != 0 ||
        system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") != 0)
        skip(); /* scripts/deps.sh installs python3-jsonschema */
    rs_services_def d = rs_services_default();
    d.db_path = s->db.path;
    d.results_dir = s->dir;
    char err[256] = "";
    rs_services *svc = NULL;
    assert_int_equal(rs_services_create(&d, &svc, err, sizeof err), RS_OK);
    g_svc = svc;
    rs_room_config c = harness_room_config(&s->base, 2);
    c.max_players = 4;
    c.countdown_ticks = 120;
    c.results_ticks = 600;
    c.laps = 5;
    c.free_start = true;
    c.race_control.jump_start.penalty_s = 10;
    c.hooks = rs_services_hooks(svc);
    c.defer_laps = true;
    harness *h = harness_create(&c, NULL);
    rs_client_config a = harness_player("eager", 20);
    harness_add_client(h, &a, HARNESS_PLAIN);
    rs_client_config b = harness_player("patient", 20);
    harness_add_client(h, &b, HARNESS_PLAIN);
    rs_input go = rs_input_default();
    go.throttle = 200;
    rs_client_set_input(harness_client(h, 0), &go);
    rs_room *room = harness_room(h);
    int64_t deadline = harness_now(h) + 200 * SECOND;
    rs_room_stats rst;
    do {
        assert_true(harness_now(h) < deadline);
        step(h, 2000);
        rs_room_get_stats(room, &rst);
    } while (rst.phase != RS_PHASE_RACE);
    for (int k = 0; k < 100; k++)
        step(h, 2000);
    uint32_t twenty = 0, dsq = 0, five = 0;
    assert_int_equal(rs_room_penalty_add(room, "patient", RS_PENALTY_TIME, 20, "blocking",
                                         &twenty),
                     RS_OK);
    assert_int_equal(rs_room_penalty_add(room, "patient", RS_PENALTY_DSQ, 0, "pit lane", &dsq),
                     RS_OK);
    assert_int_equal(rs_room_penalty_add(room, "eager", RS_PENALTY_TIME, 5, "unsafe", &five),
                     RS_OK);
    for (int k = 0; k < 100; k++)
        step(h, 2000);
    assert_int_equal(rs_room_penalty_remove(room, dsq, "it was the other car"), RS_OK);
    assert_int_equal(rs_room_penalty_remove(room, five, ""), RS_OK);
    assert_int_equal(twenty, 2); /* the jump start was the first */
    for (int k = 0; k < 100; k++)
        step(h, 2000);
    assert_true(rs_room_end_race(room));
    seen race;
    wait_results(h, 1, &race, deadline);
    while (test_sql_value(s->db.path, "SELECT count(*) FROM races WHERE status = 'finished'") <
           1) {
        assert_true(harness_now(h) < deadline);
        step(h, 1000);
    }
    int64_t race_id = test_sql_value(s->db.path, "SELECT max(id) FROM races");
    harness_destroy(h);
    rs_services_destroy(svc); /* the database thread writes what it holds first */
    g_svc = NULL;
    /* eager is car 1, patient car 2, by the order they joined. */
    assert_string_equal(race.names[race.r.rows[0].car == 1 ? 0 : 1], "eager");

    /* The file: valid, and every penalty on its row. */
    char out[8192];
    int rc = check_files(s, out, sizeof out);
    if (rc != 0)
        fail_msg("check_results.py (exit %d):\n%s", rc, out);
    static const char *const lines[] = {
        "penalty 1 car=1 id=1 time 10s jump_start by=race_control removed=0 jump start: ",
        "penalty 1 car=2 id=2 time 20s admin by=admin removed=0 blocking|-\n",
        "penalty 1 car=2 id=3 dsq 0s admin by=admin removed=1 pit lane|it was the other car\n",
        ("penalty 1 car=1 id=4 time 5s admin by=admin removed=1 unsafe|taken back by an "
         "administrator\n"), /* one line: the parentheses tell clang the cut is meant */
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (!strstr(out, lines[i]))
            fail_msg("the file's penalties:\n%s\nlack: %s", out, lines[i]);
    printf("[penalties] check_results.py:\n%s", out);
    /* check_results.py held each row's penalty_ms to its penalties; the
     * clients were told the same totals. */
    assert_non_null(strstr(out, "race 0 1 finished|"));
    for (uint32_t i = 0; i < race.r.count; i++)
        assert_int_equal(race.r.rows[i].penalty_ms, race.r.rows[i].car == 1 ? 10000 : 20000);

    /* The database: each penalty with its result row, which counts only
     * the time penalties in force. */
    char sql[1536];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM race_penalties WHERE race_id = %lld",
             (long long)race_id);
    assert_int_equal(test_sql_value(s->db.path, sql), 4);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM race_penalties AS p JOIN race_results AS rr USING (race_id, "
             "player_id) WHERE p.race_id = %lld AND ((p.penalty_id = 1 AND p.kind = 'time' AND "
             "p.offence = 'jump_start' AND p.seconds = 10 AND p.reason LIKE 'jump start: %%' "
             "AND p.tick = 120 AND p.race_time_us = 0 AND NOT p.removed AND "
             "rr.penalty_ms = 10000) OR (p.penalty_id = 2 AND p.kind = 'time' AND p.seconds = "
             "20 AND p.offence = 'admin' AND p.reason = 'blocking' AND NOT p.removed AND "
             "p.removed_reason IS NULL AND p.race_time_us > 0 AND rr.penalty_ms = 20000) OR "
             "(p.penalty_id = 3 AND p.kind = 'dsq' AND p.removed AND p.removed_reason = "
             "'it was the other car' AND p.removed_tick > p.tick AND rr.status <> "
             "'disqualified') OR (p.penalty_id = 4 AND p.kind = 'time' AND p.seconds = 5 AND "
             "p.removed AND rr.penalty_ms = 10000))",
             (long long)race_id);
    assert_int_equal(test_sql_value(s->db.path, sql), 4);

    /* racectl results: below the classification, and in its JSON. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' --db '%s' results %lld 2>&1", RS_RACECTL_PATH, s->db.path,
             (long long)race_id);
    assert_int_equal(run_command(cmd, out, sizeof out), 0);
    static const char *const shown[] = {"PENALTIES", "jump_start   race_control",
                                        "0:00.000  jump start: ", "blocking\n",
                                        "removed by admin at ", ": it was the other car\n",
                                        ": taken back by an administrator\n"};
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
        if (!strstr(out, shown[i]))
            fail_msg("racectl results says:\n%s\nlacking: %s", out, shown[i]);
    printf("[penalties] racectl results:\n%s", out);
    snprintf(cmd, sizeof cmd, "'%s' --db '%s' --json results %lld 2>&1", RS_RACECTL_PATH,
             s->db.path, (long long)race_id);
    assert_int_equal(run_command(cmd, out, sizeof out), 0);
    if (!strstr(out, "\"penalties\": [{\"id\": 2, \"kind\": \"time\", \"seconds\": 20, "
                     "\"offence\": \"admin\", \"by\": \"admin\", \"reason\": \"blocking\"") ||
        !strstr(out, "\"removed\": true, \"removal\": {\"by\": \"admin\", \"reason\": "
                     "\"it was the other car\""))
        fail_msg("racectl --json results says:\n%s", out);
}

/* A results file that cannot be written is reported, and costs nothing
 * else: the session is in the database all the same. */
static void test_an_unwritable_results_dir_is_reported(void **state)
{
    scene *s = *state;
    char missing[200];
    snprintf(missing, sizeof missing, "%s/not-there", s->dir);
    rs_services_def d = rs_services_default();
    d.db_path = s->db.path;
    d.results_dir = missing;
    char err[256] = "";
    rs_services *svc = NULL;
    assert_int_equal(rs_services_create(&d, &svc, err, sizeof err), RS_OK);
    g_svc = svc;
    const rs_proto_session_def sessions[] = {{.type = RS_SESSION_QUALIFYING, .time_limit_s = 15}};
    rs_room_config c = harness_room_config(&s->base, 2);
    c.max_players = 4;
    c.countdown_ticks = 120;
    c.results_ticks = 60;
    c.sessions = sessions;
    c.session_count = 1;
    c.hooks = rs_services_hooks(svc);
    c.defer_laps = true;
    harness *h = harness_create(&c, NULL);
    for (int i = 0; i < 2; i++) {
        rs_client_config cc = harness_player(i ? "bob" : "carol", 20);
        harness_add_client(h, &cc, HARNESS_AI);
    }
    int64_t deadline = harness_now(h) + 200 * SECOND;
    seen q;
    wait_results(h, 1, &q, deadline);
    while (test_sql_value(s->db.path, "SELECT count(*) FROM races WHERE status = 'finished'") <
           1) {
        assert_true(harness_now(h) < deadline);
        step(h, 1000);
    }
    char last[600] = "";
    for (int k = 0; k < 2000 && !strstr(last, "results file"); k++) {
        step(h, 1000);
        rs_services_last_error(svc, last, sizeof last);
    }
    if (!strstr(last, "writing a results file") || !strstr(last, "not-there") ||
        !strstr(last, "No such file or directory"))
        fail_msg("the last error says: %s", last);
    assert_int_equal(test_sql_value(s->db.path, "SELECT count(*) FROM race_results"), 2);
    harness_destroy(h);
    rs_services_destroy(svc);
    g_svc = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_a_weekend_writes_results_files_and_scores, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_penalties_reach_the_file_the_database_and_racectl,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_unwritable_results_dir_is_reported, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
