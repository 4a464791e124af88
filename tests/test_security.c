/*
 * The server on the open internet, end to end: the real raceserver program
 * and SDK clients over loopback, with a relay in between that records every
 * datagram and lets the test act as an attacker on the path.
 *
 * - Nothing secret travels in the clear: through registration, a login
 *   with the issued token (an administrator's credential, since racectl
 *   made the player one), a room password, a tune save and an admin
 *   command, no recorded datagram contains the token, the password, the
 *   tune or even the player's name.
 * - Replayed and altered packets, and forged INPUTs for a racing player's
 *   car, injected into that player's ENet peer (whose address, peer id and
 *   session the attacker sees): each one is refused and counted by reason,
 *   and the player's car drives on its own inputs only, session intact.
 * - One address opening connections in a loop gets at most its share of
 *   the server, and a real client still joins.
 * - A flood of maximal fragmented packets from connected attackers keeps
 *   the server's memory within the documented bound (docs/RACESERVER.md,
 *   "Limits").
 * - A hundred players saving tunes at their request budget (a thousand
 *   database writes a second), while another program holds the database's
 *   write lock for a second at a time, leave the ticks as punctual as a
 *   quiet run (the 99th percentile of how late a tick begins, same server,
 *   quiet and loaded stretches in turn): the database work is on the
 *   services' own thread.
 * - A server whose ticks run late for seconds (stopped with SIGSTOP for
 *   400 ms of every 700) refuses a newcomer with FULL and says why, keeps
 *   the player already racing, and takes newcomers again once its ticks
 *   have run on time for five seconds.
 */
#define _GNU_SOURCE /* memmem */

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "enet_forge.h"
#include "raw_client.h"
#include "server_proc.h"
#include "udp_relay.h"
#include "racesim/bot.h"
#include "racesim/client.h"
#include "racesim/protocol.h"
#include "racesim/secure.h"
#include "racesim/base/clock.h"

#define ROOM_PASSWORD "room-password-93b1c2"
#define PLAYER "reggie"
#define TUNE_NAME "wet-setup-4417"
#define TUNE_JSON "{\"gearbox\":{\"final_drive\":3.7},\"brakes\":{\"bias_front\":0.6}}"

static const char *const server_args[] = {
    "--password", ROOM_PASSWORD, "--track", "oval",
    "--laps", "50", "--lobby-s", "1", "--countdown-s", "1", "--stats-interval", "1",
    NULL};

/* ------------------------------------------------------------- a player */

typedef struct player {
    rs_bot *bot;
    bool connected, disconnected, refused;
    rs_msg_refuse refusal;   /* the REFUSE, when refused */
    char token[RS_PROTO_TOKEN_LEN + 1];
    uint32_t request;        /* the request waited for */
    bool replied;
    uint8_t result;
    uint8_t disconnect_reason;
} player;

static void on_event(void *ctx, rs_bot *bot, const rs_client_event *ev)
{
    (void)bot;
    player *p = ctx;
    switch (ev->type) {
    case RS_CLIENT_EV_CONNECTED:
        p->connected = true;
        snprintf(p->token, sizeof p->token, "%s", ev->u.connected.token);
        break;
    case RS_CLIENT_EV_REFUSED:
        p->refused = true;
        p->refusal = ev->u.refused;
        break;
    case RS_CLIENT_EV_DISCONNECTED:
        p->disconnected = true;
        p->disconnect_reason = ev->u.disconnected.reason;
        break;
    case RS_CLIENT_EV_TUNE_REPLY:
        if (ev->u.tune.request_id == p->request) {
            p->replied = true;
            p->result = ev->u.tune.result;
        }
        break;
    case RS_CLIENT_EV_ADMIN_REPLY:
        if (ev->u.admin.request_id == p->request) {
            p->replied = true;
            p->result = ev->u.admin.result;
        }
        break;
    default:
        break;
    }
}

static void join_as(player *p, const char *name, uint16_t port, const char *token,
                    bool register_player)
{
    memset(p, 0, sizeof *p);
    rs_client_config cfg = rs_client_config_default();
    cfg.name = name;
    cfg.token = token;
    cfg.register_player = register_player;
    cfg.password = ROOM_PASSWORD;
    char err[256] = "";
    assert_int_equal(rs_bot_create(&cfg, "127.0.0.1", port, true, rs_clock_us(), &p->bot, err,
                                   sizeof err),
                     RS_CLIENT_OK);
    rs_bot_set_event_fn(p->bot, on_event, p);
}

static void join(player *p, uint16_t port, const char *token, bool register_player)
{
    join_as(p, PLAYER, port, token, register_player);
}

