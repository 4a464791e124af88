/*
 * The golden determinism scenario (see golden_scenario.h): 8 cars, both
 * shipped definitions, automatic and manual gearboxes, a manual clutch,
 * full-throttle launches, weaving, hard braking, handbrake turns and a stop,
 * so every part of the model contributes to the hash.
 */
#include "golden_scenario.h"

#include <stdio.h>
#include <stdlib.h>

struct rs_golden {
    rs_car_params *params[2];
    rs_world *world;
};

/* A small integer hash: scripted "noise" that is identical everywhere. */
static uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* Triangle wave in [-amp, amp] with the given period in ticks. */
static int triangle(uint64_t tick, uint32_t period, int amp)
{
    uint32_t ph = (uint32_t)(tick % period);
    int64_t v = (int64_t)ph * 4 * amp / (int64_t)period; /* 0 .. 4 amp */
    if (v > 2 * amp)
        v = 4 * amp - v;
    return (int)(v - amp);
}

rs_input rs_golden_input(uint32_t car, uint64_t tick)
{
    rs_input in = rs_input_default();
    uint32_t sec = (uint32_t)(tick / 60u);
    uint32_t noise = mix32(car * 7919u + (uint32_t)(tick / 20u));
    int manual = car % 4 == 1 || car % 4 == 2;

    if (sec < 2) {
        in.brake = 200; /* parked, settling on the suspension */
        in.gear = 1;
    } else if (sec < 14) {
        in.throttle = (uint8_t)(car % 3 == 0 ? 255 : 160 + noise % 96);
        in.steer = (int16_t)(triangle(tick, 240u + car * 30u, 2500 + (int)(car * 300u)));
        if (manual && (tick % 150u) < 6u)
            in.buttons = RS_BUTTON_SHIFT_UP;
    } else if (sec < 20) {
        /* Hard braking with a kink of steering, then back on the power. */
        in.brake = (uint8_t)(sec < 17 ? 255 : 0);
        in.throttle = (uint8_t)(sec < 17 ? 0 : 200);
        in.steer = (int16_t)(triangle(tick, 90u, 6000));
        if (manual && (tick % 60u) < 3u && sec < 17)
            in.buttons = RS_BUTTON_SHIFT_DOWN;
    } else if (sec < 32) {
        /* Weaving with random pedal stabs. */
        in.steer = (int16_t)((int)(noise % 24000u) - 12000);
        in.throttle = (uint8_t)(noise >> 8);
        in.brake = (uint8_t)((noise >> 16) % 4u == 0 ? (noise >> 20) & 0xff : 0);
        in.handbrake = (uint8_t)(sec == 27 && car % 2 == 0 ? 255 : 0);
        if (manual && (tick % 97u) == 0u)
            in.buttons = (noise & 1u) ? RS_BUTTON_SHIFT_UP : RS_BUTTON_SHIFT_DOWN;
    } else if (sec < 40) {
        /* Stop, then reverse a little (car 3 and 7), then drive again. */
        in.brake = (uint8_t)(sec < 36 ? 255 : 0);
        if (sec >= 36 && car % 4 == 3) {
            in.gear = RS_GEAR_REVERSE;
            in.throttle = 120;
            in.steer = 8000;
        } else if (sec >= 36) {
            in.gear = 1;
            in.throttle = 180;
        }
    } else if (sec < 52) {
        in.gear = (int8_t)(car % 4 == 3 && sec < 41 ? RS_GEAR_NEUTRAL : RS_GEAR_KEEP);
        if (car % 4 == 3 && sec >= 41 && sec < 42)
            in.gear = 1;
        in.throttle = (uint8_t)(255 - (noise % 64u));
        in.steer = (int16_t)(triangle(tick, 600u, 9000) / (1 + (int)(car % 3u)));
        if (car == 2)
            in.clutch = (uint8_t)(tick % 180u < 20u ? 255 : 0); /* manual clutch stabs */
        if (manual && (tick % 120u) == 0u)
            in.buttons = RS_BUTTON_SHIFT_UP;
    } else {
        /* Coast, then brake to a stop and stay parked. */
        in.brake = (uint8_t)(sec < 55 ? 0 : 255);
        in.steer = 0;
    }
    return in;
}

rs_status rs_golden_create(const char *data_dir, rs_golden **out, char *err, size_t err_len)
{
    static const char *files[2] = {"cars/c5.json", "cars/formula.json"};
    rs_golden *g = calloc(1, sizeof *g);
    rs_status st = RS_ERR_NOMEM;
    *out = NULL;
    if (err && err_len)
        err[0] = '\0';
    if (!g)
        goto fail;
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", data_dir, files[i]);
        st = rs_car_params_load(path, &g->params[i], err, err_len);
        if (st != RS_OK)
            goto fail;
    }
    rs_world_def def = rs_world_default();
    def.max_cars = RS_GOLDEN_CARS;
    st = rs_world_create(&def, &g->world);
    if (st != RS_OK)
        goto fail;
    for (uint32_t c = 0; c < RS_GOLDEN_CARS; c++) {
        rs_car_spawn sp = rs_car_spawn_default();
        sp.pos_m[0] = 0.0;
        sp.pos_m[1] = 40.0 * c;
        sp.yaw_rad = 0.25 * (double)c;
        sp.transmission = (c % 4 == 1 || c % 4 == 2) ? RS_TRANSMISSION_MANUAL : RS_TRANSMISSION_AUTO;
        sp.clutch_mode = c == 2 ? RS_CLUTCH_MANUAL : RS_CLUTCH_AUTO;
        st = rs_world_add_car(g->world, g->params[c % 2], &sp, NULL);
        if (st != RS_OK)
            goto fail;
    }
    *out = g;
    return RS_OK;
fail:
    if (err && err_len && err[0] == '\0')
        snprintf(err, err_len, "golden scenario: %s", rs_status_str(st));
    rs_golden_destroy(g);
    return st;
}

void rs_golden_destroy(rs_golden *g)
{
    if (!g)
        return;
    rs_world_destroy(g->world);
    rs_car_params_destroy(g->params[0]);
    rs_car_params_destroy(g->params[1]);
    free(g);
}

rs_world *rs_golden_world(rs_golden *g) { return g->world; }

rs_status rs_golden_step(rs_golden *g)
{
    uint64_t tick = rs_world_tick(g->world);
    for (uint32_t c = 0; c < RS_GOLDEN_CARS; c++) {
        rs_input in = rs_golden_input(c, tick);
        rs_car_id id = {(uint16_t)(c + 1)};
        rs_world_set_input(g->world, id, &in);
    }
    return rs_world_step(g->world);
}
