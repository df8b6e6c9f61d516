#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make interop: the diagnosis's retransmission-timer verdicts on real rxe
# traffic (rocetop(8) DIAGNOSIS).
#
# Three runs.  Two between the soft-RoCE lab guests (vmb -> vma), each with netem
# loss on vmb's egress so that some requests and ACKs never arrive and rxe's
# retransmit timer fires, captured on the lab bridge:
#   - ib_write_lat -u 12 (perftest, no rdma_cm): both QPs' local ACK timeout
#     is 4.096 us x 2^12 = 16777.2 us.  vmb's lost requests are resent on
#     rxe's timer: against --ack-timeout 8 (1048.6 us) rocetop must raise
#     timeout_mismatch on vmb's QP with negotiated_us 1048.6; against 12 (its
#     -u) the verdict is printed, not asserted: rxe arms its timer at the
#     first unacknowledged packet and in whole jiffies, and the guests run
#     under TCG, so the silence after the last packet varies (a run of
#     2026-12-07: median 6.5 ms, from 1.1 to 24.7 ms).
#   - rping through rdma_cm: the CM REQ carries the local ACK timeout the QPs
#     use (tests/req_timeout.py reads it from the REQ's bytes); rocetop must
#     hold the waits against it, not against --ack-timeout: no
#     timeout_mismatch at ±25 %, and at --diag-tolerance 1 the verdict's
#     negotiated_us is 4.096 us x 2^t of that REQ.
#   - rocegen's responder withholding ACKs from vma's rxe requester (below,
#     ackw): its timeout resends, their waits against -u 15.
# INTEROP_DIAG_OUT=DIR keeps the captures, logs and counters (as
# captures/lab/roce_netem_diag_*: see captures/README.md).
# Keep the lab down between sessions: run under its lock,
#   flock -w 1800 /tmp/softroce-lab.lock tests/interop_diag.sh
#
# Skips (exit 0) without ../shared/softroce-lab or without root.
set -euo pipefail
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
L="$(pwd)/../shared/softroce-lab/lab"
R="$BUILD/bin/rocetop"
if [ ! -x "$L" ] || [ "$(id -u)" != 0 ]; then
	echo "interop_diag: skip (needs ../shared/softroce-lab and root)"
	exit 0
