/*
 * The room workers: a fixed set of threads that run jobs (a room's update)
 * handed over by the network thread. Submitting never waits for a job:
 * it takes a short mutex to append the job's number to a ring and signals
 * one idle worker. A job's completion is the job's own business (the
 * server's job marks its room done and wakes the network thread), so the
 * pool knows nothing of rooms.
 *
 * Thread rules: create, submit and destroy from one thread (the network
 * thread); the job function runs on the workers, one job at a time per
 * worker, jobs in submission order.
 */
#ifndef RS_APP_ROOM_POOL_H
#define RS_APP_ROOM_POOL_H

#include <stdint.h>

#include <stdbool.h>

#include "racesim/physics.h" /* rs_status */

typedef struct srv_pool srv_pool;

typedef void (*srv_pool_job)(void *ctx, uint32_t job);

/* workers threads (1..) running job(ctx, n) for each submitted n. At most
 * capacity jobs may be waiting at once (the server submits each room at
 * most once until it is done, so capacity = the room count). */
rs_status srv_pool_create(uint32_t workers, uint32_t capacity, srv_pool_job job, void *ctx,
                          srv_pool **out);

/* Queues job n. False when capacity jobs are already waiting (a caller
 * bug; nothing is queued). */
bool srv_pool_submit(srv_pool *pool, uint32_t n);

/* Runs the jobs still waiting, then stops and joins the workers. Accepts NULL. */
void srv_pool_destroy(srv_pool *pool);

/* The number of worker threads a machine's cores call for (at least 1). */
uint32_t srv_pool_default_workers(void);

#endif
