/*
 * One allocation for a struct and the arrays it owns. Scratch and recorder
 * objects size all their arrays once, at creation; laying them out after
 * the struct in one block gives one allocation to fail (no half-built
 * object to unwind) and one free().
 *
 * The owner writes a layout function that takes each array from the block
 * in turn with rs_block_take; rs_block_alloc runs it twice, first to add up
 * the size, then to hand out the addresses in the allocated block.
 */
#ifndef RS_BLOCK_H
#define RS_BLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct rs_block {
    unsigned char *base; /* NULL while measuring */
    size_t used;         /* bytes taken so far, the struct included */
} rs_block;

/* The next array of count elements of size bytes, aligned for any type
 * (the block itself comes from calloc); NULL while measuring. A size that
 * does not fit in size_t measures as SIZE_MAX, which no allocation grants. */
static inline void *rs_block_take(rs_block *b, size_t count, size_t size)
{
    const size_t align = _Alignof(max_align_t);
    size_t at = b->used > SIZE_MAX - align ? SIZE_MAX : (b->used + align - 1) / align * align;
    if (at == SIZE_MAX || (size && count > (SIZE_MAX - at) / size)) {
        b->used = SIZE_MAX;
        return NULL;
    }
    b->used = at + count * size;
    return b->base ? b->base + at : NULL;
}

/* A zeroed block holding a copy of the struct at head (head_size bytes,
 * with everything layout needs filled in) followed by its arrays, whose
 * pointers layout(obj, block) sets; NULL when out of memory. */
static inline void *rs_block_alloc(void *head, size_t head_size,
                                   void (*layout)(void *obj, rs_block *b))
{
    rs_block b = {NULL, head_size};
    layout(head, &b);
    void *obj = b.used == SIZE_MAX ? NULL : calloc(1, b.used);
    if (!obj)
        return NULL;
    memcpy(obj, head, head_size);
    b.base = obj;
    b.used = head_size;
    layout(obj, &b);
    return obj;
}

#endif
