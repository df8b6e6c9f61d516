#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# prom_rules.sh — contrib/'s Prometheus rules and Grafana dashboard, checked for real.
#
# 1. `promtool check rules` accepts contrib/prometheus/rocetop.rules.yml and
#    `promtool test rules` passes its unit tests (every alert fires, misses
#    its near miss, resolves), and every alert has a runbook entry in rocetop(8).
# 2. Three rocetop exporters (two `-r CAPTURE --prometheus 127.0.0.1:P --linger`,
#    one replaying the PFC capture; one `--device-replay` of the device
#    view's recording, for the NIC-counter rules) are scraped by a real Prometheus with the
#    rules loaded; every PromQL expression of the dashboard (template
#    variables substituted: $instance by .+, $__rate_interval by 1m) and of
#    the rules is run through its query API and must evaluate without error;
#    the dashboard's core panels (description "core panel") and every
#    recording rule over series the replays produce must return series.
# Polls, never sleeps a fixed time; everything it started is stopped and its
# directory removed on exit.
#
#   BUILD=build tests/prom_rules.sh
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
R=$BUILD/bin/rocetop
RULES=contrib/prometheus/rocetop.rules.yml
DASH=${DASH:-contrib/grafana/rocetop-dashboard.json}
if [ ! -x "$R" ]; then
	echo "prom_rules: $R not built" >&2
	exit 2
fi
for t in prometheus promtool python3; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "prom_rules: $t not installed (make deps)" >&2
		exit 2
	fi
