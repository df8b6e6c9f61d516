#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rtt.sh — rocetop's round-trip times against an independent reference.
#
# 1. Every capture in captures/{lab,analysis,gen}: rocetop --json's rtt_us / read_rtt_us per flow against
#    tests/rtt_ref.py, which reads the pcap with Python's struct and applies
#    issue 11's per-PSN rule itself: n exact, min/max/sum exact, p50/p99
#    within 1 %.
# 2. The reference can fail: a summary with one sample too many is refused.
# 3. The batch text shows the same n, min and max as the JSON.
# 4. The memory cap: with --rtt-memory 16 (KiB) on rping's connection
#    repeated over 64 address pairs (bench_flow mk1m --pairs: the requests
#    outstanding are few, the histograms many), histograms are evicted and
#    counted (rtt_state), n/min/max stay exact and the evicted directions'
#    quantiles are null.
#
#   BUILD=build tests/rtt.sh
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
R=$BUILD/bin/rocetop
if [ ! -x "$R" ]; then
	echo "rtt: $R not built" >&2
	exit 2
fi
T=$(mktemp -d /tmp/rocetop-rtt.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
oks=0
samples=0
ok() { oks=$((oks + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# ---- 1. every capture ---------------------------------------------------------------
# (../shared/captures holds tcpdump/Wireshark samples without RC traffic)
pairs=()
i=0
for c in captures/lab/*.pcap captures/analysis/*.pcap captures/gen/*.pcap; do
	i=$((i + 1))
	# captures rocetop refuses (damaged on purpose) are not ours to judge
	"$R" -r "$c" --json >"$T/$i.json" 2>/dev/null && pairs+=("$c" "$T/$i.json")
done
python3 tests/rtt_ref.py "${pairs[@]}" >"$T/ref.out"
while read -r line; do
	case $line in
	*", agree") ok
		    n=$(echo "$line" | sed -n 's/.* flows, \([0-9]*\) samples, agree$/\1/p')
		    samples=$((samples + ${n:-0})) ;;
	*) fail "$line" ;;
	esac
done <"$T/ref.out"
[ "$oks" -ge 60 ] || fail "only $oks captures compared"
[ "$samples" -ge 1000 ] || fail "only $samples RTT samples checked over all captures"

# ---- 2. the reference sees a wrong n -------------------------------------------------
c=captures/lab/roce_atomic_bw_fadd.pcap
"$R" -r $c --json >"$T/a.json"
sed 's/"rtt_us":{"n":40,/"rtt_us":{"n":41,/' "$T/a.json" >"$T/bad.json"
if cmp -s "$T/a.json" "$T/bad.json"; then
	fail "$c: no flow with rtt_us.n 40 to alter"
elif python3 tests/rtt_ref.py $c "$T/bad.json" >/dev/null; then
	fail "rtt_ref.py accepted a summary with n 41 for 40 samples"
else
	ok
fi

# ---- 3. batch text agrees with JSON --------------------------------------------------
line=$("$R" -r $c | grep -o 'RTT us min/p50/p99/max [^;]*')
want=$(jq -r '.flows[] | select(.rtt_us.n > 0) | .rtt_us | "\(.min)/\(.p50)/\(.p99)/\(.max) (n=\(.n))"' "$T/a.json")
if [ "$line" = "RTT us min/p50/p99/max $want" ]; then ok; else fail "$c: text '$line', JSON '$want'"; fi

# ---- 4. the memory cap ------------------------------------------------------------------
c=$T/pairs.pcap
"$BUILD/tools/bench_flow" mk1m $c 3520 --pairs 64 captures/lab/roce_rping.pcap >/dev/null || fail "bench_flow mk1m --pairs"
"$R" -r $c --json >"$T/full.json"
"$R" -r $c --json --rtt-memory 16 >"$T/cap.json"
ev=$(jq '.rtt_state.histograms_evicted' "$T/cap.json")
nulls=$(jq '[.flows[] | (.rtt_us, .read_rtt_us) | select(.n > 0 and .p50 == null)] | length' "$T/cap.json")
same=$(jq -s '[.[0].flows[] | (.rtt_us, .read_rtt_us) | [.n, .min, .max, .sum]] ==
	[.[1].flows[] | (.rtt_us, .read_rtt_us) | [.n, .min, .max, .sum]]' "$T/full.json" "$T/cap.json")
if [ "$ev" -ge 1 ] && [ "$nulls" = "$ev" ] && [ "$same" = true ]; then
	ok
else
	fail "$c --rtt-memory 16: histograms_evicted $ev, flows with null p50 $nulls, n/min/max/sum kept: $same"
fi
if "$R" -r $c | grep -q "RTT memory cap"; then
	fail "$c: the text summary reports a cap reached without --rtt-memory"
elif "$R" -r $c --rtt-memory 16 | grep -q "RTT memory cap (16 KiB) reached: 0 outstanding requests dropped unsampled, $ev histograms dropped"; then
	ok
else
	fail "$c --rtt-memory 16: the text summary does not say what the cap dropped"
fi
if "$R" -r $c --rtt-memory 1 >/dev/null 2>"$T/err" || ! grep -q "bad --rtt-memory" "$T/err"; then
	fail "--rtt-memory 1 accepted"
else
	ok
fi

echo "rtt: $oks passed, $fails failed ($samples RTT samples compared)"
[ "$fails" -eq 0 ]
