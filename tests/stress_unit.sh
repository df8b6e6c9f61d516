#!/bin/bash
# tests/stress_unit.sh - `rocegen stress` against the in-process reference
# adapter (generator/stress/stress_ref.c: one lib/qp engine per QP behind the
# rocetarget control protocol, simulated clock, no network).
#
# Run by `make check` as  BUILD=<build dir> tests/stress_unit.sh
#
# 1. A fault mix on 32 QPs: every check PASSes, every QP completes, no
#    integrity error, every fault kind was injected, the metrics are there
#    (one NAK-generation sample per out-of-sequence episode), the adapter's
#    counters equal what the wire implies, some QPs wrapped their PSN, and
#    the JUnit file agrees.  The same seed gives the same run (faults, counts,
#    metrics); another seed another fault schedule.
# 2. Exact events, where the counts follow by hand: one dropped packet in the
#    middle of a 4-packet WRITE (across the PSN wrap on QP 1) → 1 episode, 1
#    NAK, 2 out-of-sequence packets; a duplicated packet → 1 duplicate; the
#    same packet dropped twice → the NAK is not repeated, rocegen's timer
#    retransmits (after 4.096 us * 2^8).
# 3. Broken adapters: nakstorm (every NAK twice) FAILs nak_per_episode and
#    counters_vs_wire; bitflip (no ICRC check, a flipped payload byte) FAILs
#    integrity with QP, PSN and offset, and leaves evidence pcaps of the
#    failing QPs only.
# 4. 4096 QPs complete; bad options exit 2.
# 5. The adapter as requester (--role requester: the reference's own workload
#    loop posts, rocegen's lib/qp responder answers): with response faults,
#    RNR NAKs and requests lost on receipt every QP completes, no integrity
#    error, every fault kind fired, the messages, bytes and ops are those of
#    the schedule in target/ctl.h (recomputed here in Python), the NAK
#    response, retransmission, timeout and RNR wait are measured (no more NAK
#    responses than NAKs, RNR waits >= the timer, the timeout at the
#    configured 4.096 us x 2^8), QPs wrap their PSN, the run repeats with the
#    seed; bitflip (wrong bytes sent, READ responses flipped) FAILs integrity
#    with QP, PSN and byte, and through the READ/atomic fold.
# 6. Throughput over time and --victim: the intervals add up to the bytes;
#    while QP 0 runs alone Jain's index is 1/8 and the median QP idle, beside
#    the 7 attackers it is near 1; the victim's rate alone, beside them, and
#    its share.
# 7. CNP pacing under a CE storm (every request CE-marked): the reference
#    paces CNPs 50 us apart per QP (cnp_gap_ns), so --cnp-gap-us 50 PASSes and
#    60 FAILs; every interval is >= 50 us.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GEN=$BUILD/bin/rocegen
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
MIX='drop=1%,dup=0.5%,reorder=0.5%,corrupt=0.2%,ce=2%'

st() { # name rc args...
	local name=$1 want=$2 rc=0; shift 2
	"$GEN" stress --reference "$@" --json > "$T/$name.out" || rc=$?
	tail -n 1 "$T/$name.out" > "$T/$name.json"
	if [ "$rc" != "$want" ]; then
		echo "stress $name: exit $rc, expected $want"; cat "$T/$name.out"; exit 1
	fi
}

st mix 0 --qps 32 --messages 40 --seed 7 --faults "$MIX" --junit "$T/mix.xml"
st mix2 0 --qps 32 --messages 40 --seed 7 --faults "$MIX"
st mix8 0 --qps 32 --messages 40 --seed 8 --faults "$MIX"
st drop1 0 --qps 2 --qd 1 --ops write --sizes 4096 --mtu 1024 --messages 3 \
	--event qp=1,psn=1,kind=drop --event qp=0,psn=5,kind=dup
st drop2 0 --qps 1 --qd 1 --ops write --sizes 4096 --mtu 1024 --messages 2 --ack-timeout 8 \
	--event qp=0,psn=1,iter=1,kind=drop --event qp=0,psn=1,iter=2,kind=drop
