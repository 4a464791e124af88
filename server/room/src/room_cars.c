/*
 * The cars a room offers, their classes, its entry list, and the car each
 * seat drives: its choice among the offered cars (or its entry's), its
 * tune (rs_room_set_seat_car), and balance of performance (the car's, or
 * its entry's) applied on top (racesim/bop.h). Whatever a seat drives is a
 * canonical parameter block with its own hash, so every client rebuilds it
 * bit for bit, lap proofs name it exactly, and a handicapped car never
 * shares a leaderboard with the stock one: its tune hash is its own hash.
 *
 * Entries are players by name; an entry-only room refuses everyone else
 * (REFUSE NOT_ENTERED), and in an open room the seats of entries not yet
 * here are held for them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/bop.h"
#include "room_internal.h"

static void offer_free(room_offer *o)
{
    free(o->block);
    memset(o, 0, sizeof *o);
}

static rs_status offer_init(room_offer *o, const rs_car_params *params, uint8_t class_index,
                            double ballast_kg, double restrictor_pct)
{
    memset(o, 0, sizeof *o);
    o->params = params;
    o->hash = rs_car_params_hash(params);
    o->block_len = rs_car_params_block(params, NULL, 0);
    o->block = malloc(o->block_len);
    if (!o->block)
        return RS_ERR_NOMEM;
    rs_car_params_block(params, o->block, o->block_len);
    o->class_index = class_index;
    o->ballast_kg = ballast_kg;
    o->restrictor_pct = restrictor_pct;
    return RS_OK;
}

static bool bop_ok(double ballast_kg, double restrictor_pct)
{
    return ballast_kg >= 0.0 && ballast_kg <= RS_PROTO_BALLAST_MAX_KG && restrictor_pct >= 0.0 &&
           restrictor_pct <= RS_PROTO_RESTRICTOR_MAX;
}

bool rs_room__cars_check(const rs_room_config *c, const char **why)
{
    if (c->car_count > RS_ROOM_MAX_CARS_OFFERED || (c->car_count && !c->cars))
        *why = "cars: 0..8 offered cars";
    else if (c->class_count > RS_PROTO_MAX_CLASSES || (c->class_count && !c->classes))
        *why = "classes: 0..8 class names";
    else if (c->entry_count > RS_PROTO_MAX_CARS || (c->entry_count && !c->entries))
        *why = "entries: 0..32 entries";
    else if (c->entries_only && c->entry_count == 0)
        *why = "entries_only: needs entries";
    else
        *why = NULL;
    for (uint32_t i = 0; !*why && i < c->car_count; i++) {
        const rs_room_car_offer *o = &c->cars[i];
        if (!o->params)
            *why = "cars: a car without parameters";
        else if (c->class_count ? o->class_index >= c->class_count : o->class_index != 0)
            *why = "cars: a class index names no class";
        else if (!bop_ok(o->ballast_kg, o->restrictor_pct))
            *why = "cars: ballast 0..500 kg, restrictor 0..90 %";
    }
    for (uint32_t i = 0; !*why && i < c->car_count; i++)
        for (uint32_t k = 0; !*why && k < i; k++)
            if (rs_car_params_hash(c->cars[k].params) == rs_car_params_hash(c->cars[i].params))
                *why = "cars: one car offered twice (players choose a car by its hash)";
    for (uint32_t i = 0; !*why && i < c->class_count; i++)
        if (!c->classes[i] ||
            !rs_proto_name_check(c->classes[i], strlen(c->classes[i]), NULL, 0))
            *why = "classes: a class name breaks the name rules";
    uint32_t offered = c->car_count ? c->car_count : 1;
    for (uint32_t i = 0; !*why && i < c->entry_count; i++) {
        const rs_room_entry *e = &c->entries[i];
        if (!e->name || !rs_proto_name_check(e->name, strlen(e->name), NULL, 0))
            *why = "entries: a name breaks the name rules";
        else if (e->car >= offered)
            *why = "entries: a car index names no offered car";
        else if (e->number > RS_PROTO_NUMBER_MAX)
            *why = "entries: race numbers are 0..999";
        else if (e->bop && !bop_ok(e->ballast_kg, e->restrictor_pct))
            *why = "entries: ballast 0..500 kg, restrictor 0..90 %";
        for (uint32_t k = 0; !*why && k < i; k++)
            if (rs_proto_name_equal(c->entries[k].name, e->name))
                *why = "entries: a player is entered twice";
    }
    if (!*why && c->entry_count > c->max_players)
        *why = "entries: more entries than max_players";
    return *why == NULL;
}

rs_status rs_room__cars_init(rs_room *room, const rs_room_config *cfg)
{
    rs_status st = RS_OK;
    if (cfg->car_count == 0) {
        st = offer_init(&room->offers[0], cfg->car, 0, 0.0, 0.0);
        room->offer_count = 1;
    }
    for (uint32_t i = 0; st == RS_OK && i < cfg->car_count; i++) {
        const rs_room_car_offer *o = &cfg->cars[i];
        st = offer_init(&room->offers[i], o->params, o->class_index, o->ballast_kg,
                        o->restrictor_pct);
        room->offer_count = i + 1;
    }
    room->class_count = cfg->class_count;
    for (uint32_t i = 0; i < cfg->class_count; i++)
        snprintf(room->classes[i], sizeof room->classes[i], "%s", cfg->classes[i]);
    room->entry_count = cfg->entry_count;
    for (uint32_t i = 0; i < cfg->entry_count; i++) {
        room->entries[i] = cfg->entries[i];
        snprintf(room->entry_names[i], sizeof room->entry_names[i], "%s", cfg->entries[i].name);
        room->entries[i].name = room->entry_names[i];
    }
    room->entries_only = cfg->entries_only;
    room->cfg.cars = NULL;
    room->cfg.classes = NULL;
    room->cfg.entries = NULL;
    return st;
}

void rs_room__cars_free(rs_room *room)
{
    for (uint32_t i = 0; i < room->offer_count; i++)
        offer_free(&room->offers[i]);
    room->offer_count = 0;
}

int rs_room__entry_of(const rs_room *room, const char *name)
{
    for (uint32_t i = 0; i < room->entry_count; i++)
        if (rs_proto_name_equal(room->entries[i].name, name))
            return (int)i;
    return -1;
}

const char *rs_room__entry_refusal(const rs_room *room, const char *name, int64_t player_id,
                                   bool own_seat)
{
    int e = rs_room__entry_of(room, name);
    if (e >= 0) {
        /* An entry is a registered player: a guest (or a registration)
         * using its name is not it. Before admission (player_id < 0) the
         * token is not checked yet; then it is. */
        if (player_id == 0)
            return "that name is on the entry list: log in with its token";
        return NULL;
    }
    if (room->entries_only)
        return "this room races an entry list without you";
    if (own_seat)
        return NULL;
    /* Open seats are those beyond the entries not seated yet. */
    uint32_t used = 0, waiting = 0;
    for (uint32_t i = 0; i < room->cfg.max_players; i++)
        used += room->seats[i].used;
    for (uint32_t i = 0; i < room->entry_count; i++) {
        bool seated = false;
        for (uint32_t k = 0; k < room->cfg.max_players && !seated; k++)
            seated = room->seats[k].used && rs_proto_name_equal(room->seats[k].name,
                                                                room->entries[i].name);
        waiting += !seated;
    }
    if (used + waiting >= room->cfg.max_players)
        return "every free seat is held for the entry list";
    return NULL;
}

