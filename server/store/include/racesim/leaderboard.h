/*
 * Leaderboards: read-only queries over the store's personal bests and laps.
 *
 * A board is a track, a stock car, a physics version and a tune key
 * (RS_TUNE_KEY_ANY = 0 for "any tune", RS_TUNE_KEY_STOCK for the stock car
 * only, else a tune's content hash: rs_store_tune_key); it holds one row per player,
 * that player's best valid lap (the store's writer keeps the
 * personal_bests table up to date in the same transaction as each lap).
 * Boards are ordered by (time_us, lap_id): equal times rank the earlier lap
 * first. A player's rank is 1 + the number of rows on the board ordered
 * strictly before theirs, so ranks are unique and gapless.
 *
 * An rs_leaderboard queries one rs_store's connection, through that store's
 * statement cache (each query is prepared on first use and reused until
 * rs_store_close); like that rs_store, it is used by one thread at a time,
 * and it must be closed before the store. Queries
 * on their own thread get their own rs_store (RS_STORE_READONLY is enough,
 * and WAL lets it read while the writer writes). docs/PERSISTENCE.md
 * ("Leaderboards") shows the SQL and the index each query uses.
 */
#ifndef RACESIM_LEADERBOARD_H
#define RACESIM_LEADERBOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"
#include "racesim/store.h"

typedef struct rs_leaderboard rs_leaderboard;

/* Identifies one board. Hashes are the 64-bit definition hashes
 * (rs_track_hash, the stock car's rs_car_params_hash, the tune's content
 * hash). */
typedef struct rs_board_key {
    uint64_t track_hash;
    uint64_t base_hash;       /* the stock car definition */
    uint32_t physics_version; /* usually RS_PHYSICS_VERSION */
    uint64_t tune_key;        /* RS_TUNE_KEY_ANY (0), RS_TUNE_KEY_STOCK or a tune's hash */
} rs_board_key;

/* Lengths, with the terminating NUL, of the names in a row. Longer names
 * (tracks and cars can have them) are cut at a UTF-8 character boundary. */
#define RS_LB_NAME_MAX 65

/* One lap as a leaderboard shows it. Which fields are filled depends on the
 * query; each function says so. */
typedef struct rs_lb_row {
    uint32_t rank;             /* 1-based board rank; 0 where it has no meaning (recent laps) */
    int64_t player_id;
    char player_name[RS_LB_NAME_MAX];
    int64_t lap_id;
    int64_t time_us;           /* lap time, microseconds */
    int64_t recorded_at;       /* unix seconds, UTC */
    uint64_t tune_hash;        /* the tune the lap was driven with; 0 = stock */
    uint32_t sector_count;
    int64_t sectors_us[RS_MAX_SECTORS]; /* -1 = skipped */
    /* The lap's board and its lap record (filled by personal bests and
     * recent laps; the board queries fill them from the key). */
    uint64_t track_hash;
    char track_name[RS_LB_NAME_MAX];
    uint64_t base_hash;
    char car_name[RS_LB_NAME_MAX];  /* the stock car's name; "" if unknown */
    uint32_t physics_version;
    uint64_t tune_key;         /* personal bests: the board's tune key */
    bool valid;                /* recent laps can be invalid; board rows never are */
    int32_t invalid_reason;    /* rs_lap_invalid */
    int64_t race_id;           /* 0 when the lap was not part of a race */
    uint32_t lap_number;
    /* Filled by rs_leaderboard_lap only (0 elsewhere). */
    uint64_t params_hash;      /* the car block driven (tuned or stock) */
    uint64_t end_hash;         /* the car's state hash at the end of the lap */
} rs_lb_row;

/* Creates the query object over the store's one connection; its statements
 * live in the store's statement cache. Prepares nothing yet. On error
 * returns a status and writes a message to err. Caller frees with
 * rs_leaderboard_close (before rs_store_close). */
rs_status rs_leaderboard_open(rs_store *store, rs_leaderboard **out, char *err, size_t err_len);

/* Frees the object; its prepared queries stay cached with the store, for
 * the next leaderboard on it. Accepts NULL. */
void rs_leaderboard_close(rs_leaderboard *lb);

