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
expect_error "frames: unknown option" 2 "rocegen frames: unknown option '--bogus'" "rocegen frames --help"
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

# ---- a missing interface: exit 1 in every command, as rocetop's (rocetop(8), rocegen(8)) ----
noif=rgnoif$$
while ip link show "$noif" >/dev/null 2>&1; do noif=${noif}x; done
"$TOP" -i "$noif" -b >"$T/out" 2>"$T/err"
toprc=$?
if [ "$toprc" -eq 1 ] && grep -qF "$noif" "$T/err"; then
	ok "rocetop -i $noif: exit 1, as its man page says"
else
	fail "rocetop -i $noif" "exit $toprc" "$(head -c 300 "$T/err")"
fi
for c in "frames rc-send-only" "flood" "recv --count 1 --timeout 0.1" \
	"client --peer 192.0.2.2 --oob none --op send --size 64 --iters 1" "server --peer 192.0.2.2 --oob none" \
	"stress --peer 192.0.2.2" "conform --peer 192.0.2.2" "conform --transport iwarp --peer 192.0.2.2" \
	"client --transport iwarp --peer 192.0.2.2"; do
	# shellcheck disable=SC2086
	gen $c -i "$noif"
	sub=${c%% *}
	expect_error "$sub -i MISSING exits as rocetop ($c)" "$toprc" "rocegen $sub: $noif: no such interface"
done

# ---- one spelling per option, the old ones taken with a note (until 0.2) ----------------
# stress: --ack-timeout is the exponent (client's, server's); --timeout its old spelling
ST="stress --reference --qps 1 --qd 1 --ops write --sizes 4096 --mtu 1024 --messages 2 --event qp=0,psn=3,kind=drop --json"
# shellcheck disable=SC2086
gen $ST --ack-timeout 8
cp "$T/out" "$T/st_new.json"
new_notes=$(grep -c 'note:' "$T/err") new_rc=$rc
# shellcheck disable=SC2086
gen $ST --timeout 8
want=$(awk 'BEGIN { printf "%.3f", 4.096 * 2 ^ 8 }')
got=$(jq -r '.metrics.retransmission_us.p50' "$T/st_new.json" 2>/dev/null)
got=$(awk -v g="$got" 'BEGIN { printf "%.3f", g }')
if [ "$new_rc" -eq 0 ] && [ "$new_notes" -eq 0 ] && [ "$got" = "$want" ]; then
	ok "stress --ack-timeout 8: the drop retransmitted after 4.096 us x 2^8 = $got us, no note"
else
	fail "stress --ack-timeout 8" "exit $new_rc, $new_notes notes, retransmission p50 $got, want $want"
fi
# (the wall-clock figures aside: control channel RTTs, rates, times)
J='del(.. | objects | .control_rtt_us, .messages_per_s, .wall_s, .cpu_s)'
if [ "$rc" -eq 0 ] && [ "$(jq -S "$J" "$T/out")" = "$(jq -S "$J" "$T/st_new.json")" ] && [ "$(grep -c 'note:' "$T/err")" -eq 1 ] &&
	grep -q -- "^rocegen stress: note: --timeout is the old spelling of --ack-timeout" "$T/err"; then
	ok "stress --timeout 8: the same JSON as --ack-timeout 8 (but wall-clock times), one note: $(grep note: "$T/err")"
else
	fail "stress --timeout (old spelling)" "$(show)"
fi
gen stress --reference --ack-timeout 32
expect_error "stress --ack-timeout 32 refused" 2 "--ack-timeout" "32"
# --device (rocetop's spelling) in stress and conform; --dev the old one
for c in "stress --reference --qps 1 --messages 1" "conform --reference --cases resp.send"; do
	sub=${c%% *}
	# shellcheck disable=SC2086
	gen $c --device nosuchdev
	cp "$T/out" "$T/dev_new.out"
	new_rc=$rc new_err=$(lines "$T/err")
	# shellcheck disable=SC2086
	gen $c --dev nosuchdev
	if [ "$rc" -eq "$new_rc" ] && [ "$new_err" -eq 0 ] && [ "$(lines "$T/err")" -eq 1 ] &&
		grep -q -- "rocegen $sub: note: --dev is the old spelling of --device" "$T/err" &&
		[ "$(wc -c <"$T/out")" -gt 0 ] && [ "$(wc -c <"$T/dev_new.out")" -gt 0 ]; then
		ok "$sub --dev: as --device (exit $rc), one note"
	else
		fail "$sub --dev (old spelling)" "--device: exit $new_rc, $new_err stderr lines" "$(show)"
	fi
