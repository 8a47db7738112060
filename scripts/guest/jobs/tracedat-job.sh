#!/bin/sh
# One freeze per freezer recorded with the host's trace-cmd (../tracecmd-lib.sh),
# for tests/host/76-trace-dat.sh: each freeze's trace.dat and the kernel's
# count of how it froze its tasks (/sys/kernel/debug/freezer/frozen_by,
# read right after the thaw) go to the host directory tracedat_dir= of the
# kernel command line, as FREEZER.dat and FREEZER.frozen_by; the host
# compares them.  A small workload, as the test kernel is slow (KASAN): a
# spinner (frozen by its item or at a checkpoint), a sleeper and a pipe
# reader (frozen in place by the todo freezer).  pm_test=freezer: each
# freeze is a round trip of 1 s.
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"
# shellcheck source=SCRIPTDIR/../tracecmd-lib.sh
. "$(dirname "$0")/../tracecmd-lib.sh"

TC_SAY="# "
dir=$(cmdline_param tracedat_dir "")

# The chroot and the workload, here: run_prog runs its command in a
# subshell, whose background tasks and file descriptors would go with it.
ready=""
if [ -z "$dir" ]; then
	ready="no tracedat_dir= on the kernel command line"
elif ! tc_setup "$dir"; then
	ready="trace-cmd cannot run in the guest (above)"
else
	cat /dev/zero >/dev/null &
	sleep 1000 &
	mkfifo /tmp/tracedat.fifo
	cat /tmp/tracedat.fifo >/dev/null &
	exec 3>/tmp/tracedat.fifo
	echo freezer >/sys/power/pm_test
	echo 1 >/sys/module/suspend/parameters/pm_test_delay
fi

# setup: TAP of the above.
setup() {
	echo "1..1"
	[ -z "$ready" ] || { echo "not ok 1 trace_cmd_runs_in_the_guest # $ready"; return 1; }
	echo "ok 1 trace_cmd_runs_in_the_guest"
}

# record FREEZER: TAP of one freeze with FREEZER, recorded.
record() {
	echo "1..1"
	[ -z "$ready" ] || { echo "not ok 1 freeze_recorded # $ready"; return 1; }
	echo "$1" >/sys/power/freezer || { echo "not ok 1 freeze_recorded # cannot select the $1 freezer"; return 1; }
	tc_start || { echo "not ok 1 freeze_recorded # trace-cmd start failed"; return 1; }
	tc_mark "freeze with the $1 freezer"
	if ! echo freeze >/sys/power/state; then
		echo "not ok 1 freeze_recorded # the freeze failed"
		tc_end
		return 1
	fi
	cat /sys/kernel/debug/freezer/frozen_by >"$TC_ROOT$dir/$1.frozen_by"
	tc_mark "thawed"
	# The status as printed: run_prog's result is the function's status.
	saved=0
	tc_save "$dir/$1.dat" || saved=$?
	if [ "$saved" -eq 0 ]; then
		echo "ok 1 freeze_recorded"
	else
		echo "not ok 1 freeze_recorded # trace-cmd extract failed"
	fi
	tc_end
	[ "$saved" -eq 0 ]
}

job() {
	run_prog setup setup
	run_prog todo record todo
	run_prog classic record classic
}
ktap_job job
