/*
 * The room's world and race lifecycle: lobby -> countdown -> race ->
 * results -> next race (or the lobby when nobody is left).
 *
 * A world is created when the countdown begins, with one car per connected
 * player in seat order on the grid, and lights out at countdown_ticks (the
 * world's start_tick: a standing start). Every peer in the room is then sent
 * WELCOME (its car in this world), RACE_STATE, CAR_INFO for every car, the
 * parameter blocks (PARAMS) and the world's exact snapshot (SNAPSHOT) at
 * tick 0; a peer that joins later gets the same at the current tick. Ticks
 * are due at a fixed rate from the world's creation: tick w is stepped at
 * t0 + (w + 1) / tick_hz, so an input for w counts if it arrived before
 * that instant.
 */
#include <stdlib.h>
#include <string.h>

#include "racesim/base/text.h"
#include "room_internal.h"

/* Ticks run per update at most: a caller that stalled longer skips the rest
 * rather than spinning to catch up. */
#define RS_ROOM_MAX_CATCHUP_S 1

uint64_t rs_room__period_due(const rs_room *room, uint64_t tick)
{
    return (uint64_t)room->t0_us + (tick + 1) * 1000000u / room->cfg.tick_hz;
}

/* PHASE for the room's phase now (and STEPPED after a tick): with the
 * world when one exists. */
static void observe_world(rs_room *room, uint8_t type)
{
    if (!rs_room__observed(room))
        return;
    rs_room_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.name = ev.text = "";
    ev.phase = room->phase;
    ev.race_number = room->race_number;
    ev.world = room->world;
    rs_room__observe(room, &ev);
}

void rs_room__destroy_world(rs_room *room)
{
    if (room->world && room->race_begun && room->cfg.hooks.race_end)
        room->cfg.hooks.race_end(room->cfg.hooks.ctx, room, room->world);
    room->race_begun = false;
    /* LAPs of this race must not trail into the next one. */
    rs_room__laps_expire(room, true);
    rs_room__control_reset(room);
    rs_world_destroy(room->world);
    room->world = NULL;
    for (uint32_t i = 0; room->cars && i < room->car_count; i++) {
        rs_car_params_destroy(room->cars[i].own);
        free(room->cars[i].block);
    }
    free(room->cars);
    room->cars = NULL;
    room->car_count = 0;
    room->car_cap = 0;
    free(room->snap_buf);
    room->snap_buf = NULL;
    room->snap_cap = 0;
    for (uint32_t i = 0; i < room->cfg.max_players; i++)
        room->seats[i].car = 0;
    for (uint32_t i = 0; i < room->peer_cap; i++)
        room->peers[i].in_world = false;
}

void rs_room__send_race_state(rs_room *room, room_peer *only)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_RACE_STATE;
    rs_msg_race_state *r = &m.u.race_state;
    r->phase = room->phase;
    r->race_number = room->race_number;
    const rs_proto_session_def *s = rs_room__session(room);
    r->laps = s->laps;
    r->phase_tick = room->phase_tick;
    r->start_tick = room->world ? room->start_tick : 0;
    r->phase_end_tick = room->phase_end_tick;
    r->track_hash = room->track_hash;
    r->session_index = (uint8_t)room->session;
    r->session_type = s->type;
    r->time_limit_ms = s->time_limit_s * 1000u;
    r->flags = (uint8_t)((room->world && room->chequered ? RS_SESSION_CHEQUERED : 0) |
                         (room->world && !room->start_hold ? RS_SESSION_FREE_START : 0));
    for (uint32_t i = 0; i < room->peer_cap; i++) {
        room_peer *p = &room->peers[i];
        if (rs_room__peer_watching(p) && (!only || only == p))
            rs_room__send(room, p->id, &m);
    }
}

