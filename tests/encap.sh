#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# encap.sh — mirror copies are analysed as the frames they carry.
#
#   BUILD=build tests/encap.sh
#
# Each lab capture below is re-encapsulated with tools/mkencap (libroce's
# roce_build_encap) as ERSPAN I/II/III, GRE-TEB and VXLAN (4789, 8472), with
# outer IPv6, VLAN/QinQ, GRE key/checksum and an ERSPAN III platform
# sub-header; rocetop's JSON summary of each copy must equal the original's
# (every count, flow and RC transport figure; only "source" and the
# mirror_copies count, which must equal the frame count, differ).
# ERSPAN III FT=2 (IP without Ethernet) must give the same RC transport
# counts.  Copies cut to 96 bytes of inner frame must give the same RC
# counts, report every RoCE frame truncated and no ICRC bad.  Then tshark
# must read the mirror headers as libroce does (gre.*, erspan.*, vxlan.vni).
# (summary()/read_summary() set PREFIX_* variables by eval)
# shellcheck disable=SC2034,SC2154
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
R=$BUILD/bin/rocetop
MK=$BUILD/tools/mkencap
LAB=$root/captures/lab
TSHARK=${TSHARK:-tshark}
CUT=96
CAPS="roce_rping.pcap roce_netem_send_rnr.pcap roce_netem_write_dup_req.pcap roce_rc_pingpong_ipv6gid.pcap"

for x in "$R" "$MK"; do
	if [ ! -x "$x" ]; then
		echo "encap: $x not built" >&2
		exit 2
	fi
done
T=$(mktemp -d "${TMPDIR:-/tmp}/encap.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM

fails=0 oks=0
ok() { echo "ok   $1"; oks=$((oks + 1)); }
fail() { echo "FAIL $1"; shift; for l; do echo "     $l"; done; fails=$((fails + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1: $3"; else fail "$1" "want $2, got $3"; fi; }

# The RC transport figures (per flow and in total) the issue asks to hold.
RC='{t: .totals, f: [.flows[] | select(.kind == "RC") | {src, dst, destqp, requests, duplicate_request,
    out_of_sequence, out_of_seq_request, retransmissions, psn_gaps, missing_psns, acks, nak_seq_err,
    rnr_nak, rtt: .rtt_us.n}] | sort_by(.src, .destqp)}'
# summary FILE PREFIX: rocetop's JSON summary by one jq, into PREFIX_all (the
# whole summary but "source" and the mirror counts), PREFIX_rc (RC above),
# PREFIX_rc2 (RC without the ICRC verdicts), PREFIX_copies, PREFIX_frames,
# PREFIX_requests, PREFIX_trunc, PREFIX_bad (the ICRC's); empty when rocetop
# gave nothing
summary() {
	TZ=UTC "$R" -r "$1" --json 2>"$T/err" | jq -n -r -c -S "last(inputs) | ($RC) as \$rc |
		del(.source, .mirror_copies, .mirror_truncated), \$rc, (\$rc | del(.t.icrc_bad)),
		\"\(.mirror_copies) \(.frames) \(.totals.requests) \(.truncated) \(.icrc.bad // 0)\"" >"$T/sum"
	{ read -r all; read -r rc; read -r rc2; read -r v1 v2 v3 v4 v5; } <"$T/sum"
	eval "$2_all=\$all $2_rc=\$rc $2_rc2=\$rc2 $2_copies=\${v1:-} $2_frames=\${v2:-} $2_requests=\${v3:-}
		$2_trunc=\${v4:-} $2_bad=\${v5:-}"
	all='' rc='' rc2='' v1='' v2='' v3='' v4='' v5=''
}
# differ A B: the first lines of the difference between two JSON one-liners
differ() {
	printf '%s\n' "$1" | jq -S . >"$T/da" 2>&1
	printf '%s\n' "$2" | jq -S . >"$T/db" 2>&1
	diff "$T/da" "$T/db" | head -6 | tr '\n' '|'
}
# mk VARIANT IN OUT: tools/mkencap VARIANT (its options and kind, split on
# blanks) IN OUT.  Its output is byte-for-byte the same under every build,
# so the job's first run keeps each copy in TEST_SHARED (tests/run.sh) and
# the other build's run takes it from there -- but for the first copy of each
# VARIANT in a run, made again by this build's mkencap and compared with the
# kept one: every build still runs every variant once.
SH=${TEST_SHARED:-$T}/encap
mkdir -p "$SH" || exit 2
mk() {
	key="${2##*/}.$1"
	if [ -s "$SH/$key" ] && [ -e "$T/made.$1" ]; then
		cp "$SH/$key" "$3" && : >"$T/err"
		return
	fi
	# shellcheck disable=SC2086
	"$MK" $1 "$2" "$3" 2>"$T/err" || return 1
	: >"$T/made.$1"
	if [ -s "$SH/$key" ]; then
		cmp -s "$SH/$key" "$3" || { echo "mkencap $1 $2 under $BUILD differs from the copy another build made" >"$T/err"; return 1; }
	else
		cp "$3" "$SH/$key"
	fi
}

for c in $CAPS; do
	summary "$LAB/$c" orig
	if [ "${orig_requests:-0}" = 0 ]; then
		fail "$c: no RC requests in the original (test would prove nothing)"
		continue
	fi
	# every variant on the small captures, the main kinds on the large ones
	case $c in
	*netem*) set -- "erspan2" "-6 -v -p erspan3" "-q -k 0x1234 gre-teb" "vxlan8472" ;;
	*) set -- "erspan1" "erspan2" "erspan3" "gre-teb" "vxlan" "vxlan8472" "-6 -q -k 7 -c erspan2" \
		"-6 -v -p erspan3" "-q -k 0x1234 gre-teb" "-6 -v vxlan" ;;
	esac
	for v; do
		# shellcheck disable=SC2086
		if ! mk "$v" "$LAB/$c" "$T/enc.pcap"; then
			fail "$c $v: mkencap" "$(cat "$T/err")"
			continue
		fi
		summary "$T/enc.pcap" enc
		if [ -n "$orig_all" ] && [ "$orig_all" = "$enc_all" ] && [ "$enc_copies" = "$enc_frames" ]; then
			ok "$c as $v: same summary, every frame a mirror copy"
		else
			fail "$c as $v: summary differs" "$(differ "$orig_all" "$enc_all")"
		fi
	done
	mk erspan3-ip "$LAB/$c" "$T/enc.pcap"
	summary "$T/enc.pcap" enc
	if [ -n "$orig_rc" ] && [ "$orig_rc" = "$enc_rc" ]; then
		ok "$c as ERSPAN III FT=2 (IP only): same RC counts"
	else
		fail "$c as ERSPAN III FT=2: RC counts differ" "$(differ "$orig_rc" "$enc_rc")"
	fi
	# the original's side (orig_rc2), once for both cuts
	big=$(TZ=UTC "$R" -r "$LAB/$c" --packets --json | jq -s '[.[] | select(."roce.version" != null and ."frame.len" > '$CUT')] | length')
	for v in erspan3 vxlan; do
		mk "-t $CUT $v" "$LAB/$c" "$T/enc.pcap"
		summary "$T/enc.pcap" enc
		trunc=$enc_trunc bad=$enc_bad
		if [ -n "$orig_rc2" ] && [ "$orig_rc2" = "$enc_rc2" ] && [ "$bad" = 0 ] && [ "$trunc" -ge "$big" ] && [ "$big" -gt 0 ]; then
			ok "$c as $v cut to $CUT bytes: same RC counts, $trunc truncated, ICRC never bad"
		else
			fail "$c as $v cut to $CUT: truncated $trunc (RoCE > $CUT: $big), ICRC bad $bad" \
				"$(differ "$orig_rc2" "$enc_rc2")"
		fi
	done
