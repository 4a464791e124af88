/*
 * Writes the seed corpus of fuzz_protocol: one encoded example of every
 * message type (the samples the protocol tests round-trip), plus the
 * refusal a server sends for a HELLO of another version.
 */
#include <stdio.h>

#include "racesim/protocol.h"
#include "seed_file.h"
#include "test_protocol_support.h"

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
    return 0;
}
