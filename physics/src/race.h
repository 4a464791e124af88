/*
 * Lap timing and race logic: which timing lines each car has crossed, lap
 * and sector times interpolated inside the substep, lap validity (skipped
 * lines, track limits), positions, the finish and the end of the race.
 *
 * The world owns one rs_race and one rs_race_car per car slot and calls, for
 * every substep: rs_race_substep() once per car (in slot order), then
 * rs_race_substep_end() once. Both push events into the world's sink. The
 * state is plain data with a canonical fixed-size serialisation, so it is
 * part of the world snapshot and hash. docs/TIMING.md explains the rules.
 *
 * Nothing here allocates; the cost per car and substep is one segment test
 * per timing line, plus O(cars) work for every line a car crosses for the
 * first time (positions are kept up to date incrementally).
 */
#ifndef RS_RACE_H
#define RS_RACE_H

#include <stdbool.h>
#include <stdint.h>

#include "bytes.h"
#include "events.h"
#include "track_internal.h"

/* One car's timing state. Progress counts timing-line crossings since the
 * grid: crossing number m is the m-th line passed in racing order (line
 * m mod nlines); m = 0 is the first crossing of the start line, which begins
 * lap 1, and m = k * nlines ends lap k. The car has "progress" P when the
 * next crossing it is due is number P. */
typedef struct rs_race_car {
    uint8_t status;          /* rs_race_status */
    uint8_t invalid_reason;  /* rs_lap_invalid of the lap in progress (0 = valid) */
    uint16_t reversed_mask;  /* bit i: line i was crossed backwards while it was not
                                the last line crossed, and not re-crossed since */
    int64_t progress;        /* P; may go below the best after backward crossings,
                                and below 0 after reversing over the start line */
    int64_t progress_max;    /* highest P reached: crossings below it are never timed again */
    int64_t progress_max_us; /* race clock when progress_max was reached (order ties) */
    int64_t cross_us[RS_MAX_SECTORS]; /* lap in progress: race clock at line i, -1 = not crossed */
    int64_t lap_start_us;    /* -1 before lap 1 */
    uint32_t laps_completed;
    int64_t last_lap_us;     /* -1 before the first completed lap */
    int64_t best_lap_us;     /* best valid lap, -1 if none */
    int64_t finish_us;       /* race clock at the flag, -1 before */
    uint32_t finish_position;/* 0 until the flag is confirmed (at the end of its substep) */
    uint32_t position;       /* 1 = leading; always a permutation of 1..cars */
    /* Not part of the snapshot: only set between a car's finishing crossing
     * and the end of that substep, never at a tick boundary. */
    uint8_t finish_pending;
} rs_race_car;

/* World-level race state. */
typedef struct rs_race {
    uint32_t laps;       /* race distance; 0 = open session (timed, nobody finishes) */
    uint32_t finishers;  /* cars that have taken the flag */
    uint8_t over;        /* RS_EVENT_RACE_OVER has been reported */
    uint32_t pending;    /* finishers awaiting rs_race_substep_end (not snapshotted) */
} rs_race;

/* A car on the grid in slot `index` (0-based). A car added to a running race
 * ranks last, which is where its grid state puts it, so cars must be
 * initialised in slot order with index = number of cars before it. */
void rs_race_car_init(rs_race_car *rc, uint32_t index);

/* Canonical bytes of one car (fixed size: rs_race_car_size()). read flags
 * r->error for a value outside its range (status, reason, lines); it does not
 * check positions against other cars: see rs_race_consistent. */
void rs_race_car_write(const rs_race_car *rc, rs_writer *w);
void rs_race_car_read(rs_race_car *rc, rs_reader *r);
size_t rs_race_car_size(void);

void rs_race_init(rs_race *race, uint32_t laps);

/* World-level bytes (fixed size: rs_race_size()). read flags r->error when
 * the snapshot's laps differ from race->laps (set by rs_race_init from the
 * world definition). */
void rs_race_write(const rs_race *race, rs_writer *w);
void rs_race_read(rs_race *race, rs_reader *r);
size_t rs_race_size(void);

/* One substep of car_index (0-based slot; its events carry car_index + 1).
 * p0 and p1 are the centre of mass's horizontal positions at the start and
 * the end of the substep, clock_s the race clock at its start (seconds since
 * lights out, negative before: nothing is timed until it reaches 0) and dt_s
 * its length. all_wheels_out: at the end of the substep no wheel's contact
 * point is inside the track limits. track NULL or without lines: no timing.
 * Pushes SECTOR, LAP and LAP_INVALID events; finishes are confirmed by
 * rs_race_substep_end. Never fails. */
void rs_race_substep(rs_race *race, rs_race_car *cars, uint32_t ncars, uint32_t car_index,
                     const rs_track *track, const double p0[2], const double p1[2],
                     double clock_s, double dt_s, bool all_wheels_out, rs_event_sink *events);

/* After every car's rs_race_substep in a substep: assigns finish positions
 * to this substep's finishers in order of their crossing times (so a car
 * processed later in the same substep that crossed earlier is ahead), pushes
 * their FINISH events, then RACE_OVER once when every car has finished.
 * Cheap (returns at once) when nobody finished. Never fails. */
void rs_race_substep_end(rs_race *race, rs_race_car *cars, uint32_t ncars,
                         rs_event_sink *events);

/* Race clock seconds to the integer microseconds every time here is kept
 * in: rounded half away from zero, clamped to +-4e18, NaN gives 0. The same
 * bits on every machine; for rs_world_race_time_us, so that the clock and the
 * events agree. Never fails. */
int64_t rs_race_time_us(double t_s);

/* The public view of one car. barrier_hits and car_hits are set to 0 (the
 * collision module owns those counts). track may be NULL. Never fails. */
void rs_race_fill_state(const rs_race_car *rc, const rs_track *track, rs_race_car_state *out);

/* Writes the slot indices of the first min(cap, ncars) cars in race order
 * (leader first) into order_out and returns ncars. O(ncars): reads the kept
 * positions. Never fails. */
uint32_t rs_race_order(const rs_race_car *cars, uint32_t ncars, uint16_t *order_out,
                       uint32_t cap);

/* True when a restored state is one the rules can produce between ticks:
 * positions are a permutation of 1..ncars that agrees with the ordering,
 * finishers and finish positions match, nothing is pending. scratch holds
 * ncars entries (no allocation). For rs_world_restore, after reading. */
bool rs_race_consistent(const rs_race *race, const rs_race_car *cars, uint32_t ncars,
                        uint16_t *scratch);

#endif
