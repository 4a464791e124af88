/*
 * Order statistics for measurements (benchmarks, the server's stats line,
 * tests that time things).
 */
#ifndef RACESIM_BASE_STATS_H
#define RACESIM_BASE_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* qsort comparator for doubles, ascending. */
int rs_cmp_double(const void *a, const void *b);

/* Sorts v in place and returns the value at fraction q of the way through
 * it (0.5: the median, 0.99: the 99th percentile, by the nearest rank);
 * 0 for n == 0. */
double rs_quantile(double *v, size_t n, double q);

/* Sorts v in place and returns its median (the mean of the two middle
 * values when n is even); 0 for n == 0. */
double rs_median(double *v, size_t n);

/* rs_quantile on values already sorted ascending. */
double rs_quantile_sorted(const double *sorted, size_t n, double q);

#ifdef __cplusplus
}
#endif

#endif
