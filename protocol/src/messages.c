/*
 * Every message's layout, written once: each ser_<name> function walks the
 * fields in wire order with the codec, which writes them when encoding and
 * reads and range-checks them when decoding. The type enum, the names, the
 * channel table and the dispatch all come from protocol_messages.def.
 * SPEC.md describes the same layouts in prose; the tests hold them together.
 */
#include <stdio.h>
#include <string.h>

#include "inputs.h"
#include "racesim/base/err.h"
#include "racesim/protocol.h"
#include "wire.h"

/* Ticks are below 2^48 (148 000 years at 60 Hz): leaves headroom for
 * arithmetic on them and keeps their varints at most 7 bytes. */
#define TICK_MAX ((UINT64_C(1) << 48) - 1)
#define CAR_MAX ((uint8_t)RS_PROTO_MAX_CARS)
#define TIME_MAX RS_PROTO_TIME_MAX_US

/* ------------------------------------------------------------- handshake */

static bool hex_token(const char *s)
{
    size_t n = strlen(s);
    if (n == 0)
        return true;
    if (n != RS_PROTO_TOKEN_LEN)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F')))
            return false;
    }
    return true;
}

static void ser_token(rs_codec *c, char *token, const char *field)
{
    rs_proto__str(c, token, 0, RS_PROTO_TOKEN_LEN, field);
    if (rs_proto__codec_ok(c) && !hex_token(token))
        rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
}

/* A field with its own character rules (names.c): a length and bytes like
 * a str(1..max), then ok() on those bytes, so bad UTF-8, a NUL and an empty
 * field get the same words as a control character. s holds at least
 * max + 1 bytes; allow_empty admits "". A refusal is RANGE naming the
 * field, with the rule broken in c->why for rs_proto_decode_err. */
static void ser_ruled(rs_codec *c, char *s, size_t max,
                      bool (*ok)(const char *, size_t, char *, size_t), const char *what,
                      bool allow_empty, const char *field)
{
    if (!rs_proto__codec_ok(c))
        return;
    const uint8_t *p = (const uint8_t *)s;
    uint32_t n = 0;
    if (c->writing) {
        const char *end = memchr(s, 0, max + 1);
        if (!end) {
            rs_errf(c->why, c->why_len, "%s: more than %zu bytes", what, max);
            rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
            return;
        }
        n = (uint32_t)(end - s);
        if (!(allow_empty && n == 0) && !ok(s, n, c->why, c->why_len))
            rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
    }
    rs_proto__blob(c, &p, &n, 0, (uint32_t)max, field);
    if (c->writing)
        return;
    s[0] = '\0';
    if (!rs_proto__codec_ok(c))
        return;
    if (!(allow_empty && n == 0) && !ok((const char *)p, n, c->why, c->why_len)) {
        rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
        return;
    }
    memcpy(s, p, n);
    s[n] = '\0';
}

/* A player name (rs_proto_name_check). name holds at least
 * RS_PROTO_NAME_MAX + 1 bytes; allow_empty admits "" (CAR_INFO's free
 * slot, a championship that is the room's own). */
static void ser_player_name(rs_codec *c, char *name, bool allow_empty, const char *field)
{
    ser_ruled(c, name, RS_PROTO_NAME_MAX, rs_proto_name_check, "player name", allow_empty, field);
}

/* Chat and announcement text (rs_proto_text_check): 1..RS_PROTO_TEXT_MAX
 * bytes; text holds RS_PROTO_TEXT_MAX + 1. */
static void ser_text(rs_codec *c, char *text, const char *field)
{
    ser_ruled(c, text, RS_PROTO_TEXT_MAX, rs_proto_text_check, "text", false, field);
}

static void ser_hello(rs_codec *c, rs_msg_hello *m)
{
    /* The version comes first and stays there in every version, so a
     * server can always read it and refuse in words. */
    uint8_t lo = (uint8_t)m->protocol_version, hi = (uint8_t)(m->protocol_version >> 8);
    rs_proto__u8(c, &lo, 0, 255, "hello.protocol_version");
    rs_proto__u8(c, &hi, 0, 255, "hello.protocol_version");
    if (!c->writing)
        m->protocol_version = (uint16_t)(lo | hi << 8);
    if (rs_proto__codec_ok(c) && m->protocol_version != RS_PROTO_VERSION) {
        rs_proto__codec_fail(c, RS_PROTO_BAD_VERSION, "hello.protocol_version");
        return;
    }
    rs_proto__varu32(c, &m->physics_version, 1, UINT32_MAX, "hello.physics_version");
    rs_proto__u8(c, &m->flags, 0, RS_HELLO_SPECTATOR | RS_HELLO_REGISTER, "hello.flags");
    ser_player_name(c, m->name, false, "hello.name");
    ser_token(c, m->token, "hello.token");
    rs_proto__str(c, m->room, 0, RS_PROTO_NAME_MAX, "hello.room");
    rs_proto__str(c, m->password, 0, RS_PROTO_SECRET_MAX, "hello.password");
    rs_proto__u64(c, &m->car_hash, "hello.car_hash");
    /* Registering means asking for a token, so one must not be sent. */
    if (rs_proto__codec_ok(c) && (m->flags & RS_HELLO_REGISTER) && m->token[0])
        rs_proto__codec_fail(c, RS_PROTO_RANGE, "hello.token");
}

static void ser_welcome(rs_codec *c, rs_msg_welcome *m)
{
    rs_proto__varu32(c, &m->room_id, 0, UINT32_MAX, "welcome.room_id");
    rs_proto__u8(c, &m->car, 0, CAR_MAX, "welcome.car");
    rs_proto__vari64(c, &m->player_id, 0, INT64_MAX, "welcome.player_id");
    ser_token(c, m->token, "welcome.token");
    rs_proto__varu16(c, &m->tick_hz, 1, 1000, "welcome.tick_hz");
    rs_proto__u8(c, &m->substeps, 1, 64, "welcome.substeps");
    rs_proto__varu16(c, &m->hash_interval, 1, 3600, "welcome.hash_interval");
    rs_proto__varu32(c, &m->physics_version, 1, UINT32_MAX, "welcome.physics_version");
    rs_proto__varu64(c, &m->tick, 0, TICK_MAX, "welcome.tick");
    rs_proto__u64(c, &m->track_hash, "welcome.track_hash");
    rs_proto__u8(c, &m->car_count, 0, CAR_MAX, "welcome.car_count");
    for (uint32_t i = 0; i < m->car_count && rs_proto__codec_ok(c); i++)
        rs_proto__u64(c, &m->car_hashes[i], "welcome.car_hashes");
    if (rs_proto__codec_ok(c) && m->car > m->car_count)
        rs_proto__codec_fail(c, RS_PROTO_RANGE, "welcome.car");
}

