/*
 * A small self-contained SHA-256 (FIPS 180-4): checksums of migration files
 * and the salted hashes of player tokens. SQLite has no hash function built
 * in, and one well-known algorithm is simpler than another dependency.
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

void rs_sha256_init(rs_sha256_ctx *c);
void rs_sha256_update(rs_sha256_ctx *c, const void *data, size_t len);
void rs_sha256_final(rs_sha256_ctx *c, uint8_t out[32]);

/* Lower-case hex of n bytes into out (2n + 1 chars with the NUL). */
void rs_hex(const uint8_t *bytes, size_t n, char *out);

#endif
