#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# golden.sh — rocetop's packet listing against expected outputs.
#
#   BUILD=build tests/golden.sh             run every test in tests/golden/TESTLIST
#   BUILD=build tests/golden.sh NAME...     run only these
#   BUILD=build tests/golden.sh --update [NAME...]
#                                           rewrite the expected outputs (read the
#                                           diff before committing them)
#
# Each TESTLIST line is `name capture [options...]` (capture relative to the
# repository root; '#' starts a comment).  The test runs
#   TZ=UTC $BUILD/bin/rocetop -r capture --packets options...
# or, when the options start with @batch, the analysis summary
#   TZ=UTC $BUILD/bin/rocetop -r capture -b options...
# and compares its standard output with tests/golden/name.out.  A non-zero exit
# status or anything on standard error also fails the test.
set -u
set -f   # options from TESTLIST are split on blanks, never globbed

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
case $BUILD in
/*) ;;
*) BUILD=$root/$BUILD ;;
esac
rocetop=$BUILD/bin/rocetop
dir=$here/golden
list=$dir/TESTLIST

update=0
if [ "${1:-}" = --update ]; then
	update=1
	shift
fi
if [ ! -x "$rocetop" ]; then
	echo "golden: $rocetop not built" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

wanted() {
	[ $# -eq 1 ] && return 0
	n=$1
	shift
	for w; do
		[ "$w" = "$n" ] && return 0
	done
	return 1
}

pass=0 fail=0 updated=0 seen=0
cd "$root" || exit 2
# shellcheck disable=SC2086 # options are split on purpose
while read -r name capture opts; do
	case $name in
	'' | '#'*) continue ;;
	esac
	wanted "$name" "$@" || continue
	seen=$((seen + 1))
	exp=$dir/$name.out
	if [ ! -f "$capture" ]; then
		echo "FAIL $name: capture $capture is missing"
		fail=$((fail + 1))
		continue
	fi
	mode=--packets
	case $opts in
	@batch*)
		mode=-b
		opts=${opts#@batch}
		opts=${opts# }
		;;
	esac
	cmd="rocetop -r $capture $mode${opts:+ $opts}"
	TZ=UTC "$rocetop" -r "$capture" $mode $opts >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$tmp/err" ]; then
		echo "FAIL $name: $cmd exited $rc"
		sed 's/^/  stderr: /' "$tmp/err" | head -n 20
		fail=$((fail + 1))
		continue
	fi
	if [ $update -eq 1 ]; then
		if ! cmp -s "$tmp/out" "$exp"; then
			cp "$tmp/out" "$exp"
			echo "updated $name ($(wc -l <"$exp") lines)"
			updated=$((updated + 1))
		fi
		continue
	fi
	if [ ! -f "$exp" ]; then
		echo "FAIL $name: $exp is missing (tests/golden.sh --update $name, then read it)"
		fail=$((fail + 1))
	elif cmp -s "$tmp/out" "$exp"; then
		pass=$((pass + 1))
	else
		echo "FAIL $name: $cmd differs from tests/golden/$name.out"
		diff -u "$exp" "$tmp/out" | head -n 60
		fail=$((fail + 1))
	fi
done <"$list"

if [ $# -gt 0 ] && [ $seen -eq 0 ]; then
	echo "golden: no test named $*" >&2
	exit 2
fi
if [ $update -eq 1 ]; then
	echo "golden: $updated of $seen expected outputs rewritten; $fail failed"
	[ $fail -eq 0 ]
	exit
fi
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]
