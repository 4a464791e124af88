/*
 * The key exchange of protocol/SPEC.md section 8 (racesim/secure.h): the
 * client's KEY_OFFER, the server's signed KEY_REPLY and the session keys
 * both derive from them. Key agreement, key derivation and signatures are
 * libsodium's crypto_kx and crypto_sign (Ed25519); this file lays out the
 * frames and calls them in order.
 */
#include "racesim/secure.h"

#include <string.h>

#include <sodium.h>

#include "secure_internal.h"

/* Both frames start with HELLO's type byte and its frozen version field,
 * so a server of another version reads them as a HELLO it must refuse in
 * words (SPEC.md section 6); the kind byte tells the two frames apart. */
#define FRAME_HEADER_LEN 4u
#define KIND_OFFER 1u
#define KIND_REPLY 2u
#define OFFER_KEY_AT 4u
#define REPLY_LONG_TERM_AT 4u
#define REPLY_EPHEMERAL_AT 36u
#define REPLY_SIGNED_LEN 68u /* header and both keys: what the signature follows */
#define REPLY_SIG_AT 68u

/* The signature covers this label, the whole offer and the reply up to the
 * signature, so it binds the server's ephemeral key to this client's offer
 * and to the protocol version both announced. */
static const char SIGN_LABEL[] = "racesim key reply";
#define SIGN_LABEL_LEN (sizeof SIGN_LABEL - 1u)
#define SIGNED_LEN (SIGN_LABEL_LEN + RS_SECURE_OFFER_LEN + REPLY_SIGNED_LEN)

_Static_assert(RS_SECURE_KEY_LEN == crypto_kx_PUBLICKEYBYTES, "X25519 key size");
_Static_assert(RS_SECURE_KEY_LEN == crypto_kx_SESSIONKEYBYTES, "session key size");
_Static_assert(RS_SECURE_KEY_LEN == crypto_sign_PUBLICKEYBYTES, "Ed25519 key size");
_Static_assert(RS_SECURE_KEY_LEN == crypto_sign_SEEDBYTES, "Ed25519 seed size");
_Static_assert(RS_SECURE_SIG_LEN == crypto_sign_BYTES, "Ed25519 signature size");
_Static_assert(sizeof(((rs_secure_identity *)0)->secret_key) == crypto_sign_SECRETKEYBYTES,
               "Ed25519 secret key size");
_Static_assert(REPLY_SIG_AT + RS_SECURE_SIG_LEN == RS_SECURE_REPLY_LEN, "KEY_REPLY layout");
_Static_assert(RS_SECURE_REPLY_LEN <= RS_SECURE_OFFER_LEN,
               "the reply must never be larger than the offer (no amplification)");

bool rs_secure__ready(void)
{
    /* sodium_init is idempotent and thread-safe: 0 first time, 1 after. */
    return sodium_init() >= 0;
}

static void write_header(uint8_t *frame, uint8_t kind)
{
    frame[0] = RS_MSG_HELLO;
    frame[1] = (uint8_t)(RS_PROTO_VERSION & 0xffu);
    frame[2] = (uint8_t)(RS_PROTO_VERSION >> 8);
    frame[3] = kind;
}

bool rs_secure_frame_version(const uint8_t *frame, size_t len, uint16_t *version)
{
    if (!frame || len < 3 || frame[0] != RS_MSG_HELLO)
        return false;
    *version = (uint16_t)(frame[1] | frame[2] << 8);
    return true;
}

/* MALFORMED or VERSION for a frame of the wrong size, type or kind. */
static rs_secure_status check_header(const uint8_t *frame, size_t len, size_t want,
                                     uint8_t kind)
{
    uint16_t version;
    if (!rs_secure_frame_version(frame, len, &version))
        return RS_SECURE_MALFORMED;
    if (version != RS_PROTO_VERSION)
        return RS_SECURE_VERSION;
    if (len != want || frame[3] != kind)
        return RS_SECURE_MALFORMED;
    return RS_SECURE_OK;
}

rs_secure_status rs_secure_identity_from_seed(const uint8_t seed[RS_SECURE_KEY_LEN],
                                              rs_secure_identity *out)
{
    if (!rs_secure__ready())
        return RS_SECURE_NO_RANDOM;
    crypto_sign_seed_keypair(out->public_key, out->secret_key, seed);
    return RS_SECURE_OK;
}

