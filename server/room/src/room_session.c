/*
 * A room's weekend: the sessions it runs one after the other (practice,
 * qualifying, warm-up, race), each in a world of its own, and what the
 * world does not know about them: the chequered flag of a timed session,
 * each car's best lap and when it was set, laps led, the classification,
 * and the grid a race takes from an earlier session.
 *
 * Why the room and not the world: a world is a race of N laps or an open
 * session (physics.h), and its state is what every client simulates bit for
 * bit. A timed session's flag and the order of a qualifying are decisions
 * taken from the world's own deterministic events (its LAP events and race
 * clock), so the room takes them and tells the clients (RACE_STATE's flag,
 * LAP's chequered bit, RESULTS). The physics and every stored lap proof stay
 * exactly as they are.
 *
 * The rules (protocol/SPEC.md, "Weekends"):
 *  - a lap-limited session is a world of that many laps: a car's session
 *    ends when it completes them;
 *  - a timed session is an open world: in practice, qualifying and warm-up
 *    the flag is out when the race clock reaches the time, in a race when
 *    the leader then completes a lap; after the flag, each car's next
 *    completed lap ends its session (a car not on a lap is done at once);
 *  - a race is classified by laps and then finish time plus penalties,
 *    every other session by best valid lap (ties: who set it first).
 */
#include <stdlib.h>
#include <string.h>

#include "room_internal.h"

const rs_proto_session_def *rs_room__session(const rs_room *room)
{
    return &room->sessions[room->session < room->session_count ? room->session : 0];
}

bool rs_room__session_is_race(const rs_room *room)
{
    return rs_room__session(room)->type == RS_SESSION_RACE;
}

bool rs_room__sessions_check(const rs_proto_session_def *s, uint32_t count, const char **why)
{
    if (count > RS_PROTO_MAX_SESSIONS) {
        *why = "more than 16 sessions";
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        const rs_proto_session_def *d = &s[i];
        bool race = d->type == RS_SESSION_RACE;
        if (d->type >= RS_SESSION_TYPE_COUNT)
            *why = "a session type is unknown";
        else if ((d->laps == 0) == (d->time_limit_s == 0))
            *why = "a session needs exactly one of laps and minutes";
        else if (d->laps > 1000)
            *why = "a session is longer than 1000 laps";
        else if (d->time_limit_s > RS_PROTO_SESSION_MAX_S)
            *why = "a session is longer than a day";
        else if (d->grid_source >= RS_GRID_SOURCE_COUNT || d->grid_reverse > RS_PROTO_MAX_CARS)
            *why = "a race's grid rule is out of range";
        else if (!race && (d->grid_source || d->grid_reverse))
            *why = "only a race takes a grid";
        else
            continue;
        return false;
    }
    return true;
}

/* ------------------------------------------------------------- the grid */

/* Where name finished in a stored order (0-based), or -1. */
static int rank_in(const room_order *o, const char *name)
{
    for (uint32_t i = 0; i < o->count; i++)
        if (rs_proto_name_equal(o->names[i], name))
            return (int)i;
    return -1;
}

uint32_t rs_room__grid(const rs_room *room, int *seats)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < room->cfg.max_players; i++)
        if (room->seats[i].used && room->seats[i].peer >= 0)
            seats[n++] = (int)i;
    const rs_proto_session_def *s = rs_room__session(room);
    if (s->type != RS_SESSION_RACE)
        return n;
    const room_order *src = s->grid_source == RS_GRID_QUALIFYING      ? &room->qualifying_order
                            : s->grid_source == RS_GRID_PREVIOUS_RACE ? &room->race_order
                                                                      : NULL;
    uint32_t ranked = n;
    if (src) {
        /* Insertion sort, stable: the ranked by their rank, then the others
         * (no time, or absent then) in seat order. Thirty-two at most. */
        int key[RS_PROTO_MAX_CARS];
        for (uint32_t i = 0; i < n; i++) {
            int r = rank_in(src, room->seats[seats[i]].name);
            key[i] = r < 0 ? INT32_MAX : r;
        }
        for (uint32_t i = 1; i < n; i++) {
            int sv = seats[i], kv = key[i];
            uint32_t j = i;
            while (j > 0 && key[j - 1] > kv) {
                seats[j] = seats[j - 1];
                key[j] = key[j - 1];
                j--;
            }
            seats[j] = sv;
            key[j] = kv;
        }
        ranked = 0;
        while (ranked < n && key[ranked] != INT32_MAX)
            ranked++;
    }
    uint32_t rev = s->grid_reverse < ranked ? s->grid_reverse : ranked;
    for (uint32_t i = 0; i < rev / 2; i++) {
        int t = seats[i];
        seats[i] = seats[rev - 1 - i];
        seats[rev - 1 - i] = t;
    }
    return n;
}

