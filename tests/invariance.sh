#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# invariance.sh — a capture re-encapsulated by `rocegen convert` is analysed
# as the original:
#
#   BUILD=build tests/invariance.sh   (INVARIANCE_ALL=1: every RoCE lab capture;
#                                      INVARIANCE_CAPS="a.pcap b.pcap": those)
#
#   1. each lab capture below, converted to ERSPAN II, ERSPAN III, GRE-TEB,
#      VXLAN, ERF (Ethernet), native InfiniBand (LINKTYPE_INFINIBAND) and
#      IB with GRH in ERF, gives the same RC/UC/UD transport figures in
#      rocetop's JSON summary (totals, and per flow: packets, requests,
#      responses, messages, duplicates, out-of-sequence, retransmissions and
#      their episodes, gaps, ACKs, NAKs, RNR NAKs, RTT n/min/max/p50/p99,
#      scheme); every copy is a mirror copy, every RoCE frame an IB packet;
#   2. cut to 128 bytes (--snaplen 128 plain, native IB and IB in ERF;
#      ERSPAN III --mirror-trunc 128), the same figures with ICRC never bad
#      and unchecked on exactly the packets whose ICRC ends after byte 128
#      (captures with a deliberately bad ICRC are left out here: cut, that
#      frame can no longer be told bad and counts as a request);
#   0. rocegen frames and flood write each format (link type, LRH, ICRC,
#      VCRC, mirror headers, ERF records, snap length), and the options
#      that do not go together are refused;
#   4. CM on native IB: the lab captures with CM MADs (rping, ucmatose, two
#      perftest connections over rdma_cm, udaddy's SIDR), converted to IB
#      (LID-routed, and with GRH in ERF), give the original's CM MAD count,
#      connections (paired by CM / by traffic / unpaired) and per flow the
#      QP pairs, how each was paired, the ULP and the path MTU the CM named;
#   3. tshark reads what rocegen wrote field by field as rocetop does
#      (tests/difftest.py on ERSPAN II/III, GRE-TEB, VXLAN, ERF Ethernet,
#      and IB in ERF with and without GRH made from two lab captures; IB
#      CNPs and FECN marks from captures/analysis/cnp_ecn.pcap).
#
# iWARP captures are not converted (native IB cannot carry them; the mirrors
# are covered by tests/encap.sh).
# (summary()/read_summary() set PREFIX_* variables by eval)
# shellcheck disable=SC2034,SC2154
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
R=$BUILD/bin/rocetop
G=$BUILD/bin/rocegen
LAB=$root/captures/lab
TSHARK=${TSHARK:-tshark}
CUT=128
if [ "${INVARIANCE_ALL:-0}" = 1 ]; then
	CAPS=$(cd "$LAB" && ls roce_*.pcap)
elif [ -n "${INVARIANCE_CAPS:-}" ]; then
	CAPS=$INVARIANCE_CAPS
else
	# RNR, NAKs and duplicates; READ and ATOMIC loss; 4096-byte MTU; IPv6
	# GIDs; CM MADs (UD); a bad ICRC.  (Measured: every process is most of
	# the cost under ASan, so a few captures; INVARIANCE_ALL=1 runs all.)
	CAPS="roce_netem_send_rnr.pcap roce_netem_read_loss_req.pcap roce_netem_atomic_loss_req.pcap
	      roce_send_bw_netem_mtu9000.pcap roce_rc_pingpong_ipv6gid.pcap roce_ucmatose.pcap
	      roce_host_inject.pcap"
fi
ENCAPS="erspan2:--erspan 2
erspan3:--erspan 3
gre-teb:--gre-teb
vxlan:--vxlan 4242
erf:--erf
ib:--ib
ib-grh-erf:--ib-grh --erf"
CUTS="snaplen:--snaplen $CUT
ib-snaplen:--ib --snaplen $CUT
ib-erf-snaplen:--ib --erf --snaplen $CUT
erspan3-mirror-trunc:--erspan 3 --mirror-trunc $CUT"

for x in "$R" "$G"; do
	if [ ! -x "$x" ]; then
		echo "invariance: $x not built" >&2
		exit 2
	fi
