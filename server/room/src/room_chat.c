/*
 * Chat in a room: room messages, private messages, announcements, mutes.
 *
 * Texts reach the room already checked by the protocol (rs_proto_text_check:
 * no control, line-separator or bidirectional characters), so a line can
 * neither forge another line nor reorder a reader's screen. What the room
 * adds is how much and to whom: each player has a token bucket (a burst, and
 * a rate per minute), a player may mute others (their lines no longer reach
 * it), and an administrator may mute a player for a while or until unmuted
 * (its lines reach nobody). Refusals come back to the sender as SYSTEM
 * lines, which only it sees.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "room_internal.h"

/* A line from the room itself to one peer (NULL: every watcher). */
void rs_room__system(rs_room *room, room_peer *only, const char *fmt, ...)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_CHAT_MSG;
    m.u.chat_msg.kind = RS_CHAT_SYSTEM;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m.u.chat_msg.text, sizeof m.u.chat_msg.text, fmt, ap);
    va_end(ap);
    if (only)
        rs_room__send(room, only->id, &m);
    else
        rs_room__send_watchers(room, &m);
}

static bool muted_by(const room_peer *reader, const char *sender)
{
    for (uint32_t i = 0; i < reader->mute_count; i++)
        if (rs_proto_name_equal(reader->mutes[i], sender))
            return true;
    return false;
}

/* An administrator's mute of name still in force (its slot), or -1. */
static int admin_muted(rs_room *room, const char *name)
{
    for (uint32_t i = 0; i < RS_ROOM_ADMIN_MUTES; i++) {
        room_mute *m = &room->muted[i];
        if (!m->name[0])
            continue;
        if (m->until_us && m->until_us <= room->now_us) {
            m->name[0] = '\0'; /* served */
            continue;
        }
        if (rs_proto_name_equal(m->name, name))
            return (int)i;
    }
    return -1;
}

static void observe_chat(rs_room *room, const rs_msg_chat_msg *c, const char *to)
{
    if (!rs_room__observed(room))
        return;
    rs_room_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = RS_ROOM_EV_CHAT;
    ev.name = c->from;
    ev.player_id = c->player_id;
    ev.text = to ? to : "";
    ev.chat = c;
    rs_room__observe(room, &ev);
}

/* Takes one token from p's bucket: burst tokens, refilled at per_minute. */
static bool chat_budget(rs_room *room, room_peer *p, int64_t now_us)
{
    const rs_room_chat_config *c = &room->cfg.chat;
    int64_t cap = (int64_t)c->burst * 60000000; /* tokens in micro-minutes */
    if (p->chat_at_us == 0 || now_us < p->chat_at_us) {
        p->chat_tokens = cap;
    } else {
        p->chat_tokens += (now_us - p->chat_at_us) * (int64_t)c->per_minute;
        if (p->chat_tokens > cap)
            p->chat_tokens = cap;
    }
    p->chat_at_us = now_us;
    if (p->chat_tokens < 60000000)
        return false;
    p->chat_tokens -= 60000000;
    return true;
}

static room_peer *peer_named(rs_room *room, const char *name)
{
    for (uint32_t i = 0; i < room->peer_cap; i++) {
        room_peer *p = &room->peers[i];
        if (rs_room__peer_watching(p) && rs_proto_name_equal(p->name, name))
            return p;
    }
    return NULL;
}

