/*
 * The canonical car parameter block: what the server sends to clients
 * instead of JSON (docs/DETERMINISM.md, "Parameter blocks"), and whose hash identifies a car
 * definition in snapshots and lap records.
 *
 * Layout, all little-endian, every field of rs_car_params_data in
 * declaration order:
 *   "RSCP"  u32 block version  u32 RS_PHYSICS_VERSION
 *   name: u8 length (1..63) + bytes (no NUL)
 *   body: f64 mass, 6 x f64 inertia, f64 cg height, length, width, height
 *   2 x axle (front, rear): 16 x f64 in rs_axle_params order, then the tyre
 *       as rs_tire_params_write writes it
 *   f64 ackermann, air density, drag, front and rear downforce, cp height
 *   u32 curve points n, n x f64 rpm, n x f64 torque
 *   f64 idle, redline, engine inertia, engine brake, engine brake at idle
 *   f64 clutch max
 *   u32 gears g, g x f64 ratio, f64 reverse, final drive, efficiency,
 *       shift time, upshift rpm, downshift rpm
 *   u32 drive, u32 differential, f64 preload, power ramp, coast ramp
 *   f64 brake max, handbrake max
 * -0.0 is written as +0.0. A change to this layout bumps BLOCK_VERSION.
 *
 * Parameters are always rebuilt from their own block (rs_car_params_wrap),
 * so a server that loaded JSON holds bit for bit what its clients decode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carparams.h"
#include "json.h"
#include "racesim/base/err.h"

#define BLOCK_MAGIC "RSCP"
#define BLOCK_VERSION 1u

static const char *const axle_paths[2] = {"axles.front", "axles.rear"};

/* ------------------------------------------------------------------- writer */

static size_t name_len(const rs_car_params_data *def)
{
    const char *end = memchr(def->name, 0, sizeof def->name);
    return end ? (size_t)(end - def->name) : sizeof def->name - 1;
}

static void write_f64s(rs_writer *w, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        rs_write_f64(w, v[i]);
}

static void write_axle(rs_writer *w, const rs_axle_params *a)
{
    const double v[16] = {a->x_m,
                          a->track_m,
                          a->spring_n_m,
                          a->damper_bump_n_s_m,
                          a->damper_rebound_n_s_m,
                          a->bump_travel_m,
                          a->droop_travel_m,
                          a->bump_stop_n_m,
                          a->arb_n_m,
                          a->roll_centre_m,
                          a->unsprung_mass_kg,
                          a->wheel_inertia_kg_m2,
                          a->camber_rad,
                          a->toe_rad,
                          a->steer_max_rad,
                          a->brake_share};
    write_f64s(w, v, 16);
    rs_tire_params_write(&a->tire, w);
}

void rs_car_params_write(const rs_car_params_data *def, rs_writer *w)
{
    /* Counts are clamped to the arrays so that even unvalidated data never
     * makes this read out of bounds; wrap validates before writing. */
    uint32_t points =
        def->curve_points <= RS_MAX_CURVE_POINTS ? def->curve_points : RS_MAX_CURVE_POINTS;
    uint32_t gears = def->gears <= RS_MAX_GEARS ? def->gears : RS_MAX_GEARS;
    size_t n = name_len(def);

    rs_write_bytes(w, BLOCK_MAGIC, 4);
    rs_write_u32(w, BLOCK_VERSION);
    rs_write_u32(w, RS_PHYSICS_VERSION);
    rs_write_u8(w, (uint8_t)n);
    rs_write_bytes(w, def->name, n);

    rs_write_f64(w, def->mass_kg);
    write_f64s(w, def->inertia_kg_m2, 6);
    rs_write_f64(w, def->cg_height_m);
    rs_write_f64(w, def->length_m);
    rs_write_f64(w, def->width_m);
    rs_write_f64(w, def->height_m);
    write_axle(w, &def->axle[0]);
    write_axle(w, &def->axle[1]);
    rs_write_f64(w, def->ackermann);

    rs_write_f64(w, def->air_density_kg_m3);
    rs_write_f64(w, def->drag_cd_a_m2);
    rs_write_f64(w, def->lift_front_cl_a_m2);
    rs_write_f64(w, def->lift_rear_cl_a_m2);
    rs_write_f64(w, def->cp_height_m);

    rs_write_u32(w, points);
    write_f64s(w, def->curve_rpm, points);
    write_f64s(w, def->curve_nm, points);
    rs_write_f64(w, def->idle_rpm);
    rs_write_f64(w, def->redline_rpm);
    rs_write_f64(w, def->engine_inertia_kg_m2);
    rs_write_f64(w, def->engine_brake_nm);
    rs_write_f64(w, def->engine_brake_idle_nm);

    rs_write_f64(w, def->clutch_max_nm);
    rs_write_u32(w, gears);
    write_f64s(w, def->gear_ratio, gears);
    rs_write_f64(w, def->reverse_ratio);
    rs_write_f64(w, def->final_drive);
    rs_write_f64(w, def->driveline_efficiency);
    rs_write_f64(w, def->shift_time_s);
    rs_write_f64(w, def->upshift_rpm);
    rs_write_f64(w, def->downshift_rpm);

    rs_write_u32(w, def->drive);
    rs_write_u32(w, def->diff);
    rs_write_f64(w, def->diff_preload_nm);
    rs_write_f64(w, def->diff_power_ramp);
    rs_write_f64(w, def->diff_coast_ramp);

    rs_write_f64(w, def->brake_max_nm);
    rs_write_f64(w, def->handbrake_max_nm);
}

