/*
 * The live part of the JSON API (docs/openapi.json): the server's status,
 * the rooms with their live timing, and track outlines for the map. All
 * of it from the copies the tick loop published (http_state.c).
 */
#include <stdlib.h>
#include <string.h>

#include "http_internal.h"
#include "racesim/base/clock.h"
#include "racesim/protocol.h"

static const char *phase_name(uint8_t phase)
{
    static const char *names[RS_PHASE_COUNT] = {"lobby", "countdown", "race", "results"};
    return phase < RS_PHASE_COUNT ? names[phase] : "unknown";
}

/* A session's length: exactly one of laps and time_limit_s is a number. */
static void add_length(cJSON *o, uint32_t laps, uint32_t time_limit_s)
{
    if (time_limit_s) {
        cJSON_AddNullToObject(o, "laps");
        cJSON_AddNumberToObject(o, "time_limit_s", time_limit_s);
    } else {
        cJSON_AddNumberToObject(o, "laps", laps);
        cJSON_AddNullToObject(o, "time_limit_s");
    }
}

static cJSON *session_def_json(uint32_t index, const rs_http_session *s)
{
    static const char *grids[RS_GRID_SOURCE_COUNT] = {"join", "qualifying", "previous_race"};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", index);
    cJSON_AddStringToObject(o, "type", rs_proto_session_type_name(s->type));
    add_length(o, s->laps, s->time_limit_s);
    if (s->type == RS_SESSION_RACE) {
        cJSON_AddStringToObject(o, "grid",
                                s->grid_source < RS_GRID_SOURCE_COUNT ? grids[s->grid_source]
                                                                      : "join");
        cJSON_AddNumberToObject(o, "reverse", s->grid_reverse);
    } else {
        cJSON_AddNullToObject(o, "grid");
        cJSON_AddNullToObject(o, "reverse");
    }
    return o;
}

/* The flag: none before lights out (the lobby, a race's countdown), green
 * while the session runs, chequered from the room's flag (rs_room_session_info)
 * until the next session, and through the results of a session stopped
 * before its flag: it is over. */
static const char *flag_name(const rs_http_room *room)
{
    if (room->session_running && (room->chequered || room->phase == RS_PHASE_RESULTS))
        return "chequered";
    return room->session_running && room->phase == RS_PHASE_RACE ? "green" : "none";
}

/* The weekend's session: the running one, or the next in the lobby. */
static cJSON *session_json(const rs_http_room *room)
{
    cJSON *o = cJSON_CreateObject();
    const rs_http_session *s = &room->sessions[room->session_index < room->session_count
                                                   ? room->session_index : 0];
    cJSON_AddStringToObject(o, "type", rs_proto_session_type_name(s->type));
    cJSON_AddNumberToObject(o, "index", room->session_index);
    cJSON_AddNumberToObject(o, "weekend", room->weekend);
    cJSON_AddStringToObject(o, "phase", phase_name(room->phase));
    cJSON_AddBoolToObject(o, "running", room->session_running);
    cJSON_AddNumberToObject(o, "race_number", room->race_number);
    cJSON_AddNumberToObject(o, "tick", (double)room->tick);
    cJSON_AddNumberToObject(o, "race_time_us", (double)room->race_time_us);
    add_length(o, s->laps, s->time_limit_s);
    if (s->time_limit_s && room->session_running && room->time_left_us >= 0)
        cJSON_AddNumberToObject(o, "time_left_us", (double)room->time_left_us);
    else
        cJSON_AddNullToObject(o, "time_left_us");
    cJSON_AddStringToObject(o, "flag", flag_name(room));
    cJSON *list = cJSON_AddArrayToObject(o, "sessions");
    for (uint32_t i = 0; i < room->session_count && i < RS_HTTP_MAX_SESSIONS; i++)
        cJSON_AddItemToArray(list, session_def_json(i, &room->sessions[i]));
    return o;
}

static const char *class_of(const rs_http_room *room, uint8_t index)
{
    return index < room->class_count && index < RS_HTTP_MAX_CLASSES ? room->classes[index]
                                                                     : NULL;
}

/* The cars it offers, each with its class, and its classes with their cars'
 * hashes: a leaderboard is per car, so a class's boards are its cars'. */
