#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# exports.sh — libroce.so exports exactly the public API.
#
#   BUILD=build tests/exports.sh
#
# The public API is every global roce_* symbol of libroce.a (roce__* are
# internal).  Fails when one is missing from lib/libroce.map (or from
# debian/libroce0.symbols), when the .so exports anything else or a symbol
# no installed header declares, and checks that tools/libmap.sh notices a
# symbol dropped from the map.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
A=$BUILD/lib/libroce.a
SO=$BUILD/lib/libroce.so.0
for f in "$A" "$SO"; do
	[ -e "$f" ] || { echo "exports: $f not built" >&2; exit 2; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/exports.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM

fails=0
ok() { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

# 1. the map (and the symbols file) list every public symbol of the .a
if "$root/tools/libmap.sh" check "$A" > "$T/check" 2>&1; then
	ok "libmap.sh check: $(cat "$T/check")"
else
	fail "libmap.sh check (run tools/libmap.sh write)"
	sed 's/^/     /' "$T/check"
fi

# 2. the .so exports exactly the map's names, all at LIBROCE_0, and nothing else
nm -g --defined-only "$A" | awk 'NF == 3 && $3 ~ /^roce_/ && $3 !~ /^roce__/ { print $3 }' |
	LC_ALL=C sort -u > "$T/public"
nm -D --defined-only "$SO" | awk 'NF == 3 { print $3 }' | LC_ALL=C sort -u > "$T/dyn"
sed 's/@@LIBROCE_0$//' "$T/dyn" | grep -v '^LIBROCE_0$' | LC_ALL=C sort -u > "$T/names"
if cmp -s "$T/public" "$T/names"; then
	ok "libroce.so exports the $(wc -l < "$T/names") public symbols and nothing else"
else
	fail "libroce.so exports differ from the public symbols of libroce.a"
	LC_ALL=C comm -3 "$T/public" "$T/names" | sed 's/^/     /' | head -20
fi
if grep -v '^LIBROCE_0$' "$T/dyn" | grep -qv '@@LIBROCE_0$'; then
	fail "symbols without the LIBROCE_0 version: $(grep -v '@@LIBROCE_0$' "$T/dyn" | grep -v '^LIBROCE_0$' | head -3 | tr '\n' ' ')"
else
	ok "every export is versioned LIBROCE_0"
fi
if grep -q '^roce__' "$T/dyn"; then
	fail "internal roce__* exported: $(grep '^roce__' "$T/dyn" | head -3 | tr '\n' ' ')"
else
	ok "no roce__* symbol exported"
fi
soname=$(objdump -p "$SO" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libroce.so.0 ] && ok "SONAME libroce.so.0" || fail "SONAME is '$soname', not libroce.so.0"

# 3. each is declared in a header that is installed (make print-public-headers)
hdrs=$(cd "$root" && make -s --no-print-directory print-public-headers)
undeclared=""
while read -r sym; do
	(cd "$root" && grep -qw "$sym" $hdrs) || undeclared="$undeclared $sym"
done < "$T/public"
[ -z "$undeclared" ] && ok "every exported symbol is declared in $hdrs" ||
	fail "exported but not declared in an installed header:$undeclared"

# 4. a map without one public symbol is caught
drop=$(sed -n '1p' "$T/public")
grep -v "^[[:space:]]*$drop;" "$root/lib/libroce.map" > "$T/map"
if LIBMAP_MAP=$T/map "$root/tools/libmap.sh" check "$A" > "$T/out" 2>&1; then
	fail "libmap.sh check accepts a map without $drop"
elif grep -q "missing from the map: $drop" "$T/out"; then
	ok "libmap.sh check names $drop when the map lacks it"
else
	fail "libmap.sh check failed without naming $drop"
	sed 's/^/     /' "$T/out"
fi

[ $fails = 0 ] && echo "exports: all passed" || echo "exports: $fails FAILED"
[ $fails = 0 ]
