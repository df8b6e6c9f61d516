# SPDX-License-Identifier: GPL-2.0-or-later
#
# tuishot.sh — sourced by the tests that drive the terminal view in a tmux
# session named $TS: shot FILE PATTERN captures the pane into FILE until
# PATTERN (an extended regular expression) shows, 10 s at most; 1 if it
# never did.
shot() {
	for i in $(seq 20); do
		sleep 0.5
		tmux capture-pane -p -t "$TS" > "$1" 2>/dev/null
		grep -qE "$2" "$1" && return 0
	done
	return 1
}
