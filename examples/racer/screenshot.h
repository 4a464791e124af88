/* Screenshots: what the renderer has drawn this frame, as a BMP file. */
#ifndef RACER_SCREENSHOT_H
#define RACER_SCREENSHOT_H

#include <stdbool.h>
#include <stddef.h>

#include <SDL.h>

/* Reads the frame drawn so far (call it before SDL_RenderPresent, after
 * which the back buffer's content is undefined) and writes it to path as a
 * 24-bit BMP. On error writes why into err and returns false. */
bool racer_screenshot(SDL_Renderer *r, const char *path, char *err, size_t err_len);

#endif