static void ser_refuse(rs_codec *c, rs_msg_refuse *m)
{
    /* Frozen like HELLO's version: any client can show a refusal. The
     * reason is open-ended on purpose (a newer server may add some); the
     * text is what the player reads. */
    rs_proto__u8(c, &m->reason, 0, 255, "refuse.reason");
    rs_proto__str(c, m->text, 0, RS_PROTO_TEXT_MAX, "refuse.text");
}

static void ser_bye(rs_codec *c, rs_msg_bye *m)
{
    rs_proto__u8(c, &m->reason, 0, RS_REASON_COUNT - 1, "bye.reason");
    rs_proto__str(c, m->text, 0, RS_PROTO_TEXT_MAX, "bye.text");
}

/* ---------------------------------------------------------------- inputs */

static void ser_input(rs_codec *c, rs_msg_input *m)
{
    rs_proto__varu64(c, &m->newest_tick, 0, TICK_MAX, "input.newest_tick");
    /* The ack trails the newest input by a round trip: sent as the signed
     * distance back from newest_tick, one byte in steady play. */
    if (!rs_proto__codec_ok(c))
        return;
    const int64_t newest = (int64_t)m->newest_tick; /* <= TICK_MAX: checked above */
    int64_t back = 0;
    if (c->writing) /* an ack above TICK_MAX gets a distance the range check refuses */
        back = m->frame_ack > TICK_MAX ? INT64_MIN : newest - (int64_t)m->frame_ack;
    rs_proto__vari64(c, &back, newest - (int64_t)TICK_MAX, newest, "input.frame_ack");
    if (!c->writing && rs_proto__codec_ok(c))
        m->frame_ack = (uint64_t)(newest - back);
    rs_proto__u8(c, &m->count, 1, RS_PROTO_INPUT_MAX, "input.count");
    if (rs_proto__codec_ok(c) && m->count > m->newest_tick + 1)
        rs_proto__codec_fail(c, RS_PROTO_RANGE, "input.count");
    /* Newest first, each against the one before it in the message (the
     * first against neutral): consecutive ticks rarely differ much. */
    rs_proto_input_delta d[RS_PROTO_INPUT_MAX];
    rs_input prev = rs_proto_input_neutral();
    for (uint32_t i = 0; c->writing && i < m->count && rs_proto__codec_ok(c); i++) {
        if (!rs_proto_input_valid(&m->inputs[i])) {
            rs_proto__codec_fail(c, RS_PROTO_RANGE, "input.inputs");
            return;
        }
        d[i] = rs_proto__delta_make(&prev, &m->inputs[i]);
        prev = m->inputs[i];
    }
    if (!rs_proto__codec_ok(c))
        return;
    rs_proto__delta_block(c, d, m->count, "input.inputs");
    for (uint32_t i = 0; !c->writing && i < m->count && rs_proto__codec_ok(c); i++) {
        /* A field marked as changed must really change: one spelling only. */
        if (!rs_proto__delta_apply(&prev, &d[i], &m->inputs[i]) ||
            rs_proto__delta_make(&prev, &m->inputs[i]).mask != d[i].mask)
            rs_proto__codec_fail(c, RS_PROTO_RANGE, "input.inputs");
        prev = m->inputs[i];
    }
}

static void ser_frame(rs_codec *c, rs_msg_frame *m)
{
    rs_proto__varu64(c, &m->first_tick, 0, TICK_MAX, "frame.first_tick");
    uint32_t back_max = m->first_tick < (1u << 20) ? (uint32_t)m->first_tick : (1u << 20);
    rs_proto__varu32(c, &m->baseline_back, 0, back_max, "frame.baseline_back");
    rs_proto__u8(c, &m->tick_count, 1, RS_PROTO_FRAME_MAX_TICKS, "frame.tick_count");
    rs_proto__u8(c, &m->car_count, 0, CAR_MAX, "frame.car_count");
    if (!rs_proto__codec_ok(c))
        return;
    /* Every tick's cars in one block, tick-major. */
    rs_proto_input_delta flat[RS_PROTO_FRAME_MAX_TICKS * RS_PROTO_MAX_CARS];
    uint32_t n = (uint32_t)m->tick_count * m->car_count;
    for (uint32_t i = 0; c->writing && i < n; i++)
        flat[i] = m->deltas[i / m->car_count][i % m->car_count];
    rs_proto__delta_block(c, flat, n, "frame.deltas");
    for (uint32_t i = 0; !c->writing && i < n; i++)
        m->deltas[i / m->car_count][i % m->car_count] = flat[i];
    rs_proto__u8(c, &m->hash_count, 0, m->tick_count, "frame.hash_count");
    for (uint32_t i = 0; i < m->hash_count && rs_proto__codec_ok(c); i++) {
        /* Strictly increasing indices: one spelling per set of hashes. */
        uint8_t lo = i ? (uint8_t)(m->hashes[i - 1].index + 1) : 0;
        rs_proto__u8(c, &m->hashes[i].index, lo, (uint8_t)(m->tick_count - 1), "frame.hashes");
        rs_proto__u64(c, &m->hashes[i].hash, "frame.hashes");
    }
    int32_t lead = m->input_lead_ms;
    rs_proto__vari32(c, &lead, INT16_MIN, INT16_MAX, "frame.input_lead_ms");
    if (!c->writing)
        m->input_lead_ms = (int16_t)lead;
    rs_proto__varu32(c, &m->late_inputs, 0, UINT32_MAX, "frame.late_inputs");
    /* Relative to first_tick (the client runs ahead, so usually positive). */
    if (!rs_proto__codec_ok(c))
        return;
    const int64_t first = (int64_t)m->first_tick; /* <= TICK_MAX: checked above */
    int64_t ack = 0;
    if (c->writing)
        ack = m->input_ack > TICK_MAX ? INT64_MIN : (int64_t)m->input_ack - first;
    rs_proto__vari64(c, &ack, -first, (int64_t)TICK_MAX - first, "frame.input_ack");
    if (!c->writing && rs_proto__codec_ok(c))
        m->input_ack = (uint64_t)(first + ack);
}