done
T=$(mktemp -d /tmp/rocetop-prom-rules.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
fails=0
oks=0
ok() { echo "ok    $*"; oks=$((oks + 1)); }
fail() { echo "FAIL  $*"; fails=$((fails + 1)); }

# ---- 1. promtool ---------------------------------------------------------------------------
if out=$(promtool check rules $RULES 2>&1); then ok "promtool check rules: $(echo "$out" | grep -o '[0-9]* rules found')"; else fail "promtool check rules: $out"; fi
if out=$(promtool test rules contrib/prometheus/rocetop.rules.test.yml 2>&1); then
	ok "promtool test rules: SUCCESS"
else
	fail "promtool test rules: $out"
fi
alerts=$(grep -o 'alert: [A-Za-z]*' $RULES | cut -d' ' -f2)
missing=""
for a in $alerts; do
	grep -q "alertname: $a\$" contrib/prometheus/rocetop.rules.test.yml || missing="$missing $a(test)"
	# the runbook annotation of the alert's rule, and that entry in rocetop(8)
	rb=$(sed -n "/alert: $a\$/,/runbook:/s/.*runbook: \"rocetop(8), RUNBOOK, \([A-Za-z]*\)\"/\1/p" $RULES)
	[ -n "$rb" ] && grep -q "^\.B $rb\$" man/rocetop.8 || missing="$missing $a(runbook)"
done
[ -z "$missing" ] && ok "$(echo $alerts | wc -w) alerts, each with a unit test and a runbook entry in rocetop(8)" ||
	fail "alerts without a test or runbook:$missing"

# ---- 2. a real Prometheus, three exporters ---------------------------------------------------
read -r P1 P2 P3 P4 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(4)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
"$R" -r captures/lab/roce_write_bw_rdmacm.pcap --prometheus 127.0.0.1:$P1 --linger >/dev/null 2>"$T/r1.err" &
pids+=($!)
"$R" -r captures/analysis/pfc.pcap --prometheus 127.0.0.1:$P2 --linger >/dev/null 2>"$T/r2.err" &
pids+=($!)
# the device view's series (NIC counters by meaning, PFC by direction) from a recording
"$R" --device-replay tests/fixtures/device/replay --device all -b -d 0.2 --prometheus 127.0.0.1:$P4 >/dev/null 2>"$T/r4.err" &
pids+=($!)
cp $RULES "$T/rules.yml"
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 200ms
  scrape_timeout: 150ms
  evaluation_interval: 200ms
rule_files: ['$T/rules.yml']
scrape_configs:
  - job_name: rocetop
    static_configs:
      - targets: ['127.0.0.1:$P1', '127.0.0.1:$P2', '127.0.0.1:$P4']
EOF
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/data" \
	--web.listen-address=127.0.0.1:$P3 --log.level=warn >"$T/prometheus.log" 2>&1 &
pids+=($!)
python3 - "$P3" "$DASH" "$RULES" <<'EOF' && ok "dashboard and rules: every expression evaluates, core panels and recording rules return series" || fail "dashboard or rules queries (see above)"
import json, re, sys, time, urllib.parse, urllib.request
api = "http://127.0.0.1:%s/api/v1/" % sys.argv[1]
def get(path):
    # None: ask again (not up yet; a starting Prometheus answers 503 in plain text)
    try:
        return json.load(urllib.request.urlopen(api + path, timeout=5))
    except OSError as e:
        if hasattr(e, "read"):
            try:
                return json.load(e)
            except ValueError:
                return None
        return None
def q(expr):
    return get("query?query=" + urllib.parse.quote(expr))
def subst(e):
    return e.replace("$__rate_interval", "1m").replace("$instance", ".+")
dash = json.load(open(sys.argv[2]))
exprs = []     # (where, expr, must return series)
for p in dash["panels"]:
    for t in p.get("targets", []):
        exprs.append(("panel %r %s" % (p["title"], t["refId"]), subst(t["expr"]), False))
    if "core panel" in p.get("description", ""):
        exprs.append(("core panel %r" % p["title"],
                      " or ".join("(%s)" % subst(t["expr"]) for t in p["targets"]), True))
for v in dash["templating"]["list"]:
    if v["type"] == "query":
        m = re.match(r"label_values\((.*), *\w+\)$", v["definition"])
        exprs.append(("variable " + v["name"], m.group(1), True))
rules = open(sys.argv[3]).read()
for m in re.finditer(r"^      - (record|alert): (\S+)\n        expr: (\|\n((?:          .*\n)+)|(.*)\n)", rules, re.M):
    e = m.group(4) or m.group(5)
    exprs.append(("%s %s" % (m.group(1), m.group(2)), e, False))
# recording rules over what two replays serve (no live capture: no drops; pfc.pcap raises pause_from_host)
for rec in ("instance:rocetop_frames:rate1m", "instance:rocetop_packets:rate1m", "instance:rocetop_retransmissions:rate1m",
            "instance:rocetop_naks:rate1m", "instance:rocetop_cnps:rate1m", "instance_priority:rocetop_pfc_paused:ratio_rate1m",
            "job:rocetop_frames:rate1m", "job:rocetop_retransmissions:rate1m", "job:rocetop_naks:rate1m",
            "job_priority:rocetop_pfc_paused:ratio_rate1m", "job:rocetop_diagnosis_active:count",
            # the device recording: mlx5_0's and bnxt_re0's counters by meaning, eth0's PFC received on priority 3
            'instance_meaning:rocetop_rdma_meaning:rate1m{meaning="cqe_error"}',
            'instance_meaning:rocetop_rdma_meaning:rate1m{meaning="duplicate_request"}',
            'job_meaning:rocetop_rdma_meaning:rate1m{meaning="local_ack_timeout"}',
            'instance_priority_direction:rocetop_netdev_pfc_pause_frames:rate1m{priority="3",direction="rx"}',
            'instance_priority_direction:rocetop_netdev_pfc_pause_frames:rate1m{priority="3",direction="tx"}',
            'job_priority_direction:rocetop_netdev_pfc_pause_frames:rate1m{priority="global",direction="rx"}'):
    exprs.append(("recorded " + rec, rec, True))
deadline = time.time() + 60
pending = list(exprs)
errors = []
while pending and time.time() < deadline:
    left = []
    for where, e, need in pending:
        r = q(e)
        if r is None:
            left.append((where, e, need))
        elif r.get("status") != "success":
            errors.append("%s: %s: %s" % (where, r.get("error"), e))
        elif need and not r["data"]["result"]:
            left.append((where, e, need))
    pending = left
    if pending:
        time.sleep(0.2)
for where, e, need in pending:
    errors.append("%s: no series: %s" % (where, e.strip()))
up = q('count(up{job="rocetop"} == 1)')
if not up or not up["data"]["result"] or up["data"]["result"][0]["value"][1] != "3":
    errors.append("not all three exporters up: %s" % up)
rg = get("rules")
health = [(r["name"], r.get("lastError")) for g in (rg or {}).get("data", {}).get("groups", []) for r in g["rules"]
          if r.get("health") not in ("ok", "unknown")]
errors += ["rule %s: %s" % h for h in health]
# what the dashboard shows here: the series of each panel's query (core panels: all targets)
for where, e, need in exprs:
    if where.startswith(("panel", "core panel", "variable")):
        r = q(e)
        n = len(r["data"]["result"]) if r and r.get("status") == "success" else "error"
        print("prom_rules: %-70s %s series" % (where, n))
for x in errors:
    print("prom_rules: " + x)
print("prom_rules: %d expressions run (%d from the dashboard), %d rules loaded" %
      (len(exprs), sum(1 for w, _, _ in exprs if w.startswith("panel")),
       sum(len(g["rules"]) for g in (rg or {}).get("data", {}).get("groups", []))))
sys.exit(1 if errors else 0)
EOF

echo "prom_rules: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
