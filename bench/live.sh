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
#   BEFORE=/path/to/rocetop ...      also measure that one (an older build), in the same runs
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
# CPU seconds per million frames and voluntary context switches (wakeups), both counted from
# the moment the sender starts (the capture's start, the ring's allocation, left out; CPU time
# from the threads' schedstat run times, in ns).  Medians of RUNS runs
# (with the lowest and highest beside them); the runs alternate tcpdump and rocetop so that
# both see the same machine load.
#
# Live against replay: before the runs tcpdump saves a flood of the same
# kind at the sender's top rate; in each run rocetop -r -b --json reads it
# (1 thread and --threads 2), less the same command's CPU with -c 1 (its
# start and summary), and the CPU seconds per million frames of the live
# rows at the top rate are divided by the replay's of the same run.
#
# Targets (exit 1 when missed): sender rate under rocetop >= 0.8 x under
# tcpdump; no drops at FIXED_PPS (one thread and two); no drops at the top
# rate when tcpdump had none; live CPU per frame <= 1.5 x replay's (one
# thread).  On a 2-core machine the sender rate partly measures CPU contention
# between sender and capture.  The table also goes to $BUILD/bench/live-figures.txt
# (the README quotes it).
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

BEFORE=${BEFORE:-}
[ -x "$GEN" ] && [ -x "$R" ] || { echo "bench/live: $GEN or $R not built" >&2; exit 2; }
[ -z "$BEFORE" ] || [ -x "$BEFORE" ] || { echo "bench/live: BEFORE=$BEFORE is not a program" >&2; exit 2; }
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

# cpu PID: seconds a running process has been on a CPU (user + system), all
# its threads: their schedstat run times (ns), else its stat (clock ticks)
cpu() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ c += $1 } END { if (NR) printf "%.4f", c / 1e9; else exit 1 }' ||
		awk -v t="$TCK" '{ printf "%.3f", ($14 + $15) / t }' "/proc/$1/stat" 2>/dev/null || echo 0
}
# csw PID: its voluntary context switches (wakeups), all its threads
csw() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ { n += $2 } END { print n + 0 }'; }

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
# prints "sender_pps captured dropped cpu_s wakeups cpu_s_with_start"
one() {
	local sender=$1 kind=$2 pps cap drop c w c0 w0 ct
	shift 2
	if [ "$kind" = tcpdump ]; then
		ip netns exec "$NSB" tcpdump -n -i "$VB" -B 32768 -w /dev/null >"$T/cap.out" 2>"$T/cap.err" &
		CPID=$!
		wait_for "$T/cap.err" "listening on" || { echo "bench/live: tcpdump did not start" >&2; cat "$T/cap.err" >&2; }
	else
		ip netns exec "$NSB" "${RBIN:-$R}" -i "$VB" -b -d 100 --json "$@" >"$T/cap.out" 2>"$T/cap.err" &
		CPID=$!
		sleep 1          # no "ready" line: give it time to open the ring
	fi
	# from here: what the frames cost (the start, the ring's allocation, is left out)
	c0=$(cpu "$CPID")
	w0=$(csw "$CPID")
	pps=$(send "$sender")
	sleep 0.3                # the last block's timeout
	ct=$(cpu "$CPID")
	c=$(awk -v a="$ct" -v b="$c0" 'BEGIN { printf "%.4f", a - b }')
	w=$(($(csw "$CPID") - w0))
	kill -INT "$CPID"
	wait "$CPID"
	CPID=""
	if [ "$kind" = tcpdump ]; then
		cap=$(sed -n 's/^\([0-9]*\) packets captured.*/\1/p' "$T/cap.err")
		drop=$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$T/cap.err")
	else
		read -r cap drop < <(tail -n 1 "$T/cap.out" | jq -r '"\(.frames) \(.capture.dropped)"')
	fi
	echo "${pps:-0} ${cap:-0} ${drop:-0} $c ${w:-0} $ct"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print 0 }'; }
# spread: "lowest-highest" of stdin
spread() { sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }

