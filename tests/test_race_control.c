/*
 * Race control (server/room/src/room_control.c), as players meet it: real
 * SDK clients over the room harness's in-memory link race on the oval, and
 * the tests read what the clients were told (PENALTY, RESULTS) and, through
 * the room's observer, what the world reported (its hits), to check the
 * rules independently of the room:
 *
 * - track limits: a car driven off the track on every lap gets one WARNING
 *   per strike and a TIME penalty at the N-th, and loses its place;
 * - contact: two cars driven into each other get (v / 5 m/s)^2 points each
 *   per hit and a TIME penalty per multiple of the threshold passed; a
 *   nudge below the minimum speed counts for nothing;
 * - jump start: with a free start, a car on the throttle before lights out
 *   is penalised at lights out, one that waits is not;
 * - AI cars racing cleanly get nothing at all;
 * - an administrator's penalties (the room API) change the order, removing
 *   one undoes it, and a player rejoining hears the session's penalties;
 * - the room's classification (rs_room_results) lists each penalty with its
 *   car's row as given (warnings too), removals folded in, and the next
 *   session starts with none;
 * - outside races track limits only invalidate laps; bad rules are refused.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "racesim/driver.h"
#include "racesim/protocol.h"
#include "racesim/room.h"
#include "room_harness.h"
#include "test_data.h"

#define SECOND 1000000LL
#define STEP_US 2000
#define RC_PI 3.14159265358979323846

static rs_room_config race_config(const test_scene *s, uint32_t players, uint32_t laps)
{
    rs_room_config c = harness_room_config(s, players);
    c.max_players = 4;
    c.countdown_ticks = 120;
    c.results_ticks = 600;
    c.laps = laps;
    return c;
}

/* Steps until client i holds a RESULTS of race_number, which it returns. */
static rs_msg_results results_of(harness *h, uint32_t i, uint32_t race_number, int64_t deadline)
{
    rs_client_event ev;
    for (;;) {
        while (harness_client_take(h, i, RS_CLIENT_EV_RESULTS, &ev))
            if (ev.u.results.race_number == race_number)
                return ev.u.results;
        assert_true(harness_now(h) < deadline);
        harness_step(h, STEP_US);
    }
}

static void run_until_phase(harness *h, uint8_t phase, int64_t deadline)
{
    for (;;) {
        rs_room_stats st;
        rs_room_get_stats(harness_room(h), &st);
        if (st.phase == phase)
            return;
        assert_true(harness_now(h) < deadline);
        harness_step(h, STEP_US);
    }
}

/* The PENALTY messages client i heard, in order. */
typedef struct heard {
    uint32_t count;
    rs_msg_penalty p[256];
} heard;

static void take_penalties(harness *h, uint32_t i, heard *out)
{
    rs_client_event ev;
    while (harness_client_take(h, i, RS_CLIENT_EV_PENALTY, &ev)) {
        assert_true(out->count < 256);
        out->p[out->count++] = ev.u.penalty;
    }
}

static uint32_t count_of(const heard *hd, uint8_t car, uint8_t kind, uint8_t offence)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < hd->count; i++)
        n += hd->p[i].car == car && hd->p[i].kind == kind && hd->p[i].offence == offence &&
             !hd->p[i].removed;
    return n;
}

static const rs_proto_result_row *row_of(const rs_msg_results *r, uint8_t car)
{
    for (uint32_t i = 0; i < r->count; i++)
        if (r->rows[i].car == car)
            return &r->rows[i];
    fail_msg("car %u not in the results", car);
    return NULL;
}

/* The room's classification now (rs_room_results): the penalties of car
 * in the order given, up to cap, and how many there are. */
static uint32_t listed(const rs_room_results_info *info, uint8_t car,
                       const rs_room_penalty **out, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < info->penalty_count; i++)
        if (info->penalties[i].car == car) {
            if (n < cap)
                out[n] = &info->penalties[i];
            n++;
        }
    return n;
}

/* The time penalties in force of car in info, in ms: what its row's
 * penalty_ms must be (warnings and removed penalties count for nothing). */
