/*
 * Lockstep from the client's side: FRAMEs confirm ticks, INPUTs carry the
 * local car's controls, and the client's clock runs ahead of the server's
 * by just enough for those inputs to arrive in time.
 *
 * FRAMEs are unreliable and unsequenced, so ticks come in any order, twice,
 * or not at all (the server repeats each tick in several FRAMEs and sends
 * repair FRAMEs after a long gap). Resolved ticks wait in a pending ring
 * until every earlier tick is confirmed, then go to the predictor in order;
 * confirmed inputs stay in a history ring because a FRAME's first tick is
 * coded against the confirmed inputs of the tick the client acknowledged.
 *
 * The clock: the first PONG of a world says which tick the server was at
 * half a round trip ago; the client starts a full round trip plus its
 * target lead ahead of that. From then on FRAME.input_lead_ms (how early
 * the server receives our inputs) steers the clock's rate gently towards
 * the target lead: jitter plus a margin of ticks, never below min_lead_ms.
 */
#include "client_internal.h"

#include <string.h>

#define H RS_CLIENT_HIST

void rs_client__request_snapshot(rs_client *c, uint8_t reason, int64_t now_us)
{
    /* The room ignores requests within a second of the last one anyway. */
    if (now_us < c->snap_request_next_us)
        return;
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_SNAPSHOT_REQUEST;
    m.u.snapshot_request.reason = reason;
    m.u.snapshot_request.tick = rs_client__confirmed(c);
    if (rs_client__send(c, &m))
        c->snap_request_next_us = now_us + 1500000;
}

rs_client_status rs_client_request_snapshot(rs_client *c, uint8_t reason)
{
    if (!c || c->state != RS_CLIENT_CONNECTED || reason >= RS_SNAP_REASON_COUNT)
        return c && reason < RS_SNAP_REASON_COUNT ? RS_CLIENT_ERR_STATE : RS_CLIENT_ERR_ARG;
    c->snap_request_next_us = 0;
    rs_client__request_snapshot(c, reason, c->clock_us);
    return RS_CLIENT_OK;
}

/* Reacts to a predictor status: a desync is reported to the server, to the
 * caller, and repaired with a snapshot. */
static void after_predict(rs_client *c, rs_predict_status st, int64_t now_us)
{
    if (st == RS_PREDICT_DESYNC) {
        rs_predict_stats ps;
        rs_predict_get_stats(c->pred, (double)now_us / 1e6, &ps);
        uint64_t t = ps.desync_tick;
        rs_msg m;
        memset(&m, 0, sizeof m);
        m.type = RS_MSG_DESYNC_REPORT;
        m.u.desync_report.tick = t;
        if (c->hist_tick[t % H] == t + 1)
            m.u.desync_report.server_hash = c->hist_hash[t % H];
        if (rs_predict_confirmed_tick(c->pred) == t + 1)
            m.u.desync_report.client_hash = rs_predict_confirmed_hash(c->pred);
        rs_client__send(c, &m);
        rs_client__error(c, RS_CLIENT_ERROR_DESYNC, t,
                         "desync at tick %llu: the confirmed state differs from the server's",
                         (unsigned long long)t);
        if (c->cfg.snapshot_policy == RS_CLIENT_SNAP_ON_DESYNC)
            rs_client__request_snapshot(c, RS_SNAP_DESYNC, now_us);
    } else if (st == RS_PREDICT_ERR_PHYSICS) {
        rs_client__error(c, RS_CLIENT_ERROR_SNAPSHOT, rs_predict_present_tick(c->pred),
                         "the predicted world failed to step");
        if (c->cfg.snapshot_policy == RS_CLIENT_SNAP_ON_DESYNC)
            rs_client__request_snapshot(c, RS_SNAP_DESYNC, now_us);
    }
}

/* The loss estimate. Regular FRAMEs end on ticks frame_every apart, so a
 * FRAME that moves the newest tick seen forward by k steps means k - 1 were
 * lost (or will arrive late, reordered, which is as bad for the player;
 * their ticks are still used).
 * Repairs and duplicates never move it forward and are not counted. Over
 * each second: 1 - advancing FRAMEs / steps advanced, smoothed. */
