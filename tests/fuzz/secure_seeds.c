/*
 * Seeds for fuzz_handshake and fuzz_sealed (usage: secure_seeds DIR_HS
 * DIR_SEALED): the fixture's genuine offer and reply, and its genuine
 * sealed packets with their channel byte in front.
 */
#include <stdio.h>

#include "secure_fixture.h"

static int put(const char *dir, const char *name, unsigned a, unsigned b, const uint8_t *head,
               size_t head_len, const uint8_t *bytes, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s_%u_%u", dir, name, a, b);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    int bad = fwrite(head, 1, head_len, f) != head_len || fwrite(bytes, 1, len, f) != len;
    return fclose(f) != 0 || bad;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DIR_HANDSHAKE DIR_SEALED\n", argv[0]);
        return 2;
    }
    static secure_fixture f;
    secure_fixture_make(&f);
    int bad = put(argv[1], "offer", 0, 0, NULL, 0, f.hs.offer, sizeof f.hs.offer);
    bad |= put(argv[1], "reply", 0, 0, NULL, 0, f.reply, sizeof f.reply);
    for (uint8_t ch = 0; ch < RS_CH_COUNT; ch++)
        for (unsigned i = 0; i < FIX_PACKETS; i++)
            bad |= put(argv[2], "sealed", ch, i, &ch, 1, f.sealed[ch][i], f.sealed_len[ch][i]);
    if (bad)
        fprintf(stderr, "secure_seeds: cannot write the seeds\n");
    return bad;
}