void rs_room__send_car_info(rs_room *room, room_peer *only, uint16_t car)
{
    if (!room->world || car < 1 || car > room->car_count)
        return;
    const room_seat *s = &room->seats[room->cars[car - 1].seat];
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_CAR_INFO;
    rs_msg_car_info *c = &m.u.car_info;
    c->car = (uint8_t)car;
    c->flags = s->peer >= 0 ? RS_CAR_CONNECTED : 0;
    c->player_id = s->player_id;
    strcpy(c->name, s->name);
    const room_car *rc = &room->cars[car - 1];
    c->params_hash = rc->params_hash;
    c->base_hash = rc->base_hash;
    c->tune_hash = rc->tune_hash;
    c->class_index = rc->class_index;
    c->number = rc->number;
    c->ballast_kg = rc->ballast_kg;
    c->restrictor_pct = rc->restrictor_pct;
    for (uint32_t i = 0; i < room->peer_cap; i++) {
        room_peer *p = &room->peers[i];
        if (rs_room__peer_watching(p) && (!only || only == p))
            rs_room__send(room, p->id, &m);
    }
}

void rs_room__broadcast_car_info(rs_room *room, uint16_t car)
{
    rs_room__send_car_info(room, NULL, car);
}

void rs_room__send_weekend(rs_room *room, room_peer *only)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_WEEKEND;
    rs_msg_weekend *w = &m.u.weekend;
    w->weekend = room->weekend;
    w->session_count = (uint8_t)room->session_count;
    memcpy(w->sessions, room->sessions, room->session_count * sizeof w->sessions[0]);
    w->class_count = (uint8_t)room->class_count;
    memcpy(w->classes, room->classes, sizeof w->classes);
    w->car_count = (uint8_t)room->offer_count;
    for (uint32_t i = 0; i < room->offer_count; i++) {
        const room_offer *o = &room->offers[i];
        w->cars[i].base_hash = o->hash;
        w->cars[i].class_index = o->class_index;
        /* A display name longer than the wire's is cut at a character. */
        rs_str_cut(w->cars[i].name, sizeof w->cars[i].name, rs_car_params_name(o->params));
    }
    memcpy(w->championship, room->championship, sizeof w->championship);
    for (uint32_t i = 0; i < room->peer_cap; i++) {
        room_peer *p = &room->peers[i];
        if (rs_room__peer_watching(p) && (!only || only == p))
            rs_room__send(room, p->id, &m);
    }
}

/* Everything a client needs to simulate from the current tick: car info,
 * the parameter blocks and track text it does not hold yet (room_blocks.c),
 * and the exact snapshot. */
void rs_room__send_world_to(rs_room *room, room_peer *p)
{
    for (uint16_t c = 1; c <= room->car_count; c++)
        rs_room__send_car_info(room, p, c);
    for (uint32_t c = 1; c <= room->car_count; c++) {
        const room_car *rc = &room->cars[c - 1];
        rs_room__send_block(room, p, RS_PARAMS_CAR, (uint8_t)c, rc->params_hash, rc->block,
                            rc->block_len);
    }
    rs_room__send_block(room, p, RS_PARAMS_TRACK, 0, room->track_hash,
                        (const uint8_t *)room->cfg.track_json, room->cfg.track_json_len);
    size_t n = rs_world_snapshot(room->world, room->snap_buf, room->snap_cap);
    uint64_t tick = rs_world_tick(room->world);
    rs_room__send_blob_snapshot(room, p->id, tick, rs_world_hash(room->world), room->snap_buf, n);
    p->in_world = true;
    p->base_tick = tick;
    p->has_ack = false;
    p->frame_ack = 0;
    p->repair_next = tick;
    p->repair_hold = 0;
    if (p->seat >= 0) {
        uint16_t car = room->seats[p->seat].car;
        if (car) {
            /* A (re)joining driver: measure its timing afresh. */
            room_car *rc = &room->cars[car - 1];
            rc->started = false;
            rc->lead_known = false;
        }
    }
}

void rs_room__apply_next_track(rs_room *room)
{
    if (!room->next_track || room->world)
        return;
    room->cfg.track = room->next_track;
    room->cfg.track_json = room->next_json;
    room->cfg.track_json_len = room->next_json_len;
    room->track_hash = rs_track_hash(room->next_track);
    room->next_track = NULL;
}

/* A seat's car for this world: its own copy of what the seat drives now
 * (the seat may choose again during the session). */
