#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# link.sh — ERF records and native InfiniBand (captures/link, made by
# `make fixtures` with libroce's builders):
#   - LINKTYPE_INFINIBAND and ibdump-style ERF type 21 copies of the same
#     packets give the same summary (frames, flows, ICRC verdicts);
#   - IB ICRC and VCRC verdicts: one bad ICRC, one bad VCRC, the rest good;
#   - LID-routed flows are keyed by LIDs, GRH flows by GIDs;
#   - ERF lctr is reported as loss; ERF Ethernet FCS checked (one bad) and
#     stripped; a truncated ERF record is truncated with ICRC unchecked.
#   - the mirror fixtures report their copies and the truncated one;
#   - pcapng files whose interfaces differ in link type (Ethernet, ERF,
#     InfiniBand: tests/mkpcapng.py interleaves the fixtures, two sections
#     in both byte orders, ns and µs resolutions, a time offset) are read
#     whole: each frame listed as in its own file, numbered by its position;
#     against tshark on an Ethernet + ERF merge; a filter passes no frame of
#     a link type it means nothing on;
#   - IB copies cut to 128 and 40 bytes (truncation, PktLen byte counts);
#   - management MADs (tests/mkibmad.py: SMP LID-routed and directed-route
#     on QP0, SA with RMPP, PerfMgt): headers against tshark on ERF;
#   - raw datagrams (tests/mkibraw.py: LNH 1 IPv6, LNH 0 IPv4): against tshark;
#   - IB congestion: IB's CNP (opcode 0x80, BTH only) named and counted as a
#     CNP, FECN/BECN counted where RoCE counts ECN CE (the analysis fixture
#     cnp_ecn converted to IB gives the same figures; rocegen's --fecn/--becn;
#     tshark's name for 0x80);
#   - a QP whose LIDs change in mid-connection (LMC path bits, then path
#     migration: ib_lid_change.pcap) is one flow per direction, with the
#     figures of the same packets between fixed LIDs (ib_lid_fixed.pcap);
#   - IPoIB (ipoib_erf.pcap: IPv4, IPv6, ARP request and reply) against tshark;
#   - the public ibdump capture (captures/public/wireshark/infiniband.pcap, a
#     DAG card's ERF type 21, 43 frames): every ICRC good (GRH-routed packets
#     too: their LRH counts as ones), IPoIB in connected mode (RC SEND_ONLY:
#     ping over ib0) decoded, and every frame's IPv4 DSCP/ECN and IPv6 traffic
#     class fields those tshark gives (the issue's ip.dsfield.ecn).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
R=$BUILD/bin/rocetop
L=$root/captures/link
if [ ! -x "$R" ]; then
	echo "link: $R not built" >&2
	exit 2
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/link.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM

fails=0 oks=0
ok() { echo "ok   $1"; oks=$((oks + 1)); }
fail() { echo "FAIL $1"; shift; for l; do echo "     $l"; done; fails=$((fails + 1)); }
# Build-independent work is done once per job and shared between its two
# builds' runs (TEST_SHARED, tests/run.sh): the inputs made here by python
# (every one by one python start, ~0.5 CPU-s each on this VM) and what
# tshark/mergecap say about files no build made.
S=${TEST_SHARED:-$T}/link
INPUTS="cut.pcap mix.pcapng order ib128.pcap ib40.pcap mad_ib.pcap mad_erf.pcap raw_ib.pcap raw_erf.pcap"
made=1
for f in $INPUTS; do [ -s "$S/$f" ] || made=0; done
if [ "$made" = 0 ]; then
	mkdir -p "$S" || exit 2
	# cut.pcap: a record of erf_eth cut inside its ERF header; mix.pcapng and
	# its order (tests/mkpcapng.py); every IB frame of ib_native cut to 128
	# and 40 bytes; the MADs (tests/mkibmad.py) and raw datagrams
	# (tests/mkibraw.py) as native IB and in ERF
	python3 - "$S" "$here" "$L" "$root/captures/lab/roce_rping.pcap" <<'PY' || exit 2
import contextlib, runpy, struct, sys
S, here, L, rping = sys.argv[1:5]
d = open(L + "/erf_eth.pcap", "rb").read()
hdr, rec = d[:24], d[24:]
ts, us, cl, wl = struct.unpack("<IIII", rec[:16])
open(S + "/cut.pcap", "wb").write(hdr + struct.pack("<IIII", ts, us, 10, wl) + rec[16:26])
def run(script, *args):
    sys.argv = [script] + list(args)
    runpy.run_path(here + "/" + script, run_name="__main__")
