/*
 * The web page's files (web_root): GET of a regular file under the root,
 * "/" meaning index.html. A path with a "..", "." or empty segment, a
 * hidden file, a symlink leading out of the root or anything but a
 * regular file is not found. The page's Content-Security-Policy lets it
 * load only its own scripts, styles and WebAssembly and talk only to this
 * server.
 */
#define _XOPEN_SOURCE 700 /* realpath */

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http_internal.h"

#define MAX_FILE_BYTES (64u << 20)

static const char *content_type(const char *path)
{
    static const struct { const char *ext, *type; } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".wasm", "application/wasm"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
    };
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

/* Every segment is a plain name: no "", ".", ".." or hidden file. */
static bool safe_path(const char *p)
{
    if (p[0] != '/')
        return false;
    const char *seg = p + 1;
    for (;;) {
        const char *end = strchr(seg, '/');
        size_t n = end ? (size_t)(end - seg) : strlen(seg);
        if (n == 0 || seg[0] == '.' || memchr(seg, '\\', n))
            return false;
        if (!end)
            return true;
        seg = end + 1;
    }
}

enum MHD_Result http_static(http_req *r)
{
    rs_http *http = r->http;
    if (!http->web_root)
        return http_send_error(r, 404, "not_found", "this server serves no web page");
    const char *p = strcmp(r->path, "/") == 0 ? "/index.html" : r->path;
    if (strlen(p) > 512 || !safe_path(p))
        return http_send_error(r, 404, "not_found", "no such file");
    char path[PATH_MAX], real[PATH_MAX], root[PATH_MAX];
    snprintf(path, sizeof path, "%s%s", http->web_root, p);
    if (!realpath(http->web_root, root) || !realpath(path, real))
        return http_send_error(r, 404, "not_found", "no such file: %.200s", p);
    size_t rl = strlen(root);
    if (strncmp(real, root, rl) != 0 || real[rl] != '/')
        return http_send_error(r, 404, "not_found", "no such file: %.200s", p);
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size > MAX_FILE_BYTES) {
        if (fd >= 0)
            close(fd);
        return http_send_error(r, 404, "not_found", "no such file: %.200s", p);
    }
    struct MHD_Response *resp = MHD_create_response_from_fd((size_t)st.st_size, fd);
    if (!resp) {
        close(fd);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type(real));
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    MHD_add_response_header(resp, "Content-Security-Policy",
                            "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; "
                            "style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                            "frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    enum MHD_Result res = MHD_queue_response(r->conn, 200, resp);
    MHD_destroy_response(resp);
    atomic_fetch_add(&http->requests, 1);
    return res;
}
