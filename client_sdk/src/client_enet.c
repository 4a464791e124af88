/*
 * The ENet transport of the client: the only file of the SDK that includes
 * <enet/enet.h> (what it does as the server does is in racesim/enet_link.h).
 * It performs the connect cookie exchange of SPEC.md section 7, then an
 * ENet connection with RS_CH_COUNT channels, then the key exchange of
 * section 8, and moves sealed packets between ENet and the client's
 * dispatch (reliable messages with ENET_PACKET_FLAG_RELIABLE, the others
 * ENET_PACKET_FLAG_UNSEQUENCED, each on its message's channel). The client
 * says HELLO only once the session is secure and the server's key trusted
 * (client_trust.c).
 *
 * The cookie: before ENet allocates a peer on the server, the client sends
 * from its host's socket a 48-byte request ("RSCKREQ1" and 40 zero bytes)
 * every 250 ms until a 16-byte reply ("RSCKREP1", u32 LE cookie, u32 LE 0)
 * comes from the server's address; the reply is consumed by the host's
 * intercept hook, and the cookie rides in the CONNECT command's data field.
 */
#include "client_internal.h"
#include "racesim/enet_link.h"
#include "racesim/secure.h"
#include "racesim/base/err.h"

#include <stdlib.h>
#include <string.h>

#include <enet/enet.h>

#define COOKIE_REQ_LEN 48u
#define COOKIE_REP_LEN 16u
#define COOKIE_RETRY_US 250000
#define UDP_IP_HEADER 28u /* IPv4 (20) + UDP (8) per datagram, for wire totals */
#define PING_RIDE_MS 400u /* below ENet's ping interval (500 ms), so ours goes first */

struct rs_client_enet {
    ENetHost *host;
    ENetPeer *peer;
    ENetAddress server;
    bool have_cookie;
    uint32_t cookie;
    bool connect_sent;
    int64_t next_request_us;
    uint64_t wire_in, wire_out, wire_pkts_in, wire_pkts_out;
    uint64_t errors;   /* enet_host_service failures */
    uint64_t rejected; /* sealed packets that did not open */
    enet_uint32 ping_ms; /* ENet time of the last keepalive put on a packet */
    /* the secure session */
    rs_client_trust trust;
    bool keying;       /* the key offer is out, the reply not in */
    bool secure;       /* keys agreed, server key trusted */
    rs_secure_client_hs hs;
    rs_secure_session session;
    uint8_t server_key[RS_SECURE_KEY_LEN];
    rs_client_key_trust key_trust;
    uint8_t plain[RS_PROTO_MAX_PACKET];
};

/* ENet's intercept hook sees every datagram before ENet parses it. ENetHost
 * has no user pointer, so the client's transport rides in
 * compressor.context: ENet 1.3 calls compressor functions only when they
 * are set, and they stay NULL here, so the pointer is never used by ENet. */
static int ENET_CALLBACK intercept(ENetHost *host, ENetEvent *event)
{
    (void)event;
    rs_client_enet *e = host->compressor.context;
    if (!e)
        return 0;
    const uint8_t *d = host->receivedData;
    size_t n = host->receivedDataLength;
    if (n == COOKIE_REP_LEN && memcmp(d, "RSCKREP1", 8) == 0) {
        /* Only the server we asked may hand us a cookie. */
        if (host->receivedAddress.host == e->server.host &&
            host->receivedAddress.port == e->server.port && !e->have_cookie) {
            uint32_t cookie = (uint32_t)d[8] | (uint32_t)d[9] << 8 | (uint32_t)d[10] << 16 |
                              (uint32_t)d[11] << 24;
            if (cookie != 0) {
                e->cookie = cookie;
                e->have_cookie = true;
            }
        }
        return 1;
    }
    return 0;
}

static void send_cookie_request(rs_client_enet *e)
{
    uint8_t req[COOKIE_REQ_LEN];
    memset(req, 0, sizeof req);
    memcpy(req, "RSCKREQ1", 8);
    ENetBuffer buf;
    buf.data = req;
    buf.dataLength = sizeof req;
    if (enet_socket_send(e->host->socket, &e->server, &buf, 1) > 0) {
        e->wire_out += COOKIE_REQ_LEN + UDP_IP_HEADER;
        e->wire_pkts_out++;
    }
}

