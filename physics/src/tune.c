/*
 * Applying a tune (racesim/tune.h, docs/TUNES.md): read the overrides,
 * check every one against the car's rules while collecting every problem,
 * and only when there is none build the tuned car from a copy of the stock
 * data. The tune's identity is the hash of a canonical binary form of the
 * parsed overrides, so the way the JSON was written never matters.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/tune.h"
#include "racesim/base/err.h"

#include "bytes.h"
#include "carparams.h"
#include "json.h"
#include "tune_rules.h"

#define TUNE_HASH_MAGIC "RSTN"
#define TUNE_HASH_VERSION 1u

/* The parsed overrides. */
typedef struct overrides {
    bool set[RS_TUNE_PARAM_COUNT];
    double value[RS_TUNE_PARAM_COUNT]; /* scalars */
    uint32_t gears;
    double ratio[RS_MAX_GEARS];
} overrides;

/* Every problem, appended to the caller's buffer as "; "-separated items;
 * the first problem's status is the result. */
typedef struct problems {
    char *err;
    size_t err_len;
    size_t used;
    bool truncated;
    uint32_t count;
    rs_status status;
} problems;

RS_PRINTF(4, 5)
static void problem(problems *pr, rs_status st, const char *path, const char *fmt, ...)
{
    if (pr->count++ == 0)
        pr->status = st;
    if (!pr->err || pr->err_len < 4 || pr->truncated)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    rs_verrf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char item[400];
    snprintf(item, sizeof item, "%s%s: %s", pr->count > 1 ? "; " : "", path, msg);
    size_t n = strlen(item);
    /* Keep room for "..." so a cut list says it was cut. */
    if (pr->used + n + 4 > pr->err_len) {
        pr->truncated = true;
        memcpy(pr->err + (pr->used + 4 <= pr->err_len ? pr->used : pr->err_len - 4), "...", 4);
        return;
    }
    memcpy(pr->err + pr->used, item, n + 1);
    pr->used += n;
}

static void shape_problem(void *ctx, const char *path, const char *what)
{
    problem(ctx, RS_ERR_PARSE, path, "%s", what);
}

static void format_range(char *buf, size_t len, const rs_tune_range *r)
{
    char lo[32], hi[32];
    rs_json_format_number(r->min, lo);
    rs_json_format_number(r->max, hi);
    snprintf(buf, len, "%s..%s", lo, hi);
}

/* A number inside r, or a problem at path. */
static bool read_value(problems *pr, const char *path, const rs_json *v, const rs_tune_range *r,
                       double *out)
{
    if (rs_json_kind_of(v) != RS_JSON_NUMBER) {
        problem(pr, RS_ERR_PARSE, path, "expected a number, found %s",
                rs_json_kind_name(rs_json_kind_of(v)));
        return false;
    }
    double x = rs_json_number(v);
    if (!(x >= r->min && x <= r->max)) {
        char a[32], range[80];
        rs_json_format_number(x, a);
        format_range(range, sizeof range, r);
        problem(pr, RS_ERR_RANGE, path, "%s outside %s", a, range);
        return false;
    }
    *out = x == 0.0 ? 0.0 : x; /* -0 is 0: one value, one hash */
    return true;
}

static void read_ratios(problems *pr, const rs_json *v, const rs_car_params *base,
                        overrides *o)
{
    const char *path = rs_tune_param_path(RS_TUNE_GEAR_RATIOS);
    const rs_tune_range *r = &base->rules.range[RS_TUNE_GEAR_RATIOS];
    uint32_t gears = base->def.gears;
    if (rs_json_kind_of(v) != RS_JSON_ARRAY) {
        problem(pr, RS_ERR_PARSE, path, "expected an array, found %s",
                rs_json_kind_name(rs_json_kind_of(v)));
        return;
    }
    size_t n = rs_json_count(v);
    if (n != gears) {
        problem(pr, RS_ERR_RANGE, path, "%lu ratios, this car has %lu forward gears",
                (unsigned long)n, (unsigned long)gears);
        return;
    }
    bool ok = true;
    for (uint32_t g = 0; g < gears; g++) {
        char at[64];
        snprintf(at, sizeof at, "%s[%lu]", path, (unsigned long)g);
        if (!read_value(pr, at, rs_json_at(v, g), r, &o->ratio[g])) {
            ok = false;
            continue;
        }
        /* Only neighbours that both read are compared, so one bad ratio is
         * not reported twice. */
        if (g > 0 && ok && !(o->ratio[g] < o->ratio[g - 1])) {
            char a[32], b[32];
            rs_json_format_number(o->ratio[g], a);
            rs_json_format_number(o->ratio[g - 1], b);
            problem(pr, RS_ERR_RANGE, at,
                    "%s not below the previous gear's %s (ratios must decrease)", a, b);
        }
        ok = true;
    }
    o->gears = gears;
    o->set[RS_TUNE_GEAR_RATIOS] = true;
}

