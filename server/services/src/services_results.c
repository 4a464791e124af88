#define _POSIX_C_SOURCE 200809L /* fsync, fileno, gmtime_r, strdup */
/*
 * Results and championships in the services (docs/RESULTS.md):
 *  - a session's results are the room's classification (rs_room_results),
 *    turned into result records for the writer at the session's end;
 *  - its results file, <room>-<race id>-<session>.json in results_dir, is
 *    written on the database thread from a copy of that classification
 *    (the tick never waits on disk), to a temporary file renamed over the
 *    final name, so a reader never sees half a file;
 *  - STANDINGS_REQUEST is answered on the database thread from the stored
 *    results (racesim/championship.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "racesim/base/clock.h"
#include "services_internal.h"

rs_store_session_type rs_svc__session_type(uint8_t proto_type)
{
    switch (proto_type) {
    case RS_SESSION_PRACTICE: return RS_STORE_SESSION_PRACTICE;
    case RS_SESSION_QUALIFYING: return RS_STORE_SESSION_QUALIFYING;
    case RS_SESSION_WARMUP: return RS_STORE_SESSION_WARMUP;
    default: return RS_STORE_SESSION_RACE;
    }
}

static rs_store_result_status store_status(uint8_t proto_status)
{
    switch (proto_status) {
    case RS_CLASSIFIED: return RS_STORE_RESULT_CLASSIFIED;
    case RS_DISQUALIFIED: return RS_STORE_RESULT_DISQUALIFIED;
    default: return RS_STORE_RESULT_NOT_CLASSIFIED;
    }
}

static rs_store_penalty_kind store_kind(uint8_t kind)
{
    switch (kind) {
    case RS_PENALTY_TIME: return RS_STORE_PENALTY_TIME;
    case RS_PENALTY_DSQ: return RS_STORE_PENALTY_DSQ;
    default: return RS_STORE_PENALTY_WARNING;
    }
}

static rs_store_offence store_offence(uint8_t offence)
{
    switch (offence) {
    case RS_OFFENCE_TRACK_LIMITS: return RS_STORE_OFFENCE_TRACK_LIMITS;
    case RS_OFFENCE_CONTACT: return RS_STORE_OFFENCE_CONTACT;
    case RS_OFFENCE_JUMP_START: return RS_STORE_OFFENCE_JUMP_START;
    default: return RS_STORE_OFFENCE_ADMIN;
    }
}

/* Car's penalties of info, appended to r->penalties for the result res
 * (the array was sized for every penalty of the session). */
static void result_penalties(svc_race *r, const rs_room_results_info *info, uint8_t car,
                             rs_store_result *res, uint32_t *used)
{
    res->penalties = r->penalties + *used;
    res->penalty_count = 0;
    for (uint32_t k = 0; k < info->penalty_count; k++) {
        const rs_room_penalty *p = &info->penalties[k];
        if (p->car != car)
            continue;
        rs_store_penalty *o = &r->penalties[(*used)++];
        memset(o, 0, sizeof *o);
        o->id = p->id;
        o->kind = store_kind(p->kind);
        o->offence = store_offence(p->offence);
        o->seconds = p->seconds;
        o->tick = p->tick;
        o->race_time_us = p->race_time_us;
        snprintf(o->reason, sizeof o->reason, "%s", p->reason);
        o->removed = p->removed;
        o->removed_tick = p->removed_tick;
        o->removed_race_time_us = p->removed_race_time_us;
        snprintf(o->removed_reason, sizeof o->removed_reason, "%s", p->removed_reason);
        res->penalty_count++;
    }
    if (res->penalty_count == 0)
        res->penalties = NULL;
}

