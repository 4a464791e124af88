/*
 * Requests a room hands to its services (the request hook): leaderboard
 * pages, tunes (save, load, list, select) and admin commands. Each is one
 * or two indexed queries on the services' connection, answered at once on
 * the room's thread; the room has already rate-limited the peer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/base/clock.h"
#include "racesim/tune.h"
#include "services_internal.h"

/* ---------------------------------------------------------- leaderboards */

static void on_leaderboard(rs_services *svc, rs_room *room, uint32_t peer,
                           const rs_msg_leaderboard_request *q)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_LEADERBOARD_REPLY;
    rs_msg_leaderboard_reply *a = &m.u.leaderboard_reply;
    *a = (rs_msg_leaderboard_reply){.request_id = q->request_id, .offset = q->offset};
    /* The wire's tune key is the store's (0 any, max stock); hashes of 0 are
     * the room's track and stock car. */
    rs_board_key key = {
        q->track_hash ? q->track_hash : rs_track_hash(rs_room_track(room, NULL, NULL)),
        q->base_hash ? q->base_hash : rs_car_params_hash(rs_room_stock_car(room)),
        RS_PHYSICS_VERSION, q->tune_key};
    uint32_t total = 0, count = 0;
    rs_lb_row rows[RS_PROTO_LB_ROWS];
    char err[256];
    uint32_t limit = q->count < RS_PROTO_LB_ROWS ? q->count : RS_PROTO_LB_ROWS;
    rs_status st = rs_leaderboard_count(svc->lb, &key, &total, err, sizeof err);
    if (st == RS_OK)
        st = rs_leaderboard_top(svc->lb, &key, q->offset, limit, rows, &count, err, sizeof err);
    if (st != RS_OK) {
        rs_svc__error(svc, "leaderboard", err);
        a->result = RS_RESULT_ERROR;
        rs_room_send(room, peer, &m);
        return;
    }
    a->result = RS_RESULT_OK;
    a->total = total;
    for (uint32_t i = 0; i < count; i++) {
        rs_proto_lb_row *o = &a->rows[a->count];
        if (rows[i].time_us <= 0 || rows[i].time_us > RS_PROTO_TIME_MAX_US)
            continue; /* not representable on the wire */
        o->rank = rows[i].rank;
        const char *name = rows[i].player_name;
        size_t len = strlen(name);
        if (rs_proto_name_check(name, len, NULL, 0))
            memcpy(o->name, name, len + 1); /* at most RS_PROTO_NAME_MAX bytes: checked */
        else /* a name from before the name rules (docs/PERSISTENCE.md, "Player names") */
            snprintf(o->name, sizeof o->name, "(player %lld)", (long long)rows[i].player_id);
        o->time_us = rows[i].time_us;
        o->tune_hash = rows[i].tune_hash;
        o->recorded_at = rows[i].recorded_at > 0 ? rows[i].recorded_at : 0;
        if (o->name[0])
            a->count++;
    }
    rs_room_send(room, peer, &m);
}

/* ------------------------------------------------------------------ tunes */

static void tune_reply(rs_room *room, uint32_t peer, uint32_t request_id, uint8_t op,
                       uint8_t result, uint64_t tune_hash, const char *text)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_TUNE_REPLY;
    rs_msg_tune_reply *r = &m.u.tune_reply;
    *r = (rs_msg_tune_reply){
        .request_id = request_id, .op = op, .result = result, .tune_hash = tune_hash};
    size_t n = strlen(text);
    if (n > RS_PROTO_TUNE_TEXT_MAX) {
        /* Cut at a UTF-8 boundary, marking the cut. */
        n = RS_PROTO_TUNE_TEXT_MAX - 3;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--;
        memcpy(r->text, text, n);
        memcpy(r->text + n, "...", 4);
    } else {
        memcpy(r->text, text, n + 1);
    }
    rs_room_send(room, peer, &m);
}

/* Tunes are kept per registered player: a guest (player_id 0) is answered
 * DENIED with why, and false is returned. */
static bool registered(rs_room *room, uint32_t peer, int64_t player_id, uint32_t request_id,
                       uint8_t op, const char *why)
{
    if (player_id <= 0)
        tune_reply(room, peer, request_id, op, RS_RESULT_DENIED, 0, why);
    return player_id > 0;
}

