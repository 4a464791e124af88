/*
 * A racesim client written against protocol/SPEC.md by hand, for tests
 * that must see or shape every packet: the connect cookie (section 7), the
 * ENet connection, the key exchange (section 8), then sealed messages, with
 * ways to send what a real client never would (plaintext, junk, nothing).
 * The SDK is the client everywhere else.
 *
 * The server may run in the same process: pump (if set) is called while
 * waiting, so it can take its turn.
 */
#ifndef RS_TEST_RAW_CLIENT_H
#define RS_TEST_RAW_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <enet/enet.h>

#include "racesim/protocol.h"
#include "racesim/secure.h"

typedef struct raw_client {
    ENetHost *host;
    ENetPeer *peer;
    ENetAddress server;
    void (*pump)(void *ctx);
    void *pump_ctx;
    bool offer_keys;      /* answer ENet's CONNECT with a key offer (default true) */
    bool connected;       /* ENet's connection is up */
    bool secure;          /* the key exchange completed */
    bool gone;            /* ENet disconnected */
    rs_secure_client_hs hs;
    rs_secure_session session;
    uint8_t server_key[RS_SECURE_KEY_LEN];
} raw_client;

/* Gets a cookie from 127.0.0.1:port and starts ENet's connection with it.
 * False if no cookie came within 2 s. */
bool raw_client_open(raw_client *c, uint16_t port, void (*pump)(void *), void *pump_ctx);

/* The same from a socket bound to the local address from (a dotted IPv4
 * address: any of 127.0.0.0/8 on Linux), to play another machine. */
bool raw_client_open_from(raw_client *c, const char *from, uint16_t port, void (*pump)(void *),
                          void *pump_ctx);

/* The 16 bits this client's datagrams start with (ENet peer id and
 * session, flags clear), for hand-made datagrams in its name. */
uint16_t raw_client_peer_word(const raw_client *c);

/* Sends one whole datagram from the client's socket to the server. */
bool raw_client_send_datagram(raw_client *c, const uint8_t *bytes, size_t len);

/* Services ENet for up to timeout_ms: completes the key exchange on its
 * own; true with *out filled when a message arrived (a plaintext REFUSE
 * before the exchange, or a sealed message opened and decoded). */
bool raw_client_poll(raw_client *c, int timeout_ms, rs_msg *out);

/* Polls until a message of type arrives (true) or timeout_ms passes. */
bool raw_client_wait(raw_client *c, uint8_t type, rs_msg *out, int timeout_ms);

/* Polls until the session is secure (true) or timeout_ms passes. */
bool raw_client_wait_secure(raw_client *c, int timeout_ms);

/* Seals m on its channel and sends it (the session must be secure). */
void raw_client_send(raw_client *c, const rs_msg *m);

/* A HELLO as a guest called name, for room ("" = default). */
void raw_client_hello(raw_client *c, const char *name, const char *room);

/* Sends bytes as they are on channel (ENet reliable or unsequenced as the
 * channel is), as an attacker who can inject into this ENet peer would. */
void raw_client_send_bytes(raw_client *c, uint8_t channel, const uint8_t *bytes, size_t len);

/* Says goodbye at the ENet level and waits up to timeout_ms for the
 * server's acknowledgement, then destroys the host. */
void raw_client_disconnect(raw_client *c, int timeout_ms);

/* Destroys the ENet host (the server sees a timeout later). */
void raw_client_close(raw_client *c);

#endif
