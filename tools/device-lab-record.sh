#!/bin/bash
# tools/device-lab-record.sh — records what the device source reads, from the
# soft-RoCE lab's guests (Linux 6.1 rdma_rxe), while traffic flows:
#   OUT/GUEST-N/*.bin     RDMA netlink replies (tools/nlrecord), N = 1, 2 (1 s apart)
#   OUT/GUEST-N/rdma-qp.json, rdma-stat.json   `rdma -j res show qp`, `rdma -j statistic show`
#   OUT/GUEST-sys/class/infiniband/…   the sysfs files rocetop reads
#   OUT/GUEST-rocetop.txt, .json      rocetop --device all, built on the host, run in the guest
# Traffic: ib_write_bw -D (RC, vmb → vma) and rping (rdma_cm: CM IDs).
# Usage (root):  flock /tmp/softroce-lab.lock tools/device-lab-record.sh OUT [BUILD]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
BUILD=${2:-$here/build}
LAB=$(cd "$here/../shared/softroce-lab" 2>/dev/null && pwd)/lab
[ -x "$LAB" ] || LAB=/work/shared/softroce-lab/lab
eval "$($LAB up --mode rxe)"
trap '$LAB down >/dev/null 2>&1 || true' EXIT
S=$LAB_SHARED/device
mkdir -p "$S/lib"
cp "$BUILD/tools/nlrecord" "$BUILD/bin/rocetop" "$S/"
for l in libmnl.so.0 libpcap.so.0.8 libncursesw.so.6 libtinfo.so.6 libdbus-1.so.3 libsystemd.so.0 \
         libcap.so.2 libgcrypt.so.20 liblzma.so.5 libzstd.so.1 liblz4.so.1 libgpg-error.so.0; do
	cp -L "/lib/x86_64-linux-gnu/$l" "$S/lib/" 2>/dev/null || true
done
G=$LAB_SHARED_GUEST/device
cat > "$S/snap.sh" <<'SH'
#!/bin/sh
# snap.sh OUTDIR N: netlink replies, rdma tool's view, sysfs files
o=$1/$2; mkdir -p "$o"
/mnt/lab/device/nlrecord "$o" > "$o/nlrecord.log" 2>&1
rdma -j res show qp > "$o/rdma-qp.json" 2>&1
rdma -j res show cm_id > "$o/rdma-cmid.json" 2>&1
rdma -j statistic show > "$o/rdma-stat.json" 2>&1
s=$1/sys
for dev in /sys/class/infiniband/*; do
  n=${dev##*/}
  for p in "$dev"/ports/*; do
    pn=${p##*/}; t=$s/class/infiniband/$n/ports/$pn
    mkdir -p "$t/hw_counters" "$t/gids" "$t/gid_attrs/types" "$t/gid_attrs/ndevs"
    for f in state phys_state rate link_layer; do cat "$p/$f" > "$t/$f" 2>/dev/null || true; done
    for f in "$p"/hw_counters/*; do cat "$f" > "$t/hw_counters/${f##*/}" 2>/dev/null || true; done
    if [ -d "$p/counters" ]; then mkdir -p "$t/counters"; for f in "$p"/counters/*; do cat "$f" > "$t/counters/${f##*/}" 2>/dev/null || true; done; fi
    for i in 0 1 2 3; do
      cat "$p/gids/$i" > "$t/gids/$i" 2>/dev/null || true
      cat "$p/gid_attrs/types/$i" > "$t/gid_attrs/types/$i" 2>/dev/null || rm -f "$t/gid_attrs/types/$i"
      cat "$p/gid_attrs/ndevs/$i" > "$t/gid_attrs/ndevs/$i" 2>/dev/null || rm -f "$t/gid_attrs/ndevs/$i"
    done
  done
done
SH
chmod +x "$S/snap.sh"
rm -rf "$S/out"; mkdir -p "$S/out"
# traffic: an RC bandwidth test and rping (CM IDs)
$LAB exec --timeout 120 vma -- ib_write_bw -d rxe0 -x 1 -F -D 90 > "$OUT/ib_write_bw.server.log" 2>&1 &
$LAB exec vma -- 'for i in $(seq 100); do netstat -ltn | grep -q ":18515 " && exit 0; sleep 0.2; done; exit 1'
$LAB exec --timeout 120 vmb -- ib_write_bw -d rxe0 -x 1 -F -D 90 "$LAB_VMA_IP" > "$OUT/ib_write_bw.client.log" 2>&1 &
$LAB exec --timeout 120 vma -- rping -s -a "$LAB_VMA_IP" > /dev/null 2>&1 &
$LAB exec vma -- 'for i in $(seq 100); do rdma res show cm_id | grep -q LISTEN && exit 0; sleep 0.2; done; exit 1'
$LAB exec --timeout 120 vmb -- rping -c -a "$LAB_VMA_IP" > /dev/null 2>&1 &
sleep 6
# rocetop first, while the traffic certainly flows
for g in vma vmb; do
  $LAB exec --timeout 30 "$g" -- "LD_LIBRARY_PATH=$G/lib $G/rocetop --device all -b -n 2 -d 1" > "$S/out/$g-rocetop.txt" 2>&1 || true
  $LAB exec --timeout 30 "$g" -- "LD_LIBRARY_PATH=$G/lib $G/rocetop --device all --json -n 1 -d 1" > "$S/out/$g-rocetop.json" 2>&1 || true
  $LAB exec --timeout 30 "$g" -- "LD_LIBRARY_PATH=$G/lib $G/rocetop -i rxe0 -b -n 1" > "$S/out/$g-rocetop-i-rxe0.txt" 2>&1 || true
  # the wire and the NIC together: eth0's RDMA port (rxe0) joins by itself
  $LAB exec --timeout 30 "$g" -- "LD_LIBRARY_PATH=$G/lib $G/rocetop -i eth0 -b -n 2 -d 1 udp port 4791" > "$S/out/$g-rocetop-i-eth0.txt" 2>&1 || true
done
for g in vma vmb; do $LAB exec "$g" -- "$G/snap.sh" "$G/out/$g" 1; done
sleep 1
for g in vma vmb; do $LAB exec "$g" -- "$G/snap.sh" "$G/out/$g" 2; done
# the traffic's lab exec clients (ours): SIGTERM stops their commands in the guests
kill $(jobs -p) 2>/dev/null || true
wait || true
cp -r "$S/out/." "$OUT/"
echo "recorded into $OUT"
