/*
 * Chat and votes in a room (server/room/src/room_chat.c, room_votes.c), as
 * players meet them: real SDK clients over the room harness's link send
 * CHAT and COMMAND with rs_client_chat / rs_client_command, and the tests
 * read the CHAT, VOTE and COMMAND_REPLY events every client got.
 *
 * - room lines reach everyone, private ones their reader (and an echo to
 *   the sender), never a reader who muted the sender;
 * - a burst beyond the budget is refused to the sender in words;
 * - text with a bidirectional override never leaves the SDK, and the same
 *   bytes sent raw never reach anyone;
 * - an administrator's mute silences a player, an announcement reaches all;
 * - a kick vote passes with its quorum and majority, one vote per player,
 *   never against an administrator, and not again during its cool-down; a
 *   vote without its quorum fails when its time is up; a skip vote ends the
 *   session.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "racesim/protocol.h"
#include "racesim/room.h"
#include "room_harness.h"
#include "test_data.h"

#define SECOND 1000000LL

static harness *room_of(const test_scene *s, uint32_t n, rs_room_config *cfg)
{
    *cfg = harness_room_config(s, n);
    cfg->max_players = 8;
    cfg->countdown_ticks = 120;
    cfg->laps = 3;
    harness *h = harness_create(cfg, NULL);
    for (uint32_t k = 0; k < n; k++) {
        char name[16];
        snprintf(name, sizeof name, "p%u", k);
        rs_client_config c = harness_player(name, 20);
        harness_add_client(h, &c, HARNESS_PLAIN);
    }
    /* Everyone admitted and in the race's world. */
    int64_t end = harness_now(h) + 20 * SECOND;
    while ((!rs_room_world(harness_room(h)) || rs_world_tick(rs_room_world(harness_room(h))) < 30) &&
           harness_now(h) < end)
        harness_step(h, 1000);
    return h;
}

static void steps(harness *h, int n)
{
    for (int i = 0; i < n; i++)
        harness_step(h, 1000);
}

/* Client i's chat lines of a kind (-1: any), counted, the last into *last. */
static uint32_t lines(harness *h, uint32_t i, int kind, rs_msg_chat_msg *last)
{
    uint32_t n = 0;
    rs_client_event ev;
    while (harness_client_take(h, i, RS_CLIENT_EV_CHAT, &ev)) {
        if (kind >= 0 && ev.u.chat.kind != kind)
            continue;
        n++;
        if (last)
            *last = ev.u.chat;
    }
    return n;
}

static rs_msg_command_reply command(harness *h, uint32_t i, uint8_t cmd, const char *arg)
{
    uint32_t id = 0;
    assert_int_equal(rs_client_command(harness_client(h, i), cmd, arg, &id), RS_CLIENT_OK);
    rs_client_event ev;
    for (int k = 0; k < 200; k++) {
        harness_step(h, 1000);
        while (harness_client_take(h, i, RS_CLIENT_EV_COMMAND_REPLY, &ev))
            if (ev.u.command.request_id == id)
                return ev.u.command;
    }
    fail_msg("no reply to command %u", (unsigned)cmd);
    return ev.u.command;
}

