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
    want = over.get(c['name'], 'UNSUPPORTED' if c['name'] == 'req.cnp-rate' else 'PASS')
    if c['verdict'] != want:
        bad.append('%s: %s (%s), expected %s' % (c['name'], c['verdict'], c['detail'], want))
    p = c.get('pcap')
    if not p or not os.path.exists(p):
        bad.append('%s: no evidence pcap' % c['name'])
    else:
        b = open(p, 'rb').read()
        if len(b) < 24 + 16 or struct.unpack('<I', b[:4])[0] != 0xa1b2c3d4:
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
