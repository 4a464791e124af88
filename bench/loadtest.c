/*
 * loadtest: what one raceserver process costs under R full rooms.
 *
 *   loadtest [--rooms R] [--bots-per-room 16] [--seconds S] [--server PATH]
 *            [--tick-hz 60] [--threads N] [--warmup-s 2] [--join-timeout-s 60]
 *            [--join-rate 50] [--server-log FILE] [--driver light|ai]
 *
 * It starts raceserver (by default the one next to loadtest in bin/) as a
 * child process with R rooms of 16 seats, no database and a stats line every
 * second (its options: docs/RACESERVER.md), starts R x 16
 * bots spread over one thread per core (join_rate per second, as players
 * arrive, not all in one instant), waits until every bot races, lets them
 * race S seconds and prints one JSON object:
 *
 *   clients, connected, racing        bots in total / welcomed / racing at the end
 *   server_cpu_pct                    the server's user+system time over the
 *                                     measured interval (/proc/PID/stat), % of one core
 *   tick_p50_ms, tick_p99_ms,         from the server's `stats` lines inside the
 *   tick_max_ms                       interval: median of the p50s, max of the
 *                                     p99s, max of the maxima (per room tick)
 *   down_bytes_per_s_per_client,      the clients' ENet datagrams on the wire, ENet
 *   up_bytes_per_s_per_client         headers and 28 B of UDP/IPv4 each included
 *   tick_late_max_ms                  from the same lines: the latest start of a tick
 *                                     (the server stalled or starved of CPU)
 *   bots_stall_max_ms                 the longest a bot's due update waited (this
 *                                     process stalled or starved): either stall
 *                                     longer than the clients' input lead (about
 *                                     65 ms) makes inputs late that no server can
 *                                     take in time
 *   server_socket_drops               datagrams the kernel dropped because the server's
 *                                     socket buffer was full (its drop_socket_full)
 *   desyncs, late_inputs              what the clients saw / the server counted
 *   bots_kept_up                      at most 1 % of the car ticks lacked an input in
 *                                     time and no bot needed a new snapshot: else the
 *                                     load is not the load (the machine could not run
 *                                     the bots, or the server stalled)
 *   loadtest_cpu_pct                  this process's own CPU
 *
 * The bots (--driver):
 *   light  racesim/bot.h's light bot: the real SDK over ENet in its light
 *          mode (the whole lockstep, no world of its own: predicting a
 *          16-car world per bot would take about 1 % of a core each, so
 *          hundreds of them would starve the server being measured), with
 *          controls that change as often as a real driver's (the default);
 *   ai     the same SDK bot predicting its world, with the AI driver.
 *
 * Then it disconnects the bots, sends SIGTERM to the server and exits 0 if
 * the server exited 0 and every bot raced to the end, else 1.
 *
 * Each worker updates its bots when they are due (a racing bot: every
 * tick, as a game's client is updated once a frame) and, while they wait
 * for something (connecting, in the lobby), also when their socket is
 * readable (update_bot).
 *
 * Thread rules: each bot belongs to the worker thread that creates and
 * updates it; the main thread only reads aggregates the workers publish on
 * request.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "racesim/bot.h"
#include "racesim/client.h"
#include "racesim/base/cli.h"
#include "racesim/base/clock.h"
#include "racesim/base/stats.h"

/* ------------------------------------------------------------- utilities */

static volatile sig_atomic_t g_interrupted; /* set by SIGINT/SIGTERM to loadtest itself */

static void on_signal(int sig)
{
    (void)sig;
    g_interrupted = 1;
}

/* A UDP port on 127.0.0.1 nobody uses right now (the kernel's pick). */
static uint16_t free_udp_port(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return 0;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    uint16_t port = 0;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

/* user + system time of a process in seconds, from /proc/PID/stat fields
 * 14 and 15 (after the parenthesised command name, which may hold spaces). */
static bool proc_cpu_s(pid_t pid, double *out)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    if (!p)
        return false;
    p++;
    /* Fields after ')': 3 state, 4..13, then 14 utime, 15 stime. */
    unsigned long long ut = 0, st = 0;
    int field = 2;
    char *end;
    while (*p && field < 15) {
        while (*p == ' ')
            p++;
        field++;
        if (field == 14)
            ut = strtoull(p, &end, 10);
        else if (field == 15)
            st = strtoull(p, &end, 10);
        while (*p && *p != ' ')
            p++;
    }
    if (field < 15)
        return false;
    *out = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
    return true;
}

static double self_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* ------------------------------------------------ the server's log lines */

typedef struct stats_line {
    int64_t at_us; /* when loadtest read it */
    double p50, p99, max, players, bytes_in, bytes_out, interval_s, cookies_rejected, ticks;
    double late_max; /* tick_late_max_ms: the latest start of a tick in the interval */
    double socket_full; /* drop_socket_full: datagrams the kernel dropped */
} stats_line;

typedef struct server_log {
    int fd;     /* read end of the child's stderr+stdout */
    FILE *copy; /* --server-log, or NULL */
    pthread_t thread;
    pthread_mutex_t lock;
    bool listening, eof;
    stats_line *lines;
    size_t count, cap;
    uint64_t errors; /* lines at ERROR level */
} server_log;

/* The number after "key": in a flat JSON object; false if absent. The stats
 * line is ours (docs/RACESERVER.md, "The stats line") and flat, so a key
 * search is enough here. */
