/*
 * Writes the seed corpus of fuzz_protocol: one encoded example of every
 * message type (the samples the protocol tests round-trip, protocol
 * version 6's included), plus the refusal a server sends for a HELLO of
 * another version, HELLOs whose names sit on either side of the name rules
 * (racesim/protocol.h, "player names") and CHATs whose text sits on either
 * side of the text rules (rs_proto_text_check), so the fuzzer starts next
 * to those branches.
 */
#include <stdio.h>
#include <string.h>

#include "racesim/protocol.h"
#include "seed_file.h"
#include "test_protocol_support.h"

/* A HELLO named by len bytes of name: encoded with a placeholder of the
 * same length, then the bytes put in its place, so a name the encoder
 * refuses can be a seed too. */
static int hello_seed(const char *dir, const char *seed, const char *name, size_t len)
{
    static rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_HELLO;
    m.u.hello.protocol_version = RS_PROTO_VERSION;
    m.u.hello.physics_version = RS_PHYSICS_VERSION;
    memset(m.u.hello.name, 'q', len);
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t n = 0;
    if (len < 1 || len > RS_PROTO_NAME_MAX ||
        rs_proto_encode(&m, buf, sizeof buf, &n, NULL) != RS_PROTO_OK) {
        fprintf(stderr, "protocol_seeds: %s: cannot encode\n", seed);
        return 1;
    }
    uint8_t *at = memchr(buf, 'q', n);
    memcpy(at, name, len);
    return seed_file_write("protocol_seeds", dir, seed, buf, n);
}

/* A CHAT to the room of len bytes of text, put in place of a placeholder
 * like hello_seed's name. */
static int chat_seed(const char *dir, const char *seed, const char *text, size_t len)
{
    static rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_CHAT;
    memset(m.u.chat.text, 'q', len);
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t n = 0;
    if (len < 1 || len > RS_PROTO_TEXT_MAX ||
        rs_proto_encode(&m, buf, sizeof buf, &n, NULL) != RS_PROTO_OK) {
        fprintf(stderr, "protocol_seeds: %s: cannot encode\n", seed);
        return 1;
    }
    uint8_t *at = memchr(buf, 'q', n);
    memcpy(at, text, len);
    return seed_file_write("protocol_seeds", dir, seed, buf, n);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_protocol_seeds DIR\n");
        return 2;
    }
    uint8_t types[256];
    size_t n = rs_proto_msg_types(types, sizeof types);
    static rs_msg m;
    uint8_t buf[RS_PROTO_MAX_PACKET];
    for (size_t i = 0; i <= n; i++) {
        if (i < n)
            proto_sample(types[i], &m);
        else
            rs_proto_refuse_version(RS_PROTO_VERSION + 1u, &m);
        size_t len = 0;
        const char *field = NULL;
        rs_proto_status st = rs_proto_encode(&m, buf, sizeof buf, &len, &field);
        if (st != RS_PROTO_OK) {
            fprintf(stderr, "protocol_seeds: %s: %s (%s)\n", rs_proto_msg_name(m.type),
                    rs_proto_status_str(st), field ? field : "-");
            return 1;
        }
        char name[128];
        snprintf(name, sizeof name, "%s%s", rs_proto_msg_name(m.type), i < n ? "" : "_version");
        if (seed_file_write("protocol_seeds", argv[1], name, buf, len))
            return 1;
    }
    static const char accepted[] = "Jose\xcc\x81 \xe2\x9d\xa4\xef\xb8\x8f \xf0\x9f\x8f\x8e";
    static const char refused[] = "evil\xe2\x80\xae" "cba";
    if (hello_seed(argv[1], "HELLO_name_accepted", accepted, sizeof accepted - 1) ||
        hello_seed(argv[1], "HELLO_name_refused", refused, sizeof refused - 1))
        return 1;
    static const char line[] = "gg  wp \xe2\x80\x94 \xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9 ";
    static const char forged[] = "gg\nAyrton: I give up";
    static const char overridden[] = "nice \xe2\x80\xae" "evom";
    if (chat_seed(argv[1], "CHAT_text_accepted", line, sizeof line - 1) ||
        chat_seed(argv[1], "CHAT_text_newline", forged, sizeof forged - 1) ||
        chat_seed(argv[1], "CHAT_text_bidi", overridden, sizeof overridden - 1))
        return 1;
    return 0;
}
