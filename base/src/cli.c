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

/* "<program> <cmd>: <message>" (or "<program>: <message>") to stderr. */
static void vsay(const char *cmd, const char *fmt, va_list ap)
{
    if (cmd)
        fprintf(stderr, "%s %s: ", program, cmd);
    else
        fprintf(stderr, "%s: ", program);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int rs_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "(see %s%s%s --help)\n", program, cmd ? " " : "", cmd ? cmd : "");
    return RS_EXIT_USAGE;
}

int rs_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(cmd, fmt, ap);
    va_end(ap);
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

int rs_cli_parse_opts(const char *name, int argc, char **argv, const rs_cli_opt *opts,
                      size_t n, void (*usage)(FILE *))
{
    rs_cli_set_program(name);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (rs_is_help(a)) {
            usage(stdout);
            return RS_EXIT_OK;
        }
        size_t k = 0;
        while (k < n && strcmp(a, opts[k].name) != 0)
            k++;
        if (k == n)
            return rs_usage_error(NULL, "unknown option '%s'", a);
        const char *v = rs_opt_value(NULL, argc, argv, &i);
        if (!v)
            return RS_EXIT_USAGE;
        if (!opts[k].u32)
            *opts[k].text = v;
        else if (rs_parse_u32(NULL, a, v, opts[k].lo, opts[k].hi, opts[k].u32))
            return RS_EXIT_USAGE;
    }
    return -1;
}
