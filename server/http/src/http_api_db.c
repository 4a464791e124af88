/*
 * The database part of the JSON API (docs/openapi.json): leaderboards with
 * racectl's filters and paging (one car's, or a class's of several cars), a player's rank and the rows around it,
 * races and their results, a lap's record, and what anyone needs to verify
 * a lap: its proof bytes, the cars' parameter blocks and the track's JSON.
 *
 * Queries run on the HTTP side's own read-only connection (WAL lets it
 * read while the writer writes), one at a time under db_mu. It is opened
 * on first use, so a server whose database is created at start-up is
 * served as soon as it exists.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_internal.h"
#include "racesim/base/clock.h"
#include "racesim/lapproof.h"

#define MAX_PER_PAGE 100
#define MAX_AROUND 50
#define MAX_RACES 100
#define MAX_DEFS 200

rs_leaderboard *http_db_lock(http_req *r, enum MHD_Result *res)
{
    rs_http *http = r->http;
    if (!http->db_path) {
        *res = http_send_error(r, 503, "no_database", "this server keeps no database");
        return NULL;
    }
    pthread_mutex_lock(&http->db_mu);
    if (!http->lb) {
        char err[512] = "";
        int64_t now = rs_clock_us();
        rs_status st = RS_ERR_IO;
        if (now >= http->db_retry_us) {
            st = rs_store_open(http->db_path, RS_STORE_READONLY, &http->store, err, sizeof err);
            if (st == RS_OK)
                st = rs_leaderboard_open(http->store, &http->lb, err, sizeof err);
            if (st != RS_OK) {
                rs_store_close(http->store);
                http->store = NULL;
                http->lb = NULL;
                http->db_retry_us = now + 1000000;
                if (http->def.log)
                    http->def.log(http->def.log_ctx, RS_HTTP_LOG_WARN, err);
            }
        }
        if (st != RS_OK) {
            pthread_mutex_unlock(&http->db_mu);
            *res = http_send_error(r, 503, "database_unavailable",
                                   "the database cannot be read now; try again shortly");
            return NULL;
        }
    }
    return http->lb;
}

void http_db_unlock(rs_http *http)
{
    pthread_mutex_unlock(&http->db_mu);
}

/* A database error after the lock: 404 for "missing", 503 otherwise. */
static enum MHD_Result db_error(http_req *r, rs_status st, const char *what, const char *err)
{
    if (st == RS_ERR_MISSING)
        return http_send_error(r, 404, "not_found", "%s", err[0] ? err : what);
    if (r->http->def.log)
        r->http->def.log(r->http->def.log_ctx, RS_HTTP_LOG_WARN, err);
    return http_send_error(r, 503, "database_error", "%s: the database query failed", what);
}

static const char *tune_str(uint64_t key, char hex[17])
{
    if (key == RS_TUNE_KEY_ANY)
        return "any";
    if (key == RS_TUNE_KEY_STOCK)
        return "stock";
    http_hex64(key, hex);
    return hex;
}

static cJSON *row_json(const rs_lb_row *row, bool full)
{
    cJSON *o = cJSON_CreateObject();
    if (row->rank)
        cJSON_AddNumberToObject(o, "rank", row->rank);
    cJSON_AddNumberToObject(o, "lap_id", (double)row->lap_id);
    cJSON_AddNumberToObject(o, "player_id", (double)row->player_id);
    cJSON_AddStringToObject(o, "player", row->player_name);
    cJSON_AddNumberToObject(o, "time_us", (double)row->time_us);
    http_add_sectors(o, row->sector_count, row->sectors_us);
    cJSON_AddNumberToObject(o, "recorded_at", (double)row->recorded_at);
    if (row->tune_hash)
        http_add_hash(o, "tune", row->tune_hash);
    else
        cJSON_AddStringToObject(o, "tune", "stock");
    cJSON_AddBoolToObject(o, "valid", row->valid);
    if (!full)
        return o;
    cJSON_AddNumberToObject(o, "invalid_reason", row->valid ? 0 : row->invalid_reason);
    cJSON_AddNumberToObject(o, "lap", row->lap_number);
    if (row->race_id)
        cJSON_AddNumberToObject(o, "race_id", (double)row->race_id);
    else
        cJSON_AddNullToObject(o, "race_id");
    http_add_named(o, "track", row->track_name, row->track_hash);
    http_add_named(o, "car", row->car_name, row->base_hash);
    http_add_hash(o, "params_hash", row->params_hash);
    http_add_hash(o, "end_hash", row->end_hash);
    cJSON_AddNumberToObject(o, "physics_version", row->physics_version);
    return o;
}

