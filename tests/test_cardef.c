/*
 * Car definitions end to end: the strict JSON reader on its own, loading the
 * shipped cars, the canonical parameter block (byte-identical round trip, a
 * hash that notices every field, strict rejection of damaged blocks) and the
 * messages a definition author sees for each kind of mistake.
 *
 * Malformed definitions are written to a temporary directory, derived from
 * data/cars/c5.json by one textual edit each, with the tyre paths made
 * absolute so they still resolve from there.
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

#include "carparams.h"
#include "json.h"
#include "racesim/base/file.h"
#include "test_assert.h"
#include "test_data.h"

/* ----------------------------------------------------------------- helpers */

static void data_path(char *buf, size_t len, const char *rel)
{
    snprintf(buf, len, "%s/%s", test_data_dir(), rel);
}

static char *read_text(const char *path)
{
    char *buf = NULL;
    assert_int_equal(rs_file_read(path, 0, &buf, NULL, NULL, 0), RS_FILE_OK);
    return buf;
}

/* A copy of text with the first `from` replaced by `to` (which must exist). */
static char *replace(const char *text, const char *from, const char *to)
{
    const char *hit = strstr(text, from);
    assert_non_null(hit);
    size_t a = (size_t)(hit - text), nf = strlen(from), nt = strlen(to);
    char *out = malloc(strlen(text) - nf + nt + 1);
    assert_non_null(out);
    memcpy(out, text, a);
    memcpy(out + a, to, nt);
    strcpy(out + a + nt, hit + nf);
    return out;
}

/* A temporary directory with the files the test wrote, removed by tmp_done. */
typedef struct tmpdir {
    char path[128];
    char files[16][256];
    int n;
} tmpdir;

static void tmp_init(tmpdir *t)
{
    snprintf(t->path, sizeof t->path, "/tmp/test_cardef_XXXXXX");
    assert_non_null(mkdtemp(t->path));
    t->n = 0;
}

static const char *tmp_write(tmpdir *t, const char *name, const char *text)
{
    assert_true(t->n < 16);
    char path[256];
    snprintf(path, sizeof path, "%s/%s", t->path, name);
    char *p = t->files[t->n++];
    memcpy(p, path, sizeof path);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fwrite(text, 1, strlen(text), f);
    fclose(f);
    return p;
}

static void tmp_done(tmpdir *t)
{
    for (int i = 0; i < t->n; i++)
        remove(t->files[i]);
    rmdir(t->path);
}

/* The C5 definition with tyre paths that resolve from anywhere. */
static char *c5_text_anywhere(void)
{
    char path[512], tires[512];
    data_path(path, sizeof path, "cars/c5.json");
    data_path(tires, sizeof tires, "tyres/");
    char *text = read_text(path);
    char *a = replace(text, "../tyres/", tires);
    char *b = replace(a, "../tyres/", tires);
    free(text);
    free(a);
    return b;
}

static rs_car_params *load_car(const char *rel)
{
    char path[512], err[512];
    rs_car_params *p = NULL;
    data_path(path, sizeof path, rel);
    rs_status st = rs_car_params_load(path, &p, err, sizeof err);
    if (st != RS_OK)
        print_error("%s\n", err);
    assert_int_equal(st, RS_OK);
    assert_non_null(p);
    return p;
}

static uint8_t *block_of(const rs_car_params *p, size_t *len)
{
    *len = rs_car_params_block(p, NULL, 0);
    assert_true(*len > 0);
    uint8_t *buf = malloc(*len);
    assert_non_null(buf);
    assert_int_equal(rs_car_params_block(p, buf, *len), *len);
    return buf;
}

static rs_json_doc *parse_ok(const char *text)
{
    rs_json_doc *doc = NULL;
    char err[256];
    rs_status st = rs_json_parse(text, strlen(text), "t.json", &doc, err, sizeof err);
    if (st != RS_OK)
        print_error("%s\n", err);
    assert_int_equal(st, RS_OK);
    return doc;
}

/* Parses text that must fail; returns the message. */
static const char *parse_fails(const char *text, size_t len, char *err, size_t err_len)
{
    rs_json_doc *doc = (rs_json_doc *)1;
    assert_int_equal(rs_json_parse(text, len, "t.json", &doc, err, err_len), RS_ERR_PARSE);
    assert_null(doc);
    return err;
}

/* A text the parser must refuse, and a part of the message it must give. */
typedef struct bad_json {
    const char *text;
    const char *why;
} bad_json;

static void expect_refusals(const bad_json *cases, size_t n)
{
    char err[256];
    for (size_t i = 0; i < n; i++)
        assert_contains(parse_fails(cases[i].text, strlen(cases[i].text), err, sizeof err),
                        cases[i].why);
}

/* -------------------------------------------------------------------- JSON */

