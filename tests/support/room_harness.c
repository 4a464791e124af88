/*
 * The in-memory transport and the protocol-speaking test clients of
 * room_harness.h. See there for what they model.
 */
#include "room_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/protocol.h"
#include "racesim/track.h"

/* A broken invariant of the harness or the room: say where, then stop. */
#define FAIL() (fprintf(stderr, "room_harness.c:%d: invariant broken\n", __LINE__), abort())

#define HIST 512u      /* ticks of confirmed inputs (and pending ones) a client keeps */
#define MAX_CLIENTS 40u

/* ------------------------------------------------------------ the link */

typedef struct hpkt {
    int64_t at_us;
    uint64_t order;       /* global insertion order: ties deliver in send order */
    uint32_t client;      /* index */
    bool to_server;
    uint8_t ch;
    bool rel;
    uint16_t len;
    uint8_t data[RS_PROTO_MAX_PACKET];
} hpkt;

typedef struct stream {
    int64_t last_at_us;    /* reliable: keeps deliveries in order */
    uint32_t burst_left;
} stream;

/* ----------------------------------------------------------- a client */

typedef struct hclient {
    uint32_t peer;
    char name[RS_PROTO_NAME_MAX + 1];
    char token[RS_PROTO_TOKEN_LEN + 1];
    uint8_t hello_flags;  /* RS_HELLO_REGISTER; spectating follows `spectator` */
    bool spectator;
    bool connected;
    /* Messages kept for harness_client_take (clients added with
     * harness_add_client only). */
    bool recording;
    rs_msg *log;
    size_t log_len, log_cap;
    stream up[RS_CH_COUNT], down[RS_CH_COUNT];

    /* the world as announced */
    bool welcomed;
    rs_msg_welcome welcome;
    bool have_race_state;
    rs_msg_race_state race_state;
    rs_proto_assembler *snap_asm, *params_asm;
    uint8_t *snap;
    size_t snap_len;
    uint64_t snap_tick, snap_hash;
    rs_proto_blocks *blocks; /* parameter blocks by hash, for the connection */
    uint32_t snap_count_at_build;
    uint32_t snaps_received;

    /* the simulation */
    rs_track *track;
    rs_car_params *params[RS_PROTO_MAX_CARS];
    rs_predict *pred;
    rs_driver *driver;
    uint8_t car;
    uint32_t car_count;
    rs_input hist[HIST][RS_PROTO_MAX_CARS]; /* confirmed inputs by tick % HIST */
    uint64_t hist_tick[HIST];               /* tick + 1 */
    rs_input pend[HIST][RS_PROTO_MAX_CARS]; /* resolved, not yet confirmed */
    uint64_t pend_tick[HIST];
    bool pend_has_hash[HIST];
    uint64_t pend_hash[HIST];
    uint64_t input_ack;                     /* from FRAMEs */
    rs_input sent[HIST];                    /* local inputs by tick */
    uint64_t sent_tick[HIST];

    /* the clock */
    bool calibrated;
    double clock_tick;       /* the present the client aims for */
    double rate;
    int64_t last_us;
    int64_t next_ping_us;
    uint32_t ping_id;
    double rtt_ms;
    int16_t lead_ms;
    bool lead_known;
    int64_t jump_hold_us;
    int64_t backlog_next_us;

    harness_client_stats st;
    int64_t present_changed_us, confirm_changed_us;
    uint64_t last_present, last_confirmed;
} hclient;

struct harness {
    rs_room *room;
    rs_room_config cfg;
    const rs_racing_line *line;
    bool impaired;
    harness_impair imp;
    uint64_t rng;
    double lead_target_ms;
    int64_t now_us;
    uint64_t order;
    hpkt *q;
    size_t q_len, q_cap;
    uint32_t n;
    hclient *c;
    rs_room_packet outbuf[256];
};

