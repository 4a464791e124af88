/*
 * racesim client SDK: one connection to a race server, as a game frontend
 * (or a bot, or a load tester) uses it.
 *
 * A client speaks the wire protocol (protocol/SPEC.md): it says HELLO,
 * rebuilds the room's world from the WELCOME, RACE_STATE, CAR_INFO, PARAMS
 * and SNAPSHOT messages exactly as the server built it (docs/SERVER.md,
 * "Sending a world"), checks the track and car hashes, syncs its clock
 * with PING/PONG, and then runs ahead of the server by about half the round
 * trip plus the jitter plus a margin, applying the local car's input at
 * once and predicting the others (racesim/predict.h). Every FRAME confirms
 * ticks; a misprediction rolls back only from the first wrong tick. A hash
 * mismatch (desync) is reported as an ERROR event, counted, and repaired
 * with a snapshot request.
 *
 * Usage:
 *
 *     rs_client_config cfg = rs_client_config_default();
 *     cfg.name = "alice";
 *     rs_client *c;
 *     if (rs_client_connect(&cfg, "127.0.0.1", 27960, now_us(), &c, err, sizeof err))
 *         ...fail...
 *     for (;;) {
 *         rs_client_set_input(c, &my_input);      // the controls for the present tick
 *         rs_client_update(c, now_us());          // network, lead control, prediction
 *         rs_client_event ev;
 *         while (rs_client_poll_event(c, &ev))    // copied; nothing borrowed
 *             ...;
 *         rs_client_pose(c, car, now_us(), &pose); // for rendering
 *     }
 *     rs_client_disconnect(c, now_us());
 *     rs_client_destroy(c);
 *
 * Time is passed in as microseconds on any monotonic clock (never
 * decreasing); the SDK reads no clock and has no globals. Over ENet it also
 * never blocks: rs_client_update services the socket without waiting.
 *
 * Two constructors: rs_client_connect over ENet (the connect cookie of
 * SPEC.md section 7, an ENet connection with RS_CH_COUNT channels, then the
 * secure session of section 8: every message encrypted and authenticated),
 * and rs_client_create_custom over a caller-supplied transport (the caller
 * sends the bytes the client hands it and feeds received packets with
 * rs_client_receive), used by tests with an in-memory link. A custom
 * transport carries the messages as they are: it must bring its own
 * encryption if it leaves the machine.
 *
 * Thread rules: a client belongs to one thread at a time (no call may run
 * concurrently with another on the same client). Different clients share
 * nothing and may run on different threads. rs_client_connect calls
 * enet_initialize, which is a no-op on POSIX systems.
 */
#ifndef RACESIM_CLIENT_H
#define RACESIM_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"
#include "racesim/predict.h"
#include "racesim/protocol.h"
#include "racesim/standings.h"
#include "racesim/track.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rs_client_status {
    RS_CLIENT_OK = 0,
    RS_CLIENT_ERR_ARG,     /* NULL, a bad name or token, a value out of range */
    RS_CLIENT_ERR_NOMEM,   /* allocation failed */
    RS_CLIENT_ERR_NET,     /* the address did not resolve, the socket failed */
    RS_CLIENT_ERR_STATE    /* not possible now (not connected, no world) */
} rs_client_status;

/* A static English description of a status. Never fails. */
const char *rs_client_status_str(rs_client_status status);

/* When the client asks the server for a fresh snapshot by itself. */
typedef enum rs_client_snapshot_policy {
    RS_CLIENT_SNAP_ON_DESYNC = 0, /* after a desync, and when it fell too far behind (default) */
    RS_CLIENT_SNAP_NEVER = 1      /* never: the caller decides (rs_client_request_snapshot) */
} rs_client_snapshot_policy;

/* Returns the local car's input for tick, from the predicted world as it is
 * just before that tick is stepped (for AI drivers, which steer from the
 * world's state). Called from inside rs_client_update, once per predicted
 * tick; it must not call back into the client. */
