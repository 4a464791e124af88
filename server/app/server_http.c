/*
 * The tick loop's side of the HTTP server (server_http.h): live timing,
 * the live feed and metrics, gathered on the tick thread and handed to
 * rs_http as copies.
 */
#include "server_http.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "racesim/base/text.h"
#include "racesim/http.h"
#include "racesim/protocol.h"
#include "racesim/standings.h"
#include "racesim/track.h"

#define PUBLISH_US 100000 /* ten times a second */
#define OUTLINE_STEP_M 4.0

/* What one room's live timing remembers between publications. */
typedef struct live_room {
    rs_standings *board;
    const rs_world *world;    /* the world the board was fed from */
    uint64_t last_tick;
    uint8_t last_phase;
    uint32_t last_race;
    bool phase_known;
    /* The session the last "session" feed event told of. */
    uint32_t last_session_race;
    bool last_chequered;
    uint64_t outline_hash;    /* the outline published for this room's track; 0 none */
    /* The lap in progress of each car: sectors so far. */
    uint32_t sector_count[RS_HTTP_MAX_CARS];
    int64_t sectors_us[RS_HTTP_MAX_CARS][RS_MAX_SECTORS];
    bool last_lap_valid[RS_HTTP_MAX_CARS];
    /* Metrics. */
    uint64_t tick_buckets[RS_HTTP_TICK_BUCKETS];
    double tick_seconds_sum;
} live_room;

struct srv_http {
    rs_http *http;
    uint32_t room_count;
    live_room rooms[RS_CFG_MAX_ROOMS];
    int64_t next_publish_us;
    uint64_t late_buckets[RS_HTTP_TICK_BUCKETS];
    double late_seconds_sum;
    uint64_t refusals[RS_REASON_COUNT];
    rs_http_room scratch;     /* one room being filled (large) */
    rs_room_results_info results; /* its classification as it stands (large) */
};

static void http_log(void *ctx, int level, const char *text)
{
    (void)ctx;
    rs_logf(level == RS_HTTP_LOG_ERROR  ? RS_LOG_ERROR
            : level == RS_HTTP_LOG_WARN ? RS_LOG_WARN
                                        : RS_LOG_INFO,
            "%s", text);
}

rs_status srv_http_create(const rs_server_config *cfg, uint32_t room_count,
                          const char *public_key_hex, srv_http **out, char *err, size_t err_len)
{
    *out = NULL;
    srv_http *h = calloc(1, sizeof *h);
    if (!h)
        return RS_ERR_NOMEM;
    h->room_count = room_count;
    for (uint32_t i = 0; i < room_count; i++)
        if (!(h->rooms[i].board = rs_standings_create(RS_HTTP_MAX_CARS))) {
            srv_http_destroy(h);
            return RS_ERR_NOMEM;
        }
    rs_http_def def = rs_http_default();
    def.bind = cfg->http_bind;
    def.port = cfg->http_port;
    def.db_path = cfg->no_db ? NULL : cfg->db;
    def.web_root = cfg->web_root[0] ? cfg->web_root : NULL;
    def.max_connections = cfg->http_max_connections;
    def.max_per_address = cfg->http_max_per_address;
    if (def.max_per_address > def.max_connections)
        def.max_per_address = def.max_connections;
    if (def.feed_clients > def.max_connections)
        def.feed_clients = def.max_connections;
    def.requests_per_s = cfg->http_requests_per_s;
    def.info.version = RS_VERSION;
    def.info.protocol_version = RS_PROTO_VERSION;
    def.info.physics_version = RS_PHYSICS_VERSION;
    def.info.tick_hz = cfg->tick_hz;
    def.info.public_key_hex = public_key_hex;
    def.log = http_log;
    rs_status st = rs_http_start(&def, &h->http, err, err_len);
    if (st != RS_OK) {
        srv_http_destroy(h);
        return st;
    }
    *out = h;
    return RS_OK;
}

void srv_http_destroy(srv_http *h)
{
    if (!h)
        return;
    rs_http_stop(h->http);
    for (uint32_t i = 0; i < RS_CFG_MAX_ROOMS; i++)
        rs_standings_destroy(h->rooms[i].board);
    free(h);
}

uint16_t srv_http_port(const srv_http *h)
{
    return rs_http_port(h->http);
}

