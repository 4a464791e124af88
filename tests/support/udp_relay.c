/*
 * The UDP impairment relay (udp_relay.h): one thread polls the listening
 * socket and one upstream socket per client, decides each datagram's fate
 * with the direction's seeded generator, and keeps the survivors in a
 * min-heap ordered by delivery time (ties by arrival order, so equal times
 * never reorder), sending each when its time comes.
 */
#define _POSIX_C_SOURCE 200809L

#include "udp_relay.h"
#include "racesim/base/clock.h"
#include "splitmix64.h"
#include "worker_thread.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { DIR_UP, DIR_DOWN };
#define RELAY_MAX_DATAGRAM 2048u

typedef struct pending {
    int64_t due_us;
    uint64_t order; /* arrival order: breaks ties so equal times keep their order */
    uint32_t client;
    uint8_t dir;
    uint16_t len;
    uint8_t *bytes;
} pending;

typedef struct relay_client {
    struct sockaddr_in addr; /* the client's address as the relay sees it */
    int upstream;            /* socket towards the server, one per client */
    uint16_t upstream_port;
} relay_client;

/* One client's counters (guarded by the relay's lock). */
typedef struct client_counts {
    uint16_t client_port, upstream_port;
    int upstream_fd;
    uint64_t up_received, down_received, down_forwarded;
    int64_t down_received_at_us, down_forwarded_at_us; /* mono_us; 0 = never */
} client_counts;

typedef struct dir_state {
    uint64_t rng;
    uint32_t burst_left;
} dir_state;

struct udp_relay {
    int listen_fd;
    struct sockaddr_in server;

    worker_thread worker; /* its lock guards params, stats and client_stats */
    udp_relay_params params;
    udp_relay_stats stats;
    client_counts *client_stats; /* client_cap */
    bool recording;
    udp_relay_datagram *record;  /* recorded datagrams */
    uint32_t record_len, record_cap;
    uint64_t record_seen;        /* datagrams that arrived while recording */

    /* Owned by the relay thread. */
    dir_state dirs[2];
    relay_client *clients;
    uint32_t client_count, client_cap;
    pending *heap;
    uint32_t heap_len, heap_cap;
    uint64_t arrivals;
    struct pollfd *fds;
    uint32_t fds_cap;
};

/* A bigger receive buffer, so bursts are not lost in the kernel before the
 * relay decides their fate (the impairments are the relay's alone). */
static void grow_rcvbuf(int fd)
{
    int size = 1 << 20;
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
}

/* Uniform in [0, 1), from the seeded stream *s (splitmix64.h). */
static double rng_unit(uint64_t *s)
{
    return (double)(splitmix64_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [lo, hi]. */
static int64_t rng_range(uint64_t *s, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    return lo + (int64_t)(splitmix64_next(s) % (uint64_t)(hi - lo + 1));
}

static bool heap_less(const pending *a, const pending *b)
{
    return a->due_us < b->due_us || (a->due_us == b->due_us && a->order < b->order);
}

static void heap_swap(udp_relay *r, uint32_t a, uint32_t b)
{
    pending t = r->heap[a];
    r->heap[a] = r->heap[b];
    r->heap[b] = t;
}

/* realloc for a full array: room for twice as many elements (`first` when
 * empty), and *cap the new room. NULL, with arr and *cap untouched, when out
 * of memory. */
static void *grow_array(void *arr, uint32_t *cap, size_t elem, uint32_t first)
{
    uint32_t n = *cap ? *cap * 2 : first;
    void *p = realloc(arr, (size_t)n * elem);
    if (p)
        *cap = n;
    return p;
}

static bool heap_push(udp_relay *r, const pending *p)
{
    if (r->heap_len == r->heap_cap) {
        pending *h = grow_array(r->heap, &r->heap_cap, sizeof *h, 256);
        if (!h)
            return false;
        r->heap = h;
    }
    uint32_t i = r->heap_len++;
    r->heap[i] = *p;
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!heap_less(&r->heap[i], &r->heap[parent]))
            break;
        heap_swap(r, i, parent);
        i = parent;
    }
    return true;
}

static pending heap_pop(udp_relay *r)
{
    pending top = r->heap[0];
    r->heap[0] = r->heap[--r->heap_len];
    uint32_t i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, rr = l + 1, m = i;
        if (l < r->heap_len && heap_less(&r->heap[l], &r->heap[m]))
            m = l;
        if (rr < r->heap_len && heap_less(&r->heap[rr], &r->heap[m]))
            m = rr;
        if (m == i)
            break;
        heap_swap(r, i, m);
        i = m;
    }
    return top;
}

static udp_relay_dir_stats *dir_stats(udp_relay *r, int dir)
{
    return dir == DIR_UP ? &r->stats.up : &r->stats.down;
}

