/*
 * The asynchronous writer: the race tick loop hands records to a bounded
 * in-memory queue and goes on; one database thread with its own connection
 * takes whatever is queued (up to batch_max records), writes it in one
 * transaction, and after COMMIT posts one ack per record to a completion
 * queue that the producer polls. An RS_OK ack therefore means the record is
 * in a committed transaction, and with synchronous=FULL (store.c) on disk,
 * power loss included: the moment the server may tell the player.
 *
 * Batching needs no timer: while one transaction is being written, new
 * records gather in the queue and go into the next one, so a quiet server
 * commits each lap at once and a busy one commits hundreds together.
 *
 * Memory is bounded: capacity counts every record from put until its ack is
 * polled, both rings are allocated once at open, and a put that would go
 * past capacity returns RS_ERR_FULL at once rather than block the tick. A
 * lap's proof bytes (and a result's penalties) are copied at put and freed
 * after its transaction.
 *
 * One record that fails (an unknown player, a missing car) is undone alone
 * through a savepoint and acked with its error; the rest of the batch still
 * commits. If the transaction itself cannot commit, every record in it is
 * acked with the error: nothing in it was stored.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "laps.h"
#include "racesim/base/clock.h"
#include "racesim/base/err.h"
#include "store_internal.h"

typedef struct wrec {
    uint8_t kind; /* rs_store_record_kind */
    int64_t caller_id;
    union {
        rs_store_lap lap; /* proof points at a copy owned by the record */
        rs_store_result result;
        struct {
            int64_t race_id;
            int64_t ended_at;
            rs_store_race_status status;
        } end;
    } u;
} wrec;

struct rs_store_writer {
    rs_store *store;           /* the thread's connection */
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t mu;
    pthread_cond_t wake;       /* records queued, or closing */
    pthread_cond_t written;    /* a batch's acks were posted */
    uint32_t capacity;
    uint32_t batch_max;

    /* Guarded by mu. */
    wrec *queue;               /* ring of capacity records */
    uint32_t q_head, q_count;
    rs_store_ack *acks;        /* ring of capacity acks */
    uint32_t a_head, a_count;
    uint32_t in_flight;        /* put and not yet polled */
    uint64_t queued_total;     /* records ever queued */
    uint64_t written_total;    /* records ever acked */
    bool closing;
    rs_store_writer_stats stats;
    char last_error[256];

    /* Owned by the thread: the batch_max entries after the rings, in the
     * same allocations. */
    wrec *batch;
    rs_store_ack *batch_acks;
};

rs_store_writer_def rs_store_writer_default(void)
{
    rs_store_writer_def def = {.capacity = 4096, .batch_max = 256};
    return def;
}

/* Frees the writer: stops the thread when it was started (it writes what
 * is still queued before it sees closing), then destroys the lock and
 * conditions when they were made, closes the connection, frees the rings. */
static void writer_free(rs_store_writer *w, bool sync_made)
{
    if (w->thread_started) {
        pthread_mutex_lock(&w->mu);
        w->closing = true;
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
    }
    if (sync_made) {
        pthread_cond_destroy(&w->written);
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->mu);
    }
    rs_store_close(w->store);
    free(w->queue); /* and the batch after it */
    free(w->acks);  /* and the batch's acks */
    free(w);
}

static void free_record(wrec *r)
{
    if (r->kind == RS_RECORD_LAP)
        free((void *)(uintptr_t)r->u.lap.proof); /* our own copy */
    else if (r->kind == RS_RECORD_RESULT)
        free((void *)(uintptr_t)r->u.result.penalties); /* ours too */
    r->kind = 0;
}

static rs_status apply_record(rs_store *s, const wrec *r, int64_t *row_id, char *err,
                              size_t err_len)
{
    switch (r->kind) {
    case RS_RECORD_LAP:
        return rs_store__put_lap_in_tx(s, &r->u.lap, row_id, err, err_len);
    case RS_RECORD_RESULT:
        return rs_store__put_result_in_tx(s, &r->u.result, err, err_len);
    case RS_RECORD_RACE_FINISH:
        return rs_store_race_end(s, r->u.end.race_id, r->u.end.status, r->u.end.ended_at, err,
                                 err_len);
    default:
        return RS_ERR_ARG;
    }
}