void srv_http_set_ready(srv_http *h, bool ready)
{
    rs_http_set_ready(h->http, ready);
}

static void count(uint64_t *buckets, double seconds, uint64_t n)
{
    uint32_t b = 0;
    while (b + 1 < RS_HTTP_TICK_BUCKETS && seconds > rs_http_tick_bucket_s(b))
        b++;
    buckets[b] += n;
}

void srv_http_ticks(srv_http *h, uint32_t room, uint64_t stepped, double seconds_each)
{
    live_room *lr = &h->rooms[room];
    count(lr->tick_buckets, seconds_each, stepped);
    lr->tick_seconds_sum += seconds_each * (double)stepped;
}

void srv_http_late(srv_http *h, double seconds)
{
    count(h->late_buckets, seconds, 1);
    h->late_seconds_sum += seconds;
}

void srv_http_refused(srv_http *h, uint8_t reason)
{
    h->refusals[reason < RS_REASON_COUNT ? reason : RS_REASON_OTHER]++;
}

/* ------------------------------------------------------------ the feed */

/* Appends "," + a JSON number array of len values to a buffer. */
static size_t put_sectors(char *buf, size_t cap, size_t n, const int64_t *us, uint32_t count)
{
    n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "[");
    for (uint32_t i = 0; i < count && i < RS_MAX_SECTORS; i++) {
        if (us[i] < 0)
            n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%snull", i ? "," : "");
        else
            n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%lld", i ? "," : "",
                                  (long long)us[i]);
    }
    n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "]");
    return n;
}

static void push(srv_http *h, uint32_t room, const char *event, const char *json, size_t n,
                 size_t cap)
{
    if (n < cap)
        rs_http_feed_push(h->http, room, event, json, n);
}

/* The world's events of this tick into the feed and the lap-in-progress sectors. */
static void feed_events(srv_http *h, uint32_t index, rs_room *room, const rs_world *world)
{
    live_room *lr = &h->rooms[index];
    size_t count = 0;
    const rs_event *ev = rs_world_events(world, &count);
    const char *rn = rs_room_name(room); /* validated at creation: no quotes or controls */
    for (size_t i = 0; i < count; i++) {
        const rs_event *e = &ev[i];
        char j[1024];
        size_t n = 0, cap = sizeof j;
        uint32_t c = e->car >= 1 && e->car <= RS_HTTP_MAX_CARS ? e->car - 1u : 0;
        switch (e->type) {
        case RS_EVENT_SECTOR:
            if (e->car >= 1 && e->car <= RS_HTTP_MAX_CARS && e->sector < RS_MAX_SECTORS) {
                if (e->sector == 0) { /* a new lap: its sectors come one by one */
                    lr->sector_count[c] = 0;
                    for (uint32_t k = 0; k < RS_MAX_SECTORS; k++)
                        lr->sectors_us[c][k] = -1;
                }
                lr->sectors_us[c][e->sector] = e->duration_us;
                if (lr->sector_count[c] < e->sector + 1)
                    lr->sector_count[c] = e->sector + 1;
            }
            n = (size_t)snprintf(j, cap, "{\"room\":\"%s\",\"car\":%u,\"lap\":%u,\"sector\":%u,"
                                 "\"sector_us\":%lld,\"race_time_us\":%lld}", rn,
                                 (unsigned)e->car, (unsigned)e->lap, (unsigned)e->sector,
                                 (long long)e->duration_us, (long long)e->time_us);
            push(h, index, "sector", j, n, cap);
            break;
        case RS_EVENT_LAP:
            if (e->car >= 1 && e->car <= RS_HTTP_MAX_CARS)
                lr->last_lap_valid[c] = e->valid;
            n = (size_t)snprintf(j, cap, "{\"room\":\"%s\",\"car\":%u,\"lap\":%u,\"lap_us\":%lld,"
                                 "\"valid\":%s,\"race_time_us\":%lld,\"sectors_us\":", rn,
                                 (unsigned)e->car, (unsigned)e->lap, (long long)e->duration_us,
                                 e->valid ? "true" : "false", (long long)e->time_us);
            n = put_sectors(j, cap, n, e->sectors_us, e->sector_count);
            n += (size_t)snprintf(j + n, n < cap ? cap - n : 0, "}");
            push(h, index, "lap", j, n, cap);
            break;
        case RS_EVENT_LAP_INVALID:
            n = (size_t)snprintf(j, cap, "{\"room\":\"%s\",\"car\":%u,\"lap\":%u,\"reason\":%u}",
                                 rn, (unsigned)e->car, (unsigned)e->lap, (unsigned)e->reason);
            push(h, index, "lap_invalid", j, n, cap);
            break;
        case RS_EVENT_FINISH:
            n = (size_t)snprintf(j, cap, "{\"room\":\"%s\",\"car\":%u,\"position\":%u,"
                                 "\"race_time_us\":%lld}", rn, (unsigned)e->car,
                                 (unsigned)e->position, (long long)e->time_us);
            push(h, index, "finish", j, n, cap);
            break;
        case RS_EVENT_BARRIER_HIT:
        case RS_EVENT_CAR_HIT:
            n = (size_t)snprintf(j, cap, "{\"room\":\"%s\",\"car\":%u,\"other\":%u,"
                                 "\"barrier\":%s,\"speed\":%.2f,\"x\":%.2f,\"y\":%.2f,"
                                 "\"race_time_us\":%lld}", rn, (unsigned)e->car,
                                 (unsigned)e->other,
                                 e->type == RS_EVENT_BARRIER_HIT ? "true" : "false",
                                 e->speed_m_s, e->point_m[0], e->point_m[1],
                                 (long long)e->time_us);
            push(h, index, "hit", j, n, cap);
            break;
        default:
            break;
        }
    }
}