bool rs_svc__room_results(rs_services *svc, svc_race *r, rs_room *room,
                          rs_room_results_info *info, int64_t *id)
{
    if (!room || !rs_room_results(room, info))
        return false;
    const rs_world *world = rs_room_world(room);
    /* Once per race (queue_end): every result's penalties in one array
     * that lives as long as the race's records. */
    uint32_t used = 0;
    free(r->penalties);
    r->penalties = info->penalty_count ? calloc(info->penalty_count, sizeof *r->penalties)
                                       : NULL;
    if (info->penalty_count && !r->penalties) {
        char what[64];
        snprintf(what, sizeof what, "race %lld", (long long)r->race_id);
        rs_svc__error(svc, what, "out of memory: its penalties are not stored");
    }
    for (uint32_t i = 0; i < info->count; i++) {
        const rs_room_result_row *o = &info->rows[i];
        uint8_t car = o->row.car;
        if (car < 1 || car > r->cars)
            continue; /* a car whose entrant the services could not take */
        /* The hits are the world's; everything else is the room's. */
        rs_store_result res = rs_racelog_result(world, car, r->race_id, &r->ent[car - 1], *id);
        (*id)++;
        res.position = o->row.position;
        res.finished = o->row.finish_us >= 0;
        res.finish_us = o->row.finish_us;
        res.laps_completed = o->row.laps;
        res.best_lap_us = o->row.best_lap_us;
        res.status = store_status(o->row.status);
        res.class_position = o->row.class_position ? o->row.class_position : o->row.position;
        snprintf(res.class_name, sizeof res.class_name, "%s", o->class_name);
        res.penalty_ms = o->row.penalty_ms;
        res.laps_led = o->row.laps_led;
        res.car_number = o->number;
        res.fastest_lap = o->fastest_lap;
        if (r->penalties)
            result_penalties(r, info, car, &res, &used);
        r->res[r->res_len++] = res;
    }
    return true;
}

/* ------------------------------------------------------- results files */

struct svc_results_file {
    char *dir;
    char server[64];
    char room[RS_PROTO_NAME_MAX + 1];
    char track[64];
    uint64_t track_hash;
    int64_t race_id, started_at, ended_at;
    rs_store_race_status status;
    rs_room_results_info info; /* its borrowed pointers cleared, but penalties: */
    rs_room_penalty *penalties; /* info.penalties, copied (owned) */
};

void rs_svc__results_file_free(svc_results_file *f)
{
    if (f) {
        free(f->dir);
        free(f->penalties);
        free(f);
    }
}

/* info's penalties, copied for f: the room's list is borrowed only until
 * the tick goes on, and the file is written later on the database thread. */
static bool copy_penalties(svc_results_file *f, const rs_room_results_info *info)
{
    f->info.penalties = NULL;
    f->info.penalty_count = 0;
    if (!info->penalty_count)
        return true;
    f->penalties = malloc(info->penalty_count * sizeof *f->penalties);
    if (!f->penalties)
        return false;
    memcpy(f->penalties, info->penalties, info->penalty_count * sizeof *f->penalties);
    f->info.penalties = f->penalties;
    f->info.penalty_count = info->penalty_count;
    return true;
}

void rs_svc__results_file(rs_services *svc, const svc_race *r, const rs_room_results_info *info,
                          rs_store_race_status status)
{
    if (!svc->results_dir)
        return;
    svc_results_file *f = calloc(1, sizeof *f);
    svc_job *job = f ? rs_svc__job_new(svc, SVC_JOB_RESULTS_FILE, NULL, 0, 0, "") : NULL;
    if (f) {
        f->dir = strdup(svc->results_dir);
        f->info = *info;
    }
    if (!job || !f->dir || !copy_penalties(f, info)) {
        rs_svc__results_file_free(f);
        rs_svc__job_free(job);
        rs_svc__error(svc, "a results file", "out of memory: not written");
        return;
    }
    snprintf(f->server, sizeof f->server, "%s", svc->server_name);
    snprintf(f->room, sizeof f->room, "%s", info->room ? info->room : r->room_name);
    snprintf(f->track, sizeof f->track, "%s", info->track ? rs_track_name(info->track) : "");
    f->track_hash = r->track_hash;
    f->race_id = r->race_id;
    f->started_at = r->started_at;
    f->ended_at = rs_wall_time_s();
    f->status = status;
    f->info.room = NULL;
    f->info.track = NULL;
    job->file = f;
    if (!rs_svc__submit(svc, job)) {
        rs_svc__job_free(job);
        rs_svc__error(svc, "a results file", "the database thread's queue is full: not written");
    }
}

static void put_str(FILE *o, const char *s)
{
    fputc('"', o);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(o, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(o, "\\u%04x", *p);
        else
            fputc(*p, o);
    }
    fputc('"', o);
}

static void put_time(FILE *o, int64_t us)
{
    if (us < 0)
        fputs("null", o);
    else
        fprintf(o, "%lld", (long long)us);
}

static void put_utc(FILE *o, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[32];
    if (gmtime_r(&tt, &tm) && strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm))
        put_str(o, buf);
    else
        fputs("null", o);
}

