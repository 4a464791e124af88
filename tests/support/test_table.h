/*
 * Table-driven cmocka tests: one test per row of a table, each run by the
 * same function with its row as the test's state. Include after cmocka.h.
 */
#ifndef RS_TEST_TABLE_H
#define RS_TEST_TABLE_H

#include <stddef.h>
#include <stdlib.h>

/* Runs, as the cmocka group `group`, one test per row of rows[0..n) (rows
 * of `size` bytes whose first member is the test's name, a const char *):
 * run(state) with *state pointing at the row. Returns the number of
 * failures, as cmocka_run_group_tests does. */
static inline int run_table_tests(const char *group, void *rows, size_t n, size_t size,
                                  CMUnitTestFunction run)
{
    struct CMUnitTest *tests = calloc(n ? n : 1, sizeof *tests);
    if (!tests)
        return 1;
    for (size_t i = 0; i < n; i++) {
        char *row = (char *)rows + i * size;
        tests[i].name = *(const char **)(void *)row;
        tests[i].test_func = run;
        tests[i].initial_state = row;
    }
    int failed = _cmocka_run_group_tests(group, tests, n, NULL, NULL);
    free(tests);
    return failed;
}

/* The same for an array: RUN_TABLE_TESTS(cases, test_case). */
#define RUN_TABLE_TESTS(rows, run) \
    run_table_tests(#rows, (rows), sizeof(rows) / sizeof(rows)[0], sizeof(rows)[0], (run))

#endif
