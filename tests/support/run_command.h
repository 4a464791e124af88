/*
 * Runs a shell command line as an operator would (racectl, raceserver
 * --print-public-key) and captures what it prints: for tests of programs.
 * Header-only.
 */
#ifndef RS_TEST_RUN_COMMAND_H
#define RS_TEST_RUN_COMMAND_H

#include <stdio.h>
#include <sys/wait.h>

/* Runs cmd with sh; its stdout (add 2>&1 to the line for stderr too) in
 * out (cap bytes, NUL-terminated, cut if longer). Returns the exit status,
 * or -1 if it could not run or did not exit. */
static inline int run_command(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    while (fgetc(p) != EOF) {
        /* read the rest, so the command never blocks on a full pipe */
    }
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif
