/*
 * Internals of racesim/services.h, shared by services.c (creation,
 * polling, shutdown), services_race.c (races into the store and LAP
 * flags), services_worker.c (the thread that answers from the database),
 * services_peers.c (who is on each connection, and their budgets),
 * services_admit.c (admission, registration, tokens, bans),
 * services_requests.c (leaderboards, tunes, admin) and services_later.c
 * (what waits for a room on another thread to come home).
 *
 * Threads: every way in (a hook, rs_services_poll, the peers, the stats)
 * holds svc->lock, a recursive mutex: a room's hooks may run on a room
 * worker while the network thread polls, and a call into a room may come
 * back through a hook on the same thread (an admission seats a car in a
 * running practice: car_joined). Under the lock the services call into a
 * room only when rs_svc__may_call says it is theirs to call; everything
 * else for that room waits in svc->later. Lock order: svc->lock, then
 * what a room reaches (its observer's locks), then ids_lock, which guards
 * only the race list's links and ids for rs_services_race_id (an observer
 * asks it with its own lock held).
 */
#ifndef RACESIM_SERVICES_INTERNAL_H
#define RACESIM_SERVICES_INTERNAL_H

#include <pthread.h>

#include "racesim/base/err.h"
#include "racesim/identity.h"
#include "racesim/leaderboard.h"
#include "racesim/racelog.h"
#include "racesim/services.h"

/* Caller ids of a race's records: the race's database id in the high bits
 * (so an acknowledgement finds its race, across rooms and restarts), the
 * record's number in the low 24. The racelog numbers its records from 0;
 * results the services write themselves start at SVC_OWN_IDS. */
#define SVC_RACE_SHIFT 24
#define SVC_OWN_IDS (1 << 23)
/* A finished race whose every record is in the writer's hands is freed
 * once its laps are acknowledged, or after this long (an acknowledgement
 * that never comes: a record the writer refused outright). */
#define SVC_SETTLE_US 60000000

/* A lap handed to the racelog, waiting for its acknowledgement. */
typedef struct svc_lap {
    int64_t caller_id;
    uint8_t car;
    uint32_t lap;
    bool valid;
    int64_t time_us;
} svc_lap;

typedef struct svc_race {
    struct svc_race *next;
    rs_room *room;              /* NULL once the room is gone */
    rs_racelog *log;            /* NULL when the race could not be stored */
    int64_t race_id;
    uint64_t track_hash, base_hash;
    uint32_t cars;
    rs_racelog_entrant ent[RS_PROTO_MAX_CARS];
    char names[RS_PROTO_MAX_CARS][RS_PROTO_NAME_MAX + 1]; /* the drivers, for log lines */
    int64_t player_ids[RS_PROTO_MAX_CARS]; /* theirs: 0 guest (ent[] holds the row) */
    char room_name[RS_PROTO_NAME_MAX + 1];
    int64_t next_caller_id;     /* mirrors the racelog's numbering */
    bool own_results;           /* the services queued the results and the end */
    bool ended;                 /* the world is gone */
    int64_t ended_us;           /* when (rs_clock_us) */
    svc_lap *laps;              /* awaiting acknowledgement */
    size_t laps_len, laps_cap;
    rs_store_result res[RS_PROTO_MAX_CARS + 1]; /* own results not yet taken by the writer;
                                                   the last slot is the race's end */
    uint32_t res_head, res_len;
    rs_store_penalty *penalties;/* the session's penalties, grouped by result: each
                                   result's penalties point into it (owned) */
    int64_t finished_at;        /* when the race ended, for the end record */
    rs_store_race_status end_status; /* what the end record says: finished, stopped, ... */
    uint64_t lost_reported;     /* racelog records refused or dropped, already reported */
    int64_t started_at;         /* unix seconds, as the races row says */
} svc_race;

/* ------------------------------------------------------------ peers */

/* A token bucket: burst tokens, refilled at rate per second. */
typedef struct svc_bucket {
    double tokens;
    int64_t at_us;
} svc_bucket;

/* Budgets per IPv4 address (requests, registrations): a small table keyed
 * by address; two addresses sharing a slot only reset each other. */
