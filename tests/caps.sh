#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# caps.sh — rocetop captures with CAP_NET_RAW alone and holds no capability
# once its sockets are open.
#
#   BUILD=build tests/caps.sh            (root: a network namespace, setcap)
#
# In a namespace of its own (debcaps-PID, veth debc0 <-> debc1), rocetop
# captures on debc0 in promiscuous mode while tcpreplay sends a lab capture
# into debc1:
#   - as root (every capability): CapEff/CapPrm/CapInh/CapAmb are 0 and
#     NoNewPrivs is 1 in /proc/PID/status while it runs;
#   - as nobody, a copy of the binary with only cap_net_raw=eip (no
#     CAP_NET_ADMIN): the capture opens (promiscuity goes up), every frame is
#     counted, and its capabilities are 0 after start;
#   - as nobody without capabilities: one clear line and exit 1.
# Skips (exit 0) when not root or when namespaces, setcap or tcpreplay are missing.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
R=$BUILD/bin/rocetop
CAP=$root/captures/lab/roce_rping.pcap   # 55 frames
NFR=55

skip() { echo "caps: skipped: $*"; exit 0; }
[ -x "$R" ] || { echo "caps: $R not built" >&2; exit 2; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespace, setcap)"
for c in ip setcap setpriv tcpreplay python3; do
	command -v $c >/dev/null 2>&1 || skip "no $c (make deps)"
done

NS=debcaps-$$
T=$(mktemp -d "${TMPDIR:-/tmp}/caps.XXXXXX") || exit 2
chmod 755 "$T"
cleanup() {
	[ -n "${P:-}" ] && kill "$P" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 2' INT TERM
ip netns add "$NS" 2>/dev/null || skip "cannot create a network namespace"
# no IPv6 autoconfiguration chatter: every frame on debc0 is one tcpreplay sent
ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 || exit 2
ip -n "$NS" link add debc0 type veth peer name debc1 || exit 2
for l in lo debc0 debc1; do ip -n "$NS" link set "$l" up || exit 2; done

fails=0
ok() { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

# The pid of the rocetop under `ip netns exec … [setpriv …]` (exec'd in place).
rpid() {
	for _ in $(seq 50); do
		if [ "$(cat /proc/"$1"/comm 2>/dev/null)" = rocetop ]; then
			echo "$1"
			return
		fi
		sleep 0.1
	done
}

# run NAME BINARY [setpriv args]: capture NFR frames, check caps and counts
run() {
	name=$1 bin=$2
	shift 2
	ip netns exec "$NS" "$@" "$bin" -i debc0 -b --json -c $NFR > "$T/$name.json" 2> "$T/$name.err" &
	P=$!
	pid=$(rpid $P)
	sleep 0.5   # past source_open() and the shedding
	if [ -z "$pid" ]; then
		fail "$name: rocetop did not start: $(cat "$T/$name.err")"
		wait $P
		P=
		return
	fi
	st=/proc/$pid/status
	caps=$(awk '/^Cap(Inh|Prm|Eff|Amb):/ { printf "%s=%s ", $1, $2 }' "$st")
	nnp=$(awk '/^NoNewPrivs:/ { print $2 }' "$st")
	held=$(awk '/^Cap(Inh|Prm|Eff|Amb):/ && $2 !~ /^0+$/' "$st")
	if [ -z "$caps" ]; then
		fail "$name: no Cap lines in $st"
	elif [ -n "$held" ]; then
		fail "$name: capabilities left after start: $held"
	else
		ok "$name: no capability after start ($caps)"
	fi
	[ "$nnp" = 1 ] && ok "$name: NoNewPrivs 1" || fail "$name: NoNewPrivs is '$nnp'"
	promisc=$(ip -d -n "$NS" link show debc0 | sed -n 's/.*promiscuity \([0-9]*\).*/\1/p')
	[ "${promisc:-0}" -ge 1 ] && ok "$name: debc0 promiscuous while capturing" ||
		fail "$name: debc0 promiscuity '$promisc'"
	ip netns exec "$NS" tcpreplay -q -i debc1 "$CAP" > /dev/null 2>&1 || fail "$name: tcpreplay failed"
	for _ in $(seq 50); do kill -0 $P 2>/dev/null || break; sleep 0.1; done
	kill $P 2>/dev/null
	wait $P
	rc=$?
	P=
	got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["frames"], d["capture"]["received"], d["roce"]["v2"])' \
		"$T/$name.json" 2>/dev/null)
	[ $rc = 0 ] && [ "$got" = "$want" ] && ok "$name: captured as read from the file (frames, capture.received, roce.v2: $got)" ||
		fail "$name: exit $rc, frames/received/v2 '$got' (want $want): $(cat "$T/$name.err")"
}

want=$("$R" -r "$CAP" -b --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["frames"], d["frames"], d["roce"]["v2"])')
run root "$R"

cp "$R" "$T/rocetop"
if setcap cap_net_raw=eip "$T/rocetop" 2>/dev/null; then
	run nobody-cap_net_raw "$T/rocetop" setpriv --reuid=nobody --regid=nogroup --clear-groups
	setcap -r "$T/rocetop"
	ip netns exec "$NS" setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/rocetop" -i debc0 -b \
		> /dev/null 2> "$T/nocap.err"
	rc=$?
	if [ $rc = 1 ] && [ "$(wc -l < "$T/nocap.err")" = 1 ] && grep -q 'cap_net_raw' "$T/nocap.err"; then
		ok "nobody without capabilities: exit 1, '$(cat "$T/nocap.err")'"
	else
		fail "nobody without capabilities: exit $rc, '$(cat "$T/nocap.err")'"
	fi
else
	echo "caps: setcap does not work in ${TMPDIR:-/tmp} (no xattrs?); skipping the unprivileged runs"
fi

[ $fails = 0 ] && echo "caps: all passed" || echo "caps: $fails FAILED"
[ $fails = 0 ]
