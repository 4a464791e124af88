/*
 * Race control: penalties taken from the race world's own deterministic
 * events (rs_world_events after each step), and an administrator's.
 *
 * Why the room: like a timed session's flag (room_session.c), a penalty is a
 * decision about the world, not part of it. Every client simulates the
 * same world bit for bit, so what race control sees (the world's events,
 * each car's position) is the same for everyone; the room decides and
 * tells everyone in PENALTY messages, and the classification counts the
 * time (room_car.penalty_ms) and puts the disqualified last (room_car.dsq).
 * The physics and the lap proofs stay exactly as they are.
 *
 * The rules (docs/SERVER.md, "Race control"), in races only, from the
 * countdown until the results; each car's counts are per session:
 *  - track limits: every lap the world invalidates for leaving the track
 *    limits (RS_EVENT_LAP_INVALID, RS_LAP_TRACK_LIMITS; the world reports at
 *    most one a lap) is a strike and a WARNING "track limits k/N"; the N-th
 *    is also a TIME penalty of S seconds, and the count starts again. In
 *    the other sessions the invalid lap is penalty enough: it sets no time;
 *  - contact: every car-to-car hit (RS_EVENT_CAR_HIT; the world reports a
 *    contact once, not every tick it lasts) with a closing speed v of at
 *    least the minimum gives both cars (v / 5 m/s)^2 points, weighted like
 *    the impact's energy (18 km/h one point, 36 km/h four), and each a
 *    WARNING saying so. The world cannot tell who was at fault, so both
 *    count. A car whose points reach the disqualification threshold is
 *    disqualified (once); otherwise each multiple of the penalty threshold
 *    its points pass is a TIME penalty;
 *  - jump start (free starts only, where the world does not hold the cars
 *    on their brakes): each tick of the countdown race control measures how
 *    far each car is from its grid spot, and at lights out (the state at
 *    the world's start_tick) a car that was ever further than the tolerance
 *    gets a TIME penalty. The furthest, not the last, distance counts, so
 *    rolling back before the lights go out does not help.
 * A car that has taken the flag is no longer judged. Ids are 1, 2, ... in
 * the session; a watcher that comes in the middle of it is sent every
 * PENALTY so far, removals too, in order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "room_internal.h"

/* The closing speed worth one contact point. */
#define RS_ROOM_CONTACT_UNIT_M_S 5.0
/* A jump start's tolerance when the configuration leaves it 0. */
#define RS_ROOM_JUMP_TOLERANCE_M 0.5

bool rs_room__control_check(const rs_room_config *c, const char **why)
{
    const rs_room_race_control *r = &c->race_control;
    *why = NULL;
    if (r->track_limits.strikes > 100)
        *why = "track_limits.strikes above 100";
    else if (r->track_limits.strikes &&
             (r->track_limits.penalty_s < 1 || r->track_limits.penalty_s > RS_PROTO_PENALTY_MAX_S))
        *why = "track_limits.penalty_s outside 1..3600";
    else if (!(r->contact.min_speed_m_s == 0.0 ||
               (r->contact.min_speed_m_s >= 0.5 && r->contact.min_speed_m_s <= 50.0)))
        *why = "contact.min_speed_m_s neither 0 nor 0.5..50";
    else if (!(r->contact.penalty_points >= 0.0 && isfinite(r->contact.penalty_points)) ||
             !(r->contact.dsq_points >= 0.0 && isfinite(r->contact.dsq_points)))
        *why = "contact points below 0";
    else if (r->contact.penalty_points > 0.0 &&
             (r->contact.penalty_s < 1 || r->contact.penalty_s > RS_PROTO_PENALTY_MAX_S))
        *why = "contact.penalty_s outside 1..3600";
    else if (r->contact.min_speed_m_s > 0.0 && r->contact.penalty_points == 0.0 &&
             r->contact.dsq_points == 0.0)
        *why = "contact needs penalty_points or dsq_points";
    else if (r->jump_start.penalty_s > RS_PROTO_PENALTY_MAX_S)
        *why = "jump_start.penalty_s above 3600";
    else if (r->jump_start.penalty_s && !c->free_start)
        *why = "jump_start needs free_start";
    else if (!(r->jump_start.tolerance_m == 0.0 ||
               (r->jump_start.tolerance_m >= 0.05 && r->jump_start.tolerance_m <= 10.0)))
        *why = "jump_start.tolerance_m neither 0 nor 0.05..10";
    return *why == NULL;
}

void rs_room__control_reset(rs_room *room)
{
    free(room->control.log);
    free(room->control.list);
    memset(&room->control, 0, sizeof room->control);
    /* The cars' counts go with the cars (car_init zeroes them). */
}

