/*
 * Identity in the store (racesim/identity.h) and racectl's write commands:
 * two-phase registration (an unconfirmed player cannot log in; forgetting
 * frees the name; confirming keeps it; the start-up sweep), token rotation
 * (the old token works until the commit, the pending one logs in and
 * commits), the operator's reset, admin rights (never a guest's), bans by
 * player and by IPv4 network (canonical networks, expiry, lifting, and a
 * version another connection sees change), the audit log (cleaned, paged,
 * bounded), the per-player tune cap, and racectl run as a process on a
 * temporary database as an operator would.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "run_command.h"

#include "racesim/base/clock.h"
#include "racesim/identity.h"
#include "racesim/store.h"
#include "racesim/store_testing.h"
#include "test_data.h"
#include "test_sql.h"

#define NOW INT64_C(1700000000)
#define TRACK_HASH UINT64_C(0x9e3779b97f4a7c15)

typedef char token_t[RS_TOKEN_HEX_LEN + 1];

static rs_store *open_store(const test_tmpdb *f)
{
    rs_store *s = NULL;
    char err[512];
    rs_status st = rs_store_open(f->path, RS_STORE_CREATE, &s, err, sizeof err);
    if (st != RS_OK)
        fail_msg("opening %s: %s", f->path, err);
    return s;
}

/* What most tests work on: a fresh database and one store open on it, the
 * test's state. store_setup and store_teardown are their cmocka set-up and
 * tear-down. */
typedef struct store_fixture {
    test_tmpdb db;
    rs_store *s; /* NULL once the test has closed it (close_store) */
} store_fixture;

static int store_setup(void **state)
{
    store_fixture *fx = calloc(1, sizeof *fx);
    *state = fx;
    if (fx && test_tmpdb_make(&fx->db)) {
        char err[512];
        if (rs_store_open(fx->db.path, RS_STORE_CREATE, &fx->s, err, sizeof err) == RS_OK)
            return 0;
        print_error("opening %s: %s\n", fx->db.path, err);
        test_tmpdb_remove(&fx->db);
    }
    free(fx);
    *state = NULL;
    return -1;
}

static int store_teardown(void **state)
{
    store_fixture *fx = *state;
    if (fx->s)
        rs_store_close(fx->s);
    test_tmpdb_remove(&fx->db);
    free(fx);
    return 0;
}

/* The fixture's open store. */
static rs_store *store_of(void **state)
{
    return ((store_fixture *)*state)->s;
}

/* The path of the fixture's database. */
static const char *path_of(void **state)
{
    return ((store_fixture *)*state)->db.path;
}

/* Closes the fixture's store before the test ends (to look at the file as
 * a later process would). */
static void close_store(void **state)
{
    store_fixture *fx = *state;
    rs_store_close(fx->s);
    fx->s = NULL;
}

/* Registers name (still unconfirmed) and returns its id; its token into tok. */
static int64_t register_only(rs_store *s, const char *name, token_t tok)
{
    int64_t id = 0;
    char err[512];
    rs_status st = rs_store_player_register(s, name, NOW, &id, tok, err, sizeof err);
    if (st != RS_OK)
        fail_msg("registering %s: %s", name, err);
    return id;
}

/* Registers and confirms name. */
static int64_t register_player(rs_store *s, const char *name, token_t tok)
{
    char err[512];
    int64_t id = register_only(s, name, tok);
    assert_int_equal(rs_store_player_confirm(s, id, err, sizeof err), RS_OK);
    return id;
}

static rs_status auth(rs_store *s, const char *name, const char *tok, int64_t *id)
{
    char err[512];
    int64_t dummy = 0;
    return rs_store_player_auth(s, name, tok, id ? id : &dummy, err, sizeof err);
}

static rs_store_player_info info_of(rs_store *s, const char *name)
{
    rs_store_player_info info;
    char err[512];
    rs_status st = rs_store_player_info_by_name(s, name, &info, err, sizeof err);
    if (st != RS_OK)
        fail_msg("player %s: %s", name, err);
    return info;
}

static bool exists(rs_store *s, const char *name)
{
    int64_t id;
    char err[512];
    return rs_store_player_find(s, name, &id, err, sizeof err) == RS_OK;
}

