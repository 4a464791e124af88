/*
 * Lap proofs: a short AI race on the oval records a proof for every lap,
 * each re-simulates bit for bit, and a tampered input, lap time or end hash
 * is named in the verdict; truncated proofs are rejected at every length.
 * Cars that join a session during a lap are in its proof and re-created at
 * their tick; a version 1 proof recorded before that existed still
 * verifies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h> /* the tests' own geometry */

#include "racesim/base/file.h"
#include "racesim/driver.h"
#include "racesim/lapproof.h"
#include "racesim/physics.h"
#include "racesim/track.h"
#include "test_fixtures.h"

#define CARS 2
#define MAX_PROOFS 8

/* Proof bytes (racesim/lapproof.h, version 2) up to the car hashes. */
#define HEADER_BYTES (4 + 4 + 4 + 4 + 4 + 4 + 8 + 1 + 1 + 16 * RS_SURFACE_COUNT + 8 + 4)
/* A join: u64 tick, u16 car, f64 pos[3], yaw, speed, i8 gear, u8 transmission,
 * u8 clutch mode. */
#define JOIN_BYTES (8 + 2 + 5 * 8 + 3)
enum { JOIN_TICK = 0, JOIN_CAR = 8, JOIN_POS = 10, JOIN_SPEED = 42, JOIN_GEAR = 50 };
#define START_HOLD_AT (4 + 4 + 4 + 4 + 4 + 4 + 8 + 1) /* after car_collisions */

typedef struct race {
    rs_car_params *car;
    rs_track *track;
    const rs_car_params *cars[CARS];
    uint8_t *proof[MAX_PROOFS];
    size_t len[MAX_PROOFS];
    uint32_t proofs;
    uint32_t laps_seen;
    uint32_t full; /* laps too long for the recorder */
} race;

/* Two AI cars, two laps of the oval, a proof taken for every lap. */
static void run_race(race *r, uint32_t max_lap_ticks)
{
    memset(r, 0, sizeof *r);
    r->car = fixture_car("formula");
    r->track = fixture_track("oval");
    /* max_cars stays 16: the verifier builds a world of 2 */
    rs_world *w = fixture_world(r->track, 2, 30, true);
    rs_racing_line *line = NULL;
    assert_int_equal(rs_racing_line_build(r->track, r->car, NULL, &line), RS_OK);
    rs_driver *drv[CARS];
    rs_car_id id[CARS];
    for (uint32_t i = 0; i < CARS; i++) {
        rs_car_spawn sp;
        assert_true(rs_track_grid_slot(r->track, i, &sp));
        assert_int_equal(rs_world_add_car(w, r->car, &sp, &id[i]), RS_OK);
        rs_driver_options o = rs_driver_options_default();
        o.seed = i + 1;
        assert_int_equal(rs_driver_create(line, &o, &drv[i]), RS_OK);
        r->cars[i] = r->car;
    }
    rs_lap_recorder *rec = NULL;
    assert_int_equal(rs_lap_recorder_create(w, max_lap_ticks, &rec), RS_OK);
    for (int t = 0; t < 60 * 120 && !rs_world_race_over(w); t++) {
        for (uint32_t i = 0; i < CARS; i++) {
            rs_input in = rs_driver_update(drv[i], w, id[i]);
            rs_world_set_input(w, id[i], &in);
        }
        assert_int_equal(rs_lap_recorder_before_step(rec, w), RS_OK);
        assert_int_equal(rs_world_step(w), RS_OK);
        size_t n;
        const rs_event *ev = rs_world_events(w, &n);
        for (size_t k = 0; k < n; k++) {
            if (ev[k].type != RS_EVENT_LAP)
                continue;
            r->laps_seen++;
            uint8_t *p = NULL;
            size_t len = 0;
            rs_status st = rs_lap_recorder_take(rec, w, (rs_car_id){ev[k].car}, &p, &len);
            if (st == RS_ERR_FULL) {
                r->full++;
                continue;
            }
            assert_int_equal(st, RS_OK);
            assert_true(r->proofs < MAX_PROOFS);
            r->proof[r->proofs] = p;
            r->len[r->proofs++] = len;
        }
    }
    rs_lap_recorder_destroy(rec);
    for (uint32_t i = 0; i < CARS; i++)
        rs_driver_destroy(drv[i]);
    rs_racing_line_destroy(line);
    rs_world_destroy(w);
}

static void free_race(race *r)
{
    for (uint32_t i = 0; i < r->proofs; i++)
        free(r->proof[i]);
    rs_track_destroy(r->track);
    rs_car_params_destroy(r->car);
}

/* The race the tests read (proofs of laps up to a minute long), run once
 * for the group; every test gets it as its state. */
static int race_once(void **state)
{
    static race r;
    run_race(&r, 60 * 60);
    *state = &r;
    return 0;
}

static int race_free(void **state)
{
    free_race(*state);
    return 0;
}