static void loss_note(rs_client *c, uint64_t newest, int64_t now_us)
{
    if (newest <= c->loss_hi)
        return;
    if (c->loss_hi) {
        /* The spacing of regular FRAMEs is the most common step (a repair
         * FRAME can end one tick past the front now and then). */
        uint64_t step = newest - c->loss_hi;
        if (step <= 8 && c->loss_steps[step] < UINT32_MAX)
            c->loss_steps[step]++;
        for (uint32_t k = 1; k <= 8; k++)
            if (c->loss_step == 0 || c->loss_steps[k] > c->loss_steps[c->loss_step])
                c->loss_step = k;
    }
    c->loss_hi = newest;
    c->loss_win_frames++;
    if (c->loss_win_start_us == 0 || c->loss_win_start_hi == 0) {
        c->loss_win_start_us = now_us;
        c->loss_win_start_hi = newest;
        c->loss_win_frames = 0;
        return;
    }
    if (now_us - c->loss_win_start_us >= 1000000 && c->loss_step) {
        double expected = (double)(c->loss_hi - c->loss_win_start_hi) / c->loss_step;
        if (expected >= 1.0) {
            double l = 1.0 - (double)c->loss_win_frames / expected;
            l = l < 0.0 ? 0.0 : l > 1.0 ? 1.0 : l;
            c->loss += (l - c->loss) / 4.0;
            /* With a margin between the two, so the interval does not flap. */
            if (c->loss > 0.02)
                c->lossy = true;
            else if (c->loss < 0.01)
                c->lossy = false;
        }
        c->loss_win_start_us = now_us;
        c->loss_win_start_hi = c->loss_hi;
        c->loss_win_frames = 0;
    }
}

void rs_client__on_frame(rs_client *c, const rs_msg_frame *f, int64_t now_us)
{
    if (!rs_client__has_world(c) || f->car_count != c->car_count)
        return;
    c->frames++;
    uint64_t confirmed = rs_client__confirmed(c);
    const rs_input *baseline = NULL;
    if (f->baseline_back) {
        if (f->baseline_back > f->first_tick) {
            c->frames_unresolvable++;
            return;
        }
        uint64_t b = f->first_tick - f->baseline_back;
        if (c->hist_tick[b % H] != b + 1) {
            c->frames_unresolvable++;
            return;
        }
        baseline = c->hist[b % H];
    }
    rs_input all[RS_PROTO_FRAME_MAX_TICKS * RS_PROTO_MAX_CARS];
    if (rs_proto_frame_get_inputs(f, baseline, all) != RS_PROTO_OK) {
        c->frames_unresolvable++;
        return;
    }
    loss_note(c, f->first_tick + f->tick_count - 1u, now_us);
    if (f->input_ack > c->input_ack)
        c->input_ack = f->input_ack;
    c->late_inputs = f->late_inputs;
    if (f->input_lead_ms != RS_PROTO_LEAD_UNKNOWN) {
        c->lead_ms = f->input_lead_ms;
        c->lead_known = true;
    }
    for (uint32_t t = 0; t < f->tick_count; t++) {
        uint64_t tick = f->first_tick + t;
        if (tick < confirmed)
            continue;
        if (tick >= confirmed + H) {
            /* Further ahead than the history: only a snapshot can help. */
            rs_client__error(c, RS_CLIENT_ERROR_BEHIND, tick,
                             "fell %llu ticks behind the server",
                             (unsigned long long)(tick - confirmed));
            if (c->cfg.snapshot_policy == RS_CLIENT_SNAP_ON_DESYNC)
                rs_client__request_snapshot(c, RS_SNAP_BEHIND, now_us);
            break;
        }
        uint32_t s = (uint32_t)(tick % H);
        c->pend_tick[s] = tick + 1;
        memcpy(c->pend[s], &all[t * c->car_count], c->car_count * sizeof(rs_input));
        c->pend_has_hash[s] = false;
        for (uint32_t k = 0; k < f->hash_count; k++) {
            if (f->hashes[k].index == t) {
                c->pend_has_hash[s] = true;
                c->pend_hash[s] = f->hashes[k].hash;
            }
        }
    }
    /* Confirm in order whatever is now contiguous. */
    for (;;) {
        uint64_t t = rs_client__confirmed(c);
        uint32_t s = (uint32_t)(t % H);
        if (c->pend_tick[s] != t + 1)
            break;
        memcpy(c->hist[s], c->pend[s], sizeof c->hist[s]);
        c->hist_tick[s] = t + 1;
        c->hist_hash[s] = c->pend_has_hash[s] ? c->pend_hash[s] : 0;
        c->pend_tick[s] = 0;
        if (!c->pred) {
            c->light_confirmed = t + 1;
            continue;
        }
        rs_predict_status st =
            rs_predict_confirm(c->pred, t, c->pend[s], c->pend_has_hash[s], c->pend_hash[s]);
        if (st != RS_PREDICT_OK && st != RS_PREDICT_DESYNC) {
            after_predict(c, st, now_us);
            break;
        }
        after_predict(c, st, now_us);
        if (!c->pred)
            break;
    }
}

