/*
 * A room's cars, classes and entry list (server/room/src/room_cars.c), as
 * players meet them through the real SDK over the room harness's link:
 *
 * - an entry-only room refuses whoever is not on its list (NOT_ENTERED),
 *   and a guest using an entry's name;
 * - an open room holds the seats of entries not here yet;
 * - a player picks one of the offered cars in HELLO and drives it in its
 *   class, and a car the room does not offer is refused (NO_CAR);
 * - balance of performance makes another car: its own block and hash,
 *   announced in CAR_INFO, rebuilt by every client bit for bit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "racesim/protocol.h"
#include "racesim/room.h"
#include "room_harness.h"
#include "test_data.h"

#define SECOND 1000000LL

typedef struct cars_scene {
    test_scene base;          /* the oval and the c5 */
    rs_car_params *formula;
} cars_scene;

static int setup(void **state)
{
    cars_scene *s = calloc(1, sizeof *s);
    if (!s || !test_scene_load("oval", "c5", false, &s->base) ||
        !test_car_load("formula", &s->formula)) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    cars_scene *s = *state;
    test_scene_free(&s->base);
    rs_car_params_destroy(s->formula);
    free(s);
    return 0;
}

/* Registered players by name (the admission the services do with tokens):
 * "alice" is player 1, "bob" 2 when registered is set; everyone else a
 * guest. */
static bool bob_registered;

static uint8_t admit(void *ctx, rs_room *room, uint32_t peer, const rs_msg_hello *h)
{
    (void)ctx;
    if (strcmp(h->name, "alice") == 0)
        rs_room_admit(room, peer, 1, NULL);
    else if (strcmp(h->name, "bob") == 0 && bob_registered)
        rs_room_admit(room, peer, 2, NULL);
    else
        return RS_ROOM_ADMIT_GUEST;
    return RS_ROOM_ADMIT_PENDING;
}

static const char *const classes[] = {"GT", "Formula"};

static rs_room_config two_class_config(cars_scene *s, const rs_room_car_offer *offers)
{
    rs_room_config c = harness_room_config(&s->base, 2);
    c.max_players = 3;
    c.cars = offers;
    c.car_count = 2;
    c.classes = classes;
    c.class_count = 2;
    c.hooks.admit = admit;
    return c;
}

static uint32_t join(harness *h, const char *name, uint64_t car_hash)
{
    rs_client_config c = harness_player(name, 20);
    c.car_hash = car_hash;
    return harness_add_client(h, &c, HARNESS_PLAIN);
}

static void steps(harness *h, int n)
{
    for (int i = 0; i < n; i++)
        harness_step(h, 1000);
}

/* The REFUSE client i got, or fails. */
static rs_msg_refuse refusal(harness *h, uint32_t i)
{
    rs_client_event ev;
    assert_true(harness_client_take(h, i, RS_CLIENT_EV_REFUSED, &ev));
    return ev.u.refused;
}

static void test_entry_only_room_refuses_who_is_not_entered(void **state)
{
    cars_scene *s = *state;
    rs_room_car_offer offers[2] = {{.params = s->base.car, .class_index = 0},
                                   {.params = s->formula, .class_index = 1}};
    rs_room_entry entries[2] = {{.name = "alice", .car = 1, .number = 7},
                                {.name = "bob", .car = 0, .number = 12}};
    rs_room_config cfg = two_class_config(s, offers);
    cfg.entries = entries;
    cfg.entry_count = 2;
    cfg.entries_only = true;
    bob_registered = false;
    harness *h = harness_create(&cfg, NULL);
    uint32_t carol = join(h, "carol", 0);
    uint32_t fake_bob = join(h, "bob", 0); /* a guest borrowing an entry's name */
    uint32_t alice = join(h, "alice", 0);
    steps(h, 300);
    rs_msg_refuse r = refusal(h, carol);
    assert_int_equal(r.reason, RS_REASON_NOT_ENTERED);
    assert_non_null(strstr(r.text, "entry list"));
    r = refusal(h, fake_bob);
    assert_int_equal(r.reason, RS_REASON_NOT_ENTERED);
    assert_non_null(strstr(r.text, "token"));
    assert_int_equal(harness_client_events(h, alice)->count[RS_CLIENT_EV_REFUSED], 0);
    assert_int_equal(harness_client_events(h, alice)->count[RS_CLIENT_EV_CONNECTED], 1);
    harness_destroy(h);
}

static void test_open_room_holds_the_seats_of_entries_not_here(void **state)
{
    cars_scene *s = *state;
    rs_room_car_offer offers[2] = {{.params = s->base.car, .class_index = 0},
                                   {.params = s->formula, .class_index = 1}};
    rs_room_entry entries[1] = {{.name = "alice", .car = 1, .number = 7}};
    rs_room_config cfg = two_class_config(s, offers);
    cfg.entries = entries;
    cfg.entry_count = 1;
    cfg.start_players = 3;
    harness *h = harness_create(&cfg, NULL);
    uint32_t g1 = join(h, "guest1", 0), g2 = join(h, "guest2", 0);
    steps(h, 200);
    uint32_t g3 = join(h, "guest3", 0);
    steps(h, 200);
    assert_int_equal(harness_client_events(h, g1)->count[RS_CLIENT_EV_CONNECTED], 1);
    assert_int_equal(harness_client_events(h, g2)->count[RS_CLIENT_EV_CONNECTED], 1);
    rs_msg_refuse r = refusal(h, g3);
    assert_int_equal(r.reason, RS_REASON_NOT_ENTERED);
    assert_non_null(strstr(r.text, "held"));
    /* The held seat is alice's, in her entry's car and number. */
    uint32_t alice = join(h, "alice", 0);
    int64_t deadline = harness_now(h) + 30 * SECOND;
    while (!rs_room_world(harness_room(h)) && harness_now(h) < deadline)
        harness_step(h, 1000);
    steps(h, 300);
    uint8_t car = rs_client_car(harness_client(h, alice));
    assert_true(car >= 1);
    rs_msg_car_info info;
    assert_true(rs_client_car_info(harness_client(h, g1), car, &info));
    assert_string_equal(info.name, "alice");
    assert_int_equal(info.number, 7);
    assert_int_equal(info.class_index, 1);
    assert_int_equal(info.base_hash, rs_car_params_hash(s->formula));
    harness_destroy(h);
}

