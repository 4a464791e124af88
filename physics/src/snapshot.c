/*
 * Canonical snapshots and state hashes.
 *
 * Layout (all little endian, doubles as IEEE-754 bits, -0.0 as +0.0):
 *   "RSWS" u32 format | u32 physics_version | u64 tick | u32 tick_hz |
 *   u32 substeps | u64 track hash (0: none) | u32 laps | u64 start_tick |
 *   u8 world flags | race state | u32 car count |
 *   per car: u64 parameter hash, dynamic state, race state, contact state
 * The parameters themselves are not in the snapshot: a receiver builds the
 * world from the parameter blocks first, and the hashes make sure it did.
 * The same bytes are what the state hash is computed over.
 *
 * World flags: bit 0 car collisions, bit 1 inputs apply before lights out
 * (start_hold false). The bit is set for the new behaviour, not for the
 * default, so a world with start_hold (every world before the option
 * existed) writes the very byte it always did, and its snapshots and hashes
 * are unchanged; a build that predates the option refuses the other kind
 * of snapshot as a mismatch instead of misreading it.
 */
#include "racesim/track.h"

#include "world.h"

#define SNAPSHOT_MAGIC 0x53575352u /* "RSWS" */
#define SNAPSHOT_FORMAT 2u
#define CAR_DOUBLES 37 /* body 13, wheels 4 x 5, drivetrain 4 */

static void rs_snapshot_write_car(const rs_car *car, rs_writer *w)
{
    /* The doubles in their order, written in one go (rs_write_f64s). */
    double v[CAR_DOUBLES];
    int n = 0;
    for (int j = 0; j < 3; j++)
        v[n++] = car->pos[j];
    for (int j = 0; j < 4; j++)
        v[n++] = car->q[j];
    for (int j = 0; j < 3; j++)
        v[n++] = car->vel[j];
    for (int j = 0; j < 3; j++)
        v[n++] = car->w[j];
    for (int i = 0; i < 4; i++) {
        const rs_wheel *wh = &car->wheel[i];
        v[n++] = wh->travel_m;
        v[n++] = wh->travel_v;
        v[n++] = wh->omega;
        v[n++] = wh->kappa;
        v[n++] = wh->tan_alpha;
    }
    v[n++] = car->omega_e;
    v[n++] = car->shift_timer_s;
    v[n++] = car->shift_cooldown_s;
    v[n++] = car->drive_prev_nm;
    rs_write_u64(w, car->params->hash);
    rs_write_f64s(w, v, (size_t)n);
    rs_write_i32(w, car->gear);
    rs_write_i32(w, car->shift_target);
    rs_write_i32(w, car->auto_mode_gear);
    rs_write_u8(w, car->transmission);
    rs_write_u8(w, car->clutch_mode);
    rs_write_u8(w, car->prev_buttons);
    rs_write_u16(w, (uint16_t)car->input.steer);
    rs_write_u8(w, car->input.throttle);
    rs_write_u8(w, car->input.brake);
    rs_write_u8(w, car->input.clutch);
    rs_write_u8(w, car->input.handbrake);
    rs_write_u8(w, (uint8_t)car->input.gear);
    rs_write_u8(w, car->input.buttons);
}

void rs_snapshot_write_parts(const rs_car *car, const rs_race_car *rc, const rs_collide_car *cc,
                             rs_writer *w)
{
    rs_snapshot_write_car(car, w);
    rs_race_car_write(rc, w);
    rs_collide_car_write(cc, w);
}

size_t rs_snapshot_car_size(void)
{
    /* Sizes only: the values written are never looked at. Static zero
     * objects, because every snapshot's length needs this count, and
     * copying a car and zeroing a parameter block (5 KB) cost more than it. */
    static const rs_car_params zero_params;
    static const rs_car probe = {.params = &zero_params};
    rs_race_car rc;
    rs_collide_car cc;
    rs_race_car_init(&rc, 0);
    rs_collide_car_init(&cc);
    rs_writer w = rs_writer_init(NULL, 0);
    rs_snapshot_write_parts(&probe, &rc, &cc, &w);
    return w.len;
}

void rs_snapshot_write_slot(const rs_world *world, uint32_t slot, rs_writer *w)
{
    rs_snapshot_write_parts(&world->cars[slot], &world->race_cars[slot], &world->contact[slot], w);
}

enum { FLAG_CAR_COLLISIONS = 1u << 0, FLAG_NO_START_HOLD = 1u << 1 };

static uint8_t world_flags(const rs_world_def *def)
{
    return (uint8_t)((def->car_collisions ? FLAG_CAR_COLLISIONS : 0u) |
                     (def->start_hold ? 0u : FLAG_NO_START_HOLD));
}