/* ------------------------------------------------------ during a session */

void rs_room__session_reset(rs_room *room)
{
    room->chequered = false;
    room->chequered_tick = 0;
}

static void car_flag(rs_room *room, room_car *c, int64_t at_us)
{
    (void)room;
    c->flagged = true;
    c->flag_us = at_us;
}

static bool timed(const rs_room *room)
{
    return rs_room__session(room)->time_limit_s > 0;
}

static int64_t limit_us(const rs_room *room)
{
    return (int64_t)rs_room__session(room)->time_limit_s * 1000000;
}

static void show_flag(rs_room *room, uint64_t tick)
{
    room->chequered = true;
    room->chequered_tick = tick;
    rs_room__send_race_state(room, NULL);
}

uint8_t rs_room__session_lap(rs_room *room, const rs_event *ev)
{
    if (ev->car < 1 || ev->car > room->car_count)
        return 0;
    room_car *c = &room->cars[ev->car - 1];
    rs_race_car_state rc;
    rs_world_race_state(room->world, (rs_car_id){ev->car}, &rc);
    if (c->flagged)
        return 0; /* its cool-down lap: not part of the session */
    c->laps = ev->lap;
    if (ev->valid && (c->best_us < 0 || ev->duration_us < c->best_us)) {
        c->best_us = ev->duration_us;
        c->best_tick = ev->tick;
    }
    if (rs_room__session_is_race(room) && rc.position == 1)
        c->laps_led++;
    if (!timed(room)) {
        if (rc.status == RS_RACE_FINISHED) {
            car_flag(room, c, rc.finish_us);
            return RS_LAP_CHEQUERED;
        }
        return 0;
    }
    if (!room->chequered && rs_room__session_is_race(room) && rc.position == 1 &&
        ev->time_us >= limit_us(room))
        show_flag(room, ev->tick + 1);
    if (!room->chequered)
        return 0;
    car_flag(room, c, ev->time_us);
    return RS_LAP_CHEQUERED;
}

/* A timed practice, qualifying or warm-up: the flag at the time. Cars not
 * on a lap then have nothing left to finish. */
static void flag_at_time(rs_room *room, uint64_t next)
{
    if (room->chequered || !timed(room) || rs_room__session_is_race(room) ||
        rs_world_race_time_us(room->world) < limit_us(room))
        return;
    show_flag(room, next);
    for (uint32_t i = 0; i < room->car_count; i++) {
        rs_race_car_state rc;
        rs_world_race_state(room->world, (rs_car_id){(uint16_t)(i + 1)}, &rc);
        if (rc.status != RS_RACE_RACING && !room->cars[i].flagged)
            car_flag(room, &room->cars[i], -1);
    }
}

/* Every car whose driver is here has taken the flag (the others never will). */
static bool connected_flagged(const rs_room *room)
{
    for (uint32_t i = 0; i < room->car_count; i++)
        if (!room->cars[i].flagged && room->seats[room->cars[i].seat].peer >= 0)
            return false;
    return true;
}

