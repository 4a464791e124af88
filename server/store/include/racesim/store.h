/*
 * racesim store: the server's SQLite persistence.
 *
 * One database file holds players, car and track definitions, tunes, races
 * and their results, laps with their proofs (the compressed input log that
 * lets a lap be re-simulated) and the personal bests behind the leaderboards.
 * The schema is built only from the numbered files in migrations/, embedded
 * in the binary at build time (docs/PERSISTENCE.md).
 *
 * Two ways to write:
 *  - an rs_store handle: synchronous calls on the caller's own connection,
 *    for set-up (players, cars, tracks, races, tunes), tools and tests;
 *  - an rs_store_writer: a queue drained by one database thread with its own
 *    connection, for the race tick loop, which must never wait on disk. A
 *    record counts as recorded only once the writer reports it through
 *    rs_store_writer_poll, which happens after its transaction committed.
 *
 * Thread rules: an rs_store handle is used by one thread at a time. A writer's
 * put and poll functions may be called from any thread.
 *
 * Database ids are SQLite rowids (int64_t, 0 = none). 64-bit hashes are kept
 * as uint64_t here and stored as their two's-complement bits.
 *
 * Every function that can fail returns an rs_status; those with an err
 * buffer also write a message there naming the database file and the
 * reason. Statuses used: RS_ERR_IO (the file cannot be opened, read or
 * written, or is read-only), RS_ERR_FORMAT (not a racesim database, or
 * corrupt), RS_ERR_MISMATCH (the schema disagrees with this build: an
 * applied migration changed, or the database is from a newer build; a token
 * that does not match), RS_ERR_RANGE (a value outside its legal range, a
 * name already taken), RS_ERR_MISSING (no such row), RS_ERR_ARG (NULL or
 * malformed arguments), RS_ERR_NOMEM, RS_ERR_FULL (writer queue full),
 * RS_ERR_BUFFER (caller's buffer too small).
 *
 * Identity (two-phase registration, tokens, admins, bans, the audit log) is
 * declared in racesim/identity.h, also part of rs_store.
 */
#ifndef RACESIM_STORE_H
#define RACESIM_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <racesim/physics.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ open */

typedef struct rs_store rs_store;

enum {
    /* Open an existing database read-only: no migration, no write. The schema
     * must be exactly this build's latest (RS_ERR_MISMATCH otherwise). */
    RS_STORE_READONLY = 1u << 0,
    /* Create the file when it does not exist, and apply any migrations not
     * yet applied. Without it (and without READONLY) the file must exist; it
     * is still upgraded to the latest schema. */
    RS_STORE_CREATE = 1u << 1,
    /* Also run PRAGMA quick_check at open (reads the whole file: seconds on
     * a large database) and refuse a database that fails it. Without it,
     * damage to the header, the schema or the file size is still caught at
     * open; damage inside a table is reported when it is read. */
    RS_STORE_CHECK = 1u << 2,
    /* Read-write, but refuse (RS_ERR_MISMATCH) a schema older than this
     * build's instead of upgrading it: for a tool that writes beside a
     * running server (racectl), which must not change the schema under it. */
    RS_STORE_NO_UPGRADE = 1u << 3
};

/* Opens (and with RS_STORE_CREATE creates and migrates) the database at path.
 * Read-write connections use WAL journaling, synchronous=FULL (a commit is
 * on disk when it returns, power loss included: docs/PERSISTENCE.md,
 * "Durability"), foreign keys on and a 5 s busy timeout. On error returns a
 * status, writes a message naming path and the reason into err and leaves
 * *out NULL; the file is never modified when it is refused (no silent
 * reset). Caller frees with rs_store_close. */
rs_status rs_store_open(const char *path, unsigned flags, rs_store **out, char *err,
                        size_t err_len);

/* Finalises every statement and closes the connection. Accepts NULL. */
void rs_store_close(rs_store *s);

/* The path it was opened with; borrowed until rs_store_close. */
const char *rs_store_path(const rs_store *s);

