#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# diag.sh — rocetop's diagnosis (rocetop(8) DIAGNOSIS) against captures
# built for it: tools/mkdiag makes, for each verdict, a capture that must
# raise it and a near miss that must not, with NAME.expect saying which;
# rocetop --json's "diagnosis" must agree, the same with --threads 2, and
# -b shows the Diagnosis section.  Clean lab captures raise no warning.
# Each capture replayed with --prometheus serves the same verdicts as
# rocetop_diagnosis_active and rocetop_diagnosis_raised_total (promtool-clean);
# 150 verdicts at once serve 100 active series, the rest counted as omitted.
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
# the interpreter itself, asked once: a python3 found through a wrapper (a
# pyenv shim: a bash and a dozen helpers) costs ~0.3 CPU-s a start
PY=$(python3 -c 'import sys; print(sys.executable)') || { echo "diag: python3 does not run" >&2; exit 2; }
T=$(mktemp -d /tmp/rocetop-diag.$$.XXXXXX)
trap 'for s in nd_rise nd_still pacing_port pacing_qp pdet; do tmux -L "rocetop-diag-$$-$s" kill-server 2>/dev/null; done; rm -rf "$T"' EXIT
fails=0
oks=0
if ! "$MK" "$T/gen" >"$T/mk.out" 2>&1; then
	echo "FAIL mkdiag: $(cat "$T/mk.out")"
	exit 1
fi

