/*
 * lbbench: how fast the leaderboard answers on a large database.
 *
 * It creates a fresh database through rs_store_open (so the schema is the
 * real one, built by the embedded migrations), stores two shipped tracks and
 * two shipped cars through the store API, then generates the benchmark's
 * data: players and laps (default 1,000,000 laps from 10,000 players) with
 * the personal bests the store's writer would have kept for them. Then it
 * times the leaderboard queries through racesim/leaderboard.h on a
 * read-only store handle, as racectl and the server use them (a car's board,
 * then the class board of both cars on the same track), and prints one JSON
 * object (docs/PERFORMANCE.md, "Leaderboards").
 *
 * Why the data is not written through rs_store_put_lap: that path compresses
 * a proof and updates personal bests lap by lap, which is the right cost for
 * a race server but would make generating a million laps take many minutes.
 * The generator instead inserts laps with its own prepared statements in one
 * transaction and computes the personal bests in memory by the writer's rule
 * (the best valid lap per board and player, replaced only by a strictly
 * faster lap, so a tie keeps the earlier lap; one row for the lap's tune and
 * one for "any tune", tune key 0; stock laps have their own board,
 * RS_TUNE_KEY_STOCK). Laps carry no proofs (lap_proofs stays
 * empty): the leaderboard never reads them.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "racesim/leaderboard.h"
#include "racesim/physics.h"
#include "racesim/store.h"
#include "racesim/track.h"
#include "racesim/base/cli.h"
#include "racesim/base/clock.h"
#include "racesim/base/stats.h"
#include "racesim/base/file.h"

#define TRACKS 2
#define CARS 2
#define BOARDS (TRACKS * CARS)
#define TUNES 8 /* shared set-ups per car; index 0 is the stock car */

typedef struct options {
    const char *db;
    uint32_t laps;
    uint32_t players;
    uint32_t runs;
    uint64_t seed;
} options;

typedef struct best {
    int64_t time_us; /* 0 = none yet */
    int64_t lap_id;
} best;

/* ------------------------------------------------------------ random */

static uint64_t rng_next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s) /* [0, 1) */
{
    return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Roughly normal with mean 0 and deviation 1 (the sum of four uniforms:
 * good enough for lap-time scatter, and needs no libm). */
static double rng_normalish(uint64_t *s)
{
    double sum = rng_unit(s) + rng_unit(s) + rng_unit(s) + rng_unit(s);
    return (sum - 2.0) * 1.7320508075688772;
}

/* ------------------------------------------------------------- timing */

static double now_ms(void)
{
    return (double)rs_clock_ns() * 1e-6;
}

/* ------------------------------------------------------------ options */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lbbench [--db PATH] [--laps N] [--players N] [--runs N] [--seed N]\n"
            "\n"
            "Creates a database of N laps (default 1000000) from N players (default\n"
            "10000) on 2 tracks x 2 cars, then times a top-10 page and a rank query\n"
            "(median and p99 over --runs runs each, default 200, after a warm-up), the\n"
            "same on the class board of both cars (class_*), and prints one JSON object.\n"
            "\n"
            "  --db PATH   create the database here and keep it (PATH must not exist);\n"
            "              default: a temporary file, deleted afterwards\n"
            "  --seed N    data generator seed (default 1)\n"
            "\n"
            "Exit status: 0 ok, 1 failure, 2 usage error.\n");
}

/* Fills o from the command line. Returns -1 to go on, else the exit
 * status. */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){NULL, 1000000, 10000, 200, 1};
    uint32_t seed = 1;
    const rs_cli_opt opts[] = {
        {"--db", NULL, 0, 0, &o->db},
        {"--laps", &o->laps, 1, 100000000, NULL},
        {"--players", &o->players, 1, 10000000, NULL},
        {"--runs", &o->runs, 1, 1000000, NULL},
        {"--seed", &seed, 0, UINT32_MAX, NULL},
    };
    int rc = rs_cli_parse_opts("lbbench", argc, argv, opts, sizeof opts / sizeof opts[0], usage);
    o->seed = seed;
    return rc;
}

/* ------------------------------------------------------- definitions */

