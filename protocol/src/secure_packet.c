/*
 * Sealed packets (protocol/SPEC.md section 8, racesim/secure.h): the
 * sequence field, the nonce, the replay window, and the ChaCha20-Poly1305
 * calls of libsodium that do the actual encryption and authentication.
 */
#include "racesim/secure.h"

#include <string.h>

#include <sodium.h>

#include "secure_internal.h"

_Static_assert(RS_SECURE_TAG_LEN == crypto_aead_chacha20poly1305_ietf_ABYTES, "tag size");
_Static_assert(crypto_aead_chacha20poly1305_ietf_NPUBBYTES == 12, "nonce size");
_Static_assert(RS_SECURE_WINDOW % 64u == 0, "the window is whole words");

/* Unreliable counters travel as their low 16 bits: the receiver picks the
 * counter nearest to the highest it has delivered, which is right as long
 * as fewer than 32768 packets in a row are lost or overtaken. Reliable ones
 * need only 8: ENet delivers them in order, so the next one is at most a
 * few ahead of the last (never 256, with at most one lost to an attacker). */
#define UNRELIABLE_SEQ_LEN 2u
#define RELIABLE_SEQ_LEN 1u

static const char *const status_names[RS_SECURE_STATUS_COUNT] = {
    [RS_SECURE_OK] = "ok",
    [RS_SECURE_MALFORMED] = "malformed",
    [RS_SECURE_VERSION] = "version",
    [RS_SECURE_BAD_KEY] = "bad_key",
    [RS_SECURE_BAD_SIGNATURE] = "bad_signature",
    [RS_SECURE_AUTH] = "auth",
    [RS_SECURE_REPLAY] = "replay",
    [RS_SECURE_STALE] = "stale",
    [RS_SECURE_CHANNEL] = "channel",
    [RS_SECURE_SPACE] = "space",
    [RS_SECURE_EXHAUSTED] = "exhausted",
    [RS_SECURE_NO_RANDOM] = "no_random",
};

const char *rs_secure_status_str(rs_secure_status s)
{
    return (unsigned)s < RS_SECURE_STATUS_COUNT ? status_names[s] : "unknown";
}

bool rs_secure_random(uint8_t *buf, size_t len)
{
    if (!rs_secure__ready())
        return false;
    randombytes_buf(buf, len);
    return true;
}

void rs_secure_key_to_hex(const uint8_t key[RS_SECURE_KEY_LEN], char out[65])
{
    sodium_bin2hex(out, 65, key, RS_SECURE_KEY_LEN);
}

bool rs_secure_key_from_hex(const char *hex, uint8_t key[RS_SECURE_KEY_LEN])
{
    size_t n = 0;
    const char *end = NULL;
    if (!hex || strlen(hex) != 2u * RS_SECURE_KEY_LEN)
        return false;
    return sodium_hex2bin(key, RS_SECURE_KEY_LEN, hex, 2u * RS_SECURE_KEY_LEN, NULL, &n,
                          &end) == 0 &&
           n == RS_SECURE_KEY_LEN && *end == '\0';
}

void rs_secure_wipe(void *p, size_t len)
{
    sodium_memzero(p, len);
}

void rs_secure_session_wipe(rs_secure_session *s)
{
    sodium_memzero(s, sizeof *s);
}

size_t rs_secure_overhead(uint8_t channel)
{
    return (rs_proto_channel_reliable(channel) ? RELIABLE_SEQ_LEN : UNRELIABLE_SEQ_LEN) +
           RS_SECURE_TAG_LEN;
}

/* The 96-bit nonce: the channel, three zero bytes, the counter (LE). Each
 * direction has its own key, so (channel, counter) never repeats under a
 * key. */
static void make_nonce(uint8_t channel, uint64_t counter, uint8_t nonce[12])
{
    nonce[0] = channel;
    nonce[1] = nonce[2] = nonce[3] = 0;
    for (unsigned i = 0; i < 8; i++)
        nonce[4 + i] = (uint8_t)(counter >> (8u * i));
}

rs_secure_status rs_secure_seal(rs_secure_session *s, uint8_t channel, const uint8_t *msg,
                                size_t len, uint8_t *out, size_t cap, size_t *out_len)
{
    if (channel >= RS_CH_COUNT)
        return RS_SECURE_CHANNEL;
    if (len == 0 || len > RS_PROTO_MAX_PACKET)
        return RS_SECURE_MALFORMED;
    size_t seq_len = rs_secure_overhead(channel) - RS_SECURE_TAG_LEN;
    if (cap < len + seq_len + RS_SECURE_TAG_LEN)
        return RS_SECURE_SPACE;
    uint64_t counter = s->tx_next[channel];
    if (counter == UINT64_MAX)
        return RS_SECURE_EXHAUSTED;
    out[0] = (uint8_t)(counter & 0xffu);
    if (seq_len == UNRELIABLE_SEQ_LEN)
        out[1] = (uint8_t)(counter >> 8 & 0xffu);
    uint8_t nonce[12];
    make_nonce(channel, counter, nonce);
    unsigned long long clen = 0;
    crypto_aead_chacha20poly1305_ietf_encrypt(out + seq_len, &clen, msg, len, NULL, 0, NULL,
                                              nonce, s->tx_key);
    s->tx_next[channel] = counter + 1u;
    *out_len = seq_len + (size_t)clen;
    return RS_SECURE_OK;
}

