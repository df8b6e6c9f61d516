#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/isolation_unit.sh - `rocegen isolation` (generator/isolation/) against
# the in-process reference adapter's iso-shared and iso-fair modes
# (generator/stress/stress_refiso.c).
#
# Run by `make check` as  BUILD=<build dir> tests/isolation_unit.sh
#
# 1. iso-shared (one processing stage, one QP-context cache, RNR stalls for all):
#    every case (bandwidth, rnr, cache, flood) FAILs and the exit status is 1;
#    iso-fair (the victim's own stage and cache partition): every case PASSes,
#    exit 0.  Seeds 1 and 2.
# 2. Every verdict is the rule recomputed from the JSON's own figures (throughput
#    ratio >= R and latency ratio <= 1/R), the ratios are the alone/beside figures
#    recomputed, both halves saw victim messages, the attackers completed
#    messages, RNR retries in the rnr case only; with --threshold 0.95 the
#    verdicts follow the rule again and the exit status is 1 exactly when one FAILs.
# 3. --cases selects; bad options exit 2 with one line.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GEN=$BUILD/bin/rocegen
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

run() { # NAME ARGS...: the JSON in $T/NAME.json, the exit status in $T/NAME.rc
	local name=$1 rc=0; shift
	"$GEN" isolation --json "$@" > "$T/$name.json" 2> "$T/$name.err" || rc=$?
	echo "$rc" > "$T/$name.rc"
}
for seed in 1 2; do
	run shared$seed --reference shared --seed $seed
	run fair$seed --reference fair --seed $seed
	run fair95_$seed --reference fair --seed $seed --threshold 0.95
done
run one --reference shared --cases rnr,cache

python3 - "$T" <<'PY'
import json, sys
d = sys.argv[1]
bad = []
def load(n):
    return json.load(open('%s/%s.json' % (d, n))), int(open('%s/%s.rc' % (d, n)).read())
def check(name, thr, want=None):
    j, rc = load(name)
    names = [c['name'] for c in j['cases']]
    if j['threshold'] != thr:
        bad.append('%s: threshold %s' % (name, j['threshold']))
    for c in j['cases']:
        if 'error' in c:
            bad.append('%s %s: %s' % (name, c['name'], c['error'])); continue
        a, b = c['alone'], c['beside']
        if not (a['messages'] > 0 and b['messages'] > 0):
            bad.append('%s %s: victim messages %d/%d' % (name, c['name'], a['messages'], b['messages']))
        tr, lr = b['Bps'] / a['Bps'], b['p50_us'] / a['p50_us']
        if abs(tr - c['throughput_ratio']) > 1e-3 or abs(lr - c['latency_ratio']) > 1e-3:
            bad.append('%s %s: ratios %s/%s, recomputed %.4f/%.4f' % (name, c['name'], c['throughput_ratio'],
                                                                  c['latency_ratio'], tr, lr))
        if c['attacker_messages'] <= 0 or (c['name'] == 'rnr') != (c['rnr_retries'] > 0):
            bad.append('%s %s: attackers %d messages, %d RNR retries' % (name, c['name'], c['attacker_messages'],
                                                                         c['rnr_retries']))
        rule = 'PASS' if c['throughput_ratio'] >= thr and c['latency_ratio'] <= 1 / thr else 'FAIL'
        if c['verdict'] != rule or (want and c['verdict'] != want):
            bad.append('%s %s: %s (throughput %.3f, latency %.3f), the rule says %s%s' %
                       (name, c['name'], c['verdict'], c['throughput_ratio'], c['latency_ratio'], rule,
                        ', expected %s' % want if want else ''))
    fails = sum(c['verdict'] == 'FAIL' for c in j['cases'])
    if rc != (1 if fails else 0):
        bad.append('%s: exit %d with %d FAIL' % (name, rc, fails))
    return j, names
for seed in (1, 2):
    s, names = check('shared%d' % seed, 0.8, 'FAIL')
    if names != ['bandwidth', 'rnr', 'cache', 'flood']:
        bad.append('cases %s' % names)
    f, _ = check('fair%d' % seed, 0.8, 'PASS')
    check('fair95_%d' % seed, 0.95)
    print('seed %d: shared %s; fair %s' % (seed,
          ', '.join('%s %.3f/%.2f' % (c['name'], c['throughput_ratio'], c['latency_ratio']) for c in s['cases']),
          ', '.join('%s %.3f/%.2f' % (c['name'], c['throughput_ratio'], c['latency_ratio']) for c in f['cases'])))
one, names = check('one', 0.8, 'FAIL')
if names != ['rnr', 'cache']:
    bad.append('--cases rnr,cache ran %s' % names)
if bad:
    print('isolation_unit:'); [print('  ' + b) for b in bad]; sys.exit(1)
PY

# bad options: exit 2, one line
for args in "" "--reference bogus" "--reference fair --cases nope" "--reference fair --cases rnr," \
	"--reference fair --threshold 0" "--reference fair --threshold 1.5" "--reference fair --duration-us 5" \
	"--reference fair extra" "--reference fair --cases mr" "--reference fair -i lo --peer 10.0.0.1" "-i lo"; do
	rc=0
	# shellcheck disable=SC2086
	"$GEN" isolation $args > /dev/null 2> "$T/err" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] ||
		{ echo "rocegen isolation $args: exit $rc, $(cat "$T/err")"; exit 1; }
done
echo "isolation_unit: ok (shared: every case FAILs, fair: every case PASSes, verdicts = the rule, bad options exit 2)"
