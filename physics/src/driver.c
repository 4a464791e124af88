/*
 * The AI driver (racesim/driver.h): turns the car's state and the racing
 * line into the same quantised input a player sends.
 *
 * Each tick it
 *  - finds itself on the line (a search in a small window around last
 *    tick's point, the whole line after a jump);
 *  - steers by pure pursuit (Coulter, "Implementation of the Pure Pursuit
 *    Path Tracking Algorithm", CMU-RI-TR-92-01, 1992): the arc from the rear
 *    axle through a point on the line a speed-dependent distance ahead gives
 *    a curvature k and a road-wheel angle atan(L k); the steady slip angles
 *    of the tyres are added (a part from their cornering stiffness, the rest
 *    learnt from how far the car runs wide), plus a cross-track and a
 *    yaw-rate term, and it counter-steers when the car slides;
 *  - sets the pedals from the speed profile a little ahead: the profile's
 *    own acceleration as feed-forward plus a proportional and a small
 *    integral term on the speed error, turned into throttle through the
 *    engine's drive force and into brake through the brakes' deceleration,
 *    with traction control and anti-lock trimming them on wheel slip;
 *  - asks for the gear with the most drive force at its speed;
 *  - looks at the cars ahead on its line: follows one it cannot pass,
 *    commits to a side to pass one it is catching where the track has
 *    room, never moves towards a car alongside, and drops back when
 *    squeezed;
 *  - recovers: stuck against a wall or stopped facing the wrong way it
 *    reverses, turning the nose back towards the racing direction (a
 *    three-point turn), then rejoins slowly before racing again.
 * Everything is in the driver's struct, counted in ticks and computed with
 * the deterministic math: no globals, no allocation per tick. It reads the
 * world's internals only for the other cars' positions and velocities (the
 * full observation of every car every tick would cost more than the rest).
 */
#include <stdlib.h>
#include <string.h>

#include "detmath.h"
#include "driver_internal.h"
#include "world.h"

/* Steering. */
#define LOOK_TIME_S 0.45      /* pure-pursuit look-ahead grows with speed ... */
#define LOOK_MIN_M 6.0        /* ... from this ... */
#define LOOK_MAX_M 45.0       /* ... to this */
#define YAW_GAIN_S 0.06       /* extra road-wheel angle per rad/s of yaw-rate error, x speed/10 */
#define LAT_GAIN 0.6          /* cross-track gain, m/s per metre off the line */
#define US_LEARN 0.02         /* learning rate of the understeer estimate, 1/(m s) */
#define US_MIN (-0.03)        /* its range: extra road-wheel angle at the */
#define US_MAX 0.15           /* cornering limit, rad */
#define US_START 0.05         /* where the estimate starts */
#define STEER_RATE 0.12       /* largest change of the steering input per tick */
#define SLIDE_BETA_RAD 0.2    /* body slip angle where counter-steer starts */
#define SPIN_BETA_RAD 0.9     /* ... and where the car is spinning: brake, wait */

/* Speed. */
#define SPEED_LOOK_S 0.18     /* the target speed is read this far ahead in time */
#define SPEED_GAIN 2.5        /* 1/s: acceleration asked per m/s of speed error */
#define SPEED_INT_GAIN 2.0    /* 1/s^2 */
#define SPEED_INT_MAX 6.0     /* m/s^2 */
#define TC_SLIP 0.12          /* traction control: driven-wheel slip ratio it allows */
#define ABS_SLIP 0.12         /* anti-lock: braking slip ratio it allows */
#define GEAR_BAND_M_S 1.0     /* shift hysteresis */

/* Traffic. */
#define TRAFFIC_MIN_M 50.0    /* cars farther ahead on the line than this, or than the */
#define TRAFFIC_MAX_M 250.0   /* distance to stop from our speed, are ignored */
#define FOLLOW_BRAKE 0.8      /* share of the planned braking used to fall in behind */
#define PASS_GAP_M 1.2        /* side gap kept to a car passed or alongside */
#define PASS_RATE_M_S 2.0     /* how fast the passing offset changes */
#define RETURN_RATE_M_S 1.0   /* ... and back to the line */
#define CREEP_GAP_M 1.5       /* behind a stopped car, creep up to this gap ... */
#define CREEP_M_S 2.0         /* ... at this speed */
#define PASS_MAX_TICKS 1200   /* a pass abandoned after 20 s */
#define PASS_ABORT_M 30.0     /* ... or when the car pulls away beyond this */
#define OFFLINE_SLOW 2.0      /* speed lost off the line: x |curvature| x offset */

/* Recovery. */
#define STUCK_TICKS 75        /* slower than 1 m/s while pushing for 1.25 s */
#define MISALIGNED_RAD 1.0    /* 57 degrees off the track's direction ... */
#define MISALIGNED_TICKS 20   /* ... at low speed for a third of a second */
#define RUNOFF_USE_M 1.0      /* room beyond the edge a slow turn may use */
#define REVERSE_MAX_TICKS 150
#define REJOIN_MAX_TICKS 360
#define REJOIN_SPEED_M_S 12.0

#define FINISHED_PACE 0.8     /* share of its pace a car keeps after the flag */

#define WINDOW_BACK 6         /* line points searched behind ... */
#define WINDOW_AHEAD 40       /* ... and ahead of last tick's point */
#define RELOCATE_M 15.0       /* farther than this from the windowed part: search all */

