#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""mkibmad.py OUT.pcap [erf|ib] — native InfiniBand MADs of other classes
than CM, written from the specification (IBTA vol 1 ch. 7, 13.4, 14.2,
15.2, 16.1) with their ICRC and VCRC: a LID-routed SMP and a directed-route
SMP to QP0 on VL15, an SA MAD with an RMPP header and a PerfMgt MAD to QP1.
erf: LINKTYPE_ERF records of type 21 (as ibdump writes; tshark reads them);
ib: LINKTYPE_INFINIBAND."""
import struct
import sys
import zlib


def vcrc(b):
    c = 0xFFFF
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ 0xD008 if c & 1 else c >> 1
    return c ^ 0xFFFF


def ib_packet(vl, dlid, slid, dqp, qkey, srcqp, psn, mad):
    body_len = 8 + 12 + 8 + len(mad) + 4
    lrh = bytes([vl << 4, 0x02]) + struct.pack(">HHH", dlid, body_len // 4, slid)
    bth = struct.pack(">BBHII", 0x64, 0x00, 0xFFFF, dqp & 0xFFFFFF, psn & 0xFFFFFF)
    deth = struct.pack(">II", qkey, srcqp & 0xFFFFFF)
    pkt = lrh + bth + deth + mad
    masked = bytearray(lrh + bth)
    masked[0] |= 0xF0
    masked[8 + 4] = 0xFF
    icrc = zlib.crc32(bytes(masked) + deth + mad) & 0xFFFFFFFF
    pkt += struct.pack("<I", icrc)
    return pkt + struct.pack("<H", vcrc(pkt))


def mad_hdr(cls, method, status, cspec, tid, attr, mod):
    return struct.pack(">BBBBHHQHHI", 1, cls, 1 if cls in (1, 0x81) else 2, method, status, cspec, tid, attr, 0, mod)


def mads():
    smp = mad_hdr(0x01, 0x01, 0, 0, 0x1122334455667788, 0x0015, 1) + struct.pack(">Q", 0xA1A2A3A4A5A6A7A8)
    smp += bytes(32) + bytes(range(64)) + bytes(128)
    dr = mad_hdr(0x81, 0x81, 0x8000, 0x0102, 0x99, 0x0011, 0) + struct.pack(">QHH", 0, 0xFFFF, 0xFFFF)
    dr += bytes(28) + bytes(64) + bytes([0, 1, 3] + [0] * 61) + bytes([0, 2, 4] + [0] * 61)
    sa = mad_hdr(0x03, 0x12, 0, 0, 0xABCDEF, 0x0035, 0) + bytes([1, 1, (10 << 3) | 7, 0]) + struct.pack(">II", 1, 200)
    sa += struct.pack(">QHHQ", 0, 8, 0, 0x30) + bytes(200)
    pm = mad_hdr(0x04, 0x01, 0, 0, 0x4242, 0x0012, 0) + bytes(40) + bytes(192)
    return [(15, 0xFFFF, 1, 0, 0, 0, smp), (15, 0xFFFF, 0xFFFF, 0, 0, 0, dr),
            (0, 1, 5, 1, 0x80010000, 1, sa), (0, 5, 1, 1, 0x80010000, 1, pm)]


def main():
    out, kind = sys.argv[1], sys.argv[2]
    pkts = [ib_packet(vl, d, s, q, k, sq, i, m) for i, (vl, d, s, q, k, sq, m) in enumerate(mads())]
    w = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 197 if kind == "erf" else 247)
    for i, p in enumerate(pkts):
        sec = 1704067200 + i
        if kind == "erf":
            rec = struct.pack("<Q", sec << 32) + bytes([21, 0x04]) + struct.pack(">HHH", 16 + len(p), 0, len(p)) + p
        else:
            rec = p
        w += struct.pack("<IIII", sec, 0, len(rec), len(rec)) + rec
    open(out, "wb").write(w)


main()
