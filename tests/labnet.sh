# SPDX-License-Identifier: GPL-2.0-or-later
#
# labnet.sh — sourced by the interop tests that talk to a lab guest over the
# lab network: is the guest still reachable from the host side, and if not,
# boot the lab again.
#
# Why: QEMU under TCG has been seen (a CI run, 2026-12-04) to stop handing
# frames to a guest's virtio-net for the rest of that boot.  The guest went on
# running (`lab exec` answered over its console channel; only 25 minutes later
# did its kernel report "NETDEV WATCHDOG: transmit queue 0 timed out"), but no
# TCP SYN, ARP reply or RoCE frame crossed br0 again, and every later case ran
# into its 90 s timeout.  No rocegen or rdma_rxe behaviour explains a guest
# that stops answering ping; rebooting the guests (about 8 s) does.
#
# Needs $L (the lab script) and $LAB_MODE_WANT (rxe, siw...).  Uses ping from
# iputils-ping (DEB_PKGS) inside the lab's namespace.

LABNET_REBOOTS=0
LABNET_MAX_REBOOTS=${LABNET_MAX_REBOOTS:-3}

# labnet_ok IP: the guest answers ICMP echo from the host side (br0) within 3 s
labnet_ok() {
	"$L" host -- ping -n -q -c 1 -w 3 "$1" >/dev/null 2>&1
}

# labnet_reboot: take the lab down and up again in $LAB_MODE_WANT; exports the
# lab's KEY=value lines again.  Fails after LABNET_MAX_REBOOTS reboots.
labnet_reboot() {
	if [ "$LABNET_REBOOTS" -ge "$LABNET_MAX_REBOOTS" ]; then
		echo "labnet: the lab's guest network stalled again after $LABNET_REBOOTS reboots; giving up"
		return 1
	fi
	LABNET_REBOOTS=$((LABNET_REBOOTS + 1))
	echo "labnet: $1 does not answer ping from the host side (guest network stalled); rebooting the lab ($LABNET_REBOOTS of at most $LABNET_MAX_REBOOTS)"
	"$L" down >/dev/null 2>&1
	local env
	env=$("$L" up --mode "${LAB_MODE_WANT:-rxe}") || { echo "labnet: lab up failed"; return 1; }
	eval "$env"
	labnet_ok "$1"
}

# labnet_heal IP: reboot the lab only when the guest does not answer
labnet_heal() {
	labnet_ok "$1" || labnet_reboot "$1"
}
