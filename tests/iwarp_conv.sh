#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iwarp_conv.sh — `rocegen client --transport iwarp` against `rocegen server
# --transport iwarp` over TCP across a veth pair between two network
# namespaces this script makes (root; skipped without).
#
#   BUILD=build tests/iwarp_conv.sh
#
#   a. SEND, WRITE and READ, each plain (MPA rev 2, IRD/ORD, no RTR), with
#      CRC, with markers both ways and a 536-byte TCP_MAXSEG (segmentation
#      at MULPDU, markers inside FPDUs), peer-to-peer with each RTR (write,
#      read, send), and rev 1: both exit 0, every message completed, the
#      data checked (SEND: CRC-32 of what the client sent == the server's of
#      what it received; WRITE: the client's expected region == the
#      server's region; READ: every byte against the known pattern), the
#      negotiation as asked (CRC, markers each way, revision, RTR); and
#      rping's protocol (--oob cm --app rping) both ways, the data rping's
#      server wrote back equal to what its client sent; IRD/ORD negotiated in
#      MPA rev 2 (server --ird 2, client --ord 8 --ird 3: the client's ORD
#      lowered to 2, the server's to 3, each side records what the other
#      announced) and 40 READs at most 2 outstanding, none beyond the
#      server's IRD (it would Terminate);
#   b. MPA reject (--reject; --no-crc against a request with C);
#   c. faults (the client spoils one message, the server answers):
#        bad-crc    LLP (2) MPA error (0) CRC error (2)
#        bad-marker LLP (2) MPA error (0) marker mismatch (3)
#        bad-stag   WRITE: DDP (1) tagged (1) invalid STag (0);
#                   READ:  RDMAP (0) remote protection (1) invalid STag (0)
#        bad-offset WRITE: DDP tagged base or bounds (1,1,1);
#                   READ:  RDMAP remote protection base or bounds (0,1,1)
#        msn-gap    DDP (1) untagged (2) MSN range not valid (3)
#        bad-qn     DDP untagged invalid QN (1,2,1)
#        oversize   DDP untagged message too long (1,2,5)
#        terminate  the client's Terminate (RDMAP, remote op, 0xff)
#                   reaches the server, which closes
#      each: the server sent (or received) exactly that Terminate, the
#      client received it, the connection was closed, both exit 1;
#   d. perftest -R's conversation (--oob cm --app perftest, two MPA
#      connections, control SENDs): WRITE, READ with CRC, SEND past
#      perftest's credit window (600 > rx_depth 512), WRITE peer-to-peer
#      with CRC: both exit 0 with every message done, the control SENDs as
#      many as perftest makes (16; 11 for SEND), each side's results message
#      holds the other's figures, READ/SEND data CRC-32 equal on both
#      sides, SEND's last credit as perftest's receiver writes it (512 of
#      600: count % rx_depth % (rx_depth / 3) == 0), no Terminate;
#   e. ucmatose's conversation (--oob cm --app ucmatose) both ways, plain
#      and peer-to-peer with CRC and markers at a 536-byte MSS: both exit 0,
#      each side received --iters SENDs of --size bytes, the CRC-32s of what
#      each received agree, the server waited for the RTR (received 1);
#   f. TCP-level faults:
#        tcp-rst      (client) message 5 of SEND / WRITE (ucmatose: reply 4)
#                     cut by a TCP RST in its middle FPDU: both exit 1; the
#                     server saw the reset,
#                     holds exactly the half FPDU the client sent (unplaced),
#                     received every whole FPDU (5 messages and half of the
#                     6th's FPDUs), completed 5 messages, and sent no
#                     Terminate (none received either);
#        zero-window  (server) stops reading for 2 s after 100 of 200 WRITEs
#                     (4 KiB receive buffer; markers, CRC, MSS 536): a clean
#                     run (data, markers); the server's namespace advertised a
#                     zero window (TcpExt TCPToZeroWindowAdv) and the client's
#                     probed it (TCPWinProbe);
#        loss         nftables drops every 30th segment on the receiving
#                     side (WRITE: client -> server; READ: the responses):
#                     a clean run with markers and CRC, the sender's TCP
#                     retransmitted (TCP_INFO), segments really dropped, no
#                     CRC or marker error on either side;
#        tcp-loss     rocegen's own --fault tcp-loss=5% (a socket filter
#                     drops 5 % of the segments with data the side receives):
#                     200 WRITEs with the server dropping, 200 READs with both
#                     sides dropping (markers both ways, CRC, MSS 536): a
#                     clean run (every message completed, data verified, no
#                     CRC or marker error either side), each dropping side's
#                     fault counted and its TCP saw segments out of order
#                     (TCP_INFO rcv_ooopack), and a capture on the server's
#                     veth (tcpdump) holds retransmissions — data segments
#                     starting below the highest sequence already seen — in
#                     each direction towards a dropping side, and its sender's
#                     TCP_INFO counted retransmissions.
#
# Prints "ok"/"FAIL" per check; exit 1 when any check fails.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
GEN=$BUILD/bin/rocegen
[ -x "$GEN" ] || { echo "iwarp_conv: $GEN not built" >&2; exit 2; }
command -v python3 >/dev/null || { echo "iwarp_conv: python3 needed" >&2; exit 2; }
command -v nft >/dev/null || { echo "iwarp_conv: nft (nftables) needed" >&2; exit 2; }
command -v tcpdump >/dev/null || { echo "iwarp_conv: tcpdump needed" >&2; exit 2; }

