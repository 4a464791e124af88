/*
 * The HTTP side's daemon (racesim/http.h): starting and stopping
 * libmicrohttpd, the limits every request meets (methods, bodies, a budget
 * per address), and the dispatch to the handlers of the other files.
 *
 * libmicrohttpd runs one thread per connection, at most max_connections of
 * them: a feed client may block its own thread waiting for events, and a
 * slow database query delays only its own connection. Nothing here runs on
 * the tick loop's thread.
 */
#define _DEFAULT_SOURCE /* syscall(SYS_gettid) */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "http_internal.h"
#include "racesim/base/clock.h"
#include "racesim/base/err.h"
#include "racesim/base/text.h"

rs_http_def rs_http_default(void)
{
    rs_http_def d;
    memset(&d, 0, sizeof d);
    d.max_connections = 64;
    d.max_per_address = 8;
    d.requests_per_s = 50;
    d.feed_clients = 32;
    d.timeout_s = 15;
    return d;
}

static void say(rs_http *http, int level, const char *fmt, ...)
{
    if (!http->def.log)
        return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    http->def.log(http->def.log_ctx, level, text);
}

/* libmicrohttpd's own complaints (a failed accept, a thread it could not start). */
static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
    rs_http *http = cls;
    if (!http->def.log)
        return;
    char text[512];
    vsnprintf(text, sizeof text, fmt, ap);
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
        text[--n] = '\0';
    http->def.log(http->def.log_ctx, RS_HTTP_LOG_WARN, text);
}

/* ------------------------------------------------------------ responses */

enum MHD_Result http_send(http_req *r, unsigned status, const char *content_type, void *body,
                          size_t len, bool take, const char *cache)
{
    rs_http *http = r->http;
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        len, body, take ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_MUST_COPY);
    if (!resp) {
        if (take)
            free(body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, cache ? cache : "no-store");
    enum MHD_Result res = MHD_queue_response(r->conn, status, resp);
    MHD_destroy_response(resp);
    atomic_fetch_add(&http->requests, 1);
    if (status >= 500)
        atomic_fetch_add(&http->errors_5xx, 1);
    else if (status >= 400)
        atomic_fetch_add(&http->errors_4xx, 1);
    return res;
}

enum MHD_Result http_send_json(http_req *r, unsigned status, cJSON *doc)
{
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (!text) {
        static char oom[] =
            "{\"error\":{\"status\":500,\"code\":\"internal\",\"message\":\"out of memory\"}}";
        return http_send(r, 500, "application/json", oom, sizeof oom - 1, false, NULL);
    }
    return http_send(r, status, "application/json", text, strlen(text), true, NULL);
}

enum MHD_Result http_send_error(http_req *r, unsigned status, const char *code,
                                const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    cJSON *doc = cJSON_CreateObject();
    cJSON *e = cJSON_AddObjectToObject(doc, "error");
    cJSON_AddNumberToObject(e, "status", status);
    cJSON_AddStringToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    return http_send_json(r, status, doc);
}

const char *http_arg(const http_req *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

typedef struct arg_values {
    const char *name;
    const char **values;
    unsigned cap, count;
} arg_values;

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    arg_values *a = cls;
    if (key && strcmp(key, a->name) == 0) {
        if (a->count < a->cap)
            a->values[a->count] = value ? value : "";
        a->count++;
    }
    return MHD_YES;
}

unsigned http_args(const http_req *r, const char *name, const char **values, unsigned cap)
{
    /* MHD_lookup_connection_value answers the first of repeated arguments
     * only; the iteration sees each in the order of the query. */
    arg_values a = {name, values, cap, 0};
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, collect_arg, &a);
    return a.count;
}

bool http_arg_u32(http_req *r, const char *name, uint32_t lo, uint32_t hi, uint32_t def,
                  uint32_t *out, enum MHD_Result *res)
{
    const char *s = http_arg(r, name);
    if (!s) {
        *out = def;
        return true;
    }
    if (!http_parse_u32(s, lo, hi, out)) {
        *res = http_send_error(r, 400, "bad_argument", "%s must be a whole number from %u to %u",
                               name, (unsigned)lo, (unsigned)hi);
        return false;
    }
    return true;
}

void http_hex64(uint64_t v, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)v);
}

