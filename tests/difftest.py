#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""difftest.py — hold rocetop's JSON listing against tshark, field by field.

For every capture under captures/ (lab/, gen/, public/, recursively):

  1. run  $BUILD/bin/rocetop -r F --packets --json  (one JSON object per frame);
  2. take every key rocetop emits anywhere that is a Wireshark field name
     (every key not under "roce."; tshark -G fields must know it, else that is
     a naming error reported as a difference of kind "unknown-field");
  3. run tshark once on F with -T json and -e KEY for those keys, with the
     options that make tshark decode what libroce decodes (TSHARK_OPTS);
  4. compare per frame, per key: "value" (both have it, values differ),
     "missing" (tshark has it, rocetop not), "extra" (rocetop has it, tshark
     not), "frames" (frame counts differ).  Values are normalised by the
     field's type in tshark (integers in any base, booleans, bytes with or
     without separators, IPv6 canonical form, MACs lowercase).

A difference that is Wireshark's own limit or misdecode is listed in EXPLAINED
with the reason; any other difference makes the test fail (exit 1).

Then two ICRC assertions on the lab captures (captures/lab/roce_*.pcap):
  - every RoCE frame's ICRC is "good", except the one deliberately corrupted
    frame of roce_host_inject.pcap, which is "bad";
  - every RoCE frame with one byte changed inside the ICRC-covered region
    (rotating over the BTH PSN, the last covered byte before the ICRC and the
    IP source address) is reported "bad".

