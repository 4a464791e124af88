/*
 * racesim room: the transport-agnostic core of the authoritative server.
 *
 * A room is one world with its own race lifecycle (lobby -> countdown ->
 * race -> results -> lobby/next race). It speaks the wire protocol
 * (protocol/SPEC.md) as bytes: the transport (the ENet adapter, or an
 * in-memory one in tests) tells it that a peer connected, hands it every
 * packet a peer sent and tells it when a peer left; after rs_room_update the
 * transport polls the packets to send, each with its peer, channel and
 * reliability. There are no sockets, no clocks and no threads inside: time
 * is passed in as microseconds on any monotonic clock.
 *
 * Lockstep (docs/SERVER.md, "Lockstep"): the room steps its world at a
 * fixed rate counted from the moment the race's world was created, and never
 * waits for a client. A car's input for tick T is the one that arrived for
 * T before the room stepped T; a missing one is that car's previous input
 * (a disconnected driver's car gets full brake). What the room used is
 * final and goes out in FRAMEs with a state hash every hash_interval ticks,
 * and each FRAME tells its client how early its inputs arrive
 * (input_lead_ms) so it can keep its lead steady.
 *
 * Thread rules: a room belongs to one thread at a time. Rooms share nothing
 * but the immutable track and car parameters, so different rooms may run on
 * different threads.
 */
#ifndef RACESIM_ROOM_H
#define RACESIM_ROOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"
#include "racesim/protocol.h"
#include "racesim/track.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_room rs_room;

/* Cars a room may offer at once (WEEKEND lists them all). */
#define RS_ROOM_MAX_CARS_OFFERED RS_PROTO_MAX_OFFERED

/* A car the room offers (rs_room_config.cars). */
typedef struct rs_room_car_offer {
    const rs_car_params *params; /* the stock car; borrowed, must outlive the room */
    uint8_t class_index;         /* into rs_room_config.classes (0 when there are none) */
    double ballast_kg;           /* its balance of performance (racesim/bop.h): 0..500 */
    double restrictor_pct;       /* 0..90 */
} rs_room_car_offer;

/* One driver of a room's entry list: a registered player, by name. */
typedef struct rs_room_entry {
    const char *name;            /* copied */
    uint8_t car;                 /* index into rs_room_config.cars (0 with none) */
    uint16_t number;             /* race number, 0 none, ..999 */
    bool bop;                    /* the entry's own balance of performance instead of its
                                    car's: */
    double ballast_kg, restrictor_pct;
} rs_room_entry;

/* Who drives a car of a new race world. */
typedef struct rs_room_entrant {
    uint8_t car;              /* 1..car_count */
    int64_t player_id;        /* 0 guest */
    const char *name;         /* borrowed for the call */
    uint64_t params_hash;     /* the block the car runs (tuned or stock) */
    uint64_t base_hash;       /* the stock car's hash */
    uint64_t tune_hash;       /* 0 stock */
    const rs_car_params *params; /* the car's parameters in this world; borrowed until
                                    race_end */
    const rs_car_params *stock;  /* the offered stock car it is built from (borrowed) */
    uint8_t class_index;
    uint16_t number;             /* race number, 0 none */
} rs_room_entrant;

/* What the admit hook decided at once. */
enum { RS_ROOM_ADMIT_GUEST = 0,   /* admit now as a guest (player id 0) */
       RS_ROOM_ADMIT_PENDING = 1  /* the hook answers later (or already did) with
                                     rs_room_admit or rs_room_refuse */ };

/* What a room tells its server and asks of it. Every member is optional
 * (NULL). Called on the room's thread from inside rs_room_* calls; a hook
 * may call only the rs_room functions its comment allows (on its own room;
 * other rooms only when they are idle on the same thread). */
