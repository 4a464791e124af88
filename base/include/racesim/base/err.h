/*
 * Error messages into a caller's buffer: the convention of every function
 * here that can fail with a reason is a `char *err, size_t err_len` pair,
 * and this is the one function that fills it.
 */
#ifndef RACESIM_BASE_ERR_H
#define RACESIM_BASE_ERR_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define RS_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define RS_PRINTF(fmt_index, first_arg)
#endif

/* Formats into err (always NUL-terminated, truncated to err_len); does
 * nothing when err is NULL or err_len is 0, so callers may pass NULL when
 * they do not want the text. */
void rs_errf(char *err, size_t err_len, const char *fmt, ...) RS_PRINTF(3, 4);
void rs_verrf(char *err, size_t err_len, const char *fmt, va_list ap) RS_PRINTF(3, 0);

/* Appends to what err already holds (same rules). */
void rs_errf_append(char *err, size_t err_len, const char *fmt, ...) RS_PRINTF(3, 4);

#ifdef __cplusplus
}
#endif

#endif