# Every rocetop run first (each fixture with one thread and two, and
# --packets; the lab's diagnosis captures with one thread and two), then one
# Python holds them all against their expectations (a Python start per check
# cost more than the checks): the lines it prints ("ok   ..."/"FAIL ...") are
# counted below.
for ex in "$T"/gen/*.expect; do
	name=$(basename "$ex" .expect)
	opts=$(sed -n 's/^options //p' "$ex")
	for th in 1 2; do   # the merged view of --threads: per-thread evidence, one diagnosis
		# shellcheck disable=SC2086
		if ! "$R" -r "$T/gen/$name.pcap" --json --threads $th $opts >"$T/$name.$th.json" 2>"$T/$name.err"; then
			echo "FAIL $name: rocetop exited non-zero: $(cat "$T/$name.err")"
			fails=$((fails + 1))
			: >"$T/$name.$th.bad"
		fi
	done
done
# --threads 2 gives what one thread gives: the JSON summary's "diagnosis" and
# "cnp_pacing" arrays equal, element for element, on every fixture (the
# pacing ones put their two IP pairs in different threads: CNPs to pairs of
# different threads are compared through each thread's CNP times) and on the
# lab's diagnosis captures, each with the options that raise its verdicts
: >"$T/th_bad" && : >"$T/labruns"
i=0
for lc in "roce_netem_diag_write_lat_u12 --ack-timeout 8" "roce_netem_diag_write_lat_u12 --ack-timeout 12" \
	"roce_netem_diag_rping_cm --diag-tolerance 1" "roce_pfc_storm" "roce_pfc_storm --ack-timeout 14"; do
	# shellcheck disable=SC2086
	set -- $lc
	c=$1
	shift
	i=$((i + 1))
	for th in 1 2; do
		"$R" -r "captures/lab/$c.pcap" --json --threads $th "$@" >"$T/lab$i.$th.json" 2>"$T/lab.err" ||
			echo " $c(exit: $(cat "$T/lab.err"))" >>"$T/th_bad"
	done
	echo "lab$i $lc" >>"$T/labruns"
done
# --packets marks the frames each verdict names (its first and last frame, numbered in the file):
# per fixture, the frames of each "[verdict: NAME]" mark are those of the JSON summary's
# verdicts of that name, and a near miss marks none
: >"$T/pk_bad"
for ex in "$T"/gen/*.expect; do
	name=$(basename "$ex" .expect)
	opts=$(sed -n 's/^options //p' "$ex")
	[ -s "$T/$name.1.json" ] || continue
	# shellcheck disable=SC2086
	"$R" -r "$T/gen/$name.pcap" --packets $opts >"$T/$name.pk" 2>"$T/$name.pkerr" || {
		echo "FAIL $name --packets: $(cat "$T/$name.pkerr")"; echo "$name" >>"$T/pk_bad"; rm -f "$T/$name.pk"; }
done
"$PY" - "$T" <<'PY' >"$T/fix.res" 2>&1
import glob, json, os, re, sys
T = sys.argv[1]
def last(f):
    return json.loads(open(f).read().splitlines()[-1])
def get(o, path):
    for p in path.split("."):
        o = o[int(p)] if isinstance(o, list) else o[p]
    return o
def check(exp, out):   # -> (ok, lines): NAME.expect held against a JSON summary
    s = last(out)
    diag = s.get("diagnosis")
    if not isinstance(diag, list):
        return False, ["  no diagnosis array"]
    for d in diag:
        for k in ("verdict", "severity", "subject", "first_frame", "last_frame", "evidence", "text"):
            if k not in d:
                return False, [f"  {d.get('verdict')}: no {k}"]
    bad = checked = 0
    lines = []
    for line in open(exp):
        line = line.strip()
        if not line or line[0] == "#" or line.startswith("options"):
            continue
        w = line.split(None, 2)
        w = w[:2] + (re.findall(r'\S+?=(?:"[^"]*"|\S+)', w[2]) if len(w) > 2 else [])
        if w[0] == "pacing":
            m = [p for p in s.get("cnp_pacing", []) if p["source"] == w[1]]
        else:
            m = [d for d in diag if d["verdict"] == w[1]]
        checked += 1
        if w[0] == "none":
            if m:
                lines.append(f"  {w[1]} raised: {m[0]['subject']}: {m[0]['text']}"); bad += 1
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
            lines.append(f"  {w[1]}: not raised as {' '.join(w[2:])}; got {json.dumps(m)}"); bad += 1
    lines.append(f"{checked} expectations")
    return not bad, lines
def same_diag(a, b):   # -> "" when equal, else the difference
    a, b = last(a), last(b)
    r = ""
    for k in ("diagnosis", "cnp_pacing"):
        if a.get(k) != b.get(k) or not isinstance(a.get(k), list):
            r += "%s: one thread %s, two %s" % (k, json.dumps(a.get(k))[:600], json.dumps(b.get(k))[:600])
    return r
def nonempty(f):
    return os.path.exists(f) and os.path.getsize(f) > 0
names = sorted(os.path.basename(e)[:-len(".expect")] for e in glob.glob(T + "/gen/*.expect"))
quiet_oks = 0   # --threads 2's checks that passed: counted, not printed
for name in names:
    exp = "%s/gen/%s.expect" % (T, name)
    opts = " ".join(w for l in open(exp) if l.startswith("options ") for w in l.split()[1:])
    for th in (1, 2):
        if os.path.exists("%s/%s.%d.bad" % (T, name, th)):
            continue
        try:
            ok, lines = check(exp, "%s/%s.%d.json" % (T, name, th))
        except Exception as e:   # noqa: BLE001 (no summary line, bad JSON): the check fails
            ok, lines = False, ["  %s" % e]
        if ok:
            if th == 1:
                print("ok   %s: %s" % (name, lines[-1]))
            else:
                quiet_oks += 1
        else:
            print("FAIL %s (--threads %d %s)" % (name, th, opts))
            print("\n".join(lines))
# --threads 2 against one thread
th_bad, th_n, th_v = open(T + "/th_bad").read().replace("\n", ""), 0, 0
runs = [(name, "%s/%s.1.json" % (T, name), "%s/%s.2.json" % (T, name), "(no summary)") for name in names]
runs += [(" ".join(l.split()[1:]), "%s/%s.1.json" % (T, l.split()[0]), "%s/%s.2.json" % (T, l.split()[0]), None)
         for l in open(T + "/labruns")]
for what, a, b, nosum in runs:
    try:
        if nosum and not (nonempty(a) and nonempty(b)):
            th_bad += " %s%s" % (what, nosum)
            continue
        d = same_diag(a, b)
        if d:
            th_bad += " %s%s %s" % (what, ":" if nosum else "", d)
        th_n += 1
        th_v += len(last(a)["diagnosis"])
    except Exception as e:   # noqa: BLE001
        th_bad += " %s: %s" % (what, e)
try:
    p = last(T + "/pacing_port.2.json")["cnp_pacing"][0]["pacing"]
except Exception:   # noqa: BLE001
    p = ""
if not th_bad and th_n >= 35 and th_v >= 30 and p == "port":
    print("ok   --threads 2: the diagnosis and CNP pacing arrays of %d replays (%d verdicts) equal one thread's (pacing_port: %s)" % (th_n, th_v, p))
else:
    print("FAIL --threads 2 differs from one thread (%d replays, %d verdicts, pacing_port '%s'):%s" % (th_n, th_v, p, th_bad))
# --packets marks against the JSON summary's verdicts
marked, vm_fail = 0, len(open(T + "/pk_bad").read().split())
for name in names:
    pk = "%s/%s.pk" % (T, name)
    if not nonempty("%s/%s.1.json" % (T, name)) or not os.path.exists(pk):
        continue
    got = set()
    for line in open(pk):
        m = re.match(r"(\d+) ", line)
        if m:
            got |= {(v, int(m.group(1))) for v in re.findall(r"\[verdict: ([a-z_]+)\]", line)}
    want = {(v["verdict"], f) for v in last("%s/%s.1.json" % (T, name))["diagnosis"]
            for f in {v["first_frame"], v["last_frame"]} - {0}}
    if got == want:
        marked += 1 if got else 0
    else:
        print("FAIL %s --packets marks: want %s, got %s" % (name, sorted(want), sorted(got)))
        vm_fail += 1
print("marks %d %d %d" % (marked, vm_fail, quiet_oks))
PY
grep -v '^marks ' "$T/fix.res"
oks=$((oks + $(grep -c '^ok ' "$T/fix.res")))
fails=$((fails + $(grep -c '^FAIL ' "$T/fix.res")))
read -r _ marked vm_fail quiet_oks < <(grep '^marks ' "$T/fix.res") || { echo "FAIL the fixtures' checks did not finish"; fails=$((fails + 1)); }
oks=$((oks + ${quiet_oks:-0}))
# the --packets failures were counted above, and the marks' FAIL lines: counted as one below
fails=$((fails - $(grep -c ' --packets marks: ' "$T/fix.res")))
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

# nic_drop from the device view (--device-replay): a recording of two NICs,
# two snapshots, built here from tests/fixtures/device/replay: mlx5_0's
# out_of_buffer (meaning out_of_buffer) 0 -> 250 and bnxt_re0's
# rx_roce_discards (meaning discard) 5 -> 12, replayed beside a capture
# whose 10 RoCE frames (5 WRITEs, 5 ACKs: mkdiag's class_symmetric) show
# the frames arrived.  Near misses: the same counters standing still
# (250 and 12 in both snapshots), and rising beside a capture with no RoCE
# (pfc_storm: pause frames only).
FXD=tests/fixtures/device/replay/sys/class/infiniband
mkrec() {   # mkrec DIR OOB1 OOB2 DISC1 DISC2
	for k in 1 2; do
		mkdir -p "$1/sys/$k/class/infiniband"
		cp -r "$FXD/mlx5_0" "$FXD/bnxt_re0" "$1/sys/$k/class/infiniband/"
	done
	echo "$2" >"$1/sys/1/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer"
	echo "$3" >"$1/sys/2/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer"
	echo "$4" >"$1/sys/1/class/infiniband/bnxt_re0/ports/1/hw_counters/rx_roce_discards"
	echo "$5" >"$1/sys/2/class/infiniband/bnxt_re0/ports/1/hw_counters/rx_roce_discards"
}
mkrec "$T/rec_rise" 0 250 5 12
mkrec "$T/rec_still" 250 250 12 12
nicdrop() {   # nicdrop REC CAPTURE -> the nic_drop verdicts, one JSON line each
	"$R" -r "$T/gen/$2.pcap" --device-replay "$T/$1" --device all --json 2>"$T/nd.err" | tail -n 1 |
		"$PY" -c 'import json, sys
for d in json.loads(sys.stdin.read())["diagnosis"]:
    if d["verdict"] == "nic_drop":
        print(json.dumps({k: d[k] for k in ("severity", "subject", "evidence")}, sort_keys=True))'
}
got=$(nicdrop rec_rise class_symmetric)
want='{"evidence": {"counters": "bnxt_re0: rx_roce_discards; mlx5_0: out_of_buffer", "discards": 7, "out_of_buffer": 250, "roce_frames": 10}, "severity": "warning", "subject": "NIC bnxt_re0, mlx5_0"}'
still=$(nicdrop rec_still class_symmetric)
noroce=$(nicdrop rec_rise pfc_storm)
if [ "$got" = "$want" ] && [ -z "$still" ] && [ -z "$noroce" ]; then
	echo "ok   nic_drop from the device view: discards 7, out_of_buffer 250 beside 10 RoCE frames; none when they stand still or no RoCE arrived"
	oks=$((oks + 1)); nic_drop_ok=1
else
	echo "FAIL nic_drop from the device view: got '$got' (want '$want'); standing still '$still'; no RoCE '$noroce'; $(cat "$T/nd.err")"
	fails=$((fails + 1)); nic_drop_ok=0
fi

# the terminal view, driven in tmux: the v screen lists nic_drop from the
# device view (rec_rise beside class_symmetric: the devices are read on
# whichever screen is shown; none with rec_still) and shows the CNP pacing
# lines -b prints (pacing_port, pacing_qp; the terminal view has no
# --threads); Enter on a flow
# of pacing_port opens its detail, which names its CNP source's pacing
# tui NAME KEYS REGEX ROCETOP-ARGS...: the replay to its end, KEYS sent, the
# screen in $T/NAME.screen once it matches REGEX (at most 20 s: a loaded
# machine, a sanitizer build).  A tmux server of its own for each (a new one
# on a socket just killed may fail to start), killed at the end.
tui() {
	local name=$1 keys=$2 re=$3 i sock="rocetop-diag-$$-$1"
	shift 3
	tmux -L "$sock" -f /dev/null new-session -d -s d -x 200 -y 50 \
		"env -i PATH=$PATH TERM=screen LANG=C.UTF-8 TZ=UTC $R $*; sleep 90"
	for i in $(seq 300); do
		tmux -L "$sock" capture-pane -p -t d >"$T/$name.screen" 2>/dev/null
		grep -q '\[end of capture\]' "$T/$name.screen" && break
		sleep 0.1
	done
	case " $* " in   # two reads of the devices (one a second) after the end
	*" --device-replay "*) sleep 2.5 ;;
	esac
	for k in $keys; do tmux -L "$sock" send-keys -t d "$k"; sleep 0.5; done
	for i in $(seq 200); do
		tmux -L "$sock" capture-pane -p -t d >"$T/$name.screen" 2>/dev/null
		grep -Eq -- "$re" "$T/$name.screen" && break
		sleep 0.1
	done
	tmux -L "$sock" kill-server 2>/dev/null
}
if command -v tmux >/dev/null 2>&1; then
	tui nd_rise v 'nic_drop +NIC' -r "$T/gen/class_symmetric.pcap" --device-replay "$T/rec_rise" --device all
	tui nd_still v '^Diagnosis: ' -r "$T/gen/class_symmetric.pcap" --device-replay "$T/rec_still" --device all
	if grep -Eq '^warning +nic_drop +NIC bnxt_re0, mlx5_0 .* active *$' "$T/nd_rise.screen" &&
	   grep -q '^Diagnosis: 1 active, 0 past' "$T/nd_rise.screen" && grep -q 'discards=7' "$T/nd_rise.screen" &&
	   grep -q '^Diagnosis: 0 active, 0 past' "$T/nd_still.screen" && ! grep -q nic_drop "$T/nd_still.screen"; then
		echo "ok   TUI v screen: nic_drop active for NIC bnxt_re0, mlx5_0 (discards=7) from the device view; none when its counters stand still"
		oks=$((oks + 1))
	else
		echo "FAIL TUI v screen and nic_drop:"; sed 's/^/| /' "$T/nd_rise.screen" | head -n 16; sed 's/^/| /' "$T/nd_still.screen" | head -n 10
		fails=$((fails + 1))
	fi
	pbad=
	for pc in pacing_port pacing_qp; do
		"$R" -r "$T/gen/$pc.pcap" -b | sed -n '/^CNP pacing/,/^$/p' | sed -n 's/^  //p' >"$T/$pc.pace"
		tui "$pc" v '^CNP pacing ' -r "$T/gen/$pc.pcap"
		[ -s "$T/$pc.pace" ] && grep -q '^CNP pacing ' "$T/$pc.screen" || pbad="$pbad $pc(no CNP pacing block)"
		while read -r line; do
			grep -qF "  $line" "$T/$pc.screen" || pbad="$pbad $pc(lacks '$line')"
		done <"$T/$pc.pace"
	done
	tui pdet Enter 'CNP pacing of ' -r "$T/gen/pacing_port.pcap"
	grep -qF "CNP pacing of $(head -n 1 "$T/pacing_port.pace")" "$T/pdet.screen" || pbad="$pbad detail(no CNP pacing line)"
	if [ -z "$pbad" ] && grep -q 'pacing port$' "$T/pacing_port.pace" && grep -q 'pacing qp$' "$T/pacing_qp.pace"; then
		echo "ok   TUI: the v screen shows -b's CNP pacing lines (pacing_port: port; pacing_qp: qp), the connection detail its source's"
		oks=$((oks + 1))
	else
		echo "FAIL TUI CNP pacing:$pbad"; sed 's/^/| /' "$T/pacing_port.screen" | head -n 14; sed 's/^/| /' "$T/pdet.screen" | head -n 30
		fails=$((fails + 1))
	fi
else
	echo "FAIL TUI: tmux not installed (make deps)"; fails=$((fails + 1))
fi

# every verdict rocetop(8) DIAGNOSIS lists has a fixture that raises it and a
# near miss that must not (nic_drop: the device view's, just above)
names=$(awk '/^\.SH DIAGNOSIS/ { on = 1; next } /^\.SH / { on = 0 } on && prev == ".TP" && /^\.B [a-z_]+$/ { print $2 } { prev = $0 }' man/rocetop.8)
missing=
for n in $names; do
	if [ "$n" = nic_drop ]; then
		[ "$nic_drop_ok" = 1 ] && continue
	fi
	grep -q "^raise $n\( \|$\)" "$T"/gen/*.expect || missing="$missing $n(raise)"
	grep -q "^none $n$" "$T"/gen/*.expect || missing="$missing $n(near miss)"
done
if [ "$(echo "$names" | wc -w)" -ge 16 ] && [ -z "$missing" ]; then
	echo "ok   each of the $(echo "$names" | wc -w) verdicts of rocetop(8) has a fixture raising it and a near miss"
	oks=$((oks + 1))
else
	echo "FAIL verdicts without a fixture or near miss:$missing ($(echo "$names" | wc -w) names in rocetop(8))"
	fails=$((fails + 1))
fi

# lab runs (tests/interop_diag.sh, kept in captures/lab): rping through
# rdma_cm with loss: its timeout waits are held against the CM REQ's local
# ACK timeout (read here from the REQ's bytes by tests/req_timeout.py), not
# --ack-timeout: none at ±25 %, and at ±1 % the verdict names the REQ's
# value; ib_write_lat -u 12 with loss: vmb's timeout resends against
# --ack-timeout 8 raise timeout_mismatch with negotiated_us 1048.6.
labv() {   # labv CAPTURE OPTIONS... -> "severity negotiated_us requester" per timeout_mismatch
	local c=$1
	shift
	"$R" -r "captures/lab/$c.pcap" --json "$@" | tail -n 1 | "$PY" -c 'import json, sys
for d in json.loads(sys.stdin.read())["diagnosis"]:
    if d["verdict"] == "timeout_mismatch":
        print(d["severity"], d["evidence"]["negotiated_us"], d["subject"].split()[0])'
}
t=$("$PY" tests/req_timeout.py captures/lab/roce_netem_diag_rping_cm.pcap)
want=$("$PY" -c "print(round(4.096 * 2 ** int('${t:-0}'), 1))")
none=$(labv roce_netem_diag_rping_cm)
tight=$(labv roce_netem_diag_rping_cm --diag-tolerance 1 --ack-timeout 8)
if [ -n "$t" ] && [ -z "$none" ] && [ "$tight" = "warning $want 10.99.0.1" ]; then
	echo "ok   lab rping through rdma_cm: waits held against the REQ's timeout $t ($want us), not --ack-timeout: none at ±25 %, named at ±1 %"
	oks=$((oks + 1))
else
	echo "FAIL lab rping through rdma_cm: REQ timeout '$t' ($want us); at ±25 % '$none'; at ±1 % '$tight'"
	fails=$((fails + 1))
fi
miss=$(labv roce_netem_diag_write_lat_u12 --ack-timeout 8 | grep ' 10\.99\.0\.2$')
if [ "$miss" = "warning 1048.6 10.99.0.2" ]; then
	echo "ok   lab ib_write_lat -u 12: vmb's timeout resends against --ack-timeout 8: timeout_mismatch, negotiated_us 1048.6"
	oks=$((oks + 1))
else
	echo "FAIL lab ib_write_lat -u 12 against --ack-timeout 8: '$miss'"
	fails=$((fails + 1))
fi

# rocegen's responder withholding ACKs (tests/interop_diag.sh, kept as
# roce_diag_ack_withheld_u15: vma's ib_write_bw -u 15 -t 1 against rocegen
# server --fault drop/ack=@+3,times=3): the .log's rocegen report says how
# many ACKs it dropped and the peer's first PSN; rocetop must count as many
# timeout resends, all of PSN first + 3, raise no timeout_mismatch against
# --ack-timeout 15 and one against 12 whose waits are those resends', their
# median within ±25 % of 4.096 us x 2^15
c=captures/lab/roce_diag_ack_withheld_u15
"$R" -r "$c.pcap" --json --ack-timeout 15 | tail -n 1 >"$T/aw15.json"
"$R" -r "$c.pcap" --json --ack-timeout 12 | tail -n 1 >"$T/aw12.json"
"$R" -r "$c.pcap" --packets >"$T/aw.pk"
if "$PY" - "$c.log" "$T/aw15.json" "$T/aw12.json" "$T/aw.pk" >"$T/aw.res" 2>&1 <<'PY'
import json, re, statistics, sys
log = open(sys.argv[1]).read()
drops = int(re.search(r"faults fired: drop (\d+)", log).group(1))
first = int(re.search(r"remote address: QPN 0x[0-9a-f]+ PSN 0x([0-9a-f]+)", log).group(1), 16)
s15, s12 = (json.load(open(f)) for f in sys.argv[2:4])
resent = [int(m.group(1)) for l in open(sys.argv[4]) if "[retransmission]" in l for m in [re.search(r" psn (\d+) ", l)] if m]
to = sum(f["retransmission_episodes"]["timeout"] for f in s15["flows"])
tm15 = [d for d in s15["diagnosis"] if d["verdict"] == "timeout_mismatch"]
tm12 = [d for d in s12["diagnosis"] if d["verdict"] == "timeout_mismatch"]
w = tm12[0]["evidence"]["waits_us"] if len(tm12) == 1 else []
spec = 4.096 * 2 ** 15
med = statistics.median(w) if w else 0
print("%d ACKs withheld, %d timeout resends of PSN %s (first + 3 = %d); --ack-timeout 15: %d verdicts; 12: waits_us %s, "
      "median %+.1f %% of %.1f us" % (drops, to, sorted(set(resent)), (first + 3) & 0xffffff, len(tm15), w,
                                      (med - spec) / spec * 100 if med else 0, spec))
ok = (drops >= 1 and to == drops and resent == [(first + 3) & 0xffffff] * drops and not tm15 and len(w) == drops
      and tm12[0]["subject"].startswith("10.99.0.1 ") and abs(med - spec) <= 0.25 * spec)
sys.exit(0 if ok else 1)
PY
then
	echo "ok   lab ACKs withheld: $(cat "$T/aw.res")"; oks=$((oks + 1))
else
	echo "FAIL lab ACKs withheld: $(cat "$T/aw.res")"; fails=$((fails + 1))
fi

# clean lab captures of every kind (RC, UC, UD, iWARP; SEND, WRITE, READ,
# atomics; with and without rdma_cm; IPv6 GIDs; MTU 9000): no warning or
# error.  The netem ones had faults injected (captures/lab/README.md),
# roce_diag_ack_withheld_u15 ACKs withheld by rocegen, and
# roce_pfc_storm carries rocegen's XOFF train: left out, and the storm's
# capture must raise pfc_storm for priority 3 from the host side's MAC.
"$PY" - "$R" captures/lab/*.pcap <<'PY' >"$T/clean.res" 2>&1
import json, os, subprocess, sys
R = sys.argv[1]
faulted = lambda c: any(k in os.path.basename(c) for k in ("netem", "pfc_storm", "ack_withheld"))
caps = [c for c in sys.argv[2:] if not faulted(c)]
bad = 0
storm = [c for c in sys.argv[2:] if os.path.basename(c) == "roce_pfc_storm.pcap"]
for c in storm:
    out = subprocess.run([R, "-r", c, "--json"], capture_output=True, text=True).stdout.splitlines()
    got = [(d["verdict"], d["severity"], d["subject"]) for d in json.loads(out[-1])["diagnosis"]] if out else []
    want = ("pfc_storm", "error", "priority 3 from 52:54:00:99:00:fe")
    if want in got:
        print("ok   lab %s raises %s %s for %s" % (os.path.basename(c), want[1], want[0], want[2]))
    else:
        print("FAIL lab %s: %s, not %s" % (os.path.basename(c), got, want))
for c in caps:
    out = subprocess.run([R, "-r", c, "--json"], capture_output=True, text=True).stdout.splitlines()
    got = [d["verdict"] for d in json.loads(out[-1])["diagnosis"] if d["severity"] != "info"] if out else ["(no summary)"]
    if got:
        print("FAIL clean %s raises: %s" % (c, " ".join(got))); bad += 1
if len(caps) >= 25 and not bad:
    print("ok   %d clean lab captures raise no warning or error" % len(caps))
elif not bad:
    print("FAIL only %d clean lab captures found" % len(caps))
PY
cat "$T/clean.res"
oks=$((oks + $(grep -c '^ok ' "$T/clean.res")))
fails=$((fails + $(grep -c '^FAIL ' "$T/clean.res")))

# Prometheus: every fixture replayed with --prometheus 127.0.0.1:0 --linger
# (one Python for all: its start is most of the cost on a loaded machine);
# rocetop_diagnosis_active holds the JSON summary's verdicts (1 active, 0
# past), rocetop_diagnosis_raised_total counts each once and not again at a
# second scrape, promtool check metrics is clean.  pfc_storm and
# timeout_mismatch name their subjects; their near misses serve no such series.
if command -v promtool >/dev/null 2>&1; then
	"$PY" - "$R" "$T" "${TEST_SHARED:-}" <<'PY' >"$T/p.res" 2>&1
import glob, hashlib, json, os, re, signal, subprocess, sys, time, urllib.request
R, T, SHARED = sys.argv[1:]
# promtool's verdict on a body is the body's: one promtool start (~0.13 CPU-s)
# per distinct body, a clean one remembered (by its SHA-256) in TEST_SHARED,
# which tests/run.sh gives both builds' runs of this job; a body the other
# build served byte for byte is not checked again
clean_dir = os.path.join(SHARED, "promtool-clean") if SHARED else os.path.join(T, "promtool-clean")
os.makedirs(clean_dir, exist_ok=True)
pt_runs = pt_known = 0
def promtool(body):
    global pt_runs, pt_known
    mark = os.path.join(clean_dir, hashlib.sha256(body.encode()).hexdigest())
    if os.path.exists(mark):
        pt_known += 1
        return ""
    pt_runs += 1
    pt = subprocess.run(["promtool", "check", "metrics"], input=body.encode(), capture_output=True)
    if pt.returncode:
        return "promtool: " + (pt.stdout + pt.stderr).decode()
    open(mark, "w").close()
    return ""
def unesc(v):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), v)
def series(body, metric):
    r = {}
    for line in body.splitlines():
        m = re.match(metric + r'\{(.*)\} (\S+)$', line)
        if m:
            labels = dict((k, unesc(v)) for k, v in re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(1)))
            key = tuple(sorted(labels.items()))
            if key in r:
                raise ValueError("%s twice: %s" % (metric, line))
            r[key] = float(m.group(2))
    return r
named = {"pfc_storm": ("pfc_storm", "error", "priority 3 from 02:00:00:00:00:fe"),
         "timeout_mismatch": ("timeout_mismatch", "warning", "10.0.0.1 QP 0x000100 <-> 10.0.0.2 QP 0x000200"),
         "nic_drop_rise": ("nic_drop", "warning", "NIC bnxt_re0, mlx5_0")}
near = {"pfc_train_gap": "pfc_storm", "timeout_match": "timeout_mismatch", "nic_drop_still": "nic_drop"}
paced = {"pacing_qp": "qp", "pacing_ip_pair": "ip_pair", "pacing_port": "port"}
def one(name, th, extra=(), key=None):
    key = key or name
    ex = "%s/gen/%s.expect" % (T, name)
    opts = [w for l in open(ex) if l.startswith("options ") for w in l.split()[1:]]
    sumf, errf = open(T + "/p.json", "w"), open(T + "/p.err", "w")
    p = subprocess.Popen([R, "-r", "%s/gen/%s.pcap" % (T, name), "--json", "--threads", str(th)] + opts + list(extra) +
                         ["--prometheus", "127.0.0.1:0", "--linger"], stdout=sumf, stderr=errf)
    try:
        deadline = time.time() + 30
        url = None
        while time.time() < deadline and not url:
            m = re.search(r"on (http://\S+/metrics)", open(T + "/p.err").read())
            url = m and '"type":"summary"' in open(T + "/p.json").read() and m.group(1)
            time.sleep(0.02)
        if not url:
            return ["no --linger URL: " + open(T + "/p.err").read()], ""
        summ = json.loads(open(T + "/p.json").read().splitlines()[-1])
        bodies = [urllib.request.urlopen(url, timeout=10).read().decode() for _ in range(2)]
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait()
        sumf.close(); errf.close()
    bad = []
    pt = promtool(bodies[0])
    if pt:
        bad.append(pt)
    try:
        act = series(bodies[0], "rocetop_diagnosis_active")
        raised = [series(b, "rocetop_diagnosis_raised_total") for b in bodies]
    except ValueError as e:
        return [str(e)], ""
    want = {}
    for d in summ["diagnosis"]:
        k = tuple(sorted({"verdict": d["verdict"], "severity": d["severity"], "subject": d["subject"]}.items()))
        want[k] = max(want.get(k, 0), 1.0 if d["active"] else 0.0)
    if act != want:
        bad.append("active: served %s, summary %s" % (act, want))
    wr = {}
    for d in summ["diagnosis"]:
        k = (("severity", d["severity"]), ("verdict", d["verdict"]))
        wr[k] = wr.get(k, 0) + 1
    for k, v in raised[0].items():
        if v != wr.get(k, 0):
            bad.append("raised %s = %s, summary lists %s" % (dict(k), v, wr.get(k, 0)))
    bad += ["raised %s not served" % dict(k) for k in wr if k not in raised[0]]
    if raised[1] != raised[0]:
        bad.append("second scrape: raised changed to %s" % raised[1])
    if len(raised[0]) < 16:
        bad.append("%d raised_total series, want one per verdict" % len(raised[0]))
    if key in named:
        v, sev, subj = named[key]
        if act.get(tuple(sorted({"verdict": v, "severity": sev, "subject": subj}.items()))) != 1.0:
            bad.append("no active %s for %s" % (v, subj))
        if raised[0].get((("severity", sev), ("verdict", v))) != 1.0:
            bad.append("rocetop_diagnosis_raised_total{verdict=%s,severity=%s} is not 1" % (v, sev))
    if key in near and any(dict(k)["verdict"] == near[key] for k in act):
        bad.append("serves %s" % near[key])
    # the CNP pacing: the summary's cnp_pacing, source by source
    info, least, cnps = (series(bodies[0], m) for m in ("rocetop_cnp_pacing_info",
                         "rocetop_cnp_pacing_least_interval_seconds", "rocetop_cnp_pacing_cnps_total"))
    winfo, wleast, wcnps = {}, {}, {}
    for c in summ["cnp_pacing"]:
        winfo[(("pacing", c["pacing"]), ("source", c["source"]))] = 1.0
        wcnps[(("source", c["source"]),)] = float(c["cnps"])
        for b, j in (("one_qp", "min_interval_us"), ("qps_of_one_pair", "min_cross_qp_us"), ("ip_pairs", "min_cross_pair_us")):
            if c[j] is not None:
                wleast[(("between", b), ("source", c["source"]))] = c[j] / 1e6
    if info != winfo or cnps != wcnps or least.keys() != wleast.keys() or \
       any(abs(least[k] - wleast[k]) > 1e-9 for k in least):
        bad.append("CNP pacing: served %s %s %s, summary %s %s %s" % (info, least, cnps, winfo, wleast, wcnps))
    if key in paced and winfo != {(("pacing", paced[key]), ("source", "10.0.0.2")): 1.0}:
        bad.append("CNP pacing %s, want %s for 10.0.0.2" % (winfo, paced[key]))
    return bad, "%d active, %d raised, %d CNP sources" % (sum(1 for v in act.values() if v == 1),
                                                          sum(raised[0].values()), len(info))
n = nbad = 0
runs = [(os.path.basename(ex)[:-len(".expect")], th, (), None) for ex in sorted(glob.glob(T + "/gen/*.expect"))
        for th in ((1, 2) if os.path.basename(ex) in ("pfc_storm.expect", "pacing_port.expect") else (1,))]
# nic_drop from the device view (the recordings made above for it)
runs += [("class_symmetric", 1, ("--device-replay", T + "/" + rec, "--device", "all"), key)
         for rec, key in (("rec_rise", "nic_drop_rise"), ("rec_still", "nic_drop_still"))]
for name, th, extra, key in runs:
        bad, what = one(name, th, extra, key)
        n += 1
        key = key or name
        if bad:
            nbad += 1
            print("FAIL prometheus %s --threads %d:" % (key, th))
            for b in bad:
                print("  " + b)
        elif key in named or key in near or key in paced:
            print("ok   prometheus %s --threads %d: %s" % (key, th, what))
if not nbad:
    print("ok   prometheus: %d replays serve their summary's verdicts, promtool-clean (%d bodies checked, %d as served "
          "before)" % (n, pt_runs, pt_known))
PY
	cat "$T/p.res"
	oks=$((oks + $(grep -c '^ok ' "$T/p.res")))
	fails=$((fails + $(grep -c '^FAIL ' "$T/p.res")))
	grep -q '^ok   prometheus: ' "$T/p.res" || { [ "$(grep -c '^FAIL ' "$T/p.res")" -gt 0 ] || { echo "FAIL prometheus: the check did not finish"; fails=$((fails + 1)); }; }
	# the cap: 150 MACs that each send RoCE and a PFC pause raise 150
	# pause_from_host verdicts; 100 active series, the gauges say 150 and 50
	"$PY" - "$T/many.pcap" 150 <<'PY'
import struct, sys
n = int(sys.argv[2])
def roce(i):
    src = bytes([2, 0, 0, 1, i >> 8, i & 255])
    eth = bytes.fromhex("020000000002") + src + b"\x08\x00"
    body = struct.pack(">BBHII", 0x04, 0x40, 0xffff, i, 0) + b"\0" * 20   # BTH SEND only, payload, ICRC
    udp = struct.pack(">HHHH", 0xc000, 4791, 8 + len(body), 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 28 + len(body), 0, 0x4000, 64, 17, 0,
                     bytes([10, 1, i >> 8, i & 255]), bytes([10, 0, 0, 2]))
    return eth + ip + udp + body
def pfc(i):   # MAC control PFC: priority 3 for 0xffff quanta
    src = bytes([2, 0, 0, 1, i >> 8, i & 255])
    body = struct.pack(">HH8H", 0x0101, 0x08, 0, 0, 0, 0xffff, 0, 0, 0, 0)
    return bytes.fromhex("0180c2000001") + src + b"\x88\x08" + body + b"\0" * (46 - len(body))
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    t = 0
    for i in range(1, n + 1):
        for d in (roce(i), pfc(i)):
            t += 10
            f.write(struct.pack("<IIII", 1, t, len(d), len(d)) + d)
PY
	"$R" -r "$T/many.pcap" --prometheus 127.0.0.1:0 --linger >/dev/null 2>"$T/m.err" &
	rp=$!
	if "$PY" - "$T/m.err" "$T/m.txt" <<'PY' >"$T/m.res" 2>&1 && promtool check metrics <"$T/m.txt" >"$T/pt.out" 2>&1; then
import re, sys, time, urllib.request
deadline = time.time() + 30
url = None
while time.time() < deadline and not url:
    m = re.search(r"on (http://\S+/metrics)", open(sys.argv[1]).read())
    url = m and m.group(1)
    time.sleep(0.05)
if not url:
    sys.exit("no --linger URL")
b = urllib.request.urlopen(url, timeout=10).read().decode()
open(sys.argv[2], "w").write(b)
act = [l for l in b.splitlines() if l.startswith("rocetop_diagnosis_active{")]
val = lambda name: [l.split()[-1] for l in b.splitlines() if l.startswith(name + " ") or l.startswith(name + "{")]
got = (len(act), len(set(act)), val("rocetop_diagnosis_verdicts"), val("rocetop_diagnosis_omitted"),
       val('rocetop_diagnosis_raised_total{verdict="pause_from_host",severity="warning"}'))
print("%d active series (%d distinct), verdicts %s, omitted %s, raised %s" % got)
sys.exit(0 if got == (100, 100, ["150"], ["50"], ["150"]) else 1)
PY
		echo "ok   prometheus cap: $(cat "$T/m.res")"; oks=$((oks + 1))
	else
		echo "FAIL prometheus cap:"; cat "$T/m.res" "$T/pt.out"; fails=$((fails + 1))
	fi
	kill "$rp" 2>/dev/null
	wait "$rp" 2>/dev/null
else
	echo "FAIL prometheus: promtool not installed (make deps)"; fails=$((fails + 1))
fi

echo "diag: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