bool rs_room__session_over(rs_room *room, uint64_t next)
{
    bool anyone = false;
    for (uint32_t i = 0; i < room->car_count && !anyone; i++)
        anyone = room->seats[room->cars[i].seat].peer >= 0;
    if (!anyone)
        return true; /* nobody is left to drive it */
    flag_at_time(room, next);
    if (!timed(room) && !room->chequered) {
        for (uint32_t i = 0; i < room->car_count; i++)
            if (room->cars[i].flagged) {
                room->chequered = true; /* the first finisher took the flag */
                room->chequered_tick = next;
                rs_room__send_race_state(room, NULL);
                break;
            }
    }
    if (!room->chequered)
        return false;
    return connected_flagged(room) ||
           next - room->chequered_tick >= room->cfg.finish_timeout_ticks;
}

/* --------------------------------------------------------- classification */

typedef struct row_key {
    uint16_t car;       /* index1 */
    uint8_t status;     /* RS_CLASSIFIED, ... */
    uint32_t laps;
    int64_t time_us;    /* race: finish plus penalties; else best lap */
    uint64_t tick;      /* other sessions: when the best lap was set */
    uint32_t order;     /* race: the world's order for the unclassified */
} row_key;

static bool before(const row_key *a, const row_key *b, bool race)
{
    if (a->status != b->status)
        return a->status < b->status;
    if (race) {
        if (a->status == RS_CLASSIFIED) {
            if (a->laps != b->laps)
                return a->laps > b->laps;
            if (a->time_us != b->time_us)
                return a->time_us < b->time_us;
        }
        return a->order < b->order;
    }
    if (a->status == RS_CLASSIFIED) {
        if (a->time_us != b->time_us)
            return a->time_us < b->time_us;
        if (a->tick != b->tick)
            return a->tick < b->tick;
    }
    return a->car < b->car;
}

void rs_room__classify(rs_room *room)
{
    rs_room__classify_into(room, &room->results);
}

void rs_room__classify_into(const rs_room *room, rs_msg_results *r)
{
    memset(r, 0, sizeof *r);
    r->race_number = room->race_number;
    r->session_index = (uint8_t)room->session;
    r->session_type = rs_room__session(room)->type;
    bool race = r->session_type == RS_SESSION_RACE;
    uint32_t n = room->car_count < RS_PROTO_MAX_CARS ? room->car_count : RS_PROTO_MAX_CARS;
    rs_car_id order[RS_PROTO_MAX_CARS];
    uint32_t on = rs_world_race_order(room->world, order, RS_PROTO_MAX_CARS);
    row_key keys[RS_PROTO_MAX_CARS];
    for (uint32_t i = 0; i < n; i++) {
        const room_car *c = &room->cars[i];
        row_key *k = &keys[i];
        memset(k, 0, sizeof *k);
        k->car = (uint16_t)(i + 1);
        k->order = UINT32_MAX;
        for (uint32_t j = 0; j < on && j < RS_PROTO_MAX_CARS; j++)
            if (order[j].index1 == k->car)
                k->order = j;
        rs_race_car_state rc;
        rs_world_race_state(room->world, (rs_car_id){k->car}, &rc);
        k->laps = rc.laps_completed;
        if (c->dsq)
            k->status = RS_DISQUALIFIED;
        else if (race)
            k->status = c->flagged && c->flag_us >= 0 ? RS_CLASSIFIED : RS_NOT_CLASSIFIED;
        else
            k->status = c->best_us >= 0 ? RS_CLASSIFIED : RS_NOT_CLASSIFIED;
        if (race) {
            if (c->flagged && c->flag_us >= 0)
                k->laps = c->laps; /* what it had done when it took the flag */
            k->time_us = c->flag_us + (int64_t)c->penalty_ms * 1000;
        } else {
            k->time_us = c->best_us;
            k->tick = c->best_tick;
        }
    }
    for (uint32_t i = 1; i < n; i++) {
        row_key v = keys[i];
        uint32_t j = i;
        while (j > 0 && before(&v, &keys[j - 1], race)) {
            keys[j] = keys[j - 1];
            j--;
        }
        keys[j] = v;
    }
    uint8_t class_seen[RS_PROTO_MAX_CLASSES] = {0};
    r->count = (uint8_t)n;
    for (uint32_t i = 0; i < n; i++) {
        const room_car *c = &room->cars[keys[i].car - 1];
        rs_race_car_state rc;
        rs_world_race_state(room->world, (rs_car_id){keys[i].car}, &rc);
        rs_proto_result_row *row = &r->rows[i];
        row->car = (uint8_t)keys[i].car;
        row->position = (uint8_t)(i + 1);
        uint8_t cls = c->class_index < RS_PROTO_MAX_CLASSES ? c->class_index : 0;
        row->class_position = ++class_seen[cls];
        row->status = keys[i].status;
        row->laps = keys[i].laps;
        row->finish_us = race && c->flagged && c->flag_us >= 0 ? c->flag_us : -1;
        row->best_lap_us = c->best_us;
        row->penalty_ms = c->penalty_ms;
        row->laps_led = c->laps_led;
    }
}