/* How many ticks apart a driver's INPUTs go: input_interval_ticks on a
 * clean link. Where FRAMEs are being lost, INPUTs probably are too, and a
 * lost INPUT is recovered only by the next one: every tick, that costs one
 * tick of lead; every second tick, two, more than the lead's margin holds.
 * So a lossy link gets an INPUT every tick. */
static uint32_t input_interval(const rs_client *c)
{
    return c->lossy ? 1 : c->cfg.input_interval_ticks;
}

/* How early our inputs should reach the room: twice the measured jitter
 * plus a margin, never below min_lead_ms; and since an INPUT goes out only
 * every input_interval ticks, its oldest new input was ready that many
 * ticks less one before it left: the lead covers that too, or it would be
 * late. */
static double target_lead_ms(const rs_client *c)
{
    double hz = c->welcome.tick_hz;
    double lead = (double)rs_predict_lead_ticks(0.0, 2.0 * c->jitter_ms, c->welcome.tick_hz,
                                                c->cfg.lead_margin_ticks) *
                  1000.0 / hz;
    if (lead < c->cfg.min_lead_ms)
        lead = c->cfg.min_lead_ms;
    return lead + (double)(input_interval(c) - 1) * 1000.0 / hz;
}

void rs_client__on_pong(rs_client *c, const rs_msg_pong *p, int64_t now_us)
{
    double rtt_ms = (double)(now_us - (int64_t)p->echo_time_us) / 1000.0;
    if (rtt_ms < 0 || rtt_ms > 60000)
        return;
    /* Smoothed as TCP does (RFC 6298): mean and mean deviation. */
    if (!c->have_rtt) {
        c->rtt_ms = rtt_ms;
        c->jitter_ms = rtt_ms / 4.0;
        c->have_rtt = true;
    } else {
        double d = rtt_ms - c->rtt_ms;
        c->jitter_ms += ((d < 0 ? -d : d) - c->jitter_ms) / 4.0;
        c->rtt_ms += d / 8.0;
    }
    if (!rs_client__has_world(c) || c->calibrated || p->tick < c->snap_tick)
        return;
    /* The room was at p->tick half a round trip ago, and our inputs need
     * another half to reach it: start a full round trip plus the target
     * lead ahead. */
    double hz = c->welcome.tick_hz;
    c->target_lead_ms = target_lead_ms(c);
    c->clock_tick = (double)p->tick + (rtt_ms + c->target_lead_ms) / 1000.0 * hz;
    c->calibrated = true;
    c->rate = 1.0;
    c->clock_us = now_us;
}

static void send_ping(rs_client *c, int64_t now_us, int64_t interval_us)
{
    if (now_us < c->next_ping_us)
        return;
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_PING;
    m.u.ping.id = ++c->ping_id;
    m.u.ping.time_us = (uint64_t)now_us;
    rs_client__send(c, &m);
    c->next_ping_us = now_us + interval_us;
}

/* How many ticks apart INPUTs go: a driver's every input_interval; a
 * spectator's, which only acknowledge FRAMEs, every second tick. */
static uint64_t input_every(const rs_client *c)
{
    return c->car ? input_interval(c) : 2;
}

