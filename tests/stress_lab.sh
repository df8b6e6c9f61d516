#!/bin/bash
# tests/stress_lab.sh - `rocegen stress` against the soft-RoCE lab's rxe, then
# `rocegen search` and `rocegen stress --sweep-qps` against it (make interop;
# make soak runs it with STRESS_SOAK=1: 10 min, 256 QPs).
#
#   BUILD=<build dir> tests/stress_lab.sh
#
# Skips (exit 0) without root, the lab or a built rocetarget.  Holds
# /tmp/softroce-lab.lock for the whole lab session; brings the lab up (rxe)
# if it is down and down again after.  rocetarget runs in vma; rocegen on the
# host side (br0) drives 64 QPs for 60 s with a 1 % drop/dup/reorder mix
# (STRESS_QPS, STRESS_DURATION, STRESS_FAULTS override) and every check is
# asserted against EXPECT: every QP completes, no integrity error, the
# metrics measured, rxe's counters equal the wire's.  An rxe deviation goes
# in EXPECT with the rxe source line that explains it.
#
# rocegen's local ACK timeout is 2^18 * 4.096 us (1.07 s; STRESS_TIMEOUT):
# the guests run under TCG, messages take tens of ms, and every integrity
# check is a control round trip during which rocegen's loop waits (64 QPs:
# ~8000 round trips of ~6 ms in 60 s); at the default 14 (67 ms) rocegen's
# own spurious timeouts turn most of the traffic into go-back-N duplicates.
#
# No rxe deviation is expected in this mix (Linux 6.1): one NAK per
# out-of-sequence episode, duplicate_request per duplicate packet and
# out_of_seq_request per episode (rxe_resp.c check_psn(), the map in
# generator/stress/stress_report.c), every byte right.  Measured 2 Dec 2026:
# 64 QPs, 60 s, 16240 messages (send/write/read/atomic), 25 MB, faults drop
# 402 dup 431 reorder 395, 0 integrity errors, 595 NAKs for 595 episodes,
# duplicate_request 8608 = wire 8608, out_of_seq_request 595 = episodes 595
# (2511 out-of-sequence packets), NAK generation p50 2.9 ms p99 82 ms.
#
# Then the adapter as requester (--role requester, STRESS_REQ_QPS 16 QPs for
# STRESS_REQ_DURATION 20 s): rocetarget's own workload loop (`load`) posts
# send/write/read/fetch_add, rocegen's lib/qp responder answers and faults
# its responses (drop/dup/reorder 1 %), answers 0.5 % of SENDs with an RNR
# NAK and loses 0.5 % of the requests on receipt (so that it NAKs or rxe
# times out).  Asserted: every QP's load completes without an error
# completion, no integrity error (SEND/WRITE bytes as they land, the READ/
# atomic fold rxe reports, the atomic word), the NAK response, retransmission
# and RNR wait measured (rxe's RNR timer counts whole jiffies and can fire up
# to a tick early: rnr_wait may PASS or FAIL, see EXPECT_REQ), its
# timeout retransmissions within 0.9x..4.5x of 4.096 us x 2^14.
# STRESS_ROLES=requester (or responder) runs one role only.  Measured 2 Dec
# 2026 (16 QPs, 20 s): 18602 messages, 28.6 MB, faults drop 325 dup 316
# reorder 330 rnr 30 lose 200, every QP complete, 0 integrity errors; NAK
# response p50 11.5 ms (128 for 145 NAKs), retransmission p50 86.7 ms,
# timeout retransmission p50 53.0 ms (42), RNR wait p50 24.8 ms (27 for 30
# RNR NAKs, the shortest 1.36 ms for a 0.64 ms timer).  Another run, with the
# responder role first: 15987 messages, 24.5 MB, timeout retransmissions 44,
# the shortest 36.2 ms, p50 58.6 ms for 67.1 ms.  The first runs found
# a bug of rocegen's responder (lib/qp): a duplicate SEND re-ACKed at the
# newest PSN, that of an atomic or READ, which rxe took as their completion
# without the data (qp.c rsp_duplicate, fixed; test_qp).
#
# The guest network under TCG can stall for the rest of a boot (tests/labnet.sh;
# a CI run saw the responder run end with "control channel: no reply" on 3 of
# 64 QPs).  As interop_gen.sh does: before each role vma must answer ping from
# br0 (else the lab is rebooted), and a role that fails while vma no longer
# answers is run once more on rebooted guests (rocetarget started again), the
# output saying so; a role that fails with vma still answering stands.
#
# Measured 7 Dec 2026 with rocetarget's key (two runs, lab brought up by the
# script, no guest-network stall, so no retry): responder 64 QPs 60 s, 31570
# and 39325 messages, 0 integrity errors, duplicate_request 3495 = wire 3495
# and 4487 = 4487, out_of_seq_request 1297 = 1297 and 1654 = 1654, path_loss
# 0 (the second run also counting unexplained timeouts: 0); requester 16 QPs
# 20 s, 62182 and 56094 messages, timeout_retransmission FAIL as EXPECT_REQ
# says; 250 s for the whole script.
#
# Then (issue 28) `rocegen search` against rxe and the QP-scalability curve,
# see search() and sweep() below.  Measured 7 Dec 2026, each alone
# (STRESS_ROLES=search, =sweep): the search found a timeout no fault explains
# in its 11th evaluation (13 QPs, depth 4, MTU 256, 4-8 KiB SENDs), shrank it
# in 23 more, 64 s in all, and its reproduce line replayed it (path_loss FAIL:
# 1 timeout, qp 12); the sweep over 1..4096 QPs took 205 s with the lab's boot
# (messages/s 72, 1071, 1037, 1358 peak, 233 at 4096: the knee), every QP
# complete; at 4096 QPs the first requests of 2290 QPs never reached rxe
# (duplicate_request 0 for 2290 resends: the burst of 4096 requests overflows
# the lab's path into vma), so path_loss FAILs there and rocegen exits 1; the
# role asserts the curve, not that verdict.  The whole script with all four
# roles, lab boot included, then took 326 s: the search found at 18 QPs, depth
# 3, MTU 256, 4-8 KiB SENDs a sequence NAK no fault explains (rxe's
# out_of_seq_request 1: a request lost before rxe) in 11 + 22 evaluations,
# 43 s; the curve 229, 967, 1006, 1894 (peak), 235 messages/s, knee 4096.
#
# Then (issue 28) the congestion fingerprint through rocetarget, see
# fingerprint() below (STRESS_ROLES=fingerprint runs it alone).
#
# Environment: STRESS_LAB_LOCKED=1 when the caller already holds the lab lock;
# STRESS_OUT=DIR keeps the JSON, JUnit XML and pcaps there;
# STRESS_ARGS adds options (-vv: every engine event on standard error).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROOT=$PWD
LAB=${LAB:-$ROOT/../shared/softroce-lab/lab}
[ -x "$LAB" ] || LAB=/work/shared/softroce-lab/lab
GEN=$ROOT/$BUILD/bin/rocegen
TGT=$ROOT/$BUILD/bin/rocetarget
skip() { echo "stress_lab.sh: skipped: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$LAB" ] || skip "no lab at $LAB"
[ -x "$TGT" ] || skip "no $TGT (libibverbs-dev missing?)"
[ -x "$GEN" ] || { echo "stress_lab.sh: no $GEN"; exit 1; }
if [ "${STRESS_SOAK:-0}" = 1 ]; then
	QPS=${STRESS_QPS:-256}; DUR=${STRESS_DURATION:-600}
