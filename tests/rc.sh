#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: timing
#
# rc.sh — `rocegen client` against `rocegen server` across a veth pair
# between two network namespaces this script makes (root; skipped without).
#
#   BUILD=build tests/rc.sh
#
#   a. --oob none (every QP attribute from the command line) for send,
#      write, read, cmp_swap and fetch_add at 1, 4096 and 65536 bytes, with
#      faults on both sides (drop 2%, duplicate 1%, reorder 1%, one request
#      dropped at an exact PSN, --seed): both exit 0, every operation
#      completed, the data checked end to end
#        send       client's CRC-32 of what it sent == server's of what it got
#        write      client's CRC-32 of the slots it wrote == server's region
#        read       every byte read == the server region's known pattern
#        atomics    each original value exactly once (0, 1, 2, …) and the
#                   server's counter == --iters
#      and retransmissions > 0 in the client's JSON report;
#   b. --oob pingpong (ibv_rc_pingpong's exchange; the server echoes every
#      SEND, the client checks the echo), with the same faults;
#   c. --oob perftest (perftest 6.06's exchange) for write and send;
#   d. --oob cm (rdma_cm REQ/REP/RTU … DREQ/DREP over QP1) with rping's
#      protocol;
#   e. a refused case: --oob none against a server that is not there ends
#      with retry-exceeded and exit status 1.
#
# Prints "ok"/"FAIL" per check; exit 1 when any check fails.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
GEN=$BUILD/bin/rocegen
[ -x "$GEN" ] || { echo "rc: $GEN not built" >&2; exit 2; }
command -v python3 >/dev/null || { echo "rc: python3 needed" >&2; exit 2; }

if [ "$(id -u)" != 0 ]; then
	echo "skip rc.sh (needs root for network namespaces)"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/rc.XXXXXX") || exit 2
NSA=rcA$$
NSB=rcB$$
VA=rcva$$
VB=rcvb$$
A=10.98.$(($$ % 200 + 10)).1
B=10.98.$(($$ % 200 + 10)).2
SPID=""
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! ip netns add "$NSA" 2>/dev/null; then
	echo "skip rc.sh (ip netns does not work here)"
	exit 0
fi
ip netns add "$NSB"
ip link add "$VA" type veth peer name "$VB"
ip link set "$VA" netns "$NSA"
ip link set "$VB" netns "$NSB"
ip -n "$NSA" addr add "$A/24" dev "$VA"
ip -n "$NSB" addr add "$B/24" dev "$VB"
for ns in "$NSA" "$NSB"; do ip -n "$ns" link set lo up; done
ip -n "$NSA" link set "$VA" up
ip -n "$NSB" link set "$VB" up

fails=0 oks=0
ok() {
	echo "ok   $1"
	oks=$((oks + 1))
}
fail() {
	echo "FAIL $1"
	shift
	for l; do printf '     %s\n' "$l"; done
	fails=$((fails + 1))
}

# Starts the server in B, waits for its "ready" line, runs the client in A.
# pair NAME "SERVER ARGS" "CLIENT ARGS": sets crc/src and leaves
# $T/NAME.{c,s}.{json,err}
pair() {
	local name=$1 sargs=$2 cargs=$3 i
	rm -f "$T/$name".*
	# shellcheck disable=SC2086
	ip netns exec "$NSB" "$GEN" server -i "$VB" --peer "$A" --timeout 30 --json $sargs \
		>"$T/$name.s.json" 2>"$T/$name.s.err" &
	SPID=$!
	for i in $(seq 200); do
		grep -q "server: ready" "$T/$name.s.err" 2>/dev/null && break
		kill -0 "$SPID" 2>/dev/null || break
		sleep 0.02
	done
	# shellcheck disable=SC2086
	ip netns exec "$NSA" "$GEN" client -i "$VA" --peer "$B" --timeout 40 --json $cargs \
		>"$T/$name.c.json" 2>"$T/$name.c.err"
	crc=$?
	wait "$SPID"
	src=$?
	SPID=""
}

# check NAME WHAT... : python checks over both JSON reports
cat >"$T/check.py" <<'EOF'
import json, sys
name, T, what = sys.argv[1], sys.argv[2], sys.argv[3:]
def load(p):
    try:
        with open(p) as f:
            return json.loads(f.read())
    except Exception as e:
        print("cannot read %s: %s" % (p, e)); sys.exit(1)
c = load("%s/%s.c.json" % (T, name)); s = load("%s/%s.s.json" % (T, name))
bad = []
def want(cond, msg):
    if not cond: bad.append(msg)
want(c["ok"] and s["ok"], "ok: client %s server %s (%s / %s)" % (c["ok"], s["ok"], c["error"], s["error"]))
want(c["completed"] == c["iters"] and c["failed"] == 0,
     "client completed %d of %d, failed %d" % (c["completed"], c["iters"], c["failed"]))
want(c["data"]["mismatches"] == 0, "client data mismatches %d" % c["data"]["mismatches"])
# both sides report a peak bandwidth when data moved (the server's from its frames)
for side, r in (("client", c), ("server", s)):
    if r.get("bytes", 0) > 0 and r.get("seconds", 0) > 0:
        want(r["bw_peak_mbs"] > 0, "%s bw_peak_mbs %s with %d bytes" % (side, r["bw_peak_mbs"], r["bytes"]))
