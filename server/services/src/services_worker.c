/*
 * The services' database thread (services_internal.h): admissions and
 * requests are jobs it runs on its own store connection, so that no
 * request can delay a tick. The room's thread submits a job and forgets
 * it; the thread runs jobs in order and hands them back; rs_services_poll
 * finishes them (sends the answer, seats the player, kicks the banned)
 * once their room is home (services_later.c). A job never touches the room or the services' own
 * state on the database thread: it reads what was copied into it and
 * writes only its results.
 */
#define _GNU_SOURCE /* syscall */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "services_internal.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

svc_job *rs_svc__job_new(rs_services *svc, uint8_t kind, rs_room *room, uint32_t peer,
                         int64_t player_id, const char *name)
{
    svc_job *job = calloc(1, sizeof *job);
    if (!job)
        return NULL;
    job->kind = kind;
    job->room = room;
    job->peer = peer;
    job->player_id = player_id;
    snprintf(job->name, sizeof job->name, "%s", name ? name : "");
    const svc_peer *p = rs_svc__peer(svc, peer);
    if (p) {
        snprintf(job->address, sizeof job->address, "%s", p->address);
        job->ipv4 = p->ipv4;
    } else {
        snprintf(job->address, sizeof job->address, "?");
    }
    return job;
}

void rs_svc__job_free(svc_job *job)
{
    if (!job)
        return;
    rs_car_params_destroy(job->tuned);
    free(job->checks);
    rs_svc__results_file_free(job->file);
    free(job);
}

/* Who a connection is (services_admit.c), or a request it makes
 * (services_requests.c). */
static bool identity_job(const svc_job *job)
{
    return job->kind == SVC_JOB_ADMIT || job->kind == SVC_JOB_CONFIRM ||
           job->kind == SVC_JOB_FORGET || job->kind == SVC_JOB_ROTATE ||
           job->kind == SVC_JOB_ROTATE_COMMIT || job->kind == SVC_JOB_BANS;
}

static void run(svc_worker *w, svc_job *job)
{
    if (identity_job(job))
        rs_svc__run_identity(w, job);
    else if (job->kind == SVC_JOB_STANDINGS || job->kind == SVC_JOB_RESULTS_FILE)
        rs_svc__run_results(w, job);
    else
        rs_svc__run_request(w, job);
}

/* The ticks come first: on a machine with few cores the database thread
 * (validating tunes, waiting for fsyncs, answering pages) must not take
 * the CPU from the room's thread. Linux lets one thread be nicer than the
 * rest of its process; elsewhere it keeps the process's priority. */
static void yield_to_the_ticks(void)
{
#ifdef __linux__
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10) != 0) {
        /* not allowed: the thread keeps the priority it has */
    }
#endif
}

static void *worker_main(void *arg)
{
    svc_worker *w = arg;
    yield_to_the_ticks();
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->todo_len == 0 && !w->stop)
            pthread_cond_wait(&w->wake, &w->lock);
        if (w->todo_len == 0 && w->stop)
            break;
        svc_job *job = w->todo[w->todo_head];
        w->todo_head = (w->todo_head + 1) % SVC_QUEUE;
        w->todo_len--;
        w->running++;
        pthread_mutex_unlock(&w->lock);
        run(w, job);
        pthread_mutex_lock(&w->lock);
        /* done has room: a job is in exactly one place, and both rings
         * hold SVC_QUEUE. */
        w->done[(w->done_head + w->done_len) % SVC_QUEUE] = job;
        w->done_len++;
        w->running--;
        pthread_cond_broadcast(&w->settled);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

rs_status rs_svc__worker_start(rs_services *svc, const char *db_path, char *err, size_t err_len)
{
    svc_worker *w = &svc->worker;
    w->allow_guests = svc->allow_guests;
    w->bans_version = -1;
    w->todo = calloc(SVC_QUEUE, sizeof *w->todo);
    w->done = calloc(SVC_QUEUE, sizeof *w->done);
    if (!w->todo || !w->done)
        return RS_ERR_NOMEM;
    /* Its own connection: SQLite connections are not shared between
     * threads here, and WAL lets it read while the writer writes. */
    rs_status st = rs_store_open(db_path, 0, &w->store, err, err_len);
    if (st == RS_OK)
        st = rs_leaderboard_open(w->store, &w->lb, err, err_len);
    if (st != RS_OK)
        return st;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    pthread_cond_init(&w->settled, NULL);
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
        snprintf(err, err_len, "services: cannot start the database thread");
        pthread_cond_destroy(&w->settled);
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        return RS_ERR_IO;
    }
    w->started = true;
    return RS_OK;
}

void rs_svc__worker_stop(rs_services *svc)
{
    svc_worker *w = &svc->worker;
    if (w->started) {
        pthread_mutex_lock(&w->lock);
        w->stop = true;
        pthread_cond_broadcast(&w->wake);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
        /* What it finished still gets its answer if the rooms are there. */
        rs_svc__jobs_finish(svc);
        pthread_cond_destroy(&w->settled);
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        w->started = false;
    }
    for (size_t i = 0; w->todo && i < w->todo_len; i++)
        rs_svc__job_free(w->todo[(w->todo_head + i) % SVC_QUEUE]);
    for (size_t i = 0; w->done && i < w->done_len; i++)
        rs_svc__job_free(w->done[(w->done_head + i) % SVC_QUEUE]);
    w->todo_len = w->done_len = 0;
    free(w->todo);
    free(w->done);
    w->todo = w->done = NULL;
    rs_leaderboard_close(w->lb);
    w->lb = NULL;
    rs_store_close(w->store);
    w->store = NULL;
}

