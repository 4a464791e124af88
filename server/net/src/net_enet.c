/*
 * The ENet adapter (racesim/net.h): the only server file that includes
 * <enet/enet.h>. It owns one ENet host, answers cookie requests and drops
 * CONNECTs without a valid cookie in ENet's intercept hook (net_cookie.h,
 * protocol/SPEC.md section 7), turns ENet events into rs_net_events and
 * rs_net_send calls into ENet packets.
 */
#include "racesim/net.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <enet/enet.h>

#include "racesim/net_cookie.h"
#include "racesim/protocol.h"
#include "racesim/base/clock.h"

/* Reliable retransmission limits (enet_peer_timeout; see where they are set). */
#define RS_NET_TIMEOUT_LIMIT 128u
#define RS_NET_TIMEOUT_MIN_MS 10000u
#define RS_NET_TIMEOUT_MAX_MS 30000u

#define PEER_INDEX_BITS 12u
#define PEER_INDEX_MASK ((1u << PEER_INDEX_BITS) - 1u)
#define PEER_GEN_MAX ((1u << (32u - PEER_INDEX_BITS)) - 1u)

typedef struct net_slot {
    uint32_t id;      /* the current connection's id; 0 = no connection in this slot */
    uint32_t gen;     /* generation of the last connection in this slot */
} net_slot;

struct rs_net {
    ENetHost *host;
    net_slot *slots;        /* one per ENet peer slot */
    ENetPacket *held;       /* lent out by the last RECEIVE event */
    bool enet_ready;        /* enet_initialize succeeded: deinitialize on destroy */
    rs_cookie_key key;
    rs_net_stats stats;
};

/* ENet's intercept hook carries no user pointer, so rs_net_service names
 * the rs_net it is servicing here for the duration of the call. It is
 * per thread and only set inside rs_net_service: hosts on other threads
 * never see each other's. */
static _Thread_local rs_net *tls_servicing;

rs_net_config rs_net_config_default(void)
{
    rs_net_config c;
    memset(&c, 0, sizeof c);
    c.port = 27960;
    c.max_clients = 512;
    return c;
}

static uint32_t read_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Sees every datagram before ENet does. Returns 1 to consume it, 0 to let
 * ENet handle it. */
static int ENET_CALLBACK net_intercept(ENetHost *host, ENetEvent *event)
{
    (void)event;
    rs_net *net = tls_servicing;
    if (!net || net->host != host)
        return 0;
    const uint8_t *d = host->receivedData;
    size_t n = host->receivedDataLength;
    /* Our own datagrams start with "RSCK"; as an ENet header that would be
     * a compressed datagram, which this host never accepts anyway. */
    if (n >= 4 && memcmp(d, "RSCK", 4) == 0) {
        if (rs_cookie_is_request(d, n)) {
            uint8_t reply[RS_COOKIE_REP_LEN];
            uint32_t cookie = rs_cookie_make(&net->key, host->receivedAddress.host,
                                             host->receivedAddress.port,
                                             rs_cookie_epoch(rs_clock_us()));
            rs_cookie_reply(cookie, reply);
            ENetBuffer buf;
            buf.data = reply;
            buf.dataLength = sizeof reply;
            /* 16 bytes out for 48 in: no amplification. */
            if (enet_socket_send(host->socket, &host->receivedAddress, &buf, 1) > 0)
                net->stats.cookies_issued++;
        } else {
            net->stats.garbage_dropped++;
        }
        return 1;
    }
    if (n < 2)
        return 0; /* ENet drops it */
    uint16_t word = (uint16_t)((unsigned)d[0] << 8 | d[1]); /* network byte order */
    uint16_t peer_id = (uint16_t)(word & ~(ENET_PROTOCOL_HEADER_FLAG_MASK |
                                           ENET_PROTOCOL_HEADER_SESSION_MASK));
    if (peer_id != ENET_PROTOCOL_MAXIMUM_PEER_ID)
        return 0; /* for an existing peer: ENet checks it */
    if (word & ENET_PROTOCOL_HEADER_FLAG_COMPRESSED) {
        net->stats.garbage_dropped++;
        return 1;
    }
    size_t hs = (word & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME)
                    ? sizeof(ENetProtocolHeader)
                    : offsetof(ENetProtocolHeader, sentTime);
    if (n < hs + 1)
        return 0;
    /* ENet processes a peer-less datagram only if its first command is a
     * CONNECT, so only that command needs the cookie. */
    if ((d[hs] & ENET_PROTOCOL_COMMAND_MASK) != ENET_PROTOCOL_COMMAND_CONNECT)
        return 0;
    if (n < hs + sizeof(ENetProtocolConnect)) {
        net->stats.cookies_rejected++;
        return 1;
    }
    uint32_t cookie = read_be32(d + hs + offsetof(ENetProtocolConnect, data));
    if (!rs_cookie_valid(&net->key, host->receivedAddress.host, host->receivedAddress.port,
                         rs_cookie_epoch(rs_clock_us()), cookie)) {
        net->stats.cookies_rejected++;
        return 1;
    }
    return 0;
}

