/*
 * The inbox of a room away on a worker (server/app/room_inbox.h), filled
 * past its cap as a flooding peer would:
 * - unreliable messages (channels 1 and 2) are kept in half of the cap and
 *   dropped over it, counted by the caller, while reliable ones still fit;
 * - a reliable message over the cap names the peer that filled the inbox
 *   (the sender when it is the one, another peer when that one holds more)
 *   and takes that peer's messages out, reporting how many, so the caller
 *   can close it and count them; every other event keeps its order and
 *   its bytes;
 * - connections and disconnections are kept whatever the cap;
 * - the replay hands a real room every kept message, in order, and the
 *   inbox's memory is reused for the next away period.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "room_inbox.h"
#include "room_harness.h"
#include "racesim/protocol.h"

#define FLOODER 0x1001u
#define PLAYER 0x2002u
#define OTHER 0x3003u

/* A message whose bytes say who sent it and its number, so that a kept
 * message can be recognised after the inbox moved its bytes. */
static size_t payload(uint8_t *buf, size_t len, uint32_t peer, uint32_t n)
{
    memset(buf, (int)(n & 0xffu), len);
    if (len >= 8) {
        memcpy(buf, &peer, 4);
        memcpy(buf + 4, &n, 4);
    }
    return len;
}

static srv_inbox_result push_msg(srv_inbox *in, uint32_t peer, uint8_t channel, size_t len,
                                 uint32_t n, srv_inbox_overflow *ov)
{
    uint8_t buf[RS_PROTO_MAX_PACKET];
    payload(buf, len, peer, n);
    return srv_inbox_push(in, SRV_IN_RECEIVE, peer, channel, buf, len, (int64_t)n, ov);
}

static srv_inbox_result push_state(srv_inbox *in, uint8_t op, uint32_t peer)
{
    srv_inbox_overflow ov;
    return srv_inbox_push(in, op, peer, 0, NULL, 0, 0, &ov);
}

/* Item i is peer's message number n of len bytes, bytes intact. */
static void assert_message(const srv_inbox *in, size_t i, uint32_t peer, uint32_t n, size_t len)
{
    assert_true(i < in->count);
    const srv_inbound *e = &in->items[i];
    assert_int_equal(e->op, SRV_IN_RECEIVE);
    assert_int_equal(e->peer, peer);
    assert_int_equal(e->len, len);
    assert_int_equal(e->now_us, (int64_t)n);
    assert_true(e->off + e->len <= in->used); /* within the bytes the inbox counts */
    uint8_t want[RS_PROTO_MAX_PACKET];
    payload(want, len, peer, n);
    assert_memory_equal(in->bytes + e->off, want, len);
}

static void test_unreliable_messages_over_half_the_cap_are_dropped(void **state)
{
    (void)state;
    srv_inbox in = {0};
    srv_inbox_overflow ov;
    assert_int_equal(push_state(&in, SRV_IN_CONNECT, FLOODER), SRV_INBOX_KEPT);
    /* Small INPUTs: the message count is what runs out. */
    size_t kept = 0, dropped = 0;
    for (uint32_t n = 0; n < SRV_INBOX_MAX_MESSAGES; n++) {
        srv_inbox_result r = push_msg(&in, FLOODER, RS_CH_INPUT, 24, n, &ov);
        assert_true(r == SRV_INBOX_KEPT || r == SRV_INBOX_DROPPED);
        kept += r == SRV_INBOX_KEPT;
        dropped += r == SRV_INBOX_DROPPED;
    }
    assert_int_equal(kept, SRV_INBOX_MAX_MESSAGES / 2);
    assert_int_equal(dropped, SRV_INBOX_MAX_MESSAGES / 2);
    assert_int_equal(in.messages, kept);
    /* The frame channel is unreliable too; the reliable half is untouched. */
    assert_int_equal(push_msg(&in, FLOODER, RS_CH_FRAME, 24, 9999, &ov), SRV_INBOX_DROPPED);
    assert_int_equal(push_msg(&in, PLAYER, RS_CH_CONTROL, 40, 1, &ov), SRV_INBOX_KEPT);
    assert_int_equal(push_msg(&in, PLAYER, RS_CH_BULK, 40, 2, &ov), SRV_INBOX_KEPT);
    assert_message(&in, in.count - 1, PLAYER, 2, 40);
    srv_inbox_free(&in);

    /* Large unreliable messages: the bytes run out first, at half. */
    size_t big = RS_PROTO_MAX_PACKET;
    kept = 0;
    for (uint32_t n = 0; n < 1000; n++)
        kept += push_msg(&in, FLOODER, RS_CH_FRAME, big, n, &ov) == SRV_INBOX_KEPT;
    assert_int_equal(kept, (SRV_INBOX_MAX_BYTES / 2) / big);
    assert_true(in.used <= SRV_INBOX_MAX_BYTES / 2);
    assert_int_equal(push_msg(&in, PLAYER, RS_CH_CONTROL, big, 7, &ov), SRV_INBOX_KEPT);
    srv_inbox_free(&in);
}

