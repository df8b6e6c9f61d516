#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/device_record.sh — rocetop --device-record DIR, then --device-replay
# DIR: the round trip.  The "live" run reads, in a network namespace of our
# own, a sysfs tree whose rcvd_pkts a background writer moves (a copy of the
# lab's rxe0 recording, tests/fixtures/device/traffic/vma), the lab's RDMA
# netlink replies of two moments (ROCETOP_NETLINK_REPLAY) and the ethtool -S
# of a veth named eth0 (the recorded port's netdev) through SIOCETHTOOL.
# Checks: the layout (sys/K, netlink/K byte for byte, ethtool/K as
# `ethtool -S` text, times); the replay's JSON device section equals the
# live one, snapshot by snapshot (counters, rates, QP PSN rates, ethtool);
# the replay of another host reads none of this host; a used DIR is refused.
# Run as  BUILD=<build dir> tests/device_record.sh ; prints ok/FAIL lines.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
BUILD=${BUILD:-$repo/build}
R=$BUILD/bin/rocetop
TV=$here/fixtures/device/traffic/vma
T=$(mktemp -d /tmp/device-record.XXXXXX)
fails=0; oks=0
ok() { echo "ok   $*"; oks=$((oks + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
	echo "skip device_record: needs root and unshare -n (a network namespace for the veth)"
	echo "device_record: 0 ok, 0 failed"
	exit 0
fi

cp -r "$TV/sys" "$T/src"
ctr=$T/src/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts
# the live run: a namespace with eth0 (veth), a sysfs counter that moves
cat > "$T/live.sh" <<SH
set -e
ip link add eth0 type veth peer name eth1
ip link set eth0 up; ip link set eth1 up; ip link set lo up
# the netdev's MAC where the readers look for it (the tree stands for /sys)
mkdir -p "$T/src/class/net/eth0"
ip -o link show eth0 | sed -n 's|.*link/ether \([0-9a-f:]*\).*|\1|p' > "$T/src/class/net/eth0/address"
( v=1000; while [ -e "$T/src" ]; do v=\$((v + 37)); echo \$v > "$ctr.new"; mv "$ctr.new" "$ctr"; sleep 0.05; done ) &
w=\$!
ROCETOP_SYSFS_ROOT=$T/src ROCETOP_NETLINK_REPLAY=$TV/1:$TV/2 "$R" --device-record "$T/rec" --json -n 2 -d 0.5 \
	--qp-interval 0.25 > "$T/live.json" 2> "$T/live.err"
echo \$? > "$T/live.rc"
kill \$w; wait \$w 2>/dev/null || true
ip -o link show eth1 | cut -d: -f1 > "$T/peer"
SH
unshare -n bash "$T/live.sh"
check "live --device-record: exit 0 ($(cat "$T/live.err" 2>/dev/null | head -2))" test "$(cat "$T/live.rc" 2>/dev/null)" = 0

check "layout: sys/1..3 each with rxe0 port 1, hw_counters and the GID table" sh -c "
	for k in 1 2 3; do p='$T/rec/sys/'\$k/class/infiniband/rxe0/ports/1
		test -s \$p/state && test -s \$p/hw_counters/rcvd_pkts && test -s \$p/gids/0 && test -s \$p/gid_attrs/ndevs/0 || exit 1
	done; ! test -e '$T/rec/sys/4'"
check "layout: sysfs values as read (rcvd_pkts moved between snapshots; sent_pkts as in the tree)" sh -c "
	a=\$(cat '$T/rec/sys/1/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts')
	b=\$(cat '$T/rec/sys/3/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts')
	test \"\$b\" -gt \"\$a\" && cmp -s '$TV/sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts' \
		'$T/rec/sys/2/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts'"
check "layout: netlink replies byte for byte (dev.bin; qp-0.bin of the first and second dump)" sh -c "
	cmp -s '$TV/1/dev.bin' '$T/rec/netlink/1/dev.bin' && cmp -s '$TV/1/qp-0.bin' '$T/rec/netlink/1/qp-0.bin' &&
	cmp -s '$TV/2/qp-0.bin' '$T/rec/netlink/2/qp-0.bin' && cmp -s '$TV/2/port-0.bin' '$T/rec/netlink/2/port-0.bin'"
peer=$(cat "$T/peer" 2>/dev/null)
check "layout: ethtool/1/eth0 holds the veth's statistics in ethtool's -S text (peer_ifindex: $peer)" sh -c "
	head -1 '$T/rec/ethtool/1/eth0' | grep -qx 'NIC statistics:' && grep -qx '     peer_ifindex: $peer' '$T/rec/ethtool/1/eth0' &&
	test -s '$T/rec/ethtool/3/eth0'"
check "layout: sys/1/class/net/eth0/address, the veth's MAC as read ($(cat "$T/src/class/net/eth0/address" 2>/dev/null))" sh -c "
	grep -qE '^([0-9a-f]{2}:){5}[0-9a-f]{2}\$' '$T/src/class/net/eth0/address' &&
	cmp -s '$T/src/class/net/eth0/address' '$T/rec/sys/1/class/net/eth0/address'"
check "layout: times, one line per poll, rising" sh -c "test \$(wc -l < '$T/rec/times') = 3 && sort -n -c '$T/rec/times'"

# the replay, outside the namespace (this host's eth0, if any, is not read)
"$R" --device-replay "$T/rec" --device all --json -n 2 -d 0.5 --qp-interval 0.25 > "$T/replay.json" 2> "$T/replay.err"
check "replay: exit 0 ($(head -2 "$T/replay.err"))" test $? = 0
python3 - "$T/live.json" "$T/replay.json" "$peer" > "$T/cmp.out" <<'PY'
import json, sys
def devs(p):
    return [json.loads(l)["devices"] for l in open(p) if '"devices"' in l]
a, b = devs(sys.argv[1]), devs(sys.argv[2])
def chk(what, cond):
    print(("ok   " if cond else "FAIL ") + what)
chk("replay: as many snapshots as live (%d, %d)" % (len(a), len(b)), len(a) == len(b) == 2)
for k, (x, y) in enumerate(zip(a, b)):
    diff = [key for key in set(x[0]) | set(y[0]) if x[0].get(key) != y[0].get(key)] if x and y else ["devices"]
    pd = [key for key in x[0]["ports"][0] if x[0]["ports"][0][key] != y[0]["ports"][0].get(key)] if not diff or diff == ["ports"] else []
    chk("snapshot %d: the JSON device section equals the live one (differs: %s %s)" % (k + 1, diff, pd), x == y)
p = a[-1][0]["ports"][0]
chk("the comparison has substance: rcvd_pkts moved (rate %s), a QP PSN rate (first snapshot), eth0's peer_ifindex %s, its MAC %s replayed" %
    (p["rates"].get("rcvd_pkts"), p["ethtool"].get("peer_ifindex"), p["mac"]),
    p["rates"].get("rcvd_pkts", 0) > 0 and p["ethtool"].get("peer_ifindex") == int(sys.argv[3])
    and p["mac"] is not None and b[-1][0]["ports"][0]["mac"] == p["mac"]
    and any(q.get("sq_psn_per_s") or q.get("rq_psn_per_s") for x in a for q in x[0]["qps"]))
PY
cat "$T/cmp.out"
oks=$((oks + $(grep -c '^ok ' "$T/cmp.out"))); fails=$((fails + $(grep -c '^FAIL ' "$T/cmp.out")))

"$R" --device-record "$T/rec" --device all -n 1 > "$T/used.out" 2>&1
rc=$?
check "--device-record into a used directory: one line, exit 2 (exit $rc: $(head -1 "$T/used.out"))" sh -c "
	test $rc = 2 && test \$(wc -l < '$T/used.out') = 1 && test \$(wc -l < '$T/rec/times') = 3"

echo "device_record: $oks ok, $fails failed"
[ "$fails" = 0 ]
