/*
 * Magic Formula 5.2 (PAC2002) steady-state tyre evaluation: combined-slip
 * forces, aligning, overturning and rolling-resistance moments, effective
 * rolling radius and relaxation lengths, plus the slopes the vehicle model
 * needs for its semi-implicit wheel-spin and lateral-slip updates.
 *
 * The equations are Pacejka, Tire and Vehicle Dynamics, 3rd ed. (2012),
 * 4.E1-4.E78, as MFeval 4.0 (the open reference whose output the tests
 * reproduce) evaluates them; each block cites its equation, and
 * docs/TYRES.md writes the whole set out.
 * Where MFeval departs from the book to match TNO's solver (Dt and Bt with
 * the plain camber, the A54/A55 equivalent slip angles, Mz with Fy - SVyk,
 * t scaled by LFZO, Re and the relaxation lengths from the MF-Tyre 5.2
 * manual) we follow MFeval, and say so.
 *
 * Determinism: only + - * / sqrt and detmath's functions; no libm, no
 * allocation. Speed matters (four tyres x substeps x thousands of cars): a
 * detmath call costs 15-25 ns, so shared terms are computed once, identities
 * replace transcendentals (cos(atan x) = 1/sqrt(1+x^2) in Bxa, Byk, DVyk and
 * Mzr; sin(2 atan x) = 2x/(1+x^2) in Kya, sigma_alpha and SVyk when RVY5 = 2),
 * exact fast paths skip work for common coefficient values (C = 1 and E = 0
 * in the weighting functions, E = 0 in the sine form, Et = 0, PTX3 = -PKX3
 * sharing Kxk's exponential, zero slips), and Mz is skipped unless asked for.
 * The project's own .tir files use these fast paths (docs/TYRES.md).
 */
#include "tire.h"

#include "detmath.h"

/* 4.E6a: guards every B = K / (C D + eps) and K' = K + eps. */
#define EPS 1e-6

/* sign with sign(0) = +1: MFeval's rule for the denominators' epsilon and for
 * the sgn(alpha_y) in Ey. */
static inline double sgn1(double x) { return x < 0.0 ? -1.0 : 1.0; }

/* Curvature factors are limited to E <= 1 (4.E14, 4.E24, 4.E44, 4.E56,
 * 4.E64): above 1 the curve folds back near the origin. */
static inline double cap_e(double e) { return e > 1.0 ? 1.0 : e; }

/* The sine form D sin(C atan(B x - E (B x - atan(B x)))) (4.E9, 4.E19), and
 * its slope with respect to x (B, C, D, E held):
 * d/dx = D cos(C atan phi) C/(1+phi^2) B (1 - E + E/(1+(Bx)^2)). */
static double mf_sin(double B, double C, double D, double E, double x, double *slope)
{
    double bx = B * x;
    if (x == 0.0) {
        *slope = D * C * B; /* sin(C atan 0) = 0 exactly; skip the work */
        return 0.0;
    }
    double phi = E == 0.0 ? bx : bx - E * (bx - rs_atan(bx));
    double s, c;
    rs_sincos(C * rs_atan(phi), &s, &c);
    *slope = D * c * C / (1.0 + phi * phi) * B * (1.0 - E + E / (1.0 + bx * bx));
    return D * s;
}

/* The cosine form cos(C atan(B x - E (B x - atan(B x)))) of the weighting
 * functions Gxa, Gyk (4.E51, 4.E52, 4.E59, 4.E60) and the trail (4.E33). */
static double mf_cos(double B, double C, double E, double x)
{
    double bx = B * x;
    double phi = E == 0.0 ? bx : bx - E * (bx - rs_atan(bx));
    if (C == 1.0)
        return 1.0 / rs_sqrt(1.0 + phi * phi); /* cos(atan phi), common in fits */
    return rs_cos(C * rs_atan(phi));
}

/* Equivalent slip angle (MFeval A54/A55; book 4.E77-78):
 * atan(sqrt(tan^2 a + (Kxk/Kya' kappa)^2)) sgn a. MFeval treats alpha* + S
 * as an angle, hence the tan. With no longitudinal slip it is a itself while
 * |a| < pi/2, which saves a tan and an atan. */
static double equivalent_slip(double a, double kk2)
{
    if (kk2 == 0.0 && rs_abs(a) < RS_HALF_PI)
        return a;
    double ta = rs_tan(a);
    return rs_atan(rs_sqrt(ta * ta + kk2)) * rs_sign(a);
}

