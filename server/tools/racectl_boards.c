/*
 * racectl's leaderboard commands: leaderboard (a page of a board), rank (a
 * player's place and neighbours), pbs (a player's personal bests) and
 * recent (the newest laps of a board or a player). All go through
 * racesim/leaderboard.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racectl.h"

/* leaderboard and rank: --car again makes a class board. */
#define CLASS_HELP                                                                             \
    "  --car C --car D ...      a class's board: several cars (up to 8, as a room's class\n"  \
    "                           has them), each player's best lap in any of them, with\n"    \
    "                           the car it was driven in; --tune any or stock\n"

#define BOARD_OPTIONS_HELP                                                                     \
    "  --track T                the track: its name (any case), the file raceserver was\n"     \
    "                           given (\"oval\": tracks/oval.json in the data folder, or\n"    \
    "                           a .json path) or its 16-digit hash\n"                          \
    "  --car C                  the stock car, the same ways (\"c5\": cars/c5.json)\n"         \
    "  --tune any|stock|HASH    laps with any tune (default), the stock car only, or one\n"    \
    "                           tune by its hash\n"                                            \
    "  --physics-version N      default: this build's (%u)\n"

/* "Kestrel Ridge Circuit / C5 / any tune / physics 3" for table titles. */
static void print_board_title(const rs_board_key *key, const char *track, const char *car)
{
    char h[17];
    const char *tune = key->tune_key == RS_TUNE_KEY_ANY     ? "any tune"
                       : key->tune_key == RS_TUNE_KEY_STOCK ? "stock car"
                                                            : "tune ";
    printf("%s / %s / %s%s / physics %u\n", track, car, tune,
           tune[4] == ' ' ? rc_tune_key_str(key->tune_key, h) : "",
           (unsigned)key->physics_version);
}

static void board_json_head(const rs_board_key *key, const char *track, const char *car)
{
    char h[17];
    printf("{\"track\": ");
    rc_json_str(stdout, track);
    rc_hash_str(key->track_hash, h);
    printf(", \"track_hash\": \"%s\", \"car\": ", h);
    rc_json_str(stdout, car);
    rc_hash_str(key->base_hash, h);
    printf(", \"car_hash\": \"%s\", \"tune\": \"%s\", \"physics_version\": %u", h,
           rc_tune_key_str(key->tune_key, h), (unsigned)key->physics_version);
}

/* with_car: a CAR column (class boards, whose rows are of several cars). */
static void print_rows_table(const rs_lb_row *rows, uint32_t n, int marked, bool with_car)
{
    printf("%-2s%6s  %-20s %12s %10s  ", "", "RANK", "PLAYER", "TIME", "LAP");
    if (with_car)
        printf("%-24s ", "CAR");
    printf("%-16s %-19s  %s\n", "TUNE", "RECORDED (UTC)", "SECTORS");
    for (uint32_t i = 0; i < n; i++) {
        const rs_lb_row *r = &rows[i];
        char t[32], d[32], s[256], h[17];
        rs_race_time_str(r->time_us, t, sizeof t);
        rc_date_str(r->recorded_at, d, sizeof d);
        rc_sectors_table(r, s, sizeof s);
        if (r->tune_hash)
            rc_hash_str(r->tune_hash, h);
        else
            strcpy(h, "stock");
        printf("%-2s%6u  %-20s %12s %10" PRId64 "  ", (int)i == marked ? "->" : "",
               (unsigned)r->rank, r->player_name, t, r->lap_id);
        if (with_car)
            printf("%-24s ", r->car_name[0] ? r->car_name : "?");
        printf("%-16s %-19s  %s\n", h, d, s);
    }
}

static void print_rows_json(const rs_lb_row *rows, uint32_t n, bool with_board)
{
    printf("[");
    for (uint32_t i = 0; i < n; i++) {
        printf("%s\n  ", i ? "," : "");
        rc_row_json(stdout, &rows[i], with_board);
    }
    printf("%s]", n ? "\n" : "");
}

/* ---------------------------------------------------------- class boards */

/* A class board resolved from the options: its key and its names. */
typedef struct class_board {
    rs_class_key key;
    char track[RS_LB_NAME_MAX];
    char cars[RS_LB_CLASS_MAX_CARS][RS_LB_NAME_MAX];
} class_board;