with open(S + "/order", "w") as o, contextlib.redirect_stdout(o):
    run("mkpcapng.py", S + "/mix.pcapng", rping, L + "/ib_native.pcap", L + "/erf_eth.pcap", L + "/ib_erf.pcap")
def cut(src, dst, n):
    d = open(src, "rb").read()
    e = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, off = bytearray(d[:24]), 24
    while off + 16 <= len(d):
        s, f, cl, wl = struct.unpack(e + "IIII", d[off:off + 16])
        k = min(cl, n)
        out += struct.pack(e + "IIII", s, f, k, wl) + d[off + 16:off + 16 + k]
        off += 16 + cl
    open(dst, "wb").write(out)
cut(L + "/ib_native.pcap", S + "/ib128.pcap", 128)
cut(L + "/ib_native.pcap", S + "/ib40.pcap", 40)
for k in ("ib", "erf"):
    run("mkibmad.py", S + "/mad_%s.pcap" % k, k)
    run("mkibraw.py", S + "/raw_%s.pcap" % k, k)
PY
fi
(cd "$S" && cp $INPUTS "$T/") || exit 2
# tsh KEY CMD...: CMD's output (tshark's, mergecap's) in $S/KEY, made by the
# job's first run; the other build's run takes it when CMD is the same (CMD
# reads files of the source tree or of $S only)
tsh() {
	tk=$1
	shift
	old=
	[ -s "$S/$tk.cmd" ] && read -r old <"$S/$tk.cmd"
	[ -e "$S/$tk" ] && [ "$old" = "$*" ] && return 0
	"$@" >"$S/$tk" 2>/dev/null
	printf '%s\n' "$*" >"$S/$tk.cmd"
}

# check NAME WANT GOT
check() {
	if [ "$2" = "$3" ]; then ok "$1: $3"; else fail "$1" "want $2, got $3"; fi
}

# vs_tshark PCAP NAME REGEX [FRAMES]: the --packets --json fields of PCAP whose
# names match REGEX, against tshark's on the same file.  Sets vs_keys (the
# names compared) and vs_bad: how many differ ("name ours theirs" on stderr),
# plus 1 when the frame counts differ or, with FRAMES, are not that many.
vs_tshark() {
	TZ=UTC "$R" -r "$1" --packets --json >"$T/$2.json"
	vs_keys=$(jq -r "keys[] | select(test(\"$3\"))" "$T/$2.json" | sort -u)
	# shellcheck disable=SC2046
	tsh "$2.tsh" tshark -r "$1" -T fields $(for k in $vs_keys; do printf ' -e %s' "$k"; done)
	# shellcheck disable=SC2086
	vs_bad=$(python3 - "$T/$2.json" "$S/$2.tsh" "${4:-}" $vs_keys <<'PY'
import json, sys
ours = [json.loads(l) for l in open(sys.argv[1])]
theirs = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
frames, keys, bad = sys.argv[3], sys.argv[4:], 0
def norm(v):
    if isinstance(v, bool) or isinstance(v, int):
        return int(v)
    v = str(v).replace(":", "").lower()
    if v in ("true", "false"):
        return int(v == "true")
    try:
        return int(v, 0) if v.startswith("0x") else int(v)
    except ValueError:
        return v
for o, t in zip(ours, theirs):
    for k, tv in zip(keys, t):
        if k in o and (tv == "" or norm(o[k]) != norm(tv)):
            bad += 1
            print(k, o[k], tv, file=sys.stderr)
print(bad + abs(len(ours) - len(theirs)) + (frames != "" and len(ours) != int(frames)))
PY
)
}

TZ=UTC "$R" -r "$L/ib_native.pcap" --json | jq -S 'del(.source)' >"$T/native.json"
# (the ERF file's loss counter says 1 frame was lost: its capture_loss
# verdict is the ERF file's own, like erf_lost)
TZ=UTC "$R" -r "$L/ib_erf.pcap" --json |
	jq -S 'del(.source, .erf_records, .erf_lost) | .diagnosis |= map(select(.verdict != "capture_loss"))' >"$T/erf.json"
