#!/bin/sh
# The browser lap replay (web/wasm/, web/js/replay_wasm.js) on real stored
# laps: lap_export records a one-lap race of two AI cars into a fresh
# database through the race log and the store's writer (as raceserver
# stores laps), then for every stored lap exports what a page would get
# (record, track JSON, car blocks, decompressed proof), runs
# `racectl --json verify-lap` on it, and has replay_check.js verify it in
# the WebAssembly module under node: verified, equal to the record and to
# racectl, and not verified once tampered. About 5 s.
#
# usage: test_replay_wasm.sh LAP_EXPORT RACECTL NODE GLUE_JS WRAPPER_JS
# Exit 0 passed, 1 failed, 77 skipped (no node or no wasm build).
set -eu
lap_export=$1 racectl=$2 node=$3 glue=$4 wrapper=$5
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v "$node" >/dev/null 2>&1; then
    echo "test_replay_wasm: SKIP: node not found"
    exit 77
fi
if [ ! -f "$glue" ] || [ ! -f "${glue%.js}.wasm" ]; then
    echo "test_replay_wasm: SKIP: no wasm build at $glue (web/wasm/build.sh)"
    exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
    echo "test_replay_wasm: FAIL: $*"
    exit 1
}

"$lap_export" record "$work/race.db" >"$work/laps.txt" || fail "recording the race"
ids=$(sed -n 's/^lap \([0-9][0-9]*\)$/\1/p' "$work/laps.txt")
[ -n "$ids" ] || fail "no lap stored"
for id in $ids; do
    dir=$work/lap$id
    mkdir "$dir"
    "$lap_export" export "$work/race.db" "$id" "$dir" || fail "exporting lap $id"
    "$racectl" --db "$work/race.db" --json verify-lap "$id" >"$dir/racectl.json" ||
        fail "racectl verify-lap $id: $(cat "$dir/racectl.json")"
    "$node" "$here/replay_check.js" "$glue" "$wrapper" "$dir" "$lap_export" ||
        fail "lap $id in WebAssembly"
done
echo "test_replay_wasm: passed ($(echo "$ids" | wc -w) laps)"
