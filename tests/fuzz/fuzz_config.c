/*
 * libFuzzer target for raceserver's configuration file (server/app/
 * config.h): any bytes as the JSON document. A document is either refused
 * with a message naming the problem, or accepted; an accepted one must pass
 * or fail the cross-field checks without a crash, and applying it twice
 * must give the same configuration (applying is a pure function of the
 * defaults and the text).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rs_server_config a, b;
    char err[512] = "";
    rs_config_default(&a, "data");
    bool ok = rs_config_apply_json(&a, (const char *)data, size, "fuzz", err, sizeof err);
    if (!ok) {
        if (err[0] == '\0')
            abort(); /* a refusal always says why */
        return 0;
    }
    rs_config_check(&a, err, sizeof err);
    rs_config_default(&b, "data");
    if (!rs_config_apply_json(&b, (const char *)data, size, "fuzz", err, sizeof err) ||
        memcmp(&a, &b, sizeof a) != 0)
        abort();
    return 0;
}
