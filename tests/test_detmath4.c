/*
 * Tests for physics/src/detmath4.h, the four-lane versions of detmath's
 * functions: every lane must give the scalar function's bits, for every
 * input.
 *
 * Each function is fed a few million inputs from a fixed-seed generator
 * (splitmix64, so every run checks the same points), four at a time, each
 * lane drawn independently from a mix of sources so that lanes on different
 * paths (ranges, quadrants, edge cases) share a vector and a select that
 * takes the wrong side in one lane shows:
 *  - uniform over the ranges the physics uses, and wider ones;
 *  - log-uniform magnitudes over the whole double range, subnormals included;
 *  - random bit patterns (NaNs with any payload, signalling ones too, Inf);
 *  - special values (+-0, +-Inf, NaNs, DBL_MIN, DBL_MAX, the smallest
 *    subnormal);
 *  - each function's range boundaries, a few ulps either side.
 * Then every boundary point within 8 ulps is put through in each lane in
 * turn, with random companions. A mismatch prints the input's bits and both
 * results.
 *
 * CMake builds this file twice: as test_detmath4 (the target's baseline:
 * SSE2 on x86-64, each rs_v4 two registers) and, on x86-64, as
 * test_detmath4_avx2 with -mavx2 (one ymm register), whose main() in
 * test_detmath4_avx2_main.c skips (exit 77) when the CPU lacks AVX2. Both
 * use the physics determinism flags.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <stdio.h>
#include <string.h>

#include "detmath4.h"
#include "splitmix64.h"

/* Random groups of four per function (4 inputs each). */
#define GROUPS 1000000
/* Boundary points are walked this many ulps either side. */
#define ULPS 8
/* Mismatches printed per function before going quiet. */
#define PRINT_MAX 10

/* ------------------------------------------------------------ bits */

static uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double from_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* x moved k representable doubles up (k < 0: down), through zero. */
static double ulps_from(double x, int k)
{
    uint64_t u = bits_of(x);
    int64_t o = (u >> 63) ? -(int64_t)(u & ~(1ull << 63)) : (int64_t)u;
    o += k;
    return o < 0 ? from_bits((uint64_t)(-o) | (1ull << 63)) : from_bits((uint64_t)o);
}

/* ------------------------------------------------------------ points */

static uint64_t rng_state;

static uint64_t rng_next(void) { return splitmix64_next(&rng_state); }

static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rng_next() >> 11) * 0x1p-53);
}

#define NSPECIAL 16
static double special[NSPECIAL];

static void init_special(void)
{
    const double inf = from_bits(0x7ff0000000000000ull);
    double v[NSPECIAL] = {
        0.0,
        -0.0,
        inf,
        -inf,
        from_bits(0x7ff8000000000000ull),  /* quiet NaN */
        from_bits(0xfff8000000000000ull),  /* x86's default NaN */
        from_bits(0x7ff8000000012345ull),  /* quiet, with a payload */
        from_bits(0xfffc0000deadbeefull),  /* negative, with a payload */
        from_bits(0x7ff0000000000001ull),  /* signalling */
        from_bits(0xfff4000000000abcull),  /* signalling, negative */
        DBL_MIN,
        -DBL_MIN,
        from_bits(1),                      /* smallest subnormal */
        from_bits(0x800fffffffffffffull),  /* largest negative subnormal */
        DBL_MAX,
        -DBL_MAX,
    };
    memcpy(special, v, sizeof special);
}

/* What a function is fed: two uniform ranges and its boundary points. */
typedef struct {
    const char *name;
    double lo1, hi1, lo2, hi2;
    const double *bounds;
    size_t nbounds;
} spec;

/* One input, drawn from a random source. */
static double draw(const spec *sp)
{
    uint64_t r = rng_next();
    switch (r % 10) {
    case 0:
    case 1:
    case 2:
        return uniform(sp->lo1, sp->hi1);
    case 3:
        return uniform(sp->lo2, sp->hi2);
    case 4: /* log-uniform over every finite magnitude, subnormals included */
        return from_bits((rng_next() & 0x800fffffffffffffull) | ((r >> 8) % 2047) << 52);
    case 5: /* log-uniform over 2^-40 .. 2^40 */
        return from_bits((rng_next() & 0x800fffffffffffffull) | (1023 - 40 + (r >> 8) % 81) << 52);
    case 6:
        return from_bits(rng_next()); /* any bits: NaNs (1 in 2048), Inf, subnormals */
    case 7:
        return special[(r >> 8) % NSPECIAL];
    default: { /* a boundary, a few ulps either side, either sign */
        double b = sp->bounds[(r >> 8) % sp->nbounds];
        int k = (int)((r >> 40) % (2 * ULPS + 1)) - ULPS;
        double x = ulps_from(b, k);
        return (r >> 63) ? -x : x;
    }
    }
}

