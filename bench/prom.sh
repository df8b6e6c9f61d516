#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/prom.sh — the /metrics page at scale (the figures of rocetop(8),
# "Series and scale"):
#   for N = 1,000, 10,000 and 100,000 flows (bench_flow mkqps: one RC
#   SEND_ONLY to each of N destination QPs, so no RTT histograms), and for
#   --prometheus-max-flows at its default (1000), 100, 0 and N (uncapped),
#   `rocetop -r CAPTURE --prometheus 127.0.0.1:PORT --linger` replays the
#   capture and serves it; the page is then scraped three times with curl and
#   the series (sample lines), the bytes (uncompressed) and the best scrape
#   time are printed, with the series a flow adds and what a fabric of 1,000 such
#   hosts costs Prometheus at a 15 s scrape interval (arithmetic from the
#   per-host counts; about 4 KiB of memory per head series).
#   BENCH_PROM_FLOWS="1000 10000" limits the sizes.
# Loopback only (127.0.0.1, ports the kernel picks).  Exit status 1 when a
# page does not hold the series the cap allows (flows exported != min(N, cap)).
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
B=$BUILD/tools/bench_flow
R=$BUILD/bin/rocetop
for b in "$B" "$R"; do
	[ -x "$b" ] || { echo "bench/prom: $b not built" >&2; exit 2; }
done
command -v curl >/dev/null 2>&1 || { echo "bench/prom: curl not installed (make deps)" >&2; exit 2; }
D=$(mktemp -d /tmp/rocetop-bench-prom.XXXXXX)
rp=
cleanup() {
	[ -n "$rp" ] && kill "$rp" 2>/dev/null && wait "$rp" 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
rc=0
printf '%-8s %-22s %10s %12s %10s\n' flows --prometheus-max-flows series bytes scrape
for n in ${BENCH_PROM_FLOWS:-1000 10000 100000}; do
	"$B" mkqps "$D/qps.pcap" "$n" || exit 2
	caps="default 100 0"
	[ "$n" -ne 1000 ] && caps="$caps $n"
	for cap in $caps; do
		opt=
		[ "$cap" != default ] && opt="--prometheus-max-flows $cap"
		port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		"$R" -r "$D/qps.pcap" --json $opt --prometheus 127.0.0.1:$port --linger \
			>"$D/sum.json" 2>"$D/err" &
		rp=$!
		line=$(python3 - "$D/sum.json" "$port" "$n" "$cap" "$D/table" <<'EOF'
import subprocess, sys, time
path, port, n, cap, table = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
deadline = time.time() + 300
while time.time() < deadline and '"type":"summary"' not in open(path).read():
    time.sleep(0.05)
best, body = None, b""
for _ in range(3):
    # curl: the scrape as a scraper sees it (connect, request, the whole page), not python's reading
    out = subprocess.run(["curl", "-s", "-o", path + ".page", "-w", "%{time_total}", "--max-time", "300",
                          "http://127.0.0.1:%s/metrics" % port], capture_output=True, text=True)
    if out.returncode:
        sys.exit("curl: exit %d" % out.returncode)
    best = float(out.stdout) if best is None else min(best, float(out.stdout))
body = open(path + ".page", "rb").read()
lines = body.decode().splitlines()
series = sum(1 for l in lines if l and not l.startswith("#"))
exported = [l for l in lines if l.startswith("rocetop_prometheus_flows_exported ")]
got = int(float(exported[0].split()[1])) if exported else -1
want = min(n, 1000 if cap == "default" else int(cap))
with open(table, "a") as f:
    f.write("%d %s %d %d %.6f\n" % (n, cap, series, len(body), best))
label = "1000 (default)" if cap == "default" else cap
print("%-8d %-22s %10d %12d %9.3fs%s" % (n, label, series, len(body), best,
      "" if got == want else "  MISS: %d flows exported, want %d" % (got, want)))
EOF
		) || { echo "bench/prom: no page for $n flows, cap $cap: $(head -c 300 "$D/err")" >&2; rc=1; }
		echo "$line"
		case $line in *MISS*) rc=1 ;; esac
		kill "$rp" 2>/dev/null
		wait "$rp" 2>/dev/null
		rp=
	done
	rm -f "$D/qps.pcap"
done
# what a flow adds and what 1,000 hosts cost
python3 - "$D/table" <<'EOF'
import sys
rows = {}
for l in open(sys.argv[1]):
    f = l.split()
    rows[(int(f[0]), f[1])] = int(f[2])
if not any(c == "0" for n, c in rows):
    sys.exit(0)
per = set()
for (n, c), v in rows.items():
    if c != "0" and (n, "0") in rows:
        per.add(round((v - rows[(n, "0")]) / min(n, 1000 if c == "default" else int(c)), 1))
print("series a host without flows: %s; a flow without RTT samples adds %s" %
      ("/".join(sorted({str(v) for (n, c), v in rows.items() if c == "0"})), "/".join(map(str, sorted(per)))))
print("1,000 hosts at a 15 s scrape interval (4 KiB a head series):")
for c in ("default", "100", "0"):
    v = max((v for (n, cc), v in rows.items() if cc == c), default=None)
    if v is None:
        continue
    s = v * 1000
    print("  --prometheus-max-flows %-14s %11s series %9s samples/s  ~%.1f GiB" %
          ("1000 (default)" if c == "default" else c, format(s, ","), format(round(s / 15), ","),
           s * 4096 / 2**30))
EOF
exit $rc