/* A board as the arguments name it: one car's (car=X) or a class's, the
 * merged boards of several cars (car=X&car=Y...), with the names as stored. */
typedef struct board_args {
    rs_class_key key; /* every car; tune_key and physics_version for both kinds */
    char track[RS_LB_NAME_MAX];
    char cars[RS_LB_CLASS_MAX_CARS][RS_LB_NAME_MAX];
} board_args;

/* The one-car board of b (car_count 1). */
static rs_board_key car_key(const board_args *b)
{
    return (rs_board_key){b->key.track_hash, b->key.base_hashes[0], b->key.physics_version,
                          b->key.tune_key};
}

/* tune= into b's tune key: any, stock, or one car's tune by its hash. */
static bool board_tune(http_req *r, board_args *b, enum MHD_Result *res)
{
    const char *tune = http_arg(r, "tune");
    b->key.tune_key = RS_TUNE_KEY_ANY;
    if (!tune || strcmp(tune, "any") == 0)
        return true;
    if (strcmp(tune, "stock") == 0) {
        b->key.tune_key = RS_TUNE_KEY_STOCK;
        return true;
    }
    if (!http_parse_hex64(tune, &b->key.tune_key)) {
        *res = http_send_error(r, 400, "bad_argument",
                               "tune must be any, stock or a tune's 16-digit hash");
        return false;
    }
    if (b->key.car_count > 1) {
        /* A tune belongs to one car: that car's board shows it. */
        *res = http_send_error(r, 400, "bad_argument",
                               "a board of several cars is tune=any or tune=stock");
        return false;
    }
    return true;
}

/* track=, car= (once, or once per car of a class), tune=, physics_version=
 * into b. False with a response sent when an argument is missing or wrong. */
static bool board_key(http_req *r, rs_leaderboard *lb, board_args *b, enum MHD_Result *res)
{
    const char *t = http_arg(r, "track"), *cars[RS_LB_CLASS_MAX_CARS];
    unsigned n = http_args(r, "car", cars, RS_LB_CLASS_MAX_CARS);
    memset(b, 0, sizeof *b);
    if (!t || n == 0) {
        *res = http_send_error(r, 400, "missing_argument",
                               "a board needs track= and car= (a name in any case, or a hash)");
        return false;
    }
    if (n > RS_LB_CLASS_MAX_CARS) {
        *res = http_send_error(r, 400, "bad_argument", "a board has at most %d cars (car=)",
                               RS_LB_CLASS_MAX_CARS);
        return false;
    }
    b->key.car_count = n;
    char err[512] = "";
    rs_status st = rs_leaderboard_find_track(lb, t, &b->key.track_hash, b->track, err, sizeof err);
    for (unsigned i = 0; st == RS_OK && i < n; i++)
        st = rs_leaderboard_find_car(lb, cars[i], &b->key.base_hashes[i], b->cars[i], err,
                                     sizeof err);
    if (st == RS_ERR_MISSING || st == RS_ERR_RANGE) {
        *res = http_send_error(r, 404, "not_found", "%s", err);
        return false;
    }
    if (st != RS_OK) {
        *res = db_error(r, st, "board", err);
        return false;
    }
    return board_tune(r, b, res) &&
           http_arg_u32(r, "physics_version", 1, UINT32_MAX, r->http->def.info.physics_version,
                        &b->key.physics_version, res);
}