/* The optional "format", "version" and "car" members. */
static void read_meta(problems *pr, const rs_json *root, const rs_car_params *base)
{
    const rs_json *f = rs_json_get(root, "format");
    if (f && (rs_json_kind_of(f) != RS_JSON_STRING || strcmp(rs_json_string(f, NULL), RS_TUNE_FORMAT)))
        problem(pr, RS_ERR_PARSE, "format", "expected \"%s\"", RS_TUNE_FORMAT);
    const rs_json *ver = rs_json_get(root, "version");
    if (ver && !(rs_json_kind_of(ver) == RS_JSON_NUMBER && rs_json_number(ver) == RS_TUNE_VERSION))
        problem(pr, RS_ERR_PARSE, "version", "expected %d", RS_TUNE_VERSION);
    const rs_json *car = rs_json_get(root, "car");
    if (car) {
        char mine[17];
        snprintf(mine, sizeof mine, "%016llx", (unsigned long long)base->hash);
        size_t n = 0;
        const char *s = rs_json_kind_of(car) == RS_JSON_STRING ? rs_json_string(car, &n) : "";
        bool same = n == 16;
        for (size_t i = 0; same && i < 16; i++) {
            char c = s[i] >= 'A' && s[i] <= 'F' ? (char)(s[i] - 'A' + 'a') : s[i];
            same = c == mine[i];
        }
        if (!same)
            problem(pr, RS_ERR_MISMATCH, "car", "the tune is for car \"%.40s\", this car is %s", s,
                    mine);
    }
}

static void read_overrides(problems *pr, const rs_json *root, const rs_car_params *base,
                           overrides *o)
{
    static const char *const meta[] = {"format", "version", "car"};
    read_meta(pr, root, base);
    rs_tune_check_shape(root, "", meta, 3, shape_problem, pr);
    for (int i = 0; i < RS_TUNE_PARAM_COUNT; i++) {
        rs_tune_param p = (rs_tune_param)i;
        const rs_json *v = rs_tune_find(root, p);
        const rs_tune_range *r = &base->rules.range[p];
        const char *path = rs_tune_param_path(p);
        if (!v)
            continue;
        if (!r->adjustable) {
            problem(pr, RS_ERR_RANGE, path, "not adjustable on this car");
            continue;
        }
        if (p == RS_TUNE_GEAR_RATIOS)
            read_ratios(pr, v, base, o);
        else if (read_value(pr, path, v, r, &o->value[p]))
            o->set[p] = true;
    }
}

/* 64-bit identity of the overrides; 0 for none. */
static uint64_t overrides_hash(const overrides *o)
{
    uint8_t buf[512];
    rs_writer w = rs_writer_init(buf, sizeof buf);
    bool any = false;
    rs_write_bytes(&w, TUNE_HASH_MAGIC, 4);
    rs_write_u32(&w, TUNE_HASH_VERSION);
    for (int p = 0; p < RS_TUNE_PARAM_COUNT; p++) {
        if (!o->set[p])
            continue;
        any = true;
        rs_write_u8(&w, (uint8_t)p);
        if (p == RS_TUNE_GEAR_RATIOS) {
            rs_write_u8(&w, (uint8_t)o->gears);
            for (uint32_t g = 0; g < o->gears; g++)
                rs_write_f64(&w, o->ratio[g]);
        } else {
            rs_write_f64(&w, o->value[p]);
        }
    }
    if (!any)
        return 0;
    uint64_t h = rs_hash64(buf, w.len, 0);
    return h ? h : 1; /* 0 means stock */
}