/* A session race control judges: a race from its countdown to its results. */
static bool judging(const rs_room *room)
{
    return room->world && rs_room__session_is_race(room) &&
           (room->phase == RS_PHASE_COUNTDOWN || room->phase == RS_PHASE_RACE);
}

/* Room for one more entry in the log; false without memory (the penalty
 * still counts and goes out, it is only not kept for latecomers). */
static bool log_reserve(room_control *rc)
{
    if (rc->len < rc->cap)
        return true;
    size_t cap = rc->cap ? rc->cap * 2 : 16;
    rs_msg_penalty *l = realloc(rc->log, cap * sizeof *l);
    if (!l)
        return false;
    rc->log = l;
    rc->cap = cap;
    return true;
}

/* Room for one more penalty in the list; false without memory (as
 * log_reserve: it still counts, it is only not listed in the results). */
static bool list_reserve(room_control *rc)
{
    if (rc->list_len < rc->list_cap)
        return true;
    size_t cap = rc->list_cap ? rc->list_cap * 2 : 8;
    rs_room_penalty *l = realloc(rc->list, cap * sizeof *l);
    if (!l)
        return false;
    rc->list = l;
    rc->list_cap = cap;
    return true;
}

/* Keeps p in the list: a new penalty as given, with the race clock now; a
 * removal marks its penalty removed, with the removal's tick, clock and
 * reason. */
static void list_keep(rs_room *room, const rs_msg_penalty *p)
{
    room_control *rc = &room->control;
    int64_t race_us = rs_world_race_time_us(room->world);
    if (p->removed) {
        for (size_t i = 0; i < rc->list_len; i++) {
            rs_room_penalty *o = &rc->list[i];
            if (o->id != p->id)
                continue;
            o->removed = true;
            o->removed_tick = p->tick;
            o->removed_race_time_us = race_us;
            snprintf(o->removed_reason, sizeof o->removed_reason, "%s", p->text);
        }
        return;
    }
    if (!list_reserve(rc))
        return;
    rs_room_penalty *o = &rc->list[rc->list_len++];
    memset(o, 0, sizeof *o);
    o->id = p->id;
    o->car = p->car;
    o->kind = p->kind;
    o->offence = p->offence;
    o->seconds = p->seconds;
    o->tick = p->tick;
    o->race_time_us = race_us;
    snprintf(o->reason, sizeof o->reason, "%s", p->text);
}

/* The penalty given under id, if it is still in force (not removed), or
 * NULL. */
static const rs_msg_penalty *in_force(const rs_room *room, uint32_t id)
{
    const rs_msg_penalty *given = NULL;
    for (size_t i = 0; i < room->control.len; i++) {
        const rs_msg_penalty *p = &room->control.log[i];
        if (p->id != id)
            continue;
        if (p->removed)
            return NULL;
        given = p;
    }
    return given;
}

/* What a time penalty or disqualification does to the classification, or
 * undoes. */
static void apply(rs_room *room, const rs_msg_penalty *p, bool undo)
{
    room_car *c = &room->cars[p->car - 1];
    if (p->kind == RS_PENALTY_TIME) {
        uint32_t ms = p->seconds * 1000u;
        if (!undo)
            c->penalty_ms = c->penalty_ms > (uint32_t)INT32_MAX - ms ? (uint32_t)INT32_MAX
                                                                    : c->penalty_ms + ms;
        else
            c->penalty_ms = c->penalty_ms > ms ? c->penalty_ms - ms : 0;
    } else if (p->kind == RS_PENALTY_DSQ) {
        if (!undo) {
            c->dsq = true;
            return;
        }
        /* Still disqualified while another disqualification stands. */
        c->dsq = false;
        for (size_t i = 0; i < room->control.len; i++) {
            const rs_msg_penalty *o = &room->control.log[i];
            if (o->car == p->car && o->kind == RS_PENALTY_DSQ && o->id != p->id && !o->removed &&
                in_force(room, o->id))
                c->dsq = true;
        }
    }
}

/* Sends, keeps and reports one PENALTY (a new penalty, or a removal of id). */
static void announce(rs_room *room, const rs_msg_penalty *p)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_PENALTY;
    m.u.penalty = *p;
    if (log_reserve(&room->control))
        room->control.log[room->control.len++] = *p;
    list_keep(room, p);
    rs_room__send_watchers(room, &m);
    if (!rs_room__observed(room))
        return;
    rs_room_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = RS_ROOM_EV_PENALTY;
    ev.car = p->car;
    ev.name = room->seats[room->cars[p->car - 1].seat].name;
    ev.text = p->text;
    ev.phase = room->phase;
    ev.race_number = room->race_number;
    ev.world = room->world;
    ev.penalty = &m.u.penalty;
    rs_room__observe(room, &ev);
}

