/*
 * The server's ENet adapter (server/net): the connect cookie of
 * protocol/SPEC.md section 7 as pure functions, then over real loopback
 * sockets: a raw ENet client that does the cookie exchange and the key
 * exchange of section 8 by hand and says HELLO to a room behind the adapter
 * gets a WELCOME; CONNECTs without a valid cookie never get an ENet peer;
 * and every datagram or packet the adapter refuses (junk, forgeries,
 * replays, silent peers, too many peers from one address, old clients) is
 * counted by reason and never reaches the room.
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

#include <cmocka.h>
#include <enet/enet.h>

#include "racesim/net_cookie.h"
#include "test_data.h"
#include "racesim/net.h"
#include "racesim/protocol.h"
#include "racesim/room.h"
#include "racesim/secure.h"
#include "raw_client.h"
#include "racesim/track.h"
#include "racesim/base/clock.h"

/* ------------------------------------------------------------ the cookie */

static rs_cookie_key ref_key(void)
{
    /* The key of the SipHash paper's test vectors: bytes 00..0f. */
    rs_cookie_key k = {UINT64_C(0x0706050403020100), UINT64_C(0x0f0e0d0c0b0a0908)};
    return k;
}

static void test_siphash_matches_the_papers_vectors(void **state)
{
    (void)state;
    rs_cookie_key k = ref_key();
    uint8_t msg[64];
    for (unsigned i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)i;
    /* Aumasson and Bernstein, appendix A: 15 bytes 00..0e. */
    assert_true(rs_siphash24(&k, msg, 15) == UINT64_C(0xa129ca6149be45e5));
    /* The reference implementation's vectors.h, empty input and 8 bytes. */
    assert_true(rs_siphash24(&k, msg, 0) == UINT64_C(0x726fdb47dd0e0e31));
    assert_true(rs_siphash24(&k, msg, 8) == UINT64_C(0x93f5f5799a932462));
}

static void test_cookie_is_valid_now_and_one_epoch_back_only(void **state)
{
    (void)state;
    rs_cookie_key k = {0x1234, 0x5678};
    uint32_t ip = 0x0100007f; /* 127.0.0.1 as ENetAddress.host holds it on little-endian */
    uint32_t c = rs_cookie_make(&k, ip, 40000, 1000);
    assert_true(c != 0);
    assert_true(rs_cookie_valid(&k, ip, 40000, 1000, c));
    assert_true(rs_cookie_valid(&k, ip, 40000, 1001, c));
    assert_false(rs_cookie_valid(&k, ip, 40000, 1002, c));
    assert_false(rs_cookie_valid(&k, ip, 40000, 999, c));
    assert_false(rs_cookie_valid(&k, ip, 40000, 1000, 0));
    /* The epoch is 30 s of the monotonic clock. */
    assert_int_equal(rs_cookie_epoch(0), 0);
    assert_int_equal(rs_cookie_epoch(29999999), 0);
    assert_int_equal(rs_cookie_epoch(30000000), 1);
}

static void test_cookie_is_bound_to_address_port_and_key(void **state)
{
    (void)state;
    rs_cookie_key k = {0x1234, 0x5678}, other = {0x1234, 0x5679};
    uint32_t ip = 0x0100007f;
    uint32_t c = rs_cookie_make(&k, ip, 40000, 7);
    assert_false(rs_cookie_valid(&k, ip, 40001, 7, c));
    assert_false(rs_cookie_valid(&k, 0x0200007f, 40000, 7, c));
    assert_false(rs_cookie_valid(&other, ip, 40000, 7, c));
    /* Different addresses get different cookies (no collisions in a small sample). */
    uint32_t seen[256];
    for (unsigned i = 0; i < 256; i++) {
        seen[i] = rs_cookie_make(&k, ip, (uint16_t)(50000 + i), 7);
        assert_true(seen[i] != 0);
        for (unsigned j = 0; j < i; j++)
            assert_true(seen[i] != seen[j]);
    }
}

static void test_cookie_request_and_reply_have_the_spec_layout(void **state)
{
    (void)state;
    uint8_t req[RS_COOKIE_REQ_LEN] = {0};
    memcpy(req, "RSCKREQ1", 8);
    assert_true(rs_cookie_is_request(req, 48));
    assert_false(rs_cookie_is_request(req, 47));
    req[7] = '2';
    assert_false(rs_cookie_is_request(req, 48));
    uint8_t rep[RS_COOKIE_REP_LEN];
    rs_cookie_reply(0xa1b2c3d4u, rep);
    assert_memory_equal(rep, "RSCKREP1", 8);
    assert_int_equal(rep[8], 0xd4);
    assert_int_equal(rep[11], 0xa1);
    assert_int_equal(rep[12] | rep[13] | rep[14] | rep[15], 0);
    assert_true(RS_COOKIE_REP_LEN < RS_COOKIE_REQ_LEN); /* no amplification */
}

