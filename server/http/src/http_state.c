/*
 * What the tick loop publishes (racesim/http.h): rooms, track outlines and
 * metrics, each copied under state_mu. The tick loop holds the mutex for
 * one memcpy; a reader holds it for one memcpy too and formats its answer
 * from its own copy, so neither ever waits for the other's work.
 */
#include <stdlib.h>
#include <string.h>

#include "http_internal.h"

static const double tick_bounds_s[RS_HTTP_TICK_BUCKETS - 1] = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.05};

double rs_http_tick_bucket_s(uint32_t i)
{
    return i < RS_HTTP_TICK_BUCKETS - 1 ? tick_bounds_s[i] : 1e300;
}

void rs_http_publish_room(rs_http *http, uint32_t index, const rs_http_room *room)
{
    if (index >= RS_HTTP_MAX_ROOMS)
        return;
    pthread_mutex_lock(&http->state_mu);
    http->rooms[index] = *room;
    if (index >= http->room_count)
        http->room_count = index + 1;
    pthread_mutex_unlock(&http->state_mu);
}

void rs_http_publish_outline(rs_http *http, uint64_t track_hash, const char *json, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return; /* the map shows no track; everything else works */
    memcpy(copy, json, len);
    copy[len] = '\0';
    pthread_mutex_lock(&http->state_mu);
    http_outline *o = NULL;
    for (uint32_t i = 0; i < http->outline_count; i++)
        if (http->outlines[i].hash == track_hash)
            o = &http->outlines[i];
    if (!o && http->outline_count < HTTP_MAX_OUTLINES)
        o = &http->outlines[http->outline_count++];
    if (o) {
        char *old = o->hash == track_hash ? o->json : NULL;
        o->hash = track_hash;
        o->json = copy;
        o->len = len;
        copy = old;
    }
    pthread_mutex_unlock(&http->state_mu);
    free(copy); /* the replaced text, or this one when the table is full */
}

rs_http_room *http_copy_rooms(rs_http *http, uint32_t *count, rs_http_metrics *metrics)
{
    /* Rooms are published once each at start-up and never removed, so the
     * count read first is a lower bound of the one under the lock. */
    pthread_mutex_lock(&http->state_mu);
    uint32_t n = http->room_count;
    pthread_mutex_unlock(&http->state_mu);
    rs_http_room *rooms = malloc((n ? n : 1) * sizeof *rooms);
    if (!rooms)
        return NULL;
    pthread_mutex_lock(&http->state_mu);
    memcpy(rooms, http->rooms, n * sizeof *rooms);
    if (metrics)
        *metrics = http->metrics;
    pthread_mutex_unlock(&http->state_mu);
    *count = n;
    return rooms;
}

void rs_http_publish_metrics(rs_http *http, const rs_http_metrics *m)
{
    pthread_mutex_lock(&http->state_mu);
    http->metrics = *m;
    pthread_mutex_unlock(&http->state_mu);
}