fi
[ -x "$R" ] || { echo "interop_diag: $R missing (make all)"; exit 1; }
T=$(mktemp -d)
OUT=${INTEROP_DIAG_OUT:-$T}
up_here=0
cleanup() {
	"$L" exec vmb -- tc qdisc del dev eth0 root >/dev/null 2>&1 || true
	if [ "$up_here" = 1 ]; then "$L" down >/dev/null 2>&1 || true; fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
"$L" build >/dev/null
"$L" status >/dev/null 2>&1 || up_here=1
"$L" up --mode rxe >/dev/null
LAB_MODE_WANT=rxe
# shellcheck source=tests/labnet.sh
. "$(dirname "$0")/labnet.sh"
labnet_heal 10.99.0.1 && labnet_heal 10.99.0.2 || { echo "FAIL the lab's guest network is down"; exit 1; }

fails=0 oks=0
# INTEROP_DIAG_CASES: the runs to make (default all three)
CASES=${INTEROP_DIAG_CASES:-write_lat_u12 rping_cm ack_withheld}
selected() { case " $CASES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
ok() { echo "ok   $*"; oks=$((oks + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# cap NAME "SERVER CMD" "CLIENT CMD" READY_PORT: one run with 10 % loss on vmb
cap() {
	local o="$OUT/$1" crc=0 src=0
	"$L" exec vmb -- tc qdisc del dev eth0 root >/dev/null 2>&1 || true
	"$L" exec vmb -- tc qdisc add dev eth0 root netem loss 10%
	"$L" capture start "$o.pcap" -- udp port 4791 or tcp port "$4" >/dev/null
	sleep 0.5
	"$L" counters vma >"$o.vma.before"
	"$L" counters vmb >"$o.vmb.before"
	{ echo "# vma: $2"; echo "# vmb: $3"; } >"$o.log"
	# shellcheck disable=SC2086
	"$L" exec --timeout 240 vma -- $2 >"$o.server.log" 2>&1 &
	local spid=$!
	"$L" exec vma -- "for i in \$(seq 100); do netstat -ltn | grep -q ':$4 ' && exit 0; sleep 0.2; done; exit 1" >/dev/null
	# shellcheck disable=SC2086
	"$L" exec --timeout 240 vmb -- $3 >"$o.client.log" 2>&1 || crc=$?
	# The client is done; under loss the server may never see the
	# disconnect (rping -s waited out its 240 s once): after 30 s it is
	# stopped, which the log says, and only the client's exit counts.
	local i
	for i in $(seq 60); do kill -0 "$spid" 2>/dev/null || break; sleep 0.5; done
	if kill -0 "$spid" 2>/dev/null; then
		"$L" exec vma -- pkill -x "${2%% *}" >/dev/null 2>&1 || true
		echo "# server still running 30 s after the client ended: stopped" >>"$o.server.log"
		wait "$spid" || true
	else
		wait "$spid" || src=$?
	fi
	"$L" counters vma >"$o.vma.after"
	"$L" counters vmb >"$o.vmb.after"
	"$L" capture stop "$o.pcap" >/dev/null
	"$L" exec vmb -- tc qdisc del dev eth0 root >/dev/null 2>&1 || true
	cat "$o.server.log" "$o.client.log" >>"$o.log"
	echo "# exit: server $src client $crc" >>"$o.log"
	[ "$crc" = 0 ] && [ "$src" = 0 ] || { fail "$1: exit server $src client $crc"; return 1; }
}

# verdict CAPTURE OPTIONS...: the timeout_mismatch verdicts, "severity negotiated_us n_waits median_us requester" each
verdict() {
	local c=$1
	shift
	"$R" -r "$c" --json "$@" | tail -n 1 | python3 -c 'import json, sys
for d in json.loads(sys.stdin.read())["diagnosis"]:
    if d["verdict"] == "timeout_mismatch":
        e = d["evidence"]
        print(d["severity"], e.get("negotiated_us"), len(e["waits_us"]), e["median_us"], d["subject"].split()[0])'
}

if selected write_lat_u12 && cap write_lat_u12 "ib_write_lat -d rxe0 -x 1 -F -u 12 -n 300" "ib_write_lat -d rxe0 -x 1 -F -u 12 -n 300 10.99.0.1" 18515; then
	c="$OUT/write_lat_u12.pcap"
	# netem drops 10 % of what vmb sends before the bridge: its requests
	# (resent on its rxe timer, the lost first copy never captured) and its
	# ACKs (vma's requests resent on vma's timer).  Which side's resends the
	# capture shows as timeouts varies from run to run (vmb's 29 on
	# 2026-12-07 at 12:50, 2 at 13:33; vma's 28 at 16:44), so the verdict is
	# the connection's, whichever end it names first: it must name
	# --ack-timeout 8's 1048.6 us, from one wait or more
	miss=$(verdict "$c" --ack-timeout 8)
	at12=$(verdict "$c" --ack-timeout 12)
	if echo "$miss" | grep -Eq '^warning 1048.6 [1-9][0-9]* '; then
		ok "ib_write_lat -u 12: timeout resends against --ack-timeout 8: $miss; against 12 (its -u): ${at12:-within ±25 %}"
	else
		fail "ib_write_lat -u 12: against --ack-timeout 8: '$miss'; against 12: '$at12'"
	fi
fi
# rping_cm_try first|last: one rping run and its check; 1 when it does not hold.
# On 8 Dec 2026 3 of 9 runs failed it (resends classed as timeouts, median
# waits of 69.8 ms, 1,161.8 ms and 49.4 ms against the REQ's 2,147.5 ms; the
# other 6 held, medians 2,169.8 to 2,283.9 ms), where every earlier run had
# held; rocetop from before that day gives the same verdicts on the kept
# captures. Why some runs show such resends is not known. So a run that does
# not hold is run once more, which the output says with what the first
# showed; a second failure fails.
rping_cm_try() {
	cap rping_cm "rping -s -a 10.99.0.1 -C 40 -S 1024" "rping -c -a 10.99.0.1 -C 40 -S 1024" 7174 || return 2
	c="$OUT/rping_cm.pcap"
	t=$(python3 tests/req_timeout.py "$c")
	want=$(python3 -c "print(round(4.096 * 2 ** int('${t:-0}'), 1))")
	none=$(verdict "$c")
	tight=$(verdict "$c" --diag-tolerance 1 --ack-timeout 8)
	if [ -n "$t" ] && [ -z "$none" ] && echo "$tight" | grep -q "^warning $want "; then
		ok "rping through rdma_cm: the REQ's timeout $t ($want us) read, not --ack-timeout; no timeout_mismatch at ±25 %; at ±1 %: $tight"
	elif [ "$1" = first ]; then
		echo "interop_diag: rping through rdma_cm, first run: REQ timeout '$t' ($want us); at ±25 %: '$none'; at ±1 %: '$tight'; running it once more"
		return 1
	else
		fail "rping through rdma_cm: REQ timeout '$t' ($want us); at ±25 %: '$none'; at ±1 %: '$tight'"
	fi
}
if selected rping_cm; then
	rc_cm=0
	rping_cm_try first || rc_cm=$?
	[ "$rc_cm" != 1 ] || rping_cm_try last || true
fi
# rocegen's responder withholding ACKs (rocegen server on the host side of
# br0, --fault drop/ack=@+3,times=3): vma's ib_write_bw -u 15 -t 1 (one
# one-packet WRITE in flight, local ACK timeout 4.096 us x 2^15 = 134217.7 us)
# gets no ACK for its 4th WRITE three times and resends it on rxe's
# retransmit timer each time; the 4th transmission is acknowledged.  From
# the capture on br0 rocetop must count exactly rocegen's withheld ACKs as
# timeout resends, all of that PSN; against --ack-timeout 15 no
# timeout_mismatch, against 12 (16777.2 us) one whose waits are the resends'
# and whose median is within ±25 % of 134217.7 us (rocetop(8) DIAGNOSIS has
# what rxe did: on 2026-12-07 132.3, 144.1 and 139.7 ms, the first 33 jiffies
# of 4 ms).  About 1 s of traffic; with the lab's boot about 90 s.
ackw() {
	local o="$OUT/ack_withheld" G spid src=0 crc=0 i
	G="$(pwd)/$BUILD/bin/rocegen"
	[ -x "$G" ] || { fail "ACKs withheld: $G missing (make all)"; return 1; }
	labnet_heal 10.99.0.1 || { fail "ACKs withheld: vma does not answer"; return 1; }
	"$L" capture start "$o.pcap" -- udp port 4791 or tcp port 18515 >/dev/null
	sleep 0.5
	"$L" host -- timeout 60 "$G" server -i br0 --peer 10.99.0.1 --oob perftest --size 1024 --json \
		--fault drop/ack=@+3,times=3 >"$o.json" 2>"$o.err" &
	spid=$!
	for i in $(seq 200); do grep -q "server: ready" "$o.err" 2>/dev/null && break; sleep 0.05; done
	"$L" exec --timeout 60 vma -- ib_write_bw -d rxe0 -x 1 -F -u 15 -t 1 -n 10 -s 1024 10.99.0.254 \
		>"$o.client.log" 2>&1 || crc=$?
	wait "$spid" || src=$?
	"$L" capture stop "$o.pcap" >/dev/null
	{ echo "# host: rocegen server -i br0 --peer 10.99.0.1 --oob perftest --size 1024 --fault drop/ack=@+3,times=3"
	  echo "# vma: ib_write_bw -d rxe0 -x 1 -F -u 15 -t 1 -n 10 -s 1024 10.99.0.254"
	  cat "$o.err" "$o.client.log"; echo "# exit: rocegen $src client $crc"; } >"$o.log"
	[ "$crc" = 0 ] && [ "$src" = 0 ] || { fail "ACKs withheld: exit rocegen $src client $crc: $(tail -n 3 "$o.log" | tr '\n' ' ')"; return 1; }
	"$R" -r "$o.pcap" --json --ack-timeout 15 | tail -n 1 >"$o.at15.json"
	"$R" -r "$o.pcap" --json --ack-timeout 12 | tail -n 1 >"$o.at12.json"
	"$R" -r "$o.pcap" --packets >"$o.packets"
	if python3 - "$o.json" "$o.at15.json" "$o.at12.json" "$o.packets" >"$T/ackw.res" 2>&1 <<'PY'
import json, re, statistics, sys
g = json.load(open(sys.argv[1]))
s15, s12 = (json.load(open(f)) for f in sys.argv[2:4])
drops = g["qp"]["faults"].get("drop", 0)
psn = (g["qp"]["remote_psn"] + 3) & 0xffffff
# vma's requests: its data QP's flow toward the host, where the resends are
fl = [f for f in s15["flows"] if f["src"] == "10.99.0.1" and f["dst"] == "10.99.0.254" and f["kind"] == "RC"
      and f["requests"]]
to = sum(f["retransmission_episodes"]["timeout"] for f in fl)
other = sum(sum(f["retransmission_episodes"].values()) - f["retransmission_episodes"]["timeout"] for f in fl)
resent = [int(m.group(1)) for l in open(sys.argv[4]) if "[retransmission]" in l and " 10.99.0.1." in l.split(">")[0]
          for m in [re.search(r" psn (\d+) ", l)] if m]
tm15 = [d for d in s15["diagnosis"] if d["verdict"] == "timeout_mismatch"]
tm12 = [d for d in s12["diagnosis"] if d["verdict"] == "timeout_mismatch" and d["subject"].startswith("10.99.0.1 ")]
spec = 4.096 * 2 ** 15
waits = tm12[0]["evidence"]["waits_us"] if tm12 else []
med = statistics.median(waits) if waits else 0
good = (drops == 3 and to == drops and other == 0 and resent == [psn] * drops and not tm15 and len(tm12) == 1
        and tm12[0]["evidence"]["negotiated_us"] == round(4.096 * 2 ** 12, 1) and len(waits) == drops
        and abs(med - spec) <= 0.25 * spec)
print("ACKs withheld: rocegen dropped %d ACKs of PSN %d; rocetop: %d timeout resends (%d others), PSNs %s; "
      "--ack-timeout 15: %d timeout_mismatch; 12: waits_us %s, median %.0f us vs 4.096 us x 2^15 = %.1f us (%+.1f %%)"
      % (drops, psn, to, other, resent, len(tm15), waits, med, spec,
         (med - spec) / spec * 100 if med else 0))
sys.exit(0 if good else 1)
PY
	then
		ok "$(cat "$T/ackw.res")"
	else
		fail "$(cat "$T/ackw.res")"
	fi
}
if selected ack_withheld; then ackw || true; fi
echo "interop_diag: $oks ok, $fails failed"
[ "$fails" = 0 ]
