/*
 * What car.c (set-up, gearbox, queries) and car_step.c (the substep) share:
 * small 3-vector helpers, the wheel layout and the ground lookup. Private to
 * the physics module.
 */
#ifndef RS_CAR_INTERNAL_H
#define RS_CAR_INTERNAL_H

#include "car.h"

#define GRAVITY 9.80665

static inline double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross3(const double a[3], const double b[3], double out[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x, out[1] = y, out[2] = z;
}

/* Rotation matrix (row-major) of a unit quaternion w x y z. */
static inline void quat_matrix(const double q[4], double m[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    m[0] = 1.0 - 2.0 * (y * y + z * z), m[1] = 2.0 * (x * y - w * z), m[2] = 2.0 * (x * z + w * y);
    m[3] = 2.0 * (x * y + w * z), m[4] = 1.0 - 2.0 * (x * x + z * z), m[5] = 2.0 * (y * z - w * x);
    m[6] = 2.0 * (x * z - w * y), m[7] = 2.0 * (y * z + w * x), m[8] = 1.0 - 2.0 * (x * x + y * y);
}

static inline void mat_mul(const double m[9], const double v[3], double out[3])
{
    double x = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
    double y = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
    double z = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];
    out[0] = x, out[1] = y, out[2] = z;
}

static inline void mat_tmul(const double m[9], const double v[3], double out[3])
{
    double x = m[0] * v[0] + m[3] * v[1] + m[6] * v[2];
    double y = m[1] * v[0] + m[4] * v[1] + m[7] * v[2];
    double z = m[2] * v[0] + m[5] * v[1] + m[8] * v[2];
    out[0] = x, out[1] = y, out[2] = z;
}

static inline void invert3(const double m[9], double out[9])
{
    double c0 = m[4] * m[8] - m[5] * m[7];
    double c1 = m[5] * m[6] - m[3] * m[8];
    double c2 = m[3] * m[7] - m[4] * m[6];
    double inv_det = 1.0 / (m[0] * c0 + m[1] * c1 + m[2] * c2);
    out[0] = c0 * inv_det;
    out[1] = (m[2] * m[7] - m[1] * m[8]) * inv_det;
    out[2] = (m[1] * m[5] - m[2] * m[4]) * inv_det;
    out[3] = c1 * inv_det;
    out[4] = (m[0] * m[8] - m[2] * m[6]) * inv_det;
    out[5] = (m[2] * m[3] - m[0] * m[5]) * inv_det;
    out[6] = c2 * inv_det;
    out[7] = (m[1] * m[6] - m[0] * m[7]) * inv_det;
    out[8] = (m[0] * m[4] - m[1] * m[3]) * inv_det;
}

/* Wheels are FL FR RL RR: even indices on the left, axle i >> 1. */
static inline int is_left(int i) { return (i & 1) == 0; }
static inline const rs_axle_params *axle_of(const rs_car_params_data *def, int i)
{
    return &def->axle[i >> 1];
}

static inline void ground_at(const rs_world_def *w, double x, double y, rs_ground_hit *hit)
{
    if (w->ground) {
        /* A lookup that knows nothing of track limits leaves them "inside". */
        hit->inside_limits = true;
        w->ground(w->ground_ctx, x, y, hit);
        if (hit->surface >= RS_SURFACE_COUNT)
            hit->surface = RS_SURFACE_ASPHALT;
    } else {
        hit->height_m = 0.0;
        hit->normal[0] = 0.0, hit->normal[1] = 0.0, hit->normal[2] = 1.0;
        hit->surface = RS_SURFACE_ASPHALT;
        hit->inside_limits = true;
    }
}

/* rs_car_substep's copies (car_step.c), the same bits from each: the
 * target's baseline instructions, and on x86-64 builds with RS_TIRE4_AVX2 an
 * AVX2 copy that rs_car_substep uses where the CPU has it. Tests compare
 * them. */
void rs_car_substep_base(rs_car *car, const rs_world_def *world, double dt, int first);
#if RS_TIRE4_AVX2
void rs_car_substep_avx2(rs_car *car, const rs_world_def *world, double dt, int first);
#endif

#endif
