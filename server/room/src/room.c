/*
 * A room's front door: creation, the peers the transport reports, the
 * handshake (HELLO -> REFUSE, or the admit hook's answer, at once or later
 * -> WELCOME + race state + the world) and the dispatch of every message a
 * client may send. Bytes from the wire are decoded by the protocol library
 * and never trusted beyond what it checked: anything that does not decode,
 * comes from an unknown peer, travels the wrong way or on the wrong
 * channel is dropped and counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "room_internal.h"

rs_room_config rs_room_config_at(uint32_t tick_hz)
{
    /* What is not named is 0 or NULL; start_players 0 waits for every seat.
     * The durations are in seconds times the tick rate, so they mean the
     * same time at any rate; hashes and FRAMEs stay counted in ticks. */
    uint32_t hz = tick_hz;
    return (rs_room_config){.tick_hz = hz, .substeps = 4, .laps = 3, .max_players = 16,
                            .spectator_slots = 8, .lobby_ticks = 10 * hz,
                            .countdown_ticks = 3 * hz, .load_wait_ticks = 15 * hz,
                            .results_ticks = 10 * hz, .finish_timeout_ticks = 60 * hz,
                            .hash_interval = 30, .frame_every = 2, .frame_ticks = 4,
                            .max_input_rate = 2 * hz,
                            .chat = {.burst = 5, .per_minute = 20},
                            .votes = {.quorum_pct = 50, .majority_pct = 50, .duration_s = 30,
                                      .cooldown_s = 120}};
}

rs_room_config rs_room_config_default(void)
{
    return rs_room_config_at(60);
}

static rs_status range_err(char *err, size_t err_len, const char *field, const char *rule)
{
    if (err && err_len)
        snprintf(err, err_len, "room config: %s: %s", field, rule);
    return RS_ERR_RANGE;
}

static rs_status check_config(const rs_room_config *c, char *err, size_t err_len)
{
    if (!c->track || !c->car || !c->track_json || c->track_json_len == 0) {
        if (err && err_len)
            snprintf(err, err_len, "room config: track, track_json and car are required");
        return RS_ERR_ARG;
    }
    uint32_t grid = rs_track_grid_count(c->track);
    if (c->tick_hz < 1 || c->tick_hz > 1000)
        return range_err(err, err_len, "tick_hz", "outside 1..1000");
    if (c->substeps < 1 || c->substeps > 64)
        return range_err(err, err_len, "substeps", "outside 1..64");
    if (c->laps < 1 || c->laps > 1000)
        return range_err(err, err_len, "laps", "outside 1..1000");
    if (c->max_players < 1 || c->max_players > RS_PROTO_MAX_CARS || c->max_players > grid)
        return range_err(err, err_len, "max_players", "outside 1..min(32, grid slots)");
    if (c->spectator_slots > 1024)
        return range_err(err, err_len, "spectator_slots", "above 1024");
    if (c->start_players > c->max_players)
        return range_err(err, err_len, "start_players", "above max_players");
    if (c->load_wait_ticks > 600u * c->tick_hz)
        return range_err(err, err_len, "load_wait_ticks", "above 600 s");
    if (c->hash_interval < 1 || c->hash_interval > 3600)
        return range_err(err, err_len, "hash_interval", "outside 1..3600");
    if (c->frame_every < 1 || c->frame_every > RS_PROTO_FRAME_MAX_TICKS)
        return range_err(err, err_len, "frame_every", "outside 1..8");
    if (c->frame_ticks < c->frame_every || c->frame_ticks > RS_PROTO_FRAME_MAX_TICKS)
        return range_err(err, err_len, "frame_ticks", "outside frame_every..8");
    if (c->max_input_rate < c->tick_hz)
        return range_err(err, err_len, "max_input_rate", "below tick_hz");
    if (c->password && strlen(c->password) > RS_PROTO_SECRET_MAX)
        return range_err(err, err_len, "password", "longer than 64 bytes");
    if (c->name && strlen(c->name) > RS_PROTO_NAME_MAX)
        return range_err(err, err_len, "name", "longer than 32 bytes");
    if (c->track_json_len > RS_PROTO_BLOB_MAX)
        return range_err(err, err_len, "track_json", "larger than 16 MiB");
    const char *why = NULL;
    if ((c->session_count && !c->sessions) ||
        !rs_room__sessions_check(c->sessions, c->session_count, &why))
        return range_err(err, err_len, "sessions", why ? why : "missing");
    if (c->chat.burst > 100 || (c->chat.burst && (c->chat.per_minute < 1 ||
                                                  c->chat.per_minute > 600)))
        return range_err(err, err_len, "chat", "burst 0..100, per_minute 1..600");
    if (!c->votes.off &&
        (c->votes.quorum_pct < 1 || c->votes.quorum_pct > 100 || c->votes.majority_pct < 50 ||
         c->votes.majority_pct > 99 || c->votes.duration_s < 5 || c->votes.duration_s > 600 ||
         c->votes.cooldown_s > 3600))
        return range_err(err, err_len, "votes",
                         "quorum 1..100 %, majority 50..99 %, 5..600 s, cool-down 0..3600 s");
    if (!rs_room__cars_check(c, &why))
        return range_err(err, err_len, "cars", why);
    if (!rs_room__control_check(c, &why))
        return range_err(err, err_len, "race_control", why);
    if (c->championship && c->championship[0] &&
        !rs_proto_name_check(c->championship, strlen(c->championship), NULL, 0))
        return range_err(err, err_len, "championship", "not a name by the name rules");
    return RS_OK;
}

