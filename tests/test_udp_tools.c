/*
 * Self-tests of the network adversity tools in tests/support: the UDP
 * impairment relay (udp_relay) and the spoofed-connect flood (udp_flood),
 * run over real loopback sockets against plain UDP sockets, so the tests
 * that use them against the server can trust what they configure.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <enet/protocol.h>

#include "udp_flood.h"
#include "udp_relay.h"
#include "racesim/base/clock.h"

/* A UDP socket on 127.0.0.1 at a kernel-chosen port, with a big buffer. */
static int open_udp(uint16_t *port)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    int size = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static struct sockaddr_in loopback(uint16_t port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    return a;
}

/* A probe datagram: sequence number and send time. */
typedef struct probe {
    uint32_t seq;
    int64_t sent_us;
} probe;

typedef struct relay_run {
    uint32_t n;
    uint8_t *seen; /* per seq: copies the server received */
    uint32_t distinct, copies, echoes;
    int64_t min_up_us, min_rtt_us;
    udp_relay_stats stats;
} relay_run;

/* Sends n probes through a relay with params and seed to a plain server
 * socket that echoes each copy back; collects what arrived where. */
static void run_relay(const udp_relay_params *params, uint64_t seed, uint32_t n, relay_run *out)
{
    uint16_t server_port, client_port, relay_port = 0;
    int server = open_udp(&server_port);
    int client = open_udp(&client_port);
    udp_relay *r = udp_relay_create("127.0.0.1", server_port, params, seed, &relay_port);
    assert_non_null(r);
    assert_true(relay_port != 0);
    struct sockaddr_in relay_addr = loopback(relay_port);

    memset(out, 0, sizeof *out);
    out->n = n;
    out->seen = calloc(n, 1);
    out->min_up_us = out->min_rtt_us = INT64_MAX;

    uint32_t next = 0;
    int64_t quiet_since = 0;
    for (;;) {
        int64_t now = rs_clock_us();
        /* One probe every 100 us: fast, but not a burst the kernel drops. */
        if (next < n) {
            probe p = {next++, now};
            uint8_t b[sizeof p];
            memcpy(b, &p, sizeof p);
            assert_int_equal(
                sendto(client, b, sizeof b, 0, (struct sockaddr *)&relay_addr, sizeof relay_addr),
                (ssize_t)sizeof b);
        }
        bool got = false;
        uint8_t b[64];
        struct sockaddr_in from;
        socklen_t flen = sizeof from;
        ssize_t len;
        while ((len = recvfrom(server, b, sizeof b, MSG_DONTWAIT, (struct sockaddr *)&from,
                               &flen)) > 0) {
            got = true;
            probe p;
            assert_int_equal(len, (ssize_t)sizeof p);
            memcpy(&p, b, sizeof p);
            assert_true(p.seq < n);
            if (out->seen[p.seq]++ == 0)
                out->distinct++;
            out->copies++;
            int64_t lat = rs_clock_us() - p.sent_us;
            if (lat < out->min_up_us)
                out->min_up_us = lat;
            /* Echo to whoever sent it: the relay's upstream socket. */
            sendto(server, b, (size_t)len, 0, (struct sockaddr *)&from, flen);
            flen = sizeof from;
        }
        while ((len = recv(client, b, sizeof b, MSG_DONTWAIT)) > 0) {
            got = true;
            probe p;
            memcpy(&p, b, sizeof p);
            out->echoes++;
            int64_t rtt = rs_clock_us() - p.sent_us;
            if (rtt < out->min_rtt_us)
                out->min_rtt_us = rtt;
        }
        if (next >= n) {
            if (got || quiet_since == 0)
                quiet_since = now;
            else if (now - quiet_since > 300000)
                break; /* nothing for 300 ms after the last probe: all delivered */
        }
        rs_sleep_us(100);
    }
    udp_relay_get_stats(r, &out->stats);
    udp_relay_destroy(r);
    close(server);
    close(client);
}

static void test_relay_drops_delays_and_duplicates_as_configured(void **state)
{
    (void)state;
    const udp_relay_params p = {
        .up = {.loss = 0.10, .delay_us = 20000, .jitter_us = 2000, .dup = 0.02},
        .down = {.delay_us = 5000},
    };
    relay_run run;
    run_relay(&p, 42, 5000, &run);

    double loss = 1.0 - (double)run.distinct / 5000.0;
    printf("loss %.4f, copies %u of %u distinct, min one-way %lld us, min rtt %lld us\n", loss,
           run.copies, run.distinct, (long long)run.min_up_us, (long long)run.min_rtt_us);
    assert_true(loss > 0.085 && loss < 0.115);
    /* The relay's own count agrees with what arrived: nothing lost elsewhere. */
    assert_int_equal(run.stats.up.received, 5000);
    assert_int_equal(run.stats.up.dropped, 5000 - run.distinct);
    assert_int_equal(run.copies, run.distinct + run.stats.up.duplicated);
    assert_true(run.stats.up.duplicated > 40 && run.stats.up.duplicated < 160);
    assert_int_equal(run.stats.up.forwarded, run.copies);
    /* Never early: delay minus jitter one way, plus the way back. */
    assert_true(run.min_up_us >= 18000);
    assert_true(run.min_rtt_us >= 18000 + 5000);
    /* The way back is unimpaired: every copy comes home. */
    assert_int_equal(run.echoes, run.copies);
    assert_int_equal(run.stats.down.dropped, 0);
    assert_int_equal(run.stats.clients, 1);
    free(run.seen);
}