/* How long a due PING may wait for an INPUT to share its datagram: an
 * INPUT interval and a tick, once INPUTs flow; nothing waits otherwise. */
static int64_t ping_grace_us(const rs_client *c)
{
    if (!rs_client__has_world(c) || !c->calibrated || c->welcome.tick_hz == 0)
        return 0;
    return (int64_t)((double)(input_every(c) + 1) * 1e6 / c->welcome.tick_hz);
}

static void send_input(rs_client *c, uint64_t newest)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_INPUT;
    rs_msg_input *in = &m.u.input;
    uint64_t confirmed = rs_client__confirmed(c);
    in->newest_tick = newest;
    /* frame_ack: the newest tick whose confirmed inputs we hold (0 = none). */
    in->frame_ack = confirmed > c->snap_tick ? confirmed - 1 : 0;
    if (in->frame_ack > newest)
        in->frame_ack = newest;
    if (!c->car) {
        /* A spectator sends no controls; one neutral entry carries its
         * frame_ack, which the room needs for its FRAME baselines. */
        in->inputs[0] = rs_proto_input_neutral();
        in->count = 1;
        if (rs_client__send(c, &m))
            c->inputs_sent++;
        return;
    }
    uint32_t count = 0;
    while (count < RS_PROTO_INPUT_MAX && count <= newest) {
        uint64_t t = newest - count;
        /* Everything the room has not acknowledged, and always the newest
         * (its arrival time is the room's timing feedback). */
        if ((count > 0 && t <= c->input_ack) || c->sent_tick[t % H] != t + 1)
            break;
        in->inputs[count++] = c->sent[t % H];
    }
    if (count == 0)
        return;
    in->count = (uint8_t)count;
    if (rs_client__send(c, &m))
        c->inputs_sent++;
}

/* Emits the predicted events of the tick just stepped that concern the
 * local car. Each tick is stepped forward once, so nothing repeats. */
static void predicted_events(rs_client *c)
{
    if (!c->cfg.predicted_events || !c->car)
        return;
    size_t n = 0;
    const rs_event *evs = rs_world_events(rs_predict_world(c->pred), &n);
    for (size_t i = 0; i < n; i++) {
        const rs_event *e = &evs[i];
        rs_client_event *ev;
        if (e->type == RS_EVENT_SECTOR && e->car == c->car) {
            ev = rs_client__push_event(c, RS_CLIENT_EV_SECTOR);
            ev->u.sector.car = c->car;
            ev->u.sector.lap = e->lap;
            ev->u.sector.sector = e->sector;
            ev->u.sector.tick = e->tick;
            ev->u.sector.time_us = e->time_us;
            ev->u.sector.duration_us = e->duration_us;
        } else if ((e->type == RS_EVENT_BARRIER_HIT && e->car == c->car) ||
                   (e->type == RS_EVENT_CAR_HIT && (e->car == c->car || e->other == c->car))) {
            ev = rs_client__push_event(c, RS_CLIENT_EV_COLLISION);
            rs_client_collision *col = &ev->u.collision;
            col->car = c->car;
            if (e->type == RS_EVENT_CAR_HIT)
                col->other = (uint8_t)(e->car == c->car ? e->other : e->car);
            col->tick = e->tick;
            col->impulse_n_s = e->impulse_n_s;
            col->speed_m_s = e->speed_m_s;
            memcpy(col->point_m, e->point_m, sizeof col->point_m);
            memcpy(col->normal, e->normal, sizeof col->normal);
        }
    }
}

/* Steers the clock's rate towards the target input lead. */
static void keep_lead(rs_client *c, int64_t now_us, double hz)
{
    c->target_lead_ms = target_lead_ms(c);
    if (!c->lead_known)
        return;
    double err = c->lead_ms - c->target_lead_ms;
    if (err < 0 && (c->held || now_us < c->held_feedback_us)) {
        /* Late because the present was held back, not because the clock
         * is behind: jumping or hurrying would only push the clock further
         * ahead of the room each second the hold lasts, to be walked back
         * at a fifth of real time once it ends (seen: three seconds ahead
         * for a whole race). */
        c->rate = 1.0;
        return;
    }
    if (err < -100 && now_us >= c->jump_hold_us) {
        /* Far too late (a changed route, a bad first guess): jump ahead,
         * then let the smoothed feedback catch up before judging again.
         * Never jump back: the present would stall; slow down instead. */
        c->clock_tick -= err / 1000.0 * hz;
        c->jump_hold_us = now_us + 1000000;
        c->lead_known = false;
    } else if (err > 100) {
        c->rate = 0.8;
    } else {
        /* Gentle: the feedback is a round trip plus the room's smoothing
         * old, and a stronger gain oscillates. */
        double adj = -err / 2000.0;
        c->rate = 1.0 + (adj > 0.05 ? 0.05 : adj < -0.05 ? -0.05 : adj);
    }
}

