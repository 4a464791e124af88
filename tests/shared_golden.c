/*
 * The golden determinism scenario (tests/support/golden_scenario.c: 8 AI
 * cars, 3 laps of the technical track) stepped by the shared client library
 * alone: libracesim_client's physics is compiled apart from the server's
 * (position-independent, cmake/client_library.cmake), and a game's
 * prediction is only worth anything if it steps bit for bit as the server
 * does. Prints the world hash; exits 0 when it is the checked-in golden
 * hash, 1 otherwise. Linked against nothing of the project but the shared
 * library, so it uses only what the library exports.
 */
#include <inttypes.h>
#include <stdio.h>

#include "golden_scenario.h"

int main(void)
{
    rs_golden *g = NULL;
    char err[512];
    if (rs_golden_create(RS_DATA_DIR, &g, err, sizeof err) != RS_OK) {
        fprintf(stderr, "shared_golden: %s\n", err);
        return 1;
    }
    for (uint32_t t = 0; t < RS_GOLDEN_TICKS; t++)
        if (rs_golden_step(g) != RS_OK) {
            fprintf(stderr, "shared_golden: tick %" PRIu32 " failed\n", t + 1);
            rs_golden_destroy(g);
            return 1;
        }
    uint64_t hash = rs_world_hash(rs_golden_world(g));
    rs_golden_destroy(g);
    printf("shared_golden: hash=%016" PRIx64 ", golden %016" PRIx64 "\n", hash,
           (uint64_t)RS_GOLDEN_HASH);
    return hash == RS_GOLDEN_HASH ? 0 : 1;
}