static void test_relay_decisions_repeat_with_the_seed(void **state)
{
    (void)state;
    const udp_relay_params p = {
        .up = {.loss = 0.2, .burst_chance = 0.01, .burst_len = 8, .dup = 0.05},
    };
    relay_run a, b, c;
    run_relay(&p, 7, 1500, &a);
    run_relay(&p, 7, 1500, &b);
    run_relay(&p, 8, 1500, &c);
    assert_memory_equal(a.seen, b.seen, 1500);
    assert_memory_not_equal(a.seen, c.seen, 1500);
    /* Bursts: some runs of at least 8 consecutive losses. */
    uint32_t run_len = 0, long_runs = 0;
    for (uint32_t i = 0; i < 1500; i++) {
        run_len = a.seen[i] ? 0 : run_len + 1;
        if (run_len == 8)
            long_runs++;
    }
    assert_true(long_runs >= 3);
    free(a.seen);
    free(b.seen);
    free(c.seen);
}

static void test_relay_reorders_with_extra_delay(void **state)
{
    (void)state;
    uint16_t server_port, client_port, relay_port = 0;
    int server = open_udp(&server_port);
    int client = open_udp(&client_port);
    const udp_relay_params p = {.up = {.reorder = 0.2, .reorder_us = 3000}};
    udp_relay *r = udp_relay_create("127.0.0.1", server_port, &p, 3, &relay_port);
    assert_non_null(r);
    struct sockaddr_in ra = loopback(relay_port);
    for (uint32_t i = 0; i < 500; i++) {
        sendto(client, &i, sizeof i, 0, (struct sockaddr *)&ra, sizeof ra);
        rs_sleep_us(200);
    }
    rs_sleep_us(100000);
    uint32_t got = 0, inversions = 0, last = 0, v;
    while (recv(server, &v, sizeof v, MSG_DONTWAIT) == (ssize_t)sizeof v) {
        if (got++ > 0 && v < last)
            inversions++;
        last = v;
    }
    udp_relay_destroy(r);
    close(server);
    close(client);
    assert_int_equal(got, 500);
    assert_true(inversions >= 10);
}

static void test_relay_gives_each_client_its_own_upstream_address(void **state)
{
    (void)state;
    uint16_t server_port, p1, p2, relay_port = 0;
    int server = open_udp(&server_port);
    int c1 = open_udp(&p1), c2 = open_udp(&p2);
    udp_relay *r = udp_relay_create("localhost", server_port, NULL, 1, &relay_port);
    assert_non_null(r);
    struct sockaddr_in ra = loopback(relay_port);
    uint8_t one = 1, two = 2;
    sendto(c1, &one, 1, 0, (struct sockaddr *)&ra, sizeof ra);
    sendto(c2, &two, 1, 0, (struct sockaddr *)&ra, sizeof ra);

    struct sockaddr_in from[3];
    uint8_t which[3];
    uint32_t n = 0;
    int64_t end = rs_clock_us() + 1000000;
    while (n < 2 && rs_clock_us() < end) {
        struct pollfd pf = {server, POLLIN, 0};
        if (poll(&pf, 1, 50) <= 0)
            continue;
        socklen_t fl = sizeof from[n];
        if (recvfrom(server, &which[n], 1, 0, (struct sockaddr *)&from[n], &fl) == 1)
            n++;
    }
    assert_int_equal(n, 2);
    assert_true(from[0].sin_port != from[1].sin_port);
    /* Replies go back to the client that sent on that upstream. */
    for (uint32_t i = 0; i < 2; i++) {
        uint8_t reply = (uint8_t)(which[i] + 10);
        sendto(server, &reply, 1, 0, (struct sockaddr *)&from[i], sizeof from[i]);
    }
    int fds[2] = {c1, c2};
    for (int k = 0; k < 2; k++) {
        struct pollfd pf = {fds[k], POLLIN, 0};
        assert_true(poll(&pf, 1, 1000) == 1);
        uint8_t b = 0;
        assert_int_equal(recv(fds[k], &b, 1, 0), 1);
        assert_int_equal(b, 11 + k);
    }
    udp_relay_stats st;
    udp_relay_get_stats(r, &st);
    assert_int_equal(st.clients, 2);
    udp_relay_destroy(r);
    close(server);
    close(c1);
    close(c2);
}

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* What the server's connect check (SPEC.md section 7) reads: a peer-less
 * header with a sent time and a first command CONNECT; returns its data. */