static const char *const status_words[RS_RESULT_STATUS_COUNT] = {
    [RS_CLASSIFIED] = "classified", [RS_NOT_CLASSIFIED] = "not_classified",
    [RS_DISQUALIFIED] = "disqualified"};

static const char *const kind_words[RS_PENALTY_KIND_COUNT] = {
    [RS_PENALTY_TIME] = "time", [RS_PENALTY_DSQ] = "dsq", [RS_PENALTY_WARNING] = "warning"};
static const char *const offence_words[RS_OFFENCE_COUNT] = {
    [RS_OFFENCE_TRACK_LIMITS] = "track_limits", [RS_OFFENCE_CONTACT] = "contact",
    [RS_OFFENCE_JUMP_START] = "jump_start", [RS_OFFENCE_ADMIN] = "admin"};

/* One penalty: what, for what, by whom, when and why; and its removal,
 * which only an administrator can make. */
static void put_penalty(FILE *o, const rs_room_penalty *p)
{
    bool admin = p->offence == RS_OFFENCE_ADMIN;
    fprintf(o, "{\"id\": %u, \"kind\": \"%s\", \"seconds\": %u, \"offence\": \"%s\", "
               "\"by\": \"%s\", \"reason\": ",
            (unsigned)p->id, p->kind < RS_PENALTY_KIND_COUNT ? kind_words[p->kind] : "warning",
            (unsigned)p->seconds,
            p->offence < RS_OFFENCE_COUNT ? offence_words[p->offence] : "admin",
            admin ? "admin" : "race_control");
    put_str(o, p->reason);
    fprintf(o, ", \"tick\": %llu, \"race_time_us\": %lld, \"removed\": %s, \"removal\": ",
            (unsigned long long)p->tick, (long long)p->race_time_us,
            p->removed ? "true" : "false");
    if (!p->removed) {
        fputs("null}", o);
        return;
    }
    fputs("{\"by\": \"admin\", \"reason\": ", o);
    put_str(o, p->removed_reason);
    fprintf(o, ", \"tick\": %llu, \"race_time_us\": %lld}}",
            (unsigned long long)p->removed_tick, (long long)p->removed_race_time_us);
}

/* The penalties of row's car, in the order they were given. */
static void put_row_penalties(FILE *o, const rs_room_results_info *in,
                              const rs_room_result_row *row)
{
    fputc('[', o);
    uint32_t n = 0;
    for (uint32_t k = 0; k < in->penalty_count; k++) {
        if (in->penalties[k].car != row->row.car)
            continue;
        fputs(n++ ? ",\n       " : "\n       ", o);
        put_penalty(o, &in->penalties[k]);
    }
    fputs(n ? "\n     ]" : "]", o);
}

/* The gap of row to the leader: a race by laps, then (on the leader's lap)
 * by finish time with penalties; other sessions by best lap. */
static void put_gap(FILE *o, const rs_room_results_info *in, const rs_room_result_row *row,
                    bool race)
{
    const rs_room_result_row *lead = &in->rows[0];
    if (row == lead) {
        fputs("{\"laps\": 0, \"time_us\": 0}", o);
        return;
    }
    if (race) {
        uint32_t down = lead->row.laps > row->row.laps ? lead->row.laps - row->row.laps : 0;
        bool timed = down == 0 && row->row.finish_us >= 0 && lead->row.finish_us >= 0;
        int64_t t = timed ? row->row.finish_us + (int64_t)row->row.penalty_ms * 1000 -
                                (lead->row.finish_us + (int64_t)lead->row.penalty_ms * 1000)
                          : -1;
        fprintf(o, "{\"laps\": %u, \"time_us\": ", (unsigned)down);
        put_time(o, t);
        fputc('}', o);
        return;
    }
    int64_t t = row->row.best_lap_us >= 0 && lead->row.best_lap_us >= 0
                    ? row->row.best_lap_us - lead->row.best_lap_us
                    : -1;
    fputs("{\"laps\": 0, \"time_us\": ", o);
    put_time(o, t);
    fputc('}', o);
}

