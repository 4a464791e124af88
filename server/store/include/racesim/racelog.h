/*
 * racesim race log: records a race into the store as the world runs it.
 *
 * Every lap the world times (RS_EVENT_LAP) becomes a lap record with its
 * proof (racesim/lapproof.h), queued on the store's writer; when the race is
 * over, every car's result and the race's finish follow. The race loop calls
 * rs_racelog_before_step after setting the tick's inputs and
 * rs_racelog_after_step after rs_world_step; neither waits on disk. A record
 * the writer cannot take right now (its queue is full) is kept and offered
 * again on the next call, so nothing is lost while the process lives; a lap
 * counts as recorded only when its acknowledgement (rs_racelog_poll) says so.
 *
 * Thread rules: one race log belongs to the thread that steps its world.
 */
#ifndef RACESIM_RACELOG_H
#define RACESIM_RACELOG_H

#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"
#include "racesim/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Who drives car slot i, and with what. */
typedef struct rs_racelog_entrant {
    int64_t player_id;    /* stored already */
    uint64_t params_hash; /* the parameter block the car runs (stored already) */
    uint64_t base_hash;   /* the stock car definition (rs_car_params_hash of the untuned car) */
    uint64_t tune_hash;   /* 0 = stock */
} rs_racelog_entrant;

typedef struct rs_racelog_def {
    rs_store_writer *writer;
    int64_t race_id;           /* from rs_store_race_create; 0 = laps outside a race */
    uint64_t track_hash;       /* stored already, like every car's parameter block */
    const rs_racelog_entrant *entrants; /* one per car in the world, slot order */
    uint32_t max_lap_ticks;    /* longest lap that gets a proof (and so is recorded) */
    int64_t first_caller_id;   /* caller ids are first_caller_id, +1, ... in record order */
    bool forced_tune;          /* the race forces one tune (rs_store_race.forced_tune) ... */
    uint64_t forced_tune_hash; /* ... this one (0 = stock): every entrant must run it */
    bool laps_only;            /* the caller records the results and the race's end (a
                                  room's classification, which the world does not know):
                                  the log records laps only */
} rs_racelog_def;

typedef struct rs_racelog rs_racelog;

/* The world must already hold all its cars and have a track. In a race
 * that forces a tune, an entrant on any other tune is refused
 * (RS_ERR_MISMATCH): its laps would not belong to the race. */
rs_status rs_racelog_create(const rs_world *world, const rs_racelog_def *def, rs_racelog **out);

/* Accepts NULL. Records still pending (never accepted by the writer) are
 * dropped and counted in the stats: flush first (rs_racelog_flush). */
void rs_racelog_destroy(rs_racelog *log);

/* A car joined the world (rs_world_add_car between ticks, before the next
 * rs_racelog_before_step): e drives it, car number rs_world_car_count. Its
 * laps are recorded like the others', and the proofs of laps under way
 * record the join (racesim/lapproof.h). RS_ERR_NOMEM leaves the log as it
 * was: that car's laps are then not recorded. */
rs_status rs_racelog_add_entrant(rs_racelog *log, const rs_racelog_entrant *e);

rs_status rs_racelog_before_step(rs_racelog *log, const rs_world *world);

/* Queues this step's laps and, once the race is over, the results. now_s:
 * wall-clock unix seconds stamped on the records. */
rs_status rs_racelog_after_step(rs_racelog *log, const rs_world *world, int64_t now_s);

/* Offers pending records to the writer again (blocking-free); returns how
 * many are still pending. */
size_t rs_racelog_flush(rs_racelog *log);

/* The writer's acknowledgements for this log's records (see rs_store_ack). */
size_t rs_racelog_poll(rs_racelog *log, rs_store_ack *acks, size_t cap);

typedef struct rs_racelog_stats {
    uint64_t laps_seen;       /* RS_EVENT_LAP events */
    uint64_t laps_queued;     /* accepted by the writer */
    uint64_t laps_recorded;   /* acknowledged as committed */
    uint64_t laps_unproven;   /* no proof could be built (too long, recorder started mid-lap) */
    uint64_t records_failed;  /* acknowledged with an error */
    uint64_t pending;         /* waiting for room in the writer's queue */
    uint64_t refused;         /* refused by the writer for good (malformed, no memory): lost */
    uint64_t dropped;         /* lost: no memory to keep it pending, or destroyed while
                                 pending */
} rs_racelog_stats;

rs_racelog_stats rs_racelog_get_stats(const rs_racelog *log);

/* The result of the world's car index1 car, driven by who, in race race_id,
 * as the race log records it when the race is over: position (the finish
 * position once the car has one), finish time (-1 = did not finish), laps,
 * best lap and hits. For callers that record a result themselves (a race
 * decided before the world says it is over). Never fails. */
rs_store_result rs_racelog_result(const rs_world *world, uint16_t car, int64_t race_id,
                                  const rs_racelog_entrant *who, int64_t caller_id);

#ifdef __cplusplus
}
#endif

#endif
