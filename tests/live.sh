#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: waits
#
# live.sh — rocetop on live interfaces, end to end, in network namespaces
# this script makes (and removes) itself: nothing is sent anywhere else.
#
#   BUILD=build tests/live.sh            (root: namespaces and veth pairs)
#
#   namespace A: vA1, vA2  ── veth ──  namespace B: vB1, vB2, lo
#
# A python sender (AF_PACKET, a ten-line pcap reader) replays the lab
# captures roce_rping.pcap on vA1 and roce_send_bw_netem.pcap on vA2;
# in B, `rocetop -i vB1 -i vB2 -b -d 1 --json --prometheus
# 127.0.0.1:9464` must count exactly the frames sent, per flow (src, dst,
# destqp), in its JSON summary and in GET /metrics; -w must have saved
# them, after -Z dropped root.  Then a paced replay (--speed) checks the
# --prometheus-max-flows bound; snapshots come every -d 0.5 on a quiet
# link; a stopped rocetop with a small ring counts every frame as analysed
# or dropped (JSON "capture", rocetop_capture_*_total); -s 128 leaves ICRC
# unchecked, not bad; a busy link (30,000 frames) is analysed to the frame
# with fewer than one wakeup per 100 frames, and -c stops inside a ring
# block exactly; and a few errors are checked.
#
# Prints "ok"/"FAIL" lines; exits 1 when a check fails, 0 with "skipped" when
# it cannot run here (not root, no ip(8), no network namespaces).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
R=$BUILD/bin/rocetop
LAB=$root/captures/lab
CAP1=$LAB/roce_rping.pcap
CAP2=$LAB/roce_send_bw_netem.pcap

skip() {
	echo "live: skipped: $*"
	exit 0
}
[ -x "$R" ] || { echo "live: $R not built" >&2; exit 2; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, veth pairs)"
command -v ip >/dev/null 2>&1 || skip "no ip(8) (iproute2)"
command -v python3 >/dev/null 2>&1 || skip "no python3"

