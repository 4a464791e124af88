/*
 * raceserver's configuration (config.h): the only file of the program that
 * includes <cjson/cJSON.h>. Every value is checked as it is read so that
 * the message can name where it came from: "server.json: rooms[1].laps: 0
 * outside 1..1000" or "--laps: 0 outside 1..1000".
 */
#include "config.h"
#include "racesim/base/file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define MAX_SPECTATORS 1024u
#define MAX_CARS 32u
#define MAX_CLIENTS 4095u /* ENet's peer id space */

/* snprintf through a va_list: paths are bounded by RS_CFG_PATH_MAX, and a
 * path cut short simply fails to open, with its name in the message. */
static void fmt(char *dst, size_t cap, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vsnprintf(dst, cap, format, ap);
    va_end(ap);
}

static void copy_str(char *dst, size_t cap, const char *src)
{
    fmt(dst, cap, "%s", src);
}

/* A track or car given as a bare name ("oval") means data/<kind>/oval.json. */
static void resolve_data_path(char *dst, size_t cap, const char *data_dir, const char *kind,
                              const char *value)
{
    size_t n = strlen(value);
    bool bare = !strchr(value, '/') && !(n >= 5 && strcmp(value + n - 5, ".json") == 0);
    if (bare)
        fmt(dst, cap, "%s/%s/%s.json", data_dir, kind, value);
    else
        copy_str(dst, cap, value);
}

void rs_config_default(rs_server_config *c, const char *data_dir)
{
    memset(c, 0, sizeof *c);
    copy_str(c->data_dir, sizeof c->data_dir, data_dir);
    c->port = RS_CFG_DEFAULT_PORT;
    c->tick_hz = 60;
    c->max_clients = 512;
    copy_str(c->db, sizeof c->db, "racesim.db");
    c->log_level = RS_LOG_INFO;
    c->stats_interval_s = 10;
    c->guests = RS_GUESTS_ALLOW;
    rs_cfg_room *d = &c->room_defaults;
    copy_str(d->name, sizeof d->name, "default");
    fmt(d->track, sizeof d->track, "%s/tracks/technical.json", data_dir);
    fmt(d->car, sizeof d->car, "%s/cars/c5.json", data_dir);
    d->laps = 3;
    d->max_players = 16;
    d->start_players = 0;
    d->spectators = 8;
    /* Shorter than the SDK's 10 s silence timeout: a lone player in the
     * lobby hears nothing until the countdown's world arrives. */
    d->lobby_s = 5;
    d->load_wait_s = 15;
    /* Long enough for the countdown's first message to reach a player on
     * a lossy route: on 10 % loss each way at 150 ms it took up to 2.8 s
     * (two lost attempts with ENet's doubling timeout), and a player who
     * hears it after lights out starts the race late. (Five seconds is
     * also the five red lights of a Grand Prix start.) */
    d->countdown_s = 5;
    c->room_count = 1;
    c->rooms[0] = *d;
    c->demo_bots = 8;
}

/* ------------------------------------------------------------ JSON values */

typedef struct jctx {
    const char *source;
    char *err;
    size_t err_len;
} jctx;

static bool jfail(const jctx *j, const char *field, const char *fmt, const char *detail)
{
    char what[256];
    snprintf(what, sizeof what, fmt, detail);
    snprintf(j->err, j->err_len, "%s: %s: %s", j->source, field, what);
    return false;
}

static bool j_u32(const jctx *j, const cJSON *it, const char *field, uint32_t lo, uint32_t hi,
                  uint32_t *out)
{
    char range[64];
    snprintf(range, sizeof range, "%u..%u", (unsigned)lo, (unsigned)hi);
    if (!cJSON_IsNumber(it))
        return jfail(j, field, "must be an integer in %s", range);
    double v = it->valuedouble;
    if (!(v >= -1e15 && v <= 1e15) || v != (double)(int64_t)v)
        return jfail(j, field, "must be an integer in %s", range);
    if (v < (double)lo || v > (double)hi) {
        char msg[128];
        snprintf(msg, sizeof msg, "%lld outside %s", (long long)v, range);
        return jfail(j, field, "%s", msg);
    }
    *out = (uint32_t)v;
    return true;
}

static bool j_str(const jctx *j, const cJSON *it, const char *field, size_t min, size_t max,
                  char *out, size_t cap)
{
    char rule[64];
    snprintf(rule, sizeof rule, "must be a string of %zu..%zu bytes", min, max);
    if (!cJSON_IsString(it) || !it->valuestring)
        return jfail(j, field, "%s", rule);
    size_t n = strlen(it->valuestring);
    if (n < min || n > max || n >= cap)
        return jfail(j, field, "%s", rule);
    copy_str(out, cap, it->valuestring);
    return true;
}

