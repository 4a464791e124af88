/*
 * Player names: one table of names, each accepted or refused with a reason,
 * run through every place that judges a name (rs_proto_name_check, which
 * all of them call): the shared function itself; the HELLO decoder and
 * encoder and every other field that holds a player name (CAR_INFO,
 * LEADERBOARD_REPLY rows, ADMIN's targets, and protocol version 6's in
 * WEEKEND, CHAT, CHAT_MSG, COMMAND, VOTE_STATE and the standings); the
 * store's registration;
 * the SDK before it sends anything; and migration 0005, which renames old
 * rows that break the rules. Then what "the same name" means (ASCII case
 * only), in the protocol and in the store alike. Chat text
 * (rs_proto_text_check) gets a table of its own, hostile strings among
 * them, run through the function, every text field and rs_client_chat.
 */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "racesim/client.h"
#include "racesim/protocol.h"
#include "racesim/store.h"
#include "racesim/store_testing.h"
#include "test_data.h"
#include "test_table.h"

typedef struct name_case {
    const char *test;  /* the test's name */
    const char *bytes; /* the name, exactly len bytes (may hold a NUL) */
    size_t len;
    const char *why;   /* NULL: accepted; else the whole reason refused with */
} name_case;

#define OK(test, s) {test, s, sizeof s - 1, NULL}
#define NO(test, s, why) {test, s, sizeof s - 1, "player name: " why}

static name_case cases[] = {
    OK("ascii", "alice"),
    OK("one byte", "a"),
    OK("32 bytes", "0123456789abcdef0123456789abcdef"),
    OK("a space inside", "Kimi Raikkonen"),
    OK("punctuation", "[RS] o'Neil-2.0"),
    OK("guest row tilde", "~bob"),
    OK("latin letters", "Kimi R\xc3\xa4ikk\xc3\xb6nen"),
    OK("CJK", "\xe4\xb8\xad\xe6\x96\x87"),
    OK("combining acute", "Jose\xcc\x81"),
    OK("emoji and variation selector", "\xe2\x9d\xa4\xef\xb8\x8f"),
    OK("four-byte emoji", "\xf0\x9f\x8f\x8e car"),
    OK("replacement character", "\xef\xbf\xbd"),
    OK("U+00A1 after no-break space", "\xc2\xa1"),
    OK("U+2027 before the separators", "\xe2\x80\xa7"),
    OK("U+2030 after the overrides", "\xe2\x80\xb0"),
    OK("U+205E before the joiners", "\xe2\x81\x9e"),
    OK("U+2070 after the isolates", "\xe2\x81\xb0"),
    OK("U+FDCF before the noncharacters", "\xef\xb7\x8f"),
    OK("U+1FFFD before a noncharacter", "\xf0\x9f\xbf\xbd"),
    OK("U+E0100 variation selector", "x\xf3\xa0\x84\x80"),
    NO("empty", "", "empty"),
    NO("33 bytes", "0123456789abcdef0123456789abcdefX", "33 bytes, at most 32"),
    NO("33 bytes of 11 CJK characters",
       "\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad"
       "\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad",
       "33 bytes, at most 32"),
    NO("NUL", "a\0b", "control character U+0000 at byte 1"),
    NO("BEL", "bad\x07name", "control character U+0007 at byte 3"),
    NO("tab", "a\tb", "control character U+0009 at byte 1"),
    NO("newline", "bob\n", "control character U+000A at byte 3"),
    NO("escape", "\x1b[31mred", "control character U+001B at byte 0"),
    NO("DEL", "a\x7f", "control character U+007F at byte 1"),
    NO("C1 next line", "a\xc2\x85", "control character U+0085 at byte 1"),
    NO("C1 last", "\xc2\x9f", "control character U+009F at byte 0"),
    NO("lone continuation byte", "a\x80", "invalid UTF-8 at byte 1"),
    NO("overlong slash", "\xc0\xaf", "invalid UTF-8 at byte 0"),
    NO("surrogate", "ab\xed\xa0\x80", "invalid UTF-8 at byte 2"),
    NO("cut sequence", "ab\xe2\x82", "invalid UTF-8 at byte 2"),
    NO("above U+10FFFF", "\xf4\x90\x80\x80", "invalid UTF-8 at byte 0"),
    NO("right-to-left override", "evil\xe2\x80\xae" "cba",
       "bidirectional control character U+202E at byte 4"),
    NO("left-to-right embedding", "\xe2\x80\xaax", "bidirectional control character U+202A at byte 0"),
    NO("pop directional formatting", "x\xe2\x80\xac", "bidirectional control character U+202C at byte 1"),
    NO("left-to-right isolate", "x\xe2\x81\xa6", "bidirectional control character U+2066 at byte 1"),
    NO("pop directional isolate", "x\xe2\x81\xa9", "bidirectional control character U+2069 at byte 1"),
    NO("left-to-right mark", "x\xe2\x80\x8e", "bidirectional control character U+200E at byte 1"),
    NO("right-to-left mark", "x\xe2\x80\x8f", "bidirectional control character U+200F at byte 1"),
    NO("Arabic letter mark", "x\xd8\x9c", "bidirectional control character U+061C at byte 1"),
    NO("zero-width space", "bo\xe2\x80\x8b" "b", "invisible character U+200B at byte 2"),
    NO("zero-width joiner", "x\xe2\x80\x8d", "invisible character U+200D at byte 1"),
    NO("byte order mark", "\xef\xbb\xbf" "bob", "invisible character U+FEFF at byte 0"),
    NO("word joiner", "x\xe2\x81\xa0", "invisible character U+2060 at byte 1"),
    NO("soft hyphen", "x\xc2\xad", "invisible character U+00AD at byte 1"),
    NO("Hangul filler", "\xe3\x85\xa4", "invisible character U+3164 at byte 0"),
    NO("blank Braille pattern", "\xe2\xa0\x80", "invisible character U+2800 at byte 0"),
    NO("tag letter", "x\xf3\xa0\x81\x81", "invisible character U+E0041 at byte 1"),
    NO("no-break space", "a\xc2\xa0" "b", "space other than U+0020 U+00A0 at byte 1"),
    NO("en space", "a\xe2\x80\x82" "b", "space other than U+0020 U+2002 at byte 1"),
    NO("ideographic space", "a\xe3\x80\x80" "b", "space other than U+0020 U+3000 at byte 1"),
    NO("line separator", "a\xe2\x80\xa8" "b", "line or paragraph separator U+2028 at byte 1"),
    NO("private use", "\xee\x80\x80", "private-use character U+E000 at byte 0"),
    NO("plane 16 private use", "\xf4\x8f\xbf\xbd", "private-use character U+10FFFD at byte 0"),
    NO("noncharacter U+FDD0", "\xef\xb7\x90", "noncharacter U+FDD0 at byte 0"),
    NO("noncharacter U+FFFE", "x\xef\xbf\xbe", "noncharacter U+FFFE at byte 1"),
    NO("noncharacter U+1FFFF", "x\xf0\x9f\xbf\xbf", "noncharacter U+1FFFF at byte 1"),
    NO("leading space", " bob", "starts with a space"),
    NO("trailing space", "bob ", "ends with a space"),
    NO("only a space", " ", "starts with a space"),
    NO("two spaces", "bo  b", "two spaces in a row at byte 2"),
};

