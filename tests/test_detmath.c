/*
 * Tests for physics/src/detmath.c, the deterministic elementary functions.
 *
 * glibc's libm is the reference: this test (and nothing in physics) links it.
 * Each accuracy test walks at least 10^6 points from a fixed-seed generator
 * (splitmix64, never rand(), so every run checks the same points), measures
 * the largest error in ulps of the libm result, prints it, and asserts the
 * bound documented next to the function in detmath.h. The figures printed
 * here are the ones quoted there.
 *
 * The rest checks the promises of detmath.h that a sampled error cannot
 * show: exact values, edge behaviour, signs, symmetry and monotonicity.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>

#include "detmath.h"

/* Correctly rounded constants (M_PI and friends are not in C11). */
#define PI 0x1.921fb54442d18p+1
#define PI_2 0x1.921fb54442d18p+0
#define PI_4 0x1.921fb54442d18p-1
#define E_ 0x1.5bf0a8b145769p+1
#define LN2 0x1.62e42fefa39efp-1

/* Asserted bounds, in ulps of glibc's result (see detmath.h). */
#define SIN_BOUND 1.0
#define COS_BOUND 1.0
#define TAN_BOUND 1.0
#define ATAN_BOUND 1.0
#define ATAN2_BOUND 2.0
#define ASIN_BOUND 1.0
#define ACOS_BOUND 1.0
#define EXP_BOUND 1.0
#define LOG_BOUND 1.0
#define POW_BOUND 1.0
#define TANH_BOUND 2.0

/* ------------------------------------------------------------ points */

static uint64_t rng_state;

static void rng_seed(uint64_t seed) { rng_state = seed; }

static uint64_t rng_next(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rng_next() >> 11) * 0x1p-53);
}

/* Magnitude log-uniform in [lo, hi), lo > 0. */
static double log_uniform(double lo, double hi)
{
    return exp(uniform(log(lo), log(hi)));
}

/* Either sign, with equal probability. */
static double random_sign(double x)
{
    return (rng_next() >> 63) ? -x : x;
}

/* ------------------------------------------------------------ ulps */

/* The spacing of doubles at |ref|: 2^(exponent - 52), or the smallest
 * subnormal. */
static double ulp_of(double ref)
{
    int e;
    if (ref == 0.0)
        return 0x1p-1074;
    (void)frexp(fabs(ref), &e);
    return e - 53 < -1074 ? 0x1p-1074 : ldexp(1.0, e - 53);
}

/* |got - ref| in ulps of ref. got - ref is exact when they are close
 * (Sterbenz), which is when the figure matters. */
static double ulp_error(double got, double ref)
{
    if (isnan(ref) || isnan(got))
        return isnan(ref) && isnan(got) ? 0.0 : INFINITY;
    if (got == ref)
        return 0.0;
    if (isinf(ref) || isinf(got))
        return INFINITY;
    return fabs(got - ref) / ulp_of(ref);
}

/* Where long double has a 64-bit significand (x86), its libm gives a
 * reference 2^11 times finer than double: the error against it is (to
 * 0.001 ulp) the true error, printed for information next to the figure
 * against glibc's double result, which is what is asserted. */
#if LDBL_MANT_DIG >= 64 && LDBL_MANT_DIG < 113
#define FINE(f) (f)
#else
#define FINE(f) NULL
#endif

typedef double (*fn1)(double);
typedef double (*fn2)(double, double);
typedef long double (*fn1l)(long double);
typedef long double (*fn2l)(long double, long double);

/* One function under test (one- or two-argument) and its worst case. */
typedef struct {
    const char *name;
    fn1 ours1, ref1;
    fn1l fine1;
    fn2 ours2, ref2;
    fn2l fine2;
    double max_ulp;      /* against glibc's double result (asserted) */
    double max_true_ulp; /* against the long double reference */
    double worst_a, worst_b;
    long points;
} err_stats;

static err_stats stats1(const char *name, fn1 ours, fn1 ref, fn1l fine)
{
    err_stats st = {.name = name, .ours1 = ours, .ref1 = ref, .fine1 = fine};
    return st;
}

