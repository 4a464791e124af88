/*
 * Little-endian canonical writers/readers and the project's 64-bit hash.
 * See bytes.h for why these exist instead of struct memcpy.
 */
#include "bytes.h"

#include <string.h>

rs_writer rs_writer_init(uint8_t *buf, size_t cap)
{
    rs_writer w = {buf, buf ? cap : 0, 0, false, false};
    return w;
}

static void put(rs_writer *w, uint64_t v, unsigned n)
{
    if (w->buf && w->len + n <= w->cap) {
        /* Through a local pointer: a byte store may alias *w, so indexing
         * w->buf[w->len + i] made the compiler reload both after every byte
         * instead of merging the bytes into one store. */
        uint8_t *dst = w->buf + w->len;
        for (unsigned i = 0; i < n; i++)
            dst[i] = (uint8_t)(v >> (8u * i));
    } else if (w->buf) {
        w->overflow = true;
    }
    w->len += n;
}

void rs_write_u8(rs_writer *w, uint8_t v) { put(w, v, 1); }
void rs_write_u16(rs_writer *w, uint16_t v) { put(w, v, 2); }
void rs_write_u32(rs_writer *w, uint32_t v) { put(w, v, 4); }
void rs_write_u64(rs_writer *w, uint64_t v) { put(w, v, 8); }
void rs_write_i32(rs_writer *w, int32_t v) { put(w, (uint32_t)v, 4); }

void rs_write_f64(rs_writer *w, double v)
{
    uint64_t bits;
    if (v != v || v - v != 0.0) /* NaN, or Inf (Inf - Inf is NaN) */
        w->nonfinite = true;
    if (v == 0.0)
        v = 0.0; /* -0.0 and +0.0 compare equal; write +0.0 */
    memcpy(&bits, &v, sizeof bits);
    put(w, bits, 8);
}

void rs_write_f64s(rs_writer *w, const double *v, size_t n)
{
    if (!w->buf || w->len > w->cap || w->cap - w->len < 8 * n) {
        /* Counting only, or not all of it fits: value by value, so the
         * ones that fit are written as before. */
        for (size_t i = 0; i < n; i++)
            rs_write_f64(w, v[i]);
        return;
    }
    /* Nothing below reads *w, so the stores need not reload it (a byte
     * store may alias it). x - x is 0 only for a finite x. */
    uint8_t *dst = w->buf + w->len;
    double finite = 0.0;
    for (size_t i = 0; i < n; i++) {
        double x = v[i] == 0.0 ? 0.0 : v[i]; /* -0.0 as +0.0 */
        uint64_t bits;
        finite += x - x;
        memcpy(&bits, &x, sizeof bits);
        for (unsigned b = 0; b < 8; b++)
            dst[8 * i + b] = (uint8_t)(bits >> (8u * b));
    }
    if (!(finite == 0.0))
        w->nonfinite = true;
    w->len += 8 * n;
}

void rs_write_bytes(rs_writer *w, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        put(w, b[i], 1);
}

rs_reader rs_reader_init(const uint8_t *buf, size_t len)
{
    rs_reader r = {buf, buf ? len : 0, 0, false};
    return r;
}

static uint64_t get(rs_reader *r, unsigned n)
{
    uint64_t v = 0;
    if (r->error || r->len - r->pos < n) {
        r->error = true;
        return 0;
    }
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)r->buf[r->pos + i] << (8u * i);
    r->pos += n;
    return v;
}

uint8_t rs_read_u8(rs_reader *r) { return (uint8_t)get(r, 1); }
uint16_t rs_read_u16(rs_reader *r) { return (uint16_t)get(r, 2); }
uint32_t rs_read_u32(rs_reader *r) { return (uint32_t)get(r, 4); }
uint64_t rs_read_u64(rs_reader *r) { return get(r, 8); }
int32_t rs_read_i32(rs_reader *r) { return (int32_t)(uint32_t)get(r, 4); }

double rs_read_f64(rs_reader *r)
{
    uint64_t bits = get(r, 8);
    double v;
    memcpy(&v, &bits, sizeof v);
    if (v != v || v - v != 0.0) {
        r->error = true;
        return 0.0;
    }
    return v;
}

void rs_read_bytes(rs_reader *r, void *p, size_t n)
{
    uint8_t *b = p;
    if (r->error || r->len - r->pos < n) {
        r->error = true;
        memset(p, 0, n);
        return;
    }
    memcpy(b, r->buf + r->pos, n);
    r->pos += n;
}

static uint64_t mix(uint64_t h)
{
    /* splitmix64 finaliser: full avalanche of every input bit */
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

uint64_t rs_hash64(const void *data, size_t len, uint64_t seed)
{
    const uint8_t *p = data;
    uint64_t h = seed ^ 0x9e3779b97f4a7c15ull ^ ((uint64_t)len * 0xff51afd7ed558ccdull);
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w = 0;
        for (unsigned k = 0; k < 8; k++)
            w |= (uint64_t)p[i + k] << (8u * k);
        h = (h ^ mix(w)) * 0x9fb21c651e98df25ull;
        h ^= h >> 32;
    }
    uint64_t tail = 0;
    for (unsigned k = 0; i < len; i++, k++)
        tail |= (uint64_t)p[i] << (8u * k);
    h = (h ^ mix(tail ^ 0x2545f4914f6cdd1dull)) * 0x9fb21c651e98df25ull;
    return mix(h);
}
