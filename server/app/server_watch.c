/*
 * The server's room observer and the services' log, as log lines
 * (server_watch.h). Every line is written twice over: in words for the
 * text log (the message says everything) and as fields for the json log
 * (room, player, player_id, address first, whenever the line is about
 * them).
 */
#include "server_watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "racesim/protocol.h"
#include "racesim/track.h"
#include "racesim/base/text.h"

#define ADDRESS_MAX 24

/* An admitted connection's address, by peer slot. */
typedef struct watch_peer {
    uint32_t id; /* 0 = none */
    char address[ADDRESS_MAX];
} watch_peer;

struct rs_server_watch {
    rs_server_watch_def def;
    rs_services *services;
    watch_peer *peers;
    uint32_t peer_cap;
};

rs_server_watch *rs_server_watch_create(const rs_server_watch_def *def)
{
    rs_server_watch *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->def = *def;
    w->peer_cap = def->max_peers ? def->max_peers : 1;
    w->peers = calloc(w->peer_cap, sizeof *w->peers);
    if (!w->peers) {
        free(w);
        return NULL;
    }
    return w;
}

void rs_server_watch_destroy(rs_server_watch *w)
{
    if (!w)
        return;
    free(w->peers);
    free(w);
}

void rs_server_watch_set_services(rs_server_watch *w, rs_services *svc)
{
    w->services = svc;
}

static watch_peer *peer_slot(rs_server_watch *w, uint32_t peer)
{
    return &w->peers[(peer & 0xfffu) % w->peer_cap];
}

/* The connection's address: asked of the server, else the one kept at its
 * admission (a connection lost is gone from the transport). */
static void address_of(rs_server_watch *w, uint32_t peer, char *out, size_t cap)
{
    const watch_peer *p = peer_slot(w, peer);
    if (p->id == peer && p->address[0]) {
        snprintf(out, cap, "%s", p->address);
        return;
    }
    out[0] = '\0';
    if (w->def.address)
        w->def.address(w->def.ctx, peer, out, cap);
    if (!out[0])
        snprintf(out, cap, "?");
}

/* A BYE's or REFUSE's text after its reason's words, unless it only
 * repeats them ("wrong room password: wrong room password"). */
static const char *text_after(const char *words, const char *text)
{
    return text && text[0] && strcmp(text, words) != 0 ? text : "";
}

/* "alice (player 3)", "bob (guest)", or "a client" without a name. */
static void who_text(const char *name, int64_t player_id, char *out, size_t cap)
{
    if (!name || !name[0])
        snprintf(out, cap, "a client");
    else if (player_id > 0)
        snprintf(out, cap, "%s (player %lld)", name, (long long)player_id);
    else
        snprintf(out, cap, "%s (guest)", name);
}

/* ------------------------------------------------------------- peers */

static void on_joined(rs_server_watch *w, rs_room *room, const rs_room_event *ev)
{
    watch_peer *p = peer_slot(w, ev->peer);
    p->id = 0; /* asked afresh: a slot may hold an older connection's */
    char address[ADDRESS_MAX];
    address_of(w, ev->peer, address, sizeof address);
    p->id = ev->peer;
    snprintf(p->address, sizeof p->address, "%s", address);
    char who[96], as[64];
    who_text(ev->name, ev->player_id, who, sizeof who);
    if (ev->spectator)
        snprintf(as, sizeof as, "a spectator");
    else if (ev->car)
        snprintf(as, sizeof as, "a player, car %u", (unsigned)ev->car);
    else
        snprintf(as, sizeof as, "a player (a car at the next race)");
    rs_log_field f[] = {rs_log_str("room", rs_room_name(room)),
                        rs_log_str("player", ev->name),
                        rs_log_int("player_id", ev->player_id),
                        rs_log_str("address", address),
                        rs_log_uint("peer", ev->peer),
                        rs_log_uint("car", ev->car),
                        rs_log_bool("spectator", ev->spectator)};
    rs_log_event(RS_LOG_INFO, "join", f, sizeof f / sizeof f[0],
                 "room '%s': %s joined from %s as %s", rs_room_name(room), who, address, as);
}

