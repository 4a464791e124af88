/*
 * SQL on a database file from outside the store (test_sql.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "racesim/base/err.h"
#include "test_sql.h"

bool test_sql_run(const char *path, const char *sql, int64_t *value, char *err, size_t err_len)
{
    if (value)
        *value = 0;
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db);
    bool got = false;
    const char *next = sql;
    while (rc == SQLITE_OK && *next) {
        sqlite3_stmt *st = NULL;
        rc = sqlite3_prepare_v2(db, next, -1, &st, &next);
        if (rc != SQLITE_OK || !st)
            break; /* an error, or only white space and comments were left */
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            if (value && !got)
                *value = sqlite3_column_int64(st, 0);
            got = true;
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            break;
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK)
        rs_errf(err, err_len, "%s: %s: %s", path, sql, db ? sqlite3_errmsg(db) : "no memory");
    sqlite3_close(db);
    return rc == SQLITE_OK;
}

int64_t test_sql_value(const char *path, const char *sql)
{
    int64_t v = 0;
    char err[512];
    if (!test_sql_run(path, sql, &v, err, sizeof err))
        fail_msg("%s", err);
    return v;
}
