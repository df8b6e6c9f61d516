#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rtt_ref.py — an independent reference for rocetop's RTT figures.

Reads a classic pcap with struct (no libroce, no rocetop code), finds the
RC requests and responses of RoCE (v1 and v2), and applies issue 11's rule
per PSN:

  * a request PSN sent once (Karn: a PSN sent again never samples) that
    the responder answers with that same PSN gives one sample:
      ACK (AETH syndrome ACK) or ATOMIC ACK                    -> rtt_us
      the first READ response (FIRST or ONLY) of a READ request -> read_rtt_us
  * NAKs and RNR NAKs give none; a second ACK of a PSN gives none; an ACK
    (or a last READ response) answers every request up to its PSN, a NAK
    every request before its PSN: those leave unsampled.
  * a READ request takes the PSNs of its responses (FIRST .. LAST): a
    READ asked again from one of them is a resend;
  * frames whose ICRC is wrong are not analysed (computed here with zlib's
    CRC-32 from the masking rules of IBTA 7.8.1 / Annex A16 / A17).

A response flow B->A (DestQP QA) answers the requests of the flow A->B
that sent its PSN first (remembered per response flow).

  rtt_ref.py CAPTURE             print the expectations as JSON
  rtt_ref.py CAPTURE ROCETOP_JSON [CAPTURE ROCETOP_JSON ...]
      compare with rocetop --json's summaries: n exact, min/max/sum exact,
      p50/p99 within 1 %; one line per capture
