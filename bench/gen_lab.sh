#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# gen_lab.sh — in the soft-RoCE lab: the message rate of `rocegen client`
# (host side, br0) driving RDMA WRITEs into a guest's ib_write_bw server,
# against the guests' own ib_write_bw between themselves (vmb → vma), same
# server, same size, same iteration count.  Both sides of the comparison
# end at the same responder (vma's rdma_rxe), so the ratio says how much of
# the guest pair's rate was the requester's own cost.
#
#   BUILD=build bench/gen_lab.sh        (root; ../shared/softroce-lab)
#   SIZES="64 4096" ITERS=5000 QD=16    (defaults)
#
# Prints one line per size and a table.  Uses the lab as it finds it (up or
# not; brought down at the end only if it was brought up here).
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
SIZES=${SIZES:-64 4096}
ITERS=${ITERS:-5000}
QD=${QD:-16}
if [ ! -x "$L" ] || [ "$(id -u)" != 0 ]; then
	echo "gen_lab: skip (needs ../shared/softroce-lab and root)"
	exit 0
fi
[ -x "$G" ] || { echo "gen_lab: $G missing (make all)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/gen_lab.XXXXXX")
up_here=0
cleanup() {
	if [ "$up_here" = 1 ]; then "$L" down >/dev/null 2>&1 || true; fi
	rm -rf "$T"
}
trap cleanup EXIT
"$L" build >/dev/null || exit 1
"$L" status >/dev/null 2>&1 || up_here=1
eval "$("$L" up --mode rxe)" || exit 1
PEER=${LAB_VMA_IP:-10.99.0.1}

server() {   # SIZE: ib_write_bw server on vma, waits until it listens
	"$L" exec --timeout 300 vma -- "ib_write_bw -d rxe0 -x 1 -F -n $ITERS -s $1" >"$T/server.log" 2>&1 &
	SPID=$!
	"$L" exec vma -- 'for i in $(seq 150); do netstat -ltn | grep -q ":18515 " && exit 0; sleep 0.1; done; exit 1' >/dev/null
}

# perftest's result line: "#bytes #iterations peak avg MsgRate"
pt_rate() {
	awk '$1 ~ /^[0-9]+$/ && NF >= 5 { r = $5; b = $4 } END { print (r ? r : 0), (b ? b : 0) }' "$1"
}

lines=()
for size in $SIZES; do
	server "$size"
	"$L" exec --timeout 300 vmb -- "ib_write_bw -d rxe0 -x 1 -F -n $ITERS -s $size $PEER" >"$T/guest.log" 2>&1
	grc=$?
	wait "$SPID"
	read -r g_rate g_bw < <(pt_rate "$T/guest.log")

	server "$size"
	"$L" host -- "$G" client -i br0 --peer "$PEER" --oob perftest --op write --size "$size" \
		--iters "$ITERS" --qd "$QD" --json >"$T/rocegen.json" 2>"$T/rocegen.err"
	rrc=$?
	wait "$SPID"
	read -r r_rate r_bw r_retx < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["msg_rate_mpps"], d["bw_avg_mbs"], d["qp"]["retransmitted"])' "$T/rocegen.json" 2>/dev/null || echo "0 0 0")
	ratio=$(python3 -c "import sys; g=float(sys.argv[1]); r=float(sys.argv[2]); print('%.2f' % (r / g) if g else 'n/a')" "$g_rate" "$r_rate")
	echo "gen_lab: ${size} B x $ITERS WRITEs into vma: guests (vmb ib_write_bw) ${g_rate} Mpps ${g_bw} MB/s (exit $grc); rocegen client (--qd $QD) ${r_rate} Mpps ${r_bw} MB/s, $r_retx retransmitted (exit $rrc); ratio ${ratio}x"
	lines+=("$(printf '%-8s %-8s %-18s %-14s %-18s %-14s %s' "$size" "$ITERS" "$g_rate" "$g_bw" "$r_rate" "$r_bw" "$ratio")")
done
echo
printf '%-8s %-8s %-18s %-14s %-18s %-14s %s\n' "#bytes" "#iters" "guests Mpps" "guests MB/s" "rocegen Mpps" "rocegen MB/s" "ratio"
for l in "${lines[@]}"; do echo "$l"; done
