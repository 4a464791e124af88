/*
 * The audit log (racesim/identity.h): every admin action and every failed
 * admin attempt, with who, from where, what, on what and how it ended. Its
 * texts come partly from whoever tried (a failed attempt's target is what
 * the attacker sent), so they are cleaned, never refused: losing an entry
 * because of its content would defeat the log. It is bounded too: each new
 * row past RS_STORE_AUDIT_KEEP deletes the oldest, in the same transaction,
 * so a flood of failed attempts cannot fill the disk.
 */
#include <string.h>

#include "racesim/base/err.h"
#include "racesim/identity.h"
#include "racesim/store_testing.h"
#include "store_internal.h"

/* Rows kept; RS_STORE_AUDIT_KEEP but in the test that prunes. */
static int64_t g_audit_keep = RS_STORE_AUDIT_KEEP;

void rs_store__set_audit_keep(int64_t rows)
{
    g_audit_keep = rows > 0 ? rows : RS_STORE_AUDIT_KEEP;
}

/* Deletes the rows older than the newest g_audit_keep, given the newest id:
 * ids grow by one per row and rows go only from the bottom, so this is a
 * range on the primary key, usually of one row. */
static rs_status prune(rs_store *s, int64_t newest_id, char *err, size_t err_len)
{
    int64_t below = newest_id - g_audit_keep;
    if (below < 1)
        return RS_OK;
    sqlite3_stmt *st = rs_store__stmt_ints(s, RS_STMT_AUDIT_PRUNE,
                                           "DELETE FROM audit WHERE id <= ?1", &below, 1, err,
                                           err_len);
    return st ? rs_store__step_done(s, st, "pruning the audit log", err, err_len) : RS_ERR_IO;
}

rs_status rs_store_audit_add(rs_store *s, int64_t at, const char *actor, const char *address,
                             const char *action, const char *target, const char *result,
                             char *err, size_t err_len)
{
    if (!s || !action || !action[0]) {
        rs_errf(err, err_len, "an audit entry needs an action");
        return RS_ERR_ARG;
    }
    rs_store_audit_row r;
    rs_store__text_clean(r.actor, sizeof r.actor, actor);
    rs_store__text_clean(r.address, sizeof r.address, address);
    rs_store__text_clean(r.action, sizeof r.action, action);
    rs_store__text_clean(r.target, sizeof r.target, target);
    rs_store__text_clean(r.result, sizeof r.result, result);
    rs_status status = rs_store__begin(s, err, err_len);
    if (status != RS_OK)
        return status;
    sqlite3_stmt *st = rs_store__stmt_ints(
        s, RS_STMT_AUDIT_INSERT,
        "INSERT INTO audit (at, actor, address, action, target, result) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        &at, 1, err, err_len);
    if (!st) {
        status = RS_ERR_IO;
    } else {
        const char *texts[5] = {r.actor, r.address, r.action, r.target, r.result};
        for (int i = 0; i < 5; i++)
            sqlite3_bind_text(st, i + 2, texts[i], -1, SQLITE_STATIC);
        status = rs_store__step_done(s, st, "recording an audit entry", err, err_len);
    }
    if (status == RS_OK)
        status = prune(s, sqlite3_last_insert_rowid(s->db), err, err_len);
    if (status == RS_OK)
        return rs_store__commit(s, err, err_len);
    rs_store__rollback(s);
    return status;
}

/* An rs_store__row_reader: row is an rs_store_audit_row. */
static void read_entry(sqlite3_stmt *st, void *row)
{
    rs_store_audit_row *r = row;
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    r->at = sqlite3_column_int64(st, 1);
    rs_store__copy_text(r->actor, sizeof r->actor, sqlite3_column_text(st, 2));
    rs_store__copy_text(r->address, sizeof r->address, sqlite3_column_text(st, 3));
    rs_store__copy_text(r->action, sizeof r->action, sqlite3_column_text(st, 4));
    rs_store__copy_text(r->target, sizeof r->target, sqlite3_column_text(st, 5));
    rs_store__copy_text(r->result, sizeof r->result, sqlite3_column_text(st, 6));
}

rs_status rs_store_audit_list(rs_store *s, int64_t offset, rs_store_audit_row *out, size_t cap,
                              size_t *n, size_t *total, char *err, size_t err_len)
{
    rs_status status = rs_store__page_check(s, offset, cap, out, n, total, err, err_len);
    if (status != RS_OK)
        return status;
    sqlite3_stmt *st =
        rs_store__stmt(s, RS_STMT_AUDIT_COUNT, "SELECT count(*) FROM audit", err, err_len);
    status = rs_store__page_count(s, st, "counting audit entries", total, err, err_len);
    if (status != RS_OK || cap == 0)
        return status;
    int64_t v[2] = {rs_store__limit(cap), offset};
    st = rs_store__stmt_ints(s, RS_STMT_AUDIT_PAGE,
                             "SELECT id, at, actor, address, action, target, result FROM audit "
                             "ORDER BY id DESC LIMIT ?1 OFFSET ?2",
                             v, 2, err, err_len);
    return rs_store__page_rows(s, st, read_entry, out, sizeof *out, cap, n,
                               "listing the audit log", err, err_len);
}