/* The board's description: car is its car, or null for several (cars
 * lists them either way). */
static cJSON *board_head(const board_args *b)
{
    char hex[17];
    cJSON *doc = cJSON_CreateObject();
    http_add_named(doc, "track", b->track, b->key.track_hash);
    if (b->key.car_count == 1)
        http_add_named(doc, "car", b->cars[0], b->key.base_hashes[0]);
    else
        cJSON_AddNullToObject(doc, "car");
    cJSON *cars = cJSON_AddArrayToObject(doc, "cars");
    for (uint32_t i = 0; i < b->key.car_count; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", b->cars[i]);
        http_add_hash(c, "hash", b->key.base_hashes[i]);
        cJSON_AddItemToArray(cars, c);
    }
    cJSON_AddStringToObject(doc, "tune", tune_str(b->key.tune_key, hex));
    cJSON_AddNumberToObject(doc, "physics_version", b->key.physics_version);
    return doc;
}

/* A board's rows, each naming the car its lap was driven in. */
static void add_board_rows(cJSON *doc, const rs_lb_row *rows, uint32_t n)
{
    cJSON *list = cJSON_AddArrayToObject(doc, "rows");
    for (uint32_t i = 0; i < n; i++) {
        cJSON *o = row_json(&rows[i], false);
        http_add_named(o, "car", rows[i].car_name, rows[i].base_hash);
        cJSON_AddItemToArray(list, o);
    }
}

static rs_status board_page(rs_leaderboard *lb, const board_args *b, uint32_t offset,
                            uint32_t limit, rs_lb_row *rows, uint32_t *n, uint32_t *total,
                            char *err, size_t err_len)
{
    if (b->key.car_count > 1) {
        rs_status st = rs_leaderboard_class_count(lb, &b->key, total, err, err_len);
        return st != RS_OK ? st
                           : rs_leaderboard_class_top(lb, &b->key, offset, limit, rows, n, err,
                                                      err_len);
    }
    rs_board_key key = car_key(b);
    rs_status st = rs_leaderboard_count(lb, &key, total, err, err_len);
    return st != RS_OK ? st : rs_leaderboard_top(lb, &key, offset, limit, rows, n, err, err_len);
}

static rs_status board_around(rs_leaderboard *lb, const board_args *b, int64_t player_id,
                              uint32_t k, rs_lb_row *rows, uint32_t *n, uint32_t *index,
                              char *err, size_t err_len)
{
    if (b->key.car_count > 1)
        return rs_leaderboard_class_around(lb, &b->key, player_id, k, rows, n, index, err,
                                           err_len);
    rs_board_key key = car_key(b);
    return rs_leaderboard_around(lb, &key, player_id, k, rows, n, index, err, err_len);
}

static enum MHD_Result leaderboard(http_req *r, rs_leaderboard *lb)
{
    enum MHD_Result res = MHD_NO;
    board_args b;
    char err[512] = "";
    uint32_t page, per_page, total = 0, n = 0;
    if (!board_key(r, lb, &b, &res) || !http_arg_u32(r, "page", 1, 10000000, 1, &page, &res) ||
        !http_arg_u32(r, "per_page", 1, MAX_PER_PAGE, 20, &per_page, &res))
        return res;
    rs_lb_row *rows = calloc(per_page, sizeof *rows);
    if (!rows)
        return http_send_error(r, 503, "unavailable", "out of memory");
    rs_status st =
        board_page(lb, &b, (page - 1) * per_page, per_page, rows, &n, &total, err, sizeof err);
    if (st != RS_OK) {
        free(rows);
        return db_error(r, st, "leaderboard", err);
    }
    cJSON *doc = board_head(&b);
    cJSON_AddNumberToObject(doc, "total", total);
    cJSON_AddNumberToObject(doc, "page", page);
    cJSON_AddNumberToObject(doc, "per_page", per_page);
    cJSON_AddNumberToObject(doc, "pages", total ? (total + per_page - 1) / per_page : 1);
    add_board_rows(doc, rows, n);
    free(rows);
    return http_send_json(r, 200, doc);
}

