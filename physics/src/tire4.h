/*
 * The Magic Formula for a car's four tyres at once: rs_tire_eval in four
 * lanes (v4.h), one per wheel, each lane bit-identical to rs_tire_eval on
 * that wheel's parameters and inputs.
 *
 * A car's wheels carry two tyres (front and rear), so each coefficient is
 * held per lane: rs_tire_lanes is rs_tire_params transposed, every field as
 * four doubles, built once when a car's parameters are made.
 */
#ifndef RS_TIRE4_H
#define RS_TIRE4_H

#include "tire.h"

/* rs_tire_params is nothing but doubles: field k of lane j is v[k][j]. */
#define RS_TIRE_NPARAMS (sizeof(rs_tire_params) / sizeof(double))

typedef struct rs_tire_lanes {
    double v[RS_TIRE_NPARAMS][4];
} rs_tire_lanes;

/* Lane j gets *p[j]. */
void rs_tire_lanes_set(rs_tire_lanes *out, const rs_tire_params *const p[4]);

/* rs_tire_in's numbers for four tyres, field by field: tyre j's load is
 * fz_n[j]. The car step keeps its wheels in lanes, so the tyres take and
 * give them that way, with nothing to transpose. */
typedef struct rs_tire_in4 {
    double fz_n[4], kappa[4], tan_alpha[4], gamma_rad[4], vx_m_s[4], omega_rad_s[4];
    double grip_scale[4];
} rs_tire_in4;

/* rs_tire_out for four tyres, field by field, in rs_tire_out's order. */
typedef struct rs_tire_out4 {
    double fx[4], fy[4], mz[4], my[4], mx[4], re_m[4], sigma_kappa_m[4], sigma_alpha_m[4];
    double kxk[4], kya[4], mux[4], muy[4], trail_m[4], mzr[4], dfx_dkappa[4], dfy_dalpha[4];
} rs_tire_out4;

/* Tyre j of out is rs_tire_eval(p[j], in_j) for j = 0..3, bit for bit,
 * where in_j holds tyre j's numbers of in and the given mode and
 * want_moments. */
void rs_tire_eval4(const rs_tire_lanes *p, const rs_tire_in4 *in, int mode, int want_moments,
                   rs_tire_out4 *out);

/* The variants rs_tire_eval4 chooses between, for tests that compare them:
 * the target's baseline instructions (SSE2 on x86-64), and on x86-64 builds
 * with RS_TIRE4_AVX2 (CMake option RS_AVX2) an AVX2 copy used where the CPU
 * has it. */
void rs_tire_eval4_base(const rs_tire_lanes *p, const rs_tire_in4 *in, int mode,
                        int want_moments, rs_tire_out4 *out);
#if RS_TIRE4_AVX2
void rs_tire_eval4_avx2(const rs_tire_lanes *p, const rs_tire_in4 *in, int mode,
                        int want_moments, rs_tire_out4 *out);
#endif

#endif