done
T=$(mktemp -d "${TMPDIR:-/tmp}/invariance.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM

fails=0 oks=0 pairs=0
OIFS=$IFS
NL='
'
ok() { echo "ok   $1"; oks=$((oks + 1)); }
fail() { echo "FAIL $1"; shift; for l; do echo "     $l"; done; fails=$((fails + 1)); }

# The transport figures held equal (flows without their addresses: native IB
# names hosts by LID), sorted as a whole so equal flows cannot swap places.
RC='{t: .totals, f: [.flows[] | select(.kind == "RC" or .kind == "UC" or .kind == "UD") |
    {kind, destqp, peer_destqp, packets, requests, responses, messages, duplicate_request,
     out_of_sequence, out_of_seq_request, retransmissions, retransmission_episodes, psn_gaps,
     missing_psns, acks, dup_acks, nak_seq_err, rnr_nak, rtt: .rtt_us, read_rtt: .read_rtt_us,
     scheme}] | sort}'
CMF='{cm_mads, connections, f: [.flows[] | {kind, destqp, peer_destqp, paired, ulp, pmtu, pmtu_source, requests}] | sort}'

# convert IN OUT ARGS...: rocegen convert, its complaint on failure.
# Its output is byte-for-byte the same under every build, so the job's
# first run keeps each copy in TEST_SHARED (tests/run.sh) and the other
# build's run takes it from there -- but for the first copy of each kind of
# conversion (ARGS) in a run, made again by this build's rocegen and
# compared with the kept one: every build still runs every converter once.
SH=${TEST_SHARED:-$T}/invariance
mkdir -p "$SH" || exit 2
convert() {
	i=$1 o=$2
	shift 2
	key=$(printf '%s' "$i.$*" | tr -c 'A-Za-z0-9_.-' _)
	kind=$(printf '%s' "$*" | tr -c 'A-Za-z0-9_.-' _)
	if [ -s "$SH/$key" ] && [ -e "$T/made.$kind" ]; then
		cp "$SH/$key" "$o" && : >"$T/err"
		return
	fi
	"$G" convert -r "$i" -w "$o" "$@" 2>"$T/err"
	case $(cat "$T/err") in
	'' | *"left out (--ib carries RoCE frames only)") ;;
	*) return 1 ;;
	esac
	: >"$T/made.$kind"
	if [ -s "$SH/$key" ]; then
		cmp -s "$SH/$key" "$o" || { echo "rocegen convert $* of $i under $BUILD differs from the copy another build made" >"$T/err"; return 1; }
	else
		cp "$o" "$SH/$key"
	fi
}
# summary FILE OUT: rocetop's last JSON line, in OUT (sorted, one line each):
# the transport figures (RC below), them without the ICRC verdicts, the CM
# figures (CMF below), and "ib_frames mirror_copies frames icrc.bad
# icrc.unchecked cm_mads RoCE-frames RC/UC/UD-packets connections.paired
# connections.cm" -- one jq for them all
summary() {
	TZ=UTC "$R" -r "$1" --json | jq -n -r -c -S "last(inputs) | ($RC) as \$rc | \$rc, (\$rc | del(.t.icrc_bad)), ($CMF),
		\"\(.ib_frames) \(.mirror_copies) \(.frames) \(.icrc.bad) \(.icrc.unchecked) \(.cm_mads) \(.roce.v1 + .roce.v2 + .roce.v2_1021 + .roce.v2_port) \([\$rc.f[] | .packets] | add // 0) \(.connections.paired) \(.connections.cm)\"" >"$2"
}
# read_summary OUT PREFIX: PREFIX_rc, PREFIX_rc2, PREFIX_cm and the figures
# PREFIX_ib PREFIX_copies PREFIX_frames PREFIX_icrc_bad PREFIX_unchecked
# PREFIX_cm_mads PREFIX_roce PREFIX_packets PREFIX_paired PREFIX_by_cm (empty when OUT is)
read_summary() {
	{ read -r rc; read -r rc2; read -r cm; read -r v1 v2 v3 v4 v5 v6 v7 v8 v9 v10; } <"$1"
	eval "$2_rc=\$rc $2_rc2=\$rc2 $2_cm=\$cm $2_ib=\${v1:-} $2_copies=\${v2:-} $2_frames=\${v3:-}
		$2_icrc_bad=\${v4:-} $2_unchecked=\${v5:-} $2_cm_mads=\${v6:-} $2_roce=\${v7:-} $2_packets=\${v8:-}
		$2_paired=\${v9:-} $2_by_cm=\${v10:-}"
	rc='' rc2='' cm='' v1='' v2='' v3='' v4='' v5='' v6='' v7='' v8='' v9='' v10=''
}
# RoCE/IB packets of FILE whose ICRC ends after CUT bytes (frame length - $2 > CUT:
# IB's VCRC follows the ICRC)
longer() { TZ=UTC "$R" -r "$1" --packets --json | jq -s "[.[] | select(.\"roce.version\" != null and .\"frame.len\" - $2 > $CUT)] | length"; }
# differ A B: the first lines of the difference between two JSON one-liners
differ() {
	printf '%s\n' "$1" | jq -S . >"$T/da" 2>&1
	printf '%s\n' "$2" | jq -S . >"$T/db" 2>&1
	diff "$T/da" "$T/db" | head -6 | tr '\n' '|'
}
# one_encap CAP NAME ARGS: the copy gives the same figures as the original
one_encap() {
	c=$1 name=$2
	shift 2
	# shellcheck disable=SC2086
	if ! convert "$LAB/$c" "$T/enc.pcap" "$@"; then
		fail "$c as $name: rocegen convert failed" "$(cat "$T/err")"
		return
	fi
	summary "$T/enc.pcap" "$T/enc.json"
	read_summary "$T/enc.json" enc
	pairs=$((pairs + 1))
	# (the plain --ib copy is kept: the cuts below count its long packets)
	[ "$name" = ib ] && cp "$T/enc.pcap" "$T/whole.pcap"
	case $name in
	ib*) extra="$enc_ib IB packets" want="$orig_roce IB packets" ;;
	erspan* | gre* | vxlan*) extra="$enc_copies copies" want="$orig_frames copies" ;;
	*) extra="$enc_frames frames" want="$orig_frames frames" ;;
	esac
	if [ -n "$orig_rc" ] && [ "$orig_rc" = "$enc_rc" ] && [ "$extra" = "$want" ]; then
		ok "$c as $name: same transport figures, $extra"
	else
		fail "$c as $name: differs ($extra, want $want)" "$(differ "$orig_rc" "$enc_rc")"
	fi
}

