/*
 * CSV circuit import (track_import.h). The CSV gives only the centre line and
 * the widths; this file adds the rest with rules simple enough to state in
 * docs/TRACKS.md ("Importing a circuit"):
 *  - kerbs 1 m wide on both sides wherever the centre line's radius
 *    (curvature averaged over +-10 m) is under 100 m, extended 10 m before
 *    and after each such stretch;
 *  - grass run-off, generated barriers 10 m beyond each edge;
 *  - the start/finish line at the first point, sector lines at a third and
 *    two thirds of the lap;
 *  - a two-column staggered grid behind the line: pole 10 m behind it, each
 *    column's rows 8 m apart, the second column 4 m behind the first, up to
 *    24 slots, none farther back than 35% of the lap.
 * The JSON is then loaded with rs_track_parse; a barrier offset that does not
 * fit the circuit is reduced, a sector line that would cross the track twice
 * is moved on, and the grid is shortened, until the file loads.
 */
#include "track_import.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "json.h"
#include "racesim/track.h"
#include "racesim/base/err.h"

#define LINE_MAX_CHARS 512
#define DUP_CLOSE_M 0.001       /* matches the loader: a repeated first point is dropped */
#define CURV_WINDOW_M 10.0      /* curvature averaged over +-10 m */
#define KERB_EXTEND_M 10.0      /* kerbs run on this far beyond the tight stretch */
#define GRID_FIRST_M 10.0       /* pole slot behind the start line */
#define GRID_STAGGER_M 4.0      /* between consecutive slots (alternating columns) */
#define GRID_MAX_SHARE 0.35     /* of the lap, behind the line */
#define GRID_MAX_SLOTS 24u
#define GRID_LATERAL_MAX_M 3.0  /* column offset from the centre line */
#define GRID_EDGE_KEEP_M 1.5    /* and at least this far inside the edge */
#define SECTOR_SHIFT_M 25.0     /* moving a sector line that does not fit */
#define MIN_OFFSET_M 2.0        /* below this, no generated barrier on that side */
#define MAX_ATTEMPTS 60

rs_track_import_options rs_track_import_default(void)
{
    rs_track_import_options o;
    memset(&o, 0, sizeof o);
    o.name = NULL;
    o.kerb_width_m = 1.0;
    o.kerb_radius_m = 100.0;
    o.barrier_offset_m = 10.0;
    o.max_grid = GRID_MAX_SLOTS;
    return o;
}

/* ------------------------------------------------------------------- CSV */

typedef struct csv_points {
    double *v; /* x, y, w_right, w_left per point */
    size_t n, cap;
} csv_points;

static bool push_point(csv_points *p, const double v[4])
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        double *grown = realloc(p->v, cap * 4 * sizeof *grown);
        if (!grown)
            return false;
        p->v = grown;
        p->cap = cap;
    }
    memcpy(&p->v[4 * p->n], v, 4 * sizeof *v);
    p->n++;
    return true;
}

/* Parses one field as a whole finite number (spaces around allowed). */
static bool parse_field(const char *s, const char *e, double *out)
{
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    if (s == e || e - s >= 64)
        return false;
    char buf[64];
    memcpy(buf, s, (size_t)(e - s));
    buf[e - s] = 0;
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end != 0 || errno == ERANGE || !(v - v == 0.0))
        return false;
    *out = v;
    return true;
}

static rs_status parse_csv(const char *text, size_t len, const char *name, csv_points *out,
                           char *err, size_t err_len)
{
    size_t pos = 0;
    unsigned line_no = 0;
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        line_no++;
        const char *s = text + pos, *e = text + end;
        pos = end + 1;
        if (e > s && e[-1] == '\r')
            e--;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        if (s == e || *s == '#')
            continue; /* blank, comment, or the "# x_m,y_m,..." header */
        if (out->n == 0 && ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
            continue; /* a header without '#' */
        if (e - s > LINE_MAX_CHARS) {
            rs_errf(err, err_len, "%s:%u: line longer than %d characters", name, line_no,
                    LINE_MAX_CHARS);
            return RS_ERR_PARSE;
        }
        double v[4];
        int k = 0;
        const char *f = s;
        bool ok = true;
        while (ok) {
            const char *c = f;
            while (c < e && *c != ',')
                c++;
            if (k == 4 || !parse_field(f, c, &v[k]))
                ok = false;
            k++;
            if (c == e)
                break;
            f = c + 1;
        }
        if (!ok || k != 4) {
            rs_errf(err, err_len, "%s:%u: expected 4 numbers x_m,y_m,w_tr_right_m,w_tr_left_m",
                    name, line_no);
            return RS_ERR_PARSE;
        }
        if (!push_point(out, v)) {
            rs_errf(err, err_len, "%s: out of memory", name);
            return RS_ERR_NOMEM;
        }
    }
    if (out->n > 1) {
        double dx = out->v[4 * (out->n - 1)] - out->v[0];
        double dy = out->v[4 * (out->n - 1) + 1] - out->v[1];
        if (dx * dx + dy * dy <= DUP_CLOSE_M * DUP_CLOSE_M)
            out->n--;
    }
    if (out->n < 3) {
        rs_errf(err, err_len, "%s: needs at least 3 distinct points, found %zu", name, out->n);
        return RS_ERR_PARSE;
    }
    return RS_OK;
}

