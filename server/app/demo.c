/*
 * raceserver --demo (demo.h). The server and the bots share one thread and
 * one loop: the server waits at most a millisecond for the network, then
 * every bot updates, so neither starves the other. Laps and results are
 * printed from the first bot's events (every client hears every car's LAP,
 * with the database's flags when the server has one); live positions come
 * from the room's authoritative world.
 */
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "server.h"

#include "racesim/bot.h"
#include "racesim/leaderboard.h"
#include "racesim/store.h"
#include "racesim/base/clock.h"
#include "racesim/base/text.h"

#define POSITIONS_EVERY_US 3000000
#define AFTER_RESULTS_US 2000000 /* late LAP acknowledgements still print */

typedef struct demo {
    rs_server *srv;
    rs_bot **bots;
    uint32_t bot_count;
    bool results;
    rs_msg_results last_results; /* printed once the last laps' flags are in */
    int64_t results_at_us;
    uint32_t laps_printed, laps_recorded;
    uint32_t announced; /* the session whose start was printed */
} demo;

/* The name of whoever drives car, and its class (from the first bot's
 * CAR_INFO and WEEKEND). */
static void car_name(demo *d, uint8_t car, char *out, size_t cap)
{
    rs_msg_car_info info;
    if (d->bot_count && rs_client_car_info(rs_bot_client(d->bots[0]), car, &info) &&
        info.name[0])
        snprintf(out, cap, "%s", info.name);
    else
        snprintf(out, cap, "car %u", (unsigned)car);
}

static void car_class(demo *d, uint8_t car, char *out, size_t cap)
{
    rs_msg_car_info info;
    rs_msg_weekend wk;
    snprintf(out, cap, "-");
    if (d->bot_count && rs_client_car_info(rs_bot_client(d->bots[0]), car, &info) &&
        rs_client_weekend(rs_bot_client(d->bots[0]), &wk) && info.class_index < wk.class_count)
        snprintf(out, cap, "%s", wk.classes[info.class_index]);
}

static void print_qualifying(demo *d, const rs_msg_results *r)
{
    printf("\nqualifying: the grid\n");
    printf("  pos  driver        class     best lap\n");
    for (uint32_t i = 0; i < r->count && i < RS_PROTO_MAX_CARS; i++) {
        const rs_proto_result_row *row = &r->rows[i];
        char name[40], cls[40], best[32];
        car_name(d, row->car, name, sizeof name);
        car_class(d, row->car, cls, sizeof cls);
        rs_race_time_str(row->best_lap_us, best, sizeof best);
        printf("  %-4u %-13s %-9s %s\n", (unsigned)row->position, name, cls,
               row->status == RS_CLASSIFIED ? best : "no time");
    }
    printf("\n");
    fflush(stdout);
}

static void print_results(demo *d, const rs_msg_results *r)
{
    printf("\nresults of the race (race %u)\n", (unsigned)r->race_number);
    printf("  pos  class       driver        laps  race time    best lap   penalties  led\n");
    /* Rows come in classification order: finishers by laps and time with
     * their penalties, then the cars that did not finish, the
     * disqualified last. */
    for (uint32_t i = 0; i < r->count && i < RS_PROTO_MAX_CARS; i++) {
        const rs_proto_result_row *row = &r->rows[i];
        char name[40], cls[40], fin[32], best[32], pos[8] = "DNF", cpos[56], pen[16] = "-";
        car_name(d, row->car, name, sizeof name);
        car_class(d, row->car, cls, sizeof cls);
        rs_race_time_str(row->finish_us, fin, sizeof fin);
        rs_race_time_str(row->best_lap_us, best, sizeof best);
        if (row->status == RS_CLASSIFIED)
            snprintf(pos, sizeof pos, "%u", (unsigned)row->position);
        else if (row->status == RS_DISQUALIFIED)
            snprintf(pos, sizeof pos, "DSQ");
        snprintf(cpos, sizeof cpos, "%s %u", cls, (unsigned)row->class_position);
        if (row->penalty_ms)
            snprintf(pen, sizeof pen, "+%u.%03u s", (unsigned)(row->penalty_ms / 1000),
                     (unsigned)(row->penalty_ms % 1000));
        printf("  %-4s %-11s %-13s %4u  %-11s  %-9s  %-9s  %u\n", pos, cpos, name,
               (unsigned)row->laps, fin, best, pen, (unsigned)row->laps_led);
    }
    fflush(stdout);
}