# one_cut CAP NAME ARGS: cut copies give the same figures, ICRC never bad
one_cut() {
	c=$1 name=$2
	shift 2
	case $name in
	ib*) big=$big_ib ;;
	*) big=$big_eth ;;
	esac
	if ! convert "$LAB/$c" "$T/cut.pcap" "$@"; then
		fail "$c $name: rocegen convert failed" "$(cat "$T/err")"
		return
	fi
	summary "$T/cut.pcap" "$T/cut.json"
	read_summary "$T/cut.json" cut
	pairs=$((pairs + 1))
	got="$cut_icrc_bad $cut_unchecked"
	if [ -n "$orig_rc2" ] && [ "$cut_rc2" = "$orig_rc2" ] && [ "$got" = "0 $big" ]; then
		if [ "$big" = 0 ]; then
			ok "$c $name: same transport figures (no ICRC beyond byte $CUT)"
		else
			ok "$c $name: same transport figures, ICRC unchecked on the $big cut before it, never bad"
		fi
	else
		fail "$c $name: ICRC bad/unchecked $got (want 0 $big)" "$(differ "$orig_rc2" "$cut_rc2")"
	fi
}

# ---- 0. frames and flood ----------------------------------------------------------
linktype() { od -An -tu4 -j20 -N4 "$1" | tr -d ' '; }
# made NAME FILE WANT_LINKTYPE JQ WANT: rocegen wrote FILE; JQ over rocetop's packet list gives WANT
made() {
	got=$(TZ=UTC "$R" -r "$2" --packets --json | jq -rs "$4" 2>&1)
	if [ "$(linktype "$2")" = "$3" ] && [ "$got" = "$5" ]; then
		ok "$1: link type $3, $(echo "$got" | tr '\n' ' ')"
	else
		fail "$1" "link type $(linktype "$2"), want $3; got '$got', want '$5'"
	fi
}
# jq over the packet list: ICRC/VCRC verdicts, and LRH fields
V='([.[] | "\(."roce.icrc.status")/\(."roce.vcrc.status")"] | unique | join(","))'
LRH='([.[] | "\(."infiniband.lrh.lnh") \(."infiniband.lrh.sl") \(."infiniband.lrh.slid")>\(."infiniband.lrh.dlid") \(."infiniband.bth.psn")"] | join(","))'
"$G" frames rc-send-only --count 3 --payload-size 100 --ib --sl 5 -w "$T/f.pcap"
made "frames --ib" "$T/f.pcap" 247 "$LRH, $V" "2 5 1>2 0,2 5 1>2 1,2 5 1>2 2
good/good"
"$G" frames rc-write-only --payload-size 33 --bad-icrc --ib-grh --slid 7 --dlid 9 --erf -w "$T/f.pcap"
made "frames --ib-grh --erf --bad-icrc" "$T/f.pcap" 197 "([.[] | .\"erf.types.type\"] | join(\",\")), $LRH, $V" \
	"21