typedef rs_input (*rs_client_input_fn)(void *ctx, const rs_world *world, rs_car_id car,
                                       uint64_t tick);

typedef struct rs_client_config {
    const char *name;            /* player name: 1..32 bytes of UTF-8 that pass
                                    rs_proto_name_check (no control, bidirectional or
                                    invisible characters; SPEC.md section 2); copied.
                                    Required */
    const char *token;           /* "" or NULL = guest (or registering), else the 64 hex digits
                                    WELCOME issued at registration; copied */
    bool register_player;        /* ask the server to register name and issue a token
                                    (delivered in the CONNECTED event: store it. Polling
                                    that event tells the server it arrived; a registration
                                    whose event was never polled is forgotten when the
                                    connection ends, and the name is free again) */
    bool spectator;              /* watch only: no car, no controls */
    const char *room;            /* NULL or "" = the server's default room; copied */
    const char *password;        /* the room password, NULL or "" = none; copied */
    uint64_t car_hash;           /* the car to drive: a stock car's hash among WEEKEND's
                                    cars (rs_client_weekend); 0 = the room's choice. A
                                    room that offers no such car refuses (NO_CAR) */
    const char *server_key;      /* over ENet: the server's public key as 64 hex digits
                                    (raceserver --print-public-key); connect only to a
                                    server holding it. NULL or "" = use known_hosts; copied */
    const char *known_hosts;     /* over ENet: a file remembering each server's key by
                                    "host:port" (trust on first use, as SSH does): a new
                                    server's key is added, a changed one refused with a
                                    DISCONNECTED event (reason RS_REASON_SERVER_KEY).
                                    NULL or "" = remember nothing; copied */
    uint32_t lead_margin_ticks;  /* extra ticks of input lead beyond the measured jitter.
                                    Usually 3 */
    uint32_t min_lead_ms;        /* the input lead (how early inputs reach the server) never
                                    aimed below this. Usually 30 */
    uint32_t max_lead_ticks;     /* prediction window beyond the confirmed tick,
                                    16..RS_PREDICT_MAX_LEAD. Usually 200 */
    uint32_t input_interval_ticks; /* an INPUT every this many ticks, 1..4, carrying every
                                    input the server has not acknowledged; every tick while
                                    the link loses packets (over 2 %). Usually 2: at 60 Hz
                                    every tick costs about 4.9 kB/s up, every second tick
                                    2.4 kB/s (docs/CLIENT_SDK.md); the input lead grows by
                                    interval - 1 ticks so that the oldest input of a packet
                                    is still on time */
    uint32_t connect_timeout_ms; /* from rs_client_connect until WELCOME. Usually 15000 */
    uint32_t timeout_ms;         /* nothing heard from the server for this long: disconnected.
                                    Usually 10000 */
    uint32_t ping_interval_ms;   /* PING every this often. Usually 250 */
    uint8_t snapshot_policy;     /* rs_client_snapshot_policy. Usually RS_CLIENT_SNAP_ON_DESYNC */
    bool predicted_events;       /* emit SECTOR and COLLISION from the predicted world (local
                                    car only; once per tick, when it is first predicted).
                                    Usually true; bots may turn it off */
    bool simulate;               /* build the world and predict (Usually true). false: a
                                    light client for load tests: no world, no prediction, no
                                    hash checks, no SECTOR/COLLISION/FINISH events; it still
                                    follows the lockstep (acknowledges FRAMEs, runs its clock
                                    ahead of the server and sends INPUTs every tick, from
                                    rs_client_set_input; input_fn is not called) */
    rs_client_input_fn input_fn; /* NULL: every tick uses the input of rs_client_set_input */
    void *input_ctx;
} rs_client_config;

/* Guest player "player", default room, no password, margin 3 ticks,
 * min lead 30 ms, window 200 ticks, 15 s connect timeout, 10 s timeout,
 * PING every 250 ms, snapshot on desync, predicted events on, simulate,
 * no input_fn.
 * Never fails. */
rs_client_config rs_client_config_default(void);

typedef struct rs_client rs_client;

