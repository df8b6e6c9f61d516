#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# iwarp_sync.sh — MPA framing lost and found again (issue 11 item 7).
#
# The four captures captures/gen/iwarp_{misplaced_markers,crc_resync,
# nocrc_bad_length,gap}.pcap are made by tools/mkfixtures (what each holds:
# captures/README.md); they must be byte-identical to what it makes now.
# Every FPDU the client sends is an RDMA WRITE with STag 0x1000 + i, TO
# i << 16 and payload bytes 0x02, so a header read out of payload shows
# 0x02020202 and a real one names its own index.  For each capture:
#   - the --packets --json listing reports exactly the expected FPDUs (by
#     index), each with a real header, and nothing with 0x02020202 in a DDP
#     or RDMAP field;
#   - exactly the expected frames carry roce.mpa.out_of_sync, the text
#     listing flags the same frames "[iwarp out of sync]";
#   - the resync (if any) is at the expected sequence number, by the
#     expected means (marker / crc / heuristic);
#   - the --json summary's flow counts those FPDUs and its out_of_sync
#     counters are exact.
#
#   BUILD=build tests/iwarp_sync.sh
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
R=$BUILD/bin/rocetop
MK=$BUILD/tools/mkfixtures
for b in "$R" "$MK"; do
	if [ ! -x "$b" ]; then
		echo "iwarp_sync: $b not built" >&2
		exit 2
	fi