rs_status rs_room_create(const rs_room_config *cfg, rs_room **out, char *err, size_t err_len)
{
    if (!out || !cfg)
        return RS_ERR_ARG;
    *out = NULL;
    rs_status st = check_config(cfg, err, err_len);
    if (st != RS_OK)
        return st;
    rs_room *r = calloc(1, sizeof *r);
    if (!r)
        return RS_ERR_NOMEM;
    r->cfg = *cfg;
    if (cfg->password)
        strcpy(r->password, cfg->password);
    r->cfg.password = NULL;
    strcpy(r->name, cfg->name && cfg->name[0] ? cfg->name : "default");
    r->cfg.name = r->name;
    snprintf(r->championship, sizeof r->championship, "%s",
             cfg->championship ? cfg->championship : "");
    r->cfg.championship = r->championship;
    if (r->cfg.start_players == 0)
        r->cfg.start_players = r->cfg.max_players;
    if (cfg->session_count) {
        memcpy(r->sessions, cfg->sessions, cfg->session_count * sizeof r->sessions[0]);
        r->session_count = cfg->session_count;
    } else {
        /* No weekend configured: one race of cfg.laps, again and again. */
        r->sessions[0] = (rs_proto_session_def){.type = RS_SESSION_RACE,
                                                .laps = (uint16_t)cfg->laps};
        r->session_count = 1;
    }
    r->cfg.sessions = NULL;
    r->track_hash = rs_track_hash(cfg->track);
    r->peer_cap = cfg->max_players + cfg->spectator_slots + RS_ROOM_PENDING_PEERS;
    r->peers = calloc(r->peer_cap, sizeof *r->peers);
    r->seats = calloc(cfg->max_players, sizeof *r->seats);
    if (!r->peers || !r->seats || rs_room__cars_init(r, cfg) != RS_OK) {
        rs_room_destroy(r);
        return RS_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < cfg->max_players; i++)
        r->seats[i].peer = r->seats[i].entry = -1;
    r->phase = RS_PHASE_LOBBY;
    *out = r;
    return RS_OK;
}

void rs_room_destroy(rs_room *room)
{
    if (!room)
        return;
    rs_room__destroy_world(room);
    if (room->cfg.hooks.closed)
        room->cfg.hooks.closed(room->cfg.hooks.ctx, room);
    if (room->seats)
        for (uint32_t i = 0; i < room->cfg.max_players; i++)
            rs_room__seat_free(room, (int)i);
    rs_room__send_free(room);
    free(room->laps);
    rs_room__cars_free(room);
    free(room->peers);
    free(room->seats);
    free(room);
}

void rs_room__observe(rs_room *room, const rs_room_event *ev)
{
    if (room->cfg.observer.event)
        room->cfg.observer.event(room->cfg.observer.ctx, room, ev);
}