static rs_status car_from_seat(rs_room *room, room_car *c, room_seat *s)
{
    const room_seat_car *sc = rs_room__seat_effective(room, s);
    if (!sc)
        return RS_ERR_NOMEM;
    c->block = malloc(sc->block_len);
    if (!c->block)
        return RS_ERR_NOMEM;
    memcpy(c->block, sc->block, sc->block_len);
    c->block_len = sc->block_len;
    rs_status st = rs_car_params_from_block(c->block, c->block_len, &c->own, NULL, 0);
    if (st != RS_OK)
        return st;
    c->params_hash = sc->params_hash;
    c->base_hash = sc->base_hash;
    c->tune_hash = sc->tune_hash;
    c->class_index = sc->class_index;
    c->number = sc->number;
    c->ballast_kg = (uint16_t)(sc->ballast_kg + 0.5);
    c->restrictor_pct = (uint8_t)(sc->restrictor_pct + 0.5);
    return RS_OK;
}

static void entrant_of(const rs_room *room, uint32_t i, rs_room_entrant *e)
{
    const room_car *c = &room->cars[i];
    const room_seat *s = &room->seats[c->seat];
    e->car = (uint8_t)(i + 1);
    e->player_id = s->player_id;
    e->name = s->name;
    e->params_hash = c->params_hash;
    e->base_hash = c->base_hash;
    e->tune_hash = c->tune_hash;
    e->params = c->own;
    e->stock = room->offers[s->offer].params;
    e->class_index = c->class_index;
    e->number = c->number;
}

static void hook_race_begin(rs_room *room)
{
    if (!room->cfg.hooks.race_begin)
        return;
    rs_room_entrant e[RS_PROTO_MAX_CARS];
    for (uint32_t i = 0; i < room->car_count; i++)
        entrant_of(room, i, &e[i]);
    room->cfg.hooks.race_begin(room->cfg.hooks.ctx, room, room->world, e, room->car_count);
}

/* A car of the running world for the player of seat i, its session state
 * fresh. */
static void car_init(room_car *rc, int seat)
{
    memset(rc, 0, sizeof *rc);
    rc->seat = seat;
    rc->last = rs_proto_input_neutral();
    rc->best_us = -1;
    rc->flag_us = -1;
}

/* Every watcher gets the world again: who drives (WELCOME), the session
 * (RACE_STATE), the cars, the blocks and the snapshot. */
static void send_world_all(rs_room *room)
{
    for (uint32_t i = 0; i < room->peer_cap; i++) {
        room_peer *p = &room->peers[i];
        if (!rs_room__peer_watching(p))
            continue;
        rs_room__welcome(room, p);
        rs_room__send_race_state(room, p);
        rs_room__send_world_to(room, p);
    }
}

/* The snapshot buffer fits the world as it is now. */
static bool snap_fit(rs_room *room)
{
    size_t need = rs_world_snapshot(room->world, NULL, 0);
    if (need <= room->snap_cap && room->snap_buf)
        return true;
    uint8_t *b = realloc(room->snap_buf, need);
    if (!b)
        return false;
    room->snap_buf = b;
    room->snap_cap = need;
    return true;
}

/* The next session of the weekend begins: a world with the cars of the
 * seats here, in grid order, each on its grid slot. A race starts standing
 * after a countdown; the other sessions are running at once, and take
 * newcomers while they run (rs_room__session_join). */
