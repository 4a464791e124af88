/*
 * One raceserver per database. A second server on the same file would
 * take the first one's running race for a dead server's and mark it
 * interrupted at start-up (docs/PERSISTENCE.md, "Race status"), so the
 * server holds an exclusive lock on "<db>.lock" for as long as it runs.
 * The lock is the kernel's (flock): it goes with the process, however the
 * process ends, so a killed server never leaves a stale lock behind.
 * racectl does not take it: reading and the operators' writes are SQLite
 * transactions that are safe beside a running server.
 */
#ifndef RS_APP_DB_LOCK_H
#define RS_APP_DB_LOCK_H

#include <stddef.h>

#include "racesim/physics.h" /* rs_status */

/* Takes the lock for the database at db_path; *fd holds it until
 * rs_db_lock_release. RS_ERR_IO with a message naming the other server's
 * pid when it is taken, or the file when it cannot be opened. */
rs_status rs_db_lock_acquire(const char *db_path, int *fd, char *err, size_t err_len);

/* Gives the lock up (closes fd; -1 is ignored). */
void rs_db_lock_release(int fd);

#endif
