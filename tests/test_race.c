/*
 * Tests of lap timing and race logic (race.c) on synthetic data: a hand-built
 * 400 m square circuit with timing lines at the middle of its sides, and
 * points driven along scripted paths substep by substep, the way the world
 * will drive the module. No track file, no car physics: the times the
 * scripts imply are known exactly, so the interpolation can be checked to
 * the microsecond.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "race.h"

/* ------------------------------------------------------------- the track */

/* The square's corners are (0,0), (100,0), (100,100), (0,100); the racing
 * direction is anticlockwise, so "left" is the inside. Station s runs from
 * (0,0) along the bottom side. The track is 12 m wide (6 m each side); the
 * scripts call a car wholly outside the limits beyond 7 m from the centre,
 * and a car 10 m from the centre passes round the ends of the lines. */
#define SIDE 100.0
#define LAP_M 400.0
#define HALF_W 6.0
#define LINE_REACH 8.0 /* timing lines end 2 m beyond the edges */

static void centre_at(double s, double off, double out[2])
{
    while (s >= LAP_M)
        s -= LAP_M;
    while (s < 0.0)
        s += LAP_M;
    int side = (int)(s / SIDE);
    double a = s - side * SIDE;
    double x, y, lx, ly; /* centre point and unit left normal */
    switch (side) {
    case 0: x = a; y = 0; lx = 0; ly = 1; break;
    case 1: x = SIDE; y = a; lx = -1; ly = 0; break;
    case 2: x = SIDE - a; y = SIDE; lx = 0; ly = -1; break;
    default: x = 0; y = SIDE - a; lx = 1; ly = 0; break;
    }
    out[0] = x + off * lx;
    out[1] = y + off * ly;
}

/* A timing line across the track at station s (not at a corner). */
static rs_timing_line line_at(double s)
{
    double c[2], l[2], r[2];
    centre_at(s, 0.0, c);
    centre_at(s, LINE_REACH, l);
    centre_at(s, -LINE_REACH, r);
    double d[2];
    centre_at(s + 1.0, 0.0, d);
    rs_timing_line ln = {l[0], l[1], r[0], r[1], s, d[0] - c[0], d[1] - c[1]};
    return ln;
}

static void make_track(rs_track *t, const double *stations, uint32_t n)
{
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "square");
    t->length = LAP_M;
    t->nlines = n;
    for (uint32_t i = 0; i < n; i++)
        t->line[i] = line_at(stations[i]);
}

static const double LINES4[] = {50, 150, 250, 350};
static const double LINES3[] = {50, 150, 250};

/* ------------------------------------------------------------- the paths */

/* A path is a list of keyframes (race clock, station, lateral offset + left),
 * linearly interpolated, held before the first and after the last. */
typedef struct key {
    double t, s, off;
} key;

#define MAX_KEYS 64
typedef struct path {
    key k[MAX_KEYS];
    uint32_t n;
} path;

static void path_add(path *p, double t, double s, double off)
{
    assert_true(p->n < MAX_KEYS);
    key k = {t, s, off};
    p->k[p->n++] = k;
}

/* Constant speed v from station s0 at t = 0 until t_end. */
static void path_cruise(path *p, double s0, double v, double t_end)
{
    path_add(p, 0.0, s0, 0.0);
    path_add(p, t_end, s0 + v * t_end, 0.0);
}

static void path_eval(const path *p, double t, double *s, double *off)
{
    const key *k = p->k;
    if (t <= k[0].t) {
        *s = k[0].s;
        *off = k[0].off;
        return;
    }
    for (uint32_t i = 1; i < p->n; i++) {
        if (t <= k[i].t) {
            double u = (t - k[i - 1].t) / (k[i].t - k[i - 1].t);
            *s = k[i - 1].s + (k[i].s - k[i - 1].s) * u;
            *off = k[i - 1].off + (k[i].off - k[i - 1].off) * u;
            return;
        }
    }
    *s = k[p->n - 1].s;
    *off = k[p->n - 1].off;
}

/* ------------------------------------------------------------ the driver */

#define MAX_CARS 48
#define MAX_LOG 4096

typedef struct sim {
    rs_track track;
    rs_race race;
    rs_race_car cars[MAX_CARS];
    uint32_t ncars;
    path paths[MAX_CARS];
    bool limits[MAX_CARS];  /* report all wheels out when |offset| > 7 m */
    double prev[MAX_CARS][2];
    uint32_t tick_hz, substeps;
    uint64_t tick, start_tick;
    rs_event buf[256];
    rs_event_sink sink;
    rs_event log[MAX_LOG];
    uint32_t nlog;
} sim;

static double clock_at(const sim *m, uint64_t tick, uint32_t sub)
{
    int64_t i = ((int64_t)tick - (int64_t)m->start_tick) * m->substeps + sub;
    return (double)i / (double)(m->tick_hz * m->substeps);
}

static void sim_init(sim *m, const double *lines, uint32_t nlines, uint32_t laps)
{
    memset(m, 0, sizeof *m);
    make_track(&m->track, lines, nlines);
    rs_race_init(&m->race, laps);
    m->tick_hz = 60;
    m->substeps = 4;
    m->sink.buf = m->buf;
    m->sink.cap = 256;
}

static uint32_t sim_add(sim *m)
{
    uint32_t c = m->ncars++;
    rs_race_car_init(&m->cars[c], c);
    m->limits[c] = true;
    return c;
}

/* Call after the car's path is set: where it stands before the first step. */
static void sim_place(sim *m)
{
    for (uint32_t c = 0; c < m->ncars; c++) {
        double s, off;
        path_eval(&m->paths[c], clock_at(m, m->tick, 0), &s, &off);
        centre_at(s, off, m->prev[c]);
    }
}

#define NKEYS(a) (sizeof(a) / sizeof(a)[0])

/* Adds a car that follows keys[0..n). */
static uint32_t sim_add_on(sim *m, const key *keys, size_t n)
{
    uint32_t c = sim_add(m);
    for (size_t i = 0; i < n; i++)
        path_add(&m->paths[c], keys[i].t, keys[i].s, keys[i].off);
    return c;
}

/* Most tests' scene: the square with these lines and race distance, and one
 * car, placed on its path. Returns the car. */
static uint32_t sim_solo(sim *m, const double *lines, uint32_t nlines, uint32_t laps,
                         const key *keys, size_t nkeys)
{
    sim_init(m, lines, nlines, laps);
    uint32_t c = sim_add_on(m, keys, nkeys);
    sim_place(m);
    return c;
}

