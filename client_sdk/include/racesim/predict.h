/*
 * racesim client prediction and rollback: the network-free core of the SDK.
 *
 * A predictor wraps a client's copy of the room's world (built from the same
 * world definition, car parameter blocks and track as the server's) and
 * keeps two points in time:
 *
 *   confirmed  every tick before it has the server's final inputs; the world
 *              state at this tick is authoritative (bit-identical to the
 *              server's, checked against the server's hashes);
 *   present    the tick the predicted world has reached, >= confirmed. The
 *              client runs ahead of the server so its own inputs reach the
 *              server in time, and applies them at once.
 *
 * Ticks follow the protocol (protocol/SPEC.md, FRAME): "the inputs of tick t"
 * are the inputs stepped from tick t to t + 1, and "the hash of tick t" is
 * rs_world_hash after stepping tick t, that is of the state at tick t + 1.
 *
 * Remote cars' inputs for unconfirmed ticks are predicted as their last
 * confirmed input (cars mostly keep their controls from one tick to the
 * next; see docs/PREDICTION.md). The local car uses the input the client set
 * for that tick, or else keeps the one it used the tick before.
 *
 * Every simulated tick's state is kept as snapshot bytes in a ring, so a
 * confirmation that matches the prediction costs only bookkeeping, and one
 * that does not restores the snapshot at the first mispredicted tick and
 * re-simulates from there to the present (a rollback). Rollbacks are
 * deferred until the next rs_predict_advance_to (or a confirmation that
 * needs the state), so a frame carrying several ticks costs one rollback.
 *
 * Memory: everything is allocated by rs_predict_create; nothing afterwards.
 * Time is passed in; there are no globals.
 *
 * Thread rules: a predictor and the world it owns belong to one thread at a
 * time (no call may run concurrently with another on the same predictor).
 * Different predictors share nothing but the immutable car parameters and
 * track, and may run on different threads.
 */
#ifndef RACESIM_PREDICT_H
#define RACESIM_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rs_predict_status {
    RS_PREDICT_OK = 0,
    RS_PREDICT_ERR_ARG,      /* NULL, unknown car, or a value out of range */
    RS_PREDICT_ERR_NOMEM,    /* allocation failed (creation only) */
    RS_PREDICT_ERR_OLD,      /* the tick is already confirmed (duplicate or late); ignored */
    RS_PREDICT_ERR_GAP,      /* a confirmation skipped a tick (out of order); ignored */
    RS_PREDICT_ERR_TOO_FAR,  /* past the window of max_lead_ticks beyond the confirmed tick */
    RS_PREDICT_ERR_SNAPSHOT, /* snapshot bytes rejected by rs_world_restore, or wrong tick */
    RS_PREDICT_ERR_PHYSICS,  /* the world failed to step (non-finite state: a bug) */
    RS_PREDICT_DESYNC        /* the call did its work, but a confirmed state's hash
                                differed from the server's: a snapshot is needed */
} rs_predict_status;

/* A static English description of a status. Never fails. */
const char *rs_predict_status_str(rs_predict_status status);

/* Longest window the ring supports (also the depth histogram's range). */
#define RS_PREDICT_MAX_LEAD 240u

typedef struct rs_predict_config {
    rs_car_id local_car;     /* the client's own car; {0} = spectator (no local car) */
    uint32_t max_lead_ticks; /* how far the present may run ahead of the confirmed tick,
                                1..RS_PREDICT_MAX_LEAD; sets the ring size. Usually 64
                                (about 1 s at 60 Hz) */
} rs_predict_config;

/* Spectator, max_lead_ticks 64. */
rs_predict_config rs_predict_config_default(void);

typedef struct rs_predict rs_predict;

/* Creates a predictor around world, whose current state is taken as the
 * confirmed state at its current tick (and as the present). On success the
 * predictor owns the world (rs_predict_destroy destroys it; the caller must
 * not use it directly any more, only through rs_predict_world); on error the
 * caller keeps it. The world's car parameters and track stay the caller's
 * and must outlive the predictor. Allocates everything it will ever need.
 * Returns RS_PREDICT_ERR_ARG for NULL, a world without cars, an unknown
 * local car or max_lead_ticks out of range, RS_PREDICT_ERR_NOMEM. */
rs_predict_status rs_predict_create(rs_world *world, const rs_predict_config *config,
                                    rs_predict **out);

/* Destroys the predictor and its world. Accepts NULL. */
void rs_predict_destroy(rs_predict *p);

/* Sets the local car's input for a tick not yet confirmed (normally the
 * present, or a little after it). If the tick was already predicted with
 * another input, the prediction is redone from it at the next advance.
 * Copied; nothing is kept. Returns RS_PREDICT_ERR_OLD for a tick already
 * confirmed (counted in stats.local_inputs_too_old), RS_PREDICT_ERR_TOO_FAR
 * beyond confirmed + max_lead_ticks, RS_PREDICT_ERR_ARG without a local car. */
rs_predict_status rs_predict_local_input(rs_predict *p, uint64_t tick, const rs_input *input);

/* The server's final inputs for tick (inputs[i] for car i + 1, one per car),
 * and, when has_hash, rs_world_hash after stepping it. Ticks must arrive in
 * order: a tick already confirmed gives RS_PREDICT_ERR_OLD, one past the next
 * expected tick RS_PREDICT_ERR_GAP, and neither changes anything. When the
 * inputs differ from the prediction a rollback is scheduled for the next
 * advance. When the hash differs from the confirmed state's the predictor
 * records a desync (stats.desyncs counts episodes, stats.needs_snapshot is
 * set until rs_predict_reset_snapshot) and returns RS_PREDICT_DESYNC; a hash
 * whose state is still to be re-simulated is checked then, and the desync is
 * reported by that call. If the present has not reached tick yet, the world
 * steps the tick with these inputs (the client fell behind). Copied; nothing
 * is kept. Allocates nothing. */
