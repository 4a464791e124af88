/*
 * ENet datagrams made by hand, for tests that play an attacker on the path:
 * someone who sees a client's datagrams (so its address, ENet peer id and
 * session) and sends the server datagrams of their own in its name.
 * ENet 1.3's wire layout only (its protocol header); no ENet library.
 */
#ifndef RS_ENET_FORGE_H
#define RS_ENET_FORGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The peer id and session bits of a client's datagram to the server (its
 * first 16 bits, flags cleared). False for a datagram too short, or one
 * without a peer (a CONNECT). */
bool enet_forge_peer(const uint8_t *datagram, size_t len, uint16_t *peer);

/* One datagram for that peer carrying one unreliable (sequenced) SEND of
 * payload on channel, with unreliable sequence number `seq` (1, 2, ... per
 * channel) and reliable sequence number 0. racesim clients send their
 * unreliable messages unsequenced, so on a channel without reliable
 * traffic (input, frame) ENet delivers these forgeries to the server
 * without disturbing the client's own packets: the racesim layer must
 * refuse them. Returns its length, 0 if cap is too small. */
size_t enet_forge_unreliable(uint16_t peer, uint8_t channel, uint16_t seq,
                             const uint8_t *payload, size_t len, uint8_t *out, size_t cap);

/* One datagram for that peer carrying one reliable SEND_FRAGMENT: fragment
 * `number` of `count` of a packet of total_len bytes, with this fragment's
 * bytes (len of them, at offset), on channel with reliable sequence number
 * `seq`. Returns its length, 0 if cap is too small. */
size_t enet_forge_fragment(uint16_t peer, uint8_t channel, uint16_t seq, uint32_t count,
                           uint32_t number, uint32_t total_len, uint32_t offset,
                           const uint8_t *bytes, size_t len, uint8_t *out, size_t cap);

/* The payload of the first unsequenced SEND in a client's datagram: true
 * with *payload and *len pointing into it, and its channel and group. */
bool enet_forge_find_unsequenced(const uint8_t *datagram, size_t len, const uint8_t **payload,
                                 size_t *payload_len, uint8_t *channel, uint16_t *group);

#endif
