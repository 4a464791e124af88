/*
 * Races into the store: at each countdown the track, every car's parameter
 * block and a race row are stored (synchronously: a few small inserts) and
 * an rs_racelog is created for the world; it is fed around every step and
 * queues laps with their proofs and, at the end, the results on the
 * writer's thread. The writer's acknowledgements come back here: each
 * recorded lap's LAP message is released with its flags (recorded, and a
 * personal best or track record when the leaderboard says so).
 *
 * A race outlives its world until every record is in the writer's hands and
 * every lap acknowledged, so laps are never lost to the end of a race.
 *
 * Every race row gets an end (races.status): finished with every result
 * when the race is decided; stopped, with the classification at that
 * moment, when the server shuts down or the room goes during the race;
 * abandoned when it is called off before lights out. A race whose server
 * died stays running until the next start marks it interrupted
 * (rs_store_races_interrupt). Records the store could not take are kept as
 * the last error with what was lost, for the server's log.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/base/clock.h"
#include "racesim/base/text.h"
#include "services_internal.h"

/* --------------------------------------------------------- set-up */

rs_status rs_svc__put_car(rs_services *svc, const rs_car_params *params, uint64_t base_hash)
{
    uint64_t h = rs_car_params_hash(params);
    for (uint32_t i = 0; i < svc->cars_stored_count; i++)
        if (svc->cars_stored[i] == h)
            return RS_OK;
    char err[256];
    int64_t id = 0;
    rs_status st = rs_store_put_car(svc->store, params, base_hash == h ? 0 : base_hash, &id,
                                    err, sizeof err);
    if (st != RS_OK) {
        rs_svc__error(svc, "storing a car", err);
        return st;
    }
    if (svc->cars_stored_count == svc->cars_stored_cap) {
        uint32_t cap = svc->cars_stored_cap ? 2 * svc->cars_stored_cap : 16;
        uint64_t *n = realloc(svc->cars_stored, cap * sizeof *n);
        if (!n)
            return RS_OK; /* stored; only the cache could not grow */
        svc->cars_stored = n;
        svc->cars_stored_cap = cap;
    }
    svc->cars_stored[svc->cars_stored_count++] = h;
    return RS_OK;
}

static rs_status put_track(rs_services *svc, const rs_track *track, const char *json,
                           size_t json_len)
{
    uint64_t h = rs_track_hash(track);
    for (uint32_t i = 0; i < svc->tracks_stored_count; i++)
        if (svc->tracks_stored[i] == h)
            return RS_OK;
    /* The store wants a NUL-terminated text; the room's JSON is a counted one. */
    char *text = malloc(json_len + 1);
    if (!text)
        return RS_ERR_NOMEM;
    memcpy(text, json, json_len);
    text[json_len] = '\0';
    char err[256];
    int64_t id = 0;
    rs_status st = rs_store_put_track(svc->store, h, rs_track_name(track), text, &id, err,
                                      sizeof err);
    free(text);
    if (st != RS_OK) {
        rs_svc__error(svc, "storing the track", err);
        return st;
    }
    if (svc->tracks_stored_count < sizeof svc->tracks_stored / sizeof svc->tracks_stored[0])
        svc->tracks_stored[svc->tracks_stored_count++] = h;
    return RS_OK;
}

/* The player row a car's laps go under: the registered player, or the
 * guest's "~name" row (created on first use, its token thrown away). */
void rs_svc__guest_row(const char *name, char row[RS_PROTO_NAME_MAX + 1])
{
    size_t n = strlen(name);
    if (n > RS_PROTO_NAME_MAX - 1) {
        n = RS_PROTO_NAME_MAX - 1;
        while (n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80)
            n--; /* cut at a UTF-8 character boundary */
    }
    while (n > 0 && name[n - 1] == ' ')
        n--; /* a cut may end on a space, which no name may (names.c) */
    row[0] = '~';
    memcpy(row + 1, name, n);
    row[n + 1] = '\0';
}