struct rs_driver {
    const rs_racing_line *line;
    double pace;
    double look_scale;     /* per-driver look-ahead variation */
    double pass_eagerness; /* per-driver: how early it pulls out */
    uint32_t idx;          /* nearest segment last tick */
    bool located;
    uint8_t mode;          /* rs_driver_mode */
    uint32_t mode_ticks;
    uint32_t stuck_ticks;
    uint32_t wrong_ticks;
    double pass_offset;    /* lateral shift from the line, + = left */
    uint16_t pass_car;     /* the car being passed (index1), 0 = none */
    int8_t pass_side;      /* +1 passing on its left, -1 on its right */
    uint32_t pass_ticks;   /* how long the pass has taken */
    double steer;          /* last steering input, [-1, 1] */
    double throttle;       /* last throttle, [0, 1] */
    double tc, abs_gain;   /* traction control and anti-lock trims, (0, 1] */
    double understeer;     /* learnt extra steer at the cornering limit, rad */
    double speed_int;      /* integral of the speed error (m/s^2 of extra demand) */
    double reverse_steer;  /* steering held while reversing */
    uint32_t recoveries;
    rs_driver_status status;
};

/* ------------------------------------------------------------- options */

rs_driver_options rs_driver_options_default(void)
{
    rs_driver_options o;
    o.pace = 0.97;
    o.seed = 0;
    return o;
}

/* A small deterministic hash of the seed (Wang's integer hash), mapped to
 * [-1, 1]. */
static double seed_unit(uint32_t seed, uint32_t salt)
{
    uint32_t x = seed * 2654435761u + salt * 40503u + 1u;
    x = (x ^ 61u) ^ (x >> 16);
    x *= 9u;
    x ^= x >> 4;
    x *= 0x27d4eb2du;
    x ^= x >> 15;
    return (double)(x & 0xffffu) / 32767.5 - 1.0;
}

rs_status rs_driver_create(const rs_racing_line *line, const rs_driver_options *options,
                           rs_driver **out)
{
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    if (!line)
        return RS_ERR_ARG;
    rs_driver_options o = options ? *options : rs_driver_options_default();
    if (!(o.pace > 0.0 && o.pace <= 1.0))
        return RS_ERR_RANGE;
    rs_driver *d = calloc(1, sizeof *d);
    if (!d)
        return RS_ERR_NOMEM;
    d->line = line;
    d->pace = rs_min(o.pace * (1.0 + 0.01 * seed_unit(o.seed, 1)), 1.0);
    d->look_scale = 1.0 + 0.05 * seed_unit(o.seed, 2);
    d->pass_eagerness = 1.0 + 0.2 * seed_unit(o.seed, 3);
    d->tc = 1.0;
    d->abs_gain = 1.0;
    d->understeer = US_START;
    d->mode = RS_DRIVER_RACING;
    *out = d;
    return RS_OK;
}

void rs_driver_destroy(rs_driver *driver) { free(driver); }

void rs_driver_get_status(const rs_driver *driver, rs_driver_status *out)
{
    *out = driver->status;
}

/* ------------------------------------------------------------ the line */

static uint32_t next_of(const rs_racing_line *l, uint32_t j) { return j + 1 < l->n ? j + 1 : 0; }

/* Where a point is relative to line segment j. */
typedef struct seg_hit {
    uint32_t j;
    double t;    /* 0..1 along the segment */
    double lat;  /* signed distance, + = left of the line */
    double d2;   /* squared distance to the segment */
} seg_hit;

static void project(const rs_racing_line *l, uint32_t j, double px, double py, seg_hit *h)
{
    uint32_t k = next_of(l, j);
    double dx = l->x[k] - l->x[j], dy = l->y[k] - l->y[j];
    double len2 = dx * dx + dy * dy;
    double rx = px - l->x[j], ry = py - l->y[j];
    double t = len2 > 0.0 ? rs_clamp((rx * dx + ry * dy) / len2, 0.0, 1.0) : 0.0;
    double ex = rx - t * dx, ey = ry - t * dy;
    double len = rs_sqrt(len2);
    h->j = j;
    h->t = t;
    h->d2 = ex * ex + ey * ey;
    h->lat = len > 0.0 ? (dx * ry - dy * rx) / len : 0.0;
}

/* Nearest segment among count segments from first (wrapping). */
static void nearest(const rs_racing_line *l, uint32_t first, uint32_t count, double px, double py,
                    seg_hit *best)
{
    best->d2 = -1.0;
    uint32_t j = first;
    for (uint32_t c = 0; c < count; c++) {
        seg_hit h;
        project(l, j, px, py, &h);
        if (best->d2 < 0.0 || h.d2 < best->d2)
            *best = h;
        j = next_of(l, j);
    }
}

static void locate(rs_driver *d, double px, double py, seg_hit *h)
{
    const rs_racing_line *l = d->line;
    if (d->located) {
        uint32_t back = WINDOW_BACK < l->n ? WINDOW_BACK : 0;
        uint32_t first = d->idx >= back ? d->idx - back : d->idx + l->n - back;
        uint32_t count = WINDOW_BACK + WINDOW_AHEAD < l->n ? WINDOW_BACK + WINDOW_AHEAD : l->n;
        nearest(l, first, count, px, py, h);
        if (h->d2 <= RELOCATE_M * RELOCATE_M) {
            d->idx = h->j;
            return;
        }
    }
    nearest(l, 0, l->n, px, py, h);
    d->idx = h->j;
    d->located = true;
}

/* A position on the line: segment and fraction. */
typedef struct line_pos {
    uint32_t j;
    double t;
} line_pos;