/* --------------------------------------------------------------- geometry */

typedef struct geom {
    size_t n;
    const double *v;
    double *s, *len, *tx, *ty, *curv; /* per point; len/tx/ty of the segment it starts */
    double length;
} geom;

static void geom_free(geom *g)
{
    free(g->s);
    free(g->len);
    free(g->tx);
    free(g->ty);
    free(g->curv);
}

static bool geom_build(geom *g, const csv_points *p)
{
    size_t n = p->n;
    memset(g, 0, sizeof *g);
    g->n = n;
    g->v = p->v;
    g->s = malloc(n * sizeof *g->s);
    g->len = malloc(n * sizeof *g->len);
    g->tx = malloc(n * sizeof *g->tx);
    g->ty = malloc(n * sizeof *g->ty);
    g->curv = malloc(n * sizeof *g->curv);
    double *turn = malloc(n * sizeof *turn);
    if (!g->s || !g->len || !g->tx || !g->ty || !g->curv || !turn) {
        free(turn);
        return false;
    }
    double station = 0.0;
    for (size_t i = 0; i < n; i++) {
        size_t j = i + 1 < n ? i + 1 : 0;
        double dx = p->v[4 * j] - p->v[4 * i], dy = p->v[4 * j + 1] - p->v[4 * i + 1];
        g->len[i] = rs_sqrt(dx * dx + dy * dy);
        g->tx[i] = g->len[i] > 0.0 ? dx / g->len[i] : 1.0;
        g->ty[i] = g->len[i] > 0.0 ? dy / g->len[i] : 0.0;
        g->s[i] = station;
        station += g->len[i];
    }
    g->length = station;
    for (size_t i = 0; i < n; i++) {
        size_t h = i ? i - 1 : n - 1;
        turn[i] = rs_atan2(g->tx[h] * g->ty[i] - g->ty[h] * g->tx[i],
                           g->tx[h] * g->tx[i] + g->ty[h] * g->ty[i]);
    }
    /* Turning over the points within +-CURV_WINDOW_M, per metre of the arc
     * those points stand for (half of each neighbouring segment). */
    for (size_t i = 0; i < n; i++) {
        double sum = 0.0, arc = 0.0, reach = 0.0;
        size_t j = i;
        for (size_t k = 0; k < n / 2 && reach <= CURV_WINDOW_M; k++) {
            size_t h = j ? j - 1 : n - 1;
            sum += turn[j];
            arc += 0.5 * (g->len[h] + g->len[j]);
            reach += g->len[h];
            j = h;
        }
        reach = g->len[i];
        j = i + 1 < n ? i + 1 : 0;
        for (size_t k = 1; k < n / 2 && reach <= CURV_WINDOW_M; k++) {
            size_t h = j ? j - 1 : n - 1;
            sum += turn[j];
            arc += 0.5 * (g->len[h] + g->len[j]);
            reach += g->len[j];
            j = j + 1 < n ? j + 1 : 0;
        }
        g->curv[i] = arc > 0.0 ? sum / arc : 0.0;
    }
    free(turn);
    return true;
}

