/*
 * The room workers (room_pool.h): a ring of job numbers under one mutex,
 * and a condition the idle workers wait on.
 */
#define _POSIX_C_SOURCE 200809L /* sysconf */

#include "room_pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct srv_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    uint32_t *ring;
    uint32_t capacity, head, count;
    bool stopping;
    srv_pool_job job;
    void *ctx;
    pthread_t *threads;
    uint32_t started;
};

static void *worker_main(void *arg)
{
    srv_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->count == 0 && !p->stopping)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->count == 0)
            break; /* stopping, and nothing left to run */
        uint32_t n = p->ring[p->head];
        p->head = (p->head + 1) % p->capacity;
        p->count--;
        /* The job runs without the lock: the network thread may submit
         * meanwhile, and other workers run other jobs. */
        pthread_mutex_unlock(&p->lock);
        p->job(p->ctx, n);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

rs_status srv_pool_create(uint32_t workers, uint32_t capacity, srv_pool_job job, void *ctx,
                          srv_pool **out)
{
    *out = NULL;
    srv_pool *p = calloc(1, sizeof *p);
    if (!p)
        return RS_ERR_NOMEM;
    p->ring = calloc(capacity ? capacity : 1, sizeof *p->ring);
    p->threads = calloc(workers ? workers : 1, sizeof *p->threads);
    if (!p->ring || !p->threads) {
        free(p->ring);
        free(p->threads);
        free(p);
        return RS_ERR_NOMEM;
    }
    p->capacity = capacity ? capacity : 1;
    p->job = job;
    p->ctx = ctx;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    for (; p->started < workers; p->started++)
        if (pthread_create(&p->threads[p->started], NULL, worker_main, p) != 0) {
            srv_pool_destroy(p);
            return RS_ERR_NOMEM;
        }
    *out = p;
    return RS_OK;
}

bool srv_pool_submit(srv_pool *p, uint32_t n)
{
    pthread_mutex_lock(&p->lock);
    bool room = p->count < p->capacity;
    if (room) {
        p->ring[(p->head + p->count) % p->capacity] = n;
        p->count++;
        pthread_cond_signal(&p->wake);
    }
    pthread_mutex_unlock(&p->lock);
    return room;
}

void srv_pool_destroy(srv_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (uint32_t i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p->ring);
    free(p);
}

uint32_t srv_pool_default_workers(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 1 ? (uint32_t)n : 1u;
}
