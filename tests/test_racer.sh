#!/bin/sh
# examples/racer end to end, headless: a real raceserver on a free loopback port (the oval,
# one lap) with two racebot AI cars, and racer under Xvfb driven by tests/racer_lap.script
# (SDL key events). Passes when racer exits 0 after its first lap, its car drove off the grid,
# and the screenshot shows the track, the cars and the HUD (racer_shot_check).
# Usage: test_racer.sh RACER RACESERVER RACEBOT SHOT_CHECK SCRIPT
set -eu
# shellcheck source=support/raceserver.sh
. "$(dirname "$0")/support/raceserver.sh"
racer=$1 raceserver=$2 racebot=$3 shot_check=$4 script=$5

work=$(mktemp -d)
pids=""
cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null || true; done
    for pid in $pids; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "test_racer: FAIL: $*"
    for f in server.log racer.out racer.err; do
        [ -f "$work/$f" ] && { echo "--- $f"; tail -n 30 "$work/$f"; }
    done
    exit 1
}

# The race starts as soon as the three players are in (no lobby wait), two seconds of
# countdown; no database, a throwaway key.
started=0
start_raceserver "$work/server.log" "$raceserver" --no-db --key-file "$work/server.key" \
    --track oval --laps 1 --start-players 3 --lobby-s 60 --countdown-s 2 --stats-interval 0 ||
    started=1
pids="$pids $server_pid"
[ "$started" -eq 0 ] || fail "raceserver did not start"

for n in 1 2; do
    "$racebot" --port "$port" --name "bot$n" --quiet >"$work/bot$n.out" 2>&1 &
    pids="$pids $!"
done

start=$(date +%s)
status=0
# In the sanitizer build LeakSanitizer would report what libdbus and the libraries SDL loads
# and unloads itself keep at exit (not racer's memory, and no stack to suppress them by), so
# racer runs there with leak detection off; the other ASan and UBSan checks stay on.
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0" SDL_RENDER_DRIVER=software xvfb-run -a -s "-screen 0 1280x720x24" \
    "$racer" --port "$port" --name tester --script "$script" --screenshot "$work/shot.bmp" \
    --exit-after-laps 1 --timeout 85 >"$work/racer.out" 2>"$work/racer.err" || status=$?
echo "racer ran $(( $(date +%s) - start )) s, exit $status:"
cat "$work/racer.out"

[ "$status" -eq 0 ] || fail "racer exited $status"
grep -q '^lap 1: ' "$work/racer.out" || fail "no lap completed"
odometer=$(sed -n 's/.*odometer \([0-9][0-9]*\) m.*/\1/p' "$work/racer.out")
[ -n "$odometer" ] && [ "$odometer" -ge 2000 ] || fail "the car drove ${odometer:-?} m, not a lap"
[ -s "$work/shot.bmp" ] || fail "no screenshot"
"$shot_check" "$work/shot.bmp" || fail "the screenshot does not show the game"
echo "test_racer: passed"
