/*
 * The client's connection: construction, the handshake, the dispatch of
 * every received message and the event queue. The world, the FRAMEs and
 * the clock live in their own files (client_internal.h lists them); this one
 * decides what each message means for the connection as a whole.
 */
#include "client_internal.h"
#include "racesim/base/err.h"
#include "racesim/base/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rs_client_status_str(rs_client_status status)
{
    switch (status) {
    case RS_CLIENT_OK: return "ok";
    case RS_CLIENT_ERR_ARG: return "invalid argument";
    case RS_CLIENT_ERR_NOMEM: return "out of memory";
    case RS_CLIENT_ERR_NET: return "network error";
    case RS_CLIENT_ERR_STATE: return "not possible in this state";
    }
    return "unknown status";
}

rs_client_config rs_client_config_default(void)
{
    rs_client_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.name = "player";
    cfg.token = "";
    cfg.room = "";
    cfg.password = "";
    cfg.lead_margin_ticks = 3;
    cfg.min_lead_ms = 30;
    cfg.max_lead_ticks = 200;
    cfg.input_interval_ticks = 2;
    /* ENet retries its CONNECT at 0, 0.5, 1.5, 3.5 and 7.5 s (the timeout
     * doubles from a 500 ms guess at the round trip), and HELLO and
     * WELCOME follow: on a route losing 10 % each way, 5 s failed now and
     * then (test_online's impaired race); 15 s allows five attempts. */
    cfg.connect_timeout_ms = 15000;
    cfg.timeout_ms = 10000;
    cfg.ping_interval_ms = 250;
    cfg.snapshot_policy = RS_CLIENT_SNAP_ON_DESYNC;
    cfg.predicted_events = true;
    cfg.simulate = true;
    return cfg;
}

/* The server's own name rules (rs_proto_name_check): a name the server
 * would refuse is refused here, before anything is sent, in the same words
 * ("config.name: player name: control character U+0007 at byte 3"). */
static bool name_ok(const char *name, char *bad, size_t bad_len)
{
    char why[160] = "player name: empty";
    if (name && rs_proto_name_check(name, strlen(name), why, sizeof why))
        return true;
    rs_errf(bad, bad_len, "config.name: %s", why);
    return false;
}

