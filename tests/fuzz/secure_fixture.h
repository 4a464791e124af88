/*
 * The fixed secure session the secure fuzz targets and their seed program
 * share (header-only): a server identity, a client's offer, the server's
 * genuine reply, both sessions, and the genuine sealed packets of the
 * first counters on every channel. Fixed seeds, so every run and the seeds
 * agree.
 */
#ifndef RS_FUZZ_SECURE_FIXTURE_H
#define RS_FUZZ_SECURE_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "racesim/secure.h"

#define FIX_PACKETS 3u /* genuine packets per channel */

typedef struct secure_fixture {
    rs_secure_identity id;
    rs_secure_client_hs hs;             /* the client's state after its offer */
    uint8_t reply[RS_SECURE_REPLY_LEN]; /* the genuine reply to hs.offer */
    rs_secure_session client, server;   /* fresh, as after the exchange */
    uint8_t sealed[RS_CH_COUNT][FIX_PACKETS][64]; /* client to server */
    size_t sealed_len[RS_CH_COUNT][FIX_PACKETS];
} secure_fixture;

static void secure_fixture_make(secure_fixture *f)
{
    uint8_t seed[RS_SECURE_KEY_LEN];
    memset(f, 0, sizeof *f);
    memset(seed, 0x11, sizeof seed);
    if (rs_secure_identity_from_seed(seed, &f->id) != RS_SECURE_OK)
        abort();
    memset(seed, 0x22, sizeof seed);
    if (rs_secure_client_offer(&f->hs, seed) != RS_SECURE_OK)
        abort();
    memset(seed, 0x33, sizeof seed);
    if (rs_secure_server_answer(&f->id, f->hs.offer, sizeof f->hs.offer, seed, f->reply,
                                &f->server) != RS_SECURE_OK)
        abort();
    rs_secure_client_hs copy = f->hs;
    uint8_t key[RS_SECURE_KEY_LEN];
    if (rs_secure_client_finish(&copy, f->reply, sizeof f->reply, key, &f->client) !=
        RS_SECURE_OK)
        abort();
    rs_secure_session tx = f->client;
    for (uint8_t ch = 0; ch < RS_CH_COUNT; ch++)
        for (unsigned i = 0; i < FIX_PACKETS; i++) {
            const uint8_t msg[5] = {7, ch, (uint8_t)i, 1, 2};
            if (rs_secure_seal(&tx, ch, msg, sizeof msg, f->sealed[ch][i], 64,
                               &f->sealed_len[ch][i]) != RS_SECURE_OK)
                abort();
        }
}

#endif
