#!/usr/bin/env bash
# Cross-build determinism check (docs/DETERMINISM.md, "The cross check").
#
# Builds the physics-only configuration with several compilers, optimisation
# levels and architectures, runs `racesim golden --trace` in each, and demands
# bit-identical traces (one hash per car per tick). The gcc -O0 build is the
# reference and must also reproduce RS_GOLDEN_HASH from
# tests/support/golden_scenario.h.
#
# One more row is WebAssembly: the same configuration built by emscripten
# (emcmake) and run under node, as the browser's lap replay runs the physics
# (web/wasm/). It is skipped, with a message, when emcmake, emcc or node is
# missing; where they are installed it must match like any other build.
#
# It also builds two negative controls that break a determinism rule on
# purpose (FMA contraction; libm's sin). Each must be caught: its trace must
# differ from the reference (and for libm_sin, tests/check_symbols.sh must
# reject its library). A control that is not caught means the check is blind,
# and the script fails.
#
# usage: tests/determinism/cross_check.sh [--work-dir DIR] [--parallel N]
#   --work-dir DIR  where the builds go (default: build-det/ in the repo root,
#                   or $RS_DET_DIR). Existing builds there are reused and
#                   rebuilt incrementally; nothing is deleted.
#   --parallel N    how many configurations to build at once (default 2).
#
# Exit status: 0 all builds agree and both controls are caught; 1 otherwise;
# 2 usage or missing tools.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${RS_DET_DIR:-$root/build-det}
parallel=2

while [ $# -gt 0 ]; do
    case "$1" in
        --work-dir) work=${2:?--work-dir needs a directory}; shift 2 ;;
        --work-dir=*) work=${1#*=}; shift ;;
        --parallel) parallel=${2:?--parallel needs a number}; shift 2 ;;
        --parallel=*) parallel=${1#*=}; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "cross_check: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
case "$parallel" in ''|*[!0-9]*|0) echo "cross_check: --parallel wants a positive number" >&2; exit 2 ;; esac
mkdir -p "$work"
work=$(cd "$work" && pwd)

header=$root/tests/support/golden_scenario.h
check_symbols=$root/tests/check_symbols.sh
start_s=$SECONDS

# ---------------------------------------------------------------- tools
die_tools() {
    echo "cross_check: $1 not found; install with: scripts/deps.sh --cross" >&2
    exit 2
}
command -v cmake >/dev/null || die_tools cmake
command -v gcc >/dev/null || die_tools gcc
clang=$(command -v clang || command -v clang-14 || true)
[ -n "$clang" ] || die_tools clang
command -v i686-linux-gnu-gcc >/dev/null || die_tools i686-linux-gnu-gcc
command -v aarch64-linux-gnu-gcc >/dev/null || die_tools aarch64-linux-gnu-gcc
command -v qemu-aarch64 >/dev/null || die_tools qemu-aarch64

# WebAssembly is optional here: without emscripten or node the row is
# skipped (scripts/deps.sh installs both). Debian's emcc -O2 loads acorn
# from /usr/share/nodejs. Node 18+ has fetch(), which emscripten 3.1's glue
# then tries on a file path; --no-experimental-fetch makes it read the file.
wasm_skip=""
for t in emcmake emcc node; do
    command -v "$t" >/dev/null || { wasm_skip="$t not found (install emscripten and nodejs: scripts/deps.sh)"; break; }
done
wasm_runner=""
if [ -z "$wasm_skip" ]; then
    if [ -z "${NODE_PATH:-}" ] && [ -d /usr/share/nodejs ]; then
        export NODE_PATH=/usr/share/nodejs
    fi
    wasm_runner=node
    if node --no-experimental-fetch -e 0 >/dev/null 2>&1; then
        wasm_runner="node --no-experimental-fetch"
    fi
fi

# Native when the host really runs i386 binaries, else qemu. Having the i386
# loader is not enough: some kernels (containers, sandboxes) are built
# without 32-bit support and refuse the binary, so try a tiny one.
i686_runs_natively() {
    local dir rc
    dir=$(mktemp -d)
    printf 'int main(void) { return 0; }\n' >"$dir/t.c"
    rc=1
    if i686-linux-gnu-gcc -o "$dir/t" "$dir/t.c" 2>/dev/null && "$dir/t" 2>/dev/null; then
        rc=0
    fi
    rm -rf "$dir"
    return $rc
}
i686_runner=""
case "$(uname -m)" in
    x86_64|i?86) i686_runs_natively || i686_runner="qemu-i386 -L /usr/i686-linux-gnu" ;;
    *) i686_runner="qemu-i386 -L /usr/i686-linux-gnu" ;;