static void test_a_reliable_flood_names_the_flooder_and_leaves_the_rest(void **state)
{
    (void)state;
    srv_inbox in = {0};
    srv_inbox_overflow ov = {0};
    assert_int_equal(push_state(&in, SRV_IN_CONNECT, PLAYER), SRV_INBOX_KEPT);
    assert_int_equal(push_msg(&in, PLAYER, RS_CH_CONTROL, 100, 1, &ov), SRV_INBOX_KEPT);
    assert_int_equal(push_state(&in, SRV_IN_CONNECT, FLOODER), SRV_INBOX_KEPT);
    assert_int_equal(push_msg(&in, PLAYER, RS_CH_INPUT, 30, 2, &ov), SRV_INBOX_KEPT);
    /* The flooder's reliable messages, interleaved with its INPUTs, until
     * one does not fit. */
    uint32_t n = 0;
    size_t kept = 0, inputs_dropped = 0;
    srv_inbox_result r;
    for (;; n++) {
        assert_true(n <= 2 * SRV_INBOX_MAX_MESSAGES);
        r = push_msg(&in, FLOODER, n % 3 ? RS_CH_CONTROL : RS_CH_INPUT, 200, n, &ov);
        if (r == SRV_INBOX_OVERFLOW)
            break;
        if (r == SRV_INBOX_DROPPED) {
            assert_int_equal(n % 3, 0); /* only its INPUTs, once over half */
            inputs_dropped++;
        }
        kept += r == SRV_INBOX_KEPT;
        if (n == 100) /* the player between the flooder's messages */
            assert_int_equal(push_msg(&in, PLAYER, RS_CH_CONTROL, 77, 1000, &ov), SRV_INBOX_KEPT);
    }
    assert_true(inputs_dropped > 0);
    assert_int_equal(n % 3 != 0, 1); /* a reliable one overflowed */
    assert_int_equal(ov.peer, FLOODER);
    /* Everything it had in the inbox, and the message that overflowed. */
    assert_int_equal(in.messages, 3);
    assert_int_equal(ov.dropped, kept + 1);
    /* The rest, in order, bytes intact and packed; connections kept. */
    assert_int_equal(in.count, 5);
    assert_int_equal(in.items[0].op, SRV_IN_CONNECT);
    assert_int_equal(in.items[0].peer, PLAYER);
    assert_message(&in, 1, PLAYER, 1, 100);
    assert_int_equal(in.items[2].op, SRV_IN_CONNECT);
    assert_int_equal(in.items[2].peer, FLOODER);
    assert_message(&in, 3, PLAYER, 2, 30);
    assert_message(&in, 4, PLAYER, 1000, 77);
    assert_int_equal(in.used, 207);
    /* The player's next message fits again. */
    assert_int_equal(push_msg(&in, PLAYER, RS_CH_CONTROL, 50, 3, &ov), SRV_INBOX_KEPT);
    assert_message(&in, 5, PLAYER, 3, 50);
    srv_inbox_free(&in);
}

