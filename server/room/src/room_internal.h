/*
 * Internals of a room (racesim/room.h), shared by its source files:
 * room.c (creation, peers, handshake, dispatch), room_race.c (the world and
 * the race lifecycle), room_frames.c (inputs in, FRAMEs out) and
 * room_send.c (the outgoing queue and chunked transfers).
 */
#ifndef RACESIM_ROOM_INTERNAL_H
#define RACESIM_ROOM_INTERNAL_H

#include "racesim/room.h"
#include "room_control.h"

/* Future inputs a car may queue ahead of the room's tick (about 4 s at 60 Hz). */
#define RS_ROOM_INPUT_RING 256u
/* Used inputs kept for FRAMEs and their repair; a client further behind gets
 * a snapshot. */
#define RS_ROOM_HIST 512u
/* State hashes kept for rs_room_hash_at. */
#define RS_ROOM_HASH_RING 4096u
/* A client whose frame_ack lags this far behind lacks ticks for real (a
 * round trip of a slow route is shorter) and gets repair FRAMEs; after the
 * repair cursor has caught up it waits this long for a fresh
 * acknowledgement before walking again. About 330 ms at 60 Hz. */
#define RS_ROOM_REPAIR_LAG_TICKS 20u
/* Peers beyond the seats that may be mid-handshake at once (before their
 * HELLO, or waiting for the admit hook's answer). */
#define RS_ROOM_PENDING_PEERS 32u
/* Requests (leaderboards, tunes, admin, tokens) a peer may send per
 * second; more are answered BUSY. Each may cost the server a database
 * query. */
#define RS_ROOM_REQUEST_RATE 10u
/* Players one player may mute, and players administrators may mute at once. */
#define RS_ROOM_PEER_MUTES 16u
#define RS_ROOM_ADMIN_MUTES 32u
/* How long a deferred LAP waits for its flags (rs_room_lap_flags). */
#define RS_ROOM_LAP_WAIT_US 5000000

/* A peer's life: NEW until its HELLO, ADMITTING while the admit hook
 * decides who it is (it holds no seat meanwhile), then PLAYER or
 * SPECTATOR, CLOSING once refused or gone (until the transport lets it go). */
enum { PEER_FREE = 0, PEER_NEW, PEER_ADMITTING, PEER_PLAYER, PEER_SPECTATOR, PEER_CLOSING };

/* A parameter block sent to a peer on this connection (room_blocks.c). */
typedef struct room_block_sent {
    uint64_t id_hash;
    uint32_t order;  /* send order; 0 = empty */
    uint8_t kind;
    bool acked;      /* the peer said PARAMS_ACK */
} room_block_sent;

typedef struct room_peer {
    uint8_t state;        /* PEER_* */
    uint32_t id;          /* the transport's id */
    int seat;             /* players: index into seats; else -1 */
    /* FRAME bookkeeping for the current world */
    bool in_world;        /* was sent this world's snapshot */
    uint64_t base_tick;   /* the snapshot's tick: the client holds no inputs before it */
    bool has_ack;
    uint64_t frame_ack;   /* the client holds every confirmed tick base_tick..frame_ack */
    uint64_t repair_next; /* next tick a repair FRAME starts at */
    uint64_t repair_hold; /* no cursor restart before this tick */
    bool repair_head;     /* the last repair FRAME started at the head */
    int64_t last_snapshot_us; /* the last SNAPSHOT_REQUEST answered */
    /* the newest RS_PROTO_BLOCKS_KEEP blocks sent, which the client keeps */
    room_block_sent blocks[RS_PROTO_BLOCKS_KEEP];
    uint32_t blocks_order;
    /* rate limit: INPUTs and PINGs in the current one-second window */
    int64_t rate_window_us;
    uint32_t rate_count;
    /* rate limit of requests */
    int64_t req_window_us;
    uint32_t req_count;
    /* who it is (players and spectators), for requests and kicks; while
     * ADMITTING the name it asked for */
    char name[RS_PROTO_NAME_MAX + 1];
    int64_t player_id;
    /* ADMITTING: the HELLO's RS_HELLO_* flags. Only these and the name are
     * kept: the token and password are the hook's to read during its call,
     * and the room holds no secret longer than it needs to */
    uint8_t hello_flags;
    uint64_t car_hash;    /* ADMITTING: the car it asked for (0 = the room's choice) */
    bool admin;           /* an administrator (rs_room_set_admin): votes never kick it */
    /* chat (room_chat.c): a token bucket in micro-minutes, and whom it mutes */
    int64_t chat_tokens;
    int64_t chat_at_us;
    uint32_t mute_count;
    char mutes[RS_ROOM_PEER_MUTES][RS_PROTO_NAME_MAX + 1];
} room_peer;

