#!/bin/sh
# test_python_binding.sh: the Python binding (bindings/python) against the
# built shared library, as a Python game uses it:
#   1. every constant racesim.py mirrors equals the C value (compiled from
#      its C name against the public headers), a wrong struct mirror is
#      refused with LayoutError, a missing library with a message naming
#      RACESIM_LIB, and every mirror's size and field offsets equal the C
#      compiler's
#   2. a race weekend on a raceserver of its own (a room with a practice,
#      two offered cars in two classes, a championship): two racesim.py
#      clients, one picking the second car by its hash; the weekend, the
#      session, chat both ways, a command and a standings request (~5 s)
#   3. a raceserver (1 lap of the oval, port 0, its own folder and
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

# Every mirror's fields at the C compiler's offsets, and its size (the
# library's rs_flat_sizeof covers sizes only).
"$PYTHON" - "$work/offsets.c" <<'EOF' || fail "racesim.py does not import"
import sys, racesim
with open(sys.argv[1], "w") as f:
    f.write('#include <stddef.h>\n#include <stdio.h>\n#include "racesim/client_flat.h"\n'
            'int main(void)\n{\n')
    for c_name, mirror in sorted(racesim._MIRRORS.items()):
        t = "struct rs_flat_car" if c_name == "rs_flat_car" else c_name
        f.write('    printf("%%s size %%zu\\n", "%s", sizeof(%s));\n' % (c_name, t))
        for field, _ in mirror._fields_:
            cf = racesim.C_FIELD_NAMES.get((c_name, field), field)
            f.write('    printf("%%s %%s %%zu\\n", "%s", "%s", offsetof(%s, %s));\n'
                    % (c_name, field, t, cf))
    f.write("    return 0;\n}\n")
EOF
"$CC" -std=c11 -o "$work/offsets" "$work/offsets.c" "$@" >"$work/cc.log" 2>&1 || {
    cat "$work/cc.log" >&2
    fail "a field of racesim.py's mirrors is not a field of the C struct"
}
"$work/offsets" >"$work/offsets.txt" || fail "offsets program failed"
"$PYTHON" - "$work/offsets.txt" <<'EOF' || fail "racesim.py's mirrors differ from the C layouts"
import ctypes, sys, racesim
bad, n = [], 0
for line in open(sys.argv[1]):
    c_name, field, value = line.split()
    mirror = racesim._MIRRORS[c_name]
    ours = ctypes.sizeof(mirror) if field == "size" else getattr(mirror, field).offset
    n += 1
    if ours != int(value):
        bad.append("%s.%s: C %s, racesim.py %d" % (c_name, field, value, ours))
print("\n".join(bad) or "%d sizes and offsets of %d structs equal" % (n, len(racesim._MIRRORS)))
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

# ------------------------------------------------------- 2. a race weekend
# A room with a weekend (a 10-minute practice, then a race), two offered cars
# in two classes and a championship; two clients of racesim.py: one on the
# room's car, one picking the second offered car by its hash. They read the
# weekend and the session, each sends a line the other must receive from
# it, a picks a car by command and b asks for the championship's standings.
mkdir "$work/weekend"
cd "$work/weekend" || fail "cd $work/weekend"
cat >config.json <<'EOF'
{"championships": [{"name": "Py Cup", "rooms": ["weekend"]}],
 "rooms": [{"name": "weekend", "track": "oval", "start_players": 1, "lobby_s": 1,
            "countdown_s": 1,
            "weekend": [{"session": "practice", "minutes": 10}, {"session": "race", "laps": 1}],
            "cars": [{"car": "c5", "class": "GT"}, {"car": "formula", "class": "Formula"}]}]}
EOF
start_raceserver server.log "$raceserver" --config config.json --stats-interval 0 \
    --db "$work/weekend/race.db" || fail "raceserver (weekend) did not start"
step "raceserver with a weekend on port $port; two racesim.py clients"
"$PYTHON" - "$port" >client.log 2>&1 <<'EOF'
import sys, time, racesim

port = int(sys.argv[1])


