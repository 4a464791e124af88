/*
 * Lap timing and race logic (see race.h for the calling contract and
 * docs/TIMING.md for the rules and why they are what they are).
 *
 * Each substep, the segment from the car's previous to its current centre of
 * mass is tested against every timing line. A crossing is classified by the
 * sides of the line the two points lie on, with a half-open rule: a point
 * exactly on the line counts as past it, so a car resting on a line has
 * crossed it once, however long it stays. The crossing's time is
 * interpolated linearly inside the substep and rounded to the microsecond.
 *
 * Crossings are then interpreted against the car's progress (the number of
 * lines passed in order): the next line advances it, the last line crossed
 * backwards takes it back one, and anything else is explained by the
 * hypothesis that needs the fewest unseen passes round the end of a line.
 * Only crossings that take the car beyond its best progress ever are timed,
 * so driving back and forth over a line never counts twice.
 */
#include "race.h"

#include <string.h>

#include "detmath.h"

/* Race clock bounds for stored times: far beyond any race (126 000 years),
 * far inside int64, so differences of two times never overflow. */
#define TIME_MAX_US 4000000000000000000LL
/* Progress bound accepted from a snapshot: 2^48 lines, so progress + lines
 * arithmetic can never overflow. */
#define PROGRESS_LIMIT (1LL << 48)

/* ------------------------------------------------------------------ time */

/* Seconds to microseconds, rounded half away from zero. The product is one
 * correctly rounded multiplication and the rounding uses only exact
 * operations (|x| < 2^62, and x - trunc(x) is exact), so every machine gets
 * the same integer. */
int64_t rs_race_time_us(double t_s)
{
    double x = t_s * 1e6;
    if (x != x)
        return 0;
    if (x >= (double)TIME_MAX_US)
        return TIME_MAX_US;
    if (x <= -(double)TIME_MAX_US)
        return -TIME_MAX_US;
    int64_t i = (int64_t)x; /* truncates toward zero; in range by the checks above */
    double frac = x - (double)i;
    if (frac >= 0.5)
        i++;
    else if (frac <= -0.5)
        i--;
    return i;
}

static uint32_t mod_n(int64_t x, uint32_t n)
{
    int64_t r = x % (int64_t)n;
    return (uint32_t)(r < 0 ? r + (int64_t)n : r);
}

/* ------------------------------------------------------------- crossings */

typedef struct crossing {
    double f;      /* fraction of the substep, (0, 1] forward, [0, 1) backward */
    uint32_t line;
    int dir;       /* +1 forward (racing direction), -1 backward */
} crossing;

/* Does p0 -> p1 cross the timing line? Sides are measured along the line's
 * normal n from its end a: d < 0 is before the line, d >= 0 past it (the
 * half-open rule). The crossing point must lie on the segment a..b, measured
 * along t = (ny, -nx), which runs from a (left) to b (right). Returns the
 * direction (0 none) and the fraction f. */
static int line_crossing(const rs_timing_line *ln, const double p0[2], const double p1[2],
                         double *f)
{
    double d0 = (p0[0] - ln->ax) * ln->nx + (p0[1] - ln->ay) * ln->ny;
    double d1 = (p1[0] - ln->ax) * ln->nx + (p1[1] - ln->ay) * ln->ny;
    int dir;
    if (d0 < 0.0 && d1 >= 0.0)
        dir = 1;
    else if (d0 >= 0.0 && d1 < 0.0)
        dir = -1;
    else
        return 0;
    /* |d0 - d1| >= |d0| holds after rounding too (the terms have opposite
     * signs), so fr is in [0, 1]. */
    double fr = d0 / (d0 - d1);
    double qx = p0[0] + fr * (p1[0] - p0[0]);
    double qy = p0[1] + fr * (p1[1] - p0[1]);
    double u = (qx - ln->ax) * ln->ny - (qy - ln->ay) * ln->nx;
    double len = (ln->bx - ln->ax) * ln->ny - (ln->by - ln->ay) * ln->nx;
    /* A loader that stored a and b the other way round still gets its line. */
    double lo = rs_min(0.0, len), hi = rs_max(0.0, len);
    if (!(u >= lo && u <= hi))
        return 0;
    *f = fr;
    return dir;
}

