/* physbench's race-on-track case (race_case.c). */
#ifndef RS_BENCH_RACE_CASE_H
#define RS_BENCH_RACE_CASE_H

#include <stdint.h>

#include "racesim/physics.h"

typedef struct race_bench {
    const rs_track *track;
    const rs_car_params *params[2]; /* alternating: c5, formula */
    uint32_t cars, ticks, repeat;
    /* physbench's allocation counter (wrapped malloc & co.): counting is
     * switched on around every step of the recorded race; alloc_checked 0
     * where the wrap is unavailable (reported as null). */
    volatile int *counting;
    volatile unsigned long *allocs;
    int alloc_checked;
} race_bench;

/* Prints one JSON line; returns the exit status. */
int rs_bench_race(const race_bench *rb);

#endif
