/*
 * Track files: reading a track JSON document (docs/TRACKS.md) into the spec
 * of track_spec.h. This file checks the shape of the document and the range
 * of every single value, with messages that name the field
 * ("oval.json: centre_line[12][2]: width -1 must be > 0"); everything that
 * involves the geometry as a whole (crossings, stations, lines, grid) is
 * checked by the builder, track_build.c, with the same kind of message.
 */
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "track_spec.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const surface_names[RS_SURFACE_COUNT] = {"asphalt", "kerb", "grass", "gravel"};
static const char *const side_names[2] = {"left", "right"};

/* ------------------------------------------------------------ small readers */

/* A run-off surface name: grass, gravel or asphalt (a kerb is not run-off). */
static bool read_runoff(rs_json_ctx *c, const rs_json *obj, const char *key, uint8_t *out)
{
    const char *s;
    if (!rs_json_get_string(c, obj, key, 16, &s))
        return false;
    for (uint8_t k = 0; k < RS_SURFACE_COUNT; k++)
        if (k != RS_SURFACE_KERB && strcmp(s, surface_names[k]) == 0) {
            *out = k;
            return true;
        }
    size_t mark = rs_json_ctx_push_key(c, key);
    rs_json_fail(c, RS_ERR_RANGE, "unknown surface \"%s\" (grass, gravel or asphalt)", s);
    rs_json_ctx_pop(c, mark);
    return false;
}

static bool read_side(rs_json_ctx *c, const rs_json *obj, uint8_t *out)
{
    const char *s;
    if (!rs_json_get_string(c, obj, "side", 8, &s))
        return false;
    for (uint8_t k = 0; k < 2; k++)
        if (strcmp(s, side_names[k]) == 0) {
            *out = k;
            return true;
        }
    size_t mark = rs_json_ctx_push_key(c, "side");
    rs_json_fail(c, RS_ERR_RANGE, "unknown side \"%s\" (left or right)", s);
    rs_json_ctx_pop(c, mark);
    return false;
}

/* An [x, y] pair in metres. */
static bool read_xy(rs_json_ctx *c, const rs_json *v, double out[2])
{
    if (!rs_json_as_array(c, v, 2, 2))
        return false;
    for (size_t k = 0; k < 2; k++) {
        size_t mark = rs_json_ctx_push_index(c, k);
        rs_json_as_number(c, rs_json_at(v, k), -RS_TRACK_MAX_COORD_M, RS_TRACK_MAX_COORD_M,
                          &out[k]);
        rs_json_ctx_pop(c, mark);
    }
    return c->status == RS_OK;
}

/* An optional member; absent is fine, any other problem is recorded. */
static bool optional_number(rs_json_ctx *c, const rs_json *obj, const char *key, double min,
                            double max, double *out)
{
    if (!rs_json_get(obj, key))
        return true;
    return rs_json_get_number(c, obj, key, min, max, out);
}

/* ------------------------------------------------------------- centre line */

static bool read_width(rs_json_ctx *c, const rs_json *v, double *out)
{
    if (!rs_json_as_kind(c, v, RS_JSON_NUMBER))
        return false;
    double w = rs_json_number(v);
    if (w > 0.0 && w <= RS_TRACK_MAX_WIDTH_M) {
        *out = w;
        return true;
    }
    /* Formatted only for the message: it is most of the cost of a width. */
    char a[32];
    rs_json_format_number(w, a);
    if (!(w > 0.0))
        return rs_json_fail(c, RS_ERR_RANGE, "width %s must be > 0", a);
    return rs_json_fail(c, RS_ERR_RANGE, "width %s must be at most %g", a, RS_TRACK_MAX_WIDTH_M);
}