Exit status: 0 agree, 1 some disagree, 2 none could be read.
"""
import json
import math
import socket
import struct
import sys
import zlib

RC_REQ = set(range(0, 13)) | {19, 20, 22, 23, 24, 25}
READ_REQ = 12
ACK, ATOMIC_ACK = 17, 18
RD_FIRST, RD_MIDDLE, RD_LAST, RD_ONLY = 13, 14, 15, 16
MASK = 0xFFFFFF


def pdiff(a, b):
    d = (a - b) & MASK
    return d - (1 << 24) if d & 0x800000 else d


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError("short file")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        raise ValueError("not a classic pcap")
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    linktype = struct.unpack(e + "I", data[20:24])[0] & 0x0FFFFFFF
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(e + "IIII", data[off:off + 16])
        off += 16
        pkt = data[off:off + incl]
        off += incl
        yield sec * 1000000000 + (frac if nano else frac * 1000), linktype, pkt


def l3_of(linktype, pkt):
    """(ethertype, offset of the layer-3 header) or None."""
    if linktype == 1:
        o, et = 14, struct.unpack(">H", pkt[12:14])[0] if len(pkt) >= 14 else None
        while et in (0x8100, 0x88A8, 0x9100) and len(pkt) >= o + 4:
            et = struct.unpack(">H", pkt[o + 2:o + 4])[0]
            o += 4
        return (et, o) if et is not None else None
    if linktype in (101, 12, 14):
        v = pkt[0] >> 4 if pkt else 0
        return ({4: 0x0800, 6: 0x86DD}.get(v), 0)
    if linktype == 228:
        return (0x0800, 0)
    if linktype == 229:
        return (0x86DD, 0)
    if linktype == 113 and len(pkt) >= 16:
        return (struct.unpack(">H", pkt[14:16])[0], 16)
    if linktype == 276 and len(pkt) >= 20:
        return (struct.unpack(">H", pkt[0:2])[0], 20)
    return None


def icrc_ok(kind, pkt, l3, end):
    """kind: 'v1', 'v4', 'v6'; pkt[l3:end] is from the network header to the ICRC."""
    h = bytearray(pkt[l3:end])
    if kind == "v4":
        ihl = (h[0] & 15) * 4
        h[1] = 0xFF
        h[8] = 0xFF
        h[10:12] = b"\xff\xff"
        h[ihl + 6:ihl + 8] = b"\xff\xff"
        bth = ihl + 8
    else:
        h[0] |= 0x0F
        h[1:4] = b"\xff\xff\xff"
        h[7] = 0xFF
        bth = 40
        if kind == "v6":
            h[46:48] = b"\xff\xff"
            bth = 48
    h[bth + 4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(h)) & 0xFFFFFFFF
    return struct.unpack("<I", pkt[end:end + 4])[0] == crc


def roce(linktype, pkt):
    """(src, dst, bth offset, icrc good) for RoCE, else None."""
    r = l3_of(linktype, pkt)
    if not r or r[0] is None:
        return None
    et, o = r
    if et == 0x8915:                      # RoCEv1: GRH, next header 0x1B
        if len(pkt) < o + 40 + 12 + 4 or pkt[o + 6] != 0x1B:
            return None
        src, dst = pkt[o + 8:o + 24], pkt[o + 24:o + 40]
        plen = struct.unpack(">H", pkt[o + 4:o + 6])[0]
        end = o + 40 + plen - 4
        kind, bth = "v1", o + 40
    elif et == 0x0800 and len(pkt) >= o + 20:
        ihl = (pkt[o] & 15) * 4
        if pkt[o + 9] != 17:
            return None
        tot = struct.unpack(">H", pkt[o + 2:o + 4])[0]
        src, dst = pkt[o + 12:o + 16], pkt[o + 16:o + 20]
        u = o + ihl
        end = o + tot - 4
        kind, bth = "v4", u + 8
    elif et == 0x86DD and len(pkt) >= o + 40:
        if pkt[o + 6] != 17:
            return None
        plen = struct.unpack(">H", pkt[o + 4:o + 6])[0]
        src, dst = pkt[o + 8:o + 24], pkt[o + 24:o + 40]
        u = o + 40
        end = o + 40 + plen - 4
        kind, bth = "v6", u + 8
    else:
        return None
    if kind != "v1":
        if len(pkt) < u + 8 or struct.unpack(">H", pkt[u + 2:u + 4])[0] != 4791:
            return None
    if len(pkt) < bth + 12 or end > len(pkt) - 4 or end < bth + 12:
        return None
    good = icrc_ok(kind, pkt, o, end)
    return addr(src), addr(dst), bth, good


def addr(b):
    if len(b) == 4:
        return socket.inet_ntop(socket.AF_INET, b)
    if b[:12] == b"\0" * 10 + b"\xff\xff":
        return socket.inet_ntop(socket.AF_INET, b[12:])
    return socket.inet_ntop(socket.AF_INET6, b)


class ReqFlow:
    def __init__(self):
        self.sent = set()          # PSNs sent so far
        self.out = {}              # psn -> (kind 'ack'|'read', ts)
        self.samples = {"rtt_us": [], "read_rtt_us": []}
        self.read_first = None     # PSN of the last FIRST READ response

    def clear_below(self, psn, inclusive):
        for q in [q for q in self.out if pdiff(q, psn) < 0 or (inclusive and q == psn)]:
            del self.out[q]


def analyse(path):
    flows = {}                     # (src, dst, dqpn) -> ReqFlow
    owner = {}                     # response flow key -> request flow key
    for ts, lt, pkt in frames(path):
        r = roce(lt, pkt)
        if not r:
            continue
        src, dst, b, good = r
        op = pkt[b]
        if not good or (op >> 5) not in (0, 5):      # RC, XRC
            continue
        low = op & 0x1F
        dqpn = struct.unpack(">I", pkt[b + 4:b + 8])[0] & MASK
        psn = struct.unpack(">I", pkt[b + 8:b + 12])[0] & MASK
        if low in RC_REQ:
            f = flows.setdefault((src, dst, dqpn), ReqFlow())
            if psn in f.sent:
                f.out.pop(psn, None)                  # Karn
                continue
            f.sent.add(psn)
            f.out[psn] = ("read" if low == READ_REQ else "ack", ts)
            continue
        if low not in (ACK, ATOMIC_ACK, RD_FIRST, RD_MIDDLE, RD_LAST, RD_ONLY):
            continue
        rk = (src, dst, dqpn)
        if rk not in owner:
            cands = [k for k in flows if k[0] == dst and k[1] == src and psn in flows[k].sent]
            if not cands:
                continue
            owner[rk] = cands[0]
        f = flows[owner[rk]]
        if low in (ACK, ATOMIC_ACK):
            syn = pkt[b + 12] if len(pkt) > b + 12 else 0
            typ = syn >> 5
            if typ == 0:                               # ACK
                e = f.out.get(psn)
                if e and e[0] == "ack" and ts >= e[1]:
                    f.samples["rtt_us"].append(ts - e[1])
                if e and e[0] == "ack":
                    del f.out[psn]
                f.clear_below(psn, False)
                if psn in f.out and f.out[psn][0] == "ack":
                    del f.out[psn]
            elif typ in (1, 3):                        # RNR NAK, NAK
                f.clear_below(psn, False)
            continue
        if low == RD_FIRST:
            f.read_first = psn
        if low == RD_LAST and f.read_first is not None and 0 < pdiff(psn, f.read_first) < 65536:
            # a READ takes one PSN per response packet: [FIRST, LAST] were
            # all sent (a READ asked again from the middle is a resend)
            for k in range(pdiff(psn, f.read_first) + 1):
                f.sent.add((f.read_first + k) & MASK)
        if low in (RD_FIRST, RD_ONLY):
            e = f.out.get(psn)
            if e and e[0] == "read":
                if ts >= e[1]:
                    f.samples["read_rtt_us"].append(ts - e[1])
                del f.out[psn]
        if low in (RD_LAST, RD_ONLY):
            f.clear_below(psn, True)
    return flows


def stats(v):
    if not v:
        return {"n": 0}
    s = sorted(v)
    n = len(s)
    rank = lambda q: s[max(1, math.ceil(q * n)) - 1]
    return {"n": n, "min": s[0] / 1e3, "max": s[-1] / 1e3, "p50": rank(0.5) / 1e3, "p99": rank(0.99) / 1e3,
            "sum": sum(s) / 1e3}


def expect(path):
    exp = {}
    for (s, d, q), f in analyse(path).items():
        for k, v in f.samples.items():
            if v:
                exp[(s, d, q, k)] = stats(v)
    return exp


def compare(cap, js):
    """Prints one line (and one per difference); 0 agree, 1 differ, 2 unreadable."""
    try:
        exp = expect(cap)
    except (OSError, ValueError, struct.error) as e:
        print("rtt_ref: %s: %s" % (cap, e), file=sys.stderr)
        return 2
    with open(js) as fh:
        summ = [json.loads(l) for l in fh if l.startswith("{")]
    summ = [s for s in summ if s.get("type") == "summary"][-1]
    got = {}
    for fl in summ.get("flows", []):
        for k in ("rtt_us", "read_rtt_us"):
            h = fl.get(k)
            if h and h["n"]:
                got[(fl["src"], fl["dst"], fl["destqp"], k)] = h
    bad = 0
    for key in sorted(set(exp) | set(got), key=str):
        e, g = exp.get(key, {"n": 0}), got.get(key, {"n": 0})
        what = "%s>%s/%d %s" % key
        if e["n"] != g["n"]:
            print("rtt_ref: %s: %s n %d, expected %d" % (cap, what, g["n"], e["n"]))
            bad += 1
            continue
        for f in ("min", "max", "sum"):
            if abs(float(g[f]) - e[f]) > 1e-6 * max(1, e[f]):
                print("rtt_ref: %s: %s %s %s, expected %s" % (cap, what, f, g[f], e[f]))
                bad += 1
        for f in ("p50", "p99"):
            if g[f] is None or abs(float(g[f]) - e[f]) > 0.01 * e[f]:
                print("rtt_ref: %s: %s %s %s, expected %s (1 %%)" % (cap, what, f, g[f], e[f]))
                bad += 1
    n = sum(v["n"] for v in exp.values())
    print("rtt_ref: %s: %d flows, %d samples, %s" % (cap, len(exp), n,
                                                     "agree" if not bad else "%d differences" % bad))
    return 1 if bad else 0


def main():
    a = sys.argv[1:]
    if not a or (len(a) > 1 and len(a) % 2):
        print("usage: rtt_ref.py CAPTURE | rtt_ref.py CAPTURE ROCETOP_JSON [CAPTURE ROCETOP_JSON ...]",
              file=sys.stderr)
        return 2
    if len(a) == 1:
        try:
            exp = expect(a[0])
        except (OSError, ValueError, struct.error) as e:
            print("rtt_ref: %s: %s" % (a[0], e), file=sys.stderr)
            return 2
        print(json.dumps({"%s>%s/%d %s" % k: v for k, v in exp.items()}, indent=1))
        return 0
    rc = [compare(a[i], a[i + 1]) for i in range(0, len(a), 2)]
    return 1 if 1 in rc else 2 if all(r == 2 for r in rc) else 0


if __name__ == "__main__":
    sys.exit(main())
