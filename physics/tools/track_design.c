/*
 * `racesim track design`: builds a track file from a design spec.
 *
 * Designing a circuit by hand is easy except for one thing: making the loop
 * close. This file lets a designer describe a circuit the way it is driven
 * (a start pose, then straights, arcs, clothoids and corners, each with its
 * widths, kerbs and run-off) and closes it: the piece headings are fixed by
 * their angles, so the end position is linear in the lengths of the
 * straights, and the two straights marked "auto" get the lengths that bring
 * the end back to the start (a 2x2 linear solve). The pieces are then sampled
 * into the loader's centre line (docs/TRACKS.md), and kerbs, run-off zones,
 * sector lines and the grid are placed by station.
 *
 * Clothoids (curvature changing linearly with distance) are what real roads
 * and circuits use between a straight and an arc: a car's steering follows
 * the curvature, so a clothoid entry asks for a steady steering rate rather
 * than a step, which the AI driver and the cars both handle much better.
 *
 * The trigonometry comes from detmath, and every number written is rounded
 * to a millimetre (or a microradian), so a spec gives the same file on every
 * machine. The floating point here only affects the file, never a running
 * simulation. The spec format is documented in docs/TRACK_DESIGNER.md.
 */
#include "track_design.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "racesim/base/err.h"
#include "detmath.h"
#include "json.h"

#define CMD "track design"

#define TD_MAX_PIECES 256
#define TD_MAX_ZONES 8          /* kerbs, and run-off zones, per piece */
#define TD_MAX_POINTS 40000
#define TD_MAX_WALLS 32
#define TD_MAX_WALL_POINTS 4096
#define TD_MAX_OUT_ZONES (2 * TD_MAX_PIECES * TD_MAX_ZONES)
#define TD_NAME_MAX 63          /* the loader keeps 64 bytes with the NUL */
#define TD_LABEL_MAX 47
#define TD_MIN_RADIUS_M 5.0     /* below this no car gets round */
#define TD_MIN_AUTO_M 1.0       /* shortest straight the closure may produce */
#define TD_HEADING_TOL_DEG 1e-3 /* how far from +-360 the pieces may turn */
#define TD_CLOSE_TOL_M 1e-3     /* gap allowed without auto straights */
#define TD_SIMPSON_STEP_M 0.1   /* clothoid integration step */
#define TD_MIN_POINT_GAP_M 0.5  /* closer samples are merged */
#define TD_LINE_KERB_GAP_M 3.0  /* timing lines keep this far from kerbs */
#define TD_LINE_MAX_SHIFT_M 60.0 /* and move forwards at most this far for it */
#define TD_LINE_MIN_GAP_M 10.0  /* between timing lines (the loader's rule) */
#define TD_GRID_MIN_RADIUS_M 200.0 /* grid slots lie on straights or gentle curves */
#define TD_DEG (RS_PI / 180.0)

enum { KIND_STRAIGHT, KIND_ARC, KIND_CLOTHOID, KIND_CORNER };
enum { SIDE_LEFT, SIDE_RIGHT, SIDE_INSIDE, SIDE_OUTSIDE };
enum { AT_ALL, AT_ENTRY, AT_APEX, AT_EXIT };
enum { SURF_ASPHALT, SURF_GRASS, SURF_GRAVEL };
enum { OFFSET_DEFAULT, OFFSET_NONE, OFFSET_GIVEN }; /* a generated barrier's offset */

static const char *const surface_names[] = {"asphalt", "grass", "gravel"};
static const char *const kind_names[] = {"straight", "arc", "clothoid", "corner"};

/* A kerb or run-off zone as the spec gives it, relative to its piece. */
typedef struct td_zone {
    int side, at, surface;
    double width_m;
    bool has_from, has_to;
    double from_m, to_m, extend_m;
} td_zone;

/* A stretch whose curvature goes linearly from k0 to k1 (1/m, + = left):
 * a straight (0, 0), an arc (k, k) or a clothoid. */
typedef struct td_part {
    double len, k0, k1;
} td_part;

typedef struct td_piece {
    int kind;
    char name[33];                /* as given, or "" */
    char label[TD_LABEL_MAX + 1]; /* "piece 3" or "piece 3 (Hairpin)", for messages */
    bool auto_len, sector_line;
    double sector_at_m;           /* where in the piece the sector line is */
    /* as given */
    double length_m, radius_m, angle_deg, entry_m, exit_m, to_k;
    double wl, wr;                /* widths from this piece on */
    td_zone kerb[TD_MAX_ZONES];
    uint32_t nkerb;
    td_zone runoff[TD_MAX_ZONES];
    uint32_t nrunoff;
    /* derived */
    td_part part[3];
    uint32_t nparts;
    double len, dh;               /* arc length and heading change */
    double ldx, ldy;              /* end position in the piece's start frame */
    double x0, y0, h0, s0;        /* start pose and arc-length station */
} td_piece;

typedef struct td_wall {
    uint32_t first, points;       /* into td_spec.wall_xy (points) */
    bool closed;
    double restitution, friction; /* < 0: the barriers' values */
} td_wall;

typedef struct td_spec {
    char name[TD_NAME_MAX + 1];
    double x0, y0, h0;
    double wl, wr, blend_m, kerb_w;
    int runoff;
    double curve_m, straight_m, max_turn_rad;
    int offset_mode[2];           /* [SIDE_LEFT/RIGHT]: OFFSET_* */
    double offset[2];
    double restitution, friction; /* < 0: the loader's defaults */
    td_wall wall[TD_MAX_WALLS];
    uint32_t nwall;
    double *wall_xy;
    uint32_t grid_slots;
    double grid_first_m, grid_row_m, grid_stagger_m, grid_col_m;
    bool grid_col_given;
    int pole_side;
    td_piece *piece;
    uint32_t npieces;
} td_spec;

/* A centre-line point as sampled, then as written. */
typedef struct td_point {
    double x, y;                  /* rounded to the millimetre once kept */
    double arc;                   /* arc-length station of the design */
    double s;                     /* chord station (the loader's) */
    double t;                     /* distance into its piece */
    double k;                     /* design curvature here */
    double wl, wr;
    uint32_t piece;
} td_point;

/* A zone by station, as written. */
typedef struct td_out_zone {
    int side, surface;
    double from, to, width;
    uint32_t piece;
} td_out_zone;

typedef struct td_build {
    td_point *pt;
    uint32_t n;
    double arc_total, length;
    td_out_zone *kerb, *runoff;
    uint32_t nkerb, nrunoff;
    double sector_s[RS_TRACK_MAX_LINES];
    uint32_t nsectors;
    double grid[RS_TRACK_MAX_GRID][3];
} td_build;

/* ---------------------------------------------------------------- helpers */

static double round_unit(double v, double per_unit)
{
    /* |v| is bounded by the spec limits (well below 1e9), so the cast is
     * in range; dividing an exact integer by 1000 gives the double nearest
     * the decimal, which then prints in few digits. */
    double x = v * per_unit;
    int64_t n = (int64_t)(x < 0.0 ? x - 0.5 : x + 0.5);
    return (double)n / per_unit;
}

static double round_mm(double v) { return round_unit(v, 1000.0); }

/* For messages: no "-0.00" from a rounding-sized negative. */
static double tidy(double v) { return rs_abs(v) < 0.005 ? 0.0 : v; }

static uint32_t ceil_count(double x)
{
    uint32_t n = (uint32_t)x;
    if ((double)n < x)
        n++;
    return n;
}

/* Writes a message into err; returns false so that "return fail(...)" reads
 * naturally. */
RS_PRINTF(3, 4)
static bool fail(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rs_verrf(err, err_len, fmt, ap);
    va_end(ap);
    return false;
}

/* ---------------------------------------------------------------- geometry */

typedef struct pose {
    double x, y, h;
} pose;

static pose compose(pose a, pose b)
{
    double s, c;
    rs_sincos(a.h, &s, &c);
    pose r = {a.x + c * b.x - s * b.y, a.y + s * b.x + c * b.y, a.h + b.h};
    return r;
}

static double part_heading(const td_part *p, double t)
{
    return p->k0 * t + (p->k1 - p->k0) * t * t / (2.0 * p->len);
}

static double part_curvature(const td_part *p, double t)
{
    return p->len > 0.0 ? p->k0 + (p->k1 - p->k0) * t / p->len : p->k0;
}

/* The pose at distance t along a part that starts at the origin heading
 * along +x. Arcs are exact; a clothoid's position is the Fresnel integral
 * of (cos, sin) of its heading, taken with Simpson's rule in steps of at
 * most TD_SIMPSON_STEP_M (error far below a micrometre). */
static pose part_pose(const td_part *p, double t)
{
    pose r = {0.0, 0.0, 0.0};
    if (t <= 0.0)
        return r;
    if (p->k0 == p->k1) {
        double k = p->k0;
        if (k == 0.0) {
            r.x = t;
            return r;
        }
        double h = k * t, sh = rs_sin(0.5 * h);
        r.x = rs_sin(h) / k;
        r.y = 2.0 * sh * sh / k; /* (1 - cos h) / k without the cancellation */
        r.h = h;
        return r;
    }
    uint32_t m = ceil_count(t / TD_SIMPSON_STEP_M);
    if (m < 2)
        m = 2;
    if (m & 1u)
        m++;
    double step = t / (double)m, sx = 0.0, sy = 0.0;
    for (uint32_t i = 0; i <= m; i++) {
        double s, c, w = (i == 0 || i == m) ? 1.0 : ((i & 1u) ? 4.0 : 2.0);
        rs_sincos(part_heading(p, step * (double)i), &s, &c);
        sx += w * c;
        sy += w * s;
    }
    r.x = sx * step / 3.0;
    r.y = sy * step / 3.0;
    r.h = part_heading(p, t);
    return r;
}

