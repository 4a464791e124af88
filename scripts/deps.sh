#!/bin/sh
# Installs the Debian 12 packages this project needs to build and test.
#
#   scripts/deps.sh           compilers, CMake and the libraries (ENet, libsodium, SQLite,
#                             cJSON, cmocka, zlib; SDL2, SDL2_ttf, DejaVu fonts and Xvfb
#                             for examples/racer and its test; Mono's mcs and runtime
#                             for the C# binding's test; python3 for the Python
#                             binding's; libmicrohttpd for raceserver's HTTP side,
#                             python3-jsonschema, curl and prometheus's promtool for
#                             its test; chromium, nodejs and npm for the web page's
#                             test; emscripten for the browser replay in web/wasm/
#                             and its tests: emcc -O2 needs node-acorn, which
#                             emscripten depends on, found through
#                             NODE_PATH=/usr/share/nodejs: web/wasm/build.sh and the
#                             cross check set it)
#   scripts/deps.sh --cross   also clang and the i686/aarch64 cross toolchains
#                             with qemu-user, for tests/determinism/cross_check.sh
#
# Idempotent: asks dpkg first and does nothing (no apt-get update, no network)
# when every package is already installed. Runs as root directly, otherwise
# through sudo. Never prompts apt questions.
set -eu

base="build-essential cmake pkg-config libenet-dev libsodium-dev libsqlite3-dev libcjson-dev libmicrohttpd-dev python3-jsonschema prometheus curl libcmocka-dev zlib1g-dev libsdl2-dev libsdl2-ttf-dev fonts-dejavu-core xvfb xauth mono-mcs mono-runtime python3 chromium nodejs emscripten"
cross="clang gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-i686-linux-gnu libc6-dev-i386-cross qemu-user"

usage() {
    echo "usage: $0 [--cross]" >&2
    exit 2
}

# npm for the web page's browser test: Debian packages it apart from nodejs, but
# NodeSource's nodejs package carries its own npm (and conflicts with Debian's),
# so the npm package is only wanted when no npm command exists.
command -v npm >/dev/null 2>&1 || base="$base npm"

want="$base"
for arg in "$@"; do
    case "$arg" in
        --cross) want="$base $cross" ;;
        -h|--help) usage ;;
        *) echo "$0: unknown argument '$arg'" >&2; usage ;;
    esac
done

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "$0: this script needs a Debian-based system (dpkg and apt-get)." >&2
    echo "$0: install these packages with your package manager: $want" >&2
    exit 1
fi

missing=""
for pkg in $want; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    case "$status" in
        "install ok installed") ;;
        *) missing="$missing $pkg" ;;
    esac
done

if [ -z "$missing" ]; then
    echo "deps: all $(echo "$want" | wc -w) packages already installed"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "$0: missing packages:$missing" >&2
    echo "$0: run this script as root, or install sudo" >&2
    exit 1
fi

echo "deps: installing:$missing"
# Wait for another apt (e.g. unattended-upgrades on a fresh machine) instead
# of failing on its lock.
apt_opts="-o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0"
# shellcheck disable=SC2086
$as_root env DEBIAN_FRONTEND=noninteractive apt-get $apt_opts update -q
# shellcheck disable=SC2086
$as_root env DEBIAN_FRONTEND=noninteractive apt-get $apt_opts install -y -q \
    --no-install-recommends $missing
echo "deps: done"