/* Runs the player until done(p) or timeout_ms; true if done. */
static bool run_until(player *p, bool (*done)(const player *), int timeout_ms)
{
    int64_t until = rs_clock_us() + (int64_t)timeout_ms * 1000;
    while (rs_clock_us() < until) {
        rs_bot_update(p->bot, rs_clock_us());
        if (done && done(p))
            return true;
        rs_sleep_us(1000);
    }
    return done == NULL;
}

static bool is_connected(const player *p)
{
    return p->connected || p->refused || p->disconnected;
}

static bool is_replied(const player *p)
{
    return p->replied || p->disconnected;
}

static void leave(player *p)
{
    rs_bot_disconnect(p->bot, rs_clock_us());
    run_until(p, NULL, 300);
    rs_bot_destroy(p->bot);
    p->bot = NULL;
}

/* racectl on the server's database, as an operator runs it: must exit 0. */
static void racectl(const server_proc *srv, const char *a, const char *b, const char *c)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --db %s %s %s %s >/dev/null", RS_RACECTL_PATH, srv->db, a, b,
             c);
    assert_int_equal(system(cmd), 0);
}

/* --------------------------------------------------- the recorded stream */

typedef struct scan {
    const char *needles[8];
    size_t needle_count;
    uint64_t datagrams, bytes;
    const char *found;      /* the first needle seen in the clear */
    uint32_t victim;        /* relay client index of the racing player */
    uint8_t input[RS_SECURE_MAX_PACKET]; /* a sealed INPUT of the victim's */
    size_t input_len;
    uint16_t peer;          /* the victim's ENet peer id and session */
    bool have_input;
} scan;

static bool scan_one(void *ctx, const udp_relay_datagram *d)
{
    scan *s = ctx;
    s->datagrams++;
    s->bytes += d->len;
    for (size_t i = 0; i < s->needle_count && !s->found; i++)
        if (memmem(d->bytes, d->len, s->needles[i], strlen(s->needles[i])))
            s->found = s->needles[i];
    const uint8_t *payload = NULL;
    size_t len = 0;
    uint8_t channel = 0;
    uint16_t group = 0;
    if (d->up && d->client == s->victim &&
        enet_forge_find_unsequenced(d->bytes, d->len, &payload, &len, &channel, &group) &&
        channel == RS_CH_INPUT && len <= sizeof s->input &&
        enet_forge_peer(d->bytes, d->len, &s->peer)) {
        memcpy(s->input, payload, len); /* the latest one wins */
        s->input_len = len;
        s->have_input = true;
    }
    return true;
}

/* The sum over every stats line of the refusals of sealed packets. */
static int64_t sealed_drops(const server_proc *srv)
{
    static const char *const keys[] = {"drop_auth", "drop_replay", "drop_stale",
                                       "drop_malformed", "drop_channel"};
    int64_t total = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        total += sum_json_number(srv->log, keys[i]);
    return total;
}