static void stepped(srv_http *h, uint32_t index, rs_room *room, const rs_world *world)
{
    if (!world)
        return;
    live_room *lr = &h->rooms[index];
    if (lr->world != world || rs_world_tick(world) < lr->last_tick) {
        /* A new race world: its crossings start from nothing. */
        rs_standings_reset(lr->board);
        memset(lr->sector_count, 0, sizeof lr->sector_count);
        memset(lr->last_lap_valid, 0, sizeof lr->last_lap_valid);
        lr->world = world;
    }
    lr->last_tick = rs_world_tick(world);
    rs_standings_observe(lr->board, world);
    feed_events(h, index, room, world);
}

/* Who came and went, for the page's messages. Names are the protocol's
 * (validated: no quotes, backslashes or control characters). */
static void push_presence(srv_http *h, uint32_t index, rs_room *room, const rs_room_event *ev)
{
    char j[256];
    int n = snprintf(j, sizeof j, "{\"room\":\"%s\",\"name\":\"%s\",\"car\":%u,"
                     "\"spectator\":%s}", rs_room_name(room), ev->name ? ev->name : "",
                     (unsigned)ev->car, ev->spectator ? "true" : "false");
    if (n > 0 && (size_t)n < sizeof j)
        rs_http_feed_push(h->http, index, ev->type == RS_ROOM_EV_JOINED ? "join" : "leave", j,
                          (size_t)n);
}

void srv_http_room_event(srv_http *h, uint32_t index, rs_room *room, const rs_room_event *ev)
{
    if (!h || index >= h->room_count)
        return;
    switch (ev->type) {
    case RS_ROOM_EV_STEPPED: stepped(h, index, room, ev->world); break;
    case RS_ROOM_EV_REFUSED: srv_http_refused(h, ev->reason); break;
    case RS_ROOM_EV_JOINED:
    case RS_ROOM_EV_LEFT: push_presence(h, index, room, ev); break;
    default: break;
    }
}

/* ------------------------------------------------------------ publishing */

/* The track's centre line every few metres with its widths, and the timing
 * lines: what the page draws the map from. */
