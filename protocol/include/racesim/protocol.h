/*
 * racesim protocol: the versioned binary wire format between the race
 * server and its clients. Pure bytes in and out: no sockets, no ENet, no
 * allocation except in the chunk assembler and the block set.
 * protocol/SPEC.md is the
 * normative description; this header is its C face.
 *
 * One ENet packet carries exactly one message: a type byte, then the
 * message's fields, little-endian, with no padding and nothing after them.
 * Every message is at most RS_PROTO_MAX_PACKET bytes, below the path MTU,
 * so nothing is ever fragmented. The list of messages lives in
 * racesim/protocol_messages.def and produces the type enum, the union
 * below, the names, channels and reliability, and the codec dispatch.
 *
 * Decoding never trusts the bytes: a short message is RS_PROTO_TRUNCATED,
 * a long one RS_PROTO_OVERSIZED, a field outside its range (including
 * invalid UTF-8 and non-minimal varints) RS_PROTO_RANGE, and the failing
 * field is named. Encoding checks the same ranges, so whatever encodes also
 * decodes, and never writes past the caller's buffer.
 *
 * Thread rules: no globals and no shared state; every function is safe to
 * call from any thread on its own arguments. An assembler or a block set
 * belongs to one thread at a time.
 */
#ifndef RACESIM_PROTOCOL_H
#define RACESIM_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever any message's bytes or meaning change (SPEC.md,
 * "Versioning"). HELLO carries it; the server refuses any other. */
#define RS_PROTO_VERSION 6u

/* ------------------------------------------------------------------ limits */

#define RS_PROTO_MAX_PACKET 1200u     /* bytes of one encoded message, type byte included */
#define RS_PROTO_MAX_CARS 32u         /* cars in one room */
#define RS_PROTO_INPUT_MAX 8u         /* inputs in one INPUT (the newest and 7 repeats) */
#define RS_PROTO_FRAME_MAX_TICKS 8u   /* ticks in one FRAME */
#define RS_PROTO_NAME_MAX 32u         /* player and room names, bytes of UTF-8 */
#define RS_PROTO_TOKEN_LEN 64u        /* a player's secret token: 64 hex digits */
#define RS_PROTO_SECRET_MAX 64u       /* room passwords */
#define RS_PROTO_TEXT_MAX 200u        /* human-readable text (REFUSE, BYE, ADMIN_REPLY) */
#define RS_PROTO_LIST_OFFSET_MAX 100000u /* the deepest offset of a LEADERBOARD_REQUEST or
                                            TUNE_LIST: deeper pages cost the server a scan */
#define RS_PROTO_TUNE_NAME_MAX 64u    /* a tune's name */
#define RS_PROTO_TUNE_TEXT_MAX 960u   /* tune JSON, or a TUNE_REPLY's text */
#define RS_PROTO_LB_ROWS 16u          /* rows in one LEADERBOARD_REPLY */
#define RS_PROTO_CHUNK_DATA 1024u     /* payload of every SNAPSHOT/PARAMS chunk but the last */
#define RS_PROTO_BLOB_MAX (16u << 20) /* largest snapshot or parameter block, bytes */
#define RS_PROTO_GEAR_MAX 16          /* highest gear an input may request */
#define RS_PROTO_TIME_MAX_US (INT64_C(1) << 40) /* lap, sector and race times (12.7 days) */
#define RS_PROTO_MAX_SESSIONS 16u     /* sessions in one weekend */
#define RS_PROTO_MAX_CLASSES 8u       /* car classes in one room */
#define RS_PROTO_MAX_OFFERED 8u       /* cars one room offers */
#define RS_PROTO_STANDINGS_ROWS 10u   /* rows in one STANDINGS_REPLY */
#define RS_PROTO_SESSION_MAX_S 86400u /* a timed session: at most a day */
#define RS_PROTO_PENALTY_MAX_S 3600u  /* one time penalty: at most an hour */
#define RS_PROTO_BALLAST_MAX_KG 500u  /* balance of performance: ballast */
#define RS_PROTO_RESTRICTOR_MAX 90u   /* balance of performance: restrictor, percent */
#define RS_PROTO_NUMBER_MAX 999u      /* a car's race number */

/* ENet channels: control and bulk are reliable; inputs and frames are not,
 * and the input channel carries nothing reliable, so a lost reliable packet
 * can never hold an input back. */
enum {
    RS_CH_CONTROL = 0, /* reliable: handshake, race state, laps, requests and replies */
    RS_CH_INPUT = 1,   /* unreliable unsequenced: INPUT only */
    RS_CH_FRAME = 2,   /* unreliable unsequenced: FRAME, PING, PONG */
    RS_CH_BULK = 3,    /* reliable: SNAPSHOT and PARAMS chunks */
    RS_CH_COUNT = 4
};

/* Whether a channel carries reliable, ordered packets (control and bulk)
 * or unreliable, unsequenced ones (input and frame). */
static inline bool rs_proto_channel_reliable(uint8_t channel)
{
    return channel == RS_CH_CONTROL || channel == RS_CH_BULK;
}

enum { RS_DIR_TO_SERVER = 1, RS_DIR_TO_CLIENT = 2, RS_DIR_BOTH = 3 };

/* ------------------------------------------------------------------ status */

typedef enum rs_proto_status {
    RS_PROTO_OK = 0,
    RS_PROTO_TRUNCATED,    /* the bytes end inside a field */
    RS_PROTO_OVERSIZED,    /* bytes after the message, or more than RS_PROTO_MAX_PACKET */
    RS_PROTO_RANGE,        /* a field outside its range, bad UTF-8, a non-minimal varint */
    RS_PROTO_UNKNOWN_TYPE, /* a type byte no message has */
    RS_PROTO_BAD_VERSION,  /* HELLO from another protocol version (version still decoded) */
    RS_PROTO_BUFFER,       /* the caller's buffer is too small */
    RS_PROTO_INCONSISTENT, /* a chunk disagrees with the transfer it belongs to */
    RS_PROTO_BAD_HASH,     /* a reassembled transfer does not match its content hash */
    RS_PROTO_NOMEM,        /* allocation failed */
    RS_PROTO_ARG           /* an invalid argument (NULL, bad index) */
} rs_proto_status;