static uint32_t time_in_force_ms(const rs_room_results_info *info, uint8_t car)
{
    uint32_t ms = 0;
    for (uint32_t i = 0; i < info->penalty_count; i++) {
        const rs_room_penalty *p = &info->penalties[i];
        if (p->car == car && p->kind == RS_PENALTY_TIME && !p->removed)
            ms += p->seconds * 1000u;
    }
    return ms;
}

static const rs_room_result_row *info_row(const rs_room_results_info *info, uint8_t car)
{
    for (uint32_t i = 0; i < info->count; i++)
        if (info->rows[i].row.car == car)
            return &info->rows[i];
    fail_msg("car %u not in the room's results", car);
    return NULL;
}

/* ---------------------------------------------- a driver that goes wide */

/* A driver on a given line: the oval's centre line, except that on the back
 * straight it swings this far to the left (onto the grass inside the
 * track), all four wheels beyond the track limits. */
typedef struct wide_driver {
    rs_racing_line *line;
    rs_driver *driver;
} wide_driver;

static double swing_m(double s, double off)
{
    if (s < 850.0 || s > 1250.0)
        return 0.0;
    if (s < 950.0)
        return off * (s - 850.0) / 100.0;
    if (s > 1150.0)
        return off * (1250.0 - s) / 100.0;
    return off;
}

static void wide_driver_init(wide_driver *w, const test_scene *s, double off)
{
    uint32_t n = rs_track_point_count(s->track);
    rs_track_point *pts = test_malloc(n * sizeof *pts);
    for (uint32_t i = 0; i < n; i++) {
        rs_track_point a, b, c;
        assert_true(rs_track_point_at(s->track, i, &a));
        assert_true(rs_track_point_at(s->track, (i + n - 1) % n, &b));
        assert_true(rs_track_point_at(s->track, (i + 1) % n, &c));
        double tx = c.x_m - b.x_m, ty = c.y_m - b.y_m, len = hypot(tx, ty);
        double o = swing_m(a.s_m, off);
        pts[i] = a;
        pts[i].x_m = a.x_m - ty / len * o; /* the left normal is (-ty, tx) */
        pts[i].y_m = a.y_m + tx / len * o;
        pts[i].width_left_m = pts[i].width_right_m = 0.0; /* the points are the line */
    }
    assert_int_equal(rs_racing_line_build_points(pts, n, s->car, NULL, &w->line), RS_OK);
    test_free(pts);
    rs_driver_options o = rs_driver_options_default();
    o.pace = 0.9;
    assert_int_equal(rs_driver_create(w->line, &o, &w->driver), RS_OK);
}

static void wide_driver_free(wide_driver *w)
{
    rs_driver_destroy(w->driver);
    rs_racing_line_destroy(w->line);
}

static rs_input wide_input(void *ctx, const rs_world *world, rs_car_id car, uint64_t tick)
{
    (void)tick;
    return rs_driver_update(((wide_driver *)ctx)->driver, world, car);
}

/* (a) Three laps, each with an excursion: strikes 1/2 and 2/2 (a TIME
 * penalty), then 1/2 again. The offender, quicker on the road, finishes
 * first and is classified behind the AI car. */