static uint64_t track_hash(const rs_world *world)
{
    return world->def.track ? rs_track_hash(world->def.track) : 0;
}

static void rs_snapshot_read_car(rs_car *car, rs_reader *r)
{
    for (int j = 0; j < 3; j++)
        car->pos[j] = rs_read_f64(r);
    for (int j = 0; j < 4; j++)
        car->q[j] = rs_read_f64(r);
    for (int j = 0; j < 3; j++)
        car->vel[j] = rs_read_f64(r);
    for (int j = 0; j < 3; j++)
        car->w[j] = rs_read_f64(r);
    for (int i = 0; i < 4; i++) {
        rs_wheel *wh = &car->wheel[i];
        wh->travel_m = rs_read_f64(r);
        wh->travel_v = rs_read_f64(r);
        wh->omega = rs_read_f64(r);
        wh->kappa = rs_read_f64(r);
        wh->tan_alpha = rs_read_f64(r);
    }
    car->omega_e = rs_read_f64(r);
    car->shift_timer_s = rs_read_f64(r);
    car->shift_cooldown_s = rs_read_f64(r);
    car->drive_prev_nm = rs_read_f64(r);
    car->gear = rs_read_i32(r);
    car->shift_target = rs_read_i32(r);
    car->auto_mode_gear = rs_read_i32(r);
    car->transmission = rs_read_u8(r);
    car->clutch_mode = rs_read_u8(r);
    car->prev_buttons = rs_read_u8(r);
    car->input.steer = (int16_t)rs_read_u16(r);
    car->input.throttle = rs_read_u8(r);
    car->input.brake = rs_read_u8(r);
    car->input.clutch = rs_read_u8(r);
    car->input.handbrake = rs_read_u8(r);
    car->input.gear = (int8_t)rs_read_u8(r);
    car->input.buttons = rs_read_u8(r);
}

/* Bytes before the race state: magic, format, physics version, tick,
 * tick_hz, substeps, track hash, laps, start_tick, world flags. */
#define HEADER_BYTES (4u + 4u + 4u + 8u + 4u + 4u + 8u + 4u + 8u + 1u)

/* The length of world's snapshot. Every part has a fixed size, so it follows
 * from the car count: no need to write everything once more just to measure
 * it (the predictor snapshots every tick it simulates, a room hashes its
 * world every hash_interval ticks, and that dry run was about a quarter of
 * the cost). */
static size_t snapshot_len(const rs_world *world)
{
    return HEADER_BYTES + rs_race_size() + 4u + (size_t)world->count * rs_snapshot_car_size();
}

void rs_snapshot_write_head(const rs_world *world, uint64_t tick, const rs_race *race,
                            uint32_t count, rs_writer *w)
{
    rs_write_u32(w, SNAPSHOT_MAGIC);
    rs_write_u32(w, SNAPSHOT_FORMAT);
    rs_write_u32(w, RS_PHYSICS_VERSION);
    rs_write_u64(w, tick);
    rs_write_u32(w, world->def.tick_hz);
    rs_write_u32(w, world->def.substeps);
    rs_write_u64(w, track_hash(world));
    rs_write_u32(w, world->def.laps);
    rs_write_u64(w, world->def.start_tick);
    rs_write_u8(w, world_flags(&world->def));
    rs_race_write(race, w);
    rs_write_u32(w, count);
}

size_t rs_world_snapshot(const rs_world *world, uint8_t *buf, size_t cap)
{
    size_t len = snapshot_len(world);
    if (!buf || len > cap)
        return len; /* a size query, or a buffer too small: left untouched */
    rs_writer w = rs_writer_init(buf, cap);
    rs_snapshot_write_head(world, world->tick, &world->race, world->count, &w);
    for (uint32_t c = 0; c < world->count; c++)
        rs_snapshot_write_slot(world, c, &w);
    return w.len;
}

bool rs_snapshot_cars(const uint8_t *snap, size_t len, uint32_t *cars)
{
    size_t count_at = HEADER_BYTES + rs_race_size();
    rs_reader r = rs_reader_init(snap, len);
    if (!snap || len < count_at + 4u || rs_read_u32(&r) != SNAPSHOT_MAGIC ||
        rs_read_u32(&r) != SNAPSHOT_FORMAT)
        return false;
    r.pos = count_at;
    uint32_t n = rs_read_u32(&r);
    if ((len - count_at - 4u) / rs_snapshot_car_size() != n ||
        (len - count_at - 4u) % rs_snapshot_car_size() != 0)
        return false;
    *cars = n;
    return true;
}

