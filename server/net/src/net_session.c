/*
 * The secure session of each peer (protocol/SPEC.md section 8, through
 * racesim/secure.h): the key exchange that precedes everything else, then
 * opening every packet received and sealing every packet sent.
 */
#include "net_internal.h"

#include <string.h>

#include "racesim/protocol.h"

static void count(rs_net *net, rs_net_drop reason)
{
    net->stats.drops[reason]++;
}

/* A client of another protocol version gets the frozen REFUSE in the
 * clear (SPEC.md section 6): it cannot speak our handshake, and words are
 * all it needs. The REFUSE is shorter than any HELLO. */
static void refuse_version(ENetPeer *peer, uint16_t version)
{
    rs_msg m;
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    rs_proto_refuse_version(version, &m);
    if (rs_proto_encode(&m, buf, sizeof buf, &len, NULL) != RS_PROTO_OK)
        return;
    ENetPacket *p = enet_packet_create(buf, len, ENET_PACKET_FLAG_RELIABLE);
    if (p && enet_peer_send(peer, RS_CH_CONTROL, p) < 0 && p->referenceCount == 0)
        enet_packet_destroy(p);
}

static bool fail_key_exchange(rs_net *net, ENetPeer *peer, net_slot *slot, rs_net_drop reason)
{
    count(net, reason);
    slot->state = NET_SLOT_CLOSING;
    rs_secure_session_wipe(&slot->session);
    enet_peer_disconnect_later(peer, 0);
    return false;
}

bool rs_net__key_exchange(rs_net *net, ENetPeer *peer, net_slot *slot, uint8_t channel,
                          const ENetPacket *packet)
{
    uint16_t version = 0;
    if (channel != RS_CH_CONTROL ||
        !rs_secure_frame_version(packet->data, packet->dataLength, &version))
        return fail_key_exchange(net, peer, slot, RS_NET_DROP_HANDSHAKE);
    if (version != RS_PROTO_VERSION) {
        refuse_version(peer, version);
        return fail_key_exchange(net, peer, slot, RS_NET_DROP_VERSION);
    }
    uint8_t reply[RS_SECURE_REPLY_LEN];
    rs_secure_status st = rs_secure_server_answer(net->identity, packet->data,
                                                  packet->dataLength, NULL, reply,
                                                  &slot->session);
    if (st != RS_SECURE_OK)
        return fail_key_exchange(net, peer, slot, RS_NET_DROP_HANDSHAKE);
    ENetPacket *p = enet_packet_create(reply, sizeof reply, ENET_PACKET_FLAG_RELIABLE);
    if (!p || enet_peer_send(peer, RS_CH_CONTROL, p) < 0) {
        if (p && p->referenceCount == 0)
            enet_packet_destroy(p);
        return fail_key_exchange(net, peer, slot, RS_NET_DROP_HANDSHAKE);
    }
    slot->state = NET_SLOT_SECURE;
    net->stats.handshakes++;
    return true;
}

static rs_net_drop drop_reason(rs_secure_status st)
{
    switch (st) {
    case RS_SECURE_AUTH: return RS_NET_DROP_AUTH;
    case RS_SECURE_REPLAY: return RS_NET_DROP_REPLAY;
    case RS_SECURE_STALE: return RS_NET_DROP_STALE;
    case RS_SECURE_CHANNEL: return RS_NET_DROP_CHANNEL;
    default: return RS_NET_DROP_MALFORMED;
    }
}

bool rs_net__open(rs_net *net, net_slot *slot, uint8_t channel, const ENetPacket *packet,
                  size_t *len)
{
    rs_secure_status st = rs_secure_open(&slot->session, channel, packet->data,
                                         packet->dataLength, net->plain, sizeof net->plain, len);
    if (st != RS_SECURE_OK) {
        count(net, drop_reason(st));
        return false;
    }
    return true;
}

ENetPacket *rs_net__seal(net_slot *slot, uint8_t channel, const uint8_t *msg, size_t len)
{
    bool reliable = rs_proto_channel_reliable(channel);
    size_t cap = len + rs_secure_overhead(channel);
    /* Sealed straight into the packet ENet sends: one copy, not two. */
    ENetPacket *p = enet_packet_create(NULL, cap, reliable ? ENET_PACKET_FLAG_RELIABLE
                                                           : ENET_PACKET_FLAG_UNSEQUENCED);
    size_t n = 0;
    if (!p)
        return NULL;
    if (rs_secure_seal(&slot->session, channel, msg, len, p->data, cap, &n) != RS_SECURE_OK) {
        enet_packet_destroy(p);
        return NULL;
    }
    p->dataLength = n;
    return p;
}

void rs_net__sweep_key_exchanges(rs_net *net, int64_t now_us)
{
    for (size_t i = 0; i < net->host->peerCount; i++) {
        net_slot *slot = &net->slots[i];
        /* Unannounced peers only: those still exchanging keys, and those
         * refused that have not gone yet (a refusal had that long to
         * leave). Nothing worth waiting for: the slot is free at once. */
        if ((slot->state == NET_SLOT_KEY_EXCHANGE || slot->state == NET_SLOT_CLOSING) &&
            now_us - slot->connected_us > net->handshake_us) {
            if (slot->state == NET_SLOT_KEY_EXCHANGE)
                count(net, RS_NET_DROP_HANDSHAKE_TIMEOUT);
            enet_peer_disconnect_now(&net->host->peers[i], 0);
            rs_secure_session_wipe(&slot->session);
            slot->state = NET_SLOT_FREE;
            slot->id = 0;
        }
    }
}
