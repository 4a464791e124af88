/*
 * Secure sessions (racesim/secure.h, protocol/SPEC.md section 8): the test
 * vectors of SPEC.md (computed independently of libsodium, from the
 * primitives' definitions), then what an attacker on the path tries:
 * changed bytes, replays, stale and reflected packets, packets moved to
 * another channel, substituted keys and signatures, weak keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "racesim/secure.h"

/* ----------------------------------------------------- SPEC.md vectors */

static const char V_SERVER_KEY[] =
    "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8";
static const char V_OFFER[] =
    "0106000199f4674ecc87c0b8e712f192b8f49e7442a9376b4875967ababa28471019a93e"
    "000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000"
    "00000000000000000000000000000000";
static const char V_REPLY[] =
    "0106000203a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
    "20243c2fa724ef40cdd0a518dd546e05b914cad065b4e8a3958079080aac6607bf90c684"
    "568a20ed2bfde29cdc8988749a56da1d20e552bdfdcc1209182bf55673507d648d2c1beb"
    "ac0f4dd3bc1c67be66f1b79d5fe331d93fc7b445baaf420e";
static const char V_CLIENT_TX[] =
    "f35497f452c34b17e79c76fade8cfce3c5fdc626ba39bb5a6cf9806b6c47c576";
static const char V_CLIENT_RX[] =
    "d5aeed7140c5470cc77ba9dbba2292b24c736897398c0cd3ec3c3014abcf07cb";
static const char V_SEAL_CONTROL_0[] = "00bdbbfc2d5797aae763b3b676555e62defef7412cdee721";
static const char V_SEAL_INPUT_300[] = "2c013d538cb57b8f4220212ac7decbc01e2ad9b1c68e";
static const char V_SEAL_FRAME_70000[] = "7011a4d4c99eeb9e82350beef6c2d1e63b16809f";

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = strlen(hex) / 2;
    assert_true(n <= cap);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
    return n;
}

static void seeds(uint8_t server[32], uint8_t client_eph[32], uint8_t server_eph[32])
{
    for (unsigned i = 0; i < 32; i++) {
        server[i] = (uint8_t)i;
        client_eph[i] = (uint8_t)(0x20 + i);
        server_eph[i] = (uint8_t)(0x40 + i);
    }
}

typedef struct pair {
    rs_secure_session client, server;
    uint8_t server_key[RS_SECURE_KEY_LEN];
    rs_secure_identity id;
} pair;

/* A handshake with the vectors' seeds; asserts every step. */
static void vector_handshake(pair *p, uint8_t offer[RS_SECURE_OFFER_LEN],
                             uint8_t reply[RS_SECURE_REPLY_LEN])
{
    uint8_t s_seed[32], c_seed[32], e_seed[32];
    seeds(s_seed, c_seed, e_seed);
    assert_int_equal(rs_secure_identity_from_seed(s_seed, &p->id), RS_SECURE_OK);
    rs_secure_client_hs hs;
    assert_int_equal(rs_secure_client_offer(&hs, c_seed), RS_SECURE_OK);
    memcpy(offer, hs.offer, RS_SECURE_OFFER_LEN);
    assert_int_equal(rs_secure_server_answer(&p->id, hs.offer, RS_SECURE_OFFER_LEN, e_seed, reply,
                                             &p->server),
                     RS_SECURE_OK);
    assert_int_equal(rs_secure_client_finish(&hs, reply, RS_SECURE_REPLY_LEN, p->server_key,
                                             &p->client),
                     RS_SECURE_OK);
}

static void test_handshake_matches_the_spec_vectors(void **state)
{
    (void)state;
    pair p;
    uint8_t offer[RS_SECURE_OFFER_LEN], reply[RS_SECURE_REPLY_LEN], want[256];
    vector_handshake(&p, offer, reply);
    assert_int_equal(unhex(V_OFFER, want, sizeof want), RS_SECURE_OFFER_LEN);
    assert_memory_equal(offer, want, RS_SECURE_OFFER_LEN);
    assert_int_equal(unhex(V_REPLY, want, sizeof want), RS_SECURE_REPLY_LEN);
    assert_memory_equal(reply, want, RS_SECURE_REPLY_LEN);
    unhex(V_SERVER_KEY, want, sizeof want);
    assert_memory_equal(p.server_key, want, 32);
    assert_memory_equal(p.id.public_key, want, 32);
    unhex(V_CLIENT_TX, want, sizeof want);
    assert_memory_equal(p.client.tx_key, want, 32);
    assert_memory_equal(p.server.rx_key, want, 32);
    unhex(V_CLIENT_RX, want, sizeof want);
    assert_memory_equal(p.client.rx_key, want, 32);
    assert_memory_equal(p.server.tx_key, want, 32);
}