static void on_left(rs_server_watch *w, rs_room *room, const rs_room_event *ev)
{
    char address[ADDRESS_MAX];
    address_of(w, ev->peer, address, sizeof address);
    watch_peer *p = peer_slot(w, ev->peer);
    if (p->id == ev->peer)
        memset(p, 0, sizeof *p);
    const char *cause = ev->lost ? "lost" : ev->by_peer ? "bye" : "closed";
    const char *reason = rs_proto_reason_str(ev->reason);
    char who[96], how[320];
    who_text(ev->name, ev->player_id, who, sizeof who);
    if (ev->lost)
        snprintf(how, sizeof how, "left: connection lost");
    else {
        const char *more = text_after(reason, ev->text);
        snprintf(how, sizeof how, "%s: %s%s%s", ev->by_peer ? "left" : "was closed", reason,
                 more[0] ? ": " : "", more);
    }
    rs_log_field f[] = {rs_log_str("room", rs_room_name(room)),
                        rs_log_str("player", ev->name),
                        rs_log_int("player_id", ev->player_id),
                        rs_log_str("address", address),
                        rs_log_uint("peer", ev->peer),
                        rs_log_uint("car", ev->car),
                        rs_log_bool("spectator", ev->spectator),
                        rs_log_str("cause", cause),
                        rs_log_str("reason", ev->lost ? "connection lost" : reason),
                        rs_log_uint("reason_code", ev->reason),
                        rs_log_str("text", ev->text)};
    rs_log_event(RS_LOG_INFO, "leave", f, sizeof f / sizeof f[0], "room '%s': %s at %s %s",
                 rs_room_name(room), who, address, how);
}

/* One refuse line, the room's or the server's (room NULL). */
static void log_refused(const char *room, uint32_t peer, const char *address, const char *name,
                        uint8_t reason, const char *text)
{
    const char *words = rs_proto_reason_str(reason);
    char where[48] = "";
    /* Not admitted: no player id yet. */
    const char *who = name && name[0] ? name : "a client";
    if (room)
        snprintf(where, sizeof where, "room '%s': ", room);
    rs_log_field f[] = {rs_log_str("room", room),
                        rs_log_str("player", name && name[0] ? name : NULL),
                        rs_log_str("address", address),
                        rs_log_uint("peer", peer),
                        rs_log_str("reason", words),
                        rs_log_uint("reason_code", reason),
                        rs_log_str("text", text ? text : "")};
    const char *more = text_after(words, text);
    rs_log_event(RS_LOG_INFO, "refuse", f, sizeof f / sizeof f[0], "%srefused %s from %s: %s%s%s",
                 where, who, address, words, more[0] ? ": " : "", more);
}

static void on_refused(rs_server_watch *w, rs_room *room, const rs_room_event *ev)
{
    char address[ADDRESS_MAX];
    address_of(w, ev->peer, address, sizeof address);
    log_refused(rs_room_name(room), ev->peer, address, ev->name, ev->reason, ev->text);
}

void rs_server_watch_refused(rs_server_watch *w, uint32_t peer, const char *address,
                             const char *name, uint8_t reason, const char *text)
{
    (void)w;
    log_refused(NULL, peer, address, name, reason, text);
}

/* ------------------------------------------------------------- races */

/* "qualifying 3 (id 17)": the session's type and the room's session count
 * (race_number), or without "(id)" when no race is stored. */
static void race_text(rs_server_watch *w, rs_room *room, uint32_t race_number, int64_t *race_id,
                      char *out, size_t cap)
{
    rs_room_session_info si;
    rs_room_session_state(room, &si);
    const char *type = rs_proto_session_type_name(si.def.type);
    *race_id = w->services ? rs_services_race_id(w->services, room) : 0;
    if (*race_id > 0)
        snprintf(out, cap, "%s %u (id %lld)", type, (unsigned)race_number, (long long)*race_id);
    else
        snprintf(out, cap, "%s %u", type, (unsigned)race_number);
}

