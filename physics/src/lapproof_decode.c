/*
 * Lap proofs, reading (racesim/lapproof.h): every length, count and range
 * checked before anything is believed, and nothing allocated.
 */
#include <string.h>

#include "racesim/lapproof.h"

#include "bytes.h"
#include "lapproof_format.h"

rs_status rs_lap_proof_decode(const uint8_t *buf, size_t len, rs_lap_parsed *p)
{
    rs_lap_proof_info *o = &p->info;
    if (!buf)
        return RS_ERR_ARG;
    memset(p, 0, sizeof *p);
    rs_reader r = rs_reader_init(buf, len);
    uint8_t magic[4];
    rs_read_bytes(&r, magic, 4);
    if (r.error)
        return RS_ERR_BUFFER;
    if (memcmp(magic, PROOF_MAGIC, 4) != 0)
        return RS_ERR_FORMAT;
    o->version = rs_read_u32(&r);
    if (!r.error && o->version != RS_LAP_PROOF_VERSION)
        return RS_ERR_FORMAT;
    o->physics_version = rs_read_u32(&r);
    o->tick_hz = rs_read_u32(&r);
    o->substeps = rs_read_u32(&r);
    o->laps = rs_read_u32(&r);
    o->start_tick = rs_read_u64(&r);
    uint8_t coll = rs_read_u8(&r);
    o->car_collisions = coll != 0;
    size_t surf_at = r.pos;
    for (int s = 0; s < RS_SURFACE_COUNT; s++) {
        o->surfaces[s].grip_scale = rs_read_f64(&r);
        o->surfaces[s].rolling_drag_coef = rs_read_f64(&r);
    }
    if (r.error) /* past the end, or a NaN/Inf in place */
        return len - surf_at >= 16u * RS_SURFACE_COUNT ? RS_ERR_RANGE : RS_ERR_BUFFER;
    o->track_hash = rs_read_u64(&r);
    o->car_count = rs_read_u32(&r);
    if (r.error)
        return RS_ERR_BUFFER;
    if (o->tick_hz == 0 || o->tick_hz > MAX_TICK_HZ || o->substeps == 0 ||
        o->substeps > MAX_SUBSTEPS || coll > 1 || o->car_count == 0 || o->car_count > 65535u)
        return RS_ERR_RANGE;
    p->hashes_at = r.pos;
    if ((size_t)o->car_count > (len - r.pos) / 8u)
        return RS_ERR_BUFFER;
    r.pos += (size_t)o->car_count * 8u;
    o->car = rs_read_u16(&r);
    o->lap = rs_read_u32(&r);
    uint8_t valid = rs_read_u8(&r);
    o->valid = valid != 0;
    o->invalid_reason = rs_read_u8(&r);
    o->lap_time_us = (int64_t)rs_read_u64(&r);
    o->lap_end_us = (int64_t)rs_read_u64(&r);
    o->sector_count = rs_read_u32(&r);
    if (r.error)
        return RS_ERR_BUFFER;
    if (o->car == 0 || o->car > o->car_count || o->lap == 0 || valid > 1 ||
        o->invalid_reason > RS_LAP_REVERSED || (valid == 1) != (o->invalid_reason == 0) ||
        o->sector_count > RS_MAX_SECTORS)
        return RS_ERR_RANGE;
    for (uint32_t s = 0; s < o->sector_count; s++)
        o->sectors_us[s] = (int64_t)rs_read_u64(&r);
    o->end_car_hash = rs_read_u64(&r);
    o->first_tick = rs_read_u64(&r);
    o->tick_count = rs_read_u32(&r);
    uint32_t snap_len = rs_read_u32(&r);
    if (r.error)
        return RS_ERR_BUFFER;
    if (o->tick_count == 0 || o->tick_count > MAX_LAP_TICKS ||
        o->first_tick > UINT64_MAX - o->tick_count)
        return RS_ERR_RANGE;
    if (snap_len > len - r.pos)
        return RS_ERR_BUFFER;
    p->snap = buf + r.pos;
    p->snap_len = snap_len;
    r.pos += snap_len;
    p->inputs_at = r.pos;
    /* tick_count <= 2^24 and car_count < 2^16: the product fits in 64 bits. */
    uint64_t need = (uint64_t)o->tick_count * o->car_count * INPUT_BYTES;
    if (need > len - r.pos)
        return RS_ERR_BUFFER;
    if (need < len - r.pos)
        return RS_ERR_FORMAT; /* bytes after the end */
    rs_reader h = rs_reader_init(buf + p->hashes_at, 8u * o->car_count);
    h.pos = 8u * (size_t)(o->car - 1u);
    o->car_params_hash = rs_read_u64(&h);
    return RS_OK;
}

rs_status rs_lap_proof_info_read(const uint8_t *proof, size_t len, rs_lap_proof_info *out)
{
    rs_lap_parsed p;
    if (!out)
        return RS_ERR_ARG;
    rs_status st = rs_lap_proof_decode(proof, len, &p);
    *out = p.info;
    return st;
}

rs_status rs_lap_proof_car_hash(const uint8_t *proof, size_t len, uint32_t i, uint64_t *out)
{
    rs_lap_parsed p;
    if (!out)
        return RS_ERR_ARG;
    rs_status st = rs_lap_proof_decode(proof, len, &p);
    if (st != RS_OK)
        return st;
    if (i >= p.info.car_count)
        return RS_ERR_ARG;
    rs_reader h = rs_reader_init(proof + p.hashes_at + 8u * (size_t)i, 8);
    *out = rs_read_u64(&h);
    return RS_OK;
}


void rs_lap_input_write(rs_writer *w, const rs_input *in)
{
    rs_write_u16(w, (uint16_t)in->steer);
    rs_write_u8(w, in->throttle);
    rs_write_u8(w, in->brake);
    rs_write_u8(w, in->clutch);
    rs_write_u8(w, in->handbrake);
    rs_write_u8(w, (uint8_t)in->gear);
    rs_write_u8(w, in->buttons);
}

rs_input rs_lap_input_read(rs_reader *r)
{
    rs_input in;
    in.steer = (int16_t)rs_read_u16(r);
    in.throttle = rs_read_u8(r);
    in.brake = rs_read_u8(r);
    in.clutch = rs_read_u8(r);
    in.handbrake = rs_read_u8(r);
    in.gear = (int8_t)rs_read_u8(r);
    in.buttons = rs_read_u8(r);
    return in;
}