static size_t block_size(const rs_car_params_data *def)
{
    rs_writer w = rs_writer_init(NULL, 0);
    rs_car_params_write(def, &w);
    return w.len;
}

/* ------------------------------------------------------------------- reader */

/* A strict reader: the first problem wins and names the field it met
 * ("car block: field: what", rs_json_fail_at). */
typedef struct block_in {
    rs_reader r;
    rs_json_ctx fields;
} block_in;

/* Makes sure n more bytes are there; a short block is RS_ERR_BUFFER. */
static bool need(block_in *b, size_t n, const char *field)
{
    if (b->fields.status != RS_OK)
        return false;
    if (b->r.len - b->r.pos < n)
        return rs_json_fail_at(&b->fields, RS_ERR_BUFFER, field,
                               "truncated: the block ends at byte %zu, this field needs %zu",
                               b->r.len, b->r.pos + n);
    return true;
}

static uint32_t read_u32(block_in *b, const char *field)
{
    return need(b, 4, field) ? rs_read_u32(&b->r) : 0;
}

static void read_f64(block_in *b, double *out, const char *field)
{
    if (!need(b, 8, field))
        return;
    *out = rs_read_f64(&b->r);
    if (b->r.error)
        rs_json_fail_at(&b->fields, RS_ERR_FORMAT, field, "not a finite number");
    else if (*out == 0.0 && (b->r.buf[b->r.pos - 1] & 0x80))
        rs_json_fail_at(&b->fields, RS_ERR_FORMAT, field, "negative zero (not canonical)");
}

static void read_f64_at(block_in *b, double *out, const char *prefix, const char *key)
{
    char field[96];
    snprintf(field, sizeof field, "%s.%s", prefix, key);
    read_f64(b, out, field);
}

/* n doubles named path[i] (suffix, if any, is appended: "[i][0]"). */
static void read_f64_array(block_in *b, double *out, uint32_t n, const char *path,
                           const char *suffix)
{
    char field[96];
    for (uint32_t i = 0; i < n; i++) {
        snprintf(field, sizeof field, "%s[%lu]%s", path, (unsigned long)i, suffix);
        read_f64(b, &out[i], field);
    }
}

/* A count that must lie in min..max before arrays sized by it are read. */
static uint32_t read_count(block_in *b, uint32_t min, uint32_t max, const char *field)
{
    uint32_t n = read_u32(b, field);
    if (b->fields.status == RS_OK && (n < min || n > max)) {
        rs_json_fail_at(&b->fields, RS_ERR_FORMAT, field, "count %lu outside %lu..%lu",
                        (unsigned long)n, (unsigned long)min, (unsigned long)max);
        return 0;
    }
    return b->fields.status == RS_OK ? n : 0;
}

