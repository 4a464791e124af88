/*
 * The predictor: a client's world run ahead of the server with predicted
 * inputs, and rolled back to the first mispredicted tick when the server's
 * confirmed inputs say otherwise (docs/PREDICTION.md; docs/ARCHITECTURE.md,
 * "One tick").
 *
 * The ring holds, for every tick from the oldest one a rollback may need up
 * to the present, the world's image at that tick (rs_world_image_save: its
 * state copied as it lies in memory, which only this world reads back), its
 * hash and the inputs stepped from it. Predicting a tick stores its image;
 * confirming a tick whose inputs match only moves the confirmed tick on. A
 * mismatch marks the tick, and the next advance loads its image and steps
 * again to the present: confirmed inputs up to the confirmed tick, fresh
 * predictions after it. Images are not snapshots because a rollback stores
 * one for every tick it steps again and uses few of them: canonical bytes
 * are needed only for the hashes the server checks, and those are computed
 * from the image when asked. Nothing is allocated after rs_predict_create.
 */
#include "predict_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t NO_TICK = UINT64_MAX;

rs_predict_config rs_predict_config_default(void)
{
    rs_predict_config c;
    c.local_car = (rs_car_id){0};
    c.max_lead_ticks = 64;
    return c;
}

static bool input_equal(const rs_input *a, const rs_input *b)
{
    return a->steer == b->steer && a->throttle == b->throttle && a->brake == b->brake &&
           a->clutch == b->clutch && a->handbrake == b->handbrake && a->gear == b->gear &&
           a->buttons == b->buttons;
}

static rs_predict_slot *slot_of(const rs_predict *p, uint64_t tick)
{
    return &p->ring[tick % p->ring_len];
}

void rs_predict_destroy(rs_predict *p)
{
    if (!p)
        return;
    rs_world_destroy(p->world);
    free(p->ring);
    free(p->image_bytes);
    free(p->input_bytes);
    free(p->last_confirmed);
    free(p->step_inputs);
    free(p->local_in);
    free(p->local_tick);
    free(p->pose_prev);
    free(p->pose_cur);
    free(p);
}

/* Stores the world's present state in its slot. */
static rs_predict_status store_present(rs_predict *p)
{
    rs_predict_slot *s = slot_of(p, p->present);
    if (s->tick != p->present) {
        /* A slot reused for a new tick forgets the old tick's expected hash. */
        s->tick = p->present;
        s->has_expect = false;
    }
    /* The world's car count, and so the image's size, never changes. */
    if (rs_world_image_save(p->world, s->image, p->image_cap) != RS_OK)
        return RS_PREDICT_ERR_PHYSICS;
    s->hash_known = false;
    return RS_PREDICT_OK;
}

/* The hash of a stored state, computed from its image the first time it is
 * needed: only hashed ticks (one in hash_interval) are ever checked, so
 * hashing every step would be wasted work. The image is this world's own,
 * so it cannot be refused. */
static uint64_t slot_hash(const rs_predict *p, rs_predict_slot *s)
{
    if (!s->hash_known) {
        rs_world_image_hash(p->world, s->image, p->image_cap, &s->hash);
        s->hash_known = true;
    }
    return s->hash;
}

