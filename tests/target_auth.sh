#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/target_auth.sh - rocetarget lets in only a controller that holds its key
# (target/ctlauth.h: a challenge, HMAC-SHA256 of it under the shared key file).
#
# Run by `make check` as  BUILD=<build dir> tests/target_auth.sh  (root: a
# network namespace of its own, rocetarget on its 127.0.0.1; no RDMA device is
# needed, authentication comes before any command).  Skips (exit 0) when
# rocetarget is not built (no libibverbs) or without root.
#
# 1. The key file: missing --key, a key file group or others may read (0640,
#    0604), a 4-byte key, a missing file: rocetarget and rocegen refuse each with
#    one line and exit 2; mode 0400 is taken.
# 2. rocegen conform --key with the right key: rocetarget logs the controller
#    authenticated and then takes its commands (hello, open).  With a wrong key
#    and with none, rocegen says so in one line, rocetarget logs one line and
#    takes no command from it.
# 3. A client of our own (Python's hmac, written from the rocetarget(8) text):
#    the right answer gets "ok auth" and then "hello" is answered; a command
#    before authentication, a wrong MAC and a replay of an answer accepted on an
#    earlier connection (its nonce is gone) each get one "err" line and a closed
#    connection; two challenges are never the same.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GEN=$PWD/$BUILD/bin/rocegen
TGT=$PWD/$BUILD/bin/rocetarget
[ -x "$TGT" ] || { echo "skip target_auth: rocetarget not built (needs libibverbs)"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "skip target_auth: needs root (a network namespace)"; exit 0; }
T=$(mktemp -d)
NS=rtauth$$
TPID=
cleanup() {
	[ -n "$TPID" ] && kill "$TPID" 2>/dev/null && wait "$TPID" 2>/dev/null
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
fails=0
ok() { echo "ok   $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

# expect_refusal WHAT CMD...: exit 2 and exactly one line on stderr
expect_refusal() {
	local what=$1 rc=0; shift
	"$@" > /dev/null 2> "$T/err" || rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l < "$T/err")" = 1 ]; then
		ok "$what: exit 2, '$(cat "$T/err")'"
	else
		fail "$what" "exit $rc, stderr: $(cat "$T/err")"
	fi
}

# ---- 1. key files
head -c 32 /dev/urandom > "$T/key"; chmod 600 "$T/key"
head -c 32 /dev/urandom > "$T/other"; chmod 600 "$T/other"
head -c 4 /dev/urandom > "$T/short"; chmod 600 "$T/short"
cp "$T/key" "$T/open640"; chmod 640 "$T/open640"
cp "$T/key" "$T/open604"; chmod 604 "$T/open604"
cp "$T/key" "$T/ro"; chmod 400 "$T/ro"
PORT=7471
expect_refusal "rocetarget without --key" "$TGT" --listen 127.0.0.1:$PORT
for k in open640 open604 short nonexistent; do
	expect_refusal "rocetarget --key ($k)" "$TGT" --listen 127.0.0.1:$PORT --key "$T/$k"
done
grep -q "must be 0600" <("$TGT" --listen 127.0.0.1:$PORT --key "$T/open604" 2>&1) ||
	fail "rocetarget --key 0604" "the refusal does not name mode 0600"

ip netns add "$NS"
ip -n "$NS" link set lo up
inns() { ip netns exec "$NS" "$@"; }

# rocegen refuses a bad key file before it reaches anything
expect_refusal "rocegen conform --key (0640)" inns "$GEN" conform -i lo --peer 127.0.0.1 \
	--src 127.0.0.1 --dmac 00:00:00:00:00:00 --target 127.0.0.1:$PORT --key "$T/open640"

start_target() { # KEYFILE
	# ip netns exec execs rocetarget: $! is rocetarget itself (a shell function in the
	# background would be a subshell, and killing it would leave rocetarget running)
	ip netns exec "$NS" "$TGT" --listen 127.0.0.1:$PORT --key "$1" -v 2> "$T/tgt.log" & TPID=$!
	for _ in $(seq 50); do
		inns ss -ltnH "sport = :$PORT" | grep -q . && return 0
		sleep 0.1
	done
	echo "rocetarget did not listen: $(cat "$T/tgt.log")"; exit 1
}
stop_target() { kill "$TPID" 2>/dev/null; wait "$TPID" 2>/dev/null || true; TPID=; }

# conform_with KEYARGS...: rocegen conform against the target (no device: it
# stops at `open` when let in); its stderr in $T/gen.err
conform_with() {
	inns "$GEN" conform -i lo --peer 127.0.0.1 --src 127.0.0.1 --dmac 00:00:00:00:00:00 \
		--target 127.0.0.1:$PORT --cases resp.psn-gap "$@" > /dev/null 2> "$T/gen.err" || true
	sleep 0.2   # rocetarget's log of the connection
}
log_lines() { grep -c "$1" "$T/tgt.log" || true; }

# ---- 2. rocegen's controller side
start_target "$T/ro"   # a 0400 key file is taken
conform_with --key "$T/key"
if [ "$(log_lines 'authenticated')" = 1 ] && [ "$(log_lines '^< hello')" = 1 ] &&
	[ "$(log_lines '^< open')" = 1 ]; then
	ok "right key: authenticated, then hello and open taken"
else
	fail "right key" "rocetarget log: $(cat "$T/tgt.log") / rocegen: $(cat "$T/gen.err")"
fi
conform_with --key "$T/other"
if [ "$(wc -l < "$T/gen.err")" = 1 ] && grep -q "refused us: err authentication failed: wrong key" "$T/gen.err" &&
	[ "$(log_lines 'wrong key; connection closed')" = 1 ] && [ "$(log_lines '^< hello')" = 1 ]; then
	ok "wrong key: '$(cat "$T/gen.err")'; rocetarget: '$(grep 'wrong key' "$T/tgt.log")'"
else
	fail "wrong key" "rocegen: $(cat "$T/gen.err") / rocetarget log: $(cat "$T/tgt.log")"
fi
conform_with
if [ "$(wc -l < "$T/gen.err")" = 1 ] && grep -q "asks for the shared key: give --key FILE" "$T/gen.err" &&
	[ "$(log_lines 'connection closed')" = 2 ] && [ "$(log_lines '^< hello')" = 1 ]; then
	ok "no key: '$(cat "$T/gen.err")'"
else
	fail "no key" "rocegen: $(cat "$T/gen.err") / rocetarget log: $(cat "$T/tgt.log")"
fi

# ---- 3. a client of our own
inns python3 - "$PORT" "$T/key" "$T/other" > "$T/py.out" 2>&1 <<'PY' || true
import hmac, hashlib, socket, sys
port, key, other = int(sys.argv[1]), open(sys.argv[2], 'rb').read(), open(sys.argv[3], 'rb').read()

def conn():
    s = socket.create_connection(('127.0.0.1', port), timeout=5)
    f = s.makefile('rb')
    ch = f.readline().decode().split()
    assert ch[:2] == ['auth', 'hmac-sha256'] and ch[2].startswith('nonce='), ch
    nonce = bytes.fromhex(ch[2][6:])
    assert len(nonce) == 32, ch
    return s, f, nonce

def mac(k, nonce):
    return hmac.new(k, b'rocetarget auth 1 ' + nonce, hashlib.sha256).hexdigest()

def refused(s, f, what):
    line = f.readline().decode()
    rest = f.read()
    s.close()
    good = line.startswith('err authentication failed') and rest == b''
    print('%s %s: %r, then %s' % ('ok  ' if good else 'FAIL', what, line.strip(),
                                  'closed' if rest == b'' else 'more: %r' % rest))

seen = set()
s, f, n = conn(); seen.add(n)
answer = mac(key, n)
s.sendall(('auth mac=%s\n' % answer).encode())
a = f.readline().decode().strip()
s.sendall(b'hello\n')
h = f.readline().decode().strip()
s.sendall(b'quit\n'); s.close()
print('%s right answer: %r, then hello: %r' % ('ok  ' if a == 'ok auth' and h.startswith('ok proto=1')
                                               else 'FAIL', a, h))
s, f, n = conn(); seen.add(n)
s.sendall(b'hello\n')
refused(s, f, 'command before authentication')
s, f, n = conn(); seen.add(n)
s.sendall(('auth mac=%s\n' % mac(other, n)).encode())
refused(s, f, 'answer under another key')
s, f, n = conn(); seen.add(n)
s.sendall(('auth mac=%s\n' % answer).encode())
refused(s, f, 'replayed answer of an earlier connection')
print('%s %d challenges, %d different' % ('ok  ' if len(seen) == 4 else 'FAIL', 4, len(seen)))
PY
cat "$T/py.out"
if grep -q '^FAIL\|Error\|Traceback' "$T/py.out" || [ "$(grep -c '^ok' "$T/py.out")" != 5 ]; then
	fail "own client" "see above"
fi
stop_target

[ "$fails" = 0 ] || { echo "target_auth: $fails failed"; exit 1; }
echo "target_auth: ok"
