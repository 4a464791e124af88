/*
 * The headless bot of bot.h: an SDK client plus a driver. The AI driver
 * needs a racing line for the car it drives on the room's track; both come
 * from the server (rs_client_track, rs_client_car_params), so the line is
 * rebuilt whenever a new world's track or car differs from the last one.
 */
#include "racesim/bot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/driver.h"

struct rs_bot {
    rs_client *client;
    bool ai;
    rs_racing_line *line;
    rs_driver *driver;
    uint64_t line_track_hash, line_car_hash;
    uint32_t seed;
    double pace;    /* 0: the driver's default */
    /* the light driver */
    uint32_t rng;
    bool light_started;
    int64_t light_period;
    int32_t light_steer;
    uint8_t light_throttle, light_brake;
    rs_bot_event_fn fn;
    void *fn_ctx;
    rs_bot_stats st;
};

/* The client asks for each predicted tick's input. */
static rs_input bot_input(void *ctx, const rs_world *world, rs_car_id car, uint64_t tick)
{
    (void)tick;
    rs_bot *b = ctx;
    if (b->driver)
        return rs_driver_update(b->driver, world, car);
    /* No line (yet): stand still rather than drive blind into a wall. */
    return rs_input_quantise(0.0, 0.0, 1.0, 0.0, 0.0);
}

/* A new world: make sure the driver has a line for this track and car. */
static void prepare_driver(rs_bot *b)
{
    uint8_t car = rs_client_car(b->client);
    const rs_track *track = rs_client_track(b->client);
    const rs_car_params *params = rs_client_car_params(b->client, car);
    if (!b->ai || !car || !track || !params)
        return;
    uint64_t th = rs_track_hash(track), ch = rs_car_params_hash(params);
    if (b->line && th == b->line_track_hash && ch == b->line_car_hash) {
        /* Same line; a fresh driver forgets the last race's state. */
        rs_driver_destroy(b->driver);
        b->driver = NULL;
    } else {
        rs_driver_destroy(b->driver);
        b->driver = NULL;
        rs_racing_line_destroy(b->line);
        b->line = NULL;
        if (rs_racing_line_build(track, params, NULL, &b->line) != RS_OK)
            return;
        b->line_track_hash = th;
        b->line_car_hash = ch;
        b->st.line_builds++;
    }
    rs_driver_options o = rs_driver_options_default();
    o.seed = b->seed;
    if (b->pace > 0.0)
        o.pace = b->pace;
    if (rs_driver_create(b->line, &o, &b->driver) != RS_OK)
        b->driver = NULL;
}

