#!/bin/bash
# tests/device_replay.sh — rocetop --device-replay DIR on a recording of
# three devices (tests/fixtures/device/replay/): a quiet mlx5_0 whose only
# non-zero counters are static error totals (values from procfs's
# sysfs fixture, Apache-2.0), a bnxt_re0 with no counters/ directory and
# gauges, an mlx5_9 with ports 1, 2, 3 and 300 (switchdev), and ethtool -S
# text of eth0 in two snapshots.  Checks: the first -b snapshot lists the
# totals, each with its meaning; JSON meanings, kinds and widths; the
# recorded eth0 statistics (never this host's eth0); port 300 selectable;
# gauges typed gauge on /metrics and the by-meaning series; a missing
# recording is one line and exit 2.  Then tools/mkdevrec's recording (the
# --device-record layout, netlink answers built with libmnl): mlx4's
# device-level hw_counters/ and mlx5's optional counters that only the
# per-port RDMA netlink STAT_GET has, with meanings and the recorded rates;
# NIC vs wire on its capture, the pause frames of enp1s0f0np0 too (a capture
# that agrees, one that missed a frame), in -b, JSON and the terminal view; the
# terminal view's device screen on a quiet NIC (the non-zero totals, each redraw).
# Run as  BUILD=<build dir> tests/device_replay.sh ; prints ok/FAIL lines.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
BUILD=${BUILD:-$repo/build}
R=$BUILD/bin/rocetop
FX=$here/fixtures/device/replay
T=$(mktemp -d /tmp/device-replay.XXXXXX)
fails=0; oks=0
ok() { echo "ok   $*"; oks=$((oks + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }
TS=device-replay-tui-$$
cleanup() { [ -n "${PROM_PID:-}" ] && kill "$PROM_PID" 2>/dev/null; tmux kill-session -t "$TS" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

"$R" --device-replay "$FX" --device all -b -n 1 -d 0.05 > "$T/b.txt" 2>&1
check "-b: exit 0" test $? = 0
sed 's/^/     /' "$T/b.txt" | head -30
check "first -b snapshot: mlx5_0's static totals, each with its meaning" sh -c "
	grep -qE '^  req_cqe_error +3481 +(0.0/s)? +cqe_error\$' '$T/b.txt' &&
	grep -qE '^  resp_cqe_error +8109 +(0.0/s)? +cqe_error\$' '$T/b.txt' &&
	grep -qE '^  local_ack_timeout_err +131 +(0.0/s)? +local_ack_timeout\$' '$T/b.txt' && ! grep -q 'no counter moved' '$T/b.txt'"
check "bnxt_re0 without counters/: its gauges marked gauge, dup_req a duplicate_request" sh -c "
	grep -qE '^  active_qps +7 +(0.0/s)? +gauge resources_active\$' '$T/b.txt' && grep -qE '^  dup_req +4 +(0.0/s)? +duplicate_request\$' '$T/b.txt'"
check "text: one PFC line per priority, the same words for mlx5 and bnxt_en names" sh -c "
	grep -qE '^  pfc eth0 prio 3: rx_pause 52 \\([0-9.]+/s\\) tx_pause 7 \\(0.0/s\\)\$' '$T/b.txt' &&
	grep -qE '^  pfc ens1f0np0 prio 3: rx_pause 950 \\([0-9.]+/s\\) rx_pause_us 4700 \\([0-9.]+/s\\) tx_pause 11 \\(0.0/s\\)\$' '$T/b.txt'"
check "mlx5_9: ports 1, 2, 3 and 300, in order" test "$(grep -oE '^device mlx5_9 port [0-9]+' "$T/b.txt" | awk '{print $4}' | tr '\n' ' ')" = "1 2 3 300 "
check "unknown names still shown raw (rx_dct_connect has no meaning, not listed when 0)" sh -c "! grep -q 'rx_dct_connect' '$T/b.txt'"

"$R" --device-replay "$FX" --device mlx5_9:300 -b -n 1 -d 0.05 > "$T/p300.txt" 2>&1
check "--device mlx5_9:300 selects port 300 (exit $?)" sh -c "grep -q '^device mlx5_9 port 300' '$T/p300.txt' && grep -qE '^  out_of_sequence +300 ' '$T/p300.txt'"

"$R" --device-replay "$FX" --device all --json -n 1 -d 0.05 > "$T/j.json" 2>&1
python3 - "$T/j.json" > "$T/j.out" <<'PY'
import json, sys
line = [l for l in open(sys.argv[1]) if '"devices"' in l][-1]
devs = {d["name"]: d for d in json.loads(line)["devices"]}
def chk(what, cond):
    print(("ok   " if cond else "FAIL ") + what)
m = devs["mlx5_0"]["ports"][0]
chk("JSON: mlx5_0 req_cqe_error 3481, meaning cqe_error, requester, 32-bit",
    m["counters"]["req_cqe_error"] == 3481 and m["meanings"]["req_cqe_error"] ==
    {"meaning": "cqe_error", "kind": "counter", "width": "32", "side": "requester"})
chk("JSON: PMA port_rcv_data saturating, rx_bytes", m["meanings"]["port_rcv_data"]["width"] == "pma"
    and m["meanings"]["port_rcv_data"]["meaning"] == "rx_bytes")
chk("JSON: lifespan is no counter", "lifespan" not in m["counters"])
chk("JSON: eth0's statistics are the recording's (rx_packets 100 then 160), not this host's",
    m["ethtool"] == {"rx_packets": 160, "rx_prio3_pause": 52, "tx_prio3_pause": 7})
import os
chk("JSON: eth0's MAC is the recording's: none recorded, so null (this host %s an eth0)" % ("has" if os.path.exists("/sys/class/net/eth0/address") else "has no"),
    m["netdev"] == "eth0" and m["mac"] is None)
chk("JSON: eth0's rates from the two recorded snapshots (rx_packets moved, tx_prio3_pause not)",
    m["ethtool_rates"].get("rx_packets", 0) > 0 and "tx_prio3_pause" not in m["ethtool_rates"])
pf = {e["priority"]: e for e in m["pfc"]}
chk("JSON pfc, mlx5 names: eth0 priority 3 rx_pause 52, tx_pause 7, no duration counted",
    pf[3]["rx_pause"] == 52 and pf[3]["tx_pause"] == 7 and pf[3]["rx_pause_us"] is None
    and pf[3]["rx_pause_per_s"] > 0 and pf[3]["tx_pause_per_s"] == 0)
b = devs["bnxt_re0"]["ports"][0]
pf = {e["priority"]: e for e in b["pfc"]}
chk("JSON pfc, bnxt_en names: priority 3 rx_pause 950, tx_pause 11, rx_pause_us 4700; 802.3x rx 2",
    pf[3]["rx_pause"] == 950 and pf[3]["tx_pause"] == 11 and pf[3]["rx_pause_us"] == 4700
    and pf[None]["rx_pause"] == 2 and pf[3]["tx_pause_per_s"] == 0)
chk("JSON: bnxt_re0 active_qps a gauge", b["meanings"]["active_qps"]["kind"] == "gauge")
PY
cat "$T/j.out"
oks=$((oks + $(grep -c '^ok ' "$T/j.out"))); fails=$((fails + $(grep -c '^FAIL ' "$T/j.out")))

# scrape PORT TEXT: the /metrics page once it holds TEXT (the recording's
# snapshot that has it is being served), or the last page seen within 15 s
scrape() {
	python3 -c '
import sys, time, urllib.request
page = ""
for i in range(150):
    try:
        page = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
        if sys.argv[2] in page:
            break
    except OSError:
        pass
    time.sleep(0.1)
sys.stdout.write(page)
' "$1" "$2" 2>/dev/null
}

port=$((20000 + ($$ + 7) % 20000))
"$R" --device-replay "$FX" --device all -b -d 0.2 --prometheus 127.0.0.1:$port > /dev/null 2> "$T/prom.err" &
PROM_PID=$!
# The page is taken once rocetop has read the recording's second snapshot
# (eth0's rx_packets 160; a loaded machine may serve the first one first),
# or, failing that, the last page seen within 15 s.
scrape "$port" 'netdev="eth0",stat="rx_packets"} 160' > "$T/metrics"
kill -TERM "$PROM_PID" 2>/dev/null; wait "$PROM_PID"; PROM_PID=
check "/metrics: bnxt_re0 active_qps a gauge series (TYPE gauge), not a counter" sh -c "
	grep -q '^# TYPE rocetop_rdma_port_stat gauge' '$T/metrics' &&
	grep -q '^rocetop_rdma_port_stat{device=\"bnxt_re0\",port=\"1\",group=\"hw_counters\",counter=\"active_qps\"} 7\$' '$T/metrics' &&
	! grep '^rocetop_rdma_port_stat_total' '$T/metrics' | grep -q 'counter=\"active_qps\"'"
check "/metrics: by meaning, with device, port and driver labels (mlx5_0 cqe_error 3481+8109)" \
	grep -q '^rocetop_rdma_meaning_total{device="mlx5_0",port="1",driver="mlx5",meaning="cqe_error"} 11590$' "$T/metrics"
check "/metrics: bnxt_re0 duplicate_request 4" \
	grep -q '^rocetop_rdma_meaning_total{device="bnxt_re0",port="1",driver="bnxt_re",meaning="duplicate_request"} 4$' "$T/metrics"
check "/metrics: PFC by priority and direction, mlx5 and bnxt_en names alike" sh -c "
	grep -q '^rocetop_netdev_pfc_pause_frames_total{netdev=\"eth0\",priority=\"3\",direction=\"rx\"} 52\$' '$T/metrics' &&
	grep -q '^rocetop_netdev_pfc_pause_frames_total{netdev=\"ens1f0np0\",priority=\"3\",direction=\"tx\"} 11\$' '$T/metrics' &&
	grep -q '^rocetop_netdev_pfc_pause_seconds_total{netdev=\"ens1f0np0\",priority=\"3\",direction=\"rx\"} 0.004700\$' '$T/metrics' &&
	grep -q '^rocetop_netdev_pfc_pause_frames_total{netdev=\"ens1f0np0\",priority=\"global\",direction=\"rx\"} 2\$' '$T/metrics'"
if command -v promtool >/dev/null; then
	check "promtool check metrics: no complaint" sh -c "promtool check metrics < '$T/metrics' > '$T/pt.out' 2>&1 && ! grep -q . '$T/pt.out' || { cat '$T/pt.out'; false; }"
fi

# --prometheus-node-names: node_exporter (>= 1.11.0) names of hw_counters/
# files too, by file name, and lifespan_seconds (ms / 1000, whole)
port=$((20000 + ($$ + 11) % 20000))
cp -r "$FX" "$T/nfx"
echo 2500 > "$T/nfx/sys/class/infiniband/mlx5_9/ports/300/hw_counters/lifespan"
"$R" --device-replay "$T/nfx" --device all -b -d 0.2 --prometheus 127.0.0.1:$port --prometheus-node-names \
	> /dev/null 2> "$T/nprom.err" &
PROM_PID=$!
python3 -c '
import sys, time, urllib.request
page = ""
for i in range(150):
    try:
        page = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
        if "node_infiniband_" in page:
            break
    except OSError:
        pass
    time.sleep(0.1)
sys.stdout.write(page)
' "$port" > "$T/nmetrics" 2>/dev/null
kill -TERM "$PROM_PID" 2>/dev/null; wait "$PROM_PID"; PROM_PID=
check "node names: mlx5_0's hw_counters as node_exporter 1.11 names them (req/resp CQE errors, local ACK timeouts)" sh -c "
	grep -q '^node_infiniband_req_cqes_errors_total{device=\"mlx5_0\",port=\"1\"} 3481\$' '$T/nmetrics' &&
	grep -q '^node_infiniband_resp_cqes_errors_total{device=\"mlx5_0\",port=\"1\"} 8109\$' '$T/nmetrics' &&
	grep -q '^node_infiniband_local_ack_timeout_errors_total{device=\"mlx5_0\",port=\"1\"} 131\$' '$T/nmetrics' &&
	grep -q '^# TYPE node_infiniband_req_cqes_errors_total counter\$' '$T/nmetrics'"
check "node names: mlx5_9 port 300 out_of_sequence 300; lifespan_seconds 12 ms -> 0, 2500 ms -> 2 (a gauge)" sh -c "
	grep -q '^node_infiniband_out_of_sequence_packets_received_total{device=\"mlx5_9\",port=\"300\"} 300\$' '$T/nmetrics' &&
	grep -q '^node_infiniband_lifespan_seconds{device=\"mlx5_0\",port=\"1\"} 0\$' '$T/nmetrics' &&
	grep -q '^node_infiniband_lifespan_seconds{device=\"mlx5_9\",port=\"300\"} 2\$' '$T/nmetrics' &&
	grep -q '^# TYPE node_infiniband_lifespan_seconds gauge\$' '$T/nmetrics'"
check "node names: names node_exporter does not know stay rocetop's only (bnxt_re's dup_req, mlx5's rx_dct_connect is known)" sh -c "
	! grep -q 'node_infiniband_dup_req' '$T/nmetrics' && ! grep '^node_infiniband' '$T/nmetrics' | grep -q bnxt_re0.*_total &&
	grep -q '^node_infiniband_rx_dct_connect_requests_total{device=\"mlx5_0\",port=\"1\"} 0\$' '$T/nmetrics'"
# node_exporter's legacy_* series from counters_ext/, on its own fixture's mlx4_0 (port 2 has
# values there only); the values read from the recording's files
NE=$repo/captures/public/devices/node_exporter/sys/class/infiniband/mlx4_0/ports
port=$((20000 + ($$ + 17) % 20000))
"$R" --device-replay "$repo/captures/public/devices/node_exporter" --device all -b -d 0.2 \
	--prometheus 127.0.0.1:$port --prometheus-node-names > /dev/null 2> "$T/lprom.err" &
PROM_PID=$!
scrape "$port" 'legacy_packets_transmitted_total' > "$T/lmetrics"
kill -TERM "$PROM_PID" 2>/dev/null; wait "$PROM_PID"; PROM_PID=
check "node names: node_exporter's mlx4_0 counters_ext as legacy_* (port 2 data x4 = $(( $(cat "$NE/2/counters_ext/port_xmit_data_64") * 4 )), unicast $(cat "$NE/2/counters_ext/port_unicast_rcv_packets"))" sh -c "
	grep -q '^node_infiniband_legacy_data_transmitted_bytes_total{device=\"mlx4_0\",port=\"2\"} $(( $(cat "$NE/2/counters_ext/port_xmit_data_64") * 4 ))\$' '$T/lmetrics' &&
	grep -q '^node_infiniband_legacy_data_received_bytes_total{device=\"mlx4_0\",port=\"1\"} $(( $(cat "$NE/1/counters_ext/port_rcv_data_64") * 4 ))\$' '$T/lmetrics' &&
	grep -q '^node_infiniband_legacy_unicast_packets_received_total{device=\"mlx4_0\",port=\"2\"} $(cat "$NE/2/counters_ext/port_unicast_rcv_packets")\$' '$T/lmetrics' &&
	test \$(grep -c '^node_infiniband_legacy_' '$T/lmetrics') = 16 &&
	grep -q '^# TYPE node_infiniband_legacy_packets_transmitted_total counter\$' '$T/lmetrics'"
if command -v promtool >/dev/null; then
	check "node names: promtool check metrics on the legacy series: no complaint" sh -c "promtool check metrics < '$T/lmetrics' > '$T/lpt.out' 2>&1 && ! grep -q . '$T/lpt.out' || { cat '$T/lpt.out'; false; }"
fi
if command -v promtool >/dev/null; then
	check "node names: promtool check metrics: no complaint" sh -c "promtool check metrics < '$T/nmetrics' > '$T/npt.out' 2>&1 && ! grep -q . '$T/npt.out' || { cat '$T/npt.out'; false; }"
fi

# A recording in --device-record's layout (sys/1, sys/2, netlink/1, netlink/2,
# times), written by tools/mkdevrec: mlx4_0 with device-level hw_counters,
# mlx5_2 whose optional counters exist only in the netlink STAT_GET answer.
G=$T/gen
"$BUILD/tools/mkdevrec" "$G" "$T/wire.pcap"
check "tools/mkdevrec wrote the recording and its wire (exit $?)" sh -c "test -s '$G/netlink/2/stat-1-1.bin' && test -s '$T/wire.pcap'"
"$R" --device-replay "$G" --device all -b -n 1 -d 0.05 > "$T/g.txt" 2>&1
check "mkdevrec replay -b: exit 0" test $? = 0
sed 's/^/     /' "$T/g.txt"
check "mlx4_0: device-level num_cqovf 12 (+3 in the recorded 1 s), rq_num_udsdprd 17, with meanings, marked device-wide, on port 1 only" sh -c "
	grep -qE '^  num_cqovf +12 +3.0/s +discard  \(device-wide\)\$' '$T/g.txt' &&
	grep -qE '^  rq_num_udsdprd +17 +0.0/s +discard  \(device-wide\)\$' '$T/g.txt' &&
	test \$(grep -c 'num_cqovf' '$T/g.txt') = 1"
check "mlx4_0 port 1: rq_num_oos 4 (2.0/s) out_of_sequence_received, rq_num_dup duplicate_request" sh -c "
	grep -qE '^  rq_num_oos +4 +2.0/s +out_of_sequence_received\$' '$T/g.txt' && grep -qE '^  rq_num_dup +5 +0.0/s +duplicate_request\$' '$T/g.txt'"
check "mlx5_2: optional counters from netlink STAT_GET, rates over the recorded 1 s" sh -c "
	grep -qE '^  cc_rx_ce_pkts +160 +60.0/s +ecn_marked_received  \(netlink\)\$' '$T/g.txt' &&
	grep -qE '^  cc_rx_cnp_pkts +9 +2.0/s +cnp_received  \(netlink\)\$' '$T/g.txt' &&
	grep -qE '^  cc_tx_cnp_pkts +45 +15.0/s +cnp_sent  \(netlink\)\$' '$T/g.txt' &&
	grep -qE '^  rdma_rx_bytes +11878400 +8192000.0/s +rx_bytes  \(netlink\)\$' '$T/g.txt' &&
	grep -qE '^  rdma_tx_packets +3000 +2000.0/s +tx_packets  \(netlink\)\$' '$T/g.txt'"
check "mlx5_2: a counter both sysfs and netlink have is shown once (sysfs's); mlx4's EOPNOTSUPP is silent" sh -c "
	test \$(grep -c 'out_of_sequence ' '$T/g.txt') = 1 && grep -qE '^  out_of_sequence +10 +0.0/s +out_of_sequence_received\$' '$T/g.txt' &&
	! grep -qi 'not supported' '$T/g.txt'"
"$R" --device-replay "$G" --device mlx4_0:2 -b -n 1 -d 0.05 > "$T/g2.txt" 2>&1
check "mlx5_2: its optional counters and whether each is enabled (netlink STAT_GET_STATUS); rdma_tx_bytes off, so not read" sh -c "
	grep -qx '  optional counters: cc_rx_ce_pkts on cc_rx_cnp_pkts on cc_tx_cnp_pkts on rdma_tx_packets on rdma_tx_bytes off rdma_rx_packets on rdma_rx_bytes on' '$T/g.txt' &&
	! grep -q '^  rdma_tx_bytes ' '$T/g.txt'"
check "--device mlx4_0:2 alone: the device-level counters go with port 2" grep -qE '^  num_cqovf +12 ' "$T/g2.txt"
"$R" --device-replay "$G" --device all --json -n 1 -d 0.05 > "$T/g.json" 2>&1
python3 - "$T/g.json" > "$T/g.out" <<'PY'
import json, sys
line = [l for l in open(sys.argv[1]) if '"devices"' in l][-1]
devs = {d["name"]: d for d in json.loads(line)["devices"]}
def chk(what, cond):
    print(("ok   " if cond else "FAIL ") + what)
p = devs["mlx4_0"]["ports"][0]
chk("JSON: mlx4_0 num_cqovf 12 in counters, group device_hw_counters, meaning discard, rate 3.0",
    p["counters"]["num_cqovf"] == 12 and p["groups"]["num_cqovf"] == "device_hw_counters"
    and p["meanings"]["num_cqovf"]["meaning"] == "discard" and abs(p["rates"]["num_cqovf"] - 3.0) < 1e-9)
chk("JSON: mlx4_0 port 2 has no device-level counter", "num_cqovf" not in devs["mlx4_0"]["ports"][1]["counters"])
q = devs["mlx5_2"]["ports"][0]
chk("JSON: mlx5_2 rdma_rx_bytes 11878400, group netlink, rx_bytes, 64-bit; out_of_sequence not from netlink",
    q["counters"]["rdma_rx_bytes"] == 11878400 and q["groups"]["rdma_rx_bytes"] == "netlink"
    and q["meanings"]["rdma_rx_bytes"] == {"meaning": "rx_bytes", "kind": "counter", "width": "64", "side": "port"}
    and "out_of_sequence" not in q["groups"])
chk("JSON: mlx5_2 optional_counters, rdma_tx_bytes false, cc_rx_ce_pkts true; mlx4_0 none",
    q["optional_counters"]["rdma_tx_bytes"] is False and q["optional_counters"]["cc_rx_ce_pkts"] is True
    and len(q["optional_counters"]) == 7 and p["optional_counters"] == {})
PY
cat "$T/g.out"
oks=$((oks + $(grep -c '^ok ' "$T/g.out"))); fails=$((fails + $(grep -c '^FAIL ' "$T/g.out")))

port=$((20000 + ($$ + 13) % 20000))
"$R" --device-replay "$G" --device all -b -d 0.2 --prometheus 127.0.0.1:$port > /dev/null 2> "$T/gprom.err" &
PROM_PID=$!
scrape "$port" 'rdma_rx_bytes"} 11878400' > "$T/gmetrics"
kill -TERM "$PROM_PID" 2>/dev/null; wait "$PROM_PID"; PROM_PID=
check "/metrics: group labels device_hw_counters and netlink; by meaning, netlink's counters count (mlx5_2 rx_bytes)" sh -c "
	grep -q '^rocetop_rdma_port_stat_total{device=\"mlx4_0\",port=\"1\",group=\"device_hw_counters\",counter=\"num_cqovf\"} 12\$' '$T/gmetrics' &&
	grep -q '^rocetop_rdma_port_stat_total{device=\"mlx5_2\",port=\"1\",group=\"netlink\",counter=\"rdma_rx_bytes\"} 11878400\$' '$T/gmetrics' &&
	grep -q '^rocetop_rdma_meaning_total{device=\"mlx5_2\",port=\"1\",driver=\"mlx5\",meaning=\"rx_bytes\"} 11878400\$' '$T/gmetrics'"
# np_cnp_sent (sysfs, 55) and the optional cc_tx_cnp_pkts (netlink, 45) count the same CNPs: once
check "/metrics: by meaning, mlx5_2's cnp_sent is np_cnp_sent alone (cc_tx_cnp_pkts counts the same CNPs)" \
	grep -q '^rocetop_rdma_meaning_total{device="mlx5_2",port="1",driver="mlx5",meaning="cnp_sent"} 55$' "$T/gmetrics"

# NIC vs wire by meaning: mlx5_2's counters (whatever their names) against what
# the recorded port's wire carried (mkdevrec's capture: the CNPs mlx5_2 sent
# and got, the CE marks on what came in), replayed paced so that snapshots
# see both recorded reads
"$R" -r "$T/wire.pcap" --device-replay "$G" --device mlx5_2 -b -d 0.1 --speed 2 > "$T/nw.txt" 2>&1
check "NIC vs wire (text, exit $?): np_cnp_sent +15 = 15 CNPs sent, cc_rx_cnp_pkts +2 = 2 received, cc_rx_ce_pkts +60 = 60 CE-marked in, out_of_sequence 0 = 0" sh -c "
	tail -n 80 '$T/nw.txt' | grep -qE '^  NIC vs wire np_cnp_sent +nic \+15 wire 15 agree \(CNPs sent; per device\)\$' &&
	tail -n 80 '$T/nw.txt' | grep -qE '^  NIC vs wire cc_rx_cnp_pkts +nic \+2 wire 2 agree \(CNPs received; per device\)\$' &&
	tail -n 80 '$T/nw.txt' | grep -qE '^  NIC vs wire cc_rx_ce_pkts +nic \+60 wire 60 agree ' &&
	tail -n 80 '$T/nw.txt' | grep -qE '^  NIC vs wire out_of_sequence +nic \+0 wire 0 agree '"
check "NIC vs wire: cc_tx_cnp_pkts (the same CNPs as np_cnp_sent) is not compared a second time" sh -c "! grep -q 'NIC vs wire cc_tx_cnp_pkts' '$T/nw.txt'"
"$R" -r "$T/wire.pcap" --device-replay "$G" --device mlx5_2 --json -d 0.1 --speed 2 2>/dev/null | grep '"devices"' | tail -1 > "$T/nw.json"
python3 - "$T/nw.json" "$T/wire.pcap" > "$T/nw.out" <<'PY'
import json, struct, sys
d = json.load(open(sys.argv[1]))["devices"][0]
c = {x["meaning_name"]: x for x in d["nic_vs_wire"]}
def chk(what, cond):
    print(("ok   " if cond else "FAIL ") + what)
# the capture itself, read here: CNPs (BTH opcode 0x81) from and to 10.99.0.1, CE (ECN 3) to it
raw = open(sys.argv[2], "rb").read()
off, cnp_out, cnp_in, ce_in = 24, 0, 0, 0
while off < len(raw):
    incl = struct.unpack_from("<I", raw, off + 8)[0]
    f = raw[off + 16:off + 16 + incl]
    off += 16 + incl
    if f[12:14] != b"\x08\x00" or f[23] != 17 or f[36:38] != b"\x12\xb7":
        continue
    src, dst, ecn, op = f[26:30], f[30:34], f[15] & 3, f[42]
    me = bytes([10, 99, 0, 1])
    cnp_out += op == 0x81 and src == me
    cnp_in += op == 0x81 and dst == me
    ce_in += op != 0x81 and dst == me and ecn == 3
chk("JSON nic_vs_wire by meaning (nic, wire): %s; the capture holds %d CNPs sent, %d received, %d CE-marked in"
    % ({k: (v["nic"], v["wire"]) for k, v in c.items()}, cnp_out, cnp_in, ce_in),
    c["cnp_sent"]["wire"] == cnp_out > 0 and c["cnp_received"]["wire"] == cnp_in > 0
    and c["ecn_marked_received"]["wire"] == ce_in > 0 and all(x["agree"] for x in c.values()))
chk("JSON nic_vs_wire: the device's counters named (np_cnp_sent, cc_rx_cnp_pkts, cc_rx_ce_pkts)",
    c["cnp_sent"]["counter"] == "np_cnp_sent" and c["cnp_received"]["counter"] == "cc_rx_cnp_pkts"
    and c["ecn_marked_received"]["counter"] == "cc_rx_ce_pkts")
PY
cat "$T/nw.out"
oks=$((oks + $(grep -c '^ok ' "$T/nw.out"))); fails=$((fails + $(grep -c '^FAIL ' "$T/nw.out")))
grep -q '^ok \|^FAIL ' "$T/nw.out" || fail "NIC vs wire JSON checks did not run"

# NIC vs wire for pause frames: enp1s0f0np0's PFC and 802.3x counters (how far
# they moved between the recording's two ethtool -S snapshots) against the
# pause frames of the capture from its MAC (sent) and from the others
# (received): both read from the files here, not from rocetop.
check "NIC vs wire (text): rx_prio3_pause, tx_prio3_pause and rx_pause_ctrl_phy against the captured pauses, agree" sh -c "
	tail -n 80 '$T/nw.txt' | grep -qE '^  NIC vs wire enp1s0f0np0:rx_prio3_pause +nic \+8 wire 8 agree \(PFC priority 3 pause frames received; per port\)\$' &&
	tail -n 80 '$T/nw.txt' | grep -qE '^  NIC vs wire enp1s0f0np0:tx_prio3_pause +nic \+5 wire 5 agree \(PFC priority 3 pause frames sent; per port\)\$' &&
	tail -n 80 '$T/nw.txt' | grep -qE '^  NIC vs wire enp1s0f0np0:rx_pause_ctrl_phy +nic \+2 wire 2 agree \(802.3x pause frames received; per port\)\$' &&
	! grep -q 'NIC vs wire enp1s0f0np0:tx_pause_ctrl_phy' '$T/nw.txt'"
# the same capture less one of the switch's PFC frames (a capture that missed one)
python3 - "$T/wire.pcap" "$T/wire-lost.pcap" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
out, off, dropped = [b[:24]], 24, 0
while off + 16 <= len(b):
    n = struct.unpack_from("<I", b, off + 8)[0]
    rec = b[off:off + 16 + n]
    f = rec[16:]
    if not dropped and f[12:14] == b"\x88\x08" and f[14:16] == b"\x01\x01" and f[6:12] != bytes([2, 0, 0, 0, 0, 1]):
        dropped = 1
    else:
        out.append(rec)
    off += 16 + n
open(sys.argv[2], "wb").write(b"".join(out))
PY
"$R" -r "$T/wire-lost.pcap" --device-replay "$G" --device mlx5_2 -b -d 0.1 --speed 2 > "$T/nwl.txt" 2>&1
check "NIC vs wire, one received PFC frame missing from the capture (exit $?): rx_prio3_pause nic +8 wire 7 DISAGREE, tx still agrees" sh -c "
	tail -n 80 '$T/nwl.txt' | grep -qE '^  NIC vs wire enp1s0f0np0:rx_prio3_pause +nic \+8 wire 7 DISAGREE ' &&
	tail -n 80 '$T/nwl.txt' | grep -qE '^  NIC vs wire enp1s0f0np0:tx_prio3_pause +nic \+5 wire 5 agree '"
for w in wire wire-lost; do
	"$R" -r "$T/$w.pcap" --device-replay "$G" --device mlx5_2 --json -d 0.1 --speed 2 2>/dev/null | grep '"devices"' | tail -1 > "$T/pw-$w.json"
done
python3 - "$G" "$T" > "$T/pw.out" <<'PY'
import json, struct, sys
g, t = sys.argv[1], sys.argv[2]
def chk(what, cond):
    print(("ok   " if cond else "FAIL ") + what)
def ethtool(k):
    return {l.split(":")[0].strip(): int(l.split(":")[1]) for l in open("%s/ethtool/%d/enp1s0f0np0" % (g, k)) if l.startswith(" ")}
e1, e2 = ethtool(1), ethtool(2)
mac = open(g + "/sys/1/class/net/enp1s0f0np0/address").read().strip()
macb = bytes(int(x, 16) for x in mac.split(":"))
def pauses(path):
    # pause frames asking for a pause: (prio, tx) -> count; prio None for 802.3x
    b, off, c = open(path, "rb").read(), 24, {}
    while off + 16 <= len(b):
        n = struct.unpack_from("<I", b, off + 8)[0]
        f = b[off + 16:off + 16 + n]
        off += 16 + n
        if f[12:14] != b"\x88\x08":
            continue
        tx = f[6:12] == macb
        op = struct.unpack_from(">H", f, 14)[0]
        if op == 1 and struct.unpack_from(">H", f, 16)[0]:
            c[(None, tx)] = c.get((None, tx), 0) + 1
        elif op == 0x101:
            en = struct.unpack_from(">H", f, 16)[0]
            for p in range(8):
                if en >> p & 1 and struct.unpack_from(">H", f, 18 + 2 * p)[0]:
                    c[(p, tx)] = c.get((p, tx), 0) + 1
    return c
for w in ("wire", "wire-lost"):
    d = json.loads(open("%s/pw-%s.json" % (t, w)).read())["devices"][0]
    pw = {(x["priority"], x["direction"] == "tx"): x for x in d["nic_vs_wire"] if x.get("netdev")}
    cap = pauses("%s/%s.pcap" % (t, w))
    want = {(3, False): "rx_prio3_pause", (3, True): "tx_prio3_pause", (None, False): "rx_pause_ctrl_phy"}
    got = {k: (v["counter"], v["nic"], v["wire"], v["agree"]) for k, v in pw.items()}
    exp = {k: (n, e2[n] - e1[n], cap.get(k, 0), e2[n] - e1[n] == cap.get(k, 0)) for k, n in want.items()}
    chk("JSON %s.pcap: pause entries (counter, nic, wire, agree) %s = the recorded ethtool-S files' advances and the capture's pauses %s"
        % (w, sorted(got.values()), sorted(exp.values())), got == exp and all(v["port"] == 1 and v["meaning_name"] ==
        ("pause_frames_sent" if k[1] else "pause_frames_received") for k, v in pw.items()))
    chk("JSON %s.pcap: port mac %s from the recording's class/net/enp1s0f0np0/address" % (w, d["ports"][0]["mac"]),
        d["ports"][0]["mac"] == mac)
a, b = pauses(t + "/wire.pcap"), pauses(t + "/wire-lost.pcap")
chk("the comparison has substance: the lost capture has one received pause less (%d vs %d)" % (a[(3, False)], b[(3, False)]),
    a[(3, False)] == b[(3, False)] + 1)
PY
cat "$T/pw.out"
oks=$((oks + $(grep -c '^ok ' "$T/pw.out"))); fails=$((fails + $(grep -c '^FAIL ' "$T/pw.out")))
grep -q '^ok \|^FAIL ' "$T/pw.out" || fail "NIC vs wire pause JSON checks did not run"

# The terminal view's device screen: on a quiet NIC (the replay past its last
# snapshot, every rate 0) it lists the non-zero totals on every redraw, not
# "(no counter moved)"; beside a capture, the pause frames' NIC vs wire lines.
if command -v tmux >/dev/null 2>&1; then
	. "$here/tuishot.sh"   # shot FILE PATTERN
	tmux new-session -d -s "$TS" -x 130 -y 40 "$R --device-replay $FX --device mlx5_0 -d 0.1" 2>/dev/null
	shot "$T/tq.txt" "no counter moved; the totals"
	sleep 1      # ten more redraws: the totals stay
	tmux capture-pane -p -t "$TS" > "$T/tq2.txt" 2>/dev/null
	tmux send-keys -t "$TS" q
	sleep 0.3
	tmux kill-session -t "$TS" 2>/dev/null
	sed 's/^/     /' "$T/tq2.txt" | head -12
	for f in tq tq2; do
		check "TUI device screen, quiet mlx5_0 past the first polls ($f): the non-zero totals with their meanings, not '(no counter moved)' alone" sh -c "
			grep -q '^  (no counter moved; the totals that are not zero:)' '$T/$f.txt' && ! grep -qx '  (no counter moved)' '$T/$f.txt' &&
			grep -qE '^  req_cqe_error +3481 +0.0/s +cqe_error' '$T/$f.txt' &&
			grep -qE '^  resp_cqe_error +8109 +0.0/s +cqe_error' '$T/$f.txt' &&
			grep -qE '^  local_ack_timeout_err +131 +0.0/s +local_ack_timeout' '$T/$f.txt'"
	done
	tmux new-session -d -s "$TS" -x 160 -y 50 "$R -r $T/wire-lost.pcap --device-replay $G --device mlx5_2 -d 0.2" 2>/dev/null
	sleep 1
	tmux send-keys -t "$TS" D
	shot "$T/tp.txt" "rx_pause_ctrl_phy +nic"
	sleep 2      # past the capture's 1.2 s: every pause frame counted
	tmux capture-pane -p -t "$TS" > "$T/tp.txt" 2>/dev/null
	tmux send-keys -t "$TS" q
	sleep 0.3
	tmux kill-session -t "$TS" 2>/dev/null
	grep 'NIC vs wire' "$T/tp.txt" | sed 's/^/     /'
	check "TUI device screen: the pause frames' NIC vs wire lines (rx_prio3_pause +8 against 7 captured: DISAGREE; tx_prio3_pause +5 = 5)" sh -c "
		grep -qE '^  NIC vs wire enp1s0f0np0:rx_prio3_pause +nic \+8 wire 7 DISAGREE ' '$T/tp.txt' &&
		grep -qE '^  NIC vs wire enp1s0f0np0:tx_prio3_pause +nic \+5 wire 5 agree ' '$T/tp.txt'"
else
	echo "skip TUI checks: no tmux"
fi

"$R" --device-replay "$T/nothing" --device all -b -n 1 > "$T/e.out" 2>&1
rc=$?
check "--device-replay of no recording: one line, exit 2 (exit $rc: $(head -1 "$T/e.out"))" sh -c "test $rc = 2 && test \$(wc -l < '$T/e.out') = 1"

echo "device_replay: $oks ok, $fails failed"
[ "$fails" = 0 ]
