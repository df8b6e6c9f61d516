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

# Every rocetop run first (one per capture), then ONE python checks them all
# (a python start costs ~0.5 CPU-s on this VM: one per capture was most of
# this script's time); its lines say ok/FAIL as before, in the same order.
: >"$T/jobs"
for ex in captures/analysis/*.expect; do
	name=$(basename "$ex" .expect)
	opts=$(sed -n 's/^options //p' "$ex")
	# shellcheck disable=SC2086
	"$R" -r "captures/analysis/$name.pcap" --json $opts >"$T/$name.json" 2>"$T/$name.err"
	printf 'expect\t%s\t%s\t%s\t%s\t%s\n' "$?" "$name" "$ex" "$T/$name" "$opts" >>"$T/jobs"
done

# ---- 2. lab captures against the guests' rxe counters ---------------------------------------
for cap in captures/lab/roce_*.pcap; do
	name=$(basename "$cap" .pcap)
	counters=captures/lab/$name.counters
	[ -f "$counters" ] || continue
	"$R" -r "$cap" --json >"$T/lab.$name.json" 2>"$T/lab.$name.err"
	printf 'lab\t%s\t%s\t%s\t%s\t\n' "$?" "$name" "$counters" "$T/lab.$name" >>"$T/jobs"
done

# ---- 3. iWARP lab captures: RDMAP operations and MPA CRCs as tshark counts them ----------
# (captures/README.md: opcodes from tshark; "Good CRC32" on all 29 FPDUs of the
# siw-crc rping capture, a zero CRC field in the plain siw one)
while read -r cap want; do
	"$R" -r "captures/lab/$cap.pcap" --json >"$T/iw.$cap.json" 2>"$T/iw.$cap.err"
	printf 'iwarp\t%s\t%s\t%s\t%s\t\n' "$?" "$cap" "$want" "$T/iw.$cap" >>"$T/jobs"
done <<'LIST'
iwarp_rping write=4 readreq=4 readresp=4 send=16 crc_good=0 crc_bad=0 mpa_crc=False
iwarp_crc_p2p_rping write=5 readreq=4 readresp=4 send=16 crc_good=29 crc_bad=0 mpa_crc=True
LIST

# jobs: KIND <tab> rocetop's exit <tab> NAME <tab> ARG <tab> OUT (OUT.json, OUT.err) <tab> OPTIONS
# The last line of the result: "OKS FAILS".
python3 - "$T/jobs" >"$T/res" <<'PY'
import json, shlex, sys

def get(obj, path):
    for part in path.split("."):
        if isinstance(obj, list):
            obj = obj[int(part)]
        else:
            obj = obj[part]
    return obj

def expect(exp_path, summary, out):
    """1: every value of NAME.expect in the summary; the number of failures"""
    bad = checked = 0

    def check(where, obj, kv):
        nonlocal bad, checked
        key, want = kv.split("=", 1)
        try:
            got = get(obj, key)
        except (KeyError, IndexError, TypeError):
            out.append(f"  {where}: {key} missing")
            bad += 1
            return
        checked += 1
        if want.startswith("~"):
            ok = isinstance(got, str) and got.startswith(want[1:])
        else:
            w = json.loads(want)
            ok = got == w if not isinstance(w, float) else abs(got - w) < 1e-9
        if not ok:
            out.append(f"  {where}: {key} = {json.dumps(got)}, want {want}")
            bad += 1

    assert summary.get("type") == "summary", "last line is not the summary"
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
                out.append(f"  flow {src} -> {dst} QP {qp}: {len(m)} such flows")
                bad += 1
                continue
            for kv in words[4:]:
                check(f"flow {src}->{dst}/{qp}", m[0], kv)
        elif words[0] == "port":
            m = [p for p in summary["ports"] if p["mac"] == words[1]]
            if len(m) != 1:
                out.append(f"  port {words[1]}: {len(m)} such ports")
                bad += 1
                continue
            p = dict(m[0])
            p["pfc"] = {str(e["priority"]): e for e in p["pfc"]}
            for kv in words[2:]:
                check(f"port {words[1]}", p, kv)
        else:
            out.append(f"  bad .expect line: {line}")
            bad += 1
    out.append(f"{checked} values checked")
    return bad

def lab(counters, s):
    """2: the RC flows' duplicate/out-of-sequence requests and NAKs against rxe's counters"""
    cnt = {}
    for line in open(counters):
        k, _, v = line.strip().partition("=")
        if v.isdigit():
            cnt[k] = int(v)
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
    return bad, "rocetop/rxe: " + ", ".join(out)

def iwarp(s):
    """3: RDMAP operations and MPA CRC verdicts of the iWARP flows"""
    ops, good, bad, crc = {}, 0, 0, []
    for f in s["flows"]:
        if f["kind"] != "iWARP":
            continue
        for k, v in f["rdmap_ops"].items():
            ops[k] = ops.get(k, 0) + v
        good += f["crc_good"]
        bad += f["crc_bad"]
        crc.append(f["mpa"]["crc"])
    return "write=%d readreq=%d readresp=%d send=%d crc_good=%d crc_bad=%d mpa_crc=%s" % (
        ops.get("Write", 0), ops.get("Read Request", 0), ops.get("Read Response", 0),
        ops.get("Send", 0), good, bad, all(crc) and bool(crc))

oks = fails = 0
for job in open(sys.argv[1]):
    kind, rc, name, arg, out, opts = job.rstrip("\n").split("\t")
    where = {"expect": name, "lab": "lab " + name, "iwarp": "iwarp " + name}[kind]
    if rc != "0":
        print(f"FAIL {where}: rocetop exited non-zero: {open(out + '.err').read()}")
        fails += 1
        continue
    try:
        s = json.loads(open(out + ".json").read().splitlines()[-1])
        if kind == "expect":
            res = []
            bad = expect(arg, s, res)
            if bad:
                print(f"FAIL {name} (rocetop -r captures/analysis/{name}.pcap --json {opts})")
                print("\n".join(res))
            else:
                print(f"ok   {name}: {res[-1]}")
        elif kind == "lab":
            bad, res = lab(arg, s)
            if bad:
                print(f"FAIL lab {name}: {res}")
            elif "netem" in name or "inject" in name:
                print(f"ok   lab {name}: {res}")
        else:
            got = iwarp(s)
            bad = got != arg
            print(f"{'FAIL' if bad else 'ok  '} iwarp {name}: {got}" + (f", want {arg}" if bad else ""))
    except Exception as e:  # a summary missing, cut short or of the wrong shape
        print(f"FAIL {where}: {type(e).__name__}: {e}")
        bad = 1
    fails += bool(bad)
    oks += not bad
print(oks, fails)
PY
res=$(tail -n 1 "$T/res")
sed '$d' "$T/res"
case $res in
[0-9]*" "[0-9]*) oks=$((oks + ${res% *})) fails=$((fails + ${res#* })) ;;
*) echo "FAIL analysis: the checks did not finish: $res"; fails=$((fails + 1)) ;;
esac

echo "analysis: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
