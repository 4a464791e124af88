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
#include "splitmix64.h"
#include "test_table.h"

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

static uint64_t rng_next(void) { return splitmix64_next(&rng_state); }

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

/* Initialisers of an err_stats for rs_F against libm's F. */
#define ONE_ARG(f) .name = #f, .ours1 = rs_##f, .ref1 = f, .fine1 = FINE(f##l)
#define TWO_ARGS(f) .name = #f, .ours2 = rs_##f, .ref2 = f, .fine2 = FINE(f##l)

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

/* How one argument is drawn from the generator. */
typedef enum {
    DRAW_UNIFORM,           /* uniform(lo, hi) */
    DRAW_LOG,               /* log_uniform(lo, hi) */
    DRAW_SIGNED_LOG,        /* random_sign(log_uniform(lo, hi)) */
    DRAW_SIGNED_ONE_MINUS,  /* random_sign(1 - log_uniform(lo, hi)): near +-1, inside */
    DRAW_ONE_PLUS_SIGNED,   /* 1 + random_sign(log_uniform(lo, hi)): near 1, either side */
    DRAW_HALF_INTEGER       /* a multiple of 0.5 in [-10, 10] (lo, hi unused) */
} draw_kind;

typedef struct {
    draw_kind kind;
    double lo, hi;
} draw;

static double draw_point(draw d)
{
    switch (d.kind) {
    case DRAW_UNIFORM:
        return uniform(d.lo, d.hi);
    case DRAW_LOG:
        return log_uniform(d.lo, d.hi);
    case DRAW_SIGNED_LOG:
        return random_sign(log_uniform(d.lo, d.hi));
    case DRAW_SIGNED_ONE_MINUS:
        return random_sign(1.0 - log_uniform(d.lo, d.hi));
    case DRAW_ONE_PLUS_SIGNED:
        return 1.0 + random_sign(log_uniform(d.lo, d.hi));
    case DRAW_HALF_INTEGER:
        return (double)((int)(rng_next() % 41) - 20) * 0.5;
    }
    return NAN;
}

/* `count` rounds of drawing d[0] then d[1] (when given). A one-argument
 * function is checked at each drawn value; a two-argument one at the pair.
 * The draws stay in this order so every run checks the same points. */
typedef struct {
    long count;
    draw d[2];
    int ndraws;
} sweep;

#define SWEEP1(n, k, lo, hi) {(n), {{(k), (lo), (hi)}}, 1}
#define SWEEP2(n, k0, lo0, hi0, k1, lo1, hi1) {(n), {{(k0), (lo0), (hi0)}, {(k1), (lo1), (hi1)}}, 2}

/* One accuracy test: the function, the seed of its points, where they are
 * drawn and the asserted bound. */
typedef struct {
    const char *test_name;
    err_stats fn; /* with nothing recorded yet */
    uint64_t seed;
    double bound;
    sweep sweeps[3];
} accuracy_case;

