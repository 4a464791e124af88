/*
 * raceserver's configuration (config.h): the only file of the program that
 * includes <cjson/cJSON.h>. Every value is checked as it is read so that
 * the message can name where it came from: "server.json: rooms[1].laps: 0
 * outside 1..1000" or "--laps: 0 outside 1..1000".
 */
#include "config.h"
#include "config_json.h"
#include "racesim/net.h"
#include "racesim/base/err.h"
#include "racesim/base/file.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define MAX_SPECTATORS 1024u
#define MAX_CARS 32u
#define MAX_CLIENTS 4095u /* ENet's peer id space */

void rs_config_default(rs_server_config *c, const char *data_dir)
{
    memset(c, 0, sizeof *c);
    rs_cfg_copy(c->data_dir, sizeof c->data_dir, data_dir);
    c->port = RS_CFG_DEFAULT_PORT;
    c->tick_hz = 60;
    c->max_clients = 512;
    rs_cfg_copy(c->db, sizeof c->db, "racesim.db");
    rs_cfg_copy(c->key_file, sizeof c->key_file, "raceserver.key");
    c->max_per_address = 8;
    c->socket_buffer_kib = RS_NET_SOCKET_BUFFER_KIB;
    c->requests_per_s = 20;
    c->registrations_per_hour = 5;
    c->registrations_per_minute = 30;
    c->log_level = RS_LOG_INFO;
    c->log_format = RS_LOG_TEXT;
    c->stats_interval_s = 10;
    c->workers = RS_CFG_WORKERS_AUTO;
    c->overload_late_ms = 50;
    rs_cfg_copy(c->server_name, sizeof c->server_name, "raceserver");
    c->http_max_connections = 64;
    c->http_max_per_address = 8;
    c->http_requests_per_s = 50;
    c->guests = RS_GUESTS_ALLOW;
    rs_cfg_room *room = &c->room_defaults;
    rs_cfg_copy(room->name, sizeof room->name, "default");
    rs_cfg_fmt(room->track, sizeof room->track, "%s/tracks/technical.json", data_dir);
    rs_cfg_fmt(room->car, sizeof room->car, "%s/cars/c5.json", data_dir);
    room->laps = 3;
    room->max_players = 16;
    room->start_players = 0;
    room->spectators = 8;
    /* Shorter than the SDK's 10 s silence timeout: a lone player in the
     * lobby hears nothing until the countdown's world arrives. */
    room->lobby_s = 5;
    room->load_wait_s = 15;
    /* Long enough for the countdown's first message to reach a player on
     * a lossy route: on 10 % loss each way at 150 ms it took up to 2.8 s
     * (two lost attempts with ENet's doubling timeout), and a player who
     * hears it after lights out starts the race late. (Five seconds is
     * also the five red lights of a Grand Prix start.) */
    room->countdown_s = 5;
    room->finish_timeout_s = 60;
    room->chat = rs_room_config_default().chat;
    room->votes = rs_room_config_default().votes;
    c->room_count = 1;
    c->rooms[0] = *room;
    c->demo_bots = 8;
}

/* ------------------------------------------------------- shared settings */

/* The numeric room settings: the same key, option and range in the file
 * and on the command line. */
typedef enum room_number {
    ROOM_LAPS,
    ROOM_MAX,
    ROOM_START,
    ROOM_SPECTATORS,
    ROOM_LOBBY,
    ROOM_LOAD_WAIT,
    ROOM_COUNTDOWN,
    ROOM_FINISH_TIMEOUT,
    ROOM_NUMBER_COUNT
} room_number;

typedef struct room_number_spec {
    const char *key;    /* in the JSON file */
    const char *option; /* on the command line */
    uint32_t lo, hi;
    size_t offset;      /* of the uint32_t in rs_cfg_room */
} room_number_spec;

#define ROOM_FIELD(name) offsetof(rs_cfg_room, name)

static const room_number_spec room_numbers[ROOM_NUMBER_COUNT] = {
    [ROOM_LAPS] = {"laps", "--laps", 1, 1000, ROOM_FIELD(laps)},
    [ROOM_MAX] = {"max_players", "--max-players", 1, MAX_CARS, ROOM_FIELD(max_players)},
    [ROOM_START] = {"start_players", "--start-players", 0, MAX_CARS, ROOM_FIELD(start_players)},
    [ROOM_SPECTATORS] = {"spectators", "--spectators", 0, MAX_SPECTATORS, ROOM_FIELD(spectators)},
    [ROOM_LOBBY] = {"lobby_s", "--lobby-s", 1, 600, ROOM_FIELD(lobby_s)},
    [ROOM_LOAD_WAIT] = {"load_wait_s", "--load-wait-s", 0, 600, ROOM_FIELD(load_wait_s)},
    [ROOM_COUNTDOWN] = {"countdown_s", "--countdown-s", 1, 60, ROOM_FIELD(countdown_s)},
    [ROOM_FINISH_TIMEOUT] = {"finish_timeout_s", "--finish-timeout-s", 1, 3600,
                             ROOM_FIELD(finish_timeout_s)},
};

