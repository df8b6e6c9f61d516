#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""mkpcapng.py OUT IN.pcap... — interleaves the frames of classic pcap files
into one pcapng file, one interface per input with the input's own link
type, so that its interfaces differ in link type (libpcap stops at the first
one that differs from the first).  Round robin over the inputs; the second
half of the frames goes into a second section written in the other byte
order, whose interfaces are described again.  Interfaces alternate between
the default microsecond resolution and if_tsresol 9 (nanoseconds); the
second carries an if_tsoffset of 1000 s.  A name resolution block and a
custom block are there to be skipped.  Prints, per output frame,
"INPUT FRAME" (1-based) so the caller can check what a reader gives."""
import struct
import sys


def read_pcap(path):
    d = open(path, "rb").read()
    magic = struct.unpack("<I", d[:4])[0]
    e = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    magic, _, _, _, _, snap, lt = struct.unpack(e + "IHHiIII", d[:24])
    ns = magic == 0xA1B23C4D
    frames, off = [], 24
    while off + 16 <= len(d):
        s, f, cl, wl = struct.unpack(e + "IIII", d[off:off + 16])
        t = s * 10**9 + (f if ns else f * 1000)
        frames.append((t, wl, d[off + 16:off + 16 + cl]))
        off += 16 + cl
    return lt, snap, frames


def block(e, btype, body):
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack(e + "II", btype, n) + body + struct.pack(e + "I", n)


def opt(e, code, val):
    return struct.pack(e + "HH", code, len(val)) + val + b"\0" * (-len(val) % 4)


def shb(e):
    return block(e, 0x0A0D0D0A, struct.pack(e + "IHHq", 0x1A2B3C4D, 1, 0, -1))


def idbs(e, inputs):
    out = b""
    for i, (lt, snap, _) in enumerate(inputs):
        opts = b""
        if i % 2:
            opts += opt(e, 9, b"\x09")
        if i == 1:
            opts += opt(e, 14, struct.pack(e + "q", 1000))
        if opts:
            opts += struct.pack(e + "HH", 0, 0)
        out += block(e, 1, struct.pack(e + "HHI", lt, 0, snap) + opts)
    return out


def epb(e, i, t, wl, data):
    if i == 1:
        t -= 1000 * 10**9
    units = t if i % 2 else t // 1000
    return block(e, 6, struct.pack(e + "IIIII", i, units >> 32, units & 0xFFFFFFFF, len(data), wl) + data)


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    inputs = [read_pcap(p) for p in paths]
    order, pos = [], [0] * len(inputs)
    while any(pos[i] < len(inp[2]) for i, inp in enumerate(inputs)):
        for i, inp in enumerate(inputs):
            if pos[i] < len(inp[2]):
                order.append((i, pos[i]))
                pos[i] += 1
    half = len(order) // 2
    w = b""
    for sec, part in ((0, order[:half]), (1, order[half:])):
        e = "<" if sec == 0 else ">"
        w += shb(e) + idbs(e, inputs)
        w += block(e, 4, struct.pack(e + "HH", 0, 0))                       # empty name resolution
        w += block(e, 0x40000BAD, struct.pack(e + "I", 32473) + b"skip me")  # custom block
        for i, k in part:
            t, wl, data = inputs[i][2][k]
            w += epb(e, i, t, wl, data)
    open(out, "wb").write(w)
    for i, k in order:
        print(i + 1, k + 1)


main()
