/*
 * Tests of the .tir parser (tir.c) and the MF5.2 evaluation (tire.c).
 *
 * The reference test replays MFeval 4.0's own output for its sample file
 * (../shared/data/tyres/reference_values), so a formula slip anywhere in
 * tire.c shows up as a force error; the other tests pin the parser's error
 * messages, unit conversion, the canonical bytes, the slopes the vehicle
 * model relies on, the transient (parked-car) behaviour and the shipped
 * tyre files' intended grip. Tests that need ../shared skip when it is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "test_assert.h"
#include "test_fixtures.h"
#include "test_table.h"
#include "tire.h"

/* ----------------------------------------------------------------- helpers */

#define MFEVAL_TIR "data/tyres/MFeval_MagicFormula52_Parameters.tir"
#define CHRONO_TIR "data/tyres/Chrono_mf_185_80R14_PAC2002.tir"
#define MFEVAL_REF "data/tyres/reference_values/ref_MFeval52_useMode121.csv"

/* Loads ../shared/REL (the test is skipped without it). */
static void load_shared_tir(const char *rel, rs_tire_params *p)
{
    char path[1024], err[256];
    fixture_shared_file(path, sizeof path, rel);
    rs_status st = rs_tir_load(path, p, err, sizeof err);
    if (st != RS_OK)
        fail_msg("%s", err);
}

static rs_tire_in make_in(double fz, double kappa, double tan_alpha, double gamma, double vx)
{
    rs_tire_in in;
    memset(&in, 0, sizeof in);
    in.fz_n = fz;
    in.kappa = kappa;
    in.tan_alpha = tan_alpha;
    in.gamma_rad = gamma;
    in.vx_m_s = vx;
    in.omega_rad_s = vx / 0.3;
    in.grip_scale = 1.0;
    in.mode = RS_TIRE_STEADY;
    in.want_moments = 1;
    return in;
}

static int is_finite(double x) { return x == x && x - x == 0.0; }

/* The lateral coefficients that end both sample files below (dimensionless:
 * the same in any units). */
#define MINI_TIR_LATERAL \
    "[LATERAL_COEFFICIENTS]\n" \
    "PCY1 = 1.35\n"            \
    "PDY1 = 1.0\n"             \
    "PKY1 = -20\n"             \
    "PKY2 = 2\n"

/* A small, complete MF5.2 file in SI units, used by the parser tests. The
 * same tyre appears in mm / kN / deg further down. */
static const char *const mini_tir =
    "[MDI_HEADER]\n"
    "FILE_TYPE = 'tir'\n"
    "[UNITS]\n"
    "LENGTH = 'meter'\n"
    "FORCE = 'newton'\n"
    "ANGLE = 'radians'\n"
    "MASS = 'kg'\n"
    "TIME = 'second'\n"
    "[MODEL]\n"
    "FITTYP = 6 $ Magic Formula 5.2\n"
    "VXLOW = 1\n"
    "LONGVL = 16.7\n"
    "[DIMENSION]\n"
    "UNLOADED_RADIUS = 0.32\n"
    "WIDTH = 0.245\n"
    "[SHAPE]\n"
    "{radial width}\n"
    " 1.0 0.0\n"
    " 0.9 1.0\n"
    "[VERTICAL]\n"
    "VERTICAL_STIFFNESS = 260000\n"
    "VERTICAL_DAMPING = 300\n"
    "FNOMIN = 3600\n"
    "[SLIP_ANGLE_RANGE]\n"
    "ALPMIN = -0.5\n"
    "ALPMAX = 0.5\n"
    "[INCLINATION_ANGLE_RANGE]\n"
    "CAMMIN = -0.1\n"
    "CAMMAX = 0.1\n"
    "[VERTICAL_FORCE_RANGE]\n"
    "FZMIN = 100\n"
    "FZMAX = 9000\n"
    "[LONGITUDINAL_COEFFICIENTS]\n"
    "PCX1 = 1.6\n"
    "PDX1 = 1.1 ! trailing bang comment\n"
    "PKX1 = 22\n" MINI_TIR_LATERAL;

static const char *const mini_tir_mm_kn_deg =
    "[UNITS]\n"
    "LENGTH = 'mm'\n"
    "FORCE = 'kN'\n"
    "ANGLE = 'deg'\n"
    "MASS = 'gram'\n"
    "TIME = 'millisecond'\n"
    "[MODEL]\n"
    "FITTYP = 6\n"
    "VXLOW = 1          $ mm/ms = m/s\n"
    "LONGVL = 16.7\n"
    "[DIMENSION]\n"
    "UNLOADED_RADIUS = 320\n"
    "WIDTH = 245\n"
    "[VERTICAL]\n"
    "VERTICAL_STIFFNESS = 0.26    $ kN/mm\n"
    "VERTICAL_DAMPING = 0.3       $ kN ms/mm = kN s/m\n"
    "FNOMIN = 3.6\n"
    "[SLIP_ANGLE_RANGE]\n"
    "ALPMIN = -28.64788975654116\n"
    "ALPMAX = 28.64788975654116\n"
    "[INCLINATION_ANGLE_RANGE]\n"
    "CAMMIN = -5.729577951308232\n"
    "CAMMAX = 5.729577951308232\n"
    "[VERTICAL_FORCE_RANGE]\n"
    "FZMIN = 0.1\n"
    "FZMAX = 9\n"
    "[LONGITUDINAL_COEFFICIENTS]\n"
    "PCX1 = 1.6\n"
    "PDX1 = 1.1\n"
    "PKX1 = 22\n" MINI_TIR_LATERAL;