/* Walks dist metres along the line from p (forward only). */
static line_pos advance(const rs_racing_line *l, line_pos p, double dist)
{
    double left = dist + p.t * l->seg[p.j];
    uint32_t guard = l->n + 1;
    while (left > l->seg[p.j] && guard-- > 0) {
        left -= l->seg[p.j];
        p.j = next_of(l, p.j);
    }
    p.t = l->seg[p.j] > 0.0 ? rs_clamp(left / l->seg[p.j], 0.0, 1.0) : 0.0;
    return p;
}

static double lerp_at(const rs_racing_line *l, const double *a, line_pos p)
{
    return a[p.j] + p.t * (a[next_of(l, p.j)] - a[p.j]);
}

/* ------------------------------------------------------------ traffic */

/* What the cars around ask of this driver this tick. */
typedef struct traffic {
    bool lead;           /* a car ahead in the driver's path */
    uint16_t lead_id;    /* its rs_car_id.index1 */
    double lead_gap_m;   /* bumper to bumper along the line */
    double lead_speed;   /* its speed along the line */
    double lead_lat;     /* its offset from the line */
    double lead_room_left, lead_room_right; /* room beside it, offsets from the line */
    double max_offset;   /* cars alongside: the driver's offset must stay below ... */
    double min_offset;   /* ... and above these */
    double side_speed;   /* slowest car alongside and not behind, along the line */
    bool mark;           /* the car being passed is in view: */
    double mark_ds;      /* its distance ahead along the line (negative: behind) */
    double mark_lat;     /* its offset from the line */
    double mark_speed;
} traffic;

static void scan_traffic(const rs_driver *d, const rs_world *world, rs_car_id me,
                         const rs_car_state *st, const seg_hit *self, double range, traffic *tr)
{
    const rs_racing_line *l = d->line;
    double w = l->info.width_m, len = l->info.length_m;
    double my_s = l->s[self->j] + self->t * l->seg[self->j];
    double hx, hy;
    rs_sincos(st->yaw_rad, &hy, &hx);
    memset(tr, 0, sizeof *tr);
    tr->max_offset = 1e9;
    tr->min_offset = -1e9;
    tr->side_speed = 1e9;
    uint32_t count = world->count;
    uint32_t window = (uint32_t)(range / (l->length / (double)l->n)) + 4u;
    if (window > l->n)
        window = l->n;
    uint32_t back = 3u < l->n ? 3u : 0u;
    uint32_t first = self->j >= back ? self->j - back : self->j + l->n - back;
    for (uint32_t c = 1; c <= count; c++) {
        if (c == me.index1)
            continue;
        /* Read the other car's body directly: the full observation
         * (rs_world_car_state) costs more than the rest of this loop. */
        const rs_car *o = &world->cars[c - 1];
        double rx = o->pos[0] - st->pos_m[0], ry = o->pos[1] - st->pos_m[1];
        if (rx * rx + ry * ry > (range + 10.0) * (range + 10.0))
            continue;
        seg_hit h;
        nearest(l, first, window + back < l->n ? window + back : l->n, o->pos[0], o->pos[1], &h);
        if (h.d2 > 15.0 * 15.0)
            continue;
        double ds = l->s[h.j] + h.t * l->seg[h.j] - my_s;
        if (ds < -0.5 * l->length)
            ds += l->length;
        else if (ds > 0.5 * l->length)
            ds -= l->length;
        double ox = l->x[next_of(l, h.j)] - l->x[h.j], oy = l->y[next_of(l, h.j)] - l->y[h.j];
        double olen = rs_sqrt(ox * ox + oy * oy);
        double v_along = olen > 0.0 ? (o->vel[0] * ox + o->vel[1] * oy) / olen
                                    : o->vel[0] * hx + o->vel[1] * hy;
        if (c == d->pass_car) {
            tr->mark = true;
            tr->mark_ds = ds;
            tr->mark_lat = h.lat;
            tr->mark_speed = v_along;
        }
        if (ds > -len - 2.0 && ds < len + 2.0) {
            /* Alongside (overlapping along the line): keep a side gap. */
            if (h.lat > self->lat)
                tr->max_offset = rs_min(tr->max_offset, h.lat - (w + PASS_GAP_M));
            else
                tr->min_offset = rs_max(tr->min_offset, h.lat + (w + PASS_GAP_M));
            /* Only a car ahead makes us yield: two cars level would
             * otherwise both wait for the other. */
            if (ds > 0.3)
                tr->side_speed = rs_min(tr->side_speed, v_along);
            if (ds <= 0.0)
                continue;
        }
        if (ds <= 0.0 || ds > range)
            continue;
        /* In the path the driver is taking (its passing offset, or where
         * it is now while it moves across)? */
        double gap_lat = rs_min(rs_abs(h.lat - d->pass_offset), rs_abs(h.lat - self->lat));
        if (gap_lat > w + PASS_GAP_M)
            continue;
        double gap = ds - len;
        if (!tr->lead || gap < tr->lead_gap_m) {
            line_pos p = {h.j, h.t};
            tr->lead = true;
            tr->lead_gap_m = gap;
            tr->lead_speed = v_along;
            tr->lead_lat = h.lat;
            /* Room beside it now and 50 m on: the side to pass on. */
            line_pos q = advance(l, p, 50.0);
            double off = lerp_at(l, l->off, p), off_q = lerp_at(l, l->off, q);
            tr->lead_id = (uint16_t)c;
            tr->lead_room_left = rs_min(lerp_at(l, l->hi, p) - off - h.lat,
                                        lerp_at(l, l->hi, q) - off_q - h.lat);
            tr->lead_room_right = rs_min(h.lat - (lerp_at(l, l->lo, p) - off),
                                         h.lat - (lerp_at(l, l->lo, q) - off_q));
        }
    }
}

