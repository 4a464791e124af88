/*
 * Lap proofs (racesim/lapproof.h): recording a lap's start snapshot and
 * input log while a race runs, encoding them, and re-simulating them.
 *
 * When a lap starts is only known after the tick in which it started (the
 * line crossing happens inside a substep), so the recorder snapshots every
 * tick into one buffer, and at the next tick boundary, seeing that a car's
 * lap began in the tick just stepped, copies that snapshot to the car's own
 * start buffer. Inputs go to a ring indexed by tick. The snapshot already
 * holds each car's input for its first tick; the log repeats it so the
 * replay is one simple loop.
 *
 * The recorder reads the cars' inputs from the world's internals: it is
 * part of the physics library, and a public getter would only serve it.
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

#include "block.h"
#include "bytes.h"
#include "world.h"

#define PROOF_MAGIC "RSLP"
#define INPUT_BYTES 8u
#define MAX_LAP_TICKS (1u << 24)
#define MAX_TICK_HZ 100000u
#define MAX_SUBSTEPS 64u

/* --------------------------------------------------------------- recorder */

/* What changes when a lap starts, per car. */
typedef struct lap_mark {
    uint8_t status;
    uint32_t laps_completed;
    int64_t lap_start_us;
} lap_mark;

struct rs_lap_recorder {
    uint32_t cars;
    uint32_t max_ticks;
    size_t snap_len;
    uint8_t *cur_snap;    /* the snapshot at the start of tick cur_tick */
    uint64_t cur_tick;
    bool have_cur;
    uint8_t *start_snap;  /* cars x snap_len: the snapshot of the tick each lap began in */
    uint64_t *start_tick;
    bool *has_start;
    lap_mark *mark;       /* per car, as of the last boundary */
    rs_input *ring;       /* max_ticks x cars, slot (tick % max_ticks) */
};

static lap_mark mark_of(const rs_world *world, uint32_t c)
{
    rs_race_car_state s;
    lap_mark m = {0, 0, 0};
    if (rs_world_race_state(world, (rs_car_id){(uint16_t)(c + 1)}, &s) == RS_OK) {
        m.status = s.status;
        m.laps_completed = s.laps_completed;
        m.lap_start_us = s.lap_start_us;
    }
    return m;
}

void rs_lap_recorder_destroy(rs_lap_recorder *rec)
{
    free(rec); /* the arrays are in the same block */
}

/* The snapshots, per-car marks and the input ring after the struct in one
 * block (block.h). */
static void recorder_layout(void *obj, rs_block *b)
{
    rs_lap_recorder *rec = obj;
    size_t cars = rec->cars;
    rec->cur_snap = rs_block_take(b, rec->snap_len, 1);
    rec->start_snap = rs_block_take(b, cars, rec->snap_len);
    rec->start_tick = rs_block_take(b, cars, sizeof *rec->start_tick);
    rec->has_start = rs_block_take(b, cars, sizeof *rec->has_start);
    rec->mark = rs_block_take(b, cars, sizeof *rec->mark);
    rec->ring = rs_block_take(b, (size_t)rec->max_ticks * cars, sizeof *rec->ring);
}

rs_status rs_lap_recorder_create(const rs_world *world, uint32_t max_lap_ticks,
                                 rs_lap_recorder **out)
{
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    /* The world replaced a NULL ground with the track's own; anything else
     * is a function a proof cannot carry. */
    if (!world || world->count == 0 || !world->def.track ||
        world->def.ground != rs_track_ground || world->def.ground_ctx != world->def.track ||
        max_lap_ticks == 0 || max_lap_ticks > MAX_LAP_TICKS)
        return RS_ERR_ARG;
    rs_lap_recorder head;
    memset(&head, 0, sizeof head);
    head.cars = world->count;
    head.max_ticks = max_lap_ticks;
    head.snap_len = rs_world_snapshot(world, NULL, 0);
    rs_lap_recorder *rec = rs_block_alloc(&head, sizeof head, recorder_layout);
    if (!rec)
        return RS_ERR_NOMEM;
    for (uint32_t c = 0; c < rec->cars; c++)
        rec->mark[c] = mark_of(world, c);
    *out = rec;
    return RS_OK;
}