/* from seals msg on channel ch: the packet must be the SPEC.md vector's
 * bytes (hex), and to must open it back to msg. */
static void expect_vector_seal(rs_secure_session *from, rs_secure_session *to, uint8_t ch,
                               const uint8_t *msg, size_t len, const char *hex)
{
    uint8_t want[64], out[64], back[64];
    size_t n = 0, m = 0;
    assert_int_equal(rs_secure_seal(from, ch, msg, len, out, sizeof out, &n), RS_SECURE_OK);
    assert_int_equal(n, unhex(hex, want, sizeof want));
    assert_memory_equal(out, want, n);
    assert_int_equal(rs_secure_open(to, ch, out, n, back, sizeof back, &m), RS_SECURE_OK);
    assert_int_equal(m, len);
    assert_memory_equal(back, msg, len);
}

static void test_sealed_packets_match_the_spec_vectors(void **state)
{
    (void)state;
    pair p;
    uint8_t offer[RS_SECURE_OFFER_LEN], reply[RS_SECURE_REPLY_LEN];
    vector_handshake(&p, offer, reply);

    expect_vector_seal(&p.client, &p.server, RS_CH_CONTROL, (const uint8_t *)"racesim", 7,
                       V_SEAL_CONTROL_0);

    const uint8_t input[4] = {5, 1, 2, 3};
    p.client.tx_next[RS_CH_INPUT] = 300;
    expect_vector_seal(&p.client, &p.server, RS_CH_INPUT, input, sizeof input, V_SEAL_INPUT_300);

    /* A counter past 16 bits, read back from its low bits near the last. */
    const uint8_t frame[2] = {7, 42};
    p.server.tx_next[RS_CH_FRAME] = 70000;
    p.client.rx[RS_CH_FRAME].any = true;
    p.client.rx[RS_CH_FRAME].highest = 69990;
    expect_vector_seal(&p.server, &p.client, RS_CH_FRAME, frame, sizeof frame,
                       V_SEAL_FRAME_70000);
    assert_true(p.client.rx[RS_CH_FRAME].highest == 70000);
}

/* ------------------------------------------------------------- attacks */

/* A client and a server with a random key, after a handshake with random
 * ephemeral keys; asserts every step. */
static pair fresh_pair(void)
{
    pair p;
    uint8_t seed[32];
    assert_true(rs_secure_random(seed, sizeof seed));
    assert_int_equal(rs_secure_identity_from_seed(seed, &p.id), RS_SECURE_OK);
    rs_secure_client_hs hs;
    uint8_t reply[RS_SECURE_REPLY_LEN];
    assert_int_equal(rs_secure_client_offer(&hs, NULL), RS_SECURE_OK);
    assert_int_equal(
        rs_secure_server_answer(&p.id, hs.offer, sizeof hs.offer, NULL, reply, &p.server),
        RS_SECURE_OK);
    assert_int_equal(rs_secure_client_finish(&hs, reply, sizeof reply, p.server_key, &p.client),
                     RS_SECURE_OK);
    assert_memory_equal(p.server_key, p.id.public_key, 32);
    return p;
}

static void test_every_changed_byte_is_refused_and_changes_nothing(void **state)
{
    (void)state;
    pair p = fresh_pair();
    const uint8_t msg[] = "a token that must not be forged";
    for (uint8_t ch = 0; ch < RS_CH_COUNT; ch++) {
        uint8_t sealed[128], bad[128], out[128];
        size_t n = 0, m = 0;
        assert_int_equal(rs_secure_seal(&p.client, ch, msg, sizeof msg, sealed, sizeof sealed, &n),
                         RS_SECURE_OK);
        assert_int_equal(n, sizeof msg + rs_secure_overhead(ch));
        rs_secure_session before = p.server;
        for (size_t i = 0; i < n; i++)
            for (unsigned bit = 0; bit < 8; bit++) {
                memcpy(bad, sealed, n);
                bad[i] ^= (uint8_t)(1u << bit);
                rs_secure_status st = rs_secure_open(&p.server, ch, bad, n, out, sizeof out, &m);
                assert_true(st == RS_SECURE_AUTH || st == RS_SECURE_STALE ||
                            st == RS_SECURE_REPLAY);
                assert_memory_equal(&p.server, &before, sizeof before);
            }
        /* Truncated and extended copies too. */
        for (size_t k = 0; k < n; k++)
            assert_int_not_equal(rs_secure_open(&p.server, ch, sealed, k, out, sizeof out, &m),
                                 RS_SECURE_OK);
        memcpy(bad, sealed, n);
        bad[n] = 0;
        assert_int_not_equal(rs_secure_open(&p.server, ch, bad, n + 1, out, sizeof out, &m),
                             RS_SECURE_OK);
        /* The untouched packet still opens afterwards: the session goes on. */
        assert_int_equal(rs_secure_open(&p.server, ch, sealed, n, out, sizeof out, &m),
                         RS_SECURE_OK);
        assert_memory_equal(out, msg, sizeof msg);
    }
}