esac
if [ -n "$i686_runner" ]; then command -v qemu-i386 >/dev/null || die_tools qemu-i386; fi
aarch64_runner="qemu-aarch64 -L /usr/aarch64-linux-gnu"

# ---------------------------------------------------------------- golden scenario constants
header_value() { # the value of '#define NAME value' in the golden header
    sed -n "s/^#define $1[[:space:]]\{1,\}\([^/]*\).*/\1/p" "$header" | tr -d '[:space:]'
}
golden_hash=$(header_value RS_GOLDEN_HASH)
golden_hash=$(printf '%s' "$golden_hash" | tr 'A-F' 'a-f' | sed 's/^0x//; s/[ul]*$//')
if ! printf '%s' "$golden_hash" | grep -Eq '^[0-9a-f]{1,16}$'; then
    echo "cross_check: cannot read RS_GOLDEN_HASH from $header" >&2
    exit 2
fi
golden_hash=$(printf '%016s' "$golden_hash" | tr ' ' 0)
# Plain integer expressions such as (60u * 60u): strip the suffixes, let bash count.
golden_cars=$(( $(header_value RS_GOLDEN_CARS | sed 's/\([0-9]\)[uUlL]*/\1/g') ))
golden_ticks=$(( $(header_value RS_GOLDEN_TICKS | sed 's/\([0-9]\)[uUlL]*/\1/g') ))

# ---------------------------------------------------------------- configurations
# name | how to compile | CMAKE_C_FLAGS | extra cmake arguments | role
# role: ref (the reference), same (must equal ref), neg-fma / neg-libm (must differ).
tc=$root/cmake
if grep -qw fma /proc/cpuinfo 2>/dev/null; then
    fma_cfg="neg-fma|clang|-O2 -march=native|-DRS_NEGATIVE_CONTROL=fma|neg-fma"
    fma_note="clang -O2 -march=native on an FMA-capable x86-64 host"
else
    # aarch64 always has FMA; gcc contracts a*b+c into it once allowed.
    fma_cfg="neg-fma|aarch64|-O2|-DRS_NEGATIVE_CONTROL=fma|neg-fma"
    fma_note="aarch64 under qemu (this host has no FMA)"
fi
configs=(
    "gcc-O0|gcc|-O0||ref"
    "gcc-O3-native|gcc|-O3 -march=native||same"
    "clang-O0|clang|-O0||same"
    "clang-O2-native|clang|-O2 -march=native||same"
    "gcc-O2-baseline|gcc|-O2|-DRS_AVX2=OFF|same"
    "i686-sse2|i686|-O2 -msse2 -mfpmath=sse||same"
    "aarch64|aarch64|-O2||same"
    "wasm-O2|wasm|-O2||same"
    "$fma_cfg"
    "neg-libm-sin|gcc|-O2|-DRS_NEGATIVE_CONTROL=libm_sin|neg-libm"
)

field() { # field N of a config line
    local IFS='|'
    # shellcheck disable=SC2206
    local f=($1)
    printf '%s' "${f[$2]:-}"
}

compiler_args() { # cmake arguments selecting the compiler
    case "$1" in
        gcc) printf '%s\n' "-DCMAKE_C_COMPILER=gcc" ;;
        clang) printf '%s\n' "-DCMAKE_C_COMPILER=$clang" ;;
        i686) printf '%s\n' "-DCMAKE_TOOLCHAIN_FILE=$tc/toolchain-i686.cmake" ;;
        aarch64) printf '%s\n' "-DCMAKE_TOOLCHAIN_FILE=$tc/toolchain-aarch64.cmake" ;;
        wasm) ;; # emcmake adds emscripten's toolchain (build_and_run)
    esac
}

runner_of() {
    case "$1" in
        i686) printf '%s' "$i686_runner" ;;
        aarch64) printf '%s' "$aarch64_runner" ;;
        wasm) printf '%s' "$wasm_runner" ;;
        *) printf '' ;;
    esac
}