/* -------------------------------------------------------------- spec input */

static bool get_widths(rs_json_ctx *c, const rs_json *obj, double *wl, double *wr)
{
    const rs_json *w = rs_json_get(obj, "width_m");
    if (w) {
        double total;
        if (rs_json_get(obj, "width_left_m") || rs_json_get(obj, "width_right_m"))
            return rs_json_fail(c, RS_ERR_PARSE,
                                "give either width_m or width_left_m/width_right_m, not both");
        if (!rs_json_get_number(c, obj, "width_m", 4.0, 60.0, &total))
            return false;
        *wl = *wr = 0.5 * total;
        return true;
    }
    if (rs_json_get(obj, "width_left_m") && !rs_json_get_number(c, obj, "width_left_m", 2.0, 30.0, wl))
        return false;
    if (rs_json_get(obj, "width_right_m") && !rs_json_get_number(c, obj, "width_right_m", 2.0, 30.0, wr))
        return false;
    return true;
}

static bool get_enum(rs_json_ctx *c, const rs_json *obj, const char *key,
                     const char *const *names, int count, int *out)
{
    const char *s;
    if (!rs_json_get_string(c, obj, key, 32, &s))
        return false;
    for (int i = 0; i < count; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return true;
        }
    size_t mark = rs_json_ctx_push_key(c, key);
    char list[160] = "";
    for (int i = 0; i < count; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? ", " : "", names[i]);
    }
    rs_json_fail(c, RS_ERR_PARSE, "\"%s\" is not one of %s", s, list);
    rs_json_ctx_pop(c, mark);
    return false;
}

static bool read_zones(rs_json_ctx *c, const rs_json *piece, const char *key, bool is_kerb,
                       double kerb_w, td_zone *out, uint32_t *count)
{
    static const char *const kerb_keys[] = {"side", "width_m", "at", "from_m", "to_m", "extend_m"};
    static const char *const runoff_keys[] = {"side", "surface", "at", "from_m", "to_m", "extend_m"};
    static const char *const sides[] = {"left", "right", "inside", "outside"};
    static const char *const ats[] = {"all", "entry", "apex", "exit"};
    const rs_json *arr = rs_json_get(piece, key);
    *count = 0;
    if (!arr)
        return true;
    if (!(arr = rs_json_get_array(c, piece, key, 1, TD_MAX_ZONES)))
        return false;
    size_t mark = rs_json_ctx_push_key(c, key);
    for (size_t i = 0; i < rs_json_count(arr) && c->status == RS_OK; i++) {
        const rs_json *z = rs_json_at(arr, i);
        td_zone *o = &out[i];
        size_t m2 = rs_json_ctx_push_index(c, i);
        memset(o, 0, sizeof *o);
        o->width_m = kerb_w;
        o->surface = SURF_GRAVEL;
        if (rs_json_as_kind(c, z, RS_JSON_OBJECT)) {
            rs_json_check_keys(c, z, is_kerb ? kerb_keys : runoff_keys, 6);
            get_enum(c, z, "side", sides, 4, &o->side);
            if (rs_json_get(z, "at"))
                get_enum(c, z, "at", ats, 4, &o->at);
            if (is_kerb && rs_json_get(z, "width_m"))
                rs_json_get_number(c, z, "width_m", 0.2, 5.0, &o->width_m);
            if (!is_kerb)
                get_enum(c, z, "surface", surface_names, 3, &o->surface);
            if ((o->has_from = rs_json_get(z, "from_m") != NULL))
                rs_json_get_number(c, z, "from_m", -1e4, 1e5, &o->from_m);
            if ((o->has_to = rs_json_get(z, "to_m") != NULL))
                rs_json_get_number(c, z, "to_m", -1e4, 1e5, &o->to_m);
            if (rs_json_get(z, "extend_m"))
                rs_json_get_number(c, z, "extend_m", -1e4, 1e4, &o->extend_m);
        }
        rs_json_ctx_pop(c, m2);
    }
    rs_json_ctx_pop(c, mark);
    *count = (uint32_t)rs_json_count(arr);
    return c->status == RS_OK;
}

static bool read_piece(rs_json_ctx *c, const rs_json *o, uint32_t index, td_spec *sp, double *wl,
                       double *wr)
{
    static const char *const keys[] = {"type",    "name",         "length_m",      "radius_m",
                                       "angle_deg", "entry_m",    "exit_m",        "to_radius_m",
                                       "turn",    "width_m",      "width_left_m",  "width_right_m",
                                       "kerbs",   "runoff",       "sector_line"};
    static const char *const turns[] = {"left", "right"};
    td_piece *p = &sp->piece[index];
    const char *label = NULL;
    memset(p, 0, sizeof *p);
    if (!rs_json_as_kind(c, o, RS_JSON_OBJECT))
        return false;
    rs_json_check_keys(c, o, keys, sizeof keys / sizeof keys[0]);
    get_enum(c, o, "type", kind_names, 4, &p->kind);
    if (rs_json_get(o, "name"))
        rs_json_get_string(c, o, "name", 32, &label);
    if (c->status != RS_OK)
        return false;
    if (label) {
        snprintf(p->name, sizeof p->name, "%s", label);
        snprintf(p->label, sizeof p->label, "piece %u (%s)", (unsigned)index, label);
    }
    else
        snprintf(p->label, sizeof p->label, "piece %u", (unsigned)index);

    /* Reject the fields of other kinds, so a misplaced one is not ignored. */
    static const char *const used[4][5] = {
        {"length_m", NULL},
        {"radius_m", "angle_deg", NULL},
        {"length_m", "to_radius_m", "turn", NULL},
        {"radius_m", "angle_deg", "entry_m", "exit_m", NULL},
    };
    static const char *const shape_keys[] = {"length_m", "radius_m", "angle_deg", "entry_m",
                                             "exit_m", "to_radius_m", "turn"};
    for (size_t i = 0; i < sizeof shape_keys / sizeof shape_keys[0]; i++) {
        bool ok = false;
        for (size_t j = 0; used[p->kind][j]; j++)
            ok |= strcmp(used[p->kind][j], shape_keys[i]) == 0;
        if (!ok && rs_json_get(o, shape_keys[i])) {
            size_t mark = rs_json_ctx_push_key(c, shape_keys[i]);
            rs_json_fail(c, RS_ERR_PARSE, "not a field of a %s piece", kind_names[p->kind]);
            rs_json_ctx_pop(c, mark);
            return false;
        }
    }

    switch (p->kind) {
    case KIND_STRAIGHT: {
        const rs_json *len = rs_json_get(o, "length_m");
        if (len && rs_json_kind_of(len) == RS_JSON_STRING) {
            size_t mark = rs_json_ctx_push_key(c, "length_m");
            if (strcmp(rs_json_string(len, NULL), "auto") != 0)
                rs_json_fail(c, RS_ERR_PARSE, "expected a number or \"auto\"");
            rs_json_ctx_pop(c, mark);
            p->auto_len = true;
        } else {
            rs_json_get_number(c, o, "length_m", 0.5, 1e5, &p->length_m);
        }
        break;
    }
    case KIND_ARC:
    case KIND_CORNER:
        rs_json_get_number(c, o, "radius_m", TD_MIN_RADIUS_M, 1e5, &p->radius_m);
        rs_json_get_number(c, o, "angle_deg", -360.0, 360.0, &p->angle_deg);
        if (c->status == RS_OK && p->angle_deg == 0.0) {
            size_t mark = rs_json_ctx_push_key(c, "angle_deg");
            rs_json_fail(c, RS_ERR_RANGE, "must not be 0 (+ turns left, - turns right)");
            rs_json_ctx_pop(c, mark);
        }
        if (p->kind == KIND_CORNER) {
            if (rs_json_get(o, "entry_m"))
                rs_json_get_number(c, o, "entry_m", 0.0, 1e4, &p->entry_m);
            if (rs_json_get(o, "exit_m"))
                rs_json_get_number(c, o, "exit_m", 0.0, 1e4, &p->exit_m);
        }
        break;
    case KIND_CLOTHOID:
        rs_json_get_number(c, o, "length_m", 0.5, 1e4, &p->length_m);
        if (rs_json_get(o, "to_radius_m") || rs_json_get(o, "turn")) {
            int turn = 0;
            double r = 1.0;
            rs_json_get_number(c, o, "to_radius_m", TD_MIN_RADIUS_M, 1e5, &r);
            get_enum(c, o, "turn", turns, 2, &turn);
            p->to_k = (turn == 0 ? 1.0 : -1.0) / r;
        }
        break;
    default:
        break;
    }
    get_widths(c, o, wl, wr);
    p->wl = *wl;
    p->wr = *wr;
    read_zones(c, o, "kerbs", true, sp->kerb_w, p->kerb, &p->nkerb);
    read_zones(c, o, "runoff", false, sp->kerb_w, p->runoff, &p->nrunoff);
    /* sector_line: true (at the piece's start) or metres into the piece. */
    const rs_json *sl = rs_json_get(o, "sector_line");
    if (sl && rs_json_kind_of(sl) == RS_JSON_NUMBER) {
        p->sector_line = rs_json_get_number(c, o, "sector_line", 0.0, 1e5, &p->sector_at_m);
    } else if (sl) {
        rs_json_get_bool(c, o, "sector_line", &p->sector_line);
    }
    return c->status == RS_OK;
}