/* Keeps the order of a finished qualifying or race for the grids after it. */
void rs_room__session_remember(rs_room *room)
{
    const rs_proto_session_def *s = rs_room__session(room);
    room_order *o = s->type == RS_SESSION_QUALIFYING ? &room->qualifying_order
                    : s->type == RS_SESSION_RACE     ? &room->race_order
                                                     : NULL;
    if (!o)
        return;
    o->count = 0;
    for (uint32_t i = 0; i < room->results.count; i++) {
        const rs_proto_result_row *row = &room->results.rows[i];
        if (row->status != RS_CLASSIFIED)
            break; /* those without a time start behind, in seat order */
        int seat = room->cars[row->car - 1].seat;
        memcpy(o->names[o->count++], room->seats[seat].name, sizeof o->names[0]);
    }
}

/* ------------------------------------------------ joining a running session */

/* The distance within which a car may not be when another is placed:
 * beyond a car's length and a margin, so the two bodies cannot touch. */
#define RS_ROOM_SPAWN_CLEAR_M 12.0

static bool spot_clear(const rs_room *room, const rs_car_spawn *sp)
{
    for (uint32_t i = 0; i < room->car_count; i++) {
        rs_car_state st;
        if (rs_world_car_state(room->world, (rs_car_id){(uint16_t)(i + 1)}, &st) != RS_OK)
            continue;
        double dx = st.pos_m[0] - sp->pos_m[0], dy = st.pos_m[1] - sp->pos_m[1];
        if (dx * dx + dy * dy < RS_ROOM_SPAWN_CLEAR_M * RS_ROOM_SPAWN_CLEAR_M)
            return false;
    }
    return true;
}

bool rs_room__session_open(const rs_room *room)
{
    return room->world && !rs_room__session_is_race(room) && room->phase == RS_PHASE_RACE &&
           !room->chequered;
}

bool rs_room__session_place(rs_room *room, int seat, rs_car_spawn *out)
{
    if (!rs_room__session_open(room) || room->car_count >= room->car_cap)
        return false;
    (void)seat;
    uint32_t slots = rs_track_grid_count(room->cfg.track);
    for (uint32_t k = 0; k < slots; k++) {
        if (rs_track_grid_slot(room->cfg.track, k, out) && spot_clear(room, out))
            return true;
    }
    return false;
}

uint8_t rs_room__session_position(const rs_room *room, uint16_t car)
{
    /* The place it would have in the classification now: by best lap, ties
     * to the first, then the cars without a time in car order. */
    const room_car *me = &room->cars[car - 1];
    uint32_t ahead = 0;
    for (uint32_t i = 0; i < room->car_count; i++) {
        const room_car *o = &room->cars[i];
        if (i + 1 == car)
            continue;
        bool o_first;
        if ((o->best_us < 0) != (me->best_us < 0))
            o_first = o->best_us >= 0;
        else if (o->best_us != me->best_us)
            o_first = o->best_us < me->best_us;
        else if (o->best_tick != me->best_tick)
            o_first = o->best_tick < me->best_tick;
        else
            o_first = i + 1 < car;
        ahead += o_first;
    }
    return (uint8_t)(ahead + 1);
}