static uint32_t *room_number_field(rs_cfg_room *r, room_number n)
{
    return (uint32_t *)(void *)((unsigned char *)r + room_numbers[n].offset);
}

/* "allow" or "deny". False for anything else. */
static bool parse_guest_policy(const char *text, rs_guest_policy *out)
{
    if (strcmp(text, "allow") == 0)
        *out = RS_GUESTS_ALLOW;
    else if (strcmp(text, "deny") == 0)
        *out = RS_GUESTS_DENY;
    else
        return false;
    return true;
}

/* The keys below return 1 when they handled the key, 0 when it is not
 * theirs, -1 on error (the message in j->err). */

/* A room key (top level or inside "rooms"). */
static int j_room_key(const jctx *j, const rs_server_config *c, const cJSON *it,
                      const char *field, rs_cfg_room *r)
{
    const char *k = it->string;
    char path[RS_CFG_PATH_MAX];
    if (strcmp(k, "track") == 0 || strcmp(k, "car") == 0) {
        if (!j_str(j, it, field, 1, RS_CFG_PATH_MAX - 64, path, sizeof path))
            return -1;
        bool track = k[0] == 't';
        rs_cfg_data_path(track ? r->track : r->car, RS_CFG_PATH_MAX, c->data_dir,
                          track ? "tracks" : "cars", path);
        return 1;
    }
    if (strcmp(k, "password") == 0)
        return j_str(j, it, field, 0, 64, r->password, sizeof r->password) ? 1 : -1;
    if (strcmp(k, "weekend") == 0)
        return rs_cfg_json_weekend(j, it, field, r) ? 1 : -1;
    if (strcmp(k, "cars") == 0)
        return rs_cfg_json_cars(j, it, field, c->data_dir, r) ? 1 : -1;
    if (strcmp(k, "entry_list") == 0)
        return rs_cfg_json_entries(j, it, field, r) ? 1 : -1;
    if (strcmp(k, "race_control") == 0)
        return rs_cfg_json_race_control(j, it, field, r) ? 1 : -1;
    if (strcmp(k, "chat") == 0)
        return rs_cfg_json_chat(j, it, field, r) ? 1 : -1;
    if (strcmp(k, "votes") == 0)
        return rs_cfg_json_votes(j, it, field, r) ? 1 : -1;
    for (int n = 0; n < ROOM_NUMBER_COUNT; n++) {
        const room_number_spec *spec = &room_numbers[n];
        if (strcmp(k, spec->key) == 0)
            return j_u32(j, it, field, spec->lo, spec->hi, room_number_field(r, (room_number)n))
                       ? 1
                       : -1;
    }
    return 0;
}