static err_stats stats2(const char *name, fn2 ours, fn2 ref, fn2l fine)
{
    err_stats st = {.name = name, .ours2 = ours, .ref2 = ref, .fine2 = fine};
    return st;
}

static void record(err_stats *st, double got, double ref, long double fine, double a, double b)
{
    double e = ulp_error(got, ref);
    st->points++;
    if (e > st->max_ulp || isnan(e)) {
        st->max_ulp = e;
        st->worst_a = a;
        st->worst_b = b;
    }
    if (isfinite(fine)) {
        double t = (double)(fabsl((long double)got - fine) / (long double)ulp_of((double)fine));
        if (t > st->max_true_ulp)
            st->max_true_ulp = t;
    }
}

static void check1(err_stats *st, double a)
{
    long double fine = st->fine1 ? st->fine1((long double)a) : (long double)NAN;
    record(st, st->ours1(a), st->ref1(a), fine, a, 0.0);
}

static void check2(err_stats *st, double a, double b)
{
    long double fine = st->fine2 ? st->fine2((long double)a, (long double)b) : (long double)NAN;
    record(st, st->ours2(a, b), st->ref2(a, b), fine, a, b);
}

static void report(const err_stats *st, double bound)
{
    if (st->fine1 || st->fine2)
        print_message("%-5s max %.0f ulp vs glibc (bound %.0f; %.3f ulp vs exact) over %ld points, "
                      "worst at (%.17g, %.17g)\n",
                      st->name, st->max_ulp, bound, st->max_true_ulp, st->points, st->worst_a,
                      st->worst_b);
    else
        print_message("%-5s max %.0f ulp vs glibc (bound %.0f) over %ld points, "
                      "worst at (%.17g, %.17g)\n",
                      st->name, st->max_ulp, bound, st->points, st->worst_a, st->worst_b);
    assert_true(st->points >= 1000000);
    assert_true(st->max_ulp <= bound);
}

/* ------------------------------------------------------------ accuracy */

static void test_sin_is_within_1_ulp_of_libm(void **state)
{
    err_stats st = stats1("sin", rs_sin, sin, FINE(sinl));
    (void)state;
    rng_seed(1);
    for (int i = 0; i < 1000000; i++) {
        double x = uniform(-100.0, 100.0);
        check1(&st, x);
    }
    for (int i = 0; i < 200000; i++) {
        double x = uniform(-1e5, 1e5);
        check1(&st, x);
    }
    for (int i = 0; i < 100000; i++) {
        double x = random_sign(log_uniform(1e-300, 1.0));
        check1(&st, x);
    }
    report(&st, SIN_BOUND);
}

static void test_cos_is_within_1_ulp_of_libm(void **state)
{
    err_stats st = stats1("cos", rs_cos, cos, FINE(cosl));
    (void)state;
    rng_seed(2);
    for (int i = 0; i < 1000000; i++) {
        double x = uniform(-100.0, 100.0);
        check1(&st, x);
    }
    for (int i = 0; i < 200000; i++) {
        double x = uniform(-1e5, 1e5);
        check1(&st, x);
    }
    report(&st, COS_BOUND);
}

static void test_sincos_matches_sin_and_cos_bit_for_bit(void **state)
{
    (void)state;
    rng_seed(3);
    for (int i = 0; i < 200000; i++) {
        double x = i < 100000 ? uniform(-100.0, 100.0) : uniform(-1e5, 1e5);
        double s, c;
        rs_sincos(x, &s, &c);
        assert_memory_equal(&s, &(double){rs_sin(x)}, sizeof s);
        assert_memory_equal(&c, &(double){rs_cos(x)}, sizeof c);
    }
}

