/*
 * The segment grid (seggrid.h): every segment whose margin-expanded box meets
 * a query box is reported, exactly once, in the same order on every run;
 * boxes outside the grid meet nothing; the cell count stays bounded for
 * awkward layouts; a point query lists a cell's segments in ascending index
 * order (the track's nearest-segment search relies on it for its ties).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "seggrid.h"

#define NSEG 400
#define MAX_VISITS 4096

/* A fixed pseudo-random sequence, so failures reproduce. */
static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static double uniform(uint32_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)lcg(s) / (double)(1u << 24);
}

static void random_segments(rs_seg2 *segs, uint32_t n, uint32_t seed)
{
    for (uint32_t i = 0; i < n; i++) {
        double x = uniform(&seed, -500.0, 500.0), y = uniform(&seed, -300.0, 300.0);
        segs[i].ax = x;
        segs[i].ay = y;
        segs[i].bx = x + uniform(&seed, -40.0, 40.0);
        segs[i].by = y + uniform(&seed, -40.0, 40.0);
    }
}

typedef struct visits {
    uint32_t count;
    uint32_t index[MAX_VISITS];
} visits;

static void record(void *ctx, uint32_t i)
{
    visits *v = ctx;
    if (v->count < MAX_VISITS)
        v->index[v->count] = i;
    v->count++;
}

/* Asks g for the box, recording what it reports in *v (from empty). */
static void query(const rs_seggrid *g, double x0, double y0, double x1, double y1, visits *v)
{
    v->count = 0;
    rs_seggrid_query(g, x0, y0, x1, y1, record, v);
}

/* NSEG random segments, their grid and room for what a query reports. */
typedef struct layout {
    rs_seg2 segs[NSEG];
    rs_seggrid grid;
    visits v;
} layout;

/* The layout of the segments from seed, gridded with margin and cell (one
 * at a time: the next call reuses it; free its grid). */
static layout *random_layout(uint32_t seed, double margin, double cell)
{
    static layout l;
    random_segments(l.segs, NSEG, seed);
    assert_int_equal(rs_seggrid_build(&l.grid, l.segs, NSEG, margin, cell), RS_OK);
    return &l;
}

static bool box_meets(const rs_seg2 *s, double margin, double x0, double y0, double x1, double y1)
{
    double lx = (s->ax < s->bx ? s->ax : s->bx) - margin, hx = (s->ax > s->bx ? s->ax : s->bx) + margin;
    double ly = (s->ay < s->by ? s->ay : s->by) - margin, hy = (s->ay > s->by ? s->ay : s->by) + margin;
    return lx <= x1 && hx >= x0 && ly <= y1 && hy >= y0;
}

static void test_every_meeting_segment_is_reported_exactly_once(void **state)
{
    (void)state;
    static rs_seg2 segs[NSEG];
    random_segments(segs, NSEG, 7);
    const double margins[3] = {0.0, 2.5, 25.0};
    const double cells[3] = {3.0, 10.0, 80.0};
    uint32_t seed = 99;
    for (int m = 0; m < 3; m++)
        for (int c = 0; c < 3; c++) {
            rs_seggrid g;
            assert_int_equal(rs_seggrid_build(&g, segs, NSEG, margins[m], cells[c]), RS_OK);
            for (int q = 0; q < 200; q++) {
                double x0 = uniform(&seed, -600.0, 600.0), y0 = uniform(&seed, -400.0, 400.0);
                double x1 = x0 + uniform(&seed, 0.0, q % 4 == 0 ? 0.0 : 60.0);
                double y1 = y0 + uniform(&seed, 0.0, q % 4 == 0 ? 0.0 : 60.0);
                static visits v;
                query(&g, x0, y0, x1, y1, &v);
                assert_true(v.count <= MAX_VISITS);
                static uint8_t seen[NSEG];
                memset(seen, 0, sizeof seen);
                for (uint32_t k = 0; k < v.count; k++) {
                    assert_true(v.index[k] < NSEG);
                    assert_int_equal(seen[v.index[k]], 0); /* once */
                    seen[v.index[k]] = 1;
                }
                for (uint32_t i = 0; i < NSEG; i++)
                    if (box_meets(&segs[i], margins[m], x0, y0, x1, y1))
                        assert_int_equal(seen[i], 1); /* none missed */
            }
            rs_seggrid_free(&g);
        }
}