/* The race's first proof (there must be one); *len its size. */
static const uint8_t *first_proof(const race *r, size_t *len)
{
    assert_true(r->proofs >= 1);
    *len = r->len[0];
    return r->proof[0];
}

static rs_lap_verdict verify(const race *r, const uint8_t *p, size_t len, char *msg,
                             size_t msg_len)
{
    rs_lap_verdict v;
    assert_int_equal(rs_lap_proof_verify(p, len, r->cars, CARS, r->track, &v, msg, msg_len),
                     RS_OK);
    return v;
}

static void test_every_lap_of_a_race_re_simulates_bit_for_bit(void **state)
{
    const race *r = *state;
    assert_int_equal(r->laps_seen, 2 * CARS);
    assert_int_equal(r->proofs, 2 * CARS);
    for (uint32_t i = 0; i < r->proofs; i++) {
        rs_lap_proof_info info;
        assert_int_equal(rs_lap_proof_info_read(r->proof[i], r->len[i], &info), RS_OK);
        char msg[512];
        rs_lap_verdict v = verify(r, r->proof[i], r->len[i], msg, sizeof msg);
        print_message("car %u lap %u: %.3f s, %u ticks, %zu bytes: %s\n", info.car, info.lap,
                      (double)info.lap_time_us / 1e6, info.tick_count, r->len[i], msg);
        assert_int_equal(v.code, RS_LAP_PROOF_OK);
        assert_string_equal(msg, "ok");
        assert_true(v.simulated_time_us == info.lap_time_us);
        assert_true(v.simulated_hash == info.end_car_hash);
        uint64_t h;
        assert_int_equal(rs_lap_proof_car_hash(r->proof[i], r->len[i], 0, &h), RS_OK);
        assert_true(h == rs_car_params_hash(r->car));
    }
}

static void test_tampering_is_named_in_the_verdict(void **state)
{
    const race *r = *state;
    size_t len;
    const uint8_t *good = first_proof(r, &len);
    rs_lap_proof_info info;
    assert_int_equal(rs_lap_proof_info_read(good, len, &info), RS_OK);
    uint8_t *p = malloc(len);
    assert_non_null(p);
    char msg[1024];

    /* The lap time field sits after the fixed header and the car hashes. */
    size_t time_at = HEADER_BYTES + 8 * CARS + 2 + 4 + 1 + 1;
    memcpy(p, good, len);
    p[time_at] ^= 1;
    rs_lap_verdict v = verify(r, p, len, msg, sizeof msg);
    print_message("lap time tampered: %s\n", msg);
    assert_int_equal(v.code, RS_LAP_PROOF_DIFFERS);
    assert_int_equal(v.diffs, RS_LAP_DIFF_TIME);
    assert_non_null(strstr(msg, "lap time"));
    assert_non_null(strstr(msg, "recorded"));

    /* The end hash follows the lap end time and the sectors. */
    size_t hash_at = time_at + 8 + 8 + 4 + 8 * (size_t)info.sector_count;
    memcpy(p, good, len);
    p[hash_at + 3] ^= 0x10;
    v = verify(r, p, len, msg, sizeof msg);
    print_message("end hash tampered: %s\n", msg);
    assert_int_equal(v.code, RS_LAP_PROOF_DIFFERS);
    assert_int_equal(v.diffs, RS_LAP_DIFF_HASH);
    assert_non_null(strstr(msg, "end car hash"));

    /* One throttle byte of the lapping car, a third of the way into the log. */
    size_t log_at = len - (size_t)info.tick_count * CARS * 8;
    size_t at = log_at + ((size_t)(info.tick_count / 3) * CARS + (info.car - 1u)) * 8 + 2;
    memcpy(p, good, len);
    p[at] = (uint8_t)(p[at] > 128 ? 0 : 255);
    v = verify(r, p, len, msg, sizeof msg);
    print_message("input tampered: %s\n", msg);
    assert_true(v.code == RS_LAP_PROOF_DIFFERS || v.code == RS_LAP_PROOF_NO_LAP);
    assert_true(v.code != RS_LAP_PROOF_DIFFERS || (v.diffs & RS_LAP_DIFF_HASH));

    /* The wrong cars are refused before anything is simulated. */
    const rs_car_params *none[CARS] = {r->car, NULL};
    assert_int_equal(rs_lap_proof_verify(good, len, none, CARS, r->track, &v, msg, sizeof msg),
                     RS_OK);
    assert_int_equal(v.code, RS_LAP_PROOF_WRONG_CARS);
    assert_int_equal(rs_lap_proof_verify(good, len, r->cars, CARS, NULL, &v, msg, sizeof msg),
                     RS_OK);
    assert_int_equal(v.code, RS_LAP_PROOF_WRONG_TRACK);
    free(p);
}