static void on_race_start(rs_server_watch *w, rs_room *room, const rs_room_event *ev)
{
    const char *names[RS_PROTO_MAX_CARS];
    uint32_t cars = 0;
    char list[RS_PROTO_MAX_CARS * (RS_PROTO_NAME_MAX + 2) + 1] = "";
    size_t used = 0;
    for (uint8_t c = 1; c <= RS_PROTO_MAX_CARS; c++) {
        if (!rs_room_car_driver(room, c, &names[cars], NULL, NULL))
            break;
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", cars ? ", " : "",
                                 names[cars]);
        if (used >= sizeof list)
            used = sizeof list - 1;
        cars++;
    }
    const rs_track *track = rs_room_track(room, NULL, NULL);
    uint32_t laps = rs_room_laps(room);
    int64_t race_id;
    char race[64];
    race_text(w, room, ev->race_number, &race_id, race, sizeof race);
    rs_log_field f[] = {rs_log_str("room", rs_room_name(room)),
                        rs_log_uint("race_number", ev->race_number),
                        race_id > 0 ? rs_log_int("race_id", race_id) : rs_log_str("race_id", NULL),
                        rs_log_str("track", rs_track_name(track)),
                        rs_log_uint("laps", laps),
                        rs_log_uint("entrants", cars),
                        rs_log_strs("drivers", names, cars)};
    /* Only a race counts down; the other sessions run at once. */
    rs_room_session_info si;
    rs_room_session_state(room, &si);
    const char *begins = si.def.type == RS_SESSION_RACE ? "countdown" : "begins";
    char length[32];
    if (laps)
        snprintf(length, sizeof length, "%u %s", (unsigned)laps, laps == 1 ? "lap" : "laps");
    else if (si.def.time_limit_s % 60 == 0)
        snprintf(length, sizeof length, "%u min", (unsigned)(si.def.time_limit_s / 60));
    else
        snprintf(length, sizeof length, "%u s", (unsigned)si.def.time_limit_s);
    rs_log_event(RS_LOG_INFO, "race_start", f, sizeof f / sizeof f[0],
                 "room '%s': %s %s: %u %s (%s), %s of %s", rs_room_name(room), race, begins,
                 (unsigned)cars, cars == 1 ? "car" : "cars", list, length,
                 rs_track_name(track));
}

static void on_lights_out(rs_server_watch *w, rs_room *room, const rs_room_event *ev)
{
    int64_t race_id;
    char race[64];
    race_text(w, room, ev->race_number, &race_id, race, sizeof race);
    uint32_t cars = ev->world ? rs_world_car_count(ev->world) : 0;
    rs_log_field f[] = {rs_log_str("room", rs_room_name(room)),
                        rs_log_uint("race_number", ev->race_number),
                        race_id > 0 ? rs_log_int("race_id", race_id) : rs_log_str("race_id", NULL),
                        rs_log_uint("cars", cars)};
    rs_log_event(RS_LOG_INFO, "lights_out", f, sizeof f / sizeof f[0],
                 "room '%s': %s: lights out, %u %s racing", rs_room_name(room), race,
                 (unsigned)cars, cars == 1 ? "car" : "cars");
}

/* The race is decided (RESULTS): finished when a car took the flag, else
 * stopped (ended before anyone finished: an administrator). */