#define SVC_ADDRESS_SLOTS 1024u
typedef struct svc_address {
    uint32_t ipv4;
    svc_bucket requests, registrations;
} svc_address;

/* One connection as the services know it (rs_services_peer_connected). */
typedef struct svc_peer {
    uint32_t id;                /* 0 = free */
    char address[24];           /* "a.b.c.d:port" */
    uint32_t ipv4;              /* host byte order */
    rs_room *room;              /* once admitted */
    int64_t player_id;          /* once admitted; 0 guest */
    char name[RS_PROTO_NAME_MAX + 1];
    bool admitting;             /* an admission job is out */
    bool unconfirmed;           /* registered here, TOKEN_ACK not seen yet */
} svc_peer;

/* ------------------------------------------------------------- jobs */

/* Work for the database thread, and what comes back. */
typedef enum svc_job_kind {
    SVC_JOB_ADMIT = 1,    /* a HELLO: bans, then register, authenticate or a guest */
    SVC_JOB_CONFIRM,      /* TOKEN_ACK of a registration */
    SVC_JOB_FORGET,       /* an unconfirmed registration whose connection ended */
    SVC_JOB_ROTATE,       /* TOKEN_ROTATE */
    SVC_JOB_ROTATE_COMMIT,/* TOKEN_ACK of a rotation */
    SVC_JOB_LEADERBOARD,
    SVC_JOB_TUNE_SAVE,
    SVC_JOB_TUNE_LOAD,
    SVC_JOB_TUNE_LIST,
    SVC_JOB_TUNE_SELECT,
    SVC_JOB_ADMIN,
    SVC_JOB_BANS,         /* are any connected players or addresses banned now? */
    SVC_JOB_STANDINGS,    /* STANDINGS_REQUEST (services_results.c) */
    SVC_JOB_RESULTS_FILE, /* a session's results file (services_results.c) */
    /* Never the database thread's: calls into a room that was not the
     * services' to call when they were due (services_later.c). */
    SVC_JOB_LAP_FLAGS,    /* a recorded lap's flags: car, lap, flags */
    SVC_JOB_KICK          /* close name's connection: refuse_reason, text; ban_check
                             when it enforces a ban (counted and logged) */
} svc_job_kind;

typedef struct svc_results_file svc_results_file;

/* A connection a bans job checks, and the verdict. */
typedef struct svc_ban_check {
    rs_room *room;
    uint32_t peer;
    int64_t player_id;
    uint32_t ipv4;
    char name[RS_PROTO_NAME_MAX + 1];
    bool banned;
    char text[RS_PROTO_TEXT_MAX + 1];
} svc_ban_check;

typedef struct svc_job {
    struct svc_job *next;       /* in svc->later */
    uint8_t kind;               /* svc_job_kind */
    /* who asked */
    rs_room *room;
    uint32_t peer;
    int64_t player_id;
    char name[RS_PROTO_NAME_MAX + 1];
    char address[24];
    uint32_t ipv4;
    /* what */
    rs_msg msg;                 /* the request, or the HELLO */
    const rs_car_params *stock; /* TUNE_*: the room's stock car (a room waits for its jobs
                                   before it goes: rs_svc__room_closed) */
    uint64_t track_hash, base_hash; /* LEADERBOARD, TUNE_*: resolved on the room's thread */
    char target_address[24];    /* ADMIN BAN: the target's connection, if connected */
    uint32_t target_ipv4;
    svc_ban_check *checks;      /* BANS: owned by the job */
    svc_results_file *file;     /* RESULTS_FILE: owned by the job */
    size_t check_count;
    uint8_t car;                /* LAP_FLAGS */
    uint32_t lap;
    uint8_t flags;
    bool ban_check;             /* KICK: a ban found by the bans check */
    /* results, filled by the database thread */
    rs_msg reply;               /* sent to peer if its type is set */
    bool admitted;              /* ADMIT */
    int64_t admitted_id;
    bool registered;            /* ADMIT: a new, unconfirmed player */
    char token[RS_PROTO_TOKEN_LEN + 1];
    uint8_t refuse_reason;
    char text[RS_PROTO_TEXT_MAX + 1];
    rs_car_params *tuned;       /* TUNE_SELECT: the car to seat (NULL = stock) */
    uint64_t tuned_hash;
    bool admin;                 /* ADMIN: the sender is an administrator; ADMIT: the player
                                   admitted is one (the room is told) */
    bool changed;               /* BANS: the bans changed since the last check */
    int64_t bans_version;
    int log_level;              /* a line for the server log, if log[0] */
    const char *log_event;      /* its event name (static) */
    char log[320];
    char error[256];            /* a database failure, for db_errors and the log */
} svc_job;

