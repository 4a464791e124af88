/*
 * The services' front (racesim/services.h): creation over a store, players
 * (registration, authentication, guests), the ban list, and the polling and
 * shutdown that make sure every lap reaches the disk.
 */
#include <stdarg.h>
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
    return d;
}

void rs_svc__error(rs_services *svc, const char *what, const char *err)
{
    svc->stats.db_errors++;
    rs_svc__note(svc, "%s: %s", what, err ? err : "");
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

/* --------------------------------------------------------------- bans */

static rs_status ban_add(rs_services *svc, const char *name)
{
    if (rs_services_is_banned(svc, name))
        return RS_OK;
    if (svc->ban_count == svc->ban_cap) {
        uint32_t cap = svc->ban_cap ? 2 * svc->ban_cap : 16;
        char **n = realloc(svc->bans, cap * sizeof *n);
        if (!n)
            return RS_ERR_NOMEM;
        svc->bans = n;
        svc->ban_cap = cap;
    }
    size_t len = strlen(name);
    char *copy = malloc(len + 1);
    if (!copy)
        return RS_ERR_NOMEM;
    memcpy(copy, name, len + 1);
    svc->bans[svc->ban_count++] = copy;
    return RS_OK;
}

static rs_status bans_load(rs_services *svc, const char *path, char *err, size_t err_len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return RS_OK; /* no file yet: nobody is banned */
    char line[256];
    rs_status st = RS_OK;
    while (st == RS_OK && fgets(line, sizeof line, f)) {
        size_t n = strcspn(line, "\r\n");
        line[n] = '\0';
        if (n == 0 || line[0] == '#' || n > RS_PROTO_NAME_MAX)
            continue;
        st = ban_add(svc, line);
    }
    if (ferror(f)) {
        snprintf(err, err_len, "%s: cannot read the ban list", path);
        st = RS_ERR_IO;
    }
    fclose(f);
    return st;
}

bool rs_services_is_banned(const rs_services *svc, const char *name)
{
    for (uint32_t i = 0; i < svc->ban_count; i++)
        if (rs_svc__name_eq(svc->bans[i], name))
            return true;
    return false;
}

rs_status rs_services_ban(rs_services *svc, const char *name)
{
    if (!svc || !name || !name[0] || strlen(name) > RS_PROTO_NAME_MAX)
        return RS_ERR_ARG;
    bool had = rs_services_is_banned(svc, name);
    rs_status st = ban_add(svc, name);
    for (uint32_t i = 0; i < svc->room_count; i++)
        rs_room_kick(svc->rooms[i], name, RS_REASON_BANNED, "banned by an administrator");
    if (st != RS_OK || had || !svc->ban_path)
        return st;
    FILE *f = fopen(svc->ban_path, "a");
    if (!f || fprintf(f, "%s\n", name) < 0 || fclose(f) != 0) {
        rs_svc__error(svc, svc->ban_path, "cannot append to the ban list");
        return RS_ERR_IO;
    }
    return RS_OK;
}

/* ------------------------------------------------------------ players */

bool rs_services_auth(void *ctx, const char *name, const char *token, int64_t *player_id,
                      char *text, size_t text_cap)
{
    rs_services *svc = ctx;
    char err[256];
    *player_id = 0;
    if (rs_services_is_banned(svc, name)) {
        svc->stats.auth_refused++;
        snprintf(text, text_cap, "you are banned from this server");
        *player_id = -(int64_t)RS_REASON_BANNED;
        return false;
    }
    if (token && token[0]) {
        rs_status st = rs_store_player_auth(svc->store, name, token, player_id, err, sizeof err);
        if (st == RS_OK)
            return true;
        *player_id = 0;
        svc->stats.auth_refused++;
        if (st == RS_ERR_MISMATCH) {
            snprintf(text, text_cap, "unknown player or wrong token");
        } else {
            rs_svc__error(svc, "authentication", err);
            snprintf(text, text_cap, "the server cannot check players right now");
        }
        return false;
    }
    if (name[0] == '~') {
        svc->stats.auth_refused++;
        snprintf(text, text_cap, "names starting with ~ are reserved");
        return false;
    }
    int64_t id = 0;
    rs_status st = rs_store_player_find(svc->store, name, &id, err, sizeof err);
    if (st == RS_OK) {
        svc->stats.auth_refused++;
        snprintf(text, text_cap, "the name %s is registered: connect with its token", name);
        return false;
    }
    if (st != RS_ERR_MISSING) {
        rs_svc__error(svc, "player lookup", err);
        svc->stats.auth_refused++;
        snprintf(text, text_cap, "the server cannot check players right now");
        return false;
    }
    if (!svc->allow_guests) {
        svc->stats.auth_refused++;
        snprintf(text, text_cap, "this server accepts registered players only");
        return false;
    }
    return true; /* a guest */
}

static bool register_player(void *ctx, const char *name, int64_t *player_id, char token[65],
                         bool *name_taken, char *text, size_t text_cap)
{
    rs_services *svc = ctx;
    char err[256];
    *name_taken = false;
    if (rs_services_is_banned(svc, name)) {
        snprintf(text, text_cap, "you are banned from this server");
        return false;
    }
    if (name[0] == '~') {
        /* "~name" rows hold guests' laps. */
        snprintf(text, text_cap, "names starting with ~ are reserved");
        return false;
    }
    /* The decoder has already applied the name rules; asking again here
     * keeps "taken" below the store's only other reason for RS_ERR_RANGE. */
    char why[160];
    if (!rs_proto_name_check(name, strlen(name), why, sizeof why)) {
        const char *rule = strstr(why, ": ");
        snprintf(text, text_cap, "your player name is not allowed: %s", rule ? rule + 2 : why);
        return false;
    }
    rs_status st = rs_store_player_register(svc->store, name, rs_wall_time_s(), player_id, token,
                                            err, sizeof err);
    if (st == RS_ERR_RANGE) {
        *name_taken = true;
        snprintf(text, text_cap, "the name %s is taken", name);
        return false;
    }
    if (st != RS_OK) {
        rs_svc__error(svc, "registration", err);
        snprintf(text, text_cap, "the server cannot register players right now");
        return false;
    }
    svc->stats.registered++;
    return true;
}

/* ---------------------------------------------------------- lifecycle */

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
    if (!def->db_path && (!def->store || !def->writer)) {
        snprintf(err, err_len, "services: a database path, or a store and a writer, needed");
        return RS_ERR_ARG;
    }
    if (def->admin_secret && strlen(def->admin_secret) > RS_PROTO_SECRET_MAX) {
        snprintf(err, err_len, "services: admin secret longer than 64 bytes");
        return RS_ERR_RANGE;
    }
    rs_services *svc = calloc(1, sizeof *svc);
    if (!svc)
        return RS_ERR_NOMEM;
    rs_status st = RS_OK;
    svc->allow_guests = def->allow_guests;
    svc->max_lap_ticks = def->max_lap_ticks ? def->max_lap_ticks : 18000;
    if (def->admin_secret) {
        svc->secret_len = strlen(def->admin_secret);
        memcpy(svc->secret, def->admin_secret, svc->secret_len);
    }
    if (def->store && def->writer) {
        svc->store = def->store;
        svc->writer = def->writer;
    } else {
        st = rs_store_open(def->db_path, RS_STORE_CREATE, &svc->store, err, err_len);
        if (st != RS_OK)
            goto fail;
        svc->own_store = true;
        rs_store_writer_def wd = rs_store_writer_default();
        st = rs_store_writer_open(def->db_path, &wd, &svc->writer, err, err_len);
        if (st != RS_OK)
            goto fail;
        svc->own_writer = true;
    }
    st = rs_leaderboard_open(svc->store, &svc->lb, err, err_len);
    if (st != RS_OK)
        goto fail;
    for (uint32_t i = 0; i < def->ban_count && st == RS_OK; i++)
        if (def->bans[i] && def->bans[i][0])
            st = ban_add(svc, def->bans[i]);
    if (st == RS_OK && def->ban_path) {
        size_t n = strlen(def->ban_path);
        svc->ban_path = malloc(n + 1);
        if (!svc->ban_path)
            st = RS_ERR_NOMEM;
        else {
            memcpy(svc->ban_path, def->ban_path, n + 1);
            st = bans_load(svc, def->ban_path, err, err_len);
        }
    }
    if (st != RS_OK)
        goto fail;
    if (def->track_count) {
        svc->tracks = calloc(def->track_count, sizeof *svc->tracks);
        if (!svc->tracks) {
            st = RS_ERR_NOMEM;
            goto fail;
        }
        for (uint32_t i = 0; i < def->track_count; i++) {
            const rs_services_track *t = &def->tracks[i];
            if (!t->name || !t->track || !t->json || !t->json_len) {
                snprintf(err, err_len, "services: tracks[%u]: name, track and json needed", i);
                st = RS_ERR_ARG;
                goto fail;
            }
            size_t n = strlen(t->name);
            char *name = malloc(n + 1);
            if (!name) {
                st = RS_ERR_NOMEM;
                goto fail;
            }
            memcpy(name, t->name, n + 1);
            svc->tracks[i] = *t;
            svc->tracks[i].name = name;
            svc->track_count = i + 1;
        }
    }
    *out = svc;
    return RS_OK;
fail:
    if (st == RS_ERR_NOMEM && !err[0])
        snprintf(err, err_len, "services: out of memory");
    rs_services_destroy(svc);
    return st;
}