/* ----------------------------------------------------------------- events */

typedef enum rs_client_event_type {
    RS_CLIENT_EV_CONNECTED = 1,    /* admitted (the first WELCOME): u.connected */
    RS_CLIENT_EV_REFUSED,          /* the server refused the HELLO: u.refused (text as is) */
    RS_CLIENT_EV_CAR_INFO,         /* who drives a car: u.car_info */
    RS_CLIENT_EV_WORLD_READY,      /* a race world was built (new race, late join, snapshot
                                      after a desync): u.world */
    RS_CLIENT_EV_RACE_STATE,       /* the race's phase changed: u.race_state */
    RS_CLIENT_EV_SECTOR,           /* the local car crossed a sector line (predicted): u.sector */
    RS_CLIENT_EV_LAP,              /* the server timed a lap (any car): u.lap */
    RS_CLIENT_EV_COLLISION,        /* the local car hit a barrier or a car (predicted):
                                      u.collision */
    RS_CLIENT_EV_FINISH,           /* the local car took the flag: u.finish, right after the
                                      LAP event of its last lap */
    RS_CLIENT_EV_RESULTS,          /* the race's classification: u.results, rows in
                                      finishing order (row i is position i + 1). Every LAP
                                      (and FINISH) of the race comes before it */
    RS_CLIENT_EV_LEADERBOARD_REPLY,/* u.leaderboard (request_id as returned by the request) */
    RS_CLIENT_EV_TUNE_REPLY,       /* u.tune */
    RS_CLIENT_EV_ADMIN_REPLY,      /* u.admin */
    RS_CLIENT_EV_TOKEN_REPLY,      /* u.token: the new token of rs_client_rotate_token */
    RS_CLIENT_EV_ERROR,            /* something went wrong but the connection lives: u.error */
    RS_CLIENT_EV_DISCONNECTED,     /* the connection is over: u.disconnected. Always the last
                                      event polled */
    /* Race weekends (protocol version 6). Appended: the numbers above are the flat layer's
       and the bindings'. */
    RS_CLIENT_EV_WEEKEND,          /* what the room runs: its sessions, car classes and
                                      championship: u.weekend. After CONNECTED and whenever
                                      a new weekend begins; rs_client_weekend keeps it */
    RS_CLIENT_EV_PENALTY,          /* race control gave a penalty, or took one back
                                      (removed): u.penalty */
    RS_CLIENT_EV_CHAT,             /* a chat line, private message, announcement or the
                                      room's own notice: u.chat */
    RS_CLIENT_EV_COMMAND_REPLY,    /* u.command: the reply to rs_client_command */
    RS_CLIENT_EV_VOTE,             /* a vote opened, counted or decided: u.vote */
    RS_CLIENT_EV_STANDINGS         /* u.standings: the reply to rs_client_standings_request */
} rs_client_event_type;

/* RS_CLIENT_EV_ERROR codes. */
typedef enum rs_client_error {
    RS_CLIENT_ERROR_DESYNC = 1,    /* a confirmed state's hash differed from the server's; a
                                      snapshot was requested (per the policy) */
    RS_CLIENT_ERROR_PARAMS = 2,    /* track or car parameters do not match WELCOME's hashes,
                                      or do not parse: the client says BYE (reason PARAMS) and
                                      a DISCONNECTED event follows */
    RS_CLIENT_ERROR_SNAPSHOT = 3,  /* a snapshot did not restore or failed its hash */
    RS_CLIENT_ERROR_PROTOCOL = 4,  /* the server sent something that does not decode or does
                                      not fit (dropped and counted) */
    RS_CLIENT_ERROR_BEHIND = 5     /* the client fell further behind than its window; a
                                      snapshot was requested (per the policy) */
} rs_client_error;

/* RS_CLIENT_EV_CONNECTED: admitted. Which car the player drives is not
 * known here: it comes with each race's world (WORLD_READY, rs_client_car). */
