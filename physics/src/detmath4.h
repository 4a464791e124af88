/*
 * Four-lane versions of detmath's functions (detmath.h) over rs_v4 (v4.h):
 * each lane's result is bit-identical to the scalar function on that lane's
 * argument, for every argument (+-0, subnormals, NaNs with their payloads,
 * +-Inf, huge values), on every target v4.h compiles for.
 *
 *   rs_v4_atan(x)               rs_atan
 *   rs_v4_sincos(x, &s, &c)     rs_sincos (and rs_v4_sin, rs_v4_cos)
 *   rs_v4_tan(x)                rs_tan
 *   rs_v4_exp(x)                rs_exp
 *   rs_v4_asin(x)               rs_asin
 *
 * How: the arithmetic is detmath_kernels.h, the same source detmath.c
 * compiles for double, here instantiated for rs_v4, so each lane performs
 * the scalar function's IEEE operations in the same order with the same
 * constants. What differs is only how a value is chosen: the scalar code's
 * branches and ?: become a compare and rs_v4_sel (bitwise, so exactly ?:),
 * both sides computed; a side a lane does not select may hold Inf or NaN,
 * which is harmless (no trap, the bits are discarded). The integers (trig
 * quadrant, exp's table index and exponent) are read from the bits of the
 * rounded value (see RS_V4__ROUND_SHIFT_BITS), equal to the scalar (int)
 * conversion on every lane whose result is used. rs_v4_exp hands lanes with
 * !(|x| <= 708) (overflow, underflow, subnormal results, NaN) to the scalar
 * rs_exp, only when such a lane is present; nothing else falls back.
 * tests/test_detmath4.c checks every function against the scalar one, in
 * baseline (SSE2) and AVX2 builds.
 *
 * Include it only where the physics determinism flags apply (no FMA
 * contraction). All static inline, forced: see v4.h.
 */
#ifndef RS_DETMATH4_H
#define RS_DETMATH4_H

#include "detmath.h"
#include "detmath_consts.h"
#include "v4.h"

/* Forced inline: GCC would otherwise keep the larger functions out of line
 * and pass the vectors through memory (slower than scalar code without
 * AVX). */
#define RS_V4__INLINE static inline __attribute__((always_inline))

/* The kernels for four lanes: rs_v4__split_hi, rs_v4__mul_err,
 * rs_v4__div_dd, rs_v4__trig_reduce_parts, rs_v4__sin_kernel, ... */
#define DMK_T rs_v4
#define DMK(name) rs_v4__##name
#define DMK_INLINE RS_V4__INLINE
#include "detmath_kernels.h"

/* ------------------------------------------------------------- helpers */

/* The bits of v + DM_ROUND_SHIFT for |v| < 2^51 are those of 1.5*2^52 +
 * round(v): the exponent field is that of 1.5*2^52 whatever the sign of
 * round(v), so round(v) = bits - RS_V4__ROUND_SHIFT_BITS exactly, and its
 * low bits are the significand's low bits. The scalar code's (int)kd, with
 * kd = (v + DM_ROUND_SHIFT) - DM_ROUND_SHIFT, is that same integer. */
#define RS_V4__ROUND_SHIFT_BITS 0x4338000000000000ull


/* x < 0 ? -r : r, the scalar functions' last step (a negation flips the
 * sign bit only, NaN included). */
RS_V4__INLINE rs_v4 rs_v4__neg_if_neg(rs_v4 x, rs_v4 r)
{
    return rs_v4_sel(rs_v4_lt(x, rs_v4_splat(0.0)), -r, r);
}

/* ---------------------------------------------------------- sin, cos, tan */

/* Lanes whose argument the trig functions reduce: !(|x| < DM_TRIG_LIMIT)
 * is the scalar's early return. */
RS_V4__INLINE rs_v4m rs_v4__trig_in_range(rs_v4 x)
{
    return rs_v4_lt(rs_v4_abs(x), rs_v4_splat(DM_TRIG_LIMIT));
}

#ifdef RS_NEGCTL_LIBM_SIN
/* The negative control's build (detmath.c), where rs_sincos is libm's: the
 * lanes take it too, as they take rs_sincos's bits in every other build, so
 * the cross check sees libm wherever physics takes a sine or a cosine. */
