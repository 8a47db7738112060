#!/bin/sh
# Keep the guest up for tests driven from the host (mconsole): a spinner
# and a sleeper whose pids are printed, then wait idle_seconds= (kernel
# command line; default 30) and power off.  With idle_refuse_ms=N, a task
# first refuses to freeze for N ms and freezes time out after 1 s, so the
# host can see a freeze fail; "TODO-REFUSER-DONE" says when it is over.
# With idle_forks=1, a loop forking /bin/true keeps RCU grace periods
# going, so that a host-side stop of the kernel ends in an RCU stall report.
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"

cat /dev/zero >/dev/null &
echo "TODO-SPINNER: $!"
sleep 1000 &
echo "TODO-SLEEPER: $!"
refuse_ms=$(cmdline_param idle_refuse_ms 0)
if [ "$refuse_ms" -gt 0 ]; then
	echo 1000 >/sys/power/pm_freeze_timeout
	{
		echo "$refuse_ms" >/sys/kernel/debug/todo_freezer/sleep_uninterruptible_ms
		echo "TODO-REFUSER-DONE"
	} &
	echo "TODO-REFUSER: $!"
fi
if [ "$(cmdline_param idle_forks 0)" = 1 ]; then
	(while :; do /bin/true; done) &
fi
echo "TODO-READY"
sleep "$(cmdline_param idle_seconds 30)"
