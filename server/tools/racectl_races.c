/*
 * racectl's race and tune commands: races (the newest races), results (one
 * race's classification) and tunes (a player's saved tunes, through the
 * store's tune API).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racectl.h"

static void race_json(const rs_lb_race *r)
{
    char h[17];
    rc_hash_str(r->track_hash, h);
    printf("{\"id\": %" PRId64 ", \"track\": ", r->id);
    rc_json_str(stdout, r->track_name);
    printf(", \"track_hash\": \"%s\", \"laps\": %u, \"physics_version\": %u, \"forced_tune\": ", h,
           (unsigned)r->laps, (unsigned)r->physics_version);
    if (r->forced_tune) {
        rc_hash_str(r->forced_tune_hash, h);
        printf("\"%s\"", h);
    } else {
        printf("null");
    }
    printf(", \"started_at\": %" PRId64 ", \"finished_at\": ", r->started_at);
    if (r->finished_at)
        printf("%" PRId64, r->finished_at);
    else
        printf("null");
    printf(", \"status\": \"%s\", \"entries\": %u, \"session\": {\"type\": \"%s\", "
           "\"index\": %u, \"weekend\": %u, \"room\": ",
           rs_store_race_status_name(r->status), (unsigned)r->entries,
           rs_store_session_type_name(r->session_type), (unsigned)r->session_index,
           (unsigned)r->weekend);
    if (r->room[0])
        rc_json_str(stdout, r->room);
    else
        printf("null");
    printf("}}");
}

/* "race", or "qualifying 2/3 @sprint" (type, index in the weekend, weekend, room). */
static void session_str(const rs_lb_race *r, char *out, size_t cap)
{
    if (r->room[0])
        snprintf(out, cap, "%s %u/%u @%s", rs_store_session_type_name(r->session_type),
                 (unsigned)r->session_index, (unsigned)r->weekend, r->room);
    else
        snprintf(out, cap, "%s", rs_store_session_type_name(r->session_type));
}

static void race_line(const rs_lb_race *r)
{
    /* An interrupted race has no end time: its server died. */
    char start[32], end[32] = "-", laps[16];
    rc_date_str(r->started_at, start, sizeof start);
    if (r->finished_at)
        rc_date_str(r->finished_at, end, sizeof end);
    if (r->laps)
        snprintf(laps, sizeof laps, "%u", (unsigned)r->laps);
    else
        snprintf(laps, sizeof laps, "practice");
    char session[RS_LB_NAME_MAX + 48];
    session_str(r, session, sizeof session);
    printf("%8" PRId64 "  %-24s %8s %7u %8u  %-11s  %-19s  %-19s  %s\n", r->id, r->track_name,
           laps, (unsigned)r->physics_version, (unsigned)r->entries,
           rs_store_race_status_name(r->status), start, end, session);
}

static void race_header(void)
{
    printf("%8s  %-24s %8s %7s %8s  %-11s  %-19s  %-19s  %s\n", "RACE", "TRACK", "LAPS",
           "PHYSICS", "ENTRIES", "STATUS", "STARTED (UTC)", "ENDED (UTC)",
           "SESSION (INDEX/WEEKEND @ROOM)");
}

int rc_cmd_races(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "races";
    uint32_t limit = 20;
    const rc_opt opts[] = {{"--limit", NULL, &limit, 1, 1000, false},
                           {NULL, NULL, NULL, 0, 0, false}};
    int rc = rc_options(cmd, argc, argv,
                        "usage: racectl --db FILE races [--limit N]\n"
                        "\n"
                        "The newest races first (default 20, at most 1000): track, laps, physics\n"
                        "version, result rows, status, start and end times. Status: running,\n"
                        "finished, stopped (the server was stopped during the race: its results\n"
                        "are the classification at that moment), interrupted (the server died\n"
                        "during the race: no results, no end time; its recorded laps are kept)\n"
                        "or abandoned (called off before lights out).\n",
                        NULL, opts);
    if (rc != RC_GO_ON)
        return rc;
    if (!c->lb)
        return rs_usage_error(cmd, "no database");
    rs_lb_race *races = calloc(limit, sizeof *races);
    uint32_t n = 0;
    char err[512];
    if (!races)
        return rs_fail(cmd, "out of memory");
    if (rs_leaderboard_races(c->lb, limit, races, &n, err, sizeof err) != RS_OK) {
        free(races);
        return rs_fail(cmd, "%s", err);
    }
    if (c->json) {
        printf("{\"races\": [");
        for (uint32_t i = 0; i < n; i++) {
            printf("%s\n  ", i ? "," : "");
            race_json(&races[i]);
        }
        printf("%s]}\n", n ? "\n" : "");
    } else {
        race_header();
        for (uint32_t i = 0; i < n; i++)
            race_line(&races[i]);
        if (n == 0)
            printf("(no races)\n");
    }
    free(races);
    return RC_EXIT_OK;
}

