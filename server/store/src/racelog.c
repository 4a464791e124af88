/*
 * The race log (racesim/racelog.h): world events in, writer records out.
 *
 * Records wait in a small FIFO of their own only while the writer's queue
 * is full; they are offered again, in order, at every call. Laps are
 * recorded even when no proof could be built (a lap longer than the
 * recorder's window): the time is real, it just cannot be re-simulated, and
 * the stats count it.
 */
#include "racesim/racelog.h"

#include <stdlib.h>
#include <string.h>

#include "racesim/lapproof.h"

typedef struct pending {
    uint8_t kind;     /* rs_store_record_kind */
    rs_store_lap lap; /* RS_RECORD_LAP; lap.proof points at owned_proof */
    uint8_t *owned_proof;
    rs_store_result result;
    int64_t finished_at;
} pending;

struct rs_racelog {
    rs_racelog_def def;
    rs_racelog_entrant *entrants;
    uint32_t cars;
    rs_lap_recorder *recorder;
    pending *queue; /* FIFO of records the writer has not taken yet */
    size_t head, count, cap;
    int64_t next_caller_id;
    bool results_done;
    rs_racelog_stats stats;
};

rs_status rs_racelog_create(const rs_world *world, const rs_racelog_def *def, rs_racelog **out)
{
    *out = NULL;
    if (!world || !def || !def->writer || !def->entrants)
        return RS_ERR_ARG;
    for (uint32_t i = 0; def->forced_tune && i < rs_world_car_count(world); i++)
        if (def->entrants[i].tune_hash != def->forced_tune_hash)
            return RS_ERR_MISMATCH;
    rs_racelog *log = calloc(1, sizeof *log);
    if (!log)
        return RS_ERR_NOMEM;
    log->def = *def;
    log->cars = rs_world_car_count(world);
    log->entrants = malloc((log->cars ? log->cars : 1) * sizeof *log->entrants);
    log->next_caller_id = def->first_caller_id;
    if (!log->entrants) {
        rs_racelog_destroy(log);
        return RS_ERR_NOMEM;
    }
    memcpy(log->entrants, def->entrants, log->cars * sizeof *log->entrants);
    log->def.entrants = log->entrants;
    rs_status st = rs_lap_recorder_create(world, def->max_lap_ticks, &log->recorder);
    if (st != RS_OK) {
        rs_racelog_destroy(log);
        return st;
    }
    *out = log;
    return RS_OK;
}

static void free_pending(pending *p)
{
    free(p->owned_proof);
    p->owned_proof = NULL;
    p->lap.proof = NULL;
}

void rs_racelog_destroy(rs_racelog *log)
{
    if (!log)
        return;
    for (size_t i = 0; i < log->count; i++)
        free_pending(&log->queue[(log->head + i) % log->cap]);
    log->stats.dropped += log->count;
    free(log->queue);
    rs_lap_recorder_destroy(log->recorder);
    free(log->entrants);
    free(log);
}

rs_status rs_racelog_add_entrant(rs_racelog *log, const rs_racelog_entrant *e)
{
    rs_racelog_entrant *n = realloc(log->entrants, (log->cars + 1) * sizeof *n);
    if (!n)
        return RS_ERR_NOMEM;
    n[log->cars++] = *e;
    log->entrants = n;
    log->def.entrants = n;
    return RS_OK;
}

rs_status rs_racelog_before_step(rs_racelog *log, const rs_world *world)
{
    return rs_lap_recorder_before_step(log->recorder, world);
}

/* Hands one record to the writer; the writer copies the proof. */
static rs_status offer(rs_racelog *log, const pending *p)
{
    switch (p->kind) {
    case RS_RECORD_LAP:
        return rs_store_writer_put_lap(log->def.writer, &p->lap);
    case RS_RECORD_RESULT:
        return rs_store_writer_put_result(log->def.writer, &p->result);
    default:
        return rs_store_writer_finish_race(log->def.writer, p->result.caller_id, log->def.race_id,
                                           p->finished_at);
    }
}

size_t rs_racelog_flush(rs_racelog *log)
{
    while (log->count > 0) {
        pending *p = &log->queue[log->head];
        rs_status st = offer(log, p);
        if (st == RS_ERR_FULL)
            break;
        /* Accepted, or refused for good (a malformed record, no memory for
         * the proof's copy): never retried, so counted as lost. */
        if (st != RS_OK)
            log->stats.refused++;
        else if (p->kind == RS_RECORD_LAP)
            log->stats.laps_queued++;
        free_pending(p);
        log->head = (log->head + 1) % log->cap;
        log->count--;
    }
    log->stats.pending = log->count;
    return log->count;
}

/* Offers a record now (after anything older), keeping it if the writer is
 * full. Takes ownership of a lap's proof. */
static rs_status submit(rs_racelog *log, pending *p)
{
    if (rs_racelog_flush(log) == 0) {
        rs_status st = offer(log, p);
        if (st != RS_ERR_FULL) {
            if (st != RS_OK)
                log->stats.refused++;
            else if (p->kind == RS_RECORD_LAP)
                log->stats.laps_queued++;
            free_pending(p);
            return st;
        }
    }
    if (log->count == log->cap) {
        size_t cap = log->cap ? 2 * log->cap : 64;
        pending *q = malloc(cap * sizeof *q);
        if (!q) {
            free_pending(p);
            log->stats.dropped++;
            return RS_ERR_NOMEM;
        }
        for (size_t i = 0; i < log->count; i++)
            q[i] = log->queue[(log->head + i) % log->cap];
        free(log->queue);
        log->queue = q, log->head = 0, log->cap = cap;
    }
    log->queue[(log->head + log->count) % log->cap] = *p;
    log->count++;
    log->stats.pending = log->count;
    return RS_OK;
}

