#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/flow.sh — the flow analysis (rocetop -r without --packets), in one run:
#   1. a 1,000,000-frame capture of lab frames (bench_flow mk1m: cycled, the
#      PSNs carried on from cycle to cycle so the connections continue);
#   2. rocetop's rate against a bare libpcap read loop over the same file,
#      with the cost of each stage (decode, ICRC, engine); target >= 0.7x;
#   3. rocetop against `tshark -r … -T fields -e infiniband.bth.psn`, tshark
#      timed on the first 100,000 frames and scaled by 10 (its start-up,
#      0.16 s here, is then counted ten times, which flatters rocetop a
#      little; BENCH_TSHARK_FULL=1 times tshark on all 1,000,000 frames);
#      target >= 80x;
#   4. replay frames/s and CPU-us per frame against --threads (1 .. the
#      CPUs, at least 2) on a many-connection mix (512 connections), with
#      the scaling efficiency; targets >= 6 M frames/s on 1 thread, 2
#      threads >= 1.8x; then instructions per frame on that mix for 1 and
#      2 threads (callgrind, when valgrind is installed) and the 2-thread
#      speed-up they bound;
#   5. memory with 1,000,000 live QPs (one RC SEND to each of 1,000,000
#      destination QPs): struct size + hash heads per flow, and the peak RSS
#      growth per flow, in process and for rocetop itself; target <= 256 B.
# Exit status 1 when a target is missed.
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
B=$BUILD/tools/bench_flow
R=$BUILD/bin/rocetop
D=$BUILD/bench
mkdir -p "$D"
rc=0
now() { date +%s.%N; }

"$B" mk1m "$D/flow-1m.pcap" 1000000 \
	captures/lab/roce_rping.pcap captures/lab/roce_send_bw.pcap \
	captures/lab/roce_write_bw.pcap captures/lab/roce_read_bw.pcap \
	captures/lab/roce_atomic_bw_fadd.pcap captures/lab/roce_rc_pingpong.pcap || exit 2

out=$("$B" rate "$D/flow-1m.pcap" "$R") || rc=1
echo "$out" | grep -v '^ROCETOP_SECONDS='
rt=$(echo "$out" | sed -n 's/^ROCETOP_SECONDS=\([0-9.]*\).*/\1/p')

if command -v tshark >/dev/null 2>&1 && command -v editcap >/dev/null 2>&1; then
	if [ "${BENCH_TSHARK_FULL:-0}" = 1 ]; then
		t0=$(now)
		tshark -r "$D/flow-1m.pcap" -T fields -e infiniband.bth.psn >/dev/null 2>&1
		t1=$(now)
		ts=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		how="all 1,000,000 frames"
	else
		editcap -r "$D/flow-1m.pcap" "$D/flow-100k.pcap" 1-100000
		t0=$(now)
		tshark -r "$D/flow-100k.pcap" -T fields -e infiniband.bth.psn >/dev/null 2>&1
		t1=$(now)
		ts=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) * 10 }')
		how="first 100,000 frames, x10"
		rm -f "$D/flow-100k.pcap"
	fi
	ratio=$(awk -v t="$ts" -v r="$rt" 'BEGIN { printf "%.1f", t / r }')
	verdict=$(awk -v x="$ratio" 'BEGIN { print (x >= 80) ? "PASS" : "MISS" }')
	echo "  tshark -T fields -e infiniband.bth.psn: ${ts} s for 1,000,000 frames ($how)"
	echo "  rocetop ${rt} s: ${ratio}x faster than tshark (target >= 80x) $verdict"
	[ "$verdict" = PASS ] || rc=1
else
	echo "  tshark/editcap not installed: tshark comparison skipped"
fi
rm -f "$D/flow-1m.pcap"

