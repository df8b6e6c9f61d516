#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# prom.sh — rocetop's Prometheus exposition, scraped by a real Prometheus.
#
# 1. `rocetop -r CAPTURE --json --prometheus 127.0.0.1:P --linger` replays,
#    prints its JSON summary, and keeps serving the final values;
#    `promtool check metrics` accepts the exposition (RTT as histograms).
# 2. A Prometheus server of its own (127.0.0.1, its own port, config and
#    data directory in a temporary directory, scrape_interval 200 ms)
#    scrapes it; its HTTP API must return the JSON summary's values:
#    frames, per-flow packets, per-flow RTT count and sum (rtt_us.n / .sum),
#    the capture-wide RTT count.
# 3. --linger ends on SIGTERM with status 0; --linger without --prometheus
#    is refused.
# 4. Live (root: a network namespace of its own): a verdict's
#    rocetop_diagnosis_active goes 1, 0 once past, 1 again, and
#    rocetop_diagnosis_raised_total counts the second raise.
# Polls, never sleeps a fixed time; everything it started is stopped and
# its directory removed on exit.
#
#   BUILD=build tests/prom.sh
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
R=$BUILD/bin/rocetop
CAP=captures/lab/roce_write_bw_rdmacm.pcap
if [ ! -x "$R" ]; then
	echo "prom: $R not built" >&2
	exit 2
fi
for t in prometheus promtool python3; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "prom: $t not installed (make deps)" >&2
		exit 2
	fi
done
T=$(mktemp -d /tmp/rocetop-prom.XXXXXX)
rpid=
ppid_=
cleanup() {
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null
	[ -n "$ppid_" ] && kill "$ppid_" 2>/dev/null && wait "$ppid_" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fails=0
oks=0
ok() { echo "ok    $*"; oks=$((oks + 1)); }
fail() { echo "FAIL  $*"; fails=$((fails + 1)); }

# free ports on 127.0.0.1 (the kernel picks them)
read -r P1 P2 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

# ---- 1. rocetop lingers; promtool ---------------------------------------------------------
"$R" -r $CAP --json --prometheus 127.0.0.1:$P1 --linger >"$T/sum.json" 2>"$T/rocetop.err" &
rpid=$!
python3 - "$T/sum.json" "$P1" "$T/metrics" <<'EOF' || fail "rocetop printed no summary or served no /metrics"
import sys, time, urllib.request
deadline = time.time() + 60
while time.time() < deadline:
    if '"type":"summary"' in open(sys.argv[1]).read():
        break
    time.sleep(0.05)
else:
    sys.exit(1)
while time.time() < deadline:
    try:
        body = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[2], timeout=5).read()
        open(sys.argv[3], "wb").write(body)
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit(1)
EOF
if kill -0 "$rpid" 2>/dev/null; then ok "--linger: still serving after the replay's summary"; else fail "--linger: rocetop exited"; fi
if out=$(promtool check metrics <"$T/metrics" 2>&1); then
	ok "promtool check metrics: clean ($(grep -c . "$T/metrics") lines)"
else
	fail "promtool check metrics: $out"
fi
grep -q '^# TYPE rocetop_flow_rtt_seconds histogram' "$T/metrics" &&
	grep -q '^rocetop_flow_rtt_seconds_bucket{.*le="+Inf"}' "$T/metrics" &&
	! grep -q 'quantile=' "$T/metrics" &&
	ok "RTT is a histogram with _bucket series, no quantile label" ||
	fail "RTT exposition is not a histogram"

# ---- 2. a real Prometheus ---------------------------------------------------------------
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 200ms
  scrape_timeout: 150ms
scrape_configs:
  - job_name: rocetop
    static_configs:
      - targets: ['127.0.0.1:$P1']
EOF
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/data" \
	--web.listen-address=127.0.0.1:$P2 --log.level=warn >"$T/prometheus.log" 2>&1 &
ppid_=$!
if python3 - "$T/sum.json" "$P2" <<'EOF'; then ok "Prometheus's API returns the JSON summary's values"; else fail "Prometheus's API disagrees with the JSON summary (see above)"; fi
import json, sys, time, urllib.parse, urllib.request
summ = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
api = "http://127.0.0.1:%s/api/v1/query?query=" % sys.argv[2]

def q(expr):
    try:
        r = json.load(urllib.request.urlopen(api + urllib.parse.quote(expr), timeout=5))
    except OSError:
        return None
    return r["data"]["result"] if r.get("status") == "success" else None

def lab(fl):
    return 'src="%s",dst="%s",destqp="%s"' % (fl["src"], fl["dst"], fl["destqp"])

want = {"rocetop_frames_total": summ["frames"],
        "sum(rocetop_rtt_seconds_count)": sum(f["rtt_us"]["n"] for f in summ["flows"] if "rtt_us" in f)}