static void test_chat_reaches_whom_it_should(void **state)
{
    rs_room_config cfg;
    harness *h = room_of(*state, 3, &cfg);
    rs_msg_chat_msg last;
    for (uint32_t i = 0; i < 3; i++)
        lines(h, i, -1, NULL);
    assert_int_equal(rs_client_chat(harness_client(h, 0), "", "hello all"), RS_CLIENT_OK);
    steps(h, 100);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(lines(h, i, RS_CHAT_ROOM, &last), 1);
        assert_string_equal(last.from, "p0");
        assert_string_equal(last.text, "hello all");
    }
    /* Private: the reader and an echo to the sender, nobody else. */
    assert_int_equal(rs_client_chat(harness_client(h, 0), "p1", "just you"), RS_CLIENT_OK);
    steps(h, 100);
    assert_int_equal(lines(h, 1, RS_CHAT_PRIVATE, &last), 1);
    assert_string_equal(last.text, "just you");
    assert_int_equal(lines(h, 0, RS_CHAT_PRIVATE, NULL), 1);
    assert_int_equal(lines(h, 2, -1, NULL), 0);
    /* p1 mutes p0: p0's lines reach p2 only, until p1 unmutes. */
    assert_int_equal(command(h, 1, RS_CMD_MUTE, "p0").result, RS_RESULT_OK);
    assert_int_equal(rs_client_chat(harness_client(h, 0), "", "anyone?"), RS_CLIENT_OK);
    assert_int_equal(rs_client_chat(harness_client(h, 0), "p1", "you?"), RS_CLIENT_OK);
    steps(h, 100);
    assert_int_equal(lines(h, 1, -1, NULL), 0);
    assert_int_equal(lines(h, 2, RS_CHAT_ROOM, NULL), 1);
    assert_int_equal(command(h, 1, RS_CMD_UNMUTE, "p0").result, RS_RESULT_OK);
    assert_int_equal(command(h, 1, RS_CMD_UNMUTE, "p0").result, RS_RESULT_NOT_FOUND);
    lines(h, 0, -1, NULL);
    assert_int_equal(rs_client_chat(harness_client(h, 0), "", "back"), RS_CLIENT_OK);
    steps(h, 100);
    assert_int_equal(lines(h, 1, RS_CHAT_ROOM, NULL), 1);
    /* Nobody of that name: the sender is told (once its budget, spent on the
     * lines above, has a token again: 20 a minute). */
    steps(h, 3100);
    assert_int_equal(rs_client_chat(harness_client(h, 0), "ghost", "boo"), RS_CLIENT_OK);
    steps(h, 100);
    assert_int_equal(lines(h, 0, RS_CHAT_SYSTEM, &last), 1);
    assert_non_null(strstr(last.text, "ghost"));
    harness_destroy(h);
}

static void test_chat_is_rate_limited_and_sanitised(void **state)
{
    rs_room_config cfg;
    harness *h = room_of(*state, 2, &cfg);
    for (uint32_t i = 0; i < 2; i++)
        lines(h, i, -1, NULL);
    /* Ten at once: the burst (5) goes out, the rest is refused in words. */
    for (int k = 0; k < 10; k++) {
        char t[32];
        snprintf(t, sizeof t, "spam %d", k);
        assert_int_equal(rs_client_chat(harness_client(h, 0), "", t), RS_CLIENT_OK);
    }
    steps(h, 100);
    assert_int_equal(lines(h, 1, RS_CHAT_ROOM, NULL), cfg.chat.burst);
    rs_msg_chat_msg last;
    assert_int_equal(lines(h, 0, RS_CHAT_SYSTEM, &last), 10 - cfg.chat.burst);
    assert_non_null(strstr(last.text, "too fast"));
    /* A minute later the budget is back. */
    for (int k = 0; k < 60; k++)
        steps(h, 1000);
    lines(h, 1, -1, NULL);
    assert_int_equal(rs_client_chat(harness_client(h, 0), "", "calm now"), RS_CLIENT_OK);
    steps(h, 100);
    assert_int_equal(lines(h, 1, RS_CHAT_ROOM, NULL), 1);
    /* A right-to-left override, a newline, an empty line: the SDK sends none. */
    assert_int_equal(rs_client_chat(harness_client(h, 0), "", "evil \xe2\x80\xae txt"),
                     RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_client_chat(harness_client(h, 0), "", "two\nlines"), RS_CLIENT_ERR_ARG);
    assert_int_equal(rs_client_chat(harness_client(h, 0), "", ""), RS_CLIENT_ERR_ARG);
    /* The same bytes sent raw do not decode, and the room drops what does
     * not decode (test_room checks that for every message). */
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_CHAT;
    strcpy(m.u.chat.text, "ok");
    uint8_t buf[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, buf, sizeof buf, &len, NULL), RS_PROTO_OK);
    buf[len - 1] = 0x0a; /* "o\n": one byte edited after the encoder checked it */
    assert_int_equal(rs_proto_decode(buf, len, &m, NULL), RS_PROTO_RANGE);
    harness_destroy(h);
}

