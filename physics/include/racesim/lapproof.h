/*
 * racesim lap proofs: everything needed to re-simulate one timed lap and
 * confirm its time and end state bit for bit.
 *
 * A proof holds the world's definition facts, every car's parameter hash,
 * the world snapshot taken at the start of the tick in which the lap began,
 * every car's input for every tick from that tick to the one in which the
 * lap ended, and what was recorded: the lap number, validity, lap and
 * sector times and the hash of the car's state after its last tick. All
 * cars' inputs are needed because the cars touch each other.
 *
 * Recording: the race loop creates a recorder once the world has its first
 * cars, calls rs_lap_recorder_before_step after setting the tick's inputs
 * and before rs_world_step, and after the step calls rs_lap_recorder_take
 * for each RS_EVENT_LAP. Cars may join between ticks (rs_world_add_car
 * before the tick's rs_lap_recorder_before_step, as in practice and
 * qualifying sessions that players join at any time): the recorder notes
 * each join, and the proof of a lap during which cars joined re-creates
 * them at the same tick. The recorder allocates everything at creation,
 * sized by the world's max_cars: a ring of max_lap_ticks ticks of inputs
 * and one start snapshot per car; it takes one world snapshot per tick (a
 * copy of a few hundred bytes per car). A lap longer than max_lap_ticks
 * ticks gets no proof (RS_ERR_FULL).
 *
 * Proof bytes, version 2 (all little-endian; doubles as IEEE-754 bits,
 * finite, never -0.0):
 *   "RSLP" u32 version(2) u32 physics_version
 *   u32 tick_hz u32 substeps u32 laps u64 start_tick u8 car_collisions
 *   u8 start_hold
 *   4 x (f64 grip_scale f64 rolling_drag_coef)   surfaces, rs_surface order
 *   u64 track hash   u32 car_count   car_count x u64 parameter hash
 *   u16 car (index1)  u32 lap  u8 valid  u8 invalid_reason
 *   i64 lap_time_us  i64 lap_end_us  u32 sector_count  sector_count x i64
 *   u64 end car hash  u64 first_tick  u32 tick_count
 *   u32 snapshot_len  snapshot bytes
 *   u32 join_count
 *   join_count x (u64 tick  u16 car (index1)  f64 pos[3]  f64 yaw
 *                 f64 speed  i8 gear  u8 transmission  u8 clutch_mode)
 *   for each tick of the log, one input per car present in it, in car
 *   order: (i16 steer u8 throttle u8 brake u8 clutch u8 handbrake i8 gear
 *           u8 buttons)
 * and nothing after. car_count and the hashes list every car present at
 * the end of the log: the snapshot holds the first car_count - join_count
 * of them (its own car count must say so), the joined cars follow in the
 * order they joined. Join i is car car_count - join_count + 1 + i, added
 * before tick `tick` (first_tick < tick <= the log's last tick, ticks
 * non-decreasing) with the rs_car_spawn given (gear -1..10, transmission
 * and clutch mode 0 or 1, as the car took them), and present from that
 * tick on. The lap's car is one of the snapshot's.
 *
 * Version 1, which every proof recorded before cars could join has, is
 * the same without start_hold (read as true) and without join_count and
 * the joins; its log has car_count inputs every tick. It is still read and
 * verified.
 *
 * The format is canonical: a proof that decodes encodes back to the same
 * bytes.
 */
#ifndef RACESIM_LAPPROOF_H
#define RACESIM_LAPPROOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version the recorder writes; the reader reads 1 and 2. */
#define RS_LAP_PROOF_VERSION 2u

/* ---------------------------------------------------------------- recording */

typedef struct rs_lap_recorder rs_lap_recorder;

/* Creates a recorder for world, which must hold at least one car, have a
 * track and use the track's own ground (no custom ground function). Cars
 * added later (up to the world's max_cars) are recorded as they join. Laps
 * up to max_lap_ticks ticks (1..2^24) get proofs. Caller frees with
 * rs_lap_recorder_destroy. RS_ERR_ARG for a world it cannot record,
 * RS_ERR_NOMEM. */
rs_status rs_lap_recorder_create(const rs_world *world, uint32_t max_lap_ticks,
                                 rs_lap_recorder **out);

/* Accepts NULL. */
void rs_lap_recorder_destroy(rs_lap_recorder *rec);

/* Records the tick about to be stepped: the world's snapshot, every car's
 * input and the cars that joined since the last tick. Call once per tick,
 * after the cars are added and the inputs are set and before
 * rs_world_step. Allocates nothing. If ticks were skipped, the world was
 * restored or a car was added after this call and before the step, the
 * laps in progress lose their proofs; later laps are recorded normally.
 * RS_ERR_MISMATCH for a world other than the recorder's (fewer cars, or
 * another max_cars). */
