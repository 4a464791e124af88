/*
 * TNO .tir property files (Magic Formula 5.2 / PAC2002 family) into
 * rs_tire_params, and the parameters' canonical byte form.
 *
 * A .tir file is an INI-like text: [SECTION] headers, KEY = value lines,
 * '$' and '!' comments (whole-line or trailing), quoted strings ('newton') and
 * {...} tables (the [SHAPE] block) that we skip. Parsing happens once, on the
 * server; clients receive the canonical bytes written by rs_tire_params_write,
 * so strtod's text-to-double conversion never has to agree between machines
 * (docs/DETERMINISM.md, "Parameter blocks"). Everything derived from the
 * coefficients (the tan of the slip-angle limits) is computed with detmath,
 * identically on every machine, by rs_tire_params_read as well.
 *
 * One table (RS_TIR_KEYS) lists every coefficient in struct order with its
 * section, physical dimension, default and whether it is required. The parser,
 * the unit conversion, the defaults and the serialisation order all come from
 * it, so they cannot drift apart.
 */
#include "tire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "json.h"
#include "racesim/base/err.h"

/* ------------------------------------------------------------ the key table */

/* Sections we read keys from. A key is accepted in any of them (files in the
 * wild put PTX*, QTZ1 and MBELT in different places); the section named here
 * is where the key belongs, used in "required key missing" messages. */
enum {
    SEC_NONE = 0, /* before any header, or a section we skip */
    SEC_UNITS,
    SEC_MODEL,
    SEC_DIMENSION,
    SEC_VERTICAL,
    SEC_LONG_SLIP_RANGE,
    SEC_SLIP_ANGLE_RANGE,
    SEC_INCLINATION_ANGLE_RANGE,
    SEC_VERTICAL_FORCE_RANGE,
    SEC_SCALING_COEFFICIENTS,
    SEC_LONGITUDINAL_COEFFICIENTS,
    SEC_OVERTURNING_COEFFICIENTS,
    SEC_LATERAL_COEFFICIENTS,
    SEC_ROLLING_COEFFICIENTS,
    SEC_ALIGNING_COEFFICIENTS,
    SEC_COUNT
};

static const char *const section_names[SEC_COUNT] = {
    "",
    "UNITS",
    "MODEL",
    "DIMENSION",
    "VERTICAL",
    "LONG_SLIP_RANGE",
    "SLIP_ANGLE_RANGE",
    "INCLINATION_ANGLE_RANGE",
    "VERTICAL_FORCE_RANGE",
    "SCALING_COEFFICIENTS",
    "LONGITUDINAL_COEFFICIENTS",
    "OVERTURNING_COEFFICIENTS",
    "LATERAL_COEFFICIENTS",
    "ROLLING_COEFFICIENTS",
    "ALIGNING_COEFFICIENTS",
};

/* Physical dimension of a key: how [UNITS] converts it to SI. The Magic
 * Formula coefficients themselves are dimensionless (or per radian) in the
 * SI formulation and are never converted. */
enum {
    DIM_NONE = 0,
    DIM_LENGTH,    /* L */
    DIM_FORCE,     /* F */
    DIM_ANGLE,     /* A */
    DIM_MASS,      /* M */
    DIM_SPEED,     /* L/T */
    DIM_STIFFNESS, /* F/L */
    DIM_DAMPING    /* F*T/L */
};

#define REQ 1
#define OPT 0

/* X(KEY, field, section, dimension, default, required): every coefficient in
 * the order of rs_tire_params, which is also the canonical byte order. */