static void test_administrators_mute_and_announce(void **state)
{
    rs_room_config cfg;
    harness *h = room_of(*state, 2, &cfg);
    rs_room *room = harness_room(h);
    for (uint32_t i = 0; i < 2; i++)
        lines(h, i, -1, NULL);
    assert_int_equal(rs_room_mute(room, "p0", 0), RS_OK);
    assert_int_equal(rs_client_chat(harness_client(h, 0), "", "can you hear me"), RS_CLIENT_OK);
    steps(h, 100);
    assert_int_equal(lines(h, 1, RS_CHAT_ROOM, NULL), 0);
    rs_msg_chat_msg last;
    assert_true(lines(h, 0, RS_CHAT_SYSTEM, &last) >= 1);
    assert_non_null(strstr(last.text, "muted"));
    assert_int_equal(rs_room_unmute(room, "p0"), RS_OK);
    assert_int_equal(rs_room_unmute(room, "p0"), RS_ERR_MISSING);
    /* A timed mute ends by itself. */
    assert_int_equal(rs_room_mute(room, "p0", 2), RS_OK);
    steps(h, 2100);
    lines(h, 0, -1, NULL);
    assert_int_equal(rs_client_chat(harness_client(h, 0), "", "free again"), RS_CLIENT_OK);
    steps(h, 100);
    assert_int_equal(lines(h, 1, RS_CHAT_ROOM, NULL), 1);
    assert_true(rs_room_announce(room, "server restarts in 5 minutes"));
    assert_false(rs_room_announce(room, "bad\x07"));
    steps(h, 100);
    for (uint32_t i = 0; i < 2; i++) {
        assert_int_equal(lines(h, i, RS_CHAT_ANNOUNCE, &last), 1);
        assert_string_equal(last.text, "server restarts in 5 minutes");
        assert_string_equal(last.from, "");
    }
    harness_destroy(h);
}

/* The last VOTE_STATE client i got. */
static rs_msg_vote_state last_vote(harness *h, uint32_t i)
{
    rs_client_event ev;
    rs_msg_vote_state v;
    memset(&v, 0, sizeof v);
    while (harness_client_take(h, i, RS_CLIENT_EV_VOTE, &ev))
        v = ev.u.vote;
    return v;
}

static void test_a_kick_vote_needs_its_majority_once_each(void **state)
{
    rs_room_config cfg;
    harness *h = room_of(*state, 4, &cfg);
    rs_room *room = harness_room(h);
    assert_true(rs_room_set_admin(room, "p2", true));
    /* Never against an administrator. */
    rs_msg_command_reply r = command(h, 1, RS_CMD_VOTE_KICK, "p2");
    assert_int_equal(r.result, RS_RESULT_DENIED);
    assert_non_null(strstr(r.text, "administrator"));
    /* p0 calls it (its yes counts); 4 players: 3 yes votes pass it. */
    assert_int_equal(command(h, 0, RS_CMD_VOTE_KICK, "p3").result, RS_RESULT_OK);
    rs_msg_vote_state v = last_vote(h, 3);
    assert_int_equal(v.state, RS_VOTE_OPEN);
    assert_int_equal(v.kind, RS_VOTE_KICK);
    assert_string_equal(v.arg, "p3");
    assert_int_equal(v.eligible, 4);
    assert_int_equal(v.needed, 3);
    assert_int_equal(v.yes, 1);
    assert_true(v.ends_in_ms > 0 && v.ends_in_ms <= 30000);
    /* One vote per player: the caller and a second yes from p1 do not count. */
    assert_int_equal(command(h, 0, RS_CMD_VOTE_YES, "").result, RS_RESULT_DENIED);
    assert_int_equal(command(h, 1, RS_CMD_VOTE_YES, "").result, RS_RESULT_OK);
    assert_int_equal(command(h, 1, RS_CMD_VOTE_YES, "").result, RS_RESULT_DENIED);
    v = last_vote(h, 2);
    assert_int_equal(v.yes, 2);
    assert_int_equal(v.state, RS_VOTE_OPEN);
    assert_true(harness_client_linked(h, 3));
    /* The third yes passes it: p3 is kicked. */
    assert_int_equal(command(h, 2, RS_CMD_VOTE_YES, "").result, RS_RESULT_OK);
    steps(h, 200);
    v = last_vote(h, 0);
    assert_int_equal(v.state, RS_VOTE_PASSED);
    assert_int_equal(v.yes, 3);
    rs_client_event ev;
    assert_true(harness_client_take(h, 3, RS_CLIENT_EV_DISCONNECTED, &ev));
    assert_int_equal(ev.u.disconnected.reason, RS_REASON_KICKED);
    /* A kick vote again at once: cooling down. */
    r = command(h, 1, RS_CMD_VOTE_KICK, "p0");
    assert_int_equal(r.result, RS_RESULT_DENIED);
    assert_non_null(strstr(r.text, "moment ago"));
    harness_destroy(h);
}

