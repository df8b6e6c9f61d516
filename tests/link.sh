#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# link.sh — ERF records and native InfiniBand (captures/link, made by
# `make fixtures` with libroce's builders):
#   - LINKTYPE_INFINIBAND and ibdump-style ERF type 21 copies of the same
#     packets give the same summary (frames, flows, ICRC verdicts);
#   - IB ICRC and VCRC verdicts: one bad ICRC, one bad VCRC, the rest good;
#   - LID-routed flows are keyed by LIDs, GRH flows by GIDs;
#   - ERF lctr is reported as loss; ERF Ethernet FCS checked (one bad) and
#     stripped; a truncated ERF record is truncated with ICRC unchecked.
#   - the mirror fixtures report their copies and the truncated one.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
R=$BUILD/bin/rocetop
L=$root/captures/link
if [ ! -x "$R" ]; then
	echo "link: $R not built" >&2
	exit 2
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/link.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM

fails=0 oks=0
ok() { echo "ok   $1"; oks=$((oks + 1)); }
fail() { echo "FAIL $1"; shift; for l; do echo "     $l"; done; fails=$((fails + 1)); }
# check NAME WANT GOT
check() {
	if [ "$2" = "$3" ]; then ok "$1: $3"; else fail "$1" "want $2, got $3"; fi
}

TZ=UTC "$R" -r "$L/ib_native.pcap" --json | jq -S 'del(.source)' >"$T/native.json"
TZ=UTC "$R" -r "$L/ib_erf.pcap" --json | jq -S 'del(.source, .erf_records, .erf_lost)' >"$T/erf.json"
if [ -s "$T/native.json" ] && cmp -s "$T/native.json" "$T/erf.json"; then
	ok "LINKTYPE_INFINIBAND and ERF type 21: same summary"
else
	fail "LINKTYPE_INFINIBAND and ERF type 21 differ" "$(diff "$T/native.json" "$T/erf.json" | head -5 | tr '\n' '|')"
fi
check "native IB frames" 168 "$(jq .ib_frames "$T/native.json")"
check "IB ICRC good/bad/unchecked" "167 1 0" "$(jq -r '"\(.icrc.good) \(.icrc.bad) \(.icrc.unchecked)"' "$T/native.json")"
TZ=UTC "$R" -r "$L/ib_native.pcap" --packets --json >"$T/pk.json"
check "IB VCRC good/bad" "167 1" "$(jq -rs '"\([.[] | select(."roce.vcrc.status" == "good")] | length) \([.[] | select(."roce.vcrc.status" == "bad")] | length)"' "$T/pk.json")"
check "LRH fields of frame 3" "2 1 2 2" "$(jq -rs '.[2] | "\(."infiniband.lrh.lnh") \(."infiniband.lrh.slid") \(."infiniband.lrh.dlid") \(."infiniband.lrh.sl")"' "$T/pk.json")"
check "flow hosts (LIDs without GRH, GIDs with)" "fe80::ff:fe00:1 lid 1" \
	"$(jq -r '[.flows[].src] | unique | join(" ")' "$T/native.json")"
check "ERF loss counter as erf_lost" 1 "$(TZ=UTC "$R" -r "$L/ib_erf.pcap" --json | jq .erf_lost)"

TZ=UTC "$R" -r "$L/erf_eth.pcap" --packets --json >"$T/eth.json"
check "ERF Ethernet FCS good/bad (stripped)" "6 1" "$(jq -rs '"\([.[] | select(."roce.fcs.status" == "good")] | length) \([.[] | select(."roce.fcs.status" == "bad")] | length)"' "$T/eth.json")"
check "ERF Ethernet ICRC verdicts" "good good good good good good unchecked good" \
	"$(jq -rs '[.[]."roce.icrc.status"] | join(" ")' "$T/eth.json")"
check "ERF truncated flag of record 7" "true payload" "$(jq -rs '.[6] | "\(."erf.flags.trunc") \(."roce.truncated")"' "$T/eth.json")"

for m in erspan2 erspan3 gre_teb vxlan; do
	check "$m fixture: copies, truncated copies, RoCE frames" "6 1 6" \
		"$(TZ=UTC "$R" -r "$L/$m.pcap" --json | jq -r '"\(.mirror_copies) \(.mirror_truncated) \(.roce.v2)"')"
done

# errors: a record cut inside its ERF header is reported, not fatal
python3 - "$L/erf_eth.pcap" "$T/cut.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
hdr, rec = d[:24], d[24:]
ts, us, cl, wl = struct.unpack("<IIII", rec[:16])
open(sys.argv[2], "wb").write(hdr + struct.pack("<IIII", ts, us, 10, wl) + rec[16:26])
PY
check "ERF record cut inside its header" "erf" "$(TZ=UTC "$R" -r "$T/cut.pcap" --packets --json | jq -r '."roce.truncated"')"

echo "link: $oks ok, $fails failed"
[ "$fails" = 0 ]