static void test_random_keys_differ(void **state)
{
    (void)state;
    rs_cookie_key a, b;
    assert_true(rs_cookie_key_random(&a));
    assert_true(rs_cookie_key_random(&b));
    assert_false(a.k0 == b.k0 && a.k1 == b.k1);
}

/* ------------------------------------------------- the adapter over ENet */

typedef struct loop {
    rs_net *net;
    rs_room *room;
    test_scene scene; /* the oval and the c5 */
    ENetHost *client;
    ENetAddress server;
    rs_secure_identity identity;
    uint64_t received; /* RECEIVE events the adapter delivered */
    uint32_t peer;     /* the last peer the adapter announced */
} loop;

static int loop_open(void **state, uint32_t max_clients, uint32_t max_per_address,
                     uint32_t socket_buffer_kib)
{
    loop *l = calloc(1, sizeof *l);
    char err[512] = "";
    if (!l || !test_scene_load("oval", "c5", false, &l->scene))
        return -1;
    rs_room_config rc = rs_room_config_default();
    rc.track = l->scene.track;
    rc.track_json = l->scene.json;
    rc.track_json_len = l->scene.json_len;
    rc.car = l->scene.car;
    rc.max_players = 4;
    if (rs_room_create(&rc, &l->room, err, sizeof err) != RS_OK)
        return -1;
    uint8_t seed[RS_SECURE_KEY_LEN];
    if (!rs_secure_random(seed, sizeof seed) ||
        rs_secure_identity_from_seed(seed, &l->identity) != RS_SECURE_OK)
        return -1;
    rs_net_config nc = rs_net_config_default();
    nc.bind_address = "127.0.0.1";
    nc.port = 0;
    nc.max_clients = max_clients;
    nc.max_per_address = max_per_address;
    nc.handshake_ms = 400;
    nc.socket_buffer_kib = socket_buffer_kib;
    nc.identity = &l->identity;
    if (rs_net_create(&nc, &l->net, err, sizeof err) != RS_OK) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    l->client = enet_host_create(NULL, 1, RS_CH_COUNT, 0, 0);
    if (!l->client)
        return -1;
    enet_address_set_host(&l->server, "127.0.0.1");
    l->server.port = rs_net_port(l->net);
    *state = l;
    return 0;
}

static int loop_setup(void **state)
{
    return loop_open(state, 8, 3, 0);
}

/* A LAN party's server: twenty connections allowed from one address. */
static int loop_setup_lan(void **state)
{
    return loop_open(state, 32, 20, 0);
}

/* The smallest receive buffer a server may ask for (the kernel grants
 * 128 KiB of its own accounting: a couple of hundred small datagrams). */
static int loop_setup_small_socket(void **state)
{
    return loop_open(state, 8, 3, 64);
}

static int loop_teardown(void **state)
{
    loop *l = *state;
    if (l->client)
        enet_host_destroy(l->client);
    rs_net_destroy(l->net);
    rs_room_destroy(l->room);
    test_scene_free(&l->scene);
    free(l);
    return 0;
}

/* One turn of the server side: the adapter's events into the room, the
 * room's packets out. */
static void server_turn(loop *l)
{
    rs_net_event ev;
    int64_t t = rs_clock_us();
    while (rs_net_service(l->net, 1, &ev) > 0) {
        if (ev.type == RS_NET_EVENT_CONNECT) {
            l->peer = ev.peer;
            rs_room_connect(l->room, ev.peer, t);
        } else if (ev.type == RS_NET_EVENT_RECEIVE) {
            l->received++;
            rs_room_receive(l->room, ev.peer, ev.channel, ev.data, ev.len, t);
        }
        else if (ev.type == RS_NET_EVENT_DISCONNECT)
            rs_room_disconnect(l->room, ev.peer, t);
    }
    rs_room_update(l->room, t);
    static rs_room_packet pk[64];
    size_t n;
    while ((n = rs_room_poll(l->room, pk, 64)) > 0)
        for (size_t i = 0; i < n; i++)
            assert_true(rs_net_send(l->net, pk[i].peer, pk[i].channel, pk[i].reliable,
                                    pk[i].data, pk[i].len));
}

static void send_cookie_request(loop *l, size_t len)
{
    uint8_t req[64] = {0};
    memcpy(req, "RSCKREQ1", 8);
    ENetBuffer b = {.data = req, .dataLength = len};
    assert_true(enet_socket_send(l->client->socket, &l->server, &b, 1) == (int)len);
}

/* Waits up to timeout_ms for a datagram on the client's raw socket while
 * the server runs; returns its length (0 = none). */
static int raw_receive(loop *l, uint8_t *buf, size_t cap, int timeout_ms)
{
    int64_t until = rs_clock_us() + (int64_t)timeout_ms * 1000;
    while (rs_clock_us() < until) {
        server_turn(l);
        ENetAddress from;
        ENetBuffer b = {.data = buf, .dataLength = cap};
        int n = enet_socket_receive(l->client->socket, &from, &b, 1);
        if (n > 0)
            return n;
    }
    return 0;
}

