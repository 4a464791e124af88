/*
 * racesim net: the server's ENet transport, behind our own types.
 *
 * One rs_net is one ENet host (one UDP socket, RS_CH_COUNT channels) with
 * three guards in front of the rooms:
 *   - the stateless connect cookie of protocol/SPEC.md section 7: a cookie
 *     request is answered from the socket without allocating anything, and
 *     a CONNECT without a valid cookie for its source address is dropped
 *     before ENet gives it a peer;
 *   - ENet's own limits fitted to this protocol (packet size, buffered
 *     data, connections per address);
 *   - the secure session of SPEC.md section 8: a peer is announced to the
 *     caller (RS_NET_EVENT_CONNECT) only after its key exchange, every
 *     packet it sends is opened and authenticated before the caller sees
 *     it, and every packet sent to it is sealed. Packets that fail are
 *     dropped and counted, never delivered.
 * Every datagram the host refuses is counted by reason (rs_net_stats).
 *
 * Every connection gets a peer id that is unique for the life of the host
 * (the ENet peer slot in its low 12 bits, a generation above), so a reused
 * slot is never mistaken for the connection that held it before.
 *
 * Events are polled (rs_net_service fills one rs_net_event); time is read
 * from the monotonic clock for the cookie epoch and handshake deadlines.
 * <enet/enet.h> is included by the files of server/net/src alone.
 *
 * Thread rules: an rs_net belongs to one thread at a time.
 */
#ifndef RACESIM_NET_H
#define RACESIM_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h" /* rs_status */
#include "racesim/secure.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_net_config {
    const char *bind_address; /* IPv4 address or host name to bind; NULL or "" = any */
    uint16_t port;            /* 0 = a free port (rs_net_port tells which). Usually 27960 */
    uint32_t max_clients;     /* ENet peer slots, 1..4095. Usually 512 */
    uint32_t max_per_address; /* connections from one IPv4 address at once (a LAN party
                                 behind one router shares one), 1..max_clients. Usually 8.
                                 Also the address's cookie requests at once (at least 8) */
    uint32_t handshake_ms;    /* a peer that has not completed its key exchange this long
                                 after connecting is dropped, 100..60000. Usually 3000 */
    const rs_secure_identity *identity; /* the server's long-term key pair; required,
                                           borrowed for the life of the rs_net */
    uint32_t socket_buffer_kib; /* the UDP socket's receive buffer, 64..262144 KiB; 0 =
                                   RS_NET_SOCKET_BUFFER_KIB. What the kernel grants is in
                                   rs_net_stats */
} rs_net_config;

/* The default receive buffer: about 100 ms of what 1024 racing clients
 * send (35 datagrams a second each, about 1 KiB of kernel memory apiece on
 * loopback), so a network thread that stands still that long loses
 * nothing. ENet asks for 256 KiB, which held about 11 ms of it: at 64 full
 * rooms the kernel dropped a few thousand datagrams a second. */
#define RS_NET_SOCKET_BUFFER_KIB 4096u
#define RS_NET_SOCKET_BUFFER_KIB_MIN 64u
#define RS_NET_SOCKET_BUFFER_KIB_MAX 262144u /* 256 MiB */

/* Any address, port 27960, 512 clients, 8 per address, 3 s to complete the
 * key exchange, the default socket buffer, no identity (the caller must set
 * one). Never fails. */
rs_net_config rs_net_config_default(void);

typedef struct rs_net rs_net;

/* Initialises ENet (reference counted by ENet itself), draws the cookie key
 * from /dev/urandom and binds the host. On error returns RS_ERR_IO (cannot
 * bind, no randomness), RS_ERR_ARG (no identity), RS_ERR_RANGE (a limit
 * out of range) or RS_ERR_NOMEM with a message in err. Caller frees with
 * rs_net_destroy. */
rs_status rs_net_create(const rs_net_config *cfg, rs_net **out, char *err, size_t err_len);

/* Resets every peer without notice and closes the socket. Accepts NULL. */
void rs_net_destroy(rs_net *net);

/* The bound UDP port. Never fails. */
uint16_t rs_net_port(const rs_net *net);

typedef enum rs_net_event_type {
    RS_NET_EVENT_NONE = 0,
    RS_NET_EVENT_CONNECT,    /* a peer completed the cookie and the key exchange */
    RS_NET_EVENT_RECEIVE,    /* one authenticated message from a peer, decrypted */
    RS_NET_EVENT_DISCONNECT  /* a peer announced by CONNECT left, timed out or was
                                disconnected */
} rs_net_event_type;

typedef struct rs_net_event {
    uint8_t type;           /* rs_net_event_type */
    uint32_t peer;          /* the connection's id */
    uint8_t channel;        /* RECEIVE: the channel it came on */
    const uint8_t *data;    /* RECEIVE: borrowed until the next rs_net_service(_queued)
                               or destroy */
    size_t len;
    char address[24];       /* CONNECT, DISCONNECT: "a.b.c.d:port" of the peer, for logs
                               (RECEIVE: empty; see rs_net_peer_address) */
} rs_net_event;

