#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, -DRS_FUZZ=ON) and runs each for a
# bounded time from a seed corpus made of the shipped data. Any crash,
# sanitizer report or broken round-trip fails the script.
# usage: tests/fuzz/run_fuzz.sh [SECONDS_PER_TARGET] [BUILD_DIR]
set -euo pipefail
secs=${1:-30}
build=${2:-build-fuzz}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DRS_FUZZ=ON -DRS_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target fuzz_car_block fuzz_snapshot fuzz_tir fuzz_json fuzz_track fuzz_lapproof fuzz_protocol fuzz_handshake fuzz_sealed fuzz_http_route fuzz_config fuzz_make_seeds fuzz_protocol_seeds \
  fuzz_secure_seeds >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{car_block,snapshot,tir,json,track,lapproof,protocol,handshake,sealed,http_route,config}
"$build"/bin/fuzz_make_seeds "$work/car_block" "$work/snapshot" "$work/lapproof"
cp tests/fixtures/lapproof_v1.bin "$work/lapproof/" # the older format, still read
"$build"/bin/fuzz_protocol_seeds "$work/protocol"
"$build"/bin/fuzz_secure_seeds "$work/handshake" "$work/sealed"
cp data/tyres/*.tir "$work/tir/"
cp data/cars/*.json "$work/json/"
cp data/tracks/*.json "$work/track/"
# Every path of the API's specification, with arguments, and the sample configuration.
n=0
for t in /api/v1/status /api/v1/rooms/default /api/v1/tracks/2b680a74578d8ce9/outline \
         /api/v1/feed?room=default "/api/v1/leaderboard?track=oval&car=0x73f5d7b90bb322fb&page=2&per_page=50" \
         "/api/v1/leaderboard/rank?player=bot1&track=oval&car=c5&around=5" /api/v1/races?limit=20 \
         /api/v1/races/17 /api/v1/laps/42 /api/v1/laps/42/proof /api/v1/cars/73f5d7b90bb322fb/block \
         /api/v1/tracks/2b680a74578d8ce9 /metrics /healthz /readyz /index.html /js/app.js; do
  n=$((n + 1))
  printf '%s' "$t" >"$work/http_route/seed$n"
done
cp deploy/raceserver.json tests/fuzz/seeds/config_*.json "$work/config/"
# ... and one with every race-weekend key (config_weekend.c).
printf '%s' '{"weekend":[{"session":"qualifying","laps":2},{"session":"race","minutes":1.5,"grid":"qualifying","reverse":4}],"cars":[{"car":"c5","class":"GT","ballast_kg":20},{"car":"formula","class":"F","restrictor_pct":5}],"entry_list":{"only":false,"entries":[{"player":"alice","car":"formula","number":7}]},"race_control":{"track_limits":{"strikes":3,"penalty_s":5},"contact":{"min_speed_m_s":3,"penalty_points":4,"penalty_s":5},"jump_start":{"penalty_s":10}},"finish_timeout_s":90}' > "$work/config/weekend.json"
for name in car_block snapshot tir json track lapproof protocol handshake sealed http_route config; do
  echo "fuzz_$name: ${secs}s"
  "$build/bin/fuzz_$name" -max_total_time="$secs" -print_final_stats=1 -max_len=131072 \
    -artifact_prefix="$work/crash-$name-" "$work/$name" 2>"$work/$name.log" ||
    { tail -n 40 "$work/$name.log"; echo "fuzz_$name FAILED"; exit 1; }
  grep -E "stat::number_of_executed_units" "$work/$name.log" || true
done
echo "fuzz: all targets clean"
