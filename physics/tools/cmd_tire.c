/*
 * `racesim tire`: evaluates a Magic Formula 5.2 tyre (.tir file) in steady
 * state, at one operating point (one JSON object) or along a sweep of one
 * variable (CSV for plotting). This is the tyre model exactly as the car uses
 * it (rs_tire_eval), in its MFeval-compatible steady-state mode, so it can be
 * compared with MFeval's reference values point by point.
 *
 * Axes ISO-W (x along the wheel heading, y left, z up), SI units. The slip
 * angle is given in radians and enters the formulas as tan(alpha) (the
 * book's alpha* = tan(alpha) sgn(Vx)); a positive slip angle gives a
 * negative Fy. tan(alpha) comes from detmath, so the output is the same on
 * every machine.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "detmath.h"
#include "tire.h"

#define CMD "tire"

static void help(void)
{
    printf(
        "usage: racesim tire --tir FILE --fz N --kappa K --alpha RAD [--gamma RAD] [--vx MPS]\n"
        "       racesim tire --tir FILE --sweep kappa|alpha|gamma|fz [--fz N] [--kappa K]\n"
        "                    [--alpha RAD] [--gamma RAD] [--vx MPS] [--from A --to B]\n"
        "                    [--steps N] [--out FILE.csv]\n"
        "\n"
        "Steady-state Magic Formula 5.2 forces and moments (rs_tire_eval, RS_TIRE_STEADY),\n"
        "ISO-W axes, SI units. alpha is the slip angle in radians and enters as tan(alpha).\n"
        "\n"
        "  --tir FILE    TNO .tir property file (PAC2002 / MF5.2)\n"
        "  --fz N        vertical load, newtons (required for a point; sweep default FNOMIN)\n"
        "  --kappa K     longitudinal slip ratio, -1 = locked (default 0)\n"
        "  --alpha RAD   slip angle, radians (default 0)\n"
        "  --gamma RAD   camber (inclination) angle, radians (default 0)\n"
        "  --vx MPS      forward speed of the wheel centre, m/s (default LONGVL of the file)\n"
        "  --sweep VAR   sweep kappa (default -0.5..0.5), alpha (-0.3..0.3 rad),\n"
        "                gamma (-0.1..0.1 rad) or fz (0.25..2 x FNOMIN); other variables fixed\n"
        "  --from A --to B --steps N   sweep range and number of points (default 101)\n"
        "  --out FILE    write the sweep CSV there instead of stdout\n"
        "\n"
        "Point output: one JSON object {fz, kappa, alpha, gamma, vx, fx, fy, mz, my, mx,\n"
        "re_m, mux, muy, kxk, kya}. Sweep output: CSV with the header\n"
        "fz,kappa,alpha,gamma,vx,fx,fy,mz,my\n");
}

typedef struct point {
    double fz, kappa, alpha, gamma, vx;
} point;

static void eval(const rs_tire_params *p, const point *pt, rs_tire_out *out)
{
    rs_tire_in in;
    memset(&in, 0, sizeof in);
    in.fz_n = pt->fz;
    in.kappa = pt->kappa;
    in.tan_alpha = rs_tan(pt->alpha); /* detmath: the same bits on every machine */
    in.gamma_rad = pt->gamma;
    in.vx_m_s = pt->vx;
    /* Steady state derives the spin from kappa; pass the consistent value anyway. */
    in.omega_rad_s = p->unloaded_radius > 0.0 ? pt->vx * (1.0 + pt->kappa) / p->unloaded_radius : 0.0;
    in.grip_scale = 1.0;
    in.mode = RS_TIRE_STEADY;
    in.want_moments = 1;
    rs_tire_eval(p, &in, out);
}

static double *sweep_var(point *pt, const char *name)
{
    if (strcmp(name, "kappa") == 0)
        return &pt->kappa;
    if (strcmp(name, "alpha") == 0)
        return &pt->alpha;
    if (strcmp(name, "gamma") == 0)
        return &pt->gamma;
    if (strcmp(name, "fz") == 0)
        return &pt->fz;
    return NULL;
}

