/*
 * Deterministic elementary functions: the contract and the measured error
 * bounds are in detmath.h.
 *
 * Only + - * / and sqrt are used, in an order fixed by the source: no libm,
 * no long double, and the physics target is compiled with -ffp-contract=off,
 * so no multiply-add is ever fused. Every compiler, flag set and architecture
 * that keeps FLT_EVAL_METHOD == 0 therefore produces the same bits.
 *
 * Each function is an argument reduction, a short polynomial, and a
 * reconstruction that keeps the rounding errors of the big terms as
 * double-double corrections:
 *   sin cos tan   x = n*pi/2 + r, Cody-Waite with pi/2 in three parts, r kept
 *                 as r + rl; minimax polynomials on [-pi/4, pi/4].
 *   exp (pow, tanh)  x = (k/128)*ln2 + r; 2^(j/128) from a table of
 *                 double-doubles; degree-5 polynomial for exp(r).
 *   log (pow)     x = 2^e * z; z*a_i - 1 is computed exactly for one of 128
 *                 table points a_i ~ 1/z, log(1/a_i) is tabled as a
 *                 double-double; degree-7 polynomial for log1p.
 *   pow           exp(y*log x) with log x as a double-double and an exact
 *                 (Dekker) product, so large y*log(x) keep full accuracy.
 *   atan atan2    reduction to |u| <= 1/2 with atan(a) = pi/4 + atan((a-1)/(a+1))
 *                 and atan(a) = pi/2 - atan(1/a); odd polynomial.
 *   asin acos     odd polynomial on [0, 1/2]; above, asin(a) =
 *                 pi/2 - 2 asin(sqrt((1-a)/2)) with the sqrt as a double-double.
 *   tanh          expm1(2|x|) / (expm1(2|x|) + 2), expm1 from the exp table.
 *
 * The polynomial coefficients are minimax fits (Remez exchange, relative
 * error unless stated) rounded to double; the "fit" figure next to each is
 * its worst error in exact arithmetic on the stated interval. The tables hold
 * correctly rounded values. Hexadecimal literals are used so that no
 * decimal-to-binary conversion can differ between compilers.
 *
 * Shared with the four-lane versions (detmath4.h), which must give these
 * functions' bits lane by lane: the coefficients, constants and tables
 * (detmath_consts.h) and the arithmetic kernels (detmath_kernels.h, compiled
 * here for double). This file keeps the control: ranges, quadrants, edge
 * cases, table lookups, and log, pow, atan2, acos and tanh.
 */
#include "detmath.h"

#include <stdint.h>

/* The constants, polynomial coefficients (DM_S1.., DM_C1.., DM_A1..,
 * DM_B1.., DM_E2.., DM_L2.., DM_T1..) and tables, with the fits and their
 * error figures. */
#include "detmath_consts.h"

/* ------------------------------------------------------------------ bits */

static inline uint64_t as_u64(double d)
{
    union { double d; uint64_t u; } v;
    v.d = d;
    return v.u;
}

static inline double as_double(uint64_t u)
{
    union { double d; uint64_t u; } v;
    v.u = u;
    return v.d;
}

/* 2^e for -1022 <= e <= 1023, built from the exponent field (exact). */
static inline double pow2i(int e)
{
    return as_double((uint64_t)(e + 1023) << 52);
}

/* The arithmetic kernels (split_hi, mul_err, div_dd, the dd pair, the trig
 * reduction and the sin/cos kernels, the Estrin blocks, atan_finish,
 * asin_tail, and exp's reduction and polynomial) are written once in
 * detmath_kernels.h for this scalar code and for detmath4.h's four lanes. */
#define DMK_T double
#define DMK(name) name
#define DMK_INLINE static inline
#include "detmath_kernels.h"

/* ------------------------------------------------------- sin, cos, tan */

/* The reduced argument: x = n*pi/2 + r + rl with |r| <= pi/4 (+ tiny) and
 * |rl| <= ulp(r). */
typedef struct { double r, rl; int n; } trig_arg;

