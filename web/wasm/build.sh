#!/bin/sh
# Builds the browser's lap replay: the physics core and web/wasm/replay.c
# compiled to WebAssembly by emscripten, as racesim_replay.js (a classic
# script defining the factory createRacesimReplay; no ES module, no
# bundler) and racesim_replay.wasm beside it.
#
# It configures this repository's own CMake project with emscripten's
# toolchain (emcmake) in the physics-only configuration, so the physics
# sources and their determinism flags come from physics/CMakeLists.txt as
# in every other build, and builds the one target racesim_replay
# (web/wasm/CMakeLists.txt). The top-level CMake build calls this script
# (option RS_WASM); CI may call it directly.
#
# usage: web/wasm/build.sh [--build-dir DIR] [--out DIR] [--jobs N] [--target T]
#   --build-dir DIR  the emscripten build tree (default build-wasm/ in the
#                    repository); reused and rebuilt incrementally
#   --out DIR        where racesim_replay.js and .wasm are copied (default:
#                    DIR/web/wasm of the build tree, where they are built)
#   --jobs N         parallel compile jobs (default 2)
#   --target T       another target of that tree (the cross check builds
#                    racesim, which then runs under node)
#
# Needs emcmake and emcc (scripts/deps.sh); EMCMAKE names the emcmake to
# use (CMake passes the one it found), and its folder goes first on PATH so
# that emcc is the same emscripten's. Debian's emcc -O2 needs the acorn
# parser from /usr/share/nodejs: NODE_PATH gets it when unset.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build-wasm
out=
jobs=2
target=racesim_replay

while [ $# -gt 0 ]; do
    case "$1" in
        --build-dir) build=${2:?--build-dir needs a directory}; shift 2 ;;
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
        --target) target=${2:?--target needs a name}; shift 2 ;;
        -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "wasm build: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done

emcmake=${EMCMAKE:-emcmake}
case "$emcmake" in
    */*) PATH=$(dirname "$emcmake"):$PATH; export PATH ;;
esac
for tool in "$emcmake" emcc cmake; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "wasm build: $tool not found; install emscripten (scripts/deps.sh)" >&2
        exit 2
    fi
done
if [ -z "${NODE_PATH:-}" ] && [ -d /usr/share/nodejs ]; then
    NODE_PATH=/usr/share/nodejs
    export NODE_PATH
fi

# Release: -O3 on physics (physics/CMakeLists.txt) and emcc's -O3 link
# (binaryen keeps IEEE arithmetic; it does no fast-math unless asked).
# Configured once; later runs only build.
if [ ! -f "$build/CMakeCache.txt" ]; then
    "$emcmake" cmake -S "$root" -B "$build" -DRS_PHYSICS_ONLY=ON -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" --target "$target" -j "$jobs"

if [ "$target" = racesim_replay ] && [ -n "$out" ]; then
    mkdir -p "$out"
    for f in racesim_replay.js racesim_replay.wasm; do
        cmake -E copy_if_different "$build/web/wasm/$f" "$out/$f"
    done
fi