static enum MHD_Result rank(http_req *r, rs_leaderboard *lb)
{
    enum MHD_Result res = MHD_NO;
    board_args b;
    char name[RS_LB_NAME_MAX], err[512] = "";
    uint32_t around, n = 0, index = 0;
    const char *player = http_arg(r, "player");
    if (!player || !player[0])
        return http_send_error(r, 400, "missing_argument", "rank needs player=NAME");
    if (!board_key(r, lb, &b, &res) || !http_arg_u32(r, "around", 0, MAX_AROUND, 5, &around, &res))
        return res;
    int64_t player_id;
    rs_status st = rs_leaderboard_find_player(lb, player, &player_id, name, err, sizeof err);
    if (st == RS_ERR_MISSING)
        return http_send_error(r, 404, "no_such_player", "no player is named '%.64s'", player);
    if (st != RS_OK)
        return db_error(r, st, "rank", err);
    rs_lb_row *rows = calloc(2 * around + 1, sizeof *rows);
    if (!rows)
        return http_send_error(r, 503, "unavailable", "out of memory");
    st = board_around(lb, &b, player_id, around, rows, &n, &index, err, sizeof err);
    if (st == RS_ERR_MISSING) {
        free(rows);
        return http_send_error(r, 404, "not_on_board",
                               "%s has no valid lap on this board", name);
    }
    if (st != RS_OK) {
        free(rows);
        return db_error(r, st, "rank", err);
    }
    cJSON *doc = board_head(&b);
    cJSON_AddStringToObject(doc, "player", name);
    cJSON_AddNumberToObject(doc, "player_id", (double)player_id);
    cJSON_AddNumberToObject(doc, "rank", rows[index].rank);
    cJSON_AddNumberToObject(doc, "player_index", index);
    add_board_rows(doc, rows, n);
    free(rows);
    return http_send_json(r, 200, doc);
}

static cJSON *defs_json(const rs_lb_definition *d, uint32_t n)
{
    cJSON *list = cJSON_CreateArray();
    for (uint32_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", d[i].name);
        http_add_hash(o, "hash", d[i].hash);
        cJSON_AddItemToArray(list, o);
    }
    return list;
}

static enum MHD_Result boards(http_req *r, rs_leaderboard *lb)
{
    rs_lb_definition *tracks = calloc(2 * MAX_DEFS, sizeof *tracks), *cars = tracks + MAX_DEFS;
    if (!tracks)
        return http_send_error(r, 503, "unavailable", "out of memory");
    uint32_t nt = 0, nc = 0;
    char err[512] = "";
    rs_status st = rs_leaderboard_tracks(lb, MAX_DEFS, tracks, &nt, err, sizeof err);
    if (st == RS_OK)
        st = rs_leaderboard_cars(lb, MAX_DEFS, cars, &nc, err, sizeof err);
    if (st != RS_OK) {
        free(tracks);
        return db_error(r, st, "boards", err);
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddItemToObject(doc, "tracks", defs_json(tracks, nt));
    cJSON_AddItemToObject(doc, "cars", defs_json(cars, nc));
    free(tracks);
    return http_send_json(r, 200, doc);
}

static const char *race_status(rs_store_race_status s)
{
    switch (s) {
    case RS_STORE_RACE_RUNNING: return "running";
    case RS_STORE_RACE_FINISHED: return "finished";
    case RS_STORE_RACE_STOPPED: return "stopped";
    case RS_STORE_RACE_INTERRUPTED: return "interrupted";
    case RS_STORE_RACE_ABANDONED: return "abandoned";
    default: return "unknown";
    }
}

static cJSON *race_json(const rs_lb_race *race)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)race->id);
    http_add_named(o, "track", race->track_name, race->track_hash);
    cJSON_AddNumberToObject(o, "laps", race->laps);
    cJSON_AddNumberToObject(o, "physics_version", race->physics_version);
    cJSON_AddStringToObject(o, "status", race_status(race->status));
    cJSON_AddNumberToObject(o, "started_at", (double)race->started_at);
    if (race->finished_at)
        cJSON_AddNumberToObject(o, "finished_at", (double)race->finished_at);
    else
        cJSON_AddNullToObject(o, "finished_at");
    cJSON_AddNumberToObject(o, "entries", race->entries);
    /* Its place in its room's weekend (migration 0007; older races: a race,
     * room unknown, weekend and index 0). */
    cJSON *s = cJSON_AddObjectToObject(o, "session");
    cJSON_AddStringToObject(s, "type", rs_store_session_type_name(race->session_type));
    cJSON_AddNumberToObject(s, "index", race->session_index);
    cJSON_AddNumberToObject(s, "weekend", race->weekend);
    if (race->room[0])
        cJSON_AddStringToObject(s, "room", race->room);
    else
        cJSON_AddNullToObject(s, "room");
    return o;
}