/* trig_reduce_parts (detmath_kernels.h) with n as an int. */
static inline trig_arg trig_reduce(double x)
{
    trig_red t = trig_reduce_parts(x);
    trig_arg a = {t.r, t.rl, (int)t.kd};
    return a;
}

/* Quadrant selection without branches: pick the bits of one of two values
 * and flip the sign bit, so the result does not depend on how a compiler
 * lays out a conditional. */
static inline uint64_t pick_bits(uint64_t if_even, uint64_t if_odd, unsigned odd)
{
    uint64_t m = (uint64_t)0 - (uint64_t)(odd & 1u);
    return (if_even & ~m) | (if_odd & m);
}

static inline void sincos_reduced(double x, double *s, double *c)
{
    trig_arg a = trig_reduce(x);
    double z = a.r * a.r;
    uint64_t sb = as_u64(sin_kernel(a.r, a.rl, z).hi);
    uint64_t cb = as_u64(cos_kernel(a.r, a.rl, z, 0.0).hi);
    unsigned q = (unsigned)a.n & 3u;
    /* q: sin, cos = (S, C), (C, -S), (-S, -C), (-C, S) */
    *s = as_double(pick_bits(sb, cb, q) ^ ((uint64_t)(q >> 1) << 63));
    *c = as_double(pick_bits(cb, sb, q) ^ ((uint64_t)(((q + 1u) >> 1) & 1u) << 63));
}

#ifdef RS_NEGCTL_LIBM_SIN
/* Negative control (CMake RS_NEGATIVE_CONTROL=libm_sin): deliberately use
 * libm so that the cross-build determinism check and tests/check_symbols.sh
 * can prove they notice. Never enabled in a real build. */
#include <math.h>

double rs_sin(double x) { return sin(x); }
double rs_cos(double x) { return cos(x); }
void rs_sincos(double x, double *s, double *c)
{
    *s = sin(x);
    *c = cos(x);
}
#else
double rs_sin(double x)
{
    double s, c;
    if (!(rs_abs(x) < DM_TRIG_LIMIT))
        return x - x; /* 0 for huge finite x, NaN for Inf and NaN */
    sincos_reduced(x, &s, &c);
    return s;
}

double rs_cos(double x)
{
    double s, c;
    if (!(rs_abs(x) < DM_TRIG_LIMIT))
        return 1.0 + (x - x);
    sincos_reduced(x, &s, &c);
    return c;
}

void rs_sincos(double x, double *s, double *c)
{
    if (!(rs_abs(x) < DM_TRIG_LIMIT)) {
        *s = x - x;
        *c = 1.0 + (x - x);
        return;
    }
    sincos_reduced(x, s, c);
}
#endif

double rs_tan(double x)
{
    if (!(rs_abs(x) < DM_TRIG_LIMIT))
        return x - x;
    trig_arg a = trig_reduce(x);
    double z = a.r * a.r;
    /* sin and cos as double-doubles, with r*r's rounding error kept, so that
     * the quotient carries only its own final rounding. */
    dd s = sin_kernel(a.r, a.rl, z);
    dd c = cos_kernel(a.r, a.rl, z, mul_err(a.r, a.r, z));
    unsigned odd = (unsigned)a.n & 1u;
    uint64_t sign = (uint64_t)odd << 63;
    /* tan = S/C in even quadrants, -C/S in odd ones. */
    double nh = as_double(pick_bits(as_u64(s.hi), as_u64(c.hi), odd) ^ sign);
    double nl = as_double(pick_bits(as_u64(s.lo), as_u64(c.lo), odd) ^ sign);
    double dh = as_double(pick_bits(as_u64(c.hi), as_u64(s.hi), odd));
    double dl = as_double(pick_bits(as_u64(c.lo), as_u64(s.lo), odd));
    /* dh is never 0 while the reduction is exact; stay finite beyond. */
    if (dh == 0.0)
        return nh / DBL_MIN;
    return div_dd(nh, nl, dh, dl);
}

/* -------------------------------------------------------------- atan */