/* A server key (top level only). */
static int j_server_key(const jctx *j, rs_server_config *c, const cJSON *it)
{
    const char *k = it->string;
    uint32_t v;
    bool ok;
    if (strcmp(k, "port") == 0) {
        ok = j_u32(j, it, k, 0, 65535, &v);
        if (ok)
            c->port = (uint16_t)v;
    } else if (strcmp(k, "bind") == 0) {
        ok = j_str(j, it, k, 0, 63, c->bind, sizeof c->bind);
    } else if (strcmp(k, "tick_hz") == 0) {
        ok = j_u32(j, it, k, 1, 1000, &c->tick_hz);
    } else if (strcmp(k, "max_clients") == 0) {
        ok = j_u32(j, it, k, 1, MAX_CLIENTS, &c->max_clients);
    } else if (strcmp(k, "db") == 0) {
        ok = j_str(j, it, k, 1, RS_CFG_PATH_MAX - 1, c->db, sizeof c->db);
    } else if (strcmp(k, "key_file") == 0) {
        ok = j_str(j, it, k, 1, RS_CFG_PATH_MAX - 1, c->key_file, sizeof c->key_file);
    } else if (strcmp(k, "max_per_address") == 0) {
        ok = j_u32(j, it, k, 1, MAX_CLIENTS, &c->max_per_address);
    } else if (strcmp(k, "socket_buffer_kib") == 0) {
        ok = j_u32(j, it, k, RS_NET_SOCKET_BUFFER_KIB_MIN, RS_NET_SOCKET_BUFFER_KIB_MAX,
                   &c->socket_buffer_kib);
    } else if (strcmp(k, "requests_per_s") == 0) {
        ok = j_u32(j, it, k, 1, 10000, &c->requests_per_s);
    } else if (strcmp(k, "registrations_per_hour") == 0) {
        ok = j_u32(j, it, k, 1, 10000, &c->registrations_per_hour);
    } else if (strcmp(k, "registrations_per_minute") == 0) {
        ok = j_u32(j, it, k, 1, 100000, &c->registrations_per_minute);
    } else if (strcmp(k, "ban_file") == 0) {
        ok = false; /* a file of names: gone, and a banned guest just changed name */
        jfail(j, k, "no longer supported: bans live in the database (racectl ban add)");
    } else if (strcmp(k, "no_db") == 0) {
        ok = j_bool(j, it, k, &c->no_db);
    } else if (strcmp(k, "admin_secret") == 0) {
        ok = false; /* a shared secret in every client: gone */
        jfail(j, k, "no longer supported: make registered players administrators with "
                    "racectl admin grant NAME");
    } else if (strcmp(k, "log_level") == 0) {
        ok = cJSON_IsString(it) && rs_log_level_parse(it->valuestring, &c->log_level);
        if (!ok)
            jfail(j, k, "must be one of error, warn, info, debug");
    } else if (strcmp(k, "log_format") == 0) {
        ok = cJSON_IsString(it) && rs_log_format_parse(it->valuestring, &c->log_format);
        if (!ok)
            jfail(j, k, "must be \"text\" or \"json\"");
    } else if (strcmp(k, "stats_interval_s") == 0) {
        ok = j_u32(j, it, k, 0, 86400, &c->stats_interval_s);
    } else if (strcmp(k, "workers") == 0) {
        ok = j_u32(j, it, k, 0, RS_CFG_MAX_WORKERS, &c->workers);
    } else if (strcmp(k, "overload_late_ms") == 0) {
        ok = j_u32(j, it, k, 0, 60000, &c->overload_late_ms);
    } else if (strcmp(k, "http") == 0) {
        ok = cJSON_IsString(it) && rs_config_parse_http(it->valuestring, c->http_bind,
                                                        sizeof c->http_bind, &c->http_port);
        c->http = ok;
        if (!ok)
            jfail(j, k, "must be \"ADDR:PORT\" (\"127.0.0.1:8080\", \"[::1]:8080\", "
                        "\":8080\" for every address)");
    } else if (strcmp(k, "http_max_connections") == 0) {
        ok = j_u32(j, it, k, 1, 1024, &c->http_max_connections);
    } else if (strcmp(k, "http_max_per_address") == 0) {
        ok = j_u32(j, it, k, 1, 1024, &c->http_max_per_address);
    } else if (strcmp(k, "http_requests_per_s") == 0) {
        ok = j_u32(j, it, k, 1, 10000, &c->http_requests_per_s);
    } else if (strcmp(k, "results_dir") == 0) {
        ok = j_str(j, it, k, 0, RS_CFG_PATH_MAX - 1, c->results_dir, sizeof c->results_dir);
    } else if (strcmp(k, "server_name") == 0) {
        ok = j_str(j, it, k, 1, 63, c->server_name, sizeof c->server_name);
    } else if (strcmp(k, "championships") == 0) {
        ok = rs_cfg_json_championships(j, it, c);
    } else if (strcmp(k, "web_root") == 0) {
        ok = j_str(j, it, k, 0, RS_CFG_PATH_MAX - 1, c->web_root, sizeof c->web_root);
    } else if (strcmp(k, "guest_policy") == 0) {
        ok = cJSON_IsString(it) && parse_guest_policy(it->valuestring, &c->guests);
        if (!ok)
            jfail(j, k, "must be \"allow\" or \"deny\"");
    } else {
        return 0;
    }
    return ok ? 1 : -1;
}

static bool j_rooms(const jctx *j, rs_server_config *c, const cJSON *arr)
{
    if (!cJSON_IsArray(arr))
        return jfail(j, "rooms", "must be an array of room objects");
    int n = cJSON_GetArraySize(arr);
    if (n < 1 || n > (int)RS_CFG_MAX_ROOMS)
        return jfail(j, "rooms", "%d rooms outside 1..%u", n, (unsigned)RS_CFG_MAX_ROOMS);
    for (int i = 0; i < n; i++) {
        const cJSON *ro = cJSON_GetArrayItem(arr, i);
        char base[32];
        snprintf(base, sizeof base, "rooms[%d]", i);
        if (!cJSON_IsObject(ro))
            return jfail(j, base, "must be an object");
        rs_cfg_room r = c->room_defaults;
        if (n > 1)
            snprintf(r.name, sizeof r.name, "room%d", i + 1);
        for (const cJSON *it = ro->child; it; it = it->next) {
            char field[96];
            snprintf(field, sizeof field, "%s.%s", base, it->string);
            if (strcmp(it->string, "name") == 0) {
                if (!j_str(j, it, field, 1, 32, r.name, sizeof r.name))
                    return false;
                continue;
            }
            int rc = j_room_key(j, c, it, field, &r);
            if (rc < 0)
                return false;
            if (rc == 0)
                return jfail(j, field, "unknown key");
        }
        c->rooms[i] = r;
    }
    c->room_count = (uint32_t)n;
    return true;
}