/* ------------------------------------------------------------ penalties */

/* A race's penalties (migration 0008), read in one go: *out is calloc'ed
 * (free it), *n how many. */
static rs_status load_penalties(rc_ctx *c, int64_t race_id, rs_lb_penalty **out, uint32_t *n,
                                char *err, size_t err_len)
{
    uint32_t total = 0;
    *out = NULL;
    *n = 0;
    rs_status st = rs_leaderboard_penalties(c->lb, race_id, NULL, 0, n, &total, err, err_len);
    if (st != RS_OK || total == 0)
        return st;
    *out = calloc(total, sizeof **out);
    if (!*out)
        return RS_ERR_NOMEM;
    return rs_leaderboard_penalties(c->lb, race_id, *out, total, n, &total, err, err_len);
}

static const char *penalty_by(const rs_store_penalty *p)
{
    return p->offence == RS_STORE_OFFENCE_ADMIN ? "admin" : "race_control";
}

/* The penalties of player_id as a JSON array, in the results file's shape
 * (docs/RESULTS.md). */
static void penalties_json(const rs_lb_penalty *pen, uint32_t n, int64_t player_id)
{
    printf("[");
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const rs_store_penalty *p = &pen[i].penalty;
        if (pen[i].player_id != player_id)
            continue;
        printf("%s{\"id\": %u, \"kind\": \"%s\", \"seconds\": %u, \"offence\": \"%s\", "
               "\"by\": \"%s\", \"reason\": ",
               k++ ? ", " : "", (unsigned)p->id, rs_store_penalty_kind_name(p->kind),
               (unsigned)p->seconds, rs_store_offence_name(p->offence), penalty_by(p));
        rc_json_str(stdout, p->reason);
        printf(", \"tick\": %" PRIu64 ", \"race_time_us\": %" PRId64 ", \"removed\": %s, "
               "\"removal\": ",
               p->tick, p->race_time_us, p->removed ? "true" : "false");
        if (p->removed) {
            printf("{\"by\": \"admin\", \"reason\": ");
            rc_json_str(stdout, p->removed_reason);
            printf(", \"tick\": %" PRIu64 ", \"race_time_us\": %" PRId64 "}}", p->removed_tick,
                   p->removed_race_time_us);
        } else {
            printf("null}");
        }
    }
    printf("]");
}

/* The race clock as racectl shows times; "countdown" before lights out. */
static void clock_str(int64_t us, char *out, size_t cap)
{
    if (us < 0)
        snprintf(out, cap, "countdown");
    else
        rs_race_time_str(us, out, cap);
}

/* The player's name for a penalty: its result row's. */
static const char *player_of(const rs_lb_result *res, uint32_t n, int64_t player_id)
{
    for (uint32_t i = 0; i < n; i++)
        if (res[i].player_id == player_id)
            return res[i].player_name;
    return "?";
}

/* Below the classification: every penalty in the order given, warnings
 * and the ones taken back included (those counted for nothing). */
static void penalties_table(const rs_lb_penalty *pen, uint32_t n, const rs_lb_result *res,
                            uint32_t res_n)
{
    printf("\nPENALTIES\n%4s  %-20s %-8s %7s  %-12s %-12s %12s  %s\n", "ID", "PLAYER", "KIND",
           "SECONDS", "OFFENCE", "BY", "RACE TIME", "REASON");
    for (uint32_t i = 0; i < n; i++) {
        const rs_store_penalty *p = &pen[i].penalty;
        char at[32];
        clock_str(p->race_time_us, at, sizeof at);
        printf("%4u  %-20s %-8s %7u  %-12s %-12s %12s  %s\n", (unsigned)p->id,
               player_of(res, res_n, pen[i].player_id), rs_store_penalty_kind_name(p->kind),
               (unsigned)p->seconds, rs_store_offence_name(p->offence), penalty_by(p), at,
               p->reason);
        if (p->removed) {
            clock_str(p->removed_race_time_us, at, sizeof at);
            printf("%4s  removed by admin at %s: %s\n", "", at, p->removed_reason);
        }
    }
    if (n == 0)
        printf("(no penalties)\n");
}