double rs_atan(double x)
{
    double a = rs_abs(x);
    int mid = a > 0.5;
    int big = a > 2.0;
    /* |x| <= 1/2: atan(a); 1/2 < a <= 2: pi/4 + atan((a-1)/(a+1)), where
     * a - 1 is exact (Sterbenz); a > 2: pi/2 + atan(-1/a). */
    double num = big ? -1.0 : (mid ? a - 1.0 : a);
    double den = big ? a : (mid ? a + 1.0 : 1.0);
    double hi = big ? DM_PIO2_HI : (mid ? DM_PIO4_HI : 0.0);
    double lo = big ? DM_PIO2_LO : (mid ? DM_PIO4_LO : 0.0);
    double r = atan_finish(hi, lo, num / den);
    return x < 0.0 ? -r : r;
}

/* Offsets for atan2: index = (0 small, 1 middle, 2 large ratio |y|/|x|)
 * + 3 when x < 0, where the angle is pi - (base + atan(u)). */
static const struct { double hi, lo, sign; } ATAN2_BASE[6] = {
    {0.0, 0.0, 1.0},
    {DM_PIO4_HI, DM_PIO4_LO, 1.0},
    {DM_PIO2_HI, DM_PIO2_LO, 1.0},
    {DM_PI_HI, DM_PI_LO, -1.0},
    {DM_PI3O4_HI, DM_PI3O4_LO, -1.0},
    {DM_PIO2_HI, DM_PIO2_LO, -1.0},
};

double rs_atan2(double y, double x)
{
    double ax = rs_abs(x);
    double ay = rs_abs(y);
    int small = ay <= 0.5 * ax;
    int big = ay > 2.0 * ax;
    /* The same three ranges as rs_atan, on the ratio ay/ax, without forming
     * the ratio first: ay - ax is exact in the middle range (Sterbenz). */
    double num = small ? ay : (big ? -ax : ay - ax);
    double den = small ? ax : (big ? ay : ay + ax);
    den = den == 0.0 ? 1.0 : den; /* x == y == 0: u = 0, result 0 */
    int i = (small ? 0 : (big ? 2 : 1)) + (x < 0.0 ? 3 : 0);
    double u = ATAN2_BASE[i].sign * (num / den);
    double r = atan_finish(ATAN2_BASE[i].hi, ATAN2_BASE[i].lo, u);
    /* The sign bit of y, so that y = -0.0 gives -0.0 or -pi like C's atan2. */
    return (as_u64(y) >> 63) ? -r : r;
}

/* ---------------------------------------------------------- asin, acos */

/* For 1/2 < a <= 1: s = sqrt((1-a)/2) as sh + c exactly enough, and
 * asin(s) - sh. Then asin(a) = pi/2 - 2 asin(s), acos(a) = 2 asin(s). */
typedef struct { double sh, t; } half_angle;

static inline half_angle asin_half_angle(double a)
{
    half_angle h;
    double w = 0.5 - 0.5 * a; /* exact for a in [1/2, 1] */
    double s = __builtin_sqrt(w);
    h.sh = split_hi(s);
    /* sqrt(w) - sh = (w - sh^2)/(s + sh); sh^2 is exact and w - sh^2 too. */
    double d = s + h.sh;
    double c = d > 0.0 ? (w - h.sh * h.sh) / d : 0.0;
    h.t = c + asin_tail(s, w);
    return h;
}

double rs_asin(double x)
{
    double a = rs_abs(x);
    double r;
    a = a > 1.0 ? 1.0 : a;
    if (a <= 0.5) {
        r = a + asin_tail(a, a * a);
    } else {
        half_angle h = asin_half_angle(a);
        /* pi/2 - 2 sh is exact: both are multiples of 2^-52 here. */
        r = (DM_PIO2_HI - 2.0 * h.sh) + (DM_PIO2_LO - 2.0 * h.t);
    }
    return x < 0.0 ? -r : r;
}

double rs_acos(double x)
{
    x = rs_clamp(x, -1.0, 1.0);
    if (rs_abs(x) <= 0.5)
        return DM_PIO2_HI - (x + (asin_tail(x, x * x) - DM_PIO2_LO));
    half_angle h = asin_half_angle(rs_abs(x));
    if (x > 0.0)
        return 2.0 * (h.sh + h.t);
    /* pi - 2 sh is exact (multiples of 2^-51 in [2, 4)). */
    return (DM_PI_HI - 2.0 * h.sh) + (DM_PI_LO - 2.0 * h.t);
}