static void publish_outline(srv_http *h, const rs_track *track)
{
    double len = rs_track_length(track);
    uint32_t n = (uint32_t)(len / OUTLINE_STEP_M) + 1;
    if (n > 20000)
        n = 20000;
    size_t cap = 256 + (size_t)n * 64 + 64 * 128;
    char *j = malloc(cap);
    if (!j)
        return;
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)rs_track_hash(track));
    size_t o = (size_t)snprintf(j, cap, "{\"hash\":\"%s\",\"name\":\"", hex);
    for (const char *p = rs_track_name(track); *p && o + 8 < cap; p++) /* a name from a file */
        if ((unsigned char)*p >= 0x20 && *p != '"' && *p != '\\')
            j[o++] = *p;
    o += (size_t)snprintf(j + o, cap - o, "\",\"length_m\":%.3f,\"points\":[", len);
    for (uint32_t i = 0; i < n && o < cap; i++) {
        rs_track_sample s;
        rs_track_sample_at(track, len * (double)i / (double)n, &s);
        o += (size_t)snprintf(j + o, o < cap ? cap - o : 0, "%s[%.2f,%.2f,%.4f,%.2f,%.2f]",
                              i ? "," : "", s.x_m, s.y_m, s.heading_rad, s.width_left_m,
                              s.width_right_m);
    }
    o += (size_t)snprintf(j + o, o < cap ? cap - o : 0, "],\"lines\":[");
    uint32_t lines = rs_track_line_count(track);
    for (uint32_t i = 0; i < lines && i < 64 && o < cap; i++) {
        rs_track_line l;
        if (rs_track_line_at(track, i, &l))
            o += (size_t)snprintf(j + o, o < cap ? cap - o : 0, "%s[%.2f,%.2f,%.2f,%.2f]",
                                  i ? "," : "", l.a_m[0], l.a_m[1], l.b_m[0], l.b_m[1]);
    }
    o += (size_t)snprintf(j + o, o < cap ? cap - o : 0, "]}");
    if (o < cap)
        rs_http_publish_outline(h->http, rs_track_hash(track), j, o);
    free(j);
}

/* Car's penalties of the running session (rs_room_penalties: given, then
 * perhaps removed): the time penalties and disqualifications, then as many
 * of its newest warnings as fit, each in the order given. */
static void fill_penalties(rs_room *room, uint8_t car, rs_http_entry *e)
{
    size_t n = 0;
    const rs_msg_penalty *log = rs_room_penalties(room, &n);
    uint32_t warnings = 0, others = 0;
    for (size_t i = 0; i < n; i++)
        if (log[i].car == car && !log[i].removed)
            *(log[i].kind == RS_PENALTY_WARNING ? &warnings : &others) += 1;
    uint32_t room_left = others < RS_HTTP_MAX_PENALTIES ? RS_HTTP_MAX_PENALTIES - others : 0;
    uint32_t skip = warnings > room_left ? warnings - room_left : 0; /* the oldest warnings */
    e->penalty_count = 0;
    for (size_t i = 0; i < n; i++) {
        const rs_msg_penalty *p = &log[i];
        if (p->car != car)
            continue;
        if (p->removed) {
            for (uint32_t k = 0; k < e->penalty_count; k++)
                if (e->penalties[k].id == p->id)
                    e->penalties[k].removed = true;
            continue;
        }
        if (p->kind == RS_PENALTY_WARNING && skip) {
            skip--;
            continue;
        }
        if (e->penalty_count == RS_HTTP_MAX_PENALTIES)
            continue;
        rs_http_penalty *hp = &e->penalties[e->penalty_count++];
        hp->id = p->id;
        hp->kind = p->kind;
        hp->offence = p->offence;
        hp->seconds = p->seconds;
        hp->removed = false;
        rs_str_cut(hp->text, sizeof hp->text, p->text);
    }
}

/* Who and what each car is, from the room's classification as it stands
 * (rs_room_results: class, number, stock car, status); live timing keeps
 * its own order. */
static void fill_car_info(const rs_room_results_info *res, rs_http_entry *e)
{
    for (uint32_t i = 0; i < res->count; i++) {
        const rs_room_result_row *row = &res->rows[i];
        if (row->row.car != e->car)
            continue;
        snprintf(e->class_name, sizeof e->class_name, "%s", row->class_name);
        snprintf(e->car_name, sizeof e->car_name, "%s", row->car_name);
        e->car_hash = row->base_hash;
        e->number = row->number;
        e->status = row->row.status == RS_DISQUALIFIED    ? RS_HTTP_DISQUALIFIED
                    : row->row.status == RS_NOT_CLASSIFIED ? RS_HTTP_NOT_CLASSIFIED
                                                           : RS_HTTP_CLASSIFIED;
        return;
    }
    e->status = RS_HTTP_NOT_CLASSIFIED;
}

/* Class positions from the live order the entries are in (by position), so
 * that they agree with the positions shown beside them. */
