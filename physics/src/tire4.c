/*
 * rs_tire_eval for four tyres in four lanes. Every line below is the line of
 * tire.c it mirrors, with the same operations in the same order, so each lane
 * rounds exactly as the scalar evaluation does (tests/test_tire4.c compares
 * them bit for bit). Where tire.c branches, both sides are computed and the
 * lane's side is selected; work that no lane needs (an exponential whose
 * coefficient is 0 on all four tyres, the combined-slip weighting at zero
 * slip) is skipped for the whole vector, as tire.c skips it for one tyre.
 * A lane whose tyre is in the air computes with a harmless stand-in load and
 * has its outputs replaced at the end, as tire.c returns early.
 */
#include "tire4.h"

#include <stddef.h>
#include <string.h>

#include "detmath4.h"
#include "v4.h"

/* tire4_avx2.c compiles this file again for AVX2 under another name. */
#ifndef RS_TIRE4_EVAL
#define RS_TIRE4_EVAL rs_tire_eval4_base
#define RS_TIRE4_DISPATCH 1
#endif

#define EPS 1e-6

/* Coefficient `field` of the four lanes. */
#define P(field) load_param(p, offsetof(rs_tire_params, field) / sizeof(double))

_Static_assert(sizeof(rs_tire_params) % sizeof(double) == 0, "rs_tire_params holds only doubles");
_Static_assert(sizeof(rs_tire_out4) == 4 * sizeof(rs_tire_out),
               "rs_tire_out4 holds rs_tire_out's doubles four times over, nothing else");

static inline rs_v4 load_param(const rs_tire_lanes *p, size_t k)
{
    rs_v4 v;
    memcpy(&v, p->v[k], sizeof v);
    return v;
}


static inline rs_v4 one(void) { return rs_v4_splat(1.0); }
static inline rs_v4 zero(void) { return rs_v4_splat(0.0); }

/* tire.c's sgn1 and cap_e. */
static inline rs_v4 sgn1(rs_v4 x) { return rs_v4_sel(rs_v4_lt(x, zero()), rs_v4_splat(-1.0), one()); }
static inline rs_v4 cap_e(rs_v4 e) { return rs_v4_sel(rs_v4_gt(e, one()), one(), e); }

/* atan(x) where `need` is set; other lanes are never read. */
static inline rs_v4 atan_if(rs_v4m need, rs_v4 x)
{
    return rs_v4_any(need) ? rs_v4_atan(x) : zero();
}

/* tire.c's mf_sin, D sin(C atan(B x - E (B x - atan(B x)))) and its slope,
 * for the longitudinal (1) and the lateral (2) force at once. The two are
 * independent chains of divisions and polynomials; written one after the
 * other the CPU ran them nearly one after the other, interleaved step by
 * step it overlaps them (tyrebench: about a tenth off an evaluation). Each
 * lane's operations are tire.c's, in its order: only the two chains'
 * statements alternate. tire.c's shortcut for x = 0 on every lane only
 * skips work whose result the selects below discard. */
typedef struct mf_sin_args {
    rs_v4 B, C, D, E, x;
} mf_sin_args;

static inline rs_v4 mf_phi(rs_v4 bx, rs_v4 E, rs_v4m plain, rs_v4 atan_bx)
{
    return rs_v4_sel(plain, bx, bx - E * (bx - atan_bx));
}

static inline rs_v4 mf_slope(const mf_sin_args *a, rs_v4m at0, rs_v4 bx, rs_v4 phi, rs_v4 c)
{
    return rs_v4_sel(at0, a->D * a->C * a->B,
                     a->D * c * a->C / (1.0 + phi * phi) * a->B *
                         (1.0 - a->E + a->E / (1.0 + bx * bx)));
}