static uint64_t rnd(harness *h)
{
    /* xorshift64*: seeded, so an impaired run is reproducible. */
    h->rng ^= h->rng >> 12;
    h->rng ^= h->rng << 25;
    h->rng ^= h->rng >> 27;
    return h->rng * 0x2545F4914F6CDD1DULL;
}

static double rnd01(harness *h)
{
    return (double)(rnd(h) >> 11) / 9007199254740992.0;
}

static void enqueue(harness *h, uint32_t client, bool to_server, uint8_t ch, bool rel,
                    const uint8_t *data, size_t len)
{
    hclient *c = &h->c[client];
    stream *s = to_server ? &c->up[ch] : &c->down[ch];
    int copies = 1;
    int64_t at = h->now_us;
    if (h->impaired) {
        at += h->imp.delay_us;
        if (h->imp.jitter_us)
            at += (int64_t)(rnd(h) % (uint64_t)(2 * h->imp.jitter_us + 1)) - h->imp.jitter_us;
        if (!rel) {
            if (s->burst_left) {
                s->burst_left--;
                return;
            }
            if (rnd01(h) < h->imp.burst_chance) {
                s->burst_left = h->imp.burst_len - 1;
                return;
            }
            if (rnd01(h) < h->imp.loss)
                return;
            if (rnd01(h) < h->imp.dup)
                copies = 2;
            if (rnd01(h) < h->imp.reorder)
                at += (int64_t)(rnd(h) % (uint64_t)(h->imp.reorder_us + 1));
        } else {
            /* Reliable: complete and in order (ENet retransmits; its delay
             * is folded into the jitter). */
            if (at < s->last_at_us)
                at = s->last_at_us;
            s->last_at_us = at;
        }
    }
    for (int k = 0; k < copies; k++) {
        if (h->q_len == h->q_cap) {
            h->q_cap = h->q_cap ? h->q_cap * 2 : 1024;
            h->q = realloc(h->q, h->q_cap * sizeof *h->q);
            if (!h->q)
                FAIL();
        }
        hpkt *p = &h->q[h->q_len++];
        p->at_us = at + k * 3000; /* a duplicate trails its original */
        p->order = h->order++;
        p->client = client;
        p->to_server = to_server;
        p->ch = ch;
        p->rel = rel;
        p->len = (uint16_t)len;
        memcpy(p->data, data, len);
    }
}

static void client_send(harness *h, uint32_t i, const rs_msg *m)
{
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    if (rs_proto_encode(m, buf, sizeof buf, &len, NULL) != RS_PROTO_OK)
        FAIL();
    uint8_t ch = 0, dir = 0;
    bool rel = false;
    rs_proto_msg_info(m->type, &ch, &rel, &dir);
    enqueue(h, i, true, ch, rel, buf, len);
}

static void send_hello(harness *h, uint32_t i)
{
    hclient *c = &h->c[i];
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_HELLO;
    m.u.hello.protocol_version = RS_PROTO_VERSION;
    m.u.hello.physics_version = RS_PHYSICS_VERSION;
    m.u.hello.flags = (uint8_t)((c->spectator ? RS_HELLO_SPECTATOR : 0) | c->hello_flags);
    strcpy(m.u.hello.name, c->name);
    strcpy(m.u.hello.token, c->token);
    client_send(h, i, &m);
}

/* ------------------------------------------------- building the world */

static void client_reset_world(hclient *c)
{
    rs_predict_destroy(c->pred);
    c->pred = NULL;
    rs_driver_destroy(c->driver);
    c->driver = NULL;
    for (uint32_t k = 0; k < RS_PROTO_MAX_CARS; k++) {
        rs_car_params_destroy(c->params[k]);
        c->params[k] = NULL;
    }
    rs_track_destroy(c->track);
    c->track = NULL;
    c->calibrated = false;
    memset(c->hist_tick, 0, sizeof c->hist_tick);
    memset(c->pend_tick, 0, sizeof c->pend_tick);
    memset(c->sent_tick, 0, sizeof c->sent_tick);
    c->input_ack = 0;
    c->lead_known = false;
}

