/*
 * The predictor's statistics: rollback depth histogram and percentiles, the
 * rollback rate over the caller's clock, and the lead helper. A fixed
 * histogram (one bin per possible depth) keeps them allocation-free.
 */
#include "predict_internal.h"

#include <string.h>

const char *rs_predict_status_str(rs_predict_status status)
{
    switch (status) {
    case RS_PREDICT_OK: return "ok";
    case RS_PREDICT_ERR_ARG: return "invalid argument";
    case RS_PREDICT_ERR_NOMEM: return "out of memory";
    case RS_PREDICT_ERR_OLD: return "tick already confirmed (duplicate or late)";
    case RS_PREDICT_ERR_GAP: return "confirmation out of order (a tick is missing)";
    case RS_PREDICT_ERR_TOO_FAR: return "tick beyond the prediction window";
    case RS_PREDICT_ERR_SNAPSHOT: return "snapshot rejected";
    case RS_PREDICT_ERR_PHYSICS: return "the world failed to step";
    case RS_PREDICT_DESYNC: return "desync: confirmed state hash differs from the server's";
    }
    return "unknown status";
}

void rs_predict__record_rollback(rs_predict_counters *c, uint64_t depth)
{
    c->rollbacks++;
    uint32_t bin = depth < RS_PREDICT_DEPTH_BINS ? (uint32_t)depth : RS_PREDICT_DEPTH_BINS - 1u;
    c->depth_hist[bin]++;
    if (bin > c->depth_max)
        c->depth_max = bin;
}

/* The smallest depth d with at least q of the rollbacks at depth <= d. */
static uint32_t depth_quantile(const rs_predict_counters *c, double q)
{
    if (c->rollbacks == 0)
        return 0;
    double need = q * (double)c->rollbacks;
    uint64_t seen = 0;
    for (uint32_t d = 0; d < RS_PREDICT_DEPTH_BINS; d++) {
        seen += c->depth_hist[d];
        if ((double)seen >= need)
            return d;
    }
    return c->depth_max;
}

void rs_predict_get_stats(rs_predict *p, double now_s, rs_predict_stats *out)
{
    if (!p || !out)
        return;
    rs_predict_counters *c = &p->c;
    if (!c->window_started) {
        c->window_started = true;
        c->window_start_s = now_s;
        c->window_rollbacks = c->rollbacks;
    } else if (now_s - c->window_start_s >= 1.0) {
        c->rollbacks_per_s = (double)(c->rollbacks - c->window_rollbacks) /
                             (now_s - c->window_start_s);
        c->window_start_s = now_s;
        c->window_rollbacks = c->rollbacks;
    }
    memset(out, 0, sizeof *out);
    out->confirmed_tick = p->confirmed;
    out->present_tick = p->present;
    out->steps = c->steps;
    out->predicted_steps = c->predicted_steps;
    out->resim_steps = c->resim_steps;
    out->rollbacks = c->rollbacks;
    out->rollbacks_per_s = c->rollbacks_per_s;
    out->depth_p50 = depth_quantile(c, 0.50);
    out->depth_p99 = depth_quantile(c, 0.99);
    out->depth_max = c->depth_max;
    out->mispredicted_ticks = c->mispredicted_ticks;
    out->local_error_m_last = c->local_error_last;
    out->local_error_m_max = c->local_error_max;
    out->local_error_m_mean = c->rollbacks ? c->local_error_sum / (double)c->rollbacks : 0.0;
    out->local_inputs_too_old = c->local_inputs_too_old;
    out->local_inputs_replaced = c->local_inputs_replaced;
    out->confirms_rejected = c->confirms_rejected;
    out->hashes_checked = c->hashes_checked;
    out->desyncs = c->desyncs;
    out->desync_tick = c->desync_tick;
    out->needs_snapshot = p->needs_snapshot;
}

uint32_t rs_predict_lead_ticks(double rtt_ms, double jitter_ms, uint32_t tick_hz,
                               uint32_t margin_ticks)
{
    if (!(rtt_ms > 0.0)) /* also NaN */
        rtt_ms = 0.0;
    if (!(jitter_ms > 0.0))
        jitter_ms = 0.0;
    double ticks = (0.5 * rtt_ms + jitter_ms) * (double)tick_hz / 1000.0;
    /* Compare before converting: an out-of-range cast is undefined. */
    if (!(ticks < (double)RS_PREDICT_MAX_LEAD))
        return RS_PREDICT_MAX_LEAD;
    uint32_t n = (uint32_t)ticks;
    if ((double)n < ticks)
        n++;
    uint64_t total = (uint64_t)n + margin_ticks;
    return total < RS_PREDICT_MAX_LEAD ? (uint32_t)total : RS_PREDICT_MAX_LEAD;
}
