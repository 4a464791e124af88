/*
 * raceserver --demo: the main job as a user sees it. A server on a free
 * loopback port and a field of AI bots (racesim/bot.h) connected through
 * the real SDK and ENet in the same process, one race, live positions,
 * each lap as it is recorded, the results and the track's leaderboard
 * from the database.
 */
#ifndef RS_APP_DEMO_H
#define RS_APP_DEMO_H

#include <signal.h>

#include "config.h"

/* Runs the demo described by cfg (cfg->demo_bots bots, cfg->rooms[0]).
 * Returns the process exit code: 0 when the race finished and everything
 * was printed, 1 on failure or interruption (*stop set by a signal). */
int rs_demo_run(const rs_server_config *cfg, volatile sig_atomic_t *stop);

#endif
