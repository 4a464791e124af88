/*
 * The raceserver loop (server.h). One thread (the network thread) drives
 * one ENet host and routes every room's traffic: the rooms are
 * transport-agnostic (bytes in, packets out), so this file only routes,
 * times and counts. The rooms' updates run on the network thread, or on
 * the room workers (room_pool.h) when there are several: see "Threads"
 * in docs/RACESERVER.md for who owns a room when.
 */
#define _POSIX_C_SOURCE 200809L /* opendir, readdir */

#include "server.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "db_lock.h"
#include "server_key.h"
#include "server_http.h"
#include "server_watch.h"
#include "room_inbox.h"
#include "overload.h"
#include "room_pool.h"
#include "racesim/protocol.h"
#include "racesim/track.h"
#include "racesim/services.h"
#include "racesim/base/clock.h"
#include "racesim/base/err.h"
#include "racesim/base/stats.h"
#include "racesim/base/file.h"

#define POLL_BATCH 256          /* packets moved from a room per rs_room_poll */
#define EVENTS_PER_STEP 4096    /* network events handled before the rooms run again */
#define CATCH_UP_US 5000        /* this late, a step handles what ENet read before ticking */
#define HELLO_TIMEOUT_US 10000000 /* a connection that says nothing useful is closed */
#define PRE_HELLO_DROP_LIMIT 16 /* messages before HELLO tolerated from one connection */
#define SHUTDOWN_LINGER_US 1000000

/* A track or car file loaded once and shared by the rooms that name it. */
typedef struct srv_track {
    char path[RS_CFG_PATH_MAX];
    char name[64];     /* the file's base name: CHANGE_TRACK's catalogue name */
    rs_track *track;
    char *json;
    size_t json_len;
} srv_track;

typedef struct srv_car {
    char path[RS_CFG_PATH_MAX];
    rs_car_params *car;
} srv_car;

/* Per-tick measurements of one stats interval. */
typedef struct srv_samples {
    double *v;
    size_t n, cap;
} srv_samples;

/* One room and its schedule. A room is either home (the network thread
 * may call into it) or away (one worker is updating it, and only that
 * worker touches the room and the fields marked "worker"): the network
 * thread sends it away by submitting it to the pool, the worker hands it
 * back by setting done (release), and the network thread takes it back
 * when it sees done (acquire). */
typedef struct srv_room {
    rs_room *room;
    int64_t due_us;           /* worker: when rs_room_update should run next */
    uint64_t last_ticks;      /* worker: rs_room_stats.ticks at the last update */
    int64_t update_now_us;    /* the time the update was sent away with */
    int64_t was_due_us;       /* due_us when it was sent away: its lateness is from here */
    int64_t t0_us, t1_us;     /* worker: the update's start and end */
    uint64_t stepped;         /* worker: ticks that update stepped */
    rs_room_stats after;      /* worker: the room's stats after the update */
    bool away;                /* network thread's: a worker owns the room */
    atomic_bool done;         /* the worker is finished with it */
    srv_inbox inbox;          /* what arrived while it was away (room_inbox.h) */
    rs_room_stats seen;       /* the network thread's last look at its stats */
    uint64_t last_dropped;    /* dropped_messages at the last stats line */
    uint64_t last_limited;    /* rate_limited at the last stats line */
    bool closed;              /* network thread's: told rs_room_set_open(false) */
} srv_room;

/* One ENet connection as the server sees it. */
typedef struct srv_peer {
    uint32_t id;              /* rs_net peer id; 0 = slot unused */
    char address[24];         /* "a.b.c.d:port", for the watcher's lines (under watch_lock) */
    int32_t room;             /* index into rooms, -1 before HELLO */
    int64_t connected_us;
    uint32_t pre_hello_drops;
    bool closing;             /* closed as abusive (close_abusive): its messages are dropped */
} srv_peer;

struct rs_server {
    rs_server_config cfg;
    rs_net *net;
    rs_secure_identity identity;  /* the long-term key the sessions are signed with */
    int db_lock;                  /* holds "<db>.lock" (db_lock.h); -1 = none */
    srv_track *tracks;
    uint32_t track_count, track_cap;
    srv_car cars[RS_CFG_MAX_ROOMS];
    uint32_t car_count;
    srv_room rooms[RS_CFG_MAX_ROOMS];
    uint32_t room_count;
    srv_peer *peers;          /* indexed by the low 12 bits of the peer id */
    uint32_t peer_cap;
    rs_room_packet *packets;  /* POLL_BATCH, reused */
    uint32_t *closing;
    rs_msg *msg;              /* scratch for decoding a first message (large union) */
    rs_services *services;
    srv_http *http;               /* the HTTP side (server_http.h); NULL when off */
    rs_server_watch *watch;       /* the rooms' observer and the services' log */
    /* Held around everything the rooms' observer reaches (the watcher, the
     * HTTP side's live state, the peers' addresses): rooms on different
     * workers report their events at the same time. */
    pthread_mutex_t watch_lock;
    srv_pool *pool;               /* the room workers; NULL = rooms step on this thread */
    atomic_uint returned;         /* rooms marked done since the loop last looked */
    uint32_t workers;             /* threads in pool (0 without one) */
    uint64_t db_failures_logged;  /* services' db_errors + records_failed already logged */
    bool shut_down;
    /* Counters and the stats interval. */
    uint64_t dropped;             /* pre-HELLO junk, HELLOs naming no room, messages of
                                     closed peers and over an away room's inbox cap */
    uint64_t dropped_reported;
    rs_net_stats net_reported;    /* the transport's counters at the last stats line */
    srv_samples tick_ms;          /* per-tick times of this interval, all rooms */
    srv_samples late_ms;          /* how late each room update began after its tick was due */
    int64_t stats_due_us, stats_from_us;
    int64_t housekeeping_us;
    srv_overload overload;        /* shedding newcomers while ticks run late (overload.h) */
    /* the championships as the services read them (config_results.c) */
    rs_championship_def champs[RS_CFG_MAX_CHAMPIONSHIPS];
    const char *champ_rooms[RS_CFG_MAX_CHAMPIONSHIPS][16];
};

/* The rooms and their workers (below). */
static rs_status start_workers(rs_server *srv);
static void publish_http(rs_server *srv, int64_t now);
static void bring_rooms_home(rs_server *srv);
static void settle_room(rs_server *srv, uint32_t i);
static void deliver(rs_server *srv, uint32_t i, uint8_t op, uint32_t peer, uint8_t channel,
                    const uint8_t *data, size_t len, int64_t now);

/* srv->champs from the configuration: pointers into srv->cfg, which lives
 * as long as the server. */
static void championship_defs(rs_server *srv)
{
    for (uint32_t i = 0; i < srv->cfg.championship_count; i++) {
        const rs_cfg_championship *ch = &srv->cfg.championships[i];
        rs_championship_def *d = &srv->champs[i];
        for (uint32_t k = 0; k < ch->room_count; k++)
            srv->champ_rooms[i][k] = ch->rooms[k];
        *d = (rs_championship_def){.name = ch->name,
                                   .rooms = srv->champ_rooms[i],
                                   .room_count = ch->room_count,
                                   .session_types = ch->session_types,
                                   .points = ch->points_count ? ch->points : NULL,
                                   .points_count = ch->points_count,
                                   .pole_points = ch->pole_points,
                                   .fastest_lap_points = ch->fastest_lap_points};
    }
}

