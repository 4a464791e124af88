/*
 * Small text helpers that several modules need the same way.
 */
#ifndef RACESIM_BASE_TEXT_H
#define RACESIM_BASE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

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

#ifdef __cplusplus
}
#endif

#endif
