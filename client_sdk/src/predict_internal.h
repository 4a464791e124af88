/*
 * Internals of the predictor (predict.c), shared with its statistics
 * (predict_stats.c) and pose interpolation (predict_pose.c).
 */
#ifndef RS_CLIENT_PREDICT_INTERNAL_H
#define RS_CLIENT_PREDICT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/predict.h"

/* One simulated tick in the ring: the world's state at `tick` (before its
 * step) as an image, that state's hash, and the inputs stepped from it
 * (meaningful once the tick has been stepped, that is for tick < present). */
typedef struct rs_predict_slot {
    uint64_t tick;        /* which tick the slot holds; UINT64_MAX = none */
    uint64_t hash;        /* rs_world_hash of the state, once hash_known */
    bool hash_known;      /* hashed lazily: only checked states need it */
    uint64_t expect_hash; /* the server's hash of this state, when has_expect */
    bool has_expect;      /* to be checked once the state is final (re-simulated) */
    uint8_t *image;       /* image_cap bytes (rs_world_image_save) */
    rs_input *inputs;     /* car_count inputs */
} rs_predict_slot;

/* Histogram bins: one per depth 0..RS_PREDICT_MAX_LEAD. */
#define RS_PREDICT_DEPTH_BINS (RS_PREDICT_MAX_LEAD + 1u)

typedef struct rs_predict_counters {
    uint64_t steps, predicted_steps, resim_steps, rollbacks;
    uint64_t mispredicted_ticks, local_inputs_too_old, local_inputs_replaced;
    uint64_t confirms_rejected, hashes_checked, desyncs, desync_tick;
    double local_error_last, local_error_max, local_error_sum;
    uint32_t depth_hist[RS_PREDICT_DEPTH_BINS];
    uint32_t depth_max;
    /* Rollback rate window (caller's clock). */
    bool window_started;
    double window_start_s;
    uint64_t window_rollbacks;
    double rollbacks_per_s;
} rs_predict_counters;

struct rs_predict {
    rs_world *world;
    uint32_t car_count;
    uint16_t local;            /* local car index1; 0 = none */
    uint32_t max_lead;
    uint32_t ring_len;         /* max_lead + 1 */
    size_t image_cap;          /* rs_world_image_size: fixed, as the car count is */
    rs_predict_slot *ring;     /* ring_len slots, indexed by tick % ring_len */
    uint8_t *image_bytes;      /* backing store of the slots' images */
    rs_input *input_bytes;     /* backing store of the slots' inputs */
    rs_input *last_confirmed;  /* car_count: the inputs of tick confirmed - 1 */
    rs_input *step_inputs;     /* car_count: scratch for one step */
    rs_input *local_in;        /* ring_len local inputs, indexed by tick % ring_len */
    uint64_t *local_tick;      /* which tick each local input is for; UINT64_MAX = none */
    rs_predict_pose *pose_prev;/* car_count: state at present - 1 */
    rs_predict_pose *pose_cur; /* car_count: state at present */
    uint64_t confirmed;        /* next tick awaiting confirmation */
    uint64_t present;          /* the world's tick */
    bool pending;              /* a rollback is scheduled from rollback_from */
    uint64_t rollback_from;
    bool needs_snapshot;
    rs_predict_counters c;
};

/* predict_pose.c: reads every car's pose from the world into pose_cur,
 * moving the old one to pose_prev when shift is true. */
void rs_predict__capture_poses(rs_predict *p, bool shift);

/* predict_stats.c: records one rollback of depth ticks. */
void rs_predict__record_rollback(rs_predict_counters *c, uint64_t depth);

#endif