/* ------------------------------------------------------------- loading */

static void base_name(const char *path, char *out, size_t cap)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, cap, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && strcmp(dot, ".json") == 0)
        *dot = '\0';
}

/* The loaded track for path (loading it on first use), or NULL with err. */
static srv_track *get_track(rs_server *srv, const char *path, char *err, size_t err_len)
{
    for (uint32_t i = 0; i < srv->track_count; i++)
        if (strcmp(srv->tracks[i].path, path) == 0)
            return &srv->tracks[i];
    if (srv->track_count == srv->track_cap) {
        uint32_t cap = srv->track_cap ? srv->track_cap * 2 : 8;
        srv_track *t = realloc(srv->tracks, cap * sizeof *t);
        if (!t) {
            rs_errf(err, err_len, "out of memory");
            return NULL;
        }
        srv->tracks = t;
        srv->track_cap = cap;
    }
    srv_track *t = &srv->tracks[srv->track_count];
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    base_name(path, t->name, sizeof t->name);
    if (rs_file_read(path, 0, &t->json, &t->json_len, err, err_len) != RS_FILE_OK)
        return NULL;
    rs_status st = rs_track_parse(t->json, t->json_len, path, &t->track, err, err_len);
    if (st != RS_OK) {
        free(t->json);
        return NULL;
    }
    srv->track_count++;
    return t;
}

static rs_car_params *get_car(rs_server *srv, const char *path, char *err, size_t err_len)
{
    for (uint32_t i = 0; i < srv->car_count; i++)
        if (strcmp(srv->cars[i].path, path) == 0)
            return srv->cars[i].car;
    srv_car *c = &srv->cars[srv->car_count];
    snprintf(c->path, sizeof c->path, "%s", path);
    if (rs_car_params_load(path, &c->car, err, err_len) != RS_OK)
        return NULL;
    srv->car_count++;
    return c->car;
}

/* Every track in data/tracks joins the CHANGE_TRACK catalogue (a file that
 * does not load is logged and left out). */