void http_add_hash(cJSON *o, const char *key, uint64_t h)
{
    char hex[17];
    http_hex64(h, hex);
    cJSON_AddStringToObject(o, key, hex);
}

void http_add_named(cJSON *o, const char *key, const char *name, uint64_t hash)
{
    cJSON *n = cJSON_AddObjectToObject(o, key);
    cJSON_AddStringToObject(n, "name", name);
    http_add_hash(n, "hash", hash);
}

void http_add_us(cJSON *o, const char *key, int64_t us)
{
    if (us < 0)
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, (double)us);
}

void http_add_sectors(cJSON *o, uint32_t n, const int64_t *us)
{
    cJSON *s = cJSON_AddArrayToObject(o, "sectors_us");
    for (uint32_t i = 0; i < n && i < RS_MAX_SECTORS; i++)
        cJSON_AddItemToArray(s, us[i] < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)us[i]));
}

/* --------------------------------------------------------------- limits */

/* A token bucket per client address: requests_per_s sustained, twice that
 * at once. A full table forgets its most idle address. */
static bool rate_ok(rs_http *http, const struct sockaddr *sa)
{
    uint8_t key[16] = {0};
    if (sa && sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        key[10] = key[11] = 0xff;
        memcpy(key + 12, &in->sin_addr, 4);
    } else if (sa && sa->sa_family == AF_INET6) {
        memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
    }
    uint32_t h = 2166136261u;
    for (int i = 0; i < 16; i++)
        h = (h ^ key[i]) * 16777619u;
    int64_t now = rs_clock_us();
    double rate = (double)http->def.requests_per_s, burst = 2.0 * rate;
    pthread_mutex_lock(&http->rate_mu);
    http_rate_slot *slot = NULL, *oldest = NULL;
    for (uint32_t probe = 0; probe < 8; probe++) {
        http_rate_slot *s = &http->rate[(h + probe) % HTTP_RATE_SLOTS];
        if (s->used && memcmp(s->addr, key, 16) == 0) {
            slot = s;
            break;
        }
        if (!oldest || !s->used || (oldest->used && s->at_us < oldest->at_us))
            oldest = s;
    }
    if (!slot) {
        slot = oldest;
        memcpy(slot->addr, key, 16);
        slot->used = true;
        slot->tokens = burst;
        slot->at_us = now;
    }
    slot->tokens += (double)(now - slot->at_us) / 1e6 * rate;
    if (slot->tokens > burst)
        slot->tokens = burst;
    slot->at_us = now;
    bool ok = slot->tokens >= 1.0;
    if (ok)
        slot->tokens -= 1.0;
    pthread_mutex_unlock(&http->rate_mu);
    return ok;
}

/* ------------------------------------------------------------- dispatch */

static enum MHD_Result health(http_req *r, bool ready_check)
{
    rs_http *http = r->http;
    cJSON *doc = cJSON_CreateObject();
    unsigned status = 200;
    if (ready_check) {
        bool ready = atomic_load(&http->ready) && !atomic_load(&http->stopping);
        cJSON_AddStringToObject(doc, "status", ready ? "ready" : "not_ready");
        status = ready ? 200 : 503;
    } else {
        int64_t age_us = rs_clock_us() - (int64_t)atomic_load(&http->heartbeat_us);
        bool alive = atomic_load(&http->heartbeat_us) != 0 && age_us < 2000000;
        cJSON_AddStringToObject(doc, "status", alive ? "ok" : "stalled");
        cJSON_AddNumberToObject(doc, "tick_loop_silent_ms", (double)(age_us / 1000));
        status = alive ? 200 : 503;
    }
    return http_send_json(r, status, doc);
}

static enum MHD_Result route(http_req *r)
{
    http_route rt;
    http_route_match(r->path, &rt);
    r->route = &rt;
    switch (rt.kind) {
    case HTTP_R_HEALTHZ: return health(r, false);
    case HTTP_R_READYZ: return health(r, true);
    case HTTP_R_METRICS: return http_metrics(r);
    case HTTP_R_FEED: return http_feed(r);
    case HTTP_R_STATUS:
    case HTTP_R_ROOMS:
    case HTTP_R_ROOM:
    case HTTP_R_OUTLINE: return http_api_live(r);
    case HTTP_R_BOARDS:
    case HTTP_R_LEADERBOARD:
    case HTTP_R_RANK:
    case HTTP_R_RACES:
    case HTTP_R_RACE:
    case HTTP_R_LAP:
    case HTTP_R_PROOF:
    case HTTP_R_CAR:
    case HTTP_R_TRACK: return http_api_db(r);
    case HTTP_R_API_UNKNOWN:
        return http_send_error(r, 404, "not_found", "no such endpoint: %.200s", r->path);
    case HTTP_R_STATIC: break;
    }
    return http_static(r);
}