static bool json_number(const char *json, const char *key, double *out)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(json, pat);
    if (!p)
        return false;
    p += strlen(pat);
    while (*p == ' ' || *p == ':')
        p++;
    char *end;
    double v = strtod(p, &end);
    if (end == p)
        return false;
    *out = v;
    return true;
}

static void log_line(server_log *lg, const char *line)
{
    if (lg->copy) {
        fputs(line, lg->copy);
        fputc('\n', lg->copy);
        fflush(lg->copy);
    }
    /* The stats line of either log format: "... INFO stats {JSON}", or
     * (--log-format json) one object with event "stats" and the same
     * fields at its top level. */
    const char *js = strstr(line, " stats {");
    if (js)
        js += 7;
    else if (strstr(line, "\"event\":\"stats\""))
        js = line;
    pthread_mutex_lock(&lg->lock);
    if (strstr(line, "listening on"))
        lg->listening = true;
    if (strstr(line, " ERROR ") || strstr(line, "\"level\":\"error\""))
        lg->errors++;
    if (js) {
        stats_line s;
        memset(&s, 0, sizeof s);
        s.at_us = rs_clock_us();
        bool ok = json_number(js, "tick_p50_ms", &s.p50) &&
                  json_number(js, "tick_p99_ms", &s.p99) && json_number(js, "tick_max_ms", &s.max);
        json_number(js, "players", &s.players);
        json_number(js, "bytes_in", &s.bytes_in);
        json_number(js, "bytes_out", &s.bytes_out);
        json_number(js, "interval_s", &s.interval_s);
        json_number(js, "drop_cookie", &s.cookies_rejected);
        json_number(js, "ticks", &s.ticks);
        json_number(js, "tick_late_max_ms", &s.late_max);
        json_number(js, "drop_socket_full", &s.socket_full);
        if (ok && lg->count == lg->cap) {
            size_t cap = lg->cap ? lg->cap * 2 : 64;
            stats_line *l = realloc(lg->lines, cap * sizeof *l);
            if (l) {
                lg->lines = l;
                lg->cap = cap;
            }
        }
        if (ok && lg->count < lg->cap)
            lg->lines[lg->count++] = s;
    }
    pthread_mutex_unlock(&lg->lock);
}

