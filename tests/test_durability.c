/*
 * Nothing acknowledged is lost (docs/PERSISTENCE.md, "Race status" and
 * "Durability").
 *
 * The store: migration 0004 gives races recorded before it a status
 * (finished when they have a finish time, else interrupted);
 * rs_store_races_interrupt marks exactly the races still running and lists
 * them; a race's end keeps the status it was given, through the writer too.
 *
 * The raceserver program, run as an operator runs it (a child process with
 * its SQLite file) with AI bots on the SDK racing a small designed track
 * over loopback:
 *  - SIGKILL mid-race, once every car's first lap has been announced to the
 *    clients as recorded (or 5 s after the first such announcement); a
 *    restart on the same database marks that race interrupted and says so
 *    in a WARN line, and every lap any client was told was recorded is in
 *    the laps table;
 *  - SIGTERM at the same point: the server stores the classification so far
 *    (one result per car, nobody finished, at least the laps the clients
 *    heard), the race is stopped, and it exits 0.
 * racectl races shows each status. The races run in real time, about 15 s
 * per case: three bots, a 1 s countdown and a lap of about 11 s. (A higher
 * tick rate would not shorten them: a tick is 1/tick_hz of race time.)
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "racesim/bot.h"
#include "racesim/client.h"
#include "racesim/store.h"
#include "racesim/store_testing.h"
#include "racesim/base/clock.h"
#include "run_command.h"
#include "server_proc.h"
#include "test_data.h"
#include "test_sql.h"

#if !defined(RS_RACECTL_PATH) || !defined(RS_RACESIM_PATH)
#error "RS_RACECTL_PATH and RS_RACESIM_PATH must name the programs"
#endif

#define N_BOTS 3u
#define MAX_HEARD 64u

/* ----------------------------------------------------------- the store */

/* A database at schema version upto with one track. */
static void make_db_at(const char *path, uint32_t upto)
{
    rs_store *s = NULL;
    char err[512];
    int64_t id = 0;
    assert_int_equal(rs_store__open_upto(path, RS_STORE_CREATE, upto, &s, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_put_track(s, 0x1234, "Test Track", "{}", &id, err, sizeof err),
                     RS_OK);
    rs_store_close(s);
}

static int64_t race_create(rs_store *s, int64_t started_at)
{
    rs_store_race race = {.track_hash = 0x1234, .laps = 3, .physics_version = 1,
                          .started_at = started_at};
    int64_t id = 0;
    char err[512];
    assert_int_equal(rs_store_race_create(s, &race, &id, err, sizeof err), RS_OK);
    return id;
}

/* The status text of race id. */
static const char *race_status(const char *path, int64_t id)
{
    static const char *const words[] = {"running", "finished", "stopped", "interrupted",
                                        "abandoned"};
    char sql[160];
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        snprintf(sql, sizeof sql, "SELECT count(*) FROM races WHERE id = %lld AND status = '%s'",
                 (long long)id, words[i]);
        if (test_sql_value(path, sql) == 1)
            return words[i];
    }
    return "(none)";
}