describe() { # human-readable flags column
    local how=$1 cflags=$2 extra=$3 d
    case "$how" in
        gcc) d="gcc $cflags" ;;
        clang) d="clang $cflags" ;;
        i686) d="i686-gcc $cflags" ;;
        aarch64) d="aarch64-gcc $cflags (qemu)" ;;
        wasm) d="emcc $cflags (node)" ;;
    esac
    [ "$how" = i686 ] && [ -n "$i686_runner" ] && d="$d (qemu)"
    case "$extra" in
        *=fma) d="$d -ffp-contract=fast" ;;
        *=libm_sin) d="$d +libm sin" ;;
        *RS_AVX2=OFF*) d="$d, SSE2 only (no AVX2 copy)" ;;
    esac
    printf '%s' "$d"
}

# ---------------------------------------------------------------- one build
# Configures, builds and runs one configuration; never fails itself, but
# leaves $dir/status: ok, or "failed <step>".
build_and_run() {
    local line=$1 name how cflags extra dir t0 runner
    name=$(field "$line" 0); how=$(field "$line" 1); cflags=$(field "$line" 2); extra=$(field "$line" 3)
    dir=$work/$name
    mkdir -p "$dir"
    rm -f "$dir/status" "$dir/trace.txt"
    t0=$SECONDS
    local -a cargs
    mapfile -t cargs < <(compiler_args "$how")
    # RS_NEGATIVE_CONTROL is always given, so a reused cache cannot carry an old value.
    local neg="" avx2=ON
    case "$extra" in -DRS_NEGATIVE_CONTROL=*) neg=${extra#-DRS_NEGATIVE_CONTROL=} ;; esac
    # RS_AVX2 likewise: OFF keeps the four-tyre evaluation to the baseline
    # instructions (SSE2 on x86-64), so that build checks the narrow path
    # against the AVX2 one the native builds and the reference run.
    case "$extra" in -DRS_AVX2=OFF) avx2=OFF ;; esac
    # WebAssembly: emscripten's own wrapper configures; only racesim is
    # built (the browser replay builds in the main build, RS_WASM), and it
    # is racesim.js, run by node.
    local wrap="" prog=$dir/bin/racesim
    local -a targets=()
    if [ "$how" = wasm ]; then
        wrap=emcmake
        prog=$dir/bin/racesim.js
        targets=(--target racesim)
    fi
    if ! $wrap cmake -S "$root" -B "$dir" "${cargs[@]}" \
            -DCMAKE_BUILD_TYPE=None "-DCMAKE_C_FLAGS=$cflags" \
            -DRS_PHYSICS_ONLY=ON "-DRS_NEGATIVE_CONTROL=$neg" "-DRS_AVX2=$avx2" \
            >"$dir/configure.log" 2>&1; then
        echo "failed configure (see $dir/configure.log)" >"$dir/status"; return 0
    fi
    # Everything the physics-only configuration has (racesim, physbench), so
    # the check also proves that it cross-builds.
    if ! cmake --build "$dir" "${targets[@]}" -j2 >"$dir/build.log" 2>&1; then
        echo "failed build (see $dir/build.log)" >"$dir/status"; return 0
    fi
    runner=$(runner_of "$how")
    # shellcheck disable=SC2086  # runner is a command line
    if ! (cd "$dir" && $runner "$prog" golden --trace >"$dir/trace.txt" 2>"$dir/run.log"); then
        echo "failed run (see $dir/run.log)" >"$dir/status"; return 0
    fi
    echo ok >"$dir/status"
    echo "  built and ran $name in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------- trace checks
# Prints nothing when the trace is well formed, else what is wrong.
validate_trace() {
    # (Debian's mawk has no {n} intervals in regular expressions.)
    awk -v cars="$golden_cars" -v ticks="$golden_ticks" '
        /^[0-9]+ [0-9]+ [0-9a-fA-F]+$/ && length($3) == 16 {
            t = $1 + 0; c = $2 + 0
            if (t < 1 || t > ticks || c < 0 || c >= cars) { bad = bad sprintf("line %d out of range: %s\n", NR, $0) }
            else if (!((t, c) in seen)) { seen[t, c] = 1; n++ }
        }
        { last = $0 }
        END {
            if (n != cars * ticks) printf "%d distinct (tick, car) hash lines, expected %d x %d\n", n, ticks, cars
            if (last !~ /^hash=[0-9a-fA-F]+$/ || length(last) != 21) printf "last line is not hash=<16 hex>: \"%s\"\n", last
            printf "%s", bad
        }' "$1" | head -5
}

