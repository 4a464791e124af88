/*
 * The one file that reads a clock (racesim/base/clock.h).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep, gmtime_r */
#include "racesim/base/clock.h"

#include <errno.h>
#include <time.h>

int64_t rs_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

int64_t rs_clock_us(void)
{
    return rs_clock_ns() / 1000;
}

double rs_clock_s(void)
{
    return (double)rs_clock_ns() * 1e-9;
}

int64_t rs_wall_time_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec;
}

void rs_wall_deadline(int64_t us, struct timespec *out)
{
    clock_gettime(CLOCK_REALTIME, out);
    int64_t ns = (int64_t)out->tv_nsec + (us % 1000000) * 1000;
    out->tv_sec += (time_t)(us / 1000000 + ns / 1000000000);
    out->tv_nsec = (long)(ns % 1000000000);
}

int64_t rs_wall_time_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

size_t rs_time_format_utc(int64_t unix_s, const char *fmt, char *out, size_t cap)
{
    if (!out || cap == 0)
        return 0;
    out[0] = '\0';
    time_t t = (time_t)unix_s;
    struct tm tm;
    if ((int64_t)t != unix_s || !gmtime_r(&t, &tm))
        return 0;
    size_t n = strftime(out, cap, fmt, &tm);
    if (n == 0)
        out[0] = '\0';
    return n;
}

void rs_sleep_us(int64_t us)
{
    if (us <= 0)
        return;
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    /* nanosleep leaves the time still to sleep in ts when a signal cuts it short. */
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}
