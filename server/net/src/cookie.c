/*
 * The connect cookie: SipHash-2-4 over the client's address and the epoch
 * (cookie.h). SipHash is written here from its paper's description rather
 * than taken from a library because the server needs only this one short
 * MAC and no crypto dependency.
 */
#include "racesim/net_cookie.h"

#include <stdio.h>
#include <string.h>

static uint64_t rotl64(uint64_t x, unsigned b)
{
    return (x << b) | (x >> (64u - b));
}

static uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8u * i);
    return v;
}

/* One SipRound (paper, section 2: the ARX network on v0..v3). */
#define SIPROUND(v0, v1, v2, v3)                                                               \
    do {                                                                                       \
        v0 += v1; v1 = rotl64(v1, 13); v1 ^= v0; v0 = rotl64(v0, 32);                         \
        v2 += v3; v3 = rotl64(v3, 16); v3 ^= v2;                                               \
        v0 += v3; v3 = rotl64(v3, 21); v3 ^= v0;                                               \
        v2 += v1; v1 = rotl64(v1, 17); v1 ^= v2; v2 = rotl64(v2, 32);                         \
    } while (0)

uint64_t rs_siphash24(const rs_cookie_key *key, const uint8_t *data, size_t len)
{
    /* Initialisation with the constants "somepseudorandomlygeneratedbytes". */
    uint64_t v0 = key->k0 ^ UINT64_C(0x736f6d6570736575);
    uint64_t v1 = key->k1 ^ UINT64_C(0x646f72616e646f6d);
    uint64_t v2 = key->k0 ^ UINT64_C(0x6c7967656e657261);
    uint64_t v3 = key->k1 ^ UINT64_C(0x7465646279746573);
    size_t full = len - len % 8u;
    for (size_t i = 0; i < full; i += 8) {
        uint64_t m = load_le64(data + i);
        v3 ^= m;
        SIPROUND(v0, v1, v2, v3); /* c = 2 compression rounds */
        SIPROUND(v0, v1, v2, v3);
        v0 ^= m;
    }
    /* The last block: the remaining bytes and the length's low byte on top. */
    uint64_t b = (uint64_t)(len & 0xffu) << 56;
    for (size_t i = 0; i < len % 8u; i++)
        b |= (uint64_t)data[full + i] << (8u * i);
    v3 ^= b;
    SIPROUND(v0, v1, v2, v3);
    SIPROUND(v0, v1, v2, v3);
    v0 ^= b;
    v2 ^= 0xffu;
    for (int r = 0; r < 4; r++) /* d = 4 finalisation rounds */
        SIPROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

uint32_t rs_cookie_epoch(int64_t mono_us)
{
    if (mono_us < 0)
        return 0;
    return (uint32_t)((uint64_t)mono_us / (UINT64_C(1000000) * RS_COOKIE_EPOCH_S));
}

uint32_t rs_cookie_make(const rs_cookie_key *key, uint32_t ipv4, uint16_t port, uint32_t epoch)
{
    uint8_t msg[12];
    memcpy(msg, &ipv4, 4); /* the address's bytes as they sit in ENetAddress.host */
    msg[4] = (uint8_t)(port & 0xffu);
    msg[5] = (uint8_t)(port >> 8);
    msg[6] = 0;
    msg[7] = 0;
    for (unsigned i = 0; i < 4; i++)
        msg[8 + i] = (uint8_t)(epoch >> (8u * i));
    uint32_t c = (uint32_t)rs_siphash24(key, msg, sizeof msg);
    /* 0 would read as "no cookie" in a CONNECT's data field. */
    return c ? c : 1u;
}

bool rs_cookie_valid(const rs_cookie_key *key, uint32_t ipv4, uint16_t port, uint32_t epoch_now,
                     uint32_t cookie)
{
    if (cookie == 0)
        return false;
    if (cookie == rs_cookie_make(key, ipv4, port, epoch_now))
        return true;
    return epoch_now > 0 && cookie == rs_cookie_make(key, ipv4, port, epoch_now - 1u);
}

void rs_cookie_reply(uint32_t cookie, uint8_t out[RS_COOKIE_REP_LEN])
{
    memcpy(out, "RSCKREP1", 8);
    for (unsigned i = 0; i < 4; i++) {
        out[8 + i] = (uint8_t)(cookie >> (8u * i));
        out[12 + i] = 0;
    }
}

bool rs_cookie_is_request(const uint8_t *bytes, size_t len)
{
    return len == RS_COOKIE_REQ_LEN && memcmp(bytes, "RSCKREQ1", 8) == 0;
}

bool rs_cookie_key_random(rs_cookie_key *out)
{
    uint8_t raw[16];
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f)
        return false;
    size_t n = fread(raw, 1, sizeof raw, f);
    fclose(f);
    if (n != sizeof raw)
        return false;
    out->k0 = load_le64(raw);
    out->k1 = load_le64(raw + 8);
    return true;
}
