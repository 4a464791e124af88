/*
 * A --script: timed key presses for demos and tests. Each line is
 *
 *     TIME  down|up KEY      a key press or release (SDL key name: Up, Left, W, E, Space)
 *     TIME  screenshot       write the --screenshot file after this frame is drawn
 *     TIME  quit             close the game as the window's close button would
 *
 * TIME is seconds on the race clock (0 = lights out, negative during the
 * countdown); '#' starts a comment. Presses and releases are pushed as real
 * SDL_KEYDOWN / SDL_KEYUP events, so the game handles them exactly as a
 * player's keys. Nothing runs before the first race world exists.
 */
#ifndef RACER_SCRIPT_H
#define RACER_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct racer_script racer_script;

/* Loads and checks a script file; on error writes "FILE:LINE: why" to err
 * and returns false. */
bool racer_script_load(const char *path, racer_script **out, char *err, size_t err_len);

/* Runs every step due at race time t_s, in order, each once; key events go
 * to window_id. Returns true when a screenshot step came due. */
bool racer_script_run(racer_script *s, double t_s, uint32_t window_id);

/* Accepts NULL. */
void racer_script_destroy(racer_script *s);

#endif