static void test_tan_is_within_1_ulp_of_libm(void **state)
{
    err_stats st = stats1("tan", rs_tan, tan, FINE(tanl));
    (void)state;
    rng_seed(4);
    for (int i = 0; i < 1000000; i++) {
        double x = uniform(-100.0, 100.0);
        check1(&st, x);
    }
    for (int i = 0; i < 200000; i++) {
        double x = uniform(-1e5, 1e5);
        check1(&st, x);
    }
    report(&st, TAN_BOUND);
}

static void test_atan_is_within_1_ulp_of_libm(void **state)
{
    err_stats st = stats1("atan", rs_atan, atan, FINE(atanl));
    (void)state;
    rng_seed(5);
    for (int i = 0; i < 1000000; i++) {
        double x = random_sign(log_uniform(1e-8, 1e6));
        check1(&st, x);
    }
    for (int i = 0; i < 200000; i++) { /* the reduction's breakpoints */
        double x = uniform(-3.0, 3.0);
        check1(&st, x);
    }
    report(&st, ATAN_BOUND);
}

static void test_atan2_is_within_2_ulp_of_libm(void **state)
{
    err_stats st = stats2("atan2", rs_atan2, atan2, FINE(atan2l));
    (void)state;
    rng_seed(6);
    /* 1001 angles over the full circle (multiples of pi/4 and the axes
     * included) times 1000 log-spaced radii. */
    for (int i = 0; i <= 1000; i++) {
        double t = -PI + 2.0 * PI * i / 1000.0;
        for (int j = 0; j < 1000; j++) {
            double rad = pow(10.0, -6.0 + 12.0 * j / 999.0);
            double y = rad * sin(t), x = rad * cos(t);
            check2(&st, y, x);
        }
    }
    for (int j = 0; j < 1000; j++) { /* exactly on the axes */
        double rad = pow(10.0, -6.0 + 12.0 * j / 999.0);
        check2(&st, 0.0, rad);
        check2(&st, 0.0, -rad);
        check2(&st, rad, 0.0);
        check2(&st, -rad, 0.0);
    }
    for (int i = 0; i < 200000; i++) { /* random directions and lengths */
        double y = uniform(-1.0, 1.0) * log_uniform(1e-6, 1e6);
        double x = uniform(-1.0, 1.0) * log_uniform(1e-6, 1e6);
        check2(&st, y, x);
    }
    report(&st, ATAN2_BOUND);
}

static void test_asin_is_within_1_ulp_of_libm(void **state)
{
    err_stats st = stats1("asin", rs_asin, asin, FINE(asinl));
    (void)state;
    rng_seed(7);
    for (int i = 0; i < 1000000; i++) {
        double x = uniform(-1.0, 1.0);
        check1(&st, x);
    }
    for (int i = 0; i < 100000; i++) { /* near +-1 and near 0 */
        double x = random_sign(1.0 - log_uniform(1e-16, 0.5));
        check1(&st, x);
        x = random_sign(log_uniform(1e-300, 0.5));
        check1(&st, x);
    }
    report(&st, ASIN_BOUND);
}

static void test_acos_is_within_1_ulp_of_libm(void **state)
{
    err_stats st = stats1("acos", rs_acos, acos, FINE(acosl));
    (void)state;
    rng_seed(8);
    for (int i = 0; i < 1000000; i++) {
        double x = uniform(-1.0, 1.0);
        check1(&st, x);
    }
    for (int i = 0; i < 100000; i++) {
        double x = random_sign(1.0 - log_uniform(1e-16, 0.5));
        check1(&st, x);
    }
    report(&st, ACOS_BOUND);
}

static void test_exp_is_within_1_ulp_of_libm(void **state)
{
    err_stats st = stats1("exp", rs_exp, exp, FINE(expl));
    (void)state;
    rng_seed(9);
    for (int i = 0; i < 1000000; i++) {
        double x = uniform(-700.0, 700.0);
        check1(&st, x);
    }
    for (int i = 0; i < 200000; i++) {
        double x = uniform(-2.0, 2.0);
        check1(&st, x);
    }
    for (int i = 0; i < 50000; i++) { /* the two-step scaling near the ends */
        double x = uniform(-708.39, -708.0);
        check1(&st, x);
        x = uniform(708.0, 709.78);
        check1(&st, x);
    }
    report(&st, EXP_BOUND);
}

