/*
 * raceserver's log (server/app/log.h): the JSON escaper every string of a
 * json line goes through, fed hostile strings (quotes, backslashes, control
 * characters, every kind of broken UTF-8, texts too long for the buffer),
 * whose output must parse with cJSON back to the expected text; the field
 * writer (the stats line's text form); and a whole json line, captured
 * from stderr, that must parse and carry its fields; the room observer's
 * line for a penalty given and taken back in a real room (server_watch.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "log.h"
#include "racesim/room.h"
#include "room_harness.h"
#include "server_watch.h"

/* The escaped string must parse as a JSON string equal to expect. */
static void assert_escapes_to(const char *in, const char *expect)
{
    char out[512];
    size_t n = rs_log_json_string(out, sizeof out, in);
    assert_int_equal(n, strlen(out));
    cJSON *j = cJSON_Parse(out);
    if (!j || !cJSON_IsString(j))
        fail_msg("not a JSON string: %s", out);
    assert_string_equal(j->valuestring, expect);
    cJSON_Delete(j);
}

static void test_hostile_strings_become_valid_json(void **state)
{
    (void)state;
    assert_escapes_to("", "");
    assert_escapes_to(NULL, "");
    assert_escapes_to("alice", "alice");
    assert_escapes_to("say \"hi\"", "say \"hi\"");
    assert_escapes_to("C:\\path\\", "C:\\path\\");
    assert_escapes_to("\"}\n{\"level\":\"error\"", "\"}\n{\"level\":\"error\"");
    assert_escapes_to("tab\there\r\n\b\f", "tab\there\r\n\b\f");
    assert_escapes_to("\x01\x1f\x7f", "\x01\x1f\x7f");
    assert_escapes_to("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8f\x81", "caf\xc3\xa9 \xe2\x82\xac "
                                                                   "\xf0\x9f\x8f\x81");
    /* Every broken form becomes U+FFFD, one per stray byte. */
    const char *fffd = "\xef\xbf\xbd";
    char want[64];
    assert_escapes_to("\xff", fffd);
    assert_escapes_to("\x80x", "\xef\xbf\xbdx");                    /* lone continuation */
    snprintf(want, sizeof want, "%s%s", fffd, fffd);
    assert_escapes_to("\xc0\xaf", want);                            /* overlong '/' */
    assert_escapes_to("\xc3", fffd);                                /* cut at the end */
    snprintf(want, sizeof want, "%s%s%s", fffd, fffd, fffd);
    assert_escapes_to("\xed\xa0\x80", want);                        /* a surrogate */
    snprintf(want, sizeof want, "%s%s%s%s", fffd, fffd, fffd, fffd);
    assert_escapes_to("\xf4\x90\x80\x80", want);                    /* beyond U+10FFFF */
    assert_escapes_to("\xe2\x82" "A", "\xef\xbf\xbd\xef\xbf\xbd" "A"); /* cut sequence */
}

/* Cut short by a small buffer, at an escape's boundary, and still closed. */
static void test_a_string_too_long_is_cut_and_closed(void **state)
{
    (void)state;
    const char *in = "\"\\\"\\\"\\\n\n\n\xc3\xa9\xc3\xa9\xc3\xa9\x01\x01\x01";
    for (size_t cap = 3; cap < 64; cap++) {
        char out[64];
        memset(out, 'X', sizeof out);
        size_t n = rs_log_json_string(out, cap, in);
        assert_true(n < cap);
        assert_int_equal(out[n], '\0');
        cJSON *j = cJSON_Parse(out);
        if (!j || !cJSON_IsString(j))
            fail_msg("cap %zu: not a JSON string: %s", cap, out);
        cJSON_Delete(j);
    }
    char tiny[2] = "Z";
    assert_int_equal(rs_log_json_string(tiny, sizeof tiny, "x"), 0);
    assert_string_equal(tiny, "");
}

