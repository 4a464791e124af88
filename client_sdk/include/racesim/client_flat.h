/*
 * racesim client SDK for other languages: the same client (racesim/client.h)
 * behind calls that take and return only numbers, strings and fixed-layout
 * structs of 32- and 64-bit fields, so that Python's ctypes, C#'s P/Invoke
 * (Unity, Godot) or any other foreign-function interface can mirror them
 * without a C compiler. No callbacks, no unions, no nested structs, no
 * bool. Layouts are part of the ABI: a field is only ever appended.
 *
 * The flat calls read the monotonic clock themselves (rs_clock_us), so a
 * game only calls rs_flat_update once per frame.
 *
 *     rs_flat_config *cfg = rs_flat_config_new();
 *     rs_flat_config_set(cfg, "name", "alice");
 *     rs_client *c = rs_flat_connect(cfg, "127.0.0.1", 27960, err, sizeof err);
 *     rs_flat_config_free(cfg);
 *     for (;;) {                                       // every frame
 *         rs_flat_set_controls(c, steer, throttle, brake, 0.0, RS_GEAR_KEEP);
 *         rs_flat_update(c);
 *         rs_flat_event ev;
 *         while (rs_flat_poll(c, &ev)) ...;             // ev.type: rs_client_event_type
 *         rs_flat_pose pose;
 *         rs_flat_get_pose(c, rs_flat_car(c), &pose);   // draw
 *     }
 *     rs_flat_close(c);
 *
 * Thread rules as racesim/client.h: one client, one thread at a time.
 */
#ifndef RACESIM_CLIENT_FLAT_H
#define RACESIM_CLIENT_FLAT_H

#include <stddef.h>
#include <stdint.h>

#include "racesim/client.h"
#include "racesim/standings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this layer's layouts and calls; rises when a struct
 * gains a field or a call is added. Every struct here is laid out without
 * padding (32-bit fields in pairs before 64-bit ones), so its layout is the
 * same on every 32- and 64-bit platform. Version 2: the race weekend
 * (protocol version 6): car_hash, the weekend's events' contents, the
 * session, cars' details, results rows' class position, status, penalty
 * and laps led. */
#define RS_FLAT_VERSION 2
int32_t rs_flat_version(void);

/* ------------------------------------------------------------ config */

typedef struct rs_flat_config rs_flat_config;

/* rs_client_config_default() with its own copies of every string. NULL
 * when out of memory. Free with rs_flat_config_free (accepts NULL). */
rs_flat_config *rs_flat_config_new(void);
void rs_flat_config_free(rs_flat_config *cfg);

/* Sets one option by the name of its rs_client_config field, from text:
 * strings "name", "token", "room", "password", "server_key", "known_hosts";
 * 0/1 "register_player", "spectator", "predicted_events", "simulate";
 * numbers "lead_margin_ticks", "min_lead_ms", "max_lead_ticks",
 * "input_interval_ticks", "connect_timeout_ms", "timeout_ms",
 * "ping_interval_ms", "snapshot_policy", and "car_hash" (in decimal, up to
 * 2^64 - 1: an offered car's base_hash from rs_flat_get_offered_car, 0 =
 * the room's choice). Returns RS_CLIENT_OK, or
 * RS_CLIENT_ERR_ARG for an unknown key or a value that is not a number
 * where one is needed (ranges are checked by rs_flat_connect). */
int32_t rs_flat_config_set(rs_flat_config *cfg, const char *key, const char *value);

/* ------------------------------------------------------- connection */

/* rs_client_connect over ENet with cfg (copied). NULL on error, with the
 * message in err (err may be NULL). */
rs_client *rs_flat_connect(const rs_flat_config *cfg, const char *host, int32_t port, char *err,
                           int32_t err_len);

/* Says BYE, gives the goodbye up to 100 ms to leave, and frees the client.
 * Accepts NULL. */
void rs_flat_close(rs_client *c);