static int first_call_marker;

/* Connection threads run at a lower priority than the tick loop: on a
 * machine with fewer free cores than busy threads, a burst of requests
 * waits, never a tick. On Linux a thread's nice value is its own. */
static void lower_priority_once(void)
{
    static _Thread_local bool done;
    if (done)
        return;
    done = true;
#ifdef SYS_gettid
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), HTTP_THREAD_NICE);
#endif
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **con_cls)
{
    (void)version;
    (void)upload_data;
    rs_http *http = cls;
    lower_priority_once();
    http_req r = {.http = http, .conn = conn, .path = url, .head = false};
    bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0;
    r.head = strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    if (!get && !r.head) {
        /* Nothing here takes a body: refuse before reading one. */
        return http_send_error(&r, 405, "method_not_allowed",
                               "%.16s is not allowed: this API is read-only (GET)", method);
    }
    if (*con_cls == NULL) { /* headers are in; a body, if any, would follow */
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
        if ((cl && strcmp(cl, "0") != 0) ||
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING))
            return http_send_error(&r, 413, "body_not_allowed", "a GET request takes no body");
        *con_cls = &first_call_marker;
        return MHD_YES;
    }
    if (*upload_size != 0) /* a body the headers did not announce: never read it */
        return MHD_NO;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!rate_ok(http, ci ? ci->client_addr : NULL)) {
        atomic_fetch_add(&http->rate_limited, 1);
        return http_send_error(&r, 429, "rate_limited",
                               "more than %u requests a second from your address",
                               (unsigned)http->def.requests_per_s);
    }
    return route(&r);
}

/* ------------------------------------------------------------ lifecycle */

static bool parse_bind(const rs_http_def *def, struct sockaddr_storage *ss, socklen_t *len,
                       char *err, size_t err_len)
{
    memset(ss, 0, sizeof *ss);
    const char *b = def->bind && def->bind[0] ? def->bind : "0.0.0.0";
    struct sockaddr_in *in = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, b, &in->sin_addr) == 1) {
        in->sin_family = AF_INET;
        in->sin_port = htons(def->port);
        *len = sizeof *in;
        return true;
    }
    if (inet_pton(AF_INET6, b, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(def->port);
        *len = sizeof *in6;
        return true;
    }
    rs_errf(err, err_len, "http: '%s' is not an IPv4 or IPv6 address", b);
    return false;
}

static bool check_def(const rs_http_def *d, char *err, size_t err_len)
{
    if (d->max_connections < 1 || d->max_connections > 1024)
        return rs_errf(err, err_len, "http: max_connections must be 1..1024"), false;
    if (d->max_per_address < 1 || d->max_per_address > d->max_connections)
        return rs_errf(err, err_len, "http: max_per_address must be 1..max_connections"), false;
    if (d->requests_per_s < 1 || d->requests_per_s > 10000)
        return rs_errf(err, err_len, "http: requests_per_s must be 1..10000"), false;
    if (d->feed_clients > d->max_connections)
        return rs_errf(err, err_len, "http: feed_clients must be 0..max_connections"), false;
    if (d->timeout_s < 1 || d->timeout_s > 600)
        return rs_errf(err, err_len, "http: timeout_s must be 1..600"), false;
    return true;
}

static char *dup_or_null(const char *s)
{
    return s && s[0] ? strdup(s) : NULL;
}