int rc_cmd_results(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "results";
    int64_t race_id;
    int rc = rc_id_argument(c, cmd, argc, argv,
                            "usage: racectl --db FILE results RACE_ID\n"
                            "\n"
                            "One race and its results by position: player, car, finish time,"
                            " laps,\n"
                            "best lap, barrier and car hits; then its penalties in the order"
                            " given\n"
                            "(warnings and penalties taken back included). Exit status 1 for an"
                            " unknown\n"
                            "race.\n",
                            "RACE_ID", "race id", &race_id);
    if (rc != RC_GO_ON)
        return rc;
    rs_lb_race race;
    uint32_t n = 0, total = 0;
    char err[512];
    if (rs_leaderboard_results(c->lb, race_id, &race, NULL, 0, &n, &total, err, sizeof err) !=
        RS_OK)
        return rs_fail(cmd, "%s", err);
    rs_lb_result *res = calloc(total ? total : 1, sizeof *res);
    if (!res)
        return rs_fail(cmd, "out of memory");
    rs_lb_penalty *pens = NULL;
    uint32_t pen_n = 0;
    if (rs_leaderboard_results(c->lb, race_id, &race, res, total, &n, &total, err, sizeof err) !=
            RS_OK ||
        load_penalties(c, race_id, &pens, &pen_n, err, sizeof err) != RS_OK) {
        free(res);
        free(pens);
        return rs_fail(cmd, "%s", err);
    }
    if (c->json) {
        printf("{\"race\": ");
        race_json(&race);
        printf(", \"results\": [");
        for (uint32_t i = 0; i < n; i++) {
            const rs_lb_result *r = &res[i];
            char h[17];
            rc_hash_str(r->params_hash, h);
            printf("%s\n  {\"position\": %u, \"player\": ", i ? "," : "", (unsigned)r->position);
            rc_json_str(stdout, r->player_name);
            printf(", \"player_id\": %" PRId64 ", \"car\": ", r->player_id);
            rc_json_str(stdout, r->car_name);
            printf(", \"car_params_hash\": \"%s\", \"finished\": %s, \"finish_us\": %" PRId64
                   ", \"laps_completed\": %u, \"best_lap_us\": %" PRId64
                   ", \"barrier_hits\": %u, \"car_hits\": %u, \"status\": \"%s\", \"class\": ",
                   h, r->finished ? "true" : "false", r->finish_us, (unsigned)r->laps_completed,
                   r->best_lap_us, (unsigned)r->barrier_hits, (unsigned)r->car_hits,
                   rs_store_result_status_name(r->status, r->finished));
            if (r->class_name[0])
                rc_json_str(stdout, r->class_name);
            else
                printf("null");
            printf(", \"class_position\": %u, \"penalty_ms\": %u, \"laps_led\": %u, "
                   "\"number\": ",
                   (unsigned)r->class_position, (unsigned)r->penalty_ms, (unsigned)r->laps_led);
            if (r->car_number)
                printf("%u", (unsigned)r->car_number);
            else
                printf("null");
            printf(", \"fastest_lap\": %s, \"penalties\": ", r->fastest_lap ? "true" : "false");
            penalties_json(pens, pen_n, r->player_id);
            printf("}");
        }
        printf("%s]}\n", n ? "\n" : "");
    } else {
        race_header();
        race_line(&race);
        printf("\n%4s  %-20s %-24s %14s %5s %12s %8s %8s  %-8s %-10s %9s %4s\n", "POS", "PLAYER",
               "CAR", "FINISH", "LAPS", "BEST LAP", "BARRIER", "CAR HITS", "CLASS", "STATUS",
               "PENALTY", "LED");
        for (uint32_t i = 0; i < n; i++) {
            const rs_lb_result *r = &res[i];
            char fin[32], best[32];
            if (r->finished)
                rs_race_time_str(r->finish_us, fin, sizeof fin);
            else
                snprintf(fin, sizeof fin, "DNF");
            rs_race_time_str(r->best_lap_us, best, sizeof best);
            char cls[RS_LB_NAME_MAX + 16], pen[24];
            if (r->class_name[0])
                snprintf(cls, sizeof cls, "%s/%u", r->class_name, (unsigned)r->class_position);
            else
                snprintf(cls, sizeof cls, "-");
            snprintf(pen, sizeof pen, "%u.%03us", (unsigned)(r->penalty_ms / 1000),
                     (unsigned)(r->penalty_ms % 1000));
            printf("%4u  %-20s %-24s %14s %5u %12s%s %8u %8u  %-8s %-10s %9s %4u\n",
                   (unsigned)r->position, r->player_name, r->car_name, fin,
                   (unsigned)r->laps_completed, best, r->fastest_lap ? "*" : " ",
                   (unsigned)r->barrier_hits, (unsigned)r->car_hits, cls,
                   r->status == RS_STORE_RESULT_DISQUALIFIED     ? "DSQ"
                   : r->status == RS_STORE_RESULT_NOT_CLASSIFIED ? "NC"
                                                                 : "classified",
                   pen, (unsigned)r->laps_led);
        }
        if (n == 0)
            printf("(no results)\n");
        penalties_table(pens, pen_n, res, n);
    }
    free(res);
    free(pens);
    return RC_EXIT_OK;
}