/* The number of the newest migration embedded in this build. Never fails. */
uint32_t rs_store_schema_latest(void);

/* The schema version the open database is at. Never fails. */
uint32_t rs_store_schema_version(const rs_store *s);

/* Runs PRAGMA integrity_check (full = true) or quick_check and reports the
 * first problem in err. RS_OK when the answer is "ok", RS_ERR_FORMAT when
 * corrupt, RS_ERR_IO when it could not be read. */
rs_status rs_store_check(rs_store *s, bool full, char *err, size_t err_len);

/* --------------------------------------------------------------- players */

#define RS_PLAYER_NAME_MAX 32 /* bytes (UTF-8), at least 1 */
#define RS_TOKEN_BYTES 32     /* random bytes in a player's secret token */
#define RS_TOKEN_HEX_LEN (2 * RS_TOKEN_BYTES)

/* Registers a player and issues a fresh random secret token, written as
 * lower-case hex (RS_TOKEN_HEX_LEN characters + NUL) into token_hex: shown
 * once; the database keeps only a salted SHA-256 of it. A name must pass
 * rs_proto_name_check (the wire's rules, racesim/protocol.h) and is unique
 * ignoring ASCII case: RS_ERR_RANGE when taken or not acceptable, with the
 * rule in err.
 * Registration is two-phase (racesim/identity.h): the row is made
 * unconfirmed and cannot log in until rs_store_player_confirm, once the
 * client confirmed it received the token; a registration never confirmed is
 * undone with rs_store_player_forget_unconfirmed. A guest row ("~" + a
 * guest's name, racesim/services.h) is confirmed at once: nobody is ever
 * given its token. */
rs_status rs_store_player_register(rs_store *s, const char *name, int64_t now_s,
                                   int64_t *player_id, char token_hex[RS_TOKEN_HEX_LEN + 1],
                                   char *err, size_t err_len);

/* Checks a player's token (hex, either case) in constant time with respect to
 * the token. RS_OK and *player_id set when it matches; RS_ERR_MISMATCH when
 * the player does not exist, has not confirmed their registration, or the
 * token is wrong (the same answer, and the same work, for all three, so
 * names cannot be probed). While a token rotation is pending
 * (rs_store_token_rotate_begin) the pending token matches too, and logging
 * in with it commits the rotation: the old token stops working. */
rs_status rs_store_player_auth(rs_store *s, const char *name, const char *token_hex,
                               int64_t *player_id, char *err, size_t err_len);

/* Looks a player up by name (any case). RS_ERR_MISSING when unknown. */
rs_status rs_store_player_find(rs_store *s, const char *name, int64_t *player_id, char *err,
                               size_t err_len);

/* ------------------------------------------------------- cars and tracks */

/* Stores a car parameter block (stock or tuned) unless one with the same
 * hash is there; either way writes its id. base_hash is the stock
 * definition it was tuned from; 0 means the car is stock (its own hash).
 * Copied; nothing is kept. */
rs_status rs_store_put_car(rs_store *s, const rs_car_params *params, uint64_t base_hash,
                           int64_t *car_id, char *err, size_t err_len);

/* Stores a track (its hash, display name and the JSON text it was loaded
 * from) unless one with the same hash is there; writes its id. */
rs_status rs_store_put_track(rs_store *s, uint64_t track_hash, const char *name,
                             const char *definition_json, int64_t *track_id, char *err,
                             size_t err_len);

/* Ids of stored cars and tracks by hash. RS_ERR_MISSING when absent. */
rs_status rs_store_car_id(rs_store *s, uint64_t params_hash, int64_t *car_id, char *err,
                          size_t err_len);
rs_status rs_store_track_id(rs_store *s, uint64_t track_hash, int64_t *track_id, char *err,
                            size_t err_len);

/* ----------------------------------------------------------------- races */

/* The kind of session a races row is (races.session_type, migration 0007).
 * RACE is 0 so that a zeroed rs_store_race is a race, as before weekends. */