if [ "$(id -u)" != 0 ]; then
	echo "skip iwarp_conv.sh (needs root for network namespaces)"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/iwconv.XXXXXX") || exit 2
NSA=iwA$$
NSB=iwB$$
VA=iwva$$
VB=iwvb$$
A=10.97.$(($$ % 200 + 10)).1
B=10.97.$(($$ % 200 + 10)).2
SPID=""
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! ip netns add "$NSA" 2>/dev/null; then
	echo "skip iwarp_conv.sh (ip netns does not work here)"
	exit 0
fi
ip netns add "$NSB"
ip link add "$VA" type veth peer name "$VB"
ip link set "$VA" netns "$NSA"
ip link set "$VB" netns "$NSB"
ip -n "$NSA" addr add "$A/24" dev "$VA"
ip -n "$NSB" addr add "$B/24" dev "$VB"
for ns in "$NSA" "$NSB"; do ip -n "$ns" link set lo up; done
ip -n "$NSA" link set "$VA" up
ip -n "$NSB" link set "$VB" up

# pair NAME "SERVER ARGS" "CLIENT ARGS": server in B, client in A; sets
# crc/src (exit statuses) and leaves $T/NAME.{c,s}.{json,err}
pair() {
	local name=$1 sargs=$2 cargs=$3
	rm -f "$T/$name".*
	# shellcheck disable=SC2086
	ip netns exec "$NSB" "$GEN" server --transport iwarp --src "$B" --timeout 30 --json $sargs \
		>"$T/$name.s.json" 2>"$T/$name.s.err" &
	SPID=$!
	for _ in $(seq 250); do
		grep -q "server: ready" "$T/$name.s.err" 2>/dev/null && break
		kill -0 "$SPID" 2>/dev/null || break
		sleep 0.02
	done
	# shellcheck disable=SC2086
	ip netns exec "$NSA" "$GEN" client --transport iwarp --peer "$B" --timeout 30 --json $cargs \
		>"$T/$name.c.json" 2>"$T/$name.c.err"
	crc=$?
	wait "$SPID"
	src=$?
	SPID=""
}

# Every case runs first, then one python3 checks them all (python3 starts
# slowly on a loaded machine): $T/cases holds "NAME CLIENT-RC SERVER-RC CHECKS...".
cat >"$T/check.py" <<'EOF'
import json, sys
T = sys.argv[1]
def load(p):
    with open(p) as f:
        return json.loads(f.read())
def term(t):
    return None if t is None else (t["layer"], t["etype"], t["code"])
def netstat(path):
    l = open(path).read().split("\n")
    return {k: int(x) for k, x in zip(l[0].split()[1:], l[1].split()[1:])}
def nsdelta(name):
    out = {}
    for ns in "AB":
        a, b = netstat("%s/%s-ns%s.0" % (T, name, ns)), netstat("%s/%s-ns%s.1" % (T, name, ns))
        out[ns] = {k: b[k] - a.get(k, 0) for k in b if b[k] != a.get(k, 0)}
    return out