/* The inbox full to the cap with the flooder's reliable messages (by
 * message count or by bytes); then another peer's message overflows it. */
static void fill_then_player_overflows(size_t flood_len)
{
    srv_inbox in = {0};
    srv_inbox_overflow ov = {0};
    assert_int_equal(push_msg(&in, PLAYER, RS_CH_CONTROL, 60, 0, &ov), SRV_INBOX_KEPT);
    uint32_t n = 1;
    while (in.messages < SRV_INBOX_MAX_MESSAGES &&
           in.used + flood_len <= SRV_INBOX_MAX_BYTES) {
        assert_int_equal(push_msg(&in, FLOODER, RS_CH_CONTROL, flood_len, n, &ov),
                         SRV_INBOX_KEPT);
        n++;
        if (n % 100 == 0)
            assert_int_equal(push_state(&in, SRV_IN_CONNECT, OTHER + n), SRV_INBOX_KEPT);
    }
    size_t flooded = n - 1, before = in.count;
    /* The player sent the message that does not fit, but the flooder holds
     * the inbox: the flooder is named, the player's message is kept. */
    assert_int_equal(push_msg(&in, PLAYER, RS_CH_CONTROL, RS_PROTO_MAX_PACKET, n, &ov),
                     SRV_INBOX_OVERFLOW);
    assert_int_equal(ov.peer, FLOODER);
    assert_int_equal(ov.dropped, flooded);
    assert_int_equal(in.messages, 2);
    assert_int_equal(in.count, before - flooded + 1);
    assert_message(&in, 0, PLAYER, 0, 60);
    for (size_t i = 1; i + 1 < in.count; i++) {
        assert_int_equal(in.items[i].op, SRV_IN_CONNECT);
        assert_true(i == 1 || in.items[i].peer > in.items[i - 1].peer); /* their order */
    }
    assert_message(&in, in.count - 1, PLAYER, n, RS_PROTO_MAX_PACKET);
    srv_inbox_free(&in);
}

static void test_the_peer_that_filled_the_inbox_is_named_not_the_last_sender(void **state)
{
    (void)state;
    fill_then_player_overflows(16);                  /* the message count is full */
    fill_then_player_overflows(RS_PROTO_MAX_PACKET); /* the bytes are */
}

static void test_connections_and_disconnections_are_always_kept(void **state)
{
    (void)state;
    srv_inbox in = {0};
    srv_inbox_overflow ov;
    for (uint32_t n = 0; n < SRV_INBOX_MAX_MESSAGES; n++)
        assert_int_equal(push_msg(&in, FLOODER, RS_CH_CONTROL, 8, n, &ov), SRV_INBOX_KEPT);
    assert_int_equal(push_msg(&in, PLAYER, RS_CH_INPUT, 8, 0, &ov), SRV_INBOX_DROPPED);
    for (uint32_t p = 0; p < 300; p++) {
        assert_int_equal(push_state(&in, SRV_IN_CONNECT, OTHER + p), SRV_INBOX_KEPT);
        assert_int_equal(push_state(&in, SRV_IN_DISCONNECT, OTHER + p), SRV_INBOX_KEPT);
    }
    assert_int_equal(in.messages, SRV_INBOX_MAX_MESSAGES);
    assert_int_equal(in.count, SRV_INBOX_MAX_MESSAGES + 600);
    for (uint32_t p = 0; p < 300; p++) {
        const srv_inbound *c = &in.items[SRV_INBOX_MAX_MESSAGES + 2 * p];
        assert_int_equal(c[0].op, SRV_IN_CONNECT);
        assert_int_equal(c[0].peer, OTHER + p);
        assert_int_equal(c[1].op, SRV_IN_DISCONNECT);
        assert_int_equal(c[1].peer, OTHER + p);
    }
    /* A purge leaves them too. */
    assert_int_equal(push_msg(&in, FLOODER, RS_CH_CONTROL, 8, 5000, &ov), SRV_INBOX_OVERFLOW);
    assert_int_equal(ov.peer, FLOODER);
    assert_int_equal(ov.dropped, SRV_INBOX_MAX_MESSAGES + 1);
    assert_int_equal(in.count, 600);
    assert_int_equal(in.messages, 0);
    assert_int_equal(in.used, 0);
    srv_inbox_free(&in);
}