static void mf_sin_pair(const mf_sin_args *a1, const mf_sin_args *a2, rs_v4 f[2],
                        rs_v4 slope[2])
{
    rs_v4 bx1 = a1->B * a1->x, bx2 = a2->B * a2->x;
    rs_v4m at01 = rs_v4_eq(a1->x, zero()), at02 = rs_v4_eq(a2->x, zero());
    rs_v4m plain1 = rs_v4_eq(a1->E, zero()), plain2 = rs_v4_eq(a2->E, zero());
    rs_v4 atan_bx1 = atan_if(~plain1, bx1), atan_bx2 = atan_if(~plain2, bx2);
    rs_v4 phi1 = mf_phi(bx1, a1->E, plain1, atan_bx1);
    rs_v4 phi2 = mf_phi(bx2, a2->E, plain2, atan_bx2);
    rs_v4 t1 = rs_v4_atan(phi1), t2 = rs_v4_atan(phi2);
    rs_v4 s1, c1, s2, c2;
    rs_v4_sincos(a1->C * t1, &s1, &c1);
    rs_v4_sincos(a2->C * t2, &s2, &c2);
    slope[0] = mf_slope(a1, at01, bx1, phi1, c1);
    slope[1] = mf_slope(a2, at02, bx2, phi2, c2);
    f[0] = rs_v4_sel(at01, zero(), a1->D * s1);
    f[1] = rs_v4_sel(at02, zero(), a2->D * s2);
}

/* tire.c's mf_cos: cos(C atan(B x - E (B x - atan(B x)))). */
static rs_v4 mf_cos(rs_v4 B, rs_v4 C, rs_v4 E, rs_v4 x)
{
    rs_v4 bx = B * x;
    rs_v4m plain = rs_v4_eq(E, zero());
    rs_v4 phi = rs_v4_sel(plain, bx, bx - E * (bx - atan_if(~plain, bx)));
    rs_v4m c1 = rs_v4_eq(C, one());
    rs_v4 fast = 1.0 / rs_v4_sqrt(1.0 + phi * phi);
    if (rs_v4_all(c1))
        return fast;
    return rs_v4_sel(c1, fast, rs_v4_cos(C * rs_v4_atan(phi)));
}

/* tire.c's equivalent_slip. */
static rs_v4 equivalent_slip(rs_v4 a, rs_v4 kk2)
{
    rs_v4m same = rs_v4_eq(kk2, zero()) & rs_v4_lt(rs_v4_abs(a), rs_v4_splat(RS_HALF_PI));
    if (rs_v4_all(same))
        return a;
    rs_v4 ta = rs_v4_tan(a);
    return rs_v4_sel(same, a, rs_v4_atan(rs_v4_sqrt(ta * ta + kk2)) * rs_v4_sign(a));
}

/* tire.c's weighting: G normalised at x0, given B^2. */
static rs_v4 weighting(rs_v4 b2, rs_v4 C, rs_v4 E, rs_v4 x, rs_v4 x0)
{
    rs_v4m fast = rs_v4_eq(C, one()) & rs_v4_eq(E, zero());
    rs_v4m x00 = rs_v4_eq(x0, zero());
    /* Each side only where a lane takes it (x0 is a tyre's constant plus a
     * load term, so usually 0 on all four, or on none): a division and a
     * square root less. */
    rs_v4 g_fast, den = 1.0 + b2 * x * x;
    if (rs_v4_all(x00))
        g_fast = 1.0 / rs_v4_sqrt(den);
    else if (!rs_v4_any(x00))
        g_fast = rs_v4_sqrt((1.0 + b2 * x0 * x0) / den);
    else
        g_fast = rs_v4_sel(x00, 1.0 / rs_v4_sqrt(den), rs_v4_sqrt((1.0 + b2 * x0 * x0) / den));
    if (rs_v4_all(fast))
        return g_fast;
    rs_v4 B = rs_v4_sqrt(b2);
    rs_v4 g = mf_cos(B, C, E, x);
    rs_v4 g_slow = rs_v4_all(x00) ? g : rs_v4_sel(x00, g, g / mf_cos(B, C, E, x0));
    return rs_v4_sel(fast, g_fast, g_slow);
}

/* tire.c's offset_fade. */
static rs_v4 offset_fade(rs_v4 avx, rs_v4 vxlow)
{
    rs_v4m full = rs_v4_ge(avx, vxlow);
    if (rs_v4_all(full))
        return one();
    return rs_v4_sel(full, one(), 0.5 - 0.5 * rs_v4_cos(RS_PI * avx / vxlow));
}

