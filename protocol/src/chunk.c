/*
 * Chunked transfers: snapshots and parameter blocks are larger than a
 * packet, so they travel as numbered chunks of RS_PROTO_CHUNK_DATA bytes on
 * the reliable bulk channel. The assembler accepts chunks in any order (a
 * transport may reorder across reconnects), rejects any chunk that
 * disagrees with its transfer, and checks the whole against its content
 * hash before handing it out.
 */
#include <stdlib.h>
#include <string.h>

#include "racesim/protocol.h"

uint64_t rs_proto_hash64(const uint8_t *data, size_t len)
{
    /* FNV-1a, 64-bit: offset basis and prime from the FNV reference. */
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < len; i++) {
        h ^= data[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

uint32_t rs_proto_chunk_count(size_t len)
{
    if (len == 0 || len > RS_PROTO_BLOB_MAX)
        return 0;
    return (uint32_t)((len + RS_PROTO_CHUNK_DATA - 1) / RS_PROTO_CHUNK_DATA);
}

rs_proto_status rs_proto_chunk_make(const uint8_t *data, size_t len, uint32_t transfer_id,
                                    uint64_t content_hash, uint32_t index, rs_proto_chunk *out)
{
    uint32_t count = rs_proto_chunk_count(len);
    if (!data || !out || count == 0 || index >= count)
        return RS_PROTO_ARG;
    size_t off = (size_t)index * RS_PROTO_CHUNK_DATA;
    size_t n = len - off < RS_PROTO_CHUNK_DATA ? len - off : RS_PROTO_CHUNK_DATA;
    out->transfer_id = transfer_id;
    out->total_size = (uint32_t)len;
    out->index = (uint16_t)index;
    out->count = (uint16_t)count;
    out->content_hash = content_hash;
    out->data = data + off;
    out->data_len = (uint32_t)n;
    return RS_PROTO_OK;
}

struct rs_proto_assembler {
    uint32_t max_total;
    bool active;          /* a transfer is under way (or complete) */
    bool complete;
    uint32_t transfer_id;
    uint32_t total_size;
    uint16_t count;
    uint32_t received;    /* distinct chunks so far */
    uint64_t content_hash;
    uint8_t *buf;         /* max_total bytes, right after the struct */
    uint8_t *have;        /* one flag per possible chunk, after buf */
};

rs_proto_status rs_proto_assembler_create(uint32_t max_total, rs_proto_assembler **out)
{
    if (!out)
        return RS_PROTO_ARG;
    *out = NULL;
    if (max_total == 0 || max_total > RS_PROTO_BLOB_MAX)
        return RS_PROTO_ARG;
    /* The struct, the data and one flag per chunk in one block. */
    rs_proto_assembler *a = calloc(1, sizeof *a + max_total + rs_proto_chunk_count(max_total));
    if (!a)
        return RS_PROTO_NOMEM;
    a->max_total = max_total;
    a->buf = (uint8_t *)(a + 1);
    a->have = a->buf + max_total;
    *out = a;
    return RS_PROTO_OK;
}

void rs_proto_assembler_destroy(rs_proto_assembler *a)
{
    free(a);
}

void rs_proto_assembler_reset(rs_proto_assembler *a)
{
    if (!a)
        return;
    if (a->active)
        memset(a->have, 0, a->count);
    a->active = false;
    a->complete = false;
    a->received = 0;
}

/* The chunk on its own must be well-formed (the decoder guarantees this for
 * received chunks; callers may build their own). */
static bool chunk_shape_ok(const rs_proto_chunk *k)
{
    uint32_t count = rs_proto_chunk_count(k->total_size);
    if (count == 0 || k->count != count || k->index >= count || (k->data_len && !k->data))
        return false;
    uint32_t want = k->index + 1u < count ? RS_PROTO_CHUNK_DATA
                                          : k->total_size - (count - 1u) * RS_PROTO_CHUNK_DATA;
    return k->data_len == want;
}

rs_proto_status rs_proto_assembler_add(rs_proto_assembler *a, const rs_proto_chunk *k,
                                       bool *complete)
{
    if (complete)
        *complete = false;
    if (!a || !k)
        return RS_PROTO_ARG;
    if (!chunk_shape_ok(k)) {
        rs_proto_assembler_reset(a);
        return RS_PROTO_INCONSISTENT;
    }
    if (!a->active || k->transfer_id != a->transfer_id) {
        rs_proto_assembler_reset(a);
        if (k->total_size > a->max_total)
            return RS_PROTO_OVERSIZED;
        a->active = true;
        a->transfer_id = k->transfer_id;
        a->total_size = k->total_size;
        a->count = k->count;
        a->content_hash = k->content_hash;
    } else if (k->total_size != a->total_size || k->count != a->count ||
               k->content_hash != a->content_hash) {
        rs_proto_assembler_reset(a);
        return RS_PROTO_INCONSISTENT;
    }
    uint8_t *dst = a->buf + (size_t)k->index * RS_PROTO_CHUNK_DATA;
    if (a->have[k->index]) {
        /* A repeat is harmless only if it says the same thing. */
        if (memcmp(dst, k->data, k->data_len) != 0) {
            rs_proto_assembler_reset(a);
            return RS_PROTO_INCONSISTENT;
        }
    } else {
        memcpy(dst, k->data, k->data_len);
        a->have[k->index] = 1;
        a->received++;
        if (a->received == a->count) {
            if (rs_proto_hash64(a->buf, a->total_size) != a->content_hash) {
                rs_proto_assembler_reset(a);
                return RS_PROTO_BAD_HASH;
            }
            a->complete = true;
        }
    }
    if (complete)
        *complete = a->complete;
    return RS_PROTO_OK;
}

const uint8_t *rs_proto_assembler_data(const rs_proto_assembler *a, size_t *len)
{
    if (len)
        *len = 0;
    if (!a || !a->complete)
        return NULL;
    if (len)
        *len = a->total_size;
    return a->buf;
}