rs_predict_status rs_predict_create(rs_world *world, const rs_predict_config *config,
                                    rs_predict **out)
{
    if (!out)
        return RS_PREDICT_ERR_ARG;
    *out = NULL;
    rs_predict_config cfg = config ? *config : rs_predict_config_default();
    if (!world || rs_world_car_count(world) == 0 || cfg.max_lead_ticks < 1 ||
        cfg.max_lead_ticks > RS_PREDICT_MAX_LEAD ||
        cfg.local_car.index1 > rs_world_car_count(world))
        return RS_PREDICT_ERR_ARG;
    rs_predict *p = calloc(1, sizeof *p);
    if (!p)
        return RS_PREDICT_ERR_NOMEM;
    uint32_t n = rs_world_car_count(world);
    p->car_count = n;
    p->local = cfg.local_car.index1;
    p->max_lead = cfg.max_lead_ticks;
    p->ring_len = cfg.max_lead_ticks + 1u;
    p->image_cap = rs_world_image_size(world);
    p->ring = calloc(p->ring_len, sizeof *p->ring);
    p->image_bytes = calloc(p->ring_len, p->image_cap);
    p->input_bytes = calloc((size_t)p->ring_len * n, sizeof *p->input_bytes);
    p->last_confirmed = calloc(n, sizeof *p->last_confirmed);
    p->step_inputs = calloc(n, sizeof *p->step_inputs);
    p->local_in = calloc(p->ring_len, sizeof *p->local_in);
    p->local_tick = calloc(p->ring_len, sizeof *p->local_tick);
    p->pose_prev = calloc(n, sizeof *p->pose_prev);
    p->pose_cur = calloc(n, sizeof *p->pose_cur);
    if (!p->ring || !p->image_bytes || !p->input_bytes || !p->last_confirmed || !p->step_inputs ||
        !p->local_in || !p->local_tick || !p->pose_prev || !p->pose_cur)
        goto fail;
    rs_input neutral = rs_input_default();
    for (uint32_t i = 0; i < p->ring_len; i++) {
        p->ring[i].tick = NO_TICK;
        p->ring[i].image = p->image_bytes + (size_t)i * p->image_cap;
        p->ring[i].inputs = p->input_bytes + (size_t)i * n;
        p->local_tick[i] = NO_TICK;
        for (uint32_t c = 0; c < n; c++)
            p->ring[i].inputs[c] = neutral;
    }
    for (uint32_t c = 0; c < n; c++)
        p->last_confirmed[c] = neutral;
    p->world = world;
    p->present = p->confirmed = rs_world_tick(world);
    if (store_present(p) != RS_PREDICT_OK) {
        p->world = NULL; /* the caller keeps the world on error */
        goto fail;
    }
    rs_predict__capture_poses(p, false);
    rs_predict__capture_poses(p, true); /* no earlier state: both poses are the present */
    *out = p;
    return RS_PREDICT_OK;
fail:
    rs_predict_destroy(p);
    return RS_PREDICT_ERR_NOMEM;
}

/* The inputs to step tick from: the confirmed ones when tick is confirmed,
 * else the prediction (remote cars keep their last confirmed input; the
 * local car uses the input set for the tick or keeps the one before). */
static const rs_input *inputs_for(rs_predict *p, uint64_t tick)
{
    if (tick < p->confirmed)
        return slot_of(p, tick)->inputs;
    for (uint32_t c = 0; c < p->car_count; c++)
        p->step_inputs[c] = p->last_confirmed[c];
    if (p->local) {
        uint32_t l = p->local - 1u;
        uint32_t k = (uint32_t)(tick % p->ring_len);
        if (p->local_tick[k] == tick)
            p->step_inputs[l] = p->local_in[k];
        else if (tick > p->confirmed)
            p->step_inputs[l] = slot_of(p, tick - 1)->inputs[l];
    }
    return p->step_inputs;
}

/* Compares a final state's hash with the server's; records a desync. */
static rs_predict_status check_hash(rs_predict *p, uint64_t state_tick, uint64_t got,
                                    uint64_t want)
{
    p->c.hashes_checked++;
    if (got == want)
        return RS_PREDICT_OK;
    if (!p->needs_snapshot)
        p->c.desyncs++;
    p->needs_snapshot = true;
    p->c.desync_tick = state_tick - 1;
    return RS_PREDICT_DESYNC;
}

/* Steps the world from the present with inputs and stores the new present.
 * Final states with a pending expected hash are checked on the way. */
static rs_predict_status step_once(rs_predict *p, const rs_input *inputs, bool shift_poses,
                                   rs_predict_status *hash_st)
{
    uint64_t from = p->present;
    rs_predict_slot *s = slot_of(p, from);
    if (inputs != s->inputs)
        memcpy(s->inputs, inputs, p->car_count * sizeof *inputs);
    for (uint32_t c = 0; c < p->car_count; c++)
        rs_world_set_input(p->world, (rs_car_id){(uint16_t)(c + 1u)}, &s->inputs[c]);
    if (rs_world_step(p->world) != RS_OK)
        return RS_PREDICT_ERR_PHYSICS;
    p->c.steps++;
    p->present = from + 1;
    rs_predict_status st = store_present(p);
    if (st != RS_PREDICT_OK)
        return st;
    rs_predict_slot *next = slot_of(p, p->present);
    if (next->has_expect && p->present <= p->confirmed) {
        next->has_expect = false;
        if (check_hash(p, p->present, slot_hash(p, next), next->expect_hash) != RS_PREDICT_OK)
            *hash_st = RS_PREDICT_DESYNC;
    }
    if (shift_poses)
        rs_predict__capture_poses(p, true);
    return RS_PREDICT_OK;
}

