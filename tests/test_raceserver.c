/*
 * raceserver as an operator meets it: the configuration (defaults, JSON
 * file, command-line overrides, and messages that name the bad field and
 * its legal range), and the program itself run as a child process: it
 * starts with no configuration, routes a HELLO to the room it names (an
 * unknown room is refused with reason NO_ROOM), and on SIGTERM says BYE
 * (reason SHUTDOWN) to its clients and exits 0 within a second.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_command.h"
#include <enet/enet.h>

#include "raw_client.h"

#include "config.h"
#include "racesim/physics.h"
#include "racesim/protocol.h"
#include "racesim/base/clock.h"
#include "test_data.h"

/* The command line args (NULL-terminated, without the program name). */
static rs_args_result parse_args(rs_server_config *c, char *err, size_t cap, char *const *args)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "raceserver";
    for (; *args && argc < 31; args++)
        argv[argc++] = *args;
    argv[argc] = NULL;
    err[0] = '\0';
    return rs_config_from_args(c, test_data_dir(), argc, argv, err, cap);
}

/* parse_args with the args listed, NULL last. */
static rs_args_result parse(rs_server_config *c, char *err, size_t cap, ...)
{
    char *args[32];
    int n = 0;
    va_list ap;
    va_start(ap, cap);
    for (char *a; (a = va_arg(ap, char *)) != NULL && n < 31;)
        args[n++] = a;
    va_end(ap);
    args[n] = NULL;
    return parse_args(c, err, cap, args);
}

static rs_server_config cfg; /* large: not on the stack */

static void test_no_configuration_gives_the_documented_defaults(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(parse(&cfg, err, sizeof err, NULL), RS_ARGS_OK);
    assert_int_equal(cfg.port, 27960);
    assert_int_equal(cfg.tick_hz, 60);
    assert_string_equal(cfg.db, "racesim.db");
    assert_false(cfg.no_db);
    assert_int_equal(cfg.stats_interval_s, 10);
    assert_int_equal(cfg.overload_late_ms, 50);
    assert_int_equal(cfg.socket_buffer_kib, 4096);
    assert_int_equal(cfg.room_count, 1);
    assert_string_equal(cfg.rooms[0].name, "default");
    assert_non_null(strstr(cfg.rooms[0].track, "tracks/technical.json"));
    assert_non_null(strstr(cfg.rooms[0].car, "cars/c5.json"));
}

static void test_bad_port_names_the_option_and_its_range(void **state)
{
    (void)state;
    /* A refused command line and the parts its message must have. */
    static const struct {
        char *args[3];
        const char *says[2];
    } cases[] = {
        {{"--port", "70000"}, {"--port", "0..65535"}},
        {{"--port", "12ab"}, {"--port"}},
        {{"--laps", "0"}, {"--laps", "1..1000"}},
        {{"--max-players", "33"}, {"--max-players"}},
        {{"--log-level", "loud"}, {"--log-level"}},
        {{"--frobnicate"}, {"--frobnicate"}},
        {{"--port"}, {"--port"}},
    };
    char err[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(parse_args(&cfg, err, sizeof err, cases[i].args), RS_ARGS_ERROR);
        for (int k = 0; k < 2 && cases[i].says[k]; k++)
            assert_non_null(strstr(err, cases[i].says[k]));
    }
}

static bool apply(const char *json, char *err, size_t cap)
{
    rs_config_default(&cfg, test_data_dir());
    err[0] = '\0';
    return rs_config_apply_json(&cfg, json, strlen(json), "server.json", err, cap) &&
           rs_config_check(&cfg, err, cap);
}

