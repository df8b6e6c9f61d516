#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fingerprint_unit.sh - `rocegen fingerprint` (generator/fingerprint/)
# against the congestion-control modes of the in-process reference adapter
# (stress_ref.c: cnp-qp, cnp-ip, cnp-port pace their CNPs per QP, per IP pair,
# per port; no-cc sends none).
#
# Run by `make check` as  BUILD=<build dir> tests/fingerprint_unit.sh
#
# 1. Each mode, at its default interval and at two others given as MODE:US:
#    the JSON names the mode's scope, the least CNP interval lies within 10 %
#    (or 1 us) of the one the adapter was given, a CNP accompanies the
#    sequence NAKs only in cnp-qp, the adapter's np_cnp_sent equals the CNPs
#    on the wire; the per-QP and per-pair counts are the evidence the scope
#    was decided on (checked against the rule, not against fixed numbers).
#    `good` (lib/qp's own CNPs, not the cnp-* code) must come out per QP,
#    50 us, no CNP with a NAK.
# 2. no-cc: no CNP, pacing null, verdict UNSUPPORTED, yet the adapter counted
#    every CE-marked request.
# 3. The reaction point (the adapter as requester, 600 WRITEs, one CNP after
#    200): the cnp-* modes halve their rate (cut 0.5 within 0.05, the gap
#    between requests doubles, the reaction under 20 us); good and no-cc do
#    not react (cut 0, no reaction time); the control load (the same 600
#    WRITEs without a CNP) shows no cut in any mode.
# 4. The text report says the same; bad options exit 2 with one line.
# 5. The live path's plumbing (root, rocetarget built; no RDMA device here):
#    two namespaces joined by a veth, rocetarget (no device) in one; rocegen
#    fingerprint from the other exits 1 with one line when --source2 is not an
#    address of its interface (it cannot bind UDP 4791 there), and, once it
#    is, with rocetarget's own refusal ("err no RDMA device").  The probe
#    against rxe: tests/stress_lab.sh's fingerprint role (make interop).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GEN=$BUILD/bin/rocegen
T=$(mktemp -d "/tmp/fingerprint_unit.$$.XXXXXX")
trap 'rm -rf "$T"' EXIT

runs="good cnp-qp cnp-ip cnp-port no-cc cnp-qp:20 cnp-qp:200 cnp-ip:8 cnp-ip:100 cnp-port:5 cnp-port:60"
for v in $runs; do
	"$GEN" fingerprint --reference "$v" --json > "$T/$v.json"
done

python3 - "$T" $runs <<'PY'
import json, os, sys
T, runs = sys.argv[1], sys.argv[2:]
scope = {'good': 'qp', 'cnp-qp': 'qp', 'cnp-ip': 'ip_pair', 'cnp-port': 'port', 'no-cc': None}
dflt = {'good': 50, 'cnp-qp': 50, 'cnp-ip': 25, 'cnp-port': 10}
bad, seen = [], []
def need(c, w):
    if not c: bad.append(w)
for v in runs:
    d = json.load(open(os.path.join(T, v + '.json')))
    mode, _, us = v.partition(':')
    c, ev = d['cnp'], d['evidence']
    ph = ev['phases']
    need(c['pacing'] == scope[mode], '%s: pacing %r, want %r' % (v, c['pacing'], scope[mode]))
    need(c['with_nak'] == (mode == 'cnp-qp'), '%s: with_nak %r' % (v, c['with_nak']))
    need(ev['counters']['np_cnp_sent'] == c['sent'], '%s: adapter np_cnp_sent %d, wire %d' % (v, ev['counters']['np_cnp_sent'], c['sent']))
    need(ev['counters']['np_ecn_marked_roce_packets'] == ph['solo']['ce_marked'] + ph['mixed']['ce_marked'] > 0,
         '%s: CE counted %r' % (v, ev['counters']))
    rp = d['reaction']
    need(rp['measured'] is True and rp['requests'] == 600, '%s: reaction %r' % (v, rp))
    # the control load (the same, no CNP) does not slow down on the reference
    need(rp['control_cut'] == 0 and (rp['rate_cut'] == 0 or rp['rate_cut'] == rp['cut_measured']), '%s: control %r' % (v, rp))
    if mode in ('cnp-qp', 'cnp-ip', 'cnp-port'):
        # the reaction point halves its rate on a CNP (alpha = 1)
        need(abs(rp['rate_cut'] - 0.5) <= 0.05 and 0 < rp['reaction_us'] < 20 and
             abs(rp['gap_after_ns'] - 2 * rp['gap_before_ns']) <= 0.1 * rp['gap_after_ns'], '%s: reaction %r' % (v, rp))
    else:
        need(rp['rate_cut'] == 0 and rp['reaction_us'] is None and rp['gap_after_ns'] < 1.2 * rp['gap_before_ns'] + 1,
             '%s: reaction %r' % (v, rp))
    need(ph['nak']['naks'] >= 3, '%s: sequence NAKs %d' % (v, ph['nak']['naks']))
    need(sum(ph['nak']['cnp_per_qp']) == (ph['nak']['naks'] if mode == 'cnp-qp' else 0), '%s: CNPs beside NAKs %r' % (v, ph['nak']))
    if mode == 'no-cc':
        need(c['sent'] == 0 and c['min_interval_us'] is None and d['verdict'] == 'UNSUPPORTED', '%s: %r' % (v, d))
        continue
    want = float(us) if us else dflt[mode]
    got = c['min_interval_us']
    need(got is not None and abs(got - want) <= max(0.1 * want, 1.0), '%s: interval %r us, want %g' % (v, got, want))
    need(d['verdict'] == 'PASS', '%s: verdict %s' % (v, d['verdict']))
    # the evidence against the documented rule
    solo = ph['solo']['cnp_per_qp'][0]
    m = ph['mixed']['cnp_per_qp']
    pair = ph['mixed']['cnp_per_pair']
    a, b = m[0] + m[1], m[2]
    need(sorted(pair.values()) == sorted([a, b]), '%s: pairs %r vs QPs %r' % (v, pair, m))
    r = ev['scope_ratio']
    rule = 'port' if a + b <= r * solo else 'ip_pair' if a <= r * solo else 'qp'
    need(rule == c['pacing'], '%s: rule gives %s from solo %d mixed %r' % (v, rule, solo, m))
    # the expected size of the counts: one CNP per interval per scope
    phase_us = ev['phase_us']
    need(abs(solo - phase_us / want) <= 0.1 * phase_us / want + 2, '%s: solo %d CNPs for %g us at %g us' % (v, solo, phase_us, want))
    seen.append('%s %s %.1f us' % (v, c['pacing'], got))