static void *log_main(void *arg)
{
    server_log *lg = arg;
    char buf[8192];
    size_t have = 0;
    for (;;) {
        ssize_t n = read(lg->fd, buf + have, sizeof buf - 1 - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
        buf[have] = '\0';
        char *start = buf, *nl;
        while ((nl = strchr(start, '\n')) != NULL) {
            *nl = '\0';
            log_line(lg, start);
            start = nl + 1;
        }
        have = (size_t)(buf + have - start);
        memmove(buf, start, have);
        if (have == sizeof buf - 1) { /* an overlong line: take it as it is */
            buf[have] = '\0';
            log_line(lg, buf);
            have = 0;
        }
    }
    pthread_mutex_lock(&lg->lock);
    lg->eof = true;
    pthread_mutex_unlock(&lg->lock);
    return NULL;
}

/* Starts the server with its output on a pipe; -1 on error. */
static pid_t start_server(const char *path, char *const argv[], int *read_fd)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        /* If loadtest dies (a crash, SIGKILL), the server must not live on. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(1);
        dup2(p[1], STDERR_FILENO);
        dup2(p[1], STDOUT_FILENO);
        close(p[0]);
        close(p[1]);
        execv(path, argv);
        fprintf(stderr, "loadtest: cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(p[1]);
    *read_fd = p[0];
    return pid;
}

/* ---------------------------------------------------------------- the bots */

typedef struct agg {
    uint64_t wire_in, wire_out, wire_packets_in, wire_packets_out;
    uint64_t desyncs, late_inputs, rollbacks, snapshots, frames, inputs_sent;
    uint32_t alive, connected, racing, failed;
    int64_t stall_max_us; /* the longest a due update waited, since the previous sample */
} agg;

/* One bot of either kind. */
typedef struct lt_bot {
    rs_bot *sdk;       /* --driver light or ai: the SDK client */
    /* Created by its worker at start_us, so joins are spread out as real
     * players' are (a few hundred simultaneous joins would be a burst of
     * world downloads, not the steady load this tool measures). */
    char name[32], room[16];
    int64_t start_us;
    int64_t due_us; /* when it next has something to do, unless it hears first */
    bool watched;   /* its socket is in its worker's epoll set */
    bool listening; /* ...and wakes the worker when readable (update_bot) */
    bool failed; /* creation failed (reported by the main thread) */
} lt_bot;

typedef struct worker {
    pthread_t thread;
    lt_bot **bots; /* entries of the main thread's array */
    uint32_t count;
    const struct options *opt;
    uint16_t port;
    atomic_uint *request; /* shared: the sample the main thread wants */
    atomic_bool *stop;
    pthread_mutex_t lock;
    uint32_t done; /* the last sample this worker published */
    agg sample;
    int ep;              /* its epoll set, or -1: every bot on a timer */
    int64_t timer_only_us; /* update_bot */
    int64_t stall_max_us;  /* the longest a due update waited since the last sample */
} worker;

static void collect(worker *w, int64_t now, agg *a)
{
    memset(a, 0, sizeof *a);
    for (uint32_t i = 0; i < w->count; i++) {
        a->failed += w->bots[i]->failed;
        if (!w->bots[i]->sdk)
            continue;
        rs_client *c = rs_bot_client(w->bots[i]->sdk);
        rs_client_stats st;
        rs_client_get_stats(c, now, &st);
        a->wire_in += st.wire_bytes_in;
        a->wire_out += st.wire_bytes_out;
        a->wire_packets_in += st.wire_packets_in;
        a->wire_packets_out += st.wire_packets_out;
        a->desyncs += st.desyncs;
        a->late_inputs += st.late_inputs;
        a->rollbacks += st.rollbacks;
        a->snapshots += st.snapshots;
        a->frames += st.frames;
        a->inputs_sent += st.inputs_sent;
        rs_client_state cs = rs_client_get_state(c);
        a->alive += cs != RS_CLIENT_CLOSED;
        a->connected += cs == RS_CLIENT_CONNECTED;
        rs_msg_race_state rs;
        /* A light bot builds no world (cfg.simulate false); having a car in
         * the running race is what counts. */
        if (cs == RS_CLIENT_CONNECTED && rs_client_race_state(c, &rs) &&
            rs.phase == RS_PHASE_RACE && rs_client_car(c) != 0 && st.snapshots > 0)
            a->racing++;
    }
}

static void create_bot(worker *w, lt_bot *b, int64_t now);

/* Updates bot i and notes when it next has something to do. A racing
 * bot, whose next update (its next tick) is at most timer_only_us away,
 * runs on its timer alone, as a game's client runs once a frame: what the
 * server sent meanwhile is read then (woken by every datagram, the bots
 * made a second update per FRAME, which found the socket empty). Otherwise
 * (connecting, in the lobby: a PING every 250 ms) its socket wakes the
 * worker as well. Without epoll, it is looked at every millisecond. */
static void update_bot(worker *w, uint32_t i, int64_t now)
{
    lt_bot *b = w->bots[i];
    rs_bot_update(b->sdk, now);
    b->due_us = rs_client_next_due_us(rs_bot_client(b->sdk), now);
    if (!b->watched) {
        if (b->due_us > now + 1000)
            b->due_us = now + 1000;
        return;
    }
    bool listen = b->due_us - now > w->timer_only_us;
    if (listen != b->listening) {
        struct epoll_event ev = {.events = listen ? EPOLLIN : 0, .data.u32 = i};
        if (epoll_ctl(w->ep, EPOLL_CTL_MOD, rs_client_fd(rs_bot_client(b->sdk)), &ev) == 0)
            b->listening = listen;
    }
}

/* A worker's loop: it sleeps in epoll until one of its bots' sockets is
 * readable or a bot's next tick is due, and updates just those bots (a
 * timer that updated every bot every millisecond or two spent most of
 * the load tester's time reading empty sockets, and could not keep 1024
 * bots joined on two cores). */
static void *worker_main(void *arg)
{
    worker *w = arg;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    w->ep = ep;
    if (ep < 0)
        fprintf(stderr, "loadtest: epoll_create1: %s (the bots are updated on a timer)\n",
                strerror(errno));
    struct epoll_event ready[64];
    while (!atomic_load(w->stop)) {
        int64_t now = rs_clock_us();
        int64_t wake = now + 50000;
        for (uint32_t i = 0; i < w->count; i++) {
            lt_bot *b = w->bots[i];
            if (!b->sdk && !b->failed && now >= b->start_us) {
                create_bot(w, b, now);
                int fd = b->sdk ? rs_client_fd(rs_bot_client(b->sdk)) : -1;
                struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};
                b->watched = ep >= 0 && fd >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0;
                b->listening = b->watched;
                b->due_us = now;
            }
            if (!b->sdk) {
                if (!b->failed && b->start_us < wake)
                    wake = b->start_us;
                continue;
            }
            if (now >= b->due_us) {
                if (now - b->due_us > w->stall_max_us)
                    w->stall_max_us = now - b->due_us;
                update_bot(w, i, now);
            }
            if (b->due_us < wake)
                wake = b->due_us;
        }
        unsigned want = atomic_load(w->request);
        if (want != w->done) {
            agg a;
            collect(w, rs_clock_us(), &a);
            a.stall_max_us = w->stall_max_us;
            w->stall_max_us = 0;
            pthread_mutex_lock(&w->lock);
            w->sample = a;
            w->done = want;
            pthread_mutex_unlock(&w->lock);
        }
        int64_t after = rs_clock_us();
        int wait_ms = wake <= after ? 0 : (int)((wake - after + 999) / 1000);
        int n = ep >= 0 ? epoll_wait(ep, ready, 64, wait_ms) : 0;
        if (ep < 0)
            rs_sleep_us(wake - after < 250 ? 250 : wake - after);
        now = rs_clock_us();
        for (int k = 0; k < n; k++)
            update_bot(w, ready[k].data.u32, now);
    }
    if (ep >= 0)
        close(ep);
    /* Say goodbye and give ENet a moment to send the BYEs. */
    int64_t now = rs_clock_us();
    for (uint32_t i = 0; i < w->count; i++) {
        if (w->bots[i]->sdk)
            rs_bot_disconnect(w->bots[i]->sdk, now);
    }
    for (int k = 0; k < 20; k++) {
        now = rs_clock_us();
        for (uint32_t i = 0; i < w->count; i++) {
            if (w->bots[i]->sdk)
                rs_bot_update(w->bots[i]->sdk, now);
        }
        rs_sleep_us(10000);
    }
    return NULL;
}