static int64_t entrant_player(rs_services *svc, const rs_room_entrant *e)
{
    if (e->player_id > 0)
        return e->player_id;
    char row[RS_PROTO_NAME_MAX + 1];
    rs_svc__guest_row(e->name, row);
    /* Looked up at every race, not cached: a few indexed reads at set-up,
     * and the store prunes guest rows that hold no lap (docs/PERSISTENCE.md,
     * "Guest rows"), so a cached id could outlive its row. */
    char err[256];
    int64_t id = 0;
    rs_status st = rs_store_player_find(svc->store, row, &id, err, sizeof err);
    if (st == RS_ERR_MISSING) {
        char token[RS_TOKEN_HEX_LEN + 1];
        st = rs_store_player_register(svc->store, row, rs_wall_time_s(), &id, token, err,
                                      sizeof err);
    }
    if (st != RS_OK) {
        char what[160];
        snprintf(what, sizeof what, "guest %s: storing its player row (its laps and result of "
                 "this race will not be stored)", e->name);
        rs_svc__error(svc, what, err);
        return 0;
    }
    return id;
}

/* Entrant i of race r: its cars stored and its player row found (or made),
 * into r->ent[i]. An entrant the store cannot take (its car block or its
 * player row, reported where it failed) loses its own laps, never the
 * race's: it races with player id 0, which the writer refuses. */
static void store_entrant(rs_services *svc, svc_race *r, const rs_room_entrant *e, uint32_t i)
{
    snprintf(r->names[i], sizeof r->names[i], "%s", e->name ? e->name : "");
    r->player_ids[i] = e->player_id;
    rs_status car_st = RS_OK;
    if (e->params_hash != e->base_hash)
        car_st = rs_svc__put_car(svc, e->stock, 0);
    if (car_st == RS_OK)
        car_st = rs_svc__put_car(svc, e->params, e->base_hash);
    r->ent[i].player_id = car_st == RS_OK ? entrant_player(svc, e) : 0;
    r->ent[i].params_hash = e->params_hash;
    r->ent[i].base_hash = e->base_hash;
    r->ent[i].tune_hash = e->tune_hash;
}

static svc_race *race_of_room(rs_services *svc, const rs_room *room)
{
    for (svc_race *r = svc->races; r; r = r->next)
        if (r->room == room && !r->ended)
            return r;
    return NULL;
}

void rs_svc__race_begin(void *ctx, rs_room *room, const rs_world *world,
                        const rs_room_entrant *entrants, uint32_t count)
{
    rs_services *svc = ctx;
    rs_svc__note_room(svc, room);
    if (count == 0 || count > RS_PROTO_MAX_CARS)
        return;
    svc_race *r = calloc(1, sizeof *r);
    if (!r)
        return;
    r->room = room;
    r->cars = count;
    snprintf(r->room_name, sizeof r->room_name, "%s", rs_room_name(room));
    const char *json = NULL;
    size_t json_len = 0;
    const rs_track *track = rs_room_track(room, &json, &json_len);
    r->track_hash = rs_track_hash(track);
    r->base_hash = entrants[0].base_hash;
    rs_status st = put_track(svc, track, json, json_len);
    for (uint32_t i = 0; i < count && st == RS_OK; i++)
        store_entrant(svc, r, &entrants[i], i);
    char err[256] = "";
    if (st == RS_OK) {
        rs_store_race race;
        memset(&race, 0, sizeof race);
        race.track_hash = r->track_hash;
        race.laps = rs_room_laps(room);
        race.physics_version = RS_PHYSICS_VERSION;
        race.started_at = r->started_at = rs_wall_time_s();
        rs_room_session_info si;
        rs_room_session_state(room, &si);
        race.session_type = rs_svc__session_type(si.def.type);
        race.session_index = si.index;
        race.weekend = si.weekend;
        snprintf(race.room, sizeof race.room, "%s", r->room_name);
        st = rs_store_race_create(svc->store, &race, &r->race_id, err, sizeof err);
        if (st != RS_OK)
            rs_svc__error(svc, "creating the race (its laps and results will not be stored)",
                          err);
    }
    if (st == RS_OK) {
        rs_racelog_def d;
        memset(&d, 0, sizeof d);
        d.writer = svc->writer;
        d.race_id = r->race_id;
        d.track_hash = r->track_hash;
        d.entrants = r->ent;
        d.max_lap_ticks = svc->max_lap_ticks;
        d.laps_only = true; /* the results are the room's classification (queue_end) */
        d.first_caller_id = (int64_t)r->race_id << SVC_RACE_SHIFT;
        r->next_caller_id = d.first_caller_id;
        st = rs_racelog_create(world, &d, &r->log);
        if (st != RS_OK) {
            char what[96];
            snprintf(what, sizeof what,
                     "race %lld: creating the race log (its laps and results will not be stored)",
                     (long long)r->race_id);
            rs_svc__error(svc, what, rs_status_str(st));
        } else {
            svc->stats.races++;
        }
    }
    /* A race that cannot be stored still runs: its laps go out with flags 0
     * (the room's 5 s wait ends at race_end at the latest). */
    pthread_mutex_lock(&svc->ids_lock);
    r->next = svc->races;
    svc->races = r;
    pthread_mutex_unlock(&svc->ids_lock);
}

