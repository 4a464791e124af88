/*
 * The kernel's side of the server's UDP socket: how much it may queue for
 * us, and how many datagrams it dropped because that was full. Under load
 * the network thread reads in bursts (it also opens, routes and sends), and
 * what arrives meanwhile waits in this buffer; once it is full, the kernel
 * drops datagrams without a word, INPUTs among them.
 */
#define _GNU_SOURCE /* SO_RCVBUFFORCE */
#include "net_internal.h"

#include <sys/socket.h>

#include <linux/sock_diag.h> /* SK_MEMINFO_DROPS */

uint32_t rs_net__socket_buffer(int fd, uint32_t kib)
{
    int want = (int)(kib * 1024u);
    /* SO_RCVBUF is capped by net.core.rmem_max (208 KiB on a stock kernel);
     * a process with CAP_NET_ADMIN may go past it. */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof want) != 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof want);
    int got = 0;
    socklen_t len = sizeof got;
    if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) != 0 || got <= 0)
        return 0;
    return (uint32_t)got / 1024u;
}

bool rs_net__socket_drops(int fd, uint64_t *drops)
{
#ifdef SO_MEMINFO
    uint32_t info[SK_MEMINFO_VARS];
    socklen_t len = sizeof info;
    if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, info, &len) == 0 &&
        len > SK_MEMINFO_DROPS * sizeof info[0]) {
        *drops = info[SK_MEMINFO_DROPS];
        return true;
    }
#endif
    (void)fd;
    (void)drops;
    return false;
}