void rs_room__observe_peer(rs_room *room, uint8_t type, const room_peer *p, uint8_t reason,
                           const char *text, bool lost, bool by_peer)
{
    rs_room_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.peer = p->id;
    ev.player_id = p->player_id;
    ev.name = p->name;
    ev.spectator = p->state == PEER_SPECTATOR ||
                   (p->state != PEER_PLAYER && (p->hello_flags & RS_HELLO_SPECTATOR));
    ev.car = (uint8_t)(p->seat >= 0 && room->world ? room->seats[p->seat].car : 0);
    ev.reason = reason < RS_REASON_COUNT ? reason : RS_REASON_OTHER;
    ev.lost = lost;
    ev.by_peer = by_peer;
    ev.text = text ? text : "";
    ev.phase = room->phase;
    ev.race_number = room->race_number;
    rs_room__observe(room, &ev);
}

room_peer *rs_room__find_peer(rs_room *room, uint32_t id)
{
    for (uint32_t i = 0; i < room->peer_cap; i++)
        if (room->peers[i].state != PEER_FREE && room->peers[i].id == id)
            return &room->peers[i];
    return NULL;
}

bool rs_room__peer_watching(const room_peer *p)
{
    return p->state == PEER_PLAYER || p->state == PEER_SPECTATOR;
}

void rs_room_connect(rs_room *room, uint32_t peer, int64_t now_us)
{
    room_peer *p = rs_room__find_peer(room, peer);
    if (p)
        rs_room_disconnect(room, peer, now_us);
    for (uint32_t i = 0; i < room->peer_cap; i++) {
        if (room->peers[i].state == PEER_FREE) {
            p = &room->peers[i];
            memset(p, 0, sizeof *p);
            p->state = PEER_NEW;
            p->id = peer;
            p->seat = -1;
            p->last_snapshot_us = now_us - 1000000;
            return;
        }
    }
    /* No slot even for a handshake: answer in words and let it go. The
     * REFUSE goes out through a temporary peer record on the stack. */
    room_peer tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.id = peer;
    tmp.seat = -1;
    rs_room__refuse(room, &tmp, RS_REASON_FULL, "the room is full");
}

void rs_room_disconnect(rs_room *room, uint32_t peer, int64_t now_us)
{
    (void)now_us;
    room_peer *p = rs_room__find_peer(room, peer);
    if (!p)
        return;
    /* A peer already closing was reported when it was closed. */
    if (rs_room__peer_watching(p) && rs_room__observed(room))
        rs_room__observe_peer(room, RS_ROOM_EV_LEFT, p, RS_REASON_NONE, "", true, false);
    if (p->seat >= 0)
        rs_room__leave_seat(room, p->seat);
    memset(p, 0, sizeof *p);
    p->seat = -1;
    /* Forget it in the closing list too: the transport already let it go. */
    for (size_t i = 0; i < room->closing_len; i++) {
        if (room->closing[i] == peer) {
            memmove(room->closing + i, room->closing + i + 1,
                    (room->closing_len - i - 1) * sizeof *room->closing);
            room->closing_len--;
            break;
        }
    }
}

void rs_room__leave_seat(rs_room *room, int seat)
{
    room_seat *s = &room->seats[seat];
    s->peer = -1;
    if (s->car)
        rs_room__broadcast_car_info(room, s->car);
    else if (!room->world || s->kicked)
        rs_room__seat_free(room, seat); /* no car to come back to: the seat is free again */
}

static uint32_t count_state(const rs_room *room, uint8_t state)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < room->peer_cap; i++)
        n += room->peers[i].state == state;
    return n;
}

static void send_welcome(rs_room *room, room_peer *p, int64_t player_id, const char *token)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_WELCOME;
    rs_msg_welcome *w = &m.u.welcome;
    w->room_id = room->cfg.room_id;
    w->car = (uint8_t)(p->seat >= 0 && room->world ? room->seats[p->seat].car : 0);
    w->player_id = player_id;
    if (token)
        strcpy(w->token, token);
    w->tick_hz = (uint16_t)room->cfg.tick_hz;
    w->substeps = (uint8_t)room->cfg.substeps;
    w->hash_interval = (uint16_t)room->cfg.hash_interval;
    w->physics_version = RS_PHYSICS_VERSION;
    w->tick = room->world ? rs_world_tick(room->world) : 0;
    w->track_hash = room->track_hash;
    w->car_count = (uint8_t)(room->world ? room->car_count : 0);
    for (uint32_t i = 0; i < w->car_count; i++)
        w->car_hashes[i] = room->cars[i].params_hash;
    rs_room__send(room, p->id, &m);
}

void rs_room__welcome(rs_room *room, room_peer *p)
{
    int64_t pid = p->seat >= 0 ? room->seats[p->seat].player_id : 0;
    send_welcome(room, p, pid, NULL);
}