typedef struct rs_client_connected {
    int64_t player_id;    /* the registered player's id; 0 = a guest */
    char token[RS_PROTO_TOKEN_LEN + 1]; /* registration: the new token (store it), else "" */
    bool spectator;       /* admitted to watch; false: a player holding a seat in the room */
    uint32_t room_id;
    uint16_t tick_hz;     /* ticks per second */
    uint8_t substeps;
} rs_client_connected;

typedef struct rs_client_world_info {
    uint8_t car;          /* the local car in this world, 0 = none (spectator or seat only) */
    uint32_t car_count;
    uint64_t tick;        /* the snapshot's tick */
    uint32_t race_number;
    uint16_t laps;
    uint64_t track_hash;
} rs_client_world_info;

typedef struct rs_client_sector {
    uint8_t car;
    uint32_t lap;         /* 1 = first */
    uint32_t sector;      /* 0-based */
    uint64_t tick;
    int64_t time_us;      /* race clock at the crossing */
    int64_t duration_us;  /* the sector's time */
} rs_client_sector;

typedef struct rs_client_collision {
    uint8_t car;          /* the local car */
    uint8_t other;        /* the other car, 0 = a barrier */
    uint64_t tick;
    double impulse_n_s;
    double speed_m_s;     /* closing speed along the normal */
    double point_m[2];
    double normal[2];
} rs_client_collision;

typedef struct rs_client_finish {
    uint8_t car;
    uint32_t laps;
    uint32_t position;    /* finishing position, 1.. (the server's, from the LAP) */
    uint64_t tick;        /* the server's tick of the last lap */
    int64_t last_lap_us;
} rs_client_finish;

typedef struct rs_client_error_info {
    uint8_t code;         /* rs_client_error */
    uint64_t tick;        /* the tick concerned, 0 = none */
    char text[RS_PROTO_TEXT_MAX + 1];
} rs_client_error_info;

/* One event. Everything is copied into the struct: nothing is borrowed, and
 * it stays valid however long the caller keeps it. */
typedef struct rs_client_event {
    uint8_t type;         /* rs_client_event_type */
    union {
        rs_client_connected connected;
        rs_msg_refuse refused;        /* reason (rs_proto_reason), the server's text */
        rs_msg_car_info car_info;
        rs_client_world_info world;
        rs_msg_race_state race_state;
        rs_client_sector sector;
        rs_msg_lap lap;               /* flags: RS_LAP_RECORDED, _PERSONAL_BEST, _TRACK_RECORD */
        rs_client_collision collision;
        rs_client_finish finish;
        rs_msg_results results;
        rs_msg_leaderboard_reply leaderboard;
        rs_msg_tune_reply tune;
        rs_msg_admin_reply admin;
        rs_msg_token_reply token;     /* result; token (64 hex digits) when OK: store it */
        rs_client_error_info error;
        rs_msg_bye disconnected;      /* reason (rs_proto_reason; TIMEOUT when the link died
                                         or never came up), text */
        rs_msg_weekend weekend;
        rs_msg_penalty penalty;
        rs_msg_chat_msg chat;         /* kind (RS_CHAT_*), sender (player id and name; "" for
                                         the server), text: shown as is, it holds no control,
                                         line break or bidirectional character */
        rs_msg_command_reply command;
        rs_msg_vote_state vote;
        rs_msg_standings_reply standings;
    } u;
} rs_client_event;

/* ------------------------------------------------------------ construction */

/* Connects over ENet to host:port (a name or dotted IPv4 address). Never
 * blocks: it resolves the address, creates the ENet host, sends the first
 * cookie request (SPEC.md section 7) and returns; rs_client_update completes
 * the connection and the key exchange (section 8: everything after it is
 * encrypted and authenticated, and the server's key is checked against
 * cfg server_key or known_hosts), and the outcome is a CONNECTED, REFUSED
 * or DISCONNECTED event. cfg is copied. On error (RS_CLIENT_ERR_ARG for a
 * server_key that is not 64 hex digits) returns a status, writes a message
 * to err (may be NULL) and *out stays NULL. Caller frees with
 * rs_client_destroy. */
