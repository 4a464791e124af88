#!/usr/bin/python3
"""Validates every results file raceserver wrote against docs/results.schema.json.

Run by tests/test_results.c after a weekend of sessions: every *.json file in
DIR must validate against the schema (JSON Schema 2020-12), be named
<room>-<race id>-<session type>.json after its own content, and hold together
(positions 1..n in order, at most one fastest lap and the top-level one its
holder's, the leader's gap zero). No temporary file may be left. For the test
to compare with the RESULTS its clients got, prints one line per file, in
race_number order:

  <type> <index> <race_number> <status>|car,position,class,class_position,number,status,laps,finish,best,fastest,laps_led,penalty_ms;...

(class "-" and finish, best and number -1 for null), and after it one line per penalty, in the
order given:

  penalty <race_number> car=<car_slot> id=<id> <kind> <seconds>s <offence> by=<by> removed=<0|1> <reason>|<removal reason, or ->

Each row's penalties must agree with the row: ids unique and rising, penalty_ms the sum of its
time penalties not removed, disqualified exactly while a disqualification stands. Exits non-zero
with a message on the first failure.

usage: check_results.py DIR SCHEMA_JSON
"""
import json
import os
import sys

import jsonschema

folder, schema_path = sys.argv[1], sys.argv[2]
schema = json.load(open(schema_path))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)


def fail(msg):
    print("check_results: " + msg, file=sys.stderr)
    sys.exit(1)


lines = []
names = sorted(os.listdir(folder))
if not names:
    fail("no file in " + folder)
for name in names:
    path = os.path.join(folder, name)
    if not name.endswith(".json") or name.startswith("."):
        fail("unexpected file %s (a temporary file left behind?)" % name)
    doc = json.load(open(path))
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        fail("%s: %s at %s" % (name, e.message, "/".join(str(p) for p in e.path)))
    want = "%s-%d-%s.json" % (doc["room"], doc["race_id"], doc["session"]["type"])
    if name != want:
        fail("%s: named after its content it would be %s" % (name, want))
    rows = doc["results"]
    if [r["position"] for r in rows] != list(range(1, len(rows) + 1)):
        fail("%s: positions are not 1..%d in order" % (name, len(rows)))
    fastest = [r for r in rows if r["fastest_lap"]]
    if len(fastest) > 1:
        fail("%s: %d rows hold the fastest lap" % (name, len(fastest)))
    fl = doc["fastest_lap"]
    if fastest:
        if not fl or fl["car"] != fastest[0]["car_slot"] or fl["time_us"] != fastest[0]["best_lap_us"]:
            fail("%s: fastest_lap does not name its row's holder" % name)
        if min(r["best_lap_us"] for r in rows if r["best_lap_us"] is not None) != fl["time_us"]:
            fail("%s: the fastest lap is not the smallest best lap" % name)
    elif fl is not None:
        fail("%s: a fastest lap and no row holding it" % name)
    if rows and rows[0]["gap"] != {"laps": 0, "time_us": 0}:
        fail("%s: the leader's gap is %s" % (name, rows[0]["gap"]))
    if any(abs(r["penalty_s"] * 1000 - r["penalty_ms"]) > 0.5 for r in rows):
        fail("%s: penalty_s and penalty_ms disagree" % name)

    seen_ids = set()
    penalty_lines = []
    for r in rows:
        ids = [p["id"] for p in r["penalties"]]
        if ids != sorted(ids) or seen_ids & set(ids) or len(set(ids)) != len(ids):
            fail("%s: car %d: penalty ids %s repeat or are out of order" % (name, r["car_slot"], ids))
        seen_ids |= set(ids)
        standing = [p for p in r["penalties"] if not p["removed"]]
        total = sum(p["seconds"] * 1000 for p in standing if p["kind"] == "time")
        if min(total, 2**31 - 1) != r["penalty_ms"]:
            fail("%s: car %d: penalty_ms %d, its time penalties in force make %d"
                 % (name, r["car_slot"], r["penalty_ms"], total))
        dsq = any(p["kind"] == "dsq" for p in standing)
        if dsq != (r["status"] == "disqualified"):
            fail("%s: car %d: status %s with%s a disqualification in force"
                 % (name, r["car_slot"], r["status"], "" if dsq else "out"))
        for p in r["penalties"]:
            penalty_lines.append((p["id"], "penalty %d car=%d id=%d %s %ds %s by=%s removed=%d %s|%s" % (
                doc["race_number"], r["car_slot"], p["id"], p["kind"], p["seconds"], p["offence"],
                p["by"], 1 if p["removed"] else 0, p["reason"],
                p["removal"]["reason"] if p["removal"] else "-")))

    def num(v):
        return -1 if v is None else v

    cells = ["%d,%d,%s,%d,%d,%s,%d,%d,%d,%d,%d,%d" % (
        r["car_slot"], r["position"], r["class"] or "-", r["class_position"],
        num(r["number"]), r["status"], r["laps"],
        num(r["finish_time_us"]), num(r["best_lap_us"]), 1 if r["fastest_lap"] else 0,
        r["laps_led"], r["penalty_ms"]) for r in rows]
    lines.append((doc["race_number"], "%s %d %d %s|%s;" % (
        doc["session"]["type"], doc["session"]["index"], doc["race_number"], doc["status"],
        ";".join(cells)), [line for _, line in sorted(penalty_lines)]))
for _, line, penalties in sorted(lines):
    print(line)
    for p in penalties:
        print(p)
