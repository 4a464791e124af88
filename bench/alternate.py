#!/usr/bin/env python3
"""Runs benchmark commands in alternation and compares them.

    bench/alternate.py [--rounds N] [--key FIELD] NAME=COMMAND NAME=COMMAND ...

Each round runs every command once, in the order given, so the runs a round
compares are seconds apart. From each command's output the first number of
the JSON field FIELD is taken (default: the first of median_ms, median_ns,
ns_per_car_tick). For each command it prints every run, their median and
least, and the median over the rounds of the ratio of its run to the first
command's run in the same round: on a machine whose speed changes from one
second to the next (docs/PERFORMANCE.md) that ratio moves far less than the
runs themselves. Its "fast-state median" is the median of its runs within
15 % of its least run: the runs the machine made in its fast state.

Example (docs/PERFORMANCE.md, "Two chains side by side"):

    bench/alternate.py --rounds 20 \\
        "old=old/build/bin/rollbench --rounds 400" "new=build/bin/rollbench --rounds 400"
"""
import argparse
import re
import statistics
import subprocess
import sys

DEFAULT_KEYS = "median_ms|median_ns|ns_per_car_tick"


def first_value(output, keys):
    m = re.search(r'"(?:%s)":(-?[0-9.]+)' % keys, output)
    return float(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--key", default=DEFAULT_KEYS, help="JSON field(s) to read, | between")
    ap.add_argument("commands", nargs="+", metavar="NAME=COMMAND")
    a = ap.parse_args()
    specs = []
    for s in a.commands:
        name, sep, cmd = s.partition("=")
        if not sep or not name or not cmd:
            ap.error("each command is NAME=COMMAND: %r" % s)
        specs.append((name, cmd))

    runs = {name: [] for name, _ in specs}
    for r in range(a.rounds):
        for name, cmd in specs:
            p = subprocess.run(cmd, shell=True, capture_output=True, text=True)
            v = first_value(p.stdout, a.key)
            if p.returncode != 0 or v is None:
                sys.exit("alternate: round %d, %s failed (exit %d): %s" %
                         (r + 1, name, p.returncode, (p.stderr or p.stdout).strip()[-400:]))
            runs[name].append(v)

    base = specs[0][0]
    for name, _ in specs:
        v = runs[name]
        ratios = [x / b for x, b in zip(v, runs[base])]
        own_least = min(v)
        fast = [x for x in v if x <= own_least * 1.15]
        print("%-10s median %.4f least %.4f fast-state median %.4f (%d runs) "
              "over %s: median of per-round ratios %.3f" %
              (name, statistics.median(v), own_least, statistics.median(fast), len(fast),
               base, statistics.median(ratios)))
        print("%-10s runs %s" % (name, " ".join("%.4g" % x for x in v)))


if __name__ == "__main__":
    main()