void rs_svc__car_joined(void *ctx, rs_room *room, const rs_world *world,
                        const rs_room_entrant *entrant, const rs_car_spawn *spawn)
{
    (void)world;
    (void)spawn; /* the lap recorder reads the join from the world itself */
    rs_services *svc = ctx;
    svc_race *r = race_of_room(svc, room);
    if (!r || r->cars >= RS_PROTO_MAX_CARS || entrant->car != r->cars + 1)
        return;
    store_entrant(svc, r, entrant, r->cars);
    if (r->log && rs_racelog_add_entrant(r->log, &r->ent[r->cars]) != RS_OK) {
        char what[96];
        snprintf(what, sizeof what, "race %lld: car %u joined (its laps will not be stored)",
                 (long long)r->race_id, (unsigned)entrant->car);
        rs_svc__error(svc, what, rs_status_str(RS_ERR_NOMEM));
        return; /* neither the log nor the services count that car's laps */
    }
    r->cars++;
}

void rs_svc__before_step(void *ctx, rs_room *room, const rs_world *world)
{
    svc_race *r = race_of_room(ctx, room);
    if (r && r->log)
        rs_racelog_before_step(r->log, world);
}

static void lap_expect(rs_services *svc, svc_race *r, const rs_event *e)
{
    if (r->ent[e->car - 1].player_id <= 0) {
        /* No player row (reported at the race's start): the writer refuses
         * the lap and no ack will come. Its id is used all the same, and its
         * LAP goes out now, not flagged recorded. */
        r->next_caller_id++;
        if (r->room)
            rs_svc__lap_flags(svc, r->room, r->room, (uint8_t)e->car, e->lap, 0);
        return;
    }
    if (r->laps_len == r->laps_cap) {
        size_t cap = r->laps_cap ? 2 * r->laps_cap : 32;
        svc_lap *n = realloc(r->laps, cap * sizeof *n);
        if (!n) {
            r->next_caller_id++; /* its flags then come from the room's timeout */
            return;
        }
        r->laps = n;
        r->laps_cap = cap;
    }
    svc_lap *l = &r->laps[r->laps_len++];
    l->caller_id = r->next_caller_id++;
    l->car = (uint8_t)e->car;
    l->lap = e->lap;
    l->valid = e->valid;
    l->time_us = e->duration_us;
}

static size_t race_offer(rs_services *svc, svc_race *r);