rs_client_status rs_client_connect(const rs_client_config *cfg, const char *host, uint16_t port,
                                   int64_t now_us, rs_client **out, char *err, size_t err_len);

/* A caller-supplied transport: one message per packet. */
typedef struct rs_client_transport {
    void *ctx;
    /* Sends one encoded message on channel (RS_CH_*), reliably and in order
     * per channel when reliable, else unreliably and unsequenced. The bytes
     * are borrowed for the call only. Return false when it cannot (counted
     * as a failed send). Required. */
    bool (*send)(void *ctx, uint8_t channel, bool reliable, const uint8_t *bytes, size_t len);
    /* The client is done with the link (after BYE, or on destroy): the
     * transport should close it once queued reliable packets are out.
     * Optional. */
    void (*close)(void *ctx);
} rs_client_transport;

/* A client over transport t (copied). The link counts as down until the
 * caller calls rs_client_transport_up; then the client says HELLO. cfg is
 * copied. Errors as rs_client_connect. Caller frees with rs_client_destroy. */
rs_client_status rs_client_create_custom(const rs_client_config *cfg,
                                         const rs_client_transport *t, int64_t now_us,
                                         rs_client **out, char *err, size_t err_len);

/* Custom transport: the link is up (sends HELLO) / the link is gone (a
 * DISCONNECTED event with reason TIMEOUT unless a BYE or REFUSE came first). */
void rs_client_transport_up(rs_client *c, int64_t now_us);
void rs_client_transport_down(rs_client *c, int64_t now_us);

/* Custom transport: one packet received on channel. Bytes that do not
 * decode, messages a server may not send or on the wrong channel are
 * dropped and counted (stats.malformed), never trusted and never a crash.
 * Copied; nothing is kept. */
void rs_client_receive(rs_client *c, uint8_t channel, const uint8_t *bytes, size_t len,
                       int64_t now_us);

/* Says BYE (reason NONE) and closes the link; a DISCONNECTED event follows.
 * Safe to call in any state; the client may then only be queried and
 * destroyed. */
void rs_client_disconnect(rs_client *c, int64_t now_us);

/* Frees everything (closing the ENet host without a goodbye if
 * rs_client_disconnect was not called). Accepts NULL. */
void rs_client_destroy(rs_client *c);

/* -------------------------------------------------------------- operation */

/* Services the network (ENet: without waiting), handles every received
 * message, keeps the clock and the input lead, predicts up to the tick due
 * at now_us and sends this tick's INPUT. Queues events. Never fails;
 * problems become events. Call it often: at least once per tick (say every
 * rendered frame, or every millisecond or two in a headless loop). */
void rs_client_update(rs_client *c, int64_t now_us);

/* When rs_client_update next has something to do on its own, on the
 * caller's clock (never before now_us): the next predicted tick, else the
 * next PING, a connect or silence timeout, or the transport's timers
 * (ENet's retransmissions and keep-alive pings). What the server sends is
 * not in it: a loop that sleeps until then must also wake when the socket
 * is readable (rs_client_fd). For headless loops that sleep. */
int64_t rs_client_next_due_us(const rs_client *c, int64_t now_us);

/* The UDP socket the client speaks through (a POSIX descriptor), or -1:
 * for NULL, for a client of rs_client_create_custom, and from
 * rs_client_destroy on. Only to wait on: a loop serving many clients can
 * sleep in poll or epoll until a socket is readable (POLLIN) or
 * rs_client_next_due_us has come, instead of calling rs_client_update on
 * a timer, and update just the clients with something to do. Reading,
 * writing or closing it breaks the session. */
int rs_client_fd(const rs_client *c);

/* Moves the oldest queued event into *ev and returns true, or returns false
 * when none is queued. The queue holds 64 events; on overflow the oldest is
 * dropped and counted (stats.events_dropped). */
bool rs_client_poll_event(rs_client *c, rs_client_event *ev);

/* The local car's controls from the next predicted tick on, until changed
 * (ignored when cfg.input_fn is set, or without a local car). Copied. */