NA=live-a-$$
NB=live-b-$$
T=$(mktemp -d "${TMPDIR:-/tmp}/live.XXXXXX") || exit 2
chmod 755 "$T"
RPID=""
cleanup() {
	[ -n "$RPID" ] && kill "$RPID" 2>/dev/null && wait "$RPID" 2>/dev/null
	ip netns del "$NA" 2>/dev/null
	ip netns del "$NB" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip netns add "$NA" 2>/dev/null || skip "cannot create a network namespace"
ip netns add "$NB" || exit 2
for i in 1 2; do
	ip link add "vA$i" netns "$NA" type veth peer name "vB$i" netns "$NB" || { echo "live: veth failed" >&2; exit 2; }
done
for ns in "$NA" "$NB"; do
	# no IPv6 autoconfiguration chatter: every frame on the wire is one we sent
	# ("all" also switches the interfaces already there)
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
for i in 1 2; do
	ip -n "$NA" link set "vA$i" up
	ip -n "$NB" link set "vB$i" up
done
ip -n "$NB" link set lo up

fails=0 oks=0
# wait_socket PID: until the process has a socket open (the capture), and a little more
wait_socket() {
	for _ in $(seq 200); do
		ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'socket:' && break
		sleep 0.05
	done
	sleep 0.5
}
ok() {
	echo "ok   $1"
	oks=$((oks + 1))
}
fail() {
	echo "FAIL $1"
	shift
	for l; do
		echo "     $l"
	done
	fails=$((fails + 1))
}

# ---- the sender and the expected counts ----------------------------------------------
cat >"$T/send.py" <<'EOF'
import socket, struct, sys, json, collections

def frames(path):
    b = open(path, "rb").read()
    magic = b[:4]
    e = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off = 24
    while off + 16 <= len(b):
        _, _, cl, _ = struct.unpack(e + "IIII", b[off:off + 16])
        yield b[off + 16:off + 16 + cl]
        off += 16 + cl

def flow(f):
    """(src, dst, destqp) of a RoCEv2 frame, else None."""
    t = struct.unpack(">H", f[12:14])[0]
    if t == 0x0800 and f[23] == 17:
        ip = 14 + (f[14] & 15) * 4
        src, dst = socket.inet_ntop(socket.AF_INET, f[26:30]), socket.inet_ntop(socket.AF_INET, f[30:34])
    elif t == 0x86DD and f[20] == 17:
        ip = 54
        src, dst = socket.inet_ntop(socket.AF_INET6, f[22:38]), socket.inet_ntop(socket.AF_INET6, f[38:54])
    else:
        return None
    if struct.unpack(">H", f[ip + 2:ip + 4])[0] != 4791:
        return None
    bth = ip + 8
    return src, dst, int.from_bytes(f[bth + 5:bth + 8], "big")

mode, args = sys.argv[1], sys.argv[2:]
if mode == "count":             # count CAP... -> JSON {"frames": n, "flows": {"src dst qp": n}}
    c, n = collections.Counter(), 0
    for path in args:
        for f in frames(path):
            n += 1
            k = flow(f)
            if k:
                c["%s %s %d" % k] += 1
    print(json.dumps({"frames": n, "flows": c}))
else:                           # send IFACE CAP
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((args[0], 0))
    n = 0
    for f in frames(args[1]):
        s.send(f)
        n += 1
    print(n)
EOF
python3 "$T/send.py" count "$CAP1" "$CAP2" >"$T/expect.json" || exit 2

# scrape URL: GET inside namespace B; prints the body
cat >"$T/scrape.py" <<'EOF'
import sys, time, urllib.request
url, tries = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
for i in range(tries):
    try:
        print(urllib.request.urlopen(url, timeout=5).read().decode(), end="")
        sys.exit(0)
    except OSError as e:
        err = e
        time.sleep(0.05)
print("scrape failed:", err, file=sys.stderr)
sys.exit(1)
EOF

# ---- live: two interfaces, JSON, Prometheus, -w after -Z ------------------------------------
mkdir "$T/nobody" && chown nobody "$T/nobody" 2>/dev/null || skip "no user nobody"
ip netns exec "$NB" "$R" -i vB1 -i vB2 -b -d 1 --json --prometheus 127.0.0.1:9464 \
	-Z nobody -w "$T/nobody/saved.pcap" >"$T/out.json" 2>"$T/err" &
RPID=$!
if ! ip netns exec "$NB" python3 "$T/scrape.py" http://127.0.0.1:9464/metrics 100 >"$T/m0"; then
	fail "rocetop came up (GET /metrics answered)" "$(cat "$T/err")"
else
	ok "rocetop came up: GET /metrics answers on 127.0.0.1:9464 in the namespace"
fi
s1=$(ip netns exec "$NA" python3 "$T/send.py" send vA1 "$CAP1")
s2=$(ip netns exec "$NA" python3 "$T/send.py" send vA2 "$CAP2")
# Scrape until every frame sent is counted (at most 20 s: a loaded machine
# runs the capture late), and wait for a snapshot (one a second with -d 1;
# an idle machine gets here in less than that), then stop rocetop.
# (no -n: python may take seconds to start on a loaded machine; -n is checked below)
for _ in $(seq 200); do
	ip netns exec "$NB" python3 "$T/scrape.py" http://127.0.0.1:9464/metrics 3 >"$T/m1" ||
		{ fail "second scrape"; break; }
	grep -qE "^rocetop_frames_total $((s1 + s2))(\.0)?\$" "$T/m1" &&
		grep -q '"type":"snapshot"' "$T/out.json" && break
	sleep 0.1
done
kill -INT "$RPID"
wait "$RPID"
rc=$?
RPID=""
[ "$rc" = 0 ] && ok "rocetop ended on SIGINT (exit 0)" || fail "rocetop exit status $rc" "$(cat "$T/err")"

python3 - "$T/expect.json" "$T/out.json" "$T/m1" "$s1" "$s2" >"$T/check" <<'EOF'
import json, re, sys
exp = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
metrics = open(sys.argv[3]).read()
sent = int(sys.argv[4]) + int(sys.argv[5])
def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else "\n     " + detail))
snaps = [l for l in lines if l.get("type") == "snapshot"]
summ = lines[-1] if lines else {}
check("JSON: %d snapshots then the summary" % len(snaps), len(snaps) >= 1 and summ.get("type") == "summary",
      "types %s" % [l.get("type") for l in lines])