rs_status rs_lap_recorder_before_step(rs_lap_recorder *rec, const rs_world *world)
{
    if (!rec || !world)
        return RS_ERR_ARG;
    /* The snapshot's size depends only on the number of cars. */
    if (world->count != rec->cars)
        return RS_ERR_MISMATCH;
    uint64_t t = world->tick;
    bool continuous = rec->have_cur && t == rec->cur_tick + 1;
    for (uint32_t c = 0; c < rec->cars; c++) {
        lap_mark m = mark_of(world, c);
        lap_mark *old = &rec->mark[c];
        bool changed = m.status != old->status || m.laps_completed != old->laps_completed ||
                       m.lap_start_us != old->lap_start_us;
        if (!continuous) {
            rec->has_start[c] = false; /* we did not see this lap begin */
        } else if (changed) {
            /* Its lap began in the tick just stepped, from cur_snap. */
            rec->has_start[c] = m.status == RS_RACE_RACING;
            if (rec->has_start[c]) {
                memcpy(rec->start_snap + (size_t)c * rec->snap_len, rec->cur_snap, rec->snap_len);
                rec->start_tick[c] = rec->cur_tick;
            }
        }
        *old = m;
    }
    rs_world_snapshot(world, rec->cur_snap, rec->snap_len);
    rs_input *row = rec->ring + (size_t)(t % rec->max_ticks) * rec->cars;
    for (uint32_t c = 0; c < rec->cars; c++)
        row[c] = world->cars[c].input;
    rec->cur_tick = t;
    rec->have_cur = true;
    return RS_OK;
}

static void write_input(rs_writer *w, const rs_input *in)
{
    rs_write_u16(w, (uint16_t)in->steer);
    rs_write_u8(w, in->throttle);
    rs_write_u8(w, in->brake);
    rs_write_u8(w, in->clutch);
    rs_write_u8(w, in->handbrake);
    rs_write_u8(w, (uint8_t)in->gear);
    rs_write_u8(w, in->buttons);
}

static rs_input read_input(rs_reader *r)
{
    rs_input in;
    in.steer = (int16_t)rs_read_u16(r);
    in.throttle = rs_read_u8(r);
    in.brake = rs_read_u8(r);
    in.clutch = rs_read_u8(r);
    in.handbrake = rs_read_u8(r);
    in.gear = (int8_t)rs_read_u8(r);
    in.buttons = rs_read_u8(r);
    return in;
}

/* Everything but the snapshot and the inputs. */
static void write_header(rs_writer *w, const rs_world *world, const rs_event *lap, uint64_t end_hash,
                         uint64_t first_tick, uint32_t ticks)
{
    const rs_world_def *def = &world->def;
    rs_write_bytes(w, PROOF_MAGIC, 4);
    rs_write_u32(w, RS_LAP_PROOF_VERSION);
    rs_write_u32(w, RS_PHYSICS_VERSION);
    rs_write_u32(w, def->tick_hz);
    rs_write_u32(w, def->substeps);
    rs_write_u32(w, def->laps);
    rs_write_u64(w, def->start_tick);
    rs_write_u8(w, def->car_collisions ? 1 : 0);
    for (int s = 0; s < RS_SURFACE_COUNT; s++) {
        rs_write_f64(w, def->surfaces[s].grip_scale);
        rs_write_f64(w, def->surfaces[s].rolling_drag_coef);
    }
    rs_write_u64(w, rs_track_hash(def->track));
    rs_write_u32(w, world->count);
    for (uint32_t c = 0; c < world->count; c++)
        rs_write_u64(w, world->cars[c].params->hash);
    rs_write_u16(w, lap->car);
    rs_write_u32(w, lap->lap);
    rs_write_u8(w, lap->valid ? 1 : 0);
    rs_write_u8(w, lap->reason);
    rs_write_u64(w, (uint64_t)lap->duration_us);
    rs_write_u64(w, (uint64_t)lap->time_us);
    rs_write_u32(w, lap->sector_count);
    for (uint32_t s = 0; s < lap->sector_count; s++)
        rs_write_u64(w, (uint64_t)lap->sectors_us[s]);
    rs_write_u64(w, end_hash);
    rs_write_u64(w, first_tick);
    rs_write_u32(w, ticks);
}