static void test_players_choose_an_offered_car_and_drive_it_in_its_class(void **state)
{
    cars_scene *s = *state;
    rs_room_car_offer offers[2] = {{.params = s->base.car, .class_index = 0},
                                   {.params = s->formula, .class_index = 1}};
    rs_room_config cfg = two_class_config(s, offers);
    harness *h = harness_create(&cfg, NULL);
    uint64_t formula = rs_car_params_hash(s->formula);
    uint32_t a = join(h, "gt_driver", 0), b = join(h, "f_driver", formula);
    uint32_t c = join(h, "nowhere", 0x1234); /* no such car */
    int64_t deadline = harness_now(h) + 30 * SECOND;
    while (!rs_room_world(harness_room(h)) && harness_now(h) < deadline)
        harness_step(h, 1000);
    steps(h, 300);
    rs_msg_refuse r = refusal(h, c);
    assert_int_equal(r.reason, RS_REASON_NO_CAR);
    /* WEEKEND lists the cars with their classes. */
    rs_msg_weekend wk;
    assert_true(rs_client_weekend(harness_client(h, a), &wk));
    assert_int_equal(wk.car_count, 2);
    assert_int_equal(wk.cars[1].base_hash, formula);
    assert_int_equal(wk.cars[1].class_index, 1);
    assert_string_equal(wk.classes[1], "Formula");
    rs_msg_car_info ia, ib;
    assert_true(rs_client_car_info(harness_client(h, b), rs_client_car(harness_client(h, a)),
                                   &ia));
    assert_true(rs_client_car_info(harness_client(h, a), rs_client_car(harness_client(h, b)),
                                   &ib));
    assert_int_equal(ia.base_hash, rs_car_params_hash(s->base.car));
    assert_int_equal(ia.class_index, 0);
    assert_int_equal(ib.base_hash, formula);
    assert_int_equal(ib.params_hash, formula);
    assert_int_equal(ib.class_index, 1);
    for (uint32_t i = 0; i < 2; i++)
        assert_int_equal(harness_client_events(h, i)->count[RS_CLIENT_EV_ERROR], 0);
    harness_destroy(h);
}

static void test_balance_of_performance_makes_another_car_every_client_builds(void **state)
{
    cars_scene *s = *state;
    rs_room_car_offer offers[2] = {{.params = s->base.car, .class_index = 0, .ballast_kg = 50},
                                   {.params = s->formula, .class_index = 1,
                                    .restrictor_pct = 10}};
    rs_room_config cfg = two_class_config(s, offers);
    harness *h = harness_create(&cfg, NULL);
    uint32_t a = join(h, "heavy", 0), b = join(h, "restricted", rs_car_params_hash(s->formula));
    int64_t deadline = harness_now(h) + 30 * SECOND;
    while (!rs_room_world(harness_room(h)) && harness_now(h) < deadline)
        harness_step(h, 1000);
    /* Into the race, so that the clients confirm hashed ticks. */
    while (rs_world_tick(rs_room_world(harness_room(h))) < 400 && harness_now(h) < deadline)
        harness_step(h, 1000);
    rs_msg_car_info ia, ib;
    assert_true(rs_client_car_info(harness_client(h, b), rs_client_car(harness_client(h, a)),
                                   &ia));
    assert_true(rs_client_car_info(harness_client(h, a), rs_client_car(harness_client(h, b)),
                                   &ib));
    assert_int_equal(ia.ballast_kg, 50);
    assert_int_equal(ia.base_hash, rs_car_params_hash(s->base.car));
    assert_true(ia.params_hash != ia.base_hash);
    assert_int_equal(ia.tune_hash, ia.params_hash); /* its own board, not the stock one */
    assert_int_equal(ib.restrictor_pct, 10);
    assert_true(ib.params_hash != ib.base_hash);
    for (uint32_t i = 0; i < 2; i++) {
        rs_client_stats cs;
        rs_client_get_stats(harness_client(h, i), harness_now(h), &cs);
        assert_true(cs.hashes_checked >= 5);
        assert_int_equal(cs.desyncs, 0);
        assert_int_equal(harness_client_events(h, i)->count[RS_CLIENT_EV_ERROR], 0);
    }
    harness_destroy(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entry_only_room_refuses_who_is_not_entered),
        cmocka_unit_test(test_open_room_holds_the_seats_of_entries_not_here),
        cmocka_unit_test(test_players_choose_an_offered_car_and_drive_it_in_its_class),
        cmocka_unit_test(test_balance_of_performance_makes_another_car_every_client_builds),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