static void test_log_is_within_1_ulp_of_libm(void **state)
{
    err_stats st = stats1("log", rs_log, log, FINE(logl));
    (void)state;
    rng_seed(10);
    for (int i = 0; i < 1000000; i++) {
        double x = log_uniform(1e-300, 1e300);
        check1(&st, x);
    }
    for (int i = 0; i < 200000; i++) { /* near 1, where log is small */
        double x = 1.0 + random_sign(log_uniform(1e-15, 0.3));
        check1(&st, x);
    }
    for (int i = 0; i < 10000; i++) { /* subnormal arguments */
        double x = log_uniform(0x1p-1074, DBL_MIN);
        check1(&st, x);
    }
    report(&st, LOG_BOUND);
}

static void test_pow_is_within_1_ulp_of_libm(void **state)
{
    err_stats st = stats2("pow", rs_pow, pow, FINE(powl));
    (void)state;
    rng_seed(11);
    for (int i = 0; i < 1000000; i++) {
        double x = log_uniform(1e-6, 1e6);
        double y = uniform(-10.0, 10.0);
        check2(&st, x, y);
    }
    for (int i = 0; i < 100000; i++) { /* bases near 1, as in load ratios */
        double x = 1.0 + random_sign(log_uniform(1e-12, 0.5));
        double y = uniform(-10.0, 10.0);
        check2(&st, x, y);
    }
    for (int i = 0; i < 100000; i++) { /* integer and half-integer exponents */
        double x = log_uniform(1e-6, 1e6);
        double y = (double)((int)(rng_next() % 41) - 20) * 0.5;
        check2(&st, x, y);
    }
    report(&st, POW_BOUND);
}

static void test_tanh_is_within_2_ulp_of_libm(void **state)
{
    err_stats st = stats1("tanh", rs_tanh, tanh, FINE(tanhl));
    (void)state;
    rng_seed(12);
    for (int i = 0; i < 1000000; i++) {
        double x = uniform(-20.0, 20.0);
        check1(&st, x);
    }
    for (int i = 0; i < 200000; i++) {
        double x = random_sign(log_uniform(1e-300, 2.0));
        check1(&st, x);
    }
    report(&st, TANH_BOUND);
}

static void test_sqrt_is_correctly_rounded(void **state)
{
    (void)state;
    rng_seed(13);
    for (int i = 0; i < 1000000; i++) {
        double x = log_uniform(1e-300, 1e300);
        assert_true(rs_sqrt(x) == sqrt(x));
    }
}

/* ------------------------------------------------------------ exact values */

static void test_exact_values_are_exact(void **state)
{
    (void)state;
    assert_true(rs_sin(0.0) == 0.0);
    assert_true(rs_sin(-0.0) == 0.0 && !signbit(rs_sin(-0.0))); /* as documented */
    assert_true(rs_cos(0.0) == 1.0);
    assert_true(rs_tan(0.0) == 0.0);
    assert_true(rs_atan(0.0) == 0.0);
    assert_true(rs_asin(0.0) == 0.0);
    assert_true(rs_acos(1.0) == 0.0);
    assert_true(rs_tanh(0.0) == 0.0);
    assert_true(rs_exp(0.0) == 1.0);
    assert_true(rs_log(1.0) == 0.0);
    assert_true(rs_sqrt(4.0) == 2.0);
    assert_true(rs_pow(2.0, 10.0) == 1024.0);
    assert_true(rs_pow(10.0, 2.0) == 100.0);
    assert_true(rs_pow(4.0, 0.5) == 2.0);
    assert_true(rs_pow(123.0, 1.0) == 123.0);
    assert_true(rs_pow(1.0, 1e300) == 1.0);
    assert_true(rs_pow(0.0, 0.0) == 1.0);
    assert_true(rs_exp(1.0) == E_);
    assert_true(rs_log(E_) == 1.0);
    /* pi/2, pi/4, pi as the correctly rounded doubles */
    assert_true(rs_asin(1.0) == PI_2);
    assert_true(rs_asin(-1.0) == -PI_2);
    assert_true(rs_acos(0.0) == PI_2);
    assert_true(rs_acos(-1.0) == PI);
    assert_true(rs_atan(1.0) == PI_4);
    assert_true(rs_atan(INFINITY) == PI_2);
    assert_true(rs_atan(-INFINITY) == -PI_2);
    /* sin x = x and tan x = x below 2^-27, cos x = 1 */
    assert_true(rs_sin(1e-10) == 1e-10);
    assert_true(rs_tan(-1e-10) == -1e-10);
    assert_true(rs_cos(1e-10) == 1.0);
    assert_true(rs_atan(1e-10) == 1e-10);
    assert_true(rs_tanh(1e-10) == 1e-10);
    assert_true(rs_asin(1e-10) == 1e-10);
}

