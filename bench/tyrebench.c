/*
 * tyrebench: what one car's four tyres cost, per evaluation, in each of the
 * ways physics can evaluate them: rs_tire_eval four times (the scalar
 * model), rs_tire_eval4_base (four lanes, SSE2 on x86-64, NEON on aarch64)
 * and, where the CPU has it, rs_tire_eval4_avx2 (what the car step runs on
 * such a CPU).
 *
 * The inputs are the stock C5's tyres under a fixed, seeded spread of the
 * states a race puts them in: loads of 1.5 to 6.5 kN, slip ratios and slip
 * angles up to 0.15, camber up to 0.05 rad, 5 to 70 m/s, and one tyre in 32
 * in the air. As in the car step, one evaluation in four also wants the
 * moments (the tick's first substep). Each pass evaluates every input set
 * once and is timed alone; the median of the passes is reported per
 * evaluation of four tyres. Before timing, every variant's outputs are
 * compared with the scalar model's, bit for bit: a variant that differs
 * fails the bench.
 *
 * One JSON line per variant (docs/PERFORMANCE.md):
 *   {"bench":"tyre","variant":NAME,"sets":N,"passes":P,"median_ns":..,"min_ns":..}
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carparams.h"
#include "racesim/physics.h"
#include "racesim/base/cli.h"
#include "racesim/base/clock.h"
#include "racesim/base/stats.h"
#include "tire4.h"

typedef void (*eval4_fn)(const rs_tire_lanes *p, const rs_tire_in4 *in, int mode,
                         int want_moments, rs_tire_out4 *out);

typedef struct bench {
    const rs_car_params *car;
    const rs_tire_params *tyre[4];
    rs_tire_in4 *in;
    rs_tire_out4 *out;
    uint32_t sets;
} bench;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tyrebench [--sets N] [--passes P] [--warmup W]\n"
            "Times the four tyres of a C5 on N seeded input sets (default 4096): W untimed\n"
            "passes (default 20), then P timed ones (default 200); prints the median ns per\n"
            "evaluation of four tyres for each variant as one JSON line.\n");
}

/* A fixed linear congruential sequence: the same inputs on every machine. */
static double next_unit(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static double spread(uint64_t *s, double lo, double hi) { return lo + (hi - lo) * next_unit(s); }

static void make_inputs(bench *b)
{
    uint64_t s = 20261127u;
    for (uint32_t k = 0; k < b->sets; k++) {
        rs_tire_in4 *in = &b->in[k];
        for (int j = 0; j < 4; j++) {
            double vx = spread(&s, 5.0, 70.0), kappa = spread(&s, -0.15, 0.15);
            in->fz_n[j] = next_unit(&s) < 1.0 / 32.0 ? 0.0 : spread(&s, 1500.0, 6500.0);
            in->kappa[j] = kappa;
            in->tan_alpha[j] = spread(&s, -0.15, 0.15);
            in->gamma_rad[j] = spread(&s, -0.05, 0.05);
            in->vx_m_s[j] = vx;
            in->omega_rad_s[j] = vx * (1.0 + kappa) / 0.33;
            in->grip_scale[j] = 1.0;
        }
    }
}

/* One pass of `fn` (NULL: the scalar model) over every set. */
static void pass(const bench *b, eval4_fn fn)
{
    for (uint32_t k = 0; k < b->sets; k++) {
        int moments = (k & 3u) == 0;
        if (fn) {
            fn(&b->car->tire_lanes, &b->in[k], RS_TIRE_TRANSIENT, moments, &b->out[k]);
            continue;
        }
        const rs_tire_in4 *in = &b->in[k];
        for (int j = 0; j < 4; j++) {
            rs_tire_in one = {in->fz_n[j], in->kappa[j], in->tan_alpha[j], in->gamma_rad[j],
                              in->vx_m_s[j], in->omega_rad_s[j], in->grip_scale[j],
                              RS_TIRE_TRANSIENT, moments};
            rs_tire_out o;
            rs_tire_eval(b->tyre[j], &one, &o);
            /* rs_tire_out4 is rs_tire_out's doubles, field by field */
            double f[sizeof o / sizeof(double)];
            memcpy(f, &o, sizeof f);
            double(*field)[4] = (double(*)[4])(void *)&b->out[k];
            for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
                field[i][j] = f[i];
        }
    }
}

/* Times `fn`; false if its outputs are not the scalar model's bits. */
static bool time_variant(const bench *b, const char *name, eval4_fn fn, const rs_tire_out4 *ref,
                         uint32_t passes, uint32_t warmup, double *ns)
{
    pass(b, fn);
    if (memcmp(b->out, ref, b->sets * sizeof *ref) != 0) {
        rs_fail(NULL, "%s differs from the scalar model", name);
        return false;
    }
    for (uint32_t r = 0; r < warmup + passes; r++) {
        int64_t t0 = rs_clock_ns();
        pass(b, fn);
        int64_t t1 = rs_clock_ns();
        if (r >= warmup)
            ns[r - warmup] = (double)(t1 - t0) / (double)b->sets;
    }
    double med = rs_median(ns, passes); /* sorts ns */
    printf("{\"bench\":\"tyre\",\"variant\":\"%s\",\"sets\":%u,\"passes\":%u,"
           "\"median_ns\":%.1f,\"min_ns\":%.1f}\n",
           name, b->sets, passes, med, ns[0]);
    fflush(stdout);
    return true;
}

int main(int argc, char **argv)
{
    uint32_t sets = 4096, passes = 200, warmup = 20;
    const rs_cli_opt opts[] = {
        {"--sets", &sets, 1, 1u << 20, NULL},
        {"--passes", &passes, 1, 1000000, NULL},
        {"--warmup", &warmup, 0, 1000000, NULL},
    };
    int prc = rs_cli_parse_opts("tyrebench", argc, argv, opts, sizeof opts / sizeof opts[0],
                                usage);
    if (prc >= 0)
        return prc;

    rs_car_params *car = NULL;
    char err[512];
    char path[1024];
    snprintf(path, sizeof path, "%s/cars/c5.json", RS_DATA_DIR);
    if (rs_car_params_load(path, &car, err, sizeof err) != RS_OK)
        return rs_fail(NULL, "%s", err);
    bench b = {.car = car, .sets = sets};
    for (int j = 0; j < 4; j++) /* wheels FL, FR, RL, RR: the front axle's, then the rear's */
        b.tyre[j] = &car->def.axle[j / 2].tire;
    b.in = calloc(sets, sizeof *b.in);
    b.out = calloc(sets, sizeof *b.out);
    rs_tire_out4 *ref = calloc(sets, sizeof *ref);
    double *ns = malloc(passes * sizeof *ns);
    int rc = RS_EXIT_FAIL;
    if (!b.in || !b.out || !ref || !ns) {
        rs_fail(NULL, "out of memory");
        goto done;
    }
    make_inputs(&b);
    pass(&b, NULL);
    memcpy(ref, b.out, sets * sizeof *ref);

    if (!time_variant(&b, "scalar", NULL, ref, passes, warmup, ns) ||
        !time_variant(&b, "lanes_base", rs_tire_eval4_base, ref, passes, warmup, ns))
        goto done;
#if RS_TIRE4_AVX2
    if (__builtin_cpu_supports("avx2") &&
        !time_variant(&b, "lanes_avx2", rs_tire_eval4_avx2, ref, passes, warmup, ns))
        goto done;
#endif
    rc = RS_EXIT_OK;
done:
    free(ns);
    free(ref);
    free(b.out);
    free(b.in);
    rs_car_params_destroy(car);
    return rc;
}
