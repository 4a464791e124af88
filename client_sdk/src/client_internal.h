/*
 * The client's insides, shared by client*.c and nothing else. One struct
 * holds the whole connection; each file owns one concern:
 *   client.c          construction, dispatch of received messages, events
 *   client_world.c    the world rebuilt from PARAMS and SNAPSHOT
 *   client_frames.c   FRAMEs, INPUTs, the clock and the input lead, PING
 *   client_requests.c leaderboard, tune, admin, chat, command and standings
 *                     requests
 *   client_stats.c    statistics
 *   client_enet.c     the ENet transport and its secure session (the only file
 *                     that sees ENet)
 *   client_trust.c    whether the server's key is the one expected
 *   client_flat*.c    the flat layer for other languages (racesim/client_flat.h)
 */
#ifndef RS_CLIENT_INTERNAL_H
#define RS_CLIENT_INTERNAL_H

#include "racesim/client.h"
#include "racesim/standings.h"
#include "racesim/secure.h"

#define RS_CLIENT_HIST 512u      /* ticks of confirmed (and pending) inputs kept */
#define RS_CLIENT_EVQ 64u        /* queued events */

/* Which server key the client accepts (client_trust.c). */
typedef struct rs_client_trust {
    bool pinned;                   /* cfg server_key given */
    uint8_t pin[RS_SECURE_KEY_LEN];
    char known_hosts[1024];        /* "" = remember nothing */
    char endpoint[300];            /* "host:port" as the game named it */
} rs_client_trust;

/* The ENet side, opaque outside client_enet.c. */
typedef struct rs_client_enet rs_client_enet;

struct rs_client {
    /* configuration, strings copied */
    rs_client_config cfg;
    char name[RS_PROTO_NAME_MAX + 1];
    char token[RS_PROTO_TOKEN_LEN + 1];
    char room[RS_PROTO_NAME_MAX + 1];
    char password[RS_PROTO_SECRET_MAX + 1];

    /* transport: exactly one of custom / enet */
    bool custom;
    rs_client_transport transport;
    rs_client_enet *enet;
    bool link_up;
    bool closed_link;            /* transport close requested */

    uint8_t state;               /* rs_client_state */
    int64_t created_us, last_heard_us;

    /* the world as announced */
    bool welcomed;
    rs_msg_welcome welcome;
    bool have_race_state;
    rs_msg_race_state race_state;
    bool have_car_info[RS_PROTO_MAX_CARS];
    rs_msg_car_info car_info[RS_PROTO_MAX_CARS];
    bool have_weekend;
    rs_msg_weekend weekend;      /* the newest WEEKEND */
    rs_proto_assembler *snap_asm, *params_asm;
    uint8_t *snap;
    size_t snap_len;
    uint64_t snap_tick, snap_hash;
    uint32_t snaps_received, snap_count_at_build;
    uint32_t welcomes;           /* WELCOMEs received: each announces a world */
    uint32_t race_state_welcome; /* `welcomes` when the last RACE_STATE came: equal means it
                                    describes the WELCOME's world (the room sends it next) */
    uint32_t built_welcome;      /* `welcomes` when the world was last built */
    bool built_initial;          /* ... as the initial world of tick 0, without a snapshot */
    uint64_t initial_hash;       /* ... whose rs_world_hash was this (not for light clients) */
    int64_t snap_wait_since_us;  /* a snapshot waits for matching parameters since */
    rs_proto_blocks *blocks;     /* parameter blocks by (kind, id_hash), for the connection */

    /* the simulation */
    rs_track *track;
    rs_car_params *params[RS_PROTO_MAX_CARS];
    rs_predict *pred;
    rs_standings *board;         /* recent line crossings of the predicted world, for gaps
                                    (made with the first world; NULL: no gaps) */
    bool light;                  /* cfg.simulate false: a world's lockstep without the world */
    uint64_t light_confirmed, light_present;
    uint8_t car;
    uint32_t car_count;
    rs_input hist[RS_CLIENT_HIST][RS_PROTO_MAX_CARS]; /* confirmed inputs by tick % HIST */
    uint64_t hist_tick[RS_CLIENT_HIST];               /* tick + 1 */
    uint64_t hist_hash[RS_CLIENT_HIST];               /* the server's hash, if any */
    rs_input pend[RS_CLIENT_HIST][RS_PROTO_MAX_CARS]; /* resolved, not yet confirmed */
    uint64_t pend_tick[RS_CLIENT_HIST];
    bool pend_has_hash[RS_CLIENT_HIST];
    uint64_t pend_hash[RS_CLIENT_HIST];
    uint64_t input_ack;
    rs_input sent[RS_CLIENT_HIST];                    /* local inputs by tick */
    uint64_t sent_tick[RS_CLIENT_HIST];
    rs_input input;                                   /* rs_client_set_input */
    bool finished_emitted;

    /* the clock and the lead */
    bool calibrated;
    double clock_tick;           /* the present the client aims for */
    double rate;
    int64_t clock_us;
    int64_t next_ping_us;
    uint32_t ping_id;
    double rtt_ms, jitter_ms;
    bool have_rtt;
    int16_t lead_ms;
    bool lead_known;
    double target_lead_ms;
    int64_t jump_hold_us;
    bool held;                   /* the present waits for confirmed ticks, not the clock */
    int64_t held_feedback_us;    /* until then, FRAMEs' lead may still be of held inputs */
    int64_t backlog_next_us;
    int64_t input_sent_us;    /* when the last INPUT went out (keep-alive while stalled) */
    uint64_t input_sent_present; /* the present tick when it went out */
    int64_t snap_request_next_us;
    uint32_t late_inputs;

