/*
 * The client's copy of the room's world, rebuilt exactly as the room built
 * it (docs/SERVER.md, "Sending a world"): rs_world_default with WELCOME's
 * tick rate and substeps, one car per parameter block on its grid slot, the
 * track parsed from the server's JSON, RACE_STATE's laps and start tick,
 * car collisions on; then the snapshot restores the state. Blocks may
 * differ per car (tunes); each is checked against WELCOME's hash for its
 * car, and the track against WELCOME's track hash.
 *
 * Control (WELCOME, RACE_STATE) and bulk (PARAMS, SNAPSHOT) are separate
 * reliable streams, so a snapshot can overtake the WELCOME it belongs to
 * when packets are lost. A snapshot whose parameters disagree with the
 * WELCOME held therefore waits a while for a matching WELCOME before the
 * mismatch is declared.
 *
 * A world at tick 0 (a countdown begins) is exactly that construction with
 * nothing restored (SPEC.md, "Parameter blocks"), so the client builds it
 * as soon as WELCOME, its RACE_STATE and the blocks are here, without
 * waiting for the snapshot: on a lossy route the snapshot's few reliable
 * packets now and then arrive seconds late, after lights out. The snapshot
 * of tick 0 that follows is then only compared with the world built.
 */
#include "client_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long a snapshot waits for matching hashes. ENet retransmits a lost
 * reliable packet with a doubling timeout, and everything behind it on its
 * channel waits too: on a 150 ms route with 10 % loss each way a WELCOME
 * or a parameter block now and then arrives 5-10 s after the other stream
 * (3 s was seen to fail). The transports give up on a packet after 30 s
 * (client_enet.c, server/net), so a mismatch that outlives that is real. */
#define PARAMS_WAIT_US 30000000

/* Folds the predictor's counters into the client's totals, then drops the
 * simulation (not the received blocks). */
void rs_client__world_reset(rs_client *c)
{
    if (c->pred) {
        rs_predict_stats ps;
        rs_predict_get_stats(c->pred, 0.0, &ps);
        c->old_rollbacks += ps.rollbacks;
        c->old_desyncs += ps.desyncs;
        c->old_hashes += ps.hashes_checked;
    }
    rs_predict_destroy(c->pred);
    c->pred = NULL;
    for (uint32_t k = 0; k < RS_PROTO_MAX_CARS; k++) {
        rs_car_params_destroy(c->params[k]);
        c->params[k] = NULL;
    }
    rs_track_destroy(c->track);
    c->track = NULL;
    c->light = false;
    c->car = 0;
    c->car_count = 0;
    c->calibrated = false;
    c->lead_known = false;
    c->held = false;
    c->input_ack = 0;
    memset(c->hist_tick, 0, sizeof c->hist_tick);
    memset(c->pend_tick, 0, sizeof c->pend_tick);
    memset(c->sent_tick, 0, sizeof c->sent_tick);
    c->loss_hi = c->loss_win_start_hi = c->loss_win_frames = 0;
    c->loss_step = 0;
    memset(c->loss_steps, 0, sizeof c->loss_steps);
    c->loss_win_start_us = 0;
}

void rs_client__world_free(rs_client *c)
{
    rs_client__world_reset(c);
    free(c->snap);
    c->snap = NULL;
    rs_proto_blocks_clear(c->blocks);
}

/* Takes a completed transfer's bytes out of an assembler into *dst. */
static bool take(rs_proto_assembler *a, uint8_t **dst, size_t *dst_len)
{
    size_t n = 0;
    const uint8_t *bytes = rs_proto_assembler_data(a, &n);
    uint8_t *copy = bytes && n ? malloc(n) : NULL;
    if (copy)
        memcpy(copy, bytes, n);
    rs_proto_assembler_reset(a);
    if (!copy)
        return false;
    free(*dst);
    *dst = copy;
    *dst_len = n;
    return true;
}

void rs_client__on_params(rs_client *c, const rs_msg_params *p)
{
    bool complete = false;
    rs_proto_status st = rs_proto_assembler_add(c->params_asm, &p->chunk, &complete);
    if (st != RS_PROTO_OK) {
        rs_client__error(c, RS_CLIENT_ERROR_PROTOCOL, 0, "PARAMS transfer failed: %s",
                         rs_proto_status_str(st));
        return;
    }
    if (!complete)
        return;
    /* Kept by hash for the whole connection (SPEC.md, "Parameter blocks"):
     * the room sends each block once, ahead of the race, and waits for
     * the acknowledgement before it starts one. */
    size_t n = 0;
    const uint8_t *bytes = rs_proto_assembler_data(c->params_asm, &n);
    st = bytes ? rs_proto_blocks_put(c->blocks, p->kind, p->id_hash, bytes, n) : RS_PROTO_ARG;
    rs_proto_assembler_reset(c->params_asm);
    if (st != RS_PROTO_OK) {
        rs_client__error(c, RS_CLIENT_ERROR_PROTOCOL, 0, "PARAMS block not kept: %s",
                         rs_proto_status_str(st));
        return;
    }
    rs_msg m = {.type = RS_MSG_PARAMS_ACK,
                .u.params_ack = {.kind = p->kind, .id_hash = p->id_hash}};
    rs_client__send(c, &m);
}