static bool j_bool(const jctx *j, const cJSON *it, const char *field, bool *out)
{
    if (!cJSON_IsBool(it))
        return jfail(j, field, "%s", "must be true or false");
    *out = cJSON_IsTrue(it);
    return true;
}

/* A room key (top level or inside "rooms"). Returns 1 when handled, 0 when
 * the key is not a room key, -1 on error. */
static int j_room_key(const jctx *j, const rs_server_config *c, const cJSON *it,
                      const char *field, rs_cfg_room *r)
{
    const char *k = it->string;
    char path[RS_CFG_PATH_MAX];
    if (strcmp(k, "track") == 0 || strcmp(k, "car") == 0) {
        if (!j_str(j, it, field, 1, RS_CFG_PATH_MAX - 64, path, sizeof path))
            return -1;
        bool track = k[0] == 't';
        resolve_data_path(track ? r->track : r->car, RS_CFG_PATH_MAX, c->data_dir,
                          track ? "tracks" : "cars", path);
        return 1;
    }
    if (strcmp(k, "laps") == 0)
        return j_u32(j, it, field, 1, 1000, &r->laps) ? 1 : -1;
    if (strcmp(k, "max_players") == 0)
        return j_u32(j, it, field, 1, MAX_CARS, &r->max_players) ? 1 : -1;
    if (strcmp(k, "start_players") == 0)
        return j_u32(j, it, field, 0, MAX_CARS, &r->start_players) ? 1 : -1;
    if (strcmp(k, "spectators") == 0)
        return j_u32(j, it, field, 0, MAX_SPECTATORS, &r->spectators) ? 1 : -1;
    if (strcmp(k, "password") == 0)
        return j_str(j, it, field, 0, 64, r->password, sizeof r->password) ? 1 : -1;
    if (strcmp(k, "lobby_s") == 0)
        return j_u32(j, it, field, 1, 600, &r->lobby_s) ? 1 : -1;
    if (strcmp(k, "load_wait_s") == 0)
        return j_u32(j, it, field, 0, 600, &r->load_wait_s) ? 1 : -1;
    if (strcmp(k, "countdown_s") == 0)
        return j_u32(j, it, field, 1, 60, &r->countdown_s) ? 1 : -1;
    return 0;
}