static void test_a_vote_without_its_quorum_fails_at_its_time(void **state)
{
    rs_room_config cfg;
    harness *h = room_of(*state, 3, &cfg);
    assert_int_equal(command(h, 0, RS_CMD_VOTE_RESTART, "").result, RS_RESULT_OK);
    assert_int_equal(command(h, 1, RS_CMD_VOTE_NO, "").result, RS_RESULT_OK);
    /* 1 yes, 1 no of 3: the quorum (2) is met but not the majority; it
     * stays open for p2, then fails at its time. */
    assert_int_equal(last_vote(h, 2).state, RS_VOTE_OPEN);
    rs_room_stats st;
    rs_room_get_stats(harness_room(h), &st);
    uint32_t race = st.race_number;
    for (uint32_t s = 0; s <= cfg.votes.duration_s; s++)
        steps(h, 1000);
    assert_int_equal(last_vote(h, 2).state, RS_VOTE_FAILED);
    rs_room_get_stats(harness_room(h), &st);
    assert_int_equal(st.race_number, race); /* not restarted */
    harness_destroy(h);
}

static void test_a_skip_vote_ends_the_session(void **state)
{
    rs_room_config cfg;
    harness *h = room_of(*state, 2, &cfg);
    assert_int_equal(command(h, 0, RS_CMD_VOTE_SKIP, "").result, RS_RESULT_OK);
    assert_int_equal(command(h, 1, RS_CMD_VOTE_YES, "").result, RS_RESULT_OK);
    steps(h, 300);
    assert_int_equal(last_vote(h, 1).state, RS_VOTE_PASSED);
    rs_room_stats st;
    rs_room_get_stats(harness_room(h), &st);
    assert_int_equal(st.phase, RS_PHASE_RESULTS);
    assert_int_equal(harness_client_events(h, 0)->count[RS_CLIENT_EV_RESULTS], 1);
    /* A track vote needs the server's catalogue, which this room has not. */
    rs_msg_command_reply r = command(h, 1, RS_CMD_VOTE_TRACK, "oval");
    assert_int_equal(r.result, RS_RESULT_DENIED);
    harness_destroy(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chat_reaches_whom_it_should),
        cmocka_unit_test(test_chat_is_rate_limited_and_sanitised),
        cmocka_unit_test(test_administrators_mute_and_announce),
        cmocka_unit_test(test_a_kick_vote_needs_its_majority_once_each),
        cmocka_unit_test(test_a_vote_without_its_quorum_fails_at_its_time),
        cmocka_unit_test(test_a_skip_vote_ends_the_session),
    };
    return cmocka_run_group_tests(tests, harness_scene_setup, harness_scene_teardown);
}
