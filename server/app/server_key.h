/*
 * The server's long-term key file: the 32-byte Ed25519 seed that the
 * secure sessions are signed with (protocol/SPEC.md section 8), kept as
 * 64 hex digits on one line in a file only the server's user may read.
 * The first start creates it; every start after that must find it intact,
 * or the players who remember the key would be told it changed.
 */
#ifndef RS_APP_SERVER_KEY_H
#define RS_APP_SERVER_KEY_H

#include <stdbool.h>
#include <stddef.h>

#include "racesim/physics.h" /* rs_status */
#include "racesim/secure.h"

/* Reads the key in path, or creates it (mode 0600, never overwriting a
 * file that appeared meanwhile) when there is none; *created tells which.
 * Refuses, with a message naming the file and the fix, a file that others
 * may read or write, that is not a regular file, or that does not hold
 * exactly one key: RS_ERR_IO or RS_ERR_PARSE. */
rs_status rs_server_key_load(const char *path, rs_secure_identity *out, bool *created, char *err,
                             size_t err_len);

#endif
