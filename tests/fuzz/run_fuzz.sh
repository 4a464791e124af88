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
cmake --build "$build" -j2 --target fuzz_car_block fuzz_snapshot fuzz_tir fuzz_json fuzz_track fuzz_lapproof fuzz_protocol fuzz_handshake fuzz_sealed fuzz_make_seeds fuzz_protocol_seeds \
  fuzz_secure_seeds >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{car_block,snapshot,tir,json,track,lapproof,protocol,handshake,sealed}
"$build"/bin/fuzz_make_seeds "$work/car_block" "$work/snapshot" "$work/lapproof"
"$build"/bin/fuzz_protocol_seeds "$work/protocol"
"$build"/bin/fuzz_secure_seeds "$work/handshake" "$work/sealed"
cp data/tyres/*.tir "$work/tir/"
cp data/cars/*.json "$work/json/"
cp data/tracks/*.json "$work/track/"
for name in car_block snapshot tir json track lapproof protocol handshake sealed; do
  echo "fuzz_$name: ${secs}s"
  "$build/bin/fuzz_$name" -max_total_time="$secs" -print_final_stats=1 -max_len=131072 \
    -artifact_prefix="$work/crash-$name-" "$work/$name" 2>"$work/$name.log" ||
    { tail -n 40 "$work/$name.log"; echo "fuzz_$name FAILED"; exit 1; }
  grep -E "stat::number_of_executed_units" "$work/$name.log" || true
done
echo "fuzz: all targets clean"