void rs_client_set_input(rs_client *c, const rs_input *input);

/* Where the connection stands. */
typedef enum rs_client_state {
    RS_CLIENT_CONNECTING = 0, /* cookie and ENet connect, or waiting for the transport */
    RS_CLIENT_HELLO,          /* HELLO sent, waiting for WELCOME */
    RS_CLIENT_CONNECTED,      /* welcomed (a world may or may not be built yet) */
    RS_CLIENT_CLOSED          /* refused, disconnected or timed out */
} rs_client_state;

rs_client_state rs_client_get_state(const rs_client *c);

/* The predicted world at the present, read-only, or NULL before the first
 * world is built. Borrowed until the next rs_client_update. */
const rs_world *rs_client_world(const rs_client *c);

/* The local car's index1 in the current world, 0 = none (spectator, no
 * world yet, or a seat that waits for the next race). */
uint8_t rs_client_car(const rs_client *c);

/* The current world's track and a car's parameters (index1), as rebuilt
 * from the server's PARAMS (for racing lines, HUDs); NULL without a world or
 * for an unknown car. Borrowed until the next world is built (a
 * WORLD_READY event) or the client is destroyed. */
const rs_track *rs_client_track(const rs_client *c);
const rs_car_params *rs_client_car_params(const rs_client *c, uint8_t car);

/* The live race order with gaps, leader first, as a timing screen shows it
 * (racesim/standings.h: position, status, laps, gap to the leader and to
 * the car ahead measured at the timing lines, last and best lap, finish).
 * Writes up to cap rows of the predicted world and returns how many cars it
 * has; 0 without a world (or for a client that does not simulate). Gaps are
 * known once a car has crossed a timing line in this world; a corrected
 * prediction may move a gap by a few milliseconds until the next line. The
 * authoritative record is LAP and RESULTS. */
uint32_t rs_client_standings(const rs_client *c, rs_standing *out, uint32_t cap);

/* The last WELCOME and RACE_STATE (false before the first). Copied. */
bool rs_client_welcome(const rs_client *c, rs_msg_welcome *out);
bool rs_client_race_state(const rs_client *c, rs_msg_race_state *out);

/* The last CAR_INFO of car (1..32), false if none came. Copied. */
bool rs_client_car_info(const rs_client *c, uint8_t car, rs_msg_car_info *out);

/* The newest WEEKEND: the room's sessions, car classes (CAR_INFO's
 * class_index is an index into them) and championship. False before the
 * first. Copied. */
bool rs_client_weekend(const rs_client *c, rs_msg_weekend *out);

/* The running session, for a HUD: which one, how it ends, and how long it
 * has left. */
typedef struct rs_client_session_info {
    uint8_t index;          /* its place in the weekend (WEEKEND.sessions) */
    uint8_t type;           /* RS_SESSION_* */
    uint16_t laps;          /* lap-limited: its laps; else 0 */
    uint32_t time_limit_ms; /* timed: its length on the race clock; 0 = lap-limited */
    bool chequered;         /* the chequered flag is out: each car's next crossing of the
                               line ends its session */
    int64_t time_left_ms;   /* timed: time_limit_ms less the race clock, never below 0
                               (0 once the flag is out; the whole limit before lights out
                               or before the client follows the session's world); -1 =
                               lap-limited */
} rs_client_session_info;

/* The running session from the last RACE_STATE, its time left from the
 * client's predicted race clock (rs_world_race_time_us of the predicted
 * world; a light client counts its present tick from lights out). False
 * before the first RACE_STATE. */
bool rs_client_session(const rs_client *c, rs_client_session_info *out);

/* The pose of car (index1) for rendering at now_us: interpolated between
 * the predicted states at present - 1 and present by where the client's
 * clock stands between them. RS_CLIENT_ERR_STATE without a world,
 * RS_CLIENT_ERR_ARG for an unknown car. */
rs_client_status rs_client_pose(const rs_client *c, uint8_t car, int64_t now_us,
                                rs_predict_pose *out);