static void on_event(void *ctx, rs_bot *bot, const rs_client_event *ev)
{
    demo *d = ctx;
    if (ev->type == RS_CLIENT_EV_REFUSED)
        rs_logf(RS_LOG_WARN, "demo: a bot was refused: %s", ev->u.refused.text);
    else if (ev->type == RS_CLIENT_EV_DISCONNECTED && !d->results)
        rs_logf(RS_LOG_WARN, "demo: a bot was disconnected (%s): %s",
                rs_proto_reason_str(ev->u.disconnected.reason), ev->u.disconnected.text);
    else if (ev->type == RS_CLIENT_EV_ERROR)
        rs_logf(RS_LOG_WARN, "demo: a bot reports: %s", ev->u.error.text);
    if (bot != d->bots[0])
        return; /* one listener is enough: every client hears every lap */
    if (ev->type == RS_CLIENT_EV_LAP) {
        const rs_msg_lap *l = &ev->u.lap;
        char name[40], t[32], flags[64] = "";
        car_name(d, l->car, name, sizeof name);
        rs_race_time_str(l->time_us, t, sizeof t);
        if (l->flags & RS_LAP_RECORDED) {
            strcat(flags, " recorded");
            d->laps_recorded++;
        }
        if (l->flags & RS_LAP_PERSONAL_BEST)
            strcat(flags, ", personal best");
        if (l->flags & RS_LAP_TRACK_RECORD)
            strcat(flags, ", track record");
        printf("lap   %-13s lap %u  %s  %s%s\n", name, (unsigned)l->lap, t,
               l->valid ? "valid" : "invalid", flags);
        fflush(stdout);
        d->laps_printed++;
    } else if (ev->type == RS_CLIENT_EV_RESULTS &&
               ev->u.results.session_type != RS_SESSION_RACE) {
        /* Printed now, while CAR_INFO still names this session's cars. */
        print_qualifying(d, &ev->u.results);
    } else if (ev->type == RS_CLIENT_EV_RESULTS) {
        d->last_results = ev->u.results;
        d->results = true;
        printf("chequered flag: race %u decided\n", (unsigned)ev->u.results.race_number);
        fflush(stdout);
    } else if (ev->type == RS_CLIENT_EV_RACE_STATE && ev->u.race_state.phase == RS_PHASE_RACE &&
               ev->u.race_state.phase_tick > 0 &&
               ev->u.race_state.race_number != d->announced) {
        d->announced = ev->u.race_state.race_number;
        printf("lights out: %u laps\n", (unsigned)ev->u.race_state.laps);
        fflush(stdout);
    } else if (ev->type == RS_CLIENT_EV_RACE_STATE && ev->u.race_state.phase == RS_PHASE_RACE &&
               ev->u.race_state.session_type == RS_SESSION_QUALIFYING &&
               ev->u.race_state.race_number != d->announced) {
        d->announced = ev->u.race_state.race_number;
        printf("qualifying: %u laps, the first from the grid\n",
               (unsigned)ev->u.race_state.laps);
        fflush(stdout);
    }
}

static void print_positions(demo *d)
{
    const rs_world *w = rs_room_world(rs_server_room(d->srv, 0));
    if (!w || rs_world_race_time_us(w) <= 0)
        return;
    rs_car_id order[32];
    uint32_t n = rs_world_race_order(w, order, 32);
    char t[32];
    rs_race_time_str(rs_world_race_time_us(w), t, sizeof t);
    printf("%s ", t);
    for (uint32_t i = 0; i < n && i < 32; i++) {
        rs_race_car_state st;
        char name[40];
        if (rs_world_race_state(w, order[i], &st) != RS_OK)
            continue;
        car_name(d, (uint8_t)order[i].index1, name, sizeof name);
        printf(" %u.%s(L%u)", (unsigned)(i + 1), name, (unsigned)(st.laps_completed + 1));
    }
    printf("\n");
    fflush(stdout);
}

/* One board of the track, from the database the weekend was written to:
 * a class's cars merged (one car's board when it has one). Rows name their
 * car when the board has several. */