static void read_header(block_in *b)
{
    uint8_t magic[4];
    size_t have = b->r.len < 4 ? b->r.len : 4;
    if (have && memcmp(b->r.buf, BLOCK_MAGIC, have) != 0) {
        rs_json_fail_at(&b->fields, RS_ERR_FORMAT, "magic", "not a car parameter block");
        return;
    }
    if (!need(b, 4, "magic"))
        return;
    rs_read_bytes(&b->r, magic, 4);
    uint32_t version = read_u32(b, "block version");
    if (b->fields.status == RS_OK && version != BLOCK_VERSION) {
        rs_json_fail_at(&b->fields, RS_ERR_FORMAT, "block version", "%lu, this build reads %lu",
                        (unsigned long)version, (unsigned long)BLOCK_VERSION);
        return;
    }
    uint32_t physics = read_u32(b, "physics version");
    if (b->fields.status == RS_OK && physics != RS_PHYSICS_VERSION)
        rs_json_fail_at(&b->fields, RS_ERR_FORMAT, "physics version", "%lu, this build is %lu",
                        (unsigned long)physics, (unsigned long)RS_PHYSICS_VERSION);
}

static void read_name(block_in *b, rs_car_params_data *def)
{
    if (!need(b, 1, "name"))
        return;
    uint8_t n = rs_read_u8(&b->r);
    if (n == 0 || n >= RS_NAME_MAX) {
        rs_json_fail_at(&b->fields, RS_ERR_FORMAT, "name", "length %u outside 1..%d", (unsigned)n,
                        RS_NAME_MAX - 1);
        return;
    }
    if (!need(b, n, "name"))
        return;
    rs_read_bytes(&b->r, def->name, n);
    def->name[n] = 0;
    if (memchr(def->name, 0, n))
        rs_json_fail_at(&b->fields, RS_ERR_FORMAT, "name", "contains a NUL byte");
}

static size_t tire_block_size(void)
{
    rs_tire_params zero;
    memset(&zero, 0, sizeof zero);
    rs_writer w = rs_writer_init(NULL, 0);
    rs_tire_params_write(&zero, &w);
    return w.len;
}

static void read_axle(block_in *b, rs_axle_params *a, const char *path)
{
    read_f64_at(b, &a->x_m, path, "x_m");
    read_f64_at(b, &a->track_m, path, "track_m");
    read_f64_at(b, &a->spring_n_m, path, "spring_n_m");
    read_f64_at(b, &a->damper_bump_n_s_m, path, "damper_bump_n_s_m");
    read_f64_at(b, &a->damper_rebound_n_s_m, path, "damper_rebound_n_s_m");
    read_f64_at(b, &a->bump_travel_m, path, "bump_travel_m");
    read_f64_at(b, &a->droop_travel_m, path, "droop_travel_m");
    read_f64_at(b, &a->bump_stop_n_m, path, "bump_stop_n_m");
    read_f64_at(b, &a->arb_n_m, path, "arb_n_m");
    read_f64_at(b, &a->roll_centre_m, path, "roll_centre_m");
    read_f64_at(b, &a->unsprung_mass_kg, path, "unsprung_mass_kg");
    read_f64_at(b, &a->wheel_inertia_kg_m2, path, "wheel_inertia_kg_m2");
    read_f64_at(b, &a->camber_rad, path, "camber_rad");
    read_f64_at(b, &a->toe_rad, path, "toe_rad");
    read_f64_at(b, &a->steer_max_rad, path, "steer_max_rad");
    read_f64_at(b, &a->brake_share, path, "brake_share");

    char field[64];
    snprintf(field, sizeof field, "%s.tyre", path);
    /* The tyre's part has a fixed size: checking it first makes a short
     * block RS_ERR_BUFFER whatever the tyre reader reports. */
    if (!need(b, tire_block_size(), field))
        return;
    char msg[192];
    rs_status st = rs_tire_params_read(&b->r, &a->tire, msg, sizeof msg);
    /* Every byte was there, so a reader error means a NaN or Inf. */
    if (st == RS_ERR_BUFFER)
        st = RS_ERR_FORMAT;
    if (st != RS_OK)
        rs_json_fail_at(&b->fields, st, field, "%s", msg);
    else if (b->r.error)
        rs_json_fail_at(&b->fields, RS_ERR_FORMAT, field, "unreadable tyre parameters");
}

