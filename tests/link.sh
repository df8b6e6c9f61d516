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
#   - the mirror fixtures report their copies and the truncated one;
#   - pcapng files whose interfaces differ in link type (Ethernet, ERF,
#     InfiniBand: tests/mkpcapng.py interleaves the fixtures, two sections
#     in both byte orders, ns and µs resolutions, a time offset) are read
#     whole: each frame listed as in its own file, numbered by its position;
#     against tshark on an Ethernet + ERF merge; a filter passes no frame of
#     a link type it means nothing on.
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

# ---- pcapng with interfaces of different link types ---------------------------
ins="$root/captures/lab/roce_rping.pcap $L/ib_native.pcap $L/erf_eth.pcap $L/ib_erf.pcap"
# shellcheck disable=SC2086
python3 "$here/mkpcapng.py" "$T/mix.pcapng" $ins >"$T/order"
i=0
for f in $ins; do
	i=$((i + 1))
	TZ=UTC "$R" -r "$f" --packets --json >"$T/in$i.json"
done
TZ=UTC "$R" -r "$T/mix.pcapng" --packets --json >"$T/mix.json" 2>"$T/mix.err"
check "mixed pcapng: frames read" "$(wc -l <"$T/order")" "$(wc -l <"$T/mix.json")"
check "mixed pcapng: each frame as in its own file, numbered by position" 0 "$(python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
ins = {i: [json.loads(l) for l in open(f"{t}/in{i}.json")] for i in range(1, 5)}
mix = [json.loads(l) for l in open(f"{t}/mix.json")]
bad = 0
for n, line in enumerate(open(f"{t}/order"), 1):
    i, k = map(int, line.split())
    want = dict(ins[i][k - 1], **{"frame.number": n})
    bad += n > len(mix) or mix[n - 1] != want
print(bad)
PY
)"
check "mixed pcapng: link types seen" "erf eth ib" \
	"$(jq -rs '[.[] | if ."erf.types.type" != null then "erf" elif ."infiniband.lrh.lnh" != null then "ib" else "eth" end] | unique | join(" ")' "$T/mix.json")"
check "mixed pcapng with filter udp: the Ethernet interface's UDP frames only" \
	"$("$R" -r "$root/captures/lab/roce_rping.pcap" --packets udp | wc -l)" "$("$R" -r "$T/mix.pcapng" --packets udp | wc -l)"
if command -v mergecap >/dev/null && command -v tshark >/dev/null; then
	mergecap -a -F pcapng -w "$T/merged.pcapng" "$root/captures/lab/roce_rping.pcap" "$L/ib_erf.pcap" "$L/erf_eth.pcap"
	tshark -r "$T/merged.pcapng" -T fields -e frame.number -e frame.time_epoch -e frame.len -e frame.cap_len \
		2>/dev/null >"$T/ts.txt"
	TZ=UTC "$R" -r "$T/merged.pcapng" --packets --json |
		jq -r '"\(."frame.number")\t\(."frame.time_epoch")\t\(."frame.len")\t\(."frame.cap_len")"' >"$T/rt.txt"
	if [ -s "$T/ts.txt" ] && cmp -s "$T/ts.txt" "$T/rt.txt"; then
		ok "mergecap Ethernet + ERF pcapng: $(wc -l <"$T/rt.txt") frames, numbers, times and lengths as tshark's"
	else
		fail "mergecap Ethernet + ERF pcapng against tshark" "$(diff "$T/ts.txt" "$T/rt.txt" | head -4 | tr '\n' '|')"
	fi
fi

echo "link: $oks ok, $fails failed"
[ "$fails" = 0 ]