    /* loss estimate from the ticks FRAMEs end on */
    uint64_t loss_hi; /* the newest tick a FRAME of this world ended on */
    uint64_t loss_win_start_hi, loss_win_frames;
    uint32_t loss_step;          /* the usual spacing of FRAMEs' newest ticks */
    uint32_t loss_steps[9];      /* how often each spacing 1..8 was seen */
    int64_t loss_win_start_us;
    double loss;
    bool lossy;               /* not yet measured, or loss above 2 % (until below 1 %):
                                 INPUTs every tick */

    /* events */
    rs_client_event evq[RS_CLIENT_EVQ];
    uint32_t ev_head, ev_len;
    /* the last RESULTS and LEADERBOARD_REPLY that rs_flat_poll handed out, whose rows
       rs_flat_get_result / rs_flat_get_board_row read (the flat event has no room for
       them); count 0 before the first */
    rs_msg_results flat_results;
    rs_msg_leaderboard_reply flat_board;
    /* the same for the race weekend's events (rs_flat_get_weekend, _penalty, _chat,
       _vote, _championship_row); the have_ flags say one was polled */
    rs_msg_weekend flat_weekend;
    rs_msg_penalty flat_penalty;
    rs_msg_chat_msg flat_chat;
    rs_msg_vote_state flat_vote;
    rs_msg_standings_reply flat_standings;
    bool have_flat_weekend, have_flat_penalty, have_flat_chat, have_flat_vote;

    /* requests */
    uint32_t next_request_id;

    /* counters; predictor totals of worlds already destroyed are folded in */
    uint64_t frames, frames_unresolvable, inputs_sent, malformed, events_dropped;
    uint64_t bytes_in, bytes_out, packets_in, packets_out, snapshots;
    uint64_t old_rollbacks, old_desyncs, old_hashes;
    int64_t malformed_event_next_us;
};

/* A world to follow: simulated (pred) or light. */
static inline bool rs_client__has_world(const rs_client *c)
{
    return c->pred != NULL || c->light;
}

static inline uint64_t rs_client__confirmed(const rs_client *c)
{
    return c->pred ? rs_predict_confirmed_tick(c->pred) : c->light_confirmed;
}

static inline uint64_t rs_client__present(const rs_client *c)
{
    return c->pred ? rs_predict_present_tick(c->pred) : c->light_present;
}

/* client.c */
rs_client_event *rs_client__push_event(rs_client *c, uint8_t type);
void rs_client__error(rs_client *c, uint8_t code, uint64_t tick, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
bool rs_client__send(rs_client *c, const rs_msg *m);
void rs_client__close(rs_client *c, uint8_t reason, const char *text, bool send_bye);
void rs_client__handle_packet(rs_client *c, uint8_t channel, const uint8_t *bytes, size_t len,
                              int64_t now_us);
void rs_client__link_up(rs_client *c, int64_t now_us);
void rs_client__link_down(rs_client *c, int64_t now_us);

/* client_world.c */
void rs_client__world_reset(rs_client *c);
void rs_client__world_free(rs_client *c);
void rs_client__on_params(rs_client *c, const rs_msg_params *p);
void rs_client__on_snapshot(rs_client *c, const rs_msg_snapshot *s);
void rs_client__try_build(rs_client *c, int64_t now_us);

/* client_frames.c */
void rs_client__on_frame(rs_client *c, const rs_msg_frame *f, int64_t now_us);
void rs_client__on_pong(rs_client *c, const rs_msg_pong *p, int64_t now_us);
void rs_client__drive(rs_client *c, int64_t now_us);
void rs_client__request_snapshot(rs_client *c, uint8_t reason, int64_t now_us);

/* client_trust.c: RS_CLIENT_ERR_ARG (message in err) for a malformed
 * server_key or an overlong known_hosts path. */
rs_client_status rs_client__trust_init(rs_client_trust *t, const rs_client_config *cfg,
                                       const char *host, uint16_t port, char *err,
                                       size_t err_len);
/* How the server's key is trusted, or RS_CLIENT_KEY_NONE with the reason in
 * why when it must be refused. A first visit is remembered in known_hosts. */
rs_client_key_trust rs_client__trust_check(const rs_client_trust *t,
                                           const uint8_t key[RS_SECURE_KEY_LEN], char *why,
                                           size_t why_len);

/* client_enet.c */
rs_client_status rs_client__enet_open(rs_client *c, const char *host, uint16_t port,
                                      int64_t now_us, char *err, size_t err_len);
void rs_client__enet_service(rs_client *c, int64_t now_us);
bool rs_client__enet_send(rs_client *c, uint8_t channel, bool reliable, const uint8_t *bytes,
                          size_t len);
void rs_client__enet_flush(rs_client *c);
void rs_client__enet_close(rs_client *c);
void rs_client__enet_destroy(rs_client *c);
void rs_client__enet_wire(const rs_client *c, rs_client_stats *out);
int rs_client__enet_fd(const rs_client *c);
int64_t rs_client__enet_next_us(const rs_client *c, int64_t now_us);

#endif