if [ -s "$T/native.json" ] && cmp -s "$T/native.json" "$T/erf.json"; then
	ok "LINKTYPE_INFINIBAND and ERF type 21: same summary"
else
	fail "LINKTYPE_INFINIBAND and ERF type 21 differ" "$(diff "$T/native.json" "$T/erf.json" | head -5 | tr '\n' '|')"
fi
check "native IB frames" 168 "$(jq .ib_frames "$T/native.json")"
check "IB ICRC good/bad/unchecked" "167 1 0" "$(jq -r '"\(.icrc.good) \(.icrc.bad) \(.icrc.unchecked)"' "$T/native.json")"
TZ=UTC "$R" -r "$L/ib_native.pcap" --packets --json >"$T/pk.json"
check "IB VCRC good/bad" "167 1" "$(jq -rs '"\([.[] | select(."roce.vcrc.status" == "good")] | length) \([.[] | select(."roce.vcrc.status" == "bad")] | length)"' "$T/pk.json")"
check "LRH fields of frame 3" "2 1 2 2" "$(jq -rs '.[2] | "\(."infiniband.lrh.lnh") \(."infiniband.lrh.slid") \(."infiniband.lrh.dlid") \(."infiniband.lrh.sl")"' "$T/pk.json")"
check "flow hosts (LIDs without GRH, GIDs with)" "fe80::ff:fe00:1 lid 1" \
	"$(jq -r '[.flows[].src] | unique | join(" ")' "$T/native.json")"
check "ERF loss counter as erf_lost" 1 "$(TZ=UTC "$R" -r "$L/ib_erf.pcap" --json | jq .erf_lost)"

TZ=UTC "$R" -r "$L/erf_eth.pcap" --packets --json >"$T/eth.json"
check "ERF Ethernet FCS good/bad (stripped)" "6 1" "$(jq -rs '"\([.[] | select(."roce.fcs.status" == "good")] | length) \([.[] | select(."roce.fcs.status" == "bad")] | length)"' "$T/eth.json")"
check "ERF Ethernet ICRC verdicts" "good good good good good good unchecked good" \
	"$(jq -rs '[.[]."roce.icrc.status"] | join(" ")' "$T/eth.json")"
check "ERF truncated flag of record 7" "true payload" "$(jq -rs '.[6] | "\(."erf.flags.trunc") \(."roce.truncated")"' "$T/eth.json")"

for m in erspan2 erspan3 gre_teb vxlan; do
	check "$m fixture: copies, truncated copies, RoCE frames" "6 1 6" \
		"$(TZ=UTC "$R" -r "$L/$m.pcap" --json | jq -r '"\(.mirror_copies) \(.mirror_truncated) \(.roce.v2)"')"
done

# errors: a record cut inside its ERF header (cut.pcap, made above) is reported, not fatal
check "ERF record cut inside its header" "erf" "$(TZ=UTC "$R" -r "$T/cut.pcap" --packets --json | jq -r '."roce.truncated"')"

# ---- pcapng with interfaces of different link types ---------------------------
ins="$root/captures/lab/roce_rping.pcap $L/ib_native.pcap $L/erf_eth.pcap $L/ib_erf.pcap"
# (mix.pcapng and its order: made above, from $ins)
i=0
for f in $ins; do
	i=$((i + 1))
	TZ=UTC "$R" -r "$f" --packets --json >"$T/in$i.json"
done
TZ=UTC "$R" -r "$T/mix.pcapng" --packets --json >"$T/mix.json" 2>"$T/mix.err"
check "mixed pcapng: frames read" "$(wc -l <"$T/order")" "$(wc -l <"$T/mix.json")"
check "mixed pcapng: each frame as in its own file, numbered by position" 0 "$(python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
ins = {i: [json.loads(l) for l in open(f"{t}/in{i}.json")] for i in range(1, 5)}
mix = [json.loads(l) for l in open(f"{t}/mix.json")]
bad = 0
for n, line in enumerate(open(f"{t}/order"), 1):
    i, k = map(int, line.split())
    # The analysis marks (roce.analysis.*, and the verdicts' rocetop.diagnosis.*)
    # are left out: ib_native and ib_erf hold the same IB conversation, so in
    # the mix the second copy's frames are rightly marked retransmissions.
    marks = ("roce.analysis.", "rocetop.diagnosis.")
    want = {key: v for key, v in dict(ins[i][k - 1], **{"frame.number": n}).items()
            if not key.startswith(marks)}
    got = {key: v for key, v in mix[n - 1].items() if not key.startswith(marks)} if n <= len(mix) else None
    bad += got != want