/* An administrator's mute of a player. */
typedef struct room_mute {
    char name[RS_PROTO_NAME_MAX + 1]; /* "" = a free slot */
    int64_t until_us;                 /* 0 = until unmuted */
} room_mute;

/* The room's vote, open or the last one (room_votes.c). */
typedef struct room_vote {
    uint32_t id;                      /* 0: none yet */
    uint8_t kind, state;              /* RS_VOTE_* */
    char arg[RS_PROTO_TUNE_NAME_MAX + 1];
    char by[RS_PROTO_NAME_MAX + 1];
    uint32_t yes, no, eligible;
    bool may_vote[RS_PROTO_MAX_CARS]; /* by seat: here when it opened, not voted yet */
    int64_t ends_us;
    int64_t caller_ready_us;          /* its caller may call another from then */
    const rs_track *track;            /* a track vote's track, from the find_track hook */
    const char *json;
    size_t json_len;
} room_vote;

/* A car the room offers (rs_room_config.cars, or cfg.car alone). */
typedef struct room_offer {
    const rs_car_params *params; /* borrowed */
    uint64_t hash;
    uint8_t *block;              /* its canonical block (owned) */
    size_t block_len;
    uint8_t class_index;
    double ballast_kg, restrictor_pct;
} room_offer;

/* What a seat drives: its offered car, tuned, with balance of performance,
 * as a canonical block and the parameters rebuilt from it (room_cars.c). */
typedef struct room_seat_car {
    uint8_t *block;
    size_t block_len;
    rs_car_params *params;
    uint64_t params_hash, base_hash, tune_hash;
    uint8_t class_index;
    uint16_t number;
    double ballast_kg, restrictor_pct;
} room_seat_car;

typedef struct room_seat {
    bool used;
    char name[RS_PROTO_NAME_MAX + 1];
    int64_t player_id;
    int peer;       /* index into peers, -1 while disconnected */
    uint16_t car;   /* index1 in the current world; 0 = none */
    bool kicked;    /* its player was kicked: the car cannot be rejoined */
    /* The car it drives from the next race on (rs_room_set_seat_car):
     * a canonical parameter block, NULL = the room's stock car. */
    uint8_t *block;
    size_t block_len;
    uint64_t params_hash, tune_hash;
    uint8_t offer;  /* the offered car it chose (or its entry's) */
    int entry;      /* its entry on the entry list, -1 none */
    /* what it drives from the next session on, computed when first asked
     * (rs_room__seat_effective) and again after any change */
    bool eff_ok;
    room_seat_car eff;
} room_seat;

/* A LAP waiting for its flags (cfg.defer_laps). */
typedef struct room_lap_wait {
    rs_msg_lap lap;
    int64_t due_us;
} room_lap_wait;

