/*
 * Deterministic elementary functions.
 *
 * libm's transcendentals differ between libc versions and CPU dispatch paths
 * (glibc picks FMA or non-FMA code at run time), so physics never calls them.
 * These are built only from + - * / and sqrt, which IEEE-754 rounds correctly
 * everywhere, evaluated in a fixed order; with -ffp-contract=off they give the
 * same bits on every compiler, flag set and architecture.
 *
 * Accuracy is measured by tests/test_detmath.c over more than 10^6 points per
 * function, and the bound quoted with each function is asserted there:
 * "N ulp vs glibc" means our result and glibc's are at most N doubles apart.
 * The figure "vs exact" is the largest error against the exact value
 * (measured against x86's 64-bit long double libm), for information.
 *
 * Edge behaviour is part of the contract: the functions never trap, never
 * set errno, and give finite results for finite arguments. NaN in gives NaN
 * out unless stated otherwise.
 */
#ifndef RS_DETMATH_H
#define RS_DETMATH_H

#include <float.h>

/* Every physics translation unit includes this header, so these guards stop
 * a build that would silently lose determinism (docs/DETERMINISM.md,
 * "Guards in the code"). */
#if defined(__FAST_MATH__)
#error "detmath.h: -ffast-math (or -Ofast) breaks bit-identical physics; remove it"
#endif
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "detmath.h: FLT_EVAL_METHOD must be 0 (on 32-bit x86 compile with -msse2 -mfpmath=sse)"
#endif

#define RS_PI 3.14159265358979323846
#define RS_TWO_PI 6.28318530717958647692
#define RS_HALF_PI 1.57079632679489661923
#define RS_RPM_PER_RAD_S (60.0 / RS_TWO_PI)

/* sin x. Max error 1 ulp vs glibc (0.79 ulp vs exact) over [-100, 100] and
 * [-1e5, 1e5], measured by tests/test_detmath.c. The reduction by pi/2 is
 * exact for |x| < 1.6e6; beyond, the absolute error grows to about
 * 1e-16 |x| (6e-8 at 1e9). For |x| >= 2^30 the result is 0 (finite,
 * repeatable, meaningless); Inf gives NaN. sin(-0.0) is +0.0. */
double rs_sin(double x);

/* cos x. Max error 1 ulp vs glibc (0.81 ulp vs exact) over [-100, 100] and
 * [-1e5, 1e5], measured by tests/test_detmath.c. Ranges as rs_sin; for
 * |x| >= 2^30 the result is 1. */
double rs_cos(double x);

/* *s = rs_sin(x) and *c = rs_cos(x), bit for bit, sharing one reduction. */
void rs_sincos(double x, double *s, double *c);

/* tan x. Max error 1 ulp vs glibc (0.92 ulp vs exact) over [-100, 100] and
 * [-1e5, 1e5], measured by tests/test_detmath.c. Finite for finite x:
 * large near the poles; 0 for |x| >= 2^30. */
double rs_tan(double x);

/* atan x, in [-pi/2, pi/2]. Max error 1 ulp vs glibc (1.34 ulp vs exact)
 * over [-1e6, 1e6] with log-spaced magnitudes, measured by
 * tests/test_detmath.c. atan(+-Inf) = +-pi/2. */
double rs_atan(double x);

/* atan2(y, x), in [-pi, pi]. Max error 2 ulp vs glibc (1.51 ulp vs exact)
 * over a grid of angles times radii 1e-6..1e6, the axes, and random points,
 * measured by tests/test_detmath.c. Signs follow C where it matters: the
 * sign bit of y gives the sign of the result, so atan2(+-0, x > 0) = +-0 and
 * atan2(+-0, x < 0) = +-pi. Unlike C, x = -0 counts as +0: atan2(+-0, +-0)
 * = +-0. Accurate while |x| + |y| does not overflow (below about 1e300);
 * Inf arguments are not supported. */
double rs_atan2(double y, double x);

/* asin x, in [-pi/2, pi/2]. Max error 1 ulp vs glibc (0.68 ulp vs exact)
 * over [-1, 1], measured by tests/test_detmath.c. x is clamped to [-1, 1]
 * first, so rs_asin(1.5) = pi/2. */
double rs_asin(double x);

/* acos x, in [0, pi]. Max error 1 ulp vs glibc (0.77 ulp vs exact) over
 * [-1, 1], measured by tests/test_detmath.c. x is clamped to [-1, 1]
 * first. */
double rs_acos(double x);

/* e^x. Max error 1 ulp vs glibc (0.51 ulp vs exact) over [-700, 700],
 * measured by tests/test_detmath.c. Overflow (x > 709.78, +Inf) saturates to
 * DBL_MAX; x < -745.25 and -Inf give 0; a subnormal result is rounded twice
 * (can be 1 ulp of the subnormal off). */
double rs_exp(double x);

/* Natural logarithm. Max error 1 ulp vs glibc (0.51 ulp vs exact) over
 * log-spaced (1e-300, 1e300), near 1 and on subnormals, measured by
 * tests/test_detmath.c. x <= 0 (including -0) gives -1e300, a large finite
 * negative value, instead of -Inf or NaN; +Inf gives +Inf. */
double rs_log(double x);

/* x^y, as e^(y log x) with log x carried as a double-double so that large
 * y log x keep full accuracy. Max error 1 ulp vs glibc (0.51 ulp vs exact)
 * over x log-spaced in [1e-6, 1e6] and near 1, y in [-10, 10], measured by
 * tests/test_detmath.c. pow(x, 0) = pow(1, y) = 1 for every x and y.
 * Saturates like rs_exp (DBL_MAX, 0). x <= 0, negative x included, is
 * treated as +0: the result is 0 for y > 0 and DBL_MAX for y < 0. */
double rs_pow(double x, double y);

/* tanh x. Max error 2 ulp vs glibc (0.54 ulp vs exact: glibc's tanh itself
 * is up to 1.5 ulp off) over [-20, 20], measured by tests/test_detmath.c.
 * |x| >= 20 gives exactly +-1. */
double rs_tanh(double x);

/* Helpers that are exact (no rounding beyond the operation itself). */
static inline double rs_abs(double x) { return x < 0.0 ? -x : x; }
static inline double rs_min(double a, double b) { return a < b ? a : b; }
static inline double rs_max(double a, double b) { return a > b ? a : b; }
static inline double rs_clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }
static inline double rs_sign(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0); }

/* An angle wrapped into (-pi, pi] by whole turns (exact for the few turns
 * headings and their differences span). */
static inline double rs_wrap_angle(double a)
{
    while (a > RS_PI)
        a -= RS_TWO_PI;
    while (a <= -RS_PI)
        a += RS_TWO_PI;
    return a;
}

/* Square root, correctly rounded (IEEE-754 requires it, so it is the same
 * everywhere): 0 for x <= 0; NaN stays NaN. Inline where the caller is
 * compiled with -fno-math-errno (the physics target: __builtin_sqrt is then
 * the bare instruction, and it sits on the hot path); elsewhere (tests,
 * tools) the out-of-line copy, so they need not link libm. Same result. */
double rs_sqrt_out_of_line(double x);
#ifdef __NO_MATH_ERRNO__
static inline double rs_sqrt(double x) { return x <= 0.0 ? 0.0 : __builtin_sqrt(x); }
#else
#define rs_sqrt rs_sqrt_out_of_line
#endif

#endif
