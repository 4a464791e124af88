/*
 * The flat layer's race weekend (racesim/client_flat.h, protocol version
 * 6): the last WEEKEND, PENALTY, CHAT, VOTE and STANDINGS that rs_flat_poll
 * handed out (kept by client_flat_events.c), as fixed layouts a binding
 * mirrors; and, from the client's newest state, the running session and
 * each car's details.
 *
 * Every text is cut with rs_str_cut at a character boundary, though the
 * flat arrays are larger than anything the wire carries: a binding decodes
 * them as UTF-8, so half a character must never reach it.
 */
#include "client_internal.h"
#include "racesim/base/text.h"
#include "racesim/client_flat.h"

#include <string.h>

/* Row i of n, for the row calls: out zeroed when it is one. */
static bool row_ok(const rs_client *c, int32_t i, uint32_t n, void *out, size_t size)
{
    if (!c || !out || i < 0 || (uint32_t)i >= n)
        return false;
    memset(out, 0, size);
    return true;
}

/* The status of a "last one polled" call: out zeroed first. */
static int32_t last_status(const rs_client *c, bool have, void *out, size_t size)
{
    if (!out)
        return RS_CLIENT_ERR_ARG;
    memset(out, 0, size);
    if (!c)
        return RS_CLIENT_ERR_ARG;
    return have ? RS_CLIENT_OK : RS_CLIENT_ERR_STATE;
}

/* ------------------------------------------------------ the weekend */

int32_t rs_flat_get_weekend(const rs_client *c, rs_flat_weekend *out)
{
    int32_t st = last_status(c, c && c->have_flat_weekend, out, sizeof *out);
    if (st != RS_CLIENT_OK)
        return st;
    const rs_msg_weekend *w = &c->flat_weekend;
    out->weekend = (int32_t)w->weekend;
    out->session_count = w->session_count;
    out->class_count = w->class_count;
    out->car_count = w->car_count;
    rs_str_cut(out->championship, sizeof out->championship, w->championship);
    return RS_CLIENT_OK;
}

int32_t rs_flat_get_weekend_session(const rs_client *c, int32_t i, rs_flat_session_def *out)
{
    if (!row_ok(c, i, c ? c->flat_weekend.session_count : 0, out, sizeof *out))
        return 0;
    const rs_proto_session_def *d = &c->flat_weekend.sessions[i];
    out->index = i;
    out->type = d->type;
    out->laps = d->laps;
    out->time_limit_s = (int32_t)d->time_limit_s; /* at most a day */
    out->grid_source = d->grid_source;
    out->grid_reverse = d->grid_reverse;
    return 1;
}

/* A class's name in a weekend, "" when the index names none (a room
 * without classes has class index 0 and no names). */
static const char *class_name(const rs_msg_weekend *w, uint32_t index)
{
    return index < w->class_count ? w->classes[index] : "";
}

int32_t rs_flat_get_car_class(const rs_client *c, int32_t i, rs_flat_car_class *out)
{
    if (!row_ok(c, i, c ? c->flat_weekend.class_count : 0, out, sizeof *out))
        return 0;
    out->index = i;
    rs_str_cut(out->name, sizeof out->name, c->flat_weekend.classes[i]);
    return 1;
}

int32_t rs_flat_get_offered_car(const rs_client *c, int32_t i, rs_flat_offered_car *out)
{
    if (!row_ok(c, i, c ? c->flat_weekend.car_count : 0, out, sizeof *out))
        return 0;
    const rs_proto_car_offer *o = &c->flat_weekend.cars[i];
    out->base_hash = o->base_hash;
    out->index = i;
    out->class_index = o->class_index;
    rs_str_cut(out->name, sizeof out->name, o->name);
    rs_str_cut(out->class_name, sizeof out->class_name,
               class_name(&c->flat_weekend, o->class_index));
    return 1;
}

/* ------------------------------------------------------ the session */

int32_t rs_flat_get_session(const rs_client *c, rs_flat_session *out)
{
    rs_client_session_info info;
    int32_t st = last_status(c, c && rs_client_session(c, &info), out, sizeof *out);
    if (st != RS_CLIENT_OK)
        return st;
    rs_msg_race_state race;
    out->index = info.index;
    out->type = info.type;
    out->laps = info.laps;
    out->time_limit_ms = (int32_t)info.time_limit_ms; /* at most a day */
    out->chequered = info.chequered ? 1 : 0;
    out->phase = rs_client_race_state(c, &race) ? race.phase : 0;
    out->time_left_ms = info.time_left_ms;
    return RS_CLIENT_OK;
}

/* ---------------------------------------------------------- the cars */

