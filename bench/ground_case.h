/* physbench's ground-lookup case (ground_case.c). */
#ifndef RS_BENCH_GROUND_CASE_H
#define RS_BENCH_GROUND_CASE_H

#include <stdint.h>

#include "racesim/track.h"

/* Prints one JSON line; returns the exit status. */
int rs_bench_ground(const rs_track *track, uint32_t repeat);

#endif