void rs_svc__after_step(void *ctx, rs_room *room, const rs_world *world)
{
    rs_services *svc = ctx;
    svc_race *r = race_of_room(svc, room);
    if (r && r->log) {
        /* The racelog numbers its records in order (racelog.h): it records
         * laps only (laps_only), the results are ours. Mirror it to know
         * which id is which lap. */
        size_t n = 0;
        const rs_event *ev = rs_world_events(world, &n);
        for (size_t k = 0; k < n; k++)
            if (ev[k].type == RS_EVENT_LAP && ev[k].car >= 1 && ev[k].car <= r->cars)
                lap_expect(svc, r, &ev[k]);
        rs_racelog_after_step(r->log, world, rs_wall_time_s());
    }
    /* Its own race only: the writer's acknowledgements, and every other
     * race, are the poll's (this runs under the services' lock, on the
     * room's thread, every tick). */
    if (r)
        race_offer(svc, r);
}

/* Whether the race's end is already queued (the services queue it: the
 * racelog records laps only). */
static bool end_queued(const svc_race *r)
{
    return r->own_results;
}

/* Queues the session's end with the room's classification: every car's
 * result (rs_room_results: the finished session's classification, or the
 * running one's as it stands when it is stopped), then the end record
 * with status, and the session's results file. A session called off
 * before lights out was never run: it gets no results and ends abandoned,
 * whatever status was asked. Once per race. */
static void queue_end(rs_services *svc, svc_race *r, rs_room *room, const rs_world *world,
                      rs_store_race_status status)
{
    r->own_results = true;
    int64_t id = ((int64_t)r->race_id << SVC_RACE_SHIFT) + SVC_OWN_IDS;
    /* 32 rows of names: too large for the tick's stack; once per session. */
    rs_room_results_info *info = malloc(sizeof *info);
    if (info && rs_world_race_time_us(world) > 0 &&
        rs_svc__room_results(svc, r, room, info, &id)) {
        rs_svc__results_file(svc, r, info, status);
    } else if (rs_world_race_time_us(world) > 0) {
        /* No classification from the room (it cannot happen while the world
         * runs): the world's, as before weekends. */
        for (uint32_t i = 0; i < r->cars; i++)
            r->res[r->res_len++] = rs_racelog_result(world, (uint16_t)(i + 1), r->race_id,
                                                     &r->ent[i], id++);
    } else {
        status = RS_STORE_RACE_ABANDONED;
    }
    free(info);
    /* The last slot stands for the race's end. */
    rs_store_result *fin = &r->res[r->res_len++];
    memset(fin, 0, sizeof *fin);
    fin->caller_id = id;
    r->end_status = status;
    r->finished_at = rs_wall_time_s();
}

/* The room classified the session (its results phase): its classification
 * is what is stored, whatever the world says (the racelog records laps
 * only). */
void rs_svc__race_results(void *ctx, rs_room *room, const rs_world *world)
{
    rs_services *svc = ctx;
    svc_race *r = race_of_room(svc, room);
    if (!r || !r->log || end_queued(r))
        return;
    queue_end(svc, r, room, world, RS_STORE_RACE_FINISHED);
    race_offer(svc, r);
}

void rs_svc__races_stop(rs_services *svc)
{
    for (svc_race *r = svc->races; r; r = r->next) {
        const rs_world *world = r->room && !r->ended ? rs_room_world(r->room) : NULL;
        if (world && r->log && !end_queued(r))
            queue_end(svc, r, r->room, world, RS_STORE_RACE_STOPPED);
    }
}

void rs_svc__race_end(void *ctx, rs_room *room, const rs_world *world)
{
    rs_services *svc = ctx;
    svc_race *r = race_of_room(svc, room);
    if (!r)
        return;
    /* The world goes before the race was decided: the room is being
     * destroyed mid-race. What was raced so far is kept, as stopped. */
    if (r->log && !end_queued(r))
        queue_end(svc, r, room, world, RS_STORE_RACE_STOPPED);
    /* The log keeps what the writer could not take yet; it lives on (the
     * world does not: nothing left to record needs it) until settled. */
    pthread_mutex_lock(&svc->ids_lock);
    r->ended = true;
    pthread_mutex_unlock(&svc->ids_lock);
    r->ended_us = rs_clock_us();
    race_offer(svc, r);
}

