/*
 * splitmix64: the small seeded generator the tests and their tools draw
 * from, so a seed gives the same sequence on every machine and compiler.
 */
#ifndef RS_SPLITMIX64_H
#define RS_SPLITMIX64_H

#include <stdint.h>

/* The next 64 random bits of the stream whose state is *s. */
static inline uint64_t splitmix64_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
