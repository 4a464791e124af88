/*
 * The heads-up display, drawn over the view with SDL2_ttf: lap n/N,
 * position, last and best lap, gap, ping and rollbacks (top left), speed
 * and gear (bottom right), the countdown lights, and the results table.
 */
#ifndef RACER_HUD_H
#define RACER_HUD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <SDL.h>

#include "game.h"
#include "racesim/client.h"

typedef struct racer_hud racer_hud;

/* Opens the font (a TTF file) at two sizes for the renderer. On error
 * writes why into err and returns false. */
bool racer_hud_create(SDL_Renderer *r, const char *font_path, racer_hud **out, char *err,
                      size_t err_len);

/* assist: the steering assist is on (said on screen, never hidden). */
void racer_hud_draw(racer_hud *h, rs_client *c, const racer_game *g, bool assist, int64_t now_us);


/* Accepts NULL. */
void racer_hud_destroy(racer_hud *h);

#endif