/* rs_client_update at the present time. */
void rs_flat_update(rs_client *c);

/* rs_client_state and the local car (0 = none: spectator, or no race). */
int32_t rs_flat_state(const rs_client *c);
int32_t rs_flat_car(const rs_client *c);

/* Requests: racesim/client.h's rs_client_request_leaderboard,
 * rs_client_tune_save / _load / _list / _select, rs_client_admin and
 * rs_client_rotate_token take only numbers and strings; a binding calls
 * them as they are, with the client from rs_flat_connect. Their replies
 * come as events (and LEADERBOARD_REPLY rows through rs_flat_get_board_row).
 * So do the race weekend's: rs_client_chat (to "" = the room, else a
 * player's name: a private line), rs_client_command (RS_CMD_*; SELECT_CAR
 * takes an offered car's name or its base_hash as 16 hex digits),
 * rs_client_standings_request; they return an rs_client_status (an int)
 * and write a request id through a uint32_t pointer. */

/* ---------------------------------------------------------- controls */

/* The local car's controls from the next tick on: steer -1 (right) .. 1
 * (left), pedals 0..1 (clamped; NaN counts as 0), gear a request (-1
 * reverse, 0 neutral, 1.. a forward gear: Drive on the automatic gearbox
 * cars start with) or RS_GEAR_KEEP (-128) for none. */
void rs_flat_set_controls(rs_client *c, double steer, double throttle, double brake,
                          double handbrake, int32_t gear);

/* ------------------------------------------------------------ events */

/* One event, every kind in one layout; the fields an event does not use
 * are 0 (or "" for text). The race weekend's events (RS_CLIENT_EV_WEEKEND
 * and after) carry what fits here; everything else of them comes from the
 * rs_flat_get_* calls further down, which read the last such event polled
 * (as the rows of RESULTS do): call them before polling the next one. */
typedef struct rs_flat_event {
    int32_t type;        /* rs_client_event_type; 0 = none */
    int32_t car;         /* the car concerned: LAP, SECTOR, COLLISION, FINISH, CAR_INFO (its
                            class, number and more: rs_flat_get_car_info), PENALTY; the
                            local car in WORLD_READY (0 = none) */
    int32_t lap;         /* LAP, SECTOR: the lap (1 = first); FINISH: laps driven */
    int32_t position;    /* LAP: the car's race position; FINISH: finishing position */
    int32_t code;        /* REFUSED, DISCONNECTED: rs_proto_reason; ERROR: rs_client_error;
                            RACE_STATE: rs_proto_phase; the replies (COMMAND_REPLY and
                            STANDINGS too): rs_proto_result; SECTOR: sector index
                            (0-based); COLLISION: the other car (0 = a barrier); CAR_INFO:
                            flags (RS_CAR_*); PENALTY: kind (RS_PENALTY_*); CHAT: kind
                            (RS_CHAT_*); VOTE: state (RS_VOTE_OPEN, _PASSED, _FAILED) */
    int32_t flags;       /* LAP: RS_LAP_* (recorded, personal best, track record);
                            CONNECTED: 1 = spectator; PENALTY: 1 = taken back (removed) */
    int32_t valid;       /* LAP: 1 = a valid lap */
    int32_t count;       /* WORLD_READY: cars; RACE_STATE: laps of the race; RESULTS: rows
                            (rs_flat_result); LEADERBOARD_REPLY: rows (rs_flat_board_row);
                            TUNE_REPLY: names in text, one per line; WEEKEND: sessions;
                            STANDINGS: rows (rs_flat_championship_row) */
    uint32_t request_id; /* the replies: the id the request returned; PENALTY: its id;
                            VOTE: the vote's id */
    uint32_t race_number;/* WORLD_READY, RACE_STATE, RESULTS */
    int64_t time_us;     /* LAP: lap time; SECTOR: sector time; FINISH: last lap time */
    int64_t tick;        /* LAP, SECTOR, COLLISION, FINISH, WORLD_READY, ERROR, PENALTY */
    int64_t player_id;   /* CONNECTED: 0 = guest; CAR_INFO: the driver's; CHAT: the
                            sender's (0 = a guest or the server) */
    int64_t total;       /* LEADERBOARD_REPLY, TUNE_REPLY, STANDINGS: rows or names in all */
    double value;        /* COLLISION: impulse, N s; CONNECTED: tick rate, Hz */
    char text[1024];     /* REFUSED, DISCONNECTED, ERROR, ADMIN_REPLY, COMMAND_REPLY: the
                            text; CONNECTED, TOKEN_REPLY: the token to store, or why not
                            (code not OK); CAR_INFO: the driver's name; TUNE_REPLY: the
                            tune's JSON (load) or names; PENALTY: why; CHAT: the line;
                            VOTE: its subject (a player or a track, "" for the others);
                            WEEKEND, STANDINGS: the championship ("" = none) */
} rs_flat_event;