typedef struct rs_room_hooks {
    void *ctx;
    /* A new race world exists (countdown begins). entrants[i] drives car i + 1.
     * The entrants are borrowed for the call. */
    void (*race_begin)(void *ctx, rs_room *room, const rs_world *world,
                       const rs_room_entrant *entrants, uint32_t count);
    /* Around every rs_world_step of the race world (inputs are set before
     * before_step). after_step may call rs_room_lap_flags, rs_room_send,
     * rs_room_admit and rs_room_refuse. */
    void (*before_step)(void *ctx, rs_room *room, const rs_world *world);
    void (*after_step)(void *ctx, rs_room *room, const rs_world *world);
    /* The race world is about to be destroyed (after results, or the room is
     * destroyed). May call rs_room_lap_flags (deferred LAPs still waiting go
     * out with flags 0 right after this hook). */
    void (*race_end)(void *ctx, rs_room *room, const rs_world *world);
    /* LEADERBOARD_REQUEST, TUNE_SAVE/LOAD/LIST, SELECT_TUNE, ADMIN, TOKEN_ROTATE or
     * TOKEN_ACK from an admitted player or spectator (already decoded, on the right
     * channel, rate-limited: over 10 a second from one peer are answered BUSY, and a
     * TOKEN_ACK over the limit is dropped, having no reply). The hook answers with
     * rs_room_send and may call rs_room_set_seat_car, rs_room_kick, rs_room_end_race,
     * rs_room_set_track, rs_room_admit and rs_room_refuse. Without the hook the room
     * answers LEADERBOARD_REPLY / TUNE_REPLY / ADMIN_REPLY / TOKEN_REPLY with result
     * RS_RESULT_ERROR and the text "unsupported" (the protocol has no result code of its
     * own for it), and ignores TOKEN_ACK: it issued no token to confirm. */
    void (*request)(void *ctx, rs_room *room, uint32_t peer, int64_t player_id,
                    const char *name, const rs_msg *msg);
    /* A HELLO passed the room's own checks (physics version, room name,
     * password, a free seat or spectator slot): who is it? Called with the
     * peer in the ADMITTING state; the hook may call rs_room_admit or
     * rs_room_refuse on this peer before returning (then it returns
     * PENDING) or later, from the room's thread. Without the hook everyone
     * is a guest, and a HELLO asking to register is refused (reason AUTH,
     * "this room cannot register players"). hello is borrowed for the call
     * (the room keeps its name and flags). A waiting peer holds no seat: its
     * place is checked again when it is admitted. A HELLO asking to register
     * whose name holds a seat here is refused before the hook (NAME_TAKEN),
     * so a token goes only to a player the room can seat, unless the room
     * fills up meanwhile. The waiting peer's other messages are dropped; if
     * it leaves, rs_room_admit and rs_room_refuse return false. */
    uint8_t (*admit)(void *ctx, rs_room *room, uint32_t peer, const rs_msg_hello *hello);
    /* The race is decided (RESULTS was just sent, the results phase
     * begins; also after rs_room_end_race). The world still runs through the
     * results phase. */
    void (*race_results)(void *ctx, rs_room *room, const rs_world *world);
    /* The room is being destroyed (called last, after race_end). The hook
     * must forget the room. */
    void (*closed)(void *ctx, rs_room *room);
    /* A car joined the running world (a player came to a practice, qualifying or
     * warm-up under way): entrant drives it, added before the world's current tick
     * at spawn. Borrowed for the call. */
    void (*car_joined)(void *ctx, rs_room *room, const rs_world *world,
                       const rs_room_entrant *entrant, const rs_car_spawn *spawn);
    /* A track vote names a track: the server's catalogue entry of that name (its
     * track and JSON, which must outlive the room), or false. Without the hook
     * track votes are refused. */
    bool (*find_track)(void *ctx, rs_room *room, const char *name, const rs_track **track,
                       const char **json, size_t *json_len);
} rs_room_hooks;

/* What happened in a room, for an observer (rs_room_config.observer): a
 * server's log, a live-timing feed. Unlike the hooks, which the services
 * own and which decide things (admissions, LAP flags), an observer only
 * learns. */
typedef enum rs_room_event_type {
    RS_ROOM_EV_JOINED = 1,   /* a peer was admitted: a seat (car: its car in the running
                                race, 0 in the lobby) or a spectator (car 0) */
    RS_ROOM_EV_LEFT = 2,     /* an admitted peer is gone: reason is the RS_REASON_* of the BYE
                                it sent (by_peer) or was sent (kicked, replaced, shutdown),
                                with its text; lost: the transport reported the connection
                                gone without a BYE (reason RS_REASON_NONE) */
    RS_ROOM_EV_REFUSED = 3,  /* a HELLO (or a connection the room has no slot for) was
                                refused: reason and text as sent in REFUSE */
    RS_ROOM_EV_PHASE = 4,    /* the room entered phase (RS_PHASE_*) of race race_number */
    RS_ROOM_EV_STEPPED = 5,  /* the race world stepped one tick: world (its rs_world_events
                                are this tick's laps, sectors, hits, finishes) */
    RS_ROOM_EV_PENALTY = 6,  /* race control gave a penalty or took one back (the PENALTY
                                sent to every watcher): penalty, car, name (its driver) */
    RS_ROOM_EV_CHAT = 7,     /* a chat line went out: chat (kind, sender, text); name the
                                sender; text the private line's recipient ("" for the room
                                and announcements) */
    RS_ROOM_EV_VOTE = 8      /* a vote opened, was counted or decided: vote (as sent);
                                name its caller, text its argument */
} rs_room_event_type;