/* The store every row registers its name in (one database for the group). */
static test_tmpdb g_db;
static rs_store *g_store;

static bool has_nul(const name_case *c)
{
    return memchr(c->bytes, 0, c->len) != NULL;
}

/* A HELLO carrying the name's bytes as they are, whatever they hold. */
static size_t hello_bytes(const name_case *c, uint8_t *b)
{
    size_t n = 0;
    b[n++] = RS_MSG_HELLO;
    b[n++] = (uint8_t)(RS_PROTO_VERSION & 0xff);
    b[n++] = (uint8_t)(RS_PROTO_VERSION >> 8);
    b[n++] = (uint8_t)RS_PHYSICS_VERSION; /* < 128: a one-byte varint */
    b[n++] = 0;                           /* flags */
    b[n++] = (uint8_t)c->len;             /* < 128: a one-byte varint */
    memcpy(b + n, c->bytes, c->len);
    n += c->len;
    b[n++] = 0; /* token */
    b[n++] = 0; /* room */
    b[n++] = 0; /* password */
    memset(b + n, 0, 8); /* car_hash (version 6): the room's choice */
    n += 8;
    return n;
}

/* The name in a message's array of cap bytes, as a sender would put it
 * there: NUL-terminated when it fits, filling the array when it does not. */
static void as_field(const name_case *c, char *dst, size_t cap)
{
    memset(dst, 0, cap);
    memcpy(dst, c->bytes, c->len < cap ? c->len : cap);
}

static void check_function(const name_case *c)
{
    char why[200] = "untouched";
    bool ok = rs_proto_name_check(c->bytes, c->len, why, sizeof why);
    if (!c->why) {
        assert_true(ok);
        assert_string_equal(why, "untouched"); /* nothing written when accepted */
    } else {
        assert_false(ok);
        assert_string_equal(why, c->why);
    }
    assert_int_equal(rs_proto_name_check(c->bytes, c->len, NULL, 0), ok);
}

static void check_hello(const name_case *c)
{
    uint8_t b[128], raw[128];
    size_t n = hello_bytes(c, raw);
    memcpy(b, raw, n);
    rs_msg m;
    const char *field = NULL;
    char err[300];
    rs_proto_status st = rs_proto_decode_err(b, n, &m, &field, err, sizeof err);
    assert_int_equal(rs_proto_decode(b, n, &m, NULL), st);
    if (!c->why) {
        assert_int_equal(st, RS_PROTO_OK);
        assert_int_equal(strlen(m.u.hello.name), c->len);
        assert_memory_equal(m.u.hello.name, c->bytes, c->len);
        assert_string_equal(err, "");
    } else {
        assert_int_equal(st, RS_PROTO_RANGE);
        assert_string_equal(field, "hello.name");
        char want[300];
        snprintf(want, sizeof want, "hello.name: %s", c->why);
        /* A length above 32 is refused by the length field itself. */
        if (c->len <= RS_PROTO_NAME_MAX)
            assert_string_equal(err, want);
    }
    if (has_nul(c))
        return; /* a C string cannot carry it to the encoder */
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_HELLO;
    m.u.hello.protocol_version = RS_PROTO_VERSION;
    m.u.hello.physics_version = RS_PHYSICS_VERSION;
    as_field(c, m.u.hello.name, sizeof m.u.hello.name);
    size_t len = 0;
    st = rs_proto_encode(&m, b, sizeof b, &len, &field);
    if (!c->why) {
        assert_int_equal(st, RS_PROTO_OK);
        assert_int_equal(len, n);
        assert_memory_equal(b, raw, len); /* one spelling: the bytes decoded above */
    } else {
        assert_int_equal(st, RS_PROTO_RANGE);
        assert_string_equal(field, "hello.name");
    }
}

