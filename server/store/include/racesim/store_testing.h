/*
 * The store's internal test API: for the store's own tests and tools, not a
 * stable API. It may change with any commit; a server never needs it.
 *
 * What it offers is what the tests cannot reach through racesim/store.h and
 * racesim/leaderboard.h: the migrations embedded in this build, opening a
 * database at an intermediate schema version (the upgrade test builds one
 * at every version), the leaderboard's SQL texts (the query-plan test),
 * the synchronous setting durbench compares and the audit log's bound.
 * SQL on a file from outside the store is the tests' own (tests/support/
 * test_sql.h): no production binary carries it.
 */
#ifndef RACESIM_STORE_TESTING_H
#define RACESIM_STORE_TESTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <racesim/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One embedded migration: the file migrations/NNNN_name.sql, embedded at
 * build time by server/store/cmake/embed_migrations.cmake. */
typedef struct rs_store_migration {
    uint32_t version;     /* 1, 2, 3 ... */
    const char *name;     /* "initial" */
    const char *file;     /* "0001_initial.sql" */
    const char *sql;      /* the file's exact bytes, NUL-terminated */
    size_t size;          /* bytes, without the NUL */
} rs_store_migration;

/* Sorted by version: rs_store__migrations[i].version == i + 1, and there are
 * rs_store__migration_count (== rs_store_schema_latest()) of them. */
extern const rs_store_migration rs_store__migrations[];
extern const uint32_t rs_store__migration_count;

/* Opens like rs_store_open but applies at most the first upto embedded
 * migrations. */
rs_status rs_store__open_upto(const char *path, unsigned flags, uint32_t upto, rs_store **out,
                              char *err, size_t err_len);

/* Which PRAGMA synchronous the read-write connections opened from now on
 * use: FULL (true, the default and what a server runs with) or NORMAL. For
 * durbench, which measures what FULL costs; process-wide, so set it before
 * opening anything, from one thread. */
void rs_store__set_synchronous(bool full);

/* How many audit rows the store keeps (RS_STORE_AUDIT_KEEP unless set; 0
 * restores it), so a test can watch the oldest go without writing 200,000
 * rows. Process-wide, like rs_store__set_synchronous. */
void rs_store__set_audit_keep(int64_t rows);

/* The SQL of the i-th leaderboard query and a short name for it ("top",
 * "rank", ...), so a test can check each query's plan. NULL past the last
 * one. */
const char *rs_store__leaderboard_sql(unsigned i, const char **name);

#ifdef __cplusplus
}
#endif

#endif
