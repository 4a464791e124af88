/*
 * libFuzzer target for the HTTP side's own parsing (server/http/src/
 * http_route.h): a request target ("PATH?k=v&...", as libmicrohttpd hands
 * it over once percent-decoded) is matched and its arguments parsed. Beyond
 * "no crash, no sanitizer report", whatever is parsed must survive a round
 * trip: the id or hash a path yields, written out canonically, matches
 * again to the same route and value; a number an argument yields, printed
 * and parsed again, is the same number.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_route.h"

static void check_route(const char *path)
{
    http_route rt, again;
    http_route_match(path, &rt);
    char canon[128];
    switch (rt.kind) {
    case HTTP_R_RACE:
    case HTTP_R_LAP:
    case HTTP_R_PROOF:
        if (rt.id <= 0)
            abort();
        snprintf(canon, sizeof canon, rt.kind == HTTP_R_RACE  ? "/api/v1/races/%lld"
                                      : rt.kind == HTTP_R_LAP ? "/api/v1/laps/%lld"
                                                              : "/api/v1/laps/%lld/proof",
                 (long long)rt.id);
        http_route_match(canon, &again);
        if (again.kind != rt.kind || again.id != rt.id)
            abort();
        break;
    case HTTP_R_OUTLINE:
    case HTTP_R_TRACK:
    case HTTP_R_CAR:
        if (!rt.hash_ok)
            break;
        snprintf(canon, sizeof canon, rt.kind == HTTP_R_OUTLINE ? "/api/v1/tracks/%016llx/outline"
                                      : rt.kind == HTTP_R_TRACK ? "/api/v1/tracks/%016llx"
                                                                : "/api/v1/cars/%016llx/block",
                 (unsigned long long)rt.hash);
        http_route_match(canon, &again);
        if (again.kind != rt.kind || !again.hash_ok || again.hash != rt.hash)
            abort();
        break;
    case HTTP_R_ROOM:
        if (strlen(rt.name) == 0 || strlen(rt.name) > HTTP_ROUTE_NAME_MAX || strchr(rt.name, '/'))
            abort();
        break;
    default:
        break;
    }
}

static void check_argument(const char *value)
{
    uint32_t v, w;
    if (http_parse_u32(value, 0, UINT32_MAX, &v)) {
        char text[16];
        snprintf(text, sizeof text, "%u", (unsigned)v);
        if (!http_parse_u32(text, 0, UINT32_MAX, &w) || w != v)
            abort();
        if (http_parse_u32(value, v + 1u > v ? v + 1u : v, UINT32_MAX, &w) && v != UINT32_MAX)
            abort(); /* below the lower bound must be refused */
    }
    uint64_t h, h2;
    if (http_parse_hex64(value, &h)) {
        char text[24];
        snprintf(text, sizeof text, "%016llx", (unsigned long long)h);
        if (!http_parse_hex64(text, &h2) || h2 != h)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* libmicrohttpd's strings end at the first NUL too */
    char *query = strchr(text, '?');
    if (query)
        *query++ = '\0';
    check_route(text);
    for (char *arg = query; arg && *arg;) {
        char *next = strchr(arg, '&');
        if (next)
            *next++ = '\0';
        char *eq = strchr(arg, '=');
        check_argument(eq ? eq + 1 : arg);
        arg = next;
    }
    free(text);
    return 0;
}