void rs_client__on_snapshot(rs_client *c, const rs_msg_snapshot *s)
{
    bool complete = false;
    rs_proto_status st = rs_proto_assembler_add(c->snap_asm, &s->chunk, &complete);
    if (st != RS_PROTO_OK) {
        rs_client__error(c, RS_CLIENT_ERROR_PROTOCOL, s->tick, "SNAPSHOT transfer failed: %s",
                         rs_proto_status_str(st));
        return;
    }
    if (!complete || !take(c->snap_asm, &c->snap, &c->snap_len))
        return;
    c->snap_tick = s->tick;
    c->snap_hash = s->state_hash;
    c->snaps_received++;
    /* The wait for matching parameters is not restarted by a newer
     * snapshot: the room resends one every few seconds to a client that
     * acknowledges nothing, and the mismatch must be declared at last. */
}

/* True when every block WELCOME names is here with WELCOME's hash. */
static bool blocks_match(const rs_client *c)
{
    if (!rs_proto_blocks_find(c->blocks, RS_PARAMS_TRACK, c->welcome.track_hash, NULL))
        return false;
    for (uint32_t k = 0; k < c->welcome.car_count; k++)
        if (!rs_proto_blocks_find(c->blocks, RS_PARAMS_CAR, c->welcome.car_hashes[k], NULL))
            return false;
    return true;
}

/* Parameters that cannot be made to match: tell the server and stop. */
static void params_fail(rs_client *c, const char *what)
{
    rs_client__error(c, RS_CLIENT_ERROR_PARAMS, c->snap_tick, "%s", what);
    rs_client__close(c, RS_REASON_PARAMS, what, true);
}

static void world_ready(rs_client *c, int64_t now_us)
{
    c->snapshots++;
    c->next_ping_us = now_us;
    c->clock_us = now_us;
    /* Gaps start afresh with each world: the board learns the crossings
     * as the cars make them. */
    if (c->pred) {
        if (!c->board)
            c->board = rs_standings_create(RS_PROTO_MAX_CARS);
        rs_standings_reset(c->board);
        rs_standings_observe(c->board, rs_predict_world(c->pred));
    }
    rs_client_event *ev = rs_client__push_event(c, RS_CLIENT_EV_WORLD_READY);
    ev->u.world.car = c->car;
    ev->u.world.car_count = c->car_count;
    ev->u.world.tick = c->snap_tick;
    ev->u.world.race_number = c->race_state.race_number;
    ev->u.world.laps = c->race_state.laps;
    ev->u.world.track_hash = c->welcome.track_hash;
}

/* Builds the WELCOME's world: from the snapshot held, or the initial world
 * of tick 0 when `initial` (nothing to restore). */