typedef struct rs_room_event {
    uint8_t type;          /* rs_room_event_type */
    uint32_t peer;         /* JOINED, LEFT, REFUSED: the transport's id */
    int64_t player_id;     /* JOINED, LEFT: 0 guest (REFUSED: 0) */
    const char *name;      /* JOINED, LEFT, REFUSED: the player's name, borrowed for the call
                              ("" when unknown: a refusal before or for its name) */
    uint8_t car;           /* JOINED, LEFT: the seat's car in the current world; 0 for a
                              spectator or when no world runs */
    bool spectator;        /* JOINED, LEFT */
    uint8_t reason;        /* LEFT, REFUSED: RS_REASON_* */
    bool lost;             /* LEFT: no BYE either way, the connection just went */
    bool by_peer;          /* LEFT: the peer said BYE (else the room said it) */
    const char *text;      /* REFUSED: REFUSE's text; LEFT: the BYE's text; borrowed ("" when
                              none) */
    uint8_t phase;         /* PHASE: RS_PHASE_* */
    uint32_t race_number;  /* PHASE, STEPPED: races started so far (this race's number) */
    const rs_world *world; /* STEPPED, and PHASE when a world exists (not LOBBY); borrowed */
    const rs_msg_penalty *penalty; /* PENALTY: as sent; borrowed for the call */
    const rs_msg_chat_msg *chat;   /* CHAT: as sent; borrowed for the call */
    const rs_msg_vote_state *vote; /* VOTE: as sent; borrowed for the call */
} rs_room_event;

/* Chat (docs/SERVER.md, "Chat and votes"): each player's token bucket. */
typedef struct rs_room_chat_config {
    uint32_t burst;      /* lines a player may send at once, 0 = chat off, ..100. Usually 5 */
    uint32_t per_minute; /* and on average, 1..600. Usually 20 */
} rs_room_chat_config;

/* Votes (docs/SERVER.md, "Chat and votes"). */
typedef struct rs_room_vote_config {
    bool off;              /* no votes in this room */
    uint32_t quorum_pct;   /* share of the players here when it opened who must vote, 1..100.
                              Usually 50 */
    uint32_t majority_pct; /* it passes with more than this share of yes votes cast, 50..99.
                              Usually 50 */
    uint32_t duration_s;   /* how long it is open, 5..600. Usually 30 */
    uint32_t cooldown_s;   /* then no vote of that kind, and none by its caller, 0..3600.
                              Usually 120 */
} rs_room_vote_config;

/* Called on the room's thread from inside rs_room_* calls, after the room
 * acted (a JOINED peer has its WELCOME queued, a PHASE's RACE_STATE is
 * queued). The observer must not call into the room except its queries
 * (rs_room_get_stats, rs_room_name, rs_room_world, rs_room_track,
 * rs_room_laps, rs_room_car_driver, rs_room_hash_at): the room is in the
 * middle of an operation. Nothing is reported from rs_room_destroy. */
typedef struct rs_room_observer {
    void *ctx;
    void (*event)(void *ctx, rs_room *room, const rs_room_event *ev); /* NULL: none */
} rs_room_observer;

/* Race control (docs/SERVER.md, "Race control"): penalties in races from
 * the world's own deterministic events. Every rule is off at 0 (the
 * defaults); an administrator's penalties (rs_room_penalty_add) need none. */
typedef struct rs_room_race_control {
    struct {
        uint32_t strikes;      /* 0 off, 1..100: every race lap the world invalidates for
                                  track limits is a strike (a WARNING); this many make a
                                  time penalty, and the count starts again */
        uint32_t penalty_s;    /* 1..3600 when on */
    } track_limits;
    struct {
        double min_speed_m_s;  /* 0 off, else 0.5..50: car-to-car hits closing slower are
                                  ignored. Each other hit gives both cars
                                  (speed / 5 m/s)^2 points */
        double penalty_points; /* 0 none, else > 0: a time penalty each time a car's points
                                  pass a multiple of this */
        uint32_t penalty_s;    /* 1..3600 when penalty_points is set */
        double dsq_points;     /* 0 never, else > 0: disqualified at this many points */
    } contact;
    struct {
        uint32_t penalty_s;    /* 0 off, 1..3600: needs free_start. A car further than
                                  tolerance_m from its grid spot at any tick before lights
                                  out, judged at lights out */
        double tolerance_m;    /* 0.05..10 when on (0: 0.5) */
    } jump_start;
} rs_room_race_control;