/* ------------------------------------------------------------------ stats */

typedef struct rs_client_stats {
    double rtt_ms;                /* smoothed round trip (PING/PONG), 0 before the first;
                                     the last measurement, kept while the server is silent */
    double silent_ms;             /* since the last message from the server (before the
                                     first: since the link came up or the client was
                                     created). The server sends FRAMEs every tick, so more
                                     than a few ticks' worth means the link is stalling; at
                                     timeout_ms the client disconnects */
    double jitter_ms;             /* smoothed mean deviation of the round trip */
    double loss;                  /* estimated loss of the server's unreliable packets, 0..1
                                     (FRAME gaps; over ENet the larger of that and ENet's
                                     own estimate) */
    int16_t input_lead_ms;        /* the server's latest input_lead_ms (RS_PROTO_LEAD_UNKNOWN) */
    double target_lead_ms;        /* the input lead the client aims for */
    double clock_rate;            /* the client clock's speed, 1 = real time */
    uint32_t late_inputs;         /* the server's count of this client's late inputs */
    double rollbacks_per_s;
    uint64_t rollbacks;
    uint32_t depth_p50, depth_p99, depth_max; /* ticks re-simulated per rollback */
    double local_error_m_last, local_error_m_max, local_error_m_mean; /* local car */
    uint64_t desyncs;             /* over every world this client built */
    uint64_t hashes_checked;
    uint64_t snapshots;           /* worlds built from snapshots */
    uint64_t confirmed_tick, present_tick;
    uint64_t frames, frames_unresolvable; /* FRAMEs handled / whose baseline was unknown */
    uint64_t inputs_sent;         /* INPUT packets */
    uint64_t malformed;           /* received packets dropped: did not decode, wrong channel
                                     or direction */
    uint64_t events_dropped;      /* events lost to a full queue */
    uint64_t bytes_in, bytes_out, packets_in, packets_out; /* protocol messages */
    uint64_t wire_bytes_in, wire_bytes_out;  /* ENet only: datagrams incl. ENet headers and
                                                28 B UDP/IPv4 each; 0 for custom transports */
    uint64_t wire_packets_in, wire_packets_out;
    uint64_t transport_errors;    /* ENet only: enet_host_service calls that failed (a socket
                                     error); each ends that update's servicing */
    uint64_t sealed_rejected;     /* ENet only: packets from the server that failed
                                     authentication or came twice or too late (forged,
                                     replayed or corrupted), dropped unread */
} rs_client_stats;

/* Fills *out. now_us drives the rollback-rate window. Never fails. */
void rs_client_get_stats(rs_client *c, int64_t now_us, rs_client_stats *out);

/* ---------------------------------------------------------- server's key */

typedef enum rs_client_key_trust {
    RS_CLIENT_KEY_NONE = 0,    /* no secure session yet (or a custom transport) */
    RS_CLIENT_KEY_UNVERIFIED,  /* neither server_key nor known_hosts given: encrypted and
                                  authenticated, but anyone able to intercept the first
                                  packets could have been the server */
    RS_CLIENT_KEY_PINNED,      /* equal to config server_key */
    RS_CLIENT_KEY_KNOWN,       /* equal to the key known_hosts remembers for this server */
    RS_CLIENT_KEY_NEW          /* first visit: now remembered in known_hosts (or, if the
                                  file could not be written, trusted this time only) */
} rs_client_key_trust;

/* The long-term public key of the server this ENet connection's session
 * was agreed with, as 64 hex digits (hex holds 65 bytes), and how it came
 * to be trusted. Returns the trust (NONE, hex "", until the key exchange
 * completed; the CONNECTED event comes after it). */
rs_client_key_trust rs_client_server_key(const rs_client *c, char hex[65]);

/* --------------------------------------------------------------- requests */

/* Each request returns its request id (never 0), echoed by the reply event,
 * or 0 when it cannot be sent (not connected, or an argument the wire cannot
 * carry). Strings are copied. */