/* Gives car (index1) a penalty; returns its id. */
static uint32_t give(rs_room *room, uint16_t car, uint8_t kind, uint8_t offence,
                     uint32_t seconds, uint64_t tick, const char *text)
{
    rs_msg_penalty p;
    memset(&p, 0, sizeof p);
    p.id = ++room->control.next_id;
    p.car = (uint8_t)car;
    p.kind = kind;
    p.offence = offence;
    p.seconds = kind == RS_PENALTY_TIME ? seconds : 0;
    p.tick = tick;
    snprintf(p.text, sizeof p.text, "%s", text);
    apply(room, &p, false);
    announce(room, &p);
    return p.id;
}

/* ------------------------------------------------------------ the rules */

static void track_limits(rs_room *room, const rs_event *ev)
{
    const rs_room_race_control *rc = &room->cfg.race_control;
    room_car *c = &room->cars[ev->car - 1];
    uint32_t n = rc->track_limits.strikes;
    char text[64];
    c->control.strikes++;
    snprintf(text, sizeof text, "track limits %u/%u", c->control.strikes, n);
    give(room, ev->car, RS_PENALTY_WARNING, RS_OFFENCE_TRACK_LIMITS, 0, ev->tick, text);
    if (c->control.strikes < n)
        return;
    c->control.strikes = 0;
    snprintf(text, sizeof text, "%u track limit strike%s", n, n == 1 ? "" : "s");
    give(room, ev->car, RS_PENALTY_TIME, RS_OFFENCE_TRACK_LIMITS, rc->track_limits.penalty_s,
         ev->tick, text);
}

static void contact_one(rs_room *room, uint16_t car, uint16_t other, double v, uint64_t tick)
{
    const rs_room_race_control *rc = &room->cfg.race_control;
    room_car *c = &room->cars[car - 1];
    if (c->flagged || c->control.contact_dsq)
        return;
    double pts = (v / RS_ROOM_CONTACT_UNIT_M_S) * (v / RS_ROOM_CONTACT_UNIT_M_S);
    c->control.contact_points += pts;
    double total = c->control.contact_points;
    const char *who = room->seats[room->cars[other - 1].seat].name;
    char text[RS_PROTO_TEXT_MAX + 1];
    snprintf(text, sizeof text, "contact with %s at %.1f m/s: %.1f points, %.1f in all", who, v,
             pts, total);
    give(room, car, RS_PENALTY_WARNING, RS_OFFENCE_CONTACT, 0, tick, text);
    double step = rc->contact.penalty_points;
    uint32_t due = step > 0.0 ? (uint32_t)fmin(floor(total / step), 1e6) : 0;
    if (rc->contact.dsq_points > 0.0 && total >= rc->contact.dsq_points) {
        c->control.contact_dsq = true;
        c->control.contact_penalties = due; /* moot now */
        snprintf(text, sizeof text, "contact: %.1f points", total);
        give(room, car, RS_PENALTY_DSQ, RS_OFFENCE_CONTACT, 0, tick, text);
        return;
    }
    while (c->control.contact_penalties < due) {
        c->control.contact_penalties++;
        snprintf(text, sizeof text, "contact: %.1f points", total);
        give(room, car, RS_PENALTY_TIME, RS_OFFENCE_CONTACT, rc->contact.penalty_s, tick, text);
    }
}

static void contact(rs_room *room, const rs_event *ev)
{
    if (ev->speed_m_s < room->cfg.race_control.contact.min_speed_m_s || ev->other < 1 ||
        ev->other > room->car_count)
        return;
    contact_one(room, ev->car, ev->other, ev->speed_m_s, ev->tick);
    contact_one(room, ev->other, ev->car, ev->speed_m_s, ev->tick);
}

/* Each tick of a free start's countdown: how far each car has gone from
 * its grid spot (car i + 1 started on slot i); at lights out, the verdict. */
