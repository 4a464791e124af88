#!/bin/sh
# check_install.sh: what a game developer does with an installed racesim, in
# a temporary prefix, outside the source tree:
#   1. cmake --install BUILD --prefix TMP; the layout (tools, not tests; the
#      shared library's symlinks; headers, .pc, CMake package, data)
#   2. every installed header compiles on its own against the installed tree
#   3. the installed library exports exactly the installed headers' functions
#      under its soname (tests/check_exports.sh)
#   4. examples/minimal.c built with `pkg-config --cflags --libs
#      racesim-client`, and with CMake (find_package(racesim), racesim::client
#      and racesim::client_static); ldd shows the installed library is used
#   5. the installed raceserver, run from an empty folder with its defaults
#      (its data found under the prefix, its database created from the
#      embedded migrations) on a free loopback port, and the three programs
#      connect, get a world and exit 0 in turn; then SIGTERM stops the server
#      (exit 0) and the installed racectl reads its database; the installed
#      racesim defaults to the installed data too
#
# usage: sh tests/install/check_install.sh BUILD_DIR MINIMAL_C
#   CMAKE, CC, PKG_CONFIG  environment: the tools (default cmake, cc, pkg-config)
# Exit status 0 ok, 1 a check failed (the step and its output are printed).
set -u
# shellcheck source=../support/raceserver.sh
. "$(dirname "$0")/../support/raceserver.sh"

CMAKE=${CMAKE:-cmake}
CC=${CC:-cc}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
here=$(cd "$(dirname "$0")" && pwd)

if [ $# -ne 2 ]; then
    echo "usage: sh $0 BUILD_DIR MINIMAL_C" >&2
    exit 2
fi
# Absolute: the script runs the programs from a folder of its own.
build=$(cd "$1" && pwd) || exit 2
minimal=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") || exit 2

rs_test_workdir
prefix=$work/prefix

fail() {
    echo "check_install: FAIL: $*" >&2
    exit 1
}
# run LOG COMMAND...: runs it, output into LOG; on failure prints LOG and fails.
run() {
    log=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        fail "$*"
    fi
}
step() {
    echo "check_install: $*"
}

# The environment must not point anything at the source or build tree.
unset RS_DATA_DIR CPATH C_INCLUDE_PATH LIBRARY_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH

# ---------------------------------------------------------------- 1. install
step "cmake --install $build --prefix $prefix"
run "$work/install.log" "$CMAKE" --install "$build" --prefix "$prefix"
pcfile=$(ls "$prefix"/lib*/pkgconfig/racesim-client.pc 2>/dev/null | head -n 1)
[ -n "$pcfile" ] || fail "no lib*/pkgconfig/racesim-client.pc under $prefix"
libdir=$(dirname "$(dirname "$pcfile")")

tools=$(ls "$prefix/bin" | tr '\n' ' ')
for t in raceserver racectl racebot racesim; do
    [ -x "$prefix/bin/$t" ] || fail "bin/$t is missing (bin/ holds: $tools)"
done
for t in $tools; do
    case $t in
        test_* | *bench | loadtest | example_*) fail "bin/$t is a test, benchmark or example" ;;
    esac
done
version=$(PKG_CONFIG_PATH=$libdir/pkgconfig "$PKG_CONFIG" --modversion racesim-client) ||
    fail "pkg-config cannot read $pcfile"
major=${version%%.*}
soname=libracesim_client.so.$major
[ "$(readlink "$libdir/libracesim_client.so")" = "$soname" ] ||
    fail "lib/libracesim_client.so should link to $soname"
[ "$(readlink "$libdir/$soname")" = "libracesim_client.so.$version" ] ||
    fail "lib/$soname should link to libracesim_client.so.$version"
for f in "$libdir/libracesim_client.so.$version" "$libdir/libracesim_client.a" \
         "$libdir/cmake/racesim/racesimConfig.cmake" "$libdir/cmake/racesim/racesimConfigVersion.cmake" \
         "$prefix/include/racesim/client.h" "$prefix/share/racesim/data/cars/c5.json" \
         "$prefix/share/racesim/data/tracks/oval.json" "$prefix/share/racesim/web/index.html" \
         "$prefix/share/racesim/web/js/main.js" "$prefix/share/racesim/web/css/style.css" \
         "$prefix/share/doc/racesim/RACESERVER.md" "$prefix/share/doc/racesim/deploy/raceserver.service"; do
    [ -f "$f" ] || fail "missing $f"
done
step "installed: $tools; $(cd "$prefix" && ls -d lib*/libracesim_client.* | tr '\n' ' ')"

