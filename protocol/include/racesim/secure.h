/*
 * racesim secure sessions: the key exchange and the encrypted packets of
 * protocol/SPEC.md section 8, as pure functions over bytes.
 *
 * Every connection starts with a two-frame handshake in the clear: the
 * client offers an ephemeral X25519 key (a 160-byte KEY_OFFER), the server
 * answers with its long-term Ed25519 public key, its own ephemeral X25519
 * key and a signature over both frames (a 132-byte KEY_REPLY). Both sides
 * derive one key per direction from the ephemeral keys (libsodium's
 * crypto_kx); the signature proves that the server holding the long-term
 * key chose them, so nobody in between can substitute keys. The client
 * decides separately whether it trusts that long-term key (pinned, known
 * from an earlier visit, or first use: client_sdk's business).
 *
 * After the handshake every ENet packet is one sealed message: a short
 * sequence field, the ciphertext and a 16-byte Poly1305 tag
 * (ChaCha20-Poly1305, IETF variant). The nonce is the channel and a 64-bit
 * per-channel counter, so a packet cannot be replayed, reordered into
 * another channel or reflected back to its sender (each direction has its
 * own key). Reliable channels accept only counters after the last one
 * delivered; unreliable channels keep a 256-packet replay window.
 *
 * All cryptography is libsodium's; this file only arranges its calls.
 * Nothing here reads a clock, allocates or touches a socket. Functions are
 * safe to call from several threads on different sessions.
 */
#ifndef RACESIM_SECURE_H
#define RACESIM_SECURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RS_SECURE_KEY_LEN 32u        /* public keys, session keys, seeds */
#define RS_SECURE_SIG_LEN 64u        /* Ed25519 signature */
#define RS_SECURE_OFFER_LEN 160u     /* the client's KEY_OFFER frame */
#define RS_SECURE_REPLY_LEN 132u     /* the server's KEY_REPLY frame */
#define RS_SECURE_TAG_LEN 16u        /* Poly1305 tag of every sealed packet */
#define RS_SECURE_OVERHEAD_MAX 18u   /* sequence field (1 or 2) + tag */
#define RS_SECURE_WINDOW 256u        /* unreliable replay window, packets */
/* The largest sealed packet: the largest message and the overhead. */
#define RS_SECURE_MAX_PACKET (RS_PROTO_MAX_PACKET + RS_SECURE_OVERHEAD_MAX)

typedef enum rs_secure_status {
    RS_SECURE_OK = 0,
    RS_SECURE_MALFORMED,     /* wrong length, header or padding */
    RS_SECURE_VERSION,       /* a handshake frame of another protocol version */
    RS_SECURE_BAD_KEY,       /* a public key that yields no shared secret */
    RS_SECURE_BAD_SIGNATURE, /* KEY_REPLY's signature does not verify */
    RS_SECURE_AUTH,          /* a sealed packet failed authentication */
    RS_SECURE_REPLAY,        /* a counter already delivered */
    RS_SECURE_STALE,         /* a counter older than the replay window */
    RS_SECURE_CHANNEL,       /* a channel outside 0..RS_CH_COUNT-1 */
    RS_SECURE_SPACE,         /* the output buffer is too small */
    RS_SECURE_EXHAUSTED,     /* a counter would wrap: the session must end */
    RS_SECURE_NO_RANDOM,     /* libsodium could not be initialised */
    RS_SECURE_STATUS_COUNT
} rs_secure_status;

/* A short name for logs and counters ("auth", "replay"). Never NULL. */
const char *rs_secure_status_str(rs_secure_status s);

/* The server's long-term identity: an Ed25519 key pair. The secret half
 * never leaves the server. */
typedef struct rs_secure_identity {
    uint8_t public_key[RS_SECURE_KEY_LEN];
    uint8_t secret_key[64];
} rs_secure_identity;

/* The identity for a 32-byte seed (what the server's key file holds).
 * Returns RS_SECURE_NO_RANDOM only if libsodium cannot start. */
rs_secure_status rs_secure_identity_from_seed(const uint8_t seed[RS_SECURE_KEY_LEN],
                                              rs_secure_identity *out);

/* Fills buf with len bytes from the operating system's generator
 * (libsodium's randombytes). False if libsodium cannot start. */
bool rs_secure_random(uint8_t *buf, size_t len);

/* Overwrites len bytes at p with zeros in a way the compiler cannot
 * remove (for copies of secrets). */
void rs_secure_wipe(void *p, size_t len);

/* A key as 64 lower-case hex digits and a NUL (out holds 65 bytes). */
void rs_secure_key_to_hex(const uint8_t key[RS_SECURE_KEY_LEN], char out[65]);

