/*
 * detmath's arithmetic kernels, written once for a lane type and included
 * twice: by detmath.c with DMK_T = double (the scalar functions) and by
 * detmath4.h with DMK_T = rs_v4 (four lanes, v4.h). Both therefore perform
 * the same IEEE operations in the same order, and the four-lane functions
 * give the scalar ones' bits lane by lane.
 *
 * Only + - * / on DMK_T values and the constants of detmath_consts.h:
 * nothing here chooses. Ranges, quadrants and edge cases are the callers'
 * (branches and ?: in detmath.c, compares and selects in detmath4.h), and so
 * are integer conversions and table lookups.
 *
 * No include guard. Before including, define
 *   DMK_T       the lane type: double or rs_v4;
 *   DMK(name)   the name of a function or type for that lane type;
 *   DMK_INLINE  the functions' qualifiers (static inline ...).
 * They are undefined at the end.
 */
#include "detmath_consts.h"

/* ------------------------------------------------------------- exact parts */

/* The high half of a Veltkamp split: at most 26 significant bits, so the
 * product of two such halves is exact. Valid for |v| < 2^995. */
DMK_INLINE DMK_T DMK(split_hi)(DMK_T v)
{
    DMK_T p = v * 134217729.0; /* 2^27 + 1 */
    return p - (p - v);
}

/* A value as an unevaluated sum hi + lo, |lo| <= ulp(hi)/2. */
typedef struct { DMK_T hi, lo; } DMK(dd);

/* The exact rounding error of a*b (Dekker's product; no FMA available). */
DMK_INLINE DMK_T DMK(mul_err)(DMK_T a, DMK_T b, DMK_T ab)
{
    DMK_T ah = DMK(split_hi)(a), al = a - ah;
    DMK_T bh = DMK(split_hi)(b), bl = b - bh;
    return (((ah * bh - ab) + ah * bl) + al * bh) + al * bl;
}

/* (nh + nl) / (dh + dl) to about 2^-100 beyond the final rounding: one
 * Newton correction of the rounded quotient with an exact residual. */
DMK_INLINE DMK_T DMK(div_dd)(DMK_T nh, DMK_T nl, DMK_T dh, DMK_T dl)
{
    DMK_T q = nh / dh;
    DMK_T qd = q * dh;
    /* nh - qd is exact (Sterbenz): q*dh is within a rounding of nh. */
    DMK_T res = ((nh - qd) - DMK(mul_err)(q, dh, qd)) + (nl - q * dl);
    return q + res / dh;
}

/* ------------------------------------------------------- sin, cos, tan */

/* The reduced argument: x = n*pi/2 + r + rl with |r| <= pi/4 (+ tiny) and
 * |rl| <= ulp(r), n = kd (an integer in a double). ks = kd + DM_ROUND_SHIFT:
 * the low bits of its significand hold n in two's complement. */
typedef struct { DMK_T r, rl, kd, ks; } DMK(trig_red);

/* For |x| < DM_TRIG_LIMIT. The reduction is exact to about 2^-98 absolute
 * while |n| < 2^20 (|x| < 1.6e6); beyond that n*PIO2_1 rounds and the error
 * grows in proportion to |x|, but r stays within pi/4 + 2^-20. */
DMK_INLINE DMK(trig_red) DMK(trig_reduce_parts)(DMK_T x)
{
    DMK(trig_red) a;
    a.ks = x * DM_INV_PIO2 + DM_ROUND_SHIFT;
    a.kd = a.ks - DM_ROUND_SHIFT;
    /* x - kd*PIO2_1 is exact (Sterbenz) and so is kd*PIO2_2. t - w is exact
     * when it is small (where it matters); otherwise its rounding error is
     * kept (Fast2Sum, |t| >= |w|). */
    DMK_T t = x - a.kd * DM_PIO2_1;
    DMK_T w = a.kd * DM_PIO2_2;
    DMK_T u = t - w;
    DMK_T uerr = (t - u) - w;
    DMK_T v = a.kd * DM_PIO2_3;
    a.r = u - v;
    a.rl = ((u - a.r) - v) + uerr;
    return a;
}

/* sin(r + rl) ~ sin(r) + rl*cos(r), with cos(r) ~ 1 - r^2/2 good enough for
 * a term of size ulp(r), given z = r*r. The final sum r + tail is also
 * returned exactly as hi + lo (Fast2Sum: |tail| < |r|), for tan. */
DMK_INLINE DMK(dd) DMK(sin_kernel)(DMK_T r, DMK_T rl, DMK_T z)
{
    DMK(dd) s;
    DMK_T z2 = z * z;
    DMK_T p = (DM_S1 + z * DM_S2) + z2 * ((DM_S3 + z * DM_S4) + z2 * (DM_S5 + z * DM_S6));
    DMK_T tail = (z * r) * p + rl * (1.0 - 0.5 * z);
    s.hi = r + tail;
    s.lo = (r - s.hi) + tail;
    return s;
}

