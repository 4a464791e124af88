/*
 * Assertions cmocka lacks, shared by the tests (include after cmocka.h).
 */
#ifndef RS_TEST_ASSERT_H
#define RS_TEST_ASSERT_H

#include <string.h>

/* |got - want| <= tol, in double precision (cmocka 1.1 only compares
 * floats); a failure names the expression and the line. */
#define assert_close(got, want, tol) assert_close_at((got), (want), (tol), #got, __LINE__)

static inline void assert_close_at(double got, double want, double tol, const char *what,
                                   int line)
{
    double diff = got > want ? got - want : want - got;
    if (!(diff <= tol))
        fail_msg("line %d: %s = %.17g, expected %.17g within %g", line, what, got, want, tol);
}

/* The text s (a message, usually) contains part. */
static inline void assert_contains(const char *s, const char *part)
{
    if (!strstr(s, part))
        fail_msg("\"%s\" does not contain \"%s\"", s, part);
}

/* A call that had to fail returned status st (0 is success) and the
 * message err: it failed, and err contains part. When not, both are
 * printed first. */
static inline void assert_fails_naming(int st, const char *err, const char *part)
{
    if (st == 0 || !strstr(err, part))
        print_error("status %d, message: %s\n(wanted \"%s\")\n", st, st ? err : "-", part);
    assert_int_not_equal(st, 0);
    assert_non_null(strstr(err, part));
}

#endif