static bool start_session(rs_room *room, int64_t now_us)
{
    rs_room__apply_next_track(room);
    /* Seats that left for good during the last session free their place. */
    for (uint32_t i = 0; i < room->cfg.max_players; i++)
        if (room->seats[i].used && room->seats[i].peer < 0)
            rs_room__seat_free(room, (int)i);
    int seats[RS_PROTO_MAX_CARS];
    uint32_t n = rs_room__grid(room, seats);
    if (n == 0)
        return false;
    if (room->session == 0) {
        room->weekend++;
        rs_room__send_weekend(room, NULL);
    }
    const rs_proto_session_def *s = rs_room__session(room);
    bool race = s->type == RS_SESSION_RACE;
    rs_world_def def = rs_world_default();
    def.tick_hz = room->cfg.tick_hz;
    def.substeps = room->cfg.substeps;
    def.max_cars = race ? n : room->cfg.max_players;
    def.track = room->cfg.track;
    def.laps = s->laps;
    def.start_tick = race ? room->cfg.countdown_ticks : 0;
    /* A free start only where there is a start to jump. */
    def.start_hold = !(race && room->cfg.free_start);
    def.car_collisions = true;
    if (rs_world_create(&def, &room->world) != RS_OK)
        return false;
    room->start_tick = def.start_tick;
    room->start_hold = def.start_hold;
    room->car_cap = def.max_cars;
    room->cars = calloc(room->car_cap, sizeof *room->cars);
    if (!room->cars)
        goto fail;
    for (uint32_t car = 0; car < n; car++) {
        room_seat *st = &room->seats[seats[car]];
        rs_car_spawn sp;
        rs_car_id id;
        room_car *rc = &room->cars[car];
        car_init(rc, seats[car]);
        room->car_count = car + 1; /* so a failure frees this car's copy */
        if (car_from_seat(room, rc, st) != RS_OK || !rs_track_grid_slot(room->cfg.track, car, &sp) ||
            rs_world_add_car(room->world, rc->own, &sp, &id) != RS_OK)
            goto fail;
        st->car = id.index1;
    }
    if (!snap_fit(room))
        goto fail;
    memset(room->hash_tick, 0, sizeof room->hash_tick);
    rs_room__session_reset(room);
    room->t0_us = now_us;
    room->race_number++;
    room->phase = race ? RS_PHASE_COUNTDOWN : RS_PHASE_RACE;
    room->phase_tick = 0;
    room->phase_end_tick = race ? room->cfg.countdown_ticks : 0;
    room->race_begun = true;
    hook_race_begin(room);
    send_world_all(room);
    observe_world(room, RS_ROOM_EV_PHASE);
    return true;
fail:
    rs_room__destroy_world(room);
    return false;
}

bool rs_room__session_join(rs_room *room, int seat)
{
    room_seat *st = &room->seats[seat];
    rs_car_spawn sp;
    if (st->car || !rs_room__session_place(room, seat, &sp))
        return false;
    room_car *rc = &room->cars[room->car_count];
    car_init(rc, seat);
    rs_car_id id;
    if (car_from_seat(room, rc, st) != RS_OK ||
        rs_world_add_car(room->world, rc->own, &sp, &id) != RS_OK) {
        rs_car_params_destroy(rc->own);
        free(rc->block);
        memset(rc, 0, sizeof *rc);
        return false;
    }
    room->car_count++;
    st->car = id.index1;
    if (!snap_fit(room)) {
        /* The car is in the world but cannot be sent: end the session
         * rather than run a world the clients cannot have. */
        rs_room__enter_results(room, rs_world_tick(room->world));
        return true;
    }
    if (room->cfg.hooks.car_joined) {
        rs_room_entrant e;
        entrant_of(room, id.index1 - 1u, &e);
        room->cfg.hooks.car_joined(room->cfg.hooks.ctx, room, room->world, &e, &sp);
    }
    send_world_all(room);
    return true;
}

/* Seats whose players wait for a place in the running session. */
static void place_waiting(rs_room *room)
{
    if (!rs_room__session_open(room))
        return;
    for (uint32_t i = 0; i < room->cfg.max_players; i++) {
        const room_seat *s = &room->seats[i];
        if (s->used && s->peer >= 0 && !s->car && !s->kicked)
            rs_room__session_join(room, (int)i);
    }
}

static void set_phase(rs_room *room, uint8_t phase, uint64_t tick, uint64_t end_tick)
{
    room->phase = phase;
    room->phase_tick = tick;
    room->phase_end_tick = end_tick;
    rs_room__send_race_state(room, NULL);
    observe_world(room, RS_ROOM_EV_PHASE);
}