rs_status rs_lap_recorder_take(rs_lap_recorder *rec, const rs_world *world, rs_car_id car,
                               uint8_t **proof, size_t *len)
{
    if (!proof || !len)
        return RS_ERR_ARG;
    *proof = NULL;
    *len = 0;
    if (!rec || !world || world->count != rec->cars || car.index1 == 0 ||
        car.index1 > rec->cars || !rec->have_cur || world->tick != rec->cur_tick + 1)
        return RS_ERR_ARG;
    size_t n;
    const rs_event *ev = rs_world_events(world, &n);
    const rs_event *lap = NULL;
    for (size_t k = 0; k < n && !lap; k++)
        if (ev[k].type == RS_EVENT_LAP && ev[k].car == car.index1)
            lap = &ev[k];
    uint32_t c = car.index1 - 1u;
    if (!lap || !rec->has_start[c] || lap->sector_count > RS_MAX_SECTORS)
        return RS_ERR_MISSING;
    uint64_t first = rec->start_tick[c];
    if (rec->cur_tick - first >= rec->max_ticks)
        return RS_ERR_FULL;
    uint32_t ticks = (uint32_t)(rec->cur_tick - first + 1);
    uint64_t end_hash = rs_world_car_hash(world, car);

    rs_writer w = rs_writer_init(NULL, 0);
    write_header(&w, world, lap, end_hash, first, ticks);
    size_t size = w.len + 4 + rec->snap_len + (size_t)ticks * rec->cars * INPUT_BYTES;
    uint8_t *buf = malloc(size);
    if (!buf)
        return RS_ERR_NOMEM;
    w = rs_writer_init(buf, size);
    write_header(&w, world, lap, end_hash, first, ticks);
    rs_write_u32(&w, (uint32_t)rec->snap_len);
    rs_write_bytes(&w, rec->start_snap + (size_t)c * rec->snap_len, rec->snap_len);
    for (uint64_t t = first; t <= rec->cur_tick; t++) {
        const rs_input *row = rec->ring + (size_t)(t % rec->max_ticks) * rec->cars;
        for (uint32_t k = 0; k < rec->cars; k++)
            write_input(&w, &row[k]);
    }
    if (w.overflow || w.nonfinite || w.len != size) {
        free(buf);
        return RS_ERR_RANGE; /* non-finite surface parameters: cannot happen in a valid world */
    }
    *proof = buf;
    *len = size;
    return RS_OK;
}

/* ---------------------------------------------------------------- decoding */

typedef struct parsed {
    rs_lap_proof_info info;
    size_t hashes_at;      /* offset of the parameter hashes */
    const uint8_t *snap;
    size_t snap_len;
    size_t inputs_at;      /* offset of the input log */
} parsed;

static rs_status decode(const uint8_t *buf, size_t len, parsed *p)
{
    rs_lap_proof_info *o = &p->info;
    if (!buf)
        return RS_ERR_ARG;
    memset(p, 0, sizeof *p);
    rs_reader r = rs_reader_init(buf, len);
    uint8_t magic[4];
    rs_read_bytes(&r, magic, 4);
    if (r.error)
        return RS_ERR_BUFFER;
    if (memcmp(magic, PROOF_MAGIC, 4) != 0)
        return RS_ERR_FORMAT;
    o->version = rs_read_u32(&r);
    if (!r.error && o->version != RS_LAP_PROOF_VERSION)
        return RS_ERR_FORMAT;
    o->physics_version = rs_read_u32(&r);
    o->tick_hz = rs_read_u32(&r);
    o->substeps = rs_read_u32(&r);
    o->laps = rs_read_u32(&r);
    o->start_tick = rs_read_u64(&r);
    uint8_t coll = rs_read_u8(&r);
    o->car_collisions = coll != 0;
    size_t surf_at = r.pos;
    for (int s = 0; s < RS_SURFACE_COUNT; s++) {
        o->surfaces[s].grip_scale = rs_read_f64(&r);
        o->surfaces[s].rolling_drag_coef = rs_read_f64(&r);
    }
    if (r.error) /* past the end, or a NaN/Inf in place */
        return len - surf_at >= 16u * RS_SURFACE_COUNT ? RS_ERR_RANGE : RS_ERR_BUFFER;
    o->track_hash = rs_read_u64(&r);
    o->car_count = rs_read_u32(&r);
    if (r.error)
        return RS_ERR_BUFFER;
    if (o->tick_hz == 0 || o->tick_hz > MAX_TICK_HZ || o->substeps == 0 ||
        o->substeps > MAX_SUBSTEPS || coll > 1 || o->car_count == 0 || o->car_count > 65535u)
        return RS_ERR_RANGE;
    p->hashes_at = r.pos;
    if ((size_t)o->car_count > (len - r.pos) / 8u)
        return RS_ERR_BUFFER;
    r.pos += (size_t)o->car_count * 8u;
    o->car = rs_read_u16(&r);
    o->lap = rs_read_u32(&r);
    uint8_t valid = rs_read_u8(&r);
    o->valid = valid != 0;
    o->invalid_reason = rs_read_u8(&r);
    o->lap_time_us = (int64_t)rs_read_u64(&r);
    o->lap_end_us = (int64_t)rs_read_u64(&r);
    o->sector_count = rs_read_u32(&r);
    if (r.error)
        return RS_ERR_BUFFER;
    if (o->car == 0 || o->car > o->car_count || o->lap == 0 || valid > 1 ||
        o->invalid_reason > RS_LAP_REVERSED || (valid == 1) != (o->invalid_reason == 0) ||
        o->sector_count > RS_MAX_SECTORS)
        return RS_ERR_RANGE;
    for (uint32_t s = 0; s < o->sector_count; s++)
        o->sectors_us[s] = (int64_t)rs_read_u64(&r);
    o->end_car_hash = rs_read_u64(&r);
    o->first_tick = rs_read_u64(&r);
    o->tick_count = rs_read_u32(&r);
    uint32_t snap_len = rs_read_u32(&r);
    if (r.error)
        return RS_ERR_BUFFER;
    if (o->tick_count == 0 || o->tick_count > MAX_LAP_TICKS ||
        o->first_tick > UINT64_MAX - o->tick_count)
        return RS_ERR_RANGE;
    if (snap_len > len - r.pos)
        return RS_ERR_BUFFER;
    p->snap = buf + r.pos;
    p->snap_len = snap_len;
    r.pos += snap_len;
    p->inputs_at = r.pos;
    /* tick_count <= 2^24 and car_count < 2^16: the product fits in 64 bits. */
    uint64_t need = (uint64_t)o->tick_count * o->car_count * INPUT_BYTES;
    if (need > len - r.pos)
        return RS_ERR_BUFFER;
    if (need < len - r.pos)
        return RS_ERR_FORMAT; /* bytes after the end */
    rs_reader h = rs_reader_init(buf + p->hashes_at, 8u * o->car_count);
    h.pos = 8u * (size_t)(o->car - 1u);
    o->car_params_hash = rs_read_u64(&h);
    return RS_OK;
}