static void test_json_errors_name_the_file_the_field_and_the_range(void **state)
{
    (void)state;
    /* A refused file, and its whole message (exact) or a part of it. */
    static const struct {
        const char *json;
        const char *says;
        bool exact;
    } cases[] = {
        {"{\"prot\": 1}", "server.json: prot: unknown key", true},
        {"{\"port\": \"x\"}", "server.json: port: must be an integer in 0..65535", false},
        {"{\"port\": 65536}", "port: 65536 outside 0..65535", false},
        {"{\"tick_hz\": 60.5}", "tick_hz", false},
        {"{\"rooms\": [{\"name\": \"a\"}, {\"name\": \"b\", \"laps\": 0}]}",
         "server.json: rooms[1].laps: 0 outside 1..1000", true},
        {"{\"rooms\": [{\"name\": \"a\", \"lapz\": 3}]}", "rooms[0].lapz: unknown key", false},
        {"{\"rooms\": [{\"name\": \"a\"}, {\"name\": \"a\"}]}", "rooms[1].name", false},
        {"{\"max_players\": 4, \"start_players\": 6}", "start_players", false},
        {"{\"rooms\": [{\"name\": \"a\", \"load_wait_s\": 601}]}",
         "server.json: rooms[0].load_wait_s: 601 outside 0..600", true},
        {"{\"log_level\": \"verbose\"}", "log_level", false},
        {"{\"log_format\": \"xml\"}", "server.json: log_format: must be \"text\" or \"json\"",
         true},
        {"{\"log_format\": 1}", "log_format", false},
        {"{\"port\": 1, \"port\": 2}", "server.json: port: duplicate key", true},
        {"{\"rooms\": [{\"name\": \"a\"}, {\"name\": \"b\", \"laps\": 2, \"laps\": 3}]}",
         "server.json: rooms[1].laps: duplicate key", true},
        {"{\"max_per_address\": 600}", "max_per_address: 600 outside 1..512", false},
        {"{\"socket_buffer_kib\": 32}", "socket_buffer_kib: 32 outside 64..262144", false},
        {"{\"guest_policy\": \"deny\", \"no_db\": true}", "guest_policy", false},
        {"{\"results_dir\": \"/tmp\", \"no_db\": true}",
         "results_dir: results files need the database (drop --no-db)", true},
        {"[1, 2]", "", false},
        {"{\"port\": ", "not valid JSON", false},
        {"{\"admin_secret\": \"x\"}",
         "server.json: admin_secret: no longer supported: make registered players administrators "
         "with racectl admin grant NAME",
         true},
        {"{\"ban_file\": \"bans.txt\"}", "racectl ban add", false},
        {"{\"championships\": [{\"name\": \"Cup\", \"rooms\": [\"nowhere\"]}]}",
         "championships[0].rooms[0]: no room is named 'nowhere'", true},
        {"{\"championships\": [{\"name\": \"Cup\"}]}",
         "server.json: championships[0]: needs \"rooms\"", true},
        {"{\"championships\": [{\"name\": \"Cup\", \"rooms\": [\"default\"], "
         "\"sessions\": [\"sprint\"]}]}",
         "server.json: championships[0].sessions: [0] must be one of practice, qualifying, "
         "warmup, race",
         true},
        {"{\"championships\": [{\"name\": \"Cup\", \"rooms\": [\"default\"], "
         "\"points\": [25, 1001]}]}",
         "server.json: championships[0].points[1]: 1001 outside 0..1000", true},
        {"{\"championships\": [{\"name\": \"Cup\", \"rooms\": [\"default\"]}, "
         "{\"name\": \"cup\", \"rooms\": [\"default\"]}]}",
         "server.json: championships[1]: 'cup' is already the name of championships[0]", true},
        {"{\"championships\": [{\"name\": \" Cup\", \"rooms\": [\"default\"]}]}",
         "championships[0].name: must follow the player-name rules", false},
        {"{\"championships\": [{\"name\": \"Cup\", \"rooms\": [\"default\"], "
         "\"pole\": 1}]}",
         "server.json: championships[0].pole: unknown key", true},
    };
    char err[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_false(apply(cases[i].json, err, sizeof err));
        if (cases[i].exact)
            assert_string_equal(err, cases[i].says);
        else
            assert_non_null(strstr(err, cases[i].says));
    }
}

