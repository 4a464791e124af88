/*
 * A player's COMMANDs, which the room answers itself (no database needed):
 * mutes, votes and the choice of car. Each gets a COMMAND_REPLY with a
 * result and words. They share the request budget of a peer (10 a second,
 * then BUSY), like the requests handed to the server.
 */
#include <stdio.h>
#include <string.h>

#include "room_internal.h"

static void reply(rs_room *room, room_peer *p, uint32_t request_id, uint8_t result,
                  const char *text)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_COMMAND_REPLY;
    m.u.command_reply.request_id = request_id;
    m.u.command_reply.result = result;
    snprintf(m.u.command_reply.text, sizeof m.u.command_reply.text, "%s", text);
    rs_room__send(room, p->id, &m);
}

void rs_room__on_command(rs_room *room, room_peer *p, const rs_msg_command *c, int64_t now_us)
{
    if (!rs_room__request_budget(room, p, now_us)) {
        reply(room, p, c->request_id, RS_RESULT_BUSY, "too many requests");
        return;
    }
    char text[RS_PROTO_TEXT_MAX + 1] = "";
    uint8_t result = RS_RESULT_INVALID;
    switch (c->command) {
    case RS_CMD_MUTE:
    case RS_CMD_UNMUTE:
        result = rs_room__chat_mute(room, p, c->arg, c->command == RS_CMD_MUTE, text,
                                    sizeof text);
        break;
    case RS_CMD_VOTE_KICK:
        result = rs_room__vote_call(room, p, RS_VOTE_KICK, c->arg, text, sizeof text);
        break;
    case RS_CMD_VOTE_RESTART:
        result = rs_room__vote_call(room, p, RS_VOTE_RESTART, "", text, sizeof text);
        break;
    case RS_CMD_VOTE_SKIP:
        result = rs_room__vote_call(room, p, RS_VOTE_SKIP, "", text, sizeof text);
        break;
    case RS_CMD_VOTE_TRACK:
        result = rs_room__vote_call(room, p, RS_VOTE_TRACK, c->arg, text, sizeof text);
        break;
    case RS_CMD_VOTE_YES:
    case RS_CMD_VOTE_NO:
        result = rs_room__vote_cast(room, p, c->command == RS_CMD_VOTE_YES, text, sizeof text);
        break;
    case RS_CMD_SELECT_CAR:
        result = rs_room__select_car(room, p->state == PEER_PLAYER ? p->seat : -1, c->arg, text,
                                     sizeof text);
        break;
    default:
        snprintf(text, sizeof text, "unknown command");
        break;
    }
    reply(room, p, c->request_id, result, text);
}
