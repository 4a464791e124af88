#!/bin/sh
# The HTTP side under load, and what it costs the ticks (docs/PERFORMANCE.md,
# "HTTP side"). Each repetition runs loadtest (ROOMS rooms of 16 light bots,
# the HTTP side on) three times in a row:
#   quiet   nobody asks the HTTP side anything;
#   pages   what spectators and dashboards do: F live feed clients, and 20
#           connections each asking for a room's timing, the status or
#           /metrics every 100 ms (about 200 requests a second);
#   flood   wrk asks as fast as 32 connections can.
# The HTTP clients (wrk, curl) run at nice 19: on a small machine they share
# the cores with the server, and real spectators' browsers do not; at nice
# 19 they take the CPU the server leaves, which is what the run measures
# the server with. The game's own load (loadtest's bots) runs as usual.
# It prints each run's tick p99, server CPU and requests per second, then the
# medians and the ratios of tick p99 to quiet's.
#
# usage: bench/httpload.sh BUILD_DIR [ROOMS=8] [SECONDS=20] [REPS=3] [F=16]
# needs wrk (apt-get install wrk), curl and python3.
set -eu
build=$1
rooms=${2:-8}
seconds=${3:-20}
reps=${4:-3}
feeds=${5:-16}
here=$(cd "$(dirname "$0")" && pwd)
command -v wrk >/dev/null || { echo "httpload: needs wrk (apt-get install wrk)" >&2; exit 2; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" "$2"; }

run() { # run MODE REP
    hp=$(free_port)
    "$build/bin/loadtest" --rooms "$rooms" --seconds "$seconds" --warmup-s 3 \
        --server "$build/bin/raceserver" --http "127.0.0.1:$hp" >"$work/lt.json" 2>/dev/null &
    lt=$!
    rps=-
    if [ "$1" != quiet ]; then
        for _ in $(seq 100); do curl -sf "http://127.0.0.1:$hp/readyz" >/dev/null && break; sleep 0.2; done
        feed_pids=
        if [ "$1" = pages ]; then
            for _ in $(seq "$feeds"); do
                nice -n 19 curl -sN "http://127.0.0.1:$hp/api/v1/feed" >/dev/null 2>&1 &
                feed_pids="$feed_pids $!"
            done
            HTTPLOAD_DELAY_MS=100 nice -n 19 wrk -t 1 -c 20 -d "$((seconds + 3))s" -s "$here/httpload.lua" \
                "http://127.0.0.1:$hp" >"$work/wrk.txt" 2>&1 || true
        else
            nice -n 19 wrk -t 1 -c 32 -d "$((seconds + 3))s" -s "$here/httpload.lua" \
                "http://127.0.0.1:$hp" >"$work/wrk.txt" 2>&1 || true
        fi
        rps=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$work/wrk.txt")
        errors=$(sed -n 's/.*Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$work/wrk.txt")
        [ -z "$errors" ] || rps="$rps (non-2xx: $errors)"
        # shellcheck disable=SC2086
        [ -z "$feed_pids" ] || kill $feed_pids 2>/dev/null || true
    fi
    wait "$lt" || true
    p99=$(field tick_p99_ms "$work/lt.json")
    cpu=$(field server_cpu_pct "$work/lt.json")
    echo "$1 $2 tick_p99_ms=$p99 server_cpu_pct=$cpu http_requests_per_s=$rps"
    echo "$1 $p99 ${rps%% *}" >>"$work/all.txt"
}

for rep in $(seq "$reps"); do
    run quiet "$rep"
    run pages "$rep"
    run flood "$rep"
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
q=$(awk '$1 == "quiet" { print $2 }' "$work/all.txt" | median)
for mode in pages flood; do
    p=$(awk -v m=$mode '$1 == m { print $2 }' "$work/all.txt" | median)
    r=$(awk -v m=$mode '$1 == m { print $3 }' "$work/all.txt" | median)
    echo "median $mode: tick_p99_ms $p vs quiet $q, ratio $(awk -v a="$p" -v b="$q" 'BEGIN { printf "%.2f", a / b }'), http_requests_per_s $r"
done
