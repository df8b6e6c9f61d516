#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# frameno.sh — a frame's number is its position in the file, as Wireshark
# counts it (every packet block, across pcapng sections), with or without a
# filter, in the listing and in its JSON.
#
#   BUILD=build tests/frameno.sh
#
# Captures: a lab pcap, the same as pcapng (editcap), a pcapng of four
# sections built here with enhanced, simple and obsolete packet blocks,
# statistics blocks between them, and both byte orders (all read by
# analyzer/pcapfile.c), and the lab pcap as version 2.3 (read by libpcap).
# Each is listed with no filter and with BPF filters; every listed frame's
# number, lengths, time and PSN must be tshark's for that number,
# the numbers must be the ones tshark's matching display filter keeps, and
# the text listing must number frames as the JSON does.  Needs python3,
# tshark and editcap.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
R=$BUILD/bin/rocetop
LAB=$root/captures/lab
TSHARK=${TSHARK:-tshark}

if [ ! -x "$R" ]; then
	echo "frameno: $R not built" >&2
	exit 2
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/frameno.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM

fails=0
if ! editcap -F pcapng "$LAB/roce_send_bw_netem.pcap" "$T/netem.pcapng" 2>"$T/err"; then
	echo "FAIL editcap -F pcapng: $(cat "$T/err")"
	exit 1
fi

# Four sections from the rping capture: EPBs; then EPB, SPB and obsolete PB in
# turn; then EPBs with an interface statistics block before and after; then
# EPBs in big-endian byte order.
python3 - "$LAB/roce_rping.pcap" "$T/sections.pcapng" <<'EOF' || exit 1
import struct, sys