/* Asks every worker for a fresh aggregate and sums them. Waits at most
 * 30 s: while a few hundred bots build their worlds one pass over a
 * worker's bots can take seconds on a small machine. */
static bool sample_all(worker *ws, uint32_t n, atomic_uint *request, agg *out)
{
    unsigned want = atomic_fetch_add(request, 1) + 1;
    int64_t end = rs_clock_us() + 30000000;
    memset(out, 0, sizeof *out);
    for (uint32_t t = 0; t < n; t++) {
        for (;;) {
            pthread_mutex_lock(&ws[t].lock);
            bool ok = ws[t].done == want;
            agg a = ws[t].sample;
            pthread_mutex_unlock(&ws[t].lock);
            if (ok) {
                out->wire_in += a.wire_in;
                out->wire_out += a.wire_out;
                out->wire_packets_in += a.wire_packets_in;
                out->wire_packets_out += a.wire_packets_out;
                out->desyncs += a.desyncs;
                out->late_inputs += a.late_inputs;
                out->rollbacks += a.rollbacks;
                out->snapshots += a.snapshots;
                out->frames += a.frames;
                out->inputs_sent += a.inputs_sent;
                out->alive += a.alive;
                out->connected += a.connected;
                out->racing += a.racing;
                out->failed += a.failed;
                if (a.stall_max_us > out->stall_max_us)
                    out->stall_max_us = a.stall_max_us;
                break;
            }
            if (rs_clock_us() > end)
                return false;
            rs_sleep_us(1000);
        }
    }
    return true;
}

/* -------------------------------------------------------------- the run */

enum { DRIVER_LIGHT, DRIVER_AI };
static const char *const driver_names[] = {"light", "ai"};

typedef struct options options;
struct options {
    uint32_t rooms, bots_per_room, seconds, tick_hz, threads, warmup_s, join_timeout_s;
    int driver; /* DRIVER_* */
    char server[PATH_MAX];
    const char *server_log;
    const char *http;        /* raceserver --http ADDR:PORT, or NULL */
    const char *workers;     /* raceserver --workers N, or NULL (the server's default) */
    const char *overload;    /* raceserver --overload-late-ms MS, or NULL (its default) */
    const char *db;          /* raceserver --db FILE, or NULL: --no-db */
    uint32_t join_rate; /* bots started per second */
    uint32_t input_interval; /* rs_client_config.input_interval_ticks */
};

/* On the worker's thread: the bot becomes that thread's from now on. */
static void create_bot(worker *w, lt_bot *b, int64_t now)
{
    const options *o = w->opt;
    char err[256] = "";
    const char *room = o->rooms > 1 ? b->room : NULL;
    rs_client_config cfg = rs_client_config_default();
    cfg.name = b->name;
    cfg.room = room;
    cfg.predicted_events = false;
    /* A light bot keeps the whole lockstep (FRAMEs acknowledged, clock and
     * lead, INPUTs) but builds no world: predicting a 16-car
     * world per bot would make the load tester, not the server, the
     * bottleneck on a small machine. */
    cfg.simulate = o->driver == DRIVER_AI;
    cfg.connect_timeout_ms = o->join_timeout_s * 1000u;
    cfg.input_interval_ticks = o->input_interval;
    rs_client_status st = rs_bot_create(&cfg, "127.0.0.1", w->port, o->driver == DRIVER_AI, now,
                                        &b->sdk, err, sizeof err);
    if (st != RS_CLIENT_OK) {
        fprintf(stderr, "loadtest: bot %s: %s (%s)\n", b->name, rs_client_status_str(st), err);
        b->failed = true;
    }
}

static void usage(FILE *f)
{
    fprintf(f, "usage: loadtest [--rooms R] [--bots-per-room 16] [--seconds S] [--server PATH]\n"
               "                [--tick-hz 60] [--threads N] [--warmup-s 2] [--join-timeout-s 60] "
               "[--join-rate 50]\n"
               "                [--server-log FILE] [--driver light|ai] [--input-interval 2]\n"
               "                [--http ADDR:PORT] [--workers N] [--overload-late-ms MS] [--db FILE]\n"
               "Runs R rooms of light bots against a raceserver child process and prints one\n"
               "JSON object (docs/PERFORMANCE.md, \"Load test\"). Without --db the server\n"
               "keeps no database (--no-db); with it, FILE is created if missing.\n");
}

/* Fills *o from the command line. Returns -1 to go on, else the exit
 * status (0 after --help, 2 on a usage error). */