static void on_race_end(rs_server_watch *w, rs_room *room, const rs_room_event *ev,
                        const char *forced_status)
{
    const rs_world *world = ev->world;
    rs_car_id order[RS_PROTO_MAX_CARS];
    uint32_t cars = world ? rs_world_race_order(world, order, RS_PROTO_MAX_CARS) : 0;
    if (cars > RS_PROTO_MAX_CARS)
        cars = RS_PROTO_MAX_CARS;
    uint32_t finished = 0;
    for (uint32_t i = 0; i < cars; i++) {
        rs_race_car_state st;
        if (rs_world_race_state(world, order[i], &st) == RS_OK && st.status == RS_RACE_FINISHED)
            finished++;
    }
    const char *winner = NULL;
    int64_t winner_id = 0, winner_us = -1;
    if (finished) {
        rs_race_car_state st;
        rs_world_race_state(world, order[0], &st);
        winner_us = st.finish_us;
        rs_room_car_driver(room, (uint8_t)order[0].index1, &winner, &winner_id, NULL);
    }
    const char *status = forced_status ? forced_status : finished ? "finished" : "stopped";
    int64_t race_id;
    char race[64], time[32] = "", who[96] = "";
    race_text(w, room, ev->race_number, &race_id, race, sizeof race);
    if (winner) {
        rs_race_time_str(winner_us, time, sizeof time);
        who_text(winner, winner_id, who, sizeof who);
    }
    rs_log_field f[] = {rs_log_str("room", rs_room_name(room)),
                        rs_log_uint("race_number", ev->race_number),
                        race_id > 0 ? rs_log_int("race_id", race_id) : rs_log_str("race_id", NULL),
                        rs_log_str("status", status),
                        rs_log_uint("cars", cars),
                        rs_log_uint("finished", finished),
                        rs_log_str("winner", winner),
                        winner ? rs_log_int("winner_id", winner_id) : rs_log_str("winner_id", NULL),
                        winner ? rs_log_int("winner_time_us", winner_us)
                               : rs_log_str("winner_time_us", NULL),
                        rs_log_str("winner_time", winner ? time : NULL)};
    if (winner)
        rs_log_event(RS_LOG_INFO, "race_end", f, sizeof f / sizeof f[0],
                     "room '%s': %s %s: %s won in %s, %u of %u %s took the flag",
                     rs_room_name(room), race, status, who, time, (unsigned)finished,
                     (unsigned)cars, cars == 1 ? "car" : "cars");
    else
        rs_log_event(RS_LOG_INFO, "race_end", f, sizeof f / sizeof f[0],
                     "room '%s': %s %s: no car took the flag (%u %s)", rs_room_name(room), race,
                     status, (unsigned)cars, cars == 1 ? "car" : "cars");
}

void rs_server_watch_race_stopped(rs_server_watch *w, rs_room *room)
{
    rs_room_stats st;
    rs_room_get_stats(room, &st);
    if (st.phase != RS_PHASE_RACE && st.phase != RS_PHASE_COUNTDOWN)
        return;
    rs_room_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = RS_ROOM_EV_PHASE;
    ev.phase = st.phase;
    ev.race_number = st.race_number;
    ev.world = rs_room_world(room);
    on_race_end(w, room, &ev, st.phase == RS_PHASE_RACE ? "stopped" : "abandoned");
    /* The words operators (and test_durability) know. */
    if (st.phase == RS_PHASE_RACE)
        rs_logf(RS_LOG_INFO, "room '%s': race stopped: its classification so far is stored "
                "(status stopped)", rs_room_name(room));
    else
        rs_logf(RS_LOG_INFO, "room '%s': race called off before lights out (status "
                "abandoned)", rs_room_name(room));
}

static void on_phase(rs_server_watch *w, rs_room *room, const rs_room_event *ev)
{
    switch (ev->phase) {
    case RS_PHASE_COUNTDOWN:
        on_race_start(w, room, ev);
        break;
    case RS_PHASE_RACE: {
        /* Practice, qualifying and warm-up have no countdown and no
         * lights: they begin in this phase. */
        rs_room_session_info si;
        rs_room_session_state(room, &si);
        if (si.def.type == RS_SESSION_RACE)
            on_lights_out(w, room, ev);
        else
            on_race_start(w, room, ev);
        break;
    }
    case RS_PHASE_RESULTS:
        on_race_end(w, room, ev, NULL);
        break;
    default: {
        rs_log_field f[] = {rs_log_str("room", rs_room_name(room))};
        rs_log_event(RS_LOG_DEBUG, "lobby", f, 1, "room '%s': in the lobby", rs_room_name(room));
        break;
    }
    }
}

/* ------------------------------------------------------- race control */

static const char *const penalty_kinds[RS_PENALTY_KIND_COUNT] = {"time", "dsq", "warning"};
static const char *const offences[RS_OFFENCE_COUNT] = {"track_limits", "contact", "jump_start",
                                                       "admin"};
static const char *const offence_words[RS_OFFENCE_COUNT] = {"track limits", "contact",
                                                            "jump start", "administrator"};