static bool parse_connect(const uint8_t *b, size_t len, uint32_t *data)
{
    if (len != sizeof(ENetProtocolHeader) + sizeof(ENetProtocolConnect))
        return false;
    uint16_t peer = be16(b);
    if ((peer & ENET_PROTOCOL_MAXIMUM_PEER_ID) != ENET_PROTOCOL_MAXIMUM_PEER_ID ||
        !(peer & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME) ||
        (peer & ENET_PROTOCOL_HEADER_FLAG_COMPRESSED))
        return false;
    const uint8_t *c = b + sizeof(ENetProtocolHeader);
    if ((c[0] & ENET_PROTOCOL_COMMAND_MASK) != ENET_PROTOCOL_COMMAND_CONNECT ||
        !(c[0] & ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE))
        return false;
    uint32_t channels = be32(c + offsetof(ENetProtocolConnect, channelCount));
    uint32_t mtu = be32(c + offsetof(ENetProtocolConnect, mtu));
    if (channels < ENET_PROTOCOL_MINIMUM_CHANNEL_COUNT ||
        channels > ENET_PROTOCOL_MAXIMUM_CHANNEL_COUNT || mtu < ENET_PROTOCOL_MINIMUM_MTU ||
        mtu > ENET_PROTOCOL_MAXIMUM_MTU)
        return false;
    *data = be32(c + offsetof(ENetProtocolConnect, data));
    return true;
}

static void test_flood_sends_enet_connects_at_its_rate_from_many_addresses(void **state)
{
    (void)state;
    uint16_t port;
    int sink = open_udp(&port);
    udp_flood_config cfg = udp_flood_config_default();
    cfg.rate_per_s = 5000;
    cfg.seed = 99;
    int64_t t0 = rs_clock_us();
    udp_flood *f = udp_flood_create("127.0.0.1", port, &cfg);
    assert_non_null(f);

    enum { MAX_SOURCES = 4096 };
    static struct sockaddr_in sources[MAX_SOURCES];
    uint32_t n_sources = 0, received = 0, malformed = 0, nonzero_data = 0;
    uint32_t ips[256] = {0};
    while (rs_clock_us() - t0 < 1000000) {
        struct pollfd pf = {sink, POLLIN, 0};
        if (poll(&pf, 1, 10) <= 0)
            continue;
        uint8_t b[128];
        struct sockaddr_in from;
        socklen_t fl = sizeof from;
        ssize_t len;
        while ((len = recvfrom(sink, b, sizeof b, MSG_DONTWAIT, (struct sockaddr *)&from, &fl)) >
               0) {
            fl = sizeof from;
            received++;
            uint32_t data;
            if (!parse_connect(b, (size_t)len, &data)) {
                malformed++;
                continue;
            }
            nonzero_data += data != 0;
            ips[ntohl(from.sin_addr.s_addr) & 0xFF] = 1;
            bool known = false;
            for (uint32_t i = 0; i < n_sources && !known; i++)
                known = sources[i].sin_addr.s_addr == from.sin_addr.s_addr &&
                        sources[i].sin_port == from.sin_port;
            if (!known && n_sources < MAX_SOURCES)
                sources[n_sources++] = from;
        }
    }
    /* The thread publishes its count after each batch: wait for the batch
     * that sent the last datagram received. */
    rs_sleep_us(50000);
    udp_flood_stats st;
    udp_flood_get_stats(f, &st);
    udp_flood_destroy(f);
    close(sink);
    uint32_t distinct_ips = 0;
    for (int i = 0; i < 256; i++)
        distinct_ips += ips[i];
    printf("flood: sent %llu, received %u in 1 s, %u sources, %u addresses\n",
           (unsigned long long)st.sent, received, n_sources, distinct_ips);
    assert_int_equal(malformed, 0);
    assert_true(received >= 4000 && received <= 5500);
    assert_true(st.sent >= received);
    assert_true(n_sources >= 60);
    assert_true(distinct_ips >= 30);
    assert_true(nonzero_data > received / 2);
}

static void test_flood_datagram_matches_what_enet_writes(void **state)
{
    (void)state;
    uint8_t d[UDP_FLOOD_DATAGRAM_BYTES];
    udp_flood_build_connect(d, 0x1234, 0xA1B2C3D4u, 0);
    uint32_t data = 1;
    assert_true(parse_connect(d, sizeof d, &data));
    assert_int_equal(data, 0);
    assert_int_equal(be16(d), 0x8FFF);     /* peer 0xFFF with the sent-time flag */
    assert_int_equal(be16(d + 2), 0x1234); /* sent time */
    assert_int_equal(d[4], 0x82);          /* CONNECT | ACKNOWLEDGE */
    assert_int_equal(d[5], 0xFF);          /* channel 0xFF */
    assert_int_equal(be32(d + 4 + 16), 4); /* channel count */
    d[4] = ENET_PROTOCOL_COMMAND_PING | ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE;
    assert_false(parse_connect(d, sizeof d, &data));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flood_datagram_matches_what_enet_writes),
        cmocka_unit_test(test_relay_drops_delays_and_duplicates_as_configured),
        cmocka_unit_test(test_relay_decisions_repeat_with_the_seed),
        cmocka_unit_test(test_relay_reorders_with_extra_delay),
        cmocka_unit_test(test_relay_gives_each_client_its_own_upstream_address),
        cmocka_unit_test(test_flood_sends_enet_connects_at_its_rate_from_many_addresses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
