/*
 * Four doubles as one value: the four wheels of a car in lanes 0..3.
 *
 * GCC and clang's vector extensions compile this one source to whatever the
 * target has: two SSE2 registers on baseline x86-64 and i686, one AVX
 * register where AVX2 is enabled, two NEON registers on aarch64, four scalar
 * operations on WebAssembly without SIMD. Each lane performs exactly the
 * IEEE operations the scalar code performs, in the same order, so results are
 * bit-identical to the scalar functions whatever the width:
 *  - only + - * / and correctly rounded sqrt; the physics target's
 *    -ffp-contract=off keeps vector a*b+c from fusing, as for scalars;
 *  - no approximate reciprocals or square roots (rcp/rsqrt);
 *  - a conditional is a compare and a bitwise select (rs_v4_sel), never
 *    min/max instructions, whose results for -0 and NaN differ between
 *    instruction sets and from C's ?: on the same operands.
 * Everything here is static inline: vectors of 32 bytes passed between
 * out-of-line functions would change the calling convention between AVX and
 * non-AVX builds of the same file.
 */
#ifndef RS_V4_H
#define RS_V4_H

#include <stdint.h>
#if defined(__AVX__)
#include <immintrin.h>
#endif

#if !defined(__GNUC__)
#error "v4.h needs the GCC/clang vector extensions"
#endif

typedef double rs_v4 __attribute__((vector_size(32)));
/* A lane mask: all ones (true) or all zeros, as vector compares return. */
typedef int64_t rs_v4m __attribute__((vector_size(32)));
typedef uint64_t rs_v4u __attribute__((vector_size(32)));

static inline rs_v4 rs_v4_splat(double x) { return (rs_v4){x, x, x, x}; }

static inline rs_v4 rs_v4_set(double a, double b, double c, double d)
{
    return (rs_v4){a, b, c, d};
}

/* Reinterpret lanes' bits (no conversion). */
static inline rs_v4u rs_v4_bits(rs_v4 x)
{
    rs_v4u u;
    __builtin_memcpy(&u, &x, sizeof u);
    return u;
}

static inline rs_v4 rs_v4_from_bits(rs_v4u u)
{
    rs_v4 x;
    __builtin_memcpy(&x, &u, sizeof x);
    return x;
}

/* m ? a : b per lane, by bits: exactly the scalar ?: for every value,
 * -0 and NaN included. m's lanes are all ones or all zeros (a compare's
 * result), so AVX's blend, which looks at each lane's sign bit, picks the
 * same bits in one instruction where the and-or takes three. */
static inline rs_v4 rs_v4_sel(rs_v4m m, rs_v4 a, rs_v4 b)
{
#if defined(__AVX__)
    return (rs_v4)_mm256_blendv_pd((__m256d)b, (__m256d)a, (__m256d)m);
#else
    rs_v4u mu = (rs_v4u)m;
    return rs_v4_from_bits((rs_v4_bits(a) & mu) | (rs_v4_bits(b) & ~mu));
#endif
}

/* Lane compares, a op b: all ones where true, as C's operators on each
 * lane (NaN compares false, != true). Write these rather than the operators:
 * where a vector is wider than the registers (SSE2, NEON), GCC turns a
 * four-lane double compare into four scalar compares and branches; done on
 * two-lane halves, each half is one instruction. Same result either way. */
#if defined(__AVX__)
#define RS_V4_CMP(name, op)                                                                    \
    static inline rs_v4m name(rs_v4 a, rs_v4 b) { return a op b; }
#else
typedef double rs_v4_half __attribute__((vector_size(16)));
typedef int64_t rs_v4_halfm __attribute__((vector_size(16)));
typedef struct { rs_v4_half h[2]; } rs_v4_halves;
typedef struct { rs_v4_halfm h[2]; } rs_v4_halvesm;
#define RS_V4_CMP(name, op)                                                                    \
    static inline rs_v4m name(rs_v4 a, rs_v4 b)                                                \
    {                                                                                          \
        rs_v4_halves ha, hb;                                                                   \
        rs_v4_halvesm hm;                                                                      \
        rs_v4m m;                                                                              \
        __builtin_memcpy(&ha, &a, sizeof ha);                                                  \
        __builtin_memcpy(&hb, &b, sizeof hb);                                                  \
        hm.h[0] = ha.h[0] op hb.h[0];                                                          \
        hm.h[1] = ha.h[1] op hb.h[1];                                                          \
        __builtin_memcpy(&m, &hm, sizeof m);                                                   \
        return m;                                                                              \
    }
#endif
RS_V4_CMP(rs_v4_lt, <)
RS_V4_CMP(rs_v4_le, <=)
RS_V4_CMP(rs_v4_gt, >)
RS_V4_CMP(rs_v4_ge, >=)
RS_V4_CMP(rs_v4_eq, ==)
#undef RS_V4_CMP

/* a != b: true where a == b is false, NaN included, as C's != is. */
static inline rs_v4m rs_v4_ne(rs_v4 a, rs_v4 b) { return ~rs_v4_eq(a, b); }

static inline rs_v4m rs_v4_and(rs_v4m a, rs_v4m b) { return a & b; }
static inline rs_v4m rs_v4_or(rs_v4m a, rs_v4m b) { return a | b; }
static inline rs_v4m rs_v4_not(rs_v4m a) { return ~a; }

/* Whether any / every lane of a mask is set: for skipping work no lane
 * needs (the skipped lanes' results are selected away anyway). */
static inline int rs_v4_any(rs_v4m m) { return (m[0] | m[1] | m[2] | m[3]) != 0; }
static inline int rs_v4_all(rs_v4m m) { return (m[0] & m[1] & m[2] & m[3]) != 0; }

/* detmath's rs_abs (x < 0 ? -x : x), lane by lane: -0 stays -0, as there. */
static inline rs_v4 rs_v4_abs(rs_v4 x) { return rs_v4_sel(rs_v4_lt(x, rs_v4_splat(0.0)), -x, x); }

/* detmath's rs_sign: +1, -1, or 0 for +-0 and NaN. */
static inline rs_v4 rs_v4_sign(rs_v4 x)
{
    rs_v4 zero = rs_v4_splat(0.0);
    return rs_v4_sel(rs_v4_gt(x, zero), rs_v4_splat(1.0),
                     rs_v4_sel(rs_v4_lt(x, zero), rs_v4_splat(-1.0), zero));
}

/* detmath's rs_clamp: x < lo ? lo : (x > hi ? hi : x). */
static inline rs_v4 rs_v4_clamp(rs_v4 x, rs_v4 lo, rs_v4 hi)
{
    return rs_v4_sel(rs_v4_lt(x, lo), lo, rs_v4_sel(rs_v4_gt(x, hi), hi, x));
}

/* detmath's rs_sqrt: x <= 0 ? 0 : sqrt(x), sqrt correctly rounded per lane
 * (the compiler emits the packed instruction; IEEE sqrt has one answer). */
static inline rs_v4 rs_v4_sqrt(rs_v4 x)
{
    rs_v4m nonpos = rs_v4_le(x, rs_v4_splat(0.0));
    rs_v4 arg = rs_v4_sel(nonpos, rs_v4_splat(1.0), x), r;
    for (int i = 0; i < 4; i++)
        r[i] = __builtin_sqrt(arg[i]);
    return rs_v4_sel(nonpos, rs_v4_splat(0.0), r);
}

#endif
