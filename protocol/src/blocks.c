/*
 * The parameter blocks a client has received, kept by (kind, id_hash).
 *
 * A server sends each block once per connection (SPEC.md, "Parameter
 * blocks") and counts on the client still holding it when a later race
 * needs it: a room's cars are mostly the same stock block, and the track
 * is the largest thing a client ever downloads. Blocks are evicted oldest
 * received first (a block sent again counts as new), and the bulk channel
 * is reliable and ordered, so the newest RS_PROTO_BLOCKS_KEEP blocks a
 * server remembers sending are exactly the newest ones kept here.
 */
#include <stdlib.h>
#include <string.h>

#include "racesim/protocol.h"

typedef struct block {
    uint8_t kind;
    uint64_t id_hash;
    uint64_t stamp; /* receipt order; 0 = empty */
    uint8_t *data;
    size_t len;
} block;

struct rs_proto_blocks {
    uint32_t capacity;
    uint64_t next_stamp;
    block *slots;
};

rs_proto_status rs_proto_blocks_create(uint32_t capacity, rs_proto_blocks **out)
{
    if (!out)
        return RS_PROTO_ARG;
    *out = NULL;
    if (capacity == 0 || capacity > 4096)
        return RS_PROTO_ARG;
    rs_proto_blocks *b = calloc(1, sizeof *b);
    if (!b)
        return RS_PROTO_NOMEM;
    b->slots = calloc(capacity, sizeof *b->slots);
    if (!b->slots) {
        free(b);
        return RS_PROTO_NOMEM;
    }
    b->capacity = capacity;
    b->next_stamp = 1;
    *out = b;
    return RS_PROTO_OK;
}

void rs_proto_blocks_clear(rs_proto_blocks *b)
{
    if (!b)
        return;
    for (uint32_t i = 0; i < b->capacity; i++) {
        free(b->slots[i].data);
        memset(&b->slots[i], 0, sizeof b->slots[i]);
    }
}

void rs_proto_blocks_destroy(rs_proto_blocks *b)
{
    if (!b)
        return;
    rs_proto_blocks_clear(b);
    free(b->slots);
    free(b);
}

static block *find(const rs_proto_blocks *b, uint8_t kind, uint64_t id_hash)
{
    for (uint32_t i = 0; i < b->capacity; i++) {
        block *s = &b->slots[i];
        if (s->stamp && s->kind == kind && s->id_hash == id_hash)
            return s;
    }
    return NULL;
}

rs_proto_status rs_proto_blocks_put(rs_proto_blocks *b, uint8_t kind, uint64_t id_hash,
                                    const uint8_t *data, size_t len)
{
    if (!b || !data || len == 0 || len > RS_PROTO_BLOB_MAX || kind >= RS_PARAMS_KIND_COUNT)
        return RS_PROTO_ARG;
    uint8_t *copy = malloc(len);
    if (!copy)
        return RS_PROTO_NOMEM;
    memcpy(copy, data, len);
    block *s = find(b, kind, id_hash);
    if (!s) {
        /* An empty slot, else the oldest received. */
        s = &b->slots[0];
        for (uint32_t i = 0; i < b->capacity && s->stamp; i++)
            if (b->slots[i].stamp < s->stamp)
                s = &b->slots[i];
    }
    free(s->data);
    s->kind = kind;
    s->id_hash = id_hash;
    s->stamp = b->next_stamp++;
    s->data = copy;
    s->len = len;
    return RS_PROTO_OK;
}

const uint8_t *rs_proto_blocks_find(const rs_proto_blocks *b, uint8_t kind, uint64_t id_hash,
                                    size_t *len)
{
    const block *s = b ? find(b, kind, id_hash) : NULL;
    if (len)
        *len = s ? s->len : 0;
    return s ? s->data : NULL;
}
