/*
 * GET /metrics: the Prometheus text exposition format (version 0.0.4).
 *
 * Names follow Prometheus' conventions: a racesim_ prefix, base units
 * (seconds, bytes), _total on counters, a label per dimension (room,
 * reason, direction). `promtool check metrics` runs on this output in the
 * tests. Everything comes from the copies the tick loop published
 * (http_state.c) and the HTTP side's own counters; nothing reads the rooms.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_internal.h"
#include "racesim/protocol.h"

typedef struct mbuf {
    char *p;
    size_t len, cap;
    bool failed;
} mbuf;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(mbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = true;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *t = realloc(b->p, cap);
        if (!t) {
            b->failed = true;
            return;
        }
        b->p = t;
        b->cap = cap;
    }
}

/* A label value with \, " and newlines escaped, as the format requires. */
static const char *label(const char *v, char *out, size_t cap)
{
    size_t o = 0;
    for (; *v && o + 3 < cap; v++) {
        if (*v == '\\' || *v == '"') {
            out[o++] = '\\';
            out[o++] = *v;
        } else if (*v == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else {
            out[o++] = *v;
        }
    }
    out[o] = '\0';
    return out;
}

static void family(mbuf *b, const char *name, const char *type, const char *help)
{
    put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One histogram's series; counts are per bucket (not cumulative). */
static void histogram(mbuf *b, const char *name, const char *labels, const uint64_t *counts,
                      const double *bounds, uint32_t nb, double sum)
{
    uint64_t cum = 0;
    const char *sep = labels[0] ? "," : "";
    for (uint32_t i = 0; i + 1 < nb; i++) {
        cum += counts[i];
        put(b, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, sep, bounds[i],
            (unsigned long long)cum);
    }
    cum += counts[nb - 1];
    put(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep, (unsigned long long)cum);
    put(b, "%s_sum%s%s%s %.9g\n", name, labels[0] ? "{" : "", labels, labels[0] ? "}" : "", sum);
    put(b, "%s_count%s%s%s %llu\n", name, labels[0] ? "{" : "", labels, labels[0] ? "}" : "",
        (unsigned long long)cum);
}

static const char *phase_names[RS_PHASE_COUNT] = {"lobby", "countdown", "race", "results"};

/* A counter or gauge with one series per room. */
#define PER_ROOM(b, name, type, help, fmt, expr)                                               \
    do {                                                                                       \
        family(b, name, type, help);                                                           \
        for (uint32_t i_ = 0; i_ < rc; i_++) {                                                 \
            const rs_http_room *room = &rooms[i_];                                             \
            put(b, name "{room=\"%s\"} " fmt "\n", names[i_], expr);                           \
        }                                                                                      \
    } while (0)

static void render_rooms(mbuf *b, const rs_http_room *rooms, uint32_t rc)
{
    char (*names)[80] = calloc(rc ? rc : 1, sizeof *names);
    if (!names) {
        b->failed = true;
        return;
    }
    for (uint32_t i = 0; i < rc; i++)
        label(rooms[i].name, names[i], sizeof names[i]);
    family(b, "racesim_rooms", "gauge", "Rooms this server runs.");
    put(b, "racesim_rooms %u\n", (unsigned)rc);
    PER_ROOM(b, "racesim_room_players", "gauge", "Players connected to the room.", "%u",
             (unsigned)room->players);
    PER_ROOM(b, "racesim_room_spectators", "gauge", "Spectators connected to the room.", "%u",
             (unsigned)room->spectators);
    PER_ROOM(b, "racesim_room_player_slots", "gauge", "Car slots of the room.", "%u",
             (unsigned)room->max_players);
    family(b, "racesim_room_phase", "gauge",
           "The room's race phase: 1 for the current one, 0 for the others.");
    for (uint32_t i = 0; i < rc; i++)
        for (int p = 0; p < RS_PHASE_COUNT; p++)
            put(b, "racesim_room_phase{room=\"%s\",phase=\"%s\"} %d\n", names[i], phase_names[p],
                rooms[i].phase == p);
    PER_ROOM(b, "racesim_races_started_total", "counter", "Races started (countdowns begun).",
             "%u", (unsigned)room->race_number);
    family(b, "racesim_tick_duration_seconds", "histogram",
           "Time the room took to step one tick (world, timing, frames).");
    double bounds[RS_HTTP_TICK_BUCKETS];
    for (uint32_t i = 0; i + 1 < RS_HTTP_TICK_BUCKETS; i++)
        bounds[i] = rs_http_tick_bucket_s(i);
    for (uint32_t i = 0; i < rc; i++) {
        char lab[96];
        snprintf(lab, sizeof lab, "room=\"%s\"", names[i]);
        histogram(b, "racesim_tick_duration_seconds", lab, rooms[i].tick_buckets, bounds,
                  RS_HTTP_TICK_BUCKETS, rooms[i].tick_seconds_sum);
    }
    family(b, "racesim_room_message_bytes_total", "counter",
           "Protocol message bytes (no transport headers) by direction.");
    for (uint32_t i = 0; i < rc; i++)
        put(b, "racesim_room_message_bytes_total{room=\"%s\",direction=\"in\"} %llu\n"
               "racesim_room_message_bytes_total{room=\"%s\",direction=\"out\"} %llu\n",
            names[i], (unsigned long long)rooms[i].bytes_in, names[i],
            (unsigned long long)rooms[i].bytes_out);
    family(b, "racesim_room_messages_total", "counter", "Protocol messages by direction.");
    for (uint32_t i = 0; i < rc; i++)
        put(b, "racesim_room_messages_total{room=\"%s\",direction=\"in\"} %llu\n"
               "racesim_room_messages_total{room=\"%s\",direction=\"out\"} %llu\n",
            names[i], (unsigned long long)rooms[i].messages_in, names[i],
            (unsigned long long)rooms[i].messages_out);
    PER_ROOM(b, "racesim_room_dropped_messages_total", "counter",
             "Messages the room dropped: undecodable, wrong direction or channel, unknown peer.",
             "%llu", (unsigned long long)room->dropped_messages);
    PER_ROOM(b, "racesim_room_rate_limited_total", "counter",
             "Messages over a peer's rate limit (dropped or answered busy).", "%llu",
             (unsigned long long)room->rate_limited);
    family(b, "racesim_car_ticks_total", "counter",
           "Car-ticks stepped, by whether the driver's input arrived in time.");
    for (uint32_t i = 0; i < rc; i++)
        put(b, "racesim_car_ticks_total{room=\"%s\",input=\"on_time\"} %llu\n"
               "racesim_car_ticks_total{room=\"%s\",input=\"missing\"} %llu\n",
            names[i], (unsigned long long)rooms[i].inputs_used, names[i],
            (unsigned long long)rooms[i].inputs_missing);
    PER_ROOM(b, "racesim_late_inputs_total", "counter",
             "Input entries that arrived for a tick already stepped.", "%llu",
             (unsigned long long)room->inputs_late);
    PER_ROOM(b, "racesim_desyncs_reported_total", "counter",
             "Desyncs clients reported (a state hash that differed from the server's).", "%llu",
             (unsigned long long)room->desync_reports);
    free(names);
}

static void render_reasons(mbuf *b, const char *name, const char *help,
                           const rs_http_reason_count *r, uint32_t n)
{
    family(b, name, "counter", help);
    for (uint32_t i = 0; i < n && i < RS_HTTP_MAX_REASONS; i++) {
        char lab[80];
        put(b, "%s{reason=\"%s\"} %llu\n", name, label(r[i].reason ? r[i].reason : "", lab,
                                                        sizeof lab),
            (unsigned long long)r[i].count);
    }
}

static void render_server(mbuf *b, rs_http *http, const rs_http_metrics *m)
{
    family(b, "racesim_build_info", "gauge", "The server's version; always 1.");
    char v[80];
    put(b, "racesim_build_info{version=\"%s\",protocol_version=\"%u\",physics_version=\"%u\"} 1\n",
        label(http->version, v, sizeof v), (unsigned)http->def.info.protocol_version,
        (unsigned)http->def.info.physics_version);
    family(b, "process_start_time_seconds", "gauge", "When the server started, Unix time.");
    put(b, "process_start_time_seconds %lld\n", (long long)http->started_unix_s);
    family(b, "racesim_network_bytes_total", "counter",
           "UDP payload bytes (ENet headers included) by direction.");
    put(b, "racesim_network_bytes_total{direction=\"in\"} %llu\n"
           "racesim_network_bytes_total{direction=\"out\"} %llu\n",
        (unsigned long long)m->udp_bytes_in, (unsigned long long)m->udp_bytes_out);
    family(b, "racesim_network_packets_total", "counter", "UDP datagrams by direction.");
    put(b, "racesim_network_packets_total{direction=\"in\"} %llu\n"
           "racesim_network_packets_total{direction=\"out\"} %llu\n",
        (unsigned long long)m->udp_packets_in, (unsigned long long)m->udp_packets_out);
    family(b, "racesim_network_connections", "gauge", "Transport connections now.");
    put(b, "racesim_network_connections %u\n", (unsigned)m->connections);
    render_reasons(b, "racesim_packets_dropped_total",
                   "Packets the transport dropped before any room saw them, by reason.",
                   m->drops, m->drop_count);
    render_reasons(b, "racesim_connections_refused_total",
                   "Connections refused (REFUSE sent), by reason.", m->refusals,
                   m->refusal_count);
    family(b, "racesim_laps_recorded_total", "counter", "Laps committed to the database.");
    put(b, "racesim_laps_recorded_total %llu\n", (unsigned long long)m->laps_recorded);
    family(b, "racesim_db_records_failed_total", "counter",
           "Records (laps, results, race ends) the database could not store.");
    put(b, "racesim_db_records_failed_total %llu\n", (unsigned long long)m->records_failed);
    family(b, "racesim_db_queue_depth", "gauge",
           "Records waiting for the database writer thread.");
    put(b, "racesim_db_queue_depth %llu\n", (unsigned long long)m->db_queue);
    family(b, "racesim_db_jobs", "gauge",
           "Admissions and requests the services' database thread holds.");
    put(b, "racesim_db_jobs %llu\n", (unsigned long long)m->db_jobs);
    family(b, "racesim_shedding", "gauge",
           "1 while the rooms refuse newcomers because the ticks run late, else 0.");
    put(b, "racesim_shedding %d\n", m->shedding ? 1 : 0);
    family(b, "racesim_db_commit_duration_seconds", "histogram",
           "Time from BEGIN to a durable COMMIT of one batch of records.");
    histogram(b, "racesim_db_commit_duration_seconds", "", m->commit_buckets, m->commit_bounds_s,
              RS_HTTP_COMMIT_BUCKETS, m->commit_seconds_sum);
    family(b, "racesim_tick_lateness_seconds", "histogram",
           "How late each tick began after it was due, every room.");
    double bounds[RS_HTTP_TICK_BUCKETS];
    for (uint32_t i = 0; i + 1 < RS_HTTP_TICK_BUCKETS; i++)
        bounds[i] = rs_http_tick_bucket_s(i);
    histogram(b, "racesim_tick_lateness_seconds", "", m->tick_late_buckets, bounds,
              RS_HTTP_TICK_BUCKETS, m->tick_late_seconds_sum);
}

static void render_http(mbuf *b, rs_http *http)
{
    rs_http_stats st;
    rs_http_get_stats(http, &st);
    family(b, "racesim_http_requests_total", "counter", "HTTP requests answered.");
    put(b, "racesim_http_requests_total %llu\n", (unsigned long long)st.requests);
    family(b, "racesim_http_errors_total", "counter", "HTTP error responses by class.");
    put(b, "racesim_http_errors_total{class=\"4xx\"} %llu\n"
           "racesim_http_errors_total{class=\"5xx\"} %llu\n",
        (unsigned long long)st.errors_4xx, (unsigned long long)st.errors_5xx);
    family(b, "racesim_http_rate_limited_total", "counter",
           "HTTP requests refused for their address's budget (429).");
    put(b, "racesim_http_rate_limited_total %llu\n", (unsigned long long)st.rate_limited);
    family(b, "racesim_http_feed_clients", "gauge", "Live feed connections now.");
    put(b, "racesim_http_feed_clients %u\n", (unsigned)st.feed_clients);
    family(b, "racesim_http_feed_events_total", "counter", "Events published to the live feed.");
    put(b, "racesim_http_feed_events_total %llu\n", (unsigned long long)st.feed_events);
}

enum MHD_Result http_metrics(http_req *r)
{
    rs_http *http = r->http;
    rs_http_metrics *m = malloc(sizeof *m);
    uint32_t rc = 0;
    rs_http_room *rooms = m ? http_copy_rooms(http, &rc, m) : NULL;
    if (!rooms || !m) {
        free(rooms);
        free(m);
        return http_send_error(r, 503, "unavailable", "out of memory");
    }
    mbuf b = {0};
    render_server(&b, http, m);
    render_rooms(&b, rooms, rc);
    render_http(&b, http);
    free(rooms);
    free(m);
    if (b.failed) {
        free(b.p);
        return http_send_error(r, 503, "unavailable", "out of memory");
    }
    return http_send(r, 200, "text/plain; version=0.0.4; charset=utf-8", b.p, b.len, true,
                     NULL);
}