done

# tshark reads the mirror headers as libroce does.
tsh_vs_us() {
	name=$1 pcap=$2
	shift 2
	fields=$*
	targs=""
	for f in $fields; do targs="$targs -e $f"; done
	# tshark's view (no build in it) kept in TEST_SHARED with the copy it
	# read: the other build's run reads it when its mkencap wrote the same
	k="$SH/tsh.${pcap##*/}"
	if cmp -s "$pcap" "$k.pcap" && [ -e "$k.out" ]; then
		cp "$k.out" "$T/tsh"
	else
		# shellcheck disable=SC2086
		"$TSHARK" -r "$pcap" -T fields -E separator=/t -E occurrence=f $targs -d udp.port==8472,vxlan \
			2>/dev/null | python3 -c 'import sys
for l in sys.stdin:
    print("\t".join(str(int(v, 0)) if v[:2] == "0x" else v for v in l.rstrip("\n").split("\t")))' >"$T/tsh"
		cp "$pcap" "$k.pcap" && cp "$T/tsh" "$k.out"
	fi
	TZ=UTC "$R" -r "$pcap" --packets --json | jq -r --arg f "$fields" \
		'[($f | split(" "))[] as $k | (.[$k] // "") | if type == "array" then .[0] else . end | tostring] | join("\t")' \
		>"$T/ours"
	if [ -s "$T/ours" ] && cmp -s "$T/tsh" "$T/ours"; then
		ok "tshark agrees on $name ($(wc -l <"$T/ours") frames: $fields)"
	else
		fail "tshark disagrees on $name" "$(diff "$T/tsh" "$T/ours" | head -4 | tr '\n' '|')"
	fi
}
# --time mirror: ERSPAN III hardware times (100 ns, wrapping every 429.5 s)
# rewritten to 100 s apart across three wraps, host times late by up to
# 40 ms: the listing gives the hardware's spacing, anchored on the first
# frame's host time; --time host (the default) the host's.
# (made once per job: the other build's run takes it from TEST_SHARED)
[ -s "$SH/e3time.pcap" ] || python3 - "$root/captures/link/erspan3.pcap" "$SH/e3time.pcap" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off, i = 24, 0
while off + 16 <= len(d):
    cl = struct.unpack("<I", d[off + 8:off + 12])[0]
    f = off + 16
    ip = f + 14
    g = ip + 40 if d[ip] >> 4 == 6 else ip + (d[ip] & 15) * 4
    flags = d[g] << 8 | d[g + 1]
    e = g + 4 + 4 * sum(1 for b in (0x8000, 0x2000, 0x1000) if flags & b)
    raw = (0xF0000000 + i * 1000000000) % (1 << 32)
    d[e + 4:e + 8] = struct.pack(">I", raw)
    d[e + 11] = (d[e + 11] & ~6) | 2          # Gra 1: 100 ns
    host_us = i * 100000000 + (i % 3) * 20000
    struct.pack_into("<II", d, off, 1704067200 + host_us // 1000000, host_us % 1000000)
    off, i = f + cl, i + 1
open(sys.argv[2], "wb").write(d)
PY
cp "$SH/e3time.pcap" "$T/e3time.pcap"
check "--time mirror: ERSPAN III times unwrapped, anchored on the host" \
	"1704067200.000000000 1704067300.000000000 1704067400.000000000 1704067500.000000000 1704067600.000000000 1704067700.000000000" \
	"$("$R" -r "$T/e3time.pcap" --time mirror --packets --json | jq -rs '[.[]."frame.time_epoch"] | join(" ")')"
check "--time host: the capture host's times" \
	"1704067200.000000000 1704067300.020000000 1704067400.040000000 1704067500.000000000 1704067600.020000000 1704067700.040000000" \
	"$("$R" -r "$T/e3time.pcap" --packets --json | jq -rs '[.[]."frame.time_epoch"] | join(" ")')"
check "--time mirror on a capture without ERSPAN III: host times" \
	"$("$R" -r "$LAB/roce_rping.pcap" --packets --json | md5sum)" "$("$R" -r "$LAB/roce_rping.pcap" --time mirror --packets --json | md5sum)"
check "--time bad: usage error" 2 "$("$R" -r "$LAB/roce_rping.pcap" --time switch >/dev/null 2>&1; echo $?)"

# Real ERSPAN copies (captures/public/tcpdump, from tcpdump's test suite):
# as many mirror copies and the same session IDs as tcpdump's own output
# (.out) shows; ERSPAN III FT=7 is no frame type libroce decapsulates (its
# header is read, no copy counted).  --time mirror on the Gra 3 (user
# configured) copies keeps the host's times, their unit being unknown.
PUB=$root/captures/public/tcpdump
for f in "$PUB"/erspan-*.pcap; do
	b=${f%.pcap}
	n=$(grep -c erspan "$b.out")
	case $b in *ft-7) n=0 ;; esac
	check "$(basename "$f"): mirror copies, sessions as tcpdump's" \
		"$n $(grep -o 'session [0-9]*' "$b.out" | awk '{print $2}' | sort -u | tr '\n' ' ')" \
		"$("$R" -r "$f" --json | jq -r '.mirror_copies // 0') $("$R" -r "$f" --packets --json |
			jq -r '."erspan.spanid" // empty' | sort -u | tr '\n' ' ')"