rs_room_hooks rs_services_hooks(rs_services *svc)
{
    return (rs_room_hooks){.ctx = svc,
                           .race_begin = rs_svc__race_begin,
                           .before_step = rs_svc__before_step,
                           .after_step = rs_svc__after_step,
                           .race_end = rs_svc__race_end,
                           .request = rs_svc__request,
                           .register_player = register_player,
                           .race_results = rs_svc__race_results,
                           .closed = rs_svc__room_closed};
}

void rs_services_poll(rs_services *svc)
{
    if (svc)
        rs_svc__pump(svc);
}

size_t rs_services_shutdown(rs_services *svc, uint32_t timeout_ms)
{
    if (!svc)
        return 0;
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
    return left;
}

void rs_services_get_stats(const rs_services *svc, rs_services_stats *out)
{
    *out = svc->stats;
    out->laps_pending = 0;
    for (const svc_race *r = svc->races; r; r = r->next)
        out->laps_pending += r->laps_len;
}

void rs_services_last_error(const rs_services *svc, char *err, size_t err_len)
{
    if (err && err_len)
        snprintf(err, err_len, "%s", svc->last_error);
}

rs_store *rs_services_store(rs_services *svc)
{
    return svc->store;
}

void rs_services_destroy(rs_services *svc)
{
    if (!svc)
        return;
    if (svc->writer && svc->store)
        rs_svc__pump(svc);
    rs_svc__races_free(svc);
    rs_leaderboard_close(svc->lb);
    if (svc->own_writer)
        rs_store_writer_close(svc->writer); /* writes whatever is still queued */
    if (svc->own_store)
        rs_store_close(svc->store);
    for (uint32_t i = 0; i < svc->ban_count; i++)
        free(svc->bans[i]);
    free(svc->bans);
    free(svc->ban_path);
    for (uint32_t i = 0; i < svc->track_count; i++)
        free((char *)(uintptr_t)svc->tracks[i].name);
    free(svc->tracks);
    free(svc->rooms);
    free(svc->cars_stored);
    free(svc);
}