print(bad)
PY
)"
check "mixed pcapng: link types seen" "erf eth ib" \
	"$(jq -rs '[.[] | if ."erf.types.type" != null then "erf" elif ."infiniband.lrh.lnh" != null then "ib" else "eth" end] | unique | join(" ")' "$T/mix.json")"
check "mixed pcapng with filter udp: the Ethernet interface's UDP frames only" \
	"$("$R" -r "$root/captures/lab/roce_rping.pcap" --packets udp | wc -l)" "$("$R" -r "$T/mix.pcapng" --packets udp | wc -l)"
if command -v mergecap >/dev/null && command -v tshark >/dev/null; then
	tsh merged.pcapng mergecap -a -F pcapng -w - "$root/captures/lab/roce_rping.pcap" "$L/ib_erf.pcap" "$L/erf_eth.pcap"
	tsh ts.txt tshark -r "$S/merged.pcapng" -T fields -e frame.number -e frame.time_epoch -e frame.len -e frame.cap_len
	cp "$S/ts.txt" "$T/ts.txt"
	TZ=UTC "$R" -r "$S/merged.pcapng" --packets --json |
		jq -r '"\(."frame.number")\t\(."frame.time_epoch")\t\(."frame.len")\t\(."frame.cap_len")"' >"$T/rt.txt"
	if [ -s "$T/ts.txt" ] && cmp -s "$T/ts.txt" "$T/rt.txt"; then
		ok "mergecap Ethernet + ERF pcapng: $(wc -l <"$T/rt.txt") frames, numbers, times and lengths as tshark's"
	else
		fail "mergecap Ethernet + ERF pcapng against tshark" "$(diff "$T/ts.txt" "$T/rt.txt" | head -4 | tr '\n' '|')"
	fi
fi

# ---- truncated native IB copies (item 4) -----------------------------------
# Every IB frame cut to 128 bytes (as a snaplen or a mirror would): the same
# summary but for the truncated count and ICRC verdicts; byte counts from
# the LRH PktLen; a truncated frame's ICRC is unchecked, never bad; cut to
# 40 bytes (inside the GRH of LNH 3 frames) the byte total still holds.
# (ib128.pcap and ib40.pcap: made above)
TZ=UTC "$R" -r "$T/ib128.pcap" --json | jq -S 'del(.source)' >"$T/ib128.json"
jq -S 'del(.truncated, .icrc)' "$T/native.json" >"$T/a.json"
jq -S 'del(.truncated, .icrc)' "$T/ib128.json" >"$T/b.json"
check "IB cut to 128 bytes: summary as the whole copy's but truncation and ICRC" "" \
	"$(diff "$T/a.json" "$T/b.json" | head -3 | tr '\n' '|')"
check "IB cut to 128 bytes: truncated, ICRC good/bad/unchecked" "1 166 1 1" \
	"$(jq -r '"\(.truncated) \(.icrc.good) \(.icrc.bad) \(.icrc.unchecked)"' "$T/ib128.json")"
TZ=UTC "$R" -r "$T/ib40.pcap" --packets --json >"$T/ib40pk.json"
check "IB cut to 40 bytes: no ICRC cut short called bad (the one bad ICRC lost only its VCRC)" "0 8" \
	"$(jq -rs '"\([.[] | select(."frame.cap_len" < ."frame.len" - 2 and (."roce.icrc.status" == "good" or ."roce.icrc.status" == "bad"))] | length) \([.[] | select(."roce.icrc.status" == "bad") | ."frame.number"] | join(","))"' "$T/ib40pk.json")"
check "IB cut to 40 bytes: bytes from PktLen" "$(jq .bytes "$T/native.json")" \
	"$(TZ=UTC "$R" -r "$T/ib40.pcap" --json | jq .bytes)"

# ---- management MADs on native IB (SMP LID-routed and directed, SA, PerfMgt) --
# (mad_ib.pcap, mad_erf.pcap: made above by tests/mkibmad.py)
TZ=UTC "$R" -r "$T/mad_ib.pcap" --packets >"$T/mad.txt"
check "MAD classes, ICRC and VCRC" "SMP good good|SMP-DR good good|SA good good|PerfMgt good good" \
	"$(sed -n 's/.* MAD \([A-Za-z-]*\) .*icrc \([a-z]*\) vcrc \([a-z]*\).*/\1 \2 \3/p' "$T/mad.txt" | paste -sd '|')"