static void test_json_keeps_object_order_and_finds_members_by_key(void **state)
{
    (void)state;
    rs_json_doc *doc =
        parse_ok(" {\"z\": 1, \"a\": [true, false, null, \"s\", {}, []], \"m\": {\"k\": -2.5}} ");
    const rs_json *root = rs_json_root(doc);
    assert_int_equal(rs_json_kind_of(root), RS_JSON_OBJECT);
    assert_int_equal(rs_json_count(root), 3);
    assert_string_equal(rs_json_key_at(root, 0), "z");
    assert_string_equal(rs_json_key_at(root, 1), "a");
    assert_string_equal(rs_json_key_at(root, 2), "m");
    assert_null(rs_json_key_at(root, 3));
    const rs_json *a = rs_json_get(root, "a");
    assert_int_equal(rs_json_count(a), 6);
    assert_true(rs_json_bool(rs_json_at(a, 0)));
    assert_int_equal(rs_json_kind_of(rs_json_at(a, 1)), RS_JSON_BOOL);
    assert_false(rs_json_bool(rs_json_at(a, 1)));
    assert_int_equal(rs_json_kind_of(rs_json_at(a, 2)), RS_JSON_NULL);
    assert_string_equal(rs_json_string(rs_json_at(a, 3), NULL), "s");
    assert_int_equal(rs_json_kind_of(rs_json_at(a, 4)), RS_JSON_OBJECT);
    assert_int_equal(rs_json_kind_of(rs_json_at(a, 5)), RS_JSON_ARRAY);
    assert_null(rs_json_at(a, 6));
    assert_true(rs_json_number(rs_json_get(rs_json_get(root, "m"), "k")) == -2.5);
    assert_null(rs_json_get(root, "missing"));
    assert_true(rs_json_number(rs_json_value_at(root, 0)) == 1.0);
    assert_int_equal(rs_json_line(rs_json_get(root, "z")), 1);
    assert_int_equal(rs_json_column(rs_json_get(root, "z")), 8);
    rs_json_free(doc);
    rs_json_free(NULL);
}

static void test_json_decodes_every_escape_and_surrogate_pairs_to_utf8(void **state)
{
    (void)state;
    rs_json_doc *doc = parse_ok("[\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\", \"\\u00e9\\u20AC\","
                                " \"\\ud83d\\ude00\", \"a\\u0000b\", \"\xc3\xa9\xf0\x9f\x98\x80\"]");
    const rs_json *root = rs_json_root(doc);
    size_t len;
    assert_string_equal(rs_json_string(rs_json_at(root, 0), NULL), "\" \\ / \b \f \n \r \t");
    assert_string_equal(rs_json_string(rs_json_at(root, 1), NULL), "\xc3\xa9\xe2\x82\xac");
    assert_string_equal(rs_json_string(rs_json_at(root, 2), &len), "\xf0\x9f\x98\x80");
    assert_int_equal(len, 4);
    const char *nul = rs_json_string(rs_json_at(root, 3), &len);
    assert_int_equal(len, 3);
    assert_memory_equal(nul, "a\0b", 3);
    assert_string_equal(rs_json_string(rs_json_at(root, 4), NULL), "\xc3\xa9\xf0\x9f\x98\x80");
    rs_json_free(doc);
}

static void test_json_rejects_bad_strings(void **state)
{
    (void)state;
    static const bad_json cases[] = {
        {"\"\\ud83d\"", "unpaired high surrogate"},
        {"\"\\ud83d\\u0041\"", "unpaired high surrogate"},
        {"\"\\ude00\"", "unpaired low surrogate"},
        {"\"\\u12\"", "4 hex digits"},
        {"\"\\x41\"", "invalid escape"},
        {"\"a\tb\"", "control character U+0009"},
        {"\"a\nb\"", "control character U+000A"},
        {"\"\xc3\"", "invalid UTF-8"},
        {"\"\xc0\xaf\"", "invalid UTF-8"},         /* overlong '/' */
        {"\"\xed\xa0\x80\"", "invalid UTF-8"},     /* encoded surrogate */
        {"\"\xf4\x90\x80\x80\"", "invalid UTF-8"}, /* above U+10FFFF */
        {"\"abc", "unterminated string"},
    };
    expect_refusals(cases, sizeof cases / sizeof cases[0]);
}

static void test_json_accepts_64_levels_of_nesting_and_rejects_65(void **state)
{
    (void)state;
    char text[200];
    char err[256];
    for (int depth = 64; depth <= 65; depth++) {
        int n = 0;
        for (int i = 0; i < depth; i++)
            text[n++] = '[';
        for (int i = 0; i < depth; i++)
            text[n++] = ']';
        text[n] = 0;
        rs_json_doc *doc = NULL;
        rs_status st = rs_json_parse(text, (size_t)n, "t.json", &doc, err, sizeof err);
        if (depth == 64) {
            assert_int_equal(st, RS_OK);
            rs_json_free(doc);
        } else {
            assert_int_equal(st, RS_ERR_PARSE);
            assert_contains(err, "t.json:1:65: nested deeper than 64 levels");
        }
    }
    /* Objects count the same way. */
    char *deep = malloc(65 * 6 + 8);
    size_t n = 0;
    for (int i = 0; i < 65; i++)
        n += (size_t)sprintf(deep + n, "{\"a\":");
    deep[n++] = '1';
    for (int i = 0; i < 65; i++)
        deep[n++] = '}';
    assert_contains(parse_fails(deep, n, err, sizeof err), "nested deeper than 64 levels");
    free(deep);
}

static void test_json_names_a_duplicate_key_where_it_repeats(void **state)
{
    (void)state;
    char err[256];
    const char *small = "{\"a\": 1,\n \"b\": 2,\n   \"a\": 3}";
    assert_contains(parse_fails(small, strlen(small), err, sizeof err),
                    "t.json:3:4: duplicate key \"a\"");
    /* A large object goes through the hash table path. */
    char big[4096];
    size_t n = (size_t)sprintf(big, "{");
    for (int i = 0; i < 100; i++)
        n += (size_t)sprintf(big + n, "\"k%d\": %d, ", i, i);
    n += (size_t)sprintf(big + n, "\"k57\": 0}");
    assert_contains(parse_fails(big, n, err, sizeof err), "duplicate key \"k57\"");
    /* The same key in different objects is fine. */
    rs_json_doc *doc = parse_ok("{\"a\": {\"a\": 1}, \"b\": {\"a\": 2}}");
    rs_json_free(doc);
}