/* Checks and copies the configuration into a new client. */
static rs_client_status client_new(const rs_client_config *cfg, int64_t now_us, rs_client **out,
                                   char *err, size_t err_len)
{
    *out = NULL;
    if (!cfg) {
        rs_errf(err, err_len, "config: NULL");
        return RS_CLIENT_ERR_ARG;
    }
    rs_client *c = calloc(1, sizeof *c);
    if (!c) {
        rs_errf(err, err_len, "out of memory");
        return RS_CLIENT_ERR_NOMEM;
    }
    c->cfg = *cfg;
    const char *bad = NULL;
    size_t tok_len = cfg->token ? strlen(cfg->token) : 0;
    char name_bad[200];
    if (!name_ok(cfg->name, name_bad, sizeof name_bad))
        bad = name_bad;
    else if ((tok_len != 0 && tok_len != RS_PROTO_TOKEN_LEN) ||
             !rs_str_copy(c->token, sizeof c->token, cfg->token))
        bad = "config.token: empty or 64 hex digits";
    else if (!rs_str_copy(c->room, sizeof c->room, cfg->room))
        bad = "config.room: at most 32 bytes";
    else if (!rs_str_copy(c->password, sizeof c->password, cfg->password))
        bad = "config.password: at most 64 bytes";
    else if (cfg->max_lead_ticks < 16 || cfg->max_lead_ticks > RS_PREDICT_MAX_LEAD)
        bad = "config.max_lead_ticks: 16..240";
    else if (cfg->snapshot_policy > RS_CLIENT_SNAP_NEVER)
        bad = "config.snapshot_policy: unknown";
    else if (cfg->lead_margin_ticks > 60)
        bad = "config.lead_margin_ticks: 0..60";
    else if (cfg->input_interval_ticks < 1 || cfg->input_interval_ticks > 4)
        bad = "config.input_interval_ticks: 1..4";
    if (bad) {
        rs_errf(err, err_len, "%s", bad);
        free(c);
        return RS_CLIENT_ERR_ARG;
    }
    rs_str_copy(c->name, sizeof c->name, cfg->name); /* fits: name_ok */
    c->cfg.name = c->name;
    c->cfg.token = c->token;
    c->cfg.room = c->room;
    c->cfg.password = c->password;
    if (c->cfg.connect_timeout_ms == 0)
        c->cfg.connect_timeout_ms = 15000;
    if (c->cfg.timeout_ms == 0)
        c->cfg.timeout_ms = 10000;
    if (c->cfg.ping_interval_ms == 0)
        c->cfg.ping_interval_ms = 250;
    if (rs_proto_assembler_create(RS_PROTO_BLOB_MAX, &c->snap_asm) != RS_PROTO_OK ||
        rs_proto_assembler_create(RS_PROTO_BLOB_MAX, &c->params_asm) != RS_PROTO_OK ||
        rs_proto_blocks_create(RS_PROTO_BLOCKS_KEEP, &c->blocks) != RS_PROTO_OK) {
        rs_proto_assembler_destroy(c->snap_asm);
        rs_proto_assembler_destroy(c->params_asm);
        free(c);
        rs_errf(err, err_len, "out of memory");
        return RS_CLIENT_ERR_NOMEM;
    }
    c->state = RS_CLIENT_CONNECTING;
    c->created_us = c->last_heard_us = now_us;
    c->input = rs_proto_input_neutral();
    c->rate = 1.0;
    c->lead_ms = RS_PROTO_LEAD_UNKNOWN;
    c->lossy = true; /* INPUTs every tick until the link is measured clean */
    c->next_request_id = 1;
    *out = c;
    return RS_CLIENT_OK;
}

rs_client_status rs_client_create_custom(const rs_client_config *cfg,
                                         const rs_client_transport *t, int64_t now_us,
                                         rs_client **out, char *err, size_t err_len)
{
    if (!out)
        return RS_CLIENT_ERR_ARG;
    *out = NULL;
    if (!t || !t->send) {
        rs_errf(err, err_len, "transport: a send function is required");
        return RS_CLIENT_ERR_ARG;
    }
    rs_client *c;
    rs_client_status st = client_new(cfg, now_us, &c, err, err_len);
    if (st != RS_CLIENT_OK)
        return st;
    c->custom = true;
    c->transport = *t;
    *out = c;
    return RS_CLIENT_OK;
}

rs_client_status rs_client_connect(const rs_client_config *cfg, const char *host, uint16_t port,
                                   int64_t now_us, rs_client **out, char *err, size_t err_len)
{
    if (!out)
        return RS_CLIENT_ERR_ARG;
    *out = NULL;
    if (!host || !host[0]) {
        rs_errf(err, err_len, "host: required");
        return RS_CLIENT_ERR_ARG;
    }
    rs_client *c;
    rs_client_status st = client_new(cfg, now_us, &c, err, err_len);
    if (st != RS_CLIENT_OK)
        return st;
    st = rs_client__enet_open(c, host, port, now_us, err, err_len);
    if (st != RS_CLIENT_OK) {
        rs_client_destroy(c);
        return st;
    }
    *out = c;
    return RS_CLIENT_OK;
}

void rs_client_destroy(rs_client *c)
{
    if (!c)
        return;
    rs_client__world_free(c);
    rs_standings_destroy(c->board);
    rs_client__enet_destroy(c);
    if (c->custom && !c->closed_link && c->transport.close)
        c->transport.close(c->transport.ctx);
    rs_proto_assembler_destroy(c->snap_asm);
    rs_proto_assembler_destroy(c->params_asm);
    rs_proto_blocks_destroy(c->blocks);
    free(c);
}

/* ------------------------------------------------------------- events */

