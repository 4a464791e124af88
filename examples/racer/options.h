/* racer's command line. */
#ifndef RACER_OPTIONS_H
#define RACER_OPTIONS_H

#include <stdint.h>

typedef struct racer_options {
    const char *host;       /* default 127.0.0.1 */
    uint32_t port;          /* default 27960 */
    const char *name;       /* player name, default "racer" */
    const char *token;      /* registered player's token, NULL = guest */
    const char *room;       /* NULL = the server's default room */
    const char *password;   /* room password, NULL = none */
    const char *server_key; /* pin the server's key (raceserver --print-public-key) */
    uint32_t width, height; /* window size, default 1280 x 720 */
    const char *script;     /* timed key presses (script.h), NULL = none */
    const char *screenshot; /* BMP written at a scripted time or at exit, NULL = none */
    const char *font;       /* TTF file for the HUD */
    uint32_t exit_after_laps; /* 0 = never */
    uint32_t timeout_s;     /* 0 = none */
} racer_options;

/* Fills *o from argv. Returns -1 to go on, or the exit status (0 after
 * --help, 2 after a usage error, both already printed). */
int racer_options_parse(int argc, char **argv, racer_options *o);

#endif