static bool read_walls(rs_json_ctx *c, const rs_json *barriers, td_spec *sp)
{
    static const char *const wall_keys[] = {"points", "closed", "restitution", "friction"};
    const rs_json *walls = rs_json_get(barriers, "walls");
    uint32_t used = 0;
    if (!walls)
        return true;
    if (!(walls = rs_json_get_array(c, barriers, "walls", 0, TD_MAX_WALLS)))
        return false;
    sp->wall_xy = malloc(sizeof(double) * 2 * TD_MAX_WALL_POINTS);
    if (!sp->wall_xy)
        return rs_json_fail(c, RS_ERR_NOMEM, "out of memory");
    size_t mark = rs_json_ctx_push_key(c, "walls");
    for (size_t i = 0; i < rs_json_count(walls) && c->status == RS_OK; i++) {
        const rs_json *w = rs_json_at(walls, i), *pts;
        size_t m2 = rs_json_ctx_push_index(c, i);
        td_wall *tw = &sp->wall[sp->nwall];
        if (rs_json_as_kind(c, w, RS_JSON_OBJECT)) {
            rs_json_check_keys(c, w, wall_keys, 4);
            tw->closed = false;
            tw->restitution = tw->friction = -1.0;
            if (rs_json_get(w, "closed"))
                rs_json_get_bool(c, w, "closed", &tw->closed);
            if (rs_json_get(w, "restitution"))
                rs_json_get_number(c, w, "restitution", 0.0, 1.0, &tw->restitution);
            if (rs_json_get(w, "friction"))
                rs_json_get_number(c, w, "friction", 0.0, 2.0, &tw->friction);
            if ((pts = rs_json_get_array(c, w, "points", tw->closed ? 3 : 2,
                                         TD_MAX_WALL_POINTS - used))) {
                size_t m3 = rs_json_ctx_push_key(c, "points");
                tw->first = used;
                for (size_t j = 0; j < rs_json_count(pts) && c->status == RS_OK; j++) {
                    const rs_json *xy = rs_json_at(pts, j);
                    size_t m4 = rs_json_ctx_push_index(c, j);
                    if (rs_json_as_array(c, xy, 2, 2)) {
                        rs_json_as_number(c, rs_json_at(xy, 0), -1e6, 1e6, &sp->wall_xy[2 * used]);
                        rs_json_as_number(c, rs_json_at(xy, 1), -1e6, 1e6,
                                          &sp->wall_xy[2 * used + 1]);
                        used++;
                    }
                    rs_json_ctx_pop(c, m4);
                }
                tw->points = used - tw->first;
                rs_json_ctx_pop(c, m3);
            }
            sp->nwall++;
        }
        rs_json_ctx_pop(c, m2);
    }
    rs_json_ctx_pop(c, mark);
    return c->status == RS_OK;
}

static bool read_spec(rs_json_ctx *c, const rs_json *root, td_spec *sp)
{
    static const char *const top[] = {"format",       "version",       "name",          "start",
                                      "width_m",      "width_left_m",  "width_right_m", "width_blend_m",
                                      "kerb_width_m", "runoff",        "spacing",       "barriers",
                                      "grid",         "pieces"};
    static const char *const start_keys[] = {"x_m", "y_m", "heading_deg"};
    static const char *const spacing_keys[] = {"curve_m", "straight_m", "max_turn_deg"};
    static const char *const barrier_keys[] = {"offset_left_m", "offset_right_m", "restitution",
                                               "friction", "walls"};
    static const char *const grid_keys[] = {"slots", "first_row_m", "row_m", "stagger_m",
                                            "column_offset_m", "pole_side"};
    static const char *const sides[] = {"left", "right"};
    const char *s;
    const rs_json *o, *pieces;
    int64_t version = 0;

    if (!rs_json_as_kind(c, root, RS_JSON_OBJECT))
        return false;
    rs_json_check_keys(c, root, top, sizeof top / sizeof top[0]);
    if (rs_json_get_string(c, root, "format", 64, &s) && strcmp(s, "racesim-track-design") != 0) {
        size_t mark = rs_json_ctx_push_key(c, "format");
        rs_json_fail(c, RS_ERR_FORMAT, "expected \"racesim-track-design\"");
        rs_json_ctx_pop(c, mark);
    }
    rs_json_get_integer(c, root, "version", 1, 1, &version);
    if (rs_json_get_string(c, root, "name", TD_NAME_MAX, &s))
        snprintf(sp->name, sizeof sp->name, "%s", s);

    sp->x0 = sp->y0 = sp->h0 = 0.0;
    if (rs_json_get(root, "start") && (o = rs_json_get_object(c, root, "start"))) {
        size_t mark = rs_json_ctx_push_key(c, "start");
        double hdeg = 0.0;
        rs_json_check_keys(c, o, start_keys, 3);
        if (rs_json_get(o, "x_m"))
            rs_json_get_number(c, o, "x_m", -1e5, 1e5, &sp->x0);
        if (rs_json_get(o, "y_m"))
            rs_json_get_number(c, o, "y_m", -1e5, 1e5, &sp->y0);
        if (rs_json_get(o, "heading_deg"))
            rs_json_get_number(c, o, "heading_deg", -360.0, 360.0, &hdeg);
        sp->h0 = hdeg * TD_DEG;
        rs_json_ctx_pop(c, mark);
    }
    sp->wl = sp->wr = 0.0;
    if (!rs_json_get(root, "width_m") &&
        !(rs_json_get(root, "width_left_m") && rs_json_get(root, "width_right_m")))
        rs_json_fail(c, RS_ERR_MISSING, "width_m (or width_left_m and width_right_m): required");
    get_widths(c, root, &sp->wl, &sp->wr);
    sp->blend_m = 30.0;
    if (rs_json_get(root, "width_blend_m"))
        rs_json_get_number(c, root, "width_blend_m", 1.0, 500.0, &sp->blend_m);
    sp->kerb_w = 1.0;
    if (rs_json_get(root, "kerb_width_m"))
        rs_json_get_number(c, root, "kerb_width_m", 0.2, 5.0, &sp->kerb_w);
    sp->runoff = SURF_GRASS;
    if (rs_json_get(root, "runoff"))
        get_enum(c, root, "runoff", surface_names, 3, &sp->runoff);

    sp->curve_m = 3.0;
    sp->straight_m = 10.0;
    sp->max_turn_rad = 8.0 * TD_DEG;
    if (rs_json_get(root, "spacing") && (o = rs_json_get_object(c, root, "spacing"))) {
        size_t mark = rs_json_ctx_push_key(c, "spacing");
        double deg = 8.0;
        rs_json_check_keys(c, o, spacing_keys, 3);
        if (rs_json_get(o, "curve_m"))
            rs_json_get_number(c, o, "curve_m", 1.0, 10.0, &sp->curve_m);
        if (rs_json_get(o, "straight_m"))
            rs_json_get_number(c, o, "straight_m", 1.0, 20.0, &sp->straight_m);
        if (rs_json_get(o, "max_turn_deg"))
            rs_json_get_number(c, o, "max_turn_deg", 1.0, 15.0, &deg);
        sp->max_turn_rad = deg * TD_DEG;
        rs_json_ctx_pop(c, mark);
    }

    sp->restitution = sp->friction = -1.0;
    if (rs_json_get(root, "barriers") && (o = rs_json_get_object(c, root, "barriers"))) {
        static const char *const offset_keys[2] = {"offset_left_m", "offset_right_m"};
        size_t mark = rs_json_ctx_push_key(c, "barriers");
        rs_json_check_keys(c, o, barrier_keys, 5);
        for (int side = 0; side < 2; side++) {
            const rs_json *v = rs_json_get(o, offset_keys[side]);
            if (v && rs_json_kind_of(v) == RS_JSON_BOOL && !rs_json_bool(v)) {
                sp->offset_mode[side] = OFFSET_NONE;
            } else if (v) {
                sp->offset_mode[side] = OFFSET_GIVEN;
                rs_json_get_number(c, o, offset_keys[side], 1.0, 200.0, &sp->offset[side]);
            }
        }
        if (rs_json_get(o, "restitution"))
            rs_json_get_number(c, o, "restitution", 0.0, 1.0, &sp->restitution);
        if (rs_json_get(o, "friction"))
            rs_json_get_number(c, o, "friction", 0.0, 2.0, &sp->friction);
        read_walls(c, o, sp);
        rs_json_ctx_pop(c, mark);
    }

    sp->grid_slots = 24;
    sp->grid_first_m = 10.0;
    sp->grid_row_m = 8.0;
    sp->grid_stagger_m = 4.0;
    sp->pole_side = SIDE_LEFT;
    if (rs_json_get(root, "grid") && (o = rs_json_get_object(c, root, "grid"))) {
        size_t mark = rs_json_ctx_push_key(c, "grid");
        int64_t slots = 24;
        rs_json_check_keys(c, o, grid_keys, 6);
        if (rs_json_get(o, "slots"))
            rs_json_get_integer(c, o, "slots", 1, RS_TRACK_MAX_GRID, &slots);
        sp->grid_slots = (uint32_t)slots;
        if (rs_json_get(o, "first_row_m"))
            rs_json_get_number(c, o, "first_row_m", 3.0, 100.0, &sp->grid_first_m);
        if (rs_json_get(o, "row_m"))
            rs_json_get_number(c, o, "row_m", 6.0, 30.0, &sp->grid_row_m);
        if (rs_json_get(o, "stagger_m"))
            rs_json_get_number(c, o, "stagger_m", 0.0, 30.0, &sp->grid_stagger_m);
        if ((sp->grid_col_given = rs_json_get(o, "column_offset_m") != NULL))
            rs_json_get_number(c, o, "column_offset_m", 0.0, 20.0, &sp->grid_col_m);
        if (rs_json_get(o, "pole_side"))
            get_enum(c, o, "pole_side", sides, 2, &sp->pole_side);
        rs_json_ctx_pop(c, mark);
    }
    if (c->status != RS_OK)
        return false;

    if (!(pieces = rs_json_get_array(c, root, "pieces", 3, TD_MAX_PIECES)))
        return false;
    sp->npieces = (uint32_t)rs_json_count(pieces);
    sp->piece = calloc(sp->npieces, sizeof *sp->piece);
    if (!sp->piece)
        return rs_json_fail(c, RS_ERR_NOMEM, "out of memory");
    size_t mark = rs_json_ctx_push_key(c, "pieces");
    double wl = sp->wl, wr = sp->wr;
    for (uint32_t i = 0; i < sp->npieces && c->status == RS_OK; i++) {
        size_t m2 = rs_json_ctx_push_index(c, i);
        read_piece(c, rs_json_at(pieces, i), i, sp, &wl, &wr);
        rs_json_ctx_pop(c, m2);
    }
    rs_json_ctx_pop(c, mark);
    return c->status == RS_OK;
}