int32_t rs_flat_get_car_info(const rs_client *c, int32_t car, rs_flat_car_info *out)
{
    if (!out)
        return RS_CLIENT_ERR_ARG;
    memset(out, 0, sizeof *out);
    if (!c || car < 1 || car > (int32_t)RS_PROTO_MAX_CARS)
        return RS_CLIENT_ERR_ARG;
    rs_msg_car_info ci;
    if (!rs_client_car_info(c, (uint8_t)car, &ci))
        return RS_CLIENT_ERR_STATE;
    out->car = ci.car;
    out->flags = ci.flags;
    out->class_index = ci.class_index;
    out->number = ci.number;
    out->ballast_kg = ci.ballast_kg;
    out->restrictor_pct = ci.restrictor_pct;
    out->player_id = ci.player_id;
    out->params_hash = ci.params_hash;
    out->base_hash = ci.base_hash;
    out->tune_hash = ci.tune_hash;
    rs_str_cut(out->name, sizeof out->name, ci.name);
    /* The names live in the newest WEEKEND, the one this CAR_INFO's class
     * index refers to (a new weekend's CAR_INFOs follow its WEEKEND). */
    if (c->have_weekend) {
        const rs_msg_weekend *w = &c->weekend;
        rs_str_cut(out->class_name, sizeof out->class_name, class_name(w, ci.class_index));
        for (uint32_t k = 0; k < w->car_count; k++)
            if (w->cars[k].base_hash == ci.base_hash)
                rs_str_cut(out->car_name, sizeof out->car_name, w->cars[k].name);
    }
    return RS_CLIENT_OK;
}

/* ------------------------------------------- penalties, chat, votes */

int32_t rs_flat_get_penalty(const rs_client *c, rs_flat_penalty *out)
{
    int32_t st = last_status(c, c && c->have_flat_penalty, out, sizeof *out);
    if (st != RS_CLIENT_OK)
        return st;
    const rs_msg_penalty *p = &c->flat_penalty;
    out->id = p->id;
    out->car = p->car;
    out->kind = p->kind;
    out->offence = p->offence;
    out->seconds = (int32_t)p->seconds; /* at most an hour */
    out->removed = p->removed ? 1 : 0;
    out->tick = (int64_t)p->tick;
    rs_str_cut(out->text, sizeof out->text, p->text);
    return RS_CLIENT_OK;
}

int32_t rs_flat_get_chat(const rs_client *c, rs_flat_chat *out)
{
    int32_t st = last_status(c, c && c->have_flat_chat, out, sizeof *out);
    if (st != RS_CLIENT_OK)
        return st;
    const rs_msg_chat_msg *m = &c->flat_chat;
    out->kind = m->kind;
    out->is_private = m->kind == RS_CHAT_PRIVATE ? 1 : 0;
    out->announcement = m->kind == RS_CHAT_ANNOUNCE ? 1 : 0;
    out->player_id = m->player_id;
    rs_str_cut(out->from, sizeof out->from, m->from);
    rs_str_cut(out->text, sizeof out->text, m->text);
    return RS_CLIENT_OK;
}

int32_t rs_flat_get_vote(const rs_client *c, rs_flat_vote *out)
{
    int32_t st = last_status(c, c && c->have_flat_vote, out, sizeof *out);
    if (st != RS_CLIENT_OK)
        return st;
    const rs_msg_vote_state *v = &c->flat_vote;
    out->id = v->vote_id;
    out->kind = v->kind;
    out->state = v->state;
    out->yes = v->yes;
    out->no = v->no;
    out->eligible = v->eligible;
    out->needed = v->needed;
    /* a vote lasts seconds; clamped, never wrapped, whatever the wire said */
    out->ends_in_ms = v->ends_in_ms > INT32_MAX ? INT32_MAX : (int32_t)v->ends_in_ms;
    rs_str_cut(out->subject, sizeof out->subject, v->arg);
    rs_str_cut(out->by, sizeof out->by, v->by);
    return RS_CLIENT_OK;
}

/* ----------------------------------------------------- championships */

int32_t rs_flat_get_championship_row(const rs_client *c, int32_t i,
                                     rs_flat_championship_row *out)
{
    if (!row_ok(c, i, c ? c->flat_standings.count : 0, out, sizeof *out))
        return 0;
    const rs_proto_standing_row *r = &c->flat_standings.rows[i];
    /* points and positions come from the database's counts: clamped into
     * the int32 a binding reads rather than wrapped negative */
    out->position = r->position > INT32_MAX ? INT32_MAX : (int32_t)r->position;
    out->points = r->points > INT32_MAX ? INT32_MAX : (int32_t)r->points;
    out->events = r->events;
    out->wins = r->wins;
    rs_str_cut(out->name, sizeof out->name, r->name);
    rs_str_cut(out->class_name, sizeof out->class_name, r->class_name);
    return 1;
}
