/*
 * The player's controls: keyboard and game controller, from SDL events, to
 * one rs_input per frame.
 *
 * Key state is kept from SDL_KEYDOWN / SDL_KEYUP events (not
 * SDL_GetKeyboardState), so that the key presses of a --script, pushed as
 * SDL events, take exactly the path a player's do.
 */
#ifndef RACER_INPUT_H
#define RACER_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>

#include "racesim/physics.h"

typedef struct racer_input {
    bool left, right, throttle, brake, handbrake, shift_up, shift_down; /* keys held */
    int64_t shift_up_until_us, shift_down_until_us; /* a tap lasts at least this long */
    SDL_GameController *pad; /* the first controller plugged in, or NULL */
    double steer;            /* smoothed keyboard steering, -1 right .. 1 left */
    double throttle_level, brake_level; /* smoothed keyboard pedals, 0..1 */
} racer_input;

void racer_input_init(racer_input *in);

/* Takes the keyboard and controller events it knows; false for the others. */
bool racer_input_handle_event(racer_input *in, const SDL_Event *ev, int64_t now_us);

/* The controls for this frame after dt_s seconds: keyboard ramps, the
 * controller's axes, shift buttons. speed_m_s narrows the keyboard's
 * steering at speed; with the present gear it lets the shift keys select
 * reverse and Drive on the automatic gearbox. */
rs_input racer_input_frame(racer_input *in, double dt_s, int64_t now_us, double speed_m_s,
                           int gear);

void racer_input_close(racer_input *in);

#endif
