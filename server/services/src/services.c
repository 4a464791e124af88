/*
 * The services' front (racesim/services.h): creation over a database, the
 * hooks, and the polling and shutdown that make sure every answer goes out
 * and every lap reaches the disk.
 */
#define _POSIX_C_SOURCE 200809L /* pthread_mutexattr_settype */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/base/clock.h"
#include "services_internal.h"

rs_services_def rs_services_default(void)
{
    rs_services_def d;
    memset(&d, 0, sizeof d);
    d.allow_guests = true;
    d.max_lap_ticks = 18000;
    d.max_peers = 512;
    d.limits.requests_per_s = 20;
    d.limits.registers_per_hour = 5;
    d.limits.registers_per_minute = 30;
    return d;
}

void rs_svc__error(rs_services *svc, const char *what, const char *err)
{
    svc->stats.db_errors++;
    rs_svc__note(svc, "%s: %s", what, err ? err : "");
}

void rs_svc__log(rs_services *svc, int level, const char *event, const svc_who *who,
                 const rs_services_log_field *fields, uint32_t field_count, const char *fmt,
                 ...)
{
    if (!svc->log)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    rs_services_log_entry e;
    memset(&e, 0, sizeof e);
    e.level = level;
    e.event = event;
    if (who) {
        e.room = who->room ? rs_room_name(who->room) : who->room_name;
        e.player = who->player && who->player[0] ? who->player : NULL;
        e.player_id = who->player_id;
        e.address = who->address && who->address[0] ? who->address : NULL;
    }
    e.fields = fields;
    e.field_count = field_count;
    e.text = line;
    svc->log(svc->log_ctx, &e);
}

void rs_svc__note(rs_services *svc, const char *fmt, ...)
{
    /* Cut to fit: the message is for a log line. */
    va_list ap;
    va_start(ap, fmt);
    rs_verrf(svc->last_error, sizeof svc->last_error, fmt, ap);
    va_end(ap);
}

bool rs_svc__name_eq(const char *a, const char *b)
{
    /* ASCII case ignored: the protocol's one comparison of names, which is
     * how the store's players.name compares them too. */
    return rs_proto_name_equal(a, b);
}

void rs_svc__note_room(rs_services *svc, rs_room *room)
{
    for (uint32_t i = 0; i < svc->room_count; i++)
        if (svc->rooms[i] == room)
            return;
    if (svc->room_count == svc->room_cap) {
        uint32_t cap = svc->room_cap ? 2 * svc->room_cap : 8;
        rs_room **n = realloc(svc->rooms, cap * sizeof *n);
        if (!n)
            return; /* that room's admin bans then kick only in the room asked */
        svc->rooms = n;
        svc->room_cap = cap;
    }
    svc->rooms[svc->room_count++] = room;
}

/* ---------------------------------------------------------- lifecycle */

static rs_status copy_tracks(rs_services *svc, const rs_services_def *def, char *err,
                             size_t err_len)
{
    if (!def->track_count)
        return RS_OK;
    svc->tracks = calloc(def->track_count, sizeof *svc->tracks);
    if (!svc->tracks)
        return RS_ERR_NOMEM;
    for (uint32_t i = 0; i < def->track_count; i++) {
        const rs_services_track *t = &def->tracks[i];
        if (!t->name || !t->track || !t->json || !t->json_len) {
            snprintf(err, err_len, "services: tracks[%u]: name, track and json needed", i);
            return RS_ERR_ARG;
        }
        size_t n = strlen(t->name);
        char *name = malloc(n + 1);
        if (!name)
            return RS_ERR_NOMEM;
        memcpy(name, t->name, n + 1);
        svc->tracks[i] = *t;
        svc->tracks[i].name = name;
        svc->track_count = i + 1;
    }
    return RS_OK;
}

/* Registrations a previous run issued but never saw confirmed: their
 * clients never learned the token (or the server died first), so the names
 * are free again. */
static void forget_unconfirmed(rs_services *svc)
{
    size_t n = 0;
    char err[256];
    if (rs_store_players_forget_unconfirmed(svc->store, &n, err, sizeof err) != RS_OK)
        rs_svc__error(svc, "forgetting unconfirmed registrations", err);
    else if (n)
        rs_svc__log(svc, RS_SERVICES_LOG_INFO, "registrations_forgotten", NULL,
                    &(rs_services_log_field){"count", RS_SERVICES_FIELD_INT, NULL, (int64_t)n},
                    1, "players: %zu registrations of the last run were never confirmed by their "
                    "clients and are forgotten (the names are free again)",
                    n);
}

/* A malloc'd copy of s (strdup is POSIX, not C11). */
static char *text_dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

