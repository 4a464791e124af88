/*
 * The database lock file (db_lock.h).
 */
#define _DEFAULT_SOURCE /* flock */
#include "db_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "racesim/base/err.h"

rs_status rs_db_lock_acquire(const char *db_path, int *fd, char *err, size_t err_len)
{
    char path[4200];
    *fd = -1;
    if (snprintf(path, sizeof path, "%s.lock", db_path) >= (int)sizeof path) {
        rs_errf(err, err_len, "%s: path too long for its lock file", db_path);
        return RS_ERR_IO;
    }
    int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (f < 0) {
        rs_errf(err, err_len, "%s: cannot open the lock file: %s", path, strerror(errno));
        return RS_ERR_IO;
    }
    if (flock(f, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = pread(f, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        rs_errf(err, err_len,
                "database %s is in use by another raceserver (pid %s, per %s): one server "
                "per database",
                db_path, pid[0] ? pid : "?", path);
        close(f);
        return RS_ERR_IO;
    }
    /* The holder's pid, for the message above (informative only). */
    char line[32];
    int len = snprintf(line, sizeof line, "%ld\n", (long)getpid());
    if (ftruncate(f, 0) != 0 || pwrite(f, line, (size_t)len, 0) != len) {
        /* The lock is what counts; the pid is only a hint. */
    }
    *fd = f;
    return RS_OK;
}

void rs_db_lock_release(int fd)
{
    if (fd >= 0)
        close(fd);
}
