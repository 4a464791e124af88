/*
 * A small strict JSON (RFC 8259) reader for definition files: cars, tracks,
 * scenarios. The physics library is embedded in game frontends and
 * cross-compiled, so it cannot depend on a third-party JSON library; this is
 * our own, and it is deliberately unforgiving, because a definition file is
 * written by hand and a typo must be an error rather than a surprise.
 *
 * Two layers:
 *  - the document: text is parsed into a read-only tree held in one arena
 *    (freed with one call). Objects keep their key order; duplicate keys,
 *    comments, trailing commas, NaN/Infinity, control characters in strings,
 *    invalid UTF-8, numbers that overflow a double and anything after the
 *    value are errors reported as "name:line:column: message" (line and
 *    column count from 1; the column counts characters, a tab is one).
 *  - the field reader (rs_json_ctx): typed getters with a sticky status that
 *    name the offending field by its path ("c5.json: axles.front.spring_n_m:
 *    9e9 outside 1000..1e6"), so loaders read like a list of fields.
 *
 * Numbers are converted with the C library's strtod (correctly rounded by
 * glibc, musl and the BSDs) after the JSON number grammar has been checked,
 * independently of the locale's decimal point. Parameters are parsed only on
 * the server and shipped as canonical binary blocks (docs/DETERMINISM.md,
 * "Parameter blocks"), so clients never depend on this conversion.
 */
#ifndef RS_JSON_H
#define RS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "racesim/base/err.h"
#include "racesim/base/file.h"
#include "racesim/physics.h"

#define RS_JSON_MAX_DEPTH 64                 /* nesting of arrays and objects */
#define RS_JSON_MAX_BYTES (4u * 1024u * 1024u) /* largest document accepted */
#define RS_JSON_MAX_NUMBER_CHARS 400         /* longest number token accepted */

typedef enum rs_json_kind {
    RS_JSON_NULL = 0,
    RS_JSON_BOOL,
    RS_JSON_NUMBER,
    RS_JSON_STRING,
    RS_JSON_ARRAY,
    RS_JSON_OBJECT
} rs_json_kind;

typedef struct rs_json rs_json;         /* one value inside a document */
typedef struct rs_json_doc rs_json_doc; /* a parsed document; owns every value */

/* ---------------------------------------------------------------- documents */

/* Parses len bytes of UTF-8 text (a leading byte order mark is skipped).
 * name is only used in messages. On success *out is a document the caller
 * frees with rs_json_free; the text is copied, nothing is kept. On error
 * returns RS_ERR_PARSE (or RS_ERR_NOMEM), writes "name:line:column: message"
 * into err and leaves *out NULL. */
rs_status rs_json_parse(const char *text, size_t len, const char *name, rs_json_doc **out,
                        char *err, size_t err_len);

/* Reads a whole file of at most max_bytes with rs_file_read and says what
 * went wrong as a status (RS_ERR_NOMEM, else RS_ERR_IO). */
rs_status rs_read_file(const char *path, size_t max_bytes, char **text, size_t *len, char *err,
                       size_t err_len);

/* Reads a whole file (at most RS_JSON_MAX_BYTES) and parses it; messages name
 * the file by path as given. RS_ERR_IO when the file cannot be read or is too
 * large. Caller frees with rs_json_free. */
rs_status rs_json_load(const char *path, rs_json_doc **out, char *err, size_t err_len);

/* Frees a document and every value in it. Accepts NULL. */
void rs_json_free(rs_json_doc *doc);

/* The top-level value; borrowed until rs_json_free. Never NULL for a parsed
 * document. */
const rs_json *rs_json_root(const rs_json_doc *doc);

/* ------------------------------------------------------------------- values */

rs_json_kind rs_json_kind_of(const rs_json *v);

/* "null", "boolean", "number", "string", "array", "object". Never fails. */
const char *rs_json_kind_name(rs_json_kind kind);

/* Where the value starts in the text, from 1. */
uint32_t rs_json_line(const rs_json *v);
uint32_t rs_json_column(const rs_json *v);

/* Scalar contents; each returns 0 / false / "" for a value of another kind. */
bool rs_json_bool(const rs_json *v);
double rs_json_number(const rs_json *v); /* always finite; -0 stays -0.0 */
/* The decoded UTF-8 string, NUL-terminated; *len (if non-NULL) gets its
 * length in bytes, which counts any embedded U+0000. Borrowed until
 * rs_json_free. */
const char *rs_json_string(const rs_json *v, size_t *len);

/* Number of elements of an array or members of an object; 0 otherwise. */
size_t rs_json_count(const rs_json *v);

/* Element i of an array; NULL when out of range or not an array. */
const rs_json *rs_json_at(const rs_json *arr, size_t i);

/* Member i of an object, in document order: its key (NUL-terminated UTF-8)
 * and value. NULL when out of range or not an object. */
const char *rs_json_key_at(const rs_json *obj, size_t i);
const rs_json *rs_json_value_at(const rs_json *obj, size_t i);

/* The value of the member named key; NULL when absent or not an object. Keys
 * are unique within an object (the parser rejects duplicates). */
const rs_json *rs_json_get(const rs_json *obj, const char *key);