static void test_queries_report_in_the_same_order_every_time(void **state)
{
    (void)state;
    layout *a = random_layout(3, 5.0, 12.0);
    rs_seggrid b; /* the same again */
    assert_int_equal(rs_seggrid_build(&b, a->segs, NSEG, 5.0, 12.0), RS_OK);
    static visits vb;
    uint32_t seed = 5;
    for (int q = 0; q < 100; q++) {
        double x0 = uniform(&seed, -500.0, 500.0), y0 = uniform(&seed, -300.0, 300.0);
        query(&a->grid, x0, y0, x0 + 50.0, y0 + 30.0, &a->v);
        query(&b, x0, y0, x0 + 50.0, y0 + 30.0, &vb);
        assert_int_equal(a->v.count, vb.count);
        assert_memory_equal(a->v.index, vb.index, vb.count * sizeof vb.index[0]);
    }
    rs_seggrid_free(&a->grid);
    rs_seggrid_free(&b);
}

static void test_point_queries_list_segments_in_ascending_order(void **state)
{
    (void)state;
    layout *l = random_layout(11, 20.0, 10.0);
    uint32_t seed = 8;
    for (int q = 0; q < 300; q++) {
        double x = uniform(&seed, -500.0, 500.0), y = uniform(&seed, -300.0, 300.0);
        query(&l->grid, x, y, x, y, &l->v);
        for (uint32_t k = 1; k < l->v.count; k++)
            assert_true(l->v.index[k - 1] < l->v.index[k]);
    }
    rs_seggrid_free(&l->grid);
}

static void test_boxes_outside_the_grid_meet_nothing(void **state)
{
    (void)state;
    layout *l = random_layout(21, 1.0, 10.0);
    const double boxes[][4] = {
        {2000.0, 2000.0, 2100.0, 2100.0},   /* far away */
        {-5000.0, 0.0, -4000.0, 10.0},      /* left of it */
        {0.0, -5000.0, 10.0, -4000.0},      /* below */
        {0.0, 5000.0, 10.0, 6000.0},        /* above */
        {NAN, 0.0, 10.0, 10.0},             /* NaN */
    };
    for (size_t k = 0; k < sizeof boxes / sizeof boxes[0]; k++) {
        query(&l->grid, boxes[k][0], boxes[k][1], boxes[k][2], boxes[k][3], &l->v);
        assert_int_equal(l->v.count, 0);
    }
    /* A box covering everything (and far beyond) reports each segment once. */
    query(&l->grid, -1e9, -1e9, 1e9, 1e9, &l->v);
    assert_int_equal(l->v.count, NSEG);
    rs_seggrid_free(&l->grid);
}

static void test_empty_and_degenerate_layouts_are_safe(void **state)
{
    (void)state;
    rs_seggrid g;
    static visits v;
    /* No segments. */
    assert_int_equal(rs_seggrid_build(&g, NULL, 0, 1.0, 10.0), RS_OK);
    query(&g, -10.0, -10.0, 10.0, 10.0, &v);
    assert_int_equal(v.count, 0);
    rs_seggrid_free(&g);
    rs_seggrid_free(&g); /* freeing twice is harmless: free leaves it empty */
    /* Points (zero-length segments) and a 10 000 km line along x with no
     * margin: the cell count stays bounded. */
    rs_seg2 thin[3] = {{0.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 1.0e7, 0.0}, {5.0e6, 0.0, 5.0e6, 0.0}};
    assert_int_equal(rs_seggrid_build(&g, thin, 3, 0.0, 1.0), RS_OK);
    assert_true((uint64_t)g.nx * g.ny <= 4000000u);
    query(&g, 5.0e6 - 1.0, -1.0, 5.0e6 + 1.0, 1.0, &v);
    assert_int_equal(v.count, 2);
    rs_seggrid_free(&g);
    /* Non-finite coordinates are refused. */
    rs_seg2 bad[1] = {{0.0, 0.0, INFINITY, 1.0}};
    assert_int_equal(rs_seggrid_build(&g, bad, 1, 0.0, 1.0), RS_ERR_ARG);
    rs_seggrid_free(&g);
    assert_int_equal(rs_seggrid_build(&g, thin, 3, 0.0, 0.0), RS_ERR_ARG);
    rs_seggrid_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_meeting_segment_is_reported_exactly_once),
        cmocka_unit_test(test_queries_report_in_the_same_order_every_time),
        cmocka_unit_test(test_point_queries_list_segments_in_ascending_order),
        cmocka_unit_test(test_boxes_outside_the_grid_meet_nothing),
        cmocka_unit_test(test_empty_and_degenerate_layouts_are_safe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