static rs_status savepoint(rs_store *s, unsigned slot, const char *sql)
{
    sqlite3_stmt *st = rs_store__stmt(s, slot, sql, NULL, 0);
    return st ? rs_store__step_done(s, st, sql, NULL, 0) : RS_ERR_IO;
}

/* Writes n records in one transaction and fills batch_acks. Returns whether
 * the transaction committed; the first error met goes into err. */
static bool write_batch(rs_store_writer *w, uint32_t n, char *err, size_t err_len)
{
    rs_store *s = w->store;
    rs_status tx = rs_store__begin(s, err, err_len);
    bool record_error = false;
    for (uint32_t i = 0; i < n; i++) {
        rs_store_ack *a = &w->batch_acks[i];
        a->caller_id = w->batch[i].caller_id;
        a->kind = w->batch[i].kind;
        a->row_id = 0;
        if (tx != RS_OK) {
            a->status = tx;
            continue;
        }
        char why[256] = "";
        rs_status st = savepoint(s, RS_STMT_SAVEPOINT, "SAVEPOINT rec");
        if (st == RS_OK) {
            st = apply_record(s, &w->batch[i], &a->row_id, why, sizeof why);
            if (st == RS_OK) {
                st = savepoint(s, RS_STMT_RELEASE, "RELEASE rec");
            } else if (!sqlite3_get_autocommit(s->db)) {
                savepoint(s, RS_STMT_ROLLBACK_TO, "ROLLBACK TO rec");
                savepoint(s, RS_STMT_RELEASE, "RELEASE rec");
            }
        }
        a->status = st;
        if (st != RS_OK) {
            a->row_id = 0;
            if (!record_error && why[0])
                rs_errf(err, err_len, "%s", why);
            record_error = true;
        }
        /* Some errors (disk full, I/O) end the transaction: the records
         * after this one cannot be written in it. */
        if (sqlite3_get_autocommit(s->db)) {
            tx = st != RS_OK ? st : RS_ERR_IO;
            rs_errf(err, err_len, "%s: the transaction was aborted: %s", s->path,
                    why[0] ? why : "unknown error");
            for (uint32_t j = 0; j <= i; j++)
                if (w->batch_acks[j].status == RS_OK)
                    w->batch_acks[j].status = tx;
        }
    }
    if (tx != RS_OK)
        return false;
    tx = rs_store__commit(s, err, err_len);
    if (tx != RS_OK) {
        for (uint32_t i = 0; i < n; i++)
            if (w->batch_acks[i].status == RS_OK) {
                w->batch_acks[i].status = tx;
                w->batch_acks[i].row_id = 0;
            }
        return false;
    }
    return true;
}

static const uint32_t commit_bounds_us[RS_STORE_COMMIT_BUCKETS - 1] = {
    250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000};

uint32_t rs_store_commit_bucket_us(uint32_t i)
{
    return i < RS_STORE_COMMIT_BUCKETS - 1 ? commit_bounds_us[i] : UINT32_MAX;
}

static void count_commit(rs_store_writer_stats *st, int64_t took_us)
{
    uint32_t b = 0;
    while (b < RS_STORE_COMMIT_BUCKETS - 1 && took_us > (int64_t)commit_bounds_us[b])
        b++;
    st->commit_buckets[b]++;
    st->commit_us_sum += took_us > 0 ? (uint64_t)took_us : 0;
}

