#!/bin/bash
# run.sh: waits
# tests/device.sh — the device source (rocetop --device), without RDMA hardware:
#   1. replay: sysfs files and RDMA netlink replies recorded from the lab's
#      Linux 6.1 rdma_rxe guests (tests/fixtures/device/, ROCETOP_SYSFS_ROOT and
#      ROCETOP_NETLINK_REPLAY): text and JSON hold the recorded QPs, counters,
#      GIDs and CM IDs with their concrete values, and agree with `rdma -j res
#      show qp` recorded at the same moment;
#   2. errors: a device that does not exist, a bad --qp-interval, --device with
#      --packets, no RDMA here at all: one line, non-zero exit;
#   3. live (root; network namespace of our own): the recorded sysfs tree with its
#      netdev renamed to a veth we create: ethtool -S statistics of that veth
#      appear with rates that move under traffic, `-i VETH` joins the device by
#      itself, and --prometheus output passes `promtool check metrics`;
#   4. rxe on the host (`rdma link add` on a veth): skipped when the kernel has no
#      rdma_rxe or no RDMA netlink (say so).
# With tmux, part 1 also drives the terminal view: key D beside a replayed
# capture, and --device alone (the device screen at once, no capture).
# Run as  BUILD=<build dir> tests/device.sh ; prints ok/FAIL lines.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
BUILD=${BUILD:-$repo/build}
R=$BUILD/bin/rocetop
FX=$here/fixtures/device
T=$(mktemp -d /tmp/device-test.XXXXXX)
NS=device-t$$
fails=0; oks=0
ok() { echo "ok   $*"; oks=$((oks + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }
# scrape PORT [PREFIX...]: the first /metrics of 127.0.0.1:PORT that answers (15 s at most),
# run under PREFIX (e.g. ip netns exec NS)
scrape() {
	local port=$1; shift
	"$@" python3 -c '
import sys, time, urllib.request
for i in range(150):
    try:
        sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode())
        break
    except OSError:
        time.sleep(0.1)
' "$port"
}
TS=device-tui-$$
cleanup() {
	[ -n "${PROM_PID:-}" ] && kill "$PROM_PID" 2>/dev/null
	tmux kill-session -t "$TS" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- 1. replay of the lab's recordings ------------------------------------------
replay() {  # replay GUEST N ARGS...: rocetop on GUEST's recording N
	local g=$1 n=$2; shift 2
	ROCETOP_SYSFS_ROOT=$FX/$g/sys ROCETOP_NETLINK_REPLAY=$FX/$g/$n "$R" "$@"
}
for g in vma vmb; do
	replay $g 1 --device all --json -n 1 -d 0.05 > "$T/$g.json" 2> "$T/$g.err"
	check "$g replay: exit 0, one JSON line" test "$?" = 0 -a "$(wc -l < "$T/$g.json")" = 1
	python3 - "$T/$g.json" "$FX/$g/1/rdma-qp.json" "$FX/$g/1/rdma-cmid.json" "$g" > "$T/$g.py.out" <<'PY' || fail "$g replay: JSON against rdma -j res show"
import json, sys
snap = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
cm_want = json.load(open(sys.argv[3]))
g = sys.argv[4]
dev = snap["devices"][0]
bad = []
def check(what, cond):
    print(("ok   " if cond else "FAIL ") + g + " replay: " + what)
    if not cond:
        bad.append(what)
check("device rxe0, port 1 ACTIVE on eth0, netlink", dev["name"] == "rxe0" and dev["netlink"] is True
      and dev["ports"][0]["state"] == "ACTIVE" and dev["ports"][0]["netdev"] == "eth0")
port = dev["ports"][0]
check("rxe hw_counters present (sent_pkts, rcvd_pkts, duplicate_request, out_of_seq_request)",
      all(k in port["counters"] for k in ("sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request")))
check("lifespan is not a counter", "lifespan" not in port["counters"])
# the MTUs come from libibverbs, which a replay does not ask (another machine's devices)
check("active_mtu and max_mtu present and null (a replay has no verbs device)",
      "active_mtu" in port and port["active_mtu"] is None and "max_mtu" in port and port["max_mtu"] is None)
gids = {x["index"]: x for x in port["gids"]}
check("GID 1 is RoCE v2 ::ffff:10.99.0.x on eth0", 1 in gids and gids[1]["type"] == "RoCE v2"
      and gids[1]["gid"].startswith("0000:0000:0000:0000:0000:ffff:0a63:00") and gids[1]["netdev"] == "eth0")
# the QP table equals rdma's (same recording moment)
mine = {q["lqpn"]: q for q in dev["qps"]}
theirs = {q["lqpn"]: q for q in want}
check("QP numbers equal rdma's (%d QPs)" % len(theirs), set(mine) == set(theirs) and len(theirs) >= 2)
# nlrecord read the QPs just before `rdma` did, with traffic flowing: rdma's
# PSNs are the same or a little ahead (mod 2^24)
def ahead(mine_psn, rdma_psn):
    return mine_psn is not None and rdma_psn is not None and (rdma_psn - mine_psn) % (1 << 24) < 100000
for n, t in theirs.items():
    m = mine.get(n, {})
    same = (m.get("type") == t["type"] and m.get("state") == t["state"] and m.get("rqpn") == t.get("rqpn")
            and m.get("pdn") == t.get("pdn") and m.get("pid") == t.get("pid")
            and ahead(m.get("sq_psn"), t.get("sq-psn"))
            and ("rq-psn" not in t or ahead(m.get("rq_psn"), t.get("rq-psn"))))
    check("QP %d: type %s state %s rqpn %s pid %s as rdma says; sq-psn %s / rq-psn %s (rdma: %s / %s)" % (
          n, t["type"], t["state"], t.get("rqpn"), t.get("pid"), m.get("sq_psn"), m.get("rq_psn"),
          t.get("sq-psn"), t.get("rq-psn")), same)
kern = [q for q in dev["qps"] if q["type"] == "GSI"]
check("the GSI QP 1 is the kernel's: comm ib_core (as rdma), kernel, no pid", len(kern) == 1
      and kern[0]["lqpn"] == 1 and kern[0]["comm"] == "ib_core" and kern[0].get("kernel") is True
      and "pid" not in kern[0])
rc = [q for q in dev["qps"] if q["type"] == "RC"]
check("RC QPs (%s) with rqpn and rq_psn, a user pid and pdn" % [q["lqpn"] for q in rc],
      len(rc) >= 1 and all("rqpn" in q and "rq_psn" in q and "pid" in q and "pdn" in q for q in rc))
check("CM IDs: %d as rdma says" % len(cm_want), len(dev["cm_ids"]) == len(cm_want))
cm_mine = sorted((c["src"], c["dst"], c["state"], c.get("lqpn")) for c in dev["cm_ids"])
cm_rdma = sorted((c["src-addr"], c["dst-addr"], c["state"], c.get("lqpn")) for c in cm_want)
check("CM IDs (address, peer, state, QP) as rdma says: %s" % cm_rdma, cm_mine == cm_rdma)
check("CQs and MRs counted", dev["cqs"] >= 1 and dev["mrs"] >= 1)
sys.exit(1 if bad else 0)
PY
	cat "$T/$g.py.out"
	oks=$((oks + $(grep -c '^ok ' "$T/$g.py.out")))
	fails=$((fails + $(grep -c '^FAIL ' "$T/$g.py.out")))
done

# PSN/s: two recordings of a guest during traffic, replayed as two QP dumps
# ~1 s apart (ROCETOP_NETLINK_REPLAY=DIR1:DIR2): the rate is their PSN
# difference over the wall-clock time between the dumps
TV=$FX/traffic/vma
ROCETOP_SYSFS_ROOT=$TV/sys ROCETOP_NETLINK_REPLAY=$TV/1:$TV/2 "$R" --device all --json -n 1 -d 1 \
	--qp-interval 0.5 > "$T/psn.json" 2>&1
python3 - "$T/psn.json" "$TV/1/qp-0.bin" "$TV/2/qp-0.bin" > "$T/psn.out" <<'PY'
import json, struct, sys
q = {x["lqpn"]: x for x in json.load(open(sys.argv[1]))["devices"][0]["qps"]}
# the recorded PSNs (from the replays themselves: see tests/unit/test_nlparse_fixtures.h)
rq17 = (1803308, 1910803); sq18 = (5215598, 5216513); rq18 = (14635865, 14636322)
def near(rate, pair):
    d = (pair[1] - pair[0]) % (1 << 24)
    return rate is not None and d / 1.6 <= rate <= d / 0.8
for what, rate, pair in (("QP 17 (ib_write_bw server, RTR) rq", q[17]["rq_psn_per_s"], rq17),
                         ("QP 18 (rping) sq", q[18]["sq_psn_per_s"], sq18),
                         ("QP 18 (rping) rq", q[18]["rq_psn_per_s"], rq18)):
    print(("ok   " if near(rate, pair) else "FAIL ") + "PSN/s %s: %s for +%d PSNs in ~1 s" % (what, rate, pair[1] - pair[0]))
print(("ok   " if q[17]["sq_psn_per_s"] == 0 else "FAIL ") + "PSN/s QP 17 sq: 0 (a write responder sends only ACKs)")
print(("ok   " if q[1]["sq_psn_per_s"] is None else "FAIL ") + "PSN/s: none for the GSI QP (not RC/UC)")
PY
cat "$T/psn.out"
oks=$((oks + $(grep -c '^ok ' "$T/psn.out")))
fails=$((fails + $(grep -c '^FAIL ' "$T/psn.out")))

replay vmb 1 --device all -b -n 1 -d 0.05 > "$T/vmb.txt" 2>&1
check "text: QP table header and an RC row" grep -q "LQPN PORT TYPE" "$T/vmb.txt"
check "text: the port line says nothing of an MTU (unknown in a replay): $(grep -m1 '^device rxe0 port 1' "$T/vmb.txt")" \
	sh -c "grep -q '^device rxe0 port 1: ACTIVE, 2.5 Gb/sec (1X SDR), Ethernet, netdev eth0\$' '$T/vmb.txt' && ! grep -qi 'mtu' '$T/vmb.txt'"
grep -E "^ +[0-9]+ +1 RC " "$T/vmb.txt" | head -3 | sed 's/^/     /'

# Bound QP counters (STAT_GET): the guests' rxe has none (EOPNOTSUPP), so a
# reply in the kernel's layout (nldev.c fill_res_counter_entry) is built here
# with random values beside the traffic recording: QP 17 bound to counter 5,
# QP 18 unbound.  Then an EOPNOTSUPP answer: no counters, no message.
mkdir -p "$T/qc" "$T/qe"; cp "$TV"/1/*.bin "$T/qc/"; cp "$TV"/1/*.bin "$T/qe/"
python3 - "$T/qc/qpcnt-0.bin" "$T/qe/qpcnt-0.bin" > "$T/qc.want" <<'PY'
import random, struct, sys
# uapi rdma_netlink.h numbers (stable ABI)
STAT_GET, NLDEV = 17, 5
DEV_INDEX, PORT_INDEX, RES_QP, RES_QP_ENTRY, RES_LQPN = 1, 3, 19, 20, 21
STAT_COUNTER, STAT_COUNTER_ENTRY, STAT_COUNTER_ID, HWS, HWE, HWN, HWV = 77, 78, 79, 80, 81, 82, 83
def attr(t, p, nest=False):
    a = struct.pack("<HH", 4 + len(p), t | (0x8000 if nest else 0)) + p
    return a + b"\0" * (-len(a) % 4)
def msg(typ, flags, body):
    return struct.pack("<IHHII", 16 + len(body), typ, flags, 1, 0) + body
u32 = lambda v: struct.pack("<I", v)
vals = {"rx_write_requests": random.randrange(1, 1 << 40), "out_of_sequence": random.randrange(0, 1000),
        "rx_read_requests": random.randrange(0, 1 << 20)}
hw = b"".join(attr(HWE, attr(HWN, n.encode() + b"\0") + attr(HWV, struct.pack("<Q", v)), True) for n, v in vals.items())
entry = attr(PORT_INDEX, u32(1)) + attr(STAT_COUNTER_ID, u32(5)) + \
        attr(RES_QP, attr(RES_QP_ENTRY, attr(RES_LQPN, u32(17)), True), True) + attr(HWS, hw, True)
body = attr(DEV_INDEX, u32(0)) + attr(STAT_COUNTER, attr(STAT_COUNTER_ENTRY, entry))
open(sys.argv[1], "wb").write(msg(STAT_GET | NLDEV << 10, 2, body) + msg(3, 2, u32(0)))
open(sys.argv[2], "wb").write(msg(2, 0, struct.pack("<i", -95) + bytes(16)))   # NLMSG_ERROR -EOPNOTSUPP
print(" ".join("%s=%d" % kv for kv in vals.items()))
PY
ROCETOP_SYSFS_ROOT=$TV/sys ROCETOP_NETLINK_REPLAY=$T/qc "$R" --device all --json -n 1 -d 0.05 > "$T/qc.json" 2>&1
python3 - "$T/qc.json" "$(cat "$T/qc.want")" <<'PY' > "$T/qc.out"
import json, sys
q = {x["lqpn"]: x for x in json.load(open(sys.argv[1]))["devices"][0]["qps"]}
want = dict((k, int(v)) for k, v in (kv.split("=") for kv in sys.argv[2].split()))
print(("ok   " if q[17].get("counters") == want and q[17].get("counter_id") == 5 else "FAIL ") +
      "QP counters: QP 17 holds counter 5's values %s (got %s)" % (want, q[17].get("counters")))
print(("ok   " if "counters" not in q[18] else "FAIL ") + "QP counters: unbound QP 18 has none")
PY
cat "$T/qc.out"
oks=$((oks + $(grep -c '^ok ' "$T/qc.out"))); fails=$((fails + $(grep -c '^FAIL ' "$T/qc.out")))
ROCETOP_SYSFS_ROOT=$TV/sys ROCETOP_NETLINK_REPLAY=$T/qc "$R" --device all -b -n 1 -d 0.05 > "$T/qc.txt" 2>&1
check "QP counters, text: a line for QP 17 on counter 5" grep -q "^  qp 17 counter 5: .*out_of_sequence $(sed 's/.*out_of_sequence=\([0-9]*\).*/\1/' "$T/qc.want")" "$T/qc.txt"
ROCETOP_SYSFS_ROOT=$TV/sys ROCETOP_NETLINK_REPLAY=$T/qe "$R" --device all --json -n 1 -d 0.05 > "$T/qe.json" 2> "$T/qe.err"
check "QP counters, EOPNOTSUPP: QPs 17 and 18 shown without counters" \
	python3 -c 'import json, sys; q = json.load(open(sys.argv[1]))["devices"][0]["qps"]; l = [x["lqpn"] for x in q]
sys.exit(not (17 in l and 18 in l and not any("counters" in x or "counter_id" in x for x in q)))' "$T/qe.json"
check "QP counters, EOPNOTSUPP: nothing on stderr" test ! -s "$T/qe.err"
ROCETOP_SYSFS_ROOT=$TV/sys ROCETOP_NETLINK_REPLAY=$T/qe "$R" --device all --bind-qp-counters --json -n 1 -d 0.05 > "$T/qb.json" 2> "$T/qb.err"
check "--bind-qp-counters on a replay (not sent: EOPNOTSUPP): exit 0, QPs shown, nothing on stderr" \
	sh -c "test $? = 0 && grep -q '\"lqpn\":17' '$T/qb.json' && ! test -s '$T/qb.err'"


# one QP, one row: the recorded QP 17 (no CM ID) joins lab/roce_rping.pcap's QP 17 flows, with
# one analysis thread and with two (the snapshot joins the threads' merged flows)
for th in 1 2; do
	ROCETOP_SYSFS_ROOT=$TV/sys ROCETOP_NETLINK_REPLAY=$TV/1 "$R" -r "$repo/captures/lab/roce_rping.pcap" --device rxe0 \
		--json -d 0.01 --threads $th 2>/dev/null | grep '"devices"' | tail -1 > "$T/join$th.json"
	python3 - "$T/join$th.json" "$th" <<'PY' || fail "join, --threads $th"
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
q = {x["lqpn"]: x for x in d["qps"]}
w = q[17]["wire"]
good = w["packets_in"] == 24 and w["packets_out"] == 24 and w["flows_in"] == 1 and q[18]["wire"]["flows_in"] == 0
print(("ok   " if good else "FAIL ") + "join, --threads %s: QP 17's wire %s; QP 18 (CM ID to another port) none" % (sys.argv[2], w))
sys.exit(0 if good else 1)
PY
done

# the terminal view's device screen (key D), on the replayed traffic recording
if command -v tmux >/dev/null 2>&1; then
	tmux new-session -d -s "$TS" -x 130 -y 40 "env ROCETOP_SYSFS_ROOT=$TV/sys ROCETOP_NETLINK_REPLAY=$TV/1:$TV/2 \
		$R -r $repo/captures/lab/roce_send_bw_netem.pcap --device rxe0 --speed 0.01" 2>/dev/null
	sleep 1.5
	tmux send-keys -t "$TS" D
	. "$here/tuishot.sh"   # shot FILE PATTERN
	shot "$T/tui.txt" "rxe0 +18 +RC"
	# the QP table: by lqpn, then reversed
	tmux send-keys -t "$TS" r
	shot "$T/tui-rev.txt" "LQPN\\+"
	# filter on a pid (the recorded processes' comm is not on this host), then Enter for that QP
	tmux send-keys -t "$TS" / 2 6 3 Enter
	shot "$T/tui-filter.txt" "^rxe0 +18 "
	tmux send-keys -t "$TS" Enter
	shot "$T/tui-qp.txt" "rxe0 QP 18"
	tmux send-keys -t "$TS" Escape
	sleep 0.5
	tmux send-keys -t "$TS" D
	sleep 0.5
	tmux capture-pane -p -t "$TS" > "$T/tui2.txt" 2>/dev/null
	tmux send-keys -t "$TS" q
	sleep 0.3
	tmux kill-session -t "$TS" 2>/dev/null
	check "TUI: D shows the device screen (port, QPs 17 and 18 with pid and comm)" sh -c "grep -q '^device rxe0 port 1: ACTIVE' '$T/tui.txt' && grep -qE '^rxe0 +17 RC +RTR .* 243 ' '$T/tui.txt' && grep -qE '^rxe0 +18 RC +RTS .* 263 ' '$T/tui.txt'"
	order() { grep -oE '^rxe0 +[0-9]+ ' "$1" | awk '{print $2}' | tr '\n' ' '; }
	check "TUI: QP table by lqpn ($(order "$T/tui.txt")), r reverses it ($(order "$T/tui-rev.txt"))" \
		test "$(order "$T/tui.txt")" = "1 17 18 " -a "$(order "$T/tui-rev.txt")" = "18 17 1 "
	check "TUI: /263 leaves QP 18 alone ($(order "$T/tui-filter.txt"))" test "$(order "$T/tui-filter.txt")" = "18 "
	check "TUI: Enter shows QP 18 with its owner and its rdma_cm ID" sh -c "grep -q 'rxe0 QP 18 (port 1): RC RTS' '$T/tui-qp.txt' && grep -q 'owner: pid 263' '$T/tui-qp.txt' && grep -q 'rqpn 18   pdn 3' '$T/tui-qp.txt' && grep -q 'rdma_cm: TCP CONNECT 10.99.0.1:7174 -> 10.99.0.2:54777' '$T/tui-qp.txt'"
	check "TUI: D again goes back to the flows" grep -q "FLOW\|SRC" "$T/tui2.txt"
	# the QP detail shows the counter the QP is bound to (the STAT_GET reply built above)
	tmux new-session -d -s "$TS" -x 130 -y 40 "env ROCETOP_SYSFS_ROOT=$TV/sys ROCETOP_NETLINK_REPLAY=$T/qc \
		$R -r $repo/captures/lab/roce_send_bw_netem.pcap --device rxe0 --speed 0.01" 2>/dev/null
	sleep 1.5
	tmux send-keys -t "$TS" D
	shot "$T/tuic.txt" "rxe0 +17 +RC"
	tmux send-keys -t "$TS" / 2 4 3 Enter
	shot "$T/tuic-filter.txt" "^rxe0 +17 "
	tmux send-keys -t "$TS" Enter
	shot "$T/tuic-qp.txt" "rxe0 QP 17"
	tmux send-keys -t "$TS" q
	sleep 0.3
	tmux kill-session -t "$TS" 2>/dev/null
	check "TUI: Enter on QP 17 shows its bound counter 5 and its values" sh -c "grep -q 'bound to counter 5 (1 QP)' '$T/tuic-qp.txt' && grep -q 'out_of_sequence $(sed 's/.*out_of_sequence=\([0-9]*\).*/\1/' "$T/qc.want") ' '$T/tuic-qp.txt'"

	# --device alone on a terminal: the device screen at once, no capture; --prometheus
	# beside it serves.  The shell around it records stty before and after, and the exit status.
	tport=$((20000 + ($$ + 7) % 20000))
	tmux new-session -d -s "$TS" -x 130 -y 40 "stty -g > $T/dstty.before; env ROCETOP_SYSFS_ROOT=$TV/sys \
		ROCETOP_NETLINK_REPLAY=$TV/1:$TV/2 $R --device rxe0 -d 0.3 --prometheus 127.0.0.1:$tport; \
		echo \$? > $T/drc; stty -g > $T/dstty.after; sleep 60" 2>/dev/null
	shot "$T/dtui.txt" "^rxe0 +18 +RC"
	scrape "$tport" > "$T/dtmetrics" 2>/dev/null
	# s: by TYPE, r: reversed (RC before GSI, ties in lqpn order); then g Enter: the first row alone
	tmux send-keys -t "$TS" s r
	shot "$T/dtui-sort.txt" "TYPE\\+"
	tmux send-keys -t "$TS" g Enter
	shot "$T/dtui-qp.txt" "rxe0 QP 17"
	tmux send-keys -t "$TS" Escape
	sleep 0.5   # not ESC c: one key, Alt-c
	tmux send-keys -t "$TS" c
	shot "$T/dtui-c.txt" "device-only view \\(no capture\\): no flows to clear"
	tmux send-keys -t "$TS" h
	shot "$T/dtui-h.txt" "Device-only view \\(no capture\\): the flow table"
	tmux send-keys -t "$TS" x
	shot "$T/dtui-back.txt" "^rxe0 +18 +RC"
	tmux send-keys -t "$TS" q
	for i in $(seq 20); do [ -s "$T/dstty.after" ] && break; sleep 0.25; done
	dalt=$(tmux display-message -p -t "$TS" '#{alternate_on}' 2>/dev/null)
	tmux kill-session -t "$TS" 2>/dev/null
	want=$(python3 -c 'import json, sys; print(" ".join(str(q["lqpn"]) for q in sorted(json.load(open(sys.argv[1])), key=lambda q: q["lqpn"])) + " ")' "$TV/1/rdma-qp.json")
	check "--device alone, TUI: the device screen at once, marked no capture (port line, QPs $(order "$T/dtui.txt")= rdma's $want)" \
		sh -c "grep -q 'device-only view (no capture)' '$T/dtui.txt' && grep -q '^device rxe0 port 1: ACTIVE' '$T/dtui.txt' && test '$(order "$T/dtui.txt")' = '$want' && grep -qE '^rxe0 +18 RC +RTS .* 263 ' '$T/dtui.txt'"
	check "--device alone, TUI: s r sorts by type reversed ($(order "$T/dtui-sort.txt"))" test "$(order "$T/dtui-sort.txt")" = "17 18 1 "
	check "--device alone, TUI: Enter shows QP 17 (owner pid 243, no wire: no capture)" sh -c "grep -q 'rxe0 QP 17 (port 1): RC RTR' '$T/dtui-qp.txt' && grep -q 'owner: pid 243' '$T/dtui-qp.txt' && grep -q 'wire: no flow of this QP seen (no capture)' '$T/dtui-qp.txt'"
	check "--device alone, TUI: c says there is no capture (status line)" grep -q "no flows to clear" "$T/dtui-c.txt"
	check "--device alone, TUI: h says which keys need a capture, any key back to the devices" \
		sh -c "grep -q 'need -i IFACE or -r FILE' '$T/dtui-h.txt' && grep -q '^device rxe0 port 1' '$T/dtui-back.txt'"
	check "--device alone, TUI: --prometheus serves the device series beside it" grep -q '^rocetop_rdma_port_stat_total{device="rxe0",port="1",group="hw_counters",counter="sent_pkts"}' "$T/dtmetrics"
	check "--device alone, TUI: q exits 0 ($(cat "$T/drc" 2>/dev/null)), alternate screen off ($dalt), stty as before" \
		sh -c "test '$(cat "$T/drc" 2>/dev/null)' = 0 -a '$dalt' = 0 && test -s '$T/dstty.before' && cmp -s '$T/dstty.before' '$T/dstty.after'"
	# -b and --json on a terminal still print snapshots (and end after -n)
	tmux new-session -d -s "$TS" -x 200 -y 60 "env ROCETOP_SYSFS_ROOT=$TV/sys ROCETOP_NETLINK_REPLAY=$TV/1 $R --device rxe0 \
		-b -n 1 -d 0.05; echo BRC \$?; env ROCETOP_SYSFS_ROOT=$TV/sys ROCETOP_NETLINK_REPLAY=$TV/1 $R --device rxe0 \
		--json -n 1 -d 0.05 | cut -c1-40; echo JRC \$?; sleep 60" 2>/dev/null
	shot "$T/dbatch.txt" "^JRC "
	tmux kill-session -t "$TS" 2>/dev/null
	check "--device alone -b -n 1 on a terminal: one text snapshot (QP table), exit 0" \
		sh -c "grep -qE '^rocetop 1 - .* UTC, devices' '$T/dbatch.txt' && grep -q 'LQPN PORT TYPE' '$T/dbatch.txt' && grep -q '^BRC 0' '$T/dbatch.txt' && ! grep -q 'no capture' '$T/dbatch.txt'"
	check "--device alone --json -n 1 on a terminal: one JSON line, exit 0" \
		sh -c "grep -q '^{\"type\":\"devices\",\"n\":1,' '$T/dbatch.txt' && grep -q '^JRC 0' '$T/dbatch.txt'"
fi
replay vmb 1 --device all -n 1 -d 0.05 < /dev/null > "$T/notty.txt" 2>&1
check "--device alone, no terminal, no -b: the text snapshot as before" grep -q "LQPN PORT TYPE" "$T/notty.txt"

# ---- 1b. the device view alone on /metrics (the exporter unit's command line) -------
dport=$((20000 + $$ % 20000))
# rocetop itself in the background (not the replay function's subshell), so
# the SIGTERM reaches it
ROCETOP_SYSFS_ROOT=$FX/vma/sys ROCETOP_NETLINK_REPLAY=$FX/vma/1 "$R" --device all -b -d 0.2 \
	--prometheus 127.0.0.1:$dport > "$T/dprom.txt" 2> "$T/dprom.err" &
PROM_PID=$!
scrape "$dport" > "$T/dmetrics" 2>/dev/null
kill -TERM "$PROM_PID" 2>/dev/null
wait "$PROM_PID"; rc=$?; PROM_PID=
check "--device all --prometheus (no -i/-r): serves, ends on SIGTERM with 0 (exit $rc)" test "$rc" = 0
check "--device alone on /metrics: the port's hw_counters" grep -q '^rocetop_rdma_port_stat_total{device="rxe0",port="1",group="hw_counters",counter="sent_pkts"}' "$T/dmetrics"
check "--device alone on /metrics: no active MTU sample in a replay (the HELP and TYPE lines only)" \
	sh -c "grep -q '^# TYPE rocetop_rdma_port_active_mtu_bytes gauge' '$T/dmetrics' && ! grep -q '^rocetop_rdma_port_active_mtu_bytes' '$T/dmetrics'"
check "--device alone on /metrics: no capture series (nothing is captured)" sh -c "! grep -q '^rocetop_frames_total' '$T/dmetrics'"
if command -v promtool >/dev/null; then
	check "--device alone: promtool check metrics, no complaint" sh -c "promtool check metrics < '$T/dmetrics' > '$T/dpromtool.out' 2>&1 && ! grep -q . '$T/dpromtool.out'"
fi
check "node_exporter names are off by default" sh -c "! grep -q '^node_' '$T/dmetrics'"
# --prometheus-node-names: the recorded tree plus PMA counters/ files (rxe has none)
cp -r "$FX/vma/sys" "$T/nsys"
NP=$T/nsys/class/infiniband/rxe0/ports/1
mkdir -p "$NP/counters"
echo 1000 > "$NP/counters/port_rcv_data"; echo 77 > "$NP/counters/port_xmit_packets"; echo 3 > "$NP/counters/VL15_dropped"
ROCETOP_SYSFS_ROOT=$T/nsys ROCETOP_NETLINK_REPLAY=$FX/vma/1 "$R" --device all -b -d 0.2 --prometheus-node-names \
	--prometheus 127.0.0.1:$dport > /dev/null 2>&1 &
PROM_PID=$!
scrape "$dport" > "$T/nmetrics" 2>/dev/null
kill -TERM "$PROM_PID" 2>/dev/null; wait "$PROM_PID"; PROM_PID=
nv() { awk -v k="$1" '$1 == k {print $2}' "$T/nmetrics"; }
check "--prometheus-node-names: state 4, phys 5, rate 2.5 Gb/s in bytes ($(nv 'node_infiniband_state_id{device="rxe0",port="1"}') $(nv 'node_infiniband_physical_state_id{device="rxe0",port="1"}') $(nv 'node_infiniband_rate_bytes_per_second{device="rxe0",port="1"}'))" \
	test "$(nv 'node_infiniband_state_id{device="rxe0",port="1"}')" = 4 -a "$(nv 'node_infiniband_physical_state_id{device="rxe0",port="1"}')" = 5 -a "$(nv 'node_infiniband_rate_bytes_per_second{device="rxe0",port="1"}')" = 312500000
check "--prometheus-node-names: port_rcv_data x 4 in bytes, packets and VL15 as node_exporter names them" \
	test "$(nv 'node_infiniband_port_data_received_bytes_total{device="rxe0",port="1"}')" = 4000 -a "$(nv 'node_infiniband_port_packets_transmitted_total{device="rxe0",port="1"}')" = 77 -a "$(nv 'node_infiniband_vl15_dropped_total{device="rxe0",port="1"}')" = 3
check "--prometheus-node-names: rocetop's own series stay" grep -q '^rocetop_rdma_port_stat_total{device="rxe0",port="1",group="counters",counter="port_rcv_data"} 1000' "$T/nmetrics"
if command -v promtool >/dev/null; then
	check "--prometheus-node-names: promtool check metrics, no complaint" sh -c "promtool check metrics < '$T/nmetrics' > '$T/npromtool.out' 2>&1 && ! grep -q . '$T/npromtool.out'"
fi

# ---- 2. errors ----------------------------------------------------------------------
# -i with an RDMA device's name goes to the verbs sniffer; here libibverbs has no such device
out=$(ROCETOP_SYSFS_ROOT=$FX/vma/sys ROCETOP_NETLINK_REPLAY=$FX/vma/1 "$R" -i rxe0 -b -n 1 2>&1); rc=$?
check "-i rxe0 (an RDMA device libibverbs cannot open here): exit 1, one line naming --device rxe0" \
	sh -c "test '$rc' = 1 -a '$(echo "$out" | wc -l)' = 1 && echo '$out' | grep -q -- '--device rxe0' && echo '$out' | grep -q 'rocetop: rxe0: libibverbs'"
out=$(ROCETOP_SYSFS_ROOT=$FX/vma/sys ROCETOP_NETLINK_REPLAY=$FX/vma/1 "$R" --device mlx5_9 -n 1 2>&1); rc=$?
check "--device mlx5_9 (none such): exit 1, one line naming it" test "$rc" = 1 -a "$(echo "$out" | wc -l)" = 1
echo "$out" | grep -q "mlx5_9" || fail "the message names mlx5_9: $out"
out=$(ROCETOP_SYSFS_ROOT=$FX/vma/sys ROCETOP_NETLINK_REPLAY=$FX/vma/1 "$R" --device rxe0:7 -n 1 2>&1); rc=$?
check "--device rxe0:7 (no such port): exit 1" test "$rc" = 1
out=$("$R" --device all --qp-interval 0 -n 1 2>&1); rc=$?
check "--qp-interval 0: exit 2" test "$rc" = 2
out=$("$R" --device all --packets -r "$repo/captures/lab/roce_rping.pcap" 2>&1); rc=$?
check "--device with --packets: exit 2" test "$rc" = 2
out=$(ROCETOP_SYSFS_ROOT=$T/empty "$R" --device all -n 1 2>&1); rc=$?
check "no RDMA devices at all: exit 1, one line" test "$rc" = 1 -a "$(echo "$out" | wc -l)" = 1

# ---- 3. live: ethtool -S of a veth of ours, -i joins, Prometheus --------------------
if [ "$(id -u)" != 0 ] || ! ip netns add "$NS" 2>/dev/null; then
	echo "device: live part skipped (needs root and network namespaces)"
else
	cp -r "$FX/vma/sys" "$T/sys"
	for f in "$T"/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/*; do echo devt0 > "$f"; done
	ip -n "$NS" link add devt0 type veth peer name devt1
	ip -n "$NS" addr add 192.0.2.1/24 dev devt0
	ip -n "$NS" link set devt0 up; ip -n "$NS" link set devt1 up; ip -n "$NS" link set lo up
	# without netlink replay: this host has no RDMA netlink; the netdev comes from the GID table
	ROCETOP_SYSFS_ROOT=$T/sys ip netns exec "$NS" "$R" --device rxe0 --json -n 2 -d 0.5 > "$T/live.json" 2>&1 &
	pid=$!
	wait $pid
	peer=$(ip -n "$NS" -o link show devt1 | cut -d: -f1)
	python3 - "$T/live.json" "$peer" <<'PY' && ok "live: netdev statistics (SIOCETHTOOL) of devt0 (veth): peer_ifindex = $peer, devt1's ifindex; netdev from the GID table" || fail "live netdev statistics: $(head -c 600 "$T/live.json")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
p = lines[-1]["devices"][0]["ports"][0]
assert len(lines) == 2, len(lines)
assert p["netdev"] == "devt0", p["netdev"]
assert p["ethtool"]["peer_ifindex"] == int(sys.argv[2]), p["ethtool"]
assert lines[-1]["devices"][0]["netlink"] is False
PY
	port=$((20000 + $$ % 20000))
	ROCETOP_SYSFS_ROOT=$T/sys ip netns exec "$NS" "$R" -i devt0 -b -n 1000 -d 0.5 --prometheus 127.0.0.1:$port \
		> "$T/join.txt" 2>"$T/join.err" &
	PROM_PID=$!
	# the first scrape that succeeds (the listener is up once the capture is open)
	scrape "$port" ip netns exec "$NS" > "$T/metrics" 2>"$T/scrape.err"
	# a snapshot or two, then SIGTERM (it prints the summary and ends)
	for i in $(seq 50); do grep -q "^device rxe0" "$T/join.txt" && break; sleep 0.2; done
	kill "$PROM_PID" 2>/dev/null
	wait $PROM_PID; PROM_PID=
	check "-i devt0: the RDMA port whose netdev it is joins the snapshots" grep -q "^device rxe0 port 1: ACTIVE" "$T/join.txt"
	check "--prometheus: device series present" grep -q '^rocetop_rdma_port_stat_total{device="rxe0",port="1",group="hw_counters",counter="sent_pkts"}' "$T/metrics"
	check "--prometheus: netdev statistics series of devt0" grep -q '^rocetop_netdev_ethtool_stat{netdev="devt0",stat="peer_ifindex"}' "$T/metrics"
	if command -v promtool >/dev/null; then
		check "promtool check metrics: no complaint" sh -c "promtool check metrics < '$T/metrics' > '$T/promtool.out' 2>&1 && ! grep -q . '$T/promtool.out'"
		[ -s "$T/promtool.out" ] && head -5 "$T/promtool.out"
	fi
fi

# ---- 4. rxe on the host -------------------------------------------------------------
if ! rdma link show >/dev/null 2>&1; then
	echo "device: rxe live part skipped: this kernel has no RDMA netlink ($(rdma link show 2>&1 | head -1))"
elif [ "$(id -u)" = 0 ] && ip netns exec "$NS" rdma link add devrxe0 type rxe netdev devt0 2>/dev/null; then
	ip netns exec "$NS" "$R" --device devrxe0 --json -n 1 -d 0.2 > "$T/rxe.json" 2>&1
	check "host rxe on a veth: devrxe0 port 1 in the JSON" grep -q '"name":"devrxe0"' "$T/rxe.json"
	# the port MTUs (libibverbs) as ibv_devinfo prints them ("active_mtu: 1024 (3)"), when it is here
	ip netns exec "$NS" ibv_devinfo -d devrxe0 -i 1 > "$T/rxe.devinfo" 2>&1 || true
	python3 "$here/mtu_devinfo.py" "$T/rxe.json" "$T/rxe.devinfo" "host rxe" --or-sizes > "$T/rxe.mtu" 2>&1 ||
		grep -q "^FAIL " "$T/rxe.mtu" || echo "FAIL host rxe: the MTU check did not run" >> "$T/rxe.mtu"
	cat "$T/rxe.mtu"
	oks=$((oks + $(grep -c '^ok ' "$T/rxe.mtu"))); fails=$((fails + $(grep -c '^FAIL ' "$T/rxe.mtu")))
	ip netns exec "$NS" rdma link delete devrxe0 2>/dev/null
else
	echo "device: rxe live part skipped: rdma link add type rxe failed (no rdma_rxe module)"
fi

echo "device: $oks ok, $fails failed"
[ "$fails" = 0 ]
