/*
 * racesim http: the operators' and spectators' side of raceserver — a JSON
 * API under /api/v1/, a live feed (Server-Sent Events), Prometheus
 * /metrics, /healthz and /readyz, and the static files of the web page.
 * docs/HTTP.md describes it; docs/openapi.json is the API's contract.
 *
 * It runs on its own threads (libmicrohttpd, one thread per connection, a
 * bounded number of them) and never touches a room, the network loop or
 * the services: the tick loop publishes what it wants seen — a status, a
 * snapshot of every room, metrics, feed events — with the rs_http_publish_*
 * calls, which copy under a mutex held for a memcpy and never wait for a
 * reader. Database queries (leaderboards, races, laps and their proofs) go
 * to the SQLite file through the HTTP side's own read-only connection, so
 * they never wait for the writer nor make it wait (WAL).
 *
 * Thread rules: rs_http_start and rs_http_stop from one thread; the publish
 * calls from any one thread (the tick loop's); everything else is internal.
 */
#ifndef RACESIM_HTTP_H
#define RACESIM_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_http rs_http;

/* What never changes while the server runs. Strings are copied. */
typedef struct rs_http_info {
    const char *version;          /* the server's version ("0.1.0") */
    uint32_t protocol_version;
    uint32_t physics_version;
    uint32_t tick_hz;
    const char *public_key_hex;   /* 64 hex digits, or NULL/"" when the server has none */
} rs_http_info;

/* Levels of the HTTP side's log lines (the server maps them to its own). */
enum { RS_HTTP_LOG_ERROR = 0, RS_HTTP_LOG_WARN = 1, RS_HTTP_LOG_INFO = 2 };

typedef struct rs_http_def {
    const char *bind;             /* an IPv4 or IPv6 address; NULL or "" = every address */
    uint16_t port;                /* 0 = any free port (rs_http_port tells which) */
    const char *db_path;          /* the race database, opened read-only on first use; NULL =
                                     the database endpoints answer 503 */
    const char *web_root;         /* the web page's folder; NULL = no page */
    uint32_t max_connections;     /* at once, 1..1024. Usually 64 */
    uint32_t max_per_address;     /* at once from one address, 1..max_connections. Usually 8 */
    uint32_t requests_per_s;      /* per address, sustained (twice as many at once), 1..10000.
                                     Usually 50 */
    uint32_t feed_clients;        /* live feed connections at once, 0..max_connections.
                                     Usually 32 */
    uint32_t timeout_s;           /* an idle connection is closed after this, 1..600. Usually 15 */
    rs_http_info info;
    /* Errors and refusals worth an operator's attention. Any thread. NULL: nowhere. */
    void (*log)(void *ctx, int level, const char *text);
    void *log_ctx;
} rs_http_def;

/* The usual limits; bind, port, paths and info empty. */
rs_http_def rs_http_default(void);

/* Binds and starts serving. RS_ERR_ARG / RS_ERR_RANGE for a bad definition,
 * RS_ERR_IO when the address cannot be bound (err says which). Not ready
 * (/readyz 503) until rs_http_set_ready. Caller frees with rs_http_stop. */
rs_status rs_http_start(const rs_http_def *def, rs_http **out, char *err, size_t err_len);

/* Ends every feed, closes every connection, joins the threads and frees.
 * Accepts NULL. */
void rs_http_stop(rs_http *http);

/* The TCP port it listens on. */
uint16_t rs_http_port(const rs_http *http);

/* /readyz answers 200 only while ready (set once the server serves, cleared
 * when it begins shutting down). */
void rs_http_set_ready(rs_http *http, bool ready);

/* The tick loop is alive: /healthz answers 503 when this was not called for
 * 2 seconds. now_us on the monotonic clock (racesim/base/clock.h). */
void rs_http_heartbeat(rs_http *http, int64_t now_us);

/* ------------------------------------------------------------ live rooms */

#define RS_HTTP_NAME_MAX 65
#define RS_HTTP_MAX_CARS 32
#define RS_HTTP_MAX_ROOMS 64

/* Penalties kept per car for live timing: the time penalties and
 * disqualifications first, then the newest warnings. */
#define RS_HTTP_MAX_PENALTIES 8
#define RS_HTTP_PENALTY_TEXT 80

