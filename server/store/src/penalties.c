/*
 * A result's penalties (race_penalties, migration 0008): race control's and
 * the administrators' penalties of one car in one session, written with its
 * race_results row in the same transaction (rs_store__put_result_in_tx), so
 * a stored result never lacks the penalties its penalty_ms adds up, nor has
 * penalties of an earlier write. They are read back by
 * rs_leaderboard_penalties (leaderboard_ops.c).
 */
#include <string.h>

#include "racesim/base/err.h"
#include "store_internal.h"

/* Indexed by rs_store_penalty_kind / rs_store_offence: the words migration
 * 0008 allows (the server's log and live timing use the same). */
static const char *const kind_names[RS_STORE_PENALTY_KIND_COUNT] = {"time", "dsq", "warning"};
static const char *const offence_names[RS_STORE_OFFENCE_COUNT] = {"track_limits", "contact",
                                                                  "jump_start", "admin"};

const char *rs_store_penalty_kind_name(rs_store_penalty_kind kind)
{
    return (unsigned)kind < RS_STORE_PENALTY_KIND_COUNT ? kind_names[kind] : "?";
}

const char *rs_store_offence_name(rs_store_offence offence)
{
    return (unsigned)offence < RS_STORE_OFFENCE_COUNT ? offence_names[offence] : "?";
}

/* Why p cannot be stored, or NULL. The rules are the room's: a time
 * penalty has 1..3600 s, nothing else has seconds, and a warning has no
 * effect to take back. */
static const char *penalty_fault(const rs_store_penalty *p)
{
    if (p->id < 1)
        return "id below 1";
    if ((unsigned)p->kind >= RS_STORE_PENALTY_KIND_COUNT)
        return "unknown kind";
    if ((unsigned)p->offence >= RS_STORE_OFFENCE_COUNT)
        return "unknown offence";
    if (p->kind == RS_STORE_PENALTY_TIME ? p->seconds < 1 || p->seconds > 3600 : p->seconds != 0)
        return "seconds out of range for its kind";
    if (p->removed && p->kind == RS_STORE_PENALTY_WARNING)
        return "a warning cannot be removed";
    if (p->tick > INT64_MAX || (p->removed && p->removed_tick > INT64_MAX))
        return "tick out of range";
    return NULL;
}

rs_status rs_store__penalties_check(const rs_store_result *r, char *err, size_t err_len)
{
    if (r->penalty_count > 0 && !r->penalties) {
        rs_errf(err, err_len, "result: %u penalties and no array", (unsigned)r->penalty_count);
        return RS_ERR_ARG;
    }
    for (uint32_t i = 0; i < r->penalty_count; i++) {
        const char *why = penalty_fault(&r->penalties[i]);
        if (why) {
            rs_errf(err, err_len, "result: penalty %u: %s", (unsigned)r->penalties[i].id, why);
            return RS_ERR_RANGE;
        }
    }
    return RS_OK;
}

/* The length of a text field of cap bytes (NUL-terminated unless full). */
static int field_len(const char *s, size_t cap)
{
    const char *nul = memchr(s, '\0', cap);
    return (int)(nul ? (size_t)(nul - s) : cap);
}

static rs_status put_one(rs_store *s, const rs_store_result *r, const rs_store_penalty *p,
                         char *err, size_t err_len)
{
    int64_t v[9] = {r->race_id,
                    p->id,
                    r->player_id,
                    p->seconds,
                    (int64_t)p->tick,
                    p->race_time_us,
                    p->removed ? 1 : 0,
                    (int64_t)p->removed_tick,
                    p->removed_race_time_us};
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_PENALTY_INSERT,
        "INSERT INTO race_penalties (race_id, penalty_id, player_id, seconds, tick, "
        "race_time_us, removed, removed_tick, removed_race_time_us, kind, offence, reason, "
        "removed_reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        v, 9, err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_text(st, 10, kind_names[p->kind], -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 11, offence_names[p->offence], -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 12, p->reason, field_len(p->reason, sizeof p->reason),
                      SQLITE_TRANSIENT);
    if (p->removed) {
        sqlite3_bind_text(st, 13, p->removed_reason,
                          field_len(p->removed_reason, sizeof p->removed_reason),
                          SQLITE_TRANSIENT);
    } else {
        /* Standing: no removal to describe (the table's CHECK wants NULLs). */
        sqlite3_bind_null(st, 8);
        sqlite3_bind_null(st, 9);
        sqlite3_bind_null(st, 13);
    }
    return rs_store__step_done(s, st, "storing a race penalty", err, err_len);
}

rs_status rs_store__put_penalties_in_tx(rs_store *s, const rs_store_result *r, char *err,
                                        size_t err_len)
{
    /* A result written again replaces its penalties: the room's list is
     * the whole truth about the car's session each time. */
    int64_t key[2] = {r->race_id, r->player_id};
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_PENALTY_DELETE,
        "DELETE FROM race_penalties WHERE race_id = ?1 AND player_id = ?2", key, 2, err,
        err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__step_done(s, st, "replacing a result's penalties", err, err_len);
    for (uint32_t i = 0; status == RS_OK && i < r->penalty_count; i++)
        status = put_one(s, r, &r->penalties[i], err, err_len);
    return status;
}