static void put_results(FILE *o, const svc_results_file *f)
{
    const rs_room_results_info *in = &f->info;
    bool race = in->session.type == RS_SESSION_RACE;
    const char *type = rs_proto_session_type_name(in->session.type);
    char hash[17];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)f->track_hash);
    fputs("{\n  \"format\": 1,\n  \"server\": ", o);
    put_str(o, f->server);
    fputs(",\n  \"room\": ", o);
    put_str(o, f->room);
    fputs(",\n  \"race_id\": ", o);
    fprintf(o, "%lld", (long long)f->race_id);
    fputs(",\n  \"track\": {\"name\": ", o);
    put_str(o, f->track);
    fprintf(o, ", \"hash\": \"%s\"},\n", hash);
    fprintf(o, "  \"weekend\": %u,\n  \"race_number\": %u,\n", (unsigned)in->weekend,
            (unsigned)in->race_number);
    fprintf(o, "  \"session\": {\"type\": \"%s\", \"index\": %u, \"laps\": ", type,
            (unsigned)in->session_index);
    if (in->session.laps)
        fprintf(o, "%u", (unsigned)in->session.laps);
    else
        fputs("null", o);
    fputs(", \"time_limit_s\": ", o);
    if (in->session.time_limit_s)
        fprintf(o, "%u", (unsigned)in->session.time_limit_s);
    else
        fputs("null", o);
    fprintf(o, "},\n  \"status\": \"%s\",\n", rs_store_race_status_name(f->status));
    fprintf(o, "  \"started_at\": %lld,\n  \"started_at_utc\": ", (long long)f->started_at);
    put_utc(o, f->started_at);
    fprintf(o, ",\n  \"ended_at\": %lld,\n  \"ended_at_utc\": ", (long long)f->ended_at);
    put_utc(o, f->ended_at);
    fprintf(o, ",\n  \"race_time_us\": %lld,\n  \"fastest_lap\": ",
            (long long)(in->race_time_us > 0 ? in->race_time_us : 0));
    const rs_room_result_row *fl = NULL;
    for (uint32_t i = 0; i < in->count; i++)
        if (in->rows[i].fastest_lap)
            fl = &in->rows[i];
    if (fl) {
        fputs("{\"driver\": ", o);
        put_str(o, fl->driver);
        fprintf(o, ", \"car\": %u, \"time_us\": %lld}", (unsigned)fl->row.car,
                (long long)fl->row.best_lap_us);
    } else {
        fputs("null", o);
    }
    fputs(",\n  \"results\": [", o);
    for (uint32_t i = 0; i < in->count; i++) {
        const rs_room_result_row *r = &in->rows[i];
        fprintf(o, "%s\n    {\"position\": %u, \"class\": ", i ? "," : "",
                (unsigned)r->row.position);
        if (r->class_name[0])
            put_str(o, r->class_name);
        else
            fputs("null", o);
        fprintf(o, ", \"class_position\": %u, \"driver\": ",
                (unsigned)(r->row.class_position ? r->row.class_position : r->row.position));
        put_str(o, r->driver);
        fprintf(o, ", \"player_id\": %lld, \"car\": ", (long long)r->player_id);
        put_str(o, r->car_name);
        fprintf(o, ", \"car_slot\": %u, \"number\": ", (unsigned)r->row.car);
        if (r->number)
            fprintf(o, "%u", (unsigned)r->number);
        else
            fputs("null", o);
        fprintf(o, ", \"status\": \"%s\", \"laps\": %u, \"finish_time_us\": ",
                r->row.status < RS_RESULT_STATUS_COUNT ? status_words[r->row.status]
                                                       : "not_classified",
                (unsigned)r->row.laps);
        put_time(o, r->row.finish_us);
        fputs(", \"gap\": ", o);
        put_gap(o, in, r, race);
        fputs(", \"best_lap_us\": ", o);
        put_time(o, r->row.best_lap_us);
        fprintf(o, ", \"fastest_lap\": %s, \"laps_led\": %u, \"penalty_ms\": %u, "
                   "\"penalty_s\": %u.%03u, \"penalties\": ",
                r->fastest_lap ? "true" : "false", (unsigned)r->row.laps_led,
                (unsigned)r->row.penalty_ms, (unsigned)(r->row.penalty_ms / 1000),
                (unsigned)(r->row.penalty_ms % 1000));
        put_row_penalties(o, in, r);
        fputc('}', o);
    }
    fputs("\n  ]\n}\n", o);
}

/* The file's name: <room>-<race id>-<session type>.json, the room's name
 * kept to letters, digits, '-', '_' and '.' (anything else, a leading dot
 * included, becomes '_'), so no name can leave the directory. */
