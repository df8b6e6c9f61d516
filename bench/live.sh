#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/live.sh — live capture under load: how fast can a sender go, and
# what is dropped, while rocetop captures, against tcpdump measured in the
# same run on the same link.  Root; makes two network namespaces joined by a
# veth pair (names starting with "live") and removes them on exit.  Sends
# nothing anywhere else.
#
#   BUILD=build bench/live.sh        RUNS=3 SECONDS_PER_RUN=3 FIXED_PPS=200000
#   ROCETOP=/path/to/rocetop ...     measure another rocetop binary
#
# Sender: `rocegen flood --tx mmsg --no-rate-cap` (16 QPs, 64-byte payload)
# for SECONDS_PER_RUN seconds, in namespace A.  Capturing in namespace B:
#   tcpdump -i B -B 32768 -w /dev/null     the baseline
#   rocetop -i B -b -d 100 --json          the full flow analysis
# then rocetop again while the sender is held at FIXED_PPS frames/s; the
# same two with --threads 2 (the flood is one address pair: one thread gets
# it all, the row measures the fanout's cost); and tcpdump and rocetop
# under `tcpreplay --topspeed` of ERSPAN II copies of lab frames (one
# mirror session: one thread, whatever --threads says).
# For each: the sender's frames/s, frames captured, frames dropped by the
# capture (tcpdump's "dropped by kernel", rocetop's capture.dropped), and
# CPU seconds per million frames and voluntary context switches (wakeups).  Medians of RUNS runs; the runs
# alternate tcpdump and rocetop so that both see the same machine load.
#
# Targets (exit 1 when missed): sender rate under rocetop >= 0.8 x under
# tcpdump; no drops at FIXED_PPS (one thread and two).  On a 2-core machine the ratio partly
# measures CPU contention between sender and capture.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
GEN=$BUILD/bin/rocegen
R=${ROCETOP:-$BUILD/bin/rocetop}
RUNS=${RUNS:-3}
DUR=${SECONDS_PER_RUN:-3}
FIXED_PPS=${FIXED_PPS:-200000}

