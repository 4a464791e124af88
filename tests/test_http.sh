#!/bin/sh
# The HTTP side of a real raceserver while two racebots drive a small
# weekend on the oval, a 20 s qualifying (the flag falls at 20 s, each car
# then ends its lap) and a one-lap race, in two
# classes (bot1 the room's first car, class GT; bot2 the formula car, class
# Open) (about 150 s): tests/http/check_api.py requests every endpoint of
# docs/openapi.json and validates each answer against it, checks the
# session, classes and class positions against this configuration, reads
# the live feed, sends hostile requests; promtool checks /metrics; SIGTERM
# must close the HTTP side with the rest.
#
# usage: test_http.sh RACESERVER RACEBOT SOURCE_DIR
set -u
raceserver=$1
racebot=$2
src=$3
. "$src/tests/support/raceserver.sh"
rs_test_workdir
python=/usr/bin/python3
[ -x "$python" ] || python=python3
if ! "$python" -c 'import jsonschema' 2>/dev/null; then
    echo "test_http: needs python3-jsonschema (scripts/deps.sh installs it)" >&2
    exit 1
fi

cd "$work" || exit 1
formula="Formula (2019-era F1)"
cat >server.json <<'JSON'
{
  "cars": [{"car": "c5", "class": "GT"}, {"car": "formula", "class": "Open"}],
  "weekend": [{"session": "qualifying", "seconds": 20},
              {"session": "race", "laps": 1, "grid": "qualifying"}]
}
JSON
# shellcheck disable=SC2086
start_raceserver server.log "$raceserver" --config server.json $RS_ONE_LAP_RACE \
    --start-players 2 --db race.db --key-file server.key --http 127.0.0.1:0 || exit 1
http_port=$(sed -n 's/.*http: listening on 127\.0\.0\.1 port \([0-9][0-9]*\).*/\1/p' server.log)
[ -n "$http_port" ] || { echo "test_http: no HTTP port in the log" >&2; cat server.log >&2; exit 1; }
base="http://127.0.0.1:$http_port"
"$racebot" --port "$port" --name bot1 --sessions 2 --quiet >bot1.log 2>&1 &
bot1=$!
"$racebot" --port "$port" --name bot2 --car "$formula" --sessions 2 --quiet >bot2.log 2>&1 &
bot2=$!

status=0
RS_HTTP_TEST_DB="$work/race.db" "$python" "$src/tests/http/check_api.py" "$base" "$src/docs/openapi.json" default server.json \
    bot1=GT bot2=Open || status=1

if [ $status -eq 0 ]; then
    if command -v promtool >/dev/null 2>&1; then
        curl -sf "$base/metrics" >metrics.txt || { echo "test_http: /metrics failed" >&2; status=1; }
        if ! promtool check metrics <metrics.txt; then
            echo "test_http: promtool check metrics failed" >&2
            status=1
        fi
    else
        echo "test_http: promtool missing (package prometheus): /metrics not linted" >&2
        status=1
    fi
fi

wait "$bot1" "$bot2" 2>/dev/null
# Graceful shutdown closes the HTTP side too.
kill -TERM "$server_pid"
wait "$server_pid"
rc=$?
server_pid=
if [ $rc -ne 0 ]; then
    echo "test_http: raceserver exited with $rc after SIGTERM" >&2
    status=1
fi
if curl -s -o /dev/null --max-time 2 "$base/healthz"; then
    echo "test_http: the HTTP side still answers after the server stopped" >&2
    status=1
fi
[ $status -eq 0 ] || { echo "--- server log" >&2; tail -n 40 server.log >&2; }
exit $status