/* Formats a double with the fewest significant digits that read back to the
 * same value, in JSON number syntax whatever the locale: plain notation for
 * 1e-4 <= |v| with at most four padding zeros ("1000", "25000", "0.7",
 * "0.0001"), exponent notation otherwise ("1e6", "9e9", "1e-6"). NaN and Inf
 * come out as "nan", "inf", "-inf". Writes at most 32 bytes including the
 * NUL. For messages. */
void rs_json_format_number(double v, char buf[32]);

/* s as a JSON string literal, quotes included: '"' and '\\' escaped,
 * control characters as \u00XX, every other byte as it is (s is UTF-8).
 * rs_json_quote writes at most cap bytes including the NUL, like snprintf,
 * and returns the literal's whole length; out may be NULL when cap is 0.
 * Every tool and file writer here quotes strings with these. */
size_t rs_json_quote(const char *s, char *out, size_t cap);
void rs_json_fput_string(FILE *f, const char *s);

/* True when the len bytes at s are well-formed UTF-8 (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF). */
bool rs_json_utf8_valid(const void *s, size_t len);

/* ------------------------------------------------------------- field reader */

#define RS_JSON_PATH_MAX 200

/* Reads fields with messages that name file and path. The status is sticky:
 * after the first error every getter does nothing and reports failure, so a
 * loader can read a list of fields and check the status once. */
typedef struct rs_json_ctx {
    const char *file;             /* named at the start of every message */
    char path[RS_JSON_PATH_MAX];  /* current field path, e.g. "axles.front" */
    size_t path_len;
    char *err;                    /* caller's message buffer (may be NULL) */
    size_t err_len;
    rs_status status;             /* RS_OK until the first error */
} rs_json_ctx;

/* Starts a field reader at the document root (empty path). err is borrowed;
 * messages are written into it. */
rs_json_ctx rs_json_ctx_init(const char *file, char *err, size_t err_len);

/* Appends ".key" (just "key" at the root) or "[index]" to the path and
 * returns the previous length, to be passed to rs_json_ctx_pop. A path that
 * would not fit ends in "...". */
size_t rs_json_ctx_push_key(rs_json_ctx *c, const char *key);
size_t rs_json_ctx_push_index(rs_json_ctx *c, size_t index);
void rs_json_ctx_pop(rs_json_ctx *c, size_t mark);

/* Records an error "file: path: message" (printf-style) unless one is
 * already recorded. Returns false, so that "return rs_json_fail(...)" reads
 * naturally. */
bool rs_json_fail(rs_json_ctx *c, rs_status status, const char *fmt, ...) RS_PRINTF(3, 4);

/* The same for the field at path, given whole from the document's root
 * ("centre_line[3]", "axles.front.x_m"), which replaces the context's current
 * path: for the checks that name fields without walking a document (the
 * track builder, car validation, the car parameter block reader). */
bool rs_json_fail_at(rs_json_ctx *c, rs_status status, const char *path, const char *fmt, ...)
    RS_PRINTF(4, 5);

/* Checks that every key of obj is one of the count names in allowed (typo
 * safety). Error (RS_ERR_PARSE): "path.key: unknown field". */
bool rs_json_check_keys(rs_json_ctx *c, const rs_json *obj, const char *const *allowed,
                        size_t count);

/* Member lookups. Each returns the member, or NULL and records an error:
 * RS_ERR_MISSING "path.key: required field missing" when absent,
 * RS_ERR_PARSE "path.key: expected an object, found a string" when of the
 * wrong kind. obj must be an object (checked). Borrowed until rs_json_free. */
const rs_json *rs_json_get_object(rs_json_ctx *c, const rs_json *obj, const char *key);
const rs_json *rs_json_get_array(rs_json_ctx *c, const rs_json *obj, const char *key,
                                 size_t min_count, size_t max_count);

/* Typed members with range checks (inclusive). On error *out is unchanged. */
bool rs_json_get_number(rs_json_ctx *c, const rs_json *obj, const char *key, double min,
                        double max, double *out);
bool rs_json_get_integer(rs_json_ctx *c, const rs_json *obj, const char *key, int64_t min,
                         int64_t max, int64_t *out);
bool rs_json_get_bool(rs_json_ctx *c, const rs_json *obj, const char *key, bool *out);
/* A string of at most max_len bytes without U+0000; *out is borrowed until
 * rs_json_free. */
bool rs_json_get_string(rs_json_ctx *c, const rs_json *obj, const char *key, size_t max_len,
                        const char **out);

/* The same checks on a value in hand (an array element, a member found by
 * iteration); messages use the current path, so push the index or key first.
 * v may be NULL (reported as missing). */
bool rs_json_as_number(rs_json_ctx *c, const rs_json *v, double min, double max, double *out);
bool rs_json_as_integer(rs_json_ctx *c, const rs_json *v, int64_t min, int64_t max,
                        int64_t *out);
bool rs_json_as_string(rs_json_ctx *c, const rs_json *v, size_t max_len, const char **out);
bool rs_json_as_kind(rs_json_ctx *c, const rs_json *v, rs_json_kind kind);
bool rs_json_as_array(rs_json_ctx *c, const rs_json *v, size_t min_count, size_t max_count);

#endif