/* Moves the oldest event into *out and returns 1, or returns 0 (out->type
 * 0) when none is queued. */
int32_t rs_flat_poll(rs_client *c, rs_flat_event *out);

/* A row of the last RESULTS (rows in classification order: docs/RESULTS.md). */
typedef struct rs_flat_result {
    int32_t car;
    int32_t position;    /* 1.. */
    int32_t laps;
    int32_t finished;    /* 1 = took the flag */
    int64_t finish_us;   /* race clock at the flag, -1 = did not finish */
    int64_t best_lap_us; /* -1 = no valid lap */
    /* version 2 */
    int32_t class_position; /* among the rows of its class, 1..; 0 = the room has no classes */
    int32_t status;      /* RS_CLASSIFIED, RS_NOT_CLASSIFIED, RS_DISQUALIFIED */
    int32_t penalty_ms;  /* time penalties counted in the position */
    int32_t laps_led;    /* laps it completed in the lead */
} rs_flat_result;

/* Row i of the last RESULTS event into *out: 1, or 0 past the end. */
int32_t rs_flat_get_result(const rs_client *c, int32_t i, rs_flat_result *out);

/* A row of the last LEADERBOARD_REPLY. */
typedef struct rs_flat_board_row {
    int32_t rank;        /* 1.. */
    int32_t reserved;    /* 0 */
    int64_t time_us;
    int64_t recorded_at; /* unix seconds */
    uint64_t tune_hash;  /* 0 = stock */
    char name[64];
} rs_flat_board_row;

int32_t rs_flat_get_board_row(const rs_client *c, int32_t i, rs_flat_board_row *out);

/* ------------------------------------------------- the race weekend */

/* Texts here are UTF-8 in fixed arrays, NUL-terminated, each larger than
 * the wire allows (names 32 bytes, texts 200), so nothing is ever cut. The
 * calls that read "the last X polled" return RS_CLIENT_ERR_STATE before
 * one was polled, RS_CLIENT_ERR_ARG for a NULL argument, else RS_CLIENT_OK;
 * the row calls return 1, or 0 past the end (as rs_flat_get_result). */

/* The last WEEKEND polled: what the room runs. Its sessions, car classes
 * and offered cars are rows of their own. */
typedef struct rs_flat_weekend {
    int32_t weekend;          /* weekends begun in this room, 1.. */
    int32_t session_count;    /* 1..16: rs_flat_get_weekend_session */
    int32_t class_count;      /* 0..8: rs_flat_get_car_class */
    int32_t car_count;        /* cars offered, 1..8: rs_flat_get_offered_car */
    char championship[64];    /* the room's championship, "" = none */
} rs_flat_weekend;

int32_t rs_flat_get_weekend(const rs_client *c, rs_flat_weekend *out);