static bool is_token(const char *t)
{
    size_t n = 0;
    for (; t[n]; n++) {
        char c = t[n];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return n == RS_PROTO_TOKEN_LEN;
}

/* ------------------------------------------------------------ admission */

/* Where a newcomer may go: a player's seat, or a spectator slot (seat -1);
 * text says why there is no place (REFUSE reason and text). */
typedef struct place {
    int seat;
    uint8_t reason;
    const char *text; /* NULL: there is a place */
} place;

/* The seat holding name (-1: none), and the first free seat (-1: none). */
static int seat_named(const rs_room *room, const char *name, int *free_seat)
{
    int seat = -1;
    *free_seat = -1;
    for (uint32_t i = 0; i < room->cfg.max_players; i++) {
        const room_seat *s = &room->seats[i];
        if (s->used && !s->kicked && rs_proto_name_equal(s->name, name))
            seat = (int)i;
        else if (!s->used && *free_seat < 0)
            *free_seat = (int)i;
    }
    return seat;
}

/* The place of a peer named name asking as flags (RS_HELLO_*), checked
 * twice: before the admit hook (player_id < 0, who it is not known yet) so
 * nobody is looked up, or registered, for a place the room does not have;
 * and at admission (player_id known), because the room may have filled up
 * while the hook worked. A seat holding the name is the player's own (a
 * rejoin) while its player is away, or while its old connection lingers
 * (a crashed game's, until ENet times it out) if the newcomer proves with
 * its token to be the same registered player: it takes the seat over at
 * once. A guest proves nothing, and a registration is a new player, so
 * neither can own a seat that is connected or belongs to someone else. */
static place find_place(const rs_room *room, const char *name, uint8_t flags, bool has_token,
                        int64_t player_id)
{
    bool registering = player_id < 0 && (flags & RS_HELLO_REGISTER);
    const char *full = registering ? "the room is full: register later" : NULL;
    if (flags & RS_HELLO_SPECTATOR) {
        if (count_state(room, PEER_SPECTATOR) >= room->cfg.spectator_slots)
            return (place){-1, RS_REASON_FULL, full ? full : "no spectator slot free"};
        return (place){-1, 0, NULL};
    }
    int free_seat = -1;
    int seat = seat_named(room, name, &free_seat);
    if (seat >= 0) {
        const room_seat *s = &room->seats[seat];
        bool same = player_id > 0 && s->player_id == player_id;
        bool may_be_same = player_id < 0 && has_token && !registering;
        if (s->peer >= 0 && !same && !may_be_same)
            return (place){-1, RS_REASON_NAME_TAKEN, "a player of that name is connected"};
        if (registering || (player_id >= 0 && s->player_id != player_id))
            return (place){-1, RS_REASON_NAME_TAKEN, "that name belongs to another player"};
        return (place){seat, 0, NULL};
    }
    if (free_seat < 0)
        return (place){-1, RS_REASON_FULL, full ? full : "no car free"};
    const char *why = rs_room__entry_refusal(room, name, registering ? 0 : player_id, false);
    if (why)
        return (place){-1, RS_REASON_NOT_ENTERED, why};
    return (place){free_seat, 0, NULL};
}

/* p sits in seat as player_id: its own seat again (a rejoin: the same car
 * in the running race), or a free one taken afresh. */
static void take_seat(rs_room *room, room_peer *p, int seat, int64_t player_id)
{
    room_seat *s = &room->seats[seat];
    if (s->used && s->peer >= 0 && &room->peers[s->peer] != p) {
        /* The same player again (find_place checked the id): the old
         * connection goes, the new one drives on in the same car. */
        room_peer *old = &room->peers[s->peer];
        const char *text = "you connected again from elsewhere";
        rs_room__bye(room, old, RS_REASON_REPLACED, text);
        rs_room__close_peer(room, old, RS_REASON_REPLACED, text, false);
    }
    if (!s->used) {
        rs_room__seat_free(room, seat);
        s->used = true;
        strcpy(s->name, p->name);
        s->player_id = player_id;
        rs_room__seat_assign(room, s);
        uint32_t k = rs_room__offer_of_hash(room, p->car_hash);
        if (s->entry < 0 && k != UINT32_MAX)
            s->offer = (uint8_t)k; /* its entry's car, else the one it asked for */
    }
    s->peer = (int)(p - room->peers);
    p->state = PEER_PLAYER;
    p->seat = seat;
    if (!room->lobby_timer) {
        room->lobby_timer = true;
        room->lobby_since_us = -1; /* set by the next update */
    }
}

/* The end of every admission, whether the answer came at once (a guest)
 * or later (rs_room_admit): the place is checked again, then the player
 * gets WELCOME, the race state, and the blocks or the running world. */
static void admit_now(rs_room *room, room_peer *p, int64_t player_id, const char *token)
{
    place pl = find_place(room, p->name, p->hello_flags, false, player_id);
    if (pl.text) {
        rs_room__refuse(room, p, pl.reason, pl.text);
        return;
    }
    if (p->hello_flags & RS_HELLO_SPECTATOR) {
        p->state = PEER_SPECTATOR;
        p->seat = -1;
    } else {
        take_seat(room, p, pl.seat, player_id);
    }
    p->player_id = player_id;
    send_welcome(room, p, player_id, token);
    rs_room__send_weekend(room, p);
    if (p->seat >= 0 && rs_room__session_join(room, p->seat)) {
        /* A practice or qualifying running: it drives at once, and
         * everyone, this player too, was sent the world with its car. */
    } else {
        rs_room__send_race_state(room, p);
        if (!room->world)
            rs_room__blocks_offer(room); /* the track and car ahead of the race */
        else {
            rs_room__send_world_to(room, p);
            if (p->seat >= 0 && room->seats[p->seat].car)
                rs_room__broadcast_car_info(room, room->seats[p->seat].car);
        }
    }
    if (room->world)
        rs_room__control_send_to(room, p); /* the session's penalties so far */
    if (rs_room__observed(room))
        rs_room__observe_peer(room, RS_ROOM_EV_JOINED, p, 0, "", false, false);
}

/* The room's own checks of a HELLO, before anyone is asked who it is:
 * false when p was refused. */
static bool hello_fits(rs_room *room, room_peer *p, const rs_msg_hello *h)
{
    char text[RS_PROTO_TEXT_MAX + 1];
    if (h->physics_version != RS_PHYSICS_VERSION) {
        snprintf(text, sizeof text, "physics version %u, server runs %u: update the game",
                 (unsigned)h->physics_version, (unsigned)RS_PHYSICS_VERSION);
        rs_room__refuse(room, p, RS_REASON_PHYSICS, text);
        return false;
    }
    if (h->room[0] && strcmp(h->room, room->name) != 0) {
        snprintf(text, sizeof text, "no room named \"%s\" here", h->room);
        rs_room__refuse(room, p, RS_REASON_NO_ROOM, text);
        return false;
    }
    if (room->password[0] && strcmp(room->password, h->password) != 0) {
        rs_room__refuse(room, p, RS_REASON_PASSWORD, "wrong room password");
        return false;
    }
    if (h->car_hash && !(h->flags & RS_HELLO_SPECTATOR) &&
        rs_room__offer_of_hash(room, h->car_hash) == UINT32_MAX) {
        snprintf(text, sizeof text, "no car %016llx in this room: see its cars in WEEKEND",
                 (unsigned long long)h->car_hash);
        rs_room__refuse(room, p, RS_REASON_NO_CAR, text);
        return false;
    }
    if ((h->flags & RS_HELLO_REGISTER) && !room->cfg.hooks.admit) {
        rs_room__refuse(room, p, RS_REASON_AUTH, "this room cannot register players");
        return false;
    }
    place pl = find_place(room, h->name, h->flags, h->token[0] != '\0', -1);
    if (pl.text) {
        rs_room__refuse(room, p, pl.reason, pl.text);
        return false;
    }
    return true;
}

/* The peer of this id if it is waiting for admission, else NULL. */
static room_peer *admitting_peer(rs_room *room, uint32_t id)
{
    room_peer *p = rs_room__find_peer(room, id);
    return p && p->state == PEER_ADMITTING ? p : NULL;
}

static void on_hello(rs_room *room, room_peer *p, const rs_msg_hello *h)
{
    /* Named and flagged first, so that a refusal says whom it refused. */
    strcpy(p->name, h->name);
    p->hello_flags = h->flags;
    p->car_hash = h->car_hash;
    if (room->closed) {
        rs_room__refuse(room, p, RS_REASON_FULL, room->closed_why);
        return;
    }
    if (!hello_fits(room, p, h))
        return;
    p->state = PEER_ADMITTING;
    if (!room->cfg.hooks.admit) {
        admit_now(room, p, 0, NULL);
        return;
    }
    uint32_t id = p->id;
    uint8_t verdict = room->cfg.hooks.admit(room->cfg.hooks.ctx, room, id, h);
    /* The hook may have answered already (rs_room_admit, rs_room_refuse
     * inside the call): then the peer is waiting no more. */
    p = admitting_peer(room, id);
    if (!p || verdict == RS_ROOM_ADMIT_PENDING)
        return;
    if (verdict == RS_ROOM_ADMIT_GUEST)
        admit_now(room, p, 0, NULL);
    else /* a verdict the room does not know: better refused than waiting for nothing */
        rs_room__refuse(room, p, RS_REASON_AUTH, "admission failed");
}

bool rs_room_admit(rs_room *room, uint32_t peer, int64_t player_id, const char *token)
{
    room_peer *p = room ? admitting_peer(room, peer) : NULL;
    if (!p)
        return false;
    if (player_id < 0 || (token && (player_id == 0 || !is_token(token)))) {
        /* A hook that breaks its contract must not produce a WELCOME that
         * does not encode, nor leave the player waiting for one. */
        rs_room__refuse(room, p, RS_REASON_AUTH, "admission failed");
        return true;
    }
    admit_now(room, p, player_id, token);
    return true;
}

void rs_room_set_open(rs_room *room, bool open, const char *why)
{
    if (!room)
        return;
    room->closed = !open;
    snprintf(room->closed_why, sizeof room->closed_why, "%s",
             why ? why : "the server is busy: try again later");
}

bool rs_room_refuse(rs_room *room, uint32_t peer, uint8_t reason, const char *text)
{
    room_peer *p = room ? admitting_peer(room, peer) : NULL;
    if (!p)
        return false;
    rs_room__refuse(room, p, reason < RS_REASON_COUNT ? reason : RS_REASON_OTHER,
                    text ? text : "");
    return true;
}

/* A HELLO whose name breaks the name rules (the decoder refused it with
 * why, "hello.name: player name: control character U+0007 at byte 3") is
 * answered in words, so the player learns what to change instead of
 * waiting for a timeout. The name itself is not echoed: it may hold what
 * the player's screen should not show. */
static void refuse_name(rs_room *room, room_peer *p, const char *why)
{
    const char *rule = strstr(why, "player name: ");
    char text[RS_PROTO_TEXT_MAX + 1];
    snprintf(text, sizeof text, "your player name is not allowed: %.160s",
             rule ? rule + strlen("player name: ") : why);
    rs_room__refuse(room, p, RS_REASON_BAD_NAME, text);
}

/* Drops a message that must not be acted on, counting it. */
static void drop(rs_room *room)
{
    room->stats.dropped_messages++;
}

static bool rate_ok(rs_room *room, room_peer *p, int64_t now_us)
{
    if (now_us - p->rate_window_us >= 1000000 || now_us < p->rate_window_us) {
        p->rate_window_us = now_us;
        p->rate_count = 0;
    }
    if (++p->rate_count > room->cfg.max_input_rate) {
        room->stats.rate_limited++;
        return false;
    }
    return true;
}

void rs_room_receive(rs_room *room, uint32_t peer, uint8_t channel, const uint8_t *bytes,
                     size_t len, int64_t now_us)
{
    room->now_us = now_us;
    room->stats.packets_in++;
    room->stats.bytes_in += len;
    room_peer *p = rs_room__find_peer(room, peer);
    if (!p || p->state == PEER_CLOSING || !bytes) {
        drop(room);
        return;
    }
    rs_msg m;
    const char *bad_field = NULL;
    char why[RS_PROTO_TEXT_MAX + 1];
    rs_proto_status st = rs_proto_decode_err(bytes, len, &m, &bad_field, why, sizeof why);
    if (st == RS_PROTO_BAD_VERSION && p->state == PEER_NEW) {
        rs_msg r;
        rs_proto_refuse_version(m.u.hello.protocol_version, &r);
        rs_room__refuse(room, p, r.u.refuse.reason, r.u.refuse.text);
        return;
    }
    if (st == RS_PROTO_RANGE && p->state == PEER_NEW && bad_field &&
        strcmp(bad_field, "hello.name") == 0) {
        refuse_name(room, p, why);
        return;
    }
    uint8_t ch = 0, dir = 0;
    bool rel = false;
    if (st != RS_PROTO_OK || !rs_proto_msg_info(m.type, &ch, &rel, &dir) ||
        !(dir & RS_DIR_TO_SERVER) || ch != channel) {
        drop(room);
        return;
    }
    if (p->state == PEER_NEW || p->state == PEER_ADMITTING) {
        /* Nothing counts before admission but a goodbye; a second HELLO
         * while the first is being decided is dropped like the rest. */
        if (m.type == RS_MSG_HELLO && p->state == PEER_NEW)
            on_hello(room, p, &m.u.hello);
        else if (m.type == RS_MSG_BYE)
            rs_room__close_peer(room, p, m.u.bye.reason, m.u.bye.text, true);
        else
            drop(room);
        return;
    }
    switch (m.type) {
    case RS_MSG_INPUT:
        if (rate_ok(room, p, now_us))
            rs_room__on_input(room, p, &m.u.input, now_us);
        break;
    case RS_MSG_PING: {
        if (!rate_ok(room, p, now_us))
            break; /* PINGs share the INPUT budget: a flood gets no PONGs */
        rs_msg r;
        memset(&r, 0, sizeof r);
        r.type = RS_MSG_PONG;
        r.u.pong.id = m.u.ping.id;
        r.u.pong.echo_time_us = m.u.ping.time_us;
        r.u.pong.tick = room->world ? rs_world_tick(room->world) : 0;
        rs_room__send(room, p->id, &r);
        break;
    }
    case RS_MSG_PONG:
        break;
    case RS_MSG_SNAPSHOT_REQUEST:
        /* A world is tens of kilobytes: at most one per second per peer, so
         * requests cannot be used to make the room flood anyone. */
        if (room->world &&
            (now_us - p->last_snapshot_us >= 1000000 || now_us < p->last_snapshot_us)) {
            p->last_snapshot_us = now_us;
            rs_room__send_world_to(room, p);
        } else {
            room->stats.rate_limited++;
        }
        break;
    case RS_MSG_DESYNC_REPORT:
        room->stats.desync_reports++;
        break;
    case RS_MSG_PARAMS_ACK:
        rs_room__on_params_ack(p, &m.u.params_ack);
        break;
    case RS_MSG_BYE:
        rs_room__close_peer(room, p, m.u.bye.reason, m.u.bye.text, true);
        break;
    case RS_MSG_HELLO:
        drop(room); /* a second handshake on one connection */
        break;
    case RS_MSG_CHAT:
        rs_room__on_chat(room, p, &m.u.chat, now_us);
        break;
    case RS_MSG_COMMAND:
        rs_room__on_command(room, p, &m.u.command, now_us);
        break;
    case RS_MSG_LEADERBOARD_REQUEST:
    case RS_MSG_STANDINGS_REQUEST:
    case RS_MSG_TUNE_SAVE:
    case RS_MSG_TUNE_LOAD:
    case RS_MSG_TUNE_LIST:
    case RS_MSG_SELECT_TUNE:
    case RS_MSG_ADMIN:
    case RS_MSG_TOKEN_ROTATE:
    case RS_MSG_TOKEN_ACK:
        /* Leaderboards, tunes, admin commands and tokens are the server's
         * business (they need the store): the request hook answers them. */
        rs_room__on_request(room, p, &m, now_us);
        break;
    default:
        drop(room);
        break;
    }
}

void rs_room_get_stats(const rs_room *room, rs_room_stats *out)
{
    *out = room->stats;
    out->phase = room->phase;
    out->race_number = room->race_number;
    out->tick = room->world ? rs_world_tick(room->world) : 0;
    out->players = 0;
    for (uint32_t i = 0; i < room->cfg.max_players; i++)
        out->players += room->seats[i].used && room->seats[i].peer >= 0;
    out->spectators = count_state(room, PEER_SPECTATOR);
    out->max_players = room->cfg.max_players;
    out->spectator_slots = room->cfg.spectator_slots;
}

const rs_world *rs_room_world(const rs_room *room)
{
    return room->world;
}

bool rs_room_hash_at(const rs_room *room, uint64_t tick, uint64_t *hash)
{
    uint32_t i = (uint32_t)(tick % RS_ROOM_HASH_RING);
    if (!room->world || room->hash_tick[i] != tick + 1)
        return false;
    *hash = room->hash_val[i];
    return true;
}