/* ------------------------------------------------------------- positions */

/* What orders the cars: finished cars first by finish position, then the
 * others by progress (more lines passed is ahead), by the time they got there
 * (earlier is ahead), and by slot. */
typedef struct race_key {
    uint32_t finish_position;
    int64_t progress;
    int64_t time_us;
    uint32_t index;
} race_key;

static race_key key_of(const rs_race_car *rc, uint32_t index)
{
    race_key k = {rc->finish_position, rc->progress_max, rc->progress_max_us, index};
    return k;
}

static bool key_ahead(const race_key *a, const race_key *b)
{
    if (a->finish_position != b->finish_position) {
        if (a->finish_position == 0)
            return false;
        if (b->finish_position == 0)
            return true;
        return a->finish_position < b->finish_position;
    }
    if (a->progress != b->progress)
        return a->progress > b->progress;
    if (a->time_us != b->time_us)
        return a->time_us < b->time_us;
    return a->index < b->index;
}

/* Car x's key changed from old: every car it passed (or that passed it)
 * swaps one place with it. O(cars), and positions stay a permutation. */
static void reposition(rs_race_car *cars, uint32_t ncars, uint32_t x, const race_key *old)
{
    race_key now = key_of(&cars[x], x);
    for (uint32_t y = 0; y < ncars; y++) {
        if (y == x)
            continue;
        race_key ky = key_of(&cars[y], y);
        bool before = key_ahead(&ky, old), after = key_ahead(&ky, &now);
        if (before && !after) {
            cars[y].position++;
            cars[x].position--;
        } else if (!before && after) {
            cars[y].position--;
            cars[x].position++;
        }
    }
}

/* -------------------------------------------------------------- the laps */

/* Everything one crossing needs to know about where it happens. */
typedef struct race_ctx {
    rs_race *race;
    rs_race_car *cars;
    uint32_t ncars;
    uint32_t index;
    uint32_t nlines;
    rs_event_sink *events;
} race_ctx;

static uint16_t car_id(const race_ctx *c) { return (uint16_t)(c->index + 1u); }

/* The lap in progress becomes invalid; the first reason stays. */
static void invalidate(const race_ctx *c, rs_race_car *rc, uint8_t reason, int64_t t_us)
{
    if (rc->invalid_reason != RS_LAP_VALID)
        return;
    rc->invalid_reason = reason;
    rs_event *e = rs_event_push(c->events, RS_EVENT_LAP_INVALID, car_id(c));
    if (e) {
        e->reason = reason;
        e->lap = rc->laps_completed + 1u;
        e->time_us = t_us;
    }
}

static void start_lap(rs_race_car *rc, int64_t t_us, int64_t line0_us)
{
    rc->lap_start_us = t_us;
    for (uint32_t i = 0; i < RS_MAX_SECTORS; i++)
        rc->cross_us[i] = -1;
    rc->cross_us[0] = line0_us;
    rc->invalid_reason = RS_LAP_VALID;
}

/* The lap in progress ends at t_us; line0_us is when the start line was
 * crossed, -1 when the car went round it (then the lap ends at the crossing
 * that revealed it, and the next lap starts there, invalid). */
static void complete_lap(const race_ctx *c, rs_race_car *rc, int64_t line0_us, int64_t t_us)
{
    uint32_t n = c->nlines;
    int64_t lap_us = t_us - rc->lap_start_us;
    bool valid = rc->invalid_reason == RS_LAP_VALID;
    rs_event *e = rs_event_push(c->events, RS_EVENT_LAP, car_id(c));
    if (e) {
        e->lap = rc->laps_completed + 1u;
        e->time_us = t_us;
        e->duration_us = lap_us;
        e->valid = valid;
        e->reason = rc->invalid_reason;
        e->sector_count = n;
        for (uint32_t s = 0; s < n; s++) {
            int64_t from = rc->cross_us[s];
            int64_t to = s + 1u < n ? rc->cross_us[s + 1u] : line0_us;
            e->sectors_us[s] = from >= 0 && to >= 0 ? to - from : -1;
        }
    }
    rc->last_lap_us = lap_us;
    if (valid && (rc->best_lap_us < 0 || lap_us < rc->best_lap_us))
        rc->best_lap_us = lap_us;
    rc->laps_completed++;
    if (c->race->laps > 0 && rc->laps_completed >= c->race->laps) {
        /* Confirmed, with its position, by rs_race_substep_end. */
        rc->status = RS_RACE_FINISHED;
        rc->finish_us = t_us;
        rc->finish_pending = 1;
        c->race->pending++;
        return;
    }
    start_lap(rc, t_us, line0_us);
    if (line0_us < 0)
        invalidate(c, rc, RS_LAP_SECTOR_SKIPPED, t_us);
}

