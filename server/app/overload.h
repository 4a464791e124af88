/*
 * Shedding load: a server whose rooms' ticks run late refuses new players
 * until they run on time again (docs/RACESERVER.md, "Overload").
 *
 * A server that takes every player it is offered falls over when there are
 * more than its cores can step: the ticks start late, the clients repeat
 * and repair more, which makes them later still, and in the end nobody can
 * race (docs/PERFORMANCE.md, "64 rooms"). Refusing newcomers while the
 * ticks are late keeps the players already racing racing.
 *
 * The rule, judged once a second: a second is late when more than 1 % of
 * its ticks started more than late_ms after they were due. The server
 * sheds after late_s late seconds in a row (one stall, even one across a
 * second's boundary, is not an overload), and takes players again after
 * calm_s seconds in a row that were not late. Pure bookkeeping: the caller
 * feeds it and applies the verdict.
 */
#ifndef RS_APP_OVERLOAD_H
#define RS_APP_OVERLOAD_H

#include <stdbool.h>
#include <stdint.h>

typedef struct srv_overload {
    uint32_t late_ms;  /* a tick this late counts as late; 0: never shed */
    uint32_t late_s;   /* late seconds in a row before newcomers are refused */
    uint32_t calm_s;   /* seconds on time before players are taken again */
    uint64_t ticks;    /* ticks stepped this second */
    uint64_t late;     /* of those, later than late_ms */
    uint32_t run;      /* late seconds in a row (not shedding) or calm ones (shedding) */
    bool shedding;
} srv_overload;

/* A tick stepped late_us after it was due. */
void srv_overload_tick(srv_overload *o, int64_t late_us);

/* Once a second: judges the second that ended and starts the next. True
 * when o->shedding changed. */
bool srv_overload_second(srv_overload *o);

#endif
