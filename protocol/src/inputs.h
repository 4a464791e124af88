/*
 * Input deltas: how INPUT and FRAME carry quantised inputs compactly. An
 * input is sent as the change against the one before it: only the fields
 * that changed, steer as a zigzag varint of its change. A block of deltas
 * (the inputs of one INPUT, or every car and tick of one FRAME) is coded
 * field-major: one byte naming the fields that change anywhere, a bitmap
 * per such field naming the entries it changes in, then the values. A
 * field that never changes costs nothing and one that does costs one bit
 * per entry, which beats a mask byte per entry when few fields move.
 */
#ifndef RS_PROTO_INPUTS_H
#define RS_PROTO_INPUTS_H

#include <stdbool.h>

#include "racesim/protocol.h"
#include "wire.h"

/* The change from old to now (both valid). Never fails. */
rs_proto_input_delta rs_proto__delta_make(const rs_input *old, const rs_input *now);

/* Applies d to old. False when the result is not a valid input. */
bool rs_proto__delta_apply(const rs_input *old, const rs_proto_input_delta *d, rs_input *out);

#define RS_DELTA_ALL 0x7fu

/* Writes or reads a block of n deltas (n <= 256; see above). */
void rs_proto__delta_block(rs_codec *c, rs_proto_input_delta *d, uint32_t n, const char *field);

#endif