else
	QPS=${STRESS_QPS:-64}; DUR=${STRESS_DURATION:-60}
fi
FAULTS=${STRESS_FAULTS:-drop=1%,dup=1%,reorder=1%}

# check=VERDICT  reason (for non-PASS)
EXPECT=(
"qps_completed=PASS"
"integrity=PASS"
"nak_per_episode=PASS"
"counters_vs_wire=PASS"
"path_loss=PASS|FAIL  sequence NAKs from rxe, or timeouts, that no fault of rocegen's explains, per QP (loss between the veths and rxe, which the issue saw as counters differing without a reason); 7 Dec 2026: 0 such NAKs in a 64-QP, 60-s run (rocegen before it counted unexplained timeouts too)"
"fairness=PASS"
)

OUT=${STRESS_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
if [ "${STRESS_LAB_LOCKED:-0}" != 1 ]; then   # 1: the caller holds the lock (one session, several runs)
	exec 9> /tmp/softroce-lab.lock
	flock 9
fi
"$LAB" build > "$OUT/lab-build.log" 2>&1 || { echo "stress_lab.sh: lab build failed"; exit 1; }
WE_UP=0
if ! "$LAB" status > "$OUT/lab.env" 2>/dev/null; then
	"$LAB" up > "$OUT/lab.env" 2>"$OUT/lab-up.log" || { echo "stress_lab.sh: lab up failed"; exit 1; }
	WE_UP=1
fi
eval "$(grep '^LAB_' "$OUT/lab.env")"
[ "${LAB_MODE:-}" = rxe ] || { "$LAB" up --mode rxe > "$OUT/lab.env" 2>>"$OUT/lab-up.log"; eval "$(grep '^LAB_' "$OUT/lab.env")"; }

L=$LAB
LAB_MODE_WANT=rxe
# shellcheck source=tests/labnet.sh
. "$ROOT/tests/labnet.sh"

NAME=rocetarget.$$.$(date +%s)
cp "$TGT" "$LAB_SHARED/$NAME"
# the key rocetarget asks for (mode 0600, seen as such in vma through 9p)
(umask 077; head -c 32 /dev/urandom > "$LAB_SHARED/$NAME.key")
PORT=${STRESS_PORT:-$((7400 + $$ % 500))}
TPID=
# start_target: rocetarget in vma, listening on $PORT; 0, or 1 after its log
start_target() {
	"$LAB" exec --timeout $((DUR + 2400)) vma -- "/mnt/lab/$NAME" --listen "$LAB_VMA_IP:$PORT" --key "/mnt/lab/$NAME.key" \
		>> "$OUT/rocetarget.log" 2>&1 &
	TPID=$!
	"$LAB" exec vma -- "for i in \$(seq 100); do netstat -ltn | grep -q ':$PORT ' && exit 0; sleep 0.1; done; exit 1" ||
		{ echo "stress_lab.sh: rocetarget did not start in vma"; cat "$OUT/rocetarget.log"; return 1; }
}
stop_target() {
	[ -n "$TPID" ] && { kill "$TPID" 2>/dev/null; wait "$TPID" 2>/dev/null; }
	TPID=
}
FP_ADDED=
cleanup() {
	stop_target
	[ -n "$FP_ADDED" ] && "$LAB" host -- ip addr del "$FP_ADDED/24" dev br0 2>/dev/null
	rm -f "$LAB_SHARED/$NAME" "$LAB_SHARED/$NAME.key"
	[ "$WE_UP" = 1 ] && "$LAB" down > /dev/null 2>&1
}
trap cleanup EXIT
start_target || exit 1

# run ROLE QPS DURATION FAULTS TIMEOUT ARGS...: rocegen stress on br0 against rocetarget
run() {
	local role=$1 qps=$2 dur=$3 faults=$4 timeout=$5; shift 5
	mkdir -p "$OUT/pcap-$role"
	"$LAB" host -- "$GEN" stress -i br0 --peer "$LAB_VMA_IP" --target "$LAB_VMA_IP:$PORT" --key "$LAB_SHARED/$NAME.key" \
		--device "$LAB_VMA_DEV" --role "$role" --qps "$qps" --duration "$dur" --faults "$faults" --seed "${STRESS_SEED:-1}" \
		--sizes 1-4096 --qd 4 --ack-timeout "$timeout" --json --junit "$OUT/stress-$role.xml" \
		--pcap-dir "$OUT/pcap-$role" "$@" ${STRESS_ARGS:-} > "$OUT/stress-$role.out" 2> "$OUT/stress-$role.err"
	echo "stress_lab.sh: rocegen stress --role $role exit status $?"
	cat "$OUT/stress-$role.err"
	tail -n 1 "$OUT/stress-$role.out" > "$OUT/stress-$role.json"
	grep -v '^{' "$OUT/stress-$role.out"
}

# verdicts ROLE QPS METRIC,METRIC EXPECT...: every check as expected, the metrics measured
verdicts() {
	python3 - "$OUT/stress-$1.json" "$2" "$3" "${@:4}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
qps = int(sys.argv[2])
exp = {}
for e in sys.argv[4:]:
    k, rest = e.split('=', 1)
    v, _, why = rest.partition('  ')
    exp[k] = (v, why)
bad = 0
for c in d['checks']:
    v, why = exp.get(c['name'], ('?', 'no expectation'))
    ok = c['verdict'] in v.split('|')   # PASS|FAIL: the outcome rests on timing, both explained
    bad += not ok
    print('%-3s %-22s %-11s %s' % ('ok' if ok else 'BAD', c['name'], c['verdict'], c['detail']))
    if not ok:
        print('      expected %s%s' % (v, (': ' + why) if why else ''))
for k in sys.argv[3].split(','):
    s = d['metrics'][k]
    if not s['n']:
        print('BAD metric %s not measured' % k); bad += 1
if d['qps'] != qps or d['messages'] == 0 or d['qps_completed'] != qps:
    print('BAD %d QPs, %d completed, %d messages' % (d['qps'], d['qps_completed'], d['messages'])); bad += 1
print('stress_lab.sh: %s: %d QPs, %d messages, %d bytes, %d integrity errors, faults %s'
      % (d['role'], d['qps'], d['messages'], d['bytes'], d['integrity_errors'], d['faults_injected']))
sys.exit(1 if bad else 0)
PY
}

# The adapter as requester: rocegen's checks of rxe's reactions
# (counters_vs_wire compares responder counters only).  Also seen, no check:
# rxe 6.1 does not retry a READ at a gap in its responses (rxe_comp.c:208-209
# check_psn(): a later response of a READ/atomic → COMPST_DONE, dropped), it
# waits for the timer, so retransmission_us is mostly timeouts.
EXPECT_REQ=(
"qps_completed=PASS"
"integrity=PASS"
"nak_response=PASS"
"timeout_retransmission=FAIL|PASS  rxe 6.1 arms its retransmit timer only when none is pending (rxe_req.c:562) and never stops it when everything is acknowledged (rxe_comp.c:675-680 re-arm only while requests are outstanding): a timer armed for an earlier request fires for a later one, earlier than 4.096 us x 2^14 after the last response (measured: p50 36.8, 34.4 and 53.0 ms for 67.1 ms, also with no fault at all); a run whose timeouts all come after silence with no earlier timer pending PASSes (a 5 s run: 1 timeout, 64.4 ms)"
"rnr_wait=PASS|FAIL  rxe 6.1 arms its RNR timer in whole jiffies (rxe_comp.c rnrnak_jiffies(): max(usecs_to_jiffies(t), 1), then mod_timer(jiffies + n)): the retry comes at the n-th timer tick after the NAK, which can be up to one tick (4 ms at Debian's HZ=250) before the timer has run; whether a run sees such an early retry depends on where in a tick each NAK lands (measured for a 0.64 ms timer: shortest 1.36 ms of 27 retries, PASS; 0.21 ms of 116, FAIL)"
"counters_vs_wire=UNSUPPORTED  not compared with the adapter as requester"
"fairness=PASS"
)

# target_health: what a failed control channel leaves to look at — does vma
# answer ping, is rocetarget still running there, its last lines
target_health() {
	labnet_ok "$LAB_VMA_IP" && echo "stress_lab.sh: vma answers ping" || echo "stress_lab.sh: vma does not answer ping"
	"$LAB" exec --timeout 20 vma -- "ps | grep '[/]mnt/lab/$NAME' || echo 'rocetarget is not running'"
	tail -n 5 "$OUT/rocetarget.log"
}

# The search (issue 28): `rocegen search` against rxe, each evaluation a
# 4-message-per-QP stress run through rocetarget, SEARCH_BUDGET evaluations
# (default 30) within --time-limit SEARCH_TIME s (default 600).  Asserted: the
# JSON valid; the budget spent, or an anomaly found (the search stops at the
# first), or stopped by the time limit — a stop for rocetarget (exit 1) fails;
# every workload inside the space (MTU at most vma's active MTU); every score
# the weights of its evidence (rocegen(8) SEARCH); every reproduce line runs as
# `rocegen stress` options against rxe (exit 0 or 1, never 2), its verdicts
# printed.  What the search found is printed for the record.
search() {
	local rc=0
	"$LAB" host -- "$GEN" search -i br0 --peer "$LAB_VMA_IP" --target "$LAB_VMA_IP:$PORT" --key "$LAB_SHARED/$NAME.key" \
		--device "$LAB_VMA_DEV" --seed "${SEARCH_SEED:-1}" --budget "${SEARCH_BUDGET:-30}" \
		--time-limit "${SEARCH_TIME:-600}" --json > "$OUT/search.json" 2> "$OUT/search.err" || rc=$?
	echo "stress_lab.sh: rocegen search exit status $rc"
	cat "$OUT/search.err"
	[ "$rc" = 0 ] || { echo "BAD rocegen search exit status $rc"; cat "$OUT/search.json"; target_health; return 1; }
	python3 - "$OUT/search.json" "$LAB_VMA_ACTIVE_MTU" > "$OUT/search.repro" <<'PY' || { cat "$OUT/search.repro"; return 1; }
import json, shlex, sys
d = json.load(open(sys.argv[1]))
mtu = int(sys.argv[2])
bad = []
ok = d['evaluations'] == d['budget'] or d['anomalies'] or (d['stopped'] or '').startswith('time limit')
if not ok: bad.append('neither the budget spent, an anomaly, nor the time limit: %s' % d)
for a in d['anomalies']:
    w, e = a['workload'], a['evidence']
    smax = w['size_max']
    if not (1 <= w['qps'] <= 32 and 1 <= w['qd'] <= 16 and w['mtu'] in (256, 512, 1024, 2048, 4096) and w['mtu'] <= mtu
            and 64 <= smax <= 16384 and smax & (smax - 1) == 0 and w['size_min'] == smax // 2 and w['messages'] == 4
            and set(w['ops'].split(',')) <= {'send', 'write', 'read', 'atomic'}):
        bad.append('workload outside the space: %s' % w)
    if not (e['qps_completed'] <= w['qps'] and e['qps_error'] <= w['qps']):
        bad.append('evidence beyond the workload: %s for %s' % (e, w))
    base = e['retransmission_episodes'] + 0.5 * e['naks'] + 20 * e['qps_error'] + 50 * e['integrity_errors']
    if not (a['score'] > 0 and min(abs(a['score'] - base), abs(a['score'] - base - 100)) < 0.06):
        bad.append('score %s is not the weights of %s' % (a['score'], e))
    argv = shlex.split(a['reproduce'])
    if argv[:2] != ['rocegen', 'stress']:
        bad.append('reproduce %r' % a['reproduce'])
    print('REPRO ' + shlex.join(argv[2:]))
for b in bad:
    print('BAD ' + b)
sys.exit(1 if bad else 0)
PY
	python3 - "$OUT/search.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print('stress_lab.sh: search against rxe: %d evaluations (+%d to shrink) of %d in %.0f s%s' % (
    d['evaluations'], d['shrink_evaluations'], d['budget'], d['seconds'],
    ', stopped: ' + d['stopped'] if d['stopped'] else ''))
