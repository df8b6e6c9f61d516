#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# conform_iwarp_lab.sh — `rocegen conform --transport iwarp --app rping`
# from the lab's host side (10.99.0.254) against the kernel's siw 6.1 on vma
# (10.99.0.1), behind `rping -s -P -S 64` (persistent: one connection per
# case), in the lab's siw mode and siw-crc mode (siw built with
# mpa_crc_required and peer_to_peer).  Every verdict is asserted against
# EXPECT below; each non-PASS carries the siw source line that explains it
# (drivers/infiniband/sw/siw of linux-source-6.1, as the lab builds it:
# $CACHE/siw/src-*/).  make interop.
#
# Skips (exit 0) without ../shared/softroce-lab/lab or root.  Holds
# /tmp/softroce-lab.lock while it uses the lab; brings the lab up and down
# unless it was up already.  CONFORM_OUT=DIR keeps the JSON, JUnit XML and
# evidence pcaps.
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
. "$root/tests/iwarp_lab.sh"
iwlab_enter conform_iwarp_lab "$@"

# siw's Terminates, the reason of several FAILs below
SWAPPED="siw writes the Terminate control word through a bitfield struct (iwarp.h:182-189: on little-endian 'layer : 4' comes first, so it is the LOW nibble of the first byte; siw_qp.c:441-442 fill it), which puts EType in the high nibble where RFC 5040 4.8 has Layer: every siw Terminate whose layer and etype differ reads swapped on the wire (siw reads incoming ones the same way: its dmesg says 'got TERMINATE. layer 2, type 0' for our RDMAP (0) / remote operation (2) of rdmap.terminate)."
# case=VERDICT  reason (non-PASS), for both modes unless a mode line overrides
EXPECT=(
"mpa.plain=PASS"
"mpa.crc=PASS"
"mpa.markers=UNSUPPORTED  siw_cm.c:646-648 siw_proc_mpareq(): 'MPA Markers: currently not supported', a request with M goes to reject_conn (709-727): an MPA reply with R"
"mpa.markers-crc=UNSUPPORTED  siw_cm.c:646-648, as mpa.markers"
"mpa.rtr=PASS"
"mpa.rev1=FAIL  siw accepts rev 1 (siw_cm.c:623 allows 0, 1 and 2) and replies rev 1, but then rping's RDMA READ of our buffer is refused by ibv_post_send (rping prints 'post send error -1'; siw_qp.c:936-939 refuses a READ when the QP's ORQ size is 0, 'We negotiated not to send READ req's') and rping disconnects: FIN, no Terminate, ~10 ms after our first FPDU"
"mpa.rev-unknown=PASS"
"mpa.reject=PASS"
"llp.bad-crc=FAIL  $SWAPPED Swapped back, it is the LLP/MPA/CRC error of siw_qp_rx.c:1006-1008"
"llp.bad-marker=UNSUPPORTED  siw_cm.c:646-648: no markers, so no marker to spoil"
"ddp.bad-stag=PASS"
"ddp.bad-offset=PASS"
"ddp.msn-gap=FAIL  $SWAPPED Swapped back, it is the DDP/untagged/MSN range of siw_qp_rx.c:294-298 (siw_send_check_ntoh)"
"ddp.bad-qn=FAIL  $SWAPPED Swapped back, it is the DDP/untagged/invalid QN of siw_qp_rx.c:288-291"
"ddp.oversize=FAIL  siw_qp_rx.c:314-320 siw_send_check_ntoh(): a SEND longer than the receive WQE ('receive space short') gets DDP_ECODE_UT_INVALID_MSN_NOBUF (0x02), where RFC 5041 7.2 has 0x05, message too long for available buffer; and its layer/etype nibbles are swapped as in llp.bad-crc"
"rdmap.read-bad-stag=FAIL  $SWAPPED Swapped back, it is the RDMAP/remote protection/invalid STag of siw_qp_tx.c:837-838 (siw_rdmap_error)"
"rdmap.read-bad-offset=FAIL  $SWAPPED Swapped back, it is the RDMAP/remote protection/base or bounds of siw_qp_tx.c:837-838"
"rdmap.terminate=PASS"
"rdmap.read-ird=FAIL  siw_cm.c:1622-1628 siw_accept(): with relaxed_ird_negotiation (siw_cm.c:32) siw raises rping's IRD of 1 to the ORD we asked for (16) and announces it, and siw_qp_rx.c:686-700 siw_init_rresp() lets a Read Request that finds the transmit WQE idle take it without an IRQ entry: IRD+1 requests all fit; only a further one meets the 'IRQ exceeded' Terminate of lines 718-724 (RDMAP, remote operation, 0x07 catastrophic, nibble-swapped). When the transmit WQE is still busy, IRD requests fit and the 17th gets that Terminate: seen once under load, 0 answered; the case lets siw go idle (one READ answered, 200 ms) before its burst"
)
EXPECT_siw_crc=(
)