static void test_track_limit_strikes_make_a_time_penalty(void **state)
{
    const test_scene *s = *state;
    rs_room_config cfg = race_config(s, 2, 3);
    cfg.finish_timeout_ticks = 300 * 60;
    cfg.race_control.track_limits.strikes = 2;
    cfg.race_control.track_limits.penalty_s = 120;
    harness *h = harness_create(&cfg, NULL);
    wide_driver wd;
    wide_driver_init(&wd, s, 11.0);
    rs_client_config a = harness_player("offender", 20);
    a.input_fn = wide_input;
    a.input_ctx = &wd;
    harness_add_client(h, &a, HARNESS_PLAIN);
    rs_client_config b = harness_player("clean", 20);
    harness_add_client(h, &b, HARNESS_AI);
    rs_bot_set_pace(harness_bot(h, 1), 0.5);

    rs_msg_results r = results_of(h, 0, 1, harness_now(h) + 600 * SECOND);
    heard hd = {0};
    take_penalties(h, 0, &hd);
    uint8_t off = 1, clean = 2; /* car i + 1 is the i-th to join */
    assert_int_equal(count_of(&hd, off, RS_PENALTY_WARNING, RS_OFFENCE_TRACK_LIMITS), 3);
    assert_int_equal(count_of(&hd, off, RS_PENALTY_TIME, RS_OFFENCE_TRACK_LIMITS), 1);
    assert_int_equal(hd.count, 4); /* nothing else, nothing for the clean car */
    /* In order: 1/2, 2/2 with the penalty after it, 1/2. */
    assert_string_equal(hd.p[0].text, "track limits 1/2");
    assert_string_equal(hd.p[1].text, "track limits 2/2");
    assert_int_equal(hd.p[2].kind, RS_PENALTY_TIME);
    assert_int_equal(hd.p[2].seconds, 120);
    assert_string_equal(hd.p[3].text, "track limits 1/2");
    for (uint32_t i = 0; i < hd.count; i++)
        assert_int_equal(hd.p[i].id, i + 1);
    /* The other client heard the same. */
    heard other = {0};
    take_penalties(h, 1, &other);
    assert_int_equal(other.count, 4);
    assert_int_equal(other.p[2].id, hd.p[2].id);
    assert_int_equal(other.p[2].tick, hd.p[2].tick);

    const rs_proto_result_row *ro = row_of(&r, off), *rc = row_of(&r, clean);
    assert_int_equal(ro->penalty_ms, 120000);
    assert_int_equal(rc->penalty_ms, 0);
    assert_int_equal(ro->status, RS_CLASSIFIED);
    assert_int_equal(rc->status, RS_CLASSIFIED);
    assert_true(ro->finish_us < rc->finish_us);  /* first on the road ... */
    assert_int_equal(r.rows[0].car, clean);      /* ... second once penalised */
    assert_true(ro->finish_us + 120 * SECOND > rc->finish_us);

    /* The room's classification lists them with the offender's row, as
     * the players heard them, warnings too; only the time counts. */
    rs_room_results_info *info = test_malloc(sizeof *info);
    assert_true(rs_room_results(harness_room(h), info));
    assert_true(info->final);
    const rs_room_penalty *lp[8];
    assert_int_equal(listed(info, off, lp, 8), 4);
    assert_int_equal(listed(info, clean, lp + 4, 4), 0);
    static const uint8_t kinds[] = {RS_PENALTY_WARNING, RS_PENALTY_WARNING, RS_PENALTY_TIME,
                                    RS_PENALTY_WARNING};
    int64_t last_us = -1;
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(lp[i]->id, hd.p[i].id);
        assert_int_equal(lp[i]->kind, kinds[i]);
        assert_int_equal(lp[i]->offence, RS_OFFENCE_TRACK_LIMITS);
        assert_int_equal(lp[i]->seconds, i == 2 ? 120 : 0);
        assert_string_equal(lp[i]->reason, hd.p[i].text);
        assert_int_equal(lp[i]->tick, hd.p[i].tick);
        assert_false(lp[i]->removed);
        /* Given on a lap of the race: after lights out, in order, before
         * the end. */
        assert_true(lp[i]->race_time_us > 0 && lp[i]->race_time_us >= last_us);
        assert_true(lp[i]->race_time_us <= info->race_time_us);
        last_us = lp[i]->race_time_us;
    }
    assert_string_equal(lp[2]->reason, "2 track limit strikes");
    assert_int_equal(info_row(info, off)->row.penalty_ms, time_in_force_ms(info, off));
    test_free(info);
    harness_destroy(h);
    wide_driver_free(&wd);
}

/* ------------------------------------------------------------- contact */

/* Car 1 drives 60 m up the straight and stops; car 2 waits, then drives at
 * it at ram_speed and brakes hard once it is close. */
typedef struct ram {
    double ram_speed;
    bool done;
} ram;

static rs_input steer_to(const rs_car_state *me, double x, double y, double speed_want)
{
    rs_input in = rs_input_default();
    double a = atan2(y - me->pos_m[1], x - me->pos_m[0]) - me->yaw_rad;
    while (a > RC_PI)
        a -= 2 * RC_PI;
    while (a < -RC_PI)
        a += 2 * RC_PI;
    double st = fmax(-1.0, fmin(1.0, 2.0 * a));
    in.steer = (int16_t)(st * RS_STEER_MAX);
    if (me->speed_m_s < speed_want)
        in.throttle = speed_want - me->speed_m_s > 2.0 ? 255 : 120;
    else if (me->speed_m_s > speed_want + 1.0)
        in.brake = 120;
    return in;
}