/* LEADERBOARD_REQUEST: track_hash 0 = the room's track, base_hash 0 = the
 * requester's car, tune_key 0 = any tune / UINT64_MAX = stock / a tune hash;
 * rows offset .. offset + count - 1 (count 1..16, offset at most
 * RS_PROTO_LIST_OFFSET_MAX). */
uint32_t rs_client_request_leaderboard(rs_client *c, uint64_t track_hash, uint64_t base_hash,
                                       uint64_t tune_key, uint32_t offset, uint8_t count);
/* TUNE_SAVE of a tune JSON document (docs/TUNES.md) under name. */
uint32_t rs_client_tune_save(rs_client *c, const char *name, const char *json);
uint32_t rs_client_tune_load(rs_client *c, const char *name);
/* The names of the player's tunes for a car (base_hash 0 = the car the
 * requester drives), sorted, from offset on: the reply holds as many as
 * fit and says how many there are in all (u.tune.total). */
uint32_t rs_client_tune_list(rs_client *c, uint64_t base_hash, uint32_t offset);
/* The tune to drive from the next race on; "" = stock. */
uint32_t rs_client_tune_select(rs_client *c, const char *name);
/* ADMIN, for a player the operator made an administrator (racectl admin
 * grant; the server checks, nothing is sent to prove it): command
 * RS_ADMIN_*, arg a player or track name ("" if none), reason shown to a
 * kicked or banned player and kept with a ban ("" or NULL if none),
 * duration_s how long a ban lasts (0 = until lifted). */
uint32_t rs_client_admin(rs_client *c, uint8_t command, const char *arg, const char *reason,
                         uint32_t duration_s);
/* TOKEN_ROTATE: a registered player asks for a new token (the old one may
 * have leaked). The TOKEN_REPLY event carries it; the client confirms its
 * receipt to the server by itself, and from then on only the new token
 * works: store it before anything else. */
uint32_t rs_client_rotate_token(rs_client *c);

/* The race weekend's requests check every argument as the server will
 * (the encoder's ranges, the name rules of rs_proto_name_check and chat's
 * rs_proto_text_check) and return RS_CLIENT_ERR_ARG, with nothing sent,
 * for one the wire cannot carry; RS_CLIENT_ERR_STATE when not connected
 * (or the link refused the packet); RS_CLIENT_OK once sent. Those with a
 * reply write its request id (never 0) to *request_id (may be NULL; 0
 * unless sent). */

/* CHAT: text (1..200 bytes of UTF-8 without control, line-break or
 * bidirectional characters) to the room (to NULL or "") or, privately, to
 * the player named to. CHAT has no reply message: what the room says, about
 * this line too, comes as CHAT events. */
rs_client_status rs_client_chat(rs_client *c, const char *to, const char *text);
/* COMMAND: a player's command (RS_CMD_*: mute, votes, car selection). arg
 * a player for MUTE, UNMUTE and VOTE_KICK, a track for VOTE_TRACK, a car
 * for SELECT_CAR, else "" or NULL. The COMMAND_REPLY event says whether
 * the server took it; a vote then goes on in VOTE events. */
rs_client_status rs_client_command(rs_client *c, uint8_t command, const char *arg,
                                   uint32_t *request_id);
/* STANDINGS_REQUEST: rows offset .. offset + count - 1 (count
 * 1..RS_PROTO_STANDINGS_ROWS, offset at most RS_PROTO_LIST_OFFSET_MAX) of
 * a championship's standings (NULL or "" = the room's own), of one class
 * (NULL or "" = every driver). The STANDINGS event brings them. */
rs_client_status rs_client_standings_request(rs_client *c, const char *championship,
                                             const char *class_name, uint32_t offset,
                                             uint8_t count, uint32_t *request_id);

/* Asks for a fresh snapshot now (reason RS_SNAP_*). RS_CLIENT_ERR_STATE
 * when not connected. */
rs_client_status rs_client_request_snapshot(rs_client *c, uint8_t reason);

#ifdef __cplusplus
}
#endif

#endif