/* A static English description of a status. Never fails. */
const char *rs_proto_status_str(rs_proto_status status);

/* ------------------------------------------------------------ player names */

/* The one definition of an acceptable player name (SPEC.md section 2,
 * "Player names"; protocol/src/names.c says why). The decoder applies it to
 * every field that holds a player name (HELLO's name, LEADERBOARD_REPLY's
 * and STANDINGS_REPLY's drivers, WEEKEND's classes, VOTE_STATE's caller and
 * kick target, and when not empty CAR_INFO's name, the player an ADMIN or
 * COMMAND aims at, CHAT's recipient, CHAT_MSG's sender and the
 * championships and classes of WEEKEND and the standings) and the encoder
 * likewise; the SDK checks a name with it before sending a HELLO, a CHAT or
 * a COMMAND, and the store before writing a players row. A name is:
 *  - 1..RS_PROTO_NAME_MAX bytes of well-formed UTF-8;
 *  - without control characters (U+0000..U+001F, U+007F..U+009F), line or
 *    paragraph separators (U+2028, U+2029), bidirectional controls (U+061C,
 *    U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), invisible characters
 *    (U+00AD, U+034F, U+115F, U+1160, U+17B4, U+17B5, U+180E, U+200B..U+200D,
 *    U+2060..U+2065, U+206A..U+206F, U+2800, U+3164, U+FEFF, U+FFA0,
 *    U+FFF9..U+FFFB, U+1D173..U+1D17A, U+E0000..U+E007F), spaces other than
 *    U+0020 (U+00A0, U+1680, U+2000..U+200A, U+202F, U+205F, U+3000),
 *    private-use characters (U+E000..U+F8FF, U+F0000..U+10FFFF) and
 *    noncharacters (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF);
 *  - without a space at the start or the end, or two spaces in a row.
 * Two names are one name when they are equal ignoring ASCII case: exactly
 * how the store's players.name (COLLATE NOCASE) compares them. Letters
 * outside ASCII compare exactly (their case needs Unicode's tables). */
#define RS_PROTO_NAME_MIN 1u

/* True when name[0..len) is an acceptable player name. Otherwise false, and
 * why (may be NULL) receives the first rule it breaks, with the byte offset
 * (from 0) where: "player name: control character U+0007 at byte 3". The
 * length, not a NUL, ends the name, so a NUL inside one is reported too. */
bool rs_proto_name_check(const char *name, size_t len, char *why, size_t why_len);

/* True when the NUL-terminated names a and b are the same player name. */
bool rs_proto_name_equal(const char *a, const char *b);

struct rs_msg; /* below, with every message */

/* rs_proto_decode, and when it fails, why in err: for a name field the rule
 * the name breaks ("hello.name: player name: control character U+0007 at
 * byte 3"), otherwise the field and the status. A server answers a refused
 * HELLO with it, in words, instead of dropping it. */
rs_proto_status rs_proto_decode_err(const uint8_t *buf, size_t len, struct rs_msg *out,
                                    const char **bad_field, char *err, size_t err_len);

/* ---------------------------------------------------------------- messages */

typedef enum rs_msg_type {
#define RS_PROTO_MSG(NAME, name, id, ch, rel, dir) RS_MSG_##NAME = id,
#include "racesim/protocol_messages.def"
#undef RS_PROTO_MSG
    RS_MSG_TYPE_END
} rs_msg_type;

/* Why a connection is refused or closed (REFUSE, BYE). */
typedef enum rs_proto_reason {
    RS_REASON_NONE = 0,         /* a normal goodbye */
    RS_REASON_VERSION = 1,      /* protocol version differs */
    RS_REASON_PHYSICS = 2,      /* physics version differs */
    RS_REASON_AUTH = 3,         /* unknown player or wrong token */
    RS_REASON_NAME_TAKEN = 4,   /* registering a name someone has */
    RS_REASON_NO_ROOM = 5,      /* no such room */
    RS_REASON_PASSWORD = 6,     /* wrong room password */
    RS_REASON_FULL = 7,         /* no free car or spectator slot, or no newcomers for now
                                   (an overloaded server): the text says which */
    RS_REASON_BANNED = 8,
    RS_REASON_KICKED = 9,
    RS_REASON_SHUTDOWN = 10,    /* the server is stopping */
    RS_REASON_TIMEOUT = 11,
    RS_REASON_MALFORMED = 12,   /* the peer sent bytes that do not decode */
    RS_REASON_PARAMS = 13,      /* parameter hashes differ (client cannot rebuild) */
    RS_REASON_OTHER = 14,
    RS_REASON_SERVER_KEY = 15,  /* the client does not trust the server's key (pinned or
                                   remembered key differs, or a bad key exchange) */
    RS_REASON_BAD_NAME = 16,    /* the player name breaks the rules (rs_proto_name_check) */
    RS_REASON_REPLACED = 17,    /* the same registered player connected again (its token):
                                   the new connection took the seat */
    RS_REASON_NOT_ENTERED = 18, /* the room races an entry list without this player, or
                                   every free seat is reserved for an entry */
    RS_REASON_NO_CAR = 19,      /* the room offers no car of HELLO's car_hash */
    RS_REASON_COUNT
} rs_proto_reason;

/* Outcome of a request (replies). */
typedef enum rs_proto_result {
    RS_RESULT_OK = 0,
    RS_RESULT_NOT_FOUND = 1,
    RS_RESULT_INVALID = 2,  /* the request's content is not acceptable; text says why */
    RS_RESULT_DENIED = 3,   /* not allowed (wrong secret, not registered) */
    RS_RESULT_BUSY = 4,     /* try again later */
    RS_RESULT_ERROR = 5,    /* the server failed; text says why */
    RS_RESULT_COUNT
} rs_proto_result;

enum { RS_HELLO_SPECTATOR = 1u << 0, RS_HELLO_REGISTER = 1u << 1 };

