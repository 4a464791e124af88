#!/bin/sh
# The deployment files a user copies (deploy/): the systemd unit passes
# systemd-analyze verify without a single complaint, and raceserver starts
# from exactly the unit's command line and the sample configuration (with
# only the ports, database and key moved into a temporary folder), serves
# the rooms the configuration names, and stops cleanly on SIGTERM.
#
# usage: check_deploy.sh RACESERVER SOURCE_DIR
set -u
raceserver=$1
src=$2
. "$src/tests/support/raceserver.sh"
rs_test_workdir
cd "$work" || exit 1

# The unit, pointed at this build's program and the repository's sample.
sed -e "s#/usr/local/bin/raceserver#$raceserver#" \
    -e "s#/etc/racesim/raceserver.json#$src/deploy/raceserver.json#" \
    "$src/deploy/raceserver.service" >raceserver.service
if command -v systemd-analyze >/dev/null 2>&1; then
    systemd-analyze verify ./raceserver.service >verify.log 2>&1
    if [ $? -ne 0 ] || [ -s verify.log ]; then
        echo "check_deploy: systemd-analyze verify complains:" >&2
        cat verify.log >&2
        exit 1
    fi
else
    echo "check_deploy: systemd-analyze missing: the unit's syntax is not checked" >&2
fi

# ExecStart's command line, word by word, then the test's overrides.
exec_start=$(sed -n 's/^ExecStart=//p' raceserver.service)
[ -n "$exec_start" ] || { echo "check_deploy: no ExecStart in the unit" >&2; exit 1; }
# shellcheck disable=SC2086
set -- $exec_start
prog=$1
shift
start_raceserver server.log "$prog" "$@" --db race.db --key-file server.key \
    --http 127.0.0.1:0 --stats-interval 0 || exit 1
http_port=$(sed -n 's/.*http: listening on 127\.0\.0\.1 port \([0-9][0-9]*\).*/\1/p' server.log)
status=0
rooms=$(curl -sf "http://127.0.0.1:$http_port/api/v1/rooms")
want=$(sed -n 's/.*"name": "\([^"]*\)".*/\1/p' "$src/deploy/raceserver.json" | tr '\n' ' ')
for name in $want; do
    case "$rooms" in
        *"\"name\":\"$name\""*) ;;
        *) echo "check_deploy: room '$name' of the sample is not served: $rooms" >&2; status=1 ;;
    esac
done
[ -n "$want" ] || { echo "check_deploy: no room names in the sample" >&2; status=1; }
curl -sf "http://127.0.0.1:$http_port/readyz" >/dev/null ||
    { echo "check_deploy: /readyz is not 200" >&2; status=1; }
kill -TERM "$server_pid"
wait "$server_pid"
rc=$?
server_pid=
[ $rc -eq 0 ] || { echo "check_deploy: raceserver exited $rc after SIGTERM" >&2; status=1; }
[ $status -eq 0 ] || cat server.log >&2
[ $status -eq 0 ] && echo "check_deploy: ok: the unit verifies, the sample's rooms ($want) are served"
exit $status