/* Four draws, in lane order. */
static rs_v4 draw4(const spec *sp)
{
    rs_v4 x;
    for (int i = 0; i < 4; i++)
        x[i] = draw(sp);
    return x;
}

/* ------------------------------------------------------------ checking */

typedef struct {
    const char *what;
    long checked;
    long bad;
} tally;

static void compare(tally *t, double x, double got, double want, int lane)
{
    t->checked++;
    if (bits_of(got) == bits_of(want))
        return;
    if (t->bad++ < PRINT_MAX)
        printf("MISMATCH %s lane %d: x = %a (0x%016llx): vector %a (0x%016llx), "
               "scalar %a (0x%016llx)\n",
               t->what, lane, x, (unsigned long long)bits_of(x), got,
               (unsigned long long)bits_of(got), want, (unsigned long long)bits_of(want));
}

static void finish(const tally *t)
{
    printf("%-12s %9ld lanes checked, %ld mismatches\n", t->what, t->checked, t->bad);
    assert_int_equal(t->bad, 0);
}

typedef enum { F_ATAN, F_SINCOS, F_TAN, F_EXP, F_ASIN } fn;

/* One vector through the function under test, each lane against the scalar
 * function. t[0] for single-result functions; sincos uses t[0..3]: sincos's
 * sin, its cos, rs_v4_sin, rs_v4_cos. */
static void check_vec(fn f, rs_v4 x, tally *t)
{
    switch (f) {
    case F_ATAN: {
        rs_v4 y = rs_v4_atan(x);
        for (int i = 0; i < 4; i++)
            compare(&t[0], x[i], y[i], rs_atan(x[i]), i);
        break;
    }
    case F_SINCOS: {
        rs_v4 s, c;
        rs_v4_sincos(x, &s, &c);
        rs_v4 s1 = rs_v4_sin(x), c1 = rs_v4_cos(x);
        for (int i = 0; i < 4; i++) {
            double ss, cc;
            rs_sincos(x[i], &ss, &cc);
            compare(&t[0], x[i], s[i], ss, i);
            compare(&t[1], x[i], c[i], cc, i);
            compare(&t[2], x[i], s1[i], rs_sin(x[i]), i);
            compare(&t[3], x[i], c1[i], rs_cos(x[i]), i);
        }
        break;
    }
    case F_TAN: {
        rs_v4 y = rs_v4_tan(x);
        for (int i = 0; i < 4; i++)
            compare(&t[0], x[i], y[i], rs_tan(x[i]), i);
        break;
    }
    case F_EXP: {
        rs_v4 y = rs_v4_exp(x);
        for (int i = 0; i < 4; i++)
            compare(&t[0], x[i], y[i], rs_exp(x[i]), i);
        break;
    }
    case F_ASIN: {
        rs_v4 y = rs_v4_asin(x);
        for (int i = 0; i < 4; i++)
            compare(&t[0], x[i], y[i], rs_asin(x[i]), i);
        break;
    }
    }
}

static void run(fn f, const spec *sp, tally *t, int nt, uint64_t seed)
{
    rng_state = seed;
    /* Random mixes. */
    for (long g = 0; g < GROUPS; g++) {
        rs_v4 x = draw4(sp);
        check_vec(f, x, t);
    }
    /* Every boundary point within ULPS, both signs, in every lane, with
     * random companions. */
    for (size_t b = 0; b < sp->nbounds; b++)
        for (int k = -ULPS; k <= ULPS; k++)
            for (int sign = 0; sign < 2; sign++)
                for (int lane = 0; lane < 4; lane++) {
                    double v = ulps_from(sp->bounds[b], k);
                    rs_v4 x = draw4(sp);
                    x[lane] = sign ? -v : v;
                    check_vec(f, x, t);
                }
    /* The special values in every combination of two lanes. */
    for (int a = 0; a < NSPECIAL; a++)
        for (int b = 0; b < NSPECIAL; b++)
{
            rs_v4 x = draw4(sp);
            x[a % 4] = special[a];
            x[(a + 1 + b % 3) % 4] = special[b];
            check_vec(f, x, t);
        }
    for (int i = 0; i < nt; i++)
        finish(&t[i]);
}

/* ------------------------------------------------------------ boundaries */

#define MAXB 2048
static double bounds[MAXB];
static size_t nb;

static void add_bound(double x)
{
    if (nb < MAXB)
        bounds[nb++] = x;
}

static void add_common_bounds(void)
{
    nb = 0;
    add_bound(0.0);
    add_bound(DBL_MIN);
    add_bound(from_bits(1));
    add_bound(0x1p-27);
    add_bound(0x1p-54);
    add_bound(1.0);
    add_bound(DBL_MAX);
    add_bound(from_bits(0x7ff0000000000000ull)); /* Inf: -ulps gives DBL_MAX.., +ulps NaNs */
}

/* ------------------------------------------------------------ tests */