static int parse_args(int argc, char **argv, options *o)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    *o = (options){.rooms = 1, .bots_per_room = 16, .seconds = 10, .tick_hz = 60,
                   .threads = cores > 0 ? (uint32_t)cores : 1, .warmup_s = 2,
                   .join_timeout_s = 60, .join_rate = 50,
                   .input_interval = rs_client_config_default().input_interval_ticks};
    const char *server = NULL, *driver = NULL;
    const rs_cli_opt opts[] = {
        {"--rooms", &o->rooms, 1, 64, NULL},
        {"--bots-per-room", &o->bots_per_room, 1, 32, NULL},
        {"--seconds", &o->seconds, 1, 3600, NULL},
        {"--tick-hz", &o->tick_hz, 10, 240, NULL},
        {"--threads", &o->threads, 1, 256, NULL},
        {"--warmup-s", &o->warmup_s, 0, 600, NULL},
        {"--join-rate", &o->join_rate, 1, 100000, NULL},
        {"--join-timeout-s", &o->join_timeout_s, 1, 3600, NULL},
        {"--input-interval", &o->input_interval, 1, 4, NULL},
        {"--server", NULL, 0, 0, &server},
        {"--server-log", NULL, 0, 0, &o->server_log},
        {"--driver", NULL, 0, 0, &driver},
        {"--http", NULL, 0, 0, &o->http},
        {"--workers", NULL, 0, 0, &o->workers},
        {"--overload-late-ms", NULL, 0, 0, &o->overload},
        {"--db", NULL, 0, 0, &o->db},
    };
    int rc = rs_cli_parse_opts("loadtest", argc, argv, opts, sizeof opts / sizeof opts[0], usage);
    if (rc >= 0)
        return rc;
    if (driver) {
        o->driver = -1;
        for (int d = 0; d < (int)(sizeof driver_names / sizeof *driver_names); d++)
            if (!strcmp(driver, driver_names[d]))
                o->driver = d;
        if (o->driver < 0)
            return rs_usage_error(NULL, "--driver: '%s' is not light or ai", driver);
    }
    if (server) {
        snprintf(o->server, sizeof o->server, "%s", server);
        return -1;
    }
    /* Default server: raceserver next to this program. */
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
        snprintf(o->server, sizeof o->server, "%.*s/raceserver", (int)(sizeof o->server - 12),
                 self);
    } else {
        snprintf(o->server, sizeof o->server, "raceserver");
    }
    return -1; /* go on */
}

/* One end of the measured interval. */
typedef struct mark {
    agg bots;       /* the workers' aggregate */
    double cpu_s;   /* the server's user + system time */
    double self_s;  /* this process's */
    int64_t at_us;
} mark;

/* What the stages of a run share. The workers point into it (opt, request,
 * stop), so it lives in main's frame until they are joined. */
typedef struct run {
    options opt;
    uint32_t clients;
    const char *failure; /* why the run failed, or NULL */
    server_log lg;
    bool log_started;
    pid_t pid;
    int server_status; /* -1 until the server was reaped */
    lt_bot *bots;
    worker *ws;
    atomic_uint request;
    atomic_bool stop;
    uint32_t workers_started;
    uint16_t port;
    mark start, end; /* end.bots also holds the last sample while the bots join */
    int64_t joined_us;
} run;