/* Replaces the first occurrence of `from` in mini_tir by `to`, parses it and
 * returns the status; the message goes to err. */
static rs_status parse_edited(const char *from, const char *to, char *err, size_t cap)
{
    char text[4096];
    const char *at = strstr(mini_tir, from);
    assert_non_null(at);
    size_t pre = (size_t)(at - mini_tir);
    snprintf(text, sizeof text, "%.*s%s%s", (int)pre, mini_tir, to, at + strlen(from));
    rs_tire_params p;
    return rs_tir_parse(text, strlen(text), "mini.tir", &p, err, cap);
}

/* ---------------------------------------------------------- real files */

static void test_tir_reads_the_mfeval_sample_file(void **state)
{
    (void)state;
    rs_tire_params p;
    load_shared_tir(MFEVAL_TIR, &p);
    assert_true(p.fittyp == 6.0);
    assert_true(p.fnomin == 9416.6);
    assert_true(p.unloaded_radius == 0.4);
    assert_true(p.vertical_stiffness == 463000.0);
    assert_true(p.longvl == 15.0);
    assert_true(p.fzmax == 20469.8);
    assert_true(p.pcx1 == 1.3605);
    assert_true(p.phx1 == 8.731E-5);
    assert_true(p.pky1 == -29.1);
    assert_true(p.rvy6 == -15.552);
    assert_true(p.qez5 == -99.3);
    assert_true(p.ssz4 == -0.7046);
    assert_true(p.mbelt == 0.0);
    assert_true(p.lmy == 1.0);
    assert_close(p.tan_alpmax, 14.10141994717, 1e-9); /* tan(1.5) */
}

static void test_tir_reads_the_chrono_pac2002_file_without_fittyp(void **state)
{
    (void)state;
    rs_tire_params p;
    load_shared_tir(CHRONO_TIR, &p);
    assert_true(p.fittyp == 6.0); /* absent: MF5.2 default */
    assert_true(p.fnomin == 3800.0);
    assert_true(p.unloaded_radius == 0.376);
    assert_true(p.vertical_stiffness == 1.75e5);
    assert_true(p.longvl == 16.7);
    assert_true(p.pdx3 == 9.9376e-006);
    assert_true(p.pey4 == 665.25);
    assert_true(p.mbelt == 3.5);
    /* ALPMAX = 1.5708 is kept off the pole: tan(pi/2 - 0.01). */
    assert_close(p.tan_alpmax, 99.99666664444, 1e-4);
    /* A passenger tyre: driving and cornering grip near PDX1, PDY1. */
    rs_tire_in in = make_in(3800.0, 0.1, 0.0, 0.0, 16.7);
    rs_tire_out o;
    rs_tire_eval(&p, &in, &o);
    assert_true(o.fx > 0.9 * 3800.0 && o.fx < 1.15 * 3800.0);
    in = make_in(3800.0, 0.0, rs_tan(8.0 * RS_PI / 180.0), 0.0, 16.7);
    rs_tire_eval(&p, &in, &o);
    assert_true(o.fy < -0.8 * 3800.0 && o.fy > -1.0 * 3800.0);
}

/* ------------------------------------------------ MFeval reference values */

/* The outputs compared with MFeval, in the order of its reference columns. */
enum { FX, FY, MX, MY, MZ, MUX, MUY, KXK, KYA, TRAIL, MZR, RE, NOUT };

typedef struct ref_row {
    double fz, kappa, alpha, gamma, vx; /* the operating point */
    double out[NOUT];                   /* MFeval's outputs there */
} ref_row;

/* Reads MFeval's reference rows (the test is skipped without them). */
static int read_reference(ref_row *rows, int cap)
{
    char path[1024], line[1024];
    fixture_shared_file(path, sizeof path, MFEVAL_REF);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int n = 0;
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    while (n < cap && fgets(line, sizeof line, f)) {
        double v[17];
        char *s = line;
        int k;
        for (k = 0; k < 17; k++) {
            char *e;
            v[k] = strtod(s, &e);
            if (e == s)
                break;
            s = *e == ',' ? e + 1 : e;
        }
        if (k < 17)
            continue;
        ref_row r = {v[0], v[1], v[2], v[3], v[4], {0}};
        memcpy(r.out, &v[5], sizeof r.out);
        rows[n++] = r;
    }
    fclose(f);
    return n;
}

/* The largest |error| of each output. */
typedef struct max_err {
    double of[NOUT];
} max_err;

static void track(double *m, double got, double want)
{
    double e = rs_abs(got - want);
    if (e > *m)
        *m = e;
}

/* Evaluates the MFeval sample tyre at every reference row at 16.7 m/s
 * (at_speed) or at every row below that speed, and returns the largest
 * |error| of each output; *used is how many rows were compared. */
