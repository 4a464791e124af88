/*
 * main() of test_detmath4_avx2: test_detmath4.c compiled with -mavx2 may use
 * AVX instructions anywhere, even in its main(), so the CPU check is here,
 * in a file compiled for the baseline, and runs before any of that code.
 * Without AVX2 the test exits 77, which ctest reports as skipped.
 */
#include <stdio.h>

int test_detmath4_main(void);

int main(void)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) {
        printf("test_detmath4_avx2: this CPU has no AVX2: skipped\n");
        return 77;
    }
    return test_detmath4_main();
}
