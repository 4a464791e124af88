/*
 * Small text helpers (racesim/base/text.h).
 */
#include "racesim/base/text.h"

#include <string.h>

bool rs_str_copy(char *dst, size_t cap, const char *src)
{
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= cap)
        return false;
    memcpy(dst, src, n + 1);
    return true;
}

bool rs_str_cut(char *dst, size_t cap, const char *src)
{
    if (!src)
        src = "";
    size_t n = strlen(src);
    bool whole = n < cap;
    if (!whole) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
            n--; /* src[n] would be a continuation byte: cut before its lead */
    }
    memmove(dst, src, n);
    dst[n] = '\0';
    return whole;
}

int rs_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
