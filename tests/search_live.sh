#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: waits
# tests/search_live.sh - `rocegen search` through rocetarget when rocetarget,
# not the adapter, fails: no anomaly is made of it, the search stops and says
# why (the lab run against rxe once ended after 930 s with "cannot reach
# rocetarget"; before this, a control failure scored 100 and was reported as
# the adapter's anomaly, shrunk to a 1-QP workload).
#
# Run by `make check` as  BUILD=<build dir> tests/search_live.sh  (root: a
# network namespace of its own with only lo; no RDMA device).  Skips (exit 0)
# without root.
#
# 1. The real rocetarget with no RDMA device behind it: rocegen search asks it
#    for the adapter's active MTU first, gets "err no RDMA device" and exits 1
#    with one line naming it — no evaluation, no anomaly.
# 2. A rocetarget of our own (Python, the control protocol of rocetarget(8))
#    that answers the first connection (hello, open with active_mtu=1024) and
#    then goes away: every evaluation finds nothing listening; rocegen tries
#    3 times, 2 s and 6 s apart, then stops: exit 1, the JSON valid with
#    "stopped" naming "cannot reach rocetarget" and 3 tries, 0 evaluations, no
#    anomaly; the retries said on stderr.
# 3. One that answers hello and open on every connection and closes it at the
#    next command (reset): "stopped" names the closed control channel, no
#    anomaly, and it was asked 1 + 3 times (the probe, the tries).
# 4. --time-limit: a bad value exits 2 with one line; against the reference
#    adapter a 1-s limit stops a long search early, exit 0, "stopped" says so.
# 5. rocetarget's port drops SYNs (nftables in the namespace, as a stalled
#    guest network does): rocegen gives the connection up after 10 s, exit 1
#    with "cannot reach rocetarget", in 9 to 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GEN=$PWD/$BUILD/bin/rocegen
TGT=$PWD/$BUILD/bin/rocetarget
[ "$(id -u)" = 0 ] || { echo "skip search_live: needs root (a network namespace)"; exit 0; }
T=$(mktemp -d)
NS=rtsearch$$
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done || true
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
fails=0
ok() { echo "ok   $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

head -c 32 /dev/urandom > "$T/key"; chmod 600 "$T/key"
ip netns add "$NS"
ip -n "$NS" link set lo up
PORT=7471
search() { # JSON-OUT ARGS...: rocegen search against 127.0.0.1:$PORT in the namespace; sets rc
	local out=$1; shift
	rc=0
	ip netns exec "$NS" "$GEN" search -i lo --peer 127.0.0.1 --src 127.0.0.1 --dmac 00:00:00:00:00:00 \
		--target 127.0.0.1:$PORT --key "$T/key" --budget 5 --seed 3 "$@" > "$out" 2> "$out.err" || rc=$?
}
wait_port() {
	for _ in $(seq 50); do
		ip netns exec "$NS" bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# ---- 1. the real rocetarget, no RDMA device
if [ -x "$TGT" ]; then
	ip netns exec "$NS" "$TGT" --listen 127.0.0.1:$PORT --key "$T/key" 2> "$T/tgt.log" & PIDS+=($!)
	# (no wait_port here: a probing connection would be one more controller in its log)
	for _ in $(seq 50); do grep -q listening "$T/tgt.log" && break; sleep 0.1; done
	search "$T/nodev.out" --json
	if [ "$rc" = 1 ] && [ ! -s "$T/nodev.out" ] && [ "$(wc -l < "$T/nodev.out.err")" = 1 ] &&
	   grep -q "err no RDMA device" "$T/nodev.out.err"; then
		ok "no RDMA device: exit 1, '$(cat "$T/nodev.out.err")'"
	else
		fail "no RDMA device" "exit $rc, stdout $(cat "$T/nodev.out"), stderr $(cat "$T/nodev.out.err")"
	fi
	kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true
else
	echo "skip 1: rocetarget not built (needs libibverbs)"
fi

# ---- 2./3. a rocetarget of our own
cat > "$T/fake.py" <<'PY'
import hmac, hashlib, os, socket, sys
key, port, mode, log = open(sys.argv[1], 'rb').read(), int(sys.argv[2]), sys.argv[3], sys.argv[4]
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(('127.0.0.1', port)); ls.listen(4)
conns = 0
while True:
    c, _ = ls.accept()
    f = c.makefile('rwb', buffering=0)
    try:
        nonce = os.urandom(32)
        f.write(b'auth hmac-sha256 nonce=' + nonce.hex().encode() + b'\n')
        want = hmac.new(key, b'rocetarget auth 1 ' + nonce, hashlib.sha256).hexdigest()
        if f.readline().strip() != b'auth mac=' + want.encode():
            f.write(b'err authentication failed: wrong key\n'); f.close(); c.close(); continue
        f.write(b'ok auth\n')
        conns += 1
        for line in f:
            cmd = line.split()[0].decode() if line.split() else ''
            if cmd == 'hello':
                f.write(b'ok proto=1 impl=fake\n')
            elif cmd == 'open':
                f.write(b'ok dev=fake0 gid=::ffff:127.0.0.1 gid_index=1 active_mtu=1024 state=4\n')
            else:
                break   # close-mid: the channel closes at the first command after open
    except OSError:
        f.close(); c.close(); continue   # a connection that only looked (wait_port)
    f.close(); c.close()
    with open(log, 'a') as g:
        g.write('connection %d\n' % conns)
    if mode == 'die-after-probe':
        break
PY
fake() { # MODE
	: > "$T/fake.log"
	ip netns exec "$NS" python3 "$T/fake.py" "$T/key" $PORT "$1" "$T/fake.log" & PIDS+=($!)
}
# check_stop WHAT FILE PATTERN CONNS: exit 1, valid JSON stopped by PATTERN, 0 evaluations, no anomaly
check_stop() {
	local what=$1 out=$2 pat=$3 conns=$4 got
	got=$(grep -c '^connection' "$T/fake.log" || true)
	if [ "$rc" = 1 ] && python3 - "$out" "$pat" <<'PY' && [ "$got" = "$conns" ] &&
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d['anomalies'] == [] and d['evaluations'] == 0, d
assert re.search(sys.argv[2], d['stopped'] or ''), d['stopped']
assert re.search(r'\(3 tries\)$', d['stopped']), d['stopped']
PY
	   [ "$(grep -c 'trying again in' "$out.err")" = 2 ]; then
		ok "$what: exit 1, stopped: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stopped"])' "$out"), $got connection(s)"
	else
		fail "$what" "exit $rc, $got connection(s) (want $conns), stdout $(cat "$out"), stderr $(cat "$out.err")"
	fi
}

