/*
 * Protocol tests: every message round-trips, every truncation, oversize and
 * out-of-range field is refused with the right status, encoders never write
 * past their buffer, chunked transfers reassemble exactly, and the frame
 * stream of a 16-car race fits the bandwidth budget (test_protocol_budget.c).
 * Every range protocol version 6 added is tried at both ends and one past
 * each, in the encoder and in the decoder (range_cases).
 */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "racesim/protocol.h"
#include "test_fixtures.h"
#include "test_protocol_support.h"
#include "test_table.h"

void test_frame_stream_of_a_16_car_race_fits_the_budget(void **state);
void test_input_stream_of_a_driver_fits_the_budget(void **state);

static size_t all_types(uint8_t *types)
{
    size_t n = rs_proto_msg_types(types, 256);
    assert_true(n > 0 && n < 256);
    return n;
}

static size_t encode_ok(const rs_msg *m, uint8_t *buf, size_t cap)
{
    size_t len = 0;
    const char *field = NULL;
    rs_proto_status st = rs_proto_encode(m, buf, cap, &len, &field);
    if (st != RS_PROTO_OK)
        fail_msg("%s: %s (%s)", rs_proto_msg_name(m->type), rs_proto_status_str(st),
                 field ? field : "-");
    return len;
}

static bool delta_eq(const rs_proto_input_delta *a, const rs_proto_input_delta *b)
{
    return a->mask == b->mask && a->steer_delta == b->steer_delta && a->throttle == b->throttle &&
           a->brake == b->brake && a->clutch == b->clutch && a->handbrake == b->handbrake &&
           a->gear == b->gear && a->buttons == b->buttons;
}

/* Field-by-field where structs hold pointers or padding-prone arrays,
 * whole-struct elsewhere (both sides start zeroed and are written field by
 * field, so their padding is zero). */
static void assert_msg_equal(const rs_msg *a, const rs_msg *b)
{
    assert_int_equal(a->type, b->type);
    if (a->type == RS_MSG_FRAME) {
        const rs_msg_frame *x = &a->u.frame, *y = &b->u.frame;
        assert_true(x->first_tick == y->first_tick && x->baseline_back == y->baseline_back &&
                    x->tick_count == y->tick_count && x->car_count == y->car_count &&
                    x->hash_count == y->hash_count && x->input_lead_ms == y->input_lead_ms &&
                    x->late_inputs == y->late_inputs && x->input_ack == y->input_ack);
        for (int t = 0; t < x->tick_count; t++)
            for (int c = 0; c < x->car_count; c++)
                assert_true(delta_eq(&x->deltas[t][c], &y->deltas[t][c]));
        for (int i = 0; i < x->hash_count; i++)
            assert_true(x->hashes[i].index == y->hashes[i].index &&
                        x->hashes[i].hash == y->hashes[i].hash);
        return;
    }
    const rs_proto_chunk *ca = NULL, *cb = NULL;
    rs_msg ta = *a, tb = *b;
    if (a->type == RS_MSG_SNAPSHOT) {
        ca = &a->u.snapshot.chunk;
        cb = &b->u.snapshot.chunk;
        ta.u.snapshot.chunk.data = tb.u.snapshot.chunk.data = NULL;
    } else if (a->type == RS_MSG_PARAMS) {
        ca = &a->u.params.chunk;
        cb = &b->u.params.chunk;
        ta.u.params.chunk.data = tb.u.params.chunk.data = NULL;
    }
    if (ca) {
        assert_int_equal(ca->data_len, cb->data_len);
        assert_memory_equal(ca->data, cb->data, ca->data_len);
    }
    assert_memory_equal(&ta, &tb, sizeof ta);
}

static void test_every_message_round_trips(void **state)
{
    (void)state;
    uint8_t types[256], buf[RS_PROTO_MAX_PACKET], again[RS_PROTO_MAX_PACKET];
    size_t n = all_types(types);
    assert_int_equal(n, RS_MSG_TYPE_END - 1); /* ids are dense from 1 */
    for (size_t i = 0; i < n; i++) {
        static rs_msg m, d, d2;
        proto_sample(types[i], &m);
        size_t need = 0;
        assert_int_equal(rs_proto_encode(&m, NULL, 0, &need, NULL), RS_PROTO_OK);
        size_t len = encode_ok(&m, buf, sizeof buf);
        assert_int_equal(len, need);
        memset(&d, 0, sizeof d);
        const char *field = NULL;
        rs_proto_status st = rs_proto_decode(buf, len, &d, &field);
        if (st != RS_PROTO_OK)
            fail_msg("%s: %s at %s", rs_proto_msg_name(types[i]), rs_proto_status_str(st), field);
        assert_msg_equal(&m, &d);
        /* Canonical: what decodes re-encodes to the same bytes. */
        size_t len2 = encode_ok(&d, again, sizeof again);
        assert_int_equal(len2, len);
        assert_memory_equal(buf, again, len);
        memset(&d2, 0, sizeof d2);
        assert_int_equal(rs_proto_decode(again, len2, &d2, NULL), RS_PROTO_OK);
        printf("  %-20s %4zu bytes\n", rs_proto_msg_name(types[i]), len);
    }
}

static void test_every_message_has_a_name_channel_and_direction(void **state)
{
    (void)state;
    uint8_t types[256];
    size_t n = all_types(types);
    for (size_t i = 0; i < n; i++) {
        uint8_t ch = 99, dir = 0;
        bool rel = false;
        assert_non_null(rs_proto_msg_name(types[i]));
        assert_true(rs_proto_msg_info(types[i], &ch, &rel, &dir));
        assert_true(ch < RS_CH_COUNT);
        assert_true(dir >= RS_DIR_TO_SERVER && dir <= RS_DIR_BOTH);
        /* Inputs share their channel with nothing reliable. */
        if (ch == RS_CH_INPUT)
            assert_false(rel);
        if (ch == RS_CH_CONTROL || ch == RS_CH_BULK)
            assert_true(rel);
    }
    assert_null(rs_proto_msg_name(0));
    assert_null(rs_proto_msg_name(255));
    assert_false(rs_proto_msg_info(0, NULL, NULL, NULL));
    assert_string_equal(rs_proto_msg_name(RS_MSG_FRAME), "FRAME");
}

static void test_every_truncation_is_rejected(void **state)
{
    (void)state;
    uint8_t types[256], buf[RS_PROTO_MAX_PACKET];
    size_t n = all_types(types);
    for (size_t i = 0; i < n; i++) {
        static rs_msg m, d;
        proto_sample(types[i], &m);
        size_t len = encode_ok(&m, buf, sizeof buf);
        for (size_t cut = 0; cut < len; cut++) {
            /* A fresh copy of exactly cut bytes, so ASan sees any over-read. */
            uint8_t *p = malloc(cut ? cut : 1);
            memcpy(p, buf, cut);
            rs_proto_status st = rs_proto_decode(p, cut, &d, NULL);
            free(p);
            if (st != RS_PROTO_TRUNCATED)
                fail_msg("%s cut at %zu of %zu: %s", rs_proto_msg_name(types[i]), cut, len,
                         rs_proto_status_str(st));
        }
    }
}

static void test_oversized_input_is_rejected(void **state)
{
    (void)state;
    uint8_t types[256], buf[RS_PROTO_MAX_PACKET + 8];
    size_t n = all_types(types);
    for (size_t i = 0; i < n; i++) {
        static rs_msg m, d;
        proto_sample(types[i], &m);
        size_t len = encode_ok(&m, buf, sizeof buf);
        buf[len] = 0;
        const char *field = NULL;
        assert_int_equal(rs_proto_decode(buf, len + 1, &d, &field), RS_PROTO_OVERSIZED);
        assert_string_equal(field, "message");
    }
    static uint8_t big[RS_PROTO_MAX_PACKET + 1];
    static rs_msg d;
    big[0] = RS_MSG_PING;
    assert_int_equal(rs_proto_decode(big, sizeof big, &d, NULL), RS_PROTO_OVERSIZED);
}

static void test_encoder_never_writes_past_the_buffer(void **state)
{
    (void)state;
    uint8_t types[256];
    size_t n = all_types(types);
    for (size_t i = 0; i < n; i++) {
        static rs_msg m;
        proto_sample(types[i], &m);
        size_t need = 0;
        assert_int_equal(rs_proto_encode(&m, NULL, 0, &need, NULL), RS_PROTO_OK);
        for (size_t cap = 0; cap < need; cap++) {
            uint8_t *p = malloc(cap + 16);
            memset(p, 0xA5, cap + 16);
            size_t got = 0;
            assert_int_equal(rs_proto_encode(&m, p, cap, &got, NULL), RS_PROTO_BUFFER);
            assert_int_equal(got, need); /* tells the caller what it needs */
            for (size_t k = cap; k < cap + 16; k++)
                assert_int_equal(p[k], 0xA5);
            free(p);
        }
    }
}

static void test_unknown_types_are_rejected(void **state)
{
    (void)state;
    static rs_msg d;
    for (int t = 0; t < 256; t++) {
        if (rs_proto_msg_name((uint8_t)t))
            continue;
        uint8_t b[2] = {(uint8_t)t, 0};
        assert_int_equal(rs_proto_decode(b, 2, &d, NULL), RS_PROTO_UNKNOWN_TYPE);
        assert_int_equal(rs_proto_decode(b, 1, &d, NULL), RS_PROTO_UNKNOWN_TYPE);
        d.type = (uint8_t)t;
        size_t len;
        assert_int_equal(rs_proto_encode(&d, NULL, 0, &len, NULL), RS_PROTO_UNKNOWN_TYPE);
    }
}