static void test_atan2_quadrants_and_signs_follow_c(void **state)
{
    (void)state;
    assert_true(rs_atan2(1.0, 1.0) == PI_4);
    assert_true(rs_atan2(1.0, -1.0) == 3.0 * PI_4);
    assert_true(rs_atan2(-1.0, -1.0) == -3.0 * PI_4);
    assert_true(rs_atan2(-1.0, 1.0) == -PI_4);
    assert_true(rs_atan2(1.0, 0.0) == PI_2);
    assert_true(rs_atan2(-1.0, 0.0) == -PI_2);
    assert_true(rs_atan2(1.0, -0.0) == PI_2);
    assert_true(rs_atan2(0.0, 1.0) == 0.0 && !signbit(rs_atan2(0.0, 1.0)));
    assert_true(rs_atan2(-0.0, 1.0) == 0.0 && signbit(rs_atan2(-0.0, 1.0)));
    assert_true(rs_atan2(0.0, -1.0) == PI);
    assert_true(rs_atan2(-0.0, -1.0) == -PI);
    /* atan2(0, 0) = 0 whatever the signs (C gives +-pi for x = -0) */
    assert_true(rs_atan2(0.0, 0.0) == 0.0 && !signbit(rs_atan2(0.0, 0.0)));
    assert_true(rs_atan2(0.0, -0.0) == 0.0 && !signbit(rs_atan2(0.0, -0.0)));
    assert_true(rs_atan2(-0.0, 0.0) == 0.0 && signbit(rs_atan2(-0.0, 0.0)));
    assert_true(rs_atan2(-0.0, -0.0) == 0.0 && signbit(rs_atan2(-0.0, -0.0)));
    /* every quadrant: the result lies in it, and agrees with atan(y/x) */
    for (int i = 1; i < 1000; i++) {
        double y = i * 0.01, x = (1000 - i) * 0.013;
        double a = rs_atan2(y, x);
        assert_true(a > 0.0 && a < PI_2);
        assert_true(fabs(a - rs_atan(y / x)) <= 4e-16 * a);
        assert_true(rs_atan2(y, -x) > PI_2 && rs_atan2(y, -x) < PI);
        assert_true(rs_atan2(-y, -x) < -PI_2 && rs_atan2(-y, -x) > -PI);
        assert_true(rs_atan2(-y, x) == -a);
    }
}

