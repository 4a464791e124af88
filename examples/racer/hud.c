#include "hud.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <SDL_ttf.h>

#include "palette.h"
#include "racesim/base/err.h"

struct racer_hud {
    SDL_Renderer *r;
    TTF_Font *font, *big;
    int line_px;
};

#define HUD_PT 22
#define BIG_PT 96
#define MARGIN 12

static const SDL_Color text_col = {RACER_RGB_HUD_TEXT, 255};
static const SDL_Color dim_col = {RACER_RGB_HUD_DIM, 255};

bool racer_hud_create(SDL_Renderer *r, const char *font_path, racer_hud **out, char *err,
                      size_t err_len)
{
    *out = NULL;
    if (!TTF_WasInit() && TTF_Init() != 0) {
        snprintf(err, err_len, "TTF_Init: %s", TTF_GetError());
        return false;
    }
    racer_hud *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, err_len, "out of memory");
        return false;
    }
    h->r = r;
    h->font = TTF_OpenFont(font_path, HUD_PT);
    h->big = TTF_OpenFont(font_path, BIG_PT);
    if (!h->font || !h->big) {
        snprintf(err, err_len, "font %s: %s", font_path, TTF_GetError());
        racer_hud_destroy(h);
        return false;
    }
    h->line_px = TTF_FontLineSkip(h->font);
    *out = h;
    return true;
}

void racer_hud_destroy(racer_hud *h)
{
    if (!h)
        return;
    if (h->font)
        TTF_CloseFont(h->font);
    if (h->big)
        TTF_CloseFont(h->big);
    free(h);
}

/* Draws text with its top-left corner at (x, y), or its top-right corner
 * when x is negative (x pixels from the right edge); returns its width. A
 * texture per call: a HUD of a dozen short strings costs little. */
static int text_at(racer_hud *h, TTF_Font *font, int x, int y, SDL_Color col, const char *fmt,
                   ...) RS_PRINTF(6, 7);