static void test_log_format_comes_from_the_file_and_the_command_line(void **state)
{
    (void)state;
    char err[512];
    assert_true(apply("{\"log_format\": \"json\"}", err, sizeof err));
    assert_int_equal(cfg.log_format, RS_LOG_JSON);
    assert_int_equal(parse(&cfg, err, sizeof err, NULL), RS_ARGS_OK);
    assert_int_equal(cfg.log_format, RS_LOG_TEXT); /* the default */
    assert_int_equal(parse(&cfg, err, sizeof err, "--log-format", "json", NULL), RS_ARGS_OK);
    assert_int_equal(cfg.log_format, RS_LOG_JSON);
    assert_int_equal(parse(&cfg, err, sizeof err, "--log-format", "JSON", NULL), RS_ARGS_ERROR);
    assert_string_equal(err, "--log-format: 'JSON' must be text or json");
    assert_int_equal(parse(&cfg, err, sizeof err, "--log-format", NULL), RS_ARGS_ERROR);
    assert_non_null(strstr(err, "--log-format: needs a value"));
    assert_int_equal(parse(&cfg, err, sizeof err, "--socket-buffer-kib", "8192", NULL),
                     RS_ARGS_OK);
    assert_int_equal(cfg.socket_buffer_kib, 8192);
    assert_int_equal(parse(&cfg, err, sizeof err, "--socket-buffer-kib", "300000", NULL),
                     RS_ARGS_ERROR);
    assert_non_null(strstr(err, "--socket-buffer-kib: 300000 outside 64..262144"));
}

static void test_room_settings_inherit_and_are_overridden(void **state)
{
    (void)state;
    char err[512];
    assert_true(apply("{\"rooms\": [{\"name\": \"fast\", \"track\": \"oval\"},"
                      " {\"name\": \"long\", \"laps\": 10}], \"laps\": 5, \"port\": 0}",
                      err, sizeof err));
    assert_int_equal(cfg.room_count, 2);
    assert_string_equal(cfg.rooms[0].name, "fast");
    assert_int_equal(cfg.rooms[0].laps, 5); /* top-level default, even though it came later */
    char oval[RS_CFG_PATH_MAX];
    snprintf(oval, sizeof oval, "%s/tracks/oval.json", test_data_dir());
    assert_string_equal(cfg.rooms[0].track, oval); /* a bare name is a data/tracks file */
    assert_int_equal(cfg.rooms[1].laps, 10);
    assert_int_equal(cfg.port, 0);

    /* --rooms N: rooms named room1..roomN, the command line's settings in each. */
    assert_int_equal(parse(&cfg, err, sizeof err, "--rooms", "3", "--laps", "7", "--password",
                           "pw", NULL),
                     RS_ARGS_OK);
    assert_int_equal(cfg.room_count, 3);
    assert_string_equal(cfg.rooms[0].name, "room1");
    assert_string_equal(cfg.rooms[2].name, "room3");
    assert_int_equal(cfg.rooms[2].laps, 7);
    assert_string_equal(cfg.rooms[1].password, "pw");
}

static void test_results_dir_and_championships(void **state)
{
    (void)state;
    char err[512];
    assert_true(apply("{\"results_dir\": \"/srv/results\", \"server_name\": \"Club\","
                      " \"rooms\": [{\"name\": \"sprint\"}, {\"name\": \"endurance\"}],"
                      " \"championships\": [{\"name\": \"Club Cup\", \"rooms\": "
                      "[\"sprint\", \"endurance\"], \"sessions\": [\"qualifying\", \"race\"],"
                      " \"points\": [10, 6, 4], \"pole_points\": 1, \"fastest_lap_points\": 2},"
                      " {\"name\": \"Sprint\", \"rooms\": [\"sprint\"]}]}",
                      err, sizeof err));
    assert_string_equal(cfg.results_dir, "/srv/results");
    assert_string_equal(cfg.server_name, "Club");
    assert_int_equal(cfg.championship_count, 2);
    const rs_cfg_championship *c = &cfg.championships[0];
    assert_string_equal(c->name, "Club Cup");
    assert_int_equal(c->room_count, 2);
    assert_string_equal(c->rooms[1], "endurance");
    assert_int_equal(c->session_types, (1u << 2) | (1u << 0)); /* qualifying, race */
    assert_int_equal(c->points_count, 3);
    assert_int_equal(c->points[1], 6);
    assert_int_equal(c->pole_points, 1);
    assert_int_equal(c->fastest_lap_points, 2);
    assert_int_equal(cfg.championships[1].points_count, 0); /* the default table */
    /* A room counts for the first championship listing it. */
    assert_ptr_equal(rs_cfg_room_championship(&cfg, "sprint"), &cfg.championships[0]);
    assert_ptr_equal(rs_cfg_room_championship(&cfg, "endurance"), &cfg.championships[0]);
    assert_null(rs_cfg_room_championship(&cfg, "other"));
    /* The command line's --results-dir over the file's. */
    assert_int_equal(parse(&cfg, err, sizeof err, "--results-dir", "/tmp/r", NULL), RS_ARGS_OK);
    assert_string_equal(cfg.results_dir, "/tmp/r");
    assert_string_equal(cfg.server_name, "raceserver"); /* the default */
}

