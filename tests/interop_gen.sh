#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# interop_gen.sh — make interop: `rocegen client` and `rocegen server` on the
# lab's host side (br0, 10.99.0.254) against the real rdma_rxe RC stack of a
# soft-RoCE lab guest (vma, 10.99.0.1) and its standard tools.
#
#   rocegen client  →  ibv_rc_pingpong -g 1          (--oob pingpong)
#                      ib_write_bw / ib_read_bw / ib_atomic_bw (both atomics)
#                      / ib_send_bw -x 1             (--oob perftest)
#                      rping -s, ib_write_bw -R, ucmatose   (--oob cm)
#   guest clients   →  rocegen server: ibv_rc_pingpong -g 1 10.99.0.254,
#                      ib_{write,read,send,atomic}_bw -x 1 10.99.0.254,
#                      rping -c -a 10.99.0.254, ib_{write,read,send}_bw -R
#                      10.99.0.254, ucmatose -s 10.99.0.254   (--oob cm)
#
# Every one must complete: exit 0 on both sides, every operation done, the
# data checked where rocegen can (pingpong and rping echo it back).
#
# Faults, against ibv_rc_pingpong on vma with one-packet SENDs and one
# message in flight, so each rxe counter's move is exact (vma's counters
# around the run):
#   a request's PSN pushed 3 ahead, once  → out_of_seq_request +1 and exactly
#                                           one PSN-sequence-error NAK back
#   a request sent twice, once            → duplicate_request +1
#   a request with a bad ICRC, once       → dropped silently: rcvd_pkts grows
#                                           by our frames minus that one, no
#                                           NAK for it (our ACK timer resends)
#
# Prints a table (peer tool, rocegen side, op, result, counters).  Skips
# (exit 0) without ../shared/softroce-lab/lab or root.  If the lab is already
# up it is used as it is and left up; else it is brought up (rxe) and taken
# down at the end.
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
root=$(pwd)
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
L="$root/../shared/softroce-lab/lab"
G="$BUILD/bin/rocegen"
if [ ! -x "$L" ] || [ "$(id -u)" != 0 ]; then
	echo "interop_gen: skip (needs ../shared/softroce-lab and root)"
	exit 0