for a in d['anomalies']:
    print('  anomaly score %s workload %s' % (a['score'], json.dumps(a['workload'])))
    print('    evidence %s' % json.dumps(a['evidence']))
    print('    reproduce %s' % a['reproduce'])
if not d['anomalies']:
    print('  no anomaly')
PY
	local line r
	while read -r line; do
		r=0
		# shellcheck disable=SC2086  # the options of the reproduce line, split as shlex did
		eval "set -- ${line#REPRO }"
		"$LAB" host -- "$GEN" stress "$@" > "$OUT/search-replay.out" 2>&1 || r=$?
		echo "stress_lab.sh: the reproduce line replayed: exit status $r"
		grep -E '^ *[a-z_]+ +(PASS|FAIL|ERROR|UNSUPPORTED) ' "$OUT/search-replay.out" | sed 's/^/    /'
		[ "$r" -le 1 ] || { echo "BAD the reproduce line is not rocegen stress options"; cat "$OUT/search-replay.out"; return 1; }
	done < <(grep '^REPRO ' "$OUT/search.repro")
}

# The QP-scalability curve (issue 28): --sweep-qps SWEEP_QPS (default
# 1,16,256,1024,4096), 2 messages of 64 bytes per QP at depth 1, against rxe,
# rocegen's ACK timeout 2^22 x 4.096 us (17.2 s; SWEEP_TIMEOUT): under TCG rxe
# answers the first requests of 4096 QPs up to 8.7 s late, and at 2^18 (1.07 s)
# rocegen's own timeouts (30586 of them, 7 Dec 2026) piled resends onto rxe's
# queue until 1786 QPs ran out of retries.  Asserted per point: every QP
# completed, no integrity error, the messages the workload asks, a rate,
# p50 <= p99; the knee one of the points or none.  The rate is of the run's
# clock after setup, and each message's integrity check is a control round
# trip to rocetarget in vma, which the rate includes.
sweep() {
	local rc=0
	"$LAB" host -- "$GEN" stress -i br0 --peer "$LAB_VMA_IP" --target "$LAB_VMA_IP:$PORT" --key "$LAB_SHARED/$NAME.key" \
		--device "$LAB_VMA_DEV" --sweep-qps "${SWEEP_QPS:-1,16,256,1024,4096}" --messages 2 --qd 1 --sizes 64 \
		--ack-timeout "${SWEEP_TIMEOUT:-22}" --seed "${STRESS_SEED:-1}" --json > "$OUT/sweep.json" 2> "$OUT/sweep.err" || rc=$?
	echo "stress_lab.sh: rocegen stress --sweep-qps exit status $rc"
	cat "$OUT/sweep.err"
	python3 - "$OUT/sweep.json" "${SWEEP_QPS:-1,16,256,1024,4096}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = [int(x) for x in sys.argv[2].split(',')]
bad = []
pts = d['sweep']
if [p['qps'] for p in pts] != want: bad.append('points %s' % [p['qps'] for p in pts])
for p in pts:
    if not (p['qps_completed'] == p['qps'] and p['integrity_errors'] == 0 and p['messages'] == p['qps'] * d['messages_per_qp']
            and p['messages_per_s'] > 0 and 0 < p['p50_us'] <= p['p99_us']):
        bad.append('point %s' % p)
    print('  qps %5d  %8.0f messages/s  p50 %9.1f us  p99 %9.1f us  %s' % (p['qps'], p['messages_per_s'], p['p50_us'], p['p99_us'], p['verdict']))
if d['knee_qps'] is not None and d['knee_qps'] not in want: bad.append('knee %s' % d['knee_qps'])
print('stress_lab.sh: sweep against rxe: peak %s messages/s at %s QPs, knee %s' % (d['peak_messages_per_s'], d['peak_qps'], d['knee_qps']))
for b in bad:
    print('BAD ' + b)
sys.exit(1 if bad else 0)
PY
}