T=${CONFORM_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/conform_iwarp.XXXXXX")}
mkdir -p "$T"
up_here=0
cleanup() {
	[ -n "${SPID:-}" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	if [ "$up_here" = 1 ]; then "$L" down >/dev/null 2>&1 || true; fi
	[ -n "${CONFORM_OUT:-}" ] || [ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
iwlab_up conform_iwarp_lab
fails=0

# one MODE: rping -s -P in vma, the catalogue from the host, the verdicts checked
one() {
	local mode=$1 rc extra=()
	"$L" up --mode "$mode" >/dev/null || { echo "FAIL lab up --mode $mode"; fails=$((fails + 1)); return; }
	"$L" exec --timeout 300 vma -- "rping -s -P -a $PEER -S 64" >"$T/$mode.rping" 2>&1 &
	SPID=$!
	"$L" exec vma -- 'for i in $(seq 150); do rdma res show cm_id | grep -q LISTEN && exit 0; sleep 0.1; done; exit 1' >/dev/null
	"$L" host -- timeout 240 "$G" conform --transport iwarp --app rping --peer "$PEER" -i "${LAB_BRIDGE:-br0}" \
		--json --junit "$T/$mode.xml" --pcap-dir "$T/$mode.pcap" >"$T/$mode.json" 2>"$T/$mode.err"
	rc=$?
	kill "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	SPID=""
	"$L" exec vma -- 'dmesg | grep siw | tail -40' >"$T/$mode.dmesg" 2>&1
	[ "$mode" = siw-crc ] && extra=("${EXPECT_siw_crc[@]}")
	python3 - "$T/$mode.json" "$T/$mode.xml" "$mode" "$rc" "${EXPECT[@]}" -- "${extra[@]}" <<'PY' || fails=$((fails + 1))
import json, os, sys, xml.etree.ElementTree as ET
js, xmlf, mode, rc = sys.argv[1:5]
rest = sys.argv[5:]
cut = rest.index('--')
exp = {}
for e in rest[:cut] + rest[cut + 1:]:
    k, v = e.split('=', 1)
    v, _, why = v.partition('  ')
    exp[k] = (v, why)
try:
    d = json.load(open(js))
except Exception as e:
    print('FAIL %s: no JSON report (%s), rocegen exit %s' % (mode, e, rc)); sys.exit(1)
bad = 0
for c in d['cases']:
    v, why = exp.get(c['name'], ('?', 'no expectation'))
    ok = c['verdict'] == v
    bad += not ok
    m = ' '.join('%s=%g' % (k, x['value']) for k, x in c['metrics'].items())
    print('%-3s %-8s %-22s %-11s %s%s' % ('ok' if ok else 'BAD', mode, c['name'], c['verdict'], c['detail'],
          (' | ' + m) if m else ''))
    if not ok:
        print('      expected %s%s' % (v, (': ' + why) if why else ''))
    p = c.get('pcap')
    if not p or not os.path.getsize(p) > 24:
        print('BAD %s: no evidence pcap' % c['name']); bad += 1
missing = set(exp) - {c['name'] for c in d['cases']}
for n in sorted(missing):
    print('BAD %s: not run' % n)
bad += len(missing)
s = ET.parse(xmlf).getroot()
if int(s.get('tests')) != len(d['cases']):
    print('BAD junit: %s tests, %d cases' % (s.get('tests'), len(d['cases']))); bad += 1
want_rc = 3 if d['error'] else 1 if d['fail'] else 0
if int(rc) != want_rc:
    print('BAD exit status %s, want %d' % (rc, want_rc)); bad += 1
print('conform_iwarp_lab %s: %d cases, %d as expected against siw' % (mode, len(d['cases']), len(d['cases']) - bad + len(missing)))
sys.exit(1 if bad else 0)
PY
}
one siw
one siw-crc
"$L" up --mode siw >/dev/null 2>&1 || true
echo "conform_iwarp_lab: $fails mode(s) not as expected"
[ "$fails" = 0 ]