/* ------------------------------------------------------------ gears */

static uint8_t best_gear_at(const rs_line_perf *p, double v)
{
    double x = rs_clamp(v / RS_LINE_FORCE_DV + 0.5, 0.0, (double)RS_LINE_FORCE_STEPS);
    return p->best_gear[(int)x]; /* in range: clamped */
}

/* The gear with the most drive force at this speed, with a speed band of
 * hysteresis so it does not hunt between two gears. A request for a forward
 * gear means "drive" to an automatic gearbox, so this works in both modes. */
static int choose_gear(const rs_racing_line *l, int current, double v, double rpm)
{
    const rs_line_perf *p = &l->perf;
    int best = best_gear_at(p, v);
    if (current < 1)
        return best;
    /* Near the limiter (wheelspin, a smaller rolling radius than planned)
     * shift up at once. */
    if (rpm > 0.98 * l->info.redline_rpm && current < (int)l->info.gears)
        return best > current ? best : current + 1;
    if (best > current && best_gear_at(p, v - GEAR_BAND_M_S) > current)
        return best;
    int down = best_gear_at(p, v + GEAR_BAND_M_S);
    if (down < current)
        return down;
    return current;
}

/* ------------------------------------------------------------ recovery */

/* Whether a forward turn at full lock from heading error dpsi fits in the
 * room the car's nose points at: it drifts R (1 - cos dpsi) sideways
 * (R = L / tan(lock), the tightest circle), plus half its length. */
static bool forward_turn_fits(const rs_racing_line *l, line_pos here, double lat, double dpsi)
{
    double lock = l->info.steer_lock_rad;
    if (lock <= 0.0)
        return true;
    double radius = l->info.wheelbase_m / rs_tan(lock);
    double need = radius * (1.0 - rs_cos(dpsi)) + 0.5 * l->info.length_m;
    double centre_off = lerp_at(l, l->off, here) + lat;
    double room = dpsi > 0.0 ? lerp_at(l, l->wl, here) - centre_off
                             : lerp_at(l, l->wr, here) + centre_off;
    return need <= room + RUNOFF_USE_M;
}

/* ------------------------------------------------------------ update */

static rs_input make_input(double steer, double throttle, double brake, int gear)
{
    rs_input in = rs_input_quantise(steer, throttle, brake, 0.0, 0.0);
    in.gear = (int8_t)gear;
    return in;
}

static void set_mode(rs_driver *d, uint8_t mode)
{
    if (mode != RS_DRIVER_RACING && d->mode == RS_DRIVER_RACING)
        d->recoveries++;
    d->mode = mode;
    d->mode_ticks = 0;
    d->stuck_ticks = 0;
    d->wrong_ticks = 0;
}

static double rate_limit(double prev, double want, double rate)
{
    return rs_clamp(want, prev - rate, prev + rate);
}

/* What the driver sees of its car this tick: read once, then every stage of
 * rs_driver_update reads it through a pointer. */
typedef struct tick_view {
    rs_car_state st;
    double tick_dt;
    double ch, sh;          /* cosine and sine of the heading */
    double v;               /* forward speed */
    double vlat;            /* sideways speed, + = left */
    double speed;           /* |velocity| */
    seg_hit self;           /* the nearest line segment */
    line_pos here;
    double dpsi;            /* heading against the line's direction, rad */
    bool before_start;
    double pace;            /* share of the planned speed it drives at */
} tick_view;

/* The input being decided: steering, then pedals (trimmed on wheel slip),
 * then the gear. */
typedef struct controls {
    double steer, throttle, brake;
    int gear;
} controls;

/* Reads the car, finds it on the line and reads the race. False when the
 * car is not in the world. */
static bool observe(rs_driver *d, const rs_world *world, rs_car_id car, tick_view *t)
{
    const rs_racing_line *l = d->line;
    if (rs_world_car_state(world, car, &t->st) != RS_OK)
        return false;
    t->tick_dt = 1.0 / (double)world->def.tick_hz;
    rs_sincos(t->st.yaw_rad, &t->sh, &t->ch);
    t->v = t->st.forward_speed_m_s;
    t->vlat = -t->sh * t->st.vel_m_s[0] + t->ch * t->st.vel_m_s[1];
    t->speed = t->st.speed_m_s;

    bool first = !d->located;
    locate(d, t->st.pos_m[0], t->st.pos_m[1], &t->self);
    /* Start from where the car is (a grid slot beside the line) and merge
     * onto the line gradually, with the cars around in view. */
    if (first)
        d->pass_offset = t->self.lat;
    t->here = (line_pos){t->self.j, t->self.t};
    uint32_t jn = next_of(l, t->self.j);
    double line_heading = rs_atan2(l->y[jn] - l->y[t->self.j], l->x[jn] - l->x[t->self.j]);
    t->dpsi = rs_wrap_angle(t->st.yaw_rad - line_heading);

    rs_race_car_state race;
    bool finished = rs_world_race_state(world, car, &race) == RS_OK &&
                    race.status == RS_RACE_FINISHED;
    t->before_start = rs_world_race_time_us(world) < 0;
    t->pace = finished ? FINISHED_PACE * d->pace : d->pace; /* a cool-down lap */
    return true;
}

