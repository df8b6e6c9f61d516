#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# threads.sh — rocetop --threads N counts what one thread counts.
#
#   BUILD=build tests/threads.sh
#
# Replay: every capture in captures/lab and captures/link, and a capture
# made here that puts seven lab captures (RC with loss, RNR, CM, iWARP) on
# seven address pairs, interleaved (IPv4 checksums and ICRCs made again):
# the --json summaries (and -d snapshots) of --threads 2 and 3 equal
# --threads 1's, but for the RTT state's memory figures, and so do their
# --prometheus /metrics; the mixed capture really is split (every thread
# counts frames: "threads"); cut short or damaged, it gives every thread
# count the same summary and error.  Three files merged by -r A -r B -r C:
# the same on 2 and 3 threads as on one, each flow's files included.
# Live (root): that capture sent by tcpreplay into a veth pair in network
# namespaces made here; rocetop --threads 1 and --threads 2 capture it side
# by side (-c: every frame), and their summaries are equal but for the
# ring's size — the same frames with the same kernel timestamps, so even
# the RTTs agree.
#
# Prints "ok"/"FAIL" lines; exits 1 when a check fails.  The live part says
# "skipped" when it cannot run here (not root, no ip(8) or tcpreplay).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
R=$BUILD/bin/rocetop
[ -x "$R" ] || { echo "threads: $R not built" >&2; exit 2; }
cd "$root" || exit 2

T=$(mktemp -d "${TMPDIR:-/tmp}/threads.XXXXXX") || exit 2
chmod 755 "$T"
NA=thr-a-$$
NB=thr-b-$$
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	ip netns del "$NA" 2>/dev/null
	ip netns del "$NB" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fails=0
ok() { echo "ok   $1"; }
fail() {
	echo "FAIL $1"
	shift
	for l; do echo "     $l"; done
	fails=$((fails + 1))
}

# checks.py replay DIR N F1 F2 F3 / checks.py live DIR N: every comparison of
# the replay (or the live part) in one python; prints ok/FAIL lines, then
# "FAILS FRAMES".  same(A, B, IGNORE): every JSON line of A equals B's, keys
# IGNORE (dotted paths) aside; None, or the first difference.
cat >"$T/checks.py" <<'EOF'
import json, re, sys
MEM = ["rtt_state.bytes", "rtt_state.peak_bytes", "threads"]
def drop(o, path):
    k = path.split(".")
    for p in k[:-1]:
        o = o.get(p, {}) if isinstance(o, dict) else {}
    for e in (o if isinstance(o, list) else [o]):
        if isinstance(e, dict):
            e.pop(k[-1], None)
def same(pa, pb, ignore=MEM):
    """None, or the first difference"""
    try:
        a, b = (open(p).read().splitlines() for p in (pa, pb))
        if len(a) != len(b):
            return "%d lines, %d lines" % (len(a), len(b))
        if not a:
            return "no output"
        for n, (x, y) in enumerate(zip(a, b), 1):
            x, y = json.loads(x), json.loads(y)
            for p in ignore:
                drop(x, p); drop(y, p)
            if x != y:
                for k in x:
                    if x.get(k) != y.get(k) and isinstance(x.get(k), list) and isinstance(y.get(k), list):
                        for i, (u, v) in enumerate(zip(x[k], y[k])):
                            if u != v:
                                return "line %d: %s[%d]: %.300s | %.300s" % (n, k, i, u, v)
                    if x.get(k) != y.get(k):
                        return "line %d: %s: %.200s | %.200s" % (n, k, x.get(k), y.get(k))
                return "line %d differs" % n
    except (OSError, ValueError) as e:
        return str(e)
    return None
fails = 0
def ok(m):
    print("ok   " + m)
def fail(m, *lines):
    global fails
    print("FAIL " + m)
    for l in lines:
        print("     " + str(l))
    fails += 1
def last(p):
    return json.loads(open(p).read().splitlines()[-1])
def nlines(p):
    return len(open(p).read().splitlines())
def check(name, f):
    """f() prints its ok/FAIL line; an exception (a missing or broken output) fails NAME"""
    try:
        f()
    except Exception as e:
        fail(name, "%s: %s" % (type(e).__name__, e))

