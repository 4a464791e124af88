/*
 * Laps, shared by the synchronous API (laps.c) and the writer thread
 * (writer.c): the checks a lap record passes before it is queued or
 * written, and writing one inside a caller's transaction.
 */
#ifndef RS_STORE_LAPS_H
#define RS_STORE_LAPS_H

#include <racesim/store.h>

/* Checks a lap record's fields before it is queued or written.
 * RS_ERR_ARG with a message naming the field. */
rs_status rs_store__lap_check(const rs_store_lap *lap, char *err, size_t err_len);

/* Inserts one lap with its proof and personal bests, inside a transaction the
 * caller holds (the writer batches many). */
rs_status rs_store__put_lap_in_tx(rs_store *s, const rs_store_lap *lap, int64_t *lap_id,
                                  char *err, size_t err_len);

#endif
