/*
 * Checked JSON values for the configuration (config_json.h).
 */
#include "config_json.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void rs_cfg_fmt(char *dst, size_t cap, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vsnprintf(dst, cap, format, ap);
    va_end(ap);
}

void rs_cfg_copy(char *dst, size_t cap, const char *src)
{
    rs_cfg_fmt(dst, cap, "%s", src);
}

bool jfail(const jctx *j, const char *field, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    rs_verrf(what, sizeof what, fmt, ap);
    va_end(ap);
    rs_errf(j->err, j->err_len, "%s: %s: %s", j->source, field, what);
    return false;
}

bool j_u32(const jctx *j, const cJSON *it, const char *field, uint32_t lo, uint32_t hi,
           uint32_t *out)
{
    char range[64];
    snprintf(range, sizeof range, "%u..%u", (unsigned)lo, (unsigned)hi);
    if (!cJSON_IsNumber(it))
        return jfail(j, field, "must be an integer in %s", range);
    double v = it->valuedouble;
    if (!(v >= -1e15 && v <= 1e15) || v != (double)(int64_t)v)
        return jfail(j, field, "must be an integer in %s", range);
    if (v < (double)lo || v > (double)hi)
        return jfail(j, field, "%lld outside %s", (long long)v, range);
    *out = (uint32_t)v;
    return true;
}

bool j_str(const jctx *j, const cJSON *it, const char *field, size_t min, size_t max, char *out,
           size_t cap)
{
    if (!cJSON_IsString(it) || !it->valuestring)
        return jfail(j, field, "must be a string of %zu..%zu bytes", min, max);
    size_t n = strlen(it->valuestring);
    if (n < min || n > max || n >= cap)
        return jfail(j, field, "must be a string of %zu..%zu bytes", min, max);
    rs_cfg_copy(out, cap, it->valuestring);
    return true;
}

bool j_bool(const jctx *j, const cJSON *it, const char *field, bool *out)
{
    if (!cJSON_IsBool(it))
        return jfail(j, field, "must be true or false");
    *out = cJSON_IsTrue(it);
    return true;
}

/* A track or car given as a bare name ("oval") means data/<kind>/oval.json. */
void rs_cfg_data_path(char *dst, size_t cap, const char *data_dir, const char *kind,
                              const char *value)
{
    size_t n = strlen(value);
    bool bare = !strchr(value, '/') && !(n >= 5 && strcmp(value + n - 5, ".json") == 0);
    if (bare)
        rs_cfg_fmt(dst, cap, "%s/%s/%s.json", data_dir, kind, value);
    else
        rs_cfg_copy(dst, cap, value);
}

