/*
 * Reading a whole file.
 */
#ifndef RACESIM_BASE_FILE_H
#define RACESIM_BASE_FILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rs_file_status {
    RS_FILE_OK = 0,
    RS_FILE_IO,      /* cannot open or read (the message says which) */
    RS_FILE_TOO_BIG, /* more than max_bytes */
    RS_FILE_NOMEM
} rs_file_status;

/* Reads path into a malloc'd buffer with a NUL after the last byte (so text
 * can be parsed in place; *len does not count it). Refuses files larger than
 * max_bytes (0: no limit) without trusting the size the file system reports.
 * On failure *data is NULL and err says "<path>: <why>". */
rs_file_status rs_file_read(const char *path, size_t max_bytes, char **data, size_t *len,
                            char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
