/*
 * Rooms on worker threads (docs/RACESERVER.md, "Threads").
 *
 * - The pool itself: a job that takes long (a slow room) holds only its own
 *   worker; the other jobs run on the other worker meanwhile, and handing a
 *   job over never waits for a worker.
 * - The raceserver program end to end (a child process over loopback, with
 *   its database): four rooms of three AI bots (two of two under a
 *   sanitizer) race one lap, once with the rooms on the network thread
 *   (--workers 1) and once on two workers. Each run: every bot sees its
 *   race's results with no desync (the FRAMEs' state hashes agree with the
 *   clients') and every LAP flagged recorded (the database's answer, which
 *   reaches a room on a worker once it is home); outside sanitizer builds
 *   also at least 99 % of the inputs in time, and the network thread kept
 *   serving (no bot went 500 ms without a message while racing). Across
 *   the runs: each room logged the same sequence of lifecycle events
 *   (joins, leaves, race start, lights out, race end) and stored the same
 *   records (the race finished, a result and a lap per car), so handing a
 *   room between threads neither reorders nor loses what it does.
 * - A flood into a room on a worker: two rooms of two AI bots on two
 *   workers, and a spectator of one of them sending reliable and unreliable
 *   messages as fast as its ENet sends them, from its own thread, for 3 s
 *   of the race. The server stays up (it stops cleanly), every bot stays
 *   connected and racing with no desync (outside sanitizer builds, never
 *   half a second without a message), the flood is turned away (counted
 *   dropped or rate limited), and the flooder is disconnected exactly when
 *   the server logs that it overflowed its room's inbox (room_inbox.h; a
 *   stock ENet client seldom can: the inbox only fills while the room's
 *   update runs, test_room_inbox fills it directly).
 * - A server stopped for 150 ms (SIGSTOP), five times in a race of two
 *   rooms: the INPUTs that arrived meanwhile reach their rooms before the
 *   ticks the rooms catch up on (outside sanitizer builds at most one late
 *   input per car and stop; it used to be most of the ticks stood still).
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "raw_client.h"
#include "room_pool.h"
#include "server_proc.h"
#include "test_sql.h"
#include "worker_thread.h"
#include "racesim/bot.h"
#include "racesim/client.h"
#include "racesim/protocol.h"
#include "racesim/base/clock.h"

/* Under a sanitizer (ThreadSanitizer several times slower, AddressSanitizer
 * two to three) the races' timing says nothing about the pool: the timing
 * checks are left out there, the desync and order checks stay. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) /* gcc */
#define UNDER_SANITIZER 1
#elif defined(__has_feature) /* clang */
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

#ifndef RS_DATA_DIR
#error "RS_DATA_DIR must name the data directory"
#endif

/* ------------------------------------------------------------ the pool */

#define QUICK_JOBS 20u
#define SLOW_US 1000000

typedef struct pool_probe {
    atomic_llong done_at[QUICK_JOBS + 1]; /* when each job ended (us) */
} pool_probe;

static void probe_job(void *ctx, uint32_t n)
{
    pool_probe *p = ctx;
    rs_sleep_us(n == 0 ? SLOW_US : 1000); /* job 0 is the slow room */
    atomic_store(&p->done_at[n], rs_clock_us());
}

static void test_a_slow_room_holds_up_no_other_room(void **state)
{
    (void)state;
    static pool_probe probe;
    srv_pool *pool = NULL;
    assert_int_equal(srv_pool_create(2, QUICK_JOBS + 1, probe_job, &probe, &pool), RS_OK);
    int64_t t0 = rs_clock_us();
    for (uint32_t n = 0; n <= QUICK_JOBS; n++)
        assert_true(srv_pool_submit(pool, n));
    int64_t handed = rs_clock_us() - t0;
    /* Every quick job ends while the slow one still sleeps: one worker is
     * enough for them. */
    int64_t until = t0 + SLOW_US * 3;
    while (!atomic_load(&probe.done_at[0]) && rs_clock_us() < until)
        rs_sleep_us(1000);
    int64_t slow_end = atomic_load(&probe.done_at[0]);
    assert_true(slow_end > 0);
    for (uint32_t n = 1; n <= QUICK_JOBS; n++) {
        int64_t end = atomic_load(&probe.done_at[n]);
        assert_true(end > 0);
        assert_true(end < slow_end);
    }
    srv_pool_destroy(pool);
    /* Handing 21 jobs over took no worker's time (generous for a loaded
     * machine; a wait for the slow job would be a second). */
    print_message("submitting %u jobs took %lld us\n", QUICK_JOBS + 1, (long long)handed);
    assert_true(handed < 100000);
}