static void on_tune_save(rs_services *svc, rs_room *room, uint32_t peer, int64_t player_id,
                         const rs_msg_tune_save *q)
{
    if (!registered(room, peer, player_id, q->request_id, RS_TUNE_OP_SAVE,
                    "guests cannot store tunes: register first"))
        return;
    const rs_car_params *stock = rs_room_stock_car(room);
    char err[RS_PROTO_TUNE_TEXT_MAX + 1];
    int64_t id = 0;
    uint64_t hash = 0;
    if (rs_svc__put_car(svc, stock, 0) != RS_OK) {
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_SAVE, RS_RESULT_ERROR, 0,
                   "the server cannot store tunes right now");
        return;
    }
    rs_status st = rs_store_tune_put(svc->store, player_id, stock, q->name, q->json,
                                     strlen(q->json), rs_wall_time_s(), &id, &hash, err,
                                     sizeof err);
    if (st == RS_OK) {
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_SAVE, RS_RESULT_OK, hash, "");
    } else if (st == RS_ERR_PARSE || st == RS_ERR_RANGE || st == RS_ERR_MISMATCH) {
        /* err names every bad field ("name: field: value outside a..b; ..."). */
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_SAVE, RS_RESULT_INVALID, 0, err);
    } else {
        rs_svc__error(svc, "saving a tune", err);
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_SAVE, RS_RESULT_ERROR, 0,
                   "the server cannot store tunes right now");
    }
}

/* Loads a player's tune for the room's stock car: RS_RESULT_* and, on
 * success, *json (caller frees with free()). */
static uint8_t load_tune(rs_services *svc, rs_room *room, int64_t player_id, const char *name,
                         rs_store_tune *info, char **json)
{
    char err[256];
    uint64_t base = rs_car_params_hash(rs_room_stock_car(room));
    rs_status st = rs_store_tune_load(svc->store, player_id, base, name, info, json, err,
                                      sizeof err);
    if (st == RS_OK)
        return RS_RESULT_OK;
    if (st == RS_ERR_MISSING)
        return RS_RESULT_NOT_FOUND;
    rs_svc__error(svc, "loading a tune", err);
    return RS_RESULT_ERROR;
}

static void on_tune_load(rs_services *svc, rs_room *room, uint32_t peer, int64_t player_id,
                         const rs_msg_tune_load *q)
{
    if (!registered(room, peer, player_id, q->request_id, RS_TUNE_OP_LOAD,
                    "guests have no tunes: register first"))
        return;
    rs_store_tune info;
    char *json = NULL;
    uint8_t res = load_tune(svc, room, player_id, q->name, &info, &json);
    if (res == RS_RESULT_OK && strlen(json) > RS_PROTO_TUNE_TEXT_MAX)
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_LOAD, RS_RESULT_ERROR, info.tune_hash,
                   "the tune is too long for a reply");
    else if (res == RS_RESULT_OK)
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_LOAD, res, info.tune_hash, json);
    else
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_LOAD, res, 0,
                   res == RS_RESULT_NOT_FOUND ? "no tune of that name for this car"
                                              : "the server cannot load tunes right now");
    free(json);
}

static void on_tune_list(rs_services *svc, rs_room *room, uint32_t peer, int64_t player_id,
                         const rs_msg_tune_list *q)
{
    if (!registered(room, peer, player_id, q->request_id, RS_TUNE_OP_LIST,
                    "guests have no tunes: register first"))
        return;
    uint64_t base = q->base_hash ? q->base_hash : rs_car_params_hash(rs_room_stock_car(room));
    rs_store_tune list[64];
    size_t total = 0;
    char err[256];
    rs_status st = rs_store_tune_list(svc->store, player_id, base, list, 64, &total, err,
                                      sizeof err);
    if (st != RS_OK) {
        rs_svc__error(svc, "listing tunes", err);
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_LIST, RS_RESULT_ERROR, 0,
                   "the server cannot list tunes right now");
        return;
    }
    /* One name per line; whatever does not fit is left off. */
    char text[RS_PROTO_TUNE_TEXT_MAX + 1];
    size_t len = 0;
    text[0] = '\0';
    for (size_t i = 0; i < total && i < 64; i++) {
        size_t n = strlen(list[i].name);
        if (len + n + 1 > RS_PROTO_TUNE_TEXT_MAX)
            break;
        memcpy(text + len, list[i].name, n);
        len += n;
        text[len++] = '\n';
        text[len] = '\0';
    }
    tune_reply(room, peer, q->request_id, RS_TUNE_OP_LIST, RS_RESULT_OK, 0, text);
}