static max_err compare_with_mfeval(bool at_speed, int *used)
{
    rs_tire_params p;
    ref_row rows[128];
    load_shared_tir(MFEVAL_TIR, &p);
    int n = read_reference(rows, 128);
    max_err m = {0};
    *used = 0;
    for (int i = 0; i < n; i++) {
        const ref_row *r = &rows[i];
        if ((r->vx == 16.7) != at_speed)
            continue;
        (*used)++;
        /* alpha* = tan(alpha) sgn(Vx). At speed the kappa column is the
         * input; below it, it is MFeval's reduced slip kappa |Vx|/VXLOW: undo
         * it (at Vx = 0 every kappa reduces to 0; MFeval's input was 0.1). */
        double kin = at_speed ? r->kappa : r->vx > 0.0 ? r->kappa * p.vxlow / r->vx : 0.1;
        rs_tire_in in = make_in(r->fz, kin, rs_tan(r->alpha), r->gamma, r->vx);
        rs_tire_out o;
        rs_tire_eval(&p, &in, &o);
        if (!at_speed)
            print_message("  Vx %.1f kappa_in %.2f alpha %.4f: Fx %.4f (MFeval %.4f) Fy %.4f "
                          "(%.4f) Mz %.4f (%.4f) My %.4f (%.4f) Mx %.4f (%.4f) t %.6f (%.6f) "
                          "Mzr %.4f (%.4f)\n",
                          r->vx, kin, r->alpha, o.fx, r->out[FX], o.fy, r->out[FY], o.mz,
                          r->out[MZ], o.my, r->out[MY], o.mx, r->out[MX], o.trail_m,
                          r->out[TRAIL], o.mzr, r->out[MZR]);
        const double got[NOUT] = {o.fx,  o.fy,  o.mx,  o.my,      o.mz,  o.mux,
                                  o.muy, o.kxk, o.kya, o.trail_m, o.mzr, o.re_m};
        for (int k = 0; k < NOUT; k++)
            track(&m.of[k], got[k], r->out[k]);
        if (at_speed && (rs_abs(o.fx - r->out[FX]) > 1.0 || rs_abs(o.fy - r->out[FY]) > 1.0 ||
                         rs_abs(o.mz - r->out[MZ]) > 0.5))
            fail_msg("row %d (Fz %g kappa %g alpha %g): Fx %.6f/%.6f Fy %.6f/%.6f Mz %.6f/%.6f",
                     i + 2, r->fz, r->kappa, r->alpha, o.fx, r->out[FX], o.fy, r->out[FY], o.mz,
                     r->out[MZ]);
    }
    return m;
}

static void test_tire_reproduces_mfeval_at_16_7_m_s_on_every_row(void **state)
{
    (void)state;
    int used;
    max_err m = compare_with_mfeval(true, &used);
    print_message("MFeval reference, %d rows at 16.7 m/s, max |error|: Fx %.3g N, Fy %.3g N, "
                  "Mz %.3g Nm, Mx %.3g Nm, My %.3g Nm, Re %.3g m, Kxk %.3g N, Kya %.3g N/rad, "
                  "mux %.3g, muy %.3g, t %.3g m, Mzr %.3g Nm\n",
                  used, m.of[FX], m.of[FY], m.of[MZ], m.of[MX], m.of[MY], m.of[RE], m.of[KXK],
                  m.of[KYA], m.of[MUX], m.of[MUY], m.of[TRAIL], m.of[MZR]);
    assert_int_equal(used, 84);
    /* The reference values are printed to about 1e-6 relative. */
    assert_true(m.of[FX] < 1.0 && m.of[FY] < 1.0 && m.of[MZ] < 0.5);
    assert_true(m.of[MX] < 0.01);
    assert_true(m.of[MY] < 1e-4);
    assert_true(m.of[RE] < 1e-7);
    assert_true(m.of[KXK] < 0.01 && m.of[KYA] < 0.01);
    assert_true(m.of[MUX] < 1e-7 && m.of[MUY] < 1e-7);
    assert_true(m.of[TRAIL] < 1e-5);
    assert_true(m.of[MZR] < 0.01);
}

static void test_tire_steady_mode_reproduces_mfeval_low_speed_rows(void **state)
{
    (void)state;
    int used;
    max_err m = compare_with_mfeval(false, &used);
    print_message("MFeval low-speed rows (%d), max |error|: Fx %.3g N, Fy %.3g N, Mz %.3g Nm, "
                  "Mx %.3g Nm, My %.3g Nm, t %.3g m, Mzr %.3g Nm\n",
                  used, m.of[FX], m.of[FY], m.of[MZ], m.of[MX], m.of[MY], m.of[TRAIL], m.of[MZR]);
    assert_int_equal(used, 3);
    /* Same rules as MFeval, so the same tolerances as at speed. */
    assert_true(m.of[FX] < 1.0 && m.of[FY] < 1.0 && m.of[MZ] < 0.5);
    assert_true(m.of[MX] < 0.01 && m.of[MY] < 1e-3);
}

/* ---------------------------------------------------------- parse errors */

static void test_tir_parses_the_inline_sample(void **state)
{
    (void)state;
    rs_tire_params p;
    char err[256];
    rs_status st = rs_tir_parse(mini_tir, strlen(mini_tir), "mini.tir", &p, err, sizeof err);
    if (st != RS_OK)
        fail_msg("%s", err);
    assert_true(p.pdx1 == 1.1);
    assert_true(p.lmux == 1.0 && p.lgaz == 1.0); /* scaling defaults */
    assert_true(p.pex1 == 0.0 && p.qsy1 == 0.0); /* coefficient defaults */
    assert_true(p.kpumin == -1.5 && p.kpumax == 1.5);
}

