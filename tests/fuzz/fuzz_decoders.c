/*
 * libFuzzer targets for every decoder: in physics/ the car parameter block,
 * the world snapshot, .tir text, JSON text, tracks and lap proofs; in
 * protocol/ every wire message (one target: the type byte selects the
 * decoder, and the seed corpus holds one example of each). Built only with
 * -DRS_FUZZ=ON (clang); one source, one executable per target selected by
 * RS_FUZZ_TARGET. Each target also checks a round-trip property where there
 * is one: an accepted block re-encodes to the same bytes, and a restored
 * snapshot re-encodes to the same bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "racesim/physics.h"
#include "tire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if RS_FUZZ_TARGET == 1 /* car parameter block */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rs_car_params *p = NULL;
    char err[256];
    if (rs_car_params_from_block(data, size, &p, err, sizeof err) == RS_OK) {
        size_t n = rs_car_params_block(p, NULL, 0);
        uint8_t *again = malloc(n);
        if (!again || rs_car_params_block(p, again, n) != n || n != size || memcmp(again, data, n))
            abort(); /* accepted bytes must be canonical */
        free(again);
        rs_car_params_destroy(p);
    }
    return 0;
}
#elif RS_FUZZ_TARGET == 2 /* world snapshot */
static rs_world *world;
static rs_car_params *params;

static void setup(void)
{
    char err[512];
    char path[1024];
    snprintf(path, sizeof path, "%s/cars/c5.json", RS_DATA_DIR);
    if (rs_car_params_load(path, &params, err, sizeof err) != RS_OK) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    rs_world_def def = rs_world_default();
    def.max_cars = 2;
    rs_world_create(&def, &world);
    for (int i = 0; i < 2; i++) {
        rs_car_spawn sp = rs_car_spawn_default();
        sp.pos_m[1] = 10.0 * i;
        rs_world_add_car(world, params, &sp, NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!world)
        setup();
    if (rs_world_restore(world, data, size) == RS_OK) {
        size_t n = rs_world_snapshot(world, NULL, 0);
        uint8_t *again = malloc(n);
        if (!again || rs_world_snapshot(world, again, n) != n || n != size)
            abort();
        free(again);
        rs_world_step(world); /* any accepted state must step without crashing */
    }
    return 0;
}
#elif RS_FUZZ_TARGET == 3 /* .tir text */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rs_tire_params p;
    char err[256];
    if (rs_tir_parse((const char *)data, size, "fuzz.tir", &p, err, sizeof err) == RS_OK) {
        rs_tire_in in = {4000.0, 0.1, 0.05, 0.01, 20.0, 60.0, 1.0, RS_TIRE_TRANSIENT, 1};
        rs_tire_out out;
        rs_tire_eval(&p, &in, &out);
    }
    return 0;
}
#elif RS_FUZZ_TARGET == 4 /* JSON text */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rs_json_doc *doc = NULL;
    char err[256];
    if (rs_json_parse((const char *)data, size, "fuzz.json", &doc, err, sizeof err) == RS_OK)
        rs_json_free(doc);
    return 0;
}
#elif RS_FUZZ_TARGET == 5 /* track JSON */
#include "racesim/track.h"
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rs_track *t = NULL;
    char err[256];
    if (rs_track_parse((const char *)data, size, "fuzz.json", &t, err, sizeof err) != RS_OK)
        return 0;
    /* An accepted track must be usable: every query stays finite and a
     * second parse of the same text gives the same identity. */
    rs_track *again = NULL;
    if (rs_track_parse((const char *)data, size, "fuzz.json", &again, err, sizeof err) != RS_OK ||
        rs_track_hash(t) != rs_track_hash(again))
        __builtin_trap();
    rs_track_point p;
    for (uint32_t i = 0; i < rs_track_point_count(t); i += 7) {
        if (!rs_track_point_at(t, i, &p))
            __builtin_trap();
        rs_ground_hit hit;
        rs_track_ground(t, p.x_m + 1.5, p.y_m - 0.5, &hit);
        if (hit.surface >= RS_SURFACE_COUNT)
            __builtin_trap();
        rs_track_sample smp;
        rs_track_sample_at(t, p.s_m + 0.25, &smp);
        if (!(smp.x_m == smp.x_m) || !(smp.curvature_1_m == smp.curvature_1_m))
            __builtin_trap();
    }
    rs_track_destroy(again);
    rs_track_destroy(t);
    return 0;
}
#elif RS_FUZZ_TARGET == 6 /* lap proof */
#include "racesim/lapproof.h"
#include "racesim/track.h"

#define LP_CARS 16
static rs_car_params *lp_car;
static rs_track *lp_track;

static void lp_setup(void)
{
    char err[512], path[1024];
    snprintf(path, sizeof path, "%s/cars/c5.json", RS_DATA_DIR);
    if (rs_car_params_load(path, &lp_car, err, sizeof err) != RS_OK) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    snprintf(path, sizeof path, "%s/tracks/oval.json", RS_DATA_DIR);
    if (rs_track_load(path, &lp_track, err, sizeof err) != RS_OK) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
}