static void fill_class_positions(rs_http_room *out)
{
    for (uint32_t i = 0; i < out->entry_count; i++) {
        rs_http_entry *e = &out->entries[i];
        e->class_position = 1;
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(out->entries[k].class_name, e->class_name) == 0)
                e->class_position++;
    }
}

static void fill_entries(srv_http *h, live_room *lr, rs_room *room, rs_http_room *out)
{
    const rs_world *world = rs_room_world(room);
    out->entry_count = 0;
    if (!world || world != lr->world)
        return;
    rs_standing rows[RS_HTTP_MAX_CARS];
    uint32_t n = rs_standings_get(lr->board, world, rows, RS_HTTP_MAX_CARS);
    if (n > RS_HTTP_MAX_CARS)
        n = RS_HTTP_MAX_CARS;
    if (!rs_room_results(room, &h->results))
        h->results.count = 0;
    for (uint32_t i = 0; i < n; i++) {
        const rs_standing *s = &rows[i];
        rs_http_entry *e = &out->entries[out->entry_count++];
        memset(e, 0, sizeof *e);
        e->car = (uint8_t)s->car;
        const char *name = NULL;
        if (rs_room_car_driver(room, (uint8_t)s->car, &name, &e->player_id, &e->connected))
            snprintf(e->name, sizeof e->name, "%s", name);
        e->position = s->position;
        e->laps = s->laps_completed;
        e->laps_behind = s->laps_behind;
        e->gap_us = s->position == 1 ? -1 : s->laps_behind ? -1 : s->gap_us;
        e->interval_us = s->position == 1 ? -1 : s->interval_laps ? -1 : s->interval_us;
        e->last_lap_us = s->last_lap_us;
        e->best_lap_us = s->best_lap_us;
        e->finish_us = s->finish_us;
        e->finished = s->finish_us >= 0;
        uint32_t c = s->car >= 1 && s->car <= RS_HTTP_MAX_CARS ? s->car - 1u : 0;
        e->last_lap_valid = lr->last_lap_valid[c];
        e->sector_count = lr->sector_count[c];
        memcpy(e->sectors_us, lr->sectors_us[c], sizeof e->sectors_us);
        rs_car_id id = {s->car};
        rs_race_car_state rc;
        if (rs_world_race_state(world, id, &rc) == RS_OK) {
            e->barrier_hits = rc.barrier_hits;
            e->car_hits = rc.car_hits;
        }
        rs_car_state cs;
        if (rs_world_car_state(world, id, &cs) == RS_OK) {
            e->x = cs.pos_m[0];
            e->y = cs.pos_m[1];
            e->heading = cs.yaw_rad;
            e->speed = cs.speed_m_s;
        }
        fill_penalties(room, e->car, e);
        fill_car_info(&h->results, e);
    }
    fill_class_positions(out);
}

/* The weekend's sessions, where it is, and the room's classes and cars. */
static void fill_weekend(rs_room *room, rs_http_room *r)
{
    rs_room_session_info si;
    rs_room_session_state(room, &si);
    r->weekend = si.weekend;
    r->session_index = si.index;
    r->session_running = si.running;
    r->chequered = si.chequered;
    r->time_left_us = si.time_left_us;
    rs_proto_session_def d;
    for (r->session_count = 0; r->session_count < RS_HTTP_MAX_SESSIONS &&
                               rs_room_session_at(room, r->session_count, &d);
         r->session_count++) {
        rs_http_session *s = &r->sessions[r->session_count];
        s->type = d.type;
        s->laps = d.laps;
        s->time_limit_s = d.time_limit_s;
        s->grid_source = d.grid_source;
        s->grid_reverse = d.grid_reverse;
    }
    const char *cls;
    for (r->class_count = 0; r->class_count < RS_HTTP_MAX_CLASSES &&
                             (cls = rs_room_class_name(room, r->class_count));
         r->class_count++)
        snprintf(r->classes[r->class_count], sizeof r->classes[0], "%s", cls);
    const rs_car_params *car;
    uint8_t ci = 0;
    for (r->offer_count = 0; r->offer_count < RS_HTTP_MAX_OFFERED &&
                             (car = rs_room_offered_car(room, r->offer_count, &ci));
         r->offer_count++) {
        rs_http_offer *o = &r->offers[r->offer_count];
        snprintf(o->name, sizeof o->name, "%s", rs_car_params_name(car));
        o->hash = rs_car_params_hash(car);
        o->class_index = ci;
    }
}

