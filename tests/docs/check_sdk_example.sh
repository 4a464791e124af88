#!/bin/sh
# The example docs/CLIENT_SDK.md opens with, exactly as printed there: the C
# block after the marker line "<!-- example: render_loop.c -->" is extracted,
# compiled against the build tree's headers and shared SDK library with the
# project's warnings as errors, and run for a few seconds against a real
# raceserver on a free loopback port. It must exit 0, get its car and draw
# it moving.
#
# usage: check_sdk_example.sh SOURCE_DIR BUILD_DIR   (CC from the environment)
set -u
# shellcheck source=../support/raceserver.sh
. "$(dirname "$0")/../support/raceserver.sh"
src=$1
build=$2
cc=${CC:-cc}
rs_test_workdir
fail() {
    echo "check_sdk_example: FAIL: $*" >&2
    exit 1
}

awk '
    $0 == "<!-- example: render_loop.c -->" { state = 1; next }
    state == 1 && /^```c$/ { state = 2; next }
    state == 2 && /^```$/ { exit }
    state == 2 { print }
' "$src/docs/CLIENT_SDK.md" >"$work/render_loop.c"
[ -s "$work/render_loop.c" ] || fail "no C block after <!-- example: render_loop.c --> in docs/CLIENT_SDK.md"
echo "extracted $(wc -l <"$work/render_loop.c") lines from docs/CLIENT_SDK.md"

"$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$work/render_loop" "$work/render_loop.c" \
    -I"$src/base/include" -I"$src/physics/include" -I"$src/protocol/include" \
    -I"$src/client_sdk/include" -L"$build/lib" -lracesim_client -Wl,-rpath,"$build/lib" ||
    fail "the example does not compile"

cd "$work" || fail "cd $work"
# shellcheck disable=SC2086 # the race's options are words
start_raceserver server.log "$build/bin/raceserver" $RS_ONE_LAP_RACE --no-db ||
    fail "raceserver did not start"

timeout 60 ./render_loop 127.0.0.1 "$port" 6 >out.log 2>&1
rc=$?
cat out.log
[ "$rc" -eq 0 ] || fail "the example exited $rc"
grep -q '^race 1: car 1 of 1$' out.log || fail "no world with its car"
# Drawn once a second: the car moves off the grid on its throttle alone.
first=$(grep -m1 '(mine) at' out.log | sed 's/.*at (\([-0-9.]*\),.*/\1/')
last=$(grep '(mine) at' out.log | tail -n 1 | sed 's/.*at (\([-0-9.]*\),.*/\1/')
[ -n "$first" ] && [ -n "$last" ] || fail "the car was never drawn"
awk -v a="$first" -v b="$last" 'BEGIN { d = b - a; if (d < 0) d = -d; exit !(d > 10) }' ||
    fail "the car did not move (x from $first to $last)"
echo "ok: the car drove from x = $first to x = $last m"
