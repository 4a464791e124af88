/*
 * A hand-written racesim client (raw_client.h).
 */
#include "raw_client.h"

#include <stdio.h>
#include <string.h>

#include "racesim/base/clock.h"

static void pump(raw_client *c)
{
    if (c->pump)
        c->pump(c->pump_ctx);
}

bool raw_client_open(raw_client *c, uint16_t port, void (*pump_fn)(void *), void *pump_ctx)
{
    return raw_client_open_from(c, NULL, port, pump_fn, pump_ctx);
}

bool raw_client_open_from(raw_client *c, const char *from, uint16_t port,
                          void (*pump_fn)(void *), void *pump_ctx)
{
    memset(c, 0, sizeof *c);
    c->pump = pump_fn;
    c->pump_ctx = pump_ctx;
    c->offer_keys = true;
    ENetAddress local = {.host = ENET_HOST_ANY, .port = 0};
    if (from && enet_address_set_host_ip(&local, from) != 0)
        return false;
    c->host = enet_host_create(from ? &local : NULL, 1, RS_CH_COUNT, 0, 0);
    if (!c->host)
        return false;
    enet_address_set_host(&c->server, "127.0.0.1");
    c->server.port = port;
    uint8_t req[48] = "RSCKREQ1";
    int64_t until = rs_clock_us() + 2000000, next = 0;
    while (rs_clock_us() < until) {
        if (rs_clock_us() >= next) {
            ENetBuffer b = {.data = req, .dataLength = sizeof req};
            enet_socket_send(c->host->socket, &c->server, &b, 1);
            next = rs_clock_us() + 250000;
        }
        pump(c);
        uint8_t rep[64];
        ENetAddress sender;
        ENetBuffer b = {.data = rep, .dataLength = sizeof rep};
        ENetSocketSet set;
        ENET_SOCKETSET_EMPTY(set);
        ENET_SOCKETSET_ADD(set, c->host->socket);
        if (enet_socketset_select(c->host->socket, &set, NULL, c->pump ? 1 : 20) <= 0)
            continue;
        if (enet_socket_receive(c->host->socket, &sender, &b, 1) == 16 &&
            memcmp(rep, "RSCKREP1", 8) == 0) {
            uint32_t cookie = (uint32_t)rep[8] | (uint32_t)rep[9] << 8 |
                              (uint32_t)rep[10] << 16 | (uint32_t)rep[11] << 24;
            c->peer = enet_host_connect(c->host, &c->server, RS_CH_COUNT, cookie);
            return c->peer != NULL;
        }
    }
    return false;
}

void raw_client_send_bytes(raw_client *c, uint8_t channel, const uint8_t *bytes, size_t len)
{
    ENetPacket *p = enet_packet_create(bytes, len, rs_proto_channel_reliable(channel)
                                                       ? ENET_PACKET_FLAG_RELIABLE
                                                       : ENET_PACKET_FLAG_UNSEQUENCED);
    if (p && enet_peer_send(c->peer, channel, p) != 0)
        enet_packet_destroy(p);
    enet_host_flush(c->host);
}

void raw_client_send(raw_client *c, const rs_msg *m)
{
    uint8_t buf[RS_PROTO_MAX_PACKET], sealed[RS_SECURE_MAX_PACKET];
    size_t len = 0, n = 0;
    uint8_t ch = 0;
    bool rel = false;
    if (!c->secure || rs_proto_encode(m, buf, sizeof buf, &len, NULL) != RS_PROTO_OK ||
        !rs_proto_msg_info(m->type, &ch, &rel, NULL) ||
        rs_secure_seal(&c->session, ch, buf, len, sealed, sizeof sealed, &n) != RS_SECURE_OK) {
        fprintf(stderr, "raw_client: cannot send a %s\n", rs_proto_msg_name(m->type));
        return;
    }
    raw_client_send_bytes(c, ch, sealed, n);
}

void raw_client_hello(raw_client *c, const char *name, const char *room)
{
    static rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_HELLO;
    m.u.hello.protocol_version = RS_PROTO_VERSION;
    m.u.hello.physics_version = RS_PHYSICS_VERSION;
    snprintf(m.u.hello.name, sizeof m.u.hello.name, "%s", name);
    snprintf(m.u.hello.room, sizeof m.u.hello.room, "%s", room);
    raw_client_send(c, &m);
}