/* Performs a scheduled rollback: restore the first mispredicted tick and
 * step again to the present. */
static rs_predict_status resolve(rs_predict *p)
{
    if (!p->pending)
        return RS_PREDICT_OK;
    p->pending = false;
    uint64_t from = p->rollback_from, target = p->present;
    rs_predict_slot *s = slot_of(p, from);
    double before[3] = {0, 0, 0};
    if (p->local)
        memcpy(before, p->pose_cur[p->local - 1u].pos_m, sizeof before);
    if (s->tick != from || rs_world_image_load(p->world, s->image, p->image_cap) != RS_OK)
        return RS_PREDICT_ERR_PHYSICS; /* the ring always holds it: a bug if not */
    p->present = from;
    if (from + 1 == target)
        rs_predict__capture_poses(p, false); /* the restored state is present - 1 */
    rs_predict_status hash_st = RS_PREDICT_OK;
    for (uint64_t t = from; t < target; t++) {
        /* Only the last two states feed the rendered poses. */
        rs_predict_status st = step_once(p, inputs_for(p, t), t + 2 >= target, &hash_st);
        if (st != RS_PREDICT_OK)
            return st;
        p->c.resim_steps++;
    }
    rs_predict__record_rollback(&p->c, target - from);
    if (p->local) {
        const double *after = p->pose_cur[p->local - 1u].pos_m;
        double dx = after[0] - before[0], dy = after[1] - before[1], dz = after[2] - before[2];
        double err = sqrt(dx * dx + dy * dy + dz * dz);
        p->c.local_error_last = err;
        p->c.local_error_sum += err;
        if (err > p->c.local_error_max)
            p->c.local_error_max = err;
    }
    return hash_st;
}

static void schedule(rs_predict *p, uint64_t tick)
{
    if (!p->pending || tick < p->rollback_from)
        p->rollback_from = tick;
    p->pending = true;
}

rs_predict_status rs_predict_local_input(rs_predict *p, uint64_t tick, const rs_input *input)
{
    if (!p || !input || !p->local)
        return RS_PREDICT_ERR_ARG;
    if (tick < p->confirmed) {
        p->c.local_inputs_too_old++;
        return RS_PREDICT_ERR_OLD;
    }
    if (tick - p->confirmed > p->max_lead)
        return RS_PREDICT_ERR_TOO_FAR;
    uint32_t k = (uint32_t)(tick % p->ring_len);
    p->local_in[k] = *input;
    p->local_tick[k] = tick;
    if (tick < p->present && !input_equal(&slot_of(p, tick)->inputs[p->local - 1u], input))
        schedule(p, tick);
    return RS_PREDICT_OK;
}

rs_predict_status rs_predict_confirm(rs_predict *p, uint64_t tick, const rs_input *inputs,
                                     bool has_hash, uint64_t hash)
{
    if (!p || !inputs)
        return RS_PREDICT_ERR_ARG;
    if (tick < p->confirmed) {
        p->c.confirms_rejected++;
        return RS_PREDICT_ERR_OLD;
    }
    if (tick > p->confirmed) {
        p->c.confirms_rejected++;
        return RS_PREDICT_ERR_GAP;
    }
    if (p->local) {
        uint32_t k = (uint32_t)(tick % p->ring_len);
        if (p->local_tick[k] == tick && !input_equal(&p->local_in[k], &inputs[p->local - 1u]))
            p->c.local_inputs_replaced++;
    }
    rs_predict_status st = RS_PREDICT_OK;
    if (tick >= p->present) {
        /* The client fell behind the server: step the tick as confirmed. */
        st = resolve(p);
        if (st != RS_PREDICT_OK && st != RS_PREDICT_DESYNC)
            return st;
        p->confirmed = tick + 1;
        memcpy(p->last_confirmed, inputs, p->car_count * sizeof *inputs);
        rs_predict_status hash_st = RS_PREDICT_OK;
        rs_predict_status step_st = step_once(p, inputs, true, &hash_st);
        if (step_st != RS_PREDICT_OK)
            return step_st;
        p->c.predicted_steps++;
        if (has_hash &&
            check_hash(p, tick + 1, slot_hash(p, slot_of(p, tick + 1)), hash) != RS_PREDICT_OK)
            st = RS_PREDICT_DESYNC;
        return st;
    }
    rs_predict_slot *s = slot_of(p, tick);
    bool covered = p->pending && p->rollback_from <= tick; /* re-simulated anyway */
    bool differs = false;
    for (uint32_t c = 0; c < p->car_count && !differs; c++)
        differs = !input_equal(&s->inputs[c], &inputs[c]);
    memcpy(s->inputs, inputs, p->car_count * sizeof *inputs);
    memcpy(p->last_confirmed, inputs, p->car_count * sizeof *inputs);
    p->confirmed = tick + 1;
    if (differs && !covered) {
        p->c.mispredicted_ticks++;
        schedule(p, tick);
        covered = true;
    }
    if (has_hash) {
        rs_predict_slot *next = slot_of(p, tick + 1);
        if (covered) {
            next->expect_hash = hash; /* checked when re-simulated */
            next->has_expect = true;
        } else if (check_hash(p, tick + 1, slot_hash(p, next), hash) != RS_PREDICT_OK) {
            st = RS_PREDICT_DESYNC;
        }
    }
    return st;
}

