/*
 * Lockstep traffic: INPUT in, FRAME out.
 *
 * Inputs: each car has a ring of inputs for ticks not yet stepped. An INPUT
 * entry for a tick already stepped is late and ignored (the room's choice
 * was final); one further ahead than the ring is dropped. When the room
 * steps tick t it uses the car's input for t if it came, else the input the
 * car used for t - 1 (counted as missing once the client has started
 * sending). A disconnected driver's car gets a neutral input with full
 * brake so it stops where it is.
 *
 * Timing feedback: the first arrival of each tick's input is measured
 * against the instant the room steps that tick, smoothed, and returned in
 * every FRAME as input_lead_ms, so the client can hold its lead steady.
 *
 * FRAMEs (SPEC.md, FRAME and its recommended policy): every frame_every
 * ticks each peer gets the last frame_ticks ticks, so with the defaults
 * every tick travels twice. The first tick's inputs are coded against the
 * newest tick the client acknowledged (baseline_back may reach far back: the
 * client keeps a history of confirmed inputs), or against neutral inputs
 * before its first acknowledgement. The acknowledgement is a round trip
 * old, so it cannot steer the regular window on a slow route; instead, a
 * client whose acknowledgement lags RS_ROOM_REPAIR_LAG_TICKS or more behind
 * the regular window (both copies of a tick lost, a burst of loss) also gets
 * a repair FRAME on every tick without a regular one: every other one
 * starts at the first tick it lacks (the head, which holds back all later
 * ticks), the others walk a cursor from there up to the regular window,
 * then wait that long for a fresh acknowledgement before walking again. A client that
 * acknowledged a tick but fell too far behind for the history gets a fresh
 * snapshot; one that has acknowledged nothing yet gets regular FRAMEs only.
 */
#include <string.h>

#include "room_internal.h"

static double ema(double old, double sample, bool known)
{
    /* An exponential average over about 16 samples: steady enough to ignore
     * jitter, quick enough to follow a changed route within a second. */
    return known ? old + (sample - old) / 16.0 : sample;
}

void rs_room__on_input(rs_room *room, room_peer *p, const rs_msg_input *in, int64_t now_us)
{
    if (!room->world || !p->in_world)
        return;
    uint64_t next = rs_world_tick(room->world);
    if (in->frame_ack > 0 && in->frame_ack < next && in->frame_ack >= p->base_tick &&
        (!p->has_ack || in->frame_ack > p->frame_ack)) {
        p->has_ack = true;
        p->frame_ack = in->frame_ack;
    }
    if (p->seat < 0 || room->seats[p->seat].car == 0)
        return; /* a spectator's INPUT only acknowledges frames */
    room_car *c = &room->cars[room->seats[p->seat].car - 1];
    if (!c->started) {
        c->started = true;
        uint64_t oldest = in->newest_tick + 1 - in->count;
        c->first_tick = oldest > next ? oldest : next;
    }
    for (uint32_t i = 0; i < in->count; i++) {
        uint64_t t = in->newest_tick - i;
        if (t < next) {
            if (i == 0) {
                /* Late: the room's choice for t was final. Its lateness is
                 * still the best timing feedback the client can get. */
                room->stats.inputs_late++;
                double lead_ms = (double)((int64_t)rs_room__period_due(room, t) - now_us) / 1000.0;
                c->lead_ms = ema(c->lead_ms, lead_ms, c->lead_known);
                c->lead_known = true;
            }
            break; /* older entries are older still */
        }
        if (t >= next + RS_ROOM_INPUT_RING)
            continue;
        uint32_t slot = (uint32_t)(t % RS_ROOM_INPUT_RING);
        bool fresh = c->ring_tick[slot] != t + 1;
        c->ring_tick[slot] = t + 1;
        c->ring_in[slot] = in->inputs[i];
        if (fresh && i == 0) {
            double lead_ms = (double)((int64_t)rs_room__period_due(room, t) - now_us) / 1000.0;
            c->lead_ms = ema(c->lead_ms, lead_ms, c->lead_known);
            c->lead_known = true;
        }
    }
}

rs_input rs_room__input_for_tick(rs_room *room, uint32_t car_index0, uint64_t tick)
{
    room_car *c = &room->cars[car_index0];
    const room_seat *s = &room->seats[c->seat];
    uint32_t slot = (uint32_t)(tick % RS_ROOM_INPUT_RING);
    if (s->peer < 0) {
        rs_input stop = rs_proto_input_neutral();
        stop.brake = RS_PEDAL_MAX;
        c->last = stop;
    } else if (c->ring_tick[slot] == tick + 1) {
        c->last = c->ring_in[slot];
        room->stats.inputs_used++;
    } else if (c->started && tick >= c->first_tick) {
        room->stats.inputs_missing++;
        c->late++;
    }
    c->ring_tick[slot] = 0;
    return c->last;
}

/* The newest tick up to which the room holds every input of this car
 * (ticks already stepped count as held: they are final). */