mode, T, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
frames = 0
if mode == "replay":
    def pairs():
        bad = []
        for l in open(T + "/cap/list"):
            pa, pb, name = l.split(None, 2)
            why = same(pa, pb)
            if why:
                bad.append("%s: %s" % (name.strip(), why))
        if not bad and n > 50:
            ok("replay: %d captures of lab/ and link/, --threads 2 summaries equal --threads 1's" % n)
        else:
            fail("replay: --threads 2 differs", *bad)
    check("replay: --threads 2", pairs)
    try:
        frames = last(T + "/m1.json")["frames"]
    except Exception as e:
        fail("replay: seven address pairs, --threads 1", "%s: %s" % (type(e).__name__, e))
    for t in (2, 3):
        def mix():
            why = same(T + "/m1.json", "%s/m%d.json" % (T, t))
            if why is None:
                ok("replay: seven address pairs, %d snapshots and the summary: --threads %d equals --threads 1"
                   % (nlines(T + "/m1.json") - 1, t))
            else:
                fail("replay: seven address pairs, --threads %d" % t, why)
        check("replay: seven address pairs, --threads %d" % t, mix)
        def split():
            th = last("%s/m%d.json" % (T, t)).get("threads", [])
            s = "%d %d %d" % (len(th), min(th or [0]), sum(th))
            if len(th) == t and min(th or [0]) > 0 and sum(th) == frames:
                ok("replay: --threads %d split the frames (%s)" % (t, s))
            else:
                fail("replay: --threads %d split" % t, "threads/min/sum: %s, frames %s" % (s, frames))
        check("replay: --threads %d split" % t, split)
    for f in ("cut", "bad"):
        for t in (2, 3):
            def damaged():
                e1, et = (open("%s/%s.%se" % (T, f, k)).read() for k in (1, t))
                why = same("%s/%s.1" % (T, f), "%s/%s.%d" % (T, f, t))
                if why is None and e1 == et and re.search("^exit 1", e1, re.M) and re.search("frame .* at byte", e1):
                    ok("replay: the mixed capture %s (%s...): --threads %d equals --threads 1" % (f, e1[:80], t))
                else:
                    fail("replay: the mixed capture %s, --threads %d" % (f, t), why or "", e1 + et)
            check("replay: the mixed capture %s, --threads %d" % (f, t), damaged)
    def paired():
        c = last(T + "/m2.json")["connections"]
        p = "%s %s" % (c["paired"], c["unpaired_request_flows"])
        if p == "8 0":
            ok("replay: both directions of each connection met (8 paired, 0 unpaired)")
        else:
            fail("replay: pairing", "paired, unpaired: " + p)
    check("replay: pairing", paired)
    def named():
        got = " ".join(sorted({x for fl in last(T + "/f1.json")["flows"] for x in (fl.get("files") or [])}))
        if got == " ".join(sorted(sys.argv[4:7])):
            ok("replay: -r A -r B -r C, one thread: the flows name the 3 files")
        else:
            fail("replay: -r A -r B -r C, one thread", "files named: " + got)
    check("replay: -r A -r B -r C, one thread", named)
    for t in (2, 3):
        def files():
            nf = len([fl for fl in last("%s/f%d.json" % (T, t))["flows"] if fl.get("files")])
            why = same(T + "/f1.json", "%s/f%d.json" % (T, t))
            if why is None:
                ok("replay: -r A -r B -r C, %d snapshots and the summary: --threads %d equals --threads 1 (files of its %d flows too)"
                   % (nlines(T + "/f1.json") - 1, t, nf))
            else:
                fail("replay: -r A -r B -r C, --threads %d" % t, why)
        check("replay: -r A -r B -r C, --threads %d" % t, files)
else:
    # live: the threads read their own sockets (no frame numbers across them)
    # and the diagnosis's timed rules see each run's own clock at its end
    def live():
        drops = sum(json.loads(l).get("capture", {}).get("dropped", 0)
                    for p in ("l1.json", "l2.json") for l in open(T + "/" + p))
        if drops:
            print("threads: live: skipped: the capture dropped %d frames (a loaded machine)" % drops)
            return
        why = same(T + "/l1.json", T + "/l2.json", MEM + ["capture.ring_frames", "capture.interfaces", "diagnosis"])
        if why is None:
            ok("live: %d frames on vB, --threads 2 summary equals --threads 1's (RTTs included)" % n)
        else:
            fail("live: --threads 2 differs from --threads 1", why)
        split = last(T + "/l2.json").get("threads")
        if not split or split[0] == 0 or split[-1] == 0:
            fail("live: the fanout group split nothing", "threads: %s" % split)
        else:
            ok("live: the fanout group's program split the frames: %s" % split)
    check("live", live)