/* ---------------------------------------------------------- the server */

/* Fewer and smaller rooms under a sanitizer, where every bot's prediction
 * costs several times as much: two rooms still share two workers. */
#if UNDER_SANITIZER
#define ROOMS 2u
#define PER_ROOM 2u
#else
#define ROOMS 4u
#define PER_ROOM 3u
#endif
#define BOTS (ROOMS * PER_ROOM)
#define SEQ_MAX 512

typedef struct watched_bot {
    rs_bot *bot;
    bool results;
    bool refused;
    bool racing;             /* between RACE_STATE RACE and RESULTS */
    int64_t last_msg_us;     /* when a message last arrived, once joined */
    int64_t msg_gap_max_us;  /* the longest silence while racing */
    uint64_t msgs;
    uint32_t laps, laps_recorded; /* LAPs seen (any car), and those flagged recorded */
} watched_bot;

static void on_event(void *ctx, rs_bot *bot, const rs_client_event *ev)
{
    watched_bot *w = ctx;
    (void)bot;
    if (ev->type == RS_CLIENT_EV_RESULTS) {
        w->results = true;
        w->racing = false;
    } else if (ev->type == RS_CLIENT_EV_RACE_STATE) {
        w->racing = ev->u.race_state.phase == RS_PHASE_RACE && !w->results;
    } else if (ev->type == RS_CLIENT_EV_REFUSED) {
        w->refused = true;
    } else if (ev->type == RS_CLIENT_EV_LAP) {
        w->laps++;
        w->laps_recorded += (ev->u.lap.flags & RS_LAP_RECORDED) != 0;
    }
}

/* n bots, per_room in each room from room1 on. */
static void bots_start(watched_bot *w, uint32_t n, uint32_t per_room, uint16_t port)
{
    for (uint32_t i = 0; i < n; i++) {
        memset(&w[i], 0, sizeof w[i]);
        char name[32], room[16];
        snprintf(name, sizeof name, "bot%u", (unsigned)(i + 1));
        snprintf(room, sizeof room, "room%u", (unsigned)(i / per_room + 1));
        rs_client_config cfg = rs_client_config_default();
        cfg.name = name;
        cfg.room = room;
        char err[256] = "";
        if (rs_bot_create(&cfg, "127.0.0.1", port, true, rs_clock_us(), &w[i].bot, err,
                          sizeof err) != RS_CLIENT_OK)
            fail_msg("bot %u: %s", (unsigned)i, err);
        rs_bot_set_event_fn(w[i].bot, on_event, &w[i]);
    }
}

/* One turn of bot i at t, noting how long it heard nothing while racing. */
static void bot_turn(watched_bot *w, int64_t t)
{
    rs_client *c = rs_bot_client(w->bot);
    rs_bot_update(w->bot, t);
    rs_client_stats st;
    rs_client_get_stats(c, t, &st);
    if (st.packets_in != w->msgs) {
        if (w->msgs && w->racing && t - w->last_msg_us > w->msg_gap_max_us)
            w->msg_gap_max_us = t - w->last_msg_us;
        w->msgs = st.packets_in;
        w->last_msg_us = t;
    }
    assert_false(w->refused);
}

/* Runs the bots until each saw RESULTS, noting the longest time any of
 * them heard nothing from the server while racing. */
static void bots_race(watched_bot *w, double timeout_s)
{
    int64_t deadline = rs_clock_us() + (int64_t)(timeout_s * 1e6);
    for (;;) {
        int64_t t = rs_clock_us();
        uint32_t done = 0;
        for (uint32_t i = 0; i < BOTS; i++) {
            bot_turn(&w[i], t);
            done += w[i].results;
        }
        if (done == BOTS)
            return;
        if (t > deadline) {
            for (uint32_t i = 0; i < BOTS; i++)
                print_message("bot %u: state %d, racing %d, results %d\n", (unsigned)i + 1,
                              (int)rs_client_get_state(rs_bot_client(w[i].bot)), w[i].racing,
                              w[i].results);
            fail_msg("only %u of %u bots saw results in %.0f s", (unsigned)done, BOTS, timeout_s);
        }
        rs_sleep_us(1000);
    }
}

