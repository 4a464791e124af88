/*
 * The live feed, GET /api/v1/feed[?room=NAME]: Server-Sent Events.
 *
 * The tick loop formats each event once into a ring (rs_http_feed_push);
 * every feed connection, on its own thread, copies the events it has not
 * sent yet and otherwise waits on a condition variable, with a comment
 * line every 15 s so that proxies and browsers keep the stream open. A
 * reader that falls a whole ring behind is told "resync" and continues
 * from the present: the tick loop never waits for a slow reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_internal.h"
#include "racesim/base/clock.h"

#define KEEPALIVE_S 15

typedef struct feed_reader {
    rs_http *http;
    int32_t room;           /* -1 = every room */
    uint64_t next_seq;
    char *buf;              /* what is due to the client, from off */
    size_t len, off, cap;
} feed_reader;

void rs_http_feed_push(rs_http *http, uint32_t room, const char *event, const char *json,
                       size_t len)
{
    if (len > HTTP_FEED_EVENT_MAX)
        return;
    size_t need = strlen(event) + len + 32;
    pthread_mutex_lock(&http->feed_mu);
    http_feed_slot *s = &http->feed[(http->feed_seq + 1) % HTTP_FEED_RING];
    if (s->cap < need) {
        char *t = realloc(s->text, need);
        if (!t) {
            pthread_mutex_unlock(&http->feed_mu);
            return;
        }
        s->text = t;
        s->cap = need;
    }
    int n = snprintf(s->text, s->cap, "event: %s\ndata: %.*s\n\n", event, (int)len, json);
    s->len = n > 0 ? (size_t)n : 0;
    s->room = room;
    s->seq = ++http->feed_seq;
    pthread_mutex_unlock(&http->feed_mu);
    atomic_fetch_add(&http->feed_events, 1);
}

void rs_http_feed_flush(rs_http *http)
{
    pthread_mutex_lock(&http->feed_mu);
    if (http->feed_woken != http->feed_seq) {
        http->feed_woken = http->feed_seq;
        pthread_cond_broadcast(&http->feed_cv);
    }
    pthread_mutex_unlock(&http->feed_mu);
}

static bool reader_take(feed_reader *fr, const char *text, size_t len)
{
    if (fr->cap < len) {
        char *t = realloc(fr->buf, len);
        if (!t)
            return false;
        fr->buf = t;
        fr->cap = len;
    }
    memcpy(fr->buf, text, len);
    fr->len = len;
    fr->off = 0;
    return true;
}

/* Under feed_mu: the next event for this reader into its buffer, or false
 * when there is none yet. */
static bool reader_next(feed_reader *fr)
{
    rs_http *http = fr->http;
    while (fr->next_seq <= http->feed_seq) {
        const http_feed_slot *s = &http->feed[fr->next_seq % HTTP_FEED_RING];
        if (s->seq != fr->next_seq) { /* overwritten: this reader fell a ring behind */
            fr->next_seq = http->feed_seq + 1;
            static const char resync[] = "event: resync\ndata: {}\n\n";
            return reader_take(fr, resync, sizeof resync - 1);
        }
        fr->next_seq++;
        if (fr->room < 0 || (uint32_t)fr->room == s->room)
            return reader_take(fr, s->text, s->len);
    }
    return false;
}

static ssize_t feed_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    feed_reader *fr = cls;
    rs_http *http = fr->http;
    if (fr->off == fr->len) {
        pthread_mutex_lock(&http->feed_mu);
        bool got = false;
        while (!got && !atomic_load(&http->stopping)) {
            got = reader_next(fr);
            if (got)
                break;
            struct timespec until;
            rs_wall_deadline((int64_t)KEEPALIVE_S * 1000000, &until);
            if (pthread_cond_timedwait(&http->feed_cv, &http->feed_mu, &until) != 0 &&
                !(fr->next_seq <= http->feed_seq)) {
                static const char keepalive[] = ": keep-alive\n\n";
                got = reader_take(fr, keepalive, sizeof keepalive - 1);
            }
        }
        pthread_mutex_unlock(&http->feed_mu);
        if (!got)
            return MHD_CONTENT_READER_END_OF_STREAM;
    }
    size_t n = fr->len - fr->off < max ? fr->len - fr->off : max;
    memcpy(buf, fr->buf + fr->off, n);
    fr->off += n;
    return (ssize_t)n;
}

static void feed_free(void *cls)
{
    feed_reader *fr = cls;
    pthread_mutex_lock(&fr->http->feed_mu);
    fr->http->feed_clients--;
    pthread_mutex_unlock(&fr->http->feed_mu);
    free(fr->buf);
    free(fr);
}

/* The index of the published room of that name, or -1. */
static int32_t room_index(rs_http *http, const char *name)
{
    int32_t found = -1;
    pthread_mutex_lock(&http->state_mu);
    for (uint32_t i = 0; i < http->room_count; i++)
        if (strcmp(http->rooms[i].name, name) == 0)
            found = (int32_t)i;
    pthread_mutex_unlock(&http->state_mu);
    return found;
}

enum MHD_Result http_feed(http_req *r)
{
    rs_http *http = r->http;
    const char *name = http_arg(r, "room");
    int32_t room = -1;
    if (name && (room = room_index(http, name)) < 0)
        return http_send_error(r, 404, "no_such_room", "no room is named '%.64s'", name);
    if (r->head)
        return http_send(r, 200, "text/event-stream", NULL, 0, false, NULL);
    feed_reader *fr = calloc(1, sizeof *fr);
    if (!fr)
        return http_send_error(r, 503, "unavailable", "out of memory");
    fr->http = http;
    fr->room = room;
    pthread_mutex_lock(&http->feed_mu);
    bool full = http->feed_clients >= http->def.feed_clients;
    if (!full) {
        http->feed_clients++;
        fr->next_seq = http->feed_seq + 1; /* from now on: the page reads the state first */
    }
    pthread_mutex_unlock(&http->feed_mu);
    if (full) {
        free(fr);
        return http_send_error(r, 503, "feed_full", "the live feed has %u clients already",
                               (unsigned)http->def.feed_clients);
    }
    static const char hello[] = "retry: 2000\n\n";
    reader_take(fr, hello, sizeof hello - 1);
    struct MHD_Response *resp =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, feed_read, fr, feed_free);
    if (!resp) {
        feed_free(fr);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    enum MHD_Result res = MHD_queue_response(r->conn, 200, resp);
    MHD_destroy_response(resp);
    atomic_fetch_add(&http->requests, 1);
    return res;
}

void http_feed_close(rs_http *http)
{
    pthread_mutex_lock(&http->feed_mu);
    pthread_cond_broadcast(&http->feed_cv);
    pthread_mutex_unlock(&http->feed_mu);
}

void http_feed_free(rs_http *http)
{
    for (uint32_t i = 0; i < HTTP_FEED_RING; i++)
        free(http->feed[i].text);
}
