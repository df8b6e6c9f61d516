#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# analysis.sh — rocetop's flow analysis against counts known in advance.
#
# 1. captures/analysis/NAME.pcap are made by tools/mkanalysis with known
#    anomalies; NAME.expect holds the counts that follow from how each was
#    built.  The committed captures must be byte-identical to what
#    mkanalysis makes now, and rocetop's --json summary must give every
#    expected value.
# 2. captures/lab/roce_*.pcap with their .counters (the guests' own rxe
#    counters over the capture window): for each guest G, the
#    duplicate_request and out_of_seq_request rocetop finds on the RC flows
#    whose requests go to G must equal G's rxe counters of the same names, and
#    the PSN-sequence-error NAKs G sent (counted on those flows) must equal
#    G's out_of_seq_request.
# 3. two iWARP lab captures: RDMAP operations and MPA CRCs as tshark counts
#    them (captures/README.md).
#
#   BUILD=build tests/analysis.sh
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
R=$BUILD/bin/rocetop
MK=$BUILD/tools/mkanalysis
for b in "$R" "$MK"; do
	if [ ! -x "$b" ]; then
		echo "analysis: $b not built" >&2
		exit 2
	fi
done
T=$(mktemp -d /tmp/rocetop-analysis.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
oks=0

# ---- 1. built captures ------------------------------------------------------------
if ! "$MK" "$T/gen" >"$T/mk.out" 2>&1; then
	echo "FAIL mkanalysis: $(cat "$T/mk.out")"
	exit 1
fi
for f in "$T"/gen/*; do
	n=$(basename "$f")
	if ! cmp -s "$f" "captures/analysis/$n"; then
		echo "FAIL captures/analysis/$n differs from what $MK makes (run $MK captures/analysis)"
		fails=$((fails + 1))
	fi
done

for ex in captures/analysis/*.expect; do
	name=$(basename "$ex" .expect)
	opts=$(sed -n 's/^options //p' "$ex")
	# shellcheck disable=SC2086
	if ! "$R" -r "captures/analysis/$name.pcap" --json $opts >"$T/$name.json" 2>"$T/$name.err"; then
		echo "FAIL $name: rocetop exited non-zero: $(cat "$T/$name.err")"
		fails=$((fails + 1))
		continue
	fi
	if python3 - "$ex" "$T/$name.json" >"$T/$name.res" 2>&1 <<'EOF'
import json, shlex, sys

exp_path, out_path = sys.argv[1], sys.argv[2]
lines = open(out_path).read().splitlines()
summary = json.loads(lines[-1])
assert summary.get("type") == "summary", "last line is not the summary"
bad = 0
checked = 0

def get(obj, path):
    for part in path.split("."):
        if isinstance(obj, list):
            obj = obj[int(part)]
        else:
            obj = obj[part]
    return obj

def check(where, obj, kv):
    global bad, checked
    key, want = kv.split("=", 1)
    try:
        got = get(obj, key)
    except (KeyError, IndexError, TypeError):
        print(f"  {where}: {key} missing")
        bad += 1
        return
    checked += 1
    if want.startswith("~"):
        ok = isinstance(got, str) and got.startswith(want[1:])
    else:
        w = json.loads(want)
        ok = got == w if not isinstance(w, float) else abs(got - w) < 1e-9
    if not ok:
        print(f"  {where}: {key} = {json.dumps(got)}, want {want}")
        bad += 1

for line in open(exp_path):
    line = line.strip()
    if not line or line.startswith("#") or line.startswith("options"):
        continue
    words = shlex.split(line, posix=False)
    if words[0] == "summary":
        for kv in words[1:]:
            check("summary", summary, kv)
    elif words[0] == "flow":
        src, dst, qp = words[1], words[2], int(words[3])
        m = [f for f in summary["flows"] if f["src"] == src and f["dst"] == dst and f["destqp"] == qp]
        if len(m) != 1:
            print(f"  flow {src} -> {dst} QP {qp}: {len(m)} such flows")
            bad += 1
            continue
        for kv in words[4:]:
            check(f"flow {src}->{dst}/{qp}", m[0], kv)
    elif words[0] == "port":
        m = [p for p in summary["ports"] if p["mac"] == words[1]]
        if len(m) != 1:
            print(f"  port {words[1]}: {len(m)} such ports")
            bad += 1
            continue
        p = dict(m[0])
        p["pfc"] = {str(e["priority"]): e for e in p["pfc"]}
        for kv in words[2:]:
            check(f"port {words[1]}", p, kv)
    else:
        print(f"  bad .expect line: {line}")
        bad += 1
print(f"{checked} values checked")
sys.exit(1 if bad else 0)
EOF
	then
		echo "ok   $name: $(tail -n 1 "$T/$name.res")"
		oks=$((oks + 1))
	else
		echo "FAIL $name (rocetop -r captures/analysis/$name.pcap --json $opts)"
		cat "$T/$name.res"
		fails=$((fails + 1))
	fi
done

# ---- 2. lab captures against the guests' rxe counters ---------------------------------------
for cap in captures/lab/roce_*.pcap; do
	name=$(basename "$cap" .pcap)
	counters=captures/lab/$name.counters
	[ -f "$counters" ] || continue
	if ! "$R" -r "$cap" --json >"$T/lab.json" 2>"$T/lab.err"; then
		echo "FAIL lab $name: rocetop exited non-zero: $(cat "$T/lab.err")"
		fails=$((fails + 1))
		continue
	fi
	if python3 - "$counters" "$T/lab.json" >"$T/lab.res" 2>&1 <<'EOF'
import json, sys

cnt = {}
for line in open(sys.argv[1]):
    k, _, v = line.strip().partition("=")
    if v.isdigit():
        cnt[k] = int(v)
s = json.loads(open(sys.argv[2]).read().splitlines()[-1])
guests = {"vma": "10.99.0.1", "vmb": "10.99.0.2"}
bad, out = 0, []
for g, ip in guests.items():
    if f"{g}.duplicate_request" not in cnt:
        continue
    flows = [f for f in s["flows"] if f["dst"] == ip and f.get("kind") in ("RC", "XRC")]
    got = {k: sum(f.get(k, 0) for f in flows) for k in ("duplicate_request", "out_of_seq_request", "nak_seq_err")}
    want = {"duplicate_request": cnt[f"{g}.duplicate_request"],
            "out_of_seq_request": cnt[f"{g}.out_of_seq_request"],
            "nak_seq_err": cnt[f"{g}.out_of_seq_request"]}
    for k in got:
        out.append(f"{g}.{k} {got[k]}/{want[k]}")
        if got[k] != want[k]:
            bad += 1
print("rocetop/rxe: " + ", ".join(out))
sys.exit(1 if bad else 0)
EOF
	then
		case "$name" in
		*netem*|*inject*) echo "ok   lab $name: $(cat "$T/lab.res")" ;;
		esac
		oks=$((oks + 1))
	else
		echo "FAIL lab $name: $(cat "$T/lab.res")"
		fails=$((fails + 1))
	fi
done

# ---- 3. iWARP lab captures: RDMAP operations and MPA CRCs as tshark counts them ----------
# (captures/README.md: opcodes from tshark; "Good CRC32" on all 29 FPDUs of the
# siw-crc rping capture, a zero CRC field in the plain siw one)
while read -r cap want; do
	if ! "$R" -r "captures/lab/$cap.pcap" --json >"$T/iw.json" 2>"$T/iw.err"; then
		echo "FAIL iwarp $cap: rocetop exited non-zero: $(cat "$T/iw.err")"
		fails=$((fails + 1))
		continue
	fi
	got=$(python3 -c '
import json, sys
s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
ops, good, bad, crc = {}, 0, 0, []
for f in s["flows"]:
    if f["kind"] != "iWARP":
        continue
    for k, v in f["rdmap_ops"].items():
        ops[k] = ops.get(k, 0) + v
    good += f["crc_good"]
    bad += f["crc_bad"]
    crc.append(f["mpa"]["crc"])
print("write=%d readreq=%d readresp=%d send=%d crc_good=%d crc_bad=%d mpa_crc=%s" % (
      ops.get("Write", 0), ops.get("Read Request", 0), ops.get("Read Response", 0),
      ops.get("Send", 0), good, bad, all(crc) and bool(crc)))
' "$T/iw.json")
	if [ "$got" = "$want" ]; then
		echo "ok   iwarp $cap: $got"
		oks=$((oks + 1))
	else
		echo "FAIL iwarp $cap: $got, want $want"
		fails=$((fails + 1))
	fi
done <<'LIST'
iwarp_rping write=4 readreq=4 readresp=4 send=16 crc_good=0 crc_bad=0 mpa_crc=False
iwarp_crc_p2p_rping write=5 readreq=4 readresp=4 send=16 crc_good=29 crc_bad=0 mpa_crc=True
LIST

echo "analysis: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