static bool read_centre_line(rs_json_ctx *c, const rs_json *root, rs_track_spec *s)
{
    const rs_json *arr = rs_json_get_array(c, root, "centre_line", 3, RS_TRACK_MAX_POINTS);
    if (!arr)
        return false;
    size_t n = rs_json_count(arr);
    s->pts = malloc(n * 4 * sizeof *s->pts);
    if (!s->pts)
        return rs_json_fail(c, RS_ERR_NOMEM, "out of memory");
    size_t mark = rs_json_ctx_push_key(c, "centre_line");
    for (size_t i = 0; i < n && c->status == RS_OK; i++) {
        size_t m1 = rs_json_ctx_push_index(c, i);
        const rs_json *p = rs_json_at(arr, i);
        if (rs_json_as_array(c, p, 4, 4)) {
            for (size_t k = 0; k < 4; k++) {
                size_t m2 = rs_json_ctx_push_index(c, k);
                if (k < 2)
                    rs_json_as_number(c, rs_json_at(p, k), -RS_TRACK_MAX_COORD_M,
                                      RS_TRACK_MAX_COORD_M, &s->pts[4 * i + k]);
                else
                    read_width(c, rs_json_at(p, k), &s->pts[4 * i + k]);
                rs_json_ctx_pop(c, m2);
            }
        }
        rs_json_ctx_pop(c, m1);
    }
    rs_json_ctx_pop(c, mark);
    if (c->status != RS_OK)
        return false;
    /* CSV exports often repeat the first point at the end to close the loop. */
    double dx = s->pts[4 * (n - 1)] - s->pts[0], dy = s->pts[4 * (n - 1) + 1] - s->pts[1];
    if (dx * dx + dy * dy <= RS_TRACK_DUP_CLOSE_M * RS_TRACK_DUP_CLOSE_M)
        n--;
    if (n < 3)
        return rs_json_fail_at(c, RS_ERR_RANGE, "centre_line",
                               "needs at least 3 distinct points (the last repeats the first)");
    s->n = (uint32_t)n;
    return true;
}

/* ---------------------------------------------------------------- surfaces */

static bool read_zones(rs_json_ctx *c, const rs_json *surf, const char *key, bool kerbs,
                       uint32_t *count, rs_track_zone_spec **out)
{
    if (!rs_json_get(surf, key))
        return true;
    const rs_json *arr = rs_json_get_array(c, surf, key, 0, RS_TRACK_MAX_ZONES);
    if (!arr)
        return false;
    size_t n = rs_json_count(arr);
    *out = calloc(n ? n : 1, sizeof **out);
    if (!*out)
        return rs_json_fail(c, RS_ERR_NOMEM, "out of memory");
    static const char *const kerb_keys[] = {"side", "from_m", "to_m", "width_m"};
    static const char *const zone_keys[] = {"side", "from_m", "to_m", "surface"};
    size_t mark = rs_json_ctx_push_key(c, key);
    for (size_t i = 0; i < n && c->status == RS_OK; i++) {
        size_t m1 = rs_json_ctx_push_index(c, i);
        const rs_json *z = rs_json_at(arr, i);
        rs_track_zone_spec *o = &(*out)[i];
        if (rs_json_check_keys(c, z, kerbs ? kerb_keys : zone_keys, 4) && read_side(c, z, &o->side)) {
            rs_json_get_number(c, z, "from_m", 0.0, 1e7, &o->from);
            rs_json_get_number(c, z, "to_m", 0.0, 1e7, &o->to);
            if (kerbs) {
                if (rs_json_get_number(c, z, "width_m", 0.0, RS_TRACK_MAX_KERB_M, &o->width) &&
                    !(o->width > 0.0)) {
                    size_t m2 = rs_json_ctx_push_key(c, "width_m");
                    rs_json_fail(c, RS_ERR_RANGE, "width 0 must be > 0");
                    rs_json_ctx_pop(c, m2);
                }
            } else {
                read_runoff(c, z, "surface", &o->surface);
            }
        }
        rs_json_ctx_pop(c, m1);
    }
    rs_json_ctx_pop(c, mark);
    *count = (uint32_t)n;
    return c->status == RS_OK;
}

static bool read_surfaces(rs_json_ctx *c, const rs_json *root, rs_track_spec *s)
{
    s->runoff_default = RS_SURFACE_GRASS;
    if (!rs_json_get(root, "surfaces"))
        return true;
    const rs_json *surf = rs_json_get_object(c, root, "surfaces");
    if (!surf)
        return false;
    static const char *const keys[] = {"runoff", "kerbs", "runoff_zones"};
    size_t mark = rs_json_ctx_push_key(c, "surfaces");
    if (rs_json_check_keys(c, surf, keys, COUNT(keys))) {
        if (rs_json_get(surf, "runoff"))
            read_runoff(c, surf, "runoff", &s->runoff_default);
        if (c->status == RS_OK)
            read_zones(c, surf, "kerbs", true, &s->nkerb, &s->kerb);
        if (c->status == RS_OK)
            read_zones(c, surf, "runoff_zones", false, &s->nzone, &s->zone);
    }
    rs_json_ctx_pop(c, mark);
    return c->status == RS_OK;
}

