/*
 * What the frontend can show about the connection (rs_client_get_stats),
 * the live standings (rs_client_standings) and the poses it renders
 * (rs_client_pose).
 */
#include "client_internal.h"

#include <string.h>

void rs_client_get_stats(rs_client *c, int64_t now_us, rs_client_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!c)
        return;
    out->rtt_ms = c->rtt_ms;
    out->silent_ms = now_us > c->last_heard_us ? (double)(now_us - c->last_heard_us) / 1e3 : 0.0;
    out->jitter_ms = c->jitter_ms;
    out->loss = c->loss;
    out->input_lead_ms = c->lead_ms;
    out->target_lead_ms = c->target_lead_ms;
    out->clock_rate = c->rate;
    out->late_inputs = c->late_inputs;
    out->rollbacks = c->old_rollbacks;
    out->desyncs = c->old_desyncs;
    out->hashes_checked = c->old_hashes;
    if (c->pred) {
        rs_predict_stats ps;
        rs_predict_get_stats(c->pred, (double)now_us / 1e6, &ps);
        out->rollbacks_per_s = ps.rollbacks_per_s;
        out->rollbacks += ps.rollbacks;
        out->depth_p50 = ps.depth_p50;
        out->depth_p99 = ps.depth_p99;
        out->depth_max = ps.depth_max;
        out->local_error_m_last = ps.local_error_m_last;
        out->local_error_m_max = ps.local_error_m_max;
        out->local_error_m_mean = ps.local_error_m_mean;
        out->desyncs += ps.desyncs;
        out->hashes_checked += ps.hashes_checked;
        out->confirmed_tick = ps.confirmed_tick;
        out->present_tick = ps.present_tick;
    }
    if (c->light) {
        out->confirmed_tick = c->light_confirmed;
        out->present_tick = c->light_present;
    }
    out->snapshots = c->snapshots;
    out->frames = c->frames;
    out->frames_unresolvable = c->frames_unresolvable;
    out->inputs_sent = c->inputs_sent;
    out->malformed = c->malformed;
    out->events_dropped = c->events_dropped;
    out->bytes_in = c->bytes_in;
    out->bytes_out = c->bytes_out;
    out->packets_in = c->packets_in;
    out->packets_out = c->packets_out;
    if (!c->custom)
        rs_client__enet_wire(c, out);
}

uint32_t rs_client_standings(const rs_client *c, rs_standing *out, uint32_t cap)
{
    if (!c || !c->pred)
        return 0;
    return rs_standings_get(c->board, rs_predict_world(c->pred), out, cap);
}

rs_client_status rs_client_pose(const rs_client *c, uint8_t car, int64_t now_us,
                                rs_predict_pose *out)
{
    if (!c || !out)
        return RS_CLIENT_ERR_ARG;
    if (!c->pred)
        return RS_CLIENT_ERR_STATE;
    /* The clock stands at or a little past the present; drawing one tick
     * behind it interpolates between the states at present - 1 and present
     * (the clock may have moved on since the last update, by now_us). */
    double alpha = 1.0;
    if (c->calibrated && c->welcome.tick_hz) {
        double clock = c->clock_tick;
        if (now_us > c->clock_us)
            clock += (double)(now_us - c->clock_us) / 1e6 * c->welcome.tick_hz * c->rate;
        alpha = clock - (double)rs_predict_present_tick(c->pred);
    }
    rs_predict_status st = rs_predict_pose_of(c->pred, (rs_car_id){car}, alpha, out);
    return st == RS_PREDICT_OK ? RS_CLIENT_OK : RS_CLIENT_ERR_ARG;
}