static void test_json_numbers_follow_the_grammar_and_fit_a_double(void **state)
{
    (void)state;
    rs_json_doc *doc = parse_ok("[-0, 0, 1e308, -12.5e-3, 123456789, 0.1, 1E+2, 1e-400, "
                                "2.2250738585072014e-308, 17976931348623157e292]");
    const rs_json *r = rs_json_root(doc);
    double neg_zero = rs_json_number(rs_json_at(r, 0));
    assert_true(neg_zero == 0.0 && 1.0 / neg_zero < 0.0); /* -0 stays -0.0 */
    assert_true(rs_json_number(rs_json_at(r, 2)) == 1e308);
    assert_true(rs_json_number(rs_json_at(r, 3)) == -12.5e-3);
    assert_true(rs_json_number(rs_json_at(r, 4)) == 123456789.0);
    assert_true(rs_json_number(rs_json_at(r, 5)) == 0.1);
    assert_true(rs_json_number(rs_json_at(r, 6)) == 100.0);
    assert_true(rs_json_number(rs_json_at(r, 7)) == 0.0); /* underflow rounds to zero */
    assert_true(rs_json_number(rs_json_at(r, 8)) == 2.2250738585072014e-308);
    assert_true(rs_json_number(rs_json_at(r, 9)) == 1.7976931348623157e308);
    rs_json_free(doc);

    static const bad_json bad[] = {
        {"1e309", "t.json:1:1: number out of range"},
        {"[0, -1e309]", "t.json:1:5: number out of range"},
        {"01", "leading zeros"},
        {"-01", "leading zeros"},
        {"1.", "digit after '.'"},
        {".5", "expected a value"},
        {"+1", "expected a value"},
        {"-", "digit after '-'"},
        {"1e", "exponent"},
        {"1e+", "exponent"},
        {"0x10", "invalid number"},
        {"1.5.2", "invalid number"},
        {"NaN", "NaN and Infinity are not JSON numbers"},
        {"Infinity", "NaN and Infinity"},
        {"-Infinity", "digit after '-'"},
        {"[nan]", "expected a value"},
    };
    expect_refusals(bad, sizeof bad / sizeof bad[0]);
}

static void test_json_rejects_trailing_garbage_commas_comments_and_empty_input(void **state)
{
    (void)state;
    static const bad_json bad[] = {
        {"{} x", "t.json:1:4: expected end of input after the value, found 'x'"},
        {"1 2", "expected end of input"},
        {"[1, 2,]", "t.json:1:7: trailing comma before ']'"},
        {"{\"a\": 1,}", "trailing comma before '}'"},
        {"{\"a\": 1 // no\n}", "expected ',' or '}', found '/'"},
        {"// c\n1", "t.json:1:1: comments are not allowed"},
        {"/* c */ 1", "comments are not allowed"},
        {"", "t.json:1:1: expected a value, found end of input"},
        {"   \n  ", "t.json:2:3: expected a value"},
        {"{a: 1}", "expected a string key, found 'a'"},
        {"{\"a\" 1}", "expected ':' after the key"},
        {"[1 2]", "expected ',' or ']'"},
        {"[", "expected a value, found end of input"},
        {"tru", "expected a value"},
        {"truex", "expected a value"},
        {"'a'", "expected a value, found '''"},
        {"\xef\xbb\xbf\xef\xbb\xbf{}", "byte 0xEF"},
    };
    expect_refusals(bad, sizeof bad / sizeof bad[0]);
    /* One byte order mark is allowed and does not count as a column. */
    rs_json_doc *doc = parse_ok("\xef\xbb\xbf{}");
    rs_json_free(doc);
    char err[256];
    assert_contains(parse_fails("\xef\xbb\xbf{,}", 6, err, sizeof err), "t.json:1:2:");
}

static void test_json_errors_give_line_and_character_column(void **state)
{
    (void)state;
    char err[256];
    const char *text = "{\n  \"a\": 1,\n  \"b\": 2\n  \"c\": 3\n}";
    assert_string_equal(parse_fails(text, strlen(text), err, sizeof err),
                        "t.json:4:3: expected ',' or '}', found '\"'");
    /* Columns count characters: the two-byte é and the four-byte emoji are
     * one column each. */
    const char *utf = "{\"\xc3\xa9\xf0\x9f\x98\x80\": tru}";
    assert_contains(parse_fails(utf, strlen(utf), err, sizeof err), "t.json:1:8:");
    /* A document larger than the limit is refused before parsing. */
    size_t big = RS_JSON_MAX_BYTES + 1;
    char *huge = malloc(big);
    memset(huge, ' ', big);
    huge[0] = '1';
    rs_json_doc *doc = NULL;
    assert_int_equal(rs_json_parse(huge, big, "t.json", &doc, err, sizeof err), RS_ERR_PARSE);
    assert_contains(err, "larger than");
    assert_int_equal(rs_json_parse(huge, big - 1, "t.json", &doc, err, sizeof err), RS_OK);
    rs_json_free(doc);
    free(huge);
}

