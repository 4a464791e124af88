/*
 * rs_tire_eval4 against rs_tire_eval, bit for bit.
 *
 * Each lane of a four-tyre evaluation must round exactly as the scalar
 * evaluation of that tyre does, or a car would step differently depending
 * on whether its wheels went through the vector code. The tests feed
 * hundreds of thousands of random inputs, four lanes at a time, drawn so
 * that every branch of the formula is taken in some lanes and not in
 * others of the same call: tyres in the air, loads beyond FZMAX and below
 * FZMIN, slips at zero, inside and beyond the fit's ranges, NaN inputs,
 * standstill and reversing, both modes, with and without the aligning
 * moment. The tyres are the shipped cars' four, the two ../shared files
 * when present, and variants of them with the coefficients that select
 * tire.c's fast paths (C = 1, E = 0, PKX3, PTX3, RVY5, DREFF, QEZ4) moved
 * off those values, so the slow paths run beside the fast ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carparams.h"
#include "test_fixtures.h"
#include "tire.h"
#include "tire4.h"

#define MAX_TYRES 64

typedef struct pool {
    rs_tire_params tyre[MAX_TYRES];
    int n;
} pool;

/* A small fixed-seed generator (xorshift64*), so failures reproduce. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng_u64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static double rng_unit(void) { return (double)(rng_u64() >> 11) * 0x1p-53; }
static double rng_range(double lo, double hi) { return lo + (hi - lo) * rng_unit(); }
static int rng_below(int n) { return (int)(rng_u64() % (uint64_t)n); }

static void add(pool *pl, const rs_tire_params *t)
{
    if (pl->n < MAX_TYRES)
        pl->tyre[pl->n++] = *t;
}

/* The same tyre with the coefficients behind tire.c's fast paths moved off
 * their special values, one variant per kind of change and one with all. */
static void add_variants(pool *pl, const rs_tire_params *base)
{
    rs_tire_params v = *base;
    v.rcx1 = 1.05, v.rex1 = 0.2, v.rcy1 = 0.95, v.rey1 = -0.1;
    add(pl, &v);
    v = *base;
    v.pkx3 = 0.2, v.ptx3 = -0.2;
    add(pl, &v);
    v.ptx3 = 0.1;
    add(pl, &v);
    v = *base;
    v.rvy5 = 1.9, v.rvy1 = 0.05, v.rvy6 = 10.0, v.dreff = 0.0;
    add(pl, &v);
    v = *base;
    v.qez4 = 0.2, v.qez5 = -0.3, v.qez1 = -0.5, v.qdz8 = 0.0, v.qdz9 = 0.0, v.qdz6 = 0.0,
    v.qdz7 = 0.0, v.lres = 1.0, v.qcz1 = 1.0;
    add(pl, &v);
    v = *base;
    v.rcx1 = 1.05, v.rex1 = 0.2, v.rcy1 = 0.95, v.rey1 = -0.1, v.pkx3 = -0.3, v.ptx3 = 0.4,
    v.rvy5 = 2.1, v.qez4 = 0.3, v.pex1 = 0.5, v.pey1 = -0.5, v.rhx1 = 0.01, v.rhy1 = 0.0;
    add(pl, &v);
}

static void add_shared(pool *pl, const char *rel)
{
    const char *dir = getenv("RS_SHARED_DIR");
    char path[1024], err[256];
    rs_tire_params t;
    if (!dir || !*dir)
        return;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    if (rs_tir_load(path, &t, err, sizeof err) == RS_OK) {
        add(pl, &t);
        add_variants(pl, &t);
    }
}

static int pool_setup(void **state)
{
    static pool pl;
    const char *cars[] = {"c5", "formula"};
    for (size_t c = 0; c < 2; c++) {
        rs_car_params *car = fixture_car(cars[c]);
        for (int a = 0; a < 2; a++) {
            add(&pl, &car->def.axle[a].tire);
            add_variants(&pl, &car->def.axle[a].tire);
        }
        rs_car_params_destroy(car);
    }
    add_shared(&pl, "data/tyres/MFeval_MagicFormula52_Parameters.tir");
    add_shared(&pl, "data/tyres/Chrono_mf_185_80R14_PAC2002.tir");
    *state = &pl;
    return 0;
}

/* One value from a mixture: mostly the physical range, sometimes an edge
 * (0, -0, exactly a limit, a NaN, far beyond). */