typedef struct room_car {
    int seat;                        /* who drives it */
    rs_car_params *own;              /* its parameters (owned) */
    uint8_t *block;                  /* its canonical block (owned) */
    size_t block_len;
    uint64_t params_hash, tune_hash, base_hash;
    uint16_t number;                 /* race number, 0 none */
    uint16_t ballast_kg;             /* balance of performance, for CAR_INFO */
    uint8_t restrictor_pct;
    rs_input last;                   /* the input used on the last stepped tick */
    uint64_t ring_tick[RS_ROOM_INPUT_RING]; /* tick + 1 of the input held in the slot; 0 = empty */
    rs_input ring_in[RS_ROOM_INPUT_RING];
    bool started;                    /* its client has sent inputs in this world */
    uint64_t first_tick;             /* the first tick it sent an input for */
    bool lead_known;
    double lead_ms;                  /* smoothed arrival lead of new inputs */
    uint32_t late;                   /* ticks that reused the previous input since it started */
    /* the session as the room keeps it (room_session.c) */
    uint8_t class_index;             /* index into the room's classes */
    uint32_t laps;                   /* laps completed before its flag */
    int64_t best_us;                 /* best valid lap of the session, -1 none */
    uint64_t best_tick;              /* the tick it was set in (ties go to the first) */
    uint16_t laps_led;               /* laps completed in the lead (races) */
    bool flagged;                    /* its session is over: it took the flag */
    int64_t flag_us;                 /* the race clock at its flag; -1 when it was not on
                                        a lap when the flag came out */
    uint32_t penalty_ms;             /* time penalties */
    bool dsq;                        /* disqualified */
    room_car_control control;        /* race control's counts (room_control.c) */
} room_car;

/* The order of a finished session by player name, for the grids after it. */
typedef struct room_order {
    uint32_t count;
    char names[RS_PROTO_MAX_CARS][RS_PROTO_NAME_MAX + 1];
} room_order;

struct rs_room {
    rs_room_config cfg;              /* cfg.track / track_json: the current race's track */
    char password[RS_PROTO_SECRET_MAX + 1];
    char name[RS_PROTO_NAME_MAX + 1];
    const rs_track *next_track;      /* rs_room_set_track during a race, else NULL */
    const char *next_json;
    size_t next_json_len;
    int64_t now_us;                  /* the newest time the transport passed in */
    bool closed;                     /* rs_room_set_open(false): HELLOs are refused */
    char closed_why[RS_PROTO_TEXT_MAX + 1];
    bool race_begun;                 /* hooks.race_begin was called for this world */
    room_lap_wait *laps;             /* deferred LAPs */
    size_t laps_len, laps_cap;
    rs_msg_results results;          /* the race's classification, from its end */
    char championship[RS_PROTO_NAME_MAX + 1]; /* WEEKEND.championship ("" none) */
    bool results_pending;            /* RESULTS waits for the deferred LAPs */
    uint64_t track_hash;
    /* the cars offered, their classes, the entry list (room_cars.c) */
    room_offer offers[RS_ROOM_MAX_CARS_OFFERED];
    uint32_t offer_count;            /* 1.. */
    char classes[RS_PROTO_MAX_CLASSES][RS_PROTO_NAME_MAX + 1];
    uint32_t class_count;
    rs_room_entry entries[RS_PROTO_MAX_CARS];
    char entry_names[RS_PROTO_MAX_CARS][RS_PROTO_NAME_MAX + 1];
    uint32_t entry_count;
    bool entries_only;

    room_peer *peers;
    uint32_t peer_cap;
    room_seat *seats;                /* cfg.max_players */

    /* the race */
    uint8_t phase;
    uint32_t race_number;
    bool lobby_timer;
    int64_t lobby_since_us;
    bool loading;                    /* a race is due: waiting for players' blocks */
    int64_t load_since_us;
    rs_world *world;
    uint32_t car_count;
    uint32_t car_cap;                /* cars allocated: the world's max_cars */
    room_car *cars;                  /* car_count */
    uint64_t start_tick;             /* the world's lights out (0 outside races) */
    bool start_hold;                 /* the world holds the cars until lights out */