static void bots_check_and_destroy(watched_bot *w, const char *label)
{
    int64_t t = rs_clock_us();
    for (uint32_t i = 0; i < BOTS; i++) {
        rs_client_stats st;
        rs_client_get_stats(rs_bot_client(w[i].bot), t, &st);
        print_message("[%s] bot %u: desyncs %llu, late inputs %u, longest silence %.0f ms, "
                      "laps %u (%u recorded)\n",
                      label, (unsigned)i + 1, (unsigned long long)st.desyncs,
                      (unsigned)st.late_inputs, (double)w[i].msg_gap_max_us / 1000.0,
                      (unsigned)w[i].laps, (unsigned)w[i].laps_recorded);
        assert_int_equal(st.desyncs, 0);
        /* every car's lap, each stored and announced so */
        assert_int_equal(w[i].laps, PER_ROOM);
        assert_int_equal(w[i].laps_recorded, w[i].laps);
#if !UNDER_SANITIZER
        /* at least 99 % of the inputs in time (a busy machine may make a few late) */
        assert_true(st.late_inputs * 100u <= st.inputs_sent);
        assert_true(w[i].msg_gap_max_us < 500000);
#endif
        rs_bot_disconnect(w[i].bot, t);
    }
    int64_t until = rs_clock_us() + 200000; /* let the BYEs leave */
    while (rs_clock_us() < until) {
        for (uint32_t i = 0; i < BOTS; i++)
            rs_bot_update(w[i].bot, rs_clock_us());
        rs_sleep_us(5000);
    }
    for (uint32_t i = 0; i < BOTS; i++)
        rs_bot_destroy(w[i].bot);
}

/* The value of "key":"..." in a JSON log line, or "" (copied into out). */
static void json_str(const char *line, const char *key, char *out, size_t cap)
{
    char pat[48];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(line, pat);
    out[0] = '\0';
    if (!p)
        return;
    p += strlen(pat);
    size_t n = strcspn(p, "\"");
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
}

/* The events of a room's life that its bots' driving cannot change. A
 * penalty depends on how a car was driven, and that on which inputs were
 * in time (a sanitizer build makes some late): two runs may differ there
 * with or without workers. */
static bool lifecycle_event(const char *event)
{
    static const char *const kept[] = {"join", "leave", "race_start", "lights_out", "race_end"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        if (strcmp(event, kept[i]) == 0)
            return true;
    return false;
}

/* Each room's lifecycle events in the log, up to its first race_end, as
 * one string per room: "join join join race_start lights_out race_end". */
static void room_sequences(const char *log, char seq[ROOMS][SEQ_MAX])
{
    bool ended[ROOMS] = {false};
    for (uint32_t r = 0; r < ROOMS; r++)
        seq[r][0] = '\0';
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char room[32], event[32];
        json_str(line, "room", room, sizeof room);
        json_str(line, "event", event, sizeof event);
        unsigned r = 0;
        if (sscanf(room, "room%u", &r) != 1 || r < 1 || r > ROOMS || ended[r - 1] ||
            !lifecycle_event(event))
            continue;
        size_t len = strlen(seq[r - 1]);
        snprintf(seq[r - 1] + len, SEQ_MAX - len, "%s%s", len ? " " : "", event);
        ended[r - 1] = strcmp(event, "race_end") == 0;
    }
    fclose(f);
    for (uint32_t r = 0; r < ROOMS; r++)
        assert_true(ended[r]);
}

/* What the database holds of each room's first race: "finished, 3
 * results, 3 laps". */
static void room_records(const char *db, char rec[ROOMS][SEQ_MAX])
{
    for (uint32_t r = 0; r < ROOMS; r++) {
        char sql[256];
        const char *race = "(SELECT MIN(id) FROM races WHERE room = 'room%u')";
        char race_sql[96];
        snprintf(race_sql, sizeof race_sql, race, (unsigned)r + 1);
        snprintf(sql, sizeof sql, "SELECT status = 'finished' FROM races WHERE id = %s",
                 race_sql);
        int64_t finished = test_sql_value(db, sql);
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM race_results WHERE race_id = %s",
                 race_sql);
        int64_t results = test_sql_value(db, sql);
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM laps WHERE race_id = %s", race_sql);
        int64_t laps = test_sql_value(db, sql);
        snprintf(rec[r], SEQ_MAX, "%s, %lld results, %lld laps",
                 finished ? "finished" : "not finished", (long long)results, (long long)laps);
    }
}