done
T=$(mktemp -d /tmp/rocetop-iwsync.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
oks=0

if ! "$MK" "$T/gen" >"$T/mk.out" 2>&1; then
	echo "FAIL mkfixtures: $(cat "$T/mk.out")"
	exit 1
fi

# name | FPDU indices listed | out-of-sync frames | resync "how@fpdu" or - | summary out_of_sync times,bytes,resyncs,heuristic
# Client FPDU stream starts at 0x10000000 + 1 + 24 (SYN, MPA request with RTR).
# misplaced_markers: 40 WRITEs of 1000 B, 1028 B each with markers, data frames 6..49 less the ACKs 14, 23, 32, 41;
#   the marker at 512 (pointer 0x0200 sent as 0x0002) loses the framing inside FPDU 0 (516 bytes dropped with it);
#   no later marker is where the receiver looks: nothing is framed again (40 x 1028 - 516 bytes).
# crc_resync: 620-byte FPDUs; 10 has length 3 (618 bytes after it skipped), 11 a bad CRC (620 skipped): resync at 12.
# nocrc_bad_length: 1020-byte FPDUs; 10 claims 512 more, the next length is read at byte 512 of FPDU 11 and its
#   headers (72 bytes) are invalid: 1020 - 512 - 72 = 436 bytes skipped; FPDU 12's segment: heuristic resync.
# gap: 2020-byte FPDUs in 1460 + 560; FPDU 6's second segment missing; FPDU 7 verifies: resync there.
cat >"$T/cases" <<'EOF'
iwarp_misplaced_markers|-|6-13,15-22,24-31,33-40,42-49|-|1,40604,0,0
iwarp_crc_resync|0-9,12-19|16,17|crc@12:620|1,1238,1,0
iwarp_nocrc_bad_length|0-10,12-19|17|heuristic@12:1020|1,436,1,1
iwarp_gap|0-5,7-11|19|crc@7:2020|1,0,1,0
EOF

while IFS='|' read -r name want_fpdus want_oos want_resync want_sum; do
	cap=captures/gen/$name.pcap
	if ! cmp -s "$cap" "$T/gen/$name.pcap"; then
		echo "FAIL $cap differs from what $MK makes (make fixtures)"
		fails=$((fails + 1))
		continue
	fi
	if ! "$R" -r "$cap" --packets --json >"$T/$name.pj" 2>"$T/$name.err" ||
	   ! "$R" -r "$cap" --packets >"$T/$name.pk" 2>>"$T/$name.err" ||
	   ! "$R" -r "$cap" --json >"$T/$name.j" 2>>"$T/$name.err" || [ -s "$T/$name.err" ]; then
		echo "FAIL $name: rocetop failed: $(cat "$T/$name.err")"
		fails=$((fails + 1))
		continue
	fi
	if python3 - "$T/$name" "$want_fpdus" "$want_oos" "$want_resync" "$want_sum" >"$T/$name.res" 2>&1 <<'PY'
import json, re, sys

base, want_fpdus, want_oos, want_resync, want_sum = sys.argv[1:]
START = 0x10000000 + 1 + 24
BAD = 0x02020202
errs = []


def ranges(s):
    out = []
    if s == "-":
        return out
    for part in s.split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


def vals(v):
    return v if isinstance(v, list) else [v]


fpdus, oos, resyncs = [], [], []
for line in open(base + ".pj"):
    d = json.loads(line)
    no = d["frame.number"]
    for k, v in d.items():
        if k.startswith(("iwarp_ddp.", "iwarp_rdma.")) and any(x == BAD for x in vals(v) if isinstance(x, int)):
            errs.append("frame %d: %s = 0x02020202 (a header read out of payload)" % (no, k))
    if "iwarp_ddp.stag" in d:
        for stag, to in zip(vals(d["iwarp_ddp.stag"]), vals(d["iwarp_ddp.tagged_offset"])):
            i = stag - 0x1000
            if not 0 <= i < 64 or to != i << 16:
                errs.append("frame %d: FPDU with STag %#x TO %#x is not one that was sent" % (no, stag, to))
            fpdus.append(i)
    if d.get("roce.mpa.out_of_sync"):
        oos.append(no)
    if "roce.mpa.resync" in d:
        ev, seq = vals(d["roce.mpa.event"]), vals(d["roce.mpa.event.seq"])
        rs = [s for e, s in zip(ev, seq) if e == "resync"]
        for how, s in zip(vals(d["roce.mpa.resync"]), rs):
            resyncs.append((how, s))
if fpdus != ranges(want_fpdus):
    errs.append("FPDUs listed %s, want %s" % (fpdus, ranges(want_fpdus)))
if oos != ranges(want_oos):
    errs.append("out-of-sync frames %s, want %s" % (oos, ranges(want_oos)))
text_oos = [int(l.split()[0]) for l in open(base + ".pk") if "[iwarp out of sync]" in l]
if text_oos != oos:
    errs.append("text listing flags frames %s, JSON %s" % (text_oos, oos))
if want_resync == "-":
    want_rs = []
else:
    how, _, rest = want_resync.partition("@")
    k, _, size = rest.partition(":")
    want_rs = [(how, (START + int(k) * int(size)) & 0xffffffff)]
if resyncs != want_rs:
    errs.append("resyncs %s, want %s" % (resyncs, want_rs))
summ = [json.loads(l) for l in open(base + ".j") if '"type":"summary"' in l][-1]
fl = [f for f in summ["flows"] if f["kind"] == "iWARP" and f["sport"] == 40001]
if len(fl) != 1:
    errs.append("summary: %d client flows" % len(fl))
else:
    f = fl[0]
    o = f.get("out_of_sync", {"times": -1, "bytes": -1, "resyncs": -1, "heuristic_resyncs": -1})
    got = "%d,%d,%d,%d" % (o["times"], o["bytes"], o["resyncs"], o["heuristic_resyncs"])
    if got != want_sum:
        errs.append("summary out_of_sync %s, want %s" % (got, want_sum))
    if f["fpdus"] != len(ranges(want_fpdus)):
        errs.append("summary fpdus %d, want %d" % (f["fpdus"], len(ranges(want_fpdus))))
    if f["rdmap_ops"].get("Write", 0) != len(ranges(want_fpdus)):
        errs.append("summary writes %s, want %d" % (f["rdmap_ops"], len(ranges(want_fpdus))))
for e in errs:
    print(e)
print("fpdus=%d out_of_sync_frames=%d resyncs=%s" % (len(fpdus), len(oos), resyncs))
sys.exit(1 if errs else 0)
PY
	then
		echo "ok   $name: $(tail -1 "$T/$name.res")"
		oks=$((oks + 1))
	else
		echo "FAIL $name:"
		sed 's/^/    /' "$T/$name.res"
		fails=$((fails + 1))
	fi
done <"$T/cases"

echo "iwarp_sync: $oks passed, $fails failed"
[ "$fails" -eq 0 ]
