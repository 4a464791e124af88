#!/usr/bin/python3
"""Checks a live raceserver's HTTP side against docs/openapi.json.

Run by tests/test_http.sh while bots race a lap: every endpoint of the
specification is requested for real and each answer is validated against
the schema the specification gives for its status; the live feed is read;
hostile and malformed requests must get their documented error and leave
the server healthy. Exits non-zero with a message on the first failure.

usage: check_api.py BASE_URL OPENAPI_JSON ROOM BOT_NAME...
"""
import http.client
import json
import socket
import sys
import time
import urllib.error
import urllib.request

import jsonschema

base, spec_path, room = sys.argv[1], sys.argv[2], sys.argv[3]
bots = set(sys.argv[4:])
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


def racing():
    r = get(f"/api/v1/rooms/{room}", tpl_room)
    return r if r["phase"] == "race" and len(r["entries"]) == len(bots) else None


r = wait_for("the race to start with every bot", racing, 60)
names = {e["name"] for e in r["entries"]}
if names != bots:
    fail(f"live timing lists {sorted(names)}, the bots are {sorted(bots)}")
if [e["position"] for e in r["entries"]] != list(range(1, len(bots) + 1)):
    fail("entries are not in position order: " + json.dumps(r["entries"]))
outline = get(f"/api/v1/tracks/{r['track']['hash']}/outline", "/api/v1/tracks/{hash}/outline")
if len(outline["points"]) < 10 or len(outline["lines"]) < 1:
    fail("outline too small")

# The feed: positions about ten times a second, cars moving.
conn = http.client.HTTPConnection(host, port, timeout=10)
conn.request("GET", f"/api/v1/feed?room={room}")
resp = conn.getresponse()
if resp.status != 200 or not resp.getheader("Content-Type", "").startswith("text/event-stream"):
    fail(f"feed: {resp.status} {resp.getheader('Content-Type')}")
covered.add("/api/v1/feed")
events, name, t0 = [], None, time.time()
while time.time() - t0 < 2.0:
    line = resp.fp.readline().decode().rstrip("\n")
    if line.startswith("event: "):
        name = line[7:]
    elif line.startswith("data: ") and name:
        events.append((name, json.loads(line[6:])))
        name = None
conn.close()
pos = [d for n, d in events if n == "positions"]
if len(pos) < 12:
    fail(f"feed: {len(pos)} positions events in 2 s (about 20 expected)")
if any(d["room"] != room or len(d["cars"]) != len(bots) for d in pos):
    fail("feed: a positions event of another room or with a car missing")
if pos[0]["cars"] == pos[-1]["cars"] or pos[-1]["tick"] <= pos[0]["tick"]:
    fail("feed: the cars did not move")

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
def finished_race():
    races = get("/api/v1/races?limit=5", "/api/v1/races")["races"]
    done = [x for x in races if x["status"] == "finished"]
    return done[0] if done else None


race = wait_for("a finished race in the database", finished_race, 150)
detail = get(f"/api/v1/races/{race['id']}", "/api/v1/races/{id}")
if [x["position"] for x in detail["results"]] != list(range(1, len(bots) + 1)):
    fail("race results not in position order")
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
               'racesim_connections_refused_total{reason=', "racesim_db_queue_depth "]:
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