/* Looks a player up by name (case-insensitive, as the store keeps names).
 * Writes the id and the stored spelling (name_out may be NULL; it must hold
 * RS_LB_NAME_MAX bytes). Returns RS_ERR_MISSING when no such player exists;
 * other errors are database errors, described in err. */
rs_status rs_leaderboard_find_player(rs_leaderboard *lb, const char *name, int64_t *player_id,
                                     char *name_out, char *err, size_t err_len);

/* Number of players on the board (0 for an unknown track or an empty board).
 * Counts the board's index entries: cost grows with the board's size. */
rs_status rs_leaderboard_count(rs_leaderboard *lb, const rs_board_key *key, uint32_t *count,
                               char *err, size_t err_len);

/* One page of the board, best first: rows offset+1 .. offset+limit (fewer at
 * the end; none for an unknown track). Fills every field (valid is always
 * true on a board). *count gets the number of rows written (at most limit).
 * Cost grows with offset; deep pages are better read with
 * rs_leaderboard_after. */
rs_status rs_leaderboard_top(rs_leaderboard *lb, const rs_board_key *key, uint32_t offset,
                             uint32_t limit, rs_lb_row *rows, uint32_t *count, char *err,
                             size_t err_len);

/* Keyset pagination: the limit rows that follow the row (after_time_us,
 * after_lap_id) — pass the last row of the previous page. Ranks are filled
 * (one rank query for the first row). Same fields as rs_leaderboard_top. */
rs_status rs_leaderboard_after(rs_leaderboard *lb, const rs_board_key *key, int64_t after_time_us,
                               int64_t after_lap_id, uint32_t limit, rs_lb_row *rows,
                               uint32_t *count, char *err, size_t err_len);

/* The player's row on the board with its rank. Returns RS_ERR_MISSING when
 * the player has no valid lap on that board. */
rs_status rs_leaderboard_rank(rs_leaderboard *lb, const rs_board_key *key, int64_t player_id,
                              rs_lb_row *row, char *err, size_t err_len);

/* The player's row and up to k rows on either side, best first, with ranks:
 * at most 2k+1 rows, so rows must hold 2k+1. *player_index gets the player's
 * position in rows. RS_ERR_MISSING as rs_leaderboard_rank. */
rs_status rs_leaderboard_around(rs_leaderboard *lb, const rs_board_key *key, int64_t player_id,
                                uint32_t k, rs_lb_row *rows, uint32_t *count,
                                uint32_t *player_index, char *err, size_t err_len);

/* ---------------------------------------------------------- class boards
 * A class is the set of cars a room races against each other (balanced by
 * their ballast and restrictors), so leagues rank its drivers on one board:
 * a class board holds, per player, the best lap over any of its cars, each
 * row naming the car it was driven in (base_hash, car_name). It is ordered
 * and ranked like a car's board, by (time_us, lap_id) across the cars (lap
 * ids grow with time: equal times rank the lap set first), so ranks are
 * unique and gapless and a player is on it once however many of its cars
 * they drove. The store keeps no classes: the caller names the cars (a
 * room's configuration does). docs/PERSISTENCE.md, "Class boards". */

/* The most cars in one class: a room offers at most that many. */
#define RS_LB_CLASS_MAX_CARS 8

/* Identifies one class board: a car's board key with several stock cars.
 * tune_key is RS_TUNE_KEY_ANY (every lap, handicapped and tuned cars
 * included) or RS_TUNE_KEY_STOCK (untuned, unhandicapped cars only); a
 * tune's hash belongs to one car, so its board is that car's board and a
 * class key refuses it (RS_ERR_ARG). A car named twice counts once. */
typedef struct rs_class_key {
    uint64_t track_hash;
    uint32_t physics_version;
    uint64_t tune_key;
    uint32_t car_count; /* 1..RS_LB_CLASS_MAX_CARS */
    uint64_t base_hashes[RS_LB_CLASS_MAX_CARS];
} rs_class_key;

/* The class board's counterparts of rs_leaderboard_count, _top, _after,
 * _rank and _around: the same arguments, answers and errors, with rows of
 * several cars. Rows fill every field; tune_key is the key's. A player's
 * row on the class board is their best row over the cars.
 *
 * Cost: each row the query walks is checked against the player's rows on
 * the other cars (one primary-key lookup per car), so a top page reads
 * about offset + limit rows per car and a rank or a count is linear in the
 * rows before it, a few times a car's board (docs/PERFORMANCE.md). */