3 0 7>9 0
bad/good"
for m in "--erspan 2:erspan.version:1" "--erspan 3:erspan.version:2" "--gre-teb:gre.proto:25944" "--vxlan 77:vxlan.vni:77"; do
	opt=${m%%:*} m=${m#*:}
	# shellcheck disable=SC2086
	"$G" flood --count 5 --qps 2 $opt -w "$T/f.pcap" 2>/dev/null
	made "flood $opt" "$T/f.pcap" 1 \
		"([.[] | .\"${m%%:*}\" | tostring] | unique | join(\",\")), ([.[] | select(.\"roce.icrc.status\" == \"good\")] | length)" \
		"${m#*:}
5"
done
"$G" flood --count 4 --erf --snaplen 64 -w "$T/f.pcap" 2>/dev/null
made "flood --erf --snaplen 64" "$T/f.pcap" 197 \
	'[.[] | "\(."erf.types.type") \(."erf.flags.trunc") rlen \(."erf.rlen") cap_len \(."frame.cap_len") \(."roce.icrc.status")"] | unique | join(",")' \
	"2 true rlen 82 cap_len 64 unchecked"
for bad in "frames rc-send-only --ib --erspan 2 -w $T/x" "frames pfc --ib -w $T/x" \
	"frames rc-send-only --ib -i lo --dst 127.0.0.1" "frames rc-send-only --slid 3 -w $T/x" \
	"convert -w $T/x --erf" "convert -r $T/f.pcap -w $T/x --ib" "flood --vxlan 1 --gre-teb -w $T/x"; do
	# shellcheck disable=SC2086
	"$G" $bad >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ]; then
		ok "refused: rocegen $bad: $(cat "$T/err")"
	else
		fail "rocegen $bad: exit $rc, want 2 and one line" "$(head -3 "$T/err" | tr '\n' '|')"
	fi
done

