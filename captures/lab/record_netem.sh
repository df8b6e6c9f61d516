#!/bin/bash
# run.sh NAME NETEM_GUEST "NETEM ARGS" TOOL "TOOL ARGS"
set -u
L=/work/shared/softroce-lab/lab
name=$1 ng=$2 nargs=$3 tool=$4 targs=$5
O=${OUT:-captures/lab}
$L exec vma -- tc qdisc del dev eth0 root >/dev/null 2>&1
$L exec vmb -- tc qdisc del dev eth0 root >/dev/null 2>&1
[ "$ng" != none ] && $L exec $ng -- tc qdisc add dev eth0 root netem $nargs
$L capture start $O/$name.pcap -- udp port 4791 >/dev/null
sleep 0.5
$L counters vma > $O/$name.vma.before; $L counters vmb > $O/$name.vmb.before
$L exec --timeout 150 vma -- $tool -d rxe0 -x 1 $targs > $O/$name.server.log 2>&1 &
$L exec vma -- 'for i in $(seq 100); do netstat -ltn | grep -q ":18515 " && exit 0; sleep 0.2; done; exit 1'
$L exec --timeout 150 vmb -- $tool -d rxe0 -x 1 $targs 10.99.0.1 > $O/$name.client.log 2>&1
echo "client rc=$?"
wait
$L counters vma > $O/$name.vma.after; $L counters vmb > $O/$name.vmb.after
$L capture stop $O/$name.pcap
[ "$ng" != none ] && $L exec $ng -- tc qdisc del dev eth0 root
python3 - $O/$name <<'PY'
import sys
b=sys.argv[1]
for g in ("vma","vmb"):
    bef=dict(l.strip().split("=",1) for l in open(f"{b}.{g}.before") if "=" in l)
    aft=dict(l.strip().split("=",1) for l in open(f"{b}.{g}.after") if "=" in l)
    with open(f"{b}.counters","a") as f:
        for k in aft:
            if aft[k].isdigit() and bef.get(k,"").isdigit():
                f.write(f"{g}.{k}={int(aft[k])-int(bef[k])}\n")
PY