static void test_replays_are_refused_on_every_channel(void **state)
{
    (void)state;
    pair p = fresh_pair();
    for (uint8_t ch = 0; ch < RS_CH_COUNT; ch++) {
        uint8_t a[64], b[64], out[64];
        size_t na = 0, nb = 0, m = 0;
        assert_int_equal(rs_secure_seal(&p.client, ch, (const uint8_t *)"one", 3, a, sizeof a, &na),
                         RS_SECURE_OK);
        assert_int_equal(rs_secure_seal(&p.client, ch, (const uint8_t *)"two", 3, b, sizeof b, &nb),
                         RS_SECURE_OK);
        assert_int_equal(rs_secure_open(&p.server, ch, a, na, out, sizeof out, &m), RS_SECURE_OK);
        assert_int_equal(rs_secure_open(&p.server, ch, b, nb, out, sizeof out, &m), RS_SECURE_OK);
        rs_secure_status again = rs_secure_open(&p.server, ch, a, na, out, sizeof out, &m);
        if (rs_proto_channel_reliable(ch))
            assert_int_equal(again, RS_SECURE_AUTH); /* read as a later counter: no such packet */
        else
            assert_int_equal(again, RS_SECURE_REPLAY);
        assert_int_not_equal(rs_secure_open(&p.server, ch, b, nb, out, sizeof out, &m),
                             RS_SECURE_OK);
    }
}

static void test_unreliable_packets_may_arrive_late_but_once(void **state)
{
    (void)state;
    pair p = fresh_pair();
    enum { N = 300 };
    static uint8_t sealed[N][32];
    size_t len[N];
    for (unsigned i = 0; i < N; i++) {
        uint8_t msg[4] = {5, (uint8_t)i, (uint8_t)(i >> 8), 0};
        assert_int_equal(rs_secure_seal(&p.client, RS_CH_INPUT, msg, sizeof msg, sealed[i], 32,
                                        &len[i]),
                         RS_SECURE_OK);
    }
    uint8_t out[32];
    size_t m = 0;
    /* The newest first, then the older ones: all inside the window open
     * (once), those beyond it are stale. */
    assert_int_equal(rs_secure_open(&p.server, RS_CH_INPUT, sealed[N - 1], len[N - 1], out,
                                    sizeof out, &m),
                     RS_SECURE_OK);
    for (unsigned i = 0; i < N - 1; i++) {
        rs_secure_status st =
            rs_secure_open(&p.server, RS_CH_INPUT, sealed[i], len[i], out, sizeof out, &m);
        if (N - 1 - i >= RS_SECURE_WINDOW)
            assert_int_equal(st, RS_SECURE_STALE);
        else
            assert_int_equal(st, RS_SECURE_OK);
    }
    for (unsigned i = N - RS_SECURE_WINDOW; i < N; i++)
        assert_int_equal(
            rs_secure_open(&p.server, RS_CH_INPUT, sealed[i], len[i], out, sizeof out, &m),
            RS_SECURE_REPLAY);
}