done
check "--time mirror on Gra 3 copies: host times" \
	"$("$R" -r "$PUB/erspan-type-iii-ft-0.pcap" --packets | md5sum)" \
	"$("$R" -r "$PUB/erspan-type-iii-ft-0.pcap" --time mirror --packets | md5sum)"

if command -v "$TSHARK" >/dev/null 2>&1; then
	c=$LAB/roce_rping.pcap
	"$MK" -k 9 erspan2 "$c" "$T/e2.pcap"
	tsh_vs_us "ERSPAN II" "$T/e2.pcap" gre.proto gre.key gre.sequence_number erspan.version erspan.spanid erspan.index
	"$MK" -p erspan3 "$c" "$T/e3.pcap"
	tsh_vs_us "ERSPAN III" "$T/e3.pcap" gre.sequence_number erspan.version erspan.spanid erspan.timestamp \
		erspan.sgt erspan.hw erspan.gra erspan.o erspan.platid
	"$MK" -t 100 erspan3 "$c" "$T/e3t.pcap"
	tsh_vs_us "ERSPAN III truncated" "$T/e3t.pcap" erspan.truncated erspan.spanid
	"$MK" -c gre-teb "$c" "$T/teb.pcap"
	tsh_vs_us "GRE-TEB" "$T/teb.pcap" gre.flags_and_version gre.proto gre.checksum
	"$MK" vxlan8472 "$c" "$T/vx.pcap"
	tsh_vs_us "VXLAN 8472" "$T/vx.pcap" udp.dstport vxlan.flags vxlan.vni
else
	echo "skip tshark comparisons: $TSHARK not found"
fi

echo "encap: $oks ok, $fails failed"
[ "$fails" = 0 ]