/* Position, heading and widths on the centre line at station s in [0, L). */
static void geom_at(const geom *g, double s, double *x, double *y, double *tx, double *ty,
                    double *wr, double *wl)
{
    size_t lo = 0, hi = g->n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (g->s[mid] <= s)
            lo = mid;
        else
            hi = mid - 1;
    }
    size_t j = lo + 1 < g->n ? lo + 1 : 0;
    double f = g->len[lo] > 0.0 ? (s - g->s[lo]) / g->len[lo] : 0.0;
    const double *a = &g->v[4 * lo], *b = &g->v[4 * j];
    *x = a[0] + f * (b[0] - a[0]);
    *y = a[1] + f * (b[1] - a[1]);
    *wr = a[2] + f * (b[2] - a[2]);
    *wl = a[3] + f * (b[3] - a[3]);
    *tx = g->tx[lo];
    *ty = g->ty[lo];
}

/* ------------------------------------------------------------------ output */

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

RS_PRINTF(2, 3)
static void put(sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = true;
            return;
        }
        if (b->p && b->len + (size_t)k < b->cap) {
            b->len += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap <= b->len + (size_t)k)
            cap *= 2;
        char *grown = realloc(b->p, cap);
        if (!grown) {
            b->oom = true;
            return;
        }
        b->p = grown;
        b->cap = cap;
    }
}

/* A number in JSON syntax, shortest round-trip form. */
static const char *num(double v, char buf[32])
{
    rs_json_format_number(v + 0.0, buf); /* -0 prints as 0 */
    return buf;
}

/* Rounded to 0.1 m, for readable sector stations. */
static double tenth(double v) { return (double)(int64_t)(v * 10.0 + 0.5) / 10.0; }

typedef struct plan {
    char name[64];
    bool barrier_on[2];       /* left, right */
    double offset[2];
    double sector_shift[2];
    uint32_t grid;
} plan;

static void put_kerbs(sbuf *b, const geom *g, const rs_track_import_options *o)
{
    size_t n = g->n;
    if (!(o->kerb_width_m > 0.0) || !(o->kerb_radius_m > 0.0))
        return;
    /* Tight segments (either end under the radius), then widened by
     * KERB_EXTEND_M along the line both ways. */
    bool *tight = calloc(n, sizeof *tight), *kerb = calloc(n, sizeof *kerb);
    if (!tight || !kerb) {
        b->oom = true;
        free(tight);
        free(kerb);
        return;
    }
    double limit = 1.0 / o->kerb_radius_m;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = i + 1 < n ? i + 1 : 0;
        tight[i] = rs_abs(g->curv[i]) >= limit || rs_abs(g->curv[j]) >= limit;
    }
    for (size_t i = 0; i < n; i++) {
        if (!tight[i])
            continue;
        kerb[i] = true;
        double reach = 0.0;
        for (size_t j = i, k = 0; k < n && reach < KERB_EXTEND_M; k++) {
            j = j + 1 < n ? j + 1 : 0;
            kerb[j] = true;
            reach += g->len[j];
        }
        reach = 0.0;
        for (size_t j = i, k = 0; k < n && reach < KERB_EXTEND_M; k++) {
            j = j ? j - 1 : n - 1;
            kerb[j] = true;
            reach += g->len[j];
        }
    }
    for (size_t i = 0; i < n; i++)
        count += kerb[i];
    char f[32], t[32], w[32];
    if (count == n) {
        for (int side = 0; side < 2; side++)
            put(b, "%s\n      {\"side\": \"%s\", \"from_m\": 0, \"to_m\": %s, \"width_m\": %s}",
                side ? "," : "", side ? "right" : "left", num(g->length, t),
                num(o->kerb_width_m, w));
    } else if (count) {
        /* Runs of kerb segments, starting after a gap so none is split at
         * the start line's wrap. */
        size_t start = 0;
        while (kerb[start])
            start++;
        bool first = true;
        for (size_t k = 0; k < n; k++) {
            size_t i = (start + k) % n;
            if (!kerb[i] || (k > 0 && kerb[(i + n - 1) % n]))
                continue;
            size_t last = i;
            while (kerb[(last + 1) % n])
                last = (last + 1) % n;
            double from = g->s[i], to = g->s[last] + g->len[last];
            for (int side = 0; side < 2; side++) {
                put(b, "%s\n      {\"side\": \"%s\", \"from_m\": %s, \"to_m\": %s, \"width_m\": %s}",
                    first ? "" : ",", side ? "right" : "left", num(from, f), num(to, t),
                    num(o->kerb_width_m, w));
                first = false;
            }
        }
    }
    free(tight);
    free(kerb);
}

