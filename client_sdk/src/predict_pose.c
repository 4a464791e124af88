/*
 * Poses for rendering: every car's position, orientation and velocity at the
 * last two predicted ticks, and the interpolation between them. This is
 * presentation, never fed back into the simulation, so plain libm is fine.
 */
#include "predict_internal.h"

#include <math.h>

void rs_predict__capture_poses(rs_predict *p, bool shift)
{
    for (uint32_t c = 0; c < p->car_count; c++) {
        if (shift)
            p->pose_prev[c] = p->pose_cur[c];
        rs_car_state cs;
        if (rs_world_car_state(p->world, (rs_car_id){(uint16_t)(c + 1u)}, &cs) != RS_OK)
            continue;
        rs_predict_pose *q = &p->pose_cur[c];
        for (int k = 0; k < 3; k++) {
            q->pos_m[k] = cs.pos_m[k];
            q->vel_m_s[k] = cs.vel_m_s[k];
        }
        for (int k = 0; k < 4; k++)
            q->quat[k] = cs.quat[k];
    }
}

rs_predict_status rs_predict_pose_of(const rs_predict *p, rs_car_id car, double alpha,
                                     rs_predict_pose *out)
{
    if (!p || !out || car.index1 == 0 || car.index1 > p->car_count)
        return RS_PREDICT_ERR_ARG;
    if (!(alpha > 0.0)) /* also NaN */
        alpha = 0.0;
    if (alpha > 1.0)
        alpha = 1.0;
    const rs_predict_pose *a = &p->pose_prev[car.index1 - 1u];
    const rs_predict_pose *b = &p->pose_cur[car.index1 - 1u];
    for (int k = 0; k < 3; k++) {
        out->pos_m[k] = a->pos_m[k] + (b->pos_m[k] - a->pos_m[k]) * alpha;
        out->vel_m_s[k] = a->vel_m_s[k] + (b->vel_m_s[k] - a->vel_m_s[k]) * alpha;
    }
    /* q and -q are the same rotation: blend towards the nearer one so the
     * car never turns the long way round. Between two ticks the angle is
     * small, where normalised lerp is indistinguishable from slerp. */
    double dot = 0.0;
    for (int k = 0; k < 4; k++)
        dot += a->quat[k] * b->quat[k];
    double sign = dot < 0.0 ? -1.0 : 1.0;
    double norm = 0.0;
    for (int k = 0; k < 4; k++) {
        out->quat[k] = a->quat[k] + (sign * b->quat[k] - a->quat[k]) * alpha;
        norm += out->quat[k] * out->quat[k];
    }
    norm = sqrt(norm);
    if (norm > 0.0)
        for (int k = 0; k < 4; k++)
            out->quat[k] /= norm;
    else
        for (int k = 0; k < 4; k++)
            out->quat[k] = b->quat[k];
    return RS_PREDICT_OK;
}