static bool j_rooms(const jctx *j, rs_server_config *c, const cJSON *arr)
{
    if (!cJSON_IsArray(arr))
        return jfail(j, "rooms", "%s", "must be an array of room objects");
    int n = cJSON_GetArraySize(arr);
    if (n < 1 || n > (int)RS_CFG_MAX_ROOMS) {
        char msg[64];
        snprintf(msg, sizeof msg, "%d rooms outside 1..%u", n, (unsigned)RS_CFG_MAX_ROOMS);
        return jfail(j, "rooms", "%s", msg);
    }
    for (int i = 0; i < n; i++) {
        const cJSON *ro = cJSON_GetArrayItem(arr, i);
        char base[32];
        snprintf(base, sizeof base, "rooms[%d]", i);
        if (!cJSON_IsObject(ro))
            return jfail(j, base, "%s", "must be an object");
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
                return jfail(j, field, "%s", "unknown key");
        }
        c->rooms[i] = r;
    }
    c->room_count = (uint32_t)n;
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
        snprintf(err, err_len, "%s: not valid JSON (near byte %ld)", source, off);
        return false;
    }
    bool ok = false;
    const cJSON *rooms = NULL;
    if (!cJSON_IsObject(root)) {
        snprintf(err, err_len, "%s: the top level must be an object", source);
        goto done;
    }
    /* Top-level room settings are every room's defaults: read them first,
     * "rooms" after, whatever the order in the file. */
    for (const cJSON *it = root->child; it; it = it->next) {
        const char *k = it->string;
        uint32_t v;
        if (strcmp(k, "rooms") == 0) {
            rooms = it;
        } else if (strcmp(k, "port") == 0) {
            if (!j_u32(&j, it, k, 0, 65535, &v))
                goto done;
            c->port = (uint16_t)v;
        } else if (strcmp(k, "bind") == 0) {
            if (!j_str(&j, it, k, 0, 63, c->bind, sizeof c->bind))
                goto done;
        } else if (strcmp(k, "tick_hz") == 0) {
            if (!j_u32(&j, it, k, 1, 1000, &c->tick_hz))
                goto done;
        } else if (strcmp(k, "max_clients") == 0) {
            if (!j_u32(&j, it, k, 1, MAX_CLIENTS, &c->max_clients))
                goto done;
        } else if (strcmp(k, "db") == 0) {
            if (!j_str(&j, it, k, 1, RS_CFG_PATH_MAX - 1, c->db, sizeof c->db))
                goto done;
        } else if (strcmp(k, "ban_file") == 0) {
            if (!j_str(&j, it, k, 0, RS_CFG_PATH_MAX - 1, c->ban_file, sizeof c->ban_file))
                goto done;
        } else if (strcmp(k, "no_db") == 0) {
            if (!j_bool(&j, it, k, &c->no_db))
                goto done;
        } else if (strcmp(k, "admin_secret") == 0) {
            if (!j_str(&j, it, k, 0, 64, c->admin_secret, sizeof c->admin_secret))
                goto done;
        } else if (strcmp(k, "log_level") == 0) {
            if (!cJSON_IsString(it) || !rs_log_level_parse(it->valuestring, &c->log_level)) {
                jfail(&j, k, "%s", "must be one of error, warn, info, debug");
                goto done;
            }
        } else if (strcmp(k, "stats_interval_s") == 0) {
            if (!j_u32(&j, it, k, 0, 86400, &c->stats_interval_s))
                goto done;
        } else if (strcmp(k, "guest_policy") == 0) {
            if (cJSON_IsString(it) && strcmp(it->valuestring, "allow") == 0) {
                c->guests = RS_GUESTS_ALLOW;
            } else if (cJSON_IsString(it) && strcmp(it->valuestring, "deny") == 0) {
                c->guests = RS_GUESTS_DENY;
            } else {
                jfail(&j, k, "%s", "must be \"allow\" or \"deny\"");
                goto done;
            }
        } else {
            int rc = j_room_key(&j, c, it, k, &c->room_defaults);
            if (rc < 0)
                goto done;
            if (rc == 0) {
                jfail(&j, k, "%s", "unknown key");
                goto done;
            }
        }
    }
    if (rooms) {
        if (!j_rooms(&j, c, rooms))
            goto done;
    } else {
        /* No room list: the one room follows the top-level settings. */
        char name[33];
        copy_str(name, sizeof name, c->rooms[0].name);
        c->rooms[0] = c->room_defaults;
        copy_str(c->rooms[0].name, sizeof c->rooms[0].name, name);
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
        "  --load-wait-s S        wait at most S s for players' track and car, 0..600 (default 15)\n"
        "  --countdown-s S        countdown to lights out, 1..60 s (default 5)\n"
        "  --password S           room password, up to 64 bytes\n"
        "  --admin-secret S       enables admin commands, 1..64 bytes\n"
        "  --db FILE              SQLite database (default racesim.db)\n"
        "  --no-db                run without persistence\n"
        "  --guests allow|deny    whether unregistered players may play (default allow)\n"
        "  --log-level L          error, warn, info or debug (default info)\n"
        "  --stats-interval S     seconds between stats lines, 0..86400 (default 10; 0 = off)\n"
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
        snprintf(err, err_len, "%s: '%s' is not an integer in %u..%u", opt, v, (unsigned)lo,
                 (unsigned)hi);
        return false;
    }
    if (x < lo || x > hi) {
        snprintf(err, err_len, "%s: %llu outside %u..%u", opt, x, (unsigned)lo, (unsigned)hi);
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
        snprintf(err, err_len, "%s: must be %zu..%zu bytes", opt, min, max);
        return false;
    }
    return true;
}

static bool arg_str(const char *opt, const char *v, size_t min, size_t max, char *out, size_t cap,
                    char *err, size_t err_len)
{
    size_t n = strlen(v);
    if (n < min || n > max || n >= cap) {
        snprintf(err, err_len, "%s: must be %zu..%zu bytes", opt, min, max);
        return false;
    }
    copy_str(out, cap, v);
    return true;
}

/* Room options given on the command line, applied to every room. */
typedef struct room_overrides {
    const char *track, *car, *password;
    bool has_laps, has_max, has_start, has_spect, has_lobby, has_load_wait, has_countdown;
    uint32_t laps, max_players, start_players, spectators, lobby_s, load_wait_s, countdown_s;
} room_overrides;