void rs_client__drive(rs_client *c, int64_t now_us)
{
    rs_client__try_build(c, now_us);
    if (!rs_client__has_world(c)) {
        /* In the lobby the room sends nothing: keep pinging so the link
         * stays alive (and the round trip known) until a race begins. */
        send_ping(c, now_us, (int64_t)c->cfg.ping_interval_ms * 1000);
        return;
    }
    if (!c->calibrated) {
        send_ping(c, now_us, 100000);
        /* Until calibrated, follow the confirmed tick. */
        if (c->pred)
            after_predict(c, rs_predict_advance_to(c->pred, rs_predict_confirmed_tick(c->pred)),
                          now_us);
        else if (c->light_present < c->light_confirmed)
            c->light_present = c->light_confirmed;
        c->clock_us = now_us;
        return;
    }
    double hz = c->welcome.tick_hz;
    keep_lead(c, now_us, hz);
    if (now_us > c->clock_us)
        c->clock_tick += (double)(now_us - c->clock_us) / 1e6 * hz * c->rate;
    c->clock_us = now_us;
    uint64_t target = c->clock_tick > 0 ? (uint64_t)c->clock_tick : 0;
    uint64_t confirmed = rs_client__confirmed(c);
    uint64_t window = c->cfg.max_lead_ticks > 10 ? c->cfg.max_lead_ticks - 10 : 1;
    c->held = target > confirmed + window;
    if (c->held) {
        /* The present may not run further ahead of the confirmed tick than
         * the prediction's window. Either seconds of ticks are missing (a
         * world built after lights out, a long outage), and until they are
         * here this client's inputs reach the room late whatever its clock
         * says; or the room itself runs that far behind the clock (an
         * overloaded server), and FRAMEs end near the confirmed tick. In
         * the first case a snapshot of the room's present ends it sooner
         * than repairs, which gain a tick or two per tick; in the second it
         * would only load the server further. Either way the FRAMEs' lead
         * stays suspect until inputs sent after the hold have been
         * measured: a round trip, plus a second for the room's average (a
         * sixteenth per input) to forget seconds of lateness. */
        target = confirmed + window;
        if (c->cfg.snapshot_policy == RS_CLIENT_SNAP_ON_DESYNC &&
            c->loss_hi > confirmed + window / 2)
            rs_client__request_snapshot(c, RS_SNAP_BEHIND, now_us);
        c->held_feedback_us = now_us + (int64_t)(c->rtt_ms * 1000.0) + 1000000;
    }
    uint64_t present = rs_client__present(c);
    bool stepped = false;
    if (!c->pred) {
        /* Light: no world to step; the present is just a tick count. */
        if (present < confirmed)
            present = confirmed;
        while (present < target) {
            if (c->car) {
                c->sent[present % H] = c->input;
                c->sent_tick[present % H] = present + 1;
            }
            present++;
            stepped = true;
        }
        c->light_present = present;
    }
    while (c->pred && present < target) {
        if (c->car) {
            rs_input in = c->cfg.input_fn
                              ? c->cfg.input_fn(c->cfg.input_ctx, rs_predict_world(c->pred),
                                                (rs_car_id){c->car}, present)
                              : c->input;
            rs_predict_local_input(c->pred, present, &in);
            c->sent[present % H] = in;
            c->sent_tick[present % H] = present + 1;
        }
        rs_predict_status st = rs_predict_advance_to(c->pred, present + 1);
        after_predict(c, st, now_us);
        if (st != RS_PREDICT_OK && st != RS_PREDICT_DESYNC)
            break;
        predicted_events(c);
        rs_standings_observe(c->board, rs_predict_world(c->pred));
        present = rs_predict_present_tick(c->pred);
        stepped = true;
    }
    /* The INPUTs also carry frame_ack, which the room's repair FRAMEs steer
     * by. A client whose present cannot advance (its window is full while it
     * waits for a lost tick) must keep acknowledging, or the repair it needs
     * is the slower for it: one INPUT per interval whatever happens.
     * A driver's INPUT goes every input_interval_ticks (each carries every
     * unacknowledged input). */
    uint64_t every = input_every(c);
    bool keepalive = !stepped && present > 0 &&
                     now_us - c->input_sent_us >= (int64_t)((double)every * 1e6 / hz);
    bool due = present < c->input_sent_present || present - c->input_sent_present >= every;
    bool input_out = (stepped && due) || keepalive;
    if (input_out) {
        c->input_sent_us = now_us;
        c->input_sent_present = present;
        /* One INPUT per update however many ticks it covered, plus, when
         * inputs older than its 8 are still unacknowledged (a jump ahead, a
         * burst of loss), one more carrying the oldest of them: the room's
         * rate limit allows two per tick. */
        uint64_t newest = present - 1;
        send_input(c, newest);
        if (c->car && c->input_ack + RS_PROTO_INPUT_MAX < newest + 1 - RS_PROTO_INPUT_MAX &&
            now_us >= c->backlog_next_us) {
            send_input(c, c->input_ack + RS_PROTO_INPUT_MAX);
            c->backlog_next_us = now_us + (int64_t)(1e6 / hz);
        }
    }
    /* A due PING waits for the next INPUT and goes in its datagram: alone,
     * a racing client's PINGs were a tenth of its datagrams. Its round
     * trip is measured from when it leaves. */
    if (input_out || now_us >= c->next_ping_us + ping_grace_us(c))
        send_ping(c, now_us, (int64_t)c->cfg.ping_interval_ms * 1000);
    /* A rollback is due anyway when a FRAME changed the past. */
    if (c->pred)
        after_predict(c, rs_predict_advance_to(c->pred, present), now_us);
}