static void race_rooms(const char *workers, char seq[ROOMS][SEQ_MAX], char rec[ROOMS][SEQ_MAX])
{
    char rooms[12], per_room[12];
    snprintf(rooms, sizeof rooms, "%u", (unsigned)ROOMS);
    snprintf(per_room, sizeof per_room, "%u", (unsigned)PER_ROOM);
    const char *const args[] = {"--rooms", rooms,
                                "--track", RS_DATA_DIR "/tracks/oval.json",
                                "--laps", "1",
                                "--max-players", per_room,
                                "--start-players", per_room,
                                "--lobby-s", "60",
                                "--log-format", "json",
                                "--stats-interval", "5",
                                "--max-per-address", "16", /* every bot is 127.0.0.1 */
                                "--workers", workers,
                                NULL};
    server_proc srv;
    server_start(&srv, true, args);
    /* the pool is used only when asked for */
    assert_int_equal(file_contains(srv.log, "rooms step on 2 threads"),
                     strcmp(workers, "2") == 0);
    static watched_bot w[BOTS];
    bots_start(w, BOTS, PER_ROOM, srv.port);
    bots_race(w, 420.0); /* about 60 s; far longer under a sanitizer */
    bots_check_and_destroy(w, workers);
    server_stop(&srv);
    room_sequences(srv.log, seq);
    room_records(srv.db, rec);
    server_cleanup(&srv);
}

static void test_rooms_on_workers_keep_their_order(void **state)
{
    (void)state;
    static char one[ROOMS][SEQ_MAX], two[ROOMS][SEQ_MAX];
    static char one_rec[ROOMS][SEQ_MAX], two_rec[ROOMS][SEQ_MAX];
    race_rooms("1", one, one_rec);
    race_rooms("2", two, two_rec);
    for (uint32_t r = 0; r < ROOMS; r++) {
        print_message("room%u: %s; stored: %s\n", (unsigned)r + 1, two[r], two_rec[r]);
        assert_string_equal(one[r], two[r]);
        assert_string_equal(one_rec[r], two_rec[r]);
        char want[SEQ_MAX];
        snprintf(want, sizeof want, "finished, %u results, %u laps", (unsigned)PER_ROOM,
                 (unsigned)PER_ROOM);
        assert_string_equal(two_rec[r], want);
        /* and it is the race the room ran: every bot joined first */
        char start[64] = "";
        for (uint32_t b = 0; b < PER_ROOM; b++)
            strcat(start, "join ");
        strcat(start, "race_start lights_out");
        assert_non_null(strstr(two[r], start));
    }
}

/* ------------------------------------------------------------- a flood */

/* Two rooms of two AI bots on two workers; a spectator of room1 floods it
 * from its own thread while they race. */
#define FLOOD_ROOMS 2u
#define FLOOD_PER_ROOM 2u
#define FLOOD_BOTS (FLOOD_ROOMS * FLOOD_PER_ROOM)
#define FLOOD_S 3
#define FLOOD_BACKLOG 4096 /* packets the flooder keeps queued in its ENet */

typedef struct flooder {
    worker_thread w;
    raw_client c;      /* the thread's alone while it runs */
    uint64_t sent;     /* messages queued (the thread's until it is joined) */
} flooder;

/* A secure connection to room1 as a spectator, welcomed. */
static void flooder_join(raw_client *c, uint16_t port)
{
    static rs_msg m;
    assert_true(raw_client_open(c, port, NULL, NULL));
    assert_true(raw_client_wait_secure(c, 3000));
    memset(&m, 0, sizeof m);
    m.type = RS_MSG_HELLO;
    m.u.hello.protocol_version = RS_PROTO_VERSION;
    m.u.hello.physics_version = RS_PHYSICS_VERSION;
    m.u.hello.flags = RS_HELLO_SPECTATOR;
    snprintf(m.u.hello.name, sizeof m.u.hello.name, "flooder");
    snprintf(m.u.hello.room, sizeof m.u.hello.room, "room1");
    raw_client_send(c, &m);
    assert_true(raw_client_wait(c, RS_MSG_WELCOME, &m, 5000));
}

/* Keeps the flooder's ENet queue full of valid messages the room takes
 * without a budget (DESYNC_REPORTs: reliable, channel 0) and PINGs
 * (unreliable, channel 2), so they leave as fast as ENet sends them, and
 * reads what comes back, until told to stop or disconnected. */