/* ---------------------------------------------------------------- barriers */

/* offset_left_m / offset_right_m: a number, null or absent (the default),
 * or false (no generated barrier on that side). */
static bool read_offset(rs_json_ctx *c, const rs_json *obj, const char *key, bool *on,
                        double *offset)
{
    *on = true;
    *offset = RS_TRACK_DEFAULT_OFFSET_M;
    const rs_json *v = rs_json_get(obj, key);
    if (!v || rs_json_kind_of(v) == RS_JSON_NULL)
        return true;
    size_t mark = rs_json_ctx_push_key(c, key);
    if (rs_json_kind_of(v) == RS_JSON_BOOL) {
        if (rs_json_bool(v))
            rs_json_fail(c, RS_ERR_RANGE, "true is not an offset (a number in metres, null for "
                                          "the default, or false for no barrier)");
        else
            *on = false;
    } else {
        rs_json_as_number(c, v, RS_TRACK_BARRIER_CLEAR_M, RS_TRACK_MAX_OFFSET_M, offset);
    }
    rs_json_ctx_pop(c, mark);
    return c->status == RS_OK;
}

static bool read_walls(rs_json_ctx *c, const rs_json *bar, rs_track_spec *s)
{
    if (!rs_json_get(bar, "walls"))
        return true;
    const rs_json *arr = rs_json_get_array(c, bar, "walls", 0, RS_TRACK_MAX_ZONES);
    if (!arr)
        return false;
    size_t n = rs_json_count(arr), total = 0;
    for (size_t i = 0; i < n; i++)
        total += rs_json_count(rs_json_get(rs_json_at(arr, i), "points"));
    if (total > RS_TRACK_MAX_WALL_POINTS)
        return rs_json_fail_at(c, RS_ERR_RANGE, "barriers.walls", "%zu points in all, at most %u",
                               total, RS_TRACK_MAX_WALL_POINTS);
    s->wall = calloc(n ? n : 1, sizeof *s->wall);
    s->wall_xy = malloc((total ? total : 1) * 2 * sizeof *s->wall_xy);
    if (!s->wall || !s->wall_xy)
        return rs_json_fail(c, RS_ERR_NOMEM, "out of memory");
    static const char *const keys[] = {"points", "closed", "restitution", "friction"};
    size_t mark = rs_json_ctx_push_key(c, "walls");
    uint32_t used = 0;
    for (size_t i = 0; i < n && c->status == RS_OK; i++) {
        size_t m1 = rs_json_ctx_push_index(c, i);
        const rs_json *w = rs_json_at(arr, i);
        rs_track_wall_spec *o = &s->wall[i];
        o->restitution = s->restitution;
        o->friction = s->friction;
        if (rs_json_check_keys(c, w, keys, COUNT(keys))) {
            if (rs_json_get(w, "closed"))
                rs_json_get_bool(c, w, "closed", &o->closed);
            optional_number(c, w, "restitution", 0.0, 1.0, &o->restitution);
            optional_number(c, w, "friction", 0.0, 2.0, &o->friction);
            const rs_json *pts =
                rs_json_get_array(c, w, "points", o->closed ? 3 : 2, RS_TRACK_MAX_WALL_POINTS);
            size_t m2 = rs_json_ctx_push_key(c, "points");
            o->first = used;
            for (size_t k = 0; pts && k < rs_json_count(pts) && c->status == RS_OK; k++) {
                size_t m3 = rs_json_ctx_push_index(c, k);
                read_xy(c, rs_json_at(pts, k), &s->wall_xy[2 * (size_t)used]);
                used++;
                rs_json_ctx_pop(c, m3);
            }
            o->points = used - o->first;
            rs_json_ctx_pop(c, m2);
        }
        rs_json_ctx_pop(c, m1);
    }
    rs_json_ctx_pop(c, mark);
    s->nwall = (uint32_t)n;
    return c->status == RS_OK;
}