typedef struct rs_msg_hello {
    uint16_t protocol_version; /* RS_PROTO_VERSION; frozen at this place forever */
    uint32_t physics_version;  /* RS_PHYSICS_VERSION */
    uint8_t flags;             /* RS_HELLO_* */
    char name[RS_PROTO_NAME_MAX + 1];      /* 1..32 bytes */
    char token[RS_PROTO_TOKEN_LEN + 1];    /* "" (register or guest) or 64 hex digits */
    char room[RS_PROTO_NAME_MAX + 1];      /* "" = the default room */
    char password[RS_PROTO_SECRET_MAX + 1];/* "" = none */
    uint64_t car_hash;         /* the car the player wants to drive: the stock car's
                                  rs_car_params_hash, one of WEEKEND's cars; 0 = the room's
                                  choice (its first car, or the player's entry's) */
} rs_msg_hello;

typedef struct rs_msg_welcome {
    uint32_t room_id;
    uint8_t car;                /* the client's car index1 (1..32) in the world this WELCOME
                                   describes; 0 = none: a spectator, no race world yet
                                   (the lobby), or a seat that waits for the next race */
    int64_t player_id;          /* 0 = guest */
    char token[RS_PROTO_TOKEN_LEN + 1]; /* a freshly issued token after RS_HELLO_REGISTER, else "" */
    uint16_t tick_hz;           /* 1..1000 */
    uint8_t substeps;           /* 1..64 */
    uint16_t hash_interval;     /* a state hash every this many ticks, 1..3600 */
    uint32_t physics_version;
    uint64_t tick;              /* the server's current tick */
    uint64_t track_hash;        /* rs_track_hash */
    uint8_t car_count;          /* 0..32 */
    uint64_t car_hashes[RS_PROTO_MAX_CARS]; /* rs_car_params_hash of car 1.. */
} rs_msg_welcome;

typedef struct rs_msg_refuse {
    uint8_t reason;                    /* rs_proto_reason; frozen layout: type, reason, text */
    char text[RS_PROTO_TEXT_MAX + 1];  /* for the player: "protocol version 2, server speaks 3" */
} rs_msg_refuse;

typedef rs_msg_refuse rs_msg_bye;

typedef struct rs_msg_input {
    uint64_t newest_tick; /* inputs[0] is for this tick, inputs[i] for newest_tick - i */
    uint64_t frame_ack;   /* the client holds every confirmed tick up to this one (0: none) */
    uint8_t count;        /* 1..RS_PROTO_INPUT_MAX, and at most newest_tick + 1 */
    rs_input inputs[RS_PROTO_INPUT_MAX];
} rs_msg_input;

/* One car's input in a FRAME, as a change against the car's input one tick
 * earlier (or against the baseline for the first tick). Build and read
 * these with rs_proto_frame_set_inputs / rs_proto_frame_get_inputs. */
enum {
    RS_DELTA_STEER = 1u << 0,
    RS_DELTA_THROTTLE = 1u << 1,
    RS_DELTA_BRAKE = 1u << 2,
    RS_DELTA_CLUTCH = 1u << 3,
    RS_DELTA_HANDBRAKE = 1u << 4,
    RS_DELTA_GEAR = 1u << 5,
    RS_DELTA_BUTTONS = 1u << 6
};
typedef struct rs_proto_input_delta {
    uint8_t mask;        /* RS_DELTA_*: which fields follow; unset fields are 0 */
    int32_t steer_delta; /* new steer - old steer, -65534..65534, nonzero when set */
    uint8_t throttle, brake, clutch, handbrake; /* new values */
    int8_t gear;
    uint8_t buttons;
} rs_proto_input_delta;

typedef struct rs_proto_tick_hash {
    uint8_t index; /* tick first_tick + index; strictly increasing within a frame */
    uint64_t hash; /* rs_world_hash after that tick was stepped */
} rs_proto_tick_hash;

#define RS_PROTO_LEAD_UNKNOWN INT16_MIN /* input_lead_ms: nothing measured yet */

typedef struct rs_msg_frame {
    uint64_t first_tick;    /* the tick of deltas[0] */
    uint32_t baseline_back; /* 0: deltas[0] are against neutral inputs; k: against the
                               confirmed inputs of tick first_tick - k (1..first_tick) */
    uint8_t tick_count;     /* 1..RS_PROTO_FRAME_MAX_TICKS */
    uint8_t car_count;      /* 0..RS_PROTO_MAX_CARS */
    rs_proto_input_delta deltas[RS_PROTO_FRAME_MAX_TICKS][RS_PROTO_MAX_CARS];
    uint8_t hash_count;     /* 0..tick_count */
    rs_proto_tick_hash hashes[RS_PROTO_FRAME_MAX_TICKS];
    /* Timing feedback for the receiving client: how long before the server
     * stepped it the client's input for a tick arrived (ms, -32767..32767;
     * negative = late), smoothed, or RS_PROTO_LEAD_UNKNOWN; and how many of
     * its inputs have arrived too late so far. */
    int16_t input_lead_ms;
    uint32_t late_inputs;
    /* The newest tick up to which the server holds every input of this
     * client (0: none): older inputs need not be repeated. */
    uint64_t input_ack;
} rs_msg_frame;

typedef struct rs_msg_ping {
    uint32_t id;
    uint64_t time_us;   /* the sender's clock; echoed in PONG */
} rs_msg_ping;

typedef struct rs_msg_pong {
    uint32_t id;
    uint64_t echo_time_us; /* the PING's time_us */
    uint64_t tick;         /* the sender's current tick (0 from a client) */
} rs_msg_pong;

enum { RS_SNAP_JOIN = 0, RS_SNAP_DESYNC = 1, RS_SNAP_BEHIND = 2, RS_SNAP_REASON_COUNT };

typedef struct rs_msg_snapshot_request {
    uint8_t reason; /* RS_SNAP_* */
    uint64_t tick;  /* the client's newest confirmed tick (0: none) */
} rs_msg_snapshot_request;

/* One piece of a transfer too large for a packet. Every chunk but the last
 * carries exactly RS_PROTO_CHUNK_DATA bytes, so chunk i starts at
 * i * RS_PROTO_CHUNK_DATA and count = ceil(total_size / RS_PROTO_CHUNK_DATA). */
typedef struct rs_proto_chunk {
    uint32_t transfer_id;  /* the same for every chunk of one transfer */
    uint32_t total_size;   /* 1..RS_PROTO_BLOB_MAX */
    uint16_t index;        /* 0..count-1 */
    uint16_t count;
    uint64_t content_hash; /* rs_proto_hash64 of the whole transfer */
    const uint8_t *data;   /* decoded: borrowed from the packet; encoded: read */
    uint32_t data_len;
} rs_proto_chunk;

