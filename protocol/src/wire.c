/*
 * The codec's field functions (see wire.h). Every read checks the bytes
 * left before touching them; every write checks the room left before
 * storing. Ranges are checked in both directions: a writer refuses to emit
 * what a reader would refuse to accept.
 */
#include "wire.h"

#include <string.h>

rs_codec rs_proto__codec_writer(uint8_t *out, size_t cap)
{
    rs_codec c = {true, out, NULL, out ? cap : 0, 0, false, RS_PROTO_OK, NULL, NULL, 0};
    return c;
}

rs_codec rs_proto__codec_reader(const uint8_t *in, size_t len)
{
    rs_codec c = {false, NULL, in, len, 0, false, RS_PROTO_OK, NULL, NULL, 0};
    return c;
}

void rs_proto__codec_fail(rs_codec *c, rs_proto_status status, const char *field)
{
    if (c->status == RS_PROTO_OK) {
        c->status = status;
        c->field = field;
    }
}

/* Writes n bytes (or only counts them for a size query). */
static void put(rs_codec *c, const uint8_t *p, size_t n)
{
    if (c->out) {
        if (n > c->cap - c->pos) {
            /* Keep counting so the caller learns the size it needs. */
            c->overflow = true;
            c->out = NULL;
        } else {
            memcpy(c->out + c->pos, p, n);
        }
    }
    c->pos += n;
}

/* Points at n readable bytes, or fails with TRUNCATED. */
static const uint8_t *take(rs_codec *c, size_t n, const char *field)
{
    if (!rs_proto__codec_ok(c))
        return NULL;
    if (n > c->cap - c->pos) {
        rs_proto__codec_fail(c, RS_PROTO_TRUNCATED, field);
        return NULL;
    }
    const uint8_t *p = c->in + c->pos;
    c->pos += n;
    return p;
}

static bool live(const rs_codec *c)
{
    return c->status == RS_PROTO_OK;
}

void rs_proto__u64(rs_codec *c, uint64_t *v, const char *field)
{
    if (!live(c))
        return;
    if (c->writing) {
        uint8_t b[8];
        for (int i = 0; i < 8; i++)
            b[i] = (uint8_t)(*v >> (8 * i));
        put(c, b, 8);
        return;
    }
    const uint8_t *p = take(c, 8, field);
    uint64_t x = 0;
    for (int i = 0; p && i < 8; i++)
        x |= (uint64_t)p[i] << (8 * i);
    *v = x;
}

static void varint_put(rs_codec *c, uint64_t x)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        uint8_t byte = (uint8_t)(x & 0x7f);
        x >>= 7;
        b[n++] = (uint8_t)(byte | (x ? 0x80 : 0));
    } while (x);
    put(c, b, n);
}

/* Reads a minimal varint of at most 10 bytes and 64 bits. */
static uint64_t varint_get(rs_codec *c, const char *field)
{
    uint64_t x = 0;
    for (int i = 0; i < 10; i++) {
        const uint8_t *p = take(c, 1, field);
        if (!p)
            return 0;
        uint64_t bits = p[0] & 0x7fu;
        /* The tenth byte may only hold the 64th bit. */
        if (i == 9 && bits > 1) {
            rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
            return 0;
        }
        x |= bits << (7 * i);
        if (!(p[0] & 0x80)) {
            /* A zero last byte after the first would be a longer spelling
             * of the same number: only one spelling is accepted. */
            if (i > 0 && p[0] == 0) {
                rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
                return 0;
            }
            return x;
        }
    }
    rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
    return 0;
}

static uint64_t zigzag(int64_t v)
{
    return v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1;
}

static int64_t unzigzag(uint64_t u)
{
    /* (u >> 1) fits in int64; odd codes are the negatives -1, -2, ... */
    int64_t half = (int64_t)(u >> 1);
    return (u & 1) ? -half - 1 : half;
}

/* A signed value as the unsigned one of the same rank (INT64_MIN -> 0,
 * 0 -> 2^63), so that one range check serves every integer field. */
static uint64_t ordered(int64_t v)
{
    return (uint64_t)v ^ (UINT64_C(1) << 63);
}

static int64_t unordered(uint64_t u)
{
    uint64_t x = u ^ (UINT64_C(1) << 63);
    /* Two's complement without the implementation-defined conversion. */
    return x <= (uint64_t)INT64_MAX ? (int64_t)x : -(int64_t)~x - 1;
}

/* How an integer field travels. */
typedef enum wire_int { WIRE_BYTE, WIRE_VARINT, WIRE_ZIGZAG } wire_int;

/* Every integer field: a writer refuses a value outside lo..hi, a reader
 * fails on one and yields 0 (as for any read after a failure). Signed
 * fields pass their value and range through ordered(). */
static void integer(rs_codec *c, uint64_t *v, uint64_t lo, uint64_t hi, wire_int how,
                    const char *field)
{
    if (!live(c))
        return;
    if (c->writing) {
        if (*v < lo || *v > hi) {
            rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
        } else if (how == WIRE_BYTE) {
            uint8_t b = (uint8_t)*v;
            put(c, &b, 1);
        } else {
            varint_put(c, how == WIRE_ZIGZAG ? zigzag(unordered(*v)) : *v);
        }
        return;
    }
    uint64_t x;
    if (how == WIRE_BYTE) {
        const uint8_t *p = take(c, 1, field);
        x = p ? p[0] : 0;
    } else {
        x = varint_get(c, field);
        if (how == WIRE_ZIGZAG)
            x = ordered(unzigzag(x));
    }
    if (rs_proto__codec_ok(c) && (x < lo || x > hi))
        rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
    *v = rs_proto__codec_ok(c) ? x : 0;
}