/* Encodes a sample, lets patch change the bytes, and expects status. */
static void expect_decode(uint8_t type, void (*patch)(uint8_t *b, size_t *len),
                          rs_proto_status want, const char *want_field)
{
    static rs_msg m, d;
    uint8_t buf[RS_PROTO_MAX_PACKET + 16];
    proto_sample(type, &m);
    size_t len = encode_ok(&m, buf, RS_PROTO_MAX_PACKET);
    patch(buf, &len);
    const char *field = NULL;
    rs_proto_status st = rs_proto_decode(buf, len, &d, &field);
    if (st != want || (want_field && (!field || strcmp(field, want_field) != 0)))
        fail_msg("%s: got %s at %s, want %s at %s", rs_proto_msg_name(type),
                 rs_proto_status_str(st), field ? field : "-", rs_proto_status_str(want),
                 want_field ? want_field : "-");
}

/* Byte offsets in the HELLO sample: type, version (2), physics varint (1),
 * flags, name length, name. */
static void hello_version_other(uint8_t *b, size_t *len)
{
    (void)len;
    b[1] = (uint8_t)(RS_PROTO_VERSION + 5u);
}
static void hello_flags_bad(uint8_t *b, size_t *len) { (void)len; b[4] = 0x80; }
static void hello_name_bad_utf8(uint8_t *b, size_t *len) { (void)len; b[6 + 6] = 0xC3; b[6 + 7] = 0x28; }
static void hello_name_overlong(uint8_t *b, size_t *len) { (void)len; b[6] = 0xC0; b[7] = 0x80; }
static void hello_name_nul(uint8_t *b, size_t *len) { (void)len; b[7] = 0; }
static void hello_name_empty(uint8_t *b, size_t *len)
{
    /* Drop the name's bytes: a zero length where 1..32 are required. */
    size_t n = b[5];
    memmove(b + 6, b + 6 + n, *len - 6 - n);
    *len -= n;
    b[5] = 0;
}
static void hello_token_not_hex(uint8_t *b, size_t *len)
{
    (void)len;
    size_t tok = 6 + b[5] + 1; /* after the name and the token's length byte */
    b[tok + 3] = 'g';
}
static void hello_nonminimal_varint(uint8_t *b, size_t *len)
{
    /* physics_version 3 spelled in two bytes: 0x83 0x00. */
    memmove(b + 5, b + 4, *len - 4);
    b[3] |= 0x80;
    b[4] = 0;
    *len += 1;
}

static void test_out_of_range_fields_are_rejected(void **state)
{
    (void)state;
    expect_decode(RS_MSG_HELLO, hello_flags_bad, RS_PROTO_RANGE, "hello.flags");
    expect_decode(RS_MSG_HELLO, hello_name_bad_utf8, RS_PROTO_RANGE, "hello.name");
    expect_decode(RS_MSG_HELLO, hello_name_overlong, RS_PROTO_RANGE, "hello.name");
    expect_decode(RS_MSG_HELLO, hello_name_nul, RS_PROTO_RANGE, "hello.name");
    expect_decode(RS_MSG_HELLO, hello_name_empty, RS_PROTO_RANGE, "hello.name");
    expect_decode(RS_MSG_HELLO, hello_token_not_hex, RS_PROTO_RANGE, "hello.token");
    expect_decode(RS_MSG_HELLO, hello_nonminimal_varint, RS_PROTO_RANGE, "hello.physics_version");

    /* The encoder refuses the same values, naming the field. */
    static rs_msg m;
    size_t len;
    const char *field;

    proto_sample(RS_MSG_INPUT, &m);
    m.u.input.inputs[3].steer = -32768;
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    assert_string_equal(field, "input.inputs");
    proto_sample(RS_MSG_INPUT, &m);
    m.u.input.inputs[0].gear = 17;
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    proto_sample(RS_MSG_INPUT, &m);
    m.u.input.inputs[0].buttons = 4;
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    proto_sample(RS_MSG_INPUT, &m);
    m.u.input.newest_tick = 3; /* 8 inputs cannot end at tick 3 */
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    assert_string_equal(field, "input.count");
    proto_sample(RS_MSG_FRAME, &m);
    m.u.frame.tick_count = 9;
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    assert_string_equal(field, "frame.tick_count");
    proto_sample(RS_MSG_FRAME, &m);
    m.u.frame.hashes[1].index = 0; /* not increasing */
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    assert_string_equal(field, "frame.hashes");
    proto_sample(RS_MSG_FRAME, &m);
    m.u.frame.baseline_back = 4001; /* before tick 0 */
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    proto_sample(RS_MSG_RACE_STATE, &m);
    m.u.race_state.phase = RS_PHASE_COUNT;
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    assert_string_equal(field, "race_state.phase");
    proto_sample(RS_MSG_LAP, &m);
    m.u.lap.valid = true; /* but it has an invalid reason */
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    proto_sample(RS_MSG_LAP, &m);
    m.u.lap.sector_count = RS_MAX_SECTORS + 1;
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    proto_sample(RS_MSG_LAP, &m);
    m.u.lap.sectors_us[0] = -2;
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    proto_sample(RS_MSG_LAP, &m);
    m.u.lap.position = 0; /* every car that completes a lap has a place */
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    assert_string_equal(field, "lap.position");
    proto_sample(RS_MSG_RESULTS, &m);
    m.u.results.rows[2].position = 4; /* rows must come in classification order */
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    assert_string_equal(field, "results.rows.position");
    proto_sample(RS_MSG_WELCOME, &m);
    m.u.welcome.car_count = 4; /* car 5 is not in a field of 4 */
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    assert_string_equal(field, "welcome.car");
    proto_sample(RS_MSG_HELLO, &m);
    m.u.hello.flags |= RS_HELLO_REGISTER; /* registering while sending a token */
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    assert_string_equal(field, "hello.token");
    proto_sample(RS_MSG_HELLO, &m);
    memset(m.u.hello.name, 'n', sizeof m.u.hello.name); /* no NUL at all */
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    assert_string_equal(field, "hello.name");
    proto_sample(RS_MSG_SNAPSHOT, &m);
    m.u.snapshot.chunk.data_len = 10; /* a middle chunk must be full */
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    proto_sample(RS_MSG_PARAMS, &m);
    m.u.params.kind = RS_PARAMS_TRACK; /* a track belongs to no car */
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, &field), RS_PROTO_RANGE);
    assert_string_equal(field, "params.car");
}

/* Decoder-side range checks on the compact input encoding. */
static void test_bad_input_deltas_are_rejected(void **state)
{
    (void)state;
    static rs_msg d;
    /* INPUT tick 5, ack 0 (5 back: zigzag 10), count 1, then the delta
     * block: changed fields, a bitmap per field, values. */
    uint8_t steer_too_far[] = {RS_MSG_INPUT, 5, 10, 1, RS_DELTA_STEER, 1, 0xff, 0xff, 0x03};
    assert_int_equal(rs_proto_decode(steer_too_far, sizeof steer_too_far, &d, NULL),
                     RS_PROTO_RANGE);
    uint8_t steer_zero_change[] = {RS_MSG_INPUT, 5, 10, 1, RS_DELTA_STEER, 1, 0};
    assert_int_equal(rs_proto_decode(steer_zero_change, sizeof steer_zero_change, &d, NULL),
                     RS_PROTO_RANGE);
    uint8_t gear_bad[] = {RS_MSG_INPUT, 5, 10, 1, RS_DELTA_GEAR, 1, 40};
    assert_int_equal(rs_proto_decode(gear_bad, sizeof gear_bad, &d, NULL), RS_PROTO_RANGE);
    uint8_t fields_bad[] = {RS_MSG_INPUT, 5, 10, 1, 0x80};
    assert_int_equal(rs_proto_decode(fields_bad, sizeof fields_bad, &d, NULL), RS_PROTO_RANGE);
    uint8_t map_past_end[] = {RS_MSG_INPUT, 5, 10, 1, RS_DELTA_BRAKE, 0x03, 9, 9};
    assert_int_equal(rs_proto_decode(map_past_end, sizeof map_past_end, &d, NULL),
                     RS_PROTO_RANGE);
    uint8_t map_empty[] = {RS_MSG_INPUT, 5, 10, 1, RS_DELTA_BRAKE, 0};
    assert_int_equal(rs_proto_decode(map_empty, sizeof map_empty, &d, NULL), RS_PROTO_RANGE);
    uint8_t count_zero[] = {RS_MSG_INPUT, 5, 10, 0, 0};
    assert_int_equal(rs_proto_decode(count_zero, sizeof count_zero, &d, NULL), RS_PROTO_RANGE);
    uint8_t ack_ahead_of_zero[] = {RS_MSG_INPUT, 5, 12, 1, 0};
    assert_int_equal(rs_proto_decode(ack_ahead_of_zero, sizeof ack_ahead_of_zero, &d, NULL),
                     RS_PROTO_RANGE);
    uint8_t no_change[] = {RS_MSG_INPUT, 5, 10, 1, RS_DELTA_BRAKE, 1, 0};
    assert_int_equal(rs_proto_decode(no_change, sizeof no_change, &d, NULL), RS_PROTO_RANGE);
    uint8_t ok[] = {RS_MSG_INPUT, 5, 10, 1, RS_DELTA_STEER | RS_DELTA_GEAR, 1, 1, 0x03, 0xff};
    assert_int_equal(rs_proto_decode(ok, sizeof ok, &d, NULL), RS_PROTO_OK);
    assert_int_equal(d.u.input.inputs[0].steer, -2);
    assert_int_equal(d.u.input.inputs[0].gear, -1);
    assert_int_equal(d.u.input.frame_ack, 0);
    /* A 64-bit varint overflow is out of range, not wrapped. */
    uint8_t tick_overflow[] = {RS_MSG_INPUT, 0xff, 0xff, 0xff, 0xff, 0xff,
                               0xff, 0xff, 0xff, 0xff, 0x7f, 0, 1, 0};
    assert_int_equal(rs_proto_decode(tick_overflow, sizeof tick_overflow, &d, NULL),
                     RS_PROTO_RANGE);
    uint8_t eleven_bytes[] = {RS_MSG_INPUT, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                              0x80, 0x80, 0x80, 0x80, 0x01, 0, 1, 0};
    assert_int_equal(rs_proto_decode(eleven_bytes, sizeof eleven_bytes, &d, NULL),
                     RS_PROTO_RANGE);
    assert_int_equal(rs_proto_decode(tick_overflow, sizeof tick_overflow, &d, NULL),
                     RS_PROTO_RANGE);
}