static void test_edges_are_finite_as_documented(void **state)
{
    (void)state;
    assert_true(rs_log(0.0) == -1e300);
    assert_true(rs_log(-0.0) == -1e300);
    assert_true(rs_log(-5.0) == -1e300);
    assert_true(rs_log(INFINITY) == INFINITY);
    assert_true(isnan(rs_log(NAN)));
    assert_true(rs_exp(709.0) == exp(709.0) || ulp_error(rs_exp(709.0), exp(709.0)) <= EXP_BOUND);
    assert_true(rs_exp(710.0) == DBL_MAX);
    assert_true(rs_exp(1e300) == DBL_MAX);
    assert_true(rs_exp(INFINITY) == DBL_MAX);
    assert_true(rs_exp(-746.0) == 0.0);
    assert_true(rs_exp(-INFINITY) == 0.0);
    assert_true(rs_exp(-740.0) > 0.0 && rs_exp(-740.0) < DBL_MIN); /* subnormal */
    assert_true(ulp_error(rs_exp(-740.0), exp(-740.0)) <= 1.0);
    assert_true(isnan(rs_exp(NAN)));
    assert_true(rs_pow(0.0, 2.0) == 0.0);
    assert_true(rs_pow(0.0, -1.0) == DBL_MAX);
    assert_true(rs_pow(-2.0, 3.0) == 0.0);
    assert_true(rs_pow(-2.0, -3.0) == DBL_MAX);
    assert_true(rs_pow(1e6, 100.0) == DBL_MAX);
    assert_true(rs_pow(1e-6, 100.0) == 0.0);
    assert_true(rs_pow(INFINITY, 2.0) == DBL_MAX);
    assert_true(rs_asin(1.5) == PI_2);
    assert_true(rs_asin(-7.0) == -PI_2);
    assert_true(rs_acos(2.0) == 0.0);
    assert_true(rs_acos(-2.0) == PI);
    assert_true(rs_tanh(50.0) == 1.0);
    assert_true(rs_tanh(-50.0) == -1.0);
    assert_true(rs_tanh(INFINITY) == 1.0);
    assert_true(rs_sqrt(-1.0) == 0.0);
    assert_true(rs_sqrt(0.0) == 0.0);
    assert_true(rs_sqrt(-0.0) == 0.0);
    assert_true(isnan(rs_sin(INFINITY)) && isnan(rs_cos(NAN)));
    /* tan near its poles is large but finite */
    for (int k = -50; k <= 50; k++) {
        double x = (k + 0.5) * PI;
        assert_true(isfinite(rs_tan(x)) && fabs(rs_tan(x)) > 1e12);
    }
}

static void test_large_trig_arguments_stay_finite_and_repeatable(void **state)
{
    (void)state;
    double xs[] = {1.7e6, 1e7, 123456789.0, 0x1p30 - 1.0, 0x1p30, 1e15, 1e300, DBL_MAX, -DBL_MAX};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double s1, c1, s2, c2;
        rs_sincos(xs[i], &s1, &c1);
        rs_sincos(xs[i], &s2, &c2);
        assert_true(isfinite(s1) && isfinite(c1) && isfinite(rs_tan(xs[i])));
        assert_true(fabs(s1) <= 1.0 && fabs(c1) <= 1.0);
        assert_memory_equal(&s1, &s2, sizeof s1);
        assert_memory_equal(&c1, &c2, sizeof c1);
    }
    assert_true(rs_sin(1e300) == 0.0 && rs_cos(1e300) == 1.0 && rs_tan(1e300) == 0.0);
    /* still close to libm a little past the exact-reduction range */
    assert_true(fabs(rs_sin(1e7) - sin(1e7)) < 1e-9);
}

/* f(-x) = -f(x) or f(x), bit for bit (apart from the sign of a zero). */
static void test_symmetries_hold_bit_for_bit(void **state)
{
    (void)state;
    rng_seed(14);
    for (int i = 0; i < 100000; i++) {
        double x = uniform(0.0, 50.0), u = uniform(0.0, 1.0);
        assert_true(rs_sin(-x) == -rs_sin(x));
        assert_true(rs_cos(-x) == rs_cos(x));
        assert_true(rs_tan(-x) == -rs_tan(x));
        assert_true(rs_atan(-x) == -rs_atan(x));
        assert_true(rs_tanh(-x) == -rs_tanh(x));
        assert_true(rs_asin(-u) == -rs_asin(u));
        assert_true(rs_atan2(-u, x) == -rs_atan2(u, x));
    }
}

/* Walk consecutive doubles across the places where the code switches
 * formula or table entry, and a coarse grid over the whole range. */

