/*
 * raceserver's console (console.h).
 */
#include "console.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#include "racesim/room.h"

void rs_console_init(rs_console *c, int fd)
{
    memset(c, 0, sizeof *c);
    c->fd = fd;
}

static bool announce(rs_server *srv, const char *args)
{
    const char *room = NULL;
    size_t room_len = 0;
    if (args[0] == '@') {
        room = args + 1;
        room_len = strcspn(room, " ");
        args = room + room_len;
        while (*args == ' ')
            args++;
    }
    if (!args[0]) {
        rs_logf(RS_LOG_WARN, "console: announce what? (announce [@ROOM] TEXT)");
        return false;
    }
    uint32_t sent = 0;
    for (uint32_t i = 0; i < rs_server_room_count(srv); i++) {
        rs_room *r = rs_server_room(srv, i);
        const char *name = rs_room_name(r);
        if (room && (strlen(name) != room_len || strncmp(name, room, room_len) != 0))
            continue;
        if (!rs_room_announce(r, args)) {
            rs_logf(RS_LOG_WARN, "console: the text breaks the chat rules (control or "
                                 "bidirectional characters, or over 200 bytes): not sent");
            return false;
        }
        sent++;
    }
    if (sent == 0) {
        rs_logf(RS_LOG_WARN, "console: no room named '%.*s'", (int)room_len, room);
        return false;
    }
    return true;
}

bool rs_console_command(rs_server *srv, const char *line)
{
    while (*line == ' ')
        line++;
    if (!line[0])
        return true; /* an empty line is no mistake */
    if (strncmp(line, "announce", 8) == 0 && (line[8] == ' ' || line[8] == '\0')) {
        const char *args = line + 8;
        while (*args == ' ')
            args++;
        return announce(srv, args);
    }
    rs_logf(RS_LOG_WARN, "console: unknown command; commands: announce [@ROOM] TEXT");
    return false;
}

void rs_console_poll(rs_console *c, rs_server *srv)
{
    while (!c->closed) {
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP)))
            return;
        char buf[256];
        ssize_t n = read(c->fd, buf, sizeof buf);
        if (n <= 0) {
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return;
            c->closed = true;
            return;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n') {
                c->line[c->len] = '\0';
                if (c->len && c->line[c->len - 1] == '\r')
                    c->line[c->len - 1] = '\0';
                if (c->overlong)
                    rs_logf(RS_LOG_WARN, "console: a line over %zu bytes was dropped",
                            sizeof c->line - 1);
                else
                    rs_console_command(srv, c->line);
                c->len = 0;
                c->overlong = false;
            } else if (c->len + 1 < sizeof c->line) {
                c->line[c->len++] = buf[i];
            } else {
                c->overlong = true;
            }
        }
    }
}
