/*
 * Internals of racesim/services.h, shared by services.c (creation,
 * players, bans, polling, shutdown), services_race.c (races into the store
 * and LAP flags) and services_requests.c (leaderboards, tunes, admin).
 */
#ifndef RACESIM_SERVICES_INTERNAL_H
#define RACESIM_SERVICES_INTERNAL_H

#include "racesim/base/err.h"
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
} svc_lap;

typedef struct svc_race {
    struct svc_race *next;
    rs_room *room;              /* NULL once the room is gone */
    rs_racelog *log;            /* NULL when the race could not be stored */
    int64_t race_id;
    uint64_t track_hash, base_hash;
    uint32_t cars;
    rs_racelog_entrant ent[RS_PROTO_MAX_CARS];
    int64_t next_caller_id;     /* mirrors the racelog's numbering */
    bool log_results;           /* the racelog queued the results (race over) */
    bool own_results;           /* the services queued them (race decided otherwise) */
    bool ended;                 /* the world is gone */
    int64_t ended_us;           /* when (rs_clock_us) */
    svc_lap *laps;              /* awaiting acknowledgement */
    size_t laps_len, laps_cap;
    rs_store_result res[RS_PROTO_MAX_CARS + 1]; /* own results not yet taken by the writer;
                                                   the last slot is the race's end */
    uint32_t res_head, res_len;
    int64_t finished_at;        /* when the race ended, for the end record */
    rs_store_race_status end_status; /* what the end record says: finished, stopped, ... */
    uint64_t lost_reported;     /* racelog records refused or dropped, already reported */
} svc_race;

struct rs_services {
    rs_store *store;
    rs_store_writer *writer;
    bool own_store, own_writer;
    rs_leaderboard *lb;
    char secret[RS_PROTO_SECRET_MAX + 1];
    size_t secret_len;
    char **bans;
    uint32_t ban_count, ban_cap;
    char *ban_path;
    rs_services_track *tracks;  /* names owned */
    uint32_t track_count;
    bool allow_guests;
    uint32_t max_lap_ticks;

    rs_room **rooms;            /* rooms seen through the hooks */
    uint32_t room_count, room_cap;
    svc_race *races;            /* running and finished races not yet settled */
    uint64_t *cars_stored;      /* parameter hashes known to be in the store */
    uint32_t cars_stored_count, cars_stored_cap;
    uint64_t tracks_stored[16]; /* a small cache; a miss only costs a no-op insert */
    uint32_t tracks_stored_count;

    rs_services_stats stats;
    char last_error[512];
};

/* services.c */
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
void rs_svc__after_step(void *ctx, rs_room *room, const rs_world *world);
void rs_svc__race_results(void *ctx, rs_room *room, const rs_world *world);
void rs_svc__race_end(void *ctx, rs_room *room, const rs_world *world);
void rs_svc__room_closed(void *ctx, rs_room *room);
/* Drains acknowledgements and re-offers pending records; frees settled
 * races. Returns how many records are still not handed to the writer. */
size_t rs_svc__pump(rs_services *svc);
/* For shutdown: every race still running gets its classification so far
 * and its end, status stopped (abandoned before lights out), queued now. */
void rs_svc__races_stop(rs_services *svc);
void rs_svc__races_free(rs_services *svc);
/* Stores a car block if not known stored (0 on success). */
rs_status rs_svc__put_car(rs_services *svc, const rs_car_params *params, uint64_t base_hash);

/* services_requests.c */
void rs_svc__request(void *ctx, rs_room *room, uint32_t peer, int64_t player_id, const char *name,
                     const rs_msg *msg);

#endif