if bad:
    print('fingerprint:'); [print('  ' + b) for b in bad]; sys.exit(1)
print('fingerprint: ' + '; '.join(seen) + '; no-cc UNSUPPORTED')
PY

"$GEN" fingerprint --reference cnp-ip > "$T/text"
grep -q "CNP pacing     per IP pair, least interval 2[45]\.[0-9] us" "$T/text" || { echo "text report:"; cat "$T/text"; exit 1; }
grep -q "CNP with NAK   no" "$T/text" || { cat "$T/text"; exit 1; }
grep -q "reaction       rate cut 50 % " "$T/text" || { cat "$T/text"; exit 1; }
"$GEN" fingerprint --reference good | grep -q "reaction       none" || { echo "good: a reaction"; exit 1; }
"$GEN" fingerprint --reference no-cc | grep -q "UNSUPPORTED" || { echo "no-cc text"; exit 1; }

for a in "--bogus" "--reference" "--reference nosuch" "--reference no-cc:5" "--reference cnp-qp:0" "--reference cnp-qp:x" "--reference cnp-ip extra" "" \
	 "--source2 10.0.0.3" "--reference cnp-qp --source2 10.0.0.3" "--reference good -i lo" "-i lo --peer 127.0.0.1" \
	 "-i lo --peer 127.0.0.1 --source2 x" "-i lo --peer 127.0.0.1 --source2 10.0.0.3 --json extra"; do
	rc=0; "$GEN" fingerprint $a > /dev/null 2> "$T/err" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] || { echo "fingerprint $a: exit $rc"; cat "$T/err"; exit 1; }
done
"$GEN" fingerprint --help | grep -q "usage: rocegen fingerprint" || { echo "fingerprint --help"; exit 1; }
echo "fingerprint: bad options refused"

# 5. the live path: --source2 must be ours; rocetarget's refusal passed on
TGT=$BUILD/bin/rocetarget
if [ "$(id -u)" != 0 ] || [ ! -x "$TGT" ]; then
	echo "fingerprint: live path skipped (needs root and rocetarget)"
	exit 0
fi
NS=rtfp$$
TPID=
live_cleanup() {
	set +e
	[ -n "$TPID" ] && { kill "$TPID" 2>/dev/null; wait "$TPID" 2>/dev/null; }
	ip netns del "${NS}a" 2>/dev/null
	ip netns del "${NS}b" 2>/dev/null
	rm -rf "$T"
}
trap live_cleanup EXIT
ip netns add "${NS}a"; ip netns add "${NS}b"
ip link add "fa$$" netns "${NS}a" type veth peer name "fb$$" netns "${NS}b"
ip -n "${NS}a" addr add 10.77.0.1/24 dev "fa$$"; ip -n "${NS}a" link set "fa$$" up
ip -n "${NS}b" addr add 10.77.0.2/24 dev "fb$$"; ip -n "${NS}b" link set "fb$$" up
head -c 32 /dev/urandom > "$T/key"; chmod 600 "$T/key"
ip netns exec "${NS}b" "$TGT" --listen 10.77.0.2:7471 --key "$T/key" 2> "$T/tgt.log" &
TPID=$!
for _ in $(seq 50); do grep -q listening "$T/tgt.log" && break; sleep 0.1; done
live() { # expect-regex
	rc=0
	ip netns exec "${NS}a" "$GEN" fingerprint -i "fa$$" --peer 10.77.0.2 --target 10.77.0.2:7471 --key "$T/key" \
		--source2 10.77.0.3 --json > "$T/live.out" 2> "$T/live.err" || rc=$?
	[ "$rc" = 1 ] && [ ! -s "$T/live.out" ] && [ "$(wc -l < "$T/live.err")" = 1 ] && grep -q "$1" "$T/live.err" ||
		{ echo "fingerprint live: exit $rc, want 1 and '$1'"; cat "$T/live.out" "$T/live.err"; exit 1; }
	echo "fingerprint live: $(cat "$T/live.err")"
}
live "source2 10.77.0.3: cannot bind UDP 4791 there"
ip -n "${NS}a" addr add 10.77.0.3/24 dev "fa$$"
live "rocetarget: err no RDMA device"