static void add_cars_and_classes(cJSON *doc, const rs_http_room *room)
{
    cJSON *cars = cJSON_AddArrayToObject(doc, "cars");
    for (uint32_t i = 0; i < room->offer_count && i < RS_HTTP_MAX_OFFERED; i++) {
        const rs_http_offer *o = &room->offers[i];
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", o->name);
        http_add_hash(c, "hash", o->hash);
        const char *cls = class_of(room, o->class_index);
        if (cls)
            cJSON_AddStringToObject(c, "class", cls);
        else
            cJSON_AddNullToObject(c, "class");
        cJSON_AddItemToArray(cars, c);
    }
    cJSON *classes = cJSON_AddArrayToObject(doc, "classes");
    for (uint32_t k = 0; k < room->class_count && k < RS_HTTP_MAX_CLASSES; k++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", room->classes[k]);
        cJSON *list = cJSON_AddArrayToObject(c, "cars");
        for (uint32_t i = 0; i < room->offer_count && i < RS_HTTP_MAX_OFFERED; i++)
            if (room->offers[i].class_index == k) {
                cJSON *car = cJSON_CreateObject();
                cJSON_AddStringToObject(car, "name", room->offers[i].name);
                http_add_hash(car, "hash", room->offers[i].hash);
                cJSON_AddItemToArray(list, car);
            }
        cJSON_AddItemToArray(classes, c);
    }
}

static cJSON *room_summary(const rs_http_room *room)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", room->name);
    cJSON_AddStringToObject(o, "phase", phase_name(room->phase));
    cJSON_AddNumberToObject(o, "race_number", room->race_number);
    cJSON_AddNumberToObject(o, "players", room->players);
    cJSON_AddNumberToObject(o, "spectators", room->spectators);
    cJSON_AddNumberToObject(o, "max_players", room->max_players);
    cJSON_AddNumberToObject(o, "spectator_slots", room->spectator_slots);
    cJSON_AddNumberToObject(o, "laps", room->laps);
    http_add_named(o, "track", room->track_name, room->track_hash);
    http_add_named(o, "car", room->car_name, room->car_hash);
    cJSON_AddItemToObject(o, "session", session_json(room));
    add_cars_and_classes(o, room);
    return o;
}

static cJSON *penalty_json(const rs_http_penalty *p)
{
    static const char *kinds[RS_PENALTY_KIND_COUNT] = {"time", "dsq", "warning"};
    static const char *offences[RS_OFFENCE_COUNT] = {"track_limits", "contact", "jump_start",
                                                     "admin"};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", p->id);
    cJSON_AddStringToObject(o, "kind", p->kind < RS_PENALTY_KIND_COUNT ? kinds[p->kind] : "");
    cJSON_AddStringToObject(o, "offence",
                            p->offence < RS_OFFENCE_COUNT ? offences[p->offence] : "");
    cJSON_AddNumberToObject(o, "seconds", p->seconds);
    cJSON_AddBoolToObject(o, "removed", p->removed);
    cJSON_AddStringToObject(o, "text", p->text);
    return o;
}

static cJSON *entry_json(const rs_http_entry *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "car", e->car);
    cJSON_AddStringToObject(o, "name", e->name);
    cJSON_AddNumberToObject(o, "player_id", (double)e->player_id);
    cJSON_AddBoolToObject(o, "connected", e->connected);
    cJSON_AddNumberToObject(o, "position", e->position);
    if (e->class_name[0])
        cJSON_AddStringToObject(o, "class", e->class_name);
    else
        cJSON_AddNullToObject(o, "class");
    cJSON_AddNumberToObject(o, "class_position", e->class_position);
    if (e->number)
        cJSON_AddNumberToObject(o, "number", e->number);
    else
        cJSON_AddNullToObject(o, "number");
    http_add_named(o, "car_model", e->car_name, e->car_hash);
    static const char *statuses[] = {"classified", "not_classified", "disqualified"};
    cJSON_AddStringToObject(o, "status", statuses[e->status <= RS_HTTP_DISQUALIFIED ? e->status
                                                                  : RS_HTTP_NOT_CLASSIFIED]);
    cJSON_AddNumberToObject(o, "laps", e->laps);
    http_add_us(o, "gap_us", e->gap_us);
    http_add_us(o, "interval_us", e->interval_us);
    cJSON_AddNumberToObject(o, "laps_behind", e->laps_behind);
    http_add_us(o, "last_lap_us", e->last_lap_us);
    cJSON_AddBoolToObject(o, "last_lap_valid", e->last_lap_valid);
    http_add_us(o, "best_lap_us", e->best_lap_us);
    http_add_sectors(o, e->sector_count, e->sectors_us);
    cJSON_AddBoolToObject(o, "finished", e->finished);
    http_add_us(o, "finish_us", e->finish_us);
    cJSON_AddNumberToObject(o, "barrier_hits", e->barrier_hits);
    cJSON_AddNumberToObject(o, "car_hits", e->car_hits);
    cJSON *pens = cJSON_AddArrayToObject(o, "penalties");
    for (uint32_t i = 0; i < e->penalty_count && i < RS_HTTP_MAX_PENALTIES; i++)
        cJSON_AddItemToArray(pens, penalty_json(&e->penalties[i]));
    cJSON *p = cJSON_AddObjectToObject(o, "pose");
    cJSON_AddNumberToObject(p, "x", e->x);
    cJSON_AddNumberToObject(p, "y", e->y);
    cJSON_AddNumberToObject(p, "heading", e->heading);
    cJSON_AddNumberToObject(p, "speed", e->speed);
    return o;
}