int64_t rs_services_race_id(const rs_services *svc, const rs_room *room)
{
    if (!svc)
        return 0;
    /* Not svc->lock: a room's observer asks, with its own lock held, which
     * a hook holding svc->lock may be waiting for. ids_lock guards what is
     * read here. */
    pthread_mutex_t *lock = (pthread_mutex_t *)(uintptr_t)&svc->ids_lock;
    int64_t id = 0;
    pthread_mutex_lock(lock);
    for (const svc_race *r = svc->races; r; r = r->next)
        if (r->room == room && !r->ended) {
            id = r->log ? r->race_id : 0;
            break;
        }
    pthread_mutex_unlock(lock);
    return id;
}

void rs_svc__room_closed(void *ctx, rs_room *room)
{
    rs_services *svc = ctx;
    /* Its jobs read its stock car: they finish first, and their answers
     * are not sent. */
    rs_svc__jobs_wait_room(svc, room);
    rs_svc__later_forget(svc, room);
    for (uint32_t i = 0; i < svc->peer_cap; i++)
        if (svc->peers[i].room == room)
            svc->peers[i].room = NULL;
    pthread_mutex_lock(&svc->ids_lock);
    for (svc_race *r = svc->races; r; r = r->next)
        if (r->room == room) {
            r->room = NULL;
            if (!r->ended)
                r->ended_us = rs_clock_us();
            r->ended = true;
        }
    pthread_mutex_unlock(&svc->ids_lock);
    for (uint32_t i = 0; i < svc->room_count; i++) {
        if (svc->rooms[i] == room) {
            svc->rooms[i] = svc->rooms[--svc->room_count];
            break;
        }
    }
}

/* ------------------------------------------------- acknowledgements */

static uint8_t lap_flags(rs_services *svc, const svc_race *r, const svc_lap *l, int64_t lap_id)
{
    uint8_t flags = RS_LAP_RECORDED;
    if (!l->valid)
        return flags;
    /* The player's row on the "any tune" board points at this lap exactly
     * when it became their personal best; rank 1 is the track record. */
    /* The board of the car it drove: a room may race several. */
    rs_board_key key = {r->track_hash, r->ent[l->car - 1].base_hash, RS_PHYSICS_VERSION,
                        RS_TUNE_KEY_ANY};
    rs_lb_row row;
    char err[256];
    rs_status st = rs_leaderboard_rank(svc->lb, &key, r->ent[l->car - 1].player_id, &row, err,
                                       sizeof err);
    if (st == RS_OK && row.lap_id == lap_id) {
        flags |= RS_LAP_PERSONAL_BEST;
        if (row.rank == 1)
            flags |= RS_LAP_TRACK_RECORD;
    } else if (st != RS_OK && st != RS_ERR_MISSING) {
        rs_svc__error(svc, "leaderboard rank", err);
    }
    return flags;
}

/* A record the writer could not store: counted, and kept as the last
 * error saying what was lost and why (the writer's last error), for the
 * server's log. lap is NULL for a result or a race's end. */
static void record_lost(rs_services *svc, const rs_store_ack *a, const svc_lap *lap)
{
    svc->stats.records_failed++;
    char why[256];
    rs_store_writer_last_error(svc->writer, why, sizeof why);
    long long race = (long long)(a->caller_id >> SVC_RACE_SHIFT);
    const char *cause = why[0] ? why : rs_status_str(a->status);
    if (lap)
        rs_svc__note(svc, "race %lld: lap %u of car %u was not stored (%s), so it was not "
                     "announced as recorded: %s", race, (unsigned)lap->lap, (unsigned)lap->car,
                     rs_status_str(a->status), cause);
    else if (a->kind == RS_RECORD_RACE_FINISH)
        rs_svc__note(svc, "race %lld: its end was not stored (%s), so the next start will find "
                     "it running and mark it interrupted: %s", race, rs_status_str(a->status),
                     cause);
    else
        rs_svc__note(svc, "race %lld: a %s record (caller id %lld) was not stored (%s): %s",
                     race, a->kind == RS_RECORD_RESULT ? "result" : "lap",
                     (long long)a->caller_id, rs_status_str(a->status), cause);
}