static accuracy_case accuracy_cases[] = {
    {"test_sin_is_within_1_ulp_of_libm", .fn = {ONE_ARG(sin)}, .seed = 1, .bound = SIN_BOUND,
     .sweeps = {SWEEP1(1000000, DRAW_UNIFORM, -100.0, 100.0),
                SWEEP1(200000, DRAW_UNIFORM, -1e5, 1e5),
                SWEEP1(100000, DRAW_SIGNED_LOG, 1e-300, 1.0)}},
    {"test_cos_is_within_1_ulp_of_libm", .fn = {ONE_ARG(cos)}, .seed = 2, .bound = COS_BOUND,
     .sweeps = {SWEEP1(1000000, DRAW_UNIFORM, -100.0, 100.0),
                SWEEP1(200000, DRAW_UNIFORM, -1e5, 1e5)}},
    {"test_tan_is_within_1_ulp_of_libm", .fn = {ONE_ARG(tan)}, .seed = 4, .bound = TAN_BOUND,
     .sweeps = {SWEEP1(1000000, DRAW_UNIFORM, -100.0, 100.0),
                SWEEP1(200000, DRAW_UNIFORM, -1e5, 1e5)}},
    /* the second sweep covers the reduction's breakpoints */
    {"test_atan_is_within_1_ulp_of_libm", .fn = {ONE_ARG(atan)}, .seed = 5, .bound = ATAN_BOUND,
     .sweeps = {SWEEP1(1000000, DRAW_SIGNED_LOG, 1e-8, 1e6),
                SWEEP1(200000, DRAW_UNIFORM, -3.0, 3.0)}},
    /* then near +-1 and near 0 */
    {"test_asin_is_within_1_ulp_of_libm", .fn = {ONE_ARG(asin)}, .seed = 7, .bound = ASIN_BOUND,
     .sweeps = {SWEEP1(1000000, DRAW_UNIFORM, -1.0, 1.0),
                SWEEP2(100000, DRAW_SIGNED_ONE_MINUS, 1e-16, 0.5, DRAW_SIGNED_LOG, 1e-300, 0.5)}},
    {"test_acos_is_within_1_ulp_of_libm", .fn = {ONE_ARG(acos)}, .seed = 8, .bound = ACOS_BOUND,
     .sweeps = {SWEEP1(1000000, DRAW_UNIFORM, -1.0, 1.0),
                SWEEP1(100000, DRAW_SIGNED_ONE_MINUS, 1e-16, 0.5)}},
    /* the last sweep is the two-step scaling near the ends */
    {"test_exp_is_within_1_ulp_of_libm", .fn = {ONE_ARG(exp)}, .seed = 9, .bound = EXP_BOUND,
     .sweeps = {SWEEP1(1000000, DRAW_UNIFORM, -700.0, 700.0),
                SWEEP1(200000, DRAW_UNIFORM, -2.0, 2.0),
                SWEEP2(50000, DRAW_UNIFORM, -708.39, -708.0, DRAW_UNIFORM, 708.0, 709.78)}},
    /* then near 1, where log is small, and subnormal arguments */
    {"test_log_is_within_1_ulp_of_libm", .fn = {ONE_ARG(log)}, .seed = 10, .bound = LOG_BOUND,
     .sweeps = {SWEEP1(1000000, DRAW_LOG, 1e-300, 1e300),
                SWEEP1(200000, DRAW_ONE_PLUS_SIGNED, 1e-15, 0.3),
                SWEEP1(10000, DRAW_LOG, 0x1p-1074, DBL_MIN)}},
    /* then bases near 1, as in load ratios, and integer and half-integer
     * exponents */
    {"test_pow_is_within_1_ulp_of_libm", .fn = {TWO_ARGS(pow)}, .seed = 11, .bound = POW_BOUND,
     .sweeps = {SWEEP2(1000000, DRAW_LOG, 1e-6, 1e6, DRAW_UNIFORM, -10.0, 10.0),
                SWEEP2(100000, DRAW_ONE_PLUS_SIGNED, 1e-12, 0.5, DRAW_UNIFORM, -10.0, 10.0),
                SWEEP2(100000, DRAW_LOG, 1e-6, 1e6, DRAW_HALF_INTEGER, 0.0, 0.0)}},
    {"test_tanh_is_within_2_ulp_of_libm", .fn = {ONE_ARG(tanh)}, .seed = 12, .bound = TANH_BOUND,
     .sweeps = {SWEEP1(1000000, DRAW_UNIFORM, -20.0, 20.0),
                SWEEP1(200000, DRAW_SIGNED_LOG, 1e-300, 2.0)}},
};