check "SMP-DR hop pointer/count, SA RMPP RRespTime:5 Flags:3" "1 2 10 7" \
	"$(TZ=UTC "$R" -r "$T/mad_ib.pcap" --packets --json | jq -rs '"\(.[1]."infiniband.smpdirected.hoppointer") \(.[1]."infiniband.smpdirected.hopcount") \(.[2]."roce.rmpp.rresptime") \(.[2]."roce.rmpp.flags")"')"
if command -v tshark >/dev/null; then
	vs_tshark "$S/mad_erf.pcap" mad '^infiniband\\.(mad|smplid|smpdirected|rmpp|sa)\\.'
	check "MAD fields against tshark ($(echo "$vs_keys" | wc -l) names)" 0 "$vs_bad"
fi

# ---- raw IB datagrams (LNH 1 IPv6, LNH 0 raw header + IPv4) ---------------------
# (raw_ib.pcap, raw_erf.pcap: made above by tests/mkibraw.py)
rawf="infiniband.rwh.etype ipv6.src ipv6.plen ip.src ip.len udp.srcport udp.length"
check "raw LNH 1/0: VCRC good, IPv6 then IPv4 inside" "good ::1 - good - 10.0.0.1" \
	"$(TZ=UTC "$R" -r "$T/raw_ib.pcap" --packets --json | jq -rs '[.[] | ."roce.vcrc.status", (."ipv6.src" // "-"), (."ip.src" // "-")] | join(" ")')"
if command -v tshark >/dev/null; then
	# shellcheck disable=SC2016
	tsh raw.tsh sh -c 'tshark -r "$1" -T fields $(for k in $2; do printf " -e %s" "$k"; done) 2>/dev/null |
		python3 -c "import sys