rs_status rs_leaderboard_class_count(rs_leaderboard *lb, const rs_class_key *key,
                                     uint32_t *count, char *err, size_t err_len);
rs_status rs_leaderboard_class_top(rs_leaderboard *lb, const rs_class_key *key, uint32_t offset,
                                   uint32_t limit, rs_lb_row *rows, uint32_t *count, char *err,
                                   size_t err_len);
rs_status rs_leaderboard_class_after(rs_leaderboard *lb, const rs_class_key *key,
                                     int64_t after_time_us, int64_t after_lap_id, uint32_t limit,
                                     rs_lb_row *rows, uint32_t *count, char *err,
                                     size_t err_len);
rs_status rs_leaderboard_class_rank(rs_leaderboard *lb, const rs_class_key *key,
                                    int64_t player_id, rs_lb_row *row, char *err,
                                    size_t err_len);
rs_status rs_leaderboard_class_around(rs_leaderboard *lb, const rs_class_key *key,
                                      int64_t player_id, uint32_t k, rs_lb_row *rows,
                                      uint32_t *count, uint32_t *player_index, char *err,
                                      size_t err_len);

/* The player's personal bests on every board of one physics version, ordered
 * by track name, car name and tune key ("any tune" first, then stock), each
 * with its rank on that board. Writes at most cap rows; *count gets the
 * number written, *total the number that exist (total > count: more rows
 * than cap). Reads every personal best of the physics version (the schema
 * has no index by player). */
rs_status rs_leaderboard_personal_bests(rs_leaderboard *lb, int64_t player_id,
                                        uint32_t physics_version, rs_lb_row *rows, uint32_t cap,
                                        uint32_t *count, uint32_t *total, char *err,
                                        size_t err_len);

/* The newest laps of one board (valid or not), newest first: every lap of
 * the track, car and physics version for RS_TUNE_KEY_ANY, only stock laps
 * for RS_TUNE_KEY_STOCK, only that tune's laps otherwise. rank is 0. */
rs_status rs_leaderboard_recent(rs_leaderboard *lb, const rs_board_key *key, uint32_t limit,
                                rs_lb_row *rows, uint32_t *count, char *err, size_t err_len);

/* The player's newest laps (valid or not) of one physics version, on any
 * track and car, newest first. rank is 0. */
rs_status rs_leaderboard_player_recent(rs_leaderboard *lb, int64_t player_id,
                                       uint32_t physics_version, uint32_t limit, rs_lb_row *rows,
                                       uint32_t *count, char *err, size_t err_len);

/* ------------------------------------------------------ operator queries
 * For racectl and tools: finding definitions by name, races and results,
 * and everything needed to re-simulate one lap. */

/* Finds a stored track by name (case-insensitive) or by hash (16 hex
 * digits, optionally with 0x). Writes its hash and name (RS_LB_NAME_MAX
 * bytes; may be NULL). RS_ERR_MISSING when none matches, RS_ERR_RANGE when
 * several tracks have that name (use the hash). */
rs_status rs_leaderboard_find_track(rs_leaderboard *lb, const char *name_or_hash,
                                    uint64_t *track_hash, char *name_out, char *err,
                                    size_t err_len);

/* The same for stock cars (the boards' cars); writes the stock hash. A
 * tuned car's hash is accepted and gives its stock car. */
rs_status rs_leaderboard_find_car(rs_leaderboard *lb, const char *name_or_hash,
                                  uint64_t *base_hash, char *name_out, char *err,
                                  size_t err_len);

/* One stored track, or one stock car: its hash and name. */
typedef struct rs_lb_definition {
    uint64_t hash;
    char name[RS_LB_NAME_MAX];
} rs_lb_definition;

/* The stored tracks / stock cars by name (any case, then hash), at most
 * limit of them into defs: what an operator can name (racectl says so when
 * a name matches none). *count is how many were written. */
rs_status rs_leaderboard_tracks(rs_leaderboard *lb, uint32_t limit, rs_lb_definition *defs,
                                uint32_t *count, char *err, size_t err_len);
rs_status rs_leaderboard_cars(rs_leaderboard *lb, uint32_t limit, rs_lb_definition *defs,
                              uint32_t *count, char *err, size_t err_len);

