/*
 * Small text helpers that several modules need the same way.
 */
#ifndef RACESIM_BASE_TEXT_H
#define RACESIM_BASE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copies src (NULL: "") into dst when it fits whole, NUL included, in cap
 * bytes; false, leaving dst alone, when it would have to be cut. */
bool rs_str_copy(char *dst, size_t cap, const char *src);

/* Copies as much of src (NULL: "") as fits in cap bytes (cap >= 1), cut
 * at a UTF-8 character boundary, always NUL-terminated: for messages that
 * may be shortened but must stay valid text. Returns true when nothing
 * was cut. */
bool rs_str_cut(char *dst, size_t cap, const char *src);

/* The value of one hexadecimal digit (either case), or -1. */
int rs_hex_digit(int c);

/* A race or lap time in microseconds as people read it: "m:ss.mmm", or
 * "h:mm:ss.mmm" from an hour on, cut (not rounded) to the millisecond as
 * timing screens do, so one lap reads the same in every program. A
 * negative time is no time at all (the protocol's and the store's -1 for
 * a car that did not finish or has no valid lap): "-", never "-0.000".
 * Always NUL-terminated (cap >= 1). */
void rs_race_time_str(int64_t us, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