static void ser_ping(rs_codec *c, rs_msg_ping *m)
{
    rs_proto__varu32(c, &m->id, 0, UINT32_MAX, "ping.id");
    rs_proto__varu64(c, &m->time_us, 0, UINT64_MAX, "ping.time_us");
}

static void ser_pong(rs_codec *c, rs_msg_pong *m)
{
    rs_proto__varu32(c, &m->id, 0, UINT32_MAX, "pong.id");
    rs_proto__varu64(c, &m->echo_time_us, 0, UINT64_MAX, "pong.echo_time_us");
    rs_proto__varu64(c, &m->tick, 0, TICK_MAX, "pong.tick");
}

/* ------------------------------------------------------ snapshots, params */

static void ser_chunk(rs_codec *c, rs_proto_chunk *k, const char *field)
{
    rs_proto__varu32(c, &k->transfer_id, 0, UINT32_MAX, field);
    rs_proto__varu32(c, &k->total_size, 1, RS_PROTO_BLOB_MAX, field);
    rs_proto__u64(c, &k->content_hash, field);
    uint32_t count = rs_proto_chunk_count(k->total_size);
    rs_proto__varu16(c, &k->index, 0, (uint16_t)(count ? count - 1 : 0), field);
    /* The count and each chunk's length follow from the total size; they
     * are carried anyway and must agree, so a receiver can size its
     * bookkeeping from any one chunk. */
    rs_proto__varu16(c, &k->count, (uint16_t)count, (uint16_t)count, field);
    uint32_t want = k->index + 1u < count ? RS_PROTO_CHUNK_DATA
                                          : k->total_size - (count - 1u) * RS_PROTO_CHUNK_DATA;
    rs_proto__blob(c, &k->data, &k->data_len, want, want, field);
}

static void ser_snapshot_request(rs_codec *c, rs_msg_snapshot_request *m)
{
    rs_proto__u8(c, &m->reason, 0, RS_SNAP_REASON_COUNT - 1, "snapshot_request.reason");
    rs_proto__varu64(c, &m->tick, 0, TICK_MAX, "snapshot_request.tick");
}

static void ser_snapshot(rs_codec *c, rs_msg_snapshot *m)
{
    rs_proto__varu64(c, &m->tick, 0, TICK_MAX, "snapshot.tick");
    rs_proto__u64(c, &m->state_hash, "snapshot.state_hash");
    ser_chunk(c, &m->chunk, "snapshot.chunk");
}

static void ser_params(rs_codec *c, rs_msg_params *m)
{
    rs_proto__u8(c, &m->kind, 0, RS_PARAMS_KIND_COUNT - 1, "params.kind");
    if (m->kind == RS_PARAMS_CAR)
        rs_proto__u8(c, &m->car, 0, CAR_MAX, "params.car");
    else
        rs_proto__u8(c, &m->car, 0, 0, "params.car");
    rs_proto__u64(c, &m->id_hash, "params.id_hash");
    ser_chunk(c, &m->chunk, "params.chunk");
}

static void ser_params_ack(rs_codec *c, rs_msg_params_ack *m)
{
    rs_proto__u8(c, &m->kind, 0, RS_PARAMS_KIND_COUNT - 1, "params_ack.kind");
    rs_proto__u64(c, &m->id_hash, "params_ack.id_hash");
}

static void ser_desync_report(rs_codec *c, rs_msg_desync_report *m)
{
    rs_proto__varu64(c, &m->tick, 0, TICK_MAX, "desync_report.tick");
    rs_proto__u64(c, &m->client_hash, "desync_report.client_hash");
    rs_proto__u64(c, &m->server_hash, "desync_report.server_hash");
}

/* ------------------------------------------------------------------ race */

static void ser_car_info(rs_codec *c, rs_msg_car_info *m)
{
    rs_proto__u8(c, &m->car, 1, CAR_MAX, "car_info.car");
    rs_proto__u8(c, &m->flags, 0, RS_CAR_CONNECTED | RS_CAR_BOT, "car_info.flags");
    rs_proto__vari64(c, &m->player_id, 0, INT64_MAX, "car_info.player_id");
    ser_player_name(c, m->name, true, "car_info.name"); /* "" = a free slot */
    rs_proto__u64(c, &m->params_hash, "car_info.params_hash");
    rs_proto__u64(c, &m->base_hash, "car_info.base_hash");
    rs_proto__u64(c, &m->tune_hash, "car_info.tune_hash");
    rs_proto__u8(c, &m->class_index, 0, RS_PROTO_MAX_CLASSES - 1, "car_info.class_index");
    rs_proto__varu16(c, &m->number, 0, RS_PROTO_NUMBER_MAX, "car_info.number");
    rs_proto__varu16(c, &m->ballast_kg, 0, RS_PROTO_BALLAST_MAX_KG, "car_info.ballast_kg");
    rs_proto__u8(c, &m->restrictor_pct, 0, RS_PROTO_RESTRICTOR_MAX, "car_info.restrictor_pct");
}

