/*
 * racesim championships: standings computed from stored results.
 *
 * A championship is configuration, not data (raceserver's `championships`,
 * docs/RESULTS.md): the rooms whose sessions count, which session types
 * score, a points table by position, optional points for pole (the winner
 * of a qualifying session) and for the fastest lap. The standings are
 * computed from race_results each time they are asked for: a table never
 * disagrees with the results it comes from, a changed points table applies
 * to every event at once, and the cost is one indexed read of the
 * championship's rows (races_room, migration 0007) and a sort in memory.
 *
 * The rules:
 *  - a session counts when its races row is finished (stopped, interrupted
 *    and abandoned sessions score nothing), its room is one of the
 *    championship's and its type is one that scores (default: races);
 *  - a classified row scores points[position - 1] (positions past the table
 *    score 0); a disqualified or not classified row scores nothing but the
 *    session counts as an event entered;
 *  - the fastest lap's holder gets fastest_lap_points unless disqualified;
 *  - the classified winner of each qualifying session of those rooms gets
 *    pole_points (whether or not qualifying scores otherwise);
 *  - standings of a class use the rows of that class only, with positions
 *    in class (class_position) and the fastest lap within the class;
 *  - order: points, then wins, then name; drivers with equal points share
 *    a position (1 + those with more points).
 */
#ifndef RACESIM_CHAMPIONSHIP_H
#define RACESIM_CHAMPIONSHIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/store.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RS_CHAMPIONSHIP_MAX_ROOMS 16u
#define RS_CHAMPIONSHIP_MAX_POINTS 64u

typedef struct rs_championship_def {
    const char *name;                   /* by the protocol's name rules */
    const char *const *rooms;           /* room names whose sessions count */
    uint32_t room_count;                /* 1..RS_CHAMPIONSHIP_MAX_ROOMS */
    uint32_t session_types;             /* mask of 1u << rs_store_session_type;
                                           0 = races only */
    const uint32_t *points;             /* by position; NULL = 25-18-15-12-10-8-6-4-2-1 */
    uint32_t points_count;              /* 0..RS_CHAMPIONSHIP_MAX_POINTS */
    uint32_t pole_points;               /* 0 = none */
    uint32_t fastest_lap_points;        /* 0 = none */
} rs_championship_def;

typedef struct rs_championship_row {
    uint32_t position;                  /* 1.. (equal points share it) */
    int64_t player_id;                  /* the stored player row */
    char name[33];                      /* as stored; a guest without its "~" */
    bool guest;
    char class_name[33];                /* of its latest scoring row ("" none) */
    uint32_t points;
    uint32_t events;                    /* scoring sessions it was classified or not in */
    uint32_t wins, poles, fastest_laps;
} rs_championship_row;

/* The default table, 25-18-15-12-10-8-6-4-2-1. */
extern const uint32_t rs_championship_default_points[10];

/* Checks a definition; false with a reason in *why. */
bool rs_championship_check(const rs_championship_def *c, const char **why);

/* The standings of championship c, every driver (class_name NULL or "") or
 * those of one class: rows offset.. into out (up to cap), the number of
 * drivers into *total. RS_ERR_ARG for a definition rs_championship_check
 * refuses; store errors as usual. */
rs_status rs_store_standings(rs_store *s, const rs_championship_def *c, const char *class_name,
                             uint32_t offset, rs_championship_row *out, uint32_t cap,
                             uint32_t *total, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
