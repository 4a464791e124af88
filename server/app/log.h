/*
 * raceserver's log: one line per message on stderr,
 * "YYYY-MM-DDTHH:MM:SSZ LEVEL message" (UTC), filtered by level. The
 * format is part of the operator interface (docs/RACESERVER.md): the
 * loadtest tool parses the stats line from it.
 *
 * The level is process-wide (one program, one stderr); log calls may come
 * from any thread (each line is written with one fprintf).
 */
#ifndef RS_APP_LOG_H
#define RS_APP_LOG_H

#include <stdbool.h>

typedef enum rs_log_level {
    RS_LOG_ERROR = 0,
    RS_LOG_WARN = 1,
    RS_LOG_INFO = 2,
    RS_LOG_DEBUG = 3
} rs_log_level;

/* Sets the most verbose level that is written. Default RS_LOG_INFO. */
void rs_log_set_level(rs_log_level level);

/* True when messages of level are written (to skip building costly ones). */
bool rs_log_enabled(rs_log_level level);

/* Parses "error", "warn", "info" or "debug". False for anything else. */
bool rs_log_level_parse(const char *text, rs_log_level *out);

/* The level's name as it appears in the log ("INFO"). */
const char *rs_log_level_name(rs_log_level level);

/* Writes one line if level is enabled. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
void rs_logf(rs_log_level level, const char *fmt, ...);

#endif