/* Crossing number m happened at t_us, the first time the car got there. */
static void timed_crossing(const race_ctx *c, rs_race_car *rc, int64_t m, int64_t t_us)
{
    uint32_t n = c->nlines;
    if (m == 0) { /* the start of lap 1 */
        rc->status = RS_RACE_RACING;
        start_lap(rc, t_us, t_us);
        return;
    }
    uint32_t line = mod_n(m, n);
    uint32_t prev = (line + n - 1u) % n;
    int64_t from = rc->cross_us[prev];
    rs_event *e = rs_event_push(c->events, RS_EVENT_SECTOR, car_id(c));
    if (e) {
        e->lap = rc->laps_completed + 1u;
        e->sector = prev;
        e->time_us = t_us;
        e->duration_us = from >= 0 ? t_us - from : -1;
    }
    if (line == 0)
        complete_lap(c, rc, t_us, t_us);
    else
        rc->cross_us[line] = t_us;
}

/* Crossing number m was never reached before and the car went round it. */
static void skipped_crossing(const race_ctx *c, rs_race_car *rc, int64_t m, int64_t t_us)
{
    invalidate(c, rc, RS_LAP_SECTOR_SKIPPED, t_us);
    if (mod_n(m, c->nlines) == 0)
        complete_lap(c, rc, -1, t_us);
}

/* The car passes crossing number m (>= its progress) at t_us, having gone
 * round crossings progress .. m-1 unseen. Only crossings at or beyond the
 * best progress are new: those are timed (m) or count as skipped. */
static void advance(const race_ctx *c, int64_t m, int64_t t_us)
{
    rs_race_car *rc = &c->cars[c->index];
    race_key old = key_of(rc, c->index);
    for (int64_t k = rc->progress_max; k < m && rc->status != RS_RACE_FINISHED; k++)
        skipped_crossing(c, rc, k, t_us);
    if (m >= rc->progress_max && rc->status != RS_RACE_FINISHED)
        timed_crossing(c, rc, m, t_us);
    rc->progress = m + 1;
    if (rc->progress > rc->progress_max) {
        rc->progress_max = rc->progress;
        rc->progress_max_us = t_us;
        reposition(c->cars, c->ncars, c->index, &old);
    }
}

static void forward_crossing(const race_ctx *c, uint32_t line, int64_t t_us)
{
    rs_race_car *rc = &c->cars[c->index];
    uint32_t n = c->nlines;
    uint16_t bit = (uint16_t)(1u << line);
    if (rc->progress_max == 0) {
        /* On the grid only the start line counts: a grid behind it crosses
         * it first, a grid beyond it drives round to it untimed. */
        if (line == 0)
            advance(c, 0, t_us);
        return;
    }
    uint32_t expected = mod_n(rc->progress, n);
    if (line == expected) {
        rc->reversed_mask = (uint16_t)(rc->reversed_mask & ~bit);
        advance(c, rc->progress, t_us);
        return;
    }
    if (rc->reversed_mask & bit) { /* back over a line it had reversed over */
        rc->reversed_mask = (uint16_t)(rc->reversed_mask & ~bit);
        return;
    }
    /* Out of order: either the car went forward round k line ends unseen, or
     * backward round n - k of them. Believe the smaller number; on a tie
     * believe the one that gives no progress, so that reversing round line
     * ends can never earn a lap. */
    uint32_t k = (line + n - expected) % n;
    if (k < n - k)
        advance(c, rc->progress + (int64_t)k, t_us);
    else
        rc->progress -= (int64_t)(n - k) - 1;
}

static void backward_crossing(const race_ctx *c, uint32_t line)
{
    rs_race_car *rc = &c->cars[c->index];
    if (rc->progress_max == 0)
        return;
    if (line == mod_n(rc->progress - 1, c->nlines))
        rc->progress--; /* undone by crossing it forward again */
    else
        rc->reversed_mask = (uint16_t)(rc->reversed_mask | (1u << line));
}

