/*
 * The lap proof format's private side, shared by the recorder
 * (lapproof_record.c), the reader (lapproof_decode.c) and the replay
 * (lapproof_replay.c). The bytes are described in racesim/lapproof.h.
 */
#ifndef RS_LAPPROOF_FORMAT_H
#define RS_LAPPROOF_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "racesim/lapproof.h"

#include "bytes.h"

#define PROOF_MAGIC "RSLP"
#define INPUT_BYTES 8u
#define JOIN_BYTES (8u + 2u + 5u * 8u + 3u)
#define MAX_LAP_TICKS (1u << 24)
#define MAX_TICK_HZ 100000u
#define MAX_SUBSTEPS 64u

/* A proof checked by rs_lap_proof_decode: its header and where its parts
 * are. */
typedef struct rs_lap_parsed {
    rs_lap_proof_info info;
    size_t hashes_at;      /* offset of the parameter hashes */
    const uint8_t *snap;
    size_t snap_len;
    uint32_t snap_cars;    /* cars in the snapshot: car_count - join_count */
    size_t joins_at;       /* offset of the first join (info.join_count of them) */
    size_t inputs_at;      /* offset of the input log */
} rs_lap_parsed;

/* A car that joined during the log. */
typedef struct rs_lap_join {
    uint64_t tick; /* added before this tick */
    uint16_t car;  /* index1 */
    rs_car_spawn spawn;
} rs_lap_join;

/* Decodes and checks a whole proof (racesim/lapproof.h,
 * rs_lap_proof_info_read's errors). */
rs_status rs_lap_proof_decode(const uint8_t *buf, size_t len, rs_lap_parsed *p);

/* One join: JOIN_BYTES bytes. The reader only reads (the decoder has
 * checked every join already). */
void rs_lap_join_write(rs_writer *w, uint64_t tick, uint16_t car, const rs_car_spawn *spawn);
rs_lap_join rs_lap_join_read(rs_reader *r);

/* One car's input in the log: INPUT_BYTES bytes. */
void rs_lap_input_write(rs_writer *w, const rs_input *in);
rs_input rs_lap_input_read(rs_reader *r);

#endif
