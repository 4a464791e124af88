/*
 * A thread that loops until its owner tells it to stop, with the mutex that
 * guards the stop flag and whatever else the owner shares with the thread
 * (udp_relay and udp_flood each run one).
 */
#ifndef RS_WORKER_THREAD_H
#define RS_WORKER_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct worker_thread {
    pthread_mutex_t lock;
    pthread_t thread;
    bool started, stop;
} worker_thread;

static inline void worker_init(worker_thread *w)
{
    pthread_mutex_init(&w->lock, NULL);
    w->started = w->stop = false;
}

/* Runs fn(arg) on the thread; false when it cannot start (`who` says so on
 * stderr). */
static inline bool worker_start(worker_thread *w, void *(*fn)(void *), void *arg,
                                const char *who)
{
    w->started = pthread_create(&w->thread, NULL, fn, arg) == 0;
    if (!w->started)
        fprintf(stderr, "%s: cannot start the thread\n", who);
    return w->started;
}

/* Copies size bytes from what the thread shares (src) under the lock. */
static inline void worker_locked_copy(worker_thread *w, void *dst, const void *src, size_t size)
{
    pthread_mutex_lock(&w->lock);
    memcpy(dst, src, size);
    pthread_mutex_unlock(&w->lock);
}

/* On the thread, once a round: whether the owner has asked it to stop. */
static inline bool worker_stopping(worker_thread *w)
{
    pthread_mutex_lock(&w->lock);
    bool stop = w->stop;
    pthread_mutex_unlock(&w->lock);
    return stop;
}

/* Asks the thread to stop and waits for it (if it ever started), then frees
 * the mutex. */
static inline void worker_finish(worker_thread *w)
{
    if (w->started) {
        pthread_mutex_lock(&w->lock);
        w->stop = true;
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
    }
    pthread_mutex_destroy(&w->lock);
}

#endif