static void pump(void *ctx)
{
    server_turn(ctx);
}

static void connect_raw(loop *l, raw_client *c, bool offer_keys)
{
    assert_true(raw_client_open(c, l->server.port, pump, l));
    c->offer_keys = offer_keys;
}

/* The raw client says HELLO once the session is up; true once welcomed. */
static bool hello_welcome(loop *l, raw_client *c, const char *name)
{
    (void)l;
    static rs_msg m;
    if (!raw_client_wait_secure(c, 3000))
        return false;
    raw_client_hello(c, name, "");
    return raw_client_wait(c, RS_MSG_WELCOME, &m, 3000);
}

static void test_hello_through_the_adapter_gets_a_welcome(void **state)
{
    loop *l = *state;
    send_cookie_request(l, RS_COOKIE_REQ_LEN);
    uint8_t rep[64];
    int n = raw_receive(l, rep, sizeof rep, 2000);
    assert_int_equal(n, RS_COOKIE_REP_LEN); /* smaller than the 48-byte request */
    assert_memory_equal(rep, "RSCKREP1", 8);

    raw_client c;
    connect_raw(l, &c, true);
    assert_true(hello_welcome(l, &c, "tester"));
    assert_true(c.connected);
    assert_true(c.secure);
    rs_net_stats st;
    rs_net_get_stats(l->net, &st);
    assert_true(st.cookies_issued >= 2);
    assert_int_equal(st.handshakes, 1);
    assert_int_equal(st.peers_connected, 1);
    assert_true(st.bytes_in > 0 && st.bytes_out > 0 && st.packets_in > 0 && st.packets_out > 0);
    for (int r = 0; r < RS_NET_DROP_COUNT; r++)
        assert_true(st.drops[r] == 0);
    rs_room_stats rs;
    rs_room_get_stats(l->room, &rs);
    assert_int_equal(rs.players, 1);
    raw_client_close(&c);
}

static void test_forged_and_replayed_packets_never_reach_the_room(void **state)
{
    loop *l = *state;
    raw_client c;
    connect_raw(l, &c, true);
    assert_true(hello_welcome(l, &c, "victim"));
    static rs_msg m;
    raw_client_poll(&c, 200, &m);
    uint64_t delivered = l->received;

    /* What an attacker who can put packets on this ENet peer (its address,
     * peer id and session are visible on the path) may try: a plaintext
     * PING, one sealed under other keys, a replayed sealed packet, and
     * junk on every channel. */
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_PING;
    m.u.ping.id = 7;
    uint8_t plain[64], sealed[128];
    size_t len = 0, n = 0;
    assert_int_equal(rs_proto_encode(&m, plain, sizeof plain, &len, NULL), RS_PROTO_OK);
    raw_client_send_bytes(&c, RS_CH_FRAME, plain, len);
    rs_secure_session other = c.session;
    memset(other.tx_key, 1, sizeof other.tx_key);
    assert_int_equal(rs_secure_seal(&other, RS_CH_FRAME, plain, len, sealed, sizeof sealed, &n),
                     RS_SECURE_OK);
    raw_client_send_bytes(&c, RS_CH_FRAME, sealed, n);
    assert_int_equal(rs_secure_seal(&c.session, RS_CH_FRAME, plain, len, sealed, sizeof sealed,
                                    &n),
                     RS_SECURE_OK);
    raw_client_send_bytes(&c, RS_CH_FRAME, sealed, n); /* genuine */
    raw_client_send_bytes(&c, RS_CH_FRAME, sealed, n); /* and its replay */
    const uint8_t junk[40] = {0xde, 0xad, 0xbe, 0xef};
    for (uint8_t ch = 0; ch < RS_CH_COUNT; ch++)
        raw_client_send_bytes(&c, ch, junk, sizeof junk);
    bool pong = false;
    int64_t until = rs_clock_us() + 1000000;
    while (!pong && rs_clock_us() < until)
        pong = raw_client_poll(&c, 10, &m) && m.type == RS_MSG_PONG && m.u.pong.id == 7;
    raw_client_poll(&c, 200, &m);

    rs_net_stats st;
    rs_net_get_stats(l->net, &st);
    /* plaintext, wrong keys, 4 x junk (one of them a reliable one the
     * counter reads as far ahead): all fail authentication; the replay is
     * caught before. Only the genuine PING got through: its PONG came back
     * and the session goes on. */
    assert_int_equal(st.drops[RS_NET_DROP_AUTH] + st.drops[RS_NET_DROP_MALFORMED], 6);
    assert_int_equal(st.drops[RS_NET_DROP_REPLAY], 1);
    assert_true(pong);
    assert_true(l->received >= delivered + 1);
    assert_int_equal(st.peers_connected, 1);
    raw_client_close(&c);
}

