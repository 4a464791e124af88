/*
 * raceserver's console: commands an operator types on its standard input
 * (docs/RACESERVER.md, "The console"). Read without blocking between the
 * server's steps; a closed or absent input (a service's /dev/null) simply
 * ends it.
 *
 *   announce TEXT          every room's players get TEXT as an announcement
 *   announce @ROOM TEXT    only that room's
 */
#ifndef RS_APP_CONSOLE_H
#define RS_APP_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

#include "server.h"

typedef struct rs_console {
    int fd;            /* usually 0 */
    bool closed;       /* end of input, or an error: not read again */
    char line[512];    /* a line being gathered */
    size_t len;
    bool overlong;     /* the line being gathered outgrew line: dropped at its end */
} rs_console;

void rs_console_init(rs_console *c, int fd);

/* Reads what is waiting (never blocks) and carries out each whole line. */
void rs_console_poll(rs_console *c, rs_server *srv);

/* Carries out one command line (without its newline); false with a log
 * line when it is not a command. */
bool rs_console_command(rs_server *srv, const char *line);

#endif
