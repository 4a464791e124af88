/*
 * Live standings: the race order with gaps, as a timing screen shows it.
 *
 * A gap is measured where real timing measures it, at the timing lines: the
 * time between the leader crossing a line and this car crossing the same
 * line on the same lap. The world's race state knows only each car's latest
 * crossing, so a board remembers the last few laps of crossings of every
 * car: feed it the world after every step (rs_standings_observe), then read
 * the standings whenever they are to be shown.
 *
 * A board is not simulation state: it is never hashed or sent, and reading
 * it changes nothing. Fed from a predicted world that rolls back, a gap may
 * shift by the size of a misprediction until the car crosses its next line.
 *
 * Memory: everything is allocated by rs_standings_create; nothing after.
 * Thread rules: one board belongs to one thread at a time.
 */
#ifndef RACESIM_STANDINGS_H
#define RACESIM_STANDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One car's place, fixed layout (integers only, no bool) so that other
 * languages can mirror it. */
typedef struct rs_standing {
    uint16_t car;            /* rs_car_id.index1 */
    uint8_t status;          /* rs_race_status */
    uint8_t lap_valid;       /* 1 while the lap in progress is valid */
    uint32_t position;       /* 1 = leading; finishers keep their finishing position */
    uint32_t laps_completed;
    uint32_t laps_behind;    /* whole laps the leader is ahead (timing lines passed / lines) */
    int64_t gap_us;          /* behind the leader at the last timing line this car crossed:
                                0 for the leader, -1 when not known (on the grid, or the
                                leader's crossing is older than the board remembers) */
    uint32_t interval_laps;  /* whole laps the car ahead is ahead */
    uint32_t reserved;       /* 0 */
    int64_t interval_us;     /* behind the car ahead, measured the same way; 0 for the
                                leader, -1 when not known */
    int64_t last_lap_us;     /* -1 = none yet */
    int64_t best_lap_us;     /* best valid lap, -1 = none */
    int64_t finish_us;       /* race clock at the flag, -1 = not finished */
} rs_standing;

typedef struct rs_standings rs_standings;

/* A board for up to max_cars cars (1..RS_STANDINGS_MAX_CARS), or NULL when
 * out of memory or max_cars is out of range. Free with
 * rs_standings_destroy. */
#define RS_STANDINGS_MAX_CARS 64u
rs_standings *rs_standings_create(uint32_t max_cars);

/* Accepts NULL. */
void rs_standings_destroy(rs_standings *board);

/* Forgets every crossing (a new race, or a world rebuilt from a snapshot:
 * gaps come back as the cars cross their next lines). */
void rs_standings_reset(rs_standings *board);

/* Records the newest crossing of every car of world (call after every
 * rs_world_step; calling it more often is harmless). A crossing undone or
 * retimed by a rollback is corrected. Cars beyond max_cars are ignored. */
void rs_standings_observe(rs_standings *board, const rs_world *world);

/* Writes up to cap rows in race order (leader first) and returns how many
 * cars the world has. */
uint32_t rs_standings_get(const rs_standings *board, const rs_world *world, rs_standing *out,
                          uint32_t cap);

#ifdef __cplusplus
}
#endif

#endif