rs_status rs_net_create(const rs_net_config *cfg, rs_net **out, char *err, size_t err_len)
{
    if (!cfg || !out)
        return RS_ERR_ARG;
    *out = NULL;
    if (cfg->max_clients < 1 || cfg->max_clients > ENET_PROTOCOL_MAXIMUM_PEER_ID) {
        snprintf(err, err_len, "max_clients: %u outside 1..%u", (unsigned)cfg->max_clients,
                 (unsigned)ENET_PROTOCOL_MAXIMUM_PEER_ID);
        return RS_ERR_RANGE;
    }
    rs_status st = RS_ERR_NOMEM;
    rs_net *net = calloc(1, sizeof *net);
    if (!net)
        goto fail;
    if (enet_initialize() != 0) {
        snprintf(err, err_len, "cannot initialise ENet");
        st = RS_ERR_IO;
        goto fail;
    }
    net->enet_ready = true;
    net->slots = calloc(cfg->max_clients, sizeof *net->slots);
    if (!net->slots)
        goto fail;
    if (!rs_cookie_key_random(&net->key)) {
        snprintf(err, err_len, "cannot read /dev/urandom for the cookie key");
        st = RS_ERR_IO;
        goto fail;
    }
    ENetAddress addr;
    addr.host = ENET_HOST_ANY;
    addr.port = cfg->port;
    if (cfg->bind_address && cfg->bind_address[0] &&
        enet_address_set_host(&addr, cfg->bind_address) != 0) {
        snprintf(err, err_len, "bind: cannot resolve '%s'", cfg->bind_address);
        st = RS_ERR_IO;
        goto fail;
    }
    net->host = enet_host_create(&addr, cfg->max_clients, RS_CH_COUNT, 0, 0);
    if (!net->host) {
        snprintf(err, err_len, "cannot bind UDP %s:%u (in use, or not an address of this machine)",
                 cfg->bind_address && cfg->bind_address[0] ? cfg->bind_address : "0.0.0.0",
                 (unsigned)cfg->port);
        st = RS_ERR_IO;
        goto fail;
    }
    net->host->intercept = net_intercept;
    /* The port actually bound (the caller may have asked for any). */
    if (enet_socket_get_address(net->host->socket, &net->host->address) != 0) {
        snprintf(err, err_len, "cannot read the bound address");
        st = RS_ERR_IO;
        goto fail;
    }
    *out = net;
    return RS_OK;
fail:
    rs_net_destroy(net);
    return st;
}

void rs_net_destroy(rs_net *net)
{
    if (!net)
        return;
    if (net->held)
        enet_packet_destroy(net->held);
    if (net->host)
        enet_host_destroy(net->host);
    if (net->enet_ready)
        enet_deinitialize();
    free(net->slots);
    free(net);
}

uint16_t rs_net_port(const rs_net *net)
{
    return net->host->address.port;
}

static ENetPeer *peer_by_id(rs_net *net, uint32_t id)
{
    uint32_t index = id & PEER_INDEX_MASK;
    if (id == 0 || index >= net->host->peerCount || net->slots[index].id != id)
        return NULL;
    return &net->host->peers[index];
}

static void fill_address(const ENetPeer *peer, char *out, size_t cap)
{
    char ip[16];
    if (enet_address_get_host_ip(&peer->address, ip, sizeof ip) != 0)
        snprintf(ip, sizeof ip, "?");
    snprintf(out, cap, "%s:%u", ip, (unsigned)peer->address.port);
}

/* Moves ENet's 32-bit counters into our 64-bit totals. */
static void take_counters(rs_net *net)
{
    ENetHost *h = net->host;
    net->stats.bytes_in += h->totalReceivedData;
    net->stats.bytes_out += h->totalSentData;
    net->stats.packets_in += h->totalReceivedPackets;
    net->stats.packets_out += h->totalSentPackets;
    h->totalReceivedData = h->totalSentData = 0;
    h->totalReceivedPackets = h->totalSentPackets = 0;
}

