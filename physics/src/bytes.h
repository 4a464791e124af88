/*
 * Canonical bytes: explicit little-endian writers and readers with a sticky
 * error flag, and the 64-bit hash used for state and parameter identity.
 *
 * Snapshots and parameter blocks are built field by field with these, never
 * by copying struct memory, so the bytes are the same on every machine and
 * carry no padding or pointers. Doubles are written as their IEEE-754 bits;
 * the writer turns -0.0 into +0.0 and flags NaN/Inf as an error.
 */
#ifndef RS_BYTES_H
#define RS_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rs_writer {
    uint8_t *buf;   /* may be NULL: then only the size is counted */
    size_t cap;
    size_t len;     /* bytes written (or that would have been written) */
    bool overflow;  /* buf too small */
    bool nonfinite; /* a NaN or Inf was written */
} rs_writer;

typedef struct rs_reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    bool error; /* sticky: read past the end or a NaN/Inf found */
} rs_reader;

rs_writer rs_writer_init(uint8_t *buf, size_t cap);
void rs_write_u8(rs_writer *w, uint8_t v);
void rs_write_u16(rs_writer *w, uint16_t v);
void rs_write_u32(rs_writer *w, uint32_t v);
void rs_write_u64(rs_writer *w, uint64_t v);
void rs_write_i32(rs_writer *w, int32_t v);
void rs_write_f64(rs_writer *w, double v);
/* n doubles, exactly as n rs_write_f64 calls would write them, with one
 * bounds check: snapshots are written for every tick a client predicts
 * and every tick a lap proof records. */
void rs_write_f64s(rs_writer *w, const double *v, size_t n);
void rs_write_bytes(rs_writer *w, const void *p, size_t n);

rs_reader rs_reader_init(const uint8_t *buf, size_t len);
uint8_t rs_read_u8(rs_reader *r);
uint16_t rs_read_u16(rs_reader *r);
uint32_t rs_read_u32(rs_reader *r);
uint64_t rs_read_u64(rs_reader *r);
int32_t rs_read_i32(rs_reader *r);
double rs_read_f64(rs_reader *r); /* sets error on NaN/Inf */
void rs_read_bytes(rs_reader *r, void *p, size_t n);

/* 64-bit non-cryptographic hash of bytes (8-byte little-endian words mixed
 * with multiply-xorshift, then a splitmix64 finaliser). Same on every
 * machine; state and parameter hashes pass 0 as the seed argument. */
uint64_t rs_hash64(const void *data, size_t len, uint64_t seed);

#endif
