/*
 * The browser's lap replay: the C entry points the WebAssembly module
 * exports (web/js/replay_wasm.js wraps them; web/wasm/CMakeLists.txt
 * builds them).
 *
 * A page that shows a stored leaderboard lap gives the module exactly what
 * the database holds for it (the track's JSON text, the canonical parameter
 * block of every car in the proof, the decompressed proof) and re-simulates
 * it with the physics core itself, through racesim/lapproof.h's replay:
 * the same code `racectl verify-lap` runs, so the page's verdict is the
 * server's verdict. Nothing here decides anything; it only adapts types:
 *
 *  - One session (rsw_session) per lap, a plain pointer in JS. Bytes go in
 *    through buffers JS allocates with malloc and fills.
 *  - Car blocks are matched to the proof's slots by parameter hash, so the
 *    page may pass each distinct block once, in any order.
 *  - After each step the cars' poses are in one array of doubles the page
 *    reads from the module's memory: x, y, heading, speed per car.
 *  - The result is a JSON text: 64-bit hashes as 16 hex digits (a JS number
 *    holds 53 bits), times as integer microseconds (far below 2^53).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/base/err.h"
#include "racesim/lapproof.h"
#include "racesim/physics.h"
#include "racesim/track.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define RSW_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define RSW_EXPORT
#endif

#define RSW_MAX_CARS 64
#define RSW_POSE 4 /* doubles per car: x, y, heading, speed */
#define RSW_ERR 512
#define RSW_MSG 2048
#define RSW_JSON 8192

typedef struct rsw_session {
    rs_track *track;
    rs_car_params *cars[RSW_MAX_CARS]; /* distinct blocks, as given */
    uint32_t car_count;
    uint8_t *proof; /* our copy: the replay borrows it */
    size_t proof_len;
    const rs_car_params *slots[RSW_MAX_CARS]; /* the proof's order */
    rs_lap_replay *replay;
    double poses[RSW_MAX_CARS * RSW_POSE];
    char err[RSW_ERR];
    char json[RSW_JSON];
} rsw_session;

/* Each exported function has a prototype (the project builds with
 * -Wmissing-prototypes); JS is their only caller. */
RSW_EXPORT rsw_session *rsw_new(void);
RSW_EXPORT void rsw_free(rsw_session *s);
RSW_EXPORT const char *rsw_error(const rsw_session *s);
RSW_EXPORT int rsw_set_track(rsw_session *s, const char *json, size_t len);
RSW_EXPORT int rsw_add_car_block(rsw_session *s, const uint8_t *block, size_t len);
RSW_EXPORT int rsw_open(rsw_session *s, const uint8_t *proof, size_t len);
RSW_EXPORT int rsw_step(rsw_session *s, uint32_t ticks);
RSW_EXPORT int rsw_done(const rsw_session *s);
RSW_EXPORT uint32_t rsw_ticks(const rsw_session *s);
RSW_EXPORT uint32_t rsw_tick_count(const rsw_session *s);
RSW_EXPORT uint32_t rsw_car_count(const rsw_session *s);
RSW_EXPORT uint32_t rsw_lap_car(const rsw_session *s);
RSW_EXPORT const double *rsw_poses(const rsw_session *s);
RSW_EXPORT const char *rsw_info_json(rsw_session *s);
RSW_EXPORT const char *rsw_finish(rsw_session *s);
RSW_EXPORT const char *rsw_status_name(int status);

static void read_poses(rsw_session *s);

RS_PRINTF(2, 3)
static int fail(rsw_session *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    return -1;
}

rsw_session *rsw_new(void)
{
    return calloc(1, sizeof(rsw_session));
}

void rsw_free(rsw_session *s)
{
    if (!s)
        return;
    rs_lap_replay_destroy(s->replay);
    for (uint32_t i = 0; i < s->car_count; i++)
        rs_car_params_destroy(s->cars[i]);
    rs_track_destroy(s->track);
    free(s->proof);
    free(s);
}

const char *rsw_error(const rsw_session *s)
{
    return s ? s->err : "no session";
}

const char *rsw_status_name(int status)
{
    return rs_status_str((rs_status)status);
}

/* The track as stored: its JSON text (not NUL-terminated). 0 or -1. */
int rsw_set_track(rsw_session *s, const char *json, size_t len)
{
    if (!s || !json)
        return -1;
    if (s->replay || s->track)
        return fail(s, "the track is already set");
    char err[RSW_ERR];
    rs_status st = rs_track_parse(json, len, "stored track", &s->track, err, sizeof err);
    if (st != RS_OK)
        return fail(s, "the track does not load: %s", err);
    return 0;
}