static uint64_t input_ack(const room_car *c, uint64_t next)
{
    uint64_t t = next;
    while (t < next + RS_ROOM_INPUT_RING &&
           c->ring_tick[t % RS_ROOM_INPUT_RING] == t + 1)
        t++;
    return t > 0 ? t - 1 : 0;
}

static void send_frame(rs_room *room, room_peer *p, uint64_t first, uint64_t last_tick)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_FRAME;
    rs_msg_frame *f = &m.u.frame;
    f->first_tick = first;
    f->tick_count = (uint8_t)(last_tick - first + 1);
    f->car_count = (uint8_t)room->car_count;
    const rs_input *baseline = NULL;
    if (p->has_ack && first > 0) {
        uint64_t b = p->frame_ack < first ? p->frame_ack : first - 1;
        f->baseline_back = (uint32_t)(first - b);
        baseline = room->hist[b % RS_ROOM_HIST];
    }
    rs_input inputs[RS_PROTO_FRAME_MAX_TICKS * RS_PROTO_MAX_CARS];
    for (uint32_t t = 0; t < f->tick_count; t++)
        memcpy(&inputs[t * room->car_count], room->hist[(first + t) % RS_ROOM_HIST],
               room->car_count * sizeof(rs_input));
    if (rs_proto_frame_set_inputs(f, baseline, inputs) != RS_PROTO_OK)
        return;
    for (uint32_t t = 0; t < f->tick_count; t++) {
        uint64_t h;
        if (rs_room_hash_at(room, first + t, &h)) {
            f->hashes[f->hash_count].index = (uint8_t)t;
            f->hashes[f->hash_count].hash = h;
            f->hash_count++;
        }
    }
    f->input_lead_ms = RS_PROTO_LEAD_UNKNOWN;
    if (p->seat >= 0 && room->seats[p->seat].car) {
        const room_car *c = &room->cars[room->seats[p->seat].car - 1];
        if (c->lead_known) {
            double v = c->lead_ms;
            v = v > 32767.0 ? 32767.0 : v < -32767.0 ? -32767.0 : v;
            f->input_lead_ms = (int16_t)(v < 0 ? v - 0.5 : v + 0.5);
        }
        f->late_inputs = c->late;
        uint64_t next = rs_world_tick(room->world);
        f->input_ack = input_ack(c, next);
    }
    rs_room__send(room, p->id, &m);
}

void rs_room__send_frames(rs_room *room, uint64_t last_tick)
{
    const uint32_t max = RS_PROTO_FRAME_MAX_TICKS;
    bool regular = (last_tick + 1) % room->cfg.frame_every == 0;
    for (uint32_t i = 0; i < room->peer_cap; i++) {
        room_peer *p = &room->peers[i];
        if (!rs_room__peer_watching(p) || !p->in_world || last_tick < p->base_tick)
            continue;
        uint64_t need = p->has_ack ? p->frame_ack + 1 : p->base_tick;
        bool beyond = last_tick + 1 - need > RS_ROOM_HIST - 4 * max;
        if (beyond && p->has_ack) {
            /* Too far behind for the history: start it afresh. */
            rs_room__send_world_to(room, p);
            continue;
        }
        uint64_t win = last_tick + 1 >= room->cfg.frame_ticks
                           ? last_tick + 1 - room->cfg.frame_ticks : 0;
        if (win < p->base_tick)
            win = p->base_tick;
        if (regular)
            send_frame(room, p, win, last_tick);
        /* A client that has acknowledged nothing of this world may still
         * be receiving it: a world restarted then would abandon the
         * transfer under way and arrive later still. Once it arrives, the
         * client asks for a snapshot if the history moved past it. */
        if (beyond)
            continue;
        /* The acknowledgement is always a round trip old, so a lag is only
         * a loss once it exceeds what a slow route explains. */
        if (need >= win || last_tick - need < RS_ROOM_REPAIR_LAG_TICKS)
            continue;
        /* Repairs go out between regular FRAMEs, so a client never gets two
         * FRAMEs in one burst (a burst loss would take both). */
        if (regular && room->cfg.frame_every > 1)
            continue;
        if (p->repair_next < need)
            p->repair_next = need;
        /* Every other repair starts at the head, the first tick the client
         * lacks: it holds back every later tick, so a lost head repair must
         * not wait for the cursor's next round (a second or more on a slow
         * route). The others walk the cursor over the rest of a long gap. */
        p->repair_head = !p->repair_head;
        uint64_t first = need;
        if (!p->repair_head) {
            /* The regular window moves on every tick: a cursor within
             * frame_every ticks of it has caught up. */
            if (p->repair_next + room->cfg.frame_every >= win) {
                if (last_tick < p->repair_hold)
                    continue;
                p->repair_next = need;
                p->repair_hold = last_tick + RS_ROOM_REPAIR_LAG_TICKS;
            }
            first = p->repair_next;
        }
        uint64_t end = first + max - 1;
        if (end >= win)
            end = win - 1;
        send_frame(room, p, first, end);
        if (!p->repair_head || p->repair_next <= end)
            p->repair_next = end + 1;
    }
}