check("sent %d frames = expected %d" % (sent, exp["frames"]), sent == exp["frames"])
check("summary frames %s = sent %d" % (summ.get("frames"), sent), summ.get("frames") == sent)
got = {"%s %s %d" % (f["src"], f["dst"], f["destqp"]): f["packets"] for f in summ.get("flows", [])
       if f.get("destqp") is not None}
check("summary: %d flows, packets per flow as sent %s" % (len(got), exp["flows"]), got == exp["flows"],
      "got %s" % got)
cap = summ.get("capture", {})
check("summary: capture statistics present, received %s, dropped %s" % (cap.get("received"), cap.get("dropped")),
      "received" in cap and cap.get("dropped") == 0 and cap.get("if_dropped") == 0, "capture %s" % cap)
check("snapshots carry the capture statistics", all("capture" in s for s in snaps))

# Prometheus: HELP/TYPE, per-flow packets, totals, drops per interface
def value(name, labels=None):
    for l in metrics.splitlines():
        if l.startswith("#"):
            continue
        m = re.match(r'^([a-z_]+)(\{[^}]*\})? (\S+)$', l)
        if not m or m.group(1) != name:
            continue
        lab = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        if labels is None or all(lab.get(k) == v for k, v in labels.items()):
            return float(m.group(3))
    return None
check("metrics: # HELP and # TYPE for rocetop_flow_packets_total",
      "# HELP rocetop_flow_packets_total " in metrics and "# TYPE rocetop_flow_packets_total counter" in metrics)
check("metrics: rocetop_frames_total %s = sent %d" % (value("rocetop_frames_total"), sent),
      value("rocetop_frames_total") == sent)
bad = []
for k, n in exp["flows"].items():
    src, dst, qp = k.split()
    v = value("rocetop_flow_packets_total", {"src": src, "dst": dst, "destqp": qp})
    if v != n:
        bad.append("%s: %s, want %d" % (k, v, n))
check("metrics: rocetop_flow_packets_total{src,dst,destqp,kind} per flow as sent", not bad, "; ".join(bad))
check("metrics: bytes, retransmissions, nak_seq_err per flow",
      value("rocetop_flow_bytes_total") is not None and value("rocetop_flow_retransmissions_total") is not None
      and value("rocetop_flow_nak_seq_err_total") is not None)
check("metrics: capture-wide retransmissions %s = summary %s" % (value("rocetop_retransmissions_total"),
      summ.get("totals", {}).get("retransmissions")),
      value("rocetop_retransmissions_total") == summ.get("totals", {}).get("retransmissions"))
check("metrics: drops per interface (vB1, vB2)",
      value("rocetop_capture_dropped_total", {"iface": "vB1"}) == 0
      and value("rocetop_capture_dropped_total", {"iface": "vB2"}) == 0
      and value("rocetop_capture_received_total", {"iface": "vB2"}) is not None)
check("metrics: PFC pauses by priority", value("rocetop_pfc_pauses_total", {"priority": "3"}) == 0)
check("metrics: nothing omitted (%s flows exported)" % value("rocetop_prometheus_flows_exported"),
      value("rocetop_prometheus_flows_omitted") == 0 and value("rocetop_prometheus_flows_exported") == len(exp["flows"]))
EOF
while IFS= read -r l; do
	case $l in
	"ok   "*) echo "$l"; oks=$((oks + 1)) ;;
	"FAIL "*) echo "$l"; fails=$((fails + 1)) ;;
	*) echo "$l" ;;
	esac
