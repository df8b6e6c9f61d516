#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# optctr.sh — rocetop --device-enable-optional: its refusals (no --device,
# --device-replay, malformed lists: one line, exit 2; a name the port does
# not have: one line with the port's optional counters, exit 1) and, on
# tools/mkdevrec's recording seen through the netlink/sysfs replay hooks
# (ROCETOP_NETLINK_REPLAY, ROCETOP_SYSFS_ROOT: nothing is sent), a counter
# already on (nothing to change, exit 0) and one that is off (the request is
# made; the replay answers EOPNOTSUPP: one line, exit 1).
#
#   BUILD=build tests/optctr.sh
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
R=$BUILD/bin/rocetop
for p in "$R" "$BUILD/tools/mkdevrec"; do
	[ -x "$p" ] || { echo "optctr: $p not built" >&2; exit 2; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/optctr.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM

fails=0; oks=0
ok() { echo "ok   $*"; oks=$((oks + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }

# run WANT_RC PATTERN ARGS...: one line on stderr matching PATTERN, nothing on stdout, exit WANT_RC
run() {
	local want=$1 pat=$2 rc
	shift 2
	"$R" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	check "$* : exit $rc (want $want), one line: $(head -1 "$T/err")" sh -c "
		test $rc = $want && test \$(wc -l < '$T/err') = 1 && grep -qE -- '$pat' '$T/err' && ! test -s '$T/out'"
}

G=$T/rec
"$BUILD/tools/mkdevrec" "$G" "$T/wire.pcap" || { echo "optctr: mkdevrec failed" >&2; exit 2; }

run 2 'needs --device' -r "$T/wire.pcap" -b --device-enable-optional cc_rx_ce_pkts
run 2 'not with --device-replay' --device-replay "$G" --device all -b -n 1 --device-enable-optional cc_rx_ce_pkts
run 2 'an empty counter name' --device all -b --device-enable-optional ''
run 2 'an empty counter name' --device all -b --device-enable-optional 'cc_rx_ce_pkts,,rdma_rx_bytes'
run 2 'in a counter name \(names: letters' --device all -b --device-enable-optional 'cc-rx'
run 2 'longer than 47' --device all -b --device-enable-optional "$(printf 'x%.0s' $(seq 48))"

# this host's device view pointed at the recording's first snapshot
export ROCETOP_SYSFS_ROOT=$G/sys/1 ROCETOP_NETLINK_REPLAY=$G/netlink/1 ROCETOP_ETHTOOL_REPLAY=$G/ethtool/1
"$R" --device mlx5_2 -b -n 1 -d 0.05 > "$T/plain.txt" 2>&1
line=$(grep -m1 '^  optional counters:' "$T/plain.txt" | sed 's/^  optional counters://')
names=$(echo "$line" | awk '{for (i = 1; i < NF; i += 2) printf "%s ", $i}')
on=$(echo "$line" | awk '{for (i = 1; i < NF; i += 2) if ($(i + 1) == "on") { print $i; exit }}')
off=$(echo "$line" | awk '{for (i = 1; i < NF; i += 2) if ($(i + 1) == "off") { print $i; exit }}')
check "the recording's mlx5_2/1 has optional counters, one on ($on), one off ($off)" test -n "$on" -a -n "$off"

run 1 'bogus_ctr: not an optional counter of mlx5_2/1 \(its optional counters:' --device mlx5_2 -b -n 1 \
	--device-enable-optional "$on,bogus_ctr"
check "the refusal lists exactly the port's optional counters ($names)" \
	test "$(sed 's/.*its optional counters: //; s/)$//' "$T/err") " = "$names"
run 1 'not an optional counter of mlx4_0/1 \(it has none\)|mlx4_0/1: the optional counters unknown' \
	--device mlx4_0 -b -n 1 --device-enable-optional "$on"

"$R" --device mlx5_2 -b -n 1 -d 0.05 --device-enable-optional "$on" > "$T/on.txt" 2> "$T/on.err"
rc=$?
check "$on already on: nothing sent, the view runs (exit $rc, stderr empty)" sh -c "test $rc = 0 && ! test -s '$T/on.err' && grep -q '^  optional counters:' '$T/on.txt'"
run 1 "mlx5_2/1: STAT_SET refused: Operation not supported" --device mlx5_2 -b -n 1 --device-enable-optional "$off"

echo "optctr: $oks passed, $fails failed"
[ "$fails" = 0 ]