static void test_secrets_never_travel_and_forgeries_never_land(void **state)
{
    (void)state;
    server_proc srv;
    server_start(&srv, true, server_args);
    uint16_t relay_port = 0;
    udp_relay *relay = udp_relay_create("127.0.0.1", srv.port, NULL, 7, &relay_port);
    assert_non_null(relay);
    udp_relay_record(relay, true);

    /* Register, then come back with the token: the second connection races. */
    player p;
    join(&p, relay_port, NULL, true);
    assert_true(run_until(&p, is_connected, 5000));
    assert_true(p.connected);
    assert_int_equal(strlen(p.token), RS_PROTO_TOKEN_LEN);
    char token[RS_PROTO_TOKEN_LEN + 1];
    snprintf(token, sizeof token, "%s", p.token);
    leave(&p);
    racectl(&srv, "admin", "grant", PLAYER);
    join(&p, relay_port, token, false);
    assert_true(run_until(&p, is_connected, 5000));
    assert_true(p.connected);
    rs_client *c = rs_bot_client(p.bot);

    p.request = rs_client_tune_save(c, TUNE_NAME, TUNE_JSON);
    assert_true(p.request != 0);
    assert_true(run_until(&p, is_replied, 5000));
    assert_int_equal(p.result, RS_RESULT_OK);
    p.replied = false;
    p.request = rs_client_admin(c, RS_ADMIN_KICK, "nobody-here", "testing", 0);
    assert_true(p.request != 0);
    assert_true(run_until(&p, is_replied, 5000));
    assert_false(p.disconnected);
    assert_int_equal(p.result, RS_RESULT_NOT_FOUND); /* an administrator: the command ran */

    /* Race a while so INPUTs flow, then look at everything recorded. */
    run_until(&p, NULL, 4000);
    udp_relay_record(relay, false);
    scan s = {.needles = {token, ROOM_PASSWORD, TUNE_NAME, "final_drive", PLAYER, "testing"},
              .needle_count = 6,
              .victim = 1};
    uint64_t seen = udp_relay_each_recorded(relay, scan_one, &s);
    print_message("[security] %llu datagrams (%llu bytes) recorded; in the clear: %s\n",
                  (unsigned long long)s.datagrams, (unsigned long long)s.bytes,
                  s.found ? s.found : "nothing");
    assert_int_equal(seen, s.datagrams);
    assert_true(s.datagrams > 200);
    assert_null(s.found);
    assert_true(s.have_input);

    /* The attacker: the victim's sealed INPUT replayed and altered byte by
     * byte, plaintext INPUTs for its car (full throttle, hard left, every
     * tick ahead), and INPUTs sealed under a key of the attacker's own. */
    rs_client_stats before;
    rs_client_get_stats(c, rs_clock_us(), &before);
    uint8_t out[2048];
    uint16_t seq = 1;
    uint32_t injected = 0;
    size_t n;
    for (int k = 0; k < 3; k++) {
        n = enet_forge_unreliable(s.peer, RS_CH_INPUT, seq++, s.input, s.input_len, out,
                                  sizeof out);
        assert_true(udp_relay_inject_up(relay, s.victim, out, n));
        injected++;
    }
    for (size_t i = 0; i < s.input_len; i++) {
        uint8_t bad[RS_SECURE_MAX_PACKET];
        memcpy(bad, s.input, s.input_len);
        bad[i] ^= 0x40;
        n = enet_forge_unreliable(s.peer, RS_CH_INPUT, seq++, bad, s.input_len, out, sizeof out);
        assert_true(udp_relay_inject_up(relay, s.victim, out, n));
        injected++;
        if (i % 16 == 0)
            rs_bot_update(p.bot, rs_clock_us());
    }
    for (int k = 0; k < 120; k++) {
        static rs_msg m;
        memset(&m, 0, sizeof m);
        m.type = RS_MSG_INPUT;
        m.u.input.newest_tick = before.present_tick + 30 + (uint64_t)k;
        m.u.input.count = 1;
        m.u.input.inputs[0] = rs_proto_input_neutral();
        m.u.input.inputs[0].throttle = 255;
        m.u.input.inputs[0].steer = 32767;
        uint8_t msg[RS_PROTO_MAX_PACKET], sealed[RS_SECURE_MAX_PACKET];
        size_t len = 0, slen = 0;
        assert_int_equal(rs_proto_encode(&m, msg, sizeof msg, &len, NULL), RS_PROTO_OK);
        const uint8_t *payload = msg;
        if (k % 2) { /* sealed, but under the attacker's key */
            rs_secure_session fake;
            memset(&fake, 0, sizeof fake);
            memset(fake.tx_key, 0x5a, sizeof fake.tx_key);
            fake.tx_next[RS_CH_INPUT] = (uint64_t)k;
            assert_int_equal(rs_secure_seal(&fake, RS_CH_INPUT, msg, len, sealed, sizeof sealed,
                                            &slen),
                             RS_SECURE_OK);
            payload = sealed;
            len = slen;
        }
        n = enet_forge_unreliable(s.peer, RS_CH_INPUT, seq++, payload, len, out, sizeof out);
        assert_true(udp_relay_inject_up(relay, s.victim, out, n));
        injected++;
        run_until(&p, NULL, 2);
    }

    /* The race goes on, on the victim's own inputs only. */
    run_until(&p, NULL, 3000);
    rs_client_stats after;
    rs_client_get_stats(c, rs_clock_us(), &after);
    print_message("[security] %u forged packets injected; victim: confirmed %llu -> %llu, "
                  "desyncs %llu, late inputs %u, local error max %.6f m\n",
                  (unsigned)injected, (unsigned long long)before.confirmed_tick,
                  (unsigned long long)after.confirmed_tick,
                  (unsigned long long)after.desyncs, (unsigned)after.late_inputs,
                  after.local_error_m_max);
    assert_false(p.disconnected);
    assert_true(after.confirmed_tick > before.confirmed_tick + 120);
    assert_int_equal(after.desyncs, 0);
    /* A forged input the server used would have moved the victim's car
     * away from what its own inputs predict. */
    assert_true(after.local_error_m_max == before.local_error_m_max);

    leave(&p);
    udp_relay_destroy(relay);
    server_stop(&srv);
    int64_t dropped = sealed_drops(&srv);
    print_message("[security] the server refused %lld sealed packets\n", (long long)dropped);
    if (dropped != (int64_t)injected)
        server_dump_log(&srv);
    assert_int_equal(dropped, injected);
    server_cleanup(&srv);
}