# The isolation suite (issue 28): `rocegen isolation` against rxe, every case
# (bandwidth, rnr, cache, flood, mr) at its defaults (4 s each: 2 alone, 2 beside
# the attackers), threshold ISO_THRESHOLD (default 0.8).  Whether rxe under TCG
# isolates the victim is what the run measures, not what it asserts: the exit
# status is 0 or 1 as the verdicts say.  Asserted: the JSON valid and live;
# every case ran (no error) with victim messages alone and beside; the
# victim's solo throughput > 0; the attackers completed messages, and in the rnr
# case rocegen retried after RNR NAKs (rocetarget's 2-receive sink works); the
# ratios the alone/beside figures give; each
# verdict the rule (throughput ratio >= R and p50 latency ratio <= 1/R) and
# the exit status 1 exactly when one FAILs.  The table is printed for the record.
# Measured 7 Dec 2026 (STRESS_ROLES=isolation, 96 s with the lab's boot): every
# case FAILs at 0.8 — rxe under TCG serves the victim's 4 KiB WRITEs behind
# the attackers' work: victim throughput ratio (beside / alone) bandwidth
# 0.015, rnr 0.213, cache 0.065, flood 0.051, mr 0.140; p50 latency ratio
# 235, 15.4, 69.3, 44.5, 16.9 (alone p50 0.2-0.36 ms); the rnr attackers
# 2201 RNR retries, no timeout retries in any case.
isolation() {
	local rc=0
	"$LAB" host -- "$GEN" isolation -i br0 --peer "$LAB_VMA_IP" --target "$LAB_VMA_IP:$PORT" --key "$LAB_SHARED/$NAME.key" \
		--device "$LAB_VMA_DEV" --threshold "${ISO_THRESHOLD:-0.8}" --seed "${STRESS_SEED:-1}" --json \
		> "$OUT/isolation.json" 2> "$OUT/isolation.err" || rc=$?
	echo "stress_lab.sh: rocegen isolation exit status $rc"
	cat "$OUT/isolation.err"
	[ "$rc" -le 1 ] || { echo "BAD rocegen isolation exit status $rc"; return 1; }
	python3 - "$OUT/isolation.json" "$rc" "${ISO_THRESHOLD:-0.8}" <<'PY' || { cat "$OUT/isolation.json"; target_health; return 1; }
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError as e:
    print('BAD the JSON: %s' % e); sys.exit(1)
rc, thr = int(sys.argv[2]), float(sys.argv[3])
bad = []
if d.get('adapter') != 'live' or abs(d['threshold'] - thr) > 1e-9:
    bad.append('adapter %s threshold %s' % (d.get('adapter'), d.get('threshold')))
names = [c['name'] for c in d['cases']]
if names != ['bandwidth', 'rnr', 'cache', 'flood', 'mr']:
    bad.append('cases %s' % names)
for c in d['cases']:
    if 'error' in c:
        bad.append('%s: %s' % (c['name'], c['error'])); continue
    a, b = c['alone'], c['beside']
    if not (a['Bps'] > 0 and a['messages'] > 0 and b['messages'] > 0 and 0 < a['p50_us'] <= a['p99_us']
            and 0 < b['p50_us'] <= b['p99_us']):
        bad.append('%s: victim alone %s beside %s' % (c['name'], a, b))
        continue
    tr, lr, pr = b['Bps'] / a['Bps'], b['p50_us'] / a['p50_us'], b['p99_us'] / a['p99_us']
    if abs(tr - c['throughput_ratio']) > 1e-3 * max(1, tr) or abs(lr - c['latency_ratio']) > 1e-3 * max(1, lr) \
            or abs(pr - c['latency_p99_ratio']) > 1e-3 * max(1, pr):
        bad.append('%s: ratios %s/%s/%s, recomputed %.4f/%.4f/%.4f' % (c['name'], c['throughput_ratio'],
                   c['latency_ratio'], c['latency_p99_ratio'], tr, lr, pr))
    rule = 'PASS' if c['throughput_ratio'] >= thr and c['latency_ratio'] <= 1 / thr else 'FAIL'
    if c['verdict'] != rule:
        bad.append('%s: %s, the rule says %s' % (c['name'], c['verdict'], rule))
    if c['attacker_messages'] <= 0 or (c['name'] == 'rnr' and c['rnr_retries'] <= 0):
        bad.append('%s: the attackers completed %d messages, %d RNR retries' % (c['name'], c['attacker_messages'],
                   c['rnr_retries']))
    print('  %-9s %3d attackers  alone %8.3f MB/s p50 %9.1f us p99 %9.1f us (%5d msgs)  beside %8.3f MB/s p50 %9.1f us p99 %9.1f us (%5d msgs)  '
          'throughput %.3f  p50 %.3f  p99 %.3f  %s  (attackers %d msgs, RNR retries %d, timeout retries %d)' % (
          c['name'], c['attackers'], a['Bps'] / 1e6, a['p50_us'], a['p99_us'],
          a['messages'], b['Bps'] / 1e6, b['p50_us'], b['p99_us'], b['messages'], c['throughput_ratio'],
          c['latency_ratio'], c['latency_p99_ratio'], c['verdict'], c['attacker_messages'], c['rnr_retries'],
          c['timeout_retries']))
fails = sum(c['verdict'] == 'FAIL' for c in d['cases'])
if rc != (1 if fails else 0):
    bad.append('exit %d with %d FAIL' % (rc, fails))
print('stress_lab.sh: isolation against rxe (threshold %s): %d of %d cases FAIL' % (thr, fails, len(d['cases'])))
for b in bad:
    print('BAD ' + b)
sys.exit(1 if bad else 0)
PY
}

