/*
 * Votes in a room: kick a player (never an administrator), restart or skip
 * the running session, or pick the next weekend's track from the server's
 * catalogue.
 *
 * One vote at a time. The players connected when it opens may vote, once
 * each; whoever calls it votes yes. It passes when at its end at least
 * quorum_pct of them voted and more than majority_pct of the votes cast
 * are yes; it is decided early once its outcome cannot change (a yes count
 * that passes even if every other player votes no, or too few voters left
 * to pass it). Afterwards the same kind of vote, and any vote by the same
 * caller, waits cooldown_s. Every change goes out as VOTE_STATE to every
 * watcher.
 */
#include <stdio.h>
#include <string.h>

#include "room_internal.h"

static const char *const kind_words[RS_VOTE_KIND_COUNT] = {
    [RS_VOTE_KICK] = "kick",
    [RS_VOTE_RESTART] = "restart the session",
    [RS_VOTE_SKIP] = "skip the session",
    [RS_VOTE_TRACK] = "next track",
};

/* A vote is open: one was called (ids start at 1) and is not decided. */
static bool vote_open(const room_vote *v)
{
    return v->id != 0 && v->state == RS_VOTE_OPEN;
}

/* Yes votes that pass it whatever the others do: more than majority_pct of
 * every eligible player, and at least the quorum. */
static uint32_t needed(const rs_room *room, uint32_t eligible)
{
    const rs_room_vote_config *c = &room->cfg.votes;
    uint32_t by_majority = eligible * c->majority_pct / 100 + 1;
    uint32_t quorum = (eligible * c->quorum_pct + 99) / 100;
    uint32_t n = by_majority > quorum ? by_majority : quorum;
    return n > eligible ? eligible : n;
}

static void send_state(rs_room *room)
{
    const room_vote *v = &room->vote;
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_VOTE_STATE;
    rs_msg_vote_state *s = &m.u.vote_state;
    s->vote_id = v->id;
    s->kind = v->kind;
    s->state = v->state;
    snprintf(s->arg, sizeof s->arg, "%s", v->arg);
    snprintf(s->by, sizeof s->by, "%s", v->by);
    s->yes = (uint8_t)v->yes;
    s->no = (uint8_t)v->no;
    s->eligible = (uint8_t)v->eligible;
    s->needed = (uint8_t)needed(room, v->eligible);
    int64_t left = v->ends_us - room->now_us;
    s->ends_in_ms = v->state == RS_VOTE_OPEN && left > 0 ? (uint32_t)(left / 1000) : 0;
    rs_room__send_watchers(room, &m);
    if (rs_room__observed(room)) {
        rs_room_event ev;
        memset(&ev, 0, sizeof ev);
        ev.type = RS_ROOM_EV_VOTE;
        ev.name = v->by;
        ev.text = v->arg;
        ev.vote = s;
        rs_room__observe(room, &ev);
    }
}

/* What a passed vote does. */
static void carry_out(rs_room *room, room_vote *v)
{
    switch (v->kind) {
    case RS_VOTE_KICK:
        rs_room_kick(room, v->arg, RS_REASON_KICKED, "kicked by a vote of the players");
        break;
    case RS_VOTE_RESTART:
        rs_room_restart_session(room);
        break;
    case RS_VOTE_SKIP:
        rs_room_skip_session(room);
        break;
    case RS_VOTE_TRACK:
        room->weekend_track = v->track;
        room->weekend_json = v->json;
        room->weekend_json_len = v->json_len;
        rs_room__system(room, NULL, "the next weekend runs on %s", v->arg);
        break;
    default:
        break;
    }
}

static void decide(rs_room *room, bool passed)
{
    room_vote *v = &room->vote;
    v->state = passed ? RS_VOTE_PASSED : RS_VOTE_FAILED;
    int64_t cool = (int64_t)room->cfg.votes.cooldown_s * 1000000;
    room->vote_kind_ready_us[v->kind] = room->now_us + cool;
    v->caller_ready_us = room->now_us + cool;
    send_state(room);
    if (passed)
        carry_out(room, v);
}

/* Decides the open vote once its outcome cannot change, or its time is up.
 * Votes still to come can only help it (each one more yes raises both the
 * turnout and the share of yes), so its best case is every voter left
 * saying yes; its worst, every one saying no. */
static void settle(rs_room *room)
{
    room_vote *v = &room->vote;
    if (!vote_open(v))
        return;
    const rs_room_vote_config *c = &room->cfg.votes;
    uint32_t cast = v->yes + v->no, left = v->eligible - cast;
    uint32_t quorum = (v->eligible * c->quorum_pct + 99) / 100;
    bool passes_as_is = cast >= quorum && v->yes * 100 > c->majority_pct * cast;
    if (v->yes >= needed(room, v->eligible))
        decide(room, true);
    else if (left == 0)
        decide(room, passes_as_is);
    else if ((v->yes + left) * 100 <= c->majority_pct * v->eligible)
        decide(room, false);
    else if (room->now_us >= v->ends_us)
        decide(room, passes_as_is);
}

