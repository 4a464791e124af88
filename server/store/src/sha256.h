/*
 * A small self-contained SHA-256 (FIPS 180-4): checksums of migration files
 * and the salted hashes of player tokens (rs_sha256, in racesim/store.h, is
 * the one-call form). SQLite has no hash function built in, and one
 * well-known algorithm is simpler than another dependency. With it, the hex
 * text that tokens and checksums are written in.
 */
#ifndef RS_STORE_SHA256_H
#define RS_STORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct rs_sha256_ctx {
    uint32_t h[8];
    uint64_t total;   /* bytes so far */
    uint8_t buf[64];
    size_t used;
} rs_sha256_ctx;

void rs_store__sha256_init(rs_sha256_ctx *c);
void rs_store__sha256_update(rs_sha256_ctx *c, const void *data, size_t len);
void rs_store__sha256_final(rs_sha256_ctx *c, uint8_t out[32]);

/* Lower-case hex of n bytes into out (2n + 1 chars with the NUL). */
void rs_store__hex(const uint8_t *bytes, size_t n, char *out);

#endif
