/*
 * Requests that are the server's business rather than the race's:
 * leaderboards, tunes, administration, chat, players' commands and
 * championship standings. Each but chat gets a fresh request id that its
 * reply echoes; the replies arrive as events (client.c).
 */
#include "client_internal.h"
#include "racesim/base/text.h"

#include <string.h>

/* Sends m with a new request id stored at *id_field; 0 when it cannot. */
static uint32_t send_request(rs_client *c, rs_msg *m, uint32_t *id_field)
{
    if (c->state != RS_CLIENT_CONNECTED)
        return 0;
    uint32_t id = c->next_request_id++;
    if (c->next_request_id == 0)
        c->next_request_id = 1;
    *id_field = id;
    return rs_client__send(c, m) ? id : 0;
}

uint32_t rs_client_request_leaderboard(rs_client *c, uint64_t track_hash, uint64_t base_hash,
                                       uint64_t tune_key, uint32_t offset, uint8_t count)
{
    if (!c || count == 0 || count > RS_PROTO_LB_ROWS)
        return 0;
    rs_msg m = {.type = RS_MSG_LEADERBOARD_REQUEST,
                .u.leaderboard_request = {.track_hash = track_hash,
                                          .base_hash = base_hash,
                                          .tune_key = tune_key,
                                          .offset = offset,
                                          .count = count}};
    return send_request(c, &m, &m.u.leaderboard_request.request_id);
}

uint32_t rs_client_tune_save(rs_client *c, const char *name, const char *json)
{
    rs_msg m = {.type = RS_MSG_TUNE_SAVE};
    if (!c || !name || !name[0] ||
        !rs_str_copy(m.u.tune_save.name, sizeof m.u.tune_save.name, name) || !json ||
        !rs_str_copy(m.u.tune_save.json, sizeof m.u.tune_save.json, json))
        return 0;
    return send_request(c, &m, &m.u.tune_save.request_id);
}

uint32_t rs_client_tune_load(rs_client *c, const char *name)
{
    rs_msg m = {.type = RS_MSG_TUNE_LOAD};
    if (!c || !name || !name[0] ||
        !rs_str_copy(m.u.tune_load.name, sizeof m.u.tune_load.name, name))
        return 0;
    return send_request(c, &m, &m.u.tune_load.request_id);
}

uint32_t rs_client_tune_list(rs_client *c, uint64_t base_hash, uint32_t offset)
{
    if (!c || offset > RS_PROTO_LIST_OFFSET_MAX)
        return 0;
    rs_msg m = {.type = RS_MSG_TUNE_LIST,
                .u.tune_list = {.base_hash = base_hash, .offset = offset}};
    return send_request(c, &m, &m.u.tune_list.request_id);
}

uint32_t rs_client_tune_select(rs_client *c, const char *name)
{
    rs_msg m = {.type = RS_MSG_SELECT_TUNE};
    if (!c || !rs_str_copy(m.u.select_tune.name, sizeof m.u.select_tune.name, name))
        return 0;
    return send_request(c, &m, &m.u.select_tune.request_id);
}

uint32_t rs_client_admin(rs_client *c, uint8_t command, const char *arg, const char *reason,
                         uint32_t duration_s)
{
    rs_msg m = {.type = RS_MSG_ADMIN};
    if (!c || command >= RS_ADMIN_COMMAND_COUNT ||
        !rs_str_copy(m.u.admin.arg, sizeof m.u.admin.arg, arg ? arg : "") ||
        !rs_str_copy(m.u.admin.reason, sizeof m.u.admin.reason, reason ? reason : ""))
        return 0;
    m.u.admin.command = command;
    m.u.admin.duration_s = duration_s;
    return send_request(c, &m, &m.u.admin.request_id);
}

uint32_t rs_client_rotate_token(rs_client *c)
{
    if (!c)
        return 0;
    rs_msg m = {.type = RS_MSG_TOKEN_ROTATE};
    return send_request(c, &m, &m.u.token_rotate.request_id);
}

/* The race weekend's requests say why nothing was sent: a message the
 * encoder refuses is refused by every server too (the encoder applies the
 * decoder's ranges, the name rules and chat's text rules), so it is the
 * caller's argument; otherwise the connection. */
static rs_client_status send_checked(rs_client *c, rs_msg *m, uint32_t *id_field,
                                     uint32_t *request_id)
{
    if (request_id)
        *request_id = 0;
    size_t len = 0;
    if (rs_proto_encode(m, NULL, 0, &len, NULL) != RS_PROTO_OK)
        return RS_CLIENT_ERR_ARG;
    if (!id_field)
        return c->state == RS_CLIENT_CONNECTED && rs_client__send(c, m) ? RS_CLIENT_OK
                                                                       : RS_CLIENT_ERR_STATE;
    uint32_t id = send_request(c, m, id_field);
    if (!id)
        return RS_CLIENT_ERR_STATE;
    if (request_id)
        *request_id = id;
    return RS_CLIENT_OK;
}

rs_client_status rs_client_chat(rs_client *c, const char *to, const char *text)
{
    rs_msg m = {.type = RS_MSG_CHAT};
    if (!c || !text || !rs_str_copy(m.u.chat.to, sizeof m.u.chat.to, to) ||
        !rs_str_copy(m.u.chat.text, sizeof m.u.chat.text, text))
        return RS_CLIENT_ERR_ARG;
    return send_checked(c, &m, NULL, NULL);
}

rs_client_status rs_client_command(rs_client *c, uint8_t command, const char *arg,
                                   uint32_t *request_id)
{
    if (request_id)
        *request_id = 0;
    rs_msg m = {.type = RS_MSG_COMMAND};
    if (!c || !rs_str_copy(m.u.command.arg, sizeof m.u.command.arg, arg))
        return RS_CLIENT_ERR_ARG;
    m.u.command.command = command;
    return send_checked(c, &m, &m.u.command.request_id, request_id);
}

rs_client_status rs_client_standings_request(rs_client *c, const char *championship,
                                             const char *class_name, uint32_t offset,
                                             uint8_t count, uint32_t *request_id)
{
    if (request_id)
        *request_id = 0;
    rs_msg m = {.type = RS_MSG_STANDINGS_REQUEST};
    rs_msg_standings_request *r = &m.u.standings_request;
    if (!c || !rs_str_copy(r->championship, sizeof r->championship, championship) ||
        !rs_str_copy(r->class_name, sizeof r->class_name, class_name))
        return RS_CLIENT_ERR_ARG;
    r->offset = offset;
    r->count = count;
    return send_checked(c, &m, &r->request_id, request_id);
}