/* Parses exactly 64 hex digits (either case). False otherwise. */
bool rs_secure_key_from_hex(const char *hex, uint8_t key[RS_SECURE_KEY_LEN]);

/* ------------------------------------------------------------- sessions */

typedef struct rs_secure_rx_stream {
    uint64_t next;      /* reliable: the lowest counter still acceptable */
    uint64_t highest;   /* unreliable: the highest counter delivered (valid if any) */
    bool any;           /* unreliable: something was delivered */
    uint64_t seen[RS_SECURE_WINDOW / 64u]; /* unreliable: counters highest-255..highest */
} rs_secure_rx_stream;

/* One end of an established session. Plain data: copy or zero freely
 * (rs_secure_session_wipe clears the keys). */
typedef struct rs_secure_session {
    uint8_t tx_key[RS_SECURE_KEY_LEN];
    uint8_t rx_key[RS_SECURE_KEY_LEN];
    uint64_t tx_next[RS_CH_COUNT];     /* the counter of the next packet sent per channel */
    rs_secure_rx_stream rx[RS_CH_COUNT];
} rs_secure_session;

/* Clears the session's keys and counters (sodium_memzero). */
void rs_secure_session_wipe(rs_secure_session *s);

/* ------------------------------------------------------------ handshake */

/* The client's half-done handshake: its ephemeral key pair and the offer
 * it sent (the signature covers it). */
typedef struct rs_secure_client_hs {
    uint8_t public_key[RS_SECURE_KEY_LEN];
    uint8_t secret_key[RS_SECURE_KEY_LEN];
    uint8_t offer[RS_SECURE_OFFER_LEN];
} rs_secure_client_hs;

/* Starts a client handshake: a fresh ephemeral key pair (from seed when
 * not NULL: test vectors only) and the KEY_OFFER frame to send, which stays
 * in hs->offer. */
rs_secure_status rs_secure_client_offer(rs_secure_client_hs *hs,
                                        const uint8_t *seed /* RS_SECURE_KEY_LEN or NULL */);

/* Checks the server's KEY_REPLY against the offer: its version, its
 * signature under the long-term key it carries (copied to server_key) and
 * the key exchange; on success fills the client's session. The caller then
 * decides whether it trusts server_key. Wipes hs either way. Returns
 * MALFORMED, VERSION, BAD_KEY or BAD_SIGNATURE otherwise (session zeroed). */
rs_secure_status rs_secure_client_finish(rs_secure_client_hs *hs, const uint8_t *reply,
                                         size_t len, uint8_t server_key[RS_SECURE_KEY_LEN],
                                         rs_secure_session *out);

/* The protocol version a handshake frame announces (its bytes 1..2), for
 * refusing other versions in words. False if the frame is too short or
 * does not start with the HELLO type byte. */
bool rs_secure_frame_version(const uint8_t *frame, size_t len, uint16_t *version);

/* Answers a client's KEY_OFFER: a fresh ephemeral key pair (from seed when
 * not NULL: test vectors only), the signed KEY_REPLY in reply and the
 * server's session. Returns MALFORMED, VERSION (the offer's version is not
 * RS_PROTO_VERSION: refuse it in words) or BAD_KEY. */
rs_secure_status rs_secure_server_answer(const rs_secure_identity *id, const uint8_t *offer,
                                         size_t len, const uint8_t *seed,
                                         uint8_t reply[RS_SECURE_REPLY_LEN],
                                         rs_secure_session *out);

/* -------------------------------------------------------------- packets */

/* The bytes a sealed packet adds on channel ch (tag and sequence field). */
size_t rs_secure_overhead(uint8_t channel);

/* Seals one message for channel ch into out (cap >= len + overhead) and
 * advances the channel's counter. Returns CHANNEL, SPACE, MALFORMED (len 0
 * or above RS_PROTO_MAX_PACKET) or EXHAUSTED. */
rs_secure_status rs_secure_seal(rs_secure_session *s, uint8_t channel, const uint8_t *msg,
                                size_t len, uint8_t *out, size_t cap, size_t *out_len);

/* Opens one sealed packet received on channel ch into out (cap >= len;
 * the message is len - overhead bytes). Checks, in this order: channel,
 * length, the counter against the window (STALE, REPLAY), the tag (AUTH).
 * Only a packet that passes changes the session. */
rs_secure_status rs_secure_open(rs_secure_session *s, uint8_t channel, const uint8_t *packet,
                                size_t len, uint8_t *out, size_t cap, size_t *out_len);

#ifdef __cplusplus
}
#endif

#endif