/* The database thread: its own store connection, and two queues. */
typedef struct svc_worker {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;        /* work arrived, or stop */
    pthread_cond_t settled;     /* a job finished */
    bool started, stop;
    svc_job **todo, **done;     /* rings of SVC_QUEUE pointers */
    size_t todo_head, todo_len, done_head, done_len;
    size_t running;             /* taken from todo, not yet in done */
    rs_store *store;            /* the thread's own connection */
    rs_leaderboard *lb;
    bool allow_guests;
    int64_t bans_version;       /* the version the last bans job saw */
    const rs_championship_def *championships; /* the services' (read only) */
    uint32_t championship_count;
} svc_worker;

#define SVC_QUEUE 1024u         /* jobs waiting at most; more are answered BUSY */

struct rs_services {
    pthread_mutex_t lock;       /* recursive: see "Threads" above */
    pthread_mutex_t ids_lock;   /* races' links, room and ended (writers hold lock too) */
    /* Rooms on other threads (rs_services_set_home): which ones
     * rs_services_poll may call now. NULL: every room is the caller's. */
    bool (*home)(void *ctx, const rs_room *room);
    void *home_ctx;
    svc_job *later, *later_tail; /* waiting for their rooms to be home, in order */
    rs_store *store;            /* the room thread's connection (races, start-up) */
    rs_store_writer *writer;
    rs_leaderboard *lb;         /* on store: the LAP flags' ranks */
    rs_services_track *tracks;  /* names owned */
    uint32_t track_count;
    bool allow_guests;
    uint32_t max_lap_ticks;
    rs_services_limits limits;
    void (*log)(void *ctx, const rs_services_log_entry *entry);
    void *log_ctx;

    svc_worker worker;
    svc_peer *peers;            /* by peer id's slot, peer_cap of them */
    uint32_t peer_cap;
    svc_address *addresses;     /* SVC_ADDRESS_SLOTS */
    svc_bucket registrations;   /* the whole server's */
    int64_t next_bans_check_us;
    bool bans_job_out;

    rs_room **rooms;            /* rooms seen through the hooks */
    uint32_t room_count, room_cap;
    svc_race *races;            /* running and finished races not yet settled */
    char *results_dir;          /* NULL = no results files */
    char *server_name;
    uint64_t *cars_stored;      /* parameter hashes known to be in the store */
    uint32_t cars_stored_count, cars_stored_cap;
    uint64_t tracks_stored[16]; /* a small cache; a miss only costs a no-op insert */
    uint32_t tracks_stored_count;

    rs_services_stats stats;
    char last_error[512];
};

/* services.c */
/* svc->lock, held by every way in (locking and unlocking change nothing
 * the caller sees, hence const). */
void rs_svc__lock(const rs_services *svc);
void rs_svc__unlock(const rs_services *svc);
/* A failed synchronous store call: counts it in db_errors and keeps
 * "what: err" as the last error, which the server logs (rs_services_
 * last_error). what says what was lost, when something was. */
void rs_svc__error(rs_services *svc, const char *what, const char *err);
/* Keeps a formatted message as the last error without counting it: for
 * failures another counter already holds (records_failed). */
void rs_svc__note(rs_services *svc, const char *fmt, ...) RS_PRINTF(2, 3);
void rs_svc__note_room(rs_services *svc, rs_room *room);
bool rs_svc__name_eq(const char *a, const char *b);

/* services_race.c */
void rs_svc__race_begin(void *ctx, rs_room *room, const rs_world *world,
                        const rs_room_entrant *entrants, uint32_t count);