static void ser_race_state(rs_codec *c, rs_msg_race_state *m)
{
    rs_proto__u8(c, &m->phase, 0, RS_PHASE_COUNT - 1, "race_state.phase");
    rs_proto__varu32(c, &m->race_number, 0, UINT32_MAX, "race_state.race_number");
    rs_proto__varu16(c, &m->laps, 0, 1000, "race_state.laps");
    rs_proto__varu64(c, &m->phase_tick, 0, TICK_MAX, "race_state.phase_tick");
    rs_proto__varu64(c, &m->start_tick, 0, TICK_MAX, "race_state.start_tick");
    rs_proto__varu64(c, &m->phase_end_tick, 0, TICK_MAX, "race_state.phase_end_tick");
    rs_proto__u64(c, &m->track_hash, "race_state.track_hash");
    rs_proto__u8(c, &m->session_index, 0, RS_PROTO_MAX_SESSIONS - 1, "race_state.session_index");
    rs_proto__u8(c, &m->session_type, 0, RS_SESSION_TYPE_COUNT - 1, "race_state.session_type");
    rs_proto__varu32(c, &m->time_limit_ms, 0, RS_PROTO_SESSION_MAX_S * 1000u,
                     "race_state.time_limit_ms");
    rs_proto__u8(c, &m->flags, 0, RS_SESSION_CHEQUERED | RS_SESSION_FREE_START,
                 "race_state.flags");
    /* A session ends by laps or by time, never both (rs_proto_session_def);
     * neither is an open session (the lobby). */
    if (rs_proto__codec_ok(c) && m->laps != 0 && m->time_limit_ms != 0)
        rs_proto__codec_fail(c, RS_PROTO_RANGE, "race_state.time_limit_ms");
}

/* One session of a WEEKEND: ends by laps or by time (exactly one set), and
 * only a race has a grid to build. */
static void ser_session_def(rs_codec *c, rs_proto_session_def *d)
{
    rs_proto__u8(c, &d->type, 0, RS_SESSION_TYPE_COUNT - 1, "weekend.sessions.type");
    rs_proto__varu16(c, &d->laps, 0, 1000, "weekend.sessions.laps");
    rs_proto__varu32(c, &d->time_limit_s, 0, RS_PROTO_SESSION_MAX_S,
                     "weekend.sessions.time_limit_s");
    if (rs_proto__codec_ok(c) && (d->laps == 0) == (d->time_limit_s == 0))
        rs_proto__codec_fail(c, RS_PROTO_RANGE, "weekend.sessions.time_limit_s");
    bool race = d->type == RS_SESSION_RACE;
    rs_proto__u8(c, &d->grid_source, 0, race ? RS_GRID_SOURCE_COUNT - 1 : 0,
                 "weekend.sessions.grid_source");
    rs_proto__u8(c, &d->grid_reverse, 0, race ? CAR_MAX : 0, "weekend.sessions.grid_reverse");
}

static void ser_weekend(rs_codec *c, rs_msg_weekend *m)
{
    rs_proto__varu32(c, &m->weekend, 1, UINT32_MAX, "weekend.weekend");
    rs_proto__u8(c, &m->session_count, 1, RS_PROTO_MAX_SESSIONS, "weekend.session_count");
    for (uint32_t i = 0; i < m->session_count && rs_proto__codec_ok(c); i++)
        ser_session_def(c, &m->sessions[i]);
    rs_proto__u8(c, &m->class_count, 0, RS_PROTO_MAX_CLASSES, "weekend.class_count");
    for (uint32_t i = 0; i < m->class_count && rs_proto__codec_ok(c); i++) {
        ser_player_name(c, m->classes[i], false, "weekend.classes");
        /* CAR_INFO and the standings name a class by its index or name:
         * two classes that are one name would be told apart by neither. */
        for (uint32_t k = 0; k < i && rs_proto__codec_ok(c); k++)
            if (rs_proto_name_equal(m->classes[k], m->classes[i]))
                rs_proto__codec_fail(c, RS_PROTO_RANGE, "weekend.classes");
    }
    ser_player_name(c, m->championship, true, "weekend.championship");
    rs_proto__u8(c, &m->car_count, 1, RS_PROTO_MAX_OFFERED, "weekend.car_count");
    for (uint32_t i = 0; i < m->car_count && rs_proto__codec_ok(c); i++) {
        rs_proto_car_offer *o = &m->cars[i];
        rs_proto__u64(c, &o->base_hash, "weekend.cars.base_hash");
        rs_proto__u8(c, &o->class_index, 0,
                     (uint8_t)(m->class_count ? m->class_count - 1 : 0), "weekend.cars.class_index");
        ser_ruled(c, o->name, RS_PROTO_NAME_MAX, rs_proto_text_check, "text", false,
                  "weekend.cars.name");
        /* HELLO names a car by its hash: two offers of one car are one. */
        for (uint32_t k = 0; k < i && rs_proto__codec_ok(c); k++)
            if (m->cars[k].base_hash == o->base_hash)
                rs_proto__codec_fail(c, RS_PROTO_RANGE, "weekend.cars.base_hash");
    }
}

static void ser_lap(rs_codec *c, rs_msg_lap *m)
{
    rs_proto__u8(c, &m->car, 1, CAR_MAX, "lap.car");
    rs_proto__varu32(c, &m->lap, 1, UINT32_MAX, "lap.lap");
    rs_proto__varu64(c, &m->tick, 0, TICK_MAX, "lap.tick");
    rs_proto__vari64(c, &m->time_us, 0, TIME_MAX, "lap.time_us");
    rs_proto__u8(c, &m->sector_count, 0, RS_MAX_SECTORS, "lap.sector_count");
    for (uint32_t i = 0; i < m->sector_count && rs_proto__codec_ok(c); i++)
        rs_proto__vari64(c, &m->sectors_us[i], -1, TIME_MAX, "lap.sectors_us");
    rs_proto__bool(c, &m->valid, "lap.valid");
    rs_proto__u8(c, &m->invalid_reason, 0, RS_LAP_REVERSED, "lap.invalid_reason");
    rs_proto__u8(c, &m->flags, 0,
                 RS_LAP_RECORDED | RS_LAP_PERSONAL_BEST | RS_LAP_TRACK_RECORD | RS_LAP_CHEQUERED,
                 "lap.flags");
    rs_proto__u8(c, &m->position, 1, CAR_MAX, "lap.position");
    if (rs_proto__codec_ok(c) && m->valid != (m->invalid_reason == RS_LAP_VALID))
        rs_proto__codec_fail(c, RS_PROTO_RANGE, "lap.invalid_reason");
}

