/*
 * raceserver's log (log.h). A line is formatted into a local buffer first
 * and written with a single call, so lines from different threads do not
 * interleave.
 */
#define _POSIX_C_SOURCE 200809L /* gmtime_r */

#include "log.h"
#include "racesim/base/clock.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The program's one log level: raceserver is a single program writing to
 * its single stderr. */
static rs_log_level g_level = RS_LOG_INFO;

void rs_log_set_level(rs_log_level level)
{
    g_level = level;
}

bool rs_log_enabled(rs_log_level level)
{
    return level <= g_level;
}

static const char *const level_names[] = {"ERROR", "WARN", "INFO", "DEBUG"};
static const char *const level_words[] = {"error", "warn", "info", "debug"};

bool rs_log_level_parse(const char *text, rs_log_level *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(text, level_words[i]) == 0) {
            *out = (rs_log_level)i;
            return true;
        }
    return false;
}

const char *rs_log_level_name(rs_log_level level)
{
    return level >= RS_LOG_ERROR && level <= RS_LOG_DEBUG ? level_names[level] : "?";
}

void rs_logf(rs_log_level level, const char *fmt, ...)
{
    if (!rs_log_enabled(level))
        return;
    char line[2048];
    size_t n = rs_time_format_utc(rs_wall_time_s(), "%Y-%m-%dT%H:%M:%SZ ", line, sizeof line);
    n += (size_t)snprintf(line + n, sizeof line - n, "%s ", rs_log_level_name(level));
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - n, fmt, ap);
    va_end(ap);
    if (m < 0)
        m = 0;
    n = n + (size_t)m < sizeof line - 1 ? n + (size_t)m : sizeof line - 2;
    line[n++] = '\n';
    line[n] = '\0';
    fputs(line, stderr);
}