static void apply_room_overrides(const rs_server_config *c, const room_overrides *o,
                                 rs_cfg_room *r)
{
    if (o->track)
        resolve_data_path(r->track, sizeof r->track, c->data_dir, "tracks", o->track);
    if (o->car)
        resolve_data_path(r->car, sizeof r->car, c->data_dir, "cars", o->car);
    if (o->password)
        copy_str(r->password, sizeof r->password, o->password);
    if (o->has_laps)
        r->laps = o->laps;
    if (o->has_max)
        r->max_players = o->max_players;
    if (o->has_start)
        r->start_players = o->start_players;
    if (o->has_spect)
        r->spectators = o->spectators;
    if (o->has_lobby)
        r->lobby_s = o->lobby_s;
    if (o->has_load_wait)
        r->load_wait_s = o->load_wait_s;
    if (o->has_countdown)
        r->countdown_s = o->countdown_s;
}

static bool is_opt(const char *a, const char *name)
{
    return strcmp(a, name) == 0;
}

rs_args_result rs_config_from_args(rs_server_config *c, const char *data_dir, int argc,
                                   char **argv, char *err, size_t err_len)
{
    rs_config_default(c, data_dir);
    /* The file first, wherever --config stands, so options override it. */
    for (int i = 1; i < argc; i++) {
        if (is_opt(argv[i], "--help") || is_opt(argv[i], "-h")) {
            rs_config_usage();
            return RS_ARGS_HELP;
        }
        if (is_opt(argv[i], "--config")) {
            if (i + 1 >= argc) {
                snprintf(err, err_len, "--config: needs a file");
                return RS_ARGS_ERROR;
            }
            if (!rs_config_apply_file(c, argv[i + 1], err, err_len))
                return RS_ARGS_ERROR;
            i++;
        }
    }
    room_overrides o;
    memset(&o, 0, sizeof o);
    uint32_t rooms = 0, v;
    bool demo_laps = false, stats_given = false, level_given = false;
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
        static const char *const with_value[] = {
            "--config", "--port", "--bind", "--tick-hz", "--max-clients", "--rooms", "--track",
            "--car", "--laps", "--max-players", "--start-players", "--spectators", "--lobby-s",
            "--load-wait-s", "--countdown-s",
            "--password", "--admin-secret", "--db", "--guests", "--log-level", "--stats-interval",
            "--bots"};
        bool known = false;
        for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
            known = known || is_opt(a, with_value[k]);
        if (!known) {
            snprintf(err, err_len, "unknown option '%s' (try --help)", a);
            return RS_ARGS_ERROR;
        }
        if (i + 1 >= argc) {
            snprintf(err, err_len, "%s: needs a value", a);
            return RS_ARGS_ERROR;
        }
        const char *val = argv[++i];
        bool ok = true;
        if (is_opt(a, "--config")) {
            /* read above */
        } else if (is_opt(a, "--port")) {
            ok = arg_u32(a, val, 0, 65535, &v, err, err_len);
            c->port = (uint16_t)v;
        } else if (is_opt(a, "--bind")) {
            ok = arg_str(a, val, 0, 63, c->bind, sizeof c->bind, err, err_len);
        } else if (is_opt(a, "--tick-hz")) {
            ok = arg_u32(a, val, 1, 1000, &c->tick_hz, err, err_len);
        } else if (is_opt(a, "--max-clients")) {
            ok = arg_u32(a, val, 1, MAX_CLIENTS, &c->max_clients, err, err_len);
        } else if (is_opt(a, "--rooms")) {
            ok = arg_u32(a, val, 1, RS_CFG_MAX_ROOMS, &rooms, err, err_len);
        } else if (is_opt(a, "--track")) {
            ok = arg_len(a, val, 1, RS_CFG_PATH_MAX - 64, err, err_len);
            o.track = val;
        } else if (is_opt(a, "--car")) {
            ok = arg_len(a, val, 1, RS_CFG_PATH_MAX - 64, err, err_len);
            o.car = val;
        } else if (is_opt(a, "--laps")) {
            ok = o.has_laps = arg_u32(a, val, 1, 1000, &o.laps, err, err_len);
            demo_laps = true;
        } else if (is_opt(a, "--max-players")) {
            ok = o.has_max = arg_u32(a, val, 1, MAX_CARS, &o.max_players, err, err_len);
        } else if (is_opt(a, "--start-players")) {
            ok = o.has_start = arg_u32(a, val, 0, MAX_CARS, &o.start_players, err, err_len);
        } else if (is_opt(a, "--spectators")) {
            ok = o.has_spect = arg_u32(a, val, 0, MAX_SPECTATORS, &o.spectators, err, err_len);
        } else if (is_opt(a, "--lobby-s")) {
            ok = o.has_lobby = arg_u32(a, val, 1, 600, &o.lobby_s, err, err_len);
        } else if (is_opt(a, "--load-wait-s")) {
            ok = o.has_load_wait = arg_u32(a, val, 0, 600, &o.load_wait_s, err, err_len);
        } else if (is_opt(a, "--countdown-s")) {
            ok = o.has_countdown = arg_u32(a, val, 1, 60, &o.countdown_s, err, err_len);
        } else if (is_opt(a, "--password")) {
            ok = arg_len(a, val, 0, 64, err, err_len);
            o.password = val;
        } else if (is_opt(a, "--admin-secret")) {
            ok = arg_str(a, val, 1, 64, c->admin_secret, sizeof c->admin_secret, err, err_len);
        } else if (is_opt(a, "--db")) {
            ok = arg_str(a, val, 1, RS_CFG_PATH_MAX - 1, c->db, sizeof c->db, err, err_len);
        } else if (is_opt(a, "--guests")) {
            if (strcmp(val, "allow") == 0) {
                c->guests = RS_GUESTS_ALLOW;
            } else if (strcmp(val, "deny") == 0) {
                c->guests = RS_GUESTS_DENY;
            } else {
                snprintf(err, err_len, "--guests: '%s' must be allow or deny", val);
                ok = false;
            }
        } else if (is_opt(a, "--log-level")) {
            level_given = true;
            if (!rs_log_level_parse(val, &c->log_level)) {
                snprintf(err, err_len, "--log-level: '%s' must be error, warn, info or debug",
                         val);
                ok = false;
            }
        } else if (is_opt(a, "--stats-interval")) {
            ok = arg_u32(a, val, 0, 86400, &c->stats_interval_s, err, err_len);
            stats_given = true;
        } else if (is_opt(a, "--bots")) {
            ok = arg_u32(a, val, 1, MAX_CARS, &c->demo_bots, err, err_len);
        }
        if (!ok)
            return RS_ARGS_ERROR;
    }
    if (c->demo) {
        /* The demo is one local race: a room sized for the bots, 2 laps
         * unless told otherwise, on a free loopback port. */
        c->port = 0;
        copy_str(c->bind, sizeof c->bind, "127.0.0.1");
        rooms = 1;
        if (!demo_laps) {
            o.has_laps = true;
            o.laps = 2;
        }
        o.has_max = o.has_start = true;
        o.max_players = o.start_players = c->demo_bots;
        if (!stats_given)
            c->stats_interval_s = 0; /* the demo's output is the race, not the counters */
        if (!level_given)
            c->log_level = RS_LOG_WARN; /* nor every connection the bots make */
    }
    apply_room_overrides(c, &o, &c->room_defaults);
    if (rooms) {
        c->room_count = rooms;
        for (uint32_t r = 0; r < rooms; r++) {
            c->rooms[r] = c->room_defaults;
            if (rooms == 1)
                copy_str(c->rooms[r].name, sizeof c->rooms[r].name, "default");
            else
                snprintf(c->rooms[r].name, sizeof c->rooms[r].name, "room%u", (unsigned)r + 1);
        }
    } else {
        for (uint32_t r = 0; r < c->room_count; r++)
            apply_room_overrides(c, &o, &c->rooms[r]);
    }
    return rs_config_check(c, err, err_len) ? RS_ARGS_OK : RS_ARGS_ERROR;
}

bool rs_config_check(const rs_server_config *c, char *err, size_t err_len)
{
    for (uint32_t i = 0; i < c->room_count; i++) {
        const rs_cfg_room *r = &c->rooms[i];
        if (r->start_players > r->max_players) {
            snprintf(err, err_len, "rooms[%u] (%s): start_players: %u outside 0..%u (max_players)",
                     (unsigned)i, r->name, (unsigned)r->start_players,
                     (unsigned)r->max_players);
            return false;
        }
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(c->rooms[k].name, r->name) == 0) {
                snprintf(err, err_len, "rooms[%u].name: '%s' is already the name of rooms[%u]",
                         (unsigned)i, r->name, (unsigned)k);
                return false;
            }
    }
    if (c->guests == RS_GUESTS_DENY && c->no_db) {
        snprintf(err, err_len, "guest_policy: deny needs the database (drop --no-db)");
        return false;
    }
    return true;
}