static void test_migration_gives_earlier_races_a_status(void **state)
{
    test_tmpdb *f = *state;
    make_db_at(f->path, 3);
    rs_store *s = NULL;
    char err[512];
    /* What a build before 0004 wrote: two races, one of them finished (the
     * store's API writes today's schema, so the rows are written as SQL). */
    test_sql_value(f->path, "INSERT INTO races (id, track_id, laps, physics_version, "
                            "started_at, finished_at) VALUES (1, 1, 3, 1, 10, 99), "
                            "(2, 1, 3, 1, 20, NULL)");
    int64_t done = 1, left = 2;

    assert_int_equal(rs_store_open(f->path, 0, &s, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_schema_version(s), rs_store_schema_latest());
    rs_store_close(s);
    assert_string_equal(race_status(f->path, done), "finished");
    assert_string_equal(race_status(f->path, left), "interrupted");
    /* A new race starts running. */
    assert_int_equal(rs_store_open(f->path, 0, &s, err, sizeof err), RS_OK);
    int64_t fresh = race_create(s, 30);
    rs_store_close(s);
    assert_string_equal(race_status(f->path, fresh), "running");
}

static void test_interrupt_marks_exactly_the_running_races(void **state)
{
    test_tmpdb *f = *state;
    make_db_at(f->path, rs_store_schema_latest());
    rs_store *s = NULL;
    char err[512];
    assert_int_equal(rs_store_open(f->path, 0, &s, err, sizeof err), RS_OK);
    int64_t finished = race_create(s, 100), stopped = race_create(s, 200),
            dead1 = race_create(s, 300), abandoned = race_create(s, 400),
            dead2 = race_create(s, 500);
    assert_int_equal(rs_store_race_finish(s, finished, 150, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_race_end(s, abandoned, RS_STORE_RACE_ABANDONED, 401, err,
                                       sizeof err),
                     RS_OK);
    /* Only a finding about a dead server may say interrupted; no race ends
     * running; an unknown race is missing. */
    assert_int_equal(rs_store_race_end(s, dead1, RS_STORE_RACE_INTERRUPTED, 1, err, sizeof err),
                     RS_ERR_ARG);
    assert_int_equal(rs_store_race_end(s, dead1, RS_STORE_RACE_RUNNING, 1, err, sizeof err),
                     RS_ERR_ARG);
    assert_int_equal(rs_store_race_end(s, 4242, RS_STORE_RACE_STOPPED, 1, err, sizeof err),
                     RS_ERR_MISSING);
    assert_non_null(strstr(err, "4242"));

    /* The writer's path: an end record with its status. */
    rs_store_writer *w = NULL;
    assert_int_equal(rs_store_writer_open(f->path, NULL, &w, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_writer_end_race(w, 7, stopped, RS_STORE_RACE_STOPPED, 250), RS_OK);
    rs_store_writer_flush(w);
    rs_store_ack ack;
    assert_int_equal(rs_store_writer_poll(w, &ack, 1), 1);
    assert_int_equal(ack.status, RS_OK);
    assert_int_equal(ack.kind, RS_RECORD_RACE_FINISH);
    rs_store_writer_close(w);

    rs_store_race_info found[1];
    size_t n = 0;
    assert_int_equal(rs_store_races_interrupt(s, found, 1, &n, err, sizeof err), RS_OK);
    assert_int_equal(n, 2); /* both counted, the oldest listed */
    assert_int_equal(found[0].id, dead1);
    assert_int_equal(found[0].started_at, 300);
    assert_int_equal(found[0].track_hash, 0x1234);
    assert_string_equal(found[0].track_name, "Test Track");
    assert_int_equal(rs_store_races_interrupt(s, NULL, 0, &n, err, sizeof err), RS_OK);
    assert_int_equal(n, 0);
    rs_store_close(s);

    assert_string_equal(race_status(f->path, finished), "finished");
    assert_string_equal(race_status(f->path, stopped), "stopped");
    assert_string_equal(race_status(f->path, dead1), "interrupted");
    assert_string_equal(race_status(f->path, dead2), "interrupted");
    assert_string_equal(race_status(f->path, abandoned), "abandoned");
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT finished_at FROM races WHERE id = %lld", (long long)stopped);
    assert_int_equal(test_sql_value(f->path, sql), 250);
    snprintf(sql, sizeof sql, "SELECT finished_at IS NULL FROM races WHERE id = %lld",
             (long long)dead1);
    assert_int_equal(test_sql_value(f->path, sql), 1);
    assert_string_equal(rs_store_race_status_name(RS_STORE_RACE_INTERRUPTED), "interrupted");
    assert_string_equal(rs_store_race_status_name((rs_store_race_status)99), "?");
}

/* ------------------------------------------------------- the programs */

/* The shared scene: a temporary directory with a small track (a lap of
 * about 11 s in the formula car), designed by racesim from a spec, and the
 * arguments of every raceserver run on it (besides server_proc's port, key
 * and database). */
typedef struct scene {
    char dir[64];
    char track[128];
    const char *server_args[20];
} scene;

static const char small_track_spec[] =
    "{\"format\": \"racesim-track-design\", \"version\": 1, \"name\": \"Durability Loop\",\n"
    " \"width_m\": 14, \"grid\": {\"slots\": 3, \"pole_side\": \"left\"},\n"
    " \"pieces\": [\n"
    "  {\"type\": \"straight\", \"length_m\": 25},\n"
    "  {\"type\": \"corner\", \"radius_m\": 18, \"angle_deg\": 180,"
    " \"entry_m\": 5, \"exit_m\": 5},\n"
    "  {\"type\": \"straight\", \"length_m\": \"auto\"},\n"
    "  {\"type\": \"corner\", \"radius_m\": 18, \"angle_deg\": 180,"
    " \"entry_m\": 5, \"exit_m\": 5},\n"
    "  {\"type\": \"straight\", \"length_m\": 25}]}\n";

static int scene_setup(void **state)
{
    scene *sc = calloc(1, sizeof *sc);
    if (!sc)
        return -1;
    *state = sc;
    snprintf(sc->dir, sizeof sc->dir, "/tmp/rs_durability_XXXXXX");
    if (!mkdtemp(sc->dir))
        return -1;
    char spec[128], cmd[512], out[4096];
    snprintf(spec, sizeof spec, "%s/loop_design.json", sc->dir);
    snprintf(sc->track, sizeof sc->track, "%s/loop.json", sc->dir);
    FILE *f = fopen(spec, "w");
    if (!f || fputs(small_track_spec, f) < 0 || fclose(f) != 0)
        return -1;
    snprintf(cmd, sizeof cmd, "'%s' track design '%s' '%s' 2>&1", RS_RACESIM_PATH, spec,
             sc->track);
    if (run_command(cmd, out, sizeof out) != 0) {
        print_message("---- racesim track design ----\n%s---- end ----\n", out);
        return -1;
    }
    unlink(spec);
    const char *const args[] = {"--track", sc->track, "--car", "formula", "--laps", "3",
                                "--max-players", "3", "--start-players", "3", "--lobby-s",
                                "30", "--countdown-s", "1", "--stats-interval", "0",
                                "--log-level", "info", NULL};
    _Static_assert(sizeof args <= sizeof sc->server_args, "scene.server_args is too small");
    memcpy(sc->server_args, args, sizeof args);
    return 0;
}

static int scene_teardown(void **state)
{
    scene *sc = *state;
    if (sc) {
        unlink(sc->track);
        rmdir(sc->dir);
        free(sc);
    }
    return 0;
}

/* ---------------------------------------------------------- the bots */

/* A lap one client heard announced as recorded. */
typedef struct heard_lap {
    uint8_t car;
    uint32_t lap;
} heard_lap;

typedef struct bot_watch {
    rs_bot *bot;
    char name[16];
    uint8_t car;                 /* its car in the race world (0 before one) */
    bool refused;
    heard_lap recorded[MAX_HEARD];
    uint32_t recorded_count;
    uint32_t own_laps;           /* LAPs of its own car, recorded or not */
} bot_watch;

static void on_event(void *ctx, rs_bot *bot, const rs_client_event *ev)
{
    bot_watch *w = ctx;
    (void)bot;
    if (ev->type == RS_CLIENT_EV_WORLD_READY) {
        w->car = ev->u.world.car;
    } else if (ev->type == RS_CLIENT_EV_REFUSED) {
        w->refused = true;
    } else if (ev->type == RS_CLIENT_EV_LAP) {
        if (ev->u.lap.car == w->car)
            w->own_laps++;
        if ((ev->u.lap.flags & RS_LAP_RECORDED) && w->recorded_count < MAX_HEARD)
            w->recorded[w->recorded_count++] = (heard_lap){ev->u.lap.car, ev->u.lap.lap};
    }
}

static void bots_start(bot_watch *w, uint16_t port)
{
    for (uint32_t i = 0; i < N_BOTS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        snprintf(w[i].name, sizeof w[i].name, "dura%u", (unsigned)i + 1);
        rs_client_config cfg = rs_client_config_default();
        cfg.name = w[i].name;
        char err[256] = "";
        if (rs_bot_create(&cfg, "127.0.0.1", port, true, rs_clock_us(), &w[i].bot, err,
                          sizeof err) != RS_CLIENT_OK)
            fail_msg("bot %u: %s", (unsigned)i, err);
        rs_bot_set_event_fn(w[i].bot, on_event, &w[i]);
    }
}

static void bots_destroy(bot_watch *w)
{
    for (uint32_t i = 0; i < N_BOTS; i++)
        rs_bot_destroy(w[i].bot);
}

static uint32_t recorded_total(const bot_watch *w)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < N_BOTS; i++)
        n += w[i].recorded_count;
    return n;
}

/* Whether some client heard the lap of car announced as recorded. */
static bool heard_recorded(const bot_watch *w, uint8_t car, uint32_t lap)
{
    for (uint32_t i = 0; i < N_BOTS; i++)
        for (uint32_t k = 0; k < w[i].recorded_count; k++)
            if (w[i].recorded[k].car == car && w[i].recorded[k].lap == lap)
                return true;
    return false;
}

/* Races the bots until every car's first lap has been announced as
 * recorded, or wait_us after the first announcement (a car that went off
 * may be late); fails when none comes within 60 s. */
static void race_until_laps_are_recorded(bot_watch *w, const server_proc *s, int64_t wait_us)
{
    int64_t deadline = rs_clock_us() + 60000000, first = 0;
    for (;;) {
        int64_t t = rs_clock_us();
        uint32_t cars_heard = 0;
        for (uint32_t i = 0; i < N_BOTS; i++) {
            rs_bot_update(w[i].bot, t);
            assert_false(w[i].refused);
            cars_heard += w[i].car && heard_recorded(w, w[i].car, 1);
        }
        if (!first && recorded_total(w) > 0)
            first = t;
        if (first && (cars_heard == N_BOTS || t - first >= wait_us))
            return;
        if (t > deadline) {
            server_dump_log(s);
            fail_msg("no lap was announced as recorded within 60 s");
        }
        rs_sleep_us(2000);
    }
}

/* The race the server stored (there is exactly one). */
static int64_t the_race(const server_proc *s)
{
    assert_int_equal(test_sql_value(s->db, "SELECT count(*) FROM races"), 1);
    return test_sql_value(s->db, "SELECT id FROM races");
}

/* Every lap any client heard announced as recorded is a row of race_id,
 * under the guest row of the bot that drove it. Returns how many. */
static uint32_t check_recorded_laps_stored(const bot_watch *w, const server_proc *s,
                                           int64_t race_id)
{
    uint32_t checked = 0;
    for (uint32_t i = 0; i < N_BOTS; i++) {
        for (uint32_t k = 0; k < w[i].recorded_count; k++) {
            const heard_lap *h = &w[i].recorded[k];
            const bot_watch *driver = NULL;
            for (uint32_t d = 0; d < N_BOTS; d++)
                if (w[d].car == h->car)
                    driver = &w[d];
            assert_non_null(driver);
            char sql[256];
            snprintf(sql, sizeof sql,
                     "SELECT count(*) FROM laps AS l JOIN players AS p ON p.id = l.player_id "
                     "WHERE p.name = '~%s' AND l.lap_number = %u AND l.race_id = %lld",
                     driver->name, (unsigned)h->lap, (long long)race_id);
            if (test_sql_value(s->db, sql) != 1)
                fail_msg("client %s heard lap %u of car %u (%s) announced as recorded, but it "
                         "is not in the database",
                         w[i].name, (unsigned)h->lap, (unsigned)h->car, driver->name);
            checked++;
        }
    }
    return checked;
}

/* racectl races, whose output must name the race's status. */
static void check_racectl_shows(const server_proc *s, const char *status)
{
    char cmd[512], out[8192];
    snprintf(cmd, sizeof cmd, "'%s' --db '%s' races 2>&1", RS_RACECTL_PATH, s->db);
    assert_int_equal(run_command(cmd, out, sizeof out), 0);
    if (!strstr(out, status)) {
        print_message("---- racectl races ----\n%s---- end ----\n", out);
        fail_msg("racectl races does not show the status %s", status);
    }
}

/* The start both cases share: raceserver on a new database races the bots
 * until they have heard every car's first lap recorded (or 5 s after the
 * first), then end_server ends it in the middle of the race (laps 2 and 3
 * are still to run); the one race it stored must have the status
 * status_after. Returns that race. */
static int64_t race_then_end_server(server_proc *s, const scene *sc, bot_watch *w,
                                    void (*end_server)(server_proc *), const char *status_after)
{
    server_start(s, true, sc->server_args);
    bots_start(w, s->port);
    race_until_laps_are_recorded(w, s, 5000000);
    end_server(s);
    bots_destroy(w);
    int64_t race_id = the_race(s);
    assert_string_equal(race_status(s->db, race_id), status_after);
    return race_id;
}

/* Removes the server's directory, which must be gone then. */
static void server_remove(server_proc *s)
{
    server_cleanup(s);
    assert_int_equal(access(s->dir, F_OK), -1);
}

static void test_sigkill_mid_race_then_restart_marks_it_interrupted(void **state)
{
    const scene *sc = *state;
    server_proc s;
    bot_watch w[N_BOTS];
    int64_t race_id = race_then_end_server(&s, sc, w, server_kill, "running");

    int64_t t_restart = rs_clock_us();
    server_restart(&s, sc->server_args);
    int64_t took = rs_clock_us() - t_restart;
    /* The restart found the race running, marked it and said so. */
    char line[128];
    snprintf(line, sizeof line, "WARN database: race %lld (track Durability Loop, started ",
             (long long)race_id);
    if (!file_contains(s.log, line) || !file_contains(s.log, "was interrupted")) {
        server_dump_log(&s);
        fail_msg("the restart did not log race %lld as interrupted", (long long)race_id);
    }
    assert_string_equal(race_status(s.db, race_id), "interrupted");
    uint32_t laps = check_recorded_laps_stored(w, &s, race_id);
    assert_true(laps >= 1);
    server_stop(&s);
    check_racectl_shows(&s, "interrupted");
    print_message("[sigkill] %u lap announcements checked in race %lld; restart in %.1f s\n",
                  (unsigned)laps, (long long)race_id, (double)took / 1e6);
    server_remove(&s);
}

static void test_sigterm_mid_race_stores_the_classification_as_stopped(void **state)
{
    const scene *sc = *state;
    server_proc s;
    bot_watch w[N_BOTS];
    int64_t race_id = race_then_end_server(&s, sc, w, server_stop, "stopped");
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT finished_at > 0 FROM races WHERE id = %lld",
             (long long)race_id);
    assert_int_equal(test_sql_value(s.db, sql), 1);
    /* One result per car, positions 1..3, nobody finished a 3-lap race. */
    snprintf(sql, sizeof sql,
             "SELECT count(DISTINCT position) FROM race_results WHERE race_id = %lld "
             "AND position BETWEEN 1 AND 3 AND finished = 0",
             (long long)race_id);
    assert_int_equal(test_sql_value(s.db, sql), N_BOTS);
    /* Each car's laps completed: at least the laps its own client heard. */
    for (uint32_t i = 0; i < N_BOTS; i++) {
        snprintf(sql, sizeof sql,
                 "SELECT rr.laps_completed FROM race_results AS rr JOIN players AS p "
                 "ON p.id = rr.player_id WHERE rr.race_id = %lld AND p.name = '~%s'",
                 (long long)race_id, w[i].name);
        assert_true(test_sql_value(s.db, sql) >= (int64_t)w[i].own_laps);
    }
    assert_true(check_recorded_laps_stored(w, &s, race_id) >= 1);
    if (!file_contains(s.log, "race stopped: its classification so far is stored") ||
        !file_contains(s.log, "database: every record written")) {
        server_dump_log(&s);
        fail_msg("the shutdown did not log the stopped race and the final flush");
    }
    check_racectl_shows(&s, "stopped");
    server_remove(&s);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
#define STORE(name) cmocka_unit_test_setup_teardown(name, test_tmpdb_setup, test_tmpdb_teardown)
    const struct CMUnitTest store_tests[] = {
        STORE(test_migration_gives_earlier_races_a_status),
        STORE(test_interrupt_marks_exactly_the_running_races),
    };
#undef STORE
    const struct CMUnitTest server_tests[] = {
        cmocka_unit_test_teardown(test_sigkill_mid_race_then_restart_marks_it_interrupted,
                                  server_kill_leftover),
        cmocka_unit_test_teardown(test_sigterm_mid_race_stores_the_classification_as_stopped,
                                  server_kill_leftover),
    };
    int rc = cmocka_run_group_tests(store_tests, NULL, NULL);
    return rc + cmocka_run_group_tests(server_tests, scene_setup, scene_teardown);
}
