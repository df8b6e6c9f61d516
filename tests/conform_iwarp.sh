#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# conform_iwarp.sh — `rocegen conform --transport iwarp` against rocegen's own
# iWARP responder (`--reference`: `rocegen server --transport iwarp` forked
# for each case on 127.0.0.1, TCP over loopback; no lab, no root).  make check.
#
#   BUILD=build tests/conform_iwarp.sh
#
# 1. Every case has the verdict rocegen's responder (generator/iwarp/iw_rx.c)
#    should give: the positive marker cases (mpa.markers, mpa.markers-crc,
#    llp.bad-marker) run here, since siw rejects markers; mpa.reject runs
#    against `--reject`.  rdmap.read-ird PASSes: iw_rx.c read_req() holds
#    the Read Requests of one read of the socket against its IRD (16) and
#    answers the 17th of the corked burst with Terminate RDMAP/remote
#    operation/0x07 after the 16 it accepted.
# 2. The JSON report, the JUnit XML (counts, one <failure> per FAIL), the
#    exit status (0: no FAIL), --list, --cases and option errors.
# 3. Evidence pcaps (as root: a capture on lo of the case's TCP port) hold
#    the case's TCP conversation: the MPA request key in mpa.plain.
# 4. The same run against a separately started `rocegen server --transport
#    iwarp --reject` through --peer/--port (a remote peer's path).
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
G=$BUILD/bin/rocegen
[ -x "$G" ] || { echo "conform_iwarp: $G not built" >&2; exit 2; }
command -v python3 >/dev/null || { echo "conform_iwarp: python3 needed" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/conform_iwarp.XXXXXX") || exit 2
SPID=""
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
fails=0
check() { # what, condition status
	if [ "$2" = 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}

pcap=()
[ "$(id -u)" = 0 ] && pcap=(--pcap-dir "$T/pcap")
"$G" conform --transport iwarp --reference --wait 5 --json --junit "$T/ref.xml" "${pcap[@]}" >"$T/ref.json" 2>"$T/ref.err"
rc=$?
python3 - "$T/ref.json" "$T/ref.xml" "$rc" "${#pcap[@]}" <<'PY'
import json, os, sys, xml.etree.ElementTree as ET
js, xmlf, rc, with_pcap = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] != "0"
want = {}
d = json.load(open(js))
bad = []
names = [c["name"] for c in d["cases"]]
if len(names) != 19:
    bad.append("%d cases, want 19" % len(names))
for c in d["cases"]:
    v = want.get(c["name"], "PASS")
    if c["verdict"] != v:
        bad.append("%s: %s (%s), want %s" % (c["name"], c["verdict"], c["detail"], v))
    m = c["metrics"]
    if c["name"].startswith(("llp.", "ddp.", "rdmap.read-bad")) and c["verdict"] == "PASS":
        if "term_layer" not in m:
            bad.append("%s: PASS without the Terminate's metrics" % c["name"])
    if c["name"] == "mpa.markers" and m.get("markers_rx", {}).get("value", 0) < 1:
        bad.append("mpa.markers: no markers counted")
    if c["name"] == "rdmap.read-ird" and c["verdict"] == "PASS":
        ird = m.get("peer_ird", {}).get("value")
        if m.get("reads_sent", {}).get("value") != ird + 1 or m.get("reads_answered", {}).get("value") != ird \
                or "Terminate 0/2/0x07" not in c["detail"]:
            bad.append("rdmap.read-ird: %s %s" % (c["detail"], m))
    if c["name"] == "mpa.rev1" and m.get("mpa_rev", {}).get("value") != 1:
        bad.append("mpa.rev1: negotiated rev %s" % m.get("mpa_rev"))
    if with_pcap:
        p = c.get("pcap")
        if not p or not os.path.exists(p) or os.path.getsize(p) <= 24:
            bad.append("%s: no evidence pcap" % c["name"])
        elif c["name"] == "mpa.plain" and b"MPA ID Req Frame" not in open(p, "rb").read():
            bad.append("mpa.plain: the evidence pcap lacks the MPA request")
if (d["pass"], d["fail"], d["unsupported"], d["error"]) != (19, 0, 0, 0):
    bad.append("totals %s" % [d["pass"], d["fail"], d["unsupported"], d["error"]])
if rc != 0:
    bad.append("exit status %d, want 0 (no FAIL)" % rc)
s = ET.parse(xmlf).getroot()
if int(s.get("tests")) != len(names) or int(s.get("failures")) != 0 or len(s.findall("testcase/failure")) != 0:
    bad.append("junit: tests %s failures %s" % (s.get("tests"), s.get("failures")))
for b in bad:
    print("     " + b)
print("conform --transport iwarp --reference: %d cases (%d pass, %d fail)%s" % (len(names), d["pass"], d["fail"],
      ", evidence pcaps checked" if with_pcap else ""))
sys.exit(1 if bad else 0)
PY
check "reference run: verdicts, JSON, JUnit, exit status" $?

# --list, --cases, option errors
n=$("$G" conform --transport iwarp --list | wc -l)
[ "$n" = 19 ]; check "--list: $n cases" $?
out=$("$G" conform --transport iwarp --reference --cases 'ddp.' 2>&1)
r=$?
echo "$out" | grep -q "^5 cases: 5 pass" && [ "$r" = 0 ] && ! echo "$out" | grep -q "^mpa\."
check "--cases ddp.: the 5 DDP cases only, exit 0" $?
"$G" conform --transport iwarp >/dev/null 2>"$T/e1"
r=$?
[ "$r" = 2 ] && grep -q -- "--peer IP or --reference" "$T/e1"; check "no peer: exit 2 with a reason" $?
"$G" conform --transport iwarp --reference --app foo >/dev/null 2>"$T/e2"
[ $? = 2 ] && grep -q -- "--app rocegen|rping" "$T/e2"; check "--app foo: exit 2" $?

# a separately started server that refuses: the remote peer's path
port=$((23000 + $$ % 1000))
"$G" server --transport iwarp --src 127.0.0.1 --port "$port" --reject --timeout 10 >/dev/null 2>"$T/srv.err" &
SPID=$!
for _ in $(seq 100); do grep -q "server: ready" "$T/srv.err" 2>/dev/null && break; sleep 0.05; done
out=$("$G" conform --transport iwarp --peer 127.0.0.1 --port "$port" --cases mpa.reject 2>&1)
r=$?
wait "$SPID" 2>/dev/null
SPID=""
echo "$out" | grep -q "^mpa.reject .* PASS .*reply with R" && [ "$r" = 0 ]
check "--peer/--port against rocegen server --reject: mpa.reject PASS" $?

echo "conform_iwarp: $fails failed"
[ "$fails" = 0 ]