static bool read_barriers(rs_json_ctx *c, const rs_json *root, rs_track_spec *s)
{
    s->barrier_on[0] = s->barrier_on[1] = true;
    s->barrier_offset[0] = s->barrier_offset[1] = RS_TRACK_DEFAULT_OFFSET_M;
    s->restitution = 0.3;
    s->friction = 0.5;
    if (!rs_json_get(root, "barriers"))
        return true;
    const rs_json *bar = rs_json_get_object(c, root, "barriers");
    if (!bar)
        return false;
    static const char *const keys[] = {"offset_left_m", "offset_right_m", "restitution",
                                       "friction", "walls"};
    size_t mark = rs_json_ctx_push_key(c, "barriers");
    if (rs_json_check_keys(c, bar, keys, COUNT(keys))) {
        read_offset(c, bar, "offset_left_m", &s->barrier_on[RS_SIDE_LEFT],
                    &s->barrier_offset[RS_SIDE_LEFT]);
        read_offset(c, bar, "offset_right_m", &s->barrier_on[RS_SIDE_RIGHT],
                    &s->barrier_offset[RS_SIDE_RIGHT]);
        optional_number(c, bar, "restitution", 0.0, 1.0, &s->restitution);
        optional_number(c, bar, "friction", 0.0, 2.0, &s->friction);
        if (c->status == RS_OK)
            read_walls(c, bar, s);
    }
    rs_json_ctx_pop(c, mark);
    return c->status == RS_OK;
}

/* ------------------------------------------------------------------ timing */

/* {"s_m": s} or {"a": [x, y], "b": [x, y]}. */
static bool read_line(rs_json_ctx *c, const rs_json *v, rs_track_line_spec *o)
{
    static const char *const keys[] = {"s_m", "a", "b"};
    if (!rs_json_check_keys(c, v, keys, COUNT(keys)))
        return false;
    bool has_s = rs_json_get(v, "s_m") != NULL;
    bool has_ab = rs_json_get(v, "a") || rs_json_get(v, "b");
    if (has_s == has_ab)
        return rs_json_fail(c, RS_ERR_PARSE, "give either \"s_m\" or both \"a\" and \"b\"");
    if (has_s) {
        o->by_station = true;
        return rs_json_get_number(c, v, "s_m", 0.0, 1e7, &o->s);
    }
    const char *ends[2] = {"a", "b"};
    for (int k = 0; k < 2 && c->status == RS_OK; k++) {
        size_t mark = rs_json_ctx_push_key(c, ends[k]);
        read_xy(c, rs_json_get(v, ends[k]), k == 0 ? o->a : o->b);
        rs_json_ctx_pop(c, mark);
    }
    return c->status == RS_OK;
}

static bool read_timing(rs_json_ctx *c, const rs_json *root, rs_track_spec *s)
{
    const rs_json *tim = rs_json_get_object(c, root, "timing");
    if (!tim)
        return false;
    static const char *const keys[] = {"start", "sectors"};
    size_t mark = rs_json_ctx_push_key(c, "timing");
    if (rs_json_check_keys(c, tim, keys, COUNT(keys))) {
        const rs_json *start = rs_json_get_object(c, tim, "start");
        size_t m1 = rs_json_ctx_push_key(c, "start");
        if (start)
            read_line(c, start, &s->line[0]);
        rs_json_ctx_pop(c, m1);
        const rs_json *sec = rs_json_get_array(c, tim, "sectors", RS_TRACK_MIN_SECTOR_LINES,
                                               RS_TRACK_MAX_LINES - 1);
        m1 = rs_json_ctx_push_key(c, "sectors");
        for (size_t i = 0; sec && i < rs_json_count(sec) && c->status == RS_OK; i++) {
            size_t m2 = rs_json_ctx_push_index(c, i);
            read_line(c, rs_json_at(sec, i), &s->line[1 + i]);
            rs_json_ctx_pop(c, m2);
        }
        rs_json_ctx_pop(c, m1);
        s->nlines = sec ? 1 + (uint32_t)rs_json_count(sec) : 0;
    }
    rs_json_ctx_pop(c, mark);
    return c->status == RS_OK;
}

/* -------------------------------------------------------------------- grid */

