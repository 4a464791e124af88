/*
 * A room and its clients in one process, for tests/test_room.c.
 *
 * The transport is in memory and runs on a virtual clock: packets are
 * queued with a delivery time and delivered when the test advances the
 * clock. An optional seeded impairment layer drops (at random and in
 * bursts), delays, jitters, duplicates and reorders unreliable packets;
 * reliable channels arrive complete and in order per peer and channel, as
 * ENet delivers them. Unreliable channels are unsequenced (protocol
 * version 2): a late or duplicated packet is delivered as it comes.
 *
 * Each test client speaks the protocol as a game would through the SDK:
 * HELLO, then it rebuilds the room's world from WELCOME, RACE_STATE, the
 * PARAMS blocks (car parameter blocks and track JSON) and the SNAPSHOT,
 * calibrates its clock with PING/PONG, and then drives with the AI driver
 * through a predictor (client_sdk's rs_predict), sending INPUTs for its
 * present tick (the last unacknowledged ones repeated) and confirming the
 * ticks FRAMEs carry, in order, with a history of confirmed inputs for
 * FRAME baselines. Its clock follows the room's input_lead_ms feedback.
 */
#ifndef RS_ROOM_HARNESS_H
#define RS_ROOM_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "racesim/driver.h"
#include "racesim/predict.h"
#include "racesim/room.h"

typedef struct harness_impair {
    double loss;          /* random loss of unreliable packets, 0..1 */
    double burst_chance;  /* chance per unreliable packet that a burst starts */
    uint32_t burst_len;   /* packets lost in a burst */
    int64_t delay_us;     /* one way */
    int64_t jitter_us;    /* +- uniform */
    double dup;           /* duplication chance */
    double reorder;       /* chance of an extra delay of up to reorder_us (reordering) */
    int64_t reorder_us;
    uint64_t seed;
} harness_impair;

typedef struct harness_client_stats {
    uint64_t frames, frames_unresolvable, hashes_checked, desyncs;
    uint64_t confirmed_tick, present_tick;
    uint64_t inputs_sent_packets;
    int64_t max_present_gap_us;   /* longest time the present did not advance while racing */
    int64_t max_confirm_gap_us;   /* longest time no new tick was confirmed while racing */
    uint32_t laps_heard;          /* LAP messages for its own car */
    bool results;                 /* RESULTS received */
    int16_t last_lead_ms;
    uint32_t rollbacks, depth_max;
} harness_client_stats;

typedef struct harness harness;

/* A room from cfg and n clients (the first n_spectators of them spectate)
 * joined through a link with impairment imp (NULL: perfect and instant).
 * line is the AI's racing line for the room's track and car (immutable,
 * shared). lead_target_ms: the input lead the clients aim for. */
harness *harness_create(const rs_room_config *cfg, uint32_t n, uint32_t n_spectators,
                        const harness_impair *imp, const rs_racing_line *line,
                        double lead_target_ms);
void harness_destroy(harness *h);

/* Advances the virtual clock by step_us: deliveries, the room's update,
 * every client's update. */
void harness_step(harness *h, int64_t step_us);

int64_t harness_now(const harness *h);
rs_room *harness_room(harness *h);
void harness_client_stats_get(harness *h, uint32_t i, harness_client_stats *out);

/* Disconnects client i (the transport drops the link) / connects it again
 * with the same name. */
void harness_client_drop(harness *h, uint32_t i);
void harness_client_rejoin(harness *h, uint32_t i);
/* The car the room gave client i in the current world (0 = none). */
uint8_t harness_client_car(const harness *h, uint32_t i);

/* Adds a client that says HELLO as name with token (NULL or "" = none) and
 * flags (RS_HELLO_SPECTATOR, RS_HELLO_REGISTER), and returns its index. It
 * drives like the others, and keeps the control messages it receives
 * (WELCOME, REFUSE, BYE, LAP, CAR_INFO, RESULTS and the replies) for
 * harness_client_take. */
uint32_t harness_add_client(harness *h, const char *name, const char *token, uint8_t flags);
/* What client i says in its next HELLO (harness_client_rejoin). */
void harness_client_identity(harness *h, uint32_t i, const char *name, const char *token,
                             uint8_t flags);
/* Sends m from client i (on its channel), if it is connected. */
void harness_client_send(harness *h, uint32_t i, const rs_msg *m);
/* Removes the oldest kept message of this type into *out (may be NULL);
 * false when there is none. */
bool harness_client_take(harness *h, uint32_t i, uint8_t type, rs_msg *out);

#endif