static void try_build(harness *h, hclient *c)
{
    /* Control (WELCOME, RACE_STATE) and bulk (PARAMS, SNAPSHOT) are separate
     * reliable streams: wait until both describe a world. */
    if (!c->welcomed || !c->have_race_state || c->race_state.phase == RS_PHASE_LOBBY ||
        !c->snap || c->welcome.car_count == 0 || c->snap_count_at_build == c->snaps_received)
        return;
    /* Blocks are kept by hash: the room sends each once per connection. */
    size_t track_len = 0, block_len[RS_PROTO_MAX_CARS];
    const uint8_t *track_json =
        rs_proto_blocks_find(c->blocks, RS_PARAMS_TRACK, c->welcome.track_hash, &track_len);
    const uint8_t *block[RS_PROTO_MAX_CARS];
    if (!track_json)
        return;
    for (uint32_t k = 0; k < c->welcome.car_count; k++) {
        block[k] = rs_proto_blocks_find(c->blocks, RS_PARAMS_CAR, c->welcome.car_hashes[k],
                                        &block_len[k]);
        if (!block[k])
            return;
    }
    client_reset_world(c);
    char err[256];
    if (rs_track_parse((const char *)track_json, track_len, "room track", &c->track, err,
                       sizeof err) != RS_OK ||
        rs_track_hash(c->track) != c->welcome.track_hash)
        FAIL();
    rs_world_def def = rs_world_default();
    def.tick_hz = c->welcome.tick_hz;
    def.substeps = c->welcome.substeps;
    def.max_cars = c->welcome.car_count;
    def.track = c->track;
    def.laps = c->race_state.laps;
    def.start_tick = c->race_state.start_tick;
    def.car_collisions = true;
    rs_world *w = NULL;
    if (rs_world_create(&def, &w) != RS_OK)
        FAIL();
    for (uint32_t k = 0; k < c->welcome.car_count; k++) {
        if (rs_car_params_from_block(block[k], block_len[k], &c->params[k], err, sizeof err) !=
                RS_OK ||
            rs_car_params_hash(c->params[k]) != c->welcome.car_hashes[k])
            FAIL();
        rs_car_spawn sp;
        if (!rs_track_grid_slot(c->track, k, &sp) ||
            rs_world_add_car(w, c->params[k], &sp, NULL) != RS_OK)
            FAIL();
    }
    if (rs_world_restore(w, c->snap, c->snap_len) != RS_OK || rs_world_hash(w) != c->snap_hash ||
        rs_world_tick(w) != c->snap_tick)
        FAIL();
    rs_predict_config pc = rs_predict_config_default();
    pc.local_car.index1 = c->welcome.car;
    pc.max_lead_ticks = 200;
    if (rs_predict_create(w, &pc, &c->pred) != RS_PREDICT_OK)
        FAIL();
    c->car = c->welcome.car;
    c->car_count = c->welcome.car_count;
    if (c->car) {
        rs_driver_options o = rs_driver_options_default();
        o.seed = c->peer;
        if (rs_driver_create(h->line, &o, &c->driver) != RS_OK)
            FAIL();
    }
    c->snap_count_at_build = c->snaps_received;
    c->next_ping_us = h->now_us;
    c->present_changed_us = c->confirm_changed_us = h->now_us;
    c->last_present = c->last_confirmed = c->snap_tick;
}

/* --------------------------------------------------------- receiving */

