#!/bin/bash
# tests/conform_unit.sh - the `rocegen conform` catalogue against the in-process
# reference adapter (generator/conform/conform_ref.c: a lib/qp engine behind the
# rocetarget control protocol, simulated clock, no network).
#
# Run by `make check` as  BUILD=<build dir> tests/conform_unit.sh
#
# 1. --reference good: every case has the verdict the spec's behaviour gives
#    (all PASS; req.cnp-rate UNSUPPORTED: lib/qp has no congestion reaction
#    point).  Also the JSON, JUnit XML and evidence pcaps are checked.
# 2. --reference nakstorm (every NAK sent twice): resp.psn-gap FAILs as a NAK
#    storm, resp.rnr FAILs (the duplicated RNR NAK answers the retry).
# 3. --reference retry7 (retry_cnt 7 = forever, as rxe): req.retry7 FAILs.
# Every other case keeps its verdict, so a FAIL is the case's own finding.
# resp.cnp-scope and resp.cnp-nak need three QPs, which conform_ref.c's
# one-QP reference will not make: UNSUPPORTED there (saying so).
# 4. The congestion cases against the stress reference's CC modes (--reference
#    cnp-qp|cnp-ip|cnp-port|no-cc, stress_ref.c), both ways: resp.cnp-scope
#    PASS with the mode's scope (qp, ip_pair, port) or UNSUPPORTED (no-cc, no
#    CNP); resp.cnp-nak PASS saying a CNP accompanies the NAK in cnp-qp only,
#    does not in cnp-ip/cnp-port, UNSUPPORTED in no-cc; each finding equal
#    to `rocegen fingerprint --reference MODE --json`'s (one classifier,
#    fp_probe.c), and an evidence pcap holding the probe's frames.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GEN=$BUILD/bin/rocegen
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

run() { # mode expectations...
	local mode=$1; shift
	"$GEN" conform --reference "$mode" --json --junit "$T/$mode.xml" --pcap-dir "$T/$mode" \
		> "$T/$mode.json" || true
	python3 - "$T/$mode.json" "$T/$mode.xml" "$T/$mode" "$mode" "$@" <<'PY'
import json, os, struct, sys, xml.etree.ElementTree as ET
js, xmlf, pdir, mode = sys.argv[1:5]
over = dict(a.split('=') for a in sys.argv[5:])
d = json.load(open(js))
bad = []
names = [c['name'] for c in d['cases']]
if len(names) < 26:
    bad.append('only %d cases' % len(names))
for c in d['cases']:
    want = over.get(c['name'], 'UNSUPPORTED' if c['name'] in ('req.cnp-rate', 'resp.cnp-scope', 'resp.cnp-nak') else 'PASS')
    if c['name'].startswith('resp.cnp-') and 'would not make' not in c['detail']:
        bad.append('%s: %s, expected the reason (the one-QP reference)' % (c['name'], c['detail']))
    if c['verdict'] != want:
        bad.append('%s: %s (%s), expected %s' % (c['name'], c['verdict'], c['detail'], want))
    p = c.get('pcap')
    if not p or not os.path.exists(p):
        bad.append('%s: no evidence pcap' % c['name'])
    else:
        b = open(p, 'rb').read()
        # (the one-QP reference refuses resp.cnp-*'s QPs before any frame)
        if len(b) < 24 + (0 if c['name'].startswith('resp.cnp-') else 16) or struct.unpack('<I', b[:4])[0] != 0xa1b2c3d4:
            bad.append('%s: evidence pcap empty or not a pcap' % c['name'])
s = ET.parse(xmlf).getroot()
if int(s.get('tests')) != len(names) or len(s.findall('testcase')) != len(names):
    bad.append('junit: wrong test count')
nf = sum(1 for c in d['cases'] if c['verdict'] == 'FAIL')
if int(s.get('failures')) != nf or len(s.findall('testcase/failure')) != nf:
    bad.append('junit: failures %s, json %d' % (s.get('failures'), nf))
if bad:
    print('conform --reference %s:' % mode)
    for b in bad:
        print('  ' + b)
    sys.exit(1)
print('conform --reference %s: %d cases as expected (%d pass, %d fail, %d unsupported)'
      % (mode, len(names), d['pass'], d['fail'], d['unsupported']))
PY
}

run good
run nakstorm resp.psn-gap=FAIL resp.rnr=FAIL
run retry7 req.retry7=FAIL

# 4. the congestion cases against the stress reference's CC modes
for m in cnp-qp cnp-ip cnp-port no-cc; do
	"$GEN" conform --reference "$m" --cases resp.cnp-scope,resp.cnp-nak --json --pcap-dir "$T/cc-$m" > "$T/cc-$m.json"
	"$GEN" fingerprint --reference "$m" --json > "$T/fp-$m.json"
