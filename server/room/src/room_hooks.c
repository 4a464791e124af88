/*
 * What a room offers its server (racesim/room.h, "the server's controls"):
 * requests handed to the request hook, per-seat cars, kicks, ending a race,
 * changing the track, deferred LAP flags and shutdown. The room stays free
 * of storage and secrets: the hooks (rs_room_hooks) bring those in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "room_internal.h"

void rs_room__seat_free(rs_room *room, int seat)
{
    room_seat *s = &room->seats[seat];
    free(s->block);
    rs_room__seat_car_free(&s->eff);
    memset(s, 0, sizeof *s);
    s->peer = -1;
    s->entry = -1;
}

/* ------------------------------------------------------------ requests */

/* The reply a request gets when nobody answers it (or too many came). */
static void reply_plain(rs_room *room, room_peer *p, const rs_msg *req, uint8_t result,
                        const char *text)
{
    rs_msg r;
    memset(&r, 0, sizeof r);
    switch (req->type) {
    case RS_MSG_LEADERBOARD_REQUEST:
        r.type = RS_MSG_LEADERBOARD_REPLY;
        r.u.leaderboard_reply.request_id = req->u.leaderboard_request.request_id;
        r.u.leaderboard_reply.result = result;
        r.u.leaderboard_reply.offset = req->u.leaderboard_request.offset;
        break;
    case RS_MSG_STANDINGS_REQUEST:
        r.type = RS_MSG_STANDINGS_REPLY;
        r.u.standings_reply.request_id = req->u.standings_request.request_id;
        r.u.standings_reply.result = result;
        r.u.standings_reply.offset = req->u.standings_request.offset;
        break;
    case RS_MSG_ADMIN:
        r.type = RS_MSG_ADMIN_REPLY;
        r.u.admin_reply.request_id = req->u.admin.request_id;
        r.u.admin_reply.result = result;
        snprintf(r.u.admin_reply.text, sizeof r.u.admin_reply.text, "%s", text);
        break;
    case RS_MSG_TOKEN_ROTATE:
        r.type = RS_MSG_TOKEN_REPLY; /* no token: only a rotation that worked carries one */
        r.u.token_reply.request_id = req->u.token_rotate.request_id;
        r.u.token_reply.result = result;
        snprintf(r.u.token_reply.text, sizeof r.u.token_reply.text, "%s", text);
        break;
    case RS_MSG_TOKEN_ACK:
        return; /* a confirmation has no reply */
    default:
        r.type = RS_MSG_TUNE_REPLY;
        r.u.tune_reply.result = result;
        snprintf(r.u.tune_reply.text, sizeof r.u.tune_reply.text, "%s", text);
        if (req->type == RS_MSG_TUNE_SAVE) {
            r.u.tune_reply.request_id = req->u.tune_save.request_id;
            r.u.tune_reply.op = RS_TUNE_OP_SAVE;
        } else if (req->type == RS_MSG_TUNE_LOAD) {
            r.u.tune_reply.request_id = req->u.tune_load.request_id;
            r.u.tune_reply.op = RS_TUNE_OP_LOAD;
        } else if (req->type == RS_MSG_TUNE_LIST) {
            r.u.tune_reply.request_id = req->u.tune_list.request_id;
            r.u.tune_reply.op = RS_TUNE_OP_LIST;
        } else {
            r.u.tune_reply.request_id = req->u.select_tune.request_id;
            r.u.tune_reply.op = RS_TUNE_OP_SELECT;
        }
        break;
    }
    rs_room__send(room, p->id, &r);
}

bool rs_room__request_budget(rs_room *room, room_peer *p, int64_t now_us)
{
    if (now_us - p->req_window_us >= 1000000 || now_us < p->req_window_us) {
        p->req_window_us = now_us;
        p->req_count = 0;
    }
    if (++p->req_count <= RS_ROOM_REQUEST_RATE)
        return true;
    room->stats.rate_limited++;
    return false;
}

void rs_room__on_request(rs_room *room, room_peer *p, const rs_msg *m, int64_t now_us)
{
    if (!rs_room__request_budget(room, p, now_us)) {
        /* A reply smaller than the request, so a flood gains nothing. A
         * TOKEN_ACK gets none, it is dropped: a client sends one per token
         * it receives, and an unconfirmed token leaves the player no worse
         * off than before it was issued (protocol.h, TOKEN_ACK). */
        reply_plain(room, p, m, RS_RESULT_BUSY, "too many requests");
        return;
    }
    if (!room->cfg.hooks.request) {
        /* Nobody issued a token to confirm: a TOKEN_ACK is no request here. */
        if (m->type == RS_MSG_TOKEN_ACK)
            return;
        room->stats.requests++;
        reply_plain(room, p, m, RS_RESULT_ERROR, "unsupported");
        return;
    }
    room->stats.requests++;
    room->cfg.hooks.request(room->cfg.hooks.ctx, room, p->id, p->player_id, p->name, m);
}

