#include "input.h"

#include <math.h>
#include <stdio.h>

/* Keyboard ramps, per second: steering builds up over about 0.4 s and
 * returns to centre faster, so a tap is a small correction and a held key a
 * full turn; pedals take a tenth of a second. */
#define STEER_RATE 2.5
#define STEER_RETURN_RATE 5.0
#define PEDAL_RATE 10.0
/* The keyboard's full lock narrows with speed (full at rest, half at this
 * speed, a fifth at four times it): a digital key cannot ask for a little
 * steering, and at speed the tyres can use only a little. */
#define STEER_HALF_SPEED_M_S 10.0
#define STICK_DEADZONE 0.12
/* A shift request is held this long at least, so that a tap shorter than a
 * tick still reaches one tick (the world shifts on the button's rising edge). */
#define SHIFT_HOLD_US 60000

void racer_input_init(racer_input *in)
{
    *in = (racer_input){0};
}

static void open_first_pad(racer_input *in, int device_index)
{
    if (in->pad || !SDL_IsGameController(device_index))
        return;
    in->pad = SDL_GameControllerOpen(device_index);
    if (in->pad)
        printf("controller: %s\n", SDL_GameControllerName(in->pad));
}

static bool handle_key(racer_input *in, SDL_Keycode key, bool down, int64_t now_us)
{
    switch (key) {
    case SDLK_LEFT: case SDLK_a: in->left = down; return true;
    case SDLK_RIGHT: case SDLK_d: in->right = down; return true;
    case SDLK_UP: case SDLK_w: in->throttle = down; return true;
    case SDLK_DOWN: case SDLK_s: in->brake = down; return true;
    case SDLK_SPACE: in->handbrake = down; return true;
    case SDLK_e:
        if (down && !in->shift_up)
            in->shift_up_until_us = now_us + SHIFT_HOLD_US;
        in->shift_up = down;
        return true;
    case SDLK_q:
        if (down && !in->shift_down)
            in->shift_down_until_us = now_us + SHIFT_HOLD_US;
        in->shift_down = down;
        return true;
    default:
        return false;
    }
}

bool racer_input_handle_event(racer_input *in, const SDL_Event *ev, int64_t now_us)
{
    switch (ev->type) {
    case SDL_KEYDOWN:
    case SDL_KEYUP:
        return handle_key(in, ev->key.keysym.sym, ev->type == SDL_KEYDOWN, now_us);
    case SDL_CONTROLLERDEVICEADDED:
        open_first_pad(in, ev->cdevice.which);
        return true;
    case SDL_CONTROLLERDEVICEREMOVED:
        if (in->pad && SDL_JoystickInstanceID(SDL_GameControllerGetJoystick(in->pad)) ==
                           ev->cdevice.which) {
            SDL_GameControllerClose(in->pad);
            in->pad = NULL;
        }
        return true;
    case SDL_CONTROLLERBUTTONDOWN:
        if (ev->cbutton.button == SDL_CONTROLLER_BUTTON_RIGHTSHOULDER)
            in->shift_up_until_us = now_us + SHIFT_HOLD_US;
        else if (ev->cbutton.button == SDL_CONTROLLER_BUTTON_LEFTSHOULDER)
            in->shift_down_until_us = now_us + SHIFT_HOLD_US;
        return true;
    default:
        return false;
    }
}

static double approach(double value, double target, double rate, double dt_s)
{
    double step = rate * dt_s;
    if (value < target)
        return value + step < target ? value + step : target;
    return value - step > target ? value - step : target;
}

/* The controller's axis as 0..1 (triggers) or -1..1 (sticks), with a dead
 * zone around rest. */
static double pad_axis(SDL_GameController *pad, SDL_GameControllerAxis axis)
{
    if (!pad)
        return 0.0;
    double v = SDL_GameControllerGetAxis(pad, axis) / 32767.0;
    if (fabs(v) < STICK_DEADZONE)
        return 0.0;
    return v > 1.0 ? 1.0 : v < -1.0 ? -1.0 : v;
}

/* Cars start in Drive with the automatic gearbox, which shifts by itself
 * and ignores the shift buttons: there, shift down at a standstill selects
 * reverse and shift up selects Drive again (a request of gear 1 means Drive
 * to the automatic box; see docs/CLIENT_SDK.md, "Gears"). */
static int8_t automatic_selector(int gear, double speed_m_s, bool up, bool down)
{
    if (down && gear >= 1 && speed_m_s < 1.0)
        return RS_GEAR_REVERSE;
    if (up && gear <= 0)
        return 1;
    return RS_GEAR_KEEP;
}

rs_input racer_input_frame(racer_input *in, double dt_s, int64_t now_us, double speed_m_s,
                           int gear)
{
    double target = (in->left ? 1.0 : 0.0) - (in->right ? 1.0 : 0.0);
    target *= STEER_HALF_SPEED_M_S / (STEER_HALF_SPEED_M_S + fabs(speed_m_s));
    bool centring = target == 0.0 || (target > 0.0) != (in->steer > 0.0);
    in->steer = approach(in->steer, target, centring ? STEER_RETURN_RATE : STEER_RATE, dt_s);
    in->throttle_level = approach(in->throttle_level, in->throttle ? 1.0 : 0.0, PEDAL_RATE, dt_s);
    in->brake_level = approach(in->brake_level, in->brake ? 1.0 : 0.0, PEDAL_RATE, dt_s);

    /* Keys win while held; otherwise the controller (stick right is +x, our
     * steering's + is left). */
    double steer = in->left || in->right || in->steer != 0.0
                       ? in->steer
                       : -pad_axis(in->pad, SDL_CONTROLLER_AXIS_LEFTX);
    double throttle = fmax(in->throttle_level, pad_axis(in->pad, SDL_CONTROLLER_AXIS_TRIGGERRIGHT));
    double brake = fmax(in->brake_level, pad_axis(in->pad, SDL_CONTROLLER_AXIS_TRIGGERLEFT));
    bool handbrake = in->handbrake ||
                     (in->pad && SDL_GameControllerGetButton(in->pad, SDL_CONTROLLER_BUTTON_B));

    rs_input out = rs_input_quantise(steer, throttle, brake, 0.0, handbrake ? 1.0 : 0.0);
    if (in->shift_up || now_us < in->shift_up_until_us)
        out.buttons |= RS_BUTTON_SHIFT_UP;
    if (in->shift_down || now_us < in->shift_down_until_us)
        out.buttons |= RS_BUTTON_SHIFT_DOWN;
    out.gear = automatic_selector(gear, speed_m_s, out.buttons & RS_BUTTON_SHIFT_UP,
                                  out.buttons & RS_BUTTON_SHIFT_DOWN);
    return out;
}

void racer_input_close(racer_input *in)
{
    if (in->pad)
        SDL_GameControllerClose(in->pad);
    in->pad = NULL;
}