And the MPA CRC32c verdicts on the captures that negotiated CRC (MPA_CRC_CAPTURES):
  - per frame, rocetop's roce.mpa.crc.status values (FPDUs reassembled across
    segments, listed on the frame that completes them) equal tshark's
    iwarp_mpa.crc_check status ("Good CRC32" / "Bad CRC32" in its showname);
  - the same on copies with one CRC-covered byte changed in every data segment
    (the byte before the segment's last four), where every changed segment
    must turn exactly one FPDU bad in both.

Environment: BUILD (default "build"), TSHARK (default "tshark"),
DIFFTEST_JOBS (parallel captures, default: CPU count), DIFFTEST_VERBOSE=1 (list
every difference), DIFFTEST_CAPTURES=glob[,glob] (only these captures, relative
to captures/; the ICRC assertions then cover only the lab captures selected),
DIFFTEST_CAPDIR (another captures directory, for trying fixtures before they
are committed), DIFFTEST_SKIP_FIELDS=glob[,glob] (fields not to compare, e.g.
while a decoder is being written; the summary then says so).
"""

import concurrent.futures
import decimal
import fnmatch
import glob
import hashlib
import ipaddress
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", "build")
ROCETOP = os.path.join(ROOT, BUILD, "bin", "rocetop") if not os.path.isabs(BUILD) \
    else os.path.join(BUILD, "bin", "rocetop")
TSHARK = os.environ.get("TSHARK", "tshark")
CAPTURES = os.environ.get("DIFFTEST_CAPDIR") or os.path.join(ROOT, "captures")
VERBOSE = os.environ.get("DIFFTEST_VERBOSE") == "1"

# What makes tshark 4.0 decode what libroce decodes:
#  - UDP 1021 is RoCEv2 for libroce (pre-WinOF 5.35 drivers); tshark only
#    knows 4791 unless told;
#  - a UDP *source* port 69 (flow-entropy hash) makes tshark try TFTP first;
#  - perftest's rdma_cm control messages are misread as RPC-over-RDMA;
#  - ib_write_lat's 2-byte RDMA WRITE payloads are handed to CRTP, which
#    throws ("Malformed Packet: CRTP") before the InfiniBand dissector adds
#    the ICRC (lab/roce_netem_diag_write_lat_u12.pcap: 8 frames).
TSHARK_OPTS = [
    "-d", "udp.port==1021,infiniband",
    "--disable-protocol", "rpcordma",
    "--disable-protocol", "tftp",
    "--disable-protocol", "crtp",
]

# Extra options per capture: (glob relative to captures/, rocetop args, tshark args).
# A capture built on a port the caller adds needs the port on both sides.
CAPTURE_OPTS = [
    ("gen/*port5000*", ["-d", "5000"], ["-d", "udp.port==5000,infiniband"]),
    ("gen/*port_5000*", ["-d", "5000"], ["-d", "udp.port==5000,infiniband"]),
]


# ---- the frame filters of EXPLAINED ----------------------------------------
# Each takes a difference d: d.kind, d.field, d.ours (rocetop's value),
# d.theirs (tshark's), d.obj (rocetop's JSON object for the frame), d.tl
# (tshark's fields for the frame, AUX_FIELDS included), d.path (the capture).

def _opcode(d):
    v = (d.obj or {}).get("infiniband.bth.opcode")
    return v if isinstance(v, int) and not isinstance(v, bool) else -1


def _tl(d, field):
    return as_list(d.tl.get(field, []))


def _ext_field(d):
    """A field of a header after the BTH (extended headers, MAD, ICRC)."""
    return d.field.startswith("infiniband.") and not d.field.startswith(
        ("infiniband.bth.", "infiniband.grh."))


def _vendor(d, opcodes):
    """tshark shows everything after the BTH as infiniband.vendor; rocetop decoded it."""
    return d.kind == "extra" and _ext_field(d) and _opcode(d) in opcodes \
        and bool(_tl(d, "infiniband.vendor"))


XRC_OPS = range(0xa0, 0xc0)
RD_OPS = range(0x40, 0x60)


def _twice(d):
    """tshark gives the field twice, both times with rocetop's value."""
    t = as_list(d.theirs)
    return d.kind == "value" and not isinstance(d.ours, list) and len(t) == 2 \
        and all(norm("FT_BYTES", x) == norm("FT_BYTES", d.ours) for x in t)


def _cm_req_path(d):
    """A REQ whose primary path word (REQ bytes 88..91: flow label 20 bits, reserved 6,
    packet rate 6) tshark reads as Wireshark 4.0 does: flow label = the 3 bytes 88..90 >> 12,
    packet rate = byte 88 & 0x3f."""
    o = d.obj or {}
    data = o.get("infiniband.mad.data")
    if d.kind != "value" or not isinstance(data, str) or len(data) < 2 * 92:
        return False
    w = int(data[176:184], 16)
    ws = norm("FT_UINT32", as_list(d.theirs)[0])
    if d.field.endswith("flowlabel"):
        return d.ours == w >> 12 and ws == (w >> 8) >> 12
    return d.ours == (w & 0x3f) and ws == (w >> 24) & 0x3f


def _fcs_state(d):
    """(frame bytes, whether the last 4 bytes are the frame's CRC-32) or (None, None)."""
    b = frame_bytes(d.path, d.frame)
    if b is None or len(b) < 18:
        return None, None
    return b, zlib.crc32(b[:-4]) == int.from_bytes(b[-4:], "little")


def _last4(b):
    return (int.from_bytes(b[-4:], "little"), int.from_bytes(b[-4:], "big"))


def _fcs_guessed(d):
    """tshark shows an FCS that is the last 4 bytes of a trailer but not the frame's CRC-32."""
    b, ok = _fcs_state(d)
    if d.kind != "missing" or b is None or ok or len(b) < 64:
        return False
    return [norm("FT_UINT32", x) for x in as_list(d.theirs)] in ([v] for v in _last4(b))


def _fcs_claimed(d):
    """MAC Control frame whose last 4 bytes are its CRC-32; tshark shows no FCS."""
    b, ok = _fcs_state(d)
    return d.kind == "extra" and bool(ok) and b[12:14] == b"\x88\x08" and d.ours in _last4(b)


def _fcs_vlan_trailer(d):
    """An FCS after an 802.1Q tag, which tshark shows as vlan.trailer."""
    b, ok = _fcs_state(d)
    return d.kind == "extra" and bool(ok) and d.ours in _last4(b) \
        and [norm("FT_BYTES", x) for x in _tl(d, "vlan.trailer")] == [b[-4:].hex()]


def _v1_fcs(d):
    """RoCEv1 frame with a good FCS: tshark reads the FCS as the ICRC and shows no FCS."""
    b, ok = _fcs_state(d)
    o = d.obj or {}
    if not ok or o.get("roce.version") != "v1" or o.get("roce.fcs.status") != "good":
        return False
    if d.field == "eth.fcs":
        return d.kind == "extra" and d.ours in _last4(b)
    return d.field == "infiniband.invariant.crc" and d.kind == "value" \
        and norm("FT_UINT32", as_list(d.theirs)[0]) == int.from_bytes(b[-4:], "big")


# libroce's layers, bottom up (roce.invalid.layer names), and which fields belong to each.
LAYERS = ["link", "vlan", "ipv4", "ipv6", "udp", "grh", "bth", "ext", "payload", "icrc", "mad"]
LAYER_OF = [("eth.", "link"), ("sll.", "link"), ("vlan.", "vlan"), ("ieee8021a", "vlan"),
            ("ip.", "ipv4"), ("ipv6.", "ipv6"), ("udp.", "udp"), ("infiniband.grh.", "grh"),
            ("infiniband.bth.", "bth"), ("infiniband.invariant.", "icrc"),
            ("infiniband.mad", "mad"), ("infiniband.cm.", "mad"), ("infiniband.", "ext")]


def _layer(field):
    for prefix, layer in LAYER_OF:
        if field.startswith(prefix):
            return LAYERS.index(layer)
    return -1


def _stopped_at_invalid(d):
    """Both call the frame invalid; rocetop stopped at that layer, tshark decoded on."""
    inv = (d.obj or {}).get("roce.invalid.layer")
    return d.kind == "missing" and inv in LAYERS and _layer(d.field) > LAYERS.index(inv) \
        and bool(_tl(d, "_ws.expert.message"))


def _bogus_ipv4(d):
    o = d.obj or {}
    return d.kind == "extra" and o.get("roce.invalid.layer") == "ipv4" \
        and d.field.startswith("ip.") \
        and any("Bogus IP" in m for m in _tl(d, "_ws.expert.message"))


def _icrc_after_malformed_ext(d):
    o = d.obj or {}
    return d.kind == "extra" and d.field == "infiniband.invariant.crc" \
        and o.get("roce.invalid.layer") in ("ext", "payload") \
        and "[Malformed Packet: IB]" in _tl(d, "_ws.malformed")


def _lldp_after_duplicate(d):
    """An LLDPDU with a second Chassis ID/Port ID/TTL TLV: tshark's values of the field are
    the first ones of rocetop's (tshark stopped after the duplicate), or it has none."""
    o = d.obj or {}
    if not d.field.startswith("lldp.") or o.get("roce.invalid.layer") != "lldp" \
            or "a second Chassis ID, Port ID or TTL TLV" not in str(o.get("roce.invalid", "")):
        return False
    if d.kind == "extra":
        return True
    if d.kind != "value":
        return False
    ours, theirs = as_list(d.ours), as_list(d.theirs)
    if len(theirs) >= len(ours):
        return False
    a = [norm("FT_UINT32", x) for x in ours[:len(theirs)]]
    b = [norm("FT_UINT32", x) for x in theirs]
    return not any(isinstance(x, Bad) for x in a + b) and a == b


def _rd_bth_truncated(d):
    o = d.obj or {}
    return d.kind == "extra" and d.field.startswith("infiniband.bth.") \
        and _opcode(d) in RD_OPS and "roce.truncated" in o \
        and not any(k.startswith("infiniband.bth.") for k in d.tl)


# Differences that are Wireshark's own limits or misdecodes, each with the
# reason: (capture glob relative to captures/, frame filter (text, predicate on
# the difference), field glob, reason).  The first entry that matches explains
# a difference.  Kinds of difference: value, missing, extra, frames,
# unknown-field.
EXPLAINED = [
    # -- ARP on Ethernet (fields rocetop names only inside IPoIB)
    ("*", ("Ethernet ARP frames (no IPoIB header)",
           lambda d: d.kind == "missing" and "roce.ipoib.reserved" not in (d.obj or {})),
     "arp.*",
     "libroce decodes ARP only inside IPoIB (a native IB UD SEND); on Ethernet an ARP frame is not "
     "RoCE's and rocetop lists it as other traffic without its fields"),
    # -- iWARP framing lost (issue 11 item 7)
    ("gen/iwarp_*.pcap", ("frames after MPA framing was lost (rocetop's roce.mpa.event / out_of_sync "
                          "/ resync marks): tshark frames each segment on its own guess",
                          lambda d: any(k in (d.obj or {}) for k in
                                        ("roce.mpa.out_of_sync", "roce.mpa.event", "roce.mpa.resync"))),
     "iwarp_*",
     "Wireshark 4.0 frames every TCP segment as if an FPDU started at its first byte, so after a bad "
     "length, a misplaced marker or a TCP gap it decodes DDP/RDMAP headers out of payload bytes "
     "(queue number 0x02020202 in these fixtures); rocetop's MPA stream marks the bytes out of sync "
     "and decodes nothing until a marker, a good CRC or a flagged heuristic resynchronises it"),
    # -- Wireshark field conventions
    ("*", ("IPv6 frames, tshark ip.version == 6",
           lambda d: d.kind == "missing" and "ipv6.version" in (d.obj or {})
           and [norm("FT_UINT8", x) for x in as_list(d.theirs)] == [6]),
     "ip.version",
     "Wireshark's IPv6 dissector adds a hidden copy of the IPv4 field ip.version "
     "(\"This field makes the filter match on ip.version == 6 possible\"); libroce gives "
     "the version as ipv6.version, which is compared"),
    ("*", ("mirror copies (roce.encap) with IPv6 outside or inside: tshark's hidden ip.version 6 "
           "of each IPv6 header among the IPv4 headers' ip.version",
           lambda d: d.kind == "value" and "roce.encap" in (d.obj or {})
           and 6 in [norm("FT_UINT8", x) for x in as_list(d.theirs)]
           and [v for v in (norm("FT_UINT8", x) for x in as_list(d.theirs)) if v != 6]
           == [norm("FT_UINT8", x) for x in as_list(d.ours)]),
     "ip.version",
     "the same hidden ip.version of Wireshark's IPv6 dissector, here for a mirror's outer or inner "
     "IPv6 header next to the other's IPv4 header"),
    ("*", ("frames with ImmDt, tshark's two values both equal to rocetop's",
           lambda d: _twice(d) and _opcode(d) not in RD_OPS),
     "infiniband.immdt",
     "Wireshark registers the IMMDT header item and the Immediate Data inside it "
     "under the same name infiniband.immdt, so each ImmDt appears twice, same 4 bytes"),
    ("*", ("frames with IETH, tshark's two values both equal to rocetop's", _twice),
     "infiniband.ieth",
     "Wireshark registers the IETH header item and the R_Key inside it under the same "
     "name infiniband.ieth, so each IETH appears twice, same 4 bytes"),

    ("public/tcpdump/erspan-*", ("GRE packets that are no mirror copy (IP in GRE, protocol 0x0800; no "
                                 "roce.encap): tshark's gre.* and its second ip.* value, of the tunnelled packet",
                                 lambda d: (d.obj or {}).get("ip.proto") == 47 and "roce.encap" not in (d.obj or {})
                                 and (d.field.startswith("gre.") and d.kind == "missing"
                                      or d.field.startswith("ip.") and d.kind == "value"
                                      and len(as_list(d.theirs)) == 2)),
     "[gi][rp][e.]*",
     "libroce decodes GRE only as the carrier of a mirror copy (ERSPAN, GRE-TEB); a routed IP-in-GRE "
     "tunnel is a GRE packet to it, with no gre.* fields and only the outer IPv4 header"),
    ("public/*", ("LLDPDUs libroce marks invalid because the first TLVs are not Chassis ID, "
                  "Port ID, TTL; tshark gives no lldp.* value for the TLVs after the violation",
                  lambda d: d.field.startswith("lldp.") and (d.obj or {}).get("roce.invalid.layer") == "lldp"
                  and "Chassis ID, Port ID, TTL" in str((d.obj or {}).get("roce.invalid", ""))),
     "lldp.*",
     "802.1AB 8.5: an LLDPDU must start with Chassis ID, Port ID and TTL TLVs. Wireshark's LLDP "
     "dissector stops at the first one that is wrong (expert 'Invalid Chassis ID (0x..), "
     "expected (0x01)') and adds no field for the TLVs after it; libroce marks the layer invalid "
     "(roce.invalid.layer lldp) and goes on walking the TLV list within its bounds, so its "
     "lldp.tlv.* for the later TLVs have no tshark counterpart (tcpdump's malformed-LLDP "
     "regression captures)"),

    ("public/*", ("LLDPDUs libroce marks invalid for a second Chassis ID, Port ID or TTL TLV; "
                  "tshark's values are the first ones of rocetop's", _lldp_after_duplicate),
     "lldp.*",
     "802.1AB 8.5: an LLDPDU has exactly one Chassis ID, Port ID and TTL TLV. Wireshark 4.0's "
     "packet-lldp.c dissects a repeated one in its optional-TLV loop, then sets rtnValue = -1 "
     "(Info 'Duplicate Time-To-Live TLV') and leaves the loop, so it adds no field for the TLVs "
     "after the duplicate; libroce marks the layer invalid ('LLDP: a second Chassis ID, Port ID "
     "or TTL TLV') and walks the rest of the TLV list within its bounds (lldp_minimal.pcap: four "
     "TTL TLVs, tshark lists the first two)"),

    # -- Wireshark 4.0 InfiniBand dissector limits
    ("*", ("RD opcodes 0x40-0x5F", lambda d: _opcode(d) in RD_OPS and _ext_field(d)),
     "infiniband.*",
     "Wireshark 4.0 takes the RD opcode space (0x40-0x5F) for Mellanox DC transport and "
     "makes the BTH 20 bytes long (pdml: infiniband.bth size 20), so it reads RDETH, DETH "
     "and every later header 8 bytes too far (RDETH EE context = the DETH source QP); "
     "libroce follows IBTA 9.3: BTH 12 bytes, then RDETH, DETH, ..."),
    ("*", ("truncated RD frames without 20 bytes after the BTH's start", _rd_bth_truncated),
     "infiniband.bth.*",
     "same DC-transport reading of RD opcodes: Wireshark 4.0 adds no BTH field when fewer "
     "than its 20 BTH bytes were captured; libroce gives the 12-byte BTH it has"),
    ("*", ("XRC opcodes 0xA0-0xBF, tshark shows infiniband.vendor",
           lambda d: _vendor(d, XRC_OPS)),
     "infiniband.*",
     "Wireshark 4.0 names the XRC opcodes but has no header sequence for them "
     "(find_next_header_sequence returns -1): XRCETH, the other extended headers, payload "
     "and ICRC are one 'Unknown/Vendor Specific Data' item (infiniband.vendor)"),
    ("*", ("CNP (opcode 0x81), tshark shows infiniband.vendor", lambda d: _vendor(d, [0x81])),
     "infiniband.*",
     "Wireshark 4.0 has no CNP: after the BTH of opcode 0x81 the 16 reserved bytes and the "
     "ICRC are one 'Unknown/Vendor Specific Data' item (infiniband.vendor)"),
    ("*", ("IB CNP (opcode 0x80), tshark shows infiniband.vendor", lambda d: _vendor(d, [0x80])),
     "infiniband.*",
     "Wireshark 4.0 names opcode 0x80 CNP but has no header sequence for it: the ICRC (and in "
     "ERF the VCRC) after the BTH are one 'Unknown/Vendor Specific Data' item (infiniband.vendor)"),
    ("*", ("RC FLUSH 0x1C / ATOMIC WRITE 0x1D, tshark shows infiniband.vendor",
           lambda d: _vendor(d, [0x1c, 0x1d])),
     "infiniband.*",
     "FLUSH and ATOMIC WRITE (IBTA 1.5, Linux ib_pack.h) are unknown to Wireshark 4.0: "
     "FETH/RETH, payload and ICRC are one 'Unknown/Vendor Specific Data' item "
     "(infiniband.vendor)"),
    ("*", ("reserved opcodes (rocetop: roce.invalid 'reserved opcode'), tshark shows "
           "infiniband.vendor",
           lambda d: "reserved opcode" in str((d.obj or {}).get("roce.invalid"))
           and _vendor(d, range(256))),
     "infiniband.*",
     "a reserved opcode: Wireshark shows everything after the BTH as infiniband.vendor; "
     "libroce flags the frame invalid but still finds and verifies the ICRC (last 4 bytes "
     "of the UDP payload)"),
    ("*", ("CM REQ, values as Wireshark 4.0 misreads REQ bytes 88..91", _cm_req_path),
     "infiniband.cm.req.prim_[fp]*",
     "Wireshark 4.0 reads the REQ primary flow label from the 3 bytes at REQ offset 88 "
     "with a 32-bit mask 0xfffff000 (keeping only the top 12 of its 20 bits) and the "
     "packet rate from byte 88 instead of 91 (IBTA table 99; Linux ibta_vol1_c12.h "
     "CM_REQ_PRIMARY_FLOW_LABEL / _PACKET_RATE). libroce's flow label is the right one: "
     "rdma_cm derives the RoCEv2 UDP source port from it (lab/roce_rping.pcap: flow "
     "label 0x51b22 -> (0x1b22 ^ 0x14) | 0xc000 = 56118, the data frames' source port)"),

    # -- FCS: pcap does not say whether a frame carries one
    ("*", ("RoCEv1 frames with a good FCS", _v1_fcs),
     "*",
     "RoCEv1 has no IP length to end the packet: Wireshark 4.0 gives the InfiniBand "
     "dissector every byte after the Ethernet header (it does not use GRH PayLen), so it "
     "reads the trailing FCS as the ICRC and shows no FCS; libroce ends the packet at GRH "
     "PayLen and verifies the FCS (checked here: the last 4 bytes are the frame's CRC-32)"),
    ("*", ("frames >= 64 bytes whose last 4 bytes are not their CRC-32; tshark's eth.fcs "
           "is those 4 bytes", _fcs_guessed),
     "eth.fcs",
     "pcap does not say whether frames carry an FCS, so Wireshark guesses one, unverified, "
     "in the last 4 bytes of any trailer of a frame of 64 bytes or more (packet-eth.c "
     "add_ethernet_trailer with fcs_len -1); here those bytes are padding, not the frame's "
     "CRC-32 (checked by this test), and libroce gives eth.fcs only for an FCS that verifies"),
    ("*", ("MAC Control (0x8808) frames whose last 4 bytes are their CRC-32", _fcs_claimed),
     "eth.fcs",
     "Wireshark's MAC Control dissector claims every byte after the ethertype, so no trailer "
     "is left in which Wireshark could guess the FCS; the last 4 bytes are the frame's "
     "CRC-32 (checked by this test), which libroce verifies and gives as eth.fcs"),
    ("*", ("802.1Q-tagged frames whose last 4 bytes are their CRC-32, tshark: vlan.trailer",
           _fcs_vlan_trailer),
     "eth.fcs",
     "after an 802.1Q tag Wireshark never looks for an FCS: packet-vlan.c hands the "
     "ethertype dissector fcs_len 0, so the 4 bytes are shown as vlan.trailer; they are the "
     "frame's CRC-32 (checked by this test), which libroce verifies and gives as eth.fcs"),

    # -- invalid frames: where each decoder stops
    ("*", ("invalid frames (roce.invalid) that tshark also flags (expert info); fields above "
           "the invalid layer", _stopped_at_invalid),
     "*",
     "a length contradicts another (UDP length vs IP length, IPv6 payload length beyond "
     "the frame, payload shorter than BTH + ICRC): libroce stops at the layer it calls "
     "invalid (roce.invalid.layer) instead of guessing which length is right; Wireshark "
     "adds an expert warning and dissects on"),
    ("*", ("IPv4 header length < 20 or total length < header length", _bogus_ipv4),
     "ip.*",
     "Wireshark's IPv4 dissector returns right after flagging a bogus header length or "
     "total length (expert 'Bogus IP ...'), before adding the other header fields; libroce "
     "marks the header invalid but gives the 20 header bytes it has"),
    ("*", ("extended headers run past the ICRC; tshark: Malformed Packet: IB",
           _icrc_after_malformed_ext),
     "infiniband.invariant.crc",
     "the extended headers do not fit before the ICRC: Wireshark's InfiniBand dissector "
     "throws while reading them and never reaches the ICRC; libroce takes the ICRC from the "
     "last 4 bytes of the UDP payload and verifies it"),
]


# ---------------------------------------------------------------------------
# tshark field types

_FIELD_TYPES = None


def field_types():
    global _FIELD_TYPES
    if _FIELD_TYPES is None:
        rc, out, err = run([TSHARK, "-G", "fields"])
        if rc != 0:
            raise RuntimeError("tshark -G fields failed (exit %d): %s" % (rc, err.strip()))
        types = {}
        for line in out.splitlines():
            p = line.split("\t")
            if len(p) >= 4 and p[0] == "F":
                types[p[2]] = p[3]
        _FIELD_TYPES = types
    return _FIELD_TYPES


INT_TYPES = {"FT_UINT8", "FT_UINT16", "FT_UINT24", "FT_UINT32", "FT_UINT40", "FT_UINT48",
             "FT_UINT56", "FT_UINT64", "FT_INT8", "FT_INT16", "FT_INT24", "FT_INT32",
             "FT_INT40", "FT_INT48", "FT_INT56", "FT_INT64", "FT_FRAMENUM", "FT_CHAR"}
BYTES_TYPES = {"FT_BYTES", "FT_UINT_BYTES", "FT_ETHER", "FT_EUI64", "FT_AX25", "FT_VINES",
               "FT_FCWWN", "FT_OID", "FT_REL_OID", "FT_SYSTEM_ID", "FT_GUID"}
TIME_TYPES = {"FT_RELATIVE_TIME", "FT_ABSOLUTE_TIME", "FT_FLOAT", "FT_DOUBLE"}


class Bad(str):
    """A value that could not be normalised (kept as text, never equal to a good one)."""


def norm(ftype, v):
    """Normalises one value (rocetop's JSON value or tshark's text) for a tshark field type."""
    try:
        if ftype in INT_TYPES or ftype == "FT_BOOLEAN":
            if isinstance(v, bool):
                return int(v)
            if isinstance(v, int):
                return v
            s = str(v).strip()
            if s.lower() in ("true", "false"):
                return int(s.lower() == "true")
            s = s.split()[0]          # "200 (0xc8)" style
            return int(s, 0) if not s.lstrip("-").isdigit() else int(s, 10)
        if ftype in BYTES_TYPES:
            s = str(v).lower()
            for sep in (":", "-", ".", " "):
                s = s.replace(sep, "")
            int(s or "0", 16)
            return s
        if ftype == "FT_IPv6":
            return ipaddress.IPv6Address(str(v)).compressed
        if ftype == "FT_IPv4":
            return str(ipaddress.IPv4Address(str(v)))
        if ftype in TIME_TYPES:
            return decimal.Decimal(str(v))
        return str(v)
    except (ValueError, ArithmeticError, IndexError):
        return Bad(repr(v))


# Wireshark fields libroce should give where tshark has them, though no walker
# source names them: the 802.3 length field (the counterpart of eth.type) and
# the 802.1ad S-tag fields.
ALSO_COMPARE = ["eth.len", "ieee8021ad.priority", "ieee8021ad.dei", "ieee8021ad.id",
                "ieee8021ah.etype"]


def walker_keys(types):
    """Wireshark field names quoted in lib/*.c (the field walker and its tables)."""
    keys = set()
    lib = os.path.join(ROOT, "lib")
    for f in sorted(os.listdir(lib)):
        if f.endswith(".c"):
            with open(os.path.join(lib, f), encoding="utf-8", errors="replace") as fh:
                for k in re.findall(r'"([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)"', fh.read()):
                    if not k.startswith("roce.") and k in types:
                        keys.add(k)
    return keys


# ---------------------------------------------------------------------------
# captures and pcap files

def find_captures():
    caps = []
    for d, _, files in os.walk(CAPTURES):
        for f in files:
            # LINKTYPE_INFINIBAND (247): Wireshark 4.0's wiretap cannot open it
            if f.endswith((".pcap", ".pcapng", ".cap")) and not is_linktype_ib(os.path.join(d, f)):
                caps.append(os.path.relpath(os.path.join(d, f), CAPTURES))
    return sorted(caps)


def is_linktype_ib(path):
    """A classic pcap file of link type 247 (either byte order)."""
    with open(path, "rb") as f:
        h = f.read(24)
    if len(h) < 24 or h[:4] == b"\x0a\x0d\x0d\x0a":
        return False
    le = h[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1")
    return int.from_bytes(h[20:24], "little" if le else "big") & 0x0fffffff == 247


def magic(path):
    with open(path, "rb") as f:
        return f.read(4)


PCAP_MAGICS = (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"


def read_pcap(path):
    """Returns (header dict, [(ts_sec, ts_frac, caplen, wirelen, data)])."""
    with open(path, "rb") as f:
        buf = f.read()
    m = buf[:4]
    if m not in PCAP_MAGICS:
        raise ValueError("%s: not a pcap file" % path)
    e = "<" if m in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    vmaj, vmin, zone, sigfigs, snaplen, linktype = struct.unpack(e + "HHiIII", buf[4:24])
    hdr = dict(endian=e, magic=m, snaplen=snaplen, linktype=linktype, vmaj=vmaj, vmin=vmin)
    recs, off = [], 24
    while off + 16 <= len(buf):
        s, frac, cl, wl = struct.unpack(e + "IIII", buf[off:off + 16])
        off += 16
        recs.append((s, frac, cl, wl, buf[off:off + cl]))
        off += cl
    return hdr, recs


_FRAMES = {}


def frame_bytes(path, no):
    """The captured bytes of frame no (1-based) of a pcap file, or None."""
    if path not in _FRAMES:
        try:
            _FRAMES[path] = [r[4] for r in read_pcap(path)[1]]
        except (OSError, ValueError, struct.error):
            _FRAMES[path] = []
    recs = _FRAMES[path]
    return recs[no - 1] if isinstance(no, int) and 0 < no <= len(recs) else None


def write_pcap(path, hdr, recs):
    e = hdr["endian"]
    with open(path, "wb") as f:
        f.write(hdr["magic"])
        f.write(struct.pack(e + "HHiIII", hdr["vmaj"], hdr["vmin"], 0, 0, hdr["snaplen"],
                            hdr["linktype"]))
        for s, frac, cl, wl, data in recs:
            f.write(struct.pack(e + "IIII", s, frac, len(data), wl))
            f.write(data)


# ---------------------------------------------------------------------------
# running the two sides

# tests/run.sh runs this script for the normal and then the sanitizer build
# in one job and gives both runs one directory, TEST_SHARED: tshark's output
# does not depend on the build, so the second run takes the first one's
# (keyed by tshark's binary, its plugins and preferences, the arguments and the
# bytes of the capture read; the directory goes with the job).  make check also
# gives TEST_CACHE, a directory in the build tree that outlives the job: the
# next make check runs tshark only on what changed.  Run alone, tshark runs
# every time.
TSHARK_CACHE = os.environ.get("TEST_CACHE") or os.environ.get("TEST_SHARED")
# what else tshark reads that changes its decodes (a plugin of ours installed
# by make check-deb; a user's preferences or decode-as rules)
TSHARK_READS = ["/usr/lib/*/wireshark/plugins/**", "/usr/local/lib/*/wireshark/plugins/**",
                os.path.expanduser("~/.local/lib/wireshark/plugins/**"),
                os.path.expanduser("~/.config/wireshark/*"), "/etc/wireshark/*"]


_TSHARK_STATE = []
_TSHARK_LOCK = threading.Lock()

# Most of a tshark run here is its start-up (~0.7 CPU-s: relocating libwireshark
# and registering every dissector), and a third of that is page faults on the
# heap it fills: glibc's malloc asked for transparent huge pages (honoured in the
# kernel's "madvise" mode) and a 32 MiB heap pad takes ~35 % of a start's CPU off
# (tests/plugin.sh's wrapper does the same).  Allocation only: the decodes are
# the same, so the cache key leaves it out.
TSHARK_ENV = dict(os.environ, GLIBC_TUNABLES=":".join(filter(None, [
    os.environ.get("GLIBC_TUNABLES"), "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=33554432"])))


def _tshark_key(cmd):
    with _TSHARK_LOCK:
        if not _TSHARK_STATE:
            exe = shutil.which(cmd[0]) or cmd[0]
            for f in [exe] + sorted(f for g in TSHARK_READS for f in glob.glob(g, recursive=True)):
                try:
                    st = os.stat(f)
                except OSError:     # a dangling link: tshark reads nothing there
                    continue
                _TSHARK_STATE.append("%s %d %d\0" % (f, st.st_size, st.st_mtime_ns))
    h = hashlib.sha256("".join(_TSHARK_STATE).encode())
    for i, a in enumerate(cmd[1:], 1):
        if cmd[i - 1] == "-r":
            with open(a, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
        else:
            h.update(a.encode() + b"\0")
    return os.path.join(TSHARK_CACHE, "tshark-" + h.hexdigest())


def run(cmd):
    key = _tshark_key(cmd) if TSHARK_CACHE and cmd[0] == TSHARK else None
    if key and os.path.exists(key):
        with open(key) as f:
            return tuple(json.load(f))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=TSHARK_ENV if cmd[0] == TSHARK else None)
    r = (p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))
    if key and p.returncode == 0:
        os.makedirs(TSHARK_CACHE, exist_ok=True)
        tmp = "%s.%d.%d.tmp" % (key, os.getpid(), threading.get_ident())
        with open(tmp, "w") as f:
            json.dump(r, f)
        os.replace(tmp, key)
    return r


def capture_opts(rel):
    ra, ta = [], []
    for g, r, t in CAPTURE_OPTS:
        if fnmatch.fnmatch(rel, g):
            ra += r
            ta += t
    return ra, ta


def rocetop_json(path, extra=()):
    rc, out, err = run([ROCETOP, "-r", path, "--packets", "--json"] + list(extra))
    if rc != 0:
        raise RuntimeError("rocetop -r %s failed (exit %d): %s" % (path, rc, err.strip()))
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def tshark_json(path, keys, extra=()):
    cmd = [TSHARK, "-n", "-r", path, "-T", "json"] + TSHARK_OPTS + list(extra)
    for k in ["frame.number"] + sorted(k for k in keys if k != "frame.number"):
        cmd += ["-e", k]
    rc, out, err = run(cmd)
    if rc != 0:
        raise RuntimeError("tshark on %s failed (exit %d): %s" % (path, rc, err.strip()))
    frames = {}
    for pkt in json.loads(out or "[]"):
        layers = pkt["_source"]["layers"]
        frames[int(layers["frame.number"][0])] = layers
    return frames


def as_list(v):
    return v if isinstance(v, list) else [v]


# ---------------------------------------------------------------------------
# comparing

class Diff:
    __slots__ = ("capture", "frame", "field", "kind", "ours", "theirs", "reason", "obj", "path",
                 "tl")

    def __init__(self, capture, frame, field, kind, ours, theirs, obj, path=None, tl=None):
        self.capture, self.frame, self.field, self.kind = capture, frame, field, kind
        self.ours, self.theirs, self.obj, self.reason = ours, theirs, obj, None
        self.path, self.tl = path, tl or {}

    def text(self):
        s = "%s frame %s %s [%s]: rocetop=%s tshark=%s" % (
            self.capture, self.frame, self.field, self.kind,
            "-" if self.ours is None else json.dumps(self.ours),
            "-" if self.theirs is None else json.dumps(self.theirs))
        if self.obj is not None and "roce.opcode" in self.obj:
            s += "  (%s)" % self.obj["roce.opcode"]
        return s


def explain(d, used):
    for i, (cglob, (_, pred), fglob, reason) in enumerate(EXPLAINED):
        if not fnmatch.fnmatch(d.capture, cglob) or not fnmatch.fnmatch(d.field, fglob):
            continue
        if not pred(d):
            continue
        used[i] += 1
        return reason
    return None


def prepare(rel):
    """Converts a capture libpcap cannot read (e.g. Sniffer) to pcap in a temp file."""
    path = os.path.join(CAPTURES, rel)
    if magic(path) in PCAP_MAGICS or magic(path) == PCAPNG_MAGIC:
        return path, None
    tmp = tempfile.NamedTemporaryFile(prefix="difftest-", suffix=".pcap", delete=False)
    tmp.close()
    rc, _, err = run(["editcap", "-F", "pcap", path, tmp.name])
    if rc != 0:
        os.unlink(tmp.name)
        raise RuntimeError("editcap %s: %s" % (rel, err.strip()))
    return tmp.name, tmp.name


def ours_for(rel):
    path, tmp = prepare(rel)
    ra, ta = capture_opts(rel)
    try:
        return path, tmp, ra, ta, rocetop_json(path, ra)
    except Exception:
        if tmp:
            os.unlink(tmp)
        raise


# tshark fields fetched for the explanations only (never compared).
AUX_FIELDS = ["infiniband.vendor", "_ws.malformed", "_ws.expert.message", "vlan.trailer"]


def compare_capture(rel, path, ta, objs, keys, types):
    theirs = tshark_json(path, list(keys) + AUX_FIELDS, ta)
    diffs, compared = [], 0
    ours = {o["frame.number"]: o for o in objs}
    if set(ours) != set(theirs):
        diffs.append(Diff(rel, "*", "frame.number", "frames", len(ours), len(theirs), None))
    for no in sorted(set(ours) & set(theirs)):
        o, t = ours[no], theirs[no]
        for k in keys:
            a, b = o.get(k), t.get(k)
            if a is None and b is None:
                continue
            compared += 1
            ty = types[k]
            if b is None:
                diffs.append(Diff(rel, no, k, "extra", a, None, o, path, t))
            elif a is None:
                diffs.append(Diff(rel, no, k, "missing", None, b, o, path, t))
            else:
                na = [norm(ty, x) for x in as_list(a)]
                nb = [norm(ty, x) for x in as_list(b)]
                if na != nb or any(isinstance(x, Bad) for x in na + nb):
                    diffs.append(Diff(rel, no, k, "value", a, b if len(b) > 1 else b[0], o, path, t))
    return len(ours), compared, diffs


# ---------------------------------------------------------------------------
# ICRC assertions

def l3_offsets(linktype, d):
    """(ip_off, end of the IP datagram) of a RoCEv2 frame, or (grh_off, end) for v1."""
    if linktype == 1:
        off, et = 14, struct.unpack(">H", d[12:14])[0]
        while et in (0x8100, 0x88a8):
            et = struct.unpack(">H", d[off + 2:off + 4])[0]
            off += 4
    elif linktype == 113:
        off, et = 16, struct.unpack(">H", d[14:16])[0]
    elif linktype == 276:
        off, et = 20, struct.unpack(">H", d[0:2])[0]
    elif linktype in (101, 12, 14, 228, 229):
        off, et = 0, 0x0800 if d[0] >> 4 == 4 else 0x86dd
    else:
        raise ValueError("link type %d" % linktype)
    if et == 0x0800:
        return off, off + struct.unpack(">H", d[off + 2:off + 4])[0], "ip4"
    if et in (0x86dd, 0x8915):
        return off, off + 40 + struct.unpack(">H", d[off + 4:off + 6])[0], \
            "ip6" if et == 0x86dd else "grh"
    raise ValueError("ethertype 0x%04x" % et)


def corrupt(linktype, d, which):
    """One byte of the ICRC-covered region changed; which = 0 PSN, 1 last byte, 2 IP source."""
    off, end, kind = l3_offsets(linktype, d)
    if kind == "ip4":
        bth = off + (d[off] & 15) * 4 + 8
        src = off + 12
    elif kind == "ip6":
        bth, src = off + 40 + 8, off + 8     # no extension headers in the lab captures
    else:
        bth, src = off + 40, off + 8
    pos = [bth + 11, end - 5, src][which]
    b = bytearray(d)
    b[pos] ^= 0x5a
    return bytes(b)


def icrc_checks(all_objs):
    """Returns (lines to print, list of failures)."""
    lab_objs = {rel: objs for rel, objs in all_objs.items() if rel.startswith("lab/")}
    lines, fails = [], []
    good = bad = corrupted = detected = 0
    bad_frames = []
    tmpdir = tempfile.mkdtemp(prefix="difftest-icrc-")
    try:
        for rel, objs in sorted(lab_objs.items()):
            if not fnmatch.fnmatch(rel, "lab/roce_*.pcap"):
                continue
            roce = {o["frame.number"]: o for o in objs if "roce.version" in o}
            for no, o in sorted(roce.items()):
                st = o.get("roce.icrc.status")
                if st == "good":
                    good += 1
                elif st == "bad":
                    bad += 1
                    bad_frames.append("%s#%d" % (rel, no))
                else:
                    fails.append("%s frame %d: ICRC %s, expected good" % (rel, no, st))
            hdr, recs = read_pcap(os.path.join(CAPTURES, rel))
            out, want = [], []
            for i, r in enumerate(recs, 1):
                o = roce.get(i)
                if not o or o.get("roce.icrc.status") != "good":
                    continue
                which = len(out) % 3
                out.append(r[:4] + (corrupt(hdr["linktype"], r[4], which),))
                want.append((i, which))
            if not out:
                continue
            tmp = os.path.join(tmpdir, os.path.basename(rel))
            write_pcap(tmp, hdr, out)
            got = rocetop_json(tmp)
            corrupted += len(out)
            for (i, which), g in zip(want, got):
                if g.get("roce.icrc.status") == "bad":
                    detected += 1
                else:
                    fails.append("%s frame %d with %s changed: ICRC %s, expected bad" % (
                        rel, i, ("BTH PSN byte", "last covered byte", "IP source byte")[which],
                        g.get("roce.icrc.status")))
            if len(got) != len(out):
                fails.append("%s: %d corrupted frames written, rocetop listed %d" % (
                    rel, len(out), len(got)))
    finally:
        for f in os.listdir(tmpdir):
            os.unlink(os.path.join(tmpdir, f))
        os.rmdir(tmpdir)
    # The generated captures: every RoCE frame of gen/bad_icrc.pcap is bad, every
    # RoCE frame of the other gen/ files good (truncated ones: unchecked; invalid
    # ones are left out: their fault may or may not leave the ICRC checkable).
    gen_good = gen_bad = 0
    for rel, objs in sorted(all_objs.items()):
        if not rel.startswith("gen/") or rel in ("gen/truncated.pcap", "gen/invalid.pcap"):
            continue
        want = "bad" if rel == "gen/bad_icrc.pcap" else "good"
        for o in objs:
            if "roce.version" not in o:
                continue
            st = o.get("roce.icrc.status")
            if st != want:
                fails.append("%s frame %d: ICRC %s, expected %s" % (rel, o["frame.number"], st, want))
            elif want == "good":
                gen_good += 1
            else:
                gen_bad += 1
    for o in all_objs.get("gen/truncated.pcap", []):
        if o.get("roce.icrc.status") not in (None, "unchecked"):
            fails.append("gen/truncated.pcap frame %d: ICRC %s, expected unchecked" % (
                o["frame.number"], o.get("roce.icrc.status")))
    if any(r.startswith("gen/") for r in all_objs):
        lines.append("icrc: gen RoCE frames: %d good as built, %d bad in gen/bad_icrc.pcap"
                     % (gen_good, gen_bad))

    want_bad = ["lab/roce_host_inject.pcap"]
    if want_bad[0] in all_objs and (len(bad_frames) != 1
                                    or not bad_frames[0].startswith(want_bad[0] + "#")):
        fails.append("expected exactly one bad ICRC, in %s; got %s" % (want_bad[0], bad_frames or "none"))
    lines.append("icrc: lab RoCE frames: %d good, %d bad (%s)" % (good, bad, ", ".join(bad_frames)))
    lines.append("icrc: corrupted copies: %d of %d reported bad" % (detected, corrupted))
    return lines, fails


# ---------------------------------------------------------------------------
# MPA CRC32c verdicts against tshark's

# Captures whose MPA connections negotiated CRC (C flag), relative to captures/.
MPA_CRC_CAPTURES = ["lab/iwarp_crc_*.pcap", "public/wireshark/iwarp_*crc*.pcap"]


def tshark_crc_verdicts(path, extra=()):
    """{frame: ["good"|"bad"|"?", ...]} from tshark's iwarp_mpa.crc_check shownames."""
    rc, out, err = run([TSHARK, "-n", "-r", path, "-T", "pdml"] + TSHARK_OPTS + list(extra))
    if rc != 0:
        raise RuntimeError("tshark -T pdml on %s failed (exit %d): %s" % (path, rc, err.strip()))
    verdicts, no = {}, None
    for line in out.splitlines():
        m = re.search(r'<field name="num" [^>]*show="(\d+)"', line)
        if m:
            no = int(m.group(1))
            continue
        m = re.search(r'<field name="iwarp_mpa.crc_check" showname="([^"]*)"', line)
        if m and no is not None:
            t = m.group(1)
            verdicts.setdefault(no, []).append(
                "good" if "(Good CRC32" in t else "bad" if "(Bad CRC32" in t else "?")
    return verdicts


def rocetop_crc_verdicts(objs):
    out = {}
    for o in objs:
        v = [x for x in as_list(o.get("roce.mpa.crc.status", [])) if x in ("good", "bad")]
        if v:
            out[o["frame.number"]] = v
    return out


def count_verdicts(v):
    good = sum(x.count("good") for x in v.values())
    return good, sum(x.count("bad") for x in v.values())


def corrupt_segments(path, dst):
    """Copies a capture with the byte before the last four of every TCP payload of at least
    24 bytes that is not an MPA request/reply changed; returns the segments changed
    (retransmissions once)."""
    hdr, recs = read_pcap(path)
    out, changed = [], []
    for i, r in enumerate(recs, 1):
        d = r[4]
        try:
            off, end, kind = l3_offsets(hdr["linktype"], d)
        except (ValueError, struct.error, IndexError):
            out.append(r)
            continue
        if kind != "ip4" or len(d) < off + 20 or d[off + 9] != 6:
            out.append(r)
            continue
        tcp = off + (d[off] & 15) * 4
        if len(d) < tcp + 13:
            out.append(r)
            continue
        pay = tcp + (d[tcp + 12] >> 4) * 4
        end = min(end, len(d))
        if end - pay < 24 or d[pay:pay + 9] == b"MPA ID Re":
            out.append(r)
            continue
        b = bytearray(d)
        b[end - 5] ^= 0x5a
        out.append(r[:4] + (bytes(b),))
        key = (d[off + 12:off + 20], d[tcp:tcp + 8])     # addresses, ports, sequence number
        if key not in changed:          # a retransmission changes no other FPDU
            changed.append(key)
    write_pcap(dst, hdr, out)
    return changed


def mpa_crc_checks(prepared):
    """Returns (lines to print, list of failures)."""
    lines, fails = [], []
    rels = sorted(rel for rel in prepared
                  if any(fnmatch.fnmatch(rel, g) for g in MPA_CRC_CAPTURES))
    if not rels:
        return lines, fails
    ours_all, theirs_all, frames_agree, frames = {}, {}, 0, 0
    c_ours, c_theirs, c_changed, c_agree, c_frames = {}, {}, 0, 0, 0
    tmpdir = tempfile.mkdtemp(prefix="difftest-mpa-")
    try:
        for rel in rels:
            path, _, ra, ta, objs = prepared[rel]
            ours, theirs = rocetop_crc_verdicts(objs), tshark_crc_verdicts(path, ta)
            for no in sorted(set(ours) | set(theirs)):
                frames += 1
                if ours.get(no, []) == theirs.get(no, []):
                    frames_agree += 1
                else:
                    fails.append("%s frame %d: MPA CRC rocetop %s, tshark %s" % (
                        rel, no, ours.get(no, "-"), theirs.get(no, "-")))
            ours_all.update({(rel, k): v for k, v in ours.items()})
            theirs_all.update({(rel, k): v for k, v in theirs.items()})

            tmp = os.path.join(tmpdir, os.path.basename(rel))
            changed = corrupt_segments(path, tmp)
            c_changed += len(changed)
            ours = rocetop_crc_verdicts(rocetop_json(tmp, ra))
            theirs = tshark_crc_verdicts(tmp, ta)
            for no in sorted(set(ours) | set(theirs)):
                c_frames += 1
                if ours.get(no, []) == theirs.get(no, []):
                    c_agree += 1
                else:
                    fails.append("%s (corrupted copy) frame %d: MPA CRC rocetop %s, tshark %s" % (
                        rel, no, ours.get(no, "-"), theirs.get(no, "-")))
            c_ours.update({(rel, k): v for k, v in ours.items()})
            c_theirs.update({(rel, k): v for k, v in theirs.items()})
            bad = count_verdicts(ours)[1]
            if bad != len(changed):
                fails.append("%s (corrupted copy): %d segments changed, rocetop reports %d bad "
                             "MPA CRCs" % (rel, len(changed), bad))
    finally:
        for f in os.listdir(tmpdir):
            os.unlink(os.path.join(tmpdir, f))
        os.rmdir(tmpdir)
    og, ob = count_verdicts(ours_all)
    tg, tb = count_verdicts(theirs_all)
    lines.append("mpa crc: %d captures: rocetop %d good, %d bad; tshark %d good, %d bad; "
                 "%d of %d frames agree" % (len(rels), og, ob, tg, tb, frames_agree, frames))
    og, ob = count_verdicts(c_ours)
    tg, tb = count_verdicts(c_theirs)
    lines.append("mpa crc: corrupted copies (%d segments changed): rocetop %d good, %d bad; "
                 "tshark %d good, %d bad; %d of %d frames agree" % (
                     c_changed, og, ob, tg, tb, c_agree, c_frames))
    return lines, fails


# ---------------------------------------------------------------------------

def main():
    t0 = time.time()
    if not os.access(ROCETOP, os.X_OK):
        print("difftest: %s not built (make BUILD=%s all)" % (ROCETOP, BUILD), file=sys.stderr)
        return 2
    types = field_types()
    caps = find_captures()
    only = os.environ.get("DIFFTEST_CAPTURES")
    if only:
        caps = [c for c in caps if any(fnmatch.fnmatch(c, g) for g in only.split(","))]
    jobs = int(os.environ.get("DIFFTEST_JOBS", os.cpu_count() or 2))
    failures = []

    # Pass 1: rocetop on every capture; the union of Wireshark-named keys.
    prepared = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        futs = {rel: ex.submit(ours_for, rel) for rel in caps}
        for rel in caps:
            try:
                prepared[rel] = futs[rel].result()
            except Exception as e:        # noqa: BLE001 — reported, then the test fails
                failures.append("%s: %s" % (rel, e))
    keys, unknown = set(), {}
    for rel, (_, _, _, _, objs) in prepared.items():
        for o in objs:
            for k in o:
                # our own names: roce.* (libroce's, as the plugin's) and rocetop.* (the
                # flow engine's and the diagnosis's marks); tshark has no counterpart
                if k.startswith(("roce.", "rocetop.")):
                    continue
                if k in types:
                    keys.add(k)
                else:
                    unknown.setdefault(k, (rel, o["frame.number"], o))
    # Also every Wireshark field name written in the field walker's sources,
    # so that a field libroce should give but never does is still compared,
    # and the 802.3 length field, the counterpart of eth.type.
    keys |= walker_keys(types) | {k for k in ALSO_COMPARE if k in types}
    skip = [g for g in os.environ.get("DIFFTEST_SKIP_FIELDS", "").split(",") if g]
    if skip:
        keys = {k for k in keys if not any(fnmatch.fnmatch(k, g) for g in skip)}
        unknown = {k: v for k, v in unknown.items()
                   if not any(fnmatch.fnmatch(k, g) for g in skip)}
    # frame.time_epoch is compared too; frame.number is the join key.

    # Pass 2: tshark once per capture, compare.
    diffs, frames, compared = [], 0, 0
    try:
        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            futs = {rel: ex.submit(compare_capture, rel, p[0], p[3], p[4], sorted(keys), types)
                    for rel, p in prepared.items()}
            for rel in sorted(futs):
                try:
                    n, c, d = futs[rel].result()
                except Exception as e:    # noqa: BLE001
                    failures.append("%s: %s" % (rel, e))
                    continue
                frames += n
                compared += c
                diffs += d
        for k, (rel, no, o) in sorted(unknown.items()):
            diffs.append(Diff(rel, no, k, "unknown-field", o.get(k), None, o, prepared[rel][0]))
        used = [0] * len(EXPLAINED)
        for d in diffs:           # before the converted captures go: some reasons read frames
            d.reason = explain(d, used)
    finally:
        for p in prepared.values():
            if p[1]:
                os.unlink(p[1])
    expl = [d for d in diffs if d.reason]
    unexpl = [d for d in diffs if not d.reason]

    # ICRC assertions on the lab captures.
    icrc_lines, icrc_fails = icrc_checks({rel: p[4] for rel, p in prepared.items()})
    failures += icrc_fails
    # MPA CRC32c verdicts against tshark's.
    try:
        mpa_lines, mpa_fails = mpa_crc_checks(prepared)
    except Exception as e:        # noqa: BLE001
        mpa_lines, mpa_fails = [], ["MPA CRC checks: %s" % e]
    icrc_lines += mpa_lines
    failures += mpa_fails

    if expl:
        print("explained differences:")
        by = {}
        for d in expl:
            by.setdefault(d.reason, []).append(d)
        for reason, ds in by.items():
            fields = sorted({d.field for d in ds})
            caps_ = sorted({d.capture for d in ds})
            print("  %5d  %s\n         fields: %s\n         captures: %s" % (
                len(ds), reason, ", ".join(fields), ", ".join(caps_)))
            if VERBOSE:
                for d in ds:
                    print("           " + d.text())
    for i, n in enumerate(used):
        if not n:
            print("note: EXPLAINED entry %d (%s, %s, %s) matched nothing" % (
                i, EXPLAINED[i][0], EXPLAINED[i][1][0], EXPLAINED[i][2]))
    if unexpl:
        shown = unexpl if VERBOSE else unexpl[:50]
        print("UNEXPLAINED differences (%s %d):" % ("all" if VERBOSE else "first 50 of", len(unexpl)))
        for d in shown:
            print("  " + d.text())
        summ = {}
        for d in unexpl:
            summ[(d.field, d.kind)] = summ.get((d.field, d.kind), 0) + 1
        print("unexplained by field:")
        for (f, k), n in sorted(summ.items(), key=lambda x: (-x[1], x[0])):
            print("  %6d  %s [%s]" % (n, f, k))
        byc = {}
        for d in unexpl:
            byc.setdefault(d.capture, set()).add(d.frame)
        print("unexplained by capture (frames):")
        for c, fr in sorted(byc.items()):
            print("  %6d  %s" % (len(fr), c))
    for line in icrc_lines:
        print(line)
    for f in failures:
        print("FAIL: " + f)
    print("difftest: %d captures, %d frames, %d fields compared, %d differences "
          "(%d explained, %d unexplained)" % (len(prepared), frames, compared, len(diffs),
                                               len(expl), len(unexpl)))
    print("difftest: %d Wireshark field names compared%s; %.1f s" % (
        len(keys), " (skipped: %s)" % ",".join(skip) if skip else "", time.time() - t0))
    return 1 if unexpl or failures else 0


if __name__ == "__main__":
    sys.exit(main())