/* ---- traffic */

/* Committed to a pass: stays on the chosen side until the car is behind
 * us, out of view, pulling away, or it has taken too long. Returns the
 * offset from the line the pass asks for (0 without one). */
static double keep_pass(rs_driver *d, const traffic *tr, double v, double need)
{
    if (!d->pass_car)
        return 0.0;
    d->pass_ticks++;
    bool done = !tr->mark || tr->mark_ds < -(d->line->info.length_m + 3.0) ||
                d->pass_ticks > PASS_MAX_TICKS ||
                (tr->mark_ds > PASS_ABORT_M && tr->mark_speed > v + 1.0);
    if (done) {
        d->pass_car = 0;
        return 0.0;
    }
    return tr->mark_lat + (double)d->pass_side * need;
}

/* The car ahead in the driver's path: catching it, commit to the side with
 * room (setting *pass_target); and return the speed that keeps a safe gap
 * behind it (1e9: no car ahead). */
static double follow_lead(rs_driver *d, const traffic *tr, double v, double follow_dec,
                          double need, double *pass_target)
{
    if (!tr->lead)
        return 1e9;
    double closing = v - tr->lead_speed;
    double horizon = d->pass_eagerness * (1.5 * rs_max(closing, 0.0) + 0.4 * v) + 6.0;
    if (!d->pass_car && tr->lead_gap_m < horizon && closing > -1.0) {
        bool left = tr->lead_room_left >= need, right = tr->lead_room_right >= need;
        if (left || right) {
            d->pass_car = tr->lead_id;
            d->pass_side = (int8_t)(left && (!right || tr->lead_room_left >= tr->lead_room_right)
                                        ? 1 : -1);
            d->pass_ticks = 0;
            *pass_target = tr->lead_lat + (double)d->pass_side * need;
        }
    }
    /* Follow: the speed from which most of the planned braking stops
     * us at the gap we keep behind it, were it to brake as hard:
     * v^2 = v_lead^2 + 2 a (gap - keep). Closer than that, back off. */
    double follow_speed;
    double keep = 3.0 + 0.25 * v;
    double lead_v = rs_max(tr->lead_speed, 0.0);
    double room = tr->lead_gap_m - keep;
    if (room >= 0.0)
        follow_speed = rs_sqrt(lead_v * lead_v + 2.0 * follow_dec * room);
    else
        follow_speed = lead_v + 0.5 * room;
    /* Creep up to a stopped car rather than wait behind it for ever:
     * close enough, the pass logic finds a way round. */
    if (tr->lead_gap_m > CREEP_GAP_M)
        follow_speed = rs_max(follow_speed, CREEP_M_S);
    return follow_speed;
}

/* Clean running, the only time the understeer estimate learns: racing, no
 * car beside it or close ahead, on the line, on the track, not sliding. */
static bool clean_running(const rs_driver *d, const tick_view *t, const traffic *tr)
{
    bool inside = true;
    for (int i = 0; i < 4; i++)
        inside = inside && t->st.wheels[i].inside_limits;
    return d->mode == RS_DRIVER_RACING && tr->min_offset < -1e8 && tr->max_offset > 1e8 &&
           (!tr->lead || tr->lead_gap_m > 30.0) && rs_abs(d->pass_offset) < 0.3 && inside &&
           rs_abs(t->vlat) < 0.1 * rs_abs(t->v) + 0.5;
}

/* The track's room beside the line, here and a little ahead: the offsets
 * from the line the car's centre may take. */
static void room_ahead(const rs_racing_line *l, line_pos here, double *lo, double *hi)
{
    double room_lo = lerp_at(l, l->lo, here) - lerp_at(l, l->off, here);
    double room_hi = lerp_at(l, l->hi, here) - lerp_at(l, l->off, here);
    for (int k = 1; k <= 3; k++) {
        line_pos soon = advance(l, here, 10.0 * k);
        room_lo = rs_max(room_lo, lerp_at(l, l->lo, soon) - lerp_at(l, l->off, soon));
        room_hi = rs_min(room_hi, lerp_at(l, l->hi, soon) - lerp_at(l, l->off, soon));
    }
    *lo = room_lo;
    *hi = room_hi;
}

/* Moves the passing offset towards pass_target, inside the room the track
 * and the cars alongside leave. Returns follow_speed, lowered when the car
 * is squeezed and must drop back. */
static double move_pass_offset(rs_driver *d, const tick_view *t, traffic *tr,
                               double pass_target, double follow_speed)
{
    /* The track's room bounds the room the cars alongside leave. */
    double room_lo, room_hi;
    room_ahead(d->line, t->here, &room_lo, &room_hi);
    tr->min_offset = rs_max(tr->min_offset, room_lo);
    tr->max_offset = rs_min(tr->max_offset, room_hi);
    pass_target = rs_clamp(pass_target, tr->min_offset, tr->max_offset);
    if (tr->min_offset > tr->max_offset) {
        /* Squeezed between a car alongside and the edge or another car:
         * take the middle and drop back behind the one ahead. */
        pass_target = 0.5 * (tr->min_offset + tr->max_offset);
        if (tr->side_speed < 1e8)
            follow_speed = rs_min(follow_speed, rs_max(tr->side_speed - 3.0, 0.0));
    }
    double rate = (rs_abs(pass_target) > rs_abs(d->pass_offset) ? PASS_RATE_M_S : RETURN_RATE_M_S) *
                  t->tick_dt;
    d->pass_offset = rate_limit(d->pass_offset, pass_target, rate);
    /* Never aim off the track: where the room beside the line shrinks, the
     * offset shrinks with it at once. */
    if (room_lo <= room_hi)
        d->pass_offset = rs_clamp(d->pass_offset, room_lo, room_hi);
    return follow_speed;
}

