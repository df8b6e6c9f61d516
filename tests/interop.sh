#!/bin/bash
# tests/interop.sh - rocetop against real kernel RoCEv2 traffic (soft-RoCE lab).
#
# Run by `make interop` as  BUILD=<build dir> tests/interop.sh
#
# Uses ../shared/softroce-lab/lab next to the repository (two QEMU guests running
# Linux 6.1 rdma_rxe, see its README).  Skips (exit 0) when the lab is not there or
# we are not root.  Otherwise: lab build, lab up (rxe, MTU 1500), record the
# roce_rc_pingpong and roce_rping scenarios afresh into a temp dir, run
#   $BUILD/bin/rocetop -r FILE --packets --json
# (one JSON object per frame and line) and check, per capture:
#   1. every RoCE frame (object with "roce.version" other than "none") has
#      "roce.icrc.status" == "good";
#   2. for each guest G in vma (10.99.0.1), vmb (10.99.0.2):
#        #RoCE frames with ip.src == G           == G.sent_pkts
#        #RoCE frames with ip.dst == G, ICRC good == G.rcvd_pkts
#      where G.* are rxe's hw_counters deltas over the capture window, from the
#      FILE.counters that `lab scenario` writes.
#
# Why relation 2 is exact (checked with tshark on every rxe capture in
# captures/lab, see captures/README.md):
#   - sent_pkts is counted by rxe for every RoCEv2 packet it hands to the IP
#     stack: requests, responses, ACKs/NAKs, retransmissions, and the rdma_cm
#     MADs on QP1 (UD SEND_ONLY).  All of them reach br0 unless a qdisc on the
#     guest's eth0 drops or duplicates them.  With netem on vmb (scenario
#     roce_send_bw_netem) the wire count is sent_pkts - netem losses + netem
#     duplicates (one run: vmb.sent_pkts=2023, 2004 on the wire) - so the
#     scenarios used here run without netem.
#   - rcvd_pkts is counted after rxe's header and ICRC checks: frames with a bad
#     ICRC (or for an unknown QP) are on the wire but not counted (in
#     roce_host_inject, 5 RoCE frames reached vma, 1 with a bad ICRC on purpose,
#     vma.rcvd_pkts=4).  Duplicates and out-of-sequence requests are counted.
#   - No RoCE traffic goes to/from anything but the two guests in these scenarios
#     (the host side sends nothing), and ARP/IPv6/TCP frames are not RoCE.
#
# Environment:
#   BUILD            build dir holding bin/rocetop (default: <repo>/build)
#   INTEROP_FROM=DIR check NAME.pcap + NAME.counters already in DIR (for example
#                    captures/lab) instead of booting the lab; lab not needed
#   INTEROP_DECODER=reference
#                    produce the JSON lines with the lab's examples/roce.py
#                    (reference decoder, ICRC included) instead of rocetop; for
#                    testing this script itself
#   INTEROP_SCENARIOS="A B"
#                    scenarios to record/check (default: roce_rc_pingpong roce_rping);
#                    roce_host_inject and roce_send_bw_netem fail by design, see above
#   INTEROP_KEEP=1   keep the temp dir (it is always kept on failure)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
labdir=$(cd "$here/../.." && pwd)/shared/softroce-lab
LAB=$labdir/lab
BUILD=${BUILD:-$repo/build}
DECODER=${INTEROP_DECODER:-rocetop}
read -r -a SCENARIOS <<<"${INTEROP_SCENARIOS:-roce_rc_pingpong roce_rping}"

say() { printf 'interop: %s\n' "$*"; }

if [ -z "${INTEROP_FROM:-}" ]; then
	if [ ! -x "$LAB" ]; then
		say "SKIP: soft-RoCE lab not found at $LAB"
		exit 0
	fi
	if [ "$(id -u)" != 0 ]; then
		say "SKIP: the soft-RoCE lab needs root (apt, network namespaces, tap devices)"
		exit 0
	fi
fi

case $DECODER in
rocetop)
	ROCETOP=$BUILD/bin/rocetop
	if [ ! -x "$ROCETOP" ]; then
		say "FAIL: $ROCETOP not found (run make first, or set BUILD=)"
		exit 1
	fi
	;;
reference)
	if [ ! -f "$labdir/examples/roce.py" ]; then
		say "FAIL: INTEROP_DECODER=reference needs $labdir/examples/roce.py"
		exit 1
	fi
	;;
*)
	say "FAIL: unknown INTEROP_DECODER=$DECODER (rocetop or reference)"
	exit 1
	;;
esac

tmp=$(mktemp -d /tmp/rocetop-interop.XXXXXX)
lab_started=0
status=1
# shellcheck disable=SC2317  # (called by the EXIT trap)
cleanup() {
	if [ "$lab_started" = 1 ]; then
		"$LAB" down >/dev/null 2>&1 || say "warning: lab down failed"
	fi
	if [ "$status" = 0 ] && [ -z "${INTEROP_KEEP:-}" ]; then
		rm -rf "$tmp"
	else
		say "files kept in $tmp"
	fi
}
trap cleanup EXIT

if [ -n "${INTEROP_FROM:-}" ]; then
	src=$INTEROP_FROM
	say "checking existing captures in $src (lab not used)"
