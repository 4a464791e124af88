#include "view.h"

#include <math.h>
#include <stdlib.h>

#include "palette.h"

/* Pixels per metre; 0 stands for the level that fits the whole track. */
static const double zoom_levels[] = {7.0, 3.5, 1.5, 0.0};
#define ZOOM_COUNT (sizeof zoom_levels / sizeof *zoom_levels)

static const SDL_Color car_colours[RACER_CAR_COLOUR_COUNT] = RACER_CAR_COLOURS;

void racer_view_init(racer_view *v, int width_px, int height_px)
{
    *v = (racer_view){.width_px = width_px, .height_px = height_px};
}

void racer_view_cycle_zoom(racer_view *v)
{
    v->zoom = (v->zoom + 1) % (unsigned)ZOOM_COUNT;
}

void racer_view_follow(racer_view *v, double x_m, double y_m)
{
    v->centre_m[0] = x_m;
    v->centre_m[1] = y_m;
}

static double scale(const racer_view *v)
{
    return zoom_levels[v->zoom] > 0.0 ? zoom_levels[v->zoom] : v->fit_px_per_m;
}

static SDL_FPoint to_screen(const racer_view *v, double x_m, double y_m)
{
    double k = scale(v);
    return (SDL_FPoint){(float)(v->width_px / 2.0 + (x_m - v->centre_m[0]) * k),
                        (float)(v->height_px / 2.0 - (y_m - v->centre_m[1]) * k)};
}

static SDL_Vertex vertex(SDL_FPoint p, SDL_Color colour)
{
    return (SDL_Vertex){p, colour, {0.0f, 0.0f}};
}

/* A filled quadrilateral a-b-c-d (in order around it), world metres. */
static void fill_quad(const racer_view *v, SDL_Renderer *r, double q[4][2], SDL_Color col)
{
    SDL_Vertex vx[4];
    for (int i = 0; i < 4; i++)
        vx[i] = vertex(to_screen(v, q[i][0], q[i][1]), col);
    static const int tri[6] = {0, 1, 2, 0, 2, 3};
    SDL_RenderGeometry(r, NULL, vx, 4, tri, 6);
}

/* A segment as a quad width_m wide, so it stays visible at every zoom. */
static void thick_segment(const racer_view *v, SDL_Renderer *r, double ax, double ay, double bx,
                          double by, double width_m, SDL_Color col)
{
    double dx = bx - ax, dy = by - ay, len = hypot(dx, dy);
    if (len <= 0.0)
        return;
    /* At least a pixel and a half wide on screen. */
    double half = fmax(width_m, 1.5 / scale(v)) / 2.0;
    double nx = -dy / len * half, ny = dx / len * half;
    double q[4][2] = {{ax + nx, ay + ny}, {bx + nx, by + ny}, {bx - nx, by - ny},
                      {ax - nx, ay - ny}};
    fill_quad(v, r, q, col);
}

/* Pixels per metre that fit the track's edges into the window. */
static double fit_scale(const racer_view *v)
{
    double lo[2] = {1e30, 1e30}, hi[2] = {-1e30, -1e30};
    for (uint32_t i = 0; i < v->points; i++) {
        const SDL_FPoint *e[2] = {&v->left_m[i], &v->right_m[i]};
        for (int k = 0; k < 2; k++) {
            lo[0] = fmin(lo[0], e[k]->x);
            lo[1] = fmin(lo[1], e[k]->y);
            hi[0] = fmax(hi[0], e[k]->x);
            hi[1] = fmax(hi[1], e[k]->y);
        }
    }
    if (hi[0] <= lo[0] || hi[1] <= lo[1])
        return 1.0;
    return 0.9 * fmin(v->width_px / (hi[0] - lo[0]), v->height_px / (hi[1] - lo[1]));
}

/* The edges of every centre-line point: the point plus or minus its widths
 * along the normal of the line through its neighbours. */