/* When the next predicted tick is due, or INT64_MAX: none is scheduled
 * (no world yet, the clock not calibrated). */
static int64_t next_tick_us(const rs_client *c, int64_t now_us)
{
    if (!rs_client__has_world(c) || !c->calibrated || c->welcome.tick_hz == 0)
        return INT64_MAX;
    if (c->held)
        return now_us + (int64_t)(1e6 / c->welcome.tick_hz); /* until FRAMEs come */
    double ahead = (double)rs_client__present(c) + 1.0 - c->clock_tick;
    if (ahead <= 0)
        return now_us;
    double rate = c->rate > 0.1 ? c->rate : 0.1;
    return now_us + (int64_t)(ahead / (c->welcome.tick_hz * rate) * 1e6);
}

/* The earliest of everything an update does on its own clock: the next
 * tick, the next PING, the connect or silence timeout, and the transport's
 * timers (ENet's retransmissions and pings, the cookie request). What
 * arrives is the socket's to announce. Without any, a second: a caller may
 * look at a closed client now and then. */
int64_t rs_client_next_due_us(const rs_client *c, int64_t now_us)
{
    if (!c)
        return now_us + 1000000;
    int64_t due = now_us + 1000000;
    int64_t t = INT64_MAX;
    if (c->state == RS_CLIENT_CONNECTING)
        t = c->created_us + (int64_t)c->cfg.connect_timeout_ms * 1000;
    else if (c->state == RS_CLIENT_CONNECTED) {
        t = c->last_heard_us + (int64_t)c->cfg.timeout_ms * 1000;
        if (c->next_ping_us + ping_grace_us(c) < t)
            t = c->next_ping_us + ping_grace_us(c);
        int64_t tick = next_tick_us(c, now_us);
        if (tick < t)
            t = tick;
    }
    if (t < due)
        due = t;
    if (!c->custom) {
        t = rs_client__enet_next_us(c, now_us);
        if (t < due)
            due = t;
    }
    return due < now_us ? now_us : due;
}
