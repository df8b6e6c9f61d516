#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/gen.sh — how fast `rocegen flood` puts frames on a link, each with a
# fresh PSN and ICRC, against `tcpreplay --topspeed` replaying the very same
# frames from a pcap.  Root; makes two network namespaces joined by a veth
# pair and removes them on exit.  Sends nothing anywhere else.
#
#   BUILD=build bench/gen.sh            N=1000000 SIZE=64 RUNS=3 by default
#
# Each sender runs RUNS times; the best run counts (the machine is shared).
# Prints frames/s of: rocegen building into a pcap (no kernel), rocegen over
# the AF_PACKET ring and over sendmmsg, tcpreplay (-K: the pcap preloaded),
# the receiver's packet counter as a check, and the ratio (target >= 3x).
# When tcpreplay is missing and apt-get cannot install it, a plain
# one-sendto()-per-frame C loop over the same pcap stands in, and the output
# says so.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
GEN=$BUILD/bin/rocegen
N=${N:-1000000}
SIZE=${SIZE:-64}
RUNS=${RUNS:-3}

[ -x "$GEN" ] || { echo "bench/gen: $GEN not built" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench/gen: needs root (network namespaces)" >&2; exit 2; }

T=$(mktemp -d "${TMPDIR:-/tmp}/genbench.XXXXXX") || exit 2
NSA=rgbA$$
NSB=rgbB$$
cleanup() {
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the other side of the comparison -----------------------------------------

REPLAY=tcpreplay
if ! command -v tcpreplay >/dev/null; then
	echo "bench/gen: installing tcpreplay"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends tcpreplay >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends tcpreplay >/dev/null 2>&1; }
fi
if ! command -v tcpreplay >/dev/null; then
	REPLAY=sendto
	echo "bench/gen: tcpreplay is not available (apt-get failed): comparing against a plain sendto() loop instead"
	cat >"$T/sendloop.c" <<'EOF'
/* one sendto() per frame over an AF_PACKET socket, frames from a pcap in memory */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
int main(int argc, char **argv)
{
	char eb[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(argv[2], eb);
	struct pcap_pkthdr *h;
	const u_char *d;
	size_t n = 0, cap = 1 << 20;
	unsigned char **fr = malloc(cap * sizeof(*fr));
	unsigned *len = malloc(cap * sizeof(*len));
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = (int)if_nametoindex(argv[1]) };
	int fd = socket(AF_PACKET, SOCK_RAW, 0);
	struct timespec a, b;

	if (!p || fd < 0 || !fr || !len)
		return 1;
	while (n < cap && pcap_next_ex(p, &h, &d) == 1) {
		fr[n] = malloc(h->caplen);
		memcpy(fr[n], d, h->caplen);
		len[n++] = h->caplen;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (size_t i = 0; i < n; i++)
		sendto(fd, fr[i], len[i], 0, (struct sockaddr *)&sll, sizeof(sll));
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("Rated: %.2f pps\n", n / ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9));
	return 0;
}
EOF
	cc -O2 -o "$T/sendloop" "$T/sendloop.c" -lpcap || exit 2
fi

# ---- the link ----------------------------------------------------------------------

ip netns add "$NSA"
ip netns add "$NSB"
VA=vbench$$a VB=vbench$$b
ip link add "$VA" type veth peer name "$VB"
ip link set "$VA" netns "$NSA"
ip link set "$VB" netns "$NSB"
ip -n "$NSA" addr add 10.98.0.1/24 dev "$VA"
ip -n "$NSB" addr add 10.98.0.2/24 dev "$VB"
ip -n "$NSA" link set "$VA" up
ip -n "$NSB" link set "$VB" up
inA() { ip netns exec "$NSA" "$@"; }
rxcount() { ip netns exec "$NSB" cat "/sys/class/net/$VB/statistics/rx_packets"; }

FLOOD=(flood -i "$VA" --dst 10.98.0.2 --count "$N" --no-rate-cap --payload-size "$SIZE" --qps 16)

# the same frames, written instead of sent: what rocegen costs without a kernel
inA "$GEN" "${FLOOD[@]}" -w "$T/same.pcap" 2>"$T/build.err" || { cat "$T/build.err"; exit 1; }
build=$(sed -n 's/.* pps=\([0-9]*\) .*/\1/p' "$T/build.err")

best() { sort -n | tail -1; }
pps_of() { sed -n 's/.* pps=\([0-9]*\) .*/\1/p'; }

ring="" mmsg="" rep="" rx_ok=1
for _ in $(seq "$RUNS"); do
	for tx in ring mmsg; do
		before=$(rxcount)
		TIMEFORMAT='%U %S'
		{ time inA "$GEN" "${FLOOD[@]}" --tx $tx 2>"$T/$tx.err" || { cat "$T/$tx.err"; exit 1; }; } 2>"$T/$tx.time"
		[ $tx = ring ] && read -r cpu_user cpu_sys <"$T/$tx.time"
		got=$(( $(rxcount) - before ))
		[ "$got" -ge "$N" ] || { rx_ok=0; echo "bench/gen: $tx: the peer counted $got of $N frames"; }
		p=$(pps_of <"$T/$tx.err")
		[ $tx = ring ] && ring="$ring $p" || mmsg="$mmsg $p"
	done
	before=$(rxcount)
	if [ $REPLAY = tcpreplay ]; then
		inA tcpreplay --topspeed -K -i "$VA" "$T/same.pcap" >"$T/rep.out" 2>&1
	else
		inA "$T/sendloop" "$VA" "$T/same.pcap" >"$T/rep.out" 2>&1
	fi
	got=$(( $(rxcount) - before ))
	[ "$got" -ge "$N" ] || echo "bench/gen: $REPLAY: the peer counted $got of $N frames"
	p=$(sed -n 's/.*Rated: .* \([0-9.]*\) pps.*/\1/p; s/^Rated: \([0-9.]*\) pps$/\1/p' "$T/rep.out" | head -1)
	rep="$rep ${p%.*}"
done
ring=$(echo $ring | tr ' ' '\n' | best)
mmsg=$(echo $mmsg | tr ' ' '\n' | best)
rep=$(echo $rep | tr ' ' '\n' | best)
top=$(( ring > mmsg ? ring : mmsg ))

frame=$(( SIZE + 58 ))
printf '\nrocegen flood vs %s, %s frames of %d bytes (RC SEND_ONLY, %d-byte payload, 16 QPs), veth pair, best of %s\n' \
	"$([ $REPLAY = tcpreplay ] && echo 'tcpreplay --topspeed -K' || echo 'a plain sendto() loop (tcpreplay unavailable)')" \
	"$N" "$frame" "$SIZE" "$RUNS"
printf '  %-44s %12s frames/s\n' "rocegen: build only (fresh PSN+ICRC, to pcap)" "$build"
printf '  %-44s %12s frames/s\n' "rocegen flood --tx ring (AF_PACKET TX ring)" "$ring"
printf '  %-44s %12s frames/s\n' "rocegen flood --tx mmsg (sendmmsg)" "$mmsg"
printf '  %-44s %12s frames/s\n' "$REPLAY" "$rep"
ratio=$(python3 -c "print('%.2f' % ($top / $rep))" 2>/dev/null || echo "?")
printf '  ratio rocegen / %s: %sx (target >= 3x: %s)\n' "$REPLAY" "$ratio" \
	"$(python3 -c "print('met' if $top >= 3 * $rep else 'NOT met')")"
[ $rx_ok = 1 ] && echo "  the peer's rx_packets counter saw every rocegen frame"
printf '  rocegen --tx ring CPU (last run): user %ss, system %ss: the kernel'"'"'s per-frame path\n' "$cpu_user" "$cpu_sys"
printf '  (skb, veth, the peer'"'"'s receive) bounds both senders; rocegen'"'"'s own work is the build-only line\n'

