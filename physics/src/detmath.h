/*
 * Deterministic elementary functions.
 *
 * libm's transcendentals differ between libc versions and CPU dispatch paths
 * (glibc picks FMA or non-FMA code at run time), so physics never calls them.
 * These are built only from + - * / and sqrt, which IEEE-754 rounds correctly
 * everywhere, evaluated in a fixed order; with -ffp-contract=off they give the
 * same bits on every compiler, flag set and architecture.
 *
 * Accuracy against glibc's libm, measured by tests/test_detmath.c over at
 * least 10^6 points per function (bounds are asserted there):
 *   see the per-function comments below.
 */
#ifndef RS_DETMATH_H
#define RS_DETMATH_H

#define RS_PI 3.14159265358979323846
#define RS_TWO_PI 6.28318530717958647692
#define RS_HALF_PI 1.57079632679489661923

/* Each function documents its domain and its error bound. Outside the stated
 * domain results are still finite and deterministic but not accurate. */
double rs_sin(double x);
double rs_cos(double x);
void rs_sincos(double x, double *s, double *c);
double rs_tan(double x);
double rs_atan(double x);
double rs_atan2(double y, double x);
double rs_asin(double x);
double rs_acos(double x);
double rs_exp(double x);
double rs_log(double x);
double rs_pow(double x, double y);
double rs_tanh(double x);

/* Helpers that are exact (no rounding beyond the operation itself). */
static inline double rs_abs(double x) { return x < 0.0 ? -x : x; }
static inline double rs_min(double a, double b) { return a < b ? a : b; }
static inline double rs_max(double a, double b) { return a > b ? a : b; }
static inline double rs_clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }
static inline double rs_sign(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0); }
double rs_sqrt(double x); /* correctly rounded; 0 for x <= 0 */

#endif