#define RS_TIR_KEYS(X)                                                                 \
    X(FITTYP, fittyp, MODEL, DIM_NONE, 6.0, OPT)                                       \
    X(USE_MODE, use_mode, MODEL, DIM_NONE, 4.0, OPT)                                   \
    X(VXLOW, vxlow, MODEL, DIM_SPEED, 1.0, OPT)                                        \
    X(LONGVL, longvl, MODEL, DIM_SPEED, 16.7, OPT)                                     \
    X(UNLOADED_RADIUS, unloaded_radius, DIMENSION, DIM_LENGTH, 0.0, REQ)               \
    X(WIDTH, width, DIMENSION, DIM_LENGTH, 0.0, OPT)                                   \
    X(ASPECT_RATIO, aspect_ratio, DIMENSION, DIM_NONE, 0.0, OPT)                       \
    X(RIM_RADIUS, rim_radius, DIMENSION, DIM_LENGTH, 0.0, OPT)                         \
    X(RIM_WIDTH, rim_width, DIMENSION, DIM_LENGTH, 0.0, OPT)                           \
    X(VERTICAL_STIFFNESS, vertical_stiffness, VERTICAL, DIM_STIFFNESS, 0.0, REQ)       \
    X(VERTICAL_DAMPING, vertical_damping, VERTICAL, DIM_DAMPING, 0.0, OPT)             \
    X(BREFF, breff, VERTICAL, DIM_NONE, 0.0, OPT)                                      \
    X(DREFF, dreff, VERTICAL, DIM_NONE, 0.0, OPT)                                      \
    X(FREFF, freff, VERTICAL, DIM_NONE, 0.0, OPT)                                      \
    X(FNOMIN, fnomin, VERTICAL, DIM_FORCE, 0.0, REQ)                                   \
    X(KPUMIN, kpumin, LONG_SLIP_RANGE, DIM_NONE, -1.5, OPT)                            \
    X(KPUMAX, kpumax, LONG_SLIP_RANGE, DIM_NONE, 1.5, OPT)                             \
    X(ALPMIN, alpmin, SLIP_ANGLE_RANGE, DIM_ANGLE, -RS_HALF_PI, OPT)              \
    X(ALPMAX, alpmax, SLIP_ANGLE_RANGE, DIM_ANGLE, RS_HALF_PI, OPT)               \
    X(CAMMIN, cammin, INCLINATION_ANGLE_RANGE, DIM_ANGLE, -RS_HALF_PI, OPT)       \
    X(CAMMAX, cammax, INCLINATION_ANGLE_RANGE, DIM_ANGLE, RS_HALF_PI, OPT)        \
    X(FZMIN, fzmin, VERTICAL_FORCE_RANGE, DIM_FORCE, 0.0, OPT)                         \
    X(FZMAX, fzmax, VERTICAL_FORCE_RANGE, DIM_FORCE, 0.0, OPT) /* 0: 3 x FNOMIN */     \
    X(LFZO, lfzo, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                            \
    X(LCX, lcx, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(LMUX, lmux, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                            \
    X(LEX, lex, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(LKX, lkx, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(LHX, lhx, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(LVX, lvx, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(LGAX, lgax, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                            \
    X(LCY, lcy, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(LMUY, lmuy, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                            \
    X(LEY, ley, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(LKY, lky, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(LHY, lhy, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(LVY, lvy, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(LGAY, lgay, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                            \
    X(LTR, ltr, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(LRES, lres, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                            \
    X(LGAZ, lgaz, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                            \
    X(LXAL, lxal, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                            \
    X(LYKA, lyka, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                            \
    X(LVYKA, lvyka, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                          \
    X(LS, ls, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                                \
    X(LSGKP, lsgkp, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                          \
    X(LSGAL, lsgal, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                          \
    X(LGYR, lgyr, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                            \
    X(LMX, lmx, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(LVMX, lvmx, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                            \
    X(LMY, lmy, SCALING_COEFFICIENTS, DIM_NONE, 1.0, OPT)                              \
    X(PCX1, pcx1, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, REQ)                       \
    X(PDX1, pdx1, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, REQ)                       \
    X(PDX2, pdx2, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PDX3, pdx3, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PEX1, pex1, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PEX2, pex2, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PEX3, pex3, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PEX4, pex4, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PKX1, pkx1, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, REQ)                       \
    X(PKX2, pkx2, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PKX3, pkx3, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PHX1, phx1, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PHX2, phx2, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PVX1, pvx1, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PVX2, pvx2, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(RBX1, rbx1, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(RBX2, rbx2, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(RCX1, rcx1, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(REX1, rex1, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(REX2, rex2, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(RHX1, rhx1, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PTX1, ptx1, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PTX2, ptx2, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(PTX3, ptx3, LONGITUDINAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                       \
    X(QSX1, qsx1, OVERTURNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                        \
    X(QSX2, qsx2, OVERTURNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                        \
    X(QSX3, qsx3, OVERTURNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                        \
    X(PCY1, pcy1, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, REQ)                            \
    X(PDY1, pdy1, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, REQ)                            \
    X(PDY2, pdy2, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PDY3, pdy3, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PEY1, pey1, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PEY2, pey2, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PEY3, pey3, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PEY4, pey4, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PKY1, pky1, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, REQ)                            \
    X(PKY2, pky2, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PKY3, pky3, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PHY1, phy1, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PHY2, phy2, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PHY3, phy3, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PVY1, pvy1, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PVY2, pvy2, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PVY3, pvy3, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PVY4, pvy4, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(RBY1, rby1, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(RBY2, rby2, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(RBY3, rby3, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(RCY1, rcy1, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(REY1, rey1, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(REY2, rey2, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(RHY1, rhy1, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(RHY2, rhy2, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(RVY1, rvy1, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(RVY2, rvy2, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(RVY3, rvy3, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(RVY4, rvy4, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(RVY5, rvy5, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(RVY6, rvy6, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PTY1, pty1, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(PTY2, pty2, LATERAL_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(QSY1, qsy1, ROLLING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(QSY2, qsy2, ROLLING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(QSY3, qsy3, ROLLING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(QSY4, qsy4, ROLLING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                            \
    X(QBZ1, qbz1, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QBZ2, qbz2, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QBZ3, qbz3, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QBZ4, qbz4, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QBZ5, qbz5, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QBZ9, qbz9, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QBZ10, qbz10, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                         \
    X(QCZ1, qcz1, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QDZ1, qdz1, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QDZ2, qdz2, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QDZ3, qdz3, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QDZ4, qdz4, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QDZ6, qdz6, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QDZ7, qdz7, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QDZ8, qdz8, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QDZ9, qdz9, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QEZ1, qez1, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QEZ2, qez2, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QEZ3, qez3, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QEZ4, qez4, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QEZ5, qez5, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QHZ1, qhz1, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QHZ2, qhz2, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QHZ3, qhz3, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QHZ4, qhz4, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(SSZ1, ssz1, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(SSZ2, ssz2, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(SSZ3, ssz3, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(SSZ4, ssz4, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(QTZ1, qtz1, ALIGNING_COEFFICIENTS, DIM_NONE, 0.0, OPT)                           \
    X(MBELT, mbelt, ALIGNING_COEFFICIENTS, DIM_MASS, 0.0, OPT)

typedef struct key_info {
    const char *key;
    size_t offset;
    int section;
    int dim;
    double def;
    int required;
} key_info;

#define RS_TIR_ROW(KEY, field, sec, dim, def, req) \
    {#KEY, offsetof(rs_tire_params, field), SEC_##sec, dim, def, req},
static const key_info keys[] = {RS_TIR_KEYS(RS_TIR_ROW)};
#undef RS_TIR_ROW

#define NKEYS (sizeof keys / sizeof keys[0])

/* The table must cover every serialised field: the struct is the table's
 * fields followed by the two derived ones, all doubles. */
_Static_assert(sizeof(rs_tire_params) == (sizeof keys / sizeof keys[0] + 2) * sizeof(double),
               "RS_TIR_KEYS must list every field of rs_tire_params except the derived ones");

/* Identifies the canonical block layout; bump when RS_TIR_KEYS changes. */
#define RS_TIRE_PARAMS_TAG 0x31524954u /* "TIR1" little endian */

static double *field_of(rs_tire_params *p, size_t i)
{
    return (double *)(void *)((char *)p + keys[i].offset);
}

static double field_get(const rs_tire_params *p, size_t i)
{
    double v;
    memcpy(&v, (const char *)p + keys[i].offset, sizeof v);
    return v;
}

/* ------------------------------------------------------------------- units */

typedef struct unit_name {
    const char *name;
    double to_si;
} unit_name;

static const unit_name length_units[] = {
    {"meter", 1.0},       {"meters", 1.0},      {"metre", 1.0},  {"metres", 1.0},
    {"m", 1.0},           {"mm", 1e-3},         {"millimeter", 1e-3}, {"millimetre", 1e-3},
    {"cm", 1e-2},         {"centimeter", 1e-2}, {"centimetre", 1e-2}, {"km", 1e3},
    {"kilometer", 1e3},   {"kilometre", 1e3},   {"inch", 0.0254}, {"inches", 0.0254},
    {"in", 0.0254},       {"foot", 0.3048},     {"feet", 0.3048}, {"ft", 0.3048},
    {NULL, 0.0}};
static const unit_name force_units[] = {
    {"newton", 1.0}, {"newtons", 1.0}, {"n", 1.0}, {"kn", 1e3}, {"kilonewton", 1e3},
    {"kilonewtons", 1e3}, {"lbf", 4.4482216152605}, {"pound_force", 4.4482216152605},
    {"kgf", 9.80665}, {"kilogram_force", 9.80665}, {NULL, 0.0}};
static const unit_name angle_units[] = {
    {"radian", 1.0}, {"radians", 1.0}, {"rad", 1.0}, {"deg", RS_PI / 180.0},
    {"degree", RS_PI / 180.0}, {"degrees", RS_PI / 180.0}, {NULL, 0.0}};
static const unit_name mass_units[] = {
    {"kg", 1.0}, {"kilogram", 1.0}, {"kilograms", 1.0}, {"gram", 1e-3}, {"grams", 1e-3},
    {"g", 1e-3}, {"lbm", 0.45359237}, {"pound_mass", 0.45359237}, {NULL, 0.0}};
static const unit_name time_units[] = {
    {"second", 1.0}, {"seconds", 1.0}, {"sec", 1.0}, {"s", 1.0}, {"millisecond", 1e-3},
    {"milliseconds", 1e-3}, {"ms", 1e-3}, {"minute", 60.0}, {"minutes", 60.0},
    {"min", 60.0}, {"hour", 3600.0}, {"hours", 3600.0}, {"h", 3600.0}, {NULL, 0.0}};

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }
static int upper(int c) { return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c; }

static int streq_nocase(const char *a, const char *b)
{
    while (*a && *b && lower((unsigned char)*a) == lower((unsigned char)*b))
        a++, b++;
    return *a == 0 && *b == 0;
}

static int find_unit(const unit_name *table, const char *name, double *to_si)
{
    for (; table->name; table++) {
        if (streq_nocase(table->name, name)) {
            *to_si = table->to_si;
            return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ parser */

typedef struct parser {
    const char *name;
    char *err;
    size_t err_len;
    rs_tire_params *out;
    int line_of[NKEYS];         /* line where each key was set, 0 if absent */
    int section_line[SEC_COUNT]; /* first line of each section, 0 if absent */
    double length, force, angle, mass, time; /* [UNITS] factors to SI */
    int units_line[5];
    int last_line;
} parser;

static int is_space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
static int is_key_char(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}
static int is_comment(int c) { return c == '$' || c == '!'; }

static const char *skip_space(const char *s, const char *end)
{
    while (s < end && is_space((unsigned char)*s))
        s++;
    return s;
}

/* Only plain decimal numbers: strtod would also take "nan", "inf" and hex. */
static int is_number_char(int c)
{
    return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E';
}

static int find_key(const char *key)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (streq_nocase(keys[i].key, key))
            return (int)i;
    return -1;
}

static int find_section(const char *name)
{
    for (int s = 1; s < SEC_COUNT; s++)
        if (streq_nocase(section_names[s], name))
            return s;
    return SEC_NONE;
}

/* [UNITS] KEY = 'name': sets the conversion factor for one dimension. */
static rs_status set_unit(parser *ps, int line, const char *key, const char *value)
{
    static const struct {
        const char *key;
        const unit_name *table;
        int slot;
    } dims[] = {{"LENGTH", length_units, 0},
                {"FORCE", force_units, 1},
                {"ANGLE", angle_units, 2},
                {"MASS", mass_units, 3},
                {"TIME", time_units, 4}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        if (!streq_nocase(dims[d].key, key))
            continue;
        double f;
        if (!find_unit(dims[d].table, value, &f)) {
            rs_errf(ps->err, ps->err_len, "%s:%d: %s: unknown unit '%s'", ps->name, line,
                    dims[d].key, value);
            return RS_ERR_PARSE;
        }
        if (ps->units_line[dims[d].slot]) {
            rs_errf(ps->err, ps->err_len, "%s:%d: %s: duplicate key (first set at line %d)",
                    ps->name, line, dims[d].key, ps->units_line[dims[d].slot]);
            return RS_ERR_PARSE;
        }
        ps->units_line[dims[d].slot] = line;
        double *slot[5] = {&ps->length, &ps->force, &ps->angle, &ps->mass, &ps->time};
        *slot[dims[d].slot] = f;
        return RS_OK;
    }
    return RS_OK; /* other [UNITS] keys (e.g. PRESSURE) do not affect MF5.2 */
}

/* One KEY = value line inside a section we read. */
static rs_status parse_assignment(parser *ps, int section, int line, const char *s,
                                  const char *end)
{
    char key[64], value[128];
    size_t n = 0;

    while (s < end && is_key_char((unsigned char)*s)) {
        if (n + 1 >= sizeof key) {
            rs_errf(ps->err, ps->err_len, "%s:%d: key too long", ps->name, line);
            return RS_ERR_PARSE;
        }
        key[n++] = (char)upper((unsigned char)*s++);
    }
    key[n] = 0;
    s = skip_space(s, end);
    if (n == 0 || s >= end || *s != '=') {
        rs_errf(ps->err, ps->err_len, "%s:%d: expected KEY = value", ps->name, line);
        return RS_ERR_PARSE;
    }
    s = skip_space(s + 1, end);

    /* The value: a quoted string or a bare token, then only a comment. */
    int quoted = 0;
    n = 0;
    if (s < end && (*s == '\'' || *s == '"')) {
        char q = *s++;
        quoted = 1;
        while (s < end && *s != q) {
            if (n + 1 < sizeof value)
                value[n++] = *s;
            s++;
        }
        if (s >= end) {
            rs_errf(ps->err, ps->err_len, "%s:%d: %s: unterminated string", ps->name, line, key);
            return RS_ERR_PARSE;
        }
        s++;
    } else {
        while (s < end && !is_space((unsigned char)*s) && !is_comment(*s)) {
            if (n + 1 < sizeof value)
                value[n++] = *s;
            s++;
        }
    }
    value[n] = 0;
    s = skip_space(s, end);
    int trailing = s < end && !is_comment(*s);

    if (section == SEC_UNITS) {
        if (trailing) {
            rs_errf(ps->err, ps->err_len, "%s:%d: %s: unexpected text after value", ps->name,
                    line, key);
            return RS_ERR_PARSE;
        }
        return set_unit(ps, line, key, value);
    }

    int k = find_key(key);
    if (k < 0)
        return RS_OK; /* files carry extras (MF6 keys, TYRESIDE, ...): ignore them */
    if (ps->line_of[k]) {
        rs_errf(ps->err, ps->err_len, "%s:%d: %s: duplicate key (first set at line %d)",
                ps->name, line, key, ps->line_of[k]);
        return RS_ERR_PARSE;
    }

    int ok = !quoted && n > 0 && n + 1 < sizeof value;
    for (size_t i = 0; ok && i < n; i++)
        ok = is_number_char((unsigned char)value[i]);
    double v = 0.0;
    if (ok) {
        char *stop = NULL;
        v = strtod(value, &stop);
        ok = stop == value + n && v == v && v - v == 0.0;
    }
    if (!ok) {
        rs_errf(ps->err, ps->err_len, "%s:%d: %s: expected a number", ps->name, line, key);
        return RS_ERR_PARSE;
    }
    if (trailing) {
        rs_errf(ps->err, ps->err_len, "%s:%d: %s: unexpected text after value", ps->name, line,
                key);
        return RS_ERR_PARSE;
    }

    if (strcmp(keys[k].key, "FITTYP") == 0 && v != 5.0 && v != 6.0) {
        rs_errf(ps->err, ps->err_len,
                "%s:%d: FITTYP: %g is not a Magic Formula 5.2 / PAC2002 file (accepted: 5, 6 or "
                "absent; MF6.x files are not supported)",
                ps->name, line, v);
        return RS_ERR_RANGE;
    }
    *field_of(ps->out, (size_t)k) = v;
    ps->line_of[k] = line;
    return RS_OK;
}

static double dim_factor(const parser *ps, int dim)
{
    switch (dim) {
    case DIM_LENGTH: return ps->length;
    case DIM_FORCE: return ps->force;
    case DIM_ANGLE: return ps->angle;
    case DIM_MASS: return ps->mass;
    case DIM_SPEED: return ps->length / ps->time;
    case DIM_STIFFNESS: return ps->force / ps->length;
    case DIM_DAMPING: return ps->force * ps->time / ps->length;
    default: return 1.0;
    }
}

/* ------------------------------------------------------ validation, derived */

/* Where a key came from, for messages: "file.tir:57: " or "file.tir: ". */
typedef struct origin {
    const char *name;
    const int *line_of; /* NULL when validating bytes */
} origin;

static int key_index(const char *key)
{
    int k = find_key(key);
    return k < 0 ? 0 : k;
}

static rs_status range_error(const origin *o, const char *key, double v, const char *what,
                             char *err, size_t err_len)
{
    int line = o->line_of ? o->line_of[key_index(key)] : 0;
    if (line > 0)
        rs_errf(err, err_len, "%s:%d: %s: %.17g %s", o->name, line, key, v, what);
    else
        rs_errf(err, err_len, "%s: %s: %.17g %s", o->name, key, v, what);
    return RS_ERR_RANGE;
}

#define CHECK(cond, key, v, what)                                   \
    do {                                                            \
        if (!(cond))                                                \
            return range_error(o, key, v, what, err, err_len);      \
    } while (0)

static rs_status validate(const rs_tire_params *p, const origin *o, char *err, size_t err_len)
{
    for (size_t i = 0; i < NKEYS; i++) {
        double v = field_get(p, i);
        if (!(v == v && v - v == 0.0))
            return range_error(o, keys[i].key, v, "is not finite", err, err_len);
    }
    CHECK(p->fittyp == 5.0 || p->fittyp == 6.0, "FITTYP", p->fittyp, "is not 5 or 6");
    CHECK(p->unloaded_radius > 0.0, "UNLOADED_RADIUS", p->unloaded_radius, "must be > 0");
    CHECK(p->fnomin > 0.0, "FNOMIN", p->fnomin, "must be > 0");
    CHECK(p->vertical_stiffness > 0.0, "VERTICAL_STIFFNESS", p->vertical_stiffness,
          "must be > 0");
    CHECK(p->vertical_damping >= 0.0, "VERTICAL_DAMPING", p->vertical_damping, "must be >= 0");
    CHECK(p->vxlow > 0.0, "VXLOW", p->vxlow, "must be > 0");
    CHECK(p->longvl > 0.0, "LONGVL", p->longvl, "must be > 0");
    CHECK(p->fzmin >= 0.0, "FZMIN", p->fzmin, "must be >= 0");
    CHECK(p->fzmax > p->fzmin, "FZMAX", p->fzmax, "must be > FZMIN");
    CHECK(p->kpumin <= 0.0, "KPUMIN", p->kpumin, "must be <= 0");
    CHECK(p->kpumax >= 0.0, "KPUMAX", p->kpumax, "must be >= 0");
    CHECK(p->kpumin < p->kpumax, "KPUMAX", p->kpumax, "must be > KPUMIN");
    CHECK(p->alpmin <= 0.0, "ALPMIN", p->alpmin, "must be <= 0");
    CHECK(p->alpmax >= 0.0, "ALPMAX", p->alpmax, "must be >= 0");
    CHECK(p->alpmin < p->alpmax, "ALPMAX", p->alpmax, "must be > ALPMIN");
    CHECK(p->cammin < p->cammax, "CAMMAX", p->cammax, "must be > CAMMIN");
    CHECK(p->lfzo > 0.0, "LFZO", p->lfzo, "must be > 0");
    CHECK(p->lmux > 0.0, "LMUX", p->lmux, "must be > 0");
    CHECK(p->lmuy > 0.0, "LMUY", p->lmuy, "must be > 0");
    CHECK(p->lcx > 0.0, "LCX", p->lcx, "must be > 0");
    CHECK(p->lcy > 0.0, "LCY", p->lcy, "must be > 0");
    CHECK(p->pcx1 > 0.0, "PCX1", p->pcx1, "must be > 0 (shape factor)");
    CHECK(p->pcy1 > 0.0, "PCY1", p->pcy1, "must be > 0 (shape factor)");
    CHECK(p->pdx1 > 0.0, "PDX1", p->pdx1, "must be > 0 (peak friction)");
    CHECK(p->pdy1 > 0.0, "PDY1", p->pdy1, "must be > 0 (peak friction)");
    CHECK(p->pkx1 > 0.0, "PKX1", p->pkx1, "must be > 0 (slip stiffness)");
    CHECK(p->pky1 < 0.0, "PKY1", p->pky1,
          "must be < 0 (ISO-W: a positive slip angle gives a negative Fy)");
    CHECK(p->pky2 > 0.0, "PKY2", p->pky2, "must be > 0 (load at peak cornering stiffness)");
    CHECK(p->pty2 >= 0.0, "PTY2", p->pty2, "must be >= 0");

    /* Forces use the load unclamped below FZMIN (they fade to zero with Fz),
     * so the friction and stiffness factors must stay positive over the
     * whole range dfz = -1 (no load) .. dfz at FZMAX. */
    double fz0p = p->fnomin * p->lfzo;
    double dmax = (p->fzmax - fz0p) / fz0p;
    CHECK(p->pdx1 - p->pdx2 > 0.0 && p->pdx1 + p->pdx2 * dmax > 0.0, "PDX2", p->pdx2,
          "makes the longitudinal friction negative between zero load and FZMAX");
    CHECK(p->pdy1 - p->pdy2 > 0.0 && p->pdy1 + p->pdy2 * dmax > 0.0, "PDY2", p->pdy2,
          "makes the lateral friction negative between zero load and FZMAX");
    CHECK(p->pkx1 - p->pkx2 > 0.0 && p->pkx1 + p->pkx2 * dmax > 0.0, "PKX2", p->pkx2,
          "makes the slip stiffness negative between zero load and FZMAX");
    return RS_OK;
}

#undef CHECK

/* tan of the slip-angle limits, kept off the +-pi/2 poles (detmath: the same
 * bits on every machine, so rs_tire_params_read reproduces them exactly). */
static void derive(rs_tire_params *p)
{
    double lim = RS_HALF_PI - 0.01;
    p->tan_alpmin = rs_tan(rs_clamp(p->alpmin, -lim, lim));
    p->tan_alpmax = rs_tan(rs_clamp(p->alpmax, -lim, lim));
}

/* ------------------------------------------------------------- public API */

rs_status rs_tir_parse(const char *text, size_t len, const char *name, rs_tire_params *out,
                       char *err, size_t err_len)
{
    parser ps;
    rs_tire_params p;
    rs_status st;
    int section = SEC_NONE, in_table = 0, line = 0;
    const char *s = text, *end = text ? text + len : text;

    if (err && err_len)
        err[0] = 0;
    if (!name)
        name = "(tir)";
    if (!text || !out) {
        rs_errf(err, err_len, "%s: no text", name);
        return RS_ERR_ARG;
    }
    memset(&ps, 0, sizeof ps);
    memset(&p, 0, sizeof p);
    ps.name = name, ps.err = err, ps.err_len = err_len, ps.out = &p;
    ps.length = ps.force = ps.angle = ps.mass = ps.time = 1.0;
    for (size_t i = 0; i < NKEYS; i++)
        *field_of(&p, i) = keys[i].def;

    while (s < end) {
        const char *eol = memchr(s, '\n', (size_t)(end - s));
        const char *next = eol ? eol + 1 : end;
        const char *stop = eol ? eol : end;
        line++;
        const char *c = skip_space(s, stop);
        s = next;
        if (c >= stop || is_comment(*c))
            continue;
        if (*c == '[') {
            char sec[64];
            size_t n = 0;
            c++;
            while (c < stop && *c != ']' && n + 1 < sizeof sec)
                sec[n++] = *c++;
            sec[n] = 0;
            if (c >= stop || *c != ']') {
                rs_errf(err, err_len, "%s:%d: expected [SECTION]", name, line);
                return RS_ERR_PARSE;
            }
            section = find_section(sec);
            in_table = 0;
            if (section != SEC_NONE && ps.section_line[section] == 0)
                ps.section_line[section] = line;
            continue;
        }
        /* A '{' opens a table (the [SHAPE] block): its rows run to the next
         * section header and are not KEY = value lines. */
        if (*c == '{')
            in_table = 1;
        if (in_table || section == SEC_NONE)
            continue;
        st = parse_assignment(&ps, section, line, c, stop);
        if (st != RS_OK)
            return st;
    }
    ps.last_line = line;

    /* Required keys: point at the section they belong in (or the end). */
    for (size_t i = 0; i < NKEYS; i++) {
        if (keys[i].required && !ps.line_of[i]) {
            int at = ps.section_line[keys[i].section] ? ps.section_line[keys[i].section]
                                                      : ps.last_line;
            rs_errf(err, err_len, "%s:%d: %s: required key missing from [%s]", name, at,
                    keys[i].key, section_names[keys[i].section]);
            return RS_ERR_MISSING;
        }
    }

    /* [UNITS] may come anywhere: convert once everything is read. */
    for (size_t i = 0; i < NKEYS; i++)
        if (ps.line_of[i])
            *field_of(&p, i) *= dim_factor(&ps, keys[i].dim);
    if (!ps.line_of[key_index("FZMAX")])
        p.fzmax = 3.0 * p.fnomin;

    origin o = {name, ps.line_of};
    st = validate(&p, &o, err, err_len);
    if (st != RS_OK)
        return st;
    derive(&p);
    *out = p;
    return RS_OK;
}

rs_status rs_tir_load(const char *path, rs_tire_params *out, char *err, size_t err_len)
{
    enum { MAX_TIR_BYTES = 4 << 20 };
    char *buf = NULL;
    size_t len = 0;
    rs_status st;

    if (err && err_len)
        err[0] = 0;
    if (!path || !out) {
        rs_errf(err, err_len, "rs_tir_load: no path");
        return RS_ERR_ARG;
    }
    st = rs_read_file(path, MAX_TIR_BYTES, &buf, &len, err, err_len);
    if (st != RS_OK)
        return st;
    st = rs_tir_parse(buf, len, path, out, err, err_len);
    free(buf);
    return st;
}

/* Canonical form: the tag "TIR1" (u32), then every RS_TIR_KEYS field as f64
 * in table order (= the order of rs_tire_params: [MODEL], [DIMENSION],
 * [VERTICAL], ranges, scaling, longitudinal, overturning, lateral, rolling,
 * aligning). Derived fields are not written. */
void rs_tire_params_write(const rs_tire_params *p, rs_writer *w)
{
    rs_write_u32(w, RS_TIRE_PARAMS_TAG);
    for (size_t i = 0; i < NKEYS; i++)
        rs_write_f64(w, field_get(p, i));
}

rs_status rs_tire_params_read(rs_reader *r, rs_tire_params *out, char *err, size_t err_len)
{
    rs_tire_params p;
    origin o = {"tyre parameters", NULL};
    rs_status st;

    if (err && err_len)
        err[0] = 0;
    memset(&p, 0, sizeof p);
    if (rs_read_u32(r) != RS_TIRE_PARAMS_TAG) {
        rs_errf(err, err_len, "tyre parameters: not a TIR1 block");
        return r->error ? RS_ERR_BUFFER : RS_ERR_FORMAT;
    }
    for (size_t i = 0; i < NKEYS; i++)
        *field_of(&p, i) = rs_read_f64(r);
    if (r->error) {
        rs_errf(err, err_len, "tyre parameters: truncated or non-finite");
        return RS_ERR_BUFFER;
    }
    st = validate(&p, &o, err, err_len);
    if (st != RS_OK)
        return st;
    derive(&p);
    *out = p;
    return RS_OK;
}