static void check_monotonic(fn1 f, double lo, double hi, int steps, int increasing)
{
    double prev = f(lo);
    for (int i = 1; i <= steps; i++) {
        double x = lo + (hi - lo) * i / steps;
        double y = f(x);
        if (increasing)
            assert_true(y >= prev);
        else
            assert_true(y <= prev);
        prev = y;
    }
}

static void check_monotonic_around(fn1 f, double at, int increasing)
{
    double x = at, prev;
    for (int i = 0; i < 500; i++)
        x = nextafter(x, -INFINITY);
    prev = f(x);
    for (int i = 0; i < 1000; i++) {
        double y;
        x = nextafter(x, INFINITY);
        y = f(x);
        if (increasing)
            assert_true(y >= prev);
        else
            assert_true(y <= prev);
        prev = y;
    }
}

static void test_functions_are_monotonic_where_they_should_be(void **state)
{
    (void)state;
    check_monotonic(rs_sin, -PI_2, PI_2, 200000, 1);
    check_monotonic(rs_cos, 0.0, PI, 200000, 0);
    check_monotonic(rs_tan, -1.5, 1.5, 200000, 1);
    check_monotonic(rs_atan, -100.0, 100.0, 200000, 1);
    check_monotonic(rs_asin, -1.0, 1.0, 200000, 1);
    check_monotonic(rs_acos, -1.0, 1.0, 200000, 0);
    check_monotonic(rs_exp, -50.0, 50.0, 200000, 1);
    check_monotonic(rs_log, 1e-3, 1e3, 200000, 1);
    check_monotonic(rs_tanh, -10.0, 10.0, 200000, 1);
    /* formula switches */
    check_monotonic_around(rs_sin, PI_4, 1);
    check_monotonic_around(rs_sin, -PI_4, 1);
    check_monotonic_around(rs_cos, PI_4, 0);
    check_monotonic_around(rs_cos, 3.0 * PI_4, 0);
    check_monotonic_around(rs_tan, PI_4, 1);
    check_monotonic_around(rs_atan, 0.5, 1);
    check_monotonic_around(rs_atan, 2.0, 1);
    check_monotonic_around(rs_asin, 0.5, 1);
    check_monotonic_around(rs_acos, 0.5, 0);
    check_monotonic_around(rs_acos, -0.5, 0);
    check_monotonic_around(rs_log, 1.0, 1);
    check_monotonic_around(rs_log, 0.708984375, 1);
    check_monotonic_around(rs_exp, 0.0, 1);
    check_monotonic_around(rs_exp, LN2 / 256.0, 1);
    check_monotonic_around(rs_exp, LN2, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sin_is_within_1_ulp_of_libm),
        cmocka_unit_test(test_cos_is_within_1_ulp_of_libm),
        cmocka_unit_test(test_sincos_matches_sin_and_cos_bit_for_bit),
        cmocka_unit_test(test_tan_is_within_1_ulp_of_libm),
        cmocka_unit_test(test_atan_is_within_1_ulp_of_libm),
        cmocka_unit_test(test_atan2_is_within_2_ulp_of_libm),
        cmocka_unit_test(test_asin_is_within_1_ulp_of_libm),
        cmocka_unit_test(test_acos_is_within_1_ulp_of_libm),
        cmocka_unit_test(test_exp_is_within_1_ulp_of_libm),
        cmocka_unit_test(test_log_is_within_1_ulp_of_libm),
        cmocka_unit_test(test_pow_is_within_1_ulp_of_libm),
        cmocka_unit_test(test_tanh_is_within_2_ulp_of_libm),
        cmocka_unit_test(test_sqrt_is_correctly_rounded),
        cmocka_unit_test(test_exact_values_are_exact),
        cmocka_unit_test(test_atan2_quadrants_and_signs_follow_c),
        cmocka_unit_test(test_edges_are_finite_as_documented),
        cmocka_unit_test(test_large_trig_arguments_stay_finite_and_repeatable),
        cmocka_unit_test(test_symmetries_hold_bit_for_bit),
        cmocka_unit_test(test_functions_are_monotonic_where_they_should_be),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