static void file_name(const svc_results_file *f, char *out, size_t cap)
{
    char room[RS_PROTO_NAME_MAX + 1];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)f->room; *p && n + 1 < sizeof room;
         p++) {
        bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                  (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || (*p == '.' && n > 0);
        room[n++] = ok ? (char)*p : '_';
    }
    room[n] = '\0';
    uint8_t t = f->info.session.type;
    snprintf(out, cap, "%s-%lld-%s.json", n ? room : "room", (long long)f->race_id,
             rs_proto_session_type_name(t));
}

static void run_results_file(svc_job *job)
{
    const svc_results_file *f = job->file;
    char name[128], path[4200], tmp[4200];
    file_name(f, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", f->dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", f->dir, name);
    FILE *o = fopen(tmp, "w");
    if (!o) {
        rs_errf(job->error, sizeof job->error, "%s: %s (not written)", tmp, strerror(errno));
        return;
    }
    put_results(o, f);
    /* On the disk before it takes the final name: a crash leaves the old
     * state or the whole file, never an empty one under the real name. */
    bool ok = fflush(o) == 0 && fsync(fileno(o)) == 0;
    int saved = errno;
    ok = fclose(o) == 0 && ok;
    if (ok && rename(tmp, path) != 0) {
        saved = errno;
        ok = false;
    }
    if (!ok) {
        rs_errf(job->error, sizeof job->error, "%s: %s (not written)", path, strerror(saved));
        remove(tmp);
        return;
    }
    job->log_level = RS_SERVICES_LOG_INFO;
    job->log_event = "results_file";
    rs_errf(job->log, sizeof job->log, "room '%s': results of race %lld (%s) written to %s",
             f->room, (long long)f->race_id, name, path);
}

/* ---------------------------------------------------------- standings */

/* The championship named name (any case), or NULL. */
static const rs_championship_def *championship(const svc_worker *w, const char *name)
{
    for (uint32_t i = 0; i < w->championship_count; i++)
        if (rs_svc__name_eq(w->championships[i].name, name))
            return &w->championships[i];
    return NULL;
}

static void run_standings(svc_worker *w, svc_job *job)
{
    const rs_msg_standings_request *q = &job->msg.u.standings_request;
    job->reply.type = RS_MSG_STANDINGS_REPLY;
    rs_msg_standings_reply *a = &job->reply.u.standings_reply;
    *a = (rs_msg_standings_reply){.request_id = q->request_id, .offset = q->offset};
    const rs_championship_def *c = q->championship[0] ? championship(w, q->championship) : NULL;
    if (!c) {
        a->result = RS_RESULT_NOT_FOUND;
        return;
    }
    snprintf(a->championship, sizeof a->championship, "%s", c->name);
    rs_championship_row rows[RS_PROTO_STANDINGS_ROWS];
    uint32_t total = 0;
    uint32_t limit = q->count < RS_PROTO_STANDINGS_ROWS ? q->count : RS_PROTO_STANDINGS_ROWS;
    rs_status st = rs_store_standings(w->store, c, q->class_name, q->offset, rows, limit, &total,
                                      job->error, sizeof job->error);
    if (st != RS_OK) {
        a->result = RS_RESULT_ERROR;
        return;
    }
    a->result = RS_RESULT_OK;
    a->total = total;
    for (uint32_t i = 0; i < limit && q->offset + i < total; i++) {
        rs_proto_standing_row *o = &a->rows[a->count++];
        o->position = rows[i].position;
        size_t len = strlen(rows[i].name);
        if (rs_proto_name_check(rows[i].name, len, NULL, 0))
            memcpy(o->name, rows[i].name, len + 1);
        else /* a name from before the name rules (docs/PERSISTENCE.md, "Player names") */
            snprintf(o->name, sizeof o->name, "(player %lld)", (long long)rows[i].player_id);
        snprintf(o->class_name, sizeof o->class_name, "%s", rows[i].class_name);
        o->points = rows[i].points;
        o->events = (uint16_t)(rows[i].events < 65535 ? rows[i].events : 65535);
        o->wins = (uint16_t)(rows[i].wins < 65535 ? rows[i].wins : 65535);
    }
}

void rs_svc__run_results(svc_worker *w, svc_job *job)
{
    if (job->kind == SVC_JOB_STANDINGS)
        run_standings(w, job);
    else if (job->kind == SVC_JOB_RESULTS_FILE && job->file)
        run_results_file(job);
}