static int text_at(racer_hud *h, TTF_Font *font, int x, int y, SDL_Color col, const char *fmt,
                   ...)
{
    char buf[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    SDL_Surface *s = TTF_RenderUTF8_Blended(font, buf, col);
    if (!s)
        return 0;
    SDL_Texture *t = SDL_CreateTextureFromSurface(h->r, s);
    int w = s->w;
    if (t) {
        int width_px;
        SDL_GetRendererOutputSize(h->r, &width_px, NULL);
        SDL_Rect dst = {x >= 0 ? x : width_px + x - s->w, y, s->w, s->h};
        SDL_RenderCopy(h->r, t, NULL, &dst);
        SDL_DestroyTexture(t);
    }
    SDL_FreeSurface(s);
    return w;
}

static void panel(racer_hud *h, int x, int y, int w, int hgt)
{
    SDL_SetRenderDrawBlendMode(h->r, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(h->r, 0, 0, 0, 160);
    SDL_RenderFillRect(h->r, &(SDL_Rect){x, y, w, hgt});
    SDL_SetRenderDrawBlendMode(h->r, SDL_BLENDMODE_NONE);
}

/* The gap line's text: behind the car ahead, "leading", or "--" until the
 * car has crossed a timing line. */
static void gap_text(const rs_client *c, char *out, size_t cap)
{
    /* The SDK's live standings: gap to the car ahead (and to the leader),
     * measured at the timing lines as a timing screen does. */
    rs_standing rows[RS_PROTO_MAX_CARS];
    uint32_t n = rs_client_standings(c, rows, RS_PROTO_MAX_CARS);
    uint8_t me = rs_client_car(c);
    for (uint32_t k = 0; k < n && k < RS_PROTO_MAX_CARS; k++) {
        if (rows[k].car != me)
            continue;
        if (k == 0) {
            snprintf(out, cap, "leading");
        } else if (rows[k].interval_laps > 0) {
            snprintf(out, cap, "+%u lap%s", (unsigned)rows[k].interval_laps,
                     rows[k].interval_laps > 1 ? "s" : "");
        } else if (rows[k].interval_us >= 0) {
            snprintf(out, cap, "+%.3f s to P%u", (double)rows[k].interval_us / 1e6,
                     (unsigned)rows[k - 1].position);
        } else {
            break;
        }
        return;
    }
    snprintf(out, cap, "--");
}

/* Lap, position, times, gap, network: the top-left panel. */
static void draw_timing(racer_hud *h, rs_client *c, int64_t now_us)
{
    const rs_world *world = rs_client_world(c);
    uint8_t me = rs_client_car(c);
    rs_msg_race_state rs;
    rs_race_car_state st = {.last_lap_us = -1, .best_lap_us = -1};
    bool racing = world && me && rs_client_race_state(c, &rs) &&
                  rs_world_race_state(world, (rs_car_id){me}, &st) == RS_OK;
    int x = MARGIN + 10, y = MARGIN + 6, line = h->line_px;
    panel(h, MARGIN, MARGIN, 400, 6 * line + 12);
    char last[32], best[32], gap[64];
    racer_format_lap(st.last_lap_us, last, sizeof last);
    racer_format_lap(st.best_lap_us, best, sizeof best);
    gap_text(c, gap, sizeof gap);
    if (racing && st.status == RS_RACE_FINISHED)
        text_at(h, h->font, x, y, text_col, "LAP  finished");
    else if (racing)
        text_at(h, h->font, x, y, text_col, "LAP  %u/%u",
                (unsigned)(st.laps_completed + 1 > rs.laps ? rs.laps : st.laps_completed + 1),
                (unsigned)rs.laps);
    else
        text_at(h, h->font, x, y, text_col, "LAP  -");
    if (racing)
        text_at(h, h->font, x, y + line, text_col, "POS  %u/%u", (unsigned)st.position,
                (unsigned)rs_world_car_count(world));
    else
        text_at(h, h->font, x, y + line, text_col, "POS  -");
    text_at(h, h->font, x, y + 2 * line, text_col, "LAST %s", last);
    text_at(h, h->font, x, y + 3 * line, text_col, "BEST %s", best);
    text_at(h, h->font, x, y + 4 * line, text_col, "GAP  %s", gap);
    rs_client_stats s;
    rs_client_get_stats(c, now_us, &s);
    text_at(h, h->font, x, y + 5 * line, dim_col, "PING %.0f ms  ROLLBACKS %llu", s.rtt_ms,
            (unsigned long long)s.rollbacks);
}

/* Speed and gear: the bottom-right corner. */
static void draw_car_state(racer_hud *h, const rs_client *c, bool assist)
{
    const rs_world *world = rs_client_world(c);
    rs_car_state cs;
    if (!world || !rs_client_car(c) ||
        rs_world_car_state(world, (rs_car_id){rs_client_car(c)}, &cs) != RS_OK)
        return;
    int height_px;
    SDL_GetRendererOutputSize(h->r, NULL, &height_px);
    char gear[16];
    if (cs.gear < 0)
        snprintf(gear, sizeof gear, "R");
    else if (cs.gear == 0)
        snprintf(gear, sizeof gear, "N");
    else
        snprintf(gear, sizeof gear, "%d", cs.gear);
    int y = height_px - MARGIN - h->line_px - 8;
    int width_px;
    SDL_GetRendererOutputSize(h->r, &width_px, NULL);
    int rows = assist ? 2 : 1;
    panel(h, width_px - MARGIN - 300, y - 4 - (rows - 1) * h->line_px, 300,
          rows * h->line_px + 12);
    if (assist)
        text_at(h, h->font, -(MARGIN + 10), y - h->line_px, text_col, "STEERING ASSIST");
    text_at(h, h->font, -(MARGIN + 10), y, text_col, "%3.0f km/h  gear %s",
            cs.speed_m_s * 3.6, gear);
}

/* Lobby, countdown lights and numbers, "GO". */
static void draw_start(racer_hud *h, const rs_client *c)
{
    rs_msg_race_state rs;
    if (!rs_client_race_state(c, &rs))
        return;
    int w, hh;
    SDL_GetRendererOutputSize(h->r, &w, &hh);
    const rs_world *world = rs_client_world(c);
    if (rs.phase == RS_PHASE_LOBBY) {
        panel(h, w / 2 - 220, hh / 3 - 10, 440, h->line_px + 20);
        text_at(h, h->font, w / 2 - 200, hh / 3, text_col, "waiting for players...");
        return;
    }
    if (!world)
        return;
    double t_s = (double)rs_world_race_time_us(world) / 1e6;
    if (rs.phase == RS_PHASE_COUNTDOWN || (rs.phase == RS_PHASE_RACE && t_s < 0.0)) {
        /* Five red lights, one more each second of the last five. */
        int lit = 5 - (int)floor(-t_s);
        panel(h, w / 2 - 160, hh / 8 - 10, 320, 80);
        for (int i = 0; i < 5; i++) {
            SDL_SetRenderDrawColor(h->r, i < lit ? 230 : 60, i < lit ? 20 : 20, 20, 255);
            SDL_RenderFillRect(h->r, &(SDL_Rect){w / 2 - 145 + i * 60, hh / 8, 50, 60});
        }
        text_at(h, h->big, w / 2 - 30, hh / 8 + 70, text_col, "%d", (int)ceil(-t_s));
    } else if (rs.phase == RS_PHASE_RACE && t_s < 2.0) {
        text_at(h, h->big, w / 2 - 80, hh / 8 + 70, (SDL_Color){40, 230, 60, 255}, "GO!");
    }
}

/* The results table: RESULTS rows come in finishing order, then the cars
 * that did not finish (no finish time). */
static void draw_results(racer_hud *h, const rs_client *c, const rs_msg_results *res)
{
    const rs_proto_result_row *rows = res->rows;
    uint32_t n = res->count;
    int w, hh;
    SDL_GetRendererOutputSize(h->r, &w, &hh);
    int line = h->line_px, x = w / 2 - 300, y = hh / 2 - (int)(n + 2) * line / 2;
    panel(h, x - 20, y - 14, 600, (int)(n + 2) * line + 28);
    text_at(h, h->font, x, y, text_col, "RESULTS  race %u", (unsigned)res->race_number);
    text_at(h, h->font, x, y + line, dim_col, "POS  DRIVER            LAPS  FINISH     BEST");
    for (uint32_t i = 0; i < n; i++) {
        char name[RS_PROTO_NAME_MAX + 8], fin[32], best[32], pos[8] = "DNF";
        racer_car_name(c, rows[i].car, name, sizeof name);
        racer_format_lap(rows[i].finish_us, fin, sizeof fin);
        racer_format_lap(rows[i].best_lap_us, best, sizeof best);
        if (rows[i].finish_us >= 0)
            snprintf(pos, sizeof pos, "P%u", (unsigned)rows[i].position);
        text_at(h, h->font, x, y + (int)(i + 2) * line,
                rows[i].car == rs_client_car(c) ? text_col : dim_col, "%-4s %-17.17s %4u  %-9s  %s",
                pos, name, (unsigned)rows[i].laps, fin, best);
    }
}

void racer_hud_draw(racer_hud *h, rs_client *c, const racer_game *g, bool assist, int64_t now_us)
{
    if (rs_client_get_state(c) != RS_CLIENT_CONNECTED) {
        panel(h, MARGIN, MARGIN, 330, h->line_px + 12);
        text_at(h, h->font, MARGIN + 10, MARGIN + 6, text_col, "connecting...");
        return;
    }
    draw_timing(h, c, now_us);
    draw_car_state(h, c, assist);
    draw_start(h, c);
    if (g->have_results)
        draw_results(h, c, &g->results);
}
