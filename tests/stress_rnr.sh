#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# stress_rnr.sh — `rocegen stress --rnr-retry N` (0..7, 7: without end, as
# IB's RNR retry count) and `--time-limit S`, against the reference adapter
# (no network; the simulated clock).
#
#   BUILD=build tests/stress_rnr.sh
#
# 1. rocegen as requester against `--reference norecv` (a responder that never
#    posts a receive: every SEND gets an RNR NAK), one QP, one SEND at a time:
#      --rnr-retry 2  exit 1, the QP in error with rnr-retry-exceeded after
#                     exactly 3 RNR NAKs on the wire (the failing QP's
#                     evidence pcap, --pcap-dir) and 3 copies of the SEND,
#                     2 RNR go-back episodes in rocegen's own count;
#      --rnr-retry 0  the first RNR NAK ends it (1 NAK, 1 copy, 0 retries);
#      --rnr-retry 7  no error of RNR: it retries until --time-limit 0.5 ends
#                     the run (first error "run limit", 0.5 s or more on the
#                     simulated clock, hundreds of RNR NAKs at the 0.64 ms
#                     timer, each answered by a retry).
# 2. The adapter as requester (--role requester, rocegen's responder answers
#    every SEND with an RNR NAK: --faults rnr=100%): the adapter's QP takes
#    --rnr-retry 2 through its connect line and ends in rnr-retry-exceeded
#    after 3 RNR NAKs and 2 retries (rnr_wait's count).
# 3. Bad values exit 2 with one line: --rnr-retry 8, x, -1; --time-limit 0, x.
#
# Prints one "ok" line per case; exit 1 at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GEN=$BUILD/bin/rocegen
[ -x "$GEN" ] || { echo "stress_rnr: $GEN not built" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# rnr NAME WANT-RC ARGS...: the JSON on $T/NAME.json, evidence in $T/NAME/
rnr() {
	local name=$1 want=$2 rc=0
	shift 2
	mkdir -p "$T/$name"
	"$GEN" stress --reference "$@" --pcap-dir "$T/$name" --json >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	tail -n 1 "$T/$name.out" >"$T/$name.json"
	[ "$rc" = "$want" ] || { echo "FAIL stress_rnr $name: exit $rc, expected $want"; cat "$T/$name.out" "$T/$name.err"; exit 1; }
}
ONE="--qps 1 --qd 1 --ops send --messages 2 --seed 3"
rnr r2 1 norecv $ONE --rnr-retry 2
rnr r0 1 norecv $ONE --rnr-retry 0
rnr r7 1 norecv $ONE --rnr-retry 7 --time-limit 0.5
rnr req 1 good --role requester --faults rnr=100% $ONE --rnr-retry 2 --time-limit 5

python3 - "$T" <<'PY'
import json, re, struct, sys
T = sys.argv[1]
bad = []
def need(c, w):
    if not c: bad.append(w)
def wire(name):
    # RoCEv2 frames of the failing QP's evidence: (RNR NAKs, SEND copies)
    d = open("%s/%s/qp0.pcap" % (T, name), "rb").read()
    e = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off, naks, sends = 24, 0, 0
    while off + 16 <= len(d):
        n = struct.unpack(e + "I", d[off + 8:off + 12])[0]
        p = d[off + 16:off + 16 + n]
        off += 16 + n
        if len(p) < 14 + 20 + 8 + 16 or p[12:14] != b"\x08\x00" or p[23] != 17:
            continue
        ihl = (p[14] & 15) * 4
        if struct.unpack(">H", p[14 + ihl + 2:14 + ihl + 4])[0] != 4791:
            continue
        bth = p[14 + ihl + 8:]
        op = bth[0]
        if op == 0x11 and (bth[12] & 0xe0) == 0x20:   # RC ACKNOWLEDGE, AETH syndrome RNR NAK
            naks += 1
        elif op in (0x00, 0x04):                      # RC SEND First / Only
            sends += 1
    return naks, sends
def load(name):
    return json.load(open("%s/%s.json" % (T, name)))
out = []
for name, n in (("r2", 2), ("r0", 0)):
    j = load(name)
    naks, sends = wire(name)
    rx = j["rocegen_requests"]["retx_rnr"]["episodes"]
    need(j["qps_error"] == 1 and "rnr-retry-exceeded" in j["first_error"],
         "%s: qps_error %d, first error %r" % (name, j["qps_error"], j["first_error"]))
    need(naks == n + 1 and sends == n + 1 and rx == n,
         "%s: %d RNR NAKs, %d SEND copies, %d retries; want %d, %d, %d" % (name, naks, sends, rx, n + 1, n + 1, n))
    out.append("--rnr-retry %d: %d RNR NAKs, %d SENDs, then %s" % (n, naks, sends, j["first_error"].split(": ")[-1]))
j = load("r7")
naks, sends = wire("r7")
rx = j["rocegen_requests"]["retx_rnr"]["episodes"]
need("run limit" in j["first_error"] and "rnr-retry-exceeded" not in open("%s/r7.out" % T).read(),
     "r7: first error %r" % j["first_error"])
need(j["sim_s"] >= 0.5 and naks > 100 and rx >= naks - 1 and sends >= naks,
     "r7: %.3f s, %d RNR NAKs, %d retries, %d SEND copies" % (j["sim_s"], naks, rx, sends))
out.append("--rnr-retry 7: %d RNR NAKs and %d retries in %.3f simulated s, ended by --time-limit 0.5" % (naks, rx, j["sim_s"]))
j = load("req")
chk = {c["name"]: c for c in j["checks"]}
m = re.search(r"(\d+) retries after (\d+) RNR NAKs", chk.get("rnr_wait", {}).get("detail", ""))
need("rnr-retry-exceeded" in j["first_error"] and m and m.group(1) == "2" and m.group(2) == "3",
     "requester: %r / %r" % (j["first_error"], chk.get("rnr_wait")))
out.append("--role requester --rnr-retry 2: the adapter's QP %s" % (m.group(0) if m else "?"))
if bad:
    print("FAIL stress_rnr:"); [print("  " + b) for b in bad]; sys.exit(1)
for o in out:
    print("ok   " + o)
PY

for a in "--rnr-retry 8" "--rnr-retry x" "--rnr-retry -1" "--time-limit 0" "--time-limit x"; do
	rc=0
	# shellcheck disable=SC2086
	"$GEN" stress --reference $a >/dev/null 2>"$T/err" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] || { echo "FAIL stress_rnr $a: exit $rc"; cat "$T/err"; exit 1; }
done
echo "ok   bad --rnr-retry / --time-limit values: exit 2, one line"
echo "stress_rnr: ok"