void rs_room__results_flush(rs_room *room)
{
    if (!room->results_pending || room->laps_len > 0)
        return;
    room->results_pending = false;
    rs_msg m;
    m.type = RS_MSG_RESULTS;
    m.u.results = room->results;
    rs_room__send_watchers(room, &m);
}

void rs_room__enter_results(rs_room *room, uint64_t tick)
{
    /* RESULTS waits for the race's deferred LAPs (the last finisher's lap
     * is usually still waiting for the database's flags): a client that
     * stops listening at RESULTS has then seen every lap and its FINISH. */
    rs_room__classify(room);
    rs_room__session_remember(room);
    room->results_pending = true;
    rs_room__results_flush(room);
    set_phase(room, RS_PHASE_RESULTS, tick, tick + room->cfg.results_ticks);
    if (room->cfg.hooks.race_results)
        room->cfg.hooks.race_results(room->cfg.hooks.ctx, room, room->world);
}

/* The car's race position after this tick's step (its finishing position
 * once it has taken the flag). */
static uint8_t position_of(const rs_room *room, uint16_t car)
{
    rs_race_car_state rc;
    if (rs_world_race_state(room->world, (rs_car_id){car}, &rc) != RS_OK)
        return 1;
    return (uint8_t)(rc.finish_position ? rc.finish_position : rc.position);
}

static void send_events(rs_room *room)
{
    size_t n = 0;
    const rs_event *ev = rs_world_events(room->world, &n);
    for (size_t i = 0; i < n; i++) {
        if (ev[i].type != RS_EVENT_LAP)
            continue;
        rs_msg m;
        memset(&m, 0, sizeof m);
        m.type = RS_MSG_LAP;
        rs_msg_lap *l = &m.u.lap;
        l->car = (uint8_t)ev[i].car;
        l->lap = ev[i].lap;
        l->tick = ev[i].tick;
        l->time_us = ev[i].duration_us;
        l->sector_count = (uint8_t)ev[i].sector_count;
        for (uint32_t k = 0; k < ev[i].sector_count && k < RS_MAX_SECTORS; k++)
            l->sectors_us[k] = ev[i].sectors_us[k];
        l->valid = ev[i].valid;
        l->invalid_reason = ev[i].valid ? 0 : ev[i].reason;
        /* Persistence is the server's (rs_room_lap_flags); the flag is ours. */
        l->flags = rs_room__session_lap(room, &ev[i]);
        l->position = rs_room__session_is_race(room) ? position_of(room, ev[i].car)
                                                     : rs_room__session_position(room, ev[i].car);
        if (room->cfg.defer_laps)
            rs_room__lap_queue(room, l);
        else
            rs_room__send_watchers(room, &m);
    }
}

/* Steps one tick of the world with the inputs the room chose. */
static void step_tick(rs_room *room)
{
    uint64_t t = rs_world_tick(room->world);
    rs_input *used = room->hist[t % RS_ROOM_HIST];
    for (uint32_t c = 0; c < room->car_count; c++) {
        used[c] = rs_room__input_for_tick(room, c, t);
        rs_world_set_input(room->world, (rs_car_id){(uint16_t)(c + 1)}, &used[c]);
    }
    if (room->cfg.hooks.before_step)
        room->cfg.hooks.before_step(room->cfg.hooks.ctx, room, room->world);
    rs_world_step(room->world);
    room->stats.ticks++;
    if (t % room->cfg.hash_interval == 0) {
        uint32_t i = (uint32_t)(t % RS_ROOM_HASH_RING);
        room->hash_tick[i] = t + 1;
        room->hash_val[i] = rs_world_hash(room->world);
    }
    send_events(room);
    rs_room__control_step(room);
    /* After the LAPs are queued, so the hook can flag them at once. */
    if (room->cfg.hooks.after_step)
        room->cfg.hooks.after_step(room->cfg.hooks.ctx, room, room->world);
    observe_world(room, RS_ROOM_EV_STEPPED);
    uint64_t next = t + 1;
    if (room->phase == RS_PHASE_COUNTDOWN && next >= room->cfg.countdown_ticks) {
        set_phase(room, RS_PHASE_RACE, next, 0);
    } else if (room->phase == RS_PHASE_RACE && rs_room__session_over(room, next)) {
        rs_room__enter_results(room, next);
    }
    rs_room__send_frames(room, t);
    /* Between ticks, after this tick's FRAMEs: a car added now is in the
     * world from tick next on, and everyone is sent that world. */
    place_waiting(room);
}

