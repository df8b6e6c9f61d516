#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# cli.sh — rocetop's command line: errors, filters, counts, formats, ports.
#
#   BUILD=build tests/cli.sh
#
# Each check prints "ok" or "FAIL" and a name; the script exits 1 when any
# check fails.  Needs python3 (to make damaged and rewritten captures),
# tshark and editcap.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
R=$BUILD/bin/rocetop
LAB=$root/captures/lab
RPING=$LAB/roce_rping.pcap
TSHARK=${TSHARK:-tshark}

if [ ! -x "$R" ]; then
	echo "cli: $R not built" >&2
	exit 2
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/cli.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM

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

# run ARGS...: runs rocetop with TZ=UTC; sets $rc, stdout in $T/out, stderr in $T/err.
run() {
	TZ=UTC "$R" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
lines() { wc -l <"$1" | tr -d ' '; }
show() { printf 'exit %s; stdout %s lines; stderr: %s' "$rc" "$(lines "$T/out")" "$(head -c 300 "$T/err" | tr '\n' '|')"; }

# expect_error NAME WANT_RC WANT_STDOUT_LINES NEEDLE...: rocetop failed cleanly:
# exit status WANT_RC ("nz" = any non-zero that is not a signal), exactly one line on
# stderr containing every NEEDLE, WANT_STDOUT_LINES lines on stdout.
expect_error() {
	name=$1 want_rc=$2 want_out=$3
	shift 3
	why=""
	if [ "$want_rc" = nz ]; then
		{ [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ]; } || why="exit status $rc"
	else
		[ "$rc" -eq "$want_rc" ] || why="exit status $rc, want $want_rc"
	fi
	[ "$(lines "$T/err")" -eq 1 ] || why="$why; $(lines "$T/err") lines on stderr, want 1"
	[ "$(lines "$T/out")" -eq "$want_out" ] || why="$why; $(lines "$T/out") lines on stdout, want $want_out"
	for n; do
		grep -qF -- "$n" "$T/err" || why="$why; stderr lacks '$n'"
	done
	if [ -z "$why" ]; then
		ok "$name: $(head -n 1 "$T/err")"
	else
		fail "$name" "$why" "$(show)"
	fi
}

# ---- the captures made here ------------------------------------------------------
# (one python makes them all -- a python start costs ~0.5 CPU-s on this VM --
# once per job: they depend on no build, so the other build's run takes
# them from TEST_SHARED, tests/run.sh)
#   trunc-data, trunc-hdr, trunc-global, random, empty, huge-record: damaged
#   captures; wifi: an unsupported link type; port5000: the rping capture's
#   RoCEv2 on UDP 5000; slow: the rping capture's frames 0.1 s apart
SH=${TEST_SHARED:-$T}/cli
MADE="trunc-data.pcap trunc-hdr.pcap trunc-global.pcap random.pcap empty.pcap huge-record.pcap wifi.pcap port5000.pcap slow.pcap"
if [ ! -s "$SH/slow.pcap" ]; then
	mkdir -p "$SH" || exit 2
	python3 - "$RPING" "$SH" <<'EOF' || exit 2
import random, struct, sys, zlib
rping, t = sys.argv[1], sys.argv[2]
def records(b):
    """each record's offset and captured length in b, a little-endian pcap"""
    assert b[:4] == b"\xd4\xc3\xb2\xa1", "little-endian pcap expected"
    off = 24
    while off + 16 <= len(b):
        cl = struct.unpack("<I", b[off + 8:off + 12])[0]
        yield off, cl
        off += 16 + cl
def damaged(argv):
    src, t = argv[1], argv[2]
    b = open(src, "rb").read()
    # cut in the middle of record 10's data: 9 whole records survive
    off = 24
    for _ in range(9):
        off += 16 + struct.unpack("<I", b[off + 8:off + 12])[0]
    open(t + "/trunc-data.pcap", "wb").write(b[:off + 16 + 20])
    open(t + "/trunc-hdr.pcap", "wb").write(b[:off + 7])     # inside record 10's header
    open(t + "/trunc-global.pcap", "wb").write(b[:13])       # inside the file header
    rnd = random.Random(4791)
    open(t + "/random.pcap", "wb").write(bytes(rnd.randrange(256) for _ in range(4096)))
    open(t + "/empty.pcap", "wb").close()
    # a pcap record claiming a 100 MB frame
    h = b[:24] + struct.pack("<IIII", 1, 0, 100000000, 100000000) + b"\0" * 64
    open(t + "/huge-record.pcap", "wb").write(h)
damaged([None, rping, t])

def wifi(argv):
    # LINKTYPE_IEEE802_11 (105): one data frame header + 8 bytes
    frame = bytes.fromhex("08020000ffffffffffff525400990002525400990001000000") + b"\xaa" * 8
    with open(argv[1], "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 105))
        f.write(struct.pack("<IIII", 1, 0, len(frame), len(frame)) + frame)
wifi([None, t + "/wifi.pcap"])

def port5000(argv):
    b = bytearray(open(argv[1], "rb").read())
    moved = 0
    for off, cl in records(b):
        f = off + 16
        if b[f + 12:f + 14] == b"\x08\x00" and b[f + 23] == 17:
            ip = f + 14
            ihl = (b[ip] & 15) * 4
            udp = ip + ihl
            if struct.unpack(">H", b[udp + 2:udp + 4])[0] == 4791:
                end = ip + struct.unpack(">H", b[ip + 2:ip + 4])[0]
                b[udp + 2:udp + 4] = struct.pack(">H", 5000)
                b[udp + 6:udp + 8] = b"\0\0"            # no UDP checksum (IPv4)
                m = bytearray(b[ip:end - 4])
                m[1] = 0xff                             # TOS
                m[8] = 0xff                             # TTL
                m[10:12] = b"\xff\xff"                  # header checksum
                m[ihl + 6:ihl + 8] = b"\xff\xff"        # UDP checksum
                m[ihl + 8 + 4] = 0xff                   # BTH FECN, BECN, resv6
                crc = zlib.crc32(b"\xff" * 8 + bytes(m))
                b[end - 4:end] = struct.pack("<I", crc)
                moved += 1
    open(argv[2], "wb").write(b)
    assert moved == 53, moved
port5000([None, rping, t + "/port5000.pcap"])

def slow(argv):
    b = bytearray(open(argv[1], "rb").read())
    for i, (off, cl) in enumerate(records(b)):
        b[off:off + 8] = struct.pack("<II", 1700000000 + i // 10, (i % 10) * 100000)
    open(argv[2], "wb").write(b)
slow([None, rping, t + "/slow.pcap"])
EOF
fi
# shellcheck disable=SC2086
(cd "$SH" && cp $MADE "$T/") || exit 2

# ---- a missing file -------------------------------------------------------------
run -r "$T/no-such-capture.pcap" --packets
expect_error "missing file" nz 0 "no-such-capture.pcap"

# ---- damaged captures (made above) ------------------------------------------------
run -r "$T/trunc-data.pcap" --packets
expect_error "capture truncated inside a record's data (9 frames, then the error)" nz 9 "trunc-data.pcap"
run -r "$T/trunc-hdr.pcap" --packets
expect_error "capture truncated inside a record header (9 frames, then the error)" nz 9 "trunc-hdr.pcap"
run -r "$T/trunc-data.pcap"
if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && [ "$(lines "$T/err")" -eq 1 ]; then
	ok "truncated capture without --packets: exit $rc"
else
	fail "truncated capture without --packets" "$(show)"
fi
run -r "$T/trunc-global.pcap" --packets
expect_error "capture truncated inside the file header" nz 0 "trunc-global.pcap"
run -r "$T/random.pcap" --packets
expect_error "file of random bytes" nz 0 "random.pcap"
run -r "$T/empty.pcap" --packets
expect_error "empty file" nz 0 "empty.pcap" "empty file"
grep -q "tried to read" "$T/err" && fail "empty file: libpcap's wording" "$(show)"
run -r "$T/no-such-capture.pcap"
if [ "$(grep -o "no-such-capture.pcap" "$T/err" | wc -l)" -eq 1 ] && grep -q "No such file" "$T/err"; then
	ok "missing file: the path once ($(cat "$T/err"))"
else
	fail "missing file: the path once" "$(show)"
fi
run -r "$T/huge-record.pcap" --packets
expect_error "record claiming a 100 MB frame" nz 0 "huge-record.pcap"

# ---- an unsupported link type ---------------------------------------------------
run -r "$T/wifi.pcap" --packets
expect_error "unsupported link type 105" nz 0 "wifi.pcap" "105"
if grep -qi "802" "$T/err"; then
	ok "unsupported link type: the error names IEEE 802.11"
else
	fail "unsupported link type: the error names IEEE 802.11" "$(show)"
fi

# ---- BPF filters ----------------------------------------------------------------
run -r "$RPING" --packets udp dst port 4791 and ip src 10.99.0.2
n=$(lines "$T/out")
want=$("$TSHARK" -r "$RPING" -Y 'udp.dstport == 4791 && ip.src == 10.99.0.2' 2>/dev/null | wc -l | tr -d ' ')
others=$(grep -cv ' 10\.99\.0\.2\.[0-9]* > [0-9.]*\.4791: ' "$T/out")
if [ "$rc" -eq 0 ] && [ "$n" -eq "$want" ] && [ "$n" -gt 0 ] && [ "$others" -eq 0 ]; then
	ok "filter 'udp dst port 4791 and ip src 10.99.0.2': $n frames, as tshark"
else
	fail "filter 'udp dst port 4791 and ip src 10.99.0.2'" \
		"rocetop $n frames ($others not matching), tshark $want" "$(show)"
fi
run -r "$RPING" --packets "udp dst port 4791 and ip src 10.99.0.2"
if [ "$rc" -eq 0 ] && [ "$(lines "$T/out")" -eq "$want" ]; then
	ok "filter given as one argument: $want frames"
else
	fail "filter given as one argument" "$(show)"
fi
run -r "$RPING" --packets udp dst port
expect_error "bad filter 'udp dst port'" 2 0 "udp dst port"
run -r "$RPING" --packets nosuchprotocol
expect_error "bad filter 'nosuchprotocol'" 2 0 "nosuchprotocol"

# ---- -c N -------------------------------------------------------------------------
run -r "$RPING" --packets -c 7
if [ "$rc" -eq 0 ] && [ "$(lines "$T/out")" -eq 7 ] && [ ! -s "$T/err" ] &&
	head -n 7 "$T/out" | cmp -s - "$T/out"; then
	cp "$T/out" "$T/c7"
	run -r "$RPING" --packets
	if head -n 7 "$T/out" | cmp -s - "$T/c7"; then
		ok "-c 7: the first 7 frames"
	else
		fail "-c 7: the first 7 frames" "differs from the first 7 lines of the full listing"
	fi
else
	fail "-c 7" "$(show)"
fi
run -r "$RPING" --packets -c 3 --json
if [ "$rc" -eq 0 ] && [ "$(lines "$T/out")" -eq 3 ]; then
	ok "-c 3 --json: 3 objects"
else
	fail "-c 3 --json" "$(show)"
fi
run -r "$RPING" --packets -c 1000
if [ "$rc" -eq 0 ] && [ "$(lines "$T/out")" -eq 55 ]; then
	ok "-c 1000 on a 55-frame capture: 55 frames"
else
	fail "-c 1000 on a 55-frame capture" "$(show)"
fi
run -r "$RPING" --packets -c 4 udp
if [ "$rc" -eq 0 ] && [ "$(lines "$T/out")" -eq 4 ] && ! grep -q ethertype "$T/out"; then
	ok "-c 4 counts frames that pass the filter"
else
	fail "-c 4 counts frames that pass the filter" "$(show)"
fi
run -r "$RPING" --packets -c 0
expect_error "-c 0" 2 0 "0"
run -r "$RPING" --packets -c x
expect_error "-c x" 2 0 "x"

# ---- option errors --------------------------------------------------------------
# --json without --packets: JSON lines, the last one the summary with its flows
run -r "$RPING" --json
if [ "$rc" -eq 0 ] && python3 - "$T/out" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
objs = [json.loads(l) for l in lines]
last = objs[-1]
assert last["frames"] == 55, last["frames"]
assert sum(f["packets"] for f in last["flows"]) == 53
assert all({"src", "dst", "destqp"} <= set(f) for f in last["flows"])
PY
then
	ok "--json without --packets: JSON summary, 55 frames, flows hold the 53 RoCE packets"
else
	fail "--json without --packets" "$(show)"
fi
run --packets
expect_error "neither -r nor -i" 2 0 "-r"
run -r "$RPING" -d 70000 --packets
expect_error "-d 70000" 2 0 "70000"
run -r "$RPING" --no-such-option
expect_error "unknown option: one line, not the usage" 2 0 "--no-such-option" "see --help"
run -r "$RPING" --speed
expect_error "option without its value" 2 0 "--speed" "see --help"
run -r "$RPING" -b --prometheus nonsense
expect_error "--prometheus nonsense: a usage error" 2 0 "nonsense" "ADDR:PORT"

# ---- the totals without --packets -----------------------------------------------
run -r "$RPING"
if [ "$rc" -eq 0 ] && grep -q '^55 frames: RoCE v1 0, v2 53,' "$T/out" && grep -q '^ICRC: 53 good, 0 bad' "$T/out"; then
	ok "totals: $(head -n 1 "$T/out")"
else
	fail "totals without --packets" "$(show)" "$(cat "$T/out")"
fi

# ---- pcapng gives the same listing ----------------------------------------------
for cap in roce_rping roce_rc_pingpong_ipv6gid roce_udaddy; do
	if ! editcap -F pcapng "$LAB/$cap.pcap" "$T/$cap.pcapng" 2>"$T/err"; then
		fail "editcap -F pcapng $cap" "$(cat "$T/err")"
		continue
	fi
	for mode in "" "--json"; do
		# shellcheck disable=SC2086
		run -r "$LAB/$cap.pcap" --packets $mode
		cp "$T/out" "$T/a"
		# shellcheck disable=SC2086
		run -r "$T/$cap.pcapng" --packets $mode
		if [ "$rc" -eq 0 ] && [ -s "$T/a" ] && cmp -s "$T/a" "$T/out"; then
			ok "pcapng $cap ${mode:---packets}: same listing as the pcap ($(lines "$T/out") frames)"
		else
			fail "pcapng $cap ${mode:---packets}: same listing as the pcap" "$(show)" \
				"$(diff "$T/a" "$T/out" | head -n 6 | tr '\n' '|')"
		fi
	done
done

# ---- -d PORT adds a RoCEv2 port --------------------------------------------------
# Every RoCEv2 frame of the rping capture moved from UDP 4791 to 5000, with its
# ICRC recomputed (the UDP ports are inside the ICRC): port5000.pcap, made above.
run -r "$T/port5000.pcap" --packets
n_plain_roce=$(grep -c ' v2' "$T/out")
run -r "$T/port5000.pcap" --packets -d 5000
n_port=$(grep -c ' v2-port ' "$T/out")
n_good=$(grep ' v2-port ' "$T/out" | grep -c 'icrc good$')
if [ "$n_plain_roce" -eq 0 ] && [ "$n_port" -eq 53 ] && [ "$n_good" -eq 53 ]; then
	ok "-d 5000: 53 frames decode as v2-port with a good ICRC (0 without -d)"
else
	fail "-d 5000" "without -d: $n_plain_roce RoCE frames (want 0); with -d 5000: $n_port v2-port (want 53), $n_good good ICRC" "$(show)"
fi
run -r "$T/port5000.pcap" --packets --json -d 5000
n_json=$(grep -c '"roce.version":"v2-port"' "$T/out")
if [ "$n_json" -eq 53 ]; then
	ok "-d 5000 --json: roce.version \"v2-port\" on 53 frames"
else
	fail "-d 5000 --json" "roce.version v2-port on $n_json frames, want 53"
fi
run -r "$RPING" --packets -d 5000
if [ "$(grep -c ' v2 ' "$T/out")" -eq 53 ]; then
	ok "-d 5000 keeps 4791: 53 v2 frames in the original capture"
else
	fail "-d 5000 keeps 4791" "$(show)"
fi

# ---- batch on a replay: snapshots only with -d/-n, times to the millisecond, average rates ----
# the rping capture with its frames 0.1 s apart (about 10 s long): slow.pcap, made above
snaps() { grep -c '^rocetop [0-9]* - ' "$T/out"; }
run -r "$T/slow.pcap" -b
if [ "$rc" -eq 0 ] && [ "$(snaps)" -eq 0 ] && grep -q '^Flows (by bytes)' "$T/out"; then
	ok "-r -b on a 10 s capture: the summary only, no snapshot every 2 s"
else
	fail "-r -b: snapshots without -d/-n" "$(show)" "$(grep '^rocetop ' "$T/out" | head -n 3)"
fi
run -r "$T/slow.pcap" -b -n 2
n2=$(snaps)
run -r "$T/slow.pcap" -b -d 1
if [ "$n2" -eq 2 ] && [ "$(snaps)" -ge 4 ]; then
	ok "-r -b -n 2: 2 snapshots; -d 1: $(snaps)"
else
	fail "-r -b -n/-d snapshots" "-n 2 gave $n2; -d 1 gave $(snaps)"
fi
run -r "$T/slow.pcap" -b -d 0.25 -n 3
t1=$(sed -n 's/^rocetop 1 - \([0-9:.]*\) UTC.*/\1/p' "$T/out")
t2=$(sed -n 's/^rocetop 2 - \([0-9:.]*\) UTC.*/\1/p' "$T/out")
if printf '%s\n%s\n' "$t1" "$t2" | grep -Eqx '[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}' &&
	[ "${t1#*.}" != "${t2#*.}" ]; then
	ok "-d 0.25: snapshot times to the millisecond ($t1, $t2)"
else
	fail "-d 0.25: snapshot times" "$(grep '^rocetop ' "$T/out" | head -n 3)"
fi
# the summary's rates: average over each flow's life and over the capture (report.c's format)
run -r "$RPING" --json
tail -n 1 "$T/out" >"$T/sum.json"
run -r "$RPING" -b
want=$(python3 - "$T/sum.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def rs(b):
    u = ["b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s"]
    i = 0
    while b >= 1000 and i < 4:
        b /= 1000
        i += 1
    return ("%.2f %s" if i else "%.0f %s") % (b, u[i])
f = max(d["flows"], key=lambda f: f["bytes"])
print("%s|%s|%s" % (rs(d["bytes"] * 8 / d["duration_s"]), f["bytes"],
                    rs(f["bytes"] * 8 / (f["last_s"] - f["first_s"]))))
EOF
)
cap_avg=${want%%|*} rest=${want#*|}
fl_bytes=${rest%%|*} fl_avg=${rest#*|}
if grep -q "bytes (average $cap_avg);" "$T/out" && grep -q '^  FLOW .* AVG RATE$' "$T/out" &&
	grep -Eq "^  .* $fl_bytes( +[0-9]+){4} +$fl_avg\$" "$T/out"; then
	ok "-b summary: capture average $cap_avg, largest flow's AVG RATE $fl_avg (JSON bytes over first_s..last_s)"
else
	fail "-b summary average rates (want $cap_avg, $fl_avg)" "$(grep -E 'average|AVG|^  [0-9]' "$T/out" | head -n 5)"
fi
# ---- --top N: the summary's flow list, the totals whole ---------------------------------
run -r "$LAB/roce_send_bw_netem.pcap" --json --top 1
if [ "$rc" -eq 0 ] && tail -n 1 "$T/out" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert d["flows_live"] == 2 and d["flows_listed"] == 1 and len(d["flows"]) == 1, d["flows_listed"]
assert d["flows"][0]["packets"] == 2004                     # the largest by bytes
assert d["totals"]["requests"] == 2004 and d["frames"] == 2193   # totals count every flow
'; then
	ok "--json --top 1: one flow listed (the largest), totals of all"
else
	fail "--json --top 1" "$(show)"
fi
run -r "$RPING" --top 0
expect_error "--top 0" 2 0 "--top"

# ---- a bad IPv4 header checksum shows in the listing, as in the JSON -----------------
run -r "$root/captures/gen/invalid.pcap" --packets
n_text=$(grep -c "bad IPv4 header checksum" "$T/out")
run -r "$root/captures/gen/invalid.pcap" --packets --json
n_json=$(grep -c '"roce.ip.checksum.status":"bad"' "$T/out")
if [ "$n_text" -ge 1 ] && [ "$n_text" -eq "$n_json" ]; then
	ok "bad IPv4 header checksum flagged in the listing ($n_text frame, as the JSON)"
else
	fail "bad IPv4 header checksum in the listing" "listing $n_text, JSON $n_json"
fi

# ---- no silent loss on write (-w, stdout) ---------------------------------------
# A full disk (/dev/full) or a file size limit (ulimit -f): one line naming the
# file and the errno, exit non-zero.
run -r "$RPING" -b -w /dev/full
expect_error "-w /dev/full" 1 "$(lines "$T/out")" "/dev/full" "No space left on device"
(ulimit -f 4; TZ=UTC "$R" -r "$LAB/roce_send_bw_netem.pcap" -b -w "$T/limited.pcap" >"$T/out" 2>"$T/err"; echo $? >"$T/rc")
rc=$(cat "$T/rc")
expect_error "-w under ulimit -f 4" 1 "$(lines "$T/out")" "$T/limited.pcap" "File too large"
run -r "$RPING" --packets -w "$T/ok.pcap"
if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && [ "$(tshark -r "$T/ok.pcap" 2>/dev/null | wc -l)" -eq 55 ]; then
	ok "-w FILE that fits: 55 frames saved, exit 0"
else
	fail "-w FILE that fits" "$(show)"
fi
for mode in "--packets" "-b" "--json"; do
	TZ=UTC "$R" -r "$RPING" $mode >/dev/full 2>"$T/err"
	rc=$?
	: >"$T/out"
	expect_error "stdout on /dev/full ($mode)" 1 0 "No space left on device"
done

# ---- one spelling per option across the tools: --mtu (rocegen's), --pmtu the old one ----
# The configured path MTU shows on a flow that carries none of its own (pmtu_source configured).
NETEM=$LAB/roce_send_bw_netem.pcap
cfg_mtu() { tail -n 1 "$T/out" | jq -r '[.flows[] | select(.pmtu_source == "configured") | .pmtu] | unique | join(",")'; }
run -r "$NETEM" --json
m_dflt=$(cfg_mtu)
run -r "$NETEM" --json --mtu 256
m_new=$(cfg_mtu) e_new=$(lines "$T/err")
cp "$T/out" "$T/mtu_new.json"
run -r "$NETEM" --json --pmtu 256
m_old=$(cfg_mtu)
if [ "$m_new" = 256 ] && [ "$m_dflt" != 256 ] && [ "$e_new" -eq 0 ]; then
	ok "--mtu 256: the configured path MTU of the flows without their own (default: $m_dflt)"
else
	fail "--mtu 256" "configured $m_new (default $m_dflt), $e_new lines on stderr"
fi
if [ "$rc" -eq 0 ] && cmp -s "$T/out" "$T/mtu_new.json" && [ "$m_old" = 256 ] && [ "$(lines "$T/err")" -eq 1 ] &&
	grep -q -- "^rocetop: note: --pmtu is the old spelling of --mtu" "$T/err"; then
	ok "--pmtu 256: the old spelling, the same output, one note: $(cat "$T/err")"
else
	fail "--pmtu (old spelling)" "$(show)"
fi
run -r "$NETEM" --mtu 300
expect_error "--mtu 300 refused" 2 0 "--mtu" "300"

# ---- a missing interface: exit 1, as rocegen's (rocetop(8) EXIT STATUS) ------------------
noif=rtnoif$$
while ip link show "$noif" >/dev/null 2>&1; do noif=${noif}x; done
run -i "$noif" -b
expect_error "-i $noif (no such interface)" 1 0 "$noif"
G=$BUILD/bin/rocegen
if [ -x "$G" ]; then
	"$G" frames rc-send-only -i "$noif" >/dev/null 2>&1
	grc=$?
	[ "$grc" -eq "$rc" ] && ok "rocegen -i $noif exits $grc too" || fail "rocegen -i $noif exits $grc, rocetop $rc"
fi

# ---- gzip-compressed captures (.pcap.gz, .pcapng.gz): a stream through zlib ---------------
# Told by the magic bytes, not the name: the compressed copy has the uncompressed one's name in
# another folder, so that every output (which names the file) must be byte for byte the same.
mkdir "$T/u" "$T/z"
cp "$NETEM" "$T/u/netem.pcap"
gzip -c "$NETEM" >"$T/z/netem.pcap"
editcap -F pcapng "$RPING" "$T/u/rping.pcapng"
gzip -c "$T/u/rping.pcapng" >"$T/z/rping.pcapng.gz"
cp "$T/u/rping.pcapng" "$T/u/rping.pcapng.gz"
for cap in netem.pcap rping.pcapng.gz; do
	for mode in "-b" "--json" "--packets --json" "-b --threads 2"; do
		# shellcheck disable=SC2086
		(cd "$T/u" && TZ=UTC "$R" -r "$cap" $mode >"$T/gz_u.out" 2>"$T/gz_u.err"); urc=$?
		# shellcheck disable=SC2086
		(cd "$T/z" && TZ=UTC "$R" -r "$cap" $mode >"$T/gz_z.out" 2>"$T/gz_z.err"); zrc=$?
		if [ "$urc" -eq 0 ] && [ "$zrc" -eq 0 ] && [ -s "$T/gz_u.out" ] && cmp -s "$T/gz_u.out" "$T/gz_z.out" &&
			[ ! -s "$T/gz_z.err" ] && [ "$(head -c 2 "$T/z/$cap" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
			ok "gzipped $cap, $mode: the same $(lines "$T/gz_z.out") lines as uncompressed"
		else
			fail "gzipped $cap, $mode" "exit $urc/$zrc" "$(cmp "$T/gz_u.out" "$T/gz_z.out" 2>&1)" "$(head -c 300 "$T/gz_z.err")"
		fi
	done
done
# cut short: what was decoded, then one line and exit 1 (as a truncated pcap)
all=$("$R" -r "$NETEM" --packets | wc -l)
sz=$(wc -c <"$T/z/netem.pcap")
head -c $((sz / 2)) "$T/z/netem.pcap" >"$T/cut.pcap.gz"
run -r "$T/cut.pcap.gz" --packets
ncut=$(lines "$T/out")
if [ "$ncut" -gt 0 ] && [ "$ncut" -lt "$all" ]; then
	expect_error "truncated .pcap.gz: $ncut of $all frames listed, then the error" 1 "$ncut" "cut.pcap.gz" \
		"truncated gzip stream" "after $ncut frames"
else
	fail "truncated .pcap.gz" "$ncut of $all frames listed" "$(show)"
fi
run -r "$T/cut.pcap.gz" -b
got=$(sed -n 's/^\([0-9][0-9]*\) frames:.*/\1/p' "$T/out" | tail -n 1)
expect_error "truncated .pcap.gz, -b: the summary of the $got frames decoded, then the error" 1 "$(lines "$T/out")" \
	"truncated gzip stream"
[ "$got" = "$ncut" ] || fail "truncated .pcap.gz, -b: summary of $got frames, the listing had $ncut"
head -c 10 "$T/z/netem.pcap" >"$T/tiny.gz"
run -r "$T/tiny.gz" -b
expect_error "a gzip file cut inside the capture's header" 1 0 "tiny.gz" "gzip"
gzip -c "$here/cli.sh" >"$T/text.gz"
run -r "$T/text.gz" -b
expect_error "a gzip file of something else" 1 0 "text.gz" "gzip-compressed, but not a pcap or pcapng"

# ---- -r A -r B: one timeline merged by timestamp, as mergecap; JSON names each flow's files ----
A=$RPING B=$NETEM
mergecap -w "$T/merged.pcap" "$A" "$B"
run -r "$A" -r "$B" -b
grep -v "^$A + $B: " "$T/out" >"$T/m_ab.txt"
ab_src=$(grep -c "^$A + $B: " "$T/out")
run -r "$T/merged.pcap" -b
grep -v "^$T/merged.pcap: " "$T/out" >"$T/m_mc.txt"
if [ "$rc" -eq 0 ] && [ "$ab_src" -eq 1 ] && [ -s "$T/m_ab.txt" ] && cmp -s "$T/m_ab.txt" "$T/m_mc.txt"; then
	ok "-r A -r B -b: mergecap's summary, the source named 'A + B'"
else
	fail "-r A -r B -b against mergecap" "$(diff "$T/m_ab.txt" "$T/m_mc.txt" | head -5)"
fi
J='del(.source) | del(.flows[].files)'
TZ=UTC "$R" -r "$A" -r "$B" --json | tail -n 1 >"$T/m_ab.json"
TZ=UTC "$R" -r "$T/merged.pcap" --json | tail -n 1 >"$T/m_mc.json"
if [ "$(jq -S "$J" "$T/m_ab.json")" = "$(jq -S "$J" "$T/m_mc.json")" ] && [ -n "$(jq -S "$J" "$T/m_mc.json")" ] &&
	[ "$(jq -r .source "$T/m_ab.json")" = "$A + $B" ]; then
	ok "-r A -r B --json: mergecap's, but the source and the flows' files"
else
	fail "-r A -r B --json against mergecap" "source $(jq -r .source "$T/m_ab.json")"
fi
# each flow's files: the flows of A alone name A, those of B alone B
keys() { jq -r '.flows[] | "\(.src) \(.dst) \(.destqp) \(.kind)"' "$1" | sort; }
for one in A B; do
	eval "f=\$$one"
	TZ=UTC "$R" -r "$f" --json | tail -n 1 >"$T/m_one.json"
	keys "$T/m_one.json" >"$T/m_one.keys"
	jq -r --arg f "$f" '.flows[] | select(.files == [$f]) | "\(.src) \(.dst) \(.destqp) \(.kind)"' "$T/m_ab.json" | sort >"$T/m_named.keys"
	if [ -s "$T/m_one.keys" ] && cmp -s "$T/m_one.keys" "$T/m_named.keys"; then
		ok "-r A -r B --json: the $(lines "$T/m_one.keys") flows of $one alone name $one as their file"
	else
		fail "-r A -r B --json: the flows of $one" "$(diff "$T/m_one.keys" "$T/m_named.keys" | head -5)"
	fi
done
run -r "$A" -r "$A" --json
both=$(tail -n 1 "$T/out" | jq --arg f "$A" '[.flows[] | select(.files == [$f, $f])] | length')
all=$(tail -n 1 "$T/out" | jq '.flows | length')
[ "$rc" -eq 0 ] && [ "$all" -gt 0 ] && [ "$both" = "$all" ] && ok "-r A -r A: every flow seen in both" ||
	fail "-r A -r A" "$both of $all flows name both files"
# the listing: mergecap's frames in mergecap's order, each with its file and its
# frame number there ("A:7"): A's lines numbered 1..(A's frames), B's likewise
TZ=UTC "$R" -r "$A" -r "$B" --packets >"$T/m_ab.full"
cut -d' ' -f2- "$T/m_ab.full" >"$T/m_ab.lst"
TZ=UTC "$R" -r "$T/merged.pcap" --packets | cut -d' ' -f2- >"$T/m_mc.lst"
# per file: "NAME lines first last ok" (ok: its numbers run 1, 2, ... in order)
nums() { awk -v a="$A" -v b="$B" '{ f = $1; sub(/:[0-9]+$/, "", f); n = substr($1, length(f) + 2)
	if (f != a && f != b) bad++; c[f]++; if (n != c[f]) bad++ }
	END { print c[a] + 0, c[b] + 0, bad + 0 }' "$1"; }
na=$(TZ=UTC "$R" -r "$A" --packets | wc -l) nb=$(TZ=UTC "$R" -r "$B" --packets | wc -l)
if [ -s "$T/m_ab.lst" ] && cmp -s "$T/m_ab.lst" "$T/m_mc.lst" && [ "$(nums "$T/m_ab.full")" = "$na $nb 0" ]; then
	ok "-r A -r B --packets: mergecap's frames in its order, each as FILE:N, N its number in its file ($na + $nb)"
else
	fail "-r A -r B --packets" "$(cmp "$T/m_ab.lst" "$T/m_mc.lst" 2>&1)" "A B bad: $(nums "$T/m_ab.full"), want $na $nb 0"
fi
# JSON: "rocetop.file" and frame.number, the same pairs as the text's
TZ=UTC "$R" -r "$A" -r "$B" --packets --json | jq -r '"\(.["rocetop.file"]):\(.["frame.number"])"' >"$T/m_ab.jkeys"
if [ -s "$T/m_ab.jkeys" ] && [ "$(awk '{ print $1 }' "$T/m_ab.full")" = "$(cat "$T/m_ab.jkeys")" ]; then
	ok "-r A -r B --packets --json: each frame's rocetop.file and frame.number, as the text's ($(lines "$T/m_ab.jkeys"))"
else
	fail "-r A -r B --packets --json: rocetop.file" "$(awk '{ print $1 }' "$T/m_ab.full" | diff - "$T/m_ab.jkeys" 2>&1 | head -3)"
fi
[ "$(TZ=UTC "$R" -r "$A" --packets --json | jq -r '.["rocetop.file"]' | sort -u)" = null ] &&
	ok "-r A --packets --json: no rocetop.file with one file" || fail "-r A --packets --json: rocetop.file with one file"
# the verdict marks stay on their frames under a filter (keyed by file and
# number; by the merged place, a filter moved them onto other frames)
grep -o '^[^ ]* .*\[verdict: [a-z_]*\]' "$T/m_ab.full" | sed 's/ .*\[verdict:/ [verdict:/' >"$T/m_v.all"
TZ=UTC "$R" -r "$A" -r "$B" --packets udp | grep -o '^[^ ]* .*\[verdict: [a-z_]*\]' | sed 's/ .*\[verdict:/ [verdict:/' >"$T/m_v.udp"
if [ -s "$T/m_v.all" ] && cmp -s "$T/m_v.all" "$T/m_v.udp"; then
	ok "-r A -r B --packets udp: the verdict marks on the frames they mark unfiltered ($(paste -sd' ' "$T/m_v.udp"))"
else
	fail "-r A -r B --packets udp: verdict marks" "unfiltered: $(paste -sd' ' "$T/m_v.all")" "udp: $(paste -sd' ' "$T/m_v.udp")"
fi
run -r "$A" -r "$T/no-such-second.pcap" -b
expect_error "-r A -r MISSING: exit 1 naming the second file" 1 0 "no-such-second.pcap"

echo "cli: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
