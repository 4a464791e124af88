/*
 * World images: a world's dynamic state copied as it lies in memory, for a
 * caller that keeps states only to go back to them in the same world (the
 * client's prediction ring). A snapshot converts every value to canonical
 * bytes and checks every value it reads back; an image is a handful of
 * memcpy calls each way, because it never leaves the world that made it.
 *
 * Layout: image_head, then per car slot the car from `pos` to its end
 * (state, the steering cache and telemetry: the parameters and the
 * constants derived from them above `pos` never change in a world), its
 * race state and its contact state. Copied bytewise, so the caller's buffer
 * needs no particular alignment.
 *
 * Loading an image gives the very state that was saved, bit for bit: -0.0
 * stays -0.0 and the caches come back with the state they describe. A
 * snapshot writes -0.0 as +0.0 and leaves caches as they are; a step
 * treats both alike (test_world_image steps worlds restored both ways side
 * by side), and the hash below is the snapshot's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "world.h"

typedef struct image_head {
    const rs_world *owner; /* the only world that may load it */
    uint64_t tick;
    uint32_t count;
    rs_race race;
} image_head;

#define CAR_STATE_AT offsetof(rs_car, pos)
#define CAR_STATE_BYTES (sizeof(rs_car) - CAR_STATE_AT)
#define SLOT_BYTES (CAR_STATE_BYTES + sizeof(rs_race_car) + sizeof(rs_collide_car))

static size_t image_bytes(uint32_t cars)
{
    return sizeof(image_head) + (size_t)cars * SLOT_BYTES;
}

size_t rs_world_image_size(const rs_world *world)
{
    return world ? image_bytes(world->count) : 0;
}

size_t rs_world_image_cap(const rs_world *world)
{
    return image_bytes(world->def.max_cars);
}

rs_status rs_world_image_save(const rs_world *world, void *image, size_t cap)
{
    if (!world || !image)
        return RS_ERR_ARG;
    if (cap < rs_world_image_size(world))
        return RS_ERR_BUFFER;
    image_head head = {.owner = world, .tick = world->tick, .count = world->count,
                       .race = world->race};
    uint8_t *at = image;
    memcpy(at, &head, sizeof head);
    at += sizeof head;
    for (uint32_t c = 0; c < world->count; c++) {
        memcpy(at, (const uint8_t *)&world->cars[c] + CAR_STATE_AT, CAR_STATE_BYTES);
        at += CAR_STATE_BYTES;
        memcpy(at, &world->race_cars[c], sizeof(rs_race_car));
        at += sizeof(rs_race_car);
        memcpy(at, &world->contact[c], sizeof(rs_collide_car));
        at += sizeof(rs_collide_car);
    }
    return RS_OK;
}

/* The image's head, when world may read the image: it saved it, with the
 * cars it has now (or, unless exact, with fewer: cars never leave), and
 * len holds them all. */
static rs_status image_head_of(const rs_world *world, const void *image, size_t len, bool exact,
                               image_head *head)
{
    if (!world || !image)
        return RS_ERR_ARG;
    if (len < sizeof *head)
        return RS_ERR_BUFFER;
    memcpy(head, image, sizeof *head);
    if (head->owner != world || head->count > world->count ||
        (exact && head->count != world->count))
        return RS_ERR_MISMATCH;
    if (len < image_bytes(head->count))
        return RS_ERR_BUFFER;
    return RS_OK;
}

rs_status rs_world_image_load(rs_world *world, const void *image, size_t len)
{
    image_head head;
    rs_status st = image_head_of(world, image, len, true, &head);
    if (st != RS_OK)
        return st;
    const uint8_t *at = (const uint8_t *)image + sizeof head;
    for (uint32_t c = 0; c < world->count; c++) {
        memcpy((uint8_t *)&world->cars[c] + CAR_STATE_AT, at, CAR_STATE_BYTES);
        at += CAR_STATE_BYTES;
        memcpy(&world->race_cars[c], at, sizeof(rs_race_car));
        at += sizeof(rs_race_car);
        memcpy(&world->contact[c], at, sizeof(rs_collide_car));
        at += sizeof(rs_collide_car);
    }
    /* As rs_world_restore leaves a world: only good states are saved (a
     * broken world refuses to step), and the events were the last step's. */
    world->tick = head.tick;
    world->race = head.race;
    world->broken = 0;
    world->events.count = 0;
    return RS_OK;
}

/* The snapshot of an image's state, written by w: the cars' parameter
 * hashes come from the world, the rest from the image. */
static void write_snapshot(const rs_world *world, const image_head *head, const uint8_t *at,
                           rs_writer *w)
{
    rs_snapshot_write_head(world, head->tick, &head->race, head->count, w);
    for (uint32_t c = 0; c < head->count; c++) {
        rs_car car;
        rs_race_car rc;
        rs_collide_car cc;
        car.params = world->cars[c].params; /* the rest above pos is never read */
        memcpy((uint8_t *)&car + CAR_STATE_AT, at, CAR_STATE_BYTES);
        at += CAR_STATE_BYTES;
        memcpy(&rc, at, sizeof rc);
        at += sizeof rc;
        memcpy(&cc, at, sizeof cc);
        at += sizeof cc;
        rs_snapshot_write_parts(&car, &rc, &cc, w);
    }
}

size_t rs_world_image_snapshot(const rs_world *world, const void *image, size_t len,
                               uint8_t *buf, size_t cap)
{
    image_head head;
    if (!buf || image_head_of(world, image, len, false, &head) != RS_OK)
        return 0;
    rs_writer w = rs_writer_init(buf, cap);
    write_snapshot(world, &head, (const uint8_t *)image + sizeof head, &w);
    return w.len <= cap ? w.len : 0;
}

rs_status rs_world_image_hash(const rs_world *world, const void *image, size_t len,
                              uint64_t *hash)
{
    image_head head;
    rs_status st = image_head_of(world, image, len, true, &head);
    if (st != RS_OK)
        return st;
    if (!hash)
        return RS_ERR_ARG;
    /* In the world's hashing scratch, as rs_world_hash writes it. */
    rs_writer w = rs_writer_init(world->scratch, world->scratch_len);
    write_snapshot(world, &head, (const uint8_t *)image + sizeof head, &w);
    *hash = rs_snapshot_hash(world->scratch, w.len);
    return RS_OK;
}