rs_status rs_lap_recorder_before_step(rs_lap_recorder *rec, const rs_world *world);

/* Builds the proof of the lap car completed in the step just taken (its
 * RS_EVENT_LAP among rs_world_events). *proof gets a buffer the caller
 * frees with free(), *len its size. Errors (nothing written):
 * RS_ERR_MISSING no lap event for car in the last step, or its start was
 * not recorded (the recorder started or lost track mid-lap); RS_ERR_FULL the
 * lap is longer than max_lap_ticks; RS_ERR_ARG the world was not stepped
 * exactly once since rs_lap_recorder_before_step, or a car was added in
 * between; RS_ERR_NOMEM. */
rs_status rs_lap_recorder_take(rs_lap_recorder *rec, const rs_world *world, rs_car_id car,
                               uint8_t **proof, size_t *len);

/* ------------------------------------------------------------------ reading */

/* The proof's header: enough to find the cars and the track. */
typedef struct rs_lap_proof_info {
    uint32_t version;
    uint32_t physics_version;
    uint32_t tick_hz, substeps, laps;
    uint64_t start_tick;
    bool car_collisions;
    bool start_hold;       /* version 1: true. This and join_count sit where the struct
                              had padding, so on 64-bit targets and wasm32 its size and
                              layout are what programs built against version 1's
                              header expect */
    rs_surface_params surfaces[RS_SURFACE_COUNT];
    uint64_t track_hash;
    uint32_t car_count;
    uint16_t car;          /* index1 of the car whose lap this is */
    uint64_t car_params_hash; /* that car's parameter hash */
    uint32_t lap;          /* 1 = first */
    bool valid;
    uint8_t invalid_reason;/* rs_lap_invalid */
    int64_t lap_time_us;
    int64_t lap_end_us;    /* race clock at the line */
    uint32_t sector_count;
    int64_t sectors_us[RS_MAX_SECTORS];
    uint64_t end_car_hash; /* rs_world_car_hash after the last tick */
    uint64_t first_tick;   /* the tick the log starts with */
    uint32_t tick_count;
    uint32_t join_count;   /* cars that joined during the log (version 1: 0); car_count
                              counts them */
} rs_lap_proof_info;

/* Decodes and checks the whole proof, version 1 or 2 (every length, count,
 * range and consistency rule above) and fills *out. RS_ERR_BUFFER
 * truncated, RS_ERR_FORMAT not a proof, another version, bytes after its
 * end or (version 2) a -0.0, RS_ERR_RANGE a field out of range or
 * inconsistent with another; *out is then unspecified. Allocates
 * nothing. */
rs_status rs_lap_proof_info_read(const uint8_t *proof, size_t len, rs_lap_proof_info *out);

/* The parameter hash of car slot i (0-based) into *out. Same errors as
 * rs_lap_proof_info_read, RS_ERR_ARG for i out of range. */
rs_status rs_lap_proof_car_hash(const uint8_t *proof, size_t len, uint32_t i, uint64_t *out);

/* -------------------------------------------------------------- verifying */

typedef enum rs_lap_verdict_code {
    RS_LAP_PROOF_OK = 0,        /* re-simulated bit for bit */
    RS_LAP_PROOF_DIFFERS = 1,   /* the lap completed, something differs (see diffs) */
    RS_LAP_PROOF_NO_LAP = 2,    /* the car completed no lap within the log */
    RS_LAP_PROOF_WRONG_CARS = 3,/* the cars given are not the proof's */
    RS_LAP_PROOF_WRONG_TRACK = 4,
    RS_LAP_PROOF_BAD_SNAPSHOT = 5, /* the snapshot does not restore onto these cars */
    RS_LAP_PROOF_SIM_FAILED = 6    /* the simulation reported non-finite state */
} rs_lap_verdict_code;

/* The verdict's stable name, as racectl's JSON and the web page show it:
 * "ok", "differs", "no_lap", "wrong_cars", "wrong_track", "bad_snapshot",
 * "simulation_failed"; "unknown" for any other value. */
const char *rs_lap_verdict_name(uint8_t code);