# rcpu BIN [OPTIONS]: CPU seconds (user + system, the shell's times of its
# children) of rocetop -r (the saved flood) -b --json OPTIONS
rcpu() {
	( "$@" >"$T/rep.out" 2>"$T/rep.err"; times ) | tail -n 1 |
		awk '{ for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); c += a[1] * 60 + a[2] } printf "%.4f", c }'
}
# replay BIN [OPTIONS]: "frames 0 0 cpu_s 0 cpu_s_with_start" of rocetop -r
# (the saved flood) -b --json; as the live rows leave the start out, cpu_s
# is less the CPU time of the same command stopping at the first frame (-c 1:
# start, summary)
replay() {
	local bin=$1 c0 c
	shift
	c0=$(rcpu "$bin" -r "$T/flood.pcap" -b --json -c 1 "$@")
	c=$(rcpu "$bin" -r "$T/flood.pcap" -b --json "$@")
	echo "$(tail -n 1 "$T/rep.out" | jq -r .frames) 0 0 $(awk -v a="$c" -v b="$c0" 'BEGIN { printf "%.4f", a - b }') 0 $c"
}

# the replay's frames: a flood at the top rate, saved by tcpdump
ip netns exec "$NSB" tcpdump -n -i "$VB" -B 65536 -w "$T/flood.pcap" >/dev/null 2>"$T/cap.err" &
CPID=$!
wait_for "$T/cap.err" "listening on" || { echo "bench/live: tcpdump did not start" >&2; cat "$T/cap.err" >&2; }
send flood:--no-rate-cap >/dev/null
sleep 0.3
kill -INT "$CPID"
wait "$CPID"
CPID=""

FIX="flood:--pps=$FIXED_PPS"   # one word: the rows below are split on blanks
# the rows: FILE SENDER KIND [BINARY [ROCETOP OPTIONS]]
CASES=("tcpdump flood:--no-rate-cap tcpdump"
	"rocetop flood:--no-rate-cap rocetop $R"
	"fixed $FIX rocetop $R"
	"t2 flood:--no-rate-cap rocetop $R --threads 2"
	"t2fixed $FIX rocetop $R --threads 2"
	"replay - replay $R"
	"replay2 - replay $R --threads 2")
if [ -n "$BEFORE" ]; then
	CASES+=("brocetop flood:--no-rate-cap rocetop $BEFORE"
		"bfixed $FIX rocetop $BEFORE"
		"bt2 flood:--no-rate-cap rocetop $BEFORE --threads 2"
		"bt2fixed $FIX rocetop $BEFORE --threads 2"
		"breplay - replay $BEFORE"
		"breplay2 - replay $BEFORE --threads 2")
fi
if [ -n "$EPCAP" ]; then
	CASES+=("etcpdump erspan tcpdump" "erocetop erspan rocetop $R")
fi
for c in "${CASES[@]}"; do
	: >"$T/${c%% *}"
done
for i in $(seq "$RUNS"); do
	line=""
	for c in "${CASES[@]}"; do
		# shellcheck disable=SC2086
		set -- $c
		f=$1 sender=$2 kind=$3
		shift 3
		case $kind in
		tcpdump) one "$sender" tcpdump >>"$T/$f" ;;
		replay) replay "$@" >>"$T/$f" ;;
		*) bin=$1; shift; RBIN=$bin one "$sender" rocetop "$@" >>"$T/$f" ;;
		esac
		line="$line $f: $(tail -n 1 "$T/$f");"
	done
	echo "bench/live: run $i (sender pps, captured, dropped, cpu s, wakeups):$line"
done

