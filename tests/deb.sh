#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# deb.sh — the Debian packages, built, linted, installed on this machine,
# checked and purged again.
#
#   BUILD=build tests/deb.sh        (root; `make check-deb` runs it)
#   DEB_NOBUILD=1 ...               reuse the .deb files already in $BUILD/deb
#
# Steps (each prints "ok"/"FAIL"; the script exits 1 when any fails):
#   1. make deb (dpkg-buildpackage -us -uc -b on a git ls-files copy)
#   2. lintian --pedantic on the .changes: no error and no warning (what
#      remains is explained in debian/*.lintian-overrides)
#   3. rocetop/install-setcap preseeded to true, apt-get install ./*.deb
#   4. group rocetop; /usr/bin/rocetop root:rocetop 754 with cap_net_raw=eip
#      only; /usr/bin/rocetop -r CAPTURE -b == $BUILD/bin/rocetop's output;
#      tshark -G plugins as nobody lists the plugin from the system folder;
#      a program built with `pkg-config --cflags --libs libroce` runs against
#      /usr/lib/<triplet>/libroce.so.0; as nobody in group rocetop (runuser),
#      a live capture in a namespace of ours (deb-PID, veth deb0/deb1) sees
#      every frame and holds no capability; nobody outside the group cannot
#      run it; rocetop-exporter.service is installed, not enabled
#   5. apt-get purge: packages, group, debconf answer and every file gone
# The EXIT trap purges whatever is installed, so a failure leaves the
# machine as it was.  Only the machine's own packages are used: no mirror
# is needed (the build dependencies come from `make deps`).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
DEBS=$BUILD/deb
PKGS="rocetop wireshark-plugin-roce libroce0 libroce-dev"
CAPTURE=$root/$(sed -n 's/^RUN_CAPTURE ?= *//p' "$root/Makefile")
LIVECAP=$root/captures/lab/roce_rping.pcap   # 55 frames
NLIVE=55
APT="apt-get -y -q -o DPkg::Lock::Timeout=300"