/* A penalty of the running session (PENALTY, protocol.h), its removal folded in. */
typedef struct rs_http_penalty {
    uint32_t id;
    uint8_t kind;                 /* RS_PENALTY_* */
    uint8_t offence;              /* RS_OFFENCE_* */
    uint32_t seconds;             /* time penalties; else 0 */
    bool removed;                 /* taken back since */
    char text[RS_HTTP_PENALTY_TEXT + 1]; /* cut at a character boundary */
} rs_http_penalty;

/* A car's status in the classification as the session stands (rs_room_results):
 * a race's car took the flag, another session's set a valid lap; not yet (or
 * never); disqualified. */
enum { RS_HTTP_CLASSIFIED = 0, RS_HTTP_NOT_CLASSIFIED = 1, RS_HTTP_DISQUALIFIED = 2 };

/* One car of a room's race as live timing shows it. */
typedef struct rs_http_entry {
    uint8_t car;                  /* 1.. */
    char name[33];
    int64_t player_id;            /* 0 guest */
    bool connected;
    bool finished;
    uint32_t position;            /* 1.. */
    uint32_t class_position;      /* 1.. among the entries of its class by position (the
                                     whole field when the room has no classes) */
    char class_name[33];          /* "" = the room has no classes */
    uint16_t number;              /* race number, 0 none */
    char car_name[RS_HTTP_NAME_MAX]; /* the offered stock car it drives */
    uint64_t car_hash;            /* that stock car's hash (its leaderboards' car) */
    uint8_t status;               /* RS_HTTP_CLASSIFIED, ... */
    uint32_t laps;                /* completed */
    int64_t gap_us;               /* to the leader at the last timing line; -1 none (leader) */
    int64_t interval_us;          /* to the car ahead; -1 none */
    uint32_t laps_behind;         /* whole laps behind the leader (gap_us then -1) */
    int64_t last_lap_us;          /* -1 none */
    bool last_lap_valid;
    int64_t best_lap_us;          /* best valid lap of this race; -1 none */
    uint32_t sector_count;        /* sectors of the lap in progress completed so far */
    int64_t sectors_us[RS_MAX_SECTORS];
    int64_t finish_us;            /* race time at the flag; -1 not finished */
    uint32_t barrier_hits, car_hits;
    double x, y, heading, speed;  /* metres, radians, m/s: for the map */
    uint32_t penalty_count;
    rs_http_penalty penalties[RS_HTTP_MAX_PENALTIES]; /* in the order given */
} rs_http_entry;

#define RS_HTTP_MAX_SESSIONS 16
#define RS_HTTP_MAX_CLASSES 8
#define RS_HTTP_MAX_OFFERED 8

/* One session of a room's weekend (rs_proto_session_def). */
typedef struct rs_http_session {
    uint8_t type;                 /* RS_SESSION_*: practice, qualifying, warm-up, race */
    uint32_t laps;                /* lap-limited: 1..; 0 timed */
    uint32_t time_limit_s;        /* timed: 1..; 0 lap-limited */
    uint8_t grid_source;          /* races: RS_GRID_* */
    uint8_t grid_reverse;         /* races: the top this many start reversed */
} rs_http_session;

/* A car a room offers. */
typedef struct rs_http_offer {
    char name[RS_HTTP_NAME_MAX];
    uint64_t hash;                /* the stock car's (a leaderboard's car) */
    uint8_t class_index;          /* into rs_http_room.classes (0 when there are none) */
} rs_http_offer;

/* Tick duration buckets (seconds) of the per-room histogram; the last bucket
 * is +Inf. */
#define RS_HTTP_TICK_BUCKETS 11

/* A room as the tick loop last published it. */
typedef struct rs_http_room {
    char name[33];
    uint8_t phase;                /* RS_PHASE_* */
    uint32_t race_number;
    uint64_t tick;                /* the race world's tick (0 in the lobby) */
    int64_t race_time_us;         /* since lights out; negative during the countdown */
    uint32_t laps;                /* race distance */
    uint32_t players, spectators, max_players, spectator_slots;
    char track_name[RS_HTTP_NAME_MAX];
    uint64_t track_hash;
    char car_name[RS_HTTP_NAME_MAX];
    uint64_t car_hash;            /* the stock car */
    /* The weekend (rs_room_session_state): the running session, or the next
     * one in the lobby. */
    uint32_t weekend;             /* weekends begun (0 before the first) */
    uint32_t session_index;       /* into sessions */
    bool session_running;         /* its world exists */
    bool chequered;               /* its flag is out */
    int64_t time_left_us;         /* a timed session's race clock left; -1 lap-limited */
    uint32_t session_count;
    rs_http_session sessions[RS_HTTP_MAX_SESSIONS];
    /* Its classes and the cars it offers. */
    uint32_t class_count;
    char classes[RS_HTTP_MAX_CLASSES][33];
    uint32_t offer_count;
    rs_http_offer offers[RS_HTTP_MAX_OFFERED];
    uint32_t entry_count;
    rs_http_entry entries[RS_HTTP_MAX_CARS]; /* by position (1st first) */
    /* Metrics of the room since the server started. */
    uint64_t tick_buckets[RS_HTTP_TICK_BUCKETS]; /* ticks per duration bucket, not cumulative */
    double tick_seconds_sum;
    uint64_t bytes_in, bytes_out, messages_in, messages_out;
    uint64_t dropped_messages, rate_limited;
    uint64_t inputs_used, inputs_missing, inputs_late;
    uint64_t desync_reports;
} rs_http_room;

