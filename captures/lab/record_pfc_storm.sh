#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Records captures/lab/roce_pfc_storm.{pcap,counters,log}: a PFC storm on a
# real RoCE conversation.  vmb runs ib_send_bw against vma (RC SEND, 300 x
# 4 KiB, default perftest settings); as soon as the first RoCE packet crosses
# br0 (a tcpdump -c 1 on the host side waits for it), the host side of the
# lab sends, on br0, one PFC XOFF for priority 3 (65535 quanta: 335.5 us at
# the analyzer's default 100 Gb/s) every 50 us for 0.8 s with `rocegen flood
# --pfc-storm`: the storm a switch sees when a port holds a priority paused.  The bridge does not
# forward 01-80-C2-00-00-01 and the guests' virtio NICs ignore PFC, so the
# RoCE traffic goes on; the capture holds both.  rocegen runs at SCHED_FIFO
# priority 50 (chrt): on a loaded machine a sender at normal priority was
# descheduled for up to 20 ms, and a gap longer than one pause (335.5 us)
# ends the storm.
# Done as `lab scenario` does it: capture on br0, counter deltas of both guests
# read after tcpdump starts and before it stops.
# Needs: root, a running lab in rxe mode (MTU 1500), a build of rocegen
# (ROCEGEN, default build/bin/rocegen of this tree).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
L=${L:-$(cd "$here/../../../shared/softroce-lab" && pwd)/lab}
G=${ROCEGEN:-$(cd "$here/../.." && pwd)/build/bin/rocegen}
OUT=${1:-$here/roce_pfc_storm.pcap}
base=${OUT%.pcap}
eval "$("$L" status)"
[ "$LAB_MODE" = rxe ] && [ "$LAB_MTU" = 1500 ] || { echo "need: lab up --mode rxe --mtu 1500" >&2; exit 1; }
SRV="ib_send_bw -d rxe0 -x 1 -F -n 300 -s 4096"
CLI="$SRV $LAB_VMA_IP"
STORM="chrt -f 50 $G flood --pfc-storm --prio 3 --quanta 65535 --interval-us 50 -i $LAB_BRIDGE --duration 0.8"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
rm -f "$OUT"
"$L" capture start "$OUT" >/dev/null
for vm in vma vmb; do "$L" counters $vm > "$tmp/$vm.before"; done
"$L" exec --timeout 120 vma -- "$SRV" > "$tmp/server.out" 2>&1 & spid=$!
"$L" exec vma -- 'for i in $(seq 100); do netstat -ltn | grep -q ":18515 " && exit 0; sleep 0.2; done; exit 1'
# the storm starts with the RoCE traffic
"$L" host -- sh -c "timeout 120 tcpdump -i $LAB_BRIDGE -c 1 -q udp port 4791 >/dev/null 2>&1 && exec $STORM" \
	> "$tmp/storm.out" 2>&1 & gpid=$!
sleep 0.3   # tcpdump listening; the client's first RoCE packet comes after its TCP exchange
"$L" exec --timeout 120 vmb -- "$CLI" > "$tmp/client.out" 2>&1 & cpid=$!
set +e
wait $gpid; grc=$?
wait $cpid; crc=$?
wait $spid; src=$?
set -e
for vm in vma vmb; do "$L" counters $vm > "$tmp/$vm.after"; done
"$L" capture stop "$OUT" > "$tmp/stop.out"
python3 "$here/counter_deltas.py" "$tmp" > "$base.counters"
{
  echo "# roce_pfc_storm: ib_send_bw under a PFC XOFF train on priority 3 (made by captures/lab/record_pfc_storm.sh)"
  echo "# mode rxe, capture on br0: $(grep ^packets= "$tmp/stop.out")"
  echo "# server vma: $SRV"; echo "# server rc=$src"; cat "$tmp/server.out"; echo
  echo "# client vmb: $CLI"; echo "# client rc=$crc"; cat "$tmp/client.out"; echo
  echo "# host side (br0), after the first RoCE packet on br0: ${STORM/$G/rocegen}"; echo "# rocegen rc=$grc"; cat "$tmp/storm.out"
} > "$base.log"
cat "$tmp/stop.out"
[ $crc = 0 ] && [ $src = 0 ] && [ $grc = 0 ]