skip() { echo "deb: skipped: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "needs root (installs the packages on this machine)"
for c in dpkg-buildpackage lintian apt-get setpriv runuser timeout pgrep systemd-analyze setcap getcap ip tcpreplay tshark python3 cc pkg-config; do
	command -v $c >/dev/null 2>&1 || { echo "deb: FAIL: $c is missing (make deps)"; exit 1; }
done
[ -x "$BUILD/bin/rocetop" ] || { echo "deb: $BUILD/bin/rocetop not built (make all)" >&2; exit 2; }
for p in $PKGS; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		echo "deb: FAIL: $p is already installed; purge it first (apt-get purge $PKGS)"
		exit 1
	fi
done

NS=deb-$$
T=$(mktemp -d "${TMPDIR:-/tmp}/deb.XXXXXX") || exit 2
chmod 755 "$T"
installed=0 override=0
cleanup() {
	[ -n "${P:-}" ] && kill "$P" 2>/dev/null
	[ $override = 1 ] && dpkg-statoverride --remove /usr/bin/rocetop
	ip netns del "$NS" 2>/dev/null
	if [ $installed = 1 ]; then
		echo "deb: cleanup: purging $PKGS"
		DEBIAN_FRONTEND=noninteractive $APT purge $PKGS > "$T/cleanup.log" 2>&1 || cat "$T/cleanup.log"
	fi
	# a preseeded answer of a package that never got installed
	echo PURGE | debconf-communicate rocetop > /dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

fails=0
ok() { echo "ok   $1"; }
fail() {
	echo "FAIL $1"
	shift
	for l; do echo "     $l"; done
	fails=$((fails + 1))
}
# stop here (the trap purges): what follows needs this step
fatal() {
	fail "$@"
	echo "deb: $fails FAILED (stopped)"
	exit 1
}

# ---- 1. build --------------------------------------------------------------------------
if [ "${DEB_NOBUILD:-0}" != 1 ]; then
	make -C "$root" --no-print-directory BUILD="$BUILD" deb > "$T/build.log" 2>&1 ||
		fatal "make deb" "$(tail -20 "$T/build.log")"
fi
CHANGES=$(ls "$DEBS"/rocetop_*.changes 2>/dev/null | head -1)
FILES=""
for p in $PKGS; do
	f=$(ls "$DEBS/${p}_"*.deb 2>/dev/null | head -1)
	[ -n "$f" ] || fatal "make deb: no $p package in $DEBS"
	FILES="$FILES $f"
done
[ -n "$CHANGES" ] || fatal "make deb: no .changes in $DEBS"
ok "make deb: $(cd "$DEBS" && ls *.deb | grep -v dbgsym | tr '\n' ' ')"

# ---- 2. lintian --------------------------------------------------------------------------
lintian --pedantic --display-info "$CHANGES" > "$T/lintian" 2>&1
echo "     lintian --pedantic --display-info output:"
sed 's/^/     | /' "$T/lintian"
if grep -q '^[EW]: ' "$T/lintian"; then
	fail "lintian: $(grep -c '^E: ' "$T/lintian") errors, $(grep -c '^W: ' "$T/lintian") warnings"
else
	ok "lintian: no errors, no warnings ($(grep -c '^[IP]: ' "$T/lintian") info/pedantic lines)"
fi

# ---- 3. install, setcap preseeded -----------------------------------------------------------
echo "rocetop rocetop/install-setcap boolean true" | debconf-set-selections ||
	fatal "debconf-set-selections"
installed=1
if DEBIAN_FRONTEND=noninteractive $APT install --no-install-recommends $FILES > "$T/install.log" 2>&1; then
	ok "apt-get install ./*.deb ($PKGS)"
else
	fatal "apt-get install" "$(tail -20 "$T/install.log")"
fi
sed -n '/^Setting up \(rocetop\|libroce\|wireshark-plugin-roce\)/p' "$T/install.log" | sed 's/^/     /'
for p in $PKGS; do dpkg -L "$p" > "$T/files.$p"; done

# ---- 4. checks ---------------------------------------------------------------------------
gid=$(getent group rocetop | cut -d: -f3)
[ -n "$gid" ] && ok "group rocetop exists (gid $gid)" || fail "no group rocetop"
mode=$(stat -c '%U:%G %a' /usr/bin/rocetop)
[ "$mode" = "root:rocetop 754" ] && ok "/usr/bin/rocetop is $mode" || fail "/usr/bin/rocetop is '$mode', want root:rocetop 754"
caps=$(getcap /usr/bin/rocetop)
case $caps in
*"cap_net_raw=eip") ok "getcap: $caps" ;;
*) fail "getcap /usr/bin/rocetop: '$caps', want cap_net_raw=eip alone" ;;
esac
# a local dpkg-statoverride wins over the debconf answer
if dpkg-statoverride --add root root 0750 /usr/bin/rocetop; then
	override=1
	setcap -r /usr/bin/rocetop && chown root:root /usr/bin/rocetop && chmod 750 /usr/bin/rocetop
	DEBIAN_FRONTEND=noninteractive dpkg-reconfigure rocetop > "$T/reconf.log" 2>&1 || fail "dpkg-reconfigure rocetop" "$(cat "$T/reconf.log")"
	m2="$(stat -c '%U:%G %a' /usr/bin/rocetop) $(getcap /usr/bin/rocetop)"
	[ "$m2" = "root:root 750 " ] && ok "with a statoverride, postinst leaves /usr/bin/rocetop alone ($m2)" ||
		fail "with a statoverride root root 0750, /usr/bin/rocetop became '$m2'"
	dpkg-statoverride --remove /usr/bin/rocetop && override=0
	DEBIAN_FRONTEND=noninteractive dpkg-reconfigure rocetop > "$T/reconf.log" 2>&1 || fail "dpkg-reconfigure rocetop" "$(cat "$T/reconf.log")"
	m3="$(stat -c '%U:%G %a' /usr/bin/rocetop) $(getcap /usr/bin/rocetop)"
	[ "$m3" = "root:rocetop 754 /usr/bin/rocetop cap_net_raw=eip" ] &&
		ok "without it again, dpkg-reconfigure restores root:rocetop 754 cap_net_raw=eip" ||
		fail "after removing the statoverride: '$m3'"
else
	fail "dpkg-statoverride --add"
fi

/usr/bin/rocetop -r "$CAPTURE" -b > "$T/sys.txt" 2>&1
r1=$?
"$BUILD/bin/rocetop" -r "$CAPTURE" -b > "$T/tree.txt" 2>&1
r2=$?
if [ $r1 = 0 ] && [ $r2 = 0 ] && cmp -s "$T/sys.txt" "$T/tree.txt" && [ -s "$T/sys.txt" ]; then
	ok "/usr/bin/rocetop -r $(basename "$CAPTURE") -b equals the build tree's ($(wc -l < "$T/sys.txt") lines)"
else
	fail "/usr/bin/rocetop -r $(basename "$CAPTURE") -b (exit $r1) differs from $BUILD/bin/rocetop (exit $r2)" \
		"$(diff "$T/sys.txt" "$T/tree.txt" | head -10)"
