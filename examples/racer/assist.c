#include "assist.h"

#include <stdio.h>

void racer_assist_toggle(racer_assist *a)
{
    a->on = !a->on;
    printf("steering assist %s\n", a->on ? "on" : "off");
}

void racer_assist_free(racer_assist *a)
{
    rs_driver_destroy(a->driver);
    rs_racing_line_destroy(a->line);
    *a = (racer_assist){.on = a->on};
}

/* A driver for this track and car, rebuilt when either changes (a new
 * race, a tune). False when there is none to be had. */
static bool ready(racer_assist *a, const rs_client *c, uint8_t me)
{
    const rs_track *track = rs_client_track(c);
    const rs_car_params *car = rs_client_car_params(c, me);
    if (!track || !car)
        return false;
    uint64_t key = rs_track_hash(track) ^ rs_car_params_hash(car);
    if (a->driver && key == a->line_key)
        return true;
    racer_assist_free(a);
    rs_driver_options opt = rs_driver_options_default();
    if (rs_racing_line_build(track, car, NULL, &a->line) != RS_OK ||
        rs_driver_create(a->line, &opt, &a->driver) != RS_OK) {
        /* Off rather than a costly retry every frame. */
        racer_assist_free(a);
        a->on = false;
        fprintf(stderr, "racer: steering assist unavailable (no racing line for this car)\n");
        return false;
    }
    a->line_key = key;
    return true;
}

void racer_assist_apply(racer_assist *a, const rs_client *c, rs_input *in)
{
    const rs_world *world = rs_client_world(c);
    uint8_t me = rs_client_car(c);
    if (!a->on || !world || !me || !ready(a, c, me))
        return;
    in->steer = rs_driver_update(a->driver, world, (rs_car_id){me}).steer;
}