fi
[ -x "$G" ] || { echo "interop_gen: $G missing (make all)"; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/interop_gen.XXXXXX")
up_here=0
cleanup() {
	if [ "$up_here" = 1 ]; then "$L" down >/dev/null 2>&1 || true; fi
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
t0=$(date +%s)
"$L" build >/dev/null || { echo "interop_gen: lab build failed"; exit 1; }
"$L" status >/dev/null 2>&1 || up_here=1
eval "$("$L" up --mode rxe)" || { echo "interop_gen: lab up failed"; exit 1; }
LAB_MODE_WANT=rxe
# shellcheck source=tests/labnet.sh
. "$root/tests/labnet.sh"
PEER=${LAB_VMA_IP:-10.99.0.1}
IF=${LAB_BRIDGE:-br0}
HOST=${LAB_HOST_IP:-10.99.0.254}

fails=0
ROWS=()
row() {   # PEER_TOOL SIDE OP RESULT DETAIL
	ROWS+=("$(printf '%-58s %-16s %-12s %-5s %s' "$1" "$2" "$3" "$4" "$5")")
	[ "$4" = ok ] || fails=$((fails + 1))
	printf '%-5s %s / %s / %s: %s\n' "$4" "$1" "$2" "$3" "$5"
}

# a case's row, kept until run_case knows whether it stands
result() { LAST=("$@"); }

# run_case client_case|server_case ARGS...: one case, after making sure vma
# answers ping from br0 (labnet.sh).  A case that fails while vma has stopped
# answering is run once more on rebooted guests, and its row says so; a case
# that fails with vma still reachable stands as it is.
run_case() {
	local again=""
	labnet_heal "$PEER" || { row "case $2" "-" "-" FAIL "the lab's guest network is down: $LABNET_REBOOTS reboot(s) did not bring it back"; return; }
	"$@"
	if [ "${LAST[3]}" != ok ] && ! labnet_ok "$PEER"; then
		echo "labnet: first try failed: ${LAST[4]}"
		if labnet_reboot "$PEER"; then
			"$@"
			again=" (second try: the first ran into a stalled guest network, lab rebooted)"
		fi
	fi
	row "${LAST[0]}" "${LAST[1]}" "${LAST[2]}" "${LAST[3]}" "${LAST[4]}$again"
}

# what rocegen's JSON says, for the table
summary() {
	python3 - "$1" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("no report (%s)" % e); sys.exit(0)
q = d.get("qp", {})
s = "%s %d/%d" % ("done" if d["ok"] else "FAILED", d["completed"], d["iters"])
if d["data"].get("verified"):
    s += ", data verified"
if d["data"].get("mismatches"):
    s += ", %d MISMATCHES" % d["data"]["mismatches"]
s += ", %.2f MB/s" % d["bw_avg_mbs"]
if d.get("latency_us"):
    s += ", lat typ %.0f us" % d["latency_us"]["typical"]
if q.get("retransmitted"):
    s += ", retx %d" % q["retransmitted"]
if q.get("timeouts"):
    s += ", timeouts %d" % q["timeouts"]
if q.get("dup_req_rx"):
    s += ", dup in %d" % q["dup_req_rx"]
if d.get("peer"):
    s += " [%s]" % d["peer"]
print(s)
EOF
}

wait_tcp() {
	"$L" exec vma -- 'for i in $(seq 150); do netstat -ltn | grep -q ":18515 " && exit 0; sleep 0.1; done; exit 1' >/dev/null
}
wait_cm() {
	"$L" exec vma -- 'for i in $(seq 150); do rdma res show cm_id | grep -q LISTEN && exit 0; sleep 0.1; done; exit 1' >/dev/null
}

# client_case NAME "GUEST SERVER COMMAND" tcp|cm "ROCEGEN CLIENT ARGS"
client_case() {
	local name=$1 cmd=$2 ready=$3 args=$4 grc crc gpid
	"$L" exec --timeout 90 vma -- "$cmd" >"$T/$name.guest.log" 2>&1 &
	gpid=$!
	if [ "$ready" = tcp ]; then wait_tcp; else wait_cm; fi
	# shellcheck disable=SC2086
	"$L" host -- timeout 90 "$G" client -i "$IF" --peer "$PEER" --json $args \
		>"$T/$name.json" 2>"$T/$name.err"
	crc=$?
	wait "$gpid"
	grc=$?
	if [ "$crc" = 0 ] && [ "$grc" = 0 ]; then
		result "$cmd" "client $(echo "$args" | grep -o -- '--oob [a-z]*' | cut -c7-)" "$5" ok "$(summary "$T/$name.json")"
	else
		result "$cmd" "client" "$5" FAIL "guest exit $grc, rocegen exit $crc: $(grep -h -m2 'rocegen' "$T/$name.err" | tr '\n' ' ') ($(summary "$T/$name.json")) $(tail -n 2 "$T/$name.guest.log" | tr '\n' ' ')"
	fi
}

# server_case NAME "ROCEGEN SERVER ARGS" "GUEST CLIENT COMMAND" OP
server_case() {
	local name=$1 args=$2 cmd=$3 spid grc src i
	# shellcheck disable=SC2086
	"$L" host -- timeout 90 "$G" server -i "$IF" --peer "$PEER" --json $args \
		>"$T/$name.json" 2>"$T/$name.err" &
	spid=$!
	for i in $(seq 200); do
		grep -q "server: ready" "$T/$name.err" 2>/dev/null && break
		sleep 0.05
	done
	"$L" exec --timeout 90 vma -- "$cmd" >"$T/$name.guest.log" 2>&1
	grc=$?
	wait "$spid"
	src=$?
	if [ "$src" = 0 ] && [ "$grc" = 0 ]; then
		result "$cmd" "server $(echo "$args" | grep -o -- '--oob [a-z]*' | cut -c7-)" "$4" ok "$(summary "$T/$name.json")"
	else
		result "$cmd" "server" "$4" FAIL "guest exit $grc, rocegen exit $src: $(grep -h -m2 'rocegen' "$T/$name.err" | tr '\n' ' ') $(tail -n 2 "$T/$name.guest.log" | tr '\n' ' ')"
	fi
}

PT="-d rxe0 -x 1 -F -n 200"
# 64 KiB messages 8 deep are 512 frames in flight: a TCG guest that stalls (host CPU busy) lets
# the default ACK timeout (14: 67 ms) run out 8 times in a row, and rocegen ends the run with
# retry-exceeded (once in a full run, at write #135 of 200 against ib_write_bw -R). Exponent 16
# (268 ms) rides out a 2 s stall; a real loss costs 268 ms instead of 67.
BIG="--qd 8 --ack-timeout 16"

# ---- rocegen client against the guest's servers ------------------------------------------------

run_case client_case pp "ibv_rc_pingpong -d rxe0 -g 1 -n 200 -s 4096" tcp "--oob pingpong --size 4096 --iters 200" send
run_case client_case wbw "ib_write_bw $PT -s 65536" tcp "--oob perftest --op write --size 65536 --iters 200 $BIG" write
run_case client_case rbw "ib_read_bw $PT -s 65536" tcp "--oob perftest --op read --size 65536 --iters 200 $BIG" read
run_case client_case fab "ib_atomic_bw $PT -A FETCH_AND_ADD" tcp "--oob perftest --op fetch_add --iters 200 --qd 8" fetch_add
run_case client_case cab "ib_atomic_bw $PT -A CMP_AND_SWAP" tcp "--oob perftest --op cmp_swap --iters 200 --qd 8" cmp_swap
run_case client_case sbw "ib_send_bw $PT -s 4096" tcp "--oob perftest --op send --size 4096 --iters 200 --qd 8" send
run_case client_case rps "rping -s -a $PEER -C 20 -S 200 -v" cm "--oob cm --app rping --size 200 --iters 20" rping
run_case client_case wbr "ib_write_bw -d rxe0 -R -F -n 200 -s 65536" cm "--oob cm --app perftest --op write --size 65536 --iters 200 $BIG" write
run_case client_case ucm "ucmatose -C 10" cm "--oob cm --app ucmatose --size 100 --iters 10" send

# ---- the guest's clients against rocegen server -------------------------------------------------

run_case server_case spp "--oob pingpong --size 4096 --iters 200" "ibv_rc_pingpong -d rxe0 -g 1 -n 200 -s 4096 $HOST" send
run_case server_case swb "--oob perftest --size 65536" "ib_write_bw $PT -s 65536 $HOST" write
run_case server_case srb "--oob perftest --size 65536" "ib_read_bw $PT -s 65536 $HOST" read
run_case server_case ssb "--oob perftest --size 4096" "ib_send_bw $PT -s 4096 $HOST" send
run_case server_case sab "--oob perftest" "ib_atomic_bw $PT -A FETCH_AND_ADD $HOST" fetch_add
run_case server_case srp "--oob cm --size 200" "rping -c -a $HOST -C 20 -S 200 -v" rping
run_case server_case swr "--oob cm --port 18515 --op write --size 65536" "ib_write_bw -d rxe0 -R -F -n 200 -s 65536 $HOST" write
run_case server_case srr "--oob cm --port 18515 --op read --size 65536" "ib_read_bw -d rxe0 -R -F -n 200 -s 65536 $HOST" read
run_case server_case ssr "--oob cm --port 18515 --op send --size 65536" "ib_send_bw -d rxe0 -R -F -n 200 -s 65536 $HOST" send
run_case server_case suc "--oob cm --port 7471 --size 100 --iters 10" "ucmatose -s $HOST -C 10" send

# ---- faults: rxe's counters move exactly as the spec says ----------------------------------------

cnt() { "$L" counters vma | grep -E '^(rcvd_pkts|sent_pkts|duplicate_request|out_of_seq_request)=' >"$1"; }
labnet_heal "$PEER"
cnt "$T/before"
client_case flt "ibv_rc_pingpong -d rxe0 -g 1 -n 30 -s 512" tcp \
	"--oob pingpong --size 512 --iters 30 --psn 0x10 --fault psn-jump/req=@+5,arg=3,times=1 --fault dup/req=@+11,times=1 --fault corrupt/req=@+17,times=1" \
	"send+faults"
row "${LAST[0]}" "${LAST[1]}" "${LAST[2]}" "${LAST[3]}" "${LAST[4]}"
cnt "$T/after"
python3 - "$T/before" "$T/after" "$T/flt.json" >"$T/faults.out" <<'EOF'
import json, sys
def kv(p):
    return {l.split("=")[0]: int(l.split("=")[1]) for l in open(p) if "=" in l}
b, a = kv(sys.argv[1]), kv(sys.argv[2])
d = {k: a[k] - b[k] for k in a}
try:
    r = json.load(open(sys.argv[3]))
except Exception:
    print("FAIL|no rocegen report|"); sys.exit(0)
q, w = r["qp"], r["wire"]
naks = q["nak_rx"]["seq"]
rows = [
    ("PSN gap (psn-jump +3, once)",
     d["out_of_seq_request"] == 1 and naks == 1 and q["faults"]["psn-jump"] == 1,
     "out_of_seq_request +%d (want +1), PSN-sequence NAKs received %d (want 1), go-back-N retransmitted %d"
     % (d["out_of_seq_request"], naks, q["retx_pkts"]["nak"])),
    ("duplicate request (once)",
     d["duplicate_request"] == 1 and q["faults"]["dup"] == 1,
     "duplicate_request +%d (want +1)" % d["duplicate_request"]),
    ("bad ICRC (once)",
     d["rcvd_pkts"] == w["tx_frames"] - 1 and q["faults"]["corrupt"] == 1 and naks == 1 and q["timeouts"] >= 1,
     "rcvd_pkts +%d = our %d frames - 1 (silently dropped; no NAK, our timer resent it after %d timeout(s))"
     % (d["rcvd_pkts"], w["tx_frames"], q["timeouts"])),
    ("rxe sent_pkts = what we received",
     d["sent_pkts"] == w["rx_roce"],
     "sent_pkts +%d, rocegen received %d RoCE frames" % (d["sent_pkts"], w["rx_roce"])),
]
for name, good, detail in rows:
    print("%s|%s|%s" % ("ok" if good else "FAIL", name, detail))
EOF
while IFS='|' read -r res what detail; do
	row "ibv_rc_pingpong (vma counters)" "client pingpong" "$what" "$res" "$detail"
done <"$T/faults.out"

echo
printf '%-58s %-16s %-12s %-5s %s\n' "peer (in vma)" "rocegen" "op" "result" "detail"
for r in "${ROWS[@]}"; do echo "$r"; done
echo "interop_gen: $((${#ROWS[@]} - fails)) ok, $fails failed, $(($(date +%s) - t0)) s"
[ "$fails" = 0 ]