fi

plugindir=$(pkg-config --variable=plugindir wireshark)
setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/nonexistent tshark -G plugins > "$T/plugins" 2>&1
if grep -q "$plugindir/epan/roce.so" "$T/plugins"; then
	ok "tshark -G plugins as nobody: $(grep "roce.so" "$T/plugins" | tr -s '\t ' ' ')"
else
	fail "tshark -G plugins as nobody does not list $plugindir/epan/roce.so" "$(grep -i roce "$T/plugins")"
fi

cat > "$T/prog.c" <<'EOF'
/* builds a RoCEv2 SEND_ONLY with libroce and decodes it again */
#include <roce.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	static const uint8_t payload[8] = "libroce";
	struct roce_frame_spec s;
	struct roce_pkt p;
	uint8_t f[256];
	int n, rc;

	memset(&s, 0, sizeof s);
	s.version = ROCE_VER_V2;
	s.ip.version = 4;
	memcpy(s.ip.src, "\x0a\x00\x00\x01", 4);
	memcpy(s.ip.dst, "\x0a\x00\x00\x02", 4);
	s.bth.opcode = ROCE_OP_SEND_ONLY;
	s.bth.dqpn = 0x1234;
	s.bth.psn = 42;
	s.bth.pad = -1;
	s.payload = payload;
	s.payload_len = sizeof payload;
	n = roce_build(f, sizeof f, &s);
	if (n <= 0)
		return 1;
	rc = roce_decode(&p, NULL, 1 /* DLT_EN10MB */, f, (uint32_t)n, (uint32_t)n);
	printf("rc=%d %s dqpn=0x%x psn=%u icrc=%s\n", rc, roce_opcode_name(p.opcode), p.dqpn, p.psn,
	       roce_icrc_status_name(roce_icrc_verify(&p, NULL)));
	return rc != ROCE_OK || p.dqpn != 0x1234 || p.psn != 42;
}
EOF
pcflags=$(pkg-config --cflags --libs libroce)
if cc -Wall -Werror -o "$T/prog" "$T/prog.c" $pcflags > "$T/cc.log" 2>&1; then
	out=$("$T/prog" 2>&1)
	rc=$?
	lib=$(ldd "$T/prog" | awk '$1 == "libroce.so.0" { print $3 }')
	# (/lib is /usr/lib on a merged-/usr system: compare where they lead)
	want=$(pkg-config --variable=libdir libroce)/libroce.so.0
	if [ $rc = 0 ] && [ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$(readlink -f "$want")" ]; then
		ok "pkg-config --cflags --libs libroce ($pcflags): program runs against $lib: $out"
	else
		fail "program built with libroce: exit $rc, libroce.so.0 from '$lib'" "$out"
	fi
else
	fail "cc prog.c $pcflags" "$(cat "$T/cc.log")"
fi

# live capture as nobody in group rocetop, in a namespace of ours
want=$("$BUILD/bin/rocetop" -r "$LIVECAP" -b --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["frames"], d["frames"], d["roce"]["v2"])')
# no IPv6 autoconfiguration chatter: every frame on deb0 is one tcpreplay sent
if ip netns add "$NS" && ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 &&
   ip -n "$NS" link add deb0 type veth peer name deb1 &&
   ip -n "$NS" link set deb0 up && ip -n "$NS" link set deb1 up; then
	# runuser, not setpriv: setpriv keeps root's capabilities up to the exec,
	# so CAP_DAC_OVERRIDE would let nobody run a 754 file whatever its groups
	ip netns exec "$NS" runuser -u nobody -g nogroup -G rocetop -- \
		/usr/bin/rocetop -i deb0 -b --json -c $NLIVE > "$T/live.json" 2> "$T/live.err" &
	P=$!
	pid=""
	for _ in $(seq 50); do     # ip netns exec execs runuser, which forks rocetop
		pid=$(pgrep -P $P -x rocetop) && break
		sleep 0.1
	done
	sleep 0.5
	if [ -n "$pid" ]; then
		held=$(awk '/^Cap(Inh|Prm|Eff|Amb):/ && $2 !~ /^0+$/' /proc/$pid/status)
		eff=$(awk '/^CapEff:/ { print $2 }' /proc/$pid/status)
		[ -z "$held" ] && [ -n "$eff" ] && ok "live capture as nobody+rocetop: CapEff $eff after start" ||
			fail "live capture as nobody+rocetop holds capabilities: $held"
	else
		fail "live capture as nobody+rocetop did not start: $(cat "$T/live.err")"
	fi
	ip netns exec "$NS" tcpreplay -q -i deb1 "$LIVECAP" > /dev/null 2>&1 || fail "tcpreplay into deb1"
	for _ in $(seq 50); do kill -0 $P 2>/dev/null || break; sleep 0.1; done
	kill $P 2>/dev/null
	wait $P
	rc=$?
	P=""
	got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["frames"], d["capture"]["received"], d["roce"]["v2"])' \
		"$T/live.json" 2>/dev/null)
	[ $rc = 0 ] && [ "$got" = "$want" ] && [ "${got%% *}" = $NLIVE ] &&
		ok "live capture as nobody+rocetop: frames, capture.received, roce.v2 = $got (as read from the file)" ||
		fail "live capture as nobody+rocetop: exit $rc, frames/received/v2 '$got', want '$want'" "$(cat "$T/live.err")"
	ip netns exec "$NS" timeout 10 runuser -u nobody -g nogroup -- /usr/bin/rocetop -i deb0 -b -c 1 \
		> /dev/null 2> "$T/nogroup.err"
	rc=$?
	[ $rc != 0 ] && grep -q 'Permission denied' "$T/nogroup.err" &&
		ok "nobody outside group rocetop cannot run it (exit $rc: $(cat "$T/nogroup.err"))" ||
		fail "nobody outside group rocetop: exit $rc" "$(cat "$T/nogroup.err")"
