#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/sweep_unit.sh - `rocegen stress --sweep-qps` (the connection-
# scalability curve and its knee) against the in-process reference adapter,
# and the reference at 16,384 QPs.
#
# Run by `make check` as  BUILD=<build dir> tests/sweep_unit.sh
#
# 1. --reference qpcache:N (N QP contexts, LRU; a miss holds the adapter
#    500 ns) for two N: every point PASSes with all its QPs completed, the
#    knee the report names is the one the documented rule gives from the
#    reported rates (the first point past the peak below 80 % of it), and it
#    is the first swept count above N: it moves with N.
# 2. --reference good: no knee over 1..1024 QPs.
# 3. 16,384 QPs in one run complete with every byte checked (1,024 under the
#    sanitizers, SAN=1: there 16,384 take 90 s of a loaded 2-core machine).
# 4. Bad --sweep-qps and qpcache: values exit 2 with one line.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GEN=$BUILD/bin/rocegen
T=$(mktemp -d "/tmp/sweep_unit.$$.XXXXXX")
trap 'rm -rf "$T"' EXIT
SW=1,16,32,64,128,256,1024
for ref in qpcache:32 qpcache:128 good; do
	"$GEN" stress --reference $ref --sweep-qps $SW --messages 6 --qd 1 --sizes 64 --json > "$T/$ref.json" 2> "$T/$ref.err" ||
		{ echo "sweep $ref failed:"; cat "$T/$ref.err"; exit 1; }
done
"$GEN" stress --reference qpcache:128 --sweep-qps $SW --messages 6 --qd 1 --sizes 64 > "$T/text"
BIG=16384
[ "${SAN:-0}" = 1 ] && BIG=1024
"$GEN" stress --reference --qps $BIG --messages 1 --qd 1 --sizes 64 --ops write,read --json > "$T/big.json" 2> /dev/null ||
	{ echo "$BIG QPs failed"; tail -c 2000 "$T/big.json"; exit 1; }

python3 - "$T" "$SW" "$BIG" <<'PY'
import json, os, sys
T, SW, BIG = sys.argv[1], [int(x) for x in sys.argv[2].split(',')], int(sys.argv[3])
bad, seen = [], []
def need(c, w):
    if not c: bad.append(w)
def knee_of(sw):
    rates = [p['messages_per_s'] for p in sw]
    pk = rates.index(max(rates))
    for p in sw[pk + 1:]:
        if p['messages_per_s'] < 0.8 * rates[pk]:
            return p['qps']
    return None
for ref in ('qpcache:32', 'qpcache:128', 'good'):
    d = json.load(open(os.path.join(T, ref + '.json')))
    sw = d['sweep']
    need([p['qps'] for p in sw] == SW, '%s: points %r' % (ref, [p['qps'] for p in sw]))
    for p in sw:
        need(p['verdict'] == 'PASS' and p['qps_completed'] == p['qps'] and p['integrity_errors'] == 0 and
             p['messages'] == 6 * p['qps'] and p['messages_per_s'] > 0 and 0 < p['p50_us'] <= p['p99_us'],
             '%s: point %r' % (ref, p))
    k = knee_of(sw)
    need(d['knee_qps'] == k, '%s: knee %r, the rule gives %r' % (ref, d['knee_qps'], k))
    if ref.startswith('qpcache:'):
        n = int(ref.split(':')[1])
        want = min(q for q in SW if q > n)
        need(k == want, '%s: knee %r, want the first count above %d (%d)' % (ref, k, n, want))
        below = [p for p in sw if p['qps'] <= n]
        above = [p for p in sw if p['qps'] > n]
        need(max(p['messages_per_s'] for p in above) < 0.8 * d['peak_messages_per_s'] <= max(p['messages_per_s'] for p in below),
             '%s: rates %r' % (ref, [(p['qps'], p['messages_per_s']) for p in sw]))
    else:
        need(k is None, 'good: knee %r' % k)
    seen.append('%s knee %s (peak %d msg/s at %d QPs)' % (ref, k, d['peak_messages_per_s'], d['peak_qps']))
b = json.load(open(os.path.join(T, 'big.json')))
need(b['qps'] == BIG and b['qps_completed'] == BIG and b['integrity_errors'] == 0 and b['messages'] == BIG,
     '%d QPs: %r' % (BIG, {k: v for k, v in b.items() if not isinstance(v, (list, dict))}))
t = open(os.path.join(T, 'text')).read()
need('knee at 256 QPs' in t and 'the first point past the peak below 80 %' in t, 'text: ' + t)
if bad:
    print('sweep:'); [print('  ' + x) for x in bad]; sys.exit(1)
print('sweep: ' + '; '.join(seen) + '; %d QPs completed' % BIG)
PY

for a in "--sweep-qps 16,1" "--sweep-qps 0" "--sweep-qps 16385" "--sweep-qps 1,,4" "--sweep-qps x" \
	 "--sweep-qps 1,16 --role requester" "--sweep-qps 1,16 --victim --duration 1" "--reference qpcache:0" \
	 "--reference qpcache:x" "--reference qpcache:16385"; do
	rc=0; "$GEN" stress --reference $a > /dev/null 2> "$T/err" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] || { echo "stress $a: exit $rc"; cat "$T/err"; exit 1; }
done
echo "sweep: bad options refused"
