/*
 * A room and real SDK clients in one process, for tests/test_room.c,
 * tests/test_services.c and tests/test_client.c.
 *
 * Every client is an rs_client (racesim/client.h) made with
 * rs_client_create_custom: the SDK speaks the whole protocol (HELLO, the
 * world rebuilt from PARAMS and SNAPSHOT, PING/PONG, INPUTs, FRAMEs,
 * prediction and rollback). An AI client is an rs_bot (racesim/bot.h)
 * driving with the AI driver on the predicted world; a light one is a light
 * rs_bot; a plain one holds whatever rs_client_set_input gave it.
 *
 * The harness owns only what the SDK has no business with:
 * - the virtual clock: time moves when the test calls harness_step;
 * - the link: packets are queued with a delivery time on that clock. An
 *   optional seeded impairment drops (at random and in bursts), delays,
 *   jitters, duplicates and reorders unreliable packets; reliable channels
 *   arrive complete and in order per connection and channel, as ENet
 *   delivers them. A connection closed by either end closes after its
 *   reliable packets are out;
 * - the scene: the oval and the stock car, the room, clients joining,
 *   dropping and rejoining;
 * - observation: the events each client raised, and how long its present
 *   and confirmed ticks stood still while the room raced.
 */
#ifndef RS_ROOM_HARNESS_H
#define RS_ROOM_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "racesim/bot.h"
#include "racesim/client.h"
#include "racesim/room.h"
#include "test_data.h"

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

/* How a client drives its car. */
typedef enum harness_driver {
    HARNESS_AI = 0, /* an AI rs_bot */
    HARNESS_LIGHT,  /* a light rs_bot (pair with cfg.simulate = false for a light client) */
    HARNESS_PLAIN   /* a bare rs_client: rs_client_set_input, or neutral */
} harness_driver;

/* One past the last rs_client_event_type (the race weekend's events come
 * after DISCONNECTED in the enum). */
#define HARNESS_EVENT_TYPES (RS_CLIENT_EV_STANDINGS + 1)

/* The events a client raised on its current connection. */
typedef struct harness_events {
    uint32_t count[HARNESS_EVENT_TYPES];
    rs_client_event last[HARNESS_EVENT_TYPES];
} harness_events;

typedef struct harness_client_stats {
    rs_client_stats sdk;        /* rs_client_get_stats at the harness's clock */
    rs_bot_stats bot;           /* laps heard, results, line builds (zero for a plain client) */
    int64_t max_present_gap_us; /* longest time the present did not advance while racing */
    int64_t max_confirm_gap_us; /* longest time no new tick was confirmed while racing */
} harness_client_stats;

/* Sees every packet the room sends to a client before the link carries it,
 * and may rewrite it in place (a server that misbehaves). */
typedef void (*harness_tamper_fn)(void *ctx, rs_room_packet *p);

/* cmocka group set-up and teardown: *state becomes the room tests' scene,
 * the oval and the stock c5 (test_scene_load, no racing line: the AI bots
 * build their own from what the room sends), and is freed again. */
int harness_scene_setup(void **state);
int harness_scene_teardown(void **state);

/* A room on the scene's track (its JSON for the clients) with its stock car,
 * whose race starts once start_players have joined; every other setting is
 * rs_room_config_default's. */
rs_room_config harness_room_config(const test_scene *s, uint32_t start_players);

/* A player as the room tests configure one: the SDK's defaults, but aiming
 * its input lead at lead_ms with no margin of ticks on top (more only when
 * the jitter it measures asks for it): every tick of lead is one more tick
 * to re-simulate per rollback, and the tests run many clients. name is
 * borrowed, as by rs_client_config. */
rs_client_config harness_player(const char *name, uint32_t lead_ms);

typedef struct harness harness;

/* A room from cfg behind a link with impairment imp (NULL: perfect; a packet
 * arrives at the next step). No clients yet. */
harness *harness_create(const rs_room_config *cfg, const harness_impair *imp);
void harness_destroy(harness *h);

/* Adds a client that connects at once with cfg (copied, strings too; used
 * again by harness_client_rejoin) and drives as driver. Returns its index. */
uint32_t harness_add_client(harness *h, const rs_client_config *cfg, harness_driver driver);

/* Advances the virtual clock by step_us: due deliveries, the room's update,
 * every client's update and events. */
void harness_step(harness *h, int64_t step_us);

/* The room neither steps nor sends until until_us (packets still reach
 * it): a server starved of CPU. */
void harness_room_pause(harness *h, int64_t until_us);

int64_t harness_now(const harness *h);
rs_room *harness_room(harness *h);

/* Client i's SDK client (for requests, queries and stats); borrowed until
 * its next rejoin or harness_destroy. */
rs_client *harness_client(harness *h, uint32_t i);
/* Client i's bot (NULL for a plain client); borrowed like harness_client. */
rs_bot *harness_bot(harness *h, uint32_t i);
void harness_client_stats_get(harness *h, uint32_t i, harness_client_stats *out);
const harness_events *harness_client_events(const harness *h, uint32_t i);

/* Removes client i's oldest kept event of this type into *out (may be
 * NULL); false when there is none. Every event is kept but SECTOR and
 * COLLISION, which are only counted. */
bool harness_client_take(harness *h, uint32_t i, uint8_t type, rs_client_event *out);

/* The link drops client i's connection at once, both ends told, packets in
 * flight lost (as a cable pulled out). */
void harness_client_drop(harness *h, uint32_t i);
/* Client i connects again as a new SDK client with cfg (NULL: the same as
 * before), on a new connection and a fresh record of events; what was left
 * of the old connection is dropped. */
void harness_client_rejoin(harness *h, uint32_t i, const rs_client_config *cfg);
/* True while neither end has closed client i's connection. */
bool harness_client_linked(const harness *h, uint32_t i);

/* Reliable channel `channel` from the room to client i delivers nothing
 * before until_us, then everything held, in order: a lost packet that ENet
 * retransmits with a doubling timeout holds up its channel like this on a
 * lossy route. */
void harness_client_stall(harness *h, uint32_t i, uint8_t channel, int64_t until_us);

/* fn (NULL: none) sees every packet the room sends to client i from now on. */
void harness_client_tamper(harness *h, uint32_t i, harness_tamper_fn fn, void *ctx);

#endif
