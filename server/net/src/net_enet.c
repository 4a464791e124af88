/*
 * The ENet adapter (racesim/net.h): the ENet host, its limits, its events
 * and sends. What the intercept hook refuses is in net_guard.c, the key
 * exchange and sealed packets in net_session.c.
 */
#include "net_internal.h"

#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "racesim/enet_link.h"
#include "racesim/protocol.h"
#include "racesim/base/clock.h"

/* Keepalives (ENet's PING, which the peer acknowledges): every peer gets
 * one when nothing it acknowledged came for RS_NET_PING_MS, carried in a
 * datagram that goes out anyway (rs_net_send); ENet's own, alone in a
 * datagram of its own, only after RS_NET_PING_ALONE_MS (a peer nothing is
 * sent to). */
#define RS_NET_PING_MS 500u
#define RS_NET_PING_ALONE_MS 1000u

/* ENet buffers up to this many bytes of a peer's packets that the host has
 * not handed over yet (out-of-order reliable packets, fragments being
 * reassembled); ENet's default is 32 MiB per peer. A racesim client has at
 * most a few requests of at most one sealed packet each in flight. */
#define RS_NET_MAX_WAITING_DATA (32u * 1024u)

#define PEER_INDEX_BITS 12u
#define PEER_INDEX_MASK ((1u << PEER_INDEX_BITS) - 1u)
#define PEER_GEN_MAX ((1u << (32u - PEER_INDEX_BITS)) - 1u)

static const char *const drop_names[RS_NET_DROP_COUNT] = {
    [RS_NET_DROP_SHORT] = "short",
    [RS_NET_DROP_UNKNOWN_PEER] = "unknown_peer",
    [RS_NET_DROP_NO_CONNECT] = "no_connect",
    [RS_NET_DROP_COMPRESSED] = "compressed",
    [RS_NET_DROP_COOKIE] = "cookie",
    [RS_NET_DROP_COOKIE_REQUEST] = "cookie_request",
    [RS_NET_DROP_COOKIE_RATE] = "cookie_rate",
    [RS_NET_DROP_HANDSHAKE] = "handshake",
    [RS_NET_DROP_HANDSHAKE_TIMEOUT] = "handshake_timeout",
    [RS_NET_DROP_VERSION] = "version",
    [RS_NET_DROP_MALFORMED] = "malformed",
    [RS_NET_DROP_AUTH] = "auth",
    [RS_NET_DROP_REPLAY] = "replay",
    [RS_NET_DROP_STALE] = "stale",
    [RS_NET_DROP_CHANNEL] = "channel",
    [RS_NET_DROP_SOCKET_FULL] = "socket_full",
};

const char *rs_net_drop_name(rs_net_drop reason)
{
    return (unsigned)reason < RS_NET_DROP_COUNT ? drop_names[reason] : "unknown";
}

rs_net_config rs_net_config_default(void)
{
    rs_net_config c;
    memset(&c, 0, sizeof c);
    c.port = 27960;
    c.max_clients = 512;
    c.max_per_address = 8;
    c.handshake_ms = 3000;
    return c;
}