tcpnote = {}
B = sys.argv[2] if len(sys.argv) > 2 else ""
def pcap_retx(path, server_ip):
    # TCP data segments (Ethernet, IPv4) starting below the highest sequence
    # number already seen in their direction: the sender's retransmissions
    import socket, struct
    d = open(path, "rb").read()
    be = d[:4] in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d")
    e = ">" if be else "<"
    off, hi, out = 24, {}, {"to_a": 0, "to_b": 0, "seg_to_a": 0, "seg_to_b": 0}
    while off + 16 <= len(d):
        incl = struct.unpack(e + "I", d[off + 8:off + 12])[0]
        p = d[off + 16:off + 16 + incl]
        off += 16 + incl
        if len(p) < 34 or p[12:14] != b"\x08\x00" or p[23] != 6:
            continue
        ihl = (p[14] & 15) * 4
        tot = struct.unpack(">H", p[16:18])[0]
        t = p[14 + ihl:]
        if len(t) < 20:
            continue
        seq = struct.unpack(">I", t[4:8])[0]
        dlen = tot - ihl - (t[12] >> 4) * 4
        if dlen <= 0:
            continue
        key = "to_b" if socket.inet_ntoa(p[30:34]) == server_ip else "to_a"
        out["seg_" + key] += 1
        if key in hi and ((seq - hi[key][0]) & 0xffffffff) < ((hi[key][1] - hi[key][0]) & 0xffffffff):
            out[key] += 1
        if key not in hi:
            hi[key] = [seq, seq]
        end = (seq + dlen) & 0xffffffff
        if ((end - hi[key][0]) & 0xffffffff) > ((hi[key][1] - hi[key][0]) & 0xffffffff):
            hi[key][1] = end
    return out
