/*
 * The server's ENet adapter (server/net): the connect cookie of
 * protocol/SPEC.md section 7 as pure functions, then over real loopback
 * sockets: a raw ENet client that does the cookie handshake by hand and
 * says HELLO to a room behind the adapter gets a WELCOME, and CONNECTs
 * without a valid cookie never get an ENet peer.
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
} loop;

static int loop_setup(void **state)
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
    rs_net_config nc = rs_net_config_default();
    nc.bind_address = "127.0.0.1";
    nc.port = 0;
    nc.max_clients = 8;
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
        if (ev.type == RS_NET_EVENT_CONNECT)
            rs_room_connect(l->room, ev.peer, t);
        else if (ev.type == RS_NET_EVENT_RECEIVE)
            rs_room_receive(l->room, ev.peer, ev.channel, ev.data, ev.len, t);
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

static void test_hello_through_the_adapter_gets_a_welcome(void **state)
{
    loop *l = *state;
    send_cookie_request(l, RS_COOKIE_REQ_LEN);
    uint8_t rep[64];
    int n = raw_receive(l, rep, sizeof rep, 2000);
    assert_int_equal(n, RS_COOKIE_REP_LEN); /* smaller than the 48-byte request */
    assert_memory_equal(rep, "RSCKREP1", 8);
    uint32_t cookie = (uint32_t)rep[8] | (uint32_t)rep[9] << 8 | (uint32_t)rep[10] << 16 |
                      (uint32_t)rep[11] << 24;
    assert_true(cookie != 0);

    ENetPeer *peer = enet_host_connect(l->client, &l->server, RS_CH_COUNT, cookie);
    assert_non_null(peer);
    bool connected = false, welcomed = false;
    int64_t until = rs_clock_us() + 5000000;
    while (!welcomed && rs_clock_us() < until) {
        server_turn(l);
        ENetEvent e;
        while (enet_host_service(l->client, &e, 1) > 0) {
            if (e.type == ENET_EVENT_TYPE_CONNECT) {
                connected = true;
                rs_msg m;
                memset(&m, 0, sizeof m);
                m.type = RS_MSG_HELLO;
                m.u.hello.protocol_version = RS_PROTO_VERSION;
                m.u.hello.physics_version = RS_PHYSICS_VERSION;
                snprintf(m.u.hello.name, sizeof m.u.hello.name, "tester");
                uint8_t buf[RS_PROTO_MAX_PACKET];
                size_t len = 0;
                assert_int_equal(rs_proto_encode(&m, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
                ENetPacket *p = enet_packet_create(buf, len, ENET_PACKET_FLAG_RELIABLE);
                assert_int_equal(enet_peer_send(peer, RS_CH_CONTROL, p), 0);
            } else if (e.type == ENET_EVENT_TYPE_RECEIVE) {
                static rs_msg m;
                if (rs_proto_decode(e.packet->data, e.packet->dataLength, &m, NULL) ==
                        RS_PROTO_OK &&
                    m.type == RS_MSG_WELCOME) {
                    welcomed = true;
                    assert_int_equal(e.channelID, RS_CH_CONTROL);
                    assert_int_equal(m.u.welcome.physics_version, RS_PHYSICS_VERSION);
                }
                enet_packet_destroy(e.packet);
            }
        }
    }
    assert_true(connected);
    assert_true(welcomed);
    rs_net_stats st;
    rs_net_get_stats(l->net, &st);
    assert_true(st.cookies_issued >= 1);
    assert_int_equal(st.peers_connected, 1);
    assert_true(st.bytes_in > 0 && st.bytes_out > 0 && st.packets_in > 0 && st.packets_out > 0);
    rs_room_stats rs;
    rs_room_get_stats(l->room, &rs);
    assert_int_equal(rs.players, 1);
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
    assert_true(st.cookies_rejected >= 1);
    uint64_t rejected = st.cookies_rejected;

    enet_host_destroy(l->client);
    l->client = enet_host_create(NULL, 1, RS_CH_COUNT, 0, 0);
    assert_non_null(l->client);
    assert_non_null(enet_host_connect(l->client, &l->server, RS_CH_COUNT, 0x12345678u));
    run_both(l, 600, &connected);
    rs_net_get_stats(l->net, &st);
    assert_false(connected);
    assert_int_equal(st.peers_in_use, 0);
    assert_true(st.cookies_rejected > rejected);
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
    assert_int_equal(st.garbage_dropped, 2);
    assert_int_equal(st.peers_in_use, 0);
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
    assert_true(st.cookies_rejected >= 1);
}

static void test_create_refuses_bad_settings_with_a_message(void **state)
{
    (void)state;
    char err[256] = "";
    rs_net *a = NULL, *b = NULL;
    rs_net_config nc = rs_net_config_default();
    nc.bind_address = "127.0.0.1";
    nc.port = 0;
    nc.max_clients = 0;
    assert_int_equal(rs_net_create(&nc, &a, err, sizeof err), RS_ERR_RANGE);
    assert_null(a);
    assert_non_null(strstr(err, "max_clients"));
    nc.max_clients = 4;
    assert_int_equal(rs_net_create(&nc, &a, err, sizeof err), RS_OK);
    nc.port = rs_net_port(a); /* taken now */
    assert_int_equal(rs_net_create(&nc, &b, err, sizeof err), RS_ERR_IO);
    assert_null(b);
    char port[16];
    snprintf(port, sizeof port, "%u", (unsigned)nc.port);
    assert_non_null(strstr(err, port));
    rs_net_destroy(a);
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
        cmocka_unit_test_setup_teardown(test_connect_without_a_valid_cookie_gets_no_peer,
                                        loop_setup, loop_teardown),
        cmocka_unit_test_setup_teardown(test_malformed_cookie_request_gets_no_reply,
                                        loop_setup, loop_teardown),
        cmocka_unit_test_setup_teardown(test_a_cookie_for_another_address_is_refused,
                                        loop_setup, loop_teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    enet_deinitialize();
    return rc;
}