else
	src=$tmp
	say "lab build"
	"$LAB" build >"$tmp/lab-build.log" 2>&1 || { say "FAIL: lab build (see $tmp/lab-build.log)"; exit 1; }
	# Take the lab down at the end only if we brought it up.
	if "$LAB" status >/dev/null 2>&1; then
		say "lab already up: using it (not taking it down afterwards)"
	else
		lab_started=1
	fi
	say "lab up --mode rxe --mtu 1500"
	"$LAB" up --mode rxe --mtu 1500 >"$tmp/lab-env" 2>"$tmp/lab-up.log" || { say "FAIL: lab up (see $tmp/lab-up.log)"; exit 1; }
	# shellcheck disable=SC1090,SC1091
	. "$tmp/lab-env"
	say "lab: mode $LAB_MODE, MTU $LAB_MTU, path MTU $LAB_VMA_ACTIVE_MTU, accel $LAB_ACCEL"
	for s in "${SCENARIOS[@]}"; do
		"$LAB" scenario "$s" --out "$tmp/$s.pcap" || { say "FAIL: lab scenario $s"; exit 1; }
	done
fi

fail=0
for s in "${SCENARIOS[@]}"; do
	pcap=$src/$s.pcap
	counters=$src/$s.counters
	json=$tmp/$s.json
	for f in "$pcap" "$counters"; do
		[ -f "$f" ] || { say "FAIL: missing $f"; exit 1; }
	done
	if [ "$DECODER" = rocetop ]; then
		"$ROCETOP" -r "$pcap" --packets --json >"$json" 2>"$tmp/$s.rocetop.err" ||
			{ say "FAIL: rocetop -r $pcap exited $? (see $tmp/$s.rocetop.err)"; fail=1; continue; }
	else
		python3 - "$labdir/examples" "$pcap" >"$json" <<'PY'
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import roce
for n, (_, fr) in enumerate(roce.read_pcap(sys.argv[2]), 1):
    o = {"frame.number": n}
    r = roce.parse_roce(fr)
    if r:
        o.update({"roce.version": "v2", "infiniband.bth.opcode": r["opcode"],
                  "roce.icrc.status": "good" if r["icrc_ok"] else "bad"})
        k = "ip" if "." in r["src"] else "ipv6"
        o[k + ".src"], o[k + ".dst"] = r["src"], r["dst"]
    print(json.dumps(o))
PY
	fi
	python3 - "$s" "$json" "$counters" <<'PY' || fail=1
import json, sys
name, jpath, cpath = sys.argv[1:4]
GUESTS = (("vma", "10.99.0.1"), ("vmb", "10.99.0.2"))

def one(v):
    # a field may come as a list when it occurs more than once in a frame
    return v[0] if isinstance(v, list) and v else v

ctr = {}
for line in open(cpath):
    k, sep, v = line.strip().partition("=")
    if sep:
        try:
            ctr[k] = int(v)
        except ValueError:
            pass

frames, roce, bad_json = 0, [], 0
with open(jpath) as f:
    for ln, line in enumerate(f, 1):
        line = line.strip()
        if not line:
            continue
        try:
            o = json.loads(line)
        except ValueError:
            bad_json += 1
            if bad_json <= 3:
                print("  %s: line %d is not JSON: %.80s" % (name, ln, line))
            continue
        if not isinstance(o, dict) or "frame.number" not in o:
            continue                       # e.g. a summary object
        frames += 1
        v = one(o.get("roce.version"))
        if v not in (None, "", "none"):
            roce.append(o)

ok = bad_json == 0 and frames > 0 and len(roce) > 0
print("%s: %d frames, %d RoCE frames%s" % (name, frames, len(roce),
      (", %d non-JSON lines" % bad_json) if bad_json else ""))
notgood = [o for o in roce if one(o.get("roce.icrc.status")) != "good"]
print("  %-44s %6d  expected 0  %s" % ("RoCE frames with roce.icrc.status != good",
      len(notgood), "ok" if not notgood else "MISMATCH"))
for o in notgood[:5]:
    print("    frame %s: roce.icrc.status=%r opcode=%s" % (one(o.get("frame.number")),
          one(o.get("roce.icrc.status")), one(o.get("infiniband.bth.opcode"))))
ok &= not notgood
for g, ip in GUESTS:
    src = sum(1 for o in roce if one(o.get("ip.src")) == ip)
    dst = sum(1 for o in roce if one(o.get("ip.dst")) == ip and one(o.get("roce.icrc.status")) == "good")
    for what, got, key in (("from", src, g + ".sent_pkts"), ("to", dst, g + ".rcvd_pkts")):
        want = ctr.get(key)
        good = want is not None and got == want
        ok &= good
        print("  %-44s %6d  %s=%s  %s" % ("RoCE frames %s %s (%s)%s" % (what, g, ip, ", ICRC good" if what == "to" else ""),
              got, key, want, "ok" if good else "MISMATCH"))
sys.exit(0 if ok else 1)
PY
done

if [ "$fail" = 0 ]; then
	say "PASS (${SCENARIOS[*]}; decoder $DECODER)"
	status=0
else
	say "FAIL"
fi
exit "$status"