static void load_track_catalogue(rs_server *srv)
{
    char dir[RS_CFG_PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/tracks", srv->cfg.data_dir);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0)
            continue;
        char path[RS_CFG_PATH_MAX + 300], err[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (strlen(path) >= RS_CFG_PATH_MAX || !get_track(srv, path, err, sizeof err))
            rs_logf(RS_LOG_WARN, "track catalogue: %s left out: %s", path, err);
    }
    closedir(d);
}

/* A race whose server died (SIGKILL, crash, power cut) is still "running"
 * in the database and has no results: before any room creates a race, each
 * one is marked interrupted and named in a WARN line, so an operator learns
 * what the last run lost (docs/PERSISTENCE.md, "Race status"). */
static rs_status mark_interrupted_races(rs_server *srv, char *err, size_t err_len)
{
    enum { LISTED = 32 };
    rs_store_race_info races[LISTED];
    size_t n = 0;
    char why[512];
    rs_status st = rs_store_races_interrupt(rs_services_store(srv->services), races, LISTED, &n,
                                            why, sizeof why);
    if (st != RS_OK) {
        rs_errf(err, err_len, "marking the races of a previous run interrupted: %s", why);
        return st;
    }
    for (size_t i = 0; i < n && i < LISTED; i++) {
        char started[32];
        rs_time_format_utc(races[i].started_at, "%Y-%m-%dT%H:%M:%SZ", started, sizeof started);
        rs_logf(RS_LOG_WARN,
                "database: race %lld (track %s, started %s) was interrupted: the server "
                "stopped without ending it; its recorded laps are kept, it has no results",
                (long long)races[i].id, races[i].track_name, started);
    }
    if (n > LISTED)
        rs_logf(RS_LOG_WARN, "database: %zu more races were interrupted (racectl races lists them)",
                n - LISTED);
    return RS_OK;
}

static rs_status open_services(rs_server *srv, char *err, size_t err_len)
{
    load_track_catalogue(srv);
    rs_services_track *cat = calloc(srv->track_count ? srv->track_count : 1, sizeof *cat);
    if (!cat)
        return RS_ERR_NOMEM;
    for (uint32_t i = 0; i < srv->track_count; i++) {
        cat[i].name = srv->tracks[i].name;
        cat[i].track = srv->tracks[i].track;
        cat[i].json = srv->tracks[i].json;
        cat[i].json_len = srv->tracks[i].json_len;
    }
    rs_status st = rs_db_lock_acquire(srv->cfg.db, &srv->db_lock, err, err_len);
    if (st != RS_OK) {
        free(cat);
        return st;
    }
    rs_services_def def = rs_services_default();
    def.db_path = srv->cfg.db;
    def.allow_guests = srv->cfg.guests == RS_GUESTS_ALLOW;
    def.max_peers = srv->cfg.max_clients;
    def.limits.requests_per_s = srv->cfg.requests_per_s;
    def.limits.registers_per_hour = srv->cfg.registrations_per_hour;
    def.limits.registers_per_minute = srv->cfg.registrations_per_minute;
    def.log = rs_server_watch_services_log; /* admin actions, laps, registrations... */
    def.log_ctx = srv->watch;
    def.tracks = cat;
    def.track_count = srv->track_count;
    /* A proof covers up to 5 minutes of a lap at any tick rate. */
    def.max_lap_ticks = srv->cfg.tick_hz * 300u;
    def.results_dir = srv->cfg.results_dir;
    def.server_name = srv->cfg.server_name;
    championship_defs(srv);
    def.championships = srv->champs;
    def.championship_count = srv->cfg.championship_count;
    st = rs_services_create(&def, &srv->services, err, err_len);
    free(cat);
    if (st == RS_OK)
        st = mark_interrupted_races(srv, err, err_len);
    return st;
}

/* --------------------------------------------------------------- create */

/* What one room races: its track (with the JSON text clients are sent) and
 * its car, owned by the server's track and car lists. */
typedef struct room_content {
    const rs_track *track;
    const char *json;
    size_t json_len;
    const rs_car_params *car;
    /* "cars" and "entry_list": what rs_room_config points to */
    rs_room_car_offer offers[RS_CFG_MAX_CARS];
    const char *classes[RS_PROTO_MAX_CLASSES];
    uint32_t class_count;
    rs_room_entry entries[RS_PROTO_MAX_CARS];
} room_content;

/* The class index of a class name, adding it (in the order of first use). */
static bool class_of(room_content *rc, const char *name, uint8_t *out)
{
    if (!name[0]) {
        *out = 0;
        return rc->class_count == 0;
    }
    for (uint32_t k = 0; k < rc->class_count; k++)
        if (strcmp(rc->classes[k], name) == 0) {
            *out = (uint8_t)k;
            return true;
        }
    if (rc->class_count == RS_PROTO_MAX_CLASSES)
        return false;
    rc->classes[rc->class_count] = name;
    *out = (uint8_t)rc->class_count++;
    return true;
}

/* Room r's offered cars (loaded), classes and entries. */
static rs_status load_room_cars(rs_server *srv, const rs_cfg_room *r, room_content *rc,
                                char *err, size_t err_len)
{
    rc->class_count = 0;
    uint32_t classed = 0;
    for (uint32_t k = 0; k < r->car_count; k++)
        classed += r->cars[k].class_name[0] != 0;
    if (classed && classed != r->car_count) {
        snprintf(err, err_len, "room %s: cars: give every car a class, or none", r->name);
        return RS_ERR_RANGE;
    }
    for (uint32_t k = 0; k < r->car_count; k++) {
        rs_room_car_offer *o = &rc->offers[k];
        if (!(o->params = get_car(srv, r->cars[k].path, err, err_len)))
            return RS_ERR_IO;
        if (!class_of(rc, r->cars[k].class_name, &o->class_index)) {
            snprintf(err, err_len, "room %s: cars: more than %u classes", r->name,
                     (unsigned)RS_PROTO_MAX_CLASSES);
            return RS_ERR_RANGE;
        }
        o->ballast_kg = r->cars[k].ballast_kg;
        o->restrictor_pct = r->cars[k].restrictor_pct;
    }
    for (uint32_t k = 0; k < r->entry_count; k++) {
        const rs_cfg_entry *e = &r->entries[k];
        rc->entries[k] = (rs_room_entry){.name = e->player,
                                         .car = (uint8_t)rs_cfg_car_index(r, e->car),
                                         .number = (uint16_t)e->number,
                                         .bop = e->bop,
                                         .ballast_kg = e->ballast_kg,
                                         .restrictor_pct = e->restrictor_pct};
    }
    return RS_OK;
}

/* Loads every room's track and car (each file once). */
static rs_status load_room_content(rs_server *srv, const rs_server_config *cfg,
                                   room_content *content, char *err, size_t err_len)
{
    for (uint32_t i = 0; i < cfg->room_count; i++) {
        srv_track *t = get_track(srv, cfg->rooms[i].track, err, err_len);
        if (!t)
            return RS_ERR_IO;
        content[i].track = t->track;
        content[i].json = t->json;
        content[i].json_len = t->json_len;
        const rs_cfg_room *r = &cfg->rooms[i];
        if (!(content[i].car = get_car(srv, r->car_count ? r->cars[0].path : r->car, err,
                                       err_len)))
            return RS_ERR_IO;
        rs_status st = load_room_cars(srv, r, &content[i], err, err_len);
        if (st != RS_OK)
            return st;
    }
    return RS_OK;
}

/* Room i's settings: the configuration in ticks, and the services' hooks
 * when there is a database. */
/* Every room's observer: the watcher's log lines, then the HTTP side's
 * live timing and feed. */
static void on_room_event(void *ctx, rs_room *room, const rs_room_event *ev)
{
    rs_server *srv = ctx;
    pthread_mutex_lock(&srv->watch_lock);
    rs_room_observer w = rs_server_watch_observer(srv->watch);
    w.event(w.ctx, room, ev);
    /* rooms[i].room and room_count are set before any worker starts */
    for (uint32_t i = 0; srv->http && i < srv->room_count; i++)
        if (srv->rooms[i].room == room) {
            srv_http_room_event(srv->http, i, room, ev);
            break;
        }
    pthread_mutex_unlock(&srv->watch_lock);
}

static rs_room_config room_config(rs_server *srv, uint32_t i, const room_content *content)
{
    const rs_server_config *cfg = &srv->cfg;
    const rs_cfg_room *r = &cfg->rooms[i];
    rs_room_config rc = rs_room_config_at(cfg->tick_hz);
    rc.track = content->track;
    rc.track_json = content->json;
    rc.track_json_len = content->json_len;
    rc.car = content->car;
    rc.room_id = i;
    rc.lobby_ticks = r->lobby_s * cfg->tick_hz;
    rc.countdown_ticks = r->countdown_s * cfg->tick_hz;
    rc.finish_timeout_ticks = r->finish_timeout_s * cfg->tick_hz;
    rc.load_wait_ticks = r->load_wait_s * cfg->tick_hz;
    rc.laps = r->laps;
    rc.sessions = r->sessions;
    rc.session_count = r->session_count;
    rc.cars = content->offers;
    rc.car_count = r->car_count;
    rc.classes = content->classes;
    rc.class_count = content->class_count;
    rc.entries = content->entries;
    rc.entry_count = r->entry_count;
    rc.entries_only = r->entries_only;
    rc.race_control = r->race_control;
    rc.chat = r->chat;
    rc.votes = r->votes;
    rc.free_start = r->race_control.jump_start.penalty_s > 0; /* a start to jump */
    rc.max_players = r->max_players;
    rc.start_players = r->start_players;
    rc.spectator_slots = r->spectators;
    rc.password = r->password;
    rc.name = r->name;
    const rs_cfg_championship *ch = rs_cfg_room_championship(cfg, r->name);
    rc.championship = ch ? ch->name : NULL;
    if (srv->services) {
        rc.hooks = rs_services_hooks(srv->services);
        rc.defer_laps = true;
    }
    rc.observer = (rs_room_observer){.ctx = srv, .event = on_room_event};
    return rc;
}

static rs_status create_rooms(rs_server *srv, const room_content *content, char *err,
                              size_t err_len)
{
    for (uint32_t i = 0; i < srv->cfg.room_count; i++) {
        rs_room_config rc = room_config(srv, i, &content[i]);
        char rerr[256];
        rs_status st = rs_room_create(&rc, &srv->rooms[i].room, rerr, sizeof rerr);
        if (st != RS_OK) {
            const rs_cfg_room *r = &srv->cfg.rooms[i];
            rs_errf(err, err_len, "rooms[%u] (%s, track %s): %s", (unsigned)i, r->name, r->track,
                    rerr);
            return st;
        }
        srv->rooms[i].due_us = rs_clock_us(); /* the first update is due at once */
        srv->room_count++;
    }
    return RS_OK;
}

static srv_peer *find_peer(rs_server *srv, uint32_t id);

/* A connection's address for the watcher's lines: the copy kept at its
 * CONNECT, not ENet's (a worker's room may report an event while the
 * network thread is inside ENet). Called with watch_lock held. */
static void peer_address(void *ctx, uint32_t peer, char *out, size_t cap)
{
    rs_server *srv = ctx;
    const srv_peer *p = find_peer(srv, peer);
    snprintf(out, cap, "%s", p ? p->address : "");
}

/* What the kernel granted for the socket's receive buffer, and a warning
 * when it capped the request (the kernel counts its own bookkeeping too,
 * so a full grant shows as twice what was asked). */
static void log_socket_buffer(rs_server *srv, uint32_t asked_kib)
{
    rs_net_stats ns;
    rs_net_get_stats(srv->net, &ns);
    if (ns.socket_buffer_kib == 0)
        return;
    if (ns.socket_buffer_kib < asked_kib)
        rs_logf(RS_LOG_WARN,
                "network: the kernel gave the socket a receive buffer of %u KiB, not the %u "
                "asked: datagrams that arrive while it is full are lost (drop_socket_full); "
                "raise net.core.rmem_max, or give raceserver CAP_NET_ADMIN",
                (unsigned)ns.socket_buffer_kib, (unsigned)asked_kib);
    else
        rs_logf(RS_LOG_INFO, "network: socket receive buffer %u KiB",
                (unsigned)ns.socket_buffer_kib);
}

rs_status rs_server_create(const rs_server_config *cfg, rs_server **out, char *err,
                           size_t err_len)
{
    *out = NULL;
    rs_status st = RS_ERR_NOMEM;
    rs_server *srv = calloc(1, sizeof *srv);
    if (!srv)
        return RS_ERR_NOMEM;
    srv->cfg = *cfg;
    pthread_mutex_init(&srv->watch_lock, NULL);
    srv->peer_cap = cfg->max_clients;
    srv->db_lock = -1;
    srv->peers = calloc(srv->peer_cap, sizeof *srv->peers);
    srv->packets = malloc(POLL_BATCH * sizeof *srv->packets);
    srv->closing = malloc(POLL_BATCH * sizeof *srv->closing);
    srv->msg = malloc(sizeof *srv->msg);
    rs_server_watch_def wd = {.max_peers = cfg->max_clients, .address = peer_address, .ctx = srv};
    srv->watch = rs_server_watch_create(&wd);
    if (!srv->peers || !srv->packets || !srv->closing || !srv->msg || !srv->watch)
        goto fail;

    /* Tracks and cars first: a bad file is the likeliest mistake. The
     * catalogue the services load may grow the track list afterwards: the
     * content keeps pointers to the tracks and texts, not into the list. */
    room_content *content = calloc(RS_CFG_MAX_ROOMS, sizeof *content);
    if (!content)
        goto fail;
    if ((st = load_room_content(srv, cfg, content, err, err_len)) == RS_OK &&
        (cfg->no_db || (st = open_services(srv, err, err_len)) == RS_OK)) {
        rs_server_watch_set_services(srv->watch, srv->services);
        st = create_rooms(srv, content, err, err_len);
    }
    free(content); /* the rooms copied what it pointed them to */
    if (st != RS_OK)
        goto fail;

    bool created = false;
    if ((st = rs_server_key_load(cfg->key_file, &srv->identity, &created, err, err_len)) != RS_OK)
        goto fail;
    char hex[65];
    rs_secure_key_to_hex(srv->identity.public_key, hex);
    rs_logf(RS_LOG_INFO, "server key %s: %s (public key %s)", created ? "created" : "loaded",
            cfg->key_file, hex);

    rs_net_config nc = rs_net_config_default();
    nc.bind_address = cfg->bind;
    nc.port = cfg->port;
    nc.max_clients = cfg->max_clients;
    nc.max_per_address = cfg->max_per_address;
    nc.identity = &srv->identity;
    nc.socket_buffer_kib = cfg->socket_buffer_kib;
    if ((st = rs_net_create(&nc, &srv->net, err, err_len)) != RS_OK)
        goto fail;
    log_socket_buffer(srv, cfg->socket_buffer_kib);
    if (cfg->http && (st = srv_http_create(cfg, srv->room_count, hex, &srv->http, err,
                                           err_len)) != RS_OK)
        goto fail;

    if ((st = start_workers(srv)) != RS_OK) {
        rs_errf(err, err_len, "cannot start the room workers");
        goto fail;
    }

    int64_t now = rs_clock_us();
    srv->stats_from_us = now;
    srv->stats_due_us = now + (int64_t)cfg->stats_interval_s * 1000000;
    srv->housekeeping_us = now + 1000000;
    srv->overload.late_ms = cfg->overload_late_ms;
    srv->overload.late_s = 3;
    srv->overload.calm_s = 5;
    /* Every room published before the first request: a room away on a
     * worker at a publication keeps its last one, and one never published
     * would be missing from the API (seen: /api/v1/rooms empty at start). */
    if (srv->http) {
        publish_http(srv, now);
        srv_http_set_ready(srv->http, true);
    }
    *out = srv;
    return RS_OK;
fail:
    rs_server_destroy(srv);
    return st;
}

void rs_server_destroy(rs_server *srv)
{
    if (!srv)
        return;
    bring_rooms_home(srv); /* the workers first: they are using the rooms */
    srv_http_destroy(srv->http); /* its threads read nothing of ours, but stop them first */
    rs_net_destroy(srv->net);
    rs_secure_wipe(&srv->identity, sizeof srv->identity);
    /* Rooms before the services whose hooks they call. */
    for (uint32_t i = 0; i < srv->room_count; i++)
        rs_room_destroy(srv->rooms[i].room);
    rs_services_destroy(srv->services);
    rs_server_watch_destroy(srv->watch);
    rs_db_lock_release(srv->db_lock);
    for (uint32_t i = 0; i < srv->room_count; i++)
        srv_inbox_free(&srv->rooms[i].inbox);
    for (uint32_t i = 0; i < srv->track_count; i++) {
        rs_track_destroy(srv->tracks[i].track);
        free(srv->tracks[i].json);
    }
    free(srv->tracks);
    for (uint32_t i = 0; i < srv->car_count; i++)
        rs_car_params_destroy(srv->cars[i].car);
    free(srv->peers);
    free(srv->packets);
    free(srv->closing);
    free(srv->msg);
    free(srv->tick_ms.v);
    free(srv->late_ms.v);
    pthread_mutex_destroy(&srv->watch_lock);
    free(srv);
}

uint16_t rs_server_http_port(const rs_server *srv)
{
    return srv->http ? srv_http_port(srv->http) : 0;
}

uint16_t rs_server_port(const rs_server *srv)
{
    return rs_net_port(srv->net);
}

void rs_server_public_key(const rs_server *srv, char hex[65])
{
    rs_secure_key_to_hex(srv->identity.public_key, hex);
}

uint32_t rs_server_room_count(const rs_server *srv)
{
    return srv->room_count;
}

rs_room *rs_server_room(rs_server *srv, uint32_t index)
{
    if (index >= srv->room_count)
        return NULL;
    settle_room(srv, index); /* the caller will call into it */
    return srv->rooms[index].room;
}

uint64_t rs_server_dropped(const rs_server *srv)
{
    return srv->dropped;
}

void rs_server_net_stats(rs_server *srv, rs_net_stats *out)
{
    rs_net_get_stats(srv->net, out);
}

/* -------------------------------------------------------------- routing */

static srv_peer *find_peer(rs_server *srv, uint32_t id)
{
    srv_peer *p = &srv->peers[(id & 0xfffu) % srv->peer_cap];
    return p->id == id ? p : NULL;
}

static void send_msg(rs_server *srv, uint32_t peer, const rs_msg *msg)
{
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    uint8_t ch = 0;
    bool rel = true;
    if (rs_proto_encode(msg, buf, sizeof buf, &len, NULL) != RS_PROTO_OK ||
        !rs_proto_msg_info(msg->type, &ch, &rel, NULL))
        return;
    rs_net_send(srv->net, peer, ch, rel, buf, len);
}

static int32_t room_by_name(const rs_server *srv, const char *name)
{
    if (!name[0])
        return 0; /* "" = the first (default) room */
    for (uint32_t i = 0; i < srv->room_count; i++)
        if (strcmp(srv->cfg.rooms[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

/* A client's string made safe for one log line (no control characters, so
 * nobody can forge lines). */
static void log_safe(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

/* Closes a connection that broke the rules (why says which, for the log):
 * ENet says goodbye once its queued packets are out, its DISCONNECT reaches
 * its room as any other, and what it sends until then is dropped and
 * counted. */
static void close_abusive(rs_server *srv, srv_peer *p, const char *why)
{
    char addr[32];
    rs_net_peer_address(srv->net, p->id, addr, sizeof addr);
    rs_logf(RS_LOG_INFO, "%s: closed: %s", addr, why);
    p->closing = true;
    rs_net_disconnect_later(srv->net, p->id);
}

/* The first message of a connection picks its room. */
static void route_first(rs_server *srv, srv_peer *p, const rs_net_event *ev, int64_t now)
{
    rs_msg *m = srv->msg;
    char addr[32];
    rs_net_peer_address(srv->net, p->id, addr, sizeof addr);
    rs_proto_status ps = rs_proto_decode(ev->data, ev->len, m, NULL);
    int32_t room = -1;
    if (ps == RS_PROTO_BAD_VERSION) {
        room = 0; /* any room answers another version in words */
    } else if (ps == RS_PROTO_OK && m->type == RS_MSG_HELLO) {
        room = room_by_name(srv, m->u.hello.room);
        if (room < 0) {
            char name[RS_PROTO_NAME_MAX + 1], player[RS_PROTO_NAME_MAX + 1];
            snprintf(name, sizeof name, "%s", m->u.hello.room);
            snprintf(player, sizeof player, "%s", m->u.hello.name);
            log_safe(name);
            memset(m, 0, sizeof *m);
            m->type = RS_MSG_REFUSE;
            m->u.refuse.reason = RS_REASON_NO_ROOM;
            snprintf(m->u.refuse.text, sizeof m->u.refuse.text,
                     "no room named '%s' on this server", name);
            send_msg(srv, p->id, m);
            rs_net_disconnect_later(srv->net, p->id);
            srv->dropped++;
            pthread_mutex_lock(&srv->watch_lock);
            if (srv->http)
                srv_http_refused(srv->http, RS_REASON_NO_ROOM);
            rs_server_watch_refused(srv->watch, p->id, addr, player, m->u.refuse.reason,
                                    m->u.refuse.text);
            pthread_mutex_unlock(&srv->watch_lock);
            return;
        }
    } else if (ps == RS_PROTO_OK && m->type == RS_MSG_BYE) {
        rs_net_disconnect_later(srv->net, p->id);
        return;
    }
    if (room < 0) {
        rs_logf(RS_LOG_DEBUG, "%s: dropped a message before HELLO (%s)", addr,
                rs_proto_status_str(ps));
        srv->dropped++;
        if (++p->pre_hello_drops > PRE_HELLO_DROP_LIMIT) {
            char why[64];
            snprintf(why, sizeof why, "%u messages before HELLO", (unsigned)p->pre_hello_drops);
            close_abusive(srv, p, why);
        }
        return;
    }
    p->room = room;
    rs_logf(RS_LOG_DEBUG, "%s: HELLO for room '%s'", addr, srv->cfg.rooms[room].name);
    deliver(srv, (uint32_t)room, SRV_IN_CONNECT, p->id, 0, NULL, 0, now);
    deliver(srv, (uint32_t)room, SRV_IN_RECEIVE, p->id, ev->channel, ev->data, ev->len, now);
}

static void handle_event(rs_server *srv, const rs_net_event *ev, int64_t now)
{
    srv_peer *p;
    switch (ev->type) {
    case RS_NET_EVENT_CONNECT:
        p = &srv->peers[(ev->peer & 0xfffu) % srv->peer_cap];
        pthread_mutex_lock(&srv->watch_lock); /* the watcher reads id and address */
        p->id = ev->peer;
        snprintf(p->address, sizeof p->address, "%s", ev->address);
        pthread_mutex_unlock(&srv->watch_lock);
        p->room = -1;
        p->connected_us = now;
        p->pre_hello_drops = 0;
        p->closing = false;
        rs_services_peer_connected(srv->services, ev->peer, ev->address);
        rs_logf(RS_LOG_INFO, "%s: connected (peer %u)", ev->address, (unsigned)ev->peer);
        break;
    case RS_NET_EVENT_RECEIVE:
        if (!(p = find_peer(srv, ev->peer)))
            break;
        if (p->closing)
            srv->dropped++; /* on its way out: nothing it sends counts */
        else if (p->room >= 0)
            deliver(srv, (uint32_t)p->room, SRV_IN_RECEIVE, p->id, ev->channel, ev->data,
                    ev->len, now);
        else
            route_first(srv, p, ev, now);
        break;
    case RS_NET_EVENT_DISCONNECT:
        if (!(p = find_peer(srv, ev->peer)))
            break;
        if (p->room >= 0)
            deliver(srv, (uint32_t)p->room, SRV_IN_DISCONNECT, p->id, 0, NULL, 0, now);
        rs_services_peer_gone(srv->services, p->id);
        rs_logf(RS_LOG_INFO, "%s: disconnected (peer %u)", ev->address, (unsigned)ev->peer);
        /* An away room may still name this peer in a line (LEFT on its
         * timeout): its address then reads "" and the watcher's own copy
         * from the admission is used. */
        pthread_mutex_lock(&srv->watch_lock);
        memset(p, 0, sizeof *p);
        pthread_mutex_unlock(&srv->watch_lock);
        break;
    default:
        break;
    }
}

/* Moves a room's queued packets to ENet and closes the peers it is done with. */
static void flush_room(rs_server *srv, rs_room *room)
{
    size_t n;
    while ((n = rs_room_poll(room, srv->packets, POLL_BATCH)) > 0) {
        for (size_t i = 0; i < n; i++) {
            const rs_room_packet *pk = &srv->packets[i];
            rs_net_send(srv->net, pk->peer, pk->channel, pk->reliable, pk->data, pk->len);
        }
        if (n < POLL_BATCH)
            break;
    }
    while ((n = rs_room_poll_closing(room, srv->closing, POLL_BATCH)) > 0) {
        for (size_t i = 0; i < n; i++)
            rs_net_disconnect_later(srv->net, srv->closing[i]);
        if (n < POLL_BATCH)
            break;
    }
}

/* ---------------------------------------------------------------- stats */

static void record_sample(rs_server *srv, srv_samples *s, double ms)
{
    if (srv->cfg.stats_interval_s == 0)
        return;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        double *t = realloc(s->v, cap * sizeof *t);
        if (!t)
            return; /* a missing sample only thins the statistics */
        s->v = t;
        s->cap = cap;
    }
    s->v[s->n++] = ms;
}

/* Sorts the samples and gives their median, 99th percentile and maximum. */
static void samples_summary(srv_samples *s, double *p50, double *p99, double *max)
{
    if (s->n > 1) /* qsort's pointer must not be NULL, even for 0 items */
        qsort(s->v, s->n, sizeof *s->v, rs_cmp_double);
    *p50 = rs_quantile_sorted(s->v, s->n, 0.50);
    *p99 = rs_quantile_sorted(s->v, s->n, 0.99);
    *max = s->n ? s->v[s->n - 1] : 0.0;
}

static void log_stats(rs_server *srv, int64_t now)
{
    uint32_t players = 0, spectators = 0;
    uint64_t dropped = srv->dropped - srv->dropped_reported, limited = 0;
    for (uint32_t i = 0; i < srv->room_count; i++) {
        if (!srv->rooms[i].away) /* else as its worker last saw it */
            rs_room_get_stats(srv->rooms[i].room, &srv->rooms[i].seen);
        const rs_room_stats rs = srv->rooms[i].seen;
        players += rs.players;
        spectators += rs.spectators;
        dropped += rs.dropped_messages - srv->rooms[i].last_dropped;
        srv->rooms[i].last_dropped = rs.dropped_messages;
        limited += rs.rate_limited - srv->rooms[i].last_limited;
        srv->rooms[i].last_limited = rs.rate_limited;
    }
    srv->dropped_reported = srv->dropped;
    rs_net_stats ns;
    rs_net_get_stats(srv->net, &ns);
    const rs_net_stats *o = &srv->net_reported;
    unsigned long long laps_recorded = 0, db_pending = 0, db_errors = 0;
    if (srv->services) {
        rs_services_stats ss;
        rs_services_get_stats(srv->services, &ss);
        laps_recorded = ss.laps_recorded;
        db_pending = ss.laps_pending;
        db_errors = ss.db_errors + ss.records_failed;
    }
    double p50, p99, max, late50, late99, late_max;
    samples_summary(&srv->tick_ms, &p50, &p99, &max);
    samples_summary(&srv->late_ms, &late50, &late99, &late_max);
    /* One field list for both formats: the text line is "stats {JSON}"
     * (loadtest and the tests parse it), the json line carries the same
     * fields at its top level. Every refusal reason of the transport is a
     * "drop_<reason>" count. */
    char drop_keys[RS_NET_DROP_COUNT][40];
    rs_log_field f[21 + RS_NET_DROP_COUNT + 4];
    size_t n = 0;
    f[n++] = rs_log_real("interval_s", (double)(now - srv->stats_from_us) / 1e6, 3);
    f[n++] = rs_log_uint("rooms", srv->room_count);
    f[n++] = rs_log_uint("players", players);
    f[n++] = rs_log_uint("spectators", spectators);
    f[n++] = rs_log_uint("connections", ns.peers_connected);
    f[n++] = rs_log_uint("ticks", srv->tick_ms.n);
    f[n++] = rs_log_real("tick_p50_ms", p50, 4);
    f[n++] = rs_log_real("tick_p99_ms", p99, 4);
    f[n++] = rs_log_real("tick_max_ms", max, 4);
    f[n++] = rs_log_real("tick_late_p50_ms", late50, 4);
    f[n++] = rs_log_real("tick_late_p99_ms", late99, 4);
    f[n++] = rs_log_real("tick_late_max_ms", late_max, 4);
    f[n++] = rs_log_uint("bytes_in", ns.bytes_in - o->bytes_in);
    f[n++] = rs_log_uint("bytes_out", ns.bytes_out - o->bytes_out);
    f[n++] = rs_log_uint("packets_in", ns.packets_in - o->packets_in);
    f[n++] = rs_log_uint("packets_out", ns.packets_out - o->packets_out);
    f[n++] = rs_log_uint("dropped", dropped);
    f[n++] = rs_log_uint("rate_limited", limited);
    f[n++] = rs_log_uint("cookies_issued", ns.cookies_issued - o->cookies_issued);
    f[n++] = rs_log_uint("handshakes", ns.handshakes - o->handshakes);
    for (int r = 0; r < RS_NET_DROP_COUNT; r++) {
        snprintf(drop_keys[r], sizeof drop_keys[r], "drop_%s", rs_net_drop_name((rs_net_drop)r));
        f[n++] = rs_log_uint(drop_keys[r], ns.drops[r] - o->drops[r]);
    }
    f[n++] = rs_log_uint("laps_recorded", laps_recorded);
    f[n++] = rs_log_uint("db_pending", db_pending);
    f[n++] = rs_log_uint("db_errors", db_errors);
    f[n++] = rs_log_bool("shedding", srv->overload.shedding);
    if (rs_log_get_format() == RS_LOG_JSON) {
        rs_log_event(RS_LOG_INFO, "stats", f, n, "stats");
    } else {
        char json[2048];
        rs_log_json_fields(json, sizeof json, f, n);
        rs_log_event(RS_LOG_INFO, "stats", NULL, 0, "stats %s", json);
    }
    srv->net_reported = ns;
    srv->tick_ms.n = 0;
    srv->late_ms.n = 0;
    srv->stats_from_us = now;
}

/* Every database failure is an ERROR line at once: the services count
 * them and keep the last one's message, which says what was lost (a lap not
 * announced as recorded, a result, a race's end) and why. */
static void log_db_failures(rs_server *srv)
{
    rs_services_stats ss;
    rs_services_get_stats(srv->services, &ss);
    uint64_t n = ss.db_errors + ss.records_failed;
    if (n == srv->db_failures_logged)
        return;
    char last[512];
    rs_services_last_error(srv->services, last, sizeof last);
    uint64_t others = n - srv->db_failures_logged - 1;
    if (others)
        rs_logf(RS_LOG_ERROR, "database: %s (and %llu other failures since the last line)", last,
                (unsigned long long)others);
    else
        rs_logf(RS_LOG_ERROR, "database: %s", last);
    srv->db_failures_logged = n;
}

/* Once a second: the overload rule's verdict (overload.h), and connections
 * that never sent a HELLO closed. */
static void housekeeping(rs_server *srv, int64_t now)
{
    if (srv_overload_second(&srv->overload)) {
        if (srv->overload.shedding)
            rs_logf(RS_LOG_WARN, "overload: for %u s over 1 %% of the ticks started more than "
                                 "%u ms late; new players are refused until they run on time "
                                 "for %u s",
                    (unsigned)srv->overload.late_s, (unsigned)srv->overload.late_ms,
                    (unsigned)srv->overload.calm_s);
        else
            rs_logf(RS_LOG_INFO, "overload: the ticks run on time again; new players are "
                                 "welcome");
    }
    for (uint32_t i = 0; i < srv->peer_cap; i++) {
        srv_peer *p = &srv->peers[i];
        if (p->id && p->room < 0 && now - p->connected_us > HELLO_TIMEOUT_US) {
            rs_net_disconnect_later(srv->net, p->id);
            p->connected_us = now; /* ask once more later if it lingers */
        }
    }
}

/* The HTTP side's live timing and metrics (it publishes ten times a second). */
static void publish_http(rs_server *srv, int64_t now)
{
    rs_room *rooms[RS_CFG_MAX_ROOMS];
    for (uint32_t i = 0; i < srv->room_count; i++) /* an away room keeps its last publication */
        rooms[i] = srv->rooms[i].away ? NULL : srv->rooms[i].room;
    /* The transport's figures only when they will be published: reading
     * them costs a system call (the kernel's drop count), and this runs
     * every step. */
    bool due = srv_http_publish_due(srv->http, now);
    rs_net_stats ns;
    memset(&ns, 0, sizeof ns);
    if (due)
        rs_net_get_stats(srv->net, &ns);
    /* The database's figures are read before the watch lock: the services'
     * own lock comes first (a hook holding it may report to the observer,
     * which takes the watch lock). */
    srv_db_figures db, *dbp = NULL;
    if (srv->services && due) {
        rs_services_get_stats(srv->services, &db.services);
        db.writer = rs_services_writer_stats(srv->services);
        dbp = &db;
    }
    pthread_mutex_lock(&srv->watch_lock); /* rooms' events change the live state it reads */
    srv_http_publish(srv->http, now, rooms, srv->room_count, &ns, dbp, srv->overload.shedding);
    pthread_mutex_unlock(&srv->watch_lock);
}

/* ------------------------------------------------------ rooms and workers */

/* One update of a room, on whichever thread owns it: times it and notes
 * what the network thread needs afterwards (ticks stepped, stats, the next
 * due time), all in the room's own srv_room. */
static void run_update(srv_room *sr)
{
    sr->t0_us = rs_clock_us();
    rs_room_update(sr->room, sr->update_now_us);
    sr->t1_us = rs_clock_us();
    rs_room_get_stats(sr->room, &sr->after);
    sr->stepped = sr->after.ticks - sr->last_ticks;
    sr->last_ticks = sr->after.ticks;
    sr->due_us = rs_room_next_due_us(sr->room, sr->update_now_us);
}

/* The tick samples of the update that just ended (network thread). */
static void record_update(rs_server *srv, uint32_t i)
{
    srv_room *sr = &srv->rooms[i];
    sr->seen = sr->after;
    uint64_t stepped = sr->stepped;
    if (stepped == 0)
        return;
    int64_t took_us = sr->t1_us - sr->t0_us;
    record_sample(srv, &srv->tick_ms, (double)took_us / 1000.0 / (double)stepped);
    if (srv->http)
        srv_http_ticks(srv->http, i, stepped, (double)took_us / 1e6 / (double)stepped);
    /* Lateness: what the loop's other work (events, requests, other rooms,
     * waiting for a free worker, a stall) cost each tick stepped. After a
     * stall the room catches up many ticks at once, each due a period
     * after the one before: every one of them counts, so a one-second
     * stall is sixty late ticks, not one. */
    int64_t period_us = 1000000 / (int64_t)srv->cfg.tick_hz;
    for (uint64_t k = 0; k < stepped; k++) {
        int64_t late_us = sr->t0_us - sr->was_due_us - (int64_t)k * period_us;
        srv_overload_tick(&srv->overload, late_us);
        record_sample(srv, &srv->late_ms, late_us > 0 ? (double)late_us / 1000.0 : 0.0);
        if (srv->http)
            srv_http_late(srv->http, late_us > 0 ? (double)late_us / 1e6 : 0.0);
    }
}

/* A worker's job: room n's update, then the room goes back (release: the
 * network thread's acquire sees everything the update wrote) and the
 * network thread wakes to send what it queued. */
static void room_job(void *ctx, uint32_t n)
{
    rs_server *srv = ctx;
    srv_room *sr = &srv->rooms[n];
    run_update(sr);
    atomic_store_explicit(&sr->done, true, memory_order_release);
    atomic_fetch_add_explicit(&srv->returned, 1, memory_order_relaxed);
    rs_net_wake(srv->net);
}

/* Room i's due update: on a worker when there are workers, else here. */
static void send_update(rs_server *srv, uint32_t i, int64_t now)
{
    srv_room *sr = &srv->rooms[i];
    sr->update_now_us = now;
    sr->was_due_us = sr->due_us;
    sr->away = srv->pool && srv_pool_submit(srv->pool, i);
    if (sr->away)
        return;
    run_update(sr);
    record_update(srv, i);
}

/* Room i is back from its worker (done was seen): what arrived meanwhile
 * reaches it now, in arrival order. */
static void take_back(rs_server *srv, uint32_t i)
{
    srv_room *sr = &srv->rooms[i];
    sr->away = false;
    atomic_store_explicit(&sr->done, false, memory_order_relaxed);
    record_update(srv, i);
    srv_inbox_replay(&sr->inbox, sr->room);
}

/* Waits for room i to be home: only for callers outside the loop
 * (rs_server_room: the console, the demo), never in a step. */
static void settle_room(rs_server *srv, uint32_t i)
{
    srv_room *sr = &srv->rooms[i];
    if (!sr->away)
        return;
    while (!atomic_load_explicit(&sr->done, memory_order_acquire))
        sched_yield(); /* an update takes well under a millisecond */
    take_back(srv, i);
}

/* Stops the workers (after the updates they hold) and takes every room
 * back: at shutdown and destroy. */
static void bring_rooms_home(rs_server *srv)
{
    srv_pool_destroy(srv->pool);
    srv->pool = NULL;
    for (uint32_t i = 0; i < srv->room_count; i++)
        settle_room(srv, i);
}

/* A connection, message or disconnection for room i: at once when the
 * room is home, else kept for it (room_inbox.h). Over the inbox's cap an
 * unreliable message is lost like a datagram; a reliable one breaks its
 * stream (ENet acknowledged it), so the peer that flooded the inbox is
 * closed. */
static void deliver(rs_server *srv, uint32_t i, uint8_t op, uint32_t peer, uint8_t channel,
                    const uint8_t *data, size_t len, int64_t now)
{
    srv_room *sr = &srv->rooms[i];
    if (!sr->away) {
        srv_inbound_apply(sr->room, op, peer, channel, data, len, now);
        return;
    }
    srv_inbox_overflow ov;
    switch (srv_inbox_push(&sr->inbox, op, peer, channel, data, len, now, &ov)) {
    case SRV_INBOX_KEPT:
        break;
    case SRV_INBOX_DROPPED:
        srv->dropped++;
        break;
    case SRV_INBOX_OVERFLOW: {
        srv->dropped += ov.dropped;
        srv_peer *p = find_peer(srv, ov.peer); /* NULL: gone already, its DISCONNECT kept */
        if (p && !p->closing)
            close_abusive(srv, p, "more messages at once than its room's inbox holds");
        break;
    }
    }
}

/* Whether a room is home (the services' question: they call into a room
 * only while it is; racesim/services.h). Asked on the network thread,
 * which alone sends rooms away and takes them back. */
static bool room_is_home(void *ctx, const rs_room *room)
{
    const rs_server *srv = ctx;
    for (uint32_t i = 0; i < srv->room_count; i++)
        if (srv->rooms[i].room == room)
            return !srv->rooms[i].away;
    return true; /* not one of ours */
}

/* The room workers, when they can help: more than one thread asked for
 * (one per core by default) and more than one room. The services' hooks
 * lock themselves, and what they owe a room on a worker waits for it to
 * come home. */
static rs_status start_workers(rs_server *srv)
{
    uint32_t n = srv->cfg.workers == RS_CFG_WORKERS_AUTO ? srv_pool_default_workers()
                                                         : srv->cfg.workers;
    if (n <= 1 || srv->room_count < 2)
        return RS_OK;
    if (srv->services)
        rs_services_set_home(srv->services, room_is_home, srv);
    rs_status st = srv_pool_create(n, srv->room_count, room_job, srv, &srv->pool);
    if (st == RS_OK) {
        srv->workers = n;
        rs_logf(RS_LOG_INFO, "workers: %u rooms step on %u threads", (unsigned)srv->room_count,
                (unsigned)n);
    }
    return st;
}

/* ----------------------------------------------------------------- loop */

void rs_server_step(rs_server *srv, int64_t max_wait_us)
{
    int64_t now = rs_clock_us();
    int64_t due = now + max_wait_us;
    for (uint32_t i = 0; i < srv->room_count; i++)
        if (!srv->rooms[i].away && srv->rooms[i].due_us < due)
            due = srv->rooms[i].due_us; /* an away room's worker wakes us (rs_net_wake) */
    if (srv->cfg.stats_interval_s && srv->stats_due_us < due)
        due = srv->stats_due_us;
    /* ENet waits in whole milliseconds: round up so a tick is never early
     * (being a fraction of a millisecond late is harmless: the room runs
     * every due tick). */
    int64_t wait_us = due - now;
    uint32_t wait_ms = wait_us <= 0 ? 0 : (uint32_t)((wait_us + 999) / 1000);

    /* Events until something is due: a burst of packets (a thousand
     * requests in one moment) then waits behind the ticks instead of
     * making them late; ENet keeps the rest for the next step. Except when
     * this thread itself is late by more than CATCH_UP_US (starved, or the
     * process stopped): the ticks are late anyway, and the rooms will
     * catch up on several at once, so the rest of what ENet has already
     * read is handled first, without reading the socket again, and the
     * INPUTs that came in time reach their rooms before the ticks they are
     * for. Always doing so made ticks on a server busy with requests late
     * (test_security: p99 2.7-5.1 ms against 1.5-1.9). */
    rs_net_event ev;
    int rc = rs_net_service(srv->net, wait_ms, &ev);
    for (int n = 1; rc > 0; n++) {
        int64_t t = rs_clock_us();
        handle_event(srv, &ev, t); /* every event taken from ENet is handled */
        if (n >= EVENTS_PER_STEP)
            break;
        /* A room back from its worker has packets waiting: it hurries
         * the step as a due tick does. ENet reads at most 256 datagrams in
         * one pass of its socket, so what a late step handles is bounded. */
        bool hurry = t >= due || atomic_load_explicit(&srv->returned, memory_order_relaxed);
        if (hurry && t - due < CATCH_UP_US)
            break;
        rc = hurry ? rs_net_service_queued(srv->net, &ev) : rs_net_service(srv->net, 0, &ev);
    }
    if (rc < 0)
        rs_logf(RS_LOG_WARN, "network: socket error while servicing");

    now = rs_clock_us();
    /* Reset before looking: a room done after its turn below counts for
     * the next step's events. */
    atomic_store_explicit(&srv->returned, 0, memory_order_relaxed);
    for (uint32_t i = 0; i < srv->room_count; i++) {
        srv_room *sr = &srv->rooms[i];
        if (sr->away) {
            if (!atomic_load_explicit(&sr->done, memory_order_acquire))
                continue; /* still on its worker: never waited for */
            take_back(srv, i);
            /* What its update queued goes out now, before it may leave
             * again: a room that is due whenever it comes back (a server
             * running late) would otherwise never be home at the flush
             * below, and its FRAMEs would pile up unsent (seen: 64 rooms
             * sending nothing but ENet's acknowledgements). */
            flush_room(srv, sr->room);
        }
        if (sr->closed != srv->overload.shedding) {
            sr->closed = srv->overload.shedding;
            rs_room_set_open(sr->room, !sr->closed,
                             "the server is overloaded: try again in a minute");
        }
        /* The room says when its next tick is due; in the lobby that is
         * always a period ahead, so the server keeps its own schedule. */
        if (now >= sr->due_us)
            send_update(srv, i, now);
        if (!sr->away)
            flush_room(srv, sr->room);
    }
    /* Database acknowledgements become LAP flags as soon as they are in. */
    if (srv->services) {
        rs_services_poll(srv->services);
        log_db_failures(srv);
    }
    if (now >= srv->housekeeping_us) {
        housekeeping(srv, now);
        srv->housekeeping_us = now + 1000000;
    }
    if (srv->http)
        publish_http(srv, now);
    if (srv->cfg.stats_interval_s && now >= srv->stats_due_us) {
        log_stats(srv, now);
        srv->stats_due_us = now + (int64_t)srv->cfg.stats_interval_s * 1000000;
    }
}

void rs_server_run(rs_server *srv, volatile sig_atomic_t *stop)
{
    while (!*stop)
        rs_server_step(srv, 100000); /* wake at least every 100 ms to look at *stop */
}

/* Names the races the shutdown cuts short (rs_services_shutdown stores
 * them: stopped, or abandoned before lights out). */
static void log_races_stopped(const rs_server *srv)
{
    for (uint32_t i = 0; i < srv->room_count; i++)
        rs_server_watch_race_stopped(srv->watch, srv->rooms[i].room);
}

void rs_server_shutdown(rs_server *srv)
{
    if (srv->shut_down)
        return;
    srv->shut_down = true;
    if (srv->http)
        srv_http_set_ready(srv->http, false); /* /readyz: take us out of rotation */
    bring_rooms_home(srv);
    for (uint32_t i = 0; i < srv->room_count; i++) {
        rs_room_close_all(srv->rooms[i].room, RS_REASON_SHUTDOWN, "server shutting down");
        flush_room(srv, srv->rooms[i].room);
    }
    /* Connections still waiting for their HELLO get a BYE from us. */
    rs_msg bye;
    memset(&bye, 0, sizeof bye);
    bye.type = RS_MSG_BYE;
    bye.u.bye.reason = RS_REASON_SHUTDOWN;
    snprintf(bye.u.bye.text, sizeof bye.u.bye.text, "server shutting down");
    for (uint32_t i = 0; i < srv->peer_cap; i++)
        if (srv->peers[i].id && srv->peers[i].room < 0)
            send_msg(srv, srv->peers[i].id, &bye);
    rs_net_disconnect_all_later(srv->net);
    rs_net_flush(srv->net);
    /* Let the BYEs be acknowledged (ENet resends reliable packets), but do
     * not hang on peers that are gone. */
    int64_t until = rs_clock_us() + SHUTDOWN_LINGER_US;
    rs_net_event ev;
    rs_net_stats ns;
    rs_net_get_stats(srv->net, &ns);
    while (ns.peers_connected > 0 && rs_clock_us() < until) {
        if (rs_net_service(srv->net, 10, &ev) > 0 && ev.type == RS_NET_EVENT_DISCONNECT)
            handle_event(srv, &ev, rs_clock_us());
        rs_net_get_stats(srv->net, &ns);
    }
    if (srv->services) {
        log_races_stopped(srv);
        /* Stores each running race's classification so far (status
         * stopped) and waits until the writer has committed every record. */
        size_t left = rs_services_shutdown(srv->services, 5000);
        log_db_failures(srv);
        if (left)
            rs_logf(RS_LOG_ERROR, "database: %zu records could not be written before exit",
                   left);
        else
            rs_logf(RS_LOG_INFO, "database: every record written");
    }
    /* The HTTP side answered until now (the page sees the race stopped);
     * its connections close with it. */
    srv_http_destroy(srv->http);
    srv->http = NULL;
}
