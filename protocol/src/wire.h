/*
 * The codec: one set of field functions that either write a value or read
 * it, so each message is described by a single function (messages.c) used
 * for both directions and the encoder and decoder cannot disagree.
 *
 * Bytes are little-endian and bounds-checked; nothing is ever copied from
 * or to struct memory. Errors are sticky: after the first failure every
 * call is a no-op, the status and the failing field's name are kept, and
 * reads return zeros. Writing with a NULL buffer only counts bytes.
 */
#ifndef RS_PROTO_WIRE_H
#define RS_PROTO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/protocol.h"

typedef struct rs_codec {
    bool writing;
    uint8_t *out;         /* writing: may be NULL (size query) */
    const uint8_t *in;    /* reading */
    size_t cap;           /* writing: bytes available; reading: bytes present */
    size_t pos;
    bool overflow;        /* writing: the buffer ran out; counting goes on */
    rs_proto_status status;
    const char *field;    /* the first failing field */
    char *why;            /* NULL, or where a player name's refusal is explained */
    size_t why_len;
} rs_codec;

rs_codec rs_proto__codec_writer(uint8_t *out, size_t cap);
rs_codec rs_proto__codec_reader(const uint8_t *in, size_t len);

static inline bool rs_proto__codec_ok(const rs_codec *c) { return c->status == RS_PROTO_OK; }

/* Records the first failure. */
void rs_proto__codec_fail(rs_codec *c, rs_proto_status status, const char *field);

/* Fixed-size little-endian fields. */
void rs_proto__u8(rs_codec *c, uint8_t *v, uint8_t lo, uint8_t hi, const char *field);
void rs_proto__u64(rs_codec *c, uint64_t *v, const char *field);
void rs_proto__bool(rs_codec *c, bool *v, const char *field);

/* Varints: 7 bits a byte, low first, high bit = more; minimal length only.
 * Signed ones are zigzag-mapped first (0, -1, 1, -2 ... -> 0, 1, 2, 3 ...). */
void rs_proto__varu64(rs_codec *c, uint64_t *v, uint64_t lo, uint64_t hi, const char *field);
void rs_proto__varu32(rs_codec *c, uint32_t *v, uint32_t lo, uint32_t hi, const char *field);
void rs_proto__varu16(rs_codec *c, uint16_t *v, uint16_t lo, uint16_t hi, const char *field);
void rs_proto__vari64(rs_codec *c, int64_t *v, int64_t lo, int64_t hi, const char *field);
void rs_proto__vari32(rs_codec *c, int32_t *v, int32_t lo, int32_t hi, const char *field);

/* A string: varint byte length (min_len..max_len) then UTF-8 bytes, no NUL.
 * s holds max_len + 1 bytes and is NUL-terminated after a read. */
void rs_proto__str(rs_codec *c, char *s, size_t min_len, size_t max_len, const char *field);

/* Raw bytes: varint length (min_len..max_len) then the bytes. Reading
 * points *p into the input (borrowed). */
void rs_proto__blob(rs_codec *c, const uint8_t **p, uint32_t *n, uint32_t min_len, uint32_t max_len,
               const char *field);

/* True when s[0..n) is well-formed UTF-8 (no overlongs, no surrogates, at
 * most U+10FFFF) without NUL bytes. */
bool rs_proto__utf8_valid(const uint8_t *s, size_t n);

/* Decodes the one UTF-8 character at s[0..n) (n >= 1) into *cp and returns
 * its length in bytes (1..4), or 0 when the bytes there are not well-formed
 * UTF-8 (an overlong, a surrogate, above U+10FFFF, cut short). NUL decodes
 * as U+0000. The one UTF-8 decoder of the module: strings (above) and
 * player names (names.c) both step with it. */
size_t rs_proto__utf8_next(const uint8_t *s, size_t n, uint32_t *cp);

#endif