void rs_race_substep(rs_race *race, rs_race_car *cars, uint32_t ncars, uint32_t car_index,
                     const rs_track *track, const double p0[2], const double p1[2],
                     double clock_s, double dt_s, bool all_wheels_out, rs_event_sink *events)
{
    if (!track || car_index >= ncars)
        return;
    uint32_t n = track->nlines < RS_MAX_SECTORS ? track->nlines : RS_MAX_SECTORS;
    rs_race_car *rc = &cars[car_index];
    if (n == 0 || rc->status == RS_RACE_FINISHED || !(clock_s + dt_s >= 0.0))
        return;
    race_ctx c = {race, cars, ncars, car_index, n, events};

    /* Lines crossed in this substep, in the order the car met them (ties,
     * only possible where lines meet, in line order). None when the path
     * is shorter (an L1 bound of every point's distance from p0) than the
     * nearest line is from p0: a path that far from a line never meets
     * it, not even by rounding. Most substeps are. */
    crossing xs[RS_MAX_SECTORS];
    uint32_t nx = 0;
    double path = rs_abs(p1[0] - p0[0]) + rs_abs(p1[1] - p0[1]);
    if (path < rs_track_line_clearance(track, p0[0], p0[1]))
        n = 0;
    for (uint32_t i = 0; i < n; i++) {
        double f;
        int dir = line_crossing(&track->line[i], p0, p1, &f);
        if (dir == 0)
            continue;
        uint32_t j = nx++;
        while (j > 0 && xs[j - 1].f > f) {
            xs[j] = xs[j - 1];
            j--;
        }
        xs[j].f = f;
        xs[j].line = i;
        xs[j].dir = dir;
    }
    for (uint32_t j = 0; j < nx && rc->status != RS_RACE_FINISHED; j++) {
        double t_s = clock_s + xs[j].f * dt_s;
        if (t_s < 0.0)
            continue; /* before lights out */
        if (xs[j].dir > 0)
            forward_crossing(&c, xs[j].line, rs_race_time_us(t_s));
        else
            backward_crossing(&c, xs[j].line);
    }
    /* Track limits at the end of the substep, against the lap then in
     * progress: a lap during which the car was ever wholly outside is
     * invalid, and the event is sent when it becomes so. */
    if (all_wheels_out && rc->status == RS_RACE_RACING)
        invalidate(&c, rc, RS_LAP_TRACK_LIMITS, rs_race_time_us(clock_s + dt_s));
}

void rs_race_substep_end(rs_race *race, rs_race_car *cars, uint32_t ncars,
                         rs_event_sink *events)
{
    if (race->pending == 0)
        return;
    int64_t last_us = 0;
    while (race->pending > 0) {
        /* The earliest crossing first; same microsecond: lower slot. */
        uint32_t x = UINT32_MAX;
        for (uint32_t y = 0; y < ncars; y++) {
            if (cars[y].finish_pending &&
                (x == UINT32_MAX || cars[y].finish_us < cars[x].finish_us))
                x = y;
        }
        if (x == UINT32_MAX) { /* cannot happen: pending counts flagged cars */
            race->pending = 0;
            break;
        }
        rs_race_car *rc = &cars[x];
        race_key old = key_of(rc, x);
        rc->finish_pending = 0;
        race->pending--;
        rc->finish_position = ++race->finishers;
        reposition(cars, ncars, x, &old);
        last_us = rc->finish_us;
        rs_event *e = rs_event_push(events, RS_EVENT_FINISH, (uint16_t)(x + 1u));
        if (e) {
            e->lap = rc->laps_completed;
            e->position = rc->finish_position;
            e->time_us = rc->finish_us;
        }
    }
    if (!race->over && race->laps > 0 && race->finishers >= ncars) {
        race->over = 1;
        rs_event *e = rs_event_push(events, RS_EVENT_RACE_OVER, 0);
        if (e)
            e->time_us = last_us;
    }
}

/* ------------------------------------------------------------ init, view */

void rs_race_init(rs_race *race, uint32_t laps)
{
    memset(race, 0, sizeof *race);
    race->laps = laps;
}