/* The client slot for a source address, opening its upstream socket on
 * first sight. UINT32_MAX if out of resources. */
static uint32_t client_for(udp_relay *r, const struct sockaddr_in *from)
{
    for (uint32_t i = 0; i < r->client_count; i++)
        if (r->clients[i].addr.sin_addr.s_addr == from->sin_addr.s_addr &&
            r->clients[i].addr.sin_port == from->sin_port)
            return i;
    if (r->client_count == r->client_cap) {
        uint32_t cap = r->client_cap; /* both arrays grow to it */
        relay_client *c = grow_array(r->clients, &cap, sizeof *c, 16);
        if (!c)
            return UINT32_MAX;
        r->clients = c;
        pthread_mutex_lock(&r->worker.lock);
        client_counts *cs = realloc(r->client_stats, cap * sizeof *cs);
        if (cs)
            r->client_stats = cs;
        pthread_mutex_unlock(&r->worker.lock);
        if (!cs)
            return UINT32_MAX;
        r->client_cap = cap;
    }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return UINT32_MAX;
    struct sockaddr_in any;
    memset(&any, 0, sizeof any);
    any.sin_family = AF_INET;
    any.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (r->server.sin_addr.s_addr != htonl(INADDR_LOOPBACK))
        any.sin_addr.s_addr = htonl(INADDR_ANY);
    if (bind(fd, (const struct sockaddr *)&any, sizeof any) != 0) {
        close(fd);
        return UINT32_MAX;
    }
    grow_rcvbuf(fd);
    struct sockaddr_in mine;
    socklen_t mlen = sizeof mine;
    uint16_t up_port = getsockname(fd, (struct sockaddr *)&mine, &mlen) == 0
                           ? ntohs(mine.sin_port) : 0;
    r->clients[r->client_count].addr = *from;
    r->clients[r->client_count].upstream = fd;
    r->clients[r->client_count].upstream_port = up_port;
    pthread_mutex_lock(&r->worker.lock);
    client_counts *cs = &r->client_stats[r->client_count];
    memset(cs, 0, sizeof *cs);
    cs->client_port = ntohs(from->sin_port);
    cs->upstream_port = up_port;
    cs->upstream_fd = fd;
    r->stats.clients = r->client_count + 1;
    pthread_mutex_unlock(&r->worker.lock);
    return r->client_count++;
}

/* Keeps a copy of a datagram (the lock is held). */
static void record(udp_relay *r, int dir, uint32_t client, const uint8_t *bytes, size_t len)
{
    r->record_seen++;
    if (r->record_len >= UDP_RELAY_RECORD_MAX)
        return;
    if (r->record_len == r->record_cap) {
        udp_relay_datagram *g = grow_array(r->record, &r->record_cap, sizeof *g, 1024);
        if (!g)
            return;
        r->record = g;
    }
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return;
    memcpy(copy, bytes, len);
    r->record[r->record_len++] = (udp_relay_datagram){dir == DIR_UP, client, (uint16_t)len, copy};
}

/* Decides a datagram's fate and queues its copies. */
static void admit(udp_relay *r, int dir, uint32_t client, const uint8_t *bytes, size_t len,
                  int64_t now)
{
    pthread_mutex_lock(&r->worker.lock);
    if (r->recording)
        record(r, dir, client, bytes, len);
    udp_relay_dir p = dir == DIR_UP ? r->params.up : r->params.down;
    udp_relay_dir_stats *st = dir_stats(r, dir);
    st->received++;
    if (dir == DIR_UP) {
        r->client_stats[client].up_received++;
    } else {
        r->client_stats[client].down_received++;
        r->client_stats[client].down_received_at_us = now;
    }
    pthread_mutex_unlock(&r->worker.lock);

    /* Every datagram draws the same number of numbers whatever happens, so
     * one decision never shifts the next datagram's draws. */
    dir_state *d = &r->dirs[dir];
    double u_burst = rng_unit(&d->rng), u_loss = rng_unit(&d->rng);
    double u_dup = rng_unit(&d->rng), u_reorder[2] = {rng_unit(&d->rng), rng_unit(&d->rng)};
    int64_t jitter[2], extra[2];
    for (int k = 0; k < 2; k++) {
        jitter[k] = rng_range(&d->rng, -p.jitter_us, p.jitter_us);
        extra[k] = rng_range(&d->rng, 0, p.reorder_us);
    }

    bool drop = false;
    if (d->burst_left > 0) {
        d->burst_left--;
        drop = true;
    } else if (p.burst_len > 0 && u_burst < p.burst_chance) {
        d->burst_left = p.burst_len - 1;
        drop = true;
    } else if (u_loss < p.loss) {
        drop = true;
    }
    int copies = drop ? 0 : (u_dup < p.dup ? 2 : 1);

    pthread_mutex_lock(&r->worker.lock);
    if (drop)
        st->dropped++;
    if (copies == 2)
        st->duplicated++;
    pthread_mutex_unlock(&r->worker.lock);

    for (int k = 0; k < copies; k++) {
        int64_t delay = p.delay_us + jitter[k];
        if (delay < 0)
            delay = 0;
        if (u_reorder[k] < p.reorder)
            delay += extra[k];
        pending q = {now + delay, r->arrivals++, client, (uint8_t)dir, (uint16_t)len, NULL};
        q.bytes = malloc(len ? len : 1);
        if (!q.bytes)
            continue;
        memcpy(q.bytes, bytes, len);
        if (!heap_push(r, &q))
            free(q.bytes);
    }
}

