#include "overload.h"

void srv_overload_tick(srv_overload *o, int64_t late_us)
{
    o->ticks++;
    if (o->late_ms && late_us > (int64_t)o->late_ms * 1000)
        o->late++;
}

bool srv_overload_second(srv_overload *o)
{
    /* More than one tick in a hundred: a lone late tick is not a late
     * second. */
    bool late = o->late_ms && o->late * 100 > o->ticks;
    o->ticks = o->late = 0;
    if (late == o->shedding) {
        o->run = 0; /* as it should be while it is so */
        return false;
    }
    if (++o->run < (o->shedding ? o->calm_s : o->late_s))
        return false;
    o->shedding = !o->shedding;
    o->run = 0;
    return true;
}
