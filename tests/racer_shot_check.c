/*
 * Checks a racer screenshot (a 24-bit BMP, as racer writes it) for what a
 * player must see: the track (asphalt and grass), at least two cars in
 * their colours with the local car's white frame, and the HUD's text.
 * Counts pixels of exactly the colours in examples/racer/palette.h, so a
 * black, blank or unrelated picture fails.
 * Usage: racer_shot_check FILE.bmp. Exit 0 when it passes, 1 when not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "palette.h"

static uint32_t le(const uint8_t *p, int n)
{
    uint32_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

typedef struct want {
    const char *what;
    uint8_t rgb[3];
    double min_share; /* of all pixels */
    long count;
} want;

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: racer_shot_check FILE.bmp\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "racer_shot_check: cannot open %s\n", argv[1]);
        return 1;
    }
    uint8_t hdr[54];
    if (fread(hdr, 1, sizeof hdr, f) != sizeof hdr || hdr[0] != 'B' || hdr[1] != 'M' ||
        le(hdr + 28, 2) != 24 || le(hdr + 30, 4) != 0) {
        fprintf(stderr, "racer_shot_check: %s is not an uncompressed 24-bit BMP\n", argv[1]);
        fclose(f);
        return 1;
    }
    long w = (int32_t)le(hdr + 18, 4), h = labs((long)(int32_t)le(hdr + 22, 4));
    long stride = (w * 3 + 3) / 4 * 4;
    uint8_t *px = w > 0 && h > 0 ? malloc((size_t)(stride * h)) : NULL;
    if (!px || fseek(f, (long)le(hdr + 10, 4), SEEK_SET) != 0 ||
        fread(px, 1, (size_t)(stride * h), f) != (size_t)(stride * h)) {
        fprintf(stderr, "racer_shot_check: %s: truncated or empty\n", argv[1]);
        free(px);
        fclose(f);
        return 1;
    }
    fclose(f);

    want wants[] = {
        {"asphalt", {RACER_RGB_ASPHALT}, 0.05, 0},
        {"grass", {RACER_RGB_GRASS}, 0.05, 0},
        {"HUD text", {RACER_RGB_HUD_TEXT}, 0.001, 0},
        {"local car frame", {RACER_RGB_OUTLINE}, 0.00005, 0},
    };
    const size_t nw = sizeof wants / sizeof *wants;
    static const uint8_t cars[RACER_CAR_COLOUR_COUNT][4] = RACER_CAR_COLOURS;
    long car_px[RACER_CAR_COLOUR_COUNT] = {0};
    for (long y = 0; y < h; y++) {
        for (long x = 0; x < w; x++) {
            const uint8_t *p = px + y * stride + x * 3; /* B, G, R */
            for (size_t k = 0; k < nw; k++)
                if (p[2] == wants[k].rgb[0] && p[1] == wants[k].rgb[1] && p[0] == wants[k].rgb[2])
                    wants[k].count++;
            for (int k = 0; k < RACER_CAR_COLOUR_COUNT; k++)
                if (p[2] == cars[k][0] && p[1] == cars[k][1] && p[0] == cars[k][2])
                    car_px[k]++;
        }
    }
    free(px);
    int ok = 1;
    double total = (double)w * (double)h;
    for (size_t k = 0; k < nw; k++) {
        int pass = wants[k].count >= wants[k].min_share * total;
        printf("%-16s %8ld px %6.2f %% (need %.3f %%)%s\n", wants[k].what, wants[k].count,
               100.0 * wants[k].count / total, 100.0 * wants[k].min_share, pass ? "" : "  FAIL");
        ok &= pass;
    }
    /* A car at the closest zoom covers a few hundred pixels; 40 keeps a car
     * half off the screen countable and rules out stray pixels. */
    int cars_seen = 0;
    for (int k = 0; k < RACER_CAR_COLOUR_COUNT; k++)
        cars_seen += car_px[k] >= 40;
    printf("%-16s %8d seen (need 2)%s\n", "car colours", cars_seen, cars_seen >= 2 ? "" : "  FAIL");
    ok &= cars_seen >= 2;
    printf("racer_shot_check: %s %s\n", argv[1], ok ? "passed" : "FAILED");
    return ok ? 0 : 1;
}