/* Fills in with a mix of events and returns the messages' bytes in all. */
static size_t fill_mix(srv_inbox *in, uint32_t rounds)
{
    srv_inbox_overflow ov;
    size_t bytes = 0;
    assert_int_equal(push_state(in, SRV_IN_CONNECT, PLAYER), SRV_INBOX_KEPT);
    assert_int_equal(push_state(in, SRV_IN_CONNECT, FLOODER), SRV_INBOX_KEPT);
    for (uint32_t n = 0; n < rounds; n++) {
        size_t len = 8 + n % 50;
        assert_int_equal(push_msg(in, n % 2 ? PLAYER : FLOODER, (uint8_t)(n % RS_CH_COUNT), len,
                                  n, &ov),
                         SRV_INBOX_KEPT);
        bytes += len;
    }
    assert_int_equal(push_state(in, SRV_IN_DISCONNECT, FLOODER), SRV_INBOX_KEPT);
    return bytes;
}

static void test_the_replay_keeps_the_order_and_the_memory_is_reused(void **state)
{
    test_scene *s = *state;
    rs_room_config cfg = harness_room_config(s, 2);
    rs_room *room = NULL;
    char err[256];
    assert_int_equal(rs_room_create(&cfg, &room, err, sizeof err), RS_OK);
    srv_inbox in = {0};
    const uint32_t rounds = 300;
    size_t bytes = fill_mix(&in, rounds);
    assert_int_equal(in.count, rounds + 3);
    assert_int_equal(in.items[0].peer, PLAYER);
    assert_int_equal(in.items[1].peer, FLOODER);
    for (uint32_t n = 0; n < rounds; n++)
        assert_message(&in, 2 + n, n % 2 ? PLAYER : FLOODER, n, 8 + n % 50);
    assert_int_equal(in.items[rounds + 2].op, SRV_IN_DISCONNECT);

    /* The room is told every message (none decodes: each is counted). */
    rs_room_stats st0, st1;
    rs_room_get_stats(room, &st0);
    srv_inbox_replay(&in, room);
    rs_room_get_stats(room, &st1);
    assert_int_equal(st1.packets_in - st0.packets_in, rounds);
    assert_int_equal(st1.bytes_in - st0.bytes_in, bytes);
    assert_int_equal(in.count, 0);
    assert_int_equal(in.messages, 0);
    assert_int_equal(in.used, 0);

    /* The next away period, as large again, reuses the same memory. */
    const srv_inbound *items = in.items;
    const uint8_t *mem = in.bytes;
    size_t cap = in.cap, bytes_cap = in.bytes_cap;
    fill_mix(&in, rounds);
    assert_ptr_equal(in.items, items);
    assert_ptr_equal(in.bytes, mem);
    assert_int_equal(in.cap, cap);
    assert_int_equal(in.bytes_cap, bytes_cap);
    srv_inbox_replay(&in, room);
    srv_inbox_free(&in);
    rs_room_destroy(room);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unreliable_messages_over_half_the_cap_are_dropped),
        cmocka_unit_test(test_a_reliable_flood_names_the_flooder_and_leaves_the_rest),
        cmocka_unit_test(test_the_peer_that_filled_the_inbox_is_named_not_the_last_sender),
        cmocka_unit_test(test_connections_and_disconnections_are_always_kept),
        cmocka_unit_test_setup_teardown(test_the_replay_keeps_the_order_and_the_memory_is_reused,
                                        harness_scene_setup, harness_scene_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