rs_predict_status rs_predict_advance_to(rs_predict *p, uint64_t tick)
{
    if (!p)
        return RS_PREDICT_ERR_ARG;
    rs_predict_status st = resolve(p);
    if (st != RS_PREDICT_OK && st != RS_PREDICT_DESYNC)
        return st;
    uint64_t limit = p->confirmed + p->max_lead;
    uint64_t target = tick;
    if (target > limit) {
        target = limit;
        if (st == RS_PREDICT_OK)
            st = RS_PREDICT_ERR_TOO_FAR;
    }
    while (p->present < target) {
        rs_predict_status hash_st = RS_PREDICT_OK; /* predicted states are never final */
        rs_predict_status step_st = step_once(p, inputs_for(p, p->present), true, &hash_st);
        if (step_st != RS_PREDICT_OK)
            return step_st;
        p->c.predicted_steps++;
    }
    return st;
}

rs_predict_status rs_predict_reset_snapshot(rs_predict *p, uint64_t tick, const uint8_t *bytes,
                                            size_t len, const rs_input *inputs_before)
{
    if (!p || !bytes)
        return RS_PREDICT_ERR_ARG;
    /* rs_world_restore leaves the world untouched when it refuses the
     * bytes (a wrong length among them); a snapshot of another tick than
     * announced is undone from the present's slot, which the ring always
     * holds. */
    uint64_t old_present = p->present;
    if (rs_world_restore(p->world, bytes, len) != RS_OK)
        return RS_PREDICT_ERR_SNAPSHOT;
    if (rs_world_tick(p->world) != tick) {
        /* Put the present back (its snapshot is in the ring). */
        rs_predict_slot *s = slot_of(p, old_present);
        rs_world_image_load(p->world, s->image, p->image_cap);
        return RS_PREDICT_ERR_SNAPSHOT;
    }
    p->present = p->confirmed = tick;
    p->pending = false;
    p->needs_snapshot = false;
    rs_input neutral = rs_input_default();
    for (uint32_t c = 0; c < p->car_count; c++)
        p->last_confirmed[c] = inputs_before ? inputs_before[c] : neutral;
    for (uint32_t i = 0; i < p->ring_len; i++) {
        p->ring[i].tick = NO_TICK;
        p->ring[i].has_expect = false;
    }
    rs_predict_status st = store_present(p);
    rs_predict__capture_poses(p, false);
    rs_predict__capture_poses(p, true);
    return st;
}

uint64_t rs_predict_confirmed_tick(const rs_predict *p)
{
    return p ? p->confirmed : 0;
}

uint64_t rs_predict_present_tick(const rs_predict *p)
{
    return p ? p->present : 0;
}

uint64_t rs_predict_confirmed_hash(rs_predict *p)
{
    if (!p)
        return 0;
    resolve(p);
    return slot_hash(p, slot_of(p, p->confirmed));
}

const rs_world *rs_predict_world(const rs_predict *p)
{
    return p ? p->world : NULL;
}
