#!/bin/sh
# "make trace": one freeze per freezer while the host straces ./linux
# (scripts/host/trace.sh).  Each freeze is bracketed by console markers; the
# kernel's console output is UML's write() on the host, so the markers land
# in the strace log itself and give the freeze window without correlating
# clocks.  An idle second (the shell in a read with a timeout: no fork, no
# exec) is marked the same way, as a baseline.
#   TODO-IDLE-BEGIN / TODO-IDLE-END
#   TODO-FREEZE-BEGIN FREEZER / TODO-FREEZE-END FREEZER STATUS
# pm_test=freezer stops the suspend right after the freezer and holds it
# for pm_test_delay seconds (an mdelay() busy wait), then thaws.
# With strace=attach on the command line (make trace STRACE=attach: strace
# attaching after boot) the job first prints TODO-TRACE-WAIT and waits for
# a line on the console, which the host sends once strace is attached.
# With tracedat=FILE on the command line, the host's trace-cmd records both
# freezes into FILE (a host path) through hostfs (../tracecmd-lib.sh), each freeze
# marked in the trace by its TODO-FREEZE-BEGIN line.
# busybox ash has read -t (timeout), which POSIX sh lacks.
# shellcheck disable=SC3045
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"
# shellcheck source=SCRIPTDIR/../tracecmd-lib.sh
. "$(dirname "$0")/../tracecmd-lib.sh"
rc=0
error() {
	echo "TRACE error $*"
	rc=1
}

for f in /sys/power/state /sys/power/pm_test /sys/module/suspend/parameters/pm_test_delay /sys/power/freezer; do
	[ -w "$f" ] || error "no $f: this kernel lacks CONFIG_PM_DEBUG or the todo freezer"
done
[ "$rc" -eq 0 ] || exit "$rc"

tracedat=$(cmdline_param tracedat "")
if [ -n "$tracedat" ] && ! tc_setup "${tracedat%/*}"; then
	error "trace-cmd: cannot run the host's trace-cmd in the guest (above)"
	exit "$rc"
fi
if [ "$(cmdline_param strace start)" = attach ]; then
	echo "TODO-TRACE-WAIT"
	read -r -t 60 _ || { error "no word from the host within 60 s that strace is attached"; exit "$rc"; }
fi

# Something to freeze besides this shell: a sleeper and a pipe reader.
sleep 1000 &
sleeper=$!
mkfifo /tmp/trace.fifo
cat /tmp/trace.fifo >/dev/null &
reader=$!
exec 3>/tmp/trace.fifo

mkfifo /tmp/trace.idle
exec 4<>/tmp/trace.idle
echo freezer >/sys/power/pm_test
echo 1 >/sys/module/suspend/parameters/pm_test_delay
# Let the sleeper and the reader settle (exec, block) before measuring.
read -r -t 1 _ <&4

echo "TODO-IDLE-BEGIN"
read -r -t 1 _ <&4
echo "TODO-IDLE-END"

[ -z "$tracedat" ] || tc_start || error "trace-cmd: cannot start tracing (above)"
for freezer in todo classic; do
	echo "$freezer" >/sys/power/freezer || error "cannot select the $freezer freezer"
	[ -z "$tracedat" ] || tc_mark "TODO-FREEZE-BEGIN $freezer"
	echo "TODO-FREEZE-BEGIN $freezer"
	echo freeze >/sys/power/state
	# shellcheck disable=SC2320 # the status of the write is the freeze's
	status=$?
	echo "TODO-FREEZE-END $freezer $status"
	[ "$status" -eq 0 ] || error "freeze with the $freezer freezer failed (status $status)"
done

if [ -n "$tracedat" ]; then
	tc_save "$tracedat" || error "trace-cmd: cannot write $tracedat (above)"
	tc_end
fi
echo todo >/sys/power/freezer
echo none >/sys/power/pm_test
exec 3>&- 4>&-
kill "$sleeper" "$reader" 2>/dev/null
wait
exit "$rc"
