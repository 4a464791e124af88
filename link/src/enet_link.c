/* What both ends do with an ENet peer alike (racesim/enet_link.h). */
#include "racesim/enet_link.h"

#include <enet/time.h>

#define LINK_TIMEOUT_LIMIT 128u   /* 2^7: seven doublings of the first timeout */
#define LINK_TIMEOUT_MIN_MS 10000u
#define LINK_TIMEOUT_MAX_MS 30000u

void rs_enet_link_limits(ENetPeer *peer)
{
    enet_peer_timeout(peer, LINK_TIMEOUT_LIMIT, LINK_TIMEOUT_MIN_MS, LINK_TIMEOUT_MAX_MS);
}

bool rs_enet_link_ride_ping(ENetPeer *peer, enet_uint32 *last_ms, enet_uint32 after_ms)
{
    enet_uint32 now = peer->host->serviceTime;
    if (ENET_TIME_DIFFERENCE(now, peer->lastReceiveTime) < after_ms ||
        ENET_TIME_DIFFERENCE(now, *last_ms) < after_ms ||
        !enet_list_empty(&peer->sentReliableCommands))
        return false;
    enet_peer_ping(peer);
    *last_ms = now;
    return true;
}