/* One canonical car parameter block as stored. 0 or -1. */
int rsw_add_car_block(rsw_session *s, const uint8_t *block, size_t len)
{
    if (!s || !block)
        return -1;
    if (s->replay)
        return fail(s, "the replay is already open");
    if (s->car_count == RSW_MAX_CARS)
        return fail(s, "more than %d car blocks", RSW_MAX_CARS);
    char err[RSW_ERR];
    rs_car_params *p = NULL;
    rs_status st = rs_car_params_from_block(block, len, &p, err, sizeof err);
    if (st != RS_OK)
        return fail(s, "car block %u does not load: %s", (unsigned)s->car_count + 1, err);
    s->cars[s->car_count++] = p;
    return 0;
}

/* Opens the proof (copied) on the cars and track given. 0: the replay is
 * open (it may already be done: then the result says why, e.g. a car or the
 * track is missing); -1: the proof is unreadable or refused (rsw_error). */
int rsw_open(rsw_session *s, const uint8_t *proof, size_t len)
{
    if (!s || !proof)
        return -1;
    if (s->replay)
        return fail(s, "the replay is already open");
    rs_lap_proof_info info;
    rs_status st = rs_lap_proof_info_read(proof, len, &info);
    if (st != RS_OK)
        return fail(s, "not a valid lap proof (%s)", rs_status_str(st));
    if (info.car_count > RSW_MAX_CARS)
        return fail(s, "the proof has %u cars, at most %d are replayed here",
                    (unsigned)info.car_count, RSW_MAX_CARS);
    /* Each slot gets the block with its parameter hash; a missing one stays
     * NULL and the replay's verdict names it (wrong cars). */
    for (uint32_t i = 0; i < info.car_count; i++) {
        uint64_t h = 0;
        rs_lap_proof_car_hash(proof, len, i, &h);
        s->slots[i] = NULL;
        for (uint32_t k = 0; k < s->car_count && !s->slots[i]; k++)
            if (rs_car_params_hash(s->cars[k]) == h)
                s->slots[i] = s->cars[k];
    }
    s->proof = malloc(len ? len : 1);
    if (!s->proof)
        return fail(s, "out of memory");
    memcpy(s->proof, proof, len);
    s->proof_len = len;
    char msg[RSW_ERR];
    st = rs_lap_replay_open(s->proof, len, s->slots, info.car_count, s->track, &s->replay, msg,
                            sizeof msg);
    if (st != RS_OK)
        return fail(s, "%s", msg);
    read_poses(s); /* the start snapshot's */
    return 0;
}

/* Keeps the poses array in step with the world. */
static void read_poses(rsw_session *s)
{
    const rs_world *w = rs_lap_replay_world(s->replay);
    uint32_t n = w ? rs_world_car_count(w) : 0;
    for (uint32_t i = 0; i < n && i < RSW_MAX_CARS; i++) {
        rs_car_state cs;
        double *p = &s->poses[i * RSW_POSE];
        if (rs_world_car_state(w, (rs_car_id){(uint16_t)(i + 1)}, &cs) != RS_OK)
            continue;
        p[0] = cs.pos_m[0];
        p[1] = cs.pos_m[1];
        p[2] = cs.yaw_rad;
        p[3] = cs.speed_m_s;
    }
}

/* Steps up to `ticks` ticks (stops early when the verdict is decided).
 * Returns the number stepped, or -1 with no replay open. */
int rsw_step(rsw_session *s, uint32_t ticks)
{
    if (!s || !s->replay)
        return -1;
    uint32_t n = 0;
    while (n < ticks && !rs_lap_replay_done(s->replay) && rs_lap_replay_step(s->replay) == RS_OK)
        n++;
    read_poses(s);
    return (int)n;
}

int rsw_done(const rsw_session *s)
{
    return !s || rs_lap_replay_done(s->replay);
}

uint32_t rsw_ticks(const rsw_session *s)
{
    return s ? rs_lap_replay_ticks(s->replay) : 0;
}

uint32_t rsw_tick_count(const rsw_session *s)
{
    const rs_lap_proof_info *o = s ? rs_lap_replay_info(s->replay) : NULL;
    return o ? o->tick_count : 0;
}

uint32_t rsw_car_count(const rsw_session *s)
{
    const rs_lap_proof_info *o = s ? rs_lap_replay_info(s->replay) : NULL;
    return o ? o->car_count : 0;
}

/* The 1-based slot of the car whose lap the proof is. */
uint32_t rsw_lap_car(const rsw_session *s)
{
    const rs_lap_proof_info *o = s ? rs_lap_replay_info(s->replay) : NULL;
    return o ? o->car : 0;
}

/* car_count x (x m, y m, heading rad, speed m/s) after the last step. */
const double *rsw_poses(const rsw_session *s)
{
    if (!s)
        return NULL;
    return s->poses;
}

/* ------------------------------------------------------------------ JSON */

typedef struct jbuf {
    char *p;
    size_t cap, len;
} jbuf;