static void ser_results(rs_codec *c, rs_msg_results *m)
{
    rs_proto__varu32(c, &m->race_number, 0, UINT32_MAX, "results.race_number");
    rs_proto__u8(c, &m->session_index, 0, RS_PROTO_MAX_SESSIONS - 1, "results.session_index");
    rs_proto__u8(c, &m->session_type, 0, RS_SESSION_TYPE_COUNT - 1, "results.session_type");
    rs_proto__u8(c, &m->count, 0, CAR_MAX, "results.count");
    for (uint32_t i = 0; i < m->count && rs_proto__codec_ok(c); i++) {
        rs_proto_result_row *r = &m->rows[i];
        rs_proto__u8(c, &r->car, 1, CAR_MAX, "results.rows.car");
        /* Rows come in classification order: row i is position i + 1, and
         * its place in its class is never behind that (the rows of its
         * class before it are among the rows before it). A room without
         * classes has every car in one. */
        rs_proto__u8(c, &r->position, (uint8_t)(i + 1), (uint8_t)(i + 1), "results.rows.position");
        rs_proto__u8(c, &r->class_position, 1, (uint8_t)(i + 1), "results.rows.class_position");
        rs_proto__u8(c, &r->status, 0, RS_RESULT_STATUS_COUNT - 1, "results.rows.status");
        rs_proto__varu32(c, &r->laps, 0, UINT32_MAX, "results.rows.laps");
        rs_proto__vari64(c, &r->finish_us, -1, TIME_MAX, "results.rows.finish_us");
        rs_proto__vari64(c, &r->best_lap_us, -1, TIME_MAX, "results.rows.best_lap_us");
        rs_proto__varu32(c, &r->penalty_ms, 0, INT32_MAX, "results.rows.penalty_ms");
        /* Laps led are laps completed. */
        uint16_t led_max = r->laps < UINT16_MAX ? (uint16_t)r->laps : UINT16_MAX;
        rs_proto__varu16(c, &r->laps_led, 0, led_max, "results.rows.laps_led");
    }
}

/* ------------------------------------------------- leaderboards and tunes */

static void ser_leaderboard_request(rs_codec *c, rs_msg_leaderboard_request *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "leaderboard_request.request_id");
    rs_proto__u64(c, &m->track_hash, "leaderboard_request.track_hash");
    rs_proto__u64(c, &m->base_hash, "leaderboard_request.base_hash");
    rs_proto__u64(c, &m->tune_key, "leaderboard_request.tune_key");
    rs_proto__varu32(c, &m->offset, 0, RS_PROTO_LIST_OFFSET_MAX, "leaderboard_request.offset");
    rs_proto__u8(c, &m->count, 1, RS_PROTO_LB_ROWS, "leaderboard_request.count");
}

static void ser_leaderboard_reply(rs_codec *c, rs_msg_leaderboard_reply *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "leaderboard_reply.request_id");
    rs_proto__u8(c, &m->result, 0, RS_RESULT_COUNT - 1, "leaderboard_reply.result");
    rs_proto__varu32(c, &m->total, 0, UINT32_MAX, "leaderboard_reply.total");
    rs_proto__varu32(c, &m->offset, 0, UINT32_MAX, "leaderboard_reply.offset");
    rs_proto__u8(c, &m->count, 0, RS_PROTO_LB_ROWS, "leaderboard_reply.count");
    for (uint32_t i = 0; i < m->count && rs_proto__codec_ok(c); i++) {
        rs_proto_lb_row *r = &m->rows[i];
        rs_proto__varu32(c, &r->rank, 1, UINT32_MAX, "leaderboard_reply.rows.rank");
        ser_player_name(c, r->name, false, "leaderboard_reply.rows.name");
        rs_proto__vari64(c, &r->time_us, 0, TIME_MAX, "leaderboard_reply.rows.time_us");
        rs_proto__u64(c, &r->tune_hash, "leaderboard_reply.rows.tune_hash");
        rs_proto__vari64(c, &r->recorded_at, 0, INT64_MAX, "leaderboard_reply.rows.recorded_at");
    }
}

static void ser_tune_save(rs_codec *c, rs_msg_tune_save *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "tune_save.request_id");
    rs_proto__str(c, m->name, 1, RS_PROTO_TUNE_NAME_MAX, "tune_save.name");
    rs_proto__str(c, m->json, 2, RS_PROTO_TUNE_TEXT_MAX, "tune_save.json");
}

static void ser_tune_load(rs_codec *c, rs_msg_tune_load *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "tune_load.request_id");
    rs_proto__str(c, m->name, 1, RS_PROTO_TUNE_NAME_MAX, "tune_load.name");
}

static void ser_tune_list(rs_codec *c, rs_msg_tune_list *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "tune_list.request_id");
    rs_proto__u64(c, &m->base_hash, "tune_list.base_hash");
    rs_proto__varu32(c, &m->offset, 0, RS_PROTO_LIST_OFFSET_MAX, "tune_list.offset");
}

static void ser_select_tune(rs_codec *c, rs_msg_select_tune *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "select_tune.request_id");
    rs_proto__str(c, m->name, 0, RS_PROTO_TUNE_NAME_MAX, "select_tune.name");
}

static void ser_tune_reply(rs_codec *c, rs_msg_tune_reply *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "tune_reply.request_id");
    rs_proto__u8(c, &m->op, 0, RS_TUNE_OP_COUNT - 1, "tune_reply.op");
    rs_proto__u8(c, &m->result, 0, RS_RESULT_COUNT - 1, "tune_reply.result");
    rs_proto__u64(c, &m->tune_hash, "tune_reply.tune_hash");
    rs_proto__varu32(c, &m->total, 0, UINT32_MAX, "tune_reply.total");
    rs_proto__str(c, m->text, 0, RS_PROTO_TUNE_TEXT_MAX, "tune_reply.text");
}

