/*
 * Who a connection is: the admit hook (a HELLO becomes a job for the
 * database thread: bans, then registration, authentication or a guest),
 * two-phase registration and token rotation (TOKEN_ACK confirms), and the
 * periodic check that closes connections a new ban covers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "racesim/base/clock.h"
#include "racesim/base/text.h"
#include "services_internal.h"

/* How often connected players are checked against the bans: racectl's bans
 * take effect within this long. */
#define BANS_CHECK_US 2000000

/* ------------------------------------------------------- the admit hook */

uint8_t rs_svc__admit(void *ctx, rs_room *room, uint32_t peer, const rs_msg_hello *hello)
{
    rs_services *svc = ctx;
    rs_svc__note_room(svc, room);
    svc_peer *p = rs_svc__peer(svc, peer);
    char text[RS_PROTO_TEXT_MAX + 1];
    if (hello->name[0] == '~') {
        /* "~name" rows hold guests' laps. */
        svc->stats.auth_refused++;
        rs_room_refuse(room, peer, RS_REASON_AUTH, "names starting with ~ are reserved");
        return RS_ROOM_ADMIT_PENDING;
    }
    if ((hello->flags & RS_HELLO_REGISTER) && !rs_svc__register_budget(svc, p, text, sizeof text)) {
        svc->stats.auth_refused++;
        svc_who who = {.room = room, .player = hello->name, .player_id = 0,
                       .address = p ? p->address : NULL};
        rs_svc__log(svc, RS_SERVICES_LOG_WARN, "registration_refused", &who, NULL, 0,
                    "players: registration of %s from %s refused: %s", hello->name,
                    p ? p->address : "?", text);
        rs_room_refuse(room, peer, RS_REASON_AUTH, text);
        return RS_ROOM_ADMIT_PENDING;
    }
    svc_job *job = rs_svc__job_new(svc, SVC_JOB_ADMIT, room, peer, 0, hello->name);
    if (job) {
        job->msg.type = RS_MSG_HELLO;
        job->msg.u.hello = *hello;
    }
    if (!job || !rs_svc__submit(svc, job)) {
        rs_svc__job_free(job);
        svc->stats.busy++;
        rs_room_refuse(room, peer, RS_REASON_OTHER, "the server is busy: try again in a moment");
        return RS_ROOM_ADMIT_PENDING;
    }
    if (p)
        p->admitting = true;
    return RS_ROOM_ADMIT_PENDING;
}

/* ------------------------------------------ the database thread's side */

static void refuse(svc_job *job, uint8_t reason, const char *text)
{
    job->admitted = false;
    job->refuse_reason = reason;
    snprintf(job->text, sizeof job->text, "%s", text);
}

/* The player's refusal for a ban, with its reason and end. */
static void ban_text(const rs_store_ban *b, char *out, size_t cap)
{
    char until[48] = "";
    if (b->expires_at > 0) {
        char when[32];
        rs_time_format_utc(b->expires_at, "%Y-%m-%d %H:%M UTC", when, sizeof when);
        snprintf(until, sizeof until, " (until %s)", when);
    }
    snprintf(out, cap, "you are banned from this server: %.140s%s", b->reason, until);
}

/* An active ban on the player (id > 0) or the address: true and the text
 * in job->text; a failure is a refusal too (nobody gets in unchecked). */
static bool banned(svc_worker *w, svc_job *job, int64_t player_id, uint32_t ipv4, char *text,
                   size_t cap)
{
    bool hit = false;
    rs_store_ban b;
    if (rs_store_ban_match(w->store, player_id, ipv4, rs_wall_time_s(), &hit, &b, job->error,
                           sizeof job->error) != RS_OK) {
        snprintf(text, cap, "the server cannot check players right now");
        return true;
    }
    if (hit)
        ban_text(&b, text, cap);
    return hit;
}

/* A guest's "~name" row, whose bans follow the name (0: none yet). */
static int64_t guest_row(svc_worker *w, const char *name)
{
    char row[RS_PROTO_NAME_MAX + 1];
    char err[256];
    int64_t id = 0;
    rs_svc__guest_row(name, row);
    return rs_store_player_find(w->store, row, &id, err, sizeof err) == RS_OK ? id : 0;
}