b = open(sys.argv[1], "rb").read()
magic = struct.unpack("<I", b[:4])[0]
assert magic in (0xa1b2c3d4, 0xa1b23c4d), "little-endian pcap expected"
scale = 1 if magic == 0xa1b2c3d4 else 1000
frames, off = [], 24
while off + 16 <= len(b):
    sec, frac, cap, orig = struct.unpack("<IIII", b[off:off + 16])
    frames.append((sec * 1000000 + frac // scale, orig, b[off + 16:off + 16 + cap]))
    off += 16 + cap

E = "<"   # the byte order of the section being written

def block(t, body):
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack(E + "II", t, n) + body + struct.pack(E + "I", n)

def shb():
    return block(0x0A0D0D0A, struct.pack(E + "IHHq", 0x1A2B3C4D, 1, 0, -1))

def idb():
    return block(1, struct.pack(E + "HHI", 1, 0, 65535))

def isb(ts):
    return block(5, struct.pack(E + "III", 0, ts >> 32, ts & 0xffffffff))

def epb(f):
    ts, orig, d = f
    return block(6, struct.pack(E + "IIIII", 0, ts >> 32, ts & 0xffffffff, len(d), orig) + d)

def pb(f):
    ts, orig, d = f
    return block(2, struct.pack(E + "HHIIII", 0, 0, ts >> 32, ts & 0xffffffff, len(d), orig) + d)

def spb(f):
    ts, orig, d = f
    assert orig == len(d)
    return block(3, struct.pack(E + "I", orig) + d)

out = [shb(), idb()] + [epb(f) for f in frames[:15]]
out += [shb(), idb()] + [(epb, spb, pb)[i % 3](f) for i, f in enumerate(frames[15:36])]
out += [shb(), idb(), isb(frames[36][0])] + [epb(f) for f in frames[36:46]] + [isb(frames[45][0])]
E = ">"
out += [shb(), idb()] + [epb(f) for f in frames[46:]]
open(sys.argv[2], "wb").write(b"".join(out))
EOF

# The lab pcap as version 2.3, which analyzer/pcapfile.c leaves to libpcap
# (the filter runs on libpcap's frames then)
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[6] = 3; open(sys.argv[2], "wb").write(b)' \
	"$LAB/roce_send_bw_netem.pcap" "$T/v2.3.pcap" || exit 1

# Per capture: tshark reads it once; each filter's frames are those whose
# tshark fields satisfy the same condition, written in Python.
for cap in "$LAB/roce_send_bw_netem.pcap" "$T/netem.pcapng" "$T/sections.pcapng" "$T/v2.3.pcap"; do
	"$TSHARK" -r "$cap" -T fields -e frame.number -e frame.len -e frame.cap_len -e frame.time_epoch \
		-e infiniband.bth.psn -e ip.src -e udp.srcport -e infiniband.bth.opcode >"$T/all" 2>"$T/err" || {
		echo "FAIL tshark -r $(basename "$cap"): $(head -c 300 "$T/err")"
		fails=$((fails + 1))
		continue
	}
	TZ=UTC python3 - "$R" "$cap" "$T/all" <<'EOF' || fails=$((fails + 1))
import json, os, subprocess, sys
top, cap, allf = sys.argv[1:4]
name = os.path.basename(cap)
rows = {}
for l in open(allf):
    c = l.rstrip("\n").split("\t")
    rows[int(c[0])] = c
# BPF filter -> the same condition on tshark's fields (number, len, caplen,
# time, psn, ip.src, udp.srcport, bth.opcode)
FILTERS = [
    ("", lambda c: True),
    ("udp", lambda c: c[6] != ""),
    ("not udp", lambda c: c[6] == ""),
    ("udp[8] = 0x11", lambda c: c[6] != "" and c[7] == "17"),
    ("ip src 10.99.0.2 and udp", lambda c: c[6] != "" and c[5] == "10.99.0.2"),
]
fails = 0

def run(*args):
    r = subprocess.run([top, "-r", cap, "--packets"] + list(args), capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("rocetop %s exited %d: %s" % (" ".join(args), r.returncode, r.stderr[:300]))
    return r.stdout.splitlines()

for filt, keep in FILTERS:
    what = "%s %s" % (name, filt or "(no filter)")
    errs = []
    try:
        objs = [json.loads(l) for l in run("--json", *filt.split())]
        text = [int(l.split()[0]) for l in run(*filt.split())]
        c3 = [int(l.split()[0]) for l in run("-c", "3", *filt.split())]
    except (RuntimeError, ValueError) as e:
        print("FAIL %s: %s" % (what, e))
        fails += 1
        continue
    nos = [o["frame.number"] for o in objs]
    want = [n for n in sorted(rows) if keep(rows[n])]
    if not filt and want != list(range(1, len(want) + 1)):
        errs.append("tshark numbers the file's frames %s..." % want[:3])
    if nos != want:
        errs.append("numbers %s... (%d), tshark's %s... (%d)" % (nos[:4], len(nos), want[:4], len(want)))
    if text != nos:
        errs.append("text listing numbers %s..., JSON %s..." % (text[:4], nos[:4]))
    if c3 != want[:3]:
        errs.append("-c 3: frames %s, want %s" % (c3, want[:3]))
    for o in objs:
        c = rows.get(o["frame.number"])
        if c is None:
            errs.append("frame %d: not in the file" % o["frame.number"])
            break
        # a simple packet block has no time: tshark shows none, libpcap 0
        w = [int(c[1]), int(c[2]), c[3] or "0.000000000", int(c[4]) if c[4] else None]
        g = [o["frame.len"], o["frame.cap_len"], o["frame.time_epoch"], o.get("infiniband.bth.psn")]
        if g != w:
            errs.append("frame %d: len, caplen, time, psn %s, tshark %s" % (o["frame.number"], g, w))
            break
    if errs or not nos:
        print("FAIL %s: %s" % (what, "; ".join(errs) or "no frames"))
        fails += 1
    else:
        print("ok   %s: %d frames, numbers %d..%d as tshark's (lengths, times, PSNs; -c 3 %s)"
              % (what, len(nos), nos[0], nos[-1], c3))
sys.exit(1 if fails else 0)
EOF
done

[ "$fails" -eq 0 ] || exit 1