/* ------------------------------------------------------------- the layout */

static double end_curvature(const td_piece *p)
{
    switch (p->kind) {
    case KIND_ARC:
        return (p->angle_deg > 0.0 ? 1.0 : -1.0) / p->radius_m;
    case KIND_CLOTHOID:
        return p->to_k;
    case KIND_CORNER:
        return p->exit_m > 0.0 ? 0.0 : (p->angle_deg > 0.0 ? 1.0 : -1.0) / p->radius_m;
    default:
        return 0.0;
    }
}

static void add_part(td_piece *p, double len, double k0, double k1)
{
    if (len <= 0.0)
        return;
    td_part *q = &p->part[p->nparts++];
    q->len = len;
    q->k0 = k0;
    q->k1 = k1;
}

/* Splits each piece into parts (given the curvature the previous piece ends
 * with) and sums the turning. heading_deg gets the sum in degrees, taking
 * arc and corner angles as written so that 90 + 90 + 180 is exactly 360. */
static bool make_parts(const char *file, td_spec *sp, double *heading_deg, char *err, size_t err_len)
{
    double sum = 0.0;
    for (uint32_t i = 0; i < sp->npieces; i++) {
        td_piece *p = &sp->piece[i];
        double kprev = end_curvature(&sp->piece[(i + sp->npieces - 1) % sp->npieces]);
        double k = (p->angle_deg > 0.0 ? 1.0 : -1.0) / (p->radius_m > 0.0 ? p->radius_m : 1.0);
        p->nparts = 0;
        switch (p->kind) {
        case KIND_STRAIGHT:
            add_part(p, p->length_m, 0.0, 0.0);
            p->dh = 0.0;
            break;
        case KIND_ARC:
            p->dh = p->angle_deg * TD_DEG;
            add_part(p, p->dh / k, k, k);
            sum += p->angle_deg;
            break;
        case KIND_CLOTHOID:
            if (kprev == p->to_k)
                return fail(err, err_len,
                            "%s: %s: a clothoid must change the curvature (the previous piece "
                            "already ends at this radius); use an arc or a straight",
                            file, p->label);
            add_part(p, p->length_m, kprev, p->to_k);
            p->dh = 0.5 * (kprev + p->to_k) * p->length_m;
            sum += p->dh / TD_DEG;
            break;
        case KIND_CORNER: {
            double in_h = 0.5 * (kprev + k) * p->entry_m, out_h = 0.5 * k * p->exit_m;
            double arc_h = p->angle_deg * TD_DEG - in_h - out_h;
            if (arc_h * k < -1e-12)
                return fail(err, err_len,
                            "%s: %s: the corner turns %g deg but its clothoids alone (entry %g m, "
                            "exit %g m at radius %g m) turn %.2f deg; shorten them or raise the angle",
                            file, p->label, p->angle_deg, p->entry_m, p->exit_m, p->radius_m,
                            (in_h + out_h) / TD_DEG);
            add_part(p, p->entry_m, kprev, k);
            if (arc_h * k > 0.0)
                add_part(p, arc_h / k, k, k);
            add_part(p, p->exit_m, k, 0.0);
            p->dh = p->angle_deg * TD_DEG;
            sum += p->angle_deg;
            break;
        }
        default:
            break;
        }
        p->len = 0.0;
        for (uint32_t j = 0; j < p->nparts; j++)
            p->len += p->part[j].len;
        /* The piece's end in its own frame (unit length for an auto straight:
         * the closure scales it). */
        pose q = {0.0, 0.0, 0.0};
        for (uint32_t j = 0; j < p->nparts; j++)
            q = compose(q, part_pose(&p->part[j], p->part[j].len));
        p->ldx = p->auto_len ? 1.0 : q.x;
        p->ldy = p->auto_len ? 0.0 : q.y;
    }
    *heading_deg = sum;
    if (rs_abs(rs_abs(sum) - 360.0) > TD_HEADING_TOL_DEG)
        return fail(err, err_len,
                    "%s: the pieces turn by %.4f deg in total; a closed track turns by exactly "
                    "+360 (anticlockwise) or -360 (clockwise) deg: %.4f deg %s",
                    file, sum, sum >= 0.0 ? 360.0 - sum : -360.0 - sum,
                    rs_abs(sum) < 360.0 ? "missing" : "too many");
    return true;
}

/* Solves the auto straights so that the last piece ends at the start, then
 * places every piece. */
static bool close_loop(const char *file, td_spec *sp, rs_td_info *info, char *err, size_t err_len)
{
    uint32_t autos[RS_TD_MAX_AUTO], na = 0;
    double h = sp->h0, fx = 0.0, fy = 0.0;
    for (uint32_t i = 0; i < sp->npieces; i++) {
        td_piece *p = &sp->piece[i];
        double s, c;
        p->h0 = h;
        if (p->auto_len) {
            if (na == RS_TD_MAX_AUTO)
                return fail(err, err_len,
                            "%s: %s: at most two straights may have \"length_m\": \"auto\"", file,
                            p->label);
            autos[na++] = i;
        } else {
            rs_sincos(h, &s, &c);
            fx += c * p->ldx - s * p->ldy;
            fy += s * p->ldx + c * p->ldy;
        }
        h += p->dh;
    }
    /* The autos must supply r = -(fixed displacement). */
    double rx = -fx, ry = -fy, len[RS_TD_MAX_AUTO] = {0.0, 0.0};
    if (na == 0) {
        double gap = rs_sqrt(rx * rx + ry * ry);
        if (gap > TD_CLOSE_TOL_M)
            return fail(err, err_len,
                        "%s: the pieces end %.3f m from the start (missing dx %.3f m, dy %.3f m); "
                        "mark two straights that are not parallel with \"length_m\": \"auto\"",
                        file, gap, tidy(rx), tidy(ry));
    } else if (na == 1) {
        td_piece *a = &sp->piece[autos[0]];
        double s, c;
        rs_sincos(a->h0, &s, &c);
        len[0] = rx * c + ry * s;
        double across = -rx * s + ry * c;
        if (rs_abs(across) > TD_CLOSE_TOL_M)
            return fail(err, err_len,
                        "%s: one auto straight (%s) can only close a gap along itself, but the gap "
                        "is %.3f m across it; mark a second, non-parallel straight \"auto\"",
                        file, a->label, across);
    } else {
        td_piece *a = &sp->piece[autos[0]], *b = &sp->piece[autos[1]];
        double sa, ca, sb, cb;
        rs_sincos(a->h0, &sa, &ca);
        rs_sincos(b->h0, &sb, &cb);
        double det = ca * sb - sa * cb;
        if (rs_abs(det) < 0.087) /* sin 5 deg */
            return fail(err, err_len,
                        "%s: the auto straights %s and %s are (nearly) parallel (headings %.1f and "
                        "%.1f deg), so they cannot close the loop; mark two that differ by more "
                        "than 5 deg",
                        file, a->label, b->label, rs_wrap_angle(a->h0) / TD_DEG,
                        rs_wrap_angle(b->h0) / TD_DEG);
        len[0] = (rx * sb - ry * cb) / det;
        len[1] = (ca * ry - sa * rx) / det;
    }
    for (uint32_t j = 0; j < na; j++) {
        char other[TD_LABEL_MAX + 48] = "";
        if (na == 2)
            snprintf(other, sizeof other, " (and %s %.2f m)", sp->piece[autos[1 - j]].label,
                     tidy(len[1 - j]));
        if (len[j] < TD_MIN_AUTO_M)
            return fail(err, err_len,
                        "%s: cannot close the loop: auto straight %s would be %.2f m long%s; "
                        "change the fixed pieces (the autos must cover dx %.2f m, dy %.2f m)",
                        file, sp->piece[autos[j]].label, tidy(len[j]), other, tidy(rx), tidy(ry));
    }
    for (uint32_t j = 0; j < na; j++) {
        td_piece *p = &sp->piece[autos[j]];
        p->length_m = p->len = len[j];
        p->part[0].len = len[j];
        p->part[0].k0 = p->part[0].k1 = 0.0;
        p->nparts = 1;
        p->ldx = len[j];
        p->ldy = 0.0;
        info->auto_piece[j] = autos[j];
        info->auto_length_m[j] = len[j];
    }
    info->auto_count = na;

    /* Place the pieces. */
    pose at = {sp->x0, sp->y0, sp->h0};
    double arc = 0.0;
    for (uint32_t i = 0; i < sp->npieces; i++) {
        td_piece *p = &sp->piece[i];
        pose step = {p->ldx, p->ldy, p->dh};
        p->x0 = at.x;
        p->y0 = at.y;
        p->h0 = at.h;
        p->s0 = arc;
        arc += p->len;
        at = compose(at, step);
    }
    double gap = rs_sqrt((at.x - sp->x0) * (at.x - sp->x0) + (at.y - sp->y0) * (at.y - sp->y0));
    if (gap > TD_CLOSE_TOL_M)
        return fail(err, err_len, "%s: internal: the loop misses the start by %g m", file, gap);
    return true;
}