/* A car and a track stored, and one valid lap of player_id on them. */
static void store_lap(rs_store *s, int64_t player_id)
{
    char err[512];
    rs_car_params *car = NULL;
    assert_true(test_car_load("c5", &car));
    int64_t car_id = 0, track_id = 0, lap_id = 0;
    assert_int_equal(rs_store_put_car(s, car, 0, &car_id, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_put_track(s, TRACK_HASH, "test track", "{\"name\":\"t\"}",
                                        &track_id, err, sizeof err),
                     RS_OK);
    rs_store_lap lap = {0};
    lap.player_id = player_id;
    lap.track_hash = TRACK_HASH;
    lap.params_hash = lap.base_hash = rs_car_params_hash(car);
    lap.physics_version = RS_PHYSICS_VERSION;
    lap.lap_number = 1;
    lap.time_us = 30000000;
    lap.valid = true;
    lap.recorded_at = NOW;
    assert_int_equal(rs_store_put_lap(s, &lap, &lap_id, err, sizeof err), RS_OK);
    rs_car_params_destroy(car);
}

static void save_tune(rs_store *s, int64_t player_id, const char *name)
{
    char err[512];
    int64_t id = 0;
    assert_int_equal(rs_store_tune_save(s, player_id, 7, name, 11, 13, "{}", NOW, &id, err,
                                        sizeof err),
                     RS_OK);
}

/* A page of up to 10 of player's tunes for the car base_hash (0: of every
 * car) from offset, into page: it must be listed, and total_want the
 * player's tunes in all. How many the page holds. */
static size_t tune_page(rs_store *s, int64_t player, uint64_t base_hash, int64_t offset,
                        rs_store_tune page[10], size_t total_want)
{
    char err[512];
    size_t n = 0, total = 0;
    assert_int_equal(rs_store_tune_list_page(s, player, base_hash, offset, page, 10, &n, &total,
                                             err, sizeof err),
                     RS_OK);
    assert_int_equal(total, total_want);
    return n;
}

/* A ban as the tests write them: made by "tester" at NOW; "" for the
 * player or the network it does not name. */
static rs_store_ban ban_of(const char *player, const char *network, const char *reason,
                           int64_t expires_at)
{
    rs_store_ban b = {0};
    snprintf(b.player_name, sizeof b.player_name, "%s", player);
    snprintf(b.network, sizeof b.network, "%s", network);
    snprintf(b.reason, sizeof b.reason, "%s", reason);
    snprintf(b.created_by, sizeof b.created_by, "tester");
    b.created_at = NOW;
    b.expires_at = expires_at;
    return b;
}

/* Adds b, which must be accepted (what names it in the failure); its id. */
static int64_t add_ban(rs_store *s, rs_store_ban *b, const char *what)
{
    int64_t id = 0;
    char err[512];
    rs_status st = rs_store_ban_add(s, b, &id, err, sizeof err);
    if (st != RS_OK)
        fail_msg("banning %s: %s", what, err);
    return id;
}

static int64_t ban_player(rs_store *s, const char *name, int64_t expires_at)
{
    rs_store_ban b = ban_of(name, "", "test ban", expires_at);
    return add_ban(s, &b, name);
}

static int64_t ban_network(rs_store *s, const char *cidr, int64_t expires_at)
{
    char reason[64];
    snprintf(reason, sizeof reason, "bots from %s", cidr);
    rs_store_ban b = ban_of("", cidr, reason, expires_at);
    return add_ban(s, &b, cidr);
}

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

/* Whether a ban applies to the player or address at time now; its id in
 * *which_id (may be NULL). */
static bool banned(rs_store *s, int64_t player_id, uint32_t ip, int64_t now, int64_t *which_id)
{
    bool is = false;
    rs_store_ban which;
    char err[512];
    assert_int_equal(rs_store_ban_match(s, player_id, ip, now, &is, &which, err, sizeof err),
                     RS_OK);
    if (which_id)
        *which_id = is ? which.id : 0;
    return is;
}

/* ---------------------------------------------------------- registration */

static void test_registration_completes_only_when_confirmed(void **state)
{
    rs_store *s = store_of(state);
    char err[512];
    token_t tok, tok2;
    int64_t id = register_only(s, "Ada", tok), got = 0;
    assert_false(info_of(s, "ada").confirmed);
    /* Unconfirmed: refused exactly like a wrong token. */
    assert_int_equal(rs_store_player_auth(s, "Ada", tok, &got, err, sizeof err),
                     RS_ERR_MISMATCH);
    assert_non_null(strstr(err, "unknown player or wrong token"));
    /* The name is held meanwhile. */
    assert_int_equal(rs_store_player_register(s, "ADA", NOW, &got, tok2, err, sizeof err),
                     RS_ERR_RANGE);
    assert_int_equal(rs_store_player_confirm(s, id, err, sizeof err), RS_OK);
    assert_int_equal(auth(s, "ada", tok, &got), RS_OK);
    assert_int_equal(got, id);
    assert_int_equal(rs_store_player_confirm(s, id, err, sizeof err), RS_OK); /* again: fine */
    assert_int_equal(rs_store_player_confirm(s, 9999, err, sizeof err), RS_ERR_MISSING);

    /* Never confirmed: forgotten, and the name is free again. */
    int64_t bob = register_only(s, "bob", tok2);
    bool forgotten = false;
    assert_int_equal(rs_store_player_forget_unconfirmed(s, bob, &forgotten, err, sizeof err),
                     RS_OK);
    assert_true(forgotten);
    assert_false(exists(s, "bob"));
    assert_int_equal(auth(s, "bob", tok2, NULL), RS_ERR_MISMATCH);
    int64_t bob2 = register_only(s, "Bob", tok2);
    assert_true(bob2 > bob); /* ids are never reused */
    assert_int_equal(rs_store_player_forget_unconfirmed(s, bob, &forgotten, err, sizeof err),
                     RS_ERR_MISSING);

    /* A confirmed player is never forgotten. */
    assert_int_equal(rs_store_player_forget_unconfirmed(s, id, &forgotten, err, sizeof err),
                     RS_OK);
    assert_false(forgotten);
    assert_int_equal(auth(s, "ada", tok, NULL), RS_OK);

    /* An unconfirmed row that already holds a tune is kept, and confirmed. */
    save_tune(s, bob2, "quick");
    assert_int_equal(rs_store_player_forget_unconfirmed(s, bob2, &forgotten, err, sizeof err),
                     RS_OK);
    assert_false(forgotten);
    assert_true(info_of(s, "bob").confirmed);
    assert_int_equal(auth(s, "bob", tok2, NULL), RS_OK);
}

static void test_startup_sweep_forgets_unconfirmed_rows_without_history(void **state)
{
    rs_store *s = store_of(state);
    char err[512];
    token_t t;
    register_only(s, "plain", t);
    register_only(s, "plain2", t);
    int64_t lapper = register_only(s, "lapper", t);
    int64_t tuner = register_only(s, "tuner", t);
    register_only(s, "banned", t);
    int64_t done = register_player(s, "done", t);
    int64_t guest = register_only(s, "~guest", t);
    store_lap(s, lapper);
    save_tune(s, tuner, "mine");
    ban_player(s, "banned", 0);
    /* A guest row needs no confirmation: nobody is ever given its token. */
    assert_true(info_of(s, "~guest").confirmed);

    size_t count = 99;
    assert_int_equal(rs_store_players_forget_unconfirmed(s, &count, err, sizeof err), RS_OK);
    assert_int_equal(count, 2);
    assert_false(exists(s, "plain"));
    assert_false(exists(s, "plain2"));
    const char *kept[] = {"lapper", "tuner", "banned", "done", "~guest"};
    for (size_t i = 0; i < 5; i++)
        assert_true(info_of(s, kept[i]).confirmed);
    assert_int_equal(
        test_sql_value(path_of(state), "SELECT count(*) FROM players WHERE confirmed = 0"), 0);
    /* Nothing left to do the second time. */
    assert_int_equal(rs_store_players_forget_unconfirmed(s, &count, err, sizeof err), RS_OK);
    assert_int_equal(count, 0);
    (void)done;
    (void)guest;
}

/* ---------------------------------------------------------------- tokens */

static void test_token_rotation_keeps_the_old_token_until_commit(void **state)
{
    rs_store *s = store_of(state);
    char err[512];
    token_t t0, t1, t2, t3, t4;
    int64_t id = register_player(s, "ada", t0);

    assert_int_equal(rs_store_token_rotate_begin(s, id, t1, err, sizeof err), RS_OK);
    assert_string_not_equal(t0, t1);
    assert_int_equal(auth(s, "ada", t0, NULL), RS_OK); /* the old one still works */
    assert_int_equal(rs_store_token_rotate_commit(s, id, err, sizeof err), RS_OK);
    assert_int_equal(auth(s, "ada", t0, NULL), RS_ERR_MISMATCH);
    assert_int_equal(auth(s, "ada", t1, NULL), RS_OK);
    assert_int_equal(rs_store_token_rotate_commit(s, id, err, sizeof err), RS_ERR_MISSING);
    assert_non_null(strstr(err, "no token rotation is pending"));

    /* The confirmation is lost, the client logs in with the new token: that
     * commits the rotation. */
    assert_int_equal(rs_store_token_rotate_begin(s, id, t2, err, sizeof err), RS_OK);
    int64_t got = 0;
    assert_int_equal(auth(s, "ada", t2, &got), RS_OK);
    assert_int_equal(got, id);
    assert_int_equal(auth(s, "ada", t1, NULL), RS_ERR_MISMATCH);
    assert_int_equal(auth(s, "ada", t2, NULL), RS_OK);
    assert_int_equal(rs_store_token_rotate_commit(s, id, err, sizeof err), RS_ERR_MISSING);

    /* Beginning again replaces the pending token. */
    assert_int_equal(rs_store_token_rotate_begin(s, id, t3, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_token_rotate_begin(s, id, t4, err, sizeof err), RS_OK);
    assert_int_equal(auth(s, "ada", t3, NULL), RS_ERR_MISMATCH);
    assert_int_equal(auth(s, "ada", t2, NULL), RS_OK);
    assert_int_equal(auth(s, "ada", t4, NULL), RS_OK);
    assert_int_equal(auth(s, "ada", t2, NULL), RS_ERR_MISMATCH);

    /* Guests and unconfirmed registrations have nothing to rotate. */
    token_t tg, tu;
    int64_t guest = register_only(s, "~visitor", tg);
    int64_t pending = register_only(s, "newbie", tu);
    assert_int_equal(rs_store_token_rotate_begin(s, guest, t1, err, sizeof err), RS_ERR_RANGE);
    assert_non_null(strstr(err, "guest"));
    assert_int_equal(rs_store_token_rotate_begin(s, pending, t1, err, sizeof err),
                     RS_ERR_RANGE);
    assert_non_null(strstr(err, "registration"));
    assert_int_equal(rs_store_token_rotate_begin(s, 9999, t1, err, sizeof err), RS_ERR_MISSING);
    close_store(state);

    /* Only hashes are stored: neither token is in the file's rows. */
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM players WHERE instr(lower(hex(token_salt || token_hash || "
             "coalesce(pending_salt, x'') || coalesce(pending_hash, x''))), '%.32s') > 0",
             t4);
    assert_int_equal(test_sql_value(path_of(state), sql), 0);
}

static void test_operator_reset_issues_a_fresh_token_at_once(void **state)
{
    rs_store *s = store_of(state);
    char err[512];
    token_t t0, pending, fresh, t_new;
    int64_t id = register_player(s, "ada", t0);
    assert_int_equal(rs_store_token_rotate_begin(s, id, pending, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_token_reset(s, "ADA", fresh, err, sizeof err), RS_OK);
    assert_int_equal(auth(s, "ada", t0, NULL), RS_ERR_MISMATCH);
    assert_int_equal(auth(s, "ada", pending, NULL), RS_ERR_MISMATCH);
    assert_int_equal(auth(s, "ada", fresh, NULL), RS_OK);
    assert_int_equal(rs_store_token_rotate_commit(s, id, err, sizeof err), RS_ERR_MISSING);

    /* A registration whose confirmation never came: the reset confirms it. */
    register_only(s, "newbie", t_new);
    assert_int_equal(rs_store_token_reset(s, "newbie", fresh, err, sizeof err), RS_OK);
    assert_true(info_of(s, "newbie").confirmed);
    assert_int_equal(auth(s, "newbie", fresh, NULL), RS_OK);
    assert_int_equal(auth(s, "newbie", t_new, NULL), RS_ERR_MISMATCH);

    register_only(s, "~visitor", t_new);
    assert_int_equal(rs_store_token_reset(s, "~visitor", fresh, err, sizeof err), RS_ERR_RANGE);
    assert_int_equal(rs_store_token_reset(s, "nobody", fresh, err, sizeof err), RS_ERR_MISSING);
    assert_non_null(strstr(err, "nobody"));
}

/* ---------------------------------------------------------------- admins */

static void test_admin_rights_are_granted_and_revoked_never_to_guests(void **state)
{
    rs_store *s = store_of(state);
    char err[512];
    token_t t;
    int64_t ada = register_player(s, "ada", t);
    register_only(s, "~visitor", t);
    register_only(s, "newbie", t);
    bool admin = true;
    assert_int_equal(rs_store_player_is_admin(s, ada, &admin, err, sizeof err), RS_OK);
    assert_false(admin);
    assert_int_equal(rs_store_player_set_admin(s, "ADA", true, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_set_admin(s, "ada", true, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_is_admin(s, ada, &admin, err, sizeof err), RS_OK);
    assert_true(admin);
    assert_true(info_of(s, "ada").admin);

    assert_int_equal(rs_store_player_set_admin(s, "~visitor", true, err, sizeof err),
                     RS_ERR_RANGE);
    assert_non_null(strstr(err, "guest"));
    assert_int_equal(rs_store_player_set_admin(s, "newbie", true, err, sizeof err),
                     RS_ERR_RANGE);
    assert_non_null(strstr(err, "not completed registration"));
    assert_int_equal(rs_store_player_set_admin(s, "nobody", true, err, sizeof err),
                     RS_ERR_MISSING);
    /* The schema refuses an admin guest row too, whatever writes it. */
    int64_t v = 0;
    assert_false(test_sql_run(path_of(state),
                              "UPDATE players SET admin = 1 WHERE name = '~visitor'", &v, err,
                              sizeof err));
    assert_non_null(strstr(err, "CHECK"));

    size_t n = 0, total = 0;
    rs_store_player_info rows[4];
    assert_int_equal(rs_store_players_list(s, true, 0, rows, 4, &n, &total, err, sizeof err),
                     RS_OK);
    assert_int_equal(total, 1);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].name, "ada");

    assert_int_equal(rs_store_player_set_admin(s, "ada", false, err, sizeof err), RS_OK);
    assert_int_equal(rs_store_player_is_admin(s, ada, &admin, err, sizeof err), RS_OK);
    assert_false(admin);
    assert_int_equal(rs_store_player_is_admin(s, 9999, &admin, err, sizeof err), RS_ERR_MISSING);
}

static void test_players_are_listed_by_name_a_page_at_a_time(void **state)
{
    rs_store *s = store_of(state);
    char err[512];
    token_t t;
    const char *names[] = {"delta", "Alpha", "charlie", "Echo", "bravo"};
    for (size_t i = 0; i < 5; i++)
        register_player(s, names[i], t);
    register_only(s, "~guest", t);
    register_only(s, "foxtrot", t); /* unconfirmed: listed, marked so */

    rs_store_player_info rows[3];
    size_t n = 0, total = 0;
    assert_int_equal(rs_store_players_list(s, false, 0, rows, 3, &n, &total, err, sizeof err),
                     RS_OK);
    assert_int_equal(total, 6);
    assert_int_equal(n, 3);
    assert_string_equal(rows[0].name, "Alpha");
    assert_string_equal(rows[1].name, "bravo");
    assert_string_equal(rows[2].name, "charlie");
    assert_int_equal(rs_store_players_list(s, false, 3, rows, 3, &n, &total, err, sizeof err),
                     RS_OK);
    assert_int_equal(n, 3);
    assert_string_equal(rows[0].name, "delta");
    assert_string_equal(rows[2].name, "foxtrot");
    assert_false(rows[2].confirmed);
    assert_false(rows[2].guest);
    assert_int_equal(rs_store_players_list(s, false, 6, rows, 3, &n, &total, err, sizeof err),
                     RS_OK);
    assert_int_equal(n, 0);
    assert_int_equal(total, 6);
    /* Counting only. */
    assert_int_equal(rs_store_players_list(s, false, 0, NULL, 0, &n, &total, err, sizeof err),
                     RS_OK);
    assert_int_equal(total, 6);
    assert_int_equal(rs_store_players_list(s, false, -1, rows, 3, &n, &total, err, sizeof err),
                     RS_ERR_ARG);

    rs_store_player_info g;
    assert_int_equal(rs_store_player_info_by_name(s, "~GUEST", &g, err, sizeof err), RS_OK);
    assert_true(g.guest);
    rs_store_player_info byid;
    assert_int_equal(rs_store_player_info_get(s, g.id, &byid, err, sizeof err), RS_OK);
    assert_string_equal(byid.name, "~guest");
    assert_int_equal(rs_store_player_info_get(s, 9999, &byid, err, sizeof err), RS_ERR_MISSING);
}

/* ------------------------------------------------------------------ bans */

static void test_networks_are_canonical_and_bad_ones_refused(void **state)
{
    (void)state;
    char canon[RS_STORE_CIDR_MAX + 1], err[512];
    uint32_t first = 0, last = 0;
    assert_int_equal(rs_store_cidr_parse("10.0.0.0/8", canon, &first, &last, err, sizeof err),
                     RS_OK);
    assert_string_equal(canon, "10.0.0.0/8");
    assert_int_equal(first, IP(10, 0, 0, 0));
    assert_int_equal(last, IP(10, 255, 255, 255));
    assert_int_equal(rs_store_cidr_parse("192.168.1.7", canon, &first, &last, err, sizeof err),
                     RS_OK);
    assert_string_equal(canon, "192.168.1.7/32");
    assert_int_equal(first, last);
    assert_int_equal(rs_store_cidr_parse("255.255.255.255/32", canon, NULL, NULL, err,
                                         sizeof err),
                     RS_OK);
    assert_int_equal(rs_store_cidr_parse("172.16.4.0/22", canon, &first, &last, err,
                                         sizeof err),
                     RS_OK);
    assert_int_equal(last, IP(172, 16, 7, 255));

    /* Host bits set: refused, with both readings offered. */
    assert_int_equal(rs_store_cidr_parse("10.0.0.1/8", canon, NULL, NULL, err, sizeof err),
                     RS_ERR_RANGE);
    assert_non_null(strstr(err, "10.0.0.0/8"));
    assert_non_null(strstr(err, "10.0.0.1/32"));
    assert_int_equal(rs_store_cidr_parse("10.0.0.0/7", canon, NULL, NULL, err, sizeof err),
                     RS_ERR_RANGE);
    assert_non_null(strstr(err, "wider"));
    static const char *const bad[] = {"", "10.0.0", "10.0.0.0.0", "256.1.1.1", "01.2.3.4",
                                      "1.2.3.4/33", "1.2.3.4/", "1.2.3.4/08", " 1.2.3.4",
                                      "1.2.3.4 ", "1.2.3.4/8x", "a.b.c.d", "1..2.3",
                                      "1.2.3.-4", "1.2.3.4\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (rs_store_cidr_parse(bad[i], canon, NULL, NULL, err, sizeof err) != RS_ERR_RANGE)
            fail_msg("\"%s\" was accepted as %s", bad[i], canon);
    }
}

static void test_bans_match_players_and_networks_until_expired_or_lifted(void **state)
{
    rs_store *s = store_of(state);
    char err[512];
    token_t t;
    int64_t ada = register_player(s, "ada", t);
    int64_t bob = register_player(s, "bob", t);
    register_only(s, "~visitor", t);

    assert_false(banned(s, ada, IP(10, 1, 2, 3), NOW, NULL));
    int64_t b_ada = ban_player(s, "ADA", 0);
    int64_t b_net = ban_network(s, "10.1.0.0/16", NOW + 100);
    int64_t which = 0;
    assert_true(banned(s, ada, 0, NOW, &which));
    assert_int_equal(which, b_ada);
    assert_false(banned(s, bob, 0, NOW, NULL));
    assert_true(banned(s, bob, IP(10, 1, 255, 255), NOW, &which));
    assert_int_equal(which, b_net);
    assert_true(banned(s, 0, IP(10, 1, 0, 0), NOW, NULL));
    assert_false(banned(s, bob, IP(10, 2, 0, 1), NOW, NULL));
    assert_false(banned(s, bob, IP(10, 0, 255, 255), NOW, NULL));
    assert_false(banned(s, 0, 0, NOW, NULL));
    /* Expiry: active up to, not at, expires_at. */
    assert_true(banned(s, 0, IP(10, 1, 2, 3), NOW + 99, NULL));
    assert_false(banned(s, 0, IP(10, 1, 2, 3), NOW + 100, NULL));

    /* Of several, the one lasting longest, not the newest. */
    int64_t b_long = ban_network(s, "10.1.2.0/24", NOW + 500);
    int64_t b_short = ban_network(s, "10.1.2.0/24", NOW + 50);
    assert_true(banned(s, 0, IP(10, 1, 2, 3), NOW, &which));
    assert_int_equal(which, b_long);

    /* A guest is banned through its row, by "~name" or the bare name. */
    int64_t b_guest = ban_player(s, "visitor", 0);
    rs_store_player_info g = info_of(s, "~visitor");
    assert_true(banned(s, g.id, 0, NOW, &which));
    assert_int_equal(which, b_guest);

    /* Lifting ends a ban at once, and only once. */
    assert_int_equal(rs_store_ban_lift(s, b_ada, NOW + 1, "op", err, sizeof err), RS_OK);
    assert_false(banned(s, ada, 0, NOW + 2, NULL));
    assert_int_equal(rs_store_ban_lift(s, b_ada, NOW + 3, "op", err, sizeof err), RS_ERR_RANGE);
    assert_non_null(strstr(err, "lifted already"));
    assert_non_null(strstr(err, "op"));
    assert_int_equal(rs_store_ban_lift(s, 9999, NOW, "op", err, sizeof err), RS_ERR_MISSING);

    /* Listing: active ones, or all, newest first, a page at a time. */
    rs_store_ban list[8];
    size_t n = 0, total = 0;
    assert_int_equal(rs_store_bans_list(s, false, NOW + 60, 0, list, 8, &n, &total, err,
                                        sizeof err),
                     RS_OK);
    assert_int_equal(total, 3); /* the net (expires +100), the long /24, the guest */
    assert_int_equal(n, 3);
    assert_int_equal(list[0].id, b_guest);
    assert_string_equal(list[0].player_name, "~visitor");
    assert_true(b_short > b_long); /* the short one has expired: not listed */
    assert_int_equal(list[1].id, b_long);
    assert_string_equal(list[1].network, "10.1.2.0/24");
    assert_int_equal(list[1].player_id, 0);
    assert_int_equal(list[2].id, b_net);
    assert_int_equal(rs_store_bans_list(s, true, NOW + 60, 0, list, 2, &n, &total, err,
                                        sizeof err),
                     RS_OK);
    assert_int_equal(total, 5);
    assert_int_equal(n, 2);
    assert_int_equal(rs_store_bans_list(s, true, NOW + 60, 4, list, 2, &n, &total, err,
                                        sizeof err),
                     RS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(list[0].id, b_ada);
    assert_int_equal(list[0].lifted_at, NOW + 1);
    assert_string_equal(list[0].lifted_by, "op");
    assert_string_equal(list[0].reason, "test ban");
    assert_string_equal(list[0].created_by, "tester");
}

static void test_bad_bans_are_refused_and_nothing_is_stored(void **state)
{
    rs_store *s = store_of(state);
    char err[512];
    token_t t;
    register_player(s, "ada", t);
    int64_t id = 0;
    struct {
        const char *player, *network, *reason;
        int64_t expires_at;
        rs_status want;
        const char *says;
    } cases[] = {
        {"ada", "10.0.0.0/8", "both", 0, RS_ERR_ARG, "exactly one"},
        {"", "", "neither", 0, RS_ERR_ARG, "exactly one"},
        {"", "10.0.0.1/8", "host bits", 0, RS_ERR_RANGE, "10.0.0.0/8"},
        {"", "10.0.0.0/4", "too wide", 0, RS_ERR_RANGE, "wider"},
        {"", "10.0.0.300", "no address", 0, RS_ERR_RANGE, "not an IPv4"},
        {"nobody", "", "unknown", 0, RS_ERR_MISSING, "nobody"},
        {"ada", "", "", 0, RS_ERR_RANGE, "reason"},
        {"ada", "", "bell\a", 0, RS_ERR_RANGE, "control"},
        {"ada", "", "bad \xff utf-8", 0, RS_ERR_RANGE, "UTF-8"},
        {"ada", "", "expired already", NOW, RS_ERR_RANGE, "expired already"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rs_store_ban b =
            ban_of(cases[i].player, cases[i].network, cases[i].reason, cases[i].expires_at);
        err[0] = '\0';
        rs_status st = rs_store_ban_add(s, &b, &id, err, sizeof err);
        if (st != cases[i].want || !strstr(err, cases[i].says))
            fail_msg("case %zu: status %d, \"%s\"", i, (int)st, err);
    }
    rs_store_ban b = ban_of("", "10.0.0.0/8", "", 0);
    memset(b.reason, 'x', RS_STORE_BAN_REASON_MAX); /* exactly the maximum: fine */
    assert_int_equal(rs_store_ban_add(s, &b, &id, err, sizeof err), RS_OK);
    assert_int_equal(test_sql_value(path_of(state), "SELECT count(*) FROM bans"), 1);
    /* The schema holds the rules too. */
    int64_t v;
    assert_false(test_sql_run(path_of(state),
                              "INSERT INTO bans (player_id, network, net_first, net_last, "
                              "reason, created_at, created_by) VALUES (1, '10.0.0.0/8', 1, 2, "
                              "'x', 1, 'y')",
                              &v, err, sizeof err));
}

static void test_ban_version_changes_for_other_connections(void **state)
{
    test_tmpdb *f = *state;
    rs_store *a = open_store(f), *b = open_store(f);
    char err[512];
    token_t t;
    int64_t ada = register_player(a, "ada", t);
    int64_t v0 = 0, v1 = 0, v2 = 0, v3 = 0;
    assert_int_equal(rs_store_bans_version(b, &v0, err, sizeof err), RS_OK);
    int64_t id = ban_player(a, "ada", 0);
    assert_int_equal(rs_store_bans_version(b, &v1, err, sizeof err), RS_OK);
    assert_true(v1 > v0);
    assert_true(banned(b, ada, 0, NOW, NULL));
    /* Nothing changes, nothing moves: the version is for polling. */
    assert_int_equal(rs_store_bans_version(b, &v2, err, sizeof err), RS_OK);
    assert_int_equal(v2, v1);
    assert_int_equal(rs_store_ban_lift(a, id, NOW, "op", err, sizeof err), RS_OK);
    assert_int_equal(rs_store_bans_version(b, &v3, err, sizeof err), RS_OK);
    assert_true(v3 > v2);
    assert_false(banned(b, ada, 0, NOW, NULL));
    rs_store_close(b);
    rs_store_close(a);

    /* And after a restart: bans are data. */
    rs_store *s = open_store(f);
    ban_network(s, "192.0.2.0/24", 0);
    rs_store_close(s);
    s = open_store(f);
    assert_true(banned(s, 0, IP(192, 0, 2, 9), NOW + 86400 * 365, NULL));
    rs_store_close(s);
}

/* A banned guest's row outlives the guest-row prune, or the ban would go
 * with it (and a foreign key would stop every prune). */
static void test_guest_prune_spares_banned_guests(void **state)
{
    rs_store *s = store_of(state);
    char err[512];
    token_t t;
    int64_t old = 0, stale = 0, id = 0;
    assert_int_equal(rs_store_player_register(s, "~troll", 1000, &old, t, err, sizeof err),
                     RS_OK);
    assert_int_equal(rs_store_player_register(s, "~idle", 1000, &stale, t, err, sizeof err),
                     RS_OK);
    ban_player(s, "~troll", 0);
    assert_int_equal(rs_store_player_register(s, "~newcomer", NOW, &id, t, err, sizeof err),
                     RS_OK);
    assert_true(exists(s, "~troll"));
    assert_false(exists(s, "~idle"));
    assert_true(banned(s, old, 0, NOW, NULL));
}

/* ----------------------------------------------------------------- audit */

static void test_audit_log_is_cleaned_paged_and_bounded(void **state)
{
    rs_store *s = store_of(state);
    char err[512];
    assert_int_equal(rs_store_audit_add(s, NOW, "ada", "203.0.113.5:4000", "kick", "bob", "ok",
                                        err, sizeof err),
                     RS_OK);
    char hostile[400];
    memset(hostile, 'y', sizeof hostile - 1);
    hostile[sizeof hostile - 1] = '\0';
    memcpy(hostile, "\x1b[2J\xc3\xa9\xff", 7); /* an escape, an é, a stray byte */
    assert_int_equal(rs_store_audit_add(s, NOW + 1, NULL, "198.51.100.7:1", "admin denied",
                                        hostile, "not an admin", err, sizeof err),
                     RS_OK);
    assert_int_equal(rs_store_audit_add(s, NOW + 2, "x", "y", "", "t", "r", err, sizeof err),
                     RS_ERR_ARG);
    assert_int_equal(rs_store_audit_add(s, NOW + 2, "x", "y", NULL, "t", "r", err, sizeof err),
                     RS_ERR_ARG);

    rs_store_audit_row rows[4];
    size_t n = 0, total = 0;
    assert_int_equal(rs_store_audit_list(s, 0, rows, 4, &n, &total, err, sizeof err), RS_OK);
    assert_int_equal(total, 2);
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].action, "admin denied"); /* newest first */
    assert_string_equal(rows[0].actor, "");
    assert_int_equal(rows[0].at, NOW + 1);
    assert_memory_equal(rows[0].target, "?[2J\xc3\xa9?y", 8);
    assert_int_equal(strlen(rows[0].target), RS_STORE_AUDIT_TEXT_MAX);
    assert_string_equal(rows[1].actor, "ada");
    assert_string_equal(rows[1].address, "203.0.113.5:4000");
    assert_string_equal(rows[1].target, "bob");
    assert_string_equal(rows[1].result, "ok");
    assert_int_equal(rs_store_audit_list(s, 1, rows, 4, &n, &total, err, sizeof err), RS_OK);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].action, "kick");

    /* Bounded: past the limit the oldest rows go. */
    rs_store__set_audit_keep(5);
    for (int i = 0; i < 8; i++) {
        char what[16];
        snprintf(what, sizeof what, "action %d", i);
        assert_int_equal(rs_store_audit_add(s, NOW + 10 + i, "ada", "local", what, "", "ok",
                                            err, sizeof err),
                         RS_OK);
    }
    rs_store__set_audit_keep(0);
    assert_int_equal(rs_store_audit_list(s, 0, rows, 4, &n, &total, err, sizeof err), RS_OK);
    assert_int_equal(total, 5);
    assert_string_equal(rows[0].action, "action 7");
    assert_int_equal(rs_store_audit_list(s, 4, rows, 4, &n, &total, err, sizeof err), RS_OK);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].action, "action 3");
}

/* ----------------------------------------------------------------- tunes */

static void test_a_player_holds_at_most_100_tunes(void **state)
{
    rs_store *s = store_of(state);
    char err[512], name[32];
    token_t t;
    int64_t ada = register_player(s, "ada", t), bob = register_player(s, "bob", t), id = 0;
    for (int i = 0; i < RS_STORE_TUNES_PER_PLAYER; i++) {
        snprintf(name, sizeof name, "tune %03d", i);
        /* Over two cars: the cap is per player. */
        assert_int_equal(rs_store_tune_save(s, ada, (uint64_t)(1 + i % 2), name, 5, 6, "{}", NOW,
                                            &id, err, sizeof err),
                         RS_OK);
    }
    assert_int_equal(rs_store_tune_save(s, ada, 1, "one more", 5, 6, "{}", NOW, &id, err,
                                        sizeof err),
                     RS_ERR_RANGE);
    assert_string_equal(err, "at most 100 saved tunes per player: save under an existing "
                             "name to replace one");
    /* Replacing one still works; another player is not affected. */
    assert_int_equal(rs_store_tune_save(s, ada, 1, "tune 000", 8, 9, "{\"v\": 2}", NOW, &id,
                                        err, sizeof err),
                     RS_OK);
    save_tune(s, bob, "bob's");
    assert_int_equal(
        test_sql_value(path_of(state), "SELECT count(*) FROM tunes WHERE player_id = 1"),
        RS_STORE_TUNES_PER_PLAYER);
    /* Deleting one makes room. */
    assert_int_equal(rs_store_tune_delete(s, ada, 2, "tune 001", err, sizeof err), RS_OK);
    assert_int_equal(rs_store_tune_save(s, ada, 1, "one more", 5, 6, "{}", NOW, &id, err,
                                        sizeof err),
                     RS_OK);

    /* Pages, in rs_store_tune_list's order. */
    rs_store_tune page[10];
    size_t n = 0, total = 0;
    assert_int_equal(tune_page(s, ada, 1, 0, page, 51), 10);
    assert_string_equal(page[0].name, "one more");
    assert_string_equal(page[1].name, "tune 000");
    assert_int_equal(tune_page(s, ada, 0, 95, page, 100), 5);
    assert_string_equal(page[4].name, "tune 099");
    assert_int_equal(rs_store_tune_list_page(s, ada, 0, -1, page, 10, &n, &total, err,
                                             sizeof err),
                     RS_ERR_ARG);
}

/* --------------------------------------------------------------- racectl */

/* Runs racectl on db with args; its exit status, and stdout and stderr
 * together in out. */
static int racectl(const char *db, const char *args, char *out, size_t cap)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "USER=opsy '%s' --db '%s' %s 2>&1", RS_RACECTL_PATH, db, args);
    return run_command(cmd, out, cap);
}