static void test_frame_inputs_resolve_against_their_baseline(void **state)
{
    (void)state;
    static rs_msg m, d;
    proto_sample(RS_MSG_FRAME, &m);
    rs_input base[16], in[4 * 16], out[4 * 16];
    for (int c = 0; c < 16; c++)
        proto_sample_input(&base[c], c % 8);
    for (int t = 0; t < 4; t++)
        for (int c = 0; c < 16; c++)
            proto_sample_input(&in[t * 16 + c], (c + t) % 8);
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = encode_ok(&m, buf, sizeof buf);
    assert_int_equal(rs_proto_decode(buf, len, &d, NULL), RS_PROTO_OK);
    assert_int_equal(rs_proto_frame_get_inputs(&d.u.frame, base, out), RS_PROTO_OK);
    assert_memory_equal(in, out, sizeof in);
    /* Without the baseline there is nothing to resolve against. */
    assert_int_equal(rs_proto_frame_get_inputs(&d.u.frame, NULL, out), RS_PROTO_ARG);
    /* A baseline that is not the sender's can push steer out of range. */
    base[0].steer = RS_STEER_MAX;
    d.u.frame.deltas[0][0].mask = RS_DELTA_STEER;
    d.u.frame.deltas[0][0].steer_delta = 10;
    assert_int_equal(rs_proto_frame_get_inputs(&d.u.frame, base, out), RS_PROTO_RANGE);
    /* Cars that do not change cost nothing but the block's one field byte. */
    rs_msg_frame *f = &m.u.frame;
    f->tick_count = 1;
    f->hash_count = 0;
    rs_input same[16];
    for (int c = 0; c < 16; c++)
        same[c] = base[c];
    same[0].steer = 0;
    base[0].steer = 0;
    assert_int_equal(rs_proto_frame_set_inputs(f, base, same), RS_PROTO_OK);
    size_t with_all = encode_ok(&m, buf, sizeof buf);
    f->car_count = 0;
    size_t with_none = encode_ok(&m, buf, sizeof buf);
    assert_int_equal(with_all, with_none);
    assert_true(rs_proto_input_neutral().gear == rs_input_default().gear &&
                rs_proto_input_neutral().steer == rs_input_default().steer);
}

static void test_hello_of_another_version_gets_a_readable_refusal(void **state)
{
    (void)state;
    static rs_msg d, r;
    expect_decode(RS_MSG_HELLO, hello_version_other, RS_PROTO_BAD_VERSION, "hello.protocol_version");
    /* Whatever follows the version, the version itself is read. */
    uint8_t b[] = {RS_MSG_HELLO, 7, 0, 0xff};
    assert_int_equal(rs_proto_decode(b, sizeof b, &d, NULL), RS_PROTO_BAD_VERSION);
    assert_int_equal(d.u.hello.protocol_version, 7);
    rs_proto_refuse_version(d.u.hello.protocol_version, &r);
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = encode_ok(&r, buf, sizeof buf);
    assert_int_equal(rs_proto_decode(buf, len, &d, NULL), RS_PROTO_OK);
    assert_int_equal(d.u.refuse.reason, RS_REASON_VERSION);
    char want[64];
    snprintf(want, sizeof want, "protocol version 7, server speaks %u", (unsigned)RS_PROTO_VERSION);
    assert_non_null(strstr(d.u.refuse.text, want));
    assert_string_equal(rs_proto_reason_str(RS_REASON_VERSION), "protocol version mismatch");
    /* REFUSE accepts reasons it does not know, so old clients can show new ones. */
    uint8_t future[] = {RS_MSG_REFUSE, 200, 2, 'h', 'i'};
    assert_int_equal(rs_proto_decode(future, sizeof future, &d, NULL), RS_PROTO_OK);
    assert_string_equal(d.u.refuse.text, "hi");
}

static void test_messages_larger_than_a_packet_are_refused_by_the_encoder(void **state)
{
    (void)state;
    static rs_msg m;
    proto_sample(RS_MSG_FRAME, &m);
    rs_msg_frame *f = &m.u.frame;
    f->tick_count = RS_PROTO_FRAME_MAX_TICKS;
    f->car_count = RS_PROTO_MAX_CARS;
    f->baseline_back = 0;
    f->hash_count = 0;
    /* Every field of every car changes every tick: the worst case. */
    static rs_input in[RS_PROTO_FRAME_MAX_TICKS * RS_PROTO_MAX_CARS];
    for (uint32_t k = 0; k < RS_PROTO_FRAME_MAX_TICKS * RS_PROTO_MAX_CARS; k++) {
        uint32_t i = k / RS_PROTO_MAX_CARS + k % RS_PROTO_MAX_CARS; /* flips every tick */
        in[k].steer = (int16_t)(i % 2 ? RS_STEER_MAX : -RS_STEER_MAX);
        in[k].throttle = in[k].brake = in[k].clutch = in[k].handbrake = (uint8_t)(i % 2 ? 1 : 2);
        in[k].gear = (int8_t)(i % 2 ? 1 : 2);
        in[k].buttons = (uint8_t)(i % 2 ? 1 : 2);
    }
    assert_int_equal(rs_proto_frame_set_inputs(f, NULL, in), RS_PROTO_OK);
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, NULL), RS_PROTO_OVERSIZED);
    assert_true(len > RS_PROTO_MAX_PACKET);
    /* One such tick for a full room still fits. */
    f->tick_count = 1;
    assert_int_equal(rs_proto_encode(&m, NULL, 0, &len, NULL), RS_PROTO_OK);
    assert_true(len <= RS_PROTO_MAX_PACKET);
}

/* ------------------------------------------- version 6: every new range */

/* How an integer field travels (SPEC.md section 2). */
typedef enum wire_kind { W_U8, W_VAR, W_SVAR } wire_kind;

/* One integer field of a message and its range: the sample (fitted to the
 * case by prep) must encode and decode with the field at hi and, unless a
 * rule across fields forbids it there, at lo; one past each end must be
 * refused, naming the field, by the encoder (where the C type can hold the
 * value) and by the decoder (the value spliced into the bytes in place of
 * the field's own). */
typedef struct range_case {
    const char *field;    /* the test's name, and the field the codec names */
    uint8_t type;
    size_t offset, size;  /* the integer's place in rs_msg */
    wire_kind how;
    int64_t lo, hi;
    uint32_t occurrence;  /* the field's place among the fields of its name (rows[i]: i) */
    void (*prep)(rs_msg *m);
    bool lo_blocked;      /* lo is refused by a rule across fields, not by the range */
} range_case;

#define RC(TYPE, path, how, lo, hi, occ, prep, blocked)                                       \
    {#path, RS_MSG_##TYPE, offsetof(rs_msg, u.path), sizeof(((rs_msg *)0)->u.path), how, lo, \
     hi, occ, prep, blocked}
/* The field name the codec reports for a path with an array index in it. */
#define RCN(name, TYPE, path, how, lo, hi, occ, prep, blocked)                                \
    {name, RS_MSG_##TYPE, offsetof(rs_msg, u.path), sizeof(((rs_msg *)0)->u.path), how, lo,  \
     hi, occ, prep, blocked}

static void results_many_laps(rs_msg *m) { m->u.results.rows[1].laps = 100000; }
/* Every car slot a car: any count from 1 to 8 is then a valid list. */
static void weekend_every_car(rs_msg *m)
{
    for (uint32_t i = 0; i < RS_PROTO_MAX_OFFERED; i++) {
        m->u.weekend.cars[i].base_hash = 1000u + i;
        snprintf(m->u.weekend.cars[i].name, sizeof m->u.weekend.cars[i].name, "car %u",
                 (unsigned)i);
    }
}
/* Fewer classes: every car in the first, which exists or is the "none". */
static void weekend_classless_cars(rs_msg *m)
{
    for (uint32_t i = 0; i < m->u.weekend.car_count; i++)
        m->u.weekend.cars[i].class_index = 0;
}
static void admin_penalty(rs_msg *m)
{
    m->u.admin.command = RS_ADMIN_PENALTY;
    m->u.admin.duration_s = 30;
}
static void penalty_no_length(rs_msg *m) { m->u.penalty.seconds = 0; }
static void penalty_dsq(rs_msg *m)
{
    m->u.penalty.kind = RS_PENALTY_DSQ;
    m->u.penalty.seconds = 0;
}
static void chat_from_the_room(rs_msg *m)
{
    m->u.chat_msg.from[0] = '\0';
    m->u.chat_msg.player_id = 0;
}
static void vote_closed(rs_msg *m) { m->u.vote_state.ends_in_ms = 0; }
static void vote_decided(rs_msg *m)
{
    m->u.vote_state.state = RS_VOTE_PASSED;
    m->u.vote_state.ends_in_ms = 0;
}
static void vote_full_room(rs_msg *m)
{
    m->u.vote_state.eligible = 32;
    m->u.vote_state.yes = m->u.vote_state.no = 0;
    m->u.vote_state.needed = 1;
}
static void vote_empty(rs_msg *m)
{
    m->u.vote_state.yes = m->u.vote_state.no = 0;
    m->u.vote_state.needed = 1;
}