static char *emit(const geom *g, const plan *p, const rs_track_import_options *o)
{
    sbuf b = {NULL, 0, 0, false};
    char x[32], y[32], z[32], w[32], name[2 + 6 * sizeof p->name];
    rs_json_quote(p->name, name, sizeof name);
    put(&b, "{\n  \"format\": \"racesim-track\",\n  \"version\": 1,\n  \"name\": %s", name);
    put(&b, ",\n  \"length_m\": %s,\n  \"centre_line\": [", num(g->length, x));
    for (size_t i = 0; i < g->n; i++) {
        const double *v = &g->v[4 * i];
        put(&b, "%s\n    [%s, %s, %s, %s]", i ? "," : "", num(v[0], x), num(v[1], y),
            num(v[2], z), num(v[3], w));
    }
    put(&b, "\n  ],\n  \"surfaces\": {\n    \"runoff\": \"grass\",\n    \"kerbs\": [");
    size_t before = b.len;
    put_kerbs(&b, g, o);
    put(&b, "%s]\n  },\n", b.len > before ? "\n    " : "");
    put(&b, "  \"barriers\": {\"offset_left_m\": %s, \"offset_right_m\": %s, "
            "\"restitution\": 0.3, \"friction\": 0.5},\n",
        p->barrier_on[0] ? num(p->offset[0], x) : "false",
        p->barrier_on[1] ? num(p->offset[1], y) : "false");
    double s1 = tenth(g->length / 3.0 + p->sector_shift[0]);
    double s2 = tenth(2.0 * g->length / 3.0 + p->sector_shift[1]);
    put(&b, "  \"timing\": {\"start\": {\"s_m\": 0}, \"sectors\": [{\"s_m\": %s}, {\"s_m\": %s}]},\n",
        num(s1, x), num(s2, y));
    put(&b, "  \"grid\": [");
    for (uint32_t k = 0; k < p->grid; k++) {
        double s = g->length - (GRID_FIRST_M + GRID_STAGGER_M * k);
        double px, py, tx, ty, wr, wl;
        geom_at(g, s, &px, &py, &tx, &ty, &wr, &wl);
        /* Pole on the left, then alternating columns. */
        double side = k % 2 == 0 ? 1.0 : -1.0;
        double room = (side > 0 ? wl : wr) - GRID_EDGE_KEEP_M;
        double lat = side * rs_clamp(room, 0.0, GRID_LATERAL_MAX_M);
        double gx = px - lat * ty, gy = py + lat * tx;
        put(&b, "%s\n    {\"x_m\": %s, \"y_m\": %s, \"yaw_rad\": %s}", k ? "," : "", num(gx, x),
            num(gy, y), num(rs_atan2(ty, tx), z));
    }
    put(&b, "\n  ]\n}\n");
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

/* ------------------------------------------------------------------ import */

/* The display name from a path: its file name without the extension and
 * without the database's "_track" suffix. */
static void default_name(const char *path, char out[64])
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        n = (size_t)(dot - base);
    if (n > 6 && memcmp(base + n - 6, "_track", 6) == 0)
        n -= 6;
    if (n > 63)
        n = 63;
    while (n > 0 && ((unsigned char)base[n] & 0xC0) == 0x80 && n < strlen(base))
        n--; /* do not cut a UTF-8 sequence */
    memcpy(out, base, n);
    out[n] = 0;
    if (!out[0])
        snprintf(out, 64, "track");
}

/* Index inside "key[<k>]" in msg, or -1. */
static int index_after(const char *msg, const char *key)
{
    const char *p = strstr(msg, key);
    if (!p)
        return -1;
    return atoi(p + strlen(key));
}