/* The same with one car cruising (see path_cruise). */
static uint32_t sim_cruise(sim *m, const double *lines, uint32_t nlines, uint32_t laps, double s0,
                           double v, double t_end)
{
    sim_init(m, lines, nlines, laps);
    uint32_t c = sim_add(m);
    path_cruise(&m->paths[c], s0, v, t_end);
    sim_place(m);
    return c;
}

static void sim_step(sim *m)
{
    m->sink.count = 0;
    m->sink.tick = m->tick;
    double dt = 1.0 / (double)(m->tick_hz * m->substeps);
    for (uint32_t k = 0; k < m->substeps; k++) {
        m->sink.substep = k;
        double t0 = clock_at(m, m->tick, k);
        double t1 = clock_at(m, m->tick, k + 1);
        for (uint32_t c = 0; c < m->ncars; c++) {
            double s, off, p1[2];
            path_eval(&m->paths[c], t1, &s, &off);
            centre_at(s, off, p1);
            bool out = m->limits[c] && (off > 7.0 || off < -7.0);
            rs_race_substep(&m->race, m->cars, m->ncars, c, &m->track, m->prev[c], p1, t0, dt,
                            out, &m->sink);
            m->prev[c][0] = p1[0];
            m->prev[c][1] = p1[1];
        }
        rs_race_substep_end(&m->race, m->cars, m->ncars, &m->sink);
    }
    assert_int_equal(m->sink.dropped, 0);
    for (uint32_t i = 0; i < m->sink.count; i++) {
        assert_true(m->nlog < MAX_LOG);
        m->log[m->nlog++] = m->buf[i];
    }
    m->tick++;
}

static void sim_run_to(sim *m, double t_s)
{
    while (clock_at(m, m->tick, 0) < t_s)
        sim_step(m);
}

/* Events of one car (0 = race-level) and type (0 = any), in order. */
static uint32_t events_of(const sim *m, uint16_t car, uint8_t type, const rs_event **out,
                          uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nlog; i++) {
        const rs_event *e = &m->log[i];
        if (e->car == car && (type == 0 || e->type == type)) {
            if (n < cap)
                out[n] = e;
            n++;
        }
    }
    return n;
}

static rs_race_car_state state_of(const sim *m, uint32_t c)
{
    rs_race_car_state st;
    rs_race_fill_state(&m->cars[c], &m->track, &st);
    return st;
}

/* ------------------------------------------------------------- the tests */

/* Speed 7 m/s from s = 40: line j (at 50 + 100 j) is crossed at
 * (10 + 100 j) / 7 s: 1.428571.., 15.714285.., 30, 44.285714.., 58.571428..
 * Every crossing falls inside a substep (1/240 s), not at its ends. */
static void test_crossing_time_is_interpolated_to_the_microsecond(void **state)
{
    (void)state;
    static sim m;
    uint32_t c = sim_cruise(&m, LINES4, 4, 0, 40.0, 7.0, 100.0);
    sim_run_to(&m, 60.0);

    const rs_event *ev[16];
    assert_int_equal(events_of(&m, 1, RS_EVENT_SECTOR, ev, 16), 4);
    const int64_t want[4] = {15714286, 30000000, 44285714, 58571429};
    for (uint32_t j = 0; j < 4; j++) {
        assert_int_equal(ev[j]->time_us, want[j]);
        assert_int_equal(ev[j]->sector, j);
        assert_int_equal(ev[j]->lap, 1);
    }
    assert_int_equal(ev[0]->duration_us, 15714286 - 1428571);
    /* The substep of the event is the one the crossing fell in. */
    uint64_t sub = (uint64_t)(15.714285714285714 * 240.0);
    assert_int_equal(ev[0]->tick, sub / 4);
    assert_int_equal(ev[0]->substep, sub % 4);

    rs_race_car_state st = state_of(&m, c);
    assert_int_equal(st.laps_completed, 1);
    assert_int_equal(st.last_lap_us, 58571429 - 1428571);
    assert_int_equal(st.best_lap_us, 58571429 - 1428571);
    assert_int_equal(st.lap_start_us, 58571429);
    assert_int_equal(st.status, RS_RACE_RACING);
    assert_int_equal(st.next_line, 1);
}

static void test_clock_rounds_to_the_nearest_microsecond(void **state)
{
    (void)state;
    assert_int_equal(rs_race_time_us(0.0), 0);
    assert_int_equal(rs_race_time_us(10.0 / 7.0), 1428571);
    assert_int_equal(rs_race_time_us(110.0 / 7.0), 15714286);
    assert_int_equal(rs_race_time_us(-10.0 / 7.0), -1428571);
    assert_int_equal(rs_race_time_us(-110.0 / 7.0), -15714286);
    assert_int_equal(rs_race_time_us(0.4e-6), 0);
    assert_int_equal(rs_race_time_us(0.6e-6), 1);
    assert_int_equal(rs_race_time_us(-0.6e-6), -1);
    assert_int_equal(rs_race_time_us(-0.4e-6), 0);
    assert_int_equal(rs_race_time_us(2.5), 2500000);
    assert_int_equal(rs_race_time_us(1e300), 4000000000000000000LL);
    assert_int_equal(rs_race_time_us(-1e300), -4000000000000000000LL);
    assert_int_equal(rs_race_time_us(0.0 / 0.0), 0);
}

static void test_sector_times_sum_to_the_lap_time(void **state)
{
    (void)state;
    static sim m;
    sim_cruise(&m, LINES4, 4, 0, 40.0, 9.3, 200.0);
    sim_run_to(&m, 180.0);

    const rs_event *laps[8], *secs[32];
    uint32_t nl = events_of(&m, 1, RS_EVENT_LAP, laps, 8);
    uint32_t ns = events_of(&m, 1, RS_EVENT_SECTOR, secs, 32);
    assert_int_equal(nl, 4); /* 4 * 400 m + 10 m in 180 s at 9.3 m/s = 1674 m */
    assert_int_equal(ns, 4 * nl); /* 1714 m: not yet at line 1 of lap 5 */
    for (uint32_t l = 0; l < nl; l++) {
        assert_true(laps[l]->valid);
        assert_int_equal(laps[l]->lap, l + 1);
        assert_int_equal(laps[l]->sector_count, 4);
        int64_t sum = 0;
        for (uint32_t j = 0; j < 4; j++) {
            assert_int_equal(laps[l]->sectors_us[j], secs[4 * l + j]->duration_us);
            assert_true(laps[l]->sectors_us[j] > 10750000 && laps[l]->sectors_us[j] < 10760000);
            sum += laps[l]->sectors_us[j];
        }
        assert_int_equal(sum, laps[l]->duration_us);
        /* 400 / 9.3 s, within the rounding of both ends */
        assert_true(laps[l]->duration_us >= 43010752 && laps[l]->duration_us <= 43010753);
        /* The last sector's event comes just before its lap's event. */
        assert_true(secs[4 * l + 3] + 1 == laps[l]);
    }
}