static void test_json_field_reader_names_file_and_path(void **state)
{
    (void)state;
    rs_json_doc *doc = parse_ok("{\"axles\": {\"front\": {\"spring_n_m\": 9e9, \"n\": 3,"
                                " \"f\": 1.5, \"s\": \"x\", \"b\": true, \"arr\": [1, \"two\"]}}}");
    const rs_json *root = rs_json_root(doc);
    char err[256];

    rs_json_ctx c = rs_json_ctx_init("c5.json", err, sizeof err);
    const rs_json *axles = rs_json_get_object(&c, root, "axles");
    size_t m1 = rs_json_ctx_push_key(&c, "axles");
    const rs_json *front = rs_json_get_object(&c, axles, "front");
    size_t m2 = rs_json_ctx_push_key(&c, "front");
    double v = 0;
    assert_false(rs_json_get_number(&c, front, "spring_n_m", 1000, 1e6, &v));
    assert_int_equal(c.status, RS_ERR_RANGE);
    assert_string_equal(err, "c5.json: axles.front.spring_n_m: 9e9 outside 1000..1e6");
    /* Sticky: later getters do nothing and keep the first message. */
    assert_false(rs_json_get_number(&c, front, "n", 0, 10, &v));
    assert_string_equal(err, "c5.json: axles.front.spring_n_m: 9e9 outside 1000..1e6");

    c = rs_json_ctx_init("c5.json", err, sizeof err);
    int64_t i = 0;
    bool b = false;
    const char *s = NULL;
    m1 = rs_json_ctx_push_key(&c, "axles");
    m2 = rs_json_ctx_push_key(&c, "front");
    assert_true(rs_json_get_number(&c, front, "spring_n_m", 0, 1e10, &v) && v == 9e9);
    assert_true(rs_json_get_integer(&c, front, "n", 0, 10, &i) && i == 3);
    assert_true(rs_json_get_bool(&c, front, "b", &b) && b);
    assert_true(rs_json_get_string(&c, front, "s", 8, &s) && strcmp(s, "x") == 0);
    const rs_json *arr = rs_json_get_array(&c, front, "arr", 1, 4);
    assert_non_null(arr);
    assert_int_equal(c.status, RS_OK);
    size_t m3 = rs_json_ctx_push_key(&c, "arr");
    size_t m4 = rs_json_ctx_push_index(&c, 1);
    assert_false(rs_json_as_number(&c, rs_json_at(arr, 1), 0, 1, &v));
    assert_string_equal(err, "c5.json: axles.front.arr[1]: expected a number, found a string");
    rs_json_ctx_pop(&c, m4);
    rs_json_ctx_pop(&c, m3);
    assert_string_equal(c.path, "axles.front");
    rs_json_ctx_pop(&c, m2);
    rs_json_ctx_pop(&c, m1);
    assert_string_equal(c.path, "");

    static const char *const allowed[] = {"spring_n_m", "n", "f", "s", "b"};
    struct {
        int what;
        rs_status st;
        const char *msg;
    } cases[] = {
        {0, RS_ERR_RANGE, "c5.json: front.f: 1.5 is not an integer"},
        {1, RS_ERR_MISSING, "c5.json: front.nope: required field missing"},
        {2, RS_ERR_PARSE, "c5.json: front.arr: unknown field"},
        {3, RS_ERR_RANGE, "c5.json: front.n: 3 outside 4..5"},
        {4, RS_ERR_PARSE, "c5.json: front.s: expected an object, found a string"},
        {5, RS_ERR_RANGE, "c5.json: front.arr: 2 elements, expected 3..4"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        c = rs_json_ctx_init("c5.json", err, sizeof err);
        rs_json_ctx_push_key(&c, "front");
        switch (cases[k].what) {
        case 0: rs_json_get_integer(&c, front, "f", 0, 10, &i); break;
        case 1: rs_json_get_number(&c, front, "nope", 0, 1, &v); break;
        case 2: rs_json_check_keys(&c, front, allowed, 5); break;
        case 3: rs_json_get_integer(&c, front, "n", 4, 5, &i); break;
        case 4: rs_json_get_object(&c, front, "s"); break;
        case 5: rs_json_get_array(&c, front, "arr", 3, 4); break;
        }
        assert_int_equal(c.status, cases[k].st);
        assert_string_equal(err, cases[k].msg);
    }
    rs_json_free(doc);
}

static void test_json_formats_numbers_the_shortest_way(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *s;
    } cases[] = {{1e6, "1e6"}, {9e9, "9e9"},  {1000, "1000"},   {0.7, "0.7"},
                 {1e-6, "1e-6"}, {-0.01, "-0.01"}, {0.1 + 0.2, "0.30000000000000004"},
                 {1.5e300, "1.5e300"}, {0, "0"}, {-0.0, "-0"}, {25000, "25000"},
                 {2e5, "2e5"}, {12.5, "12.5"}, {0.0001, "0.0001"}, {1e-5, "1e-5"},
                 {123456.789, "123456.789"}, {-1.25e-7, "-1.25e-7"}, {1e21, "1e21"},
                 {1.7976931348623157e308, "1.7976931348623157e308"},
                 {5e-324, "5e-324"}, {0.001234, "0.001234"}};
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rs_json_format_number(cases[i].v, buf);
        assert_string_equal(buf, cases[i].s);
    }
}

/* ------------------------------------------------------------- car loading */