/* cJSON keeps every member of an object, duplicates included, and lookups
 * find the first: a file saying "port" twice would be read as one of its
 * values without a word. Refuse it, naming the key and where it is
 * (as the physics JSON reader does for tracks and cars). */
static bool no_duplicate_keys(const cJSON *node, const char *path, jctx *j)
{
    char here[160];
    int index = 0;
    for (const cJSON *it = node->child; it; it = it->next, index++) {
        if (cJSON_IsObject(node)) {
            for (const cJSON *prev = node->child; prev != it; prev = prev->next)
                if (strcmp(prev->string, it->string) == 0) {
                    rs_errf(j->err, j->err_len, "%s: %s%s%s: duplicate key", j->source, path,
                            path[0] ? "." : "", it->string);
                    return false;
                }
            snprintf(here, sizeof here, "%s%s%s", path, path[0] ? "." : "", it->string);
        } else {
            snprintf(here, sizeof here, "%s[%d]", path, index);
        }
        if ((cJSON_IsObject(it) || cJSON_IsArray(it)) && !no_duplicate_keys(it, here, j))
            return false;
    }
    return true;
}

bool rs_config_apply_json(rs_server_config *c, const char *text, size_t len, const char *source,
                          char *err, size_t err_len)
{
    jctx j = {source, err, err_len};
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        long off = at && at >= text && at <= text + len ? (long)(at - text) : -1;
        rs_errf(err, err_len, "%s: not valid JSON (near byte %ld)", source, off);
        return false;
    }
    bool ok = false;
    const cJSON *rooms = NULL;
    if (!cJSON_IsObject(root)) {
        rs_errf(err, err_len, "%s: the top level must be an object", source);
        goto done;
    }
    if (!no_duplicate_keys(root, "", &j))
        goto done;
    /* Top-level room settings are every room's defaults: read them first,
     * "rooms" after, whatever the order in the file. */
    for (const cJSON *it = root->child; it; it = it->next) {
        if (strcmp(it->string, "rooms") == 0) {
            rooms = it;
            continue;
        }
        int rc = j_server_key(&j, c, it);
        if (rc == 0)
            rc = j_room_key(&j, c, it, it->string, &c->room_defaults);
        if (rc < 0)
            goto done;
        if (rc == 0) {
            jfail(&j, it->string, "unknown key");
            goto done;
        }
    }
    if (rooms) {
        if (!j_rooms(&j, c, rooms))
            goto done;
    } else {
        /* No room list: the one room follows the top-level settings. */
        char name[33];
        rs_cfg_copy(name, sizeof name, c->rooms[0].name);
        c->rooms[0] = c->room_defaults;
        rs_cfg_copy(c->rooms[0].name, sizeof c->rooms[0].name, name);
        c->room_count = 1;
    }
    ok = true;
done:
    cJSON_Delete(root);
    return ok;
}

bool rs_config_apply_file(rs_server_config *c, const char *path, char *err, size_t err_len)
{
    char *text = NULL;
    size_t len = 0;
    if (rs_file_read(path, 1u << 24, &text, &len, err, err_len) != RS_FILE_OK)
        return false;
    bool ok = rs_config_apply_json(c, text, len, path, err, err_len);
    free(text);
    return ok;
}

/* ----------------------------------------------------------- command line */

