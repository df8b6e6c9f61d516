#!/bin/bash
# tests/conform.sh - `rocegen conform` against the soft-RoCE lab's rxe (make interop).
#
#   BUILD=<build dir> tests/conform.sh
#
# Skips (exit 0) without root, the lab (../shared/softroce-lab) or a built
# rocetarget (libibverbs-dev).  Otherwise: lab build, lab up (rxe, MTU 1500)
# unless it is up already, rocetarget copied under a fresh name into the
# lab's shared folder and started in vma (a running binary must not be
# overwritten over 9p: the old process then faults with SIGILL), the whole
# catalogue run from the host side (br0, 10.99.0.254) against vma's rxe0 -
# the DUT is responder in resp.* and requester in req.* - and every verdict
# asserted against EXPECT below.  Each non-PASS carries the reason, from
# rxe's behaviour in the evidence pcaps (CONFORM_OUT) and drivers/infiniband/sw/rxe
# of Linux 6.1.
#
# Environment: CONFORM_OUT=DIR keeps the JSON, JUnit XML and pcaps there.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROOT=$PWD
LAB=${LAB:-$ROOT/../shared/softroce-lab/lab}
[ -x "$LAB" ] || LAB=/work/shared/softroce-lab/lab
GEN=$ROOT/$BUILD/bin/rocegen
TGT=$ROOT/$BUILD/bin/rocetarget
skip() { echo "conform.sh: skipped: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$LAB" ] || skip "no lab at $LAB"
[ -x "$TGT" ] || skip "no $TGT (libibverbs-dev missing?)"
[ -x "$GEN" ] || { echo "conform.sh: no $GEN"; exit 1; }

# case=VERDICT  reason (for non-PASS)
EXPECT=(
"resp.send=PASS"
"resp.write=PASS"
"resp.read=PASS"
"resp.atomic=PASS"
"resp.psn-gap=PASS"
"resp.dup-send=PASS"
"resp.dup-write=PASS"
"resp.dup-read-full=PASS"
"resp.dup-read-partial=FAIL  rxe answers a duplicate READ whose PSN is inside the original with READ_RESP_MIDDLE/LAST (it continues the original message: duplicate_request() marks the resource 'replay' unless the PSN is its first, and read_reply() then picks MIDDLE/LAST), where a response to a READ starting at that PSN begins with FIRST"
"resp.dup-atomic=PASS"
"resp.bad-icrc=PASS"
"resp.opseq-middle=PASS"
"resp.bad-pad=FAIL  rxe (6.1) ACKs a SEND_FIRST of MTU-2 bytes with pad 2: its responder checks no FIRST/MIDDLE payload against the path MTU for RC"
"resp.bad-rkey=PASS"
"resp.bad-va=PASS"
"resp.rnr=PASS"
"resp.psn-wrap=PASS"
"resp.mtu-pad=PASS"
"resp.ecn-cnp=UNSUPPORTED  rxe sends no CNPs: it is no DCQCN notification point (no CE handling, no 0x81 opcode in its requester/responder)"
"resp.cnp-scope=UNSUPPORTED  rxe sends no CNPs (resp.ecn-cnp): no pacing to scope (the case runs fp_probe.c's 8000 CE-marked requests on 3 QPs; without --source2 all from one address)"
"resp.cnp-nak=UNSUPPORTED  rxe sends no CNPs at all, so none beside its sequence NAKs"
"req.ack-timeout=PASS"
"req.seq-nak=PASS"
"req.rnr=PASS"
"req.read-gap=FAIL  rxe's completer drops READ responses past a gap (no implied NAK) and reads again from the gap only when the local ACK timer fires (~67 ms at exponent 14)"
"req.retry-exhaust=PASS"
"req.retry7=FAIL  rxe treats retry_cnt 7 as infinite (rxe_comp.c: if (qp->comp.retry_cnt != 7) ...): it keeps retransmitting"
"req.cnp-rate=UNSUPPORTED  rxe has no congestion reaction point: CNPs are not acted on, the rate stays"
)

