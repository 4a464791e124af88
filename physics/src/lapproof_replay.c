/*
 * Lap proofs, verifying (racesim/lapproof.h): the proof's world rebuilt
 * from its definition, the caller's cars and track, the start snapshot,
 * and its input log replayed tick by tick.
 *
 * Verifying is a replay (rs_lap_replay_*) stepped to its end, so a viewer
 * stepping tick by tick and rs_lap_proof_verify run the same code.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/base/err.h"
#include "racesim/base/text.h"
#include "racesim/lapproof.h"
#include "racesim/track.h"

#include "bytes.h"
#include "lapproof_format.h"

/* Appends "; "-separated text to msg. */
RS_PRINTF(3, 4)
static void say(char *msg, size_t msg_len, const char *fmt, ...)
{
    if (!msg || !msg_len || !memchr(msg, 0, msg_len))
        return;
    if (msg[0])
        rs_errf_append(msg, msg_len, "; ");
    size_t used = strlen(msg);
    if (used + 1 >= msg_len)
        return;
    va_list ap;
    va_start(ap, fmt);
    rs_verrf(msg + used, msg_len - used, fmt, ap);
    va_end(ap);
}

static void compare(const rs_lap_parsed *p, const rs_event *lap, uint64_t end_tick, uint64_t hash,
                    rs_lap_verdict *v, char *msg, size_t msg_len)
{
    const rs_lap_proof_info *o = &p->info;
    v->simulated_lap = lap->lap;
    v->simulated_time_us = lap->duration_us;
    v->simulated_hash = hash;
    v->simulated_end_tick = end_tick;
    if (lap->lap != o->lap) {
        v->diffs |= RS_LAP_DIFF_LAP;
        say(msg, msg_len, "lap %lu recorded, lap %lu re-simulated", (unsigned long)o->lap,
            (unsigned long)lap->lap);
    }
    if (lap->duration_us != o->lap_time_us) {
        v->diffs |= RS_LAP_DIFF_TIME;
        say(msg, msg_len, "lap time %lld us recorded, %lld us re-simulated",
            (long long)o->lap_time_us, (long long)lap->duration_us);
    }
    if (lap->time_us != o->lap_end_us) {
        v->diffs |= RS_LAP_DIFF_END;
        say(msg, msg_len, "lap ended at race time %lld us recorded, %lld us re-simulated",
            (long long)o->lap_end_us, (long long)lap->time_us);
    }
    if (lap->sector_count != o->sector_count) {
        v->diffs |= RS_LAP_DIFF_SECTORS;
        say(msg, msg_len, "%lu sectors recorded, %lu re-simulated",
            (unsigned long)o->sector_count, (unsigned long)lap->sector_count);
    } else {
        for (uint32_t s = 0; s < o->sector_count; s++)
            if (lap->sectors_us[s] != o->sectors_us[s]) {
                v->diffs |= RS_LAP_DIFF_SECTORS;
                say(msg, msg_len, "sector %lu time %lld us recorded, %lld us re-simulated",
                    (unsigned long)s + 1, (long long)o->sectors_us[s],
                    (long long)lap->sectors_us[s]);
            }
    }
    if (lap->valid != o->valid || lap->reason != o->invalid_reason) {
        v->diffs |= RS_LAP_DIFF_VALIDITY;
        say(msg, msg_len, "validity %s (reason %u) recorded, %s (reason %u) re-simulated",
            o->valid ? "valid" : "invalid", o->invalid_reason, lap->valid ? "valid" : "invalid",
            lap->reason);
    }
    if (end_tick != v->recorded_end_tick) {
        v->diffs |= RS_LAP_DIFF_TICK;
        say(msg, msg_len, "lap ended in tick %llu recorded, tick %llu re-simulated",
            (unsigned long long)v->recorded_end_tick, (unsigned long long)end_tick);
    }
    if (hash != o->end_car_hash) {
        v->diffs |= RS_LAP_DIFF_HASH;
        say(msg, msg_len, "end car hash %016llx recorded, %016llx re-simulated",
            (unsigned long long)o->end_car_hash, (unsigned long long)hash);
    }
    v->code = v->diffs ? RS_LAP_PROOF_DIFFERS : RS_LAP_PROOF_OK;
}

/* Checks the caller's cars and track against the proof; a verdict code or
 * RS_LAP_PROOF_OK. */
