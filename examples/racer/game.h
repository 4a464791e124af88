/*
 * What the game keeps from the client's events: its own laps, the results,
 * whether to stop. It prints a line for what a log (and the test) wants:
 * connection, race start, each of the player's laps, the results.
 */
#ifndef RACER_GAME_H
#define RACER_GAME_H

#include <stdbool.h>
#include <stdint.h>

#include "racesim/client.h"

typedef struct racer_game {
    int status;                /* -1 while playing, else the exit status */
    uint32_t exit_after_laps;  /* 0 = play on */
    uint32_t race_number;      /* of the present world */
    uint32_t laps_done;        /* the server's laps of the local car, this race */
    bool have_results;         /* the results of the race in results */
    rs_msg_results results;
    double odometer_m;         /* distance the local car drove, all races */
} racer_game;

void racer_game_init(racer_game *g, uint32_t exit_after_laps);

/* Takes one client event. */
void racer_game_on_event(racer_game *g, rs_client *c, const rs_client_event *ev);

/* Formats a time in microseconds as m:ss.mmm ("--" when negative). */
void racer_format_lap(int64_t us, char *out, size_t cap);

/* Name of car (index1): its driver's, else "car N". */
void racer_car_name(const rs_client *c, uint8_t car, char *out, size_t cap);

#endif