/* ----------------------------------------------------------------- admin */

static void ser_admin(rs_codec *c, rs_msg_admin *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "admin.request_id");
    rs_proto__u8(c, &m->command, 0, RS_ADMIN_COMMAND_COUNT - 1, "admin.command");
    /* The commands aimed at a player name one (empty: the server answers
     * that a name is missing, in words); changing the track names a track,
     * removing a penalty its id. */
    switch (m->command) {
    case RS_ADMIN_KICK:
    case RS_ADMIN_BAN:
    case RS_ADMIN_PENALTY:
    case RS_ADMIN_DISQUALIFY:
    case RS_ADMIN_MUTE:
    case RS_ADMIN_UNMUTE:
        ser_player_name(c, m->arg, true, "admin.arg");
        break;
    default:
        rs_proto__str(c, m->arg, 0, RS_PROTO_TUNE_NAME_MAX, "admin.arg");
    }
    /* An announcement's reason is what every player reads as a chat line
     * (CHAT_MSG), so it follows chat's rules; other reasons are the
     * administrator's words for the record and the player concerned. */
    if (m->command == RS_ADMIN_ANNOUNCE)
        ser_text(c, m->reason, "admin.reason");
    else
        rs_proto__str(c, m->reason, 0, RS_PROTO_TEXT_MAX, "admin.reason");
    /* A time penalty adds 1..3600 s; bans and mutes last at most a year
     * (longer is "until lifted", 0). */
    if (m->command == RS_ADMIN_PENALTY)
        rs_proto__varu32(c, &m->duration_s, 1, RS_PROTO_PENALTY_MAX_S, "admin.duration_s");
    else
        rs_proto__varu32(c, &m->duration_s, 0, 366u * 86400u, "admin.duration_s");
}

static void ser_admin_reply(rs_codec *c, rs_msg_admin_reply *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "admin_reply.request_id");
    rs_proto__u8(c, &m->result, 0, RS_RESULT_COUNT - 1, "admin_reply.result");
    rs_proto__str(c, m->text, 0, RS_PROTO_TEXT_MAX, "admin_reply.text");
}

/* ---------------------------------------------------------------- tokens */

static void ser_token_ack(rs_codec *c, rs_msg_token_ack *m)
{
    rs_proto__u8(c, &m->kind, 0, RS_TOKEN_ACK_COUNT - 1, "token_ack.kind");
}

static void ser_token_rotate(rs_codec *c, rs_msg_token_rotate *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "token_rotate.request_id");
}

static void ser_token_reply(rs_codec *c, rs_msg_token_reply *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "token_reply.request_id");
    rs_proto__u8(c, &m->result, 0, RS_RESULT_COUNT - 1, "token_reply.result");
    ser_token(c, m->token, "token_reply.token");
    /* A token exactly when the rotation succeeded. */
    if (rs_proto__codec_ok(c) && (m->result == RS_RESULT_OK) != (m->token[0] != '\0'))
        rs_proto__codec_fail(c, RS_PROTO_RANGE, "token_reply.token");
    rs_proto__str(c, m->text, 0, RS_PROTO_TEXT_MAX, "token_reply.text");
}

/* ---------------------------------------------------------- race control */

static void ser_penalty(rs_codec *c, rs_msg_penalty *m)
{
    rs_proto__varu32(c, &m->id, 1, UINT32_MAX, "penalty.id");
    rs_proto__u8(c, &m->car, 1, CAR_MAX, "penalty.car");
    rs_proto__u8(c, &m->kind, 0, RS_PENALTY_KIND_COUNT - 1, "penalty.kind");
    rs_proto__u8(c, &m->offence, 0, RS_OFFENCE_COUNT - 1, "penalty.offence");
    /* Only a time penalty has a length. */
    if (m->kind == RS_PENALTY_TIME)
        rs_proto__varu32(c, &m->seconds, 1, RS_PROTO_PENALTY_MAX_S, "penalty.seconds");
    else
        rs_proto__varu32(c, &m->seconds, 0, 0, "penalty.seconds");
    rs_proto__bool(c, &m->removed, "penalty.removed");
    rs_proto__varu64(c, &m->tick, 0, TICK_MAX, "penalty.tick");
    rs_proto__str(c, m->text, 0, RS_PROTO_TEXT_MAX, "penalty.text");
}

/* ------------------------------------------------------------------ chat */

static void ser_chat(rs_codec *c, rs_msg_chat *m)
{
    ser_player_name(c, m->to, true, "chat.to"); /* "" = the room */
    ser_text(c, m->text, "chat.text");
}

static void ser_chat_msg(rs_codec *c, rs_msg_chat_msg *m)
{
    rs_proto__u8(c, &m->kind, 0, RS_CHAT_KIND_COUNT - 1, "chat_msg.kind");
    rs_proto__vari64(c, &m->player_id, 0, INT64_MAX, "chat_msg.player_id");
    ser_player_name(c, m->from, true, "chat_msg.from");
    ser_text(c, m->text, "chat_msg.text");
    if (!rs_proto__codec_ok(c))
        return;
    /* A player's line names its player; the room's own lines have no
     * sender, so none can pass for a player's. */
    if ((m->kind == RS_CHAT_ROOM || m->kind == RS_CHAT_PRIVATE) && !m->from[0])
        rs_proto__codec_fail(c, RS_PROTO_RANGE, "chat_msg.from");
    else if (m->kind == RS_CHAT_SYSTEM && m->from[0])
        rs_proto__codec_fail(c, RS_PROTO_RANGE, "chat_msg.from");
    else if (m->kind == RS_CHAT_SYSTEM && m->player_id != 0)
        rs_proto__codec_fail(c, RS_PROTO_RANGE, "chat_msg.player_id");
}

/* ------------------------------------------------------ players' commands */

