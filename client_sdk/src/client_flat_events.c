/*
 * The flat layer's events (racesim/client_flat.h): every kind of
 * rs_client_event copied into the one rs_flat_event layout, and the rows of
 * the last RESULTS and LEADERBOARD_REPLY, which do not fit in it, kept in
 * the client for rs_flat_get_result / rs_flat_get_board_row; the race
 * weekend's messages are kept whole for client_flat_weekend.c.
 */
#include "client_internal.h"
#include "racesim/client_flat.h"

#include <string.h>

/* Copies src into dst of cap bytes; every SDK text fits the flat layouts'
 * (wire limits are smaller), so nothing is ever cut in practice. */
static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = 0;
    while (n + 1 < cap && src[n])
        n++;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void set_text(rs_flat_event *out, const char *text)
{
    copy_text(out->text, sizeof out->text, text);
}

/* The race weekend's events (protocol version 6): what fits the one
 * layout goes into it, and the whole message is kept for the rs_flat_get_*
 * calls of client_flat_weekend.c, which read the last one polled. */
static void flatten_weekend(rs_client *c, const rs_client_event *ev, rs_flat_event *out)
{
    switch (ev->type) {
    case RS_CLIENT_EV_WEEKEND:
        c->flat_weekend = ev->u.weekend;
        c->have_flat_weekend = true;
        out->count = ev->u.weekend.session_count;
        set_text(out, ev->u.weekend.championship);
        break;
    case RS_CLIENT_EV_PENALTY:
        c->flat_penalty = ev->u.penalty;
        c->have_flat_penalty = true;
        out->request_id = ev->u.penalty.id;
        out->car = ev->u.penalty.car;
        out->code = ev->u.penalty.kind;
        out->flags = ev->u.penalty.removed ? 1 : 0;
        out->tick = (int64_t)ev->u.penalty.tick;
        set_text(out, ev->u.penalty.text);
        break;
    case RS_CLIENT_EV_CHAT:
        c->flat_chat = ev->u.chat;
        c->have_flat_chat = true;
        out->code = ev->u.chat.kind;
        out->player_id = ev->u.chat.player_id;
        set_text(out, ev->u.chat.text);
        break;
    case RS_CLIENT_EV_COMMAND_REPLY:
        out->request_id = ev->u.command.request_id;
        out->code = ev->u.command.result;
        set_text(out, ev->u.command.text);
        break;
    case RS_CLIENT_EV_VOTE:
        c->flat_vote = ev->u.vote;
        c->have_flat_vote = true;
        out->request_id = ev->u.vote.vote_id;
        out->code = ev->u.vote.state;
        set_text(out, ev->u.vote.arg);
        break;
    case RS_CLIENT_EV_STANDINGS:
        c->flat_standings = ev->u.standings;
        out->request_id = ev->u.standings.request_id;
        out->code = ev->u.standings.result;
        out->count = ev->u.standings.count;
        out->total = ev->u.standings.total;
        set_text(out, ev->u.standings.championship);
        break;
    default:
        break;
    }
}

