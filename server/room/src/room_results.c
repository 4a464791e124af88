/*
 * rs_room_results: a session's classification with what the services and
 * the results files need beside RESULTS' rows — who drove each car, in
 * which class, which stock car, its number, the fastest lap's holder and
 * the session's penalties (race control's list, room_control.c). A query:
 * it reads the room and never changes it.
 */
#include <stdio.h>
#include <string.h>

#include "room_internal.h"

/* The offered stock car a car drove: the offer with its stock hash. */
static const char *car_name(const rs_room *room, const room_car *c)
{
    for (uint32_t i = 0; i < room->offer_count; i++)
        if (room->offers[i].hash == c->base_hash)
            return rs_car_params_name(room->offers[i].params);
    return c->own ? rs_car_params_name(c->own) : "";
}

const char *rs_room_championship(const rs_room *room)
{
    return room->championship;
}

bool rs_room_results(const rs_room *room, rs_room_results_info *out)
{
    if (!room || !out || !room->world)
        return false;
    memset(out, 0, sizeof *out);
    /* In the results phase room->results is what RESULTS carried; before
     * it, the running session as it stands (a session stopped early). */
    out->final = room->phase == RS_PHASE_RESULTS;
    rs_msg_results now;
    const rs_msg_results *res = &room->results;
    if (!out->final) {
        rs_room__classify_into(room, &now);
        res = &now;
    }
    out->race_number = res->race_number;
    out->weekend = room->weekend;
    out->session_index = res->session_index;
    out->session = *rs_room__session(room);
    out->room = room->name;
    out->track = room->cfg.track;
    out->race_time_us = rs_world_race_time_us(room->world);
    out->count = res->count;
    int fastest = -1;
    for (uint32_t i = 0; i < res->count && i < RS_PROTO_MAX_CARS; i++) {
        rs_room_result_row *o = &out->rows[i];
        o->row = res->rows[i];
        uint8_t car = o->row.car;
        if (car < 1 || car > room->car_count)
            continue;
        const room_car *c = &room->cars[car - 1];
        if (c->seat >= 0 && (uint32_t)c->seat < room->cfg.max_players) {
            const room_seat *s = &room->seats[c->seat];
            snprintf(o->driver, sizeof o->driver, "%s", s->name);
            o->player_id = s->player_id;
        }
        if (room->class_count && c->class_index < room->class_count)
            snprintf(o->class_name, sizeof o->class_name, "%s", room->classes[c->class_index]);
        snprintf(o->car_name, sizeof o->car_name, "%s", car_name(room, c));
        o->params_hash = c->params_hash;
        o->base_hash = c->base_hash;
        o->tune_hash = c->tune_hash;
        o->number = c->number;
        if (c->best_us >= 0) {
            const room_car *f = fastest >= 0 ? &room->cars[out->rows[fastest].row.car - 1] : NULL;
            if (!f || c->best_us < f->best_us ||
                (c->best_us == f->best_us && c->best_tick < f->best_tick))
                fastest = (int)i;
        }
    }
    if (fastest >= 0)
        out->rows[fastest].fastest_lap = true;
    /* The penalty list lives until the world goes (rs_room__control_reset),
     * so it is still there in the race_results and race_end hooks. */
    out->penalties = room->control.list_len ? room->control.list : NULL;
    out->penalty_count = (uint32_t)room->control.list_len;
    return true;
}