/* "Kestrel Ridge Circuit / C5 + Formula / any tune / physics 3". */
static void print_class_title(const class_board *b)
{
    printf("%s / ", b->track);
    for (uint32_t i = 0; i < b->key.car_count; i++)
        printf("%s%s", i ? " + " : "", b->cars[i]);
    printf(" / %s / physics %u\n",
           b->key.tune_key == RS_TUNE_KEY_STOCK ? "stock cars" : "any tune",
           (unsigned)b->key.physics_version);
}

static void class_json_head(const class_board *b)
{
    char h[17];
    printf("{\"track\": ");
    rc_json_str(stdout, b->track);
    rc_hash_str(b->key.track_hash, h);
    printf(", \"track_hash\": \"%s\", \"cars\": [", h);
    for (uint32_t i = 0; i < b->key.car_count; i++) {
        printf("%s{\"car\": ", i ? ", " : "");
        rc_json_str(stdout, b->cars[i]);
        rc_hash_str(b->key.base_hashes[i], h);
        printf(", \"car_hash\": \"%s\"}", h);
    }
    printf("], \"tune\": \"%s\", \"physics_version\": %u",
           rc_tune_key_str(b->key.tune_key, h), (unsigned)b->key.physics_version);
}

/* leaderboard with several --car: one page of the class board; rows
 * carry their car (with_board in JSON, a CAR column in the table). */
/* A leaderboard page after its head (JSON: the object's first fields) or
 * title: the players, the page's place, and its rows (with a CAR column or
 * field when cars is set: a class's board). */
static void print_page(bool json, const rs_lb_row *rows, uint32_t n, uint32_t players,
                       uint32_t page, uint32_t per_page, bool cars)
{
    uint32_t pages = players ? (players + per_page - 1) / per_page : 0;
    if (json) {
        printf(", \"players\": %u, \"page\": %u, \"per_page\": %u, \"pages\": %u, \"rows\": ",
               (unsigned)players, (unsigned)page, (unsigned)per_page, (unsigned)pages);
        print_rows_json(rows, n, cars);
        printf("}\n");
        return;
    }
    printf("%u players; page %u of %u\n\n", (unsigned)players, (unsigned)page, (unsigned)pages);
    if (n)
        print_rows_table(rows, n, -1, cars);
    else
        printf("(no rows on this page)\n");
}

static int class_leaderboard(rc_ctx *c, const char *cmd, const rc_board_opts *bo, uint32_t page,
                             uint32_t per_page)
{
    class_board b;
    char err[512];
    int rc = rc_class_resolve(c, cmd, bo, &b.key, b.track, b.cars);
    if (rc)
        return rc;
    uint32_t players = 0, n = 0;
    rs_lb_row *rows = calloc(per_page, sizeof *rows);
    if (!rows)
        return rs_fail(cmd, "out of memory");
    uint64_t offset = (uint64_t)(page - 1) * per_page;
    if (rs_leaderboard_class_count(c->lb, &b.key, &players, err, sizeof err) != RS_OK ||
        (offset < UINT32_MAX && rs_leaderboard_class_top(c->lb, &b.key, (uint32_t)offset,
                                                         per_page, rows, &n, err,
                                                         sizeof err) != RS_OK)) {
        free(rows);
        return rs_fail(cmd, "%s", err);
    }
    if (c->json)
        class_json_head(&b);
    else
        print_class_title(&b);
    print_page(c->json, rows, n, players, page, per_page, true);
    free(rows);
    return RC_EXIT_OK;
}

/* rank with several --car: the player's place on the class board. */
static int class_rank(rc_ctx *c, const char *cmd, const rc_board_opts *bo, const char *player,
                      uint32_t around)
{
    class_board b;
    char name[RS_LB_NAME_MAX], err[512];
    int64_t pid;
    int rc = rc_class_resolve(c, cmd, bo, &b.key, b.track, b.cars);
    if (rc || (rc = rc_player(c, cmd, player, &pid, name)))
        return rc;
    rs_lb_row rows[201];
    uint32_t n = 0, me = 0, players = 0;
    rs_status st = rs_leaderboard_class_around(c->lb, &b.key, pid, around, rows, &n, &me, err,
                                               sizeof err);
    if (st == RS_ERR_MISSING)
        return rs_fail(cmd, "%s has no valid lap in any of these cars", name);
    if (st != RS_OK ||
        rs_leaderboard_class_count(c->lb, &b.key, &players, err, sizeof err) != RS_OK)
        return rs_fail(cmd, "%s", err);
    if (c->json) {
        class_json_head(&b);
        printf(", \"players\": %u, \"player\": ", (unsigned)players);
        rc_json_str(stdout, name);
        printf(", \"rank\": %u, \"row\": ", (unsigned)rows[me].rank);
        rc_row_json(stdout, &rows[me], true);
        printf(", \"around\": ");
        print_rows_json(rows, n, true);
        printf("}\n");
    } else {
        print_class_title(&b);
        printf("%s: rank %u of %u\n\n", name, (unsigned)rows[me].rank, (unsigned)players);
        print_rows_table(rows, n, (int)me, true);
    }
    return RC_EXIT_OK;
}