static double pick(double lo, double hi, double edge1, double edge2)
{
    switch (rng_below(16)) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return edge1;
    case 3: return edge2;
    case 4: return __builtin_nan("");
    case 5: return rng_range(lo, hi) * 100.0;
    case 6: return rng_range(lo, hi) * 1e-3;
    default: return rng_range(lo, hi);
    }
}

static rs_tire_in random_input(const rs_tire_params *t)
{
    rs_tire_in in;
    memset(&in, 0, sizeof in);
    double fz = pick(-500.0, 2.5 * t->fnomin, t->fzmin, t->fzmax);
    if (rng_below(8) == 0)
        fz = rng_range(0.0, t->fzmin); /* the low-load range */
    in.fz_n = fz;
    in.kappa = pick(-0.5, 0.5, t->kpumin, t->kpumax);
    in.tan_alpha = pick(-0.6, 0.6, t->tan_alpmin, t->tan_alpmax);
    in.gamma_rad = pick(-0.08, 0.08, t->cammin, t->cammax);
    double vx = pick(-10.0, 90.0, t->vxlow, -t->vxlow);
    if (rng_below(6) == 0)
        vx = rng_range(-2.0 * t->vxlow, 2.0 * t->vxlow); /* the low-speed fades */
    in.vx_m_s = vx;
    in.omega_rad_s = pick(-30.0, 300.0, t->vxlow / 0.3, -t->vxlow / 0.3);
    in.grip_scale = pick(0.3, 1.3, 1e-3, 2e3);
    return in;
}

