/*
 * Input deltas and the FRAME input helpers (see inputs.h and protocol.h).
 */
#include "inputs.h"

#include <string.h>

rs_input rs_proto_input_neutral(void)
{
    rs_input in;
    memset(&in, 0, sizeof in);
    in.gear = RS_GEAR_KEEP;
    return in;
}

static bool gear_valid(int gear)
{
    return gear == RS_GEAR_KEEP || (gear >= RS_GEAR_REVERSE && gear <= RS_PROTO_GEAR_MAX);
}

#define RS_BUTTONS_ALL (RS_BUTTON_SHIFT_UP | RS_BUTTON_SHIFT_DOWN)

bool rs_proto_input_valid(const rs_input *in)
{
    /* int16 never exceeds RS_STEER_MAX; only -32768 is outside. */
    return in->steer >= -RS_STEER_MAX && gear_valid(in->gear) &&
           (in->buttons & ~RS_BUTTONS_ALL) == 0;
}

/* The fields a delta carries whole when they change (steer travels as a
 * difference): one list for making and applying deltas. */
#define PLAIN_FIELDS(X)                \
    X(RS_DELTA_THROTTLE, throttle)     \
    X(RS_DELTA_BRAKE, brake)           \
    X(RS_DELTA_CLUTCH, clutch)         \
    X(RS_DELTA_HANDBRAKE, handbrake)   \
    X(RS_DELTA_GEAR, gear)             \
    X(RS_DELTA_BUTTONS, buttons)

rs_proto_input_delta rs_proto__delta_make(const rs_input *old, const rs_input *now)
{
    rs_proto_input_delta d;
    memset(&d, 0, sizeof d);
    if (now->steer != old->steer) {
        d.mask |= RS_DELTA_STEER;
        d.steer_delta = (int32_t)now->steer - (int32_t)old->steer;
    }
#define CHANGED(bit, f)     \
    if (now->f != old->f) { \
        d.mask |= bit;      \
        d.f = now->f;       \
    }
    PLAIN_FIELDS(CHANGED)
#undef CHANGED
    return d;
}

bool rs_proto__delta_apply(const rs_input *old, const rs_proto_input_delta *d, rs_input *out)
{
    rs_input r = *old;
    if (d->mask & RS_DELTA_STEER) {
        int32_t s = (int32_t)old->steer + d->steer_delta;
        if (s < -RS_STEER_MAX || s > RS_STEER_MAX)
            return false;
        r.steer = (int16_t)s;
    }
#define APPLY(bit, f)     \
    if (d->mask & (bit))  \
        r.f = d->f;
    PLAIN_FIELDS(APPLY)
#undef APPLY
    if (!rs_proto_input_valid(&r))
        return false;
    *out = r;
    return true;
}

/* One field of one delta, the field named by bit. */
static void c_value(rs_codec *c, rs_proto_input_delta *d, unsigned bit, const char *field)
{
    switch (bit) {
    case RS_DELTA_STEER:
        /* A steer "change" of zero would be a second spelling of no change. */
        rs_proto__vari32(c, &d->steer_delta, -2 * RS_STEER_MAX, 2 * RS_STEER_MAX, field);
        if (rs_proto__codec_ok(c) && d->steer_delta == 0)
            rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
        break;
    case RS_DELTA_THROTTLE: rs_proto__u8(c, &d->throttle, 0, RS_PEDAL_MAX, field); break;
    case RS_DELTA_BRAKE: rs_proto__u8(c, &d->brake, 0, RS_PEDAL_MAX, field); break;
    case RS_DELTA_CLUTCH: rs_proto__u8(c, &d->clutch, 0, RS_PEDAL_MAX, field); break;
    case RS_DELTA_HANDBRAKE: rs_proto__u8(c, &d->handbrake, 0, RS_PEDAL_MAX, field); break;
    case RS_DELTA_GEAR: {
        /* Two's complement byte; the range is checked on the signed value. */
        uint8_t b = (uint8_t)d->gear;
        rs_proto__u8(c, &b, 0, 255, field);
        int g = b >= 128 ? (int)b - 256 : (int)b;
        if (!gear_valid(g))
            rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
        else if (!c->writing)
            d->gear = (int8_t)g;
        break;
    }
    default: rs_proto__u8(c, &d->buttons, 0, RS_BUTTONS_ALL, field); break;
    }
}

