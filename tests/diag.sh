#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# diag.sh — rocetop's diagnosis (rocetop(8) DIAGNOSIS) against captures
# built for it: tools/mkdiag makes, for each verdict, a capture that must
# raise it and a near miss that must not, with NAME.expect saying which;
# rocetop --json's "diagnosis" must agree, the same with --threads 2, and
# -b shows the Diagnosis section.  Clean lab captures raise no warning.
#
#   BUILD=build tests/diag.sh
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
R=$BUILD/bin/rocetop
MK=$BUILD/tools/mkdiag
for b in "$R" "$MK"; do
	if [ ! -x "$b" ]; then
		echo "diag: $b not built" >&2
		exit 2
	fi
done
T=$(mktemp -d /tmp/rocetop-diag.$$.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
oks=0
if ! "$MK" "$T/gen" >"$T/mk.out" 2>&1; then
	echo "FAIL mkdiag: $(cat "$T/mk.out")"
	exit 1
fi

check() {   # check NAME JSON -> prints the result, status
	python3 - "$T/gen/$1.expect" "$2" <<'PY'
import json, re, sys
exp, out = sys.argv[1], sys.argv[2]
s = json.loads(open(out).read().splitlines()[-1])
diag = s.get("diagnosis")
if not isinstance(diag, list):
    print("  no diagnosis array"); sys.exit(1)
for d in diag:
    for k in ("verdict", "severity", "subject", "first_frame", "last_frame", "evidence", "text"):
        if k not in d:
            print(f"  {d.get('verdict')}: no {k}"); sys.exit(1)
bad = checked = 0
def get(o, path):
    for p in path.split("."):
        o = o[int(p)] if isinstance(o, list) else o[p]
    return o
for line in open(exp):
    line = line.strip()
    if not line or line[0] == "#" or line.startswith("options"):
        continue
    w = line.split(None, 2)
    w = w[:2] + (re.findall(r'\S+?=(?:"[^"]*"|\S+)', w[2]) if len(w) > 2 else [])
    m = [d for d in diag if d["verdict"] == w[1]]
    checked += 1
    if w[0] == "none":
        if m:
            print(f"  {w[1]} raised: {m[0]['subject']}: {m[0]['text']}"); bad += 1
        continue
    ok = False
    for d in m:
        good = True
        for kv in w[2:]:
            k, want = kv.split("=", 1)
            try:
                got = get(d, k)
            except (KeyError, IndexError, TypeError):
                good = False; break
            if want.startswith("~"):
                good = isinstance(got, str) and got.startswith(want[1:])
            else:
                wv = json.loads(want)
                good = abs(got - wv) < 1e-6 if isinstance(wv, float) and isinstance(got, (int, float)) else got == wv
            if not good:
                break
        ok = ok or good
    if not ok:
        print(f"  {w[1]}: not raised as {' '.join(w[2:])}; got {json.dumps(m)}"); bad += 1
print(f"{checked} expectations")
sys.exit(1 if bad else 0)
PY
}

for ex in "$T"/gen/*.expect; do
	name=$(basename "$ex" .expect)
	opts=$(sed -n 's/^options //p' "$ex")
	ths=1
	case "$name" in   # the merged view of --threads: per-thread evidence, one diagnosis
	timeout_mismatch|pfc_storm|cnp_ignored|not_ect|fabric_loss) ths="1 2" ;;
	esac
	for th in $ths; do
		# shellcheck disable=SC2086
		if ! "$R" -r "$T/gen/$name.pcap" --json --threads $th $opts >"$T/$name.$th.json" 2>"$T/$name.err"; then
			echo "FAIL $name: rocetop exited non-zero: $(cat "$T/$name.err")"
			fails=$((fails + 1))
			continue
		fi
		if check "$name" "$T/$name.$th.json" >"$T/$name.res" 2>&1; then
			oks=$((oks + 1))
			[ "$th" = 1 ] && echo "ok   $name: $(tail -n 1 "$T/$name.res")"
		else
			echo "FAIL $name (--threads $th $opts)"
			cat "$T/$name.res"
			fails=$((fails + 1))
		fi
	done
done

# --packets marks the frames each verdict names (its first and last frame, numbered in the file):
# per fixture, the frames of each "[verdict: NAME]" mark (grep) are those of the JSON summary's
# verdicts of that name, and a near miss marks none
marked=0 vm_fail=0
for ex in "$T"/gen/*.expect; do
	name=$(basename "$ex" .expect)
	opts=$(sed -n 's/^options //p' "$ex")
	[ -s "$T/$name.1.json" ] || continue
	# shellcheck disable=SC2086
	"$R" -r "$T/gen/$name.pcap" --packets $opts >"$T/$name.pk" 2>"$T/$name.pkerr" || {
		echo "FAIL $name --packets: $(cat "$T/$name.pkerr")"; vm_fail=$((vm_fail + 1)); continue; }
	got=$(grep -o '^[0-9]\+ .*\[verdict: [a-z_]\+\]' "$T/$name.pk" | awk '{ n = $1; while (match($0, /\[verdict: [a-z_]+\]/)) {
		print substr($0, RSTART + 10, RLENGTH - 11), n; $0 = substr($0, RSTART + RLENGTH) } }' | sort -u)
	want=$(python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])["diagnosis"]
for v in d:
    for f in {v["first_frame"], v["last_frame"]} - {0}:
        print(v["verdict"], f)' "$T/$name.1.json" | sort -u)
	if [ "$got" = "$want" ]; then
		[ -n "$got" ] && marked=$((marked + 1))
	else
		echo "FAIL $name --packets marks:"; diff <(echo "$want") <(echo "$got") | sed 's/^/  /'
		vm_fail=$((vm_fail + 1))
	fi
done
n_tm=$(grep -c '\[verdict: timeout_mismatch\]$' "$T/timeout_mismatch.pk")
n_near=$(grep -c '\[verdict: ' "$T/timeout_match.pk")
if [ "$vm_fail" = 0 ] && [ "$marked" -ge 10 ] && [ "$n_tm" = 2 ] && [ "$n_near" = 0 ]; then
	echo "ok   --packets: each verdict's first and last frame marked in $marked fixtures (timeout_mismatch: $n_tm frames, its near miss: $n_near)"
	oks=$((oks + 1))
else
	echo "FAIL --packets marks: $vm_fail fixtures differ, $marked marked, timeout_mismatch $n_tm frames, timeout_match $n_near"
	fails=$((fails + 1))
fi
# a filter lists fewer frames, marked as in the whole capture; standard input cannot be read twice: no marks
"$R" -r "$T/gen/timeout_mismatch.pcap" --packets udp dst port 4791 and src host 10.0.0.1 >"$T/f.pk" 2>&1
n_f=$(grep -c '\[verdict: timeout_mismatch\]' "$T/f.pk")
n_in=$("$R" -r - --packets <"$T/gen/timeout_mismatch.pcap" 2>/dev/null | grep -c '\[verdict: ')
n_all=$("$R" -r - --packets <"$T/gen/timeout_mismatch.pcap" 2>/dev/null | wc -l)
if [ "$n_f" = "$n_tm" ] && [ "$(wc -l <"$T/f.pk")" -lt "$(wc -l <"$T/timeout_mismatch.pk")" ] && [ "$n_in" = 0 ] && [ "$n_all" -gt 0 ]; then
	echo "ok   --packets: a filtered listing keeps the marks ($n_f), one from standard input has none"
	oks=$((oks + 1))
else
	echo "FAIL --packets: filtered $n_f marks (want $n_tm), stdin $n_in marks of $n_all lines"; fails=$((fails + 1))
fi

# -b: the Diagnosis section names the verdict, the subject and the evidence
"$R" -r "$T/gen/pfc_storm.pcap" -b >"$T/b.txt" 2>&1
if grep -q '^Diagnosis (1 verdict;' "$T/b.txt" && grep -q 'error   pfc_storm .*priority 3 from 02:00:00:00:00:fe  frames 1-751' "$T/b.txt" &&
   grep -q 'paused_us=150000' "$T/b.txt"; then
	echo "ok   -b Diagnosis section"; oks=$((oks + 1))
else
	echo "FAIL -b Diagnosis section:"; sed -n '/^Diagnosis/,$p' "$T/b.txt"; fails=$((fails + 1))
fi

# bad thresholds: one line, exit 2
for o in "--ack-timeout 40" "--ack-timeout 5min" "--pfc-watchdog 0ms" "--cnp-reaction x" "--diag-tolerance 150"; do
	# shellcheck disable=SC2086
	"$R" -r "$T/gen/pfc_storm.pcap" -b $o >"$T/o.out" 2>"$T/o.err"; rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$T/o.err")" = 1 ] && grep -q "^rocetop: bad --" "$T/o.err"; then
		oks=$((oks + 1))
	else
		echo "FAIL $o: exit $rc, $(cat "$T/o.err")"; fails=$((fails + 1))
	fi
done

# clean lab captures: no warning or error
for cap in roce_rping roce_rc_pingpong roce_write_bw roce_read_bw roce_send_bw roce_atomic_bw_cas roce_ucmatose; do
	f=captures/lab/$cap.pcap
	[ -f "$f" ] || continue
	"$R" -r "$f" --json >"$T/lab.json" 2>/dev/null
	got=$(python3 -c 'import json,sys; s=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print(" ".join(d["verdict"] for d in s["diagnosis"] if d["severity"] != "info"))' "$T/lab.json")
	if [ -z "$got" ]; then
		oks=$((oks + 1))
	else
		echo "FAIL clean $cap raises: $got"; fails=$((fails + 1))
	fi
done

echo "diag: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