static void on_select_tune(rs_services *svc, rs_room *room, uint32_t peer, int64_t player_id,
                           const char *name, const rs_msg_select_tune *q)
{
    /* Only authenticated players choose cars: a guest's name proves nothing
     * (a spectator could take a driver's guest name), and guests always
     * drive the stock car. */
    if (!registered(room, peer, player_id, q->request_id, RS_TUNE_OP_SELECT,
                    "guests drive the stock car: register to choose a tune"))
        return;
    if (!q->name[0]) {
        rs_status st = rs_room_set_seat_car(room, name, NULL, 0);
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_SELECT,
                   st == RS_OK ? RS_RESULT_OK : RS_RESULT_INVALID, 0,
                   st == RS_OK ? "stock car from the next race on" : "spectators drive no car");
        return;
    }
    rs_store_tune info;
    char *json = NULL;
    uint8_t res = load_tune(svc, room, player_id, q->name, &info, &json);
    if (res != RS_RESULT_OK) {
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_SELECT, res, 0,
                   res == RS_RESULT_NOT_FOUND ? "no tune of that name for this car"
                                              : "the server cannot load tunes right now");
        return;
    }
    /* Built from the room's stock car, which holds the tuning rules. */
    rs_car_params *tuned = NULL;
    uint64_t hash = 0;
    char err[RS_PROTO_TUNE_TEXT_MAX + 1];
    rs_status st = rs_tune_apply(rs_room_stock_car(room), json, strlen(json), q->name, &tuned,
                                 &hash, err, sizeof err);
    free(json);
    if (st != RS_OK) {
        /* A tune stored for an older car file with other ranges. */
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_SELECT, RS_RESULT_INVALID, 0, err);
        return;
    }
    st = rs_room_set_seat_car(room, name, hash ? tuned : NULL, hash);
    rs_car_params_destroy(tuned);
    if (st == RS_OK)
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_SELECT, RS_RESULT_OK, hash,
                   "from the next race on");
    else
        tune_reply(room, peer, q->request_id, RS_TUNE_OP_SELECT, RS_RESULT_INVALID, 0,
                   st == RS_ERR_ARG ? "spectators drive no car" : rs_status_str(st));
}

/* ------------------------------------------------------------------ admin */

/* Compares the secrets in time that depends only on the configured
 * secret's length (64 steps), not on where they differ. */
static bool secret_ok(const rs_services *svc, const char *given)
{
    if (svc->secret_len == 0)
        return false;
    size_t glen = 0; /* the caller's own length may show in the timing; ours does not */
    while (glen <= RS_PROTO_SECRET_MAX && given[glen])
        glen++;
    volatile unsigned diff = (unsigned)(glen != svc->secret_len);
    for (size_t i = 0; i < RS_PROTO_SECRET_MAX; i++) {
        unsigned char a = i < glen ? (unsigned char)given[i] : 0;
        unsigned char b = (unsigned char)svc->secret[i]; /* zero-padded */
        diff |= (unsigned)(a ^ b);
    }
    return diff == 0;
}

static void admin_reply(rs_room *room, uint32_t peer, uint32_t request_id, uint8_t result,
                        const char *text)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_ADMIN_REPLY;
    m.u.admin_reply = (rs_msg_admin_reply){.request_id = request_id, .result = result};
    snprintf(m.u.admin_reply.text, sizeof m.u.admin_reply.text, "%s", text);
    rs_room_send(room, peer, &m);
}

