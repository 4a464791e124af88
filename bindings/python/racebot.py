#!/usr/bin/env python3
"""A racesim bot in Python: connects, drives the race with the driver of
examples/minimal.c (steer towards the centre line 25 m ahead, hold the
speed the corner 60 m ahead allows), prints each lap and the results.

usage: racebot.py [HOST [PORT [SECONDS]]]   (default 127.0.0.1 27960 120)
Exit status 0 after the results, 1 when the connection fails or ends, or
the time is up first.
"""

import sys
import time

import racesim


def drive(c):
    """The controls for the local car from where it is now."""
    p = c.pose()
    if p is None:
        return
    at = c.track_locate(p.x_m, p.y_m)
    if at is None:  # lost: stop
        c.controls(0.0, 0.0, 1.0)
        return
    aim, bend = c.track_sample(at.s_m + 25.0), c.track_sample(at.s_m + 60.0)
    # The car's heading from its orientation (w, x, y, z), and the side the
    # aim point lies on: the cross product, per metre of distance.
    w, x, y, z = p.quat
    fx, fy = 1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z)
    dx, dy = aim.x_m - p.x_m, aim.y_m - p.y_m
    steer = 2.0 * (fx * dy - fy * dx) / (25.0 + 1e-9)
    # A corner of curvature k allows v^2 = a / k with a lateral grip a.
    v2 = p.speed_m_s * p.speed_m_s
    k = abs(bend.curvature_1_m)
    allowed = 8.0 / k if k > 1e-4 else 1e9
    if v2 > 1.2 * allowed:
        c.controls(steer, 0.0, 0.6)
    else:
        c.controls(steer, 0.8 if v2 < allowed else 0.2, 0.0)


def race(c, seconds):
    """Runs until the results; returns the exit status."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        drive(c)
        c.update()
        for ev in c.events():
            if ev.type == racesim.EV_CONNECTED:
                print("connected: %s, %g Hz" % ("spectator" if ev.flags else "player", ev.value))
            elif ev.type == racesim.EV_WORLD_READY:
                print("world ready: car %d of %d" % (ev.car, ev.count))
            elif ev.type == racesim.EV_LAP:
                mine = " (mine)" if ev.car == c.car_id else ""
                print("lap: car %d lap %d %.3f s position %d%s"
                      % (ev.car, ev.lap, ev.time_us / 1e6, ev.position, mine))
            elif ev.type == racesim.EV_FINISH:
                print("finished: %d laps, position %d" % (ev.lap, ev.position))
            elif ev.type == racesim.EV_RESULTS:
                print("results: %d cars" % ev.count)
                for r in c.results():
                    best = "%.3f s" % (r.best_lap_us / 1e6) if r.best_lap_us >= 0 else "-"
                    print("  %d. car %d, %d laps, best %s%s"
                          % (r.position, r.car, r.laps, best, "" if r.finished else ", DNF"))
                return 0
            elif ev.type in (racesim.EV_REFUSED, racesim.EV_DISCONNECTED):
                print("%s: %s" % (ev.type_name.lower(), ev.text))
                return 1
            elif ev.type == racesim.EV_CHAT:
                line = ev.detail
                print("chat%s %s: %s" % (" (private)" if line.is_private else "",
                                         line.sender or "server", line.text))
            elif ev.type == racesim.EV_PENALTY:
                p = ev.detail
                print("penalty %d%s for car %d: %d s, %s"
                      % (p.id, " taken back" if p.removed else "", p.car, p.seconds, p.text))
            elif ev.type == racesim.EV_ERROR:
                print("error: %s" % ev.text)
        time.sleep(0.001)  # ticks are 16.7 ms apart
    print("no results within %g s" % seconds)
    return 1


def main(argv):
    host = argv[1] if len(argv) > 1 else "127.0.0.1"
    port = int(argv[2]) if len(argv) > 2 else 27960
    seconds = float(argv[3]) if len(argv) > 3 else 120.0
    try:
        client = racesim.Client.connect(host, port, name="pybot")
    except (ConnectionError, ValueError) as e:
        print(e, file=sys.stderr)
        return 1
    with client as c:
        status = race(c, seconds)
        st = c.stats()
        print("rtt %.1f ms, rollbacks %d, desyncs %d" % (st.rtt_ms, st.rollbacks, st.desyncs))
    return status


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # one line at a time, also into a pipe
    sys.exit(main(sys.argv))
