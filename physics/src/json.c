/*
 * Strict JSON reader: a recursive-descent parser into a read-only tree held
 * in one arena, and the field reader used by the definition loaders. See
 * json.h for the rules it enforces and why the project has its own.
 *
 * Parsing: children of an open array or object are collected on one scratch
 * stack shared by all nesting levels and copied into the arena, contiguous,
 * when the container closes; so the tree has no per-value allocations and
 * freeing a document is freeing its arena blocks. Line and column are
 * tracked incrementally: newlines only occur in whitespace, multi-byte UTF-8
 * only inside strings, so both are counted where they are consumed.
 */
#include "json.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/base/err.h"
#include "racesim/base/text.h"

/* ------------------------------------------------------------------ arena */

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
} arena_block;

/* The block header rounded up so that block data is aligned for anything. */
#define ARENA_ALIGN _Alignof(max_align_t)
#define ARENA_HEADER ((sizeof(arena_block) + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN)
#define ARENA_MIN_BLOCK (64u * 1024u)

typedef struct arena {
    arena_block *head; /* newest block first */
} arena;

static void *arena_alloc(arena *a, size_t size)
{
    size = (size + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
    arena_block *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > ARENA_MIN_BLOCK ? size : ARENA_MIN_BLOCK;
        b = malloc(ARENA_HEADER + cap);
        if (!b)
            return NULL;
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    void *p = (unsigned char *)b + ARENA_HEADER + b->used;
    b->used += size;
    return p;
}

static void arena_free(arena *a)
{
    arena_block *b = a->head;
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}

/* ------------------------------------------------------------------- tree */

typedef struct rs_json_member rs_json_member;

struct rs_json {
    uint8_t kind;    /* rs_json_kind */
    bool boolean;
    uint32_t line, column;
    double number;
    const char *str; /* string contents, NUL-terminated */
    size_t len;      /* string length, or number of children */
    const rs_json_member *kids; /* array elements or object members */
};

struct rs_json_member {
    const char *key; /* NULL for array elements */
    size_t key_len;
    uint32_t key_line, key_column;
    rs_json value;
};

struct rs_json_doc {
    arena mem;
    rs_json root;
};

/* ----------------------------------------------------------------- parser */

typedef struct parser {
    const unsigned char *s;
    size_t len, pos;
    uint32_t line;
    size_t line_start;   /* byte offset where the current line begins */
    size_t line_cont;    /* UTF-8 continuation bytes consumed on this line */
    const char *name;
    arena *mem;
    rs_json_member *stack; /* children of the open containers */
    size_t stack_len, stack_cap;
    char *err;
    size_t err_len;
    rs_status status;
} parser;

static uint32_t column_now(const parser *p)
{
    size_t col = p->pos - p->line_start - p->line_cont + 1;
    return col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
}

RS_PRINTF(4, 5)
static bool fail_at(parser *p, uint32_t line, uint32_t column, const char *fmt, ...)
{
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    rs_verrf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->status == RS_OK) {
        p->status = RS_ERR_PARSE;
        rs_errf(p->err, p->err_len, "%s:%u:%u: %s", p->name, (unsigned)line, (unsigned)column,
                msg);
    }
    return false;
}

static bool fail_nomem(parser *p)
{
    if (p->status == RS_OK) {
        p->status = RS_ERR_NOMEM;
        rs_errf(p->err, p->err_len, "%s: out of memory", p->name);
    }
    return false;
}

/* Describes the byte at the current position for "found ..." messages. */
static void describe_here(const parser *p, char out[24])
{
    if (p->pos >= p->len) {
        snprintf(out, 24, "end of input");
        return;
    }
    unsigned c = p->s[p->pos];
    if (c > 0x20 && c < 0x7f)
        snprintf(out, 24, "'%c'", (char)c);
    else
        snprintf(out, 24, "byte 0x%02X", c);
}

/* Error at the current position: "<what>, found <byte>". */
static bool fail_expected(parser *p, const char *what)
{
    char found[24];
    describe_here(p, found);
    return fail_at(p, p->line, column_now(p), "expected %s, found %s", what, found);
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        unsigned char c = p->s[p->pos];
        if (c == '\n') {
            p->pos++;
            p->line++;
            p->line_start = p->pos;
            p->line_cont = 0;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            p->pos++;
        } else {
            break;
        }
    }
}

static bool at(const parser *p, char c) { return p->pos < p->len && p->s[p->pos] == (unsigned char)c; }