typedef struct rs_lb_race {
    int64_t id;
    uint64_t track_hash;
    char track_name[RS_LB_NAME_MAX];
    uint32_t laps;             /* race length; 0 = open practice */
    uint32_t physics_version;
    bool forced_tune;
    uint64_t forced_tune_hash;
    int64_t started_at;        /* unix seconds */
    int64_t finished_at;       /* when it ended; 0 while running and when interrupted */
    uint32_t entries;          /* result rows */
    rs_store_race_status status; /* running, finished, stopped, interrupted, abandoned */
    rs_store_session_type session_type; /* the session of the room's weekend (0007) */
    uint32_t session_index, weekend;
    char room[RS_LB_NAME_MAX]; /* "" = not known (races before 0007) */
} rs_lb_race;

typedef struct rs_lb_result {
    uint32_t position;         /* 1 = winner */
    int64_t player_id;
    char player_name[RS_LB_NAME_MAX];
    uint64_t params_hash;      /* the car block raced */
    char car_name[RS_LB_NAME_MAX];
    bool finished;
    int64_t finish_us;         /* -1 = did not finish */
    uint32_t laps_completed;
    int64_t best_lap_us;       /* -1 = no complete lap */
    uint32_t barrier_hits;
    uint32_t car_hits;
    /* the room's classification (0007) */
    rs_store_result_status status; /* CLASSIFIED, NOT_CLASSIFIED or DISQUALIFIED */
    char class_name[RS_LB_NAME_MAX]; /* "" = none */
    uint32_t class_position;
    uint32_t penalty_ms, laps_led;
    uint32_t car_number;       /* 0 = none */
    bool fastest_lap;
} rs_lb_result;

/* The newest races first (by start time, then id), at most limit. */
rs_status rs_leaderboard_races(rs_leaderboard *lb, uint32_t limit, rs_lb_race *races,
                               uint32_t *count, char *err, size_t err_len);

/* The same, only the sessions of one type (rs_store_session_type; -1 =
 * every type). */
rs_status rs_leaderboard_races_of_type(rs_leaderboard *lb, int type, uint32_t limit,
                                       rs_lb_race *races, uint32_t *count, char *err,
                                       size_t err_len);

/* One race and its results by position. Writes up to cap results; *total
 * gets how many exist. RS_ERR_MISSING for an unknown race. */
rs_status rs_leaderboard_results(rs_leaderboard *lb, int64_t race_id, rs_lb_race *race,
                                 rs_lb_result *results, uint32_t cap, uint32_t *count,
                                 uint32_t *total, char *err, size_t err_len);

/* One penalty of a race (migration 0008) and the result row it belongs to. */
typedef struct rs_lb_penalty {
    int64_t player_id;         /* its result's player (rs_lb_result.player_id) */
    rs_store_penalty penalty;  /* as stored: kind, offence, seconds, when, why, removal */
} rs_lb_penalty;

/* A race's penalties in id order (the order they were given), warnings and
 * removed ones included. Writes up to cap; *total gets how many exist. A
 * race stored before migration 0008, or unknown, has none: RS_OK with 0
 * (rs_leaderboard_results tells an unknown race). */
rs_status rs_leaderboard_penalties(rs_leaderboard *lb, int64_t race_id, rs_lb_penalty *out,
                                   uint32_t cap, uint32_t *count, uint32_t *total, char *err,
                                   size_t err_len);

/* One lap record with every field (rank 0). RS_ERR_MISSING when absent. */
rs_status rs_leaderboard_lap(rs_leaderboard *lb, int64_t lap_id, rs_lb_row *row, char *err,
                             size_t err_len);

/* A stored car parameter block by hash. *block is malloc'ed: caller frees
 * with free(). RS_ERR_MISSING when absent. */
rs_status rs_leaderboard_car_block(rs_leaderboard *lb, uint64_t params_hash, uint8_t **block,
                                   size_t *len, char *err, size_t err_len);

/* A stored track's JSON text by hash, NUL-terminated. *json is malloc'ed:
 * caller frees with free(). RS_ERR_MISSING when absent. */
rs_status rs_leaderboard_track_definition(rs_leaderboard *lb, uint64_t track_hash, char **json,
                                          size_t *len, char *err, size_t err_len);

#endif
