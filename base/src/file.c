/*
 * Reading a whole file (racesim/base/file.h).
 */
#include "racesim/base/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/base/err.h"

/* The first chunk; the buffer doubles from there, so a file the size the
 * file system reports is never trusted (a pipe or /proc file has none). */
#define RS_FILE_FIRST_CHUNK (64u * 1024u)

/* Short, stable words for the common reasons (messages people and tests
 * read), the C library's text for the rest. */
static const char *open_error(int e)
{
    if (e == ENOENT)
        return "no such file";
    if (e == EACCES)
        return "permission denied";
    return e ? strerror(e) : "cannot open";
}

rs_file_status rs_file_read(const char *path, size_t max_bytes, char **data, size_t *len,
                            char *err, size_t err_len)
{
    *data = NULL;
    if (len)
        *len = 0;
    errno = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        rs_errf(err, err_len, "%s: %s", path, open_error(errno));
        return RS_FILE_IO;
    }
    size_t cap = RS_FILE_FIRST_CHUNK, n = 0;
    char *buf = malloc(cap + 1);
    rs_file_status st = RS_FILE_OK;
    if (!buf) {
        st = RS_FILE_NOMEM;
        rs_errf(err, err_len, "%s: out of memory", path);
        goto done;
    }
    for (;;) {
        if (n == cap) {
            if (max_bytes && cap > max_bytes)
                break; /* already more than allowed: the check below says so */
            char *grown = realloc(buf, 2 * cap + 1);
            if (!grown) {
                st = RS_FILE_NOMEM;
                rs_errf(err, err_len, "%s: out of memory", path);
                goto done;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        st = RS_FILE_IO;
        rs_errf(err, err_len, "%s: read error", path);
    } else if (max_bytes && n > max_bytes) {
        st = RS_FILE_TOO_BIG;
        rs_errf(err, err_len, "%s: larger than %zu bytes", path, max_bytes);
    }
done:
    fclose(f);
    if (st != RS_FILE_OK) {
        free(buf);
        return st;
    }
    buf[n] = '\0';
    *data = buf;
    if (len)
        *len = n;
    return RS_FILE_OK;
}