static void on_frame(hclient *c, const rs_msg_frame *f)
{
    if (!c->pred || f->car_count != c->car_count)
        return;
    c->st.frames++;
    uint64_t confirmed = rs_predict_confirmed_tick(c->pred);
    const rs_input *baseline = NULL;
    if (f->baseline_back) {
        uint64_t b = f->first_tick - f->baseline_back;
        if (c->hist_tick[b % HIST] != b + 1) {
            c->st.frames_unresolvable++;
            return;
        }
        baseline = c->hist[b % HIST];
    }
    rs_input all[RS_PROTO_FRAME_MAX_TICKS * RS_PROTO_MAX_CARS];
    if (rs_proto_frame_get_inputs(f, baseline, all) != RS_PROTO_OK) {
        c->st.frames_unresolvable++;
        return;
    }
    if (f->input_ack > c->input_ack)
        c->input_ack = f->input_ack;
    if (f->input_lead_ms != RS_PROTO_LEAD_UNKNOWN) {
        c->lead_ms = f->input_lead_ms;
        c->lead_known = true;
        c->st.last_lead_ms = f->input_lead_ms;
    }
    for (uint32_t t = 0; t < f->tick_count; t++) {
        uint64_t tick = f->first_tick + t;
        if (tick < confirmed || tick >= confirmed + HIST)
            continue;
        uint32_t s = (uint32_t)(tick % HIST);
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
        uint64_t t = rs_predict_confirmed_tick(c->pred);
        uint32_t s = (uint32_t)(t % HIST);
        if (c->pend_tick[s] != t + 1)
            break;
        rs_predict_status st =
            rs_predict_confirm(c->pred, t, c->pend[s], c->pend_has_hash[s], c->pend_hash[s]);
        if (st != RS_PREDICT_OK && st != RS_PREDICT_DESYNC)
            FAIL();
        memcpy(c->hist[s], c->pend[s], sizeof c->hist[s]);
        c->hist_tick[s] = t + 1;
        c->pend_tick[s] = 0;
    }
}

static void record(hclient *c, const rs_msg *m)
{
    switch (m->type) {
    case RS_MSG_WELCOME: case RS_MSG_REFUSE: case RS_MSG_BYE: case RS_MSG_LAP:
    case RS_MSG_CAR_INFO: case RS_MSG_RESULTS: case RS_MSG_LEADERBOARD_REPLY:
    case RS_MSG_TUNE_REPLY: case RS_MSG_ADMIN_REPLY:
        break;
    default:
        return;
    }
    if (c->log_len == c->log_cap) {
        c->log_cap = c->log_cap ? 2 * c->log_cap : 64;
        c->log = realloc(c->log, c->log_cap * sizeof *c->log);
        if (!c->log)
            FAIL();
    }
    c->log[c->log_len++] = *m;
}

static void on_packet(harness *h, uint32_t i, const uint8_t *data, size_t len)
{
    hclient *c = &h->c[i];
    rs_msg m;
    if (rs_proto_decode(data, len, &m, NULL) != RS_PROTO_OK)
        FAIL(); /* the room must only send what decodes */
    if (c->recording)
        record(c, &m);
    bool complete = false;
    size_t n = 0;
    const uint8_t *bytes;
    switch (m.type) {
    case RS_MSG_WELCOME:
        c->welcome = m.u.welcome;
        c->welcomed = true;
        break;
    case RS_MSG_RACE_STATE:
        c->race_state = m.u.race_state;
        c->have_race_state = true;
        break;
    case RS_MSG_PARAMS:
        if (rs_proto_assembler_add(c->params_asm, &m.u.params.chunk, &complete) != RS_PROTO_OK)
            FAIL();
        if (!complete)
            break;
        bytes = rs_proto_assembler_data(c->params_asm, &n);
        if (rs_proto_blocks_put(c->blocks, m.u.params.kind, m.u.params.id_hash, bytes, n) !=
            RS_PROTO_OK)
            FAIL();
        rs_proto_assembler_reset(c->params_asm);
        {
            rs_msg ack;
            memset(&ack, 0, sizeof ack);
            ack.type = RS_MSG_PARAMS_ACK;
            ack.u.params_ack.kind = m.u.params.kind;
            ack.u.params_ack.id_hash = m.u.params.id_hash;
            client_send(h, i, &ack);
        }
        break;
    case RS_MSG_SNAPSHOT:
        if (rs_proto_assembler_add(c->snap_asm, &m.u.snapshot.chunk, &complete) != RS_PROTO_OK)
            FAIL();
        if (!complete)
            break;
        bytes = rs_proto_assembler_data(c->snap_asm, &n);
        free(c->snap);
        c->snap = malloc(n);
        memcpy(c->snap, bytes, n);
        c->snap_len = n;
        c->snap_tick = m.u.snapshot.tick;
        c->snap_hash = m.u.snapshot.state_hash;
        c->snaps_received++;
        rs_proto_assembler_reset(c->snap_asm);
        break;
    case RS_MSG_FRAME:
        on_frame(c, &m.u.frame);
        break;
    case RS_MSG_PONG:
        if (c->pred && m.u.pong.tick >= c->snap_tick) {
            double rtt_ms = (double)(h->now_us - (int64_t)m.u.pong.echo_time_us) / 1000.0;
            c->rtt_ms = rtt_ms;
            if (!c->calibrated) {
                /* The room was at pong.tick half a round trip ago, and our
                 * input needs another half to get there. */
                double hz = c->welcome.tick_hz;
                double ahead = rtt_ms / 1000.0 * hz + h->lead_target_ms / 1000.0 * hz;
                c->clock_tick = (double)m.u.pong.tick + ahead;
                c->calibrated = true;
                c->rate = 1.0;
                c->last_us = h->now_us;
            }
        }
        break;
    case RS_MSG_LAP:
        if (m.u.lap.car == c->car)
            c->st.laps_heard++;
        break;
    case RS_MSG_RESULTS:
        c->st.results = true;
        break;
    default:
        break;
    }
    try_build(h, c);
}