/* "session": a session's world began, or its flag fell. */
static void push_session(srv_http *h, uint32_t index, const rs_http_room *r)
{
    live_room *lr = &h->rooms[index];
    bool began = r->session_running && lr->last_session_race != r->race_number;
    bool flag = r->session_running && r->chequered && !lr->last_chequered;
    lr->last_chequered = r->session_running && r->chequered;
    if (r->session_running)
        lr->last_session_race = r->race_number;
    if (!began && !flag)
        return;
    const rs_http_session *s = &r->sessions[r->session_index < r->session_count
                                                ? r->session_index : 0];
    char j[256];
    int n = snprintf(j, sizeof j, "{\"room\":\"%s\",\"weekend\":%u,\"index\":%u,"
                     "\"type\":\"%s\",\"race_number\":%u,\"flag\":\"%s\"}", r->name,
                     (unsigned)r->weekend, (unsigned)r->session_index,
                     rs_proto_session_type_name(s->type),
                     (unsigned)r->race_number,
                     r->chequered                 ? "chequered"
                     : r->phase == RS_PHASE_RACE ? "green"
                                                 : "none");
    if (n > 0 && (size_t)n < sizeof j)
        rs_http_feed_push(h->http, index, "session", j, (size_t)n);
}

/* {"room":..,"tick":..,"cars":[[car,x,y,heading,speed],..]} from the entries. */
static void push_positions(srv_http *h, uint32_t index, const rs_http_room *r)
{
    char j[4096];
    size_t cap = sizeof j;
    size_t n = (size_t)snprintf(j, cap, "{\"room\":\"%s\",\"tick\":%llu,\"race_time_us\":%lld,"
                                "\"cars\":[", r->name, (unsigned long long)r->tick,
                                (long long)r->race_time_us);
    for (uint32_t i = 0; i < r->entry_count; i++) {
        const rs_http_entry *e = &r->entries[i];
        n += (size_t)snprintf(j + n, n < cap ? cap - n : 0, "%s[%u,%.2f,%.2f,%.3f,%.1f]",
                              i ? "," : "", (unsigned)e->car, e->x, e->y, e->heading, e->speed);
    }
    n += (size_t)snprintf(j + n, n < cap ? cap - n : 0, "]}");
    push(h, index, "positions", j, n, cap);
}

static void publish_room(srv_http *h, uint32_t index, rs_room *room)
{
    live_room *lr = &h->rooms[index];
    rs_http_room *r = &h->scratch;
    memset(r, 0, offsetof(rs_http_room, entries));
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    snprintf(r->name, sizeof r->name, "%s", rs_room_name(room));
    r->phase = st.phase;
    r->race_number = st.race_number;
    r->tick = st.tick;
    const rs_world *world = rs_room_world(room);
    r->race_time_us = world ? rs_world_race_time_us(world) : 0;
    r->laps = rs_room_laps(room);
    r->players = st.players;
    r->spectators = st.spectators;
    r->max_players = st.max_players;
    r->spectator_slots = st.spectator_slots;
    const rs_track *track = rs_room_track(room, NULL, NULL);
    snprintf(r->track_name, sizeof r->track_name, "%s", rs_track_name(track));
    r->track_hash = rs_track_hash(track);
    const rs_car_params *car = rs_room_stock_car(room);
    snprintf(r->car_name, sizeof r->car_name, "%s", rs_car_params_name(car));
    r->car_hash = rs_car_params_hash(car);
    if (lr->outline_hash != r->track_hash) {
        publish_outline(h, track);
        lr->outline_hash = r->track_hash;
    }
    fill_weekend(room, r);
    fill_entries(h, lr, room, r);
    memcpy(r->tick_buckets, lr->tick_buckets, sizeof r->tick_buckets);
    r->tick_seconds_sum = lr->tick_seconds_sum;
    r->bytes_in = st.bytes_in;
    r->bytes_out = st.bytes_out;
    r->messages_in = st.packets_in;
    r->messages_out = st.packets_out;
    r->dropped_messages = st.dropped_messages;
    r->rate_limited = st.rate_limited;
    r->inputs_used = st.inputs_used;
    r->inputs_missing = st.inputs_missing;
    r->inputs_late = st.inputs_late;
    r->desync_reports = st.desync_reports;
    rs_http_publish_room(h->http, index, r);
    if (!lr->phase_known || lr->last_phase != r->phase || lr->last_race != r->race_number) {
        static const char *names[RS_PHASE_COUNT] = {"lobby", "countdown", "race", "results"};
        char j[256];
        int n = snprintf(j, sizeof j, "{\"room\":\"%s\",\"phase\":\"%s\",\"race_number\":%u}",
                         r->name, r->phase < RS_PHASE_COUNT ? names[r->phase] : "unknown",
                         (unsigned)r->race_number);
        if (n > 0 && (size_t)n < sizeof j)
            rs_http_feed_push(h->http, index, "phase", j, (size_t)n);
        lr->phase_known = true;
        lr->last_phase = r->phase;
        lr->last_race = r->race_number;
    }
    push_session(h, index, r);
    if (world && (r->phase == RS_PHASE_COUNTDOWN || r->phase == RS_PHASE_RACE ||
                  r->phase == RS_PHASE_RESULTS))
        push_positions(h, index, r);
}