col() { awk -v k="$2" '{ print $k }' "$1" | median; }
# CPU seconds per million frames captured, per run
cpurun() { awk '$2 > 0 { print $4 / $2 * 1e6 }' "$1"; }
cpum() { cpurun "$1" | median; }
# the same with the start (the capture's, the ring's allocation; the replay's)
cpuall() { awk '$2 > 0 { print $6 / $2 * 1e6 }' "$1" | median; }
# live over replay CPU per frame, per run (the same run's replay), median and spread
# (COLUMN 6: the CPU times with the start)
lvr() { # LIVE REPLAY [COLUMN]
	paste <(awk -v k="${3:-4}" '$2 > 0 { print $k / $2 }' "$1") <(awk -v k="${3:-4}" '$1 > 0 { print $k / $1 }' "$2") |
		awk '$2 > 0 { print $1 / $2 }' >"$T/lvr"
}
row() { # LABEL FILE
	[ -s "$2" ] && printf '  %-58s %11.0f %8.0f %9.2f (%s) %8.2f %8.0f\n' "$1" "$(col "$2" 1)" "$(col "$2" 3)" "$(cpum "$2")" \
		"$(cpurun "$2" | spread)" "$(cpuall "$2")" "$(col "$2" 5)"
}
reprow() { # LABEL FILE
	[ -s "$2" ] && printf '  %-58s %11s %8s %9.2f (%s) %8.2f\n' "$1" "$(col "$2" 1)" "" \
		"$(awk '$1 > 0 { print $4 / $1 * 1e6 }' "$2" | median)" "$(awk '$1 > 0 { print $4 / $1 * 1e6 }' "$2" | spread)" \
		"$(awk '$1 > 0 { print $6 / $1 * 1e6 }' "$2" | median)"
}
ratio() { awk -v a="$(col "$1" 1)" -v b="$(col "$2" 1)" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
ratio1=$(ratio "$T/rocetop" "$T/tcpdump")
ratio2=$(ratio "$T/t2" "$T/tcpdump")
fd=$(col "$T/fixed" 3)
fd2=$(col "$T/t2fixed" 3)
td=$(col "$T/tcpdump" 3)
topd=$(col "$T/rocetop" 3)
lvr "$T/rocetop" "$T/replay"
lr1=$(median <"$T/lvr") lr1s=$(spread <"$T/lvr")
lvr "$T/t2" "$T/replay2"
lr2=$(median <"$T/lvr") lr2s=$(spread <"$T/lvr")
lvr "$T/rocetop" "$T/replay" 6
la1=$(median <"$T/lvr") la1s=$(spread <"$T/lvr")
lvr "$T/t2" "$T/replay2" 6
la2=$(median <"$T/lvr") la2s=$(spread <"$T/lvr")
lrv=$(awk -v r="$lr1" 'BEGIN { print (r > 0 && r <= 1.5) ? "PASS" : "MISS" }')

fig=$BUILD/bench/live-figures.txt
mkdir -p "$BUILD/bench"
{
printf 'live capture on a veth pair, rocegen flood --tx mmsg (16 QPs, 64-byte payload), %s s a run, median of %s runs (lowest-highest)\n' "$DUR" "$RUNS"
printf '  load before the runs: %s; after: %s\n' "$LOAD" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-58s %11s %8s %22s %8s %8s\n' "capturing" "sender fr/s" "dropped" "cpu s/Mframe" "+start" "wakeups"
row "tcpdump -B 32768 -w /dev/null" "$T/tcpdump"
row "rocetop -b --json" "$T/rocetop"
row "rocetop -b --json, sender at $FIXED_PPS/s" "$T/fixed"
row "rocetop -b --json --threads 2" "$T/t2"
row "rocetop -b --json --threads 2, sender at $FIXED_PPS/s" "$T/t2fixed"
reprow "replay of a saved top-rate flood: rocetop -r -b --json" "$T/replay"
reprow "replay of it: rocetop -r -b --json --threads 2" "$T/replay2"
if [ -n "$BEFORE" ]; then
	row "before ($BEFORE): rocetop -b --json" "$T/brocetop"
	row "before: rocetop -b --json, sender at $FIXED_PPS/s" "$T/bfixed"
	row "before: rocetop -b --json --threads 2" "$T/bt2"
	row "before: rocetop -b --json --threads 2, sender at $FIXED_PPS/s" "$T/bt2fixed"
	reprow "before: replay, rocetop -r -b --json" "$T/breplay"
	reprow "before: replay, rocetop -r -b --json --threads 2" "$T/breplay2"
fi
row "ERSPAN II (tcpreplay -t): tcpdump" "$T/etcpdump"
row "ERSPAN II (tcpreplay -t): rocetop -b --json" "$T/erocetop"
printf '  sender rate under rocetop / under tcpdump: %s, with --threads 2: %s (target >= 0.8)\n' "$ratio1" "$ratio2"
[ -s "$T/erocetop" ] && printf '  ERSPAN: sender rate under rocetop / under tcpdump: %s\n' "$(ratio "$T/erocetop" "$T/etcpdump")"
printf '  live CPU per frame at the top rate / replay'"'"'s, same run: %.2f (%s) (target <= 1.5: %s), with --threads 2: %.2f (%s)\n' \
	"$lr1" "$lr1s" "$lrv" "$lr2" "$lr2s"
printf '  the same with the start (ring allocation; the replay'"'"'s start and summary): %.2f (%s), with --threads 2: %.2f (%s)\n' \
	"$la1" "$la1s" "$la2" "$la2s"
if [ -n "$BEFORE" ]; then
	for k in 4 6; do
		lvr "$T/brocetop" "$T/breplay" $k
		printf '  before: live / replay CPU per frame%s: %.2f (%s)' "$([ $k = 6 ] && echo ', with the start')" \
			"$(median <"$T/lvr")" "$(spread <"$T/lvr")"
		lvr "$T/bt2" "$T/breplay2" $k
		printf ', with --threads 2: %.2f (%s)\n' "$(median <"$T/lvr")" "$(spread <"$T/lvr")"
	done
fi
printf '  dropped at the top rate: rocetop %s, tcpdump %s\n' "$topd" "$td"
} | tee "$fig"

# Instructions per frame (callgrind: repeatable where CPU time is not, on a
# loaded machine): rocetop -i -b --json while the sender holds CG_PPS
# frames/s for 2 s, less the same capture's count with no frames (its start,
# the ring, the summary); tcpdump saves the same frames beside it, and
# rocetop -r -b --json reads them, less its run with -c 1.  User space only:
# the kernel's side (poll, the ring's blocks; the replay's read()) is not
# counted.  (valgrind has no AVX-512: the CRC runs its PCLMULQDQ path here.)
CG_PPS=${CG_PPS:-20000}
# cg_total OUTFILE: the instructions callgrind counted
cg_total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'; }
# cg_live BIN PPS: "frames instructions" of a live capture (PPS 0: no sender)
cg_live() {
	local bin=$1 pps=$2 cap=""
	ip netns exec "$NSB" valgrind --tool=callgrind --callgrind-out-file="$T/cg.live" "$bin" -i "$VB" -b -d 100 --json \
		>"$T/cg.out" 2>"$T/cg.err" &
	CPID=$!
	if [ "$pps" -gt 0 ]; then
		ip netns exec "$NSB" tcpdump -n -i "$VB" -B 32768 -w "$T/cg.pcap" >/dev/null 2>"$T/cgt.err" &
		cap=$!
		wait_for "$T/cgt.err" "listening on"
	fi
	sleep 4           # valgrind's start
	if [ "$pps" -gt 0 ]; then
		ip netns exec "$NSA" "$GEN" flood -i "$VA" --dst 10.97.0.2 --tx mmsg --qps 16 --payload-size 64 --duration 2 \
			--pps "$pps" >/dev/null 2>&1
	else
		sleep 2
	fi
	sleep 0.5
	kill -INT "$CPID"
	[ -n "$cap" ] && kill -INT "$cap" && wait "$cap"
	wait "$CPID"
	CPID=""
	echo "$(tail -n 1 "$T/cg.out" | jq -r .frames) $(cg_total "$T/cg.live")"
}
# cg_replay BIN [-c 1]: "frames instructions" of rocetop -r (the frames saved above)
cg_replay() {
	local bin=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$T/cg.rep" "$bin" -r "$T/cg.pcap" -b --json "$@" >"$T/cg.out" 2>/dev/null
	echo "$(tail -n 1 "$T/cg.out" | jq -r .frames) $(cg_total "$T/cg.rep")"
}
# cg_row LABEL BIN: instructions per frame, live and replay
cg_row() {
	local li lf l0 rf ri r0
	read -r _ l0 < <(cg_live "$2" 0)
	read -r lf li < <(cg_live "$2" "$CG_PPS")
	read -r _ r0 < <(cg_replay "$2" -c 1)
	read -r rf ri < <(cg_replay "$2")
	awk -v lab="$1" -v lf="$lf" -v li="$li" -v l0="$l0" -v rf="$rf" -v ri="$ri" -v r0="$r0" 'BEGIN {
		if (lf > 0 && rf > 0)
			printf "  %s: live %.0f instructions a frame (%d frames), replay of the same frames %.0f: %.2fx\n",
			       lab, (li - l0) / lf, lf, (ri - r0) / rf, ((li - l0) / lf) / ((ri - r0) / rf) }'
}
if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
	{
		printf 'instructions per frame (callgrind, user space), rocegen flood at %s frames/s for 2 s:\n' "$CG_PPS"
		cg_row "rocetop" "$R"
		[ -z "$BEFORE" ] || cg_row "before" "$BEFORE"
	} | tee -a "$fig"
fi

rc=0
awk -v r="$ratio1" 'BEGIN { exit !(r >= 0.8) }' || { echo "bench/live: ratio $ratio1 below 0.8"; rc=1; }
[ "${fd%.*}" = 0 ] || { echo "bench/live: $fd frames dropped at $FIXED_PPS frames/s"; rc=1; }
[ "${fd2%.*}" = 0 ] || { echo "bench/live: $fd2 frames dropped at $FIXED_PPS frames/s with --threads 2"; rc=1; }
[ "${td%.*}" != 0 ] || [ "${topd%.*}" = 0 ] || { echo "bench/live: $topd frames dropped at the top rate where tcpdump dropped none"; rc=1; }
[ "$lrv" = PASS ] || { echo "bench/live: live CPU per frame $lr1 x replay's (target <= 1.5)"; rc=1; }
exit $rc
