#!/bin/sh
# What raceserver tells its operator (docs/RACESERVER.md, "Logs"), run as an operator runs it.
#  1. --log-format json, with a database: a wrong room password and an unknown room are refused,
#     then two racebots race one lap of the oval. Every line of stderr must parse as one JSON
#     object (python3's json module), and the events must be there with their room and player
#     fields: join, race_start, lights_out, lap_recorded, race_end, leave, both refusals and a
#     stats line with its counters at the top level.
#  2. --log-format text: the same lines in words (a refusal, a join, the countdown, lights out,
#     then SIGTERM mid-race: the leave and the race stopped), and the stats line as before.
# Usage: test_raceserver_logs.sh RACESERVER RACEBOT (exit 77: skipped, no python3)
set -u
# shellcheck source=support/raceserver.sh
. "$(dirname "$0")/support/raceserver.sh"
raceserver=$1 racebot=$2

command -v python3 >/dev/null 2>&1 || { echo "test_raceserver_logs: no python3: skipped"; exit 77; }
rs_test_workdir
bots=""
cleanup_bots() {
    for pid in $bots; do kill "$pid" 2>/dev/null; done
    for pid in $bots; do wait "$pid" 2>/dev/null; done
    bots=""
}
fail() {
    echo "test_raceserver_logs: FAIL: $*"
    cleanup_bots
    for f in json.log text.log alice.out bob.out; do
        [ -f "$work/$f" ] && { echo "--- $f"; tail -n 40 "$work/$f"; }
    done
    exit 1
}

# Stops the server (SIGTERM: it must exit 0).
stop_server() {
    kill "$server_pid"
    wait "$server_pid"
    rc=$?
    server_pid=
    [ "$rc" -eq 0 ] || fail "raceserver exited $rc after SIGTERM"
}

# ------------------------------------------------------------------ json
# shellcheck disable=SC2086 # RS_ONE_LAP_RACE is a list of options
mkdir -p "$work/results"
start_raceserver "$work/json.log" "$raceserver" --log-format json --db "$work/json.db" \
    --results-dir "$work/results" \
    --key-file "$work/server.key" --password sesame $RS_ONE_LAP_RACE \
    --start-players 2 --lobby-s 20 --stats-interval 1 || fail "raceserver did not start"

"$racebot" --port "$port" --name eve --password wrong --quiet >/dev/null 2>&1 &&
    fail "a wrong room password was not refused"
"$racebot" --port "$port" --name lost --room nowhere --password sesame --quiet >/dev/null 2>&1 &&
    fail "an unknown room was not refused"

"$racebot" --port "$port" --name alice --password sesame --quiet >"$work/alice.out" 2>&1 &
bots="$!"
"$racebot" --port "$port" --name bob --password sesame --quiet >"$work/bob.out" 2>&1 &
bots="$bots $!"
start=$(date +%s)
for pid in $bots; do
    while kill -0 "$pid" 2>/dev/null; do
        [ $(( $(date +%s) - start )) -lt 200 ] || fail "the race did not end within 200 s"
        sleep 0.5
    done
    wait "$pid" || fail "a racebot exited $? (refused or dropped?)"
done
bots=""
echo "the json race took $(( $(date +%s) - start )) s"
stop_server

# The race's results file (docs/RESULTS.md): there, valid against the schema, with both bots.
ls "$work/results"/default-*-race.json >/dev/null 2>&1 || fail "no results file in $work/results"
if python3 -c 'import jsonschema' 2>/dev/null; then
    python3 "$(dirname "$0")/results/check_results.py" "$work/results" \
        "$(dirname "$0")/../docs/results.schema.json" >"$work/results.out" 2>&1 ||
        { cat "$work/results.out"; fail "a results file does not validate"; }
fi
grep -q '"driver": "alice"' "$work/results"/default-*-race.json &&
    grep -q '"driver": "bob"' "$work/results"/default-*-race.json ||
    fail "the results file does not name both drivers"
grep -q '"event":"results_file"' "$work/json.log" || grep -q '"event": "results_file"' "$work/json.log" ||
    fail "no results_file line in the log"

python3 - "$work/json.log" <<'EOF' || fail "the json log is not what it should be"
import json, re, sys

def need(cond, what):
    if not cond:
        print("json log:", what)
        sys.exit(1)