static void test_fields_form_one_object(void **state)
{
    (void)state;
    const char *names[] = {"ann", "b\"o\\b", "\xff"};
    rs_log_field f[] = {rs_log_real("interval_s", 1.0, 3), rs_log_uint("players", 2),
                        rs_log_int("delta", -5), rs_log_bool("ok", true),
                        rs_log_str("skipped", NULL), rs_log_str("text", "a\nb"),
                        rs_log_strs("drivers", names, 3), rs_log_real("nan", 0.0 / 0.0, 2)};
    char out[512];
    rs_log_json_fields(out, sizeof out, f, sizeof f / sizeof f[0]);
    /* The stats line's text form is exactly this shape, no spaces. */
    assert_non_null(strstr(out, "{\"interval_s\":1.000,\"players\":2,\"delta\":-5,\"ok\":true,"));
    assert_null(strstr(out, "skipped"));
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "text")->valuestring, "a\nb");
    const cJSON *d = cJSON_GetObjectItem(j, "drivers");
    assert_int_equal(cJSON_GetArraySize(d), 3);
    assert_string_equal(cJSON_GetArrayItem(d, 1)->valuestring, "b\"o\\b");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "nan")));
    cJSON_Delete(j);
    /* Too small for every field: the ones that fit, still one object. */
    for (size_t cap = 3; cap < 120; cap += 7) {
        char small[128];
        rs_log_json_fields(small, cap, f, sizeof f / sizeof f[0]);
        cJSON *k = cJSON_Parse(small);
        if (!k || !cJSON_IsObject(k))
            fail_msg("cap %zu: not an object: %s", cap, small);
        cJSON_Delete(k);
    }
}