static void test_a_peer_that_never_offers_keys_is_dropped(void **state)
{
    loop *l = *state;
    raw_client c;
    static rs_msg m;
    connect_raw(l, &c, false);
    raw_client_poll(&c, 200, &m);
    assert_true(c.connected); /* ENet's connection is up, the session is not */
    rs_net_stats st;
    rs_net_get_stats(l->net, &st);
    assert_int_equal(st.peers_connected, 0);
    assert_int_equal(st.peers_in_use, 1);
    raw_client_poll(&c, 800, &m); /* past handshake_ms (400) and a sweep */
    rs_net_get_stats(l->net, &st);
    assert_int_equal(st.drops[RS_NET_DROP_HANDSHAKE_TIMEOUT], 1);
    assert_int_equal(st.peers_in_use, 0);
    assert_int_equal(l->received, 0);
    raw_client_close(&c);
}

static void test_an_old_client_is_refused_in_words(void **state)
{
    loop *l = *state;
    raw_client c;
    static rs_msg m;
    connect_raw(l, &c, false);
    int64_t until = rs_clock_us() + 2000000;
    while (!c.connected && rs_clock_us() < until)
        raw_client_poll(&c, 10, &m);
    assert_true(c.connected);
    /* A version 3 client says HELLO in the clear first. */
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_HELLO;
    m.u.hello.protocol_version = RS_PROTO_VERSION;
    m.u.hello.physics_version = RS_PHYSICS_VERSION;
    snprintf(m.u.hello.name, sizeof m.u.hello.name, "old");
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    buf[1] = 3; /* the frozen version field */
    raw_client_send_bytes(&c, RS_CH_CONTROL, buf, len);
    assert_true(raw_client_wait(&c, RS_MSG_REFUSE, &m, 2000));
    assert_int_equal(m.u.refuse.reason, RS_REASON_VERSION);
    assert_non_null(strstr(m.u.refuse.text, "3"));
    rs_net_stats st;
    rs_net_get_stats(l->net, &st);
    assert_int_equal(st.drops[RS_NET_DROP_VERSION], 1);
    assert_int_equal(st.peers_connected, 0);
    raw_client_close(&c);
}

static void test_one_address_gets_at_most_its_share_of_peers(void **state)
{
    loop *l = *state;
    enum { N = 5 }; /* the loop allows 3 per address */
    raw_client c[N];
    static rs_msg m;
    for (int i = 0; i < N; i++)
        connect_raw(l, &c[i], true);
    int64_t until = rs_clock_us() + 1500000;
    while (rs_clock_us() < until)
        for (int i = 0; i < N; i++)
            raw_client_poll(&c[i], 0, &m);
    int secure = 0;
    for (int i = 0; i < N; i++)
        secure += c[i].secure;
    rs_net_stats st;
    rs_net_get_stats(l->net, &st);
    assert_int_equal(secure, 3);
    assert_int_equal(st.peers_connected, 3);
    assert_true(st.peers_in_use <= 3);
    for (int i = 0; i < N; i++)
        raw_client_close(&c[i]);
}

/* Serves until n datagrams more than in *before were refused or lost, for
 * 3 s at most: the count (every reason), with the stats in *after. */
static uint64_t serve_until_dropped(loop *l, const rs_net_stats *before, uint64_t n,
                                    rs_net_stats *after)
{
    int64_t until = rs_clock_us() + 3000000;
    uint64_t total = 0;
    while (total < n && rs_clock_us() < until) {
        server_turn(l);
        rs_net_get_stats(l->net, after);
        total = 0;
        for (int r = 0; r < RS_NET_DROP_COUNT; r++)
            total += after->drops[r] - before->drops[r];
    }
    return total;
}

static void test_junk_datagrams_are_all_counted(void **state)
{
    loop *l = *state;
    enum { N = 2000 };
    uint64_t x = 0x9e3779b97f4a7c15u;
    rs_net_stats before, after;
    rs_net_get_stats(l->net, &before);
    for (int i = 0; i < N; i++) {
        uint8_t d[64];
        size_t len = 1 + (size_t)(i % 63);
        for (size_t k = 0; k < len; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            d[k] = (uint8_t)x;
        }
        if (len >= 4 && memcmp(d, "RSCK", 4) == 0)
            d[0] = 0;
        ENetBuffer b = {.data = d, .dataLength = len};
        assert_true(enet_socket_send(l->client->socket, &l->server, &b, 1) == (int)len);
        if (i % 100 == 0)
            server_turn(l);
    }
    uint64_t total = serve_until_dropped(l, &before, N, &after);
    assert_int_equal(total, N);
    assert_int_equal(after.peers_in_use, 0);
    assert_int_equal(l->received, 0);
}

/* Datagrams that arrive while the server is not reading wait in its
 * socket's buffer; once that is full the kernel drops them, and those are
 * counted too (socket_full): 4000 datagrams sent while the server stands
 * still are all accounted for, the ones it read as refused (too short to
 * be ENet's), the rest as lost to the full buffer. */