typedef struct rs_room_config {
    const rs_track *track;      /* borrowed; must outlive the room. Required */
    const char *track_json;     /* the JSON text the track was built from, sent to clients in
                                   PARAMS (clients rebuild and check rs_track_hash). Required */
    size_t track_json_len;
    const rs_car_params *car;   /* every car's parameters (stock); borrowed. Required */
    uint32_t room_id;           /* WELCOME.room_id. Usually 0 */
    uint32_t tick_hz;           /* Usually 60 */
    uint32_t substeps;          /* Usually 4 */
    uint32_t laps;              /* race distance, 1..1000, when there are no sessions.
                                   Usually 3 */
    const rs_proto_session_def *sessions; /* the weekend, in order (copied); NULL with
                                   session_count 0 = one race of laps, over and over
                                   (protocol.h and docs/SERVER.md, "Weekends") */
    uint32_t session_count;     /* 0..RS_PROTO_MAX_SESSIONS */
    uint32_t max_players;       /* car slots, 1..min(32, grid slots). Usually 16 */
    uint32_t spectator_slots;   /* Usually 8 */
    uint32_t start_players;     /* the countdown starts as soon as this many players are
                                   connected (0 = max_players) ... */
    uint32_t lobby_ticks;       /* ... or this long (ticks) after the first player joined,
                                   whichever comes first. Usually 10 s */
    uint32_t countdown_ticks;   /* lights out this many ticks after the world is created
                                   (rs_world_def.start_tick). Usually 3 s */
    uint32_t load_wait_ticks;   /* a due race waits at most this long (0..600 s) for
                                   every connected player to acknowledge the track and car
                                   blocks it needs (PARAMS_ACK), which the room sends ahead
                                   to each player that joins. Usually 15 s */
    uint32_t results_ticks;     /* how long results are shown before the next race. Usually 10 s */
    uint32_t finish_timeout_ticks; /* after the winner's flag, the race ends at most this much
                                      later even if cars are still running. Usually 60 s */
    uint32_t hash_interval;     /* a state hash every this many ticks, 1..3600. Usually 30 */
    uint32_t frame_every;       /* a FRAME every this many ticks, 1..8. Usually 2 */
    uint32_t frame_ticks;       /* ticks in a regular FRAME, frame_every..8. Usually 4 */
    uint32_t max_input_rate;    /* INPUT messages a peer may send per second; more are dropped
                                   and counted. At least tick_hz. Usually 120 (2 x 60 Hz) */
    const char *password;       /* NULL or "" = none; copied */
    rs_room_hooks hooks;        /* copied; every member optional */
    const char *name;           /* matched against HELLO.room ("" there = any room); copied;
                                   NULL or "" = "default". At most 32 bytes */
    bool defer_laps;            /* LAP messages wait for rs_room_lap_flags (at most 5 s) */
    rs_room_observer observer;  /* copied; optional (event NULL: nothing is reported, and
                                   the tick pays one test) */
    /* Several cars and classes (docs/SERVER.md, "Cars, classes and entries"). With
     * car_count 0 the room offers car alone, in no class. */
    const rs_room_car_offer *cars; /* copied; the first is every seat's car until it
                                      chooses (COMMAND SELECT_CAR) or its entry says */
    uint32_t car_count;         /* 0..RS_ROOM_MAX_CARS_OFFERED */
    const char *const *classes; /* class names (copied), by the name rules */
    uint32_t class_count;       /* 0..RS_PROTO_MAX_CLASSES */
    const rs_room_entry *entries; /* the entry list (copied): its players' seats are held
                                     for them */
    uint32_t entry_count;       /* 0..min(32, max_players) */
    bool entries_only;          /* nobody but the entry list may drive */
    bool free_start;            /* races do not hold the cars on their brakes before lights
                                   out (rs_world_def.start_hold false): moving early is a
                                   jump start, for race control to punish */
    rs_room_race_control race_control; /* all off by default */
    rs_room_chat_config chat;   /* 5 lines at once, 20 a minute (rs_room_config_at) */
    rs_room_vote_config votes;  /* quorum 50 %, more than 50 % yes, 30 s, 120 s cool-down */
    const char *championship;   /* the championship the room's sessions count for, sent in
                                   WEEKEND (copied; NULL or "" = none; by the name rules) */
} rs_room_config;

/* 60 Hz, 4 substeps, 3 laps, 16 players, 8 spectators, start at 16 players or
 * 10 s after the first, at most 15 s of load wait, 3 s countdown, 10 s
 * results, 60 s finish timeout, hash every 30 ticks, FRAME every 2 ticks
 * carrying 4, 120 INPUTs/s. The track, its JSON and the car stay NULL. */