static void build(rs_client *c, int64_t now_us, bool initial)
{
    char err[128], msg[RS_PROTO_TEXT_MAX + 1];
    rs_client__world_reset(c);
    c->built_welcome = c->welcomes;
    c->built_initial = initial;
    c->initial_hash = 0;
    c->snap_wait_since_us = 0;
    if (initial)
        c->snap_tick = 0;
    else
        c->snap_count_at_build = c->snaps_received;
    if (!c->cfg.simulate) {
        /* A light client follows the lockstep from the snapshot's tick
         * without building anything. */
        c->light = true;
        c->light_confirmed = c->light_present = c->snap_tick;
        c->car = c->cfg.spectator ? 0 : c->welcome.car;
        c->car_count = c->welcome.car_count;
        world_ready(c, now_us);
        return;
    }
    size_t track_len = 0;
    const char *track_json = (const char *)rs_proto_blocks_find(
        c->blocks, RS_PARAMS_TRACK, c->welcome.track_hash, &track_len);
    if (rs_track_parse(track_json, track_len, "server track", &c->track, err, sizeof err) !=
        RS_OK) {
        snprintf(msg, sizeof msg, "the server's track does not parse: %s", err);
        params_fail(c, msg);
        return;
    }
    if (rs_track_hash(c->track) != c->welcome.track_hash) {
        params_fail(c, "track hash differs from the server's (different physics build?)");
        return;
    }
    rs_world_def def = rs_world_default();
    def.tick_hz = c->welcome.tick_hz;
    def.substeps = c->welcome.substeps;
    def.max_cars = c->welcome.car_count;
    def.track = c->track;
    def.laps = c->race_state.laps;
    def.start_tick = c->race_state.start_tick;
    def.start_hold = !(c->race_state.flags & RS_SESSION_FREE_START);
    def.car_collisions = true;
    rs_world *w = NULL;
    if (rs_world_create(&def, &w) != RS_OK) {
        params_fail(c, "the server's world definition is not valid here");
        return;
    }
    for (uint32_t k = 0; k < c->welcome.car_count; k++) {
        rs_car_spawn sp;
        size_t block_len = 0;
        const uint8_t *block =
            rs_proto_blocks_find(c->blocks, RS_PARAMS_CAR, c->welcome.car_hashes[k], &block_len);
        if (rs_car_params_from_block(block, block_len, &c->params[k], err, sizeof err) != RS_OK) {
            rs_world_destroy(w);
            snprintf(msg, sizeof msg, "car %u parameters do not load: %s", k + 1u, err);
            params_fail(c, msg);
            return;
        }
        if (rs_car_params_hash(c->params[k]) != c->welcome.car_hashes[k]) {
            rs_world_destroy(w);
            snprintf(msg, sizeof msg, "car %u parameter hash differs from the server's", k + 1u);
            params_fail(c, msg);
            return;
        }
        if (!rs_track_grid_slot(c->track, k, &sp) ||
            rs_world_add_car(w, c->params[k], &sp, NULL) != RS_OK) {
            rs_world_destroy(w);
            params_fail(c, "a car does not fit the track's grid");
            return;
        }
    }
    if (initial) {
        c->initial_hash = rs_world_hash(w);
    } else if (rs_world_restore(w, c->snap, c->snap_len) != RS_OK ||
               rs_world_hash(w) != c->snap_hash || rs_world_tick(w) != c->snap_tick) {
        rs_world_destroy(w);
        rs_client__error(c, RS_CLIENT_ERROR_SNAPSHOT, c->snap_tick,
                         "the snapshot of tick %llu does not restore to the server's hash",
                         (unsigned long long)c->snap_tick);
        rs_client__request_snapshot(c, RS_SNAP_DESYNC, now_us);
        return;
    }
    rs_predict_config pc = rs_predict_config_default();
    pc.local_car.index1 = c->cfg.spectator ? 0 : c->welcome.car;
    pc.max_lead_ticks = c->cfg.max_lead_ticks;
    if (rs_predict_create(w, &pc, &c->pred) != RS_PREDICT_OK) {
        rs_world_destroy(w);
        rs_client__error(c, RS_CLIENT_ERROR_SNAPSHOT, c->snap_tick, "out of memory");
        return;
    }
    c->car = (uint8_t)pc.local_car.index1;
    c->car_count = c->welcome.car_count;
    world_ready(c, now_us);
}

void rs_client__try_build(rs_client *c, int64_t now_us)
{
    /* A RACE_STATE that came after the WELCOME describes its world. */
    if (c->state != RS_CLIENT_CONNECTED || !c->welcomed || !c->have_race_state ||
        c->race_state_welcome != c->welcomes || c->race_state.phase == RS_PHASE_LOBBY ||
        c->welcome.car_count == 0)
        return;
    bool fresh_snap = c->snap && c->snap_count_at_build != c->snaps_received;
    if (fresh_snap && c->built_welcome == c->welcomes && c->built_initial && c->snap_tick == 0 &&
        (c->light || (c->pred && c->snap_hash == c->initial_hash))) {
        /* The snapshot of the initial world this client built itself (a
         * light client has no hash to compare and nothing to restore). */
        c->snap_count_at_build = c->snaps_received;
        return;
    }
    bool initial = c->welcome.tick == 0 && c->built_welcome != c->welcomes;
    if (initial && fresh_snap && c->snap_tick != 0) {
        /* Later than tick 0 of a world not built yet: an older world's. */
        c->snap_count_at_build = c->snaps_received;
        fresh_snap = false;
    }
    if (!fresh_snap && !initial)
        return;
    if (!blocks_match(c)) {
        if (c->snap_wait_since_us == 0)
            c->snap_wait_since_us = now_us ? now_us : 1;
        else if (now_us - c->snap_wait_since_us > PARAMS_WAIT_US)
            params_fail(c, "the parameters the server sent do not match its WELCOME hashes");
        return;
    }
    build(c, now_us, initial && !fresh_snap);
}