bool rs_room_send(rs_room *room, uint32_t peer, const rs_msg *msg)
{
    if (!room || !msg || !rs_room__find_peer(room, peer))
        return false;
    return rs_room__send(room, peer, msg);
}

/* ---------------------------------------------------------- seat cars */

static int seat_by_name(const rs_room *room, const char *name)
{
    for (uint32_t i = 0; i < room->cfg.max_players; i++) {
        const room_seat *s = &room->seats[i];
        if (s->used && !s->kicked && rs_proto_name_equal(s->name, name))
            return (int)i;
    }
    return -1;
}

rs_status rs_room_set_seat_car(rs_room *room, const char *name, const rs_car_params *params,
                               uint64_t tune_hash)
{
    if (!room || !name)
        return RS_ERR_ARG;
    int seat = seat_by_name(room, name);
    if (seat < 0)
        return RS_ERR_ARG;
    room_seat *s = &room->seats[seat];
    if (!params) {
        free(s->block);
        s->block = NULL;
        s->block_len = 0;
        s->params_hash = s->tune_hash = 0;
        rs_room__seat_changed(s);
        return RS_OK;
    }
    /* Through the canonical block, as every client will rebuild it: the
     * hash the room announces is the hash of what the clients get. */
    size_t len = rs_car_params_block(params, NULL, 0);
    uint8_t *block = malloc(len);
    if (!block)
        return RS_ERR_NOMEM;
    rs_car_params_block(params, block, len);
    rs_car_params *copy = NULL;
    rs_status st = rs_car_params_from_block(block, len, &copy, NULL, 0);
    if (st != RS_OK) {
        free(block);
        return st;
    }
    free(s->block);
    s->block = block;
    s->block_len = len;
    s->params_hash = rs_car_params_hash(copy);
    s->tune_hash = tune_hash;
    rs_room__seat_changed(s);
    rs_car_params_destroy(copy);
    return RS_OK;
}

/* ------------------------------------------------------- kicks, shutdown */

bool rs_room_kick(rs_room *room, const char *name, uint8_t reason, const char *text)
{
    if (!room || !name)
        return false;
    bool any = false;
    int seat = seat_by_name(room, name);
    if (seat >= 0 && room->seats[seat].peer >= 0) {
        room_peer *p = &room->peers[room->seats[seat].peer];
        rs_room__bye(room, p, reason, text);
        /* Marked first: leaving then frees a seat without a car at once,
         * and a car in the race is never handed back to this name. */
        room->seats[seat].kicked = true;
        rs_room__close_peer(room, p, reason, text, false);
        any = true;
    }
    for (uint32_t i = 0; i < room->peer_cap; i++) {
        room_peer *p = &room->peers[i];
        if (p->state == PEER_SPECTATOR && rs_proto_name_equal(p->name, name)) {
            rs_room__bye(room, p, reason, text);
            rs_room__close_peer(room, p, reason, text, false);
            any = true;
        }
    }
    return any;
}

void rs_room_close_all(rs_room *room, uint8_t reason, const char *text)
{
    for (uint32_t i = 0; i < room->peer_cap; i++) {
        room_peer *p = &room->peers[i];
        if (p->state == PEER_FREE || p->state == PEER_CLOSING)
            continue;
        rs_room__bye(room, p, reason, text);
        rs_room__close_peer(room, p, reason, text, false);
    }
}

/* ------------------------------------------------------- race controls */

bool rs_room_end_race(rs_room *room)
{
    if (!room || !room->world ||
        (room->phase != RS_PHASE_COUNTDOWN && room->phase != RS_PHASE_RACE))
        return false;
    rs_room__enter_results(room, rs_world_tick(room->world));
    return true;
}

bool rs_room_skip_session(rs_room *room)
{
    if (!rs_room_end_race(room))
        return false;
    rs_room__system(room, NULL, "the session was ended: the next one follows");
    return true;
}

bool rs_room_restart_session(rs_room *room)
{
    if (!room || !room->world || room->phase == RS_PHASE_RESULTS)
        return false;
    /* Its world goes without results, and the same session begins again
     * once the blocks are held: the weekend does not move on. */
    rs_room__destroy_world(room);
    room->phase = RS_PHASE_LOBBY;
    room->phase_tick = room->phase_end_tick = 0;
    room->loading = true;
    room->load_since_us = room->now_us;
    rs_room__send_race_state(room, NULL);
    rs_room__system(room, NULL, "the session begins again");
    return true;
}