# ---- 1, 2. lab captures --------------------------------------------------------------
for c in $CAPS; do
	summary "$LAB/$c" "$T/orig.json"
	read_summary "$T/orig.json" orig
	if [ "${orig_packets:-0}" = 0 ]; then
		fail "$c: no RC/UC/UD packets in the original (test would prove nothing)"
		continue
	fi
	rm -f "$T/whole.pcap"
	IFS=$NL
	for e in $ENCAPS; do
		IFS=$OIFS
		# shellcheck disable=SC2086
		one_encap "$c" "${e%%:*}" ${e#*:}
	done
	IFS=$OIFS
	if [ "$orig_icrc_bad" != 0 ]; then
		echo "skip $c cut to $CUT: $orig_icrc_bad frame(s) with a bad ICRC (cut, unknowable)"
		continue
	fi
	big_eth=$(longer "$LAB/$c" 0)
	# the --ib copy made above (made again only if that conversion failed)
	{ [ -s "$T/whole.pcap" ] || convert "$LAB/$c" "$T/whole.pcap" --ib; } && big_ib=$(longer "$T/whole.pcap" 2)
	IFS=$NL
	for e in $CUTS; do
		IFS=$OIFS
		# shellcheck disable=SC2086
		one_cut "$c" "${e%%:*}" ${e#*:}
	done
	IFS=$OIFS
done
echo "invariance: $pairs copies compared with their originals ($(echo $CAPS | wc -w) captures)"

# ---- 4. CM pairing on native IB (CMF: the figures compared) -------------------------------
for c in ${INVARIANCE_CM_CAPS:-roce_rping.pcap roce_ucmatose.pcap roce_write_bw_rdmacm.pcap roce_udaddy.pcap}; do
	summary "$LAB/$c" "$T/orig.json"
	read_summary "$T/orig.json" orig
	if [ "${orig_cm_mads:-0}" = 0 ]; then
		fail "$c: no CM MADs in the original (test would prove nothing)"
		continue
	fi
	for how in "--ib" "--ib-grh --erf"; do
		# shellcheck disable=SC2086
		if ! convert "$LAB/$c" "$T/cm.pcap" $how; then
			fail "$c as IB ($how): rocegen convert failed" "$(cat "$T/err")"
			continue
		fi
		summary "$T/cm.pcap" "$T/cm.json"
		read_summary "$T/cm.json" cm
		if [ -n "$orig_cm" ] && [ "$orig_cm" = "$cm_cm" ]; then
			ok "$c as IB ($how): CM pairing as the original's, $cm_cm_mads CM MADs, $cm_paired connections ($cm_by_cm by CM), $cm_ib IB packets"
		else
			fail "$c as IB ($how): CM pairing differs" "$(differ "$orig_cm" "$cm_cm")"
		fi
	done
done

# tshark on what rocegen writes, field by field (tests/difftest.py).
if command -v "$TSHARK" >/dev/null 2>&1; then
	mkdir -p "$T/dt"
	for c in roce_rping roce_rc_pingpong_ipv6gid; do
		IFS=$NL
		for e in $ENCAPS; do
			IFS=$OIFS
			[ "${e%%:*}" = ib ] && continue    # Wireshark 4.0 cannot open LINKTYPE_INFINIBAND
			# shellcheck disable=SC2086
			convert "$LAB/$c.pcap" "$T/dt/$c.${e%%:*}.pcap" ${e#*:} || echo "$c ${e%%:*}: $(cat "$T/err")"
		done
		IFS=$OIFS
		convert "$LAB/$c.pcap" "$T/dt/$c.ib-erf.pcap" --ib --erf
	done
	# IB's CNP (opcode 0x80) and FECN marks (IPoIB: tests/link.sh, whose
	# arp.* fields would be compared here on the Ethernet ARP frames too)
	convert "$root/captures/analysis/cnp_ecn.pcap" "$T/dt/cnp_ecn.ib-erf.pcap" --ib --erf
	n=$(ls "$T/dt" | wc -l)
	BUILD=$BUILD DIFFTEST_CAPDIR=$T/dt DIFFTEST_JOBS=1 python3 "$here/difftest.py" >"$T/dt.out" 2>&1
	st=$?
	line=$(grep '^difftest: .* fields compared' "$T/dt.out")
	if [ "$st" = 0 ] && [ "$n" = 15 ] && [ -n "$line" ]; then
		ok "tshark agrees on $n rocegen-made captures: ${line#difftest: }"
	else
		fail "tshark disagrees on rocegen-made captures ($n files, difftest status $st)" \
			"$(grep -A8 UNEXPLAINED "$T/dt.out" | head -10 | tr '\n' '|')"
	fi
else
	echo "skip tshark comparisons: $TSHARK not found"
fi

echo "invariance: $oks ok, $fails failed"
[ "$fails" = 0 ]