rs_predict_status rs_predict_confirm(rs_predict *p, uint64_t tick, const rs_input *inputs,
                                     bool has_hash, uint64_t hash);

/* Performs any pending rollback, then predicts forward until the present is
 * tick (no-op if it is there already: the present never goes back). Stops
 * at confirmed + max_lead_ticks and returns RS_PREDICT_ERR_TOO_FAR when the
 * target lies beyond. Returns RS_PREDICT_DESYNC if a re-simulated confirmed
 * state failed its hash check, RS_PREDICT_ERR_PHYSICS if the world failed.
 * Allocates nothing. */
rs_predict_status rs_predict_advance_to(rs_predict *p, uint64_t tick);

/* Restores the world from a server snapshot (late join, desync recovery)
 * taken at tick: both the confirmed tick and the present become tick and
 * needs_snapshot is cleared. inputs_before, when not NULL, holds every car's
 * input of tick - 1 as the server used it (the starting point for predicting
 * remote cars); NULL means neutral inputs. Local inputs already set for ticks
 * >= tick are kept. Copied; nothing is kept. On error nothing changes. */
rs_predict_status rs_predict_reset_snapshot(rs_predict *p, uint64_t tick, const uint8_t *bytes,
                                            size_t len, const rs_input *inputs_before);

/* The next tick awaiting confirmation (every earlier tick is confirmed). */
uint64_t rs_predict_confirmed_tick(const rs_predict *p);

/* The predicted present: the tick the world has reached. */
uint64_t rs_predict_present_tick(const rs_predict *p);

/* rs_world_hash of the confirmed state (the world at the confirmed tick).
 * Performs a pending rollback first, so it may cost a re-simulation. */
uint64_t rs_predict_confirmed_hash(rs_predict *p);

/* The predicted world at the present, read-only (car states, race state,
 * events of the last step). Borrowed until the next call on p that is not
 * a query. */
const rs_world *rs_predict_world(const rs_predict *p);

/* A car's pose for rendering. */
typedef struct rs_predict_pose {
    double pos_m[3];   /* centre of mass, world frame */
    double quat[4];    /* w, x, y, z: body to world, unit length */
    double vel_m_s[3]; /* world frame */
} rs_predict_pose;

/* The pose of car between the last two predicted states: alpha 0 is the
 * state at present - 1, alpha 1 the present (clamped to [0, 1]). Positions
 * and velocities are interpolated linearly, orientations by normalised
 * quaternion interpolation along the shorter arc. Presentation only: the
 * simulation never sees these values. Returns RS_PREDICT_ERR_ARG for an
 * unknown car. */
rs_predict_status rs_predict_pose_of(const rs_predict *p, rs_car_id car, double alpha,
                                     rs_predict_pose *out);

/* How many ticks ahead of the server the client should run: half the round
 * trip plus the jitter, rounded up to whole ticks, plus margin_ticks. NaN or
 * negative times count as 0; the result is capped at RS_PREDICT_MAX_LEAD.
 * Never fails. */
uint32_t rs_predict_lead_ticks(double rtt_ms, double jitter_ms, uint32_t tick_hz,
                               uint32_t margin_ticks);

/* What the frontend can show, and what tests measure. */
typedef struct rs_predict_stats {
    uint64_t confirmed_tick;       /* as rs_predict_confirmed_tick */
    uint64_t present_tick;         /* as rs_predict_present_tick */
    uint64_t steps;                /* world steps of every kind since creation */
    uint64_t predicted_steps;      /* steps that extended the present */
    uint64_t resim_steps;          /* steps re-simulated by rollbacks */
    uint64_t rollbacks;            /* rollbacks performed */
    double rollbacks_per_s;        /* over the last completed one-second window */
    uint32_t depth_p50, depth_p99, depth_max; /* ticks re-simulated per rollback */
    uint64_t mispredicted_ticks;   /* confirmed ticks whose inputs differed from the prediction */
    double local_error_m_last;     /* distance the local car's present position moved at
                                      the last rollback (prediction error) */
    double local_error_m_max;
    double local_error_m_mean;     /* over rollbacks */
    uint64_t local_inputs_too_old; /* local inputs set for ticks already confirmed */
    uint64_t local_inputs_replaced;/* confirmed ticks where the server used another local
                                      input than the one set (it arrived late or was lost) */
    uint64_t confirms_rejected;    /* duplicates and out-of-order confirmations */
    uint64_t hashes_checked;
    uint64_t desyncs;              /* desync episodes (hash mismatches while in sync) */
    uint64_t desync_tick;          /* the tick whose hash failed last (its state is tick + 1) */
    bool needs_snapshot;           /* set by a desync, cleared by rs_predict_reset_snapshot */
} rs_predict_stats;

/* Fills *out. now_s is the caller's clock in seconds (any origin, never
 * decreasing); the rollback rate covers the last completed one-second window,
 * so call this regularly (say once per rendered frame). Never fails. */
void rs_predict_get_stats(rs_predict *p, double now_s, rs_predict_stats *out);

#ifdef __cplusplus
}
#endif

#endif