static void run_register(svc_worker *w, svc_job *job)
{
    const char *name = job->msg.u.hello.name;
    char err[256];
    int64_t id = 0;
    rs_status st = rs_store_player_register(w->store, name, rs_wall_time_s(), &id, job->token,
                                            err, sizeof err);
    if (st == RS_ERR_RANGE) {
        char text[RS_PROTO_TEXT_MAX + 1];
        snprintf(text, sizeof text, "the name %s is taken", name);
        refuse(job, RS_REASON_NAME_TAKEN, text);
        return;
    }
    if (st != RS_OK) {
        rs_str_cut(job->error, sizeof job->error, err);
        refuse(job, RS_REASON_AUTH, "the server cannot register players right now");
        return;
    }
    job->admitted = true;
    job->registered = true;
    job->admitted_id = id;
    rs_svc__job_log(job, RS_SERVICES_LOG_INFO, "registered",
             "players: %s registered from %s (player %lld), waiting for the client to confirm "
             "its token",
             name, job->address, (long long)id);
}

static void run_login(svc_worker *w, svc_job *job)
{
    const rs_msg_hello *h = &job->msg.u.hello;
    char err[256];
    int64_t id = 0;
    rs_status st = rs_store_player_auth(w->store, h->name, h->token, &id, err, sizeof err);
    if (st == RS_ERR_MISMATCH) {
        /* The room reports the refusal (REFUSED), with the address. */
        refuse(job, RS_REASON_AUTH, "unknown player or wrong token");
        return;
    }
    if (st != RS_OK) {
        rs_str_cut(job->error, sizeof job->error, err);
        refuse(job, RS_REASON_AUTH, "the server cannot check players right now");
        return;
    }
    job->admitted = true;
    job->admitted_id = id;
}

static void run_guest(svc_worker *w, svc_job *job)
{
    const char *name = job->msg.u.hello.name;
    char err[256], text[RS_PROTO_TEXT_MAX + 1];
    int64_t id = 0;
    rs_status st = rs_store_player_find(w->store, name, &id, err, sizeof err);
    if (st == RS_OK) {
        snprintf(text, sizeof text, "the name %s is registered: connect with its token", name);
        refuse(job, RS_REASON_AUTH, text);
    } else if (st != RS_ERR_MISSING) {
        rs_str_cut(job->error, sizeof job->error, err);
        refuse(job, RS_REASON_AUTH, "the server cannot check players right now");
    } else if (!w->allow_guests) {
        refuse(job, RS_REASON_AUTH, "this server accepts registered players only");
    } else {
        job->admitted = true;
        job->admitted_id = 0;
    }
}

static void run_admit(svc_worker *w, svc_job *job)
{
    const rs_msg_hello *h = &job->msg.u.hello;
    char text[RS_PROTO_TEXT_MAX + 1];
    if (job->ipv4 && banned(w, job, 0, job->ipv4, text, sizeof text)) {
        refuse(job, RS_REASON_BANNED, text);
        return;
    }
    if (h->flags & RS_HELLO_REGISTER)
        run_register(w, job);
    else if (h->token[0])
        run_login(w, job);
    else
        run_guest(w, job);
    if (!job->admitted || job->registered)
        return;
    int64_t who = job->admitted_id > 0 ? job->admitted_id : guest_row(w, h->name);
    if (who > 0 && banned(w, job, who, 0, text, sizeof text)) {
        refuse(job, RS_REASON_BANNED, text);
        return;
    }
    /* The room must know its administrators: votes never kick one. A
     * failed lookup leaves the player an ordinary one. */
    char err[256];
    if (job->admitted_id > 0 &&
        rs_store_player_is_admin(w->store, job->admitted_id, &job->admin, err, sizeof err) !=
            RS_OK)
        job->admin = false;
}

static void run_bans(svc_worker *w, svc_job *job)
{
    int64_t version = 0;
    if (rs_store_bans_version(w->store, &version, job->error, sizeof job->error) != RS_OK)
        return;
    job->changed = version != w->bans_version;
    w->bans_version = version;
    if (!job->changed)
        return;
    for (size_t i = 0; i < job->check_count; i++) {
        svc_ban_check *c = &job->checks[i];
        int64_t who = c->player_id > 0 ? c->player_id : guest_row(w, c->name);
        c->banned = banned(w, job, who, c->ipv4, c->text, sizeof c->text) && !job->error[0];
    }
}

