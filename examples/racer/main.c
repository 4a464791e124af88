/*
 * racer: a small top-down racing game on the racesim client SDK, and the
 * example a game developer copies. One fixed-rate loop (60 frames a
 * second), each frame:
 *
 *     SDL events (keys, controller, scripted presses) -> racer_input
 *     steering assist (assist.c), when the player turned it on
 *     rs_client_set_input(c, &input)    the controls from the next tick on
 *     rs_client_update(c, now)          network, clock, prediction, rollback
 *     rs_client_poll_event(c, &ev)      laps, race state, results (game.c)
 *     rs_client_pose(c, car, now, ...)  every car, interpolated (view.c)
 *     HUD (hud.c), optional screenshot, present
 *
 * Usage: racer --help. Exits 0 when the player quits (or after
 * --exit-after-laps N laps), 1 when the connection fails or drops, when
 * --timeout runs out, or when the player quits before those N laps.
 */
#include <stdio.h>

#include <SDL.h>

#include "assist.h"
#include "game.h"
#include "hud.h"
#include "input.h"
#include "options.h"
#include "racesim/base/clock.h"
#include "racesim/client.h"
#include "screenshot.h"
#include "script.h"
#include "view.h"

#define FRAME_US 16667 /* 60 frames a second */

typedef struct racer_app {
    racer_options opt;
    SDL_Window *window;
    SDL_Renderer *renderer;
    racer_hud *hud;
    racer_script *script;
    rs_client *client;
    racer_input input;
    racer_assist assist;
    racer_view view;
    racer_game game;
    bool quit, screenshot_taken;
} racer_app;

static bool open_window(racer_app *a, char *err, size_t err_len)
{
    /* Without a controller subsystem (no input devices in a container) the
     * keyboard still works. */
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_GAMECONTROLLER) != 0 && SDL_Init(SDL_INIT_VIDEO) != 0) {
        snprintf(err, err_len, "SDL_Init: %s", SDL_GetError());
        return false;
    }
    a->window = SDL_CreateWindow("racer", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                 (int)a->opt.width, (int)a->opt.height, SDL_WINDOW_RESIZABLE);
    if (!a->window) {
        snprintf(err, err_len, "SDL_CreateWindow: %s", SDL_GetError());
        return false;
    }
    /* The loop paces itself, so no vsync; the software renderer is the
     * fallback where there is no GPU (Xvfb). */
    a->renderer = SDL_CreateRenderer(a->window, -1, SDL_RENDERER_ACCELERATED);
    if (!a->renderer)
        a->renderer = SDL_CreateRenderer(a->window, -1, SDL_RENDERER_SOFTWARE);
    if (!a->renderer) {
        snprintf(err, err_len, "SDL_CreateRenderer: %s", SDL_GetError());
        return false;
    }
    return racer_hud_create(a->renderer, a->opt.font, &a->hud, err, err_len);
}

static bool connect_client(racer_app *a, char *err, size_t err_len)
{
    rs_client_config cfg = rs_client_config_default();
    cfg.name = a->opt.name;
    cfg.token = a->opt.token;
    cfg.room = a->opt.room;
    cfg.password = a->opt.password;
    cfg.server_key = a->opt.server_key;
    return rs_client_connect(&cfg, a->opt.host, (uint16_t)a->opt.port, rs_clock_us(), &a->client,
                             err, err_len) == RS_CLIENT_OK;
}

/* The status when the game ends without a result of its own: fine for a
 * player who quits, a failure when laps were asked for and not done. */
static int ended_early_status(const racer_app *a)
{
    return a->opt.exit_after_laps && a->game.laps_done < a->opt.exit_after_laps ? 1 : 0;
}

static void handle_sdl_events(racer_app *a, int64_t now_us)
{
    SDL_Event ev;
    while (SDL_PollEvent(&ev)) {
        if (ev.type == SDL_QUIT ||
            (ev.type == SDL_KEYDOWN && ev.key.keysym.sym == SDLK_ESCAPE)) {
            a->quit = true;
        } else if (ev.type == SDL_KEYDOWN && ev.key.keysym.sym == SDLK_z && !ev.key.repeat) {
            racer_view_cycle_zoom(&a->view);
        } else if (ev.type == SDL_KEYDOWN && ev.key.keysym.sym == SDLK_F2 && !ev.key.repeat) {
            racer_assist_toggle(&a->assist);
        } else {
            racer_input_handle_event(&a->input, &ev, now_us);
        }
    }
}

/* The local car's state, zeroed when there is none. */
static rs_car_state my_car(const rs_client *c)
{
    rs_car_state cs = {0};
    const rs_world *world = rs_client_world(c);
    if (world && rs_client_car(c))
        rs_world_car_state(world, (rs_car_id){rs_client_car(c)}, &cs);
    return cs;
}