static void test_reliable_counters_skip_a_lost_packet(void **state)
{
    (void)state;
    pair p = fresh_pair();
    uint8_t a[64], b[64], out[64];
    size_t na = 0, nb = 0, m = 0;
    assert_int_equal(rs_secure_seal(&p.client, RS_CH_BULK, (const uint8_t *)"lost", 4, a, sizeof a,
                                    &na),
                     RS_SECURE_OK);
    assert_int_equal(rs_secure_seal(&p.client, RS_CH_BULK, (const uint8_t *)"next", 4, b, sizeof b,
                                    &nb),
                     RS_SECURE_OK);
    assert_int_equal(rs_secure_open(&p.server, RS_CH_BULK, b, nb, out, sizeof out, &m),
                     RS_SECURE_OK);
    /* Once a later one is in, the earlier can never be delivered. */
    assert_int_equal(rs_secure_open(&p.server, RS_CH_BULK, a, na, out, sizeof out, &m),
                     RS_SECURE_AUTH);
    /* 16-bit and 8-bit wrap-arounds read back right. */
    for (unsigned i = 0; i < 70000; i++) {
        assert_int_equal(rs_secure_seal(&p.client, RS_CH_BULK, (const uint8_t *)"x", 1, a,
                                        sizeof a, &na),
                         RS_SECURE_OK);
        assert_int_equal(rs_secure_open(&p.server, RS_CH_BULK, a, na, out, sizeof out, &m),
                         RS_SECURE_OK);
        if (i % 3 == 0)
            continue;
        assert_int_equal(rs_secure_seal(&p.client, RS_CH_FRAME, (const uint8_t *)"y", 1, b,
                                        sizeof b, &nb),
                         RS_SECURE_OK);
        assert_int_equal(rs_secure_open(&p.server, RS_CH_FRAME, b, nb, out, sizeof out, &m),
                         RS_SECURE_OK);
    }
}

static void test_packets_cannot_change_channel_or_direction(void **state)
{
    (void)state;
    pair p = fresh_pair();
    uint8_t a[64], out[64];
    size_t na = 0, m = 0;
    assert_int_equal(
        rs_secure_seal(&p.client, RS_CH_INPUT, (const uint8_t *)"steer", 5, a, sizeof a, &na),
        RS_SECURE_OK);
    /* Both unreliable channels carry a 2-byte counter: same layout, other nonce. */
    assert_int_equal(rs_secure_open(&p.server, RS_CH_FRAME, a, na, out, sizeof out, &m),
                     RS_SECURE_AUTH);
    /* Reflected to its sender: the other direction's key. */
    assert_int_equal(rs_secure_open(&p.client, RS_CH_INPUT, a, na, out, sizeof out, &m),
                     RS_SECURE_AUTH);
    assert_int_equal(rs_secure_open(&p.server, RS_CH_COUNT, a, na, out, sizeof out, &m),
                     RS_SECURE_CHANNEL);
    assert_int_equal(rs_secure_open(&p.server, RS_CH_INPUT, a, na, out, sizeof out, &m),
                     RS_SECURE_OK);
    /* Another session's keys (the same server, another handshake). */
    pair q = fresh_pair();
    q.client.tx_next[RS_CH_INPUT] = 5; /* a counter the server has not seen */
    assert_int_equal(
        rs_secure_seal(&q.client, RS_CH_INPUT, (const uint8_t *)"steer", 5, a, sizeof a, &na),
        RS_SECURE_OK);
    assert_int_equal(rs_secure_open(&p.server, RS_CH_INPUT, a, na, out, sizeof out, &m),
                     RS_SECURE_AUTH);
}

static void test_a_substituted_reply_is_refused(void **state)
{
    (void)state;
    uint8_t seed[32];
    rs_secure_identity real, fake;
    assert_true(rs_secure_random(seed, sizeof seed));
    assert_int_equal(rs_secure_identity_from_seed(seed, &real), RS_SECURE_OK);
    assert_true(rs_secure_random(seed, sizeof seed));
    assert_int_equal(rs_secure_identity_from_seed(seed, &fake), RS_SECURE_OK);

    rs_secure_client_hs hs, copy;
    rs_secure_session c, s;
    uint8_t reply[RS_SECURE_REPLY_LEN], bad[RS_SECURE_REPLY_LEN], key[32];
    assert_int_equal(rs_secure_client_offer(&hs, NULL), RS_SECURE_OK);
    assert_int_equal(rs_secure_server_answer(&real, hs.offer, sizeof hs.offer, NULL, reply, &s),
                     RS_SECURE_OK);
    /* Every changed byte of the reply is caught. */
    for (size_t i = 0; i < sizeof reply; i++) {
        memcpy(bad, reply, sizeof bad);
        bad[i] ^= 0x01;
        copy = hs;
        assert_int_not_equal(rs_secure_client_finish(&copy, bad, sizeof bad, key, &c),
                             RS_SECURE_OK);
    }
    /* A man in the middle answering the same offer with his own key and
     * the real server's public key in the frame. */
    assert_int_equal(rs_secure_server_answer(&fake, hs.offer, sizeof hs.offer, NULL, bad, &s),
                     RS_SECURE_OK);
    memcpy(bad + 4, real.public_key, 32);
    copy = hs;
    assert_int_equal(rs_secure_client_finish(&copy, bad, sizeof bad, key, &c),
                     RS_SECURE_BAD_SIGNATURE);
    /* A reply made for another client's offer. */
    rs_secure_client_hs other;
    assert_int_equal(rs_secure_client_offer(&other, NULL), RS_SECURE_OK);
    assert_int_equal(
        rs_secure_server_answer(&real, other.offer, sizeof other.offer, NULL, bad, &s),
        RS_SECURE_OK);
    copy = hs;
    assert_int_equal(rs_secure_client_finish(&copy, bad, sizeof bad, key, &c),
                     RS_SECURE_BAD_SIGNATURE);
    /* And the genuine one works. */
    assert_int_equal(rs_secure_client_finish(&hs, reply, sizeof reply, key, &c), RS_SECURE_OK);
    assert_memory_equal(key, real.public_key, 32);
}

