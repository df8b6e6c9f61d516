#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/pathloss_unit.sh - `rocegen stress` finds loss it did not inject and
# counters_vs_wire explains every difference it leaves, against the reference
# adapter's pathloss mode (generator/stress/stress_ref.c: the path before the
# adapter loses request packets; rocegen is not told, no fault is injected).
#
# Run by `make check` as  BUILD=<build dir> tests/pathloss_unit.sh
#
# For seeds 1..4, two workloads (8 QPs of mixed ops; 16 QPs of SEND/WRITE up to
# 8 KiB, where some losses are only seen as timeouts):
# 1. path_loss FAILs and names the QPs: the per-QP NAK counts add up to the total;
#    the losses found (sequence NAKs no fault explains + timeouts no NAK or fault
#    explains) are no more than the packets the reference lost (its own count, on
#    standard error) and at least 90 % of them.
# 2. counters_vs_wire PASSes: every counter equal to the wire model, or, for
#    duplicate_request short of the wire and out_of_seq_request above it, by
#    exactly the difference the JSON's "path" object attributes to the
#    timeouts, within the bound those timeouts give (timeout_dups, timeout_oos).
# 3. The same workloads against --reference good: no path loss found, path_loss
#    PASSes, every counter equal.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GEN=$BUILD/bin/rocegen
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

W1="--qps 8 --messages 200"
W2="--qps 16 --messages 300 --ops write,send --sizes 1-8192"
for seed in 1 2 3 4; do
	for w in 1 2; do
		eval "args=\$W$w"
		for mode in pathloss good; do
			# shellcheck disable=SC2086,SC2154
			"$GEN" stress --reference $mode $args --seed $seed --json > "$T/$mode-$seed-$w.json" \
				2> "$T/$mode-$seed-$w.err" || true
		done
	done
done

python3 - "$T" <<'PY'
import json, os, re, sys
T = sys.argv[1]
bad, seen = [], []
for name in sorted(os.listdir(T)):
    if not name.endswith('.json'):
        continue
    d = json.load(open(os.path.join(T, name)))
    err = open(os.path.join(T, name[:-5] + '.err')).read()
    chk = {c['name']: c for c in d['checks']}
    p = d['path']
    cw = d['counters_vs_wire']
    tag = name[:-5]
    if d['qps_completed'] != d['qps'] or d['integrity_errors']:
        bad.append('%s: %d of %d QPs, %d integrity errors' % (tag, d['qps_completed'], d['qps'], d['integrity_errors']))
    if chk['counters_vs_wire']['verdict'] != 'PASS':
        bad.append('%s: counters_vs_wire %s' % (tag, chk['counters_vs_wire']['detail']))
    dup, oos = cw['duplicate_request'], cw['out_of_seq_request']
    if dup['wire'] - dup['adapter'] != p['dup_short'] or not 0 <= p['dup_short'] <= p['timeout_dups']:
        bad.append('%s: duplicate_request %s, path %s' % (tag, dup, p))
    if oos['adapter'] - oos['wire'] != p['oos_over'] or not 0 <= p['oos_over'] <= p['timeout_oos']:
        bad.append('%s: out_of_seq_request %s, path %s' % (tag, oos, p))
    if tag.startswith('good'):
        if p['loss_naks'] or p['timeouts'] or chk['path_loss']['verdict'] != 'PASS':
            bad.append('%s: path loss on a lossless path: %s %s' % (tag, p, chk['path_loss']['detail']))
        continue
    m = re.search(r'reference pathloss: (\d+) request packets lost', err)
    if not m:
        bad.append('%s: no count of the reference on stderr' % tag); continue
    truth, found = int(m.group(1)), p['loss_naks'] + p['timeouts']
    per_qp = sum(int(x) for x in re.findall(r'qp \d+: (\d+)', p['loss_naks_per_qp']))
    if chk['path_loss']['verdict'] != 'FAIL' or per_qp != p['loss_naks'] or not 0.9 * truth <= found <= truth:
        bad.append('%s: path_loss %s, per QP %d, found %d of %d lost' % (tag, chk['path_loss']['verdict'], per_qp,
                                                                    found, truth))
    seen.append('%s %d/%d (NAKs %d, timeouts %d: duplicate_request -%d, out_of_seq_request +%d)' %
                (tag, found, truth, p['loss_naks'], p['timeouts'], p['dup_short'], p['oos_over']))
if len(seen) != 8:
    bad.append('%d pathloss runs' % len(seen))
if bad:
    print('pathloss_unit:'); [print('  ' + b) for b in bad]; sys.exit(1)
print('pathloss: found/lost ' + '; '.join(seen))
PY
echo "pathloss_unit: ok"
