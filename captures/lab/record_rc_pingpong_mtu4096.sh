#!/bin/bash
# Records captures/lab/roce_rc_pingpong_mtu9000.{pcap,counters,log}.
# The lab's own roce_rc_pingpong scenario runs ibv_rc_pingpong without -m, and
# ibv_rc_pingpong then uses path MTU 1024 whatever the link MTU is; so under
# `lab up --mtu 9000` it gives the same 1024-byte SEND FIRST/MIDDLE/LAST as at
# 1500.  This script runs the same scenario with -m 4096 (3000 B -> SEND_ONLY),
# in the same way as `lab scenario` (capture on br0, counter deltas of both
# guests read after tcpdump starts and before it stops).
# Needs: root, a running lab in rxe mode with --mtu 9000.
set -euo pipefail
L=${L:-$(cd "$(dirname "$0")/../../../shared/softroce-lab" && pwd)/lab}
OUT=${1:-$(cd "$(dirname "$0")" && pwd)/roce_rc_pingpong_mtu9000.pcap}
base=${OUT%.pcap}
eval "$("$L" status)"
[ "$LAB_MODE" = rxe ] && [ "$LAB_MTU" = 9000 ] || { echo "need: lab up --mode rxe --mtu 9000" >&2; exit 1; }
SRV="ibv_rc_pingpong -d rxe0 -g 1 -m 4096 -n 8 -s 3000"
CLI="$SRV $LAB_VMA_IP"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
rm -f "$OUT"
"$L" capture start "$OUT" >/dev/null
for vm in vma vmb; do "$L" counters $vm > "$tmp/$vm.before"; done
"$L" exec --timeout 120 vma -- "$SRV" > "$tmp/server.out" 2>&1 & spid=$!
"$L" exec vma -- 'for i in $(seq 100); do netstat -ltn | grep -q ":18515 " && exit 0; sleep 0.2; done; exit 1'
set +e
"$L" exec --timeout 120 vmb -- "$CLI" > "$tmp/client.out" 2>&1; crc=$?
wait $spid; src=$?
set -e
for vm in vma vmb; do "$L" counters $vm > "$tmp/$vm.after"; done
"$L" capture stop "$OUT" > "$tmp/stop.out"
python3 "$(dirname "$0")/counter_deltas.py" "$tmp" > "$base.counters"
{
  echo "# roce_rc_pingpong at link MTU 9000 with -m 4096 (made by captures/lab/record_rc_pingpong_mtu4096.sh)"
  echo "# mode rxe, capture on br0: $(grep ^packets= "$tmp/stop.out")"
  echo "# server vma: $SRV"; echo "# server rc=$src"; cat "$tmp/server.out"; echo
  echo "# client vmb: $CLI"; echo "# client rc=$crc"; cat "$tmp/client.out"
} > "$base.log"
cat "$tmp/stop.out"
[ $crc = 0 ] && [ $src = 0 ]
