/*
 * The migration runner. The schema comes only from the embedded
 * migrations/NNNN_name.sql files; schema_migrations records each applied
 * file's number, name and SHA-256. Before anything is applied, the recorded
 * history must agree with this build: the same files with the same bytes,
 * numbered 1..k without gaps, and nothing newer than this build knows.
 * Each missing migration is then applied in its own BEGIN IMMEDIATE
 * transaction together with its schema_migrations row, so a crash leaves the
 * database at the previous version, never half-migrated, and two processes
 * starting at once cannot both apply the same file.
 */
#include <string.h>

#include "racesim/base/clock.h"
#include "racesim/base/err.h"
#include "racesim/store_testing.h"
#include "sha256.h"
#include "store_internal.h"

static void file_sha(const rs_store_migration *m, char hex[65])
{
    uint8_t digest[32];
    rs_sha256(m->sql, m->size, digest);
    rs_store__hex(digest, 32, hex);
}

/* One-row integer query; *value = 0 when no row. */
static rs_status query_int(rs_store *s, const char *sql, int64_t *value, const char *what,
                           char *err, size_t err_len)
{
    sqlite3_stmt *st;
    rs_status status = rs_store__query_first(s, sql, what, &st, err, err_len);
    *value = status == RS_OK ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return status == RS_ERR_MISSING ? RS_OK : status;
}

/* Compares the recorded history with the embedded files and writes how many
 * are applied into *applied. create: make schema_migrations in an empty
 * database. */
static rs_status check_history(rs_store *s, bool create, uint32_t *applied, char *err,
                               size_t err_len)
{
    int64_t has_table = 0, objects = 0;
    rs_status status = query_int(s,
                                 "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                                 "AND name = 'schema_migrations'",
                                 &has_table, "reading the schema", err, err_len);
    if (status != RS_OK)
        return status;
    if (!has_table) {
        status = query_int(s, "SELECT count(*) FROM sqlite_master", &objects,
                           "reading the schema", err, err_len);
        if (status != RS_OK)
            return status;
        if (objects > 0) {
            rs_errf(err, err_len,
                          "%s: not a racesim database: it has tables but no schema_migrations "
                          "table (refusing to touch it)",
                          s->path);
            return RS_ERR_FORMAT;
        }
        if (!create) {
            rs_errf(err, err_len,
                          "%s: empty database with no racesim schema (open it writable with "
                          "create to build one)",
                          s->path);
            return RS_ERR_FORMAT;
        }
        int rc = sqlite3_exec(s->db,
                              "CREATE TABLE schema_migrations ("
                              " version INTEGER PRIMARY KEY,"
                              " name TEXT NOT NULL,"
                              " sha256 TEXT NOT NULL,"
                              " applied_at INTEGER NOT NULL)",
                              NULL, NULL, NULL);
        if (rc != SQLITE_OK)
            return rs_store__fail(s, rc, "creating schema_migrations", err, err_len);
        *applied = 0;
        return RS_OK;
    }

    int64_t newest = 0;
    status = query_int(s, "SELECT max(version) FROM schema_migrations", &newest,
                       "reading schema_migrations", err, err_len);
    if (status != RS_OK)
        return status;
    if (newest > (int64_t)rs_store__migration_count) {
        rs_errf(err, err_len,
                      "%s: the database schema is newer than this build: migration %lld is "
                      "applied but this build has only 1..%u (use the newer server, or restore "
                      "the removed migration file)",
                      s->path, (long long)newest, rs_store__migration_count);
        return RS_ERR_MISMATCH;
    }

    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT version, name, sha256 FROM schema_migrations "
                                "ORDER BY version",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rs_store__fail(s, rc, "reading schema_migrations", err, err_len);
    uint32_t n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t version = sqlite3_column_int64(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *sha = (const char *)sqlite3_column_text(st, 2);
        if (version != (int64_t)n + 1) {
            rs_errf(err, err_len,
                          "%s: schema_migrations is inconsistent: expected migration %u, found "
                          "%lld",
                          s->path, n + 1, (long long)version);
            status = RS_ERR_MISMATCH;
            break;
        }
        const rs_store_migration *m = &rs_store__migrations[n];
        char want[65];
        file_sha(m, want);
        if (!name || strcmp(name, m->name) != 0) {
            rs_errf(err, err_len,
                          "%s: applied migration %u is \"%s\" but this build's is %s",
                          s->path, m->version, name ? name : "(null)", m->file);
            status = RS_ERR_MISMATCH;
            break;
        }
        if (!sha || strcmp(sha, want) != 0) {
            rs_errf(err, err_len,
                          "%s: migrations/%s changed after it was applied (sha256 recorded "
                          "%.16s..., this build has %.16s...); applied migrations must never "
                          "change: add a new one instead",
                          s->path, m->file, sha ? sha : "(null)", want);
            status = RS_ERR_MISMATCH;
            break;
        }
        n++;
    }
    if (status == RS_OK && rc != SQLITE_DONE)
        status = rs_store__fail(s, rc, "reading schema_migrations", err, err_len);
    sqlite3_finalize(st);
    *applied = n;
    return status;
}

static rs_status apply_one(rs_store *s, const rs_store_migration *m, char *err, size_t err_len)
{
    char *msg = NULL;
    int rc = sqlite3_exec(s->db, m->sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        rs_errf(err, err_len, "%s: applying migrations/%s: %s", s->path, m->file,
                msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        rs_status st = rs_store__status_from_sqlite(rc);
        return st == RS_OK ? RS_ERR_IO : st;
    }
    char sha[65];
    file_sha(m, sha);
    sqlite3_stmt *st = NULL;
    rc = sqlite3_prepare_v2(s->db,
                            "INSERT INTO schema_migrations (version, name, sha256, applied_at) "
                            "VALUES (?1, ?2, ?3, ?4)",
                            -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, m->version);
        sqlite3_bind_text(st, 2, m->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, sha, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 4, (sqlite3_int64)rs_wall_time_s());
        rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return rs_store__fail(s, rc, "recording a migration", err, err_len);
    return RS_OK;
}

rs_status rs_store__migrate(rs_store *s, uint32_t upto, bool read_only, char *err,
                            size_t err_len)
{
    if (upto > rs_store__migration_count)
        upto = rs_store__migration_count;
    for (;;) {
        /* Read-only: a read transaction gives one consistent view. Writable:
         * the write lock first, so the history cannot change under us. */
        int rc = sqlite3_exec(s->db, read_only ? "BEGIN" : "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc != SQLITE_OK)
            return rs_store__fail(s, rc, "begin migration transaction", err, err_len);
        uint32_t applied = 0;
        rs_status status = check_history(s, !read_only, &applied, err, err_len);
        if (status == RS_OK && applied < upto && !read_only)
            status = apply_one(s, &rs_store__migrations[applied], err, err_len);
        rc = status == RS_OK ? sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) : SQLITE_OK;
        if (status == RS_OK && rc != SQLITE_OK)
            status = rs_store__fail(s, rc, "committing a migration", err, err_len);
        if (status != RS_OK) {
            rs_store__rollback(s);
            return status;
        }
        if (applied >= upto || read_only) {
            if (applied < upto) {
                rs_errf(err, err_len,
                              "%s: schema version %u is older than this build's %u: open it "
                              "writable once to upgrade it",
                              s->path, applied, upto);
                return RS_ERR_MISMATCH;
            }
            s->schema_version = applied;
            return RS_OK;
        }
    }
}