/* The lobby: a race is due once enough players are here or the lobby
 * timer ran out (at once after a race's results); it starts when every
 * connected player holds its blocks, or after cfg.load_wait_ticks. */
static void lobby_update(rs_room *room, int64_t now_us)
{
    rs_room__apply_next_track(room);
    uint32_t n = 0;
    for (uint32_t i = 0; i < room->cfg.max_players; i++)
        n += room->seats[i].used && room->seats[i].peer >= 0;
    if (n == 0) {
        room->lobby_timer = false;
        room->loading = false;
        room->session = 0; /* an empty room's weekend begins again with its players */
        return;
    }
    bool ready = rs_room__blocks_offer(room);
    if (!room->loading) {
        if (room->lobby_since_us < 0 || !room->lobby_timer) {
            room->lobby_timer = true;
            room->lobby_since_us = now_us;
        }
        int64_t wait_us = (int64_t)room->cfg.lobby_ticks * 1000000 / room->cfg.tick_hz;
        if (n < room->cfg.start_players && now_us - room->lobby_since_us < wait_us)
            return;
        room->loading = true;
        room->load_since_us = now_us;
    }
    int64_t load_us = (int64_t)room->cfg.load_wait_ticks * 1000000 / room->cfg.tick_hz;
    if (!ready && now_us - room->load_since_us < load_us)
        return;
    if (!ready)
        room->stats.load_timeouts++;
    room->loading = false;
    start_session(room, now_us);
}

void rs_room__race_update(rs_room *room, int64_t now_us)
{
    if (!room->world) {
        lobby_update(room, now_us);
        return;
    }
    uint32_t budget = RS_ROOM_MAX_CATCHUP_S * room->cfg.tick_hz;
    while (room->world &&
           (int64_t)rs_room__period_due(room, rs_world_tick(room->world)) <= now_us) {
        if (budget-- == 0) {
            /* Fell far behind: move the schedule instead of spinning. */
            uint64_t t = rs_world_tick(room->world);
            int64_t behind = now_us - (int64_t)rs_room__period_due(room, t);
            uint64_t skip = (uint64_t)behind * room->cfg.tick_hz / 1000000u + 1;
            room->t0_us += (int64_t)(skip * 1000000u / room->cfg.tick_hz);
            room->stats.ticks_skipped += skip;
            break;
        }
        step_tick(room);
        if (room->phase == RS_PHASE_RESULTS &&
            rs_world_tick(room->world) >= room->phase_end_tick) {
            rs_room__destroy_world(room);
            room->session = (room->session + 1) % room->session_count;
            if (room->session == 0 && room->weekend_track) {
                /* The track the players voted for: the next weekend's,
                 * offered to everyone with the lobby's blocks. */
                room->next_track = room->weekend_track;
                room->next_json = room->weekend_json;
                room->next_json_len = room->weekend_json_len;
                room->weekend_track = NULL;
            }
            room->phase = RS_PHASE_LOBBY;
            room->phase_tick = room->phase_end_tick = 0;
            room->lobby_timer = false;
            /* The next race is due at once, once its blocks are held. */
            room->loading = true;
            room->load_since_us = now_us;
            rs_room__send_race_state(room, NULL);
            observe_world(room, RS_ROOM_EV_PHASE);
            lobby_update(room, now_us);
        }
    }
}

void rs_room_update(rs_room *room, int64_t now_us)
{
    room->now_us = now_us;
    rs_room__votes_update(room);
    rs_room__race_update(room, now_us);
    rs_room__laps_expire(room, false);
}

int64_t rs_room_next_due_us(const rs_room *room, int64_t now_us)
{
    if (!room->world)
        return now_us + 1000000 / room->cfg.tick_hz;
    return (int64_t)rs_room__period_due(room, rs_world_tick(room->world));
}