/* The upper bound in seconds of tick bucket i (0 .. RS_HTTP_TICK_BUCKETS - 2). */
double rs_http_tick_bucket_s(uint32_t i);

/* Publishes room index (0 .. RS_HTTP_MAX_ROOMS - 1; the room count is the
 * highest index published + 1). Copied. */
void rs_http_publish_room(rs_http *http, uint32_t index, const rs_http_room *room);

/* A track's outline for the page's map (JSON text, copied), by the track's
 * hash. Published once per track; a second call for a hash replaces it. */
void rs_http_publish_outline(rs_http *http, uint64_t track_hash, const char *json, size_t len);

/* ------------------------------------------------------- server metrics */

#define RS_HTTP_MAX_REASONS 32

/* A count by reason; reason names are static strings (borrowed forever). */
typedef struct rs_http_reason_count {
    const char *reason;
    uint64_t count;
} rs_http_reason_count;

#define RS_HTTP_COMMIT_BUCKETS 13

typedef struct rs_http_metrics {
    uint64_t udp_bytes_in, udp_bytes_out, udp_packets_in, udp_packets_out;
    uint32_t connections;         /* transport connections now */
    uint32_t drop_count;
    rs_http_reason_count drops[RS_HTTP_MAX_REASONS];     /* packets dropped by reason */
    uint32_t refusal_count;
    rs_http_reason_count refusals[RS_HTTP_MAX_REASONS];  /* connections refused by reason */
    uint64_t laps_recorded;
    uint64_t records_failed;
    uint64_t db_queue;            /* records waiting for the database thread */
    uint64_t db_jobs;             /* admissions and requests the database thread holds */
    uint64_t commit_buckets[RS_HTTP_COMMIT_BUCKETS]; /* not cumulative */
    double commit_bounds_s[RS_HTTP_COMMIT_BUCKETS - 1];
    double commit_seconds_sum;
    uint64_t tick_late_buckets[RS_HTTP_TICK_BUCKETS]; /* how late ticks began, all rooms */
    double tick_late_seconds_sum;
    bool shedding;                /* the rooms refuse newcomers: ticks run late */
} rs_http_metrics;

/* Publishes the server-wide metrics. Copied. */
void rs_http_publish_metrics(rs_http *http, const rs_http_metrics *m);

/* ------------------------------------------------------------- the feed */

/* Appends one event to the live feed of room index: event is its SSE event
 * name ("positions", "lap", "sector", "hit", "finish", "phase", ...), json
 * one JSON object (copied; at most 8 KiB). Feed clients get every event in
 * order; one that falls more than the feed's ring behind skips to the
 * present and is told so ("resync"). Never blocks on a reader. The clients
 * are woken by rs_http_feed_flush, so that a batch of events costs each of
 * them one wake-up. */
void rs_http_feed_push(rs_http *http, uint32_t room, const char *event, const char *json,
                       size_t len);

/* Wakes the feed clients for every event pushed since the last flush. */
void rs_http_feed_flush(rs_http *http);

/* Counters of the HTTP side itself. */
typedef struct rs_http_stats {
    uint64_t requests;            /* answered, any status */
    uint64_t rate_limited;        /* answered 429 */
    uint64_t errors_4xx, errors_5xx;
    uint32_t feed_clients;        /* connected now */
    uint64_t feed_events;         /* pushed */
} rs_http_stats;

void rs_http_get_stats(rs_http *http, rs_http_stats *out);

#ifdef __cplusplus
}
#endif

#endif
