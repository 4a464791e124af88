/*
 * Writing one file of a fuzzer's seed corpus (tests/fuzz's seed makers).
 */
#ifndef RS_SEED_FILE_H
#define RS_SEED_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes p[0..n) to DIR/NAME. Returns 0, or 1 after telling stderr (as
 * `who`) what could not be written. */
static inline int seed_file_write(const char *who, const char *dir, const char *name,
                                  const uint8_t *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int bad = !f || fwrite(p, 1, n, f) != n;
    if (f && fclose(f) != 0)
        bad = 1;
    if (bad)
        fprintf(stderr, "%s: cannot write %s\n", who, path);
    return bad;
}

#endif