static void test_a_full_socket_loses_datagrams_and_counts_them(void **state)
{
    loop *l = *state;
    enum { N = 4000 };
    rs_net_stats before, after;
    rs_net_get_stats(l->net, &before);
    assert_true(before.socket_buffer_kib >= 64);
    for (int i = 0; i < N; i++) {
        uint8_t d[1] = {(uint8_t)i}; /* shorter than any ENet header */
        ENetBuffer b = {.data = d, .dataLength = sizeof d};
        assert_true(enet_socket_send(l->client->socket, &l->server, &b, 1) == (int)sizeof d);
    }
    uint64_t total = serve_until_dropped(l, &before, N, &after);
    uint64_t full = after.drops[RS_NET_DROP_SOCKET_FULL] - before.drops[RS_NET_DROP_SOCKET_FULL];
    uint64_t read = after.drops[RS_NET_DROP_SHORT] - before.drops[RS_NET_DROP_SHORT];
    printf("[socket full] %d sent: %llu read and refused, %llu lost to the full buffer "
           "(%u KiB)\n",
           N, (unsigned long long)read, (unsigned long long)full,
           (unsigned)after.socket_buffer_kib);
    assert_int_equal(total, N);
    assert_true(full > 0);
    assert_true(read > 0);
    assert_int_equal(read + full, N);
    assert_string_equal(rs_net_drop_name(RS_NET_DROP_SOCKET_FULL), "socket_full");
}

/* Runs the server for ms milliseconds while the client's host services. */
static void run_both(loop *l, int ms, bool *client_connected)
{
    int64_t until = rs_clock_us() + (int64_t)ms * 1000;
    while (rs_clock_us() < until) {
        server_turn(l);
        ENetEvent e;
        while (enet_host_service(l->client, &e, 1) > 0)
            if (e.type == ENET_EVENT_TYPE_CONNECT)
                *client_connected = true;
    }
}

static void test_connect_without_a_valid_cookie_gets_no_peer(void **state)
{
    loop *l = *state;
    bool connected = false;
    /* No cookie at all (data 0), then a made-up one. */
    assert_non_null(enet_host_connect(l->client, &l->server, RS_CH_COUNT, 0));
    run_both(l, 600, &connected);
    rs_net_stats st;
    rs_net_get_stats(l->net, &st);
    assert_false(connected);
    assert_int_equal(st.peers_in_use, 0);
    assert_int_equal(st.peers_connected, 0);
    assert_true(st.drops[RS_NET_DROP_COOKIE] >= 1);
    uint64_t rejected = st.drops[RS_NET_DROP_COOKIE];

    enet_host_destroy(l->client);
    l->client = enet_host_create(NULL, 1, RS_CH_COUNT, 0, 0);
    assert_non_null(l->client);
    assert_non_null(enet_host_connect(l->client, &l->server, RS_CH_COUNT, 0x12345678u));
    run_both(l, 600, &connected);
    rs_net_get_stats(l->net, &st);
    assert_false(connected);
    assert_int_equal(st.peers_in_use, 0);
    assert_true(st.drops[RS_NET_DROP_COOKIE] > rejected);
}

static void test_malformed_cookie_request_gets_no_reply(void **state)
{
    loop *l = *state;
    send_cookie_request(l, RS_COOKIE_REQ_LEN - 1);
    send_cookie_request(l, RS_COOKIE_REQ_LEN + 1);
    uint8_t rep[64];
    assert_int_equal(raw_receive(l, rep, sizeof rep, 300), 0);
    rs_net_stats st;
    rs_net_get_stats(l->net, &st);
    assert_int_equal(st.cookies_issued, 0);
    assert_int_equal(st.drops[RS_NET_DROP_COOKIE_REQUEST], 2);
    assert_int_equal(st.peers_in_use, 0);
}

/* Sends n cookie requests at once; how many got a reply. */
static int cookie_requests_answered(loop *l, int n)
{
    for (int i = 0; i < n; i++)
        send_cookie_request(l, RS_COOKIE_REQ_LEN);
    uint8_t rep[64];
    int replies = 0;
    while (raw_receive(l, rep, sizeof rep, 300) == RS_COOKIE_REP_LEN)
        replies++;
    return replies;
}

static void test_cookie_requests_are_limited_per_address(void **state)
{
    loop *l = *state;
    assert_int_equal(cookie_requests_answered(l, 20), 8);
    rs_net_stats st;
    rs_net_get_stats(l->net, &st);
    assert_int_equal(st.cookies_issued, 8);
    assert_int_equal(st.drops[RS_NET_DROP_COOKIE_RATE], 12);
    /* The budget refills: a second later the address is served again. */
    rs_sleep_us(600000);
    send_cookie_request(l, RS_COOKIE_REQ_LEN);
    uint8_t rep[64];
    assert_int_equal(raw_receive(l, rep, sizeof rep, 1000), RS_COOKIE_REP_LEN);
}