rs_secure_status rs_secure_client_offer(rs_secure_client_hs *hs, const uint8_t *seed)
{
    if (!rs_secure__ready())
        return RS_SECURE_NO_RANDOM;
    if (seed)
        crypto_kx_seed_keypair(hs->public_key, hs->secret_key, seed);
    else
        crypto_kx_keypair(hs->public_key, hs->secret_key);
    /* The zero padding makes the offer longer than the reply, so a forged
     * source address never gets more bytes back than it sent. */
    memset(hs->offer, 0, sizeof hs->offer);
    write_header(hs->offer, KIND_OFFER);
    memcpy(hs->offer + OFFER_KEY_AT, hs->public_key, RS_SECURE_KEY_LEN);
    return RS_SECURE_OK;
}

static void signed_bytes(const uint8_t *offer, const uint8_t *reply, uint8_t out[SIGNED_LEN])
{
    memcpy(out, SIGN_LABEL, SIGN_LABEL_LEN);
    memcpy(out + SIGN_LABEL_LEN, offer, RS_SECURE_OFFER_LEN);
    memcpy(out + SIGN_LABEL_LEN + RS_SECURE_OFFER_LEN, reply, REPLY_SIGNED_LEN);
}

rs_secure_status rs_secure_server_answer(const rs_secure_identity *id, const uint8_t *offer,
                                         size_t len, const uint8_t *seed,
                                         uint8_t reply[RS_SECURE_REPLY_LEN],
                                         rs_secure_session *out)
{
    memset(out, 0, sizeof *out);
    if (!rs_secure__ready())
        return RS_SECURE_NO_RANDOM;
    rs_secure_status st = check_header(offer, len, RS_SECURE_OFFER_LEN, KIND_OFFER);
    if (st != RS_SECURE_OK)
        return st;
    /* One spelling only: the padding must be zero. */
    if (!sodium_is_zero(offer + OFFER_KEY_AT + RS_SECURE_KEY_LEN,
                        RS_SECURE_OFFER_LEN - OFFER_KEY_AT - RS_SECURE_KEY_LEN))
        return RS_SECURE_MALFORMED;

    uint8_t eph_pk[RS_SECURE_KEY_LEN], eph_sk[RS_SECURE_KEY_LEN];
    if (seed)
        crypto_kx_seed_keypair(eph_pk, eph_sk, seed);
    else
        crypto_kx_keypair(eph_pk, eph_sk);
    /* crypto_kx refuses a client key that gives no shared secret (a
     * low-order point), which would let the client fix our keys. */
    int rc = crypto_kx_server_session_keys(out->rx_key, out->tx_key, eph_pk, eph_sk,
                                           offer + OFFER_KEY_AT);
    sodium_memzero(eph_sk, sizeof eph_sk);
    if (rc != 0) {
        rs_secure_session_wipe(out);
        return RS_SECURE_BAD_KEY;
    }
    write_header(reply, KIND_REPLY);
    memcpy(reply + REPLY_LONG_TERM_AT, id->public_key, RS_SECURE_KEY_LEN);
    memcpy(reply + REPLY_EPHEMERAL_AT, eph_pk, RS_SECURE_KEY_LEN);
    uint8_t msg[SIGNED_LEN];
    signed_bytes(offer, reply, msg);
    crypto_sign_detached(reply + REPLY_SIG_AT, NULL, msg, sizeof msg, id->secret_key);
    return RS_SECURE_OK;
}

rs_secure_status rs_secure_client_finish(rs_secure_client_hs *hs, const uint8_t *reply,
                                         size_t len, uint8_t server_key[RS_SECURE_KEY_LEN],
                                         rs_secure_session *out)
{
    memset(out, 0, sizeof *out);
    rs_secure_status st = RS_SECURE_NO_RANDOM;
    if (!rs_secure__ready())
        goto done;
    if ((st = check_header(reply, len, RS_SECURE_REPLY_LEN, KIND_REPLY)) != RS_SECURE_OK)
        goto done;
    uint8_t msg[SIGNED_LEN];
    signed_bytes(hs->offer, reply, msg);
    if (crypto_sign_verify_detached(reply + REPLY_SIG_AT, msg, sizeof msg,
                                    reply + REPLY_LONG_TERM_AT) != 0) {
        st = RS_SECURE_BAD_SIGNATURE;
        goto done;
    }
    if (crypto_kx_client_session_keys(out->rx_key, out->tx_key, hs->public_key, hs->secret_key,
                                      reply + REPLY_EPHEMERAL_AT) != 0) {
        rs_secure_session_wipe(out);
        st = RS_SECURE_BAD_KEY;
        goto done;
    }
    memcpy(server_key, reply + REPLY_LONG_TERM_AT, RS_SECURE_KEY_LEN);
    st = RS_SECURE_OK;
done:
    sodium_memzero(hs, sizeof *hs);
    return st;
}