typedef struct world_defs {
    uint64_t track_hash[TRACKS];
    int64_t track_id[TRACKS];
    uint64_t car_hash[CARS];
    int64_t car_id[CARS];
    uint64_t tune_hash[CARS][TUNES]; /* [c][0] = 0: stock */
} world_defs;

/* Stores the shipped tracks and cars through the store API. */
static int store_definitions(const char *path, world_defs *w, uint64_t *seed)
{
    static const char *const track_files[TRACKS] = {"tracks/technical.json", "tracks/oval.json"};
    static const char *const car_files[CARS] = {"cars/c5.json", "cars/formula.json"};
    char err[512], file[1024];
    rs_store *s = NULL;
    int rc = 1;
    if (rs_store_open(path, RS_STORE_CREATE, &s, err, sizeof err) != RS_OK) {
        fprintf(stderr, "lbbench: %s\n", err);
        return 1;
    }
    for (int t = 0; t < TRACKS; t++) {
        snprintf(file, sizeof file, "%s/%s", RS_DATA_DIR, track_files[t]);
        char *text = NULL;
        rs_track *track = NULL;
        if (rs_file_read(file, 0, &text, NULL, err, sizeof err) != RS_FILE_OK) {
            fprintf(stderr, "lbbench: %s\n", err);
            goto done;
        }
        rs_status st = rs_track_parse(text, strlen(text), file, &track, err, sizeof err);
        if (st == RS_OK) {
            w->track_hash[t] = rs_track_hash(track);
            st = rs_store_put_track(s, w->track_hash[t], rs_track_name(track), text,
                                    &w->track_id[t], err, sizeof err);
        }
        rs_track_destroy(track);
        free(text);
        if (st != RS_OK) {
            fprintf(stderr, "lbbench: %s\n", err);
            goto done;
        }
    }
    for (int c = 0; c < CARS; c++) {
        snprintf(file, sizeof file, "%s/%s", RS_DATA_DIR, car_files[c]);
        rs_car_params *car = NULL;
        rs_status st = rs_car_params_load(file, &car, err, sizeof err);
        if (st == RS_OK) {
            w->car_hash[c] = rs_car_params_hash(car);
            st = rs_store_put_car(s, car, 0, &w->car_id[c], err, sizeof err);
        }
        rs_car_params_destroy(car);
        if (st != RS_OK) {
            fprintf(stderr, "lbbench: %s\n", err);
            goto done;
        }
        w->tune_hash[c][0] = 0;
        for (int k = 1; k < TUNES; k++)
            w->tune_hash[c][k] = rng_next(seed) | 1; /* never 0, which means stock */
    }
    rc = 0;
done:
    rs_store_close(s);
    return rc;
}

/* ------------------------------------------------------ data generator */

typedef struct generator {
    sqlite3 *db;
    sqlite3_stmt *player, *lap, *pb;
} generator;

static int gen_fail(generator *g, const char *what)
{
    fprintf(stderr, "lbbench: generating data: %s: %s\n", what, sqlite3_errmsg(g->db));
    return 1;
}

static int gen_exec(generator *g, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(g->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "lbbench: %s: %s\n", sql, msg ? msg : "?");
        sqlite3_free(msg);
        return 1;
    }
    return 0;
}

static int gen_players(generator *g, const options *o, uint64_t *seed)
{
    for (uint32_t p = 0; p < o->players; p++) {
        char name[32];
        uint8_t salt[16], hash[32];
        snprintf(name, sizeof name, "driver%05u", (unsigned)(p + 1));
        /* Random bytes, not the hash of any token: benchmark players cannot
         * log in, which is what we want. */
        for (size_t i = 0; i < sizeof salt; i++)
            salt[i] = (uint8_t)rng_next(seed);
        for (size_t i = 0; i < sizeof hash; i++)
            hash[i] = (uint8_t)rng_next(seed);
        sqlite3_stmt *st = g->player;
        if (sqlite3_bind_int64(st, 1, (sqlite3_int64)p + 1) != SQLITE_OK ||
            sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT) != SQLITE_OK ||
            sqlite3_bind_blob(st, 3, salt, sizeof salt, SQLITE_TRANSIENT) != SQLITE_OK ||
            sqlite3_bind_blob(st, 4, hash, sizeof hash, SQLITE_TRANSIENT) != SQLITE_OK ||
            sqlite3_bind_int64(st, 5, 1780000000) != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE)
            return gen_fail(g, "player");
        sqlite3_reset(st);
    }
    return 0;
}