/* ------------------------------------------------------------- sampling */

static bool sample(const char *file, const td_spec *sp, td_build *b, char *err, size_t err_len)
{
    uint32_t cap = 0;
    for (uint32_t i = 0; i < sp->npieces; i++) {
        const td_piece *p = &sp->piece[i];
        for (uint32_t j = 0; j < p->nparts; j++)
            cap += ceil_count(p->part[j].len / 0.5) + 1; /* spacing is at least 0.5 m */
        if (cap > TD_MAX_POINTS)
            return fail(err, err_len, "%s: the track is too long (more than %u points)", file,
                        (unsigned)TD_MAX_POINTS);
    }
    b->pt = calloc(cap + 1, sizeof *b->pt);
    if (!b->pt)
        return fail(err, err_len, "%s: out of memory", file);
    b->n = 0;
    for (uint32_t i = 0; i < sp->npieces; i++) {
        const td_piece *p = &sp->piece[i];
        pose start = {p->x0, p->y0, p->h0}, local = {0.0, 0.0, 0.0};
        double t0 = 0.0;
        for (uint32_t j = 0; j < p->nparts; j++) {
            const td_part *q = &p->part[j];
            double kmax = rs_max(rs_abs(q->k0), rs_abs(q->k1));
            double spacing = kmax > 0.0 ? rs_min(sp->curve_m, sp->max_turn_rad / kmax) : sp->straight_m;
            spacing = rs_max(spacing, 0.5);
            uint32_t n = ceil_count(q->len / spacing);
            if (n < 1)
                n = 1;
            for (uint32_t m = 0; m < n; m++) {
                double t = q->len * (double)m / (double)n;
                pose g = compose(start, compose(local, part_pose(q, t)));
                double x = round_mm(g.x), y = round_mm(g.y);
                if (b->n > 0) {
                    const td_point *prev = &b->pt[b->n - 1];
                    double dx = x - prev->x, dy = y - prev->y;
                    if (dx * dx + dy * dy < TD_MIN_POINT_GAP_M * TD_MIN_POINT_GAP_M)
                        continue;
                }
                td_point *o = &b->pt[b->n++];
                o->x = x;
                o->y = y;
                o->t = t0 + t;
                o->arc = p->s0 + t0 + t;
                o->k = part_curvature(q, t);
                o->piece = i;
            }
            local = compose(local, part_pose(q, q->len));
            t0 += q->len;
        }
    }
    b->arc_total = sp->piece[sp->npieces - 1].s0 + sp->piece[sp->npieces - 1].len;
    /* The loop closes from the last point to point 0: drop a last point that
     * nearly coincides with it. */
    while (b->n > 3) {
        double dx = b->pt[0].x - b->pt[b->n - 1].x, dy = b->pt[0].y - b->pt[b->n - 1].y;
        if (dx * dx + dy * dy >= TD_MIN_POINT_GAP_M * TD_MIN_POINT_GAP_M)
            break;
        b->n--;
    }

    /* Chord stations, summed in order from point 0: what the loader does. */
    double s = 0.0;
    for (uint32_t i = 0; i < b->n; i++) {
        const td_point *q = &b->pt[(i + 1) % b->n];
        b->pt[i].s = s;
        s += rs_sqrt((q->x - b->pt[i].x) * (q->x - b->pt[i].x) + (q->y - b->pt[i].y) * (q->y - b->pt[i].y));
    }
    b->length = s;

    /* Widths: a piece's widths blend in linearly over its first blend_m. */
    for (uint32_t i = 0; i < b->n; i++) {
        td_point *q = &b->pt[i];
        const td_piece *p = &sp->piece[q->piece];
        const td_piece *prev = &sp->piece[(q->piece + sp->npieces - 1) % sp->npieces];
        double blend = rs_min(sp->blend_m, p->len);
        double f = blend > 0.0 ? rs_clamp(q->t / blend, 0.0, 1.0) : 1.0;
        q->wl = round_mm(prev->wl + (p->wl - prev->wl) * f);
        q->wr = round_mm(prev->wr + (p->wr - prev->wr) * f);
    }
    return true;
}

/* The last point at or before v along the line: by design arc-length
 * station (by_arc) or by chord station; pt[0] is at 0 <= v on both. */