done <"$T/check"

# -w wrote every frame, as nobody
if [ -f "$T/nobody/saved.pcap" ] && [ "$(stat -c %U "$T/nobody/saved.pcap")" = nobody ]; then
	n=$("$R" -r "$T/nobody/saved.pcap" --packets | wc -l)
	if [ "$n" -eq "$((s1 + s2))" ]; then
		ok "-w saved the $n frames, in a file owned by nobody (-Z dropped root before -w opened it)"
	else
		fail "-w saved $n frames, want $((s1 + s2))"
	fi
else
	fail "-w file missing or not owned by nobody" "$(ls -l "$T/nobody" 2>&1)"
fi

# ---- a paced replay serves /metrics while it runs; the per-flow bound --------------------------
# (slow enough for python to start on a loaded machine; stopped once checked)
ip netns exec "$NB" "$R" -r "$CAP2" --speed 0.02 -b --json --prometheus 127.0.0.1:9465 \
	--prometheus-max-flows 1 >/dev/null 2>"$T/err2" &
RPID=$!
sleep 2
ip netns exec "$NB" python3 "$T/scrape.py" http://127.0.0.1:9465/metrics 100 >"$T/m2"
exported=$(sed -n 's/^rocetop_prometheus_flows_exported \([0-9]*\)$/\1/p' "$T/m2")
omitted=$(sed -n 's/^rocetop_prometheus_flows_omitted \([0-9]*\)$/\1/p' "$T/m2")
series=$(grep -c '^rocetop_flow_packets_total{' "$T/m2")
if [ "$exported" = 1 ] && [ "$omitted" = 1 ] && [ "$series" = 1 ] && grep -q '^# rocetop: 1 of 2 flows exported' "$T/m2"; then
	ok "--prometheus-max-flows 1: 1 flow exported, 1 omitted, and said so (during a --speed 0.02 replay)"
else
	fail "--prometheus-max-flows 1" "exported '$exported' omitted '$omitted' series $series" "$(head -c 300 "$T/err2")"
fi
ip netns exec "$NB" python3 - <<'EOF' && ok "HTTP: / answers 200, /nope 404, POST 405" || fail "HTTP status codes"
import socket, sys
def req(raw):
    s = socket.create_connection(("127.0.0.1", 9465), timeout=5)
    s.sendall(raw)
    r = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        r += d
    return r.split(b"\r\n", 1)[0]
ok = (req(b"GET / HTTP/1.0\r\n\r\n") == b"HTTP/1.0 200 OK" and
      req(b"GET /nope HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.0 404") and
      req(b"POST /metrics HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.0 405"))
sys.exit(0 if ok else 1)
EOF
kill -INT "$RPID"
wait "$RPID"
RPID=""
"$R" -r "$CAP2" --speed 0.1 -b --json >"$T/replay.json" 2>"$T/err2"
rc=$?
want=$("$R" -r "$CAP2" --json | tail -n 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"])')
got=$(tail -n 1 "$T/replay.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"])' 2>/dev/null)
if [ "$rc" = 0 ] && [ -n "$want" ] && [ "$want" = "$got" ]; then
	ok "--speed 0.1 replay: the same totals as a fast replay"
else
	fail "--speed 0.1 replay" "exit $rc" "want $want" "got $got"
fi

# ---- snapshots on a quiet link: -d 0.5 gives one every half second ----------------------------
# (the ring hands over its blocks when full or after a short timeout; with
# nothing on the wire the loop still wakes for the snapshots)
for mode in --json ""; do
	start=$(date +%s%N)
	# shellcheck disable=SC2086
	ip netns exec "$NB" "$R" -i vB1 -b -d 0.5 -n 2 $mode >"$T/idle" 2>"$T/e"
	rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	if [ -n "$mode" ]; then
		n=$(jq -r 'select(.type == "snapshot") | .n' "$T/idle" | wc -l)
	else
		n=$(grep -c '^rocetop [0-9]* - ' "$T/idle")
	fi
	if [ "$rc" = 0 ] && [ "$n" = 2 ] && [ "$ms" -lt 3000 ]; then
		ok "quiet link, -b -d 0.5 -n 2 ${mode:-(text)}: 2 snapshots in $ms ms"
	else
		fail "quiet link, -b -d 0.5 -n 2 ${mode:-(text)}" "exit $rc, $n snapshots, $ms ms" "$(cat "$T/e")"
	fi