void rs_config_usage(void)
{
    printf(
        "usage: raceserver [options]\n"
        "  --config FILE.json     settings file (docs/RACESERVER.md); options below override it\n"
        "  --port N               UDP port, 0..65535 (default 27960; 0 = any free port)\n"
        "  --bind ADDR            address to bind (default: any)\n"
        "  --tick-hz N            simulation rate, 1..1000 (default 60)\n"
        "  --max-clients N        connections, 1..4095 (default 512)\n"
        "  --rooms N              N rooms named room1..roomN (1: one room named default)\n"
        "  --track FILE|NAME      track of every room (default data/tracks/technical.json)\n"
        "  --car FILE|NAME        car of every room (default data/cars/c5.json)\n"
        "  --laps N               race length, 1..1000 (default 3)\n"
        "  --max-players N        cars per room, 1..32 (default 16)\n"
        "  --start-players N      start when this many joined, 0..max-players (0 = full)\n"
        "  --spectators N         spectator slots per room, 0..1024 (default 8)\n"
        "  --lobby-s S            start S s after the first player joined, 1..600 (default 5)\n"
        "  --load-wait-s S        wait at most S s for players' track and car, 0..600 "
        "(default 15)\n"
        "  --countdown-s S        countdown to lights out, 1..60 s (default 5)\n"
        "  --finish-timeout-s S   a session ends at most S s after its flag, 1..3600 (default 60)\n"
        "  --password S           room password, up to 64 bytes\n"

        "  --db FILE              SQLite database (default racesim.db)\n"
        "  --key-file FILE        the server's secret key, created on first start with mode\n"
        "                         0600 (default raceserver.key)\n"
        "  --print-public-key     print the server's public key (creating the key file if\n"
        "                         needed) and exit; players may pin it\n"
        "  --max-per-address N    connections from one IPv4 address, 1..4095 (default 8)\n"
        "  --socket-buffer-kib N  the UDP socket's receive buffer, 64..262144 (default 4096)\n"
        "  --no-db                run without persistence\n"
        "  --guests allow|deny    whether unregistered players may play (default allow)\n"
        "  --log-level L          error, warn, info or debug (default info)\n"
        "  --log-format F         text or json: one JSON object per line (default text)\n"
        "  --stats-interval S     seconds between stats lines, 0..86400 (default 10; 0 = off)\n"
        "  --workers N            threads the rooms step on, 0..64 (default: one per core;\n"
        "                         0 or 1 = on the network thread)\n"
        "  --overload-late-ms MS  refuse new players while ticks start this late, 0..60000\n"
        "                         (default 50; 0 = never)\n"
        "  --http ADDR:PORT       serve the HTTP API, /metrics and the web page there\n"
        "                         (127.0.0.1:8080; [::1]:8080; :8080 = every address; off\n"
        "                         unless given; docs/HTTP.md)\n"
        "  --web-root DIR         the web page's folder (default: the installed or built page)\n"
        "  --results-dir DIR      a JSON results file per session there (docs/RESULTS.md)\n"
        "  --http-requests-per-s N  HTTP requests per address and second, 1..10000 (default 50)\n"
        "  --http-max-per-address N HTTP connections from one address at once, 1..1024\n"
        "                         (default 8; raise it behind a reverse proxy)\n"
        "  --demo [--bots N]      a local race of N bots (1..32, default 8), then the leaderboard\n"
        "  --help\n");
}

static bool arg_u32(const char *opt, const char *v, uint32_t lo, uint32_t hi, uint32_t *out,
                    char *err, size_t err_len)
{
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!v[0] || v[0] == '-' || v[0] == '+' || *end || errno) {
        rs_errf(err, err_len, "%s: '%s' is not an integer in %u..%u", opt, v, (unsigned)lo,
                (unsigned)hi);
        return false;
    }
    if (x < lo || x > hi) {
        rs_errf(err, err_len, "%s: %llu outside %u..%u", opt, x, (unsigned)lo, (unsigned)hi);
        return false;
    }
    *out = (uint32_t)x;
    return true;
}

static bool arg_len(const char *opt, const char *v, size_t min, size_t max, char *err,
                    size_t err_len)
{
    size_t n = strlen(v);
    if (n < min || n > max) {
        rs_errf(err, err_len, "%s: must be %zu..%zu bytes", opt, min, max);
        return false;
    }
    return true;
}

/* arg_len, then the copy into out (cap bytes: more than max). */
static bool arg_str(const char *opt, const char *v, size_t min, size_t max, char *out, size_t cap,
                    char *err, size_t err_len)
{
    if (!arg_len(opt, v, min, max, err, err_len))
        return false;
    rs_cfg_copy(out, cap, v);
    return true;
}

static bool is_opt(const char *a, const char *name)
{
    return strcmp(a, name) == 0;
}

/* What the command line says beyond single settings: room options (applied
 * to every room once all options are read), the room count, and what the
 * demo must not override. */
typedef struct cli_options {
    const char *track, *car, *password;
    bool has[ROOM_NUMBER_COUNT];
    uint32_t value[ROOM_NUMBER_COUNT];
    uint32_t rooms;   /* --rooms N; 0: not given */
    bool stats_given; /* --stats-interval */
    bool level_given; /* --log-level */
} cli_options;

/* The file first, wherever --config stands, so that the options override
 * it; --help anywhere prints the usage and nothing else happens. */
static rs_args_result read_config_option(rs_server_config *c, int argc, char **argv, char *err,
                                         size_t err_len)
{
    for (int i = 1; i < argc; i++) {
        if (is_opt(argv[i], "--help") || is_opt(argv[i], "-h")) {
            rs_config_usage();
            return RS_ARGS_HELP;
        }
        if (is_opt(argv[i], "--config")) {
            if (i + 1 >= argc) {
                rs_errf(err, err_len, "--config: needs a file");
                return RS_ARGS_ERROR;
            }
            if (!rs_config_apply_file(c, argv[i + 1], err, err_len))
                return RS_ARGS_ERROR;
            i++;
        }
    }
    return RS_ARGS_OK;
}