static uint32_t point_before(const td_build *b, double v, bool by_arc)
{
    uint32_t lo = 0, hi = b->n;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if ((by_arc ? b->pt[mid].arc : b->pt[mid].s) <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Chord station at a design arc-length station in [0, arc_total]. */
static double station_at(const td_build *b, double arc)
{
    if (arc <= 0.0)
        return 0.0;
    if (arc >= b->arc_total)
        return b->length;
    /* pt[lo].arc <= arc < arc of hi (n = the closing point) */
    uint32_t lo = point_before(b, arc, true), hi = lo + 1;
    double a1 = hi == b->n ? b->arc_total : b->pt[hi].arc;
    double s1 = hi == b->n ? b->length : b->pt[hi].s;
    double f = a1 > b->pt[lo].arc ? (arc - b->pt[lo].arc) / (a1 - b->pt[lo].arc) : 0.0;
    return b->pt[lo].s + (s1 - b->pt[lo].s) * f;
}

/* The centre line at chord station s: position and unit tangent. */
static void centre_at(const td_build *b, double s, double *x, double *y, double *tx, double *ty)
{
    while (s < 0.0)
        s += b->length;
    while (s >= b->length)
        s -= b->length;
    uint32_t lo = point_before(b, s, false);
    const td_point *p = &b->pt[lo], *q = &b->pt[(lo + 1) % b->n];
    double dx = q->x - p->x, dy = q->y - p->y, l = rs_sqrt(dx * dx + dy * dy);
    double f = (s - p->s) / l;
    *x = p->x + dx * f;
    *y = p->y + dy * f;
    *tx = dx / l;
    *ty = dy / l;
}

/* --------------------------------------------------------------- checks */

static int orient(double ax, double ay, double bx, double by, double cx, double cy)
{
    double v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    return v > 0.0 ? 1 : (v < 0.0 ? -1 : 0);
}

static bool segs_cross(const double *a, const double *b, const double *c, const double *d)
{
    int o1 = orient(a[0], a[1], b[0], b[1], c[0], c[1]);
    int o2 = orient(a[0], a[1], b[0], b[1], d[0], d[1]);
    int o3 = orient(c[0], c[1], d[0], d[1], a[0], a[1]);
    int o4 = orient(c[0], c[1], d[0], d[1], b[0], b[1]);
    return o1 != o2 && o3 != o4 && o1 * o2 <= 0 && o3 * o4 <= 0;
}

/* Checks that the track edges neither fold (an inside half-width wider
 * than the radius) nor cross themselves or each other, and names the pieces
 * when they do. The loader checks the file again, barriers included, once
 * it is written (rs_track_design), but by centre-line index only. */
static bool check_edges(const char *file, const td_spec *sp, const td_build *b, char *err,
                        size_t err_len)
{
    static const char *const names[2] = {"left edge", "right edge"};
    uint32_t n = b->n;
    double *xy[2];
    bool ok = true;
    xy[0] = malloc(sizeof(double) * 4 * n);
    if (!xy[0])
        return fail(err, err_len, "%s: out of memory", file);
    xy[1] = xy[0] + 2 * n;
    for (uint32_t i = 0; i < n && ok; i++) {
        const td_point *p = &b->pt[i], *a = &b->pt[(i + n - 1) % n], *c = &b->pt[(i + 1) % n];
        double tx = c->x - a->x, ty = c->y - a->y, l = rs_sqrt(tx * tx + ty * ty);
        double nx = -ty / l, ny = tx / l;
        xy[0][2 * i] = p->x + nx * p->wl;
        xy[0][2 * i + 1] = p->y + ny * p->wl;
        xy[1][2 * i] = p->x - nx * p->wr;
        xy[1][2 * i + 1] = p->y - ny * p->wr;
        if (p->k != 0.0 && (p->k > 0.0 ? p->wl : p->wr) >= 1.0 / rs_abs(p->k))
            ok = fail(err, err_len,
                      "%s: %s: radius %.1f m at s = %.0f m is tighter than the inside half-width "
                      "%.1f m: the inside edge folds",
                      file, sp->piece[p->piece].label, 1.0 / rs_abs(p->k), p->s,
                      p->k > 0.0 ? p->wl : p->wr);
    }
    /* Every pair of segments, with a bounding-box test first: a few million
     * cheap tests for a 5 km circuit, done once. */
    for (uint32_t e = 0; e < 2 && ok; e++) {
        for (uint32_t f = e; f < 2 && ok; f++) {
            const double *A = xy[e], *C = xy[f];
            for (uint32_t i = 0; i < n && ok; i++) {
                const double *p0 = A + 2 * i, *p1 = A + 2 * ((i + 1) % n);
                double minx = rs_min(p0[0], p1[0]), maxx = rs_max(p0[0], p1[0]);
                double miny = rs_min(p0[1], p1[1]), maxy = rs_max(p0[1], p1[1]);
                for (uint32_t j = (e == f ? i + 2 : 0); j < n; j++) {
                    if (e == f && i == 0 && j == n - 1)
                        continue; /* neighbours across the seam */
                    const double *q0 = C + 2 * j, *q1 = C + 2 * ((j + 1) % n);
                    if (rs_max(q0[0], q1[0]) < minx || rs_min(q0[0], q1[0]) > maxx ||
                        rs_max(q0[1], q1[1]) < miny || rs_min(q0[1], q1[1]) > maxy)
                        continue;
                    if (segs_cross(p0, p1, q0, q1)) {
                        ok = fail(err, err_len,
                                  "%s: the %s near s = %.0f m (%s) crosses the %s near s = %.0f m "
                                  "(%s)",
                                  file, names[e], b->pt[i].s, sp->piece[b->pt[i].piece].label,
                                  names[f], b->pt[j].s, sp->piece[b->pt[j].piece].label);
                        break;
                    }
                }
            }
        }
    }
    free(xy[0]);
    return ok;
}

/* ------------------------------------------------------------ zones */

static void zone_window(const td_piece *p, int at, double *a, double *z)
{
    double e = 0.0, x = 0.0;
    if (p->kind == KIND_CORNER) {
        e = p->entry_m;
        x = p->exit_m;
    }
    switch (at) {
    case AT_ENTRY:
        *a = 0.0;
        *z = e;
        break;
    case AT_APEX:
        *a = e;
        *z = p->len - x;
        break;
    case AT_EXIT:
        *a = p->len - x;
        *z = p->len;
        break;
    default:
        *a = 0.0;
        *z = p->len;
        break;
    }
}

static bool add_out_zone(td_out_zone *arr, uint32_t *count, td_out_zone z)
{
    if (*count >= TD_MAX_OUT_ZONES || z.to - z.from < 0.01)
        return *count < TD_MAX_OUT_ZONES;
    arr[(*count)++] = z;
    return true;
}

/* Turns a piece's zone into one or two station ranges (split at the start
 * line when it runs across it). */
static bool place_zone(const char *file, const td_spec *sp, const td_build *b, uint32_t pi,
                       const td_zone *z, bool kerb, td_out_zone *arr, uint32_t *count, char *err,
                       size_t err_len)
{
    static const char *const at_names[] = {"all", "entry", "apex", "exit"};
    const td_piece *p = &sp->piece[pi];
    const char *what = kerb ? "kerb" : "runoff zone";
    double a, e;
    int side = z->side;
    if (z->at != AT_ALL && p->kind != KIND_CORNER)
        return fail(err, err_len, "%s: %s: a %s at \"%s\" needs a corner piece; use from_m/to_m",
                    file, p->label, what, at_names[z->at]);
    if (side == SIDE_INSIDE || side == SIDE_OUTSIDE) {
        if (p->dh == 0.0)
            return fail(err, err_len,
                        "%s: %s: a %s on the \"%s\" needs a curved piece; use \"left\" or \"right\"",
                        file, p->label, what, side == SIDE_INSIDE ? "inside" : "outside");
        bool left_turn = p->dh > 0.0;
        side = (side == SIDE_INSIDE) == left_turn ? SIDE_LEFT : SIDE_RIGHT;
    }
    zone_window(p, z->at, &a, &e);
    if (z->has_from)
        a = z->from_m;
    if (z->has_to)
        e = z->to_m;
    e += z->extend_m;
    if (e - a < 0.5 || e - a >= b->arc_total)
        return fail(err, err_len, "%s: %s: a %s from %.1f to %.1f m along the piece is %s", file,
                    p->label, what, a, e, e - a < 0.5 ? "empty" : "longer than the track");
    a += p->s0;
    e += p->s0;
    while (a < 0.0) {
        a += b->arc_total;
        e += b->arc_total;
    }
    while (a >= b->arc_total) {
        a -= b->arc_total;
        e -= b->arc_total;
    }
    td_out_zone o = {side, kerb ? 0 : z->surface, 0.0, 0.0, z->width_m, pi};
    bool ok = true;
    if (e <= b->arc_total) {
        o.from = round_mm(station_at(b, a));
        o.to = round_mm(station_at(b, e));
        ok = add_out_zone(arr, count, o);
    } else {
        o.from = round_mm(station_at(b, a));
        o.to = round_mm(b->length);
        ok = add_out_zone(arr, count, o);
        o.from = 0.0;
        o.to = round_mm(station_at(b, e - b->arc_total));
        ok = ok && add_out_zone(arr, count, o);
    }
    return ok ? true : fail(err, err_len, "%s: too many kerbs or runoff zones", file);
}

/* Sorts by station (insertion sort: stable, and the lists are short) and
 * merges overlapping zones on the same side: kerbs take the wider width,
 * run-off zones must agree on the surface. */
static bool merge_zones(const char *file, const td_spec *sp, td_out_zone *arr, uint32_t *count,
                        bool kerb, char *err, size_t err_len)
{
    for (uint32_t i = 1; i < *count; i++) {
        td_out_zone z = arr[i];
        uint32_t j = i;
        while (j > 0 && (arr[j - 1].side > z.side ||
                         (arr[j - 1].side == z.side && arr[j - 1].from > z.from))) {
            arr[j] = arr[j - 1];
            j--;
        }
        arr[j] = z;
    }
    uint32_t out = 0;
    for (uint32_t i = 0; i < *count; i++) {
        td_out_zone *last = out ? &arr[out - 1] : NULL;
        if (last && last->side == arr[i].side && arr[i].from <= last->to) {
            if (!kerb && last->surface != arr[i].surface)
                return fail(err, err_len,
                            "%s: the %s runoff zones of %s (%s) and %s (%s) overlap at s = %.0f m",
                            file, arr[i].side == SIDE_LEFT ? "left" : "right",
                            sp->piece[last->piece].label, surface_names[last->surface],
                            sp->piece[arr[i].piece].label, surface_names[arr[i].surface],
                            arr[i].from);
            last->to = rs_max(last->to, arr[i].to);
            last->width = rs_max(last->width, arr[i].width);
            continue;
        }
        arr[out++] = arr[i];
    }
    *count = out;
    /* Then into station order across both sides, for the reader. */
    for (uint32_t i = 1; i < *count; i++) {
        td_out_zone z = arr[i];
        uint32_t j = i;
        while (j > 0 && arr[j - 1].from > z.from) {
            arr[j] = arr[j - 1];
            j--;
        }
        arr[j] = z;
    }
    return true;
}

static bool place_all_zones(const char *file, const td_spec *sp, td_build *b, char *err,
                            size_t err_len)
{
    b->kerb = calloc(TD_MAX_OUT_ZONES, sizeof *b->kerb);
    b->runoff = calloc(TD_MAX_OUT_ZONES, sizeof *b->runoff);
    if (!b->kerb || !b->runoff)
        return fail(err, err_len, "%s: out of memory", file);
    for (uint32_t i = 0; i < sp->npieces; i++) {
        const td_piece *p = &sp->piece[i];
        for (uint32_t j = 0; j < p->nkerb; j++)
            if (!place_zone(file, sp, b, i, &p->kerb[j], true, b->kerb, &b->nkerb, err, err_len))
                return false;
        for (uint32_t j = 0; j < p->nrunoff; j++)
            if (!place_zone(file, sp, b, i, &p->runoff[j], false, b->runoff, &b->nrunoff, err,
                            err_len))
                return false;
    }
    return merge_zones(file, sp, b->kerb, &b->nkerb, true, err, err_len) &&
           merge_zones(file, sp, b->runoff, &b->nrunoff, false, err, err_len);
}

/* --------------------------------------------------------- timing, grid */

/* A timing line is drawn across the track from beyond the kerbs on both
 * sides; where a kerb starts or ends, the line's end could lie on the kerb
 * of the next segment, inside the track limits. So lines keep
 * TD_LINE_KERB_GAP_M away from kerbs: one that falls on or next to a kerb
 * moves forwards past it. Returns the new station, or a negative value when
 * that would take more than TD_LINE_MAX_SHIFT_M. */
static double clear_of_kerbs(const td_build *b, double s)
{
    double s0 = s;
    for (bool moved = true; moved;) {
        moved = false;
        for (uint32_t i = 0; i < b->nkerb; i++) {
            const td_out_zone *z = &b->kerb[i];
            if (s >= z->from - TD_LINE_KERB_GAP_M && s <= z->to + TD_LINE_KERB_GAP_M) {
                s = z->to + TD_LINE_KERB_GAP_M + 1.0;
                moved = true;
            }
        }
        if (s - s0 > TD_LINE_MAX_SHIFT_M || s >= b->length)
            return -1.0;
    }
    return round_mm(s);
}

static bool place_timing(const char *file, const td_spec *sp, td_build *b, char *err,
                         size_t err_len)
{
    for (uint32_t i = 0; i < b->nkerb; i++)
        if (b->kerb[i].from <= TD_LINE_KERB_GAP_M ||
            b->kerb[i].to >= b->length - TD_LINE_KERB_GAP_M)
            return fail(err, err_len,
                        "%s: %s: a kerb within %g m of the start/finish line (the start of the "
                        "first piece); timing lines need the track edge clear of kerbs",
                        file, sp->piece[b->kerb[i].piece].label, TD_LINE_KERB_GAP_M);
    b->nsectors = 0;
    if (sp->piece[0].sector_line && sp->piece[0].sector_at_m <= 0.0)
        return fail(err, err_len,
                    "%s: %s: the first piece starts at the start/finish line; put sector_line on "
                    "later pieces (or give metres into the piece)",
                    file, sp->piece[0].label);
    for (uint32_t i = 0; i < sp->npieces; i++) {
        const td_piece *p = &sp->piece[i];
        if (!p->sector_line)
            continue;
        if (b->nsectors + 1 >= RS_TRACK_MAX_LINES)
            return fail(err, err_len, "%s: at most %u sector lines", file,
                        (unsigned)(RS_TRACK_MAX_LINES - 1));
        if (p->sector_at_m >= p->len)
            return fail(err, err_len, "%s: %s: sector_line %g m is beyond the piece's %.1f m",
                        file, p->label, p->sector_at_m, p->len);
        double s = clear_of_kerbs(b, station_at(b, p->s0 + p->sector_at_m));
        if (s < 0.0)
            return fail(err, err_len,
                        "%s: %s: the sector line falls on kerbs for more than %g m; move it "
                        "(\"sector_line\": metres into the piece)",
                        file, p->label, TD_LINE_MAX_SHIFT_M);
        if (s < TD_LINE_MIN_GAP_M ||
            (b->nsectors && s < b->sector_s[b->nsectors - 1] + TD_LINE_MIN_GAP_M) ||
            s > b->length - TD_LINE_MIN_GAP_M)
            return fail(err, err_len,
                        "%s: %s: the sector line at s = %.1f m is less than %g m from the "
                        "previous timing line or the start line",
                        file, p->label, s, TD_LINE_MIN_GAP_M);
        b->sector_s[b->nsectors++] = s;
    }
    if (b->nsectors == 1)
        return fail(err, err_len,
                    "%s: only one piece has sector_line; mark at least two (a lap needs three "
                    "sectors) or none for lines at thirds of the lap",
                    file);
    if (b->nsectors == 0) {
        for (uint32_t k = 1; k <= 2; k++) {
            double s = clear_of_kerbs(b, (double)k * b->length / 3.0);
            if (s < 0.0)
                return fail(err, err_len,
                            "%s: the default sector line at %u/3 of the lap falls on kerbs; "
                            "mark two pieces with sector_line",
                            file, (unsigned)k);
            b->sector_s[b->nsectors++] = s;
        }
    }
    return true;
}

static bool place_grid(const char *file, const td_spec *sp, td_build *b, char *err, size_t err_len)
{
    double col = sp->grid_col_given ? sp->grid_col_m : 0.25 * (b->pt[0].wl + b->pt[0].wr);
    for (uint32_t i = 0; i < sp->grid_slots; i++) {
        uint32_t row = i / 2, c = i % 2;
        double back = sp->grid_first_m + sp->grid_row_m * (double)row + sp->grid_stagger_m * (double)c;
        double s = b->length - back, x, y, tx, ty;
        if (s <= 0.5 * b->length)
            return fail(err, err_len, "%s: grid slot %u is %.0f m behind the line: the track is too "
                        "short for %u slots", file, (unsigned)i, back, (unsigned)sp->grid_slots);
        centre_at(b, s, &x, &y, &tx, &ty);
        /* Cars start on a straight (or nearly): the grid lies on the last
         * pieces of the spec, which should be a straight long enough. */
        for (uint32_t k = 0; k < b->n; k++) {
            const td_point *q = &b->pt[k], *r = &b->pt[(k + 1) % b->n];
            double s_end = k + 1 < b->n ? r->s : b->length;
            if (s_end < s - 3.0 || q->s > s + 3.0)
                continue;
            if (rs_abs(q->k) > 1.0 / TD_GRID_MIN_RADIUS_M || rs_abs(r->k) > 1.0 / TD_GRID_MIN_RADIUS_M)
                return fail(err, err_len,
                            "%s: grid slot %u (%.0f m behind the line) lies in %s, a corner "
                            "tighter than %g m; end the pieces with a straight long enough for "
                            "the grid (about %.0f m for %u slots) or give fewer grid.slots",
                            file, (unsigned)i, back, sp->piece[q->piece].label,
                            TD_GRID_MIN_RADIUS_M,
                            sp->grid_first_m + sp->grid_row_m * (double)((sp->grid_slots - 1) / 2) +
                                sp->grid_stagger_m + 5.0,
                            (unsigned)sp->grid_slots);
        }
        /* Pole on pole_side; the columns alternate. */
        double lat = ((c == 0) == (sp->pole_side == SIDE_LEFT)) ? col : -col;
        double lim = lat > 0.0 ? b->pt[b->n - 1].wl : b->pt[b->n - 1].wr;
        if (rs_abs(lat) + 1.5 > lim)
            return fail(err, err_len,
                        "%s: grid.column_offset_m %.2f m puts cars off a track %.1f m wide "
                        "there", file, col, b->pt[b->n - 1].wl + b->pt[b->n - 1].wr);
        b->grid[i][0] = round_mm(x - ty * lat);
        b->grid[i][1] = round_mm(y + tx * lat);
        b->grid[i][2] = round_unit(rs_atan2(ty, tx), 1e6);
    }
    return true;
}

/* --------------------------------------------------------------- output */

static void put_num(FILE *f, double v)
{
    char buf[32];
    rs_json_format_number(v == 0.0 ? 0.0 : v, buf); /* no "-0" in files */
    fputs(buf, f);
}

static void put_zone_list(FILE *f, const td_out_zone *z, uint32_t n, bool kerb)
{
    fputs("[", f);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(f, "%s\n      {\"side\": \"%s\", \"from_m\": ", i ? "," : "",
                z[i].side == SIDE_LEFT ? "left" : "right");
        put_num(f, z[i].from);
        fputs(", \"to_m\": ", f);
        put_num(f, z[i].to);
        if (kerb) {
            fputs(", \"width_m\": ", f);
            put_num(f, z[i].width);
        } else {
            fprintf(f, ", \"surface\": \"%s\"", surface_names[z[i].surface]);
        }
        fputs("}", f);
    }
    fputs(n ? "\n    ]" : "]", f);
}

static bool write_track(const char *out_path, const td_spec *sp, const td_build *b, char *err,
                        size_t err_len)
{
    FILE *f = fopen(out_path, "w");
    if (!f)
        return fail(err, err_len, "%s: cannot write the track file", out_path);
    fputs("{\n  \"format\": \"racesim-track\",\n  \"version\": 1,\n  \"name\": ", f);
    rs_json_fput_string(f, sp->name);
    fputs(",\n  \"length_m\": ", f);
    put_num(f, round_mm(b->length));
    fputs(",\n  \"centre_line\": [", f);
    for (uint32_t i = 0; i < b->n; i++) {
        fputs(i ? ",\n    [" : "\n    [", f);
        put_num(f, b->pt[i].x);
        fputs(", ", f);
        put_num(f, b->pt[i].y);
        fputs(", ", f);
        put_num(f, b->pt[i].wr);
        fputs(", ", f);
        put_num(f, b->pt[i].wl);
        fputs("]", f);
    }
    fprintf(f, "\n  ],\n  \"surfaces\": {\n    \"runoff\": \"%s\",\n    \"kerbs\": ",
            surface_names[sp->runoff]);
    put_zone_list(f, b->kerb, b->nkerb, true);
    fputs(",\n    \"runoff_zones\": ", f);
    put_zone_list(f, b->runoff, b->nrunoff, false);
    /* Barriers: only what the spec gives; the loader has the defaults. */
    fputs("\n  },\n  \"barriers\": {", f);
    const char *sep = "\n    ";
    static const char *const offset_keys[2] = {"offset_left_m", "offset_right_m"};
    for (int side = 0; side < 2; side++) {
        if (sp->offset_mode[side] == OFFSET_DEFAULT)
            continue;
        fprintf(f, "%s\"%s\": ", sep, offset_keys[side]);
        if (sp->offset_mode[side] == OFFSET_NONE)
            fputs("false", f);
        else
            put_num(f, sp->offset[side]);
        sep = ",\n    ";
    }
    if (sp->restitution >= 0.0) {
        fprintf(f, "%s\"restitution\": ", sep);
        put_num(f, sp->restitution);
        sep = ",\n    ";
    }
    if (sp->friction >= 0.0) {
        fprintf(f, "%s\"friction\": ", sep);
        put_num(f, sp->friction);
        sep = ",\n    ";
    }
    fprintf(f, "%s\"walls\": [", sep);
    for (uint32_t w = 0; w < sp->nwall; w++) {
        const td_wall *tw = &sp->wall[w];
        fputs(w ? ",\n      {\"points\": [" : "\n      {\"points\": [", f);
        for (uint32_t i = 0; i < tw->points; i++) {
            fputs(i ? ", [" : "[", f);
            put_num(f, sp->wall_xy[2 * (tw->first + i)]);
            fputs(", ", f);
            put_num(f, sp->wall_xy[2 * (tw->first + i) + 1]);
            fputs("]", f);
        }
        fprintf(f, "], \"closed\": %s", tw->closed ? "true" : "false");
        if (tw->restitution >= 0.0) {
            fputs(", \"restitution\": ", f);
            put_num(f, tw->restitution);
        }
        if (tw->friction >= 0.0) {
            fputs(", \"friction\": ", f);
            put_num(f, tw->friction);
        }
        fputs("}", f);
    }
    fputs(sp->nwall ? "\n    ]\n  },\n" : "]\n  },\n", f);
    fputs("  \"timing\": {\n    \"start\": {\"s_m\": 0},\n    \"sectors\": [", f);
    for (uint32_t i = 0; i < b->nsectors; i++) {
        fputs(i ? ", {\"s_m\": " : "{\"s_m\": ", f);
        put_num(f, b->sector_s[i]);
        fputs("}", f);
    }
    fputs("]\n  },\n  \"grid\": [", f);
    for (uint32_t i = 0; i < sp->grid_slots; i++) {
        fputs(i ? ",\n    {\"x_m\": " : "\n    {\"x_m\": ", f);
        put_num(f, b->grid[i][0]);
        fputs(", \"y_m\": ", f);
        put_num(f, b->grid[i][1]);
        fputs(", \"yaw_rad\": ", f);
        put_num(f, b->grid[i][2]);
        fputs("}", f);
    }
    fputs("\n  ]\n}\n", f);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        remove(out_path);
        return fail(err, err_len, "%s: error while writing the track file", out_path);
    }
    return true;
}

