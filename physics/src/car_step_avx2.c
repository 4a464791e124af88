/*
 * car_step.c compiled for AVX2 (CMake adds -mavx2 to this file only): one
 * 256-bit register holds the four wheels, where the baseline build splits
 * them over two SSE2 registers. The operations are the same, so are the
 * bits; rs_car_substep picks this copy on CPUs that have AVX2, and it calls
 * the AVX2 copy of the tyres. No FMA: AVX2 does not imply it, and the
 * physics target forbids contraction anyway.
 */
#define RS_CAR_SUBSTEP rs_car_substep_avx2
#define RS_CAR_TIRE4 rs_tire_eval4_avx2
#include "car_step.c"