/* ---------------------------------------------------------- leaderboard */

int rc_cmd_leaderboard(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "leaderboard";
    rc_board_opts bo = {0};
    uint32_t page = 1, per_page = 20;
    const rc_opt opts[] = {{"--page", NULL, &page, 1, 10000000, false},
                           {"--per-page", NULL, &per_page, 1, 1000, false},
                           {NULL, NULL, NULL, 0, 0, false}};
    int rc = rc_options(cmd, argc, argv,
                        "usage: racectl --db FILE leaderboard --track T --car C [--car D ...]"
                        " [--tune any|stock|HASH]\n"
                        "                [--physics-version N] [--page N] [--per-page M]\n"
                        "\n"
                        "One page of a board: each player's best valid lap, fastest first (equal\n"
                        "times: the earlier lap first).\n\n" BOARD_OPTIONS_HELP CLASS_HELP
                        "  --page N                 1-based page (default 1)\n"
                        "  --per-page M             rows per page, 1..1000 (default 20)\n",
                        &bo, opts);
    if (rc != RC_GO_ON)
        return rc;
    if (bo.car_count > 1)
        return class_leaderboard(c, cmd, &bo, page, per_page);
    rs_board_key key;
    char track[RS_LB_NAME_MAX], car[RS_LB_NAME_MAX], err[512];
    rc = rc_board_resolve(c, cmd, &bo, &key, track, car);
    if (rc)
        return rc;
    uint32_t players = 0, n = 0;
    rs_lb_row *rows = calloc(per_page, sizeof *rows);
    if (!rows)
        return rs_fail(cmd, "out of memory");
    uint64_t offset = (uint64_t)(page - 1) * per_page;
    if (rs_leaderboard_count(c->lb, &key, &players, err, sizeof err) != RS_OK ||
        (offset < UINT32_MAX && rs_leaderboard_top(c->lb, &key, (uint32_t)offset, per_page, rows,
                                                   &n, err, sizeof err) != RS_OK)) {
        free(rows);
        return rs_fail(cmd, "%s", err);
    }
    if (c->json)
        board_json_head(&key, track, car);
    else
        print_board_title(&key, track, car);
    print_page(c->json, rows, n, players, page, per_page, false);
    free(rows);
    return RC_EXIT_OK;
}

/* ----------------------------------------------------------------- rank */