typedef enum rs_store_session_type {
    RS_STORE_SESSION_RACE = 0,
    RS_STORE_SESSION_PRACTICE = 1,
    RS_STORE_SESSION_QUALIFYING = 2,
    RS_STORE_SESSION_WARMUP = 3,
    RS_STORE_SESSION_TYPE_COUNT
} rs_store_session_type;

/* "race", "practice", "qualifying", "warmup"; "?" outside the enum. */
const char *rs_store_session_type_name(rs_store_session_type type);
/* The type a name spells (as rs_store_session_type_name), or -1. */
int rs_store_session_type_parse(const char *name);

typedef struct rs_store_race {
    uint64_t track_hash;       /* the track must be stored already */
    uint32_t laps;             /* race length; 0 = open practice */
    uint32_t physics_version;  /* usually RS_PHYSICS_VERSION */
    bool forced_tune;          /* true: every car runs forced_tune_hash */
    uint64_t forced_tune_hash;
    int64_t started_at;        /* unix seconds */
    /* the session of a room's weekend it is (migration 0007); zeroed: a race,
       session 0 of weekend 0 of no named room */
    rs_store_session_type session_type;
    uint32_t session_index;    /* 0..15 */
    uint32_t weekend;          /* the room's weekend number, 0 = not known */
    char room[33];             /* the room's name, "" = not known (stored NULL) */
} rs_store_race;

/* Creates a race (at set-up, before any lap of it is written). */
rs_status rs_store_race_create(rs_store *s, const rs_store_race *race, int64_t *race_id,
                               char *err, size_t err_len);

/* A result row's place in the classification (race_results.status). */
typedef enum rs_store_result_status {
    RS_STORE_RESULT_BY_FINISH = 0,     /* classified iff finished (callers that do not
                                          classify, such as the race log) */
    RS_STORE_RESULT_CLASSIFIED = 1,
    RS_STORE_RESULT_NOT_CLASSIFIED = 2,
    RS_STORE_RESULT_DISQUALIFIED = 3
} rs_store_result_status;

/* "classified", "not_classified", "disqualified" ("classified" or
 * "not_classified" for BY_FINISH as finished says); "?" outside the enum. */
const char *rs_store_result_status_name(rs_store_result_status status, bool finished);

/* A penalty's kind (race_penalties.kind, migration 0008), as the room's
 * RS_PENALTY_*. */
typedef enum rs_store_penalty_kind {
    RS_STORE_PENALTY_TIME = 0,     /* seconds added to the car's race time */
    RS_STORE_PENALTY_DSQ = 1,      /* disqualified from the session */
    RS_STORE_PENALTY_WARNING = 2,  /* a strike the players saw; counts for nothing */
    RS_STORE_PENALTY_KIND_COUNT
} rs_store_penalty_kind;

/* What a penalty was for (race_penalties.offence), as the room's RS_OFFENCE_*. */
typedef enum rs_store_offence {
    RS_STORE_OFFENCE_TRACK_LIMITS = 0,
    RS_STORE_OFFENCE_CONTACT = 1,
    RS_STORE_OFFENCE_JUMP_START = 2,
    RS_STORE_OFFENCE_ADMIN = 3,    /* an administrator's decision; the others are race
                                      control's */
    RS_STORE_OFFENCE_COUNT
} rs_store_offence;

/* "time", "dsq", "warning" / "track_limits", "contact", "jump_start",
 * "admin": the words the database stores; "?" outside the enum. */
const char *rs_store_penalty_kind_name(rs_store_penalty_kind kind);
const char *rs_store_offence_name(rs_store_offence offence);

/* The longest reason the store keeps (the protocol's text limit). */
#define RS_STORE_PENALTY_TEXT_MAX 200