done

# ---- the NIC's own discards (ethtool -S): a veth has none of mlx5's counters, so the
# default reports null; named counters it has are found (in the netdev's order, an
# unknown name left out) and counted from the capture's start: peer_ifindex is a
# constant, not 0, so its value since the start is 0
ip netns exec "$NB" "$R" -i vB1 -b --json -d 0.2 -n 1 >"$T/nd0" 2>"$T/e"
ip netns exec "$NB" "$R" -i vB1 -b --json -d 0.2 -n 1 --nic-drop-counters nosuch,rx_queue_0_drops,peer_ifindex \
	>"$T/nd1" 2>>"$T/e"
nd0=$(tail -n 1 "$T/nd0" | jq -c '[.capture.nic_dropped, .capture.interfaces[0].nic_dropped, .capture.interfaces[0].nic_counters]' 2>/dev/null)
nd1=$(tail -n 1 "$T/nd1" | jq -c '[.capture.nic_dropped, .capture.interfaces[0].nic_dropped, .capture.interfaces[0].nic_counters]' 2>/dev/null)
if [ "$nd0" = '[null,null,null]' ] && [ "$nd1" = '[0,0,"peer_ifindex,rx_queue_0_drops"]' ]; then
	ok "NIC discards: none of the default counters on a veth (null); --nic-drop-counters finds two of three, counted from the start (0)"
else
	fail "NIC discards from ethtool's statistics" "default: $nd0, named: $nd1" "$(cat "$T/e")"
fi

# ---- the ring in frames: --buffer-frames makes it larger than -B ---------------------------------
ip netns exec "$NB" "$R" -i vB1 -B 1024 --buffer-frames 50000 -b --json -d 0.2 -n 1 >"$T/rf" 2>"$T/e"
rf=$(tail -n 1 "$T/rf" | jq '.capture.ring_frames' 2>/dev/null)
ip netns exec "$NB" "$R" -i vB1 -B 1024 -b --json -d 0.2 -n 1 >"$T/rf1" 2>>"$T/e"
rf1=$(tail -n 1 "$T/rf1" | jq '.capture.ring_frames' 2>/dev/null)
"$R" -i vB1 --buffer-frames 0 -b >"$T/o" 2>"$T/e2"
rc=$?
if [ "${rf:-0}" -ge 50000 ] && [ "${rf1:-0}" -ge 8192 ] && [ "${rf1:-0}" -lt 50000 ] && [ "$rc" = 2 ] &&
	grep -q "buffer-frames" "$T/e2"; then
	ok "ring: -B 1024 --buffer-frames 50000 holds $rf MTU-sized frames, -B 1024 alone $rf1 (the default 8192 at least); --buffer-frames 0 refused"
else
	fail "ring in frames" "--buffer-frames 50000: '$rf', default: '$rf1', --buffer-frames 0: exit $rc" "$(cat "$T/e" "$T/e2")"
fi

# ---- drops are counted: a stopped rocetop with a two-block ring -------------------------------
# rocegen floods 20000 frames while rocetop is stopped: what the ring could
# not hold is dropped; every frame is either analysed or counted dropped
# (received by the socket counts both; a stray frame may come on top).
G=$BUILD/bin/rocegen
macB1=$(ip netns exec "$NB" cat /sys/class/net/vB1/address)
ip netns exec "$NB" "$R" -i vB1 -B 512 --buffer-frames 1 -b --json -d 100 --prometheus 127.0.0.1:9467 \
	>"$T/drop.json" 2>"$T/e" &