static rs_input leader_input(void *ctx, const rs_world *world, rs_car_id car, uint64_t tick)
{
    (void)ctx;
    (void)tick;
    rs_car_state me;
    if (rs_world_car_state(world, car, &me) != RS_OK)
        return rs_input_default();
    rs_input in = rs_input_default();
    if (me.pos_m[0] < 40.0 && me.speed_m_s < 8.0)
        in.throttle = 160;
    else
        in.brake = 255;
    return in;
}

static rs_input rammer_input(void *ctx, const rs_world *world, rs_car_id car, uint64_t tick)
{
    ram *r = ctx;
    rs_car_state me, them;
    rs_input in = rs_input_default();
    in.brake = 255;
    if (tick < 8 * 60 || rs_world_car_state(world, car, &me) != RS_OK ||
        rs_world_car_state(world, (rs_car_id){1}, &them) != RS_OK)
        return in;
    /* The hit, in this client's own world (its prediction of the other car,
     * standing on its brakes, is exact). */
    size_t n = 0;
    const rs_event *ev = rs_world_events(world, &n);
    for (size_t i = 0; i < n; i++)
        if (ev[i].type == RS_EVENT_CAR_HIT)
            r->done = true;
    if (r->done)
        return in;
    return steer_to(&me, them.pos_m[0], them.pos_m[1], r->ram_speed);
}

/* The car-to-car hits the world reported, seen by the room's observer. */
typedef struct hits {
    uint32_t count;
    double speed[64];
} hits;

static void on_room_event(void *ctx, rs_room *room, const rs_room_event *ev)
{
    (void)room;
    hits *hs = ctx;
    if (ev->type != RS_ROOM_EV_STEPPED)
        return;
    size_t n = 0;
    const rs_event *e = rs_world_events(ev->world, &n);
    for (size_t i = 0; i < n; i++)
        if (e[i].type == RS_EVENT_CAR_HIT && hs->count < 64)
            hs->speed[hs->count++] = e[i].speed_m_s;
}

/* Runs the ram at ram_speed; the race ends (admin) 20 s after lights out. */
static void ram_race(const test_scene *s, double ram_speed, const rs_room_race_control *rules,
                     hits *hs, heard *hd, rs_msg_results *res)
{
    rs_room_config cfg = race_config(s, 2, 5);
    cfg.race_control = *rules;
    cfg.observer.ctx = hs;
    cfg.observer.event = on_room_event;
    harness *h = harness_create(&cfg, NULL);
    ram rm = {.ram_speed = ram_speed};
    rs_client_config a = harness_player("leader", 20);
    a.input_fn = leader_input;
    harness_add_client(h, &a, HARNESS_PLAIN);
    rs_client_config b = harness_player("rammer", 20);
    b.input_fn = rammer_input;
    b.input_ctx = &rm;
    harness_add_client(h, &b, HARNESS_PLAIN);
    int64_t deadline = harness_now(h) + 120 * SECOND;
    run_until_phase(h, RS_PHASE_RACE, deadline);
    /* Until 3 s after the ram got there (a slow one takes a while). */
    uint64_t until = UINT64_MAX;
    for (uint64_t t = 0; t < until; t = rs_world_tick(rs_room_world(harness_room(h)))) {
        assert_true(t < 90 * 60);
        if (rm.done && until == UINT64_MAX)
            until = t + 3 * 60;
        harness_step(h, STEP_US);
    }
    assert_true(rm.done); /* it got there */
    assert_true(rs_room_end_race(harness_room(h)));
    *res = results_of(h, 0, 1, deadline);
    take_penalties(h, 0, hd);
    harness_destroy(h);
}