void rs_svc__run_identity(svc_worker *w, svc_job *job)
{
    char err[256];
    bool forgotten = false;
    switch (job->kind) {
    case SVC_JOB_ADMIT:
        run_admit(w, job);
        break;
    case SVC_JOB_CONFIRM:
        if (rs_store_player_confirm(w->store, job->player_id, err, sizeof err) != RS_OK)
            rs_str_cut(job->error, sizeof job->error, err);
        break;
    case SVC_JOB_FORGET:
        if (rs_store_player_forget_unconfirmed(w->store, job->player_id, &forgotten, err,
                                               sizeof err) != RS_OK) {
            rs_str_cut(job->error, sizeof job->error, err);
        } else if (forgotten) {
            rs_svc__job_log(job, RS_SERVICES_LOG_INFO, "registration_forgotten",
                     "players: the registration of %s (player %lld) from %s is forgotten: the "
                     "client left without confirming its token",
                     job->name, (long long)job->player_id, job->address);
        }
        break;
    case SVC_JOB_ROTATE:
        rs_svc__run_rotate(w, job);
        break;
    case SVC_JOB_ROTATE_COMMIT: {
        rs_status st = rs_store_token_rotate_commit(w->store, job->player_id, err, sizeof err);
        if (st == RS_ERR_MISSING)
            break; /* a log-in with the new token committed it already */
        if (st != RS_OK) {
            rs_str_cut(job->error, sizeof job->error, err);
        } else {
            rs_svc__job_log(job, RS_SERVICES_LOG_INFO, "token_confirmed",
                     "players: %s (player %lld) at %s confirmed a new token; the old one no "
                     "longer works",
                     job->name, (long long)job->player_id, job->address);
        }
        break;
    }
    case SVC_JOB_BANS:
        run_bans(w, job);
        break;
    default:
        break;
    }
}

/* ------------------------------------------------ back on the room's side */

static void finish_admit(rs_services *svc, svc_job *job)
{
    svc_peer *p = rs_svc__peer(svc, job->peer);
    if (p)
        p->admitting = false;
    if (!job->admitted) {
        svc->stats.auth_refused++;
        /* The room reports the refusal (REFUSED) with its reason and text:
         * a ban's says which ban. */
        if (job->room)
            rs_room_refuse(job->room, job->peer, job->refuse_reason, job->text);
        return;
    }
    if (job->registered)
        svc->stats.registered++;
    bool seated = job->room && rs_room_admit(job->room, job->peer, job->admitted_id,
                                             job->registered ? job->token : NULL);
    if (seated && job->admin)
        rs_room_set_admin(job->room, job->name, true);
    if (p && seated) {
        p->room = job->room;
        p->player_id = job->admitted_id;
        snprintf(p->name, sizeof p->name, "%s", job->name);
        p->unconfirmed = job->registered;
    }
    if (!seated && job->registered) {
        /* Gone before its WELCOME: the token never reached anyone. */
        svc_job *forget = rs_svc__job_new(svc, SVC_JOB_FORGET, NULL, job->peer,
                                          job->admitted_id, job->name);
        if (forget && !rs_svc__submit(svc, forget))
            rs_svc__job_free(forget); /* the next start forgets it */
    }
}

static void finish_bans(rs_services *svc, svc_job *job)
{
    svc->bans_job_out = false;
    for (size_t i = 0; i < job->check_count; i++) {
        const svc_ban_check *c = &job->checks[i];
        const svc_peer *p = rs_svc__peer(svc, c->peer);
        if (!c->banned || !p || p->room != c->room)
            continue; /* not banned, or that connection is gone */
        /* Counted and logged when it is closed (its room may be away). */
        rs_svc__kick(svc, c->room, c->name, RS_REASON_BANNED, c->text, c);
    }
}

void rs_svc__finish_identity(rs_services *svc, svc_job *job)
{
    switch (job->kind) {
    case SVC_JOB_ADMIT:
        finish_admit(svc, job);
        break;
    case SVC_JOB_ROTATE:
        if (job->room && job->reply.type)
            rs_room_send(job->room, job->peer, &job->reply);
        break;
    case SVC_JOB_BANS:
        finish_bans(svc, job);
        break;
    default:
        break;
    }
}