rs_status rs_lap_proof_info_read(const uint8_t *proof, size_t len, rs_lap_proof_info *out)
{
    parsed p;
    if (!out)
        return RS_ERR_ARG;
    rs_status st = decode(proof, len, &p);
    *out = p.info;
    return st;
}

rs_status rs_lap_proof_car_hash(const uint8_t *proof, size_t len, uint32_t i, uint64_t *out)
{
    parsed p;
    if (!out)
        return RS_ERR_ARG;
    rs_status st = decode(proof, len, &p);
    if (st != RS_OK)
        return st;
    if (i >= p.info.car_count)
        return RS_ERR_ARG;
    rs_reader h = rs_reader_init(proof + p.hashes_at + 8u * (size_t)i, 8);
    *out = rs_read_u64(&h);
    return RS_OK;
}

/* ------------------------------------------------------------- verifying */

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

static void compare(const parsed *p, const rs_event *lap, uint64_t end_tick, uint64_t hash,
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
static uint8_t check_inputs(const uint8_t *proof, const parsed *p, const rs_car_params *const *cars,
                            uint32_t car_count, const rs_track *track, char *msg, size_t msg_len)
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
    parsed p;
    rs_world *world;      /* NULL when the verdict was decided before stepping */
    rs_reader inputs;     /* the input log, read one tick at a time */
    uint32_t stepped;     /* ticks of the log stepped so far */
    bool done;
    bool have_lap;
    rs_event lap;         /* the re-simulated lap, once have_lap */
    rs_lap_verdict v;
    char msg[REPLAY_MSG];
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
    rs_lap_replay *rep = calloc(1, sizeof *rep);
    if (!rep)
        return RS_ERR_NOMEM;
    rep->proof = proof;
    rep->len = len;
    parsed *p = &rep->p;
    rs_status st = decode(proof, len, p);
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
    memcpy(def.surfaces, o->surfaces, sizeof def.surfaces);
    st = rs_world_create(&def, &rep->world);
    if (st != RS_OK) {
        say(msg, msg_len, "the proof's world definition is not accepted (%s)", rs_status_str(st));
        rs_lap_replay_destroy(rep);
        return st == RS_ERR_NOMEM ? st : RS_ERR_RANGE;
    }
    for (uint32_t i = 0; i < car_count && st == RS_OK; i++) {
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
    rs_world *world = rep->world;
    for (uint32_t c = 0; c < o->car_count; c++) {
        rs_input in = read_input(&rep->inputs);
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
