/*
 * What the server's ENet host refuses before ENet parses a datagram
 * (net_internal.h): cookie requests are answered here, CONNECTs without a
 * valid cookie are dropped (protocol/SPEC.md section 7), and the datagrams
 * ENet itself would ignore without a word (too short, for a peer slot that
 * is free or belongs to another address or session, peer-less but not a
 * CONNECT, compressed) are refused here instead, so that each is counted by
 * reason. The checks mirror the start of ENet 1.3's
 * enet_protocol_handle_incoming_commands; whatever passes them ENet still
 * checks itself.
 */
#include "net_internal.h"

#include <stddef.h>
#include <string.h>

#include "racesim/base/clock.h"

_Thread_local rs_net *rs_net__servicing;

static uint32_t read_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Returns 1: the datagram is consumed (ENet never sees it). */
static int refuse(rs_net *net, rs_net_drop reason)
{
    net->stats.drops[reason]++;
    return 1;
}

/* One address's cookie budget: a token bucket of net->cookie_burst
 * requests refilled at RS_NET_COOKIE_PER_S. The table is small and keyed
 * by a keyed hash, so nobody can aim collisions at another address; two
 * addresses that share a slot only reset each other's budget. */
static bool cookie_budget(rs_net *net, uint32_t ipv4)
{
    uint8_t b[4];
    memcpy(b, &ipv4, sizeof b);
    uint64_t h = rs_siphash24(&net->key, b, sizeof b);
    net_cookie_bucket *k = &net->cookie_buckets[h % RS_NET_COOKIE_BUCKETS];
    int64_t now = rs_clock_us();
    if (k->ipv4 != ipv4 || k->at_us == 0) {
        k->ipv4 = ipv4;
        k->tokens = net->cookie_burst;
    } else {
        int64_t refill = (now - k->at_us) * RS_NET_COOKIE_PER_S / 1000000;
        if (refill > 0)
            k->tokens = (uint32_t)(k->tokens + refill > net->cookie_burst
                                       ? net->cookie_burst
                                       : k->tokens + refill);
        else
            now = k->at_us; /* keep the fraction for the next request */
    }
    k->at_us = now;
    if (k->tokens == 0)
        return false;
    k->tokens--;
    return true;
}

/* "RSCK..." datagrams: our cookie requests. As an ENet header that would
 * be a compressed datagram, which this host never accepts anyway. */
static int cookie_request(rs_net *net, ENetHost *host, const uint8_t *d, size_t n)
{
    if (!rs_cookie_is_request(d, n))
        return refuse(net, RS_NET_DROP_COOKIE_REQUEST);
    if (!cookie_budget(net, host->receivedAddress.host))
        return refuse(net, RS_NET_DROP_COOKIE_RATE);
    uint8_t reply[RS_COOKIE_REP_LEN];
    uint32_t cookie = rs_cookie_make(&net->key, host->receivedAddress.host,
                                     host->receivedAddress.port, rs_cookie_epoch(rs_clock_us()));
    rs_cookie_reply(cookie, reply);
    ENetBuffer buf;
    buf.data = reply;
    buf.dataLength = sizeof reply;
    /* 16 bytes out for 48 in: no amplification. */
    if (enet_socket_send(host->socket, &host->receivedAddress, &buf, 1) > 0)
        net->stats.cookies_issued++;
    return 1;
}

/* A datagram for an existing peer slot: the slot must be in use by this
 * address with this session, as ENet requires. */
static int for_peer(rs_net *net, ENetHost *host, uint16_t peer_id, uint16_t word)
{
    if (peer_id >= host->peerCount)
        return refuse(net, RS_NET_DROP_UNKNOWN_PEER);
    const ENetPeer *peer = &host->peers[peer_id];
    unsigned session = (unsigned)(word & ENET_PROTOCOL_HEADER_SESSION_MASK) >>
                       ENET_PROTOCOL_HEADER_SESSION_SHIFT;
    if (peer->state == ENET_PEER_STATE_DISCONNECTED || peer->state == ENET_PEER_STATE_ZOMBIE ||
        host->receivedAddress.host != peer->address.host ||
        host->receivedAddress.port != peer->address.port ||
        (peer->outgoingPeerID < ENET_PROTOCOL_MAXIMUM_PEER_ID &&
         session != peer->incomingSessionID))
        return refuse(net, RS_NET_DROP_UNKNOWN_PEER);
    return 0;
}

/* A peer-less datagram: ENet processes it only if its first command is a
 * CONNECT, and only a CONNECT carrying a valid cookie gets that far. */
static int peerless(rs_net *net, ENetHost *host, const uint8_t *d, size_t n, size_t hs)
{
    if (n < hs + 1 || (d[hs] & ENET_PROTOCOL_COMMAND_MASK) != ENET_PROTOCOL_COMMAND_CONNECT)
        return refuse(net, RS_NET_DROP_NO_CONNECT);
    if (n < hs + sizeof(ENetProtocolConnect))
        return refuse(net, RS_NET_DROP_COOKIE);
    uint32_t cookie = read_be32(d + hs + offsetof(ENetProtocolConnect, data));
    if (!rs_cookie_valid(&net->key, host->receivedAddress.host, host->receivedAddress.port,
                         rs_cookie_epoch(rs_clock_us()), cookie))
        return refuse(net, RS_NET_DROP_COOKIE);
    return 0;
}

int ENET_CALLBACK rs_net__intercept(ENetHost *host, ENetEvent *event)
{
    (void)event;
    rs_net *net = rs_net__servicing;
    if (!net || net->host != host)
        return 0;
    const uint8_t *d = host->receivedData;
    size_t n = host->receivedDataLength;
    if (n >= 4 && memcmp(d, "RSCK", 4) == 0)
        return cookie_request(net, host, d, n);
    if (n < offsetof(ENetProtocolHeader, sentTime))
        return refuse(net, RS_NET_DROP_SHORT);
    uint16_t word = (uint16_t)((unsigned)d[0] << 8 | d[1]); /* network byte order */
    uint16_t peer_id = (uint16_t)(word & ~(ENET_PROTOCOL_HEADER_FLAG_MASK |
                                           ENET_PROTOCOL_HEADER_SESSION_MASK));
    if (word & ENET_PROTOCOL_HEADER_FLAG_COMPRESSED)
        return refuse(net, RS_NET_DROP_COMPRESSED);
    if (peer_id != ENET_PROTOCOL_MAXIMUM_PEER_ID)
        return for_peer(net, host, peer_id, word);
    size_t hs = (word & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME)
                    ? sizeof(ENetProtocolHeader)
                    : offsetof(ENetProtocolHeader, sentTime);
    return peerless(net, host, d, n, hs);
}