fake die-after-probe
wait_port || fail "fake rocetarget" "not listening"
search "$T/gone.out" --json
check_stop "rocetarget gone after the probe" "$T/gone.out" "^cannot reach rocetarget at 127\.0\.0\.1:$PORT" 1
wait "${PIDS[-1]}" 2>/dev/null || true

fake close-mid
wait_port || fail "fake rocetarget" "not listening"
search "$T/closed.out" --json
check_stop "control channel closed in every evaluation" "$T/closed.out" "control channel closed" 4
# the text form says it too
search "$T/closed.txt"
grep -q "^search stopped after 0 evaluations ([0-9]* s): rocetarget at 127.0.0.1:$PORT: .*control channel closed (3 tries)$" "$T/closed.txt" &&
	[ "$rc" = 1 ] && ! grep -q "^anomaly" "$T/closed.txt" && ok "text form: $(tail -n 1 "$T/closed.txt")" ||
	fail "text form" "exit $rc: $(cat "$T/closed.txt")"

# ---- 5. a rocetarget whose SYNs are lost (a guest network that stalled): the
# connection is given up after 10 s, not the kernel's two minutes of retries
ip netns exec "$NS" nft -f - <<'NFT'
table inet a28 {
	chain inp {
		type filter hook input priority 0;
		tcp dport 7472 drop
	}
}
NFT
t0=$(date +%s)
rc=0; ip netns exec "$NS" "$GEN" search -i lo --peer 127.0.0.1 --src 127.0.0.1 --dmac 00:00:00:00:00:00 \
	--target 127.0.0.1:7472 --key "$T/key" --budget 5 --json > "$T/syn.out" 2> "$T/syn.err" || rc=$?
t=$(( $(date +%s) - t0 ))
[ "$rc" = 1 ] && [ "$t" -ge 9 ] && [ "$t" -le 30 ] && grep -q "cannot reach rocetarget at 127.0.0.1:7472" "$T/syn.err" &&
	ok "SYNs lost: exit 1 after $t s, '$(head -n 1 "$T/syn.err")'" || fail "SYNs lost" "exit $rc after $t s: $(cat "$T/syn.err")"

# ---- 4. --time-limit
for a in "--time-limit 0" "--time-limit x" "--time-limit -3"; do
	rc=0; "$GEN" search --reference good $a > /dev/null 2> "$T/err" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && ok "search $a: exit 2" || fail "search $a" "exit $rc: $(cat "$T/err")"
done
rc=0; "$GEN" search --reference good --budget 100000 --time-limit 1 --json > "$T/tl.json" || rc=$?
python3 - "$T/tl.json" <<'PY' && [ "$rc" = 0 ] && ok "--time-limit 1: exit 0, stopped early" || fail "--time-limit 1" "exit $rc: $(cat "$T/tl.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d['stopped'] == 'time limit of 1 s reached', d
assert 0 < d['evaluations'] < 100000 and d['seconds'] < 30 and d['anomalies'] == [], d
PY

[ "$fails" = 0 ] || { echo "search_live: $fails failed"; exit 1; }
echo "search_live: all passed"