static const char *result_status(const rs_lb_result *res)
{
    switch (res->status) {
    case RS_STORE_RESULT_CLASSIFIED: return "classified";
    case RS_STORE_RESULT_DISQUALIFIED: return "disqualified";
    case RS_STORE_RESULT_BY_FINISH: /* a writer that does not classify: the flag decides */
        return res->finished ? "classified" : "not_classified";
    default: return "not_classified";
    }
}

/* One stored penalty, as the results file writes it (docs/RESULTS.md). */
static cJSON *stored_penalty_json(const rs_store_penalty *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", p->id);
    cJSON_AddStringToObject(o, "kind", rs_store_penalty_kind_name(p->kind));
    cJSON_AddNumberToObject(o, "seconds", p->seconds);
    cJSON_AddStringToObject(o, "offence", rs_store_offence_name(p->offence));
    cJSON_AddStringToObject(o, "by",
                            p->offence == RS_STORE_OFFENCE_ADMIN ? "admin" : "race_control");
    cJSON_AddStringToObject(o, "reason", p->reason);
    cJSON_AddNumberToObject(o, "tick", (double)p->tick);
    cJSON_AddNumberToObject(o, "race_time_us", (double)p->race_time_us);
    cJSON_AddBoolToObject(o, "removed", p->removed);
    if (p->removed) {
        cJSON *r = cJSON_AddObjectToObject(o, "removal");
        cJSON_AddStringToObject(r, "by", "admin"); /* only an administrator takes one back */
        cJSON_AddNumberToObject(r, "tick", (double)p->removed_tick);
        cJSON_AddNumberToObject(r, "race_time_us", (double)p->removed_race_time_us);
        cJSON_AddStringToObject(r, "reason", p->removed_reason);
    } else {
        cJSON_AddNullToObject(o, "removal");
    }
    return o;
}

static cJSON *result_json(const rs_lb_result *res, const rs_lb_penalty *pens, uint32_t pen_count)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "position", res->position);
    if (res->class_name[0])
        cJSON_AddStringToObject(o, "class", res->class_name);
    else
        cJSON_AddNullToObject(o, "class");
    cJSON_AddNumberToObject(o, "class_position", res->class_position);
    cJSON_AddStringToObject(o, "status", result_status(res));
    cJSON_AddNumberToObject(o, "player_id", (double)res->player_id);
    cJSON_AddStringToObject(o, "player", res->player_name);
    if (res->car_number)
        cJSON_AddNumberToObject(o, "number", res->car_number);
    else
        cJSON_AddNullToObject(o, "number");
    cJSON_AddStringToObject(o, "car", res->car_name);
    http_add_hash(o, "params_hash", res->params_hash);
    cJSON_AddBoolToObject(o, "finished", res->finished);
    http_add_us(o, "finish_us", res->finish_us);
    cJSON_AddNumberToObject(o, "laps", res->laps_completed);
    http_add_us(o, "best_lap_us", res->best_lap_us);
    cJSON_AddBoolToObject(o, "fastest_lap", res->fastest_lap);
    cJSON_AddNumberToObject(o, "laps_led", res->laps_led);
    cJSON_AddNumberToObject(o, "barrier_hits", res->barrier_hits);
    cJSON_AddNumberToObject(o, "car_hits", res->car_hits);
    cJSON_AddNumberToObject(o, "penalty_ms", res->penalty_ms);
    cJSON *arr = cJSON_AddArrayToObject(o, "penalties");
    for (uint32_t i = 0; i < pen_count; i++)
        if (pens[i].player_id == res->player_id)
            cJSON_AddItemToArray(arr, stored_penalty_json(&pens[i].penalty));
    return o;
}