static void flatten(rs_client *c, const rs_client_event *ev, rs_flat_event *out)
{
    out->type = ev->type;
    switch (ev->type) {
    case RS_CLIENT_EV_CONNECTED:
        out->flags = ev->u.connected.spectator ? 1 : 0;
        out->player_id = ev->u.connected.player_id;
        out->value = ev->u.connected.tick_hz;
        set_text(out, ev->u.connected.token);
        break;
    case RS_CLIENT_EV_REFUSED:
        out->code = ev->u.refused.reason;
        set_text(out, ev->u.refused.text);
        break;
    case RS_CLIENT_EV_DISCONNECTED:
        out->code = ev->u.disconnected.reason;
        set_text(out, ev->u.disconnected.text);
        break;
    case RS_CLIENT_EV_CAR_INFO:
        out->car = ev->u.car_info.car;
        out->code = ev->u.car_info.flags;
        out->player_id = ev->u.car_info.player_id;
        set_text(out, ev->u.car_info.name);
        break;
    case RS_CLIENT_EV_WORLD_READY:
        out->car = ev->u.world.car;
        out->count = (int32_t)ev->u.world.car_count;
        out->race_number = ev->u.world.race_number;
        out->tick = (int64_t)ev->u.world.tick;
        break;
    case RS_CLIENT_EV_RACE_STATE:
        out->code = ev->u.race_state.phase;
        out->count = ev->u.race_state.laps;
        out->race_number = ev->u.race_state.race_number;
        break;
    case RS_CLIENT_EV_SECTOR:
        out->car = ev->u.sector.car;
        out->lap = (int32_t)ev->u.sector.lap;
        out->code = (int32_t)ev->u.sector.sector;
        out->time_us = ev->u.sector.duration_us;
        out->tick = (int64_t)ev->u.sector.tick;
        break;
    case RS_CLIENT_EV_LAP:
        out->car = ev->u.lap.car;
        out->lap = (int32_t)ev->u.lap.lap;
        out->position = ev->u.lap.position;
        out->flags = ev->u.lap.flags;
        out->valid = ev->u.lap.valid ? 1 : 0;
        out->time_us = ev->u.lap.time_us;
        out->tick = (int64_t)ev->u.lap.tick;
        break;
    case RS_CLIENT_EV_COLLISION:
        out->car = ev->u.collision.car;
        out->code = ev->u.collision.other;
        out->tick = (int64_t)ev->u.collision.tick;
        out->value = ev->u.collision.impulse_n_s;
        break;
    case RS_CLIENT_EV_FINISH:
        out->car = ev->u.finish.car;
        out->lap = (int32_t)ev->u.finish.laps;
        out->position = (int32_t)ev->u.finish.position;
        out->time_us = ev->u.finish.last_lap_us;
        out->tick = (int64_t)ev->u.finish.tick;
        break;
    case RS_CLIENT_EV_RESULTS:
        c->flat_results = ev->u.results;
        out->count = ev->u.results.count;
        out->race_number = ev->u.results.race_number;
        break;
    case RS_CLIENT_EV_LEADERBOARD_REPLY:
        c->flat_board = ev->u.leaderboard;
        out->request_id = ev->u.leaderboard.request_id;
        out->code = ev->u.leaderboard.result;
        out->count = ev->u.leaderboard.count;
        out->total = ev->u.leaderboard.total;
        break;
    case RS_CLIENT_EV_TUNE_REPLY: {
        const rs_msg_tune_reply *t = &ev->u.tune;
        out->request_id = t->request_id;
        out->code = t->result;
        set_text(out, t->text);
        if (t->op == RS_TUNE_OP_LIST && t->result == RS_RESULT_OK) {
            /* A page of names, one per line (the last line may lack its
             * newline). */
            int32_t names = 0;
            for (const char *p = t->text; *p; p++)
                if (*p == '\n' || p[1] == '\0')
                    names++;
            out->count = names;
            out->total = t->total;
        }
        break;
    }
    case RS_CLIENT_EV_ADMIN_REPLY:
        out->request_id = ev->u.admin.request_id;
        out->code = ev->u.admin.result;
        set_text(out, ev->u.admin.text);
        break;
    case RS_CLIENT_EV_TOKEN_REPLY:
        out->request_id = ev->u.token.request_id;
        out->code = ev->u.token.result;
        /* The token to store, or why there is none. */
        set_text(out, ev->u.token.result == RS_RESULT_OK ? ev->u.token.token : ev->u.token.text);
        break;
    case RS_CLIENT_EV_ERROR:
        out->code = ev->u.error.code;
        out->tick = (int64_t)ev->u.error.tick;
        set_text(out, ev->u.error.text);
        break;
    default:
        flatten_weekend(c, ev, out);
        break;
    }
}

int32_t rs_flat_poll(rs_client *c, rs_flat_event *out)
{
    if (!out)
        return 0;
    memset(out, 0, sizeof *out);
    rs_client_event ev;
    if (!c || !rs_client_poll_event(c, &ev))
        return 0;
    flatten(c, &ev, out);
    return 1;
}

int32_t rs_flat_get_result(const rs_client *c, int32_t i, rs_flat_result *out)
{
    if (!c || !out || i < 0 || i >= c->flat_results.count)
        return 0;
    const rs_proto_result_row *r = &c->flat_results.rows[i];
    memset(out, 0, sizeof *out);
    out->car = r->car;
    out->position = r->position;
    out->laps = (int32_t)r->laps;
    out->finished = r->finish_us >= 0 ? 1 : 0;
    out->finish_us = r->finish_us;
    out->best_lap_us = r->best_lap_us;
    out->class_position = r->class_position;
    out->status = r->status;
    out->penalty_ms = (int32_t)r->penalty_ms; /* 0..2^31 - 1 on the wire */
    out->laps_led = r->laps_led;
    return 1;
}

int32_t rs_flat_get_board_row(const rs_client *c, int32_t i, rs_flat_board_row *out)
{
    if (!c || !out || i < 0 || i >= c->flat_board.count)
        return 0;
    const rs_proto_lb_row *r = &c->flat_board.rows[i];
    memset(out, 0, sizeof *out);
    out->rank = (int32_t)r->rank;
    out->time_us = r->time_us;
    out->recorded_at = r->recorded_at;
    out->tune_hash = r->tune_hash;
    copy_text(out->name, sizeof out->name, r->name);
    return 1;
}