static void test_first_crossing_of_the_start_line_starts_lap_one(void **state)
{
    (void)state;
    static sim m;
    sim_init(&m, LINES4, 4, 0);
    uint32_t behind = sim_add(&m), beyond = sim_add(&m);
    path_cruise(&m.paths[behind], 40.0, 10.0, 100.0);
    path_cruise(&m.paths[beyond], 60.0, 10.0, 100.0); /* grid past the line */
    sim_place(&m);

    sim_run_to(&m, 0.5);
    assert_int_equal(state_of(&m, behind).status, RS_RACE_GRID);
    assert_int_equal(state_of(&m, behind).lap_start_us, -1);
    sim_run_to(&m, 1.5);
    rs_race_car_state st = state_of(&m, behind);
    assert_int_equal(st.status, RS_RACE_RACING);
    assert_int_equal(st.lap_start_us, 1000000);
    assert_int_equal(st.laps_completed, 0);
    assert_true(st.lap_valid);

    /* The other car passes lines 1, 2, 3 untimed and starts at line 0. */
    sim_run_to(&m, 38.0);
    assert_int_equal(state_of(&m, beyond).status, RS_RACE_GRID);
    assert_int_equal(events_of(&m, 2, 0, NULL, 0), 0);
    sim_run_to(&m, 40.0);
    st = state_of(&m, beyond);
    assert_int_equal(st.status, RS_RACE_RACING);
    assert_int_equal(st.lap_start_us, 39000000);
    assert_int_equal(events_of(&m, 2, 0, NULL, 0), 0); /* starting a lap is not an event */
}

static void test_nothing_is_timed_before_lights_out(void **state)
{
    (void)state;
    /* Creeps over the start line and line 1 before the lights go out. */
    static const key keys[] = {{-5.0, 40.0, 0.0}, {100.0, 40.0 + 7.0 * 105.0, 0.0}};
    static sim m;
    sim_init(&m, LINES4, 4, 0);
    m.start_tick = 300; /* lights out after 5 s */
    uint32_t c = sim_add_on(&m, keys, NKEYS(keys));
    sim_place(&m);
    sim_run_to(&m, 0.0);
    assert_int_equal(m.nlog, 0);
    assert_int_equal(state_of(&m, c).status, RS_RACE_GRID);
    sim_run_to(&m, 50.0);
    assert_int_equal(m.nlog, 0); /* line 1 at 10.7 s did not count either */
    assert_int_equal(state_of(&m, c).status, RS_RACE_GRID);
    sim_run_to(&m, 54.0);
    rs_race_car_state st = state_of(&m, c);
    assert_int_equal(st.status, RS_RACE_RACING);
    assert_int_equal(st.lap_start_us, 53571429); /* 410 / 7 - 5 s */
    assert_int_equal(st.position, 1);
}

static void test_crossing_back_and_forth_counts_once(void **state)
{
    (void)state;
    static const key keys[] = {
        {0.0, 40.0, 0.0},
        {2.0, 60.0, 0.0},  /* over line 0 at 1 s: lap 1 starts */
        {4.0, 45.0, 0.0},  /* back over it */
        {6.0, 55.0, 0.0},  /* and forward again */
        {7.0, 45.0, 0.0},  /* and once more back and forth */
        {8.0, 55.0, 0.0},
        {18.0, 155.0, 0.0}, /* line 1 at 17.5 s */
        {20.0, 145.0, 0.0}, /* back over line 1 */
        {31.0, 255.0, 0.0}, /* line 1 again, line 2 at 30.5 s */
    };
    static sim m;
    uint32_t c = sim_solo(&m, LINES4, 4, 0, keys, NKEYS(keys));
    sim_run_to(&m, 32.0);

    const rs_event *ev[8];
    assert_int_equal(events_of(&m, 1, 0, ev, 8), 2);
    assert_int_equal(ev[0]->type, RS_EVENT_SECTOR);
    assert_int_equal(ev[0]->sector, 0);
    assert_int_equal(ev[0]->time_us, 17500000);
    assert_int_equal(ev[0]->duration_us, 16500000); /* from the first crossing at 1 s */
    assert_int_equal(ev[1]->sector, 1);
    assert_int_equal(ev[1]->duration_us, 30500000 - 17500000);
    rs_race_car_state st = state_of(&m, c);
    assert_int_equal(st.lap_start_us, 1000000);
    assert_true(st.lap_valid);
    assert_int_equal(st.next_line, 3);
}

static void test_car_parked_on_a_line_is_counted_once(void **state)
{
    (void)state;
    static sim m;
    sim_init(&m, LINES4, 4, 0);
    uint32_t c = sim_add(&m);
    path *p = &m.paths[c];
    path_add(p, 0.0, 40.0, 0.0);
    path_add(p, 2.0, 50.0, 0.0); /* arrives exactly on line 0 at 2 s ... */
    path_add(p, 4.0, 50.0, 0.0); /* ... and sits on it */
    double t = 4.0;
    for (int i = 0; i < 20; i++) { /* then dithers across it by a nanometre */
        t += 0.1;
        path_add(p, t, i % 2 ? 50.0 + 1e-9 : 50.0 - 1e-9, 0.0);
    }
    path_add(p, t + 1.0, 50.0, 0.0);
    path_add(p, t + 11.0, 150.0, 0.0); /* line 1 at t + 11 = 17 s */
    sim_place(&m);
    sim_run_to(&m, 18.0);

    const rs_event *ev[8];
    assert_int_equal(events_of(&m, 1, 0, ev, 8), 1);
    assert_int_equal(ev[0]->type, RS_EVENT_SECTOR);
    assert_int_equal(ev[0]->time_us, 17000000);
    assert_int_equal(ev[0]->duration_us, 15000000);
    assert_int_equal(state_of(&m, c).lap_start_us, 2000000);
    assert_int_equal(m.cars[c].progress_max, 2);
}

