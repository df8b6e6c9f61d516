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
#   4. replay frames/s against --threads (1 .. the CPUs, at least 2) on the
#      lab frames spread over 8 address pairs;
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

# replay frames/s against --threads: the same lab frames on 8 address pairs
# (rocetop splits by address pair), the median wall time of 3 runs per count
"$B" mk1m "$D/pairs-1m.pcap" 1000000 --pairs 8 \
	captures/lab/roce_rping.pcap captures/lab/roce_send_bw.pcap \
	captures/lab/roce_write_bw.pcap captures/lab/roce_read_bw.pcap \
	captures/lab/roce_atomic_bw_fadd.pcap captures/lab/roce_rc_pingpong.pcap >/dev/null || exit 2
cpus=$(nproc)
for t in $(seq 1 $((cpus > 2 ? cpus : 2))); do
	for k in 1 2 3; do
		t0=$(now)
		"$R" -r "$D/pairs-1m.pcap" --json --threads "$t" >/dev/null
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
	done | sort -n | sed -n 2p | awk -v t="$t" -v c="$cpus" '{
		printf "  rocetop -r --threads %d (8 address pairs, 1,000,000 frames, %d CPUs): %.3f s, %.2f M frames/s (median of 3)\n",
		       t, c, $1, 1 / $1 }'
done
rm -f "$D/pairs-1m.pcap"

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
