/*
 * racesim net: the server's ENet transport, behind our own types.
 *
 * One rs_net is one ENet host (one UDP socket, RS_CH_COUNT channels) with
 * the stateless connect cookie of protocol/SPEC.md section 7 in front of
 * it: a cookie request is answered from the socket without allocating
 * anything, and a CONNECT whose data field does not carry a valid cookie
 * for its source address is dropped before ENet gives it a peer. Every
 * connection gets a peer id that is unique for the life of the host (the
 * ENet peer slot in its low 12 bits, a generation above), so a reused slot
 * is never mistaken for the connection that held it before.
 *
 * Events are polled (rs_net_service fills one rs_net_event), time is read
 * from the monotonic clock only for the cookie epoch. <enet/enet.h> is
 * included by net_enet.c alone.
 *
 * Thread rules: an rs_net belongs to one thread at a time.
 */
#ifndef RACESIM_NET_H
#define RACESIM_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h" /* rs_status */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_net_config {
    const char *bind_address; /* IPv4 address or host name to bind; NULL or "" = any */
    uint16_t port;            /* 0 = a free port (rs_net_port tells which). Usually 27960 */
    uint32_t max_clients;     /* ENet peer slots, 1..4095. Usually 512 */
} rs_net_config;

/* Any address, port 27960, 512 clients. Never fails. */
rs_net_config rs_net_config_default(void);

typedef struct rs_net rs_net;

/* Initialises ENet (reference counted by ENet itself), draws the cookie key
 * from /dev/urandom and binds the host. On error returns RS_ERR_IO (cannot
 * bind, no randomness), RS_ERR_RANGE (max_clients) or RS_ERR_NOMEM with a
 * message in err. Caller frees with rs_net_destroy. */
rs_status rs_net_create(const rs_net_config *cfg, rs_net **out, char *err, size_t err_len);

/* Resets every peer without notice and closes the socket. Accepts NULL. */
void rs_net_destroy(rs_net *net);

/* The bound UDP port. Never fails. */
uint16_t rs_net_port(const rs_net *net);

typedef enum rs_net_event_type {
    RS_NET_EVENT_NONE = 0,
    RS_NET_EVENT_CONNECT,    /* a peer completed the handshake (with a valid cookie) */
    RS_NET_EVENT_RECEIVE,    /* one packet from a peer */
    RS_NET_EVENT_DISCONNECT  /* a peer left, timed out or was disconnected */
} rs_net_event_type;

typedef struct rs_net_event {
    uint8_t type;           /* rs_net_event_type */
    uint32_t peer;          /* the connection's id */
    uint8_t channel;        /* RECEIVE: the channel it came on */
    const uint8_t *data;    /* RECEIVE: borrowed until the next rs_net_service or destroy */
    size_t len;
    char address[24];       /* CONNECT, DISCONNECT: "a.b.c.d:port" of the peer, for logs
                               (RECEIVE: empty; see rs_net_peer_address) */
} rs_net_event;

/* Sends queued packets, then waits up to timeout_ms for one event. Returns
 * 1 with *ev filled, 0 when nothing happened in time, -1 on a socket error
 * (ev type NONE). Packets an earlier event lent out are released first. */
int rs_net_service(rs_net *net, uint32_t timeout_ms, rs_net_event *ev);

/* Queues one packet for a peer: reliable (ENet reliable, ordered on its
 * channel) or unreliable and unsequenced. Copied; nothing is kept. Returns
 * false for an unknown peer, a bad channel or an allocation failure. */
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

typedef struct rs_net_stats {
    uint64_t bytes_in, bytes_out;     /* UDP payload bytes, ENet headers included, as ENet counts */
    uint64_t packets_in, packets_out; /* UDP datagrams */
    uint64_t cookies_issued;          /* cookie replies sent */
    uint64_t cookies_rejected;        /* CONNECTs without a valid cookie, dropped */
    uint64_t garbage_dropped;         /* malformed cookie requests, compressed peer-less
                                         datagrams: dropped */
    uint32_t peers_in_use;            /* ENet peer slots not DISCONNECTED right now */
    uint32_t peers_connected;         /* peers that completed the handshake */
} rs_net_stats;

/* Counters since creation, and the current peer slot use. Never fails. */
void rs_net_get_stats(rs_net *net, rs_net_stats *out);

#ifdef __cplusplus
}
#endif

#endif
