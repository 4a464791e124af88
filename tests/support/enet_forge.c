/*
 * Hand-made ENet datagrams (enet_forge.h), laid out as ENet 1.3 writes
 * them: big-endian fields, a 4-byte header with the sent time, then
 * commands.
 */
#include "enet_forge.h"

#include <stddef.h>
#include <string.h>

#include <enet/protocol.h>

static void be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
    be16(p, (uint16_t)(v >> 16));
    be16(p + 2, (uint16_t)v);
}

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

bool enet_forge_peer(const uint8_t *d, size_t len, uint16_t *peer)
{
    if (len < 2)
        return false;
    uint16_t word = rd16(d);
    uint16_t id = (uint16_t)(word & ~(ENET_PROTOCOL_HEADER_FLAG_MASK |
                                      ENET_PROTOCOL_HEADER_SESSION_MASK));
    if (id == ENET_PROTOCOL_MAXIMUM_PEER_ID)
        return false;
    *peer = (uint16_t)(word & ~ENET_PROTOCOL_HEADER_FLAG_MASK);
    return true;
}

/* The 4-byte header: peer and session, the sent-time flag, a sent time. */
static size_t header(uint16_t peer, uint8_t *out)
{
    be16(out, (uint16_t)(peer | ENET_PROTOCOL_HEADER_FLAG_SENT_TIME));
    be16(out + 2, 0x1234);
    return 4;
}

size_t enet_forge_unreliable(uint16_t peer, uint8_t channel, uint16_t seq,
                             const uint8_t *payload, size_t len, uint8_t *out, size_t cap)
{
    size_t need = 4 + sizeof(ENetProtocolSendUnreliable) + len;
    if (cap < need || len > 0xffff)
        return 0;
    size_t n = header(peer, out);
    out[n] = ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE;
    out[n + 1] = channel;
    be16(out + n + 2, 0); /* the channel's reliable sequence: none yet */
    be16(out + n + 4, seq);
    be16(out + n + 6, (uint16_t)len);
    n += sizeof(ENetProtocolSendUnreliable);
    memcpy(out + n, payload, len);
    return need;
}

size_t enet_forge_fragment(uint16_t peer, uint8_t channel, uint16_t seq, uint32_t count,
                           uint32_t number, uint32_t total_len, uint32_t offset,
                           const uint8_t *bytes, size_t len, uint8_t *out, size_t cap)
{
    size_t need = 4 + sizeof(ENetProtocolSendFragment) + len;
    if (cap < need || len > 0xffff)
        return 0;
    size_t n = header(peer, out);
    out[n] = ENET_PROTOCOL_COMMAND_SEND_FRAGMENT | ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE;
    out[n + 1] = channel;
    be16(out + n + 2, seq);
    be16(out + n + 4, seq); /* startSequenceNumber: the fragments' packet */
    be16(out + n + 6, (uint16_t)len);
    be32(out + n + 8, count);
    be32(out + n + 12, number);
    be32(out + n + 16, total_len);
    be32(out + n + 20, offset);
    n += sizeof(ENetProtocolSendFragment);
    memcpy(out + n, bytes, len);
    return need;
}

/* The size of a command of this type, as ENet's commandSizes table says. */
static size_t command_size(uint8_t command)
{
    switch (command & ENET_PROTOCOL_COMMAND_MASK) {
    case ENET_PROTOCOL_COMMAND_ACKNOWLEDGE: return sizeof(ENetProtocolAcknowledge);
    case ENET_PROTOCOL_COMMAND_CONNECT: return sizeof(ENetProtocolConnect);
    case ENET_PROTOCOL_COMMAND_VERIFY_CONNECT: return sizeof(ENetProtocolVerifyConnect);
    case ENET_PROTOCOL_COMMAND_DISCONNECT: return sizeof(ENetProtocolDisconnect);
    case ENET_PROTOCOL_COMMAND_PING: return sizeof(ENetProtocolPing);
    case ENET_PROTOCOL_COMMAND_SEND_RELIABLE: return sizeof(ENetProtocolSendReliable);
    case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE: return sizeof(ENetProtocolSendUnreliable);
    case ENET_PROTOCOL_COMMAND_SEND_FRAGMENT: return sizeof(ENetProtocolSendFragment);
    case ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED: return sizeof(ENetProtocolSendUnsequenced);
    case ENET_PROTOCOL_COMMAND_BANDWIDTH_LIMIT: return sizeof(ENetProtocolBandwidthLimit);
    case ENET_PROTOCOL_COMMAND_THROTTLE_CONFIGURE: return sizeof(ENetProtocolThrottleConfigure);
    case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT: return sizeof(ENetProtocolSendFragment);
    default: return 0;
    }
}

/* The payload length a command carries after its fixed part. */
static size_t data_length(const uint8_t *cmd)
{
    switch (cmd[0] & ENET_PROTOCOL_COMMAND_MASK) {
    case ENET_PROTOCOL_COMMAND_SEND_RELIABLE: return rd16(cmd + 4);
    case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE: return rd16(cmd + 6);
    case ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED: return rd16(cmd + 6);
    case ENET_PROTOCOL_COMMAND_SEND_FRAGMENT:
    case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT: return rd16(cmd + 6);
    default: return 0;
    }
}

bool enet_forge_find_unsequenced(const uint8_t *d, size_t len, const uint8_t **payload,
                                 size_t *payload_len, uint8_t *channel, uint16_t *group)
{
    if (len < 2)
        return false;
    size_t at = (rd16(d) & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME) ? 4 : 2;
    while (at + 4 <= len) {
        const uint8_t *cmd = d + at;
        size_t fixed = command_size(cmd[0]);
        if (fixed == 0 || at + fixed > len)
            return false;
        size_t data = data_length(cmd);
        if (at + fixed + data > len)
            return false;
        if ((cmd[0] & ENET_PROTOCOL_COMMAND_MASK) == ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED) {
            *payload = cmd + fixed;
            *payload_len = data;
            *channel = cmd[1];
            *group = rd16(cmd + 4);
            return true;
        }
        at += fixed + data;
    }
    return false;
}