void rs_svc__before_step(void *ctx, rs_room *room, const rs_world *world);
void rs_svc__car_joined(void *ctx, rs_room *room, const rs_world *world,
                        const rs_room_entrant *entrant, const rs_car_spawn *spawn);
/* The room's find_track hook: the catalogue's track of that name. */
bool rs_svc__find_track(void *ctx, rs_room *room, const char *name, const rs_track **track,
                        const char **json, size_t *json_len);
void rs_svc__after_step(void *ctx, rs_room *room, const rs_world *world);
void rs_svc__race_results(void *ctx, rs_room *room, const rs_world *world);
void rs_svc__race_end(void *ctx, rs_room *room, const rs_world *world);
void rs_svc__room_closed(void *ctx, rs_room *room);
/* Drains acknowledgements into LAP flags and re-offers pending records of
 * every race; frees settled races. The poll's (and shutdown's): a hook
 * offers only its own race's records. Returns how many records are still
 * not handed to the writer. */
size_t rs_svc__pump(rs_services *svc);
/* For shutdown: every race still running gets its classification so far
 * and its end, status stopped (abandoned before lights out), queued now. */
void rs_svc__races_stop(rs_services *svc);
void rs_svc__races_free(rs_services *svc);
/* The player row a guest's laps are stored under: "~" and the name, cut
 * to fit 32 bytes. */
void rs_svc__guest_row(const char *name, char row[RS_PROTO_NAME_MAX + 1]);
/* Stores a car block if not known stored (0 on success). */
rs_status rs_svc__put_car(rs_services *svc, const rs_car_params *params, uint64_t base_hash);

/* Whom a log line is about; every member may be NULL (0). */
typedef struct svc_who {
    rs_room *room;
    const char *player;
    int64_t player_id;
    const char *address;
    const char *room_name;      /* when room is NULL (gone) */
} svc_who;

/* services.c: a line for the server's log (a no-op without a log): its
 * event name, whom it is about (NULL: nobody), extra fields, the words. */
void rs_svc__log(rs_services *svc, int level, const char *event, const svc_who *who,
                 const rs_services_log_field *fields, uint32_t field_count, const char *fmt,
                 ...) RS_PRINTF(7, 8);

/* services_later.c */
/* Whether the services may call into room now: from a hook of self's
 * (its own room only, when rooms step on other threads) or from
 * rs_services_poll (self NULL: the rooms that are home). */
bool rs_svc__may_call(const rs_services *svc, const rs_room *room, const rs_room *self);
/* Finishes job now if its room (if any) may be called, else keeps it for
 * the first poll that finds the room home, after what waits for that room
 * already. Takes the job over. */
void rs_svc__finish_or_keep(rs_services *svc, svc_job *job, const rs_room *self);
/* Finishes what waits for rooms that are home now, in order (the poll). */
void rs_svc__later_run(rs_services *svc);
/* What waits for room no longer reaches it: the room is going. */
void rs_svc__later_forget(rs_services *svc, const rs_room *room);
void rs_svc__later_free(rs_services *svc);
/* A recorded lap's flags to room's deferred LAP, now or when it is home. */
void rs_svc__lap_flags(rs_services *svc, rs_room *room, const rs_room *self, uint8_t car,
                       uint32_t lap, uint8_t flags);
/* Closes name's connection in room (the poll's call), now or when the room
 * is home: true if it was closed now, or will be (the peers table has name
 * admitted there). ban_check: it enforces a ban (counted and logged when
 * the kick happens). */
bool rs_svc__kick(rs_services *svc, rs_room *room, const char *name, uint8_t reason,
                  const char *text, const svc_ban_check *ban_check);
/* Finishes a LAP_FLAGS or KICK job (its room may be called). */
void rs_svc__finish_call(rs_services *svc, svc_job *job);

/* services_worker.c */
rs_status rs_svc__worker_start(rs_services *svc, const char *db_path, char *err, size_t err_len);
/* Stops the thread after the jobs it holds (answered or not) and closes
 * its connection. */
void rs_svc__worker_stop(rs_services *svc);
/* Queues a job (taking it over); false when the queue is full (the job is
 * the caller's again: answer BUSY). */
bool rs_svc__submit(rs_services *svc, svc_job *job);
/* Finishes the jobs the thread is done with (rs_svc__finish_or_keep), in
 * the poll. */
