/*
 * racebot as a user runs it: --help is an answer (usage on stdout, exit 0),
 * a wrong option a usage error (usage on stderr, exit 2). And the race-time
 * text racebot, the raceserver demo and racectl all print
 * (rs_race_time_str): a car that did not finish, or has no valid lap, has
 * the protocol's and the store's -1 for a time, which must never read as
 * "-0.000".
 */
#define _POSIX_C_SOURCE 200809L /* popen, in run_command.h */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run_command.h"

#include "racesim/base/text.h"

/* Runs racebot with args; its exit status, and what it printed on stdout
 * (to_stdout) or on stderr alone. */
static int racebot(const char *args, bool to_stdout, char *out, size_t cap)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, to_stdout ? "'%s' %s 2>/dev/null" : "'%s' %s 2>&1 >/dev/null",
             RS_RACEBOT_PATH, args);
    return run_command(cmd, out, cap);
}

static void test_help_is_an_answer_and_a_wrong_option_a_usage_error(void **state)
{
    (void)state;
    char out[4096];
    for (int i = 0; i < 2; i++) {
        const char *help = i == 0 ? "--help" : "--name bot -h";
        assert_int_equal(racebot(help, true, out, sizeof out), 0);
        assert_non_null(strstr(out, "usage: racebot"));
        assert_int_equal(racebot(help, false, out, sizeof out), 0);
        assert_string_equal(out, "");
    }
    static const char *const wrong[] = {"--bogus", "--bogus 1", "--port", "--port 0",
                                        "--port 27960x", "--laps-until-exit -1"};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        print_message("racebot %s\n", wrong[i]);
        assert_int_equal(racebot(wrong[i], true, out, sizeof out), 2);
        assert_string_equal(out, "");
        assert_int_equal(racebot(wrong[i], false, out, sizeof out), 2);
        assert_non_null(strstr(out, "racebot"));
    }
    assert_int_equal(racebot("--bogus", false, out, sizeof out), 2);
    assert_non_null(strstr(out, "unknown option '--bogus'"));
    assert_non_null(strstr(out, "usage: racebot"));
}

static void check_time(int64_t us, const char *want)
{
    char out[32];
    rs_race_time_str(us, out, sizeof out);
    assert_string_equal(out, want);
}

static void test_race_times_read_the_same_everywhere_and_no_time_is_a_dash(void **state)
{
    (void)state;
    check_time(-1, "-");
    check_time(-999, "-"); /* what "%.3f" printed as "-0.000" */
    check_time(INT64_MIN, "-");
    check_time(0, "0:00.000");
    check_time(999, "0:00.000");
    /* Cut to the millisecond, never rounded: a lap of 5000 ticks at 60 Hz
     * (83.3333 s) is 1:23.333 wherever it is shown. */
    check_time(83333333, "1:23.333");
    check_time(83999999, "1:23.999");
    check_time(59999999, "0:59.999");
    check_time(3599999999, "59:59.999");
    check_time(3600000000, "1:00:00.000");
    check_time(INT64_MAX, "2562047788:00:54.775");
    char small[6];
    rs_race_time_str(83333333, small, sizeof small);
    assert_string_equal(small, "1:23.");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_is_an_answer_and_a_wrong_option_a_usage_error),
        cmocka_unit_test(test_race_times_read_the_same_everywhere_and_no_time_is_a_dash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