/* ----------------------------------------------------------- identity */

/* A raw client from `from` says HELLO as name (registering or with a
 * token) and waits for WELCOME or REFUSE: true when welcomed; the reply
 * in *m. The client never confirms a token on its own. */
static bool raw_join(raw_client *c, const char *from, uint16_t port, const char *name,
                     bool register_player, const char *token, rs_msg *m)
{
    if (!raw_client_open_from(c, from, port, NULL, NULL) || !raw_client_wait_secure(c, 3000))
        return false;
    memset(m, 0, sizeof *m);
    m->type = RS_MSG_HELLO;
    m->u.hello.protocol_version = RS_PROTO_VERSION;
    m->u.hello.physics_version = RS_PHYSICS_VERSION;
    m->u.hello.flags = register_player ? RS_HELLO_REGISTER : 0;
    snprintf(m->u.hello.name, sizeof m->u.hello.name, "%s", name);
    snprintf(m->u.hello.token, sizeof m->u.hello.token, "%s", token ? token : "");
    raw_client_send(c, m);
    int64_t until = rs_clock_us() + 5000000;
    while (rs_clock_us() < until)
        if (raw_client_poll(c, 10, m) && (m->type == RS_MSG_WELCOME || m->type == RS_MSG_REFUSE))
            return m->type == RS_MSG_WELCOME;
    return false;
}

static void test_registrations_and_bans_hold(void **state)
{
    (void)state;
    static const char *const args[] = {"--stats-interval", "0", NULL};
    server_proc srv;
    server_start(&srv, true, args);
    raw_client a, b;
    static rs_msg m;

    /* A registration whose client never confirms its token is undone when
     * it leaves: the name is free again. */
    assert_true(raw_join(&a, "127.0.0.6", srv.port, "forgetful", true, NULL, &m));
    assert_int_equal(strlen(m.u.welcome.token), RS_PROTO_TOKEN_LEN);
    /* While it is connected the name is taken. */
    assert_false(raw_join(&b, "127.0.0.7", srv.port, "forgetful", true, NULL, &m));
    assert_int_equal(m.u.refuse.reason, RS_REASON_NAME_TAKEN);
    raw_client_close(&b);
    raw_client_disconnect(&a, 1000); /* without a TOKEN_ACK */
    rs_sleep_us(300000);
    assert_true(raw_join(&b, "127.0.0.7", srv.port, "forgetful", true, NULL, &m));
    raw_client_close(&b);
    /* A confirmed one stays. */
    assert_true(raw_join(&a, "127.0.0.6", srv.port, "keeper", true, NULL, &m));
    char token[RS_PROTO_TOKEN_LEN + 1];
    snprintf(token, sizeof token, "%s", m.u.welcome.token);
    static rs_msg ack;
    memset(&ack, 0, sizeof ack);
    ack.type = RS_MSG_TOKEN_ACK;
    ack.u.token_ack.kind = RS_TOKEN_ACK_REGISTERED;
    raw_client_send(&a, &ack);
    for (int64_t until = rs_clock_us() + 300000; rs_clock_us() < until;)
        raw_client_poll(&a, 10, &m); /* until the server has it */
    raw_client_disconnect(&a, 1000);

    /* Registrations per address: 5 an hour (two made above). */
    int refused = 0;
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "bulk%d", i);
        if (!raw_join(&a, "127.0.0.6", srv.port, name, true, NULL, &m) &&
            m.type == RS_MSG_REFUSE && strstr(m.u.refuse.text, "too many registrations"))
            refused++;
        raw_client_close(&a);
    }
    assert_int_equal(refused, 2);

    /* A ban on an address range, by the operator, closes a connected
     * player within seconds, refuses the next connection, and is lifted. */
    assert_true(raw_join(&a, "127.0.0.9", srv.port, "keeper", false, token, &m));
    racectl(&srv, "ban add --address 127.0.0.8/29 --reason", "'testing bans'", "--for 1h");
    int64_t until = rs_clock_us() + 6000000;
    bool closed = false;
    while (!closed && rs_clock_us() < until)
        closed = raw_client_poll(&a, 10, &m) && m.type == RS_MSG_BYE;
    assert_true(closed);
    assert_int_equal(m.u.bye.reason, RS_REASON_BANNED);
    assert_non_null(strstr(m.u.bye.text, "testing bans"));
    raw_client_close(&a);
    assert_false(raw_join(&a, "127.0.0.10", srv.port, "keeper", false, token, &m));
    assert_int_equal(m.u.refuse.reason, RS_REASON_BANNED);
    raw_client_close(&a);
    /* An address outside the range is not covered. */
    assert_true(raw_join(&a, "127.0.0.3", srv.port, "keeper", false, token, &m));
    raw_client_disconnect(&a, 1000);
    racectl(&srv, "ban", "lift", "1");
    assert_true(raw_join(&a, "127.0.0.10", srv.port, "keeper", false, token, &m));
    raw_client_close(&a);
    server_stop(&srv);
    assert_true(file_contains(srv.log, "registration of forgetful"));
    assert_true(file_contains(srv.log, "too many registrations"));
    server_cleanup(&srv);
}

