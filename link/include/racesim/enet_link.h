/*
 * What both ends of a racesim connection do with an ENet peer alike (the
 * server in server/net, the client in client_sdk/src/client_enet.c).
 * Internal: not installed, and never seen by a game.
 */
#ifndef RACESIM_ENET_LINK_H
#define RACESIM_ENET_LINK_H

#include <stdbool.h>

#include <enet/enet.h>

/* Sets a newly connected peer's retransmission limits. ENet doubles a
 * reliable packet's retransmission timeout on every loss and by default
 * gives up after 5 doublings and 5 s: on a 150 ms route with 10 % loss
 * each way, one packet in about 20 000 fails 6 times in a row and the
 * player is dropped in mid-race, although FRAMEs and INPUTs still flow.
 * Both ends allow 7 doublings (an attempt about 19 s after the first) and
 * drop the other only after 30 s without an acknowledgement. */
void rs_enet_link_limits(ENetPeer *peer);

/* Queues a keepalive PING (ENet's, which the other end acknowledges) for
 * peer, to leave in the datagram of the packet about to be sent, when ENet
 * would soon send one in a datagram of its own: nothing acknowledged for
 * after_ms, none of ours queued in the last after_ms (*last_ms, on the
 * host's clock), and no reliable command awaiting its acknowledgement
 * (that one refreshes the round trip and the timeout as a PING would; a
 * peer that never acknowledges thus gets one PING, resent by ENet, not one
 * every after_ms). after_ms must be below the peer's ping interval, or
 * ENet's own PING goes first. True when one was queued. */
bool rs_enet_link_ride_ping(ENetPeer *peer, enet_uint32 *last_ms, enet_uint32 after_ms);

#endif