/* Records why the run failed; false, for the stages' returns. */
static bool fail(run *r, const char *failure)
{
    r->failure = failure;
    return false;
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* One ENet socket per bot: make sure the descriptor limit allows them. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* Everything free_run and report may look at is set here, before any stage
 * can fail. */
static bool init_run(run *r)
{
    r->clients = r->opt.rooms * r->opt.bots_per_room;
    if (r->opt.threads > r->clients)
        r->opt.threads = r->clients;
    r->lg.fd = -1;
    pthread_mutex_init(&r->lg.lock, NULL);
    r->pid = -1;
    r->server_status = -1;
    atomic_init(&r->request, 0);
    atomic_init(&r->stop, false);
    r->bots = calloc(r->clients, sizeof *r->bots);
    r->ws = calloc(r->opt.threads, sizeof *r->ws);
    if (!r->bots || !r->ws)
        return fail(r, "out of memory");
    return true;
}

/* 1. The server, with its output read by the log thread. */
static bool launch_server(run *r)
{
    const options *o = &r->opt;
    r->port = free_udp_port();
    if (r->port == 0)
        return fail(r, "no free UDP port");
    if (o->server_log && !(r->lg.copy = fopen(o->server_log, "w")))
        return fail(r, "cannot write the server log");
    char s_rooms[16], s_bots[16], s_clients[16], s_max_clients[16], s_port[16], s_hz[16];
    char s_http[80], s_workers[16], s_overload[16], s_db[PATH_MAX];
    snprintf(s_http, sizeof s_http, "%s", o->http ? o->http : "");
    snprintf(s_workers, sizeof s_workers, "%s", o->workers ? o->workers : "");
    snprintf(s_overload, sizeof s_overload, "%s", o->overload ? o->overload : "");
    snprintf(s_db, sizeof s_db, "%s", o->db ? o->db : "");
    snprintf(s_rooms, sizeof s_rooms, "%u", o->rooms);
    snprintf(s_bots, sizeof s_bots, "%u", o->bots_per_room);
    snprintf(s_clients, sizeof s_clients, "%u", o->rooms * o->bots_per_room);
    uint32_t clients = o->rooms * o->bots_per_room;
    snprintf(s_max_clients, sizeof s_max_clients, "%u", clients > 512 ? clients : 512);
    snprintf(s_port, sizeof s_port, "%u", r->port);
    snprintf(s_hz, sizeof s_hz, "%u", o->tick_hz);
    /* raceserver's command line (docs/RACESERVER.md), one option and its
     * value per line. */
    char *sargv[48] = {r->opt.server,
                       "--rooms", s_rooms,
                       "--max-players", s_bots,
                       "--start-players", s_bots,
                       "--laps", "1000",
                       /* every client comes from 127.0.0.1; more than the
                        * default 512 connections from 33 rooms on */
                       "--max-clients", s_max_clients,
                       "--max-per-address", s_clients,
                       "--key-file", "/tmp/racesim_loadtest.key",
                       "--port", s_port,
                       "--bind", "127.0.0.1",
                       "--tick-hz", s_hz,
                       "--stats-interval", "1",
                       "--log-level", "info",
                       NULL};
    size_t n = 0;
    while (sargv[n])
        n++;
    if (o->http) { /* the HTTP side, for bench/httpload.sh */
        char *const http[] = {"--http", s_http,
                              "--http-requests-per-s", "10000", /* a load, not an abuser */
                              "--http-max-per-address", "1024"};
        for (size_t k = 0; k < sizeof http / sizeof *http; k++)
            sargv[n++] = http[k];
    }
    if (o->db) { /* the database services (their hooks run around every tick) */
        sargv[n++] = "--db";
        sargv[n++] = s_db;
    } else {
        sargv[n++] = "--no-db";
    }
    if (o->workers) { /* the room workers (docs/RACESERVER.md, "Threads") */
        sargv[n++] = "--workers";
        sargv[n++] = s_workers;
    }
    if (o->overload) { /* shedding newcomers (docs/RACESERVER.md, "Overload") */
        sargv[n++] = "--overload-late-ms";
        sargv[n++] = s_overload;
    }
    sargv[n] = NULL;
    r->pid = start_server(o->server, sargv, &r->lg.fd);
    if (r->pid < 0)
        return fail(r, "cannot start the server");
    if (pthread_create(&r->lg.thread, NULL, log_main, &r->lg) != 0)
        return fail(r, "cannot start the log reader");
    r->log_started = true;
    return true;
}

/* The server is ready when it says `listening on`; give up if it exits. */
static bool await_listening(run *r)
{
    for (int64_t end = rs_clock_us() + 15000000;;) {
        pthread_mutex_lock(&r->lg.lock);
        bool up = r->lg.listening, gone = r->lg.eof;
        pthread_mutex_unlock(&r->lg.lock);
        if (up)
            return true;
        if (gone || rs_clock_us() > end || g_interrupted)
            return fail(r, "the server did not report `listening on` within 15 s");
        rs_sleep_us(10000);
    }
}

/* 2. The bots. First the workers (one thread per core) and their lists... */
static bool setup_workers(run *r)
{
    for (uint32_t t = 0; t < r->opt.threads; t++) {
        worker *w = &r->ws[t];
        w->bots = calloc(r->clients / r->opt.threads + 1, sizeof *w->bots);
        /* request also tells free_run that this worker's lock was
         * initialised. */
        w->request = &r->request;
        w->opt = &r->opt;
        /* Four ticks: a racing client's next tick is one away (a little
         * more while its clock slows down), a waiting one's next PING 15. */
        w->timer_only_us = 4 * 1000000 / (int64_t)r->opt.tick_hz;
        w->port = r->port;
        w->stop = &r->stop;
        pthread_mutex_init(&w->lock, NULL);
        if (!w->bots)
            return fail(r, "out of memory");
    }
    return true;
}

/* ... then the bots, dealt round-robin to the workers, which create them at
 * their start times. */
static bool start_bots(run *r)
{
    const options *o = &r->opt;
    int64_t first_start = rs_clock_us();
    for (uint32_t i = 0; i < r->clients; i++) {
        lt_bot *b = &r->bots[i];
        uint32_t room = i / o->bots_per_room;
        snprintf(b->name, sizeof b->name, "load%u_%u", room + 1, i % o->bots_per_room + 1);
        snprintf(b->room, sizeof b->room, "room%u", room + 1);
        b->start_us = first_start + (int64_t)i * 1000000 / o->join_rate;
        worker *w = &r->ws[i % o->threads];
        w->bots[w->count++] = b;
    }
    for (uint32_t t = 0; t < o->threads; t++) {
        if (pthread_create(&r->ws[t].thread, NULL, worker_main, &r->ws[t]) != 0)
            return fail(r, "cannot start a worker thread");
        r->workers_started++;
    }
    return true;
}

/* 3. Wait until every bot races, then let the start settle. */
static bool wait_until_racing(run *r)
{
    int64_t join_start = rs_clock_us();
    for (int64_t end = join_start + (int64_t)r->opt.join_timeout_s * 1000000;;) {
        agg a;
        if (!sample_all(r->ws, r->opt.threads, &r->request, &a))
            return fail(r, "a worker thread stopped answering");
        r->end.bots = a;
        if (a.racing == r->clients)
            break;
        if (a.failed)
            return fail(r, "cannot create a bot");
        if (rs_clock_us() > end || g_interrupted)
            return fail(r, "not every bot was racing before the join timeout");
        rs_sleep_us(250000);
    }
    r->joined_us = rs_clock_us() - join_start;
    rs_sleep_us((int64_t)r->opt.warmup_s * 1000000);
    return true;
}

/* One end of the interval into *m. On failure *m may be partly filled: the
 * report prints what it holds. */
static bool take_mark(run *r, mark *m)
{
    if (!sample_all(r->ws, r->opt.threads, &r->request, &m->bots) || !proc_cpu_s(r->pid, &m->cpu_s))
        return false;
    m->at_us = rs_clock_us();
    m->self_s = self_cpu_s();
    return true;
}

/* 4. The measured interval. */
static bool measure(run *r)
{
    if (!take_mark(r, &r->start))
        return fail(r, "cannot sample the start of the interval");
    int64_t end = r->start.at_us + (int64_t)r->opt.seconds * 1000000;
    while (rs_clock_us() < end && !g_interrupted)
        rs_sleep_us(50000);
    if (!take_mark(r, &r->end))
        return fail(r, "cannot sample the end of the interval (did the server die?)");
    if (g_interrupted)
        return fail(r, "interrupted");
    return true;
}

/* The workers say goodbye for their bots and stop; then the bots go. */
static void stop_bots(run *r)
{
    atomic_store(&r->stop, true);
    for (uint32_t t = 0; t < r->workers_started; t++)
        pthread_join(r->ws[t].thread, NULL);
    for (uint32_t i = 0; r->bots && i < r->clients; i++) {
        rs_bot_destroy(r->bots[i].sdk);
    }
}

/* SIGTERM, SIGKILL after 15 s: the server is always reaped. Its log ends
 * with it. */
static void stop_server(run *r)
{
    if (r->pid > 0) {
        kill(r->pid, SIGTERM);
        int64_t end = rs_clock_us() + 15000000;
        pid_t w;
        while ((w = waitpid(r->pid, &r->server_status, WNOHANG)) == 0 && rs_clock_us() < end)
            rs_sleep_us(20000);
        if (w == 0) {
            kill(r->pid, SIGKILL);
            waitpid(r->pid, &r->server_status, 0);
            if (!r->failure)
                r->failure = "the server did not exit within 15 s of SIGTERM";
        }
    }
    if (r->log_started)
        pthread_join(r->lg.thread, NULL);
    if (r->lg.fd >= 0)
        close(r->lg.fd);
}

/* The exit status: a run that went through fails still if the server did
 * not exit 0 or a bot was lost. */
static int verdict(run *r, int rc)
{
    int status = r->server_status;
    bool server_ok = r->pid > 0 && status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!server_ok && rc == 0) {
        rc = 1;
        r->failure = "the server did not exit 0";
    }
    if (rc == 0 && r->end.bots.connected != r->clients) {
        rc = 1;
        r->failure = "bots were disconnected during the measurement";
    }
    return rc;
}