/* Three lines (three sectors): the car drives round the end of line 1. */
static void test_skipped_sector_invalidates_the_lap_with_the_reason(void **state)
{
    (void)state;
    static const key keys[] = {
        {0.0, 40.0, 0.0},
        {12.0, 140.0, 0.0},
        {12.5, 145.0, 10.0}, /* 10 m left of the centre: past the line's end */
        {13.5, 155.0, 10.0},
        {14.0, 160.0, 0.0},
        {43.0, 450.0, 0.0}, /* line 2 at 23 s, line 0 at 43 s */
        {83.0, 850.0, 0.0}, /* a clean second lap */
    };
    static sim m;
    uint32_t c = sim_solo(&m, LINES3, 3, 0, keys, NKEYS(keys));
    m.limits[c] = false; /* only the skip counts here */
    sim_run_to(&m, 84.0);

    const rs_event *ev[16];
    uint32_t n = events_of(&m, 1, 0, ev, 16);
    assert_int_equal(n, 4 + 4);
    assert_int_equal(ev[0]->type, RS_EVENT_LAP_INVALID);
    assert_int_equal(ev[0]->reason, RS_LAP_SECTOR_SKIPPED);
    assert_int_equal(ev[0]->lap, 1);
    assert_int_equal(ev[0]->time_us, 23000000);
    assert_int_equal(ev[1]->type, RS_EVENT_SECTOR); /* line 2: sector 1 ended, time unknown */
    assert_int_equal(ev[1]->sector, 1);
    assert_int_equal(ev[1]->duration_us, -1);
    assert_int_equal(ev[2]->type, RS_EVENT_SECTOR);
    assert_int_equal(ev[2]->sector, 2);
    assert_int_equal(ev[2]->duration_us, 20000000);
    assert_int_equal(ev[3]->type, RS_EVENT_LAP);
    assert_false(ev[3]->valid);
    assert_int_equal(ev[3]->reason, RS_LAP_SECTOR_SKIPPED);
    assert_int_equal(ev[3]->duration_us, 41800000); /* from 1.2 s */
    assert_int_equal(ev[3]->sectors_us[0], -1);
    assert_int_equal(ev[3]->sectors_us[1], -1);
    assert_int_equal(ev[3]->sectors_us[2], 20000000);
    /* Lap 2 is clean, and the only valid lap is the best. */
    for (int j = 4; j < 7; j++)
        assert_int_equal(ev[j]->type, RS_EVENT_SECTOR);
    assert_int_equal(ev[7]->type, RS_EVENT_LAP);
    assert_true(ev[7]->valid);
    assert_int_equal(ev[7]->duration_us, 40000000);
    rs_race_car_state st = state_of(&m, c);
    assert_int_equal(st.best_lap_us, 40000000);
    assert_int_equal(st.laps_completed, 2);
}

/* Round the end of the start line: lap 1 ends (invalid) where the skip is
 * found out, at line 1, and lap 2 starts there without its first sector. */
static void test_skipped_start_line_completes_the_lap_invalid(void **state)
{
    (void)state;
    static const key keys[] = {
        {0.0, 40.0, 0.0},
        {39.0, 430.0, 0.0},
        {40.0, 440.0, -10.0}, /* right of the start line's end */
        {42.0, 460.0, -10.0},
        {43.0, 470.0, 0.0},
        {81.0, 850.0, 0.0}, /* line 1 (550 m) at 51 s, lap 2 ends at 81 s */
    };
    static sim m;
    uint32_t c = sim_solo(&m, LINES3, 3, 0, keys, NKEYS(keys));
    m.limits[c] = false;
    sim_run_to(&m, 82.0);

    const rs_event *ev[16];
    uint32_t n = events_of(&m, 1, 0, ev, 16);
    assert_int_equal(n, 2 + 4 + 3);
    assert_int_equal(ev[0]->type, RS_EVENT_SECTOR); /* lap 1, sectors 0 and 1 */
    assert_int_equal(ev[1]->type, RS_EVENT_SECTOR);
    assert_int_equal(ev[2]->type, RS_EVENT_LAP_INVALID);
    assert_int_equal(ev[2]->lap, 1);
    assert_int_equal(ev[3]->type, RS_EVENT_LAP);
    assert_int_equal(ev[3]->lap, 1);
    assert_false(ev[3]->valid);
    assert_int_equal(ev[3]->sectors_us[2], -1);
    assert_int_equal(ev[3]->time_us, 51000000);
    assert_int_equal(ev[3]->duration_us, 50000000);
    assert_int_equal(ev[4]->type, RS_EVENT_LAP_INVALID);
    assert_int_equal(ev[4]->lap, 2);
    assert_int_equal(ev[4]->reason, RS_LAP_SECTOR_SKIPPED);
    assert_int_equal(ev[5]->type, RS_EVENT_SECTOR);
    assert_int_equal(ev[5]->lap, 2);
    assert_int_equal(ev[5]->sector, 0);
    assert_int_equal(ev[5]->duration_us, -1);
    assert_int_equal(ev[8]->type, RS_EVENT_LAP);
    assert_int_equal(ev[8]->lap, 2);
    assert_false(ev[8]->valid);
    assert_int_equal(ev[8]->sectors_us[0], -1);
    rs_race_car_state st = state_of(&m, c);
    assert_int_equal(st.laps_completed, 2);
    assert_int_equal(st.best_lap_us, -1);
    assert_true(st.lap_valid); /* lap 3 started cleanly at line 0 */
}

/* A car that gets behind the line it last crossed without crossing it (round
 * its end, backwards) and then crosses it again has not skipped a lap. */
static void test_crossing_the_last_line_again_unseen_is_not_a_skip(void **state)
{
    (void)state;
    static const key keys[] = {
        {0.0, 40.0, 0.0},
        {12.0, 160.0, 0.0},   /* over line 1 at 11 s */
        {13.0, 155.0, 10.0},  /* reverse round its end */
        {14.0, 145.0, 10.0},
        {15.0, 140.0, 0.0},
        {26.0, 250.0, 0.0},   /* over line 1 again, then line 2 at 26 s */
        {46.0, 450.0, 0.0},
    };
    static sim m;
    uint32_t c = sim_solo(&m, LINES3, 3, 0, keys, NKEYS(keys));
    m.limits[c] = false;
    sim_run_to(&m, 47.0);

    const rs_event *ev[8];
    uint32_t n = events_of(&m, 1, 0, ev, 8);
    assert_int_equal(n, 4);
    assert_int_equal(ev[0]->time_us, 11000000);
    assert_int_equal(ev[1]->time_us, 26000000);
    assert_int_equal(ev[1]->duration_us, 15000000);
    assert_int_equal(ev[3]->type, RS_EVENT_LAP);
    assert_true(ev[3]->valid);
    assert_int_equal(ev[3]->duration_us, 45000000);
}