/* Reference lap times per board (track t, car c), microseconds. */
static const int64_t board_base_us[TRACKS][CARS] = {{104000000, 83500000}, {61500000, 49000000}};

static int gen_laps(generator *g, const options *o, const world_defs *w, uint64_t *seed,
                    best *any, best *tuned)
{
    const int64_t t0 = 1780000000; /* laps spread over 90 days from here */
    const double span_s = 90.0 * 86400.0;
    double *skill = malloc(o->players * sizeof *skill);
    if (!skill)
        return 1;
    for (uint32_t p = 0; p < o->players; p++) {
        double u = rng_unit(seed);
        skill[p] = 0.004 + 0.07 * u; /* 0.4 % .. 7.4 % off the reference time */
    }
    for (uint32_t i = 0; i < o->laps; i++) {
        int64_t lap_id = (int64_t)i + 1;
        /* Activity is skewed: low player numbers drive more. */
        double up = rng_unit(seed);
        uint32_t p = (uint32_t)((double)o->players * up * up);
        /* Most laps on the main board (first track, first car). */
        double ub = rng_unit(seed);
        int b = ub < 0.7 ? 0 : ub < 0.8 ? 1 : ub < 0.9 ? 2 : 3;
        int t = b / CARS, c = b % CARS;
        /* 40 % stock, the rest one of the shared set-ups. */
        int k = rng_unit(seed) < 0.4 ? 0 : 1 + (int)(rng_unit(seed) * (TUNES - 1));
        /* 2 % from the previous physics version, so filtering matters. */
        uint32_t pv = rng_unit(seed) < 0.02 ? RS_PHYSICS_VERSION - 1 : RS_PHYSICS_VERSION;
        double scatter = rng_normalish(seed);
        double frac = skill[p] + 0.004 * (scatter < 0 ? -scatter : scatter);
        if (rng_unit(seed) < 0.1)
            frac += 0.03 * rng_unit(seed); /* a mistake */
        frac -= 0.001 * (double)k;         /* set-ups are a little faster */
        int64_t time_us = (int64_t)((double)board_base_us[t][c] * (1.0 + frac));
        int valid = rng_unit(seed) >= 0.08;
        int reason = valid ? 0 : rng_unit(seed) < 0.8 ? RS_LAP_TRACK_LIMITS : RS_LAP_SECTOR_SKIPPED;
        int64_t s1 = (int64_t)((double)time_us * (0.298 + 0.004 * rng_unit(seed)));
        int64_t s2 = (int64_t)((double)time_us * (0.368 + 0.004 * rng_unit(seed)));
        int64_t s3 = time_us - s1 - s2;
        char sectors[96];
        if (reason == RS_LAP_SECTOR_SKIPPED)
            snprintf(sectors, sizeof sectors, "[%" PRId64 ",-1,%" PRId64 "]", s1, s2 + s3);
        else
            snprintf(sectors, sizeof sectors, "[%" PRId64 ",%" PRId64 ",%" PRId64 "]", s1, s2, s3);
        int64_t recorded = t0 + (int64_t)(span_s * (double)i / (double)o->laps);

        sqlite3_stmt *st = g->lap;
        int rc = SQLITE_OK;
        rc |= sqlite3_bind_int64(st, 1, lap_id);
        rc |= sqlite3_bind_int64(st, 2, (sqlite3_int64)p + 1);
        rc |= sqlite3_bind_int64(st, 3, w->track_id[t]);
        rc |= sqlite3_bind_int64(st, 4, w->car_id[c]);
        rc |= sqlite3_bind_int64(st, 5, (sqlite3_int64)w->car_hash[c]);
        rc |= sqlite3_bind_int64(st, 6, (sqlite3_int64)w->tune_hash[c][k]);
        rc |= sqlite3_bind_int64(st, 7, pv);
        rc |= sqlite3_bind_int64(st, 8, 1 + (int64_t)(i % 20));
        rc |= sqlite3_bind_int64(st, 9, time_us);
        rc |= sqlite3_bind_text(st, 10, sectors, -1, SQLITE_TRANSIENT);
        rc |= sqlite3_bind_int(st, 11, valid);
        rc |= sqlite3_bind_int(st, 12, reason);
        rc |= sqlite3_bind_int64(st, 13, (sqlite3_int64)rng_next(seed));
        rc |= sqlite3_bind_int64(st, 14, recorded);
        if (rc != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE) {
            free(skill);
            return gen_fail(g, "lap");
        }
        sqlite3_reset(st);

        /* The writer's rule: only valid laps, only when strictly faster. */
        if (valid && pv == RS_PHYSICS_VERSION) {
            best *a = &any[(size_t)b * o->players + p];
            if (a->time_us == 0 || time_us < a->time_us)
                *a = (best){time_us, lap_id};
            best *tb = &tuned[((size_t)b * o->players + p) * TUNES + (size_t)k];
            if (tb->time_us == 0 || time_us < tb->time_us)
                *tb = (best){time_us, lap_id};
        }
    }
    free(skill);
    return 0;
}