/* ------------------------------------------------------------- limits */

static bool secure_within(raw_client *c, int timeout_ms)
{
    return raw_client_wait_secure(c, timeout_ms);
}

static void test_one_address_cannot_take_the_server(void **state)
{
    (void)state;
    static const char *const args[] = {"--max-per-address", "4", "--stats-interval", "1", NULL};
    server_proc srv;
    server_start(&srv, false, args);
    /* Another machine (127.0.0.3) opens connections in a loop and keeps
     * every one it gets. */
    enum { TRIES = 12 };
    static raw_client a[TRIES];
    int admitted = 0;
    for (int i = 0; i < TRIES; i++)
        if (raw_client_open_from(&a[i], "127.0.0.3", srv.port, NULL, NULL) &&
            secure_within(&a[i], 400))
            admitted++;
    /* A real player from elsewhere still gets in, at once. */
    player p;
    memset(&p, 0, sizeof p);
    rs_client_config cfg = rs_client_config_default();
    cfg.name = "latecomer";
    char err[256] = "";
    int64_t t0 = rs_clock_us();
    assert_int_equal(rs_bot_create(&cfg, "127.0.0.1", srv.port, true, t0, &p.bot, err,
                                   sizeof err),
                     RS_CLIENT_OK);
    rs_bot_set_event_fn(p.bot, on_event, &p);
    assert_true(run_until(&p, is_connected, 3000));
    int64_t took = rs_clock_us() - t0;
    print_message("[limits] one address got %d of %d connections; another client joined in "
                  "%.1f ms\n",
                  admitted, TRIES, (double)took / 1000.0);
    assert_int_equal(admitted, 4);
    assert_true(p.connected);
    assert_true(took < 1000000);
    leave(&p);
    for (int i = 0; i < TRIES; i++)
        raw_client_close(&a[i]);
    server_stop(&srv);
    server_cleanup(&srv);
}

/* The server's resident memory in KiB (/proc/PID/status VmRSS), or -1. */
static long resident_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

static void test_fragment_floods_stay_within_the_memory_bound(void **state)
{
    (void)state;
    server_proc srv;
    server_start(&srv, false, NULL);
    /* A whole address's worth of connected attackers (8, the default cap). */
    enum { ATTACKERS = 8 };
    static raw_client a[ATTACKERS];
    for (int i = 0; i < ATTACKERS; i++) {
        assert_true(raw_client_open_from(&a[i], "127.0.0.4", srv.port, NULL, NULL));
        assert_true(secure_within(&a[i], 3000));
    }
    rs_sleep_us(500000);
    long before = resident_kib(srv.pid);
    assert_true(before > 0);
    /* Each attacker sends the fragments of one packet of the largest size
     * ENet accepts by default (32 MiB: each fragment written touches a new
     * page), and starts many packets of the largest size we accept, never
     * finishing any. */
    static uint8_t chunk[1024];
    memset(chunk, 0xa5, sizeof chunk);
    uint8_t out[2048];
    uint64_t sent = 0;
    const uint32_t big = 32u << 20, count = big / (uint32_t)sizeof chunk;
    for (uint32_t k = 0; k < 4000; k++) {
        for (int i = 0; i < ATTACKERS; i++) {
            uint16_t peer = raw_client_peer_word(&a[i]);
            size_t n = enet_forge_fragment(peer, RS_CH_BULK, 1, count, k, big,
                                           k * (uint32_t)sizeof chunk, chunk, sizeof chunk, out,
                                           sizeof out);
            sent += raw_client_send_datagram(&a[i], out, n);
            if (k % 4 == 0) {
                n = enet_forge_fragment(peer, RS_CH_BULK, (uint16_t)(2 + k / 4), 2, 0,
                                        RS_SECURE_MAX_PACKET, 0, chunk, 600, out, sizeof out);
                sent += raw_client_send_datagram(&a[i], out, n);
            }
        }
        if (k % 100 == 0) {
            static rs_msg m;
            for (int i = 0; i < ATTACKERS; i++)
                raw_client_poll(&a[i], 0, &m);
            rs_sleep_us(5000);
        }
    }
    rs_sleep_us(1000000);
    long after = resident_kib(srv.pid);
    print_message("[limits] %llu forged fragments from %d peers: server resident memory %ld KiB "
                  "-> %ld KiB\n",
                  (unsigned long long)sent, ATTACKERS, before, after);
    /* docs/RACESERVER.md, "Limits": at most 32 KiB and one packet waiting
     * per peer; allow 4 MiB for the allocator and ENet's bookkeeping. */
    assert_true(after - before < 4096);
    for (int i = 0; i < ATTACKERS; i++)
        raw_client_close(&a[i]);
    server_stop(&srv);
    server_cleanup(&srv);
}