/* The reliable counter a low byte names: the first at or after the next
 * expected one. */
static bool reliable_counter(const rs_secure_rx_stream *rx, uint8_t low, uint64_t *out)
{
    uint64_t c = rx->next + (uint64_t)((uint8_t)(low - (uint8_t)(rx->next & 0xffu)));
    if (c < rx->next)
        return false; /* would wrap: the session is used up */
    *out = c;
    return true;
}

/* The unreliable counter 16 low bits name: the one nearest the highest
 * delivered (from 0 before anything was). */
static uint64_t unreliable_counter(const rs_secure_rx_stream *rx, uint16_t low)
{
    uint64_t base = rx->any ? rx->highest : 0;
    uint64_t c = (base & ~UINT64_C(0xffff)) | low;
    if (c > base && c - base > 0x8000u && c >= 0x10000u)
        c -= 0x10000u;
    else if (c < base && base - c > 0x8000u && c <= UINT64_MAX - 0x10000u)
        c += 0x10000u;
    return c;
}

static bool window_has(const rs_secure_rx_stream *rx, uint64_t c)
{
    unsigned bit = (unsigned)(c % RS_SECURE_WINDOW);
    return (rx->seen[bit / 64u] >> (bit % 64u)) & 1u;
}

/* Records counter c as delivered, sliding the window forward if it is the
 * newest. */
static void window_mark(rs_secure_rx_stream *rx, uint64_t c)
{
    if (!rx->any) {
        memset(rx->seen, 0, sizeof rx->seen);
        rx->highest = c;
    } else if (c > rx->highest) {
        /* Forget the counters that fall out of the window. */
        if (c - rx->highest >= RS_SECURE_WINDOW) {
            memset(rx->seen, 0, sizeof rx->seen);
        } else {
            for (uint64_t k = rx->highest + 1u; k <= c; k++) {
                unsigned bit = (unsigned)(k % RS_SECURE_WINDOW);
                rx->seen[bit / 64u] &= ~(UINT64_C(1) << (bit % 64u));
            }
        }
        rx->highest = c;
    }
    rx->any = true;
    unsigned bit = (unsigned)(c % RS_SECURE_WINDOW);
    rx->seen[bit / 64u] |= UINT64_C(1) << (bit % 64u);
}

/* STALE or REPLAY for an unreliable counter the window refuses. */
static rs_secure_status window_check(const rs_secure_rx_stream *rx, uint64_t c)
{
    if (!rx->any || c > rx->highest)
        return RS_SECURE_OK;
    if (rx->highest - c >= RS_SECURE_WINDOW)
        return RS_SECURE_STALE;
    return window_has(rx, c) ? RS_SECURE_REPLAY : RS_SECURE_OK;
}

rs_secure_status rs_secure_open(rs_secure_session *s, uint8_t channel, const uint8_t *packet,
                                size_t len, uint8_t *out, size_t cap, size_t *out_len)
{
    if (channel >= RS_CH_COUNT)
        return RS_SECURE_CHANNEL;
    bool reliable = rs_proto_channel_reliable(channel);
    size_t overhead = rs_secure_overhead(channel);
    size_t seq_len = overhead - RS_SECURE_TAG_LEN;
    if (len <= overhead || len - overhead > RS_PROTO_MAX_PACKET)
        return RS_SECURE_MALFORMED;
    if (cap < len - overhead)
        return RS_SECURE_SPACE;
    rs_secure_rx_stream *rx = &s->rx[channel];
    uint64_t counter;
    if (reliable) {
        if (!reliable_counter(rx, packet[0], &counter))
            return RS_SECURE_EXHAUSTED;
    } else {
        counter = unreliable_counter(rx, (uint16_t)(packet[0] | packet[1] << 8));
        rs_secure_status w = window_check(rx, counter);
        if (w != RS_SECURE_OK)
            return w;
    }
    uint8_t nonce[12];
    make_nonce(channel, counter, nonce);
    unsigned long long mlen = 0;
    if (crypto_aead_chacha20poly1305_ietf_decrypt(out, &mlen, NULL, packet + seq_len,
                                                  len - seq_len, NULL, 0, nonce,
                                                  s->rx_key) != 0)
        return RS_SECURE_AUTH;
    if (reliable)
        rx->next = counter + 1u;
    else
        window_mark(rx, counter);
    *out_len = (size_t)mlen;
    return RS_SECURE_OK;
}