static void build_edges(racer_view *v, const rs_track *track)
{
    free(v->left_m);
    free(v->right_m);
    v->track_hash = rs_track_hash(track);
    v->have_edges = true;
    v->points = rs_track_point_count(track);
    v->left_m = calloc(v->points ? v->points : 1, sizeof *v->left_m);
    v->right_m = calloc(v->points ? v->points : 1, sizeof *v->right_m);
    if (!v->left_m || !v->right_m) {
        v->points = 0;
        return;
    }
    for (uint32_t i = 0; i < v->points; i++) {
        rs_track_point p, prev, next;
        rs_track_point_at(track, i, &p);
        rs_track_point_at(track, (i + v->points - 1) % v->points, &prev);
        rs_track_point_at(track, (i + 1) % v->points, &next);
        double dx = next.x_m - prev.x_m, dy = next.y_m - prev.y_m, len = hypot(dx, dy);
        double nx = len > 0.0 ? -dy / len : 0.0, ny = len > 0.0 ? dx / len : 0.0; /* left */
        v->left_m[i] = (SDL_FPoint){(float)(p.x_m + nx * p.width_left_m),
                                    (float)(p.y_m + ny * p.width_left_m)};
        v->right_m[i] = (SDL_FPoint){(float)(p.x_m - nx * p.width_right_m),
                                     (float)(p.y_m - ny * p.width_right_m)};
    }
    v->fit_px_per_m = fit_scale(v);
}

/* Whether any of the points' bounding box is on screen. */
static bool on_screen(const racer_view *v, const SDL_FPoint *p, int n)
{
    float x0 = p[0].x, x1 = p[0].x, y0 = p[0].y, y1 = p[0].y;
    for (int i = 1; i < n; i++) {
        x0 = fminf(x0, p[i].x);
        x1 = fmaxf(x1, p[i].x);
        y0 = fminf(y0, p[i].y);
        y1 = fmaxf(y1, p[i].y);
    }
    return x1 >= 0.0f && y1 >= 0.0f && x0 <= (float)v->width_px && y0 <= (float)v->height_px;
}

static SDL_Color rgb(Uint8 red, Uint8 green, Uint8 blue)
{
    return (SDL_Color){red, green, blue, 255};
}

void racer_view_draw_track(racer_view *v, SDL_Renderer *r, const rs_track *track)
{
    SDL_SetRenderDrawColor(r, RACER_RGB_GRASS, 255);
    SDL_RenderClear(r);
    if (!track)
        return;
    if (!v->have_edges || rs_track_hash(track) != v->track_hash)
        build_edges(v, track);
    const SDL_Color asphalt = rgb(RACER_RGB_ASPHALT), edge = rgb(RACER_RGB_EDGE);
    for (uint32_t i = 0; i < v->points; i++) {
        uint32_t j = (i + 1) % v->points;
        const SDL_FPoint *l0 = &v->left_m[i], *l1 = &v->left_m[j], *r0 = &v->right_m[i],
                         *r1 = &v->right_m[j];
        SDL_FPoint scr[4] = {to_screen(v, l0->x, l0->y), to_screen(v, l1->x, l1->y),
                             to_screen(v, r1->x, r1->y), to_screen(v, r0->x, r0->y)};
        if (!on_screen(v, scr, 4))
            continue;
        double q[4][2] = {{l0->x, l0->y}, {l1->x, l1->y}, {r1->x, r1->y}, {r0->x, r0->y}};
        fill_quad(v, r, q, asphalt);
        thick_segment(v, r, l0->x, l0->y, l1->x, l1->y, 0.3, edge);
        thick_segment(v, r, r0->x, r0->y, r1->x, r1->y, 0.3, edge);
    }
    for (uint32_t i = 0; i < rs_track_line_count(track); i++) {
        rs_track_line line;
        if (!rs_track_line_at(track, i, &line))
            continue;
        SDL_Color col = i == 0 ? rgb(RACER_RGB_START) : rgb(RACER_RGB_SECTOR);
        thick_segment(v, r, line.a_m[0], line.a_m[1], line.b_m[0], line.b_m[1],
                      i == 0 ? 1.2 : 0.4, col);
    }
    const SDL_Color barrier_col = rgb(RACER_RGB_BARRIER);
    for (uint32_t i = 0; i < rs_track_barrier_count(track); i++) {
        rs_track_barrier b;
        if (!rs_track_barrier_at(track, i, &b) || b.points < 2)
            continue;
        uint32_t segments = b.closed ? b.points : b.points - 1;
        for (uint32_t k = 0; k < segments; k++) {
            uint32_t n = (k + 1) % b.points;
            SDL_FPoint ends[2] = {to_screen(v, b.xy[2 * k], b.xy[2 * k + 1]),
                                  to_screen(v, b.xy[2 * n], b.xy[2 * n + 1])};
            if (on_screen(v, ends, 2))
                thick_segment(v, r, b.xy[2 * k], b.xy[2 * k + 1], b.xy[2 * n], b.xy[2 * n + 1],
                              0.6, barrier_col);
        }
    }
}