#define U32 ((int64_t)UINT32_MAX)
#define TICKS ((INT64_C(1) << 48) - 1)
static range_case range_cases[] = {
    RC(CAR_INFO, car_info.class_index, W_U8, 0, RS_PROTO_MAX_CLASSES - 1, 0, NULL, false),
    RC(CAR_INFO, car_info.number, W_VAR, 0, RS_PROTO_NUMBER_MAX, 0, NULL, false),
    RC(CAR_INFO, car_info.ballast_kg, W_VAR, 0, RS_PROTO_BALLAST_MAX_KG, 0, NULL, false),
    RC(CAR_INFO, car_info.restrictor_pct, W_U8, 0, RS_PROTO_RESTRICTOR_MAX, 0, NULL, false),
    RC(RACE_STATE, race_state.session_index, W_U8, 0, RS_PROTO_MAX_SESSIONS - 1, 0, NULL, false),
    RC(RACE_STATE, race_state.session_type, W_U8, 0, RS_SESSION_TYPE_COUNT - 1, 0, NULL, false),
    RC(RACE_STATE, race_state.time_limit_ms, W_VAR, 0, RS_PROTO_SESSION_MAX_S * INT64_C(1000), 0,
       NULL, false),
    RC(RACE_STATE, race_state.flags, W_U8, 0, RS_SESSION_CHEQUERED | RS_SESSION_FREE_START, 0,
       NULL, false),
    RC(WEEKEND, weekend.weekend, W_VAR, 1, U32, 0, NULL, false),
    RC(WEEKEND, weekend.session_count, W_U8, 1, RS_PROTO_MAX_SESSIONS, 0, NULL, false),
    RCN("weekend.sessions.type", WEEKEND, weekend.sessions[0].type, W_U8, 0,
        RS_SESSION_TYPE_COUNT - 1, 0, NULL, false),
    /* Session 1 is lap-limited and session 0 timed: the other count is 0,
     * and exactly one must be set. */
    RCN("weekend.sessions.laps", WEEKEND, weekend.sessions[1].laps, W_VAR, 0, 1000, 1, NULL, true),
    RCN("weekend.sessions.time_limit_s", WEEKEND, weekend.sessions[0].time_limit_s, W_VAR, 0,
        RS_PROTO_SESSION_MAX_S, 0, NULL, true),
    /* Session 3 is a race, session 1 qualifying: no grid of its own. */
    RCN("weekend.sessions.grid_source", WEEKEND, weekend.sessions[3].grid_source, W_U8, 0,
        RS_GRID_SOURCE_COUNT - 1, 3, NULL, false),
    RCN("weekend.sessions.grid_reverse", WEEKEND, weekend.sessions[3].grid_reverse, W_U8, 0,
        RS_PROTO_MAX_CARS, 3, NULL, false),
    RCN("weekend.sessions.grid_source", WEEKEND, weekend.sessions[1].grid_source, W_U8, 0, 0, 1,
        NULL, false),
    RCN("weekend.sessions.grid_reverse", WEEKEND, weekend.sessions[1].grid_reverse, W_U8, 0, 0, 1,
        NULL, false),
    RC(WEEKEND, weekend.class_count, W_U8, 0, RS_PROTO_MAX_CLASSES, 0, weekend_classless_cars,
       false),
    RC(WEEKEND, weekend.car_count, W_U8, 1, RS_PROTO_MAX_OFFERED, 0, weekend_every_car, false),
    RCN("weekend.cars.class_index", WEEKEND, weekend.cars[1].class_index, W_U8, 0,
        RS_PROTO_MAX_CLASSES - 1, 1, NULL, false),
    RC(LAP, lap.flags, W_U8, 0, 15, 0, NULL, false),
    RC(RESULTS, results.session_index, W_U8, 0, RS_PROTO_MAX_SESSIONS - 1, 0, NULL, false),
    RC(RESULTS, results.session_type, W_U8, 0, RS_SESSION_TYPE_COUNT - 1, 0, NULL, false),
    /* Row 4 is position 5: 1st to at worst 5th of its class. */
    RCN("results.rows.class_position", RESULTS, results.rows[4].class_position, W_U8, 1, 5, 4,
        NULL, false),
    RCN("results.rows.status", RESULTS, results.rows[0].status, W_U8, 0,
        RS_RESULT_STATUS_COUNT - 1, 0, NULL, false),
    RCN("results.rows.penalty_ms", RESULTS, results.rows[2].penalty_ms, W_VAR, 0, INT32_MAX, 2,
        NULL, false),
    /* Laps led are laps completed (5), and at most 65535 of a longer race. */
    RCN("results.rows.laps_led", RESULTS, results.rows[0].laps_led, W_VAR, 0, 5, 0, NULL, false),
    RCN("results.rows.laps_led", RESULTS, results.rows[1].laps_led, W_VAR, 0, UINT16_MAX, 1,
        results_many_laps, false),
    RC(ADMIN, admin.command, W_U8, 0, RS_ADMIN_COMMAND_COUNT - 1, 0, NULL, false),
    RC(ADMIN, admin.duration_s, W_VAR, 1, RS_PROTO_PENALTY_MAX_S, 0, admin_penalty, false),
    RC(PENALTY, penalty.id, W_VAR, 1, U32, 0, NULL, false),
    RC(PENALTY, penalty.car, W_U8, 1, RS_PROTO_MAX_CARS, 0, NULL, false),
    /* A time penalty (0) has a length, a warning (2) none. */
    RC(PENALTY, penalty.kind, W_U8, 0, RS_PENALTY_KIND_COUNT - 1, 0, penalty_no_length, true),
    RC(PENALTY, penalty.offence, W_U8, 0, RS_OFFENCE_COUNT - 1, 0, NULL, false),
    RC(PENALTY, penalty.seconds, W_VAR, 1, RS_PROTO_PENALTY_MAX_S, 0, NULL, false),
    RC(PENALTY, penalty.seconds, W_VAR, 0, 0, 0, penalty_dsq, false),
    RC(PENALTY, penalty.tick, W_VAR, 0, TICKS, 0, NULL, false),
    /* The room's own lines (3) have no sender, players' (0) one. */
    RC(CHAT_MSG, chat_msg.kind, W_U8, 0, RS_CHAT_KIND_COUNT - 1, 0, chat_from_the_room, true),
    RC(CHAT_MSG, chat_msg.player_id, W_SVAR, 0, INT64_MAX, 0, NULL, false),
    RC(COMMAND, command.command, W_U8, 0, RS_CMD_COUNT - 1, 0, NULL, false),
    RC(COMMAND_REPLY, command_reply.result, W_U8, 0, RS_RESULT_COUNT - 1, 0, NULL, false),
    RC(VOTE_STATE, vote_state.vote_id, W_VAR, 1, U32, 0, NULL, false),
    RC(VOTE_STATE, vote_state.kind, W_U8, 0, RS_VOTE_KIND_COUNT - 1, 0, NULL, false),
    RC(VOTE_STATE, vote_state.state, W_U8, 0, RS_VOTE_STATE_COUNT - 1, 0, vote_closed, false),
    RC(VOTE_STATE, vote_state.yes, W_U8, 0, RS_PROTO_MAX_CARS, 0, vote_full_room, false),
    RC(VOTE_STATE, vote_state.no, W_U8, 0, RS_PROTO_MAX_CARS, 0, vote_full_room, false),
    RC(VOTE_STATE, vote_state.eligible, W_U8, 1, RS_PROTO_MAX_CARS, 0, vote_empty, false),
    RC(VOTE_STATE, vote_state.needed, W_U8, 1, 6, 0, NULL, false),
    RC(VOTE_STATE, vote_state.ends_in_ms, W_VAR, 0, U32, 0, NULL, false),
    RC(VOTE_STATE, vote_state.ends_in_ms, W_VAR, 0, 0, 0, vote_decided, false),
    RC(STANDINGS_REQUEST, standings_request.offset, W_VAR, 0, RS_PROTO_LIST_OFFSET_MAX, 0, NULL,
       false),
    RC(STANDINGS_REQUEST, standings_request.count, W_U8, 1, RS_PROTO_STANDINGS_ROWS, 0, NULL,
       false),
    RC(STANDINGS_REPLY, standings_reply.result, W_U8, 0, RS_RESULT_COUNT - 1, 0, NULL, false),
    RC(STANDINGS_REPLY, standings_reply.count, W_U8, 0, RS_PROTO_STANDINGS_ROWS, 0, NULL, false),
    RCN("standings_reply.rows.position", STANDINGS_REPLY, standings_reply.rows[0].position, W_VAR,
        1, U32, 0, NULL, false),
};
#undef U32
#undef TICKS
#undef RC
#undef RCN