void rs_race_car_init(rs_race_car *rc, uint32_t index)
{
    memset(rc, 0, sizeof *rc);
    rc->status = RS_RACE_GRID;
    rc->progress_max_us = -1;
    for (uint32_t i = 0; i < RS_MAX_SECTORS; i++)
        rc->cross_us[i] = -1;
    rc->lap_start_us = -1;
    rc->last_lap_us = -1;
    rc->best_lap_us = -1;
    rc->finish_us = -1;
    rc->position = index + 1u;
}

void rs_race_fill_state(const rs_race_car *rc, const rs_track *track, rs_race_car_state *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n = track ? track->nlines : 0;
    out->status = rc->status;
    out->position = rc->position;
    out->laps_completed = rc->laps_completed;
    out->next_line = n ? mod_n(rc->progress, n) : 0;
    out->lap_valid = rc->invalid_reason == RS_LAP_VALID;
    out->invalid_reason = rc->invalid_reason;
    out->lap_start_us = rc->lap_start_us;
    out->last_lap_us = rc->last_lap_us;
    out->best_lap_us = rc->best_lap_us;
    out->finish_us = rc->finish_us;
    out->finish_position = rc->finish_position;
    out->crossings = (uint64_t)rc->progress_max;
    out->crossed_us = rc->progress_max_us;
}

uint32_t rs_race_order(const rs_race_car *cars, uint32_t ncars, uint16_t *order_out,
                       uint32_t cap)
{
    uint32_t m = cap < ncars ? cap : ncars;
    for (uint32_t k = 0; k < m; k++)
        order_out[k] = UINT16_MAX; /* only if positions were not a permutation */
    for (uint32_t k = 0; k < ncars; k++) {
        uint32_t p = cars[k].position;
        if (p >= 1 && p <= m)
            order_out[p - 1] = (uint16_t)k;
    }
    return ncars;
}

bool rs_race_consistent(const rs_race *race, const rs_race_car *cars, uint32_t ncars,
                        uint16_t *scratch)
{
    if (ncars > UINT16_MAX || race->pending != 0 || (race->over && race->laps == 0))
        return false;
    uint32_t finished = 0;
    for (uint32_t k = 0; k < ncars; k++)
        scratch[k] = UINT16_MAX;
    for (uint32_t k = 0; k < ncars; k++) {
        const rs_race_car *rc = &cars[k];
        if (rc->finish_pending)
            return false;
        if ((rc->status == RS_RACE_FINISHED) != (rc->finish_position != 0))
            return false;
        if (rc->finish_position != 0) {
            finished++;
            if (rc->finish_position != rc->position)
                return false;
        }
        uint32_t p = rc->position;
        if (p < 1 || p > ncars || scratch[p - 1] != UINT16_MAX)
            return false;
        scratch[p - 1] = (uint16_t)k;
    }
    if (finished != race->finishers)
        return false;
    for (uint32_t k = 0; k + 1 < ncars; k++) {
        race_key a = key_of(&cars[scratch[k]], scratch[k]);
        race_key b = key_of(&cars[scratch[k + 1]], scratch[k + 1]);
        if (!key_ahead(&a, &b))
            return false;
    }
    return true;
}

/* ---------------------------------------------------------------- bytes */

/* Both directions of a car's canonical bytes come from one field list, as
 * in the wire codec, so the writer and the reader cannot drift apart: with
 * w set the fields are written, with r set they are read (and checked). */
typedef struct race_io {
    rs_writer *w;
    rs_reader *r;
} race_io;

/* An unsigned field of 1, 2 or 4 bytes. */
static uint32_t io_uint(race_io *io, uint32_t v, unsigned bytes)
{
    if (io->r) {
        if (bytes == 1)
            return rs_read_u8(io->r);
        return bytes == 2 ? rs_read_u16(io->r) : rs_read_u32(io->r);
    }
    if (bytes == 1)
        rs_write_u8(io->w, (uint8_t)v);
    else if (bytes == 2)
        rs_write_u16(io->w, (uint16_t)v);
    else
        rs_write_u32(io->w, v);
    return v;
}

/* A signed 64-bit field; when is_time, -1 (none) or a race clock value in
 * range, which the reader checks. */
