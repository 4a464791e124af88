/*
 * Pacejka Magic Formula 5.2 (PAC2002) tyre: parameters read from TNO .tir
 * property files and the steady-state force and moment evaluation.
 *
 * Axes are ISO-W (x forward along the wheel heading, y left, z up), units SI:
 * kappa = -1 is a locked wheel, tan_alpha = Vsy/|Vx| (positive slip angle
 * gives negative Fy), My is negative when rolling forward. Equations follow
 * Pacejka, Tire and Vehicle Dynamics, 3rd ed. (4.E1-4.E78) as MFeval 4.0
 * evaluates them; docs/TYRES.md writes them out as this code implements them.
 */
#ifndef RS_TIRE_H
#define RS_TIRE_H

#include <stddef.h>

#include "bytes.h"
#include "racesim/physics.h"

/* Every coefficient, in SI units after [UNITS] conversion. Fields absent from
 * a file take MF5.2 defaults (scaling factors 1, the rest 0, except FITTYP 6,
 * USE_MODE 4, VXLOW 1 m/s, LONGVL 16.7 m/s, KPU -1.5..1.5, ALP and CAM
 * -pi/2..pi/2, FZMIN 0, FZMAX 3 x FNOMIN: the table in tir.c). Required:
 * UNLOADED_RADIUS, FNOMIN, VERTICAL_STIFFNESS, PCX1, PDX1, PKX1, PCY1, PDY1,
 * PKY1. The names are the .tir keys in lower case; the field order is the
 * canonical byte order. */
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
    /* derived at load (and by rs_tire_params_read), not serialised: tan of
     * ALPMIN/ALPMAX, each first clamped to +-(pi/2 - 0.01) */
    double tan_alpmin, tan_alpmax;
} rs_tire_params;

/* Parses .tir text (MF5.2 / PAC2002: FITTYP 5, 6 or absent). name is used in
 * messages ("file.tir:123: PDX1: expected a number"). Keys are
 * case-insensitive; unknown keys and sections are ignored; [UNITS] converts
 * the dimensional keys to SI. Copied; nothing is kept. On error *out is
 * untouched and the status is RS_ERR_PARSE (syntax, non-number, duplicate
 * key, unknown unit), RS_ERR_MISSING (a required key) or RS_ERR_RANGE (FITTYP
 * not MF5.2, or a value outside its legal range), with a message naming the
 * line and key in err. */
rs_status rs_tir_parse(const char *text, size_t len, const char *name, rs_tire_params *out,
                       char *err, size_t err_len);

/* Reads and parses a .tir file; messages name the path as given. On error
 * also RS_ERR_IO (cannot open or read) or RS_ERR_NOMEM. */
rs_status rs_tir_load(const char *path, rs_tire_params *out, char *err, size_t err_len);

/* Canonical serialisation for the car parameter block: the u32 tag "TIR1",
 * then every coefficient as f64 in the field order of rs_tire_params (derived
 * fields excluded). Never fails (the writer's flags report overflow). The
 * reader re-validates and re-derives: RS_ERR_BUFFER if truncated or
 * non-finite, RS_ERR_FORMAT if the tag differs, RS_ERR_RANGE as the parser. */
void rs_tire_params_write(const rs_tire_params *p, rs_writer *w);
rs_status rs_tire_params_read(rs_reader *r, rs_tire_params *out, char *err, size_t err_len);

typedef enum rs_tire_mode {
    /* MFeval steady-state rules: below VXLOW the slips are reduced and the
     * offsets faded, as MFeval does (used by `racesim tire` and the
     * reference-value test). */
    RS_TIRE_STEADY = 0,
    /* The caller passes relaxed (transient) slips that are already well
     * behaved at zero speed; only the offsets (SHx SVx SHy SVy SVyk, and the
     * trail and residual moment of Mz) are faded below VXLOW, so a parked car
     * feels exactly zero force at zero deflection and a spring force (slip
     * stiffness x deflection) otherwise. My fades with the rolling speed
     * omega Re. Used by the car model. */
    RS_TIRE_TRANSIENT = 1
} rs_tire_mode;

/* Slip conventions (the same in both directions of travel, see TYRES.md):
 * kappa = (omega Re - Vx)/|Vx| and tan_alpha = Vsy/|Vx| in steady state, so
 * Fx has the sign of kappa and Fy the opposite sign of tan_alpha whichever
 * way the wheel rolls. For Vx > 0 these are MFeval's kappa and
 * alpha* = tan(alpha) sgn(Vx); unlike MFeval the tyre is not mirrored for
 * Vx < 0 (only its small asymmetric offsets would differ). */
typedef struct rs_tire_in {
    double fz_n;      /* vertical load; <= 0 (or NaN) gives zero forces and moments (in the
                         air); clamped to FZMAX; below FZMIN the forces fade to 0 with Fz as
                         the formula does and only the moments hold FZMIN (as MFeval) */
    double kappa;     /* longitudinal slip; clamped to [KPUMIN, KPUMAX] */
    double tan_alpha; /* lateral slip, tan of the slip angle; clamped to tan(ALPMIN..ALPMAX) */
    double gamma_rad; /* inclination (camber), ISO-W; clamped to [CAMMIN, CAMMAX] */
    double vx_m_s;    /* longitudinal speed of the wheel centre (sign = direction) */
    double omega_rad_s; /* wheel spin, for My in transient mode (steady: Vx + kappa |Vx|
                           stands for omega Re, as MFeval) */
    double grip_scale;  /* surface friction scale multiplying LMUX and LMUY; 1 on asphalt;
                           held at 0.001 or more */
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
    double dfx_dkappa;    /* slope of combined Fx w.r.t. the input kappa at this point, Gxa
                             held (> 0 before the peak; 0 where kappa is clamped) */
    double dfy_dalpha;    /* slope of combined Fy w.r.t. the input tan_alpha, Gyk held
                             (< 0 before the peak; 0 where clamped) */
} rs_tire_out;

/* Evaluates forces and moments. Deterministic, allocation-free, never fails;
 * out-of-range inputs are clamped to the file's limits, NaN slips count as 0.
 * Every output is finite for finite parameters. */
void rs_tire_eval(const rs_tire_params *p, const rs_tire_in *in, rs_tire_out *out);

#endif