rs_status rs_room_set_track(rs_room *room, const rs_track *track, const char *track_json,
                            size_t track_json_len)
{
    if (!room || !track || !track_json || track_json_len == 0)
        return RS_ERR_ARG;
    if (rs_track_grid_count(track) < room->cfg.max_players ||
        track_json_len > RS_PROTO_BLOB_MAX)
        return RS_ERR_RANGE;
    room->next_track = track;
    room->next_json = track_json;
    room->next_json_len = track_json_len;
    rs_room__apply_next_track(room); /* at once in the lobby */
    return RS_OK;
}

const char *rs_room_name(const rs_room *room)
{
    return room->name;
}

const rs_car_params *rs_room_stock_car(const rs_room *room)
{
    return room->cfg.car;
}

const rs_track *rs_room_track(const rs_room *room, const char **json, size_t *json_len)
{
    if (json)
        *json = room->cfg.track_json;
    if (json_len)
        *json_len = room->cfg.track_json_len;
    return room->cfg.track;
}

uint32_t rs_room_laps(const rs_room *room)
{
    return rs_room__session(room)->laps;
}

void rs_room_session_state(const rs_room *room, rs_room_session_info *out)
{
    memset(out, 0, sizeof *out);
    const rs_proto_session_def *s = rs_room__session(room);
    out->weekend = room->weekend;
    out->index = room->session;
    out->count = room->session_count;
    out->def = *s;
    out->running = room->world != NULL;
    out->chequered = room->world && room->chequered;
    if (room->world && s->time_limit_s) {
        int64_t left = (int64_t)s->time_limit_s * 1000000 - rs_world_race_time_us(room->world);
        out->time_left_us = left > 0 ? left : 0;
    } else {
        out->time_left_us = -1;
    }
}

bool rs_room_session_at(const rs_room *room, uint32_t i, rs_proto_session_def *out)
{
    if (!room || i >= room->session_count)
        return false;
    *out = room->sessions[i];
    return true;
}

bool rs_room_car_driver(const rs_room *room, uint8_t car, const char **name,
                        int64_t *player_id, bool *connected)
{
    if (!room || !room->world || car < 1 || car > room->car_count)
        return false;
    int seat = room->cars[car - 1].seat;
    if (seat < 0 || (uint32_t)seat >= room->cfg.max_players)
        return false;
    const room_seat *s = &room->seats[seat];
    if (name)
        *name = s->name;
    if (player_id)
        *player_id = s->player_id;
    if (connected)
        *connected = s->peer >= 0;
    return true;
}

/* -------------------------------------------------------- deferred LAPs */

void rs_room__lap_queue(rs_room *room, const rs_msg_lap *lap)
{
    if (room->laps_len == room->laps_cap) {
        size_t cap = room->laps_cap ? 2 * room->laps_cap : 16;
        room_lap_wait *n = realloc(room->laps, cap * sizeof *n);
        if (!n) {
            /* No memory to wait: the lap goes out now, without flags. */
            rs_msg m;
            m.type = RS_MSG_LAP;
            m.u.lap = *lap;
            rs_room__send_watchers(room, &m);
            return;
        }
        room->laps = n;
        room->laps_cap = cap;
    }
    room_lap_wait *w = &room->laps[room->laps_len++];
    w->lap = *lap;
    w->due_us = room->now_us + RS_ROOM_LAP_WAIT_US;
}

static void lap_release(rs_room *room, size_t i, uint8_t flags)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_LAP;
    m.u.lap = room->laps[i].lap;
    m.u.lap.flags = (uint8_t)((m.u.lap.flags & RS_LAP_CHEQUERED) |
                              (flags & (RS_LAP_RECORDED | RS_LAP_PERSONAL_BEST |
                                        RS_LAP_TRACK_RECORD)));
    rs_room__send_watchers(room, &m);
    /* Keep the rest in order: a car's laps go out in lap order. */
    memmove(room->laps + i, room->laps + i + 1, (room->laps_len - i - 1) * sizeof *room->laps);
    room->laps_len--;
    rs_room__results_flush(room);
}

void rs_room__laps_expire(rs_room *room, bool all)
{
    size_t i = 0;
    while (i < room->laps_len) {
        if (all || room->laps[i].due_us <= room->now_us)
            lap_release(room, i, 0);
        else
            i++;
    }
}

void rs_room_lap_flags(rs_room *room, uint8_t car, uint32_t lap, uint8_t flags)
{
    if (!room)
        return;
    for (size_t i = 0; i < room->laps_len; i++) {
        if (room->laps[i].lap.car == car && room->laps[i].lap.lap == lap) {
            lap_release(room, i, flags);
            return;
        }
    }
}