/* exp(x) where `need` is set, else `other`. */
static rs_v4 exp_if(rs_v4m need, rs_v4 x, rs_v4 other)
{
    return rs_v4_any(need) ? rs_v4_sel(need, rs_v4_exp(x), other) : other;
}

/* The inputs of the four lanes, sanitised as tire.c does. */
typedef struct lanes_in {
    rs_v4 fz, vx, kappa, ta, gamma, grip, omega;
} lanes_in;

static inline rs_v4 load4(const double a[4])
{
    rs_v4 v;
    memcpy(&v, a, sizeof v);
    return v;
}

static lanes_in load_inputs(const rs_tire_in4 *in)
{
    lanes_in l;
    rs_v4 vx = load4(in->vx_m_s), kappa = load4(in->kappa), ta = load4(in->tan_alpha);
    rs_v4 gamma = load4(in->gamma_rad), grip = load4(in->grip_scale);
    l.omega = load4(in->omega_rad_s);
    l.fz = load4(in->fz_n);
    l.vx = rs_v4_sel(rs_v4_eq(vx, vx), rs_v4_clamp(vx, rs_v4_splat(-1e4), rs_v4_splat(1e4)), zero());
    l.kappa = rs_v4_sel(rs_v4_eq(kappa, kappa), kappa, zero());
    l.ta = rs_v4_sel(rs_v4_eq(ta, ta), ta, zero());
    l.gamma = rs_v4_sel(rs_v4_eq(gamma, gamma), gamma, zero());
    /* rs_min(grip, 1e3) where grip > 1e-3 (NaN -> 1e-3) */
    l.grip = rs_v4_sel(rs_v4_gt(grip, rs_v4_splat(1e-3)),
                       rs_v4_sel(rs_v4_lt(grip, rs_v4_splat(1e3)), grip, rs_v4_splat(1e3)),
                       rs_v4_splat(1e-3));
    return l;
}

#define OUT(field, v)                                                                          \
    do {                                                                                       \
        rs_v4 out_v_ = (v);                                                                    \
        memcpy(out->field, &out_v_, sizeof out_v_);                                            \
    } while (0)

