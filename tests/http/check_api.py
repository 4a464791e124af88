#!/usr/bin/python3
"""Checks a live raceserver's HTTP side against docs/openapi.json.

Run by tests/test_http.sh while bots race a lap: every endpoint of the
specification is requested for real and each answer is validated against
the schema the specification gives for its status; the live feed is read;
hostile and malformed requests must get their documented error and leave
the server healthy. The room runs the weekend of the server's
configuration (a timed qualifying, then a race, in classes): the session, the
classes and the class positions live, in the feed and in the stored
results must agree with it and with each other. Exits non-zero with a
message on the first failure.

usage: check_api.py BASE_URL OPENAPI_JSON ROOM CONFIG_JSON BOT=CLASS...
"""
import http.client
import json
import os
import socket
import sqlite3
import sys
import time
import urllib.error
import urllib.request

import jsonschema

base, spec_path, room = sys.argv[1], sys.argv[2], sys.argv[3]
config = json.load(open(sys.argv[4]))
bot_class = dict(a.split("=", 1) for a in sys.argv[5:])
bots = set(bot_class)
spec = json.load(open(spec_path))
host, port = base.split("//")[1].split(":")
port = int(port)
covered = set()


def fail(msg):
    print("check_api: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def schema_for(template, status, ctype="application/json"):
    op = spec["paths"][template]["get"]
    resp = op["responses"].get(str(status))
    if resp is None:
        fail(f"{template}: status {status} is not documented")
    return resp["content"][ctype]["schema"]


def validate(template, status, doc):
    schema = dict(schema_for(template, status))
    schema["components"] = spec["components"]
    try:
        jsonschema.Draft202012Validator(schema).validate(doc)
    except jsonschema.ValidationError as e:
        fail(f"{template} ({status}): answer does not match the specification: {e.message} "
             f"at {list(e.absolute_path)}")


def get(path, template, want=200, raw=False, method="GET"):
    req = urllib.request.Request(base + path, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, ctype, body = r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        status, ctype, body = e.code, e.headers.get("Content-Type", ""), e.read()
    if status != want:
        fail(f"GET {path}: status {status}, wanted {want}: {body[:300]!r}")
    if raw:
        covered.add(template)
        return body
    if not ctype.startswith("application/json"):
        fail(f"GET {path}: Content-Type {ctype!r}")
    doc = json.loads(body)
    validate(template, status, doc)
    if status == 200:
        covered.add(template)
    return doc


def raw_request(data):
    """Sends bytes as they are; returns the status line's code (0: closed)."""
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(data)
    reply = b""
    try:
        while b"\r\n" not in reply:
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    s.close()
    line = reply.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 else 0


def wait_for(what, fn, seconds):
    end = time.time() + seconds
    while time.time() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.2)
    fail("timed out waiting for " + what)


# -- live ------------------------------------------------------------------
wait_for("/readyz", lambda: get("/readyz", "/readyz")["status"] == "ready", 10)
h = get("/healthz", "/healthz")
if h["status"] != "ok":
    fail("healthz: " + str(h))
status = get("/api/v1/status", "/api/v1/status")
if status["server"]["protocol_version"] < 1 or not status["server"]["database"]:
    fail("status: " + json.dumps(status["server"]))
get("/api/v1/rooms", "/api/v1/rooms")
tpl_room = "/api/v1/rooms/{name}"


def check_weekend(r):
    """The session and the classes as configured; entries consistent with them."""
    sess = r["session"]
    want = config["weekend"]
    got = sess["sessions"]
    if [x["type"] for x in got] != [x["session"] for x in want] or \
            [x["laps"] for x in got] != [x.get("laps") for x in want] or \
            [x["time_limit_s"] for x in got] != [x.get("seconds") for x in want] or \
            [x["index"] for x in got] != list(range(len(want))):
        fail("session list differs from the configuration: " + json.dumps(got))
    if got[1]["grid"] != want[1]["grid"] or got[0]["grid"] is not None:
        fail("grids: " + json.dumps(got))
    mine = got[sess["index"]]
    if sess["type"] != mine["type"] or sess["laps"] != mine["laps"] or \
            sess["time_limit_s"] != mine["time_limit_s"]:
        fail("session: " + json.dumps(sess))
    if sess["time_limit_s"] is None and sess["time_left_us"] is not None:
        fail("a lap-limited session with a time left: " + json.dumps(sess))
    # A timed session's time left is its limit less the race clock, from the
    # same publication; the flag is out once it ran out.
    if sess["time_limit_s"] is not None and \
            (sess["time_left_us"] != max(0, sess["time_limit_s"] * 10**6 - sess["race_time_us"]) or
             (sess["time_left_us"] > 0) != (sess["flag"] == "green")):
        fail("a timed session's time left: " + json.dumps(sess))
    if sess["weekend"] < 1 or not sess["running"]:
        fail("session not running in weekend 1..: " + json.dumps(sess))
    flag = {"race": ("green", "chequered"), "countdown": ("none",), "results": ("chequered",)}
    if sess["flag"] not in flag.get(r["phase"], ()):
        fail(f"flag {sess['flag']} in phase {r['phase']}")
    classes = [c["class"] for c in config["cars"]]
    if [c["name"] for c in r["classes"]] != classes:
        fail("classes: " + json.dumps(r["classes"]))
    offered = {c["hash"]: c for c in r["cars"]}
    if [c["class"] for c in r["cars"]] != classes or len(offered) != len(classes):
        fail("offered cars: " + json.dumps(r["cars"]))
    for c in r["classes"]:
        if [x["hash"] for x in c["cars"]] != [h for h, o in offered.items()
                                               if o["class"] == c["name"]]:
            fail("a class's cars differ from the offered cars of that class: " + json.dumps(c))
    seen = {}
    for e in r["entries"]:
        car = offered.get(e["car_model"]["hash"])
        if car is None or car["name"] != e["car_model"]["name"] or car["class"] != e["class"]:
            fail("an entry's car is not an offered car of its class: " + json.dumps(e))
        seen[e["class"]] = seen.get(e["class"], 0) + 1
        if e["class_position"] != seen[e["class"]]:
            fail("class positions are not 1..n by position within the class: " +
                 json.dumps([(x["position"], x["class"], x["class_position"])
                             for x in r["entries"]]))
        if e["number"] is not None or e["status"] == "disqualified":
            fail("a guest with a race number, or disqualified: " + json.dumps(e))
    return sess


def racing(index):
    r = get(f"/api/v1/rooms/{room}", tpl_room)
    return r if r["phase"] == "race" and len(r["entries"]) == len(bots) and \
        r["session"]["index"] == index else None


r = wait_for("the qualifying to start with every bot", lambda: racing(0), 60)
names = {e["name"] for e in r["entries"]}
if names != bots:
    fail(f"live timing lists {sorted(names)}, the bots are {sorted(bots)}")
if [e["position"] for e in r["entries"]] != list(range(1, len(bots) + 1)):
    fail("entries are not in position order: " + json.dumps(r["entries"]))
if check_weekend(r)["type"] != "qualifying":
    fail("the first session is not the qualifying")
summary = [x for x in get("/api/v1/rooms", "/api/v1/rooms")["rooms"] if x["name"] == room][0]
if summary["classes"] != r["classes"] or summary["session"]["sessions"] != r["session"]["sessions"]:
    fail("the room list and the room disagree on the weekend")
outline = get(f"/api/v1/tracks/{r['track']['hash']}/outline", "/api/v1/tracks/{hash}/outline")
if len(outline["points"]) < 10 or len(outline["lines"]) < 1:
    fail("outline too small")

# The feed: positions about ten times a second, cars moving; then, read on,
# the qualifying's flag falls and the race begins: "session" events.
conn = http.client.HTTPConnection(host, port, timeout=10)
conn.request("GET", f"/api/v1/feed?room={room}")
resp = conn.getresponse()
if resp.status != 200 or not resp.getheader("Content-Type", "").startswith("text/event-stream"):
    fail(f"feed: {resp.status} {resp.getheader('Content-Type')}")
covered.add("/api/v1/feed")


def read_feed(until, seconds):
    got, name, t0 = [], None, time.time()
    while time.time() - t0 < seconds:
        line = resp.fp.readline().decode().rstrip("\n")
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: ") and name:
            got.append((name, json.loads(line[6:])))
            name = None
            if until(got[-1]):
                return got
    return got


events = read_feed(lambda e: False, 2.0)
pos = [d for n, d in events if n == "positions"]
if len(pos) < 12:
    fail(f"feed: {len(pos)} positions events in 2 s (about 20 expected)")
if any(d["room"] != room or len(d["cars"]) != len(bots) for d in pos):
    fail("feed: a positions event of another room or with a car missing")
if pos[0]["cars"] == pos[-1]["cars"] or pos[-1]["tick"] <= pos[0]["tick"]:
    fail("feed: the cars did not move")
later = read_feed(lambda e: e[0] == "session" and e[1]["index"] == 1, 150.0)
conn.close()
sessions = [d for n, d in later if n == "session"]
if [(d["index"], d["type"], d["flag"]) for d in sessions] != \
        [(0, "qualifying", "chequered"), (1, "race", "none")]:
    fail("feed: session events " + json.dumps(sessions) + " (wanted the qualifying's flag, "
         "then the race's start)")
if sessions[1]["race_number"] != sessions[0]["race_number"] + 1 or \
        sessions[1]["weekend"] != sessions[0]["weekend"]:
    fail("feed: session events out of step: " + json.dumps(sessions))

r = wait_for("the race to start with every bot", lambda: racing(1), 60)
if check_weekend(r)["type"] != "race":
    fail("the second session is not the race")
for e in r["entries"]:
    if e["class"] != bot_class[e["name"]]:
        fail(f"{e['name']} drives in class {e['class']}, wanted {bot_class[e['name']]}")

# -- bad requests get a JSON error and a 4xx, and the server stays up ------
get("/api/v1/rooms/nosuchroom", tpl_room, 404)
err = get("/api/v1/leaderboard?track=x", "/api/v1/leaderboard", 400)
if err["error"]["code"] != "missing_argument":
    fail("leaderboard without car: " + json.dumps(err))
get("/api/v1/races?limit=abc", "/api/v1/races", 400)
get("/api/v1/races?limit=100000", "/api/v1/races", 400)
get("/api/v1/tracks/zz/outline", "/api/v1/tracks/{hash}/outline", 400)
get("/api/v1/laps/999999999", "/api/v1/laps/{id}", 404)
e = json.loads(get("/api/v1/status", None, 405, raw=True, method="POST"))
if e["error"]["status"] != 405:
    fail("POST: " + json.dumps(e))
covered.discard(None)
if get("/api/v1/status", None, 200, raw=True, method="HEAD") != b"":
    fail("HEAD returned a body")
for path in ["/../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/.hidden", "//etc/passwd"]:
    code = raw_request(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    if code not in (400, 404):
        fail(f"GET {path}: status {code}, wanted 400 or 404")
code = raw_request(b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n")
if code not in (0, 400, 413, 414, 431):
    fail(f"a 40 kB header got status {code}")
code = raw_request(b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
if code != 413:
    fail(f"a GET with a body got status {code}, wanted 413")
if raw_request(b"\x16\x03\x01\x02\x00garbage\r\n\r\n") not in (0, 400):
    fail("garbage request line")
if get("/healthz", "/healthz")["status"] != "ok":
    fail("the server is not healthy after bad requests")

# -- after the race: the database side ------------------------------------
def finished(kind):
    races = get(f"/api/v1/races?limit=5&type={kind}", "/api/v1/races")["races"]
    if any(x["session"]["type"] != kind for x in races):
        fail(f"races?type={kind} lists another type: " + json.dumps(races))
    done = [x for x in races if x["status"] == "finished"]
    return done[0] if done else None


def check_results(detail, index, kind):
    """One stored session: its place in the weekend, classes and their
    positions, statuses, laps led and the fastest lap."""
    if detail["session"] != {"type": kind, "index": index, "weekend": r["session"]["weekend"],
                             "room": room}:
        fail("stored session: " + json.dumps(detail["session"]))
    rows = detail["results"]
    if [x["position"] for x in rows] != list(range(1, len(bots) + 1)):
        fail(f"{kind} results not in position order")
    seen = {}
    for x in rows:
        if x["class"] != bot_class.get(x["player"].lstrip("~")):  # guests are stored as ~name
            fail(f"{kind}: {x['player']} stored in class {x['class']}")
        seen[x["class"]] = seen.get(x["class"], 0) + 1
        if x["class_position"] != seen[x["class"]]:
            fail(f"{kind}: class positions are not 1..n within each class: " + json.dumps(rows))
        if x["status"] != "classified" or x["penalty_ms"] != 0 or x["number"] is not None:
            fail(f"{kind}: a bot's row: " + json.dumps(x))
    best = [x["best_lap_us"] for x in rows if x["best_lap_us"] is not None]
    fastest = [x for x in rows if x["fastest_lap"]]
    if best and (len(fastest) != 1 or fastest[0]["best_lap_us"] != min(best)):
        fail(f"{kind}: the fastest lap is not the smallest best lap: " + json.dumps(rows))
    return rows


quali = wait_for("a finished qualifying in the database", lambda: finished("qualifying"), 60)
check_results(get(f"/api/v1/races/{quali['id']}", "/api/v1/races/{id}"), 0, "qualifying")
race = wait_for("a finished race in the database", lambda: finished("race"), 150)
detail = get(f"/api/v1/races/{race['id']}", "/api/v1/races/{id}")
rows = check_results(detail, 1, "race")
if sum(x["laps_led"] for x in rows) != rows[0]["laps"] or not rows[0]["finished"]:
    fail("race: laps led do not add up to the winner's laps: " + json.dumps(rows))
# Its penalties as stored (migration 0008). The bots race cleanly, so two
# are written into the database the way the services store them (test_results
# checks the services' own writing): the answer must list them under their
# driver's row only, with every field as stored.
db = sqlite3.connect(os.environ["RS_HTTP_TEST_DB"], timeout=10)
victim = rows[-1]
with db:
    db.execute("INSERT INTO race_penalties (race_id, penalty_id, player_id, kind, offence, "
               "seconds, reason, tick, race_time_us) VALUES (?, 1, ?, 'warning', "
               "'track_limits', 0, 'track limits: strike 1 of 3', 700, 11666666)",
               (race["id"], victim["player_id"]))
    db.execute("INSERT INTO race_penalties (race_id, penalty_id, player_id, kind, offence, "
               "seconds, reason, tick, race_time_us, removed, removed_reason, removed_tick, "
               "removed_race_time_us) VALUES (?, 2, ?, 'time', 'admin', 5, 'blocking', 900, "
               "15000000, 1, 'it was the other car', 960, 16000000)",
               (race["id"], victim["player_id"]))
db.close()
detail = get(f"/api/v1/races/{race['id']}", "/api/v1/races/{id}")
pens = {x["player"]: x["penalties"] for x in detail["results"]}
want = [{"id": 1, "kind": "warning", "seconds": 0, "offence": "track_limits",
         "by": "race_control", "reason": "track limits: strike 1 of 3", "tick": 700,
         "race_time_us": 11666666, "removed": False, "removal": None},
        {"id": 2, "kind": "time", "seconds": 5, "offence": "admin", "by": "admin",
         "reason": "blocking", "tick": 900, "race_time_us": 15000000, "removed": True,
         "removal": {"by": "admin", "reason": "it was the other car", "tick": 960,
                     "race_time_us": 16000000}}]
if pens[victim["player"]] != want or any(v for k, v in pens.items() if k != victim["player"]):
    fail("race: stored penalties answered as " + json.dumps(pens))
print(f"check_api: {victim['player']}'s 2 stored penalties answered in its row only")
err = get("/api/v1/races?type=sprint", "/api/v1/races", 400)
if err["error"]["code"] != "bad_argument":
    fail("races?type=sprint: " + json.dumps(err))
boards = get("/api/v1/boards", "/api/v1/boards")
tracks = {t["hash"] for t in boards["tracks"]}
if r["track"]["hash"] not in tracks:
    fail("the raced track has no board")
track, car = r["track"], r["car"]
board = get(f"/api/v1/leaderboard?track={track['hash']}&car={car['hash']}&per_page=1",
            "/api/v1/leaderboard")
if board["total"] < 1 or len(board["rows"]) != 1 or board["rows"][0]["rank"] != 1:
    fail("leaderboard: " + json.dumps(board))
byname = get("/api/v1/leaderboard?track=" + urllib.request.quote(track["name"].upper()) +
             f"&car={car['hash']}&tune=any", "/api/v1/leaderboard")
if byname["rows"] != get(f"/api/v1/leaderboard?track={track['hash']}&car={car['hash']}",
                         "/api/v1/leaderboard")["rows"]:
    fail("a board by name differs from the board by hash")
# A class's board: its cars' boards merged (car= once per car of the class):
# exactly the class's bots, each row naming a car of the class.
def board_of(cars, extra=""):
    q = "".join(f"&car={c['hash']}" for c in cars)
    return get(f"/api/v1/leaderboard?track={track['hash']}{q}&per_page=100{extra}",
               "/api/v1/leaderboard")


drove = {}
for c in r["classes"]:
    b = board_of(c["cars"], "&tune=any")
    want = {x for x, k in bot_class.items() if k == c["name"]}
    players = {x["player"].lstrip("~") for x in b["rows"]}
    if players != want or b["total"] != len(want):
        fail(f"class {c['name']}: its board lists {sorted(players)}, not {sorted(want)}")
    if b["cars"] != [{"name": x["name"], "hash": x["hash"]} for x in c["cars"]]:
        fail(f"class {c['name']}: the board's cars are {json.dumps(b['cars'])}")
    for x in b["rows"]:
        if x["car"]["hash"] not in {y["hash"] for y in c["cars"]}:
            fail(f"class {c['name']}: a row of another car: {json.dumps(x)}")
        drove[x["player"]] = x
# Every offered car on one board: each bot once, in the car it drove, with
# its best lap in that car, ranked by time; car is null, cars lists them.
both = board_of(r["cars"])
if both["car"] is not None or [c["hash"] for c in both["cars"]] != [c["hash"] for c in r["cars"]]:
    fail("a board of several cars: " + json.dumps({k: both[k] for k in ("car", "cars")}))
rows = both["rows"]
if sorted(x["player"].lstrip("~") for x in rows) != sorted(bots) or \
        [x["rank"] for x in rows] != list(range(1, len(rows) + 1)) or \
        [x["time_us"] for x in rows] != sorted(x["time_us"] for x in rows):
    fail("a board of several cars is not every bot once, by time: " + json.dumps(rows))
for x in rows:
    if x != dict(drove[x["player"]], rank=x["rank"]):
        fail("a board of several cars differs from the class board's row: " + json.dumps(x))
last = rows[-1]
q = "".join(f"&car={c['hash']}" for c in r["cars"])
rk = get(f"/api/v1/leaderboard/rank?player={urllib.request.quote(last['player'])}"
         f"&track={track['hash']}{q}&around=1", "/api/v1/leaderboard/rank")
if rk["rank"] != last["rank"] or rk["rows"][rk["player_index"]] != last or rk["car"] is not None:
    fail("rank on a board of several cars: " + json.dumps(rk))
err = get(f"/api/v1/leaderboard?track={track['hash']}{q}&tune=00000000000000aa",
          "/api/v1/leaderboard", 400)
if err["error"]["code"] != "bad_argument":
    fail("a tune's hash on a board of several cars: " + json.dumps(err))
print(f"check_api: class boards hold their bots; {len(r['cars'])} cars' board ranks "
      + ", ".join(f"{x['player']} ({x['car']['name']})" for x in rows))
top = board["rows"][0]
rank = get(f"/api/v1/leaderboard/rank?player={top['player']}&track={track['hash']}"
           f"&car={car['hash']}&around=2", "/api/v1/leaderboard/rank")
if rank["rank"] != 1 or rank["rows"][rank["player_index"]]["player"] != top["player"]:
    fail("rank: " + json.dumps(rank))
get(f"/api/v1/leaderboard/rank?player=nobody_here&track={track['hash']}&car={car['hash']}",
    "/api/v1/leaderboard/rank", 404)
lap = get(f"/api/v1/laps/{top['lap_id']}", "/api/v1/laps/{id}")
if lap["time_us"] != top["time_us"] or lap["proof"] is None:
    fail("lap record: " + json.dumps(lap))
proof = get(f"/api/v1/laps/{top['lap_id']}/proof", "/api/v1/laps/{id}/proof", raw=True)
if len(proof) != lap["proof"]["bytes"]:
    fail(f"proof: {len(proof)} bytes, the record says {lap['proof']['bytes']}")
for h in lap["proof"]["cars"]:
    if not get(f"/api/v1/cars/{h}/block", "/api/v1/cars/{hash}/block", raw=True):
        fail("empty car block " + h)
tj = json.loads(get(f"/api/v1/tracks/{lap['proof']['track_hash']}", "/api/v1/tracks/{hash}",
                    raw=True))
if not isinstance(tj, dict):
    fail("track JSON")
get("/api/v1/cars/0123456789abcdef/block", "/api/v1/cars/{hash}/block", 404)

metrics = get("/metrics", "/metrics", raw=True).decode()
for needle in [f'racesim_tick_duration_seconds_bucket{{room="{room}",le="+Inf"}}',
               f'racesim_room_players{{room="{room}"}}', "racesim_laps_recorded_total ",
               "racesim_db_commit_duration_seconds_count ", 'racesim_packets_dropped_total{reason=',
               'racesim_connections_refused_total{reason=', "racesim_db_queue_depth ",
               "racesim_shedding 0"]:
    if needle not in metrics:
        fail("metrics lack " + needle)
laps = [l for l in metrics.splitlines() if l.startswith("racesim_laps_recorded_total ")]
if int(laps[0].split()[1]) < 1:
    fail("metrics: no lap recorded")

# -- every endpoint of the specification was answered 200 and validated ---
missing = set(spec["paths"]) - covered
if missing:
    fail("endpoints of the specification never checked: " + ", ".join(sorted(missing)))

# -- a request budget per address: a burst gets 429 with a JSON error ----
codes = []
for _ in range(300):
    try:
        with urllib.request.urlopen(base + "/api/v1/rooms", timeout=10) as x:
            codes.append(x.status)
    except urllib.error.HTTPError as e:
        body = json.loads(e.read())
        validate("/api/v1/races", 429, body)
        codes.append(e.code)
if 429 not in codes or 200 not in codes:
    fail(f"no 429 in a burst of 300 requests: {sorted(set(codes))}")
print(f"check_api: ok: {len(covered)} endpoints validated against the specification, "
      f"{len(pos)} positions events in 2 s, {codes.count(429)} of 300 burst requests refused")