/* Decodes a block into def (zeroed here) without validating ranges. */
static rs_status decode(const uint8_t *block, size_t len, rs_car_params_data *def, char *err,
                        size_t err_len)
{
    block_in b = {rs_reader_init(block, len), rs_json_ctx_init("car block", err, err_len)};
    memset(def, 0, sizeof *def);

    read_header(&b);
    read_name(&b, def);

    read_f64(&b, &def->mass_kg, "body.mass_kg");
    read_f64_array(&b, def->inertia_kg_m2, 6, "body.inertia_kg_m2", "");
    read_f64(&b, &def->cg_height_m, "body.cg_height_m");
    read_f64(&b, &def->length_m, "body.length_m");
    read_f64(&b, &def->width_m, "body.width_m");
    read_f64(&b, &def->height_m, "body.height_m");
    read_axle(&b, &def->axle[0], axle_paths[0]);
    read_axle(&b, &def->axle[1], axle_paths[1]);
    read_f64(&b, &def->ackermann, "steering.ackermann");

    read_f64(&b, &def->air_density_kg_m3, "aero.air_density_kg_m3");
    read_f64(&b, &def->drag_cd_a_m2, "aero.drag_cd_a_m2");
    read_f64(&b, &def->lift_front_cl_a_m2, "aero.downforce_front_cl_a_m2");
    read_f64(&b, &def->lift_rear_cl_a_m2, "aero.downforce_rear_cl_a_m2");
    read_f64(&b, &def->cp_height_m, "aero.cp_height_m");

    def->curve_points = read_count(&b, 2, RS_MAX_CURVE_POINTS, "engine.torque_curve_rpm_nm");
    read_f64_array(&b, def->curve_rpm, def->curve_points, "engine.torque_curve_rpm_nm", "[0]");
    read_f64_array(&b, def->curve_nm, def->curve_points, "engine.torque_curve_rpm_nm", "[1]");
    read_f64(&b, &def->idle_rpm, "engine.idle_rpm");
    read_f64(&b, &def->redline_rpm, "engine.redline_rpm");
    read_f64(&b, &def->engine_inertia_kg_m2, "engine.inertia_kg_m2");
    read_f64(&b, &def->engine_brake_nm, "engine.engine_brake_nm");
    read_f64(&b, &def->engine_brake_idle_nm, "engine.engine_brake_idle_nm");

    read_f64(&b, &def->clutch_max_nm, "clutch.max_nm");
    def->gears = read_count(&b, 1, RS_MAX_GEARS, "gearbox.ratios");
    read_f64_array(&b, def->gear_ratio, def->gears, "gearbox.ratios", "");
    read_f64(&b, &def->reverse_ratio, "gearbox.reverse_ratio");
    read_f64(&b, &def->final_drive, "gearbox.final_drive");
    read_f64(&b, &def->driveline_efficiency, "gearbox.efficiency");
    read_f64(&b, &def->shift_time_s, "gearbox.shift_time_s");
    read_f64(&b, &def->upshift_rpm, "gearbox.upshift_rpm");
    read_f64(&b, &def->downshift_rpm, "gearbox.downshift_rpm");

    def->drive = read_u32(&b, "drive");
    def->diff = read_u32(&b, "differential.type");
    read_f64(&b, &def->diff_preload_nm, "differential.preload_nm");
    read_f64(&b, &def->diff_power_ramp, "differential.power_ramp");
    read_f64(&b, &def->diff_coast_ramp, "differential.coast_ramp");

    read_f64(&b, &def->brake_max_nm, "brakes.max_nm");
    read_f64(&b, &def->handbrake_max_nm, "brakes.handbrake_max_nm");

    if (b.fields.status == RS_OK && b.r.pos != len)
        rs_json_fail_at(&b.fields, RS_ERR_FORMAT, "end", "%zu trailing bytes", len - b.r.pos);
    return b.fields.status;
}

/* -------------------------------------------------------------- public API */

