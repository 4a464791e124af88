/*
 * Who is on each connection (rs_services_peer_connected), and what each
 * address may still ask for: request and registration budgets per IPv4
 * address, on top of the room's per-peer limit, and one for the whole
 * server's registrations.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "racesim/base/clock.h"
#include "services_internal.h"

/* Peer ids carry their transport slot in the low 12 bits (racesim/net.h). */
#define PEER_SLOT(id) ((id) & 0xfffu)

svc_peer *rs_svc__peer(rs_services *svc, uint32_t peer)
{
    if (!svc->peers || peer == 0)
        return NULL;
    svc_peer *p = &svc->peers[PEER_SLOT(peer) % svc->peer_cap];
    return p->id == peer ? p : NULL;
}

/* The IPv4 address of "a.b.c.d:port" in host byte order, 0 if none. */
static uint32_t parse_ipv4(const char *address)
{
    char ip[24];
    snprintf(ip, sizeof ip, "%s", address);
    char *colon = strchr(ip, ':');
    if (colon)
        *colon = '\0';
    struct in_addr a;
    return inet_pton(AF_INET, ip, &a) == 1 ? ntohl(a.s_addr) : 0;
}

void rs_services_peer_connected(rs_services *svc, uint32_t peer, const char *address)
{
    if (!svc || !svc->peers || peer == 0)
        return;
    rs_svc__lock(svc);
    svc_peer *p = &svc->peers[PEER_SLOT(peer) % svc->peer_cap];
    memset(p, 0, sizeof *p);
    p->id = peer;
    snprintf(p->address, sizeof p->address, "%s", address ? address : "?");
    p->ipv4 = parse_ipv4(p->address);
    rs_svc__unlock(svc);
}

void rs_services_peer_gone(rs_services *svc, uint32_t peer)
{
    if (!svc)
        return;
    rs_svc__lock(svc);
    svc_peer *p = rs_svc__peer(svc, peer);
    if (p && p->unconfirmed) {
        /* The client never said it holds its token: the registration is
         * undone, and the name is free again. */
        svc_job *job = rs_svc__job_new(svc, SVC_JOB_FORGET, NULL, peer, p->player_id, p->name);
        if (job && !rs_svc__submit(svc, job)) {
            rs_svc__job_free(job); /* the next start forgets it */
        }
    }
    if (p)
        memset(p, 0, sizeof *p);
    rs_svc__unlock(svc);
}

/* Takes one token from b (burst tokens, refilled at per_s); false if empty. */
static bool take(svc_bucket *b, double burst, double per_s)
{
    int64_t now = rs_clock_us();
    if (b->at_us == 0) {
        b->tokens = burst;
    } else {
        b->tokens += (double)(now - b->at_us) / 1e6 * per_s;
        if (b->tokens > burst)
            b->tokens = burst;
    }
    b->at_us = now;
    if (b->tokens < 1.0)
        return false;
    b->tokens -= 1.0;
    return true;
}

static svc_address *address_slot(rs_services *svc, uint32_t ipv4)
{
    /* A multiplicative hash spreads neighbouring addresses. */
    uint32_t h = (uint32_t)(ipv4 * 2654435761u) % SVC_ADDRESS_SLOTS;
    svc_address *a = &svc->addresses[h];
    if (a->ipv4 != ipv4) {
        memset(a, 0, sizeof *a);
        a->ipv4 = ipv4;
    }
    return a;
}

bool rs_svc__request_budget(rs_services *svc, const svc_peer *p)
{
    if (!p || !svc->limits.requests_per_s)
        return true;
    double rate = svc->limits.requests_per_s;
    return take(&address_slot(svc, p->ipv4)->requests, 2.0 * rate, rate);
}

bool rs_svc__register_budget(rs_services *svc, const svc_peer *p, char *text, size_t cap)
{
    const rs_services_limits *l = &svc->limits;
    if (l->registers_per_hour && p) {
        double per_h = l->registers_per_hour;
        if (!take(&address_slot(svc, p->ipv4)->registrations, per_h, per_h / 3600.0)) {
            snprintf(text, cap, "too many registrations from your address: try again later");
            return false;
        }
    }
    if (l->registers_per_minute) {
        double per_min = l->registers_per_minute;
        if (!take(&svc->registrations, per_min, per_min / 60.0)) {
            snprintf(text, cap, "the server takes no more registrations right now: try again "
                                "in a minute");
            return false;
        }
    }
    return true;
}

void rs_svc__who(const svc_job *job, char *out, size_t cap)
{
    if (job->player_id > 0)
        snprintf(out, cap, "%s (player %lld) at %s", job->name, (long long)job->player_id,
                 job->address);
    else
        snprintf(out, cap, "%s (guest) at %s", job->name[0] ? job->name : "?", job->address);
}