rs_client_status rs_client__enet_open(rs_client *c, const char *host, uint16_t port,
                                      int64_t now_us, char *err, size_t err_len)
{
    if (enet_initialize() != 0) {
        rs_errf(err, err_len, "enet_initialize failed");
        return RS_CLIENT_ERR_NET;
    }
    rs_client_enet *e = calloc(1, sizeof *e);
    if (!e) {
        rs_errf(err, err_len, "out of memory");
        return RS_CLIENT_ERR_NOMEM;
    }
    c->enet = e;
    rs_client_status st = rs_client__trust_init(&e->trust, &c->cfg, host, port, err, err_len);
    /* Copied: the caller's strings need not outlive this call. */
    c->cfg.server_key = c->cfg.known_hosts = NULL;
    if (st != RS_CLIENT_OK)
        return st;
    if (enet_address_set_host(&e->server, host) != 0) {
        rs_errf(err, err_len, "host '%s' does not resolve", host);
        return RS_CLIENT_ERR_NET;
    }
    e->server.port = port;
    e->host = enet_host_create(NULL, 1, RS_CH_COUNT, 0, 0);
    if (!e->host) {
        rs_errf(err, err_len, "could not create the ENet host (socket)");
        return RS_CLIENT_ERR_NET;
    }
    /* No server message is larger than one sealed packet (ENet's default
     * would let a hostile server make us buffer 32 MiB). */
    e->host->maximumPacketSize = RS_SECURE_MAX_PACKET;
    e->host->compressor.context = e;
    e->host->intercept = intercept;
    send_cookie_request(e);
    e->next_request_us = now_us + COOKIE_RETRY_US;
    return RS_CLIENT_OK;
}

/* Moves ENet's 32-bit counters into our 64-bit totals. */
static void harvest_counters(rs_client_enet *e)
{
    ENetHost *h = e->host;
    e->wire_in += (uint64_t)h->totalReceivedData + (uint64_t)h->totalReceivedPackets *
                                                       UDP_IP_HEADER;
    e->wire_pkts_in += h->totalReceivedPackets;
    e->wire_out += (uint64_t)h->totalSentData + (uint64_t)h->totalSentPackets * UDP_IP_HEADER;
    e->wire_pkts_out += h->totalSentPackets;
    h->totalReceivedData = h->totalReceivedPackets = 0;
    h->totalSentData = h->totalSentPackets = 0;
}

/* ENet connected: offer our ephemeral key (SPEC.md section 8). */
static void offer_keys(rs_client *c, rs_client_enet *e)
{
    ENetPacket *p = NULL;
    if (rs_secure_client_offer(&e->hs, NULL) == RS_SECURE_OK)
        p = enet_packet_create(e->hs.offer, sizeof e->hs.offer, ENET_PACKET_FLAG_RELIABLE);
    if (!p || enet_peer_send(e->peer, RS_CH_CONTROL, p) != 0) {
        if (p)
            enet_packet_destroy(p);
        rs_client__close(c, RS_REASON_OTHER, "could not start the key exchange", false);
        return;
    }
    e->keying = true;
}

/* The first packet after our offer: the server's signed reply, or a
 * REFUSE in the clear from a server that cannot speak our version. */
static void key_reply(rs_client *c, rs_client_enet *e, uint8_t channel, const ENetPacket *p,
                      int64_t now_us)
{
    if (channel == RS_CH_CONTROL && p->dataLength > 0 && p->data[0] == RS_MSG_REFUSE) {
        rs_client__handle_packet(c, channel, p->data, p->dataLength, now_us);
        return;
    }
    e->keying = false;
    rs_secure_status st = rs_secure_client_finish(&e->hs, p->data, p->dataLength,
                                                  e->server_key, &e->session);
    char why[RS_PROTO_TEXT_MAX + 1];
    if (st == RS_SECURE_VERSION) {
        rs_client__close(c, RS_REASON_VERSION, "the server's key exchange is of another "
                         "protocol version", false);
        return;
    }
    if (st != RS_SECURE_OK) {
        rs_errf(why, sizeof why, "the server's key exchange failed (%s): refusing to go on",
                rs_secure_status_str(st));
        rs_client__close(c, RS_REASON_SERVER_KEY, why, false);
        return;
    }
    e->key_trust = rs_client__trust_check(&e->trust, e->server_key, why, sizeof why);
    if (e->key_trust == RS_CLIENT_KEY_NONE) {
        rs_secure_session_wipe(&e->session);
        rs_client__close(c, RS_REASON_SERVER_KEY, why, false);
        return;
    }
    e->secure = true;
    rs_client__link_up(c, now_us);
}