static void *flood_thread(void *arg)
{
    flooder *f = arg;
    rs_msg m;
    uint64_t sent = 0;
    while (!worker_stopping(&f->w) && !f->c.gone) {
        while (enet_list_size(&f->c.peer->outgoingCommands) < FLOOD_BACKLOG) {
            memset(&m, 0, sizeof m);
            m.type = RS_MSG_DESYNC_REPORT;
            m.u.desync_report.tick = sent;
            raw_client_send(&f->c, &m);
            memset(&m, 0, sizeof m);
            m.type = RS_MSG_PING;
            m.u.ping.id = (uint32_t)sent;
            raw_client_send(&f->c, &m);
            sent += 2;
        }
        while (!f->c.gone && raw_client_poll(&f->c, 0, &m))
            ;
    }
    f->sent = sent;
    return NULL;
}

static bool all_racing(const watched_bot *w, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!w[i].racing)
            return false;
    return true;
}

/* Turns of the bots for us microseconds. */
static void bots_run(watched_bot *w, uint32_t n, int64_t us)
{
    for (int64_t t0 = rs_clock_us(), t = t0; t - t0 < us; t = rs_clock_us()) {
        for (uint32_t i = 0; i < n; i++)
            bot_turn(&w[i], t);
        rs_sleep_us(1000);
    }
}

/* The server with two rooms of two seats on two workers, a long race and
 * a stats line every second, and four bots racing in it. */
static void two_rooms_racing(server_proc *srv, watched_bot *w)
{
    const char *const args[] = {"--rooms", "2",
                                "--track", RS_DATA_DIR "/tracks/oval.json",
                                "--laps", "50",
                                "--max-players", "2",
                                "--start-players", "2",
                                "--lobby-s", "60",
                                "--log-format", "json",
                                "--stats-interval", "1",
                                "--max-per-address", "16",
                                "--workers", "2",
                                NULL};
    server_start(srv, false, args);
    assert_true(file_contains(srv->log, "rooms step on 2 threads"));
    bots_start(w, FLOOD_BOTS, FLOOD_PER_ROOM, srv->port);
    int64_t deadline = rs_clock_us() + 120000000;
    while (!all_racing(w, FLOOD_BOTS)) {
        assert_true(rs_clock_us() < deadline);
        bots_run(w, FLOOD_BOTS, 1000);
    }
}

static void test_a_flood_into_a_room_on_a_worker_leaves_the_race_alone(void **state)
{
    (void)state;
    server_proc srv;
    static watched_bot w[FLOOD_BOTS];
    two_rooms_racing(&srv, w);
    for (uint32_t i = 0; i < FLOOD_BOTS; i++)
        w[i].msg_gap_max_us = 0; /* what counts is the flood's time */

    static flooder f;
    memset(&f, 0, sizeof f);
    flooder_join(&f.c, srv.port);
    worker_init(&f.w);
    assert_true(worker_start(&f.w, flood_thread, &f, "flooder"));
    bots_run(w, FLOOD_BOTS, FLOOD_S * 1000000);
    worker_finish(&f.w);
    /* Closed for overflowing its room's inbox (nothing else closes it): a
     * close at the flood's last moment may still be on its way. */
    bool closed = file_contains(srv.log, "more messages at once than its room's inbox holds");
    static rs_msg m;
    for (int64_t until = rs_clock_us() + 5000000; closed && !f.c.gone && rs_clock_us() < until;) {
        raw_client_poll(&f.c, 0, &m);
        bots_run(w, FLOOD_BOTS, 1000);
    }
    print_message("[flood] %llu messages queued; the flooder %s\n", (unsigned long long)f.sent,
                  f.c.gone ? "was closed for overflowing an inbox" : "is still connected");
    assert_int_equal(f.c.gone, closed);

    /* The well-behaved bots raced on, in sync and (outside sanitizers)
     * never half a second without a word from the server. */
    int64_t t = rs_clock_us();
    for (uint32_t i = 0; i < FLOOD_BOTS; i++) {
        rs_client *c = rs_bot_client(w[i].bot);
        rs_client_stats st;
        rs_client_get_stats(c, t, &st);
        print_message("[flood] bot %u: desyncs %llu, longest silence %.0f ms\n", (unsigned)i + 1,
                      (unsigned long long)st.desyncs, (double)w[i].msg_gap_max_us / 1000.0);
        assert_int_equal(rs_client_get_state(c), RS_CLIENT_CONNECTED);
        assert_true(w[i].racing);
        assert_int_equal(st.desyncs, 0);
#if !UNDER_SANITIZER
        assert_true(w[i].msg_gap_max_us < 500000);
#endif
        rs_bot_disconnect(w[i].bot, t);
    }
    bots_run(w, FLOOD_BOTS, 200000); /* let the BYEs leave */
    for (uint32_t i = 0; i < FLOOD_BOTS; i++)
        rs_bot_destroy(w[i].bot);
    raw_client_close(&f.c);

    server_stop(&srv); /* it was up all along: it stops cleanly */
    /* The flood was turned away: its PINGs over the room's budget, its
     * messages over the inbox's cap while the room was on a worker. */
    int64_t refused =
        sum_json_number(srv.log, "dropped") + sum_json_number(srv.log, "rate_limited");
    print_message("[flood] %lld messages dropped or over a budget\n", (long long)refused);
    assert_true(refused > 0);
    server_cleanup(&srv);
}