void rs_svc__bans_poll(rs_services *svc)
{
    int64_t now = rs_clock_us();
    if (svc->bans_job_out || now < svc->next_bans_check_us)
        return;
    svc->next_bans_check_us = now + BANS_CHECK_US;
    size_t n = 0;
    for (uint32_t i = 0; i < svc->peer_cap; i++)
        n += svc->peers[i].id && svc->peers[i].room;
    svc_job *job = rs_svc__job_new(svc, SVC_JOB_BANS, NULL, 0, 0, NULL);
    if (!job)
        return;
    job->checks = calloc(n ? n : 1, sizeof *job->checks);
    if (!job->checks) {
        rs_svc__job_free(job);
        return;
    }
    for (uint32_t i = 0; i < svc->peer_cap; i++) {
        const svc_peer *p = &svc->peers[i];
        if (!p->id || !p->room)
            continue;
        svc_ban_check *c = &job->checks[job->check_count++];
        c->room = p->room;
        c->peer = p->id;
        c->player_id = p->player_id;
        c->ipv4 = p->ipv4;
        snprintf(c->name, sizeof c->name, "%s", p->name);
    }
    if (rs_svc__submit(svc, job))
        svc->bans_job_out = true;
    else
        rs_svc__job_free(job);
}

/* ----------------------------------------------------------- the tokens */

static void token_reply(svc_job *job, uint8_t result, const char *text)
{
    job->reply.type = RS_MSG_TOKEN_REPLY;
    rs_msg_token_reply *r = &job->reply.u.token_reply;
    r->request_id = job->msg.u.token_rotate.request_id;
    r->result = result;
    if (result != RS_RESULT_OK)
        r->token[0] = '\0';
    snprintf(r->text, sizeof r->text, "%s", text);
}

void rs_svc__run_rotate(svc_worker *w, svc_job *job)
{
    char err[256];
    rs_msg_token_reply *r = &job->reply.u.token_reply;
    if (rs_store_token_rotate_begin(w->store, job->player_id, r->token, err, sizeof err) !=
        RS_OK) {
        rs_str_cut(job->error, sizeof job->error, err);
        token_reply(job, RS_RESULT_ERROR, "the server cannot issue tokens right now");
        return;
    }
    token_reply(job, RS_RESULT_OK, "");
    rs_svc__job_log(job, RS_SERVICES_LOG_INFO, "token_rotated",
             "players: %s (player %lld) at %s asked for a new token (both work until the "
             "client confirms it)",
             job->name, (long long)job->player_id, job->address);
}

void rs_svc__token_request(rs_services *svc, rs_room *room, uint32_t peer, int64_t player_id,
                           const char *name, const rs_msg *msg)
{
    svc_peer *p = rs_svc__peer(svc, peer);
    uint8_t kind = 0;
    if (msg->type == RS_MSG_TOKEN_ROTATE) {
        if (player_id <= 0) {
            rs_msg m = {.type = RS_MSG_TOKEN_REPLY};
            m.u.token_reply.request_id = msg->u.token_rotate.request_id;
            m.u.token_reply.result = RS_RESULT_DENIED;
            snprintf(m.u.token_reply.text, sizeof m.u.token_reply.text,
                     "guests have no token: register first");
            rs_room_send(room, peer, &m);
            return;
        }
        kind = SVC_JOB_ROTATE;
    } else if (player_id > 0 && msg->u.token_ack.kind == RS_TOKEN_ACK_REGISTERED) {
        if (p && !p->unconfirmed)
            return; /* nothing waits for it */
        if (p)
            p->unconfirmed = false;
        kind = SVC_JOB_CONFIRM;
    } else if (player_id > 0 && msg->u.token_ack.kind == RS_TOKEN_ACK_ROTATED) {
        kind = SVC_JOB_ROTATE_COMMIT;
    } else {
        return; /* a guest's acknowledgement: nothing to confirm */
    }
    svc_job *job = rs_svc__job_new(svc, kind, room, peer, player_id, name);
    if (job)
        job->msg = *msg;
    if (!job || !rs_svc__submit(svc, job)) {
        rs_svc__job_free(job);
        svc->stats.busy++;
        if (kind == SVC_JOB_ROTATE)
            rs_svc__reply_busy(room, peer, msg, "the server is busy: try again in a moment");
        else if (kind == SVC_JOB_CONFIRM && p)
            p->unconfirmed = true; /* still unconfirmed: undone when it leaves */
    }
}
