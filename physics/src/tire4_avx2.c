/*
 * tire4.c compiled for AVX2 (CMake adds -mavx2 to this file only): one
 * 256-bit register holds the four lanes, where the baseline build splits
 * them over two SSE2 registers. The operations are the same, so are the
 * bits; rs_tire_eval4 picks this copy on CPUs that have AVX2. No FMA: AVX2
 * does not imply it, and the physics target forbids contraction anyway.
 */
#define RS_TIRE4_EVAL rs_tire_eval4_avx2
#include "tire4.c"