/* A session of the last WEEKEND polled, in the order the room runs them. */
typedef struct rs_flat_session_def {
    int32_t index;            /* its place in the weekend, 0.. (rs_flat_session.index) */
    int32_t type;             /* RS_SESSION_* */
    int32_t laps;             /* lap-limited: 1..1000; 0 = timed */
    int32_t time_limit_s;     /* timed: its length; 0 = lap-limited */
    int32_t grid_source;      /* races: RS_GRID_*; other sessions 0 */
    int32_t grid_reverse;     /* races: the first this many of the source start reversed */
} rs_flat_session_def;

int32_t rs_flat_get_weekend_session(const rs_client *c, int32_t i, rs_flat_session_def *out);

/* A car class of the last WEEKEND polled (CAR_INFO's class_index names one). */
typedef struct rs_flat_car_class {
    int32_t index;            /* 0.. */
    int32_t reserved;         /* 0 */
    char name[64];
} rs_flat_car_class;

int32_t rs_flat_get_car_class(const rs_client *c, int32_t i, rs_flat_car_class *out);

/* A car the room offers (last WEEKEND polled). A player picks one by its
 * hash: before connecting with the config option "car_hash", or later with
 * rs_client_command(c, RS_CMD_SELECT_CAR, hash as 16 hex digits or name). */
typedef struct rs_flat_offered_car {
    uint64_t base_hash;       /* the stock car's parameter hash */
    int32_t index;            /* 0.. */
    int32_t class_index;      /* into the classes (0 when there are none) */
    char name[64];            /* its display name */
    char class_name[64];      /* "" = the room has no classes */
} rs_flat_offered_car;

int32_t rs_flat_get_offered_car(const rs_client *c, int32_t i, rs_flat_offered_car *out);

/* The running session (rs_client_session), for a HUD. */
typedef struct rs_flat_session {
    int32_t index;            /* its place in the weekend */
    int32_t type;             /* RS_SESSION_* */
    int32_t laps;             /* lap-limited: its laps; else 0 */
    int32_t time_limit_ms;    /* timed: its length on the race clock; 0 = lap-limited */
    int32_t chequered;        /* 1 = the chequered flag is out */
    int32_t phase;            /* RS_PHASE_* of the last RACE_STATE */
    int64_t time_left_ms;     /* timed: never below 0 (the whole limit before lights out);
                                 -1 = lap-limited */
} rs_flat_session;

/* RS_CLIENT_OK, or RS_CLIENT_ERR_STATE before the first RACE_STATE. */
int32_t rs_flat_get_session(const rs_client *c, rs_flat_session *out);

/* A car and who drives it: its newest CAR_INFO (rs_client_car_info), with
 * its class's and offered car's names from the newest WEEKEND. */
typedef struct rs_flat_car_info {
    int32_t car;              /* 1..32 */
    int32_t flags;            /* RS_CAR_* */
    int32_t class_index;      /* into the weekend's classes (0 when there are none) */
    int32_t number;           /* race number, 0 = none */
    int32_t ballast_kg;       /* balance of performance, already in its parameters */
    int32_t restrictor_pct;
    int64_t player_id;        /* 0 = a guest or a bot */
    uint64_t params_hash;     /* the block the car is built from (tuned or stock) */
    uint64_t base_hash;       /* the stock car: an offered car's base_hash */
    uint64_t tune_hash;       /* 0 = stock */
    char name[64];            /* the driver, "" = a free slot */
    char class_name[64];      /* "" = none (or no WEEKEND yet) */
    char car_name[64];        /* the offered car's name, "" when unknown */
} rs_flat_car_info;

/* RS_CLIENT_OK; RS_CLIENT_ERR_ARG for a car outside 1..32; RS_CLIENT_ERR_STATE
 * when no CAR_INFO came for it. */
int32_t rs_flat_get_car_info(const rs_client *c, int32_t car, rs_flat_car_info *out);