/* One edit of mini_tir (its first `from` becomes `to`) and what the parser
 * must answer: the status and a part of the message (NULL: not checked). */
typedef struct tir_edit {
    const char *from, *to;
    rs_status want;
    const char *says;
} tir_edit;

/* The edits one test makes, in order (up to the first empty one). */
typedef struct tir_edit_test {
    const char *name;
    tir_edit edits[6];
} tir_edit_test;

static tir_edit_test edit_tests[] = {
    /* "PCX1 = 1.6" is line 34 of mini_tir. */
    {"test_tir_reports_a_broken_line_with_its_number",
     {{"PCX1 = 1.6\n", "PCX1 1.6\n", RS_ERR_PARSE, "mini.tir:34:"},
      {"[VERTICAL]\n", "[VERTICAL\n", RS_ERR_PARSE, "mini.tir:20:"}}},
    {"test_tir_reports_a_value_that_is_not_a_number",
     {{"PDX1 = 1.1", "PDX1 = 1.1x", RS_ERR_PARSE, "mini.tir:35: PDX1: expected a number"},
      {"PDX1 = 1.1", "PDX1 = 'abc'", RS_ERR_PARSE, "mini.tir:35: PDX1: expected a number"},
      {"PDX1 = 1.1", "PDX1 = nan", RS_ERR_PARSE, "mini.tir:35:"},
      {"PDX1 = 1.1", "PDX1 = 1.1 2.2", RS_ERR_PARSE, "mini.tir:35:"}}},
    /* A missing key points at its section's header: [LATERAL_COEFFICIENTS]
     * is line 37. */
    {"test_tir_reports_a_missing_required_key",
     {{"PKY1 = -20\n", "", RS_ERR_MISSING, "mini.tir:37: PKY1: required key missing"},
      {"FNOMIN = 3600\n", "", RS_ERR_MISSING, "FNOMIN"}}},
    {"test_tir_rejects_an_mf6_fittyp_naming_the_line",
     {{"FITTYP = 6", "FITTYP = 61", RS_ERR_RANGE, "mini.tir:10: FITTYP"},
      {"FITTYP = 6", "FITTYP = 62", RS_ERR_RANGE, "mini.tir:10:"},
      {"FITTYP = 6", "FITTYP = 5", RS_OK, NULL}}},
    {"test_tir_rejects_a_duplicate_key",
     {{"PKX1 = 22\n", "PKX1 = 22\npkx1 = 23\n", RS_ERR_PARSE,
       "mini.tir:37: PKX1: duplicate key (first set at line 36)"}}},
    {"test_tir_validates_ranges_naming_the_key",
     {{"FNOMIN = 3600", "FNOMIN = -3600", RS_ERR_RANGE, "mini.tir:23: FNOMIN"},
      {"FZMAX = 9000", "FZMAX = 50", RS_ERR_RANGE, "FZMAX"},
      {"ALPMAX = 0.5", "ALPMAX = -0.6", RS_ERR_RANGE, "ALPMAX"},
      {"VERTICAL_STIFFNESS = 260000", "VERTICAL_STIFFNESS = 0", RS_ERR_RANGE,
       "mini.tir:21: VERTICAL_STIFFNESS"},
      {"LENGTH = 'meter'", "LENGTH = 'furlong'", RS_ERR_PARSE, "mini.tir:4: LENGTH"}}},
};

/* Runs the edits of one tir_edit_test (the test's state). */
static void test_tir_edits(void **state)
{
    const tir_edit_test *t = *state;
    const size_t max = sizeof t->edits / sizeof t->edits[0];
    for (const tir_edit *e = t->edits; e < t->edits + max && e->from; e++) {
        char err[256];
        assert_int_equal(parse_edited(e->from, e->to, err, sizeof err), e->want);
        if (e->says)
            assert_contains(err, e->says);
    }
}

static void test_tir_load_reports_a_file_it_cannot_open(void **state)
{
    (void)state;
    rs_tire_params p;
    char err[256];
    assert_int_equal(rs_tir_load("/nonexistent/x.tir", &p, err, sizeof err), RS_ERR_IO);
    assert_contains(err, "/nonexistent/x.tir");
}

/* ----------------------------------------------------- units and bytes */

static void test_tir_converts_mm_kn_deg_to_the_same_si_params(void **state)
{
    (void)state;
    rs_tire_params a, b;
    char err[256];
    assert_int_equal(rs_tir_parse(mini_tir, strlen(mini_tir), "si.tir", &a, err, sizeof err),
                     RS_OK);
    rs_status st = rs_tir_parse(mini_tir_mm_kn_deg, strlen(mini_tir_mm_kn_deg), "mm.tir", &b,
                                err, sizeof err);
    if (st != RS_OK)
        fail_msg("%s", err);
    assert_close(b.unloaded_radius, a.unloaded_radius, 1e-15);
    assert_close(b.width, a.width, 1e-15);
    assert_close(b.fnomin, a.fnomin, 1e-9);
    assert_close(b.fzmin, a.fzmin, 1e-9);
    assert_close(b.fzmax, a.fzmax, 1e-9);
    assert_close(b.vertical_stiffness, a.vertical_stiffness, 1e-6);
    assert_close(b.vertical_damping, a.vertical_damping, 1e-9);
    assert_close(b.vxlow, a.vxlow, 1e-15);
    assert_close(b.longvl, a.longvl, 1e-12);
    assert_close(b.alpmax, a.alpmax, 1e-15);
    assert_close(b.cammin, a.cammin, 1e-15);
    assert_close(b.tan_alpmax, a.tan_alpmax, 1e-14);
    /* Dimensionless coefficients are untouched. */
    assert_true(b.pky1 == a.pky1 && b.pdx1 == a.pdx1 && b.pky2 == a.pky2);
}