typedef struct rs_msg_snapshot {
    uint64_t tick;       /* the world's tick (rs_world_tick) */
    uint64_t state_hash; /* rs_world_hash of the world it restores */
    rs_proto_chunk chunk;/* the canonical rs_world_snapshot bytes */
} rs_msg_snapshot;

enum { RS_PARAMS_CAR = 0, RS_PARAMS_TRACK = 1, RS_PARAMS_KIND_COUNT };

typedef struct rs_msg_params {
    uint8_t kind;        /* RS_PARAMS_CAR: an rs_car_params_block; RS_PARAMS_TRACK: track JSON */
    uint8_t car;         /* car: the car index1 it was sent for (1..32), or 0 for a block
                            sent ahead of a race; informative only, since receivers keep
                            blocks by id_hash (SPEC.md, "Parameter blocks"); track: 0 */
    uint64_t id_hash;    /* rs_car_params_hash or rs_track_hash of what the bytes build */
    rs_proto_chunk chunk;
} rs_msg_params;

/* The client holds a complete parameter block (it arrived whole and is
 * kept): the room may start a race that needs it. */
typedef struct rs_msg_params_ack {
    uint8_t kind;        /* RS_PARAMS_* */
    uint64_t id_hash;    /* the PARAMS id_hash */
} rs_msg_params_ack;

typedef struct rs_msg_desync_report {
    uint64_t tick;
    uint64_t client_hash;
    uint64_t server_hash;
} rs_msg_desync_report;

enum { RS_CAR_CONNECTED = 1u << 0, RS_CAR_BOT = 1u << 1 };

typedef struct rs_msg_car_info {
    uint8_t car;          /* 1..32 */
    uint8_t flags;        /* RS_CAR_* */
    int64_t player_id;    /* 0 = guest or bot */
    char name[RS_PROTO_NAME_MAX + 1]; /* "" = free slot */
    uint64_t params_hash; /* the block the car is built from (tuned or stock) */
    uint64_t base_hash;   /* the stock car */
    uint64_t tune_hash;   /* 0 = stock */
    uint8_t class_index;  /* the car's class: index into WEEKEND's classes (0 when the
                             room has none) */
    uint16_t number;      /* race number, 0 = none, ..RS_PROTO_NUMBER_MAX */
    uint16_t ballast_kg;  /* balance of performance already in params_hash's block: */
    uint8_t restrictor_pct; /* shown to players, 0..RS_PROTO_RESTRICTOR_MAX */
} rs_msg_car_info;

enum { RS_PHASE_LOBBY = 0, RS_PHASE_COUNTDOWN = 1, RS_PHASE_RACE = 2, RS_PHASE_RESULTS = 3,
       RS_PHASE_COUNT };

/* The kinds of session in a weekend (WEEKEND, RACE_STATE, RESULTS). */
enum { RS_SESSION_PRACTICE = 0, RS_SESSION_QUALIFYING = 1, RS_SESSION_WARMUP = 2,
       RS_SESSION_RACE = 3, RS_SESSION_TYPE_COUNT };

/* Where a race's grid comes from (rs_proto_session_def.grid_source). */
enum {
    RS_GRID_JOIN_ORDER = 0,   /* the seats in the order their players joined */
    RS_GRID_QUALIFYING = 1,   /* the weekend's last qualifying: best valid lap, ties to who
                                 set it first; cars without a time behind, in join order */
    RS_GRID_PREVIOUS_RACE = 2,/* the finishing order of the weekend's previous race */
    RS_GRID_SOURCE_COUNT
};

/* RACE_STATE.flags */
enum { RS_SESSION_CHEQUERED = 1u << 0, /* the flag is out: a timed session's time ran out
                                          (a race: its leader then crossed the line); every
                                          car's next crossing of the line ends its session */
       RS_SESSION_FREE_START = 1u << 1 /* the world does not hold the cars on their brakes
                                          before lights out (rs_world_def.start_hold false):
                                          a car that moves is jump-starting */ };
typedef struct rs_msg_race_state {
    uint8_t phase;          /* RS_PHASE_* */
    uint32_t race_number;   /* counts races in this room */
    uint16_t laps;          /* 0 = open session, ..1000 */
    uint64_t phase_tick;    /* the tick this phase began */
    uint64_t start_tick;    /* lights out (rs_world_def.start_tick); 0 before a countdown */
    uint64_t phase_end_tick;/* when this phase ends, 0 = when the race decides */
    uint64_t track_hash;
    uint8_t session_index;  /* the session's place in the weekend (WEEKEND.sessions) */
    uint8_t session_type;   /* RS_SESSION_* */
    uint32_t time_limit_ms; /* a timed session's length on the race clock (from lights
                               out); 0 = lap-limited (laps) */
    uint8_t flags;          /* RS_SESSION_* flags */
} rs_msg_race_state;

/* One session of a weekend. Exactly one of laps and time_limit_s is set. */
typedef struct rs_proto_session_def {
    uint8_t type;          /* RS_SESSION_* */
    uint16_t laps;         /* lap-limited: 1..1000; 0 = timed */
    uint32_t time_limit_s; /* timed: 1..RS_PROTO_SESSION_MAX_S; 0 = lap-limited */
    uint8_t grid_source;   /* races: RS_GRID_*; other sessions 0 */
    uint8_t grid_reverse;  /* races: the top this many of the source start in reverse
                              order, 0..32 (0 = none) */
} rs_proto_session_def;

/* A car a room offers. */
typedef struct rs_proto_car_offer {
    uint64_t base_hash;    /* the stock car's rs_car_params_hash (HELLO.car_hash) */
    uint8_t class_index;   /* into classes (0 when there are none) */
    char name[RS_PROTO_NAME_MAX + 1]; /* its display name, 1..32 bytes of text
                                         (rs_proto_text_check) */
} rs_proto_car_offer;

/* What a room runs: its weekend's sessions, its car classes, the cars it
 * offers, its championship. Sent after WELCOME and whenever a new weekend
 * begins. */
