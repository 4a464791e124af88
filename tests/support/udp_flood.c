/*
 * The spoofed-connect flood (udp_flood.h). The datagram is written byte by
 * byte at the offsets of ENet's packed protocol structures (enet/protocol.h,
 * checked below at compile time), in network byte order as ENet writes it
 * with ENET_HOST_TO_NET_16/32; connectID is opaque to ENet (sent as is), so
 * its byte order does not matter. The field values are those an ENet 1.3.17
 * client puts in its first CONNECT (enet_host_connect): peer 0 of its host,
 * session ids 0xFF, MTU 1400, the largest window, 4 channels, no bandwidth
 * limits, the default throttle.
 *
 * Pacing: the thread wakes every millisecond and sends what the rate owes
 * since the start, so the average rate holds even when a wake-up is late.
 */
#define _POSIX_C_SOURCE 200809L

#include "udp_flood.h"
#include "racesim/base/clock.h"
#include "splitmix64.h"
#include "worker_thread.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <enet/protocol.h>

/* The layout the writer below assumes (ENet 1.3's packed structures). */
_Static_assert(sizeof(ENetProtocolHeader) == 4, "ENet header with sent time is 4 bytes");
_Static_assert(sizeof(ENetProtocolConnect) == 48, "ENetProtocolConnect is 48 bytes");
_Static_assert(offsetof(ENetProtocolConnect, outgoingPeerID) == 4, "layout");
_Static_assert(offsetof(ENetProtocolConnect, mtu) == 8, "layout");
_Static_assert(offsetof(ENetProtocolConnect, channelCount) == 16, "layout");
_Static_assert(offsetof(ENetProtocolConnect, connectID) == 40, "layout");
_Static_assert(offsetof(ENetProtocolConnect, data) == 44, "layout");
_Static_assert(UDP_FLOOD_DATAGRAM_BYTES == sizeof(ENetProtocolHeader) + sizeof(ENetProtocolConnect),
               "datagram size");

struct udp_flood {
    struct sockaddr_in target;
    udp_flood_config cfg;
    int *fds;
    uint32_t *sends; /* sends since each socket was opened */
    uint64_t rng;
    worker_thread worker; /* its lock guards stats */
    udp_flood_stats stats;
};

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

udp_flood_config udp_flood_config_default(void)
{
    udp_flood_config c = {5000, 64, 50, true, 1};
    return c;
}

void udp_flood_build_connect(uint8_t out[UDP_FLOOD_DATAGRAM_BYTES], uint16_t sent_time,
                             uint32_t connect_id, uint32_t data)
{
    /* Protocol header: no peer yet, and a sent time follows. */
    put16(out, (uint16_t)(ENET_PROTOCOL_MAXIMUM_PEER_ID | ENET_PROTOCOL_HEADER_FLAG_SENT_TIME));
    put16(out + 2, sent_time);
    uint8_t *c = out + 4;
    c[0] = (uint8_t)(ENET_PROTOCOL_COMMAND_CONNECT | ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE);
    c[1] = 0xFF;        /* channelID: connection commands use 0xFF */
    put16(c + 2, 1);    /* reliableSequenceNumber: the peer's first reliable command */
    put16(c + 4, 0);    /* outgoingPeerID: the sender's peer slot 0 */
    c[6] = 0xFF;        /* incomingSessionID, as after enet_peer_reset */
    c[7] = 0xFF;        /* outgoingSessionID */
    put32(c + 8, 1400); /* mtu: ENET_HOST_DEFAULT_MTU */
    put32(c + 12, ENET_PROTOCOL_MAXIMUM_WINDOW_SIZE);
    put32(c + 16, 4);               /* channelCount: RS_CH_COUNT */
    put32(c + 20, 0);               /* incomingBandwidth: unlimited */
    put32(c + 24, 0);               /* outgoingBandwidth */
    put32(c + 28, 5000);            /* packetThrottleInterval (ENet's default) */
    put32(c + 32, 2);               /* packetThrottleAcceleration */
    put32(c + 36, 2);               /* packetThrottleDeceleration */
    memcpy(c + 40, &connect_id, 4); /* opaque to ENet, sent without conversion */
    put32(c + 44, data);
}