rs_client_event *rs_client__push_event(rs_client *c, uint8_t type)
{
    if (c->ev_len == RS_CLIENT_EVQ) {
        /* Full: the oldest goes, so the newest state is what the caller sees. */
        c->ev_head = (c->ev_head + 1) % RS_CLIENT_EVQ;
        c->ev_len--;
        c->events_dropped++;
    }
    rs_client_event *ev = &c->evq[(c->ev_head + c->ev_len) % RS_CLIENT_EVQ];
    c->ev_len++;
    memset(ev, 0, sizeof *ev);
    ev->type = type;
    return ev;
}

void rs_client__error(rs_client *c, uint8_t code, uint64_t tick, const char *fmt, ...)
{
    rs_client_event *ev = rs_client__push_event(c, RS_CLIENT_EV_ERROR);
    ev->u.error.code = code;
    ev->u.error.tick = tick;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev->u.error.text, sizeof ev->u.error.text, fmt, ap);
    va_end(ap);
}

/* An event that hands the game a token (a registration's CONNECTED, a
 * rotation's TOKEN_REPLY) has reached the game once it is polled: only
 * then does the server hear that the token arrived (TOKEN_ACK), and only
 * then does a registration or rotation take effect for good (SPEC.md,
 * TOKEN_ACK). A token lost on the way never locks a player out. */
static void confirm_token(rs_client *c, const rs_client_event *ev)
{
    rs_msg m = {.type = RS_MSG_TOKEN_ACK};
    if (ev->type == RS_CLIENT_EV_CONNECTED && ev->u.connected.token[0])
        m.u.token_ack.kind = RS_TOKEN_ACK_REGISTERED;
    else if (ev->type == RS_CLIENT_EV_TOKEN_REPLY && ev->u.token.result == RS_RESULT_OK)
        m.u.token_ack.kind = RS_TOKEN_ACK_ROTATED;
    else
        return;
    rs_client__send(c, &m);
}

bool rs_client_poll_event(rs_client *c, rs_client_event *ev)
{
    if (!c || !ev || c->ev_len == 0)
        return false;
    *ev = c->evq[c->ev_head];
    c->ev_head = (c->ev_head + 1) % RS_CLIENT_EVQ;
    c->ev_len--;
    confirm_token(c, ev);
    return true;
}

/* ------------------------------------------------------------ sending */

bool rs_client__send(rs_client *c, const rs_msg *m)
{
    if (!c->link_up || c->closed_link)
        return false;
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    if (rs_proto_encode(m, buf, sizeof buf, &len, NULL) != RS_PROTO_OK)
        return false;
    uint8_t ch = 0, dir = 0;
    bool rel = false;
    rs_proto_msg_info(m->type, &ch, &rel, &dir);
    bool ok = c->custom ? c->transport.send(c->transport.ctx, ch, rel, buf, len)
                        : rs_client__enet_send(c, ch, rel, buf, len);
    if (ok) {
        c->bytes_out += len;
        c->packets_out++;
    }
    return ok;
}

/* Ends the connection: optionally says BYE, closes the link and queues the
 * DISCONNECTED event (the last one). */
void rs_client__close(rs_client *c, uint8_t reason, const char *text, bool send_bye)
{
    if (c->state == RS_CLIENT_CLOSED)
        return;
    if (send_bye) {
        rs_msg m;
        memset(&m, 0, sizeof m);
        m.type = RS_MSG_BYE;
        m.u.bye.reason = reason;
        rs_str_copy(m.u.bye.text, sizeof m.u.bye.text, text);
        rs_client__send(c, &m);
    }
    c->state = RS_CLIENT_CLOSED;
    rs_client_event *ev = rs_client__push_event(c, RS_CLIENT_EV_DISCONNECTED);
    ev->u.disconnected.reason = reason;
    snprintf(ev->u.disconnected.text, sizeof ev->u.disconnected.text, "%s", text ? text : "");
    if (!c->closed_link) {
        c->closed_link = true;
        if (c->custom) {
            if (c->transport.close)
                c->transport.close(c->transport.ctx);
        } else {
            rs_client__enet_close(c);
        }
    }
}