/* Four lines: round the ends of lines 1 and 2, then over line 3. Forward
 * round two ends or backward round two ends are equally likely, and the
 * rule takes the one that gives no progress: the car must go round again. */
static void test_an_even_split_earns_no_progress(void **state)
{
    (void)state;
    static const key keys[] = {
        {0.0, 40.0, 0.0},
        {10.0, 140.0, 0.0},
        {11.0, 145.0, 10.0},
        {12.0, 255.0, 10.0}, /* a 110 m short cut */
        {13.0, 260.0, 0.0},
        {142.0, 1550.0, 0.0}, /* line 3 at 22 s, line 0 at 32 s, ... */
    };
    static sim m;
    uint32_t c = sim_solo(&m, LINES4, 4, 0, keys, NKEYS(keys));
    m.limits[c] = false;
    sim_run_to(&m, 33.0);
    assert_int_equal(m.nlog, 0);
    rs_race_car_state st = state_of(&m, c);
    assert_int_equal(st.next_line, 1);
    assert_int_equal(st.laps_completed, 0);
    assert_true(st.lap_valid);
    /* Round again: line 1 at 42 s, ..., the lap ends at 72 s. */
    sim_run_to(&m, 73.0);
    const rs_event *lap[2];
    assert_int_equal(events_of(&m, 1, RS_EVENT_LAP, lap, 2), 1);
    assert_int_equal(lap[0]->duration_us, 72000000 - 1000000);
    assert_int_equal(lap[0]->sectors_us[0], 42000000 - 1000000);
}

/* Crossing some other line backwards (here reaching line 0 from sector 2 by
 * going round line 1's end) is undone by crossing it forward again. */
static void test_a_line_reversed_over_out_of_order_is_undone_forward(void **state)
{
    (void)state;
    static const key keys[] = {
        {0.0, 40.0, 0.0},
        {12.0, 160.0, 0.0},  /* line 0 at 1 s, line 1 at 11 s */
        {13.0, 155.0, 10.0}, /* back round line 1's end */
        {14.0, 145.0, 10.0},
        {20.0, 45.0, 0.0},   /* and back over line 0 */
        {41.0, 255.0, 0.0},  /* then forward over lines 0, 1, 2 */
    };
    static sim m;
    uint32_t c = sim_solo(&m, LINES4, 4, 0, keys, NKEYS(keys));
    m.limits[c] = false;
    sim_run_to(&m, 20.0);
    assert_int_equal(m.cars[c].reversed_mask, 1);
    sim_run_to(&m, 42.0);
    assert_int_equal(m.cars[c].reversed_mask, 0);

    const rs_event *ev[8];
    uint32_t n = events_of(&m, 1, 0, ev, 8);
    assert_int_equal(n, 2);
    assert_int_equal(ev[0]->sector, 0);
    assert_int_equal(ev[1]->sector, 1);
    assert_int_equal(ev[1]->time_us, 40500000);
    assert_int_equal(ev[1]->duration_us, 40500000 - 11000000);
    assert_true(state_of(&m, c).lap_valid);
}

static void test_track_limits_invalidate_once_per_excursion(void **state)
{
    (void)state;
    static const key keys[] = {
        {0.0, 40.0, 0.0},
        {8.0, 120.0, 0.0},
        {8.5, 125.0, 8.0}, /* wholly outside from 8.4375 s */
        {9.5, 135.0, 8.0},
        {10.0, 140.0, 0.0},
        {28.0, 320.0, 0.0},
        {28.5, 325.0, -8.0}, /* again, same lap: no new event */
        {29.0, 330.0, 0.0},
        {48.0, 520.0, 0.0},  /* lap 2 */
        {48.5, 525.0, 8.0},  /* lap 2's excursion */
        {49.0, 530.0, 0.0},
        {90.0, 940.0, 0.0},
    };
    static sim m;
    uint32_t c = sim_solo(&m, LINES4, 4, 0, keys, NKEYS(keys));
    sim_run_to(&m, 91.0);

    const rs_event *ev[4], *lap[4];
    assert_int_equal(events_of(&m, 1, RS_EVENT_LAP_INVALID, ev, 4), 2);
    assert_int_equal(ev[0]->reason, RS_LAP_TRACK_LIMITS);
    assert_int_equal(ev[0]->lap, 1);
    /* The first substep ending with |offset| > 7: 8 + 7/16 s lies on a
     * substep boundary (2025/240 s), where the offset is exactly 7, so the
     * next one, ending at 2026/240 s. */
    assert_int_equal(ev[0]->time_us, 8441667);
    assert_int_equal(ev[1]->lap, 2);
    assert_int_equal(events_of(&m, 1, RS_EVENT_LAP, lap, 4), 2);
    assert_false(lap[0]->valid);
    assert_int_equal(lap[0]->reason, RS_LAP_TRACK_LIMITS);
    assert_false(lap[1]->valid);
    assert_int_equal(state_of(&m, c).best_lap_us, -1);
    assert_int_equal(state_of(&m, c).last_lap_us, 40000000);
}

/* Out of the track while crossing the start line: both laps are touched. */
static void test_excursion_across_the_line_invalidates_both_laps(void **state)
{
    (void)state;
    static const key keys[] = {
        {0.0, 40.0, 0.0},
        {39.0, 430.0, 0.0},
        {39.5, 435.0, 5.5},
        {40.5, 445.0, 7.5}, /* all wheels out, yet within the line's reach */
        {41.5, 455.0, 7.5},
        {42.0, 460.0, 0.0},
    };
    static sim m;
    uint32_t c = sim_solo(&m, LINES4, 4, 0, keys, NKEYS(keys));
    sim_run_to(&m, 43.0);
    const rs_event *ev[8];
    uint32_t n = events_of(&m, 1, 0, ev, 8);
    /* sectors 0..3 (the last with the lap) in lap 1, then: */
    assert_int_equal(n, 3 + 1 + 1 + 1 + 1);
    assert_int_equal(ev[3]->type, RS_EVENT_LAP_INVALID);
    assert_int_equal(ev[3]->lap, 1);
    assert_int_equal(ev[4]->type, RS_EVENT_SECTOR);
    assert_int_equal(ev[5]->type, RS_EVENT_LAP);
    assert_false(ev[5]->valid);
    assert_int_equal(ev[6]->type, RS_EVENT_LAP_INVALID);
    assert_int_equal(ev[6]->lap, 2);
    assert_false(state_of(&m, c).lap_valid);
}