st storm 1 nakstorm --qps 8 --messages 30 --faults drop=2% --junit "$T/storm.xml"
mkdir "$T/ev"
st flip 1 bitflip --qps 8 --messages 30 --ops send,write,read --pcap-dir "$T/ev"
st many 0 --qps 4096 --qd 1 --sizes 1-64 --messages 2 --faults drop=1%
REQMIX='drop=1%,dup=0.5%,reorder=0.5%,corrupt=0.2%,rnr=1%,lose=1%'
st req 0 --role requester --qps 32 --messages 40 --seed 7 --ack-timeout 8 --faults "$REQMIX" --junit "$T/req.xml"
st req2 0 --role requester --qps 32 --messages 40 --seed 7 --ack-timeout 8 --faults "$REQMIX"
st reqclean 0 --role requester --qps 4 --messages 25 --seed 11 --sizes 100-3000 --mtu 512
st victim 0 --qps 8 --duration 0.01 --interval 0.001 --victim --sizes 1024-4096
st cnp 0 --qps 4 --messages 200 --faults ce=100% --cnp-gap-us 50
st cnp60 1 --qps 4 --messages 200 --faults ce=100% --cnp-gap-us 60
st reqflip 1 bitflip --role requester --qps 8 --messages 30 --ops send,write,read,atomic
for bad in "--qps 0" "--sizes 0-4" "--faults drop=2" "--ops send,nop" "--qps 4 --event qp=5,psn=1" "--mtu 1000" \
	"--faults rnr=1%" "--role requester --event qp=0,psn=1" "--role nobody" "nakstorm --role requester" \
	"--victim --messages 5" "--victim --qps 1 --duration 1" "--interval 0"; do
	rc=0; "$GEN" stress --reference $bad > /dev/null 2>&1 || rc=$?
	[ "$rc" = 2 ] || { echo "stress $bad: exit $rc, expected 2"; exit 1; }
done

python3 - "$T" <<'PY'
import json, os, re, struct, sys, xml.etree.ElementTree as ET
T = sys.argv[1]
bad = []
def load(n): return json.load(open(os.path.join(T, n + '.json')))
def chk(d): return {c['name']: c['verdict'] for c in d['checks']}
def need(cond, what):
    if not cond: bad.append(what)

m = load('mix')
need(all(v == 'PASS' for v in chk(m).values()), 'mix: checks %s' % chk(m))
need(m['qps_completed'] == 32 and m['messages'] == 32 * 40, 'mix: %d QPs, %d messages' % (m['qps_completed'], m['messages']))
need(m['integrity_errors'] == 0, 'mix: integrity errors')
for k in ('drop', 'dup', 'reorder', 'corrupt', 'ce'):
    need(m['faults_injected'][k] > 0, 'mix: no %s injected' % k)
mt, w = m['metrics'], m['wire']
need(w['episodes'] > 0 and mt['nak_generation_us']['n'] == w['episodes'] == w['seq_naks'],
     'mix: %d NAK samples, %d episodes, %d NAKs' % (mt['nak_generation_us']['n'], w['episodes'], w['seq_naks']))
for k in ('nak_generation_us', 'retransmission_us', 'cnp_generation_us'):
    s = mt[k]
    need(s['n'] > 0 and 0 < s['p50'] <= s['p99'] <= s['max'], 'mix: metric %s %s' % (k, s))
need(sum(mt[o + '_latency_us']['n'] for o in ('send', 'write', 'read', 'atomic')) == m['messages'],
     'mix: latency samples do not add up to the messages')
need(all(m['by_op'][o] > 0 for o in ('send', 'write', 'read', 'atomic')), 'mix: an op is missing')
cw = m['counters_vs_wire']
need(cw and all(v['adapter'] == v['wire'] for v in cw.values()), 'mix: counters %s' % cw)
need(cw['duplicate_request']['wire'] > 0 and cw['out_of_seq_request']['wire'] > 0, 'mix: no dup/oos')
need(m['psn_wraps'] >= 8, 'mix: %d QPs wrapped their PSN' % m['psn_wraps'])
x = ET.parse(os.path.join(T, 'mix.xml')).getroot()
need(int(x.get('tests')) == len(m['checks']) and int(x.get('failures')) == 0, 'mix: junit')

same = lambda d: {k: v for k, v in d.items() if k not in ('wall_s', 'cpu_s', 'messages_per_s', 'control_rtt_us')}
need(same(m) == same(load('mix2')), 'seed 7 twice: the runs differ')
need(m['faults_injected'] != load('mix8')['faults_injected'], 'seeds 7 and 8: same faults')

d = load('drop1')
need(d['faults_injected']['exact'] == 2 and d['wire'] == {'duplicate_packets': 1, 'out_of_seq_packets': 2,
     'episodes': 1, 'seq_naks': 1, 'cnps': 0}, 'drop1: %s %s' % (d['faults_injected'], d['wire']))
need(d['metrics']['nak_generation_us']['n'] == 1 and d['metrics']['retransmission_us']['n'] == 1, 'drop1: metrics')
need(d['psn_wraps'] == 1 and all(v == 'PASS' for v in chk(d).values()), 'drop1: %s' % chk(d))
d = load('drop2')
need(d['faults_injected']['exact'] == 2 and d['wire']['episodes'] == 1 and d['wire']['seq_naks'] == 1
     and d['wire']['out_of_seq_packets'] == 4, 'drop2: %s' % d['wire'])