static void print_board(const rs_server_config *cfg, rs_leaderboard *lb, const rs_track *track,
                        const char *title, const rs_class_key *key)
{
    char err[512];
    rs_lb_row rows[10];
    uint32_t count = 0, total = 0;
    if (rs_leaderboard_class_count(lb, key, &total, err, sizeof err) != RS_OK ||
        rs_leaderboard_class_top(lb, key, 0, 10, rows, &count, err, sizeof err) != RS_OK) {
        printf("\nleaderboard: %s\n", err);
        return;
    }
    bool with_car = key->car_count > 1;
    printf("\nleaderboard: %s, %s (%s, %u drivers)\n", rs_track_name(track), title, cfg->db,
           (unsigned)total);
    printf("  rank  driver        best lap%s\n", with_car ? "   car" : "");
    for (uint32_t i = 0; i < count; i++) {
        char t[32];
        rs_race_time_str(rows[i].time_us, t, sizeof t);
        /* Guests are stored as "~name" (services.h). */
        const char *name = rows[i].player_name;
        bool guest = name[0] == '~';
        printf("  %4u  %-13s %s%s%s%s\n", (unsigned)rows[i].rank, guest ? name + 1 : name, t,
               with_car ? "  " : "", with_car ? rows[i].car_name : "", guest ? "  (guest)" : "");
    }
}

/* The key of the room's offered cars of class cls (every offered car's own
 * board when the room has no classes: cls is then the car's index), and
 * the board's title: "class GT: C5 + ..." or the car's name. */
static void board_of(const rs_room *room, const rs_track *track, bool classes, uint32_t cls,
                     rs_class_key *key, char *title, size_t title_len)
{
    memset(key, 0, sizeof *key);
    key->track_hash = rs_track_hash(track);
    key->physics_version = RS_PHYSICS_VERSION;
    key->tune_key = RS_TUNE_KEY_ANY;
    size_t used = classes ? (size_t)snprintf(title, title_len, "class %s: ",
                                             rs_room_class_name(room, cls))
                          : 0;
    const rs_car_params *car;
    uint8_t c = 0;
    for (uint32_t i = 0; (car = rs_room_offered_car(room, i, &c)); i++) {
        if (classes ? c != cls : i != cls)
            continue;
        if (key->car_count < RS_LB_CLASS_MAX_CARS)
            key->base_hashes[key->car_count++] = rs_car_params_hash(car);
        if (used < title_len)
            used += (size_t)snprintf(title + used, title_len - used, "%s%s",
                                     key->car_count > 1 ? " + " : "", rs_car_params_name(car));
    }
}

/* One board per class of the room, its cars merged (a league compares a
 * class's drivers whatever car of it they chose); one per offered car in
 * a room without classes. */
static void print_leaderboards(const rs_server_config *cfg, demo *d)
{
    rs_room *room = rs_server_room(d->srv, 0);
    rs_store *store = NULL;
    rs_leaderboard *lb = NULL;
    char err[512];
    if (rs_store_open(cfg->db, RS_STORE_READONLY, &store, err, sizeof err) != RS_OK ||
        rs_leaderboard_open(store, &lb, err, sizeof err) != RS_OK) {
        printf("\nleaderboard: %s\n", err);
    } else {
        const rs_track *track = rs_room_track(room, NULL, NULL);
        bool classes = rs_room_class_name(room, 0) != NULL;
        uint32_t boards = 0;
        if (classes)
            while (rs_room_class_name(room, boards))
                boards++;
        else
            while (rs_room_offered_car(room, boards, NULL))
                boards++;
        for (uint32_t i = 0; i < boards; i++) {
            rs_class_key key;
            char title[256];
            board_of(room, track, classes, i, &key, title, sizeof title);
            if (key.car_count)
                print_board(cfg, lb, track, title, &key);
        }
    }
    fflush(stdout);
    rs_leaderboard_close(lb);
    rs_store_close(store);
}

