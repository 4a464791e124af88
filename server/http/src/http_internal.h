/*
 * What the files of rs_http share: the server's struct, the published
 * state, the response helpers and the handlers' signatures.
 */
#ifndef RS_HTTP_INTERNAL_H
#define RS_HTTP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <microhttpd.h>

#include "racesim/http.h"
#include "racesim/leaderboard.h"
#include "racesim/store.h"
#include "http_route.h"

#define HTTP_FEED_RING 1024         /* feed events kept for slow readers */
#define HTTP_FEED_EVENT_MAX 8192    /* bytes of one event's JSON */
#define HTTP_RATE_SLOTS 1024        /* addresses tracked by the rate limiter */
#define HTTP_MAX_OUTLINES 64
#define HTTP_THREAD_NICE 10       /* connection threads yield to the tick loop */

typedef struct http_outline {
    uint64_t hash;
    char *json;
    size_t len;
} http_outline;

/* One feed event, formatted once as an SSE message. */
typedef struct http_feed_slot {
    uint64_t seq;                 /* 1.. ; 0 = never written */
    uint32_t room;
    char *text;                   /* "event: NAME\ndata: JSON\n\n" */
    size_t len, cap;
} http_feed_slot;

typedef struct http_rate_slot {
    uint8_t addr[16];             /* IPv4-mapped or IPv6 */
    bool used;
    double tokens;
    int64_t at_us;
} http_rate_slot;

struct rs_http {
    rs_http_def def;
    char bind[64];
    char *db_path;
    char *web_root;
    char version[32];
    char public_key[65];
    struct MHD_Daemon *daemon;
    uint16_t port;
    int64_t started_us;           /* monotonic */
    int64_t started_unix_s;

    atomic_bool ready;
    atomic_bool stopping;
    atomic_llong heartbeat_us;

    /* Published state: rooms, outlines, metrics. */
    pthread_mutex_t state_mu;
    rs_http_room *rooms;          /* RS_HTTP_MAX_ROOMS */
    uint32_t room_count;
    http_outline outlines[HTTP_MAX_OUTLINES];
    uint32_t outline_count;
    rs_http_metrics metrics;

    /* The feed. */
    pthread_mutex_t feed_mu;
    pthread_cond_t feed_cv;
    http_feed_slot feed[HTTP_FEED_RING];
    uint64_t feed_seq;            /* the last written */
    uint64_t feed_woken;          /* feed_seq at the last wake-up of the readers */
    uint32_t feed_clients;

    /* The database, opened read-only on first use; one query at a time. */
    pthread_mutex_t db_mu;
    rs_store *store;
    rs_leaderboard *lb;
    int64_t db_retry_us;          /* after a failed open, not before this */

    /* The rate limiter. */
    pthread_mutex_t rate_mu;
    http_rate_slot rate[HTTP_RATE_SLOTS];

    /* Counters. */
    atomic_ullong requests, rate_limited, errors_4xx, errors_5xx, feed_events;
};

/* ------------------------------------------------------------- requests */

/* One request as the handlers see it. */
typedef struct http_req {
    rs_http *http;
    struct MHD_Connection *conn;
    const char *path;             /* the URL path, without the query */
    const http_route *route;      /* what the path names */
    bool head;                    /* HEAD: headers only */
} http_req;

/* A query argument, or NULL. */
const char *http_arg(const http_req *r, const char *name);

/* Every value of a repeated query argument (car=a&car=b), in order: at
 * most cap into values. Returns how many there are (more than cap: too
 * many). */
unsigned http_args(const http_req *r, const char *name, const char **values, unsigned cap);

/* Queues a response; the helpers below count it. Each returns the MHD result. */
enum MHD_Result http_send(http_req *r, unsigned status, const char *content_type, void *body,
                          size_t len, bool take, const char *cache);
/* A cJSON document (freed here), 200 or status. */
enum MHD_Result http_send_json(http_req *r, unsigned status, cJSON *doc);
/* {"error":{"status":S,"code":CODE,"message":...}} with status S. */
enum MHD_Result http_send_error(http_req *r, unsigned status, const char *code,
                                const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Parses an unsigned decimal argument within [lo, hi]; absent = def.
 * False (and an error response sent) when malformed or out of range. */
bool http_arg_u32(http_req *r, const char *name, uint32_t lo, uint32_t hi, uint32_t def,
                  uint32_t *out, enum MHD_Result *res);

/* "0123456789abcdef" for a 64-bit hash. */
void http_hex64(uint64_t v, char out[17]);

/* The API's JSON conventions: a hash as 16 hex digits; a time in
 * microseconds as a number, or null for "none" (negative); sector times as
 * an array of those. */
void http_add_hash(cJSON *o, const char *key, uint64_t h);
void http_add_us(cJSON *o, const char *key, int64_t us);
void http_add_sectors(cJSON *o, uint32_t n, const int64_t *us);
/* A track or car: {"name": ..., "hash": ...} under key. */
void http_add_named(cJSON *o, const char *key, const char *name, uint64_t hash);

/* ------------------------------------------------------------- handlers */

enum MHD_Result http_api_live(http_req *r);  /* STATUS, ROOMS, ROOM, OUTLINE */
enum MHD_Result http_api_db(http_req *r);    /* BOARDS .. TRACK: leaderboards, races, laps */
enum MHD_Result http_feed(http_req *r);                      /* /api/v1/feed */
enum MHD_Result http_metrics(http_req *r);                   /* /metrics */
enum MHD_Result http_static(http_req *r);                    /* the page */

/* A copy of the published rooms (malloc'ed; free it), *count of them; with
 * metrics non-NULL, the server's metrics from the same moment too. NULL
 * when out of memory. */
rs_http_room *http_copy_rooms(rs_http *http, uint32_t *count, rs_http_metrics *metrics);

/* The database under db_mu: opens it if needed. Returns the leaderboard or
 * NULL (an error response already sent, *res set). Unlock with http_db_unlock. */
rs_leaderboard *http_db_lock(http_req *r, enum MHD_Result *res);
void http_db_unlock(rs_http *http);

/* Closes the feed: wakes every reader so that it ends its stream. */
void http_feed_close(rs_http *http);
void http_feed_free(rs_http *http);

#endif