/* The index of the lap awaiting the ack for caller_id in r, or -1. */
static ptrdiff_t awaited_lap(const svc_race *r, int64_t caller_id)
{
    for (size_t i = 0; i < r->laps_len; i++)
        if (r->laps[i].caller_id == caller_id)
            return (ptrdiff_t)i;
    return -1;
}

/* The lap_recorded line: who, which lap, its time, and what the store made
 * of it (its id, personal best, track record). */
static void log_lap(rs_services *svc, const svc_race *r, const svc_lap *l, uint8_t flags,
                    int64_t lap_id)
{
    if (!svc->log || l->car < 1 || l->car > r->cars)
        return;
    const char *name = r->names[l->car - 1];
    /* A guest's lap is stored under its "~name" row, but the guest is player 0. */
    svc_who who = {.room = NULL, .player = name, .player_id = r->player_ids[l->car - 1],
                   .address = NULL, .room_name = r->room_name};
    char time[32];
    rs_race_time_str(l->time_us, time, sizeof time);
    bool pb = flags & RS_LAP_PERSONAL_BEST, record = flags & RS_LAP_TRACK_RECORD;
    rs_services_log_field f[] = {
        {"race_id", RS_SERVICES_FIELD_INT, NULL, r->race_id},
        {"car", RS_SERVICES_FIELD_INT, NULL, l->car},
        {"lap", RS_SERVICES_FIELD_INT, NULL, l->lap},
        {"time_us", RS_SERVICES_FIELD_INT, NULL, l->time_us},
        {"lap_time", RS_SERVICES_FIELD_STR, time, 0},
        {"valid", RS_SERVICES_FIELD_BOOL, NULL, l->valid},
        {"personal_best", RS_SERVICES_FIELD_BOOL, NULL, pb},
        {"track_record", RS_SERVICES_FIELD_BOOL, NULL, record},
        {"lap_id", RS_SERVICES_FIELD_INT, NULL, lap_id}};
    rs_svc__log(svc, RS_SERVICES_LOG_INFO, "lap_recorded", &who, f, sizeof f / sizeof f[0],
                "room '%s': lap %u of %s (car %u): %s%s%s%s, stored as lap %lld of race %lld",
                r->room_name, (unsigned)l->lap, name, (unsigned)l->car, time,
                l->valid ? "" : " (invalid)", pb ? ", personal best" : "",
                record ? ", track record" : "", (long long)lap_id, (long long)r->race_id);
}

static void on_ack(rs_services *svc, const rs_store_ack *a)
{
    int64_t race_id = a->caller_id >> SVC_RACE_SHIFT;
    svc_race *r = svc->races;
    while (r && r->race_id != race_id)
        r = r->next;
    ptrdiff_t found = r && a->kind == RS_RECORD_LAP ? awaited_lap(r, a->caller_id) : -1;
    if (found < 0) {
        if (a->status != RS_OK)
            record_lost(svc, a, NULL);
        return;
    }
    size_t i = (size_t)found;
    svc_lap l = r->laps[i];
    memmove(r->laps + i, r->laps + i + 1, (r->laps_len - i - 1) * sizeof *r->laps);
    r->laps_len--;
    uint8_t flags = 0;
    if (a->status == RS_OK) {
        svc->stats.laps_recorded++;
        flags = lap_flags(svc, r, &l, a->row_id);
        log_lap(svc, r, &l, flags, a->row_id);
    } else {
        record_lost(svc, a, &l);
    }
    if (r->room)
        rs_svc__lap_flags(svc, r->room, NULL, l.car, l.lap, flags);
}

