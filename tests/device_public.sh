#!/bin/bash
# tests/device_public.sh — the device view on recordings of real devices:
# captures/public/devices/{node_exporter,procfs} (sysfs trees of i40iw0,
# mlx4_0, hfi1_0, mlx5_0 from two Prometheus projects' test fixtures,
# Apache-2.0, converted by tools/ttar2devrec; captures/README.md).
# Checks: the converter on a ttar made here (escapes, links, entries outside
# class/infiniband, malformed input, exits); every recorded counter file's
# value exact in rocetop's JSON, in its group; each name's meaning, kind,
# width and scale; every name known but mlx5's rx_dct_connect; the first -b
# snapshot lists every non-zero recorded total; counters_ext read (mlx4_0
# port 2 has values only there); the replay holds the recorded devices only
# and nothing live (no QP table, no netdev statistics).
# Run as  BUILD=<build dir> tests/device_public.sh ; prints ok/FAIL lines.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
BUILD=${BUILD:-$repo/build}
R=$BUILD/bin/rocetop
CONV=$BUILD/tools/ttar2devrec
PUB=$repo/captures/public/devices
T=$(mktemp -d /tmp/device-public.XXXXXX)
fails=0; oks=0
ok() { echo "ok   $*"; oks=$((oks + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

# ---- the converter, on an archive made here ----
sep='# ttar - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -'
cat > "$T/in.ttar" <<EOF
# Archive created by hand for tests/device_public.sh
Directory: fixtures/sys
Mode: 755
$sep
Path: fixtures/sys/class/net/eth0/statistics/rx_bytes
Lines: 1
99
Mode: 644
$sep
Directory: fixtures/sys/class/infiniband/mlx5_7/ports/1/hw_counters
Mode: 755
$sep
Path: fixtures/sys/class/infiniband/mlx5_7/ports/1/hw_counters/out_of_sequence
Lines: 1
4294967290
Mode: 644
$sep
Path: fixtures/sys/class/infiniband/mlx5_7/ports/1/state
Lines: 1
4: ACTIVE
Mode: 644
$sep
Path: fixtures/sys/class/infiniband/mlx5_7/board_id
Lines: 2
a\\NULLBYTE bNULLBYTEc
no newline\\EOF hereEOF
Mode: 644
$sep
Path: fixtures/sys/class/infiniband/mlx5_7/empty
Lines: 0
Mode: 644
$sep
Path: fixtures/sys/class/infiniband/mlx5_7/device
SymlinkTo: ../../../devices/pci0000:00/0000:00:02.0
$sep
EOF
"$CONV" "$T/in.ttar" "$T/conv" > "$T/conv.out" 2> "$T/conv.err"
check "ttar2devrec: exit 0, one line per device (mlx5_7: 4 files), the link skipped" sh -c "
	test \"\$(tr '\n' '|' < '$T/conv.out')\" = 'mlx5_7: 4 files|(1 symbolic links skipped)|' && test ! -s '$T/conv.err'"
printf 'aNULLBYTE b\0c\nno newlineEOF here' > "$T/board_id.want"
check "ttar2devrec: escapes undone (NULLBYTE, a final EOF, backslashed words kept)" \
	cmp -s "$T/board_id.want" "$T/conv/sys/class/infiniband/mlx5_7/board_id"
check "ttar2devrec: values and empty files byte for byte, nothing outside class/infiniband" sh -c "
	test \"\$(cat '$T/conv/sys/class/infiniband/mlx5_7/ports/1/hw_counters/out_of_sequence')\" = 4294967290 &&
	test -f '$T/conv/sys/class/infiniband/mlx5_7/empty' && test ! -s '$T/conv/sys/class/infiniband/mlx5_7/empty' &&
	test ! -e '$T/conv/sys/class/net' && test ! -e '$T/conv/sys/class/infiniband/mlx5_7/device'"
"$R" --device-replay "$T/conv" --device mlx5_7 -b -n 1 -d 0.05 > "$T/conv.b" 2>&1
check "ttar2devrec: its output replays (mlx5_7 out_of_sequence 4294967290 out_of_sequence_received)" \
	grep -qE '^  out_of_sequence +4294967290 .*out_of_sequence_received$' "$T/conv.b"
"$CONV" "$T/in.ttar" "$T/conv" > /dev/null 2> "$T/e1"; rc=$?
check "ttar2devrec: a non-empty OUTDIR is one line, exit 1 (got $rc)" sh -c "test $rc = 1 && test \$(wc -l < '$T/e1') = 1 && grep -q 'not empty' '$T/e1'"
head -n 15 "$T/in.ttar" | sed 's/^Lines: 1$/Lines: 3/' > "$T/cut.ttar"
"$CONV" "$T/cut.ttar" "$T/cut" > /dev/null 2> "$T/e2"; rc=$?
check "ttar2devrec: a file cut short is one line naming the line, exit 1 (got $rc)" sh -c "
	test $rc = 1 && test \$(wc -l < '$T/e2') = 1 && grep -q 'cut.ttar:[0-9]*: the input ends inside a file' '$T/e2'"
printf 'Path: sys/class/net/eth0/mtu\nLines: 1\n1500\n' > "$T/none.ttar"
"$CONV" "$T/none.ttar" "$T/none" > /dev/null 2> "$T/e3"; rc=$?
check "ttar2devrec: nothing RDMA in the archive is one line, exit 1 (got $rc)" sh -c "test $rc = 1 && grep -q 'no file under sys/class/infiniband/' '$T/e3'"
printf 'Path: sys/class/infiniband/x/../../../etc/passwd\nLines: 1\nx\n' > "$T/dots.ttar"
"$CONV" "$T/dots.ttar" "$T/dots" > /dev/null 2> "$T/e4"; rc=$?
check "ttar2devrec: a '..' path refused, nothing written outside (exit $rc)" sh -c "test $rc = 1 && test ! -e '$T/etc'"
"$CONV" "$T/in.ttar" > /dev/null 2>&1; rc=$?
check "ttar2devrec: usage is exit 2 (got $rc)" test "$rc" = 2

# ---- the shipped recordings ----
for rec in node_exporter procfs; do
	"$R" --device-replay "$PUB/$rec" --device all --json -n 1 -d 0.05 > "$T/$rec.json" 2> "$T/$rec.err"
	check "$rec: --json exit 0, nothing on stderr" sh -c "test $? = 0 && test ! -s '$T/$rec.err'"
	"$R" --device-replay "$PUB/$rec" --device all -b -n 1 -d 0.05 > "$T/$rec.b" 2>&1
	check "$rec: -b exit 0" test $? = 0
done
sed 's/^/     /' "$T/procfs.b" | sed -n '/mlx5_0/,$p' | head -16

python3 - "$PUB" "$T" > "$T/py.out" <<'PY'
import json, os, re, sys
pub, t = sys.argv[1], sys.argv[2]
def chk(what, cond):
    print(("ok   " if cond else "FAIL ") + what)
def load(rec):
    line = [l for l in open(os.path.join(t, rec + ".json")) if '"devices"' in l][-1]
    return {d["name"]: d for d in json.loads(line)["devices"]}
GROUP = {"counters": None, "hw_counters": None, "counters_ext": "counters_ext"}
for rec in ("node_exporter", "procfs"):
    ib = os.path.join(pub, rec, "sys", "class", "infiniband")
    devs = load(rec)
    chk("%s: the recorded devices and only them (%s)" % (rec, " ".join(sorted(devs))),
        sorted(devs) == sorted(os.listdir(ib)))
    files = bad = unknown = 0
    text = open(os.path.join(t, rec + ".b")).read()
    missing_b, na = [], []
    for dev in sorted(os.listdir(ib)):
        ports = {p["port"]: p for p in devs[dev]["ports"]}
        pdir = os.path.join(ib, dev, "ports")
        chk("%s %s: ports %s" % (rec, dev, sorted(ports)), sorted(ports) == sorted(int(p) for p in os.listdir(pdir)))
        for pn in os.listdir(pdir):
            p = ports[int(pn)]
            for grp in GROUP:
                gdir = os.path.join(pdir, pn, grp)
                if not os.path.isdir(gdir):
                    continue
                for name in os.listdir(gdir):
                    if name == "lifespan":
                        continue
                    raw = open(os.path.join(gdir, name)).read()
                    if not raw.strip().isdigit():
                        # i40iw's "N/A (no PMA)": no counter, not a 0
                        files += 1
                        na.append(name)
                        if name in p["counters"]:
                            bad += 1
                        continue
                    v = int(raw)
                    files += 1
                    if p["counters"].get(name) != v or p["groups"].get(name) != GROUP[grp]:
                        bad += 1
                        print("     %s %s/%s/%s: recorded %d, JSON %r group %r" % (rec, dev, pn, name, v,
                              p["counters"].get(name), p["groups"].get(name)))
                    if not p["meanings"].get(name, {}).get("meaning") and name != "rx_dct_connect":
                        unknown += 1
                        print("     %s %s: no meaning" % (dev, name))
                    # the first -b snapshot lists every non-zero total
                    if v and not re.search(r"(?m)^  %s +%d " % (re.escape(name), v),
                                           text.split("device %s port %s:" % (dev, pn))[1].split("\ndevice ")[0]):
                        missing_b.append("%s/%s/%s" % (dev, pn, name))
        chk("%s %s: no QP table, no netdev, no ethtool-S statistics (nothing live)" % (rec, dev),
            not devs[dev]["netlink"] and not devs[dev]["qps"] and
            all(not p["netdev"] and not p["ethtool"] and not p["pfc"] for p in ports.values()))
    chk("%s: every recorded counter value exact in JSON, in its group (%d files, %d wrong)" % (rec, files, bad),
        files > 40 and bad == 0)
    if na:
        chk("%s: %d files that hold no number (i40iw0's 'N/A (no PMA)') are no counters, not zeros" % (rec, len(na)),
            not any(n in p["counters"] for d in devs.values() for p in d["ports"] for n in na if d["name"] == "i40iw0"))
    chk("%s: every recorded name has a meaning but mlx5's rx_dct_connect (%d without)" % (rec, unknown), unknown == 0)
    chk("%s: -b's first snapshot lists every non-zero recorded total (%d missing: %s)" % (rec, len(missing_b),
        " ".join(missing_b[:5])), not missing_b)

# meanings, kinds, widths, scales of what real devices have
pf, ne = load("procfs"), load("node_exporter")
m5 = pf["mlx5_0"]["ports"][0]["meanings"]
want = {"duplicate_request": "duplicate_request", "out_of_sequence": "out_of_sequence_received",
        "packet_seq_err": "seq_err_nak_received", "local_ack_timeout_err": "local_ack_timeout",
        "implied_nak_seq_err": "implied_nak", "roce_slow_restart_cnps": "cnp_received",
        "rnr_nak_retry_err": "rnr_retry_exceeded", "req_cqe_error": "cqe_error",
        "out_of_buffer": "out_of_buffer", "rx_read_requests": "rx_read_request"}
chk("procfs mlx5_0: hw_counters meanings (%s)" % ", ".join("%s=%s" % (k, m5[k]["meaning"]) for k in sorted(want)),
    all(m5[k]["meaning"] == v for k, v in want.items()))
chk("procfs mlx5_0: queue counters 32-bit, requester/responder sides",
    m5["out_of_sequence"]["width"] == "32" and m5["out_of_sequence"]["side"] == "responder"
    and m5["local_ack_timeout_err"]["side"] == "requester")
h = pf["hfi1_0"]["ports"][0]["meanings"]
chk("procfs hfi1_0: PMA data in 4-octet words (scale 4), saturating; packets scale 1",
    h["port_xmit_data"] == {"meaning": "tx_bytes", "kind": "counter", "width": "pma", "side": "port", "scale": 4}
    and h["port_rcv_packets"]["meaning"] == "rx_packets" and "scale" not in h["port_rcv_packets"])
n4 = {p["port"]: p for p in ne["mlx4_0"]["ports"]}
chk("node_exporter mlx4_0 port 2: counters_ext values read (port_xmit_data_64 3733440 words, tx_bytes, 64-bit)",
    n4[2]["counters"]["port_xmit_data_64"] == 3733440 and n4[2]["meanings"]["port_xmit_data_64"]["width"] == "64"
    and n4[2]["meanings"]["port_xmit_data_64"]["scale"] == 4
    and n4[2]["meanings"]["port_xmit_data_64"]["same_as"] == "port_xmit_data")
chk("node_exporter mlx4_0 port 1: port_xmit_wait at the PMA maximum (4294967295) shown, saturating width",
    n4[1]["counters"]["port_xmit_wait"] == 4294967295 and n4[1]["meanings"]["port_xmit_wait"]["width"] == "pma")
chk("node_exporter i40iw0 (iWARP, no PMA): its port listed, ACTIVE, with no counters",
    ne["i40iw0"]["ports"][0]["state"] == "ACTIVE" and ne["i40iw0"]["ports"][0]["counters"] == {})
PY
pyrc=$?
cat "$T/py.out"
check "the JSON checks ran to their end (python exit $pyrc)" test "$pyrc" = 0
oks=$((oks + $(grep -c '^ok ' "$T/py.out"))); fails=$((fails + $(grep -c '^FAIL ' "$T/py.out")))

echo "device_public: $oks ok, $fails failed"
[ "$fails" = 0 ]