/* The base of a seat's car before balance of performance: its tune, or
 * its offered car. *owned is set when the caller must free it. */
static rs_status seat_base(const rs_room *room, const room_seat *s, const rs_car_params **base,
                           rs_car_params **owned)
{
    *owned = NULL;
    if (!s->block) {
        *base = room->offers[s->offer].params;
        return RS_OK;
    }
    rs_status st = rs_car_params_from_block(s->block, s->block_len, owned, NULL, 0);
    *base = *owned;
    return st;
}

rs_status rs_room__seat_car(const rs_room *room, const room_seat *s, room_seat_car *out)
{
    memset(out, 0, sizeof *out);
    const room_offer *o = &room->offers[s->offer];
    out->base_hash = o->hash;
    out->class_index = o->class_index;
    out->ballast_kg = o->ballast_kg;
    out->restrictor_pct = o->restrictor_pct;
    if (s->entry >= 0) {
        const rs_room_entry *e = &room->entries[s->entry];
        out->number = e->number;
        if (e->bop) {
            out->ballast_kg = e->ballast_kg;
            out->restrictor_pct = e->restrictor_pct;
        }
    }
    const rs_car_params *base = NULL;
    rs_car_params *tuned = NULL, *bopped = NULL;
    rs_status st = seat_base(room, s, &base, &tuned);
    if (st != RS_OK)
        return st;
    bool bop = out->ballast_kg > 0.0 || out->restrictor_pct > 0.0;
    if (bop) {
        st = rs_car_params_bop(base, out->ballast_kg, out->restrictor_pct, &bopped, NULL, 0);
        if (st != RS_OK) {
            rs_car_params_destroy(tuned);
            return st;
        }
        base = bopped;
    }
    out->block_len = rs_car_params_block(base, NULL, 0);
    out->block = malloc(out->block_len);
    if (out->block) {
        rs_car_params_block(base, out->block, out->block_len);
        /* Through the block, as every client will rebuild it. */
        st = rs_car_params_from_block(out->block, out->block_len, &out->params, NULL, 0);
    } else {
        st = RS_ERR_NOMEM;
    }
    if (st == RS_OK) {
        out->params_hash = rs_car_params_hash(out->params);
        /* A tune names itself; a handicap makes the car another one. */
        out->tune_hash = s->block ? s->tune_hash : bop ? out->params_hash : 0;
    } else {
        free(out->block);
        out->block = NULL;
    }
    rs_car_params_destroy(tuned);
    rs_car_params_destroy(bopped);
    return st;
}

