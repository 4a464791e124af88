/*
 * The flat layer's view of the race (racesim/client_flat.h): poses for
 * drawing, the local car for a HUD, the track for a driver, standings and
 * stats, all at the present time of rs_clock_us, and the struct sizes a
 * binding checks its mirrors against. Presentation only: the angles come
 * from libm, never from the deterministic simulation's math.
 */
#include "racesim/client_flat.h"

#include <math.h>
#include <string.h>

#include "racesim/base/clock.h"

/* ------------------------------------------------------------ poses */

int32_t rs_flat_get_pose(const rs_client *c, int32_t car, rs_flat_pose *out)
{
    if (!c || !out || car < 1 || car > UINT8_MAX)
        return RS_CLIENT_ERR_ARG;
    memset(out, 0, sizeof *out);
    rs_predict_pose p;
    rs_client_status st = rs_client_pose(c, (uint8_t)car, rs_clock_us(), &p);
    if (st != RS_CLIENT_OK)
        return (int32_t)st;
    out->x_m = p.pos_m[0];
    out->y_m = p.pos_m[1];
    out->z_m = p.pos_m[2];
    /* Z-Y-X (yaw, pitch, roll) angles of the body-to-world rotation in the
     * axes of ISO 8855 (x forward, y left, z up): pitch + = nose down, roll
     * + = right side down. */
    double w = p.quat[0], x = p.quat[1], y = p.quat[2], z = p.quat[3];
    double sp = 2.0 * (w * y - z * x);
    out->yaw_rad = atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z));
    out->pitch_rad = asin(sp > 1.0 ? 1.0 : sp < -1.0 ? -1.0 : sp);
    out->roll_rad = atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y));
    out->speed_m_s = sqrt(p.vel_m_s[0] * p.vel_m_s[0] + p.vel_m_s[1] * p.vel_m_s[1]);
    memcpy(out->quat, p.quat, sizeof out->quat);
    return RS_CLIENT_OK;
}

/* ---------------------------------------------------------- the car */

int32_t rs_flat_get_car(const rs_client *c, struct rs_flat_car *out)
{
    if (!out)
        return RS_CLIENT_ERR_ARG;
    memset(out, 0, sizeof *out);
    if (!c)
        return RS_CLIENT_ERR_ARG;
    const rs_world *world = rs_client_world(c);
    rs_car_id id = {rs_client_car(c)};
    rs_car_state cs;
    rs_race_car_state rs;
    if (!world || !id.index1 || rs_world_car_state(world, id, &cs) != RS_OK ||
        rs_world_race_state(world, id, &rs) != RS_OK)
        return RS_CLIENT_ERR_STATE;
    rs_msg_race_state race;
    out->car = id.index1;
    out->gear = cs.gear;
    out->laps = rs_client_race_state(c, &race) ? race.laps : 0;
    out->position = (int32_t)rs.position;
    out->status = rs.status;
    out->speed_m_s = cs.forward_speed_m_s;
    out->engine_rpm = cs.engine_rpm;
    out->race_time_us = rs_world_race_time_us(world);
    out->last_lap_us = rs.last_lap_us;
    out->best_lap_us = rs.best_lap_us;
    /* After the flag the car drives on untimed: its last lap stays the
     * lap, and no lap is in progress. */
    switch (rs.status) {
    case RS_RACE_RACING:
        out->lap = (int32_t)rs.laps_completed + 1;
        out->lap_time_us = out->race_time_us - rs.lap_start_us;
        break;
    case RS_RACE_FINISHED:
        out->lap = (int32_t)rs.laps_completed;
        out->lap_time_us = -1;
        break;
    default:
        out->lap_time_us = -1;
        break;
    }
    return RS_CLIENT_OK;
}

/* --------------------------------------------------------- the track */

/* The current world's track for a track query, *out zeroed first: NULL
 * with *st the status to return when there is none to ask. */
static const rs_track *query_track(const rs_client *c, rs_flat_track_point *out, int32_t *st)
{
    *st = RS_CLIENT_ERR_ARG;
    if (!out)
        return NULL;
    memset(out, 0, sizeof *out);
    const rs_track *t = c ? rs_client_track(c) : NULL;
    if (!t && c)
        *st = RS_CLIENT_ERR_STATE;
    return t;
}

int32_t rs_flat_track_sample(const rs_client *c, double s_m, rs_flat_track_point *out)
{
    int32_t st;
    const rs_track *t = query_track(c, out, &st);
    if (!t)
        return st;
    if (!isfinite(s_m))
        return RS_CLIENT_ERR_ARG;
    double len = rs_track_length(t);
    double s = fmod(s_m, len);
    if (s < 0.0)
        s += len;
    rs_track_sample smp;
    rs_track_sample_at(t, s, &smp);
    out->s_m = s < len ? s : 0.0; /* -tiny + len rounds to len */
    out->x_m = smp.x_m;
    out->y_m = smp.y_m;
    out->heading_rad = smp.heading_rad;
    out->curvature_1_m = smp.curvature_1_m;
    out->width_left_m = smp.width_left_m;
    out->width_right_m = smp.width_right_m;
    out->inside_limits = 1;
    return RS_CLIENT_OK;
}