int rs_cmd_tire(int argc, char **argv)
{
    const char *tir = NULL, *sweep = NULL, *out_path = NULL;
    point pt = {0.0, 0.0, 0.0, 0.0, 0.0};
    int have_fz = 0, have_vx = 0, have_from = 0, have_to = 0, have_point_slip = 0;
    double from = 0.0, to = 0.0;
    uint32_t steps = 101;
    int rc;

    static const char *const options[] = {"--tir",   "--sweep", "--out",  "--fz",   "--kappa",
                                          "--alpha", "--gamma", "--vx",   "--from", "--to",
                                          "--steps", NULL};
    rs_cmd_args args = {CMD, help, options, NULL, 0, argc, argv, 0, 0};
    const char *a, *v;
    while ((rc = rs_cmd_next(&args, &a, &v)) == RS_CMD_MORE) {
        if (strcmp(a, "--tir") == 0)
            tir = v;
        else if (strcmp(a, "--sweep") == 0)
            sweep = v;
        else if (strcmp(a, "--out") == 0)
            out_path = v;
        else if (strcmp(a, "--fz") == 0) {
            if ((rc = rs_parse_double(CMD, a, v, &pt.fz)))
                return rc;
            have_fz = 1;
        } else if (strcmp(a, "--kappa") == 0) {
            if ((rc = rs_parse_double(CMD, a, v, &pt.kappa)))
                return rc;
            have_point_slip |= 1;
        } else if (strcmp(a, "--alpha") == 0) {
            if ((rc = rs_parse_double(CMD, a, v, &pt.alpha)))
                return rc;
            have_point_slip |= 2;
        } else if (strcmp(a, "--gamma") == 0) {
            if ((rc = rs_parse_double(CMD, a, v, &pt.gamma)))
                return rc;
        } else if (strcmp(a, "--vx") == 0) {
            if ((rc = rs_parse_double(CMD, a, v, &pt.vx)))
                return rc;
            have_vx = 1;
        } else if (strcmp(a, "--from") == 0) {
            if ((rc = rs_parse_double(CMD, a, v, &from)))
                return rc;
            have_from = 1;
        } else if (strcmp(a, "--to") == 0) {
            if ((rc = rs_parse_double(CMD, a, v, &to)))
                return rc;
            have_to = 1;
        } else { /* --steps */
            if ((rc = rs_parse_u32(CMD, a, v, 2, 1000000, &steps)))
                return rc;
        }
    }
    if (rc != RS_CMD_END)
        return rc;

    if (!tir)
        return rs_usage_error(CMD, "--tir FILE is required");
    if (pt.alpha <= -1.5 || pt.alpha >= 1.5)
        return rs_usage_error(CMD, "--alpha %g rad is outside (-1.5, 1.5)", pt.alpha);
    if (have_fz && pt.fz < 0.0)
        return rs_usage_error(CMD, "--fz must not be negative");
    if (!sweep) {
        if (!have_fz || have_point_slip != 3)
            return rs_usage_error(CMD, "a point needs --fz, --kappa and --alpha (or use --sweep)");
        if (have_from || have_to || out_path)
            return rs_usage_error(CMD, "--from/--to/--out only apply to --sweep");
    } else {
        point probe = pt;
        if (!sweep_var(&probe, sweep))
            return rs_usage_error(CMD, "--sweep must be kappa, alpha, gamma or fz, not '%s'", sweep);
        if (have_from != have_to)
            return rs_usage_error(CMD, "--from and --to go together");
    }

    rs_tire_params p;
    char err[256];
    rs_status st = rs_tir_load(tir, &p, err, sizeof err);
    if (st != RS_OK)
        return rs_fail(CMD, "%s (%s)", err, rs_status_str(st));
    if (!have_vx)
        pt.vx = p.longvl > 0.0 ? p.longvl : 16.7;

    rs_tire_out o;
    if (!sweep) {
        eval(&p, &pt, &o);
        printf("{\"fz\":%.10g,\"kappa\":%.10g,\"alpha\":%.10g,\"gamma\":%.10g,\"vx\":%.10g,"
               "\"fx\":%.10g,\"fy\":%.10g,\"mz\":%.10g,\"my\":%.10g,\"mx\":%.10g,"
               "\"re_m\":%.10g,\"mux\":%.10g,\"muy\":%.10g,\"kxk\":%.10g,\"kya\":%.10g}\n",
               pt.fz, pt.kappa, pt.alpha, pt.gamma, pt.vx, o.fx, o.fy, o.mz, o.my, o.mx, o.re_m,
               o.mux, o.muy, o.kxk, o.kya);
        return RS_EXIT_OK;
    }

    if (!have_fz)
        pt.fz = p.fnomin;
    if (!have_from) {
        if (strcmp(sweep, "kappa") == 0)
            from = -0.5, to = 0.5;
        else if (strcmp(sweep, "alpha") == 0)
            from = -0.3, to = 0.3;
        else if (strcmp(sweep, "gamma") == 0)
            from = -0.1, to = 0.1;
        else
            from = 0.25 * p.fnomin, to = 2.0 * p.fnomin;
    }
    if (strcmp(sweep, "alpha") == 0 && (from <= -1.5 || from >= 1.5 || to <= -1.5 || to >= 1.5))
        return rs_usage_error(CMD, "alpha sweep range must stay inside (-1.5, 1.5) rad");
    if (strcmp(sweep, "fz") == 0 && (from < 0.0 || to < 0.0))
        return rs_usage_error(CMD, "an fz sweep must not go negative");

    FILE *f = stdout;
    if (out_path && !(f = fopen(out_path, "w")))
        return rs_fail(CMD, "cannot write %s: %s", out_path, strerror(errno));
    fprintf(f, "fz,kappa,alpha,gamma,vx,fx,fy,mz,my\n");
    double *var = sweep_var(&pt, sweep);
    for (uint32_t k = 0; k < steps; k++) {
        *var = from + (to - from) * (double)k / (double)(steps - 1);
        eval(&p, &pt, &o);
        fprintf(f, "%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g\n", pt.fz, pt.kappa,
                pt.alpha, pt.gamma, pt.vx, o.fx, o.fy, o.mz, o.my);
    }
    if (f != stdout && fclose(f) != 0)
        return rs_fail(CMD, "error writing %s", out_path);
    if (f == stdout && fflush(stdout) != 0)
        return rs_fail(CMD, "error writing stdout");
    return RS_EXIT_OK;
}
