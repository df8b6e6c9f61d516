#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/search_unit.sh - `rocegen search` against the in-process reference
# adapter (generator/search/search.c over stress.c and stress_ref.c).
#
# Run by `make check` as  BUILD=<build dir> tests/search_unit.sh
#
# 1. --reference planted (with 24+ QPs every 61st full 1024-byte request
#    packet is lost on receipt): for every seed tried the annealing finds it
#    within 400 evaluations; the shrunk workload lies in the planted corner
#    (MTU 1024, >= 24 QPs, messages over 1 KiB) and is minimal in queue depth
#    and operations; the evidence shows the recovery; the "reproduce" line
#    carries the evaluations' finite --rnr-retry 6 and, run, FAILs path_loss (NAKs no injected fault explains, per QP) while
#    counters_vs_wire, with the path loss attributed, PASSes; the same seed gives the same answer.
# 2. --reference good: no anomaly in the whole budget; a fault mix rocegen
#    injected (drops, duplicates, reorders, corruption) is no path loss.
# 3. Bad options exit 2 with one line.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GEN=$BUILD/bin/rocegen
T=$(mktemp -d "/tmp/search_unit.$$.XXXXXX")
trap 'rm -rf "$T"' EXIT

for s in 1 2 4 5 6 7; do
	"$GEN" search --reference planted --seed $s --budget 400 --json > "$T/p$s.json"
done
"$GEN" search --reference planted --seed 2 --budget 400 --json > "$T/again.json"
# the same answer but for the wall time it took
python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); a.pop("seconds"); b.pop("seconds"); sys.exit(a!=b)' \
	"$T/p2.json" "$T/again.json" || { echo "search: seed 2 not repeatable"; exit 1; }
"$GEN" search --reference good --seed 3 --budget 60 --json > "$T/good.json"

python3 - "$T" "$GEN" <<'PY'
import json, os, re, shlex, subprocess, sys
T, GEN = sys.argv[1], sys.argv[2]
bad = []
def need(c, w):
    if not c: bad.append(w)
evs = []
for s in (1, 2, 4, 5, 6, 7):
    d = json.load(open(os.path.join(T, 'p%d.json' % s)))
    a = d['anomalies']
    need(len(a) == 1 and d['evaluations'] <= 400, 'seed %d: %s' % (s, d))
    if not a: continue
    a = a[0]; w = a['workload']; evs.append(d['evaluations'])
    need(w['mtu'] == 1024 and w['qps'] >= 24 and w['size_max'] > 1024, 'seed %d: outside the planted corner %s' % (s, w))
    need(w['qd'] == 1 and ',' not in w['ops'], 'seed %d: not shrunk %s' % (s, w))
    need(a['score'] > 0 and a['evidence']['retransmission_episodes'] + a['evidence']['naks'] > 0, 'seed %d: evidence %s' % (s, a))
    argv = shlex.split(a['reproduce'])
    need(argv[:3] == ['rocegen', 'stress', '--reference'], 'seed %d: reproduce %r' % (s, a['reproduce']))
    # the evaluation's finite RNR retry count (search.c SR_RNR_RETRY), so the replay ends as it did
    need(argv[argv.index('--rnr-retry') + 1:][:1] == ['6'] if '--rnr-retry' in argv else False,
         'seed %d: no --rnr-retry 6 in %r' % (s, a['reproduce']))
    r = subprocess.run([GEN] + argv[1:], capture_output=True, text=True)
    need(r.returncode == 1 and re.search(r'path_loss +FAIL +[1-9]\d* sequence NAKs .*: qp \d+: [1-9]', r.stdout) and re.search(r'counters_vs_wire +PASS', r.stdout), 'seed %d: replay exit %d' % (s, r.returncode))
# injected faults are not path loss: a drop/dup/reorder/corrupt mix attributes none
r = subprocess.run([GEN, 'stress', '--reference', '--qps', '16', '--messages', '30', '--seed', '5',
                    '--faults', 'drop=2%,dup=1%,reorder=1%,corrupt=0.5%'], capture_output=True, text=True)
need(r.returncode == 0 and re.search(r'path_loss +PASS +0 sequence NAKs', r.stdout) and
     re.search(r'counters_vs_wire +PASS', r.stdout) and re.search(r'nak [1-9]', r.stdout), 'mix: %s' % r.stdout[-600:])
g = json.load(open(os.path.join(T, 'good.json')))
need(g['anomalies'] == [] and g['evaluations'] == 60, 'good: %s' % g)
if bad:
    print('search:'); [print('  ' + b) for b in bad]; sys.exit(1)
print('search --reference planted: found within %s evaluations (6 seeds), shrunk, replayed; good: none in 60' % evs)
PY

for a in "--bogus" "--seed" "--reference nosuch" "--budget 0" "--budget x" "--reference planted extra" ""; do
	rc=0; "$GEN" search $a > /dev/null 2> "$T/err" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] || { echo "search $a: exit $rc"; cat "$T/err"; exit 1; }
done
"$GEN" search --help | grep -q "usage: rocegen search" || { echo "search --help"; exit 1; }
