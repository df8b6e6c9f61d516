#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# install.sh — `make install PREFIX=DIR` puts everything under DIR (a user
# can install into a folder of their own, the Wireshark plugin included):
# headers in DIR/include/roce/, a libroce.pc whose includedir is that folder,
# and a program built with `pkg-config --cflags --libs libroce` runs.
#
#   BUILD=build tests/install.sh
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
T=$(mktemp -d "${TMPDIR:-/tmp}/install.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
P=$T/prefix
fails=0 oks=0
ok() { echo "ok   $1"; oks=$((oks + 1)); }
fail() { echo "FAIL $1"; shift; for l; do printf '     %s\n' "$l"; done; fails=$((fails + 1)); }

# every path the install writes, from the commands make would run
out=$(make -C "$root" --no-print-directory -n install BUILD="$BUILD" SAN="${SAN:-}" PREFIX="$P" 2>&1)
outside=$(printf '%s\n' "$out" | grep -E '^(install|ln|sed)' | tr ' ' '\n' | grep '^/' | grep -v "^$P" | grep -v "^$root" | sort -u)
[ -z "$outside" ] && ok "make install PREFIX=DIR writes nothing outside DIR" ||
	fail "make install PREFIX=DIR writes outside DIR" "$outside"

if make -C "$root" --no-print-directory install BUILD="$BUILD" SAN="${SAN:-}" PREFIX="$P" >"$T/log" 2>&1; then
	ok "make install PREFIX=$P"
else
	fail "make install PREFIX=DIR" "$(tail -n 5 "$T/log")"
fi
for h in roce.h iwarp.h dcb.h seq.h qp.h; do
	[ -f "$P/include/roce/$h" ] || fail "header $h not in PREFIX/include/roce"
done
for f in prometheus/rocetop.rules.yml prometheus/rocetop.rules.test.yml grafana/rocetop-dashboard.json grafana/rocetop-provisioning.yml; do
	cmp -s "$root/contrib/$f" "$P/share/rocetop/$f" || fail "contrib/$f not installed as PREFIX/share/rocetop/$f"
done
if command -v promtool >/dev/null 2>&1; then
	(cd "$P/share/rocetop/prometheus" && promtool test rules rocetop.rules.test.yml >"$T/promtool" 2>&1) &&
		ok "promtool test rules runs in PREFIX/share/rocetop/prometheus" ||
		fail "promtool test rules in PREFIX/share/rocetop/prometheus" "$(tail -n 5 "$T/promtool")"
fi
ls "$P/include" | grep -qv '^roce$' && fail "PREFIX/include holds more than roce/: $(ls "$P/include")"
grep -qx "includedir=\${prefix}/include/roce" "$P/lib/pkgconfig/libroce.pc" &&
	ok "libroce.pc: includedir is PREFIX/include/roce" || fail "libroce.pc includedir" "$(cat "$P/lib/pkgconfig/libroce.pc")"
if grep -q 'install-plugin' "$T/log" || [ -f "$root/$BUILD/plugin/roce.so" ]; then
	n=$(find "$P/lib/wireshark" -name roce.so 2>/dev/null | wc -l)
	[ "$n" -eq 1 ] && ok "the Wireshark plugin under PREFIX/lib/wireshark/plugins" ||
		fail "the Wireshark plugin under PREFIX" "$(grep roce.so "$T/log")"
fi

cat >"$T/t.c" <<'C'
#include <stdio.h>
#include <roce.h>
int main(void)
{
	static const unsigned char f[14] = { 0 };
	struct roce_pkt p;

	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, sizeof f, sizeof f);
	printf("%s\n", roce_opcode_name(0x04));
	return 0;
}
C
if [ "${SAN:-}" = 1 ]; then
	echo "install: $oks ok, $fails failed (a sanitized libroce: no program built against it)"
	[ "$fails" -eq 0 ]
	exit
fi
cflags=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs libroce)
# shellcheck disable=SC2086
if cc -o "$T/t" "$T/t.c" $cflags 2>"$T/cc.err" && [ "$(LD_LIBRARY_PATH=$P/lib "$T/t")" = "RC SEND_ONLY" ]; then
	ok "a program built with pkg-config --cflags --libs libroce runs ($cflags)"
else
	fail "program against the installed libroce" "$(head -c 400 "$T/cc.err")"
fi
echo "install: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