/* One penalty of a result: given in the session, and perhaps taken back. */
typedef struct rs_store_penalty {
    uint32_t id;               /* 1.., its id in the session (unique in the race) */
    rs_store_penalty_kind kind;
    rs_store_offence offence;
    uint32_t seconds;          /* TIME: 1..3600; else 0 */
    uint64_t tick;             /* the world's tick when it was given */
    int64_t race_time_us;      /* the race clock then (negative in a countdown) */
    char reason[RS_STORE_PENALTY_TEXT_MAX + 1];
    bool removed;              /* taken back by an administrator */
    uint64_t removed_tick;     /* removed: when and why; else ignored */
    int64_t removed_race_time_us;
    char removed_reason[RS_STORE_PENALTY_TEXT_MAX + 1];
} rs_store_penalty;

/* One car's result in a race. */
typedef struct rs_store_result {
    int64_t caller_id;        /* writer: echoed in the ack */
    int64_t race_id;
    int64_t player_id;
    uint64_t params_hash;     /* the car block it raced (stored already) */
    uint32_t position;        /* 1 = winner */
    bool finished;
    int64_t finish_us;        /* race time at the flag; -1 = did not finish */
    uint32_t laps_completed;
    int64_t best_lap_us;      /* -1 = no complete lap */
    uint32_t barrier_hits;
    uint32_t car_hits;
    /* the room's classification (migration 0007); zeroed: classified iff
       finished, class position = position, no class, nothing else */
    rs_store_result_status status;
    uint32_t class_position;  /* 0 = position */
    char class_name[33];      /* "" = none */
    uint32_t penalty_ms;      /* time penalties counted in the position */
    uint32_t laps_led;
    uint16_t car_number;      /* 0 = none (stored NULL) */
    bool fastest_lap;         /* the holder of the session's fastest valid lap */
    /* its penalties in id order (migration 0008); NULL with 0: none. The
       writer copies them at put */
    const rs_store_penalty *penalties;
    uint32_t penalty_count;
} rs_store_result;

/* Writes (or replaces) one result row and its penalties (replacing the ones
 * it had) in one transaction. RS_ERR_RANGE for a penalty whose kind,
 * offence, seconds (1..3600 exactly for TIME) or id is out of range, or a
 * removed warning; nothing is written then. */
rs_status rs_store_put_result(rs_store *s, const rs_store_result *r, char *err, size_t err_len);

/* How a race ended: races.status (migration 0004). A race is created
 * running and gets one of the other values when it ends, so no race stays
 * running once its server is gone. */
typedef enum rs_store_race_status {
    RS_STORE_RACE_RUNNING = 0,     /* being raced now */
    RS_STORE_RACE_FINISHED = 1,    /* decided: every car's result stored */
    RS_STORE_RACE_STOPPED = 2,     /* the server was stopped (SIGTERM/SIGINT) during it: the
                                      classification at that moment is stored, cars that had
                                      not taken the flag as not finished */
    RS_STORE_RACE_INTERRUPTED = 3, /* the server died during it (found running at the next
                                      start, rs_store_races_interrupt): its recorded laps are
                                      kept, it has no results and no finish time */
    RS_STORE_RACE_ABANDONED = 4    /* called off before lights out: no laps, no results */
} rs_store_race_status;

/* The status as the database spells it ("running", "finished", ...), or
 * "?" for a value outside the enum. Never fails. */
const char *rs_store_race_status_name(rs_store_race_status status);

/* Ends a race: sets its status (anything but RUNNING and INTERRUPTED, which
 * only rs_store_races_interrupt sets: RS_ERR_ARG) and finished_at = ended_at.
 * Ending an ended race again overwrites both (the last word wins).
 * RS_ERR_MISSING for an unknown race. */
rs_status rs_store_race_end(rs_store *s, int64_t race_id, rs_store_race_status status,
                            int64_t ended_at, char *err, size_t err_len);

/* rs_store_race_end with RS_STORE_RACE_FINISHED. */
rs_status rs_store_race_finish(rs_store *s, int64_t race_id, int64_t finished_at, char *err,
                               size_t err_len);

/* A race rs_store_races_interrupt found still running. */
typedef struct rs_store_race_info {
    int64_t id;
    uint64_t track_hash;
    char track_name[64];       /* as stored (1..63 bytes) */
    uint32_t laps;             /* race length; 0 = open practice */
    int64_t started_at;        /* unix seconds */
} rs_store_race_info;