static void test_first_reason_wins(void **state)
{
    (void)state;
    static const key keys[] = {
        {0.0, 40.0, 0.0},
        {12.0, 140.0, 0.0},
        {12.5, 145.0, 10.0}, /* off the track and round line 1 */
        {13.5, 155.0, 10.0},
        {14.0, 160.0, 0.0},
        {43.0, 450.0, 0.0},
    };
    static sim m;
    sim_solo(&m, LINES3, 3, 0, keys, NKEYS(keys));
    sim_run_to(&m, 44.0);
    const rs_event *ev[4], *lap[2];
    assert_int_equal(events_of(&m, 1, RS_EVENT_LAP_INVALID, ev, 4), 1);
    assert_int_equal(ev[0]->reason, RS_LAP_TRACK_LIMITS);
    assert_int_equal(events_of(&m, 1, RS_EVENT_LAP, lap, 2), 1);
    assert_int_equal(lap[0]->reason, RS_LAP_TRACK_LIMITS);
    assert_int_equal(lap[0]->sectors_us[0], -1);
}

/* The lines at 49.8 m and 50 m are met in that order inside one substep;
 * index order would meet the start line first and call it a skip. */
static void test_lines_crossed_in_one_substep_are_taken_in_order(void **state)
{
    (void)state;
    static const double lines[] = {50.0, 150.0, 449.8};
    static sim m;
    /* 120 m/s: 0.5 m per substep. Lap end at 450: the substep from t with
     * s(t) = 449.75 to 450.25 holds both lines. */
    sim_cruise(&m, lines, 3, 0, 49.75, 120.0, 10.0);
    sim_run_to(&m, 4.0);
    const rs_event *lap[2], *sec[8];
    assert_int_equal(events_of(&m, 1, RS_EVENT_LAP, lap, 2), 1);
    assert_true(lap[0]->valid);
    assert_int_equal(lap[0]->sectors_us[2], 1667); /* 0.2 m at 120 m/s */
    uint32_t ns = events_of(&m, 1, RS_EVENT_SECTOR, sec, 8);
    assert_int_equal(ns, 3);
    assert_int_equal(sec[1]->tick, sec[2]->tick);
    assert_int_equal(sec[1]->substep, sec[2]->substep);
    assert_int_equal(lap[0]->duration_us, 3333334); /* 400 m, rounded at both ends */
}

static void test_finish_order_and_positions(void **state)
{
    (void)state;
    static sim m;
    sim_init(&m, LINES4, 4, 2);
    /* Slots 0, 1, 2 from 40, 35, 30 m at 7, 8, 9 m/s: the last shall be first. */
    for (uint32_t c = 0; c < 3; c++) {
        sim_add(&m);
        path_cruise(&m.paths[c], 40.0 - 5.0 * c, 7.0 + c, 200.0);
    }
    sim_place(&m);
    for (uint32_t c = 0; c < 3; c++)
        assert_int_equal(state_of(&m, c).position, c + 1);
    sim_run_to(&m, 2.0);
    /* Cars 0 (1.43 s) and 1 (1.875 s) have crossed the start line, car 2 not yet. */
    assert_int_equal(state_of(&m, 0).position, 1);
    assert_int_equal(state_of(&m, 1).position, 2);
    assert_int_equal(state_of(&m, 2).position, 3);
    /* Line 1 (150 m): car 0 at 15.71 s, car 1 at 14.375 s, car 2 at 13.33 s. */
    sim_run_to(&m, 14.0);
    assert_int_equal(state_of(&m, 2).position, 1);
    assert_int_equal(state_of(&m, 0).position, 2);
    assert_int_equal(state_of(&m, 1).position, 3);
    uint16_t order[3];
    assert_int_equal(rs_race_order(m.cars, 3, order, 3), 3);
    assert_int_equal(order[0], 2);
    assert_int_equal(order[1], 0);
    assert_int_equal(order[2], 1);

    sim_run_to(&m, 150.0);
    const rs_event *fin[4], *over[4];
    for (uint32_t c = 0; c < 3; c++) {
        assert_int_equal(events_of(&m, (uint16_t)(c + 1), RS_EVENT_FINISH, fin, 4), 1);
        assert_int_equal(fin[0]->position, 3 - c);
        assert_int_equal(fin[0]->lap, 2);
        rs_race_car_state st = state_of(&m, c);
        assert_int_equal(st.status, RS_RACE_FINISHED);
        assert_int_equal(st.finish_position, 3 - c);
        assert_int_equal(st.position, 3 - c);
        assert_int_equal(st.laps_completed, 2);
    }
    assert_int_equal(state_of(&m, 2).finish_us, 91111111); /* 820 / 9 */
    assert_int_equal(state_of(&m, 0).finish_us, 115714286); /* 810 / 7 */
    /* No more laps after the flag. */
    assert_int_equal(events_of(&m, 3, RS_EVENT_LAP, fin, 4), 2);
    assert_int_equal(events_of(&m, 0, RS_EVENT_RACE_OVER, over, 4), 1);
    assert_int_equal(over[0]->time_us, 115714286);
    assert_true(m.race.over);
    uint16_t scratch[3];
    assert_true(rs_race_consistent(&m.race, m.cars, 3, scratch));
}

static void test_same_substep_finishers_are_ordered_by_crossing_time(void **state)
{
    (void)state;
    /* Both cross the start line at 1 s; car 0 ends the lap at 41.004 s,
     * car 1 at 41.002 s: substep 9840 (41.0 .. 41.00417 s) for both. */
    static const key keys0[] = {{0.0, 40.0, 0.0}, {1.0, 50.0, 0.0}, {41.004, 450.0, 0.0},
                                {42.004, 460.0, 0.0}};
    static const key keys1[] = {{0.0, 39.0, 0.0}, {1.0, 50.0, 0.0}, {41.002, 450.0, 0.0},
                                {42.002, 460.0, 0.0}};
    static sim m;
    sim_init(&m, LINES4, 4, 1);
    sim_add_on(&m, keys0, NKEYS(keys0));
    sim_add_on(&m, keys1, NKEYS(keys1));
    sim_place(&m);
    sim_run_to(&m, 43.0);
    assert_int_equal(state_of(&m, 1).finish_position, 1);
    assert_int_equal(state_of(&m, 0).finish_position, 2);
    assert_int_equal(state_of(&m, 1).position, 1);
    const rs_event *f0[2], *f1[2], *over[2];
    assert_int_equal(events_of(&m, 1, RS_EVENT_FINISH, f0, 2), 1);
    assert_int_equal(events_of(&m, 2, RS_EVENT_FINISH, f1, 2), 1);
    assert_int_equal(f0[0]->tick, f1[0]->tick);
    assert_int_equal(f0[0]->substep, f1[0]->substep);
    assert_true(f1[0] < f0[0]); /* the earlier crossing is reported first */
    assert_int_equal(f1[0]->position, 1);
    assert_int_equal(events_of(&m, 0, RS_EVENT_RACE_OVER, over, 2), 1);
    assert_true(f0[0] < over[0]);
}