void rs_proto__delta_block(rs_codec *c, rs_proto_input_delta *d, uint32_t n, const char *field)
{
    if (!c->writing)
        memset(d, 0, n * sizeof *d);
    /* Which fields change anywhere in the block... */
    uint8_t present = 0;
    for (uint32_t i = 0; c->writing && i < n; i++)
        present |= d[i].mask;
    rs_proto__u8(c, &present, 0, RS_DELTA_ALL, field);
    const uint32_t bytes = (n + 7) / 8;
    /* ...then, per such field, a bitmap of the entries it changes in (bit i
     * of byte i / 8)... */
    for (unsigned bit = 1; bit <= RS_DELTA_ALL && rs_proto__codec_ok(c); bit <<= 1) {
        if (!(present & bit))
            continue;
        bool any = false;
        for (uint32_t j = 0; j < bytes && rs_proto__codec_ok(c); j++) {
            uint8_t map = 0;
            for (uint32_t k = 0; c->writing && k < 8 && j * 8 + k < n; k++)
                if (d[j * 8 + k].mask & bit)
                    map |= (uint8_t)(1u << k);
            /* Bits past the last entry must be zero. */
            uint8_t valid = (uint8_t)(j * 8 + 8 <= n ? 0xffu : (1u << (n - j * 8)) - 1u);
            rs_proto__u8(c, &map, 0, valid, field);
            if (rs_proto__codec_ok(c) && (map & ~valid))
                rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
            any |= map != 0;
            for (uint32_t k = 0; !c->writing && k < 8 && j * 8 + k < n; k++)
                if (map & (1u << k))
                    d[j * 8 + k].mask |= (uint8_t)bit;
        }
        /* A field said to change must change somewhere. */
        if (rs_proto__codec_ok(c) && !any)
            rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
    }
    /* ...then the new values, field by field, entry by entry. */
    for (unsigned bit = 1; bit <= RS_DELTA_ALL && rs_proto__codec_ok(c); bit <<= 1)
        for (uint32_t i = 0; i < n && rs_proto__codec_ok(c); i++)
            if (d[i].mask & bit)
                c_value(c, &d[i], bit, field);
}

/* A frame the inputs helpers can work on: within the limits, and with a
 * baseline when it says it is relative to one. */
static bool frame_ok(const rs_msg_frame *f, const rs_input *baseline)
{
    return f->tick_count >= 1 && f->tick_count <= RS_PROTO_FRAME_MAX_TICKS &&
           f->car_count <= RS_PROTO_MAX_CARS && (baseline || f->baseline_back == 0);
}

/* What input i of a frame (tick-major: i = tick * cars + car) changes from:
 * the same car's input in the tick before, or, in the first tick, its
 * baseline (neutral without one). */
static const rs_input *input_before(const rs_msg_frame *f, const rs_input *inputs,
                                    const rs_input *baseline, const rs_input *neutral,
                                    uint32_t i)
{
    if (i >= f->car_count)
        return &inputs[i - f->car_count];
    return baseline ? &baseline[i] : neutral;
}

rs_proto_status rs_proto_frame_set_inputs(rs_msg_frame *f, const rs_input *baseline,
                                          const rs_input *inputs)
{
    if (!f || !inputs || !frame_ok(f, baseline))
        return RS_PROTO_ARG;
    rs_input neutral = rs_proto_input_neutral();
    for (uint32_t i = 0; i < (uint32_t)f->tick_count * f->car_count; i++) {
        const rs_input *old = input_before(f, inputs, baseline, &neutral, i);
        if (!rs_proto_input_valid(&inputs[i]) || !rs_proto_input_valid(old))
            return RS_PROTO_RANGE;
        f->deltas[i / f->car_count][i % f->car_count] = rs_proto__delta_make(old, &inputs[i]);
    }
    return RS_PROTO_OK;
}

rs_proto_status rs_proto_frame_get_inputs(const rs_msg_frame *f, const rs_input *baseline,
                                          rs_input *out)
{
    if (!f || !out || !frame_ok(f, baseline))
        return RS_PROTO_ARG;
    rs_input neutral = rs_proto_input_neutral();
    for (uint32_t i = 0; i < (uint32_t)f->tick_count * f->car_count; i++) {
        const rs_input *old = input_before(f, out, baseline, &neutral, i);
        if (!rs_proto__delta_apply(old, &f->deltas[i / f->car_count][i % f->car_count], &out[i]))
            return RS_PROTO_RANGE;
    }
    return RS_PROTO_OK;
}