# The congestion fingerprint (issue 28): `rocegen fingerprint` against rxe
# through rocetarget, QP 2 from a second address of the host side
# (FP_SOURCE2, default 10.99.0.253, added to br0 for the role so that our
# kernel answers vma's ARP for it, removed after), then the conform cases
# resp.ecn-cnp, resp.cnp-scope and resp.cnp-nak with the same --source2.
# Asserted: valid JSON; verdict UNSUPPORTED, cnp.sent 0, pacing null, no
# interval, with_nak false (rxe is no notification point); rxe's own
# np_cnp_sent, if it has one, moved by cnp.sent; the requests reached rxe and
# its counters agree with the wire: sent_pkts moved by the ACKs + NAKs + CNPs
# rocegen saw, out_of_seq_request by the sequence NAKs, rcvd_pkts by at
# least the ACKs; QP 2 (from FP_SOURCE2) was ACKed in the mixed phase; the
# nak phase got a sequence NAK; the requester phase measured (600 WRITEs
# from rxe); the three conform cases UNSUPPORTED.  The reaction (rxe ignores
# CNPs: rate_cut about 0) is printed, not asserted: under TCG the gaps
# between rxe's requests are a few us, at the capture's 1-us resolution, and
# they drift.
# Measured 7 Dec 2026 (three runs, STRESS_ROLES=fingerprint, about 80 s each
# with the lab's boot): of the 8012 requests (one per us in solo and mixed)
# rxe counted 3273, 4232 and 5105 (rcvd_pkts): a TCG guest drops much of
# such a burst before rxe, each episode a sequence NAK (out_of_seq_request
# 7 = 7 NAKs each time), and each phase starts again from the PSN rxe's last
# ACK or NAK names; sent_pkts 2493, 3756 and 2901 = the ACKs + NAKs seen;
# QP 2 from 10.99.0.253 ACKed 418, 416 and 501 times; as requester rxe's
# WRITEs came 4 us apart before and after the CNP in two runs (rate_cut 0),
# its rcvd_pkts +600 for our 600 ACKs and the CNP (the CNP not counted); in
# the third 9 us before and 25 after, a "cut" of 64 % from one median
# against another with rxe ignoring the CNP — since then a reaction must
# also exceed by 20 % the cut of a control load (the same 600 WRITEs just
# before, without a CNP).  A fourth run, with the control: 30 us before, 5
# after, control cut 0, rate_cut 0.
fingerprint() {
	local rc=0 s2=${FP_SOURCE2:-10.99.0.253}
	"$LAB" host -- ip addr add "$s2/24" dev br0 || { echo "BAD cannot add $s2 to br0"; return 1; }
	FP_ADDED=$s2
	"$LAB" host -- "$GEN" fingerprint -i br0 --peer "$LAB_VMA_IP" --target "$LAB_VMA_IP:$PORT" --key "$LAB_SHARED/$NAME.key" \
		--device "$LAB_VMA_DEV" --source2 "$s2" --json > "$OUT/fingerprint.json" 2> "$OUT/fingerprint.err" || rc=$?
	echo "stress_lab.sh: rocegen fingerprint exit status $rc"
	cat "$OUT/fingerprint.err"
	"$LAB" host -- "$GEN" conform -i br0 --peer "$LAB_VMA_IP" --target "$LAB_VMA_IP:$PORT" --key "$LAB_SHARED/$NAME.key" \
		--device "$LAB_VMA_DEV" --source2 "$s2" --cases resp.ecn-cnp,resp.cnp-scope,resp.cnp-nak --json \
		> "$OUT/fp-conform.json" 2> "$OUT/fp-conform.err"
	echo "stress_lab.sh: rocegen conform (congestion cases) exit status $?"
	cat "$OUT/fp-conform.err"
	"$LAB" host -- ip addr del "$s2/24" dev br0
	FP_ADDED=
	[ "$rc" = 0 ] || { echo "BAD rocegen fingerprint exit status $rc"; cat "$OUT/fingerprint.json"; target_health; return 1; }
	python3 - "$OUT/fingerprint.json" "$OUT/fp-conform.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = json.load(open(sys.argv[2]))
bad = []
def need(c, w):
    if not c: bad.append(w)
c, rp, ev = d['cnp'], d['reaction'], d['evidence']
ph, ctr = ev['phases'], ev['counters']
need(d['verdict'] == 'UNSUPPORTED', 'verdict %s (%s)' % (d['verdict'], d['why']))
need(c['sent'] == 0 and c['pacing'] is None and c['min_interval_us'] is None and c['with_nak'] is False, 'cnp %r' % c)
need(ctr['np_cnp_sent'] in (None, c['sent']), 'np_cnp_sent %r, wire %d' % (ctr['np_cnp_sent'], c['sent']))
marked = ph['solo']['ce_marked'] + ph['mixed']['ce_marked']
mv = ctr['moved']
acks = sum(sum(p['acks_per_qp']) for p in ph.values())
naks = sum(p['naks'] for p in ph.values())
need(marked == 8000, '%d CE-marked requests' % marked)
need(0 < acks <= mv.get('rcvd_pkts', 0), 'rxe rcvd_pkts +%d for %d ACKs' % (mv.get('rcvd_pkts', 0), acks))
need(mv.get('sent_pkts', 0) == acks + naks + c['sent'], 'rxe sent_pkts +%d, wire %d ACKs + %d NAKs + %d CNPs' % (
    mv.get('sent_pkts', 0), acks, naks, c['sent']))
need(mv.get('out_of_seq_request', 0) == naks, 'rxe out_of_seq_request +%d, wire %d NAKs' % (mv.get('out_of_seq_request', 0), naks))
need(ph['mixed']['acks_per_qp'][2] > 0, 'QP 2 (second address) never ACKed: %r' % ph['mixed'])
need(ph['nak']['naks'] >= 1, 'no sequence NAK in the nak phase: %r' % ph['nak'])
need(rp['measured'] is True and rp['requests'] == 600, 'reaction %r' % rp)
cases = {x['name']: x for x in k['cases']}
for n in ('resp.ecn-cnp', 'resp.cnp-scope', 'resp.cnp-nak'):
    v = cases.get(n, {}).get('verdict')
    need(v == 'UNSUPPORTED', '%s: %s (%s)' % (n, v, cases.get(n, {}).get('detail')))
    print('  conform %-15s %s  %s' % (n, v, cases.get(n, {}).get('detail')))
print('stress_lab.sh: fingerprint of %s: %s, cnp.sent %d, pacing %s, with_nak %s; np_cnp_sent %s; rxe moved %s'
      % (d['adapter'], d['verdict'], c['sent'], c['pacing'], c['with_nak'], ctr['np_cnp_sent'], json.dumps(ctr['moved'])))
print('  phases: ' + '; '.join('%s %d requests, %d CE-marked, %d NAKs, ACKs per QP %s' % (
    n, p['requests'], p['ce_marked'], p['naks'], p['acks_per_qp']) for n, p in ph.items()))
print('  reaction: rate_cut %s (measured %s, control load %s), reaction_us %s, gap before %s ns, after %s ns, %d requests; rxe moved %s'
      % (rp['rate_cut'], rp.get('cut_measured'), rp.get('control_cut'), rp['reaction_us'], rp.get('gap_before_ns'), rp.get('gap_after_ns'), rp['requests'],
         json.dumps(rp['counters_moved'])))
for b in bad:
    print('BAD ' + b)
sys.exit(1 if bad else 0)
PY
}