static void ser_command(rs_codec *c, rs_msg_command *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "command.request_id");
    rs_proto__u8(c, &m->command, 0, RS_CMD_COUNT - 1, "command.command");
    /* As ADMIN: a player by the name rules (empty: refused by the server in
     * words), anything else (a track, a car) as a str(0..64). */
    if (m->command == RS_CMD_MUTE || m->command == RS_CMD_UNMUTE || m->command == RS_CMD_VOTE_KICK)
        ser_player_name(c, m->arg, true, "command.arg");
    else
        rs_proto__str(c, m->arg, 0, RS_PROTO_TUNE_NAME_MAX, "command.arg");
}

static void ser_command_reply(rs_codec *c, rs_msg_command_reply *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "command_reply.request_id");
    rs_proto__u8(c, &m->result, 0, RS_RESULT_COUNT - 1, "command_reply.result");
    rs_proto__str(c, m->text, 0, RS_PROTO_TEXT_MAX, "command_reply.text");
}

static void ser_vote_state(rs_codec *c, rs_msg_vote_state *m)
{
    rs_proto__varu32(c, &m->vote_id, 1, UINT32_MAX, "vote_state.vote_id");
    rs_proto__u8(c, &m->kind, 0, RS_VOTE_KIND_COUNT - 1, "vote_state.kind");
    rs_proto__u8(c, &m->state, 0, RS_VOTE_STATE_COUNT - 1, "vote_state.state");
    /* A kick names its player and a track vote its track; the others are
     * about the running session and carry nothing. */
    if (m->kind == RS_VOTE_KICK)
        ser_player_name(c, m->arg, false, "vote_state.arg");
    else if (m->kind == RS_VOTE_TRACK)
        rs_proto__str(c, m->arg, 1, RS_PROTO_TUNE_NAME_MAX, "vote_state.arg");
    else
        rs_proto__str(c, m->arg, 0, 0, "vote_state.arg");
    ser_player_name(c, m->by, false, "vote_state.by");
    rs_proto__u8(c, &m->yes, 0, CAR_MAX, "vote_state.yes");
    rs_proto__u8(c, &m->no, 0, CAR_MAX, "vote_state.no");
    rs_proto__u8(c, &m->eligible, 1, CAR_MAX, "vote_state.eligible");
    /* Each eligible player votes at most once. */
    if (rs_proto__codec_ok(c) && m->yes + m->no > m->eligible)
        rs_proto__codec_fail(c, RS_PROTO_RANGE, "vote_state.eligible");
    rs_proto__u8(c, &m->needed, 1, m->eligible, "vote_state.needed");
    /* Only an open vote has time left. */
    rs_proto__varu32(c, &m->ends_in_ms, 0, m->state == RS_VOTE_OPEN ? UINT32_MAX : 0,
                     "vote_state.ends_in_ms");
}

/* --------------------------------------------------------- championships */

static void ser_standings_request(rs_codec *c, rs_msg_standings_request *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "standings_request.request_id");
    ser_player_name(c, m->championship, true, "standings_request.championship");
    ser_player_name(c, m->class_name, true, "standings_request.class_name");
    rs_proto__varu32(c, &m->offset, 0, RS_PROTO_LIST_OFFSET_MAX, "standings_request.offset");
    rs_proto__u8(c, &m->count, 1, RS_PROTO_STANDINGS_ROWS, "standings_request.count");
}

static void ser_standings_reply(rs_codec *c, rs_msg_standings_reply *m)
{
    rs_proto__varu32(c, &m->request_id, 0, UINT32_MAX, "standings_reply.request_id");
    rs_proto__u8(c, &m->result, 0, RS_RESULT_COUNT - 1, "standings_reply.result");
    ser_player_name(c, m->championship, true, "standings_reply.championship");
    rs_proto__varu32(c, &m->total, 0, UINT32_MAX, "standings_reply.total");
    rs_proto__varu32(c, &m->offset, 0, UINT32_MAX, "standings_reply.offset");
    rs_proto__u8(c, &m->count, 0, RS_PROTO_STANDINGS_ROWS, "standings_reply.count");
    for (uint32_t i = 0; i < m->count && rs_proto__codec_ok(c); i++) {
        rs_proto_standing_row *r = &m->rows[i];
        rs_proto__varu32(c, &r->position, 1, UINT32_MAX, "standings_reply.rows.position");
        ser_player_name(c, r->name, false, "standings_reply.rows.name");
        ser_player_name(c, r->class_name, true, "standings_reply.rows.class_name");
        rs_proto__varu32(c, &r->points, 0, UINT32_MAX, "standings_reply.rows.points");
        rs_proto__varu16(c, &r->events, 0, UINT16_MAX, "standings_reply.rows.events");
        rs_proto__varu16(c, &r->wins, 0, UINT16_MAX, "standings_reply.rows.wins");
    }
}

/* -------------------------------------------------------------- dispatch */

/* The type byte, then the message named by it. */
static void ser_message(rs_codec *c, rs_msg *m)
{
    rs_proto__u8(c, &m->type, 0, 255, "type");
    if (!rs_proto__codec_ok(c))
        return;
    switch (m->type) {
#define RS_PROTO_MSG(NAME, name, id, ch, rel, dir) \
    case id:                                       \
        ser_##name(c, &m->u.name);                 \
        break;
#include "racesim/protocol_messages.def"
#undef RS_PROTO_MSG
    default:
        rs_proto__codec_fail(c, RS_PROTO_UNKNOWN_TYPE, "type");
    }
}

typedef struct msg_info {
    const char *name;
    uint8_t channel;
    uint8_t reliable;
    uint8_t direction;
} msg_info;

static const msg_info msg_table[256] = {
#define RS_PROTO_MSG(NAME, name, id, ch, rel, dir) [id] = {#NAME, ch, rel, dir},
#include "racesim/protocol_messages.def"
#undef RS_PROTO_MSG
};

static const uint8_t msg_order[] = {
#define RS_PROTO_MSG(NAME, name, id, ch, rel, dir) id,
#include "racesim/protocol_messages.def"
#undef RS_PROTO_MSG
};

const char *rs_proto_msg_name(uint8_t type)
{
    return msg_table[type].name;
}