static void test_open_session_never_finishes(void **state)
{
    (void)state;
    static sim m;
    uint32_t c = sim_cruise(&m, LINES4, 4, 0, 40.0, 40.0, 200.0);
    sim_run_to(&m, 100.0);
    assert_int_equal(state_of(&m, c).laps_completed, 9);
    assert_int_equal(state_of(&m, c).status, RS_RACE_RACING);
    assert_int_equal(events_of(&m, 1, RS_EVENT_FINISH, NULL, 0), 0);
    assert_int_equal(events_of(&m, 0, 0, NULL, 0), 0);
}

/* Within one step: sector, then lap, then the new lap's invalidation, then
 * finishes (after every car's substep), then the end of the race. */
static void test_events_come_in_the_order_things_happened(void **state)
{
    (void)state;
    static const key keys0[] = {
        {0.0, 40.0, 0.0},   {40.0, 440.0, 0.0}, {41.0, 450.0, 0.0},
        {41.1, 451.0, 8.0}, /* off right after the line */
        {42.0, 460.0, 0.0}, {81.0, 850.0, 0.0},
    };
    static const key keys1[] = {{0.0, 39.0, 0.0}, {80.9, 850.0, 0.0}};
    static sim m;
    sim_init(&m, LINES4, 4, 2);
    sim_add_on(&m, keys0, NKEYS(keys0));
    sim_add_on(&m, keys1, NKEYS(keys1));
    sim_place(&m);
    sim_run_to(&m, 41.5);
    const rs_event *ev[8];
    uint32_t n = events_of(&m, 1, 0, ev, 8);
    assert_int_equal(n, 6);
    assert_int_equal(ev[3]->type, RS_EVENT_SECTOR);
    assert_int_equal(ev[4]->type, RS_EVENT_LAP);
    assert_true(ev[4]->valid);
    assert_int_equal(ev[5]->type, RS_EVENT_LAP_INVALID);
    assert_int_equal(ev[5]->lap, 2);
    assert_true(ev[5]->time_us > ev[4]->time_us);

    sim_run_to(&m, 82.0);
    /* The step in which car 1 finished and then car 2, in slot order of
     * their substeps; the race ends with the second. */
    uint32_t first = m.nlog;
    for (uint32_t i = 0; i < m.nlog; i++) {
        if (m.log[i].type == RS_EVENT_FINISH) {
            first = i;
            break;
        }
    }
    assert_true(first < m.nlog);
    assert_int_equal(m.log[first].car, 2);
    assert_int_equal(m.log[first - 1].type, RS_EVENT_LAP);
    assert_int_equal(m.log[first - 1].car, 2);
    assert_int_equal(m.log[m.nlog - 1].type, RS_EVENT_RACE_OVER);
    assert_int_equal(m.log[m.nlog - 2].type, RS_EVENT_FINISH);
    assert_int_equal(m.log[m.nlog - 2].car, 1);
    assert_int_equal(m.log[m.nlog - 3].type, RS_EVENT_LAP);
    assert_int_equal(m.log[m.nlog - 3].car, 1);
    assert_int_equal(m.log[m.nlog - 2].position, 2);
}

/* --------------------------------------------- snapshots and positions */

static void scripted_race(sim *m, uint32_t ncars)
{
    sim_init(m, LINES4, 4, 3);
    for (uint32_t c = 0; c < ncars; c++) {
        sim_add(m);
        /* Speeds, hesitations, excursions and reversals that differ per car,
         * from a deterministic little generator. */
        uint32_t h = 2654435761u * (c + 1u);
        double v = 20.0 + (double)(h % 1000u) / 100.0;
        path *p = &m->paths[c];
        double t = 0.0, s = 48.0 - 1.5 * c;
        path_add(p, t, s, 0.0);
        for (int k = 0; k < 12; k++) {
            h = h * 1103515245u + 12345u;
            double run = 60.0 + (double)(h % 97u);
            t += run / v;
            s += run;
            path_add(p, t, s, 0.0);
            if (h % 5u == 0) { /* a spin: back a little, over a line perhaps */
                t += 2.0;
                s -= 20.0;
                path_add(p, t, s, 0.0);
            } else if (h % 7u == 0) { /* a trip over the grass */
                t += 1.0;
                s += 10.0;
                path_add(p, t, s, 9.0);
                t += 1.0;
                s += 10.0;
                path_add(p, t, s, 0.0);
            }
        }
        path_add(p, t + 1000.0 / v, s + 1000.0, 0.0);
    }
    sim_place(m);
}

/* The positions kept incrementally equal a full sort by the rules. */
static void check_positions(const sim *m)
{
    for (uint32_t a = 0; a < m->ncars; a++) {
        const rs_race_car *x = &m->cars[a];
        uint32_t ahead = 0;
        for (uint32_t b = 0; b < m->ncars; b++) {
            const rs_race_car *y = &m->cars[b];
            bool y_ahead;
            if (x->finish_position || y->finish_position)
                y_ahead = y->finish_position &&
                          (!x->finish_position || y->finish_position < x->finish_position);
            else if (y->progress_max != x->progress_max)
                y_ahead = y->progress_max > x->progress_max;
            else if (y->progress_max_us != x->progress_max_us)
                y_ahead = y->progress_max_us < x->progress_max_us;
            else
                y_ahead = b < a;
            ahead += y_ahead;
        }
        assert_int_equal(x->position, ahead + 1);
    }
}