/* A weighting function G = cos(C atan(B x - E(B x - atan(B x)))) normalised
 * by its value at x0 (4.E51/52, 4.E59/60), given B^2. With C = 1 and E = 0
 * (a common fit, and ours) it is 1/sqrt(1 + B^2 x^2): one sqrt, no atan. */
static double weighting(double b2, double C, double E, double x, double x0)
{
    if (C == 1.0 && E == 0.0)
        return x0 == 0.0 ? 1.0 / rs_sqrt(1.0 + b2 * x * x)
                         : rs_sqrt((1.0 + b2 * x0 * x0) / (1.0 + b2 * x * x));
    double B = rs_sqrt(b2);
    double g = mf_cos(B, C, E, x);
    return x0 == 0.0 ? g : g / mf_cos(B, C, E, x0);
}

/* MFeval's low-speed offset fade: 0 at rest, 1 from VXLOW up, C1 at both
 * ends (reductionSmooth = 1 - 0.5 (1 + cos(pi Vx / VXLOW))). */
static double offset_fade(double avx, double vxlow)
{
    if (avx >= vxlow)
        return 1.0;
    return 0.5 - 0.5 * rs_cos(RS_PI * avx / vxlow);
}

void rs_tire_eval(const rs_tire_params *p, const rs_tire_in *in, rs_tire_out *out)
{
    const rs_tire_out zero = {0};
    double fz = in->fz_n;
    /* Inputs are sanitised so that every output stays finite: NaN counts as
     * 0, speeds beyond any car's are held (they only reach My and cos alpha'). */
    double vx = in->vx_m_s == in->vx_m_s ? rs_clamp(in->vx_m_s, -1e4, 1e4) : 0.0;
    double kappa = in->kappa == in->kappa ? in->kappa : 0.0;
    double ta = in->tan_alpha == in->tan_alpha ? in->tan_alpha : 0.0;
    double gamma = in->gamma_rad == in->gamma_rad ? in->gamma_rad : 0.0;
    double grip = in->grip_scale > 1e-3 ? rs_min(in->grip_scale, 1e3) : 1e-3; /* NaN -> 1e-3 */
    const double r0 = p->unloaded_radius, fnom = p->fnomin;

    *out = zero;
    if (!(fz > 0.0)) {
        /* Wheel in the air (or a NaN load): no force, free radius. */
        out->re_m = r0;
        return;
    }
    if (fz > p->fzmax)
        fz = p->fzmax;

    /* ---------------------------------------------------------- inputs */
    double avx = rs_abs(vx);
    double kappa_in = kappa;
    double dk = 1.0, da = 1.0; /* d(slip used)/d(slip given), for the slopes */
    double w = offset_fade(avx, p->vxlow);

    if (in->mode == RS_TIRE_STEADY && avx < p->vxlow) {
        /* MFeval parseInputs: below VXLOW kappa is scaled by |Vx|/VXLOW, and
         * alpha by (|Vx| + |Vsy|)/VXLOW while that is below 1, with
         * Vsy = tan(alpha) Vx. The reduction acts on the angle itself. */
        double r = avx / p->vxlow;
        kappa *= r;
        dk = r;
        double ssum = avx * (1.0 + rs_abs(ta)) / p->vxlow;
        if (ssum < 1.0) {
            double a = rs_atan(ta);
            double tr = rs_tan(a * ssum);
            /* d tr / d ta = (1 + tr^2) (ssum/(1+ta^2) + a |Vx| sgn(ta)/VXLOW) */
            da = (1.0 + tr * tr) * (ssum / (1.0 + ta * ta) + a * rs_sign(ta) * avx / p->vxlow);
            ta = tr;
        }
    }
    /* Limits of the fit ([LONG_SLIP_RANGE], [SLIP_ANGLE_RANGE],
     * [INCLINATION_ANGLE_RANGE]); a clamped slip has zero slope. */
    if (kappa < p->kpumin)
        kappa = p->kpumin, dk = 0.0;
    else if (kappa > p->kpumax)
        kappa = p->kpumax, dk = 0.0;
    if (ta < p->tan_alpmin)
        ta = p->tan_alpmin, da = 0.0;
    else if (ta > p->tan_alpmax)
        ta = p->tan_alpmax, da = 0.0;
    gamma = rs_clamp(gamma, p->cammin, p->cammax);

    /* 4.E1, 4.E2a, 4.E4, 4.E7 (LMU* = L* scaled by the surface). */
    const double fz0p = fnom * p->lfzo;
    const double dfz = (fz - fz0p) / fz0p;
    const double gs = gamma == 0.0 ? 0.0 : rs_sin(gamma); /* gamma* */
    const double lmux = p->lmux * grip, lmuy = p->lmuy * grip;
    const double gx = gamma * p->lgax;                     /* MFeval: plain gamma in mux */
    const double gy = gs * p->lgay;                        /* gamma_y = gamma* LGAY */

    /* -------------------------------------- pure longitudinal, 4.E9-4.E18 */
    const double cx = p->pcx1 * p->lcx;                                   /* 4.E11 */
    const double mux = (p->pdx1 + p->pdx2 * dfz) * (1.0 - p->pdx3 * gx * gx) * lmux; /* 4.E13 */
    const double dx = mux * fz;                                            /* 4.E12 */
    const double ekx = p->pkx3 != 0.0 ? rs_exp(p->pkx3 * dfz) : 1.0;
    const double kxk = fz * (p->pkx1 + p->pkx2 * dfz) * ekx * p->lkx; /* 4.E15 */
    const double bx = kxk / (cx * dx + EPS * sgn1(dx));                   /* 4.E16 */
    const double shx = (p->phx1 + p->phx2 * dfz) * p->lhx * w;             /* 4.E17, faded */
    const double svx = fz * (p->pvx1 + p->pvx2 * dfz) * p->lvx * lmux * w; /* 4.E18, faded */
    const double kx = kappa + shx;                                         /* 4.E10 */
    const double ex = cap_e((p->pex1 + p->pex2 * dfz + p->pex3 * dfz * dfz) *
                            (1.0 - p->pex4 * rs_sign(kx)) * p->lex); /* 4.E14 */
    double dfx0;
    const double fx0 = mf_sin(bx, cx, dx, ex, kx, &dfx0) + svx; /* 4.E9 */

    /* ------------------------------------------- pure lateral, 4.E19-4.E30 */
    /* 4.E25 with sin(2 atan(x)) = 2x/(1+x^2), x = Fz/(PKY2 Fz0'). */
    const double xk = fz / (p->pky2 * fz0p);
    const double kya = p->pky1 * fz0p * (2.0 * xk / (1.0 + xk * xk)) *
                       (1.0 - p->pky3 * rs_abs(gy)) * p->lky;
    const double shy = ((p->phy1 + p->phy2 * dfz) * p->lhy + p->phy3 * gy) * w; /* 4.E27, faded */
    const double svy = fz * ((p->pvy1 + p->pvy2 * dfz) * p->lvy + (p->pvy3 + p->pvy4 * dfz) * gy) *
                       lmuy * w;                                     /* 4.E29, faded */
    const double ay = ta + shy;                                      /* 4.E20 */
    const double cy = p->pcy1 * p->lcy;                              /* 4.E21 */
    const double muy = (p->pdy1 + p->pdy2 * dfz) * (1.0 - p->pdy3 * gy * gy) * lmuy; /* 4.E23 */
    const double dy = muy * fz;                                      /* 4.E22 */
    const double ey = cap_e((p->pey1 + p->pey2 * dfz) *
                            (1.0 - (p->pey3 + p->pey4 * gy) * sgn1(ay)) * p->ley); /* 4.E24 */
    const double by = kya / (cy * dy + EPS * sgn1(dy));              /* 4.E26 */
    double dfy0;
    const double fy0 = mf_sin(by, cy, dy, ey, ay, &dfy0) + svy; /* 4.E19 */

    /* ------------------------------------- combined longitudinal, 4.E50-57 */
    /* Bxa^2 (4.E54) with cos(atan x)^2 = 1/(1+x^2); Gxa is exactly 1 at
     * alpha* = 0, where its numerator and denominator agree. */
    const double rbk = p->rbx2 * kappa;
    const double bxa2 = p->rbx1 * p->rbx1 * p->lxal * p->lxal / (1.0 + rbk * rbk);
    const double exa = cap_e(p->rex1 + p->rex2 * dfz); /* 4.E56 */
    const double gxa = ta == 0.0 ? 1.0 : weighting(bxa2, p->rcx1, exa, ta + p->rhx1, p->rhx1);
    const double fx = gxa * fx0;                   /* 4.E50 */

    /* ----------------------------------------- combined lateral, 4.E58-67 */
    const double rba = p->rby2 * (ta - p->rby3);
    const double byk2 = p->rby1 * p->rby1 * p->lyka * p->lyka / (1.0 + rba * rba); /* 4.E62 */
    const double eyk = cap_e(p->rey1 + p->rey2 * dfz);                            /* 4.E64 */
    const double shyk = p->rhy1 + p->rhy2 * dfz;                                  /* 4.E65 */
    const double gyk = kappa == 0.0 ? 1.0 : weighting(byk2, p->rcy1, eyk, kappa + shyk, shyk);
    /* 4.E66-67: kappa-induced side force, cos(atan(RVY4 alpha*)) = 1/sqrt(..). */
    const double r4a = p->rvy4 * ta;
    const double cr4 = 1.0 / rs_sqrt(1.0 + r4a * r4a);
    const double dvyk = muy * fz * (p->rvy1 + p->rvy2 * dfz + p->rvy3 * gs) * cr4;
    double svyk = 0.0;
    if (dvyk != 0.0 && kappa != 0.0) {
        double x = p->rvy6 * kappa; /* RVY5 = 2: sin(2 atan x) = 2x/(1+x^2) */
        double sk = p->rvy5 == 2.0 ? 2.0 * x / (1.0 + x * x) : rs_sin(p->rvy5 * rs_atan(x));
        svyk = dvyk * sk * p->lvyka * w;
    }
    const double fy = gyk * fy0 + svyk; /* 4.E58 */

    out->fx = fx;
    out->fy = fy;
    out->kxk = kxk;
    out->kya = kya;
    out->mux = mux;
    out->muy = muy;
    /* Slopes for the vehicle model, weighting functions held constant; the
     * lateral one includes the alpha dependence of SVyk (cos(atan(RVY4 a))). */
    out->dfx_dkappa = gxa * dfx0 * dk;
    out->dfy_dalpha = (gyk * dfy0 - svyk * p->rvy4 * r4a * cr4 * cr4) * da;

    /* ------------------------------------------- overturning moment Mx */
    /* MF-Tyre 5.2 manual as MFeval's calculateMx: plain gamma, Fz0 = FNOMIN,
     * and below FZMIN the load enters as Fz (Fz/FZMIN)^2. */
    double fz_mx = fz;
    if (fz < p->fzmin)
        fz_mx = fz * (fz / p->fzmin) * (fz / p->fzmin);
    out->mx = r0 * fz_mx * p->lmx *
              (p->qsx1 * p->lvmx - p->qsx2 * gamma + p->qsx3 * fy / fnom);

    /* ------------------------------------ effective rolling radius Re */
    /* MF-Tyre 5.2 manual form (docs/TYRES.md, "Rolling radius, rolling
     * resistance, overturning"), free radius R0. */
    const double fzn = fz / fnom;
    const double re = r0 - (fnom / p->vertical_stiffness) *
                               ((p->dreff != 0.0 ? p->dreff * rs_atan(p->breff * fzn) : 0.0) +
                                p->freff * fzn);
    out->re_m = re;

    /* ----------------------------------- rolling resistance moment My */
    /* MF-Tyre 5.2 manual form: My = -R0 Fz (QSY1 + QSY2 Fx/Fz0 + QSY3 |Vx/V0|
     * + QSY4 (Vx/V0)^4) LMY, below FZMIN with Fz (Fz/FZMIN). It opposes the
     * wheel's rolling and fades with the rolling speed Vr = omega Re below
     * VXLOW (MFeval's calculateMy does this by a sine ramp in kappa; written
     * in Vr it is sin(pi/2 Vr/VXLOW)). Steady mode derives Vr from the input
     * kappa, Vr = Vx + kappa |Vx|, as MFeval does. */
    {
        double fz_my = fz < p->fzmin ? fz * (fz / p->fzmin) : fz;
        double vv = vx / p->longvl, vv2 = vv * vv;
        double base = -r0 * fz_my * p->lmy *
                      (p->qsy1 + p->qsy2 * fx / fnom + p->qsy3 * rs_abs(vv) + p->qsy4 * vv2 * vv2);
        double vr = in->mode == RS_TIRE_STEADY ? vx + kappa_in * avx : in->omega_rad_s * re;
        double dir;
        if (!(vr == vr))
            dir = 0.0;
        else if (vr >= p->vxlow)
            dir = 1.0;
        else if (vr <= -p->vxlow)
            dir = -1.0;
        else
            dir = rs_sin(RS_HALF_PI * vr / p->vxlow);
        out->my = base * dir;
    }

    /* ------------------------------------------------ relaxation lengths */
    /* MF-Tyre 5.2 manual (MFeval's calculateRelax; docs/TYRES.md, "Low
     * speed and relaxation"). */
    {
        /* PTX3 = -PKX3 (sigma_kappa proportional to Kxk: a carcass of
         * constant stiffness) reuses Kxk's exponential. */
        double etx = p->ptx3 == 0.0 ? 1.0 : p->ptx3 == -p->pkx3 ? ekx : rs_exp(-p->ptx3 * dfz);
        double sk = (p->ptx1 + p->ptx2 * dfz) * etx * p->lsgkp * r0 * fz / fnom;
        double pt = p->pty2 * fz0p; /* sin(2 atan(Fz/pt)) = 2 Fz pt / (pt^2 + Fz^2) */
        double sa = p->pty1 * (2.0 * fz * pt / (pt * pt + fz * fz)) *
                    (1.0 - p->pky3 * rs_abs(gamma)) * r0 * p->lfzo * p->lsgal;
        out->sigma_kappa_m = sk > 0.0 ? sk : 0.0;
        out->sigma_alpha_m = sa > 0.0 ? sa : 0.0;
    }

    if (!in->want_moments)
        return;

    /* ------------------------------------- aligning moment, 4.E31-4.E78 */
    {
        /* Dt and Dr use the load held at FZMIN or above (MFeval). */
        const double fzm = fz > p->fzmin ? fz : p->fzmin;
        const double gz = gs * p->lgaz;     /* gamma* in SHt, Et, Dr */
        const double gzp = gamma * p->lgaz; /* plain gamma in Dt, Bt, s (TNO, A58/A60) */

        /* 4.E6, 4.E6a: cos(alpha') = Vcx / (Vc + eps), Vcy = tan(alpha) |Vcx|.
         * It also makes t and Mzr vanish at standstill. */
        const double cos_ap = vx / (avx * rs_sqrt(1.0 + ta * ta) + EPS);

        const double sht = p->qhz1 + p->qhz2 * dfz + (p->qhz3 + p->qhz4 * dfz) * gz; /* 4.E35 */
        const double kyap = kya + EPS * sgn1(kya);                                   /* 4.E39 */
        const double shf = shy + svy / kyap;                                         /* 4.E38 */
        const double ar = ta + shf;                                                  /* 4.E37 */
        const double at = ta + sht;                                                  /* 4.E34 */

        /* Peak trail (A60), stiffness (A58), shape and curvature (4.E41, 4.E44). */
        const double dt = (p->qdz1 + p->qdz2 * dfz) * (1.0 + p->qdz3 * gzp + p->qdz4 * gzp * gzp) *
                          fzm * (r0 / fz0p) * p->ltr;
        const double bt = (p->qbz1 + p->qbz2 * dfz + p->qbz3 * dfz * dfz) *
                          (1.0 + p->qbz4 * gzp + p->qbz5 * rs_abs(gzp)) * p->lky / lmuy;
        const double ct = p->qcz1;
        const double et0 = p->qez1 + p->qez2 * dfz + p->qez3 * dfz * dfz;
        const double qe = p->qez4 + p->qez5 * gz;
        const double et = et0 == 0.0 || qe == 0.0
                              ? cap_e(et0)
                              : cap_e(et0 * (1.0 + qe * (2.0 / RS_PI) * rs_atan(bt * ct * at)));

        /* Equivalent slip angles (A54, A55 in MFeval; 4.E77-78 in the book). */
        const double kk = kxk / kyap * kappa, kk2 = kk * kk;
        const double at_eq = equivalent_slip(at, kk2);
        const double ar_eq = equivalent_slip(ar, kk2);

        /* Pneumatic trail 4.E73 (x LFZO, as TNO), faded below VXLOW. */
        const double t = dt * mf_cos(bt, ct, et, at_eq) * cos_ap * p->lfzo * w;

        /* Residual moment 4.E75 with Cr = 1: cos(atan(Br a)) = 1/sqrt(1 +
         * (Br a)^2); Dr 4.E47 (sgn(Vx) cos(alpha*)), Br 4.E45. */
        const double drc = (p->qdz6 + p->qdz7 * dfz) * p->lres + (p->qdz8 + p->qdz9 * dfz) * gz;
        const double dr = drc != 0.0 ? fzm * r0 * drc * lmuy * rs_sign(vx) * rs_cos(ta) : 0.0;
        const double br = p->qbz9 * p->lky / lmuy + p->qbz10 * by * cy;
        const double brx = br * ar_eq;
        const double mzr = dr / rs_sqrt(1.0 + brx * brx) * w;

        /* Moment arm of Fx, A56 (Fz0 = FNOMIN, plain gamma). */
        const double s = r0 * (p->ssz1 + p->ssz2 * fy / fnom + (p->ssz3 + p->ssz4 * dfz) * gzp) *
                         p->ls;

        out->trail_m = t;
        out->mzr = mzr;
        out->mz = -t * (fy - svyk) + mzr + s * fx; /* MF-Tyre 5.2 manual form of 4.E71 */
    }
}
