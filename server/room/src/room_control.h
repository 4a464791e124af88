/*
 * Race control's state inside a room (room_control.c): what it counts per
 * car and the session's penalties. Kept apart from room_internal.h so the
 * room's structs carry one member each.
 */
#ifndef RACESIM_ROOM_CONTROL_H
#define RACESIM_ROOM_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/protocol.h"
#include "racesim/room.h"

/* Per car, per session (zeroed with the car). */
typedef struct room_car_control {
    uint32_t strikes;          /* track-limit strikes since its last penalty for them */
    double contact_points;     /* contact points of the session */
    uint32_t contact_penalties;/* time penalties given for them (multiples passed) */
    bool contact_dsq;          /* disqualified for them (once per session) */
    double start_moved_m;      /* furthest from its grid spot before lights out */
} room_car_control;

/* Per session: every PENALTY sent, in order, for the watchers who come
 * later and for rs_room_penalties; and each penalty as it stands (a removal
 * folded into it), for the classification (rs_room_results), so that
 * nobody has to replay the log to know what counts. Both grow only when a
 * penalty is given or removed. */
typedef struct room_control {
    rs_msg_penalty *log;
    size_t len, cap;
    rs_room_penalty *list;     /* one per id, in id order */
    size_t list_len, list_cap;
    uint32_t next_id;          /* the last id given */
} room_control;

#endif