/* Looks at the cars around: keeps, starts or ends a pass, moves the passing
 * offset, and returns the speed the traffic allows (1e9: no limit). *clean
 * says whether this is clean running (clean_running). */
static double plan_traffic(rs_driver *d, const rs_world *world, rs_car_id car,
                           const tick_view *t, bool *clean)
{
    const rs_racing_line *l = d->line;
    traffic tr;
    double follow_dec = FOLLOW_BRAKE * rs_line_table(l->perf.brake_dec, rs_abs(t->v));
    double range = rs_clamp(t->v * t->v / (2.0 * follow_dec) + 20.0, TRAFFIC_MIN_M, TRAFFIC_MAX_M);
    scan_traffic(d, world, car, &t->st, &t->self, range, &tr);
    double need = l->info.width_m + PASS_GAP_M + 0.4; /* clear of the in-path test */
    double pass_target = keep_pass(d, &tr, t->v, need);
    double follow_speed = follow_lead(d, &tr, t->v, follow_dec, need, &pass_target);
    /* Before the track's room bounds the offsets: a car alongside, not the
     * edge, is what makes running unclean. */
    *clean = clean_running(d, t, &tr);
    return move_pass_offset(d, t, &tr, pass_target, follow_speed);
}

/* ---- mode changes */

static void update_mode(rs_driver *d, const tick_view *t)
{
    d->mode_ticks++;
    bool fits = forward_turn_fits(d->line, t->here, t->self.lat, t->dpsi);
    if (t->before_start) {
        d->stuck_ticks = 0;
        d->wrong_ticks = 0;
    } else if (d->mode == RS_DRIVER_RACING || d->mode == RS_DRIVER_REJOINING) {
        d->stuck_ticks = (rs_abs(t->v) < 1.0 && d->throttle > 0.2) ? d->stuck_ticks + 1 : 0;
        d->wrong_ticks =
            (rs_abs(t->dpsi) > MISALIGNED_RAD && t->speed < 6.0) ? d->wrong_ticks + 1 : 0;
        /* Rejoining already turns at full lock towards the line; only a
         * wall (stuck) sends it back to reversing. */
        bool misaligned = d->wrong_ticks > MISALIGNED_TICKS && d->mode == RS_DRIVER_RACING;
        if (d->stuck_ticks > STUCK_TICKS || (misaligned && !fits)) {
            set_mode(d, RS_DRIVER_REVERSING);
            /* Reversing with the wheels turned towards dpsi's sign turns the
             * nose the other way: back towards the racing direction. */
            d->reverse_steer = t->dpsi >= 0.0 ? 1.0 : -1.0;
        } else if (misaligned) {
            set_mode(d, RS_DRIVER_REJOINING);
        } else if (d->mode == RS_DRIVER_REJOINING &&
                   ((rs_abs(t->dpsi) < 0.35 && rs_abs(t->self.lat) < 2.5 && t->v > 4.0) ||
                    d->mode_ticks > REJOIN_MAX_TICKS)) {
            set_mode(d, RS_DRIVER_RACING);
        }
    } else if (d->mode == RS_DRIVER_REVERSING) {
        /* Backed away from the wall and turned far enough that a forward
         * turn at full lock finishes the job (a three-point turn). */
        bool turned = (rs_abs(t->dpsi) < MISALIGNED_RAD || fits) && d->mode_ticks > 60;
        bool blocked = d->mode_ticks > 60 && rs_abs(t->v) < 0.3;
        if (turned || blocked || d->mode_ticks > REVERSE_MAX_TICKS)
            set_mode(d, RS_DRIVER_REJOINING);
    }
}

/* ---- reversing */

static void drive_reverse(rs_driver *d, const tick_view *t, controls *c)
{
    double v = t->v;
    c->gear = RS_GEAR_REVERSE;
    c->throttle = 0.0;
    c->brake = 0.0;
    if (v > 0.5) {
        c->brake = 1.0;
    } else {
        c->throttle = v > -3.0 ? 0.45 : 0.0;
        c->brake = v < -4.0 ? 0.3 : 0.0;
    }
    c->steer = rate_limit(d->steer, d->reverse_steer, STEER_RATE);
    d->steer = c->steer;
    d->throttle = c->throttle;
}

/* ---- steering: pure pursuit from the rear axle */

/* The curvature of the arc from the rear axle through the target point,
 * the line's point a speed-dependent distance ahead shifted by the passing
 * offset; (*bx, *by) is that point in the body frame. */