rs_room_config rs_room_config_default(void);

/* The same defaults at tick_hz: every duration (lobby, countdown, load wait,
 * results, finish timeout) the same time in seconds, the input rate limit
 * two INPUTs per tick. rs_room_config_default() is rs_room_config_at(60). */
rs_room_config rs_room_config_at(uint32_t tick_hz);

/* Checks the configuration and creates a room in the lobby. Copies the
 * password; borrows the track, its JSON text and the car. Returns RS_ERR_ARG
 * for a missing track, JSON or car, RS_ERR_RANGE for a value outside its
 * range (err names it), RS_ERR_NOMEM. Caller frees with rs_room_destroy. */
rs_status rs_room_create(const rs_room_config *cfg, rs_room **out, char *err, size_t err_len);

/* Accepts NULL. */
void rs_room_destroy(rs_room *room);

/* The transport says a peer connected. peer is the transport's id for it
 * (any value, unique among connected peers; an id reused soon after its
 * peer left could receive an admission meant for the one before: the ENet
 * adapter's ids carry a generation). The peer has no seat until its HELLO
 * is admitted (rs_room_hooks.admit). A peer id already connected is
 * reset. */
void rs_room_connect(rs_room *room, uint32_t peer, int64_t now_us);

/* One packet from peer (one message, SPEC.md section 1). Decodes it and
 * acts on it; bytes that do not decode, a message the client may not send,
 * a message on the wrong channel, anything but HELLO or BYE before the
 * peer is admitted (a second HELLO too) and anything from an unknown peer
 * are dropped and counted (stats.dropped_messages), never trusted.
 * Copied; nothing is kept. */
void rs_room_receive(rs_room *room, uint32_t peer, uint8_t channel, const uint8_t *bytes,
                     size_t len, int64_t now_us);

/* The transport says peer is gone (or the room should forget it). A player's
 * seat stays reserved for a rejoin with the same name (and player id); its
 * car brakes to a stop. */
void rs_room_disconnect(rs_room *room, uint32_t peer, int64_t now_us);

/* Runs every tick that is due at now_us (ticks are due at a fixed rate from
 * the moment the race's world was created; if the caller falls far behind,
 * at most one second of ticks is run and the rest is skipped, counted in
 * stats.ticks_skipped). Queues the FRAMEs and other messages those ticks
 * produce. Never waits for a client. */
void rs_room_update(rs_room *room, int64_t now_us);

/* When the next tick is due (for the transport's wait), microseconds on the
 * caller's clock. */
int64_t rs_room_next_due_us(const rs_room *room, int64_t now_us);

/* One outgoing packet. */
typedef struct rs_room_packet {
    uint32_t peer;
    uint8_t channel;  /* RS_CH_* */
    bool reliable;
    uint16_t len;     /* <= RS_PROTO_MAX_PACKET */
    uint8_t data[RS_PROTO_MAX_PACKET];
} rs_room_packet;

/* Moves up to cap queued packets into out, oldest first; returns how many.
 * Packets for a peer are in the order the room produced them. */
size_t rs_room_poll(rs_room *room, rs_room_packet *out, size_t cap);

/* A peer asked to leave or was refused: the transport should disconnect it
 * once its queued reliable packets are out. Returns how many peer ids it
 * wrote (and forgets them). */
size_t rs_room_poll_closing(rs_room *room, uint32_t *peers, size_t cap);

/* Counters since creation. Tick times (p50/p99) are the caller's to measure
 * around rs_room_update: the room reads no clock. */
typedef struct rs_room_stats {
    uint8_t phase;            /* RS_PHASE_* */
    uint32_t race_number;     /* races started so far */
    uint64_t tick;            /* the world's tick (0 in the lobby) */
    uint64_t ticks;           /* ticks stepped since creation, all races */
    uint64_t ticks_skipped;   /* ticks dropped because the caller fell far behind */
    uint32_t players;         /* connected players */
    uint32_t spectators;      /* connected spectators */
    uint32_t max_players;     /* cfg.max_players */
    uint32_t spectator_slots; /* cfg.spectator_slots */
    uint64_t bytes_in, bytes_out;       /* message bytes (no transport headers) */
    uint64_t packets_in, packets_out;
    uint64_t dropped_messages;/* did not decode, wrong direction/channel, unknown peer */
    uint64_t rate_limited;    /* INPUTs and PINGs over max_input_rate, snapshot requests
                                 within a second of the last one: dropped */
    uint64_t inputs_used;     /* car-ticks stepped with an input received in time */
    uint64_t inputs_missing;  /* car-ticks that reused the car's previous input although its
                                 client was sending (late or lost inputs) */
    uint64_t inputs_late;     /* INPUT entries that arrived for a tick already stepped */
    uint64_t snapshots_sent;
    uint64_t desync_reports;
    uint64_t refused;
    uint64_t load_timeouts;   /* races started without every player's blocks acknowledged
                                 (cfg.load_wait_ticks ran out) */
    uint64_t requests;        /* requests handed to the request hook (or answered
                                 "unsupported"); over 10 per second per peer are answered
                                 BUSY (a TOKEN_ACK dropped) and counted in rate_limited */
} rs_room_stats;

