#!/usr/bin/env bash
# bench/stress.sh - what `rocegen stress` sustains against the in-process
# reference adapter on one core, and how that changes with --qps: messages
# per CPU second of the whole run (rocegen's engines, the reference adapter's
# engines and every integrity check: both sides are in the one process), per
# wall second (depends on the machine's load), and bytes; with the adapter as
# responder (rocegen posts) and as requester (the reference's own workload).  Pinned to one CPU
# with taskset when it is there.  BENCH_MESSAGES sets the messages per point.
# Then the connection-scalability curve (SRNIC): `--sweep-qps` up to 16,384
# QPs, messages per simulated second and latency per point and the knee,
# against `good` and against `qpcache:1024` (1,024 QP contexts on chip).
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
GEN=$BUILD/bin/rocegen
TOTAL=${BENCH_MESSAGES:-60000}
PIN=; command -v taskset > /dev/null && PIN="taskset -c 0"
for role in responder requester; do
echo "-- the adapter as $role"
printf '%6s %9s %10s %14s %14s %10s\n' qps messages "cpu s" "msg/s (cpu)" "msg/s (wall)" "MB/s (cpu)"
for q in 1 4 16 64 256 1024 4096; do
	m=$(( TOTAL / q )); [ "$m" -lt 4 ] && m=4
	$PIN "$GEN" stress --reference --role "$role" --qps "$q" --messages "$m" --sizes 64-1024 --qd 4 --json 2>/dev/null |
		tail -n 1 | python3 -c '
import json, sys
d = json.load(sys.stdin)
ok = all(c["verdict"] in ("PASS", "UNSUPPORTED") for c in d["checks"])
cpu = max(d["cpu_s"], 1e-6)
print("%6d %9d %10.3f %14.0f %14.0f %10.1f%s" % (d["qps"], d["messages"], d["cpu_s"], d["messages"] / cpu,
      d["messages_per_s"], d["bytes"] / cpu / 1e6, "" if ok else "  (a check did not pass)"))
sys.exit(0 if ok else 1)' || exit 1
done
done
for ref in good qpcache:1024; do
	echo "-- connection scalability: --reference $ref --sweep-qps 1,16,256,1024,4096,16384 (qd 1, 4 messages per QP)"
	$PIN "$GEN" stress --reference "$ref" --sweep-qps 1,16,256,1024,4096,16384 --messages 4 --qd 1 --sizes 64 || exit 1
done