static double pursuit_curvature(const rs_driver *d, const tick_view *t, double *bx, double *by)
{
    const rs_racing_line *l = d->line;
    double ch = t->ch, sh = t->sh;
    double rx = t->st.pos_m[0] + l->rear_x_m * ch, ry = t->st.pos_m[1] + l->rear_x_m * sh;
    double look = rs_clamp(LOOK_TIME_S * d->look_scale * rs_abs(t->v), LOOK_MIN_M, LOOK_MAX_M);
    if (d->mode == RS_DRIVER_REJOINING)
        look = LOOK_MIN_M + 2.0;
    line_pos tp = advance(l, t->here, look);
    double off = lerp_at(l, l->off, tp);
    double shifted = rs_clamp(off + d->pass_offset, lerp_at(l, l->lo, tp), lerp_at(l, l->hi, tp));
    double nx = lerp_at(l, l->nx, tp), ny = lerp_at(l, l->ny, tp);
    double cx = lerp_at(l, l->cx, tp), cy = lerp_at(l, l->cy, tp);
    double tx = cx + shifted * nx - rx, ty = cy + shifted * ny - ry;
    double x = ch * tx + sh * ty, y = -sh * tx + ch * ty;
    *bx = x;
    *by = y;
    double dist2 = x * x + y * y;
    return dist2 > 1e-6 ? 2.0 * y / dist2 : 0.0;
}

/* Adds to delta the steady slip angles the car needs on an arc of
 * curvature k_pp, and learns the understeer part in clean running. */
static double add_steady_slip(rs_driver *d, const tick_view *t, double k_pp, bool clean,
                              double delta)
{
    const rs_line_perf *pf = &d->line->perf;
    double v = t->v;
    /* Steady-state slip angles: the front needs alpha_f, the rear
     * turns the car by alpha_r, each about (lateral force / load) over
     * the tyre's cornering-stiffness coefficient; with the aero load
     * spread like the weight, force / load = a_y / (g + q v^2). */
    double self_err = t->self.lat - d->pass_offset;
    double n_lat = v * v * k_pp / (pf->g + pf->q_down * v * v);
    double n_max = rs_line_table(pf->lat_acc, rs_abs(v)) / (pf->g + pf->q_down * v * v);
    n_lat = rs_clamp(n_lat, -n_max, n_max);
    delta += n_lat * (pf->slip_per_load[0] - pf->slip_per_load[1]);
    /* The rest of the understeer (load transfer, the tyres' growing
     * slip near their limit) rises faster than the lateral force: a
     * term in n |n| / n_max, its gain learnt from how far the car runs
     * wide in corners, only in clean running (no car beside it, on the
     * line, on the track, not sliding). */
    double shape = n_max > 0.0 ? n_lat * rs_abs(n_lat) / n_max : 0.0;
    delta += d->understeer * shape;
    if (clean && v > 8.0 && rs_abs(n_lat) > 0.3 * n_max)
        d->understeer = rs_clamp(d->understeer - US_LEARN * self_err * shape * t->tick_dt,
                                 US_MIN, US_MAX);
    return delta;
}

/* Whether the car slides (counter-steer, less throttle) or spins (off the
 * throttle, on the brakes). */
typedef struct slide {
    bool sliding, spinning;
} slide;

/* The steering input, rate-limited; fills *s for the pedals. */
static double steer_on_line(rs_driver *d, const tick_view *t, bool clean, slide *s)
{
    const rs_racing_line *l = d->line;
    double v = t->v;
    double bx, by;
    double k_pp = pursuit_curvature(d, t, &bx, &by);
    double L = l->info.wheelbase_m;
    double delta = rs_atan(L * k_pp);
    delta = add_steady_slip(d, t, k_pp, clean, delta);
    /* Stanley's cross-track term (Thrun et al., "Stanley: the robot
     * that won the DARPA Grand Challenge", 2006), softened at speed. */
    double self_err = t->self.lat - d->pass_offset;
    delta -= rs_atan(LAT_GAIN * self_err / (rs_abs(v) + 5.0));
    if (bx < 0.0) /* target behind: turn towards it at full lock */
        delta = by >= 0.0 ? l->info.steer_lock_rad : -l->info.steer_lock_rad;
    /* Yaw-rate feedback: a real car needs more than the kinematic angle
     * (understeer) and must be caught when it yaws too much. */
    if (v > 3.0) {
        double r_des = v * k_pp;
        delta += YAW_GAIN_S * (r_des - t->st.angvel_rad_s[2]) * rs_min(v / 10.0, 3.0);
    }
    /* Counter-steer a slide: point the front wheels along the travel. */
    double beta = v > 2.0 ? rs_atan2(t->vlat, v) : 0.0;
    s->sliding = rs_abs(beta) > SLIDE_BETA_RAD && t->speed > 5.0;
    s->spinning = (rs_abs(beta) > SPIN_BETA_RAD || v < -1.0) && t->speed > 5.0;
    if (s->sliding)
        delta = delta + (rs_abs(beta) - SLIDE_BETA_RAD) * rs_sign(beta);
    double want = rs_clamp(delta / l->info.steer_lock_rad, -1.0, 1.0);
    d->steer = rate_limit(d->steer, want, STEER_RATE);
    return d->steer;
}

/* ---- speed */

/* The speed to drive at, a little ahead on the profile, and the profile's
 * own acceleration there (*a_ff, the feed-forward). */
static double target_speed(rs_driver *d, const tick_view *t, double follow_speed, double *a_ff)
{
    const rs_racing_line *l = d->line;
    line_pos sp = advance(l, t->here, rs_max(t->v, 0.0) * SPEED_LOOK_S + 1.0);
    line_pos sp2 = advance(l, sp, 5.0);
    double vt = t->pace * lerp_at(l, l->v, sp);
    double vt2 = t->pace * lerp_at(l, l->v, sp2);
    *a_ff = (vt2 * vt2 - vt * vt) / 10.0;
    /* Off the line a corner is tighter (or longer): a little slower
     * there, in proportion to how much the line turns. */
    double kap = rs_abs(lerp_at(l, l->kappa, sp));
    vt *= 1.0 - rs_min(OFFLINE_SLOW * kap * rs_abs(d->pass_offset), 0.15);
    if (d->mode == RS_DRIVER_REJOINING)
        vt = rs_min(vt, REJOIN_SPEED_M_S), *a_ff = rs_min(*a_ff, 0.0);
    if (vt > follow_speed) {
        vt = rs_max(follow_speed, 0.0);
        *a_ff = rs_min(*a_ff, 0.0);
    }
    return vt;
}