/* Encodes m with the name in slot (cap bytes, at least max + 1), and
 * decodes the same message with the name's bytes put where a placeholder of
 * the same length stood: field must refuse exactly the refused names (and
 * with allow_empty, accept ""). max is the field's longest (the name's 32,
 * chat's 200). */
static void check_field_max(const name_case *c, rs_msg *m, char *slot, size_t cap, size_t max,
                            bool allow_empty, const char *field)
{
    uint8_t b[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    const char *bad = NULL;
    bool refused = c->why && !(allow_empty && c->len == 0);
    if (!has_nul(c)) {
        as_field(c, slot, cap);
        rs_proto_status st = rs_proto_encode(m, b, sizeof b, &len, &bad);
        if (refused) {
            assert_int_equal(st, RS_PROTO_RANGE);
            assert_string_equal(bad, field);
        } else {
            assert_int_equal(st, RS_PROTO_OK);
        }
    }
    if (c->len == 0 || c->len > max)
        return; /* the placeholder needs the same length */
    memset(slot, 0, cap);
    memset(slot, 'q', c->len);
    assert_int_equal(rs_proto_encode(m, b, sizeof b, &len, &bad), RS_PROTO_OK);
    /* The length as a varint (two bytes from 128), then the placeholder. */
    uint8_t needle[RS_PROTO_TEXT_MAX + 2];
    size_t prefix = 0;
    if (c->len >= 128)
        needle[prefix++] = (uint8_t)(0x80 | (c->len & 0x7f));
    needle[prefix++] = (uint8_t)(c->len >= 128 ? c->len >> 7 : c->len);
    memset(needle + prefix, 'q', c->len);
    uint8_t *at = memmem(b, len, needle, prefix + c->len);
    assert_non_null(at);
    memcpy(at + prefix, c->bytes, c->len);
    rs_msg out;
    char err[300];
    rs_proto_status st = rs_proto_decode_err(b, len, &out, &bad, err, sizeof err);
    if (refused) {
        assert_int_equal(st, RS_PROTO_RANGE);
        assert_string_equal(bad, field);
        char want[300];
        snprintf(want, sizeof want, "%s: %s", field, c->why);
        assert_string_equal(err, want);
    } else {
        assert_int_equal(st, RS_PROTO_OK);
    }
}

static void check_field(const name_case *c, rs_msg *m, char *slot, size_t cap, bool allow_empty,
                        const char *field)
{
    check_field_max(c, m, slot, cap, RS_PROTO_NAME_MAX, allow_empty, field);
}

/* A message of type, zeroed, with what it needs to encode around the
 * field under test (protocol version 6's name fields). */
static void v6_base(rs_msg *m, uint8_t type)
{
    memset(m, 0, sizeof *m);
    m->type = type;
    switch (type) {
    case RS_MSG_WEEKEND:
        m->u.weekend = (rs_msg_weekend){.weekend = 1, .session_count = 1, .class_count = 2};
        m->u.weekend.sessions[0].laps = 3;
        strcpy(m->u.weekend.classes[0], "first");
        strcpy(m->u.weekend.classes[1], "second");
        m->u.weekend.car_count = 1; /* version 6: a room offers at least one car */
        m->u.weekend.cars[0].base_hash = 1;
        strcpy(m->u.weekend.cars[0].name, "a car");
        break;
    case RS_MSG_CHAT:
        strcpy(m->u.chat.text, "hi");
        break;
    case RS_MSG_CHAT_MSG:
        m->u.chat_msg.kind = RS_CHAT_ANNOUNCE; /* the only kind with or without a sender */
        strcpy(m->u.chat_msg.text, "hi");
        break;
    case RS_MSG_VOTE_STATE:
        m->u.vote_state = (rs_msg_vote_state){.vote_id = 1, .kind = RS_VOTE_KICK, .eligible = 1,
                                              .needed = 1, .arg = "first", .by = "second"};
        break;
    case RS_MSG_STANDINGS_REQUEST:
        m->u.standings_request.count = 1;
        break;
    case RS_MSG_STANDINGS_REPLY:
        m->u.standings_reply.count = 2;
        for (int i = 0; i < 2; i++)
            m->u.standings_reply.rows[i].position = 1;
        strcpy(m->u.standings_reply.rows[0].name, "first");
        strcpy(m->u.standings_reply.rows[1].name, "second");
        break;
    default:
        break;
    }
}

/* Every name field protocol version 6 added. */
static void check_v6_fields(const name_case *c)
{
    rs_msg m;
    v6_base(&m, RS_MSG_WEEKEND);
    check_field(c, &m, m.u.weekend.classes[1], sizeof m.u.weekend.classes[1], false,
                "weekend.classes");
    v6_base(&m, RS_MSG_WEEKEND);
    check_field(c, &m, m.u.weekend.championship, sizeof m.u.weekend.championship, true,
                "weekend.championship");
    v6_base(&m, RS_MSG_CHAT);
    check_field(c, &m, m.u.chat.to, sizeof m.u.chat.to, true, "chat.to");
    v6_base(&m, RS_MSG_CHAT_MSG);
    check_field(c, &m, m.u.chat_msg.from, sizeof m.u.chat_msg.from, true, "chat_msg.from");
    v6_base(&m, RS_MSG_VOTE_STATE);
    check_field(c, &m, m.u.vote_state.by, sizeof m.u.vote_state.by, false, "vote_state.by");
    v6_base(&m, RS_MSG_VOTE_STATE);
    check_field(c, &m, m.u.vote_state.arg, sizeof m.u.vote_state.arg, false, "vote_state.arg");
    static const uint8_t commands_on_players[] = {RS_CMD_MUTE, RS_CMD_UNMUTE, RS_CMD_VOTE_KICK};
    for (size_t k = 0; k < sizeof commands_on_players; k++) {
        v6_base(&m, RS_MSG_COMMAND);
        m.u.command.command = commands_on_players[k];
        check_field(c, &m, m.u.command.arg, sizeof m.u.command.arg, true, "command.arg");
    }
    static const uint8_t admin_on_players[] = {RS_ADMIN_PENALTY, RS_ADMIN_DISQUALIFY, RS_ADMIN_MUTE,
                                               RS_ADMIN_UNMUTE};
    for (size_t k = 0; k < sizeof admin_on_players; k++) {
        v6_base(&m, RS_MSG_ADMIN);
        m.u.admin.command = admin_on_players[k];
        m.u.admin.duration_s = 1;
        check_field(c, &m, m.u.admin.arg, sizeof m.u.admin.arg, true, "admin.arg");
    }
    v6_base(&m, RS_MSG_STANDINGS_REQUEST);
    check_field(c, &m, m.u.standings_request.championship,
                sizeof m.u.standings_request.championship, true,
                "standings_request.championship");
    v6_base(&m, RS_MSG_STANDINGS_REQUEST);
    check_field(c, &m, m.u.standings_request.class_name, sizeof m.u.standings_request.class_name,
                true, "standings_request.class_name");
    v6_base(&m, RS_MSG_STANDINGS_REPLY);
    check_field(c, &m, m.u.standings_reply.championship, sizeof m.u.standings_reply.championship,
                true, "standings_reply.championship");
    v6_base(&m, RS_MSG_STANDINGS_REPLY);
    check_field(c, &m, m.u.standings_reply.rows[1].name, sizeof m.u.standings_reply.rows[1].name,
                false, "standings_reply.rows.name");
    v6_base(&m, RS_MSG_STANDINGS_REPLY);
    check_field(c, &m, m.u.standings_reply.rows[1].class_name,
                sizeof m.u.standings_reply.rows[1].class_name, true,
                "standings_reply.rows.class_name");
}

static void check_other_fields(const name_case *c)
{
    rs_msg m;
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_CAR_INFO;
    m.u.car_info.car = 1;
    check_field(c, &m, m.u.car_info.name, sizeof m.u.car_info.name, true, "car_info.name");

    memset(&m, 0, sizeof m);
    m.type = RS_MSG_LEADERBOARD_REPLY;
    m.u.leaderboard_reply.count = 2;
    for (int i = 0; i < 2; i++) {
        m.u.leaderboard_reply.rows[i].rank = (uint32_t)i + 1;
        m.u.leaderboard_reply.rows[i].time_us = 60000000;
    }
    strcpy(m.u.leaderboard_reply.rows[0].name, "first");
    check_field(c, &m, m.u.leaderboard_reply.rows[1].name,
                sizeof m.u.leaderboard_reply.rows[1].name, false, "leaderboard_reply.rows.name");

    for (uint8_t command = RS_ADMIN_KICK; command <= RS_ADMIN_BAN; command++) {
        memset(&m, 0, sizeof m);
        m.type = RS_MSG_ADMIN;
        m.u.admin.command = command;
        check_field(c, &m, m.u.admin.arg, sizeof m.u.admin.arg, true, "admin.arg");
    }
}

static void check_store(const name_case *c)
{
    if (has_nul(c))
        return; /* the store takes C strings */
    char name[65], err[300] = "", token[RS_TOKEN_HEX_LEN + 1];
    as_field(c, name, sizeof name);
    int64_t id = 0;
    rs_status st = rs_store_player_register(g_store, name, 1000, &id, token, err, sizeof err);
    if (!c->why) {
        if (st != RS_OK)
            fail_msg("%s", err);
        assert_true(id > 0);
    } else {
        assert_int_equal(st, RS_ERR_RANGE);
        assert_string_equal(err, c->why); /* the same words as the protocol's */
    }
}

static bool no_send(void *ctx, uint8_t channel, bool reliable, const uint8_t *bytes, size_t len)
{
    (void)ctx, (void)channel, (void)reliable, (void)bytes, (void)len;
    fail_msg("the SDK sent something");
    return false;
}

static void check_sdk(const name_case *c)
{
    if (has_nul(c))
        return;
    char name[65], err[300] = "";
    as_field(c, name, sizeof name);
    rs_client_config cfg = rs_client_config_default();
    cfg.name = name;
    rs_client_transport t = {.send = no_send};
    rs_client *client = NULL;
    rs_client_status st = rs_client_create_custom(&cfg, &t, 0, &client, err, sizeof err);
    if (!c->why) {
        assert_int_equal(st, RS_CLIENT_OK);
        rs_client_destroy(client);
    } else {
        assert_int_equal(st, RS_CLIENT_ERR_ARG);
        assert_null(client);
        char want[300];
        snprintf(want, sizeof want, "config.name: %s", c->why);
        assert_string_equal(err, want);
    }
}

static void test_name_case(void **state)
{
    const name_case *c = *state;
    check_function(c);
    check_hello(c);
    check_other_fields(c);
    check_v6_fields(c);
    check_store(c);
    check_sdk(c);
}

/* ------------------------------------------------------------ chat text */

/* Chat and announcements (rs_proto_text_check): the same character
 * classes, fewer of them refused, no rules about spaces, up to 200 bytes. */
#define TOK(test, s) {test, s, sizeof s - 1, NULL}
#define TNO(test, s, why) {test, s, sizeof s - 1, "text: " why}
#define X10 "0123456789"
#define X50 X10 X10 X10 X10 X10
#define X200 X50 X50 X50 X50

static name_case texts[] = {
    TOK("one byte", "x"),
    TOK("200 bytes", X200),
    TOK("200 bytes ending in a 2-byte character",
        X50 X50 X50 X10 X10 X10 X10 "01234567" "\xc3\xa9"),
    TOK("double spaces inside", "gg  wp"),
    TOK("leading and trailing spaces", " gg "),
    TOK("only spaces", "   "),
    TOK("CJK", "\xe4\xbd\xa0\xe5\xa5\xbd"),
    TOK("Arabic letters", "\xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7"),
    TOK("Hebrew and Latin", "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d and hello"),
    TOK("emoji joined by a zero-width joiner", "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9"),
    TOK("no-break space", "a\xc2\xa0" "b"),
    TOK("soft hyphen", "x\xc2\xad" "y"),
    TOK("word joiner", "x\xe2\x81\xa0" "y"),
    TOK("byte order mark", "\xef\xbb\xbf" "hi"),
    TOK("private use", "\xee\x80\x80"),
    TOK("replacement character", "\xef\xbf\xbd"),
    TOK("U+2027 and U+202F beside the separators", "\xe2\x80\xa7\xe2\x80\xaf"),
    TOK("U+FDEF+1 after the noncharacters", "\xef\xb7\xb0"),
    TNO("empty", "", "empty"),
    TNO("201 bytes", X200 "x", "201 bytes, at most 200"),
    TNO("201 bytes ending in a 2-byte character",
        X50 X50 X50 X10 X10 X10 X10 "012345678" "\xc3\xa9", "201 bytes, at most 200"),
    TNO("newline", "gg\nwp", "control character U+000A at byte 2"),
    TNO("carriage return", "gg\r", "control character U+000D at byte 2"),
    TNO("tab", "a\tb", "control character U+0009 at byte 1"),
    TNO("NUL", "a\0b", "control character U+0000 at byte 1"),
    TNO("escape", "\x1b[2J", "control character U+001B at byte 0"),
    TNO("DEL", "x\x7f", "control character U+007F at byte 1"),
    TNO("C1 next line", "x\xc2\x85", "control character U+0085 at byte 1"),
    TNO("C1 control sequence introducer", "\xc2\x9b" "2J", "control character U+009B at byte 0"),
    TNO("right-to-left override", "evil\xe2\x80\xae" "txt",
        "bidirectional control character U+202E at byte 4"),
    TNO("left-to-right embedding", "\xe2\x80\xaax", "bidirectional control character U+202A at byte 0"),
    TNO("right-to-left isolate", "x\xe2\x81\xa7", "bidirectional control character U+2067 at byte 1"),
    TNO("pop directional isolate", "x\xe2\x81\xa9", "bidirectional control character U+2069 at byte 1"),
    TNO("left-to-right mark", "x\xe2\x80\x8e", "bidirectional control character U+200E at byte 1"),
    TNO("right-to-left mark", "x\xe2\x80\x8f", "bidirectional control character U+200F at byte 1"),
    TNO("Arabic letter mark", "x\xd8\x9c", "bidirectional control character U+061C at byte 1"),
    TNO("line separator", "a\xe2\x80\xa8" "b", "line or paragraph separator U+2028 at byte 1"),
    TNO("paragraph separator", "a\xe2\x80\xa9", "line or paragraph separator U+2029 at byte 1"),
    TNO("lone high surrogate", "ab\xed\xa0\x80", "invalid UTF-8 at byte 2"),
    TNO("lone low surrogate", "\xed\xbf\xbf", "invalid UTF-8 at byte 0"),
    TNO("surrogate pair spelled as two (CESU-8)", "\xed\xa0\xbd\xed\xb8\x80",
        "invalid UTF-8 at byte 0"),
    TNO("overlong slash", "\xc0\xaf", "invalid UTF-8 at byte 0"),
    TNO("overlong NUL", "x\xc0\x80", "invalid UTF-8 at byte 1"),
    TNO("overlong 3-byte", "\xe0\x80\xaf", "invalid UTF-8 at byte 0"),
    TNO("overlong 4-byte", "\xf0\x80\x80\xaf", "invalid UTF-8 at byte 0"),
    TNO("2-byte sequence cut at the end", "ab\xc3", "invalid UTF-8 at byte 2"),
    TNO("3-byte sequence cut at the end", "ab\xe2\x82", "invalid UTF-8 at byte 2"),
    TNO("4-byte sequence cut before ASCII", "\xf0\x9f\x8f" "x", "invalid UTF-8 at byte 0"),
    TNO("lone continuation byte", "a\x80", "invalid UTF-8 at byte 1"),
    TNO("above U+10FFFF", "\xf4\x90\x80\x80", "invalid UTF-8 at byte 0"),
    TNO("byte 0xFF", "ok\xff", "invalid UTF-8 at byte 2"),
    TNO("noncharacter U+FFFE", "x\xef\xbf\xbe", "noncharacter U+FFFE at byte 1"),
    TNO("noncharacter U+FFFF", "\xef\xbf\xbf", "noncharacter U+FFFF at byte 0"),
    TNO("noncharacter U+FDD0", "\xef\xb7\x90", "noncharacter U+FDD0 at byte 0"),
    /* Private use in plane 16, but its last two code points are noncharacters. */
    TNO("noncharacter U+10FFFF", "\xf4\x8f\xbf\xbf", "noncharacter U+10FFFF at byte 0"),
};

static void check_text_function(const name_case *c)
{
    char why[200] = "untouched";
    bool ok = rs_proto_text_check(c->bytes, c->len, why, sizeof why);
    if (!c->why) {
        assert_true(ok);
        assert_string_equal(why, "untouched");
    } else {
        assert_false(ok);
        assert_string_equal(why, c->why);
    }
    assert_int_equal(rs_proto_text_check(c->bytes, c->len, NULL, 0), ok);
}

/* Every field that holds chat text: CHAT's and CHAT_MSG's text, and an
 * ADMIN announcement's reason (which players read as a chat line). */
static void check_text_fields(const name_case *c)
{
    rs_msg m;
    v6_base(&m, RS_MSG_CHAT);
    check_field_max(c, &m, m.u.chat.text, sizeof m.u.chat.text, RS_PROTO_TEXT_MAX, false,
                    "chat.text");
    v6_base(&m, RS_MSG_CHAT_MSG);
    check_field_max(c, &m, m.u.chat_msg.text, sizeof m.u.chat_msg.text, RS_PROTO_TEXT_MAX, false,
                    "chat_msg.text");
    v6_base(&m, RS_MSG_ADMIN);
    m.u.admin.command = RS_ADMIN_ANNOUNCE;
    check_field_max(c, &m, m.u.admin.reason, sizeof m.u.admin.reason, RS_PROTO_TEXT_MAX, false,
                    "admin.reason");
}

/* The SDK refuses, sending nothing, what the server would refuse; a line it
 * accepts waits for a connection. */
static void check_text_sdk(const name_case *c)
{
    if (has_nul(c))
        return;
    char text[RS_PROTO_TEXT_MAX + 8];
    as_field(c, text, sizeof text);
    rs_client_config cfg = rs_client_config_default();
    rs_client_transport t = {.send = no_send};
    rs_client *client = NULL;
    assert_int_equal(rs_client_create_custom(&cfg, &t, 0, &client, NULL, 0), RS_CLIENT_OK);
    assert_int_equal(rs_client_chat(client, NULL, text),
                     c->why ? RS_CLIENT_ERR_ARG : RS_CLIENT_ERR_STATE);
    rs_client_destroy(client);
}

static void test_text_case(void **state)
{
    const name_case *c = *state;
    check_text_function(c);
    check_text_fields(c);
    check_text_sdk(c);
}

/* ------------------------------------------------------------ sameness */

typedef struct name_pair {
    const char *a, *b;
    bool same;
} name_pair;

static void test_one_name_means_ascii_case_only(void **state)
{
    (void)state;
    static const name_pair pairs[] = {
        {"alice", "ALICE", true},
        {"Kimi R\xc3\xa4ikk\xc3\xb6nen", "KIMI R\xc3\xa4IKK\xc3\xb6NEN", true},
        {"~Bob", "~bob", true},
        {"x", "x", true},
        {"\xc3\x89mile", "\xc3\xa9mile", false}, /* É and é: outside ASCII */
        {"stra\xc3\x9f" "e", "STRASSE", false},
        {"bob", "bob2", false},
        {"ca", "cab", false},
    };
    test_tmpdb db;
    assert_true(test_tmpdb_make(&db));
    rs_store *s = NULL;
    char err[300], token[RS_TOKEN_HEX_LEN + 1];
    assert_int_equal(rs_store_open(db.path, RS_STORE_CREATE, &s, err, sizeof err), RS_OK);
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const name_pair *p = &pairs[i];
        assert_int_equal(rs_proto_name_equal(p->a, p->b), p->same);
        assert_int_equal(rs_proto_name_equal(p->b, p->a), p->same);
        /* The store agrees: b is a's row, or a name of its own. */
        int64_t a_id = 0, b_id = 0;
        rs_status st = rs_store_player_find(s, p->a, &a_id, err, sizeof err);
        if (st == RS_ERR_MISSING)
            st = rs_store_player_register(s, p->a, 1, &a_id, token, err, sizeof err);
        assert_int_equal(st, RS_OK);
        st = rs_store_player_find(s, p->b, &b_id, err, sizeof err);
        if (p->same) {
            assert_int_equal(st, RS_OK);
            assert_int_equal(b_id, a_id);
            assert_int_equal(rs_store_player_register(s, p->b, 1, &b_id, token, err, sizeof err),
                             RS_ERR_RANGE);
            assert_non_null(strstr(err, "taken"));
        } else {
            assert_int_equal(st, RS_ERR_MISSING);
        }
    }
    rs_store_close(s);
    test_tmpdb_remove(&db);
}