int rc_cmd_rank(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "rank";
    rc_board_opts bo = {0};
    const char *player = NULL;
    uint32_t around = 2;
    const rc_opt opts[] = {{"--player", &player, NULL, 0, 0, true},
                           {"--around", NULL, &around, 0, 100, false},
                           {NULL, NULL, NULL, 0, 0, false}};
    int rc = rc_options(cmd, argc, argv,
                        "usage: racectl --db FILE rank --player NAME --track T --car C"
                        " [--car D ...]\n"
                        "                [--tune any|stock|HASH] [--physics-version N]"
                        " [--around K]\n"
                        "\n"
                        "A player's rank on a board (1 + the players ahead), with K rows on each\n"
                        "side (default 2). Exit status 1 when the player has no valid lap there.\n"
                        "\n"
                        "  --player NAME            the player (any case)\n" BOARD_OPTIONS_HELP
                        CLASS_HELP
                        "  --around K               neighbours on each side, 0..100\n",
                        &bo, opts);
    if (rc != RC_GO_ON)
        return rc;
    if (bo.car_count > 1)
        return class_rank(c, cmd, &bo, player, around);
    rs_board_key key;
    char track[RS_LB_NAME_MAX], car[RS_LB_NAME_MAX], name[RS_LB_NAME_MAX], err[512];
    int64_t pid;
    rc = rc_board_resolve(c, cmd, &bo, &key, track, car);
    if (rc || (rc = rc_player(c, cmd, player, &pid, name)))
        return rc;
    rs_lb_row rows[201];
    uint32_t n = 0, me = 0, players = 0;
    rs_status st = rs_leaderboard_around(c->lb, &key, pid, around, rows, &n, &me, err, sizeof err);
    if (st == RS_ERR_MISSING)
        return rs_fail(cmd, "%s has no valid lap on this board", name);
    if (st != RS_OK || rs_leaderboard_count(c->lb, &key, &players, err, sizeof err) != RS_OK)
        return rs_fail(cmd, "%s", err);
    if (c->json) {
        board_json_head(&key, track, car);
        printf(", \"players\": %u, \"player\": ", (unsigned)players);
        rc_json_str(stdout, name);
        printf(", \"rank\": %u, \"row\": ", (unsigned)rows[me].rank);
        rc_row_json(stdout, &rows[me], false);
        printf(", \"around\": ");
        print_rows_json(rows, n, false);
        printf("}\n");
    } else {
        print_board_title(&key, track, car);
        printf("%s: rank %u of %u\n\n", name, (unsigned)rows[me].rank, (unsigned)players);
        print_rows_table(rows, n, (int)me, false);
    }
    return RC_EXIT_OK;
}

/* ------------------------------------------------------------------ pbs */

int rc_cmd_pbs(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "pbs";
    const char *player = NULL;
    uint32_t pv = RS_PHYSICS_VERSION;
    const rc_opt opts[] = {{"--player", &player, NULL, 0, 0, true},
                           {"--physics-version", NULL, &pv, 1, UINT32_MAX, false},
                           {NULL, NULL, NULL, 0, 0, false}};
    int rc = rc_options(cmd, argc, argv,
                        "usage: racectl --db FILE pbs --player NAME [--physics-version N]\n"
                        "\n"
                        "A player's personal bests on every board of one physics version"
                        " (default\n"
                        "%u): track, car, tune key (any, stock or a tune hash), time and rank.\n",
                        NULL, opts);
    if (rc != RC_GO_ON)
        return rc;
    char name[RS_LB_NAME_MAX], err[512];
    int64_t pid;
    rc = rc_player(c, cmd, player, &pid, name);
    if (rc)
        return rc;
    uint32_t n = 0, total = 0;
    if (rs_leaderboard_personal_bests(c->lb, pid, pv, NULL, 0, &n, &total, err, sizeof err) !=
        RS_OK)
        return rs_fail(cmd, "%s", err);
    rs_lb_row *rows = calloc(total ? total : 1, sizeof *rows);
    if (!rows)
        return rs_fail(cmd, "out of memory");
    if (rs_leaderboard_personal_bests(c->lb, pid, pv, rows, total, &n, &total, err,
                                      sizeof err) != RS_OK) {
        free(rows);
        return rs_fail(cmd, "%s", err);
    }
    if (c->json) {
        printf("{\"player\": ");
        rc_json_str(stdout, name);
        printf(", \"physics_version\": %u, \"personal_bests\": [", (unsigned)pv);
        for (uint32_t i = 0; i < n; i++) {
            char h[17];
            printf("%s\n  {\"tune\": \"%s\", \"row\": ", i ? "," : "",
                   rc_tune_key_str(rows[i].tune_key, h));
            rc_row_json(stdout, &rows[i], true);
            printf("}");
        }
        printf("%s]}\n", n ? "\n" : "");
    } else {
        printf("%s: %u personal bests, physics %u\n\n", name, (unsigned)n, (unsigned)pv);
        printf("%-24s %-24s %-16s %12s %6s %10s  %s\n", "TRACK", "CAR", "TUNE", "TIME", "RANK",
               "LAP", "RECORDED (UTC)");
        for (uint32_t i = 0; i < n; i++) {
            char t[32], d[32], h[17];
            rs_race_time_str(rows[i].time_us, t, sizeof t);
            rc_date_str(rows[i].recorded_at, d, sizeof d);
            printf("%-24s %-24s %-16s %12s %6u %10" PRId64 "  %s\n", rows[i].track_name,
                   rows[i].car_name, rc_tune_key_str(rows[i].tune_key, h), t,
                   (unsigned)rows[i].rank, rows[i].lap_id, d);
        }
    }
    free(rows);
    return RC_EXIT_OK;
}