static void test_both_shipped_cars_load(void **state)
{
    (void)state;
    rs_car_params *c5 = load_car("cars/c5.json");
    const rs_car_params_data *def = &c5->def;
    assert_string_equal(rs_car_params_name(c5), "Chevrolet Corvette C5");
    assert_int_equal(def->gears, 6);
    assert_true(def->gear_ratio[0] == 2.66 && def->gear_ratio[5] == 0.50);
    assert_true(def->final_drive == 3.42 && def->reverse_ratio == 2.90);
    assert_true(def->driveline_efficiency == 0.85);
    assert_int_equal(def->drive, RS_DRIVE_RWD);
    assert_int_equal(def->diff, RS_DIFF_LSD);
    assert_true(def->axle[0].x_m - def->axle[1].x_m > 2.65 &&
                def->axle[0].x_m - def->axle[1].x_m < 2.66);
    assert_true(def->axle[0].tire.unloaded_radius > 0.2);
    assert_int_equal(rs_car_params_validate(def, NULL, 0), RS_OK);
    assert_true(rs_car_params_hash(c5) != 0);

    rs_car_params *f = load_car("cars/formula.json");
    def = &f->def;
    assert_int_equal(def->gears, 8);
    assert_true(def->mass_kg == 733 && def->axle[0].x_m == 1.968 && def->axle[1].x_m == -1.632);
    /* i_trans (wheel/engine) of the source: gear * final drive = 1 / i_trans. */
    assert_true(def->gear_ratio[0] * def->final_drive > 24.99 &&
                def->gear_ratio[0] * def->final_drive < 25.01);
    assert_true(def->gear_ratio[7] * def->final_drive * 0.206 > 0.9999 &&
                def->gear_ratio[7] * def->final_drive * 0.206 < 1.0001);
    assert_true(rs_car_params_hash(f) != rs_car_params_hash(c5));

    /* Loading again gives the same identity. */
    rs_car_params *again = load_car("cars/c5.json");
    assert_true(rs_car_params_hash(again) == rs_car_params_hash(c5));
    rs_car_params_destroy(again);
    rs_car_params_destroy(c5);
    rs_car_params_destroy(f);
    rs_car_params_destroy(NULL);
}

static void test_block_roundtrip_is_byte_identical_and_hashes_match(void **state)
{
    (void)state;
    const char *cars[] = {"cars/c5.json", "cars/formula.json"};
    for (int k = 0; k < 2; k++) {
        rs_car_params *p = load_car(cars[k]);
        size_t len;
        uint8_t *block = block_of(p, &len);
        assert_memory_equal(block, "RSCP", 4);
        assert_true(rs_car_params_hash(p) == rs_hash64(block, len, 0));
        /* Size query: too small writes nothing. */
        uint8_t small[8] = {0};
        assert_int_equal(rs_car_params_block(p, small, sizeof small), len);
        assert_int_equal(small[0], 0);

        rs_car_params *q = NULL;
        char err[256];
        assert_int_equal(rs_car_params_from_block(block, len, &q, err, sizeof err), RS_OK);
        size_t len2;
        uint8_t *block2 = block_of(q, &len2);
        assert_int_equal(len2, len);
        assert_memory_equal(block2, block, len);
        assert_true(rs_car_params_hash(q) == rs_car_params_hash(p));
        /* The struct the server simulates with is the one clients rebuild. */
        assert_memory_equal(&q->def, &p->def, sizeof p->def);
        assert_string_equal(rs_car_params_name(q), rs_car_params_name(p));
        free(block2);
        free(block);
        rs_car_params_destroy(q);
        rs_car_params_destroy(p);
    }
}

/* Perturbs a double so that it changes; tries up then down. */
static bool changes_hash(const rs_car_params_data *base, uint64_t base_hash, size_t offset)
{
    for (int dir = 0; dir < 2; dir++) {
        rs_car_params_data def = *base;
        double v;
        memcpy(&v, (const char *)base + offset, sizeof v);
        v = dir == 0 ? v * (1 + 1e-6) + 1e-6 : v * (1 - 1e-6) - 1e-6;
        memcpy((char *)&def + offset, &v, sizeof v);
        rs_car_params *p = NULL;
        if (rs_car_params_wrap(&def, &p) != RS_OK)
            continue;
        bool changed = rs_car_params_hash(p) != base_hash;
        rs_car_params_destroy(p);
        return changed;
    }
    return false;
}

static uint64_t hash_of(const rs_car_params_data *def)
{
    rs_car_params *p = NULL;
    char err[256];
    rs_status st = rs_car_params_validate(def, err, sizeof err);
    if (st != RS_OK)
        print_error("%s\n", err);
    assert_int_equal(rs_car_params_wrap(def, &p), RS_OK);
    uint64_t h = rs_car_params_hash(p);
    rs_car_params_destroy(p);
    return h;
}