void rs_client_disconnect(rs_client *c, int64_t now_us)
{
    (void)now_us;
    if (c)
        rs_client__close(c, RS_REASON_NONE, "disconnected by the client", true);
}

/* ---------------------------------------------------------- handshake */

void rs_client__link_up(rs_client *c, int64_t now_us)
{
    if (c->state != RS_CLIENT_CONNECTING)
        return;
    c->link_up = true;
    c->last_heard_us = now_us;
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_HELLO;
    rs_msg_hello *h = &m.u.hello;
    h->protocol_version = RS_PROTO_VERSION;
    h->physics_version = RS_PHYSICS_VERSION;
    h->flags = (uint8_t)((c->cfg.spectator ? RS_HELLO_SPECTATOR : 0) |
                         (c->cfg.register_player ? RS_HELLO_REGISTER : 0));
    rs_str_copy(h->name, sizeof h->name, c->name);
    rs_str_copy(h->token, sizeof h->token, c->token);
    rs_str_copy(h->room, sizeof h->room, c->room);
    rs_str_copy(h->password, sizeof h->password, c->password);
    h->car_hash = c->cfg.car_hash;
    if (!rs_client__send(c, &m)) {
        rs_client__close(c, RS_REASON_OTHER, "could not send HELLO (bad name or token?)", false);
        return;
    }
    c->state = RS_CLIENT_HELLO;
}

void rs_client__link_down(rs_client *c, int64_t now_us)
{
    (void)now_us;
    c->link_up = false;
    c->closed_link = true; /* nothing left to close */
    rs_client__close(c, RS_REASON_TIMEOUT, "the connection to the server was lost", false);
}

void rs_client_transport_up(rs_client *c, int64_t now_us)
{
    if (c && c->custom)
        rs_client__link_up(c, now_us);
}

void rs_client_transport_down(rs_client *c, int64_t now_us)
{
    if (c && c->custom)
        rs_client__link_down(c, now_us);
}

/* ----------------------------------------------------------- dispatch */

static void malformed(rs_client *c, int64_t now_us, const char *what)
{
    c->malformed++;
    /* One event a second at most: a stream of garbage must not flood the queue. */
    if (now_us >= c->malformed_event_next_us) {
        rs_client__error(c, RS_CLIENT_ERROR_PROTOCOL, 0, "dropped a packet from the server: %s",
                         what);
        c->malformed_event_next_us = now_us + 1000000;
    }
}

static void on_welcome(rs_client *c, const rs_msg_welcome *w)
{
    bool first = !c->welcomed;
    c->welcome = *w;
    c->welcomed = true;
    c->welcomes++;
    if (first) {
        c->state = RS_CLIENT_CONNECTED;
        rs_client_connected *con = &rs_client__push_event(c, RS_CLIENT_EV_CONNECTED)->u.connected;
        con->player_id = w->player_id;
        memcpy(con->token, w->token, sizeof con->token);
        con->spectator = c->cfg.spectator; /* the server admits as asked, or refuses */
        con->room_id = w->room_id;
        con->tick_hz = w->tick_hz;
        con->substeps = w->substeps;
    }
}

static void on_lap(rs_client *c, const rs_msg_lap *l)
{
    rs_client_event *ev = rs_client__push_event(c, RS_CLIENT_EV_LAP);
    ev->u.lap = *l;
    if (!c->car || l->car != c->car || c->finished_emitted || !c->have_race_state ||
        c->race_state.laps == 0 || l->lap < c->race_state.laps)
        return;
    c->finished_emitted = true;
    ev = rs_client__push_event(c, RS_CLIENT_EV_FINISH);
    ev->u.finish.car = l->car;
    ev->u.finish.laps = l->lap;
    ev->u.finish.position = l->position; /* the server's: its last LAP carries it */
    ev->u.finish.tick = l->tick;
    ev->u.finish.last_lap_us = l->time_us;
}