/* Opens socket i on 127.0.0.(2..250) with a port the kernel picks. */
static bool open_socket(udp_flood *f, uint32_t i)
{
    if (f->fds[i] >= 0)
        close(f->fds[i]);
    f->fds[i] = socket(AF_INET, SOCK_DGRAM, 0);
    if (f->fds[i] < 0)
        return false;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(0x7F000000u | (uint32_t)(2 + splitmix64_next(&f->rng) % 249));
    if (bind(f->fds[i], (const struct sockaddr *)&a, sizeof a) != 0) {
        close(f->fds[i]);
        f->fds[i] = -1;
        return false;
    }
    f->sends[i] = 0;
    pthread_mutex_lock(&f->worker.lock);
    f->stats.sockets_opened++;
    pthread_mutex_unlock(&f->worker.lock);
    return true;
}

static void *flood_main(void *arg)
{
    udp_flood *f = arg;
    int64_t start = rs_clock_us();
    uint64_t done = 0;
    uint32_t next = 0;
    while (!worker_stopping(&f->worker)) {
        int64_t now = rs_clock_us();
        uint64_t owed = (uint64_t)(now - start) * f->cfg.rate_per_s / 1000000u;
        uint64_t sent = 0, errors = 0;
        for (; done < owed; done++) {
            uint32_t i = next++ % f->cfg.sockets;
            if ((f->fds[i] < 0 || (f->cfg.reopen_every && f->sends[i] >= f->cfg.reopen_every)) &&
                !open_socket(f, i)) {
                errors++;
                continue;
            }
            uint8_t dgram[UDP_FLOOD_DATAGRAM_BYTES];
            uint64_t r = splitmix64_next(&f->rng);
            uint32_t data = f->cfg.random_data ? (uint32_t)(r >> 32) : 0;
            udp_flood_build_connect(dgram, (uint16_t)(now / 1000), (uint32_t)r, data);
            ssize_t n = sendto(f->fds[i], dgram, sizeof dgram, MSG_DONTWAIT,
                               (const struct sockaddr *)&f->target, sizeof f->target);
            f->sends[i]++;
            if (n == (ssize_t)sizeof dgram)
                sent++;
            else
                errors++;
        }
        pthread_mutex_lock(&f->worker.lock);
        f->stats.sent += sent;
        f->stats.send_errors += errors;
        pthread_mutex_unlock(&f->worker.lock);
        rs_sleep_us(1000);
    }
    return NULL;
}

void udp_flood_destroy(udp_flood *f)
{
    if (!f)
        return;
    worker_finish(&f->worker);
    if (f->fds)
        for (uint32_t i = 0; i < f->cfg.sockets; i++)
            if (f->fds[i] >= 0)
                close(f->fds[i]);
    free(f->fds);
    free(f->sends);
    free(f);
}

udp_flood *udp_flood_create(const char *target_host, uint16_t target_port,
                            const udp_flood_config *cfg)
{
    udp_flood *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    worker_init(&f->worker);
    f->cfg = cfg ? *cfg : udp_flood_config_default();
    if (f->cfg.sockets == 0 || f->cfg.sockets > 1024) {
        fprintf(stderr, "udp_flood: sockets must be 1..1024\n");
        goto fail;
    }
    f->rng = f->cfg.seed;
    f->fds = malloc(f->cfg.sockets * sizeof *f->fds);
    f->sends = calloc(f->cfg.sockets, sizeof *f->sends);
    if (!f->fds || !f->sends)
        goto fail;
    for (uint32_t i = 0; i < f->cfg.sockets; i++)
        f->fds[i] = -1;
    memset(&f->target, 0, sizeof f->target);
    f->target.sin_family = AF_INET;
    f->target.sin_port = htons(target_port);
    if (inet_pton(AF_INET, target_host, &f->target.sin_addr) != 1) {
        fprintf(stderr, "udp_flood: %s is not a dotted IPv4 address\n", target_host);
        goto fail;
    }
    if (!worker_start(&f->worker, flood_main, f, "udp_flood"))
        goto fail;
    return f;
fail:
    udp_flood_destroy(f);
    return NULL;
}

void udp_flood_get_stats(udp_flood *f, udp_flood_stats *out)
{
    worker_locked_copy(&f->worker, out, &f->stats, sizeof *out);
}
