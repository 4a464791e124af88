/*
 * raceserver's log (log.h). A line is formatted into a local buffer first
 * and written with a single call, so lines from different threads do not
 * interleave. In json mode every line is one valid JSON object whatever the
 * strings in it hold (clients' texts, paths, error messages): they go
 * through one escaper, rs_log_json_string, and a line too long for the
 * buffer loses fields or the end of its message, never its closing brace.
 */
#define _POSIX_C_SOURCE 200809L /* gmtime_r */

#include "log.h"
#include "racesim/base/clock.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define LINE_MAX_BYTES 8192
/* What a json line keeps for its message after the fields. */
#define MSG_RESERVE 512

/* The program's one log level and format: raceserver is a single program
 * writing to its single stderr. */
static rs_log_level g_level = RS_LOG_INFO;
static rs_log_format g_format = RS_LOG_TEXT;

void rs_log_set_level(rs_log_level level)
{
    g_level = level;
}

bool rs_log_enabled(rs_log_level level)
{
    return level <= g_level;
}

static const char *const level_names[] = {"ERROR", "WARN", "INFO", "DEBUG"};
static const char *const level_words[] = {"error", "warn", "info", "debug"};

bool rs_log_level_parse(const char *text, rs_log_level *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(text, level_words[i]) == 0) {
            *out = (rs_log_level)i;
            return true;
        }
    return false;
}

const char *rs_log_level_name(rs_log_level level)
{
    return level >= RS_LOG_ERROR && level <= RS_LOG_DEBUG ? level_names[level] : "?";
}

void rs_log_set_format(rs_log_format format)
{
    g_format = format;
}

rs_log_format rs_log_get_format(void)
{
    return g_format;
}

bool rs_log_format_parse(const char *text, rs_log_format *out)
{
    if (strcmp(text, "text") == 0)
        *out = RS_LOG_TEXT;
    else if (strcmp(text, "json") == 0)
        *out = RS_LOG_JSON;
    else
        return false;
    return true;
}

/* ---------------------------------------------------------------- JSON */

static bool cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

/* The length of the well-formed UTF-8 sequence at u (RFC 3629: no overlong
 * forms, no surrogates, nothing beyond U+10FFFF), 0 if there is none. A
 * byte after the terminating NUL is never read: NUL is no continuation. */
static size_t utf8_seq(const unsigned char *u)
{
    unsigned c = u[0];
    if (c >= 0xC2 && c <= 0xDF)
        return cont(u[1]) ? 2 : 0;
    if (c == 0xE0)
        return u[1] >= 0xA0 && u[1] <= 0xBF && cont(u[2]) ? 3 : 0;
    if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
        return cont(u[1]) && cont(u[2]) ? 3 : 0;
    if (c == 0xED) /* U+D000..U+D7FF: the surrogates after it are no characters */
        return u[1] >= 0x80 && u[1] <= 0x9F && cont(u[2]) ? 3 : 0;
    if (c == 0xF0)
        return u[1] >= 0x90 && u[1] <= 0xBF && cont(u[2]) && cont(u[3]) ? 4 : 0;
    if (c >= 0xF1 && c <= 0xF3)
        return cont(u[1]) && cont(u[2]) && cont(u[3]) ? 4 : 0;
    if (c == 0xF4)
        return u[1] >= 0x80 && u[1] <= 0x8F && cont(u[2]) && cont(u[3]) ? 4 : 0;
    return 0;
}

size_t rs_log_json_string(char *out, size_t cap, const char *s)
{
    if (cap < 3) {
        if (cap)
            out[0] = '\0';
        return 0;
    }
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t n = 0, limit = cap - 2; /* the closing quote and the NUL always fit */
    out[n++] = '"';
    while (*u) {
        char unit[8];
        size_t len = 1, step = 1;
        unsigned c = *u;
        if (c == '"' || c == '\\') {
            unit[0] = '\\';
            unit[1] = (char)c;
            len = 2;
        } else if (c < 0x20 || c == 0x7F) {
            static const char shorts[] = {'b', 't', 'n', 0, 'f', 'r'}; /* 0x08..0x0D */
            if (c >= 0x08 && c <= 0x0D && shorts[c - 0x08]) {
                unit[0] = '\\';
                unit[1] = shorts[c - 0x08];
                len = 2;
            } else {
                snprintf(unit, sizeof unit, "\\u%04x", c);
                len = 6;
            }
        } else if (c < 0x80) {
            unit[0] = (char)c;
        } else if ((step = utf8_seq(u)) > 0) {
            memcpy(unit, u, step);
            len = step;
        } else {
            memcpy(unit, "\\ufffd", 6); /* one replacement per stray byte */
            len = 6;
            step = 1;
        }
        if (n + len > limit)
            break;
        memcpy(out + n, unit, len);
        n += len;
        u += step;
    }
    out[n++] = '"';
    out[n] = '\0';
    return n;
}

/* A bounded line under construction: appends fit whole or not at all, and
 * `cap` keeps room for what the caller closes the line with. */
typedef struct jbuf {
    char *p;
    size_t len, cap;
} jbuf;

static bool jput(jbuf *b, const char *s, size_t n)
{
    if (b->len + n >= b->cap)
        return false;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return true;
}

static bool jputs(jbuf *b, const char *s)
{
    return jput(b, s, strlen(s));
}