/* Decodes one packet into *m when it is a message a server may send, on
 * its own channel; anything else is dropped and counted. */
static bool decode_from_server(rs_client *c, uint8_t channel, const uint8_t *bytes, size_t len,
                               int64_t now_us, rs_msg *m)
{
    const char *field = NULL;
    rs_proto_status ps = rs_proto_decode(bytes, len, m, &field);
    if (ps != RS_PROTO_OK) {
        malformed(c, now_us, field ? field : rs_proto_status_str(ps));
        return false;
    }
    uint8_t ch = 0, dir = 0;
    bool rel = false;
    if (!rs_proto_msg_info(m->type, &ch, &rel, &dir) || !(dir & RS_DIR_TO_CLIENT) ||
        ch != channel) {
        malformed(c, now_us, "a message a server may not send, or on the wrong channel");
        return false;
    }
    return true;
}

/* Before WELCOME only the handshake's answers make sense. Others are
 * ignored, not counted: an unreliable FRAME can overtake a WELCOME that ENet
 * is still retransmitting. The bulk channel's blocks and snapshots can
 * overtake it too, and are kept: the room sends a block only once. */
static bool wanted_before_welcome(uint8_t type)
{
    return type == RS_MSG_WELCOME || type == RS_MSG_REFUSE || type == RS_MSG_BYE ||
           type == RS_MSG_PING || type == RS_MSG_PARAMS || type == RS_MSG_SNAPSHOT;
}

static void on_race_state(rs_client *c, const rs_msg_race_state *r)
{
    bool new_race = !c->have_race_state || c->race_state.race_number != r->race_number;
    c->race_state = *r;
    c->have_race_state = true;
    c->race_state_welcome = c->welcomes;
    if (new_race)
        c->finished_emitted = false;
    rs_client__push_event(c, RS_CLIENT_EV_RACE_STATE)->u.race_state = *r;
}

static void on_car_info(rs_client *c, const rs_msg_car_info *info)
{
    c->car_info[info->car - 1u] = *info;
    c->have_car_info[info->car - 1u] = true;
    rs_client__push_event(c, RS_CLIENT_EV_CAR_INFO)->u.car_info = *info;
}

static void answer_ping(rs_client *c, const rs_msg_ping *p)
{
    rs_msg r = {.type = RS_MSG_PONG, .u.pong = {.id = p->id, .echo_time_us = p->time_us}};
    rs_client__send(c, &r);
}

/* What one message means for the connection. False when it ended it
 * (REFUSE, BYE). */