OUT=${CONFORM_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
"$LAB" build > "$OUT/lab-build.log" 2>&1 || { echo "conform.sh: lab build failed"; exit 1; }
WE_UP=0
if ! "$LAB" status > "$OUT/lab.env" 2>/dev/null; then
	"$LAB" up > "$OUT/lab.env" 2>"$OUT/lab-up.log" || { echo "conform.sh: lab up failed"; exit 1; }
	WE_UP=1
fi
eval "$(grep '^LAB_' "$OUT/lab.env")"
[ "${LAB_MODE:-}" = rxe ] || { "$LAB" up --mode rxe > "$OUT/lab.env" 2>>"$OUT/lab-up.log"; eval "$(grep '^LAB_' "$OUT/lab.env")"; }

NAME=rocetarget.$$.$(date +%s)
cp "$TGT" "$LAB_SHARED/$NAME"
# the key rocetarget asks for (mode 0600, seen as such in vma through 9p)
(umask 077; head -c 32 /dev/urandom > "$LAB_SHARED/$NAME.key")
PORT=${CONFORM_PORT:-$((7400 + $$ % 500))}
"$LAB" exec --timeout 900 vma -- "/mnt/lab/$NAME" --listen "$LAB_VMA_IP:$PORT" --key "/mnt/lab/$NAME.key" \
	> "$OUT/rocetarget.log" 2>&1 &
TPID=$!
cleanup() {
	kill "$TPID" 2>/dev/null; wait "$TPID" 2>/dev/null
	rm -f "$LAB_SHARED/$NAME" "$LAB_SHARED/$NAME.key"
	[ "$WE_UP" = 1 ] && "$LAB" down > /dev/null 2>&1
}
trap cleanup EXIT
# a port of this run (a leftover rocetarget would hold 7471), ready when it listens
"$LAB" exec vma -- "for i in \$(seq 100); do netstat -ltn | grep -q ':$PORT ' && exit 0; sleep 0.1; done; exit 1" ||
	{ echo "conform.sh: rocetarget did not start in vma"; cat "$OUT/rocetarget.log"; exit 1; }

"$LAB" host -- "$GEN" conform -i br0 --peer "$LAB_VMA_IP" --target "$LAB_VMA_IP:$PORT" --key "$LAB_SHARED/$NAME.key" --device "$LAB_VMA_DEV" --json \
	--junit "$OUT/conform.xml" --pcap-dir "$OUT/pcap" > "$OUT/conform.json"
echo "conform.sh: rocegen conform exit status $? (1 = some FAIL, expected against rxe)"
"$LAB" counters vma > "$OUT/vma.counters" 2>/dev/null

python3 - "$OUT/conform.json" "${EXPECT[@]}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exp = {}
for e in sys.argv[2:]:
    k, rest = e.split('=', 1)
    v, _, why = rest.partition('  ')
    exp[k] = (v, why)
bad = 0
for c in d['cases']:
    v, why = exp.get(c['name'], ('?', 'no expectation'))
    ok = c['verdict'] == v
    bad += not ok
    m = ' '.join('%s=%.4g%s' % (k, x['value'], x['unit']) for k, x in c['metrics'].items())
    print('%-3s %-22s %-11s %s%s' % ('ok' if ok else 'BAD', c['name'], c['verdict'],
          c['detail'], (' | ' + m) if m else ''))
    if not ok:
        print('      expected %s%s' % (v, (': ' + why) if why else ''))
missing = set(exp) - {c['name'] for c in d['cases']}
for n in sorted(missing):
    print('BAD %s: not run' % n)
bad += len(missing)
print('conform.sh: %d cases, %d as expected against rxe' % (len(d['cases']), len(d['cases']) - bad + len(missing)))
sys.exit(1 if bad else 0)
PY
