#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make interop: rocetop's responder-side counters against the kernel's own.
#
# RC traffic between the soft-RoCE lab guests (perftest, vmb -> vma) with netem
# loss on the requester's side, on the responder's side, and duplication, for
# SEND, WRITE, READ and ATOMIC; captured on the lab bridge.  For every run,
# rocetop's duplicate_request and out_of_seq_request of the flows into each
# guest must equal that guest's rxe counters of the same names over the
# capture window, and nak_seq_err must equal its out_of_seq_request (rxe sends
# one PSN-sequence-error NAK per out-of-sequence episode).  A run where they
# differ and a guest's rxe counted fewer frames in (rcvd_pkts) than the capture
# holds to it runs once more: the two did not see the same frames.  (On 7
# December 2026 one run in four of ATOMIC with loss gave 22 duplicates in
# rocetop and none in rxe; its capture and rcvd_pkts were not kept, so whether
# that was such a run is not known: the line now says.)
#
# Skips (exit 0) without ../shared/softroce-lab or without root.
set -euo pipefail
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
L="$(pwd)/../shared/softroce-lab/lab"
R="$BUILD/bin/rocetop"
if [ ! -x "$L" ] || [ "$(id -u)" != 0 ]; then
	echo "interop_flow: skip (needs ../shared/softroce-lab and root)"
	exit 0
fi
[ -x "$R" ] || { echo "interop_flow: $R missing (make all)"; exit 1; }

T=$(mktemp -d)
up_here=0
cleanup() {
	if [ "$up_here" = 1 ]; then "$L" down >/dev/null 2>&1 || true; fi
	rm -rf "$T"
}
trap cleanup EXIT
"$L" build >/dev/null
if ! "$L" status >/dev/null 2>&1; then
	up_here=1
fi
# rxe mode, MTU 1500 (switches mode in place when the lab is up in another)
"$L" up --mode rxe >/dev/null
LAB_MODE_WANT=rxe
# shellcheck source=tests/labnet.sh
. "$(dirname "$0")/labnet.sh"

