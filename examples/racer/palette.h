/*
 * racer's colours, as "r, g, b" lists for SDL_SetRenderDrawColor and
 * SDL_Color. One place, because tests/racer_shot_check.c looks for exactly
 * these values in a screenshot: every colour that must be recognisable is
 * fully opaque and drawn without blending or smoothing.
 */
#ifndef RACER_PALETTE_H
#define RACER_PALETTE_H

#define RACER_RGB_GRASS 46, 110, 52
#define RACER_RGB_ASPHALT 92, 94, 102
#define RACER_RGB_EDGE 235, 235, 235
#define RACER_RGB_START 250, 250, 250
#define RACER_RGB_SECTOR 240, 200, 40
#define RACER_RGB_BARRIER 200, 60, 50
#define RACER_RGB_HUD_TEXT 255, 214, 10
#define RACER_RGB_HUD_DIM 200, 200, 200
#define RACER_RGB_OUTLINE 255, 255, 255

/* Car body colours (r, g, b, a), by car index1 - 1 modulo the count. Far from the
 * grass, the asphalt, the barriers and the HUD text. */
#define RACER_CAR_COLOURS                                                                      \
    {{30, 120, 255, 255}, {255, 120, 0, 255}, {200, 40, 220, 255}, {0, 210, 200, 255},         \
     {255, 60, 130, 255}, {150, 230, 30, 255}, {120, 80, 255, 255}, {255, 170, 150, 255}}
#define RACER_CAR_COLOUR_COUNT 8

#endif
