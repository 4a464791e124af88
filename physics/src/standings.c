/*
 * Live standings (racesim/standings.h): a ring of recent timing-line
 * crossings per car, and gaps read from it at the lines.
 */
#include "racesim/standings.h"

#include <stdlib.h>
#include <string.h>

#include "racesim/track.h"

/* Crossings remembered per car: four laps of the most lines a track may
 * have, so a gap to a leader up to four laps ahead is still known. */
#define RING (4u * RS_MAX_SECTORS)

typedef struct car_ring {
    uint64_t newest;       /* number of the newest crossing recorded + 1; 0 = none */
    uint64_t m[RING];      /* crossing number held in each slot */
    int64_t t_us[RING];    /* race clock at that crossing */
} car_ring;

struct rs_standings {
    uint32_t max_cars;
    car_ring cars[];
};

rs_standings *rs_standings_create(uint32_t max_cars)
{
    if (max_cars < 1 || max_cars > RS_STANDINGS_MAX_CARS)
        return NULL;
    rs_standings *b = malloc(sizeof *b + max_cars * sizeof b->cars[0]);
    if (!b)
        return NULL;
    b->max_cars = max_cars;
    rs_standings_reset(b);
    return b;
}

void rs_standings_destroy(rs_standings *board) { free(board); }

void rs_standings_reset(rs_standings *board)
{
    if (!board)
        return;
    memset(board->cars, 0, board->max_cars * sizeof board->cars[0]);
}

void rs_standings_observe(rs_standings *board, const rs_world *world)
{
    if (!board || !world)
        return;
    const rs_track *track = rs_world_track(world);
    uint32_t lines = track ? rs_track_line_count(track) : 0;
    uint32_t n = rs_world_car_count(world);
    for (uint32_t i = 0; i < n && i < board->max_cars; i++) {
        rs_race_car_state st;
        if (rs_world_race_state(world, (rs_car_id){(uint16_t)(i + 1)}, &st) != RS_OK)
            continue;
        car_ring *r = &board->cars[i];
        if (st.crossings == 0) {
            r->newest = 0; /* back on the grid (a rollback past lights out) */
            continue;
        }
        /* The world shows only the newest crossing; a rollback may have
         * moved it back or retimed it, and recording it again corrects
         * both (older slots stay until overwritten: they are only trusted
         * up to newest). */
        uint64_t m = st.crossings - 1;
        int64_t t_us = st.crossed_us;
        if (st.status == RS_RACE_FINISHED && lines) {
            /* Crossings after the flag are not timed: the flag is the
             * car's last line (crossing laps * lines). */
            m = (uint64_t)st.laps_completed * lines;
            t_us = st.finish_us;
        }
        uint32_t slot = (uint32_t)(m % RING);
        r->m[slot] = m;
        r->t_us[slot] = t_us;
        r->newest = m + 1;
    }
}

/* When car i crossed line number m, or -1 if the board does not know. */
static int64_t crossed_at(const rs_standings *b, uint32_t i, uint64_t m)
{
    if (i >= b->max_cars)
        return -1;
    const car_ring *r = &b->cars[i];
    uint32_t slot = (uint32_t)(m % RING);
    if (m >= r->newest || r->m[slot] != m)
        return -1;
    return r->t_us[slot];
}

/* How far car `ahead` is ahead of car `me` at me's newest crossing: the
 * time and the whole laps between them (lines > 0). */
static void behind(const rs_standings *b, uint32_t me, uint32_t ahead, uint32_t lines,
                   int64_t *gap_us, uint32_t *laps)
{
    *gap_us = -1;
    *laps = 0;
    if (me >= b->max_cars || ahead >= b->max_cars)
        return;
    const car_ring *r = &b->cars[me], *a = &b->cars[ahead];
    if (r->newest == 0 || a->newest < r->newest)
        return;
    uint64_t m = r->newest - 1;
    *laps = (uint32_t)((a->newest - r->newest) / lines);
    int64_t t = crossed_at(b, me, m), ta = crossed_at(b, ahead, m);
    if (t >= 0 && ta >= 0 && t >= ta)
        *gap_us = t - ta;
}

uint32_t rs_standings_get(const rs_standings *board, const rs_world *world, rs_standing *out,
                          uint32_t cap)
{
    if (!world)
        return 0;
    rs_car_id order[RS_STANDINGS_MAX_CARS];
    uint32_t n = rs_world_race_order(world, order, RS_STANDINGS_MAX_CARS);
    const rs_track *track = rs_world_track(world);
    uint32_t lines = track ? rs_track_line_count(track) : 0;
    for (uint32_t k = 0; k < n && k < cap && out; k++) {
        rs_race_car_state st;
        rs_world_race_state(world, order[k], &st);
        rs_standing *o = &out[k];
        memset(o, 0, sizeof *o);
        o->car = order[k].index1;
        o->status = st.status;
        o->lap_valid = st.lap_valid ? 1 : 0;
        o->position = k + 1;
        o->laps_completed = st.laps_completed;
        o->last_lap_us = st.last_lap_us;
        o->best_lap_us = st.best_lap_us;
        o->finish_us = st.finish_us;
        o->gap_us = o->interval_us = k == 0 ? 0 : -1;
        if (k == 0 || !board || lines == 0)
            continue;
        uint32_t me = order[k].index1 - 1u;
        behind(board, me, order[0].index1 - 1u, lines, &o->gap_us, &o->laps_behind);
        behind(board, me, order[k - 1].index1 - 1u, lines, &o->interval_us, &o->interval_laps);
    }
    return n;
}