bool rs_svc__submit(rs_services *svc, svc_job *job)
{
    svc_worker *w = &svc->worker;
    if (!w->started)
        return false;
    pthread_mutex_lock(&w->lock);
    /* Everything out counts: the done ring must always have room. */
    bool room_left = w->todo_len + w->running + w->done_len < SVC_QUEUE;
    if (room_left) {
        w->todo[(w->todo_head + w->todo_len) % SVC_QUEUE] = job;
        w->todo_len++;
        pthread_cond_signal(&w->wake);
    }
    pthread_mutex_unlock(&w->lock);
    return room_left;
}

void rs_svc__job_finish(rs_services *svc, svc_job *job)
{
    if (job->kind == SVC_JOB_LAP_FLAGS || job->kind == SVC_JOB_KICK) {
        rs_svc__finish_call(svc, job);
        rs_svc__job_free(job);
        return;
    }
    if (job->error[0])
        rs_svc__error(svc, rs_svc__job_what(job), job->error);
    if (job->log[0]) {
        /* A registration's player id is the one it was given. */
        svc_who who = {.room = job->room, .player = job->name,
                       .player_id = job->player_id > 0 ? job->player_id : job->admitted_id,
                       .address = job->address};
        rs_svc__log(svc, job->log_level, job->log_event, &who, NULL, 0, "%s", job->log);
    }
    if (identity_job(job))
        rs_svc__finish_identity(svc, job);
    else
        rs_svc__finish_request(svc, job);
    rs_svc__job_free(job);
}

void rs_svc__jobs_finish(rs_services *svc)
{
    svc_worker *w = &svc->worker;
    if (!w->done)
        return;
    for (;;) {
        svc_job *job = NULL;
        if (w->started)
            pthread_mutex_lock(&w->lock);
        if (w->done_len > 0) {
            job = w->done[w->done_head];
            w->done_head = (w->done_head + 1) % SVC_QUEUE;
            w->done_len--;
        }
        if (w->started)
            pthread_mutex_unlock(&w->lock);
        if (!job)
            return;
        rs_svc__finish_or_keep(svc, job, NULL);
    }
}

size_t rs_svc__jobs_pending(const rs_services *svc)
{
    const svc_worker *w = &svc->worker;
    if (!w->started)
        return 0;
    /* Taking the lock to read changes nothing the caller can see. */
    pthread_mutex_t *lock = (pthread_mutex_t *)(uintptr_t)&w->lock;
    pthread_mutex_lock(lock);
    size_t n = w->todo_len + w->running + w->done_len;
    pthread_mutex_unlock(lock);
    return n;
}

/* Whether a job for room is queued or running (the lock is held). */
static bool room_busy(const svc_worker *w, const rs_room *room)
{
    if (w->running > 0)
        return true; /* which one is unknown: wait for it */
    for (size_t i = 0; i < w->todo_len; i++)
        if (w->todo[(w->todo_head + i) % SVC_QUEUE]->room == room)
            return true;
    return false;
}

void rs_svc__jobs_wait_room(rs_services *svc, const rs_room *room)
{
    svc_worker *w = &svc->worker;
    if (!w->started)
        return;
    pthread_mutex_lock(&w->lock);
    while (room_busy(w, room))
        pthread_cond_wait(&w->settled, &w->lock);
    /* Its finished jobs must not reach a room that is going. */
    for (size_t i = 0; i < w->done_len; i++) {
        svc_job *job = w->done[(w->done_head + i) % SVC_QUEUE];
        if (job->room == room)
            job->room = NULL;
    }
    pthread_mutex_unlock(&w->lock);
}

void rs_svc__job_log(svc_job *job, int level, const char *event, const char *fmt, ...)
{
    job->log_event = event;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(job->log, sizeof job->log, fmt, ap);
    va_end(ap);
    job->log_level = level;
}

const char *rs_svc__job_what(const svc_job *job)
{
    switch (job->kind) {
    case SVC_JOB_ADMIT: return "admitting a player";
    case SVC_JOB_CONFIRM: return "confirming a registration";
    case SVC_JOB_FORGET: return "forgetting an unconfirmed registration";
    case SVC_JOB_ROTATE: return "issuing a new token";
    case SVC_JOB_ROTATE_COMMIT: return "confirming a new token (the old one still works)";
    case SVC_JOB_LEADERBOARD: return "leaderboard";
    case SVC_JOB_TUNE_SAVE: return "saving a tune";
    case SVC_JOB_TUNE_LOAD: return "loading a tune";
    case SVC_JOB_TUNE_LIST: return "listing tunes";
    case SVC_JOB_TUNE_SELECT: return "selecting a tune";
    case SVC_JOB_ADMIN: return "an admin command";
    case SVC_JOB_BANS: return "checking bans";
    case SVC_JOB_STANDINGS: return "standings";
    case SVC_JOB_RESULTS_FILE: return "writing a results file";
    default: return "a request";
    }
}
