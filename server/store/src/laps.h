/*
 * Lap helpers shared by the synchronous API and the writer thread.
 */
#ifndef RS_STORE_LAPS_H
#define RS_STORE_LAPS_H

#include <racesim/store.h>

/* Checks a lap record's fields before it is queued or written.
 * RS_ERR_ARG with a message naming the field. */
rs_status rs_store_lap_check(const rs_store_lap *lap, char *err, size_t err_len);

/* Inflates a stored proof of len bytes that must decompress to exactly
 * raw_size bytes. *out is malloc'ed: caller frees with free(). RS_ERR_FORMAT
 * when it does not. */
rs_status rs_store_proof_decompress(const uint8_t *data, size_t len, size_t raw_size,
                                    uint8_t **out, char *err, size_t err_len);

#endif