/* cos(r + rl) ~ cos(r) - rl*r, given z = r*r rounded and its rounding error
 * zerr (or 0 to ignore it). The rounding error of 1 - z/2 is recovered
 * exactly (Fast2Sum) and added back with the small terms; hi + lo as for
 * sin_kernel. */
DMK_INLINE DMK(dd) DMK(cos_kernel)(DMK_T r, DMK_T rl, DMK_T z, DMK_T zerr)
{
    DMK(dd) c;
    DMK_T z2 = z * z;
    DMK_T q = (DM_C1 + z * DM_C2) + z2 * ((DM_C3 + z * DM_C4) + z2 * (DM_C5 + z * DM_C6));
    DMK_T hz = 0.5 * z;
    DMK_T w = 1.0 - hz;
    DMK_T tail = (((1.0 - w) - hz) - 0.5 * zerr) + (z2 * q - r * rl);
    c.hi = w + tail;
    c.lo = (w - c.hi) + tail;
    return c;
}

/* ------------------------------------------------------- polynomials */

/* The odd polynomials of atan and asin, c[0] + c[1] z + ... + c[11] z^11,
 * are evaluated in Estrin's grouping: three blocks of four coefficients and
 * the powers z^4, z^8 that join them. The grouping fixes the rounding, so it
 * lives here once; each caller joins the blocks (asin adds a 13th term). */
typedef struct { DMK_T z4, z8, q0, q1, q2; } DMK(estrin12);

DMK_INLINE DMK(estrin12) DMK(estrin12_parts)(DMK_T z, const double c[12])
{
    DMK(estrin12) e;
    DMK_T z2 = z * z;
    e.z4 = z2 * z2;
    e.z8 = e.z4 * e.z4;
    e.q0 = (c[0] + z * c[1]) + z2 * (c[2] + z * c[3]);
    e.q1 = (c[4] + z * c[5]) + z2 * (c[6] + z * c[7]);
    e.q2 = (c[8] + z * c[9]) + z2 * (c[10] + z * c[11]);
    return e;
}

/* -------------------------------------------------------------- atan */

DMK_INLINE DMK_T DMK(atan_poly)(DMK_T z)
{
    DMK(estrin12) e = DMK(estrin12_parts)(z, DM_ATAN_C);
    return (e.q0 + e.z4 * e.q1) + e.z8 * e.q2;
}

/* base + atan(u) for |u| <= 1/2, base = hi + lo a multiple of pi/4. The sum
 * hi + u is formed exactly (Fast2Sum: |hi| >= |u| or hi == 0) so that the
 * only large rounding is the last one. */
DMK_INLINE DMK_T DMK(atan_finish)(DMK_T hi, DMK_T lo, DMK_T u)
{
    DMK_T z = u * u;
    DMK_T s = hi + u;
    DMK_T serr = (hi - s) + u;
    return s + (serr + (lo + (u * z) * DMK(atan_poly)(z)));
}

/* ---------------------------------------------------------- asin, acos */

/* x^3 (B1 + ... + B13 z^12) given x and z = x^2. */
DMK_INLINE DMK_T DMK(asin_tail)(DMK_T x, DMK_T z)
{
    DMK(estrin12) e = DMK(estrin12_parts)(z, DM_ASIN_C);
    DMK_T p = (e.q0 + e.z4 * e.q1) + e.z8 * (e.q2 + e.z4 * DM_B13);
    return (x * z) * p;
}

/* ----------------------------------------------------------------- exp */

/* exp's reduction: x + xl = kd*ln2/128 + r. exp_round gives kd =
 * round(x*128/ln2), an integer in a double, and *ks = kd + DM_ROUND_SHIFT,
 * which holds it in its low significand bits (|x| < 746). */
DMK_INLINE DMK_T DMK(exp_round)(DMK_T x, DMK_T *ks)
{
    *ks = x * DM_INV_LN2_128 + DM_ROUND_SHIFT;
    return *ks - DM_ROUND_SHIFT;
}

/* r: x - kd*L2N_HI is exact (Sterbenz); r is then within ulp(r)/2 + |xl|
 * error terms well below 2^-60. */
DMK_INLINE DMK_T DMK(exp_reduce)(DMK_T x, DMK_T xl, DMK_T kd)
{
    return ((x - kd * DM_L2N_HI) - kd * DM_L2N_LO) + xl;
}

/* exp(r) - 1 for |r| <= ln2/256 (and a little beyond). */
DMK_INLINE DMK_T DMK(exp_poly)(DMK_T r)
{
    DMK_T r2 = r * r;
    return r + r2 * ((DM_E2 + r * DM_E3) + r2 * (DM_E4 + r * DM_E5));
}

/* th + (tl + th*p): 2^(j/128) = th + tl times exp(r) = 1 + p, the small
 * terms first. */
DMK_INLINE DMK_T DMK(exp_join)(DMK_T th, DMK_T tl, DMK_T p)
{
    return th + (tl + th * p);
}

#undef DMK_T
#undef DMK
#undef DMK_INLINE