static bool read_grid(rs_json_ctx *c, const rs_json *root, rs_track_spec *s)
{
    const rs_json *arr = rs_json_get_array(c, root, "grid", 1, RS_TRACK_MAX_GRID);
    if (!arr)
        return false;
    static const char *const keys[] = {"x_m", "y_m", "yaw_rad"};
    size_t mark = rs_json_ctx_push_key(c, "grid");
    for (size_t i = 0; i < rs_json_count(arr) && c->status == RS_OK; i++) {
        size_t m1 = rs_json_ctx_push_index(c, i);
        const rs_json *g = rs_json_at(arr, i);
        rs_grid_slot *o = &s->grid[i];
        if (rs_json_check_keys(c, g, keys, COUNT(keys))) {
            rs_json_get_number(c, g, "x_m", -RS_TRACK_MAX_COORD_M, RS_TRACK_MAX_COORD_M, &o->x);
            rs_json_get_number(c, g, "y_m", -RS_TRACK_MAX_COORD_M, RS_TRACK_MAX_COORD_M, &o->y);
            rs_json_get_number(c, g, "yaw_rad", -2.0 * RS_TWO_PI, 2.0 * RS_TWO_PI, &o->yaw);
        }
        rs_json_ctx_pop(c, m1);
    }
    rs_json_ctx_pop(c, mark);
    s->ngrid = (uint32_t)rs_json_count(arr);
    return c->status == RS_OK;
}

/* -------------------------------------------------------------------- file */

static bool read_header(rs_json_ctx *c, const rs_json *root, rs_track_spec *s)
{
    static const char *const keys[] = {"format", "version", "name", "length_m", "centre_line",
                                       "surfaces", "barriers", "timing", "grid"};
    if (!rs_json_check_keys(c, root, keys, COUNT(keys)))
        return false;
    const char *format;
    if (!rs_json_get_string(c, root, "format", 64, &format))
        return false;
    if (strcmp(format, "racesim-track") != 0)
        return rs_json_fail_at(c, RS_ERR_FORMAT, "format", "\"%s\" is not \"racesim-track\"",
                               format);
    int64_t version;
    if (!rs_json_get_integer(c, root, "version", 1, 1, &version))
        return false;
    const char *name;
    if (!rs_json_get_string(c, root, "name", RS_TRACK_NAME_MAX - 1, &name))
        return false;
    if (!name[0])
        return rs_json_fail_at(c, RS_ERR_RANGE, "name", "must not be empty");
    memcpy(s->name, name, strlen(name) + 1);
    return rs_json_get_number(c, root, "length_m", 1.0, 1e7, &s->length_m);
}

/* The arrays the readers above allocate. */
static void spec_free(rs_track_spec *spec)
{
    free(spec->pts);
    free(spec->kerb);
    free(spec->zone);
    free(spec->wall);
    free(spec->wall_xy);
}

static rs_status parse_doc(const rs_json_doc *doc, const char *name, rs_track **out, char *err,
                           size_t err_len)
{
    rs_json_ctx c = rs_json_ctx_init(name, err, err_len);
    rs_track_spec spec;
    memset(&spec, 0, sizeof spec);
    const rs_json *root = rs_json_root(doc);
    if (read_header(&c, root, &spec) && read_centre_line(&c, root, &spec) &&
        read_surfaces(&c, root, &spec) && read_barriers(&c, root, &spec) &&
        read_timing(&c, root, &spec) && read_grid(&c, root, &spec))
        rs_track_build(&spec, &c, out);
    spec_free(&spec);
    return c.status;
}

rs_status rs_track_parse(const char *text, size_t len, const char *name, rs_track **out,
                         char *err, size_t err_len)
{
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    if (!text || !name)
        return RS_ERR_ARG;
    rs_json_doc *doc = NULL;
    rs_status st = rs_json_parse(text, len, name, &doc, err, err_len);
    if (st != RS_OK)
        return st;
    st = parse_doc(doc, name, out, err, err_len);
    rs_json_free(doc);
    return st;
}

rs_status rs_track_load(const char *path, rs_track **out, char *err, size_t err_len)
{
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    if (!path)
        return RS_ERR_ARG;
    rs_json_doc *doc = NULL;
    rs_status st = rs_json_load(path, &doc, err, err_len);
    if (st != RS_OK)
        return st;
    st = parse_doc(doc, path, out, err, err_len);
    rs_json_free(doc);
    return st;
}
