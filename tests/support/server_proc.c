/*
 * The raceserver child process of end-to-end tests (server_proc.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "server_proc.h"

#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "racesim/base/clock.h"

#ifndef RS_RACESERVER_PATH
#error "RS_RACESERVER_PATH must name the raceserver binary"
#endif

/* The server a test started and has not stopped yet: a failed assertion
 * leaves the test early, and the teardown must not leave it running. */
static pid_t g_running = 0;


uint16_t free_udp_port(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

int server_kill_leftover(void **state)
{
    (void)state;
    if (g_running > 0) {
        kill(g_running, SIGKILL);
        waitpid(g_running, NULL, 0);
        g_running = 0;
    }
    return 0;
}

bool file_contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, needle) != NULL;
    fclose(f);
    return found;
}

/* Folds the values of "key":N over the file's lines (sum or maximum). */
static int64_t fold_json_number(const char *path, const char *key, bool sum)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return sum ? 0 : -1;
    char pat[64], line[4096];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    int64_t acc = sum ? 0 : -1;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, pat);
        if (p) {
            long long v = strtoll(p + strlen(pat), NULL, 10);
            if (sum)
                acc += v;
            else if (v > acc)
                acc = v;
        }
    }
    fclose(f);
    return acc;
}

int64_t max_json_number(const char *path, const char *key)
{
    return fold_json_number(path, key, false);
}

int64_t sum_json_number(const char *path, const char *key)
{
    return fold_json_number(path, key, true);
}

void server_dump_log(const server_proc *s)
{
    FILE *f = fopen(s->log, "r");
    if (!f)
        return;
    char line[1024];
    unsigned n = 0;
    print_message("---- raceserver log (%s) ----\n", s->log);
    while (fgets(line, sizeof line, f) && n++ < 200)
        print_message("%s", line);
    fclose(f);
}

/* Runs raceserver with the port, key file and database s names plus extra,
 * its stdout and stderr into s->log (truncated), and waits until it
 * listens. */
static void spawn_and_wait(server_proc *s, const char *const *extra)
{
    char port[16];
    snprintf(port, sizeof port, "%u", (unsigned)s->port);

    const char *argv[48];
    size_t n = 0;
    argv[n++] = RS_RACESERVER_PATH;
    argv[n++] = "--port";
    argv[n++] = port;
    argv[n++] = "--bind";
    argv[n++] = "127.0.0.1";
    argv[n++] = "--key-file";
    argv[n++] = s->key;
    if (s->with_db) {
        argv[n++] = "--db";
        argv[n++] = s->db;
    } else {
        argv[n++] = "--no-db";
    }
    for (size_t i = 0; extra && extra[i] && n + 1 < sizeof argv / sizeof *argv; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;

    /* Truncated here, before the wait below reads it: on a restart the
     * previous run's "listening on" must be gone. */
    int fd = open(s->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
        execv(argv[0], (char *const *)(uintptr_t)argv);
        _exit(127);
    }
    close(fd);
    assert_true(pid >= 0);
    s->pid = pid;
    g_running = pid;
    int64_t deadline = rs_clock_us() + 10 * 1000000;
    while (!file_contains(s->log, "listening on")) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            g_running = 0; /* reaped */
            server_dump_log(s);
            fail_msg("raceserver exited before listening (status %d)", status);
        }
        if (rs_clock_us() > deadline) {
            server_dump_log(s);
            fail_msg("raceserver did not listen within 10 s");
        }
        rs_sleep_us(20000);
    }
}

void server_start(server_proc *s, bool with_db, const char *const *extra)
{
    memset(s, 0, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "/tmp/rs_online_XXXXXX");
    assert_non_null(mkdtemp(s->dir));
    snprintf(s->db, sizeof s->db, "%s/race.db", s->dir);
    snprintf(s->log, sizeof s->log, "%s/server.log", s->dir);
    snprintf(s->key, sizeof s->key, "%s/server.key", s->dir);
    s->port = free_udp_port();
    s->with_db = with_db;
    spawn_and_wait(s, extra);
}

void server_restart(server_proc *s, const char *const *extra)
{
    /* A server still running would hold the port and the database. */
    if (g_running != 0 && g_running == s->pid)
        fail_msg("raceserver restarted while still running (stop or kill it first)");
    spawn_and_wait(s, extra);
}

void server_stop(server_proc *s)
{
    assert_int_equal(kill(s->pid, SIGTERM), 0);
    g_running = 0; /* from here on this function reaps it, whatever happens */
    int64_t deadline = rs_clock_us() + 15 * 1000000;
    int status = 0;
    for (;;) {
        pid_t r = waitpid(s->pid, &status, WNOHANG);
        if (r == s->pid)
            break;
        if (rs_clock_us() > deadline) {
            kill(s->pid, SIGKILL);
            waitpid(s->pid, &status, 0);
            server_dump_log(s);
            fail_msg("raceserver did not exit within 15 s of SIGTERM");
        }
        rs_sleep_us(20000);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        server_dump_log(s);
        fail_msg("raceserver exited with status %d after SIGTERM", status);
    }
}

void server_kill(server_proc *s)
{
    assert_int_equal(kill(s->pid, SIGKILL), 0);
    g_running = 0; /* reaped here: SIGKILL cannot be caught */
    int status = 0;
    assert_int_equal(waitpid(s->pid, &status, 0), s->pid);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
        server_dump_log(s);
        fail_msg("raceserver ended with status %d, not by SIGKILL", status);
    }
}

void server_cleanup(server_proc *s)
{
    DIR *d = opendir(s->dir);
    if (d) {
        struct dirent *e;
        char path[sizeof s->dir + 256 + 2];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", s->dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(s->dir);
}