/* Personal bests of the older physics version are not generated: those laps
 * exist so the queries' physics filter has something to skip. */
static int gen_bests(generator *g, const options *o, const world_defs *w, const best *any,
                     const best *tuned)
{
    for (int b = 0; b < BOARDS; b++) {
        int t = b / CARS, c = b % CARS;
        for (uint32_t p = 0; p < o->players; p++) {
            /* k = -1: the "any tune" board; 0: stock; 1..: the set-ups. */
            for (int k = -1; k < TUNES; k++) {
                const best *e = k < 0 ? &any[(size_t)b * o->players + p]
                                      : &tuned[((size_t)b * o->players + p) * TUNES + (size_t)k];
                uint64_t tune_key =
                    k < 0 ? RS_TUNE_KEY_ANY : rs_store_tune_key(w->tune_hash[c][k]);
                if (e->time_us == 0)
                    continue;
                sqlite3_stmt *st = g->pb;
                int rc = SQLITE_OK;
                rc |= sqlite3_bind_int64(st, 1, w->track_id[t]);
                rc |= sqlite3_bind_int64(st, 2, (sqlite3_int64)w->car_hash[c]);
                rc |= sqlite3_bind_int64(st, 3, RS_PHYSICS_VERSION);
                rc |= sqlite3_bind_int64(st, 4, (sqlite3_int64)tune_key);
                rc |= sqlite3_bind_int64(st, 5, (sqlite3_int64)p + 1);
                rc |= sqlite3_bind_int64(st, 6, e->lap_id);
                rc |= sqlite3_bind_int64(st, 7, e->time_us);
                if (rc != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE)
                    return gen_fail(g, "personal best");
                sqlite3_reset(st);
            }
        }
    }
    return 0;
}

static int generate(const char *path, const options *o, const world_defs *w, uint64_t *seed)
{
    generator g = {0};
    best *any = calloc((size_t)BOARDS * o->players, sizeof *any);
    best *tuned = calloc((size_t)BOARDS * o->players * TUNES, sizeof *tuned);
    int rc = 1;
    if (!any || !tuned) {
        fprintf(stderr, "lbbench: out of memory\n");
        goto done;
    }
    if (sqlite3_open_v2(path, &g.db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        gen_fail(&g, "open");
        goto done;
    }
    /* A large page cache keeps the two lap indexes in memory while they grow. */
    if (gen_exec(&g, "PRAGMA cache_size = -262144") || gen_exec(&g, "PRAGMA foreign_keys = ON") ||
        gen_exec(&g, "BEGIN IMMEDIATE"))
        goto done;
    if (sqlite3_prepare_v2(g.db,
                           "INSERT INTO players (id, name, token_salt, token_hash, created_at)"
                           " VALUES (?1, ?2, ?3, ?4, ?5)",
                           -1, &g.player, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(g.db,
                           "INSERT INTO laps (id, player_id, track_id, car_id, base_hash,"
                           " tune_hash, physics_version, race_id, lap_number, time_us,"
                           " sectors_us, valid, invalid_reason, end_hash, recorded_at)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, ?8, ?9, ?10, ?11, ?12,"
                           " ?13, ?14)",
                           -1, &g.lap, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(g.db,
                           "INSERT INTO personal_bests (track_id, base_hash, physics_version,"
                           " tune_key, player_id, lap_id, time_us)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                           -1, &g.pb, NULL) != SQLITE_OK) {
        gen_fail(&g, "prepare");
        goto done;
    }
    if (gen_players(&g, o, seed) || gen_laps(&g, o, w, seed, any, tuned) ||
        gen_bests(&g, o, w, any, tuned) || gen_exec(&g, "COMMIT"))
        goto done;
    rc = 0;
done:
    sqlite3_finalize(g.player);
    sqlite3_finalize(g.lap);
    sqlite3_finalize(g.pb);
    if (g.db && rc != 0)
        sqlite3_exec(g.db, "ROLLBACK", NULL, NULL, NULL);
    if (g.db && sqlite3_close(g.db) != SQLITE_OK) {
        fprintf(stderr, "lbbench: close: %s\n", sqlite3_errmsg(g.db));
        rc = 1;
    }
    free(any);
    free(tuned);
    return rc;
}

/* ------------------------------------------------------------- queries */

typedef struct timings {
    double top10_ms, top10_p99_ms;
    double rank_ms, rank_p99_ms;
    double around_ms, around_p99_ms;
    double deep_page_ms;
    uint32_t board_players;
    uint32_t best_rank_seen, worst_rank_seen;
    /* The class board of both cars on the main track (rs_leaderboard_class_*). */
    double class_top10_ms, class_top10_p99_ms;
    double class_rank_ms, class_rank_p99_ms;
    double class_around_ms, class_count_ms;
    uint32_t class_players;
} timings;

/* The median of runs calls of one class query; v holds runs values. A
 * rank or around call draws players until one is on the board. */
enum class_query { CLASS_TOP10, CLASS_RANK, CLASS_AROUND5, CLASS_COUNT };

static rs_status class_call(rs_leaderboard *lb, const rs_class_key *key, enum class_query q,
                            int64_t player, char *err, size_t err_len)
{
    rs_lb_row rows[11];
    uint32_t n, idx;
    switch (q) {
    case CLASS_TOP10:
        return rs_leaderboard_class_top(lb, key, 0, 10, rows, &n, err, err_len);
    case CLASS_RANK:
        return rs_leaderboard_class_rank(lb, key, player, rows, err, err_len);
    case CLASS_AROUND5:
        return rs_leaderboard_class_around(lb, key, player, 5, rows, &n, &idx, err, err_len);
    case CLASS_COUNT:
        break;
    }
    return rs_leaderboard_class_count(lb, key, &n, err, err_len);
}

static int time_class(rs_leaderboard *lb, const rs_class_key *key, enum class_query q,
                      const options *o, uint64_t *seed, double *v, double *median, double *p99)
{
    char err[512];
    for (uint32_t i = 0; i < o->runs; i++) {
        rs_status st;
        double t;
        int tries = 0;
        do {
            int64_t player = 1 + (int64_t)(rng_next(seed) % o->players);
            t = now_ms();
            st = class_call(lb, key, q, player, err, sizeof err);
        } while (st == RS_ERR_MISSING && ++tries < 1000);
        if (st != RS_OK) {
            fprintf(stderr, "lbbench: class board: %s\n", err);
            return 1;
        }
        v[i] = now_ms() - t;
    }
    *median = rs_quantile(v, o->runs, 0.5);
    if (p99)
        *p99 = rs_quantile(v, o->runs, 0.99);
    return 0;
}

/* Times the class board of both cars on the main track, right after the
 * single car's queries on the same connection. */
static int time_class_queries(rs_leaderboard *lb, const options *o, const world_defs *w,
                              uint64_t *seed, double *v, timings *out)
{
    char err[512];
    rs_class_key key = {w->track_hash[0], RS_PHYSICS_VERSION, RS_TUNE_KEY_ANY, CARS, {0}};
    for (int c = 0; c < CARS; c++)
        key.base_hashes[c] = w->car_hash[c];
    if (rs_leaderboard_class_count(lb, &key, &out->class_players, err, sizeof err) != RS_OK) {
        fprintf(stderr, "lbbench: class board: %s\n", err);
        return 1;
    }
    for (int i = 0; i < 20; i++) /* warm-up: prepares the statements */
        if (class_call(lb, &key, CLASS_TOP10, 1, err, sizeof err) != RS_OK ||
            class_call(lb, &key, CLASS_RANK, 1, err, sizeof err) == RS_ERR_IO)
            return 1;
    return time_class(lb, &key, CLASS_TOP10, o, seed, v, &out->class_top10_ms,
                      &out->class_top10_p99_ms) ||
           time_class(lb, &key, CLASS_RANK, o, seed, v, &out->class_rank_ms,
                      &out->class_rank_p99_ms) ||
           time_class(lb, &key, CLASS_AROUND5, o, seed, v, &out->class_around_ms, NULL) ||
           time_class(lb, &key, CLASS_COUNT, o, seed, v, &out->class_count_ms, NULL);
}

static int time_queries(const char *path, const options *o, const world_defs *w, uint64_t *seed,
                        timings *out)
{
    char err[512];
    rs_store *s = NULL;
    rs_leaderboard *lb = NULL;
    double *v = malloc(o->runs * sizeof *v);
    int rc = 1;
    rs_board_key key = {w->track_hash[0], w->car_hash[0], RS_PHYSICS_VERSION, 0};
    rs_lb_row rows[11];
    uint32_t n = 0, idx;
    if (!v)
        goto done;
    if (rs_store_open(path, RS_STORE_READONLY, &s, err, sizeof err) != RS_OK ||
        rs_leaderboard_open(s, &lb, err, sizeof err) != RS_OK ||
        rs_leaderboard_count(lb, &key, &out->board_players, err, sizeof err) != RS_OK)
        goto fail;

    /* Warm-up: prepares the statements and pulls the index pages in. */
    for (int i = 0; i < 20; i++) {
        if (rs_leaderboard_top(lb, &key, 0, 10, rows, &n, err, sizeof err) != RS_OK)
            goto fail;
        rs_lb_row r;
        rs_status st = rs_leaderboard_rank(lb, &key, 1 + (int64_t)(rng_next(seed) % o->players),
                                           &r, err, sizeof err);
        if (st != RS_OK && st != RS_ERR_MISSING)
            goto fail;
    }

    for (uint32_t i = 0; i < o->runs; i++) {
        double t = now_ms();
        if (rs_leaderboard_top(lb, &key, 0, 10, rows, &n, err, sizeof err) != RS_OK)
            goto fail;
        v[i] = now_ms() - t;
    }
    out->top10_ms = rs_quantile(v, o->runs, 0.5);
    out->top10_p99_ms = rs_quantile(v, o->runs, 0.99);

    /* Random players that are on the board (a player without a lap there is
     * a cheaper, different query). */
    out->best_rank_seen = UINT32_MAX;
    out->worst_rank_seen = 0;
    for (uint32_t i = 0; i < o->runs; i++) {
        rs_lb_row r;
        rs_status st;
        double t;
        int64_t player;
        int tries = 0;
        do {
            player = 1 + (int64_t)(rng_next(seed) % o->players);
            t = now_ms();
            st = rs_leaderboard_rank(lb, &key, player, &r, err, sizeof err);
        } while (st == RS_ERR_MISSING && ++tries < 1000);
        if (st != RS_OK)
            goto fail;
        v[i] = now_ms() - t;
        if (r.rank < out->best_rank_seen)
            out->best_rank_seen = r.rank;
        if (r.rank > out->worst_rank_seen)
            out->worst_rank_seen = r.rank;
    }
    out->rank_ms = rs_quantile(v, o->runs, 0.5);
    out->rank_p99_ms = rs_quantile(v, o->runs, 0.99);

    for (uint32_t i = 0; i < o->runs; i++) {
        rs_status st;
        double t;
        int tries = 0;
        do {
            int64_t player = 1 + (int64_t)(rng_next(seed) % o->players);
            t = now_ms();
            st = rs_leaderboard_around(lb, &key, player, 5, rows, &n, &idx, err, sizeof err);
        } while (st == RS_ERR_MISSING && ++tries < 1000);
        if (st != RS_OK)
            goto fail;
        v[i] = now_ms() - t;
    }
    out->around_ms = rs_quantile(v, o->runs, 0.5);
    out->around_p99_ms = rs_quantile(v, o->runs, 0.99);

    /* A page half way down by offset, the slow way to page (keyset paging
     * with rs_leaderboard_after costs what a rank query costs). */
    for (uint32_t i = 0; i < o->runs; i++) {
        double t = now_ms();
        if (rs_leaderboard_top(lb, &key, out->board_players / 2, 10, rows, &n, err, sizeof err) !=
            RS_OK)
            goto fail;
        v[i] = now_ms() - t;
    }
    out->deep_page_ms = rs_quantile(v, o->runs, 0.5);
    rc = time_class_queries(lb, o, w, seed, v, out);
    goto done;
fail:
    fprintf(stderr, "lbbench: %s\n", err);
done:
    rs_leaderboard_close(lb);
    rs_store_close(s);
    free(v);
    return rc;
}

/* ---------------------------------------------------------------- main */

static void remove_db(const char *path)
{
    char side[4300];
    remove(path);
    snprintf(side, sizeof side, "%s-wal", path);
    remove(side);
    snprintf(side, sizeof side, "%s-shm", path);
    remove(side);
}

int main(int argc, char **argv)
{
    options o;
    int r = parse_options(argc, argv, &o);
    if (r >= 0)
        return r;

    char dir[4096] = "", path[4200];
    if (o.db) {
        if (access(o.db, F_OK) == 0) {
            fprintf(stderr, "lbbench: %s already exists; lbbench only creates fresh databases\n",
                    o.db);
            return 1;
        }
        snprintf(path, sizeof path, "%s", o.db);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/lbbench.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            fprintf(stderr, "lbbench: mkdtemp %s: %s\n", dir, strerror(errno));
            return 1;
        }
        snprintf(path, sizeof path, "%s/lb.db", dir);
    }

    uint64_t seed = o.seed;
    world_defs w;
    memset(&w, 0, sizeof w);
    timings tm;
    memset(&tm, 0, sizeof tm);
    int rc = 1;
    double t0 = now_ms();
    if (store_definitions(path, &w, &seed) || generate(path, &o, &w, &seed))
        goto done;
    double gen_s = (now_ms() - t0) / 1e3;
    if (time_queries(path, &o, &w, &seed, &tm))
        goto done;
    printf("{\"laps\":%u,\"players\":%u,\"board_players\":%u,\"runs\":%u,"
           "\"top10_ms\":%.4f,\"top10_p99_ms\":%.4f,\"rank_ms\":%.4f,\"rank_p99_ms\":%.4f,"
           "\"around5_ms\":%.4f,\"around5_p99_ms\":%.4f,\"middle_page_offset_ms\":%.4f,"
           "\"ranks_seen\":[%u,%u],\"class_cars\":%d,\"class_players\":%u,"
           "\"class_top10_ms\":%.4f,\"class_top10_p99_ms\":%.4f,\"class_rank_ms\":%.4f,"
           "\"class_rank_p99_ms\":%.4f,\"class_around5_ms\":%.4f,\"class_count_ms\":%.4f,"
           "\"generate_s\":%.2f,\"sqlite\":\"%s\"}\n",
           (unsigned)o.laps, (unsigned)o.players, (unsigned)tm.board_players, (unsigned)o.runs,
           tm.top10_ms, tm.top10_p99_ms, tm.rank_ms, tm.rank_p99_ms, tm.around_ms,
           tm.around_p99_ms, tm.deep_page_ms, (unsigned)tm.best_rank_seen,
           (unsigned)tm.worst_rank_seen, CARS, (unsigned)tm.class_players, tm.class_top10_ms,
           tm.class_top10_p99_ms, tm.class_rank_ms, tm.class_rank_p99_ms, tm.class_around_ms,
           tm.class_count_ms, gen_s, sqlite3_libversion());
    rc = 0;
done:
    if (!o.db) {
        remove_db(path);
        rmdir(dir);
    }
    return rc;
}