static void test_damaged_proofs_are_rejected_at_every_length(void **state)
{
    const race *r = *state;
    size_t len;
    const uint8_t *good = first_proof(r, &len);
    rs_lap_proof_info info;
    for (size_t n = 0; n < len; n++)
        assert_int_not_equal(rs_lap_proof_info_read(good, n, &info), RS_OK);
    rs_lap_verdict v;
    char msg[256];
    for (size_t n = 0; n < len; n += len / 7 + 1)
        assert_int_not_equal(
            rs_lap_proof_verify(good, n, r->cars, CARS, r->track, &v, msg, sizeof msg), RS_OK);
    /* One byte too many, a wrong magic, an unknown version. */
    uint8_t *p = malloc(len + 1);
    assert_non_null(p);
    memcpy(p, good, len);
    p[len] = 0;
    assert_int_equal(rs_lap_proof_info_read(p, len + 1, &info), RS_ERR_FORMAT);
    p[0] = 'X';
    assert_int_equal(rs_lap_proof_info_read(p, len, &info), RS_ERR_FORMAT);
    memcpy(p, good, len);
    p[4] = 3;
    assert_int_equal(rs_lap_proof_info_read(p, len, &info), RS_ERR_FORMAT);
    free(p);
}

/* Runs a race of its own. */
static void test_a_lap_longer_than_the_recorder_holds_gets_no_proof(void **state)
{
    (void)state;
    race r;
    run_race(&r, 60); /* one second: no lap of the oval fits */
    assert_int_equal(r.laps_seen, 2 * CARS);
    assert_int_equal(r.proofs, 0);
    assert_int_equal(r.full, 2 * CARS);
    free_race(&r);
}

/* ------------------------------------------------------------ cars joining */

/* A practice session on the oval: car 1 (formula, AI) alone; ten seconds
 * into its first lap car 2 (formula, AI, told to keep its foot down for two
 * seconds) joins 6.5 m behind it (0.9 m between them), 8 m/s faster and in
 * its gear, and runs into it, so car 1's lap depends on how car 2 joined;
 * then car 3 (a C5 with the manual gearbox and clutch, in second, held on
 * its brakes) joins far off the track. The proof of car 1's lap. */
#define JOIN_CARS 3

typedef struct joins_race {
    rs_car_params *formula, *c5;
    rs_track *track;
    const rs_car_params *cars[JOIN_CARS];
    uint64_t join_tick[JOIN_CARS]; /* [1], [2]: the ticks cars 2 and 3 joined before */
    uint32_t car_hits;             /* car 1's, when its lap ended */
    uint8_t *proof;
    size_t len;
} joins_race;

static rs_car_spawn behind(const rs_car_state *s, double gap_m, double faster_m_s)
{
    rs_car_spawn sp = rs_car_spawn_default();
    double c = cos(s->yaw_rad), sn = sin(s->yaw_rad);
    sp.pos_m[0] = s->pos_m[0] - gap_m * c;
    sp.pos_m[1] = s->pos_m[1] - gap_m * sn;
    sp.yaw_rad = s->yaw_rad;
    sp.speed_m_s = s->forward_speed_m_s + faster_m_s;
    sp.gear = (int8_t)s->gear;
    return sp;
}