rs_status rs_net_create(const rs_net_config *cfg, rs_net **out, char *err, size_t err_len)
{
    if (!cfg || !out)
        return RS_ERR_ARG;
    *out = NULL;
    if (!cfg->identity) {
        snprintf(err, err_len, "no server key: the secure session needs one");
        return RS_ERR_ARG;
    }
    if (cfg->max_clients < 1 || cfg->max_clients > ENET_PROTOCOL_MAXIMUM_PEER_ID) {
        snprintf(err, err_len, "max_clients: %u outside 1..%u", (unsigned)cfg->max_clients,
                 (unsigned)ENET_PROTOCOL_MAXIMUM_PEER_ID);
        return RS_ERR_RANGE;
    }
    if (cfg->max_per_address < 1 || cfg->max_per_address > cfg->max_clients) {
        snprintf(err, err_len, "max_per_address: %u outside 1..max_clients (%u)",
                 (unsigned)cfg->max_per_address, (unsigned)cfg->max_clients);
        return RS_ERR_RANGE;
    }
    if (cfg->handshake_ms < 100 || cfg->handshake_ms > 60000) {
        snprintf(err, err_len, "handshake_ms: %u outside 100..60000",
                 (unsigned)cfg->handshake_ms);
        return RS_ERR_RANGE;
    }
    if (cfg->socket_buffer_kib != 0 && (cfg->socket_buffer_kib < RS_NET_SOCKET_BUFFER_KIB_MIN ||
                                        cfg->socket_buffer_kib > RS_NET_SOCKET_BUFFER_KIB_MAX)) {
        snprintf(err, err_len, "socket_buffer_kib: %u outside %u..%u",
                 (unsigned)cfg->socket_buffer_kib, RS_NET_SOCKET_BUFFER_KIB_MIN,
                 RS_NET_SOCKET_BUFFER_KIB_MAX);
        return RS_ERR_RANGE;
    }
    rs_status st = RS_ERR_NOMEM;
    rs_net *net = calloc(1, sizeof *net);
    if (!net)
        goto fail;
    net->wake_fd = -1;
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
    net->host->intercept = rs_net__intercept;
    net->stats.socket_buffer_kib = rs_net__socket_buffer(
        net->host->socket,
        cfg->socket_buffer_kib ? cfg->socket_buffer_kib : RS_NET_SOCKET_BUFFER_KIB);
    uint64_t kernel = 0;
    if (rs_net__socket_drops(net->host->socket, &kernel))
        net->kernel_drops = (uint32_t)kernel;
    net->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (net->wake_fd < 0) {
        snprintf(err, err_len, "cannot create the wake-up eventfd");
        st = RS_ERR_IO;
        goto fail;
    }
    /* ENet's defaults fit a general-purpose library, not this protocol:
     * no message is larger than one sealed packet, so a larger one (32 MiB
     * by default, reassembled from fragments) is refused; a peer may keep
     * only a little data waiting; one address holds only so many peers
     * (4095 by default: all of them). */
    net->host->maximumPacketSize = RS_SECURE_MAX_PACKET;
    net->host->maximumWaitingData = RS_NET_MAX_WAITING_DATA;
    net->host->duplicatePeers = cfg->max_per_address;
    net->cookie_burst = cfg->max_per_address > RS_NET_COOKIE_BURST_MIN ? cfg->max_per_address
                                                                      : RS_NET_COOKIE_BURST_MIN;
    net->identity = cfg->identity;
    net->handshake_us = (int64_t)cfg->handshake_ms * 1000;
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
    if (net->host)
        enet_host_destroy(net->host);
    if (net->enet_ready)
        enet_deinitialize();
    if (net->wake_fd >= 0)
        close(net->wake_fd);
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

/* ENet connected a peer (its cookie was valid): it gets an id and waits
 * for its key offer; the caller hears of it once the keys are agreed. */
static void on_enet_connect(rs_net *net, ENetPeer *peer, net_slot *slot, uint32_t index)
{
    slot->gen = slot->gen >= PEER_GEN_MAX ? 1u : slot->gen + 1u;
    slot->id = slot->gen << PEER_INDEX_BITS | index;
    slot->state = NET_SLOT_KEY_EXCHANGE;
    slot->connected_us = rs_clock_us();
    /* ENet's packet throttle drops unreliable packets when the round trip
     * rises. Inputs and frames are small and time-critical, and lockstep
     * needs them all, so the throttle never decelerates (this also
     * configures the client's side). */
    enet_peer_throttle_configure(peer, ENET_PEER_PACKET_THROTTLE_INTERVAL,
                                 ENET_PEER_PACKET_THROTTLE_ACCELERATION, 0);
    rs_enet_link_limits(peer); /* as the client does */
    /* ENet pings a peer in a datagram of its own whenever no acknowledgement
     * came for its ping interval (500 ms): with 1024 players, a tenth of all
     * datagrams both ways were pings and their acknowledgements. Ours ride
     * on the FRAMEs instead (rs_net_send), and ENet's own are the fallback. */
    enet_peer_ping_interval(peer, RS_NET_PING_ALONE_MS);
    slot->ping_ms = net->host->serviceTime;
}

/* One packet from a peer: the key offer, or a sealed message to open.
 * True when *ev was filled (CONNECT or RECEIVE). */
static bool on_enet_receive(rs_net *net, ENetPeer *peer, net_slot *slot, uint8_t channel,
                            ENetPacket *packet, rs_net_event *ev)
{
    size_t len = 0;
    switch (slot->state) {
    case NET_SLOT_KEY_EXCHANGE:
        if (!rs_net__key_exchange(net, peer, slot, channel, packet))
            return false;
        net->stats.peers_connected++;
        ev->type = RS_NET_EVENT_CONNECT;
        ev->peer = slot->id;
        rs_net_peer_address(net, slot->id, ev->address, sizeof ev->address);
        return true;
    case NET_SLOT_SECURE:
        if (!rs_net__open(net, slot, channel, packet, &len))
            return false;
        ev->type = RS_NET_EVENT_RECEIVE;
        ev->peer = slot->id;
        ev->channel = channel;
        ev->data = net->plain;
        ev->len = len;
        return true;
    default: /* refused and leaving: nothing more is read */
        net->stats.drops[RS_NET_DROP_HANDSHAKE]++;
        return false;
    }
}

/* enet_host_service, except that its wait also ends when another thread
 * calls rs_net_wake: ENet waits on its socket alone, so the wait is ours
 * (the socket and the eventfd), between two passes that do not wait. */
static int service_or_wait(rs_net *net, ENetEvent *e, uint32_t timeout_ms)
{
    int rc = enet_host_service(net->host, e, 0);
    if (rc != 0 || timeout_ms == 0)
        return rc;
    struct pollfd fds[2] = {{.fd = (int)net->host->socket, .events = POLLIN},
                            {.fd = net->wake_fd, .events = POLLIN}};
    if (poll(fds, 2, (int)timeout_ms) <= 0)
        return enet_host_service(net->host, e, 0); /* timers due (resends, pings) */
    if (fds[1].revents & POLLIN) {
        uint64_t n;
        ssize_t got = read(net->wake_fd, &n, sizeof n); /* resets the count */
        (void)got;
    }
    return enet_host_service(net->host, e, 0);
}

void rs_net_wake(rs_net *net)
{
    uint64_t one = 1;
    ssize_t put = write(net->wake_fd, &one, sizeof one); /* fails only if a wake is pending */
    (void)put;
}

/* One event for the caller: with io, ENet sends, reads and may wait
 * (service_or_wait); without, only what it has already read is looked at. */
static int next_event(rs_net *net, uint32_t timeout_ms, bool io, rs_net_event *ev)
{
    memset(ev, 0, sizeof *ev);
    int64_t now = rs_clock_us();
    if (now >= net->next_sweep_us) {
        rs_net__sweep_key_exchanges(net, now);
        net->next_sweep_us = now + net->handshake_us / 4;
    }
    for (;;) {
        ENetEvent e;
        rs_net__servicing = net;
        int rc = io ? service_or_wait(net, &e, timeout_ms) : enet_host_check_events(net->host, &e);
        rs_net__servicing = NULL;
        take_counters(net);
        if (rc <= 0)
            return rc < 0 ? -1 : 0;
        uint32_t index = (uint32_t)(e.peer - net->host->peers);
        net_slot *slot = &net->slots[index];
        bool announced = slot->state == NET_SLOT_SECURE;
        switch (e.type) {
        case ENET_EVENT_TYPE_CONNECT:
            on_enet_connect(net, e.peer, slot, index);
            break;
        case ENET_EVENT_TYPE_RECEIVE: {
            bool filled = on_enet_receive(net, e.peer, slot, e.channelID, e.packet, ev);
            enet_packet_destroy(e.packet); /* opened into net->plain: not lent out */
            if (filled)
                return 1;
            break;
        }
        case ENET_EVENT_TYPE_DISCONNECT:
            if (slot->id != 0 && announced) {
                ev->type = RS_NET_EVENT_DISCONNECT;
                ev->peer = slot->id;
                fill_address(e.peer, ev->address, sizeof ev->address);
                net->stats.peers_connected--;
            }
            rs_secure_session_wipe(&slot->session);
            slot->state = NET_SLOT_FREE;
            slot->id = 0;
            if (ev->type == RS_NET_EVENT_DISCONNECT)
                return 1;
            break;
        default:
            break;
        }
        timeout_ms = 0; /* an event we swallowed: look again without waiting */
    }
}

int rs_net_service(rs_net *net, uint32_t timeout_ms, rs_net_event *ev)
{
    return next_event(net, timeout_ms, true, ev);
}

int rs_net_service_queued(rs_net *net, rs_net_event *ev)
{
    return next_event(net, 0, false, ev);
}

bool rs_net_send(rs_net *net, uint32_t peer, uint8_t channel, bool reliable,
                 const uint8_t *data, size_t len)
{
    ENetPeer *p = peer_by_id(net, peer);
    if (!p || channel >= RS_CH_COUNT || reliable != rs_proto_channel_reliable(channel))
        return false;
    net_slot *slot = &net->slots[peer & PEER_INDEX_MASK];
    if (slot->state != NET_SLOT_SECURE)
        return false;
    ENetPacket *pkt = rs_net__seal(slot, channel, data, len);
    if (!pkt)
        return false;
    rs_enet_link_ride_ping(p, &slot->ping_ms, RS_NET_PING_MS);
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
    uint64_t kernel = 0;
    if (rs_net__socket_drops(net->host->socket, &kernel)) {
        /* unsigned arithmetic takes a wrap of the kernel's 32-bit count */
        net->stats.drops[RS_NET_DROP_SOCKET_FULL] += (uint32_t)((uint32_t)kernel - net->kernel_drops);
        net->kernel_drops = (uint32_t)kernel;
    }
    *out = net->stats;
    uint32_t used = 0;
    for (size_t i = 0; i < net->host->peerCount; i++)
        if (net->host->peers[i].state != ENET_PEER_STATE_DISCONNECTED)
            used++;
    out->peers_in_use = used;
}
