/*
 * Shared by the secure session's files (racesim/secure.h): nothing here is
 * part of the public API.
 */
#ifndef RACESIM_SECURE_INTERNAL_H
#define RACESIM_SECURE_INTERNAL_H

#include <stdbool.h>

/* Initialises libsodium once (any thread, any number of times). False if it
 * cannot start, which happens only without a usable random source. */
bool rs_secure__ready(void);

#endif
