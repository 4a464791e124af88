#include "screenshot.h"

#include <stdio.h>

bool racer_screenshot(SDL_Renderer *r, const char *path, char *err, size_t err_len)
{
    int w, h;
    if (SDL_GetRendererOutputSize(r, &w, &h) != 0) {
        snprintf(err, err_len, "screenshot: %s", SDL_GetError());
        return false;
    }
    /* BGR24 without alpha: SDL_SaveBMP writes it as a plain 24-bit BMP that
     * every viewer (and tests/racer_shot_check.c) reads. */
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 24, SDL_PIXELFORMAT_BGR24);
    bool ok = s && SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_BGR24, s->pixels, s->pitch) == 0 &&
              SDL_SaveBMP(s, path) == 0;
    if (!ok)
        snprintf(err, err_len, "screenshot %s: %s", path, SDL_GetError());
    SDL_FreeSurface(s);
    return ok;
}