bool rs_config_parse_http(const char *text, char *addr, size_t cap, uint16_t *port)
{
    const char *colon = strrchr(text, ':');
    if (!colon || colon[1] == '\0')
        return false;
    const char *a = text;
    size_t alen = (size_t)(colon - text);
    if (alen >= 2 && a[0] == '[' && a[alen - 1] == ']') { /* [IPv6]:port */
        a++;
        alen -= 2;
    } else if (memchr(a, ':', alen)) {
        return false; /* a bare IPv6 address needs its brackets */
    }
    unsigned long v = 0;
    for (const char *p = colon + 1; *p; p++) {
        if (*p < '0' || *p > '9' || v > 65535)
            return false;
        v = v * 10 + (unsigned long)(*p - '0');
    }
    if (v > 65535 || alen >= cap)
        return false;
    memcpy(addr, a, alen);
    addr[alen] = '\0';
    *port = (uint16_t)v;
    return true;
}

/* Every option that takes a value (the flags --no-db and --demo do not). */
static bool takes_value(const char *a)
{
    static const char *const server_options[] = {
        "--config", "--port", "--bind", "--tick-hz", "--max-clients", "--rooms", "--track",
        "--car", "--password", "--admin-secret", "--db", "--key-file", "--max-per-address",
        "--socket-buffer-kib",
        "--guests", "--log-level", "--log-format",
        "--stats-interval", "--workers", "--overload-late-ms", "--bots", "--http", "--web-root", "--results-dir",
        "--http-requests-per-s",
        "--http-max-per-address"};
    for (size_t k = 0; k < sizeof server_options / sizeof server_options[0]; k++)
        if (is_opt(a, server_options[k]))
            return true;
    for (int n = 0; n < ROOM_NUMBER_COUNT; n++)
        if (is_opt(a, room_numbers[n].option))
            return true;
    return false;
}

/* A room option: 1 handled, 0 not a room option, -1 error (in err). */
static int room_option(cli_options *o, const char *a, const char *val, char *err, size_t err_len)
{
    if (is_opt(a, "--track") || is_opt(a, "--car")) {
        if (!arg_len(a, val, 1, RS_CFG_PATH_MAX - 64, err, err_len))
            return -1;
        *(is_opt(a, "--track") ? &o->track : &o->car) = val;
        return 1;
    }
    if (is_opt(a, "--password")) {
        if (!arg_len(a, val, 0, 64, err, err_len))
            return -1;
        o->password = val;
        return 1;
    }
    for (int n = 0; n < ROOM_NUMBER_COUNT; n++) {
        const room_number_spec *spec = &room_numbers[n];
        if (is_opt(a, spec->option)) {
            o->has[n] = arg_u32(a, val, spec->lo, spec->hi, &o->value[n], err, err_len);
            return o->has[n] ? 1 : -1;
        }
    }
    return 0;
}

/* A server option with its value. False with the message in err. */
static bool server_option(rs_server_config *c, cli_options *o, const char *a, const char *val,
                          char *err, size_t err_len)
{
    uint32_t v;
    bool ok = true;
    if (is_opt(a, "--config")) {
        /* read first, by read_config_option */
    } else if (is_opt(a, "--port")) {
        ok = arg_u32(a, val, 0, 65535, &v, err, err_len);
        if (ok)
            c->port = (uint16_t)v;
    } else if (is_opt(a, "--bind")) {
        ok = arg_str(a, val, 0, 63, c->bind, sizeof c->bind, err, err_len);
    } else if (is_opt(a, "--tick-hz")) {
        ok = arg_u32(a, val, 1, 1000, &c->tick_hz, err, err_len);
    } else if (is_opt(a, "--max-clients")) {
        ok = arg_u32(a, val, 1, MAX_CLIENTS, &c->max_clients, err, err_len);
    } else if (is_opt(a, "--rooms")) {
        ok = arg_u32(a, val, 1, RS_CFG_MAX_ROOMS, &o->rooms, err, err_len);
    } else if (is_opt(a, "--admin-secret")) {
        ok = false;
        rs_errf(err, err_len, "--admin-secret: no longer supported: make registered players "
                              "administrators with racectl admin grant NAME");
    } else if (is_opt(a, "--db")) {
        ok = arg_str(a, val, 1, RS_CFG_PATH_MAX - 1, c->db, sizeof c->db, err, err_len);
    } else if (is_opt(a, "--key-file")) {
        ok = arg_str(a, val, 1, RS_CFG_PATH_MAX - 1, c->key_file, sizeof c->key_file, err,
                     err_len);
    } else if (is_opt(a, "--max-per-address")) {
        ok = arg_u32(a, val, 1, MAX_CLIENTS, &c->max_per_address, err, err_len);
    } else if (is_opt(a, "--socket-buffer-kib")) {
        ok = arg_u32(a, val, RS_NET_SOCKET_BUFFER_KIB_MIN, RS_NET_SOCKET_BUFFER_KIB_MAX,
                     &c->socket_buffer_kib, err, err_len);
    } else if (is_opt(a, "--guests")) {
        ok = parse_guest_policy(val, &c->guests);
        if (!ok)
            rs_errf(err, err_len, "--guests: '%s' must be allow or deny", val);
    } else if (is_opt(a, "--log-level")) {
        o->level_given = true;
        ok = rs_log_level_parse(val, &c->log_level);
        if (!ok)
            rs_errf(err, err_len, "--log-level: '%s' must be error, warn, info or debug", val);
    } else if (is_opt(a, "--log-format")) {
        ok = rs_log_format_parse(val, &c->log_format);
        if (!ok)
            rs_errf(err, err_len, "--log-format: '%s' must be text or json", val);
    } else if (is_opt(a, "--workers")) {
        ok = arg_u32(a, val, 0, RS_CFG_MAX_WORKERS, &c->workers, err, err_len);
    } else if (is_opt(a, "--overload-late-ms")) {
        ok = arg_u32(a, val, 0, 60000, &c->overload_late_ms, err, err_len);
    } else if (is_opt(a, "--stats-interval")) {
        ok = arg_u32(a, val, 0, 86400, &c->stats_interval_s, err, err_len);
        o->stats_given = true;
    } else if (is_opt(a, "--http")) {
        ok = rs_config_parse_http(val, c->http_bind, sizeof c->http_bind, &c->http_port);
        c->http = ok;
        if (!ok)
            rs_errf(err, err_len, "--http: '%s' must be ADDR:PORT (127.0.0.1:8080, [::1]:8080, "
                                  ":8080 for every address)", val);
    } else if (is_opt(a, "--http-max-per-address")) {
        ok = arg_u32(a, val, 1, 1024, &c->http_max_per_address, err, err_len);
    } else if (is_opt(a, "--http-requests-per-s")) {
        ok = arg_u32(a, val, 1, 10000, &c->http_requests_per_s, err, err_len);
    } else if (is_opt(a, "--results-dir")) {
        ok = arg_str(a, val, 0, RS_CFG_PATH_MAX - 1, c->results_dir, sizeof c->results_dir, err,
                     err_len);
    } else if (is_opt(a, "--web-root")) {
        ok = arg_str(a, val, 0, RS_CFG_PATH_MAX - 1, c->web_root, sizeof c->web_root, err,
                     err_len);
    } else if (is_opt(a, "--bots")) {
        ok = arg_u32(a, val, 1, MAX_CARS, &c->demo_bots, err, err_len);
    }
    return ok;
}