static void on_admin(rs_services *svc, rs_room *room, uint32_t peer, const rs_msg_admin *q)
{
    char text[RS_PROTO_TEXT_MAX + 1];
    if (!secret_ok(svc, q->secret)) {
        svc->stats.admin_denied++;
        admin_reply(room, peer, q->request_id, RS_RESULT_DENIED,
                    svc->secret_len ? "wrong admin secret" : "admin commands are disabled");
        return;
    }
    /* The reply goes out first: the admin may be kicking themself. */
    switch (q->command) {
    case RS_ADMIN_KICK: {
        bool any = false;
        for (uint32_t i = 0; i < svc->room_count; i++)
            any |= rs_room_kick(svc->rooms[i], q->arg, RS_REASON_KICKED,
                                "kicked by an administrator");
        if (!any && rs_room_kick(room, q->arg, RS_REASON_KICKED, "kicked by an administrator"))
            any = true;
        snprintf(text, sizeof text, any ? "%s kicked" : "nobody called %s is connected", q->arg);
        admin_reply(room, peer, q->request_id, any ? RS_RESULT_OK : RS_RESULT_NOT_FOUND, text);
        break;
    }
    case RS_ADMIN_BAN: {
        if (!q->arg[0] || strlen(q->arg) > RS_PROTO_NAME_MAX) {
            admin_reply(room, peer, q->request_id, RS_RESULT_INVALID, "ban: a player name");
            break;
        }
        rs_room_kick(room, q->arg, RS_REASON_BANNED, "banned by an administrator");
        rs_status st = rs_services_ban(svc, q->arg);
        snprintf(text, sizeof text, st == RS_OK ? "%s banned" : "%s banned (not saved to disk)",
                 q->arg);
        admin_reply(room, peer, q->request_id, st == RS_ERR_NOMEM ? RS_RESULT_ERROR : RS_RESULT_OK,
                    text);
        break;
    }
    case RS_ADMIN_END_RACE: {
        bool ok = rs_room_end_race(room);
        admin_reply(room, peer, q->request_id, ok ? RS_RESULT_OK : RS_RESULT_INVALID,
                    ok ? "race ended" : "no race is running");
        break;
    }
    case RS_ADMIN_CHANGE_TRACK: {
        for (uint32_t i = 0; i < svc->track_count; i++) {
            const rs_services_track *t = &svc->tracks[i];
            if (!rs_svc__name_eq(t->name, q->arg))
                continue;
            rs_status st = rs_room_set_track(room, t->track, t->json, t->json_len);
            snprintf(text, sizeof text,
                     st == RS_OK ? "the next race runs on %s" : "%s has too few grid slots",
                     t->name);
            admin_reply(room, peer, q->request_id, st == RS_OK ? RS_RESULT_OK : RS_RESULT_INVALID,
                        text);
            return;
        }
        /* Name the choices, as many as fit. */
        int n = snprintf(text, sizeof text, "no track called %s; tracks:", q->arg);
        for (uint32_t i = 0; i < svc->track_count && n > 0 && (size_t)n < sizeof text; i++)
            n += snprintf(text + n, sizeof text - (size_t)n, " %s", svc->tracks[i].name);
        admin_reply(room, peer, q->request_id, RS_RESULT_NOT_FOUND, text);
        break;
    }
    default:
        admin_reply(room, peer, q->request_id, RS_RESULT_INVALID, "unknown command");
        break;
    }
}

void rs_svc__request(void *ctx, rs_room *room, uint32_t peer, int64_t player_id, const char *name,
                     const rs_msg *msg)
{
    rs_services *svc = ctx;
    rs_svc__note_room(svc, room);
    svc->stats.requests++;
    switch (msg->type) {
    case RS_MSG_LEADERBOARD_REQUEST:
        on_leaderboard(svc, room, peer, &msg->u.leaderboard_request);
        break;
    case RS_MSG_TUNE_SAVE:
        on_tune_save(svc, room, peer, player_id, &msg->u.tune_save);
        break;
    case RS_MSG_TUNE_LOAD:
        on_tune_load(svc, room, peer, player_id, &msg->u.tune_load);
        break;
    case RS_MSG_TUNE_LIST:
        on_tune_list(svc, room, peer, player_id, &msg->u.tune_list);
        break;
    case RS_MSG_SELECT_TUNE:
        on_select_tune(svc, room, peer, player_id, name, &msg->u.select_tune);
        break;
    case RS_MSG_ADMIN:
        on_admin(svc, room, peer, &msg->u.admin);
        break;
    default:
        break;
    }
}