for l in sys.stdin:
    print(\"\\t\".join(str(int(v, 0)) if v[:2] == \"0x\" else v for v in l.rstrip(\"\\n\").split(\"\\t\")))"' sh "$S/raw_erf.pcap" "$rawf"
	cp "$S/raw.tsh" "$T/raw.tsh"
	TZ=UTC "$R" -r "$T/raw_erf.pcap" --packets --json |
		jq -r --arg f "$rawf" '[($f | split(" "))[] as $k | (.[$k] // "") | tostring] | join("\t")' >"$T/raw.ours"
	check "raw LNH 1/0 fields against tshark ($rawf)" "" "$(diff "$T/raw.tsh" "$T/raw.ours" | head -4 | tr '\n' '|')"
fi

# ---- fixtures of this script, as tools/mkfixtures makes them now ------------------
if [ -x "$BUILD/tools/mkfixtures" ]; then
	mkdir -p "$T/fx"
	"$BUILD/tools/mkfixtures" "$T/fx/gen" "$T/fx/link" >/dev/null
	for f in ib_lid_change ib_lid_fixed ipoib_erf; do
		if cmp -s "$L/$f.pcap" "$T/fx/link/$f.pcap"; then ok "$f.pcap as mkfixtures makes it"; else fail "$f.pcap differs from mkfixtures' (make fixtures)"; fi
	done
fi

# ---- IB congestion: CNP opcode 0x80, FECN/BECN ---------------------------------------
G=$BUILD/bin/rocegen
FIG='[.flows[] | {destqp, packets, requests, acks, ecn_ce, cnp, retransmissions}] | sort'
orig=$(TZ=UTC "$R" -r "$root/captures/analysis/cnp_ecn.pcap" --json | tail -1)
for how in "--ib" "--ib-grh --erf"; do
	# shellcheck disable=SC2086
	"$G" convert -r "$root/captures/analysis/cnp_ecn.pcap" -w "$T/cnp.pcap" $how 2>/dev/null
	got=$(TZ=UTC "$R" -r "$T/cnp.pcap" --json | tail -1)
	check "cnp_ecn as IB ($how): flows' ECN/CNP figures as the original's" "$(echo "$orig" | jq -c "$FIG")" "$(echo "$got" | jq -c "$FIG")"
	check "cnp_ecn as IB ($how): CE marks become FECN, CNPs counted" "$(echo "$orig" | jq -c '[.fabric.ecn_ce, 0, .fabric.cnp]')" \
		"$(echo "$got" | jq -c '[.fabric.ib_fecn, .fabric.ib_becn, .fabric.cnp]')"
done
check "IB CNPs: opcode 128 CNP, BECN, no reserved bytes (PktLen 6), ICRC good" "3 CNP true 6 good" \
	"$(TZ=UTC "$R" -r "$T/cnp.pcap" --packets --json | jq -rs '[.[] | select(."roce.cnp")] | "\(length) \(.[0]."roce.opcode") \(.[0]."roce.bth.becn") \(.[0]."infiniband.lrh.pktlen" - 10) \(.[0]."roce.icrc.status")"')"
"$G" frames cnp --ib --qpn 0x77 -w "$T/c1.pcap" && "$G" frames ib-cnp --ib --qpn 0x77 -w "$T/c2.pcap"
check "rocegen frames cnp --ib and ib-cnp --ib: the same IB CNP" \
	"$(TZ=UTC "$R" -r "$T/c1.pcap" --packets | sed 's/^[^ ]* [^ ]* //')" "$(TZ=UTC "$R" -r "$T/c2.pcap" --packets | sed 's/^[^ ]* [^ ]* //')"
"$G" frames rc-send-only --ib --becn --count 2 -w "$T/b.pcap"
"$G" frames rc-send-only --ib --fecn --becn -w "$T/fb.pcap"
check "--becn x2, then --fecn --becn x1: ecn_ce, ib_fecn, ib_becn" "2 0 2|1 1 1" \
	"$(for f in b fb; do TZ=UTC "$R" -r "$T/$f.pcap" --json | tail -1 | jq -r '"\(.flows[0].ecn_ce) \(.fabric.ib_fecn) \(.fabric.ib_becn)"'; done | paste -sd '|')"
if command -v tshark >/dev/null; then
	"$G" frames cnp --ib --erf --qpn 0x77 -w "$T/c3.pcap"
	k="infiniband.lrh.lnh infiniband.lrh.pktlen infiniband.bth.opcode infiniband.bth.destqp infiniband.bth.psn infiniband.bth.p_key"
	# (tshark's view kept with the rocegen copy it read: made again when this
	# build's rocegen wrote another)
	cmp -s "$T/c3.pcap" "$S/c3.pcap" || { cp "$T/c3.pcap" "$S/c3.pcap"; rm -f "$S/c3.tsh"; }
	# shellcheck disable=SC2016
	tsh c3.tsh sh -c 'printf "%s %s\n" "$(tshark -r "$1" -T fields $(for f in $2; do printf " -e %s" "$f"; done) 2>/dev/null |
			python3 -c "import sys; print(\" \".join(str(int(v, 0)) for v in sys.stdin.read().split()))")" \
		"$(tshark -r "$1" -V 2>/dev/null | sed -n "s/.*Opcode: \([A-Za-z]*\) (128).*/\1/p")"' sh "$S/c3.pcap" "$k"
	check "IB CNP against tshark ($k), and its name" \
		"$(cat "$S/c3.tsh")" \
		"$(TZ=UTC "$R" -r "$T/c3.pcap" --packets --json | jq -r --arg k "$k" '[($k | split(" "))[] as $f | .[$f]] + [."roce.opcode"] | map(tostring) | join(" ")')"
fi

# ---- a QP whose LIDs change: one flow per direction --------------------------------------
FIG2='[.flows[] | {kind, destqp, packets, requests, responses, duplicate_request, out_of_sequence, psn_gaps, missing_psns, acks, ecn_ce, cnp, retransmissions, rtt: .rtt_us}] | sort'
check "ib_lid_change: LID pairs carrying requests" "16>32 18>34 49>65" \
	"$(TZ=UTC "$R" -r "$L/ib_lid_change.pcap" --packets --json | jq -rs '[.[] | select(."infiniband.bth.destqp" == 512) | "\(."infiniband.lrh.slid")>\(."infiniband.lrh.dlid")"] | unique | join(" ")')"