static void run_joins_race(joins_race *r)
{
    memset(r, 0, sizeof *r);
    r->formula = fixture_car("formula");
    r->c5 = fixture_car("c5");
    r->track = fixture_track("oval");
    r->cars[0] = r->cars[1] = r->formula;
    r->cars[2] = r->c5;
    rs_world *w = fixture_world(r->track, 0, 0, true); /* an open session */
    rs_racing_line *line = NULL;
    assert_int_equal(rs_racing_line_build(r->track, r->formula, NULL, &line), RS_OK);
    rs_driver *drv[2] = {NULL, NULL};
    rs_driver_options o = rs_driver_options_default();
    rs_car_spawn sp;
    assert_true(rs_track_grid_slot(r->track, 0, &sp));
    assert_int_equal(rs_world_add_car(w, r->formula, &sp, NULL), RS_OK);
    assert_int_equal(rs_driver_create(line, &o, &drv[0]), RS_OK);
    rs_lap_recorder *rec = NULL;
    assert_int_equal(rs_lap_recorder_create(w, 60 * 60, &rec), RS_OK);
    uint64_t lap_start = 0, push_until = 0;
    for (int t = 0; t < 60 * 120 && !r->proof; t++) {
        uint64_t tick = rs_world_tick(w);
        rs_race_car_state rs;
        assert_int_equal(rs_world_race_state(w, (rs_car_id){1}, &rs), RS_OK);
        if (!lap_start && rs.status == RS_RACE_RACING)
            lap_start = tick;
        /* Cars join between ticks: before the tick's inputs and record. */
        if (lap_start && tick == lap_start + 600) {
            rs_car_state s1;
            assert_int_equal(rs_world_car_state(w, (rs_car_id){1}, &s1), RS_OK);
            rs_car_spawn b = behind(&s1, 6.5, 8.0);
            assert_int_equal(rs_world_add_car(w, r->formula, &b, NULL), RS_OK);
            o.seed = 2;
            assert_int_equal(rs_driver_create(line, &o, &drv[1]), RS_OK);
            r->join_tick[1] = tick;
            push_until = tick + 120;
        }
        if (lap_start && tick == lap_start + 900) {
            assert_true(rs_track_grid_slot(r->track, 2, &sp));
            sp.pos_m[0] += 300.0 * sin(sp.yaw_rad); /* 300 m to the right */
            sp.pos_m[1] -= 300.0 * cos(sp.yaw_rad);
            sp.gear = 2;
            sp.transmission = RS_TRANSMISSION_MANUAL;
            sp.clutch_mode = RS_CLUTCH_MANUAL;
            assert_int_equal(rs_world_add_car(w, r->c5, &sp, NULL), RS_OK);
            rs_input hold = rs_input_quantise(0.0, 0.0, 1.0, 0.0, 0.0);
            assert_int_equal(rs_world_set_input(w, (rs_car_id){3}, &hold), RS_OK);
            r->join_tick[2] = tick;
        }
        for (uint16_t c = 1; c <= 2 && c <= rs_world_car_count(w); c++) {
            rs_input in = rs_driver_update(drv[c - 1], w, (rs_car_id){c});
            if (c == 2 && tick < push_until)
                in.throttle = RS_PEDAL_MAX, in.brake = 0;
            rs_world_set_input(w, (rs_car_id){c}, &in);
        }
        assert_int_equal(rs_lap_recorder_before_step(rec, w), RS_OK);
        assert_int_equal(rs_world_step(w), RS_OK);
        size_t n;
        const rs_event *ev = rs_world_events(w, &n);
        for (size_t k = 0; k < n; k++)
            if (ev[k].type == RS_EVENT_LAP && ev[k].car == 1 && ev[k].lap == 1) {
                assert_int_equal(rs_world_car_count(w), JOIN_CARS);
                assert_int_equal(rs_lap_recorder_take(rec, w, (rs_car_id){1}, &r->proof, &r->len),
                                 RS_OK);
                assert_int_equal(rs_world_race_state(w, (rs_car_id){1}, &rs), RS_OK);
                r->car_hits = rs.car_hits;
            }
    }
    assert_non_null(r->proof);
    rs_lap_recorder_destroy(rec);
    rs_driver_destroy(drv[0]);
    rs_driver_destroy(drv[1]);
    rs_racing_line_destroy(line);
    rs_world_destroy(w);
}

static int joins_race_once(void **state)
{
    static joins_race r;
    run_joins_race(&r);
    *state = &r;
    return 0;
}

static int joins_race_free(void **state)
{
    joins_race *r = *state;
    free(r->proof);
    rs_track_destroy(r->track);
    rs_car_params_destroy(r->c5);
    rs_car_params_destroy(r->formula);
    return 0;
}

static rs_lap_verdict verify_joins(const joins_race *r, const uint8_t *p, size_t len, char *msg,
                                   size_t msg_len)
{
    rs_lap_verdict v;
    assert_int_equal(rs_lap_proof_verify(p, len, r->cars, JOIN_CARS, r->track, &v, msg, msg_len),
                     RS_OK);
    return v;
}

/* Where a version 2 proof's parts are, from its header. */
typedef struct layout {
    size_t joins_at; /* the first join */
    size_t log_at;   /* the input log */
} layout;

static layout layout_of(const uint8_t *p, size_t len)
{
    rs_lap_proof_info info;
    assert_int_equal(rs_lap_proof_info_read(p, len, &info), RS_OK);
    size_t snap_len_at = HEADER_BYTES + 8 * (size_t)info.car_count + 2 + 4 + 1 + 1 + 8 + 8 + 4 +
                         8 * (size_t)info.sector_count + 8 + 8 + 4;
    uint32_t snap_len = (uint32_t)p[snap_len_at] | (uint32_t)p[snap_len_at + 1] << 8 |
                        (uint32_t)p[snap_len_at + 2] << 16 | (uint32_t)p[snap_len_at + 3] << 24;
    layout l;
    l.joins_at = snap_len_at + 4 + snap_len + 4;
    l.log_at = l.joins_at + (size_t)info.join_count * JOIN_BYTES;
    return l;
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int k = 0; k < 8; k++)
        v |= (uint64_t)p[k] << (8 * k);
    return v;
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

static void put_f64(uint8_t *p, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_u64(p, bits);
}

