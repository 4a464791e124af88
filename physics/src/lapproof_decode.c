/*
 * Lap proofs, reading (racesim/lapproof.h): every length, count and range
 * checked before anything is believed, and nothing allocated.
 */
#include <string.h>

#include "racesim/lapproof.h"

#include "bytes.h"
#include "carparams.h"
#include "lapproof_format.h"
#include "world.h"

/* -0.0 is never written (the writer turns it into +0.0): in a version 2
 * proof it is not canonical. */
static bool negative_zero(double v, const rs_reader *r)
{
    return v == 0.0 && !r->error && (r->buf[r->pos - 1] & 0x80);
}

/* The joins of a version 2 proof, at r: each checked against the log and
 * the cars (p->snap_cars set). */
static rs_status decode_joins(rs_reader *r, rs_lap_parsed *p)
{
    const rs_lap_proof_info *o = &p->info;
    uint64_t last_tick = o->first_tick + o->tick_count - 1u;
    uint64_t prev = 0;
    for (uint32_t i = 0; i < o->join_count; i++) {
        uint64_t tick = rs_read_u64(r);
        uint16_t car = rs_read_u16(r);
        bool neg_zero = false;
        for (int k = 0; k < 5; k++)
            neg_zero |= negative_zero(rs_read_f64(r), r); /* pos[3], yaw, speed */
        int8_t gear = (int8_t)rs_read_u8(r);
        uint8_t transmission = rs_read_u8(r), clutch_mode = rs_read_u8(r);
        if (r->error) /* every byte is there (checked by the caller): a NaN or Inf */
            return RS_ERR_RANGE;
        if (neg_zero)
            return RS_ERR_FORMAT;
        if (tick <= o->first_tick || tick > last_tick || tick < prev ||
            car != p->snap_cars + 1u + i || gear < RS_GEAR_REVERSE || gear > RS_MAX_GEARS ||
            transmission > RS_TRANSMISSION_MANUAL || clutch_mode > RS_CLUTCH_MANUAL)
            return RS_ERR_RANGE;
        prev = tick;
    }
    return RS_OK;
}

/* Bytes of the input log: one input per car present in each tick. */
static uint64_t log_bytes(const rs_lap_parsed *p, const uint8_t *buf)
{
    const rs_lap_proof_info *o = &p->info;
    uint64_t last_tick = o->first_tick + o->tick_count - 1u;
    /* tick_count <= 2^24 and car_count < 2^16: the sum fits in 64 bits. */
    uint64_t inputs = (uint64_t)o->tick_count * p->snap_cars;
    rs_reader r = rs_reader_init(buf + p->joins_at, (size_t)o->join_count * JOIN_BYTES);
    for (uint32_t i = 0; i < o->join_count; i++)
        inputs += last_tick - rs_lap_join_read(&r).tick + 1u;
    return inputs * INPUT_BYTES;
}

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
    if (!r.error && o->version != 1u && o->version != RS_LAP_PROOF_VERSION)
        return RS_ERR_FORMAT;
    bool v2 = o->version == 2u;
    o->physics_version = rs_read_u32(&r);
    o->tick_hz = rs_read_u32(&r);
    o->substeps = rs_read_u32(&r);
    o->laps = rs_read_u32(&r);
    o->start_tick = rs_read_u64(&r);
    uint8_t coll = rs_read_u8(&r);
    o->car_collisions = coll != 0;
    uint8_t hold = v2 ? rs_read_u8(&r) : 1u;
    o->start_hold = hold != 0;
    size_t surf_at = r.pos;
    bool neg_zero = false;
    for (int s = 0; s < RS_SURFACE_COUNT; s++) {
        o->surfaces[s].grip_scale = rs_read_f64(&r);
        neg_zero |= negative_zero(o->surfaces[s].grip_scale, &r);
        o->surfaces[s].rolling_drag_coef = rs_read_f64(&r);
        neg_zero |= negative_zero(o->surfaces[s].rolling_drag_coef, &r);
    }
    if (r.error) /* past the end, or a NaN/Inf in place */
        return len - surf_at >= 16u * RS_SURFACE_COUNT ? RS_ERR_RANGE : RS_ERR_BUFFER;
    if (v2 && neg_zero)
        return RS_ERR_FORMAT;
    o->track_hash = rs_read_u64(&r);
    o->car_count = rs_read_u32(&r);
    if (r.error)
        return RS_ERR_BUFFER;
    if (o->tick_hz == 0 || o->tick_hz > MAX_TICK_HZ || o->substeps == 0 ||
        o->substeps > MAX_SUBSTEPS || coll > 1 || hold > 1 || o->car_count == 0 ||
        o->car_count > 65535u)
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
    p->snap_cars = o->car_count;
    if (v2) {
        o->join_count = rs_read_u32(&r);
        if (r.error)
            return RS_ERR_BUFFER;
        /* The lap's car started its lap in the snapshot; the snapshot's own
         * car count must agree. */
        uint32_t in_snap;
        if (o->join_count >= o->car_count || o->car > o->car_count - o->join_count ||
            !rs_snapshot_cars(p->snap, p->snap_len, &in_snap) ||
            in_snap != o->car_count - o->join_count)
            return RS_ERR_RANGE;
        p->snap_cars = in_snap;
        p->joins_at = r.pos;
        if ((size_t)o->join_count > (len - r.pos) / JOIN_BYTES)
            return RS_ERR_BUFFER;
        rs_status st = decode_joins(&r, p);
        if (st != RS_OK)
            return st;
    }
    p->inputs_at = r.pos;
    uint64_t need = log_bytes(p, buf);
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

/* A -0.0 in the spawn is written as +0.0, as every double of the format;
 * the car it sets up is the same car (the spawn's zeros only enter sums and
 * products). */
void rs_lap_join_write(rs_writer *w, uint64_t tick, uint16_t car, const rs_car_spawn *spawn)
{
    rs_write_u64(w, tick);
    rs_write_u16(w, car);
    for (int k = 0; k < 3; k++)
        rs_write_f64(w, spawn->pos_m[k]);
    rs_write_f64(w, spawn->yaw_rad);
    rs_write_f64(w, spawn->speed_m_s);
    rs_write_u8(w, (uint8_t)spawn->gear);
    rs_write_u8(w, spawn->transmission);
    rs_write_u8(w, spawn->clutch_mode);
}

rs_lap_join rs_lap_join_read(rs_reader *r)
{
    rs_lap_join j;
    memset(&j, 0, sizeof j);
    j.tick = rs_read_u64(r);
    j.car = rs_read_u16(r);
    for (int k = 0; k < 3; k++)
        j.spawn.pos_m[k] = rs_read_f64(r);
    j.spawn.yaw_rad = rs_read_f64(r);
    j.spawn.speed_m_s = rs_read_f64(r);
    j.spawn.gear = (int8_t)rs_read_u8(r);
    j.spawn.transmission = rs_read_u8(r);
    j.spawn.clutch_mode = rs_read_u8(r);
    return j;
}
