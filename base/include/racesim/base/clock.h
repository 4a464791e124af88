/*
 * Clocks and sleeping. Everything in the project that needs the time asks
 * here, so there is one place that knows how the platform tells it (and one
 * place a test or a port would replace).
 *
 * The monotonic clock never steps: use it for timeouts, rates and
 * measurements. The wall clock is for timestamps people read and store.
 * The simulation itself never reads either: ticks are its only time.
 */
#ifndef RACESIM_BASE_CLOCK_H
#define RACESIM_BASE_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Monotonic time since an arbitrary origin (boot, on Linux). */
int64_t rs_clock_ns(void);
int64_t rs_clock_us(void);
double rs_clock_s(void);

/* Wall-clock time: whole seconds since 1970-01-01 UTC. */
int64_t rs_wall_time_s(void);
/* The same in microseconds (log timestamps with milliseconds). */
int64_t rs_wall_time_us(void);

/* Writes unix_s as UTC with strftime's fmt into out; returns the length,
 * 0 (and out = "") when it does not fit or the time cannot be shown. */
size_t rs_time_format_utc(int64_t unix_s, const char *fmt, char *out, size_t cap);

/* The wall-clock time us microseconds from now, as pthread_cond_timedwait
 * takes its deadline (condition variables use CLOCK_REALTIME by default). */
void rs_wall_deadline(int64_t us, struct timespec *out);

/* Sleeps at least us microseconds (nothing for us <= 0); a signal does not
 * cut it short. */
void rs_sleep_us(int64_t us);

#ifdef __cplusplus
}
#endif

#endif