need(d['metrics']['retransmission_us']['max'] >= 4.096 * 256, 'drop2: retransmission %s' % d['metrics']['retransmission_us'])

s = load('storm')
need(chk(s)['nak_per_episode'] == 'FAIL' and chk(s)['counters_vs_wire'] == 'FAIL', 'storm: %s' % chk(s))
need(s['wire']['seq_naks'] == 2 * s['wire']['episodes'] > 0, 'storm: %s' % s['wire'])
need(int(ET.parse(os.path.join(T, 'storm.xml')).getroot().get('failures')) == 2, 'storm: junit failures')

f = load('flip')
need(chk(f)['integrity'] == 'FAIL' and f['integrity_errors'] > 0, 'flip: %s' % chk(f))
mm = re.match(r'qp (\d+) psn \d+ (write|send|read): byte \d+ is 0x.., expected 0x..', f['first_error'])
need(mm, 'flip: first error %r' % f['first_error'])
files = sorted(os.listdir(os.path.join(T, 'ev')))
need(files and len(files) < 8 and all(re.fullmatch(r'qp\d+\.pcap', x) for x in files), 'flip: evidence %s' % files)
if mm:
    need('qp%s.pcap' % mm.group(1) in files, 'flip: no evidence of qp %s' % mm.group(1))
for x in files:
    b = open(os.path.join(T, 'ev', x), 'rb').read()
    need(len(b) > 24 + 16 and struct.unpack('<I', b[:4])[0] == 0xa1b23c4d, 'flip: %s not a pcap' % x)

n = load('many')
need(n['qps_completed'] == 4096 and n['messages'] == 8192 and chk(n)['integrity'] == 'PASS', 'many: %d QPs' % n['qps_completed'])
if bad:
    print('stress:'); [print('  ' + b) for b in bad]; sys.exit(1)
print('stress --reference: mix of 32 QPs (%d messages, faults %s, %d NAK episodes, counters agree), '
      'exact events, nakstorm and bitflip FAIL as they should, 4096 QPs complete'
      % (m['messages'], m['faults_injected'], w['episodes']))
PY

python3 - "$T" <<'PY'
import json, os, re, sys, xml.etree.ElementTree as ET
T = sys.argv[1]
bad = []
def load(n): return json.load(open(os.path.join(T, n + '.json')))
def chk(d): return {c['name']: c['verdict'] for c in d['checks']}
def need(cond, what):
    if not cond: bad.append(what)
M = (1 << 64) - 1
def mix(x):   # ctl_mix (splitmix64)
    x = (x + 0x9e3779b97f4a7c15) & M
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M
    return x ^ (x >> 31)
def key(seed, idx, k, what): return mix(mix(seed ^ (idx << 40)) ^ ((k * 4 + what) & M))
def schedule(seed, qps, n, ops, lo, hi):   # target/ctl.h ctl_wl_op/ctl_wl_len
    lst = [b for b in range(4) if ops & (1 << b)]
    by, nbytes = [0] * 4, 0
    for i in range(qps):
        for k in range(n):
            b = lst[key(seed, i, k, 0) % len(lst)]
            by[b] += 1
            nbytes += 8 if b == 3 else lo + key(seed, i, k, 1) % (hi - lo + 1)
    return dict(zip(('send', 'write', 'read', 'atomic'), by)), nbytes

r = load('req')
c = chk(r)
need(r['role'] == 'requester' and c.pop('counters_vs_wire') == 'UNSUPPORTED', 'req: role/counters %s' % chk(r))
need(all(v == 'PASS' for v in c.values()) and {'nak_response', 'timeout_retransmission', 'rnr_wait'} <= set(c),
     'req: checks %s' % chk(r))
need(r['qps_completed'] == 32 and r['messages'] == 32 * 40 and r['integrity_errors'] == 0,
     'req: %d QPs, %d messages, %d integrity errors' % (r['qps_completed'], r['messages'], r['integrity_errors']))
by, nbytes = schedule(7, 32, 40, 15, 1, 4096)
need(r['by_op'] == by and r['bytes'] == nbytes, 'req: by_op %s bytes %d, the schedule says %s %d' % (r['by_op'], r['bytes'], by, nbytes))
for k in ('drop', 'dup', 'reorder', 'corrupt', 'rnr', 'lose'):
    need(r['faults_injected'][k] > 0, 'req: no %s injected' % k)
mt, cfg = r['metrics'], r['configured']
for k in ('nak_response_us', 'retransmission_us', 'timeout_retx_us', 'rnr_wait_us'):
    s = mt[k]
    need(s['n'] > 0 and 0 < s['p50'] <= s['p99'] <= s['max'], 'req: metric %s %s' % (k, s))