static void draw(racer_app *a, int64_t now_us, bool screenshot_due)
{
    SDL_GetRendererOutputSize(a->renderer, &a->view.width_px, &a->view.height_px);
    /* Follow the local car, or car 1 for a spectator. */
    uint8_t follow = rs_client_car(a->client) ? rs_client_car(a->client) : 1;
    rs_predict_pose pose;
    if (rs_client_pose(a->client, follow, now_us, &pose) == RS_CLIENT_OK)
        racer_view_follow(&a->view, pose.pos_m[0], pose.pos_m[1]);
    racer_view_draw_track(&a->view, a->renderer, rs_client_track(a->client));
    racer_view_draw_cars(&a->view, a->renderer, a->client, now_us);
    racer_hud_draw(a->hud, a->client, &a->game, a->assist.on, now_us);
    bool leaving = a->quit || a->game.status >= 0;
    if (a->opt.screenshot && (screenshot_due || (leaving && !a->screenshot_taken))) {
        char err[256];
        if (racer_screenshot(a->renderer, a->opt.screenshot, err, sizeof err))
            printf("screenshot: %s\n", a->opt.screenshot);
        else
            fprintf(stderr, "racer: %s\n", err);
        a->screenshot_taken = true;
    }
    SDL_RenderPresent(a->renderer);
}

static void frame(racer_app *a, int64_t now_us, double dt_s)
{
    bool screenshot_due = false;
    const rs_world *world = rs_client_world(a->client);
    if (world)
        screenshot_due = racer_script_run(a->script, (double)rs_world_race_time_us(world) / 1e6,
                                          SDL_GetWindowID(a->window));
    handle_sdl_events(a, now_us);
    rs_car_state cs = my_car(a->client);
    rs_input in = racer_input_frame(&a->input, dt_s, now_us, cs.forward_speed_m_s, cs.gear);
    racer_assist_apply(&a->assist, a->client, &in);
    rs_client_set_input(a->client, &in);
    rs_client_update(a->client, now_us);
    rs_client_event ev;
    while (rs_client_poll_event(a->client, &ev))
        racer_game_on_event(&a->game, a->client, &ev);
    a->game.odometer_m += my_car(a->client).speed_m_s * dt_s;
    draw(a, now_us, screenshot_due);
}

static int run(racer_app *a)
{
    int64_t start = rs_clock_us(), last = start, next = start;
    while (!a->quit && a->game.status < 0) {
        int64_t now = rs_clock_us();
        /* Set before the frame, so that its screenshot at exit is taken. */
        if (a->opt.timeout_s && now - start > (int64_t)a->opt.timeout_s * 1000000) {
            fprintf(stderr, "racer: --timeout %u s ran out\n", (unsigned)a->opt.timeout_s);
            a->game.status = 1;
        }
        frame(a, now, (double)(now - last) / 1e6);
        last = now;
        /* Fixed rate: sleep to the next frame; after a stall, start afresh. */
        next += FRAME_US;
        now = rs_clock_us();
        if (next > now)
            rs_sleep_us(next - now);
        else if (now - next > 4 * FRAME_US)
            next = now;
    }
    int status = a->game.status >= 0 ? a->game.status : ended_early_status(a);
    rs_client_stats st;
    rs_client_get_stats(a->client, rs_clock_us(), &st);
    printf("racer: exit %d, laps %u, odometer %.0f m, rtt %.1f ms, rollbacks %llu, desyncs %llu\n",
           status, (unsigned)a->game.laps_done, a->game.odometer_m, st.rtt_ms,
           (unsigned long long)st.rollbacks, (unsigned long long)st.desyncs);
    rs_client_disconnect(a->client, rs_clock_us());
    rs_client_update(a->client, rs_clock_us());
    return status;
}

static void close_all(racer_app *a)
{
    rs_client_destroy(a->client);
    racer_script_destroy(a->script);
    racer_input_close(&a->input);
    racer_assist_free(&a->assist);
    racer_view_free(&a->view);
    racer_hud_destroy(a->hud);
    if (a->renderer)
        SDL_DestroyRenderer(a->renderer);
    if (a->window)
        SDL_DestroyWindow(a->window);
    SDL_Quit();
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* one line at a time, also into a pipe */
    racer_app a = {0};
    int rc = racer_options_parse(argc, argv, &a.opt);
    if (rc >= 0)
        return rc;
    char err[256];
    if (a.opt.script && !racer_script_load(a.opt.script, &a.script, err, sizeof err)) {
        fprintf(stderr, "racer: %s\n", err);
        return 2;
    }
    racer_input_init(&a.input);
    racer_view_init(&a.view, (int)a.opt.width, (int)a.opt.height);
    racer_game_init(&a.game, a.opt.exit_after_laps);
    int status = 1;
    if (!open_window(&a, err, sizeof err) || !connect_client(&a, err, sizeof err))
        fprintf(stderr, "racer: %s\n", err);
    else
        status = run(&a);
    close_all(&a);
    return status;
}
