#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: waits
# diag_live.sh — a verdict raised, cleared and raised again over time in
# live mode (rocetop(8) DIAGNOSIS: "active"), seen at once by the JSON
# snapshots (rocetop -i --json -d 1: each snapshot's "diagnosis") and by
# the terminal view's diagnosis screen (key v, driven in tmux).
#
# In a network namespace of the test's own, a veth pair: both rocetops
# capture on vx1; a Python raw socket on vx0 sends, from MAC
# 02:00:00:00:0a:bc, a RoCE SEND and a PFC pause of priority 3: a MAC that
# sends RoCE and pauses raises pause_from_host.  With nothing new for 10 s
# (the clearing time) it is past; sent again, active again.
#
#   BUILD=build tests/diag_live.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
R=$BUILD/bin/rocetop
[ -x "$R" ] || { echo "diag_live: $R not built" >&2; exit 2; }
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null 2>&1 || ! command -v tmux >/dev/null 2>&1; then
	echo "diag_live: needs root, ip and tmux (make deps)" >&2
	exit 2
fi
T=$(mktemp -d /tmp/rocetop-diag-live.XXXXXX) || exit 2
NS=rtdiag$$
SOCK=rocetop-diag-live-$$
S=dl
tm() { tmux -L "$SOCK" "$@"; }
jpid=
cleanup() {
	[ -n "$jpid" ] && kill "$jpid" 2>/dev/null && wait "$jpid" 2>/dev/null
	tm kill-server 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fails=0 oks=0
ok() { echo "ok   $*"; oks=$((oks + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

ip netns add "$NS" && ip -n "$NS" link add vx0 type veth peer name vx1 &&
	ip -n "$NS" link set vx0 up && ip -n "$NS" link set vx1 up || { echo "diag_live: netns setup failed" >&2; exit 1; }

ip netns exec "$NS" "$R" -i vx1 --json -d 1 >"$T/snaps.json" 2>"$T/json.err" &
jpid=$!
tm -f /dev/null new-session -d -s "$S" -x 160 -y 40 \
	"env -i PATH=$PATH TERM=screen LANG=C.UTF-8 TZ=UTC ip netns exec $NS $R -i vx1; sleep 60" || exit 2

send() {   # one RoCE SEND and one PFC pause from the same MAC
	ip netns exec "$NS" python3 - <<'PY'
import socket, struct
mac = bytes.fromhex("020000000abc")
body = struct.pack(">BBHII", 0x04, 0x40, 0xffff, 17, 0) + b"\0" * 20
udp = struct.pack(">HHHH", 0xc000, 4791, 8 + len(body), 0)
ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 28 + len(body), 0, 0x4000, 64, 17, 0, bytes([10, 9, 0, 1]), bytes([10, 9, 0, 2]))
pfc = struct.pack(">HH8H", 0x0101, 0x08, 0, 0, 0, 0xffff, 0, 0, 0, 0)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("vx0", 0))
s.send(bytes.fromhex("020000000def") + mac + b"\x08\x00" + ip + udp + body)
s.send(bytes.fromhex("0180c2000001") + mac + b"\x88\x08" + pfc + b"\0" * (46 - len(pfc)))
PY
}
# snap: the last JSON snapshot's pause_from_host: "active", "past" or "none"
snap() {
	python3 -c '
import json, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("{\"type\":\"snapshot\"")]
v = [d for d in json.loads(lines[-1])["diagnosis"] if d["verdict"] == "pause_from_host"] if lines else []
print("none" if not v else "active" if v[0]["active"] else "past")' "$T/snaps.json" 2>/dev/null
}
screen() { tm capture-pane -p -t "$S" >"$T/screen"; }
# until SECONDS: both views say STATE (the JSON snapshot; the v screen's row
# and header); prints how long it took
until_state() {
	local want=$1 secs=$2 t0=$SECONDS row
	case $want in
	active) row='^warning +pause_from_host +02:00:00:00:0a:bc .* active *$'; hdr="^Diagnosis: 1 active, 0 past" ;;
	past) row='^warning +pause_from_host +02:00:00:00:0a:bc .* past *$'; hdr="^Diagnosis: 0 active, 1 past" ;;
	esac
	while [ $((SECONDS - t0)) -le "$secs" ]; do
		screen
		if [ "$(snap)" = "$want" ] && grep -Eq -- "$row" "$T/screen" && grep -Eq -- "$hdr" "$T/screen"; then
			echo $((SECONDS - t0))
			return 0
		fi
		sleep 0.3
	done
	return 1
}

# both rocetops have the interface open once they see what is sent: send until raised
sleep 1
tm send-keys -t "$S" v
raised=
for _ in $(seq 15); do
	send
	if t=$(until_state active 2); then raised=1; break; fi
done
if [ -n "$raised" ]; then
	ok "raised: pause_from_host active in the JSON snapshot and on the v screen (Diagnosis: 1 active, 0 past)"
else
	fail "not raised: snapshot '$(snap)'; screen:"; sed 's/^/| /' "$T/screen" | head -n 12; cat "$T/json.err"
fi
t0=$SECONDS
if [ -n "$raised" ] && t=$(until_state past 25); then
	took=$((SECONDS - t0))
	# the clearing time is 10 s: not before 8 s (the views refresh every second or so)
	if [ "$took" -ge 8 ]; then
		ok "cleared after ${took} s without new evidence: past in the snapshot and on the v screen (Diagnosis: 0 active, 1 past)"
	else
		fail "cleared too early: after ${took} s (the clearing time is 10 s)"
	fi
	again=
	for _ in $(seq 10); do   # a loaded machine may hand a frame to one capture late: send until both see it
		send
		if until_state active 2 >/dev/null; then again=1; break; fi
	done
	if [ -n "$again" ]; then
		ok "raised again: active in the snapshot and on the v screen once a new pause arrives"
	else
		fail "not raised again: snapshot '$(snap)'"; sed 's/^/| /' "$T/screen" | head -n 12
	fi
else
	[ -n "$raised" ] && { fail "not cleared within 25 s: snapshot '$(snap)'"; sed 's/^/| /' "$T/screen" | head -n 12; }
fi
read -r n nd <<<"$(python3 -c '
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{\"type\":\"snapshot\"")]
print(len(s), sum(1 for x in s if isinstance(x.get("diagnosis"), list)))' "$T/snaps.json")"
[ "$n" -ge 10 ] && [ "$n" = "$nd" ] && ok "$n JSON snapshots, each with a diagnosis array" || fail "$n JSON snapshots, $nd with a diagnosis array"
echo "diag_live: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