need(mt['nak_response_us']['n'] <= r['wire']['seq_naks'], 'req: %d NAK responses for %d NAKs' % (mt['nak_response_us']['n'], r['wire']['seq_naks']))
need(mt['rnr_wait_us']['n'] <= r['faults_injected']['rnr'], 'req: more RNR waits than RNR NAKs')
need(abs(cfg['timeout_us'] - 4.096 * 256) < 0.01 and cfg['rnr_timer_us'] == 640, 'req: configured %s' % cfg)
need(cfg['timeout_us'] <= mt['timeout_retx_us']['p50'] <= cfg['timeout_us'] + 10, 'req: timeout %s' % mt['timeout_retx_us'])
need(mt['rnr_wait_us']['p50'] >= cfg['rnr_timer_us'], 'req: rnr wait %s' % mt['rnr_wait_us'])
need(r['psn_wraps'] == 8, 'req: %d QPs wrapped their PSN' % r['psn_wraps'])
x = ET.parse(os.path.join(T, 'req.xml')).getroot()
need(int(x.get('tests')) == len(r['checks']) and int(x.get('failures')) == 0 and int(x.get('skipped')) == 1, 'req: junit')
same = lambda d: {k: v for k, v in d.items() if k not in ('wall_s', 'cpu_s', 'messages_per_s', 'control_rtt_us')}
need(same(r) == same(load('req2')), 'req: seed 7 twice: the runs differ')

q = load('reqclean')
by, nbytes = schedule(11, 4, 25, 15, 100, 3000)
need(q['messages'] == 100 and q['by_op'] == by and q['bytes'] == nbytes and q['integrity_errors'] == 0,
     'reqclean: %s %d' % (q['by_op'], q['bytes']))
need(all(q['metrics'][k]['n'] == 0 for k in ('nak_response_us', 'retransmission_us', 'timeout_retx_us', 'rnr_wait_us')),
     'reqclean: reactions measured without faults')
need(sum(q['faults_injected'].values()) == 0 and q['wire']['seq_naks'] == 0, 'reqclean: faults/NAKs without faults')

f = load('reqflip')
need(chk(f)['integrity'] == 'FAIL' and f['integrity_errors'] >= 2 and chk(f)['qps_completed'] == 'PASS', 'reqflip: %s' % chk(f))
need(re.match(r'qp \d+ (psn \d+ (write|send) \(message \d+\): byte \d+ is 0x.., expected 0x..'
              r'|: the adapter.s READ/atomic results fold to 0x[0-9a-f]+, expected 0x[0-9a-f]+)', f['first_error']),
     'reqflip: first error %r' % f['first_error'])
v = load('victim')
tp, vi = v['throughput'], v['victim']
need(tp['interval_s'] == 0.001 and len(tp['bins']) >= 10, 'victim: %d intervals' % len(tp['bins']))
need(abs(sum(b['total_Bps'] for b in tp['bins']) * tp['interval_s'] - v['bytes']) <= len(tp['bins']),
     'victim: intervals add up to %f, bytes %d' % (sum(b['total_Bps'] for b in tp['bins']) * tp['interval_s'], v['bytes']))
alone = [b for b in tp['bins'] if b['t_s'] < 0.0045]
beside = [b for b in tp['bins'] if 0.0055 < b['t_s'] < 0.0085]
need(alone and all(b['jain'] == 0.125 and b['qp_p50_Bps'] == 0 for b in alone), 'victim: alone %s' % alone)
need(beside and all(b['jain'] > 0.9 and b['qp_min_Bps'] > 0 for b in beside), 'victim: beside %s' % beside)
need(vi['attackers'] == 7 and vi['alone_Bps'] > vi['shared_Bps'] > 0 and vi['attackers_Bps'] > vi['shared_Bps'], 'victim: %s' % vi)
need(chk(v).get('victim_share') == 'PASS' and vi['shared_Bps'] >= (vi['shared_Bps'] + vi['attackers_Bps']) / 16,
     'victim: share %s' % chk(v))
c = load('cnp')
ci = c['metrics']['cnp_interval_us']
need(chk(c)['cnp_pacing'] == 'PASS' and ci['n'] > 0 and ci['p50'] >= 50 and c['wire']['cnps'] < c['faults_injected']['ce'],
     'cnp: %s %s' % (chk(c), ci))
need(chk(load('cnp60'))['cnp_pacing'] == 'FAIL', 'cnp60: %s' % chk(load('cnp60')))
if bad:
    print('stress --role requester:'); [print('  ' + b) for b in bad]; sys.exit(1)
print('stress --reference --role requester: 32 QPs (%d messages = the schedule, faults %s, NAK response %s us, '
      'timeout %s us, RNR wait %s us), bitflip FAILs integrity'
      % (r['messages'], r['faults_injected'], mt['nak_response_us']['p50'], mt['timeout_retx_us']['p50'],
         mt['rnr_wait_us']['p50']))
PY