rs_status rs_tune_apply(const rs_car_params *base, const char *tune_json, size_t len,
                        const char *name, rs_car_params **out, uint64_t *tune_hash, char *err,
                        size_t err_len)
{
    rs_json_doc *doc = NULL;
    rs_car_params_data *def = NULL;
    problems pr = {err, err_len, 0, false, 0, RS_OK};
    rs_status st;
    if (err && err_len)
        err[0] = 0;
    if (tune_hash)
        *tune_hash = 0;
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    if (!name)
        name = "tune";
    if (!base || (!tune_json && len)) {
        rs_errf(err, err_len, "%s: no car or no tune text", name);
        return RS_ERR_ARG;
    }
    st = rs_json_parse(tune_json ? tune_json : "", len, name, &doc, err, err_len);
    if (st != RS_OK)
        return st;
    const rs_json *root = rs_json_root(doc);
    /* The name leads the list once; the items follow it. */
    if (err && err_len) {
        rs_errf(err, err_len, "%s: ", name);
        pr.used = strlen(err);
    }
    overrides o;
    memset(&o, 0, sizeof o);
    if (rs_json_kind_of(root) != RS_JSON_OBJECT)
        problem(&pr, RS_ERR_PARSE, "(root)", "expected an object, found %s",
                rs_json_kind_name(rs_json_kind_of(root)));
    else
        read_overrides(&pr, root, base, &o);
    if (pr.count) {
        st = pr.status;
        goto done;
    }
    def = malloc(sizeof *def);
    if (!def) {
        st = RS_ERR_NOMEM;
        rs_errf(err, err_len, "%s: out of memory", name);
        goto done;
    }
    *def = base->def;
    for (int p = 0; p < RS_TUNE_PARAM_COUNT; p++)
        if (o.set[p] && p != RS_TUNE_GEAR_RATIOS)
            rs_tune_param_set(def, (rs_tune_param)p, o.value[p]);
    if (o.set[RS_TUNE_GEAR_RATIOS])
        memcpy(def->gear_ratio, o.ratio, sizeof o.ratio[0] * o.gears);
    /* Every override is inside a range the validator accepts, but the car
     * as a whole is checked again: the validator has the last word. */
    char msg[320];
    st = rs_car_params_rebuild(def, &base->rules, "the tuned car", out, msg, sizeof msg);
    if (st != RS_OK) {
        rs_errf(err, err_len, "%s: %s", name, msg);
        goto done;
    }
    if (tune_hash)
        *tune_hash = overrides_hash(&o);
    if (err && err_len)
        err[0] = 0;
done:
    free(def);
    rs_json_free(doc);
    return st;
}

uint32_t rs_tune_adjustable_count(const rs_car_params *car)
{
    uint32_t n = 0;
    for (int p = 0; car && p < RS_TUNE_PARAM_COUNT; p++)
        n += car->rules.range[p].adjustable;
    return n;
}

/* ----------------------------------------------------------- rules as JSON */

/* Size-query text builder: counts everything, writes what fits. */
typedef struct text {
    char *buf;
    size_t cap;
    size_t len;
} text;

RS_PRINTF(2, 3)
static void put(text *t, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    size_t k = (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1;
    if (t->buf && t->len + k < t->cap)
        memcpy(t->buf + t->len, tmp, k);
    t->len += k;
}

static void put_number(text *t, double v)
{
    char num[32];
    rs_json_format_number(v, num);
    put(t, "%s", num);
}

/* A name as a JSON string: at most 2 + 6 * 63 bytes quoted. */
static void put_string(text *t, const char *s)
{
    char quoted[2 + 6 * RS_NAME_MAX];
    rs_json_quote(s, quoted, sizeof quoted);
    put(t, "%s", quoted);
}

size_t rs_tune_rules_json(const rs_car_params *car, char *buf, size_t cap)
{
    /* Measure first, so a buffer that is too small is left untouched. */
    if (buf && rs_tune_rules_json(car, NULL, 0) >= cap)
        buf = NULL;
    text t = {buf, cap, 0};
    if (!car) {
        put(&t, "{}");
    } else {
        put(&t, "{\"car\":\"%016llx\",\"name\":", (unsigned long long)car->hash);
        put_string(&t, car->def.name);
        put(&t, ",\"adjustable\":[");
        bool first = true;
        for (int i = 0; i < RS_TUNE_PARAM_COUNT; i++) {
            rs_tune_param p = (rs_tune_param)i;
            const rs_tune_range *r = &car->rules.range[p];
            if (!r->adjustable)
                continue;
            put(&t, "%s{\"field\":\"%s\",\"min\":", first ? "" : ",", rs_tune_param_path(p));
            put_number(&t, r->min);
            put(&t, ",\"max\":");
            put_number(&t, r->max);
            put(&t, ",\"stock\":");
            if (p == RS_TUNE_GEAR_RATIOS) {
                put(&t, "[");
                for (uint32_t g = 0; g < car->def.gears; g++) {
                    put(&t, g ? "," : "");
                    put_number(&t, car->def.gear_ratio[g]);
                }
                put(&t, "]");
            } else {
                put_number(&t, rs_tune_param_get(&car->def, p));
            }
            put(&t, "}");
            first = false;
        }
        put(&t, "]}");
    }
    if (buf && t.len < cap)
        buf[t.len] = 0;
    return t.len;
}