void RS_TIRE4_EVAL(const rs_tire_lanes *p, const rs_tire_in4 *in, int mode, int want_moments,
                   rs_tire_out4 *out)
{
    lanes_in l = load_inputs(in);
    const rs_v4 r0 = P(unloaded_radius), fnom = P(fnomin);
    const rs_v4 vxlow = P(vxlow);

    /* Lanes in the air (or with a NaN load) compute with the nominal load
     * and are zeroed at the end, as tire.c returns early for them. */
    const rs_v4m air = ~rs_v4_gt(l.fz, zero());
    rs_v4 fz = rs_v4_sel(air, fnom, l.fz);
    const rs_v4 fzmax = P(fzmax);
    fz = rs_v4_sel(rs_v4_gt(fz, fzmax), fzmax, fz);
    rs_v4 vx = l.vx, kappa = l.kappa, ta = l.ta, gamma = l.gamma;

    /* ---------------------------------------------------------- inputs */
    const rs_v4 avx = rs_v4_abs(vx);
    const rs_v4 kappa_in = kappa;
    rs_v4 dk = one(), da = one();
    const rs_v4 w = offset_fade(avx, vxlow);

    if (mode == RS_TIRE_STEADY) {
        rs_v4m slow = rs_v4_lt(avx, vxlow);
        if (rs_v4_any(slow)) {
            rs_v4 r = avx / vxlow;
            kappa = rs_v4_sel(slow, kappa * r, kappa);
            dk = rs_v4_sel(slow, r, dk);
            rs_v4 ssum = avx * (1.0 + rs_v4_abs(ta)) / vxlow;
            rs_v4m reduce = slow & rs_v4_lt(ssum, one());
            if (rs_v4_any(reduce)) {
                rs_v4 a = rs_v4_atan(ta);
                rs_v4 tr = rs_v4_tan(a * ssum);
                rs_v4 d = (1.0 + tr * tr) *
                          (ssum / (1.0 + ta * ta) + a * rs_v4_sign(ta) * avx / vxlow);
                da = rs_v4_sel(reduce, d, da);
                ta = rs_v4_sel(reduce, tr, ta);
            }
        }
    }
    {
        rs_v4 kmin = P(kpumin), kmax = P(kpumax), amin = P(tan_alpmin), amax = P(tan_alpmax);
        rs_v4m klo = rs_v4_lt(kappa, kmin), khi = ~klo & rs_v4_gt(kappa, kmax);
        kappa = rs_v4_sel(klo, kmin, rs_v4_sel(khi, kmax, kappa));
        dk = rs_v4_sel(klo | khi, zero(), dk);
        rs_v4m alo = rs_v4_lt(ta, amin), ahi = ~alo & rs_v4_gt(ta, amax);
        ta = rs_v4_sel(alo, amin, rs_v4_sel(ahi, amax, ta));
        da = rs_v4_sel(alo | ahi, zero(), da);
        gamma = rs_v4_clamp(gamma, P(cammin), P(cammax));
    }

    /* 4.E1, 4.E2a, 4.E4, 4.E7 */
    const rs_v4 fz0p = fnom * P(lfzo);
    const rs_v4 dfz = (fz - fz0p) / fz0p;
    const rs_v4m cambered = rs_v4_ne(gamma, zero());
    const rs_v4 gs = rs_v4_any(cambered) ? rs_v4_sel(cambered, rs_v4_sin(gamma), zero()) : zero();
    const rs_v4 lmux = P(lmux) * l.grip, lmuy = P(lmuy) * l.grip;
    const rs_v4 gx = gamma * P(lgax);
    const rs_v4 gy = gs * P(lgay);

    /* -------------------------------------- pure longitudinal, 4.E9-4.E18 */
    const rs_v4 pkx3 = P(pkx3);
    const rs_v4 cx = P(pcx1) * P(lcx);
    const rs_v4 mux = (P(pdx1) + P(pdx2) * dfz) * (1.0 - P(pdx3) * gx * gx) * lmux;
    const rs_v4 dx = mux * fz;
    const rs_v4 ekx = exp_if(rs_v4_ne(pkx3, zero()), pkx3 * dfz, one());
    const rs_v4 kxk = fz * (P(pkx1) + P(pkx2) * dfz) * ekx * P(lkx);
    const rs_v4 bx = kxk / (cx * dx + EPS * sgn1(dx));
    const rs_v4 shx = (P(phx1) + P(phx2) * dfz) * P(lhx) * w;
    const rs_v4 svx = fz * (P(pvx1) + P(pvx2) * dfz) * P(lvx) * lmux * w;
    const rs_v4 kx = kappa + shx;
    const rs_v4 ex = cap_e((P(pex1) + P(pex2) * dfz + P(pex3) * dfz * dfz) *
                           (1.0 - P(pex4) * rs_v4_sign(kx)) * P(lex));

    /* ------------------------------------------- pure lateral, 4.E19-4.E30 */
    const rs_v4 pky3 = P(pky3);
    const rs_v4 xk = fz / (P(pky2) * fz0p);
    const rs_v4 kya = P(pky1) * fz0p * (2.0 * xk / (1.0 + xk * xk)) *
                      (1.0 - pky3 * rs_v4_abs(gy)) * P(lky);
    const rs_v4 shy = ((P(phy1) + P(phy2) * dfz) * P(lhy) + P(phy3) * gy) * w;
    const rs_v4 svy = fz * ((P(pvy1) + P(pvy2) * dfz) * P(lvy) + (P(pvy3) + P(pvy4) * dfz) * gy) *
                      lmuy * w;
    const rs_v4 ay = ta + shy;
    const rs_v4 cy = P(pcy1) * P(lcy);
    const rs_v4 muy = (P(pdy1) + P(pdy2) * dfz) * (1.0 - P(pdy3) * gy * gy) * lmuy;
    const rs_v4 dy = muy * fz;
    const rs_v4 ey = cap_e((P(pey1) + P(pey2) * dfz) *
                           (1.0 - (P(pey3) + P(pey4) * gy) * sgn1(ay)) * P(ley));
    const rs_v4 by = kya / (cy * dy + EPS * sgn1(dy));

    /* 4.E9 and 4.E19, the two sine forms side by side. */
    const mf_sin_args lng = {bx, cx, dx, ex, kx}, lat = {by, cy, dy, ey, ay};
    rs_v4 f0[2], df0[2];
    mf_sin_pair(&lng, &lat, f0, df0);
    const rs_v4 fx0 = f0[0] + svx, dfx0 = df0[0];
    const rs_v4 fy0 = f0[1] + svy, dfy0 = df0[1];

    /* ------------------------------------- combined longitudinal, 4.E50-57 */
    const rs_v4 rbx1 = P(rbx1), lxal = P(lxal), rhx1 = P(rhx1);
    const rs_v4 rbk = P(rbx2) * kappa;
    const rs_v4 bxa2 = rbx1 * rbx1 * lxal * lxal / (1.0 + rbk * rbk);
    const rs_v4 exa = cap_e(P(rex1) + P(rex2) * dfz);
    const rs_v4m ta0 = rs_v4_eq(ta, zero());
    const rs_v4 gxa = rs_v4_all(ta0) ? one()
                                     : rs_v4_sel(ta0, one(),
                                                 weighting(bxa2, P(rcx1), exa, ta + rhx1, rhx1));
    const rs_v4 fx = gxa * fx0;

    /* ----------------------------------------- combined lateral, 4.E58-67 */
    const rs_v4 rby1 = P(rby1), lyka = P(lyka), rvy4 = P(rvy4);
    const rs_v4 rba = P(rby2) * (ta - P(rby3));
    const rs_v4 byk2 = rby1 * rby1 * lyka * lyka / (1.0 + rba * rba);
    const rs_v4 eyk = cap_e(P(rey1) + P(rey2) * dfz);
    const rs_v4 shyk = P(rhy1) + P(rhy2) * dfz;
    const rs_v4m k0 = rs_v4_eq(kappa, zero());
    const rs_v4 gyk = rs_v4_all(k0) ? one()
                                    : rs_v4_sel(k0, one(),
                                                weighting(byk2, P(rcy1), eyk, kappa + shyk, shyk));
    const rs_v4 r4a = rvy4 * ta;
    const rs_v4 cr4 = 1.0 / rs_v4_sqrt(1.0 + r4a * r4a);
    const rs_v4 dvyk = muy * fz * (P(rvy1) + P(rvy2) * dfz + P(rvy3) * gs) * cr4;
    rs_v4 svyk = zero();
    {
        rs_v4m induced = rs_v4_ne(dvyk, zero()) & ~k0;
        if (rs_v4_any(induced)) {
            rs_v4 rvy5 = P(rvy5);
            rs_v4 x = P(rvy6) * kappa;
            rs_v4m two = rs_v4_eq(rvy5, rs_v4_splat(2.0));
            rs_v4 sk = 2.0 * x / (1.0 + x * x);
            if (!rs_v4_all(two | ~induced))
                sk = rs_v4_sel(two, sk, rs_v4_sin(rvy5 * rs_v4_atan(x)));
            svyk = rs_v4_sel(induced, dvyk * sk * P(lvyka) * w, zero());
        }
    }
    const rs_v4 fy = gyk * fy0 + svyk;

    OUT(fx, fx);
    OUT(fy, fy);
    OUT(kxk, kxk);
    OUT(kya, kya);
    OUT(mux, mux);
    OUT(muy, muy);
    OUT(dfx_dkappa, gxa * dfx0 * dk);
    OUT(dfy_dalpha, (gyk * dfy0 - svyk * rvy4 * r4a * cr4 * cr4) * da);

    /* ------------------------------------------- overturning moment Mx */
    const rs_v4 fzmin = P(fzmin);
    {
        rs_v4 fz_mx = rs_v4_sel(rs_v4_lt(fz, fzmin), fz * (fz / fzmin) * (fz / fzmin), fz);
        OUT(mx, r0 * fz_mx * P(lmx) * (P(qsx1) * P(lvmx) - P(qsx2) * gamma + P(qsx3) * fy / fnom));
    }

    /* ------------------------------------ effective rolling radius Re */
    const rs_v4 fzn = fz / fnom;
    rs_v4 re;
    {
        rs_v4 dreff = P(dreff);
        rs_v4m curved = rs_v4_ne(dreff, zero());
        rs_v4 bump = rs_v4_any(curved)
                         ? rs_v4_sel(curved, dreff * rs_v4_atan(P(breff) * fzn), zero())
                         : zero();
        re = r0 - (fnom / P(vertical_stiffness)) * (bump + P(freff) * fzn);
    }
    OUT(re_m, re);

    /* ----------------------------------- rolling resistance moment My */
    {
        rs_v4 fz_my = rs_v4_sel(rs_v4_lt(fz, fzmin), fz * (fz / fzmin), fz);
        rs_v4 vv = vx / P(longvl), vv2 = vv * vv;
        rs_v4 base = -r0 * fz_my * P(lmy) *
                     (P(qsy1) + P(qsy2) * fx / fnom + P(qsy3) * rs_v4_abs(vv) + P(qsy4) * vv2 * vv2);
        rs_v4 vr = mode == RS_TIRE_STEADY ? vx + kappa_in * avx : l.omega * re;
        rs_v4m fast = rs_v4_ge(vr, vxlow), back = rs_v4_le(vr, -vxlow);
        rs_v4m ramp = rs_v4_eq(vr, vr) & ~fast & ~back;
        rs_v4 dir = rs_v4_sel(fast, one(), rs_v4_sel(back, rs_v4_splat(-1.0), zero()));
        if (rs_v4_any(ramp))
            dir = rs_v4_sel(ramp, rs_v4_sin(RS_HALF_PI * vr / vxlow), dir);
        OUT(my, base * dir);
    }

    /* ------------------------------------------------ relaxation lengths */
    {
        rs_v4 ptx3 = P(ptx3);
        rs_v4m own = rs_v4_ne(ptx3, zero()) & rs_v4_ne(ptx3, -pkx3);
        rs_v4 etx = rs_v4_sel(rs_v4_eq(ptx3, zero()), one(), exp_if(own, -ptx3 * dfz, ekx));
        rs_v4 sk = (P(ptx1) + P(ptx2) * dfz) * etx * P(lsgkp) * r0 * fz / fnom;
        rs_v4 pt = P(pty2) * fz0p;
        rs_v4 sa = P(pty1) * (2.0 * fz * pt / (pt * pt + fz * fz)) *
                   (1.0 - pky3 * rs_v4_abs(gamma)) * r0 * P(lfzo) * P(lsgal);
        OUT(sigma_kappa_m, rs_v4_sel(rs_v4_gt(sk, zero()), sk, zero()));
        OUT(sigma_alpha_m, rs_v4_sel(rs_v4_gt(sa, zero()), sa, zero()));
    }

    if (!want_moments) {
        OUT(mz, zero());
        OUT(trail_m, zero());
        OUT(mzr, zero());
    } else {
        /* ------------------------------------- aligning moment, 4.E31-4.E78 */
        const rs_v4 lgaz = P(lgaz), lfzo = P(lfzo);
        const rs_v4 fzm = rs_v4_sel(rs_v4_gt(fz, fzmin), fz, fzmin);
        const rs_v4 gz = gs * lgaz;
        const rs_v4 gzp = gamma * lgaz;

        const rs_v4 cos_ap = vx / (avx * rs_v4_sqrt(1.0 + ta * ta) + EPS);

        const rs_v4 sht = P(qhz1) + P(qhz2) * dfz + (P(qhz3) + P(qhz4) * dfz) * gz;
        const rs_v4 kyap = kya + EPS * sgn1(kya);
        const rs_v4 shf = shy + svy / kyap;
        const rs_v4 ar = ta + shf;
        const rs_v4 at = ta + sht;

        const rs_v4 dt = (P(qdz1) + P(qdz2) * dfz) *
                         (1.0 + P(qdz3) * gzp + P(qdz4) * gzp * gzp) * fzm * (r0 / fz0p) * P(ltr);
        const rs_v4 bt = (P(qbz1) + P(qbz2) * dfz + P(qbz3) * dfz * dfz) *
                         (1.0 + P(qbz4) * gzp + P(qbz5) * rs_v4_abs(gzp)) * P(lky) / lmuy;
        const rs_v4 ct = P(qcz1);
        const rs_v4 et0 = P(qez1) + P(qez2) * dfz + P(qez3) * dfz * dfz;
        const rs_v4 qe = P(qez4) + P(qez5) * gz;
        const rs_v4m et_plain = rs_v4_eq(et0, zero()) | rs_v4_eq(qe, zero());
        const rs_v4 et = rs_v4_all(et_plain)
                             ? cap_e(et0)
                             : rs_v4_sel(et_plain, cap_e(et0),
                                         cap_e(et0 * (1.0 + qe * (2.0 / RS_PI) *
                                                                rs_v4_atan(bt * ct * at))));

        const rs_v4 kk = kxk / kyap * kappa, kk2 = kk * kk;
        const rs_v4 at_eq = equivalent_slip(at, kk2);
        const rs_v4 ar_eq = equivalent_slip(ar, kk2);

        const rs_v4 t = dt * mf_cos(bt, ct, et, at_eq) * cos_ap * lfzo * w;

        const rs_v4 drc = (P(qdz6) + P(qdz7) * dfz) * P(lres) + (P(qdz8) + P(qdz9) * dfz) * gz;
        const rs_v4m resid = rs_v4_ne(drc, zero());
        const rs_v4 dr = rs_v4_any(resid) ? rs_v4_sel(resid,
                                                      fzm * r0 * drc * lmuy * rs_v4_sign(vx) *
                                                          rs_v4_cos(ta),
                                                      zero())
                                          : zero();
        const rs_v4 br = P(qbz9) * P(lky) / lmuy + P(qbz10) * by * cy;
        const rs_v4 brx = br * ar_eq;
        const rs_v4 mzr = dr / rs_v4_sqrt(1.0 + brx * brx) * w;

        const rs_v4 s = r0 * (P(ssz1) + P(ssz2) * fy / fnom + (P(ssz3) + P(ssz4) * dfz) * gzp) *
                        P(ls);

        OUT(trail_m, t);
        OUT(mzr, mzr);
        OUT(mz, -t * (fy - svyk) + mzr + s * fx);
    }

    /* Tyres in the air: no force, free radius (tire.c's early return). */
    if (rs_v4_any(air)) {
        double(*field)[4] = (double(*)[4])(void *)out;
        for (size_t k = 0; k < sizeof *out / sizeof field[0]; k++)
            for (int j = 0; j < 4; j++)
                if (air[j])
                    field[k][j] = 0.0;
        for (int j = 0; j < 4; j++)
            if (air[j])
                out->re_m[j] = r0[j];
    }
}

#ifdef RS_TIRE4_DISPATCH
void rs_tire_lanes_set(rs_tire_lanes *out, const rs_tire_params *const p[4])
{
    for (int j = 0; j < 4; j++) {
        double f[RS_TIRE_NPARAMS];
        memcpy(f, p[j], sizeof f);
        for (size_t k = 0; k < RS_TIRE_NPARAMS; k++)
            out->v[k][j] = f[k];
    }
}

void rs_tire_eval4(const rs_tire_lanes *p, const rs_tire_in4 *in, int mode, int want_moments,
                   rs_tire_out4 *out)
{
#if RS_TIRE4_AVX2
    /* Both variants give the same bits; AVX2 does four lanes per
     * instruction where the baseline does two. */
    if (__builtin_cpu_supports("avx2")) {
        rs_tire_eval4_avx2(p, in, mode, want_moments, out);
        return;
    }
#endif
    rs_tire_eval4_base(p, in, mode, want_moments, out);
}
#endif