static void test_hash_changes_when_any_one_field_changes(void **state)
{
    (void)state;
    rs_car_params *c5 = load_car("cars/c5.json");
    const rs_car_params_data *base = &c5->def;
    uint64_t h0 = rs_car_params_hash(c5);
#define CAR(f) offsetof(rs_car_params_data, f)
#define AX(i, f) (offsetof(rs_car_params_data, axle) + (i) * sizeof(rs_axle_params) + offsetof(rs_axle_params, f))
    size_t offs[200];
    size_t n = 0;
    const size_t car_fields[] = {
        CAR(mass_kg), CAR(cg_height_m), CAR(length_m), CAR(width_m), CAR(height_m),
        CAR(ackermann), CAR(air_density_kg_m3), CAR(drag_cd_a_m2), CAR(lift_front_cl_a_m2),
        CAR(lift_rear_cl_a_m2), CAR(cp_height_m), CAR(idle_rpm), CAR(redline_rpm),
        CAR(engine_inertia_kg_m2), CAR(engine_brake_nm), CAR(engine_brake_idle_nm),
        CAR(clutch_max_nm), CAR(reverse_ratio), CAR(final_drive), CAR(driveline_efficiency),
        CAR(shift_time_s), CAR(upshift_rpm), CAR(downshift_rpm), CAR(diff_preload_nm),
        CAR(diff_power_ramp), CAR(diff_coast_ramp), CAR(brake_max_nm), CAR(handbrake_max_nm),
        AX(0, tire.pdx1), AX(1, tire.pky1), AX(0, tire.unloaded_radius)};
    for (size_t i = 0; i < sizeof car_fields / sizeof car_fields[0]; i++)
        offs[n++] = car_fields[i];
    for (size_t k = 0; k < 6; k++)
        offs[n++] = CAR(inertia_kg_m2) + k * sizeof(double);
    for (size_t k = 0; k < base->curve_points; k++) {
        offs[n++] = CAR(curve_rpm) + k * sizeof(double);
        offs[n++] = CAR(curve_nm) + k * sizeof(double);
    }
    for (size_t k = 0; k < base->gears; k++)
        offs[n++] = CAR(gear_ratio) + k * sizeof(double);
    for (size_t i = 0; i < 2; i++) {
        const size_t axle_fields[] = {
            AX(i, x_m), AX(i, track_m), AX(i, spring_n_m), AX(i, damper_bump_n_s_m),
            AX(i, damper_rebound_n_s_m), AX(i, bump_travel_m), AX(i, droop_travel_m),
            AX(i, bump_stop_n_m), AX(i, arb_n_m), AX(i, roll_centre_m), AX(i, unsprung_mass_kg),
            AX(i, wheel_inertia_kg_m2), AX(i, camber_rad), AX(i, toe_rad)};
        for (size_t k = 0; k < sizeof axle_fields / sizeof axle_fields[0]; k++)
            offs[n++] = axle_fields[k];
    }
    offs[n++] = AX(0, steer_max_rad); /* the rear's must stay 0 */
    assert_true(n <= sizeof offs / sizeof offs[0]);
    for (size_t i = 0; i < n; i++) {
        if (!changes_hash(base, h0, offs[i])) {
            print_error("changing the double at offset %zu does not change the hash\n", offs[i]);
            fail();
        }
    }

    /* Fields that cannot be nudged one at a time. */
    rs_car_params_data def = *base;
    def.axle[0].brake_share += 0.01;
    def.axle[1].brake_share -= 0.01;
    assert_true(hash_of(&def) != h0);
    def = *base;
    def.name[0] = 'c';
    assert_true(hash_of(&def) != h0);
    def = *base;
    def.drive = RS_DRIVE_FWD;
    assert_true(hash_of(&def) != h0);
    def = *base;
    def.diff = RS_DIFF_LOCKED;
    def.diff_preload_nm = def.diff_power_ramp = def.diff_coast_ramp = 0;
    uint64_t locked = hash_of(&def);
    def.diff = RS_DIFF_OPEN;
    assert_true(hash_of(&def) != locked && locked != h0);
    def = *base;
    def.gears = 5;
    assert_true(hash_of(&def) != h0);
    def = *base; /* drop the 2000 rpm point */
    memmove(&def.curve_rpm[2], &def.curve_rpm[3], (def.curve_points - 3) * sizeof(double));
    memmove(&def.curve_nm[2], &def.curve_nm[3], (def.curve_points - 3) * sizeof(double));
    def.curve_points--;
    def.curve_rpm[def.curve_points] = def.curve_nm[def.curve_points] = 0;
    assert_true(hash_of(&def) != h0);
    /* Negative zero is canonicalised: same block, same hash. */
    def = *base;
    def.axle[0].toe_rad = -0.0;
    assert_true(hash_of(&def) == h0);
    rs_car_params_destroy(c5);
#undef CAR
#undef AX
}

/* --------------------------------------------------------- damaged blocks */

static rs_status from_copy(const uint8_t *block, size_t len, char *err, size_t err_len)
{
    /* An exact-size copy, so a sanitizer catches any read past the end. */
    uint8_t *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    if (len)
        memcpy(copy, block, len);
    rs_car_params *p = (rs_car_params *)1;
    rs_status st = rs_car_params_from_block(copy, len, &p, err, err_len);
    free(copy);
    if (st == RS_OK)
        rs_car_params_destroy(p);
    else
        assert_null(p);
    return st;
}

static void test_from_block_rejects_a_truncated_block_at_every_length(void **state)
{
    (void)state;
    rs_car_params *p = load_car("cars/formula.json");
    size_t len;
    uint8_t *block = block_of(p, &len);
    char err[256];
    for (size_t n = 0; n < len; n++) {
        rs_status st = from_copy(block, n, err, sizeof err);
        if (st != RS_ERR_BUFFER) {
            print_error("length %zu of %zu: status %d: %s\n", n, len, (int)st, err);
            fail();
        }
    }
    assert_contains(err, "truncated");
    assert_int_equal(from_copy(block, len, err, sizeof err), RS_OK);
    free(block);
    rs_car_params_destroy(p);
}

static void put_u32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

static void put_f64(uint8_t *b, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(bits >> (8 * i));
}