/* ----------------------------------------------------------- driving */

static void send_input(harness *h, uint32_t i, uint64_t newest)
{
    hclient *c = &h->c[i];
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_INPUT;
    rs_msg_input *in = &m.u.input;
    uint64_t confirmed = rs_predict_confirmed_tick(c->pred);
    in->newest_tick = newest;
    /* frame_ack: the newest tick whose confirmed inputs we hold (0 = none) */
    in->frame_ack = confirmed > c->snap_tick ? confirmed - 1 : 0;
    if (in->frame_ack > newest)
        in->frame_ack = newest;
    uint32_t count = 0;
    if (!c->car) {
        /* A spectator sends no controls; an INPUT with one neutral entry
         * carries its frame_ack, which the room needs to repair its FRAMEs. */
        in->inputs[0] = rs_proto_input_neutral();
        in->count = 1;
        client_send(h, i, &m);
        return;
    }
    while (count < RS_PROTO_INPUT_MAX && count <= newest) {
        uint64_t t = newest - count;
        /* Everything the room has not acknowledged, and always the newest
         * (its arrival time is the room's timing feedback). */
        if ((count > 0 && t <= c->input_ack) || c->sent_tick[t % HIST] != t + 1)
            break;
        in->inputs[count++] = c->sent[t % HIST];
    }
    if (count == 0)
        return;
    in->count = (uint8_t)count;
    client_send(h, i, &m);
    c->st.inputs_sent_packets++;
}