/* rs_lap_verdict.diffs */
enum {
    RS_LAP_DIFF_LAP = 1u << 0,      /* lap number */
    RS_LAP_DIFF_TIME = 1u << 1,     /* lap time */
    RS_LAP_DIFF_END = 1u << 2,      /* race clock at the line */
    RS_LAP_DIFF_SECTORS = 1u << 3,
    RS_LAP_DIFF_VALIDITY = 1u << 4, /* valid flag or reason */
    RS_LAP_DIFF_HASH = 1u << 5,     /* end car hash */
    RS_LAP_DIFF_TICK = 1u << 6      /* the lap ended before the log's last tick */
};

typedef struct rs_lap_verdict {
    uint8_t code;    /* rs_lap_verdict_code */
    uint32_t diffs;  /* RS_LAP_DIFF_*, for RS_LAP_PROOF_DIFFERS */
    uint32_t recorded_lap, simulated_lap;
    int64_t recorded_time_us, simulated_time_us;
    uint64_t recorded_hash, simulated_hash;
    uint64_t recorded_end_tick, simulated_end_tick;
} rs_lap_verdict;

/* Re-simulates the proof: builds a world with the proof's definition, the
 * given cars (cars[i] for slot i, car_count of them, looked up by the caller
 * from rs_lap_proof_car_hash) and track (NULL when the proof's track hash is
 * 0), restores the snapshot, replays the inputs (adding each joined car
 * before the tick it joined at), and compares the car's lap
 * with the recorded one. Returns RS_OK when the check ran: *out then says
 * whether it matched, and msg (if non-NULL) says in English what differs
 * ("lap time 61234567 us recorded, 61234570 us re-simulated; ...") or
 * "ok". Otherwise a status: the proof's own errors as for
 * rs_lap_proof_info_read, RS_ERR_ARG, RS_ERR_NOMEM. The caller's cars and
 * track are borrowed for the call only. */
rs_status rs_lap_proof_verify(const uint8_t *proof, size_t len,
                              const rs_car_params *const *cars, uint32_t car_count,
                              const rs_track *track, rs_lap_verdict *out, char *msg,
                              size_t msg_len);

/* ------------------------------------------------- replaying tick by tick */

/* The same re-simulation one tick at a time, for a viewer that shows the
 * lap while it is checked (the browser replay, web/wasm/).
 * rs_lap_proof_verify is rs_lap_replay_open then rs_lap_replay_finish, so
 * a replay stepped to its end gives exactly its verdict: there is one
 * verification path. */
typedef struct rs_lap_replay rs_lap_replay;

/* Opens proof for replay with the given cars and track (as for
 * rs_lap_proof_verify; all three stay borrowed until
 * rs_lap_replay_destroy). RS_OK: *out is a replay; when the cars, the
 * track or the snapshot do not fit, it is already done and its verdict
 * says why. Otherwise *out is NULL, msg (if non-NULL) says why, and the
 * status is the proof's own error as for rs_lap_proof_info_read,
 * RS_ERR_RANGE (its world definition is refused), RS_ERR_ARG or
 * RS_ERR_NOMEM. */
rs_status rs_lap_replay_open(const uint8_t *proof, size_t len, const rs_car_params *const *cars,
                             uint32_t car_count, const rs_track *track, rs_lap_replay **out,
                             char *msg, size_t msg_len);

/* Accepts NULL. */
void rs_lap_replay_destroy(rs_lap_replay *rep);

/* Steps the next tick of the log with every car's recorded input. The
 * replay is done once the car completes its lap (the verdict is then
 * decided), the log ends without one, or the simulation fails. RS_ERR_ARG
 * for a replay that is already done. */
rs_status rs_lap_replay_step(rs_lap_replay *rep);

/* True once the verdict is decided (NULL counts as done). */
bool rs_lap_replay_done(const rs_lap_replay *rep);

/* The world being replayed, to read the cars' states after each step
 * (rs_world_car_state); NULL when the verdict was decided at open. */
const rs_world *rs_lap_replay_world(const rs_lap_replay *rep);

/* Ticks of the log stepped so far (the log has info->tick_count). */
uint32_t rs_lap_replay_ticks(const rs_lap_replay *rep);

/* The proof's header, decoded at open; borrowed from the replay. */
const rs_lap_proof_info *rs_lap_replay_info(const rs_lap_replay *rep);

/* The car's lap as re-simulated (its RS_EVENT_LAP: time, sectors,
 * validity) into *out; false until the replay has seen it. */
bool rs_lap_replay_lap(const rs_lap_replay *rep, rs_event *out);

/* Steps what is left of the log and gives the verdict and message exactly
 * as rs_lap_proof_verify does. May be called more than once. */
void rs_lap_replay_finish(rs_lap_replay *rep, rs_lap_verdict *out, char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif

#endif
