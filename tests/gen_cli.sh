#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# gen_cli.sh — rocegen's command line without a network: option errors (one
# line, exit 2), defaults that must not build invalid frames, and no silent
# loss when a write fails (-w on a full disk or past ulimit -f, stdout).
#
#   BUILD=build tests/gen_cli.sh
#
# Prints "ok"/"FAIL" per check and exits 1 when any check fails.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
GEN=$BUILD/bin/rocegen
TOP=$BUILD/bin/rocetop
for b in "$GEN" "$TOP"; do
	[ -x "$b" ] || { echo "gen_cli: $b not built" >&2; exit 2; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/gen_cli.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM

fails=0 oks=0
ok() {
	echo "ok   $1"
	oks=$((oks + 1))
}
fail() {
	echo "FAIL $1"
	shift
	for l; do printf '     %s\n' "$l"; done
	fails=$((fails + 1))
}
lines() { wc -l <"$1" | tr -d ' '; }

# gen ARGS...: runs rocegen; $rc, stdout in $T/out, stderr in $T/err
gen() {
	"$GEN" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
show() { printf 'exit %s; stderr: %s' "$rc" "$(head -c 400 "$T/err" | tr '\n' '|')"; }

# expect_error NAME WANT_RC NEEDLE...: exactly one line on stderr holding
# every NEEDLE, exit WANT_RC ("nz": any non-zero below 128)
expect_error() {
	name=$1 want_rc=$2
	shift 2
	why=""
	if [ "$want_rc" = nz ]; then
		{ [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ]; } || why="exit status $rc"
	else
		[ "$rc" -eq "$want_rc" ] || why="exit status $rc, want $want_rc"
	fi
	[ "$(lines "$T/err")" -eq 1 ] || why="$why; $(lines "$T/err") lines on stderr, want 1"
	for n; do
		grep -qF -- "$n" "$T/err" || why="$why; stderr lacks '$n'"
	done
	if [ -z "$why" ]; then
		ok "$name: $(head -n 1 "$T/err")"
	else
		fail "$name" "$why" "$(show)"
	fi
}

# ---- no silent loss on write ------------------------------------------------------
gen flood --count 100000 -w /dev/full
expect_error "flood -w /dev/full" nz "/dev/full" "No space left on device"
(ulimit -f 8; "$GEN" flood --count 100000 -w "$T/lim.pcap" >"$T/out" 2>"$T/err"; echo $? >"$T/rc")
rc=$(cat "$T/rc")
expect_error "flood -w under ulimit -f 8" nz "$T/lim.pcap" "File too large"
grep -q "errors=0" "$T/err" && fail "flood under ulimit -f: reports errors=0"
(ulimit -f 8; "$GEN" frames rc-send-only --count 100000 -w "$T/lim2.pcap" >"$T/out" 2>"$T/err"; echo $? >"$T/rc")
rc=$(cat "$T/rc")
expect_error "frames -w under ulimit -f 8" nz "$T/lim2.pcap" "File too large"
gen flood --count 1000 -w "$T/fits.pcap"
n=$("$TOP" -r "$T/fits.pcap" --packets 2>/dev/null | wc -l)
if [ "$rc" -eq 0 ] && [ "$n" -eq 1000 ]; then
	ok "flood -w FILE that fits: 1000 frames, exit 0"
else
	fail "flood -w FILE that fits" "$n frames" "$(show)"
fi
"$GEN" frames rc-send-only --count 2000 --dry-run >/dev/full 2>"$T/err"
rc=$?
expect_error "frames --dry-run > /dev/full" nz "No space left on device"
"$GEN" kinds >/dev/full 2>"$T/err"
rc=$?
expect_error "kinds > /dev/full" nz "No space left on device"

# ---- option errors: one line naming the command, exit 2 ----------------------------
gen frames rc-send-only --payload abc --dry-run
expect_error "--payload abc keeps the value" 2 "--payload abc" "hex"
# the --payload value parsed before a later option fails is freed (the
# sanitizer pass finds a leak as more lines and another exit status)
gen frames rc-send-only --payload 0102 --count 0 --dry-run
expect_error "--payload, then a bad --count: nothing leaks" 2 "--count 0"
gen flood --payload 0102 --gbps 0
expect_error "flood --payload, then a bad --gbps: nothing leaks" 2 "--gbps 0"
gen frames rc-ack --nak bogus --dry-run
expect_error "--nak bogus names the names" 2 "bogus" "psn-seq-err" "0..31"
gen frames rc-ack --nak remote-access --dry-run --no-hex
{ [ "$rc" -eq 0 ] && grep -q "NAK" "$T/out"; } && ok "--nak remote-access accepted" || fail "--nak remote-access" "$(show)"
gen frames --bogus
expect_error "frames: unknown option" 2 "rocegen frames: unknown option '--bogus'" "--help"
gen flood --qpn
expect_error "flood: option without its value" 2 "rocegen flood:" "--qpn"
gen conform --bogus
expect_error "conform: unknown option" 2 "rocegen conform: unknown option" "--help"
gen nosuchcommand
expect_error "unknown command: one line" 2 "nosuchcommand" "--help"
gen
expect_error "no command: one line" 2 "give a command"
for a in "--count 0" "--gbps 0" "--pps 0"; do
	# shellcheck disable=SC2086
	gen flood $a --dry-run
	expect_error "flood $a refused" 2 "$a"
done
gen -h
grep -q -- "-v, --verbose" "$T/out" && ok "rocegen -h lists -v" || fail "rocegen -h lists -v"

# ---- defaults build valid frames ------------------------------------------------------
for cmd in frames flood; do
	gen $cmd rc-atomic-write --count 2 -w "$T/aw.pcap"
	"$TOP" -r "$T/aw.pcap" --packets >"$T/aw.txt" 2>&1
	if [ "$rc" -eq 0 ] && grep -q "ATOMIC_WRITE.* dlen 8 len 8 icrc good$" "$T/aw.txt" && ! grep -q invalid "$T/aw.txt"; then
		ok "$cmd rc-atomic-write: a valid frame by default (8-byte payload)"
	else
		fail "$cmd rc-atomic-write by default" "$(cat "$T/aw.txt")"
	fi
done

# ---- without privileges: the error says what is missing ---------------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	cp "$GEN" "$T/rocegen" && chmod 755 "$T" "$T/rocegen"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/rocegen" frames rc-send-only -i lo \
		--dst 127.0.0.1 --dmac 02:00:00:00:00:02 --tx ring >"$T/out" 2>"$T/err"
	rc=$?
	expect_error "non-root AF_PACKET: a hint" nz "Operation not permitted" "cap_net_raw"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/rocegen" recv -i lo --count 1 --timeout 0.1 \
		>"$T/out" 2>"$T/err"
	rc=$?
	expect_error "non-root recv: a hint" nz "cap_net_raw"
else
	echo "skip non-root hints (needs root, setpriv and the nobody user)"
fi

echo "gen_cli: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