/* ------------------------------------------------------ the migration */

static size_t utf8_put(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* "b" and the character cp: a name for each side of every edge where the
 * rules change their mind, found by asking rs_proto_name_check about every
 * code point, so the migration's character class is checked at every one
 * of its boundaries, not only at the table's samples. */
static name_case *boundary_names(size_t *count, char **block)
{
    name_case *out = calloc(512, sizeof *out);
    char(*bytes)[8] = calloc(512, sizeof *bytes);
    assert_non_null(out);
    assert_non_null(bytes);
    size_t n = 0;
    bool prev = true;
    for (uint32_t cp = 1; cp <= 0x10FFFF; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        char b[8] = "b";
        size_t len = 1 + utf8_put(cp, b + 1);
        bool ok = rs_proto_name_check(b, len, NULL, 0);
        if (ok != prev || cp == 0x10FFFF) {
            for (uint32_t k = cp > 1 ? cp - 1 : cp; k <= cp && n < 512; k++) {
                if (k >= 0xD800 && k <= 0xDFFF)
                    continue;
                bytes[n][0] = 'b';
                out[n] = (name_case){"boundary", bytes[n], 1 + utf8_put(k, bytes[n] + 1), NULL};
                n++;
            }
        }
        prev = ok;
    }
    assert_true(n > 60 && n < 512);
    *count = n;
    *block = bytes[0];
    return out;
}

/* Reads row id's name from the file; false when there is no such row. */
static bool row_name(sqlite3 *db, const char *sql, int64_t id, char *out, size_t cap)
{
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_int64(st, 1, id);
    bool found = sqlite3_step(st) == SQLITE_ROW;
    if (found)
        snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return found;
}

static void test_migration_renames_exactly_the_names_the_rules_refuse(void **state)
{
    (void)state;
    uint32_t version = 0;
    for (uint32_t i = 0; i < rs_store__migration_count; i++)
        if (strcmp(rs_store__migrations[i].name, "player_names") == 0)
            version = rs_store__migrations[i].version;
    assert_true(version > 1);
    test_tmpdb db;
    assert_true(test_tmpdb_make(&db));
    rs_store *s = NULL;
    char err[300];
    assert_int_equal(rs_store__open_upto(db.path, RS_STORE_CREATE, version - 1, &s, err,
                                         sizeof err),
                     RS_OK);
    rs_store_close(s);

    /* Every name of the table as an old build could have stored it (the
     * old schema refuses more than 32 characters and NUL cannot be bound),
     * and the cases a rename has to look out for: a cleaned name someone
     * already has, and two old names that clean to the same one. */
    static const name_case extra[] = {
        OK("taken", "Bob"),
        NO("cleans to a taken name", "bob\xe2\x80\x8b", "-"),
        NO("cleans to a free name", " ada  lovelace ", "-"),
        NO("cleans to the same as the next", "eve\xe2\x80\xae", "-"),
        NO("cleans to the same as the last", "\xe2\x80\x8e" "eve", "-"),
        NO("a guest row", "~gu\xe2\x81\xa6" "est", "-"),
        NO("nothing left", "\xe2\x80\x8b\xe2\x80\x8b", "-"),
    };
    size_t edges = 0;
    char *edge_bytes = NULL;
    name_case *edge = boundary_names(&edges, &edge_bytes);
    const size_t n_cases = sizeof cases / sizeof cases[0], n_extra = sizeof extra / sizeof extra[0];
    size_t total = n_cases + n_extra + edges;
    const name_case **all = calloc(total, sizeof *all);
    int64_t *ids = calloc(total, sizeof *ids);
    assert_non_null(all);
    assert_non_null(ids);
    sqlite3 *raw = NULL;
    assert_int_equal(sqlite3_open(db.path, &raw), SQLITE_OK);
    sqlite3_stmt *ins = NULL;
    assert_int_equal(sqlite3_prepare_v2(raw,
                                        "INSERT OR IGNORE INTO players (name, token_salt, "
                                        "token_hash, created_at) VALUES (?1, zeroblob(16), "
                                        "zeroblob(32), 1)",
                                        -1, &ins, NULL),
                     SQLITE_OK);
    size_t inserted = 0;
    for (size_t i = 0; i < total; i++) {
        all[i] = i < n_cases             ? &cases[i]
                 : i < n_cases + n_extra ? &extra[i - n_cases]
                                         : &edge[i - n_cases - n_extra];
        const name_case *c = all[i];
        /* Not what the server could have stored: invalid UTF-8 (every name
         * came through the decoder's check), NUL. */
        if (has_nul(c) || (c->why && strstr(c->why, "invalid UTF-8")))
            continue;
        sqlite3_bind_text(ins, 1, c->bytes, (int)c->len, SQLITE_STATIC);
        assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
        sqlite3_reset(ins);
        if (sqlite3_changes(raw) == 1) {
            ids[i] = sqlite3_last_insert_rowid(raw);
            inserted++;
        }
    }
    sqlite3_finalize(ins);
    sqlite3_close(raw);
    assert_true(inserted > 100);

    assert_int_equal(rs_store_open(db.path, 0, &s, err, sizeof err), RS_OK);
    rs_store_close(s);

    assert_int_equal(sqlite3_open(db.path, &raw), SQLITE_OK);
    size_t renamed = 0;
    for (size_t i = 0; i < total; i++) {
        if (!ids[i])
            continue;
        const name_case *c = all[i];
        char now[200], old[200] = "", to[200] = "";
        assert_true(row_name(raw, "SELECT name FROM players WHERE id = ?1", ids[i], now,
                             sizeof now));
        bool was_ok = rs_proto_name_check(c->bytes, c->len, NULL, 0);
        bool recorded = row_name(raw, "SELECT old_name FROM player_renames WHERE player_id = ?1",
                                 ids[i], old, sizeof old);
        if (was_ok) {
            /* An acceptable name is left alone. */
            if (strlen(now) != c->len || memcmp(now, c->bytes, c->len) != 0)
                fail_msg("%s: renamed to \"%s\" though the rules accept it", c->test, now);
            assert_false(recorded);
            continue;
        }
        /* A refused one is renamed, to a name the rules accept, and the
         * rename is recorded with the old name. */
        char why[200];
        if (!rs_proto_name_check(now, strlen(now), why, sizeof why))
            fail_msg("%s: still \"%s\" after the migration (%s)", c->test, now, why);
        assert_true(recorded);
        assert_int_equal(strlen(old), c->len);
        assert_memory_equal(old, c->bytes, c->len);
        assert_true(row_name(raw, "SELECT new_name FROM player_renames WHERE player_id = ?1",
                             ids[i], to, sizeof to));
        assert_string_equal(to, now);
        renamed++;
    }
    printf("[migration] %zu of %zu old names renamed\n", renamed, inserted);

    /* What each special row became. */
    struct {
        const char *old;
        const char *now; /* "renamed-": renamed-<its id> */
    } expect[] = {
        {"bob\xe2\x80\x8b", "renamed-"},
        {" ada  lovelace ", "ada lovelace"},
        {"eve\xe2\x80\xae", "eve"},
        {"\xe2\x80\x8e" "eve", "renamed-"},
        {"~gu\xe2\x81\xa6" "est", "~guest"},
        {"\xe2\x80\x8b\xe2\x80\x8b", "renamed-"},
        {"bad\x07name", "badname"},
        {"evil\xe2\x80\xae" "cba", "evilcba"},
    };
    for (size_t k = 0; k < sizeof expect / sizeof expect[0]; k++) {
        int64_t id = 0;
        for (size_t i = 0; i < total; i++)
            if (ids[i] && strlen(expect[k].old) == all[i]->len &&
                memcmp(expect[k].old, all[i]->bytes, all[i]->len) == 0)
                id = ids[i];
        assert_true(id > 0);
        char now[200], want[64];
        assert_true(row_name(raw, "SELECT name FROM players WHERE id = ?1", id, now, sizeof now));
        if (strcmp(expect[k].now, "renamed-") == 0)
            snprintf(want, sizeof want, "renamed-%lld", (long long)id);
        else
            snprintf(want, sizeof want, "%s", expect[k].now);
        assert_string_equal(now, want);
    }
    sqlite3_close(raw);
    free(edge_bytes);
    free(edge);
    free(all);
    free(ids);
    test_tmpdb_remove(&db);
}

/* ------------------------------------------------------ decoder words */

static void test_decode_err_names_field_and_status_otherwise(void **state)
{
    (void)state;
    const name_case ok = OK("bob", "bob");
    uint8_t b[64];
    size_t n = hello_bytes(&ok, b);
    rs_msg m;
    const char *field = NULL;
    char err[200];
    assert_int_equal(rs_proto_decode_err(b, n - 1, &m, &field, err, sizeof err),
                     RS_PROTO_TRUNCATED);
    assert_string_equal(err, "hello.car_hash: message truncated");
    /* A track's name is no player's: CHANGE_TRACK takes any str(0..64). */
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_ADMIN;
    m.u.admin.command = RS_ADMIN_CHANGE_TRACK;
    strcpy(m.u.admin.arg, " Spa  Francorchamps, the long one ");
    uint8_t out[RS_PROTO_MAX_PACKET];
    size_t len = 0;
    assert_int_equal(rs_proto_encode(&m, out, sizeof out, &len, NULL), RS_PROTO_OK);
    assert_int_equal(rs_proto_decode_err(out, len, &m, &field, err, sizeof err), RS_PROTO_OK);
    assert_string_equal(err, "");
    /* A free CAR_INFO slot has no name. */
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_CAR_INFO;
    m.u.car_info.car = 3;
    assert_int_equal(rs_proto_encode(&m, out, sizeof out, &len, NULL), RS_PROTO_OK);
    assert_int_equal(rs_proto_decode(out, len, &m, NULL), RS_PROTO_OK);
}

int main(void)
{
    int failed = 0;
    char err[300];
    if (!test_tmpdb_make(&g_db) ||
        rs_store_open(g_db.path, RS_STORE_CREATE, &g_store, err, sizeof err) != RS_OK) {
        fprintf(stderr, "test_names: cannot make a database: %s\n", err);
        return 1;
    }
    failed += RUN_TABLE_TESTS(cases, test_name_case);
    failed += RUN_TABLE_TESTS(texts, test_text_case);
    rs_store_close(g_store);
    test_tmpdb_remove(&g_db);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_name_means_ascii_case_only),
        cmocka_unit_test(test_migration_renames_exactly_the_names_the_rules_refuse),
        cmocka_unit_test(test_decode_err_names_field_and_status_otherwise),
    };
    failed += cmocka_run_group_tests(tests, NULL, NULL);
    return failed;
}
