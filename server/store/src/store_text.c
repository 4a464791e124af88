/*
 * Text the store keeps and shows back: a ban's reason and who made it (shown
 * to players, printed by racectl), and the audit log's fields (whatever a
 * failed admin attempt sent). Kept texts must be well-formed UTF-8 without
 * control characters, so they encode on the wire (the protocol refuses bad
 * UTF-8) and cannot carry terminal escapes into an operator's terminal.
 * Stored texts that must be taken whatever they hold are cleaned instead of
 * refused. Also what every paged list shares: checking its arguments,
 * counting its rows and reading a page of them.
 */
#include <stdint.h>
#include <string.h>

#include "racesim/base/err.h"
#include "store_internal.h"

/* The length of the well-formed UTF-8 character at p (at most avail
 * bytes), or 0 when the bytes there are not one: a stray continuation byte,
 * a truncated sequence, an overlong form, a surrogate or a code point past
 * U+10FFFF (RFC 3629). */
static size_t utf8_char(const unsigned char *p, size_t avail)
{
    unsigned c = p[0];
    size_t len;
    uint32_t cp, min;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        len = 2, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (avail < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* C0 controls, DEL, and the C1 controls (U+0080..U+009F, two bytes
 * C2 80..C2 9F in UTF-8), which some terminals obey as escapes too. */
static bool is_control(const unsigned char *p, size_t len)
{
    if (len == 1)
        return p[0] < 0x20 || p[0] == 0x7f;
    return len == 2 && p[0] == 0xc2 && p[1] < 0xa0;
}

void rs_store__copy_text(char *dst, size_t cap, const unsigned char *src)
{
    if (cap == 0)
        return;
    size_t n = 0;
    if (src) {
        n = strlen((const char *)src);
        if (n >= cap) {
            n = cap - 1;
            while (n > 0 && (src[n] & 0xc0) == 0x80)
                n--; /* src[n] would be the first byte cut: keep whole characters */
        }
        memcpy(dst, src, n);
    }
    dst[n] = '\0';
}

rs_status rs_store__text_check(const char *text, size_t max, const char *what, char *err,
                               size_t err_len)
{
    if (!text) {
        rs_errf(err, err_len, "%s is missing", what);
        return RS_ERR_ARG;
    }
    size_t n = strlen(text);
    if (n < 1 || n > max) {
        rs_errf(err, err_len, "%s must be 1..%zu bytes (it is %zu)", what, max, n);
        return RS_ERR_RANGE;
    }
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_char(p + i, n - i);
        if (len == 0) {
            rs_errf(err, err_len, "%s is not valid UTF-8 (at byte %zu)", what, i);
            return RS_ERR_RANGE;
        }
        if (is_control(p + i, len)) {
            rs_errf(err, err_len, "%s holds a control character (at byte %zu)", what, i);
            return RS_ERR_RANGE;
        }
        i += len;
    }
    return RS_OK;
}

void rs_store__text_clean(char *dst, size_t cap, const char *src)
{
    if (cap == 0)
        return;
    size_t used = 0;
    const unsigned char *p = (const unsigned char *)(src ? src : "");
    size_t n = strlen((const char *)p);
    for (size_t i = 0; i < n;) {
        size_t len = utf8_char(p + i, n - i);
        bool bad = len == 0 || is_control(p + i, len);
        size_t out_len = bad ? 1 : len;
        if (used + out_len > cap - 1)
            break; /* a character that does not fit whole is left out */
        if (bad)
            dst[used] = '?';
        else
            memcpy(dst + used, p + i, len);
        used += out_len;
        i += len ? len : 1;
    }
    dst[used] = '\0';
}

/* ----------------------------------------------------------------- paging */

rs_status rs_store__page_check(rs_store *s, int64_t offset, size_t cap, const void *out,
                               size_t *n, size_t *total, char *err, size_t err_len)
{
    if (!s || !n || !total)
        return RS_ERR_ARG;
    *n = 0;
    if (offset < 0) {
        rs_errf(err, err_len, "a page's offset must be 0 or more (got %lld)", (long long)offset);
        return RS_ERR_ARG;
    }
    if (cap > 0 && !out) {
        rs_errf(err, err_len, "a page of %zu rows needs somewhere to go", cap);
        return RS_ERR_ARG;
    }
    return RS_OK;
}

int64_t rs_store__limit(size_t cap)
{
    return cap > (size_t)INT64_MAX ? INT64_MAX : (int64_t)cap;
}

rs_status rs_store__page_count(rs_store *s, sqlite3_stmt *st, const char *what, size_t *total,
                               char *err, size_t err_len)
{
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__step_row(s, st, what, err, err_len);
    if (status == RS_OK)
        *total = (size_t)sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    /* count(*) always answers one row: none is a broken database. */
    return status == RS_ERR_MISSING ? RS_ERR_IO : status;
}

rs_status rs_store__page_rows(rs_store *s, sqlite3_stmt *st, rs_store__row_reader *read,
                              void *out, size_t row_size, size_t cap, size_t *n,
                              const char *what, char *err, size_t err_len)
{
    if (!st)
        return RS_ERR_IO;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < cap) {
        read(st, (char *)out + *n * row_size);
        (*n)++;
    }
    sqlite3_reset(st);
    /* Stopping at cap leaves rc at SQLITE_ROW: a full page, not an error. */
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return rs_store__fail(s, rc, what, err, err_len);
    return RS_OK;
}