/* The last PENALTY polled. */
typedef struct rs_flat_penalty {
    uint32_t id;              /* 1.., unique in the session; a removal repeats it */
    int32_t car;
    int32_t kind;             /* RS_PENALTY_TIME, _DSQ, _WARNING */
    int32_t offence;          /* RS_OFFENCE_* */
    int32_t seconds;          /* TIME: seconds added; else 0 */
    int32_t removed;          /* 1 = taken back */
    int64_t tick;             /* given (or taken back) in */
    char text[256];           /* why, for the players */
} rs_flat_penalty;

int32_t rs_flat_get_penalty(const rs_client *c, rs_flat_penalty *out);

/* The last CHAT polled: a line to the room, a private line to this player,
 * an announcement, or the room's own notice. Text checked by the protocol's
 * rules (no control, line-break or bidirectional characters): show it as
 * it is. */
typedef struct rs_flat_chat {
    int32_t kind;             /* RS_CHAT_ROOM, _PRIVATE, _ANNOUNCE, _SYSTEM */
    int32_t is_private;       /* 1 = RS_CHAT_PRIVATE: to this player only */
    int32_t announcement;     /* 1 = RS_CHAT_ANNOUNCE: the server or an administrator */
    int32_t reserved;         /* 0 */
    int64_t player_id;        /* the sender, 0 = a guest or the server */
    char from[64];            /* the sender's name, "" = the server */
    char text[256];
} rs_flat_chat;

int32_t rs_flat_get_chat(const rs_client *c, rs_flat_chat *out);

/* The last VOTE polled: a vote opened, counted or decided. */
typedef struct rs_flat_vote {
    uint32_t id;              /* 1.. in the room */
    int32_t kind;             /* RS_VOTE_KICK, _RESTART, _SKIP, _TRACK */
    int32_t state;            /* RS_VOTE_OPEN, _PASSED, _FAILED */
    int32_t yes, no;          /* votes so far */
    int32_t eligible;         /* players who may vote */
    int32_t needed;           /* yes votes that pass it */
    int32_t ends_in_ms;       /* OPEN: time left */
    char subject[128];        /* kick: the player; track: the track; else "" */
    char by[64];              /* who called it */
} rs_flat_vote;

int32_t rs_flat_get_vote(const rs_client *c, rs_flat_vote *out);

/* A row of the last STANDINGS polled (a championship's standings; the
 * event says which, the result, and how many rows there are in all). */
typedef struct rs_flat_championship_row {
    int32_t position;         /* 1.. (ties share it) */
    int32_t points;
    int32_t events;           /* events scored in */
    int32_t wins;
    char name[64];            /* the driver */
    char class_name[64];      /* "" = none */
} rs_flat_championship_row;

int32_t rs_flat_get_championship_row(const rs_client *c, int32_t i,
                                     rs_flat_championship_row *out);

/* ------------------------------------------------------------ state */

/* A car for drawing, interpolated at the present time (rs_client_pose). */
typedef struct rs_flat_pose {
    double x_m, y_m, z_m;     /* centre of mass, world frame */
    double yaw_rad;           /* heading, 0 = +x, counter-clockwise */
    double pitch_rad, roll_rad; /* Z-Y-X angles of quat: pitch + = nose down, roll + =
                                   right side down (ISO 8855 axes) */
    double speed_m_s;         /* along the ground */
    double quat[4];           /* w, x, y, z: body to world */
} rs_flat_pose;

/* RS_CLIENT_OK, RS_CLIENT_ERR_STATE without a world, RS_CLIENT_ERR_ARG for
 * an unknown car. */
int32_t rs_flat_get_pose(const rs_client *c, int32_t car, rs_flat_pose *out);

/* The local car for a HUD, from the predicted world. A struct tag without
 * a typedef: the name rs_flat_car is also the function above, and C keeps
 * tags apart from functions (write `struct rs_flat_car`). */
