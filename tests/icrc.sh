#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# icrc.sh — only a bad ICRC keeps a frame out of the analysis.
#
# 1. captures/gen/bad_icrc.pcap (8 frames, every ICRC bad, one a CNP with
#    ECT): icrc_bad 8, cnp 0, no ECN-capable packet counted.
# 2. Unchecked frames (captures/gen/truncated.pcap: 96, all unchecked) are
#    analysed: their requests and ACKs count.
# 3. One bad frame among good ones (lab/roce_host_inject.pcap) is counted,
#    not flagged; a capture whose every ICRC fails (roce_write_bw.pcap with
#    each frame's last byte flipped, made here) flags its flows
#    "ICRC unverifiable" in JSON and text instead of showing them empty.
#
#   BUILD=build tests/icrc.sh
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
R=$BUILD/bin/rocetop
if [ ! -x "$R" ]; then
	echo "icrc: $R not built" >&2
	exit 2
fi
T=$(mktemp -d /tmp/rocetop-icrc.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
oks=0
check() { # description, jq expression on the summary that must print true, capture
	if [ "$("$R" -r "$3" --json | tail -n 1 | jq "$2")" = true ]; then
		echo "ok    $1"; oks=$((oks + 1))
	else
		echo "FAIL  $1"; fails=$((fails + 1))
	fi
}
check "bad_icrc.pcap: 8 bad ICRCs counted, the corrupt CNP and its ECN not" \
	'.icrc.bad == 8 and .totals.icrc_bad == 8 and .totals.cnp == 0 and .fabric.cnp == 0 and .fabric.ecn_capable == 0' \
	captures/gen/bad_icrc.pcap
check "truncated.pcap: 96 unchecked frames analysed (36 requests, 6 ACKs)" \
	'.icrc.unchecked == 96 and .totals.requests == 36 and .totals.acks == 6' captures/gen/truncated.pcap
check "roce_host_inject.pcap: 1 bad of 9, counted, no flow flagged" \
	'.totals.icrc_bad == 1 and ([.flows[] | select(.icrc_unverifiable)] | length) == 0' \
	captures/lab/roce_host_inject.pcap
python3 - captures/lab/roce_write_bw.pcap "$T/allbad.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
out, o = bytearray(d[:24]), 24
while o + 16 <= len(d):
    n = struct.unpack("<I", d[o + 8:o + 12])[0]
    rec = bytearray(d[o:o + 16 + n])
    rec[-1] ^= 0xFF                     # the ICRC's last byte
    out += rec
    o += 16 + n
open(sys.argv[2], "wb").write(out)
PY
check "every ICRC bad: both flows ICRC unverifiable, nothing analysed" \
	'.icrc.bad == 200 and ([.flows[] | select(.icrc_unverifiable and .requests == 0)] | length) == 2' \
	"$T/allbad.pcap"
if [ "$("$R" -r "$T/allbad.pcap" | grep -c 'ICRC unverifiable: .* frames fail')" = 2 ]; then
	echo "ok    the text summary says so for both flows"; oks=$((oks + 1))
else
	echo "FAIL  the text summary does not flag ICRC unverifiable"; fails=$((fails + 1))
fi
echo "icrc: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