RS_V4__INLINE void rs_v4_sincos(rs_v4 x, rs_v4 *s, rs_v4 *c)
{
    for (int i = 0; i < 4; i++) {
        double si, ci;
        rs_sincos(x[i], &si, &ci);
        (*s)[i] = si;
        (*c)[i] = ci;
    }
}
#else
/* *s = rs_sin(x), *c = rs_cos(x) lane by lane. */
RS_V4__INLINE void rs_v4_sincos(rs_v4 x, rs_v4 *s, rs_v4 *c)
{
    rs_v4__trig_red a = rs_v4__trig_reduce_parts(x);
    rs_v4 z = a.r * a.r;
    rs_v4 sh = rs_v4__sin_kernel(a.r, a.rl, z).hi;
    rs_v4 ch = rs_v4__cos_kernel(a.r, a.rl, z, rs_v4_splat(0.0)).hi;
    /* q = n & 3, and the scalar's pick_bits as selects:
     * sin, cos = (S, C), (C, -S), (-S, -C), (-C, S) */
    rs_v4u q = rs_v4_bits(a.ks) & 3u;
    rs_v4m odd = (rs_v4m)(0u - (q & 1u));
    rs_v4u ssign = (q >> 1) << 63;
    rs_v4u csign = (((q + 1u) >> 1) & 1u) << 63;
    rs_v4 sr = rs_v4_from_bits(rs_v4_bits(rs_v4_sel(odd, ch, sh)) ^ ssign);
    rs_v4 cr = rs_v4_from_bits(rs_v4_bits(rs_v4_sel(odd, sh, ch)) ^ csign);
    /* Not reduced: 0 for huge finite x, NaN for Inf and NaN; cos 1 + that. */
    rs_v4m in = rs_v4__trig_in_range(x);
    rs_v4 xx = x - x;
    *s = rs_v4_sel(in, sr, xx);
    *c = rs_v4_sel(in, cr, 1.0 + xx);
}
#endif

/* rs_sin lane by lane. */
RS_V4__INLINE rs_v4 rs_v4_sin(rs_v4 x)
{
    rs_v4 s, c;
    rs_v4_sincos(x, &s, &c);
    return s;
}

/* rs_cos lane by lane. */
RS_V4__INLINE rs_v4 rs_v4_cos(rs_v4 x)
{
    rs_v4 s, c;
    rs_v4_sincos(x, &s, &c);
    return c;
}

/* rs_tan lane by lane. */
RS_V4__INLINE rs_v4 rs_v4_tan(rs_v4 x)
{
    rs_v4__trig_red a = rs_v4__trig_reduce_parts(x);
    rs_v4 z = a.r * a.r;
    rs_v4__dd s = rs_v4__sin_kernel(a.r, a.rl, z);
    rs_v4__dd c = rs_v4__cos_kernel(a.r, a.rl, z, rs_v4__mul_err(a.r, a.r, z));
    rs_v4u odd1 = rs_v4_bits(a.ks) & 1u;
    rs_v4m odd = (rs_v4m)(0u - odd1);
    rs_v4u sign = odd1 << 63;
    /* tan = S/C in even quadrants, -C/S in odd ones. */
    rs_v4 nh = rs_v4_from_bits(rs_v4_bits(rs_v4_sel(odd, c.hi, s.hi)) ^ sign);
    rs_v4 nl = rs_v4_from_bits(rs_v4_bits(rs_v4_sel(odd, c.lo, s.lo)) ^ sign);
    rs_v4 dh = rs_v4_sel(odd, s.hi, c.hi);
    rs_v4 dl = rs_v4_sel(odd, s.lo, c.lo);
    /* dh == 0 only where the reduction is no longer exact: stay finite. */
    rs_v4 t = rs_v4_sel(rs_v4_eq(dh, rs_v4_splat(0.0)), nh / DBL_MIN,
                        rs_v4__div_dd(nh, nl, dh, dl));
    return rs_v4_sel(rs_v4__trig_in_range(x), t, x - x);
}

/* ----------------------------------------------------------- atan, asin */

