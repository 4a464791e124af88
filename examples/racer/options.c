#include "options.h"

#include <stdio.h>

#include "racesim/base/cli.h"

/* RACER_DEFAULT_FONT: the font CMake found (fonts-dejavu-core). */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: racer [--host H] [--port P] [--name N] [--token T] [--room R]\n"
            "             [--password S] [--server-key HEX] [--width W] [--height H]\n"
            "             [--script FILE] [--screenshot FILE.bmp] [--exit-after-laps N]\n"
            "             [--timeout S] [--font FILE.ttf]\n"
            "A top-down racing game on the racesim client SDK.\n"
            "Keys: arrows or WASD drive, E / Q shift up / down, Space handbrake,\n"
            "Z zoom, F2 steering assist, Esc quit; or a game controller (triggers,\n"
            "left stick, shoulders).\n"
            "--script feeds timed key presses (examples/racer/README.md);\n"
            "--exit-after-laps ends the game after N laps of your own (exit 0);\n"
            "--timeout ends it after S seconds (exit 1 if those laps were not done).\n");
}

int racer_options_parse(int argc, char **argv, racer_options *o)
{
    *o = (racer_options){.host = "127.0.0.1", .port = 27960, .name = "racer",
                         .width = 1280, .height = 720, .font = RACER_DEFAULT_FONT};
    const rs_cli_opt opts[] = {
        {"--host", NULL, 0, 0, &o->host},
        {"--port", &o->port, 1, 65535, NULL},
        {"--name", NULL, 0, 0, &o->name},
        {"--token", NULL, 0, 0, &o->token},
        {"--room", NULL, 0, 0, &o->room},
        {"--password", NULL, 0, 0, &o->password},
        {"--server-key", NULL, 0, 0, &o->server_key},
        {"--width", &o->width, 320, 7680, NULL},
        {"--height", &o->height, 240, 4320, NULL},
        {"--script", NULL, 0, 0, &o->script},
        {"--screenshot", NULL, 0, 0, &o->screenshot},
        {"--exit-after-laps", &o->exit_after_laps, 0, 1000, NULL},
        {"--timeout", &o->timeout_s, 0, 86400, NULL},
        {"--font", NULL, 0, 0, &o->font},
    };
    return rs_cli_parse_opts("racer", argc, argv, opts, sizeof opts / sizeof *opts, usage);
}
