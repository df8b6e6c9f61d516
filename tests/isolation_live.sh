#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/isolation_live.sh - `rocegen isolation` through rocetarget without the
# lab: when rocetarget, not the adapter, fails, the suite reports no case and
# says why in one line (the cases against rxe are tests/stress_lab.sh's
# isolation role, make interop).
#
# Run by `make check` as  BUILD=<build dir> tests/isolation_live.sh  (root: a
# network namespace of its own with only lo; no RDMA device).  Skips (exit 0)
# without root.
#
# 1. The real rocetarget with no RDMA device behind it: exit 1, nothing on
#    standard output (with --json too), one line on standard error naming
#    "err no RDMA device" and the case it stopped at (the first, bandwidth).
# 2. The same rocetarget answered with a wrong key: exit 1, no case run, the
#    refusal said in one line (rocetarget's "wrong key"), rocetarget's log
#    naming it.
# 3. Nothing listening: exit 1, one line "cannot reach rocetarget", nothing on
#    standard output.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GEN=$PWD/$BUILD/bin/rocegen
TGT=$PWD/$BUILD/bin/rocetarget
[ "$(id -u)" = 0 ] || { echo "skip isolation_live: needs root (a network namespace)"; exit 0; }
[ -x "$TGT" ] || { echo "skip isolation_live: rocetarget not built (needs libibverbs)"; exit 0; }
T=$(mktemp -d)
NS=rtiso$$
TPID=
cleanup() {
	[ -z "$TPID" ] || { kill "$TPID" 2>/dev/null; wait "$TPID" 2>/dev/null; } || true
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
fails=0
ok() { echo "ok   $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

head -c 32 /dev/urandom > "$T/key"; chmod 600 "$T/key"
head -c 32 /dev/urandom > "$T/other"; chmod 600 "$T/other"
ip netns add "$NS"
ip -n "$NS" link set lo up
PORT=7471
iso() { # OUT KEY ARGS...: rocegen isolation against 127.0.0.1:$PORT in the namespace; sets rc
	local out=$1 key=$2; shift 2
	rc=0
	ip netns exec "$NS" "$GEN" isolation -i lo --peer 127.0.0.1 --src 127.0.0.1 --dmac 00:00:00:00:00:00 \
		--target 127.0.0.1:$PORT --key "$key" "$@" > "$out" 2> "$out.err" || rc=$?
}

ip netns exec "$NS" "$TGT" --listen 127.0.0.1:$PORT --key "$T/key" 2> "$T/tgt.log" & TPID=$!
for _ in $(seq 50); do grep -q listening "$T/tgt.log" && break; sleep 0.1; done

# ---- 1. no RDMA device
for json in "" --json; do
	iso "$T/nodev$json.out" "$T/key" $json
	if [ "$rc" = 1 ] && [ ! -s "$T/nodev$json.out" ] && [ "$(wc -l < "$T/nodev$json.out.err")" = 1 ] &&
	   grep -q "err no RDMA device" "$T/nodev$json.out.err" && grep -q "(case bandwidth)" "$T/nodev$json.out.err"; then
		ok "no RDMA device${json:+ ($json)}: exit 1, '$(cat "$T/nodev$json.out.err")'"
	else
		fail "no RDMA device${json:+ ($json)}" "exit $rc, stdout $(cat "$T/nodev$json.out"), stderr $(cat "$T/nodev$json.out.err")"
	fi
done

# ---- 2. a wrong key
iso "$T/key.out" "$T/other" --cases rnr --json
if [ "$rc" = 1 ] && [ ! -s "$T/key.out" ] && grep -q "wrong key" "$T/key.out.err" &&
   [ "$(wc -l < "$T/key.out.err")" = 1 ] && grep -q "wrong key; connection closed" "$T/tgt.log"; then
	ok "wrong key: exit 1, '$(tr '\n' ' ' < "$T/key.out.err")'"
else
	fail "wrong key" "exit $rc, stdout $(cat "$T/key.out"), stderr $(cat "$T/key.out.err")"
fi
kill "$TPID"; wait "$TPID" 2>/dev/null || true; TPID=

# ---- 3. nothing listening
iso "$T/none.out" "$T/key" --cases cache
if [ "$rc" = 1 ] && [ ! -s "$T/none.out" ] && [ "$(wc -l < "$T/none.out.err")" = 1 ] &&
   grep -q "cannot reach rocetarget at 127.0.0.1:$PORT" "$T/none.out.err"; then
	ok "nothing listening: exit 1, '$(tr '\n' ' ' < "$T/none.out.err")'"
else
	fail "nothing listening" "exit $rc, stdout $(cat "$T/none.out"), stderr $(cat "$T/none.out.err")"
fi

[ "$fails" = 0 ] || { echo "isolation_live: $fails failed"; exit 1; }
echo "isolation_live: ok (no device, wrong key, nothing listening: exit 1, said why, no case reported)"