/* For a server at start-up, before it creates any race: marks every race
 * still running as interrupted (its server died without ending it), in one
 * transaction. Writes the first cap of them, oldest first, into out (may be
 * NULL when cap is 0) and how many were marked into *count, so the caller
 * can log each one. Only the one process that races on this database may
 * call it: it cannot tell a dead server's race from a live one's. */
rs_status rs_store_races_interrupt(rs_store *s, rs_store_race_info *out, size_t cap,
                                   size_t *count, char *err, size_t err_len);

/* ------------------------------------------------------------------ laps */

/* A completed lap as the race loop hands it over. */
typedef struct rs_store_lap {
    int64_t caller_id;        /* chosen by the caller, stored with the lap, echoed in the ack */
    int64_t player_id;
    uint64_t track_hash;      /* track and car block must be stored already */
    uint64_t params_hash;     /* the car block driven (tuned or stock) */
    uint64_t base_hash;       /* the stock car it derives from */
    uint64_t tune_hash;       /* 0 = stock */
    uint32_t physics_version;
    int64_t race_id;          /* 0 = none */
    uint32_t lap_number;      /* 1 = first */
    int64_t time_us;          /* > 0 */
    uint32_t sector_count;    /* entries in sectors_us, <= RS_MAX_SECTORS */
    int64_t sectors_us[RS_MAX_SECTORS]; /* -1 = skipped */
    bool valid;
    uint8_t invalid_reason;   /* rs_lap_invalid; 0 when valid */
    uint64_t end_hash;        /* the car's state hash at the end of the lap's tick */
    int64_t recorded_at;      /* unix seconds */
    uint32_t proof_format;    /* format of proof (racesim/lapproof.h) */
    const uint8_t *proof;     /* the uncompressed proof; copied */
    size_t proof_len;
} rs_store_lap;

/* Personal bests are kept per board: track, stock car, physics version and a
 * tune key. The key is the lap's tune hash, RS_TUNE_KEY_STOCK for stock laps
 * (tune hash 0), and every valid lap also counts on the RS_TUNE_KEY_ANY
 * board. Leaderboard filters go through rs_store_tune_key. */
#define RS_TUNE_KEY_ANY UINT64_C(0)
#define RS_TUNE_KEY_STOCK UINT64_MAX

/* The board key for laps driven with tune_hash (0 = stock). Never fails. */
uint64_t rs_store_tune_key(uint64_t tune_hash);

/* Inserts a lap, its zlib-compressed proof and the personal-best updates in
 * one transaction, and writes the lap's id. A valid lap replaces a personal
 * best (on its tune's board and on the "any tune" board) only when strictly
 * faster, so a tie keeps the earlier lap. The proof is optional (NULL, 0). */
rs_status rs_store_put_lap(rs_store *s, const rs_store_lap *lap, int64_t *lap_id, char *err,
                           size_t err_len);

/* Reads a lap's proof, decompressed and checked against its recorded size.
 * *out is malloc'ed: caller frees with free(). RS_ERR_MISSING when the lap
 * has no proof, RS_ERR_FORMAT when the stored bytes do not decompress to
 * exactly the recorded size. */
rs_status rs_store_lap_proof(rs_store *s, int64_t lap_id, uint32_t *format, uint8_t **out,
                             size_t *out_len, char *err, size_t err_len);

/* The lap id stored with a caller id (the newest if several).
 * RS_ERR_MISSING when there is none. */
rs_status rs_store_lap_by_caller_id(rs_store *s, int64_t caller_id, int64_t *lap_id,
                                    char *err, size_t err_len);

/* ------------------------------------------------------------- the writer */

typedef struct rs_store_writer rs_store_writer;

typedef struct rs_store_writer_def {
    uint32_t capacity;  /* records in flight (queued + writing + unpolled acks). Usually 4096 */
    uint32_t batch_max; /* records per transaction at most. Usually 256 */
} rs_store_writer_def;

