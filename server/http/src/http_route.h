/*
 * The HTTP side's only parsing of its own: what a request's path names and
 * what its arguments say. Pure functions over text, with no state, so that
 * a fuzzer can drive them (tests/fuzz/fuzz_http_route.c).
 */
#ifndef RS_HTTP_ROUTE_H
#define RS_HTTP_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum http_route_kind {
    HTTP_R_STATIC = 0,   /* not an API path: a file of the page */
    HTTP_R_HEALTHZ, HTTP_R_READYZ, HTTP_R_METRICS, HTTP_R_FEED,
    HTTP_R_STATUS, HTTP_R_ROOMS, HTTP_R_ROOM, HTTP_R_OUTLINE,
    HTTP_R_BOARDS, HTTP_R_LEADERBOARD, HTTP_R_RANK, HTTP_R_RACES, HTTP_R_RACE,
    HTTP_R_LAP, HTTP_R_PROOF, HTTP_R_CAR, HTTP_R_TRACK,
    HTTP_R_API_UNKNOWN   /* under /api/ but no such endpoint */
} http_route_kind;

#define HTTP_ROUTE_NAME_MAX 64

typedef struct http_route {
    http_route_kind kind;
    int64_t id;          /* RACE, LAP, PROOF: 1.. */
    uint64_t hash;       /* OUTLINE, CAR, TRACK, when hash_ok */
    bool hash_ok;        /* OUTLINE, CAR, TRACK: the segment is 16 hex digits */
    char name[HTTP_ROUTE_NAME_MAX + 1]; /* ROOM: the room's name (at most 64 bytes) */
} http_route;

/* What the (already percent-decoded) path names. Never fails: an unknown
 * path under /api/ is HTTP_R_API_UNKNOWN, anything else HTTP_R_STATIC. */
void http_route_match(const char *path, http_route *out);

/* A whole decimal number within [lo, hi] (no sign, no spaces, at most ten
 * digits). False when it is anything else. */
bool http_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out);

/* Sixteen hex digits (either case, an optional 0x). */
bool http_parse_hex64(const char *s, uint64_t *out);

#endif
