#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""mkibraw.py OUT.pcap erf|ib — two raw native InfiniBand datagrams (IBTA vol 1
5.3, LRH LNH 1: an IPv6/UDP packet; LNH 0: the 4-byte raw header, EtherType
0x0800, an IPv4/UDP packet), each with its VCRC and no ICRC; as ERF type 21
records (tshark reads them) or LINKTYPE_INFINIBAND."""
import struct, sys, zlib
def vcrc(b):
    c = 0xFFFF
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ 0xD008 if c & 1 else c >> 1
    return c ^ 0xFFFF
def lrh(lnh, n):
    return bytes([0x00, lnh]) + struct.pack(">HHH", 2, n // 4, 1)
def pkt(lnh, body):
    body += bytes(-len(body) % 4)
    p = lrh(lnh, 8 + len(body)) + body
    return p + struct.pack("<H", vcrc(p))
udp = struct.pack(">HHHH", 5000, 6000, 12, 0) + b"abcd"
ip6 = struct.pack(">IHBB", 0x60000000, len(udp), 17, 64) + bytes(15) + b"\x01" + bytes(15) + b"\x02" + udp
ip4h = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
s = sum(struct.unpack(">10H", ip4h)); s = (s & 0xFFFF) + (s >> 16); s = (s & 0xFFFF) + (s >> 16)
ip4h = ip4h[:10] + struct.pack(">H", ~s & 0xFFFF) + ip4h[12:]
frames = [pkt(1, ip6), pkt(0, struct.pack(">HH", 0, 0x0800) + ip4h + udp)]
kind = sys.argv[2]
w = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 197 if kind == "erf" else 247)
for i, p in enumerate(frames):
    rec = (struct.pack("<Q", (1704067200 + i) << 32) + bytes([21, 4]) + struct.pack(">HHH", 16 + len(p), 0, len(p)) + p) if kind == "erf" else p
    w += struct.pack("<IIII", 1704067200 + i, 0, len(rec), len(rec)) + rec
open(sys.argv[1], "wb").write(w)
