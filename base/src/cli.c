/*
 * The argument helpers every command-line tool here shares
 * (racesim/base/cli.h):
 * racesim and racectl print the same kinds of usage errors and parse
 * numbers the same strict way. Messages start with the program's name.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/base/cli.h"

static const char *program = "racesim";

void rs_cli_set_program(const char *name) { program = name; }

int rs_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s %s: ", program, cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see %s %s --help)\n", program, cmd);
    return RS_EXIT_USAGE;
}

int rs_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s %s: ", program, cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return RS_EXIT_FAIL;
}

int rs_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

const char *rs_opt_value(const char *cmd, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        rs_usage_error(cmd, "option %s needs a value", argv[*i]);
        return NULL;
    }
    *i += 1;
    return argv[*i];
}

int rs_parse_double(const char *cmd, const char *opt, const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(v - v == 0.0)) /* rejects NaN and Inf */
        return rs_usage_error(cmd, "%s: '%s' is not a finite number", opt, text);
    *out = v;
    return 0;
}

int rs_parse_u32(const char *cmd, const char *opt, const char *text, uint32_t lo, uint32_t hi,
                 uint32_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || text[0] == '-' || v < lo || v > hi)
        return rs_usage_error(cmd, "%s: '%s' is not an integer in %u..%u", opt, text,
                              (unsigned)lo, (unsigned)hi);
    *out = (uint32_t)v;
    return 0;
}