static enum MHD_Result races(http_req *r, rs_leaderboard *lb)
{
    enum MHD_Result res = MHD_NO;
    uint32_t limit, n = 0;
    if (!http_arg_u32(r, "limit", 1, MAX_RACES, 20, &limit, &res))
        return res;
    const char *type_arg = http_arg(r, "type");
    int type = type_arg ? rs_store_session_type_parse(type_arg) : -1;
    if (type_arg && type < 0)
        return http_send_error(r, 400, "bad_argument",
                               "type is practice, qualifying, warmup or race");
    rs_lb_race *list = calloc(limit, sizeof *list);
    if (!list)
        return http_send_error(r, 503, "unavailable", "out of memory");
    char err[512] = "";
    rs_status st = rs_leaderboard_races_of_type(lb, type, limit, list, &n, err, sizeof err);
    if (st != RS_OK) {
        free(list);
        return db_error(r, st, "races", err);
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(doc, "races");
    for (uint32_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, race_json(&list[i]));
    free(list);
    return http_send_json(r, 200, doc);
}

static enum MHD_Result race(http_req *r, rs_leaderboard *lb, int64_t id)
{
    rs_lb_race info;
    rs_lb_result res[RS_HTTP_MAX_CARS];
    uint32_t n = 0, total = 0;
    char err[512] = "";
    rs_status st = rs_leaderboard_results(lb, id, &info, res, RS_HTTP_MAX_CARS, &n, &total, err,
                                          sizeof err);
    if (st != RS_OK)
        return db_error(r, st, "race", err);
    /* Its penalties (migration 0008): counted first, since a session's
     * warnings have no fixed bound, then read. */
    uint32_t pen_count = 0, pen_total = 0;
    st = rs_leaderboard_penalties(lb, id, NULL, 0, &pen_count, &pen_total, err, sizeof err);
    rs_lb_penalty *pens = NULL;
    if (st == RS_OK && pen_total) {
        pens = calloc(pen_total, sizeof *pens);
        if (!pens)
            return http_send_error(r, 503, "unavailable", "out of memory");
        st = rs_leaderboard_penalties(lb, id, pens, pen_total, &pen_count, &pen_total, err,
                                      sizeof err);
    }
    if (st != RS_OK) {
        free(pens);
        return db_error(r, st, "race", err);
    }
    cJSON *doc = race_json(&info);
    cJSON *arr = cJSON_AddArrayToObject(doc, "results");
    for (uint32_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, result_json(&res[i], pens, pen_count));
    free(pens);
    return http_send_json(r, 200, doc);
}

/* The lap record with what its proof holds (cars and track to fetch). */
static enum MHD_Result lap(http_req *r, rs_leaderboard *lb, int64_t id)
{
    rs_lb_row row;
    char err[512] = "";
    rs_status st = rs_leaderboard_lap(lb, id, &row, err, sizeof err);
    if (st != RS_OK)
        return db_error(r, st, "lap", err);
    cJSON *doc = row_json(&row, true);
    uint32_t format = 0;
    uint8_t *proof = NULL;
    size_t len = 0;
    st = rs_store_lap_proof(r->http->store, id, &format, &proof, &len, err, sizeof err);
    rs_lap_proof_info info;
    if (st == RS_OK && rs_lap_proof_info_read(proof, len, &info) == RS_OK) {
        cJSON *p = cJSON_AddObjectToObject(doc, "proof");
        cJSON_AddNumberToObject(p, "format", format);
        cJSON_AddNumberToObject(p, "bytes", (double)len);
        cJSON_AddNumberToObject(p, "ticks", info.tick_count);
        cJSON_AddNumberToObject(p, "tick_hz", info.tick_hz);
        cJSON_AddNumberToObject(p, "car", info.car);
        http_add_hash(p, "track_hash", info.track_hash);
        cJSON *cars = cJSON_AddArrayToObject(p, "cars");
        for (uint32_t i = 0; i < info.car_count; i++) {
            uint64_t h = 0;
            rs_lap_proof_car_hash(proof, len, i, &h);
            char hex[17];
            http_hex64(h, hex);
            cJSON_AddItemToArray(cars, cJSON_CreateString(hex));
        }
    } else {
        cJSON_AddNullToObject(doc, "proof"); /* no proof kept (too long a lap), or unreadable */
    }
    free(proof);
    return http_send_json(r, 200, doc);
}

static enum MHD_Result lap_proof(http_req *r, int64_t id)
{
    uint32_t format = 0;
    uint8_t *proof = NULL;
    size_t len = 0;
    char err[512] = "";
    rs_status st = rs_store_lap_proof(r->http->store, id, &format, &proof, &len, err, sizeof err);
    if (st != RS_OK)
        return db_error(r, st, "lap proof", err);
    /* Stored laps never change: a cache may keep the bytes. */
    return http_send(r, 200, "application/octet-stream", proof, len, true, "max-age=86400");
}

static enum MHD_Result car_block(http_req *r, rs_leaderboard *lb, uint64_t h)
{
    uint8_t *block = NULL;
    size_t len = 0;
    char err[512] = "";
    rs_status st = rs_leaderboard_car_block(lb, h, &block, &len, err, sizeof err);
    if (st != RS_OK)
        return db_error(r, st, "car block", err);
    return http_send(r, 200, "application/octet-stream", block, len, true, "max-age=86400");
}

static enum MHD_Result track_definition(http_req *r, rs_leaderboard *lb, uint64_t h)
{
    char *json = NULL;
    size_t len = 0;
    char err[512] = "";
    rs_status st = rs_leaderboard_track_definition(lb, h, &json, &len, err, sizeof err);
    if (st != RS_OK)
        return db_error(r, st, "track", err);
    return http_send(r, 200, "application/json", json, len, true, "max-age=86400");
}

enum MHD_Result http_api_db(http_req *r)
{
    const http_route *rt = r->route;
    if ((rt->kind == HTTP_R_CAR || rt->kind == HTTP_R_TRACK) && !rt->hash_ok)
        return http_send_error(r, 400, "bad_argument", "a hash is 16 hex digits");
    enum MHD_Result res = MHD_NO;
    rs_leaderboard *lb = http_db_lock(r, &res);
    if (!lb)
        return res;
    switch (rt->kind) {
    case HTTP_R_BOARDS: res = boards(r, lb); break;
    case HTTP_R_LEADERBOARD: res = leaderboard(r, lb); break;
    case HTTP_R_RANK: res = rank(r, lb); break;
    case HTTP_R_RACES: res = races(r, lb); break;
    case HTTP_R_RACE: res = race(r, lb, rt->id); break;
    case HTTP_R_LAP: res = lap(r, lb, rt->id); break;
    case HTTP_R_PROOF: res = lap_proof(r, rt->id); break;
    case HTTP_R_CAR: res = car_block(r, lb, rt->hash); break;
    default: res = track_definition(r, lb, rt->hash); break;
    }
    http_db_unlock(r->http);
    return res;
}