static enum MHD_Result status(http_req *r)
{
    rs_http *http = r->http;
    uint32_t n = 0;
    rs_http_room *rooms = http_copy_rooms(http, &n, NULL);
    if (!rooms)
        return http_send_error(r, 503, "unavailable", "out of memory");
    cJSON *doc = cJSON_CreateObject();
    cJSON *s = cJSON_AddObjectToObject(doc, "server");
    cJSON_AddStringToObject(s, "version", http->version);
    cJSON_AddNumberToObject(s, "protocol_version", http->def.info.protocol_version);
    cJSON_AddNumberToObject(s, "physics_version", http->def.info.physics_version);
    cJSON_AddNumberToObject(s, "tick_hz", http->def.info.tick_hz);
    cJSON_AddNumberToObject(s, "started_at", (double)http->started_unix_s);
    cJSON_AddNumberToObject(s, "uptime_s", (double)((rs_clock_us() - http->started_us) / 1000000));
    if (http->public_key[0])
        cJSON_AddStringToObject(s, "public_key", http->public_key);
    else
        cJSON_AddNullToObject(s, "public_key");
    cJSON_AddBoolToObject(s, "database", http->db_path != NULL);
    uint32_t players = 0, spectators = 0;
    cJSON *list = cJSON_AddArrayToObject(doc, "rooms");
    for (uint32_t i = 0; i < n; i++) {
        players += rooms[i].players;
        spectators += rooms[i].spectators;
        cJSON_AddItemToArray(list, room_summary(&rooms[i]));
    }
    cJSON_AddNumberToObject(doc, "players", players);
    cJSON_AddNumberToObject(doc, "spectators", spectators);
    free(rooms);
    return http_send_json(r, 200, doc);
}

static enum MHD_Result room_list(http_req *r)
{
    uint32_t n = 0;
    rs_http_room *rooms = http_copy_rooms(r->http, &n, NULL);
    if (!rooms)
        return http_send_error(r, 503, "unavailable", "out of memory");
    cJSON *doc = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(doc, "rooms");
    for (uint32_t i = 0; i < n; i++)
        cJSON_AddItemToArray(list, room_summary(&rooms[i]));
    free(rooms);
    return http_send_json(r, 200, doc);
}

static enum MHD_Result room_detail(http_req *r, const char *name)
{
    uint32_t n = 0;
    rs_http_room *rooms = http_copy_rooms(r->http, &n, NULL);
    if (!rooms)
        return http_send_error(r, 503, "unavailable", "out of memory");
    const rs_http_room *room = NULL;
    for (uint32_t i = 0; i < n && !room; i++)
        if (strcmp(rooms[i].name, name) == 0)
            room = &rooms[i];
    if (!room) {
        free(rooms);
        return http_send_error(r, 404, "no_such_room", "no room is named '%.64s'", name);
    }
    cJSON *doc = room_summary(room);
    cJSON *entries = cJSON_AddArrayToObject(doc, "entries");
    for (uint32_t i = 0; i < room->entry_count && i < RS_HTTP_MAX_CARS; i++)
        cJSON_AddItemToArray(entries, entry_json(&room->entries[i]));
    free(rooms);
    return http_send_json(r, 200, doc);
}

static enum MHD_Result outline(http_req *r)
{
    rs_http *http = r->http;
    if (!r->route->hash_ok)
        return http_send_error(r, 400, "bad_argument", "a track hash is 16 hex digits");
    uint64_t hash = r->route->hash;
    char *copy = NULL;
    size_t len = 0;
    pthread_mutex_lock(&http->state_mu);
    for (uint32_t i = 0; i < http->outline_count; i++)
        if (http->outlines[i].hash == hash && (copy = malloc(http->outlines[i].len + 1))) {
            len = http->outlines[i].len;
            memcpy(copy, http->outlines[i].json, len);
        }
    pthread_mutex_unlock(&http->state_mu);
    if (!copy)
        return http_send_error(r, 404, "no_such_track",
                               "no room of this server runs the track %016llx",
                               (unsigned long long)hash);
    return http_send(r, 200, "application/json", copy, len, true, "max-age=3600");
}

enum MHD_Result http_api_live(http_req *r)
{
    switch (r->route->kind) {
    case HTTP_R_STATUS: return status(r);
    case HTTP_R_ROOMS: return room_list(r);
    case HTTP_R_ROOM: return room_detail(r, r->route->name);
    default: return outline(r);
    }
}