/* --------------------------------------------------- exp, log, pow, tanh */

/* exp(x + xl) = 2^e * (returned value) for |x| < 746 (not NaN), |xl| tiny.
 * The returned value lies in about [1, 2). */
static inline double exp_core(double x, double xl, int *e)
{
    double ks;
    double kd = exp_round(x, &ks);
    int k = (int)kd;
    double r = exp_reduce(x, xl, kd);
    unsigned j = (unsigned)k & 127u;
    *e = (k - (int)j) / 128; /* exact division: floor(k/128) */
    double p = exp_poly(r);
    double th = DM_EXP_TAB[j].hi;
    return exp_join(th, DM_EXP_TAB[j].lo, p);
}

/* exp(x + xl) for the rare cases: |x| > 708 (overflow, underflow, scaling
 * that needs two steps) or NaN. */
static double exp_edge(double x, double xl)
{
    if (x != x)
        return x;
    if (x > DM_EXP_OVERFLOW_X)
        return DBL_MAX;
    if (x < DM_EXP_UNDERFLOW_X)
        return 0.0;
    int e;
    double t = exp_core(x, xl, &e);
    /* Two exact-range factors: a subnormal result is rounded only once. */
    int e1 = e / 2;
    double y = t * pow2i(e1) * pow2i(e - e1);
    return y < DBL_MAX ? y : DBL_MAX;
}

double rs_exp(double x)
{
    if (!(rs_abs(x) <= 708.0))
        return exp_edge(x, 0.0);
    int e;
    double t = exp_core(x, 0.0, &e);
    return t * pow2i(e);
}

/* log(x) + eadj*ln2 = returned value + *lo for a positive normal finite x,
 * with |*lo| well below ulp of the result and the pair accurate to about
 * 2^-68 relative (needed by pow). */
static inline double log_core(double x, int eadj, double *lo)
{
    uint64_t ix = as_u64(x);
    /* x = 2^e * z with z in [DM_LOG_OFF, 2*DM_LOG_OFF); the bias keeps the
     * subtraction unsigned. */
    uint64_t tmp = ix + (1024ull << 52) - DM_LOG_OFF;
    uint64_t eb = tmp >> 52;
    int e = (int)eb - 1024 + eadj;
    unsigned i = (unsigned)(tmp >> 45) & 127u;
    double z = as_double(ix - (eb << 52) + (1024ull << 52));
    /* z*a - 1 as rhi + rlo: zhi has 21 bits and a 32, so zhi*a and
     * zhi*a - 1 are exact; zlo*a only rounds in the 2^-74 place. */
    double zhi = as_double(as_u64(z) & 0xffffffff00000000ull);
    double zlo = z - zhi;
    double a = DM_LOG_TAB[i].a;
    double rhi = zhi * a - 1.0;
    double rlo = zlo * a;
    /* r = rhi + rlo with its rounding error (2Sum: either may be larger, and
     * they cancel when z is close to 1/a). */
    double r = rhi + rlo;
    double rb = r - rhi;
    double rerr = (rhi - (r - rb)) + (rlo - rb);
    /* e*ln2 + log(1/a) + r as a double-double (two Fast2Sums: the larger
     * operand comes first, or the first is 0; |log(1/a)| > |r| was checked
     * for every table entry when the table was made). */
    double ed = (double)e;
    double big = ed * DM_LN2_HI;
    double t1 = big + DM_LOG_TAB[i].hi;
    double t2 = t1 + r;
    double err = ((big - t1) + DM_LOG_TAB[i].hi) + ((t1 - t2) + r);
    double r2 = r * r;
    double p = r2 * ((DM_L2 + r * DM_L3) + r2 * ((DM_L4 + r * DM_L5) + r2 * (DM_L6 + r * DM_L7)));
    *lo = (err + (ed * DM_LN2_LO + DM_LOG_TAB[i].lo)) + (rerr + p);
    return t2;
}