typedef struct rs_msg_weekend {
    uint32_t weekend;      /* weekends begun in this room (1..) */
    uint8_t session_count; /* 1..RS_PROTO_MAX_SESSIONS */
    rs_proto_session_def sessions[RS_PROTO_MAX_SESSIONS];
    uint8_t class_count;   /* 0..RS_PROTO_MAX_CLASSES */
    char classes[RS_PROTO_MAX_CLASSES][RS_PROTO_NAME_MAX + 1]; /* names, by the name rules */
    char championship[RS_PROTO_NAME_MAX + 1]; /* "" = none, else by the name rules */
    uint8_t car_count;     /* 1..RS_PROTO_MAX_OFFERED */
    rs_proto_car_offer cars[RS_PROTO_MAX_OFFERED];
} rs_msg_weekend;

enum { RS_LAP_RECORDED = 1u << 0, RS_LAP_PERSONAL_BEST = 1u << 1, RS_LAP_TRACK_RECORD = 1u << 2,
       RS_LAP_CHEQUERED = 1u << 3 /* the lap ended the car's session: it took the flag */ };

typedef struct rs_msg_lap {
    uint8_t car;            /* 1..32 */
    uint32_t lap;           /* 1.. */
    uint64_t tick;          /* the tick it was completed in */
    int64_t time_us;        /* 0..RS_PROTO_TIME_MAX_US */
    uint8_t sector_count;   /* 0..RS_MAX_SECTORS */
    int64_t sectors_us[RS_MAX_SECTORS]; /* -1 = skipped */
    bool valid;
    uint8_t invalid_reason; /* rs_lap_invalid */
    uint8_t flags;          /* RS_LAP_*: stored in the database, a personal best, a record,
                               the chequered flag */
    uint8_t position;       /* 1..32: the car's race position when it completed the lap;
                               for its last lap, its finishing position */
} rs_msg_lap;

/* A row's standing in the classification (rs_proto_result_row.status). */
enum {
    RS_CLASSIFIED = 0,    /* a race: took the flag; other sessions: set a valid lap */
    RS_NOT_CLASSIFIED = 1,/* a race: did not finish (retired, or the race was stopped);
                             other sessions: no valid lap */
    RS_DISQUALIFIED = 2,  /* by race control or an administrator */
    RS_RESULT_STATUS_COUNT
};

typedef struct rs_proto_result_row {
    uint8_t car;          /* 1..32 */
    uint8_t position;     /* classification 1..32: the row's place in rows. A race: the
                             classified cars by laps and then finish time plus time
                             penalties, then the others by laps and progress, the
                             disqualified last. Other sessions: by best valid lap (ties: who
                             set it first), then the cars without one */
    uint8_t class_position; /* its place among the rows of its class, 1..position; 0 =
                               the room has no classes */
    uint8_t status;       /* RS_CLASSIFIED, ... */
    uint32_t laps;        /* laps completed */
    int64_t finish_us;    /* race clock at the flag, -1 = did not take it */
    int64_t best_lap_us;  /* -1 = no valid lap */
    uint32_t penalty_ms;  /* time penalties counted in the position (0..2^31 - 1) */
    uint16_t laps_led;    /* laps it completed in the lead */
} rs_proto_result_row;

typedef struct rs_msg_results {
    uint32_t race_number;
    uint8_t session_index;/* as in RACE_STATE */
    uint8_t session_type;
    uint8_t count;        /* 0..32 */
    rs_proto_result_row rows[RS_PROTO_MAX_CARS]; /* in classification order */
} rs_msg_results;

typedef struct rs_msg_leaderboard_request {
    uint32_t request_id;
    uint64_t track_hash; /* 0 = the room's track */
    uint64_t base_hash;  /* 0 = the requester's car */
    uint64_t tune_key;   /* 0 = any tune, UINT64_MAX = stock, else a tune hash */
    uint32_t offset;     /* first rank - 1 */
    uint8_t count;       /* 1..RS_PROTO_LB_ROWS */
} rs_msg_leaderboard_request;

typedef struct rs_proto_lb_row {
    uint32_t rank;        /* 1.. */
    char name[RS_PROTO_NAME_MAX + 1];
    int64_t time_us;      /* 0..RS_PROTO_TIME_MAX_US */
    uint64_t tune_hash;   /* 0 = stock */
    int64_t recorded_at;  /* unix seconds, 0.. */
} rs_proto_lb_row;

typedef struct rs_msg_leaderboard_reply {
    uint32_t request_id;
    uint8_t result;       /* rs_proto_result */
    uint32_t total;       /* rows on the board */
    uint32_t offset;
    uint8_t count;        /* 0..RS_PROTO_LB_ROWS */
    rs_proto_lb_row rows[RS_PROTO_LB_ROWS];
} rs_msg_leaderboard_reply;

typedef struct rs_msg_tune_save {
    uint32_t request_id;
    char name[RS_PROTO_TUNE_NAME_MAX + 1];  /* 1..64 bytes */
    char json[RS_PROTO_TUNE_TEXT_MAX + 1];  /* the tune document (docs/TUNES.md) */
} rs_msg_tune_save;

typedef struct rs_msg_tune_name {
    uint32_t request_id;
    char name[RS_PROTO_TUNE_NAME_MAX + 1];  /* TUNE_LOAD 1..64; SELECT_TUNE "" = stock */
} rs_msg_tune_name;
typedef rs_msg_tune_name rs_msg_tune_load;
typedef rs_msg_tune_name rs_msg_select_tune;

typedef struct rs_msg_tune_list {
    uint32_t request_id;
    uint64_t base_hash;   /* 0 = the car the requester drives */
    uint32_t offset;      /* the first name wanted (names sorted), 0..RS_PROTO_LIST_OFFSET_MAX */
} rs_msg_tune_list;

enum { RS_TUNE_OP_SAVE = 0, RS_TUNE_OP_LOAD = 1, RS_TUNE_OP_LIST = 2, RS_TUNE_OP_SELECT = 3,
       RS_TUNE_OP_COUNT };