/* Fills *out. Never fails. */
void rs_room_get_stats(const rs_room *room, rs_room_stats *out);

/* The authoritative world, read-only, or NULL in the lobby. Borrowed until
 * the next call that is not a query. */
const rs_world *rs_room_world(const rs_room *room);

/* The hash the room sent (or would send) for tick: rs_world_hash after
 * stepping it, kept for the last 4096 ticks of the current race. Returns
 * false when tick is not a hashed tick or is too old. For tests and logs. */
bool rs_room_hash_at(const rs_room *room, uint64_t tick, uint64_t *hash);

/* ------------------------------------------------- the server's controls */

/* Queues one message for a peer (channel and reliability from the message list). Returns
 * false if the peer is unknown or the message does not encode. Allowed inside hooks. */
bool rs_room_send(rs_room *room, uint32_t peer, const rs_msg *msg);

/* Completes a pending admission: the peer takes its seat (or spectator
 * slot) as player_id (0 = guest) and gets WELCOME, with token (64 hex
 * digits) in it when the admission registered the player, else NULL.
 * If no place is free any more it is refused (FULL) instead. False if the
 * peer is unknown or not waiting for admission (it left meanwhile).
 * The seat rules of the handshake apply here, checked now: the seat
 * holding the peer's name is its own only when its player is away and has
 * the same player_id (else REFUSE NAME_TAKEN). A negative player_id, or a
 * token that is not 64 hex digits or comes with player_id 0, breaks the
 * contract: the peer is refused (AUTH, "admission failed") rather than
 * sent a WELCOME that does not encode. Allowed in the admit, request and
 * after_step hooks, and between rs_room calls on the room's thread. */
bool rs_room_admit(rs_room *room, uint32_t peer, int64_t player_id, const char *token);

/* Refuses a peer waiting for admission with reason and text (REFUSE, then
 * the peer is closed). False if the peer is unknown or not waiting.
 * A reason beyond the protocol's is sent as RS_REASON_OTHER; text (NULL =
 * "") is cut to RS_PROTO_TEXT_MAX bytes. Allowed where rs_room_admit is. */
bool rs_room_refuse(rs_room *room, uint32_t peer, uint8_t reason, const char *text);

/* Closes the room to newcomers (open false) or opens it again: while it is
 * closed every HELLO is refused with reason FULL and text why (copied, cut
 * to RS_PROTO_TEXT_MAX bytes; NULL: "the server is busy: try again
 * later"). Peers already in stay. For a server that sheds load. */
void rs_room_set_open(rs_room *room, bool open, const char *why);

/* The car a seat (found by player name) drives from the next race on: the room copies
 * params (through its canonical block). tune_hash 0 = stock; base_hash is the stock car.
 * NULL params = back to the room's stock car. RS_ERR_ARG for an unknown name (or a
 * spectator), RS_ERR_NOMEM. Allowed in hooks. */
rs_status rs_room_set_seat_car(rs_room *room, const char *name, const rs_car_params *params,
                               uint64_t tune_hash);

/* Sends BYE(reason, text) to the named player's or spectator's peer and closes it; the
 * seat is freed (its car, if racing, brakes to a stop and cannot be rejoined). Returns
 * false if nobody of that name is connected. Allowed in hooks. */
bool rs_room_kick(rs_room *room, const char *name, uint8_t reason, const char *text);

/* Ends the running race now (countdown or race phase): RESULTS with unfinished cars
 * DNF, then the results phase. False in lobby/results. Allowed in hooks. */
bool rs_room_end_race(rs_room *room);

/* Uses this track from the next race on (borrowed like cfg.track; must outlive the room;
 * the JSON is borrowed too). The current race continues; in the lobby it applies at once.
 * RS_ERR_ARG for NULL, RS_ERR_RANGE when its grid has fewer slots than max_players.
 * Allowed in hooks. */
rs_status rs_room_set_track(rs_room *room, const rs_track *track, const char *track_json,
                            size_t track_json_len);