double rs_log(double x)
{
    double lo, hi;
    if (!(x >= DBL_MIN && x <= DBL_MAX)) {
        if (x <= 0.0)
            return -1e300;
        if (!(x < DBL_MIN))
            return x; /* +Inf or NaN */
        hi = log_core(x * 0x1p54, -54, &lo); /* subnormal */
        return hi + lo;
    }
    hi = log_core(x, 0, &lo);
    return hi + lo;
}

double rs_pow(double x, double y)
{
    if (y == 0.0 || x == 1.0)
        return 1.0;
    if (!(x > 0.0 && x <= DBL_MAX)) {
        if (x != x || y != y)
            return x + y;
        if (x > 0.0) /* +Inf */
            return y > 0.0 ? DBL_MAX : 0.0;
        return y > 0.0 ? 0.0 : DBL_MAX; /* x <= 0 is treated as +0 */
    }
    double lo;
    double hi = x < DBL_MIN ? log_core(x * 0x1p54, -54, &lo) : log_core(x, 0, &lo);
    double lh = hi + lo;
    double ll = (hi - lh) + lo;
    double ph = y * lh;
    /* Far out of range, or NaN: no low part needed (and the split below
     * could overflow for huge y). */
    if (!(rs_abs(ph) <= 746.0))
        return exp_edge(ph, 0.0);
    /* y*(lh + ll) = ph + pl, with the exact rounding error of y*lh (the
     * split is safe: |y| < 2^63 here since |lh| >= 2^-53 for x != 1). */
    double pl = mul_err(y, lh, ph) + y * ll;
    if (!(rs_abs(ph) <= 708.0))
        return exp_edge(ph, pl);
    int e;
    double t = exp_core(ph, pl, &e);
    return t * pow2i(e);
}

/* expm1(u) for 0 <= u < 41, as hi + lo. 2^e*T - 1 is exact for e <= 52
 * (e <= 57 here, where the result is above 2^52 and the rounding is
 * harmless), so there is no cancellation for small u. */
static inline dd expm1_core(double u)
{
    dd m;
    double kd = u * DM_INV_LN2_128 + DM_ROUND_SHIFT;
    kd -= DM_ROUND_SHIFT;
    int k = (int)kd;
    double r = (u - kd * DM_L2N_HI) - kd * DM_L2N_LO;
    unsigned j = (unsigned)k & 127u;
    double scale = pow2i((int)((unsigned)k >> 7));
    double p = exp_poly(r);
    double th = DM_EXP_TAB[j].hi;
    double big = th * scale - 1.0;
    double small = scale * (DM_EXP_TAB[j].lo + th * p);
    /* Fast2Sum: big is 0 (k = 0) or larger than |small| <= 1.42*|p|. */
    m.hi = big + small;
    m.lo = (big - m.hi) + small;
    return m;
}

double rs_tanh(double x)
{
    double a = rs_abs(x);
    /* Small |x|: expm1(2a) below would be off by up to an ulp (the table
     * step cancels against the polynomial), and this is cheaper. */
    if (a < 0.04) {
        double z = x * x;
        return x + (x * z) * ((DM_T1 + z * DM_T2) + (z * z) * (DM_T3 + z * DM_T4));
    }
    /* tanh(a) rounds to 1 from a = 19.06 on. */
    if (!(a < 20.0))
        return x != x ? x : (x < 0.0 ? -1.0 : 1.0);
    /* tanh a = m / (m + 2) with m = expm1(2a), in double-double: the
     * sum m + 2 by 2Sum (either may be larger), then a corrected quotient. */
    dd m = expm1_core(2.0 * a);
    double dh = m.hi + 2.0;
    double db = dh - m.hi;
    double dl = ((m.hi - (dh - db)) + (2.0 - db)) + m.lo;
    double t = div_dd(m.hi, m.lo, dh, dl);
    return x < 0.0 ? -t : t;
}

/* ---------------------------------------------------------------- sqrt */

double rs_sqrt_out_of_line(double x)
{
    return x <= 0.0 ? 0.0 : __builtin_sqrt(x);
}