int rs_demo_run(const rs_server_config *cfg, volatile sig_atomic_t *stop)
{
    demo d;
    memset(&d, 0, sizeof d);
    char err[1024];
    int code = 1;
    if (rs_server_create(cfg, &d.srv, err, sizeof err) != RS_OK) {
        rs_logf(RS_LOG_ERROR, "%s", err);
        return 1;
    }
    uint16_t port = rs_server_port(d.srv);
    const rs_cfg_room *room = &cfg->rooms[0];
    printf("racesim demo: %u bots, a weekend of %u sessions on %s, server on 127.0.0.1:%u, "
           "database %s\n",
           (unsigned)cfg->demo_bots, (unsigned)(room->session_count ? room->session_count : 1),
           room->track, (unsigned)port, cfg->no_db ? "none" : cfg->db);
    if (rs_server_http_port(d.srv))
        printf("live timing and leaderboards: http://%s:%u/\n",
               cfg->http_bind[0] ? cfg->http_bind : "127.0.0.1",
               (unsigned)rs_server_http_port(d.srv));
    fflush(stdout);

    d.bots = calloc(cfg->demo_bots, sizeof *d.bots);
    if (!d.bots)
        goto done;
    int64_t now = rs_clock_us();
    /* The bots know the server they were made for: they pin its key. */
    char server_key[65];
    rs_server_public_key(d.srv, server_key);
    for (uint32_t i = 0; i < cfg->demo_bots; i++) {
        char name[16];
        snprintf(name, sizeof name, "bot%u", (unsigned)i + 1);
        rs_client_config cc = rs_client_config_default();
        cc.name = name;
        cc.server_key = server_key;
        /* The field shares the offered cars out in turn: both classes race. */
        uint32_t cars = 0;
        while (rs_room_offered_car(rs_server_room(d.srv, 0), cars, NULL))
            cars++;
        cc.car_hash = rs_car_params_hash(rs_room_offered_car(rs_server_room(d.srv, 0),
                                                             i % (cars ? cars : 1), NULL));
        if (rs_bot_create(&cc, "127.0.0.1", port, true, now, &d.bots[i], err, sizeof err) !=
            RS_CLIENT_OK) {
            rs_logf(RS_LOG_ERROR, "bot %s: %s", name, err);
            goto done;
        }
        rs_bot_set_event_fn(d.bots[i], on_event, &d);
        d.bot_count++;
    }

    /* A generous limit: a lap of the default track takes well under 3
     * minutes, and the weekend's sessions end at most finish_timeout_s after
     * their flags. */
    uint32_t laps = 0;
    for (uint32_t s = 0; s < room->session_count; s++)
        laps += room->sessions[s].laps ? room->sessions[s].laps
                                       : room->sessions[s].time_limit_s / 120 + 1;
    if (room->session_count == 0)
        laps = room->laps;
    int64_t deadline = now + 60000000 + (int64_t)laps * 180000000 +
                       (int64_t)room->session_count * room->finish_timeout_s * 1000000;
    int64_t next_positions = now + POSITIONS_EVERY_US;
    while (!*stop) {
        rs_server_step(d.srv, 1000);
        now = rs_clock_us();
        uint32_t alive = 0;
        for (uint32_t i = 0; i < d.bot_count; i++)
            alive += rs_bot_update(d.bots[i], now) ? 1u : 0u;
        if (alive == 0) {
            rs_logf(RS_LOG_ERROR, "demo: every bot lost its connection");
            break;
        }
        if (now >= next_positions && !d.results) {
            print_positions(&d);
            next_positions = now + POSITIONS_EVERY_US;
        }
        if (d.results && !d.results_at_us)
            d.results_at_us = now;
        if (d.results_at_us && now - d.results_at_us > AFTER_RESULTS_US)
            break;
        if (now > deadline) {
            rs_logf(RS_LOG_ERROR, "demo: the race did not finish in time");
            break;
        }
    }
    /* How well the bots kept up: a car-tick without its input in time
     * repeats the previous one (docs/SERVER.md), which a starved machine
     * shows first. */
    rs_room_stats inputs;
    rs_room_get_stats(rs_server_room(d.srv, 0), &inputs);
    for (uint32_t i = 0; i < d.bot_count; i++)
        rs_bot_disconnect(d.bots[i], rs_clock_us());
    /* Let the BYEs reach the server before it shuts down. */
    for (int i = 0; i < 50; i++) {
        rs_server_step(d.srv, 1000);
        for (uint32_t b = 0; b < d.bot_count; b++)
            rs_bot_update(d.bots[b], rs_clock_us());
    }
    rs_server_shutdown(d.srv); /* every record on disk before the leaderboard is read */
    if (d.results) {
        print_results(&d, &d.last_results);
        printf("\n%u laps timed, %u recorded in the database\n", (unsigned)d.laps_printed,
               (unsigned)d.laps_recorded);
        uint64_t car_ticks = inputs.inputs_used + inputs.inputs_missing;
        printf("inputs: %llu of %llu car-ticks stepped with their input in time (%.3f %%), "
               "%llu arrived late\n", (unsigned long long)inputs.inputs_used,
               (unsigned long long)car_ticks,
               car_ticks ? 100.0 * (double)inputs.inputs_used / (double)car_ticks : 100.0,
               (unsigned long long)inputs.inputs_late);
        if (!cfg->no_db)
            print_leaderboards(cfg, &d);
        code = 0;
    }
done:
    for (uint32_t i = 0; i < d.bot_count; i++)
        rs_bot_destroy(d.bots[i]);
    free(d.bots);
    rs_server_destroy(d.srv);
    return code;
}

