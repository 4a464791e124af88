/*
 * Protocol tests: every message round-trips, every truncation, oversize and
 * out-of-range field is refused with the right status, encoders never write
 * past their buffer, chunked transfers reassemble exactly, and the frame
 * stream of a 16-car race fits the bandwidth budget (test_protocol_budget.c).
 */
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
        cmocka_unit_test(test_snapshot_chunks_reassemble_exactly_in_any_order),
        cmocka_unit_test(test_blocks_are_kept_by_hash_and_evicted_oldest_first),
        cmocka_unit_test(test_status_strings_exist),
        cmocka_unit_test(test_spec_table_matches_the_message_list),
        cmocka_unit_test(test_input_stream_of_a_driver_fits_the_budget),
        cmocka_unit_test(test_frame_stream_of_a_16_car_race_fits_the_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
