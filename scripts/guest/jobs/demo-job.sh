#!/bin/sh
# "make demo", the guest side: /tests/demo_workloads prints for people;
# the host (scripts/host/demo.sh) looks in through mconsole while it is frozen.
# With demo_dir=DIR (a host directory) on the command line, the host's
# trace-cmd records both freezes into DIR/trace.dat, and then one real
# suspend-to-idle woken by the RTC is captured for sleepgraph in DIR
# (../tracecmd-lib.sh).
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"
# shellcheck source=SCRIPTDIR/../tracecmd-lib.sh
. "$(dirname "$0")/../tracecmd-lib.sh"

dmesg -n 1	# kernel messages would interleave with the narration
dir=$(cmdline_param demo_dir "")
traced=0
if [ -n "$dir" ]; then
	if tc_setup "$dir" && tc_start; then traced=1; else rc=1; fi
fi
/tests/demo_workloads || rc=1
if [ "$traced" -eq 1 ]; then
	tc_save "$dir/trace.dat" || rc=1
	echo "guest: one suspend-to-idle, woken by the RTC after 2 s, for sleepgraph"
	tc_s2idle "$dir" || rc=1
	tc_end
fi
exit "$rc"