/* Every option after --config, in order. */
static rs_args_result read_options(rs_server_config *c, cli_options *o, int argc, char **argv,
                                   char *err, size_t err_len)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (is_opt(a, "--no-db")) {
            c->no_db = true;
            continue;
        }
        if (is_opt(a, "--demo")) {
            c->demo = true;
            continue;
        }
        if (is_opt(a, "--print-public-key")) {
            c->print_public_key = true;
            continue;
        }
        if (!takes_value(a)) {
            rs_errf(err, err_len, "unknown option '%s' (try --help)", a);
            return RS_ARGS_ERROR;
        }
        if (i + 1 >= argc) {
            rs_errf(err, err_len, "%s: needs a value", a);
            return RS_ARGS_ERROR;
        }
        const char *val = argv[++i];
        int rc = room_option(o, a, val, err, err_len);
        if (rc < 0 || (rc == 0 && !server_option(c, o, a, val, err, err_len)))
            return RS_ARGS_ERROR;
    }
    return RS_ARGS_OK;
}

/* The demo's weekend, unless the file gives one: a qualifying of two laps
 * (the first starts on the grid, the second is a flying lap) and a race of
 * laps from the qualifying grid, in two classes of car, unless a car was
 * named. Its flag waits long enough for the slower class to finish. */
static void demo_weekend(rs_server_config *c, const cli_options *o, uint32_t laps)
{
    rs_cfg_room *r = &c->room_defaults;
    if (r->session_count == 0) {
        r->sessions[0] = (rs_proto_session_def){.type = RS_SESSION_QUALIFYING, .laps = 2};
        r->sessions[1] = (rs_proto_session_def){.type = RS_SESSION_RACE,
                                                .laps = (uint16_t)laps,
                                                .grid_source = RS_GRID_QUALIFYING};
        r->session_count = 2;
    }
    if (r->car_count == 0 && !o->car) {
        static const char *const cars[2][2] = {{"c5", "GT"}, {"formula", "Formula"}};
        for (uint32_t i = 0; i < 2; i++) {
            rs_cfg_car *car = &r->cars[i];
            memset(car, 0, sizeof *car);
            rs_cfg_copy(car->name, sizeof car->name, cars[i][0]);
            rs_cfg_data_path(car->path, sizeof car->path, c->data_dir, "cars", cars[i][0]);
            rs_cfg_copy(car->class_name, sizeof car->class_name, cars[i][1]);
        }
        r->car_count = 2;
    }
}

/* The demo is one local weekend: a room sized for the bots, a race of 1
 * lap unless told otherwise, on a free loopback port. */
