/*
 * Small text helpers (racesim/base/text.h).
 */
#include "racesim/base/text.h"

#include <inttypes.h>
#include <stdio.h>
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

void rs_race_time_str(int64_t us, char *out, size_t cap)
{
    if (us < 0) {
        snprintf(out, cap, "-");
        return;
    }
    int64_t ms = us / 1000;
    int64_t s = ms / 1000, m = s / 60, h = m / 60;
    if (h > 0)
        snprintf(out, cap, "%" PRId64 ":%02d:%02d.%03d", h, (int)(m % 60), (int)(s % 60),
                 (int)(ms % 1000));
    else
        snprintf(out, cap, "%" PRId64 ":%02d.%03d", m, (int)(s % 60), (int)(ms % 1000));
}
