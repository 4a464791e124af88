/*
 * The real raceserver program as a child process, for tests that run it
 * end to end: a free port, a temporary directory with its database, key
 * and log, start (waits until it listens), SIGTERM stop (which must exit
 * 0), SIGKILL, a restart on the same directory, and reading its log. Needs
 * cmocka (failures are test failures) and RS_RACESERVER_PATH.
 */
#ifndef RS_TEST_SERVER_PROC_H
#define RS_TEST_SERVER_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct server_proc {
    pid_t pid;
    uint16_t port;
    char dir[64];      /* a temporary directory for the database and the log */
    char db[128];
    char log[128];
    char key[128];     /* the server's key file */
    bool with_db;      /* started with db (else --no-db) */
} server_proc;

/* A UDP port nobody uses right now (the kernel's pick). */
uint16_t free_udp_port(void);

/* Starts raceserver on 127.0.0.1 at a free port, with its log, key file
 * and (with_db) database in a new temporary directory, plus the extra
 * arguments (NULL-terminated), and waits until it listens. */
void server_start(server_proc *s, bool with_db, const char *const *extra);

/* SIGTERM, then the server must finish its writes and exit 0 promptly. */
void server_stop(server_proc *s);

/* SIGKILL (a crash: no chance to finish anything), and reaps the server,
 * which must have died of it. */
void server_kill(server_proc *s);

/* Starts raceserver again after server_stop or server_kill, as an operator
 * restarts it: the same directory, port, key file and database (or
 * --no-db), plus the extra arguments (NULL-terminated), and waits until it
 * listens. The log starts afresh (the previous run's is overwritten). */
void server_restart(server_proc *s, const char *const *extra);

/* Removes the temporary directory and every file in it. */
void server_cleanup(server_proc *s);

/* Prints the first 200 lines of the server's log (for a failing test). */
void server_dump_log(const server_proc *s);

/* A cmocka teardown: SIGKILLs the server a failed test left running. */
int server_kill_leftover(void **state);

/* Whether a line of the file holds needle. */
bool file_contains(const char *path, const char *needle);

/* The largest value of "key":N in any line of the file (-1 if none). */
int64_t max_json_number(const char *path, const char *key);

/* The sum of the values of "key":N over every line of the file (0 if none):
 * a counter's total over every stats line. */
int64_t sum_json_number(const char *path, const char *key);

#endif
