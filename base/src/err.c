/*
 * Error messages into a caller's buffer (racesim/base/err.h).
 */
#include "racesim/base/err.h"

#include <stdio.h>

void rs_verrf(char *err, size_t err_len, const char *fmt, va_list ap)
{
    if (!err || err_len == 0)
        return;
    vsnprintf(err, err_len, fmt, ap);
}

void rs_errf(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rs_verrf(err, err_len, fmt, ap);
    va_end(ap);
}

void rs_errf_append(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0)
        return;
    size_t used = 0;
    while (used < err_len && err[used] != '\0')
        used++;
    if (used >= err_len - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    rs_verrf(err + used, err_len - used, fmt, ap);
    va_end(ap);
}
