/*
 * raceserver: the racesim server program. Parses the configuration
 * (config.h), then either runs the server until SIGINT/SIGTERM (server.h)
 * or, with --demo, a local race of bots (demo.h).
 */
#define _POSIX_C_SOURCE 200809L /* sigaction, readlink */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "demo.h"
#include "log.h"
#include "server.h"
#include "server_key.h"

static volatile sig_atomic_t g_stop; /* set by the signal handler, read by the loop */

static void on_signal(int sig)
{
    g_stop = sig;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The data folder: $RS_DATA_DIR, else the source tree the program was
 * built from, else <program>/../share/racesim/data for an installed copy. */
static void find_data_dir(char *out, size_t cap)
{
    const char *env = getenv("RS_DATA_DIR");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return;
    }
#ifdef RS_DATA_DIR
    if (is_dir(RS_DATA_DIR)) {
        snprintf(out, cap, "%s", RS_DATA_DIR);
        return;
    }
#endif
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        if (snprintf(out, cap, "%s/../share/racesim/data", exe) >= (int)cap)
            snprintf(out, cap, "data");
        return;
    }
    snprintf(out, cap, "data");
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

int main(int argc, char **argv)
{
    static rs_server_config cfg; /* large: keep it off the stack */
    char data_dir[RS_CFG_PATH_MAX - 64];
    char err[1024];
    find_data_dir(data_dir, sizeof data_dir);
    rs_args_result ar = rs_config_from_args(&cfg, data_dir, argc, argv, err, sizeof err);
    if (ar == RS_ARGS_HELP)
        return 0;
    if (ar != RS_ARGS_OK) {
        fprintf(stderr, "raceserver: %s\n", err);
        return 2;
    }
    rs_log_set_level(cfg.log_level);

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
    for (uint32_t i = 0; i < cfg.room_count; i++)
        rs_logf(RS_LOG_INFO, "room '%s': track %s, car %s, %u laps, %u players, %u spectators%s",
               cfg.rooms[i].name, cfg.rooms[i].track, cfg.rooms[i].car,
               (unsigned)cfg.rooms[i].laps, (unsigned)cfg.rooms[i].max_players,
               (unsigned)cfg.rooms[i].spectators, cfg.rooms[i].password[0] ? ", password" : "");
    rs_logf(RS_LOG_INFO, "database: %s", cfg.no_db ? "none (--no-db)" : cfg.db);
    rs_logf(RS_LOG_INFO, "admin commands: %s", cfg.no_db ? "none (they need the database)"
                                                          : "for players racectl made admins");
    rs_logf(RS_LOG_INFO, "listening on %s:%u", cfg.bind[0] ? cfg.bind : "0.0.0.0",
           (unsigned)rs_server_port(srv));
    rs_server_run(srv, &g_stop);
    rs_logf(RS_LOG_INFO, "%s: shutting down", g_stop == SIGINT ? "SIGINT" : "SIGTERM");
    rs_server_shutdown(srv);
    rs_server_destroy(srv);
    rs_logf(RS_LOG_INFO, "stopped");
    return 0;
}