for w in what:
    if w == "crc=crc":
        want(c["data"].get("crc") == s["data"].get("crc"),
             "crc: client %s server %s" % (c["data"].get("crc"), s["data"].get("crc")))
    elif w == "crc=region":
        want(c["data"].get("crc") == s["data"].get("region_crc"),
             "crc: client %s server region %s" % (c["data"].get("crc"), s["data"].get("region_crc")))
    elif w == "verified":
        want(c["data"]["verified"], "client did not verify the data")
    elif w == "counter":
        want(c["data"].get("counter") == c["iters"] == s["data"].get("counter"),
             "counter: client %s server %s iters %d" % (c["data"].get("counter"), s["data"].get("counter"), c["iters"]))
    elif w == "retx":
        want(c["qp"]["retransmitted"] > 0, "no retransmission in the client's report")
        want(sum(c["qp"]["faults"].values()) > 0 and sum(s["qp"]["faults"].values()) > 0,
             "faults did not fire on both sides")
    elif w.startswith("server_completed="):
        n = int(w.split("=")[1])
        want(s["completed"] == n, "server completed %d, want %d" % (s["completed"], n))
    else:
        bad.append("unknown check " + w)
if bad:
    print("; ".join(bad)); sys.exit(1)
print("retx %d (timeout %d nak %d implied %d), dup_rsp %d, %.3f s" % (
    c["qp"]["retransmitted"], c["qp"]["retx_pkts"]["timeout"], c["qp"]["retx_pkts"]["nak"],
    c["qp"]["retx_pkts"]["implied"], c["qp"]["dup_rsp_rx"], c["seconds"]))
EOF

judge() {
	local name=$1 out
	shift
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		fail "$name: exit client $crc server $src" "$(grep -h "rocegen" "$T/$name.c.err" "$T/$name.s.err" | head -4)"
		return
	fi
	if out=$(python3 "$T/check.py" "$name" "$T" "$@"); then
		ok "$name: $out"
	else
		fail "$name" "$out"
	fi
}

FAULTS="--fault drop=2% --fault dup=1% --fault reorder=1% --ack-timeout 10"
QP="--rkey 0x1234 --va 0x10000"

# ---- a. --oob none, faults on -------------------------------------------------------------

for op in send write read cmp_swap fetch_add; do
	case $op in
	send) chk="crc=crc" ;;
	write) chk="crc=region" ;;
	read) chk="verified" ;;
	*) chk="counter verified" ;;
	esac
	for size in 1 4096 65536; do
		case $op in cmp_swap | fetch_add) [ "$size" = 1 ] || continue ;; esac
		iters=100 qd=8 faults=$FAULTS
		# 64-packet messages, 4 in flight: with a 4 ms ACK timeout a
		# sender descheduled for 8 timeouts in a row (a loaded CI
		# machine) exhausts its retries; 16 ms keeps the faults' recovery
		# and stops testing the scheduler
		[ "$size" = 65536 ] && iters=24 qd=4 faults="${FAULTS/--ack-timeout 10/--ack-timeout 12}"
		name="none-$op-$size"
		common="--oob none --op $op --size $size --iters $iters $QP $faults"
		pair "$name" \
			"$common --qpn 0x100 --psn 0xfffff0 --remote-qpn 0x200 --remote-psn 1000 --seed 7 --fault drop/ack=@+2,times=1" \
			"$common --qpn 0x200 --psn 1000 --remote-qpn 0x100 --remote-psn 0xfffff0 --qd $qd --seed 3 --fault drop/req=@+3,times=1"
		# shellcheck disable=SC2086
		judge "$name" $chk retx
	done
done

# ---- b. --oob pingpong, faults on ----------------------------------------------------------

for size in 1 4096 65536; do
	iters=100
	[ "$size" = 65536 ] && iters=20
	name="pingpong-$size"
	pair "$name" "--oob pingpong --size $size --iters $iters $FAULTS --seed 11" \
		"--oob pingpong --size $size --iters $iters $FAULTS --seed 5 --fault drop/req=@+1,times=1"
	judge "$name" crc=crc verified retx "server_completed=$iters"
done

# ---- c. --oob perftest ---------------------------------------------------------------------

for op in write send; do
	name="perftest-$op"
	pair "$name" "--oob perftest --size 4096" "--oob perftest --op $op --size 4096 --iters 200 --qd 16"
	if [ "$op" = send ]; then
		judge "$name" crc=crc server_completed=200
	else
		judge "$name" crc=region
	fi
done

# ---- d. --oob cm: rping's protocol ------------------------------------------------------------

name=cm-rping
pair "$name" "--oob cm --size 64" "--oob cm --app rping --size 64 --iters 10 $FAULTS --seed 9"
judge "$name" verified server_completed=10

# ---- e. nobody there ---------------------------------------------------------------------------------

ip netns exec "$NSA" "$GEN" client -i "$VA" --peer "$B" --oob none --op write --size 64 --iters 3 \
	--remote-qpn 0x100 --remote-psn 0 $QP --ack-timeout 8 --retry 2 --json >"$T/refused.json" 2>"$T/refused.err"
rc=$?
if [ "$rc" = 1 ] && grep -q "retry-exceeded" "$T/refused.err" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if not d["ok"] and d["failed"]==3 and d["qp"]["timeouts"]==3 else 1)' "$T/refused.json"; then
	ok "no server: retry-exceeded after 3 timeouts, exit 1"
else
	fail "no server: exit $rc" "$(head -3 "$T/refused.err")"
fi

echo "rc: $oks ok, $fails failed"
[ "$fails" = 0 ]
