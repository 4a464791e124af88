/*
 * Opening and closing the database, the per-connection statement cache and
 * the helpers that bind and step its statements, transactions, and the
 * mapping from SQLite errors to our statuses and messages. Opening is where
 * a bad file must be caught: cannot open, read-only, not a database,
 * corrupt, or a schema from another build all end here with a message
 * naming the path, never with a crash or a reset.
 */
#define _POSIX_C_SOURCE 200809L

#include "store_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "racesim/base/err.h"
#include "racesim/store_testing.h"

#define RS_STORE_BUSY_TIMEOUT_MS 5000

/* PRAGMA synchronous of the read-write connections opened from now on:
 * FULL, except in the durability benchmark (rs_store__set_synchronous). */
static bool g_sync_full = true;

void rs_store__set_synchronous(bool full)
{
    g_sync_full = full;
}

rs_status rs_store__status_from_sqlite(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE:
        return RS_OK;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_FORMAT:
        return RS_ERR_FORMAT;
    case SQLITE_NOMEM:
        return RS_ERR_NOMEM;
    case SQLITE_CONSTRAINT:
    case SQLITE_TOOBIG:
    case SQLITE_RANGE:
    case SQLITE_MISMATCH:
        return RS_ERR_RANGE;
    default:
        return RS_ERR_IO;
    }
}

rs_status rs_store__fail(rs_store *s, int rc, const char *what, char *err, size_t err_len)
{
    rs_status st = rs_store__status_from_sqlite(rc);
    if (st == RS_OK)
        st = RS_ERR_IO; /* a step that returned ROW/DONE where the other was expected */
    const char *msg = s && s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
    const char *kind = "";
    if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT)
        kind = "not a SQLite database or corrupt: ";
    else if ((rc & 0xff) == SQLITE_READONLY)
        kind = "read-only: ";
    rs_errf(err, err_len, "%s: %s: %s%s", s && s->path ? s->path : "(database)", what,
                  kind, msg);
    return st;
}

const char *rs_store_path(const rs_store *s) { return s->path; }

uint32_t rs_store_schema_latest(void) { return rs_store__migration_count; }

uint32_t rs_store_schema_version(const rs_store *s) { return s->schema_version; }

sqlite3_stmt *rs_store__stmt(rs_store *s, unsigned slot, const char *sql, char *err,
                             size_t err_len)
{
    if (slot >= RS_STMT_SLOTS) {
        rs_errf(err, err_len, "%s: statement slot %u out of range", s->path, slot);
        return NULL;
    }
    sqlite3_stmt *st = s->stmts[slot];
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        return st;
    }
    int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
    if (rc != SQLITE_OK) {
        rs_store__fail(s, rc, "preparing a statement", err, err_len);
        return NULL;
    }
    s->stmts[slot] = st;
    return st;
}

sqlite3_stmt *rs_store__stmt_ints(rs_store *s, unsigned slot, const char *sql, const int64_t *v,
                                  int n, char *err, size_t err_len)
{
    sqlite3_stmt *st = rs_store__stmt(s, slot, sql, err, err_len);
    for (int i = 0; st && i < n; i++)
        sqlite3_bind_int64(st, i + 1, v[i]);
    return st;
}

rs_status rs_store__step_done(rs_store *s, sqlite3_stmt *st, const char *what, char *err,
                              size_t err_len)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? RS_OK : rs_store__fail(s, rc, what, err, err_len);
}

rs_status rs_store__step_row(rs_store *s, sqlite3_stmt *st, const char *what, char *err,
                             size_t err_len)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        return RS_OK;
    return rc == SQLITE_DONE ? RS_ERR_MISSING : rs_store__fail(s, rc, what, err, err_len);
}

rs_status rs_store__id_lookup(rs_store *s, unsigned slot, const char *sql, int64_t key,
                              const char *what, int64_t *id, char *err, size_t err_len)
{
    sqlite3_stmt *st = rs_store__stmt_ints(s, slot, sql, &key, 1, err, err_len);
    if (!st)
        return RS_ERR_IO;
    rs_status status = rs_store__step_row(s, st, what, err, err_len);
    if (status == RS_OK)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return status;
}

/* Runs one cached statement that returns no rows. */
static rs_status run_simple(rs_store *s, unsigned slot, const char *sql, const char *what,
                            char *err, size_t err_len)
{
    sqlite3_stmt *st = rs_store__stmt(s, slot, sql, err, err_len);
    return st ? rs_store__step_done(s, st, what, err, err_len) : RS_ERR_IO;
}

rs_status rs_store__begin(rs_store *s, char *err, size_t err_len)
{
    return run_simple(s, RS_STMT_BEGIN, "BEGIN IMMEDIATE", "begin transaction", err, err_len);
}

rs_status rs_store__commit(rs_store *s, char *err, size_t err_len)
{
    rs_status st = run_simple(s, RS_STMT_COMMIT, "COMMIT", "commit", err, err_len);
    if (st != RS_OK)
        rs_store__rollback(s);
    return st;
}

void rs_store__rollback(rs_store *s)
{
    /* After some errors SQLite has already rolled back on its own. */
    if (sqlite3_get_autocommit(s->db))
        return;
    run_simple(s, RS_STMT_ROLLBACK, "ROLLBACK", "rollback", NULL, 0);
}

rs_status rs_store__query_first(rs_store *s, const char *sql, const char *what,
                                sqlite3_stmt **st, char *err, size_t err_len)
{
    *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);
    if (rc != SQLITE_OK)
        return rs_store__fail(s, rc, what, err, err_len);
    return rs_store__step_row(s, *st, what, err, err_len);
}