static void test_atan_lanes_match_scalar(void **state)
{
    (void)state;
    add_common_bounds();
    add_bound(0.5);
    add_bound(2.0);
    add_bound(0.25);
    add_bound(4.0);
    add_bound(1e6);
    add_bound(0x1p53);
    add_bound(1e300);
    const spec sp = {"atan", -10.0, 10.0, -1e4, 1e4, bounds, nb};
    tally t = {"atan", 0, 0};
    run(F_ATAN, &sp, &t, 1, 0xa7a9);
}

/* The trig functions' boundaries: where the quadrant changes (x/(pi/2) =
 * n + 1/2), the multiples of pi/2 and pi/4, and the limits of the exact
 * reduction and of reduction at all. */
static void add_trig_bounds(void)
{
    add_common_bounds();
    for (int n = -40; n <= 40; n++) {
        add_bound((n + 0.5) / DM_INV_PIO2);
        add_bound((n + 0.5) * RS_HALF_PI);
        add_bound(n * RS_HALF_PI);
        add_bound(n * (RS_HALF_PI / 2));
    }
    for (double n = 1e3; n < 2e9; n *= 7.3) {
        double m = (double)(long long)n;
        add_bound((m + 0.5) * RS_HALF_PI);
        add_bound(m * RS_HALF_PI);
    }
    add_bound(0x1p20 * RS_HALF_PI);
    add_bound(0x1p20 / DM_INV_PIO2);
    add_bound((0x1p29 + 0.5) * RS_HALF_PI);
    add_bound(DM_TRIG_LIMIT);
    add_bound(DM_TRIG_LIMIT * 2.0);
    add_bound(0x1p51);
    add_bound(0x1p52);
    add_bound(0x1p63);
}

static void test_sincos_lanes_match_scalar(void **state)
{
    (void)state;
    add_trig_bounds();
    const spec sp = {"sincos", -2 * RS_PI, 2 * RS_PI, -1e5, 1e5, bounds, nb};
    tally t[4] = {{"sincos.sin", 0, 0}, {"sincos.cos", 0, 0}, {"sin", 0, 0}, {"cos", 0, 0}};
    run(F_SINCOS, &sp, t, 4, 0x51c05);
}

static void test_tan_lanes_match_scalar(void **state)
{
    (void)state;
    add_trig_bounds();
    const spec sp = {"tan", -2 * RS_PI, 2 * RS_PI, -1e5, 1e5, bounds, nb};
    tally t = {"tan", 0, 0};
    run(F_TAN, &sp, &t, 1, 0x7a2);
}

static void test_exp_lanes_match_scalar(void **state)
{
    (void)state;
    add_common_bounds();
    const double ln2 = 0x1.62e42fefa39efp-1;
    add_bound(708.0);
    add_bound(DM_EXP_OVERFLOW_X);
    add_bound(-DM_EXP_UNDERFLOW_X);
    add_bound(709.0);
    add_bound(710.0);
    add_bound(745.1332191019411);
    add_bound(1022 * ln2);
    add_bound(1074 * ln2);
    add_bound(1075 * ln2);
    add_bound(1400.0);
    /* where the table index k = round(x*128/ln2) changes */
    for (int k = -300; k <= 300; k++)
        add_bound((k + 0.5) * (ln2 / 128));
    for (int k = 90500; k <= 90800; k += 3) /* about 490..492, and -, by sign */
        add_bound((k + 0.5) * (ln2 / 128));
    for (int k = 130500; k <= 130900; k += 7) /* near 708 */
        add_bound((k + 0.5) * (ln2 / 128));
    const spec sp = {"exp", -50.0, 50.0, -750.0, 712.0, bounds, nb};
    tally t = {"exp", 0, 0};
    run(F_EXP, &sp, &t, 1, 0xe4b);
}

static void test_asin_lanes_match_scalar(void **state)
{
    (void)state;
    add_common_bounds();
    add_bound(0.5);
    add_bound(0.25);
    add_bound(0.75);
    add_bound(0.999);
    add_bound(1.5);
    add_bound(2.0);
    const spec sp = {"asin", -1.0, 1.0, -1.5, 1.5, bounds, nb};
    tally t = {"asin", 0, 0};
    run(F_ASIN, &sp, &t, 1, 0xa51);
}

/* In the AVX2 build, test_detmath4_avx2_main.c's main() checks the CPU
 * first and calls this. */
#ifdef RS_TEST_AVX2
#define TEST_MAIN test_detmath4_main
int test_detmath4_main(void);
#else
#define TEST_MAIN main
#endif

int TEST_MAIN(void)
{
    init_special();
#ifdef __AVX2__
    printf("detmath4: AVX2 build (rs_v4 in one ymm register)\n");
#else
    printf("detmath4: baseline build\n");
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atan_lanes_match_scalar),
        cmocka_unit_test(test_sincos_lanes_match_scalar),
        cmocka_unit_test(test_tan_lanes_match_scalar),
        cmocka_unit_test(test_exp_lanes_match_scalar),
        cmocka_unit_test(test_asin_lanes_match_scalar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