# replay against --threads on the many-connection mix: the lab's lossy
# ib_send_bw run (roce_send_bw_netem) repeated over 512 connections, each on
# its own pair of hosts (bench_flow mk1m --pairs 512: IP checksum and ICRC
# made again), 1,000,000 frames; per thread count the median of 5 runs of
# wall and CPU (user + sys) time, frames/s, CPU-us per frame and the
# scaling efficiency against 1 thread in this run.  Targets (issue 26):
# 1 thread >= 6 M frames/s, 2 threads >= 1.8 x 1 thread.  The figures also
# go to $D/replay-figures.txt (the README quotes them).
"$B" mk1m "$D/mix-1m.pcap" 1000000 --pairs 512 captures/lab/roce_send_bw_netem.pcap >/dev/null || exit 2
# written back before it is timed: a capture being replayed is at rest, and
# the kernel's writeback of the freshly written 1 GB takes the other core
sync "$D/mix-1m.pcap"
cpus=$(nproc)
fig=$D/replay-figures.txt
: >"$fig"
one=
for t in $(seq 1 $((cpus > 2 ? cpus : 2))); do
	for k in 1 2 3 4 5; do
		/usr/bin/time -f '%e %U %S' "$R" -r "$D/mix-1m.pcap" -b --threads "$t" 2>&1 >/dev/null | tail -n 1
	done | awk '{ print $1, $2 + $3 }' | sort -n | sed -n 3p >"$D/t.txt"
	read -r wall cpu <"$D/t.txt"
	[ -n "$one" ] || { one=$wall; one_cpu=$cpu; }
	line=$(awk -v t="$t" -v w="$wall" -v c="$cpu" -v o="$one" 'BEGIN {
		printf "rocetop -r -b --threads %d, 512 connections, 1,000,000 frames: %.3f s, %.2f M frames/s, %.3f CPU-us/frame, %.2fx 1 thread (efficiency %.0f %%)",
		       t, w, 1 / w, c, o / w, 100 * o / w / t }')
	echo "  $line"
	echo "$line" >>"$fig"
	if [ "$t" = 1 ]; then
		v=$(awk -v w="$wall" 'BEGIN { print (1 / w >= 6) ? "PASS" : "MISS" }')
		echo "  1 thread: target >= 6 M frames/s $v"
		# One thread is not one core: the read-ahead thread copies the
		# file (pread) on another core while the analysis runs.  With the
		# same CPU per frame, no thread count can beat the CPUs over the
		# cores one thread already keeps busy.
		line=$(awk -v w="$wall" -v c="$cpu" -v n="$cpus" 'BEGIN {
			printf "1 thread keeps %.2f cores busy (its CPU time over its wall time: the analysis and the read-ahead thread'"'"'s copy); on %d CPUs no thread count can be more than %.2fx 1 thread at the same CPU per frame",
			       c / w, n, n * w / c }')
		echo "  $line"
		echo "$line" >>"$fig"
	elif [ "$t" = 2 ]; then
		v=$(awk -v w="$wall" -v o="$one" 'BEGIN { print (o / w >= 1.8) ? "PASS" : "MISS" }')
		echo "  2 threads: target >= 1.8x 1 thread $v"
	fi
	[ "${v:-PASS}" = PASS ] || rc=1
	v=
done
rm -f "$D/mix-1m.pcap" "$D/t.txt"

# instructions per frame on the same mix (100,000 frames), 1 and 2 threads,
# counted by callgrind: repeatable where wall time is not (a 2-core machine
# shared with other work).  Per run: every thread's instructions per frame
# (the CPU work), and the critical path per frame: the main thread (start,
# merge, report) plus, with --threads, its busiest worker (the read-ahead
# thread of 1 thread runs beside it and is left out).  The 2-thread bound is
# 1 thread's critical path over 2 threads': the speed-up a machine with
# two free cores can give.  (valgrind has no AVX-512: the CRC runs its
# PCLMULQDQ path here, VPCLMULQDQ on the machine itself.)  Also to $fig.
if command -v valgrind >/dev/null 2>&1; then
	"$B" mk1m "$D/mix-100k.pcap" 100000 --pairs 512 captures/lab/roce_send_bw_netem.pcap >/dev/null || exit 2
	for t in 1 2; do
		rm -f "$D/cg.$t".*
		valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$D/cg.$t" \
			"$R" -r "$D/mix-100k.pcap" -b --threads "$t" >/dev/null 2>&1 || rc=1
	done
	python3 - "$D" 100000 >>"$fig" <<'PY' || rc=1
import glob, sys
d, n = sys.argv[1], int(sys.argv[2])
def threads(t):
    out = []
    for f in sorted(glob.glob("%s/cg.%d-*" % (d, t))):
        for line in open(f):
            if line.startswith("summary:") or line.startswith("totals:"):
                out.append(int(line.split()[1]))
                break
    return out
crit = {}
for t in (1, 2):
    th = threads(t)
    if not th:
        sys.exit("bench: no callgrind output for %d threads" % t)
    crit[t] = th[0] + (max(th[1:]) if t > 1 and len(th) > 1 else 0)
    print("rocetop -r -b --threads %d, 512 connections, %d frames: %.0f instructions/frame in all threads, "
          "critical path %.0f/frame (main thread %.0f%s)" %
          (t, n, sum(th) / n, crit[t] / n, th[0] / n,
           ", busiest worker %.0f" % (max(th[1:]) / n) if t > 1 and len(th) > 1 else ""))
print("2 threads bound by instructions: %.2fx 1 thread (1 thread's critical path over 2 threads')" % (crit[1] / crit[2]))
PY
	tail -n 3 "$fig" | sed 's/^/  /'
	rm -f "$D/mix-100k.pcap" "$D/cg".*
else
	echo "  valgrind not installed: instructions per frame skipped"
fi

"$B" mkqps "$D/qps-1m.pcap" 1000000 || exit 2
"$B" mem "$D/qps-1m.pcap" || rc=1
if [ -x /usr/bin/time ]; then
	small=$(/usr/bin/time -f %M "$R" -r captures/lab/roce_rping.pcap 2>&1 >/dev/null | tail -n 1)
	big=$(/usr/bin/time -f %M "$R" -r "$D/qps-1m.pcap" 2>&1 >/dev/null | tail -n 1)
	awk -v s="$small" -v b="$big" 'BEGIN {
		printf "  rocetop -r (1,000,000 QPs): peak RSS %d KiB, %.1f B per flow over a small capture'"'"'s %d KiB\n",
		       b, (b - s) * 1024 / 1e6, s }'
fi
rm -f "$D/qps-1m.pcap"
exit $rc