static bool dispatch(rs_client *c, const rs_msg *m, int64_t now_us)
{
    switch (m->type) {
    case RS_MSG_WELCOME:
        on_welcome(c, &m->u.welcome);
        break;
    case RS_MSG_REFUSE:
        rs_client__push_event(c, RS_CLIENT_EV_REFUSED)->u.refused = m->u.refuse;
        rs_client__close(c, m->u.refuse.reason, m->u.refuse.text, false);
        return false;
    case RS_MSG_BYE:
        rs_client__close(c, m->u.bye.reason, m->u.bye.text, false);
        return false;
    case RS_MSG_RACE_STATE:
        on_race_state(c, &m->u.race_state);
        break;
    case RS_MSG_CAR_INFO:
        on_car_info(c, &m->u.car_info);
        break;
    case RS_MSG_PARAMS:
        rs_client__on_params(c, &m->u.params);
        break;
    case RS_MSG_SNAPSHOT:
        rs_client__on_snapshot(c, &m->u.snapshot);
        break;
    case RS_MSG_FRAME:
        rs_client__on_frame(c, &m->u.frame, now_us);
        break;
    case RS_MSG_PING:
        answer_ping(c, &m->u.ping);
        break;
    case RS_MSG_PONG:
        rs_client__on_pong(c, &m->u.pong, now_us);
        break;
    case RS_MSG_LAP:
        on_lap(c, &m->u.lap);
        break;
    case RS_MSG_RESULTS:
        rs_client__push_event(c, RS_CLIENT_EV_RESULTS)->u.results = m->u.results;
        break;
    case RS_MSG_LEADERBOARD_REPLY:
        rs_client__push_event(c, RS_CLIENT_EV_LEADERBOARD_REPLY)->u.leaderboard =
            m->u.leaderboard_reply;
        break;
    case RS_MSG_TUNE_REPLY:
        rs_client__push_event(c, RS_CLIENT_EV_TUNE_REPLY)->u.tune = m->u.tune_reply;
        break;
    case RS_MSG_ADMIN_REPLY:
        rs_client__push_event(c, RS_CLIENT_EV_ADMIN_REPLY)->u.admin = m->u.admin_reply;
        break;
    case RS_MSG_TOKEN_REPLY:
        rs_client__push_event(c, RS_CLIENT_EV_TOKEN_REPLY)->u.token = m->u.token_reply;
        break;
    case RS_MSG_WEEKEND:
        c->weekend = m->u.weekend;
        c->have_weekend = true;
        rs_client__push_event(c, RS_CLIENT_EV_WEEKEND)->u.weekend = m->u.weekend;
        break;
    case RS_MSG_PENALTY:
        rs_client__push_event(c, RS_CLIENT_EV_PENALTY)->u.penalty = m->u.penalty;
        break;
    case RS_MSG_CHAT_MSG:
        rs_client__push_event(c, RS_CLIENT_EV_CHAT)->u.chat = m->u.chat_msg;
        break;
    case RS_MSG_COMMAND_REPLY:
        rs_client__push_event(c, RS_CLIENT_EV_COMMAND_REPLY)->u.command = m->u.command_reply;
        break;
    case RS_MSG_VOTE_STATE:
        rs_client__push_event(c, RS_CLIENT_EV_VOTE)->u.vote = m->u.vote_state;
        break;
    case RS_MSG_STANDINGS_REPLY:
        rs_client__push_event(c, RS_CLIENT_EV_STANDINGS)->u.standings = m->u.standings_reply;
        break;
    default:
        break;
    }
    return true;
}

void rs_client__handle_packet(rs_client *c, uint8_t channel, const uint8_t *bytes, size_t len,
                              int64_t now_us)
{
    if (c->state == RS_CLIENT_CLOSED)
        return;
    rs_msg m;
    if (!decode_from_server(c, channel, bytes, len, now_us, &m))
        return;
    c->bytes_in += len;
    c->packets_in++;
    c->last_heard_us = now_us;
    if (!c->welcomed && !wanted_before_welcome(m.type))
        return;
    if (dispatch(c, &m, now_us))
        rs_client__try_build(c, now_us);
}

void rs_client_receive(rs_client *c, uint8_t channel, const uint8_t *bytes, size_t len,
                       int64_t now_us)
{
    if (!c || !c->custom)
        return;
    if (!bytes || len == 0) {
        malformed(c, now_us, "an empty packet");
        return;
    }
    rs_client__handle_packet(c, channel, bytes, len, now_us);
}

/* ------------------------------------------------------------ update */

void rs_client_update(rs_client *c, int64_t now_us)
{
    if (!c)
        return;
    if (!c->custom)
        rs_client__enet_service(c, now_us);
    if (c->state == RS_CLIENT_CLOSED)
        return;
    if (c->state != RS_CLIENT_CONNECTED &&
        now_us - c->created_us > (int64_t)c->cfg.connect_timeout_ms * 1000) {
        rs_client__close(c, RS_REASON_TIMEOUT, "no answer from the server (connect timeout)",
                         c->link_up);
        return;
    }
    if (c->state == RS_CLIENT_CONNECTED &&
        now_us - c->last_heard_us > (int64_t)c->cfg.timeout_ms * 1000) {
        rs_client__close(c, RS_REASON_TIMEOUT, "the server went silent", true);
        return;
    }
    if (c->state == RS_CLIENT_CONNECTED)
        rs_client__drive(c, now_us);
    if (!c->custom)
        rs_client__enet_flush(c); /* this update's INPUT leaves now, not next update */
}