/* Records the race log gave up on (refused by the writer for good, or no
 * memory to keep them) are lost without an ack: report each new loss. */
static void check_racelog_losses(rs_services *svc, svc_race *r)
{
    if (!r->log)
        return;
    rs_racelog_stats st = rs_racelog_get_stats(r->log);
    uint64_t lost = st.refused + st.dropped;
    if (lost <= r->lost_reported)
        return;
    char what[64], why[160];
    snprintf(what, sizeof what, "race %lld", (long long)r->race_id);
    snprintf(why, sizeof why, "%llu record(s) refused by the writer or dropped for lack of "
             "memory were not stored", (unsigned long long)(lost - r->lost_reported));
    r->lost_reported = lost;
    rs_svc__error(svc, what, why);
}

/* Offers the services' own result records; returns how many are left. */
static uint32_t offer_own(rs_services *svc, svc_race *r)
{
    while (r->res_head < r->res_len) {
        const rs_store_result *res = &r->res[r->res_head];
        rs_status st;
        bool last = r->res_head + 1 == r->res_len;
        if (last)
            st = rs_store_writer_end_race(svc->writer, res->caller_id, r->race_id, r->end_status,
                                          r->finished_at);
        else
            st = rs_store_writer_put_result(svc->writer, res);
        if (st == RS_ERR_FULL)
            break;
        if (st != RS_OK) {
            char what[96];
            snprintf(what, sizeof what, "race %lld: queueing its %s (not stored)",
                     (long long)r->race_id, last ? "end" : "result");
            rs_svc__error(svc, what, rs_status_str(st));
        }
        r->res_head++;
    }
    return r->res_len - r->res_head;
}

static void race_free(svc_race *r)
{
    rs_racelog_destroy(r->log);
    free(r->laps);
    free(r->penalties);
    free(r);
}

/* Hands race r's records to the writer (its racelog's and the services'
 * own); returns how many it could not take yet. */
static size_t race_offer(rs_services *svc, svc_race *r)
{
    size_t pending = (r->log ? rs_racelog_flush(r->log) : 0) + offer_own(svc, r);
    check_racelog_losses(svc, r);
    return pending;
}

size_t rs_svc__pump(rs_services *svc)
{
    rs_store_ack acks[64];
    size_t n;
    do {
        n = rs_store_writer_poll(svc->writer, acks, 64);
        for (size_t i = 0; i < n; i++)
            on_ack(svc, &acks[i]);
    } while (n == 64);
    size_t left = 0;
    int64_t now_us = rs_clock_us();
    svc_race **pp = &svc->races;
    while (*pp) {
        svc_race *r = *pp;
        size_t pending = race_offer(svc, r);
        left += pending;
        if (r->ended && pending == 0 &&
            (r->laps_len == 0 || now_us - r->ended_us > SVC_SETTLE_US)) {
            /* Everything is the writer's now, and every lap acknowledged. */
            pthread_mutex_lock(&svc->ids_lock);
            *pp = r->next;
            pthread_mutex_unlock(&svc->ids_lock);
            race_free(r);
            continue;
        }
        pp = &r->next;
    }
    return left;
}

void rs_svc__races_free(rs_services *svc)
{
    while (svc->races) {
        svc_race *r = svc->races;
        pthread_mutex_lock(&svc->ids_lock);
        svc->races = r->next;
        pthread_mutex_unlock(&svc->ids_lock);
        if (r->log) {
            rs_racelog_stats st = rs_racelog_get_stats(r->log);
            if (st.pending) {
                char what[64], why[128];
                snprintf(what, sizeof what, "race %lld", (long long)r->race_id);
                snprintf(why, sizeof why, "%llu record(s) dropped unstored at destroy (call "
                         "rs_services_shutdown first)", (unsigned long long)st.pending);
                rs_svc__error(svc, what, why);
            }
        }
        race_free(r);
    }
}