typedef struct rs_msg_tune_reply {
    uint32_t request_id;
    uint8_t op;           /* RS_TUNE_OP_* */
    uint8_t result;       /* rs_proto_result */
    uint64_t tune_hash;   /* SAVE, LOAD, SELECT: the tune's hash (0 = stock) */
    uint32_t total;       /* LIST: how many names there are in all (a page holds what fits) */
    /* An error: the message naming each bad field. LOAD: the tune JSON.
     * LIST: the names from the offset asked, one per line. */
    char text[RS_PROTO_TUNE_TEXT_MAX + 1];
} rs_msg_tune_reply;

enum {
    RS_ADMIN_KICK = 0,
    RS_ADMIN_BAN = 1,
    RS_ADMIN_END_RACE = 2,      /* ends the running session (RESULTS at once) */
    RS_ADMIN_CHANGE_TRACK = 3,
    RS_ADMIN_PENALTY = 4,       /* arg: player; duration_s: seconds added (1..3600); reason */
    RS_ADMIN_DISQUALIFY = 5,    /* arg: player; reason */
    RS_ADMIN_REMOVE_PENALTY = 6,/* arg: the penalty's id in decimal; reason */
    RS_ADMIN_ANNOUNCE = 7,      /* reason: the text, to everyone in the room */
    RS_ADMIN_MUTE = 8,          /* arg: player; duration_s: how long, 0 = until unmuted */
    RS_ADMIN_UNMUTE = 9,        /* arg: player */
    RS_ADMIN_SKIP_SESSION = 10, /* the next session of the weekend begins */
    RS_ADMIN_RESTART_SESSION = 11, /* the running session begins again */
    RS_ADMIN_COMMAND_COUNT
};

/* Sent by a player the operator made an administrator (racectl admin
 * grant); the server checks the sender's rights, nothing in the message
 * proves them. */
typedef struct rs_msg_admin {
    uint32_t request_id;
    uint8_t command;                      /* RS_ADMIN_* */
    char arg[RS_PROTO_TUNE_NAME_MAX + 1]; /* KICK/BAN: player name; CHANGE_TRACK: track name */
    char reason[RS_PROTO_TEXT_MAX + 1];   /* KICK/BAN: shown to the player and kept with a
                                             ban; may be empty */
    uint32_t duration_s;                  /* BAN: how long, 0 = until lifted */
} rs_msg_admin;

typedef struct rs_msg_admin_reply {
    uint32_t request_id;
    uint8_t result;                       /* rs_proto_result */
    char text[RS_PROTO_TEXT_MAX + 1];
} rs_msg_admin_reply;

/* The client holds the token it was given: a registration's (WELCOME) or a
 * rotation's (TOKEN_REPLY). Until it says so the server keeps the old state:
 * an unconfirmed registration is forgotten when the connection ends, and an
 * unconfirmed rotation leaves the old token valid (the new one works too,
 * and using it confirms it). */
enum { RS_TOKEN_ACK_REGISTERED = 0, RS_TOKEN_ACK_ROTATED = 1, RS_TOKEN_ACK_COUNT };

typedef struct rs_msg_token_ack {
    uint8_t kind;                         /* RS_TOKEN_ACK_* */
} rs_msg_token_ack;

/* A registered player asks for a new token (the old one may have leaked). */
typedef struct rs_msg_token_rotate {
    uint32_t request_id;
} rs_msg_token_rotate;

typedef struct rs_msg_token_reply {
    uint32_t request_id;
    uint8_t result;                       /* rs_proto_result */
    char token[RS_PROTO_TOKEN_LEN + 1];   /* OK: the new token, 64 hex digits; else empty */
    char text[RS_PROTO_TEXT_MAX + 1];     /* not OK: why */
} rs_msg_token_reply;

/* ------------------------------------------------------ race control */

enum { RS_PENALTY_TIME = 0,     /* seconds added to the car's race time */
       RS_PENALTY_DSQ = 1,      /* disqualified from the session */
       RS_PENALTY_WARNING = 2,  /* a strike counted towards a penalty; no effect of its own */
       RS_PENALTY_KIND_COUNT };

enum { RS_OFFENCE_TRACK_LIMITS = 0, /* invalid excursions beyond the track limits */
       RS_OFFENCE_CONTACT = 1,      /* contact with other cars, weighted by closing speed */
       RS_OFFENCE_JUMP_START = 2,   /* moving before lights out */
       RS_OFFENCE_ADMIN = 3,        /* an administrator's decision */
       RS_OFFENCE_COUNT };

/* A penalty given (or, removed set, taken back) in the running session. */
typedef struct rs_msg_penalty {
    uint32_t id;          /* 1.., unique in the session; a removal repeats the id */
    uint8_t car;          /* 1..32 */
    uint8_t kind;         /* RS_PENALTY_* */
    uint8_t offence;      /* RS_OFFENCE_* */
    uint32_t seconds;     /* TIME: 1..RS_PROTO_PENALTY_MAX_S; else 0 */
    bool removed;
    uint64_t tick;        /* the tick it was given (or removed) in */
    char text[RS_PROTO_TEXT_MAX + 1]; /* why, for the players ("3 track limit strikes") */
} rs_msg_penalty;

/* ------------------------------------------------------------- chat */

/* Chat and announcement text: 1..RS_PROTO_TEXT_MAX bytes of well-formed
 * UTF-8 without control characters (C0, DEL, C1), line or paragraph
 * separators, bidirectional controls or noncharacters (the name rules' own
 * classes; SPEC.md section 2, "Text"). Spaces anywhere, invisible and
 * private-use characters and every script are allowed. False, with the
 * first rule broken and its byte offset in why (may be NULL), as
 * rs_proto_name_check: "text: control character U+000A at byte 2". The
 * length, not a NUL, ends the text. */
bool rs_proto_text_check(const char *text, size_t len, char *why, size_t why_len);

typedef struct rs_msg_chat {
    char to[RS_PROTO_NAME_MAX + 1];   /* "" = the room, else a player (a private message) */
    char text[RS_PROTO_TEXT_MAX + 1]; /* by rs_proto_text_check */
} rs_msg_chat;

enum { RS_CHAT_ROOM = 0, RS_CHAT_PRIVATE = 1, RS_CHAT_ANNOUNCE = 2 /* the server or an
                                                                       administrator */,
       RS_CHAT_SYSTEM = 3 /* the room itself: votes, penalties, sessions */,
       RS_CHAT_KIND_COUNT };