static int same_bits(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

static const struct {
    const char *name;
    size_t offset;
} OUTPUTS[] = {
#define F(f) {#f, offsetof(rs_tire_out, f)}
    F(fx),  F(fy),    F(mz),          F(my),         F(mx),  F(re_m),
    F(sigma_kappa_m), F(sigma_alpha_m), F(kxk),      F(kya), F(mux),
    F(muy), F(trail_m), F(mzr),       F(dfx_dkappa), F(dfy_dalpha),
#undef F
};

static double field(const rs_tire_out *o, size_t off)
{
    double v;
    memcpy(&v, (const char *)o + off, sizeof v);
    return v;
}

typedef void (*eval4_fn)(const rs_tire_lanes *, const rs_tire_in4 *, int, int, rs_tire_out4 *);

/* Calls fn on four tyres' inputs and gives its outputs tyre by tyre:
 * rs_tire_out4 holds rs_tire_out's fields in its order, four lanes each. */
static void run_variant(eval4_fn fn, const rs_tire_lanes *lanes, const rs_tire_in in[4],
                        int mode, int moments, rs_tire_out out[4])
{
    rs_tire_in4 in4;
    rs_tire_out4 out4;
    for (int j = 0; j < 4; j++) {
        in4.fz_n[j] = in[j].fz_n;
        in4.kappa[j] = in[j].kappa;
        in4.tan_alpha[j] = in[j].tan_alpha;
        in4.gamma_rad[j] = in[j].gamma_rad;
        in4.vx_m_s[j] = in[j].vx_m_s;
        in4.omega_rad_s[j] = in[j].omega_rad_s;
        in4.grip_scale[j] = in[j].grip_scale;
    }
    memset(&out4, 0x5a, sizeof out4); /* every output must be written */
    fn(lanes, &in4, mode, moments, &out4);
    for (int j = 0; j < 4; j++)
        for (size_t k = 0; k < sizeof OUTPUTS / sizeof OUTPUTS[0]; k++)
            memcpy((char *)&out[j] + OUTPUTS[k].offset,
                   (const char *)&out4 + 4 * OUTPUTS[k].offset + (size_t)j * sizeof(double),
                   sizeof(double));
}

/* The variants this build and CPU can run: the dispatcher, the baseline
 * copy, and the AVX2 copy where there is one and the CPU has AVX2. */
static int variants(eval4_fn fn[3])
{
    int n = 0;
    fn[n++] = rs_tire_eval4;
    fn[n++] = rs_tire_eval4_base;
#if RS_TIRE4_AVX2
    if (__builtin_cpu_supports("avx2"))
        fn[n++] = rs_tire_eval4_avx2;
#endif
    return n;
}

static void compare(const rs_tire_out vec[4], const rs_tire_out ref[4], const rs_tire_in in[4],
                    int variant);

/* Evaluates one random call both ways; fails naming the lane, the output
 * and the input on the first differing bit. */
static void check_call(const pool *pl, int mode, int moments, int same_tyre)
{
    const rs_tire_params *p[4];
    rs_tire_in in[4];
    rs_tire_out vec[4], ref[4];
    int first = rng_below(pl->n);
    for (int j = 0; j < 4; j++) {
        p[j] = &pl->tyre[same_tyre ? first : rng_below(pl->n)];
        in[j] = random_input(p[j]);
        in[j].mode = mode;
        in[j].want_moments = moments;
        rs_tire_eval(p[j], &in[j], &ref[j]);
    }
    rs_tire_lanes lanes;
    rs_tire_lanes_set(&lanes, p);
    eval4_fn fn[3];
    int n = variants(fn);
    for (int v = 0; v < n; v++) {
        run_variant(fn[v], &lanes, in, mode, moments, vec);
        compare(vec, ref, in, v);
    }
}

static void compare(const rs_tire_out vec[4], const rs_tire_out ref[4], const rs_tire_in in[4],
                    int variant)
{
    static const char *const names[] = {"rs_tire_eval4", "base", "avx2"};
    for (int j = 0; j < 4; j++) {
        for (size_t k = 0; k < sizeof OUTPUTS / sizeof OUTPUTS[0]; k++) {
            double a = field(&vec[j], OUTPUTS[k].offset), b = field(&ref[j], OUTPUTS[k].offset);
            if (!same_bits(a, b))
                fail_msg("%s lane %d %s: vector %a, scalar %a (mode %d, moments %d; fz %a "
                         "kappa %a tan_alpha %a gamma %a vx %a omega %a grip %a)",
                         names[variant], j, OUTPUTS[k].name, a, b, in[j].mode,
                         in[j].want_moments, in[j].fz_n, in[j].kappa, in[j].tan_alpha,
                         in[j].gamma_rad, in[j].vx_m_s, in[j].omega_rad_s, in[j].grip_scale);
        }
    }
}

#define CALLS 40000

static void test_transient_mixed_tyres(void **state)
{
    for (int i = 0; i < CALLS; i++)
        check_call(*state, RS_TIRE_TRANSIENT, i & 1, 0);
}

static void test_transient_one_tyre(void **state)
{
    for (int i = 0; i < CALLS; i++)
        check_call(*state, RS_TIRE_TRANSIENT, i & 1, 1);
}

static void test_steady_mixed_tyres(void **state)
{
    for (int i = 0; i < CALLS; i++)
        check_call(*state, RS_TIRE_STEADY, i & 1, 0);
}

/* Every lane on the same path at once (all in the air, all at zero slip,
 * all rolling freely), where the code skips work for the whole vector. */
static void test_uniform_paths(void **state)
{
    const pool *pl = *state;
    for (int t = 0; t < pl->n; t++) {
        const rs_tire_params *p[4] = {&pl->tyre[t], &pl->tyre[t], &pl->tyre[t], &pl->tyre[t]};
        rs_tire_lanes lanes;
        rs_tire_lanes_set(&lanes, p);
        for (int c = 0; c < 3; c++) {
            rs_tire_in in[4];
            rs_tire_out vec[4], ref[4];
            for (int j = 0; j < 4; j++) {
                memset(&in[j], 0, sizeof in[j]);
                in[j].fz_n = c == 0 ? -1.0 : 3000.0 + 100.0 * j;
                in[j].vx_m_s = c == 2 ? 0.0 : 30.0;
                in[j].omega_rad_s = in[j].vx_m_s / 0.3;
                in[j].grip_scale = 1.0;
                in[j].mode = RS_TIRE_TRANSIENT;
                in[j].want_moments = 1;
                rs_tire_eval(p[j], &in[j], &ref[j]);
            }
            eval4_fn fn[3];
            int n = variants(fn);
            for (int v = 0; v < n; v++) {
                run_variant(fn[v], &lanes, in, RS_TIRE_TRANSIENT, 1, vec);
                compare(vec, ref, in, v);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transient_mixed_tyres),
        cmocka_unit_test(test_transient_one_tyre),
        cmocka_unit_test(test_steady_mixed_tyres),
        cmocka_unit_test(test_uniform_paths),
    };
    return cmocka_run_group_tests(tests, pool_setup, NULL);
}