static uint8_t check_inputs(const uint8_t *proof, const rs_lap_parsed *p,
                            const rs_car_params *const *cars, uint32_t car_count,
                            const rs_track *track, char *msg, size_t msg_len)
{
    const rs_lap_proof_info *o = &p->info;
    if (o->physics_version != RS_PHYSICS_VERSION) {
        say(msg, msg_len, "the proof is from physics version %lu, this is version %u",
            (unsigned long)o->physics_version, RS_PHYSICS_VERSION);
        return RS_LAP_PROOF_BAD_SNAPSHOT;
    }
    if (car_count != o->car_count) {
        say(msg, msg_len, "%lu cars given, the proof has %lu", (unsigned long)car_count,
            (unsigned long)o->car_count);
        return RS_LAP_PROOF_WRONG_CARS;
    }
    for (uint32_t i = 0; i < car_count; i++) {
        rs_reader h = rs_reader_init(proof + p->hashes_at + 8u * (size_t)i, 8);
        uint64_t want = rs_read_u64(&h);
        uint64_t have = cars[i] ? rs_car_params_hash(cars[i]) : 0;
        if (!cars[i] || have != want) {
            say(msg, msg_len, "car %lu: parameters %016llx given, the proof needs %016llx",
                (unsigned long)i + 1, (unsigned long long)have, (unsigned long long)want);
            return RS_LAP_PROOF_WRONG_CARS;
        }
    }
    uint64_t th = track ? rs_track_hash(track) : 0;
    if (th != o->track_hash || !track) {
        say(msg, msg_len, "track %016llx given, the proof needs %016llx", (unsigned long long)th,
            (unsigned long long)o->track_hash);
        return RS_LAP_PROOF_WRONG_TRACK;
    }
    return RS_LAP_PROOF_OK;
}

/* A replay's message holds every difference at once (at most 7 lines plus
 * one per sector, each well under 100 characters); callers get it cut to
 * their own buffer. */
#define REPLAY_MSG 2048

struct rs_lap_replay {
    const uint8_t *proof; /* borrowed, as are the cars and the track */
    size_t len;
    rs_lap_parsed p;
    rs_world *world;      /* NULL when the verdict was decided before stepping */
    rs_reader joins;      /* the joins not yet made, in order */
    uint32_t joins_left;
    rs_reader inputs;     /* the input log, read one tick at a time */
    uint32_t stepped;     /* ticks of the log stepped so far */
    bool done;
    bool have_lap;
    rs_event lap;         /* the re-simulated lap, once have_lap */
    rs_lap_verdict v;
    char msg[REPLAY_MSG];
    const rs_car_params *cars[]; /* the caller's, borrowed; the joining ones are added
                                    while stepping */
};

void rs_lap_replay_destroy(rs_lap_replay *rep)
{
    if (!rep)
        return;
    rs_world_destroy(rep->world);
    free(rep);
}

/* Ends the replay with a verdict that needs no more stepping. */
static void replay_end(rs_lap_replay *rep, uint8_t code)
{
    rep->v.code = code;
    rep->done = true;
    rs_world_destroy(rep->world);
    rep->world = NULL;
}

/* Every joining car's gear must be one the car has: the recorder writes
 * the gear the car took, so a proof that names another was not recorded
 * (the replay would clamp it and could verify bytes no recorder wrote). */
static bool joins_fit(rs_lap_replay *rep)
{
    rs_reader r = rep->joins;
    for (uint32_t i = 0; i < rep->joins_left; i++) {
        rs_lap_join j = rs_lap_join_read(&r);
        rs_car_info info;
        if (rs_car_params_info(rep->cars[j.car - 1u], &info) != RS_OK ||
            (j.spawn.gear > 0 && (uint32_t)j.spawn.gear > info.gears)) {
            say(rep->msg, sizeof rep->msg, "car %u joins in gear %d, it has %lu gears",
                (unsigned)j.car, j.spawn.gear, (unsigned long)info.gears);
            return false;
        }
    }
    return true;
}

/* Adds the cars that join before this tick, as the recording world did;
 * false (with the verdict decided) when one cannot be added. */
static bool make_joins(rs_lap_replay *rep)
{
    uint64_t tick = rs_world_tick(rep->world);
    while (rep->joins_left > 0) {
        rs_reader peek = rep->joins;
        if (rs_lap_join_read(&peek).tick != tick)
            break;
        rs_lap_join j = rs_lap_join_read(&rep->joins);
        rep->joins_left--;
        rs_status st = rs_world_add_car(rep->world, rep->cars[j.car - 1u], &j.spawn, NULL);
        if (st != RS_OK) {
            say(rep->msg, sizeof rep->msg, "car %u cannot join before tick %llu (%s)",
                (unsigned)j.car, (unsigned long long)tick, rs_status_str(st));
            replay_end(rep, RS_LAP_PROOF_BAD_SNAPSHOT);
            return false;
        }
    }
    return true;
}