RPID=$!
wait_socket "$RPID"
kill -STOP "$RPID"
ip netns exec "$NA" "$G" flood -i vA1 --src 10.95.0.1 --dst 10.95.0.2 --dmac "$macB1" --count 20000 \
	--pps 100000 2>"$T/g" >/dev/null
kill -CONT "$RPID"
sent=$(sed -n 's/.* frames=\([0-9]*\) .* drops=\([0-9]*\) .*/\1 \2/p' "$T/g" | awk '{ print $1 - $2 }')
ip netns exec "$NB" python3 "$T/scrape.py" http://127.0.0.1:9467/metrics 50 >"$T/m4"
kill -INT "$RPID"
wait "$RPID"
rc=$?
RPID=""
read -r frames recv dropped freezes ifd ringf name < <(tail -n 1 "$T/drop.json" |
	jq -r '[.frames, .capture.received, .capture.dropped, .capture.freezes, .capture.if_dropped,
		.capture.ring_frames, .capture.interfaces[0].name] | @tsv')
if [ "$rc" = 0 ] && [ "${sent:-0}" -ge 19000 ] && [ "${dropped:-0}" -gt 0 ] && [ "${freezes:-0}" -gt 0 ] &&
	[ "${frames:-0}" -gt 0 ] && [ $((frames + dropped)) = "$recv" ] && [ $((recv + ifd - sent)) -ge 0 ] &&
	[ $((recv + ifd - sent)) -le 2 ] && [ "$name" = vB1 ]; then
	ok "drops counted: $sent sent = $recv received by the socket + $ifd by the interface; $recv = $frames analysed + $dropped dropped (ring of $ringf frames full $freezes times)"
else
	fail "drop accounting" "exit $rc, sent '$sent', $(tail -n 1 "$T/drop.json" | jq -c .capture)" "$(cat "$T/e" "$T/g")"
fi
pd=$(sed -n 's/^rocetop_capture_dropped_total{iface="vB1"} \([0-9]*\)$/\1/p' "$T/m4")
pf=$(sed -n 's/^rocetop_capture_ring_full_total{iface="vB1"} \([0-9]*\)$/\1/p' "$T/m4")
if [ -n "$pd" ] && [ "$pd" = "$dropped" ] && [ "${pf:-0}" -gt 0 ] && grep -q '^rocetop_capture_if_dropped_total{iface="vB1"} ' "$T/m4"; then
	ok "metrics: rocetop_capture_dropped_total $pd (= the summary), rocetop_capture_ring_full_total $pf, if_dropped"
else
	fail "metrics: capture drop counters" "$(grep '^rocetop_capture' "$T/m4")"
fi

# ---- headers only (-s 128): ICRC unchecked, not bad; the transport analysis unchanged ----------
ip netns exec "$NB" "$R" -i vB2 -s 128 -b --json -d 100 >"$T/s128.json" 2>"$T/e" &
RPID=$!
wait_socket "$RPID"
s2=$(ip netns exec "$NA" python3 "$T/send.py" send vA2 "$CAP2")
sleep 0.3
kill -INT "$RPID"
wait "$RPID"
RPID=""
full=$("$R" -r "$CAP2" --json | tail -n 1)
got=$(tail -n 1 "$T/s128.json")
q='[.icrc.good + .icrc.unchecked, .icrc.bad, .totals]'
if [ "$(jq -c "$q" <<<"$full")" = "$(jq -c "$q" <<<"$got")" ] && [ "$(jq '.icrc.bad' <<<"$got")" = 0 ] &&
	[ "$(jq '.icrc.unchecked' <<<"$got")" -gt 0 ] && [ "$(jq '.frames' <<<"$got")" = "$s2" ]; then
	ok "-s 128: $(jq -c .icrc <<<"$got"): ICRC unchecked rather than bad on cut frames, totals as with full frames"
else
	fail "-s 128" "full: $(jq -c "$q" <<<"$full")" "-s 128: $(jq -c "[.frames, $q]" <<<"$got")" "$(cat "$T/e")"