print(fails, frames)
EOF

# mix.py OUT IN...: each IN (Ethernet, IPv4 10.99.0.x) with its third address
# byte set to its index + 1, interleaved by time (each shifted by index * 37 us);
# and beside OUT its damaged copies cut.pcap and bad.pcap (see the replay)
cat >"$T/mix.py" <<'EOF'
import struct, sys, zlib
def frames(path):
    b = open(path, "rb").read()
    e = "<" if b[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    ns = b[:4] in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    off = 24
    while off + 16 <= len(b):
        s, us, cl, wl = struct.unpack(e + "IIII", b[off:off + 16])
        yield s * 1000000000 + us * (1 if ns else 1000), b[off + 16:off + 16 + cl], wl
        off += 16 + cl
def icrc(f, ihl):
    """RoCEv2 ICRC (IBA A17.8): CRC-32 of the masked headers and payload, little-endian"""
    ip = bytearray(f[14:14 + ihl]); ip[1] = ip[8] = 0xff; ip[10:12] = b"\xff\xff"
    udp = bytearray(f[14 + ihl:22 + ihl]); udp[6:8] = b"\xff\xff"
    bth = bytearray(f[22 + ihl:-4]); bth[4] = 0xff
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth)))
def csum(h):
    s = sum(struct.unpack(">%dH" % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
out = []
for k, path in enumerate(sys.argv[2:]):
    for ts, f, wl in frames(path):
        f = bytearray(f)
        if f[12:14] == b"\x08\x00" and f[26:28] == b"\x0a\x63":
            f[28] = f[32] = k + 1
            ihl = (f[14] & 15) * 4
            f[24:26] = b"\0\0"
            f[24:26] = struct.pack(">H", csum(bytes(f[14:14 + ihl])))
            if f[23] == 17 and f[16 + ihl:18 + ihl] == b"\x12\xb7" and len(f) == wl:
                f[-4:] = icrc(f, ihl)
        out.append((ts + k * 37000, k, f, wl))
out.sort(key=lambda x: (x[0], x[1]))
with open(sys.argv[1], "wb") as o:
    o.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 262144, 1))
    for ts, k, f, wl in out:
        ts = ts - out[0][0] + 1700000000 * 1000000000
        o.write(struct.pack("<IIII", ts // 1000000000, ts % 1000000000, len(f), wl) + bytes(f))
# beside OUT: cut.pcap (cut in the middle of a record) and bad.pcap (record
# 5000's length made 300,000)
import os
b = open(sys.argv[1], "rb").read()
off, n = 24, 0
while off + 16 <= len(b):
    cl = struct.unpack("<I", b[off + 8:off + 12])[0]
    n += 1
    if n == 5000:
        bad = off
    off += 16 + cl
d = os.path.dirname(sys.argv[1])
open(os.path.join(d, "cut.pcap"), "wb").write(b[:len(b) - 100])
open(os.path.join(d, "bad.pcap"), "wb").write(b[:bad + 8] + struct.pack("<I", 300000) + b[bad + 12:])
EOF
L=captures/lab
MIX=$T/mix.pcap
# The mixed capture, and from it (cut.pcap, bad.pcap below) the damaged
# ones, depend on no build: made by the job's first run, the other build's
# run takes them from TEST_SHARED (tests/run.sh).
S=${TEST_SHARED:-$T}/threads
if [ -s "$S/mix.pcap" ] && [ -s "$S/cut.pcap" ] && [ -s "$S/bad.pcap" ]; then
	cp "$S/mix.pcap" "$S/cut.pcap" "$S/bad.pcap" "$T/" || exit 2
else
	python3 "$T/mix.py" "$MIX" $L/roce_send_bw_netem.pcap $L/roce_rping.pcap $L/roce_read_bw.pcap \
		$L/roce_netem_send_rnr.pcap $L/roce_write_bw_rdmacm.pcap $L/iwarp_rping.pcap \
		$L/roce_netem_read_loss_resp.pcap || exit 2
	mkdir -p "$S" && cp "$MIX" "$T/cut.pcap" "$T/bad.pcap" "$S/" || exit 2
fi

# ---- replay ------------------------------------------------------------------------------
# Every rocetop run first, then ONE python compares them all (checks.py
# replay; a python start costs ~0.5 CPU-s on this VM).
# every capture's two runs, four at a time (a sanitizer build's start-up is
# mostly waiting on page faults)
n=0
mkdir -p "$T/cap"
for f in captures/lab/*.pcap captures/link/*.pcap; do
	n=$((n + 1))
	printf '%s\0%s\0' "$f" "$n"
done | xargs -0 -n 2 -P 4 sh -c '"$1" -r "$3" --json >"$2/$4.1" 2>&1; "$1" -r "$3" --json --threads 2 >"$2/$4.2" 2>&1' sh "$R" "$T/cap"
n=0
for f in captures/lab/*.pcap captures/link/*.pcap; do
	n=$((n + 1))
	echo "$T/cap/$n.1 $T/cap/$n.2 $f"
done >"$T/cap/list"

# the mixed capture: one thread, two and three, with snapshots (-d)
for t in 1 2 3; do
	th="--threads $t"; [ $t = 1 ] && th=  # (one thread: no option, as a user runs it)
	# shellcheck disable=SC2086
	"$R" -r "$MIX" --json -d 0.05 $th >"$T/m$t.json" 2>&1
done
# the shard index (analyzer/pcapfile.c) stops where the file is damaged or
# ends early, and the workers read on record by record: the mixed capture
# cut in the middle of a record (cut.pcap), and with record 5000's length
# made 300,000 (damage, bad.pcap), give every thread count the same summary,
# error message and exit status
for f in cut bad; do
	for t in 1 2 3; do
		th="--threads $t"; [ $t = 1 ] && th=
		# shellcheck disable=SC2086
		"$R" -r "$T/$f.pcap" --json $th >"$T/$f.$t" 2>"$T/$f.${t}e"
		echo "exit $?" >>"$T/$f.${t}e"
	done
done
# -r A -r B -r C: the merged timeline (frames numbered by their place in it),
# each flow's files ("files") included, on 2 and 3 threads as on one
F1=$L/roce_rping.pcap F2=$L/roce_send_bw_netem.pcap F3=$L/iwarp_rping.pcap
for t in 1 2 3; do
	th="--threads $t"; [ $t = 1 ] && th=
	# shellcheck disable=SC2086
	"$R" -r "$F1" -r "$F2" -r "$F3" --json -d 0.1 $th >"$T/f$t.json" 2>&1
done
# its lines ok/FAIL, the last one "FAILS FRAMES" (the mixed capture's frames)
python3 "$T/checks.py" replay "$T" "$n" "$F1" "$F2" "$F3" >"$T/res"
res=$(tail -n 1 "$T/res")
sed '$d' "$T/res"
case $res in
[0-9]*" "[0-9]*) fails=$((fails + ${res% *})) frames=${res#* } ;;
*) fail "replay: the checks did not finish" "$res"; frames=0 ;;
esac

# GET /metrics after the replay (--linger): the same text from both.  The
# server answers while the replay still runs (under ASan a partial count was
# seen: 2047 of 8552), so scrape until every frame is counted (one python
# scrapes both).
cat >"$T/scrape.py" <<'EOF'
# scrape.py FRAMES ADDR OUT...: each ADDR's /metrics into its OUT, once it counts every frame
import sys, time, urllib.request
want = "rocetop_frames_total %s\n" % sys.argv[1]
bad = []
for addr, out in zip(sys.argv[2::2], sys.argv[3::2]):
    text = ""
    for _ in range(600):
        try:
            text = urllib.request.urlopen("http://" + addr + "/metrics", timeout=5).read().decode()
            if want in text:
                break
        except OSError:
            pass
        time.sleep(0.1)
    open(out, "w").write(text)
    if want not in text:
        bad.append("no complete /metrics on " + addr)
sys.exit("\n".join(bad) if bad else 0)
EOF
port=$((20000 + $$ % 20000))
for t in 1 2; do
	"$R" -r "$MIX" --json --threads $t --prometheus "127.0.0.1:$((port + t))" --linger >/dev/null 2>"$T/p$t.err" &
	PIDS="$PIDS $!"
done
python3 "$T/scrape.py" "$frames" "127.0.0.1:$((port + 1))" "$T/p1.txt" "127.0.0.1:$((port + 2))" "$T/p2.txt" 2>>"$T/p2.err"
for p in $PIDS; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
PIDS=""
grep -q "^rocetop_frames_total $frames\$" "$T/p2.txt" && cmp -s "$T/p1.txt" "$T/p2.txt" &&
	ok "--prometheus: /metrics of --threads 2 equals --threads 1's ($(wc -l <"$T/p1.txt") lines)" ||
	fail "--prometheus with --threads 2" "$(diff "$T/p1.txt" "$T/p2.txt" | head -n 5)" "$(cat "$T/p1.err" "$T/p2.err")"

"$R" -r "$MIX" --packets --threads 2 >/dev/null 2>"$T/err"
[ $? = 2 ] && ok "--threads 2 with --packets: usage error" || fail "--threads with --packets" "$(cat "$T/err")"
"$R" -r "$MIX" --json --threads 0 >/dev/null 2>"$T/err"
[ $? = 2 ] && ok "--threads 0: usage error" || fail "--threads 0" "$(cat "$T/err")"

# ---- live --------------------------------------------------------------------------------
live() {
	[ "$(id -u)" = 0 ] || { echo "threads: live: skipped: needs root"; return; }
	command -v ip >/dev/null 2>&1 || { echo "threads: live: skipped: no ip(8)"; return; }
	command -v tcpreplay >/dev/null 2>&1 || { echo "threads: live: skipped: no tcpreplay"; return; }
	ip netns add "$NA" 2>/dev/null || { echo "threads: live: skipped: no network namespaces"; return; }
	ip netns add "$NB" || return
	ip link add vA netns "$NA" type veth peer name vB netns "$NB" || { fail "veth pair"; return; }
	for ns in "$NA" "$NB"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	done
	ip -n "$NA" link set vA mtu 9000 up
	ip -n "$NB" link set vB mtu 9000 up
	N=$frames
	for t in 1 2; do
		ip netns exec "$NB" "$R" -i vB --threads $t --json -c "$N" >"$T/l$t.json" 2>"$T/l$t.err" &
		PIDS="$PIDS $!"
		eval "P$t=$!"
	done
	# ready: --threads 1 has its socket; --threads 2 started its threads
	# (after its sockets joined the fanout group and were emptied)
	for _ in $(seq 400); do
		ls -l "/proc/$P1/fd" 2>/dev/null | grep -q 'socket:' && [ "$(ls "/proc/$P2/task" 2>/dev/null | wc -l)" -ge 3 ] && break
		sleep 0.05
	done
	sleep 0.5
	ip netns exec "$NA" tcpreplay -q -i vA --pps 2000 "$MIX" >"$T/tcpreplay" 2>&1 || fail "tcpreplay" "$(cat "$T/tcpreplay")"
	for _ in $(seq 600); do
		kill -0 "$P1" 2>/dev/null || kill -0 "$P2" 2>/dev/null || break
		sleep 0.1
	done
	kill -INT "$P1" "$P2" 2>/dev/null
	wait "$P1"; r1=$?
	wait "$P2"; r2=$?
	PIDS=""
	[ "$r1" = 0 ] && [ "$r2" = 0 ] || { fail "live: exit codes $r1 $r2" "$(cat "$T/l1.err" "$T/l2.err")"; return; }
	# (checks.py live: skipped when the capture dropped frames, a loaded machine)
	python3 "$T/checks.py" live "$T" "$N" >"$T/res"
	res=$(tail -n 1 "$T/res")
	sed '$d' "$T/res"
	case $res in
	[0-9]*" "*) fails=$((fails + ${res%% *})) ;;
	*) fail "live: the checks did not finish" "$res" ;;
	esac
}
live

[ "$fails" = 0 ] || exit 1
exit 0