/* One received packet: true with *out filled when it held a message. */
static bool packet(raw_client *c, uint8_t channel, const ENetPacket *p, rs_msg *out)
{
    if (!c->secure) {
        if (rs_proto_decode(p->data, p->dataLength, out, NULL) == RS_PROTO_OK &&
            out->type == RS_MSG_REFUSE)
            return true;
        if (rs_secure_client_finish(&c->hs, p->data, p->dataLength, c->server_key,
                                    &c->session) == RS_SECURE_OK)
            c->secure = true;
        else
            fprintf(stderr, "raw_client: the key reply does not verify\n");
        return false;
    }
    uint8_t plain[RS_PROTO_MAX_PACKET];
    size_t n = 0;
    if (rs_secure_open(&c->session, channel, p->data, p->dataLength, plain, sizeof plain, &n) !=
        RS_SECURE_OK) {
        fprintf(stderr, "raw_client: a packet from the server does not open\n");
        return false;
    }
    return rs_proto_decode(plain, n, out, NULL) == RS_PROTO_OK;
}

bool raw_client_poll(raw_client *c, int timeout_ms, rs_msg *out)
{
    int64_t until = rs_clock_us() + (int64_t)timeout_ms * 1000;
    do {
        pump(c);
        ENetEvent e;
        /* 0: look without waiting (many clients polled in turn). */
        uint32_t wait_ms = timeout_ms <= 0 ? 0 : c->pump ? 1 : 10;
        while (enet_host_service(c->host, &e, wait_ms) > 0) {
            bool got = false;
            if (e.type == ENET_EVENT_TYPE_CONNECT) {
                c->connected = true;
                if (c->offer_keys && rs_secure_client_offer(&c->hs, NULL) == RS_SECURE_OK)
                    raw_client_send_bytes(c, RS_CH_CONTROL, c->hs.offer, sizeof c->hs.offer);
            } else if (e.type == ENET_EVENT_TYPE_RECEIVE) {
                got = packet(c, e.channelID, e.packet, out);
                enet_packet_destroy(e.packet);
            } else if (e.type == ENET_EVENT_TYPE_DISCONNECT) {
                c->gone = true;
            }
            if (got)
                return true;
        }
    } while (rs_clock_us() < until);
    return false;
}

bool raw_client_wait(raw_client *c, uint8_t type, rs_msg *out, int timeout_ms)
{
    int64_t until = rs_clock_us() + (int64_t)timeout_ms * 1000;
    while (rs_clock_us() < until)
        if (raw_client_poll(c, 10, out) && out->type == type)
            return true;
    return false;
}

bool raw_client_wait_secure(raw_client *c, int timeout_ms)
{
    static rs_msg m;
    int64_t until = rs_clock_us() + (int64_t)timeout_ms * 1000;
    while (!c->secure && rs_clock_us() < until)
        raw_client_poll(c, 10, &m);
    return c->secure;
}

void raw_client_disconnect(raw_client *c, int timeout_ms)
{
    if (c->peer) {
        enet_peer_disconnect(c->peer, 0);
        int64_t until = rs_clock_us() + (int64_t)timeout_ms * 1000;
        static rs_msg m;
        while (!c->gone && rs_clock_us() < until)
            raw_client_poll(c, 10, &m);
    }
    raw_client_close(c);
}

void raw_client_close(raw_client *c)
{
    if (c->host)
        enet_host_destroy(c->host);
    memset(c, 0, sizeof *c);
}

uint16_t raw_client_peer_word(const raw_client *c)
{
    return (uint16_t)(c->peer->outgoingPeerID |
                      (uint16_t)(c->peer->outgoingSessionID << ENET_PROTOCOL_HEADER_SESSION_SHIFT));
}

bool raw_client_send_datagram(raw_client *c, const uint8_t *bytes, size_t len)
{
    ENetBuffer b = {.data = (void *)(uintptr_t)bytes, .dataLength = len};
    return enet_socket_send(c->host->socket, &c->server, &b, 1) == (int)len;
}