void rs_proto__u8(rs_codec *c, uint8_t *v, uint8_t lo, uint8_t hi, const char *field)
{
    uint64_t x = c->writing ? *v : 0;
    integer(c, &x, lo, hi, WIRE_BYTE, field);
    if (!c->writing)
        *v = (uint8_t)x;
}

void rs_proto__bool(rs_codec *c, bool *v, const char *field)
{
    /* Reading must not look at *v: it may hold any bytes. */
    uint8_t b = c->writing && *v ? 1 : 0;
    rs_proto__u8(c, &b, 0, 1, field);
    if (!c->writing)
        *v = b != 0;
}

void rs_proto__varu64(rs_codec *c, uint64_t *v, uint64_t lo, uint64_t hi, const char *field)
{
    integer(c, v, lo, hi, WIRE_VARINT, field);
}

void rs_proto__varu32(rs_codec *c, uint32_t *v, uint32_t lo, uint32_t hi, const char *field)
{
    uint64_t x = *v;
    rs_proto__varu64(c, &x, lo, hi, field);
    if (!c->writing)
        *v = (uint32_t)x; /* in range: checked against hi */
}

void rs_proto__varu16(rs_codec *c, uint16_t *v, uint16_t lo, uint16_t hi, const char *field)
{
    uint64_t x = *v;
    rs_proto__varu64(c, &x, lo, hi, field);
    if (!c->writing)
        *v = (uint16_t)x;
}

void rs_proto__vari64(rs_codec *c, int64_t *v, int64_t lo, int64_t hi, const char *field)
{
    uint64_t x = ordered(c->writing ? *v : 0);
    integer(c, &x, ordered(lo), ordered(hi), WIRE_ZIGZAG, field);
    if (!c->writing)
        *v = rs_proto__codec_ok(c) ? unordered(x) : 0;
}

void rs_proto__vari32(rs_codec *c, int32_t *v, int32_t lo, int32_t hi, const char *field)
{
    int64_t x = *v;
    rs_proto__vari64(c, &x, lo, hi, field);
    if (!c->writing)
        *v = (int32_t)x;
}

size_t rs_proto__utf8_next(const uint8_t *s, size_t n, uint32_t *cp)
{
    uint8_t b = s[0];
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    size_t len;
    uint32_t v;
    if (b >= 0xc2 && b <= 0xdf) {
        len = 2;
        v = b & 0x1fu;
    } else if (b >= 0xe0 && b <= 0xef) {
        len = 3;
        v = b & 0x0fu;
    } else if (b >= 0xf0 && b <= 0xf4) {
        len = 4;
        v = b & 0x07u;
    } else {
        return 0; /* a continuation byte, or 0xc0/0xc1/0xf5.. (overlong or too big) */
    }
    if (len > n)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[k] & 0x3fu);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)) ||
        (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

bool rs_proto__utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = rs_proto__utf8_next(s + i, n - i, &cp);
        if (len == 0 || cp == 0)
            return false;
        i += len;
    }
    return true;
}

/* A length-prefixed field: a varint length in min_len..max_len, then the
 * bytes. Writing sends *n bytes from p; reading returns where the *n bytes
 * are in the input, or NULL. */
static const uint8_t *sized(rs_codec *c, const uint8_t *p, uint64_t *n, uint64_t min_len,
                            uint64_t max_len, const char *field)
{
    rs_proto__varu64(c, n, min_len, max_len, field);
    if (!c->writing)
        return take(c, (size_t)*n, field);
    if (live(c))
        put(c, p, (size_t)*n);
    return p;
}

void rs_proto__str(rs_codec *c, char *s, size_t min_len, size_t max_len, const char *field)
{
    uint64_t n = 0;
    if (c->writing) {
        /* Bounded strlen: a string that fills its array without NUL is too
         * long, and the length check below says so. */
        const char *end = memchr(s, 0, max_len + 1);
        n = end ? (uint64_t)(end - s) : (uint64_t)max_len + 1;
        if (end && !rs_proto__utf8_valid((const uint8_t *)s, (size_t)n))
            rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
    } else {
        s[0] = 0;
    }
    const uint8_t *p = sized(c, (const uint8_t *)s, &n, min_len, max_len, field);
    if (c->writing || !p)
        return;
    if (!rs_proto__utf8_valid(p, (size_t)n)) {
        rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
        return;
    }
    memcpy(s, p, (size_t)n);
    s[n] = 0;
}

void rs_proto__blob(rs_codec *c, const uint8_t **p, uint32_t *n, uint32_t min_len, uint32_t max_len,
               const char *field)
{
    if (c->writing && *n && !*p)
        rs_proto__codec_fail(c, RS_PROTO_RANGE, field);
    uint64_t len = c->writing ? *n : 0;
    const uint8_t *q = sized(c, c->writing ? *p : NULL, &len, min_len, max_len, field);
    if (!c->writing) {
        *p = q;
        *n = q ? (uint32_t)len : 0;
    }
}