/* When defer_laps is set, LAP messages wait for this call (flags: bit 0 recorded,
 * bit 1 personal best, bit 2 track record) or go out with flags 0 after 5 s (and when
 * the race's world is destroyed). A lap not waiting is ignored. Allowed in hooks. */
void rs_room_lap_flags(rs_room *room, uint8_t car, uint32_t lap, uint8_t flags);

/* The room's name (never NULL). */
const char *rs_room_name(const rs_room *room);

/* Sends BYE(reason, text) to every peer and closes them (shutdown). */
void rs_room_close_all(rs_room *room, uint8_t reason, const char *text);

/* ---------------------------------------------- chat, votes, sessions */

/* An announcement (CHAT_MSG kind ANNOUNCE) to every peer of the room: from
 * the server's console or an administrator. False when text breaks the
 * chat rules (rs_proto_text_check). Allowed in hooks. */
bool rs_room_announce(rs_room *room, const char *text);

/* An administrator mutes the named player in this room for seconds (0 =
 * until rs_room_unmute): its chat reaches nobody. RS_ERR_ARG for a name
 * that breaks the name rules, RS_ERR_FULL when 32 mutes are in force.
 * rs_room_unmute: RS_ERR_MISSING when it was not muted. Allowed in hooks. */
rs_status rs_room_mute(rs_room *room, const char *name, uint32_t seconds);
rs_status rs_room_unmute(rs_room *room, const char *name);

/* The named player (or spectator) is an administrator: votes never kick
 * it. Set by the server once it knows (after admission). False when
 * nobody of that name is here. Allowed in hooks. */
bool rs_room_set_admin(rs_room *room, const char *name, bool admin);

/* Ends the running session now (its results as they stand; the next
 * session follows), or begins it again from its start (no results, the
 * weekend does not move on). False when no session runs (or, restart, in
 * its results). Allowed in hooks. */
bool rs_room_skip_session(rs_room *room);
bool rs_room_restart_session(rs_room *room);

/* Offered car i (0..): its stock parameters (borrowed) and class index;
 * NULL past the last. */
const rs_car_params *rs_room_offered_car(const rs_room *room, uint32_t i, uint8_t *class_index);

/* Class i's name (borrowed), NULL past the last. */
const char *rs_room_class_name(const rs_room *room, uint32_t i);

/* The offered stock car the named player's seat drives (the room's first when
 * nobody of that name is seated); borrowed. For tunes, which apply to it. */
const rs_car_params *rs_room_seat_stock_car(const rs_room *room, const char *name);

/* The room's stock car (cfg.car, borrowed) and the track the current race
 * runs on (in the lobby: the next race's), with its JSON text (borrowed;
 * json and json_len may be NULL). Never fail. */
const rs_car_params *rs_room_stock_car(const rs_room *room);
const rs_track *rs_room_track(const rs_room *room, const char **json, size_t *json_len);
/* The running (or next) session's laps, 0 for a timed one. Never fails. */
uint32_t rs_room_laps(const rs_room *room);

/* Where the room's weekend is. */
typedef struct rs_room_session_info {
    uint32_t weekend;          /* weekends begun (0 before the first) */
    uint32_t index, count;     /* the running (or next) session, of count */
    rs_proto_session_def def;  /* what it is */
    bool running;              /* its world exists */
    bool chequered;            /* its flag is out */
    int64_t time_left_us;      /* a timed session: race clock left (0 once out); -1
                                  lap-limited */
} rs_room_session_info;

/* Fills *out. Never fails. */
void rs_room_session_state(const rs_room *room, rs_room_session_info *out);

/* Session i (0 .. rs_room_session_info.count - 1) of the room's weekend, for
 * a list of them all; false past the last. */
bool rs_room_session_at(const rs_room *room, uint32_t i, rs_proto_session_def *out);

/* Who drives car (1..) of the current world: its name (borrowed until the
 * next call that is not a query), player id (0 guest) and whether its
 * player is connected; each out-pointer may be NULL. False when no world
 * runs or there is no such car. */
bool rs_room_car_driver(const rs_room *room, uint8_t car, const char **name,
                        int64_t *player_id, bool *connected);

/* ------------------------------------------------------------ race control */

/* An administrator's penalty for the named player's car in the running
 * session (countdown or running; not in the results): kind RS_PENALTY_TIME
 * with seconds 1..3600 (races only: other sessions are classified by best
 * lap) or RS_PENALTY_DSQ (seconds 0); reason (NULL = "") goes in the
 * PENALTY's text. Sent to every watcher at once; *id (may be NULL) gets its
 * id. RS_ERR_MISSING when no session runs or the player drives no car in
 * it, RS_ERR_RANGE for a kind or seconds out of range, RS_ERR_NOMEM.
 * Allowed in hooks. */