static void test_tire_params_roundtrip_to_identical_bytes(void **state)
{
    (void)state;
    rs_tire_params a, b;
    char err[256];
    char path[1024];
    snprintf(path, sizeof path, "%s/tyres/c5_front.tir", test_data_dir());
    rs_status st = rs_tir_load(path, &a, err, sizeof err);
    if (st != RS_OK)
        fail_msg("%s", err);

    rs_writer w = rs_writer_init(NULL, 0);
    rs_tire_params_write(&a, &w);
    size_t n = w.len;
    uint8_t *b1 = malloc(n), *b2 = malloc(n);
    assert_non_null(b1);
    assert_non_null(b2);
    w = rs_writer_init(b1, n);
    rs_tire_params_write(&a, &w);
    assert_false(w.overflow || w.nonfinite);

    rs_reader r = rs_reader_init(b1, n);
    st = rs_tire_params_read(&r, &b, err, sizeof err);
    if (st != RS_OK)
        fail_msg("%s", err);
    assert_int_equal(r.pos, n);
    assert_memory_equal(&a, &b, sizeof a); /* derived fields included */

    w = rs_writer_init(b2, n);
    rs_tire_params_write(&b, &w);
    assert_memory_equal(b1, b2, n);

    /* Truncated and corrupted blocks are refused. */
    r = rs_reader_init(b1, n - 3);
    assert_int_not_equal(rs_tire_params_read(&r, &b, err, sizeof err), RS_OK);
    double bad = -5.0; /* FNOMIN is the 15th field, after the 4-byte tag */
    memcpy(b2 + 4 + 14 * 8, &bad, 8);
    r = rs_reader_init(b2, n);
    assert_int_equal(rs_tire_params_read(&r, &b, err, sizeof err), RS_ERR_RANGE);
    assert_contains(err, "FNOMIN");
    free(b1);
    free(b2);
}

/* -------------------------------------------------------------- slopes */

/* The shipped tyre files, loaded once for the group (load_shipped). */
enum { C5_FRONT, C5_REAR, FORMULA_FRONT, FORMULA_REAR, NSHIPPED };
static const char *const shipped_file[NSHIPPED] = {"tyres/c5_front.tir", "tyres/c5_rear.tir",
                                                   "tyres/formula_front.tir",
                                                   "tyres/formula_rear.tir"};
static rs_tire_params shipped[NSHIPPED];

static int load_shipped(void **state)
{
    (void)state;
    for (int i = 0; i < NSHIPPED; i++) {
        char path[1024], err[256];
        snprintf(path, sizeof path, "%s/%s", test_data_dir(), shipped_file[i]);
        if (rs_tir_load(path, &shipped[i], err, sizeof err) != RS_OK)
            fail_msg("%s", err);
    }
    return 0;
}

/* The tyre's outputs for `in` at slip (kappa, tan alpha = ta). */
static rs_tire_out eval_at(const rs_tire_params *p, rs_tire_in in, double kappa, double ta)
{
    rs_tire_out o;
    in.kappa = kappa;
    in.tan_alpha = ta;
    rs_tire_eval(p, &in, &o);
    return o;
}

static void test_tire_slopes_match_central_finite_differences(void **state)
{
    (void)state;
    const rs_tire_params *p = &shipped[C5_REAR];
    const double kappas[] = {-0.6, -0.15, -0.05, -0.01, 0.003, 0.02, 0.08, 0.3};
    const double tas[] = {0.0, 0.03, -0.12};
    const double h = 1e-6;
    double worst_x = 0.0, worst_y = 0.0;
    for (int mode = 0; mode < 2; mode++) {
        for (size_t i = 0; i < sizeof kappas / sizeof kappas[0]; i++) {
            for (size_t j = 0; j < sizeof tas / sizeof tas[0]; j++) {
                rs_tire_in in = make_in(3900.0, 0.0, 0.0, -0.02, 25.0);
                in.mode = mode;
                double k = kappas[i], a = tas[j];
                rs_tire_out o;
                in.kappa = k, in.tan_alpha = a;
                rs_tire_eval(p, &in, &o);
                /* Fx = Gxa(kappa, alpha) Fx0(kappa) and Gxa(kappa, 0) = 1, so the
                 * slope with Gxa held is Gxa times the pure-slip difference. */
                double gxa = o.fx / eval_at(p, in, k, 0.0).fx;
                double fd =
                    gxa * (eval_at(p, in, k + h, 0.0).fx - eval_at(p, in, k - h, 0.0).fx) / (2 * h);
                double ex = rs_abs(o.dfx_dkappa - fd) / (rs_abs(fd) + 1000.0);
                worst_x = rs_max(worst_x, ex);
                if (ex > 1e-5)
                    fail_msg("dfx_dkappa %g vs %g at kappa %g tan_alpha %g", o.dfx_dkappa, fd, k, a);
                /* Lateral: at kappa = 0, Gyk = 1 and the slope is the full one. */
                if (k == 0.003) {
                    in.kappa = 0.0;
                    for (double ta = -0.2; ta <= 0.2; ta += 0.037) {
                        in.tan_alpha = ta;
                        rs_tire_eval(p, &in, &o);
                        double fdy =
                            (eval_at(p, in, 0.0, ta + h).fy - eval_at(p, in, 0.0, ta - h).fy) /
                            (2 * h);
                        double ey = rs_abs(o.dfy_dalpha - fdy) / (rs_abs(fdy) + 1000.0);
                        worst_y = rs_max(worst_y, ey);
                        if (ey > 1e-5)
                            fail_msg("dfy_dalpha %g vs %g at tan_alpha %g", o.dfy_dalpha, fdy, ta);
                    }
                }
            }
        }
    }
    print_message("slopes vs central differences: worst relative error dfx_dkappa %.2g, "
                  "dfy_dalpha %.2g\n",
                  worst_x, worst_y);
    /* Sanity of signs near zero slip: Fx rises with kappa, Fy falls with alpha. */
    rs_tire_in in = make_in(3900.0, 0.0, 0.0, 0.0, 25.0);
    rs_tire_out o;
    rs_tire_eval(p, &in, &o);
    assert_true(o.dfx_dkappa > 0.5 * o.kxk && o.dfy_dalpha < 0.5 * o.kya);
}