static void test_bad_offers_are_refused(void **state)
{
    (void)state;
    uint8_t seed[32] = {1};
    rs_secure_identity id;
    assert_int_equal(rs_secure_identity_from_seed(seed, &id), RS_SECURE_OK);
    rs_secure_client_hs hs;
    assert_int_equal(rs_secure_client_offer(&hs, NULL), RS_SECURE_OK);
    uint8_t offer[RS_SECURE_OFFER_LEN + 1], reply[RS_SECURE_REPLY_LEN];
    rs_secure_session s;
    memcpy(offer, hs.offer, RS_SECURE_OFFER_LEN);

    assert_int_equal(rs_secure_server_answer(&id, offer, RS_SECURE_OFFER_LEN - 1, NULL, reply, &s),
                     RS_SECURE_MALFORMED);
    offer[RS_SECURE_OFFER_LEN] = 0;
    assert_int_equal(rs_secure_server_answer(&id, offer, RS_SECURE_OFFER_LEN + 1, NULL, reply, &s),
                     RS_SECURE_MALFORMED);
    offer[100] = 1; /* padding */
    assert_int_equal(rs_secure_server_answer(&id, offer, RS_SECURE_OFFER_LEN, NULL, reply, &s),
                     RS_SECURE_MALFORMED);
    offer[100] = 0;
    offer[3] = 2; /* a reply's kind */
    assert_int_equal(rs_secure_server_answer(&id, offer, RS_SECURE_OFFER_LEN, NULL, reply, &s),
                     RS_SECURE_MALFORMED);
    offer[3] = 1;
    offer[1] = 3; /* version 3: refused in words by the caller */
    assert_int_equal(rs_secure_server_answer(&id, offer, RS_SECURE_OFFER_LEN, NULL, reply, &s),
                     RS_SECURE_VERSION);
    uint16_t v = 0;
    assert_true(rs_secure_frame_version(offer, RS_SECURE_OFFER_LEN, &v));
    assert_int_equal(v, 3);
    offer[1] = (uint8_t)RS_PROTO_VERSION;
    /* The all-zero key (a low-order point) would fix the shared secret. */
    memset(offer + 4, 0, 32);
    assert_int_equal(rs_secure_server_answer(&id, offer, RS_SECURE_OFFER_LEN, NULL, reply, &s),
                     RS_SECURE_BAD_KEY);
}

static void test_keys_round_trip_through_hex(void **state)
{
    (void)state;
    uint8_t key[32], back[32];
    char hex[65];
    assert_true(rs_secure_random(key, sizeof key));
    rs_secure_key_to_hex(key, hex);
    assert_int_equal(strlen(hex), 64);
    assert_true(rs_secure_key_from_hex(hex, back));
    assert_memory_equal(key, back, 32);
    assert_false(rs_secure_key_from_hex("abc", back));
    hex[10] = 'g';
    assert_false(rs_secure_key_from_hex(hex, back));
    char longer[70];
    rs_secure_key_to_hex(key, hex);
    snprintf(longer, sizeof longer, "%s00", hex);
    assert_false(rs_secure_key_from_hex(longer, back));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake_matches_the_spec_vectors),
        cmocka_unit_test(test_sealed_packets_match_the_spec_vectors),
        cmocka_unit_test(test_every_changed_byte_is_refused_and_changes_nothing),
        cmocka_unit_test(test_replays_are_refused_on_every_channel),
        cmocka_unit_test(test_unreliable_packets_may_arrive_late_but_once),
        cmocka_unit_test(test_reliable_counters_skip_a_lost_packet),
        cmocka_unit_test(test_packets_cannot_change_channel_or_direction),
        cmocka_unit_test(test_a_substituted_reply_is_refused),
        cmocka_unit_test(test_bad_offers_are_refused),
        cmocka_unit_test(test_keys_round_trip_through_hex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
