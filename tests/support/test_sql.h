/*
 * SQL on a database file from outside the store, for the store's tests:
 * reading what the store wrote, or tampering with it. Production code
 * never does this, so it lives here rather than in rs_store.
 */
#ifndef RS_TEST_SQL_H
#define RS_TEST_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs every statement of sql on the file at path; *value (may be NULL) gets
 * the first column of the first row any of them answers, else 0. False with
 * a message in err on any SQLite error. */
bool test_sql_run(const char *path, const char *sql, int64_t *value, char *err, size_t err_len);

/* test_sql_run's first value; fails the running cmocka test on an error. */
int64_t test_sql_value(const char *path, const char *sql);

#endif