void rs_room__on_chat(rs_room *room, room_peer *p, const rs_msg_chat *c, int64_t now_us)
{
    if (room->cfg.chat.burst == 0) {
        rs_room__system(room, p, "chat is off in this room");
        return;
    }
    if (admin_muted(room, p->name) >= 0) {
        rs_room__system(room, p, "you are muted by an administrator");
        return;
    }
    if (!chat_budget(room, p, now_us)) {
        room->stats.rate_limited++;
        rs_room__system(room, p, "you are sending too fast: wait a moment");
        return;
    }
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_CHAT_MSG;
    rs_msg_chat_msg *out = &m.u.chat_msg;
    out->kind = c->to[0] ? RS_CHAT_PRIVATE : RS_CHAT_ROOM;
    out->player_id = p->player_id;
    snprintf(out->from, sizeof out->from, "%s", p->name);
    snprintf(out->text, sizeof out->text, "%s", c->text);
    if (c->to[0]) {
        room_peer *to = peer_named(room, c->to);
        if (!to) {
            rs_room__system(room, p, "nobody called %s is here", c->to);
            return;
        }
        /* The sender sees its line as sent even when the reader muted it:
         * a mute is the reader's business. */
        if (!muted_by(to, p->name))
            rs_room__send(room, to->id, &m);
        if (to != p)
            rs_room__send(room, p->id, &m);
        observe_chat(room, out, to->name);
        return;
    }
    for (uint32_t i = 0; i < room->peer_cap; i++) {
        room_peer *r = &room->peers[i];
        if (rs_room__peer_watching(r) && !muted_by(r, p->name))
            rs_room__send(room, r->id, &m);
    }
    observe_chat(room, out, NULL);
}

uint8_t rs_room__chat_mute(rs_room *room, room_peer *p, const char *name, bool mute, char *text,
                           size_t cap)
{
    (void)room;
    for (uint32_t i = 0; i < p->mute_count; i++) {
        if (!rs_proto_name_equal(p->mutes[i], name))
            continue;
        if (mute) {
            snprintf(text, cap, "%s is muted already", name);
            return RS_RESULT_OK;
        }
        memmove(p->mutes[i], p->mutes[i + 1], (p->mute_count - i - 1) * sizeof p->mutes[0]);
        p->mute_count--;
        snprintf(text, cap, "you hear %s again", name);
        return RS_RESULT_OK;
    }
    if (!mute) {
        snprintf(text, cap, "%s was not muted", name);
        return RS_RESULT_NOT_FOUND;
    }
    if (rs_proto_name_equal(name, p->name)) {
        snprintf(text, cap, "you cannot mute yourself");
        return RS_RESULT_INVALID;
    }
    if (p->mute_count == RS_ROOM_PEER_MUTES) {
        snprintf(text, cap, "you mute %u players already: unmute one first",
                 (unsigned)RS_ROOM_PEER_MUTES);
        return RS_RESULT_INVALID;
    }
    snprintf(p->mutes[p->mute_count++], sizeof p->mutes[0], "%s", name);
    snprintf(text, cap, "you no longer hear %s", name);
    return RS_RESULT_OK;
}

bool rs_room_announce(rs_room *room, const char *text)
{
    if (!room || !text || !rs_proto_text_check(text, strlen(text), NULL, 0))
        return false;
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_CHAT_MSG;
    m.u.chat_msg.kind = RS_CHAT_ANNOUNCE;
    snprintf(m.u.chat_msg.text, sizeof m.u.chat_msg.text, "%s", text);
    rs_room__send_watchers(room, &m);
    observe_chat(room, &m.u.chat_msg, NULL);
    return true;
}

rs_status rs_room_mute(rs_room *room, const char *name, uint32_t seconds)
{
    if (!room || !name || !rs_proto_name_check(name, strlen(name), NULL, 0))
        return RS_ERR_ARG;
    int slot = admin_muted(room, name);
    for (uint32_t i = 0; slot < 0 && i < RS_ROOM_ADMIN_MUTES; i++)
        if (!room->muted[i].name[0])
            slot = (int)i;
    if (slot < 0)
        return RS_ERR_FULL;
    room_mute *m = &room->muted[slot];
    snprintf(m->name, sizeof m->name, "%s", name);
    m->until_us = seconds ? room->now_us + (int64_t)seconds * 1000000 : 0;
    room_peer *p = peer_named(room, name);
    if (p) {
        if (seconds)
            rs_room__system(room, p, "an administrator muted you for %u s", (unsigned)seconds);
        else
            rs_room__system(room, p, "an administrator muted you");
    }
    return RS_OK;
}

rs_status rs_room_unmute(rs_room *room, const char *name)
{
    if (!room || !name)
        return RS_ERR_ARG;
    int slot = admin_muted(room, name);
    if (slot < 0)
        return RS_ERR_MISSING;
    room->muted[slot].name[0] = '\0';
    room_peer *p = peer_named(room, name);
    if (p)
        rs_room__system(room, p, "an administrator unmuted you");
    return RS_OK;
}