/* racectl must exit with want, and its output must hold every one of the
 * NULL-ended texts. */
static void expect(const char *db, const char *args, int want, ...)
{
    char out[16384];
    int rc = racectl(db, args, out, sizeof out);
    if (rc != want)
        fail_msg("racectl %s: exit %d, expected %d:\n%s", args, rc, want, out);
    va_list ap;
    va_start(ap, want);
    for (const char *text; (text = va_arg(ap, const char *));) {
        if (!strstr(out, text))
            fail_msg("racectl %s: \"%s\" not in:\n%s", args, text, out);
    }
    va_end(ap);
}

static void test_racectl_manages_players_bans_and_the_audit_log(void **state)
{
    test_tmpdb *f = *state;
    const char *db = f->path;
    rs_store *s = open_store(f);
    token_t t_ada, t;
    register_player(s, "ada", t_ada);
    register_only(s, "newbie", t);
    register_only(s, "~visitor", t);
    rs_store_close(s);
    char out[16384];

    expect(db, "players", 0, "ada", "newbie", "players 1-2 of 2", NULL);
    assert_int_equal(racectl(db, "players", out, sizeof out), 0);
    assert_null(strstr(out, "visitor"));
    expect(db, "admin grant ada", 0, "ada is now an admin", NULL);
    expect(db, "--json players --admins", 0, "\"name\": \"ada\"", "\"admin\": true",
           "\"total\": 1", NULL);
    expect(db, "admin grant '~visitor'", 1, "guest", NULL);
    expect(db, "admin grant nobody", 1, "nobody", NULL);
    expect(db, "admin promote ada", 2, "grant", NULL);
    expect(db, "admin revoke ada", 0, "no longer an admin", NULL);
    expect(db, "players --admins", 0, "(no admins)", NULL);

    /* token reset: a new token, shown once, that logs in at once. */
    assert_int_equal(racectl(db, "token reset ada", out, sizeof out), 0);
    assert_non_null(strstr(out, "privately"));
    const char *at = strstr(out, "new token for ada: ");
    assert_non_null(at);
    token_t fresh;
    memcpy(fresh, at + strlen("new token for ada: "), RS_TOKEN_HEX_LEN);
    fresh[RS_TOKEN_HEX_LEN] = '\0';
    s = open_store(f);
    assert_int_equal(auth(s, "ada", fresh, NULL), RS_OK);
    assert_int_equal(auth(s, "ada", t_ada, NULL), RS_ERR_MISMATCH);
    rs_store_close(s);

    /* Bans. */
    expect(db, "ban add --player ada --reason 'flooding the chat' --for 12h", 0, "ban 1",
           "player ada", "until ", NULL);
    expect(db, "ban add --address 10.0.0.1/8 --reason bots", 1, "host bits", "10.0.0.0/8",
           NULL);
    expect(db, "ban add --address 203.0.113.0/24 --reason bots", 0, "ban 2",
           "address 203.0.113.0/24", "permanent", NULL);
    expect(db, "ban add --player ada --address 1.2.3.4 --reason x", 2, "either", NULL);
    expect(db, "ban add --player ada --reason x --for 5q", 2, "duration", NULL);
    expect(db, "ban add --player ada", 2, "--reason", NULL);
    expect(db, "--json ban list", 0, "\"total\": 2", "\"address\": \"203.0.113.0/24\"",
           "\"reason\": \"flooding the chat\"", "\"created_by\": \"racectl:opsy\"", NULL);
    s = open_store(f);
    bool is = false;
    char err[512];
    assert_int_equal(rs_store_ban_match(s, 0, IP(203, 0, 113, 77), rs_wall_time_s(), &is, NULL,
                                        err, sizeof err),
                     RS_OK);
    assert_true(is);
    rs_store_close(s);
    expect(db, "ban lift 1", 0, "ban 1 lifted", NULL);
    expect(db, "ban lift 1", 1, "lifted already", NULL);
    expect(db, "ban lift 42", 1, "no ban with id 42", NULL);
    expect(db, "ban list", 0, "active bans 1-1 of 1", "203.0.113.0/24", NULL);
    expect(db, "ban list --all --limit 1 --offset 1", 0, "lifted", "player ada",
           "bans 2-2 of 2", NULL);

    /* Every write attempt is audited, failures too; reads and usage errors
     * are not; the token never is. */
    assert_int_equal(racectl(db, "--json audit --limit 100", out, sizeof out), 0);
    static const char *const must[] = {
        "\"actor\": \"racectl:opsy\"", "\"address\": \"local\"", "\"action\": \"admin grant\"",
        "\"action\": \"admin revoke\"", "\"action\": \"token reset\"",
        "\"action\": \"ban add\"", "\"target\": \"address 203.0.113.0/24\"",
        "\"action\": \"ban lift\"", "\"target\": \"ban 1\"", "\"result\": \"failed: ",
        "guest"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        if (!strstr(out, must[i]))
            fail_msg("audit: \"%s\" not in:\n%s", must[i], out);
    assert_null(strstr(out, fresh));
    /* 3 grants (2 failed), 1 revoke, 1 reset, 3 ban adds that got past their
     * arguments (1 failed), 3 lifts (2 failed). */
    assert_int_equal(test_sql_value(db, "SELECT count(*) FROM audit"), 11);
    assert_int_equal(test_sql_value(db, "SELECT count(*) FROM audit WHERE result LIKE 'failed%'"),
                     5);
    expect(db, "audit --limit 2", 0, "entries 1-2 of 11", "next page: --offset 2", NULL);
}

/* A writing racectl beside a server of an older build must not upgrade the
 * schema under it; reading commands never write. */
static void test_racectl_writes_never_upgrade_the_schema(void **state)
{
    test_tmpdb *f = *state;
    char err[512];
    rs_store *s = NULL;
    uint32_t older = rs_store_schema_latest() - 1;
    assert_int_equal(rs_store__open_upto(f->path, RS_STORE_CREATE, older, &s, err, sizeof err),
                     RS_OK);
    rs_store_close(s);
    expect(f->path, "admin grant ada", 1, "older", NULL);
    expect(f->path, "ban list", 1, "older", NULL);
    assert_int_equal(test_sql_value(f->path, "SELECT max(version) FROM schema_migrations"),
                     older);
}

int main(void)
{
/* On an open store (store_setup), or on a database path only. */
#define T(name) cmocka_unit_test_setup_teardown(name, store_setup, store_teardown)
#define T_DB(name) cmocka_unit_test_setup_teardown(name, test_tmpdb_setup, test_tmpdb_teardown)
    const struct CMUnitTest tests[] = {
        T(test_registration_completes_only_when_confirmed),
        T(test_startup_sweep_forgets_unconfirmed_rows_without_history),
        T(test_token_rotation_keeps_the_old_token_until_commit),
        T(test_operator_reset_issues_a_fresh_token_at_once),
        T(test_admin_rights_are_granted_and_revoked_never_to_guests),
        T(test_players_are_listed_by_name_a_page_at_a_time),
        cmocka_unit_test(test_networks_are_canonical_and_bad_ones_refused),
        T(test_bans_match_players_and_networks_until_expired_or_lifted),
        T(test_bad_bans_are_refused_and_nothing_is_stored),
        T_DB(test_ban_version_changes_for_other_connections),
        T(test_guest_prune_spares_banned_guests),
        T(test_audit_log_is_cleaned_paged_and_bounded),
        T(test_a_player_holds_at_most_100_tunes),
        T_DB(test_racectl_manages_players_bans_and_the_audit_log),
        T_DB(test_racectl_writes_never_upgrade_the_schema),
    };
#undef T_DB
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