struct rs_flat_car {
    int32_t car;              /* 0 = no car: the rest is 0 */
    int32_t gear;             /* -1 R, 0 N, 1.. */
    int32_t lap;              /* the lap being driven (1 = first), 0 on the grid */
    int32_t laps;             /* of the race, 0 = open */
    int32_t position;
    int32_t status;           /* rs_race_status */
    double speed_m_s;         /* forward */
    double engine_rpm;
    int64_t lap_time_us;      /* of the lap in progress, -1 on the grid */
    int64_t last_lap_us;      /* -1 = none */
    int64_t best_lap_us;      /* -1 = none */
    int64_t race_time_us;     /* the race clock, negative before lights out */
};

/* RS_CLIENT_OK, or RS_CLIENT_ERR_STATE (and car 0) without a world or a
 * local car. */
int32_t rs_flat_get_car(const rs_client *c, struct rs_flat_car *out);

/* The track of the current world, for a driver and for drawing: a point of
 * the centre line by station (rs_track_sample_at), or where a point lies
 * relative to it (rs_track_locate). RS_CLIENT_ERR_STATE without a world,
 * RS_CLIENT_ERR_ARG when locate finds the point nowhere near the track. */
typedef struct rs_flat_track_point {
    double s_m;               /* station along the centre line, [0, length) */
    double x_m, y_m;          /* sample: the centre line's point; locate: the point given */
    double heading_rad;       /* of the centre line */
    double curvature_1_m;     /* sample: + = turning left; locate: 0 */
    double offset_m;          /* locate: from the centre line, + = left; sample: 0 */
    double width_left_m, width_right_m;
    int32_t inside_limits;    /* locate: 1 between the edges (kerbs count); sample: 1 */
    int32_t surface;          /* locate: rs_surface; sample: 0 */
} rs_flat_track_point;

int32_t rs_flat_track_sample(const rs_client *c, double s_m, rs_flat_track_point *out);
int32_t rs_flat_track_locate(const rs_client *c, double x_m, double y_m, rs_flat_track_point *out);
/* The centre line's length, 0 without a world. */
double rs_flat_track_length(const rs_client *c);

/* rs_client_standings (rs_standing is already fixed-layout). */
int32_t rs_flat_get_standings(const rs_client *c, rs_standing *out, int32_t cap);

/* rs_client_stats in a layout without padding (every field 64 bits, in
 * rs_client_stats' order; see racesim/client.h for what each means). */
typedef struct rs_flat_stats {
    double rtt_ms, silent_ms, jitter_ms, loss;
    double input_lead_ms;     /* RS_PROTO_LEAD_UNKNOWN (-32768) when unknown */
    double target_lead_ms, clock_rate, rollbacks_per_s;
    double local_error_m_last, local_error_m_max, local_error_m_mean;
    int64_t late_inputs, rollbacks, depth_p50, depth_p99, depth_max;
    int64_t desyncs, hashes_checked, snapshots, confirmed_tick, present_tick;
    int64_t frames, frames_unresolvable, inputs_sent, malformed, events_dropped;
    int64_t bytes_in, bytes_out, packets_in, packets_out;
    int64_t wire_bytes_in, wire_bytes_out, wire_packets_in, wire_packets_out;
    int64_t transport_errors, sealed_rejected;
} rs_flat_stats;

/* rs_client_get_stats at the present time. */
void rs_flat_get_stats(rs_client *c, rs_flat_stats *out);

/* The sizes of the structs above as this library was built: a binding
 * checks its own mirrors against them once (0 for an unknown name). Names:
 * "rs_flat_event", "rs_flat_result", "rs_flat_board_row", "rs_flat_pose",
 * "rs_flat_car", "rs_flat_track_point", "rs_standing", "rs_flat_stats", and
 * from version 2 "rs_flat_weekend", "rs_flat_session_def",
 * "rs_flat_car_class", "rs_flat_offered_car", "rs_flat_session",
 * "rs_flat_car_info", "rs_flat_penalty", "rs_flat_chat", "rs_flat_vote",
 * "rs_flat_championship_row". */
int32_t rs_flat_sizeof(const char *name);

#ifdef __cplusplus
}
#endif

#endif