static void test_config_file_and_command_line_combine(void **state)
{
    (void)state;
    char path[] = "/tmp/test_raceserver_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *json = "{\"port\": 1234, \"laps\": 4, \"stats_interval_s\": 0,"
                       " \"rooms\": [{\"name\": \"a\"}, {\"name\": \"b\", \"laps\": 9}]}";
    assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    char err[512];
    assert_int_equal(parse(&cfg, err, sizeof err, "--config", path, "--port", "4321", NULL),
                     RS_ARGS_OK);
    assert_int_equal(cfg.port, 4321); /* the command line wins */
    assert_int_equal(cfg.room_count, 2);
    assert_int_equal(cfg.rooms[0].laps, 4);
    assert_int_equal(cfg.rooms[1].laps, 9);
    assert_int_equal(parse(&cfg, err, sizeof err, "--config", path, "--laps", "2", NULL),
                     RS_ARGS_OK);
    assert_int_equal(cfg.rooms[1].laps, 2); /* every room */
    assert_int_equal(cfg.rooms[1].load_wait_s, 15);
    assert_int_equal(cfg.rooms[1].countdown_s, 5);
    unlink(path);
    assert_int_equal(parse(&cfg, err, sizeof err, "--config", path, NULL), RS_ARGS_ERROR);
    assert_non_null(strstr(err, path));
}

static void test_demo_is_one_loopback_room_for_the_bots(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(parse(&cfg, err, sizeof err, "--demo", "--bots", "5", NULL), RS_ARGS_OK);
    assert_true(cfg.demo);
    assert_int_equal(cfg.port, 0);
    assert_string_equal(cfg.bind, "127.0.0.1");
    assert_int_equal(cfg.room_count, 1);
    /* A weekend: a qualifying of two laps and a race of one from its grid,
     * in two classes. */
    assert_int_equal(cfg.rooms[0].laps, 1);
    assert_int_equal(cfg.rooms[0].session_count, 2);
    assert_int_equal(cfg.rooms[0].sessions[0].type, RS_SESSION_QUALIFYING);
    assert_int_equal(cfg.rooms[0].sessions[0].laps, 2);
    assert_int_equal(cfg.rooms[0].sessions[1].type, RS_SESSION_RACE);
    assert_int_equal(cfg.rooms[0].sessions[1].laps, 1);
    assert_int_equal(cfg.rooms[0].sessions[1].grid_source, RS_GRID_QUALIFYING);
    assert_int_equal(cfg.rooms[0].car_count, 2);
    assert_string_equal(cfg.rooms[0].cars[1].class_name, "Formula");
    assert_int_equal(cfg.rooms[0].max_players, 5);
    assert_int_equal(parse(&cfg, err, sizeof err, "--demo", "--bots", "0", NULL), RS_ARGS_ERROR);
    assert_non_null(strstr(err, "--bots"));
}

/* ------------------------------------------------------ the program itself */

typedef struct child {
    pid_t pid;
    int err_fd;          /* the child's stderr, non-blocking */
    char log[65536];
    size_t log_len;
    uint16_t port;
} child;

static void child_read(child *c)
{
    for (;;) {
        ssize_t n = read(c->err_fd, c->log + c->log_len, sizeof c->log - 1 - c->log_len);
        if (n <= 0)
            break;
        c->log_len += (size_t)n;
        c->log[c->log_len] = '\0';
    }
}

/* Starts raceserver with args (and a key file of this test process, so
 * no test writes one into the working directory) and waits for
 * "listening on ...:PORT". */
static bool child_start(child *c, const char *const *args)
{
    memset(c, 0, sizeof *c);
    static char key_file[64];
    snprintf(key_file, sizeof key_file, "/tmp/racesim_test_raceserver_%ld.key", (long)getpid());
    int p[2];
    if (pipe(p) != 0)
        return false;
    c->pid = fork();
    if (c->pid == 0) {
        dup2(p[1], 2);
        close(p[0]);
        char *argv[32];
        int n = 0;
        argv[n++] = (char *)RS_RACESERVER_PATH;
        for (; args[n - 1] && n < 29; n++)
            argv[n] = strdup(args[n - 1]); /* the child execs or exits: never freed */
        bool own_key = false;
        for (int k = 1; k < n; k++)
            own_key |= strcmp(argv[k], "--key-file") == 0;
        if (!own_key) {
            argv[n++] = (char *)"--key-file";
            argv[n++] = key_file;
        }
        argv[n] = NULL;
        execv(RS_RACESERVER_PATH, argv);
        _exit(127);
    }
    close(p[1]);
    c->err_fd = p[0];
    fcntl(c->err_fd, F_SETFL, O_NONBLOCK);
    int64_t until = rs_clock_us() + 10000000;
    while (rs_clock_us() < until) {
        child_read(c);
        const char *l = strstr(c->log, "listening on ");
        const char *nl = l ? strchr(l, '\n') : NULL;
        if (nl) {
            const char *colon = nl;
            while (colon > l && *colon != ':')
                colon--;
            c->port = (uint16_t)atoi(colon + 1);
            return c->port != 0;
        }
        int status;
        if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
            child_read(c); /* what it said before it went */
            c->pid = 0;
            return false;
        }
        rs_sleep_us((int64_t)(10) * 1000);
    }
    return false;
}