rs_status rs_track_import_csv(const char *csv, size_t len, const char *csv_name,
                              const rs_track_import_options *options, char **json_out,
                              char *err, size_t err_len)
{
    if (!json_out)
        return RS_ERR_ARG;
    *json_out = NULL;
    if (!csv || !csv_name)
        return RS_ERR_ARG;
    rs_track_import_options o = options ? *options : rs_track_import_default();
    if (!(o.barrier_offset_m >= 1.0 && o.barrier_offset_m <= 200.0) ||
        !(o.kerb_width_m >= 0.0 && o.kerb_width_m <= 5.0) || !(o.kerb_radius_m >= 0.0) ||
        o.max_grid < 1 || o.max_grid > GRID_MAX_SLOTS)
        return RS_ERR_ARG;
    csv_points pts = {NULL, 0, 0};
    geom g;
    memset(&g, 0, sizeof g);
    rs_status st = parse_csv(csv, len, csv_name, &pts, err, err_len);
    if (st != RS_OK)
        goto done;
    if (!geom_build(&g, &pts)) {
        st = RS_ERR_NOMEM;
        rs_errf(err, err_len, "%s: out of memory", csv_name);
        goto done;
    }
    plan p;
    memset(&p, 0, sizeof p);
    if (o.name) {
        size_t n = strlen(o.name);
        if (n == 0 || n > 63 || !rs_json_utf8_valid(o.name, n)) {
            st = RS_ERR_ARG;
            rs_errf(err, err_len, "name must be 1..63 bytes of UTF-8");
            goto done;
        }
        memcpy(p.name, o.name, n + 1);
    } else {
        default_name(csv_name, p.name);
    }
    p.barrier_on[0] = p.barrier_on[1] = true;
    p.offset[0] = p.offset[1] = o.barrier_offset_m;
    p.grid = 0;
    while (p.grid < o.max_grid &&
           GRID_FIRST_M + GRID_STAGGER_M * p.grid <= GRID_MAX_SHARE * g.length)
        p.grid++;
    if (p.grid == 0) {
        st = RS_ERR_RANGE;
        rs_errf(err, err_len, "%s: the circuit is too short for a grid (%.1f m)", csv_name,
                g.length);
        goto done;
    }
    char msg[512];
    char check_name[96];
    snprintf(check_name, sizeof check_name, "%s (imported)", csv_name);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        char *json = emit(&g, &p, &o);
        if (!json) {
            st = RS_ERR_NOMEM;
            rs_errf(err, err_len, "%s: out of memory", csv_name);
            goto done;
        }
        rs_track *t = NULL;
        st = rs_track_parse(json, strlen(json), check_name, &t, msg, sizeof msg);
        rs_track_destroy(t);
        if (st == RS_OK) {
            *json_out = json;
            goto done;
        }
        free(json);
        /* Adjust the default that did not fit, or give up. */
        int k;
        bool fixed = false;
        for (int side = 0; side < 2 && !fixed; side++) {
            if (!strstr(msg, side ? "barriers.offset_right_m" : "barriers.offset_left_m"))
                continue;
            if (p.offset[side] * 0.7 >= MIN_OFFSET_M)
                p.offset[side] *= 0.7;
            else
                p.barrier_on[side] = false;
            fixed = true;
        }
        if (!fixed && (k = index_after(msg, "timing.sectors[")) >= 0 && k < 2 &&
            p.sector_shift[k] < 8 * SECTOR_SHIFT_M) {
            p.sector_shift[k] += SECTOR_SHIFT_M;
            fixed = true;
        }
        if (!fixed && (k = index_after(msg, "grid[")) > 0) {
            p.grid = (uint32_t)k;
            fixed = true;
        }
        if (!fixed)
            break;
    }
    rs_errf(err, err_len, "%s: the imported track does not load: %s", csv_name, msg);
    if (st == RS_OK)
        st = RS_ERR_RANGE;
done:
    geom_free(&g);
    free(pts.v);
    return st;
}

rs_status rs_track_import_file(const char *csv_path, const char *json_path,
                               const rs_track_import_options *options, char *err,
                               size_t err_len)
{
    char *text = NULL;
    size_t len = 0;
    rs_status rst = rs_read_file(csv_path, 64u << 20, &text, &len, err, err_len);
    if (rst != RS_OK)
        return rst;
    char *json = NULL;
    rs_status st = rs_track_import_csv(text, len, csv_path, options, &json, err, err_len);
    free(text);
    if (st != RS_OK)
        return st;
    FILE *out = fopen(json_path, "wb");
    if (!out) {
        free(json);
        rs_errf(err, err_len, "%s: cannot create: %s", json_path, strerror(errno));
        return RS_ERR_IO;
    }
    size_t n = strlen(json);
    bool bad = fwrite(json, 1, n, out) != n;
    bad = fclose(out) != 0 || bad;
    free(json);
    if (bad) {
        rs_errf(err, err_len, "%s: write error", json_path);
        return RS_ERR_IO;
    }
    return RS_OK;
}