    /* the weekend (room_session.c) */
    rs_proto_session_def sessions[RS_PROTO_MAX_SESSIONS];
    uint32_t session_count;          /* 1.. */
    uint32_t session;                /* the running session, or the next one */
    uint32_t weekend;                /* weekends begun */
    bool chequered;                  /* the flag is out in the running session */
    uint64_t chequered_tick;
    room_order qualifying_order;     /* the weekend's last qualifying, classified cars */
    room_order race_order;           /* the weekend's last race, classified cars */
    const rs_track *weekend_track;   /* a track vote's: the next weekend's track */
    const char *weekend_json;
    size_t weekend_json_len;

    /* chat and votes (room_chat.c, room_votes.c) */
    room_mute muted[RS_ROOM_ADMIN_MUTES];
    room_vote vote;
    int64_t vote_kind_ready_us[RS_VOTE_KIND_COUNT];
    int64_t t0_us;                   /* when the world was created: tick w is due at
                                        t0 + (w + 1) / tick_hz */
    uint64_t phase_tick, phase_end_tick;
    uint8_t *snap_buf;
    size_t snap_cap;
    rs_input hist[RS_ROOM_HIST][RS_PROTO_MAX_CARS]; /* used inputs, RS_ROOM_HIST ticks */
    uint64_t hash_tick[RS_ROOM_HASH_RING]; /* tick + 1 of the hash in the slot, 0 = none */
    uint64_t hash_val[RS_ROOM_HASH_RING];
    uint32_t transfer_id;

    /* outgoing */
    rs_room_packet *out;
    size_t out_len, out_cap, out_head;
    uint32_t *closing;
    size_t closing_len;

    rs_room_stats stats;
    room_control control;            /* the session's penalties (room_control.c) */
};

/* room_send.c */
bool rs_room__send(rs_room *room, uint32_t peer_id, const rs_msg *msg);
void rs_room__send_watchers(rs_room *room, const rs_msg *msg);
void rs_room__send_blob_params(rs_room *room, uint32_t peer_id, uint8_t kind, uint8_t car,
                               uint64_t id_hash, const uint8_t *data, size_t len);
void rs_room__send_blob_snapshot(rs_room *room, uint32_t peer_id, uint64_t tick, uint64_t hash,
                                 const uint8_t *data, size_t len);
void rs_room__refuse(rs_room *room, room_peer *p, uint8_t reason, const char *text);
/* BYE to p (it is closed separately, with rs_room__close_peer). */
void rs_room__bye(rs_room *room, room_peer *p, uint8_t reason, const char *text);
/* p goes (the transport closes it once its packets are out). An admitted
 * peer is reported LEFT with the BYE's reason and text, by_peer when it
 * sent the BYE itself. */
void rs_room__close_peer(rs_room *room, room_peer *p, uint8_t reason, const char *text,
                         bool by_peer);
/* Frees the outgoing queues (at destroy). */
void rs_room__send_free(rs_room *room);

/* room_blocks.c: parameter blocks sent once per connection, and the wait
 * for them before a race */
/* Sends a block unless this connection was sent it already; either way
 * returns its entry in p->blocks. */
const room_block_sent *rs_room__send_block(rs_room *room, room_peer *p, uint8_t kind,
                                           uint8_t car, uint64_t id_hash, const uint8_t *data,
                                           size_t len);
void rs_room__on_params_ack(room_peer *p, const rs_msg_params_ack *ack);
/* Sends every watcher the blocks the next race needs; true when every
 * connected player has acknowledged them all. */
bool rs_room__blocks_offer(rs_room *room);