else
	fail "cannot create network namespace $NS"
fi

unit=$(grep '/rocetop-exporter.service$' "$T/files.rocetop")
if [ -n "$unit" ] && [ -f "$unit" ]; then
	ok "unit installed: $unit"
	if grep -q '^ExecStart=/usr/bin/rocetop .*--prometheus \${ROCETOP_LISTEN}' "$unit" &&
	   grep -q '^ROCETOP_LISTEN=' /etc/default/rocetop-exporter; then
		ok "unit runs $(sed -n 's/^ExecStart=//p' "$unit"), settings in /etc/default/rocetop-exporter"
	else
		fail "unit ExecStart or /etc/default/rocetop-exporter"
	fi
else
	fail "no rocetop-exporter.service in dpkg -L rocetop"
fi
if systemd-analyze verify "$unit" > "$T/verify" 2>&1; then
	ok "systemd-analyze verify $(basename "$unit"): clean"
else
	fail "systemd-analyze verify $unit" "$(cat "$T/verify")"
fi
exposure=$(systemd-analyze security --offline=yes "$unit" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]* [A-Z]*\).*/\1/p')
echo "     systemd-analyze security --offline=yes: exposure $exposure"
links=$(find /etc/systemd/system -name 'rocetop-exporter*' 2>/dev/null)
state=$(systemctl is-enabled rocetop-exporter.service 2>&1)
if [ -z "$links" ] && [ "$state" = disabled ]; then
	ok "rocetop-exporter.service is not enabled (systemctl is-enabled: $state; no link in /etc/systemd/system)"
else
	fail "rocetop-exporter.service enabled? is-enabled '$state', links: $links"
fi

# ---- 5. purge ------------------------------------------------------------------------------
if DEBIAN_FRONTEND=noninteractive $APT purge $PKGS > "$T/purge.log" 2>&1; then
	installed=0
	ok "apt-get purge $PKGS"
else
	fail "apt-get purge" "$(tail -10 "$T/purge.log")"
fi
left=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed\|config-files' && left="$left $p"
done
[ -z "$left" ] && ok "no package left installed or with config files" || fail "still there:$left"
getent group rocetop > /dev/null && fail "group rocetop is still there" || ok "group rocetop removed"
answer=$(echo GET rocetop/install-setcap | debconf-communicate rocetop 2>&1)
case $answer in
0*) fail "debconf still holds rocetop/install-setcap: $answer" ;;
*) ok "debconf answer purged ($answer)" ;;
esac
stale=""
nfiles=0
for p in $PKGS; do
	while read -r f; do
		[ "$f" = /. ] && continue
		nfiles=$((nfiles + 1))
		[ -e "$f" ] || [ -L "$f" ] || continue
		# a directory that still holds something (of other packages: /usr/bin,
		# /lib on merged /usr) stays; an empty one would be ours, left over
		[ -d "$f" ] && [ -n "$(ls -A "$f")" ] && continue
		stale="$stale $f"
	done < "$T/files.$p"
done
[ -z "$stale" ] && ok "every path of dpkg -L before the purge ($nfiles) is gone (or a directory still in use)" ||
	fail "left behind:$stale"

[ $fails = 0 ] && echo "deb: all passed" || echo "deb: $fails FAILED"
[ $fails = 0 ]