static bool push_child(parser *p, const rs_json_member *m)
{
    if (p->stack_len == p->stack_cap) {
        size_t cap = p->stack_cap ? 2 * p->stack_cap : 64;
        rs_json_member *grown = realloc(p->stack, cap * sizeof *grown);
        if (!grown)
            return fail_nomem(p);
        p->stack = grown;
        p->stack_cap = cap;
    }
    p->stack[p->stack_len++] = *m;
    return true;
}

/* Moves the children above stack position `base` into the arena. */
static bool close_container(parser *p, size_t base, rs_json *out)
{
    size_t n = p->stack_len - base;
    out->len = n;
    out->kids = NULL;
    if (n) {
        rs_json_member *kids = arena_alloc(p->mem, n * sizeof *kids);
        if (!kids)
            return fail_nomem(p);
        memcpy(kids, p->stack + base, n * sizeof *kids);
        out->kids = kids;
    }
    p->stack_len = base;
    return true;
}

/* ---------------------------------------------------------------- strings */

/* Reads the 4 hex digits of a \u escape whose backslash is at p->pos. */
static bool read_u_escape(parser *p, unsigned *out)
{
    uint32_t col = column_now(p);
    if (p->len - p->pos < 6)
        return fail_at(p, p->line, col, "\\u escape needs 4 hex digits");
    unsigned v = 0;
    for (size_t i = 2; i < 6; i++) {
        int d = rs_hex_digit(p->s[p->pos + i]);
        if (d < 0)
            return fail_at(p, p->line, col, "\\u escape needs 4 hex digits");
        v = v * 16u + (unsigned)d;
    }
    p->pos += 6;
    *out = v;
    return true;
}