/* Everyone behind one router may join at the same moment: the burst
 * follows max_per_address. */
static void test_an_address_allowed_more_connections_may_ask_as_many_at_once(void **state)
{
    loop *l = *state;
    assert_int_equal(cookie_requests_answered(l, 30), 20);
    rs_net_stats st;
    rs_net_get_stats(l->net, &st);
    assert_int_equal(st.drops[RS_NET_DROP_COOKIE_RATE], 10);
}

static void test_a_cookie_for_another_address_is_refused(void **state)
{
    loop *l = *state;
    /* Ask from one socket, connect from another: the cookie names the
     * first one's port, so the second cannot use it. */
    send_cookie_request(l, RS_COOKIE_REQ_LEN);
    uint8_t rep[64];
    assert_int_equal(raw_receive(l, rep, sizeof rep, 2000), RS_COOKIE_REP_LEN);
    uint32_t cookie = (uint32_t)rep[8] | (uint32_t)rep[9] << 8 | (uint32_t)rep[10] << 16 |
                      (uint32_t)rep[11] << 24;
    enet_host_destroy(l->client);
    l->client = enet_host_create(NULL, 1, RS_CH_COUNT, 0, 0);
    assert_non_null(l->client);
    assert_non_null(enet_host_connect(l->client, &l->server, RS_CH_COUNT, cookie));
    bool connected = false;
    run_both(l, 600, &connected);
    rs_net_stats st;
    rs_net_get_stats(l->net, &st);
    assert_false(connected);
    assert_int_equal(st.peers_in_use, 0);
    assert_true(st.drops[RS_NET_DROP_COOKIE] >= 1);
}

static void test_create_refuses_bad_settings_with_a_message(void **state)
{
    (void)state;
    char err[256] = "";
    rs_net *a = NULL, *b = NULL;
    rs_net_config nc = rs_net_config_default();
    nc.bind_address = "127.0.0.1";
    nc.port = 0;
    assert_int_equal(rs_net_create(&nc, &a, err, sizeof err), RS_ERR_ARG); /* no key */
    assert_non_null(strstr(err, "key"));
    rs_secure_identity id;
    uint8_t seed[RS_SECURE_KEY_LEN] = {0};
    assert_int_equal(rs_secure_identity_from_seed(seed, &id), RS_SECURE_OK);
    nc.identity = &id;
    nc.max_clients = 0;
    assert_int_equal(rs_net_create(&nc, &a, err, sizeof err), RS_ERR_RANGE);
    assert_null(a);
    assert_non_null(strstr(err, "max_clients"));
    nc.max_clients = 4;
    nc.max_per_address = 5;
    assert_int_equal(rs_net_create(&nc, &a, err, sizeof err), RS_ERR_RANGE);
    assert_non_null(strstr(err, "max_per_address"));
    nc.max_per_address = 4;
    nc.socket_buffer_kib = 63;
    assert_int_equal(rs_net_create(&nc, &a, err, sizeof err), RS_ERR_RANGE);
    assert_non_null(strstr(err, "socket_buffer_kib"));
    nc.socket_buffer_kib = 0; /* the default */
    assert_int_equal(rs_net_create(&nc, &a, err, sizeof err), RS_OK);
    rs_net_stats st;
    rs_net_get_stats(a, &st);
    assert_true(st.socket_buffer_kib > 0); /* what the kernel granted: capped or not */
    nc.port = rs_net_port(a); /* taken now */
    assert_int_equal(rs_net_create(&nc, &b, err, sizeof err), RS_ERR_IO);
    assert_null(b);
    char port[16];
    snprintf(port, sizeof port, "%u", (unsigned)nc.port);
    assert_non_null(strstr(err, port));
    rs_net_destroy(a);
}

/* ENet PINGs in the datagrams a client receives: how many datagrams held
 * one, and how many held nothing else (counted by an ENet intercept that
 * leaves every datagram to ENet). */
static int pings_with, pings_alone;

static size_t be16(const uint8_t *p)
{
    return (size_t)p[0] << 8 | p[1];
}

/* The commands of one ENet datagram (uncompressed): how many, and the
 * reliable sequence number of its PING in *ping_seq (-1 without one). */
static int datagram_commands(const uint8_t *d, size_t n, long *ping_seq)
{
    *ping_seq = -1;
    if (n < 2 || (be16(d) & ENET_PROTOCOL_HEADER_FLAG_COMPRESSED))
        return 0;
    size_t at = (be16(d) & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME) ? 4 : 2;
    int commands = 0;
    while (at + sizeof(ENetProtocolCommandHeader) <= n) {
        uint8_t number = d[at] & ENET_PROTOCOL_COMMAND_MASK;
        size_t size = enet_protocol_command_size(number);
        if (size == 0 || at + size > n)
            break;
        if (number == ENET_PROTOCOL_COMMAND_PING)
            *ping_seq = (long)be16(d + at + 2);
        /* The data after a send command: its length's offset in the command. */
        if (number == ENET_PROTOCOL_COMMAND_SEND_RELIABLE)
            size += be16(d + at + 4);
        else if (number == ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE ||
                 number == ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED ||
                 number == ENET_PROTOCOL_COMMAND_SEND_FRAGMENT ||
                 number == ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT)
            size += be16(d + at + 6);
        at += size;
        commands++;
    }
    return commands;
}