static int64_t io_i64(race_io *io, int64_t v, bool is_time)
{
    if (io->w) {
        rs_write_u64(io->w, (uint64_t)v);
        return v;
    }
    /* Two's complement without relying on the implementation-defined
     * unsigned-to-signed conversion. */
    uint64_t u = rs_read_u64(io->r);
    v = u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
    if (is_time && (v < -1 || v > TIME_MAX_US))
        io->r->error = true;
    return v;
}

/* Layout (little endian): u8 status, u8 invalid_reason, u16 reversed_mask,
 * i64 progress, i64 progress_max, i64 progress_max_us,
 * i64 cross_us[RS_MAX_SECTORS], i64 lap_start_us, u32 laps_completed,
 * i64 last_lap_us, i64 best_lap_us, i64 finish_us, u32 finish_position,
 * u32 position: 200 bytes. */
static void race_car_fields(rs_race_car *rc, race_io *io)
{
    rc->status = (uint8_t)io_uint(io, rc->status, 1);
    rc->invalid_reason = (uint8_t)io_uint(io, rc->invalid_reason, 1);
    rc->reversed_mask = (uint16_t)io_uint(io, rc->reversed_mask, 2);
    rc->progress = io_i64(io, rc->progress, false);
    rc->progress_max = io_i64(io, rc->progress_max, false);
    /* Crossings before lights out are never timed, but the grid's "never"
     * is -1, so the same range as the other times applies. */
    rc->progress_max_us = io_i64(io, rc->progress_max_us, true);
    for (uint32_t i = 0; i < RS_MAX_SECTORS; i++)
        rc->cross_us[i] = io_i64(io, rc->cross_us[i], true);
    rc->lap_start_us = io_i64(io, rc->lap_start_us, true);
    rc->laps_completed = io_uint(io, rc->laps_completed, 4);
    rc->last_lap_us = io_i64(io, rc->last_lap_us, true);
    rc->best_lap_us = io_i64(io, rc->best_lap_us, true);
    rc->finish_us = io_i64(io, rc->finish_us, true);
    rc->finish_position = io_uint(io, rc->finish_position, 4);
    rc->position = io_uint(io, rc->position, 4);
}

void rs_race_car_write(const rs_race_car *rc, rs_writer *w)
{
    rs_race_car copy = *rc; /* the field list assigns what it writes back */
    race_io io = {w, NULL};
    race_car_fields(&copy, &io);
}

void rs_race_car_read(rs_race_car *rc, rs_reader *r)
{
    race_io io = {NULL, r};
    race_car_fields(rc, &io);
    rc->finish_pending = 0;
    if (rc->status > RS_RACE_FINISHED || rc->invalid_reason > RS_LAP_TRACK_LIMITS ||
        rc->progress_max < 0 || rc->progress_max > PROGRESS_LIMIT ||
        rc->progress > rc->progress_max || rc->progress < -PROGRESS_LIMIT ||
        (rc->status == RS_RACE_GRID) != (rc->progress_max == 0) || rc->position == 0)
        r->error = true;
}

/* Layout: u32 laps, u32 finishers, u8 over: 9 bytes. */
void rs_race_write(const rs_race *race, rs_writer *w)
{
    rs_write_u32(w, race->laps);
    rs_write_u32(w, race->finishers);
    rs_write_u8(w, race->over);
}

void rs_race_read(rs_race *race, rs_reader *r)
{
    uint32_t laps = rs_read_u32(r);
    race->finishers = rs_read_u32(r);
    race->over = rs_read_u8(r);
    race->pending = 0;
    if (laps != race->laps || race->over > 1)
        r->error = true;
}

/* Both layouts have a fixed size: measured on a fresh race and car with a
 * writer that only counts, so the sizes cannot disagree with the writers. */
static size_t measured_size(bool car)
{
    rs_race race;
    rs_race_car rc;
    rs_race_init(&race, 0);
    rs_race_car_init(&rc, 0);
    rs_writer w = rs_writer_init(NULL, 0);
    if (car)
        rs_race_car_write(&rc, &w);
    else
        rs_race_write(&race, &w);
    return w.len;
}

size_t rs_race_car_size(void) { return measured_size(true); }

size_t rs_race_size(void) { return measured_size(false); }