static void open_packet(rs_client *c, rs_client_enet *e, uint8_t channel, const ENetPacket *p,
                        int64_t now_us)
{
    size_t n = 0;
    if (rs_secure_open(&e->session, channel, p->data, p->dataLength, e->plain, sizeof e->plain,
                       &n) != RS_SECURE_OK) {
        e->rejected++;
        return;
    }
    rs_client__handle_packet(c, channel, e->plain, n, now_us);
}

rs_client_key_trust rs_client_server_key(const rs_client *c, char hex[65])
{
    const rs_client_enet *e = c ? c->enet : NULL;
    hex[0] = '\0';
    if (!e || !e->secure)
        return RS_CLIENT_KEY_NONE;
    rs_secure_key_to_hex(e->server_key, hex);
    return e->key_trust;
}

void rs_client__enet_service(rs_client *c, int64_t now_us)
{
    rs_client_enet *e = c->enet;
    if (!e || !e->host)
        return;
    if (c->state == RS_CLIENT_CONNECTING && !e->connect_sent && !e->have_cookie &&
        now_us >= e->next_request_us) {
        send_cookie_request(e);
        e->next_request_us = now_us + COOKIE_RETRY_US;
    }
    /* One pass over the socket, then what it brought: enet_host_service
     * reads every datagram waiting but returns after the first event, and
     * calling it again for the next one read the socket again, nearly
     * always to find it empty. enet_host_check_events hands out the rest
     * without a system call (docs/PERFORMANCE.md, "The client reads its
     * socket once per update"). */
    ENetEvent ev;
    int r = enet_host_service(e->host, &ev, 0);
    for (int guard = 0; guard < 4096; guard++, r = enet_host_check_events(e->host, &ev)) {
        if (r < 0)
            e->errors++;
        if (r <= 0)
            break;
        switch (ev.type) {
        case ENET_EVENT_TYPE_CONNECT:
            offer_keys(c, e);
            break;
        case ENET_EVENT_TYPE_RECEIVE:
            if (ev.packet->dataLength == 0 || ev.channelID >= RS_CH_COUNT)
                c->malformed++;
            else if (e->secure)
                open_packet(c, e, ev.channelID, ev.packet, now_us);
            else if (e->keying)
                key_reply(c, e, ev.channelID, ev.packet, now_us);
            else
                c->malformed++;
            enet_packet_destroy(ev.packet);
            break;
        case ENET_EVENT_TYPE_DISCONNECT:
            e->peer = NULL;
            if (c->state != RS_CLIENT_CLOSED)
                rs_client__link_down(c, now_us);
            break;
        default:
            break;
        }
    }
    /* The CONNECT goes out once the hook has the cookie (not from inside
     * the hook: ENet is in the middle of receiving then). */
    if (e->have_cookie && !e->connect_sent && c->state == RS_CLIENT_CONNECTING) {
        e->peer = enet_host_connect(e->host, &e->server, RS_CH_COUNT, e->cookie);
        e->connect_sent = true;
        if (!e->peer)
            rs_client__close(c, RS_REASON_OTHER, "ENet could not start the connection", false);
        else {
            /* As the server does; the client's own silence timeout
             * (timeout_ms) still applies. */
            rs_enet_link_limits(e->peer);
            e->ping_ms = e->host->serviceTime;
        }
    }
    enet_host_flush(e->host);
    harvest_counters(e);
}