static rs_status record_lap(rs_racelog *log, const rs_world *world, const rs_event *e,
                            int64_t now_s)
{
    uint32_t slot = e->car - 1u;
    const rs_racelog_entrant *who = &log->entrants[slot];
    pending p;
    memset(&p, 0, sizeof p);
    p.kind = RS_RECORD_LAP;
    rs_store_lap *lap = &p.lap;
    lap->caller_id = log->next_caller_id++;
    lap->player_id = who->player_id;
    lap->track_hash = log->def.track_hash;
    lap->base_hash = who->base_hash;
    lap->tune_hash = who->tune_hash;
    lap->physics_version = RS_PHYSICS_VERSION;
    lap->race_id = log->def.race_id;
    lap->lap_number = e->lap;
    lap->time_us = e->duration_us;
    lap->sector_count = e->sector_count <= RS_MAX_SECTORS ? e->sector_count : RS_MAX_SECTORS;
    for (uint32_t k = 0; k < lap->sector_count; k++)
        lap->sectors_us[k] = e->sectors_us[k];
    lap->valid = e->valid;
    lap->invalid_reason = e->valid ? 0 : e->reason;
    lap->end_hash = rs_world_car_hash(world, (rs_car_id){e->car});
    lap->recorded_at = now_s;

    lap->params_hash = who->params_hash;
    uint8_t *proof = NULL;
    size_t len = 0;
    if (rs_lap_recorder_take(log->recorder, world, (rs_car_id){e->car}, &proof, &len) == RS_OK) {
        p.owned_proof = proof;
        lap->proof = proof;
        lap->proof_len = len;
        lap->proof_format = RS_LAP_PROOF_VERSION;
    } else {
        log->stats.laps_unproven++; /* still a real lap: recorded without a proof */
    }
    return submit(log, &p);
}

rs_store_result rs_racelog_result(const rs_world *world, uint16_t car, int64_t race_id,
                                  const rs_racelog_entrant *who, int64_t caller_id)
{
    rs_race_car_state rs;
    rs_world_race_state(world, (rs_car_id){car}, &rs);
    rs_store_result r;
    memset(&r, 0, sizeof r);
    r.caller_id = caller_id;
    r.race_id = race_id;
    r.player_id = who->player_id;
    r.params_hash = who->params_hash;
    r.position = rs.finish_position ? rs.finish_position : rs.position;
    r.finished = rs.status == RS_RACE_FINISHED;
    r.finish_us = r.finished ? rs.finish_us : -1;
    r.laps_completed = rs.laps_completed;
    r.best_lap_us = rs.best_lap_us;
    r.barrier_hits = rs.barrier_hits;
    r.car_hits = rs.car_hits;
    return r;
}

/* Results in car order, then the race's finish, once. */
static rs_status record_results(rs_racelog *log, const rs_world *world, int64_t now_s)
{
    rs_status worst = RS_OK;
    for (uint32_t i = 0; i < log->cars; i++) {
        pending p;
        memset(&p, 0, sizeof p);
        p.kind = RS_RECORD_RESULT;
        p.result = rs_racelog_result(world, (uint16_t)(i + 1), log->def.race_id,
                                     &log->entrants[i], log->next_caller_id++);
        rs_status st = submit(log, &p);
        if (st != RS_OK)
            worst = st;
    }
    pending f;
    memset(&f, 0, sizeof f);
    f.kind = RS_RECORD_RACE_FINISH;
    f.result.caller_id = log->next_caller_id++;
    f.finished_at = now_s;
    rs_status st = submit(log, &f);
    return st != RS_OK ? st : worst;
}

rs_status rs_racelog_after_step(rs_racelog *log, const rs_world *world, int64_t now_s)
{
    size_t n = 0;
    const rs_event *ev = rs_world_events(world, &n);
    rs_status worst = RS_OK;
    for (size_t k = 0; k < n; k++) {
        if (ev[k].type != RS_EVENT_LAP || ev[k].car == 0 || ev[k].car > log->cars)
            continue;
        log->stats.laps_seen++;
        rs_status st = record_lap(log, world, &ev[k], now_s);
        if (st != RS_OK)
            worst = st;
    }
    if (!log->results_done && !log->def.laps_only && log->def.race_id != 0 &&
        rs_world_race_over(world)) {
        log->results_done = true;
        rs_status st = record_results(log, world, now_s);
        if (st != RS_OK)
            worst = st;
    }
    rs_racelog_flush(log);
    return worst;
}

size_t rs_racelog_poll(rs_racelog *log, rs_store_ack *acks, size_t cap)
{
    size_t n = rs_store_writer_poll(log->def.writer, acks, cap);
    for (size_t i = 0; i < n; i++) {
        if (acks[i].status != RS_OK)
            log->stats.records_failed++;
        else if (acks[i].kind == RS_RECORD_LAP)
            log->stats.laps_recorded++;
    }
    return n;
}

rs_racelog_stats rs_racelog_get_stats(const rs_racelog *log) { return log->stats; }