/* rs_atan lane by lane. */
RS_V4__INLINE rs_v4 rs_v4_atan(rs_v4 x)
{
    rs_v4 a = rs_v4_abs(x);
    rs_v4m mid = rs_v4_gt(a, rs_v4_splat(0.5));
    rs_v4m big = rs_v4_gt(a, rs_v4_splat(2.0));
    /* |x| <= 1/2: atan(a); 1/2 < a <= 2: pi/4 + atan((a-1)/(a+1));
     * a > 2: pi/2 + atan(-1/a). */
    rs_v4 num = rs_v4_sel(big, rs_v4_splat(-1.0), rs_v4_sel(mid, a - 1.0, a));
    rs_v4 den = rs_v4_sel(big, a, rs_v4_sel(mid, a + 1.0, rs_v4_splat(1.0)));
    rs_v4 hi = rs_v4_sel(big, rs_v4_splat(DM_PIO2_HI),
                         rs_v4_sel(mid, rs_v4_splat(DM_PIO4_HI), rs_v4_splat(0.0)));
    rs_v4 lo = rs_v4_sel(big, rs_v4_splat(DM_PIO2_LO),
                         rs_v4_sel(mid, rs_v4_splat(DM_PIO4_LO), rs_v4_splat(0.0)));
    rs_v4 r = rs_v4__atan_finish(hi, lo, num / den);
    return rs_v4__neg_if_neg(x, r);
}

/* rs_asin lane by lane. */
RS_V4__INLINE rs_v4 rs_v4_asin(rs_v4 x)
{
    rs_v4 a = rs_v4_abs(x);
    a = rs_v4_sel(rs_v4_gt(a, rs_v4_splat(1.0)), rs_v4_splat(1.0), a);
    /* a <= 1/2 */
    rs_v4 rsmall = a + rs_v4__asin_tail(a, a * a);
    /* 1/2 < a <= 1 (and NaN): detmath.c's asin_half_angle. w >= +0 or NaN
     * in every lane (a <= 1), so the bare sqrt as there. */
    rs_v4 w = 0.5 - 0.5 * a;
    rs_v4 s;
    for (int i = 0; i < 4; i++)
        s[i] = __builtin_sqrt(w[i]);
    rs_v4 sh = rs_v4__split_hi(s);
    rs_v4 d = s + sh;
    rs_v4 c = rs_v4_sel(rs_v4_gt(d, rs_v4_splat(0.0)), (w - sh * sh) / d, rs_v4_splat(0.0));
    rs_v4 t = c + rs_v4__asin_tail(s, w);
    rs_v4 rbig = (DM_PIO2_HI - 2.0 * sh) + (DM_PIO2_LO - 2.0 * t);
    rs_v4 r = rs_v4_sel(rs_v4_le(a, rs_v4_splat(0.5)), rsmall, rbig);
    return rs_v4__neg_if_neg(x, r);
}

/* ---------------------------------------------------------------- exp */

/* rs_exp lane by lane. Lanes with !(|x| <= 708) take the scalar rs_exp
 * (detmath.c's exp_edge: saturation, underflow, two-step scaling, NaN). */
RS_V4__INLINE rs_v4 rs_v4_exp(rs_v4 x)
{
    /* exp_core with xl = 0 */
    rs_v4 ks;
    rs_v4 kd = rs_v4__exp_round(x, &ks);
    rs_v4 r = rs_v4__exp_reduce(x, rs_v4_splat(0.0), kd);
    rs_v4m k = (rs_v4m)(rs_v4_bits(ks) - RS_V4__ROUND_SHIFT_BITS);
    rs_v4m j = k & 127;
    /* pow2i(e) for e = (k - j)/128: its bits are (e + 1023) << 52, which is
     * (k - j + 1023*128) << 45 (a multiple of 128, positive for |x| <= 708:
     * |k| < 130800), with no division or arithmetic shift on the lanes. */
    rs_v4u ebits = (rs_v4u)(k - j + 1023 * 128) << 45;
    rs_v4 p = rs_v4__exp_poly(r);
    rs_v4 th, tl;
    for (int i = 0; i < 4; i++) {
        th[i] = DM_EXP_TAB[j[i]].hi;
        tl[i] = DM_EXP_TAB[j[i]].lo;
    }
    rs_v4 y = rs_v4__exp_join(th, tl, p) * rs_v4_from_bits(ebits);
    rs_v4m edge = ~rs_v4_le(rs_v4_abs(x), rs_v4_splat(708.0));
    if (rs_v4_any(edge)) {
        for (int i = 0; i < 4; i++)
            if (edge[i])
                y[i] = rs_exp(x[i]);
    }
    return y;
}

#endif
