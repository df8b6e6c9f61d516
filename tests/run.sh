#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run.sh — runs the test suite's independent jobs side by side.
#
#   tests/run.sh [-j N] [-w N] [-b BUILD:SAN]... -- JOB...
#
# A JOB is a unit binary named relative to the build directory
# (tests/test_flow), a test script (tests/cli.sh, tests/difftest.py) or
# fuzz:NAME (a short libFuzzer run of $BUILD/fuzz/NAME). Every job runs once
# per -b build (fuzz jobs once, with the first build). Each job's output goes
# to its own log, shown in full when the job fails; a one-line verdict with
# its wall time is printed when it ends. The same script never runs twice at
# once (its two builds run one after the other inside one job), so scripts
# only need to keep apart from *other* scripts: they use per-PID names for
# namespaces, tmux sockets and temporary directories.
#
# Each job's runs share a directory, TEST_SHARED (run_job()).
#
# At the end, the 10 slowest jobs (where make check's time goes), each with
# its CPU time: a job whose CPU time is far below its wall time waits rather
# than works.
#
# A script may say what kind of job it is on a line of its own:
#   # run.sh: waits    it mostly waits (timeouts, retries, a peer's pace), so
#                      up to -w N of them (default: -j's N) run beside the -j N
#                      others, not in their place;
#   # run.sh: timing   it measures rates or times against the clock: while one
#                      runs or waits to run, no job runs beyond -j N (a waiting
#                      job takes a core's place then).
# So the timing jobs run as they did before waiting jobs could overlap: first
# (their place in the list should be first), and the waiting jobs overlap the
# rest.  Jobs start in the order given, each as soon as there is room for it.
#
# Exit status: 0 when every job passed, 1 otherwise.
set -u

jobs_max=$(nproc 2>/dev/null || echo 2)
wait_max=
builds=()
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs_max=$2; shift 2 ;;
	-w) wait_max=$2; shift 2 ;;
	-b) builds+=("$2"); shift 2 ;;
	--) shift; break ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ ${#builds[@]} -gt 0 ] || builds=("${BUILD:-build}:${SAN:-0}")
[ $# -gt 0 ] || { echo "run.sh: no jobs" >&2; exit 2; }
wait_max=${wait_max:-$jobs_max}

logdir=$(mktemp -d /tmp/rocetop-check.XXXXXX)
trap 'rm -rf "$logdir"' EXIT
FUZZ_SECONDS=${FUZZ_SECONDS:-10}

# One job: every build in turn; stops at the first failure.
# TEST_SHARED: a directory the job's runs (one per build) share, for what
# does not depend on the build (difftest.py keeps tshark's output there
# unless TEST_CACHE, which make check sets to a directory of the build tree,
# keeps it from one make check to the next; cli.sh, link.sh and threads.sh
# the captures their python makes, link.sh and encap.sh tshark's output,
# invariance.sh and encap.sh the copies rocegen convert and mkencap write);
# it goes with the logs.
run_job() {
	local job=$1 b build san
	export TEST_SHARED="$logdir/shared.${job//[^A-Za-z0-9_.-]/_}"
	mkdir -p "$TEST_SHARED" || return 1
	for b in "${builds[@]}"; do
		build=${b%%:*}; san=${b##*:}
		echo "---- $job ($build)"
		case $job in
		fuzz:*)
			local n=${job#fuzz:}
			mkdir -p "$build/fuzz/corpus-$n" || return 1
			"$build/fuzz/$n" -max_total_time="$FUZZ_SECONDS" -max_len=2048 \
				-print_final_stats=0 "$build/fuzz/corpus-$n" fuzz/seeds 2>&1 | tail -n 2
			[ "${PIPESTATUS[0]}" = 0 ] || return 1
			return 0 ;;
		*.py) BUILD=$build SAN=$san python3 "$job" || return 1 ;;
		*.sh) BUILD=$build SAN=$san "$job" || return 1 ;;
		*) "$build/$job" || return 1 ;;
		esac
	done
}

now() { date +%s.%N; }