/* ---------------------------------------------------------- transient */

static void test_tire_transient_mode_gives_exactly_zero_force_at_rest_with_zero_slip(void **state)
{
    (void)state;
    for (size_t f = 0; f < NSHIPPED; f++) {
        const rs_tire_params *p = &shipped[f];
        for (double g = -0.05; g <= 0.05; g += 0.025) {
            rs_tire_in in = make_in(3700.0, 0.0, 0.0, g, 0.0);
            in.mode = RS_TIRE_TRANSIENT;
            in.omega_rad_s = 0.0;
            rs_tire_out o;
            rs_tire_eval(p, &in, &o);
            assert_true(o.fx == 0.0);
            assert_true(o.fy == 0.0);
            assert_true(o.mz == 0.0);
            assert_true(o.my == 0.0);
        }
    }
}

static void test_tire_transient_mode_holds_a_parked_car_like_a_spring(void **state)
{
    (void)state;
    const rs_tire_params *p = &shipped[C5_FRONT];
    rs_tire_in in = make_in(3600.0, 0.0, 0.0, 0.0, 0.0);
    in.mode = RS_TIRE_TRANSIENT;
    in.omega_rad_s = 0.0;
    rs_tire_out o;

    /* Car pushed forward against a held wheel: Vsx > 0 winds kappa' < 0,
     * the tyre pulls back (Fx < 0); and the other way. */
    in.kappa = -0.002;
    rs_tire_eval(p, &in, &o);
    assert_true(o.fx < -100.0);
    in.kappa = 0.002;
    rs_tire_eval(p, &in, &o);
    assert_true(o.fx > 100.0);
    /* Small deflections act like the slip stiffness, a linear spring. */
    assert_close(o.fx, o.kxk * 0.002, 0.02 * o.kxk * 0.002);

    /* Sliding left (Vy > 0) winds tan_alpha' > 0: the tyre pushes right. */
    in.kappa = 0.0;
    in.tan_alpha = 0.003;
    rs_tire_eval(p, &in, &o);
    assert_true(o.fy < -100.0);
    in.tan_alpha = -0.003;
    rs_tire_eval(p, &in, &o);
    assert_true(o.fy > 100.0);
    assert_close(o.fy, o.kya * -0.003, rs_abs(0.02 * o.kya * 0.003));

    /* The same holds a hair above zero speed, in both directions. */
    in.vx_m_s = -0.01;
    rs_tire_eval(p, &in, &o);
    assert_true(o.fy > 100.0);
}