/* The tick_late_p99_ms of the stats lines from the first-th on (how
 * late the 99th percentile tick began in each second), appended to v;
 * *lines = the stats lines so far. */
static void collect_p99(const char *log, int first, double *v, int *n, int cap, int *lines)
{
    FILE *f = fopen(log, "r");
    int at = 0;
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "\"tick_late_p99_ms\":");
        if (!strstr(line, " stats {") || !p)
            continue;
        if (at++ >= first && *n < cap && !strstr(line, "\"ticks\":0,"))
            v[(*n)++] = strtod(p + strlen("\"tick_late_p99_ms\":"), NULL);
    }
    if (f)
        fclose(f);
    *lines = at;
}

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++) /* a few values: insertion sort */
        for (int k = i; k > 0 && v[k] < v[k - 1]; k--) {
            double t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    return n ? v[n / 2] : -1.0;
}

/* Spectators say HELLO; the drivers drive (light clients: inputs only). */
static void keep_up(player *drivers, int n_drivers, raw_client *spec, int n_spec,
                    uint64_t *replies, uint64_t *busy)
{
    static rs_msg m;
    for (int i = 0; i < n_drivers; i++)
        rs_bot_update(drivers[i].bot, rs_clock_us());
    for (int i = 0; i < n_spec; i++)
        while (raw_client_poll(&spec[i], 0, &m))
            if (m.type == RS_MSG_TUNE_REPLY) {
                (*replies)++;
                *busy += m.u.tune_reply.result == RS_RESULT_BUSY;
            }
}

/* keep_up for us microseconds, every millisecond. */
static void keep_up_for(int64_t us, player *drivers, int n_drivers, raw_client *spec, int n_spec,
                        uint64_t *replies, uint64_t *busy)
{
    for (int64_t until = rs_clock_us() + us; rs_clock_us() < until; rs_sleep_us(1000))
        keep_up(drivers, n_drivers, spec, n_spec, replies, busy);
}