# ---------------------------------------------------------------- 2. headers
headers=$(cd "$prefix/include" && find racesim -name '*.h' | sort)
for h in $headers; do
    printf '#include "%s"\n' "$h" >"$work/one.c"
    run "$work/header.log" "$CC" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" "$work/one.c"
done
step "$(echo "$headers" | wc -l) installed headers compile on their own"

# ---------------------------------------------------------------- 3. exports
set --
for h in $headers; do
    set -- "$@" "$prefix/include/$h"
done
run "$work/exports.log" sh "$here/../check_exports.sh" "$libdir/$soname" "$soname" "RACESIM_$major" "$@"
sed 's/^/  /' "$work/exports.log"

# ---------------------------------------------------------------- 4. builds
# uses_installed BINARY: the dynamic loader finds libracesim_client in the prefix.
uses_installed() {
    line=$(ldd "$1" | grep libracesim_client)
    echo "  ldd $(basename "$1"): ${line:-no libracesim_client (static)}"
    case $line in
        *"=> $libdir/"*) ;;
        *) fail "$1 does not load libracesim_client from $libdir" ;;
    esac
}

cflags=$(PKG_CONFIG_PATH=$libdir/pkgconfig "$PKG_CONFIG" --cflags racesim-client) &&
    libs=$(PKG_CONFIG_PATH=$libdir/pkgconfig "$PKG_CONFIG" --libs racesim-client) ||
    fail "pkg-config racesim-client"
step "cc minimal.c $cflags $libs"
# shellcheck disable=SC2086 # pkg-config's output is a list of words
run "$work/cc.log" "$CC" -std=c11 -Wall -Werror -o "$work/minimal_pc" "$minimal" $cflags $libs \
    -Wl,-rpath,"$libdir"
uses_installed "$work/minimal_pc"

step "cmake: find_package(racesim), racesim::client and racesim::client_static"
run "$work/consumer-configure.log" "$CMAKE" -S "$here/consumer" -B "$work/consumer" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$CC" -DMINIMAL_SOURCE="$minimal"
grep -q "racesim $version from $libdir/cmake/racesim" "$work/consumer-configure.log" ||
    fail "find_package(racesim) did not find $prefix: $(grep 'racesim ' "$work/consumer-configure.log")"
run "$work/consumer-build.log" "$CMAKE" --build "$work/consumer"
uses_installed "$work/consumer/minimal"
if ldd "$work/consumer/minimal_static" | grep -q libracesim_client; then
    fail "minimal_static loads libracesim_client"
fi
echo "  ldd minimal_static: no libracesim_client (static)"

# ---------------------------------------------------------------- 5. run
mkdir "$work/run"
cd "$work/run" || fail "cd $work/run"
step "$prefix/bin/raceserver in an empty folder, port 0 on 127.0.0.1"
# shellcheck disable=SC2086 # the race's options are words
start_raceserver server.log "$prefix/bin/raceserver" $RS_ONE_LAP_RACE ||
    fail "raceserver did not start"
grep -q "track $prefix/.*share/racesim/data/tracks/oval.json" server.log || {
    cat server.log >&2
    fail "the installed raceserver does not use the installed data"
}
"$prefix/bin/racesim" golden --help | grep -q "default $prefix/.*share/racesim/data)" ||
    fail "the installed racesim does not default to the installed data"
step "raceserver on port $port, data and database: $(grep -o "track [^,]*" server.log), $(grep -o 'database: .*' server.log)"

# One after the other (the example's player name is fixed, and a name plays
# once at a time): the first starts the race, the others join it late.
for name in minimal_pc consumer/minimal consumer/minimal_static; do
    "$work/$name" 127.0.0.1 "$port" 4 >client.log 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] || ! grep -q '^connected:' client.log || ! grep -q '^world ready:' client.log ||
        ! grep -q 'desyncs 0,' client.log; then
        echo "check_install: $name exited $rc:" >&2
        cat client.log server.log >&2
        fail "an SDK program failed against the installed raceserver"
    fi
    echo "  $name: exit 0: $(grep '^world ready' client.log); $(tail -n 1 client.log)"
done

kill -TERM "$server_pid"
wait "$server_pid"
rc=$?
server_pid=
[ "$rc" -eq 0 ] || {
    cat server.log >&2
    fail "raceserver exited $rc on SIGTERM"
}
run "$work/racectl.log" "$prefix/bin/racectl" --db racesim.db races
step "raceserver stopped (exit 0); racectl races: $(grep -c . "$work/racectl.log") line(s)"
echo "ok"
