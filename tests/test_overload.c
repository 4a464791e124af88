/*
 * The overload rule (server/app/overload.h): a second is late with more
 * than 1 % of its ticks later than late_ms (a tick exactly late_ms late is
 * not); late_s late seconds in a row start shedding, calm_s calm ones in a
 * row end it, and a run broken by the other kind starts again; late_ms 0
 * never sheds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "overload.h"

/* One second of n ticks, late of them late_us late, the rest on time. */
static bool second(srv_overload *o, uint32_t n, uint32_t late, int64_t late_us)
{
    for (uint32_t i = 0; i < n; i++)
        srv_overload_tick(o, i < late ? late_us : 0);
    return srv_overload_second(o);
}

static void test_late_seconds_in_a_row_shed_and_calm_ones_end_it(void **state)
{
    (void)state;
    srv_overload o = {.late_ms = 50, .late_s = 3, .calm_s = 5};
    /* 3840 ticks a second (64 rooms at 60 Hz): 38 late is 1 %, not over;
     * late by exactly the limit is not late. */
    for (int k = 0; k < 3; k++)
        assert_false(second(&o, 3840, 38, 200000));
    for (int k = 0; k < 3; k++)
        assert_false(second(&o, 3840, 3840, 50000));
    assert_false(o.shedding);
    /* Two late seconds (39 of 3840 are over 1 %), a calm one: no run. */
    assert_false(second(&o, 3840, 39, 50001));
    assert_false(second(&o, 3840, 3840, 900000));
    assert_false(second(&o, 3840, 0, 0));
    assert_false(o.shedding);
    /* Three in a row. */
    assert_false(second(&o, 3840, 39, 50001));
    assert_false(second(&o, 3840, 39, 50001));
    assert_true(second(&o, 3840, 39, 50001));
    assert_true(o.shedding);
    /* Still late: nothing changes. */
    assert_false(second(&o, 3840, 3000, 300000));
    assert_true(o.shedding);
    /* Four calm seconds, then a late one: the count starts again. */
    for (int k = 0; k < 4; k++)
        assert_false(second(&o, 3840, 0, 0));
    assert_false(second(&o, 3840, 100, 80000));
    assert_true(o.shedding);
    for (int k = 0; k < 4; k++)
        assert_false(second(&o, 3840, 0, 0));
    assert_true(o.shedding);
    assert_true(second(&o, 3840, 0, 0)); /* the fifth calm second in a row */
    assert_false(o.shedding);
    /* Seconds without ticks (every room in its lobby) are calm. */
    for (int k = 0; k < 3; k++)
        assert_false(second(&o, 0, 0, 0));
    assert_false(o.shedding);
}

static void test_zero_never_sheds(void **state)
{
    (void)state;
    srv_overload o = {.late_ms = 0, .late_s = 1, .calm_s = 5};
    assert_false(second(&o, 100, 100, 10000000));
    assert_false(o.shedding);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_late_seconds_in_a_row_shed_and_calm_ones_end_it),
        cmocka_unit_test(test_zero_never_sheds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