rs_status rs_lap_replay_open(const uint8_t *proof, size_t len, const rs_car_params *const *cars,
                             uint32_t car_count, const rs_track *track, rs_lap_replay **out,
                             char *msg, size_t msg_len)
{
    if (msg && msg_len)
        msg[0] = 0;
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    if (!cars && car_count)
        return RS_ERR_ARG;
    rs_lap_replay *rep = calloc(1, sizeof *rep + (size_t)car_count * sizeof rep->cars[0]);
    if (!rep)
        return RS_ERR_NOMEM;
    for (uint32_t i = 0; i < car_count; i++)
        rep->cars[i] = cars[i];
    rep->proof = proof;
    rep->len = len;
    rs_lap_parsed *p = &rep->p;
    rs_status st = rs_lap_proof_decode(proof, len, p);
    if (st != RS_OK) {
        say(msg, msg_len, "not a valid lap proof (%s)", rs_status_str(st));
        free(rep);
        return st;
    }
    const rs_lap_proof_info *o = &p->info;
    rep->v.recorded_lap = o->lap;
    rep->v.recorded_time_us = o->lap_time_us;
    rep->v.recorded_hash = o->end_car_hash;
    rep->v.recorded_end_tick = o->first_tick + o->tick_count - 1u;
    uint8_t code = check_inputs(proof, p, cars, car_count, track, rep->msg, sizeof rep->msg);
    if (code != RS_LAP_PROOF_OK) {
        replay_end(rep, code);
        *out = rep;
        return RS_OK;
    }

    rs_world_def def = rs_world_default();
    def.tick_hz = o->tick_hz;
    def.substeps = o->substeps;
    def.max_cars = o->car_count;
    def.track = track;
    def.laps = o->laps;
    def.start_tick = o->start_tick;
    def.car_collisions = o->car_collisions;
    def.start_hold = o->start_hold;
    memcpy(def.surfaces, o->surfaces, sizeof def.surfaces);
    st = rs_world_create(&def, &rep->world);
    if (st != RS_OK) {
        say(msg, msg_len, "the proof's world definition is not accepted (%s)", rs_status_str(st));
        rs_lap_replay_destroy(rep);
        return st == RS_ERR_NOMEM ? st : RS_ERR_RANGE;
    }
    /* The snapshot's cars; the ones that joined come at their ticks. */
    for (uint32_t i = 0; i < p->snap_cars && st == RS_OK; i++) {
        rs_car_spawn sp = rs_car_spawn_default();
        st = rs_world_add_car(rep->world, cars[i], &sp, NULL);
    }
    if (st != RS_OK) {
        say(msg, msg_len, "cannot add the cars (%s)", rs_status_str(st));
        rs_lap_replay_destroy(rep);
        return st;
    }
    st = rs_world_restore(rep->world, p->snap, p->snap_len);
    if (st != RS_OK || rs_world_tick(rep->world) != o->first_tick) {
        if (st != RS_OK)
            say(rep->msg, sizeof rep->msg,
                "the start snapshot does not match the cars and world (%s)", rs_status_str(st));
        else
            say(rep->msg, sizeof rep->msg,
                "the start snapshot is at tick %llu, the log starts at tick %llu",
                (unsigned long long)rs_world_tick(rep->world), (unsigned long long)o->first_tick);
        replay_end(rep, RS_LAP_PROOF_BAD_SNAPSHOT);
        *out = rep;
        return RS_OK;
    }
    rep->joins = rs_reader_init(proof + p->joins_at, (size_t)o->join_count * JOIN_BYTES);
    rep->joins_left = o->join_count;
    if (!joins_fit(rep)) {
        replay_end(rep, RS_LAP_PROOF_BAD_SNAPSHOT);
        *out = rep;
        return RS_OK;
    }
    rep->inputs = rs_reader_init(proof + p->inputs_at, len - p->inputs_at);
    *out = rep;
    return RS_OK;
}

bool rs_lap_replay_done(const rs_lap_replay *rep)
{
    return !rep || rep->done;
}