static void test_contact_points_weigh_closing_speed(void **state)
{
    rs_room_race_control rules;
    memset(&rules, 0, sizeof rules);
    rules.contact.min_speed_m_s = 3.0;
    rules.contact.penalty_points = 1.0;
    rules.contact.penalty_s = 5;

    /* A ram at about 9 m/s: points and penalties for both. */
    hits hs = {0};
    heard hd = {0};
    rs_msg_results r;
    ram_race(*state, 9.0, &rules, &hs, &hd, &r);
    double pts = 0.0;
    uint32_t counted = 0;
    for (uint32_t i = 0; i < hs.count; i++)
        if (hs.speed[i] >= rules.contact.min_speed_m_s) {
            pts += (hs.speed[i] / 5.0) * (hs.speed[i] / 5.0);
            counted++;
        }
    assert_true(counted >= 1);
    uint32_t due = (uint32_t)floor(pts / rules.contact.penalty_points);
    assert_true(due >= 1);
    for (uint8_t car = 1; car <= 2; car++) {
        assert_int_equal(count_of(&hd, car, RS_PENALTY_WARNING, RS_OFFENCE_CONTACT), counted);
        assert_int_equal(count_of(&hd, car, RS_PENALTY_TIME, RS_OFFENCE_CONTACT), due);
        assert_int_equal(row_of(&r, car)->penalty_ms, due * 5000u);
    }

    /* The same thresholds with a disqualification just below the points:
     * both out, no time penalty. */
    rules.contact.dsq_points = pts * 0.999;
    rules.contact.penalty_points = pts * 2.0;
    memset(&hs, 0, sizeof hs);
    memset(&hd, 0, sizeof hd);
    ram_race(*state, 9.0, &rules, &hs, &hd, &r);
    for (uint8_t car = 1; car <= 2; car++) {
        assert_int_equal(count_of(&hd, car, RS_PENALTY_DSQ, RS_OFFENCE_CONTACT), 1);
        assert_int_equal(count_of(&hd, car, RS_PENALTY_TIME, RS_OFFENCE_CONTACT), 0);
        assert_int_equal(row_of(&r, car)->status, RS_DISQUALIFIED);
    }

    /* A nudge below the minimum: the world saw the contact, race control
     * counts nothing. */
    rules.contact.dsq_points = 0.0;
    rules.contact.penalty_points = 0.01;
    memset(&hs, 0, sizeof hs);
    memset(&hd, 0, sizeof hd);
    ram_race(*state, 2.0, &rules, &hs, &hd, &r);
    assert_true(hs.count >= 1);
    for (uint32_t i = 0; i < hs.count; i++)
        assert_true(hs.speed[i] < rules.contact.min_speed_m_s);
    assert_int_equal(hd.count, 0);
    assert_int_equal(row_of(&r, 1)->penalty_ms, 0);
    assert_int_equal(row_of(&r, 2)->penalty_ms, 0);
}

/* ---------------------------------------------------------- jump start */

static void test_jump_start_is_judged_at_lights_out(void **state)
{
    const test_scene *s = *state;
    rs_room_config cfg = race_config(s, 2, 5);
    cfg.free_start = true;
    cfg.race_control.jump_start.penalty_s = 10;
    harness *h = harness_create(&cfg, NULL);
    rs_client_config a = harness_player("eager", 20);
    harness_add_client(h, &a, HARNESS_PLAIN);
    rs_client_config b = harness_player("patient", 20);
    harness_add_client(h, &b, HARNESS_PLAIN);
    rs_input go = rs_input_default();
    go.throttle = 200;
    rs_client_set_input(harness_client(h, 0), &go);
    int64_t deadline = harness_now(h) + 120 * SECOND;
    run_until_phase(h, RS_PHASE_COUNTDOWN, deadline);
    /* Nothing is judged before lights out. */
    while (rs_world_tick(rs_room_world(harness_room(h))) < cfg.countdown_ticks - 1)
        harness_step(h, STEP_US);
    size_t n = 1;
    assert_null(rs_room_penalties(harness_room(h), &n));
    assert_int_equal(n, 0);
    run_until_phase(h, RS_PHASE_RACE, deadline);
    for (int k = 0; k < 200; k++)
        harness_step(h, STEP_US);
    assert_true(rs_room_end_race(harness_room(h)));
    rs_msg_results r = results_of(h, 1, 1, deadline);
    heard hd = {0};
    take_penalties(h, 1, &hd);
    assert_int_equal(hd.count, 1);
    assert_int_equal(hd.p[0].car, 1);
    assert_int_equal(hd.p[0].kind, RS_PENALTY_TIME);
    assert_int_equal(hd.p[0].offence, RS_OFFENCE_JUMP_START);
    assert_int_equal(hd.p[0].seconds, 10);
    assert_int_equal(hd.p[0].tick, cfg.countdown_ticks);
    assert_int_equal(row_of(&r, 1)->penalty_ms, 10000);
    assert_int_equal(row_of(&r, 2)->penalty_ms, 0);
    harness_destroy(h);
}