done
# rocetarget --version, as rocetop's and rocegen's
TGT=$BUILD/bin/rocetarget
if [ -x "$TGT" ]; then
	tv=$("$TGT" --version 2>&1); trc=$?
	gv=$("$GEN" --version 2>&1)
	if [ "$trc" -eq 0 ] && [ "${tv#rocetarget }" = "${gv#rocegen }" ] && [ -n "${tv#rocetarget }" ]; then
		ok "rocetarget --version: '$tv', the version of '$gv'"
	else
		fail "rocetarget --version" "exit $trc: '$tv' beside '$gv'"
	fi
	"$TGT" --bogus >"$T/out" 2>"$T/err"
	rc=$?
	expect_error "rocetarget: unknown option" 2 "rocetarget" "--bogus" "--help"
else
	echo "skip rocetarget (not built: needs libibverbs)"
fi

# ---- per-command help: every command of rocegen --help, each option its parser takes ------
# The options come from the parsers' own tables in the source (generator/opts.c: the
# commands each option applies to; the getopt tables of stress, conform, search, fingerprint
# and isolation).
python3 - "$root" >"$T/optlist" <<'PY' || fail "reading the option tables from the source"
import re, sys
root = sys.argv[1] + "/generator/"
out = {}
macros = {"F": ["frames"], "L": ["flood"], "R": ["recv"], "CS": ["client", "server"], "C": ["convert"]}
macros["FL"] = macros["F"] + macros["L"]
macros["FLC"] = macros["FL"] + macros["C"]
src = open(root + "opts.c").read()
for name, cmds in re.findall(r'\{ \{ "([^"]+)", \w+, NULL, [^}]*\}, ([A-Z |]+) \}', src):
    for m in cmds.replace(" ", "").split("|"):
        for c in macros[m]:
            out.setdefault(c, []).append(name)
def getopt_table(path):
    s = open(root + path).read()
    names = []
    for t in re.findall(r'struct option lo\[\] = \{(.*?)\n\t*\};', s, re.S):
        names += re.findall(r'\{ "([a-z0-9-]+)", (?:no|required|optional)_argument', t)
    return names
out["stress"] = getopt_table("stress/stress_main.c")
out["conform"] = getopt_table("conform/conform_main.c") + getopt_table("conform/conform_iwarp.c")
out["search"] = getopt_table("search/search.c")
out["fingerprint"] = getopt_table("fingerprint/fingerprint.c")
out["isolation"] = getopt_table("isolation/isolation.c")
out["kinds"] = []
for c, names in sorted(out.items()):
    print(c, " ".join(sorted(set(names))))
PY
"$GEN" --help | sed -n 's/^ *\(usage: \)\{0,1\}rocegen \([a-z][a-z]*\).*/\2/p' | sort -u >"$T/cmds"
[ "$(lines "$T/cmds")" -ge 10 ] || fail "rocegen --help names its commands" "$(cat "$T/cmds")"
grep -qx stress "$T/cmds" && ok "rocegen --help names stress" || fail "rocegen --help names stress"
while read -r sub; do
	opts=$(awk -v c="$sub" '$1 == c { $1 = ""; print }' "$T/optlist")
	if ! grep -q "^$sub\( \|$\)" "$T/optlist"; then
		fail "$sub: a command of rocegen --help whose parser the test does not know"
		continue
	fi
	gen "$sub" --help
	miss=""
	for o in $opts; do
		grep -qE -- "--$o([^a-z0-9-]|\$)" "$T/out" || miss="$miss --$o"
	done
	n=$(echo $opts | wc -w)
	if [ "$rc" -eq 0 ] && [ -s "$T/out" ] && [ -z "$miss" ] && grep -q "rocegen $sub" "$T/out"; then
		ok "rocegen $sub --help: exit 0, names the command and its $n options"
	else
		fail "rocegen $sub --help" "exit $rc; missing:$miss" "$(head -c 300 "$T/out")"
	fi
	gen "$sub" --no-such-option
	expect_error "rocegen $sub --no-such-option: one line naming the command, a hint, exit 2" 2 \
		"rocegen $sub" "no-such-option" "rocegen $sub --help"
done <"$T/cmds"
# an option of the table that the command does not take: the same hint
gen recv --payload-size 4
expect_error "recv --payload-size: does not apply, the hint" 2 "rocegen recv" "--payload-size" "rocegen recv --help"

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