/* A penalty given or taken back (the PENALTY every watcher was sent). */
static void on_penalty(rs_server_watch *w, rs_room *room, const rs_room_event *ev)
{
    const rs_msg_penalty *p = ev->penalty;
    if (!p || p->kind >= RS_PENALTY_KIND_COUNT || p->offence >= RS_OFFENCE_COUNT)
        return;
    int64_t race_id, player_id = 0;
    char race[64], what[48], who[96];
    race_text(w, room, ev->race_number, &race_id, race, sizeof race);
    rs_room_car_driver(room, p->car, NULL, &player_id, NULL);
    who_text(ev->name, player_id, who, sizeof who);
    if (p->kind == RS_PENALTY_TIME)
        snprintf(what, sizeof what, "%u s", (unsigned)p->seconds);
    else
        snprintf(what, sizeof what, "%s", p->kind == RS_PENALTY_DSQ ? "disqualified" : "warning");
    rs_log_field f[] = {rs_log_str("room", rs_room_name(room)),
                        rs_log_str("player", ev->name),
                        rs_log_int("player_id", player_id),
                        rs_log_uint("race_number", ev->race_number),
                        race_id > 0 ? rs_log_int("race_id", race_id) : rs_log_str("race_id", NULL),
                        rs_log_uint("car", p->car),
                        rs_log_uint("penalty_id", p->id),
                        rs_log_str("kind", penalty_kinds[p->kind]),
                        rs_log_str("offence", offences[p->offence]),
                        rs_log_uint("seconds", p->seconds),
                        rs_log_bool("removed", p->removed),
                        rs_log_uint("tick", p->tick),
                        rs_log_str("text", p->text)};
    if (p->removed)
        rs_log_event(RS_LOG_INFO, "penalty", f, sizeof f / sizeof f[0],
                     "room '%s': %s: penalty %u of %s (car %u, %s, %s) removed: %s",
                     rs_room_name(room), race, (unsigned)p->id, who, (unsigned)p->car, what,
                     offence_words[p->offence], p->text);
    else
        rs_log_event(RS_LOG_INFO, "penalty", f, sizeof f / sizeof f[0],
                     "room '%s': %s: penalty %u for %s (car %u): %s, %s: %s",
                     rs_room_name(room), race, (unsigned)p->id, who, (unsigned)p->car, what,
                     offence_words[p->offence], p->text);
}

/* Every chat line, for moderation: who said what to whom. The text went
 * through the protocol's text rules and the log's escaping, so it cannot
 * forge a line. */
static void on_chat(rs_room *room, const rs_room_event *ev)
{
    static const char *const kinds[RS_CHAT_KIND_COUNT] = {"room", "private", "announce",
                                                          "system"};
    const rs_msg_chat_msg *c = ev->chat;
    if (!c || c->kind >= RS_CHAT_KIND_COUNT || !rs_log_enabled(RS_LOG_INFO))
        return;
    rs_log_field f[] = {rs_log_str("room", rs_room_name(room)),
                        rs_log_str("player", c->from[0] ? c->from : NULL),
                        c->from[0] ? rs_log_int("player_id", c->player_id)
                                   : rs_log_str("player_id", NULL),
                        rs_log_str("kind", kinds[c->kind]),
                        rs_log_str("to", ev->text && ev->text[0] ? ev->text : NULL),
                        rs_log_str("text", c->text)};
    if (c->kind == RS_CHAT_PRIVATE)
        rs_log_event(RS_LOG_INFO, "chat", f, sizeof f / sizeof f[0], "room '%s': %s to %s: %s",
                     rs_room_name(room), c->from, ev->text, c->text);
    else if (c->from[0])
        rs_log_event(RS_LOG_INFO, "chat", f, sizeof f / sizeof f[0], "room '%s': %s: %s",
                     rs_room_name(room), c->from, c->text);
    else
        rs_log_event(RS_LOG_INFO, "chat", f, sizeof f / sizeof f[0], "room '%s': announced: %s",
                     rs_room_name(room), c->text);
}

