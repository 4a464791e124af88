#!/bin/sh
# The web page (web/) in headless Chromium against a real raceserver: --http
# on a loopback port, a database, one lap of the oval, three racebot cars.
# tests/web/test_web.mjs drives the browser (puppeteer-core, installed with
# `npm ci` from tests/web/package-lock.json into the build tree; it downloads
# no browser) and checks the tower, the moving cars, the leaderboard, the
# rank search and the lap replay; screenshots go to BUILD/test-artifacts/web.
# Exit 77 (skipped) without chromium, node or npm (scripts/deps.sh installs them).
# Usage: test_web.sh RACESERVER RACEBOT BUILD_DIR
set -eu
# shellcheck source=../support/raceserver.sh
. "$(dirname "$0")/../support/raceserver.sh"
raceserver=$1 racebot=$2 build=$3
here=$(cd "$(dirname "$0")" && pwd)

chromium=${RS_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
for tool in node npm; do
    command -v "$tool" >/dev/null 2>&1 || { echo "test_web: SKIPPED: no $tool"; exit 77; }
done
[ -n "$chromium" ] || { echo "test_web: SKIPPED: no chromium (apt-get install chromium)"; exit 77; }

# puppeteer-core, pinned by the lock file, once per lock file change.
node_dir=$build/tests/web-node
if ! cmp -s "$here/package-lock.json" "$node_dir/package-lock.json" ||
   [ ! -d "$node_dir/node_modules/puppeteer-core" ]; then
    mkdir -p "$node_dir"
    cp "$here/package.json" "$here/package-lock.json" "$node_dir/"
    (cd "$node_dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error) ||
        { echo "test_web: FAIL: npm ci"; exit 1; }
fi

rs_test_workdir
bot_pids=
# The bots (they exit by themselves after the race, or not), then the server
# and the work folder; the test's own exit status is kept.
cleanup() {
    st=$?
    for p in $bot_pids; do kill "$p" 2>/dev/null || true; done
    for p in $bot_pids; do wait "$p" 2>/dev/null || true; done
    rs_test_cleanup || true
    exit "$st"
}
trap cleanup EXIT
shots=$build/test-artifacts/web
rm -rf "$shots"

# --http on port 0: the server takes a free port and logs it (no clash with
# another test or server on this machine).
# Two classes: bot1 and bot2 drive the room's first car (GT), bot3 the
# formula car (Open), so the page's class positions, colours and grouped
# boards have something to show.
cat >"$work/server.json" <<'JSON'
{"cars": [{"car": "c5", "class": "GT"}, {"car": "formula", "class": "Open"}]}
JSON
start_raceserver "$work/server.log" "$raceserver" --config "$work/server.json" \
    --http 127.0.0.1:0 --web-root "$build/web" --db "$work/race.db" \
    --key-file "$work/server.key" --track oval --laps 1 --start-players 3 --lobby-s 1 \
    --countdown-s 2 --stats-interval 0 || { echo "test_web: FAIL: raceserver did not start"; exit 1; }
http_port=$(sed -n 's/.*http: listening on 127\.0\.0\.1 port \([0-9][0-9]*\).*/\1/p' "$work/server.log")
[ -n "$http_port" ] || { cat "$work/server.log"; echo "test_web: FAIL: no http port"; exit 1; }
for n in 1 2 3; do
    car=
    [ $n = 3 ] && car="Formula (2019-era F1)"
    "$racebot" --port "$port" --name "bot$n" ${car:+--car "$car"} --quiet >"$work/bot$n.out" 2>&1 &
    bot_pids="$bot_pids $!"
done

wasm=0
[ -f "$build/web/wasm/racesim_replay.js" ] && wasm=1
# A build with the WebAssembly replay (RS_WASM, CMake sets this) must show it
# verify: its absence is then a failure, not a skip.
if [ "${RS_WEB_NEED_WASM:-0}" = 1 ] && [ $wasm = 0 ]; then
    echo "test_web: FAIL: RS_WASM is on but $build/web/wasm/racesim_replay.js is missing"
    exit 1
fi
status=0
RS_BASE="http://127.0.0.1:$http_port/" RS_BOTS=bot1,bot2,bot3 RS_CLASSES=GT,GT,Open \
RS_CHROMIUM=$chromium \
RS_NODE_DIR="$node_dir" RS_SHOTS=$shots RS_WASM=$wasm \
    node "$here/test_web.mjs" || status=$?
if [ "$status" -ne 0 ]; then
    echo "--- server.log"; tail -n 30 "$work/server.log"
    echo "test_web: FAIL (screenshots in $shots)"
    exit 1
fi
echo "test_web: passed (screenshots in $shots)"