static double get_f64(const uint8_t *p)
{
    uint64_t bits = get_u64(p);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static void test_a_lap_during_which_cars_joined_re_simulates(void **state)
{
    const joins_race *r = *state;
    rs_lap_proof_info info;
    assert_int_equal(rs_lap_proof_info_read(r->proof, r->len, &info), RS_OK);
    assert_int_equal(info.version, RS_LAP_PROOF_VERSION);
    assert_int_equal(info.car, 1);
    assert_int_equal(info.car_count, JOIN_CARS);
    assert_int_equal(info.join_count, 2);
    assert_true(info.start_hold);
    uint64_t h;
    for (uint32_t i = 0; i < JOIN_CARS; i++) {
        assert_int_equal(rs_lap_proof_car_hash(r->proof, r->len, i, &h), RS_OK);
        assert_true(h == rs_car_params_hash(r->cars[i]));
    }
    /* The joins as they happened. */
    layout l = layout_of(r->proof, r->len);
    for (uint32_t j = 0; j < 2; j++) {
        const uint8_t *at = r->proof + l.joins_at + j * JOIN_BYTES;
        assert_true(get_u64(at + JOIN_TICK) == r->join_tick[j + 1]);
        assert_int_equal(at[JOIN_CAR], j + 2);
        assert_true(r->join_tick[j + 1] > info.first_tick);
    }
    assert_int_equal((int8_t)r->proof[l.joins_at + JOIN_BYTES + JOIN_GEAR], 2);
    assert_int_equal(r->proof[l.joins_at + JOIN_BYTES + JOIN_GEAR + 1], RS_TRANSMISSION_MANUAL);
    assert_int_equal(r->proof[l.joins_at + JOIN_BYTES + JOIN_GEAR + 2], RS_CLUTCH_MANUAL);
    /* One input per car present: car 1 every tick, car 2 from its join. */
    uint64_t last = info.first_tick + info.tick_count - 1;
    size_t inputs = info.tick_count + (last - r->join_tick[1] + 1) + (last - r->join_tick[2] + 1);
    assert_int_equal(r->len - l.log_at, 8 * inputs);
    /* Car 2 ran into car 1, so car 1's lap depends on how car 2 joined. */
    print_message("car 1's lap %.3f s (%u ticks from tick %llu), cars 2 and 3 joined before "
                  "ticks %llu and %llu, %u car hits, %zu bytes\n",
                  (double)info.lap_time_us / 1e6, info.tick_count,
                  (unsigned long long)info.first_tick, (unsigned long long)r->join_tick[1],
                  (unsigned long long)r->join_tick[2], r->car_hits, r->len);
    assert_true(r->car_hits > 0);

    char msg[512];
    rs_lap_verdict v = verify_joins(r, r->proof, r->len, msg, sizeof msg);
    print_message("verdict: %s\n", msg);
    assert_int_equal(v.code, RS_LAP_PROOF_OK);
    assert_true(v.simulated_hash == info.end_car_hash);

    /* Tick by tick, the joined cars appear at their ticks. */
    rs_lap_replay *rep = NULL;
    assert_int_equal(rs_lap_replay_open(r->proof, r->len, r->cars, JOIN_CARS, r->track, &rep, msg,
                                        sizeof msg),
                     RS_OK);
    while (!rs_lap_replay_done(rep)) {
        const rs_world *w = rs_lap_replay_world(rep);
        uint64_t tick = rs_world_tick(w);
        uint32_t want = 1 + (tick >= r->join_tick[1]) + (tick >= r->join_tick[2]);
        assert_int_equal(rs_lap_replay_step(rep), RS_OK);
        if (!rs_lap_replay_done(rep))
            assert_int_equal(rs_world_car_count(rs_lap_replay_world(rep)), want);
    }
    rs_lap_replay_destroy(rep);

    /* The wrong car for a joined slot is refused before anything runs. */
    const rs_car_params *wrong[JOIN_CARS] = {r->formula, r->c5, r->c5};
    assert_int_equal(rs_lap_proof_verify(r->proof, r->len, wrong, JOIN_CARS, r->track, &v, msg,
                                         sizeof msg),
                     RS_OK);
    assert_int_equal(v.code, RS_LAP_PROOF_WRONG_CARS);
}

static void test_a_tampered_join_makes_the_lap_differ(void **state)
{
    const joins_race *r = *state;
    layout l = layout_of(r->proof, r->len);
    rs_lap_proof_info info;
    assert_int_equal(rs_lap_proof_info_read(r->proof, r->len, &info), RS_OK);
    uint8_t *p = malloc(r->len);
    assert_non_null(p);
    char msg[1024];
    uint8_t *join2 = p + l.joins_at; /* car 2's join */

    /* Car 2 joins 0.5 m/s faster: it hits car 1 differently. */
    memcpy(p, r->proof, r->len);
    put_f64(join2 + JOIN_SPEED, get_f64(join2 + JOIN_SPEED) + 0.5);
    rs_lap_verdict v = verify_joins(r, p, r->len, msg, sizeof msg);
    print_message("join speed tampered: %s\n", msg);
    assert_true(v.code == RS_LAP_PROOF_DIFFERS || v.code == RS_LAP_PROOF_NO_LAP);
    assert_true(v.code != RS_LAP_PROOF_DIFFERS || (v.diffs & RS_LAP_DIFF_HASH));

    /* ... or 20 cm further left. */
    memcpy(p, r->proof, r->len);
    put_f64(join2 + JOIN_POS + 8, get_f64(join2 + JOIN_POS + 8) + 0.2);
    v = verify_joins(r, p, r->len, msg, sizeof msg);
    print_message("join position tampered: %s\n", msg);
    assert_true(v.code == RS_LAP_PROOF_DIFFERS || v.code == RS_LAP_PROOF_NO_LAP);

    /* ... or a tick later, its input of the tick it joined before taken out
     * of the log so that the proof still adds up. */
    uint64_t j = r->join_tick[1];
    size_t drop = l.log_at + 8 * (size_t)(j - info.first_tick) + 8; /* car 2's first input */
    memcpy(p, r->proof, drop);
    memcpy(p + drop, r->proof + drop + 8, r->len - drop - 8);
    put_u64(join2 + JOIN_TICK, j + 1);
    v = verify_joins(r, p, r->len - 8, msg, sizeof msg);
    print_message("join tick tampered: %s\n", msg);
    assert_true(v.code == RS_LAP_PROOF_DIFFERS || v.code == RS_LAP_PROOF_NO_LAP);
    /* Without fixing the log it does not even add up. */
    memcpy(p, r->proof, r->len);
    put_u64(join2 + JOIN_TICK, j + 1);
    assert_int_equal(rs_lap_proof_info_read(p, r->len, &info), RS_ERR_FORMAT);
    free(p);
}

/* Every count, range and consistency rule of the joins is checked on
 * read; truncated and padded proofs are refused. */
static void test_a_proof_with_joins_is_read_strictly(void **state)
{
    const joins_race *r = *state;
    size_t len = r->len;
    layout l = layout_of(r->proof, len);
    rs_lap_proof_info info;
    assert_int_equal(rs_lap_proof_info_read(r->proof, len, &info), RS_OK);
    uint8_t *p = malloc(len + 1);
    assert_non_null(p);
    uint8_t *join3 = p + l.joins_at + JOIN_BYTES; /* car 3's join */
    static const struct {
        size_t at;
        uint8_t value;
        rs_status want;
    } bad[] = {
        {JOIN_CAR, 4, RS_ERR_RANGE},             /* not the car after car 2 */
        {JOIN_CAR, 2, RS_ERR_RANGE},
        {JOIN_GEAR, 11, RS_ERR_RANGE},           /* gear -1..10 */
        {JOIN_GEAR, 0xfe, RS_ERR_RANGE},         /* -2 */
        {JOIN_GEAR + 1, 2, RS_ERR_RANGE},        /* transmission 0..1 */
        {JOIN_GEAR + 2, 2, RS_ERR_RANGE},        /* clutch mode 0..1 */
        {JOIN_POS + 16 + 7, 0x80, RS_ERR_FORMAT}, /* z = -0.0: not canonical */
        {JOIN_POS + 7, 0x7f, RS_ERR_RANGE},      /* x: Inf or NaN */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(p, r->proof, len);
        if (bad[i].at == JOIN_POS + 16 + 7)
            assert_true(get_f64(join3 + JOIN_POS + 16) == 0.0); /* a grid spawn's z */
        if (bad[i].at == JOIN_POS + 7)
            join3[JOIN_POS + 6] = 0xff;
        join3[bad[i].at] = bad[i].value;
        assert_int_equal(rs_lap_proof_info_read(p, len, &info), bad[i].want);
    }
    /* Join ticks: inside the log (after its first tick), in order. */
    uint64_t first = info.first_tick, last = info.first_tick + info.tick_count - 1;
    const uint64_t ticks[3] = {first, last + 1, r->join_tick[1] - 1};
    for (int i = 0; i < 3; i++) {
        memcpy(p, r->proof, len);
        put_u64(join3 + JOIN_TICK, ticks[i]);
        assert_int_not_equal(rs_lap_proof_info_read(p, len, &info), RS_OK);
    }
    /* start_hold is 0 or 1, and the snapshot must agree with it. */
    memcpy(p, r->proof, len);
    p[START_HOLD_AT] = 2;
    assert_int_equal(rs_lap_proof_info_read(p, len, &info), RS_ERR_RANGE);
    p[START_HOLD_AT] = 0;
    assert_int_equal(rs_lap_proof_info_read(p, len, &info), RS_OK);
    assert_false(info.start_hold);
    char msg[256];
    rs_lap_verdict v = verify_joins(r, p, len, msg, sizeof msg);
    print_message("start_hold tampered: %s\n", msg);
    assert_int_equal(v.code, RS_LAP_PROOF_BAD_SNAPSHOT);
    /* One join fewer: the snapshot's own car count disagrees. */
    memcpy(p, r->proof, len);
    p[l.joins_at - 4] = 1;
    assert_int_not_equal(rs_lap_proof_info_read(p, len, &info), RS_OK);
    /* Truncated at every length, or one byte too long. */
    for (size_t n = 0; n < len; n++)
        assert_int_not_equal(rs_lap_proof_info_read(r->proof, n, &info), RS_OK);
    memcpy(p, r->proof, len);
    p[len] = 0;
    assert_int_equal(rs_lap_proof_info_read(p, len + 1, &info), RS_ERR_FORMAT);
    free(p);
}

/* A car added after rs_lap_recorder_before_step and before the step is in
 * that step but not in the log: the lap in progress loses its proof (and
 * the take right after the step is refused); the next lap has one again,
 * with the car in its snapshot. */
static void test_a_car_added_inside_a_tick_costs_the_lap_in_progress_its_proof(void **state)
{
    (void)state;
    rs_car_params *car = fixture_car("formula");
    rs_track *track = fixture_track("oval");
    rs_world *w = fixture_world(track, 0, 0, true);
    rs_racing_line *line = NULL;
    assert_int_equal(rs_racing_line_build(track, car, NULL, &line), RS_OK);
    rs_driver *drv = NULL;
    assert_int_equal(rs_driver_create(line, NULL, &drv), RS_OK);
    rs_car_spawn sp;
    assert_true(rs_track_grid_slot(track, 0, &sp));
    assert_int_equal(rs_world_add_car(w, car, &sp, NULL), RS_OK);
    rs_lap_recorder *rec = NULL;
    assert_int_equal(rs_lap_recorder_create(w, 60 * 60, &rec), RS_OK);
    int laps = 0;
    for (int t = 0; t < 60 * 120 && laps < 2; t++) {
        rs_input in = rs_driver_update(drv, w, (rs_car_id){1});
        rs_world_set_input(w, (rs_car_id){1}, &in);
        assert_int_equal(rs_lap_recorder_before_step(rec, w), RS_OK);
        bool late = t == 60 * 10;
        if (late) {
            rs_car_spawn far = sp;
            far.pos_m[0] += 300.0 * sin(sp.yaw_rad);
            far.pos_m[1] -= 300.0 * cos(sp.yaw_rad);
            assert_int_equal(rs_world_add_car(w, car, &far, NULL), RS_OK);
        }
        assert_int_equal(rs_world_step(w), RS_OK);
        uint8_t *p = NULL;
        size_t len = 0;
        if (late)
            assert_int_equal(rs_lap_recorder_take(rec, w, (rs_car_id){1}, &p, &len), RS_ERR_ARG);
        size_t n;
        const rs_event *ev = rs_world_events(w, &n);
        for (size_t k = 0; k < n; k++) {
            if (ev[k].type != RS_EVENT_LAP || ev[k].car != 1)
                continue;
            laps++;
            rs_status st = rs_lap_recorder_take(rec, w, (rs_car_id){1}, &p, &len);
            assert_int_equal(st, laps == 1 ? RS_ERR_MISSING : RS_OK);
            if (st != RS_OK)
                continue;
            rs_lap_proof_info info;
            assert_int_equal(rs_lap_proof_info_read(p, len, &info), RS_OK);
            assert_int_equal(info.car_count, 2);
            assert_int_equal(info.join_count, 0);
            const rs_car_params *cars[2] = {car, car};
            rs_lap_verdict v;
            char msg[256];
            assert_int_equal(rs_lap_proof_verify(p, len, cars, 2, track, &v, msg, sizeof msg),
                             RS_OK);
            assert_int_equal(v.code, RS_LAP_PROOF_OK);
            free(p);
        }
    }
    assert_int_equal(laps, 2);
    rs_lap_recorder_destroy(rec);
    rs_driver_destroy(drv);
    rs_racing_line_destroy(line);
    rs_world_destroy(w);
    rs_track_destroy(track);
    rs_car_params_destroy(car);
}

/* A world without start hold (a car may move before lights out) records
 * that in its proofs, and the replay builds the same kind of world: its
 * snapshots would not restore onto the other kind. */
static void test_a_proof_says_whether_the_world_held_its_cars(void **state)
{
    (void)state;
    rs_car_params *car = fixture_car("formula");
    rs_track *track = fixture_track("oval");
    rs_world_def def = rs_world_default();
    def.track = track;
    def.laps = 1;
    def.start_tick = 120;
    def.start_hold = false;
    rs_world *w = NULL;
    assert_int_equal(rs_world_create(&def, &w), RS_OK);
    rs_racing_line *line = NULL;
    assert_int_equal(rs_racing_line_build(track, car, NULL, &line), RS_OK);
    rs_driver *drv = NULL;
    assert_int_equal(rs_driver_create(line, NULL, &drv), RS_OK);
    rs_car_spawn sp;
    assert_true(rs_track_grid_slot(track, 0, &sp));
    assert_int_equal(rs_world_add_car(w, car, &sp, NULL), RS_OK);
    rs_lap_recorder *rec = NULL;
    assert_int_equal(rs_lap_recorder_create(w, 60 * 60, &rec), RS_OK);
    uint8_t *p = NULL;
    size_t len = 0;
    for (int t = 0; t < 60 * 120 && !p; t++) {
        rs_input in = rs_driver_update(drv, w, (rs_car_id){1});
        rs_world_set_input(w, (rs_car_id){1}, &in);
        assert_int_equal(rs_lap_recorder_before_step(rec, w), RS_OK);
        assert_int_equal(rs_world_step(w), RS_OK);
        rs_lap_recorder_take(rec, w, (rs_car_id){1}, &p, &len);
    }
    assert_non_null(p);
    rs_lap_proof_info info;
    assert_int_equal(rs_lap_proof_info_read(p, len, &info), RS_OK);
    assert_false(info.start_hold);
    const rs_car_params *cars[1] = {car};
    rs_lap_verdict v;
    char msg[256];
    assert_int_equal(rs_lap_proof_verify(p, len, cars, 1, track, &v, msg, sizeof msg), RS_OK);
    print_message("no start hold: %s\n", msg);
    assert_int_equal(v.code, RS_LAP_PROOF_OK);
    p[START_HOLD_AT] = 1;
    assert_int_equal(rs_lap_proof_verify(p, len, cars, 1, track, &v, msg, sizeof msg), RS_OK);
    assert_int_equal(v.code, RS_LAP_PROOF_BAD_SNAPSHOT);
    free(p);
    rs_lap_recorder_destroy(rec);
    rs_driver_destroy(drv);
    rs_racing_line_destroy(line);
    rs_world_destroy(w);
    rs_track_destroy(track);
    rs_car_params_destroy(car);
}

/* tests/fixtures/lapproof_v1.bin: a version 1 proof as users' databases
 * hold them, recorded by the code of commit a34e3c9 (before version 2) and
 * kept byte for byte: car 1's second lap of a two-lap race of two AI
 * formula cars on the oval, at 30 Hz with 8 substeps (a world definition
 * other than the default, so the header's fields are read, not assumed).
 * Whatever the current format is, it must still decode and verify. */
#define V1_FIXTURE RS_TEST_FIXTURES "/lapproof_v1.bin"
#define V1_LAP_TIME_US 30677685
#define V1_TICKS 922u

static void test_a_version_1_proof_still_verifies(void **state)
{
    const race *r = *state; /* its formula car and oval are the fixture's */
    char *bytes = NULL;
    size_t len = 0;
    char err[256];
    assert_int_equal(rs_file_read(V1_FIXTURE, 1u << 20, &bytes, &len, err, sizeof err),
                     RS_FILE_OK);
    const uint8_t *p = (const uint8_t *)bytes;
    rs_lap_proof_info info;
    assert_int_equal(rs_lap_proof_info_read(p, len, &info), RS_OK);
    assert_int_equal(info.version, 1);
    assert_true(info.start_hold);
    assert_int_equal(info.join_count, 0);
    assert_int_equal(info.tick_hz, 30);
    assert_int_equal(info.substeps, 8);
    assert_int_equal(info.laps, 2);
    assert_int_equal(info.car_count, CARS);
    assert_int_equal(info.car, 1);
    assert_int_equal(info.lap, 2);
    assert_int_equal(info.tick_count, V1_TICKS);
    assert_true(info.lap_time_us == V1_LAP_TIME_US);
    assert_true(info.car_params_hash == rs_car_params_hash(r->car));

    char msg[512];
    rs_lap_verdict v = verify(r, p, len, msg, sizeof msg);
    print_message("version 1 fixture: %s\n", msg);
    assert_int_equal(v.code, RS_LAP_PROOF_OK);
    assert_true(v.simulated_time_us == V1_LAP_TIME_US);

    /* It is really re-simulated: the lapping car's throttle inverted in one
     * tick mid-lap changes its end state. */
    uint8_t *bad = malloc(len);
    assert_non_null(bad);
    memcpy(bad, p, len);
    size_t at = len - (size_t)V1_TICKS * CARS * 8 + (size_t)(V1_TICKS / 2) * CARS * 8 + 2;
    bad[at] = (uint8_t)(bad[at] > 128 ? 0 : 255);
    v = verify(r, bad, len, msg, sizeof msg);
    print_message("version 1 fixture, throttle tampered: %s\n", msg);
    assert_true(v.code == RS_LAP_PROOF_DIFFERS || v.code == RS_LAP_PROOF_NO_LAP);
    free(bad);
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_lap_of_a_race_re_simulates_bit_for_bit),
        cmocka_unit_test(test_tampering_is_named_in_the_verdict),
        cmocka_unit_test(test_damaged_proofs_are_rejected_at_every_length),
        cmocka_unit_test(test_a_lap_longer_than_the_recorder_holds_gets_no_proof),
        cmocka_unit_test(test_a_version_1_proof_still_verifies),
    };
    const struct CMUnitTest join_tests[] = {
        cmocka_unit_test(test_a_lap_during_which_cars_joined_re_simulates),
        cmocka_unit_test(test_a_tampered_join_makes_the_lap_differ),
        cmocka_unit_test(test_a_proof_with_joins_is_read_strictly),
    };
    const struct CMUnitTest alone[] = {
        cmocka_unit_test(test_a_car_added_inside_a_tick_costs_the_lap_in_progress_its_proof),
        cmocka_unit_test(test_a_proof_says_whether_the_world_held_its_cars),
    };
    int failed = cmocka_run_group_tests(tests, race_once, race_free);
    failed += cmocka_run_group_tests(join_tests, joins_race_once, joins_race_free);
    failed += cmocka_run_group_tests(alone, NULL, NULL);
    return failed;
}