[ -x "$GEN" ] && [ -x "$R" ] || { echo "bench/live: $GEN or $R not built" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench/live: needs root (network namespaces)" >&2; exit 2; }
command -v tcpdump >/dev/null || { echo "bench/live: tcpdump missing (make deps)" >&2; exit 2; }

T=$(mktemp -d "${TMPDIR:-/tmp}/livebench.XXXXXX") || exit 2
NSA=liveA$$
NSB=liveB$$
VA=livea$$ VB=liveb$$
CPID=""
cleanup() {
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$NSA" || exit 2
ip netns add "$NSB" || exit 2
ip link add "$VA" netns "$NSA" type veth peer name "$VB" netns "$NSB" || exit 2
ip -n "$NSA" addr add 10.97.0.1/24 dev "$VA"
ip -n "$NSB" addr add 10.97.0.2/24 dev "$VB"
for ns in "$NSA" "$NSB"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip -n "$NSA" link set "$VA" up
ip -n "$NSB" link set "$VB" up

FLOOD=(flood -i "$VA" --dst 10.97.0.2 --tx mmsg --qps 16 --payload-size 64 --duration "$DUR")
# ERSPAN II copies of lab frames (what a mirror port of an offloading fabric
# delivers), for tcpreplay; without mkencap or tcpreplay the rows are left out
EPCAP=""
if [ -x "$BUILD/tools/mkencap" ] && command -v tcpreplay >/dev/null &&
	"$BUILD/tools/mkencap" erspan2 "$root/captures/lab/roce_send_bw.pcap" "$T/erspan.pcap"; then
	EPCAP=$T/erspan.pcap
fi
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
TCK=$(getconf CLK_TCK)

# cpu PID: user+system seconds of a running process
cpu() { awk -v t="$TCK" '{ printf "%.3f", ($14 + $15) / t }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# csw PID: its voluntary context switches (wakeups)
csw() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# wait_for FILE PATTERN: until a line matches (at most 5 s)
wait_for() {
	for _ in $(seq 100); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# send SENDER: flood:RATE (rocegen, RATE --no-rate-cap or "--pps N") or
# erspan (tcpreplay --topspeed of lab frames in ERSPAN II); the sender's
# frames/s on stdout
send() {
	local pps
	case $1 in
	flood:*)
		# shellcheck disable=SC2086
		ip netns exec "$NSA" "$GEN" "${FLOOD[@]}" ${1#flood:} 2>"$T/gen.err" >/dev/null ||
			{ echo "bench/live: rocegen failed:" >&2; cat "$T/gen.err" >&2; }
		pps=$(sed -n 's/.* pps=\([0-9]*\) .*/\1/p' "$T/gen.err")
		;;
	erspan)
		ip netns exec "$NSA" tcpreplay -i "$VA" --topspeed -K --duration "$DUR" --loop 1000000 "$EPCAP" \
			>"$T/gen.err" 2>&1 || { echo "bench/live: tcpreplay failed:" >&2; cat "$T/gen.err" >&2; }
		pps=$(sed -n 's/.*Rated:.* \([0-9.]*\) pps.*/\1/p' "$T/gen.err" | head -n 1)
		;;
	esac
	echo "${pps%.*}"
}

# one SENDER KIND [ROCETOP OPTIONS]: KIND tcpdump|rocetop;
# prints "sender_pps captured dropped cpu_s wakeups"
one() {
	local sender=$1 kind=$2 pps cap drop c w
	shift 2
	if [ "$kind" = tcpdump ]; then
		ip netns exec "$NSB" tcpdump -n -i "$VB" -B 32768 -w /dev/null >"$T/cap.out" 2>"$T/cap.err" &
		CPID=$!
		wait_for "$T/cap.err" "listening on" || { echo "bench/live: tcpdump did not start" >&2; cat "$T/cap.err" >&2; }
	else
		ip netns exec "$NSB" "$R" -i "$VB" -b -d 100 --json "$@" >"$T/cap.out" 2>"$T/cap.err" &
		CPID=$!
		sleep 1          # no "ready" line: give it time to open the ring
	fi
	pps=$(send "$sender")
	sleep 0.3                # the last block's timeout
	c=$(cpu "$CPID")
	w=$(csw "$CPID")
	kill -INT "$CPID"
	wait "$CPID"
	CPID=""
	if [ "$kind" = tcpdump ]; then
		cap=$(sed -n 's/^\([0-9]*\) packets captured.*/\1/p' "$T/cap.err")
		drop=$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$T/cap.err")
	else
		read -r cap drop < <(tail -n 1 "$T/cap.out" | jq -r '"\(.frames) \(.capture.dropped)"')
	fi
	echo "${pps:-0} ${cap:-0} ${drop:-0} $c ${w:-0}"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print 0 }'; }

: >"$T/tcpdump" ; : >"$T/rocetop" ; : >"$T/fixed" ; : >"$T/t2" ; : >"$T/t2fixed"
: >"$T/etcpdump" ; : >"$T/erocetop"
FIX="flood:--pps $FIXED_PPS"
for i in $(seq "$RUNS"); do
	one flood:--no-rate-cap tcpdump >>"$T/tcpdump"
	one flood:--no-rate-cap rocetop >>"$T/rocetop"
	one "$FIX" rocetop >>"$T/fixed"
	one flood:--no-rate-cap rocetop --threads 2 >>"$T/t2"
	one "$FIX" rocetop --threads 2 >>"$T/t2fixed"
	if [ -n "$EPCAP" ]; then
		one erspan tcpdump >>"$T/etcpdump"
		one erspan rocetop >>"$T/erocetop"
	fi
	echo "bench/live: run $i (sender pps, captured, dropped, cpu s, wakeups): tcpdump $(tail -n 1 "$T/tcpdump")," \
		"rocetop $(tail -n 1 "$T/rocetop"), at $FIXED_PPS/s $(tail -n 1 "$T/fixed"), --threads 2 $(tail -n 1 "$T/t2")," \
		"at $FIXED_PPS/s $(tail -n 1 "$T/t2fixed"); ERSPAN: tcpdump $(tail -n 1 "$T/etcpdump"), rocetop $(tail -n 1 "$T/erocetop")"
done

col() { awk -v k="$2" '{ print $k }' "$1" | median; }
# CPU seconds per million frames captured, median over the runs
cpum() { awk '$2 > 0 { print $4 / $2 * 1e6 }' "$1" | median; }
row() { # LABEL FILE
	[ -s "$2" ] && printf '  %-54s %12.0f %10.0f %14.2f %9.0f\n' "$1" "$(col "$2" 1)" "$(col "$2" 3)" "$(cpum "$2")" "$(col "$2" 5)"
}
ratio() { awk -v a="$(col "$1" 1)" -v b="$(col "$2" 1)" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
ratio1=$(ratio "$T/rocetop" "$T/tcpdump")
ratio2=$(ratio "$T/t2" "$T/tcpdump")
fd=$(col "$T/fixed" 3)
fd2=$(col "$T/t2fixed" 3)

printf '\nlive capture on a veth pair, rocegen flood --tx mmsg (16 QPs, 64-byte payload), %s s a run, median of %s\n' "$DUR" "$RUNS"
printf '  load before the runs: %s\n' "$LOAD"
printf '  %-54s %12s %10s %14s %9s\n' "capturing" "sender fr/s" "dropped" "cpu s/Mframe" "wakeups"
row "tcpdump -B 32768 -w /dev/null" "$T/tcpdump"
row "rocetop -b --json" "$T/rocetop"
row "rocetop -b --json, sender at $FIXED_PPS/s" "$T/fixed"
row "rocetop -b --json --threads 2" "$T/t2"
row "rocetop -b --json --threads 2, sender at $FIXED_PPS/s" "$T/t2fixed"
row "ERSPAN II (tcpreplay -t): tcpdump" "$T/etcpdump"
row "ERSPAN II (tcpreplay -t): rocetop -b --json" "$T/erocetop"
printf '  sender rate under rocetop / under tcpdump: %s, with --threads 2: %s (target >= 0.8)\n' "$ratio1" "$ratio2"
[ -s "$T/erocetop" ] && printf '  ERSPAN: sender rate under rocetop / under tcpdump: %s\n' "$(ratio "$T/erocetop" "$T/etcpdump")"
printf '  load after the runs: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"

rc=0
awk -v r="$ratio1" 'BEGIN { exit !(r >= 0.8) }' || { echo "bench/live: ratio $ratio1 below 0.8"; rc=1; }
[ "${fd%.*}" = 0 ] || { echo "bench/live: $fd frames dropped at $FIXED_PPS frames/s"; rc=1; }
[ "${fd2%.*}" = 0 ] || { echo "bench/live: $fd2 frames dropped at $FIXED_PPS frames/s with --threads 2"; rc=1; }
exit $rc