/* --------------------------------------------------------------- summary */

static void find_corners(const td_spec *sp, const td_build *b, rs_td_info *info)
{
    info->corner_count = 0;
    info->min_radius_m = 0.0;
    double kmax_all = 0.0;
    for (uint32_t i = 0; i < sp->npieces;) {
        const td_piece *p = &sp->piece[i];
        if (p->dh == 0.0) {
            i++;
            continue;
        }
        uint32_t j = i;
        double angle = 0.0, kmax = 0.0;
        while (j < sp->npieces && sp->piece[j].dh != 0.0 &&
               (sp->piece[j].dh > 0.0) == (p->dh > 0.0)) {
            angle += sp->piece[j].dh;
            for (uint32_t m = 0; m < sp->piece[j].nparts; m++)
                kmax = rs_max(kmax, rs_max(rs_abs(sp->piece[j].part[m].k0),
                                           rs_abs(sp->piece[j].part[m].k1)));
            j++;
        }
        if (info->corner_count < RS_TD_MAX_CORNERS) {
            rs_td_corner *c = &info->corner[info->corner_count];
            memcpy(c->name, p->name, sizeof c->name);
            c->first_piece = i;
            c->last_piece = j - 1;
            c->s_m = round_mm(station_at(b, p->s0));
            c->angle_deg = angle / TD_DEG;
            c->min_radius_m = kmax > 0.0 ? 1.0 / kmax : 0.0;
        }
        info->corner_count++;
        kmax_all = rs_max(kmax_all, kmax);
        i = j;
    }
    info->min_radius_m = kmax_all > 0.0 ? 1.0 / kmax_all : 0.0;
}