/* The server's stats lines inside the measured interval, summed up. */
typedef struct tick_summary {
    double p50, p99, max;     /* ms; -1 without lines */
    double srv_out, srv_in;   /* payload bytes */
    double srv_s;             /* seconds the lines cover */
    double players;           /* in the last line */
    double min_rate;          /* slowest interval's ticks per second per room: below tick_hz the
                                 server fell behind (stalled or starved of CPU) */
    double late_max;          /* ms: the latest start of a tick */
    double socket_full;       /* datagrams the kernel dropped for the server */
    size_t lines;
} tick_summary;

/* The server's stats lines that cover only the measured interval: a line
 * read at time T covers about [T - interval, T]. */
static void summarize_ticks(const run *r, double secs, tick_summary *ts)
{
    const server_log *lg = &r->lg;
    int64_t t0 = r->start.at_us, t1 = r->end.at_us;
    double *p50s = NULL, p99 = 0, mx = 0;
    memset(ts, 0, sizeof *ts);
    ts->min_rate = -1;
    size_t nl = 0;
    if (secs > 0 && lg->count > 0 && (p50s = malloc(lg->count * sizeof *p50s)) != NULL) {
        for (size_t k = 0; k < lg->count; k++) {
            const stats_line *s = &lg->lines[k];
            double iv = s->interval_s > 0 ? s->interval_s : 1.0;
            if (s->at_us - (int64_t)(iv * 1e6) < t0 - 50000 || s->at_us > t1 + 50000)
                continue;
            p50s[nl++] = s->p50;
            if (s->p99 > p99)
                p99 = s->p99;
            if (s->max > mx)
                mx = s->max;
            if (s->late_max > ts->late_max)
                ts->late_max = s->late_max;
            ts->socket_full += s->socket_full;
            ts->srv_out += s->bytes_out;
            ts->srv_in += s->bytes_in;
            ts->srv_s += iv;
            ts->players = s->players;
            double rate = s->ticks / iv / r->opt.rooms;
            if (ts->min_rate < 0 || rate < ts->min_rate)
                ts->min_rate = rate;
        }
    }
    ts->p50 = nl ? rs_median(p50s, nl) : -1;
    ts->p99 = nl ? p99 : -1.0;
    ts->max = nl ? mx : -1.0;
    ts->lines = nl;
    free(p50s);
}

/* The numbers describe a server under R full rooms only if the bots kept
 * up: their inputs reached the server in time (at most 1 % of the car
 * ticks late or missing, by the server's own count in the FRAMEs) and
 * none had to be rebuilt from a snapshot. When the machine cannot run
 * the bots (every SDK client steps its own 16-car world), they fall
 * behind, their inputs come late and they ask for snapshots: the load is
 * then not the load. */
static bool bots_kept_up(const run *r, double secs)
{
    const agg *a0 = &r->start.bots, *a1 = &r->end.bots;
    double car_ticks = secs * r->opt.tick_hz * r->clients;
    double late_share =
        car_ticks > 0 ? (double)(a1->late_inputs - a0->late_inputs) / car_ticks : 1.0;
    bool kept_up = secs > 0 && late_share <= 0.01 && a1->snapshots == a0->snapshots;
    if (secs > 0 && !kept_up)
        fprintf(stderr,
                "loadtest: the bots did not keep up (%.1f %% of the car ticks without an input in "
                "time, %" PRIu64 " snapshots): the numbers do not describe a steady load\n",
                100.0 * late_share, a1->snapshots - a0->snapshots);
    return kept_up;
}