rs_status rs_http_start(const rs_http_def *def, rs_http **out, char *err, size_t err_len)
{
    *out = NULL;
    if (!def)
        return RS_ERR_ARG;
    if (!check_def(def, err, err_len))
        return RS_ERR_RANGE;
    struct sockaddr_storage ss;
    socklen_t ss_len;
    if (!parse_bind(def, &ss, &ss_len, err, err_len))
        return RS_ERR_ARG;
    rs_http *http = calloc(1, sizeof *http);
    if (!http)
        return RS_ERR_NOMEM;
    http->def = *def;
    http->rooms = calloc(RS_HTTP_MAX_ROOMS, sizeof *http->rooms);
    http->db_path = dup_or_null(def->db_path);
    http->web_root = dup_or_null(def->web_root);
    if (!http->rooms || (def->db_path && def->db_path[0] && !http->db_path) ||
        (def->web_root && def->web_root[0] && !http->web_root)) {
        free(http->rooms);
        free(http->db_path);
        free(http->web_root);
        free(http);
        return RS_ERR_NOMEM;
    }
    rs_str_cut(http->bind, sizeof http->bind, def->bind);
    rs_str_cut(http->version, sizeof http->version, def->info.version);
    rs_str_cut(http->public_key, sizeof http->public_key, def->info.public_key_hex);
    http->def.bind = http->bind;
    http->def.db_path = http->db_path;
    http->def.web_root = http->web_root;
    http->def.info.version = http->version;
    http->def.info.public_key_hex = http->public_key;
    http->started_us = rs_clock_us();
    http->started_unix_s = rs_wall_time_s();
    pthread_mutex_init(&http->state_mu, NULL);
    pthread_mutex_init(&http->feed_mu, NULL);
    pthread_cond_init(&http->feed_cv, NULL);
    pthread_mutex_init(&http->db_mu, NULL);
    pthread_mutex_init(&http->rate_mu, NULL);

    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                     MHD_USE_POLL | MHD_USE_ITC | MHD_USE_ERROR_LOG;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    http->daemon = MHD_start_daemon(
        flags, def->port, NULL, NULL, on_request, http,
        MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, http, /* first, so that every message uses it */
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)def->max_connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)def->max_per_address,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)def->timeout_s,
        /* Request line and headers must fit: a longer request is refused (431/413). */
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
        MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned)1,
        MHD_OPTION_END);
    if (!http->daemon) {
        rs_errf(err, err_len, "http: cannot listen on %s port %u (in use, or not this host's "
                "address?)", def->bind && def->bind[0] ? def->bind : "any address",
                (unsigned)def->port);
        http->daemon = NULL;
        rs_http_stop(http);
        return RS_ERR_IO;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(http->daemon, MHD_DAEMON_INFO_BIND_PORT);
    http->port = di ? di->port : def->port;
    say(http, RS_HTTP_LOG_INFO, "http: listening on %s port %u", def->bind && def->bind[0]
        ? def->bind : "every address", (unsigned)http->port);
    *out = http;
    return RS_OK;
}

void rs_http_stop(rs_http *http)
{
    if (!http)
        return;
    atomic_store(&http->stopping, true);
    atomic_store(&http->ready, false);
    if (http->daemon) {
        /* Stop accepting, let every feed reader return, then join. */
        MHD_quiesce_daemon(http->daemon);
        http_feed_close(http);
        MHD_stop_daemon(http->daemon);
    }
    http_feed_free(http);
    if (http->lb)
        rs_leaderboard_close(http->lb);
    rs_store_close(http->store);
    for (uint32_t i = 0; i < http->outline_count; i++)
        free(http->outlines[i].json);
    pthread_mutex_destroy(&http->state_mu);
    pthread_mutex_destroy(&http->feed_mu);
    pthread_cond_destroy(&http->feed_cv);
    pthread_mutex_destroy(&http->db_mu);
    pthread_mutex_destroy(&http->rate_mu);
    free(http->rooms);
    free(http->db_path);
    free(http->web_root);
    free(http);
}

uint16_t rs_http_port(const rs_http *http)
{
    return http->port;
}

void rs_http_set_ready(rs_http *http, bool ready)
{
    atomic_store(&http->ready, ready);
}

void rs_http_heartbeat(rs_http *http, int64_t now_us)
{
    atomic_store(&http->heartbeat_us, (long long)now_us);
}

void rs_http_get_stats(rs_http *http, rs_http_stats *out)
{
    memset(out, 0, sizeof *out);
    out->requests = atomic_load(&http->requests);
    out->rate_limited = atomic_load(&http->rate_limited);
    out->errors_4xx = atomic_load(&http->errors_4xx);
    out->errors_5xx = atomic_load(&http->errors_5xx);
    out->feed_events = atomic_load(&http->feed_events);
    pthread_mutex_lock(&http->feed_mu);
    out->feed_clients = http->feed_clients;
    pthread_mutex_unlock(&http->feed_mu);
}
