#!/usr/bin/env bash
# make bench: every benchmark prints its figures and its ratio against a
# baseline measured in the same run.  Exit status 1 if a target is missed.
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
rc=0
mkdir -p "$BUILD/bench"
echo "== decode rate vs bare libpcap loop"
"$BUILD/tools/bench_decode" "$BUILD/bench/lab-1m.pcap" 1000000 \
	captures/lab/roce_rping.pcap captures/lab/roce_send_bw.pcap \
	captures/lab/roce_write_bw.pcap captures/lab/roce_read_bw.pcap \
	captures/lab/roce_atomic_bw_fadd.pcap captures/lab/roce_rc_pingpong.pcap || rc=1
rm -f "$BUILD/bench/lab-1m.pcap"
echo "== CRC-32, CRC-32C and ICRC throughput vs zlib / table-driven"
"$BUILD/tools/bench_crc" || rc=1
echo "== rocegen stress against the in-process reference adapter, one core, vs --qps"
bench/stress.sh || rc=1
echo "== flow analysis: rocetop -r vs bare libpcap loop and tshark; memory per flow"
bench/flow.sh || rc=1
echo "== /metrics at 1k, 10k and 100k flows: series, bytes and scrape time vs --prometheus-max-flows"
bench/prom.sh || rc=1
if [ "$(id -u)" = 0 ]; then
	echo "== live capture: rocetop -i vs tcpdump on a veth pair, sender rate and drops"
	bench/live.sh || rc=1
else
	echo "== live capture: skipped (needs root for network namespaces)"
fi
exit $rc