/* Runs fn with stderr going to a temporary file; returns what it wrote. */
static char *capture_stderr(void (*fn)(void))
{
    char path[] = "/tmp/test_log_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    static char buf[65536];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    unlink(path);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

static void write_lines(void)
{
    char big[6000];
    memset(big, '"', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    rs_log_field f[] = {rs_log_str("room", "default"), rs_log_str("player", "eve\x01\xfe"),
                        rs_log_int("player_id", 0), rs_log_str("text", big)};
    rs_log_event(RS_LOG_INFO, "refuse", f, 4, "refused %s: %s", "eve\n", big);
    rs_logf(RS_LOG_WARN, "plain \"line\"\twith\x1b[31m escapes");
    rs_logf(RS_LOG_DEBUG, "not written at info");
}

static void test_every_json_line_parses_even_when_too_long(void **state)
{
    (void)state;
    rs_log_set_level(RS_LOG_INFO);
    rs_log_set_format(RS_LOG_JSON);
    char *out = capture_stderr(write_lines);
    rs_log_set_format(RS_LOG_TEXT);
    int lines = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        if (!j || !cJSON_IsObject(j))
            fail_msg("not a JSON object: %.200s", line);
        const cJSON *ts = cJSON_GetObjectItem(j, "ts"), *ev = cJSON_GetObjectItem(j, "event");
        assert_true(cJSON_IsString(ts) && strlen(ts->valuestring) == 24); /* ...SS.mmmZ */
        assert_true(cJSON_IsString(cJSON_GetObjectItem(j, "msg")));
        if (lines == 0) {
            assert_string_equal(ev->valuestring, "refuse");
            assert_string_equal(cJSON_GetObjectItem(j, "level")->valuestring, "info");
            assert_string_equal(cJSON_GetObjectItem(j, "room")->valuestring, "default");
            assert_string_equal(cJSON_GetObjectItem(j, "player")->valuestring,
                                "eve\x01\xef\xbf\xbd");
        } else {
            assert_string_equal(ev->valuestring, "message");
            assert_string_equal(cJSON_GetObjectItem(j, "level")->valuestring, "warn");
        }
        cJSON_Delete(j);
        lines++;
    }
    assert_int_equal(lines, 2);
}

static void test_text_lines_keep_their_format_and_one_line_each(void **state)
{
    (void)state;
    rs_log_set_format(RS_LOG_TEXT);
    char *out = capture_stderr(write_lines);
    /* "YYYY-MM-DDTHH:MM:SSZ LEVEL message", nothing that could start a
     * forged line. */
    char *second = strchr(out, '\n');
    assert_non_null(second);
    assert_true(out[4] == '-' && out[10] == 'T' && out[19] == 'Z');
    assert_memory_equal(out + 20, " INFO refused eve?: ", 20);
    assert_non_null(strstr(second + 1, " WARN plain \"line\"?with?[31m escapes\n"));
    int newlines = 0;
    for (const char *c = out; *c; c++)
        newlines += *c == '\n';
    assert_int_equal(newlines, 2); /* two lines written, the debug one filtered */
}

static void test_formats_parse(void **state)
{
    (void)state;
    rs_log_format f = RS_LOG_TEXT;
    assert_true(rs_log_format_parse("json", &f));
    assert_int_equal(f, RS_LOG_JSON);
    assert_true(rs_log_format_parse("text", &f));
    assert_int_equal(f, RS_LOG_TEXT);
    assert_false(rs_log_format_parse("JSON", &f));
    assert_false(rs_log_format_parse("", &f));
}

/* ------------------------------------------------- a penalty's lines */

static harness *g_room;

static void give_and_remove(void)
{
    rs_room *room = harness_room(g_room);
    uint32_t id = 0;
    assert_int_equal(rs_room_penalty_add(room, "solo", RS_PENALTY_TIME, 15, "unsafe rejoin", &id),
                     RS_OK);
    assert_int_equal(rs_room_penalty_remove(room, id, "on review"), RS_OK);
}

static void test_a_penalty_is_logged_given_and_removed(void **state)
{
    rs_server_watch_def def = {.max_peers = 64};
    rs_server_watch *w = rs_server_watch_create(&def);
    assert_non_null(w);
    rs_room_config cfg = harness_room_config(*state, 1);
    cfg.observer = rs_server_watch_observer(w);
    g_room = harness_create(&cfg, NULL);
    rs_client_config c = harness_player("solo", 20);
    harness_add_client(g_room, &c, HARNESS_PLAIN);
    rs_room_stats st;
    do {
        harness_step(g_room, 2000);
        rs_room_get_stats(harness_room(g_room), &st);
        assert_true(harness_now(g_room) < 60 * 1000000LL);
    } while (st.phase != RS_PHASE_COUNTDOWN);

    rs_log_set_level(RS_LOG_INFO);
    rs_log_set_format(RS_LOG_JSON);
    char *out = capture_stderr(give_and_remove);
    rs_log_set_format(RS_LOG_TEXT);
    int seen = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        if (!j || !cJSON_IsObject(j))
            fail_msg("not a JSON object: %.200s", line);
        if (strcmp(cJSON_GetObjectItem(j, "event")->valuestring, "penalty") != 0) {
            cJSON_Delete(j);
            continue;
        }
        bool removed = cJSON_IsTrue(cJSON_GetObjectItem(j, "removed"));
        assert_int_equal(removed, seen == 1);
        assert_string_equal(cJSON_GetObjectItem(j, "room")->valuestring, "default");
        assert_string_equal(cJSON_GetObjectItem(j, "player")->valuestring, "solo");
        assert_int_equal(cJSON_GetObjectItem(j, "car")->valueint, 1);
        assert_int_equal(cJSON_GetObjectItem(j, "penalty_id")->valueint, 1);
        assert_string_equal(cJSON_GetObjectItem(j, "kind")->valuestring, "time");
        assert_string_equal(cJSON_GetObjectItem(j, "offence")->valuestring, "admin");
        assert_int_equal(cJSON_GetObjectItem(j, "seconds")->valueint, 15);
        assert_string_equal(cJSON_GetObjectItem(j, "text")->valuestring,
                            removed ? "on review" : "unsafe rejoin");
        assert_string_equal(cJSON_GetObjectItem(j, "msg")->valuestring,
                            removed ? "room 'default': race 1: penalty 1 of solo (guest) (car 1, "
                                      "15 s, administrator) removed: on review"
                                    : "room 'default': race 1: penalty 1 for solo (guest) (car "
                                      "1): 15 s, administrator: unsafe rejoin");
        cJSON_Delete(j);
        seen++;
    }
    assert_int_equal(seen, 2);
    harness_destroy(g_room);
    rs_server_watch_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile_strings_become_valid_json),
        cmocka_unit_test(test_a_string_too_long_is_cut_and_closed),
        cmocka_unit_test(test_fields_form_one_object),
        cmocka_unit_test(test_every_json_line_parses_even_when_too_long),
        cmocka_unit_test(test_text_lines_keep_their_format_and_one_line_each),
        cmocka_unit_test(test_formats_parse),
        cmocka_unit_test_setup_teardown(test_a_penalty_is_logged_given_and_removed,
                                        harness_scene_setup, harness_scene_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