static void test_tire_never_returns_nan_or_inf_for_extreme_inputs(void **state)
{
    (void)state;
    const int tires[] = {C5_FRONT, FORMULA_REAR};
    const double fzs[] = {0.0, 1e-300, 1.0, 50.0, 3000.0, 2e4, 2e5};
    const double ks[] = {-10.0, -1.0, -0.999999, 0.0, 1e-12, 0.1, 10.0};
    const double tas[] = {-100.0, -3.0, -1e-9, 0.0, 0.2, 100.0};
    const double vxs[] = {-100.0, -1.0, -1e-9, 0.0, 0.3, 100.0};
    const double gs[] = {-1.0, 0.0, 0.05};
    long count = 0;
    for (size_t f = 0; f < 2; f++) {
        const rs_tire_params *p = &shipped[tires[f]];
        for (size_t a = 0; a < 7; a++)
            for (size_t b = 0; b < 7; b++)
                for (size_t c = 0; c < 6; c++)
                    for (size_t d = 0; d < 6; d++)
                        for (size_t e = 0; e < 3; e++)
                            for (int mode = 0; mode < 2; mode++) {
                                rs_tire_in in = make_in(fzs[a], ks[b], tas[c], gs[e], vxs[d]);
                                in.mode = mode;
                                in.omega_rad_s = vxs[d] * (1.0 + ks[b]) / 0.32;
                                in.grip_scale = e == 2 ? 0.0 : 1.0;
                                rs_tire_out o;
                                rs_tire_eval(p, &in, &o);
                                const double *v = &o.fx;
                                for (size_t i = 0; i < sizeof o / sizeof(double); i++)
                                    if (!is_finite(v[i]))
                                        fail_msg("output %zu non-finite at Fz %g kappa %g "
                                                 "tan_alpha %g Vx %g gamma %g mode %d",
                                                 i, fzs[a], ks[b], tas[c], vxs[d], gs[e], mode);
                                count++;
                            }
    }
    /* Non-finite inputs (a caller's bug) still give finite outputs. */
    const double inf = 1e308 * 10.0, nan = inf - inf;
    const double odd[] = {inf, -inf, nan};
    const rs_tire_params *p = &shipped[tires[0]];
    for (size_t i = 0; i < 3; i++) {
        for (int field = 0; field < 7; field++) {
            rs_tire_in in = make_in(3000.0, 0.05, 0.05, 0.01, 20.0);
            double *f[] = {&in.fz_n, &in.kappa, &in.tan_alpha, &in.gamma_rad, &in.vx_m_s,
                           &in.omega_rad_s, &in.grip_scale};
            *f[field] = odd[i];
            for (int mode = 0; mode < 2; mode++) {
                in.mode = mode;
                rs_tire_out o;
                rs_tire_eval(p, &in, &o);
                const double *v = &o.fx;
                for (size_t k = 0; k < sizeof o / sizeof(double); k++)
                    if (!is_finite(v[k]))
                        fail_msg("output %zu non-finite with input %d = %g", k, field, odd[i]);
                count++;
            }
        }
    }
    print_message("%ld extreme evaluations, all finite\n", count);
}

static void test_tire_skipping_moments_leaves_the_forces_unchanged(void **state)
{
    (void)state;
    const rs_tire_params *p = &shipped[FORMULA_FRONT];
    rs_tire_in in = make_in(4200.0, 0.02, -0.05, -0.03, 40.0);
    in.mode = RS_TIRE_TRANSIENT;
    rs_tire_out a, b;
    rs_tire_eval(p, &in, &a);
    in.want_moments = 0;
    rs_tire_eval(p, &in, &b);
    assert_true(a.fx == b.fx && a.fy == b.fy && a.my == b.my && a.mx == b.mx);
    assert_true(a.dfx_dkappa == b.dfx_dkappa && a.dfy_dalpha == b.dfy_dalpha);
    assert_true(b.mz == 0.0 && b.trail_m == 0.0);
    assert_true(a.mz != 0.0 && a.trail_m > 0.0);
    /* Rolling resistance opposes rolling: negative forward, positive back. */
    assert_true(a.my < 0.0);
    in.vx_m_s = -40.0;
    in.omega_rad_s = -40.0 / 0.33;
    rs_tire_eval(p, &in, &a);
    assert_true(a.my > 0.0);
}

/* ------------------------------------------------- the shipped tyre files */

typedef struct sweep {
    double mux, kappa_pk, muy, alpha_pk_deg, cs_per_fz;
} sweep;

static sweep sweep_at(const rs_tire_params *p, double fz)
{
    sweep s = {0};
    rs_tire_in in = make_in(fz, 0.0, 0.0, 0.0, 25.0);
    rs_tire_out o;
    for (double k = 0.0; k <= 0.5; k += 0.0025) {
        in.kappa = k;
        rs_tire_eval(p, &in, &o);
        if (o.fx / fz > s.mux)
            s.mux = o.fx / fz, s.kappa_pk = k;
    }
    in.kappa = 0.0;
    for (double a = 0.0; a <= 20.0; a += 0.1) {
        in.tan_alpha = rs_tan(a * RS_PI / 180.0);
        rs_tire_eval(p, &in, &o);
        if (-o.fy / fz > s.muy)
            s.muy = -o.fy / fz, s.alpha_pk_deg = a;
    }
    in.tan_alpha = 0.0;
    rs_tire_eval(p, &in, &o);
    s.cs_per_fz = -o.kya / fz * RS_PI / 180.0; /* N/deg per N */
    return s;
}

typedef struct intended {
    int tire; /* in shipped */
    double fz_nom, fz_lo, fz_hi;
    double mux_lo, mux_hi, muy_lo, muy_hi;
    double kpk_lo, kpk_hi, apk_lo, apk_hi;
} intended;