static int count_pings(ENetHost *host, ENetEvent *event)
{
    (void)event;
    long seq;
    int commands = datagram_commands(host->receivedData, host->receivedDataLength, &seq);
    pings_with += seq >= 0;
    pings_alone += seq >= 0 && commands == 1;
    return 0;
}

/* ENet pings every peer twice a second, by default alone in a datagram:
 * the adapter puts its keepalives on the packets it sends anyway (a FRAME
 * every two ticks in a race), so a client sent a packet every 33 ms gets no
 * datagram without one, and still about two PINGs a second. */
static void test_keepalives_ride_on_packets_going_out(void **state)
{
    loop *l = *state;
    raw_client c;
    connect_raw(l, &c, true);
    assert_true(hello_welcome(l, &c, "rider"));
    /* The client's own keepalives would bring acknowledgements: off. */
    enet_peer_ping_interval(c.peer, 60000);
    static rs_msg m;
    while (raw_client_poll(&c, 300, &m)) {
        /* what the room sends a newcomer */
    }
    rs_msg pong;
    memset(&pong, 0, sizeof pong);
    pong.type = RS_MSG_PONG;
    uint8_t buf[64];
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&pong, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    pings_with = pings_alone = 0;
    c.host->intercept = count_pings;
    int sent = 0;
    int64_t t0 = rs_clock_us(), next = t0;
    while (rs_clock_us() - t0 < 2500000) {
        if (rs_clock_us() >= next) {
            assert_true(rs_net_send(l->net, l->peer, RS_CH_FRAME, false, buf, len));
            sent++;
            next += 33333;
        }
        raw_client_poll(&c, 1, &m);
    }
    c.host->intercept = NULL;
    printf("[keepalives] 2.5 s, %d packets sent: %d datagrams with a PING, %d with it alone\n",
           sent, pings_with, pings_alone);
    assert_true(pings_with >= 3);
    assert_int_equal(pings_alone, 0);
    raw_client_close(&c);
}

/* A peer that acknowledges nothing (gone quiet, or hostile) is not pinged
 * every 500 ms: a keepalive rides only when none awaits its
 * acknowledgement, so it gets one PING, which ENet resends as it resends
 * any reliable command, until its timeout drops the peer. Over 3 s of
 * FRAMEs to a client whose host is never serviced, every PING on its
 * socket is the same one (one reliable sequence number). */
static void test_a_peer_that_never_acknowledges_gets_one_keepalive(void **state)
{
    loop *l = *state;
    raw_client c;
    connect_raw(l, &c, true);
    assert_true(hello_welcome(l, &c, "mute"));
    static rs_msg m;
    while (raw_client_poll(&c, 300, &m)) {
    }
    rs_msg pong;
    memset(&pong, 0, sizeof pong);
    pong.type = RS_MSG_PONG;
    uint8_t buf[64], dgram[ENET_PROTOCOL_MAXIMUM_MTU];
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&pong, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    long seqs[64];
    int distinct = 0, pings = 0, datagrams = 0;
    int64_t t0 = rs_clock_us(), next = t0;
    while (rs_clock_us() - t0 < 3000000) {
        if (rs_clock_us() >= next) {
            assert_true(rs_net_send(l->net, l->peer, RS_CH_FRAME, false, buf, len));
            next += 33333;
        }
        rs_net_event ev;
        rs_net_service(l->net, 1, &ev);
        /* The client's socket read by hand: its ENet acknowledges nothing. */
        ENetAddress from;
        ENetBuffer b = {.data = dgram, .dataLength = sizeof dgram};
        int n;
        while ((n = enet_socket_receive(c.host->socket, &from, &b, 1)) > 0) {
            long seq;
            datagrams++;
            datagram_commands(dgram, (size_t)n, &seq);
            if (seq < 0)
                continue;
            pings++;
            bool seen = false;
            for (int i = 0; i < distinct; i++)
                seen |= seqs[i] == seq;
            if (!seen && distinct < 64)
                seqs[distinct++] = seq;
        }
    }
    printf("[mute] 3 s: %d datagrams, %d with a PING, %d distinct PINGs\n", datagrams, pings,
           distinct);
    assert_true(datagrams >= 80); /* the FRAMEs kept coming */
    assert_int_equal(distinct, 1);
    raw_client_close(&c);
}

/* Sends n PINGs from the raw client and waits until they are in the
 * server's socket (loopback: a few milliseconds at most). */