/* Sends sig and waits up to timeout_ms; returns the exit status or -1. */
static int child_stop(child *c, int sig, int timeout_ms, int64_t *took_us)
{
    int64_t t0 = rs_clock_us();
    kill(c->pid, sig);
    while (rs_clock_us() - t0 < (int64_t)timeout_ms * 1000) {
        int status;
        if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
            *took_us = rs_clock_us() - t0;
            child_read(c);
            close(c->err_fd);
            c->pid = 0;
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        rs_sleep_us((int64_t)(2) * 1000);
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
    close(c->err_fd);
    c->pid = 0;
    return -1;
}

/* A raw client on a real socket (tests/support/raw_client.h): connected,
 * keys agreed. */
static bool raw_connect(raw_client *r, uint16_t port)
{
    return raw_client_open(r, port, NULL, NULL) && raw_client_wait_secure(r, 3000);
}

static const char *const base_args[] = {"--no-db", "--port", "0", "--bind", "127.0.0.1",
                                        "--stats-interval", "0", NULL};

static void test_server_starts_without_config_and_stops_on_sigterm(void **state)
{
    (void)state;
    child c;
    assert_true(child_start(&c, base_args));
    int64_t took = 0;
    assert_int_equal(child_stop(&c, SIGTERM, 1000, &took), 0);
    assert_true(took < 1000000);
    assert_non_null(strstr(c.log, "SIGTERM: shutting down"));
    /* The log format of docs/RACESERVER.md: "YYYY-MM-DDTHH:MM:SSZ LEVEL message". */
    assert_true(c.log_len > 22 && c.log[4] == '-' && c.log[10] == 'T' && c.log[19] == 'Z');
    assert_non_null(strstr(c.log, "Z INFO listening on 127.0.0.1:"));
}

static void test_server_refuses_an_unknown_room_and_byes_on_shutdown(void **state)
{
    (void)state;
    const char *args[] = {"--no-db", "--port", "0", "--bind", "127.0.0.1",
                          "--stats-interval", "0", "--rooms", "2", NULL};
    child c;
    assert_true(child_start(&c, args));
    static rs_msg m;

    raw_client lost;
    assert_true(raw_connect(&lost, c.port));
    raw_client_hello(&lost, "tester", "nowhere");
    assert_true(raw_client_wait(&lost, RS_MSG_REFUSE, &m, 3000));
    assert_int_equal(m.u.refuse.reason, RS_REASON_NO_ROOM);
    assert_non_null(strstr(m.u.refuse.text, "nowhere"));
    raw_client_close(&lost);

    raw_client ok;
    assert_true(raw_connect(&ok, c.port));
    /* Junk before HELLO is dropped, not fatal. */
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_SNAPSHOT_REQUEST;
    raw_client_send(&ok, &m);
    raw_client_hello(&ok, "tester", "room2");
    assert_true(raw_client_wait(&ok, RS_MSG_WELCOME, &m, 3000));

    int64_t took = 0;
    kill(c.pid, SIGTERM);
    assert_true(raw_client_wait(&ok, RS_MSG_BYE, &m, 2000));
    assert_int_equal(m.u.bye.reason, RS_REASON_SHUTDOWN);
    assert_int_equal(child_stop(&c, SIGTERM, 2000, &took), 0);
    raw_client_close(&ok);
}

static void test_junk_before_hello_closes_the_connection(void **state)
{
    (void)state;
    child c;
    assert_true(child_start(&c, base_args));
    raw_client r;
    assert_true(raw_connect(&r, c.port));
    static rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_SNAPSHOT_REQUEST;
    for (int i = 0; i < 17; i++) /* the limit is 16 */
        raw_client_send(&r, &m);
    int64_t until = rs_clock_us() + 3000000;
    while (!r.gone && rs_clock_us() < until)
        raw_client_poll(&r, 10, &m);
    assert_true(r.gone);
    int64_t took = 0;
    assert_int_equal(child_stop(&c, SIGTERM, 1000, &took), 0);
    assert_non_null(strstr(c.log, "messages before HELLO"));
    raw_client_close(&r);
}

/* Runs `raceserver --print-public-key --key-file FILE`: its exit status,
 * stdout in out. */
static int print_key(const char *file, char *out, size_t cap)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --print-public-key --key-file %s 2>/dev/null",
             RS_RACESERVER_PATH, file);
    return run_command(cmd, out, cap);
}