static void on_vote(rs_room *room, const rs_room_event *ev)
{
    static const char *const kinds[RS_VOTE_KIND_COUNT] = {"kick", "restart", "skip", "track"};
    static const char *const states[RS_VOTE_STATE_COUNT] = {"open", "passed", "failed"};
    const rs_msg_vote_state *v = ev->vote;
    if (!v || v->kind >= RS_VOTE_KIND_COUNT || v->state >= RS_VOTE_STATE_COUNT)
        return;
    /* The opening and the outcome; each counted vote is in the VOTE_STATE
     * the players got, not worth a line each. */
    if (v->state == RS_VOTE_OPEN && v->yes + v->no > 1)
        return;
    rs_log_field f[] = {rs_log_str("room", rs_room_name(room)),
                        rs_log_str("player", v->by),
                        rs_log_uint("vote_id", v->vote_id),
                        rs_log_str("kind", kinds[v->kind]),
                        rs_log_str("state", states[v->state]),
                        rs_log_str("arg", v->arg[0] ? v->arg : NULL),
                        rs_log_uint("yes", v->yes),
                        rs_log_uint("no", v->no),
                        rs_log_uint("eligible", v->eligible)};
    rs_log_event(RS_LOG_INFO, "vote", f, sizeof f / sizeof f[0],
                 "room '%s': vote %u (%s%s%s) by %s %s: %u yes, %u no of %u", rs_room_name(room),
                 (unsigned)v->vote_id, kinds[v->kind], v->arg[0] ? " " : "", v->arg, v->by,
                 states[v->state], (unsigned)v->yes, (unsigned)v->no, (unsigned)v->eligible);
}

static void on_event(void *ctx, rs_room *room, const rs_room_event *ev)
{
    rs_server_watch *w = ctx;
    switch (ev->type) {
    case RS_ROOM_EV_JOINED:
        on_joined(w, room, ev);
        break;
    case RS_ROOM_EV_LEFT:
        on_left(w, room, ev);
        break;
    case RS_ROOM_EV_REFUSED:
        on_refused(w, room, ev);
        break;
    case RS_ROOM_EV_PHASE:
        on_phase(w, room, ev);
        break;
    case RS_ROOM_EV_PENALTY:
        on_penalty(w, room, ev);
        break;
    case RS_ROOM_EV_CHAT:
        on_chat(room, ev);
        break;
    case RS_ROOM_EV_VOTE:
        on_vote(room, ev);
        break;
    default:
        break; /* STEPPED: every tick, nothing for the log */
    }
}

rs_room_observer rs_server_watch_observer(rs_server_watch *w)
{
    return (rs_room_observer){.ctx = w, .event = on_event};
}

/* ---------------------------------------------------------- services */

#define EXTRA_FIELDS 16

void rs_server_watch_services_log(void *ctx, const rs_services_log_entry *e)
{
    (void)ctx;
    rs_log_level level = e->level == RS_SERVICES_LOG_ERROR  ? RS_LOG_ERROR
                         : e->level == RS_SERVICES_LOG_WARN ? RS_LOG_WARN
                                                            : RS_LOG_INFO;
    if (!rs_log_enabled(level))
        return;
    rs_log_field f[4 + EXTRA_FIELDS];
    size_t n = 0;
    f[n++] = rs_log_str("room", e->room);
    f[n++] = rs_log_str("player", e->player);
    f[n++] = e->player ? rs_log_int("player_id", e->player_id) : rs_log_str("player_id", NULL);
    f[n++] = rs_log_str("address", e->address);
    for (uint32_t i = 0; i < e->field_count && i < EXTRA_FIELDS; i++) {
        const rs_services_log_field *x = &e->fields[i];
        if (x->type == RS_SERVICES_FIELD_STR)
            f[n++] = rs_log_str(x->key, x->str ? x->str : "");
        else if (x->type == RS_SERVICES_FIELD_BOOL)
            f[n++] = rs_log_bool(x->key, x->num != 0);
        else
            f[n++] = rs_log_int(x->key, x->num);
    }
    rs_log_event(level, e->event ? e->event : "message", f, n, "%s", e->text ? e->text : "");
}
