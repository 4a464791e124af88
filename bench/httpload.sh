#!/bin/sh
# The HTTP side under load, and what it costs the ticks (docs/PERFORMANCE.md,
# "HTTP side"). Each repetition runs loadtest twice in a row with the HTTP
# side on: quiet (nobody asks), then loaded (wrk keeps C connections busy
# with the rooms' live timing, the status and /metrics in turn, and F live
# feed clients stay connected). It prints each run's tick p99 and server
# CPU, wrk's requests per second, then the medians and the ratio of tick
# p99 loaded / quiet.
#
# usage: bench/httpload.sh BUILD_DIR [ROOMS=8] [SECONDS=20] [REPS=3] [C=32] [F=8]
# needs wrk (apt-get install wrk) and curl.
set -eu
build=$1
rooms=${2:-8}
seconds=${3:-20}
reps=${4:-3}
conns=${5:-32}
feeds=${6:-8}
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
    if [ "$1" = loaded ]; then
        # wait until the server answers, then load it for the measured span
        for _ in $(seq 100); do curl -sf "http://127.0.0.1:$hp/readyz" >/dev/null && break; sleep 0.2; done
        for _ in $(seq "$feeds"); do
            curl -sN "http://127.0.0.1:$hp/api/v1/feed" >/dev/null 2>&1 &
        done
        wrk -t 1 -c "$conns" -d "$((seconds + 3))s" -s "$here/httpload.lua" \
            "http://127.0.0.1:$hp" >"$work/wrk.txt" 2>&1 || true
        rps=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$work/wrk.txt")
    fi
    wait "$lt" || true
    p99=$(field tick_p99_ms "$work/lt.json")
    cpu=$(field server_cpu_pct "$work/lt.json")
    echo "$1 $2 tick_p99_ms=$p99 server_cpu_pct=$cpu http_requests_per_s=$rps"
    echo "$1 $p99 $rps" >>"$work/all.txt"
    pkill -f "curl -sN http://127.0.0.1:$hp/api/v1/feed" 2>/dev/null || true
}

for rep in $(seq "$reps"); do
    run quiet "$rep"
    run loaded "$rep"
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
q=$(awk '$1 == "quiet" { print $2 }' "$work/all.txt" | median)
l=$(awk '$1 == "loaded" { print $2 }' "$work/all.txt" | median)
r=$(awk '$1 == "loaded" { print $3 }' "$work/all.txt" | median)
echo "median tick_p99_ms quiet=$q loaded=$l ratio=$(awk -v a="$l" -v b="$q" 'BEGIN { printf "%.2f", a / b }') http_requests_per_s=$r"