/* Heading of a body-to-world quaternion (w, x, y, z), radians from +x. */
static double yaw_of(const double q[4])
{
    return atan2(2.0 * (q[0] * q[3] + q[1] * q[2]), 1.0 - 2.0 * (q[2] * q[2] + q[3] * q[3]));
}

static void draw_car(const racer_view *v, SDL_Renderer *r, const rs_predict_pose *pose,
                     const rs_car_info *info, SDL_Color body, bool local)
{
    double yaw = yaw_of(pose->quat);
    double fx = cos(yaw), fy = sin(yaw), lx = -fy, ly = fx; /* forward, left */
    double x = pose->pos_m[0], y = pose->pos_m[1];
    double hl = info->length_m / 2.0, hw = info->width_m / 2.0;
    /* Corners front-left, front-right, rear-right, rear-left. */
    double c[4][2];
    const double sides[4][2] = {{1, 1}, {1, -1}, {-1, -1}, {-1, 1}};
    for (int i = 0; i < 4; i++) {
        c[i][0] = x + sides[i][0] * hl * fx + sides[i][1] * hw * lx;
        c[i][1] = y + sides[i][0] * hl * fy + sides[i][1] * hw * ly;
    }
    if (local) {
        /* A white frame around the player's car. */
        for (int i = 0; i < 4; i++) {
            const double *a = c[i], *b = c[(i + 1) % 4];
            thick_segment(v, r, a[0], a[1], b[0], b[1], 0.5, rgb(RACER_RGB_OUTLINE));
        }
    }
    fill_quad(v, r, c, body);
    /* A dark windscreen a third of the way back shows which way it points. */
    double w[4][2];
    const double glass[4][2] = {{0.45, 0.8}, {0.45, -0.8}, {0.1, -0.8}, {0.1, 0.8}};
    for (int i = 0; i < 4; i++) {
        w[i][0] = x + glass[i][0] * hl * fx + glass[i][1] * hw * lx;
        w[i][1] = y + glass[i][0] * hl * fy + glass[i][1] * hw * ly;
    }
    fill_quad(v, r, w, rgb(20, 24, 32));
}

void racer_view_draw_cars(const racer_view *v, SDL_Renderer *r, const rs_client *c,
                          int64_t now_us)
{
    const rs_world *world = rs_client_world(c);
    if (!world)
        return;
    uint32_t count = rs_world_car_count(world);
    uint8_t me = rs_client_car(c);
    /* The local car last, so it is on top. */
    for (uint32_t k = 0; k <= count; k++) {
        uint32_t car = k < count ? k + 1 : me;
        if (car == 0 || (k < count && car == me))
            continue;
        rs_predict_pose pose;
        rs_car_info info;
        const rs_car_params *params = rs_client_car_params(c, (uint8_t)car);
        if (!params || rs_car_params_info(params, &info) != RS_OK ||
            rs_client_pose(c, (uint8_t)car, now_us, &pose) != RS_CLIENT_OK)
            continue;
        draw_car(v, r, &pose, &info, car_colours[(car - 1) % RACER_CAR_COLOUR_COUNT], car == me);
    }
}

void racer_view_free(racer_view *v)
{
    free(v->left_m);
    free(v->right_m);
    *v = (racer_view){0};
}