static void publish_metrics(srv_http *h, const rs_net_stats *net, const srv_db_figures *db,
                            bool shedding)
{
    rs_http_metrics m;
    memset(&m, 0, sizeof m);
    m.shedding = shedding;
    m.udp_bytes_in = net->bytes_in;
    m.udp_bytes_out = net->bytes_out;
    m.udp_packets_in = net->packets_in;
    m.udp_packets_out = net->packets_out;
    m.connections = net->peers_connected;
    for (int r = 0; r < RS_NET_DROP_COUNT && m.drop_count < RS_HTTP_MAX_REASONS; r++) {
        m.drops[m.drop_count].reason = rs_net_drop_name((rs_net_drop)r);
        m.drops[m.drop_count++].count = net->drops[r];
    }
    for (int r = 1; r < RS_REASON_COUNT && m.refusal_count < RS_HTTP_MAX_REASONS; r++) {
        m.refusals[m.refusal_count].reason = rs_proto_reason_str((uint8_t)r);
        m.refusals[m.refusal_count++].count = h->refusals[r];
    }
    if (db) {
        const rs_services_stats *ss = &db->services;
        m.laps_recorded = ss->laps_recorded;
        m.records_failed = ss->records_failed;
        m.db_jobs = ss->jobs_pending;
        const rs_store_writer_stats *ws = &db->writer;
        m.db_queue = ws->queued;
        for (uint32_t i = 0; i < RS_HTTP_COMMIT_BUCKETS && i < RS_STORE_COMMIT_BUCKETS; i++)
            m.commit_buckets[i] = ws->commit_buckets[i];
        for (uint32_t i = 0; i + 1 < RS_HTTP_COMMIT_BUCKETS; i++)
            m.commit_bounds_s[i] = (double)rs_store_commit_bucket_us(i) / 1e6;
        m.commit_seconds_sum = (double)ws->commit_us_sum / 1e6;
    } else {
        for (uint32_t i = 0; i + 1 < RS_HTTP_COMMIT_BUCKETS; i++)
            m.commit_bounds_s[i] = (double)rs_store_commit_bucket_us(i) / 1e6;
    }
    memcpy(m.tick_late_buckets, h->late_buckets, sizeof m.tick_late_buckets);
    m.tick_late_seconds_sum = h->late_seconds_sum;
    rs_http_publish_metrics(h->http, &m);
}

bool srv_http_publish_due(const srv_http *h, int64_t now_us)
{
    return h && now_us >= h->next_publish_us;
}

void srv_http_publish(srv_http *h, int64_t now_us, rs_room *const *rooms, uint32_t room_count,
                      const rs_net_stats *net, const srv_db_figures *db, bool shedding)
{
    rs_http_heartbeat(h->http, now_us);
    if (now_us < h->next_publish_us)
        return;
    h->next_publish_us = now_us + PUBLISH_US;
    for (uint32_t i = 0; i < room_count && i < h->room_count; i++)
        if (rooms[i]) /* NULL: busy on a worker; its last publication stands */
            publish_room(h, i, rooms[i]);
    publish_metrics(h, net, db, shedding);
    /* One wake-up per feed client for this publication's positions and the
     * laps, sectors and hits of the ticks since the last one. */
    rs_http_feed_flush(h->http);
}
