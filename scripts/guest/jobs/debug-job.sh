#!/bin/sh
# "make debug": one freeze through the todo freezer, for gdb to watch
# (scripts/host/debug.sh sets breakpoints on todo_freeze_task, todo_freeze_self
# and todo_thaw_begin, so the first one is hit without typing anything).
#
# The chosen task is a subshell named "freeze_me", blocked in read() on a
# FIFO: the freezer queues its freeze item, the fake signal takes it out
# of read(), it runs todo_freeze_self() on its way back to user space and
# waits frozen until the thaw; then read() is restarted.  pm_test=freezer
# ends the suspend right after the freeze (pm_test_delay seconds later).
# Kernel parameters: debug_delay=S (wait before the freeze, default 1).
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"

sleep "$(cmdline_param debug_delay 1)"

# What scripts/host/debug.sh boots with to keep a gdb session quiet, as the
# kernel took it (tests/host/70-gdb.sh checks these).
echo "guest: debug: rcu_cpu_stall_suppress=$(cat /sys/module/rcupdate/parameters/rcu_cpu_stall_suppress)" \
	"hung_task_timeout_secs=$(cat /proc/sys/kernel/hung_task_timeout_secs)"

mkfifo /tmp/freeze_me.fifo
(
	printf freeze_me >/proc/self/comm
	exec 3<>/tmp/freeze_me.fifo
	read -r line <&3
	echo "guest: freeze_me read '$line' after the thaw"
) &
victim=$!
# Until the subshell has renamed itself and sleeps in read().
n=0
while [ "$(cat /proc/$victim/comm)" != freeze_me ] ||
	[ "$(cut -d' ' -f3 /proc/$victim/stat)" != S ]; do
	n=$((n + 1))
	[ "$n" -lt 100 ] || { echo "guest: freeze_me did not start: $(cat /proc/$victim/stat)"; exit 1; }
	sleep 0.1
done
echo "guest: debug: freezing with the $(sed 's/.*\[\(.*\)\].*/\1/' /sys/power/freezer) freezer, chosen task freeze_me pid $victim"

# A freeze stopped in gdb must not time out (default 20 s) in the meantime.
echo 3600000 >/sys/power/pm_freeze_timeout
echo freezer >/sys/power/pm_test
echo 1 >/sys/module/suspend/parameters/pm_test_delay
if echo freeze >/sys/power/state; then
	echo "guest: debug: freeze and thaw done"
else
	echo "guest: debug: echo freeze >/sys/power/state failed"
	rc=1
fi
echo freezer-thawed >/tmp/freeze_me.fifo
wait "$victim"
echo "none" >/sys/power/pm_test
exit "$rc"
