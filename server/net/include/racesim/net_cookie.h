/*
 * The stateless connect cookie (protocol/SPEC.md section 7).
 *
 * Before ENet allocates a peer for a CONNECT, the server checks that the
 * sender can receive datagrams at the address it claims: the client first
 * asks for a cookie, the server answers with a MAC of the client's address
 * and the current epoch under a secret key, and the CONNECT must carry it.
 * Nothing is stored per request, so a spoofed flood costs the server only
 * a hash per datagram and can never fill its peer slots.
 *
 * cookie = low 32 bits of SipHash-2-4 over 12 bytes: the IPv4 address as
 * it sits in memory in ENetAddress.host, the port (u16 LE), two zero bytes
 * and the epoch (u32 LE), epoch = floor(monotonic seconds / 30). A cookie
 * is valid in its epoch and the next one. 0 is never issued.
 *
 * Pure functions (no ENet, no clock) except rs_cookie_key_random.
 */
#ifndef RACESIM_NET_COOKIE_H
#define RACESIM_NET_COOKIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RS_COOKIE_EPOCH_S 30u      /* seconds per epoch */
#define RS_COOKIE_REQ_LEN 48u      /* "RSCKREQ1" + 40 zero bytes */
#define RS_COOKIE_REP_LEN 16u      /* "RSCKREP1" + u32 cookie + u32 0 */

typedef struct rs_cookie_key {
    uint64_t k0, k1; /* the 128-bit SipHash key, bytes 0..7 and 8..15 little-endian */
} rs_cookie_key;

/* SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012) of len bytes under key. Never fails. */
uint64_t rs_siphash24(const rs_cookie_key *key, const uint8_t *data, size_t len);

/* The epoch of a monotonic time in microseconds. Never fails. */
uint32_t rs_cookie_epoch(int64_t mono_us);

/* The cookie for an address (ipv4 as ENetAddress.host holds it, port in
 * host order) in an epoch. Never 0. */
uint32_t rs_cookie_make(const rs_cookie_key *key, uint32_t ipv4, uint16_t port, uint32_t epoch);

/* True when cookie was issued to this address in epoch_now or the epoch
 * before it. Cookie 0 is never valid. */
bool rs_cookie_valid(const rs_cookie_key *key, uint32_t ipv4, uint16_t port, uint32_t epoch_now,
                     uint32_t cookie);

/* Writes the 16-byte reply carrying cookie. Never fails. */
void rs_cookie_reply(uint32_t cookie, uint8_t out[RS_COOKIE_REP_LEN]);

/* True when bytes are exactly a cookie request (length and magic; the
 * padding is not looked at). */
bool rs_cookie_is_request(const uint8_t *bytes, size_t len);

/* Draws a fresh key from /dev/urandom. Returns false when it cannot be
 * read (the caller must not run without a secret key). */
bool rs_cookie_key_random(rs_cookie_key *out);

#endif