def check(name, crc, src, what):
    bad = []
    def want(cond, msg):
        if not cond: bad.append(msg)
    try:
        c = load("%s/%s.c.json" % (T, name)); s = load("%s/%s.s.json" % (T, name))
    except Exception as e:
        return None, ["cannot read the reports: %s" % e]
    if c.get("app") == "perftest":
        return check_pt(c, s, crc, src, what)
    for w in what:
        k, _, v = w.partition("=")
        if k == "good":
            want(crc == 0 and src == 0, "exit: client %d server %d (%s / %s)" % (crc, src, c["why"], s["why"]))
            want(c["ok"] and s["ok"], "ok: client %s server %s" % (c["ok"], s["ok"]))
            want(c["completed"] == c["iters"], "client completed %d of %d" % (c["completed"], c["iters"]))
            want(c["data"]["mismatches"] == 0, "client data mismatches %d" % c["data"]["mismatches"])
            want(c["term_rx"] is None and c["term_tx"] is None and s["term_tx"] is None,
                 "a Terminate on a clean run")
            want(c["peer_closed"] and s["peer_closed"], "both sides saw the other close")
        elif k == "crc":        # the client's CRC-32 == the server's
            want(c["data"]["crc"] == s["data"]["crc"], "crc: client %s server %s" % (c["data"]["crc"], s["data"]["crc"]))
        elif k == "sends":      # the server received every SEND
            want(s["msgs_rx"]["send"] == c["iters"], "server got %d SENDs of %d" % (s["msgs_rx"]["send"], c["iters"]))
        elif k == "reads":      # the server served every READ (and the fence)
            want(s["msgs_rx"]["read_req"] >= c["iters"], "server served %d READs" % s["msgs_rx"]["read_req"])
            want(c["msgs_rx"]["read_resp"] >= c["iters"], "client got %d READ responses" % c["msgs_rx"]["read_resp"])
            want(c["data"]["verified"], "client did not verify the READ data")
        elif k == "mpa":        # rev,crc,markers client->server,markers server->client,rtr
            rev, cc, m1, m2, rtr = v.split(",")
            for side, r, mtx, mrx in (("client", c, m1, m2), ("server", s, m2, m1)):
                m = r["mpa"]
                got = (m["rev"], m["crc"], m["markers_tx"], m["markers_rx"], m["rtr"])
                exp = (int(rev), cc == "1", mtx == "1", mrx == "1", rtr)
                want(got == exp, "%s mpa %s, want %s" % (side, got, exp))
        elif k == "markers":    # markers were really sent and seen inside FPDUs
            want(c["fpdu"]["markers_tx"] > 0 and s["fpdu"]["markers_rx"] == c["fpdu"]["markers_tx"],
                 "markers client->server: sent %d seen %d" % (c["fpdu"]["markers_tx"], s["fpdu"]["markers_rx"]))
        elif k == "segmented":  # MULPDU below --size: messages went in several FPDUs
            want(c["mulpdu"] < c["size"] and c["fpdu"]["tx"] > c["iters"],
                 "mulpdu %d size %d fpdus %d" % (c["mulpdu"], c["size"], c["fpdu"]["tx"]))
        elif k == "rtr":
            want(c["fpdu"]["rtr_tx"] == 1 and s["fpdu"]["rtr_rx"] == 1,
                 "RTR sent %d received %d" % (c["fpdu"]["rtr_tx"], s["fpdu"]["rtr_rx"]))
        elif k == "reject":
            want(crc == 1 and src == 0, "exit: client %d server %d" % (crc, src))
            want(c["mpa"]["rejected"] and s["mpa"]["rejected"], "rejected: client %s server %s" %
                 (c["mpa"]["rejected"], s["mpa"]["rejected"]))
            want(c["completed"] == 0 and c["fpdu"]["tx"] == 0, "the client sent FPDUs after a reject")
        elif k == "term":       # the server sent L,E,C; the client got it
            exp = tuple(int(x) for x in v.split(","))
            want(crc == 1 and src == 1, "exit: client %d server %d" % (crc, src))
            want(term(s["term_tx"]) == exp, "server sent %s, want %s" % (term(s["term_tx"]), exp))
            want(term(c["term_rx"]) == exp, "client received %s, want %s" % (term(c["term_rx"]), exp))
            want(c["peer_closed"], "the server did not close after its Terminate")
            want(sum(c["faults"].values()) == 1, "faults fired %s" % c["faults"])
        elif k == "term_from_client":
            exp = tuple(int(x) for x in v.split(","))
            want(crc == 1 and src == 1, "exit: client %d server %d" % (crc, src))
            want(term(c["term_tx"]) == exp and term(s["term_rx"]) == exp,
                 "client sent %s server got %s, want %s" % (term(c["term_tx"]), term(s["term_rx"]), exp))
            want(s["term_tx"] is None, "the server answered a Terminate with %s" % (term(s["term_tx"]),))
            want(c["peer_closed"], "the server did not close after the Terminate")
        elif k == "ucm":        # ucmatose: --iters SENDs each way, the server closed first
            want(c["msgs_rx"]["send"] == c["iters"] and s["msgs_rx"]["send"] == c["iters"],
                 "SENDs received: client %d server %d, want %d each" % (c["msgs_rx"]["send"], s["msgs_rx"]["send"], c["iters"]))
            want(s["completed"] == s["iters"] == c["iters"], "server completed %d of %d" % (s["completed"], s["iters"]))
        elif k == "rst":        # tcp-rst at message N: the reset, the half FPDU, nothing completed of N
            n = int(v)
            want(crc == 1 and src == 1, "exit: client %d server %d" % (crc, src))
            ct, st = c["tcp"], s["tcp"]
            want(ct["rst_tx"] and st["reset_rx"], "RST sent %s, reset seen %s" % (ct["rst_tx"], st["reset_rx"]))
            want(st["partial_bytes"] == ct["cut_bytes"] > 0, "server dropped %d bytes of the cut FPDU, the client sent %d" %
                 (st["partial_bytes"], ct["cut_bytes"]))
            want(s["fpdu"]["rx"] == c["fpdu"]["tx"], "FPDUs: client sent %d whole, server got %d" % (c["fpdu"]["tx"], s["fpdu"]["rx"]))
            per = -(-c["size"] // (c["mulpdu"] - (14 if c["op"] == "write" else 18)))
            want(c["fpdu"]["tx"] == n * per + per // 2, "the cut was not in message %d's middle FPDU (%d FPDUs, %d each)" %
                 (n, c["fpdu"]["tx"], per))
            got = s["msgs_rx"]["write" if c["op"] == "write" else "send"]
            want(got == n == s["completed"], "server completed %d (%d), want %d" % (s["completed"], got, n))
            want(s["term_tx"] is None and c["term_rx"] is None, "a Terminate on a reset connection")
            want(c["faults"]["tcp-rst"] == 1, "faults fired %s" % c["faults"])
        elif k == "zw":         # zero-window: the server stopped reading; the window closed, the client probed
            want(s["tcp"]["stall_ms"] >= 2000 and s["faults"]["zero-window"] == 1, "server stall %d ms, fired %d" %
                 (s["tcp"]["stall_ms"], s["faults"]["zero-window"]))
            d = nsdelta(name)
            want(d["B"].get("TCPToZeroWindowAdv", 0) >= 1, "the server advertised no zero window: %s" % d["B"])
            want(d["A"].get("TCPWinProbe", 0) >= 1, "the client sent no window probe: %s" % d["A"])
        elif k == "loss":       # segments dropped, TCP retransmitted, MPA saw nothing wrong
            dropped = int(open("%s/%s.dropped" % (T, name)).read().split()[0] or 0)
            sender = c if v == "client" else s
            want(dropped > 0, "nftables dropped no segment")
            want(sender["tcp"]["retrans"] >= 1, "%s retransmitted %d segments" % (v, sender["tcp"]["retrans"]))
            for side, r in (("client", c), ("server", s)):
                want(r["fpdu"]["crc_bad"] == 0 and r["fpdu"]["marker_bad"] == 0, "%s: CRC bad %d, markers bad %d" %
                     (side, r["fpdu"]["crc_bad"], r["fpdu"]["marker_bad"]))
            tcpnote[name] = ", %d segments dropped, %s retransmitted %d" % (dropped, v, sender["tcp"]["retrans"])
        elif k == "tcploss":    # v: the dropping sides (c, s); the capture shows the repairs
            rtx = pcap_retx("%s/%s-cap.pcap" % (T, name), B)
            for side, r, o, into in (("client", c, s, "to_a"), ("server", s, c, "to_b")):
                if side[0] not in v:
                    continue
                want(r["faults"]["tcp-loss"] == 1 and r["tcp"]["loss_pct"] == 5, "%s: tcp-loss fired %d at %s %%" %
                     (side, r["faults"]["tcp-loss"], r["tcp"]["loss_pct"]))
                want(r["tcp"]["rcv_ooopack"] >= 1, "%s: no segment out of order (rcv_ooopack 0)" % side)
                want(rtx[into] >= 1, "the capture holds no retransmission towards the %s (%d data segments towards it; tcpdump: %s)" %
                     (side, rtx["seg_" + into], " / ".join(open("%s/%s-cap.log" % (T, name)).read().split("\n")[-4:])))
                want(o["tcp"]["retrans"] >= 1, "the %s's peer retransmitted %d" % (side, o["tcp"]["retrans"]))
            for side, r in (("client", c), ("server", s)):
                want(r["fpdu"]["crc_bad"] == 0 and r["fpdu"]["marker_bad"] == 0 and r["fpdu"]["markers_rx"] > 0,
                     "%s: CRC bad %d, markers bad %d, markers received %d" % (side, r["fpdu"]["crc_bad"],
                     r["fpdu"]["marker_bad"], r["fpdu"]["markers_rx"]))
            tcpnote[name] = ", captured retransmissions to server %d / to client %d, out of order at server %d / client %d" % (
                rtx["to_b"], rtx["to_a"], s["tcp"]["rcv_ooopack"], c["tcp"]["rcv_ooopack"])
        elif k == "irdord":     # client ORD,IRD announced; server IRD: what each side negotiated
            cord, cird, sird = (int(x) for x in v.split(","))
            cm, sm = c["mpa"], s["mpa"]
            want(cm["ord"] == min(cord, sird) and cm["peer_ird"] == sird, "client ORD %d (peer IRD %d), want %d (%d)" %
                 (cm["ord"], cm["peer_ird"], min(cord, sird), sird))
            want(sm["peer_ord"] == cord and sm["peer_ird"] == cird and sm["ord"] == min(16, cird) and sm["ird"] == sird,
                 "server IRD %d ORD %d, peer IRD %d ORD %d; want %d %d, %d %d" % (sm["ird"], sm["ord"], sm["peer_ird"],
                 sm["peer_ord"], sird, min(16, cird), cird, cord))
        elif k == "hdr":        # the Terminate copied the DDP header (and the RDMAP header: R)
            want(s["term_tx"] and s["term_tx"]["hdrct"] & 0x40, "no DDP header in the Terminate")
            if v == "R":
                want(s["term_tx"] and s["term_tx"]["hdrct"] & 0x20, "no RDMAP header in the Terminate")
        else:
            bad.append("unknown check " + w)
    t = s["term_tx"] or c["term_tx"]
    summary = "%s x%d, crc32 %s, MPA rev %d crc %s markers %s/%s rtr %s, MULPDU %d, FPDUs %d/%d%s" % (
        c["op"], c["completed"], c["data"].get("crc"), c["mpa"]["rev"], c["mpa"]["crc"],
        c["mpa"]["markers_tx"], c["mpa"]["markers_rx"], c["mpa"]["rtr"], c["mulpdu"], c["fpdu"]["tx"],
        s["fpdu"]["rx"], ", Terminate %s/%s/%s" % (t["layer_name"], t["etype_name"], t["code_name"]) if t else "")
    if c["tcp"]["rst_tx"]:
        summary += ", TCP RST after %d bytes of an FPDU (server dropped %d)" % (c["tcp"]["cut_bytes"], s["tcp"]["partial_bytes"])
    if s["tcp"]["stall_ms"]:
        summary += ", server stopped reading %d ms (client's longest send %d ms)" % (s["tcp"]["stall_ms"], c["tcp"]["max_send_block_ms"])
    summary += tcpnote.get(name, "")
    return summary, bad
def check_pt(c, s, crc, src, what):
    bad = []
    def want(cond, msg):
        if not cond: bad.append(msg)
    op = c["op"]
    want(crc == 0 and src == 0, "exit: client %d server %d (%s / %s)" % (crc, src, c["why"], s["why"]))
    for side, r in (("client", c), ("server", s)):
        want(r["ok"] and r["completed"] == r["iters"], "%s: ok %s, %d of %d" % (side, r["ok"], r["completed"], r["iters"]))
        n = 11 if op == "send" else 16
        want(r["control"]["sends"] == n and r["control"]["recvs"] == n, "%s control SENDs %s, want %d each way" % (side, r["control"], n))
        for k in ("mpa", "mpa_control"):
            want(not r[k]["term_rx"] and not r[k]["term_tx"], "%s %s: a Terminate" % (side, k))
    if op == "send":
        want(c["peer_result"] is None and s["peer_result"] is None, "SEND exchanged results")
        # perftest's receiver writes its count when count % rx_depth % (rx_depth / 3) == 0
        W = min(512, c["iters"]); last = max(r for r in range(1, c["iters"] + 1) if (r % W) % max(W // 3, 1) == 0)
        want(c["credits"] == last, "client's last credit %d, want %d" % (c["credits"], last))
    else:
        for a, b, an in ((c, s, "client"), (s, c, "server")):
            p = a["peer_result"]
            want(p is not None and p["iters"] == b["completed"] and abs(p["bw_avg_mbs"] - b["bw_avg_mbs"]) < 0.01,
                 "%s's results message %s, the other side's figures %.3f" % (an, p, b["bw_avg_mbs"]))
    if op != "write":
        want(c["crc"] == s["crc"], "crc: client %s server %s" % (c["crc"], s["crc"]))
    for w in what:
        k, _, v = w.partition("=")
        if k == "mpa":          # the data connection's crc,rtr
            cc, rtr = v.split(",")
            for side, r in (("client", c), ("server", s)):
                got = (r["mpa"]["crc"], r["mpa"]["rtr"], r["mpa_control"]["crc"])
                want(got == (cc == "1", rtr, cc == "1"), "%s mpa %s, want crc %s rtr %s" % (side, got, cc, rtr))
    summary = "%s x%d, %.2f MB/s (server %.2f), control SENDs %d, credits %d, crc32 %s, MPA crc %s rtr %s" % (
        op, c["completed"], c["bw_avg_mbs"], s["bw_avg_mbs"], c["control"]["sends"], c["credits"], c["crc"],
        c["mpa"]["crc"], c["mpa"]["rtr"])
    return summary, bad
fails = n = 0
for line in open("%s/cases" % T):
    f = line.split()
    n += 1
    summary, bad = check(f[0], int(f[1]), int(f[2]), f[3:])
    if bad:
        fails += 1
        print("FAIL %s\n     %s" % (f[0], "; ".join(bad)))
        for side in "cs":
            try:
                tail = open("%s/%s.%s.err" % (T, f[0], side)).read().strip().splitlines()[-3:]
            except OSError:
                tail = []
            print("     %s: %s" % ("client" if side == "c" else "server", " | ".join(tail)))
    else:
        print("ok   %s: %s" % (f[0], summary))
print("iwarp_conv: %d ok, %d failed" % (n - fails, fails))
sys.exit(1 if fails else 0)
EOF

# run NAME "SERVER ARGS" "CLIENT ARGS" CHECKS...
: >"$T/cases"
run() {
	local name=$1 sargs=$2 cargs=$3
	shift 3
	pair "$name" "$sargs" "$cargs"
	echo "$name $crc $src $*" >>"$T/cases"
}

S="--size 8192 --iters 40"
# ---- a. conversations ------------------------------------------------------------
for op in send write read; do
	chk=crc
	[ $op = send ] && chk="crc sends"
	[ $op = read ] && chk=reads
	run "$op-plain" "--op $op $S" "--op $op $S" good $chk "mpa=2,0,0,0,none"
	run "$op-crc" "--op $op $S" "--op $op $S --crc" good $chk "mpa=2,1,0,0,none"
	run "$op-markers" "--op $op $S --markers" "--op $op $S --markers --crc --mss 536" \
		good $chk "mpa=2,1,1,1,none" markers segmented
done
run "write-rtr-write" "--op write $S" "--op write $S --rtr write --crc" good crc rtr "mpa=2,1,0,0,write"
run "read-rtr-read" "--op read $S --rtr read,send" "--op read $S --rtr write,read" good reads rtr "mpa=2,0,0,0,read"
run "send-rtr-send" "--op send $S" "--op send $S --rtr send" good crc sends rtr "mpa=2,0,0,0,send"
run "rping" "--oob cm --app rping --size 200 --iters 5" "--oob cm --app rping --size 200 --iters 5 --rtr write --crc" \
	good crc "mpa=2,1,0,0,write" rtr
run "read-ird-ord" "--op read $S --ird 2" "--op read $S --ord 8 --ird 3" good reads "irdord=8,3,2"
run "send-rev1" "--op send $S --rev 1" "--op send $S --crc" good crc sends "mpa=1,1,0,0,none"

# ---- b. MPA reject ------------------------------------------------------------------
run "reject" "--op send $S --reject" "--op send $S" reject
run "reject-crc" "--op send $S --no-crc" "--op send $S --crc" reject

# ---- c. faults ----------------------------------------------------------------------------
run "fault-bad-crc" "--op write $S" "--op write $S --crc --fault bad-crc" "term=2,0,2"
run "fault-bad-marker" "--op write $S --markers" "--op write $S --mss 536 --fault bad-marker@5" "term=2,0,3"
run "fault-bad-stag-write" "--op write $S" "--op write $S --fault bad-stag" "term=1,1,0" hdr
run "fault-bad-stag-read" "--op read $S" "--op read $S --fault bad-stag" "term=0,1,0" hdr=R
run "fault-bad-offset-write" "--op write $S" "--op write $S --fault bad-offset" "term=1,1,1" hdr
run "fault-bad-offset-read" "--op read $S" "--op read $S --fault bad-offset@3" "term=0,1,1" hdr=R
run "fault-msn-gap" "--op send $S" "--op send $S --fault msn-gap" "term=1,2,3" hdr
run "fault-bad-qn" "--op send $S" "--op send $S --fault bad-qn" "term=1,2,1" hdr
run "fault-oversize" "--op send $S" "--op send $S --mss 1000 --fault oversize" "term=1,2,5" hdr
run "fault-terminate" "--op send $S" "--op send $S --fault terminate" "term_from_client=0,2,255"

# ---- d. perftest -R's conversation ------------------------------------------------------
P="--oob cm --app perftest"
run "perftest-write" "$P --op write $S" "$P --op write $S" "mpa=0,none"
run "perftest-read-crc" "$P --op read $S" "$P --op read $S --crc" "mpa=1,none"
run "perftest-send-credits" "$P --op send --size 1024 --iters 600" "$P --op send --size 1024 --iters 600" "mpa=0,none"
run "perftest-write-p2p" "$P --op write $S" "$P --op write $S --crc --rtr write" "mpa=1,write"

# ---- e. ucmatose's conversation ---------------------------------------------------------
U="--oob cm --app ucmatose --size 3000 --iters 7"
run "ucmatose" "$U" "$U" good crc ucm "mpa=2,0,0,0,none"
run "ucmatose-p2p" "$U" "$U --rtr write --crc --markers --mss 536" good crc ucm rtr "mpa=2,1,0,1,write"

# ---- f. TCP-level faults ---------------------------------------------------------------
run "tcp-rst-send" "--op send $S" "--op send $S --fault tcp-rst@5" "rst=5"
run "tcp-rst-write" "--op write $S" "--op write $S --fault tcp-rst@5" "rst=5"
run "tcp-rst-ucmatose" "$U" "$U --fault tcp-rst@4" "rst=4"
# zero-window: each namespace's TcpExt counters before and after
Z="--op write --size 8192 --iters 200 --markers"
for ns in A B; do ip netns exec "$([ $ns = A ] && echo "$NSA" || echo "$NSB")" cat /proc/net/netstat >"$T/zero-window-ns$ns.0"; done
run "zero-window" "$Z --fault zero-window" "$Z --crc --mss 536" good crc markers zw
for ns in A B; do ip netns exec "$([ $ns = A ] && echo "$NSA" || echo "$NSB")" cat /proc/net/netstat >"$T/zero-window-ns$ns.1"; done
# loss NAME NS MATCH SENDER "SERVER ARGS" "CLIENT ARGS" CHECKS...: every 30th segment
# matching MATCH dropped as it enters NS (after the sender's TCP sent it)
loss() {
	local name=$1 ns=$2 match=$3 sender=$4 sargs=$5 cargs=$6
	shift 6
	ip netns exec "$ns" nft add table inet iwloss
	ip netns exec "$ns" nft add chain inet iwloss in '{ type filter hook input priority 0; }'
	# shellcheck disable=SC2086
	ip netns exec "$ns" nft add rule inet iwloss in $match numgen inc mod 30 == 0 counter drop
	run "$name" "$sargs" "$cargs" "$@" "loss=$sender"
	ip netns exec "$ns" nft list table inet iwloss | sed -n 's/.*counter packets \([0-9]*\).*/\1/p' >"$T/$name.dropped"
	ip netns exec "$ns" nft delete table inet iwloss
}
loss "loss-write" "$NSB" "tcp dport 5044" client "--op write $S --markers" "--op write $S --markers --crc --mss 536" \
	good crc markers segmented
loss "loss-read" "$NSA" "tcp sport 5044" server "--op read $S --markers --mss 536" "--op read $S --markers --crc --mss 536" \
	good reads

# tcplossrun NAME "SERVER ARGS" "CLIENT ARGS" CHECKS...: with the server's veth captured
tcplossrun() {
	local name=$1 sargs=$2 cargs=$3 tpid
	shift 3
	ip netns exec "$NSB" tcpdump -i "$VB" -U --immediate-mode -s 128 -w "$T/$name-cap.pcap" tcp port 5044 2>"$T/$name-cap.log" &
	tpid=$!
	# --immediate-mode: without it tcpdump reads its ring a block at a time
	# (a block is handed over when full or after 1 s), and a run shorter than
	# that ended with "629 packets received by filter, 0 packets captured"
	# when the SIGINT came; "listening on" once its socket is open (waited for
	# up to 30 s: more than 5 s once under a loaded make check)
	for _ in $(seq 1500); do
		grep -q "listening on" "$T/$name-cap.log" 2>/dev/null && break
		sleep 0.02
	done
	grep -q "listening on" "$T/$name-cap.log" 2>/dev/null ||
		echo "iwarp_conv: $name: tcpdump not listening after 30 s" >>"$T/$name-cap.log"
	run "$name" "$sargs" "$cargs" "$@"
	sleep 0.2
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid"
}
L="--markers --mss 536 --size 8192 --iters 200"
tcplossrun "tcp-loss-write" "--op write $L --fault tcp-loss=5%" "--op write $L --crc" good crc markers "tcploss=s"
tcplossrun "tcp-loss-read" "--op read $L --fault tcp-loss=5%" "--op read $L --crc --fault tcp-loss=5%" good reads \
	"tcploss=cs"

python3 "$T/check.py" "$T" "$B"
