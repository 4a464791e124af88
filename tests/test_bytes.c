/*
 * Canonical bytes: little-endian layout, -0.0 normalised, NaN/Inf flagged,
 * sticky reader errors, and a hash that is stable across machines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bytes.h"

static void test_writer_is_little_endian_whatever_the_host(void **state)
{
    (void)state;
    uint8_t buf[16];
    rs_writer w = rs_writer_init(buf, sizeof buf);
    rs_write_u32(&w, 0x11223344u);
    rs_write_u16(&w, 0xa1b2u);
    assert_int_equal(w.len, 6);
    const uint8_t want[6] = {0x44, 0x33, 0x22, 0x11, 0xb2, 0xa1};
    assert_memory_equal(buf, want, 6);
}

static void test_negative_zero_is_written_as_positive_zero(void **state)
{
    (void)state;
    uint8_t a[8], b[8];
    rs_writer wa = rs_writer_init(a, 8), wb = rs_writer_init(b, 8);
    rs_write_f64(&wa, -0.0);
    rs_write_f64(&wb, 0.0);
    assert_memory_equal(a, b, 8);
    assert_false(wa.nonfinite);
}

static void test_nan_and_inf_are_flagged_on_write_and_rejected_on_read(void **state)
{
    (void)state;
    uint8_t buf[16];
    volatile double zero = 0.0;
    rs_writer w = rs_writer_init(buf, sizeof buf);
    rs_write_f64(&w, zero / zero);
    assert_true(w.nonfinite);
    w = rs_writer_init(buf, sizeof buf);
    rs_write_f64(&w, 1.0 / zero);
    assert_true(w.nonfinite);
    rs_reader r = rs_reader_init(buf, 8);
    (void)rs_read_f64(&r);
    assert_true(r.error);
}

static void test_reader_error_is_sticky_after_reading_past_the_end(void **state)
{
    (void)state;
    const uint8_t buf[3] = {1, 2, 3};
    rs_reader r = rs_reader_init(buf, sizeof buf);
    assert_int_equal(rs_read_u16(&r), 0x0201);
    assert_int_equal(rs_read_u16(&r), 0);
    assert_true(r.error);
    assert_int_equal(rs_read_u8(&r), 0); /* a byte remains, but the error sticks */
}

static void test_size_query_counts_without_writing(void **state)
{
    (void)state;
    rs_writer w = rs_writer_init(NULL, 0);
    rs_write_u64(&w, 1);
    rs_write_f64(&w, 2.0);
    assert_int_equal(w.len, 16);
    assert_false(w.overflow);
    uint8_t small[4];
    w = rs_writer_init(small, sizeof small);
    rs_write_u64(&w, 1);
    assert_true(w.overflow);
}

static void test_hash_has_fixed_values_and_depends_on_every_byte(void **state)
{
    (void)state;
    uint8_t data[37];
    for (unsigned i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 13u + 7u);
    uint64_t h = rs_hash64(data, sizeof data, 0);
    for (unsigned i = 0; i < sizeof data; i++) {
        data[i] ^= 1;
        assert_int_not_equal(rs_hash64(data, sizeof data, 0), h);
        data[i] ^= 1;
    }
    assert_int_not_equal(rs_hash64(data, 36, 0), h);
    assert_int_not_equal(rs_hash64(data, sizeof data, 1), h);
    /* Pinned values: the hash is part of the wire format and the records. */
    assert_int_equal(rs_hash64("", 0, 0), rs_hash64(NULL, 0, 0));
    assert_int_equal(rs_hash64("", 0, 0), 0xa5a2f74c18a5f72cull);
    assert_int_equal(h, 0x5d2560eb3084871bull);
}

/* Writes v[0..n) both ways into writers over cap bytes (buf NULL: count
 * only) after `pre` bytes of something else, and compares everything. */
static void same_as_one_by_one(const double *v, size_t n, size_t cap, bool count_only, size_t pre)
{
    uint8_t a[128], b[128];
    memset(a, 0xAA, sizeof a), memset(b, 0xAA, sizeof b);
    rs_writer wa = rs_writer_init(count_only ? NULL : a, cap);
    rs_writer wb = rs_writer_init(count_only ? NULL : b, cap);
    for (size_t i = 0; i < pre; i++)
        rs_write_u8(&wa, 7), rs_write_u8(&wb, 7);
    for (size_t i = 0; i < n; i++)
        rs_write_f64(&wa, v[i]);
    rs_write_f64s(&wb, v, n);
    assert_int_equal(wa.len, wb.len);
    assert_int_equal(wa.overflow, wb.overflow);
    assert_int_equal(wa.nonfinite, wb.nonfinite);
    assert_memory_equal(a, b, sizeof a);
}

static void test_many_doubles_at_once_are_written_as_one_by_one(void **state)
{
    (void)state;
    const double zero = 0.0;
    const double finite[6] = {1.5, -0.0, 0.0, 4.9e-324, -1e308, 3.0};
    const double bad[6] = {1.0, -0.0, zero / zero, 2.0, 1.0 / zero, -1.0 / zero};
    for (int k = 0; k < 2; k++) {
        const double *v = k ? bad : finite;
        same_as_one_by_one(v, 6, 128, false, 0);
        same_as_one_by_one(v, 6, 128, false, 3);
        same_as_one_by_one(v, 6, 128, true, 0);
        same_as_one_by_one(v, 6, 40, false, 0);  /* five fit */
        same_as_one_by_one(v, 6, 40, false, 45); /* already past the end */
        same_as_one_by_one(v, 0, 128, false, 0);
    }
    /* The finite values alone do not set the flag. */
    uint8_t buf[64];
    rs_writer w = rs_writer_init(buf, sizeof buf);
    rs_write_f64s(&w, finite, 6);
    assert_false(w.nonfinite);
    assert_int_equal(w.len, 48);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_is_little_endian_whatever_the_host),
        cmocka_unit_test(test_negative_zero_is_written_as_positive_zero),
        cmocka_unit_test(test_nan_and_inf_are_flagged_on_write_and_rejected_on_read),
        cmocka_unit_test(test_reader_error_is_sticky_after_reading_past_the_end),
        cmocka_unit_test(test_size_query_counts_without_writing),
        cmocka_unit_test(test_hash_has_fixed_values_and_depends_on_every_byte),
        cmocka_unit_test(test_many_doubles_at_once_are_written_as_one_by_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
