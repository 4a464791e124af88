/*
 * Paths and arguments (http_route.h).
 */
#include "http_route.h"

#include <string.h>

#include "racesim/base/text.h"

bool http_parse_hex64(const char *s, uint64_t *out)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    uint64_t v = 0;
    size_t n = 0;
    for (; s[n]; n++) {
        int d = rs_hex_digit(s[n]);
        if (d < 0 || n >= 16)
            return false;
        v = v << 4 | (uint64_t)d;
    }
    if (n != 16)
        return false;
    *out = v;
    return true;
}

bool http_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; s[i] >= '0' && s[i] <= '9' && i < 10; i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    if (i == 0 || s[i] != '\0' || v < lo || v > hi)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* A positive decimal id filling the whole segment of len bytes. */
static bool parse_id(const char *s, size_t len, int64_t *out)
{
    int64_t v = 0;
    if (len == 0 || len > 18)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return v > 0;
}

/* path == prefix + SEGMENT + suffix, SEGMENT non-empty and without '/':
 * its start and length. */
static bool segment(const char *path, const char *prefix, const char *suffix, const char **seg,
                    size_t *len)
{
    size_t pl = strlen(prefix), sl = strlen(suffix), n = strlen(path);
    if (n <= pl + sl || strncmp(path, prefix, pl) != 0 || strcmp(path + n - sl, suffix) != 0)
        return false;
    *seg = path + pl;
    *len = n - pl - sl;
    return memchr(*seg, '/', *len) == NULL;
}

static bool hash_segment(const char *path, const char *prefix, const char *suffix,
                         http_route *out)
{
    const char *seg;
    size_t len;
    if (!segment(path, prefix, suffix, &seg, &len))
        return false;
    char hex[24];
    out->hash_ok = false;
    if (len < sizeof hex) {
        memcpy(hex, seg, len);
        hex[len] = '\0';
        out->hash_ok = http_parse_hex64(hex, &out->hash);
    }
    return true;
}

static bool id_segment(const char *path, const char *prefix, const char *suffix, int64_t *id)
{
    const char *seg;
    size_t len;
    return segment(path, prefix, suffix, &seg, &len) && parse_id(seg, len, id);
}

void http_route_match(const char *p, http_route *out)
{
    memset(out, 0, sizeof *out);
    static const struct { const char *path; http_route_kind kind; } exact[] = {
        {"/healthz", HTTP_R_HEALTHZ}, {"/readyz", HTTP_R_READYZ}, {"/metrics", HTTP_R_METRICS},
        {"/api/v1/feed", HTTP_R_FEED}, {"/api/v1/status", HTTP_R_STATUS},
        {"/api/v1/rooms", HTTP_R_ROOMS}, {"/api/v1/boards", HTTP_R_BOARDS},
        {"/api/v1/leaderboard", HTTP_R_LEADERBOARD}, {"/api/v1/leaderboard/rank", HTTP_R_RANK},
        {"/api/v1/races", HTTP_R_RACES}};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(p, exact[i].path) == 0) {
            out->kind = exact[i].kind;
            return;
        }
    const char *seg;
    size_t len;
    if (segment(p, "/api/v1/rooms/", "", &seg, &len) && len <= HTTP_ROUTE_NAME_MAX) {
        out->kind = HTTP_R_ROOM;
        memcpy(out->name, seg, len);
        out->name[len] = '\0';
    } else if (hash_segment(p, "/api/v1/tracks/", "/outline", out)) {
        out->kind = HTTP_R_OUTLINE;
    } else if (hash_segment(p, "/api/v1/tracks/", "", out)) {
        out->kind = HTTP_R_TRACK;
    } else if (hash_segment(p, "/api/v1/cars/", "/block", out)) {
        out->kind = HTTP_R_CAR;
    } else if (id_segment(p, "/api/v1/races/", "", &out->id)) {
        out->kind = HTTP_R_RACE;
    } else if (id_segment(p, "/api/v1/laps/", "/proof", &out->id)) {
        out->kind = HTTP_R_PROOF;
    } else if (id_segment(p, "/api/v1/laps/", "", &out->id)) {
        out->kind = HTTP_R_LAP;
    } else if (strncmp(p, "/api/", 5) == 0 || strcmp(p, "/api") == 0) {
        out->kind = HTTP_R_API_UNKNOWN;
    } else {
        out->kind = HTTP_R_STATIC;
    }
}
