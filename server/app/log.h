/*
 * raceserver's log: one line per message on stderr, filtered by level, in
 * one of two formats (docs/RACESERVER.md, "Logs"):
 *  - text: "YYYY-MM-DDTHH:MM:SSZ LEVEL message" (UTC); the loadtest tool
 *    and the tests parse the stats line from it, so its words are part of
 *    the operator interface;
 *  - json: one JSON object per line, {"ts":"...Z","level":"info",
 *    "event":"join", fields..., "msg":"message"}, for log collectors.
 *
 * A line is an event with a stable snake_case name and typed fields (room,
 * player, player_id, address, ...) plus the human message; in text mode
 * only the message is written, so it must say everything on its own. Plain
 * rs_logf lines are event "message".
 *
 * Level and format are process-wide (one program, one stderr); log calls
 * may come from any thread (each line is written with one call).
 */
#ifndef RS_APP_LOG_H
#define RS_APP_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum rs_log_level {
    RS_LOG_ERROR = 0,
    RS_LOG_WARN = 1,
    RS_LOG_INFO = 2,
    RS_LOG_DEBUG = 3
} rs_log_level;

typedef enum rs_log_format {
    RS_LOG_TEXT = 0,
    RS_LOG_JSON = 1
} rs_log_format;

/* Sets the most verbose level that is written. Default RS_LOG_INFO. */
void rs_log_set_level(rs_log_level level);

/* True when messages of level are written (to skip building costly ones). */
bool rs_log_enabled(rs_log_level level);

/* Parses "error", "warn", "info" or "debug". False for anything else. */
bool rs_log_level_parse(const char *text, rs_log_level *out);

/* The level's name as it appears in the log ("INFO"). */
const char *rs_log_level_name(rs_log_level level);

/* Sets the format of every line from now on. Default RS_LOG_TEXT. */
void rs_log_set_format(rs_log_format format);
rs_log_format rs_log_get_format(void);

/* Parses "text" or "json". False for anything else. */
bool rs_log_format_parse(const char *text, rs_log_format *out);

/* One typed field of an event line. Build them with the functions below;
 * keys are snake_case and must not repeat ts, level, event or msg. */
typedef enum rs_log_field_type {
    RS_LOG_FIELD_STR = 0,  /* str (NULL: the field is left out) */
    RS_LOG_FIELD_INT,      /* i */
    RS_LOG_FIELD_UINT,     /* u */
    RS_LOG_FIELD_REAL,     /* real, written with `decimals` digits after the point */
    RS_LOG_FIELD_BOOL,     /* b */
    RS_LOG_FIELD_STRS      /* strs[0..count): a JSON array of strings */
} rs_log_field_type;

typedef struct rs_log_field {
    const char *key;
    uint8_t type;          /* rs_log_field_type */
    uint8_t decimals;
    bool b;
    const char *str;
    const char *const *strs;
    size_t count;
    int64_t i;
    uint64_t u;
    double real;
} rs_log_field;

static inline rs_log_field rs_log_str(const char *key, const char *v)
{
    return (rs_log_field){.key = key, .type = RS_LOG_FIELD_STR, .str = v};
}
static inline rs_log_field rs_log_int(const char *key, int64_t v)
{
    return (rs_log_field){.key = key, .type = RS_LOG_FIELD_INT, .i = v};
}
static inline rs_log_field rs_log_uint(const char *key, uint64_t v)
{
    return (rs_log_field){.key = key, .type = RS_LOG_FIELD_UINT, .u = v};
}
static inline rs_log_field rs_log_real(const char *key, double v, uint8_t decimals)
{
    return (rs_log_field){.key = key, .type = RS_LOG_FIELD_REAL, .real = v,
                          .decimals = decimals};
}
static inline rs_log_field rs_log_bool(const char *key, bool v)
{
    return (rs_log_field){.key = key, .type = RS_LOG_FIELD_BOOL, .b = v};
}
static inline rs_log_field rs_log_strs(const char *key, const char *const *v, size_t count)
{
    return (rs_log_field){.key = key, .type = RS_LOG_FIELD_STRS, .strs = v, .count = count};
}

/* Writes one event line if level is enabled: in json mode the object with
 * event, the fields in order and the message as "msg"; in text mode the
 * message alone, its control characters replaced by '?' (a client's text
 * cannot forge a line). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 5, 6)))
#endif
void rs_log_event(rs_log_level level, const char *event, const rs_log_field *fields,
                  size_t count, const char *fmt, ...);

/* Writes one line if level is enabled: event "message". */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
void rs_logf(rs_log_level level, const char *fmt, ...);

/* s as a JSON string with its quotes into out (cap >= 3): quotes,
 * backslashes and control characters escaped, bytes that are not UTF-8
 * (stray continuation bytes, overlong forms, surrogates, beyond U+10FFFF,
 * cut sequences) each replaced by U+FFFD, so the result is valid JSON
 * whatever s holds; cut at an escape's boundary (and still closed) when
 * it does not fit. NULL s is "". Returns the length written (out is NUL
 * terminated); 0 when cap < 3. */
size_t rs_log_json_string(char *out, size_t cap, const char *s);

/* The fields as one JSON object, {"key":value,...} with no spaces, into
 * out; a field that does not fit is left out (the object stays valid).
 * Returns the length written (0 when cap < 3). */
size_t rs_log_json_fields(char *out, size_t cap, const rs_log_field *fields, size_t count);

#endif