static void test_the_server_key_is_created_private_and_kept(void **state)
{
    (void)state;
    char file[64], first[128], again[128];
    snprintf(file, sizeof file, "/tmp/racesim_test_key_%ld", (long)getpid());
    unlink(file);
    assert_int_equal(print_key(file, first, sizeof first), 0);
    assert_int_equal(strlen(first), 65); /* 64 hex digits and a newline */
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(print_key(file, again, sizeof again), 0);
    assert_string_equal(first, again);

    /* The running server signs with that key and says so. */
    const char *args[] = {"--no-db", "--port", "0", "--bind", "127.0.0.1", "--stats-interval",
                          "0", "--key-file", file, NULL};
    child c;
    assert_true(child_start(&c, args));
    first[64] = '\0';
    assert_non_null(strstr(c.log, first));
    raw_client r;
    assert_true(raw_client_open(&r, c.port, NULL, NULL) && raw_client_wait_secure(&r, 3000));
    char hex[65];
    rs_secure_key_to_hex(r.server_key, hex);
    assert_string_equal(hex, first);
    raw_client_close(&r);
    int64_t took = 0;
    assert_int_equal(child_stop(&c, SIGTERM, 2000, &took), 0);

    /* A key others may read is refused, and so is one that is not a key. */
    chmod(file, 0644);
    assert_int_equal(print_key(file, again, sizeof again), 1);
    const char *bad_args[] = {"--no-db", "--port", "0", "--key-file", file, NULL};
    assert_false(child_start(&c, bad_args));
    assert_non_null(strstr(c.log, "chmod 600"));
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("not a key\n", f);
    fclose(f);
    chmod(file, 0600);
    assert_false(child_start(&c, bad_args));
    assert_non_null(strstr(c.log, "not a server key"));
    unlink(file);
}

/* The value of "key": in the last stats line, or -1. */
static double stats_field(const char *log, const char *key)
{
    const char *line = NULL;
    for (const char *p = log; (p = strstr(p, " INFO stats {")) != NULL; p++)
        line = p;
    if (!line)
        return -1;
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *end = strchr(line, '\n');
    const char *f = strstr(line, pat);
    if (!f || (end && f > end))
        return -1;
    return atof(f + strlen(pat));
}

