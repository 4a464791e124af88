/*
 * The ENet adapter's shared state (racesim/net.h), for its three files:
 * net_enet.c (the host, events and sends), net_guard.c (what the intercept
 * hook refuses before ENet parses a datagram) and net_session.c (the key
 * exchange and the sealed packets of each peer).
 */
#ifndef RACESIM_NET_INTERNAL_H
#define RACESIM_NET_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <enet/enet.h>
#include <enet/time.h>

#include "racesim/net.h"
#include "racesim/net_cookie.h"
#include "racesim/secure.h"

typedef enum net_slot_state {
    NET_SLOT_FREE = 0,      /* no connection */
    NET_SLOT_KEY_EXCHANGE,  /* ENet-connected, waiting for the key offer */
    NET_SLOT_SECURE,        /* keys agreed: announced to the caller */
    NET_SLOT_CLOSING        /* refused or failed: disconnecting, nothing delivered */
} net_slot_state;

typedef struct net_slot {
    uint32_t id;             /* the current connection's id; 0 = no connection */
    uint32_t gen;            /* generation of the last connection in this slot */
    uint8_t state;           /* net_slot_state */
    int64_t connected_us;    /* when ENet connected it (the key exchange deadline) */
    enet_uint32 ping_ms;     /* ENet time of the last keepalive put on a packet (rs_net_send) */
    rs_secure_session session;
} net_slot;

/* Cookie requests per address (net_guard.c): a client asks every 250 ms
 * until answered, so 4 a second more are plenty. At once, an address may
 * ask for as many as it may hold connections (at least 8): a LAN party
 * allowed 64 connections can all join in the same second. */
#define RS_NET_COOKIE_BUCKETS 4096u
#define RS_NET_COOKIE_BURST_MIN 8u
#define RS_NET_COOKIE_PER_S 4

typedef struct net_cookie_bucket {
    uint32_t ipv4;
    uint32_t tokens;
    int64_t at_us;           /* the last refill; 0 = unused */
} net_cookie_bucket;

struct rs_net {
    ENetHost *host;
    net_slot *slots;         /* one per ENet peer slot */
    bool enet_ready;         /* enet_initialize succeeded: deinitialize on destroy */
    rs_cookie_key key;
    const rs_secure_identity *identity;
    int64_t handshake_us;    /* the key exchange deadline after connecting */
    int64_t next_sweep_us;   /* when to look for peers past that deadline */
    uint32_t cookie_burst;   /* cookie requests one address may make at once */
    uint8_t plain[RS_PROTO_MAX_PACKET]; /* the last RECEIVE's message, opened */
    net_cookie_bucket cookie_buckets[RS_NET_COOKIE_BUCKETS];
    rs_net_stats stats;
    int wake_fd;             /* eventfd: rs_net_wake ends a wait from another thread; -1 = none */
    uint32_t kernel_drops;   /* the kernel's drop count when last read (it wraps at 2^32) */
};

/* net_socket.c: asks the kernel for a receive buffer of kib KiB (past
 * net.core.rmem_max where the process may) and returns what it granted in
 * KiB, 0 if it cannot tell. */
uint32_t rs_net__socket_buffer(int fd, uint32_t kib);

/* net_socket.c: the datagrams the kernel dropped for a full receive buffer
 * since the socket was made (a 32-bit count that wraps); false where the
 * kernel does not say (SO_MEMINFO, Linux 4.6). */
bool rs_net__socket_drops(int fd, uint64_t *drops);

/* net_guard.c: ENet's intercept hook. Answers cookie requests, refuses and
 * counts what ENet would drop silently, and CONNECTs without a cookie. */
int ENET_CALLBACK rs_net__intercept(ENetHost *host, ENetEvent *event);

/* The rs_net being serviced on this thread (the hook has no user pointer). */
extern _Thread_local rs_net *rs_net__servicing;

/* net_session.c: a packet from a peer in KEY_EXCHANGE: answers a valid key
 * offer (true: the peer is now SECURE and must be announced), or refuses
 * it in words or silently, counts why and disconnects the peer. */
bool rs_net__key_exchange(rs_net *net, ENetPeer *peer, net_slot *slot, uint8_t channel,
                          const ENetPacket *packet);

/* net_session.c: opens a packet from a SECURE peer into net->plain. False
 * (counted) if it does not open. */
bool rs_net__open(rs_net *net, net_slot *slot, uint8_t channel, const ENetPacket *packet,
                  size_t *len);

/* net_session.c: a sealed ENet packet carrying msg on channel, or NULL. */
ENetPacket *rs_net__seal(net_slot *slot, uint8_t channel, const uint8_t *msg, size_t len);

/* net_session.c: frees the slots of peers never announced (key exchange
 * not completed, or refused) past the deadline. */
void rs_net__sweep_key_exchanges(rs_net *net, int64_t now_us);

#endif