responder() {
	run responder "$QPS" "$DUR" "$FAULTS" "${STRESS_TIMEOUT:-18}"
	verdicts responder "$QPS" nak_generation_us,retransmission_us "${EXPECT[@]}"
}
requester() {
	run requester "$RQ" "${STRESS_REQ_DURATION:-20}" "${STRESS_REQ_FAULTS:-drop=1%,dup=1%,reorder=1%,rnr=0.5%,lose=0.5%}" 14
	verdicts requester "$RQ" nak_response_us,retransmission_us,rnr_wait_us "${EXPECT_REQ[@]}"
}

# role NAME: one role, after making sure vma answers ping (labnet.sh); run once
# more on rebooted guests when it failed and vma no longer answers
role() {
	if ! labnet_heal "$LAB_VMA_IP"; then
		echo "stress_lab.sh: $1: the lab's guest network is down: $LABNET_REBOOTS reboot(s) did not bring it back"
		return 1
	fi
	[ "$LABNET_REBOOTS" = 0 ] || { WE_UP=1; stop_target; start_target || return 1; }
	"$1" && return 0
	labnet_ok "$LAB_VMA_IP" && return 1   # vma answers: the failure stands
	echo "stress_lab.sh: $1: failed with vma no longer answering ping; lab rebooted for a second try"
	labnet_reboot "$LAB_VMA_IP" || return 1
	WE_UP=1   # the guests of this boot are ours to take down
	stop_target
	start_target || return 1
	"$1" || return 1
	echo "stress_lab.sh: $1: passed on the second try (the first ran into a stalled guest network)"
}

rc=0
ROLES=${STRESS_ROLES:-responder requester search sweep isolation fingerprint}
RQ=${STRESS_REQ_QPS:-16}
case " $ROLES " in *" responder "*) role responder || rc=1; esac
case " $ROLES " in *" requester "*) role requester || rc=1; esac
case " $ROLES " in *" search "*) role search || rc=1; esac
case " $ROLES " in *" sweep "*) role sweep || rc=1; esac
case " $ROLES " in *" isolation "*) role isolation || rc=1; esac
case " $ROLES " in *" fingerprint "*) role fingerprint || rc=1; esac
exit $rc