static bool jstring(jbuf *b, const char *s)
{
    if (b->cap - b->len < 3)
        return false;
    b->len += rs_log_json_string(b->p + b->len, b->cap - b->len, s);
    return true;
}

static bool jvalue(jbuf *b, const rs_log_field *f)
{
    char num[64];
    switch (f->type) {
    case RS_LOG_FIELD_STR:
        return jstring(b, f->str);
    case RS_LOG_FIELD_INT:
        snprintf(num, sizeof num, "%lld", (long long)f->i);
        return jputs(b, num);
    case RS_LOG_FIELD_UINT:
        snprintf(num, sizeof num, "%llu", (unsigned long long)f->u);
        return jputs(b, num);
    case RS_LOG_FIELD_REAL:
        if (!isfinite(f->real))
            return jputs(b, "null"); /* JSON has no NaN or infinity */
        snprintf(num, sizeof num, "%.*f", (int)f->decimals, f->real);
        return jputs(b, num);
    case RS_LOG_FIELD_BOOL:
        return jputs(b, f->b ? "true" : "false");
    case RS_LOG_FIELD_STRS:
        if (!jputs(b, "["))
            return false;
        for (size_t i = 0; i < f->count; i++)
            if ((i && !jputs(b, ",")) || !jstring(b, f->strs[i]))
                return false;
        return jputs(b, "]");
    default:
        return jputs(b, "null");
    }
}

/* ,"key":value (no comma first) whole, or nothing. */
static void jfield(jbuf *b, const rs_log_field *f, bool first)
{
    if (!f->key || (f->type == RS_LOG_FIELD_STR && !f->str))
        return;
    size_t at = b->len;
    if ((first || jputs(b, ",")) && jstring(b, f->key) && jputs(b, ":") && jvalue(b, f) &&
        b->len + 1 < b->cap)
        return;
    b->len = at; /* did not fit: the field is left out */
    b->p[at] = '\0';
}

size_t rs_log_json_fields(char *out, size_t cap, const rs_log_field *fields, size_t count)
{
    if (cap < 3) {
        if (cap)
            out[0] = '\0';
        return 0;
    }
    jbuf b = {out, 0, cap - 1}; /* the closing brace always fits */
    jputs(&b, "{");
    for (size_t i = 0; i < count; i++)
        jfield(&b, &fields[i], b.len == 1);
    out[b.len++] = '}';
    out[b.len] = '\0';
    return b.len;
}

/* ---------------------------------------------------------------- lines */

static void write_text(rs_log_level level, const char *msg)
{
    char line[LINE_MAX_BYTES];
    size_t n = rs_time_format_utc(rs_wall_time_s(), "%Y-%m-%dT%H:%M:%SZ ", line, sizeof line);
    n += (size_t)snprintf(line + n, sizeof line - n, "%s ", rs_log_level_name(level));
    for (const char *m = msg; *m && n < sizeof line - 2; m++) {
        unsigned char c = (unsigned char)*m;
        line[n++] = c < 0x20 || c == 0x7F ? '?' : (char)c; /* one line, unforgeable */
    }
    line[n++] = '\n';
    line[n] = '\0';
    fputs(line, stderr);
}

static void write_json(rs_log_level level, const char *event, const rs_log_field *fields,
                       size_t count, const char *msg)
{
    char line[LINE_MAX_BYTES];
    int64_t us = rs_wall_time_us();
    char ts[40], when[32];
    rs_time_format_utc(us / 1000000, "%Y-%m-%dT%H:%M:%S", when, sizeof when);
    snprintf(ts, sizeof ts, "%s.%03dZ", when, (int)(us / 1000 % 1000));
    /* Fields first, leaving the message its reserve; then the message takes
     * what is left but the closing "}\n". */
    jbuf b = {line, 0, sizeof line - 2 - MSG_RESERVE};
    jputs(&b, "{\"ts\":");
    jstring(&b, ts);
    jputs(&b, ",\"level\":");
    jstring(&b, level >= RS_LOG_ERROR && level <= RS_LOG_DEBUG ? level_words[level] : "?");
    jputs(&b, ",\"event\":");
    jstring(&b, event ? event : "message");
    for (size_t i = 0; i < count; i++)
        jfield(&b, &fields[i], false);
    b.cap = sizeof line - 2;
    if (jputs(&b, ",\"msg\":"))
        jstring(&b, msg);
    line[b.len++] = '}';
    line[b.len++] = '\n';
    line[b.len] = '\0';
    fputs(line, stderr);
}

static void write_line(rs_log_level level, const char *event, const rs_log_field *fields,
                       size_t count, const char *msg)
{
    if (g_format == RS_LOG_JSON)
        write_json(level, event, fields, count, msg);
    else
        write_text(level, msg);
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 5, 0)))
#endif
static void vlog(rs_log_level level, const char *event, const rs_log_field *fields,
                 size_t count, const char *fmt, va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    write_line(level, event, fields, count, msg);
}

void rs_log_event(rs_log_level level, const char *event, const rs_log_field *fields,
                  size_t count, const char *fmt, ...)
{
    if (!rs_log_enabled(level))
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(level, event, fields, count, fmt, ap);
    va_end(ap);
}

void rs_logf(rs_log_level level, const char *fmt, ...)
{
    if (!rs_log_enabled(level))
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(level, "message", NULL, 0, fmt, ap); /* a plain line is the event "message" */
    va_end(ap);
}