bool rs_client__enet_send(rs_client *c, uint8_t channel, bool reliable, const uint8_t *bytes,
                          size_t len)
{
    rs_client_enet *e = c->enet;
    if (!e || !e->peer || !e->secure || channel >= RS_CH_COUNT ||
        reliable != rs_proto_channel_reliable(channel))
        return false;
    size_t cap = len + rs_secure_overhead(channel), n = 0;
    ENetPacket *p = enet_packet_create(NULL, cap, reliable ? ENET_PACKET_FLAG_RELIABLE
                                                           : ENET_PACKET_FLAG_UNSEQUENCED);
    if (!p)
        return false;
    if (rs_secure_seal(&e->session, channel, bytes, len, p->data, cap, &n) != RS_SECURE_OK) {
        enet_packet_destroy(p);
        return false;
    }
    p->dataLength = n;
    /* ENet pings the server, in a datagram of its own, whenever nothing
     * was acknowledged for its ping interval (500 ms); a racing client
     * sends an INPUT every few ticks, so the PING rides on one of those
     * a little earlier instead. Elsewhere (the lobby) ENet pings as it
     * always did: these PINGs keep ENet's round trip, and so its resend
     * time for reliable messages, fresh on a lossy route. */
    rs_enet_link_ride_ping(e->peer, &e->ping_ms, PING_RIDE_MS);
    if (enet_peer_send(e->peer, channel, p) != 0) {
        enet_packet_destroy(p);
        return false;
    }
    return true;
}

void rs_client__enet_flush(rs_client *c)
{
    if (c->enet && c->enet->host) {
        enet_host_flush(c->enet->host);
        harvest_counters(c->enet);
    }
}

void rs_client__enet_close(rs_client *c)
{
    rs_client_enet *e = c->enet;
    if (!e || !e->host)
        return;
    if (e->peer)
        enet_peer_disconnect_later(e->peer, 0);
    enet_host_flush(e->host);
    harvest_counters(e);
}

void rs_client__enet_destroy(rs_client *c)
{
    rs_client_enet *e = c->enet;
    if (!e)
        return;
    if (e->host) {
        /* A last flush so a queued BYE or disconnect has a chance to leave. */
        enet_host_flush(e->host);
        e->host->compressor.context = NULL;
        enet_host_destroy(e->host);
    }
    rs_secure_wipe(e, sizeof *e);
    free(e);
    c->enet = NULL;
}

/* When ENet next has something to do without being spoken to: resend the
 * cookie request, retransmit a reliable packet (and judge the link dead),
 * or ping an idle peer. Its other timers only matter with bandwidth limits,
 * which the client does not set; anything received wakes the caller
 * through the socket. ENet counts whole milliseconds on its own clock, so
 * a wait is measured from enet_time_get and rounded up. */
int64_t rs_client__enet_next_us(const rs_client *c, int64_t now_us)
{
    const rs_client_enet *e = c->enet;
    int64_t due = INT64_MAX;
    if (!e || !e->host)
        return due;
    if (c->state == RS_CLIENT_CONNECTING && !e->connect_sent && !e->have_cookie)
        due = e->next_request_us;
    const ENetPeer *p = e->peer;
    if (!p || p->state == ENET_PEER_STATE_DISCONNECTED || p->state == ENET_PEER_STATE_ZOMBIE)
        return due;
    enet_uint32 t = enet_time_get();
    int32_t wait_ms = INT32_MAX;
    if (!enet_list_empty(&p->sentReliableCommands))
        wait_ms = (int32_t)(p->nextTimeout - t); /* anything queued waits for its acks */
    else if (!enet_list_empty(&p->outgoingCommands) || !enet_list_empty(&p->acknowledgements))
        return now_us; /* queued, not yet on the wire */
    else if (p->state == ENET_PEER_STATE_CONNECTED)
        wait_ms = (int32_t)(p->lastReceiveTime + p->pingInterval - t);
    if (wait_ms != INT32_MAX) {
        int64_t at = now_us + (wait_ms > 0 ? (int64_t)wait_ms * 1000 + 1000 : 0);
        if (at < due)
            due = at;
    }
    return due;
}

int rs_client__enet_fd(const rs_client *c)
{
    const rs_client_enet *e = c->enet;
    return e && e->host ? (int)e->host->socket : -1;
}

void rs_client__enet_wire(const rs_client *c, rs_client_stats *out)
{
    const rs_client_enet *e = c->enet;
    if (!e)
        return;
    out->wire_bytes_in = e->wire_in;
    out->wire_bytes_out = e->wire_out;
    out->wire_packets_in = e->wire_pkts_in;
    out->wire_packets_out = e->wire_pkts_out;
    out->transport_errors = e->errors;
    out->sealed_rejected = e->rejected;
    if (e->peer) {
        double l = (double)e->peer->packetLoss / ENET_PEER_PACKET_LOSS_SCALE;
        if (l > out->loss)
            out->loss = l;
    }
}