fi

# ---- a busy link: read a block at a time, every frame counted, -c exact inside a block ----------
# 30,000 frames at 30,000/s: every one analysed (a frame more may be a stray
# one), with a wakeup per ring block (a block is handed over full or after
# 20 ms), not per frame: fewer than one wakeup per 100 frames.  Then -c 1000
# during the same flood stops at exactly 1000 frames, in the middle of a block.
# wakeups PID: voluntary context switches of all its threads
wakeups() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ { n += $2 } END { print n + 0 }'; }
ip netns exec "$NB" "$R" -i vB1 -b --json -d 100 >"$T/busy.json" 2>"$T/e" &
RPID=$!
wait_socket "$RPID"
w0=$(wakeups "$RPID")
ip netns exec "$NA" "$G" flood -i vA1 --src 10.95.0.1 --dst 10.95.0.2 --dmac "$macB1" --count 30000 \
	--pps 30000 2>"$T/g" >/dev/null
sleep 0.3
w=$(($(wakeups "$RPID") - w0))
kill -INT "$RPID"
wait "$RPID"
rc=$?
RPID=""
sent=$(sed -n 's/.* frames=\([0-9]*\) .* drops=\([0-9]*\) .*/\1 \2/p' "$T/g" | awk '{ print $1 - $2 }')
read -r frames dropped < <(tail -n 1 "$T/busy.json" | jq -r '[.frames, .capture.dropped] | @tsv')
if [ "$rc" = 0 ] && [ "${sent:-0}" -ge 29000 ] && [ "${dropped:-1}" = 0 ] && [ "${frames:-0}" -ge "$sent" ] &&
	[ "$frames" -le $((sent + 2)) ] && [ "$w" -lt $((sent / 100)) ]; then
	ok "busy link: $frames of $sent frames analysed, none dropped, with $w wakeups (fewer than one per 100 frames)"
else
	fail "busy link read per block" "exit $rc, sent '$sent', analysed '$frames', dropped '$dropped', wakeups $w" "$(cat "$T/e" "$T/g")"
fi
ip netns exec "$NB" "$R" -i vB1 -b --json -c 1000 >"$T/c.json" 2>"$T/e" &
RPID=$!
wait_socket "$RPID"
ip netns exec "$NA" "$G" flood -i vA1 --src 10.95.0.1 --dst 10.95.0.2 --dmac "$macB1" --count 30000 \
	--pps 30000 2>"$T/g" >/dev/null
for _ in $(seq 100); do
	kill -0 "$RPID" 2>/dev/null || break
	sleep 0.1
done
kill -INT "$RPID" 2>/dev/null && echo "rocetop -c 1000 had not stopped by itself" >>"$T/e"
wait "$RPID"
rc=$?
RPID=""
frames=$(tail -n 1 "$T/c.json" | jq -r .frames)
if [ "$rc" = 0 ] && [ "$frames" = 1000 ] && [ ! -s "$T/e" ]; then
	ok "busy link: -c 1000 stopped by itself at $frames frames"
else
	fail "-c 1000 on a busy link" "exit $rc, frames '$frames'" "$(cat "$T/e")"
fi

# ---- errors ---------------------------------------------------------------------------------
ip netns exec "$NB" "$R" -i vB1 -b -n 1 -Z no-such-user-$$ >"$T/o" 2>"$T/e"
rc=$?
if [ "$rc" = 1 ] && grep -q "no-such-user" "$T/e" && [ ! -s "$T/o" ]; then
	ok "-Z unknown user: refuses to go on ($(head -n 1 "$T/e"))"
else
	fail "-Z unknown user" "exit $rc" "$(cat "$T/e")"
fi
ip netns exec "$NB" "$R" -i vB1 -i no-such-if$$ -b -n 1 >"$T/o" 2>"$T/e"
rc=$?
if [ "$rc" = 1 ] && grep -q "no-such-if$$" "$T/e"; then
	ok "-i of a missing interface: $(head -n 1 "$T/e")"
