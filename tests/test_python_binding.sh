#!/bin/sh
# test_python_binding.sh: the Python binding (bindings/python) against the
# built shared library, as a Python game uses it:
#   1. every constant racesim.py mirrors equals the C value (compiled from
#      its C name against the public headers), a wrong struct mirror is
#      refused with LayoutError, a missing library with a message naming
#      RACESIM_LIB
#   2. a raceserver (1 lap of the oval, port 0, its own folder and
#      database) and bindings/python/racebot.py against it: exit 0, its lap
#      (position 1) and the results (about 65 s)
#
# usage: sh tests/test_python_binding.sh RACESERVER LIBRARY BINDINGS_DIR INCLUDE_DIR...
#   PYTHON, CC  environment: the tools (default python3, cc)
# Exit status 0 ok, 1 a check failed, 2 usage, 77 skipped (no python3).
set -u
# shellcheck source=support/raceserver.sh
. "$(dirname "$0")/support/raceserver.sh"

PYTHON=${PYTHON:-python3}
CC=${CC:-cc}

if [ $# -lt 4 ]; then
    echo "usage: sh $0 RACESERVER LIBRARY BINDINGS_DIR INCLUDE_DIR..." >&2
    exit 2
fi
raceserver=$1 lib=$2 bindings=$3
shift 3
if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "test_python_binding: SKIP: no $PYTHON (Debian: apt-get install python3)"
    exit 77
fi

rs_test_workdir

fail() {
    echo "test_python_binding: FAIL: $*" >&2
    exit 1
}
step() {
    echo "test_python_binding: $*"
}

export RACESIM_LIB="$lib" PYTHONPATH="$bindings" PYTHONDONTWRITEBYTECODE=1

# ---------------------------------------------------------------- 1. mirrors
# A C program printing every mirrored constant by its C name; the compiler,
# not a reading of the headers, says what the values are.
"$PYTHON" - "$work/constants.c" <<'EOF' || fail "racesim.py does not import"
import sys, racesim
with open(sys.argv[1], "w") as f:
    f.write('#include <stdio.h>\n#include "racesim/client_flat.h"\nint main(void)\n{\n')
    for name in sorted(racesim.C_CONSTANTS):
        f.write('    printf("%%s %%lld\\n", "%s", (long long)(%s));\n' % (name, name))
    f.write("    return 0;\n}\n")
EOF
n=$#
for d do
    set -- "$@" "-I$d"
done
shift "$n"
"$CC" -std=c11 -o "$work/constants" "$work/constants.c" "$@" >"$work/cc.log" 2>&1 || {
    cat "$work/cc.log" >&2
    fail "a constant of racesim.py is not a C constant"
}
"$work/constants" >"$work/constants.txt" || fail "constants program failed"
"$PYTHON" - "$work/constants.txt" <<'EOF' || fail "racesim.py's constants differ from C's"
import sys, racesim
bad = []
for line in open(sys.argv[1]):
    name, value = line.split()
    if racesim.C_CONSTANTS[name] != int(value):
        bad.append("%s: C %s, racesim.py %d" % (name, value, racesim.C_CONSTANTS[name]))
print("\n".join(bad) or "%d constants equal" % len(racesim.C_CONSTANTS))
sys.exit(1 if bad else 0)
EOF

"$PYTHON" - <<'EOF' || fail "a wrong mirror was not refused"
import racesim
racesim._MIRRORS["rs_flat_pose"] = racesim._Car  # 72 bytes where the library has 88
try:
    racesim.load_library()
except racesim.LayoutError as e:
    assert "rs_flat_pose: library 88 bytes, racesim.py 72" in str(e), e
    print("wrong mirror refused:", e)
else:
    raise SystemExit("no LayoutError")
EOF
RACESIM_LIB=$work/none.so "$PYTHON" -c 'import racesim' >"$work/nolib.log" 2>&1 &&
    fail "importing without the library worked"
grep -q "set RACESIM_LIB" "$work/nolib.log" || {
    cat "$work/nolib.log" >&2
    fail "a missing library is not explained"
}
step "mirrors: constants equal C's, layouts checked, a missing library explained"

# ---------------------------------------------------------------- 2. a race
mkdir "$work/server"
cd "$work/server" || fail "cd $work/server"
# shellcheck disable=SC2086 # the race's options are words
start_raceserver server.log "$raceserver" $RS_ONE_LAP_RACE --db "$work/server/race.db" ||
    fail "raceserver did not start"
step "raceserver on port $port; racebot.py drives a lap"

"$PYTHON" "$bindings/racebot.py" 127.0.0.1 "$port" 90 >bot.log 2>&1
rc=$?
cat bot.log
# Its own lap, first of one, then the results with the one car's row.
if [ "$rc" -ne 0 ] || ! grep -q '^connected: player' bot.log ||
    ! grep -q '^lap: car [0-9]* lap 1 [0-9.]* s position 1 (mine)$' bot.log ||
    ! grep -q '^results: 1 cars$' bot.log || ! grep -q '^  1\. car [0-9]*, 1 laps, best ' bot.log ||
    ! grep -q 'desyncs 0$' bot.log; then
    cat server.log >&2
    fail "racebot.py exited $rc without its lap and the results"
fi

kill -TERM "$server_pid"
wait "$server_pid"
rc=$?
server_pid=
[ "$rc" -eq 0 ] || {
    cat server.log >&2
    fail "raceserver exited $rc on SIGTERM"
}
echo "ok"
