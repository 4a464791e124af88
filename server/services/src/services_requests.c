/*
 * Requests a room hands to its services (the request hook): leaderboard
 * pages, tunes (save, load, list, select) and admin commands. The room has
 * rate-limited the peer; here the address's budget is checked, then each
 * becomes a job: the database thread runs its queries (the run_* side) and
 * the room's thread sends the answer and does what only it may do, such as
 * seating a tuned car or kicking a player (the finish_* side).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/base/clock.h"
#include "racesim/base/text.h"
#include "racesim/tune.h"
#include "services_internal.h"

/* ---------------------------------------------------------- leaderboards */

static void run_leaderboard(svc_worker *w, svc_job *job)
{
    const rs_msg_leaderboard_request *q = &job->msg.u.leaderboard_request;
    job->reply.type = RS_MSG_LEADERBOARD_REPLY;
    rs_msg_leaderboard_reply *a = &job->reply.u.leaderboard_reply;
    *a = (rs_msg_leaderboard_reply){.request_id = q->request_id, .offset = q->offset};
    /* The wire's tune key is the store's (0 any, max stock); the hashes of
     * 0 were resolved to the room's track and stock car on its thread. */
    rs_board_key key = {job->track_hash, job->base_hash, RS_PHYSICS_VERSION, q->tune_key};
    uint32_t total = 0, count = 0;
    rs_lb_row rows[RS_PROTO_LB_ROWS];
    uint32_t limit = q->count < RS_PROTO_LB_ROWS ? q->count : RS_PROTO_LB_ROWS;
    rs_status st = rs_leaderboard_count(w->lb, &key, &total, job->error, sizeof job->error);
    if (st == RS_OK)
        st = rs_leaderboard_top(w->lb, &key, q->offset, limit, rows, &count, job->error,
                                sizeof job->error);
    if (st != RS_OK) {
        a->result = RS_RESULT_ERROR;
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
}

/* ------------------------------------------------------------------ tunes */

/* The tune reply of a job, text cut at a UTF-8 boundary if too long. */
static void tune_reply(svc_job *job, uint8_t op, uint8_t result, uint64_t tune_hash,
                       const char *text)
{
    job->reply.type = RS_MSG_TUNE_REPLY;
    rs_msg_tune_reply *r = &job->reply.u.tune_reply;
    /* Every tune request starts with its request id. */
    *r = (rs_msg_tune_reply){.request_id = job->msg.u.tune_save.request_id,
                             .op = op,
                             .result = result,
                             .tune_hash = tune_hash};
    size_t n = strlen(text);
    if (n > RS_PROTO_TUNE_TEXT_MAX) {
        n = RS_PROTO_TUNE_TEXT_MAX - 3;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--;
        memcpy(r->text, text, n);
        memcpy(r->text + n, "...", 4);
    } else {
        memcpy(r->text, text, n + 1);
    }
}

static void run_tune_save(svc_worker *w, svc_job *job)
{
    const rs_msg_tune_save *q = &job->msg.u.tune_save;
    char err[RS_PROTO_TUNE_TEXT_MAX + 1];
    int64_t id = 0;
    uint64_t hash = 0;
    /* The stock car the tune applies to must be stored first. */
    rs_status st = rs_store_put_car(w->store, job->stock, 0, &id, err, sizeof err);
    if (st == RS_OK)
        st = rs_store_tune_put(w->store, job->player_id, job->stock, q->name, q->json,
                               strlen(q->json), rs_wall_time_s(), &id, &hash, err, sizeof err);
    if (st == RS_OK) {
        tune_reply(job, RS_TUNE_OP_SAVE, RS_RESULT_OK, hash, "");
    } else if (st == RS_ERR_PARSE || st == RS_ERR_RANGE || st == RS_ERR_MISMATCH) {
        /* err names every bad field ("name: field: value outside a..b; ..."),
         * or the tune cap. */
        tune_reply(job, RS_TUNE_OP_SAVE, RS_RESULT_INVALID, 0, err);
    } else {
        rs_str_cut(job->error, sizeof job->error, err);
        tune_reply(job, RS_TUNE_OP_SAVE, RS_RESULT_ERROR, 0,
                   "the server cannot store tunes right now");
    }
}

/* Loads the job's player's tune for base_hash: RS_RESULT_* and, on
 * success, *json (caller frees with free()). */
static uint8_t load_tune(svc_worker *w, svc_job *job, const char *name, rs_store_tune *info,
                         char **json)
{
    char err[256];
    rs_status st = rs_store_tune_load(w->store, job->player_id, job->base_hash, name, info, json,
                                      err, sizeof err);
    if (st == RS_OK)
        return RS_RESULT_OK;
    if (st == RS_ERR_MISSING)
        return RS_RESULT_NOT_FOUND;
    rs_str_cut(job->error, sizeof job->error, err);
    return RS_RESULT_ERROR;
}

static const char *load_failure(uint8_t res)
{
    return res == RS_RESULT_NOT_FOUND ? "no tune of that name for this car"
                                      : "the server cannot load tunes right now";
}

static void run_tune_load(svc_worker *w, svc_job *job)
{
    rs_store_tune info;
    char *json = NULL;
    uint8_t res = load_tune(w, job, job->msg.u.tune_load.name, &info, &json);
    if (res == RS_RESULT_OK && strlen(json) > RS_PROTO_TUNE_TEXT_MAX)
        tune_reply(job, RS_TUNE_OP_LOAD, RS_RESULT_ERROR, info.tune_hash,
                   "the tune is too long for a reply");
    else if (res == RS_RESULT_OK)
        tune_reply(job, RS_TUNE_OP_LOAD, res, info.tune_hash, json);
    else
        tune_reply(job, RS_TUNE_OP_LOAD, res, 0, load_failure(res));
    free(json);
}

static void run_tune_list(svc_worker *w, svc_job *job)
{
    enum { PAGE = 64 }; /* more names than fit in one reply */
    rs_store_tune list[PAGE];
    size_t n = 0, total = 0;
    char err[256];
    rs_status st = rs_store_tune_list_page(w->store, job->player_id, job->base_hash,
                                           job->msg.u.tune_list.offset, list, PAGE, &n, &total,
                                           err, sizeof err);
    if (st != RS_OK) {
        rs_str_cut(job->error, sizeof job->error, err);
        tune_reply(job, RS_TUNE_OP_LIST, RS_RESULT_ERROR, 0,
                   "the server cannot list tunes right now");
        return;
    }
    /* One name per line, as many as fit; total says how many there are. */
    char text[RS_PROTO_TUNE_TEXT_MAX + 1];
    size_t len = 0;
    text[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(list[i].name);
        if (len + k + 1 > RS_PROTO_TUNE_TEXT_MAX)
            break;
        memcpy(text + len, list[i].name, k);
        len += k;
        text[len++] = '\n';
        text[len] = '\0';
    }
    tune_reply(job, RS_TUNE_OP_LIST, RS_RESULT_OK, 0, text);
    job->reply.u.tune_reply.total = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

static void run_tune_select(svc_worker *w, svc_job *job)
{
    const rs_msg_select_tune *q = &job->msg.u.select_tune;
    if (!q->name[0]) {
        tune_reply(job, RS_TUNE_OP_SELECT, RS_RESULT_OK, 0, "stock car from the next race on");
        return; /* the room's thread seats the stock car */
    }
    rs_store_tune info;
    char *json = NULL;
    uint8_t res = load_tune(w, job, q->name, &info, &json);
    if (res != RS_RESULT_OK) {
        tune_reply(job, RS_TUNE_OP_SELECT, res, 0, load_failure(res));
        return;
    }
    /* Built from the room's stock car, which holds the tuning rules. */
    char err[RS_PROTO_TUNE_TEXT_MAX + 1];
    rs_status st = rs_tune_apply(job->stock, json, strlen(json), q->name, &job->tuned,
                                 &job->tuned_hash, err, sizeof err);
    free(json);
    if (st != RS_OK) {
        /* A tune stored for an older car file with other ranges. */
        tune_reply(job, RS_TUNE_OP_SELECT, RS_RESULT_INVALID, 0, err);
        return;
    }
    tune_reply(job, RS_TUNE_OP_SELECT, RS_RESULT_OK, job->tuned_hash, "from the next race on");
}

/* SELECT_TUNE's seat change happens on the room's thread. */
static void finish_tune_select(svc_job *job)
{
    rs_msg_tune_reply *r = &job->reply.u.tune_reply;
    if (r->result != RS_RESULT_OK)
        return;
    rs_status st = rs_room_set_seat_car(job->room, job->name,
                                        job->tuned_hash ? job->tuned : NULL, job->tuned_hash);
    if (st != RS_OK) {
        r->result = RS_RESULT_INVALID;
        r->tune_hash = 0;
        snprintf(r->text, sizeof r->text, "%s",
                 st == RS_ERR_ARG ? "spectators drive no car" : rs_status_str(st));
    }
}

/* ------------------------------------------------------------------ admin */

static void admin_reply(svc_job *job, uint8_t result, const char *text)
{
    job->reply.type = RS_MSG_ADMIN_REPLY;
    job->reply.u.admin_reply.request_id = job->msg.u.admin.request_id;
    job->reply.u.admin_reply.result = result;
    snprintf(job->reply.u.admin_reply.text, sizeof job->reply.u.admin_reply.text, "%s", text);
}

/* Every command the decoder accepts has its words: protocol version 6 added
 * 4..11, which finish_admin answers "unknown command" until they are
 * served (4..6, penalties, are), and the audit and the log still name what was asked. */
static const char *const admin_words[RS_ADMIN_COMMAND_COUNT] = {
    "kick",           "ban",      "end race", "change track", "penalty",      "disqualify",
    "remove penalty", "announce", "mute",     "unmute",       "skip session", "restart session"};
/* The same as stable names for log fields. */
static const char *const admin_keys[RS_ADMIN_COMMAND_COUNT] = {
    "kick",           "ban",      "end_race", "change_track", "penalty",      "disqualify",
    "remove_penalty", "announce", "mute",     "unmute",       "skip_session", "restart_session"};

/* Records an admin command or a refused attempt in the audit table (the
 * log line goes out on the room's thread). */
static void audit(svc_worker *w, svc_job *job, const char *result)
{
    const rs_msg_admin *q = &job->msg.u.admin;
    char actor[96], err[256];
    snprintf(actor, sizeof actor, "%s (player %lld)", job->name, (long long)job->player_id);
    if (rs_store_audit_add(w->store, rs_wall_time_s(), actor, job->address,
                           admin_words[q->command], q->arg, result, err, sizeof err) != RS_OK &&
        !job->error[0])
        snprintf(job->error, sizeof job->error, "audit: %.200s", err);
}

/* BAN: a ban row on the player (a registered player by name, or the
 * guest's "~name" row), and for a connected guest on its address too,
 * since a guest can take another name. */
static void run_ban(svc_worker *w, svc_job *job)
{
    const rs_msg_admin *q = &job->msg.u.admin;
    rs_store_ban b;
    memset(&b, 0, sizeof b);
    int64_t now = rs_wall_time_s(), id = 0;
    char err[256], text[RS_PROTO_TEXT_MAX + 1];
    snprintf(b.reason, sizeof b.reason, "%s", q->reason[0] ? q->reason : "banned by an admin");
    b.created_at = now;
    snprintf(b.created_by, sizeof b.created_by, "%s (player %lld)", job->name,
             (long long)job->player_id);
    b.expires_at = q->duration_s ? now + (int64_t)q->duration_s : 0;
    rs_store_player_info info;
    bool registered = rs_store_player_info_by_name(w->store, q->arg, &info, err, sizeof err) ==
                      RS_OK;
    /* A guest's laps sit under its "~name" row (it may have none yet). */
    if (registered)
        rs_str_cut(b.player_name, sizeof b.player_name, q->arg);
    else
        rs_svc__guest_row(q->arg, b.player_name);
    rs_status st = rs_store_ban_add(w->store, &b, &id, err, sizeof err);
    bool done = st == RS_OK;
    if (!registered && job->target_ipv4) {
        rs_store_ban a = b;
        a.player_name[0] = '\0';
        snprintf(a.network, sizeof a.network, "%u.%u.%u.%u/32", job->target_ipv4 >> 24,
                 job->target_ipv4 >> 16 & 0xffu, job->target_ipv4 >> 8 & 0xffu,
                 job->target_ipv4 & 0xffu);
        rs_status sa = rs_store_ban_add(w->store, &a, &id, err, sizeof err);
        done |= sa == RS_OK;
        st = sa == RS_OK ? RS_OK : sa;
    }
    if (!done && !registered && !job->target_ipv4) {
        snprintf(text, sizeof text, "no registered player or connected guest called %s", q->arg);
        admin_reply(job, RS_RESULT_NOT_FOUND, text);
        audit(w, job, "not found");
        return;
    }
    if (!done) {
        rs_str_cut(job->error, sizeof job->error, err);
        admin_reply(job, RS_RESULT_ERROR, "the ban could not be stored");
        audit(w, job, "failed");
        return;
    }
    snprintf(text, sizeof text, "%s banned%s", q->arg, q->duration_s ? " for a while" : "");
    admin_reply(job, RS_RESULT_OK, text);
    audit(w, job, "done");
}

/* REMOVE_PENALTY's argument: a penalty id, 1..2^32-1 in decimal. */
static bool penalty_id(const char *arg, uint32_t *out)
{
    uint64_t v = 0;
    if (!arg[0] || strlen(arg) > 10)
        return false;
    for (const char *c = arg; *c; c++) {
        if (*c < '0' || *c > '9')
            return false;
        v = v * 10u + (uint64_t)(*c - '0');
    }
    if (v < 1 || v > UINT32_MAX)
        return false;
    if (out)
        *out = (uint32_t)v;
    return true;
}

static void run_admin(svc_worker *w, svc_job *job)
{
    const rs_msg_admin *q = &job->msg.u.admin;
    char err[256];
    job->admin = false;
    if (job->player_id > 0 &&
        rs_store_player_is_admin(w->store, job->player_id, &job->admin, err, sizeof err) !=
            RS_OK) {
        rs_str_cut(job->error, sizeof job->error, err);
        admin_reply(job, RS_RESULT_ERROR, "the server cannot check rights right now");
        return;
    }
    if (!job->admin) {
        admin_reply(job, RS_RESULT_DENIED, "you are not an administrator of this server");
        audit(w, job, "denied");
        return;
    }
    if ((q->command == RS_ADMIN_KICK || q->command == RS_ADMIN_BAN) && !q->arg[0]) {
        admin_reply(job, RS_RESULT_INVALID, q->command == RS_ADMIN_KICK ? "kick: a player name"
                                                                          : "ban: a player name");
        return;
    }
    if ((q->command == RS_ADMIN_PENALTY || q->command == RS_ADMIN_DISQUALIFY) && !q->arg[0]) {
        admin_reply(job, RS_RESULT_INVALID, q->command == RS_ADMIN_PENALTY
                                                ? "penalty: a player name"
                                                : "disqualify: a player name");
        return;
    }
    if (q->command == RS_ADMIN_PENALTY &&
        (q->duration_s < 1 || q->duration_s > RS_PROTO_PENALTY_MAX_S)) {
        admin_reply(job, RS_RESULT_INVALID, "penalty: 1..3600 seconds");
        return;
    }
    if ((q->command == RS_ADMIN_MUTE || q->command == RS_ADMIN_UNMUTE) && !q->arg[0]) {
        admin_reply(job, RS_RESULT_INVALID, "mute: a player name");
        return;
    }
    if (q->command == RS_ADMIN_ANNOUNCE && !q->reason[0]) {
        admin_reply(job, RS_RESULT_INVALID, "announce: the text, in the reason");
        return;
    }
    if (q->command == RS_ADMIN_REMOVE_PENALTY && !penalty_id(q->arg, NULL)) {
        admin_reply(job, RS_RESULT_INVALID, "remove penalty: the penalty's id, in decimal");
        return;
    }
    if (q->command == RS_ADMIN_BAN)
        run_ban(w, job);
    else
        audit(w, job, "done"); /* kick, end race, track: done on the room's thread */
}

/* PENALTY, DISQUALIFY and REMOVE_PENALTY in the sender's room (race
 * control, room_control.c), answered in words. */
static void finish_penalty(svc_job *job, rs_room *room, const rs_msg_admin *q, const char *why)
{
    char text[RS_PROTO_TEXT_MAX + 1];
    rs_room_stats st;
    if (room)
        rs_room_get_stats(room, &st);
    if (!room || (st.phase != RS_PHASE_COUNTDOWN && st.phase != RS_PHASE_RACE)) {
        admin_reply(job, RS_RESULT_INVALID, "no session is running");
        return;
    }
    uint32_t id = 0;
    rs_status r;
    if (q->command == RS_ADMIN_REMOVE_PENALTY) {
        penalty_id(q->arg, &id);
        r = rs_room_penalty_remove(room, id, why);
        snprintf(text, sizeof text, r == RS_OK ? "penalty %u removed" : "no penalty %u in force",
                 id);
        admin_reply(job, r == RS_OK ? RS_RESULT_OK : RS_RESULT_NOT_FOUND, text);
        return;
    }
    bool dsq = q->command == RS_ADMIN_DISQUALIFY;
    r = rs_room_penalty_add(room, q->arg, dsq ? RS_PENALTY_DSQ : RS_PENALTY_TIME,
                            dsq ? 0 : q->duration_s, why, &id);
    if (r == RS_OK && dsq)
        snprintf(text, sizeof text, "penalty %u: %.32s disqualified", id, q->arg);
    else if (r == RS_OK)
        snprintf(text, sizeof text, "penalty %u: %u s for %.32s", id, q->duration_s, q->arg);
    else if (r == RS_ERR_MISSING)
        snprintf(text, sizeof text, "nobody called %.32s drives in this session", q->arg);
    else if (r == RS_ERR_RANGE)
        snprintf(text, sizeof text, "time penalties count in races only");
    else
        snprintf(text, sizeof text, "the penalty could not be given");
    admin_reply(job, r == RS_OK              ? RS_RESULT_OK
                     : r == RS_ERR_MISSING ? RS_RESULT_NOT_FOUND
                     : r == RS_ERR_RANGE   ? RS_RESULT_INVALID
                                           : RS_RESULT_ERROR,
                text);
}

/* The commands that act on rooms, on the room's thread. */
static void finish_admin(rs_services *svc, svc_job *job)
{
    const rs_msg_admin *q = &job->msg.u.admin;
    char who[160], text[RS_PROTO_TEXT_MAX + 1];
    rs_svc__who(job, who, sizeof who);
    if (!job->admin) {
        svc->stats.admin_denied++;
        svc_who w = {.room = job->room, .player = job->name, .player_id = job->player_id,
                     .address = job->address};
        rs_services_log_field f[] = {
            {"command", RS_SERVICES_FIELD_STR, admin_keys[q->command], 0},
            {"target", RS_SERVICES_FIELD_STR, q->arg, 0}};
        rs_svc__log(svc, RS_SERVICES_LOG_WARN, "admin_denied", &w, f, 2,
                    "admin: refused %s %s from %s: not an administrator",
                    admin_words[q->command], q->arg, who);
        return;
    }
    if (job->reply.type && job->reply.u.admin_reply.result != RS_RESULT_OK &&
        q->command != RS_ADMIN_BAN)
        return; /* an invalid command, already answered */
    rs_room *room = job->room;
    const char *why = q->reason[0] ? q->reason : NULL;
    switch (q->command) {
    case RS_ADMIN_KICK: {
        snprintf(text, sizeof text, "kicked by an administrator%s%.170s", why ? ": " : "",
                 why ? why : "");
        bool any = false;
        for (uint32_t i = 0; i < svc->room_count; i++)
            any |= rs_svc__kick(svc, svc->rooms[i], q->arg, RS_REASON_KICKED, text, NULL);
        snprintf(text, sizeof text, any ? "%s kicked" : "nobody called %s is connected", q->arg);
        admin_reply(job, any ? RS_RESULT_OK : RS_RESULT_NOT_FOUND, text);
        break;
    }
    case RS_ADMIN_BAN:
        if (job->reply.u.admin_reply.result == RS_RESULT_OK) {
            snprintf(text, sizeof text, "banned by an administrator%s%.170s", why ? ": " : "",
                     why ? why : "");
            for (uint32_t i = 0; i < svc->room_count; i++)
                rs_svc__kick(svc, svc->rooms[i], q->arg, RS_REASON_BANNED, text, NULL);
        }
        break;
    case RS_ADMIN_END_RACE: {
        bool ok = room && rs_room_end_race(room);
        admin_reply(job, ok ? RS_RESULT_OK : RS_RESULT_INVALID,
                    ok ? "race ended" : "no race is running");
        break;
    }
    case RS_ADMIN_CHANGE_TRACK: {
        for (uint32_t i = 0; room && i < svc->track_count; i++) {
            const rs_services_track *t = &svc->tracks[i];
            if (!rs_svc__name_eq(t->name, q->arg))
                continue;
            rs_status st = rs_room_set_track(room, t->track, t->json, t->json_len);
            snprintf(text, sizeof text,
                     st == RS_OK ? "the next race runs on %s" : "%s has too few grid slots",
                     t->name);
            admin_reply(job, st == RS_OK ? RS_RESULT_OK : RS_RESULT_INVALID, text);
            goto logged;
        }
        /* Name the choices, as many as fit. */
        int n = snprintf(text, sizeof text, "no track called %s; tracks:", q->arg);
        for (uint32_t i = 0; i < svc->track_count && n > 0 && (size_t)n < sizeof text; i++)
            n += snprintf(text + n, sizeof text - (size_t)n, " %s", svc->tracks[i].name);
        admin_reply(job, RS_RESULT_NOT_FOUND, text);
        break;
    }
    case RS_ADMIN_PENALTY:
    case RS_ADMIN_DISQUALIFY:
    case RS_ADMIN_REMOVE_PENALTY:
        finish_penalty(job, room, q, why);
        break;
    case RS_ADMIN_ANNOUNCE: {
        bool ok = room && rs_room_announce(room, q->reason);
        admin_reply(job, ok ? RS_RESULT_OK : RS_RESULT_INVALID,
                    ok ? "announced" : "not in a room");
        break;
    }
    case RS_ADMIN_MUTE: {
        rs_status st = room ? rs_room_mute(room, q->arg, q->duration_s) : RS_ERR_ARG;
        if (st == RS_OK && q->duration_s)
            snprintf(text, sizeof text, "%s is muted for %u s", q->arg, (unsigned)q->duration_s);
        else if (st == RS_OK)
            snprintf(text, sizeof text, "%s is muted until unmuted", q->arg);
        else
            snprintf(text, sizeof text, "%s",
                     st == RS_ERR_FULL ? "32 players are muted already" : "not in a room");
        admin_reply(job, st == RS_OK ? RS_RESULT_OK : RS_RESULT_INVALID, text);
        break;
    }
    case RS_ADMIN_UNMUTE: {
        rs_status st = room ? rs_room_unmute(room, q->arg) : RS_ERR_ARG;
        snprintf(text, sizeof text, st == RS_OK ? "%s is unmuted" : "%s was not muted", q->arg);
        admin_reply(job, st == RS_OK ? RS_RESULT_OK : RS_RESULT_NOT_FOUND, text);
        break;
    }
    case RS_ADMIN_SKIP_SESSION:
    case RS_ADMIN_RESTART_SESSION: {
        bool skip = q->command == RS_ADMIN_SKIP_SESSION;
        bool ok = room && (skip ? rs_room_skip_session(room) : rs_room_restart_session(room));
        admin_reply(job, ok ? RS_RESULT_OK : RS_RESULT_INVALID,
                    !ok ? "no session is running"
                        : skip ? "the session is over: the next follows"
                               : "the session begins again");
        break;
    }
    default:
        admin_reply(job, RS_RESULT_INVALID, "unknown command");
        break;
    }
logged:;
    svc_who w = {.room = job->room, .player = job->name, .player_id = job->player_id,
                 .address = job->address};
    rs_services_log_field f[] = {
        {"command", RS_SERVICES_FIELD_STR, admin_keys[q->command], 0},
        {"target", RS_SERVICES_FIELD_STR, q->arg, 0},
        {"why", RS_SERVICES_FIELD_STR, why ? why : "", 0},
        {"ok", RS_SERVICES_FIELD_BOOL, NULL, job->reply.u.admin_reply.result == RS_RESULT_OK},
        {"result", RS_SERVICES_FIELD_STR, job->reply.u.admin_reply.text, 0}};
    rs_svc__log(svc, RS_SERVICES_LOG_INFO, "admin", &w, f, 5, "admin: %s %s%s%s by %s: %s",
                admin_words[q->command], q->arg, why ? " because " : "", why ? why : "", who,
                job->reply.u.admin_reply.text);
}

/* ------------------------------------------------------------- dispatch */

void rs_svc__run_request(svc_worker *w, svc_job *job)
{
    switch (job->kind) {
    case SVC_JOB_LEADERBOARD:
        run_leaderboard(w, job);
        break;
    case SVC_JOB_TUNE_SAVE:
        run_tune_save(w, job);
        break;
    case SVC_JOB_TUNE_LOAD:
        run_tune_load(w, job);
        break;
    case SVC_JOB_TUNE_LIST:
        run_tune_list(w, job);
        break;
    case SVC_JOB_TUNE_SELECT:
        run_tune_select(w, job);
        break;
    case SVC_JOB_ADMIN:
        run_admin(w, job);
        break;
    default:
        break;
    }
}

void rs_svc__finish_request(rs_services *svc, svc_job *job)
{
    if (!job->room)
        return; /* its room is gone */
    if (job->kind == SVC_JOB_TUNE_SELECT)
        finish_tune_select(job);
    else if (job->kind == SVC_JOB_ADMIN)
        finish_admin(svc, job);
    if (job->reply.type)
        rs_room_send(job->room, job->peer, &job->reply);
}

void rs_svc__reply_busy(rs_room *room, uint32_t peer, const rs_msg *msg, const char *text)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    switch (msg->type) {
    case RS_MSG_LEADERBOARD_REQUEST:
        m.type = RS_MSG_LEADERBOARD_REPLY;
        m.u.leaderboard_reply.request_id = msg->u.leaderboard_request.request_id;
        m.u.leaderboard_reply.result = RS_RESULT_BUSY;
        break;
    case RS_MSG_STANDINGS_REQUEST:
        m.type = RS_MSG_STANDINGS_REPLY;
        m.u.standings_reply.request_id = msg->u.standings_request.request_id;
        m.u.standings_reply.result = RS_RESULT_BUSY;
        break;
    case RS_MSG_TUNE_SAVE:
    case RS_MSG_TUNE_LOAD:
    case RS_MSG_TUNE_LIST:
    case RS_MSG_SELECT_TUNE:
        m.type = RS_MSG_TUNE_REPLY;
        m.u.tune_reply.request_id = msg->u.tune_save.request_id;
        m.u.tune_reply.op = msg->type == RS_MSG_TUNE_SAVE   ? RS_TUNE_OP_SAVE
                            : msg->type == RS_MSG_TUNE_LOAD ? RS_TUNE_OP_LOAD
                            : msg->type == RS_MSG_TUNE_LIST ? RS_TUNE_OP_LIST
                                                            : RS_TUNE_OP_SELECT;
        m.u.tune_reply.result = RS_RESULT_BUSY;
        snprintf(m.u.tune_reply.text, sizeof m.u.tune_reply.text, "%s", text);
        break;
    case RS_MSG_ADMIN:
        m.type = RS_MSG_ADMIN_REPLY;
        m.u.admin_reply.request_id = msg->u.admin.request_id;
        m.u.admin_reply.result = RS_RESULT_BUSY;
        snprintf(m.u.admin_reply.text, sizeof m.u.admin_reply.text, "%s", text);
        break;
    case RS_MSG_TOKEN_ROTATE:
        m.type = RS_MSG_TOKEN_REPLY;
        m.u.token_reply.request_id = msg->u.token_rotate.request_id;
        m.u.token_reply.result = RS_RESULT_BUSY;
        snprintf(m.u.token_reply.text, sizeof m.u.token_reply.text, "%s", text);
        break;
    default:
        return;
    }
    rs_room_send(room, peer, &m);
}

/* Tunes are kept per registered player: a guest is answered DENIED. */
static bool guest_refused(rs_room *room, uint32_t peer, int64_t player_id, const rs_msg *msg)
{
    if (player_id > 0 || msg->type == RS_MSG_LEADERBOARD_REQUEST || msg->type == RS_MSG_ADMIN ||
        msg->type == RS_MSG_STANDINGS_REQUEST)
        return false;
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_TUNE_REPLY;
    m.u.tune_reply.request_id = msg->u.tune_save.request_id;
    m.u.tune_reply.result = RS_RESULT_DENIED;
    const char *why = "guests have no tunes: register first";
    if (msg->type == RS_MSG_TUNE_SAVE) {
        m.u.tune_reply.op = RS_TUNE_OP_SAVE;
        why = "guests cannot store tunes: register first";
    } else if (msg->type == RS_MSG_TUNE_LOAD) {
        m.u.tune_reply.op = RS_TUNE_OP_LOAD;
    } else if (msg->type == RS_MSG_TUNE_LIST) {
        m.u.tune_reply.op = RS_TUNE_OP_LIST;
    } else {
        /* Only authenticated players choose cars: a guest's name proves
         * nothing (a spectator could take a driver's guest name). */
        m.u.tune_reply.op = RS_TUNE_OP_SELECT;
        why = "guests drive the stock car: register to choose a tune";
    }
    snprintf(m.u.tune_reply.text, sizeof m.u.tune_reply.text, "%s", why);
    rs_room_send(room, peer, &m);
    return true;
}

static uint8_t job_kind(uint8_t type)
{
    switch (type) {
    case RS_MSG_LEADERBOARD_REQUEST: return SVC_JOB_LEADERBOARD;
    case RS_MSG_STANDINGS_REQUEST: return SVC_JOB_STANDINGS;
    case RS_MSG_TUNE_SAVE: return SVC_JOB_TUNE_SAVE;
    case RS_MSG_TUNE_LOAD: return SVC_JOB_TUNE_LOAD;
    case RS_MSG_TUNE_LIST: return SVC_JOB_TUNE_LIST;
    case RS_MSG_SELECT_TUNE: return SVC_JOB_TUNE_SELECT;
    case RS_MSG_ADMIN: return SVC_JOB_ADMIN;
    default: return 0;
    }
}

void rs_svc__request(void *ctx, rs_room *room, uint32_t peer, int64_t player_id, const char *name,
                     const rs_msg *msg)
{
    rs_services *svc = ctx;
    rs_svc__note_room(svc, room);
    svc->stats.requests++;
    const svc_peer *p = rs_svc__peer(svc, peer);
    if (!rs_svc__request_budget(svc, p)) {
        svc->stats.busy++;
        rs_svc__reply_busy(room, peer, msg, "too many requests from your address: slow down");
        return;
    }
    if (msg->type == RS_MSG_TOKEN_ACK || msg->type == RS_MSG_TOKEN_ROTATE) {
        rs_svc__token_request(svc, room, peer, player_id, name, msg);
        return;
    }
    uint8_t kind = job_kind(msg->type);
    if (!kind || guest_refused(room, peer, player_id, msg))
        return;
    svc_job *job = rs_svc__job_new(svc, kind, room, peer, player_id, name);
    if (!job) {
        rs_svc__reply_busy(room, peer, msg, "the server is busy: try again in a moment");
        return;
    }
    job->msg = *msg;
    job->stock = rs_room_seat_stock_car(room, name);
    job->base_hash = rs_car_params_hash(job->stock);
    if (kind == SVC_JOB_LEADERBOARD) {
        const rs_msg_leaderboard_request *q = &msg->u.leaderboard_request;
        job->track_hash = q->track_hash ? q->track_hash
                                        : rs_track_hash(rs_room_track(room, NULL, NULL));
        job->base_hash = q->base_hash ? q->base_hash : job->base_hash;
    } else if (kind == SVC_JOB_STANDINGS && !msg->u.standings_request.championship[0]) {
        /* "" asks for the room's own championship. */
        snprintf(job->msg.u.standings_request.championship,
                 sizeof job->msg.u.standings_request.championship, "%s",
                 rs_room_championship(room));
    } else if (kind == SVC_JOB_TUNE_LIST && msg->u.tune_list.base_hash) {
        job->base_hash = msg->u.tune_list.base_hash;
    } else if (kind == SVC_JOB_ADMIN && msg->u.admin.command == RS_ADMIN_BAN) {
        /* A connected guest's address is banned with its name. */
        for (uint32_t i = 0; i < svc->peer_cap; i++) {
            const svc_peer *t = &svc->peers[i];
            if (t->id && t->room && rs_svc__name_eq(t->name, msg->u.admin.arg)) {
                snprintf(job->target_address, sizeof job->target_address, "%s", t->address);
                job->target_ipv4 = t->ipv4;
                break;
            }
        }
    }
    if (!rs_svc__submit(svc, job)) {
        rs_svc__job_free(job);
        svc->stats.busy++;
        rs_svc__reply_busy(room, peer, msg, "the server is busy: try again in a moment");
    }
}

bool rs_svc__find_track(void *ctx, rs_room *room, const char *name, const rs_track **track,
                        const char **json, size_t *json_len)
{
    (void)room;
    const rs_services *svc = ctx;
    for (uint32_t i = 0; i < svc->track_count; i++) {
        const rs_services_track *t = &svc->tracks[i];
        if (!rs_svc__name_eq(t->name, name))
            continue;
        *track = t->track;
        *json = t->json;
        *json_len = t->json_len;
        return true;
    }
    return false;
}
