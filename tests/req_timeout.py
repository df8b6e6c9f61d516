#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# req_timeout.py PCAP: the local ACK timeout exponent of the capture's first
# CM REQ (RoCEv2 over IPv4), read from its bytes, independent of rocetop:
# Ethernet 14, IP 20, UDP 8 (port 4791), BTH 12 (opcode 0x64, UD SEND
# only), DETH 8: the MAD at 62 (attribute ID 0x0010 at its byte 16), its
# data at 86; IBTA CM REQ: Primary Local ACK Timeout, the high 5 bits of
# data byte 95.  Prints nothing when there is no REQ.
import struct, sys

b = open(sys.argv[1], "rb").read()
e = "<" if b[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
off = 24
while off + 16 <= len(b):
    _, _, cl, _ = struct.unpack(e + "IIII", b[off:off + 16])
    f = b[off + 16:off + 16 + cl]
    off += 16 + cl
    if (len(f) > 190 and f[12:14] == b"\x08\x00" and f[23] == 17 and f[36:38] == b"\x12\xb7"
            and f[42] == 0x64 and f[78:80] == b"\x00\x10"):
        print(f[86 + 95] >> 3)
        break