/* ------------------------------------------------------- clean racing */

static void test_clean_ai_racing_gets_no_penalty(void **state)
{
    const test_scene *s = *state;
    rs_room_config cfg = race_config(s, 3, 2);
    cfg.free_start = true;
    cfg.race_control.track_limits.strikes = 3;
    cfg.race_control.track_limits.penalty_s = 5;
    cfg.race_control.contact.min_speed_m_s = 3.0;
    cfg.race_control.contact.penalty_points = 4.0;
    cfg.race_control.contact.penalty_s = 5;
    cfg.race_control.contact.dsq_points = 20.0;
    cfg.race_control.jump_start.penalty_s = 10;
    harness *h = harness_create(&cfg, NULL);
    for (uint32_t k = 0; k < 3; k++) {
        char name[24];
        snprintf(name, sizeof name, "driver%u", k);
        rs_client_config c = harness_player(name, 20);
        harness_add_client(h, &c, HARNESS_AI);
    }
    rs_msg_results r = results_of(h, 0, 1, harness_now(h) + 600 * SECOND);
    assert_int_equal(r.count, 3);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(r.rows[i].status, RS_CLASSIFIED);
        assert_int_equal(r.rows[i].penalty_ms, 0);
        assert_int_equal(harness_client_events(h, i)->count[RS_CLIENT_EV_PENALTY], 0);
    }
    harness_destroy(h);
}

/* ------------------------------------------------------- administrators */