/* room_race.c */
uint64_t rs_room__period_due(const rs_room *room, uint64_t tick);
void rs_room__race_update(rs_room *room, int64_t now_us);
void rs_room__send_world_to(rs_room *room, room_peer *p);
void rs_room__send_race_state(rs_room *room, room_peer *only);
void rs_room__send_car_info(rs_room *room, room_peer *only, uint16_t car);
void rs_room__broadcast_car_info(rs_room *room, uint16_t car);
void rs_room__destroy_world(rs_room *room);
/* Puts the player of seat into the running session (a car at a safe
 * place, and every watcher sent the world again); false when it cannot
 * now. */
bool rs_room__session_join(rs_room *room, int seat);
/* WEEKEND to one peer (or every watcher). */
void rs_room__send_weekend(rs_room *room, room_peer *only);
/* The results phase (from tick), and RESULTS once no LAP waits. */
void rs_room__enter_results(rs_room *room, uint64_t tick);
/* Sends the pending RESULTS when no deferred LAP is left. */
void rs_room__results_flush(rs_room *room);
/* The current track's hash follows cfg.track. */
void rs_room__apply_next_track(rs_room *room);

/* room_chat.c: chat, mutes, announcements */
/* A SYSTEM line (printf-style) to one peer, or every watcher (only NULL). */
void rs_room__system(rs_room *room, room_peer *only, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void rs_room__on_chat(rs_room *room, room_peer *p, const rs_msg_chat *c, int64_t now_us);
/* COMMAND MUTE/UNMUTE: p's own list. */
uint8_t rs_room__chat_mute(rs_room *room, room_peer *p, const char *name, bool mute, char *text,
                           size_t cap);

/* room_votes.c */
uint8_t rs_room__vote_call(rs_room *room, room_peer *p, uint8_t kind, const char *arg,
                           char *text, size_t cap);
uint8_t rs_room__vote_cast(rs_room *room, room_peer *p, bool yes, char *text, size_t cap);
/* Settles an open vote whose time is up (every update). */
void rs_room__votes_update(rs_room *room);

/* room_commands.c */
void rs_room__on_command(rs_room *room, room_peer *p, const rs_msg_command *c, int64_t now_us);

/* room_cars.c: offered cars, classes, entries, each seat's car */
bool rs_room__cars_check(const rs_room_config *c, const char **why);
rs_status rs_room__cars_init(rs_room *room, const rs_room_config *cfg);
void rs_room__cars_free(rs_room *room);
/* The entry named name, or -1. */
int rs_room__entry_of(const rs_room *room, const char *name);
/* Why name (player_id: < 0 not known yet, 0 guest) may not take a seat
 * here because of the entry list, or NULL; own_seat: it holds one already. */
const char *rs_room__entry_refusal(const rs_room *room, const char *name, int64_t player_id,
                                   bool own_seat);
/* A seat taken afresh: its entry and its car. */
void rs_room__seat_assign(rs_room *room, room_seat *s);
/* The seat's car must be computed again (its choice or tune changed). */
void rs_room__seat_changed(room_seat *s);
/* What the seat drives from the next session on; NULL when it cannot be
 * built (no memory, or a handicap the car cannot take). */
const room_seat_car *rs_room__seat_effective(const rs_room *room, room_seat *s);
rs_status rs_room__seat_car(const rs_room *room, const room_seat *s, room_seat_car *out);
void rs_room__seat_car_free(room_seat_car *c);
/* The offered car whose definition is named name (or whose stock hash is
 * name in 16 hex digits), or UINT32_MAX. */
uint32_t rs_room__offer_named(const rs_room *room, const char *name);
/* The offered car of this stock hash, or UINT32_MAX (0 too). */
uint32_t rs_room__offer_of_hash(const rs_room *room, uint64_t hash);
/* COMMAND SELECT_CAR from the player of seat (-1: a spectator): an
 * rs_proto_result, and the reply's words in text. */
uint8_t rs_room__select_car(rs_room *room, int seat, const char *car, char *text, size_t cap);

/* room_session.c: the weekend's sessions */
const rs_proto_session_def *rs_room__session(const rs_room *room);
bool rs_room__session_is_race(const rs_room *room);
/* False with *why when a list of sessions breaks a rule. */
bool rs_room__sessions_check(const rs_proto_session_def *s, uint32_t count, const char **why);
/* The seats of the next session's cars in grid order (car i + 1 is
 * seats[i]); returns how many. */
uint32_t rs_room__grid(const rs_room *room, int *seats);
void rs_room__session_reset(rs_room *room);
/* A LAP event of the running session: bookkeeping; returns the LAP flags
 * the room sets itself (RS_LAP_CHEQUERED). */
uint8_t rs_room__session_lap(rs_room *room, const rs_event *ev);
/* After tick next - 1 was stepped: the timed flag; true when the session
 * is over. */
bool rs_room__session_over(rs_room *room, uint64_t next);
/* The running session's classification into room->results. */
void rs_room__classify(rs_room *room);
/* The same classification, as it stands now, into *out (room_results.c). */
void rs_room__classify_into(const rs_room *room, rs_msg_results *out);
/* Keeps a finished qualifying's or race's order for later grids. */
void rs_room__session_remember(rs_room *room);
/* A running session that newcomers join at once (practice, qualifying,
 * warm-up before the flag). */
bool rs_room__session_open(const rs_room *room);
/* A safe place for a newcomer's car in the running session: false when
 * there is none now (or the session takes nobody). */
bool rs_room__session_place(rs_room *room, int seat, rs_car_spawn *out);
/* LAP.position in a session that is not a race: by best lap. */
uint8_t rs_room__session_position(const rs_room *room, uint16_t car);

/* room_control.c: race control */
bool rs_room__control_check(const rs_room_config *c, const char **why);
/* After each step of the world (its events are this tick's). */
void rs_room__control_step(rs_room *room);
/* The session's penalties so far, to a peer that was just sent the world. */
void rs_room__control_send_to(rs_room *room, room_peer *p);
/* Forgets the session's penalties (a new world, or the room's end). */
void rs_room__control_reset(rs_room *room);

/* room_hooks.c: the server's controls and the deferred LAPs */
void rs_room__lap_queue(rs_room *room, const rs_msg_lap *lap);
void rs_room__laps_expire(rs_room *room, bool all);
void rs_room__on_request(rs_room *room, room_peer *p, const rs_msg *m, int64_t now_us);
/* One request of p's budget (RS_ROOM_REQUEST_RATE a second): false when
 * spent (counted in rate_limited). */
bool rs_room__request_budget(rs_room *room, room_peer *p, int64_t now_us);
void rs_room__seat_free(rs_room *room, int seat);

/* room_frames.c */
void rs_room__on_input(rs_room *room, room_peer *p, const rs_msg_input *in, int64_t now_us);
rs_input rs_room__input_for_tick(rs_room *room, uint32_t car_index0, uint64_t tick);
void rs_room__send_frames(rs_room *room, uint64_t last_tick);

/* room.c */
/* Reports ev to the observer, if there is one. Callers that must build an
 * event test rs_room__observed first, so a room without an observer pays
 * one test. */
void rs_room__observe(rs_room *room, const rs_room_event *ev);
static inline bool rs_room__observed(const rs_room *room)
{
    return room->cfg.observer.event != NULL;
}
/* JOINED, LEFT or REFUSED about p (before its state is cleared). */
void rs_room__observe_peer(rs_room *room, uint8_t type, const room_peer *p, uint8_t reason,
                           const char *text, bool lost, bool by_peer);
room_peer *rs_room__find_peer(rs_room *room, uint32_t id);
/* A seat's player left: its car (if any) stays for a rejoin; in the lobby
 * the seat is freed. */
void rs_room__leave_seat(rs_room *room, int seat);
/* WELCOME for p: its car in the current world (a new world re-seats everyone). */
void rs_room__welcome(rs_room *room, room_peer *p);
bool rs_room__peer_watching(const room_peer *p);

#endif