static void *writer_main(void *arg)
{
    rs_store_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->q_count == 0 && !w->closing)
            pthread_cond_wait(&w->wake, &w->mu);
        if (w->q_count == 0 && w->closing)
            break;
        uint32_t n = w->q_count < w->batch_max ? w->q_count : w->batch_max;
        for (uint32_t i = 0; i < n; i++) {
            w->batch[i] = w->queue[w->q_head];
            w->q_head = (w->q_head + 1) % w->capacity;
        }
        w->q_count -= n;
        pthread_mutex_unlock(&w->mu);

        char err[256] = "";
        int64_t t0 = rs_clock_us();
        bool committed = write_batch(w, n, err, sizeof err);
        int64_t took_us = rs_clock_us() - t0;
        uint32_t failed = 0;
        for (uint32_t i = 0; i < n; i++) {
            free_record(&w->batch[i]);
            failed += w->batch_acks[i].status != RS_OK;
        }

        pthread_mutex_lock(&w->mu);
        /* Room is guaranteed: in_flight counts these records already. */
        for (uint32_t i = 0; i < n; i++) {
            w->acks[(w->a_head + w->a_count) % w->capacity] = w->batch_acks[i];
            w->a_count++;
        }
        w->written_total += n;
        w->stats.records += n;
        w->stats.failed += failed;
        if (committed)
            w->stats.transactions++;
        count_commit(&w->stats, took_us);
        if (n > w->stats.max_batch)
            w->stats.max_batch = n;
        if (err[0])
            memcpy(w->last_error, err, sizeof w->last_error);
        pthread_cond_broadcast(&w->written);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

rs_status rs_store_writer_open(const char *path, const rs_store_writer_def *def,
                               rs_store_writer **out, char *err, size_t err_len)
{
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    rs_store_writer_def d = def ? *def : rs_store_writer_default();
    if (d.capacity < 1 || d.batch_max < 1 || d.capacity > (1u << 24)) {
        rs_errf(err, err_len, "writer: capacity must be 1..16777216 and batch_max >= 1");
        return RS_ERR_RANGE;
    }
    if (d.batch_max > d.capacity)
        d.batch_max = d.capacity;
    rs_store_writer *w = calloc(1, sizeof *w);
    if (!w)
        return RS_ERR_NOMEM;
    w->capacity = d.capacity;
    w->batch_max = d.batch_max;
    w->queue = calloc((size_t)d.capacity + d.batch_max, sizeof *w->queue);
    w->acks = calloc((size_t)d.capacity + d.batch_max, sizeof *w->acks);
    bool sync_ok = false;
    if (!w->queue || !w->acks) {
        writer_free(w, false);
        return RS_ERR_NOMEM;
    }
    w->batch = w->queue + d.capacity;
    w->batch_acks = w->acks + d.capacity;
    rs_status status = rs_store_open(path, 0, &w->store, err, err_len);
    if (status != RS_OK)
        goto fail;
    if (pthread_mutex_init(&w->mu, NULL) != 0)
        goto fail_nomem;
    if (pthread_cond_init(&w->wake, NULL) != 0) {
        pthread_mutex_destroy(&w->mu);
        goto fail_nomem;
    }
    if (pthread_cond_init(&w->written, NULL) != 0) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->mu);
        goto fail_nomem;
    }
    sync_ok = true;
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        rs_errf(err, err_len, "%s: cannot start the database thread", path);
        status = RS_ERR_NOMEM;
        goto fail;
    }
    w->thread_started = true;
    *out = w;
    return RS_OK;
fail_nomem:
    status = RS_ERR_NOMEM;
fail:
    writer_free(w, sync_ok);
    return status;
}

/* Appends a filled record, or refuses it when capacity is used up. */
static rs_status enqueue(rs_store_writer *w, const wrec *r)
{
    pthread_mutex_lock(&w->mu);
    if (w->closing || w->in_flight >= w->capacity) {
        if (!w->closing)
            w->stats.full++;
        pthread_mutex_unlock(&w->mu);
        return w->closing ? RS_ERR_ARG : RS_ERR_FULL;
    }
    w->queue[(w->q_head + w->q_count) % w->capacity] = *r;
    w->q_count++;
    w->in_flight++;
    w->queued_total++;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
    return RS_OK;
}