typedef struct rs_msg_chat_msg {
    uint8_t kind;                     /* RS_CHAT_* */
    int64_t player_id;                /* the sender; 0 for a guest or the server */
    char from[RS_PROTO_NAME_MAX + 1]; /* the sender's name; "" for the server */
    char text[RS_PROTO_TEXT_MAX + 1]; /* by rs_proto_text_check */
} rs_msg_chat_msg;

/* ------------------------------------------------ players' commands */

enum {
    RS_CMD_MUTE = 0,        /* arg: a player whose chat this player no longer receives */
    RS_CMD_UNMUTE = 1,      /* arg: a player */
    RS_CMD_VOTE_KICK = 2,   /* arg: a player (never an administrator) */
    RS_CMD_VOTE_RESTART = 3,/* restart the running session */
    RS_CMD_VOTE_SKIP = 4,   /* skip to the next session */
    RS_CMD_VOTE_TRACK = 5,  /* arg: a track of the server's catalogue, for the next weekend */
    RS_CMD_VOTE_YES = 6,    /* on the open vote */
    RS_CMD_VOTE_NO = 7,
    RS_CMD_SELECT_CAR = 8,  /* arg: a car the room offers, from the next session on */
    RS_CMD_COUNT
};

typedef struct rs_msg_command {
    uint32_t request_id;
    uint8_t command;                      /* RS_CMD_* */
    char arg[RS_PROTO_TUNE_NAME_MAX + 1]; /* str(0..64) */
} rs_msg_command;

typedef struct rs_msg_command_reply {
    uint32_t request_id;
    uint8_t result;                       /* rs_proto_result */
    char text[RS_PROTO_TEXT_MAX + 1];
} rs_msg_command_reply;

enum { RS_VOTE_KICK = 0, RS_VOTE_RESTART = 1, RS_VOTE_SKIP = 2, RS_VOTE_TRACK = 3,
       RS_VOTE_KIND_COUNT };
enum { RS_VOTE_OPEN = 0, RS_VOTE_PASSED = 1, RS_VOTE_FAILED = 2, RS_VOTE_STATE_COUNT };

/* A vote opened, counted, or decided: sent to everyone in the room. */
typedef struct rs_msg_vote_state {
    uint32_t vote_id;                     /* 1.. in the room */
    uint8_t kind;                         /* RS_VOTE_* */
    uint8_t state;                        /* RS_VOTE_* state */
    char arg[RS_PROTO_TUNE_NAME_MAX + 1]; /* kick: the player; track: the track */
    char by[RS_PROTO_NAME_MAX + 1];       /* who called it (a name) */
    uint8_t yes, no;                      /* votes so far */
    uint8_t eligible;                     /* players who may vote, 1..32 */
    uint8_t needed;                       /* yes votes that pass it, 1..32 */
    uint32_t ends_in_ms;                  /* OPEN: time left */
} rs_msg_vote_state;

/* ------------------------------------------------------ championships */

typedef struct rs_msg_standings_request {
    uint32_t request_id;
    char championship[RS_PROTO_NAME_MAX + 1]; /* "" = the room's own */
    char class_name[RS_PROTO_NAME_MAX + 1];   /* "" = every driver */
    uint32_t offset;                          /* 0..RS_PROTO_LIST_OFFSET_MAX */
    uint8_t count;                            /* 1..RS_PROTO_STANDINGS_ROWS */
} rs_msg_standings_request;

typedef struct rs_proto_standing_row {
    uint32_t position;                        /* 1.. (ties share it) */
    char name[RS_PROTO_NAME_MAX + 1];         /* the driver, by the name rules */
    char class_name[RS_PROTO_NAME_MAX + 1];   /* "" = none */
    uint32_t points;
    uint16_t events;                          /* events scored in */
    uint16_t wins;
} rs_proto_standing_row;

typedef struct rs_msg_standings_reply {
    uint32_t request_id;
    uint8_t result;                           /* rs_proto_result */
    char championship[RS_PROTO_NAME_MAX + 1]; /* which one ("" when not found) */
    uint32_t total;                           /* drivers in the standings */
    uint32_t offset;
    uint8_t count;                            /* 0..RS_PROTO_STANDINGS_ROWS */
    rs_proto_standing_row rows[RS_PROTO_STANDINGS_ROWS];
} rs_msg_standings_reply;

/* A decoded (or to-be-encoded) message: the type selects the member. */
typedef struct rs_msg {
    uint8_t type; /* rs_msg_type */
    union {
#define RS_PROTO_MSG(NAME, name, id, ch, rel, dir) rs_msg_##name name;
#include "racesim/protocol_messages.def"
#undef RS_PROTO_MSG
    } u;
} rs_msg;

/* -------------------------------------------------------------- the codec */

/* Encodes msg (not modified) into buf. Writes the encoded size to *out_len
 * and returns RS_PROTO_OK; with buf NULL it only measures (size query).
 * Fails with RS_PROTO_UNKNOWN_TYPE, RS_PROTO_RANGE (a field outside the
 * range the decoder accepts), RS_PROTO_OVERSIZED (more than
 * RS_PROTO_MAX_PACKET bytes: split the content), RS_PROTO_BAD_VERSION (a
 * HELLO of a version other than RS_PROTO_VERSION) or RS_PROTO_BUFFER (cap too
 * small; *out_len is then the size needed). Never writes past buf + cap.
 * bad_field (may be NULL) receives a static name of the failing field. */
rs_proto_status rs_proto_encode(const rs_msg *msg, uint8_t *buf, size_t cap, size_t *out_len,
                                const char **bad_field);

/* Decodes one message of exactly len bytes into *out. Chunk data in *out is
 * borrowed from buf (valid while buf is). On error *out is unspecified except
 * for a HELLO with RS_PROTO_BAD_VERSION, whose protocol_version is set so the
 * server can say what it got. bad_field (may be NULL) receives a static name
 * of the failing field ("hello.name"). Never reads outside buf[0..len). */
rs_proto_status rs_proto_decode(const uint8_t *buf, size_t len, rs_msg *out,
                                const char **bad_field);

/* The name of a message type ("FRAME"), or NULL for an unknown one. */
const char *rs_proto_msg_name(uint8_t type);