static size_t put_utf8(unsigned char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decodes a \uXXXX escape (with its low surrogate when it is a high one). */
static bool decode_u_escape(parser *p, unsigned char *o, size_t *n)
{
    uint32_t col = column_now(p);
    unsigned cp;
    if (!read_u_escape(p, &cp))
        return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return fail_at(p, p->line, col, "unpaired low surrogate \\u%04X", cp);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        unsigned lo;
        if (!(p->len - p->pos >= 2 && p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u'))
            return fail_at(p, p->line, col, "unpaired high surrogate \\u%04X", cp);
        if (!read_u_escape(p, &lo))
            return false;
        if (lo < 0xDC00 || lo > 0xDFFF)
            return fail_at(p, p->line, col, "unpaired high surrogate \\u%04X", cp);
        cp = 0x10000u + ((cp - 0xD800u) << 10) + (lo - 0xDC00u);
    }
    *n = put_utf8(o, cp);
    return true;
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0. */
static size_t utf8_sequence(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4;
    else
        return 0;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (avail < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

bool rs_json_utf8_valid(const void *s, size_t len)
{
    const unsigned char *b = s;
    size_t i = 0;
    while (i < len) {
        size_t k = b[i] < 0x80 ? 1 : utf8_sequence(b + i, len - i);
        if (!k)
            return false;
        i += k;
    }
    return true;
}

/* Parses the string whose opening quote is at p->pos into the arena. */
static bool parse_string(parser *p, const char **out, size_t *out_len)
{
    uint32_t line = p->line, col = column_now(p);
    /* First pass: find the closing quote, which bounds the decoded length. */
    size_t end = p->pos + 1;
    while (end < p->len && p->s[end] != '"')
        end += p->s[end] == '\\' ? 2 : 1;
    if (end >= p->len)
        return fail_at(p, line, col, "unterminated string");
    unsigned char *o = arena_alloc(p->mem, end - p->pos);
    if (!o)
        return fail_nomem(p);
    size_t n = 0;
    p->pos++;
    while (p->s[p->pos] != '"') {
        unsigned char c = p->s[p->pos];
        if (c < 0x20) {
            return fail_at(p, p->line, column_now(p),
                           "control character U+%04X in string (escape it)", (unsigned)c);
        } else if (c == '\\') {
            unsigned char e = p->s[p->pos + 1];
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *hit = e ? strchr(from, e) : NULL;
            if (e == 'u') {
                size_t k = 0;
                if (!decode_u_escape(p, o + n, &k))
                    return false;
                n += k;
            } else if (hit) {
                o[n++] = (unsigned char)to[hit - from];
                p->pos += 2;
            } else {
                return fail_at(p, p->line, column_now(p), "invalid escape in string");
            }
        } else if (c < 0x80) {
            o[n++] = c;
            p->pos++;
        } else {
            size_t k = utf8_sequence(p->s + p->pos, end - p->pos);
            if (!k)
                return fail_at(p, p->line, column_now(p), "invalid UTF-8 in string");
            memcpy(o + n, p->s + p->pos, k);
            n += k;
            p->pos += k;
            p->line_cont += k - 1;
        }
    }
    p->pos++;
    o[n] = 0;
    *out = (const char *)o;
    *out_len = n;
    return true;
}

/* ---------------------------------------------------------------- numbers */

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static size_t skip_digits(const parser *p, size_t i)
{
    while (i < p->len && is_digit(p->s[i]))
        i++;
    return i;
}

/* Converts a grammar-checked number token with strtod, whatever the locale's
 * decimal point is. */
static double convert_number(const unsigned char *tok, size_t n, bool *ok)
{
    char buf[RS_JSON_MAX_NUMBER_CHARS + 16];
    const char *dp = localeconv()->decimal_point;
    size_t dp_len = dp ? strlen(dp) : 0;
    if (dp_len == 0 || dp_len > 8)
        dp = ".", dp_len = 1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (tok[i] == '.') {
            memcpy(buf + k, dp, dp_len);
            k += dp_len;
        } else {
            buf[k++] = (char)tok[i];
        }
    }
    buf[k] = 0;
    char *end;
    double v = strtod(buf, &end);
    /* Overflow gives +-HUGE_VAL; underflow gives a correctly rounded
     * subnormal or zero, which is accepted. */
    *ok = (size_t)(end - buf) == k && v - v == 0.0;
    return v;
}

/* Number grammar (RFC 8259 section 6): -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)? */
static bool parse_number(parser *p, rs_json *out)
{
    uint32_t col = column_now(p);
    size_t i = p->pos;
    if (p->s[i] == '-')
        i++;
    if (i >= p->len || !is_digit(p->s[i]))
        return fail_at(p, p->line, col, "invalid number: expected a digit after '-'");
    if (p->s[i] == '0' && i + 1 < p->len && is_digit(p->s[i + 1]))
        return fail_at(p, p->line, col, "invalid number: leading zeros are not allowed");
    i = skip_digits(p, i);
    if (i < p->len && p->s[i] == '.') {
        if (i + 1 >= p->len || !is_digit(p->s[i + 1]))
            return fail_at(p, p->line, col, "invalid number: expected a digit after '.'");
        i = skip_digits(p, i + 1);
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-'))
            i++;
        if (i >= p->len || !is_digit(p->s[i]))
            return fail_at(p, p->line, col, "invalid number: expected a digit in the exponent");
        i = skip_digits(p, i);
    }
    if (i < p->len && (p->s[i] == '.' || p->s[i] == 'e' || p->s[i] == 'E' ||
                       (p->s[i] >= 'a' && p->s[i] <= 'z') || (p->s[i] >= 'A' && p->s[i] <= 'Z')))
        return fail_at(p, p->line, col, "invalid number");
    if (i - p->pos > RS_JSON_MAX_NUMBER_CHARS)
        return fail_at(p, p->line, col, "number longer than %u characters",
                       (unsigned)RS_JSON_MAX_NUMBER_CHARS);
    bool ok;
    out->number = convert_number(p->s + p->pos, i - p->pos, &ok);
    if (!ok)
        return fail_at(p, p->line, col, "number out of range (overflows a double)");
    out->kind = RS_JSON_NUMBER;
    p->pos = i;
    return true;
}

/* ----------------------------------------------------------------- values */

static bool parse_value(parser *p, rs_json *out, unsigned depth);

static bool parse_literal(parser *p, rs_json *out)
{
    static const struct {
        const char *word;
        uint8_t kind;
        bool value;
    } lits[] = {{"true", RS_JSON_BOOL, true}, {"false", RS_JSON_BOOL, false},
                {"null", RS_JSON_NULL, false}};
    for (size_t k = 0; k < sizeof lits / sizeof lits[0]; k++) {
        size_t n = strlen(lits[k].word);
        if (p->len - p->pos >= n && memcmp(p->s + p->pos, lits[k].word, n) == 0) {
            size_t after = p->pos + n;
            unsigned char c = after < p->len ? p->s[after] : 0;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_')
                break;
            out->kind = lits[k].kind;
            out->boolean = lits[k].value;
            p->pos = after;
            return true;
        }
    }
    unsigned char c = p->s[p->pos];
    if (c == 'N' || c == 'I')
        return fail_at(p, p->line, column_now(p), "NaN and Infinity are not JSON numbers");
    return fail_expected(p, "a value");
}

/* Reports the first key that occurs twice among n members (document order of
 * the second occurrence). Small objects compare pairwise; larger ones use a
 * temporary open-addressing table, so a huge object stays linear. */
static bool check_duplicates(parser *p, const rs_json_member *m, size_t n)
{
    size_t dup = n;
    if (n <= 16) {
        for (size_t j = 1; j < n && dup == n; j++)
            for (size_t i = 0; i < j; i++)
                if (m[i].key_len == m[j].key_len && memcmp(m[i].key, m[j].key, m[i].key_len) == 0) {
                    dup = j;
                    break;
                }
    } else {
        size_t cap = 32;
        while (cap < 2 * n)
            cap *= 2;
        size_t *slot = calloc(cap, sizeof *slot); /* member index + 1; 0 = empty */
        if (!slot)
            return fail_nomem(p);
        for (size_t j = 0; j < n && dup == n; j++) {
            uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
            for (size_t k = 0; k < m[j].key_len; k++)
                h = (h ^ (unsigned char)m[j].key[k]) * 0x100000001b3ull;
            size_t s = (size_t)h & (cap - 1);
            for (;;) {
                if (!slot[s]) {
                    slot[s] = j + 1;
                    break;
                }
                const rs_json_member *o = &m[slot[s] - 1];
                if (o->key_len == m[j].key_len && memcmp(o->key, m[j].key, o->key_len) == 0) {
                    dup = j;
                    break;
                }
                s = (s + 1) & (cap - 1);
            }
        }
        free(slot);
    }
    if (dup == n)
        return true;
    return fail_at(p, m[dup].key_line, m[dup].key_column, "duplicate key \"%.60s\"", m[dup].key);
}

/* An object member's key, the ':' after it and the whitespace up to the
 * value. */
static bool parse_key(parser *p, rs_json_member *m)
{
    if (!at(p, '"'))
        return fail_expected(p, "a string key");
    m->key_line = p->line;
    m->key_column = column_now(p);
    if (!parse_string(p, &m->key, &m->key_len))
        return false;
    skip_ws(p);
    if (!at(p, ':'))
        return fail_expected(p, "':' after the key");
    p->pos++;
    skip_ws(p);
    return true;
}

/* Parses the array or object whose '[' or '{' is at p->pos. The two differ
 * only in the key before each object member and in the keys having to be
 * unique. */
static bool parse_container(parser *p, rs_json *out, unsigned depth)
{
    bool object = p->s[p->pos] == '{';
    char close = object ? '}' : ']';
    size_t base = p->stack_len;
    out->kind = object ? RS_JSON_OBJECT : RS_JSON_ARRAY;
    p->pos++;
    skip_ws(p);
    if (at(p, close)) {
        p->pos++;
        return close_container(p, base, out);
    }
    for (;;) {
        rs_json_member m;
        memset(&m, 0, sizeof m);
        skip_ws(p);
        if (at(p, close))
            return fail_at(p, p->line, column_now(p), "trailing comma before '%c'", close);
        if (object && !parse_key(p, &m))
            return false;
        if (!parse_value(p, &m.value, depth + 1) || !push_child(p, &m))
            return false;
        skip_ws(p);
        if (at(p, ',')) {
            p->pos++;
        } else if (at(p, close)) {
            p->pos++;
            if (object && !check_duplicates(p, p->stack + base, p->stack_len - base))
                return false;
            return close_container(p, base, out);
        } else {
            return fail_expected(p, object ? "',' or '}'" : "',' or ']'");
        }
    }
}

/* Parses one value at p->pos (whitespace already skipped). depth counts the
 * containers this value is inside. */
static bool parse_value(parser *p, rs_json *out, unsigned depth)
{
    out->line = p->line;
    out->column = column_now(p);
    if (p->pos >= p->len)
        return fail_expected(p, "a value");
    unsigned char c = p->s[p->pos];
    if ((c == '[' || c == '{') && depth >= RS_JSON_MAX_DEPTH)
        return fail_at(p, p->line, column_now(p), "nested deeper than %u levels",
                       (unsigned)RS_JSON_MAX_DEPTH);
    switch (c) {
    case '[':
    case '{':
        return parse_container(p, out, depth);
    case '"':
        out->kind = RS_JSON_STRING;
        return parse_string(p, &out->str, &out->len);
    case '/':
        return fail_at(p, p->line, column_now(p), "comments are not allowed in JSON");
    default:
        if (c == '-' || is_digit(c))
            return parse_number(p, out);
        return parse_literal(p, out);
    }
}

rs_status rs_json_parse(const char *text, size_t len, const char *name, rs_json_doc **out,
                        char *err, size_t err_len)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.s = (const unsigned char *)text;
    p.len = text ? len : 0;
    p.line = 1;
    p.name = name ? name : "json";
    p.err = err;
    p.err_len = err_len;
    if (err && err_len)
        err[0] = 0;
    *out = NULL;
    if (p.len > RS_JSON_MAX_BYTES) {
        rs_errf(err, err_len, "%s: document larger than %u bytes", p.name,
                (unsigned)RS_JSON_MAX_BYTES);
        return RS_ERR_PARSE;
    }
    rs_json_doc *doc = calloc(1, sizeof *doc);
    if (!doc) {
        fail_nomem(&p);
        return p.status;
    }
    p.mem = &doc->mem;
    if (p.len >= 3 && memcmp(p.s, "\xEF\xBB\xBF", 3) == 0) {
        p.pos = p.line_start = 3; /* the byte order mark is not a column */
    }
    skip_ws(&p);
    if (!parse_value(&p, &doc->root, 0))
        goto fail;
    skip_ws(&p);
    if (p.pos < p.len) {
        fail_expected(&p, "end of input after the value");
        goto fail;
    }
    free(p.stack);
    *out = doc;
    return RS_OK;

fail:
    free(p.stack);
    rs_json_free(doc);
    return p.status;
}

rs_status rs_read_file(const char *path, size_t max_bytes, char **text, size_t *len, char *err,
                       size_t err_len)
{
    switch (rs_file_read(path, max_bytes, text, len, err, err_len)) {
    case RS_FILE_OK:
        return RS_OK;
    case RS_FILE_NOMEM:
        return RS_ERR_NOMEM;
    default:
        return RS_ERR_IO;
    }
}

rs_status rs_json_load(const char *path, rs_json_doc **out, char *err, size_t err_len)
{
    char scratch[1];
    if (!err || !err_len) {
        err = scratch;
        err_len = sizeof scratch;
    }
    *out = NULL;
    char *text;
    size_t len;
    rs_status st = rs_read_file(path, RS_JSON_MAX_BYTES, &text, &len, err, err_len);
    if (st != RS_OK)
        return st;
    st = rs_json_parse(text, len, path, out, err, err_len);
    free(text);
    return st;
}

void rs_json_free(rs_json_doc *doc)
{
    if (!doc)
        return;
    arena_free(&doc->mem);
    free(doc);
}

const rs_json *rs_json_root(const rs_json_doc *doc) { return doc ? &doc->root : NULL; }

/* ---------------------------------------------------------------- access */

rs_json_kind rs_json_kind_of(const rs_json *v) { return v ? (rs_json_kind)v->kind : RS_JSON_NULL; }

const char *rs_json_kind_name(rs_json_kind kind)
{
    switch (kind) {
    case RS_JSON_NULL: return "null";
    case RS_JSON_BOOL: return "boolean";
    case RS_JSON_NUMBER: return "number";
    case RS_JSON_STRING: return "string";
    case RS_JSON_ARRAY: return "array";
    case RS_JSON_OBJECT: return "object";
    }
    return "unknown";
}

/* "a number", "an object", "null": for "expected X, found Y" messages. */
static const char *kind_phrase(rs_json_kind kind)
{
    switch (kind) {
    case RS_JSON_NULL: return "null";
    case RS_JSON_BOOL: return "a boolean";
    case RS_JSON_NUMBER: return "a number";
    case RS_JSON_STRING: return "a string";
    case RS_JSON_ARRAY: return "an array";
    case RS_JSON_OBJECT: return "an object";
    }
    return "unknown";
}

uint32_t rs_json_line(const rs_json *v) { return v ? v->line : 0; }
uint32_t rs_json_column(const rs_json *v) { return v ? v->column : 0; }

bool rs_json_bool(const rs_json *v) { return v && v->kind == RS_JSON_BOOL && v->boolean; }

double rs_json_number(const rs_json *v) { return v && v->kind == RS_JSON_NUMBER ? v->number : 0.0; }

const char *rs_json_string(const rs_json *v, size_t *len)
{
    bool is_str = v && v->kind == RS_JSON_STRING;
    if (len)
        *len = is_str ? v->len : 0;
    return is_str ? v->str : "";
}

size_t rs_json_count(const rs_json *v)
{
    return v && (v->kind == RS_JSON_ARRAY || v->kind == RS_JSON_OBJECT) ? v->len : 0;
}

const rs_json *rs_json_at(const rs_json *arr, size_t i)
{
    if (!arr || arr->kind != RS_JSON_ARRAY || i >= arr->len)
        return NULL;
    return &arr->kids[i].value;
}

const char *rs_json_key_at(const rs_json *obj, size_t i)
{
    if (!obj || obj->kind != RS_JSON_OBJECT || i >= obj->len)
        return NULL;
    return obj->kids[i].key;
}

const rs_json *rs_json_value_at(const rs_json *obj, size_t i)
{
    if (!obj || obj->kind != RS_JSON_OBJECT || i >= obj->len)
        return NULL;
    return &obj->kids[i].value;
}

const rs_json *rs_json_get(const rs_json *obj, const char *key)
{
    if (!obj || obj->kind != RS_JSON_OBJECT || !key)
        return NULL;
    size_t n = strlen(key);
    for (size_t i = 0; i < obj->len; i++)
        if (obj->kids[i].key_len == n && memcmp(obj->kids[i].key, key, n) == 0)
            return &obj->kids[i].value;
    return NULL;
}

void rs_json_format_number(double v, char buf[32])
{
    if (v != v) {
        snprintf(buf, 32, "nan");
        return;
    }
    if (v - v != 0.0) {
        snprintf(buf, 32, v > 0 ? "inf" : "-inf");
        return;
    }
    /* The fewest significant digits that read back exactly (formatting and
     * reading both in the current locale, so the comparison is fair). */
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    /* tmp is "[-]d[<point>ddd]e<sign>xx": take the digits and the exponent
     * and lay them out ourselves, independent of the locale. */
    char digits[24];
    int nd = 0;
    const char *s = tmp;
    bool neg = *s == '-';
    if (neg)
        s++;
    for (; *s && *s != 'e' && nd < 20; s++)
        if (*s >= '0' && *s <= '9')
            digits[nd++] = *s;
    int e = *s == 'e' ? atoi(s + 1) : 0;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    size_t n = 0;
    if (neg)
        buf[n++] = '-';
    if (e >= 0 && e - (nd - 1) <= 4) {
        /* Plain integer part (at most four padding zeros: 25000, not 2.5e4),
         * then the fraction if any: 12.5, 1000. */
        for (int i = 0; i <= e; i++)
            buf[n++] = i < nd ? digits[i] : '0';
        if (nd - 1 > e) {
            buf[n++] = '.';
            for (int i = e + 1; i < nd; i++)
                buf[n++] = digits[i];
        }
    } else if (e < 0 && e >= -4) {
        buf[n++] = '0';
        buf[n++] = '.';
        for (int i = -1; i > e; i--)
            buf[n++] = '0';
        for (int i = 0; i < nd; i++)
            buf[n++] = digits[i];
    } else {
        buf[n++] = digits[0];
        if (nd > 1) {
            buf[n++] = '.';
            for (int i = 1; i < nd; i++)
                buf[n++] = digits[i];
        }
        snprintf(buf + n, 32 - n, "e%d", e);
        return;
    }
    buf[n] = 0;
}

/* One byte of a string literal as it is written: escaped or not. */
static size_t quoted_byte(unsigned char c, char out[8])
{
    if (c == '"' || c == '\\') {
        out[0] = '\\';
        out[1] = (char)c;
        return 2;
    }
    if (c < 0x20)
        return (size_t)snprintf(out, 8, "\\u%04x", c);
    out[0] = (char)c;
    return 1;
}

/* Appends n bytes at *len of out (cap bytes, room kept for the NUL),
 * counting the bytes that do not fit too. */
static void quote_put(char *out, size_t cap, size_t *len, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++, (*len)++)
        if (*len + 1 < cap)
            out[*len] = p[i];
}

size_t rs_json_quote(const char *s, char *out, size_t cap)
{
    char piece[8];
    size_t n = 0;
    quote_put(out, cap, &n, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        quote_put(out, cap, &n, piece, quoted_byte(*c, piece));
    quote_put(out, cap, &n, "\"", 1);
    if (cap)
        out[n < cap ? n : cap - 1] = 0;
    return n;
}

void rs_json_fput_string(FILE *f, const char *s)
{
    char piece[8];
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        fwrite(piece, 1, quoted_byte(*c, piece), f);
    fputc('"', f);
}

/* ------------------------------------------------------------ field reader */

rs_json_ctx rs_json_ctx_init(const char *file, char *err, size_t err_len)
{
    rs_json_ctx c = {.file = file, .err = err, .err_len = err_len, .status = RS_OK};
    if (err && err_len)
        err[0] = 0;
    return c;
}

static void path_append(rs_json_ctx *c, const char *s)
{
    size_t n = strlen(s);
    if (c->path_len + n < sizeof c->path) {
        memcpy(c->path + c->path_len, s, n + 1);
        c->path_len += n;
    } else if (c->path_len + 4 <= sizeof c->path) {
        memcpy(c->path + c->path_len, "...", 4);
        c->path_len += 3;
    }
}

size_t rs_json_ctx_push_key(rs_json_ctx *c, const char *key)
{
    size_t mark = c->path_len;
    if (c->path_len)
        path_append(c, ".");
    path_append(c, key);
    return mark;
}

size_t rs_json_ctx_push_index(rs_json_ctx *c, size_t index)
{
    size_t mark = c->path_len;
    /* "[index]", as snprintf's "[%zu]" writes it, without its cost (a
     * track's points each push one). */
    char buf[32], *p = buf + sizeof buf;
    *--p = 0;
    *--p = ']';
    do
        *--p = (char)('0' + index % 10);
    while ((index /= 10) != 0);
    *--p = '[';
    path_append(c, p);
    return mark;
}

void rs_json_ctx_pop(rs_json_ctx *c, size_t mark)
{
    if (mark < c->path_len) {
        c->path_len = mark;
        c->path[mark] = 0;
    }
}

RS_PRINTF(3, 0)
static bool json_vfail(rs_json_ctx *c, rs_status status, const char *fmt, va_list ap)
{
    if (c->status != RS_OK)
        return false;
    c->status = status;
    if (!c->err || !c->err_len)
        return false;
    char msg[256];
    rs_verrf(msg, sizeof msg, fmt, ap);
    const char *file = c->file ? c->file : "";
    const char *sep1 = c->file ? ": " : "";
    const char *sep2 = c->path_len ? ": " : "";
    rs_errf(c->err, c->err_len, "%s%s%s%s%s", file, sep1, c->path, sep2, msg);
    return false;
}

bool rs_json_fail(rs_json_ctx *c, rs_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_vfail(c, status, fmt, ap);
    va_end(ap);
    return false;
}

bool rs_json_fail_at(rs_json_ctx *c, rs_status status, const char *path, const char *fmt, ...)
{
    if (c->status != RS_OK)
        return false;
    rs_json_ctx_pop(c, 0);
    rs_json_ctx_push_key(c, path);
    va_list ap;
    va_start(ap, fmt);
    json_vfail(c, status, fmt, ap);
    va_end(ap);
    return false;
}

bool rs_json_as_kind(rs_json_ctx *c, const rs_json *v, rs_json_kind kind)
{
    if (c->status != RS_OK)
        return false;
    if (!v)
        return rs_json_fail(c, RS_ERR_MISSING, "required field missing");
    if (v->kind != kind)
        return rs_json_fail(c, RS_ERR_PARSE, "expected %s, found %s", kind_phrase(kind),
                            kind_phrase((rs_json_kind)v->kind));
    return true;
}

bool rs_json_as_number(rs_json_ctx *c, const rs_json *v, double min, double max, double *out)
{
    if (!rs_json_as_kind(c, v, RS_JSON_NUMBER))
        return false;
    if (!(v->number >= min && v->number <= max)) {
        char a[32], lo[32], hi[32];
        rs_json_format_number(v->number, a);
        rs_json_format_number(min, lo);
        rs_json_format_number(max, hi);
        return rs_json_fail(c, RS_ERR_RANGE, "%s outside %s..%s", a, lo, hi);
    }
    *out = v->number;
    return true;
}

bool rs_json_as_integer(rs_json_ctx *c, const rs_json *v, int64_t min, int64_t max,
                        int64_t *out)
{
    if (!rs_json_as_kind(c, v, RS_JSON_NUMBER))
        return false;
    double x = v->number;
    char a[32]; /* formatted only for a message */
    /* Within +-2^53 every integer is exact, and the cast is in range. */
    if (!(x >= -9007199254740992.0 && x <= 9007199254740992.0) || (double)(int64_t)x != x) {
        rs_json_format_number(x, a);
        return rs_json_fail(c, RS_ERR_RANGE, "%s is not an integer", a);
    }
    int64_t i = (int64_t)x;
    if (i < min || i > max) {
        rs_json_format_number(x, a);
        return rs_json_fail(c, RS_ERR_RANGE, "%s outside %lld..%lld", a, (long long)min,
                            (long long)max);
    }
    *out = i;
    return true;
}

bool rs_json_as_string(rs_json_ctx *c, const rs_json *v, size_t max_len, const char **out)
{
    if (!rs_json_as_kind(c, v, RS_JSON_STRING))
        return false;
    if (v->len > max_len)
        return rs_json_fail(c, RS_ERR_RANGE, "string of %zu bytes, at most %zu", v->len, max_len);
    if (memchr(v->str, 0, v->len))
        return rs_json_fail(c, RS_ERR_PARSE, "string contains U+0000");
    *out = v->str;
    return true;
}

bool rs_json_as_array(rs_json_ctx *c, const rs_json *v, size_t min_count, size_t max_count)
{
    if (!rs_json_as_kind(c, v, RS_JSON_ARRAY))
        return false;
    if (v->len < min_count || v->len > max_count)
        return rs_json_fail(c, RS_ERR_RANGE, "%zu elements, expected %zu..%zu", v->len, min_count,
                            max_count);
    return true;
}

bool rs_json_check_keys(rs_json_ctx *c, const rs_json *obj, const char *const *allowed,
                        size_t count)
{
    if (!rs_json_as_kind(c, obj, RS_JSON_OBJECT))
        return false;
    for (size_t i = 0; i < obj->len; i++) {
        const rs_json_member *m = &obj->kids[i];
        bool known = false;
        for (size_t k = 0; k < count && !known; k++)
            known = strlen(allowed[k]) == m->key_len && memcmp(allowed[k], m->key, m->key_len) == 0;
        if (!known) {
            size_t mark = rs_json_ctx_push_key(c, m->key);
            rs_json_fail(c, RS_ERR_PARSE, "unknown field");
            rs_json_ctx_pop(c, mark);
            return false;
        }
    }
    return true;
}

/* The member key of obj (NULL when absent, which the check that follows
 * reports as missing) with key pushed on the path, so that the check's
 * message names it; the caller pops. When obj is not an object the error is
 * recorded here, and the sticky status makes the check a no-op. */
static const rs_json *field(rs_json_ctx *c, const rs_json *obj, const char *key)
{
    if (!rs_json_as_kind(c, obj, RS_JSON_OBJECT))
        return NULL;
    rs_json_ctx_push_key(c, key);
    return rs_json_get(obj, key);
}

/* Pops the path back to mark and passes the check's result on. */
static bool popped(rs_json_ctx *c, size_t mark, bool ok)
{
    rs_json_ctx_pop(c, mark);
    return ok;
}

const rs_json *rs_json_get_object(rs_json_ctx *c, const rs_json *obj, const char *key)
{
    size_t mark = c->path_len;
    const rs_json *v = field(c, obj, key);
    return popped(c, mark, rs_json_as_kind(c, v, RS_JSON_OBJECT)) ? v : NULL;
}

const rs_json *rs_json_get_array(rs_json_ctx *c, const rs_json *obj, const char *key,
                                 size_t min_count, size_t max_count)
{
    size_t mark = c->path_len;
    const rs_json *v = field(c, obj, key);
    return popped(c, mark, rs_json_as_array(c, v, min_count, max_count)) ? v : NULL;
}

bool rs_json_get_number(rs_json_ctx *c, const rs_json *obj, const char *key, double min,
                        double max, double *out)
{
    size_t mark = c->path_len;
    return popped(c, mark, rs_json_as_number(c, field(c, obj, key), min, max, out));
}

bool rs_json_get_integer(rs_json_ctx *c, const rs_json *obj, const char *key, int64_t min,
                         int64_t max, int64_t *out)
{
    size_t mark = c->path_len;
    return popped(c, mark, rs_json_as_integer(c, field(c, obj, key), min, max, out));
}

bool rs_json_get_bool(rs_json_ctx *c, const rs_json *obj, const char *key, bool *out)
{
    size_t mark = c->path_len;
    const rs_json *v = field(c, obj, key);
    if (!popped(c, mark, rs_json_as_kind(c, v, RS_JSON_BOOL)))
        return false;
    *out = v->boolean;
    return true;
}

bool rs_json_get_string(rs_json_ctx *c, const rs_json *obj, const char *key, size_t max_len,
                        const char **out)
{
    size_t mark = c->path_len;
    return popped(c, mark, rs_json_as_string(c, field(c, obj, key), max_len, out));
}
