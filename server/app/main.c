/*
 * raceserver: the racesim server program. Parses the configuration
 * (config.h), then either runs the server until SIGINT/SIGTERM (server.h)
 * or, with --demo, a local race of bots (demo.h).
 */
#define _POSIX_C_SOURCE 200809L /* sigaction */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "console.h"
#include "demo.h"
#include "log.h"
#include "server.h"
#include "server_key.h"

#include "racesim/base/data_dir.h"

static volatile sig_atomic_t g_stop; /* set by the signal handler, read by the loop */

static void on_signal(int sig)
{
    g_stop = sig;
}

/* --print-public-key: what players pin (creating the key on first use, so
 * an operator can publish it before the first start). */
static int print_public_key(const rs_server_config *cfg)
{
    rs_secure_identity id;
    bool created = false;
    char err[1024], hex[65];
    if (rs_server_key_load(cfg->key_file, &id, &created, err, sizeof err) != RS_OK) {
        fprintf(stderr, "raceserver: %s\n", err);
        return 1;
    }
    rs_secure_key_to_hex(id.public_key, hex);
    rs_secure_wipe(&id, sizeof id);
    if (created)
        fprintf(stderr, "raceserver: created %s\n", cfg->key_file);
    printf("%s\n", hex);
    return 0;
}

/* A room's configuration in a line: its track, then its weekend and
 * cars when it has them, or its single race's laps and car. */
static void describe_room(const rs_cfg_room *r, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "track %s", r->track);
    if (r->session_count == 0)
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, ", %u laps", (unsigned)r->laps);
    for (uint32_t k = 0; k < r->session_count && n < cap; k++) {
        const rs_proto_session_def *s = &r->sessions[k];
        const char *sep = k ? " + " : ", weekend: ";
        const char *type = rs_proto_session_type_name(s->type);
        if (s->laps)
            n += (size_t)snprintf(out + n, cap - n, "%s%s %u %s", sep, type, (unsigned)s->laps,
                                  s->laps == 1 ? "lap" : "laps");
        else
            n += (size_t)snprintf(out + n, cap - n, "%s%s %u s", sep, type,
                                  (unsigned)s->time_limit_s);
    }
    if (r->car_count == 0 && n < cap)
        n += (size_t)snprintf(out + n, cap - n, ", car %s", r->car);
    for (uint32_t k = 0; k < r->car_count && n < cap; k++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s%s%s%s", k ? ", " : ", cars: ",
                              r->cars[k].name, r->cars[k].class_name[0] ? " (" : "",
                              r->cars[k].class_name, r->cars[k].class_name[0] ? ")" : "");
    if (n < cap)
        snprintf(out + n, cap - n, ", %u players, %u spectators%s", (unsigned)r->max_players,
                 (unsigned)r->spectators, r->password[0] ? ", password" : "");
}

int main(int argc, char **argv)
{
    static rs_server_config cfg; /* large: keep it off the stack */
    char data_dir[RS_CFG_PATH_MAX - 64];
    char err[1024];
    /* Where bare track and car names ("oval", "c5") are looked up;
     * RS_DATA_DIR is the source tree's data/ (the build defines it). */
    rs_data_dir_find(RS_DATA_DIR, data_dir, sizeof data_dir);
    rs_args_result ar = rs_config_from_args(&cfg, data_dir, argc, argv, err, sizeof err);
    if (ar == RS_ARGS_HELP)
        return 0;
    if (ar != RS_ARGS_OK) {
        fprintf(stderr, "raceserver: %s\n", err);
        return 2;
    }
    rs_log_set_level(cfg.log_level);
    /* The web page: the installed one, or the build tree's (RS_WEB_DIR). */
    if (!cfg.web_root[0])
        rs_web_dir_find(RS_WEB_DIR, cfg.web_root, sizeof cfg.web_root);
    rs_log_set_format(cfg.log_format);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (cfg.print_public_key)
        return print_public_key(&cfg);
    if (cfg.demo)
        return rs_demo_run(&cfg, &g_stop);

    rs_server *srv = NULL;
    if (rs_server_create(&cfg, &srv, err, sizeof err) != RS_OK) {
        rs_logf(RS_LOG_ERROR, "%s", err);
        return 1;
    }
    for (uint32_t i = 0; i < cfg.room_count; i++) {
        char what[1024];
        describe_room(&cfg.rooms[i], what, sizeof what);
        rs_logf(RS_LOG_INFO, "room '%s': %s", cfg.rooms[i].name, what);
    }
    rs_logf(RS_LOG_INFO, "database: %s", cfg.no_db ? "none (--no-db)" : cfg.db);
    rs_logf(RS_LOG_INFO, "admin commands: %s", cfg.no_db ? "none (they need the database)"
                                                          : "for players racectl made admins");
    rs_logf(RS_LOG_INFO, "listening on %s:%u", cfg.bind[0] ? cfg.bind : "0.0.0.0",
           (unsigned)rs_server_port(srv));
    if (rs_server_http_port(srv))
        rs_logf(RS_LOG_INFO, "http: the API, /metrics and the page at http://%s:%u/%s",
                cfg.http_bind[0] ? cfg.http_bind : "0.0.0.0", (unsigned)rs_server_http_port(srv),
                cfg.web_root[0] ? "" : " (no page: no web root)");
    /* The console: commands typed on standard input, read between steps. */
    rs_console console;
    rs_console_init(&console, 0);
    while (!g_stop) {
        rs_server_step(srv, 100000); /* wake at least every 100 ms to look at g_stop */
        rs_console_poll(&console, srv);
    }
    rs_logf(RS_LOG_INFO, "%s: shutting down", g_stop == SIGINT ? "SIGINT" : "SIGTERM");
    rs_server_shutdown(srv);
    rs_server_destroy(srv);
    rs_logf(RS_LOG_INFO, "stopped");
    return 0;
}