static void test_positions_always_match_a_full_sort(void **state)
{
    (void)state;
    static sim m;
    scripted_race(&m, MAX_CARS);
    uint16_t scratch[MAX_CARS], order[MAX_CARS];
    while (clock_at(&m, m.tick, 0) < 80.0) {
        sim_step(&m);
        check_positions(&m);
        assert_true(rs_race_consistent(&m.race, m.cars, m.ncars, scratch));
        rs_race_order(m.cars, m.ncars, order, m.ncars);
        for (uint32_t k = 0; k < m.ncars; k++)
            assert_int_equal(m.cars[order[k]].position, k + 1);
    }
    /* The script did produce laps, invalid laps and finishers. */
    uint32_t laps = 0, invalid = 0, finish = 0;
    for (uint32_t i = 0; i < m.nlog; i++) {
        laps += m.log[i].type == RS_EVENT_LAP;
        invalid += m.log[i].type == RS_EVENT_LAP_INVALID;
        finish += m.log[i].type == RS_EVENT_FINISH;
    }
    assert_true(laps > 2 * MAX_CARS);
    assert_true(invalid > 5);
    assert_true(finish > 0);
}

static size_t save(const sim *m, uint8_t *buf, size_t cap)
{
    rs_writer w = rs_writer_init(buf, cap);
    rs_race_write(&m->race, &w);
    for (uint32_t c = 0; c < m->ncars; c++)
        rs_race_car_write(&m->cars[c], &w);
    assert_false(w.overflow);
    return w.len;
}

static void test_snapshot_round_trip_continues_identically(void **state)
{
    (void)state;
    static sim a, b;
    static uint8_t snap[MAX_CARS * 256], end_a[MAX_CARS * 256], end_b[MAX_CARS * 256];
    assert_int_equal(rs_race_car_size(), 200);
    assert_int_equal(rs_race_size(), 9);
    scripted_race(&a, MAX_CARS);
    scripted_race(&b, MAX_CARS);
    sim_run_to(&a, 50.0);
    size_t n = save(&a, snap, sizeof snap);
    assert_int_equal(n, rs_race_size() + MAX_CARS * rs_race_car_size());
    uint32_t mark = a.nlog;
    sim_run_to(&a, 140.0);

    /* b: restore into a fresh state at the same tick (its paths are the same). */
    b.tick = (uint64_t)(50.0 * 60.0); /* where a was saved */
    sim_place(&b);
    rs_reader r = rs_reader_init(snap, n);
    rs_race_read(&b.race, &r);
    for (uint32_t c = 0; c < b.ncars; c++)
        rs_race_car_read(&b.cars[c], &r);
    assert_false(r.error);
    assert_int_equal(r.pos, n);
    uint16_t scratch[MAX_CARS];
    assert_true(rs_race_consistent(&b.race, b.cars, b.ncars, scratch));
    sim_run_to(&b, 140.0);

    assert_int_equal(save(&a, end_a, sizeof end_a), save(&b, end_b, sizeof end_b));
    assert_memory_equal(end_a, end_b, n);
    assert_int_equal(a.nlog - mark, b.nlog);
    assert_memory_equal(&a.log[mark], b.log, b.nlog * sizeof(rs_event));
    assert_true(a.race.over);
}

static void test_corrupt_state_is_refused(void **state)
{
    (void)state;
    static sim m;
    scripted_race(&m, 8);
    sim_run_to(&m, 30.0);
    uint8_t buf[8 * 256];
    size_t n = save(&m, buf, sizeof buf);
    uint16_t scratch[8];

    /* Out-of-range fields fail the reader. */
    size_t car0 = rs_race_size();
    const size_t offsets[] = {car0 + 0, car0 + 1};
    for (size_t i = 0; i < 2; i++) {
        uint8_t bad[8 * 256];
        memcpy(bad, buf, n);
        bad[offsets[i]] = 9;
        static sim x;
        scripted_race(&x, 8);
        rs_reader r = rs_reader_init(bad, n);
        rs_race_read(&x.race, &r);
        for (uint32_t c = 0; c < 8; c++)
            rs_race_car_read(&x.cars[c], &r);
        assert_true(r.error);
    }
    /* A different race distance is refused. */
    {
        static sim x;
        scripted_race(&x, 8);
        x.race.laps = 5;
        rs_reader r = rs_reader_init(buf, n);
        rs_race_read(&x.race, &r);
        assert_true(r.error);
    }
    /* Positions that disagree with the rules are found. */
    assert_true(rs_race_consistent(&m.race, m.cars, 8, scratch));
    uint32_t a = 0, b = 1;
    uint32_t pa = m.cars[a].position;
    m.cars[a].position = m.cars[b].position;
    m.cars[b].position = pa;
    assert_false(rs_race_consistent(&m.race, m.cars, 8, scratch));
    m.cars[b].position = m.cars[a].position; /* a duplicate */
    assert_false(rs_race_consistent(&m.race, m.cars, 8, scratch));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crossing_time_is_interpolated_to_the_microsecond),
        cmocka_unit_test(test_clock_rounds_to_the_nearest_microsecond),
        cmocka_unit_test(test_sector_times_sum_to_the_lap_time),
        cmocka_unit_test(test_first_crossing_of_the_start_line_starts_lap_one),
        cmocka_unit_test(test_nothing_is_timed_before_lights_out),
        cmocka_unit_test(test_crossing_back_and_forth_counts_once),
        cmocka_unit_test(test_car_parked_on_a_line_is_counted_once),
        cmocka_unit_test(test_skipped_sector_invalidates_the_lap_with_the_reason),
        cmocka_unit_test(test_skipped_start_line_completes_the_lap_invalid),
        cmocka_unit_test(test_crossing_the_last_line_again_unseen_is_not_a_skip),
        cmocka_unit_test(test_an_even_split_earns_no_progress),
        cmocka_unit_test(test_a_line_reversed_over_out_of_order_is_undone_forward),
        cmocka_unit_test(test_track_limits_invalidate_once_per_excursion),
        cmocka_unit_test(test_excursion_across_the_line_invalidates_both_laps),
        cmocka_unit_test(test_first_reason_wins),
        cmocka_unit_test(test_lines_crossed_in_one_substep_are_taken_in_order),
        cmocka_unit_test(test_finish_order_and_positions),
        cmocka_unit_test(test_same_substep_finishers_are_ordered_by_crossing_time),
        cmocka_unit_test(test_open_session_never_finishes),
        cmocka_unit_test(test_events_come_in_the_order_things_happened),
        cmocka_unit_test(test_positions_always_match_a_full_sort),
        cmocka_unit_test(test_snapshot_round_trip_continues_identically),
        cmocka_unit_test(test_corrupt_state_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
