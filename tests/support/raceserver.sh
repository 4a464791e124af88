# Sourced by the shell tests that race against a real raceserver.

# The race those tests drive: one lap of the oval, starting as soon as one
# player is in (word-split on purpose where it is used).
RS_ONE_LAP_RACE="--track oval --laps 1 --start-players 1 --lobby-s 1 --countdown-s 1 --stats-interval 0"

# start_raceserver LOG RACESERVER [ARG...]: starts RACESERVER on a free
# loopback port (--bind 127.0.0.1 --port 0, then ARG...) with its output in
# LOG, and waits up to 10 s for it to listen. Sets server_pid and port;
# returns 1, with the log on stderr, when it does not start. The caller
# stops it.
start_raceserver() {
    rs_log=$1
    rs_bin=$2
    shift 2
    "$rs_bin" --bind 127.0.0.1 --port 0 "$@" >"$rs_log" 2>&1 &
    server_pid=$!
    port=
    for _ in $(seq 100); do
        port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$rs_log")
        [ -n "$port" ] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    cat "$rs_log" >&2
    return 1
}

# rs_test_workdir: a temporary folder in $work, removed at exit together with
# the raceserver start_raceserver started (server_pid; a script that stops
# it itself empties server_pid), also when the test is interrupted.
rs_test_workdir() {
    work=$(mktemp -d) || exit 2
    server_pid=
    trap rs_test_cleanup EXIT
    trap 'exit 1' HUP INT TERM PIPE
}

rs_test_cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$work"
}
