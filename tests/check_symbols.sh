#!/bin/sh
# check_symbols.sh: prove that the physics library calls no function whose
# result may differ between machines (docs/DETERMINISM.md, "The rules").
#
# Lists the undefined symbols of every object in the given static libraries
# or object files (nm -u) and fails if any is a libm transcendental (sin, exp,
# pow, ... with their f/l variants and glibc's __*_finite aliases), fmin/fmax
# (signed-zero results differ between gcc and clang) or qsort (unstable, and
# differs between libcs). sqrt is allowed: it is correctly rounded everywhere.
# Physics uses its own versions in physics/src/detmath.c instead.
#
# usage: sh tests/check_symbols.sh LIBRARY.a|OBJECT.o...
#   NM, AR  the tools to use (default nm and ar; llvm-nm works too).
# Exit status: 0 clean (prints the objects checked, then "ok"); 1 a banned
# symbol was found (each is named with its object); 2 usage or tool error.
#
# The negative control build (cmake -DRS_NEGATIVE_CONTROL=libm_sin) must fail
# this check: tests/determinism/cross_check.sh relies on that.
set -u

NM=${NM:-nm}
AR=${AR:-ar}

if [ $# -eq 0 ]; then
    echo "usage: sh $0 LIBRARY.a|OBJECT.o..." >&2
    exit 2
fi

status=0
for input in "$@"; do
    if [ ! -r "$input" ]; then
        echo "check_symbols: cannot read '$input'" >&2
        exit 2
    fi
    # The objects this input holds: an archive's members, or the file.
    if objects=$("$AR" t "$input" 2>/dev/null); then
        :
    else
        objects=$input
    fi
    # -A: name the object on every line; -P: the POSIX format
    # "lib.a[member.o]: symbol type ..." or "file.o: symbol type ...".
    if ! undefined=$("$NM" -A -P -u "$input" 2>/dev/null); then
        echo "check_symbols: '$NM -A -P -u $input' failed" >&2
        exit 2
    fi
    found=$(printf '%s\n' "$undefined" | awk '
        BEGIN {
            n = split("sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh " \
                      "exp exp2 expm1 log log2 log10 log1p pow cbrt hypot erf erfc " \
                      "lgamma tgamma sincos", m, " ")
            for (i = 1; i <= n; i++) {
                why = "libm transcendental"
                for (v = 0; v < 3; v++) {
                    name = m[i] (v == 0 ? "" : (v == 1 ? "f" : "l"))
                    banned[name] = why
                    banned["__" name "_finite"] = why
                }
            }
            n = split("fmin fmax fma", m, " ")
            for (i = 1; i <= n; i++)
                for (v = 0; v < 3; v++) {
                    name = m[i] (v == 0 ? "" : (v == 1 ? "f" : "l"))
                    banned[name] = (m[i] == "fma" ? "fused multiply-add" : \
                                    "signed-zero results differ between compilers")
                }
            banned["qsort"] = "unstable sort, differs between libcs"
            banned["qsort_r"] = banned["qsort"]
        }
        NF >= 2 {
            obj = $1
            sub(/:$/, "", obj)
            # lib.a[member.o] -> member.o
            if (obj ~ /\[.*\]$/) { sub(/^.*\[/, "", obj); sub(/\]$/, "", obj) }
            sym = $2
            plain = sym
            sub(/@.*/, "", plain)  # symbol versions, if any
            # Mach-O prefixes C names with one underscore.
            alt = plain
            if (alt ~ /^_/) alt = substr(alt, 2)
            if (plain in banned)
                print obj ": " plain " (" banned[plain] ")"
            else if (alt in banned)
                print obj ": " plain " (" banned[alt] ")"
        }')
    count=$(printf '%s\n' "$objects" | grep -c .)
    if [ -n "$found" ]; then
        {
            echo "check_symbols: FAIL: $input references functions banned in physics (docs/DETERMINISM.md, \"The symbol check\"):"
            printf '%s\n' "$found" | sed 's/^/  /'
        } >&2
        status=1
    else
        echo "check_symbols: $input: $count object(s) checked: $(printf '%s\n' "$objects" | tr '\n' ' ' | sed 's/ $//')"
    fi
done

if [ "$status" -eq 0 ]; then
    echo "ok"
fi
exit "$status"