static void send_pings(raw_client *c, int n)
{
    static rs_msg m;
    for (int i = 0; i < n; i++) {
        memset(&m, 0, sizeof m);
        m.type = RS_MSG_PING;
        m.u.ping.id = (uint32_t)i;
        raw_client_send(c, &m);
    }
    rs_sleep_us(20000);
}

/* The next event's type, RECEIVE events counted: NONE when there was none. */
static int next_queued(loop *l, bool read_socket)
{
    rs_net_event ev;
    int rc = read_socket ? rs_net_service(l->net, 0, &ev) : rs_net_service_queued(l->net, &ev);
    assert_true(rc >= 0);
    return rc == 0 ? RS_NET_EVENT_NONE : (int)ev.type;
}

/* A server in a hurry (a tick due) takes the events of what ENet has
 * already read, and nothing more: what still sits in the socket waits for
 * the next real service. */
static void test_the_queued_events_are_what_was_read_and_no_more(void **state)
{
    loop *l = *state;
    raw_client c;
    connect_raw(l, &c, true);
    assert_true(hello_welcome(l, &c, "hurried"));
    for (int i = 0; i < 20; i++)
        server_turn(l); /* the room's welcome goes out, nothing is left */
    static rs_msg m;
    while (raw_client_poll(&c, 50, &m)) {
    }
    assert_int_equal(next_queued(l, false), RS_NET_EVENT_NONE);

    send_pings(&c, 3);
    assert_int_equal(next_queued(l, true), RS_NET_EVENT_RECEIVE); /* reads all three */
    send_pings(&c, 2);                                            /* in the socket */
    assert_int_equal(next_queued(l, false), RS_NET_EVENT_RECEIVE);
    assert_int_equal(next_queued(l, false), RS_NET_EVENT_RECEIVE);
    assert_int_equal(next_queued(l, false), RS_NET_EVENT_NONE);
    assert_int_equal(next_queued(l, true), RS_NET_EVENT_RECEIVE); /* now they are read */
    assert_int_equal(next_queued(l, false), RS_NET_EVENT_RECEIVE);
    assert_int_equal(next_queued(l, false), RS_NET_EVENT_NONE);
    assert_int_equal(next_queued(l, true), RS_NET_EVENT_NONE);
    raw_client_close(&c);
}

int main(void)
{
    if (enet_initialize() != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_siphash_matches_the_papers_vectors),
        cmocka_unit_test(test_cookie_is_valid_now_and_one_epoch_back_only),
        cmocka_unit_test(test_cookie_is_bound_to_address_port_and_key),
        cmocka_unit_test(test_cookie_request_and_reply_have_the_spec_layout),
        cmocka_unit_test(test_random_keys_differ),
        cmocka_unit_test(test_create_refuses_bad_settings_with_a_message),
        cmocka_unit_test_setup_teardown(test_hello_through_the_adapter_gets_a_welcome,
                                        loop_setup, loop_teardown),
        cmocka_unit_test_setup_teardown(test_forged_and_replayed_packets_never_reach_the_room,
                                        loop_setup, loop_teardown),
        cmocka_unit_test_setup_teardown(test_a_peer_that_never_offers_keys_is_dropped,
                                        loop_setup, loop_teardown),
        cmocka_unit_test_setup_teardown(test_an_old_client_is_refused_in_words, loop_setup,
                                        loop_teardown),
        cmocka_unit_test_setup_teardown(test_one_address_gets_at_most_its_share_of_peers,
                                        loop_setup, loop_teardown),
        cmocka_unit_test_setup_teardown(test_junk_datagrams_are_all_counted, loop_setup,
                                        loop_teardown),
        cmocka_unit_test_setup_teardown(test_a_full_socket_loses_datagrams_and_counts_them,
                                        loop_setup_small_socket, loop_teardown),
        cmocka_unit_test_setup_teardown(test_connect_without_a_valid_cookie_gets_no_peer,
                                        loop_setup, loop_teardown),
        cmocka_unit_test_setup_teardown(test_malformed_cookie_request_gets_no_reply,
                                        loop_setup, loop_teardown),
        cmocka_unit_test_setup_teardown(test_cookie_requests_are_limited_per_address,
                                        loop_setup, loop_teardown),
        cmocka_unit_test_setup_teardown(
            test_an_address_allowed_more_connections_may_ask_as_many_at_once, loop_setup_lan,
            loop_teardown),
        cmocka_unit_test_setup_teardown(test_keepalives_ride_on_packets_going_out, loop_setup,
                                        loop_teardown),
        cmocka_unit_test_setup_teardown(test_the_queued_events_are_what_was_read_and_no_more,
                                        loop_setup, loop_teardown),
        cmocka_unit_test_setup_teardown(test_a_peer_that_never_acknowledges_gets_one_keepalive,
                                        loop_setup, loop_teardown),
        cmocka_unit_test_setup_teardown(test_a_cookie_for_another_address_is_refused,
                                        loop_setup, loop_teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    enet_deinitialize();
    return rc;
}