void rs_svc__jobs_finish(rs_services *svc);
/* Finishes one job (its answer, its log line) and frees it: its room, if
 * any, may be called (rs_svc__may_call). */
void rs_svc__job_finish(rs_services *svc, svc_job *job);
/* Jobs queued, running or answered but not finished. */
size_t rs_svc__jobs_pending(const rs_services *svc);
/* Waits until no job of room is queued or running (the room is going). */
void rs_svc__jobs_wait_room(rs_services *svc, const rs_room *room);
/* A new job of a kind for a connection (zeroed, who filled from the peer
 * map when known); NULL when out of memory. */
svc_job *rs_svc__job_new(rs_services *svc, uint8_t kind, rs_room *room, uint32_t peer,
                         int64_t player_id, const char *name);
void rs_svc__job_free(svc_job *job);
/* A line for the server's log (event: a static name), written when the
 * job is finished, about the job's room, player and address. */
void rs_svc__job_log(svc_job *job, int level, const char *event, const char *fmt, ...)
    RS_PRINTF(4, 5);
/* What a job was doing, for error lines ("saving a tune"). */
const char *rs_svc__job_what(const svc_job *job);

/* services_peers.c */
svc_peer *rs_svc__peer(rs_services *svc, uint32_t peer);
/* Whether the peer's address may make one more request now (its budget). */
bool rs_svc__request_budget(rs_services *svc, const svc_peer *p);
/* Whether the peer's address, and the server, may register one more
 * player now; text says why not. */
bool rs_svc__register_budget(rs_services *svc, const svc_peer *p, char *text, size_t cap);
/* "name (player N) at a.b.c.d:port", for log lines. */
void rs_svc__who(const svc_job *job, char *out, size_t cap);

/* services_admit.c: the admit hook, the database thread's side of
 * ADMIT, CONFIRM, FORGET, ROTATE, ROTATE_COMMIT and BANS, and their
 * completions. */
uint8_t rs_svc__admit(void *ctx, rs_room *room, uint32_t peer, const rs_msg_hello *hello);
void rs_svc__run_identity(svc_worker *w, svc_job *job);
void rs_svc__run_rotate(svc_worker *w, svc_job *job);
void rs_svc__finish_identity(rs_services *svc, svc_job *job);
/* TOKEN_ACK, TOKEN_ROTATE from an admitted peer. */
void rs_svc__token_request(rs_services *svc, rs_room *room, uint32_t peer, int64_t player_id,
                           const char *name, const rs_msg *msg);
/* Every few seconds: asks whether anyone connected is banned now. */
void rs_svc__bans_poll(rs_services *svc);

/* services_requests.c: the request hook, and the database thread's side of
 * leaderboards, tunes and admin, and their completions. */
void rs_svc__request(void *ctx, rs_room *room, uint32_t peer, int64_t player_id, const char *name,
                     const rs_msg *msg);
void rs_svc__run_request(svc_worker *w, svc_job *job);
/* services_results.c: the room's classification as result records, the
 * results files and the standings */
/* The room's classification (rs_room_results) as r's result records, in
 * r->res from r->res_len on, each with its penalties (in r->penalties),
 * caller ids from *id; false when the room has none. info is filled for
 * the results file. */
bool rs_svc__room_results(rs_services *svc, svc_race *r, rs_room *room,
                          rs_room_results_info *info, int64_t *id);
/* Queues the results file of the session info for the database thread
 * (nothing when no results_dir). */
void rs_svc__results_file(rs_services *svc, const svc_race *r, const rs_room_results_info *info,
                          rs_store_race_status status);
void rs_svc__run_results(svc_worker *w, svc_job *job);
/* The store's session type of a protocol RS_SESSION_*. */
rs_store_session_type rs_svc__session_type(uint8_t proto_type);
void rs_svc__results_file_free(svc_results_file *f);
void rs_svc__finish_request(rs_services *svc, svc_job *job);
/* The BUSY answer to a request the services cannot take now. */
void rs_svc__reply_busy(rs_room *room, uint32_t peer, const rs_msg *msg, const char *text);

#endif