static void test_shipped_tires_have_their_intended_grip_and_slip_at_peak(void **state)
{
    (void)state;
    /* Bands at the nominal corner load (see docs/TYRES.md). */
    const intended tires[] = {
        {C5_FRONT, 3600.0, 1800.0, 6000.0, 1.05, 1.18, 0.97, 1.08, 0.07, 0.13, 5.5, 9.5},
        {C5_REAR, 3600.0, 1800.0, 6000.0, 1.05, 1.18, 0.97, 1.08, 0.07, 0.13, 5.5, 9.5},
        {FORMULA_FRONT, 3500.0, 1500.0, 6000.0, 1.65, 1.90, 1.65, 1.88, 0.05, 0.11, 3.5, 7.5},
        {FORMULA_REAR, 3500.0, 1500.0, 6000.0, 1.70, 1.95, 1.70, 1.95, 0.05, 0.11, 3.5, 7.5},
    };
    for (size_t i = 0; i < sizeof tires / sizeof tires[0]; i++) {
        const intended *t = &tires[i];
        const rs_tire_params *p = &shipped[t->tire];
        sweep lo = sweep_at(p, t->fz_lo), nom = sweep_at(p, t->fz_nom), hi = sweep_at(p, t->fz_hi);
        print_message("%s: Fz %5.0f/%5.0f/%5.0f N: mu_x %.3f/%.3f/%.3f at kappa %.3f, "
                      "mu_y %.3f/%.3f/%.3f at %.1f deg, C_alpha %.3f/%.3f/%.3f per deg\n",
                      shipped_file[t->tire], t->fz_lo, t->fz_nom, t->fz_hi, lo.mux, nom.mux, hi.mux,
                      nom.kappa_pk, lo.muy, nom.muy, hi.muy, nom.alpha_pk_deg, lo.cs_per_fz,
                      nom.cs_per_fz, hi.cs_per_fz);
        assert_true(nom.mux >= t->mux_lo && nom.mux <= t->mux_hi);
        assert_true(nom.muy >= t->muy_lo && nom.muy <= t->muy_hi);
        assert_true(nom.kappa_pk >= t->kpk_lo && nom.kappa_pk <= t->kpk_hi);
        assert_true(nom.alpha_pk_deg >= t->apk_lo && nom.alpha_pk_deg <= t->apk_hi);
        /* Load sensitivity: grip per newton falls with load. */
        assert_true(lo.mux > nom.mux && nom.mux > hi.mux);
        assert_true(lo.muy > nom.muy && nom.muy > hi.muy);
        /* The relaxation lengths are those of a tyre, not zero or metres. */
        rs_tire_in in = make_in(t->fz_nom, 0.0, 0.0, 0.0, 25.0);
        rs_tire_out o;
        rs_tire_eval(p, &in, &o);
        assert_true(o.sigma_kappa_m > 0.05 && o.sigma_kappa_m < 0.6);
        assert_true(o.sigma_alpha_m > 0.1 && o.sigma_alpha_m < 1.0);
        assert_true(o.re_m < p->unloaded_radius && o.re_m > 0.9 * p->unloaded_radius);
    }
    assert_true(sweep_at(&shipped[FORMULA_REAR], 3500.0).muy >
                sweep_at(&shipped[FORMULA_FRONT], 3500.0).muy);
}

/* Combined slip stays inside the friction ellipse of the pure-slip peaks
 * (the weighting functions do their job), at the nominal load. */
static void test_shipped_tires_keep_combined_slip_inside_the_friction_ellipse(void **state)
{
    (void)state;
    for (size_t f = 0; f < NSHIPPED; f++) {
        const rs_tire_params *p = &shipped[f];
        const double fz = 3600.0;
        sweep s = sweep_at(p, fz);
        double worst = 0.0;
        rs_tire_in in = make_in(fz, 0.0, 0.0, 0.0, 25.0);
        rs_tire_out o;
        for (double k = 0.0; k <= 0.4; k += 0.01) {
            for (double a = 0.0; a <= 15.0; a += 0.5) {
                in.kappa = k;
                in.tan_alpha = rs_tan(a * RS_PI / 180.0);
                rs_tire_eval(p, &in, &o);
                double ex = o.fx / (s.mux * fz), ey = o.fy / (s.muy * fz);
                worst = rs_max(worst, rs_sqrt(ex * ex + ey * ey));
            }
        }
        print_message("%s: combined force / friction ellipse, worst %.3f\n", shipped_file[f],
                      worst);
        assert_true(worst < 1.03);
    }
}


int main(void)
{
    int failed = RUN_TABLE_TESTS(edit_tests, test_tir_edits);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tir_reads_the_mfeval_sample_file),
        cmocka_unit_test(test_tir_reads_the_chrono_pac2002_file_without_fittyp),
        cmocka_unit_test(test_tire_reproduces_mfeval_at_16_7_m_s_on_every_row),
        cmocka_unit_test(test_tire_steady_mode_reproduces_mfeval_low_speed_rows),
        cmocka_unit_test(test_tir_parses_the_inline_sample),
        cmocka_unit_test(test_tir_load_reports_a_file_it_cannot_open),
        cmocka_unit_test(test_tir_converts_mm_kn_deg_to_the_same_si_params),
        cmocka_unit_test(test_tire_params_roundtrip_to_identical_bytes),
        cmocka_unit_test(test_tire_slopes_match_central_finite_differences),
        cmocka_unit_test(test_tire_transient_mode_gives_exactly_zero_force_at_rest_with_zero_slip),
        cmocka_unit_test(test_tire_transient_mode_holds_a_parked_car_like_a_spring),
        cmocka_unit_test(test_tire_never_returns_nan_or_inf_for_extreme_inputs),
        cmocka_unit_test(test_tire_skipping_moments_leaves_the_forces_unchanged),
        cmocka_unit_test(test_shipped_tires_have_their_intended_grip_and_slip_at_peak),
        cmocka_unit_test(test_shipped_tires_keep_combined_slip_inside_the_friction_ellipse),
    };
    return failed + cmocka_run_group_tests(tests, load_shipped, NULL);
}