/* Runs a PRAGMA that answers one text row and checks the answer. */
static rs_status pragma_expect(rs_store *s, const char *sql, const char *want, const char *what,
                               char *err, size_t err_len)
{
    sqlite3_stmt *st;
    rs_status status = rs_store__query_first(s, sql, what, &st, err, err_len);
    if (status == RS_ERR_MISSING) {
        status = rs_store__fail(s, SQLITE_DONE, what, err, err_len);
    } else if (status == RS_OK) {
        const unsigned char *got = sqlite3_column_text(st, 0);
        if (!got || strcmp((const char *)got, want) != 0) {
            rs_errf(err, err_len, "%s: %s: got \"%s\", expected \"%s\"", s->path, what,
                    got ? (const char *)got : "(null)", want);
            status = strcmp(want, "ok") == 0 ? RS_ERR_FORMAT : RS_ERR_IO;
        }
    }
    sqlite3_finalize(st);
    return status;
}

rs_status rs_store_check(rs_store *s, bool full, char *err, size_t err_len)
{
    if (!s)
        return RS_ERR_ARG;
    return pragma_expect(s, full ? "PRAGMA integrity_check(1)" : "PRAGMA quick_check(1)", "ok",
                         full ? "integrity check" : "quick check", err, err_len);
}

static char *copy_string(const char *text)
{
    size_t n = strlen(text) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, text, n);
    return p;
}

/* Explains why sqlite3_open_v2 failed in words an operator can act on. */
static void open_failure(const char *path, unsigned flags, int rc, sqlite3 *db, char *err,
                         size_t err_len)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        int e = errno;
        if (e == ENOENT && !(flags & RS_STORE_CREATE))
            rs_errf(err, err_len, "%s: cannot open: the file does not exist", path);
        else
            rs_errf(err, err_len, "%s: cannot open: %s", path, strerror(e));
        return;
    }
    if (S_ISDIR(sb.st_mode)) {
        rs_errf(err, err_len, "%s: cannot open: it is a directory", path);
        return;
    }
    rs_errf(err, err_len, "%s: cannot open: %s", path,
                  db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

rs_status rs_store__open_upto(const char *path, unsigned flags, uint32_t upto, rs_store **out,
                              char *err, size_t err_len)
{
    if (err && err_len)
        err[0] = '\0';
    if (!out)
        return RS_ERR_ARG;
    *out = NULL;
    if (!path || !path[0] || ((flags & RS_STORE_READONLY) && (flags & RS_STORE_CREATE))) {
        rs_errf(err, err_len, "%s: invalid open arguments", path ? path : "(null)");
        return RS_ERR_ARG;
    }
    rs_store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = copy_string(path))) {
        free(s);
        rs_errf(err, err_len, "%s: out of memory", path);
        return RS_ERR_NOMEM;
    }
    s->flags = flags;
    bool read_only = (flags & RS_STORE_READONLY) != 0;
    int oflags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (flags & RS_STORE_CREATE)
        oflags |= SQLITE_OPEN_CREATE;
    rs_status status = RS_OK;
    int rc = sqlite3_open_v2(path, &s->db, oflags, NULL);
    if (rc != SQLITE_OK) {
        open_failure(path, flags, rc, s->db, err, err_len);
        status = rs_store__status_from_sqlite(rc);
        if (status == RS_OK || status == RS_ERR_RANGE)
            status = RS_ERR_IO;
        goto fail;
    }
    sqlite3_extended_result_codes(s->db, 1);
    /* SQLite quietly falls back to read-only when the file is not writable;
     * a server that could not record laps must not start. */
    if (!read_only && sqlite3_db_readonly(s->db, "main") == 1) {
        rs_errf(err, err_len, "%s: cannot open for writing: the file is read-only", path);
        status = RS_ERR_IO;
        goto fail;
    }
    sqlite3_busy_timeout(s->db, RS_STORE_BUSY_TIMEOUT_MS);
    rc = sqlite3_exec(s->db, "PRAGMA foreign_keys=ON", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        status = rs_store__fail(s, rc, "enabling foreign keys", err, err_len);
        goto fail;
    }
    if (!read_only) {
        /* The first statement that reads the file: an unreadable header,
         * random bytes or a truncated file fail here, before anything is
         * written. */
        status = pragma_expect(s, "PRAGMA journal_mode=WAL", "wal", "setting WAL journal mode",
                               err, err_len);
        if (status != RS_OK)
            goto fail;
        /* FULL in WAL: every commit fsyncs the WAL before it returns, so a
         * lap acknowledged to a player survives power loss too, not only a
         * crash of the process (NORMAL would). docs/PERSISTENCE.md,
         * "Durability", has the measurement behind the choice. */
        const char *sync = g_sync_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL";
        rc = sqlite3_exec(s->db, sync, NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            status = rs_store__fail(s, rc, "setting synchronous", err, err_len);
            goto fail;
        }
    }
    if (flags & RS_STORE_CHECK) {
        status = rs_store_check(s, false, err, err_len);
        if (status != RS_OK)
            goto fail;
    }
    /* NO_UPGRADE checks the history exactly as a read-only open does. */
    status = rs_store__migrate(s, upto, read_only || (flags & RS_STORE_NO_UPGRADE), err,
                               err_len);
    if (status != RS_OK)
        goto fail;
    *out = s;
    return RS_OK;
fail:
    rs_store_close(s);
    return status;
}

rs_status rs_store_open(const char *path, unsigned flags, rs_store **out, char *err,
                        size_t err_len)
{
    return rs_store__open_upto(path, flags, rs_store__migration_count, out, err, err_len);
}

void rs_store_close(rs_store *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < RS_STMT_SLOTS; i++)
        sqlite3_finalize(s->stmts[i]);
    if (s->db)
        sqlite3_close(s->db);
    free(s->path);
    free(s);
}