rs_status rs_car_params_wrap(const rs_car_params_data *def, rs_car_params **out)
{
    uint8_t *buf = NULL, *again = NULL;
    rs_car_params *p = NULL;
    rs_status st;
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    st = rs_car_params_validate(def, NULL, 0);
    if (st != RS_OK)
        return st;
    size_t size = block_size(def);
    buf = malloc(size);
    again = malloc(size);
    p = calloc(1, sizeof *p);
    if (!buf || !again || !p) {
        st = RS_ERR_NOMEM;
        goto fail;
    }
    rs_writer w = rs_writer_init(buf, size);
    rs_car_params_write(def, &w);
    if (w.overflow || w.nonfinite || w.len != size) {
        st = RS_ERR_RANGE;
        goto fail;
    }
    /* Keep what the block decodes to (and prove it encodes back to the same
     * bytes), so everybody simulates with identical values. */
    st = decode(buf, size, &p->def, NULL, 0);
    if (st != RS_OK)
        goto fail;
    rs_writer w2 = rs_writer_init(again, size);
    rs_car_params_write(&p->def, &w2);
    if (w2.overflow || w2.len != size || memcmp(buf, again, size) != 0) {
        st = RS_ERR_FORMAT;
        goto fail;
    }
    p->hash = rs_hash64(buf, size, 0);
    const rs_tire_params *wheel_tire[4] = {&p->def.axle[0].tire, &p->def.axle[0].tire,
                                           &p->def.axle[1].tire, &p->def.axle[1].tire};
    rs_tire_lanes_set(&p->tire_lanes, wheel_tire);
    rs_wheel_lanes_set(&p->wheel_lanes, &p->def);
    free(again);
    free(buf);
    *out = p;
    return RS_OK;

fail:
    free(p);
    free(again);
    free(buf);
    return st;
}

rs_status rs_car_params_rebuild(const rs_car_params_data *def, const rs_tune_rules *rules,
                                const char *what, rs_car_params **out, char *err,
                                size_t err_len)
{
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    /* wrap validates too, but says nothing: the validator's message names
     * the field. */
    char msg[256];
    rs_status st = rs_car_params_validate(def, msg, sizeof msg);
    if (st != RS_OK) {
        rs_errf(err, err_len, "%s is not valid: %s", what, msg);
        return st;
    }
    st = rs_car_params_wrap(def, out);
    if (st != RS_OK) {
        rs_errf(err, err_len, "cannot build %s (%s)", what, rs_status_str(st));
        return st;
    }
    (*out)->rules = *rules;
    return RS_OK;
}

/* RS_OK when params encode to exactly these bytes, else RS_ERR_FORMAT (or
 * RS_ERR_NOMEM). */
static rs_status check_canonical(const rs_car_params *params, const uint8_t *block, size_t len)
{
    if (rs_car_params_block(params, NULL, 0) != len)
        return RS_ERR_FORMAT;
    uint8_t *mine = malloc(len);
    if (!mine)
        return RS_ERR_NOMEM;
    rs_car_params_block(params, mine, len);
    bool same = memcmp(mine, block, len) == 0;
    free(mine);
    return same ? RS_OK : RS_ERR_FORMAT;
}

rs_status rs_car_params_from_block(const uint8_t *block, size_t len, rs_car_params **out,
                                   char *err, size_t err_len)
{
    rs_car_params_data *def = NULL;
    rs_status st;
    if (err && err_len)
        err[0] = 0;
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    if (!block && len) {
        rs_errf(err, err_len, "car block: no bytes");
        return RS_ERR_ARG;
    }
    def = malloc(sizeof *def);
    if (!def) {
        st = RS_ERR_NOMEM;
        goto fail;
    }
    st = decode(block, len, def, err, err_len);
    if (st != RS_OK)
        goto fail;
    char msg[224];
    st = rs_car_params_validate(def, msg, sizeof msg);
    if (st != RS_OK) {
        rs_errf(err, err_len, "car block: %s", msg);
        goto fail;
    }
    st = rs_car_params_wrap(def, out);
    if (st != RS_OK) {
        rs_errf(err, err_len, "car block: cannot rebuild the parameters (%s)",
                st == RS_ERR_NOMEM ? "out of memory" : "does not round-trip");
        goto fail;
    }
    /* Only the canonical encoding is accepted (no -0.0 anywhere, including
     * the tyres), so equal parameters always arrive as equal bytes. */
    st = check_canonical(*out, block, len);
    if (st != RS_OK) {
        rs_car_params_destroy(*out);
        *out = NULL;
        rs_errf(err, err_len, "car block: %s",
                st == RS_ERR_NOMEM ? "out of memory" : "not in canonical form");
    }
fail:
    free(def);
    return st;
}

size_t rs_car_params_block(const rs_car_params *params, uint8_t *buf, size_t cap)
{
    if (!params)
        return 0;
    size_t size = block_size(&params->def);
    if (buf && cap >= size) {
        rs_writer w = rs_writer_init(buf, cap);
        rs_car_params_write(&params->def, &w);
    }
    return size;
}

uint64_t rs_car_params_hash(const rs_car_params *params) { return params ? params->hash : 0; }
