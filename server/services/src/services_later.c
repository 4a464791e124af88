/*
 * What waits for a room to come home (services_internal.h, "Threads").
 *
 * When a server steps its rooms on worker threads, a room is either home
 * (the network thread may call into it) or away (a worker is updating it).
 * The services' answers, LAP flags and kicks are calls into rooms: each
 * goes out at once when its room may be called from where the services
 * are, and otherwise waits here, in order, for the first rs_services_poll
 * that finds the room home. A room's hooks run on its own thread, so from a
 * hook only that room may be called.
 *
 * A room is home or away for the whole of one poll (only the network
 * thread sends rooms away and takes them back), so running the queue once
 * per poll keeps every room's calls in the order they were due.
 */
#include <stdio.h>
#include <string.h>

#include "services_internal.h"

bool rs_svc__may_call(const rs_services *svc, const rs_room *room, const rs_room *self)
{
    if (!svc->home)
        return true; /* every room steps on the caller's thread */
    if (self)
        return room == self;
    return svc->home(svc->home_ctx, room);
}

/* Whether something for room waits already (it must go first). */
static bool waiting(const rs_services *svc, const rs_room *room)
{
    for (const svc_job *j = svc->later; j; j = j->next)
        if (j->room == room)
            return true;
    return false;
}

/* Whether a call into room goes out now: the room may be called from here
 * and nothing older waits for it. Otherwise the call is kept. */
static bool call_now(const rs_services *svc, const rs_room *room, const rs_room *self)
{
    return rs_svc__may_call(svc, room, self) && !waiting(svc, room);
}

static void keep(rs_services *svc, svc_job *job)
{
    job->next = NULL;
    if (svc->later_tail)
        svc->later_tail->next = job;
    else
        svc->later = job;
    svc->later_tail = job;
}

void rs_svc__finish_or_keep(rs_services *svc, svc_job *job, const rs_room *self)
{
    if (job->room && !call_now(svc, job->room, self))
        keep(svc, job);
    else
        rs_svc__job_finish(svc, job);
}

void rs_svc__later_run(rs_services *svc)
{
    /* Taken off first: finishing a job may call into a room, whose hooks
     * may keep new ones (they go after these, as they came after). */
    svc_job *j = svc->later;
    svc->later = svc->later_tail = NULL;
    while (j) {
        svc_job *next = j->next;
        if (j->room && !rs_svc__may_call(svc, j->room, NULL))
            keep(svc, j);
        else
            rs_svc__job_finish(svc, j);
        j = next;
    }
}

void rs_svc__later_forget(rs_services *svc, const rs_room *room)
{
    /* Finished without their room at the next poll (or at destroy), like
     * the database thread's answers to a room that is gone: their log
     * lines are still written, and a registration nobody was told of is
     * forgotten. */
    for (svc_job *j = svc->later; j; j = j->next)
        if (j->room == room)
            j->room = NULL;
}

void rs_svc__later_free(rs_services *svc)
{
    while (svc->later) {
        svc_job *j = svc->later;
        svc->later = j->next;
        rs_svc__job_free(j);
    }
    svc->later_tail = NULL;
}

void rs_svc__lap_flags(rs_services *svc, rs_room *room, const rs_room *self, uint8_t car,
                       uint32_t lap, uint8_t flags)
{
    if (call_now(svc, room, self)) {
        rs_room_lap_flags(room, car, lap, flags);
        return;
    }
    svc_job *job = rs_svc__job_new(svc, SVC_JOB_LAP_FLAGS, room, 0, 0, NULL);
    if (!job)
        return; /* the LAP goes out unflagged after the room's wait */
    job->car = car;
    job->lap = lap;
    job->flags = flags;
    keep(svc, job);
}

/* Whether the peers table has name admitted in room. */
static bool admitted_in(const rs_services *svc, const rs_room *room, const char *name)
{
    for (uint32_t i = 0; i < svc->peer_cap; i++) {
        const svc_peer *p = &svc->peers[i];
        if (p->id && p->room == room && rs_svc__name_eq(p->name, name))
            return true;
    }
    return false;
}

/* A KICK job's kick, now: whether it closed someone. */
static bool kick_now(rs_services *svc, const svc_job *job)
{
    if (job->ban_check) {
        const svc_peer *p = rs_svc__peer(svc, job->peer);
        if (!p || p->room != job->room)
            return false; /* that connection is gone */
    }
    if (!rs_room_kick(job->room, job->name, job->refuse_reason, job->text))
        return false;
    if (job->ban_check) {
        svc->stats.bans_enforced++;
        svc_who who = {.room = job->room, .player = job->name, .player_id = job->player_id,
                       .address = job->address};
        rs_svc__log(svc, RS_SERVICES_LOG_INFO, "ban_enforced", &who, NULL, 0,
                    "bans: %s at %s closed: %s", job->name, job->address, job->text);
    }
    return true;
}

void rs_svc__finish_call(rs_services *svc, svc_job *job)
{
    if (!job->room)
        return; /* the room is gone */
    if (job->kind == SVC_JOB_LAP_FLAGS)
        rs_room_lap_flags(job->room, job->car, job->lap, job->flags);
    else if (job->kind == SVC_JOB_KICK)
        kick_now(svc, job);
}

bool rs_svc__kick(rs_services *svc, rs_room *room, const char *name, uint8_t reason,
                  const char *text, const svc_ban_check *ban_check)
{
    svc_job *job = rs_svc__job_new(svc, SVC_JOB_KICK, room, ban_check ? ban_check->peer : 0,
                                   ban_check ? ban_check->player_id : 0, name);
    if (!job)
        return false;
    job->refuse_reason = reason;
    snprintf(job->text, sizeof job->text, "%s", text);
    job->ban_check = ban_check != NULL;
    if (call_now(svc, room, NULL)) {
        bool kicked = kick_now(svc, job);
        rs_svc__job_free(job);
        return kicked;
    }
    bool will = admitted_in(svc, room, name);
    keep(svc, job);
    return will;
}
