# SPDX-License-Identifier: GPL-2.0-or-later
# tests/iwarp_lab.sh — sourced (not run) by the iWARP lab scripts
# (interop_iwarp.sh, interop_iwarp_perftest.sh, conform_iwarp_lab.sh): what
# every one of them does before its cases.
#
#   iwlab_enter NAME "$@"  from the project root: makes BUILD (default
#                          build) absolute, sets L (the lab) and G
#                          (rocegen); exits 0 ("skip") without the lab or
#                          root, 1 without rocegen; runs the script again
#                          under /tmp/softroce-lab.lock unless it holds it
#   iwlab_up NAME          lab build, then up in siw mode (up_here=1 when it
#                          was down: the caller's cleanup takes it down);
#                          sets PEER (vma) and HOST (the host's bridge side)
#   iwlab_session NAME     T (a temporary folder; KEEP=1 keeps it), the
#                          EXIT trap that removes it and takes a lab that
#                          was down down again, then iwlab_up

iwlab_enter() {
	local name=$1
	shift
	BUILD=${BUILD:-build}
	case $BUILD in
	/*) ;;
	*) BUILD=$root/$BUILD ;;
	esac
	L="$root/../shared/softroce-lab/lab"
	G="$BUILD/bin/rocegen"
	if [ ! -x "$L" ] || [ "$(id -u)" != 0 ]; then
		echo "$name: skip (needs ../shared/softroce-lab and root)"
		exit 0
	fi
	[ -x "$G" ] || { echo "$name: $G missing (make all)"; exit 1; }
	if [ -z "${IWARP_LAB_LOCKED:-}" ] && command -v flock >/dev/null; then
		IWARP_LAB_LOCKED=1 exec flock -w 1800 /tmp/softroce-lab.lock "$0" "$@"
	fi
}

iwlab_up() {
	local name=$1

	"$L" build >/dev/null || { echo "$name: lab build failed"; exit 1; }
	"$L" status >/dev/null 2>&1 || up_here=1
	eval "$("$L" up --mode siw)" || { echo "$name: lab up failed"; exit 1; }
	PEER=${LAB_VMA_IP:-10.99.0.1}
	HOST=${LAB_HOST_IP:-10.99.0.254}
}

iwlab_cleanup() {
	if [ "$up_here" = 1 ]; then "$L" down >/dev/null 2>&1 || true; fi
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}

iwlab_session() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	up_here=0
	trap iwlab_cleanup EXIT
	trap 'exit 130' INT TERM
	iwlab_up "$1"
}