static void deliver(udp_relay *r, const pending *q)
{
    const relay_client *c = &r->clients[q->client];
    ssize_t n;
    if (q->dir == DIR_UP)
        n = sendto(c->upstream, q->bytes, q->len, 0, (const struct sockaddr *)&r->server,
                   sizeof r->server);
    else
        n = sendto(r->listen_fd, q->bytes, q->len, 0, (const struct sockaddr *)&c->addr,
                   sizeof c->addr);
    pthread_mutex_lock(&r->worker.lock);
    if (n == (ssize_t)q->len) {
        dir_stats(r, q->dir)->forwarded++;
        if (q->dir == DIR_DOWN) {
            r->client_stats[q->client].down_forwarded++;
            r->client_stats[q->client].down_forwarded_at_us = rs_clock_us();
        }
    } else {
        dir_stats(r, q->dir)->send_errors++;
    }
    pthread_mutex_unlock(&r->worker.lock);
}

/* Reads everything waiting on one socket without blocking. */
static void drain(udp_relay *r, int fd, int dir, uint32_t client)
{
    uint8_t buf[RELAY_MAX_DATAGRAM];
    for (;;) {
        struct sockaddr_in from;
        socklen_t flen = sizeof from;
        ssize_t n = recvfrom(fd, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
        if (n < 0)
            return;
        int64_t now = rs_clock_us();
        if (dir == DIR_UP) {
            uint32_t c = client_for(r, &from);
            if (c != UINT32_MAX)
                admit(r, DIR_UP, c, buf, (size_t)n, now);
        } else if (from.sin_addr.s_addr == r->server.sin_addr.s_addr &&
                   from.sin_port == r->server.sin_port) {
            admit(r, DIR_DOWN, client, buf, (size_t)n, now);
        }
    }
}

static void *relay_main(void *arg)
{
    udp_relay *r = arg;
    while (!worker_stopping(&r->worker)) {
        int64_t now = rs_clock_us();
        while (r->heap_len > 0 && r->heap[0].due_us <= now) {
            pending q = heap_pop(r);
            deliver(r, &q);
            free(q.bytes);
        }

        /* Sleep until the next delivery (rounded up, so never early) or
         * 5 ms, so destroy is noticed soon. */
        int timeout_ms = 5;
        if (r->heap_len > 0) {
            int64_t wait = r->heap[0].due_us - now;
            timeout_ms = wait >= 5000 ? 5 : (int)((wait + 999) / 1000);
        }
        uint32_t nfds = 1 + r->client_count;
        if (nfds > r->fds_cap) {
            struct pollfd *f = realloc(r->fds, nfds * 2 * sizeof *f);
            if (!f)
                break;
            r->fds = f;
            r->fds_cap = nfds * 2;
        }
        r->fds[0] = (struct pollfd){r->listen_fd, POLLIN, 0};
        for (uint32_t i = 0; i < r->client_count; i++)
            r->fds[1 + i] = (struct pollfd){r->clients[i].upstream, POLLIN, 0};
        if (poll(r->fds, nfds, timeout_ms) <= 0)
            continue;
        if (r->fds[0].revents & POLLIN)
            drain(r, r->listen_fd, DIR_UP, 0);
        /* client_count may have grown while draining; only the polled ones. */
        for (uint32_t i = 0; i + 1 < nfds; i++)
            if (r->fds[1 + i].revents & POLLIN)
                drain(r, r->clients[i].upstream, DIR_DOWN, i);
    }
    return NULL;
}

static bool resolve(const char *host, uint16_t port, struct sockaddr_in *out)
{
    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = htons(port);
    if (inet_pton(AF_INET, host, &out->sin_addr) == 1)
        return true;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_DGRAM;
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
        return false;
    out->sin_addr = ((const struct sockaddr_in *)(const void *)res->ai_addr)->sin_addr;
    freeaddrinfo(res);
    return true;
}

/* A socket on 127.0.0.1 at a port the kernel picks (*port), with a big
 * receive buffer; -1 on error (errno says why). */
static int open_listener(uint16_t *port)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in la;
    memset(&la, 0, sizeof la);
    la.sin_family = AF_INET;
    la.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t llen = sizeof la;
    if (bind(fd, (const struct sockaddr *)&la, sizeof la) != 0 ||
        getsockname(fd, (struct sockaddr *)&la, &llen) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    grow_rcvbuf(fd);
    *port = ntohs(la.sin_port);
    return fd;
}

void udp_relay_destroy(udp_relay *r)
{
    if (!r)
        return;
    worker_finish(&r->worker);
    /* The sockets, then the memory. */
    if (r->listen_fd >= 0)
        close(r->listen_fd);
    for (uint32_t i = 0; i < r->client_count; i++)
        close(r->clients[i].upstream);
    while (r->heap_len > 0) {
        pending q = heap_pop(r);
        free(q.bytes);
    }
    free(r->heap);
    free(r->clients);
    free(r->client_stats);
    free(r->fds);
    for (uint32_t i = 0; i < r->record_len; i++)
        free(r->record[i].bytes);
    free(r->record);
    free(r);
}

udp_relay *udp_relay_create(const char *server_host, uint16_t server_port,
                            const udp_relay_params *params, uint64_t seed, uint16_t *listen_port)
{
    udp_relay *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->listen_fd = -1;
    worker_init(&r->worker);
    if (params)
        r->params = *params;
    /* Different streams per direction, both fixed by the seed. */
    r->dirs[DIR_UP].rng = seed ^ 0x5550u;
    r->dirs[DIR_DOWN].rng = seed ^ 0x444F574Eu;
    uint16_t port = 0;
    if (!resolve(server_host, server_port, &r->server))
        fprintf(stderr, "udp_relay: cannot resolve %s\n", server_host);
    else if ((r->listen_fd = open_listener(&port)) < 0)
        fprintf(stderr, "udp_relay: cannot open the listening socket: %s\n", strerror(errno));
    else if (worker_start(&r->worker, relay_main, r, "udp_relay")) {
        if (listen_port)
            *listen_port = port;
        return r;
    }
    udp_relay_destroy(r);
    return NULL;
}

void udp_relay_get_stats(udp_relay *r, udp_relay_stats *out)
{
    worker_locked_copy(&r->worker, out, &r->stats, sizeof *out);
}

bool udp_relay_get_client_stats(udp_relay *r, uint32_t i, udp_relay_client_stats *out)
{
    pthread_mutex_lock(&r->worker.lock);
    bool ok = i < r->stats.clients;
    if (ok) {
        const client_counts *c = &r->client_stats[i];
        int64_t now = rs_clock_us();
        out->client_port = c->client_port;
        out->upstream_port = c->upstream_port;
        out->up_received = c->up_received;
        out->down_received = c->down_received;
        out->down_forwarded = c->down_forwarded;
        out->down_received_ago_us = c->down_received_at_us ? now - c->down_received_at_us : -1;
        out->down_forwarded_ago_us = c->down_forwarded_at_us ? now - c->down_forwarded_at_us : -1;
    }
    pthread_mutex_unlock(&r->worker.lock);
    return ok;
}

void udp_relay_set_params(udp_relay *r, const udp_relay_params *params)
{
    pthread_mutex_lock(&r->worker.lock);
    if (params)
        r->params = *params;
    else
        memset(&r->params, 0, sizeof r->params);
    pthread_mutex_unlock(&r->worker.lock);
}

void udp_relay_record(udp_relay *r, bool on)
{
    pthread_mutex_lock(&r->worker.lock);
    r->recording = on;
    pthread_mutex_unlock(&r->worker.lock);
}

uint64_t udp_relay_each_recorded(udp_relay *r,
                                 bool (*fn)(void *ctx, const udp_relay_datagram *d), void *ctx)
{
    pthread_mutex_lock(&r->worker.lock);
    uint32_t n = r->recording ? 0 : r->record_len;
    uint64_t seen = r->record_seen;
    pthread_mutex_unlock(&r->worker.lock);
    /* Not recording: nobody appends, so the array can be read unlocked. */
    for (uint32_t i = 0; i < n; i++)
        if (!fn(ctx, &r->record[i]))
            break;
    return seen;
}

bool udp_relay_inject_up(udp_relay *r, uint32_t client, const uint8_t *bytes, size_t len)
{
    pthread_mutex_lock(&r->worker.lock);
    int fd = client < r->stats.clients ? r->client_stats[client].upstream_fd : -1;
    pthread_mutex_unlock(&r->worker.lock);
    return fd >= 0 && sendto(fd, bytes, len, 0, (const struct sockaddr *)&r->server,
                             sizeof r->server) == (ssize_t)len;
}