events = []
# Strict UTF-8: a line that is not would raise here.
with open(sys.argv[1], encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
        line = line.rstrip("\n")
        try:
            obj = json.loads(line)
        except ValueError as e:
            need(False, "line %d is not JSON (%s): %r" % (n, e, line[:200]))
        need(isinstance(obj, dict), "line %d is not an object" % n)
        for key in ("ts", "level", "event", "msg"):
            need(key in obj, "line %d has no %s: %r" % (n, key, line[:200]))
        need(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", obj["ts"]),
             "line %d: ts %r" % (n, obj["ts"]))
        need(obj["level"] in ("error", "warn", "info", "debug"), "line %d: level" % n)
        need(re.match(r"^[a-z][a-z_]*$", obj["event"]), "line %d: event %r" % (n, obj["event"]))
        obj["_line"] = n
        events.append(obj)
need(len(events) > 10, "only %d lines" % len(events))

def find(event, **fields):
    return [e for e in events if e["event"] == event
            and all(e.get(k) == v for k, v in fields.items())]

addr = re.compile(r"^127\.0\.0\.1:\d+$")
players = {"alice", "bob"}

joins = find("join", room="default")
need({j["player"] for j in joins} == players, "joins: %r" % joins)
for j in joins:
    need(j["player_id"] == 0 and addr.match(j["address"]) and j["spectator"] is False,
         "join fields: %r" % j)
    need(j["msg"].startswith("room 'default': %s (guest) joined from 127.0.0.1:" % j["player"]),
         "join words: %r" % j["msg"])

starts = find("race_start", room="default", race_number=1)
need(len(starts) == 1, "race_start: %r" % starts)
s = starts[0]
need(s["entrants"] == 2 and sorted(s["drivers"]) == ["alice", "bob"] and s["laps"] == 1
     and s["track"] and s["race_id"] >= 1, "race_start fields: %r" % s)
race_id = s["race_id"]
lights = find("lights_out", room="default", race_number=1, race_id=race_id)
need(len(lights) == 1 and lights[0]["cars"] == 2, "lights_out: %r" % lights)

laps = find("lap_recorded", room="default", race_id=race_id)
need(laps, "no lap_recorded")
for lap in laps:
    need(lap["player"] in players and lap["player_id"] == 0 and lap["lap"] == 1
         and lap["lap_id"] >= 1 and lap["time_us"] > 0 and lap["car"] in (1, 2)
         and isinstance(lap["valid"], bool) and isinstance(lap["personal_best"], bool)
         and isinstance(lap["track_record"], bool), "lap_recorded fields: %r" % lap)
    need(re.match(r"^room 'default': lap 1 of %s \(car \d\): \d+:\d\d\.\d{3}" % lap["player"],
                  lap["msg"]) and ("stored as lap %d of race %d" % (lap["lap_id"], race_id))
         in lap["msg"], "lap_recorded words: %r" % lap["msg"])
need(sum(1 for lap in laps if lap["track_record"]) <= 1, "two track records in one lap")

ends = find("race_end", room="default", race_number=1, race_id=race_id)
need(len(ends) == 1, "race_end: %r" % ends)
e = ends[0]
need(e["status"] == "finished" and e["winner"] in players and e["winner_id"] == 0
     and e["cars"] == 2 and 1 <= e["finished"] <= 2 and e["winner_time_us"] > 0,
     "race_end fields: %r" % e)
need(" finished: %s (guest) won in " % e["winner"] in e["msg"], "race_end words: %r" % e["msg"])
need(joins[-1]["_line"] < s["_line"] < lights[0]["_line"] < e["_line"], "events out of order")

leaves = find("leave", room="default")
need({l["player"] for l in leaves} == players, "leaves: %r" % leaves)
for l in leaves:
    need(l["cause"] == "bye" and l["reason_code"] == 0 and addr.match(l["address"])
         and l["_line"] > e["_line"], "leave fields: %r" % l)

pw = find("refuse", room="default", player="eve", reason="wrong room password", reason_code=6)
need(len(pw) == 1 and addr.match(pw[0]["address"]), "password refusal: %r" % pw)
need(pw[0]["msg"] == "room 'default': refused eve from %s: wrong room password"
     % pw[0]["address"], "password refusal words: %r" % pw[0]["msg"])
nr = find("refuse", player="lost", reason="no such room", reason_code=5)
need(len(nr) == 1 and "room" not in nr[0] and "nowhere" in nr[0]["text"],
     "no-room refusal: %r" % nr)

stats = find("stats")
need(stats, "no stats line")
for st in stats:
    need(all(isinstance(st.get(k), int) for k in ("players", "rooms", "bytes_in",
                                                   "drop_cookie", "laps_recorded"))
         and isinstance(st.get("tick_p99_ms"), (int, float)) and st["rooms"] == 1,
         "stats fields: %r" % st)
need(max(st["players"] for st in stats) == 2, "the stats never counted both players")
print("json log: %d lines, %d laps recorded, winner %s" % (len(events), len(laps), e["winner"]))
EOF

# ------------------------------------------------------------------ text
# shellcheck disable=SC2086
start_raceserver "$work/text.log" "$raceserver" --db "$work/text.db" \
    --key-file "$work/server.key" --password sesame $RS_ONE_LAP_RACE --stats-interval 1 ||
    fail "raceserver (text) did not start"
"$racebot" --port "$port" --name eve --password wrong --quiet >/dev/null 2>&1 &&
    fail "a wrong room password was not refused (text)"
"$racebot" --port "$port" --name alice --password sesame --quiet >"$work/alice.out" 2>&1 &
bots="$!"
for _ in $(seq 200); do
    grep -q "lights out" "$work/text.log" && break
    sleep 0.1
done
grep -q "lights out" "$work/text.log" || fail "no lights out within 20 s"
stop_server
cleanup_bots

ts='^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'
for line in \
    " INFO room 'default': refused eve from 127\.0\.0\.1:[0-9]*: wrong room password\$" \
    " INFO room 'default': alice (guest) joined from 127\.0\.0\.1:[0-9]* as a player" \
    " INFO room 'default': race 1 (id 1) countdown: 1 car (alice), 1 lap of " \
    " INFO room 'default': race 1 (id 1): lights out, 1 car racing\$" \
    " INFO room 'default': alice (guest) at 127\.0\.0\.1:[0-9]* was closed: server shutting down\$" \
    " INFO room 'default': race 1 (id 1) stopped: no car took the flag (1 car)\$" \
    " INFO room 'default': race stopped: its classification so far is stored" \
    " INFO stats {\"interval_s\":[0-9.]*,\"rooms\":1,\"players\":" \
    " INFO stopped\$"; do
    grep -q "$ts$line" "$work/text.log" || fail "no text line like '$line'"
done
grep -q '^{' "$work/text.log" && fail "a JSON line in the text log"
echo "test_raceserver_logs: passed"