rs_status rs_services_create(const rs_services_def *def, rs_services **out, char *err,
                             size_t err_len)
{
    char dummy[8];
    if (!err || !err_len) {
        err = dummy;
        err_len = sizeof dummy;
    }
    err[0] = '\0';
    if (!out || !def)
        return RS_ERR_ARG;
    *out = NULL;
    if (!def->db_path || !def->db_path[0]) {
        snprintf(err, err_len, "services: a database path is needed");
        return RS_ERR_ARG;
    }
    rs_services *svc = calloc(1, sizeof *svc);
    if (!svc)
        return RS_ERR_NOMEM;
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&svc->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    pthread_mutex_init(&svc->ids_lock, NULL);
    svc->allow_guests = def->allow_guests;
    svc->max_lap_ticks = def->max_lap_ticks ? def->max_lap_ticks : 18000;
    svc->limits = def->limits;
    svc->log = def->log;
    svc->log_ctx = def->log_ctx;
    svc->worker.championships = def->championships;
    svc->worker.championship_count = def->championships ? def->championship_count : 0;
    if (def->results_dir && def->results_dir[0])
        svc->results_dir = text_dup(def->results_dir);
    svc->server_name = text_dup(def->server_name && def->server_name[0] ? def->server_name
                                                                       : "racesim");
    svc->peer_cap = def->max_peers ? def->max_peers : 512;
    svc->peers = calloc(svc->peer_cap, sizeof *svc->peers);
    svc->addresses = calloc(SVC_ADDRESS_SLOTS, sizeof *svc->addresses);
    rs_status st = svc->peers && svc->addresses && svc->server_name &&
                           (svc->results_dir || !def->results_dir || !def->results_dir[0])
                       ? RS_OK
                       : RS_ERR_NOMEM;
    if (st == RS_OK)
        st = rs_store_open(def->db_path, RS_STORE_CREATE, &svc->store, err, err_len);
    if (st == RS_OK) {
        rs_store_writer_def wd = rs_store_writer_default();
        st = rs_store_writer_open(def->db_path, &wd, &svc->writer, err, err_len);
    }
    if (st == RS_OK)
        st = rs_leaderboard_open(svc->store, &svc->lb, err, err_len);
    if (st == RS_OK)
        st = copy_tracks(svc, def, err, err_len);
    if (st == RS_OK) {
        forget_unconfirmed(svc);
        st = rs_svc__worker_start(svc, def->db_path, err, err_len);
    }
    if (st != RS_OK) {
        if (st == RS_ERR_NOMEM && !err[0])
            snprintf(err, err_len, "services: out of memory");
        rs_services_destroy(svc);
        return st;
    }
    *out = svc;
    return RS_OK;
}

/* ------------------------------------------------------ the ways in */

void rs_svc__lock(const rs_services *svc)
{
    pthread_mutex_lock((pthread_mutex_t *)(uintptr_t)&svc->lock);
}

void rs_svc__unlock(const rs_services *svc)
{
    pthread_mutex_unlock((pthread_mutex_t *)(uintptr_t)&svc->lock);
}

/* Every hook holds the lock: a room's hooks may run on its worker while
 * another room's run on another and the network thread polls. */
static void hook_race_begin(void *ctx, rs_room *room, const rs_world *world,
                            const rs_room_entrant *entrants, uint32_t count)
{
    rs_svc__lock(ctx);
    rs_svc__race_begin(ctx, room, world, entrants, count);
    rs_svc__unlock(ctx);
}

static void hook_before_step(void *ctx, rs_room *room, const rs_world *world)
{
    rs_svc__lock(ctx);
    rs_svc__before_step(ctx, room, world);
    rs_svc__unlock(ctx);
}

static void hook_car_joined(void *ctx, rs_room *room, const rs_world *world,
                            const rs_room_entrant *entrant, const rs_car_spawn *spawn)
{
    rs_svc__lock(ctx);
    rs_svc__car_joined(ctx, room, world, entrant, spawn);
    rs_svc__unlock(ctx);
}

static void hook_after_step(void *ctx, rs_room *room, const rs_world *world)
{
    rs_svc__lock(ctx);
    rs_svc__after_step(ctx, room, world);
    rs_svc__unlock(ctx);
}

static void hook_race_end(void *ctx, rs_room *room, const rs_world *world)
{
    rs_svc__lock(ctx);
    rs_svc__race_end(ctx, room, world);
    rs_svc__unlock(ctx);
}

static void hook_request(void *ctx, rs_room *room, uint32_t peer, int64_t player_id,
                         const char *name, const rs_msg *msg)
{
    rs_svc__lock(ctx);
    rs_svc__request(ctx, room, peer, player_id, name, msg);
    rs_svc__unlock(ctx);
}

