#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: timing
#
# tui.sh — rocetop's terminal view, driven in tmux: a replay of
# roce_send_bw_netem.pcap; keys sent with send-keys, the screen read with
# capture-pane.  Checks that the header's totals are the batch summary's,
# sorting, reversing, the filter, the detail view's counters (as the JSON
# summary's), help, resizing, and that the terminal comes back as it was
# (alternate screen off, same stty settings) after q, SIGTERM and a crash.
#
#   BUILD=build tests/tui.sh
#
# Skips (exit 0) when tmux is missing and cannot be installed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
R=$BUILD/bin/rocetop
CAP=$root/captures/lab/roce_send_bw_netem.pcap

[ -x "$R" ] || { echo "tui: $R not built" >&2; exit 2; }
if ! command -v tmux >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends tmux >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends tmux >/dev/null 2>&1; }
	fi
	command -v tmux >/dev/null 2>&1 || { echo "tui: skipped: tmux is not installed and could not be"; exit 0; }
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/tui.XXXXXX") || exit 2
SOCK=rocetop-tui-$$
S=tui
tm() { tmux -L "$SOCK" "$@"; }
cleanup() {
	tm kill-server 2>/dev/null
	rm -rf "$T" 2>/dev/null || { sleep 0.5; rm -rf "$T"; }
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fails=0 oks=0
ok() {
	echo "ok   $1"
	oks=$((oks + 1))
}
fail() {
	echo "FAIL $1"
	shift
	for l; do
		echo "     $l"
	done
	fails=$((fails + 1))
}

screen() { tm capture-pane -p -t "$S" >"$T/screen"; }
# wait_for REGEX [SECONDS]: until the screen matches (extended regex)
wait_for() {
	local i n=$(( ${2:-10} * 20 ))
	for ((i = 0; i < n; i++)); do
		screen
		grep -Eq -- "$1" "$T/screen" && return 0
		sleep 0.05
	done
	return 1
}
# check NAME REGEX: the screen matches within 5 s (keys take effect asynchronously:
# poll for the expected state rather than sleep a fixed time after each key)
check() {
	if wait_for "$2" 5; then
		ok "$1"
	else
		fail "$1" "screen lacks /$2/:" "$(sed 's/^/| /' "$T/screen" | head -n 30)"
	fi
}
keys() { tm send-keys -t "$S" "$@"; }
# wait_file FILE: until FILE exists and is not empty (up to 5 s)
wait_file() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
# widest: the longest line of the screen, in characters (the sort arrow is one)
widest() { LC_ALL=C sed 's/\xe2\x96[\xb2\xbc]/^/g' "$T/screen" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }
alt_on() { tm display-message -p -t "$S" '#{alternate_on}'; }
# restored NAME: back at the prompt, alternate screen off, stty as before
restored() {
	if wait_for '^DONE [0-9]+' 10 && [ "$(alt_on)" = 0 ]; then
		rm -f "$T/stty.after"
		tm send-keys -t "$S" 'stty -g > '"$T"'/stty.after' Enter
		if wait_file "$T/stty.after" && cmp -s "$T/stty.before" "$T/stty.after"; then
			ok "$1: terminal restored ($(grep -Eo '^DONE [0-9]+' "$T/screen" | tail -n 1), alternate screen off, stty as before)"
		else
			fail "$1: stty differs" "$(cat "$T/stty.before")" "$(cat "$T/stty.after" 2>/dev/null)"
		fi
	else
		fail "$1: terminal not restored (alternate_on=$(alt_on))" "$(sed 's/^/| /' "$T/screen" | tail -n 8)"
	fi
}

# the numbers the header must show: the batch summary's
"$R" -r "$CAP" --json | tail -n 1 >"$T/summary.json" || exit 2
# (one python3: its start-up costs seconds on a loaded machine)
read -r diag_active frames requests retx nak cnp ce flows f_pk f_retx f_dup f_oosr f_nak avg_cap avg_dur avg_snd avg_rcv hist_dur f_rtt \
	<<<"$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = d["totals"]
f = [f for f in d["flows"] if f["src"] == "10.99.0.2" and f["dst"] == "10.99.0.1" and f["destqp"] == 33][0]
def rs(b):
    u = ["b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s"]
    i = 0
    while b >= 999.5 and i < 4:
        b /= 1000
        i += 1
    return ("%.0f_%s" if i == 0 or b >= 99.95 else "%.1f_%s" if b >= 9.995 else "%.2f_%s") % (b, u[i])
def avg(f):
    return rs(f["bytes"] * 8 / (f["last_s"] - f["first_s"]))
rcv = [f for f in d["flows"] if f["src"] == "10.99.0.1"][0]
def rtt(r):
    # the RTT p50 cell: its unit, "=" before the only sample of a flow
    u, eq = r["p50"], "=" if r["n"] == 1 else ""
    return eq + ("%dus" % u if u < 1000 else "%.2fms" % (u / 1e3) if u < 10000 else
                 "%.1fms" % (u / 1e3) if u < 1000000 else "%.2fs" % (u / 1e6))
print(sum(1 for v in d["diagnosis"] if v["active"]), d["frames"], t["requests"], t["retransmissions"], t["nak_seq_err"], t["cnp"], d["fabric"]["ecn_ce"], d["flows_live"],
      f["packets"], f["retransmissions"], f["duplicate_request"], f["out_of_seq_request"], f["nak_seq_err"],
      rs(d["bytes"] * 8 / d["duration_s"]), "%.3f" % d["duration_s"], avg(f), avg(rcv),
      "%.3f" % (d["duration_s"] - f["first_s"]), rtt(f["rtt_us"]) if f["rtt_us"]["n"] else "-")
' "$T/summary.json")"
avg_cap=${avg_cap/_/ } avg_snd=${avg_snd/_/ } avg_rcv=${avg_rcv/_/ }

# a plain shell in a 160x48 window; rocetop is started from it
tm -f /dev/null new-session -d -s "$S" -x 160 -y 48 "env -i PATH=$PATH HOME=$T HISTFILE= TERM=screen LANG=C.UTF-8 TZ=UTC PS1='PROMPT\$ ' bash --norc --noprofile" || exit 2
tm set-option -g window-size manual >/dev/null 2>&1
wait_for 'PROMPT\$' 5 || { echo "tui: the shell did not start" >&2; exit 2; }
tm send-keys -t "$S" "stty -g > $T/stty.before; clear" Enter
wait_file "$T/stty.before" || { echo "tui: stty -g did not run" >&2; exit 2; }
run_rocetop() {
	tm send-keys -t "$S" "$R $*; echo DONE \$?" Enter
}

# ---- the header and the table ---------------------------------------------------------------
run_rocetop -r "$CAP"
if wait_for '\[end of capture\]' 20; then
	ok "replay at 1x ends: [end of capture] in the header; alternate screen $(alt_on)"
else
	fail "replay did not end" "$(sed 's/^/| /' "$T/screen" | head -n 12)"
fi
check "header: frames $frames, flows $flows (batch summary)" "^frames $frames .* flows $flows \("
check "header: retransmit ($retx of $requests requests) as the summary" "retransmit [0-9.]+% \($retx of $requests requests\)"
check "header: NAKs (seq $nak), CNPs $cnp, ECN CE ($ce) as the summary" "NAKs [0-9]+ \(seq $nak, .*CNPs $cnp  ECN CE [0-9.]+% \($ce\)"
check "header: diagnosis $diag_active active (the JSON summary's active verdicts)" "ICRC bad [0-9]+  diagnosis $diag_active active"
check "header: PFC by priority, drops, fabric mode" "PFC pauses by priority 0:0 1:0 2:0 3:0"
check "header: drops and fabric mode" "drops: none \(file\)"
check "header: fabric mode" "^fabric Zero Touch RoCE"
check "table: column headers" "SRC +DST +QPN +KIND +OPS +RATE all.*PACKETS +RETX +OOS +NAK +RNR +CNP +ECN +RTT p50"
check "header: average rate over the capture ($avg_cap over $avg_dur s, as the JSON summary)" \
	"^frames $frames .* avg $avg_cap over $avg_dur s "
check "table: AVG of the sending flow over its life ($avg_snd)" "^10\.99\.0\.2 +10\.99\.0\.1 .* $avg_snd +$f_pk "
check "table: AVG of the other direction ($avg_rcv)" "^10\.99\.0\.1 +10\.99\.0\.2 .* $avg_rcv +[0-9]+ "
check "table: RTT p50 of the sending flow with its unit ($f_rtt: '=' when its one sample, JSON rtt_us)" \
	"^10\.99\.0\.2 +10\.99\.0\.1 .* $f_rtt\$"
check "header: the sort line names the column as its heading does (RATE all)" "sort RATE all \(high first\)"
check "table: the sending flow with its counters" "^10\.99\.0\.2 +10\.99\.0\.1 +0x000021 +RC +S--- .* $f_pk +$f_retx +[0-9]+ +$f_nak +0 +0 +0 "

# ---- sorting ----------------------------------------------------------------------------------
keys '>' '>'
check "> >: sort by PACKETS, high first" "sort PACKETS \(high first\)"
first=$(grep -A1 '^SRC ' "$T/screen" | tail -n 1)
keys r
check "r: reversed (low first)" "sort PACKETS \(low first\)"
first_r=$(grep -A1 '^SRC ' "$T/screen" | tail -n 1)
if [[ $first == *" $f_pk "* ]] && [[ $first_r != *" $f_pk "* ]]; then
	ok "r: the largest flow first, then last"
else
	fail "r: row order" "before: $first" "after:  $first_r"
fi
keys '<'
check "<: sort by the column to the left (AVG)" "sort AVG \(high first\)"
keys s s s
check "s: next columns (OOS)" "sort OOS \(high first\)"

# ---- filter ----------------------------------------------------------------------------------
keys / s e n d
check "/: the prompt shows what is typed" "^filter: send"
keys Enter
check "filter 'send' (an operation): 1 of 2 flows" 'filter "send": 1 of 2 flows'
if grep -q '^10\.99\.0\.2 \+10\.99\.0\.1 ' "$T/screen" && ! grep -q '^10\.99\.0\.1 \+10\.99\.0\.2 ' "$T/screen"; then
	ok "filter 'send': the sending flow is listed, the other is not"
else
	fail "filter 'send' rows" "$(sed 's/^/| /' "$T/screen" | head -n 12)"
fi
keys / C-u 0 x 0 0 0 0 2 1 Enter
check "filter by QPN 0x000021: both flows" 'filter "0x000021": 2 of 2 flows'
keys / C-u 3 3 Enter
check "filter by QPN in decimal (33): both flows" 'filter "33": 2 of 2 flows'
keys / C-u 1 0 . 9 9 . 0 . 7 Enter
check "filter matching nothing says so" "no flow matches the filter"
keys / C-u s e n d Enter

# ---- detail ----------------------------------------------------------------------------------
keys Enter
check "Enter: the connection's detail" "^Connection 10\.99\.0\.2 <-> 10\.99\.0\.1 +RC v2 +paired by traffic"
check "detail: both directions" "10\.99\.0\.2 -> 10\.99\.0\.1 +10\.99\.0\.1 -> 10\.99\.0\.2"
check "detail: packets $f_pk" "^  packets +$f_pk "
check "detail: retransmissions $f_retx (as the JSON summary)" "^  retransmissions +$f_retx "
check "detail: duplicate_request $f_dup" "^  duplicate_request +$f_dup "
check "detail: out_of_seq_request $f_oosr" "^  out_of_seq_request +$f_oosr "
check "detail: nak_seq_err $f_nak" "^  nak_seq_err +$f_nak "
check "detail: average rate over the flow's life ($avg_snd, as the table)" "^  average rate \(first to last\) +$avg_snd over "
check "detail: PSN state" "A->B: last ACKed 0x[0-9a-f]{6} +expected 0x[0-9a-f]{6}"
check "detail: rate sparkline" "A->B rate +\|.+\| max "
check "detail: retransmission sparkline" "A->B retx +\|.+\| max "
check "detail: PSN timeline with the NAK second" "A->B PSNs +\|[^|]*N[^|]*\|"
# the history's step fits the capture (replay: HIST samples hold all of it), not one column a second
if wait_for "A->B retx +\|[^|]*\| max [1-9][0-9]*/s" 5; then
	ok "detail: retransmission sparkline with a maximum ($(grep -Eo 'A->B retx .*' "$T/screen" | grep -Eo 'max [0-9]+/s'))"
else
	fail "detail: retransmission sparkline without retransmissions" "$(grep -E 'retx|History' "$T/screen")"
fi
step=$(grep -Eo '^History, one column per [0-9]+ ms' "$T/screen" | grep -Eo '[0-9]+')
tl=$(grep -E '^  A->B PSNs +\|' "$T/screen" | sed 's/^[^|]*|//; s/|.*//')
# the connection's history: from its first frame to the end of the capture ($hist_dur s)
if [ -n "$step" ] && awk -v n="${#tl}" -v s="$step" -v d="$hist_dur" \
	'BEGIN { d *= 1000; exit !(n >= 20 && n * s + s >= d && n * s <= 2 * d + 2 * s) }'; then
	ok "detail: history of ${#tl} columns of $step ms for the connection's $hist_dur s of the capture"
else
	fail "detail: history step ${step:-?} ms x ${#tl} columns does not fit the connection's $hist_dur s" \
		"$(grep -E 'History|PSNs +\|' "$T/screen")"
fi
if [[ $tl == *R*R* ]] && [[ $tl == *N* ]]; then
	ok "detail: the PSN timeline marks retransmissions (R) and NAKs (N) in several columns"
else
	fail "detail: PSN timeline" "$tl"
fi
keys End
# recent events: the flow's retransmissions, per step, newest first, no more than it has
if wait_for '^  [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}  A->B  retransmissions \+[0-9]+' 5; then
	read -r ev_n ev_sum < <(grep -Eo 'A->B  retransmissions \+[0-9]+' "$T/screen" | grep -Eo '[0-9]+$' |
		awk '{ n++; s += $1 } END { print n + 0, s + 0 }')
	if [ "$ev_n" -ge 2 ] && [ "$ev_sum" -le "$f_retx" ] && ! grep -q '(none since' "$T/screen"; then
		ok "detail, End: recent events list $ev_n retransmission steps (+$ev_sum of the flow's $f_retx)"
	else
		fail "detail, End: recent events ($ev_n lines, +$ev_sum of $f_retx)" "$(sed -n '/^Recent events/,$p' "$T/screen")"
	fi
else
	fail "detail, End: no retransmission event" "$(sed 's/^/| /' "$T/screen" | tail -n 30)"
fi
check "detail, End: nak_seq_err events" "A->B +nak_seq_err \+[0-9]+"
keys Escape
check "Esc: back to the table" "^SRC +DST +QPN"

# ---- help, resize, pause ----------------------------------------------------------------------
keys '?'
check "?: help with the keys" "^ +Keys"
check "help: the columns" "RTT p50 +median request->ACK RTT"
keys x
check "any key leaves the help" "^SRC +DST +QPN"
keys h
check "h: help too" "^ +Keys"
keys x
tm resize-window -t "$S" -x 100 -y 30 >/dev/null 2>&1
# at 100 columns KIND is given up: the table has been redrawn at the new size
wait_for '^SRC +DST +QPN +RATE' 5
if [ "$(tm display-message -p -t "$S" '#{window_width}')" = 100 ] && grep -q '^rocetop ' "$T/screen" &&
	grep -q '^SRC ' "$T/screen" && [ "$(widest)" -le 100 ]; then
	ok "resize to 100x30: redrawn to the new size"
else
	fail "resize" "$(sed 's/^/| /' "$T/screen" | head -n 10)"
fi
tm resize-window -t "$S" -x 80 -y 24 >/dev/null 2>&1
check "80 columns: the anomaly columns stay (addresses narrowed, other columns given up)" \
	"^SRC +DST +QPN +RATE (2s|all)[^ ]* +RETX[^ ]* +OOS[^ ]* +NAK[^ ]* +RNR[^ ]* +CNP[^ ]* +ECN[^ ]* *$"
check "80 columns: the sending flow's anomalies" "^10\.99\.0\.2 +10\.99\.0\.1 +0x000021 .* $f_retx +[0-9]+ +$f_nak +0 +0 +0 *$"
if [ "$(widest)" -le 80 ]; then
	ok "80 columns: no line wider than the terminal"
else
	fail "80 columns: lines too wide" "$(sed 's/^/| /' "$T/screen" | head -n 10)"
fi
# the title keeps its state at 80 columns: the capture's name shrinks (its end kept), the clock goes
check "80 columns: the title keeps [end of capture], the name's end" \
	"^rocetop [^ ]+  replay [^ ]*netem\.pcap at 1x \[end of capture\] *$"
# help at 80x24: it scrolls between the header and its own bottom line, which overwrites nothing
keys h
check "80x24 help: the keys, and where the view is on the bottom line" "^lines 1-[0-9]+ of [0-9]+  Up/Down"
help_ok=1 help_seen=$T/help.seen
: >"$help_seen"
for ((pg = 0; pg < 12; pg++)); do
	screen
	foot=$(tail -n 1 "$T/screen")
	if ! [[ $foot =~ ^lines\ ([0-9]+)-([0-9]+)\ of\ ([0-9]+) ]]; then
		help_ok=0; fail "80x24 help: bottom line" "$foot"; break
	fi
	a=${BASH_REMATCH[1]} b=${BASH_REMATCH[2]} all=${BASH_REMATCH[3]}
	# the rows between the header (ending with the fabric line) and the bottom line are the help's
	shown=$(awk '/^fabric /{ on = 1; next } on' "$T/screen" | sed '$d' | wc -l)
	if [ "$shown" != $((b - a + 1)) ] || [ "$(widest)" -gt 80 ]; then
		help_ok=0
		fail "80x24 help: lines $a-$b of $all but $shown rows shown, or wider than 80 ($(widest))" \
			"$(sed 's/^/| /' "$T/screen")"
		break
	fi
	awk '/^fabric /{ on = 1; next } on' "$T/screen" | sed '$d' >>"$help_seen"
	[ "$b" = "$all" ] && break
	keys NPage
	# until the bottom line says the view moved on, with no line skipped
	for ((i = 0; i < 100; i++)); do
		screen
		[[ $(tail -n 1 "$T/screen") =~ ^lines\ ([0-9]+)- ]] && [ "${BASH_REMATCH[1]}" -gt "$a" ] && break
		sleep 0.05
	done
	if ! [[ $(tail -n 1 "$T/screen") =~ ^lines\ ([0-9]+)- ]] || [ "${BASH_REMATCH[1]}" -le "$a" ] ||
		[ "${BASH_REMATCH[1]}" -gt $((b + 1)) ]; then
		help_ok=0; fail "80x24 help: PgDn from lines $a-$b" "$(tail -n 1 "$T/screen")"; break
	fi
done
missing=""
for c in SRC DST QPN KIND OPS 'RATE 2s' AVG PACKETS RETX OOS NAK RNR CNP ECN 'RTT p50'; do
	grep -q "^   $c  " "$help_seen" || missing="$missing $c"
done
for k in '^ Keys' '^   v  ' '^   q  ' '^ Colours' 'counts)\.$'; do
	grep -Eq -- "$k" "$help_seen" || missing="$missing /$k/"
done
if [ "$help_ok" = 1 ] && [ -z "$missing" ]; then
	ok "80x24 help: PgDn through all of it ($all lines), every key and column on screen, none cut or overwritten"
else
	[ -z "$missing" ] || fail "80x24 help: never shown:$missing" "$(sed 's/^/| /' "$help_seen")"
fi
keys Home
check "80x24 help, Home: back at the top" "^lines 1-"
keys x
check "80x24: any other key leaves the help" "^SRC +DST +QPN"
tm resize-window -t "$S" -x 160 -y 48 >/dev/null 2>&1
keys p
check "p: paused" "\[PAUSED\]"
keys p
keys q
restored "q"

# ---- replay speed: + and - step geometrically -----------------------------------------------------
tm send-keys -t "$S" clear Enter
run_rocetop -r "$CAP" --speed 0.002
if wait_for 'replay .* at 0\.002x' 10; then
	keys +
	check "+ from --speed 0.002: 0.004x (not as fast as possible)" "replay .* at 0\.004x"
	keys - - -
	check "- - - from 0.004x: 0.001x, not below 1/1024" "replay .* at 0\.001x"
	keys = = = = = = = = = = = = = = = = = = = = =
	check "+ past 1024x: as fast as possible" "replay .* as fast as possible"
else
	fail "--speed 0.002: header" "$(sed 's/^/| /' "$T/screen" | head -n 3)"
fi
keys q
restored "q after speed changes"

# ---- a terminal without an alternate screen, grown, then q: nothing of the view left ----------
tm send-keys -t "$S" clear Enter
tm resize-window -t "$S" -x 100 -y 30 >/dev/null 2>&1
tm send-keys -t "$S" "TERM=vt100 $R -r $CAP --speed 0; echo DONE \$?" Enter
if wait_for '^SRC ' 10; then
	tm resize-window -t "$S" -x 160 -y 48 >/dev/null 2>&1
	wait_for '^SRC .* KIND ' 5
	keys q
	if wait_for '^DONE 0' 10 && ! grep -Eq '^(SRC|frames|fabric|10\.99) ' "$T/screen"; then
		ok "vt100 (no alternate screen), grown to 160x48, q: the screen is cleared"
	else
		fail "vt100 grown: rows left after q" "$(sed 's/^/| /' "$T/screen" | head -n 12)"
	fi
else
	fail "vt100: rocetop did not start" "$(sed 's/^/| /' "$T/screen" | head -n 5)"
	tm resize-window -t "$S" -x 160 -y 48 >/dev/null 2>&1
fi

# ---- iWARP detail: the TCP stream's history, no PSNs ------------------------------------------------
tm send-keys -t "$S" clear Enter
run_rocetop -r "$root/captures/lab/iwarp_crc_p2p_write_bw_rdmacm.pcap" --speed 0
if wait_for '\[end of capture\]' 10; then
	keys Enter
	check "iWARP detail: TCP stream timeline" "^  A->B stream +\|[^|]*\| next TCP seq [0-9]+, [0-9]+ FPDUs"
	if grep -q 'PSN' "$T/screen"; then
		fail "iWARP detail: no PSN timeline or state" "$(grep -n PSN "$T/screen")"
	else
		ok "iWARP detail: no PSN timeline or state"
	fi
else
	fail "iWARP replay did not end" "$(sed 's/^/| /' "$T/screen" | head -n 5)"
fi
keys q
restored "q after the iWARP detail"

# ---- a replay with a long silence: the step grows to fit it, both bursts stay in the history -------
if command -v editcap >/dev/null 2>&1 && command -v mergecap >/dev/null 2>&1 &&
	editcap -t 100 "$CAP" "$T/late.pcap" >/dev/null 2>&1 && mergecap -w "$T/long.pcap" "$CAP" "$T/late.pcap" 2>/dev/null; then
	tm send-keys -t "$S" clear Enter
	run_rocetop -r "$T/long.pcap" --speed 0
	if wait_for '\[end of capture\]' 10; then
		keys / s e n d Enter Enter
		if wait_for '^History, one column per [0-9.]+ s ' 5; then
			step=$(grep -Eo '^History, one column per [0-9.]+ s' "$T/screen" | grep -Eo '[0-9.]+')
			tl=$(grep -E '^  A->B PSNs +\|' "$T/screen" | sed 's/^[^|]*|//; s/|.*//')
			# the connection spans 100 s + the rest of the capture after its first frame
			if awk -v n="${#tl}" -v s="$step" -v d="$hist_dur" 'BEGIN { d += 100; exit !(n * s + s >= d && n * s <= 2 * d + 2 * s) }' &&
				[[ ${tl:0:1} != . ]] && [[ ${tl: -2:1} != . ]]; then
				ok "100 s replay: ${#tl} columns of $step s, the first burst on the left, the second on the right"
			else
				fail "100 s replay: step $step s x ${#tl} columns" "$(grep -E 'History|PSNs +\|' "$T/screen")"
			fi
		else
			fail "100 s replay: history heading" "$(sed 's/^/| /' "$T/screen" | head -n 30)"
		fi
	else
		fail "100 s replay did not end" "$(sed 's/^/| /' "$T/screen" | head -n 5)"
	fi
	keys q
	restored "q after the 100 s replay"
else
	echo "skip 100 s replay: no editcap or mergecap"
fi

# ---- the diagnosis screen (v) on a capture built to raise timeout_mismatch (tools/mkdiag) -------------
MK=$BUILD/tools/mkdiag
if [ -x "$MK" ] && "$MK" "$T/diag" >/dev/null 2>&1 &&
	"$R" -r "$T/diag/timeout_mismatch.pcap" --json | tail -n 1 >"$T/diag.json"; then
	# the verdict as the JSON summary gives it: name, severity, subject, frames, evidence
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["diagnosis"]
v = [x for x in d if x["verdict"] == "timeout_mismatch"][0]
def ev(x):
    return "[" + ",".join("%.15g" % i for i in x) + "]" if isinstance(x, list) else "%.15g" % x
print(len([x for x in d if x["active"]]))
print(v["severity"]); print(v["subject"]); print("%d-%d" % (v["first_frame"], v["last_frame"]))
for k, x in v["evidence"].items():
    print("%s=%s" % (k, ev(x)))
' "$T/diag.json" >"$T/diag.want"
	{ read -r d_active; read -r d_sev; read -r d_subj; read -r d_frames; } <"$T/diag.want"
	d_re=$(printf '%s' "$d_subj" | sed 's/[].*^$()+?{}|\\[]/\\&/g')
	tm send-keys -t "$S" clear Enter
	run_rocetop -r "$T/diag/timeout_mismatch.pcap" --speed 0
	if wait_for '\[end of capture\]' 10; then
		check "diagnosis: header counts $d_active active verdict(s) (the JSON summary's)" "diagnosis $d_active active"
		if tail -n 1 "$T/screen" | grep -q ' v diagnosis '; then
			ok "diagnosis: the footer names the key v"
		else
			fail "diagnosis: footer without v" "$(tail -n 1 "$T/screen")"
		fi
		keys v
		check "v: the diagnosis screen" "^Diagnosis: $d_active active, 0 past"
		check "diagnosis: timeout_mismatch listed with its severity, subject and frames ($d_frames)" \
			"^$d_sev +timeout_mismatch +$d_re +$d_frames +active"
		ev_missing=""
		while read -r kv; do
			grep -qF -- "    $kv" "$T/screen" || ev_missing="$ev_missing $kv"
		done < <(tail -n +5 "$T/diag.want")
		if [ -z "$ev_missing" ] && [ "$(tail -n +5 "$T/diag.want" | wc -l)" -ge 2 ]; then
			ok "diagnosis: the selected verdict's evidence ($(tail -n +5 "$T/diag.want" | tr '\n' ' '))"
		else
			fail "diagnosis: evidence missing:$ev_missing" "$(sed 's/^/| /' "$T/screen" | sed -n '8,24p')"
		fi
		tm resize-window -t "$S" -x 80 -y 24 >/dev/null 2>&1
		if wait_for "^warning +timeout_mismatch .* active *\$" 5 && grep -qF -- "    $(tail -n 1 "$T/diag.want")" "$T/screen" &&
			[ "$(widest)" -le 80 ]; then
			ok "diagnosis at 80x24: the row whole, the evidence down to its last key, no line wider than 80"
		else
			fail "diagnosis at 80x24" "$(sed 's/^/| /' "$T/screen")"
		fi
		tm resize-window -t "$S" -x 160 -y 48 >/dev/null 2>&1
		wait_for '^SEVERITY VERDICT +SUBJECT {20,}' 5
		keys Enter
		check "diagnosis, Enter: the verdict's connection" "^Connection 10\.0\.0\.1 <-> 10\.0\.0\.2 "
		check "detail: the connection's verdict under its title" "^  diagnosis: timeout_mismatch \($d_sev, active, frames $d_frames\): "
		keys Escape
		check "detail, Esc: back to the diagnosis" "^Diagnosis: $d_active active"
		keys v
		check "v again: back to the table" "^SRC +DST +QPN"
	else
		fail "diagnosis: replay did not end" "$(sed 's/^/| /' "$T/screen" | head -n 5)"
	fi
	keys q
	restored "q after the diagnosis screen"
else
	fail "diagnosis: $MK did not make the fixture, or rocetop --json failed on it"
fi

# ---- replay progress on a terminal, by elapsed time ----------------------------------------------
tm send-keys -t "$S" clear Enter
tm send-keys -t "$S" "$R -r $CAP -b --speed 0.25 >/dev/null; echo DONE \$?" Enter
if wait_for 'rocetop: +[0-9]+% of .*roce_send_bw_netem\.pcap, [0-9]+ frames' 5; then
	ok "progress: $(grep -Eo 'rocetop: +[0-9]+% of [^,]*, [0-9]+ frames' "$T/screen" | sed 's|/.*/||' | tail -n 1) (a 2 s replay, 2193 frames)"
else
	fail "progress: not shown within 5 s of a 2 s replay" "$(sed 's/^/| /' "$T/screen" | head -n 5)"
fi
if wait_for '^DONE 0' 10 && ! grep -Eq 'rocetop: +[0-9]+% of' "$T/screen"; then
	ok "progress: erased at the end"
else
	fail "progress: left on the screen" "$(sed 's/^/| /' "$T/screen" | head -n 5)"
fi

# ---- the device screen's PFC table (a replayed recording: mlx5 and bnxt_en names) -------------
FXR=$root/tests/fixtures/device/replay
tm send-keys -t "$S" clear Enter
run_rocetop --device-replay "$FXR" --device all -d 1.5
check "device screen: the PFC table's header" "^  PFC NETDEV +PRIO +RX-PAUSE +RX/s +RX-us +RX-XON +TX-PAUSE +TX/s +TX-us +TX-XON"
check "PFC table: eth0 (mlx5 names) priority 3 paused by the peer: rx 52 moving, tx 7, no duration counted" \
	"^  eth0 +3 +52 +[0-9]+\.[0-9] +- +- +7 +0\.0 +- +-  paused"
check "PFC table: ens1f0np0 (bnxt_en names) priority 3: rx 950, rx 4700 us, tx 11" \
	"^  ens1f0np0 +3 +950 +[0-9.]+ +4700 +- +11 +[0-9.]+ +[0-9-]+ +-"
check "PFC table: ens1f0np0 802.3x row, rx 2" "^  ens1f0np0 +802\.3x +2 "
screen
if ! grep -q '^  pfc ' "$T/screen"; then
	ok "PFC table: the text view's pfc lines are not repeated above it"
else
	fail "PFC table: pfc text lines shown too" "$(grep '^  pfc ' "$T/screen")"
fi
keys q
restored "device screen (PFC table): q"

# ---- signals and crashes ----------------------------------------------------------------------
for sig in TERM INT SEGV ABRT; do
	tm send-keys -t "$S" clear Enter
	run_rocetop -r "$CAP"
	if ! wait_for '\[end of capture\]' 20; then
		fail "SIG$sig: rocetop did not start"
		continue
	fi
	# rocetop is the child of this pane's shell
	pid=$(pgrep -P "$(tm display-message -p -t "$S" '#{pane_pid}')" -x rocetop)
	if [ -z "$pid" ]; then
		fail "SIG$sig: no pid"
		continue
	fi
	kill -s "$sig" "$pid"
	restored "SIG$sig"
done
tm send-keys -t "$S" clear Enter
run_rocetop -r "$CAP"
wait_for '\[end of capture\]' 20 && tm send-keys -t "$S" C-c
restored "Ctrl-C"

echo "tui: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