/* Sensible defaults. Never fails. */
rs_store_writer_def rs_store_writer_default(void);

/* Opens its own connection to an existing, migrated database (like
 * rs_store_open with flags 0) and starts the database thread. Caller frees
 * with rs_store_writer_close. */
rs_status rs_store_writer_open(const char *path, const rs_store_writer_def *def,
                               rs_store_writer **out, char *err, size_t err_len);

/* Queue a record without waiting on disk: the call only takes a mutex that
 * the database thread holds for a few copies. RS_ERR_FULL immediately when
 * capacity records are in flight (the caller keeps the record and retries
 * or drops it); RS_ERR_ARG for a malformed record, RS_ERR_NOMEM; nothing is
 * queued then. A lap's proof is copied. */
rs_status rs_store_writer_put_lap(rs_store_writer *w, const rs_store_lap *lap);
/* A result's penalties are copied (the caller's may go at once) and written
 * with the result row, in its transaction. */
rs_status rs_store_writer_put_result(rs_store_writer *w, const rs_store_result *r);
/* Queues rs_store_race_end(race_id, status, ended_at); status as there. */
rs_status rs_store_writer_end_race(rs_store_writer *w, int64_t caller_id, int64_t race_id,
                                   rs_store_race_status status, int64_t ended_at);
/* rs_store_writer_end_race with RS_STORE_RACE_FINISHED. */
rs_status rs_store_writer_finish_race(rs_store_writer *w, int64_t caller_id, int64_t race_id,
                                      int64_t finished_at);

typedef enum rs_store_record_kind {
    RS_RECORD_LAP = 1,
    RS_RECORD_RESULT = 2,
    RS_RECORD_RACE_FINISH = 3 /* a race's end, whatever its status */
} rs_store_record_kind;

/* What became of one record. */
typedef struct rs_store_ack {
    int64_t caller_id;
    uint8_t kind;         /* rs_store_record_kind */
    rs_status status;     /* RS_OK: committed. Otherwise it was not stored */
    int64_t row_id;       /* RS_RECORD_LAP: the lap's id; else 0 */
} rs_store_ack;

/* Copies up to cap acks, oldest first, into acks and returns how many. An
 * RS_OK ack is written only after the record's transaction committed, and
 * a commit returns only once it is on disk (synchronous=FULL). Never
 * blocks on disk; never fails. */
size_t rs_store_writer_poll(rs_store_writer *w, rs_store_ack *acks, size_t cap);

/* Waits until every record queued before the call has been written (its
 * ack is ready to poll). For shutdown and tests, not for the tick loop. */
void rs_store_writer_flush(rs_store_writer *w);

/* Commit latency buckets: 0.25 ms to 1 s, and the rest. */
#define RS_STORE_COMMIT_BUCKETS 13

typedef struct rs_store_writer_stats {
    uint64_t records;      /* records written (any status) */
    uint64_t failed;       /* records acked with an error */
    uint64_t transactions; /* committed batches */
    uint32_t max_batch;    /* largest batch so far */
    uint64_t full;         /* puts refused with RS_ERR_FULL */
    uint32_t queued;       /* records waiting for the database thread right now */
    /* How long each batch took from BEGIN to the end of its COMMIT (on disk),
     * committed or not: counts per bucket (not cumulative), bucket i holding
     * times up to rs_store_commit_bucket_us(i); the last bucket holds the rest. */
    uint64_t commit_buckets[RS_STORE_COMMIT_BUCKETS];
    uint64_t commit_us_sum;
} rs_store_writer_stats;

/* The upper bound in microseconds of commit latency bucket i (0 .. RS_STORE_COMMIT_BUCKETS - 2);
 * UINT32_MAX for the last one, which has none. */
uint32_t rs_store_commit_bucket_us(uint32_t i);

/* A consistent copy of the counters. Never fails. */
rs_store_writer_stats rs_store_writer_get_stats(rs_store_writer *w);

/* The last database error the thread met (empty when none); copied into
 * err. Never fails. */
