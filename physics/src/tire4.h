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

/* out[j] = rs_tire_eval(p[j], &in[j]) for j = 0..3, bit for bit, where every
 * in[j] has the given mode and want_moments (their own fields are ignored). */
void rs_tire_eval4(const rs_tire_lanes *p, const rs_tire_in in[4], int mode, int want_moments,
                   rs_tire_out out[4]);

/* The variants rs_tire_eval4 chooses between, for tests that compare them:
 * the target's baseline instructions (SSE2 on x86-64), and on x86-64 builds
 * with RS_TIRE4_AVX2 (CMake option RS_AVX2) an AVX2 copy used where the CPU
 * has it. */
void rs_tire_eval4_base(const rs_tire_lanes *p, const rs_tire_in in[4], int mode,
                        int want_moments, rs_tire_out out[4]);
#if RS_TIRE4_AVX2
void rs_tire_eval4_avx2(const rs_tire_lanes *p, const rs_tire_in in[4], int mode,
                        int want_moments, rs_tire_out out[4]);
#endif

#endif