void rs_room__seat_car_free(room_seat_car *c)
{
    free(c->block);
    rs_car_params_destroy(c->params);
    memset(c, 0, sizeof *c);
}

void rs_room__seat_assign(rs_room *room, room_seat *s)
{
    s->entry = rs_room__entry_of(room, s->name);
    s->offer = s->entry >= 0 ? room->entries[s->entry].car : 0;
    rs_room__seat_changed(s);
}

void rs_room__seat_changed(room_seat *s)
{
    rs_room__seat_car_free(&s->eff);
    s->eff_ok = false;
}

const room_seat_car *rs_room__seat_effective(const rs_room *room, room_seat *s)
{
    if (!s->eff_ok) {
        if (rs_room__seat_car(room, s, &s->eff) != RS_OK)
            return NULL;
        s->eff_ok = true;
    }
    return &s->eff;
}

const rs_car_params *rs_room_seat_stock_car(const rs_room *room, const char *name)
{
    for (uint32_t i = 0; room && name && i < room->cfg.max_players; i++) {
        const room_seat *s = &room->seats[i];
        if (s->used && rs_proto_name_equal(s->name, name))
            return room->offers[s->offer].params;
    }
    return room ? room->offers[0].params : NULL;
}

uint32_t rs_room__offer_of_hash(const rs_room *room, uint64_t hash)
{
    for (uint32_t i = 0; hash && i < room->offer_count; i++)
        if (room->offers[i].hash == hash)
            return i;
    return UINT32_MAX;
}

uint32_t rs_room__offer_named(const rs_room *room, const char *name)
{
    for (uint32_t i = 0; i < room->offer_count; i++)
        if (strcmp(rs_car_params_name(room->offers[i].params), name) == 0)
            return i;
    char *end = NULL;
    unsigned long long h = strlen(name) == 16 ? strtoull(name, &end, 16) : 0;
    return end && *end == '\0' ? rs_room__offer_of_hash(room, (uint64_t)h) : UINT32_MAX;
}

uint8_t rs_room__select_car(rs_room *room, int seat, const char *car, char *text, size_t cap)
{
    if (seat < 0) {
        snprintf(text, cap, "spectators drive no car");
        return RS_RESULT_DENIED;
    }
    room_seat *s = &room->seats[seat];
    if (s->entry >= 0) {
        snprintf(text, cap, "your entry drives the %s",
                 rs_car_params_name(room->offers[s->offer].params));
        return RS_RESULT_DENIED;
    }
    uint32_t k = rs_room__offer_named(room, car);
    if (k == UINT32_MAX) {
        int n = snprintf(text, cap, "no car named '%s' here; offered:", car);
        for (uint32_t i = 0; i < room->offer_count && n > 0 && (size_t)n < cap; i++)
            n += snprintf(text + n, cap - (size_t)n, "%s %s", i ? "," : "",
                          rs_car_params_name(room->offers[i].params));
        return RS_RESULT_NOT_FOUND;
    }
    if (k != s->offer) {
        /* A tune belongs to the car it was made for: choosing another car
         * drops it (the services apply tunes to rs_room_seat_stock_car). */
        free(s->block);
        s->block = NULL;
        s->block_len = 0;
        s->params_hash = s->tune_hash = 0;
        s->offer = (uint8_t)k;
        rs_room__seat_changed(s);
    }
    snprintf(text, cap, "you drive the %s from the next session on",
             rs_car_params_name(room->offers[k].params));
    return RS_RESULT_OK;
}

const rs_car_params *rs_room_offered_car(const rs_room *room, uint32_t i, uint8_t *class_index)
{
    if (!room || i >= room->offer_count)
        return NULL;
    if (class_index)
        *class_index = room->offers[i].class_index;
    return room->offers[i].params;
}

const char *rs_room_class_name(const rs_room *room, uint32_t i)
{
    return room && i < room->class_count ? room->classes[i] : NULL;
}