/* Throttle or brake from the speed error: feed-forward, proportional and
 * integral, through the engine's drive force and the brakes' deceleration. */
static void set_pedals(rs_driver *d, const tick_view *t, double vt, double a_ff, controls *c)
{
    const rs_line_perf *pf = &d->line->perf;
    double v = t->v;
    c->throttle = 0.0;
    c->brake = 0.0;
    /* The integral catches what the plan leaves out (cornering drag of
     * slipping tyres, shift gaps); it only builds while the car is
     * short of the target and the pedals are not saturated. */
    double err = vt - v;
    if (err > 0.0 && err < 3.0 && d->throttle < 0.99 && !t->before_start)
        d->speed_int = rs_min(d->speed_int + SPEED_INT_GAIN * err * t->tick_dt, SPEED_INT_MAX);
    else if (err < 0.0)
        d->speed_int = rs_max(d->speed_int + 4.0 * SPEED_INT_GAIN * err * t->tick_dt, 0.0);
    double a_cmd = a_ff + SPEED_GAIN * err + d->speed_int;
    double resist = pf->q_drag * v * v + pf->roll * (pf->g + pf->q_down * v * v);
    double drive = rs_max(rs_line_table(pf->force, rs_max(v, 0.0)), 0.5);
    if (a_cmd + resist >= 0.0)
        c->throttle = rs_clamp((a_cmd + resist) / drive, 0.0, 1.0);
    else
        c->brake = rs_clamp((-a_cmd - resist) / pf->brake_acc, 0.0, 1.0);
    if (t->before_start)
        c->throttle = 0.0, c->brake = 1.0;
    /* Rolling backwards (after reversing, or pushed): stop before the
     * gearbox can take a forward gear. */
    if (v < -0.5)
        c->throttle = 0.0, c->brake = 1.0;
}

/* ---- traction control and anti-lock on the wheels' slip */

static void trim_on_slip(rs_driver *d, const tick_view *t, const slide *s, controls *c)
{
    const rs_racing_line *l = d->line;
    double slip_max = 0.0, slip_min = 0.0;
    for (int i = 0; i < 2; i++) {
        double slip = t->st.wheels[l->driven[i]].slip_ratio;
        slip_max = rs_max(slip_max, slip);
    }
    for (int i = 0; i < 4; i++)
        slip_min = rs_min(slip_min, t->st.wheels[i].slip_ratio);
    if (t->speed > 3.0 && slip_max > TC_SLIP)
        d->tc = rs_max(d->tc * 0.8, 0.1);
    else
        d->tc = rs_min(d->tc + 0.05, 1.0);
    if (t->speed > 3.0 && slip_min < -ABS_SLIP)
        d->abs_gain = rs_max(d->abs_gain * 0.75, 0.2);
    else
        d->abs_gain = rs_min(d->abs_gain + 0.05, 1.0);
    c->throttle *= d->tc;
    c->brake *= d->abs_gain;
    if (s->sliding)
        c->throttle *= 0.5;
    if (s->spinning) {
        c->throttle = 0.0;
        c->brake = d->abs_gain;
    }
}

/* Racing or rejoining: steering, pedals and gear from the line. */
static void drive_on_line(rs_driver *d, const tick_view *t, bool clean, double follow_speed,
                          controls *c)
{
    slide s;
    c->steer = steer_on_line(d, t, clean, &s);
    double a_ff;
    double vt = target_speed(d, t, follow_speed, &a_ff);
    d->status.target_speed_m_s = vt;
    set_pedals(d, t, vt, a_ff, c);
    trim_on_slip(d, t, &s, c);
    d->throttle = c->throttle;
    c->gear = choose_gear(d->line, t->st.gear, rs_max(t->v, 0.0), t->st.engine_rpm);
}

static void publish_status(rs_driver *d, const tick_view *t)
{
    const rs_racing_line *l = d->line;
    d->status.mode = d->mode;
    d->status.line_index = t->self.j;
    d->status.line_s_m = l->s[t->self.j] + t->self.t * l->seg[t->self.j];
    d->status.lateral_error_m = t->self.lat - d->pass_offset;
    d->status.pass_offset_m = d->pass_offset;
    d->status.recoveries = d->recoveries;
    if (d->mode == RS_DRIVER_REVERSING)
        d->status.target_speed_m_s = 0.0;
}

rs_input rs_driver_update(rs_driver *d, const rs_world *world, rs_car_id car)
{
    tick_view t;
    if (!observe(d, world, car, &t))
        return make_input(0.0, 0.0, 1.0, RS_GEAR_KEEP);
    bool clean;
    double follow_speed = plan_traffic(d, world, car, &t, &clean);
    update_mode(d, &t);
    controls c;
    if (d->mode == RS_DRIVER_REVERSING)
        drive_reverse(d, &t, &c);
    else
        drive_on_line(d, &t, clean, follow_speed, &c);
    publish_status(d, &t);
    return make_input(c.steer, c.throttle, c.brake, c.gear);
}