final_hash() { tail -n 1 "$1" | sed -n 's/^hash=\([0-9a-fA-F]\{16\}\)$/\1/p' | tr 'A-F' 'a-f'; }

# Prints the first difference between two traces: the first (tick, car) in the
# reference's order whose hash differs, else the first differing line.
first_difference() {
    local ref=$1 other=$2 msg
    msg=$(awk '
        NR == FNR { if ($0 ~ /^[0-9]+ [0-9]+ [0-9a-fA-F]+$/ && length($3) == 16) h[$1 " " $2] = $3; next }
        $0 ~ /^[0-9]+ [0-9]+ [0-9a-fA-F]+$/ && length($3) == 16 {
            k = $1 " " $2
            if (!(k in h)) { printf "first difference: tick %d car %d: reference %s, this build has no hash\n", $1, $2, $3; exit }
            if (h[k] != $3) { printf "first difference: tick %d car %d: reference %s, this build %s\n", $1, $2, $3, h[k]; exit }
        }' "$other" "$ref")
    if [ -z "$msg" ]; then
        local n
        n=$(cmp "$ref" "$other" 2>/dev/null | sed -n 's/.* line \([0-9]*\).*/\1/p')
        if [ -n "$n" ]; then
            msg="first difference at line $n: reference \"$(sed -n "${n}p" "$ref")\", this build \"$(sed -n "${n}p" "$other")\""
        else
            msg="traces differ in length (one is a prefix of the other)"
        fi
    fi
    printf '%s' "$msg"
}

# Without emscripten or node the WebAssembly row is left out, and says so.
skipped_rows=()
if [ -n "$wasm_skip" ]; then
    kept=()
    for line in "${configs[@]}"; do
        if [ "$(field "$line" 1)" = wasm ]; then
            skipped_rows+=("$(field "$line" 0)"$'\t'"$(describe wasm "$(field "$line" 2)" "")"$'\t'"-"$'\t'"skipped: $wasm_skip")
        else
            kept+=("$line")
        fi
    done
    configs=("${kept[@]}")
fi

# ---------------------------------------------------------------- run
echo "cross_check: source $root"
echo "cross_check: builds in $work, $parallel at a time"
echo "cross_check: FMA control: $fma_note"
echo "cross_check: i686 runs ${i686_runner:-natively}"
if [ -n "$wasm_skip" ]; then
    echo "cross_check: WebAssembly row SKIPPED: $wasm_skip"
else
    echo "cross_check: WebAssembly runs under $wasm_runner"
fi
for line in "${configs[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
    build_and_run "$line" &
done
wait

fail=0
rows=()
ref_dir=$work/$(field "${configs[0]}" 0)
ref_trace=$ref_dir/trace.txt
ref_ok=0
problems=()

for line in "${configs[@]}"; do
    name=$(field "$line" 0); how=$(field "$line" 1); cflags=$(field "$line" 2)
    extra=$(field "$line" 3); role=$(field "$line" 4)
    dir=$work/$name
    flags=$(describe "$how" "$cflags" "$extra")
    status=$(cat "$dir/status" 2>/dev/null || echo "failed (no status)")
    hash="-"
    verdict=""
    if [ "$status" != ok ]; then
        verdict="FAIL: $status"
        case "$status" in
            *configure*) log=$dir/configure.log ;;
            *build*) log=$dir/build.log ;;
            *) log=$dir/run.log ;;
        esac
        excerpt=$(grep -m 6 -E 'error|Error|undefined reference' "$log" 2>/dev/null || true)
        [ -n "$excerpt" ] || excerpt=$(tail -n 8 "$log" 2>/dev/null || true)
        problems+=("$name: $status"$'\n'"$excerpt")
        fail=1
    else
        hash=$(final_hash "$dir/trace.txt")
        [ -n "$hash" ] || hash="-"
        bad=$(validate_trace "$dir/trace.txt")
        if [ -n "$bad" ]; then
            verdict="FAIL: malformed trace"
            problems+=("$name: malformed trace ($dir/trace.txt):"$'\n'"$bad")
            fail=1
        fi
    fi

    if [ -z "$verdict" ]; then
        case "$role" in
        ref)
            ref_ok=1
            if [ "$hash" = "$golden_hash" ]; then
                verdict="reference, = RS_GOLDEN_HASH"
            else
                verdict="FAIL: reference != RS_GOLDEN_HASH $golden_hash"
                problems+=("$name: final hash $hash but tests/support/golden_scenario.h has RS_GOLDEN_HASH 0x$golden_hash"$'\n'"  (if physics changed on purpose: see docs/DETERMINISM.md, 'Changing the golden hash')")
                fail=1
            fi
            if [ -f "$check_symbols" ] && ! sh "$check_symbols" "$dir/lib/librs_physics.a" >"$dir/symbols.log" 2>&1; then
                verdict="$verdict; FAIL: check_symbols rejects it"
                problems+=("$name: tests/check_symbols.sh rejects the reference library:"$'\n'"$(tail -n 10 "$dir/symbols.log")")
                fail=1
            fi
            ;;
        same)
            if [ "$ref_ok" -ne 1 ]; then
                verdict="FAIL: no reference to compare with"; fail=1
            elif cmp -s "$ref_trace" "$dir/trace.txt"; then
                verdict="identical"
            else
                verdict="FAIL: differs"
                problems+=("$name ($flags): $(first_difference "$ref_trace" "$dir/trace.txt")")
                fail=1
            fi
            ;;
        neg-fma|neg-libm)
            if [ "$ref_ok" -ne 1 ]; then
                verdict="FAIL: no reference to compare with"; fail=1
            elif cmp -s "$ref_trace" "$dir/trace.txt"; then
                verdict="FAIL: control NOT caught (trace identical: the check is blind)"
                fail=1
            else
                verdict="caught ($(first_difference "$ref_trace" "$dir/trace.txt" | sed 's/^first difference: //; s/: reference.*//'))"
            fi
            if [ "$role" = neg-libm ]; then
                if [ ! -f "$check_symbols" ]; then
                    verdict="$verdict; FAIL: tests/check_symbols.sh missing"
                    fail=1
                else
                    # 1 = a banned symbol found; 0 = blind; anything else = the check broke.
                    sym_rc=0
                    sh "$check_symbols" "$dir/lib/librs_physics.a" >"$dir/symbols.log" 2>&1 || sym_rc=$?
                    case "$sym_rc" in
                        1) verdict="$verdict; check_symbols rejects it" ;;
                        0) verdict="$verdict; FAIL: check_symbols accepts it (blind)"; fail=1 ;;
                        *) verdict="$verdict; FAIL: check_symbols error (exit $sym_rc, see $dir/symbols.log)"; fail=1 ;;
                    esac
                fi
            fi
            ;;
        esac
    fi
    rows+=("$name"$'\t'"$flags"$'\t'"$hash"$'\t'"$verdict")
done

rows+=(${skipped_rows[@]+"${skipped_rows[@]}"})

echo
{
    printf 'build\tflags\tfinal hash\tverdict\n'
    printf '%s\n' "${rows[@]}"
} | awk -F '\t' '
    { for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
    END {
        for (r = 1; r <= NR; r++) {
            printf "%-*s  %-*s  %-*s  %s\n", w[1], cell[r, 1], w[2], cell[r, 2], w[3], cell[r, 3], cell[r, 4]
            if (r == 1) printf "%s\n", "--------------------------------------------------------------------------------"
        }
    }'
echo

if [ ${#problems[@]} -gt 0 ]; then
    printf '%s\n' "${problems[@]}"
    echo
fi
elapsed=$((SECONDS - start_s))
if [ "$fail" -eq 0 ]; then
    echo "cross_check: PASS: ${#configs[@]} builds, all traces identical to gcc -O0 and RS_GOLDEN_HASH ($golden_cars cars x $golden_ticks ticks), both negative controls caught (${elapsed} s)${wasm_skip:+; WebAssembly skipped: $wasm_skip}"
else
    echo "cross_check: FAIL (${elapsed} s); builds and traces are in $work" >&2
fi
exit "$fail"