void rs_store_writer_last_error(rs_store_writer *w, char *err, size_t err_len);

/* Writes everything still queued, stops the thread and closes the
 * connection. Acks not yet polled are discarded. Accepts NULL. */
void rs_store_writer_close(rs_store_writer *w);

/* ----------------------------------------------------------------- tunes */

typedef struct rs_store_tune {
    int64_t id;
    int64_t player_id;
    uint64_t base_hash;    /* stock car the tune applies to */
    char name[65];         /* 1..64 bytes */
    uint64_t tune_hash;    /* content hash of the canonical tune */
    uint64_t params_hash;  /* hash of the tuned car's block */
    int64_t created_at;
} rs_store_tune;

/* A player holds at most this many saved tunes, over every car. */
#define RS_STORE_TUNES_PER_PLAYER 100

/* Saves (or replaces, same player, car and name) a tune. The JSON must have
 * been validated by the caller (racesim/tune.h); it is stored as given. A
 * new name beyond RS_STORE_TUNES_PER_PLAYER tunes is refused with
 * RS_ERR_RANGE ("at most 100 saved tunes per player: ..."); saving under an
 * existing name always works. */
rs_status rs_store_tune_save(rs_store *s, int64_t player_id, uint64_t base_hash,
                             const char *name, uint64_t tune_hash, uint64_t params_hash,
                             const char *json, int64_t now_s, int64_t *tune_id, char *err,
                             size_t err_len);

/* Validates tune_json against the stock car's adjustable ranges
 * (rs_tune_apply, racesim/tune.h) and saves it only if it is legal, with
 * the hashes that validation computed. An illegal tune is rejected whole:
 * err names every bad field with its legal range and nothing is stored.
 * *tune_hash (may be NULL) receives the content hash. The stock car's block
 * must be stored already (rs_store_put_car). The tuned car's block is
 * stored too, so laps driven with the tune can be re-simulated. The
 * per-player cap applies as for rs_store_tune_save. */
rs_status rs_store_tune_put(rs_store *s, int64_t player_id, const rs_car_params *stock,
                            const char *name, const char *tune_json, size_t len, int64_t now_s,
                            int64_t *tune_id, uint64_t *tune_hash, char *err, size_t err_len);

/* Lists a player's tunes (for one car, or every car when base_hash is 0),
 * ordered by car then name. Writes up to cap entries and returns the total
 * count in *total. It reads every row the player has (at most
 * RS_STORE_TUNES_PER_PLAYER, but for players who saved more before the cap
 * existed); rs_store_tune_list_page reads one page. */
rs_status rs_store_tune_list(rs_store *s, int64_t player_id, uint64_t base_hash,
                             rs_store_tune *out, size_t cap, size_t *total, char *err,
                             size_t err_len);

/* One page of rs_store_tune_list's order: skips offset (>= 0, else
 * RS_ERR_ARG), writes at most cap tunes into out (may be NULL when cap is 0)
 * and their number into *n, and the number of the player's tunes (for that
 * car, or all) into *total. */
rs_status rs_store_tune_list_page(rs_store *s, int64_t player_id, uint64_t base_hash,
                                  int64_t offset, rs_store_tune *out, size_t cap, size_t *n,
                                  size_t *total, char *err, size_t err_len);

/* Loads one tune by player, car and name. *json is malloc'ed: caller frees
 * with free(). RS_ERR_MISSING when absent. */
rs_status rs_store_tune_load(rs_store *s, int64_t player_id, uint64_t base_hash,
                             const char *name, rs_store_tune *info, char **json, char *err,
                             size_t err_len);

/* Deletes one tune. RS_ERR_MISSING when absent. */
rs_status rs_store_tune_delete(rs_store *s, int64_t player_id, uint64_t base_hash,
                               const char *name, char *err, size_t err_len);

/* ------------------------------------------------------------- utilities */

/* SHA-256 of len bytes into out. Never fails. */
void rs_sha256(const void *data, size_t len, uint8_t out[32]);

#ifdef __cplusplus
}
#endif

#endif