else
	fail "-i of a missing interface" "exit $rc" "$(cat "$T/e")"
fi
ip netns exec "$NB" "$R" -i vB1 -b -n 1 --prometheus 127.0.0.1 >"$T/o" 2>"$T/e"
rc=$?
if [ "$rc" = 2 ] && grep -q "ADDR:PORT" "$T/e"; then
	ok "--prometheus without a port: $(head -n 1 "$T/e")"
else
	fail "--prometheus without a port" "exit $rc" "$(cat "$T/e")"
fi

# ---- label values are escaped: an interface named q"b\c ------------------------------------------
if ip -n "$NB" link add 'q"b\c' type veth peer name qpeer 2>/dev/null; then
	ip -n "$NB" link set 'q"b\c' up
	ip -n "$NB" link set qpeer up
	ip netns exec "$NB" "$R" -i 'q"b\c' -b -d 1 --prometheus 127.0.0.1:9466 >"$T/o" 2>"$T/e" &
	RPID=$!
	ip netns exec "$NB" python3 "$T/scrape.py" http://127.0.0.1:9466/metrics 100 >"$T/m3"
	kill -INT "$RPID"
	wait "$RPID"
	RPID=""
	if grep -qF 'rocetop_capture_dropped_total{iface="q\"b\\c"} 0' "$T/m3"; then
		ok 'metrics: label value of interface q"b\c escaped as q\"b\\c'
	else
		fail "metrics: label escaping" "$(grep capture_dropped "$T/m3")" "$(cat "$T/e")"
	fi
fi

# ---- privileges: a non-root user with file capabilities (rocetop(8) PRIVILEGES) ----------------
if command -v setcap >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1 &&
	cp "$R" "$T/rocetop-caps" && setcap cap_net_raw,cap_net_admin=eip "$T/rocetop-caps" 2>/dev/null; then
	asnobody() { ip netns exec "$NB" setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups "$@"; }
	asnobody "$R" -i vB1 -b -n 1 -d 1 >"$T/o" 2>"$T/e"
	rc=$?
	if [ "$rc" = 1 ] && grep -q "give the binary cap_net_raw" "$T/e"; then
		ok "nobody without capabilities: refused, and told how ($(head -c 90 "$T/e")...)"
	else
		fail "nobody without capabilities" "exit $rc" "$(cat "$T/e")"
	fi
	# not through asnobody: $! must be rocetop itself, for kill -INT
	ip netns exec "$NB" setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups \
		"$T/rocetop-caps" -i vB1 -b -d 1 --json -Z nobody >"$T/o" 2>"$T/e" &
	RPID=$!
	wait_socket "$RPID"
	s1=$(ip netns exec "$NA" python3 "$T/send.py" send vA1 "$CAP1")
	sleep 0.3
	kill -INT "$RPID"
	wait "$RPID"
	rc=$?
	RPID=""
	n=$(tail -n 1 "$T/o" | python3 -c 'import json,sys; print(json.load(sys.stdin)["frames"])' 2>/dev/null)
	if [ "$rc" = 0 ] && [ "$n" = "$s1" ]; then
		ok "nobody with cap_net_raw,cap_net_admin=eip on the binary: captured the $n frames sent (-Z nobody sheds the capabilities)"
	else
		fail "nobody with file capabilities" "exit $rc, frames '$n', want $s1" "$(head -c 300 "$T/e")"
	fi
	asnobody "$T/rocetop-caps" -i vB1 -b -n 1 -d 1 -Z root >"$T/o" 2>"$T/e"
	rc=$?
	if [ "$rc" = 1 ] && grep -q "only root" "$T/e"; then
		ok "nobody asking -Z root: refused ($(head -n 1 "$T/e"))"
	else
		fail "nobody asking -Z root" "exit $rc" "$(cat "$T/e")"
	fi
else
	echo "live: file capabilities not checked (no setcap/setpriv, or no xattrs on $T)"
fi

echo "live: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
