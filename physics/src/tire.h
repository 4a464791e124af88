/*
 * Pacejka Magic Formula 5.2 (PAC2002) tyre: parameters read from TNO .tir
 * property files and the steady-state force and moment evaluation.
 *
 * Axes are ISO-W (x forward along the wheel heading, y left, z up), units SI:
 * kappa = -1 is a locked wheel, tan_alpha = Vsy/|Vx| (positive slip angle
 * gives negative Fy), My is negative when rolling forward. Equations follow
 * Pacejka, Tire and Vehicle Dynamics, 3rd ed. (4.E1-4.E78) as MFeval 4.0
 * evaluates them; ../shared/MF52.md lists them.
 */
#ifndef RS_TIRE_H
#define RS_TIRE_H

#include <stddef.h>

#include "bytes.h"
#include "racesim/physics.h"

/* Every coefficient, in SI units after [UNITS] conversion. Fields absent from
 * a file take MF5.2 defaults (scaling factors 1, the rest 0 unless noted in
 * tir.c). The names are the .tir keys in lower case. */
typedef struct rs_tire_params {
    /* [model] */
    double fittyp, use_mode, vxlow, longvl;
    /* [dimension] */
    double unloaded_radius, width, aspect_ratio, rim_radius, rim_width;
    /* [vertical] */
    double vertical_stiffness, vertical_damping, breff, dreff, freff, fnomin;
    /* [ranges] */
    double kpumin, kpumax, alpmin, alpmax, cammin, cammax, fzmin, fzmax;
    /* [scaling] */
    double lfzo, lcx, lmux, lex, lkx, lhx, lvx, lgax;
    double lcy, lmuy, ley, lky, lhy, lvy, lgay, ltr;
    double lres, lgaz, lxal, lyka, lvyka, ls, lsgkp, lsgal;
    double lgyr, lmx, lvmx, lmy;
    /* [longitudinal] */
    double pcx1, pdx1, pdx2, pdx3, pex1, pex2, pex3, pex4;
    double pkx1, pkx2, pkx3, phx1, phx2, pvx1, pvx2, rbx1;
    double rbx2, rcx1, rex1, rex2, rhx1, ptx1, ptx2, ptx3;
    /* [overturning] */
    double qsx1, qsx2, qsx3;
    /* [lateral] */
    double pcy1, pdy1, pdy2, pdy3, pey1, pey2, pey3, pey4;
    double pky1, pky2, pky3, phy1, phy2, phy3, pvy1, pvy2;
    double pvy3, pvy4, rby1, rby2, rby3, rcy1, rey1, rey2;
    double rhy1, rhy2, rvy1, rvy2, rvy3, rvy4, rvy5, rvy6;
    double pty1, pty2;
    /* [rolling] */
    double qsy1, qsy2, qsy3, qsy4;
    /* [aligning] */
    double qbz1, qbz2, qbz3, qbz4, qbz5, qbz9, qbz10, qcz1;
    double qdz1, qdz2, qdz3, qdz4, qdz6, qdz7, qdz8, qdz9;
    double qez1, qez2, qez3, qez4, qez5, qhz1, qhz2, qhz3;
    double qhz4, ssz1, ssz2, ssz3, ssz4, qtz1, mbelt;
    /* derived at load, not serialised: tan of the slip-angle limits */
    double tan_alpmin, tan_alpmax;
} rs_tire_params;

/* Parses .tir text. name is used in messages ("file.tir:123: ..."). On error
 * returns RS_ERR_PARSE/RS_ERR_RANGE/RS_ERR_MISSING with a message naming the
 * line (and key) in err. */
rs_status rs_tir_parse(const char *text, size_t len, const char *name, rs_tire_params *out,
                       char *err, size_t err_len);

/* Reads and parses a .tir file. */
rs_status rs_tir_load(const char *path, rs_tire_params *out, char *err, size_t err_len);

/* Canonical serialisation (every coefficient as f64, fixed order) for the
 * car parameter block, and its inverse (which re-validates and re-derives). */
void rs_tire_params_write(const rs_tire_params *p, rs_writer *w);
rs_status rs_tire_params_read(rs_reader *r, rs_tire_params *out, char *err, size_t err_len);

typedef enum rs_tire_mode {
    /* MFeval steady-state rules: below VXLOW the slips are reduced and the
     * offsets faded, as MFeval does (used by `racesim tire` and the
     * reference-value test). */
    RS_TIRE_STEADY = 0,
    /* The caller passes relaxed (transient) slips that are already well
     * behaved at zero speed; only offsets and My are faded below VXLOW so a
     * parked car feels no force at zero deflection. Used by the car model. */
    RS_TIRE_TRANSIENT = 1
} rs_tire_mode;

typedef struct rs_tire_in {
    double fz_n;      /* vertical load; clamped to [FZMIN, FZMAX] for the formulas, 0 gives 0 */
    double kappa;     /* longitudinal slip; clamped to [KPUMIN, KPUMAX] */
    double tan_alpha; /* alpha* = tan(alpha) sgn(Vx); clamped to tan(ALPMIN..ALPMAX) */
    double gamma_rad; /* camber; clamped to [CAMMIN, CAMMAX] */
    double vx_m_s;    /* longitudinal speed of the wheel centre */
    double omega_rad_s; /* wheel spin, for Re and My (steady: derived from kappa) */
    double grip_scale;  /* surface friction scale multiplying LMUX and LMUY; 1 on asphalt */
    int mode;           /* rs_tire_mode */
    int want_moments;   /* 0 skips Mz (and its trail terms) to save time */
} rs_tire_in;

typedef struct rs_tire_out {
    double fx, fy;        /* combined-slip forces, N */
    double mz;            /* aligning moment, Nm (0 unless want_moments) */
    double my;            /* rolling resistance moment, Nm */
    double mx;            /* overturning moment, Nm */
    double re_m;          /* effective rolling radius */
    double sigma_kappa_m; /* longitudinal relaxation length */
    double sigma_alpha_m; /* lateral relaxation length */
    double kxk;           /* longitudinal slip stiffness Kx_kappa, N */
    double kya;           /* cornering stiffness Ky_alpha, N/rad (negative) */
    double mux, muy;      /* peak friction coefficients */
    double trail_m, mzr;  /* pneumatic trail and residual moment */
    double dfx_dkappa;    /* slope of combined Fx w.r.t. kappa at this point (Gxa held) */
    double dfy_dalpha;    /* slope of combined Fy w.r.t. tan_alpha (Gyk held) */
} rs_tire_out;

/* Evaluates forces and moments. Deterministic, allocation-free, never fails;
 * out-of-range inputs are clamped to the file's limits. */
void rs_tire_eval(const rs_tire_params *p, const rs_tire_in *in, rs_tire_out *out);

#endif