static void client_update(harness *h, uint32_t i)
{
    hclient *c = &h->c[i];
    if (!c->connected || !c->pred)
        return;
    if (!c->calibrated) {
        if (h->now_us >= c->next_ping_us) {
            rs_msg m;
            memset(&m, 0, sizeof m);
            m.type = RS_MSG_PING;
            m.u.ping.id = ++c->ping_id;
            m.u.ping.time_us = (uint64_t)h->now_us;
            client_send(h, i, &m);
            c->next_ping_us = h->now_us + 100000;
        }
        /* Until calibrated, follow the confirmed tick. */
        rs_predict_advance_to(c->pred, rs_predict_confirmed_tick(c->pred));
        return;
    }
    double hz = c->welcome.tick_hz;
    if (c->lead_known) {
        double err = c->lead_ms - h->lead_target_ms;
        if (err < -100 && h->now_us >= c->jump_hold_us) {
            /* Far too late (a changed route, a bad first guess): jump ahead,
             * then let the smoothed feedback catch up before judging again.
             * Never jump back: the present would stall; slow down instead. */
            c->clock_tick -= err / 1000.0 * hz;
            c->jump_hold_us = h->now_us + 1000000;
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
    c->clock_tick += (double)(h->now_us - c->last_us) / 1e6 * hz * c->rate;
    c->last_us = h->now_us;
    uint64_t target = c->clock_tick > 0 ? (uint64_t)c->clock_tick : 0;
    uint64_t confirmed = rs_predict_confirmed_tick(c->pred);
    if (target > confirmed + 190)
        target = confirmed + 190;
    uint64_t present = rs_predict_present_tick(c->pred);
    bool sent_any = false;
    while (present < target) {
        if (c->car) {
            rs_input in = rs_driver_update(c->driver, rs_predict_world(c->pred),
                                           (rs_car_id){c->car});
            rs_predict_local_input(c->pred, present, &in);
            c->sent[present % HIST] = in;
            c->sent_tick[present % HIST] = present + 1;
        }
        rs_predict_status st = rs_predict_advance_to(c->pred, present + 1);
        if (st != RS_PREDICT_OK && st != RS_PREDICT_DESYNC)
            FAIL();
        present = rs_predict_present_tick(c->pred);
        sent_any = true;
    }
    if (sent_any && (c->car || present % 2 == 0)) {
        /* One INPUT per update however many ticks it covered, plus, when inputs
         * older than its 8 are still unacknowledged (a jump ahead, a loss),
         * one more carrying the oldest of them: the room's rate limit
         * allows two per tick. */
        uint64_t newest = present - 1;
        send_input(h, i, newest);
        if (c->car && c->input_ack + RS_PROTO_INPUT_MAX < newest + 1 - RS_PROTO_INPUT_MAX &&
            h->now_us >= c->backlog_next_us) {
            send_input(h, i, c->input_ack + RS_PROTO_INPUT_MAX);
            c->backlog_next_us = h->now_us + 16000;
        }
    }
    /* A tick's worth of rollback is due anyway when a FRAME changed the past. */
    rs_predict_advance_to(c->pred, present);
}

/* ---------------------------------------------------------- the harness */

harness *harness_create(const rs_room_config *cfg, uint32_t n, uint32_t n_spectators,
                        const harness_impair *imp, const rs_racing_line *line,
                        double lead_target_ms)
{
    harness *h = calloc(1, sizeof *h);
    if (!h || n > MAX_CLIENTS)
        FAIL();
    h->cfg = *cfg;
    char err[256];
    if (rs_room_create(cfg, &h->room, err, sizeof err) != RS_OK) {
        fprintf(stderr, "%s\n", err);
        FAIL();
    }
    h->line = line;
    h->lead_target_ms = lead_target_ms;
    if (imp) {
        h->impaired = true;
        h->imp = *imp;
        h->rng = imp->seed ? imp->seed : 1;
    }
    h->now_us = 1000000;
    h->n = n;
    h->c = calloc(n, sizeof *h->c);
    for (uint32_t i = 0; i < n; i++) {
        hclient *c = &h->c[i];
        c->peer = 100 + i;
        c->spectator = i < n_spectators;
        snprintf(c->name, sizeof c->name, "%s%u", c->spectator ? "watcher" : "driver", i);
        if (rs_proto_assembler_create(RS_PROTO_BLOB_MAX, &c->snap_asm) != RS_PROTO_OK ||
            rs_proto_assembler_create(RS_PROTO_BLOB_MAX, &c->params_asm) != RS_PROTO_OK ||
            rs_proto_blocks_create(RS_PROTO_BLOCKS_KEEP, &c->blocks) != RS_PROTO_OK)
            FAIL();
        harness_client_rejoin(h, i);
    }
    return h;
}

void harness_destroy(harness *h)
{
    if (!h)
        return;
    for (uint32_t i = 0; i < h->n; i++) {
        hclient *c = &h->c[i];
        client_reset_world(c);
        rs_proto_assembler_destroy(c->snap_asm);
        rs_proto_assembler_destroy(c->params_asm);
        free(c->snap);
        rs_proto_blocks_destroy(c->blocks);
        free(c->log);
    }
    free(h->c);
    free(h->q);
    rs_room_destroy(h->room);
    free(h);
}

void harness_client_drop(harness *h, uint32_t i)
{
    hclient *c = &h->c[i];
    if (!c->connected)
        return;
    c->connected = false;
    rs_room_disconnect(h->room, c->peer, h->now_us);
    /* Packets in flight to or from it are lost with the connection. */
    size_t k = 0;
    for (size_t j = 0; j < h->q_len; j++)
        if (h->q[j].client != i)
            h->q[k++] = h->q[j];
    h->q_len = k;
    client_reset_world(c);
    c->welcomed = c->have_race_state = false;
    free(c->snap);
    c->snap = NULL;
    rs_proto_assembler_reset(c->snap_asm);
    rs_proto_assembler_reset(c->params_asm);
    rs_proto_blocks_clear(c->blocks); /* a new connection is sent every block again */
}

void harness_client_rejoin(harness *h, uint32_t i)
{
    hclient *c = &h->c[i];
    c->connected = true;
    memset(c->up, 0, sizeof c->up);
    memset(c->down, 0, sizeof c->down);
    c->peer += 1000; /* a new connection gets a new transport id */
    rs_room_connect(h->room, c->peer, h->now_us);
    send_hello(h, i);
}

uint8_t harness_client_car(const harness *h, uint32_t i)
{
    return h->c[i].pred ? h->c[i].car : 0;
}

static int cmp_pkt(const void *a, const void *b)
{
    const hpkt *x = a, *y = b;
    if (x->at_us != y->at_us)
        return x->at_us < y->at_us ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int32_t client_of_peer(const harness *h, uint32_t peer)
{
    for (uint32_t i = 0; i < h->n; i++)
        if (h->c[i].peer == peer && h->c[i].connected)
            return (int32_t)i;
    return -1;
}

void harness_step(harness *h, int64_t step_us)
{
    h->now_us += step_us;
    /* Deliver what is due, in time order. */
    if (h->q_len) {
        qsort(h->q, h->q_len, sizeof *h->q, cmp_pkt);
        size_t due = 0;
        while (due < h->q_len && h->q[due].at_us <= h->now_us)
            due++;
        for (size_t j = 0; j < due; j++) {
            hpkt *p = &h->q[j];
            hclient *c = &h->c[p->client];
            if (!c->connected)
                continue;
            /* Unreliable channels are unsequenced (SPEC.md, protocol version 2):
             * late and duplicated packets are delivered as they come. */
            if (p->to_server)
                rs_room_receive(h->room, c->peer, p->ch, p->data, p->len, h->now_us);
            else
                on_packet(h, p->client, p->data, p->len);
        }
        memmove(h->q, h->q + due, (h->q_len - due) * sizeof *h->q);
        h->q_len -= due;
    }
    rs_room_update(h->room, h->now_us);
    size_t n;
    while ((n = rs_room_poll(h->room, h->outbuf, 256)) > 0) {
        for (size_t j = 0; j < n; j++) {
            int32_t ci = client_of_peer(h, h->outbuf[j].peer);
            if (ci >= 0)
                enqueue(h, (uint32_t)ci, false, h->outbuf[j].channel, h->outbuf[j].reliable,
                        h->outbuf[j].data, h->outbuf[j].len);
        }
    }
    uint32_t closing[16];
    while ((n = rs_room_poll_closing(h->room, closing, 16)) > 0)
        for (size_t j = 0; j < n; j++)
            rs_room_disconnect(h->room, closing[j], h->now_us);
    if (!h->impaired) {
        /* A perfect link delivers at once: let the clients answer now. */
        for (size_t j = 0; j < h->q_len; j++)
            h->q[j].at_us = h->now_us;
    }
    for (uint32_t i = 0; i < h->n; i++) {
        hclient *c = &h->c[i];
        client_update(h, i);
        if (!c->pred)
            continue;
        uint64_t present = rs_predict_present_tick(c->pred);
        uint64_t confirmed = rs_predict_confirmed_tick(c->pred);
        rs_room_stats rst;
        rs_room_get_stats(h->room, &rst);
        bool racing = rst.phase == RS_PHASE_RACE && c->calibrated;
        if (present != c->last_present || !racing) {
            int64_t gap = h->now_us - c->present_changed_us;
            if (racing && gap > c->st.max_present_gap_us)
                c->st.max_present_gap_us = gap;
            c->present_changed_us = h->now_us;
            c->last_present = present;
        }
        if (confirmed != c->last_confirmed || !racing) {
            int64_t gap = h->now_us - c->confirm_changed_us;
            if (racing && gap > c->st.max_confirm_gap_us)
                c->st.max_confirm_gap_us = gap;
            c->confirm_changed_us = h->now_us;
            c->last_confirmed = confirmed;
        }
    }
}

uint32_t harness_add_client(harness *h, const char *name, const char *token, uint8_t flags)
{
    if (h->n >= MAX_CLIENTS)
        FAIL();
    hclient *n = realloc(h->c, (h->n + 1) * sizeof *h->c);
    if (!n)
        FAIL();
    h->c = n;
    uint32_t i = h->n++;
    hclient *c = &h->c[i];
    memset(c, 0, sizeof *c);
    c->peer = 100 + i;
    c->spectator = (flags & RS_HELLO_SPECTATOR) != 0;
    c->recording = true;
    harness_client_identity(h, i, name, token, flags);
    if (rs_proto_assembler_create(RS_PROTO_BLOB_MAX, &c->snap_asm) != RS_PROTO_OK ||
        rs_proto_assembler_create(RS_PROTO_BLOB_MAX, &c->params_asm) != RS_PROTO_OK ||
        rs_proto_blocks_create(RS_PROTO_BLOCKS_KEEP, &c->blocks) != RS_PROTO_OK)
        FAIL();
    harness_client_rejoin(h, i);
    return i;
}

void harness_client_identity(harness *h, uint32_t i, const char *name, const char *token,
                             uint8_t flags)
{
    hclient *c = &h->c[i];
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->token, sizeof c->token, "%s", token ? token : "");
    c->hello_flags = flags & RS_HELLO_REGISTER;
    c->spectator = (flags & RS_HELLO_SPECTATOR) != 0;
}

void harness_client_send(harness *h, uint32_t i, const rs_msg *m)
{
    if (h->c[i].connected)
        client_send(h, i, m);
}

bool harness_client_take(harness *h, uint32_t i, uint8_t type, rs_msg *out)
{
    hclient *c = &h->c[i];
    for (size_t k = 0; k < c->log_len; k++) {
        if (c->log[k].type != type)
            continue;
        if (out)
            *out = c->log[k];
        memmove(c->log + k, c->log + k + 1, (c->log_len - k - 1) * sizeof *c->log);
        c->log_len--;
        return true;
    }
    return false;
}

int64_t harness_now(const harness *h)
{
    return h->now_us;
}

rs_room *harness_room(harness *h)
{
    return h->room;
}

void harness_client_stats_get(harness *h, uint32_t i, harness_client_stats *out)
{
    hclient *c = &h->c[i];
    *out = c->st;
    if (c->pred) {
        rs_predict_stats ps;
        rs_predict_get_stats(c->pred, (double)h->now_us / 1e6, &ps);
        out->hashes_checked = ps.hashes_checked;
        out->desyncs = ps.desyncs;
        out->confirmed_tick = ps.confirmed_tick;
        out->present_tick = ps.present_tick;
        out->rollbacks = (uint32_t)ps.rollbacks;
        out->depth_max = ps.depth_max;
    }
}