int rc_cmd_tunes(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "tunes";
    const char *player = NULL, *car = NULL;
    const rc_opt opts[] = {{"--player", &player, NULL, 0, 0, true},
                           {"--car", &car, NULL, 0, 0, false},
                           {NULL, NULL, NULL, 0, 0, false}};
    int rc = rc_options(cmd, argc, argv,
                        "usage: racectl --db FILE tunes --player NAME [--car C]\n"
                        "\n"
                        "A player's saved tunes (every car, or one stock car): car, name, tune\n"
                        "hash, tuned parameter-block hash and when it was saved.\n"
                        "\n"
                        "  --player NAME    the player (any case)\n"
                        "  --car C          the stock car: its name (any case), the file\n"
                        "                   raceserver was given (\"c5\": cars/c5.json in the\n"
                        "                   data folder, or a .json path) or its 16-digit hash\n",
                        NULL, opts);
    if (rc != RC_GO_ON)
        return rc;
    char name[RS_LB_NAME_MAX], car_name[RS_LB_NAME_MAX], err[512];
    int64_t pid;
    uint64_t base = 0;
    rc = rc_player(c, cmd, player, &pid, name);
    if (rc)
        return rc;
    if (car && (rc = rc_find_car(c, cmd, car, &base, car_name)))
        return rc;
    size_t total = 0;
    if (rs_store_tune_list(c->store, pid, base, NULL, 0, &total, err, sizeof err) != RS_OK)
        return rs_fail(cmd, "%s", err);
    rs_store_tune *tunes = calloc(total ? total : 1, sizeof *tunes);
    if (!tunes)
        return rs_fail(cmd, "out of memory");
    size_t cap = total;
    if (rs_store_tune_list(c->store, pid, base, tunes, cap, &total, err, sizeof err) != RS_OK) {
        free(tunes);
        return rs_fail(cmd, "%s", err);
    }
    size_t n = total < cap ? total : cap;
    if (c->json) {
        printf("{\"player\": ");
        rc_json_str(stdout, name);
        printf(", \"tunes\": [");
    } else {
        printf("%s: %zu tunes\n\n%-24s %-16s %-24s %-16s %-16s %s\n", name, n, "CAR", "CAR HASH",
               "NAME", "TUNE HASH", "PARAMS HASH", "SAVED (UTC)");
    }
    for (size_t i = 0; i < n; i++) {
        const rs_store_tune *t = &tunes[i];
        char ch[17], th[17], ph[17], d[32], cn[RS_LB_NAME_MAX] = "";
        rc_hash_str(t->base_hash, ch);
        rc_hash_str(t->tune_hash, th);
        rc_hash_str(t->params_hash, ph);
        /* The car's name, when the stock car is stored (it usually is). */
        uint64_t found;
        if (rs_leaderboard_find_car(c->lb, ch, &found, cn, err, sizeof err) != RS_OK)
            cn[0] = '\0';
        if (c->json) {
            printf("%s\n  {\"id\": %" PRId64 ", \"car\": ", i ? "," : "", t->id);
            rc_json_str(stdout, cn);
            printf(", \"car_hash\": \"%s\", \"name\": ", ch);
            rc_json_str(stdout, t->name);
            printf(", \"tune_hash\": \"%s\", \"params_hash\": \"%s\", \"created_at\": %" PRId64
                   "}",
                   th, ph, t->created_at);
        } else {
            rc_date_str(t->created_at, d, sizeof d);
            printf("%-24s %-16s %-24s %-16s %-16s %s\n", cn, ch, t->name, th, ph, d);
        }
    }
    if (c->json)
        printf("%s]}\n", n ? "\n" : "");
    else if (n == 0)
        printf("(no tunes)\n");
    free(tunes);
    return RC_EXIT_OK;
}