# a job's kind: waits, timing or cpu (the "# run.sh: KIND" line of a script)
kind_of() {
	local k=
	case $1 in
	*.sh | *.py) k=$(sed -n 's/^# run\.sh: \(waits\|timing\)$/\1/p' "$1" | head -n 1) ;;
	esac
	echo "${k:-cpu}"
}

declare -A pid_job pid_start pid_log pid_kind
declare -A n_kind=([cpu]=0 [waits]=0 [timing]=0)
declare -A tag=([cpu]="" [waits]=" (waits)" [timing]=" (timing)")
failed=()
times=()
cpu_all=0
i=0
running=0
start_all=$(now)

reap() {
	local pid rc cpu
	wait -n -p pid
	rc=$?
	local job=${pid_job[$pid]} log=${pid_log[$pid]}
	local secs
	secs=$(awk -v a="${pid_start[$pid]}" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}')
	cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } }
		END { printf "%.1f", s }' "$log.cpu" 2>/dev/null)
	times+=("$secs ${cpu:-?} $job")
	cpu_all=$(awk -v a="$cpu_all" -v b="${cpu:-0}" 'BEGIN{printf "%.1f", a+b}')
	if [ "$rc" = 0 ]; then
		printf 'ok    %6ss (cpu %6ss)  %s%s\n' "$secs" "${cpu:-?}" "$job" "${tag[${pid_kind[$pid]}]}"
	else
		printf 'FAIL  %6ss (cpu %6ss)  %s (exit %s); its output:\n' "$secs" "${cpu:-?}" "$job" "$rc"
		sed 's/^/    /' "$log"
		failed+=("$job")
	fi
	n_kind[${pid_kind[$pid]}]=$((n_kind[${pid_kind[$pid]}] - 1))
	unset "pid_job[$pid]" "pid_start[$pid]" "pid_log[$pid]" "pid_kind[$pid]"
	running=$((running - 1))
}

# room KIND TIMING_PENDING: may a job of KIND start now?
room() {
	if [ "${n_kind[timing]}" -gt 0 ] || [ "$2" -gt 0 ]; then
		[ "$running" -lt "$jobs_max" ]
	elif [ "$1" = waits ]; then
		[ "${n_kind[waits]}" -lt "$wait_max" ]
	else
		[ $((running - n_kind[waits])) -lt "$jobs_max" ]
	fi
}

pending=("$@")
kinds=()
timing_pending=0
for job in "${pending[@]}"; do
	kinds+=("$(kind_of "$job")")
	[ "${kinds[-1]}" = timing ] && timing_pending=$((timing_pending + 1))
done
left=${#pending[@]}
while [ "$left" -gt 0 ]; do
	pick=
	for k in "${!pending[@]}"; do
		if room "${kinds[$k]}" "$timing_pending"; then pick=$k; break; fi
	done
	[ -n "$pick" ] || { reap; continue; }
	job=${pending[$pick]} kind=${kinds[$pick]}
	unset "pending[$pick]" "kinds[$pick]"
	left=$((left - 1))
	[ "$kind" = timing ] && timing_pending=$((timing_pending - 1))
	i=$((i + 1))
	log="$logdir/$i.log"
	# the job's CPU time (user + sys of everything it ran and waited for), beside
	# its wall time: a job far below its wall time waits (sleeps, timeouts)
	{ run_job "$job"; rc=$?; times >"$log.cpu"; exit "$rc"; } \
		>"$log" 2>&1 &
	pid_job[$!]=$job; pid_start[$!]=$(now); pid_log[$!]=$log; pid_kind[$!]=$kind
	n_kind[$kind]=$((n_kind[$kind] + 1))
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do reap; done

total=$(awk -v a="$start_all" -v b="$(now)" 'BEGIN{printf "%.0f", b-a}')
if [ $# -gt 1 ]; then
	echo "slowest jobs (wall seconds, both builds; CPU seconds):"
	printf '%s\n' "${times[@]}" | sort -rn | head -n 10 |
		awk '{ printf "  %7.1f  cpu %7s  %s\n", $1, $2, $3 }'
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "check: ${#failed[@]} of $# jobs failed in ${total}s (cpu ${cpu_all}s): ${failed[*]}"
	exit 1
fi
echo "check: all $# jobs passed in ${total}s, cpu ${cpu_all}s (builds: ${builds[*]})"