/* The server's exit code as a shell shows it; -1 if it was never reaped. */
static int exit_code(int status)
{
    return status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The JSON object (fields: the comment at the top), then the failure. */
static void report(const run *r, int rc)
{
    const options *o = &r->opt;
    const agg *a0 = &r->start.bots, *a1 = &r->end.bots;
    int64_t t0 = r->start.at_us, t1 = r->end.at_us;
    double secs = t1 > t0 ? (double)(t1 - t0) / 1e6 : 0.0;
    tick_summary ts;
    summarize_ticks(r, secs, &ts);
    double per = secs > 0 ? 1.0 / (secs * r->clients) : 0.0;
    bool kept_up = bots_kept_up(r, secs);

    printf(
        "{\"clients\":%u,\"rooms\":%u,\"bots_per_room\":%u,\"tick_hz\":%u,\"driver\":\"%s\","
        "\"input_interval\":%u,\"seconds\":%.2f,"
        "\"connected\":%u,\"racing\":%u,\"disconnected\":%u,\"server_cpu_pct\":%.1f,"
        "\"tick_p50_ms\":%.3f,\"tick_p99_ms\":%.3f,\"tick_max_ms\":%.3f,\"stats_lines\":%zu,\"min_"
        "tick_rate_hz\":%.1f,\"tick_late_max_ms\":%.1f,\"bots_stall_max_ms\":%.1f,"
        "\"server_socket_drops\":%.0f,"
        "\"down_bytes_per_s_per_client\":%.0f,\"up_bytes_per_s_per_client\":%.0f,"
        "\"down_packets_per_s_per_client\":%.1f,\"up_packets_per_s_per_client\":%.1f,"
        "\"server_payload_out_per_s_per_client\":%.0f,\"server_payload_in_per_s_per_client\":%.0f,"
        "\"server_players\":%.0f,\"desyncs\":%" PRIu64 ",\"late_inputs\":%" PRIu64
        ",\"rollbacks_per_s_per_client\":%.1f,\"frames_per_s_per_client\":%.1f,"
        "\"inputs_per_s_per_client\":%.1f,\"snapshots\":%" PRIu64
        ",\"snapshots_in_interval\":%" PRIu64 ","
        "\"loadtest_cpu_pct\":%.1f,\"threads\":%u,"
        "\"join_s\":%.2f,\"bots_kept_up\":%s,\"server_errors\":%" PRIu64
        ",\"server_exit\":%d,\"ok\":%s",
        r->clients, o->rooms, o->bots_per_room, o->tick_hz, driver_names[o->driver],
        o->input_interval, secs,
        a1->connected, a1->racing, r->clients - a1->alive,
        secs > 0 ? 100.0 * (r->end.cpu_s - r->start.cpu_s) / secs : 0.0, ts.p50, ts.p99, ts.max,
        ts.lines, ts.min_rate, ts.late_max, (double)a1->stall_max_us / 1000.0, ts.socket_full,
        (double)(a1->wire_in - a0->wire_in) * per,
        (double)(a1->wire_out - a0->wire_out) * per,
        (double)(a1->wire_packets_in - a0->wire_packets_in) * per,
        (double)(a1->wire_packets_out - a0->wire_packets_out) * per,
        ts.srv_s > 0 ? ts.srv_out / ts.srv_s / r->clients : 0.0,
        ts.srv_s > 0 ? ts.srv_in / ts.srv_s / r->clients : 0.0, ts.players, a1->desyncs,
        a1->late_inputs - a0->late_inputs, (double)(a1->rollbacks - a0->rollbacks) * per,
        (double)(a1->frames - a0->frames) * per, (double)(a1->inputs_sent - a0->inputs_sent) * per,
        a1->snapshots, a1->snapshots - a0->snapshots,
        secs > 0 ? 100.0 * (r->end.self_s - r->start.self_s) / secs : 0.0, o->threads,
        (double)r->joined_us / 1e6, kept_up ? "true" : "false", r->lg.errors,
        exit_code(r->server_status), rc == 0 ? "true" : "false");
    if (r->failure)
        printf(",\"error\":\"%s\"", r->failure);
    printf("}\n");
    if (r->failure)
        fprintf(stderr, "loadtest: %s\n", r->failure);
}

static void free_run(run *r)
{
    for (uint32_t t = 0; r->ws && t < r->opt.threads; t++) {
        free(r->ws[t].bots);
        if (r->ws[t].request)
            pthread_mutex_destroy(&r->ws[t].lock);
    }
    free(r->ws);
    free(r->bots);
    free(r->lg.lines);
    if (r->lg.copy)
        fclose(r->lg.copy);
    pthread_mutex_destroy(&r->lg.lock);
}

int main(int argc, char **argv)
{
    run r;
    memset(&r, 0, sizeof r);
    int prc = parse_args(argc, argv, &r.opt);
    if (prc >= 0)
        return prc;
    catch_signals();
    raise_fd_limit();

    int rc = 1;
    if (init_run(&r) && launch_server(&r) && await_listening(&r) && setup_workers(&r) &&
        start_bots(&r) && wait_until_racing(&r) && measure(&r))
        rc = 0;

    stop_bots(&r);
    stop_server(&r);
    rc = verdict(&r, rc);
    report(&r, rc);
    free_run(&r);
    return rc;
}
