/*
 * A spoofed-connect flood for tests of the server's stateless connect check
 * (SPEC.md section 7): a thread sends forged ENet CONNECT datagrams, laid
 * out exactly as ENet 1.3 writes its own (a 4-byte header with peer id
 * ENET_PROTOCOL_MAXIMUM_PEER_ID and a sent time, then one CONNECT command
 * asking for an acknowledgement), at a target rate, from many sockets bound
 * to 127.0.0.2..127.0.0.250 (Linux routes all of 127/8 to loopback) whose
 * ports the kernel picks and which are re-opened every few sends, so the
 * server sees a stream of new source addresses (rate / reopen_every new
 * ones per second: 100/s by default).
 *
 * The CONNECT's data field (where the real client puts its cookie) is 0 or
 * random, never a cookie the server issued (a random one matches with
 * chance 2^-32, and only for the address it was issued to, which the
 * flood never asked for).
 *
 * The thread is the flood's own; the functions here are called from one
 * other thread. IPv4 only.
 */
#ifndef RS_UDP_FLOOD_H
#define RS_UDP_FLOOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Size of one forged datagram: ENet's header with sent time (4) plus
 * ENetProtocolConnect (48). */
#define UDP_FLOOD_DATAGRAM_BYTES 52u

typedef struct udp_flood_config {
    uint32_t rate_per_s;   /* target datagrams per second. Usually 5000 */
    uint32_t sockets;      /* source sockets open at once, 1..1024. Usually 64 */
    uint32_t reopen_every; /* re-open a socket on a new address and port after this many
                              sends from it (0 = never). Usually 50 */
    bool random_data;      /* data field random (true) or 0 */
    uint64_t seed;
} udp_flood_config;

/* rate 5000/s, 64 sockets, reopen every 50, random data, generator seed = 1. */
udp_flood_config udp_flood_config_default(void);

typedef struct udp_flood_stats {
    uint64_t sent;        /* datagrams the kernel accepted */
    uint64_t send_errors; /* e.g. buffer full */
    uint64_t sockets_opened;
} udp_flood_stats;

typedef struct udp_flood udp_flood;

/* Starts flooding target_host:target_port (dotted IPv4). cfg copied; NULL
 * means defaults. Returns NULL on error (message on stderr). Stop and free
 * with udp_flood_destroy. */
udp_flood *udp_flood_create(const char *target_host, uint16_t target_port,
                            const udp_flood_config *cfg);

/* Stops the thread and closes its sockets. Accepts NULL. */
void udp_flood_destroy(udp_flood *f);

/* A consistent copy of the counters. Never fails. */
void udp_flood_get_stats(udp_flood *f, udp_flood_stats *out);

/* Writes one forged CONNECT (UDP_FLOOD_DATAGRAM_BYTES bytes) into out.
 * Exposed so tests can check the layout and feed it to a parser directly. */
void udp_flood_build_connect(uint8_t out[UDP_FLOOD_DATAGRAM_BYTES], uint16_t sent_time,
                             uint32_t connect_id, uint32_t data);

#endif