rs_status rs_room_penalty_add(rs_room *room, const char *name, uint8_t kind, uint32_t seconds,
                              const char *reason, uint32_t *id);

/* Takes back penalty id of the running session (a time penalty or a
 * disqualification, race control's or an administrator's): its effect is
 * undone and every watcher is sent PENALTY with removed set and reason as
 * its text. RS_ERR_MISSING when no session runs (countdown or running),
 * RS_ERR_ARG for an id that is unknown, a warning, or already removed.
 * Allowed in hooks. */
rs_status rs_room_penalty_remove(rs_room *room, uint32_t id, const char *reason);

/* The running session's PENALTY messages in the order they were sent
 * (removals too, repeating their penalty's id); borrowed until the next call
 * that is not a query. NULL with *count 0 when there are none. */
const rs_msg_penalty *rs_room_penalties(const rs_room *room, size_t *count);
/* ------------------------------------------------------------ results */

/* One row of a session's classification, with who and what (room_results.c). */
typedef struct rs_room_result_row {
    rs_proto_result_row row;           /* as RESULTS says it (position, class position,
                                          status, laps, finish, best lap, penalty_ms,
                                          laps led) */
    char driver[RS_PROTO_NAME_MAX + 1];
    int64_t player_id;                 /* 0 guest */
    char class_name[RS_PROTO_NAME_MAX + 1]; /* "" = the room has no classes */
    char car_name[64];                 /* the stock car it drove (rs_car_params_name) */
    uint64_t params_hash, base_hash, tune_hash;
    uint16_t number;                   /* race number, 0 none */
    bool fastest_lap;                  /* set the session's fastest valid lap (ties: the
                                          first to set it) */
} rs_room_result_row;

/* One penalty of the session as it stands (rs_room_results): given by race
 * control or an administrator, and perhaps taken back since. Warnings are
 * listed too, since the players saw them, though they count for nothing;
 * only time penalties in force add up to their row's row.penalty_ms. */
typedef struct rs_room_penalty {
    uint32_t id;                       /* 1.., its PENALTY's id */
    uint8_t car;                       /* 1..32: the row whose row.car it is */
    uint8_t kind;                      /* RS_PENALTY_* */
    uint8_t offence;                   /* RS_OFFENCE_*; RS_OFFENCE_ADMIN: an administrator
                                          gave it, any other: race control */
    uint32_t seconds;                  /* TIME: 1..3600; else 0 */
    uint64_t tick;                     /* the world's tick when it was given */
    int64_t race_time_us;              /* the race clock then (negative in a race's
                                          countdown) */
    char reason[RS_PROTO_TEXT_MAX + 1];/* its PENALTY's text */
    bool removed;                      /* taken back (only an administrator can): it counts
                                          for nothing */
    uint64_t removed_tick;             /* removed: the tick, race clock and reason of the */
    int64_t removed_race_time_us;      /* removal's PENALTY; else 0 and "" */
    char removed_reason[RS_PROTO_TEXT_MAX + 1];
} rs_room_penalty;

typedef struct rs_room_results_info {
    bool final;                        /* the session's classification (its results
                                          phase); false: the running session as it stands
                                          (a session stopped before its end) */
    uint32_t race_number;              /* RESULTS.race_number */
    uint32_t weekend;                  /* the room's weekend number (1..) */
    uint32_t session_index;            /* its place in the weekend */
    rs_proto_session_def session;      /* its type, laps or time */
    const char *room;                  /* the room's name (borrowed) */
    const rs_track *track;             /* borrowed */
    int64_t race_time_us;              /* the world's race clock */
    uint32_t count;
    rs_room_result_row rows[RS_PROTO_MAX_CARS]; /* in classification order */
    /* The session's penalties in the order they were given (one entry per
     * id, a removal folded into its penalty), each naming its car: a row's
     * penalties are those whose car is its row.car. Borrowed like the other
     * pointers (a session's list has no fixed bound, so it is not copied
     * into every info); NULL when there are none. */
    const rs_room_penalty *penalties;
    uint32_t penalty_count;
} rs_room_results_info;

/* The classification of the room's session: the finished session's (what
 * RESULTS carries) from the race_results hook until the next session
 * begins, or the running one as it stands. False when no session runs.
 * Borrowed pointers last until the next call that is not a query. */
bool rs_room_results(const rs_room *room, rs_room_results_info *out);

/* The championship the room counts for (rs_room_config.championship), ""
 * for none. */
const char *rs_room_championship(const rs_room *room);

#ifdef __cplusplus
}
#endif

#endif