static int valid_car(const rs_car *car, uint32_t gears)
{
    int g_ok = car->gear >= -1 && car->gear <= (int32_t)gears && car->shift_target >= -1 &&
               car->shift_target <= (int32_t)gears && car->auto_mode_gear >= -1 &&
               car->auto_mode_gear <= 1;
    return g_ok && car->transmission <= RS_TRANSMISSION_MANUAL &&
           car->clutch_mode <= RS_CLUTCH_MANUAL && rs_car_finite(car);
}

rs_status rs_world_restore(rs_world *world, const uint8_t *buf, size_t len)
{
    if (!world || !buf)
        return RS_ERR_ARG;
    /* Pass 0 validates into a scratch car; pass 1 commits. The world is
     * untouched unless everything checks out. */
    for (int pass = 0; pass < 2; pass++) {
        rs_reader r = rs_reader_init(buf, len);
        if (rs_read_u32(&r) != SNAPSHOT_MAGIC || rs_read_u32(&r) != SNAPSHOT_FORMAT)
            return r.error ? RS_ERR_BUFFER : RS_ERR_FORMAT;
        if (rs_read_u32(&r) != RS_PHYSICS_VERSION)
            return RS_ERR_MISMATCH;
        uint64_t tick = rs_read_u64(&r);
        uint32_t hz = rs_read_u32(&r), sub = rs_read_u32(&r);
        uint64_t thash = rs_read_u64(&r);
        uint32_t laps = rs_read_u32(&r);
        uint64_t start = rs_read_u64(&r);
        uint8_t flags = rs_read_u8(&r);
        if (r.error)
            return RS_ERR_BUFFER;
        if (hz != world->def.tick_hz || sub != world->def.substeps || thash != track_hash(world) ||
            laps != world->def.laps || start != world->def.start_tick ||
            flags != world_flags(&world->def))
            return RS_ERR_MISMATCH;
        uint32_t count_at = (uint32_t)r.pos + (uint32_t)rs_race_size();
        rs_race race = world->race;
        rs_race_read(&race, &r);
        uint32_t count = rs_read_u32(&r);
        if (len < (size_t)count_at + 4u)
            return RS_ERR_BUFFER;
        if (count != world->count)
            return RS_ERR_MISMATCH;
        /* Every part has a fixed size: a wrong total is a truncated or
         * padded buffer, so a read error after this point is a bad value. */
        size_t expect = (size_t)count_at + 4u + (size_t)count * rs_snapshot_car_size();
        if (len < expect)
            return RS_ERR_BUFFER;
        if (len > expect || r.error)
            return RS_ERR_FORMAT;
        for (uint32_t c = 0; c < count; c++) {
            rs_car *dst = &world->cars[c];
            uint64_t hash = rs_read_u64(&r);
            if (r.error)
                return RS_ERR_BUFFER;
            if (hash != dst->params->hash)
                return RS_ERR_MISMATCH;
            rs_car tmp = *dst;
            rs_race_car rc;
            rs_collide_car cc;
            rs_snapshot_read_car(&tmp, &r);
            rs_race_car_read(&rc, &r);
            rs_collide_car_read(&cc, &r);
            if (r.error || !valid_car(&tmp, dst->params->def.gears))
                return RS_ERR_FORMAT;
            world->race_tmp[c] = rc;
            if (pass == 1) {
                *dst = tmp;
                world->race_cars[c] = rc;
                world->contact[c] = cc;
            }
        }
        if (r.pos != len)
            return RS_ERR_FORMAT;
        /* Positions and finishers must be ones the rules can produce;
         * checked on the copies before anything is committed. */
        if (pass == 0 &&
            !rs_race_consistent(&race, world->race_tmp, count, (uint16_t *)world->scratch))
            return RS_ERR_FORMAT;
        if (pass == 1) {
            world->tick = tick;
            world->race = race;
            world->broken = 0;
            world->events.count = 0;
        }
    }
    return RS_OK;
}

uint64_t rs_world_hash(const rs_world *world)
{
    size_t n = rs_world_snapshot(world, world->scratch, world->scratch_len);
    return rs_hash64(world->scratch, n, 0);
}

uint64_t rs_snapshot_hash(const uint8_t *snapshot, size_t len)
{
    return rs_hash64(snapshot, len, 0);
}

uint64_t rs_world_car_hash(const rs_world *world, rs_car_id id)
{
    if (!world || id.index1 == 0 || id.index1 > world->count)
        return 0;
    rs_writer w = rs_writer_init(world->scratch, world->scratch_len);
    rs_snapshot_write_slot(world, (uint32_t)id.index1 - 1, &w);
    return rs_hash64(world->scratch, w.len, 0);
}