/* A server that was not running for a moment (stopped with SIGSTOP, as a
 * virtual machine's host or a swap storm stops it) finds its ticks overdue
 * when it runs again, and the INPUTs its players sent meanwhile waiting on
 * its socket. Those were sent in time, a lead ahead of their ticks: they
 * reach their rooms before the ticks they are for, which the rooms then
 * catch up on. Before they did, a room caught up on about nine ticks
 * after each 150 ms stop with only the first event handled, and every car
 * missed the inputs of most of them. */
#define STALL_BOTS FLOOD_BOTS
#define STALLS 5
#define STALL_US 150000

static void test_inputs_sent_while_the_server_stood_still_are_in_time(void **state)
{
    (void)state;
    server_proc srv;
    static watched_bot w[STALL_BOTS];
    two_rooms_racing(&srv, w);
    bots_run(w, STALL_BOTS, 2000000); /* the clients' leads settle */
    uint32_t late0 = 0, late1 = 0;
    int64_t t = rs_clock_us();
    for (uint32_t i = 0; i < STALL_BOTS; i++) {
        rs_client_stats st;
        rs_client_get_stats(rs_bot_client(w[i].bot), t, &st);
        late0 += st.late_inputs;
    }
    for (int k = 0; k < STALLS; k++) {
        assert_int_equal(kill(srv.pid, SIGSTOP), 0);
        bots_run(w, STALL_BOTS, STALL_US);
        assert_int_equal(kill(srv.pid, SIGCONT), 0);
        bots_run(w, STALL_BOTS, 1000000); /* the FRAMEs that count them come after */
    }
    t = rs_clock_us();
    for (uint32_t i = 0; i < STALL_BOTS; i++) {
        rs_client *c = rs_bot_client(w[i].bot);
        rs_client_stats st;
        rs_client_get_stats(c, t, &st);
        late1 += st.late_inputs;
        assert_int_equal(rs_client_get_state(c), RS_CLIENT_CONNECTED);
        assert_int_equal(st.desyncs, 0);
        rs_bot_disconnect(w[i].bot, t);
    }
    print_message("[stall] %d stops of %d ms: %u late inputs before, %u after\n", STALLS,
                  STALL_US / 1000, (unsigned)late0, (unsigned)late1);
#if !UNDER_SANITIZER
    /* A busy machine may make one of a car's inputs late now and then; a
     * stop used to cost each car most of the ticks it stood still for. */
    assert_true(late1 - late0 <= (uint32_t)STALLS * STALL_BOTS);
#endif
    bots_run(w, STALL_BOTS, 200000); /* let the BYEs leave */
    for (uint32_t i = 0; i < STALL_BOTS; i++)
        rs_bot_destroy(w[i].bot);
    server_stop(&srv);
    server_cleanup(&srv);
}

int main(void)
{
    /* RS_WORKERS_ONLY=pattern runs only the matching tests (for debugging). */
    const char *only = getenv("RS_WORKERS_ONLY");
    if (only && *only)
        cmocka_set_test_filter(only);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_slow_room_holds_up_no_other_room),
        cmocka_unit_test_teardown(test_rooms_on_workers_keep_their_order, server_kill_leftover),
        cmocka_unit_test_teardown(test_a_flood_into_a_room_on_a_worker_leaves_the_race_alone,
                                  server_kill_leftover),
        cmocka_unit_test_teardown(test_inputs_sent_while_the_server_stood_still_are_in_time,
                                  server_kill_leftover),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