done
python3 - "$T" <<'PY'
import json, os, re, sys
T = sys.argv[1]
scope = {'cnp-qp': 'qp', 'cnp-ip': 'ip_pair', 'cnp-port': 'port', 'no-cc': None}
bad, seen = [], []
for m, want in scope.items():
    d = {c['name']: c for c in json.load(open(os.path.join(T, 'cc-%s.json' % m)))['cases']}
    fp = json.load(open(os.path.join(T, 'fp-%s.json' % m)))
    s, n = d['resp.cnp-scope'], d['resp.cnp-nak']
    if want is None:
        if s['verdict'] != 'UNSUPPORTED' or n['verdict'] != 'UNSUPPORTED' or fp['verdict'] != 'UNSUPPORTED':
            bad.append('%s: %s / %s / fingerprint %s' % (m, s['verdict'], n['verdict'], fp['verdict']))
        if s['metrics']['cnps']['value'] != 0:
            bad.append('%s: CNPs %r' % (m, s['metrics']))
    else:
        g = re.match(r'CNP pacing scope (\S+):', s['detail'])
        if s['verdict'] != 'PASS' or not g or g.group(1) != want or fp['cnp']['pacing'] != want:
            bad.append('%s: scope %s %r, fingerprint %r, want %s' % (m, s['verdict'], s['detail'], fp['cnp']['pacing'], want))
        if s['metrics']['cnps']['value'] != fp['cnp']['sent']:
            bad.append('%s: %r CNPs, fingerprint %d' % (m, s['metrics']['cnps'], fp['cnp']['sent']))
        w = m == 'cnp-qp'
        said = 'a CNP accompanies the sequence NAK' if w else 'a CNP does not accompany the sequence NAK'
        if n['verdict'] != 'PASS' or not n['detail'].startswith(said) or fp['cnp']['with_nak'] != w or \
           n['metrics']['with_nak']['value'] != w or n['metrics']['naks']['value'] < 3:
            bad.append('%s: cnp-nak %s %r, fingerprint with_nak %r' % (m, n['verdict'], n['detail'], fp['cnp']['with_nak']))
    for c in (s, n):
        if not c.get('pcap') or os.path.getsize(c['pcap']) < 24 + 16 * 8000:
            bad.append('%s %s: evidence pcap %r' % (m, c['name'], c.get('pcap')))
    seen.append('%s %s/%s' % (m, s['verdict'] if want is None else want, n['verdict'] if want is None else ('with NAK' if m == 'cnp-qp' else 'no CNP with NAK')))
if bad:
    print('conform congestion cases:'); [print('  ' + b) for b in bad]; sys.exit(1)
print('conform congestion cases: ' + '; '.join(seen))
PY

# the exit status says FAIL; --cases selects; the text table names the verdict
set +e
"$GEN" conform --reference nakstorm --cases resp.psn-gap > "$T/one.txt"; rc=$?
set -e
[ "$rc" = 1 ] || { echo "exit status $rc with a FAIL, expected 1"; exit 1; }
grep -q '^resp.psn-gap .* FAIL .*NAK storm' "$T/one.txt" || { cat "$T/one.txt"; exit 1; }
[ "$(grep -c '^resp\.' "$T/one.txt")" = 1 ] || { echo "--cases selected more than one"; exit 1; }
"$GEN" conform --reference --cases 'req.' > "$T/req.txt"
[ "$(grep -c '^req\.' "$T/req.txt")" = 7 ] || { cat "$T/req.txt"; exit 1; }
# rocetarget (when built): --listen ADDR:PORT is required and binds that address only
# (its --key: tests/target_auth.sh)
TGT=$BUILD/bin/rocetarget
if [ -x "$TGT" ]; then
	head -c 32 /dev/urandom > "$T/key"; chmod 600 "$T/key"
	set +e
	for args in "--key $T/key" "--listen 7471 --key $T/key" "--listen 127.0.0.1:0 --key $T/key" \
		"--bind 127.0.0.1 --key $T/key"; do
		# shellcheck disable=SC2086
		"$TGT" $args > /dev/null 2> "$T/tgt.err"; rc=$?
		[ "$rc" = 2 ] && [ "$(wc -l < "$T/tgt.err")" = 1 ] ||
			{ echo "rocetarget $args: exit $rc, $(cat "$T/tgt.err")"; exit 1; }
	done
	port=$((20000 + $$ % 20000))
	"$TGT" --listen "127.0.0.1:$port" --key "$T/key" --once 2> "$T/tgt.err" & tpid=$!
	for _ in $(seq 50); do ss -ltnH "sport = :$port" | grep -q . && break; sleep 0.1; done
	got=$(ss -ltnH "sport = :$port" | awk '{print $4}')
	kill "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null
	set -e
	[ "$got" = "127.0.0.1:$port" ] || { echo "rocetarget --listen 127.0.0.1:$port listens on '$got'"; exit 1; }
	echo "rocetarget: --listen required, binds 127.0.0.1:$port only"
fi
echo "conform_unit: ok"