const char *rs_proto_session_type_name(uint8_t type)
{
    static const char *const names[RS_SESSION_TYPE_COUNT] = {
        [RS_SESSION_PRACTICE] = "practice", [RS_SESSION_QUALIFYING] = "qualifying",
        [RS_SESSION_WARMUP] = "warmup", [RS_SESSION_RACE] = "race"};
    return type < RS_SESSION_TYPE_COUNT ? names[type] : "unknown";
}

bool rs_proto_msg_info(uint8_t type, uint8_t *channel, bool *reliable, uint8_t *direction)
{
    const msg_info *i = &msg_table[type];
    if (!i->name)
        return false;
    if (channel)
        *channel = i->channel;
    if (reliable)
        *reliable = i->reliable != 0;
    if (direction)
        *direction = i->direction;
    return true;
}

size_t rs_proto_msg_types(uint8_t *out, size_t cap)
{
    size_t n = sizeof msg_order / sizeof msg_order[0];
    for (size_t i = 0; out && i < n && i < cap; i++)
        out[i] = msg_order[i];
    return n;
}

rs_proto_status rs_proto_encode(const rs_msg *msg, uint8_t *buf, size_t cap, size_t *out_len,
                                const char **bad_field)
{
    if (bad_field)
        *bad_field = NULL;
    if (out_len)
        *out_len = 0;
    if (!msg)
        return RS_PROTO_ARG;
    /* The walk is shared with decoding and so takes a mutable message; in
     * writing mode it only reads it. The union converts without a cast. */
    union {
        const rs_msg *c;
        rs_msg *m;
    } u = {msg};
    rs_codec c = rs_proto__codec_writer(buf, cap);
    ser_message(&c, u.m);
    if (c.status == RS_PROTO_OK && c.pos > RS_PROTO_MAX_PACKET)
        rs_proto__codec_fail(&c, RS_PROTO_OVERSIZED, "message");
    else if (c.status == RS_PROTO_OK && c.overflow)
        rs_proto__codec_fail(&c, RS_PROTO_BUFFER, "buffer");
    if (out_len && (c.status == RS_PROTO_OK || c.status == RS_PROTO_BUFFER ||
                    c.status == RS_PROTO_OVERSIZED))
        *out_len = c.pos;
    if (bad_field)
        *bad_field = c.field;
    return c.status;
}

/* The decoder; a refused player name is explained in why (NULL: not). */
static rs_proto_status decode(const uint8_t *buf, size_t len, rs_msg *out, const char **bad_field,
                              char *why, size_t why_len)
{
    if (bad_field)
        *bad_field = NULL;
    if (!out || (!buf && len))
        return RS_PROTO_ARG;
    if (len > RS_PROTO_MAX_PACKET) {
        if (bad_field)
            *bad_field = "message";
        return RS_PROTO_OVERSIZED;
    }
    rs_codec c = rs_proto__codec_reader(buf, len);
    c.why = why;
    c.why_len = why_len;
    ser_message(&c, out);
    if (c.status == RS_PROTO_OK && c.pos != len)
        rs_proto__codec_fail(&c, RS_PROTO_OVERSIZED, "message");
    if (bad_field)
        *bad_field = c.field;
    return c.status;
}

rs_proto_status rs_proto_decode(const uint8_t *buf, size_t len, rs_msg *out,
                                const char **bad_field)
{
    return decode(buf, len, out, bad_field, NULL, 0);
}

rs_proto_status rs_proto_decode_err(const uint8_t *buf, size_t len, rs_msg *out,
                                    const char **bad_field, char *err, size_t err_len)
{
    char why[RS_PROTO_TEXT_MAX + 1];
    why[0] = '\0';
    const char *field = NULL;
    rs_proto_status st = decode(buf, len, out, &field, why, sizeof why);
    if (bad_field)
        *bad_field = field;
    if (st == RS_PROTO_OK) {
        if (err && err_len)
            err[0] = '\0'; /* no formatting on the path every packet takes */
    } else if (why[0]) {
        rs_errf(err, err_len, "%s: %s", field, why);
    } else {
        rs_errf(err, err_len, "%s: %s", field ? field : "message", rs_proto_status_str(st));
    }
    return st;
}

/* ---------------------------------------------------------------- words */

const char *rs_proto_status_str(rs_proto_status status)
{
    switch (status) {
    case RS_PROTO_OK: return "ok";
    case RS_PROTO_TRUNCATED: return "message truncated";
    case RS_PROTO_OVERSIZED: return "message too long";
    case RS_PROTO_RANGE: return "field out of range";
    case RS_PROTO_UNKNOWN_TYPE: return "unknown message type";
    case RS_PROTO_BAD_VERSION: return "protocol version mismatch";
    case RS_PROTO_BUFFER: return "buffer too small";
    case RS_PROTO_INCONSISTENT: return "chunk inconsistent with its transfer";
    case RS_PROTO_BAD_HASH: return "transfer content hash mismatch";
    case RS_PROTO_NOMEM: return "out of memory";
    case RS_PROTO_ARG: return "invalid argument";
    }
    return "unknown status";
}

const char *rs_proto_reason_str(uint8_t reason)
{
    static const char *const words[RS_REASON_COUNT] = {
        "goodbye",
        "protocol version mismatch",
        "physics version mismatch",
        "unknown player or wrong token",
        "name already taken",
        "no such room",
        "wrong room password",
        "room full",
        "banned",
        "kicked",
        "server shutting down",
        "timed out",
        "malformed message",
        "parameter mismatch",
        "refused",
        "server key not trusted",
        "player name not allowed",
        "connected again from elsewhere",
        "not on the entry list",
        "no such car here",
    };
    return reason < RS_REASON_COUNT ? words[reason] : "unknown reason";
}

void rs_proto_refuse_version(uint16_t client_version, rs_msg *out)
{
    memset(out, 0, sizeof *out);
    out->type = RS_MSG_REFUSE;
    out->u.refuse.reason = RS_REASON_VERSION;
    snprintf(out->u.refuse.text, sizeof out->u.refuse.text,
             "protocol version %u, server speaks %u: update %s", (unsigned)client_version,
             (unsigned)RS_PROTO_VERSION,
             client_version < RS_PROTO_VERSION ? "the game" : "the server");
}
