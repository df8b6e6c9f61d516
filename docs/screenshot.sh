#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# docs/screenshot.sh — remake docs/wireshark-roce.png: Wireshark (Qt) under Xvfb
# with the plugin, captures/lab/roce_send_bw_netem.pcap filtered on
# roce.analysis.retransmission, frame 282 selected and its RoCE tree expanded.
#
# Needs (Debian): wireshark-qt xvfb xdotool imagemagick, and a built plugin:
#   make && docs/screenshot.sh            (BUILD=dir for another build folder)
# Wireshark runs as an unprivileged user (nobody when started as root), since as
# root it ignores the user plugin folder.
set -eu

BUILD=${BUILD:-build}
OUT=${OUT:-docs/wireshark-roce.png}
CAP=captures/lab/roce_send_bw_netem.pcap
FRAME=282
for t in wireshark Xvfb xdotool import; do
	command -v $t >/dev/null || { echo "screenshot.sh: $t is missing (apt-get install wireshark-qt xvfb xdotool imagemagick)"; exit 1; }
done
[ -f "$BUILD/plugin/roce.so" ] || { echo "screenshot.sh: $BUILD/plugin/roce.so not built"; exit 1; }

S=$(mktemp -d "${TMPDIR:-/tmp}/ws-shot.XXXXXX")
XPID= WPID=
cleanup() {
	[ -n "$WPID" ] && kill "$WPID" 2>/dev/null || true
	[ -n "$XPID" ] && kill "$XPID" 2>/dev/null || true
	rm -rf "$S"
}
trap cleanup EXIT INT TERM

P=$S/.local/lib/wireshark/plugins/$(pkg-config --modversion wireshark | cut -d. -f1,2)/epan
C=$S/.config/wireshark
mkdir -p "$P" "$C"
cp "$BUILD/plugin/roce.so" "$P/"
cp "$CAP" "$S/"
cat >"$C/preferences" <<'EOF'
gui.column.format:
	"No.", "%m",
	"Time", "%t",
	"Source", "%s",
	"Destination", "%d",
	"Protocol", "%p",
	"Length", "%L",
	"PSN", "%Cus:infiniband.bth.psn:0:R",
	"Info", "%i"
EOF
# perftest payloads are not RPC-over-RDMA
echo rpcordma >"$C/disabled_protos"
cat >"$C/recent_common" <<'EOF'
gui.geometry_main_x: 0
gui.geometry_main_y: 0
gui.geometry_main_width: 1440
gui.geometry_main_height: 900
privs.warn_if_elevated: FALSE
EOF
cat >"$C/recent" <<'EOF'
gui.byte_view_show: FALSE
gui.geometry_main_upper_pane: 200
EOF
chmod 700 "$S"
if [ "$(id -u)" = 0 ]; then
	chown -R nobody:nogroup "$S"
	RUNAS="setpriv --reuid=nobody --regid=nogroup --clear-groups"
else
	RUNAS=""
fi

# a free display
n=90
while [ -e /tmp/.X$n-lock ]; do n=$((n + 1)); done
export DISPLAY=:$n
Xvfb "$DISPLAY" -screen 0 1440x900x24 -ac -nolisten tcp >/dev/null 2>&1 &
XPID=$!
sleep 2

# shellcheck disable=SC2086
(cd "$S" && exec $RUNAS env HOME="$S" XDG_RUNTIME_DIR="$S" QT_QPA_PLATFORM=xcb \
	wireshark -r "$S/$(basename "$CAP")" -Y roce.analysis.retransmission -g $FRAME) >/dev/null 2>&1 &
WPID=$!
W=
for _ in $(seq 60); do
	W=$(xdotool search --onlyvisible --name "$(basename "$CAP")" 2>/dev/null | head -1) || true
	[ -n "$W" ] && break
	sleep 0.5
done
[ -n "$W" ] || { echo "screenshot.sh: the Wireshark window did not appear"; exit 1; }
sleep 3
xdotool windowmove "$W" 0 0 windowsize "$W" 1440 900
sleep 1
# click the details pane's first line (its top is at the upper pane's 200 px +
# the toolbars), go to its last item (RoCE) and expand everything below it
xdotool mousemove --sync 300 303 click 1
sleep 0.5
xdotool key End
sleep 0.3
xdotool key shift+Right
sleep 0.3
xdotool mousemove --sync 1439 899
sleep 1
import -window root -depth 8 -colors 128 "$OUT"
echo "screenshot.sh: wrote $OUT ($(wc -c <"$OUT") bytes)"