/* ------------------------------------------------------------------ api */

rs_status rs_track_design(const char *spec_path, const char *out_path, rs_td_info *info,
                          char *err, size_t err_len)
{
    rs_json_doc *doc = NULL;
    td_spec sp;
    td_build b;
    rs_td_info local;
    rs_status st;

    memset(&sp, 0, sizeof sp);
    memset(&b, 0, sizeof b);
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    if (err && err_len)
        err[0] = '\0';
    if ((st = rs_json_load(spec_path, &doc, err, err_len)) != RS_OK)
        return st;
    rs_json_ctx c = rs_json_ctx_init(spec_path, err, err_len);
    if (!read_spec(&c, rs_json_root(doc), &sp)) {
        st = c.status;
        goto done;
    }
    st = RS_ERR_RANGE;
    if (!make_parts(spec_path, &sp, &info->heading_sum_deg, err, err_len) ||
        !close_loop(spec_path, &sp, info, err, err_len) ||
        !sample(spec_path, &sp, &b, err, err_len) || !check_edges(spec_path, &sp, &b, err, err_len) ||
        !place_all_zones(spec_path, &sp, &b, err, err_len) ||
        !place_timing(spec_path, &sp, &b, err, err_len) ||
        !place_grid(spec_path, &sp, &b, err, err_len))
        goto done;
    st = RS_ERR_IO;
    if (!write_track(out_path, &sp, &b, err, err_len))
        goto done;
    /* The file must load: the loader's checks (barriers generated from the
     * offsets, timing lines, grid) are the final word. */
    rs_track *track = NULL;
    char lerr[400];
    if ((st = rs_track_load(out_path, &track, lerr, sizeof lerr)) != RS_OK) {
        fail(err, err_len, "%s: the designed track does not load: %s", spec_path, lerr);
        remove(out_path);
        goto done;
    }
    rs_track_destroy(track);
    info->length_m = round_mm(b.length);
    info->points = b.n;
    info->kerbs = b.nkerb;
    info->runoff_zones = b.nrunoff;
    info->sector_lines = b.nsectors;
    info->grid_slots = sp.grid_slots;
    find_corners(&sp, &b, info);
    st = RS_OK;
done:
    free(b.pt);
    free(b.kerb);
    free(b.runoff);
    free(sp.piece);
    free(sp.wall_xy);
    rs_json_free(doc);
    return st;
}

/* ------------------------------------------------------------- command */

static void help(void)
{
    printf("usage: racesim track design SPEC.json OUT.json\n"
           "\n"
           "Builds a track file (docs/TRACKS.md) from a design spec (docs/TRACK_DESIGNER.md):\n"
           "a start pose and a list of pieces (straight, arc, clothoid, corner) with widths,\n"
           "kerbs and run-off. Up to two straights may have \"length_m\": \"auto\"; their\n"
           "lengths are solved so that the loop closes (the pieces must turn by exactly\n"
           "+-360 deg). Prints a JSON summary: length, points, auto lengths, corners.\n");
}

static void print_summary(const char *out_path, const rs_td_info *info)
{
    char a[32], b2[32];
    printf("{\n  \"file\": ");
    rs_json_fput_string(stdout, out_path);
    rs_json_format_number(info->length_m, a);
    printf(",\n  \"length_m\": %s,\n  \"points\": %u,\n", a, (unsigned)info->points);
    rs_json_format_number(round_unit(info->heading_sum_deg, 1e6), a);
    rs_json_format_number(round_unit(info->min_radius_m, 1e3), b2);
    printf("  \"heading_sum_deg\": %s,\n  \"min_radius_m\": %s,\n  \"auto_straights\": [", a, b2);
    for (uint32_t i = 0; i < info->auto_count; i++) {
        rs_json_format_number(round_mm(info->auto_length_m[i]), a);
        printf("%s{\"piece\": %u, \"length_m\": %s}", i ? ", " : "", (unsigned)info->auto_piece[i],
               a);
    }
    printf("],\n  \"kerbs\": %u,\n  \"runoff_zones\": %u,\n  \"sector_lines\": %u,\n"
           "  \"grid_slots\": %u,\n  \"corner_count\": %u,\n  \"corners\": [",
           (unsigned)info->kerbs, (unsigned)info->runoff_zones, (unsigned)info->sector_lines,
           (unsigned)info->grid_slots, (unsigned)info->corner_count);
    uint32_t shown = info->corner_count < RS_TD_MAX_CORNERS ? info->corner_count : RS_TD_MAX_CORNERS;
    for (uint32_t i = 0; i < shown; i++) {
        const rs_td_corner *c = &info->corner[i];
        char s[32], ang[32], r[32];
        rs_json_format_number(round_unit(c->s_m, 10.0), s);
        rs_json_format_number(round_unit(c->angle_deg, 100.0), ang);
        rs_json_format_number(round_unit(c->min_radius_m, 10.0), r);
        printf("%s\n    {\"name\": ", i ? "," : "");
        rs_json_fput_string(stdout, c->name);
        printf(", \"pieces\": [%u, %u], \"s_m\": %s, \"angle_deg\": %s, \"min_radius_m\": %s}",
               (unsigned)c->first_piece, (unsigned)c->last_piece, s, ang, r);
    }
    printf("%s]\n}\n", shown ? "\n  " : "");
}

int rs_track_design_cmd(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    int npaths = 0;
    char err[512];
    rs_td_info info;

    /* Called with the arguments after "design"; a leading "design" is
     * skipped too, so either convention works. */
    int first = argc > 0 && strcmp(argv[0], "design") == 0 ? 1 : 0;
    for (int i = first; i < argc; i++) {
        if (rs_is_help(argv[i])) {
            help();
            return RS_EXIT_OK;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return rs_usage_error(CMD, "unknown option '%s'", argv[i]);
        if (npaths == 2)
            return rs_usage_error(CMD, "unexpected argument '%s'", argv[i]);
        paths[npaths++] = argv[i];
    }
    if (npaths != 2)
        return rs_usage_error(CMD, "expected SPEC.json and OUT.json");
    if (rs_track_design(paths[0], paths[1], &info, err, sizeof err) != RS_OK)
        return rs_fail(CMD, "%s", err);
    print_summary(paths[1], &info);
    return RS_EXIT_OK;
}
