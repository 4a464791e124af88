/*
 * The top-down view: a camera over the world (north up, following the
 * local car, zoomable), the track drawn from its geometry and the cars as
 * oriented rectangles at their interpolated poses.
 */
#ifndef RACER_VIEW_H
#define RACER_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>

#include "racesim/client.h"

typedef struct racer_view {
    int width_px, height_px;
    double centre_m[2];  /* world point at the window's centre */
    unsigned zoom;       /* index into the zoom levels; the last fits the track */
    /* The track's edges in world metres, computed once per track (by hash:
     * a new world's track may reuse the old one's address). */
    bool have_edges;
    uint64_t track_hash;
    SDL_FPoint *left_m, *right_m;
    uint32_t points;
    double fit_px_per_m; /* the zoom that shows the whole track */
} racer_view;

void racer_view_init(racer_view *v, int width_px, int height_px);

/* Next zoom level (Z key). */
void racer_view_cycle_zoom(racer_view *v);

/* Centres the camera on a world point (the local car). */
void racer_view_follow(racer_view *v, double x_m, double y_m);

/* Grass, asphalt, edges, timing lines, barriers. Rebuilds the edge cache
 * when the track changes (a new world). */
void racer_view_draw_track(racer_view *v, SDL_Renderer *r, const rs_track *track);

/* Every car of the client's world at its pose for now_us; the local car
 * last, outlined. */
void racer_view_draw_cars(const racer_view *v, SDL_Renderer *r, const rs_client *c,
                          int64_t now_us);

void racer_view_free(racer_view *v);

#endif