/* Writes v into the case's integer (two's complement for signed fields). */
static void set_field(rs_msg *m, const range_case *rc, int64_t v)
{
    uint8_t *p = (uint8_t *)m + rc->offset;
    uint64_t u = (uint64_t)v;
    if (rc->size == 1) {
        uint8_t x = (uint8_t)u;
        memcpy(p, &x, 1);
    } else if (rc->size == 2) {
        uint16_t x = (uint16_t)u;
        memcpy(p, &x, 2);
    } else if (rc->size == 4) {
        uint32_t x = (uint32_t)u;
        memcpy(p, &x, 4);
    } else {
        memcpy(p, &u, 8);
    }
}

static int64_t get_field(const rs_msg *m, const range_case *rc)
{
    const uint8_t *p = (const uint8_t *)m + rc->offset;
    if (rc->size == 1)
        return *p;
    if (rc->size == 2) {
        uint16_t x;
        memcpy(&x, p, 2);
        return x;
    }
    if (rc->size == 4) {
        uint32_t x;
        memcpy(&x, p, 4);
        return x;
    }
    int64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* Whether the field's C type holds v (only the 64-bit one is signed). */
static bool field_holds(const range_case *rc, int64_t v)
{
    if (rc->size == 8)
        return true;
    return v >= 0 && (uint64_t)v < (UINT64_C(1) << (8 * rc->size));
}

/* v as the field's wire bytes (SPEC.md section 2) into out; 0 when the
 * wire cannot spell it. */
static size_t wire_spell(wire_kind how, int64_t v, uint8_t *out)
{
    uint64_t u;
    if (how == W_U8) {
        if (v < 0 || v > 255)
            return 0;
        out[0] = (uint8_t)v;
        return 1;
    }
    if (how == W_VAR) {
        if (v < 0)
            return 0;
        u = (uint64_t)v;
    } else {
        u = v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1;
    }
    size_t n = 0;
    do {
        out[n] = (uint8_t)(u & 0x7f);
        u >>= 7;
        out[n] |= u ? 0x80 : 0;
        n++;
    } while (u);
    return n;
}

/* Where the occurrence-th field named field lies in buf: a decoder given
 * buf cut anywhere inside a field runs out of bytes in it and names it, so
 * the cuts that name it are the field's bytes. */
static bool field_span(const uint8_t *buf, size_t len, const char *field, uint32_t occurrence,
                       size_t *start, size_t *n)
{
    static rs_msg d;
    uint32_t run = 0;
    bool in = false;
    for (size_t cut = 0; cut <= len; cut++) {
        const char *f = NULL;
        bool here = cut < len && rs_proto_decode(buf, cut, &d, &f) == RS_PROTO_TRUNCATED && f &&
                    strcmp(f, field) == 0;
        if (here && !in && run == occurrence)
            *start = cut;
        if (!here && in) {
            if (run == occurrence) {
                *n = cut - *start;
                return true;
            }
            run++;
        }
        in = here;
    }
    return false;
}

/* buf with the field at [start, start + n) replaced by v's spelling, decoded:
 * the status and the field named. */
static rs_proto_status decode_spliced(const uint8_t *buf, size_t len, size_t start, size_t n,
                                      wire_kind how, int64_t v, const char **field)
{
    static rs_msg d;
    uint8_t spliced[RS_PROTO_MAX_PACKET + 16], spell[10];
    size_t k = wire_spell(how, v, spell);
    assert_true(k > 0);
    memcpy(spliced, buf, start);
    memcpy(spliced + start, spell, k);
    memcpy(spliced + start + k, buf + start + n, len - start - n);
    return rs_proto_decode(spliced, len - n + k, &d, field);
}

static void test_range_case(void **state)
{
    const range_case *rc = *state;
    static rs_msg m, d;
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    const char *field = NULL;
    /* Both ends are accepted and read back. */
    for (int end = 0; end < 2; end++) {
        if (end == 0 && rc->lo_blocked)
            continue;
        int64_t v = end == 0 ? rc->lo : rc->hi;
        proto_sample(rc->type, &m);
        if (rc->prep)
            rc->prep(&m);
        set_field(&m, rc, v);
        len = encode_ok(&m, buf, sizeof buf);
        memset(&d, 0, sizeof d);
        rs_proto_status st = rs_proto_decode(buf, len, &d, &field);
        if (st != RS_PROTO_OK)
            fail_msg("%s = %lld: %s at %s", rc->field, (long long)v, rs_proto_status_str(st),
                     field ? field : "-");
        assert_true(get_field(&d, rc) == v);
    }
    /* buf now holds the field at hi: find it for the decoder's side. */
    size_t start = 0, n = 0;
    if (!field_span(buf, len, rc->field, rc->occurrence, &start, &n))
        fail_msg("%s: not found in the encoded sample", rc->field);
    /* One past each end, where the wire can spell it. */
    const bool past_exists[2] = {rc->lo > (rc->how == W_SVAR ? INT64_MIN : 0),
                                 rc->hi < (rc->how == W_U8 ? 255 : INT64_MAX)};
    int tried = 0;
    for (int end = 0; end < 2; end++) {
        if (!past_exists[end])
            continue;
        int64_t v = end == 0 ? rc->lo - 1 : rc->hi + 1;
        if (field_holds(rc, v)) {
            proto_sample(rc->type, &m);
            if (rc->prep)
                rc->prep(&m);
            set_field(&m, rc, v);
            field = NULL;
            rs_proto_status st = rs_proto_encode(&m, NULL, 0, &len, &field);
            if (st != RS_PROTO_RANGE || !field || strcmp(field, rc->field) != 0)
                fail_msg("encoding %s = %lld: %s at %s", rc->field, (long long)v,
                         rs_proto_status_str(st), field ? field : "-");
            tried++;
        }
        proto_sample(rc->type, &m);
        if (rc->prep)
            rc->prep(&m);
        set_field(&m, rc, rc->hi);
        len = encode_ok(&m, buf, sizeof buf);
        field = NULL;
        rs_proto_status st = decode_spliced(buf, len, start, n, rc->how, v, &field);
        if (st != RS_PROTO_RANGE || !field || strcmp(field, rc->field) != 0)
            fail_msg("decoding %s = %lld: %s at %s", rc->field, (long long)v,
                     rs_proto_status_str(st), field ? field : "-");
        tried++;
    }
    assert_true(tried > 0);
}

/* The sample of type fitted by prep, encoded. */
static size_t encode_sample(uint8_t type, void (*prep)(rs_msg *m), uint8_t *buf)
{
    static rs_msg m;
    proto_sample(type, &m);
    if (prep)
        prep(&m);
    return encode_ok(&m, buf, RS_PROTO_MAX_PACKET);
}

/* Encodes the sample fitted by prep, expecting the encoder to refuse it
 * with RANGE at field. */
static void expect_encode_range(uint8_t type, void (*prep)(rs_msg *m), const char *want)
{
    static rs_msg m;
    proto_sample(type, &m);
    prep(&m);
    size_t len = 0;
    const char *field = NULL;
    rs_proto_status st = rs_proto_encode(&m, NULL, 0, &len, &field);
    if (st != RS_PROTO_RANGE || !field || strcmp(field, want) != 0)
        fail_msg("%s: got %s at %s, want RANGE at %s", rs_proto_msg_name(type),
                 rs_proto_status_str(st), field ? field : "-", want);
}

/* Encodes the sample fitted by prep, puts v in place of the occurrence-th
 * field at, and expects the decoder to refuse it with RANGE at want. */
static void expect_decode_range(uint8_t type, void (*prep)(rs_msg *m), const char *at,
                                uint32_t occurrence, wire_kind how, int64_t v, const char *want)
{
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = encode_sample(type, prep, buf), start = 0, n = 0;
    if (!field_span(buf, len, at, occurrence, &start, &n))
        fail_msg("%s: not found", at);
    const char *field = NULL;
    rs_proto_status st = decode_spliced(buf, len, start, n, how, v, &field);
    if (st != RS_PROTO_RANGE || !field || strcmp(field, want) != 0)
        fail_msg("%s = %lld: got %s at %s, want RANGE at %s", at, (long long)v,
                 rs_proto_status_str(st), field ? field : "-", want);
}

static void race_state_laps(rs_msg *m) { m->u.race_state.laps = 5; }
static void race_state_lap_limited(rs_msg *m)
{
    m->u.race_state.laps = 5;
    m->u.race_state.time_limit_ms = 0;
}
static void session_neither(rs_msg *m) { m->u.weekend.sessions[1].laps = 0; }
static void session_both(rs_msg *m) { m->u.weekend.sessions[0].laps = 3; }
static void classes_twice(rs_msg *m) { strcpy(m->u.weekend.classes[5], "gt3"); }
static void chat_room_anonymous(rs_msg *m)
{
    m->u.chat_msg.kind = RS_CHAT_ROOM;
    m->u.chat_msg.from[0] = '\0';
}
static void chat_system_named(rs_msg *m) { m->u.chat_msg.kind = RS_CHAT_SYSTEM; }
static void chat_system_with_id(rs_msg *m)
{
    m->u.chat_msg.kind = RS_CHAT_SYSTEM;
    m->u.chat_msg.from[0] = '\0';
}
static void chat_announce_anonymous(rs_msg *m)
{
    m->u.chat_msg.kind = RS_CHAT_ANNOUNCE;
    m->u.chat_msg.from[0] = '\0';
    m->u.chat_msg.player_id = 0;
}
static void chat_announce_with_id(rs_msg *m)
{
    m->u.chat_msg.kind = RS_CHAT_ANNOUNCE;
    m->u.chat_msg.from[0] = '\0';
}
static void vote_overcounted(rs_msg *m) { m->u.vote_state.no = 4; }
static void vote_kick_nobody(rs_msg *m) { m->u.vote_state.arg[0] = '\0'; }
static void vote_restart_with_arg(rs_msg *m) { m->u.vote_state.kind = RS_VOTE_RESTART; }
static void vote_track_without_arg(rs_msg *m)
{
    m->u.vote_state.kind = RS_VOTE_TRACK;
    m->u.vote_state.arg[0] = '\0';
}
static void vote_by_nobody(rs_msg *m) { m->u.vote_state.by[0] = '\0'; }
static void announce_empty(rs_msg *m)
{
    m->u.admin.command = RS_ADMIN_ANNOUNCE;
    m->u.admin.reason[0] = '\0';
}
static void announce_two_lines(rs_msg *m)
{
    m->u.admin.command = RS_ADMIN_ANNOUNCE;
    strcpy(m->u.admin.reason, "race at 8\nbe there");
}
static void kick_two_lines(rs_msg *m) { strcpy(m->u.admin.reason, "race at 8\nbe there"); }
static void chat_newline(rs_msg *m) { strcpy(m->u.chat.text, "gg\nwp"); }
static void chat_empty(rs_msg *m) { m->u.chat.text[0] = '\0'; }
static void chat_to_the_room(rs_msg *m) { m->u.chat.to[0] = '\0'; }
static void chat_to_bad_name(rs_msg *m) { strcpy(m->u.chat.to, " Ayrton"); }
static void standings_everyone(rs_msg *m)
{
    m->u.standings_request.championship[0] = '\0';
    m->u.standings_request.class_name[0] = '\0';
}
static void standings_row_unnamed(rs_msg *m) { m->u.standings_reply.rows[3].name[0] = '\0'; }

/* The rules that tie one field of a version 6 message to another: the
 * encoder refuses to break them and the decoder refuses bytes that do; what
 * they allow is accepted. */
static void test_rules_across_fields_are_refused_both_ways(void **state)
{
    (void)state;
    uint8_t buf[RS_PROTO_MAX_PACKET];
    /* A session ends by laps or by time, never both. */
    expect_encode_range(RS_MSG_RACE_STATE, race_state_laps, "race_state.time_limit_ms");
    expect_decode_range(RS_MSG_RACE_STATE, race_state_lap_limited, "race_state.time_limit_ms", 0,
                        W_VAR, 1, "race_state.time_limit_ms");
    expect_decode_range(RS_MSG_RACE_STATE, NULL, "race_state.laps", 0, W_VAR, 5,
                        "race_state.time_limit_ms");
    encode_sample(RS_MSG_RACE_STATE, race_state_lap_limited, buf);
    /* ...and a weekend's session by exactly one of them. */
    expect_encode_range(RS_MSG_WEEKEND, session_neither, "weekend.sessions.time_limit_s");
    expect_encode_range(RS_MSG_WEEKEND, session_both, "weekend.sessions.time_limit_s");
    expect_decode_range(RS_MSG_WEEKEND, NULL, "weekend.sessions.laps", 1, W_VAR, 0,
                        "weekend.sessions.time_limit_s");
    expect_decode_range(RS_MSG_WEEKEND, NULL, "weekend.sessions.laps", 0, W_VAR, 3,
                        "weekend.sessions.time_limit_s");
    /* Two classes that are one name (ASCII case aside). */
    expect_encode_range(RS_MSG_WEEKEND, classes_twice, "weekend.classes");
    size_t len = encode_sample(RS_MSG_WEEKEND, NULL, buf);
    uint8_t *tcr = memmem(buf, len, "TCR", 3);
    assert_non_null(tcr);
    memcpy(tcr, "gt4", 3); /* "GT4" is class 1 */
    static rs_msg d;
    const char *field = NULL;
    assert_int_equal(rs_proto_decode(buf, len, &d, &field), RS_PROTO_RANGE);
    assert_string_equal(field, "weekend.classes");
    /* A player's chat line names its player; the room's own names nobody,
     * not even by id; an announcement may come from the server. */
    expect_encode_range(RS_MSG_CHAT_MSG, chat_room_anonymous, "chat_msg.from");
    expect_encode_range(RS_MSG_CHAT_MSG, chat_system_named, "chat_msg.from");
    expect_encode_range(RS_MSG_CHAT_MSG, chat_system_with_id, "chat_msg.player_id");
    expect_decode_range(RS_MSG_CHAT_MSG, chat_announce_anonymous, "chat_msg.kind", 0, W_U8,
                        RS_CHAT_ROOM, "chat_msg.from");
    expect_decode_range(RS_MSG_CHAT_MSG, chat_announce_anonymous, "chat_msg.kind", 0, W_U8,
                        RS_CHAT_PRIVATE, "chat_msg.from");
    expect_decode_range(RS_MSG_CHAT_MSG, NULL, "chat_msg.kind", 0, W_U8, RS_CHAT_SYSTEM,
                        "chat_msg.from");
    expect_decode_range(RS_MSG_CHAT_MSG, chat_announce_with_id, "chat_msg.kind", 0, W_U8,
                        RS_CHAT_SYSTEM, "chat_msg.player_id");
    encode_sample(RS_MSG_CHAT_MSG, chat_announce_anonymous, buf);
    encode_sample(RS_MSG_CHAT_MSG, chat_announce_with_id, buf);
    /* Each eligible player votes once at most. */
    expect_encode_range(RS_MSG_VOTE_STATE, vote_overcounted, "vote_state.eligible");
    expect_decode_range(RS_MSG_VOTE_STATE, NULL, "vote_state.eligible", 0, W_U8, 3,
                        "vote_state.eligible");
    /* A kick names a player, a track vote a track, the others nothing; the
     * caller is always named. */
    expect_encode_range(RS_MSG_VOTE_STATE, vote_kick_nobody, "vote_state.arg");
    expect_encode_range(RS_MSG_VOTE_STATE, vote_restart_with_arg, "vote_state.arg");
    expect_encode_range(RS_MSG_VOTE_STATE, vote_track_without_arg, "vote_state.arg");
    expect_encode_range(RS_MSG_VOTE_STATE, vote_by_nobody, "vote_state.by");
    expect_decode_range(RS_MSG_VOTE_STATE, NULL, "vote_state.kind", 0, W_U8, RS_VOTE_SKIP,
                        "vote_state.arg");
    /* An announcement is chat text: one line, not empty. Other reasons are
     * the administrator's words as they are. */
    expect_encode_range(RS_MSG_ADMIN, announce_empty, "admin.reason");
    expect_encode_range(RS_MSG_ADMIN, announce_two_lines, "admin.reason");
    encode_sample(RS_MSG_ADMIN, kick_two_lines, buf);
    expect_decode_range(RS_MSG_ADMIN, kick_two_lines, "admin.command", 0, W_U8, RS_ADMIN_ANNOUNCE,
                        "admin.reason");
    /* Chat text, and whom it is for. */
    expect_encode_range(RS_MSG_CHAT, chat_newline, "chat.text");
    expect_encode_range(RS_MSG_CHAT, chat_empty, "chat.text");
    expect_encode_range(RS_MSG_CHAT, chat_to_bad_name, "chat.to");
    encode_sample(RS_MSG_CHAT, chat_to_the_room, buf);
    /* Standings: "" is the room's championship and every class, never a
     * driver. */
    encode_sample(RS_MSG_STANDINGS_REQUEST, standings_everyone, buf);
    expect_encode_range(RS_MSG_STANDINGS_REPLY, standings_row_unnamed, "standings_reply.rows.name");
}

/* The largest spelling of the version 6 messages that carry lists (every
 * row, every name 32 bytes of 4-byte characters, every varint at its
 * longest) still fits one packet. The sizes are SPEC.md's. */
static void test_the_largest_new_messages_fit_a_packet(void **state)
{
    (void)state;
    static rs_msg m;
    uint8_t buf[RS_PROTO_MAX_PACKET];
    /* 32 bytes: eight U+1F3C1 (chequered flag). */
    char longest[RS_PROTO_NAME_MAX + 1] = "";
    for (int i = 0; i < 8; i++)
        strcat(longest, "\xf0\x9f\x8f\x81");
    assert_int_equal(strlen(longest), RS_PROTO_NAME_MAX);

    memset(&m, 0, sizeof m);
    m.type = RS_MSG_RESULTS;
    m.u.results = (rs_msg_results){.race_number = UINT32_MAX,
                                   .session_index = RS_PROTO_MAX_SESSIONS - 1,
                                   .session_type = RS_SESSION_RACE,
                                   .count = RS_PROTO_MAX_CARS};
    for (uint32_t i = 0; i < RS_PROTO_MAX_CARS; i++)
        m.u.results.rows[i] = (rs_proto_result_row){.car = (uint8_t)(i + 1),
                                                    .position = (uint8_t)(i + 1),
                                                    .class_position = (uint8_t)(i + 1),
                                                    .status = RS_CLASSIFIED,
                                                    .laps = UINT32_MAX,
                                                    .finish_us = RS_PROTO_TIME_MAX_US,
                                                    .best_lap_us = RS_PROTO_TIME_MAX_US,
                                                    .penalty_ms = INT32_MAX,
                                                    .laps_led = UINT16_MAX};
    size_t results = encode_ok(&m, buf, sizeof buf);

    memset(&m, 0, sizeof m);
    m.type = RS_MSG_WEEKEND;
    m.u.weekend.weekend = UINT32_MAX;
    m.u.weekend.session_count = RS_PROTO_MAX_SESSIONS;
    for (uint32_t i = 0; i < RS_PROTO_MAX_SESSIONS; i++)
        m.u.weekend.sessions[i] = (rs_proto_session_def){.type = RS_SESSION_RACE,
                                                         .time_limit_s = RS_PROTO_SESSION_MAX_S,
                                                         .grid_source = RS_GRID_PREVIOUS_RACE,
                                                         .grid_reverse = RS_PROTO_MAX_CARS};
    m.u.weekend.class_count = RS_PROTO_MAX_CLASSES;
    for (uint32_t i = 0; i < RS_PROTO_MAX_CLASSES; i++) {
        /* Eight names, not one: U+1F3C0 + i, then seven flags. */
        strcpy(m.u.weekend.classes[i], longest);
        m.u.weekend.classes[i][3] = (char)(0x80 + i);
    }
    strcpy(m.u.weekend.championship, longest);
    m.u.weekend.car_count = RS_PROTO_MAX_OFFERED;
    for (uint32_t i = 0; i < RS_PROTO_MAX_OFFERED; i++) {
        m.u.weekend.cars[i].base_hash = UINT64_MAX - i;
        m.u.weekend.cars[i].class_index = RS_PROTO_MAX_CLASSES - 1;
        strcpy(m.u.weekend.cars[i].name, longest);
    }
    size_t weekend = encode_ok(&m, buf, sizeof buf);

    memset(&m, 0, sizeof m);
    m.type = RS_MSG_STANDINGS_REPLY;
    rs_msg_standings_reply *s = &m.u.standings_reply;
    *s = (rs_msg_standings_reply){.request_id = UINT32_MAX,
                                  .result = RS_RESULT_OK,
                                  .total = UINT32_MAX,
                                  .offset = UINT32_MAX,
                                  .count = RS_PROTO_STANDINGS_ROWS};
    strcpy(s->championship, longest);
    for (uint32_t i = 0; i < RS_PROTO_STANDINGS_ROWS; i++) {
        s->rows[i] = (rs_proto_standing_row){
            .position = UINT32_MAX, .points = UINT32_MAX, .events = UINT16_MAX, .wins = UINT16_MAX};
        strcpy(s->rows[i].name, longest);
        strcpy(s->rows[i].class_name, longest);
    }
    size_t standings = encode_ok(&m, buf, sizeof buf);

    memset(&m, 0, sizeof m);
    m.type = RS_MSG_CHAT_MSG;
    m.u.chat_msg = (rs_msg_chat_msg){.kind = RS_CHAT_PRIVATE, .player_id = INT64_MAX};
    strcpy(m.u.chat_msg.from, longest);
    for (int i = 0; i < 50; i++)
        strcat(m.u.chat_msg.text, "\xf0\x9f\x8f\x81");
    size_t chat = encode_ok(&m, buf, sizeof buf);
    printf("  largest RESULTS %zu, WEEKEND %zu, STANDINGS_REPLY %zu, CHAT_MSG %zu bytes\n",
           results, weekend, standings, chat);
    /* type, race_number 5, session 2, count; each row: 4 bytes, laps 5,
     * two times 6 each, penalty 5, laps led 3. */
    assert_int_equal(results, 1 + 5 + 2 + 1 + 32 * (4 + 5 + 6 + 6 + 5 + 3));
    /* type, weekend 5, count; each session: type, laps 1, time 3, grid 2;
     * count, classes and championship as 1 + 32; count, each car: hash 8, class, name 33. */
    assert_int_equal(weekend, 1 + 5 + 1 + 16 * (1 + 1 + 3 + 2) + 1 + 8 * 33 + 33 + 1 + 8 * 42);
    /* type, id 5, result, championship 33, total 5, offset 5, count; each
     * row: position 5, two names 33, points 5, events and wins 3 each. */
    assert_int_equal(standings, 1 + 5 + 1 + 33 + 5 + 5 + 1 + 10 * (5 + 66 + 5 + 3 + 3));
    /* type, kind, player_id 10, from 33, text 2 + 200. */
    assert_int_equal(chat, 1 + 1 + 10 + 33 + 202);
    assert_true(results <= RS_PROTO_MAX_PACKET && weekend <= RS_PROTO_MAX_PACKET &&
                standings <= RS_PROTO_MAX_PACKET && chat <= RS_PROTO_MAX_PACKET);
}

/* ------------------------------------------------------------- chunking */

static void chunk_message(const uint8_t *data, size_t len, uint32_t id, uint32_t i, rs_msg *m,
                          uint8_t *buf, size_t *enc_len)
{
    memset(m, 0, sizeof *m);
    m->type = RS_MSG_SNAPSHOT;
    m->u.snapshot.tick = 100;
    m->u.snapshot.state_hash = 5;
    assert_int_equal(rs_proto_chunk_make(data, len, id, rs_proto_hash64(data, len), i,
                                         &m->u.snapshot.chunk),
                     RS_PROTO_OK);
    *enc_len = encode_ok(m, buf, RS_PROTO_MAX_PACKET);
}

static void test_snapshot_chunks_reassemble_exactly_in_any_order(void **state)
{
    (void)state;
    /* A real 16-car world's snapshot. */
    rs_car_params *car = fixture_car("c5");
    rs_world *w = fixture_world(NULL, 0, 0, true);
    for (int i = 0; i < 16; i++) {
        rs_car_spawn sp = rs_car_spawn_default();
        sp.pos_m[0] = 8.0 * i;
        assert_int_equal(rs_world_add_car(w, car, &sp, NULL), RS_OK);
    }
    for (int t = 0; t < 30; t++)
        rs_world_step(w);
    size_t len = rs_world_snapshot(w, NULL, 0);
    uint8_t *snap = malloc(len);
    assert_int_equal(rs_world_snapshot(w, snap, len), len);
    uint32_t count = rs_proto_chunk_count(len);
    assert_true(count > 2);
    printf("  16-car snapshot: %zu bytes in %u chunks\n", len, count);

    rs_proto_assembler *a = NULL;
    assert_int_equal(rs_proto_assembler_create(1u << 20, &a), RS_PROTO_OK);
    /* Every chunk goes through the wire format, in a scrambled order, with
     * one repeated. */
    static rs_msg m, d;
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t n;
    bool done = false;
    uint32_t *order = malloc(count * sizeof *order);
    for (uint32_t k = 0; k < count; k++)
        order[k] = count - 1 - k; /* last first */
    for (uint32_t k = 1; k + 1 < count; k += 2) {
        uint32_t t = order[k];
        order[k] = order[k + 1];
        order[k + 1] = t;
    }
    for (uint32_t k = 0; k < count; k++) {
        if (k == count / 2) {
            /* A repeat of a chunk already held changes nothing. */
            chunk_message(snap, len, 42, order[0], &m, buf, &n);
            assert_int_equal(rs_proto_decode(buf, n, &d, NULL), RS_PROTO_OK);
            assert_int_equal(rs_proto_assembler_add(a, &d.u.snapshot.chunk, &done), RS_PROTO_OK);
            assert_false(done);
        }
        chunk_message(snap, len, 42, order[k], &m, buf, &n);
        assert_true(n <= RS_PROTO_MAX_PACKET);
        assert_int_equal(rs_proto_decode(buf, n, &d, NULL), RS_PROTO_OK);
        assert_null(rs_proto_assembler_data(a, NULL));
        assert_int_equal(rs_proto_assembler_add(a, &d.u.snapshot.chunk, &done), RS_PROTO_OK);
        assert_int_equal(done, k == count - 1);
    }
    free(order);
    size_t got_len = 0;
    const uint8_t *got = rs_proto_assembler_data(a, &got_len);
    assert_non_null(got);
    assert_int_equal(got_len, len);
    assert_memory_equal(got, snap, len);
    /* The reassembled bytes restore the world. */
    assert_int_equal(rs_world_restore(w, got, got_len), RS_OK);

    /* Inconsistent chunks are refused. */
    rs_proto_chunk c0, c1;
    uint64_t h = rs_proto_hash64(snap, len);
    rs_proto_chunk_make(snap, len, 43, h, 0, &c0);
    rs_proto_chunk_make(snap, len, 43, h, 1, &c1);
    assert_int_equal(rs_proto_assembler_add(a, &c0, &done), RS_PROTO_OK);
    rs_proto_chunk bad = c1;
    bad.content_hash ^= 1;
    assert_int_equal(rs_proto_assembler_add(a, &bad, &done), RS_PROTO_INCONSISTENT);
    assert_int_equal(rs_proto_assembler_add(a, &c0, &done), RS_PROTO_OK);
    bad = c1;
    bad.total_size += RS_PROTO_CHUNK_DATA; /* one more chunk: the count disagrees */
    assert_int_equal(rs_proto_assembler_add(a, &bad, &done), RS_PROTO_INCONSISTENT);
    assert_int_equal(rs_proto_assembler_add(a, &c0, &done), RS_PROTO_OK);
    uint8_t other[RS_PROTO_CHUNK_DATA];
    memcpy(other, c0.data, sizeof other);
    other[17] ^= 0xff;
    bad = c0;
    bad.data = other; /* the same chunk again, saying something else */
    assert_int_equal(rs_proto_assembler_add(a, &bad, &done), RS_PROTO_INCONSISTENT);
    bad = c1;
    bad.data_len = 5;
    assert_int_equal(rs_proto_assembler_add(a, &bad, &done), RS_PROTO_INCONSISTENT);
    /* Consistent chunks of bytes that do not match the hash. */
    uint8_t *corrupt = malloc(len);
    memcpy(corrupt, snap, len);
    corrupt[len - 1] ^= 1;
    for (uint32_t i = 0; i < count; i++) {
        rs_proto_chunk c;
        rs_proto_chunk_make(corrupt, len, 44, h, i, &c);
        rs_proto_status st = rs_proto_assembler_add(a, &c, &done);
        assert_int_equal(st, i + 1 == count ? RS_PROTO_BAD_HASH : RS_PROTO_OK);
    }
    assert_null(rs_proto_assembler_data(a, NULL));
    /* A transfer above the assembler's limit. */
    rs_proto_assembler *small = NULL;
    assert_int_equal(rs_proto_assembler_create(2000, &small), RS_PROTO_OK);
    assert_int_equal(rs_proto_assembler_add(small, &c0, &done), RS_PROTO_OVERSIZED);
    /* A one-chunk transfer. */
    rs_proto_chunk one;
    assert_int_equal(rs_proto_chunk_make(snap, 10, 1, rs_proto_hash64(snap, 10), 0, &one),
                     RS_PROTO_OK);
    assert_int_equal(rs_proto_assembler_add(small, &one, &done), RS_PROTO_OK);
    assert_true(done);
    assert_int_equal(rs_proto_chunk_make(snap, 10, 1, 0, 1, &one), RS_PROTO_ARG);
    assert_int_equal(rs_proto_chunk_count(0), 0);
    assert_int_equal(rs_proto_chunk_count(RS_PROTO_BLOB_MAX + 1u), 0);
    rs_proto_assembler_destroy(small);
    rs_proto_assembler_destroy(a);
    rs_proto_assembler_destroy(NULL);
    free(corrupt);
    free(snap);
    rs_world_destroy(w);
    rs_car_params_destroy(car);
}

/* A client keeps blocks by (kind, hash), replaces a block sent again, and
 * forgets the oldest received first, so a server that remembers fewer
 * blocks than the client keeps never counts on a forgotten one. */
static void test_blocks_are_kept_by_hash_and_evicted_oldest_first(void **state)
{
    (void)state;
    rs_proto_blocks *b = NULL;
    assert_int_equal(rs_proto_blocks_create(0, &b), RS_PROTO_ARG);
    assert_int_equal(rs_proto_blocks_create(3, &b), RS_PROTO_OK);
    const uint8_t one[] = {1, 1}, two[] = {2, 2, 2}, three[] = {3}, four[] = {4, 4, 4, 4};
    size_t n = 99;
    assert_null(rs_proto_blocks_find(b, RS_PARAMS_CAR, 1, &n));
    assert_int_equal(n, 0);
    assert_int_equal(rs_proto_blocks_put(b, RS_PARAMS_CAR, 1, one, sizeof one), RS_PROTO_OK);
    assert_int_equal(rs_proto_blocks_put(b, RS_PARAMS_TRACK, 1, two, sizeof two), RS_PROTO_OK);
    assert_int_equal(rs_proto_blocks_put(b, RS_PARAMS_CAR, 3, three, sizeof three), RS_PROTO_OK);
    /* The kind is part of the key. */
    const uint8_t *d = rs_proto_blocks_find(b, RS_PARAMS_TRACK, 1, &n);
    assert_non_null(d);
    assert_int_equal(n, sizeof two);
    assert_memory_equal(d, two, sizeof two);
    d = rs_proto_blocks_find(b, RS_PARAMS_CAR, 1, &n);
    assert_int_equal(n, sizeof one);
    assert_memory_equal(d, one, sizeof one);
    /* Sending a block again replaces it and makes it the newest. */
    assert_int_equal(rs_proto_blocks_put(b, RS_PARAMS_CAR, 1, four, sizeof four), RS_PROTO_OK);
    d = rs_proto_blocks_find(b, RS_PARAMS_CAR, 1, &n);
    assert_int_equal(n, sizeof four);
    assert_memory_equal(d, four, sizeof four);
    /* Full: the oldest received (the track) goes first, then car 3. */
    assert_int_equal(rs_proto_blocks_put(b, RS_PARAMS_CAR, 5, one, sizeof one), RS_PROTO_OK);
    assert_null(rs_proto_blocks_find(b, RS_PARAMS_TRACK, 1, NULL));
    assert_non_null(rs_proto_blocks_find(b, RS_PARAMS_CAR, 3, NULL));
    assert_int_equal(rs_proto_blocks_put(b, RS_PARAMS_CAR, 6, one, sizeof one), RS_PROTO_OK);
    assert_null(rs_proto_blocks_find(b, RS_PARAMS_CAR, 3, NULL));
    assert_non_null(rs_proto_blocks_find(b, RS_PARAMS_CAR, 1, NULL));
    assert_non_null(rs_proto_blocks_find(b, RS_PARAMS_CAR, 5, NULL));
    assert_non_null(rs_proto_blocks_find(b, RS_PARAMS_CAR, 6, NULL));
    /* Bad arguments change nothing. */
    assert_int_equal(rs_proto_blocks_put(b, RS_PARAMS_KIND_COUNT, 7, one, sizeof one),
                     RS_PROTO_ARG);
    assert_int_equal(rs_proto_blocks_put(b, RS_PARAMS_CAR, 7, one, 0), RS_PROTO_ARG);
    assert_non_null(rs_proto_blocks_find(b, RS_PARAMS_CAR, 1, NULL));
    rs_proto_blocks_clear(b);
    assert_null(rs_proto_blocks_find(b, RS_PARAMS_CAR, 1, NULL));
    rs_proto_blocks_destroy(b);
    rs_proto_blocks_destroy(NULL);
}

static void test_status_strings_exist(void **state)
{
    (void)state;
    for (int s = RS_PROTO_OK; s <= RS_PROTO_ARG; s++)
        assert_string_not_equal(rs_proto_status_str((rs_proto_status)s), "unknown status");
    assert_string_equal(rs_proto_reason_str(250), "unknown reason");
    for (int r = 0; r < RS_REASON_COUNT; r++) {
        assert_non_null(rs_proto_reason_str((uint8_t)r));
        assert_string_not_equal(rs_proto_reason_str((uint8_t)r), "unknown reason");
    }
    assert_string_equal(rs_proto_reason_str(RS_REASON_NOT_ENTERED), "not on the entry list");
}

/* SPEC.md's message table must list exactly the messages of the code, with
 * the same ids, directions, channels and reliability. */
static void test_spec_table_matches_the_message_list(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/../protocol/SPEC.md", test_data_dir());
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    char line[512];
    size_t rows = 0;
    bool seen[256] = {false};
    while (fgets(line, sizeof line, f)) {
        unsigned id, ch;
        char name[64], dir_s[16], rel[8];
        if (sscanf(line, "| %u | %63s | %15s | %u | %7s |", &id, name, dir_s, &ch, rel) != 5)
            continue;
        assert_true(id < 256);
        const char *code_name = rs_proto_msg_name((uint8_t)id);
        if (!code_name)
            fail_msg("SPEC.md lists %u %s, which the code does not have", id, name);
        assert_string_equal(name, code_name);
        uint8_t c, d;
        bool r;
        assert_true(rs_proto_msg_info((uint8_t)id, &c, &r, &d));
        assert_int_equal(ch, c);
        assert_int_equal(strcmp(rel, "yes") == 0, r);
        const char *want = d == RS_DIR_TO_SERVER ? "C→S" : d == RS_DIR_TO_CLIENT ? "S→C" : "both";
        assert_string_equal(dir_s, want);
        assert_false(seen[id]);
        seen[id] = true;
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, rs_proto_msg_types(NULL, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_message_round_trips),
        cmocka_unit_test(test_every_message_has_a_name_channel_and_direction),
        cmocka_unit_test(test_every_truncation_is_rejected),
        cmocka_unit_test(test_oversized_input_is_rejected),
        cmocka_unit_test(test_encoder_never_writes_past_the_buffer),
        cmocka_unit_test(test_unknown_types_are_rejected),
        cmocka_unit_test(test_out_of_range_fields_are_rejected),
        cmocka_unit_test(test_bad_input_deltas_are_rejected),
        cmocka_unit_test(test_frame_inputs_resolve_against_their_baseline),
        cmocka_unit_test(test_hello_of_another_version_gets_a_readable_refusal),
        cmocka_unit_test(test_messages_larger_than_a_packet_are_refused_by_the_encoder),
        cmocka_unit_test(test_rules_across_fields_are_refused_both_ways),
        cmocka_unit_test(test_the_largest_new_messages_fit_a_packet),
        cmocka_unit_test(test_snapshot_chunks_reassemble_exactly_in_any_order),
        cmocka_unit_test(test_blocks_are_kept_by_hash_and_evicted_oldest_first),
        cmocka_unit_test(test_status_strings_exist),
        cmocka_unit_test(test_spec_table_matches_the_message_list),
        cmocka_unit_test(test_input_stream_of_a_driver_fits_the_budget),
        cmocka_unit_test(test_frame_stream_of_a_16_car_race_fits_the_budget),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    failed += RUN_TABLE_TESTS(range_cases, test_range_case);
    return failed;
}