static void test_from_block_rejects_damaged_blocks_with_a_named_field(void **state)
{
    (void)state;
    rs_car_params *p = load_car("cars/c5.json");
    size_t len;
    uint8_t *block = block_of(p, &len);
    uint8_t *bad = malloc(len + 1);
    char err[256];
    size_t mass_at = 12 + 1 + strlen(rs_car_params_name(p));
    size_t tire_at = mass_at + 8 * (1 + 6 + 4) + 16 * 8 + 4; /* first coefficient */
    volatile double zero = 0.0;

    memcpy(bad, block, len);
    bad[0] ^= 0x20;
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_FORMAT);
    assert_contains(err, "magic");

    memcpy(bad, block, len);
    put_u32(bad + 4, 2);
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_FORMAT);
    assert_contains(err, "block version");

    memcpy(bad, block, len);
    put_u32(bad + 8, RS_PHYSICS_VERSION + 1);
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_FORMAT);
    assert_contains(err, "physics version");

    memcpy(bad, block, len);
    bad[len] = 0;
    assert_int_equal(from_copy(bad, len + 1, err, sizeof err), RS_ERR_FORMAT);
    assert_contains(err, "1 trailing bytes");

    memcpy(bad, block, len);
    put_f64(bad + mass_at, zero / zero);
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_FORMAT);
    assert_string_equal(err, "car block: body.mass_kg: not a finite number");

    memcpy(bad, block, len);
    put_f64(bad + mass_at, 1.0 / zero);
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_FORMAT);

    memcpy(bad, block, len);
    put_f64(bad + tire_at, zero / zero);
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_FORMAT);
    assert_contains(err, "axles.front.tyre");

    /* Only the canonical encoding is accepted: no negative zeros. */
    size_t toe_at = mass_at + 8 * (1 + 6 + 4) + 13 * 8; /* axles.front.toe_rad, 0 in c5 */
    memcpy(bad, block, len);
    bad[toe_at + 7] |= 0x80;
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_FORMAT);
    assert_string_equal(err, "car block: axles.front.toe_rad: negative zero (not canonical)");
    memcpy(bad, block, len);
    size_t z = tire_at;
    while (memcmp(bad + z, "\0\0\0\0\0\0\0\0", 8) != 0)
        z += 8; /* a zero coefficient of the front tyre */
    bad[z + 7] |= 0x80;
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_FORMAT);
    assert_string_equal(err, "car block: not in canonical form");

    memcpy(bad, block, len);
    put_f64(bad + mass_at, 9e9);
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_RANGE);
    assert_string_equal(err, "car block: body.mass_kg: 9e9 outside 50..5000");

    memcpy(bad, block, len);
    bad[12] = 0; /* empty name */
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_FORMAT);
    assert_contains(err, "name");

    memcpy(bad, block, len);
    bad[12 + 1 + 3] = 0; /* NUL inside the name */
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_FORMAT);
    assert_contains(err, "NUL");

    memcpy(bad, block, len);
    bad[12 + 1 + 3] = '\n';
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_RANGE);
    assert_contains(err, "name: contains a control character");

    /* A curve count larger than the struct holds must not be believed. */
    size_t tire_len;
    {
        rs_writer w = rs_writer_init(NULL, 0);
        rs_tire_params_write(&p->def.axle[0].tire, &w);
        tire_len = w.len;
    }
    size_t count_at = mass_at + 8 * (1 + 6 + 4) + 2 * (16 * 8 + tire_len) + 8 * 6;
    memcpy(bad, block, len);
    put_u32(bad + count_at, 1000);
    assert_int_equal(from_copy(bad, len, err, sizeof err), RS_ERR_FORMAT);
    assert_contains(err, "engine.torque_curve_rpm_nm: count 1000 outside 2..32");

    rs_car_params *none = NULL;
    assert_int_equal(rs_car_params_from_block(NULL, 10, &none, err, sizeof err), RS_ERR_ARG);
    assert_int_equal(rs_car_params_from_block(block, len, NULL, err, sizeof err), RS_ERR_ARG);
    free(bad);
    free(block);
    rs_car_params_destroy(p);
}

/* ------------------------------------------------------ definition errors */

static void test_malformed_json_reports_file_line_and_column(void **state)
{
    (void)state;
    tmpdir t;
    tmp_init(&t);
    char *good = c5_text_anywhere();
    /* Drop the comma after "name": line 2 ends without it. */
    char *text = replace(good, "\"Chevrolet Corvette C5\",", "\"Chevrolet Corvette C5\"");
    const char *path = tmp_write(&t, "broken.json", text);
    rs_car_params *p = (rs_car_params *)1;
    char err[512], want[600];
    assert_int_equal(rs_car_params_load(path, &p, err, sizeof err), RS_ERR_PARSE);
    assert_null(p);
    snprintf(want, sizeof want, "%s:3:3: expected ',' or '}', found '\"'", path);
    assert_string_equal(err, want);
    free(text);

    const char *missing = tmp_write(&t, "x.json", "{}");
    remove(missing);
    assert_int_equal(rs_car_params_load(missing, &p, err, sizeof err), RS_ERR_IO);
    assert_contains(err, "x.json: no such file");

    path = tmp_write(&t, "array.json", "[1]");
    assert_int_equal(rs_car_params_load(path, &p, err, sizeof err), RS_ERR_PARSE);
    assert_contains(err, "array.json: expected an object, found an array");
    free(good);
    tmp_done(&t);
}