/* --------------------------------------------------------------- recent */

static const char *invalid_str(int reason)
{
    switch (reason) {
    case RS_LAP_VALID: return "valid";
    case RS_LAP_SECTOR_SKIPPED: return "sector skipped";
    case RS_LAP_TRACK_LIMITS: return "track limits";
    case RS_LAP_REVERSED: return "reversed";
    default: return "invalid";
    }
}

int rc_cmd_recent(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "recent";
    rc_board_opts bo = {0};
    const char *player = NULL;
    uint32_t limit = 20;
    const rc_opt opts[] = {{"--player", &player, NULL, 0, 0, false},
                           {"--limit", NULL, &limit, 1, 1000, false},
                           {NULL, NULL, NULL, 0, 0, false}};
    int rc = rc_options(cmd, argc, argv,
                        "usage: racectl --db FILE recent --player NAME [--physics-version N]"
                        " [--limit N]\n"
                        "       racectl --db FILE recent --track T --car C"
                        " [--tune any|stock|HASH]\n"
                        "                [--physics-version N] [--limit N]\n"
                        "\n"
                        "The newest laps, valid or not, of a player (any track and car) or of a\n"
                        "board; newest first.\n\n"
                        "  --player NAME            the player (any case)\n" BOARD_OPTIONS_HELP
                        "  --limit N                laps to show, 1..1000 (default 20)\n",
                        &bo, opts);
    if (rc != RC_GO_ON)
        return rc;
    if (player && (bo.track || bo.car || bo.tune))
        return rs_usage_error(cmd, "give either --player or a board (--track and --car), not both");
    if (!player && !bo.track && !bo.car)
        return rs_usage_error(cmd, "give --player NAME or --track and --car");
    char name[RS_LB_NAME_MAX] = "", track[RS_LB_NAME_MAX], car[RS_LB_NAME_MAX], err[512];
    rs_board_key key;
    int64_t pid = 0;
    rc = player ? rc_player(c, cmd, player, &pid, name)
                : rc_board_resolve(c, cmd, &bo, &key, track, car);
    if (rc)
        return rc;
    uint32_t pv = bo.physics_version ? bo.physics_version : RS_PHYSICS_VERSION;
    rs_lb_row *rows = calloc(limit, sizeof *rows);
    uint32_t n = 0;
    if (!rows)
        return rs_fail(cmd, "out of memory");
    rs_status st = player ? rs_leaderboard_player_recent(c->lb, pid, pv, limit, rows, &n, err,
                                                         sizeof err)
                          : rs_leaderboard_recent(c->lb, &key, limit, rows, &n, err, sizeof err);
    if (st != RS_OK) {
        free(rows);
        return rs_fail(cmd, "%s", err);
    }
    if (c->json) {
        if (player) {
            printf("{\"player\": ");
            rc_json_str(stdout, name);
            printf(", \"physics_version\": %u", (unsigned)pv);
        } else {
            board_json_head(&key, track, car);
        }
        printf(", \"laps\": ");
        print_rows_json(rows, n, true);
        printf("}\n");
    } else {
        if (player)
            printf("%s: newest laps, physics %u\n\n", name, (unsigned)pv);
        else
            print_board_title(&key, track, car);
        printf("%10s  %-19s  %-20s %-24s %-24s %12s  %-14s %s\n", "LAP", "RECORDED (UTC)",
               "PLAYER", "TRACK", "CAR", "TIME", "VALIDITY", "TUNE");
        for (uint32_t i = 0; i < n; i++) {
            char t[32], d[32], h[17];
            rs_race_time_str(rows[i].time_us, t, sizeof t);
            rc_date_str(rows[i].recorded_at, d, sizeof d);
            if (rows[i].tune_hash)
                rc_hash_str(rows[i].tune_hash, h);
            else
                strcpy(h, "stock");
            printf("%10" PRId64 "  %-19s  %-20s %-24s %-24s %12s  %-14s %s\n", rows[i].lap_id, d,
                   rows[i].player_name, rows[i].track_name, rows[i].car_name, t,
                   rows[i].valid ? "valid" : invalid_str(rows[i].invalid_reason), h);
        }
        if (n == 0)
            printf("(no laps)\n");
    }
    free(rows);
    return RC_EXIT_OK;
}