static void jump_start(rs_room *room)
{
    const rs_room_race_control *rc = &room->cfg.race_control;
    uint64_t now = rs_world_tick(room->world); /* the state is the one at tick now */
    double tol = rc->jump_start.tolerance_m > 0.0 ? rc->jump_start.tolerance_m
                                                  : RS_ROOM_JUMP_TOLERANCE_M;
    for (uint32_t i = 0; i < room->car_count; i++) {
        rs_car_state st;
        rs_car_spawn sp;
        if (rs_world_car_state(room->world, (rs_car_id){(uint16_t)(i + 1)}, &st) != RS_OK ||
            !rs_track_grid_slot(room->cfg.track, i, &sp))
            continue;
        double d = hypot(st.pos_m[0] - sp.pos_m[0], st.pos_m[1] - sp.pos_m[1]);
        room_car_control *cc = &room->cars[i].control;
        if (d > cc->start_moved_m)
            cc->start_moved_m = d;
    }
    if (now != room->start_tick)
        return;
    for (uint32_t i = 0; i < room->car_count; i++) {
        double d = room->cars[i].control.start_moved_m;
        if (d <= tol)
            continue;
        char text[80];
        snprintf(text, sizeof text, "jump start: %.1f m from the grid spot before lights out", d);
        give(room, (uint16_t)(i + 1), RS_PENALTY_TIME, RS_OFFENCE_JUMP_START,
             rc->jump_start.penalty_s, now, text);
    }
}

void rs_room__control_step(rs_room *room)
{
    if (!judging(room))
        return;
    const rs_room_race_control *rc = &room->cfg.race_control;
    if (rc->jump_start.penalty_s && !room->start_hold && room->phase == RS_PHASE_COUNTDOWN)
        jump_start(room);
    bool limits = rc->track_limits.strikes > 0, hits = rc->contact.min_speed_m_s > 0.0;
    if (!limits && !hits)
        return;
    size_t n = 0;
    const rs_event *ev = rs_world_events(room->world, &n);
    for (size_t i = 0; i < n; i++) {
        const rs_event *e = &ev[i];
        if (e->car < 1 || e->car > room->car_count)
            continue;
        /* A car past its flag is judged no more (contact_one asks for each car). */
        if (limits && e->type == RS_EVENT_LAP_INVALID && e->reason == RS_LAP_TRACK_LIMITS &&
            !room->cars[e->car - 1].flagged)
            track_limits(room, e);
        else if (hits && e->type == RS_EVENT_CAR_HIT)
            contact(room, e);
    }
}

void rs_room__control_send_to(rs_room *room, room_peer *p)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_PENALTY;
    for (size_t i = 0; i < room->control.len; i++) {
        m.u.penalty = room->control.log[i];
        rs_room__send(room, p->id, &m);
    }
}

/* ------------------------------------------------------- administrators */

/* The running session, where an administrator's word counts. */
static bool session_running(const rs_room *room)
{
    return room->world && (room->phase == RS_PHASE_COUNTDOWN || room->phase == RS_PHASE_RACE);
}

rs_status rs_room_penalty_add(rs_room *room, const char *name, uint8_t kind, uint32_t seconds,
                              const char *reason, uint32_t *id)
{
    if (!room || !name)
        return RS_ERR_ARG;
    if (!session_running(room))
        return RS_ERR_MISSING;
    if (kind == RS_PENALTY_TIME) {
        if (seconds < 1 || seconds > RS_PROTO_PENALTY_MAX_S || !rs_room__session_is_race(room))
            return RS_ERR_RANGE;
    } else if (kind != RS_PENALTY_DSQ || seconds != 0) {
        return RS_ERR_RANGE;
    }
    uint16_t car = 0;
    for (uint32_t i = 0; i < room->car_count && !car; i++)
        if (rs_proto_name_equal(room->seats[room->cars[i].seat].name, name))
            car = (uint16_t)(i + 1);
    if (!car)
        return RS_ERR_MISSING;
    if (!log_reserve(&room->control) || !list_reserve(&room->control))
        return RS_ERR_NOMEM;
    const char *text = reason && reason[0] ? reason : "an administrator's decision";
    uint32_t given = give(room, car, kind, RS_OFFENCE_ADMIN, seconds,
                          rs_world_tick(room->world), text);
    if (id)
        *id = given;
    return RS_OK;
}

rs_status rs_room_penalty_remove(rs_room *room, uint32_t id, const char *reason)
{
    if (!room)
        return RS_ERR_ARG;
    if (!session_running(room))
        return RS_ERR_MISSING;
    const rs_msg_penalty *given = in_force(room, id);
    if (!given || given->kind == RS_PENALTY_WARNING)
        return RS_ERR_ARG;
    if (!log_reserve(&room->control))
        return RS_ERR_NOMEM;
    rs_msg_penalty p = *given;
    p.removed = true;
    p.tick = rs_world_tick(room->world);
    snprintf(p.text, sizeof p.text, "%s",
             reason && reason[0] ? reason : "taken back by an administrator");
    apply(room, &p, true);
    announce(room, &p);
    return RS_OK;
}

const rs_msg_penalty *rs_room_penalties(const rs_room *room, size_t *count)
{
    *count = room ? room->control.len : 0;
    return *count ? room->control.log : NULL;
}