static void test_stats_line_carries_the_contract_fields(void **state)
{
    (void)state;
    const char *args[] = {"--no-db", "--port", "0", "--bind", "127.0.0.1",
                          "--stats-interval", "1", NULL};
    child c;
    assert_true(child_start(&c, args));
    raw_client r;
    assert_true(raw_connect(&r, c.port));
    raw_client_hello(&r, "tester", "");
    static rs_msg m;
    assert_true(raw_client_wait(&r, RS_MSG_WELCOME, &m, 3000));
    /* Service the client while the server writes a stats line. */
    int64_t until = rs_clock_us() + 2500000;
    while (rs_clock_us() < until) {
        raw_client_poll(&r, 10, &m);
        child_read(&c);
        if (stats_field(c.log, "players") >= 1)
            break;
    }
    static const char *const keys[] = {
        "interval_s", "players", "spectators", "rooms", "tick_p50_ms", "tick_p99_ms",
        "tick_max_ms", "tick_late_p99_ms", "bytes_in", "bytes_out", "packets_in", "packets_out", "dropped",
        "drop_cookie", "drop_auth", "handshakes"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        assert_true(stats_field(c.log, keys[i]) >= 0);
    assert_true(stats_field(c.log, "players") == 1);
    assert_true(stats_field(c.log, "rooms") == 1);
    assert_true(stats_field(c.log, "interval_s") > 0.5);
    int64_t took = 0;
    assert_int_equal(child_stop(&c, SIGTERM, 3000, &took), 0);
    raw_client_close(&r);
}

static void test_bad_configuration_exits_2_with_the_message(void **state)
{
    (void)state;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s --no-db --laps 5000 2>&1", RS_RACESERVER_PATH);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[1024] = "";
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 2);
    assert_non_null(strstr(out, "--laps: 5000 outside 1..1000"));
}

static void test_server_with_a_database_starts_and_stops(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_raceserver_db_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char db[512];
    snprintf(db, sizeof db, "%s/race.db", dir);
    const char *args[] = {"--db", db, "--port", "0", "--bind", "127.0.0.1",
                          "--stats-interval", "0", NULL};
    child c, second;
    assert_true(child_start(&c, args));
    /* One server per database: a second one is turned away, naming the first. */
    assert_false(child_start(&second, args));
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ld", (long)c.pid);
    assert_non_null(strstr(second.log, "in use by another raceserver"));
    assert_non_null(strstr(second.log, pid));
    int64_t took = 0;
    assert_int_equal(child_stop(&c, SIGTERM, 1000, &took), 0);
    struct stat st;
    assert_int_equal(stat(db, &st), 0);
    /* The lock went with the process: the database is free again. */
    assert_true(child_start(&c, args));
    assert_int_equal(child_stop(&c, SIGTERM, 1000, &took), 0);
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    if (enet_initialize() != 0)
        return 1;
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_configuration_gives_the_documented_defaults),
        cmocka_unit_test(test_bad_port_names_the_option_and_its_range),
        cmocka_unit_test(test_json_errors_name_the_file_the_field_and_the_range),
        cmocka_unit_test(test_log_format_comes_from_the_file_and_the_command_line),
        cmocka_unit_test(test_room_settings_inherit_and_are_overridden),
        cmocka_unit_test(test_results_dir_and_championships),
        cmocka_unit_test(test_config_file_and_command_line_combine),
        cmocka_unit_test(test_demo_is_one_loopback_room_for_the_bots),
        cmocka_unit_test(test_server_starts_without_config_and_stops_on_sigterm),
        cmocka_unit_test(test_server_refuses_an_unknown_room_and_byes_on_shutdown),
        cmocka_unit_test(test_junk_before_hello_closes_the_connection),
        cmocka_unit_test(test_stats_line_carries_the_contract_fields),
        cmocka_unit_test(test_the_server_key_is_created_private_and_kept),
        cmocka_unit_test(test_bad_configuration_exits_2_with_the_message),
        cmocka_unit_test(test_server_with_a_database_starts_and_stops),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    enet_deinitialize();
    return rc;
}
