#!/bin/sh
# check_exports.sh: prove that the shared client library exports exactly its
# public API (cmake/client_library.cmake): its soname is the one given, every
# symbol it exports (nm -D) is a function declared in one of the public
# headers and carries the version node, and every function those headers
# declare is exported (a declared function missing from the library fails a
# game at link time).
#
# The declarations come from the compiler, not from the build's own export
# list: gcc -aux-info writes every prototype of a translation unit with the
# file that declared it.
#
# usage: sh tests/check_exports.sh LIBRARY SONAME NODE HEADER...
#   LIBRARY  the shared library (libracesim_client.so...)
#   SONAME   the expected DT_SONAME, e.g. libracesim_client.so.0
#   NODE     the expected version node of every export, e.g. RACESIM_0
#   HEADER   absolute paths of the public headers, each as ROOT/racesim/...
#   GCC, NM, READELF  environment: the tools (default gcc, nm, readelf)
# Exit status: 0 ok (prints a summary), 1 a check failed (each problem
# named), 2 usage or tool error.
set -u

GCC=${GCC:-gcc}
NM=${NM:-nm}
READELF=${READELF:-readelf}

if [ $# -lt 4 ]; then
    echo "usage: sh $0 LIBRARY SONAME NODE HEADER..." >&2
    exit 2
fi
lib=$1 want_soname=$2 node=$3
shift 3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
fail() {
    echo "check_exports: FAIL: $*" >&2
    status=1
}

# The soname.
if ! dyn=$("$READELF" -d "$lib" 2>/dev/null); then
    echo "check_exports: '$READELF -d $lib' failed" >&2
    exit 2
fi
soname=$(printf '%s\n' "$dyn" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "$want_soname" ] || fail "$lib: soname '$soname', expected '$want_soname'"

# The functions the headers declare: one translation unit including them all,
# its prototypes kept when they come from one of the headers and are not
# static (inline functions export nothing). -I ROOT for every header so that
# their own includes resolve as the installed tree's do.
nheaders=$#
for h do
    printf '%s\n' "$h" >>"$work/headers"
    case $h in
        */racesim/*.def) ;; # included by a header, not on its own
        *) printf '#include "%s"\n' "$h" >>"$work/all.c" ;;
    esac
    set -- "$@" "-I${h%/racesim/*}"
done
shift "$nheaders"
if ! "$GCC" -std=c11 -c -o "$work/all.o" -aux-info "$work/protos" "$@" "$work/all.c"; then
    echo "check_exports: '$GCC -aux-info' on the headers failed" >&2
    exit 2
fi
# Lines look like: /* /path/racesim/client.h:123:NC */ extern int rs_x (int);
awk -v list="$work/headers" '
    BEGIN { while ((getline h < list) > 0) public[h] = 1 }
    {
        file = $2
        sub(/:[0-9]+:[A-Z]+$/, "", file)
        if (!(file in public)) next
        decl = $0
        sub(/^\/\* [^*]* \*\/ /, "", decl)
        if (decl ~ /^static /) next
        if (match(decl, /[A-Za-z_][A-Za-z0-9_]* \(/))
            print substr(decl, RSTART, RLENGTH - 2)
    }' "$work/protos" | sort -u >"$work/declared"
if [ ! -s "$work/declared" ]; then
    echo "check_exports: no function declared in the headers: wrong header list?" >&2
    exit 2
fi

# What the library exports (defined dynamic symbols, with their versions).
if ! "$NM" -D --defined-only "$lib" >"$work/nm"; then
    echo "check_exports: '$NM -D $lib' failed" >&2
    exit 2
fi
# The version node itself is an absolute symbol of that name (llvm-nm adds
# its version to it).
awk -v node="$node" '!($2 == "A" && ($3 == node || $3 == node "@@" node)) { print $3 }' \
    "$work/nm" >"$work/versioned"
sed 's/@.*//' "$work/versioned" | sort -u >"$work/exported"
unversioned=$(grep -v "@@$node\$" "$work/versioned")
[ -z "$unversioned" ] ||
    fail "exported outside the version node $node: $(printf '%s\n' "$unversioned" | tr '\n' ' ')"

extra=$(comm -23 "$work/exported" "$work/declared")
[ -z "$extra" ] ||
    fail "exported but declared in no public header (make them static or move them to a src/ header): $(printf '%s\n' "$extra" | tr '\n' ' ')"
missing=$(comm -13 "$work/exported" "$work/declared")
[ -z "$missing" ] ||
    fail "declared in a public header but not exported by $lib: $(printf '%s\n' "$missing" | tr '\n' ' ')"

if [ "$status" -eq 0 ]; then
    echo "check_exports: $lib: soname $soname, $(wc -l <"$work/exported") functions exported in $node," \
         "exactly those declared in the $nheaders public headers"
    echo "ok"
fi
exit "$status"