static uint8_t hook_admit(void *ctx, rs_room *room, uint32_t peer, const rs_msg_hello *hello)
{
    rs_svc__lock(ctx);
    uint8_t r = rs_svc__admit(ctx, room, peer, hello);
    rs_svc__unlock(ctx);
    return r;
}

static void hook_race_results(void *ctx, rs_room *room, const rs_world *world)
{
    rs_svc__lock(ctx);
    rs_svc__race_results(ctx, room, world);
    rs_svc__unlock(ctx);
}

static void hook_closed(void *ctx, rs_room *room)
{
    rs_svc__lock(ctx);
    rs_svc__room_closed(ctx, room);
    rs_svc__unlock(ctx);
}

rs_room_hooks rs_services_hooks(rs_services *svc)
{
    /* find_track reads only the catalogue, which never changes. */
    return (rs_room_hooks){.ctx = svc,
                           .race_begin = hook_race_begin,
                           .before_step = hook_before_step,
                           .car_joined = hook_car_joined,
                           .find_track = rs_svc__find_track,
                           .after_step = hook_after_step,
                           .race_end = hook_race_end,
                           .request = hook_request,
                           .admit = hook_admit,
                           .race_results = hook_race_results,
                           .closed = hook_closed};
}

void rs_services_set_home(rs_services *svc, bool (*home)(void *ctx, const rs_room *room),
                          void *ctx)
{
    rs_svc__lock(svc);
    svc->home = home;
    svc->home_ctx = ctx;
    rs_svc__unlock(svc);
}

void rs_services_poll(rs_services *svc)
{
    if (!svc)
        return;
    rs_svc__lock(svc);
    rs_svc__later_run(svc); /* first: what waited is older than what is done now */
    rs_svc__jobs_finish(svc);
    rs_svc__bans_poll(svc);
    rs_svc__pump(svc);
    rs_svc__unlock(svc);
}

size_t rs_services_shutdown(rs_services *svc, uint32_t timeout_ms)
{
    if (!svc)
        return 0;
    rs_svc__lock(svc);
    int64_t end_us = rs_clock_us() + (int64_t)timeout_ms * 1000;
    /* A race cut short keeps its classification so far, marked stopped,
     * rather than staying "running" in the database for ever. */
    rs_svc__races_stop(svc);
    size_t left = rs_svc__pump(svc);
    for (;;) {
        /* Everything handed over so far is on disk once flush returns; the
         * acknowledgements it frees make room for what is still pending. */
        rs_store_writer_flush(svc->writer);
        left = rs_svc__pump(svc);
        if (left == 0 || rs_clock_us() >= end_us)
            break;
    }
    rs_svc__unlock(svc);
    return left;
}

void rs_services_get_stats(const rs_services *svc, rs_services_stats *out)
{
    rs_svc__lock(svc);
    *out = svc->stats;
    out->jobs_pending = rs_svc__jobs_pending(svc);
    out->laps_pending = 0;
    for (const svc_race *r = svc->races; r; r = r->next)
        out->laps_pending += r->laps_len;
    rs_svc__unlock(svc);
}

void rs_services_last_error(const rs_services *svc, char *err, size_t err_len)
{
    rs_svc__lock(svc);
    if (err && err_len)
        snprintf(err, err_len, "%s", svc->last_error);
    rs_svc__unlock(svc);
}

rs_store_writer_stats rs_services_writer_stats(rs_services *svc)
{
    return rs_store_writer_get_stats(svc ? svc->writer : NULL);
}

rs_store *rs_services_store(rs_services *svc)
{
    return svc->store;
}

void rs_services_destroy(rs_services *svc)
{
    if (!svc)
        return;
    rs_svc__worker_stop(svc);
    if (svc->writer && svc->store)
        rs_svc__pump(svc);
    rs_svc__later_run(svc); /* rooms are gone: what waited for them finishes without */
    rs_svc__later_free(svc);
    rs_svc__races_free(svc);
    rs_leaderboard_close(svc->lb);
    rs_store_writer_close(svc->writer); /* writes whatever is still queued */
    rs_store_close(svc->store);
    for (uint32_t i = 0; i < svc->track_count; i++)
        free((char *)(uintptr_t)svc->tracks[i].name);
    free(svc->tracks);
    free(svc->rooms);
    free(svc->cars_stored);
    free(svc->results_dir);
    free(svc->server_name);
    free(svc->peers);
    free(svc->addresses);
    pthread_mutex_destroy(&svc->ids_lock);
    pthread_mutex_destroy(&svc->lock);
    free(svc);
}