RS_PRINTF(2, 3)
static void put(jbuf *b, const char *fmt, ...)
{
    if (b->len >= b->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len = n < 0 ? b->cap : b->len + (size_t)n;
}

/* A JSON string; the messages are ASCII, but escape what JSON needs. */
static void put_str(jbuf *b, const char *s)
{
    put(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            put(b, "\\%c", c);
        else if (c < 0x20)
            put(b, "\\u%04x", c);
        else
            put(b, "%c", c);
    }
    put(b, "\"");
}

static void put_hex(jbuf *b, const char *key, uint64_t v)
{
    put(b, "\"%s\": \"%016" PRIx64 "\"", key, v);
}

static void put_sectors(jbuf *b, const int64_t *us, uint32_t n)
{
    put(b, "[");
    for (uint32_t i = 0; i < n; i++)
        put(b, "%s%" PRId64, i ? ", " : "", us[i]);
    put(b, "]");
}

static const char *jdone(rsw_session *s, jbuf *b)
{
    if (b->len >= b->cap) {
        snprintf(s->json, sizeof s->json, "{\"error\": \"result too long\"}");
    }
    return s->json;
}

/* The proof's header: which car, how many ticks, the hashes it needs. */
const char *rsw_info_json(rsw_session *s)
{
    if (!s)
        return "null";
    const rs_lap_proof_info *o = rs_lap_replay_info(s->replay);
    if (!o)
        return "null";
    jbuf b = {s->json, sizeof s->json, 0};
    put(&b, "{\"physics_version\": %u, \"tick_hz\": %u, \"substeps\": %u, \"laps\": %u, ",
        (unsigned)o->physics_version, (unsigned)o->tick_hz, (unsigned)o->substeps,
        (unsigned)o->laps);
    put(&b, "\"car\": %u, \"lap\": %u, \"car_count\": %u, \"first_tick\": %" PRIu64
             ", \"tick_count\": %u, ",
        (unsigned)o->car, (unsigned)o->lap, (unsigned)o->car_count, o->first_tick,
        (unsigned)o->tick_count);
    put_hex(&b, "track_hash", o->track_hash);
    put(&b, ", \"car_hashes\": [");
    for (uint32_t i = 0; i < o->car_count; i++) {
        uint64_t h = 0;
        rs_lap_proof_car_hash(s->proof, s->proof_len, i, &h);
        put(&b, "%s\"%016" PRIx64 "\"", i ? ", " : "", h);
    }
    put(&b, "]}");
    return jdone(s, &b);
}

/* Steps what is left and returns the verdict as JSON:
 *   {"code": 0, "verdict": "ok", "diffs": 0, "message": "ok", "ticks": N,
 *    "recorded": {"lap", "time_us", "end_us", "sectors_us", "valid",
 *                 "invalid_reason", "end_hash", "end_tick"},
 *    "simulated": {same keys, or null when no lap was re-simulated}}
 * "code" is rs_lap_proof_verify's verdict code (RS_LAP_PROOF_*). */
const char *rsw_finish(rsw_session *s)
{
    if (!s || !s->replay)
        return "null";
    rs_lap_verdict v;
    char msg[RSW_MSG];
    rs_lap_replay_finish(s->replay, &v, msg, sizeof msg);
    read_poses(s);
    const rs_lap_proof_info *o = rs_lap_replay_info(s->replay);
    jbuf b = {s->json, sizeof s->json, 0};
    put(&b, "{\"code\": %u, \"verdict\": \"%s\", \"diffs\": %u, \"message\": ", (unsigned)v.code,
        rs_lap_verdict_name(v.code), (unsigned)v.diffs);
    put_str(&b, msg);
    put(&b, ", \"ticks\": %u, \"recorded\": {\"lap\": %u, \"time_us\": %" PRId64
             ", \"end_us\": %" PRId64 ", \"sectors_us\": ",
        (unsigned)rs_lap_replay_ticks(s->replay), (unsigned)o->lap, o->lap_time_us,
        o->lap_end_us);
    put_sectors(&b, o->sectors_us, o->sector_count);
    put(&b, ", \"valid\": %s, \"invalid_reason\": %u, ", o->valid ? "true" : "false",
        (unsigned)o->invalid_reason);
    put_hex(&b, "end_hash", o->end_car_hash);
    put(&b, ", \"end_tick\": %" PRIu64 "}, \"simulated\": ", v.recorded_end_tick);
    rs_event lap;
    if (rs_lap_replay_lap(s->replay, &lap)) {
        put(&b, "{\"lap\": %u, \"time_us\": %" PRId64 ", \"end_us\": %" PRId64
                 ", \"sectors_us\": ",
            (unsigned)lap.lap, lap.duration_us, lap.time_us);
        put_sectors(&b, lap.sectors_us, lap.sector_count);
        put(&b, ", \"valid\": %s, \"invalid_reason\": %u, ", lap.valid ? "true" : "false",
            (unsigned)lap.reason);
        put_hex(&b, "end_hash", v.simulated_hash);
        put(&b, ", \"end_tick\": %" PRIu64 "}", v.simulated_end_tick);
    } else {
        put(&b, "null");
    }
    put(&b, "}");
    return jdone(s, &b);
}