fails=0
run() {   # NAME NETEM_GUEST "NETEM ARGS" TOOL
	local name=$1 ng=$2 nargs=$3 tool=$4 args="-d rxe0 -x 1 -F -n 200"
	local o="$T/$name"
	"$L" exec vma -- tc qdisc del dev eth0 root >/dev/null 2>&1 || true
	"$L" exec vmb -- tc qdisc del dev eth0 root >/dev/null 2>&1 || true
	# shellcheck disable=SC2086
	[ "$ng" = none ] || "$L" exec "$ng" -- tc qdisc add dev eth0 root netem $nargs
	"$L" capture start "$o.pcap" -- udp port 4791 >/dev/null
	sleep 0.5
	"$L" counters vma >"$o.vma.before"
	"$L" counters vmb >"$o.vmb.before"
	# shellcheck disable=SC2086
	"$L" exec --timeout 150 vma -- $tool $args >"$o.server.log" 2>&1 &
	local spid=$!
	"$L" exec vma -- 'for i in $(seq 100); do netstat -ltn | grep -q ":18515 " && exit 0; sleep 0.2; done; exit 1' >/dev/null
	local crc=0
	# shellcheck disable=SC2086
	"$L" exec --timeout 150 vmb -- $tool $args 10.99.0.1 >"$o.client.log" 2>&1 || crc=$?
	local src=0
	wait "$spid" || src=$?
	"$L" counters vma >"$o.vma.after"
	"$L" counters vmb >"$o.vmb.after"
	"$L" capture stop "$o.pcap" >/dev/null
	[ "$ng" = none ] || "$L" exec "$ng" -- tc qdisc del dev eth0 root >/dev/null 2>&1 || true
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		echo "FAIL $name: $tool exited client $crc server $src"
		fails=$((fails + 1))
		return
	fi
	if ! "$R" -r "$o.pcap" --json >"$o.json" 2>"$o.err"; then
		echo "FAIL $name: rocetop: $(cat "$o.err")"
		fails=$((fails + 1))
		return
	fi
	local prc=0
	python3 - "$o" "$name" <<'PY' || prc=$?
import json, sys
base, name = sys.argv[1], sys.argv[2]
def counters(path):
    d = {}
    for line in open(path):
        k, _, v = line.strip().partition("=")
        if v.isdigit():
            d[k] = int(v)
    return d
summary = json.loads(open(base + ".json").read().splitlines()[-1])
out, bad = [], 0
for guest, ip in (("vma", "10.99.0.1"), ("vmb", "10.99.0.2")):
    before, after = counters(f"{base}.{guest}.before"), counters(f"{base}.{guest}.after")
    delta = {k: after[k] - before.get(k, 0) for k in after}
    flows = [f for f in summary["flows"] if f["dst"] == ip and f.get("kind") == "RC"]
    for ours, theirs in (("duplicate_request", "duplicate_request"),
                         ("out_of_seq_request", "out_of_seq_request"),
                         ("nak_seq_err", "out_of_seq_request")):
        got = sum(f.get(ours, 0) for f in flows)
        want = delta.get(theirs)
        ok = got == want
        bad += not ok
        out.append(f"{guest}.{ours} {got}/{want}{'' if ok else ' MISMATCH'}")
t = summary["totals"]
# A frame the capture holds but the guest's rxe never counted in (lost in the
# guest before rxe: its receive queue under TCG, a softirq backlog) is counted
# by rocetop and not by rxe: a retransmission of it then shows as a duplicate
# only here.  rcvd_pkts (counted after rxe's checks) equals the frames captured
# to the guest otherwise (tests/interop.sh); when it does not, the counts
# cannot be held against each other: exit 3, and run_case runs the case again.
unseen = []
for guest, ip in (("vma", "10.99.0.1"), ("vmb", "10.99.0.2")):
    before, after = counters(f"{base}.{guest}.before"), counters(f"{base}.{guest}.after")
    captured = sum(f.get("packets", 0) for f in summary["flows"] if f["dst"] == ip)
    rcvd = after.get("rcvd_pkts", 0) - before.get("rcvd_pkts", 0)
    if captured != rcvd:
        unseen.append(f"{guest}: {captured} frames captured to it, rxe rcvd_pkts {rcvd}")
print(("ok   " if not bad else "FAIL ") + name + ": rocetop/rxe " + ", ".join(out)
      + f"; retransmissions {t['retransmissions']}"
      + (f" ({'; '.join(unseen)}: not every captured frame reached rxe)" if bad and unseen else ""))
sys.exit(0 if not bad else 3 if unseen else 1)
PY
	if [ "$prc" != 0 ]; then
		fails=$((fails + 1))
		[ "$prc" != 3 ] || unseen=1
	fi
}

# both guests answer ping from br0 before a case; a case that fails while one
# of them has stopped answering (labnet.sh) runs once more on rebooted guests
run_case() {
	local f0=$fails
	{ labnet_heal 10.99.0.1 && labnet_heal 10.99.0.2; } || { echo "FAIL $1: the lab's guest network is down"; fails=$((fails + 1)); return; }
	unseen=0
	run "$@"
	if [ "$fails" != "$f0" ] && [ "$unseen" = 1 ]; then
		echo "interop_flow: $1: a guest's rxe missed captured frames; once more"
		fails=$f0
		unseen=0
		run "$@"
		[ "$fails" = "$f0" ] || return
	fi
	if [ "$fails" != "$f0" ] && ! { labnet_ok 10.99.0.1 && labnet_ok 10.99.0.2; }; then
		echo "labnet: $1 failed on a stalled guest network; once more after a reboot"
		fails=$f0
		labnet_reboot 10.99.0.1 || { echo "FAIL $1: the lab's guest network is down"; fails=$((fails + 1)); return; }
		run "$@"
	fi
}

run_case send_loss_req     vmb "loss 3%"      ib_send_bw
run_case send_loss_resp    vma "loss 3%"      ib_send_bw
run_case write_loss_req    vmb "loss 3%"      ib_write_bw
run_case write_loss_resp   vma "loss 3%"      ib_write_bw
run_case write_dup_req     vmb "duplicate 5%" ib_write_bw
run_case read_loss_req     vmb "loss 3%"      ib_read_bw
run_case read_loss_resp    vma "loss 3%"      ib_read_bw
run_case atomic_loss_req   vmb "loss 3%"      ib_atomic_bw
run_case atomic_loss_resp  vma "loss 3%"      ib_atomic_bw

echo "interop_flow: $((9 - fails)) ok, $fails failed"
[ "$fails" = 0 ]