/* Every accepted header must be consistent (the lap's car one of the snapshot's, a version 1
 * proof without joins), and a proof of up to 4000 ticks for up to 16 c5 cars on the oval is
 * re-simulated (whatever its verdict, no crash). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!lp_car)
        lp_setup();
    rs_lap_proof_info info;
    if (rs_lap_proof_info_read(data, size, &info) != RS_OK)
        return 0;
    uint64_t h;
    if (info.car == 0 || info.car > info.car_count - info.join_count ||
        rs_lap_proof_car_hash(data, size, info.car - 1u, &h) != RS_OK || h != info.car_params_hash ||
        rs_lap_proof_car_hash(data, size, info.car_count, &h) != RS_ERR_ARG ||
        (info.version == 1 && (info.join_count != 0 || !info.start_hold)))
        abort();
    if (info.car_count <= LP_CARS && info.tick_count <= 4000) {
        const rs_car_params *cars[LP_CARS];
        for (int i = 0; i < LP_CARS; i++)
            cars[i] = lp_car;
        rs_lap_verdict v;
        char msg[256];
        rs_lap_proof_verify(data, size, cars, info.car_count, lp_track, &v, msg, sizeof msg);
    }
    return 0;
}
#elif RS_FUZZ_TARGET == 7 /* protocol messages */
#include "racesim/protocol.h"

static rs_proto_assembler *pr_asm;

/* Any accepted message must be canonical (re-encodes to the same bytes),
 * a FRAME must resolve or be refused without harm, and chunks must go
 * through the assembler without harm. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rs_msg m;
    static uint8_t again[RS_PROTO_MAX_PACKET];
    if (!pr_asm && rs_proto_assembler_create(1u << 16, &pr_asm) != RS_PROTO_OK)
        abort();
    rs_proto_status st = rs_proto_decode(data, size, &m, NULL);
    if (st != RS_PROTO_OK)
        return 0;
    size_t len = 0;
    if (rs_proto_encode(&m, again, sizeof again, &len, NULL) != RS_PROTO_OK || len != size ||
        memcmp(again, data, size) != 0)
        abort();
    bool done;
    if (m.type == RS_MSG_FRAME) {
        static rs_input base[RS_PROTO_MAX_CARS];
        static rs_input out[RS_PROTO_FRAME_MAX_TICKS * RS_PROTO_MAX_CARS];
        for (uint32_t i = 0; i < RS_PROTO_MAX_CARS; i++)
            base[i] = rs_proto_input_neutral();
        if (rs_proto_frame_get_inputs(&m.u.frame, base, out) == RS_PROTO_OK) {
            for (uint32_t i = 0; i < (uint32_t)m.u.frame.tick_count * m.u.frame.car_count; i++)
                if (!rs_proto_input_valid(&out[i]))
                    abort();
        }
    } else if (m.type == RS_MSG_SNAPSHOT) {
        rs_proto_assembler_add(pr_asm, &m.u.snapshot.chunk, &done);
    } else if (m.type == RS_MSG_PARAMS) {
        rs_proto_assembler_add(pr_asm, &m.u.params.chunk, &done);
    }
    return 0;
}
#elif RS_FUZZ_TARGET == 8 || RS_FUZZ_TARGET == 9
#include "secure_fixture.h"

/* The secure targets' fixed session, made on first use. */
static const secure_fixture *fixture(void)
{
    static secure_fixture f;
    static bool ready;
    if (!ready) {
        secure_fixture_make(&f);
        ready = true;
    }
    return &f;
}

#if RS_FUZZ_TARGET == 8 /* secure handshake frames */
/* Any bytes as a key offer to the server and as the reply to a fixed
 * offer: only a well-formed offer is answered (with a reply the size of
 * the spec), and no reply but the genuine one is ever accepted. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const secure_fixture *f = fixture();
    uint8_t reply[RS_SECURE_REPLY_LEN], key[RS_SECURE_KEY_LEN];
    rs_secure_session s;
    if (rs_secure_server_answer(&f->id, data, size, NULL, reply, &s) == RS_SECURE_OK &&
        (size != RS_SECURE_OFFER_LEN || reply[0] != RS_MSG_HELLO))
        abort();
    rs_secure_client_hs hs = f->hs;
    if (rs_secure_client_finish(&hs, data, size, key, &s) == RS_SECURE_OK &&
        (size != sizeof f->reply || memcmp(data, f->reply, size) != 0))
        abort();
    return 0;
}
#else /* RS_FUZZ_TARGET == 9: sealed packets */
/* data[0] picks the channel (4 is none), the rest is a packet for the
 * server's fresh session. Only a genuine sealed packet opens, to its
 * message; anything refused leaves the session as it was. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const secure_fixture *f = fixture();
    if (size < 1)
        return 0;
    uint8_t ch = (uint8_t)(data[0] % (RS_CH_COUNT + 1));
    rs_secure_session s = f->server;
    uint8_t out[RS_SECURE_MAX_PACKET];
    size_t n = 0;
    rs_secure_status st = rs_secure_open(&s, ch, data + 1, size - 1, out, sizeof out, &n);
    if (st != RS_SECURE_OK) {
        if (memcmp(&s, &f->server, sizeof s) != 0)
            abort();
        return 0;
    }
    bool genuine = false;
    for (unsigned i = 0; i < FIX_PACKETS && ch < RS_CH_COUNT; i++)
        genuine |= size - 1 == f->sealed_len[ch][i] &&
                   memcmp(data + 1, f->sealed[ch][i], size - 1) == 0;
    if (!genuine || n != 5 || out[0] != 7 || out[1] != ch)
        abort();
    return 0;
}
#endif
#else
#error "RS_FUZZ_TARGET must be 1..9"
#endif