int32_t rs_flat_track_locate(const rs_client *c, double x_m, double y_m, rs_flat_track_point *out)
{
    int32_t st;
    const rs_track *t = query_track(c, out, &st);
    if (!t)
        return st;
    rs_track_location at;
    if (!isfinite(x_m) || !isfinite(y_m) || !rs_track_locate(t, x_m, y_m, &at))
        return RS_CLIENT_ERR_ARG;
    out->s_m = at.s_m;
    out->x_m = x_m;
    out->y_m = y_m;
    out->heading_rad = at.heading_rad;
    out->offset_m = at.offset_m;
    out->width_left_m = at.width_left_m;
    out->width_right_m = at.width_right_m;
    out->inside_limits = at.inside_limits ? 1 : 0;
    out->surface = at.surface;
    return RS_CLIENT_OK;
}

double rs_flat_track_length(const rs_client *c)
{
    const rs_track *t = c ? rs_client_track(c) : NULL;
    return t ? rs_track_length(t) : 0.0;
}

/* ------------------------------------------------- standings, stats */

int32_t rs_flat_get_standings(const rs_client *c, rs_standing *out, int32_t cap)
{
    if (!c || (!out && cap > 0))
        return 0;
    return (int32_t)rs_client_standings(c, out, cap > 0 ? (uint32_t)cap : 0);
}

void rs_flat_get_stats(rs_client *c, rs_flat_stats *out)
{
    if (!out)
        return;
    rs_client_stats st;
    rs_client_get_stats(c, rs_clock_us(), &st);
    *out = (rs_flat_stats){
        .rtt_ms = st.rtt_ms, .silent_ms = st.silent_ms, .jitter_ms = st.jitter_ms,
        .loss = st.loss, .input_lead_ms = st.input_lead_ms, .target_lead_ms = st.target_lead_ms,
        .clock_rate = st.clock_rate, .rollbacks_per_s = st.rollbacks_per_s,
        .local_error_m_last = st.local_error_m_last, .local_error_m_max = st.local_error_m_max,
        .local_error_m_mean = st.local_error_m_mean, .late_inputs = st.late_inputs,
        .rollbacks = (int64_t)st.rollbacks, .depth_p50 = st.depth_p50,
        .depth_p99 = st.depth_p99, .depth_max = st.depth_max, .desyncs = (int64_t)st.desyncs,
        .hashes_checked = (int64_t)st.hashes_checked, .snapshots = (int64_t)st.snapshots,
        .confirmed_tick = (int64_t)st.confirmed_tick, .present_tick = (int64_t)st.present_tick,
        .frames = (int64_t)st.frames, .frames_unresolvable = (int64_t)st.frames_unresolvable,
        .inputs_sent = (int64_t)st.inputs_sent, .malformed = (int64_t)st.malformed,
        .events_dropped = (int64_t)st.events_dropped, .bytes_in = (int64_t)st.bytes_in,
        .bytes_out = (int64_t)st.bytes_out, .packets_in = (int64_t)st.packets_in,
        .packets_out = (int64_t)st.packets_out, .wire_bytes_in = (int64_t)st.wire_bytes_in,
        .wire_bytes_out = (int64_t)st.wire_bytes_out,
        .wire_packets_in = (int64_t)st.wire_packets_in,
        .wire_packets_out = (int64_t)st.wire_packets_out,
        .transport_errors = (int64_t)st.transport_errors,
        .sealed_rejected = (int64_t)st.sealed_rejected};
}

/* ----------------------------------------------------------- layouts */

int32_t rs_flat_sizeof(const char *name)
{
    static const struct {
        const char *name;
        size_t size;
    } sizes[] = {
        {"rs_flat_event", sizeof(rs_flat_event)},
        {"rs_flat_result", sizeof(rs_flat_result)},
        {"rs_flat_board_row", sizeof(rs_flat_board_row)},
        {"rs_flat_pose", sizeof(rs_flat_pose)},
        {"rs_flat_car", sizeof(struct rs_flat_car)},
        {"rs_flat_track_point", sizeof(rs_flat_track_point)},
        {"rs_standing", sizeof(rs_standing)},
        {"rs_flat_stats", sizeof(rs_flat_stats)},
        {"rs_flat_weekend", sizeof(rs_flat_weekend)},
        {"rs_flat_session_def", sizeof(rs_flat_session_def)},
        {"rs_flat_car_class", sizeof(rs_flat_car_class)},
        {"rs_flat_offered_car", sizeof(rs_flat_offered_car)},
        {"rs_flat_session", sizeof(rs_flat_session)},
        {"rs_flat_car_info", sizeof(rs_flat_car_info)},
        {"rs_flat_penalty", sizeof(rs_flat_penalty)},
        {"rs_flat_chat", sizeof(rs_flat_chat)},
        {"rs_flat_vote", sizeof(rs_flat_vote)},
        {"rs_flat_championship_row", sizeof(rs_flat_championship_row)},
    };
    for (size_t i = 0; name && i < sizeof sizes / sizeof sizes[0]; i++)
        if (strcmp(sizes[i].name, name) == 0)
            return (int32_t)sizes[i].size;
    return 0;
}