static void demo_options(rs_server_config *c, cli_options *o)
{
    c->port = 0;
    rs_cfg_copy(c->bind, sizeof c->bind, "127.0.0.1");
    o->rooms = 1;
    if (!o->has[ROOM_LAPS]) {
        /* With a qualifying of two laps first, one lap keeps the whole
         * weekend near the five minutes the demo has always taken. */
        o->has[ROOM_LAPS] = true;
        o->value[ROOM_LAPS] = 1;
    }
    if (!o->has[ROOM_FINISH_TIMEOUT]) {
        o->has[ROOM_FINISH_TIMEOUT] = true;
        o->value[ROOM_FINISH_TIMEOUT] = 120;
    }
    demo_weekend(c, o, o->value[ROOM_LAPS]);
    o->has[ROOM_MAX] = o->has[ROOM_START] = true;
    o->value[ROOM_MAX] = o->value[ROOM_START] = c->demo_bots;
    if (!o->stats_given)
        c->stats_interval_s = 0; /* the demo's output is the race, not the counters */
    if (!o->level_given)
        c->log_level = RS_LOG_WARN; /* nor every connection the bots make */
    if (!c->http) { /* the page, to watch the bots race: a free loopback port */
        c->http = true;
        rs_cfg_copy(c->http_bind, sizeof c->http_bind, "127.0.0.1");
        c->http_port = 0;
    }
}

static void apply_room_options(const rs_server_config *c, const cli_options *o, rs_cfg_room *r)
{
    if (o->track)
        rs_cfg_data_path(r->track, sizeof r->track, c->data_dir, "tracks", o->track);
    if (o->car)
        rs_cfg_data_path(r->car, sizeof r->car, c->data_dir, "cars", o->car);
    if (o->password)
        rs_cfg_copy(r->password, sizeof r->password, o->password);
    for (int n = 0; n < ROOM_NUMBER_COUNT; n++)
        if (o->has[n])
            *room_number_field(r, (room_number)n) = o->value[n];
}

/* Room options apply to every room. --rooms N replaces the file's rooms
 * with N rooms made from the defaults. */
static void apply_rooms(rs_server_config *c, const cli_options *o)
{
    apply_room_options(c, o, &c->room_defaults);
    if (!o->rooms) {
        for (uint32_t r = 0; r < c->room_count; r++)
            apply_room_options(c, o, &c->rooms[r]);
        return;
    }
    c->room_count = o->rooms;
    for (uint32_t r = 0; r < o->rooms; r++) {
        c->rooms[r] = c->room_defaults;
        if (o->rooms == 1)
            rs_cfg_copy(c->rooms[r].name, sizeof c->rooms[r].name, "default");
        else
            snprintf(c->rooms[r].name, sizeof c->rooms[r].name, "room%u", (unsigned)r + 1);
    }
}

rs_args_result rs_config_from_args(rs_server_config *c, const char *data_dir, int argc,
                                   char **argv, char *err, size_t err_len)
{
    rs_config_default(c, data_dir);
    rs_args_result res = read_config_option(c, argc, argv, err, err_len);
    if (res != RS_ARGS_OK)
        return res;
    cli_options o;
    memset(&o, 0, sizeof o);
    res = read_options(c, &o, argc, argv, err, err_len);
    if (res != RS_ARGS_OK)
        return res;
    if (c->demo)
        demo_options(c, &o);
    apply_rooms(c, &o);
    return rs_config_check(c, err, err_len) ? RS_ARGS_OK : RS_ARGS_ERROR;
}

bool rs_config_check(const rs_server_config *c, char *err, size_t err_len)
{
    for (uint32_t i = 0; i < c->room_count; i++) {
        const rs_cfg_room *r = &c->rooms[i];
        if (r->start_players > r->max_players) {
            rs_errf(err, err_len, "rooms[%u] (%s): start_players: %u outside 0..%u (max_players)",
                    (unsigned)i, r->name, (unsigned)r->start_players, (unsigned)r->max_players);
            return false;
        }
        if (!rs_cfg_weekend_check(r, err, err_len))
            return false;
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(c->rooms[k].name, r->name) == 0) {
                rs_errf(err, err_len, "rooms[%u].name: '%s' is already the name of rooms[%u]",
                        (unsigned)i, r->name, (unsigned)k);
                return false;
            }
    }
    if (!rs_cfg_championships_check(c, err, err_len))
        return false;
    if (c->results_dir[0] && c->no_db) {
        /* A file is named after its session's races row. */
        rs_errf(err, err_len, "results_dir: results files need the database (drop --no-db)");
        return false;
    }
    if (c->guests == RS_GUESTS_DENY && c->no_db) {
        rs_errf(err, err_len, "guest_policy: deny needs the database (drop --no-db)");
        return false;
    }
    if (c->max_per_address > c->max_clients) {
        rs_errf(err, err_len, "max_per_address: %u outside 1..%u (max_clients)",
                (unsigned)c->max_per_address, (unsigned)c->max_clients);
        return false;
    }
    return true;
}
