/*
 * A seeded UDP impairment relay for tests that run real sockets (ENet) over
 * loopback: clients send to the relay's port instead of the server's, and
 * the relay forwards each datagram after dropping, delaying, jittering,
 * duplicating or reordering it, in both directions.
 *
 * Each client source address gets its own upstream socket, so the server
 * sees one distinct address per client (its connect cookie, SPEC.md section
 * 7, is bound to that address) and replies reach the right client.
 *
 * Impairment decisions come from a seeded generator per direction, drawn in
 * the order packets arrive in that direction, so a given packet sequence
 * gets the same fate on every run. The timing of delivery follows the wall
 * clock (monotonic) and is as precise as the relay thread's wake-ups (well
 * under a millisecond late on an idle machine; never early).
 *
 * The relay runs in its own thread; every function here is called from the
 * test's thread. IPv4 only.
 */
#ifndef RS_UDP_RELAY_H
#define RS_UDP_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The impairments of one direction. All zero: a plain forwarder. */
typedef struct udp_relay_dir {
    double loss;         /* chance a datagram is dropped, 0..1 */
    double burst_chance; /* chance per datagram that a burst of losses starts */
    uint32_t burst_len;  /* datagrams dropped by one burst (this one included) */
    int64_t delay_us;    /* one-way delay */
    int64_t jitter_us;   /* uniform in [-jitter, +jitter] added to the delay (never below 0) */
    double dup;          /* chance a datagram is sent twice (the copy jitters on its own) */
    double reorder;      /* chance of an extra delay, uniform in [0, reorder_us], which lets
                             later datagrams overtake this one */
    int64_t reorder_us;
} udp_relay_dir;

typedef struct udp_relay_params {
    udp_relay_dir up;   /* client -> server */
    udp_relay_dir down; /* server -> client */
} udp_relay_params;

/* Counters of one direction since creation. */
typedef struct udp_relay_dir_stats {
    uint64_t received;   /* datagrams that reached the relay */
    uint64_t forwarded;  /* datagrams sent on (duplicates included) */
    uint64_t dropped;    /* by loss or burst */
    uint64_t duplicated; /* extra copies scheduled */
    uint64_t send_errors;
} udp_relay_dir_stats;

typedef struct udp_relay_stats {
    udp_relay_dir_stats up, down;
    uint32_t clients; /* distinct client addresses seen */
} udp_relay_stats;

/* One client's traffic, for telling a silent server from a silent relay. */
typedef struct udp_relay_client_stats {
    uint16_t client_port;      /* the client's source port */
    uint16_t upstream_port;    /* the relay's socket for it: the server sees this port */
    uint64_t up_received, down_received;  /* datagrams that reached the relay */
    uint64_t down_forwarded;   /* datagrams sent on to the client (copies included) */
    int64_t down_received_ago_us, down_forwarded_ago_us; /* -1: never */
} udp_relay_client_stats;

typedef struct udp_relay udp_relay;

/* Starts a relay listening on 127.0.0.1 at a port the kernel picks
 * (written to *listen_port) that forwards to server_host:server_port
 * (a dotted IPv4 address or a name that resolves to one). params is
 * copied; NULL means no impairment. Returns NULL on error (socket, thread
 * or memory; a message goes to stderr). Free with udp_relay_destroy. */
udp_relay *udp_relay_create(const char *server_host, uint16_t server_port,
                            const udp_relay_params *params, uint64_t seed, uint16_t *listen_port);

/* Stops the thread, drops what is still queued and closes every socket.
 * Accepts NULL. */
void udp_relay_destroy(udp_relay *r);

/* A consistent copy of the counters. Never fails. */
void udp_relay_get_stats(udp_relay *r, udp_relay_stats *out);

/* Client i (0 .. stats.clients - 1, in order of first sight); false if
 * there is no such client. */
bool udp_relay_get_client_stats(udp_relay *r, uint32_t i, udp_relay_client_stats *out);

/* Replaces the impairments from now on (queued datagrams keep their
 * times). Copied. Lets a test start clean and impair a running race. */
void udp_relay_set_params(udp_relay *r, const udp_relay_params *params);

/* ------------------------------------------------- recording, injecting */

/* One datagram as it reached the relay. */
typedef struct udp_relay_datagram {
    bool up;            /* client -> server */
    uint32_t client;    /* the client's index (udp_relay_get_client_stats) */
    uint16_t len;
    uint8_t *bytes;     /* owned by the relay */
} udp_relay_datagram;

/* Starts (on) or stops recording every datagram that reaches the relay,
 * in both directions, before impairment. At most UDP_RELAY_RECORD_MAX are
 * kept; more are counted but not kept. */
#define UDP_RELAY_RECORD_MAX 200000u
void udp_relay_record(udp_relay *r, bool on);

/* The recorded datagrams: calls fn for each in arrival order until it
 * returns false. Returns how many reached the relay while recording (kept
 * or not). Recording must be off. */
uint64_t udp_relay_each_recorded(udp_relay *r,
                                 bool (*fn)(void *ctx, const udp_relay_datagram *d), void *ctx);

/* Sends bytes to the server at once from client i's upstream socket, as
 * an attacker on the path who can forge that client's source address
 * would. False if there is no such client or the send failed. */
bool udp_relay_inject_up(udp_relay *r, uint32_t client, const uint8_t *bytes, size_t len);

#endif
