/*
 * The server's key file (server_key.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "server_key.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "racesim/base/err.h"

#define KEY_LINE_LEN 65u /* 64 hex digits and a newline */

/* Creates the file with a fresh seed. O_EXCL: if another process made one
 * in between, that one wins and is read instead. */
static rs_status create_key(const char *path, uint8_t seed[RS_SECURE_KEY_LEN], bool *exists,
                            char *err, size_t err_len)
{
    *exists = false;
    if (!rs_secure_random(seed, RS_SECURE_KEY_LEN)) {
        rs_errf(err, err_len, "%s: no random source for a new server key", path);
        return RS_ERR_IO;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == EEXIST) {
            *exists = true;
            return RS_OK;
        }
        rs_errf(err, err_len, "%s: cannot create the server key: %s", path, strerror(errno));
        return RS_ERR_IO;
    }
    char line[KEY_LINE_LEN + 1];
    rs_secure_key_to_hex(seed, line);
    line[KEY_LINE_LEN - 1] = '\n';
    /* fsync: a key the players have seen must not vanish with a power cut. */
    bool ok = write(fd, line, KEY_LINE_LEN) == (ssize_t)KEY_LINE_LEN && fsync(fd) == 0;
    int saved = errno;
    close(fd);
    if (!ok) {
        unlink(path);
        rs_errf(err, err_len, "%s: cannot write the server key: %s", path, strerror(saved));
        return RS_ERR_IO;
    }
    return RS_OK;
}

static rs_status read_key(const char *path, uint8_t seed[RS_SECURE_KEY_LEN], char *err,
                          size_t err_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        rs_errf(err, err_len, "%s: cannot open the server key: %s", path, strerror(errno));
        return RS_ERR_IO;
    }
    struct stat st;
    char text[KEY_LINE_LEN + 2];
    ssize_t n = -1;
    rs_status status = RS_ERR_IO;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rs_errf(err, err_len, "%s: the server key must be a regular file", path);
    } else if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        rs_errf(err, err_len,
                "%s: the server key is readable or writable by others (mode %03o); "
                "run chmod 600 on it",
                path, (unsigned)(st.st_mode & 0777));
    } else if ((n = read(fd, text, sizeof text - 1)) < 0) {
        rs_errf(err, err_len, "%s: cannot read the server key: %s", path, strerror(errno));
    } else {
        text[n] = '\0';
        if (n > 0 && text[n - 1] == '\n')
            text[--n] = '\0';
        status = RS_OK;
        if (!rs_secure_key_from_hex(text, seed)) {
            rs_errf(err, err_len, "%s: not a server key (one line of 64 hex digits expected)",
                    path);
            status = RS_ERR_PARSE;
        }
    }
    close(fd);
    return status;
}

rs_status rs_server_key_load(const char *path, rs_secure_identity *out, bool *created, char *err,
                             size_t err_len)
{
    uint8_t seed[RS_SECURE_KEY_LEN];
    bool exists = true;
    rs_status st = RS_OK;
    *created = false;
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        if ((st = create_key(path, seed, &exists, err, err_len)) != RS_OK)
            return st;
        *created = !exists;
    }
    if (exists && (st = read_key(path, seed, err, err_len)) != RS_OK)
        return st;
    st = rs_secure_identity_from_seed(seed, out) == RS_SECURE_OK ? RS_OK : RS_ERR_IO;
    if (st != RS_OK)
        rs_errf(err, err_len, "%s: libsodium could not start", path);
    rs_secure_wipe(seed, sizeof seed);
    return st;
}