void rs_client_set_input(rs_client *c, const rs_input *input)
{
    if (c && input)
        c->input = *input;
}

/* ------------------------------------------------------------ queries */

int rs_client_fd(const rs_client *c)
{
    return c ? rs_client__enet_fd(c) : -1;
}

rs_client_state rs_client_get_state(const rs_client *c)
{
    return c ? (rs_client_state)c->state : RS_CLIENT_CLOSED;
}

const rs_world *rs_client_world(const rs_client *c)
{
    return c && c->pred ? rs_predict_world(c->pred) : NULL;
}

uint8_t rs_client_car(const rs_client *c)
{
    return c && rs_client__has_world(c) ? c->car : 0;
}

const rs_track *rs_client_track(const rs_client *c)
{
    return c && c->pred ? c->track : NULL;
}

const rs_car_params *rs_client_car_params(const rs_client *c, uint8_t car)
{
    if (!c || !c->pred || car == 0 || car > c->car_count)
        return NULL;
    return c->params[car - 1u];
}

bool rs_client_welcome(const rs_client *c, rs_msg_welcome *out)
{
    if (!c || !out || !c->welcomed)
        return false;
    *out = c->welcome;
    return true;
}

bool rs_client_race_state(const rs_client *c, rs_msg_race_state *out)
{
    if (!c || !out || !c->have_race_state)
        return false;
    *out = c->race_state;
    return true;
}

bool rs_client_car_info(const rs_client *c, uint8_t car, rs_msg_car_info *out)
{
    if (!c || !out || car == 0 || car > RS_PROTO_MAX_CARS || !c->have_car_info[car - 1u])
        return false;
    *out = c->car_info[car - 1u];
    return true;
}

bool rs_client_weekend(const rs_client *c, rs_msg_weekend *out)
{
    if (!c || !out || !c->have_weekend)
        return false;
    *out = c->weekend;
    return true;
}

/* The race clock of the session's world, microseconds since lights out;
 * false when the client follows no world of this session: none built yet,
 * or the one held is an earlier race's (a new session's RACE_STATE comes
 * after its WELCOME, before its world is built). */
static bool session_clock_us(const rs_client *c, int64_t *out)
{
    const rs_msg_race_state *r = &c->race_state;
    if (!rs_client__has_world(c) || c->built_welcome != c->race_state_welcome ||
        r->phase == RS_PHASE_LOBBY)
        return false;
    if (c->pred) {
        *out = rs_world_race_time_us(rs_predict_world(c->pred));
        return true;
    }
    /* A light client keeps no world, only its ticks. */
    if (r->start_tick == 0 || c->welcome.tick_hz == 0)
        return false;
    int64_t ticks = (int64_t)c->light_present - (int64_t)r->start_tick;
    *out = ticks * 1000000 / (int64_t)c->welcome.tick_hz;
    return true;
}

bool rs_client_session(const rs_client *c, rs_client_session_info *out)
{
    if (!c || !out || !c->have_race_state)
        return false;
    const rs_msg_race_state *r = &c->race_state;
    memset(out, 0, sizeof *out);
    out->index = r->session_index;
    out->type = r->session_type;
    out->laps = r->laps;
    out->time_limit_ms = r->time_limit_ms;
    out->chequered = (r->flags & RS_SESSION_CHEQUERED) != 0;
    int64_t clock_us = 0;
    if (r->time_limit_ms == 0)
        out->time_left_ms = -1;
    else if (out->chequered)
        out->time_left_ms = 0; /* the time ran out, whatever the prediction says */
    else if (!session_clock_us(c, &clock_us) || clock_us <= 0)
        out->time_left_ms = r->time_limit_ms; /* the clock has not started */
    else if (clock_us / 1000 >= (int64_t)r->time_limit_ms)
        out->time_left_ms = 0;
    else
        out->time_left_ms = (int64_t)r->time_limit_ms - clock_us / 1000;
    return true;
}