/* Sends queued packets, then waits up to timeout_ms for one event. Returns
 * 1 with *ev filled, 0 when nothing happened in time, -1 on a socket error
 * (ev type NONE). Packets an earlier event lent out are released first. */
int rs_net_service(rs_net *net, uint32_t timeout_ms, rs_net_event *ev);

/* The next event of what the host has already read from its socket, without
 * sending, reading or waiting: 1 with *ev filled, 0 when none is left.
 * Packets an earlier event lent out are released first, as above. A server
 * in a hurry takes these before its ticks, and leaves the socket for later. */
int rs_net_service_queued(rs_net *net, rs_net_event *ev);

/* Ends a wait in rs_net_service early (it returns 0 if nothing happened).
 * The one call that is safe from any thread: a room worker calls it when a
 * room's update is done, so its packets go out without waiting for the
 * next network event. */
void rs_net_wake(rs_net *net);

/* Seals one message for a peer and queues it: reliable (ENet reliable,
 * ordered on its channel) or unreliable and unsequenced, as the channel
 * requires (rs_proto_channel_reliable; the flag must agree). Copied;
 * nothing is kept. Returns false for an unknown peer, a bad channel, a
 * message over RS_PROTO_MAX_PACKET or an allocation failure. */
bool rs_net_send(rs_net *net, uint32_t peer, uint8_t channel, bool reliable,
                 const uint8_t *data, size_t len);

/* Writes "a.b.c.d:port" of a connected peer into out (cap bytes; 24 is
 * enough); "?" for an unknown peer. */
void rs_net_peer_address(rs_net *net, uint32_t peer, char *out, size_t cap);

/* Disconnects a peer once its queued packets are out (a REFUSE or BYE
 * reaches it); a DISCONNECT event follows. Unknown peers are ignored. */
void rs_net_disconnect_later(rs_net *net, uint32_t peer);

/* Disconnects every peer once its queued packets are out. */
void rs_net_disconnect_all_later(rs_net *net);

/* Sends everything queued now, without waiting. */
void rs_net_flush(rs_net *net);

/* Why a datagram or a packet was refused. Every refusal is counted under
 * exactly one reason. */
typedef enum rs_net_drop {
    RS_NET_DROP_SHORT = 0,      /* shorter than an ENet header */
    RS_NET_DROP_UNKNOWN_PEER,   /* for a peer slot that does not exist, is free, belongs
                                   to another address or session */
    RS_NET_DROP_NO_CONNECT,     /* peer-less and not a CONNECT */
    RS_NET_DROP_COMPRESSED,     /* ENet compression (never used by racesim) */
    RS_NET_DROP_COOKIE,         /* a CONNECT without a valid cookie */
    RS_NET_DROP_COOKIE_REQUEST, /* a malformed cookie request */
    RS_NET_DROP_COOKIE_RATE,    /* a cookie request over its address's budget
                                   (max_per_address but at least 8 at once, 4 a second),
                                   unanswered */
    RS_NET_DROP_HANDSHAKE,      /* a malformed key offer, a weak key, or a packet before
                                   the key exchange: the peer is disconnected */
    RS_NET_DROP_HANDSHAKE_TIMEOUT, /* a peer that never completed the key exchange */
    RS_NET_DROP_VERSION,        /* a client of another protocol version (refused in words) */
    RS_NET_DROP_MALFORMED,      /* a sealed packet too short or too long */
    RS_NET_DROP_AUTH,           /* a sealed packet that failed authentication */
    RS_NET_DROP_REPLAY,         /* a sealed packet already delivered */
    RS_NET_DROP_STALE,          /* a sealed packet older than the replay window */
    RS_NET_DROP_CHANNEL,        /* a packet on a channel this protocol does not have */
    RS_NET_DROP_SOCKET_FULL,    /* a datagram the kernel dropped because the socket's
                                   receive buffer was full: the network thread fell behind
                                   (its count as the kernel keeps it, where it can tell) */
    RS_NET_DROP_COUNT
} rs_net_drop;

/* The reason's name in logs and stats ("auth", "unknown_peer"). */
const char *rs_net_drop_name(rs_net_drop reason);

typedef struct rs_net_stats {
    uint64_t bytes_in, bytes_out;     /* UDP payload bytes, ENet headers included, as ENet counts */
    uint64_t packets_in, packets_out; /* UDP datagrams */
    uint64_t cookies_issued;          /* cookie replies sent */
    uint64_t handshakes;              /* key exchanges completed */
    uint64_t drops[RS_NET_DROP_COUNT];/* refusals by reason (rs_net_drop) */
    uint32_t peers_in_use;            /* ENet peer slots not DISCONNECTED right now */
    uint32_t peers_connected;         /* peers announced by CONNECT and not yet gone */
    uint32_t socket_buffer_kib;       /* the receive buffer the kernel granted (its own
                                         bookkeeping included, so up to twice what was
                                         asked), 0 if it cannot tell */
} rs_net_stats;

/* Counters since creation, and the current peer slot use. Never fails. */
void rs_net_get_stats(rs_net *net, rs_net_stats *out);

#ifdef __cplusplus
}
#endif

#endif