int rs_net_service(rs_net *net, uint32_t timeout_ms, rs_net_event *ev)
{
    memset(ev, 0, sizeof *ev);
    if (net->held) {
        enet_packet_destroy(net->held);
        net->held = NULL;
    }
    for (;;) {
        ENetEvent e;
        tls_servicing = net;
        int rc = enet_host_service(net->host, &e, timeout_ms);
        tls_servicing = NULL;
        take_counters(net);
        if (rc <= 0)
            return rc < 0 ? -1 : 0;
        uint32_t index = (uint32_t)(e.peer - net->host->peers);
        net_slot *slot = &net->slots[index];
        switch (e.type) {
        case ENET_EVENT_TYPE_CONNECT:
            slot->gen = slot->gen >= PEER_GEN_MAX ? 1u : slot->gen + 1u;
            slot->id = slot->gen << PEER_INDEX_BITS | index;
            net->stats.peers_connected++;
            /* ENet's packet throttle drops unreliable packets when the
             * round trip rises. Inputs and frames are small and
             * time-critical, and lockstep needs them all, so the throttle
             * never decelerates (this also configures the client's side). */
            enet_peer_throttle_configure(e.peer, ENET_PEER_PACKET_THROTTLE_INTERVAL,
                                         ENET_PEER_PACKET_THROTTLE_ACCELERATION, 0);
            /* ENet doubles a reliable packet's retransmission timeout on
             * every loss and by default gives up after 5 doublings and 5 s:
             * on a 150 ms route with 10 % loss each way, one packet in
             * about 20 000 fails 6 times in a row and the player is dropped
             * in mid-race, although FRAMEs and INPUTs still flow. Allow 7
             * doublings (an attempt about 19 s after the first) and drop a
             * peer only after 30 s without an acknowledgement. */
            enet_peer_timeout(e.peer, RS_NET_TIMEOUT_LIMIT, RS_NET_TIMEOUT_MIN_MS,
                              RS_NET_TIMEOUT_MAX_MS);
            ev->type = RS_NET_EVENT_CONNECT;
            ev->peer = slot->id;
            fill_address(e.peer, ev->address, sizeof ev->address);
            return 1;
        case ENET_EVENT_TYPE_RECEIVE:
            if (slot->id == 0) { /* cannot happen: ENet delivers only to connected peers */
                enet_packet_destroy(e.packet);
                break;
            }
            net->held = e.packet;
            ev->type = RS_NET_EVENT_RECEIVE;
            ev->peer = slot->id;
            ev->channel = e.channelID;
            ev->data = e.packet->data;
            ev->len = e.packet->dataLength;
            return 1;
        case ENET_EVENT_TYPE_DISCONNECT:
            if (slot->id == 0)
                break; /* a connection attempt that never completed */
            ev->type = RS_NET_EVENT_DISCONNECT;
            ev->peer = slot->id;
            fill_address(e.peer, ev->address, sizeof ev->address);
            slot->id = 0;
            net->stats.peers_connected--;
            return 1;
        default:
            break;
        }
        timeout_ms = 0; /* an event we swallowed: look again without waiting */
    }
}

bool rs_net_send(rs_net *net, uint32_t peer, uint8_t channel, bool reliable,
                 const uint8_t *data, size_t len)
{
    ENetPeer *p = peer_by_id(net, peer);
    if (!p || channel >= RS_CH_COUNT)
        return false;
    ENetPacket *pkt = enet_packet_create(data, len, reliable ? ENET_PACKET_FLAG_RELIABLE
                                                             : ENET_PACKET_FLAG_UNSEQUENCED);
    if (!pkt)
        return false;
    if (enet_peer_send(p, channel, pkt) < 0) {
        if (pkt->referenceCount == 0)
            enet_packet_destroy(pkt);
        return false;
    }
    return true;
}

void rs_net_peer_address(rs_net *net, uint32_t peer, char *out, size_t cap)
{
    ENetPeer *p = peer_by_id(net, peer);
    if (p)
        fill_address(p, out, cap);
    else
        snprintf(out, cap, "?");
}

void rs_net_disconnect_later(rs_net *net, uint32_t peer)
{
    ENetPeer *p = peer_by_id(net, peer);
    if (p)
        enet_peer_disconnect_later(p, 0);
}

void rs_net_disconnect_all_later(rs_net *net)
{
    for (size_t i = 0; i < net->host->peerCount; i++)
        if (net->slots[i].id != 0)
            enet_peer_disconnect_later(&net->host->peers[i], 0);
}

void rs_net_flush(rs_net *net)
{
    enet_host_flush(net->host);
    take_counters(net);
}

void rs_net_get_stats(rs_net *net, rs_net_stats *out)
{
    take_counters(net);
    *out = net->stats;
    uint32_t used = 0;
    for (size_t i = 0; i < net->host->peerCount; i++)
        if (net->host->peers[i].state != ENET_PEER_STATE_DISCONNECTED)
            used++;
    out->peers_in_use = used;
}
