/*
 * Steering assist (F2): the SDK's AI driver (racesim/driver.h) steers while
 * the player keeps the throttle, the brake and the gears. For beginners,
 * and for the headless test, whose scripted keys cannot steer a lap open
 * loop; the HUD says when it is on.
 */
#ifndef RACER_ASSIST_H
#define RACER_ASSIST_H

#include <stdbool.h>
#include <stdint.h>

#include "racesim/client.h"
#include "racesim/driver.h"

typedef struct racer_assist {
    bool on;
    uint64_t line_key;     /* track and car hashes the line was built for */
    rs_racing_line *line;
    rs_driver *driver;
} racer_assist;

void racer_assist_toggle(racer_assist *a);

/* When on, replaces in->steer with the driver's, from the client's
 * predicted world (building the racing line for the present track and car
 * the first time). */
void racer_assist_apply(racer_assist *a, const rs_client *c, rs_input *in);

void racer_assist_free(racer_assist *a);

#endif