rs_status rs_lap_replay_step(rs_lap_replay *rep)
{
    if (!rep || rep->done)
        return RS_ERR_ARG;
    const rs_lap_proof_info *o = &rep->p.info;
    if (!make_joins(rep))
        return RS_OK;
    rs_world *world = rep->world;
    /* One input per car present in this tick (the decoder counted them). */
    for (uint32_t c = 0; c < rs_world_car_count(world); c++) {
        rs_input in = rs_lap_input_read(&rep->inputs);
        rs_world_set_input(world, (rs_car_id){(uint16_t)(c + 1)}, &in);
    }
    uint32_t t = rep->stepped++;
    uint64_t tick = rs_world_tick(world);
    if (rs_world_step(world) != RS_OK) {
        say(rep->msg, sizeof rep->msg, "the simulation went non-finite in tick %llu",
            (unsigned long long)tick);
        rep->v.code = RS_LAP_PROOF_SIM_FAILED;
        rep->done = true;
        return RS_OK;
    }
    /* The lap began in the log's first tick, which is also where the
     * previous lap ended: that tick's lap event is not this lap's. */
    size_t n;
    const rs_event *ev = rs_world_events(world, &n);
    for (size_t k = 0; k < n && t > 0; k++)
        if (ev[k].type == RS_EVENT_LAP && ev[k].car == o->car) {
            rep->lap = ev[k];
            rep->have_lap = true;
            compare(&rep->p, &ev[k], tick, rs_world_car_hash(world, (rs_car_id){o->car}),
                    &rep->v, rep->msg, sizeof rep->msg);
            rep->done = true;
            return RS_OK;
        }
    if (rep->stepped == o->tick_count) {
        rep->v.code = RS_LAP_PROOF_NO_LAP;
        say(rep->msg, sizeof rep->msg, "no lap completed within the log (%lu ticks from tick %llu)",
            (unsigned long)o->tick_count, (unsigned long long)o->first_tick);
        rep->done = true;
    }
    return RS_OK;
}

const rs_world *rs_lap_replay_world(const rs_lap_replay *rep)
{
    return rep ? rep->world : NULL;
}

uint32_t rs_lap_replay_ticks(const rs_lap_replay *rep)
{
    return rep ? rep->stepped : 0;
}

const rs_lap_proof_info *rs_lap_replay_info(const rs_lap_replay *rep)
{
    return rep ? &rep->p.info : NULL;
}

bool rs_lap_replay_lap(const rs_lap_replay *rep, rs_event *out)
{
    if (!rep || !rep->have_lap || !out)
        return false;
    *out = rep->lap;
    return true;
}

void rs_lap_replay_finish(rs_lap_replay *rep, rs_lap_verdict *out, char *msg, size_t msg_len)
{
    if (msg && msg_len)
        msg[0] = 0;
    if (!rep) {
        if (out)
            memset(out, 0, sizeof *out);
        return;
    }
    while (!rep->done)
        rs_lap_replay_step(rep);
    if (out)
        *out = rep->v;
    if (msg && msg_len)
        rs_str_cut(msg, msg_len, rep->v.code == RS_LAP_PROOF_OK ? "ok" : rep->msg);
}

/* One path for every verifier: open, step to the end, compare. */
rs_status rs_lap_proof_verify(const uint8_t *proof, size_t len,
                              const rs_car_params *const *cars, uint32_t car_count,
                              const rs_track *track, rs_lap_verdict *out, char *msg,
                              size_t msg_len)
{
    if (msg && msg_len)
        msg[0] = 0;
    if (!out || (!cars && car_count))
        return RS_ERR_ARG;
    memset(out, 0, sizeof *out);
    rs_lap_replay *rep = NULL;
    rs_status st = rs_lap_replay_open(proof, len, cars, car_count, track, &rep, msg, msg_len);
    if (st != RS_OK)
        return st;
    rs_lap_replay_finish(rep, out, msg, msg_len);
    rs_lap_replay_destroy(rep);
    return RS_OK;
}

const char *rs_lap_verdict_name(uint8_t code)
{
    switch (code) {
    case RS_LAP_PROOF_OK: return "ok";
    case RS_LAP_PROOF_DIFFERS: return "differs";
    case RS_LAP_PROOF_NO_LAP: return "no_lap";
    case RS_LAP_PROOF_WRONG_CARS: return "wrong_cars";
    case RS_LAP_PROOF_WRONG_TRACK: return "wrong_track";
    case RS_LAP_PROOF_BAD_SNAPSHOT: return "bad_snapshot";
    case RS_LAP_PROOF_SIM_FAILED: return "simulation_failed";
    default: return "unknown";
    }
}