/* The word for a session type (RS_SESSION_*): "practice", "qualifying",
 * "warmup" or "race", as logs, results files and the HTTP API write it;
 * "unknown" for any other value. */
const char *rs_proto_session_type_name(uint8_t type);

/* The channel (RS_CH_*), reliability and direction of a message type.
 * Return false for an unknown type. */
bool rs_proto_msg_info(uint8_t type, uint8_t *channel, bool *reliable, uint8_t *direction);

/* Message types in the list order, for tests and tools: writes up to cap
 * and returns the number of message types. */
size_t rs_proto_msg_types(uint8_t *out, size_t cap);

/* The human-readable name of a reason ("protocol version mismatch"). */
const char *rs_proto_reason_str(uint8_t reason);

/* Fills a REFUSE for a HELLO of another protocol version, with text the
 * SDK can show as is: "protocol version 2, server speaks 3". Never fails. */
void rs_proto_refuse_version(uint16_t client_version, rs_msg *out);

/* ---------------------------------------------------------- input deltas */

/* The neutral input (no pedals, centred steering, no gear request): the
 * baseline of INPUT's first entry and of a FRAME with baseline_back 0. */
rs_input rs_proto_input_neutral(void);

/* True when every field is inside what the wire carries: steer in
 * [-RS_STEER_MAX, RS_STEER_MAX], gear RS_GEAR_KEEP or -1..RS_PROTO_GEAR_MAX,
 * only defined buttons. */
bool rs_proto_input_valid(const rs_input *in);

/* Fills f->deltas from inputs[t * car_count + c] (tick first_tick + t, car
 * c + 1) for f->tick_count ticks and f->car_count cars, against baseline
 * (car_count entries; NULL = neutral, which requires f->baseline_back 0).
 * RS_PROTO_RANGE when an input is invalid, RS_PROTO_ARG for bad counts. */
rs_proto_status rs_proto_frame_set_inputs(rs_msg_frame *f, const rs_input *baseline,
                                          const rs_input *inputs);

/* The inverse: writes tick_count * car_count inputs to out, resolving the
 * deltas against baseline (the confirmed inputs of tick first_tick -
 * baseline_back; NULL when baseline_back is 0). RS_PROTO_RANGE when a
 * resolved input is invalid (the sender's baseline was not ours). */
rs_proto_status rs_proto_frame_get_inputs(const rs_msg_frame *f, const rs_input *baseline,
                                          rs_input *out);

/* ----------------------------------------------------- chunked transfers */

/* 64-bit FNV-1a over bytes: the content hash of a chunked transfer. */
uint64_t rs_proto_hash64(const uint8_t *data, size_t len);

/* Chunks needed for len bytes (0 when len is 0 or above RS_PROTO_BLOB_MAX). */
uint32_t rs_proto_chunk_count(size_t len);

/* Describes chunk index of data[0..len) for transfer_id; out->data points
 * into data. content_hash is rs_proto_hash64(data, len), passed in so it is
 * computed once per transfer. RS_PROTO_ARG for a bad index or length. */
rs_proto_status rs_proto_chunk_make(const uint8_t *data, size_t len, uint32_t transfer_id,
                                    uint64_t content_hash, uint32_t index, rs_proto_chunk *out);

/* Reassembles one transfer at a time from chunks in any order. */
typedef struct rs_proto_assembler rs_proto_assembler;

/* max_total caps the transfer size it accepts (<= RS_PROTO_BLOB_MAX).
 * Caller frees with rs_proto_assembler_destroy. */
rs_proto_status rs_proto_assembler_create(uint32_t max_total, rs_proto_assembler **out);

/* Accepts NULL. */
void rs_proto_assembler_destroy(rs_proto_assembler *a);

/* Adds a chunk (its data is copied; nothing is kept). A chunk with a new
 * transfer_id abandons any unfinished transfer and starts this one. A chunk
 * whose size, count, hash or length disagrees with its transfer, or a
 * repeated chunk with other bytes, is RS_PROTO_INCONSISTENT and abandons the
 * transfer; a transfer above max_total is RS_PROTO_OVERSIZED. When the last
 * missing chunk arrives *complete is set and the content hash is checked
 * (RS_PROTO_BAD_HASH, transfer abandoned). */
rs_proto_status rs_proto_assembler_add(rs_proto_assembler *a, const rs_proto_chunk *chunk,
                                       bool *complete);

/* The completed transfer's bytes, borrowed until the next add or reset;
 * NULL (and *len 0) while incomplete. */
const uint8_t *rs_proto_assembler_data(const rs_proto_assembler *a, size_t *len);

/* Forgets the current transfer. */
void rs_proto_assembler_reset(rs_proto_assembler *a);

/* ------------------------------------------------------ parameter blocks */

/* A client keeps at least the newest this many distinct parameter blocks
 * it received; a server remembers at most the newest this many it sent,
 * and counts on the client holding those (SPEC.md, "Parameter blocks").
 * A race needs at most 32 car blocks and a track. */
#define RS_PROTO_BLOCKS_KEEP 40u

/* The received parameter blocks, keyed by (kind, id_hash), evicting the
 * oldest received when full. */
typedef struct rs_proto_blocks rs_proto_blocks;

/* capacity >= 1 (RS_PROTO_BLOCKS_KEEP for a client). */
rs_proto_status rs_proto_blocks_create(uint32_t capacity, rs_proto_blocks **out);

/* Accepts NULL. */
void rs_proto_blocks_destroy(rs_proto_blocks *b);

/* Keeps a copy of data[0..len) as (kind, id_hash); a block already held
 * under that key is replaced. RS_PROTO_NOMEM leaves the set as it was. */
rs_proto_status rs_proto_blocks_put(rs_proto_blocks *b, uint8_t kind, uint64_t id_hash,
                                    const uint8_t *data, size_t len);

/* The block held under (kind, id_hash), borrowed until the next put or
 * clear; NULL (and *len 0) when absent. */
const uint8_t *rs_proto_blocks_find(const rs_proto_blocks *b, uint8_t kind, uint64_t id_hash,
                                    size_t *len);

/* Forgets every block. */
void rs_proto_blocks_clear(rs_proto_blocks *b);

#ifdef __cplusplus
}
#endif

#endif