void rs_room__votes_update(rs_room *room)
{
    settle(room);
}

/* The seat index of the player whose peer p is; -1 for a spectator. */
static int voter_of(const room_peer *p)
{
    return p->state == PEER_PLAYER ? p->seat : -1;
}

static uint32_t connected_players(const rs_room *room)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < room->cfg.max_players; i++)
        n += room->seats[i].used && room->seats[i].peer >= 0;
    return n;
}

/* Why p may not call a vote of kind on arg now, or NULL. */
static const char *call_refusal(rs_room *room, const room_peer *p, uint8_t kind, const char *arg,
                                room_vote *v)
{
    if (room->cfg.votes.off)
        return "votes are off in this room";
    if (voter_of(p) < 0)
        return "spectators do not vote";
    if (vote_open(&room->vote))
        return "a vote is open already: vote yes or no on it";
    if (room->now_us < room->vote_kind_ready_us[kind])
        return "that vote was held a moment ago: wait a while";
    if (rs_proto_name_equal(room->vote.by, p->name) && room->now_us < room->vote.caller_ready_us)
        return "you called a vote a moment ago: wait a while";
    if (kind == RS_VOTE_KICK) {
        if (!arg[0] || !rs_proto_name_check(arg, strlen(arg), NULL, 0))
            return "name the player to kick";
        if (rs_proto_name_equal(arg, p->name))
            return "you cannot vote to kick yourself";
        bool here = false;
        for (uint32_t i = 0; i < room->peer_cap && !here; i++) {
            const room_peer *q = &room->peers[i];
            if (rs_room__peer_watching(q) && rs_proto_name_equal(q->name, arg)) {
                here = true;
                if (q->admin)
                    return "administrators cannot be voted out";
            }
        }
        if (!here)
            return "nobody of that name is here";
    }
    if ((kind == RS_VOTE_RESTART || kind == RS_VOTE_SKIP) &&
        (!room->world || room->phase == RS_PHASE_RESULTS))
        return "no session is running";
    if (kind == RS_VOTE_TRACK) {
        if (!room->cfg.hooks.find_track ||
            !room->cfg.hooks.find_track(room->cfg.hooks.ctx, room, arg, &v->track, &v->json,
                                        &v->json_len))
            return "no track of that name in the server's catalogue";
        if (rs_track_grid_count(v->track) < room->cfg.max_players)
            return "that track has too few grid slots for this room";
    }
    return NULL;
}

uint8_t rs_room__vote_call(rs_room *room, room_peer *p, uint8_t kind, const char *arg,
                           char *text, size_t cap)
{
    room_vote next;
    memset(&next, 0, sizeof next);
    const char *why = call_refusal(room, p, kind, arg, &next);
    if (why) {
        snprintf(text, cap, "%s", why);
        return RS_RESULT_DENIED;
    }
    next.id = room->vote.id + 1;
    next.kind = kind;
    next.state = RS_VOTE_OPEN;
    snprintf(next.arg, sizeof next.arg, "%s", arg);
    snprintf(next.by, sizeof next.by, "%s", p->name);
    next.eligible = connected_players(room);
    next.ends_us = room->now_us + (int64_t)room->cfg.votes.duration_s * 1000000;
    /* The ballot box: one vote per seat that may vote. */
    for (uint32_t i = 0; i < room->cfg.max_players; i++)
        next.may_vote[i] = room->seats[i].used && room->seats[i].peer >= 0;
    next.may_vote[p->seat] = false;
    next.yes = 1;
    room->vote = next;
    snprintf(text, cap, "vote %u (%s%s%s) is open", (unsigned)next.id, kind_words[kind],
             arg[0] ? ": " : "", arg);
    send_state(room);
    settle(room);
    return RS_RESULT_OK;
}

uint8_t rs_room__vote_cast(rs_room *room, room_peer *p, bool yes, char *text, size_t cap)
{
    room_vote *v = &room->vote;
    int seat = voter_of(p);
    if (!vote_open(v)) {
        snprintf(text, cap, "no vote is open");
        return RS_RESULT_NOT_FOUND;
    }
    if (seat < 0 || !v->may_vote[seat]) {
        snprintf(text, cap, "%s",
                 seat < 0 ? "spectators do not vote"
                          : "you voted already (or joined after the vote opened)");
        return RS_RESULT_DENIED;
    }
    v->may_vote[seat] = false;
    if (yes)
        v->yes++;
    else
        v->no++;
    snprintf(text, cap, "your %s on vote %u is counted", yes ? "yes" : "no", (unsigned)v->id);
    send_state(room);
    settle(room);
    return RS_RESULT_OK;
}

bool rs_room_set_admin(rs_room *room, const char *name, bool admin)
{
    bool any = false;
    for (uint32_t i = 0; room && name && i < room->peer_cap; i++) {
        room_peer *p = &room->peers[i];
        if ((p->state == PEER_PLAYER || p->state == PEER_SPECTATOR) &&
            rs_proto_name_equal(p->name, name)) {
            p->admin = admin;
            any = true;
        }
    }
    return any;
}