static void test_admin_penalties_change_the_order(void **state)
{
    const test_scene *s = *state;
    rs_room_config cfg = race_config(s, 2, 1);
    cfg.finish_timeout_ticks = 300 * 60;
    harness *h = harness_create(&cfg, NULL);
    rs_client_config a = harness_player("fast", 20);
    harness_add_client(h, &a, HARNESS_AI);
    rs_client_config b = harness_player("slow", 20);
    harness_add_client(h, &b, HARNESS_AI);
    rs_bot_set_pace(harness_bot(h, 1), 0.8);
    rs_room *room = harness_room(h);
    int64_t deadline = harness_now(h) + 300 * SECOND;

    /* Nothing to penalise in the lobby. */
    uint32_t id = 0;
    assert_int_equal(rs_room_penalty_add(room, "fast", RS_PENALTY_TIME, 30, "x", &id),
                     RS_ERR_MISSING);
    run_until_phase(h, RS_PHASE_RACE, deadline);
    assert_int_equal(rs_room_penalty_add(room, "nobody", RS_PENALTY_TIME, 30, "x", &id),
                     RS_ERR_MISSING);
    assert_int_equal(rs_room_penalty_add(room, "fast", RS_PENALTY_TIME, 0, "x", &id),
                     RS_ERR_RANGE);
    assert_int_equal(rs_room_penalty_add(room, "fast", RS_PENALTY_TIME, 3601, "x", &id),
                     RS_ERR_RANGE);
    /* fast gets an hour, slow is disqualified and reinstated. */
    uint32_t hour = 0, dsq = 0, extra = 0;
    assert_int_equal(rs_room_penalty_add(room, "fast", RS_PENALTY_TIME, 3600, "blocking", &hour),
                     RS_OK);
    assert_int_equal(rs_room_penalty_add(room, "slow", RS_PENALTY_DSQ, 0, "pit lane", &dsq),
                     RS_OK);
    assert_int_equal(rs_room_penalty_add(room, "slow", RS_PENALTY_TIME, 20, "", &extra), RS_OK);
    assert_int_equal(hour, 1);
    assert_int_equal(dsq, 2);
    assert_int_equal(extra, 3);
    assert_int_equal(rs_room_penalty_remove(room, dsq, "it was the other car"), RS_OK);
    assert_int_equal(rs_room_penalty_remove(room, dsq, "again"), RS_ERR_ARG);
    assert_int_equal(rs_room_penalty_remove(room, 99, "none"), RS_ERR_ARG);
    assert_int_equal(rs_room_penalty_remove(room, extra, ""), RS_OK);
    size_t n = 0;
    const rs_msg_penalty *log = rs_room_penalties(room, &n);
    assert_int_equal(n, 5);
    assert_true(log[3].removed && log[3].id == dsq);
    assert_string_equal(log[3].text, "it was the other car");

    /* A player who drops and rejoins hears the session's penalties again. */
    for (int k = 0; k < 100; k++)
        harness_step(h, STEP_US);
    heard before = {0};
    take_penalties(h, 1, &before);
    assert_int_equal(before.count, 5);
    harness_client_drop(h, 1);
    harness_client_rejoin(h, 1, NULL);
    rs_bot_set_pace(harness_bot(h, 1), 0.8); /* a new bot */
    for (int k = 0; k < 500; k++)
        harness_step(h, STEP_US);
    heard again = {0};
    take_penalties(h, 1, &again);
    assert_int_equal(again.count, 5);
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(again.p[i].id, before.p[i].id);
        assert_int_equal(again.p[i].kind, before.p[i].kind);
        assert_int_equal(again.p[i].removed, before.p[i].removed);
        assert_int_equal(again.p[i].tick, before.p[i].tick);
        assert_string_equal(again.p[i].text, before.p[i].text);
    }

    rs_msg_results r = results_of(h, 0, 1, deadline);
    const rs_proto_result_row *rf = row_of(&r, 1), *rs = row_of(&r, 2);
    assert_int_equal(rf->status, RS_CLASSIFIED);
    assert_int_equal(rs->status, RS_CLASSIFIED); /* reinstated */
    assert_int_equal(rf->penalty_ms, 3600000);
    assert_int_equal(rs->penalty_ms, 0);         /* its 20 s were taken back */
    assert_true(rf->finish_us < rs->finish_us);  /* fast crossed first ... */
    assert_int_equal(r.rows[0].car, 2);          /* ... and is classified second */
    /* Nothing is changed once the results are out. */
    assert_int_equal(rs_room_penalty_remove(room, hour, "late"), RS_ERR_MISSING);

    /* The classification lists all three, the two taken back as removed,
     * with why; only the hour counts. */
    rs_room_results_info *info = test_malloc(sizeof *info);
    assert_true(rs_room_results(room, info));
    const rs_room_penalty *lf[4], *ls[4];
    assert_int_equal(listed(info, 1, lf, 4), 1);
    assert_int_equal(listed(info, 2, ls, 4), 2);
    assert_int_equal(lf[0]->id, hour);
    assert_int_equal(lf[0]->kind, RS_PENALTY_TIME);
    assert_int_equal(lf[0]->offence, RS_OFFENCE_ADMIN);
    assert_int_equal(lf[0]->seconds, 3600);
    assert_string_equal(lf[0]->reason, "blocking");
    assert_false(lf[0]->removed);
    assert_int_equal(ls[0]->id, dsq);
    assert_int_equal(ls[0]->kind, RS_PENALTY_DSQ);
    assert_string_equal(ls[0]->reason, "pit lane");
    assert_true(ls[0]->removed);
    assert_string_equal(ls[0]->removed_reason, "it was the other car");
    assert_true(ls[0]->removed_tick >= ls[0]->tick);
    assert_int_equal(ls[1]->id, extra);
    assert_int_equal(ls[1]->seconds, 20);
    assert_string_equal(ls[1]->reason, "an administrator's decision");
    assert_true(ls[1]->removed);
    assert_string_equal(ls[1]->removed_reason, "taken back by an administrator");
    assert_int_equal(info_row(info, 1)->row.penalty_ms, time_in_force_ms(info, 1));
    assert_int_equal(info_row(info, 2)->row.penalty_ms, time_in_force_ms(info, 2));
    assert_int_equal(time_in_force_ms(info, 2), 0);

    /* The next session starts with none. */
    run_until_phase(h, RS_PHASE_COUNTDOWN, harness_now(h) + 120 * SECOND);
    assert_true(rs_room_results(room, info));
    assert_int_equal(info->penalty_count, 0);
    assert_null(info->penalties);
    size_t left = 1;
    assert_null(rs_room_penalties(room, &left));
    assert_int_equal(left, 0);
    test_free(info);
    harness_destroy(h);
}