for fl in summ["flows"]:
    want["rocetop_flow_packets_total{%s}" % lab(fl)] = fl["packets"]
    if fl.get("rtt_us", {}).get("n"):
        want["rocetop_flow_rtt_seconds_count{%s}" % lab(fl)] = fl["rtt_us"]["n"]
        want["rocetop_flow_rtt_seconds_sum{%s}" % lab(fl)] = float(fl["rtt_us"]["sum"]) / 1e6
        want['rocetop_flow_rtt_seconds_bucket{%s,le="+Inf"}' % lab(fl)] = fl["rtt_us"]["n"]
got = {}
deadline = time.time() + 90
while time.time() < deadline:
    for k in want:
        r = q(k)
        if r:
            got[k] = float(r[0]["value"][1])
    if len(got) == len(want):
        break
    time.sleep(0.2)
bad = 0
for k, v in want.items():
    g = got.get(k)
    if g is None or abs(g - v) > 1e-9 * max(1, abs(v)):
        print("prom: %s = %s, JSON summary %s" % (k, g, v))
        bad += 1
print("prom: %d values compared through Prometheus's API" % len(want))
sys.exit(1 if bad or len(want) < 6 else 0)
EOF

# ---- 3. stopping ---------------------------------------------------------------------------
kill -TERM "$rpid"
wait "$rpid"
rc=$?
rpid=
[ $rc -eq 0 ] && ok "--linger: SIGTERM ends it with status 0" || fail "--linger: status $rc after SIGTERM"
if "$R" -r $CAP --linger >/dev/null 2>"$T/err"; then
	fail "--linger without --prometheus accepted"
else
	grep -q -- "--linger needs --prometheus" "$T/err" && ok "--linger without --prometheus refused" ||
		fail "--linger without --prometheus: $(cat "$T/err")"
fi

# ---- 4. live: a verdict raised, past, raised again -------------------------------------------
# In a network namespace of the test's own (a veth pair, rocetop capturing on
# one end): a MAC that sends RoCE and a PFC pause raises pause_from_host;
# 10 s without new evidence it is past (active 0, still counted once); the
# same again makes it active and rocetop_diagnosis_raised_total 2.
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null 2>&1; then
	echo "skip  live diagnosis: needs root and ip (a network namespace)"
else
	NS=rtprom$$
	ip netns add $NS && ip -n $NS link add vx0 type veth peer name vx1 &&
		ip -n $NS link set vx0 up && ip -n $NS link set vx1 up && ip -n $NS link set lo up || fail "netns setup"
	ip netns exec $NS "$R" -i vx1 -b -d 1 --prometheus 127.0.0.1:9464 >/dev/null 2>"$T/live.err" &
	lpid=$!
	if ip netns exec $NS python3 - "$T/live.err" <<'EOF'; then ok "live: pause_from_host active 1, past 0 after 10 s quiet, active again: raised_total 1, 1, 2"; else fail "live diagnosis (see above)"; fi
import re, socket, struct, sys, time, urllib.request
mac = bytes.fromhex("020000000abc")
def roce():
    body = struct.pack(">BBHII", 0x04, 0x40, 0xffff, 17, 0) + b"\0" * 20
    udp = struct.pack(">HHHH", 0xc000, 4791, 8 + len(body), 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 28 + len(body), 0, 0x4000, 64, 17, 0,
                     bytes([10, 9, 0, 1]), bytes([10, 9, 0, 2]))
    return bytes.fromhex("020000000def") + mac + b"\x08\x00" + ip + udp + body
def pfc():
    body = struct.pack(">HH8H", 0x0101, 0x08, 0, 0, 0, 0xffff, 0, 0, 0, 0)
    return bytes.fromhex("0180c2000001") + mac + b"\x88\x08" + body + b"\0" * (46 - len(body))
url = "http://127.0.0.1:9464/metrics"   # the namespace's own loopback
def state():
    try:
        b = urllib.request.urlopen(url, timeout=5).read().decode()
    except OSError:
        return None
    a = [l.split()[-1] for l in b.splitlines() if l.startswith('rocetop_diagnosis_active{verdict="pause_from_host"')]
    r = [l.split()[-1] for l in b.splitlines() if l.startswith('rocetop_diagnosis_raised_total{verdict="pause_from_host",severity="warning"}')]
    return (a[0] if len(a) == 1 else a, r[0] if r else None)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("vx0", 0))
def wait_for(want, secs):
    end = time.time() + secs
    st = None
    while time.time() < end:
        st = state()
        if st == want:
            return True
        time.sleep(0.2)
    print("prom: live: want (active, raised) %s, last %s; rocetop: %s" % (want, st, open(sys.argv[1]).read().strip()))
    return False
# the analysis sees the interface once rocetop has it open: send until it is raised
ok = False
end = time.time() + 15
while time.time() < end and not ok:
    s.send(roce()); s.send(pfc())
    ok = wait_for(("1", "1"), 1)
t0 = time.time()
ok = ok and wait_for(("0", "1"), 25)
print("prom: live: past after %.1f s" % (time.time() - t0))
if ok:
    s.send(roce()); s.send(pfc())
    ok = wait_for(("1", "2"), 10)
sys.exit(0 if ok else 1)
EOF
	kill "$lpid" 2>/dev/null
	wait "$lpid" 2>/dev/null
	ip netns del $NS
fi

echo "prom: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