rs_status rs_store_writer_put_lap(rs_store_writer *w, const rs_store_lap *lap)
{
    if (!w || !lap)
        return RS_ERR_ARG;
    rs_status status = rs_store__lap_check(lap, NULL, 0);
    if (status != RS_OK)
        return status;
    wrec r = {.kind = RS_RECORD_LAP, .caller_id = lap->caller_id};
    r.u.lap = *lap;
    r.u.lap.proof = NULL;
    if (lap->proof_len > 0) {
        /* Copied outside the lock, so the tick loop only ever waits for a
         * few struct copies. */
        uint8_t *copy = malloc(lap->proof_len);
        if (!copy)
            return RS_ERR_NOMEM;
        memcpy(copy, lap->proof, lap->proof_len);
        r.u.lap.proof = copy;
    }
    status = enqueue(w, &r);
    if (status != RS_OK)
        free_record(&r);
    return status;
}

rs_status rs_store_writer_put_result(rs_store_writer *w, const rs_store_result *res)
{
    if (!w || !res || res->position < 1)
        return RS_ERR_ARG;
    wrec r = {.kind = RS_RECORD_RESULT, .caller_id = res->caller_id};
    r.u.result = *res;
    r.u.result.penalties = NULL;
    if (res->penalty_count > 0) {
        if (!res->penalties)
            return RS_ERR_ARG;
        /* Copied outside the lock, like a lap's proof. */
        size_t bytes = res->penalty_count * sizeof *res->penalties;
        rs_store_penalty *copy = malloc(bytes);
        if (!copy)
            return RS_ERR_NOMEM;
        memcpy(copy, res->penalties, bytes);
        r.u.result.penalties = copy;
    }
    rs_status status = enqueue(w, &r);
    if (status != RS_OK)
        free_record(&r);
    return status;
}

rs_status rs_store_writer_end_race(rs_store_writer *w, int64_t caller_id, int64_t race_id,
                                   rs_store_race_status status, int64_t ended_at)
{
    if (!w || race_id <= 0)
        return RS_ERR_ARG;
    wrec r = {.kind = RS_RECORD_RACE_FINISH, .caller_id = caller_id};
    r.u.end.race_id = race_id;
    r.u.end.ended_at = ended_at;
    r.u.end.status = status;
    return enqueue(w, &r);
}

rs_status rs_store_writer_finish_race(rs_store_writer *w, int64_t caller_id, int64_t race_id,
                                      int64_t finished_at)
{
    return rs_store_writer_end_race(w, caller_id, race_id, RS_STORE_RACE_FINISHED, finished_at);
}

size_t rs_store_writer_poll(rs_store_writer *w, rs_store_ack *acks, size_t cap)
{
    if (!w || !acks)
        return 0;
    pthread_mutex_lock(&w->mu);
    size_t n = w->a_count < cap ? w->a_count : cap;
    for (size_t i = 0; i < n; i++) {
        acks[i] = w->acks[w->a_head];
        w->a_head = (w->a_head + 1) % w->capacity;
    }
    w->a_count -= (uint32_t)n;
    w->in_flight -= (uint32_t)n;
    pthread_mutex_unlock(&w->mu);
    return n;
}

void rs_store_writer_flush(rs_store_writer *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    uint64_t target = w->queued_total;
    while (w->written_total < target)
        pthread_cond_wait(&w->written, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

rs_store_writer_stats rs_store_writer_get_stats(rs_store_writer *w)
{
    rs_store_writer_stats st = {0};
    if (!w)
        return st;
    pthread_mutex_lock(&w->mu);
    st = w->stats;
    st.queued = w->q_count;
    pthread_mutex_unlock(&w->mu);
    return st;
}

void rs_store_writer_last_error(rs_store_writer *w, char *err, size_t err_len)
{
    if (!w || !err || err_len == 0)
        return;
    pthread_mutex_lock(&w->mu);
    rs_errf(err, err_len, "%s", w->last_error);
    pthread_mutex_unlock(&w->mu);
}

void rs_store_writer_close(rs_store_writer *w)
{
    if (w)
        writer_free(w, true);
}