/* Practice and qualifying: the world invalidates the lap, which sets no
 * time; race control gives nothing. */
static void test_track_limits_outside_races_only_invalidate_laps(void **state)
{
    const test_scene *s = *state;
    const rs_proto_session_def quali[] = {{.type = RS_SESSION_QUALIFYING, .time_limit_s = 80}};
    rs_room_config cfg = race_config(s, 1, 1);
    cfg.sessions = quali;
    cfg.session_count = 1;
    cfg.race_control.track_limits.strikes = 1;
    cfg.race_control.track_limits.penalty_s = 10;
    harness *h = harness_create(&cfg, NULL);
    wide_driver wd;
    wide_driver_init(&wd, s, 11.0);
    rs_client_config a = harness_player("offender", 20);
    a.input_fn = wide_input;
    a.input_ctx = &wd;
    harness_add_client(h, &a, HARNESS_PLAIN);
    rs_msg_results r = results_of(h, 0, 1, harness_now(h) + 300 * SECOND);
    rs_client_event ev;
    uint32_t invalid = 0;
    while (harness_client_take(h, 0, RS_CLIENT_EV_LAP, &ev))
        invalid += !ev.u.lap.valid && ev.u.lap.invalid_reason == RS_LAP_TRACK_LIMITS;
    assert_true(invalid >= 1);
    assert_int_equal(harness_client_events(h, 0)->count[RS_CLIENT_EV_PENALTY], 0);
    assert_int_equal(r.rows[0].penalty_ms, 0);
    assert_int_equal(r.rows[0].status, RS_NOT_CLASSIFIED); /* no valid lap */
    harness_destroy(h);
    wide_driver_free(&wd);
}

/* The room refuses rules out of range, and a jump start rule without a
 * free start. */
static void test_rules_are_checked(void **state)
{
    rs_room_config cfg = race_config(*state, 1, 1);
    rs_room *room = NULL;
    char err[256] = "";
    cfg.race_control.jump_start.penalty_s = 10;
    assert_int_equal(rs_room_create(&cfg, &room, err, sizeof err), RS_ERR_RANGE);
    assert_non_null(strstr(err, "jump_start needs free_start"));
    cfg.free_start = true;
    assert_int_equal(rs_room_create(&cfg, &room, err, sizeof err), RS_OK);
    rs_room_destroy(room);
    cfg.race_control.contact.min_speed_m_s = 3.0; /* neither threshold */
    assert_int_equal(rs_room_create(&cfg, &room, err, sizeof err), RS_ERR_RANGE);
    cfg.race_control.contact.dsq_points = 10.0;
    assert_int_equal(rs_room_create(&cfg, &room, err, sizeof err), RS_OK);
    rs_room_destroy(room);
    cfg.race_control.contact.penalty_points = 2.0; /* without its seconds */
    assert_int_equal(rs_room_create(&cfg, &room, err, sizeof err), RS_ERR_RANGE);
    cfg.race_control.contact.penalty_s = 3601;
    assert_int_equal(rs_room_create(&cfg, &room, err, sizeof err), RS_ERR_RANGE);
    cfg.race_control.contact.penalty_s = 5;
    cfg.race_control.track_limits.strikes = 3; /* without its seconds */
    assert_int_equal(rs_room_create(&cfg, &room, err, sizeof err), RS_ERR_RANGE);
    assert_non_null(strstr(err, "track_limits.penalty_s"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_track_limit_strikes_make_a_time_penalty),
        cmocka_unit_test(test_contact_points_weigh_closing_speed),
        cmocka_unit_test(test_jump_start_is_judged_at_lights_out),
        cmocka_unit_test(test_clean_ai_racing_gets_no_penalty),
        cmocka_unit_test(test_admin_penalties_change_the_order),
        cmocka_unit_test(test_track_limits_outside_races_only_invalidate_laps),
        cmocka_unit_test(test_rules_are_checked),
    };
    return cmocka_run_group_tests(tests, harness_scene_setup, harness_scene_teardown);
}