def pump(clients, done, seconds):
    """Updates every client and keeps its events until done() or the time is up."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for c, seen in clients:
            c.update()
            for ev in c.events():
                assert ev.type not in (racesim.EV_REFUSED, racesim.EV_DISCONNECTED), ev
                seen.append(ev)
        if done():
            return
        time.sleep(0.002)
    raise SystemExit("timed out")


def first(seen, type_, test=lambda ev: True):
    return next((ev for ev in seen if ev.type == type_ and test(ev)), None)


a_seen, b_seen = [], []
a = racesim.Client.connect("127.0.0.1", port, name="pya", room="weekend")
pump([(a, a_seen)], lambda: first(a_seen, racesim.EV_WEEKEND), 15)
wk = first(a_seen, racesim.EV_WEEKEND).detail
print("weekend:", wk)
assert wk == a.weekend(), (wk, a.weekend())
assert wk.championship == "Py Cup" and wk.classes == ("GT", "Formula"), wk
assert [s.type for s in wk.sessions] == [racesim.SESSION_PRACTICE, racesim.SESSION_RACE], wk
assert wk.sessions[0].time_limit_s == 600 and wk.sessions[1].laps == 1, wk
assert len(wk.cars) == 2 and wk.cars[1].class_name == "Formula", wk
second = wk.cars[1]

b = racesim.Client.connect("127.0.0.1", port, name="pyb", room="weekend",
                           car_hash=second.base_hash)
both = [(a, a_seen), (b, b_seen)]
pump(both, lambda: a.car_id and b.car_id and b.car_info() and a.car_info(b.car_id), 20)
mine = b.car_info()
print("b drives:", mine)
assert mine.base_hash == second.base_hash and mine.class_name == "Formula", mine
assert mine.car_name == second.name and mine.name == "pyb", mine
assert a.car_info(b.car_id).base_hash == second.base_hash
assert a.car_info().class_name == "GT", a.car_info()

ses = b.session()
print("session:", ses)
assert ses.type == racesim.SESSION_PRACTICE and ses.time_limit_ms == 600000, ses
assert 0 < ses.time_left_ms <= 600000 and not ses.chequered, ses

line = "hallo from Python, \u00e9t\u00e9 \u2713"
b.chat(line)
a.chat("only for pyb", to="pyb")
try:
    a.chat("two\nlines")
    raise SystemExit("a line with a newline was sent")
except ValueError:
    pass


def heard(seen, who):
    return first(seen, racesim.EV_CHAT, lambda ev: ev.detail.sender == who)


pump(both, lambda: heard(a_seen, "pyb") and heard(b_seen, "pya"), 10)
ra, rb = heard(a_seen, "pyb"), heard(b_seen, "pya")
print("a heard:", ra.detail)
print("b heard:", rb.detail)
assert ra.text == line and ra.detail.text == line and ra.code == racesim.CHAT_ROOM, ra
assert not ra.detail.is_private and rb.detail.is_private, (ra, rb)
assert rb.detail.kind == racesim.CHAT_PRIVATE and rb.detail.text == "only for pyb", rb

cmd = a.select_car(wk.cars[0].base_hash)
std = b.request_standings()
pump(both, lambda: first(a_seen, racesim.EV_COMMAND_REPLY, lambda ev: ev.request_id == cmd)
     and first(b_seen, racesim.EV_STANDINGS, lambda ev: ev.request_id == std), 10)
reply = first(a_seen, racesim.EV_COMMAND_REPLY, lambda ev: ev.request_id == cmd)
page = first(b_seen, racesim.EV_STANDINGS, lambda ev: ev.request_id == std)
print("select_car:", reply.code, reply.text)
print("standings:", page.code, page.text, page.total, page.detail)
assert reply.code == racesim.RESULT_OK, reply
# A fresh database: the room's championship, nobody scored yet.
assert page.code == racesim.RESULT_OK and page.text == "Py Cup" and page.detail == [], page
a.close()
b.close()
print("weekend ok")
EOF
rc=$?
sed 's/^/  /' client.log
if [ "$rc" -ne 0 ] || ! grep -q '^weekend ok$' client.log; then
    cat server.log >&2
    fail "the race weekend through racesim.py"
fi
kill -TERM "$server_pid"
wait "$server_pid"
rc=$?
server_pid=
[ "$rc" -eq 0 ] || fail "raceserver (weekend) exited $rc on SIGTERM"
step "weekend: offered cars, a car picked by hash, the session, chat both ways, a command, standings"

# ---------------------------------------------------------------- 3. a race
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