static void test_accuracy(void **state)
{
    const accuracy_case *c = *state;
    err_stats st = c->fn;
    rng_seed(c->seed);
    for (size_t s = 0; s < sizeof c->sweeps / sizeof c->sweeps[0]; s++) {
        const sweep *sw = &c->sweeps[s];
        for (long i = 0; i < sw->count; i++) {
            double x[2] = {0.0, 0.0};
            for (int k = 0; k < sw->ndraws; k++) {
                x[k] = draw_point(sw->d[k]);
                if (st.ours1)
                    check1(&st, x[k]);
            }
            if (st.ours2)
                check2(&st, x[0], x[1]);
        }
    }
    report(&st, c->bound);
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

static void test_atan2_is_within_2_ulp_of_libm(void **state)
{
    err_stats st = {TWO_ARGS(atan2)};
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

/* Asserts that f moved from *prev to y in the stated direction. */
static void check_step(double *prev, double y, int increasing)
{
    if (increasing)
        assert_true(y >= *prev);
    else
        assert_true(y <= *prev);
    *prev = y;
}

static void test_functions_are_monotonic_where_they_should_be(void **state)
{
    static const struct {
        fn1 f;
        double lo, hi;
        int increasing;
    } ranges[] = {
        {rs_sin, -PI_2, PI_2, 1},     {rs_cos, 0.0, PI, 0},      {rs_tan, -1.5, 1.5, 1},
        {rs_atan, -100.0, 100.0, 1},  {rs_asin, -1.0, 1.0, 1},   {rs_acos, -1.0, 1.0, 0},
        {rs_exp, -50.0, 50.0, 1},     {rs_log, 1e-3, 1e3, 1},    {rs_tanh, -10.0, 10.0, 1},
    };
    /* formula switches: 500 doubles either side of each */
    static const struct {
        fn1 f;
        double at;
        int increasing;
    } switches[] = {
        {rs_sin, PI_4, 1},        {rs_sin, -PI_4, 1},        {rs_cos, PI_4, 0},
        {rs_cos, 3.0 * PI_4, 0},  {rs_tan, PI_4, 1},         {rs_atan, 0.5, 1},
        {rs_atan, 2.0, 1},        {rs_asin, 0.5, 1},         {rs_acos, 0.5, 0},
        {rs_acos, -0.5, 0},       {rs_log, 1.0, 1},          {rs_log, 0.708984375, 1},
        {rs_exp, 0.0, 1},         {rs_exp, LN2 / 256.0, 1},  {rs_exp, LN2, 1},
    };
    const int steps = 200000;
    (void)state;
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        double lo = ranges[r].lo, hi = ranges[r].hi;
        double prev = ranges[r].f(lo);
        for (int i = 1; i <= steps; i++)
            check_step(&prev, ranges[r].f(lo + (hi - lo) * i / steps), ranges[r].increasing);
    }
    for (size_t w = 0; w < sizeof switches / sizeof switches[0]; w++) {
        double x = switches[w].at, prev;
        for (int i = 0; i < 500; i++)
            x = nextafter(x, -INFINITY);
        prev = switches[w].f(x);
        for (int i = 0; i < 1000; i++) {
            x = nextafter(x, INFINITY);
            check_step(&prev, switches[w].f(x), switches[w].increasing);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sincos_matches_sin_and_cos_bit_for_bit),
        cmocka_unit_test(test_atan2_is_within_2_ulp_of_libm),
        cmocka_unit_test(test_sqrt_is_correctly_rounded),
        cmocka_unit_test(test_exact_values_are_exact),
        cmocka_unit_test(test_atan2_quadrants_and_signs_follow_c),
        cmocka_unit_test(test_edges_are_finite_as_documented),
        cmocka_unit_test(test_large_trig_arguments_stay_finite_and_repeatable),
        cmocka_unit_test(test_symmetries_hold_bit_for_bit),
        cmocka_unit_test(test_functions_are_monotonic_where_they_should_be),
    };
    int failed = RUN_TABLE_TESTS(accuracy_cases, test_accuracy);
    return failed + cmocka_run_group_tests(tests, NULL, NULL);
}
