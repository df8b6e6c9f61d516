#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# interop_iwarp_tcp.sh — TCP-level faults against the kernel's siw on a lab
# guest.  First rocegen's ucmatose client (host side, 10.99.0.254) cuts its reply 2
# of 4 with a TCP RST in the middle of that FPDU (--fault tcp-rst@2: half of
# it out and acknowledged, then SO_LINGER 0), against the guest's `ucmatose
# -C 4` on vma, in the lab's siw mode and siw-crc mode (CRC, peer-to-peer).
# Each mode checks:
#   - rocegen exits 1 having sent the RST after half of the FPDU (tcp.rst_tx,
#     cut_bytes > 0), with ucmatose's 4 messages received and 2 replies out
#     whole before the cut;
#   - the guest's TCP took the reset (vma's tcp.EstabResets grew by 1,
#     `lab counters`);
#   - siw did not hang on the half FPDU: it took the QP down and flushed the
#     receives, so ucmatose (which counts a flushed receive as done) ended
#     within its 60 s with "return status 0".
# Not checked, because ucmatose does not look: that siw placed nothing of
# the half FPDU (its completions' status and the data).
#
# Then segment loss that TCP repairs (siw-crc mode, CRC on, peer-to-peer):
# rocegen's ucmatose client with --fault tcp-loss=5% (a socket filter drops
# 5 % of the segments with data it receives, so vma's TCP retransmits them)
# against `ucmatose -C 200 -S 4000`:
#   - rocegen exits 0 with ucmatose's 200 messages received and its 200
#     sent, no CRC error in siw's FPDUs across the repairs (and no
#     Terminate), the fault in place and segments received out of order
#     (TCP_INFO rcv_ooopack >= 1);
#   - vma's TCP retransmitted (tcp.RetransSegs grew, `lab counters`);
#   - ucmatose ends with "return status 0".
# Not checked: the data ucmatose received (it prints no checksum); siw
# sends no markers (siw's default), so markers are not exercised here.
#
# Skips (exit 0) without ../shared/softroce-lab/lab or root.  Holds
# /tmp/softroce-lab.lock; a lab that was down is taken down again.
set -u
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
. "$root/tests/iwarp_lab.sh"
iwlab_enter interop_iwarp_tcp "$@"
iwlab_session interop_iwarp_tcp
fails=0

# vma's TCP counter NAME (/proc/net/snmp, through `lab counters`)
vma_tcp() {
	"$L" counters vma | sed -n "s/^tcp\.$1=//p"
}

# ucm_case KIND MODE COUNTER "GUEST CMD" "ROCEGEN ARGS": the guest's ucmatose on
# vma, rocegen's ucmatose client against it, vma's TCP COUNTER before and
# after, then the verdict of KIND (rst or loss) on the report
ucm_case() {
	local kind=$1 mode=$2 ctr=$3 gcmd=$4 args=$5 name=$1-$2 gpid rc grc r0 r1 res
	"$L" up --mode "$mode" >/dev/null || { echo "FAIL $name: lab up --mode $mode"; fails=$((fails + 1)); return; }
	r0=$(vma_tcp "$ctr")
	"$L" exec --timeout 90 vma -- "$gcmd" >"$T/$name.guest" 2>&1 &
	gpid=$!
	"$L" exec vma -- 'for i in $(seq 150); do rdma res show cm_id | grep -q LISTEN && exit 0; sleep 0.1; done; exit 1' >/dev/null
	# shellcheck disable=SC2086
	"$L" host -- timeout 90 "$G" client --transport iwarp --oob cm --app ucmatose --peer "$PEER" --json $args \
		>"$T/$name.json" 2>"$T/$name.err"
	rc=$?
	wait "$gpid"
	grc=$?
	r1=$(vma_tcp "$ctr")
	res=$(python3 - "$kind" "$T/$name.json" "$T/$name.guest" "$rc" "$grc" "${r0:-x}" "${r1:-x}" <<'PY'
import json, sys
kind, jf, gf, rc, grc, r0, r1 = sys.argv[1:8]
try:
    d = json.load(open(jf))
except Exception as e:
    print("FAIL no report (%s)" % e); sys.exit(0)
g = open(gf, errors="replace").read()
bad = []
t, f = d["tcp"], d["fpdu"]
grew = int(r1) - int(r0) if r0.isdigit() and r1.isdigit() else None
if kind == "rst":
    if int(rc) != 1: bad.append("rocegen exit %s, want 1" % rc)
    if not t["rst_tx"] or t["cut_bytes"] <= 0: bad.append("no RST sent mid-FPDU: %s" % t)
    if d["msgs_rx"]["send"] != 4: bad.append("received %d of ucmatose's 4 messages" % d["msgs_rx"]["send"])
    if d["faults"]["tcp-rst"] != 1: bad.append("faults fired %s" % d["faults"])
    if grew != 1: bad.append("vma's tcp.EstabResets %s -> %s, want +1" % (r0, r1))
    what = "RST after %d of the FPDU's bytes, replies sent whole before it %d, vma EstabResets %s -> %s" % (
        t["cut_bytes"], f["tx"] - f["rtr_tx"], r0, r1)
else:
    if int(rc) != 0: bad.append("rocegen exit %s (%s)" % (rc, d.get("why")))
    if d["msgs_rx"]["send"] != 200 or d["completed"] != 200:
        bad.append("received %d of ucmatose's 200 messages, completed %d" % (d["msgs_rx"]["send"], d["completed"]))
    if not d["mpa"]["crc"] or f["crc_bad"] or f["marker_bad"]:
        bad.append("CRC %s, bad %d, markers bad %d" % (d["mpa"]["crc"], f["crc_bad"], f["marker_bad"]))
    if d["term_rx"] or d["term_tx"]: bad.append("a Terminate")
    if d["faults"]["tcp-loss"] != 1 or t["rcv_ooopack"] < 1:
        bad.append("tcp-loss %d, out of order %d" % (d["faults"]["tcp-loss"], t["rcv_ooopack"]))
    if not grew or grew < 1: bad.append("vma's tcp.RetransSegs %s -> %s, want growth" % (r0, r1))
    what = "200 SENDs each way, CRC on, %d FPDUs received with 0 bad CRCs, %d received out of order, " \
        "vma RetransSegs %s -> %s" % (f["rx"], t["rcv_ooopack"], r0, r1)
if int(grc) != 0 or "return status 0" not in g:
    bad.append("ucmatose exit %s%s" % (grc, " (timed out: siw hung)" if grc == "124" else ""))
print("%s %s, ucmatose exit %s%s" % ("FAIL" if bad else "ok", what, grc, (": " + "; ".join(bad)) if bad else ""))
PY
)
	echo "${res%% *} $gcmd ($mode) / rocegen client $args: ${res#* }"
	case $res in
	ok*) ;;
	*) fails=$((fails + 1)); tail -4 "$T/$name.guest" | sed 's/^/     ucmatose: /' ;;
	esac
}

R="--iters 4 --timeout 20 --fault tcp-rst@2"
ucm_case rst siw EstabResets "ucmatose -C 4" "$R"
ucm_case rst siw-crc EstabResets "ucmatose -C 4" "$R --crc --rtr write"
ucm_case loss siw-crc RetransSegs "ucmatose -C 200 -S 4000" "--iters 200 --size 4000 --timeout 30 --fault tcp-loss=5% --crc --rtr write"
"$L" up --mode siw >/dev/null 2>&1 || true

echo "interop_iwarp_tcp: $fails failed"
[ "$fails" = 0 ]