TZ=UTC "$R" -r "$L/ib_lid_change.pcap" --json | tail -1 >"$T/lc.json"
TZ=UTC "$R" -r "$L/ib_lid_fixed.pcap" --json | tail -1 >"$T/lf.json"
check "ib_lid_change: flows, LID moves, requests dup gaps missing acks ecn_ce cnp of QP 0x200" "2 2 36 1 1 1 9 3 1" \
	"$(jq -r '"\(.flows | length) \(.ib_lid_moves) \(.flows[] | select(.destqp == 512) | "\(.requests) \(.duplicate_request) \(.psn_gaps) \(.missing_psns) \(.acks) \(.ecn_ce) \(.cnp)")"' "$T/lc.json")"
check "ib_lid_change: the figures of the same packets between fixed LIDs" "$(jq -c "$FIG2" "$T/lf.json")" "$(jq -c "$FIG2" "$T/lc.json")"
check "ib_lid_change: connection paired from traffic, as with fixed LIDs" "$(jq -c .connections "$T/lf.json")" "$(jq -c .connections "$T/lc.json")"

# ---- IPoIB ---------------------------------------------------------------------------------
TZ=UTC "$R" -r "$L/ipoib_erf.pcap" --packets >"$T/ipoib.txt"
check "IPoIB listing" "ipoib IPv4 192.168.50.5.40000 > 192.168.50.7.22 TCP|ipoib IPv6 fd00::7.40001 > fd00::5.22 TCP|ipoib ARP who-has 192.168.50.7 tell 192.168.50.5|ipoib ARP reply 192.168.50.7 is-at qpn 0x000049" \
	"$(sed -n 's/.* \(ipoib .*\) icrc good vcrc good$/\1/p' "$T/ipoib.txt" | paste -sd '|')"
if command -v tshark >/dev/null; then
	vs_tshark "$L/ipoib_erf.pcap" ipoib '^(infiniband\\.(rwh|deth|bth\\.destqp)|ip|ipv6|tcp|arp)\\.' 4
	check "IPoIB fields against tshark ($(echo "$vs_keys" | wc -l) names)" 0 "$vs_bad"
fi

# ---- the public ibdump capture --------------------------------------------------------------
P=$root/captures/public/wireshark/infiniband.pcap
TZ=UTC "$R" -r "$P" --packets --json >"$T/wiki.json"
check "infiniband.pcap: frames, ICRC good, bad (the 6 with a GRH were bad while the LRH was read)" "43 43 0" \
	"$(jq -s '"\(length) \([.[] | select(.["roce.icrc.status"] == "good")] | length) \([.[] | select(.["roce.icrc.status"] == "bad")] | length)"' -r "$T/wiki.json")"
check "infiniband.pcap: IPoIB connected mode, the 6 pings on RC SEND_ONLY" 6 \
	"$(TZ=UTC "$R" -r "$P" --packets | grep -c ': RC SEND_ONLY .* ipoib IPv4 10\.0\.1\.34 > 10\.0\.0\.58 proto 1 ')"
if command -v tshark >/dev/null; then
	DS='ip.dsfield.dscp ip.dsfield.ecn ipv6.tclass.dscp ipv6.tclass.ecn'
	# "frame field value" for every field either side gives
	# shellcheck disable=SC2016
	tsh wiki.tsh sh -c 'tshark -r "$1" -T fields -e frame.number $(for k in $2; do printf " -e %s" "$k"; done) 2>/dev/null |
		awk -v names="$2" '"'"'BEGIN { n = split(names, k, " ") } { for (i = 1; i <= n; i++) if ($(i + 1) != "") print $1, k[i], $(i + 1) }'"'"' FS="	"' sh "$P" "$DS"
	cp "$S/wiki.tsh" "$T/wiki.tsh"
	jq -r --arg names "$DS" '. as $o | ($names | split(" "))[] as $k | select($o[$k] != null) | "\($o["frame.number"]) \($k) \($o[$k])"' \
		"$T/wiki.json" >"$T/wiki.our"
	if [ "$(wc -l <"$T/wiki.tsh")" -eq 30 ] && cmp -s "$T/wiki.tsh" "$T/wiki.our"; then
		ok "infiniband.pcap: IPv4 DSCP/ECN and IPv6 traffic class as tshark's ($(wc -l <"$T/wiki.our") values, 15 frames)"
	else
		fail "infiniband.pcap: DSCP/ECN against tshark" "$(diff "$T/wiki.tsh" "$T/wiki.our" | head -5 | tr '\n' '|')"
	fi
fi

echo "link: $oks ok, $fails failed"
[ "$fails" = 0 ]