static void test_each_bad_field_is_named_with_file_and_path(void **state)
{
    (void)state;
    static const struct {
        const char *from, *to;
        rs_status st;
        const char *msg;
    } cases[] = {
        {"\"spring_n_m\": 32000", "\"spring_n_m\": 9e9", RS_ERR_RANGE,
         "axles.front.spring_n_m: 9e9 outside 1000..1e6"},
        {"[2.66, 1.78, 1.30", "[2.66, 1.30, 1.78", RS_ERR_RANGE,
         "gearbox.ratios[2]: 1.78 not below the previous gear's 1.3"},
        {"\"arb_n_m\": 12000", "\"arb_nm\": 12000", RS_ERR_PARSE,
         "axles.rear.arb_nm: unknown field"},
        {"\"mass_kg\": 1470,", "", RS_ERR_MISSING, "body.mass_kg: required field missing"},
        {"\"brake_share\": 0.38", "\"brake_share\": 0.4", RS_ERR_RANGE,
         "axles.rear.brake_share: front 0.62 + rear 0.4 = 1.02, must be 1"},
        {"c5_front.tir", "no_such_tire.tir", RS_ERR_IO, "axles.front.tyre: "},
        {"\"drive\": \"rwd\"", "\"drive\": \"awd\"", RS_ERR_RANGE,
         "drive: \"awd\" is not \"rwd\" or \"fwd\""},
        {"\"type\": \"lsd\"", "\"type\": \"open\"", RS_ERR_PARSE,
         "differential.preload_nm: only used when type is \"lsd\""},
        {"\"mass_kg\": 1470", "\"mass_kg\": \"1470\"", RS_ERR_PARSE,
         "body.mass_kg: expected a number, found a string"},
        {"\"efficiency\": 0.85", "\"efficiency\": 0", RS_ERR_RANGE,
         "gearbox.efficiency: 0 outside 0..1 (0 excluded)"},
        {"\"upshift_rpm\": 5800", "\"upshift_rpm\": 2500", RS_ERR_RANGE,
         "gearbox.downshift_rpm: 2800 must be below upshift_rpm 2500"},
        {"[800, 370], [1000, 390]", "[800, 370], [800, 390]", RS_ERR_RANGE,
         "engine.torque_curve_rpm_nm[1]: rpm 800 not above the previous point's 800"},
        {"[800, 370], ", "", RS_ERR_RANGE,
         "engine.torque_curve_rpm_nm: covers 1000..6000 rpm, must span idle_rpm..redline_rpm"},
        {"\"xy\": 0", "\"xy\": 2000", RS_ERR_RANGE, "body.inertia_kg_m2: not positive definite"},
        {"\"unsprung_mass_kg\": 45", "\"unsprung_mass_kg\": 300", RS_ERR_RANGE,
         "axles.front.unsprung_mass_kg: 300 is not below half the corner's static mass"},
        {"\"max_nm\": 700", "\"max_nm\": 300", RS_ERR_RANGE,
         "clutch.max_nm: 300 below the engine's peak torque 475"},
        {"\"x_m\": 1.30", "\"x_m\": -0.2", RS_ERR_RANGE, "axles.front.x_m: -0.2 outside 0.1..10"},
        {"\"name\": \"Chevrolet Corvette C5\"",
         "\"name\": \"0123456789012345678901234567890123456789012345678901234567890123\"",
         RS_ERR_RANGE, "name: string of 64 bytes, at most 63"},
    };
    tmpdir t;
    tmp_init(&t);
    char *good = c5_text_anywhere();
    const char *path = tmp_write(&t, "good.json", good);
    char err[512];
    rs_car_params *p = NULL;
    assert_int_equal(rs_car_params_load(path, &p, err, sizeof err), RS_OK);
    rs_car_params_destroy(p);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = replace(good, cases[i].from, cases[i].to);
        path = tmp_write(&t, "bad.json", text);
        t.n--; /* the same file is rewritten each time */
        p = (rs_car_params *)1;
        rs_status st = rs_car_params_load(path, &p, err, sizeof err);
        if (st != cases[i].st || !strstr(err, cases[i].msg) || strncmp(err, path, strlen(path)) != 0) {
            print_error("case %zu: status %d (want %d): \"%s\"\n  want \"%s: ...%s\"\n", i, (int)st,
                        (int)cases[i].st, err, path, cases[i].msg);
            fail();
        }
        assert_null(p);
        free(text);
    }
    t.n++;
    free(good);
    tmp_done(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_keeps_object_order_and_finds_members_by_key),
        cmocka_unit_test(test_json_decodes_every_escape_and_surrogate_pairs_to_utf8),
        cmocka_unit_test(test_json_rejects_bad_strings),
        cmocka_unit_test(test_json_accepts_64_levels_of_nesting_and_rejects_65),
        cmocka_unit_test(test_json_names_a_duplicate_key_where_it_repeats),
        cmocka_unit_test(test_json_numbers_follow_the_grammar_and_fit_a_double),
        cmocka_unit_test(test_json_rejects_trailing_garbage_commas_comments_and_empty_input),
        cmocka_unit_test(test_json_errors_give_line_and_character_column),
        cmocka_unit_test(test_json_field_reader_names_file_and_path),
        cmocka_unit_test(test_json_formats_numbers_the_shortest_way),
        cmocka_unit_test(test_both_shipped_cars_load),
        cmocka_unit_test(test_block_roundtrip_is_byte_identical_and_hashes_match),
        cmocka_unit_test(test_hash_changes_when_any_one_field_changes),
        cmocka_unit_test(test_from_block_rejects_a_truncated_block_at_every_length),
        cmocka_unit_test(test_from_block_rejects_damaged_blocks_with_a_named_field),
        cmocka_unit_test(test_malformed_json_reports_file_line_and_column),
        cmocka_unit_test(test_each_bad_field_is_named_with_file_and_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