static rs_client_status bot_new(const rs_client_config *cfg, bool ai, rs_bot **out,
                                rs_client_config *ccfg)
{
    *out = NULL;
    if (!cfg)
        return RS_CLIENT_ERR_ARG;
    rs_bot *b = calloc(1, sizeof *b);
    if (!b)
        return RS_CLIENT_ERR_NOMEM;
    b->ai = ai;
    /* A seed from the name, so bots of one field drive a little differently. */
    uint32_t h = 2166136261u;
    for (const char *p = cfg->name ? cfg->name : ""; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    b->seed = h;
    b->rng = h | 1u;
    *ccfg = *cfg;
    if (ai) {
        ccfg->input_fn = bot_input;
        ccfg->input_ctx = b;
    } else {
        ccfg->input_fn = NULL;
    }
    *out = b;
    return RS_CLIENT_OK;
}

/* xorshift32: the light driver's own dice (never the simulation's). */
static uint32_t bot_rand(rs_bot *b)
{
    uint32_t x = b->rng ? b->rng : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b->rng = x;
    return x;
}

/* The light driver costs next to nothing, yet its controls change as often
 * as a real driver's (the AI's race in test_protocol_budget: steering on
 * about 95 % of ticks, throttle and brake on about a quarter), so a load
 * test's FRAMEs and INPUTs are as large as a real race's. It weaves gently
 * around straight ahead at part throttle with short braking phases; the car
 * meets walls sooner or later, which the server handles like any crash. The
 * input changes once per 60 Hz period of the caller's clock. */
static void light_input(rs_bot *b, int64_t now_us)
{
    int64_t period = now_us / 16667;
    if (b->light_period == period && b->light_started)
        return;
    b->light_period = period;
    b->light_started = true;
    int32_t step = (int32_t)(bot_rand(b) % 1601u) - 800;
    b->light_steer += step - b->light_steer / 16; /* a random walk pulled back to 0 */
    if (b->light_steer > 12000)
        b->light_steer = 12000;
    if (b->light_steer < -12000)
        b->light_steer = -12000;
    if (bot_rand(b) % 4u == 0) {
        bool braking = (period / 60) % 5 == 4; /* one second in five */
        b->light_throttle = braking ? 0 : (uint8_t)(120u + bot_rand(b) % 100u);
        b->light_brake = braking ? (uint8_t)(100u + bot_rand(b) % 100u) : 0;
    }
    rs_input in = rs_input_default();
    in.steer = (int16_t)b->light_steer;
    in.throttle = b->light_throttle;
    in.brake = b->light_brake;
    rs_client_set_input(b->client, &in);
}

/* Both ways of making a bot: over ENet to host:port, or (custom) over the
 * caller's transport t. */
static rs_client_status bot_create(const rs_client_config *cfg, const char *host, uint16_t port,
                                   bool custom, const rs_client_transport *t, bool ai,
                                   int64_t now_us, rs_bot **out, char *err, size_t err_len)
{
    if (!out)
        return RS_CLIENT_ERR_ARG;
    rs_client_config ccfg;
    rs_bot *b;
    rs_client_status st = bot_new(cfg, ai, &b, &ccfg);
    if (st != RS_CLIENT_OK)
        return st;
    st = custom ? rs_client_create_custom(&ccfg, t, now_us, &b->client, err, err_len)
                : rs_client_connect(&ccfg, host, port, now_us, &b->client, err, err_len);
    if (st != RS_CLIENT_OK) {
        free(b);
        return st;
    }
    light_input(b, now_us);
    *out = b;
    return RS_CLIENT_OK;
}

rs_client_status rs_bot_create(const rs_client_config *cfg, const char *host, uint16_t port,
                               bool ai, int64_t now_us, rs_bot **out, char *err, size_t err_len)
{
    return bot_create(cfg, host, port, false, NULL, ai, now_us, out, err, err_len);
}

rs_client_status rs_bot_create_custom(const rs_client_config *cfg, const rs_client_transport *t,
                                      bool ai, int64_t now_us, rs_bot **out, char *err,
                                      size_t err_len)
{
    return bot_create(cfg, NULL, 0, true, t, ai, now_us, out, err, err_len);
}

void rs_bot_set_event_fn(rs_bot *bot, rs_bot_event_fn fn, void *ctx)
{
    if (!bot)
        return;
    bot->fn = fn;
    bot->fn_ctx = ctx;
}

static void bot_note(rs_bot *b, const rs_client_event *ev)
{
    switch (ev->type) {
    case RS_CLIENT_EV_CONNECTED:
        b->st.connected = true;
        break;
    case RS_CLIENT_EV_WORLD_READY:
        prepare_driver(b);
        break;
    case RS_CLIENT_EV_RACE_STATE:
        if (ev->u.race_state.phase == RS_PHASE_COUNTDOWN) {
            b->st.laps = 0;
            b->st.finished = false;
        }
        break;
    case RS_CLIENT_EV_LAP:
        if (ev->u.lap.car == rs_client_car(b->client) && ev->u.lap.car != 0)
            b->st.laps++;
        break;
    case RS_CLIENT_EV_FINISH:
        b->st.finished = true;
        break;
    case RS_CLIENT_EV_RESULTS:
        b->st.races_finished++;
        break;
    case RS_CLIENT_EV_ERROR:
        if (ev->u.error.code == RS_CLIENT_ERROR_DESYNC)
            b->st.desync_errors++;
        break;
    case RS_CLIENT_EV_REFUSED:
    case RS_CLIENT_EV_DISCONNECTED:
        b->st.connected = false;
        b->st.closed = true;
        break;
    default:
        break;
    }
}

bool rs_bot_update(rs_bot *bot, int64_t now_us)
{
    if (!bot)
        return false;
    if (!bot->ai)
        light_input(bot, now_us);
    rs_client_update(bot->client, now_us);
    rs_client_event ev;
    while (rs_client_poll_event(bot->client, &ev)) {
        bot_note(bot, &ev);
        if (bot->fn)
            bot->fn(bot->fn_ctx, bot, &ev);
    }
    return !bot->st.closed;
}

rs_client *rs_bot_client(rs_bot *bot)
{
    return bot ? bot->client : NULL;
}

void rs_bot_get_stats(const rs_bot *bot, rs_bot_stats *out)
{
    if (bot && out)
        *out = bot->st;
}

void rs_bot_disconnect(rs_bot *bot, int64_t now_us)
{
    if (bot)
        rs_client_disconnect(bot->client, now_us);
}

void rs_bot_destroy(rs_bot *bot)
{
    if (!bot)
        return;
    rs_client_destroy(bot->client);
    rs_driver_destroy(bot->driver);
    rs_racing_line_destroy(bot->line);
    free(bot);
}

void rs_bot_set_pace(rs_bot *bot, double pace)
{
    if (!bot || !(pace > 0.0 && pace <= 1.0) || pace == bot->pace)
        return;
    bot->pace = pace;
    /* The driver takes it when it is made: make it again on the same line. */
    rs_driver_destroy(bot->driver);
    bot->driver = NULL;
    if (bot->line) {
        rs_driver_options o = rs_driver_options_default();
        o.seed = bot->seed;
        o.pace = pace;
        if (rs_driver_create(bot->line, &o, &bot->driver) != RS_OK)
            bot->driver = NULL;
    }
}