static void test_requests_at_their_budget_leave_the_tick_alone(void **state)
{
    (void)state;
    /* A hundred registrations in a moment: more than a real server allows. */
    char conf[64];
    snprintf(conf, sizeof conf, "/tmp/racesim_test_requests_%ld.json", (long)getpid());
    FILE *cf = fopen(conf, "w");
    assert_non_null(cf);
    fputs("{\"registrations_per_minute\": 1000}\n", cf);
    fclose(cf);
    const char *const args[] = {"--config", conf, "--track", "oval", "--laps", "50",
                                "--max-players", "4", "--spectators", "128", "--lobby-s", "1",
                                "--countdown-s", "1", "--stats-interval", "1", NULL};
    server_proc srv;
    server_start(&srv, true, args);
    unlink(conf);
    enum { DRIVERS = 4, SPECTATORS = 100 };
    static player drivers[DRIVERS];
    static raw_client spec[SPECTATORS];
    char err[256];
    for (int i = 0; i < DRIVERS; i++) {
        rs_client_config cfg = rs_client_config_default();
        char name[16];
        snprintf(name, sizeof name, "driver%d", i);
        cfg.name = name;
        cfg.simulate = false;
        memset(&drivers[i], 0, sizeof drivers[i]);
        assert_int_equal(rs_bot_create(&cfg, "127.0.0.1", srv.port, false, rs_clock_us(),
                                       &drivers[i].bot, err, sizeof err),
                         RS_CLIENT_OK);
        rs_bot_set_event_fn(drivers[i].bot, on_event, &drivers[i]);
    }
    /* Every spectator a registered player (tunes are theirs), from an
     * address of its own: each has its budget. */
    static rs_msg m;
    for (int i = 0; i < SPECTATORS; i++) {
        char from[20], name[16];
        snprintf(from, sizeof from, "127.0.1.%d", 10 + i);
        snprintf(name, sizeof name, "watcher%d", i);
        assert_true(raw_client_open_from(&spec[i], from, srv.port, NULL, NULL));
        assert_true(raw_client_wait_secure(&spec[i], 3000));
        memset(&m, 0, sizeof m);
        m.type = RS_MSG_HELLO;
        m.u.hello.protocol_version = RS_PROTO_VERSION;
        m.u.hello.physics_version = RS_PHYSICS_VERSION;
        m.u.hello.flags = RS_HELLO_SPECTATOR | RS_HELLO_REGISTER;
        snprintf(m.u.hello.name, sizeof m.u.hello.name, "%s", name);
        raw_client_send(&spec[i], &m);
        assert_true(raw_client_wait(&spec[i], RS_MSG_WELCOME, &m, 3000));
        memset(&m, 0, sizeof m);
        m.type = RS_MSG_TOKEN_ACK;
        m.u.token_ack.kind = RS_TOKEN_ACK_REGISTERED;
        raw_client_send(&spec[i], &m);
    }
    uint64_t replies = 0, busy = 0, sent = 0;
    /* Racing; then quiet and loaded stretches in turn, so that whatever
     * else the machine does weighs on both alike. Loaded: every spectator
     * saves a tune ten times a second, its per-connection budget, a
     * thousand database writes (each an fsync) asked for a second. The
     * first stats line of a stretch may straddle the change: left out. */
    enum { ROUNDS = 3, STRETCH_US = 3000000, MAX_LINES = 64 };
    keep_up_for(3000000, drivers, DRIVERS, spec, SPECTATORS, &replies, &busy);
    sqlite3 *lock_holder = NULL;
    assert_int_equal(sqlite3_open(srv.db, &lock_holder), SQLITE_OK);
    sqlite3_busy_timeout(lock_holder, 5000); /* the server may be mid-write */
    double quiet_v[MAX_LINES], loaded_v[MAX_LINES];
    int n_quiet = 0, n_loaded = 0, lines = 0;
    int none = 0;
    collect_p99(srv.log, 0, NULL, &none, 0, &lines); /* count the lines so far */
    for (int round = 0; round < ROUNDS; round++) {
        keep_up_for(STRETCH_US, drivers, DRIVERS, spec, SPECTATORS, &replies, &busy);
        int from = lines;
        collect_p99(srv.log, from + 1, quiet_v, &n_quiet, MAX_LINES, &lines);
        int64_t next = 0, t0 = rs_clock_us();
        bool held = false, released = false;
        for (int64_t until = t0 + STRETCH_US; rs_clock_us() < until; rs_sleep_us(1000)) {
            /* For one second of the stretch another program holds the
             * database's write lock (a backup, racectl, a slow disk): the
             * database thread waits, the ticks must not. */
            if (!held && rs_clock_us() >= t0 + 1000000) {
                assert_int_equal(sqlite3_exec(lock_holder, "BEGIN IMMEDIATE", NULL, NULL, NULL),
                                 SQLITE_OK);
                held = true;
            }
            if (held && !released && rs_clock_us() >= t0 + 2000000) {
                assert_int_equal(sqlite3_exec(lock_holder, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
                released = true;
            }
            if (rs_clock_us() >= next) {
                next = rs_clock_us() + 100000;
                for (int i = 0; i < SPECTATORS; i++) {
                    memset(&m, 0, sizeof m);
                    m.type = RS_MSG_TUNE_SAVE;
                    m.u.tune_save.request_id = (uint32_t)++sent;
                    snprintf(m.u.tune_save.name, sizeof m.u.tune_save.name, "%s", TUNE_NAME);
                    snprintf(m.u.tune_save.json, sizeof m.u.tune_save.json, "%s", TUNE_JSON);
                    raw_client_send(&spec[i], &m);
                }
            }
            keep_up(drivers, DRIVERS, spec, SPECTATORS, &replies, &busy);
        }
        from = lines;
        collect_p99(srv.log, from + 1, loaded_v, &n_loaded, MAX_LINES, &lines);
    }
    keep_up_for(500000, drivers, DRIVERS, spec, SPECTATORS, &replies, &busy);
    sqlite3_close(lock_holder);
    double quiet = median(quiet_v, n_quiet), loaded = median(loaded_v, n_loaded);
    print_message("[requests] ticks late by (p99, median of %d and %d 1 s lines) %.3f ms quiet, "
                  "%.3f ms with %llu tune saves asked for in %d s (%llu answered, %llu of them "
                  "BUSY): ratio %.2f\n",
                  n_quiet, n_loaded, quiet, loaded, (unsigned long long)sent,
                  ROUNDS * STRETCH_US / 1000000, (unsigned long long)replies,
                  (unsigned long long)busy, quiet > 0 ? loaded / quiet : 0.0);
    assert_true(quiet > 0 && loaded > 0);
    /* Every request answered, at once when the database cannot keep up. */
    assert_true(replies >= sent * 9 / 10);
    /* Unchanged but for what a thousand more packets a second cost the
     * loop (opening, decoding, answering: 0.85 to 1.55 times the quiet
     * lateness on the 2-core machine this was written on, with or without
     * another program spinning on a core). With the saves run on the tick
     * thread instead, the ticks wait for the lock: 1016 ms against 1.16 ms
     * quiet. ENet waits in whole milliseconds, so a tick is normally up to
     * 1 ms late. Under AddressSanitizer that per-packet work costs about
     * three times as much (a CI run measured 1.47 ms quiet, 4.12 loaded),
     * so the bound widens by as much; the failure it exists for, a tick
     * waiting a second for the database, stays far outside either. */
#if defined(__SANITIZE_ADDRESS__)
    const double per_packet_slack = 3.0, offset_ms = 2.0;
#else
    const double per_packet_slack = 2.0, offset_ms = 1.0;
#endif
    assert_true(loaded <= per_packet_slack * quiet + offset_ms);
    for (int i = 0; i < SPECTATORS; i++)
        raw_client_close(&spec[i]);
    for (int i = 0; i < DRIVERS; i++)
        rs_bot_destroy(drivers[i].bot);
    server_stop(&srv);
    server_cleanup(&srv);
}

/* An overloaded server sheds newcomers and keeps its players racing
 * (docs/RACESERVER.md, "Overload"). The overload is made with signals: the
 * server is stopped for 400 ms of every 700 for about six seconds, so each
 * second a third of its ticks start far more than 50 ms late, as on a
 * machine with more rooms than cores. Then a newcomer is refused with FULL
 * and the server's words while the player already racing stays connected;
 * once the ticks have run on time for five seconds a newcomer is welcome. */
static void test_an_overloaded_server_sheds_newcomers_and_keeps_its_players(void **state)
{
    (void)state;
    server_proc srv;
    server_start(&srv, false, server_args);
    player racer;
    join(&racer, srv.port, NULL, false);
    assert_true(run_until(&racer, is_connected, 5000));
    assert_true(racer.connected);
    run_until(&racer, NULL, 3000); /* lobby and countdown: racing now */

    for (int k = 0; k < 8; k++) {
        assert_int_equal(kill(srv.pid, SIGSTOP), 0);
        run_until(&racer, NULL, 400);
        assert_int_equal(kill(srv.pid, SIGCONT), 0);
        run_until(&racer, NULL, 300);
    }
    if (!file_contains(srv.log, "overload: for 3 s"))
        server_dump_log(&srv);
    assert_true(file_contains(srv.log, "overload: for 3 s"));
    assert_true(file_contains(srv.log, "\"shedding\":true"));

    player late;
    join_as(&late, "latecomer", srv.port, NULL, false);
    assert_true(run_until(&late, is_connected, 5000));
    assert_true(late.refused);
    assert_int_equal(late.refusal.reason, RS_REASON_FULL);
    assert_non_null(strstr(late.refusal.text, "overloaded"));
    rs_bot_destroy(late.bot);

    /* On time again: five calm seconds, and the room opens. */
    run_until(&racer, NULL, 7000);
    assert_true(file_contains(srv.log, "overload: the ticks run on time again"));
    assert_false(racer.disconnected);
    join_as(&late, "latecomer", srv.port, NULL, false);
    assert_true(run_until(&late, is_connected, 5000));
    assert_true(late.connected);
    leave(&late);
    leave(&racer);
    server_stop(&srv);
    server_cleanup(&srv);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    /* RS_SECURITY_ONLY=pattern runs only the matching tests (for debugging). */
    const char *only = getenv("RS_SECURITY_ONLY");
    if (only && *only)
        cmocka_set_test_filter(only);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_secrets_never_travel_and_forgeries_never_land,
                                  server_kill_leftover),
        cmocka_unit_test_teardown(test_registrations_and_bans_hold, server_kill_leftover),
        cmocka_unit_test_teardown(test_one_address_cannot_take_the_server, server_kill_leftover),
        cmocka_unit_test_teardown(test_fragment_floods_stay_within_the_memory_bound,
                                  server_kill_leftover),
        cmocka_unit_test_teardown(test_requests_at_their_budget_leave_the_tick_alone,
                                  server_kill_leftover),
        cmocka_unit_test_teardown(test_an_overloaded_server_sheds_newcomers_and_keeps_its_players,
                                  server_kill_leftover),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
